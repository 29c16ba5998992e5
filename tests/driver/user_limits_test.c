// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-user limits: what one user's files hold together. A client as uid
 * 65534 opens as many files as it likes and fills each up to the per-file
 * limits: the user's total stops at the per-user limit with the per-file
 * errno, in every file and every process of that user, and comes back when
 * files, objects and graphs go. Another unprivileged user (65533) and root
 * keep their own budgets and keep working meanwhile: open files, create
 * objects, fork, run jobs. With the default limits, such a client no
 * longer fills the system's file table (without per-user limits it does,
 * and the others' open() fails with ENFILE). Ids of a user namespace that
 * an unprivileged user owns count for that user too.
 *
 * The tests lower the limits through the module parameters (as root, in
 * the test's process) and the parent of the test puts them back, with
 * fs.file-max.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_hostile.h"

static const char *const params[] = {
	"max_bos", "max_bo_mib", "max_graphs", "max_graph_mib",
	"max_user_bos", "max_user_bo_mib", "max_user_graphs", "max_user_graph_mib",
	"max_user_queues", "max_user_jobs",
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))
#define FILE_MAX "/proc/sys/fs/file-max"

static long long read_ll(const char *path, int field)
{
	long long v[3] = { -1, -1, -1 };
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld %lld %lld", &v[0], &v[1], &v[2]) < field + 1)
		v[field] = -1;
	fclose(f);
	return v[field];
}

static int write_ll(const char *path, long long v)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%lld\n", v) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

FIXTURE(user_limits) {
	long long saved[NPARAMS];
	long long file_max;
	size_t page;
};

FIXTURE_SETUP(user_limits)
{
	for (size_t i = 0; i < NPARAMS; i++) {
		self->saved[i] = gaccel_param_get(params[i]);
		ASSERT_GE(self->saved[i], 0) TH_LOG("parameter %s", params[i]);
	}
	self->file_max = read_ll(FILE_MAX, 0);
	ASSERT_GT(self->file_max, 0);
	self->page = sysconf(_SC_PAGESIZE);
}

/* In the parent: a test killed half way still puts everything back. */
FIXTURE_TEARDOWN_PARENT(user_limits)
{
	for (size_t i = 0; i < NPARAMS; i++)
		gaccel_param_set(params[i], self->saved[i]);
	write_ll(FILE_MAX, self->file_max);
}

static int query_limits(int fd, struct drm_gaccel_limits *l)
{
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_LIMITS, .size = sizeof(*l), .pointer = (uintptr_t)l,
	};

	memset(l, 0, sizeof(*l));
	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
}

/*
 * Run @hog as uid 65534 while root and uid 65533 work beside it (the hog
 * takes all of 65534's budget): its exit status.
 */
static int with_a_hog(struct __test_metadata *_metadata,
		      int (*hog)(int ready, int go, void *arg), void *arg)
{
	struct gaccel_hog h = { .run = hog, .arg = arg, .beside_uid = GACCEL_OTHER_USER };

	gaccel_hog_run(&h);
	EXPECT_EQ(0, h.beside) TH_LOG("ordinary work beside the hog");
	EXPECT_EQ(0, h.signal);
	return h.status;
}

/* Create objects of @size in @fd until refused or @max: how many; *err why. */
static int fill_bos(int fd, uint64_t size, int max, int *err)
{
	uint32_t h;
	int n = 0;

	*err = 0;
	while (n < max && !(*err = gaccel_bo_create(fd, size, 0, &h)))
		n++;
	return n;
}

