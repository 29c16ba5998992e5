// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Job fences: the only fences gaccel hands out.
 *
 * Lifetime. A job's fence is allocated by SUBMIT, initialised when the job
 * is committed to its queue (in queue order: the fence context is the
 * queue's, seqnos follow the order of the jobs) and then shared: the job
 * holds a reference until it is freed, the scheduler holds one as the
 * job's hardware fence (drm_sched_fence.parent), syncobjs, sync_files and
 * dma_resv objects hold theirs for as long as userspace or other drivers
 * keep them. None of those holders is bounded by the life of the queue,
 * the file or the device, so the fence depends on none of them: it points
 * at no queue or scheduler memory, its names are constant strings, and each
 * initialised fence holds a reference on this module, dropped from an RCU
 * callback after the fence is freed (gaccel_fence_module_exit() waits for
 * those callbacks). A sync_file kept after its queue, its file and even
 * the device are gone can still be queried, and rmmod is refused until
 * the last fence is released.
 *
 * The drm_sched fences of a job (scheduled and finished) never leave the
 * driver: they die with the job and the queue's entity, before the
 * device's schedulers do (see gaccel_sched.c).
 *
 * Signalling: the job's fence is signalled exactly once, by the engine's
 * completion (gaccel_job.c), by run_job for a job that is skipped, or by
 * the job's release for a job the scheduler never ran.
 */

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "gaccel_fence.h"

static const char *gaccel_fence_driver_name(struct dma_fence *fence)
{
	return "gaccel";
}

static const char *gaccel_fence_timeline_name(struct dma_fence *fence)
{
	return "gaccel-queue";
}

static void gaccel_fence_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *f = container_of(rcu, struct dma_fence, rcu);

	kfree(container_of(f, struct gaccel_fence, base));
	/* The last thing this module's code does for the fence. */
	module_put(THIS_MODULE);
}

/* Readers may still look at the fence under RCU: free after a grace period. */
static void gaccel_fence_release(struct dma_fence *f)
{
	call_rcu(&f->rcu, gaccel_fence_free_rcu);
}

static const struct dma_fence_ops gaccel_fence_ops = {
	.get_driver_name = gaccel_fence_driver_name,
	.get_timeline_name = gaccel_fence_timeline_name,
	.release = gaccel_fence_release,
};

/**
 * gaccel_fence_alloc - allocate a fence for a job, charged to the caller.
 *
 * Returns the fence, not yet initialised, or NULL.
 */
struct gaccel_fence *gaccel_fence_alloc(void)
{
	struct gaccel_fence *fence;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL_ACCOUNT);
	if (fence)
		spin_lock_init(&fence->lock);
	return fence;
}

/**
 * gaccel_fence_init - make the fence live.
 * @fence: from gaccel_fence_alloc().
 * @context: the queue's fence context.
 * @seqno: the job's number in the queue.
 *
 * Allocates nothing and cannot fail. From here on the fence is reference
 * counted (the caller holds the first reference) and pins the module.
 */
void gaccel_fence_init(struct gaccel_fence *fence, u64 context, u64 seqno)
{
	/* The caller runs module code: the module is live. */
	__module_get(THIS_MODULE);
	dma_fence_init(&fence->base, &gaccel_fence_ops, &fence->lock, context,
		       seqno);
}

/**
 * gaccel_fence_free_unused - free a fence gaccel_fence_init() never saw.
 * @fence: the fence, or NULL.
 */
void gaccel_fence_free_unused(struct gaccel_fence *fence)
{
	kfree(fence);
}

/**
 * gaccel_fence_module_exit - wait for the RCU callbacks that free fences.
 *
 * Called last on module exit: the module's reference count is zero, so no
 * fence is left, but the callback that dropped the last reference may still
 * be returning.
 */
void gaccel_fence_module_exit(void)
{
	rcu_barrier();
}
