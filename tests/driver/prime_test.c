// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * dma-buf: export of shmem BOs, self import, import into another file,
 * import from udmabuf and /dev/dma_heap/system, bad fds; read-only
 * dma-bufs (read-only userptrs, O_RDONLY heap buffers and exports) stay
 * read-only for every importer, CPU and job alike.
 */
#define _GNU_SOURCE
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

FIXTURE(prime) {
	int fd;
	size_t page;
};

FIXTURE_SETUP(prime)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0) TH_LOG("no gaccel device: %s", strerror(-self->fd));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(prime)
{
	close(self->fd);
}

static void fill(void *p, size_t size, uint32_t seed)
{
	uint32_t *w = p;

	for (size_t i = 0; i < size / 4; i++)
		w[i] = seed + i * 2654435761u;
}

TEST_F(prime, export_mmap_and_self_import)
{
	size_t size = 4 * self->page;
	uint32_t h, h2;
	void *p, *q;
	int dmabuf;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, size, 1);

	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	q = mmap(NULL, size, PROT_READ, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0, memcmp(p, q, size));
	munmap(q, size);

	/* Importing our own dma-buf gives back the same handle. */
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h2));
	EXPECT_EQ(h, h2);
	/* Exporting twice gives the same dma-buf. */
	int again = gaccel_prime_export(self->fd, h);

	ASSERT_GE(again, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, again, &h2));
	EXPECT_EQ(h, h2);
	close(again);
	close(dmabuf);
	munmap(p, size);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(prime, import_into_another_file)
{
	size_t size = 2 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h, h2;
	void *p, *q;
	int dmabuf, fd2;

	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd2, dmabuf, &h2));
	close(dmabuf);
	/* The exporter's handle goes; the importer keeps the object. */
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, size, 7);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));

	ASSERT_EQ(0, gaccel_bo_info(fd2, h2, &info));
	EXPECT_EQ(size, info.size);
	q = gaccel_bo_mmap(fd2, h2, PROT_READ);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0, memcmp(p, q, size));
	munmap(p, size);
	munmap(q, size);
	close(fd2);
}

TEST_F(prime, bad_fds)
{
	uint32_t h;
	int memfd;

	EXPECT_EQ(-EBADF, gaccel_prime_import(self->fd, -1, &h));
	EXPECT_EQ(-EBADF, gaccel_prime_import(self->fd, 1000, &h));
	memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-EINVAL, gaccel_prime_import(self->fd, memfd, &h));
	close(memfd);
	EXPECT_EQ(-ENOENT, gaccel_prime_export(self->fd, 4242));
}

static int udmabuf_create(int memfd, size_t size)
{
	struct udmabuf_create c = { .memfd = memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
				    .offset = 0, .size = size };
	int dev, buf;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	buf = ioctl(dev, UDMABUF_CREATE, &c);
	if (buf < 0)
		buf = -errno;
	close(dev);
	return buf;
}

TEST_F(prime, import_udmabuf)
{
	size_t size = 8 * self->page;
	struct drm_gaccel_bo_info info;
	int memfd, dmabuf;
	uint32_t h;
	void *src, *p;

	memfd = memfd_create("udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ(0, ftruncate(memfd, size));
	ASSERT_EQ(0, fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	src = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, src);
	fill(src, size, 99);

	dmabuf = udmabuf_create(memfd, size);
	if (dmabuf == -ENOENT)
		SKIP(return, "no /dev/udmabuf");
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(size, info.size);
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED, info.flags);
	/* Imported objects map through their exporter. */
	p = gaccel_bo_mmap(self->fd, h, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(src, p, size));
	munmap(p, size);
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(src, size);
	close(memfd);
}

static int heap_alloc_mode(size_t size, int mode)
{
	struct dma_heap_allocation_data a = { .len = size, .fd_flags = mode | O_CLOEXEC };
	int heap, ret;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return -errno;
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a);
	ret = ret < 0 ? -errno : (int)a.fd;
	close(heap);
	return ret;
}

static int heap_alloc(size_t size)
{
	return heap_alloc_mode(size, O_RDWR);
}

