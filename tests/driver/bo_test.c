// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Buffer objects: BO_CREATE, BO_INFO, mmap through the accel node,
 * GEM_CLOSE, handles of other files, a result that cannot be copied out,
 * fdinfo memory statistics of created, userptr and imported objects.
 */
#include <linux/dma-heap.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

static uint64_t max_bo_size(int fd)
{
	struct drm_gaccel_device_info info = { 0 };
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_DEVICE_INFO,
		.size = sizeof(info),
		.pointer = (uintptr_t)&info,
	};

	if (gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q))
		return 0;
	return info.max_bo_size;
}

FIXTURE(bo) {
	int fd;
	long page;
};

FIXTURE_SETUP(bo)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0) TH_LOG("no gaccel device: %s", strerror(-self->fd));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(bo)
{
	close(self->fd);
}

TEST_F(bo, sizes_are_rounded_to_pages)
{
	const uint64_t sizes[] = { 1, 100, 4095, 4096, 4097, 8192, 65537, 1 << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct drm_gaccel_bo_create c = { .size = sizes[i] };
		struct drm_gaccel_bo_info info;
		uint64_t want = (sizes[i] + self->page - 1) & ~(uint64_t)(self->page - 1);

		ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE, &c));
		EXPECT_NE(0, c.handle);
		EXPECT_EQ(want, c.size);
		ASSERT_EQ(0, gaccel_bo_info(self->fd, c.handle, &info));
		EXPECT_EQ(want, info.size);
		EXPECT_EQ(0, info.flags);
		EXPECT_NE(0, info.mmap_offset);
		EXPECT_EQ(0, info.mmap_offset % self->page);
		EXPECT_EQ(0, gaccel_gem_close(self->fd, c.handle));
	}
}

TEST_F(bo, bad_sizes)
{
	uint64_t max = max_bo_size(self->fd);
	const uint64_t sizes[] = { 0, UINT64_MAX, UINT64_MAX - 4095, 1ull << 63,
				   max + 1, 1ull << 48 };

	ASSERT_GT(max, 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct drm_gaccel_bo_create c = { .size = sizes[i] };

		EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE, &c))
			TH_LOG("size %#llx", (unsigned long long)sizes[i]);
		EXPECT_EQ(0, c.handle);
		EXPECT_EQ(sizes[i], c.size);
	}
}

/* What one file may hold in objects (QUERY_LIMITS), or 0. */
static uint64_t max_bo_bytes(int fd)
{
	struct drm_gaccel_limits l = { 0 };
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_LIMITS, .size = sizeof(l), .pointer = (uintptr_t)&l,
	};

	if (gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q))
		return 0;
	return l.max_bo_bytes;
}

TEST_F(bo, huge_but_allowed_is_lazy)
{
	uint64_t size = 512ull << 20;
	long long total0, res0, res1;
	uint32_t h;
	char *p;

	/* Within the file's limit (half of the VM's RAM by default). */
	if (size > max_bo_bytes(self->fd))
		size = max_bo_bytes(self->fd) & ~((1ull << 20) - 1);
	ASSERT_GT(size, 0);

	/*
	 * Creating it allocates no page: nothing becomes resident. (Mapping
	 * it would: the shmem helper takes every page at mmap, which for
	 * 512 MiB takes most of a minute on the debug kernel.)
	 */
	total0 = gaccel_fdinfo_bytes(self->fd, "total");
	res0 = gaccel_fdinfo_bytes(self->fd, "resident");
	ASSERT_GE(total0, 0);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	EXPECT_EQ(total0 + (long long)size, gaccel_fdinfo_bytes(self->fd, "total"));
	res1 = gaccel_fdinfo_bytes(self->fd, "resident");
	EXPECT_EQ(res0 < 0 ? 0 : res0, res1 < 0 ? 0 : res1);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));

	/* A smaller one is usable end to end through its mapping. */
	size = 16ull << 20;
	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 1;
	p[size - 1] = 2;
	EXPECT_EQ(1, p[0]);
	EXPECT_EQ(2, p[size - 1]);
	munmap(p, size);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(bo, unknown_flags)
{
	for (int bit = 1; bit < 32; bit++) {
		struct drm_gaccel_bo_create c = { .size = 4096, .flags = 1u << bit };

		EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE, &c))
			TH_LOG("flag bit %d", bit);
	}
}

TEST_F(bo, info_pad_must_be_zero)
{
	struct drm_gaccel_bo_info info = { 0 };
	uint32_t h;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &h));
	info.handle = h;
	info.pad = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_INFO, &info));
	info.pad = 0x80000000u;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_INFO, &info));
	info.pad = 0;
	EXPECT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_INFO, &info));
}