/* In a child of the same user: one more object in a new file; its errno. */
static int bo_in_new_process(uint64_t size)
{
	int status, fd, ret;
	pid_t pid = fork();
	uint32_t h;

	if (pid == 0) {
		fd = gaccel_open_device();
		if (fd < 0)
			_exit(1);
		ret = gaccel_bo_create(fd, size, 0, &h);
		_exit(ret == -EMFILE ? 0 : ret == -ENOMEM ? 2 : ret ? 3 : 4);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* --- buffer object handles ------------------------------------------------ */

#define FILE_BOS 16
#define USER_BOS 40

static int hog_bos(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;
	int fd[4], n[4], err[4], dmabuf, total = 0;
	uint32_t h, first;
	char *mem;

	for (int i = 0; i < 4; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			return 1;
	}
	if (gaccel_bo_create(fd[0], page, 0, &first))
		return 2;
	n[0] = 1 + fill_bos(fd[0], page, 100, &err[0]);
	for (int i = 1; i < 4; i++)
		n[i] = fill_bos(fd[i], page, 100, &err[i]);
	/* 16 + 16 + 8 + 0: the third file stops at the user's limit. */
	for (int i = 0; i < 4; i++)
		if (err[i] != -EMFILE)
			return 3;
	if (n[0] != FILE_BOS || n[1] != FILE_BOS || n[2] != USER_BOS - 2 * FILE_BOS || n[3])
		return 4;
	/* Every way to a new handle is refused, in any process of the user. */
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || gaccel_userptr(fd[3], mem, page, 0, &h) != -EMFILE)
		return 5;
	dmabuf = gaccel_prime_export(fd[0], first);
	if (dmabuf < 0 || gaccel_prime_import(fd[3], dmabuf, &h) != -EMFILE)
		return 6;
	close(dmabuf);
	if (bo_in_new_process(page))
		return 7;
	/* A closed handle, then a closed file, make room. */
	if (gaccel_gem_close(fd[1], 1) || fill_bos(fd[3], page, 100, &err[3]) != 1 ||
	    err[3] != -EMFILE)
		return 8;
	close(fd[0]);
	if (fill_bos(fd[3], page, 100, &err[3]) != FILE_BOS - 1 || err[3] != -EMFILE)
		return 9;

	if (gaccel_hog_hold(ready, go))
		return 10;
	/* Closing the files gives the whole budget back. */
	for (int i = 1; i < 4; i++)
		close(fd[i]);
	for (int i = 0; i < 4; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			return 11;
		total += fill_bos(fd[i], page, 100, &err[i]);
	}
	if (total != USER_BOS)
		return 12;
	for (int i = 0; i < 4; i++)
		close(fd[i]);
	return 0;
}

TEST_F(user_limits, bos_add_up_over_files)
{
	ASSERT_EQ(0, gaccel_param_set("max_bos", FILE_BOS));
	ASSERT_EQ(0, gaccel_param_set("max_user_bos", USER_BOS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_bos, &self->page));
}

/* --- buffer object bytes ---------------------------------------------------- */

#define MIB (1ull << 20)

static int hog_bo_bytes(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;
	uint32_t a, b, h;
	int fd[3];
	char *mem;

	for (int i = 0; i < 3; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			return 1;
	}
	/* 8 MiB per file, 20 per user. */
	if (gaccel_bo_create(fd[0], 8 * MIB, 0, &a) ||
	    gaccel_bo_create(fd[0], page, 0, &h) != -ENOMEM)
		return 2;
	if (gaccel_bo_create(fd[1], 8 * MIB, 0, &b) || gaccel_bo_create(fd[2], 4 * MIB, 0, &h))
		return 3;
	if (gaccel_bo_create(fd[2], page, 0, &h) != -ENOMEM)
		return 4;
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || gaccel_userptr(fd[2], mem, page, 0, &h) != -ENOMEM)
		return 5;
	if (bo_in_new_process(page) != 2)
		return 6;
	if (gaccel_gem_close(fd[1], b) || gaccel_bo_create(fd[2], 4 * MIB, 0, &h))
		return 7;
	if (gaccel_hog_hold(ready, go))
		return 8;
	close(fd[0]);
	if (gaccel_bo_create(fd[1], 8 * MIB, 0, &h))
		return 9;
	for (int i = 1; i < 3; i++)
		close(fd[i]);
	return 0;
}

TEST_F(user_limits, bo_bytes_add_up_over_files)
{
	ASSERT_EQ(0, gaccel_param_set("max_bo_mib", 8));
	ASSERT_EQ(0, gaccel_param_set("max_user_bo_mib", 20));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_bo_bytes, &self->page));
}

/* --- graphs ---------------------------------------------------------------------- */

/* A valid graph of @n SCALE nodes, t1 = 2 * t0 over 16 floats. */
static int scale_graph(int fd, uint32_t n, uint32_t *handle)
{
	struct drm_gaccel_slot slots[2] = { { .size = 64 }, { .size = 64 } };
	struct drm_gaccel_tensor t[2] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1),
	};
	struct drm_gaccel_node *nodes = calloc(n, sizeof(*nodes));
	int ret;

	if (!nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		nodes[i] = gaccel_node(DRM_GACCEL_OP_SCALE, 1, 0, GACCEL_NONE, GACCEL_NONE);
		nodes[i].params[0] = gaccel_fbits(2.0f);
	}
	ret = gaccel_graph_create(fd, slots, 2, t, 2, nodes, n, handle);
	free(nodes);
	return ret;
}

