// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Memory a client makes the kernel allocate is charged to the client's
 * memory cgroup: an unprivileged client in a cgroup with a small
 * memory.max reaches that limit, not its per-file limits, and gets -ENOMEM
 * (graphs, buffer object pages through mmap and through SUBMIT) without
 * waking the OOM killer; the arrays userptr keeps for pinned pages are
 * charged to it too. Meanwhile root and another unprivileged process
 * outside the cgroup keep allocating and completing jobs.
 *
 * The client's own allocations are kept outside the cgroup (made by the
 * parent before the fork) and the sizes chosen so that the limit is met by
 * one large allocation with room to spare: a small allocation of the
 * kernel's own meeting it instead would wake the cgroup's OOM killer,
 * whose report the VM harness counts as a failure.
 *
 * Needs the cgroup2 memory controller: mounted here if the VM has not, and
 * the suite is skipped if the kernel does not have it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "gaccel_hostile.h"

#define CG_ROOT "/sys/fs/cgroup"
#define MIB (1ll << 20)
/* The client's cgroup: small beside the per-file limits (64 MiB of graphs). */
#define CG_LIMIT (48 * MIB)

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* memory.current, or a "key value" line of a flat-keyed file; -1 if absent. */
static long long cg_read(const char *dir, const char *file, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = key ? strlen(key) : 0;

		if (!key) {
			v = atoll(line);
			break;
		}
		if (!strncmp(line, key, n) && line[n] == ' ') {
			v = atoll(line + n + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

FIXTURE(memcg) {
	char dir[128];
	long long max_bo_mib, max_user_bo_mib;
};

FIXTURE_SETUP(memcg)
{
	char controllers[256] = "", max[32];
	FILE *f;

	self->dir[0] = 0;
	self->max_bo_mib = gaccel_param_get("max_bo_mib");
	ASSERT_GE(self->max_bo_mib, 0);
	self->max_user_bo_mib = gaccel_param_get("max_user_bo_mib");
	ASSERT_GE(self->max_user_bo_mib, 0);
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
		SKIP(return, "cannot mount cgroup2 on %s: %s", CG_ROOT, strerror(errno));
	f = fopen(CG_ROOT "/cgroup.controllers", "r");
	ASSERT_NE(NULL, f);
	if (!fgets(controllers, sizeof(controllers), f))
		controllers[0] = 0;
	fclose(f);
	if (!strstr(controllers, "memory"))
		SKIP(return, "no memory controller in cgroup2 (%s)", controllers);
	ASSERT_EQ(0, cg_write(CG_ROOT, "cgroup.subtree_control", "+memory"));

	snprintf(self->dir, sizeof(self->dir), "%s/gaccel-%d", CG_ROOT, getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	snprintf(max, sizeof(max), "%lld", CG_LIMIT);
	ASSERT_EQ(0, cg_write(self->dir, "memory.max", max));
	/* No swap in the VM; if there were, the limit must not be dodged. */
	cg_write(self->dir, "memory.swap.max", "0");
}

/* In the parent: the cgroup goes once the client is gone. */
FIXTURE_TEARDOWN_PARENT(memcg)
{
	gaccel_param_set("max_bo_mib", self->max_bo_mib);
	gaccel_param_set("max_user_bo_mib", self->max_user_bo_mib);
	if (!self->dir[0])
		return;
	for (int i = 0; i < 100 && rmdir(self->dir) && errno == EBUSY; i++)
		usleep(10000);
}

/* The hog's preparation, as root: join the cgroup. */
static int join(void *arg)
{
	const char *dir = arg;

	return cg_write(dir, "cgroup.procs", "0") ? 90 : 0;
}

static long long current(const char *dir)
{
	return cg_read(dir, "memory.current", NULL);
}

/* The cgroup's OOM kills so far. */
static long long oom_kills(const char *dir)
{
	return cg_read(dir, "memory.events", "oom_kill");
}

static void check_beside(struct __test_metadata *_metadata, const struct gaccel_hog *h)
{
	EXPECT_EQ(0, h->beside) TH_LOG("ordinary work outside the cgroup");
}

/* --- graphs -------------------------------------------------------------------- */

/*
 * Each graph keeps about 7.4 MiB of kernel memory (tensors of 80 bytes):
 * 6.5 of them fill the cgroup, so the 7th fails with half a graph of room.
 */
#define GRAPH_TENSORS 96800

/* Written by the parent: its pages are not the client's. */
static struct drm_gaccel_tensor big_tensors[GRAPH_TENSORS];

static int big_graph(int fd, uint32_t *handle)
{
	struct drm_gaccel_slot slot = { .size = 64 };
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_SCALE, 1, 0, GACCEL_NONE,
					       GACCEL_NONE);

	return gaccel_graph_create(fd, &slot, 1, big_tensors, GRAPH_TENSORS, &n, 1, handle);
}

static int hog_graphs(int ready, int go, void *arg)
{
	const char *dir = arg;
	long long before, after;
	uint32_t g;
	int fd, n, ret;

	fd = gaccel_open_device();
	if (fd < 0)
		return 1;
	before = current(dir);
	if (big_graph(fd, &g))
		return 2;
	after = current(dir);
	/* The graph's arrays are the client's. */
	if (after - before < 7 * MIB)
		return 3;
	if (after - before > 9 * MIB)
		return 30;
	for (n = 1; n < 64; n++) {
		ret = big_graph(fd, &g);
		if (ret)
			break;
	}
	if (ret != -ENOMEM)
		return 4;
	/* The cgroup stopped it, well before the 64 MiB of the file's limit. */
	if (n < 5 || n > 6)
		return 5;
	if (gaccel_hog_hold(ready, go))
		return 6;
	close(fd);
	return 0;
}

TEST_F(memcg, graphs)
{
	struct gaccel_hog h = { .prepare = join, .run = hog_graphs, .arg = self->dir };

	ASSERT_EQ(64, gaccel_param_get("max_graph_mib"));
	for (int i = 0; i < GRAPH_TENSORS; i++)
		big_tensors[i] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1);
	gaccel_hog_run(&h);
	EXPECT_EQ(0, h.status);
	EXPECT_EQ(0, h.signal);
	EXPECT_EQ(0, oom_kills(self->dir));
	check_beside(_metadata, &h);
}

/* --- buffer object pages ------------------------------------------------------- */

#define BO_SIZE (16 * MIB)

static int hog_bo_pages(int ready, int go, void *arg)
{
	const char *dir = arg;
	long long before, after;
	uint32_t h, small, big;
	int fd, n;
	void *p;

	fd = gaccel_open_device();
	if (fd < 0)
		return 1;
	/* Pages come when the object is mapped (or first used by a job). */
	before = current(dir);
	if (gaccel_bo_create(fd, BO_SIZE, 0, &h))
		return 2;
	p = gaccel_bo_mmap(fd, h, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		return 3;
	after = current(dir);
	if (after - before < BO_SIZE - MIB)
		return 4;
	for (n = 1; n < 16; n++) {
		if (gaccel_bo_create(fd, BO_SIZE, 0, &h))
			return 5;
		p = gaccel_bo_mmap(fd, h, PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			break;
	}
	if (p != MAP_FAILED || errno != ENOMEM)
		return 6;
	if (n != CG_LIMIT / BO_SIZE - 1)
		return 7;
	/*
	 * The pages allocated before the failure stay in the object (the
	 * shmem helper leaves them in its file) and fill the cgroup to the
	 * last page: the object must go before anything else is allocated.
	 */
	if (gaccel_gem_close(fd, h))
		return 8;
	/* The pages of an object a job maps first: SUBMIT says ENOMEM. */
	if (gaccel_bo_create(fd, 4096, 0, &small) || gaccel_bo_create(fd, BO_SIZE, 0, &big))
		return 9;
	if (gaccel_gpu_copy(fd, small, 0, big, 0, 1) != -ENOMEM)
		return 10;
	if (gaccel_gem_close(fd, big))
		return 11;
	if (gaccel_hog_hold(ready, go))
		return 12;
	close(fd);
	return 0;
}

TEST_F(memcg, bo_pages)
{
	struct gaccel_hog h = { .prepare = join, .run = hog_bo_pages, .arg = self->dir };

	gaccel_hog_run(&h);
	EXPECT_EQ(0, h.status);
	EXPECT_EQ(0, h.signal);
	EXPECT_EQ(0, oom_kills(self->dir));
	check_beside(_metadata, &h);
}

/* --- userptr -------------------------------------------------------------------- */

/*
 * 256 MiB of a memfd, populated by the parent: the pages are its (pinning
 * them later charges no one again); each userptr of them keeps a 512 KiB
 * array of page pointers, which is the client's.
 */
#define PIN_SIZE (256 * MIB)
#define PINS 16

static char *pin_mem;

/* As root: join the cgroup and let the client pin as much as it likes. */
static int join_unlimited_memlock(void *arg)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 91;
	return join(arg);
}

static int hog_userptr(int ready, int go, void *arg)
{
	long long array = PIN_SIZE / 4096 * 8, before, after;
	const char *dir = arg;
	uint32_t h;
	int fd;

	fd = gaccel_open_device();
	if (fd < 0)
		return 1;
	before = current(dir);
	for (int i = 0; i < PINS; i++)
		if (gaccel_userptr(fd, pin_mem, PIN_SIZE, 0, &h))
			return 2;
	after = current(dir);
	/* The arrays, not the pages. */
	if (after - before < PINS * array * 9 / 10)
		return 3;
	if (after - before > PIN_SIZE / 2)
		return 4;
	if (gaccel_hog_hold(ready, go))
		return 5;
	close(fd);
	return 0;
}

TEST_F(memcg, userptr_arrays)
{
	struct gaccel_hog h = {
		.prepare = join_unlimited_memlock, .run = hog_userptr, .arg = self->dir,
	};
	int memfd;

	/*
	 * PINS objects of PIN_SIZE in one file, more than RAM: for its user
	 * too, with room for the same user's ordinary work beside.
	 */
	ASSERT_EQ(0, gaccel_param_set("max_bo_mib", PINS * PIN_SIZE / MIB));
	ASSERT_EQ(0, gaccel_param_set("max_user_bo_mib", PINS * PIN_SIZE / MIB + 16));
	memfd = memfd_create("pinned", MFD_CLOEXEC);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ(0, ftruncate(memfd, PIN_SIZE));
	pin_mem = mmap(NULL, PIN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       memfd, 0);
	ASSERT_NE(MAP_FAILED, pin_mem);
	gaccel_hog_run(&h);
	EXPECT_EQ(0, h.status);
	EXPECT_EQ(0, h.signal);
	EXPECT_EQ(0, oom_kills(self->dir));
	check_beside(_metadata, &h);
	munmap(pin_mem, PIN_SIZE);
	close(memfd);
}

GACCEL_TEST_HARNESS_MAIN