TEST_F(bo, info_bad_handles)
{
	struct drm_gaccel_bo_info info;

	EXPECT_EQ(-ENOENT, gaccel_bo_info(self->fd, 0, &info));
	EXPECT_EQ(-ENOENT, gaccel_bo_info(self->fd, 12345, &info));
	EXPECT_EQ(-ENOENT, gaccel_bo_info(self->fd, UINT32_MAX, &info));
}

TEST_F(bo, mmap_roundtrip)
{
	size_t size = 3 * self->page;
	uint32_t *a, *b;
	uint32_t h;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	a = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, a);
	/* New objects read as zero. */
	for (size_t i = 0; i < size / 4; i++)
		ASSERT_EQ(0, a[i]);
	for (size_t i = 0; i < size / 4; i++)
		a[i] = i * 2654435761u;
	b = gaccel_bo_mmap(self->fd, h, PROT_READ);
	ASSERT_NE(MAP_FAILED, b);
	EXPECT_EQ(0, memcmp(a, b, size));
	munmap(a, size);
	munmap(b, size);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

/*
 * Start addresses of the kernel mappings gaccel_vmem_populate() made
 * (root, /proc/vmallocinfo with kptr_restrict 1 so that they are not
 * hashed), up to @max; -1 if the file cannot be read.
 */
static int vmem_areas(unsigned long *start, unsigned long *len, int max)
{
	char line[512], old[8] = "";
	FILE *f, *k;
	int n = 0;

	k = fopen("/proc/sys/kernel/kptr_restrict", "r+");
	if (k) {
		if (!fgets(old, sizeof(old), k))
			old[0] = 0;
		rewind(k);
		fputs("1", k);
		fflush(k);
	}
	f = fopen("/proc/vmallocinfo", "r");
	if (f) {
		while (n < max && fgets(line, sizeof(line), f)) {
			unsigned long a, b;

			if (strstr(line, "gaccel_vmem_populate") &&
			    sscanf(line, "0x%lx-0x%lx %lu", &a, &b, &len[n]) == 3) {
				start[n] = a;
				len[n] = b - a;
				n++;
			}
		}
		fclose(f);
	}
	if (k) {
		rewind(k);
		fputs(old[0] ? old : "0", k);
		fclose(k);
	}
	return f ? n : -1;
}

/*
 * Objects of 2 MiB and more live in memory the kernel maps with 2 MiB
 * entries (gaccel_vmem.c): still zero when new, allocated at first use,
 * the same bytes through the node's mapping, a job, and a dma-buf mapped
 * at an offset.
 */