/* Graphs of @nodes nodes in @fd until refused or @max: how many; *err why. */
static int fill_graphs(int fd, uint32_t nodes, int max, int *err)
{
	uint32_t g;
	int n = 0;

	*err = 0;
	while (n < max && !(*err = scale_graph(fd, nodes, &g)))
		n++;
	return n;
}

#define FILE_GRAPHS 4
#define USER_GRAPHS 10

static int hog_graphs(int ready, int go, void *arg __attribute__((unused)))
{
	int fd[3], n[3], err[3];

	for (int i = 0; i < 3; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			return 1;
		n[i] = fill_graphs(fd[i], 1, 100, &err[i]);
		if (err[i] != -EMFILE)
			return 2;
	}
	if (n[0] != FILE_GRAPHS || n[1] != FILE_GRAPHS || n[2] != USER_GRAPHS - 2 * FILE_GRAPHS)
		return 3;
	if (gaccel_graph_destroy(fd[0], 1) || fill_graphs(fd[2], 1, 100, &err[2]) != 1)
		return 4;
	if (gaccel_hog_hold(ready, go))
		return 5;
	close(fd[1]);
	if (fill_graphs(fd[2], 1, 100, &err[2]) != FILE_GRAPHS - 3 || err[2] != -EMFILE)
		return 6;
	close(fd[0]);
	close(fd[2]);
	return 0;
}

TEST_F(user_limits, graphs_add_up_over_files)
{
	ASSERT_EQ(0, gaccel_param_set("max_graphs", FILE_GRAPHS));
	ASSERT_EQ(0, gaccel_param_set("max_user_graphs", USER_GRAPHS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_graphs, &self->page));
}

/*
 * A graph of 10000 nodes keeps a little more than 10000 node descriptors
 * (96 bytes) of kernel memory: two fit in 2 MiB, five in 5 MiB, six not.
 */
#define BIG_NODES 10000

static int hog_graph_bytes(int ready, int go, void *arg __attribute__((unused)))
{
	int fd[3], n[3], err[3];

	for (int i = 0; i < 3; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			return 1;
		n[i] = fill_graphs(fd[i], BIG_NODES, 100, &err[i]);
		if (err[i] != -ENOMEM)
			return 2;
	}
	if (n[0] != 2 || n[1] != 2 || n[2] != 1)
		return 3;
	if (gaccel_hog_hold(ready, go))
		return 4;
	close(fd[0]);
	if (fill_graphs(fd[2], BIG_NODES, 100, &err[2]) != 1 || err[2] != -ENOMEM)
		return 5;
	close(fd[1]);
	close(fd[2]);
	return 0;
}

TEST_F(user_limits, graph_bytes_add_up_over_files)
{
	ASSERT_LT(2 * BIG_NODES * sizeof(struct drm_gaccel_node) + 8192, 2 * MIB);
	ASSERT_GT(6 * BIG_NODES * sizeof(struct drm_gaccel_node), 5 * MIB);
	ASSERT_EQ(0, gaccel_param_set("max_graph_mib", 2));
	ASSERT_EQ(0, gaccel_param_set("max_user_graph_mib", 5));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_graph_bytes, &self->page));
}

/* --- users are apart -------------------------------------------------------------- */

/*
 * Fill three files as @uid (0: root), report the total on @report[1], hold
 * until @hold[1] is closed.
 */
static pid_t fill_as(uid_t uid, size_t page, const int *report, const int *hold)
{
	pid_t pid = fork();
	int fd[3], err, total = 0;
	char c;

	if (pid)
		return pid;
	close(report[0]);
	close(hold[1]);
	if (uid && gaccel_become_user(uid))
		_exit(1);
	for (int i = 0; i < 3; i++) {
		fd[i] = gaccel_open_device();
		if (fd[i] < 0)
			_exit(2);
		total += fill_bos(fd[i], page, 100, &err);
		if (err != -EMFILE)
			total = -1000;
	}
	if (write(report[1], &total, sizeof(total)) != sizeof(total))
		_exit(3);
	if (read(hold[0], &c, 1) < 0)
		_exit(4);
	_exit(0);
}

