// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-file limits of buffer objects and graphs, reached by an unprivileged
 * client (uid 65534): each returns its errno and takes nothing, counts
 * every handle however it was made (create, userptr, PRIME import) exactly
 * once even when threads race over guessed handles, keeps
 * counting what jobs still hold, and comes back when handles, graphs or
 * the file go. Meanwhile root and another unprivileged process keep
 * working: open files, create objects, fork, run jobs.
 *
 * The tests lower the limits through the module parameters (as root, in
 * the test's process) and the parent of the test puts them back.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_hostile.h"

static const char *const params[] = {
	"max_bos", "max_bo_mib", "max_graphs", "max_graph_mib",
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))

FIXTURE(limits) {
	long long saved[NPARAMS];
	size_t page;
};

FIXTURE_SETUP(limits)
{
	for (size_t i = 0; i < NPARAMS; i++) {
		self->saved[i] = gaccel_param_get(params[i]);
		ASSERT_GE(self->saved[i], 0) TH_LOG("parameter %s", params[i]);
	}
	self->page = sysconf(_SC_PAGESIZE);
}

/* In the parent: a test killed half way still puts the limits back. */
FIXTURE_TEARDOWN_PARENT(limits)
{
	for (size_t i = 0; i < NPARAMS; i++)
		gaccel_param_set(params[i], self->saved[i]);
}

/* Run @hog as uid 65534 beside ordinary clients: its exit status. */
static int with_a_hog(struct __test_metadata *_metadata,
		      int (*hog)(int ready, int go, void *arg), size_t page)
{
	struct gaccel_hog h = { .run = hog, .arg = &page };

	gaccel_hog_run(&h);
	EXPECT_EQ(0, h.beside) TH_LOG("ordinary work beside the hog");
	EXPECT_EQ(0, h.signal);
	return h.status;
}

/* --- buffer object handles ----------------------------------------------- */

#define FEW_BOS 64

static int hog_bo_handles(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;

	uint32_t h[FEW_BOS], extra, other;
	int fd, fd2, dmabuf;
	char *mem;

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	if (fd < 0 || fd2 < 0)
		return 1;
	for (int i = 0; i < FEW_BOS; i++)
		if (gaccel_bo_create(fd, page, 0, &h[i]))
			return 2;
	/* Every way to get a new handle is refused... */
	if (gaccel_bo_create(fd, page, 0, &extra) != -EMFILE)
		return 3;
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || gaccel_userptr(fd, mem, page, 0, &extra) != -EMFILE)
		return 4;
	if (gaccel_bo_create(fd2, page, 0, &other))
		return 5;
	dmabuf = gaccel_prime_export(fd2, other);
	if (dmabuf < 0 || gaccel_prime_import(fd, dmabuf, &extra) != -EMFILE)
		return 6;
	/* ...but re-importing one of ours is not a new handle. */
	close(dmabuf);
	dmabuf = gaccel_prime_export(fd, h[0]);
	if (dmabuf < 0 || gaccel_prime_import(fd, dmabuf, &extra) || extra != h[0])
		return 7;
	close(dmabuf);
	/* The limit is per file: the second file has its own. */
	if (gaccel_bo_create(fd2, page, 0, &other))
		return 8;
	/* A closed handle makes room for one. */
	if (gaccel_gem_close(fd, h[3]) || gaccel_bo_create(fd, page, 0, &h[3]))
		return 9;
	if (gaccel_bo_create(fd, page, 0, &extra) != -EMFILE)
		return 10;

	if (gaccel_hog_hold(ready, go))
		return 11;
	/* Closing the file gives everything back. */
	close(fd);
	fd = gaccel_open_device();
	if (fd < 0)
		return 12;
	for (int i = 0; i < FEW_BOS; i++)
		if (gaccel_bo_create(fd, page, 0, &h[i]))
			return 13;
	close(fd);
	close(fd2);
	return 0;
}

TEST_F(limits, bo_handles)
{
	ASSERT_EQ(0, gaccel_param_set("max_bos", FEW_BOS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_bo_handles, self->page));
}

/*
 * BO_CREATE whose result cannot be copied out (drm_ioctl() copies after the
 * driver returns) leaves its handle behind: bounded like any other, and
 * freed when the file is closed.
 */
