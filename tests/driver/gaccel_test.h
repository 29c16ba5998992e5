/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Helpers shared by the driver test suites (run inside the test VM).
 */
#ifndef GACCEL_TEST_H
#define GACCEL_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drm/gaccel_accel.h"

/* ioctl() that returns -errno, retrying on EINTR/EAGAIN as libdrm does. */
static inline int gaccel_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : ret;
}

/* Open the first /dev/accel/accelN whose DRM driver is gaccel, or -errno. */
static inline int gaccel_open_device(void)
{
	char path[300], name[32];
	struct drm_version v;
	struct dirent *de;
	DIR *dir;
	int fd = -ENOENT;

	dir = opendir("/dev/accel");
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
		memset(&v, 0, sizeof(v));
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (gaccel_ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 &&
		    !strcmp(name, "gaccel"))
			break;
		close(fd);
		fd = -ENODEV;
	}
	closedir(dir);
	return fd;
}

static inline int gaccel_bo_create(int fd, uint64_t size, uint32_t flags,
				   uint32_t *handle)
{
	struct drm_gaccel_bo_create c = { .size = size, .flags = flags };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

static inline int gaccel_bo_info(int fd, uint32_t handle,
				 struct drm_gaccel_bo_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_INFO, info);
}

static inline int gaccel_userptr(int fd, const void *ptr, uint64_t size,
				 uint32_t flags, uint32_t *handle)
{
	struct drm_gaccel_bo_create_userptr u = {
		.pointer = (uintptr_t)ptr, .size = size, .flags = flags,
	};
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &u);

	if (!ret && handle)
		*handle = u.handle;
	return ret;
}

static inline int gaccel_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return gaccel_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/* mmap a whole BO through the accel node, or MAP_FAILED. */
static inline void *gaccel_bo_mmap(int fd, uint32_t handle, int prot)
{
	struct drm_gaccel_bo_info info;

	if (gaccel_bo_info(fd, handle, &info) || !info.mmap_offset)
		return MAP_FAILED;
	return mmap(NULL, info.size, prot, MAP_SHARED, fd, info.mmap_offset);
}

/* Export a handle as a dma-buf fd, or -errno. */
static inline int gaccel_prime_export(int fd, uint32_t handle)
{
	struct drm_prime_handle p = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	return ret ? ret : p.fd;
}

static inline int gaccel_prime_import(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = dmabuf };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	if (!ret)
		*handle = p.handle;
	return ret;
}

#endif /* GACCEL_TEST_H */