TEST_F(prime, import_dma_heap)
{
	size_t size = 16 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h, h2;
	void *src, *p;
	int dmabuf;

	dmabuf = heap_alloc(size);
	if (dmabuf == -ENOENT)
		SKIP(return, "no /dev/dma_heap/system");
	ASSERT_GE(dmabuf, 0);
	src = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, src);
	fill(src, size, 3);

	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	/* Importing the same dma-buf again gives the same handle. */
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h2));
	EXPECT_EQ(h, h2);
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(size, info.size);
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED, info.flags);
	p = gaccel_bo_mmap(self->fd, h, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(src, p, size));
	munmap(p, size);
	/* The exporter's fd may go first. */
	munmap(src, size);
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	EXPECT_EQ(-EINVAL, gaccel_gem_close(self->fd, h));
}

TEST_F(prime, many_exports)
{
	uint32_t h[64];
	int fds[64];

	for (int i = 0; i < 64; i++) {
		ASSERT_EQ(0, gaccel_bo_create(self->fd, self->page, 0, &h[i]));
		fds[i] = gaccel_prime_export(self->fd, h[i]);
		ASSERT_GE(fds[i], 0);
	}
	for (int i = 0; i < 64; i++) {
		EXPECT_EQ(0, gaccel_gem_close(self->fd, h[i]));
		ASSERT_EQ(0, gaccel_prime_import(self->fd, fds[i], &h[i]));
		close(fds[i]);
	}
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(0, gaccel_gem_close(self->fd, h[i]));
}

/* vgem's uAPI (include/uapi/drm/vgem_drm.h), not shipped by libdrm-dev. */
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

TEST_F(prime, vgem_implicit_sync)
{
	enum { N = 1024 };
	struct drm_mode_create_dumb dumb = { .height = 1, .width = N, .bpp = 32 };
	struct drm_mode_map_dumb map = { 0 };
	struct vgem_fence_attach attach = { 0 };
	struct vgem_fence_signal sig = { 0 };
	struct drm_gaccel_slot slots[2] = { { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[2] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_SCALE, 1, 0, GACCEL_NONE,
					       GACCEL_NONE);
	struct drm_gaccel_binding b[2] = { { .slot = 0 }, { .slot = 1 } };
	uint32_t g, q;
	float *src, *dst;
	int vgem, dmabuf;

	vgem = open_vgem();
	if (vgem < 0)
		SKIP(return, "no vgem device");
	ASSERT_EQ(0, gaccel_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	map.handle = dumb.handle;
	ASSERT_EQ(0, gaccel_ioctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &map));
	src = mmap(NULL, N * 4, PROT_READ | PROT_WRITE, MAP_SHARED, vgem, map.offset);
	ASSERT_NE(MAP_FAILED, src);
	for (int i = 0; i < N; i++)
		src[i] = i;

	/* vgem's object, imported: the job reads it. */
	dmabuf = gaccel_prime_export(vgem, dumb.handle);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &b[0].handle));
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &b[1].handle));
	dst = gaccel_bo_mmap(self->fd, b[1].handle, PROT_READ);
	ASSERT_NE(MAP_FAILED, dst);

	/* A pending write by "another device": the job must wait for it. */
	attach.handle = dumb.handle;
	attach.flags = VGEM_FENCE_WRITE;
	ASSERT_EQ(0, gaccel_ioctl(vgem, VGEM_IOCTL_FENCE_ATTACH, &attach));

	n.params[0] = gaccel_fbits(2.0f);
	ASSERT_EQ(0, gaccel_graph_create(self->fd, slots, 2, t, 2, &n, 1, &g));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	EXPECT_EQ(-ETIME, gaccel_bo_wait(self->fd, b[1].handle, 200000000ll));
	EXPECT_EQ(0, dst[5]);

	/* The "other device" finishes its write, then the job runs. */
	for (int i = 0; i < N; i++)
		src[i] = 3 * i;
	sig.fence = attach.out_fence;
	ASSERT_EQ(0, gaccel_ioctl(vgem, VGEM_IOCTL_FENCE_SIGNAL, &sig));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, b[1].handle, 5000000000ll));
	for (int i = 0; i < N; i++)
		ASSERT_EQ(6.0f * i, dst[i]);

	/* And our job's fence is in vgem's object: a vgem reader sees it. */
	attach.flags = 0;
	ASSERT_EQ(0, gaccel_submit1(self->fd, q, g, b, 2, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, b[0].handle, 5000000000ll));
	munmap(src, N * 4);
	munmap(dst, N * 4);
	close(vgem);
}

/* --- read-only stays read-only -------------------------------------------- */

/* Root's file, mode 0644: others may read it, nobody else may write it. */
static int root_file(const char *path, size_t size, uint32_t seed)
{
	uint32_t *buf = malloc(size);
	int fd;

	if (!buf)
		return -ENOMEM;
	fill(buf, size, seed);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size || fchmod(fd, 0644)) {
		free(buf);
		return -EIO;
	}
	free(buf);
	return fd;
}

