/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Queues: one drm_sched entity each, reference counted, with a backlog of
 * committed jobs. See gaccel_queue.c for their lifetime and scheduling.
 */
#ifndef __GACCEL_QUEUE_H__
#define __GACCEL_QUEUE_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct drm_device;
struct drm_file;
struct gaccel_device;
struct gaccel_file;
struct gaccel_job;
struct gaccel_usage;

/* Queue priorities: DRM_GACCEL_QUEUE_PRIORITY_LOW..HIGH. */
#define GACCEL_QUEUE_PRIOS	3

/**
 * struct gaccel_client - the scheduling state of one open file.
 * @ref: held by the file and by each of its queues.
 * @lock: protects the fields below and the queues' @backlog, @ready_link,
 *	@head_blocked and @running_here; taken on the fence signalling path.
 * @ready: per priority, the queues whose next job may be pushed, in the
 *	order they get their turn.
 * @waiting: per priority, a job of the file is pushed and has not started.
 */
struct gaccel_client {
	struct kref ref;
	spinlock_t lock; /* the turn of the file's queues */
	struct list_head ready[GACCEL_QUEUE_PRIOS];
	bool waiting[GACCEL_QUEUE_PRIOS];
};

/**
 * struct gaccel_queue - a submission queue.
 * @ref: held by the handle and by every job of the queue.
 * @gdev: the device (a reference on its drm_device).
 * @usage: the creating file's usage (a reference): jobs are charged to it.
 * @client: the creating file's scheduling state (a reference).
 * @prio: DRM_GACCEL_QUEUE_PRIORITY_*.
 * @entity: the queue's entity on the device's schedulers.
 * @fence_ctx: dma_fence context of the queue's job fences.
 * @submit_lock: orders commits: job fences get their seqnos and enter
 *	the backlog in one order; also protects @seqno and @closed.
 * @seqno: seqno of the last committed job.
 * @closed: the handle is gone: nothing more is committed.
 * @backlog: committed jobs not yet pushed to the entity, in order.
 * @ready_link: on the client's ready list while the next job may go.
 * @head_blocked: the next job waits for a dependency (a callback is set).
 * @running_here: SUBMIT runs a job of the queue itself.
 * @unblock_work: takes the next job up when its dependency signalled.
 * @lock: protects the fields below; taken on the fence signalling path.
 * @active: committed jobs whose fence has not signalled.
 * @killed: the file was closed by a killed process: skip what is left.
 * @state: DRM_GACCEL_QUEUE_STATE_* bits.
 * @last_error: errno of the last failed job.
 * @submitted: jobs committed.
 * @completed: jobs finished without error.
 * @failed: jobs finished with an error.
 * @timeouts: jobs cancelled by the job timeout.
 * @in_flight: jobs of the queue not yet freed, against max_queue_jobs.
 * @free_work: tears the entity down after the last reference.
 */
struct gaccel_queue {
	struct kref ref;
	struct gaccel_device *gdev;
	struct gaccel_usage *usage;
	struct gaccel_client *client;
	u32 prio;
	struct drm_sched_entity entity;
	u64 fence_ctx;
	struct mutex submit_lock; /* commit order, seqno, closed */
	u64 seqno;
	bool closed;
	struct list_head backlog;
	struct list_head ready_link;
	bool head_blocked;
	bool running_here;
	struct work_struct unblock_work;
	spinlock_t lock; /* active, killed and the state fields */
	u32 active;
	bool killed;
	u32 state;
	int last_error;
	u64 submitted;
	u64 completed;
	u64 failed;
	u64 timeouts;
	atomic_t in_flight;
	struct work_struct free_work;
};

void gaccel_client_put(struct gaccel_client *c);

struct gaccel_queue *gaccel_queue_lookup(struct gaccel_file *gfile, u32 handle);
struct gaccel_queue *gaccel_queue_get(struct gaccel_queue *q);
void gaccel_queue_put(struct gaccel_queue *q);

int gaccel_queue_check_submit(struct drm_device *drm, struct gaccel_queue *q);
int gaccel_queue_reserve_job(struct drm_device *drm, struct gaccel_queue *q);
void gaccel_queue_unreserve_job(struct gaccel_queue *q);

int gaccel_queue_commit_begin(struct drm_device *drm, struct gaccel_queue *q);
u64 gaccel_queue_next_seqno(struct gaccel_queue *q);
bool gaccel_queue_claim(struct gaccel_queue *q);
void gaccel_queue_commit(struct gaccel_queue *q, struct gaccel_job *job);
void gaccel_queue_ran_here(struct gaccel_queue *q);
void gaccel_queue_commit_end(struct gaccel_queue *q);

int gaccel_queue_job_starting(struct gaccel_queue *q);
void gaccel_queue_dep_signalled(struct gaccel_queue *q);
void gaccel_queue_job_done(struct gaccel_queue *q, int error);
void gaccel_queue_job_timed_out(struct gaccel_queue *q);

int gaccel_queue_file_init(struct gaccel_file *gfile);
void gaccel_queue_file_fini(struct gaccel_file *gfile);

int gaccel_queue_module_init(void);
void gaccel_queue_module_exit(void);

int gaccel_ioctl_queue_create(struct drm_device *drm, void *data,
			      struct drm_file *file);
int gaccel_ioctl_queue_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file);
int gaccel_ioctl_queue_get_state(struct drm_device *drm, void *data,
				 struct drm_file *file);

#endif /* __GACCEL_QUEUE_H__ */
