// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Faults, through the reference engine's debugfs fault injection: a failing
 * job, a hanging job cancelled by the job timeout (error on its fence, queue
 * marked, later jobs cancelled, other queues unaffected), repeated resets,
 * slow jobs against BO_WAIT deadlines, errors passed on to the jobs
 * waiting for a failed one, a hang while other queues keep the
 * engine busy, jobs finishing right as their timeout fires, priorities,
 * and the per-queue and per-file limits of jobs in flight.
 */
#include <glob.h>
#include <linux/sync_file.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"
#include "gaccel_job_test.h"

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
	char timeout[16];
	glob_t g;
	float *p;

	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, gaccel_debugfs_glob("fault", &g));
	ASSERT_EQ(1, g.gl_pathc);
	snprintf(self->fault, sizeof(self->fault), "%s", g.gl_pathv[0]);
	globfree(&g);
	ASSERT_EQ(0, write_file(self->fault, "none"));
	/* 400 ms, longer on the debug kernels (streamed jobs are slower). */
	snprintf(timeout, sizeof(timeout), "%d", 400 * gaccel_test_timeout_scale());
	ASSERT_EQ(0, write_file(TIMEOUT_PARAM, timeout));
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

/* submit(), waiting for @wait's fence first. */
static int submit_wait(FIXTURE_DATA(fault) *self, uint32_t queue, uint32_t wait,
		       uint32_t signal)
{
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = self->bo[0] },
		{ .slot = 1, .handle = self->bo[1] },
		{ .slot = 2, .handle = self->bo[2] },
	};
	struct drm_gaccel_sync s[2] = {
		{ .handle = wait },
		{ .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = signal },
	};

	return gaccel_submit1(self->fd, queue, self->graph, b, 3, s, 2);
}

/*
 * A job whose explicit wait (a syncobj) signalled with an error fails with
 * that error and does not run, whether the failure came while it waited
 * (through the scheduler) or before it was submitted (SUBMIT runs it
 * itself), and passes the error on to the jobs waiting for it. Jobs that
 * only share objects with the failed one run: implicit dependencies do not
 * pass errors on.
 */
TEST_F(fault, failed_wait_fails_dependents)
{
	struct drm_gaccel_queue_get_state st;
	uint32_t q1, q2, so_a, so_b, so_c, so_d;

	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q1));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q2));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so_a));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so_b));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so_c));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so_d));
	for (int j = 0; j < N; j++)
		self->out[j] = -1.0f;

	/* A hangs until the job timeout (400 ms) cancels it; B waits for A. */
	ASSERT_EQ(0, write_file(self->fault, "hang"));
	ASSERT_EQ(0, submit(self, q1, so_a));
	ASSERT_EQ(0, submit_wait(self, q2, so_a, so_b));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_b, 0, 5000000000ll));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, so_a));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, so_b));
	/* C waits for B, failed already: SUBMIT's own path. */
	ASSERT_EQ(0, submit_wait(self, q2, so_b, so_c));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_c, 0, 5000000000ll));
	EXPECT_EQ(-ETIMEDOUT, fence_status(self->fd, so_c));
	for (int j = 0; j < N; j++) {
		ASSERT_EQ(-1.0f, self->out[j]) TH_LOG("element %d written", j);
	}
	ASSERT_EQ(0, gaccel_queue_state(self->fd, q2, &st));
	EXPECT_EQ(2, st.failed);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, st.timeouts);
	EXPECT_EQ(-ETIMEDOUT, st.last_error);

	/* D shares the objects only: it runs. */
	ASSERT_EQ(0, submit(self, q2, so_d));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_d, 0, 5000000000ll));
	EXPECT_EQ(1, fence_status(self->fd, so_d));
	EXPECT_EQ(0, check_result(self));

	/* An -EIO passes on the same way, through a queue of its own. */
	for (int j = 0; j < N; j++)
		self->out[j] = -1.0f;
	ASSERT_EQ(0, write_file(self->fault, "fail"));
	ASSERT_EQ(0, submit(self, q2, so_a));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_a, 0, 5000000000ll));
	EXPECT_EQ(-EIO, fence_status(self->fd, so_a));
	ASSERT_EQ(0, submit_wait(self, q2, so_a, so_b));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_b, 0, 5000000000ll));
	EXPECT_EQ(-EIO, fence_status(self->fd, so_b));
	EXPECT_EQ(-1.0f, self->out[1]);

	/* And through a timeline point. */
	{
		struct drm_gaccel_binding b[3] = {
			{ .slot = 0, .handle = self->bo[0] },
			{ .slot = 1, .handle = self->bo[1] },
			{ .slot = 2, .handle = self->bo[2] },
		};
		struct drm_gaccel_sync sig = {
			DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE, so_c, 7,
		};
		struct drm_gaccel_sync w[2] = {
			{ DRM_GACCEL_SYNC_TIMELINE, so_c, 7 },
			{ DRM_GACCEL_SYNC_SIGNAL, so_d, 0 },
		};
		uint32_t q3;

		ASSERT_EQ(0, gaccel_queue_create(self->fd, &q3));
		ASSERT_EQ(0, write_file(self->fault, "fail"));
		ASSERT_EQ(0, gaccel_submit1(self->fd, q3, self->graph, b, 3, &sig, 1));
		ASSERT_EQ(0, gaccel_submit1(self->fd, q2, self->graph, b, 3, w, 2));
		ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so_d, 0, 5000000000ll));
		EXPECT_EQ(-EIO, fence_status(self->fd, so_d));
		EXPECT_EQ(-1.0f, self->out[1]);
		gaccel_queue_destroy(self->fd, q3);
	}
	gaccel_queue_destroy(self->fd, q1);
	gaccel_queue_destroy(self->fd, q2);
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
	usleep(1200 * 1000 * gaccel_test_timeout_scale());
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