static int dmabuf_sync(int dmabuf, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return gaccel_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * A read-only userptr of a file's page cache, exported: PRIME hands out the
 * userptr's own dma-buf (re-export does not reach the driver's export
 * hook), so that dma-buf itself must refuse every way to write: a writable
 * file, mmap, CPU write access, a device mapping it bidirectionally (vgem
 * maps every import so).
 */
TEST_F(prime, readonly_userptr_export_refuses_writers)
{
	size_t size = 4 * self->page;
	uint32_t h, vh;
	int file, dmabuf, vgem;
	void *p, *m;

	file = root_file("/tmp/ro-export.bin", size, 5);
	ASSERT_GE(file, 0);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, file, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, DRM_GACCEL_BO_READ_ONLY, &h));
	/* Asks for DRM_RDWR: gets the read-only dma-buf all the same. */
	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	EXPECT_EQ(O_RDONLY, fcntl(dmabuf, F_GETFL) & O_ACCMODE);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	EXPECT_EQ(MAP_FAILED, m);

	EXPECT_EQ(-EACCES, dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	EXPECT_EQ(-EACCES, dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	EXPECT_EQ(0, dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(0, dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));

	vgem = open_vgem();
	if (vgem >= 0) {
		EXPECT_EQ(-EACCES, gaccel_prime_import(vgem, dmabuf, &vh));
		close(vgem);
	} else {
		TH_LOG("no vgem device: device import not tried");
	}

	/* A writable userptr's dma-buf stays usable by other devices. */
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
	close(file);
	unlink("/tmp/ro-export.bin");
}

TEST_F(prime, writable_userptr_export_is_writable)
{
	size_t size = 4 * self->page;
	uint32_t h, vh;
	int dmabuf, vgem;
	void *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	EXPECT_EQ(O_RDWR, fcntl(dmabuf, F_GETFL) & O_ACCMODE);
	EXPECT_EQ(0, dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	EXPECT_EQ(0, dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));
	vgem = open_vgem();
	if (vgem >= 0) {
		EXPECT_EQ(0, gaccel_prime_import(vgem, dmabuf, &vh));
		close(vgem);
	}
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
}

/*
 * The same userptr in the hands of an unprivileged second gaccel file:
 * jobs may read it, none may write it, from either file.
 */
TEST_F(prime, readonly_userptr_imported_by_another_file)
{
	size_t size = 4 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h, h2, dst, dst2;
	int file, dmabuf, fd, fd2;
	uint32_t *p, *d;

	file = root_file("/tmp/ro-import.bin", size, 11);
	ASSERT_GE(file, 0);
	close(file);
	ASSERT_EQ(0, gaccel_become_nobody());
	file = open("/tmp/ro-import.bin", O_RDWR);
	EXPECT_EQ(-1, file);
	file = open("/tmp/ro-import.bin", O_RDONLY);
	ASSERT_GE(file, 0);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, file, 0);
	ASSERT_NE(MAP_FAILED, p);

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gaccel_userptr(fd, p, size, DRM_GACCEL_BO_READ_ONLY, &h));
	dmabuf = gaccel_prime_export(fd, h);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd2, dmabuf, &h2));
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_info(fd2, h2, &info));
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED | DRM_GACCEL_BO_USERPTR | DRM_GACCEL_BO_READ_ONLY,
		  info.flags);
	EXPECT_EQ(0, info.mmap_offset);

	ASSERT_EQ(0, gaccel_bo_create(fd, size, 0, &dst));
	ASSERT_EQ(0, gaccel_bo_create(fd2, size, 0, &dst2));
	d = gaccel_bo_mmap(fd2, dst2, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, d);
	fill(d, size, 99);
	EXPECT_EQ(-EACCES, gaccel_gpu_copy(fd2, dst2, 0, h2, 0, size / 4));
	EXPECT_EQ(-EACCES, gaccel_gpu_copy(fd, dst, 0, h, 0, size / 4));
	EXPECT_EQ(0, gaccel_gpu_copy(fd2, h2, 0, dst2, 0, size / 4));
	EXPECT_EQ(0, memcmp(p, d, size));

	close(fd);
	close(fd2);
	munmap(d, size);
	munmap(p, size);
	close(file);
}

/*
 * A heap buffer allocated O_RDONLY, imported by an unprivileged client:
 * no job may write it, no CPU mapping of it through the accel node may be
 * writable, now or later.
 */
