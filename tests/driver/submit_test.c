// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Queues and SUBMIT: results, syncobj waits and signals (binary and
 * timeline), BO_WAIT, implicit fences, bad handles and bindings, many jobs
 * and objects, one object in many slots, lifetimes of queues, graphs and
 * files with jobs in flight, HIGH priority for CAP_SYS_NICE only, and the
 * per-client engine time in fdinfo.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"
#include "gaccel_job_test.h"

#define N 256

FIXTURE(submit) {
	int fd;
	uint32_t queue, graph;
	uint32_t bo[3];
	float *p[3];
};

/* Graph: slot 2 = slot 0 + slot 1, N floats each. */
static int add_graph(int fd, uint32_t *graph)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, graph);
}

static void bind3(struct drm_gaccel_binding *b, uint32_t h0, uint32_t h1, uint32_t h2)
{
	memset(b, 0, 3 * sizeof(*b));
	b[0].slot = 0;
	b[0].handle = h0;
	b[1].slot = 1;
	b[1].handle = h1;
	b[2].slot = 2;
	b[2].handle = h2;
}

FIXTURE_SETUP(submit)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &self->queue));
	ASSERT_EQ(0, add_graph(self->fd, &self->graph));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->bo[i]));
		self->p[i] = gaccel_bo_mmap(self->fd, self->bo[i], PROT_READ | PROT_WRITE);
		ASSERT_NE(MAP_FAILED, self->p[i]);
	}
	for (int j = 0; j < N; j++) {
		self->p[0][j] = j;
		self->p[1][j] = 0.5f * j + 1;
	}
}

FIXTURE_TEARDOWN(submit)
{
	for (int i = 0; i < 3; i++)
		munmap(self->p[i], N * 4);
	close(self->fd);
}

static void check_sum(struct __test_metadata *_metadata, const float *c, float times)
{
	for (int j = 0; j < N; j++) {
		ASSERT_EQ(j + times * (0.5f * j + 1), c[j]) {
			TH_LOG("element %d", j);
		}
	}
}

TEST_F(submit, add_with_binary_syncobj)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	struct drm_gaccel_queue_get_state st;

	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &s.handle));
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, s.handle, 0, 5000000000ll));
	check_sum(_metadata, self->p[2], 1);
	ASSERT_EQ(0, gaccel_queue_state(self->fd, self->queue, &st));
	EXPECT_EQ(0, st.state);
	EXPECT_EQ(1, st.submitted);
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, st.failed);
}

TEST_F(submit, bo_wait)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_bo_wait w = { .handle = self->bo[2], .flags = 1 };

	/* An idle object: even a deadline in the past succeeds. */
	EXPECT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], -1000000000ll));
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 5000000000ll));
	check_sum(_metadata, self->p[2], 1);
	/* Readers are waited for too. */
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[0], 5000000000ll));

	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_WAIT, &w));
	EXPECT_EQ(-ENOENT, gaccel_bo_wait(self->fd, 9999, 0));
}

TEST_F(submit, implicit_fences_order_jobs_across_queues)
{
	struct drm_gaccel_binding b[3];
	uint32_t q2;

	/* Job 1 on queue 1: c = a + b. Job 2 on queue 2: c = c + b. */
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q2));
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	bind3(b, self->bo[2], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, q2, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 5000000000ll));
	check_sum(_metadata, self->p[2], 2);
}

TEST_F(submit, timeline_points)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_sync s[2];
	uint32_t tl;

	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &tl));
	/* Job 1 signals point 1; job 2 waits for it and signals point 2. */
	s[0] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE, tl, 1 };
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, s, 1));
	s[0] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_TIMELINE, tl, 1 };
	s[1] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE, tl, 2 };
	bind3(b, self->bo[2], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, s, 2));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, tl, 2, 5000000000ll));
	check_sum(_metadata, self->p[2], 2);

	/* A point nobody will signal cannot be waited for at submit time. */
	s[0] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_TIMELINE, tl, 10 };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, s, 1));
	/* Userspace can wait for it to be submitted; that times out. */
	{
		uint64_t point = 10;
		struct timespec ts;
		struct drm_syncobj_timeline_wait w = {
			.handles = (uintptr_t)&tl, .points = (uintptr_t)&point,
			.count_handles = 1,
			.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
		};

		clock_gettime(CLOCK_MONOTONIC, &ts);
		w.timeout_nsec = ts.tv_sec * 1000000000ll + ts.tv_nsec + 100000000ll;
		EXPECT_EQ(-ETIME, gaccel_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	}
}

