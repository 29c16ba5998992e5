// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Faults, through the reference engine's debugfs fault injection: a failing
 * job, a hanging job cancelled by the job timeout (error on its fence, queue
 * marked, later jobs cancelled, other queues unaffected), repeated resets,
 * slow jobs against BO_WAIT deadlines.
 */
#include <glob.h>
#include <linux/sync_file.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#define N 64
#define TIMEOUT_PARAM "/sys/module/gaccel/parameters/job_timeout_ms"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

FIXTURE(fault) {
	int fd;
	char fault[256];
	uint32_t graph, bo[3];
	float *out;
};

static int add_graph(int fd, uint32_t *graph)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 },
					    { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, graph);
}

FIXTURE_SETUP(fault)
{
	glob_t g;
	float *p;

	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, glob("/sys/kernel/debug/accel/*/fault", 0, NULL, &g));
	ASSERT_EQ(1, g.gl_pathc);
	snprintf(self->fault, sizeof(self->fault), "%s", g.gl_pathv[0]);
	globfree(&g);
	ASSERT_EQ(0, write_file(self->fault, "none"));
	ASSERT_EQ(0, write_file(TIMEOUT_PARAM, "400"));
	ASSERT_EQ(0, add_graph(self->fd, &self->graph));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->bo[i]));
	for (int i = 0; i < 2; i++) {
		p = gaccel_bo_mmap(self->fd, self->bo[i], PROT_READ | PROT_WRITE);
		ASSERT_NE(MAP_FAILED, p);
		for (int j = 0; j < N; j++)
			p[j] = j * (i + 1);
		munmap(p, N * 4);
	}
	self->out = gaccel_bo_mmap(self->fd, self->bo[2], PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, self->out);
}

FIXTURE_TEARDOWN(fault)
{
	write_file(self->fault, "none");
	write_file(TIMEOUT_PARAM, "10000");
	munmap(self->out, N * 4);
	close(self->fd);
}

static int submit(FIXTURE_DATA(fault) *self, uint32_t queue, uint32_t signal)
{
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = self->bo[0] },
		{ .slot = 1, .handle = self->bo[1] },
		{ .slot = 2, .handle = self->bo[2] },
	};
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = signal };

	return gaccel_submit1(self->fd, queue, self->graph, b, 3, &s, signal ? 1 : 0);
}

/* Status of the syncobj's fence as a sync_file reports it. */
static int fence_status(int fd, uint32_t syncobj)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
	};
	struct sync_file_info info = { 0 };
	int ret;

	ret = gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
	if (ret)
		return 1000 + ret;
	ret = ioctl(h.fd, SYNC_IOC_FILE_INFO, &info);
	close(h.fd);
	return ret ? 2000 : info.status;
}

static int check_result(FIXTURE_DATA(fault) *self)
{
	for (int j = 0; j < N; j++)
		if (self->out[j] != 3.0f * j)
			return -1;
	return 0;
}

TEST_F(fault, failing_job)
{
	struct drm_gaccel_queue_get_state st;
	uint32_t q, so;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
	ASSERT_EQ(0, write_file(self->fault, "fail"));
	ASSERT_EQ(0, submit(self, q, so));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 5000000000ll));
	EXPECT_EQ(-EIO, fence_status(self->fd, so));
	ASSERT_EQ(0, gaccel_queue_state(self->fd, q, &st));
	EXPECT_EQ(DRM_GACCEL_QUEUE_STATE_FAULT, st.state);
	EXPECT_EQ(-EIO, st.last_error);
	EXPECT_EQ(1, st.failed);
	EXPECT_EQ(0, st.completed);

	/* The queue keeps working. */
	ASSERT_EQ(0, submit(self, q, so));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 5000000000ll));
	EXPECT_EQ(1, fence_status(self->fd, so));
	EXPECT_EQ(0, check_result(self));
	ASSERT_EQ(0, gaccel_queue_state(self->fd, q, &st));
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(2, st.submitted);
}

