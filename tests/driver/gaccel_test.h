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
#include <string.h>
#include <sys/ioctl.h>
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

#endif /* GACCEL_TEST_H */