/* --- the scheduler under faults -------------------------------------------- */

/* Elements of a job long enough to go through the scheduler. */
#define BIG (128 * 1024)

/* A file with an ADD graph over three objects of @n floats. */
struct ctx {
	int fd;
	uint32_t graph, bo[3];
};

static int ctx_open(struct ctx *c, uint64_t n)
{
	struct drm_gaccel_slot slots[3] = { { .size = n * 4 }, { .size = n * 4 },
					    { .size = n * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
	};
	struct drm_gaccel_node nd = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	c->fd = gaccel_open_device();
	if (c->fd < 0)
		return c->fd;
	for (int i = 0; i < 3; i++)
		if (gaccel_bo_create(c->fd, n * 4, 0, &c->bo[i]))
			return -1;
	return gaccel_graph_create(c->fd, slots, 3, t, 3, &nd, 1, &c->graph);
}

/* Submit one job on @q signalling @so (if not 0), writing object @out. */
static int ctx_submit(struct ctx *c, uint32_t q, uint32_t so, uint32_t out)
{
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = c->bo[0] },
		{ .slot = 1, .handle = c->bo[1] },
		{ .slot = 2, .handle = out ? out : c->bo[2] },
	};
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };

	return gaccel_submit1(c->fd, q, c->graph, b, 3, &s, so ? 1 : 0);
}

/* One job, no retry on EAGAIN (the test helpers retry, as libdrm does). */
static int ctx_submit_raw(struct ctx *c, uint32_t q)
{
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = c->bo[0] },
		{ .slot = 1, .handle = c->bo[1] },
		{ .slot = 2, .handle = c->bo[2] },
	};
	struct drm_gaccel_job job = {
		.graph = c->graph,
		.bindings = { sizeof(b[0]), 3, (uintptr_t)b },
	};
	struct drm_gaccel_submit sub = {
		.queue = q,
		.jobs = { sizeof(job), 1, (uintptr_t)&job },
	};

	return ioctl(c->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub) ? -errno : 0;
}

static int queue_create_prio(int fd, uint32_t prio, uint32_t *q)
{
	struct drm_gaccel_queue_create c = { .priority = prio };
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c);

	*q = c.handle;
	return ret;
}

