/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Helpers shared by the driver test suites (run inside the test VM).
 */
#ifndef GACCEL_TEST_H
#define GACCEL_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <grp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "drm/gaccel_accel.h"

/*
 * Ops of uAPI 0.2 (NONE .. GEGLU): the uAPI has no count, a device reports
 * what it runs through QUERY OPS; the tests know this many.
 */
#define GACCEL_TEST_NUM_OPS	(DRM_GACCEL_OP_GEGLU + 1)

/* ioctl() that returns -errno, retrying on EINTR/EAGAIN as libdrm does. */
static inline int gaccel_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : ret;
}

/*
 * The directories gaccel nodes live in, and their names' prefix: accel
 * nodes, and render nodes where the kernel has no accel subsystem (Debian's
 * arm64 kernels, kernels before 6.2).
 */
static const struct {
	const char *dir, *prefix;
} gaccel_node_dirs[] = { { "/dev/accel", "accel" }, { "/dev/dri", "renderD" } };

/*
 * Give every gaccel node (accel and render nodes alike) @mode and, unless
 * @gid is (gid_t)-1, owner root and group @gid. Returns 0 or -errno.
 */
static inline int gaccel_set_node_access(gid_t gid, mode_t mode)
{
	char path[300];
	struct dirent *de;

	for (size_t d = 0; d < sizeof(gaccel_node_dirs) / sizeof(gaccel_node_dirs[0]); d++) {
		size_t np = strlen(gaccel_node_dirs[d].prefix);
		DIR *dir = opendir(gaccel_node_dirs[d].dir);

		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			if (strncmp(de->d_name, gaccel_node_dirs[d].prefix, np))
				continue;
			snprintf(path, sizeof(path), "%s/%s", gaccel_node_dirs[d].dir, de->d_name);
			if ((gid != (gid_t)-1 && chown(path, 0, gid)) || chmod(path, mode)) {
				closedir(dir);
				return -errno;
			}
		}
		closedir(dir);
	}
	return 0;
}

/*
 * Whether @fd is a DRM render node (the driver's node on kernels without
 * the accel subsystem), not an accel node: DRM's character major is 226.
 */
static inline int gaccel_is_render_node(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 226;
}

/* Whether @fd is a node of the gaccel driver. */
static inline int gaccel_is_ours(int fd)
{
	char name[32];
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	memset(name, 0, sizeof(name));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	return gaccel_ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, "gaccel");
}

/*
 * glob(3) of a debugfs file of the driver, under accel/<minor>/ (accel
 * node) or dri/ (render node: the device's directory, and a link to it for
 * each of its minors, counted once): 0 with @g filled, or GLOB_NOMATCH.
 * Free @g with globfree() after a 0.
 */
static inline int gaccel_debugfs_glob(const char *file, glob_t *g)
{
	char pat[128], a[PATH_MAX], b[PATH_MAX];
	int found = 0;

	snprintf(pat, sizeof(pat), "/sys/kernel/debug/accel/*/%s", file);
	if (glob(pat, 0, NULL, g) == 0)
		found = 1;
	snprintf(pat, sizeof(pat), "/sys/kernel/debug/dri/*/%s", file);
	if (glob(pat, found ? GLOB_APPEND : 0, NULL, g) == 0)
		found = 1;
	if (!found)
		return GLOB_NOMATCH;
	/* Drop the paths that lead to a file already listed (kept at the end). */
	for (size_t i = 0; i < g->gl_pathc; i++) {
		if (!realpath(g->gl_pathv[i], a))
			continue;
		for (size_t j = 0; j < i; j++) {
			if (realpath(g->gl_pathv[j], b) && !strcmp(a, b)) {
				char *dup = g->gl_pathv[i];

				memmove(&g->gl_pathv[i], &g->gl_pathv[i + 1],
					(g->gl_pathc - i - 1) * sizeof(char *));
				g->gl_pathv[--g->gl_pathc] = dup;
				i--;
				break;
			}
		}
	}
	return 0;
}

/* Open the first accel (or render) node whose DRM driver is gaccel, or -errno. */
static inline int gaccel_open_device(void)
{
	char path[300];
	struct dirent *de;
	int fd = -ENOENT;

	for (size_t d = 0; d < sizeof(gaccel_node_dirs) / sizeof(gaccel_node_dirs[0]); d++) {
		DIR *dir = opendir(gaccel_node_dirs[d].dir);
		size_t np = strlen(gaccel_node_dirs[d].prefix);

		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			if (strncmp(de->d_name, gaccel_node_dirs[d].prefix, np))
				continue;
			snprintf(path, sizeof(path), "%s/%s", gaccel_node_dirs[d].dir, de->d_name);
			fd = open(path, O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				fd = -errno;
				continue;
			}
			if (gaccel_is_ours(fd)) {
				closedir(dir);
				return fd;
			}
			close(fd);
			fd = -ENODEV;
		}
		closedir(dir);
	}
	return fd;
}

