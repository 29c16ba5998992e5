// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Concurrency: threads on several files submitting and checking results
 * while others create, export, import and close objects, graphs and queues,
 * and threads sharing one file and one queue.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#define N 512
#define ROUNDS 40

static atomic_int failures;

static int add_graph(int fd, uint32_t *g)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 },
					    { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, g);
}

struct worker {
	int fd;		/* shared file, or -1 for an own one */
	uint32_t queue;	/* shared queue, or 0 */
	int seed;
};

/* c = a + b with a = seed, b = round, on own objects; check every round. */
static void *submitter(void *arg)
{
	struct worker *w = arg;
	int fd = w->fd >= 0 ? w->fd : gaccel_open_device();
	uint32_t q = w->queue, g, so, h[3];
	float *p[3];

	if (fd < 0 || (!q && gaccel_queue_create(fd, &q)) || add_graph(fd, &g) ||
	    gaccel_syncobj_create(fd, &so))
		goto fail;
	for (int i = 0; i < 3; i++) {
		if (gaccel_bo_create(fd, N * 4, 0, &h[i]))
			goto fail;
		p[i] = gaccel_bo_mmap(fd, h[i], PROT_READ | PROT_WRITE);
		if (p[i] == MAP_FAILED)
			goto fail;
	}
	for (int r = 0; r < ROUNDS; r++) {
		struct drm_gaccel_binding b[3] = {
			{ .slot = 0, .handle = h[0] }, { .slot = 1, .handle = h[1] },
			{ .slot = 2, .handle = h[2] },
		};
		struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };

		for (int j = 0; j < N; j++) {
			p[0][j] = w->seed;
			p[1][j] = r + j;
		}
		if (gaccel_submit1(fd, q, g, b, 3, &s, 1) ||
		    gaccel_syncobj_wait(fd, so, 0, 30000000000ll))
			goto fail;
		for (int j = 0; j < N; j++)
			if (p[2][j] != (float)(w->seed + r + j))
				goto fail;
	}
	for (int i = 0; i < 3; i++)
		munmap(p[i], N * 4);
	if (w->fd < 0)
		close(fd);
	return NULL;
fail:
	atomic_fetch_add(&failures, 1);
	return NULL;
}

static atomic_int stop;

/* Create, export, import and close objects, graphs and queues. */
static void *churner(void *arg)
{
	int fd = gaccel_open_device(), fd2 = gaccel_open_device();

	(void)arg;
	if (fd < 0 || fd2 < 0)
		goto fail;
	while (!atomic_load(&stop)) {
		uint32_t h, h2, g, q;
		int dmabuf;

		if (gaccel_bo_create(fd, 65536, 0, &h))
			goto fail;
		dmabuf = gaccel_prime_export(fd, h);
		if (dmabuf < 0 || gaccel_prime_import(fd2, dmabuf, &h2))
			goto fail;
		close(dmabuf);
		if (gaccel_gem_close(fd, h) || gaccel_gem_close(fd2, h2))
			goto fail;
		if (add_graph(fd, &g) || gaccel_graph_destroy(fd, g))
			goto fail;
		if (gaccel_queue_create(fd2, &q) || gaccel_queue_destroy(fd2, q))
			goto fail;
	}
	close(fd);
	close(fd2);
	return NULL;
fail:
	atomic_fetch_add(&failures, 1);
	return NULL;
}

TEST(files_and_threads)
{
	enum { S = 4, C = 2 };
	pthread_t st[S], ct[C];
	struct worker w[S];

	atomic_store(&failures, 0);
	atomic_store(&stop, 0);
	for (int i = 0; i < C; i++)
		ASSERT_EQ(0, pthread_create(&ct[i], NULL, churner, NULL));
	for (int i = 0; i < S; i++) {
		w[i] = (struct worker){ .fd = -1, .seed = 1000 * (i + 1) };
		ASSERT_EQ(0, pthread_create(&st[i], NULL, submitter, &w[i]));
	}
	for (int i = 0; i < S; i++)
		pthread_join(st[i], NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < C; i++)
		pthread_join(ct[i], NULL);
	EXPECT_EQ(0, atomic_load(&failures));
}

TEST(threads_sharing_a_file_and_a_queue)
{
	enum { S = 4 };
	pthread_t st[S];
	struct worker w[S];
	struct drm_gaccel_queue_get_state state;
	uint32_t q;
	int fd = gaccel_open_device();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	atomic_store(&failures, 0);
	for (int i = 0; i < S; i++) {
		w[i] = (struct worker){ .fd = fd, .queue = i % 2 ? q : 0, .seed = 7 * i };
		ASSERT_EQ(0, pthread_create(&st[i], NULL, submitter, &w[i]));
	}
	for (int i = 0; i < S; i++)
		pthread_join(st[i], NULL);
	EXPECT_EQ(0, atomic_load(&failures));
	ASSERT_EQ(0, gaccel_queue_state(fd, q, &state));
	EXPECT_EQ(2 * ROUNDS, state.completed);
	EXPECT_EQ(0, state.state);
	close(fd);
}

/* SUBMIT racing QUEUE_DESTROY: every accepted job must run and signal. */
static atomic_uint race_queue;
static atomic_int race_stop;

static void *destroyer(void *arg)
{
	int fd = *(int *)arg;

	while (!atomic_load(&race_stop)) {
		uint32_t q, old;

		if (gaccel_queue_create(fd, &q))
			break;
		old = atomic_exchange(&race_queue, q);
		gaccel_queue_destroy(fd, old);
		usleep(200);
	}
	return NULL;
}

TEST(submit_racing_queue_destroy)
{
	uint32_t q, g, so, h[3];
	int fd = gaccel_open_device(), accepted = 0, lost = 0;
	pthread_t t;
	struct timespec start, now;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	atomic_store(&race_queue, q);
	atomic_store(&race_stop, 0);
	ASSERT_EQ(0, add_graph(fd, &g));
	ASSERT_EQ(0, gaccel_syncobj_create(fd, &so));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_bo_create(fd, N * 4, 0, &h[i]));
	ASSERT_EQ(0, pthread_create(&t, NULL, destroyer, &fd));
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		struct drm_gaccel_binding b[3] = {
			{ .slot = 0, .handle = h[0] }, { .slot = 1, .handle = h[1] },
			{ .slot = 2, .handle = h[2] },
		};
		struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };
		int ret = gaccel_submit1(fd, atomic_load(&race_queue), g, b, 3, &s, 1);

		if (ret == 0) {
			accepted++;
			if (gaccel_syncobj_wait(fd, so, 0, 5000000000ll))
				lost++;
		} else {
			ASSERT_EQ(-ENOENT, ret);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 3 && !lost);
	atomic_store(&race_stop, 1);
	pthread_join(t, NULL);
	EXPECT_EQ(0, lost);
	EXPECT_GT(accepted, 0);
	close(fd);
}

TEST_HARNESS_MAIN
