// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Lifetimes: rmmod is refused while files, exported dma-bufs or job fences
 * (in syncobjs, sync_files, objects) are alive; closing files with jobs in
 * flight and then unloading is clean once the jobs are done; an
 * unload/reload loop with work in every round; a sync_file outliving its
 * queue, its file and other users' queues stays readable; unbinding the
 * device does not wait for user work.
 */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"
#include "gaccel_job_test.h"

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

	if (gaccel_debugfs_glob("fault", &g) == 0)
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

/* A job signalling a syncobj: returns the syncobj, 0 on failure. */
static uint32_t one_job(int fd, uint32_t q)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);
	struct drm_gaccel_binding b[3] = { { .slot = 0 }, { .slot = 1 }, { .slot = 2 } };
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	uint32_t g;

	if (gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, &g) ||
	    gaccel_syncobj_create(fd, &s.handle))
		return 0;
	for (int i = 0; i < 3; i++)
		if (gaccel_bo_create(fd, N * 4, 0, &b[i].handle))
			return 0;
	if (gaccel_submit1(fd, q, g, b, 3, &s, 1))
		return 0;
	return s.handle;
}

static void expect_job_fence(struct __test_metadata *_metadata, int sf, int status)
{
	struct gaccel_sf_info info;

	ASSERT_EQ(0, gaccel_sync_file_info(sf, &info));
	EXPECT_EQ(status, info.status);
	/* The job's own fence: its names do not live in queue memory. */
	EXPECT_STREQ("gaccel", info.driver);
	EXPECT_STREQ("gaccel-queue", info.timeline);
}

/*
 * A job's fence exported as a sync_file stays readable after its queue is
 * destroyed, its file closed and the freed memory reused by other queues
 * (drm_sched's fences read their timeline name from the scheduler, which
 * used to be freed with the queue), and pins the module until closed.
 */
TEST(sync_file_outlives_queue_and_file)
{
	uint32_t q, so;
	int fd, sf;

	fd = open_retry();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	so = one_job(fd, q);
	ASSERT_NE(0, so);
	ASSERT_EQ(0, gaccel_syncobj_wait(fd, so, 0, 10000000000ll));
	sf = gaccel_export_sync_file(fd, so);
	ASSERT_GE(sf, 0);
	expect_job_fence(_metadata, sf, 1);

	ASSERT_EQ(0, gaccel_queue_destroy(fd, q));
	expect_job_fence(_metadata, sf, 1);
	close(fd);
	expect_job_fence(_metadata, sf, 1);

	/* Recycle the memory the queue and its file had. */
	for (int round = 0; round < 20; round++) {
		uint32_t qs[16];
		int f = open_retry();

		ASSERT_GE(f, 0);
		for (int i = 0; i < 16; i++)
			ASSERT_EQ(0, gaccel_queue_create(f, &qs[i]));
		for (int i = 0; i < 16; i++)
			ASSERT_EQ(0, gaccel_queue_destroy(f, qs[i]));
		close(f);
	}
	expect_job_fence(_metadata, sf, 1);

	/* The fence holds the module; it goes once the sync_file does. */
	EXPECT_NE(0, unload_when_idle(1));
	expect_job_fence(_metadata, sf, 1);
	close(sf);
	ASSERT_EQ(0, unload_when_idle(30));
	ASSERT_EQ(0, load_with("fault_injection=1"));
}

static int fault_file(char *path, size_t size)
{
	glob_t g;
	int ret = -ENOENT;

	if (gaccel_debugfs_glob("fault", &g) == 0 && g.gl_pathc == 1) {
		snprintf(path, size, "%s", g.gl_pathv[0]);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

static int unbind_child(void *arg)
{
	return gaccel_write_file(arg, "gaccel") ? 1 : 0;
}

/*
 * Unbinding the device while a job hangs (its timeout a minute away) and
 * another waits behind it returns at once: the running job is cancelled,
 * the queued one skipped, both fences signal with an error, the open file
 * gets -ENODEV, and the device comes back on bind.
 */
TEST(unbind_does_not_wait_for_user_work)
{
	const char *drv = "/sys/bus/platform/drivers/gaccel";
	char fault[256], unbind[128], bind[128];
	struct gaccel_sf_info info;
	uint32_t q, sa, sb;
	int fd, sfa, sfb;
	double t0;

	snprintf(unbind, sizeof(unbind), "%s/unbind", drv);
	snprintf(bind, sizeof(bind), "%s/bind", drv);
	fd = open_retry();
	ASSERT_GE(fd, 0);
	if (fault_file(fault, sizeof(fault))) {
		close(fd);
		ASSERT_EQ(0, unload_when_idle(30));
		ASSERT_EQ(0, load_with("fault_injection=1"));
		fd = open_retry();
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, fault_file(fault, sizeof(fault)));
	}
	ASSERT_EQ(0, gaccel_param_set("job_timeout_ms", 60000));
	ASSERT_EQ(0, gaccel_write_file(fault, "hang"));
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	sa = one_job(fd, q);
	sb = one_job(fd, q);
	ASSERT_NE(0, sa);
	ASSERT_NE(0, sb);
	sfa = gaccel_export_sync_file(fd, sa);
	sfb = gaccel_export_sync_file(fd, sb);
	ASSERT_GE(sfa, 0);
	ASSERT_GE(sfb, 0);
	usleep(200 * 1000);
	ASSERT_EQ(0, gaccel_sync_file_wait(sfa, 0));

	/* In a child: if unbind waited for the job, the test would hang. */
	t0 = gaccel_now_ms();
	ASSERT_EQ(0, gaccel_run_child(unbind_child, unbind, 0));
	TH_LOG("unbind took %.0f ms with a job hanging", gaccel_now_ms() - t0);
	EXPECT_EQ(1, gaccel_sync_file_wait(sfa, 20000));
	EXPECT_EQ(1, gaccel_sync_file_wait(sfb, 20000));
	ASSERT_EQ(0, gaccel_sync_file_info(sfa, &info));
	EXPECT_GT(0, info.status);
	ASSERT_EQ(0, gaccel_sync_file_info(sfb, &info));
	EXPECT_GT(0, info.status);
	EXPECT_EQ(-ENODEV, gaccel_queue_create(fd, &q));
	close(sfa);
	close(sfb);
	close(fd);

	ASSERT_EQ(0, gaccel_write_file(bind, "gaccel"));
	fd = open_retry();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, fault_file(fault, sizeof(fault)));
	gaccel_write_file(fault, "none");
	ASSERT_EQ(0, gaccel_param_set("job_timeout_ms", 10000));
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	sa = one_job(fd, q);
	ASSERT_NE(0, sa);
	ASSERT_EQ(0, gaccel_syncobj_wait(fd, sa, 0, 10000000000ll));
	close(fd);
}

GACCEL_TEST_HARNESS_MAIN
