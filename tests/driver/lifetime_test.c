// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Lifetimes: rmmod is refused while files, exported dma-bufs or job fences
 * (in syncobjs, sync_files, objects) are alive; closing files with jobs in
 * flight and then unloading is clean once the jobs are done; an
 * unload/reload loop with work in every round.
 */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#define KO "/lib/modules/extra/gaccel.ko"
#define N 1024

static int unload(void)
{
	return syscall(SYS_delete_module, "gaccel", O_NONBLOCK) ? -errno : 0;
}

/*
 * Unload once the module is free: jobs left in flight by a closed file
 * still hold it (their fences do) until they finish, within @secs.
 */
static int unload_when_idle(int secs)
{
	int ret;

	for (int i = 0; i < secs * 50; i++) {
		ret = unload();
		if (ret != -EAGAIN && ret != -EBUSY)
			return ret;
		usleep(20000);
	}
	return ret;
}

static int load(void)
{
	int fd = open(KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* Open the device (udev-less: the node may take a moment to appear). */
static int open_retry(void)
{
	for (int i = 0; i < 100; i++) {
		int fd = gaccel_open_device();

		if (fd >= 0)
			return fd;
		usleep(20000);
	}
	return -ENODEV;
}

/* Queue, graph, objects and a batch of jobs left in flight. */
static int start_work(int fd, int jobs)
{
	struct drm_gaccel_slot slots[2] = { { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[2] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_SILU, 1, 0, GACCEL_NONE, GACCEL_NONE);
	struct drm_gaccel_binding b[2] = { { .slot = 0 }, { .slot = 1 } };
	uint32_t q, g;

	if (gaccel_queue_create(fd, &q) || gaccel_graph_create(fd, slots, 2, t, 2, &n, 1, &g) ||
	    gaccel_bo_create(fd, N * 4, 0, &b[0].handle) ||
	    gaccel_bo_create(fd, N * 4, 0, &b[1].handle))
		return -1;
	for (int i = 0; i < jobs; i++)
		if (gaccel_submit1(fd, q, g, b, 2, NULL, 0))
			return -1;
	return 0;
}

TEST(rmmod_refused_while_open)
{
	uint32_t h;
	int fd, dmabuf;

	fd = open_retry();
	ASSERT_GE(fd, 0);
	EXPECT_NE(0, unload());
	/* An exported dma-buf also pins the module. */
	ASSERT_EQ(0, gaccel_bo_create(fd, 4096, 0, &h));
	dmabuf = gaccel_prime_export(fd, h);
	ASSERT_GE(dmabuf, 0);
	close(fd);
	EXPECT_NE(0, unload());
	close(dmabuf);
	/* Still works, then unloads. */
	fd = open_retry();
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load());
}

TEST(close_with_jobs_in_flight_then_unload)
{
	int fd = open_retry();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_work(fd, 64));
	close(fd);
	/* The last jobs finish and the queues go before the module does. */
	ASSERT_EQ(0, unload_when_idle(60));
	ASSERT_EQ(0, load());
	fd = open_retry();
	ASSERT_GE(fd, 0);
	close(fd);
}

TEST(unload_reload_loop)
{
	for (int round = 0; round < 5; round++) {
		int fd = open_retry();
		int fd2 = open_retry();

		ASSERT_GE(fd, 0) TH_LOG("round %d", round);
		ASSERT_GE(fd2, 0);
		ASSERT_EQ(0, start_work(fd, 8));
		ASSERT_EQ(0, start_work(fd2, 8));
		close(fd2);
		close(fd);
		ASSERT_EQ(0, unload_when_idle(60)) TH_LOG("round %d", round);
		EXPECT_EQ(-ENOENT, gaccel_open_device() < 0 ? -ENOENT : 0);
		ASSERT_EQ(0, load()) TH_LOG("round %d", round);
	}
}

static int load_with(const char *params)
{
	int fd = open(KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int count_fault_files(void)
{
	glob_t g;
	int n = 0;

	if (glob("/sys/kernel/debug/accel/*/fault", 0, NULL, &g) == 0)
		n = (int)g.gl_pathc;
	globfree(&g);
	return n;
}

/* The fault injection file is a test knob: absent unless asked for. */
TEST(fault_injection_only_when_asked)
{
	int fd = open_retry();

	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load_with(""));
	fd = open_retry();
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(0, count_fault_files());
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load_with("fault_injection=1"));
	fd = open_retry();
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(1, count_fault_files());
}

TEST_HARNESS_MAIN