static int hog_lost_handles(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;
	struct drm_gaccel_bo_create *ro;
	uint32_t h;
	int fd;

	fd = gaccel_open_device();
	if (fd < 0)
		return 1;
	ro = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return 2;
	ro->size = page;
	if (mprotect(ro, page, PROT_READ))
		return 3;
	for (int i = 0; i < FEW_BOS; i++)
		if (gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE, ro) != -EFAULT)
			return 4;
	if (gaccel_bo_create(fd, page, 0, &h) != -EMFILE)
		return 5;
	if (gaccel_hog_hold(ready, go))
		return 6;
	close(fd);
	fd = gaccel_open_device();
	if (fd < 0 || gaccel_bo_create(fd, page, 0, &h))
		return 7;
	close(fd);
	return 0;
}

TEST_F(limits, handles_not_copied_out)
{
	ASSERT_EQ(0, gaccel_param_set("max_bos", FEW_BOS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_lost_handles, self->page));
}

/*
 * Threads of one unprivileged client race over guessed handles: some
 * create objects (shmem, userptr, imports), others close, export, map and
 * query whatever handle numbers they guess. Whatever wins, every handle is
 * counted exactly once: when the dust settles and the handles are closed,
 * the whole budget is there again, and nothing was reported.
 */
struct racer {
	int fd, fd2;
	char *mem;
	size_t page;
	int kind;
};

static atomic_int race_stop;

static void *race(void *arg)
{
	struct racer *r = arg;
	struct drm_gaccel_bo_info info;
	unsigned int seed = r->kind * 7919;
	uint32_t h, h2;
	int dmabuf;
	void *p;

	while (!atomic_load(&race_stop)) {
		uint32_t guess = 1 + rand_r(&seed) % (FEW_BOS + 8);

		switch (r->kind) {
		case 0:
			gaccel_bo_create(r->fd, r->page, 0, &h);
			break;
		case 1:
			gaccel_userptr(r->fd, r->mem, r->page, rand_r(&seed) & 1 ?
				       DRM_GACCEL_BO_READ_ONLY : 0, &h);
			break;
		case 2:
			gaccel_gem_close(r->fd, guess);
			break;
		case 3:
			dmabuf = gaccel_prime_export(r->fd, guess);
			if (dmabuf >= 0) {
				if (!gaccel_prime_import(r->fd2, dmabuf, &h2))
					gaccel_gem_close(r->fd2, h2);
				if (!gaccel_prime_import(r->fd, dmabuf, &h2) && h2 != guess)
					gaccel_gem_close(r->fd, h2);
				close(dmabuf);
			}
			break;
		case 4:
			gaccel_bo_info(r->fd, guess, &info);
			p = gaccel_bo_mmap(r->fd, guess, PROT_READ);
			if (p != MAP_FAILED)
				munmap(p, info.size);
			break;
		}
	}
	return NULL;
}

static int hog_racing_handles(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;
	struct racer r[6];
	pthread_t t[6];
	uint32_t h;
	int fd, fd2;
	char *mem;

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || fd2 < 0 || mem == MAP_FAILED)
		return 1;
	for (int i = 0; i < 6; i++) {
		r[i] = (struct racer){ .fd = fd, .fd2 = fd2, .mem = mem, .page = page,
				       .kind = i % 5 };
		if (pthread_create(&t[i], NULL, race, &r[i]))
			return 2;
	}
	usleep(1500000);
	atomic_store(&race_stop, 1);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	/* Close whatever is left: then the whole budget is there again. */
	for (uint32_t g = 1; g < 4 * FEW_BOS; g++)
		gaccel_gem_close(fd, g);
	if (gaccel_fdinfo_bytes(fd, "total") != 0)
		return 3;
	for (int i = 0; i < FEW_BOS; i++)
		if (gaccel_bo_create(fd, page, 0, &h))
			return 4;
	if (gaccel_bo_create(fd, page, 0, &h) != -EMFILE)
		return 5;
	if (gaccel_hog_hold(ready, go))
		return 6;
	close(fd);
	close(fd2);
	return 0;
}

TEST_F(limits, racing_handles_are_counted_once)
{
	ASSERT_EQ(0, gaccel_param_set("max_bos", FEW_BOS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_racing_handles, self->page));
}

/* The default limit, without lowering it. */
static int hog_default_bo_handles(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;

	long long max = gaccel_param_get("max_bos");
	uint32_t h;
	int fd;

	fd = gaccel_open_device();
	if (fd < 0 || max <= 0)
		return 1;
	for (long long i = 0; i < max; i++)
		if (gaccel_bo_create(fd, page, 0, &h))
			return 2;
	if (gaccel_bo_create(fd, page, 0, &h) != -EMFILE)
		return 3;
	if (gaccel_hog_hold(ready, go))
		return 4;
	close(fd);
	return 0;
}

