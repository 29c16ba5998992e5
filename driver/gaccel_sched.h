/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The device's schedulers: one drm_gpu_scheduler per engine worker, shared
 * by every queue of every file. See gaccel_sched.c for their lifetime and
 * the timeout protocol.
 */
#ifndef __GACCEL_SCHED_H__
#define __GACCEL_SCHED_H__

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct gaccel_device;
struct gaccel_job;

/**
 * struct gaccel_sched - one engine worker's scheduler.
 * @base: the scheduler; credit limit 1, so it runs one job at a time and
 *	its timeout measures that job's run alone.
 * @gdev: the device.
 * @lock: protects @running.
 * @running: the job the engine is running for this scheduler, if any.
 */
struct gaccel_sched {
	struct drm_gpu_scheduler base;
	struct gaccel_device *gdev;
	spinlock_t lock; /* protects running */
	struct gaccel_job *running;
};

/**
 * struct gaccel_scheds - all schedulers of a device.
 * @scheds: one per engine worker.
 * @list: the same, as the list every queue's entity is given.
 * @count: entries of @scheds.
 * @submit_wq: where every scheduler runs run_job and free_job (each its own
 *	kthread before 6.8), queues their unblocking and engines their poll.
 * @timeout_wq: where every scheduler runs its timeout handler.
 * @unplugged: the device is gone: jobs are skipped, none is started.
 * @poll: for engines that complete by polling: calls their poll op while
 *	a job runs.
 * @poll_stopped: the engine is unregistered: @poll is not queued again.
 */
struct gaccel_scheds {
	struct gaccel_sched *scheds;
	struct drm_gpu_scheduler **list;
	unsigned int count;
	struct workqueue_struct *submit_wq;
	struct workqueue_struct *timeout_wq;
	bool unplugged;
	struct delayed_work poll;
	bool poll_stopped;
};

static inline struct gaccel_sched *to_gaccel_sched(struct drm_gpu_scheduler *sched)
{
	return container_of(sched, struct gaccel_sched, base);
}

int gaccel_sched_init(struct gaccel_device *gdev);
void gaccel_sched_unplug(struct gaccel_device *gdev);
bool gaccel_sched_start_job(struct gaccel_sched *gs, struct gaccel_job *job);
void gaccel_sched_end_job(struct gaccel_sched *gs, struct gaccel_job *job);
void gaccel_sched_poll_kick(struct gaccel_device *gdev);
void gaccel_sched_quiesce(struct gaccel_device *gdev);

#endif /* __GACCEL_SCHED_H__ */
