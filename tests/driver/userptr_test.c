// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * BO_CREATE_USERPTR: alignment and range checks, unmapped and read-only
 * memory, file and memfd mappings, RLIMIT_MEMLOCK and VmPin (charged to
 * the pinning process, given back once, by whoever releases the pages),
 * page counts above INT_MAX, lifetime after munmap,
 * export of the result, and which pages the object holds after
 * copy-on-write (fork before and after the pin, shared and private file
 * mappings), read back with jobs.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

FIXTURE(userptr) {
	int fd;
	size_t page;
};

FIXTURE_SETUP(userptr)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0) TH_LOG("no gaccel device: %s", strerror(-self->fd));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(userptr)
{
	close(self->fd);
}

static void *anon(size_t size, int prot)
{
	return mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
}

TEST_F(userptr, anonymous_memory)
{
	size_t size = 16 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h;
	char *p;

	p = anon(size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	EXPECT_NE(0, h);
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(size, info.size);
	EXPECT_EQ(DRM_GACCEL_BO_USERPTR | DRM_GACCEL_BO_IMPORTED, info.flags);
	/* Not mappable through the accel node: the process has it already. */
	EXPECT_EQ(0, info.mmap_offset);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
}

TEST_F(userptr, not_populated_yet)
{
	size_t size = 8 * self->page;
	uint32_t h;
	char *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
}

TEST_F(userptr, unaligned)
{
	size_t size = 4 * self->page;
	char *p = anon(size, PROT_READ | PROT_WRITE);

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p + 1, self->page, 0, NULL));
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p + 64, self->page, 0, NULL));
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p, self->page + 1, 0, NULL));
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, NULL, self->page, 0, NULL));
	munmap(p, size);
}

TEST_F(userptr, overflowing)
{
	uint64_t top = ~(uint64_t)(self->page - 1);
	struct drm_gaccel_bo_create_userptr u = { 0 };

	u.pointer = top;
	u.size = 2 * self->page;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u));
	u.pointer = self->page;
	u.size = top;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u));
	u.pointer = 1ull << 46;
	u.size = 1ull << 62;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u));
	EXPECT_EQ(0, u.handle);
}

TEST_F(userptr, unknown_flags)
{
	size_t size = self->page;
	char *p = anon(size, PROT_READ | PROT_WRITE);

	ASSERT_NE(MAP_FAILED, p);
	for (int bit = 0; bit < 32; bit++) {
		if ((1u << bit) == DRM_GACCEL_BO_READ_ONLY)
			continue;
		EXPECT_EQ(-EINVAL, gaccel_userptr(self->fd, p, size, 1u << bit, NULL))
			TH_LOG("flag bit %d", bit);
	}
	munmap(p, size);
}

TEST_F(userptr, unmapped)
{
	size_t size = 8 * self->page;
	char *p = anon(size, PROT_READ | PROT_WRITE);

	ASSERT_NE(MAP_FAILED, p);
	/* A hole in the middle of the range. */
	ASSERT_EQ(0, munmap(p + 4 * self->page, self->page));
	EXPECT_EQ(-EFAULT, gaccel_userptr(self->fd, p, size, 0, NULL));
	EXPECT_EQ(-EFAULT, gaccel_userptr(self->fd, p, size, DRM_GACCEL_BO_READ_ONLY, NULL));
	/* The part before the hole is fine. */
	uint32_t h;

	ASSERT_EQ(0, gaccel_userptr(self->fd, p, 4 * self->page, 0, &h));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);

	/* Nothing mapped at all; kernel addresses. */
	EXPECT_EQ(-EFAULT, gaccel_userptr(self->fd, (void *)(uintptr_t)self->page,
					  self->page, 0, NULL));
	EXPECT_EQ(-EFAULT, gaccel_userptr(self->fd, (void *)(uintptr_t)0xffff888000000000ull,
					  self->page, DRM_GACCEL_BO_READ_ONLY, NULL));
}

TEST_F(userptr, read_only_anonymous)
{
	size_t size = 4 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h;
	char *p = anon(size, PROT_READ);

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, gaccel_userptr(self->fd, p, size, 0, NULL));
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, DRM_GACCEL_BO_READ_ONLY, &h));
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(DRM_GACCEL_BO_USERPTR | DRM_GACCEL_BO_IMPORTED | DRM_GACCEL_BO_READ_ONLY,
		  info.flags);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
}

