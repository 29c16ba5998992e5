// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The edu engine (engines/edu/gaccel_edu.ko), in the VM's edu configuration
 * (tests/vm/edu-vm.sh: QEMU's edu PCI device behind the emulated Intel
 * IOMMU): jobs copy by DMA and their results are right, across page
 * boundaries, from shmem objects and userptr imports; what DMA cannot do
 * (conversions, strides, partial overlap, other ops) is refused at graph
 * creation, hostile bindings at submit, as an unprivileged uid; a job that
 * overruns the job timeout is cancelled, the engine reset, and the next job
 * runs right; unbinding the device in the middle of a job fails the job and
 * the file's ioctls, and binding it again gives a working node.
 *
 * Without an edu engine every test skips.
 */
#include <dirent.h>
#include <glob.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"
#include "gaccel_job_test.h"

#define TIMEOUT_PARAM "/sys/module/gaccel/parameters/job_timeout_ms"
#define EDU_DRIVER "/sys/bus/pci/drivers/gaccel_edu"
#define PAGE 4096

/* Open the accel node whose engine is gaccel-edu, or -errno. */
static int open_edu(void)
{
	struct drm_gaccel_device_info info;
	struct drm_gaccel_query q;
	char path[300];
	struct dirent *de;
	DIR *dir = opendir("/dev/accel");
	int fd = -ENODEV;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "accel", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/accel/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			continue;
		}
		memset(&info, 0, sizeof(info));
		q = (struct drm_gaccel_query){
			.type = DRM_GACCEL_QUERY_DEVICE_INFO,
			.size = sizeof(info), .pointer = (uintptr_t)&info,
		};
		if (!gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q) &&
		    !strcmp(info.engine_name, "gaccel-edu")) {
			break;
		}
		close(fd);
		fd = -ENODEV;
	}
	closedir(dir);
	return fd;
}

/* A graph of one CPY of @n elements of @dtype between slots 0 and 1. */
static int cpy_graph(int fd, uint32_t dtype, uint64_t soff, uint64_t doff,
		     uint64_t n, uint32_t *g)
{
	uint64_t es = dtype == DRM_GACCEL_DTYPE_F32 ? 4 : 2;
	struct drm_gaccel_slot slots[2] = {
		{ .size = soff + n * es }, { .size = doff + n * es },
	};
	struct drm_gaccel_tensor t[2] = {
		gaccel_tensor(0, dtype, soff, n, 1, 1, 1),
		gaccel_tensor(1, dtype, doff, n, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0,
						   GACCEL_NONE, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 2, t, 2, &node, 1, g);
}

/* Submit graph @g on a new queue with @src and @dst bound, wait; errno. */
static int run_cpy(int fd, uint32_t g, uint32_t src, uint32_t dst,
		   struct drm_gaccel_queue_get_state *st)
{
	struct drm_gaccel_binding b[2] = {
		{ .slot = 0, .handle = src }, { .slot = 1, .handle = dst },
	};
	uint32_t q;
	int ret;

	ret = gaccel_queue_create(fd, &q);
	if (ret)
		return ret;
	ret = gaccel_submit1(fd, q, g, b, 2, NULL, 0);
	if (!ret)
		ret = gaccel_bo_wait(fd, dst, 60000000000ll);
	if (!ret)
		ret = gaccel_queue_state(fd, q, st);
	gaccel_queue_destroy(fd, q);
	return ret;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 8));
}

FIXTURE(edu) {
	int fd;
	uint32_t src, dst;
	uint8_t *s, *d;
};

#define SRC_BYTES (4 * PAGE)
#define DST_BYTES (4 * PAGE)

FIXTURE_SETUP(edu)
{
	self->fd = open_edu();
	if (self->fd < 0)
		SKIP(return, "no gaccel-edu engine (the VM's edu configuration has one)");
	ASSERT_EQ(0, gaccel_bo_create(self->fd, SRC_BYTES, 0, &self->src));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, DST_BYTES, 0, &self->dst));
	self->s = gaccel_bo_mmap(self->fd, self->src, PROT_READ | PROT_WRITE);
	self->d = gaccel_bo_mmap(self->fd, self->dst, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, self->s);
	ASSERT_NE(MAP_FAILED, self->d);
	fill(self->s, SRC_BYTES, 1);
	memset(self->d, 0xa5, DST_BYTES);
}

FIXTURE_TEARDOWN(edu)
{
	if (self->fd < 0)
		return;
	munmap(self->s, SRC_BYTES);
	munmap(self->d, DST_BYTES);
	close(self->fd);
}