/* The signalled fence of a syncobj: status and timestamp, via a sync_file. */
static int syncobj_fence(int fd, uint32_t so, struct gaccel_sf_info *info)
{
	int sf = gaccel_export_sync_file(fd, so), ret;

	if (sf < 0)
		return sf;
	ret = gaccel_sync_file_info(sf, info);
	close(sf);
	return ret;
}

/* A counter of the fault file ("hang N"), or -1. */
static int fault_count(const char *path, const char *key)
{
	char line[64];
	int v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ')
			v = atoi(line + strlen(key) + 1);
	fclose(f);
	return v;
}

struct streamer {
	struct ctx c;
	atomic_int *stop;
	int done, failed;
};

/* Jobs through the scheduler, one after the other, until told to stop. */
static void *stream(void *arg)
{
	struct streamer *st = arg;
	uint32_t q, so;

	if (gaccel_queue_create(st->c.fd, &q) || gaccel_syncobj_create(st->c.fd, &so)) {
		st->failed++;
		return NULL;
	}
	while (!atomic_load(st->stop)) {
		struct gaccel_sf_info info;

		if (ctx_submit(&st->c, q, so, 0) ||
		    gaccel_syncobj_wait(st->c.fd, so, 0, 20000000000ll) ||
		    syncobj_fence(st->c.fd, so, &info) || info.status != 1)
			st->failed++;
		else
			st->done++;
	}
	return NULL;
}

/*
 * A job hangs while other clients keep every engine worker busy with a
 * stream of jobs: the hang still times out within its own job timeout
 * (jobs starting on other queues do not push its timer back), and every
 * streamed job completes.
 */
TEST_F(fault, hang_times_out_while_others_stream)
{
	enum { S = 4 };
	struct streamer st[S];
	pthread_t th[S];
	atomic_int stop = 0;
	struct gaccel_sf_info info;
	struct ctx c;
	uint32_t q, so;
	int done = 0;

	/* Our job takes the injected hang before the others start. */
	ASSERT_EQ(0, ctx_open(&c, N));
	ASSERT_EQ(0, gaccel_queue_create(c.fd, &q));
	ASSERT_EQ(0, gaccel_syncobj_create(c.fd, &so));
	ASSERT_EQ(0, write_file(self->fault, "hang"));
	ASSERT_EQ(0, ctx_submit(&c, q, so, 0));
	for (int t = 0; t < 500 && fault_count(self->fault, "hang"); t++)
		usleep(10000);
	ASSERT_EQ(0, fault_count(self->fault, "hang"));
	for (int i = 0; i < S; i++) {
		st[i] = (struct streamer){ .stop = &stop };
		ASSERT_EQ(0, ctx_open(&st[i].c, BIG));
		ASSERT_EQ(0, pthread_create(&th[i], NULL, stream, &st[i]));
	}
	/* The timeout is 400 ms (scaled); under load allow plenty more. */
	ASSERT_EQ(0, gaccel_syncobj_wait(c.fd, so, 0, 20000000000ll));
	atomic_store(&stop, 1);
	for (int i = 0; i < S; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, st[i].failed);
		done += st[i].done;
		close(st[i].c.fd);
	}
	ASSERT_EQ(0, syncobj_fence(c.fd, so, &info));
	EXPECT_EQ(-ETIMEDOUT, info.status);
	TH_LOG("%d jobs of %d other queues completed during the hang", done, S);
	EXPECT_LT(S, done);
	close(c.fd);
}

/* The module's reference count once fences freed by earlier tests are gone. */
static long long settled_refcnt(void)
{
	long long n = gaccel_module_refcnt(), prev;

	do {
		prev = n;
		usleep(300 * 1000);
		n = gaccel_module_refcnt();
	} while (n != prev);
	return n;
}

struct edge {
	int id, ms, n;
	int ok, timedout, bad;
	int fd;
};