TEST_F(submit, same_syncobj_in_and_out)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_sync s[2];
	uint32_t so;

	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
	s[0] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL, so, 0 };
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, s, 1));
	s[0] = (struct drm_gaccel_sync){ 0, so, 0 };
	s[1] = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL, so, 0 };
	bind3(b, self->bo[2], self->bo[1], self->bo[2]);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, s, 2));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, so, 0, 5000000000ll));
	check_sum(_metadata, self->p[2], 4);
}

TEST_F(submit, bad_sync_ops)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_sync s;
	uint32_t so;

	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &so));
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	/* Unknown flags; a point on a binary syncobj; point 0 on a timeline. */
	s = (struct drm_gaccel_sync){ 0x4, so, 0 };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	s = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL, so, 5 };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	s = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_TIMELINE | DRM_GACCEL_SYNC_SIGNAL, so, 0 };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	/* Waiting on a syncobj without a fence. */
	s = (struct drm_gaccel_sync){ 0, so, 0 };
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	/* Unknown syncobjs. */
	s = (struct drm_gaccel_sync){ 0, 4321, 0 };
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	s = (struct drm_gaccel_sync){ DRM_GACCEL_SYNC_SIGNAL, 4321, 0 };
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
}

TEST_F(submit, bad_handles)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_queue_get_state st;

	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, 0, self->graph, b, 3, NULL, 0));
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, 777, self->graph, b, 3, NULL, 0));
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, 0, b, 3, NULL, 0));
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, 777, b, 3, NULL, 0));
	bind3(b, self->bo[0], 777, self->bo[2]);
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_queue_state(self->fd, self->queue, &st));
	EXPECT_EQ(0, st.submitted);
}

TEST_F(submit, bad_bindings)
{
	struct drm_gaccel_binding b[3];
	uint32_t big;

	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 2, NULL, 0));
	b[1].slot = 0;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].slot = 3;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].slot = 1;
	b[1].flags = 1;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].flags = 0;
	b[1].pad = 1;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].pad = 0;
	/* Smaller than the slot; past the end of the object; overflowing. */
	b[1].size = N * 4 - 4;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].size = 0;
	b[1].offset = 4096 - N * 4 + 4;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	b[1].offset = UINT64_MAX - 8;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	/* A range inside a bigger object is fine. */
	ASSERT_EQ(0, gaccel_bo_create(self->fd, 3 * N * 4, 0, &big));
	b[1].handle = big;
	b[1].offset = N * 4;
	b[1].size = N * 4;
	EXPECT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	EXPECT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 5000000000ll));
}

TEST_F(submit, read_only_userptr)
{
	struct drm_gaccel_binding b[3];
	size_t size = 4096;
	float *ro = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	float *rw = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t hro, hrw;

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, rw);
	for (int j = 0; j < N; j++)
		ro[j] = 2 * j;
	ASSERT_EQ(0, gaccel_userptr(self->fd, ro, size, DRM_GACCEL_BO_READ_ONLY, &hro));
	ASSERT_EQ(0, gaccel_userptr(self->fd, rw, size, 0, &hrw));
	/* Written slot on a read-only object. */
	bind3(b, self->bo[0], self->bo[1], hro);
	EXPECT_EQ(-EACCES, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	/* Zero copy both ways: read from one user mapping, write into another. */
	bind3(b, hro, self->bo[1], hrw);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, hrw, 5000000000ll));
	for (int j = 0; j < N; j++)
		ASSERT_EQ(2 * j + 0.5f * j + 1, rw[j]);
	munmap(ro, size);
	munmap(rw, size);
}