static int make_file(const char *path, size_t size)
{
	char *buf = malloc(size);
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !buf)
		return -1;
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(i * 7);
	if (write(fd, buf, size) != (ssize_t)size)
		return -1;
	free(buf);
	return fd;
}

/* A weights file mapped read-only: pinned without copy, only with READ_ONLY. */
static void file_mapping(struct __test_metadata *_metadata, int gfd, const char *path,
			 size_t size)
{
	uint32_t h;
	void *p;
	int fd;

	fd = make_file(path, size);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, gaccel_userptr(gfd, p, size, 0, NULL));
	ASSERT_EQ(0, gaccel_userptr(gfd, p, size, DRM_GACCEL_BO_READ_ONLY, &h));
	EXPECT_EQ(0, gaccel_gem_close(gfd, h));
	munmap(p, size);

	/* MAP_PRIVATE read-only: the same. */
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, gaccel_userptr(gfd, p, size, 0, NULL));
	ASSERT_EQ(0, gaccel_userptr(gfd, p, size, DRM_GACCEL_BO_READ_ONLY, &h));
	EXPECT_EQ(0, gaccel_gem_close(gfd, h));
	munmap(p, size);
	close(fd);
	unlink(path);
}

TEST_F(userptr, read_only_file_on_tmpfs)
{
	file_mapping(_metadata, self->fd, "/tmp/weights.bin", 16 * self->page);
}

TEST_F(userptr, read_only_file_on_rootfs)
{
	file_mapping(_metadata, self->fd, "/weights.bin", 16 * self->page);
}

TEST_F(userptr, writable_shared_tmpfs_file)
{
	size_t size = 8 * self->page;
	uint32_t h;
	void *p;
	int fd;

	/* tmpfs is shmem: a writable long-term pin is allowed. */
	fd = make_file("/tmp/rw.bin", size);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
	close(fd);
	unlink("/tmp/rw.bin");
}

TEST_F(userptr, memfd)
{
	size_t size = 32 * self->page;
	uint32_t h1, h2;
	void *p;
	int fd;

	fd = memfd_create("userptr", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, size));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h1));
	/* The same pages twice: two objects. */
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, DRM_GACCEL_BO_READ_ONLY, &h2));
	EXPECT_NE(h1, h2);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h1));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h2));
	munmap(p, size);
	close(fd);
}

TEST_F(userptr, munmap_after_create)
{
	size_t size = 16 * self->page;
	struct drm_gaccel_bo_info info;
	uint32_t h;
	char *p = anon(size, PROT_READ | PROT_WRITE);

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x5a, size);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	ASSERT_EQ(0, munmap(p, size));
	/* The pages stay pinned and the object usable. */
	ASSERT_EQ(0, gaccel_bo_info(self->fd, h, &info));
	EXPECT_EQ(size, info.size);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
}

TEST_F(userptr, close_file_with_userptrs)
{
	size_t size = 8 * self->page;
	char *p = anon(size, PROT_READ | PROT_WRITE);
	int fd2 = gaccel_open_device();

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GE(fd2, 0);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(0, gaccel_userptr(fd2, p, size, i & 1 ? DRM_GACCEL_BO_READ_ONLY : 0,
					    NULL));
	close(fd2);
	munmap(p, size);
}

TEST_F(userptr, export_and_import)
{
	size_t size = 8 * self->page;
	char *p = anon(size, PROT_READ | PROT_WRITE);
	struct drm_gaccel_bo_info info;
	uint32_t h, h_self, h2;
	int dmabuf, fd2;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h));
	dmabuf = gaccel_prime_export(self->fd, h);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(self->fd, dmabuf, &h_self));
	EXPECT_EQ(h, h_self);

	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, gaccel_prime_import(fd2, dmabuf, &h2));
	ASSERT_EQ(0, gaccel_bo_info(fd2, h2, &info));
	EXPECT_EQ(size, info.size);
	EXPECT_TRUE(info.flags & DRM_GACCEL_BO_USERPTR);
	close(dmabuf);
	/* The first file lets go first; the second one keeps the pages. */
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, size);
	ASSERT_EQ(0, gaccel_bo_info(fd2, h2, &info));
	close(fd2);
}

