/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The fence of a job: what syncobjs, sync_files and dma_resv objects hold.
 * See gaccel_fence.c for its lifetime.
 */
#ifndef __GACCEL_FENCE_H__
#define __GACCEL_FENCE_H__

#include <linux/dma-fence.h>
#include <linux/spinlock.h>

/**
 * struct gaccel_fence - a job's completion fence.
 * @base: the fence; its context is the queue's, its seqno the job's place
 *	in the queue.
 * @lock: the fence's lock.
 */
struct gaccel_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's lock */
};

struct gaccel_fence *gaccel_fence_alloc(void);
void gaccel_fence_init(struct gaccel_fence *fence, u64 context, u64 seqno);
void gaccel_fence_free_unused(struct gaccel_fence *fence);
void gaccel_fence_module_exit(void);

#endif /* __GACCEL_FENCE_H__ */