/* The user and group hostile-client cases run as: nobody, nogroup. */
#define GACCEL_TEST_UNPRIV_ID	65534

/*
 * Become an unprivileged client, as a container given only the accel node
 * is: the nodes are first handed to group 65534 (mode 0660, as the udev
 * rule does for the render group), then the process drops every
 * supplementary group, its gid and its uid to 65534. The kselftest
 * harness runs each test in a child of its own, so calling this from a
 * fixture's setup drops privileges for that test only. Returns 0 or
 * -errno; afterwards the process cannot become root again.
 */
static inline int gaccel_drop_privileges(void)
{
	const gid_t id = GACCEL_TEST_UNPRIV_ID;
	int ret;

	if (geteuid() == 0) {
		ret = gaccel_set_node_access(id, 0660);
		if (ret)
			return ret;
	}
	/* As root, setgid() and setuid() set the real, effective and saved ids. */
	if (setgroups(0, NULL) || setgid(id) || setuid(id))
		return -errno;
	if (setuid(0) == 0 || geteuid() != id || getegid() != id)
		return -EPERM;
	return 0;
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

/* --- graphs ------------------------------------------------------------- */

/* A contiguous tensor descriptor: @ne elements per dimension (unused = 1). */
static inline struct drm_gaccel_tensor gaccel_tensor(uint32_t slot, uint32_t dtype,
						     uint64_t offset, uint64_t ne0,
						     uint64_t ne1, uint64_t ne2,
						     uint64_t ne3)
{
	uint64_t es = dtype == DRM_GACCEL_DTYPE_I64 ? 8 :
		      dtype == DRM_GACCEL_DTYPE_F32 || dtype == DRM_GACCEL_DTYPE_I32 ? 4 :
		      dtype == DRM_GACCEL_DTYPE_Q8_0 ? 34 : dtype == DRM_GACCEL_DTYPE_Q4_0 ? 18 : 2;
	uint64_t bs = dtype == DRM_GACCEL_DTYPE_Q8_0 || dtype == DRM_GACCEL_DTYPE_Q4_0 ? 32 : 1;
	struct drm_gaccel_tensor t = {
		.slot = slot, .dtype = dtype, .offset = offset,
		.ne = { ne0, ne1, ne2, ne3 },
	};

	t.nb[0] = es;
	t.nb[1] = es * (ne0 / bs);
	t.nb[2] = t.nb[1] * ne1;
	t.nb[3] = t.nb[2] * ne2;
	return t;
}

static inline struct drm_gaccel_node gaccel_node(uint32_t op, uint32_t dst, uint32_t s0,
						 uint32_t s1, uint32_t s2)
{
	struct drm_gaccel_node n = {
		.op = op, .dst = dst,
		.src = { s0, s1, s2, DRM_GACCEL_NO_TENSOR },
	};
	return n;
}

#define GACCEL_NONE DRM_GACCEL_NO_TENSOR

static inline int gaccel_graph_create(int fd, const struct drm_gaccel_slot *slots, uint32_t ns,
				      const struct drm_gaccel_tensor *t, uint32_t nt,
				      const struct drm_gaccel_node *n, uint32_t nn,
				      uint32_t *handle)
{
	struct drm_gaccel_graph_create c = {
		.slots = { sizeof(*slots), ns, (uintptr_t)slots },
		.tensors = { sizeof(*t), nt, (uintptr_t)t },
		.nodes = { sizeof(*n), nn, (uintptr_t)n },
	};
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

static inline int gaccel_graph_destroy(int fd, uint32_t handle)
{
	struct drm_gaccel_graph_destroy d = { .handle = handle };

	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_GRAPH_DESTROY, &d);
}

static inline int gaccel_queue_create(int fd, uint32_t *handle)
{
	struct drm_gaccel_queue_create c = { .priority = DRM_GACCEL_QUEUE_PRIORITY_NORMAL };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c);

	if (!ret)
		*handle = c.handle;
	return ret;
}

static inline int gaccel_queue_destroy(int fd, uint32_t handle)
{
	struct drm_gaccel_queue_destroy d = { .handle = handle };

	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_DESTROY, &d);
}

static inline int gaccel_queue_state(int fd, uint32_t handle,
				     struct drm_gaccel_queue_get_state *st)
{
	memset(st, 0, sizeof(*st));
	st->handle = handle;
	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_GET_STATE, st);
}

/* Submit one job. */
static inline int gaccel_submit1(int fd, uint32_t queue, uint32_t graph,
				 const struct drm_gaccel_binding *b, uint32_t nb,
				 const struct drm_gaccel_sync *s, uint32_t ns)
{
	struct drm_gaccel_job job = {
		.graph = graph,
		.bindings = { sizeof(*b), nb, (uintptr_t)b },
		.syncs = { sizeof(*s), ns, (uintptr_t)s },
	};
	struct drm_gaccel_submit sub = {
		.queue = queue,
		.jobs = { sizeof(job), 1, (uintptr_t)&job },
	};

	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_SUBMIT, &sub);
}