/* --- what the pinned pages are after copy-on-write ------------------------ */

#define COW_PAGES 4

/* Page @pg of a pattern buffer: float i of the page holds tag * 100000 + i. */
static void stamp(float *p, size_t page, int pg, int tag)
{
	float *w = p + pg * page / 4;

	for (size_t i = 0; i < page / 4; i++)
		w[i] = (float)(tag * 100000 + (int)i);
}

/* The tag of every page of @p, or -1 for a page that holds no pattern. */
static void tags(const float *p, size_t page, int *out)
{
	for (int pg = 0; pg < COW_PAGES; pg++) {
		const float *w = p + pg * page / 4;
		int tag = (int)(w[0] / 100000);

		out[pg] = tag;
		for (size_t i = 0; i < page / 4; i++)
			if (w[i] != (float)(tag * 100000 + (int)i))
				out[pg] = -1;
	}
}

/* The object's contents, read back by the engine into shmem object @dst. */
static int bo_tags(int fd, uint32_t h, uint32_t dst, const float *dst_map, size_t page,
		   int *out)
{
	int ret = gaccel_gpu_copy(fd, h, 0, dst, 0, COW_PAGES * page / 4);

	if (ret)
		return ret;
	tags(dst_map, page, out);
	return 0;
}

#define EXPECT_TAGS(got, a, b, c, d) do {					\
	int want_[COW_PAGES] = { a, b, c, d };					\
	EXPECT_EQ(0, memcmp(got, want_, sizeof(want_))) {			\
		TH_LOG("pages hold tags %d %d %d %d, expected %d %d %d %d",	\
		       got[0], got[1], got[2], got[3], a, b, c, d);		\
	}									\
} while (0)

FIXTURE(cow) {
	int fd;
	size_t page, size;
	uint32_t dst, src;
	float *dst_map, *src_map;
};

FIXTURE_SETUP(cow)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	self->page = sysconf(_SC_PAGESIZE);
	self->size = COW_PAGES * self->page;
	/* Shmem objects: where the engine puts what it read, what it writes. */
	ASSERT_EQ(0, gaccel_bo_create(self->fd, self->size, 0, &self->dst));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, self->size, 0, &self->src));
	self->dst_map = gaccel_bo_mmap(self->fd, self->dst, PROT_READ | PROT_WRITE);
	self->src_map = gaccel_bo_mmap(self->fd, self->src, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, self->dst_map);
	ASSERT_NE(MAP_FAILED, self->src_map);
}

FIXTURE_TEARDOWN(cow)
{
	close(self->fd);
}

/*
 * Pin, then fork: the pinned pages stay the parent's. fork() gives the
 * child copies of pinned anonymous pages at once (it cannot share them
 * copy-on-write), so the parent keeps writing into the very pages the
 * object holds, and nothing the child writes reaches the object, not even
 * through the accel file the child inherited.
 */
TEST_F(cow, fork_after_pin_parent_keeps_the_pages)
{
	int t[COW_PAGES], status;
	float *p;
	uint32_t h;
	pid_t pid;

	p = anon(self->size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	for (int pg = 0; pg < COW_PAGES; pg++)
		stamp(p, self->page, pg, 1);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, self->size, 0, &h));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (int pg = 0; pg < COW_PAGES; pg++)
			stamp(p, self->page, pg, 3);
		/* The child's own submit sees the parent's pages. */
		if (bo_tags(self->fd, h, self->dst, self->dst_map, self->page, t))
			_exit(2);
		for (int pg = 0; pg < COW_PAGES; pg++)
			if (t[pg] != 1)
				_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status %#x", status);
	}
	tags(p, self->page, t);
	EXPECT_TAGS(t, 1, 1, 1, 1);

	/* The parent's CPU writes land in the pinned pages... */
	stamp(p, self->page, 1, 2);
	ASSERT_EQ(0, bo_tags(self->fd, h, self->dst, self->dst_map, self->page, t));
	EXPECT_TAGS(t, 1, 2, 1, 1);
	/* ...and the engine's writes in the parent's view. */
	stamp(self->src_map, self->page, 3, 4);
	ASSERT_EQ(0, gaccel_gpu_copy(self->fd, self->src, 3 * self->page, h, 3 * self->page,
			      self->page / 4));
	tags(p, self->page, t);
	EXPECT_TAGS(t, 1, 2, 1, 4);
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, self->size);
}