TEST_F(limits, default_bo_handles)
{
	EXPECT_EQ(4096, gaccel_param_get("max_bos"));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_default_bo_handles, self->page));
}

/* --- buffer object bytes ---------------------------------------------------- */

static int hog_bo_bytes(int ready, int go, void *arg)
{
	size_t page = *(size_t *)arg;

	uint32_t a, b, extra, other;
	int fd, fd2, dmabuf;
	char *mem;

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	if (fd < 0 || fd2 < 0)
		return 1;
	if (gaccel_bo_create(fd, 8 << 20, 0, &a) || gaccel_bo_create(fd, 8 << 20, 0, &b))
		return 2;
	if (gaccel_bo_create(fd, page, 0, &extra) != -ENOMEM)
		return 3;
	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || gaccel_userptr(fd, mem, page, 0, &extra) != -ENOMEM)
		return 4;
	if (gaccel_bo_create(fd2, page, 0, &other))
		return 5;
	dmabuf = gaccel_prime_export(fd2, other);
	if (dmabuf < 0 || gaccel_prime_import(fd, dmabuf, &extra) != -ENOMEM)
		return 6;
	close(dmabuf);
	/* One object larger than the whole budget never fits. */
	if (gaccel_bo_create(fd2, 17 << 20, 0, &extra) != -ENOMEM)
		return 7;
	if (gaccel_gem_close(fd, a) || gaccel_bo_create(fd, 8 << 20, 0, &a))
		return 8;
	if (gaccel_hog_hold(ready, go))
		return 9;
	close(fd);
	fd = gaccel_open_device();
	if (fd < 0 || gaccel_bo_create(fd, 16 << 20, 0, &a))
		return 10;
	close(fd);
	close(fd2);
	return 0;
}

TEST_F(limits, bo_bytes)
{
	ASSERT_EQ(0, gaccel_param_set("max_bo_mib", 16));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_bo_bytes, self->page));
}

/* --- graphs -------------------------------------------------------------------- */

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

#define FEW_GRAPHS 8

static int hog_graphs(int ready, int go, void *arg __attribute__((unused)))
{
	uint32_t g[FEW_GRAPHS], extra;
	int fd, fd2;

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	if (fd < 0 || fd2 < 0)
		return 1;
	for (int i = 0; i < FEW_GRAPHS; i++)
		if (scale_graph(fd, 1, &g[i]))
			return 2;
	if (scale_graph(fd, 1, &extra) != -EMFILE)
		return 3;
	if (scale_graph(fd2, 1, &extra))
		return 4;
	if (gaccel_graph_destroy(fd, g[2]) || scale_graph(fd, 1, &g[2]))
		return 5;
	if (scale_graph(fd, 1, &extra) != -EMFILE)
		return 6;
	if (gaccel_hog_hold(ready, go))
		return 7;
	close(fd);
	fd = gaccel_open_device();
	if (fd < 0)
		return 8;
	for (int i = 0; i < FEW_GRAPHS; i++)
		if (scale_graph(fd, 1, &g[i]))
			return 9;
	close(fd);
	close(fd2);
	return 0;
}

TEST_F(limits, graphs)
{
	ASSERT_EQ(0, gaccel_param_set("max_graphs", FEW_GRAPHS));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_graphs, self->page));
}

/* 4 MiB of graphs: nodes of 96 bytes. */
#define GRAPH_MIB 4
#define BIG_GRAPH_NODES 30000

static int hog_graph_bytes(int ready, int go, void *arg __attribute__((unused)))
{
	struct drm_gaccel_node *junk;
	uint32_t a, b, n = (GRAPH_MIB << 20) / sizeof(struct drm_gaccel_node) + 1;
	int fd, ret;

	fd = gaccel_open_device();
	if (fd < 0)
		return 1;
	if (scale_graph(fd, BIG_GRAPH_NODES, &a))
		return 2;
	if (scale_graph(fd, BIG_GRAPH_NODES, &b) != -ENOMEM)
		return 3;
	/* Charged before it is copied or validated: junk past the limit. */
	junk = calloc(n, sizeof(*junk));
	if (!junk)
		return 4;
	ret = gaccel_graph_create(fd, (struct drm_gaccel_slot[]){ { .size = 4 } }, 1,
				  (struct drm_gaccel_tensor[]){ { 0 } }, 1, junk, n, &b);
	free(junk);
	if (ret != -ENOMEM)
		return 5;
	if (gaccel_graph_destroy(fd, a) || scale_graph(fd, BIG_GRAPH_NODES, &b))
		return 6;
	if (gaccel_hog_hold(ready, go))
		return 7;
	close(fd);
	fd = gaccel_open_device();
	if (fd < 0 || scale_graph(fd, BIG_GRAPH_NODES, &a))
		return 8;
	close(fd);
	return 0;
}