static inline int gaccel_bo_wait(int fd, uint32_t handle, int64_t rel_ns)
{
	struct timespec ts;
	struct drm_gaccel_bo_wait w = { .handle = handle };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_ns = ts.tv_sec * 1000000000ll + ts.tv_nsec + rel_ns;
	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_WAIT, &w);
}

static inline int gaccel_syncobj_create(int fd, uint32_t *handle)
{
	struct drm_syncobj_create c = { 0 };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);

	if (!ret)
		*handle = c.handle;
	return ret;
}

/* Wait for a binary syncobj (point 0) or a timeline point, relative timeout. */
static inline int gaccel_syncobj_wait(int fd, uint32_t handle, uint64_t point, int64_t rel_ns)
{
	struct timespec ts;
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)&handle,
		.points = (uintptr_t)&point,
		.count_handles = 1,
	};

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_nsec = ts.tv_sec * 1000000000ll + ts.tv_nsec + rel_ns;
	return gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

/*
 * Copy @n floats with a CPY job from object @src at byte @soff to object
 * @dst at byte @doff, and wait for it. Patterns are small integers stored
 * as floats, so the copy is exact.
 */
static inline int gaccel_gpu_copy(int fd, uint32_t src, uint64_t soff, uint32_t dst,
				  uint64_t doff, uint64_t n)
{
	struct drm_gaccel_slot slots[2] = {
		{ .size = soff + n * 4 }, { .size = doff + n * 4 },
	};
	struct drm_gaccel_tensor t[2] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, soff, n, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, doff, n, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0, GACCEL_NONE,
						   GACCEL_NONE);
	struct drm_gaccel_binding b[2] = {
		{ .slot = 0, .handle = src }, { .slot = 1, .handle = dst },
	};
	struct drm_gaccel_queue_get_state st;
	uint32_t g, q;
	int ret;

	ret = gaccel_graph_create(fd, slots, 2, t, 2, &node, 1, &g);
	if (ret)
		return ret;
	ret = gaccel_queue_create(fd, &q);
	if (!ret) {
		ret = gaccel_submit1(fd, q, g, b, 2, NULL, 0);
		if (!ret)
			ret = gaccel_bo_wait(fd, dst, 30000000000ll);
		if (!ret && !gaccel_queue_state(fd, q, &st) && st.completed != 1)
			ret = -EIO;
		gaccel_queue_destroy(fd, q);
	}
	gaccel_graph_destroy(fd, g);
	return ret;
}

static inline float gaccel_f(int32_t bits)
{
	union { int32_t i; float f; } u = { .i = bits };
	return u.f;
}

static inline int32_t gaccel_fbits(float f)
{
	union { float f; int32_t i; } u = { .f = f };
	return u.i;
}

/* --- hostile clients, limits, accounting ---------------------------------- */

#define GACCEL_NOBODY 65534
/* A second unprivileged user, for what is counted per user. */
#define GACCEL_OTHER_USER 65533

/*
 * Become uid and gid @uid with no supplementary groups (and so no
 * capabilities), as a container user given only the device node would be.
 * The VM's node is root's and mode 0600: it is opened to everyone first, as
 * the container's device rules would. Run it in a test's own process (the
 * harness forks one per test) or in a child. Returns 0 or -errno.
 */
static inline int gaccel_become_user(uid_t uid)
{
	int ret = gaccel_set_node_access((gid_t)-1, 0666);

	if (ret)
		return ret;
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		return -errno;
	return getuid() == uid && geteuid() == uid ? 0 : -EPERM;
}

/* gaccel_become_user() as uid 65534. */
static inline int gaccel_become_nobody(void)
{
	return gaccel_become_user(GACCEL_NOBODY);
}

/* Module parameter @name of gaccel.ko, or -errno. */
static inline long long gaccel_param_get(const char *name)
{
	char path[128];
	long long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/module/gaccel/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%lld", &v);
	fclose(f);
	return n == 1 ? v : -EINVAL;
}

/* Set module parameter @name (root only); 0 or -errno. */
static inline int gaccel_param_set(const char *name, long long v)
{
	char path[128];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/gaccel/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%lld\n", v) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/* The "drm-<key>-memory:" line of @fd's fdinfo, in bytes, or -1. */
static inline long long gaccel_fdinfo_bytes(int fd, const char *key)
{
	char path[64], line[256], want[64];
	long long total = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(want, sizeof(want), "drm-%s-memory:", key);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char unit[16] = "";

		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %15s", &v, unit) < 1)
			continue;
		if (!strcmp(unit, "KiB"))
			v <<= 10;
		else if (!strcmp(unit, "MiB"))
			v <<= 20;
		else if (!strcmp(unit, "GiB"))
			v <<= 30;
		total = v;
	}
	fclose(f);
	return total;
}

#include "../common/test-timeout.h"

#ifdef TEST_HARNESS_MAIN
/* TEST_HARNESS_MAIN, with the timeouts scaled. */
#define GACCEL_TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		gaccel_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}
#endif

#endif /* GACCEL_TEST_H */
