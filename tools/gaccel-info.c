// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel-info: open each gaccel device and print what QUERY returns.
 *
 * usage: gaccel-info [/dev/accel/accelN]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "drm/gaccel_accel.h"

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static const char *engine_kind(uint32_t k)
{
	switch (k) {
	case DRM_GACCEL_ENGINE_SOFTWARE: return "software (reference engine)";
	case DRM_GACCEL_ENGINE_HARDWARE: return "hardware";
	default: return "unknown";
	}
}

static const char *mem_kind(uint32_t k)
{
	switch (k) {
	case DRM_GACCEL_MEM_HOST: return "host (shared with the CPU)";
	case DRM_GACCEL_MEM_DEVICE: return "device";
	default: return "unknown";
	}
}

static void print_size(const char *label, uint64_t bytes)
{
	printf("  %-18s %llu bytes (%.1f MiB)\n", label,
	       (unsigned long long)bytes, bytes / (1024.0 * 1024.0));
}

static int show(const char *path)
{
	struct drm_gaccel_device_info info;
	struct drm_gaccel_query q;
	struct drm_version v;
	char name[32] = "", desc[128] = "";
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gaccel-info: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(&v, 0, sizeof(v));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	v.desc = desc;
	v.desc_len = sizeof(desc) - 1;
	ret = xioctl(fd, DRM_IOCTL_VERSION, &v);
	if (ret || strcmp(name, "gaccel")) {
		fprintf(stderr, "gaccel-info: %s: not a gaccel device (%s)\n",
			path, ret ? strerror(-ret) : name);
		close(fd);
		return 1;
	}

	/* Ask for the size first, as a client built against an older or
	 * newer header would.
	 */
	memset(&q, 0, sizeof(q));
	q.type = DRM_GACCEL_QUERY_DEVICE_INFO;
	ret = xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
	if (!ret) {
		memset(&info, 0, sizeof(info));
		q.size = sizeof(info);
		q.pointer = (uintptr_t)&info;
		ret = xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
	}
	close(fd);
	if (ret) {
		fprintf(stderr, "gaccel-info: %s: QUERY failed: %s\n", path, strerror(-ret));
		return 1;
	}

	printf("%s: %s %d.%d.%d (%s)\n", path, name, v.version_major,
	       v.version_minor, v.version_patchlevel, desc);
	printf("  %-18s %u.%u\n", "uAPI version", info.uapi_major, info.uapi_minor);
	printf("  %-18s %.32s\n", "engine", info.engine_name);
	printf("  %-18s %s\n", "engine kind", engine_kind(info.engine_kind));
	printf("  %-18s %u\n", "workers", info.num_workers);
	printf("  %-18s %s\n", "memory", mem_kind(info.mem_kind));
	print_size("memory size", info.mem_size);
	print_size("max BO size", info.max_bo_size);
	printf("  %-18s %u bytes\n", "BO alignment", info.bo_alignment);
	printf("  %-18s %u\n", "max tensor rank", info.max_rank);
	printf("  %-18s %u\n", "max graph nodes", info.max_graph_nodes);
	printf("  %-18s %u\n", "max graph tensors", info.max_graph_tensors);
	printf("  %-18s %u\n", "max bindings", info.max_bindings);
	return 0;
}

int main(int argc, char **argv)
{
	struct dirent *de;
	char path[300];
	int found = 0, rc = 0;
	DIR *dir;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			rc |= show(argv[i]);
		return rc;
	}

	dir = opendir("/dev/accel");
	if (!dir) {
		fprintf(stderr, "gaccel-info: /dev/accel: %s (is gaccel.ko loaded?)\n",
			strerror(errno));
		return 1;
	}
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "accel", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/accel/%s", de->d_name);
		rc |= show(path);
		found++;
	}
	closedir(dir);
	if (!found) {
		fprintf(stderr, "gaccel-info: no device in /dev/accel\n");
		return 1;
	}
	return rc;
}