TEST_F(fault, hang_times_out_other_queues_carry_on)
{
	struct drm_gaccel_queue_get_state st;
	uint32_t qa, qb, sa, sb, sa2;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &qa));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &qb));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &sa));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &sa2));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &sb));
	ASSERT_EQ(0, write_file(self->fault, "hang"));
	ASSERT_EQ(0, submit(self, qa, sa));
	/* Queued behind the hanging job: cancelled with it. */
	ASSERT_EQ(0, submit(self, qa, sa2));
	/* Another queue runs meanwhile. */
	ASSERT_EQ(0, submit(self, qb, sb));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, sb, 0, 5000000000ll));
	EXPECT_EQ(1, fence_status(self->fd, sb));

	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, sa, 0, 10000000000ll));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, sa));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, sa2, 0, 10000000000ll));
	EXPECT_GT(0, fence_status(self->fd, sa2));

	ASSERT_EQ(0, gaccel_queue_state(self->fd, qa, &st));
	EXPECT_TRUE(st.state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT);
	EXPECT_EQ(1, st.timeouts);
	EXPECT_EQ(2, st.failed);
	EXPECT_EQ(-ECANCELED, st.last_error);
	/* A timed-out queue takes no more work. */
	EXPECT_EQ(-ECANCELED, submit(self, qa, 0));

	ASSERT_EQ(0, gaccel_queue_state(self->fd, qb, &st));
	EXPECT_EQ(0, st.state);
	EXPECT_EQ(1, st.completed);
	ASSERT_EQ(0, submit(self, qb, sb));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, sb, 0, 5000000000ll));
	EXPECT_EQ(0, check_result(self));
	EXPECT_EQ(0, gaccel_queue_destroy(self->fd, qa));
}

TEST_F(fault, repeated_resets)
{
	struct drm_gaccel_queue_get_state st;

	for (int i = 0; i < 4; i++) {
		uint32_t q, so;

		ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
		ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
		ASSERT_EQ(0, write_file(self->fault, "hang"));
		ASSERT_EQ(0, submit(self, q, so));
		ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 10000000000ll));
		EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, so));
		ASSERT_EQ(0, gaccel_queue_state(self->fd, q, &st));
		EXPECT_EQ(DRM_GACCEL_QUEUE_STATE_TIMEDOUT | DRM_GACCEL_QUEUE_STATE_FAULT, st.state);
		EXPECT_EQ(0, gaccel_queue_destroy(self->fd, q));
	}
	/* A fresh queue works after all that. */
	uint32_t q, so;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
	ASSERT_EQ(0, submit(self, q, so));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 5000000000ll));
	EXPECT_EQ(1, fence_status(self->fd, so));
	EXPECT_EQ(0, check_result(self));
}

TEST_F(fault, slow_job_and_bo_wait_deadline)
{
	uint32_t q;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, write_file(self->fault, "slow 200"));
	ASSERT_EQ(0, submit(self, q, 0));
	EXPECT_EQ(-ETIME, gaccel_bo_wait(self->fd, self->bo[2], 20000000ll));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 5000000000ll));
	EXPECT_EQ(0, check_result(self));
}

TEST_F(fault, close_file_with_a_hanging_job)
{
	uint32_t q, g, h[3];
	int fd = gaccel_open_device();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	ASSERT_EQ(0, add_graph(fd, &g));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_bo_create(fd, N * 4, 0, &h[i]));
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = h[0] }, { .slot = 1, .handle = h[1] },
		{ .slot = 2, .handle = h[2] },
	};
	ASSERT_EQ(0, write_file(self->fault, "hang"));
	ASSERT_EQ(0, gaccel_submit1(fd, q, g, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_submit1(fd, q, g, b, 3, NULL, 0));
	close(fd);
	/* Let the timeout cancel it before the next test changes the knobs. */
	usleep(1200 * 1000);
}

/* A counter of the engine_stats debugfs file, or -1. */
static long long engine_stat(const char *fault_path, const char *key)
{
	char path[300], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s", fault_path);
	strcpy(strrchr(path, '/'), "/engine_stats");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ')
			v = atoll(line + strlen(key) + 1);
	fclose(f);
	return v;
}

TEST_F(fault, engine_stats)
{
	long long jobs, failed, bytes, busy;
	uint32_t q, so;

	jobs = engine_stat(self->fault, "jobs");
	failed = engine_stat(self->fault, "failed");
	bytes = engine_stat(self->fault, "bytes");
	busy = engine_stat(self->fault, "busy_ns");
	ASSERT_GE(jobs, 0);
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
	ASSERT_EQ(0, submit(self, q, so));
	ASSERT_EQ(0, write_file(self->fault, "fail"));
	ASSERT_EQ(0, submit(self, q, so));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 5000000000ll));
	EXPECT_EQ(jobs + 2, engine_stat(self->fault, "jobs"));
	EXPECT_EQ(failed + 1, engine_stat(self->fault, "failed"));
	EXPECT_EQ(bytes + 2 * 3 * N * 4, engine_stat(self->fault, "bytes"));
	EXPECT_LT(busy, engine_stat(self->fault, "busy_ns"));
}

TEST_F(fault, bad_fault_commands)
{
	EXPECT_NE(0, write_file(self->fault, "explode"));
	EXPECT_NE(0, write_file(self->fault, "slow"));
	EXPECT_EQ(0, write_file(self->fault, "fail 2"));
	EXPECT_EQ(0, write_file(self->fault, "none"));
}

TEST_HARNESS_MAIN
