// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Reproducer (found by tests/fuzz/stress.c): SUBMIT racing QUEUE_DESTROY
 * on the same queue pushes a job to a killed scheduler entity.
 *
 * gaccel_ioctl_submit() takes a reference on the queue at the start, then
 * prepares the jobs. If QUEUE_DESTROY runs meanwhile (xa_erase, then
 * drm_sched_entity_destroy() of the queue's entity), SUBMIT still arms the
 * job, installs its finished fence in the syncobjs and the objects'
 * dma_resv, returns 0, and drm_sched_entity_push_job() only logs
 * "*ERROR* Trying to push to a killed entity": the job never runs and its
 * fence never signals. The syncobj wait times out, so does BO_WAIT, and
 * any later job using the same objects waits on that fence forever (job
 * timeouts do not cover dependencies).
 *
 * Expected: SUBMIT either queues a job that runs (and signals), or fails
 * (e.g. -ENOENT) when the queue is destroyed before the point of no return.
 *
 * Thread A submits ADD jobs signalling a syncobj and waits for each; thread
 * B destroys the queue and publishes a new one, in a loop. Exit 1 when a
 * SUBMIT returned 0 but its syncobj did not signal within 5 s (the bug),
 * 0 if no such job was seen within the time limit.
 *
 * Fixed by commit 88bee90 (SUBMIT checks q->closed under submit_lock).
 *
 * With that fix the same loop once (1 run in about 10 of 15 s each, under
 * TCG) oopsed: NULL pointer dereference in __queue_work() from
 * queue_work_on() <- dma_fence_signal() <- gaccel_ref_work (workqueue
 * gaccel-ref). Likely cause: after QUEUE_DESTROY the last job holds the
 * last queue reference; drm_sched_job_done() (the engine fence callback)
 * signals the finished fence, the scheduler's free_job work frees the job
 * on another CPU (gaccel_job_free -> gaccel_queue_put -> free_work:
 * drm_sched_fini + kfree of the queue and its embedded scheduler), the
 * next QUEUE_CREATE's kzalloc reuses the memory, and the callback's
 * __drm_sched_run_free_queue(sched) then reads a zeroed scheduler
 * (pause_submit false, submit_wq NULL). A second run of 12 x 15 s died
 * after 65 s with a double fault in __kmalloc_cache_node_noprof() under
 * alloc_workqueue() <- drm_sched_init() <- gaccel_ioctl_queue_create():
 * a corrupted slab freelist, as queue_work() on the freed scheduler's
 * work_free_job (setting its PENDING bit) would leave. Rare: two crashes
 * in about 7 minutes of this loop in all under TCG, and a 180 s run can
 * pass; loop it. The VM runner reports the oops (gaccel-vm.sh -t 400).
 *
 * Fixed by commit 068f298: the queue's free work waits with
 * synchronize_rcu() for every running fence callback (they run with
 * interrupts off) before drm_sched_fini() and kfree(). Verified with 14
 * runs of 180 s (42 minutes, ~6 million submits) under TCG, all clean.
 *
 * usage: repro-queue-destroy-race [seconds]   (default 180)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "gaccel_test.h"

#define N 256

static int fd;
static _Atomic uint32_t queue;
static atomic_bool stop;

static void *destroyer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uint32_t q, old;

		if (gaccel_queue_create(fd, &q))
			break;
		old = atomic_exchange(&queue, q);
		gaccel_queue_destroy(fd, old);
	}
	return NULL;
}

int main(int argc, char **argv)
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
	double seconds = argc > 1 ? atof(argv[1]) : 180;
	unsigned long ok = 0, refused = 0;
	struct timespec t0, now;
	uint32_t graph, q;
	pthread_t th;
	int ret, bug = 0;

	fd = gaccel_open_device();
	if (fd < 0) {
		printf("repro: no gaccel device (%d)\n", fd);
		return 2;
	}
	if (gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, &graph) ||
	    gaccel_syncobj_create(fd, &s.handle) || gaccel_queue_create(fd, &q))
		return 2;
	atomic_store(&queue, q);
	for (int i = 0; i < 3; i++)
		if (gaccel_bo_create(fd, N * 4, 0, &b[i].handle))
			return 2;
	pthread_create(&th, NULL, destroyer, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ret = gaccel_submit1(fd, atomic_load(&queue), graph, b, 3, &s, 1);
		if (ret) {
			refused++;	/* -ENOENT: the queue went first, fine */
		} else {
			ok++;
			ret = gaccel_syncobj_wait(fd, s.handle, 0, 5000000000ll);
			if (ret) {
				printf("repro: BUG: SUBMIT returned 0 (job %lu) but its syncobj "
				       "did not signal within 5 s (wait: %d)\n", ok, ret);
				printf("repro: BO_WAIT on its destination: %d\n",
				       gaccel_bo_wait(fd, b[2].handle, 1000000000ll));
				bug = 1;
				break;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("repro: %lu submits accepted, %lu refused: %s\n", ok, refused,
	       bug ? "reproduced (see '*ERROR* Trying to push to a killed entity' on the console)"
		   : "not reproduced");
	/* With the bug, closing the file may wait on the lost job; exit instead. */
	return bug;
}