/* The engine says what it is and that it runs CPY alone. */
TEST_F(edu, query)
{
	struct drm_gaccel_device_info info = { 0 };
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_DEVICE_INFO,
		.size = sizeof(info), .pointer = (uintptr_t)&info,
	};
	struct {
		struct drm_gaccel_query_ops hdr;
		struct drm_gaccel_op_info op[4];
	} ops = { 0 };

	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUERY, &q));
	EXPECT_EQ(DRM_GACCEL_ENGINE_HARDWARE, info.engine_kind);
	EXPECT_EQ(1, info.num_workers);
	q = (struct drm_gaccel_query){
		.type = DRM_GACCEL_QUERY_OPS, .size = sizeof(ops),
		.pointer = (uintptr_t)&ops,
	};
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUERY, &q));
	ASSERT_EQ(1, ops.hdr.count);
	EXPECT_EQ(DRM_GACCEL_OP_CPY, ops.op[0].op);
}

/*
 * 10000 F32 bytes from byte 20 of the source to byte 4000 of the
 * destination: chunks split at page boundaries on both sides, every byte
 * right, nothing outside the range touched.
 */
TEST_F(edu, copy_across_pages)
{
	struct drm_gaccel_queue_get_state st;
	const uint64_t soff = 20, doff = 4000, n = 2500;
	uint32_t g;

	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, soff, doff, n, &g));
	ASSERT_EQ(0, run_cpy(self->fd, g, self->src, self->dst, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, st.failed);
	EXPECT_EQ(0, memcmp(self->d + doff, self->s + soff, n * 4));
	for (uint64_t i = 0; i < DST_BYTES; i++) {
		if (i >= doff && i < doff + n * 4)
			continue;
		ASSERT_EQ(0xa5, self->d[i]) TH_LOG("byte %llu touched",
						    (unsigned long long)i);
	}
	gaccel_graph_destroy(self->fd, g);
}

/* Two nodes in a row (F16): the second copies what the first wrote. */
TEST_F(edu, two_nodes)
{
	struct drm_gaccel_slot slots[2] = { { .size = SRC_BYTES }, { .size = DST_BYTES } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F16, 0, 3000, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F16, 0, 3000, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F16, 8192, 3000, 1, 1, 1),
	};
	struct drm_gaccel_node n[2] = {
		gaccel_node(DRM_GACCEL_OP_CPY, 1, 0, GACCEL_NONE, GACCEL_NONE),
		gaccel_node(DRM_GACCEL_OP_CPY, 2, 1, GACCEL_NONE, GACCEL_NONE),
	};
	struct drm_gaccel_queue_get_state st;
	uint32_t g;

	ASSERT_EQ(0, gaccel_graph_create(self->fd, slots, 2, t, 3, n, 2, &g));
	ASSERT_EQ(0, run_cpy(self->fd, g, self->src, self->dst, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, memcmp(self->d, self->s, 6000));
	EXPECT_EQ(0, memcmp(self->d + 8192, self->s, 6000));
	gaccel_graph_destroy(self->fd, g);
}

/*
 * From a read-only userptr import (mapped DMA_TO_DEVICE through its
 * attachment) into a buffer object; the import may not be written.
 */
TEST_F(edu, userptr_source)
{
	struct drm_gaccel_queue_get_state st;
	struct drm_gaccel_binding b[2];
	uint8_t *mem;
	uint32_t up, g, q;

	mem = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	fill(mem, 2 * PAGE, 5);
	ASSERT_EQ(0, gaccel_userptr(self->fd, mem, 2 * PAGE, DRM_GACCEL_BO_READ_ONLY, &up));
	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, 100, 0, 1500, &g));
	ASSERT_EQ(0, run_cpy(self->fd, g, up, self->dst, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, memcmp(self->d, mem + 100, 6000));

	/* As the destination: refused at submit, nothing runs. */
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	b[0] = (struct drm_gaccel_binding){ .slot = 0, .handle = self->src };
	b[1] = (struct drm_gaccel_binding){ .slot = 1, .handle = up };
	EXPECT_EQ(-EACCES, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	gaccel_queue_destroy(self->fd, q);
	gaccel_graph_destroy(self->fd, g);
	gaccel_gem_close(self->fd, up);
	munmap(mem, 2 * PAGE);
}

/* Jobs on two queues, several each: all complete, each result right. */
TEST_F(edu, queued_jobs)
{
	struct drm_gaccel_binding b[2];
	struct drm_gaccel_queue_get_state st;
	uint32_t g[4], q[2];
	int i;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q[0]));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q[1]));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, i * 1024,
				       i * 2048, 256, &g[i]));
		b[0] = (struct drm_gaccel_binding){ .slot = 0, .handle = self->src };
		b[1] = (struct drm_gaccel_binding){ .slot = 1, .handle = self->dst };
		ASSERT_EQ(0, gaccel_submit1(self->fd, q[i % 2], g[i], b, 2, NULL, 0));
	}
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->dst, 60000000000ll));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, gaccel_queue_state(self->fd, q[i], &st));
		EXPECT_EQ(2, st.completed);
		EXPECT_EQ(0, st.failed);
		gaccel_queue_destroy(self->fd, q[i]);
	}
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0, memcmp(self->d + i * 2048, self->s + i * 1024, 1024));
		gaccel_graph_destroy(self->fd, g[i]);
	}
}