TEST_F(submit, many_jobs)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_job jobs[16];
	struct drm_gaccel_submit sub = {
		.queue = self->queue,
		.jobs = { sizeof(jobs[0]), 16, (uintptr_t)jobs },
	};

	/* c = a + b, then 199 times c = c + b, one job per submit. */
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	bind3(b, self->bo[2], self->bo[1], self->bo[2]);
	for (int i = 1; i < 200; i++)
		ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 30000000000ll));
	check_sum(_metadata, self->p[2], 200);

	/* 16 jobs in one submit, 4 times. */
	for (int i = 0; i < 16; i++)
		jobs[i] = (struct drm_gaccel_job){ .graph = self->graph,
						   .bindings = { sizeof(b[0]), 3, (uintptr_t)b } };
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 30000000000ll));
	check_sum(_metadata, self->p[2], 264);

	/* One bad job refuses the whole submit. */
	jobs[7].graph = 999;
	EXPECT_EQ(-ENOENT, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 30000000000ll));
	check_sum(_metadata, self->p[2], 264);
}

TEST_F(submit, many_objects)
{
	enum { S = 64 };
	struct drm_gaccel_slot slots[S];
	struct drm_gaccel_tensor t[S];
	struct drm_gaccel_node n[S - 1];
	struct drm_gaccel_binding b[S];
	uint32_t h[S], g;
	float *out;

	/* t[i+1] = t[i] + t[0] over 64 objects: t[63] = 64 * t[0]. */
	for (int i = 0; i < S; i++) {
		slots[i] = (struct drm_gaccel_slot){ .size = N * 4 };
		t[i] = gaccel_tensor(i, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1);
		ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &h[i]));
		b[i] = (struct drm_gaccel_binding){ .slot = i, .handle = h[i] };
	}
	for (int i = 0; i < S - 1; i++)
		n[i] = gaccel_node(DRM_GACCEL_OP_ADD, i + 1, i, 0, GACCEL_NONE);
	ASSERT_EQ(0, gaccel_graph_create(self->fd, slots, S, t, S, n, S - 1, &g));
	/* Slot 0 comes from the fixture's first object. */
	b[0].handle = self->bo[0];
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, g, b, S, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, h[S - 1], 10000000000ll));
	out = gaccel_bo_mmap(self->fd, h[S - 1], PROT_READ);
	ASSERT_NE(MAP_FAILED, out);
	for (int j = 0; j < N; j++)
		ASSERT_EQ(64.0f * j, out[j]);
	munmap(out, N * 4);
}

TEST_F(submit, destroy_while_in_use)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };

	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &s.handle));
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, &s, 1));
	/* Graph, queue and input objects go while jobs are queued. */
	EXPECT_EQ(0, gaccel_graph_destroy(self->fd, self->graph));
	EXPECT_EQ(0, gaccel_queue_destroy(self->fd, self->queue));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, self->bo[0]));
	EXPECT_EQ(0, gaccel_gem_close(self->fd, self->bo[1]));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, s.handle, 0, 10000000000ll));
	check_sum(_metadata, self->p[2], 1);
	/* The handles are gone. */
	EXPECT_EQ(-ENOENT, gaccel_graph_destroy(self->fd, self->graph));
	EXPECT_EQ(-ENOENT, gaccel_queue_destroy(self->fd, self->queue));
	EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
}

TEST_F(submit, close_file_with_jobs_in_flight)
{
	for (int round = 0; round < 4; round++) {
		struct drm_gaccel_binding b[3];
		uint32_t q, g, h[3];
		int fd = gaccel_open_device();

		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, gaccel_queue_create(fd, &q));
		ASSERT_EQ(0, add_graph(fd, &g));
		for (int i = 0; i < 3; i++)
			ASSERT_EQ(0, gaccel_bo_create(fd, N * 4, 0, &h[i]));
		bind3(b, h[0], h[1], h[2]);
		for (int i = 0; i < 32; i++)
			ASSERT_EQ(0, gaccel_submit1(fd, q, g, b, 3, NULL, 0));
		close(fd);
	}
}

