/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_JOB_H__
#define __GACCEL_JOB_H__

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include <drm/gpu_scheduler.h>

#include "gaccel_engine.h"

struct gaccel_device;
struct gaccel_file;

/**
 * struct gaccel_queue - a submission queue: one scheduler and one entity.
 * @ref: held by the handle and by every job of the queue.
 * @gdev: the device.
 * @sched: the queue's scheduler; a timeout on it stops only this queue.
 * @entity: the queue's entity.
 * @fence_ctx: dma_fence context of the engine fences.
 * @seqno: last engine fence sequence number (run_job is serialised).
 * @submit_lock: keeps job arm and push in order, and orders them against
 *	@closed.
 * @closed: the handle is gone and the entity destroyed or being destroyed:
 *	nothing may be pushed any more.
 * @state_lock: protects the state fields below.
 * @state: DRM_GACCEL_QUEUE_STATE_* bits.
 * @last_error: errno of the last failed job.
 * @submitted: jobs pushed.
 * @completed: jobs finished without error.
 * @failed: jobs finished with an error.
 * @timeouts: jobs cancelled by the timeout.
 * @free_work: tears the scheduler down once the last reference is gone.
 */
struct gaccel_queue {
	struct kref ref;
	struct gaccel_device *gdev;
	struct drm_gpu_scheduler sched;
	struct drm_sched_entity entity;
	u64 fence_ctx;
	u64 seqno;
	struct mutex submit_lock; /* orders arm + push and @closed */
	bool closed;
	spinlock_t state_lock; /* protects the state fields */
	u32 state;
	int last_error;
	u64 submitted;
	u64 completed;
	u64 failed;
	u64 timeouts;
	struct work_struct free_work;
};

void gaccel_queue_file_fini(struct gaccel_file *gfile);

#endif /* __GACCEL_JOB_H__ */
