// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The device's schedulers.
 *
 * Shape. The device owns one drm_gpu_scheduler per engine worker, each
 * with a credit limit of 1: it runs one job at a time, so its timeout (armed
 * by drm_sched when a job starts) measures exactly that job's run, never
 * time the job spent queued behind others. Every queue is one entity whose
 * list holds all of the device's schedulers; drm_sched moves an idle entity
 * to the least busy one when it arms the queue's next job (gaccel_queue.c
 * arms a job only right before it pushes it, so an entity never migrates
 * between the two). All schedulers share two device-level workqueues, one
 * for run_job/free_job and one for timeouts, so a queue costs memory only:
 * no thread, no workqueue. (Before 6.8 drm_sched runs each scheduler on a
 * kthread of its own: one per worker, still none per queue.)
 *
 * Lifetime. The schedulers are created at probe and finished when the
 * device is released (a drmm action), which happens after the last file,
 * queue and job: every queue holds a device reference, every job a queue
 * reference. Nothing outside the driver points at a scheduler: the fences
 * userspace and other drivers hold are the jobs' own (gaccel_fence.c), so
 * the schedulers need not outlive the device.
 *
 * Timeouts follow drm_sched's protocol for this kernel: drm_sched_stop(),
 * deal with the guilty job, drm_sched_start(); no edits of the pending list,
 * hang_limit 0, no drm_sched_resubmit_jobs(). Because drm_sched_start()
 * ends every job whose hardware callback drm_sched_stop() removed, the
 * handler makes sure the one job the engine may still be running on this
 * scheduler has finished (cancelled if it overran its own deadline) before
 * it restarts the scheduler. A job that finished just before the timeout
 * fired is handed back by drm_sched_stop() and freed by drm_sched once the
 * handler returns: not leaked, not freed twice.
 *
 * Unplug. Unregistering the engine does not wait for user work: it marks
 * the schedulers unplugged, so that run_job skips every job not yet started
 * (its fence signals -ENODEV), cancels the jobs the engine is running and
 * waits for those alone, which end within the engine's cancel latency
 * (gaccel_sched_quiesce()). Queues and jobs then drain on their own and
 * release the device.
 *
 * Polling. An engine that completes by polling has its poll op called from
 * a delayed work item on the submit workqueue, every poll_us while one of
 * the schedulers has a running job.
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_job.h"
#include "gaccel_limits.h"
#include "gaccel_sched.h"

static long gaccel_sched_timeout(void)
{
	return msecs_to_jiffies(gaccel_limit_job_timeout_ms());
}

/*
 * The job_timeout_ms parameter is writable: a new value applies from the
 * next job that starts. drm_sched reads sched->timeout each time it arms
 * the timer; re-arm it for the job that is starting now.
 */
static void gaccel_sched_update_timeout(struct gaccel_sched *gs)
{
	long timeout = gaccel_sched_timeout();

	if (likely(timeout == READ_ONCE(gs->base.timeout)))
		return;
	WRITE_ONCE(gs->base.timeout, timeout);
	drm_sched_resume_timeout(&gs->base, timeout);
}

static struct dma_fence *gaccel_sched_run_job(struct drm_sched_job *sched_job)
{
	struct gaccel_sched *gs = to_gaccel_sched(sched_job->sched);

	gaccel_sched_update_timeout(gs);
	return gaccel_job_run(to_gaccel_job(sched_job), gs);
}

/**
 * gaccel_sched_start_job - note the job the engine is about to run.
 * @gs: the job's scheduler.
 * @job: the job.
 *
 * Returns false when the device is unplugged: the job must not start.
 */
bool gaccel_sched_start_job(struct gaccel_sched *gs, struct gaccel_job *job)
{
	bool ok;

	spin_lock(&gs->lock);
	ok = !gs->gdev->sched.unplugged;
	if (ok)
		gs->running = job;
	spin_unlock(&gs->lock);
	return ok;
}

/**
 * gaccel_sched_end_job - the engine is done with the job.
 * @gs: the job's scheduler.
 * @job: the job.
 */
void gaccel_sched_end_job(struct gaccel_sched *gs, struct gaccel_job *job)
{
	spin_lock(&gs->lock);
	if (gs->running == job)
		gs->running = NULL;
	spin_unlock(&gs->lock);
}

/*
 * Make sure the engine is done with @job, cancelling it once it is past
 * @deadline (in jiffies). Returns whether it was cancelled.
 */
static bool gaccel_sched_settle(struct gaccel_sched *gs, struct gaccel_job *job,
				unsigned long deadline)
{
	struct gaccel_engine *engine = gs->gdev->engine;
	long left = (long)(deadline - jiffies);
	bool hung = false;
	int idx;

	if (left <= 0 || !dma_fence_wait_timeout(gaccel_job_fence(job), false, left))
		hung = gaccel_job_timeout(job);
	/* Bounded: the engine answers a cancel within one chunk of work. */
	dma_fence_wait(gaccel_job_fence(job), false);
	/* Not once the engine is unregistered: it may be gone. */
	if (hung && drm_dev_enter(&gs->gdev->drm, &idx)) {
		engine->ops->reset(engine);
		drm_dev_exit(idx);
	}
	return hung;
}