TEST_F(submit, queue_ioctls)
{
	struct drm_gaccel_queue_create c = { .priority = 3 };
	struct drm_gaccel_queue_get_state st = { .handle = self->queue, .pad = 1 };
	struct drm_gaccel_queue_destroy d = { .handle = self->queue, .pad = 1 };
	uint32_t q;

	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c));
	c.priority = DRM_GACCEL_QUEUE_PRIORITY_HIGH;
	c.flags = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c));
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c));
	c.pad = 0;
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c));
	EXPECT_NE(0, c.handle);
	EXPECT_NE(self->queue, c.handle);
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_GET_STATE, &st));
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_DESTROY, &d));
	EXPECT_EQ(-ENOENT, gaccel_queue_state(self->fd, 4444, &st));
	EXPECT_EQ(0, gaccel_queue_destroy(self->fd, c.handle));
	EXPECT_EQ(-ENOENT, gaccel_queue_destroy(self->fd, c.handle));
	for (int i = 0; i < 32; i++) {
		ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
		ASSERT_EQ(0, gaccel_queue_destroy(self->fd, q));
	}
}

TEST_F(submit, submit_mbz_and_arrays)
{
	struct drm_gaccel_binding b[3];
	struct drm_gaccel_job job = { .graph = self->graph,
				      .bindings = { sizeof(b[0]), 3, (uintptr_t)b } };
	struct drm_gaccel_submit sub = { .queue = self->queue,
					 .jobs = { sizeof(job), 1, (uintptr_t)&job } };
	unsigned char big[3][64];

	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	sub.flags = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	sub.flags = 0;
	job.flags = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	job.flags = 0;
	/* Strides below the element size, absurd counts, bad pointers. */
	sub.jobs.stride = sizeof(job) - 8;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	sub.jobs.stride = sizeof(job);
	sub.jobs.count = 0x80000000u;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	sub.jobs.count = 1;
	sub.jobs.pointer = 8;
	EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	sub.jobs.pointer = (uintptr_t)&job;
	job.bindings.pointer = 0;
	EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	job.bindings.pointer = (uintptr_t)b;
	/* Larger strides: zero tails are fine, non-zero ones refused. */
	memset(big, 0, sizeof(big));
	for (int i = 0; i < 3; i++)
		memcpy(big[i], &b[i], sizeof(b[i]));
	job.bindings.stride = 64;
	job.bindings.pointer = (uintptr_t)big;
	EXPECT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	big[1][40] = 1;
	EXPECT_EQ(-E2BIG, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	/* An empty submit does nothing. */
	sub.jobs.count = 0;
	EXPECT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 5000000000ll));
}

/* Sixteen slots in one object: every binding names the same handle. */
TEST_F(submit, one_object_in_many_slots)
{
	enum { S = 16 };
	struct drm_gaccel_slot slots[S];
	struct drm_gaccel_tensor t[S];
	struct drm_gaccel_node n[S - 1];
	struct drm_gaccel_binding b[S];
	uint32_t h, g;
	float *p;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, S * N * 4, 0, &h));
	p = gaccel_bo_mmap(self->fd, h, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	for (int j = 0; j < N; j++)
		p[j] = j;
	for (int i = 0; i < S; i++) {
		slots[i] = (struct drm_gaccel_slot){ .size = N * 4 };
		t[i] = gaccel_tensor(i, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1);
		b[i] = (struct drm_gaccel_binding){ .slot = S - 1 - i, .handle = h,
						    .offset = (uint64_t)(S - 1 - i) * N * 4 };
	}
	/* t[i+1] = t[i] + t[0]: the last slot holds S times the first. */
	for (int i = 0; i < S - 1; i++)
		n[i] = gaccel_node(DRM_GACCEL_OP_ADD, i + 1, i, 0, GACCEL_NONE);
	ASSERT_EQ(0, gaccel_graph_create(self->fd, slots, S, t, S, n, S - 1, &g));
	ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, g, b, S, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, h, 10000000000ll));
	for (int j = 0; j < N; j++)
		ASSERT_EQ((float)S * j, p[(S - 1) * N + j]);
	munmap(p, S * N * 4);
}