/*
 * As uid 65534: graphs DMA cannot run are refused, and so are bindings
 * outside their objects; a legitimate job still runs right afterwards.
 */
TEST_F(edu, hostile_unprivileged)
{
	struct drm_gaccel_slot slots[2] = { { .size = PAGE }, { .size = PAGE } };
	struct drm_gaccel_tensor t[2];
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0,
						   GACCEL_NONE, GACCEL_NONE);
	struct drm_gaccel_queue_get_state st;
	struct drm_gaccel_binding b[2];
	uint32_t g, q, small;

	ASSERT_EQ(0, gaccel_drop_privileges());

	/* A conversion. */
	t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 512, 1, 1, 1);
	t[1] = gaccel_tensor(1, DRM_GACCEL_DTYPE_F16, 0, 512, 1, 1, 1);
	EXPECT_EQ(-EINVAL, gaccel_graph_create(self->fd, slots, 2, t, 2, &node, 1, &g));
	/* A strided source (every other row of a 2 x 128 view). */
	t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 128, 2, 1, 1);
	t[0].nb[1] = 1024;
	t[1] = gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, 128, 2, 1, 1);
	EXPECT_EQ(-EINVAL, gaccel_graph_create(self->fd, slots, 2, t, 2, &node, 1, &g));
	/* Source and destination overlapping in part, in one slot. */
	t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 256, 1, 1, 1);
	t[1] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 512, 256, 1, 1, 1);
	EXPECT_EQ(-EINVAL, gaccel_graph_create(self->fd, slots, 1, t, 2, &node, 1, &g));
	/* An op the engine does not run. */
	t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 256, 1, 1, 1);
	t[1] = gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, 256, 1, 1, 1);
	node.op = DRM_GACCEL_OP_SCALE;
	EXPECT_EQ(-EINVAL, gaccel_graph_create(self->fd, slots, 2, t, 2, &node, 1, &g));
	node.op = DRM_GACCEL_OP_CPY;

	/* Bindings: past the object's end, an object too small, overflow. */
	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, 0, 0, 1024, &g));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, PAGE / 2, 0, &small));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	b[0] = (struct drm_gaccel_binding){ .slot = 0, .handle = self->src,
					    .offset = SRC_BYTES - PAGE + 4 };
	b[1] = (struct drm_gaccel_binding){ .slot = 1, .handle = self->dst };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	b[0].offset = 0;
	b[1].offset = ~0ull - 8;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	b[1].offset = 0;
	b[1].size = ~0ull;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	b[1].size = 0;
	b[1].handle = small;
	/* A half page rounds up to one page: the slot fits. */
	EXPECT_EQ(0, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	b[1].handle = 0x7fffffff;
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	gaccel_queue_destroy(self->fd, q);
	gaccel_graph_destroy(self->fd, g);

	/* Still working, as the same user. */
	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, 8, 16, 700, &g));
	ASSERT_EQ(0, run_cpy(self->fd, g, self->src, self->dst, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, memcmp(self->d + 16, self->s + 8, 2800));
	gaccel_graph_destroy(self->fd, g);
}

/* A counter of the edu engine's engine_stats debugfs file, or -1. */
static long long engine_stat(const char *key)
{
	char line[128];
	long long v = -1;
	size_t n = strlen(key);
	bool edu = false;
	glob_t g;

	if (gaccel_debugfs_glob("engine_stats", &g))
		return -1;
	for (size_t i = 0; i < g.gl_pathc && !edu; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strcmp(line, "engine gaccel-edu\n"))
				edu = true;
			if (!strncmp(line, key, n) && line[n] == ' ')
				v = atoll(line + n + 1);
		}
		fclose(f);
	}
	globfree(&g);
	return edu ? v : -1;
}