/*
 * Fork, then pin: the pages are shared copy-on-write with the child. The
 * long-term pin breaks the sharing for the caller first (a private copy
 * for writing; for READ_ONLY the kernel unshares too, since a read-only
 * long-term pin must keep seeing the process's later writes), so the
 * object holds the parent's pages: the parent's and the engine's writes
 * meet there, and the child keeps its pre-fork view.
 */
static void fork_then_pin(struct __test_metadata *_metadata, FIXTURE_DATA(cow) *self,
			  uint32_t flags)
{
	int t[COW_PAGES], status, go[2], pg;
	char c = 0;
	float *p;
	uint32_t h;
	pid_t pid;

	p = anon(self->size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	for (pg = 0; pg < COW_PAGES; pg++)
		stamp(p, self->page, pg, 1);
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		/* Neither the parent's nor the engine's writes show here. */
		tags(p, self->page, t);
		for (pg = 0; pg < COW_PAGES; pg++)
			if (t[pg] != 1)
				_exit(10 + pg);
		for (pg = 0; pg < COW_PAGES; pg++)
			stamp(p, self->page, pg, 3);
		_exit(0);
	}
	close(go[0]);

	ASSERT_EQ(0, gaccel_userptr(self->fd, p, self->size, flags, &h));
	stamp(p, self->page, 0, 2);
	ASSERT_EQ(0, bo_tags(self->fd, h, self->dst, self->dst_map, self->page, t));
	EXPECT_TAGS(t, 2, 1, 1, 1);
	if (!(flags & DRM_GACCEL_BO_READ_ONLY)) {
		stamp(self->src_map, self->page, 2, 4);
		ASSERT_EQ(0, gaccel_gpu_copy(self->fd, self->src, 2 * self->page, h, 2 * self->page,
				      self->page / 4));
		tags(p, self->page, t);
		EXPECT_TAGS(t, 2, 1, 4, 1);
	}

	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status %#x", status);
	}
	close(go[1]);

	/* The child's writes went to its own copies. */
	ASSERT_EQ(0, bo_tags(self->fd, h, self->dst, self->dst_map, self->page, t));
	if (flags & DRM_GACCEL_BO_READ_ONLY)
		EXPECT_TAGS(t, 2, 1, 1, 1);
	else
		EXPECT_TAGS(t, 2, 1, 4, 1);
	/* And the parent sees what the object holds. */
	EXPECT_EQ(0, memcmp(p, self->dst_map, self->size));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h));
	munmap(p, self->size);
}

TEST_F(cow, fork_then_pin_for_writing)
{
	fork_then_pin(_metadata, self, 0);
}

TEST_F(cow, fork_then_pin_read_only)
{
	fork_then_pin(_metadata, self, DRM_GACCEL_BO_READ_ONLY);
}

/*
 * Files: a MAP_SHARED mapping is zero copy (the object holds the page
 * cache pages, so a later write() to the file shows in it); a MAP_PRIVATE
 * mapping is copy-on-write, so even a read-only long-term pin gives the
 * process private copies first and the object holds those: the file's
 * later changes show neither in the object nor in the mapping.
 */