TEST_F(prime, readonly_heap_buffer)
{
	size_t size = 4 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h, dst;
	int dmabuf, fd;
	uint32_t *p, *d;

	dmabuf = heap_alloc_mode(size, O_RDONLY);
	if (dmabuf == -ENOENT)
		SKIP(return, "no /dev/dma_heap/system");
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_become_nobody());
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd, dmabuf, &h));
	ASSERT_EQ(0, gaccel_bo_info(fd, h, &info));
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED | DRM_GACCEL_BO_READ_ONLY, info.flags);

	ASSERT_EQ(0, gaccel_bo_create(fd, size, 0, &dst));
	d = gaccel_bo_mmap(fd, dst, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, d);
	fill(d, size, 1);
	EXPECT_EQ(-EACCES, gaccel_gpu_copy(fd, dst, 0, h, 0, size / 4));
	EXPECT_EQ(0, gaccel_gpu_copy(fd, h, 0, dst, 0, size / 4));
	EXPECT_EQ(0, d[0]);
	EXPECT_EQ(0, d[size / 4 - 1]);

	p = gaccel_bo_mmap(fd, h, PROT_READ | PROT_WRITE);
	EXPECT_EQ(MAP_FAILED, p);
	p = gaccel_bo_mmap(fd, h, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, p[0]);
	EXPECT_EQ(-1, mprotect(p, size, PROT_READ | PROT_WRITE));
	munmap(p, size);
	munmap(d, size);
	close(dmabuf);
	close(fd);
}

/*
 * A BO exported without DRM_RDWR is a read-only dma-buf: another file
 * importing it gets a read-only object of its own, other devices may not
 * map it for writing, CPU write access is refused, while the exporter's
 * handle stays writable and comes back from its own import.
 */