static int queue_with_priority(int fd, uint32_t prio)
{
	struct drm_gaccel_queue_create c = { .priority = prio };

	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c);
}

/* Exit 0 if uid 65534 may have LOW and NORMAL queues but not HIGH ones. */
static int unprivileged_priorities(void *arg)
{
	int fd = gaccel_open_device();

	(void)arg;
	if (fd < 0)
		return 50;
	if (queue_with_priority(fd, DRM_GACCEL_QUEUE_PRIORITY_HIGH) != -EACCES)
		return 51;
	if (queue_with_priority(fd, DRM_GACCEL_QUEUE_PRIORITY_NORMAL) ||
	    queue_with_priority(fd, DRM_GACCEL_QUEUE_PRIORITY_LOW))
		return 52;
	close(fd);
	return 0;
}

/* HIGH priority takes from everyone else: CAP_SYS_NICE only. */
TEST_F(submit, high_priority_needs_cap_sys_nice)
{
	EXPECT_EQ(0, queue_with_priority(self->fd, DRM_GACCEL_QUEUE_PRIORITY_HIGH));
	EXPECT_EQ(0, gaccel_run_child(unprivileged_priorities, NULL, 1));
}

/* A value of this file's fdinfo, or -1. */
static long long fdinfo_value(int fd, const char *key, char *str, size_t size)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t k = strlen(key);

		if (strncmp(line, key, k) || line[k] != ':')
			continue;
		v = atoll(line + k + 1);
		if (str) {
			snprintf(str, size, "%s", line + k + 1 + strspn(line + k + 1, " \t"));
			str[strcspn(str, "\n")] = 0;
		}
	}
	fclose(f);
	return v;
}

/*
 * fdinfo as Documentation/gpu/drm-usage-stats.rst has it: the driver, a
 * client id, and the engine time of this file's jobs, which grows as they
 * run; another file's jobs do not count.
 */
TEST_F(submit, fdinfo_engine_time)
{
	struct drm_gaccel_device_info info = { 0 };
	struct drm_gaccel_query q = { .type = DRM_GACCEL_QUERY_DEVICE_INFO,
				      .size = sizeof(info), .pointer = (uintptr_t)&info };
	struct drm_gaccel_binding b[3];
	char driver[64], unit[64];
	long long t0, t1, other;
	int fd2;

	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUERY, &q));
	ASSERT_LE(0, fdinfo_value(self->fd, "drm-driver", driver, sizeof(driver)));
	EXPECT_STREQ("gaccel", driver);
	EXPECT_LT(0, fdinfo_value(self->fd, "drm-client-id", NULL, 0));
	if (info.num_workers > 1)
		EXPECT_EQ(info.num_workers, fdinfo_value(self->fd, "drm-engine-capacity-compute",
							 NULL, 0));
	t0 = fdinfo_value(self->fd, "drm-engine-compute", unit, sizeof(unit));
	ASSERT_LE(0, t0);
	EXPECT_NE(NULL, strstr(unit, " ns"));

	fd2 = gaccel_open_device();
	ASSERT_LE(0, fd2);
	other = fdinfo_value(fd2, "drm-engine-compute", NULL, 0);
	EXPECT_EQ(0, other);
	bind3(b, self->bo[0], self->bo[1], self->bo[2]);
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(0, gaccel_submit1(self->fd, self->queue, self->graph, b, 3, NULL, 0));
	ASSERT_EQ(0, gaccel_bo_wait(self->fd, self->bo[2], 10000000000ll));
	t1 = fdinfo_value(self->fd, "drm-engine-compute", NULL, 0);
	TH_LOG("engine time of 20 small jobs: %lld ns", t1 - t0);
	EXPECT_LT(t0, t1);
	EXPECT_EQ(other, fdinfo_value(fd2, "drm-engine-compute", NULL, 0));
	close(fd2);
}

GACCEL_TEST_HARNESS_MAIN