static enum drm_gpu_sched_stat
gaccel_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct gaccel_sched *gs = to_gaccel_sched(sched_job->sched);
	struct gaccel_job *job = to_gaccel_job(sched_job);
	struct gaccel_job *running;
	bool cookie;

	cookie = dma_fence_begin_signalling();
	/*
	 * Stops run_job and free_job (waiting for a run_job in progress, which
	 * may have run a short job to completion) and detaches the scheduler
	 * from the hardware fences of unfinished jobs. @job is either the job
	 * the engine runs or one that has finished (then drm_sched_stop() sets
	 * it aside and the caller frees it after we return).
	 */
	drm_sched_stop(&gs->base, sched_job);

	/* Stable now: nothing starts or frees jobs on this scheduler. */
	spin_lock(&gs->lock);
	running = gs->running;
	spin_unlock(&gs->lock);

	if (running == job) {
		/* Its timer expired: it ran for the whole job timeout. */
		gaccel_sched_settle(gs, job, jiffies);
	} else if (running) {
		/*
		 * The timer fired for a job that finished but was not freed
		 * yet, while the next one runs. drm_sched_start() below would
		 * end that one: let it finish first, within its own deadline.
		 */
		gaccel_sched_settle(gs, running,
				    gaccel_job_started(running) +
				    READ_ONCE(gs->base.timeout));
	}
	dma_fence_wait(gaccel_job_fence(job), false);

#if defined(GACCEL_HAVE_DRM_SCHED_START_ERRNO)
	drm_sched_start(&gs->base, 0);
#elif defined(GACCEL_HAVE_DRM_SCHED_START_BOOL)
	/* Recovery, which later kernels always do: the callbacks re-armed. */
	drm_sched_start(&gs->base, true);
#else
	drm_sched_start(&gs->base);
#endif
	dma_fence_end_signalling(cookie);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void gaccel_sched_free_job(struct drm_sched_job *sched_job)
{
	gaccel_job_put_later(to_gaccel_job(sched_job));
}

static const struct drm_sched_backend_ops gaccel_sched_ops = {
	.run_job = gaccel_sched_run_job,
	.timedout_job = gaccel_sched_timedout_job,
	.free_job = gaccel_sched_free_job,
};

static int gaccel_sched_init_one(struct gaccel_device *gdev,
				 struct gaccel_sched *gs)
{
	struct gaccel_scheds *s = &gdev->sched;
#ifdef GACCEL_HAVE_DRM_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = &gaccel_sched_ops,
#ifdef GACCEL_HAVE_DRM_SCHED_SUBMIT_WQ
		.submit_wq = s->submit_wq,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#endif
		.timeout_wq = s->timeout_wq,
		.credit_limit = 1,
		.hang_limit = 0,
		.timeout = gaccel_sched_timeout(),
		.name = "gaccel",
		.dev = gdev->drm.dev,
	};
#endif

	gs->gdev = gdev;
	spin_lock_init(&gs->lock);
#ifdef GACCEL_HAVE_DRM_SCHED_INIT_ARGS
	return drm_sched_init(&gs->base, &args);
#elif defined(GACCEL_HAVE_DRM_SCHED_SUBMIT_WQ)
	return drm_sched_init(&gs->base, &gaccel_sched_ops, s->submit_wq,
			      DRM_SCHED_PRIORITY_COUNT, 1, 0,
			      gaccel_sched_timeout(), s->timeout_wq, NULL,
			      "gaccel", gdev->drm.dev);
#elif defined(GACCEL_HAVE_DRM_SCHED_NUM_RQS)
	/* 6.7: a kthread per scheduler, run queues counted. */
	return drm_sched_init(&gs->base, &gaccel_sched_ops,
			      DRM_SCHED_PRIORITY_COUNT, 1, 0,
			      gaccel_sched_timeout(), s->timeout_wq, NULL,
			      "gaccel", gdev->drm.dev);
#else
	/* Before 6.7: a kthread per scheduler, one run queue per priority. */
	return drm_sched_init(&gs->base, &gaccel_sched_ops, 1, 0,
			      gaccel_sched_timeout(), s->timeout_wq, NULL,
			      "gaccel", gdev->drm.dev);
#endif
}

/* Whether any scheduler has a job on the engine. */
static bool gaccel_sched_busy(struct gaccel_scheds *s)
{
	bool busy = false;
	unsigned int i;

	for (i = 0; i < s->count && !busy; i++) {
		spin_lock(&s->scheds[i].lock);
		busy = s->scheds[i].running;
		spin_unlock(&s->scheds[i].lock);
	}
	return busy;
}

