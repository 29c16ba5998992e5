/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Jobs: one run of a graph on bound objects. See gaccel_job.c for their
 * lifetime; gaccel_submit.c creates and commits them, gaccel_queue.c pushes
 * them, gaccel_sched.c runs, times out and frees them.
 */
#ifndef __GACCEL_JOB_H__
#define __GACCEL_JOB_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/gpu_scheduler.h>

#include "gaccel_engine.h"
#include "gaccel_fence.h"

struct drm_device;
struct drm_file;
struct drm_gaccel_array;
struct drm_gaccel_job;
struct drm_gem_object;
struct gaccel_graph;
struct gaccel_queue;
struct gaccel_sched;
struct gaccel_signal;

/**
 * struct gaccel_job_bo - an object a job uses.
 * @obj: the object (a reference).
 * @write: whether the job writes it.
 */
struct gaccel_job_bo {
	struct drm_gem_object *obj;
	bool write;
};

/**
 * struct gaccel_job - one graph run.
 * @base: the scheduler job.
 * @ref: held by SUBMIT until it returns and, once the job is committed, by
 *	the scheduler until free_job.
 * @queue: the queue (a reference).
 * @graph: the program (a reference).
 * @fence: the job's fence (a reference once committed).
 * @link: in the queue's backlog until the job is pushed.
 * @gs: the scheduler that runs it, NULL while it has none (or SUBMIT ran
 *	it).
 * @state: &enum gaccel_job_state; decides between completion and timeout.
 * @started: jiffies when the engine got the job.
 * @start_time: the same, for the file's busy time.
 * @deps: fences the job waits for, until it goes to the scheduler
 *	(gaccel_job_sched_init() hands them to drm_sched).
 * @dep_cb: brings the job up when the dependency it waits for signals.
 * @waits: the fences of the job's explicit waits (syncobjs), a reference
 *	each until the job is freed: if one signalled with an error, the job
 *	fails with it instead of running. Implicit dependencies (objects'
 *	reservations) do not count: a failed writer would otherwise fail
 *	every later job on its objects, one after the other, for good.
 * @sched_inited: drm_sched_job_init() succeeded.
 * @reserved: the job counts against the queue's and file's limits.
 * @committed: @fence is initialised and published.
 * @num_bos: entries of @bos and @objs.
 * @bos: the distinct objects, sorted.
 * @objs: the same objects, for reservation locking.
 * @slots: kernel address of each binding slot.
 * @num_signals: entries of @signals.
 * @signals: syncobjs to signal.
 * @ejob: what the engine sees.
 * @free_work: frees the job after the scheduler's free_job
 *	(gaccel_job_put_later()).
 */
struct gaccel_job {
	struct drm_sched_job base;
	struct kref ref;
	struct gaccel_queue *queue;
	struct gaccel_graph *graph;
	struct gaccel_fence *fence;
	struct list_head link;
	struct gaccel_sched *gs;
	atomic_t state;
	unsigned long started;
	ktime_t start_time;
	struct xarray deps;
	struct dma_fence_cb dep_cb;
	struct xarray waits;
	bool sched_inited;
	bool reserved;
	bool committed;
	u32 num_bos;
	struct gaccel_job_bo *bos;
	struct drm_gem_object **objs;
	void **slots;
	u32 num_signals;
	struct gaccel_signal *signals;
	struct gaccel_engine_job ejob;
	struct work_struct free_work;
};

/**
 * enum gaccel_job_state - where a job is.
 * @GACCEL_JOB_QUEUED: not given to the engine (yet, or ever).
 * @GACCEL_JOB_RUNNING: the engine has it.
 * @GACCEL_JOB_DONE: the engine finished it.
 * @GACCEL_JOB_TIMEDOUT: the timeout handler took it from the engine first.
 */
enum gaccel_job_state {
	GACCEL_JOB_QUEUED,
	GACCEL_JOB_RUNNING,
	GACCEL_JOB_DONE,
	GACCEL_JOB_TIMEDOUT,
};

static inline struct gaccel_job *to_gaccel_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct gaccel_job, base);
}

/* SUBMIT (gaccel_submit.c) */
int gaccel_copy_array_buf(struct drm_device *drm, const char *what,
			  const struct drm_gaccel_array *arr, u32 max_count,
			  size_t elem_size, void *buf, size_t buf_size,
			  void **out);

static inline void gaccel_free_array_buf(void *array, void *buf)
{
	if (array != buf)
		kvfree(array);
}

int gaccel_job_create(struct drm_device *drm, struct drm_file *file,
		      struct gaccel_queue *q, const struct drm_gaccel_job *uj,
		      struct gaccel_job **out);
int gaccel_job_add_implicit_deps(struct gaccel_job *job);
int gaccel_job_wait_error(struct gaccel_job *job);
void gaccel_job_commit(struct gaccel_job *job, u64 context, u64 seqno);
bool gaccel_job_may_run_here(struct gaccel_job *job);
int gaccel_job_sched_init(struct gaccel_job *job, struct drm_file *file);
void gaccel_job_run_here(struct gaccel_job *job);

/* Queue (gaccel_queue.c) */
bool gaccel_job_wait_deps(struct gaccel_job *job);
void gaccel_job_push(struct gaccel_job *job);

/* Scheduler (gaccel_sched.c) */
struct dma_fence *gaccel_job_run(struct gaccel_job *job, struct gaccel_sched *gs);
bool gaccel_job_timeout(struct gaccel_job *job);
void gaccel_job_put(struct gaccel_job *job);
void gaccel_job_put_later(struct gaccel_job *job);

int gaccel_job_module_init(void);
void gaccel_job_module_exit(void);

static inline struct dma_fence *gaccel_job_fence(struct gaccel_job *job)
{
	return &job->fence->base;
}

static inline unsigned long gaccel_job_started(struct gaccel_job *job)
{
	return job->started;
}

static inline struct gaccel_engine_job *gaccel_job_engine_job(struct gaccel_job *job)
{
	return &job->ejob;
}

#endif /* __GACCEL_JOB_H__ */