TEST_F(cow, file_shared_is_zero_copy_private_is_copied)
{
	int t[COW_PAGES], fd;
	float *buf, *ms, *mp;
	uint32_t hs, hp;

	buf = malloc(self->size);
	ASSERT_NE(NULL, buf);
	for (int pg = 0; pg < COW_PAGES; pg++)
		stamp(buf, self->page, pg, 1);
	fd = open("/tmp/cow.bin", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)self->size, write(fd, buf, self->size));
	ms = mmap(NULL, self->size, PROT_READ, MAP_SHARED, fd, 0);
	mp = mmap(NULL, self->size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, ms);
	ASSERT_NE(MAP_FAILED, mp);
	ASSERT_EQ(0, gaccel_userptr(self->fd, ms, self->size, DRM_GACCEL_BO_READ_ONLY, &hs));
	ASSERT_EQ(0, gaccel_userptr(self->fd, mp, self->size, DRM_GACCEL_BO_READ_ONLY, &hp));

	stamp(buf, self->page, 1, 2);
	ASSERT_EQ((ssize_t)self->page, pwrite(fd, buf + self->page / 4, self->page, self->page));
	ASSERT_EQ(0, bo_tags(self->fd, hs, self->dst, self->dst_map, self->page, t));
	EXPECT_TAGS(t, 1, 2, 1, 1);
	tags(ms, self->page, t);
	EXPECT_TAGS(t, 1, 2, 1, 1);
	/*
	 * The private copies are the kernel's doing: its GUP unshares a
	 * private file mapping's page cache pages for a read-only long-term
	 * pin. A kernel that does not (Debian 12's 6.1) leaves the mapping
	 * on the page cache, and the object with it: there the object must
	 * still hold what the mapping shows, and the private-copy case is
	 * skipped, saying why.
	 */
	tags(mp, self->page, t);
	bool unshared = t[1] == 1;

	if (unshared)
		EXPECT_TAGS(t, 1, 1, 1, 1);
	else
		EXPECT_TAGS(t, 1, 2, 1, 1);
	ASSERT_EQ(0, bo_tags(self->fd, hp, self->dst, self->dst_map, self->page, t));
	if (unshared)
		EXPECT_TAGS(t, 1, 1, 1, 1);
	else
		EXPECT_TAGS(t, 1, 2, 1, 1);

	EXPECT_EQ(0, gaccel_gem_close(self->fd, hs));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, hp));
	munmap(ms, self->size);
	munmap(mp, self->size);
	close(fd);
	unlink("/tmp/cow.bin");
	free(buf);
	if (!unshared)
		SKIP(return, "this kernel's read-only long-term pin does not unshare a private file mapping (no private copies to check; the object matches the mapping)");
}

static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].inheritable &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

/* Runs in a child: exit status 0 on success, the failing step otherwise. */
static int memlock_child(int gfd, size_t page, int drop)
{
	struct rlimit rl = { .rlim_cur = 16 * page, .rlim_max = 16 * page };
	size_t size = 64 * page;
	char *p = anon(size, PROT_READ | PROT_WRITE);
	uint32_t h1, h2;

	if (p == MAP_FAILED || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	if (drop && drop_cap_ipc_lock())
		return 11;
	if (!drop)
		return gaccel_userptr(gfd, p, size, 0, &h1) ? 12 : 0;

	if (gaccel_userptr(gfd, p, size, 0, NULL) != -ENOMEM)
		return 1;
	if (gaccel_userptr(gfd, p, 17 * page, DRM_GACCEL_BO_READ_ONLY, NULL) != -ENOMEM)
		return 2;
	if (gaccel_userptr(gfd, p, 10 * page, 0, &h1))
		return 3;
	if (gaccel_userptr(gfd, p, 10 * page, 0, NULL) != -ENOMEM)
		return 4;
	if (gaccel_userptr(gfd, p, 6 * page, 0, &h2))
		return 5;
	if (gaccel_userptr(gfd, p, page, 0, NULL) != -ENOMEM)
		return 6;
	/* Closing gives the pages back to the limit. */
	if (gaccel_gem_close(gfd, h1))
		return 7;
	if (gaccel_userptr(gfd, p, 10 * page, 0, NULL))
		return 8;
	return 0;
}

/* @drop: 0 keep root's CAP_IPC_LOCK, 1 drop it, 2 run as uid 65534. */
static int run_child(size_t page, int drop)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		if (drop == 2 && gaccel_become_nobody())
			_exit(21);
		fd = gaccel_open_device();
		_exit(fd < 0 ? 20 : memlock_child(fd, page, !!drop));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(userptr, memlock_limit)
{
	EXPECT_EQ(0, run_child(self->page, 1));
}

TEST_F(userptr, memlock_limit_unprivileged)
{
	EXPECT_EQ(0, run_child(self->page, 2));
}

TEST_F(userptr, memlock_bypassed_by_cap_ipc_lock)
{
	EXPECT_EQ(0, run_child(self->page, 0));
}

/* VmPin of process @pid in KiB, or -1. */
static long vmpin_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Pins show in the pinning process's VmPin (mm->pinned_vm) and go when the
 * object does: also for root, whose CAP_IPC_LOCK only lifts the limit.
 */
TEST_F(userptr, pins_show_in_vmpin)
{
	size_t size = 32 * self->page;
	long before = vmpin_kib(getpid());
	uint32_t h1, h2;
	char *p = anon(size, PROT_READ | PROT_WRITE);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GE(before, 0);
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size, 0, &h1));
	EXPECT_EQ(before + (long)(size >> 10), vmpin_kib(getpid()));
	ASSERT_EQ(0, gaccel_userptr(self->fd, p, size / 2, DRM_GACCEL_BO_READ_ONLY, &h2));
	EXPECT_EQ(before + (long)((size + size / 2) >> 10), vmpin_kib(getpid()));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h1));
	EXPECT_EQ(before + (long)((size / 2) >> 10), vmpin_kib(getpid()));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, h2));
	EXPECT_EQ(before, vmpin_kib(getpid()));
	munmap(p, size);
}

