// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Queues: in-order job streams, one drm_sched entity each.
 *
 * Lifetime. A queue is reference counted: its handle holds one reference,
 * every job of the queue one (taken by SUBMIT, dropped when the scheduler
 * frees the job). QUEUE_DESTROY and closing the file drop the handle: jobs
 * already committed still run and signal, nothing new is committed. The
 * last reference goes to a module-level workqueue (never the schedulers'
 * own: the queue's release may release the device, which destroys them),
 * which finishes the entity - idle by then, since no job of the queue is
 * left - and drops the queue's references on the device and on the file's
 * usage counters. A queue owns no thread or workqueue: creating one costs
 * a small, memcg-charged allocation, bounded per file by max_queues.
 *
 * Scheduling. SUBMIT commits jobs to the queue's backlog in order. A short
 * job with nothing to wait for, committed to a queue with nothing in
 * flight, SUBMIT runs itself after the commit (gaccel_job.c), in the
 * submitting process's context and CPU time, without a trip through the
 * scheduler; the queue's order holds because nothing else of the queue is
 * in flight and later jobs wait for it in the backlog.
 *
 * Other jobs go to the scheduler one at a time per file and priority: a
 * file has at most one job of each priority pushed to an entity and not
 * yet started (its "turn"). When that job starts (run_job), the next queue
 * of the file with a ready job, in round-robin order, pushes its next job.
 * The scheduler picks among entities by the submit time of the job each
 * holds (drm_sched's default FIFO policy from 6.2) or round robin; with one
 * waiting job per file, stamped when the file's previous one started, FIFO
 * takes files in turn: a client with sixteen queues and a thousand jobs
 * queued gets one job started per turn, like a client with one job. Round
 * robin (6.1, which has no FIFO) walks the entities in list order, so such
 * a client may get up to one turn per queue before another's. A job is
 * pushed only once everything it waits for has signalled (a fence callback
 * brings it up), so a blocked job never holds its file's turn and queues
 * of one file may depend on each other. Jobs of a queue still run one at a
 * time and in order, and the entity never migrates between arm and push
 * (a job is armed right before it is pushed). Priorities are separate run
 * queues, served high first; HIGH needs CAP_SYS_NICE.
 *
 * Errors. A job that overruns the job timeout marks its queue TIMEDOUT:
 * the jobs behind it are skipped (their fences signal -ECANCELED) and
 * SUBMIT refuses more. A queue of a file closed by a process killed with
 * SIGKILL skips what is left the same way.
 */

#include <linux/capability.h>
#include <linux/dma-fence.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_job.h"
#include "gaccel_limits.h"
#include "gaccel_queue.h"

static struct workqueue_struct *gaccel_queue_free_wq;

static void gaccel_queue_free_work(struct work_struct *work)
{
	struct gaccel_queue *q = container_of(work, struct gaccel_queue, free_work);
	struct drm_device *drm = &q->gdev->drm;

	/* No job is left: the entity is idle and leaves the scheduler. */
	cancel_work_sync(&q->unblock_work);
	drm_sched_entity_fini(&q->entity);
	gaccel_client_put(q->client);
	gaccel_usage_put(q->usage);
	mutex_destroy(&q->submit_lock);
	kfree(q);
	drm_dev_put(drm);
}

static void gaccel_queue_release(struct kref *ref)
{
	struct gaccel_queue *q = container_of(ref, struct gaccel_queue, ref);

	queue_work(gaccel_queue_free_wq, &q->free_work);
}

struct gaccel_queue *gaccel_queue_get(struct gaccel_queue *q)
{
	kref_get(&q->ref);
	return q;
}

void gaccel_queue_put(struct gaccel_queue *q)
{
	if (q)
		kref_put(&q->ref, gaccel_queue_release);
}

/**
 * gaccel_queue_lookup - the queue of a handle, with a reference.
 * @gfile: the file.
 * @handle: the handle.
 *
 * Returns the queue or NULL.
 */
struct gaccel_queue *gaccel_queue_lookup(struct gaccel_file *gfile, u32 handle)
{
	struct gaccel_queue *q;

	xa_lock(&gfile->queues);
	q = xa_load(&gfile->queues, handle);
	if (q)
		kref_get(&q->ref);
	xa_unlock(&gfile->queues);
	return q;
}

/**
 * gaccel_queue_check_submit - whether the queue still takes jobs.
 * @drm: the device, for the debug message.
 * @q: the queue.
 *
 * Returns 0, or -ECANCELED once a job of the queue timed out.
 */
int gaccel_queue_check_submit(struct drm_device *drm, struct gaccel_queue *q)
{
	/* A sticky bit: no lock needed to see it set. */
	if (READ_ONCE(q->state) & DRM_GACCEL_QUEUE_STATE_TIMEDOUT) {
		drm_dbg(drm, "SUBMIT: the queue timed out\n");
		return -ECANCELED;
	}
	return 0;
}

/**
 * gaccel_queue_reserve_job - count one more job in flight.
 * @drm: the device, for the debug message.
 * @q: the queue.
 *
 * Charges the job to the queue (max_queue_jobs) and to the file (max_jobs)
 * until gaccel_queue_unreserve_job(), which the job's release calls.
 * Returns 0 or -EAGAIN.
 */
int gaccel_queue_reserve_job(struct drm_device *drm, struct gaccel_queue *q)
{
	u32 limit = gaccel_limit_queue_jobs();
	int ret;

	if (atomic_inc_return(&q->in_flight) > limit) {
		atomic_dec(&q->in_flight);
		drm_dbg(drm, "queue limit: more than %u jobs in flight\n", limit);
		return -EAGAIN;
	}
	ret = gaccel_charge(drm, q->usage, GACCEL_RES_JOBS, 1);
	if (ret)
		atomic_dec(&q->in_flight);
	return ret;
}

void gaccel_queue_unreserve_job(struct gaccel_queue *q)
{
	gaccel_uncharge(q->usage, GACCEL_RES_JOBS, 1);
	atomic_dec(&q->in_flight);
}

/**
 * gaccel_queue_commit_begin - start committing jobs.
 * @drm: the device, for the debug message.
 * @q: the queue.
 *
 * Returns 0 with the queue's commit lock held, -ENOENT if the queue was
 * destroyed meanwhile, -EINTR if a signal came first.
 */
int gaccel_queue_commit_begin(struct drm_device *drm, struct gaccel_queue *q)
{
	int ret = mutex_lock_interruptible(&q->submit_lock);

	if (ret)
		return ret;
	if (q->closed) {
		mutex_unlock(&q->submit_lock);
		drm_dbg(drm, "SUBMIT: the queue was destroyed meanwhile\n");
		return -ENOENT;
	}
	return 0;
}

u64 gaccel_queue_next_seqno(struct gaccel_queue *q)
{
	lockdep_assert_held(&q->submit_lock);
	return ++q->seqno;
}

/*
 * Put the queue on its file's ready list if its next job may be pushed, or
 * have a dependency of that job call us back.
 */
static void gaccel_queue_eval(struct gaccel_queue *q)
{
	struct gaccel_client *c = q->client;
	struct gaccel_job *job;

	lockdep_assert_held(&c->lock);
	if (q->running_here || q->head_blocked || !list_empty(&q->ready_link) ||
	    list_empty(&q->backlog))
		return;
	job = list_first_entry(&q->backlog, struct gaccel_job, link);
	if (gaccel_job_wait_deps(job)) {
		q->head_blocked = true;
		return;
	}
	list_add_tail(&q->ready_link, &c->ready[q->prio]);
}

/* Push the next ready job of each priority whose turn is free. */
static void gaccel_client_kick(struct gaccel_client *c)
{
	struct gaccel_queue *q;
	struct gaccel_job *job;
	u32 p;

	lockdep_assert_held(&c->lock);
	for (p = 0; p < GACCEL_QUEUE_PRIOS; p++) {
		if (c->waiting[p] || list_empty(&c->ready[p]))
			continue;
		q = list_first_entry(&c->ready[p], struct gaccel_queue, ready_link);
		list_del_init(&q->ready_link);
		job = list_first_entry(&q->backlog, struct gaccel_job, link);
		list_del_init(&job->link);
		c->waiting[p] = true;
		gaccel_job_push(job);
		/* Its next job, if any, queues up behind the file's others. */
		gaccel_queue_eval(q);
	}
}

/**
 * gaccel_queue_claim - take the queue's turn for a job SUBMIT runs itself.
 * @q: the queue, its commit lock held.
 *
 * Succeeds when no job of the queue is in flight: the job, committed next,
 * then runs in order without the scheduler, and later jobs wait in the
 * backlog until gaccel_queue_ran_here(). The answer cannot go stale: under
 * the commit lock jobs only finish. Counts the job as committed.
 */
bool gaccel_queue_claim(struct gaccel_queue *q)
{
	struct gaccel_client *c = q->client;
	bool idle;

	lockdep_assert_held(&q->submit_lock);
	spin_lock(&c->lock);
	spin_lock(&q->lock);
	idle = !q->active && !q->killed &&
	       !(q->state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT);
	if (idle) {
		q->submitted++;
		q->active++;
	}
	spin_unlock(&q->lock);
	q->running_here = idle;
	spin_unlock(&c->lock);
	return idle;
}

/**
 * gaccel_queue_commit - queue a committed job, behind those before it.
 * @q: the queue, its commit lock held.
 * @job: the job; its fence is published.
 */
void gaccel_queue_commit(struct gaccel_queue *q, struct gaccel_job *job)
{
	struct gaccel_client *c = q->client;

	lockdep_assert_held(&q->submit_lock);
	spin_lock(&c->lock);
	spin_lock(&q->lock);
	q->submitted++;
	q->active++;
	spin_unlock(&q->lock);
	list_add_tail(&job->link, &q->backlog);
	gaccel_queue_eval(q);
	gaccel_client_kick(c);
	spin_unlock(&c->lock);
}

/**
 * gaccel_queue_ran_here - SUBMIT ran its job: give the queue's turn back.
 * @q: the queue.
 */
void gaccel_queue_ran_here(struct gaccel_queue *q)
{
	struct gaccel_client *c = q->client;

	spin_lock(&c->lock);
	q->running_here = false;
	gaccel_queue_eval(q);
	gaccel_client_kick(c);
	spin_unlock(&c->lock);
}

/**
 * gaccel_queue_dep_signalled - a dependency of the queue's next job
 *	signalled: called from a fence callback (any context).
 * @q: the queue.
 */
void gaccel_queue_dep_signalled(struct gaccel_queue *q)
{
	queue_work(q->gdev->sched.submit_wq, &q->unblock_work);
}

/* Process context, on the fence signalling path: no allocation. */
static void gaccel_queue_unblock_work(struct work_struct *work)
{
	struct gaccel_queue *q = container_of(work, struct gaccel_queue,
					      unblock_work);
	struct gaccel_client *c = q->client;
	bool cookie = dma_fence_begin_signalling();

	spin_lock(&c->lock);
	q->head_blocked = false;
	gaccel_queue_eval(q);
	gaccel_client_kick(c);
	spin_unlock(&c->lock);
	dma_fence_end_signalling(cookie);
}

void gaccel_queue_commit_end(struct gaccel_queue *q)
{
	mutex_unlock(&q->submit_lock);
}

/**
 * gaccel_queue_job_starting - a job of the queue is starting (run_job).
 * @q: the queue.
 *
 * The file's turn is free: its next ready job is pushed, so that it waits
 * in an entity while this one runs. Returns 0, or -ECANCELED when the job
 * must be skipped.
 */
int gaccel_queue_job_starting(struct gaccel_queue *q)
{
	struct gaccel_client *c = q->client;
	int error = 0;

	spin_lock(&c->lock);
	c->waiting[q->prio] = false;
	gaccel_client_kick(c);
	spin_unlock(&c->lock);

	spin_lock(&q->lock);
	if ((q->state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT) || q->killed)
		error = -ECANCELED;
	spin_unlock(&q->lock);
	return error;
}

/**
 * gaccel_queue_job_done - count a job that finished.
 * @q: the queue.
 * @error: its errno, or 0.
 */
void gaccel_queue_job_done(struct gaccel_queue *q, int error)
{
	spin_lock(&q->lock);
	q->active--;
	if (error) {
		q->failed++;
		q->last_error = error;
		q->state |= DRM_GACCEL_QUEUE_STATE_FAULT;
	} else {
		q->completed++;
	}
	spin_unlock(&q->lock);
}

/**
 * gaccel_queue_job_timed_out - a job of the queue overran the job timeout.
 * @q: the queue.
 */
void gaccel_queue_job_timed_out(struct gaccel_queue *q)
{
	spin_lock(&q->lock);
	q->state |= DRM_GACCEL_QUEUE_STATE_TIMEDOUT;
	q->timeouts++;
	spin_unlock(&q->lock);
}

static void gaccel_client_release(struct kref *ref)
{
	kfree(container_of(ref, struct gaccel_client, ref));
}

void gaccel_client_put(struct gaccel_client *c)
{
	kref_put(&c->ref, gaccel_client_release);
}

/**
 * gaccel_queue_file_init - the scheduling state of a new file.
 * @gfile: the file.
 */
int gaccel_queue_file_init(struct gaccel_file *gfile)
{
	struct gaccel_client *c;
	u32 p;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	kref_init(&c->ref);
	spin_lock_init(&c->lock);
	for (p = 0; p < GACCEL_QUEUE_PRIOS; p++)
		INIT_LIST_HEAD(&c->ready[p]);
	gfile->client = c;
	xa_init_flags(&gfile->queues, XA_FLAGS_ALLOC1);
	return 0;
}

/* Drop the handle: committed jobs still run, nothing new is committed. */
static void gaccel_queue_close(struct gaccel_queue *q, bool killed)
{
	/*
	 * A SUBMIT that looked the queue up before the handle went may be
	 * preparing jobs: it finds @closed set when it comes to commit.
	 */
	mutex_lock(&q->submit_lock);
	q->closed = true;
	mutex_unlock(&q->submit_lock);
	if (killed) {
		spin_lock(&q->lock);
		q->killed = true;
		spin_unlock(&q->lock);
	}
	gaccel_uncharge(q->usage, GACCEL_RES_QUEUES, 1);
	gaccel_queue_put(q);
}

/**
 * gaccel_queue_file_fini - drop the handles of a closing file.
 * @gfile: the file.
 *
 * The jobs of a process killed by SIGKILL are skipped, as drm_sched does
 * for its entities; otherwise they run to completion.
 */
void gaccel_queue_file_fini(struct gaccel_file *gfile)
{
	bool killed = (current->flags & PF_EXITING) &&
		      current->exit_code == SIGKILL;
	struct gaccel_queue *q;
	unsigned long index;

	xa_for_each(&gfile->queues, index, q)
		gaccel_queue_close(q, killed);
	xa_destroy(&gfile->queues);
	gaccel_client_put(gfile->client);
}

int gaccel_ioctl_queue_create(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	static const enum drm_sched_priority prio[] = {
		[DRM_GACCEL_QUEUE_PRIORITY_LOW] = GACCEL_SCHED_PRIORITY_LOW,
		[DRM_GACCEL_QUEUE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
		[DRM_GACCEL_QUEUE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct gaccel_device *gdev = to_gaccel_device(drm);
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_queue_create *args = data;
	struct gaccel_queue *q;
	u32 handle;
	int ret;

	if (args->flags || args->pad) {
		drm_dbg(drm, "QUEUE_CREATE: flags/pad must be zero\n");
		return -EINVAL;
	}
	if (args->priority >= ARRAY_SIZE(prio)) {
		drm_dbg(drm, "QUEUE_CREATE: priority %u unknown\n", args->priority);
		return -EINVAL;
	}
	if (args->priority == DRM_GACCEL_QUEUE_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE)) {
		drm_dbg(drm, "QUEUE_CREATE: HIGH priority needs CAP_SYS_NICE\n");
		return -EACCES;
	}
	ret = gaccel_charge(drm, gfile->usage, GACCEL_RES_QUEUES, 1);
	if (ret)
		return ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	kref_init(&q->ref);
	q->gdev = gdev;
	mutex_init(&q->submit_lock);
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->backlog);
	INIT_LIST_HEAD(&q->ready_link);
	INIT_WORK(&q->unblock_work, gaccel_queue_unblock_work);
	INIT_WORK(&q->free_work, gaccel_queue_free_work);
	q->prio = args->priority;
	q->fence_ctx = dma_fence_context_alloc(1);
	ret = drm_sched_entity_init(&q->entity, prio[args->priority],
				    gdev->sched.list, gdev->sched.count, NULL);
	if (ret)
		goto err_free;
	q->usage = gaccel_usage_get(gfile->usage);
	kref_get(&gfile->client->ref);
	q->client = gfile->client;
	drm_dev_get(drm);

	/* Published last: from here on another thread may destroy it. */
	ret = xa_alloc(&gfile->queues, &handle, q, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		drm_sched_entity_fini(&q->entity);
		gaccel_client_put(q->client);
		gaccel_usage_put(q->usage);
		drm_dev_put(drm);
		goto err_free;
	}
	args->handle = handle;
	return 0;

err_free:
	mutex_destroy(&q->submit_lock);
	kfree(q);
err_uncharge:
	gaccel_uncharge(gfile->usage, GACCEL_RES_QUEUES, 1);
	return ret;
}

int gaccel_ioctl_queue_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_queue_destroy *args = data;
	struct gaccel_queue *q;

	if (args->pad) {
		drm_dbg(drm, "QUEUE_DESTROY: pad must be zero\n");
		return -EINVAL;
	}
	q = xa_erase(&gfile->queues, args->handle);
	if (!q) {
		drm_dbg(drm, "QUEUE_DESTROY: no queue %u\n", args->handle);
		return -ENOENT;
	}
	gaccel_queue_close(q, false);
	return 0;
}

int gaccel_ioctl_queue_get_state(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_queue_get_state *args = data;
	struct gaccel_queue *q;

	if (args->pad) {
		drm_dbg(drm, "QUEUE_GET_STATE: pad must be zero\n");
		return -EINVAL;
	}
	q = gaccel_queue_lookup(gfile, args->handle);
	if (!q) {
		drm_dbg(drm, "QUEUE_GET_STATE: no queue %u\n", args->handle);
		return -ENOENT;
	}
	spin_lock(&q->lock);
	args->state = q->state;
	args->last_error = q->last_error;
	args->submitted = q->submitted;
	args->completed = q->completed;
	args->failed = q->failed;
	args->timeouts = q->timeouts;
	spin_unlock(&q->lock);
	gaccel_queue_put(q);
	return 0;
}

/* Queues are freed here: the device's release may come with the last one. */
int gaccel_queue_module_init(void)
{
	gaccel_queue_free_wq = alloc_workqueue("gaccel-free", WQ_UNBOUND, 0);
	return gaccel_queue_free_wq ? 0 : -ENOMEM;
}

void gaccel_queue_module_exit(void)
{
	destroy_workqueue(gaccel_queue_free_wq);
}