/*
 * A 16 KiB copy takes eight transfers of 100 ms of the device's time:
 * with a 250 ms job timeout it is cancelled (after the transfer in
 * flight), its queue says TIMEDOUT, the engine is reset; with the timeout
 * back, the next job runs and its result is right.
 */
TEST_F(edu, timeout_and_reset)
{
	struct drm_gaccel_queue_get_state st;
	struct drm_gaccel_binding b[2] = {
		{ .slot = 0, .handle = self->src }, { .slot = 1, .handle = self->dst },
	};
	long long old = gaccel_param_get("job_timeout_ms");
	long long resets = engine_stat("resets");
	char buf[32];
	uint32_t g, q;

	ASSERT_GT(old, 0);
	ASSERT_GE(resets, 0);
	/* Not scaled for slow kernels: the device's time is what runs out. */
	snprintf(buf, sizeof(buf), "%d", 250);
	ASSERT_EQ(0, gaccel_write_file(TIMEOUT_PARAM, buf));
	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, 0, 0, 4096, &g));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->dst, 60000000000ll));
	snprintf(buf, sizeof(buf), "%lld", old);
	ASSERT_EQ(0, gaccel_write_file(TIMEOUT_PARAM, buf));
	ASSERT_EQ(0, gaccel_queue_state(self->fd, q, &st));
	EXPECT_TRUE(st.state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT);
	EXPECT_EQ(-ETIMEDOUT, st.last_error);
	EXPECT_EQ(1, st.timeouts);
	/* The timeout handler resets the engine after the fence signalled. */
	for (int i = 0; i < 100 && engine_stat("resets") == resets; i++)
		usleep(50 * 1000);
	EXPECT_EQ(resets + 1, engine_stat("resets"));
	/* Not all of it: the job stopped half way. */
	EXPECT_NE(0, memcmp(self->d, self->s, 4 * 4096));
	gaccel_queue_destroy(self->fd, q);

	memset(self->d, 0, DST_BYTES);
	ASSERT_EQ(0, run_cpy(self->fd, g, self->src, self->dst, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, st.failed);
	EXPECT_EQ(0, memcmp(self->d, self->s, 4 * 4096));
	gaccel_graph_destroy(self->fd, g);
}

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

#define IMPORTERS 10

/*
 * A vgem buffer imported into ten files: each file's job writes its own
 * range of it by DMA (the import mapped through vgem's attachment, for the
 * edu device), and every range is right. The ten imports are one object
 * of the device (one mmap offset), so one DMA mapping: the DMA API does
 * not support the same pages mapped for device writes ten times.
 */
TEST_F(edu, vgem_import_in_many_files)
{
	struct drm_mode_create_dumb dumb = { .height = 1, .width = 2048, .bpp = 32 };
	struct drm_mode_map_dumb map = { 0 };
	struct drm_gaccel_queue_get_state st;
	int vgem, dmabuf, fds[IMPORTERS];
	uint64_t first_offset = 0;
	uint32_t h[IMPORTERS], g;
	uint8_t *v;

	vgem = open_vgem();
	if (vgem < 0)
		SKIP(return, "no vgem device");
	ASSERT_EQ(0, gaccel_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	map.handle = dumb.handle;
	ASSERT_EQ(0, gaccel_ioctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &map));
	v = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, vgem, map.offset);
	ASSERT_NE(MAP_FAILED, v);
	memset(v, 0, 2 * PAGE);
	dmabuf = gaccel_prime_export(vgem, dumb.handle);
	ASSERT_GE(dmabuf, 0);

	for (int i = 0; i < IMPORTERS; i++) {
		fds[i] = open_edu();
		ASSERT_GE(fds[i], 0);
		ASSERT_EQ(0, gaccel_prime_import(fds[i], dmabuf, &h[i]));
	}
	/* One object: one mmap offset, whichever file asks. */
	for (int i = 0; i < IMPORTERS; i++) {
		struct drm_gaccel_bo_info info;

		ASSERT_EQ(0, gaccel_bo_info(fds[i], h[i], &info));
		if (!i)
			first_offset = info.mmap_offset;
		EXPECT_NE(0, info.mmap_offset);
		EXPECT_EQ(first_offset, info.mmap_offset) TH_LOG("file %d", i);
	}
	for (int i = 0; i < IMPORTERS; i++) {
		uint32_t src;
		uint8_t *p;

		ASSERT_EQ(0, gaccel_bo_create(fds[i], PAGE, 0, &src));
		p = gaccel_bo_mmap(fds[i], src, PROT_READ | PROT_WRITE);
		ASSERT_NE(MAP_FAILED, p);
		fill(p, PAGE, 20 + i);
		ASSERT_EQ(0, cpy_graph(fds[i], DRM_GACCEL_DTYPE_F32, i * 64,
				       i * 800, 200, &g));
		ASSERT_EQ(0, run_cpy(fds[i], g, src, h[i], &st));
		EXPECT_EQ(1, st.completed);
		EXPECT_EQ(0, memcmp(v + i * 800, p + i * 64, 800)) TH_LOG("file %d", i);
		gaccel_graph_destroy(fds[i], g);
		munmap(p, PAGE);
	}
	for (int i = 0; i < IMPORTERS; i++)
		close(fds[i]);
	close(dmabuf);
	munmap(v, 2 * PAGE);
	close(vgem);
}