static int send_fd(int sock, int fd)
{
	char byte = 0, buf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * The creator of a userptr (uid 65534) hands its dma-buf to another
 * process and lets go of everything; its VmPin keeps the pages until the
 * other process releases them, then drops to what it was, once. With
 * @exit_first the creator is gone before the release.
 */
static void pinned_elsewhere(struct __test_metadata *_metadata, int gfd, size_t page,
			     int exit_first)
{
	size_t size = 16 * page;
	long mine, theirs;
	int sv[2], status, dmabuf;
	uint32_t h;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		long kib[3];
		char *p;
		int fd;

		close(sv[0]);
		if (gaccel_become_nobody())
			_exit(1);
		fd = gaccel_open_device();
		p = anon(size, PROT_READ | PROT_WRITE);
		if (fd < 0 || p == MAP_FAILED)
			_exit(2);
		kib[0] = vmpin_kib(getpid());
		if (gaccel_userptr(fd, p, size, 0, &h))
			_exit(3);
		dmabuf = gaccel_prime_export(fd, h);
		if (dmabuf < 0 || send_fd(sv[1], dmabuf))
			_exit(4);
		close(dmabuf);
		gaccel_gem_close(fd, h);
		close(fd);
		munmap(p, size);
		kib[1] = vmpin_kib(getpid());
		if (write(sv[1], kib, 2 * sizeof(long)) != 2 * sizeof(long))
			_exit(5);
		if (exit_first)
			_exit(0);
		if (read(sv[1], &kib[2], 1) != 1)
			_exit(6);
		kib[2] = vmpin_kib(getpid());
		if (write(sv[1], &kib[2], sizeof(long)) != sizeof(long))
			_exit(7);
		_exit(0);
	}
	close(sv[1]);
	mine = vmpin_kib(getpid());
	dmabuf = recv_fd(sv[0]);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, gaccel_prime_import(gfd, dmabuf, &h));
	close(dmabuf);
	{
		long kib[2];

		ASSERT_EQ(2 * sizeof(long), read(sv[0], kib, 2 * sizeof(long)));
		/* Still pinned for our import, still charged to the creator. */
		EXPECT_EQ(kib[0] + (long)(size >> 10), kib[1]);
		theirs = kib[0];
	}
	EXPECT_EQ(mine, vmpin_kib(getpid()));
	if (exit_first)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, gaccel_gem_close(gfd, h));
	EXPECT_EQ(mine, vmpin_kib(getpid()));
	if (!exit_first) {
		long kib;

		ASSERT_EQ(1, write(sv[0], "r", 1));
		ASSERT_EQ(sizeof(long), read(sv[0], &kib, sizeof(long)));
		EXPECT_EQ(theirs, kib);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("creator status %#x", status);
	}
	close(sv[0]);
}

TEST_F(userptr, pins_released_by_another_process)
{
	pinned_elsewhere(_metadata, self->fd, self->page, 0);
}

TEST_F(userptr, pins_released_after_the_creator_exited)
{
	pinned_elsewhere(_metadata, self->fd, self->page, 1);
}

/* Page counts above INT_MAX are refused whatever the memory size. */
TEST_F(userptr, int_max_pages)
{
	struct drm_gaccel_bo_create_userptr u = {
		.pointer = 1ull << 40,
		.size = ((uint64_t)INT32_MAX + 1) * self->page,
	};

	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u));
	u.size = UINT32_MAX * (uint64_t)self->page;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u));
	EXPECT_EQ(0, u.handle);
}

GACCEL_TEST_HARNESS_MAIN