static void gaccel_sched_poll_work(struct work_struct *work)
{
	struct gaccel_scheds *s = container_of(to_delayed_work(work),
					       struct gaccel_scheds, poll);
	struct gaccel_device *gdev = container_of(s, struct gaccel_device, sched);
	struct gaccel_engine *engine = gdev->engine;
	bool cookie = dma_fence_begin_signalling();

	engine->ops->poll(engine);
	if (gaccel_sched_busy(s))
		gaccel_sched_poll_kick(gdev);
	dma_fence_end_signalling(cookie);
}

/**
 * gaccel_sched_poll_kick - poll a polling engine soon.
 * @gdev: the device; its engine completes by polling.
 *
 * Called when a job started and by the poll itself while jobs run.
 */
void gaccel_sched_poll_kick(struct gaccel_device *gdev)
{
	struct gaccel_scheds *s = &gdev->sched;

	if (!READ_ONCE(s->poll_stopped))
		mod_delayed_work(s->submit_wq, &s->poll,
				 usecs_to_jiffies(gdev->engine->poll_us));
}

/**
 * gaccel_sched_quiesce - wait until the engine runs no job, stop polling.
 * @gdev: the device, unplugged (gaccel_sched_unplug()): no job starts.
 *
 * Bounded by the engine's answer to the cancel the unplug sent each
 * running job.
 */
void gaccel_sched_quiesce(struct gaccel_device *gdev)
{
	struct gaccel_scheds *s = &gdev->sched;
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct gaccel_sched *gs = &s->scheds[i];
		struct dma_fence *fence = NULL;

		spin_lock(&gs->lock);
		if (gs->running)
			fence = dma_fence_get(gaccel_job_fence(gs->running));
		spin_unlock(&gs->lock);
		if (fence) {
			dma_fence_wait(fence, false);
			dma_fence_put(fence);
		}
	}
	WRITE_ONCE(s->poll_stopped, true);
	cancel_delayed_work_sync(&s->poll);
}

/* drmm action: the device is released, so no queue or job is left. */
static void gaccel_sched_release(struct drm_device *drm, void *arg)
{
	struct gaccel_scheds *s = &to_gaccel_device(drm)->sched;
	unsigned int i;

	WRITE_ONCE(s->poll_stopped, true);
	cancel_delayed_work_sync(&s->poll);
	for (i = 0; i < s->count; i++)
		drm_sched_fini(&s->scheds[i].base);
	destroy_workqueue(s->timeout_wq);
	destroy_workqueue(s->submit_wq);
	kfree(s->list);
	kfree(s->scheds);
}

/**
 * gaccel_sched_init - create the device's schedulers, one per engine worker.
 * @gdev: the device; its engine exists.
 *
 * They are finished when the device is released.
 */
int gaccel_sched_init(struct gaccel_device *gdev)
{
	struct gaccel_scheds *s = &gdev->sched;
	unsigned int i, n = max(gdev->engine->caps.num_workers, 1u);
	int ret;

	INIT_DELAYED_WORK(&s->poll, gaccel_sched_poll_work);
	s->scheds = kcalloc(n, sizeof(*s->scheds), GFP_KERNEL);
	s->list = kcalloc(n, sizeof(*s->list), GFP_KERNEL);
	/*
	 * run_job and the timeout handler are on the fence signalling path:
	 * both workqueues must make progress under memory pressure.
	 */
	s->submit_wq = alloc_workqueue("gaccel-sched", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	s->timeout_wq = alloc_workqueue("gaccel-tdr", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!s->scheds || !s->list || !s->submit_wq || !s->timeout_wq) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < n; i++) {
		ret = gaccel_sched_init_one(gdev, &s->scheds[i]);
		if (ret)
			goto err_fini;
		s->list[i] = &s->scheds[i].base;
		s->count = i + 1;
	}
	return drmm_add_action_or_reset(&gdev->drm, gaccel_sched_release, NULL);

err_fini:
	while (i--)
		drm_sched_fini(&s->scheds[i].base);
err:
	if (s->timeout_wq)
		destroy_workqueue(s->timeout_wq);
	if (s->submit_wq)
		destroy_workqueue(s->submit_wq);
	kfree(s->list);
	kfree(s->scheds);
	s->count = 0;
	return ret;
}

/**
 * gaccel_sched_unplug - the device is going: start no job, stop running ones.
 * @gdev: the device.
 *
 * Does not wait. Jobs not yet started are skipped by run_job, running ones
 * end within one chunk of work; their fences signal with an error.
 */
void gaccel_sched_unplug(struct gaccel_device *gdev)
{
	struct gaccel_scheds *s = &gdev->sched;
	struct gaccel_engine *engine = gdev->engine;
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct gaccel_sched *gs = &s->scheds[i];

		spin_lock(&gs->lock);
		s->unplugged = true;
		if (gs->running)
			engine->ops->cancel(engine, gaccel_job_engine_job(gs->running));
		spin_unlock(&gs->lock);
	}
}