TEST_F(bo, large_objects_on_huge_kernel_pages)
{
	const size_t mib = 1 << 20, size = 4 * mib + self->page;
	unsigned long start[64], len[64];
	uint32_t h, h2, small;
	uint32_t *a, *d, *c;
	int dmabuf, n, huge = 0;

	long long res0 = gaccel_fdinfo_bytes(self->fd, "resident"), res;

	res0 = res0 < 0 ? 0 : res0;
	ASSERT_EQ(0, gaccel_bo_create(self->fd, size, 0, &h));
	res = gaccel_fdinfo_bytes(self->fd, "resident");
	EXPECT_EQ(res0, res < 0 ? 0 : res) TH_LOG("a new object has no pages yet");
	a = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, a);
	EXPECT_GE(gaccel_fdinfo_bytes(self->fd, "resident"), res0 + (long long)size);
	for (size_t i = 0; i < size / 4; i++)
		ASSERT_EQ(0, a[i]);
	for (size_t i = 0; i < size / 4; i++)
		a[i] = (uint32_t)i * 2654435761u;

	/* a job reads the last page, past the first 4 MiB */
	ASSERT_EQ(0, gaccel_bo_create(self->fd, self->page, 0, &small));
	ASSERT_EQ(0, gaccel_gpu_copy(self->fd, h, 4 * mib, small, 0, self->page / 4));
	c = gaccel_bo_mmap(self->fd, small, PROT_READ);
	ASSERT_NE(MAP_FAILED, c);
	EXPECT_EQ(0, memcmp(c, a + 4 * mib / 4, self->page));
	/* and writes the first */
	ASSERT_EQ(0, gaccel_gpu_copy(self->fd, small, 0, h, 0, self->page / 4));
	EXPECT_EQ(0, memcmp(a, a + 4 * mib / 4, self->page));

	/* a dma-buf of it, mapped from its second MiB on */
	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	d = mmap(NULL, 2 * mib, PROT_READ, MAP_SHARED, dmabuf, mib);
	ASSERT_NE(MAP_FAILED, d);
	EXPECT_EQ(0, memcmp(d, a + mib / 4, 2 * mib));
	munmap(d, 2 * mib);
	/* back in the same file: the object itself */
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h2));
	EXPECT_EQ(h, h2);
	close(dmabuf);

	n = vmem_areas(start, len, 64);
	if (n < 0) {
		TH_LOG("/proc/vmallocinfo unreadable (not root?): mapping not checked");
	} else {
		ASSERT_GT(n, 0) TH_LOG("no mapping of gaccel_vmem_populate in /proc/vmallocinfo");
		for (int i = 0; i < n; i++)
			if (len[i] >= size && start[i] % (2 * mib) == 0)
				huge++;
		/* huge areas are aligned to 2 MiB; 4 KiB fallbacks to a page */
		EXPECT_GT(huge, 0) TH_LOG("no 2 MiB aligned mapping of %zu bytes", size);
	}

	munmap(a, size);
	munmap(c, self->page);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, small));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(bo, mmap_bad_offsets)
{
	struct drm_gaccel_bo_info info;
	uint32_t h;
	void *p;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, 2 * self->page, 0, &h));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));

	/* Offset 0 and offsets nobody handed out. */
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
		 info.mmap_offset + (64 << 20));
	EXPECT_EQ(MAP_FAILED, p);
	/* Past the end of the object. */
	p = mmap(NULL, 3 * self->page, PROT_READ, MAP_SHARED, self->fd, info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 2 * self->page, PROT_READ, MAP_SHARED, self->fd,
		 info.mmap_offset + self->page);
	EXPECT_EQ(MAP_FAILED, p);
	/* Copy-on-write mappings of a device object are refused. */
	p = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	/* A prefix is fine. */
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, info.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, self->page);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(bo, no_mmap)
{
	struct drm_gaccel_bo_info info;
	struct drm_gaccel_bo_create c = { .size = 4096, .flags = DRM_GACCEL_BO_NO_MMAP };
	void *p;
	int dmabuf;

	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE, &c));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, c.handle, &info));
	EXPECT_EQ(DRM_GACCEL_BO_NO_MMAP, info.flags);
	EXPECT_EQ(0, info.mmap_offset);
	EXPECT_EQ(4096, info.size);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	/* Nor through an exported dma-buf. */
	dmabuf = gaccel_prime_export(self->fd, c.handle);
	ASSERT_GE(dmabuf, 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dmabuf, 0);
	EXPECT_EQ(MAP_FAILED, p);
	close(dmabuf);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, c.handle));
}

TEST_F(bo, double_close)
{
	uint32_t h;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &h));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	EXPECT_EQ(-EINVAL, gaccel_gem_close(self->fd, h));
	EXPECT_EQ(-EINVAL, gaccel_gem_close(self->fd, 0));
	EXPECT_EQ(-EINVAL, gaccel_gem_close(self->fd, 999999));
}

TEST_F(bo, use_after_close)
{
	struct drm_gaccel_bo_info info;
	uint32_t h, h2;
	uint32_t *p;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &h));
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	p[10] = 0xdeadbeef;
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	ASSERT_EQ(0, gaccel_gem_close(self->fd, h));
	EXPECT_EQ(-ENOENT, gaccel_bo_info(self->fd, h, &info));

	/* The mapping keeps the object alive. */
	EXPECT_EQ(0xdeadbeef, p[10]);
	p[11] = 1;
	munmap(p, 4096);

	/* A new object never shows the old contents. */
	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &h2));
	p = gaccel_bo_mmap(self->fd, h2, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, p[10]);
	munmap(p, 4096);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h2));
}

TEST_F(bo, handles_of_another_file)
{
	struct drm_gaccel_bo_info info;
	uint32_t h;
	void *p;
	int fd2;

	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &h));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));

	EXPECT_EQ(-ENOENT, gaccel_bo_info(fd2, h, &info));
	EXPECT_EQ(-EINVAL, gaccel_gem_close(fd2, h));
	/* The mmap offset is not usable through another file either. */
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);

	EXPECT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	close(fd2);
	EXPECT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(bo, closing_the_file_frees_handles)
{
	uint32_t h;
	int fd2;

	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ(0, gaccel_bo_create(fd2, 65536, 0, &h));
	close(fd2);
}

TEST_F(bo, many_objects)
{
	enum { N = 1000 };
	uint32_t *h = calloc(N, sizeof(*h));

	ASSERT_NE(NULL, h);
	for (int i = 0; i < N; i++)
		ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096 * (1 + i % 4), 0, &h[i]));
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < i + 4 && j < N; j++)
			ASSERT_NE(h[i], h[j]);
	for (int i = 0; i < N; i++)
		ASSERT_EQ(0, gaccel_gem_close(self->fd, h[i]));
	free(h);
}