/* The PCI address of the device gaccel_edu drives. */
static int edu_pci_addr(char *out, size_t len)
{
	DIR *dir = opendir(EDU_DRIVER);
	struct dirent *de;
	int ret = -ENODEV;

	if (!dir)
		return -errno;
	while ((de = readdir(dir)))
		if (strchr(de->d_name, ':') && strlen(de->d_name) < len) {
			strcpy(out, de->d_name);
			ret = 0;
			break;
		}
	closedir(dir);
	return ret;
}

/*
 * Unbinding the device while a job runs: the job's fence signals an
 * error, the file still open gets -ENODEV, nothing waits for it; binding
 * the device again gives a new node that works.
 */
TEST_F(edu, unbind_rebind)
{
	struct drm_gaccel_binding b[2] = {
		{ .slot = 0, .handle = self->src }, { .slot = 1, .handle = self->dst },
	};
	struct drm_gaccel_queue_get_state st;
	struct gaccel_sf_info info;
	struct drm_gaccel_sync sig = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	uint32_t g, q, h;
	char addr[64];
	int fd2, sf;

	ASSERT_EQ(0, edu_pci_addr(addr, sizeof(addr)));
	ASSERT_EQ(0, cpy_graph(self->fd, DRM_GACCEL_DTYPE_F32, 0, 0, 4096, &g));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &sig.handle));
	ASSERT_EQ(0, gaccel_submit1(self->fd, q, g, b, 2, &sig, 1));
	sf = gaccel_export_sync_file(self->fd, sig.handle);
	ASSERT_GE(sf, 0);
	usleep(150 * 1000);
	ASSERT_EQ(0, gaccel_write_file(EDU_DRIVER "/unbind", addr));
	/* Unbinding waited for the job: its fence has signalled, failed. */
	ASSERT_EQ(0, gaccel_sync_file_info(sf, &info));
	EXPECT_LT(info.status, 0);
	close(sf);
	EXPECT_EQ(-ENODEV, gaccel_queue_state(self->fd, q, &st));
	EXPECT_EQ(-ENODEV, gaccel_bo_create(self->fd, PAGE, 0, &h));
	EXPECT_GT(0, open_edu());

	ASSERT_EQ(0, gaccel_write_file(EDU_DRIVER "/bind", addr));
	fd2 = open_edu();
	ASSERT_GE(fd2, 0);
	{
		uint32_t s2, d2;
		uint8_t *sp, *dp;

		ASSERT_EQ(0, gaccel_bo_create(fd2, PAGE, 0, &s2));
		ASSERT_EQ(0, gaccel_bo_create(fd2, PAGE, 0, &d2));
		sp = gaccel_bo_mmap(fd2, s2, PROT_READ | PROT_WRITE);
		dp = gaccel_bo_mmap(fd2, d2, PROT_READ | PROT_WRITE);
		ASSERT_NE(MAP_FAILED, sp);
		ASSERT_NE(MAP_FAILED, dp);
		fill(sp, PAGE, 9);
		memset(dp, 0, PAGE);
		ASSERT_EQ(0, cpy_graph(fd2, DRM_GACCEL_DTYPE_F32, 0, 0, 1024, &g));
		ASSERT_EQ(0, run_cpy(fd2, g, s2, d2, &st));
		EXPECT_EQ(1, st.completed);
		EXPECT_EQ(0, memcmp(dp, sp, PAGE));
		munmap(sp, PAGE);
		munmap(dp, PAGE);
	}
	close(fd2);
}

GACCEL_TEST_HARNESS_MAIN