/* Jobs taking about as long as the job timeout, on queues of their own. */
static void *edge_worker(void *arg)
{
	struct edge *e = arg;
	struct ctx c;
	uint32_t q = 0, so;

	if (ctx_open(&c, N) || gaccel_syncobj_create(c.fd, &so)) {
		e->bad++;
		return NULL;
	}
	for (int i = 0; i < e->n; i++) {
		struct gaccel_sf_info info;
		int ret;

		if (!q && gaccel_queue_create(c.fd, &q)) {
			e->bad++;
			break;
		}
		ret = ctx_submit(&c, q, so, 0);
		if (ret == -ECANCELED) {	/* timed out meanwhile: a new queue */
			gaccel_queue_destroy(c.fd, q);
			q = 0;
			i--;
			continue;
		}
		if (ret || gaccel_syncobj_wait(c.fd, so, 0, 20000000000ll) ||
		    syncobj_fence(c.fd, so, &info)) {
			e->bad++;
			continue;
		}
		if (info.status == 1)
			e->ok++;
		else if (info.status == -ETIMEDOUT)
			e->timedout++;
		else
			e->bad++;
	}
	close(c.fd);
	return NULL;
}

/*
 * Jobs that finish right around their timeout: each is reported finished
 * or timed out, none is lost, leaked or freed twice (after the files
 * close, the module's reference count comes back: every fence was freed).
 */
TEST_F(fault, jobs_finishing_as_the_timeout_fires)
{
	enum { W = 3, J = 6, R = 6 };
	struct edge e[W];
	pthread_t th[W];
	long long base = settled_refcnt();
	int ok = 0, timedout = 0;
	char cmd[32];

	ASSERT_LT(0, base);
	ASSERT_EQ(0, write_file(TIMEOUT_PARAM, "100"));
	for (int round = 0; round < R; round++) {
		/* Around the 100 ms timeout, from clearly below to above. */
		static const int ms[R] = { 30, 50, 70, 85, 100, 130 };

		snprintf(cmd, sizeof(cmd), "slow %d", ms[round]);
		ASSERT_EQ(0, write_file(self->fault, cmd));
		for (int i = 0; i < W; i++) {
			e[i] = (struct edge){ .id = i, .n = J };
			ASSERT_EQ(0, pthread_create(&th[i], NULL, edge_worker, &e[i]));
		}
		for (int i = 0; i < W; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(0, e[i].bad);
			ok += e[i].ok;
			timedout += e[i].timedout;
		}
	}
	TH_LOG("%d jobs finished, %d timed out", ok, timedout);
	EXPECT_EQ(R * W * J, ok + timedout);
	ASSERT_EQ(0, write_file(self->fault, "none"));
	EXPECT_GE(base, gaccel_wait_refcnt(base, 30));
}

/*
 * Priorities are run queues served high first: behind four clients
 * flooding the engine with NORMAL jobs, a HIGH job submitted last runs
 * first, a NORMAL one gets its turn before the flood is over, and a LOW
 * one (submitted first) starts once no NORMAL job is left waiting: at
 * most the flood jobs already running on the other workers end after it.
 */