TEST_F(bo, fdinfo_memory_stats)
{
	long long total0, total1, res0, res1;
	uint32_t h;
	char *p;

	total0 = gaccel_fdinfo_bytes(self->fd, "total");
	res0 = gaccel_fdinfo_bytes(self->fd, "resident");
	ASSERT_GE(total0, 0);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4 << 20, 0, &h));
	total1 = gaccel_fdinfo_bytes(self->fd, "total");
	EXPECT_EQ(total0 + (4 << 20), total1);

	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, 4 << 20);
	res1 = gaccel_fdinfo_bytes(self->fd, "resident");
	EXPECT_EQ((res0 < 0 ? 0 : res0) + (4 << 20), res1);
	munmap(p, 4 << 20);

	ASSERT_EQ(0, gaccel_gem_close(self->fd, h));
	EXPECT_EQ(total0, gaccel_fdinfo_bytes(self->fd, "total"));
}

/*
 * drm_ioctl() copies the result out after the driver returns: when it
 * cannot, the object already has a handle. The handle stays with the file,
 * counted and shown like any other (limits_test bounds how many), until
 * GEM_CLOSE or close.
 */
TEST_F(bo, result_not_copied_out)
{
	struct drm_gaccel_bo_create *c;
	int fd;

	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	c = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c);
	c->size = 1 << 20;
	ASSERT_EQ(0, mprotect(c, self->page, PROT_READ));
	EXPECT_EQ(-EFAULT, gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE, c));
	EXPECT_EQ(0, c->handle);
	EXPECT_EQ(1 << 20, gaccel_fdinfo_bytes(fd, "total"));
	/* A new file's first handle is 1. */
	EXPECT_EQ(0, gaccel_gem_close(fd, 1));
	EXPECT_EQ(0, gaccel_fdinfo_bytes(fd, "total"));
	munmap(c, self->page);
	close(fd);
}

/* What a new file's fdinfo says about userptr and imported objects. */
TEST_F(bo, fdinfo_userptr_and_imports)
{
	struct dma_heap_allocation_data a = { .len = 8 << 20, .fd_flags = O_RDWR | O_CLOEXEC };
	size_t usize = 2 << 20;
	uint32_t hu, hi, hb, hb2;
	int fd, fd2, heap, dmabuf;
	char *p;

	fd = gaccel_open_device();
	fd2 = gaccel_open_device();
	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(0, gaccel_fdinfo_bytes(fd, "total"));

	/*
	 * A userptr: resident (pinned); private until another file imports
	 * it (the process's own pages, also counted in its RSS).
	 */
	p = mmap(NULL, usize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(fd, p, usize, 0, &hu));
	EXPECT_EQ((long long)usize, gaccel_fdinfo_bytes(fd, "total"));
	EXPECT_EQ((long long)usize, gaccel_fdinfo_bytes(fd, "resident"));
	EXPECT_EQ(0, gaccel_fdinfo_bytes(fd, "shared"));

	/* Another exporter's buffer: resident, shared. */
	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap >= 0) {
		ASSERT_EQ(0, ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a));
		close(heap);
		ASSERT_EQ(0, gaccel_prime_import(fd, a.fd, &hi));
		close(a.fd);
		EXPECT_EQ((long long)usize + (8 << 20), gaccel_fdinfo_bytes(fd, "total"));
		EXPECT_EQ((long long)usize + (8 << 20), gaccel_fdinfo_bytes(fd, "resident"));
		EXPECT_EQ(8 << 20, gaccel_fdinfo_bytes(fd, "shared"));
		EXPECT_EQ(0, gaccel_gem_close(fd, hi));
	}

	/* One of our objects in two files: in both totals, shared in both. */
	ASSERT_EQ(0, gaccel_bo_create(fd, 4 << 20, 0, &hb));
	EXPECT_EQ(0, gaccel_fdinfo_bytes(fd, "shared"));
	dmabuf = gaccel_prime_export(fd, hb);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd2, dmabuf, &hb2));
	close(dmabuf);
	EXPECT_EQ(4 << 20, gaccel_fdinfo_bytes(fd2, "total"));
	EXPECT_EQ(4 << 20, gaccel_fdinfo_bytes(fd2, "shared"));
	EXPECT_EQ(4 << 20, gaccel_fdinfo_bytes(fd, "shared"));

	EXPECT_EQ(0, gaccel_gem_close(fd, hu));
	EXPECT_EQ(4 << 20, gaccel_fdinfo_bytes(fd, "total"));
	close(fd);
	EXPECT_EQ(4 << 20, gaccel_fdinfo_bytes(fd2, "total"));
	close(fd2);
	munmap(p, usize);
}

GACCEL_TEST_HARNESS_MAIN