TEST_F(limits, graph_bytes)
{
	ASSERT_GE((GRAPH_MIB << 20) / sizeof(struct drm_gaccel_node), BIG_GRAPH_NODES);
	ASSERT_LT((GRAPH_MIB << 20) / sizeof(struct drm_gaccel_node), 2 * BIG_GRAPH_NODES);
	ASSERT_EQ(0, gaccel_param_set("max_graph_mib", GRAPH_MIB));
	EXPECT_EQ(0, with_a_hog(_metadata, hog_graph_bytes, self->page));
}

/* vgem's fence uAPI (include/uapi/drm/vgem_drm.h), not shipped by libdrm-dev. */
struct vgem_fence_attach {
	uint32_t handle;
	uint32_t flags;
	uint32_t out_fence;
	uint32_t pad;
};

struct vgem_fence_signal {
	uint32_t fence;
	uint32_t flags;
};

#define VGEM_FENCE_WRITE 0x1
#define VGEM_IOCTL_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

static int open_vgem(void)
{
	char name[32] = "", path[32];
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };

	for (int i = 0; i < 4; i++) {
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!gaccel_ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/*
 * A destroyed graph that a job still holds keeps its place in the limits
 * until the job lets go of it: destroy-and-recreate cannot pile up graphs
 * behind jobs that wait.
 */
TEST_F(limits, graphs_held_by_jobs_still_count)
{
	struct drm_mode_create_dumb dumb = { .height = 1, .width = 16, .bpp = 32 };
	struct vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
	struct vgem_fence_signal sig = { 0 };
	struct drm_gaccel_binding b[2] = { { .slot = 0 }, { .slot = 1 } };
	uint32_t g, extra, q;
	int fd, vgem, dmabuf;

	vgem = open_vgem();
	if (vgem < 0)
		SKIP(return, "no vgem device");
	ASSERT_EQ(0, gaccel_param_set("max_graphs", 1));
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	dmabuf = gaccel_prime_export(vgem, dumb.handle);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd, dmabuf, &b[0].handle));
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_create(fd, 64, 0, &b[1].handle));
	attach.handle = dumb.handle;
	ASSERT_EQ(0, gaccel_ioctl(vgem, VGEM_IOCTL_FENCE_ATTACH, &attach));

	ASSERT_EQ(0, scale_graph(fd, 1, &g));
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	/* The job waits for vgem's write, holding the graph. */
	ASSERT_EQ(0, gaccel_submit1(fd, q, g, b, 2, NULL, 0));
	ASSERT_EQ(0, gaccel_graph_destroy(fd, g));
	EXPECT_EQ(-EMFILE, scale_graph(fd, 1, &extra));

	sig.fence = attach.out_fence;
	ASSERT_EQ(0, gaccel_ioctl(vgem, VGEM_IOCTL_FENCE_SIGNAL, &sig));
	ASSERT_EQ(0, gaccel_bo_wait(fd, b[1].handle, 5000000000ll));
	/* The job is freed after its fence signals: give it a moment. */
	for (int i = 0; i < 100 && scale_graph(fd, 1, &extra) == -EMFILE; i++)
		usleep(10000);
	EXPECT_EQ(0, gaccel_graph_destroy(fd, extra));
	close(fd);
	close(vgem);
}

/* QUERY_LIMITS reports what is in force. */
TEST_F(limits, query_reports_the_parameters)
{
	struct drm_gaccel_limits l = { 0 };
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_LIMITS, .size = sizeof(l), .pointer = (uintptr_t)&l,
	};
	int fd;

	ASSERT_EQ(0, gaccel_param_set("max_bos", 77));
	ASSERT_EQ(0, gaccel_param_set("max_graph_mib", 3));
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q));
	EXPECT_EQ(77, l.max_bos);
	EXPECT_EQ(3ull << 20, l.max_graph_bytes);
	close(fd);
}

GACCEL_TEST_HARNESS_MAIN