TEST_F(prime, readonly_export_of_a_bo)
{
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC };
	size_t size = 2 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h, h2, hs, dst, src, vh;
	uint32_t *p, *d, *q;
	int fd2, vgem;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &src));
	q = gaccel_bo_mmap(self->fd, src, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, size, 42);
	ph.handle = h;
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	EXPECT_EQ(O_RDONLY, fcntl(ph.fd, F_GETFL) & O_ACCMODE);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, ph.fd, &hs));
	EXPECT_EQ(h, hs);
	EXPECT_EQ(-EACCES, dmabuf_sync(ph.fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	EXPECT_EQ(0, dmabuf_sync(ph.fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(0, dmabuf_sync(ph.fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	vgem = open_vgem();
	if (vgem >= 0) {
		EXPECT_EQ(-EACCES, gaccel_prime_import(vgem, ph.fd, &vh));
		close(vgem);
	}

	ASSERT_EQ(0, gaccel_become_nobody());
	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd2, ph.fd, &h2));
	ASSERT_EQ(0, gaccel_bo_info(fd2, h2, &info));
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED | DRM_GACCEL_BO_READ_ONLY, info.flags);
	ASSERT_EQ(0, gaccel_bo_create(fd2, size, 0, &dst));
	d = gaccel_bo_mmap(fd2, dst, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, d);
	fill(d, size, 7);
	EXPECT_EQ(-EACCES, gaccel_gpu_copy(fd2, dst, 0, h2, 0, size / 4));
	EXPECT_EQ(0, gaccel_gpu_copy(fd2, h2, 0, dst, 0, size / 4));
	EXPECT_EQ(0, memcmp(p, d, size));
	/* Its CPU mappings are read-only too. */
	EXPECT_EQ(MAP_FAILED, gaccel_bo_mmap(fd2, h2, PROT_READ | PROT_WRITE));

	/* The exporter may still write its own object. */
	fill(q, size, 8);
	EXPECT_EQ(0, gaccel_gpu_copy(self->fd, src, 0, h, 0, size / 4));
	EXPECT_EQ(0, memcmp(p, q, size));
	munmap(q, size);
	close(fd2);
	munmap(d, size);
	munmap(p, size);
	close(ph.fd);
}

/*
 * A private writable mapping of an imported object would be copy-on-write
 * of another driver's memory: refused like those of our own objects.
 */
TEST_F(prime, private_mapping_of_an_import_is_refused)
{
	struct drm_gaccel_bo_info info;
	uint32_t h;
	int dmabuf;
	void *p;

	dmabuf = heap_alloc(self->page);
	if (dmabuf == -ENOENT)
		SKIP(return, "no /dev/dma_heap/system");
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	ASSERT_NE(0, info.mmap_offset);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 info.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, self->page);
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

/* --- exporters the VM kernel lacks: tests/kmod/gaccel_test_exporter.c ----- */

#define GTE_EXPORT_RDONLY	0x1
#define GTE_EXPORT_IOMEM	0x2
#define GTE_EXPORT_PARTIAL	0x4
#define GTE_IOCTL_EXPORT	_IOW('G', 0x70, unsigned int)
#define GTE_IOCTL_LAST_DIR	_IOR('G', 0x71, unsigned int)

/* A one-page dma-buf of the test exporter, or -errno. */
static int gte_export(unsigned int flags)
{
	int dev, buf;

	if (access("/dev/gaccel_test_exporter", F_OK) &&
	    system("insmod /lib/modules/extra/gaccel_test_exporter.ko 2>/dev/null"))
		return -ENOENT;
	dev = open("/dev/gaccel_test_exporter", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	buf = ioctl(dev, GTE_IOCTL_EXPORT, &flags);
	if (buf < 0)
		buf = -errno;
	close(dev);
	return buf;
}

/*
 * The direction (enum dma_data_direction) of the exporter's last mapping
 * since the previous call, DMA_NONE if none.
 */
static int gte_last_dir(void)
{
	unsigned int dir = ~0u;
	int dev;

	dev = open("/dev/gaccel_test_exporter", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	if (ioctl(dev, GTE_IOCTL_LAST_DIR, &dir))
		dir = ~0u;
	close(dev);
	return (int)dir;
}

enum { DIR_BIDIRECTIONAL = 0, DIR_TO_DEVICE = 1, DIR_NONE = 3 };

/*
 * An exporter whose kernel mapping is I/O memory: the import works, a job
 * binding it is refused with EINVAL, and nothing warns (the shmem helper
 * would: the VM harness fails the run on any WARNING).
 */
TEST_F(prime, iomem_exporter_refused_without_warning)
{
	struct drm_gaccel_bo_info info;
	uint32_t h, dst;
	int dmabuf;

	dmabuf = gte_export(GTE_EXPORT_IOMEM);
	if (dmabuf == -ENOENT)
		SKIP(return, "no test exporter module");
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_become_nobody());
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED, info.flags);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, self->page, 0, &dst));
	EXPECT_EQ(-EINVAL, gaccel_gpu_copy(self->fd, h, 0, dst, 0, 16));
	EXPECT_EQ(-EINVAL, gaccel_gpu_copy(self->fd, dst, 0, h, 0, 16));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

/*
 * A dma-buf of half a page: an object is whole pages, which jobs may all
 * touch, and the rest of the exporter's page is not the importer's.
 */
TEST_F(prime, partial_page_dma_buf_refused)
{
	uint32_t h;
	int dmabuf;

	dmabuf = gte_export(GTE_EXPORT_PARTIAL);
	if (dmabuf == -ENOENT)
		SKIP(return, "no test exporter module");
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_become_nobody());
	EXPECT_EQ(-EINVAL, gaccel_prime_import(self->fd, dmabuf, &h));
	close(dmabuf);
}

/*
 * gaccel never maps what it imports for DMA (the engine goes through the
 * exporter's vmap), neither at import nor when a job uses it; a read-only
 * dma-buf is a read-only object, a writable one is written.
 */
TEST_F(prime, imports_are_not_dma_mapped)
{
	struct drm_gaccel_bo_info info;
	uint32_t h, dst;
	int dmabuf;

	dmabuf = gte_export(GTE_EXPORT_RDONLY);
	if (dmabuf == -ENOENT)
		SKIP(return, "no test exporter module");
	ASSERT_GE(dmabuf, 0);
	gte_last_dir();
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	close(dmabuf);
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(DRM_GACCEL_BO_IMPORTED | DRM_GACCEL_BO_READ_ONLY, info.flags);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, self->page, 0, &dst));
	EXPECT_EQ(0, gaccel_gpu_copy(self->fd, h, 0, dst, 0, 16));
	EXPECT_EQ(-EACCES, gaccel_gpu_copy(self->fd, dst, 0, h, 0, 16));
	EXPECT_EQ(DIR_NONE, gte_last_dir());
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));

	dmabuf = gte_export(0);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h));
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gpu_copy(self->fd, dst, 0, h, 0, 16));
	EXPECT_EQ(DIR_NONE, gte_last_dir());
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

GACCEL_TEST_HARNESS_MAIN