TEST_F(fault, priorities)
{
	enum { F = 4, J = 6 };
	struct gaccel_sf_info hi, no, lo, fl;
	uint32_t fq[F], fso[F][J], q[3], so[3];
	struct ctx flood[F], late[3];
	struct drm_gaccel_device_info dinfo;
	uint64_t flood_end = 0;
	int after_low = 0;

	ASSERT_EQ(0, write_file(self->fault, "slow 60"));
	struct drm_gaccel_query dq = { .type = DRM_GACCEL_QUERY_DEVICE_INFO,
				       .size = sizeof(dinfo), .pointer = (uintptr_t)&dinfo };

	memset(&dinfo, 0, sizeof(dinfo));
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUERY, &dq));
	for (int i = 0; i < F; i++) {
		ASSERT_EQ(0, ctx_open(&flood[i], N));
		ASSERT_EQ(0, gaccel_queue_create(flood[i].fd, &fq[i]));
		for (int j = 0; j < J; j++)
			ASSERT_EQ(0, gaccel_syncobj_create(flood[i].fd, &fso[i][j]));
	}
	for (int j = 0; j < J; j++)
		for (int i = 0; i < F; i++)
			ASSERT_EQ(0, ctx_submit(&flood[i], fq[i], fso[i][j], 0));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ctx_open(&late[i], N));
		ASSERT_EQ(0, gaccel_syncobj_create(late[i].fd, &so[i]));
		ASSERT_EQ(0, queue_create_prio(late[i].fd, DRM_GACCEL_QUEUE_PRIORITY_LOW + i, &q[i]));
	}
	/* LOW first, HIGH last. */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ctx_submit(&late[i], q[i], so[i], 0));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_syncobj_wait(late[i].fd, so[i], 0, 30000000000ll));
	ASSERT_EQ(0, syncobj_fence(late[0].fd, so[0], &lo));
	for (int i = 0; i < F; i++) {
		for (int j = 0; j < J; j++) {
			ASSERT_EQ(0, gaccel_syncobj_wait(flood[i].fd, fso[i][j], 0, 30000000000ll));
			ASSERT_EQ(0, syncobj_fence(flood[i].fd, fso[i][j], &fl));
			if (fl.timestamp_ns > flood_end)
				flood_end = fl.timestamp_ns;
			after_low += fl.timestamp_ns > lo.timestamp_ns;
		}
	}
	ASSERT_EQ(0, syncobj_fence(late[1].fd, so[1], &no));
	ASSERT_EQ(0, syncobj_fence(late[2].fd, so[2], &hi));
	EXPECT_EQ(1, lo.status);
	EXPECT_EQ(1, no.status);
	EXPECT_EQ(1, hi.status);
	EXPECT_LT(hi.timestamp_ns, no.timestamp_ns);
	EXPECT_LT(no.timestamp_ns, flood_end);
	EXPECT_GT((int)dinfo.num_workers, after_low);
	TH_LOG("after HIGH: NORMAL %+.0f ms, end of the flood %+.0f ms, LOW %+.0f ms; flood jobs ending after LOW: %d (%u workers)",
	       ((double)no.timestamp_ns - hi.timestamp_ns) / 1e6,
	       ((double)flood_end - hi.timestamp_ns) / 1e6,
	       ((double)lo.timestamp_ns - hi.timestamp_ns) / 1e6, after_low, dinfo.num_workers);
	for (int i = 0; i < F; i++)
		close(flood[i].fd);
	for (int i = 0; i < 3; i++)
		close(late[i].fd);
}

/* Jobs in flight are bounded per queue and per file: -EAGAIN past them. */
TEST_F(fault, in_flight_limits)
{
	long long qjobs = gaccel_param_get("max_queue_jobs");
	long long fjobs = gaccel_param_get("max_jobs");
	uint32_t q1, q2;
	struct ctx c;

	ASSERT_LT(0, qjobs);
	ASSERT_LT(0, fjobs);
	ASSERT_EQ(0, gaccel_param_set("max_queue_jobs", 8));
	ASSERT_EQ(0, gaccel_param_set("max_jobs", 12));
	ASSERT_EQ(0, ctx_open(&c, N));
	ASSERT_EQ(0, gaccel_queue_create(c.fd, &q1));
	ASSERT_EQ(0, gaccel_queue_create(c.fd, &q2));
	ASSERT_EQ(0, write_file(self->fault, "slow 100"));
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0, ctx_submit_raw(&c, q1));
	EXPECT_EQ(-EAGAIN, ctx_submit_raw(&c, q1));
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, ctx_submit_raw(&c, q2));
	EXPECT_EQ(-EAGAIN, ctx_submit_raw(&c, q2));
	ASSERT_EQ(0, write_file(self->fault, "none"));
	/* Once they are done (freed just after), there is room again. */
	ASSERT_EQ(0, gaccel_bo_wait(c.fd, c.bo[2], 30000000000ll));
	for (int t = 0; t < 100 && ctx_submit_raw(&c, q1) == -EAGAIN; t++)
		usleep(20000);
	EXPECT_EQ(0, ctx_submit_raw(&c, q2));
	ASSERT_EQ(0, gaccel_bo_wait(c.fd, c.bo[2], 30000000000ll));
	gaccel_param_set("max_queue_jobs", qjobs);
	gaccel_param_set("max_jobs", fjobs);
	close(c.fd);
}

GACCEL_TEST_HARNESS_MAIN
