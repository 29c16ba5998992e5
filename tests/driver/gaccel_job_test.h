/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Helpers of the scheduling, lifetime and hostile-client suites: sync
 * files, the module's reference count, running a function in a child (as
 * uid 65534 with gaccel_become_nobody() of gaccel_test.h), the kernel's
 * thread count, latency percentiles.
 */
#ifndef GACCEL_JOB_TEST_H
#define GACCEL_JOB_TEST_H

#include <linux/sync_file.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "gaccel_test.h"

static inline int gaccel_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : n;
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : n < 0 ? (int)n : -EIO;
}

/* A number read from a sysfs or proc file, or -1. */
static inline long long gaccel_read_number(const char *path)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
}

/* References held on the module: open files, exported objects, job fences. */
static inline long long gaccel_module_refcnt(void)
{
	return gaccel_read_number("/sys/module/gaccel/refcnt");
}

/* Wait up to @secs for the module's reference count to drop to @want. */
static inline long long gaccel_wait_refcnt(long long want, int secs)
{
	long long n = gaccel_module_refcnt();

	for (int i = 0; i < secs * 50 && n > want; i++) {
		usleep(20000);
		n = gaccel_module_refcnt();
	}
	return n;
}

/* Threads in the system (the kernel's own included): /proc/loadavg. */
static inline long gaccel_thread_count(void)
{
	char buf[128] = { 0 }, *slash;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	slash = strchr(buf, '/');
	return slash ? atol(slash + 1) : -1;
}

/*
 * Run @fn in a child process, as uid 65534 if @nobody; returns its exit
 * status (0 = success), or 128 + signal.
 */
static inline int gaccel_run_child(int (*fn)(void *), void *arg, int nobody)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 200;
	if (pid == 0) {
		if (nobody && gaccel_become_nobody())
			_exit(201);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return 202;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* --- sync files ---------------------------------------------------------- */

/* Export a syncobj's fence as a sync_file, or -errno. */
static inline int gaccel_export_sync_file(int fd, uint32_t syncobj)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
	};
	int ret = gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);

	return ret ? ret : h.fd;
}

/**
 * struct gaccel_sf_info - what SYNC_IOC_FILE_INFO says of a one-fence file.
 * @status: 1 signalled, 0 pending, or the fence's negative errno.
 * @driver: the fence's driver name.
 * @timeline: its timeline name.
 * @timestamp_ns: when it signalled (CLOCK_MONOTONIC).
 */
struct gaccel_sf_info {
	int status;
	char driver[32];
	char timeline[32];
	uint64_t timestamp_ns;
};

static inline int gaccel_sync_file_info(int sf, struct gaccel_sf_info *out)
{
	struct sync_fence_info fi = { 0 };
	struct sync_file_info info = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)&fi,
	};

	memset(out, 0, sizeof(*out));
	if (ioctl(sf, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	out->status = info.status;
	memcpy(out->driver, fi.driver_name, sizeof(out->driver) - 1);
	memcpy(out->timeline, fi.obj_name, sizeof(out->timeline) - 1);
	out->timestamp_ns = fi.timestamp_ns;
	return 0;
}

/* Wait for a sync_file to signal, up to @ms: 1 signalled, 0 timeout. */
static inline int gaccel_sync_file_wait(int sf, int ms)
{
	struct pollfd p = { .fd = sf, .events = POLLIN };
	int ret = poll(&p, 1, ms);

	return ret < 0 ? -errno : ret;
}

/* --- timing ---------------------------------------------------------------- */

static inline double gaccel_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int gaccel_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @pct percentile of @n values (sorts them). */
static inline double gaccel_percentile(double *v, int n, int pct)
{
	int i;

	if (n <= 0)
		return 0;
	qsort(v, n, sizeof(*v), gaccel_cmp_double);
	i = (n * pct + 99) / 100 - 1;
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

#endif /* GACCEL_JOB_TEST_H */