TEST_F(user_limits, each_user_has_its_own_budget)
{
	uid_t uids[3] = { GACCEL_NOBODY, GACCEL_OTHER_USER, 0 };
	int report[2], hold[2], total, status;
	pid_t pid[3];

	ASSERT_EQ(0, gaccel_param_set("max_bos", FILE_BOS));
	ASSERT_EQ(0, gaccel_param_set("max_user_bos", USER_BOS));
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	/* Each user fills its budget while the ones before hold theirs. */
	for (int i = 0; i < 3; i++) {
		pid[i] = fill_as(uids[i], self->page, report, hold);
		ASSERT_GT(pid[i], 0);
		ASSERT_EQ(sizeof(total), read(report[0], &total, sizeof(total)));
		/* Root too: it is not exempt. */
		EXPECT_EQ(USER_BOS, total) TH_LOG("uid %u", uids[i]);
	}
	close(hold[1]);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_EQ(0, status);
	}
}

/* --- the file table ------------------------------------------------------------------- */

#define MAX_FDS 512
/* The file table the test leaves: this many more than are open. */
#define ROOM 6000

/*
 * As many files as it may, each filled with objects: each object is a
 * shmem file. With the default per-user limit, the user stops at a quarter
 * of the file table, with EMFILE.
 */
static int hog_file_table(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;
	int fds[MAX_FDS], nfds = 0, n = 0, err = 0, ret = 0;
	long long total = 0, per_file = gaccel_param_get("max_bos");
	struct drm_gaccel_limits l;

	while (nfds < MAX_FDS) {
		int fd = gaccel_open_device();

		if (fd < 0) {
			err = fd;
			break;
		}
		fds[nfds++] = fd;
		n = fill_bos(fd, page, per_file + 1, &err);
		total += n;
		if (n < per_file)
			break;
	}
	if (gaccel_hog_hold(ready, go))
		ret = 1;
	else if (err != -EMFILE)
		ret = 2;
	else if (nfds < 2 || query_limits(fds[0], &l))
		ret = 3;
	else if (total != (long long)l.max_user_bos)
		ret = 4;
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

TEST_F(user_limits, file_table_is_not_exhausted)
{
	long long open_files = read_ll("/proc/sys/fs/file-nr", 0), file_max;
	struct drm_gaccel_limits l;
	int fd;

	/* An estimate: per-CPU counts not yet summed are missing. */
	ASSERT_GE(open_files, 0);
	/* A small table, so that filling it takes seconds; root is exempt. */
	file_max = open_files + ROOM;
	ASSERT_EQ(0, write_ll(FILE_MAX, file_max));
	/* A file holds 256: the user needs many files. */
	ASSERT_EQ(0, gaccel_param_set("max_bos", 256));
	ASSERT_EQ(0, gaccel_param_set("max_user_bos", 0));
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, query_limits(fd, &l));
	close(fd);
	EXPECT_EQ(file_max / 4, (long long)l.max_user_bos);
	EXPECT_EQ(0, with_a_hog(_metadata, hog_file_table, &self->page));
}

/* --- user namespaces --------------------------------------------------------------- */

#define NS_BASE 200000
#define NS_IDS 4

/*
 * In a user namespace uid 65534 created, root mapped ids NS_BASE.. to 0..
 * (as newuidmap does with /etc/subuid). A child per id fills a file and
 * holds it: the ids add up to their owner's limit, not each its own.
 */
static int ns_fill(size_t page)
{
	int report[2], hold[2], n[NS_IDS], status, ret = 0;
	pid_t pid[NS_IDS];

	if (pipe(report) || pipe(hold))
		return 10;
	for (int i = 0; i < NS_IDS; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 11;
		if (pid[i] == 0) {
			int fd, err, got;
			char c;

			close(report[0]);
			close(hold[1]);
			if (setuid(i) || getuid() != (uid_t)i)
				_exit(1);
			fd = gaccel_open_device();
			if (fd < 0)
				_exit(2);
			got = fill_bos(fd, page, 100, &err);
			if (err != -EMFILE)
				got = -1000;
			if (write(report[1], &got, sizeof(got)) != sizeof(got) ||
			    read(hold[0], &c, 1) < 0)
				_exit(3);
			_exit(0);
		}
		if (read(report[0], &n[i], sizeof(n[i])) != sizeof(n[i]))
			return 12;
	}
	close(hold[1]);
	for (int i = 0; i < NS_IDS; i++)
		if (waitpid(pid[i], &status, 0) != pid[i] || status)
			ret = 13;
	if (ret)
		return ret;
	/* 16 + 16 + 8 + 0, as for one user's files. */
	if (n[0] != FILE_BOS || n[1] != FILE_BOS || n[2] != USER_BOS - 2 * FILE_BOS || n[3])
		return 20 + (n[0] != FILE_BOS) + 2 * (n[1] != FILE_BOS) + 4 * (n[3] != 0);
	return 0;
}

TEST_F(user_limits, namespace_ids_count_for_their_owner)
{
	int to_parent[2], to_child[2], status;
	char path[64], c = 0;
	FILE *f;
	pid_t pid;

	ASSERT_EQ(0, gaccel_param_set("max_bos", FILE_BOS));
	ASSERT_EQ(0, gaccel_param_set("max_user_bos", USER_BOS));
	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(to_parent[0]);
		close(to_child[1]);
		if (gaccel_become_nobody())
			_exit(100);
		if (unshare(CLONE_NEWUSER))
			_exit(99);
		if (write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(101);
		_exit(ns_fill(self->page));
	}
	close(to_parent[1]);
	close(to_child[0]);
	if (read(to_parent[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		f = fopen(path, "w");

		ASSERT_NE(NULL, f);
		EXPECT_LT(0, fprintf(f, "0 %d %d\n", NS_BASE, NS_IDS));
		EXPECT_EQ(0, fclose(f));
		EXPECT_EQ(1, write(to_child[1], &c, 1));
	}
	close(to_child[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 99)
		SKIP(return, "no unprivileged user namespaces");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* --- QUERY --------------------------------------------------------------------------- */

TEST_F(user_limits, query_reports_the_parameters)
{
	struct drm_gaccel_limits l;
	long long file_max;
	int fd;

	ASSERT_EQ(0, gaccel_param_set("max_user_bos", 77));
	ASSERT_EQ(0, gaccel_param_set("max_user_bo_mib", 33));
	ASSERT_EQ(0, gaccel_param_set("max_user_graphs", 55));
	ASSERT_EQ(0, gaccel_param_set("max_user_graph_mib", 3));
	ASSERT_EQ(0, gaccel_param_set("max_user_queues", 9));
	ASSERT_EQ(0, gaccel_param_set("max_user_jobs", 99));
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, query_limits(fd, &l));
	EXPECT_EQ(77, l.max_user_bos);
	EXPECT_EQ(33ull << 20, l.max_user_bo_bytes);
	EXPECT_EQ(55, l.max_user_graphs);
	EXPECT_EQ(3ull << 20, l.max_user_graph_bytes);
	EXPECT_EQ(9, l.max_user_queues);
	EXPECT_EQ(99, l.max_user_jobs);

	/* Defaults: a quarter of the file table up to 16384; half of RAM. */
	ASSERT_EQ(0, gaccel_param_set("max_user_bos", 0));
	ASSERT_EQ(0, gaccel_param_set("max_user_bo_mib", 0));
	ASSERT_EQ(0, gaccel_param_set("max_bo_mib", 0));
	ASSERT_EQ(0, query_limits(fd, &l));
	file_max = read_ll(FILE_MAX, 0);
	EXPECT_EQ(file_max / 4 < 16384 ? file_max / 4 : 16384, (long long)l.max_user_bos);
	EXPECT_EQ(l.max_bo_bytes, l.max_user_bo_bytes);
	close(fd);
}

/* The defaults are four files' worth of counts. */
TEST_F(user_limits, default_parameters)
{
	EXPECT_EQ(0, self->saved[4]);		/* max_user_bos: from fs.file-max */
	EXPECT_EQ(0, self->saved[5]);		/* max_user_bo_mib: half of RAM */
	EXPECT_EQ(4 * gaccel_param_get("max_graphs"), self->saved[6]);
	EXPECT_EQ(4 * gaccel_param_get("max_graph_mib"), self->saved[7]);
	EXPECT_EQ(4 * gaccel_param_get("max_queues"), self->saved[8]);
	EXPECT_EQ(4 * gaccel_param_get("max_jobs"), self->saved[9]);
}

GACCEL_TEST_HARNESS_MAIN
