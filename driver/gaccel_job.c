// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Jobs: prepare, bind, syncs, commit, run, complete, free.
 *
 * Lifetime. SUBMIT creates a job (gaccel_job_create()) holding references
 * on its queue, graph, objects and syncobjs, and charges it to the queue's
 * and the file's limits. Everything that can fail happens there or before
 * the commit: handle lookups, kernel mappings, the fence, timeline chains,
 * dependencies, scratch memory, drm_sched's part (gaccel_job_sched_init())
 * - allocated with the caller's memcg charged. A job that fails before it
 * is committed is freed by SUBMIT. Committing (gaccel_job_commit(), in
 * queue order) publishes the job's fence in the objects' dma_resv and the
 * syncobjs and gives the scheduler a reference, which its free_job
 * callback drops once the job's scheduler fence signalled (a job SUBMIT
 * runs itself drops it there). SUBMIT keeps a reference of its own until
 * it has unlocked the objects' reservations, so the job and the objects it
 * holds outlive the ioctl even if the job completes at once. The job's
 * fence outlives the job (gaccel_fence.c).
 *
 * Signalling path. After commit nothing allocates or takes a lock that
 * reclaim may hold: arming and pushing (gaccel_queue.c), run_job, the
 * engine's completion and the timeout handler are annotated with
 * dma_fence_begin_signalling()/end().
 *
 * Completion and timeout race for a running job through @state: the engine's
 * done() moves it from RUNNING to DONE, the timeout handler from RUNNING to
 * TIMEDOUT; whoever comes second knows it. A job whose engine finished just
 * before its timeout is therefore reported as finished, not timed out.
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_fence.h"
#include "gaccel_gem.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"
#include "gaccel_limits.h"
#include "gaccel_queue.h"
#include "gaccel_sched.h"

/**
 * struct gaccel_signal - a syncobj a job signals.
 * @syncobj: the syncobj (a reference).
 * @chain: for a timeline point, its chain node, allocated at submit.
 * @point: the timeline point, 0 for a binary syncobj.
 */
struct gaccel_signal {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

/* Signal the job's fence with its result, exactly once. */
static void gaccel_job_signal(struct gaccel_job *job, int error)
{
	struct dma_fence *fence = gaccel_job_fence(job);

	gaccel_queue_job_done(job->queue, error);
	if (error)
		dma_fence_set_error(fence, error);
	dma_fence_signal(fence);
}

static void gaccel_job_release(struct kref *ref)
{
	struct gaccel_job *job = container_of(ref, struct gaccel_job, ref);
	struct dma_fence *dep;
	unsigned long index;
	u32 i;

	if (job->committed) {
		struct dma_fence *fence = gaccel_job_fence(job);

		/* A job the scheduler dropped without running it. */
		if (!dma_fence_is_signaled(fence))
			gaccel_job_signal(job, -ECANCELED);
		dma_fence_put(fence);
	} else {
		gaccel_fence_free_unused(job->fence);
	}
	if (job->sched_inited)
		drm_sched_job_cleanup(&job->base);
	if (!xa_empty(&job->deps)) {
		xa_for_each(&job->deps, index, dep)
			dma_fence_put(dep);
		xa_destroy(&job->deps);
	}
	if (!xa_empty(&job->waits)) {
		xa_for_each(&job->waits, index, dep)
			dma_fence_put(dep);
		xa_destroy(&job->waits);
	}
	for (i = 0; i < job->num_bos; i++)
		drm_gem_object_put(job->bos[i].obj);
	for (i = 0; i < job->num_signals; i++) {
		drm_syncobj_put(job->signals[i].syncobj);
		if (job->signals[i].chain)
			dma_fence_chain_free(job->signals[i].chain);
	}
	kvfree(job->ejob.scratch);
	gaccel_graph_put(job->graph);
	if (job->reserved)
		gaccel_queue_unreserve_job(job->queue);
	gaccel_queue_put(job->queue);
	kvfree(job);
}

/**
 * gaccel_job_put - drop a reference; the last one frees the job.
 * @job: the job.
 */
void gaccel_job_put(struct gaccel_job *job)
{
	kref_put(&job->ref, gaccel_job_release);
}

static struct workqueue_struct *gaccel_job_free_wq;

static void gaccel_job_free_work(struct work_struct *work)
{
	gaccel_job_release(&container_of(work, struct gaccel_job, free_work)->ref);
}

static void gaccel_job_release_later(struct kref *ref)
{
	struct gaccel_job *job = container_of(ref, struct gaccel_job, ref);

	INIT_WORK(&job->free_work, gaccel_job_free_work);
	queue_work(gaccel_job_free_wq, &job->free_work);
}

/**
 * gaccel_job_put_later - gaccel_job_put() for the scheduler's free_job.
 * @job: the job.
 *
 * The last reference frees the job on a workqueue of its own. Freeing it
 * may free its objects, which takes their reservation locks, and
 * drm_sched_stop() in the timeout handler (a fence signalling section)
 * waits for free_job: done there, the free would let a timeout wait for a
 * lock that reclaim, and so fence waits, may depend on.
 */
void gaccel_job_put_later(struct gaccel_job *job)
{
	kref_put(&job->ref, gaccel_job_release_later);
}

int gaccel_job_module_init(void)
{
	gaccel_job_free_wq = alloc_workqueue("gaccel-job-free", WQ_UNBOUND, 0);
	return gaccel_job_free_wq ? 0 : -ENOMEM;
}

/* Frees the jobs still waiting to be: before the queues they hold. */
void gaccel_job_module_exit(void)
{
	destroy_workqueue(gaccel_job_free_wq);
}

/* ------------------------------------------------------------------------ */
/* Engine                                                                    */

static void gaccel_job_engine_done(struct gaccel_engine_job *ejob, int error)
{
	struct gaccel_job *job = container_of(ejob, struct gaccel_job, ejob);
	struct gaccel_usage *usage = job->queue->usage;
	bool cookie = dma_fence_begin_signalling();

	if (atomic_cmpxchg(&job->state, GACCEL_JOB_RUNNING, GACCEL_JOB_DONE) ==
	    GACCEL_JOB_TIMEDOUT)
		error = -ETIMEDOUT;
	else if (error == -ECANCELED && READ_ONCE(job->queue->gdev->sched.unplugged))
		error = -ENODEV;
	if (job->gs)
		gaccel_sched_end_job(job->gs, job);
	/* A DMA engine's results, visible to the CPU before the fence says so. */
	gaccel_engine_sync_job(job->queue->gdev->engine, ejob, false);
	atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), job->start_time)),
		     &usage->engine_ns);
	/* The scheduler may free the job from here on. */
	gaccel_job_signal(job, error);
	dma_fence_end_signalling(cookie);
}

/**
 * gaccel_job_wait_error - the error an explicit wait of the job ended with.
 * @job: the job; everything it waits for has signalled.
 *
 * Returns the first negative status among the fences of the job's syncobj
 * waits, or 0: a job whose input failed must not run on what the failed
 * job left behind; it fails with the same error, which its own fence then
 * passes on to the jobs that wait for it.
 */
int gaccel_job_wait_error(struct gaccel_job *job)
{
	struct dma_fence *fence;
	unsigned long index;
	int status;

	xa_for_each(&job->waits, index, fence) {
		/* A timeline point: the fence it holds carries the error. */
		status = dma_fence_get_status(dma_fence_chain_contained(fence));
		if (status < 0) {
			drm_dbg(&job->queue->gdev->drm,
				"job: a fence it waits for failed (%d): not run\n",
				status);
			return status;
		}
	}
	return 0;
}

/**
 * gaccel_job_run - run_job: give the job to the engine, or skip it.
 * @job: the job, popped from its queue's entity.
 * @gs: its scheduler.
 *
 * Returns the job's fence (a new reference), which the engine signals; a
 * skipped job's fence is already signalled with the reason.
 */
struct dma_fence *gaccel_job_run(struct gaccel_job *job, struct gaccel_sched *gs)
{
	struct gaccel_engine *engine = gs->gdev->engine;
	struct dma_fence *fence = dma_fence_get(gaccel_job_fence(job));
	bool cookie = dma_fence_begin_signalling();
	int error, idx;

	/*
	 * Inside drm_dev_enter(): unregistering the engine waits for a run()
	 * in progress, and no job starts after it.
	 */
	if (!drm_dev_enter(&gs->gdev->drm, &idx)) {
		gaccel_queue_job_starting(job->queue);
		gaccel_job_signal(job, -ENODEV);
		dma_fence_end_signalling(cookie);
		return fence;
	}
	/* The queue's next job goes into the entity while this one runs. */
	error = gaccel_queue_job_starting(job->queue);
	if (!error)
		error = job->base.s_fence->finished.error;
	if (!error)
		error = gaccel_job_wait_error(job);
	if (!error && !gaccel_sched_start_job(gs, job))
		error = -ENODEV;
	if (error) {
		gaccel_job_signal(job, error);
	} else {
		job->gs = gs;
		job->started = jiffies;
		job->start_time = ktime_get();
		atomic_set(&job->state, GACCEL_JOB_RUNNING);
		gaccel_engine_sync_job(engine, &job->ejob, true);
		/* A short job may complete before this returns. */
		engine->ops->run(engine, &job->ejob);
		if (engine->completion == GACCEL_ENGINE_COMPLETE_POLL)
			gaccel_sched_poll_kick(gs->gdev);
	}
	drm_dev_exit(idx);
	dma_fence_end_signalling(cookie);
	return fence;
}

/**
 * gaccel_job_may_run_here - whether SUBMIT may run the job itself.
 * @job: the job, prepared, its implicit dependencies added.
 *
 * When nothing the job waits for is pending and the engine says the job is
 * short enough to run in the caller's context. The queue decides whether
 * it is idle (gaccel_queue_claim()).
 */
bool gaccel_job_may_run_here(struct gaccel_job *job)
{
	struct gaccel_device *gdev = job->queue->gdev;
	struct gaccel_engine *engine = gdev->engine;
	struct dma_fence *fence;
	unsigned long index;

	if (!engine->ops->is_short || READ_ONCE(gdev->sched.unplugged))
		return false;
	if (!xa_empty(&job->deps))
		xa_for_each(&job->deps, index, fence)
			if (!dma_fence_is_signaled(fence))
				return false;
	return engine->ops->is_short(engine, &job->ejob);
}

/**
 * gaccel_job_run_here - run a committed job in the submitter's context.
 * @job: the job; gaccel_queue_claim() gave SUBMIT the queue's turn for it.
 *
 * Called after SUBMIT released every lock. The job runs now and its fence
 * signals before this returns: no scheduler, no worker, no context switch,
 * which is what a small job's latency is made of. Only for a job the engine
 * called short: it is over within a few FPU sections, so it needs no
 * timeout.
 */
void gaccel_job_run_here(struct gaccel_job *job)
{
	struct gaccel_engine *engine = job->queue->gdev->engine;
	bool cookie = dma_fence_begin_signalling();
	int error;

	job->start_time = ktime_get();
	error = gaccel_job_wait_error(job);
	if (error) {
		gaccel_job_signal(job, error);
	} else {
		atomic_set(&job->state, GACCEL_JOB_RUNNING);
		engine->ops->run_short(engine, &job->ejob);
	}
	gaccel_queue_ran_here(job->queue);
	/* The reference the scheduler would have dropped. */
	gaccel_job_put(job);
	dma_fence_end_signalling(cookie);
}

/**
 * gaccel_job_sched_init - give the job to the scheduler.
 * @job: the job, prepared, its implicit dependencies added, not committed.
 * @file: the submitting file.
 *
 * For every job SUBMIT does not run itself, before any job of the SUBMIT
 * is committed: this allocates (drm_sched's fence, its dependency array).
 */
int gaccel_job_sched_init(struct gaccel_job *job, struct drm_file *file)
{
	struct dma_fence *fence;
	unsigned long index;
	int ret;

#ifdef GACCEL_HAVE_DRM_SCHED_JOB_INIT_CLIENT_ID
	ret = drm_sched_job_init(&job->base, &job->queue->entity, 1, NULL,
				 file->client_id);
#elif defined(GACCEL_HAVE_DRM_SCHED_JOB_INIT_CREDITS)
	ret = drm_sched_job_init(&job->base, &job->queue->entity, 1, NULL);
#else
	ret = drm_sched_job_init(&job->base, &job->queue->entity, NULL);
#endif
	if (ret)
		return ret;
	job->sched_inited = true;
	xa_for_each(&job->deps, index, fence) {
		xa_erase(&job->deps, index);
		/* Consumes the reference, also when it fails. */
		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * gaccel_job_timeout - take a running job from the engine.
 * @job: the job.
 *
 * Returns false if the engine finished it first. Otherwise marks the queue
 * TIMEDOUT and asks the engine to cancel the job; its fence then signals
 * with -ETIMEDOUT.
 */
bool gaccel_job_timeout(struct gaccel_job *job)
{
	struct gaccel_device *gdev = job->queue->gdev;
	struct gaccel_engine *engine = gdev->engine;
	int idx;

	if (atomic_cmpxchg(&job->state, GACCEL_JOB_RUNNING,
			   GACCEL_JOB_TIMEDOUT) != GACCEL_JOB_RUNNING)
		return false;
	drm_dbg(&gdev->drm, "job timed out, cancelling it\n");
	gaccel_queue_job_timed_out(job->queue);
	/* Once unregistered, the engine had every running job cancelled. */
	WRITE_ONCE(job->ejob.cancel, true);
	if (drm_dev_enter(&gdev->drm, &idx)) {
		engine->ops->cancel(engine, &job->ejob);
		drm_dev_exit(idx);
	}
	return true;
}

static void gaccel_job_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct gaccel_job *job = container_of(cb, struct gaccel_job, dep_cb);

	gaccel_queue_dep_signalled(job->queue);
}

/**
 * gaccel_job_wait_deps - whether the job still waits for a dependency.
 * @job: the next job of its queue, given to the scheduler.
 *
 * Returns true when a dependency has not signalled: a callback on it then
 * tells the queue (gaccel_queue_dep_signalled()), which asks again.
 */
bool gaccel_job_wait_deps(struct gaccel_job *job)
{
	struct dma_fence *fence;
	unsigned long index;

	if (xa_empty(&job->base.dependencies))
		return false;
	xa_for_each(&job->base.dependencies, index, fence)
		if (!dma_fence_add_callback(fence, &job->dep_cb,
					    gaccel_job_dep_cb))
			return true;
	return false;
}

/**
 * gaccel_job_push - arm the job and push it to its queue's entity.
 * @job: the job, committed, ready; called under its file's client lock,
 *	in queue order.
 */
void gaccel_job_push(struct gaccel_job *job)
{
	drm_sched_job_arm(&job->base);
	drm_sched_entity_push_job(&job->base);
}

/* ------------------------------------------------------------------------ */
/* Prepare                                                                   */

/**
 * gaccel_copy_array_buf - gaccel_copy_array() into a caller's buffer.
 * @drm: the device, for debug messages.
 * @what: the array's name, for debug messages.
 * @arr: the array as userspace describes it.
 * @max_count: most elements allowed.
 * @elem_size: the kernel's element size.
 * @buf: a buffer for small arrays (typically on the stack).
 * @buf_size: its size.
 * @out: the elements; release with gaccel_free_array_buf().
 *
 * A small array of the kernel's element size (the common case: a job binds
 * a handful of objects) is copied into @buf, saving an allocation on the
 * submit path; anything else goes through gaccel_copy_array() and its
 * checks.
 */
int gaccel_copy_array_buf(struct drm_device *drm, const char *what,
			  const struct drm_gaccel_array *arr, u32 max_count,
			  size_t elem_size, void *buf, size_t buf_size,
			  void **out)
{
	if (arr->count && arr->count <= max_count && arr->stride == elem_size &&
	    arr->count <= buf_size / elem_size) {
		if (copy_from_user(buf, u64_to_user_ptr(arr->pointer),
				   arr->count * elem_size)) {
			drm_dbg(drm, "%s: cannot copy %u elements in\n", what,
				arr->count);
			return -EFAULT;
		}
		*out = buf;
		return 0;
	}
	return gaccel_copy_array(drm, what, arr, max_count, elem_size,
				 elem_size, out);
}

static int gaccel_job_bo_cmp(const void *a, const void *b)
{
	const struct gaccel_job_bo *x = a, *y = b;

	if (x->obj == y->obj)
		return 0;
	return x->obj < y->obj ? -1 : 1;
}

/* Sort the objects and merge duplicates: O(n log n) for any binding count. */
static void gaccel_job_dedup_bos(struct gaccel_job *job)
{
	u32 i, n = 0;

	sort(job->bos, job->num_bos, sizeof(*job->bos), gaccel_job_bo_cmp, NULL);
	for (i = 0; i < job->num_bos; i++) {
		if (n && job->bos[n - 1].obj == job->bos[i].obj) {
			job->bos[n - 1].write |= job->bos[i].write;
			drm_gem_object_put(job->bos[i].obj);
		} else {
			job->bos[n++] = job->bos[i];
		}
	}
	job->num_bos = n;
	for (i = 0; i < n; i++)
		job->objs[i] = job->bos[i].obj;
}

static int gaccel_job_bind(struct drm_device *drm, struct drm_file *file,
			   struct gaccel_job *job,
			   const struct drm_gaccel_array *arr)
{
	const struct gaccel_graph *graph = job->graph;
	struct drm_gaccel_binding *b, buf[8];
	bool dma = job->ejob.dma;
	u32 i;
	int ret;

	if (arr->count != graph->num_slots) {
		drm_dbg(drm, "SUBMIT: %u bindings for %u slots\n", arr->count,
			graph->num_slots);
		return -EINVAL;
	}
	ret = gaccel_copy_array_buf(drm, "SUBMIT bindings", arr, graph->num_slots,
				    sizeof(*b), buf, sizeof(buf), (void **)&b);
	if (ret)
		return ret;

	for (i = 0; i < arr->count; i++) {
		struct drm_gem_object *obj;
		u64 size, end;
		bool write;
		u8 *vaddr;

		if (b[i].flags || b[i].pad) {
			drm_dbg(drm, "SUBMIT: binding %u: flags/pad must be zero\n", i);
			ret = -EINVAL;
			goto out;
		}
		if (b[i].slot >= graph->num_slots ||
		    (dma ? !!job->ejob.dma[b[i].slot].sgt : !!job->slots[b[i].slot])) {
			drm_dbg(drm, "SUBMIT: binding %u: slot %u unknown or bound twice\n",
				i, b[i].slot);
			ret = -EINVAL;
			goto out;
		}
		obj = drm_gem_object_lookup(file, b[i].handle);
		if (!obj) {
			drm_dbg(drm, "SUBMIT: binding %u: no object %u\n", i,
				b[i].handle);
			ret = -ENOENT;
			goto out;
		}
		write = graph->slot_written[b[i].slot];
		job->bos[job->num_bos].obj = obj;
		job->bos[job->num_bos].write = write;
		job->num_bos++;

		size = b[i].size ? b[i].size : graph->slot_size[b[i].slot];
		if (size < graph->slot_size[b[i].slot] ||
		    check_add_overflow(b[i].offset, size, &end) ||
		    end > obj->size) {
			drm_dbg(drm, "SUBMIT: binding %u: range %llu+%llu does not fit slot %u (%llu) in object of %zu\n",
				i, b[i].offset, size, b[i].slot,
				graph->slot_size[b[i].slot], obj->size);
			ret = -EINVAL;
			goto out;
		}
		/* The engine reads elements in place: the slot keeps its dtypes' alignment. */
		if (b[i].offset % gaccel_graph_slot_align(graph, b[i].slot)) {
			drm_dbg(drm, "SUBMIT: binding %u: offset %llu not a multiple of slot %u's alignment %u\n",
				i, b[i].offset, b[i].slot,
				gaccel_graph_slot_align(graph, b[i].slot));
			ret = -EINVAL;
			goto out;
		}
		if (write && (gaccel_bo_flags(obj) & DRM_GACCEL_BO_READ_ONLY)) {
			drm_dbg(drm, "SUBMIT: binding %u: slot %u is written, object %u is read-only\n",
				i, b[i].slot, b[i].handle);
			ret = -EACCES;
			goto out;
		}
		if (dma) {
			struct gaccel_engine_dma *d = &job->ejob.dma[b[i].slot];

			ret = gaccel_bo_dma_map(obj, &d->sgt, &d->dir);
			if (ret) {
				drm_dbg(drm, "SUBMIT: binding %u: object cannot be mapped for the engine's DMA\n",
					i);
				goto out;
			}
			d->offset = b[i].offset;
			d->size = size;
			continue;
		}
		ret = gaccel_bo_vmap(obj, (void **)&vaddr);
		if (ret) {
			drm_dbg(drm, "SUBMIT: binding %u: object cannot be mapped\n", i);
			goto out;
		}
		job->slots[b[i].slot] = vaddr + b[i].offset;
	}
	gaccel_job_dedup_bos(job);
	ret = 0;
out:
	gaccel_free_array_buf(b, buf);
	return ret;
}

/*
 * Wait for @fence (consumes the reference, also on failure). Fences already
 * signalled and fences of the job's own queue (which runs in order anyway)
 * need no wait; of several fences of one context only the latest is kept,
 * so the list is bounded by the contexts the job depends on. The list moves
 * to drm_sched if the job goes through the scheduler.
 */
static int gaccel_job_add_dep(struct gaccel_job *job, struct dma_fence *fence)
{
	struct dma_fence *entry;
	unsigned long index;
	u32 id;
	int ret;

	if (fence->context == job->queue->fence_ctx ||
	    dma_fence_is_signaled(fence)) {
		dma_fence_put(fence);
		return 0;
	}
	xa_for_each(&job->deps, index, entry) {
		if (entry->context != fence->context)
			continue;
		if (dma_fence_is_later(fence, entry)) {
			/* Replaces an entry: allocates nothing. */
			xa_store(&job->deps, index, fence, GFP_KERNEL_ACCOUNT);
			dma_fence_put(entry);
		} else {
			dma_fence_put(fence);
		}
		return 0;
	}
	ret = xa_alloc(&job->deps, &id, fence, xa_limit_32b, GFP_KERNEL_ACCOUNT);
	if (ret)
		dma_fence_put(fence);
	return ret;
}

static bool gaccel_sync_flags_ok(const struct drm_gaccel_sync *s)
{
	bool timeline = s->flags & DRM_GACCEL_SYNC_TIMELINE;

	return !(s->flags & ~(DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE)) &&
	       timeline == !!s->point;
}

/* Copy the syncs in and check their flags; count the signals. */
static int gaccel_job_copy_syncs(struct drm_device *drm,
				 const struct drm_gaccel_array *arr,
				 struct drm_gaccel_sync *buf, size_t buf_size,
				 struct drm_gaccel_sync **out, u32 *nsig)
{
	struct drm_gaccel_sync *s;
	u32 i;
	int ret;

	*nsig = 0;
	ret = gaccel_copy_array_buf(drm, "SUBMIT syncs", arr,
				    gaccel_limit_job_syncs(), sizeof(*s), buf,
				    buf_size, (void **)&s);
	if (ret)
		return ret;
	for (i = 0; i < arr->count; i++) {
		if (!gaccel_sync_flags_ok(&s[i])) {
			drm_dbg(drm, "SUBMIT: sync %u: bad flags %#x or point %llu\n",
				i, s[i].flags, s[i].point);
			gaccel_free_array_buf(s, buf);
			return -EINVAL;
		}
		*nsig += !!(s[i].flags & DRM_GACCEL_SYNC_SIGNAL);
	}
	*out = s;
	return 0;
}

/* Look the syncobjs up: waits become dependencies, signals get ready. */
static int gaccel_job_syncs(struct drm_device *drm, struct drm_file *file,
			    struct gaccel_job *job,
			    const struct drm_gaccel_sync *s, u32 count)
{
	u32 i, id;
	int ret;

	for (i = 0; i < count; i++) {
		struct gaccel_signal *sig;
		struct dma_fence *fence;

		if (!(s[i].flags & DRM_GACCEL_SYNC_SIGNAL)) {
			ret = drm_syncobj_find_fence(file, s[i].handle,
						     s[i].point, 0, &fence);
			if (ret) {
				drm_dbg(drm, "SUBMIT: sync %u: no fence to wait for (%d)\n",
					i, ret);
				return ret;
			}
			/* Kept whether signalled or not: its error counts. */
			ret = xa_alloc(&job->waits, &id, dma_fence_get(fence),
				       xa_limit_32b, GFP_KERNEL_ACCOUNT);
			if (ret) {
				dma_fence_put(fence);
				dma_fence_put(fence);
				return ret;
			}
			ret = gaccel_job_add_dep(job, fence);
			if (ret)
				return ret;
			continue;
		}

		sig = &job->signals[job->num_signals];
		sig->syncobj = drm_syncobj_find(file, s[i].handle);
		if (!sig->syncobj) {
			drm_dbg(drm, "SUBMIT: sync %u: no syncobj %u\n", i,
				s[i].handle);
			return -ENOENT;
		}
		job->num_signals++;
		sig->point = s[i].point;
		if (sig->point) {
			sig->chain = dma_fence_chain_alloc();
			if (!sig->chain)
				return -ENOMEM;
		}
	}
	return 0;
}

static int gaccel_job_scratch(struct drm_device *drm, struct gaccel_job *job)
{
	u64 stride = ALIGN(job->graph->scratch_size, 64);
	u32 parts = job->queue->gdev->engine->caps.num_workers;
	size_t bytes;

	if (!job->graph->scratch_size)
		return 0;
	if (check_mul_overflow((size_t)stride, (size_t)parts, &bytes) ||
	    bytes > gaccel_limit_scratch_bytes()) {
		drm_dbg(drm, "SUBMIT: the graph needs %llu bytes of scratch for each of %u workers, more than max_scratch_mib\n",
			stride, parts);
		return -ENOMEM;
	}
	job->ejob.scratch = kvmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!job->ejob.scratch)
		return -ENOMEM;
	job->ejob.scratch_stride = stride;
	return 0;
}

/*
 * The job, its per-slot arrays and its signals in one allocation; for a DMA
 * engine the slots are DMA views, not kernel addresses.
 */
static struct gaccel_job *gaccel_job_alloc(u32 num_slots, u32 num_signals,
					   bool dma)
{
	size_t size = sizeof(struct gaccel_job);
	struct gaccel_job *job;

	size = size_add(size, array_size(num_slots, sizeof(void *)));
	size = size_add(size, array_size(num_slots, sizeof(struct gaccel_job_bo)));
	size = size_add(size, array_size(num_slots, sizeof(struct drm_gem_object *)));
	size = size_add(size, array_size(num_signals, sizeof(struct gaccel_signal)));
	if (dma)
		size = size_add(size, array_size(num_slots,
						 sizeof(struct gaccel_engine_dma)));
	job = kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!job)
		return NULL;
	job->slots = (void **)(job + 1);
	job->bos = (struct gaccel_job_bo *)(job->slots + num_slots);
	job->objs = (struct drm_gem_object **)(job->bos + num_slots);
	job->signals = (struct gaccel_signal *)(job->objs + num_slots);
	if (dma)
		job->ejob.dma = (struct gaccel_engine_dma *)(job->signals + num_signals);
	kref_init(&job->ref);
	INIT_LIST_HEAD(&job->link);
	xa_init_flags(&job->deps, XA_FLAGS_ALLOC);
	xa_init_flags(&job->waits, XA_FLAGS_ALLOC);
	return job;
}

/**
 * gaccel_job_create - check and prepare one job of a SUBMIT.
 * @drm: the device.
 * @file: the submitting file.
 * @q: the queue (the job takes its own reference).
 * @uj: the job as userspace described it.
 * @out: the job.
 *
 * Returns 0 or a negative errno (with a drm_dbg line saying why); on error
 * nothing is left behind.
 */
int gaccel_job_create(struct drm_device *drm, struct drm_file *file,
		      struct gaccel_queue *q, const struct drm_gaccel_job *uj,
		      struct gaccel_job **out)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_sync *syncs, buf[8];
	struct gaccel_graph *graph;
	struct gaccel_job *job;
	u32 nsig;
	int ret;

	if (uj->flags) {
		drm_dbg(drm, "SUBMIT: job flags %#x must be zero\n", uj->flags);
		return -EINVAL;
	}
	ret = gaccel_job_copy_syncs(drm, &uj->syncs, buf, sizeof(buf), &syncs,
				    &nsig);
	if (ret)
		return ret;
	graph = gaccel_graph_lookup(gfile, uj->graph);
	if (!graph) {
		drm_dbg(drm, "SUBMIT: no graph %u\n", uj->graph);
		ret = -ENOENT;
		goto out_syncs;
	}
	job = gaccel_job_alloc(graph->num_slots, nsig,
			       gfile->gdev->engine->mem == GACCEL_ENGINE_MEM_DMA);
	if (!job) {
		gaccel_graph_put(graph);
		ret = -ENOMEM;
		goto out_syncs;
	}
	job->graph = graph;
	job->queue = gaccel_queue_get(q);

	ret = gaccel_queue_reserve_job(drm, q);
	if (ret)
		goto err;
	job->reserved = true;

	job->fence = gaccel_fence_alloc();
	if (!job->fence) {
		ret = -ENOMEM;
		goto err;
	}
	ret = gaccel_job_bind(drm, file, job, &uj->bindings);
	if (ret)
		goto err;
	ret = gaccel_job_syncs(drm, file, job, syncs, uj->syncs.count);
	if (ret)
		goto err;
	ret = gaccel_job_scratch(drm, job);
	if (ret)
		goto err;

	job->ejob.graph = graph;
	job->ejob.slots = job->ejob.dma ? NULL : job->slots;
	job->ejob.done = gaccel_job_engine_done;
	*out = job;
	goto out_syncs;

err:
	gaccel_job_put(job);
out_syncs:
	gaccel_free_array_buf(syncs, buf);
	return ret;
}

/**
 * gaccel_job_add_implicit_deps - wait for the objects' implicit fences.
 * @job: the job; the reservations of its objects are locked.
 *
 * Written objects wait for every fence, read ones for writers only.
 */
int gaccel_job_add_implicit_deps(struct gaccel_job *job)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	u32 i;
	int ret;

	for (i = 0; i < job->num_bos; i++) {
		dma_resv_for_each_fence(&cursor, job->bos[i].obj->resv,
					dma_resv_usage_rw(job->bos[i].write),
					fence) {
			ret = gaccel_job_add_dep(job, dma_fence_get(fence));
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * gaccel_job_commit - publish the job's fence.
 * @job: the job; the reservations of its objects are locked and the queue's
 *	commit lock is held.
 * @context: the queue's fence context.
 * @seqno: the job's number in the queue.
 *
 * Cannot fail: everything was allocated and reserved before. The caller
 * then hands the job to its queue; the scheduler gets a reference, which
 * its free_job callback drops.
 */
void gaccel_job_commit(struct gaccel_job *job, u64 context, u64 seqno)
{
	struct dma_fence *fence = gaccel_job_fence(job);
	u32 i;

	gaccel_fence_init(job->fence, context, seqno);
	job->committed = true;
	kref_get(&job->ref);
	for (i = 0; i < job->num_bos; i++)
		dma_resv_add_fence(job->bos[i].obj->resv, fence,
				   job->bos[i].write ? DMA_RESV_USAGE_WRITE :
						       DMA_RESV_USAGE_READ);
	for (i = 0; i < job->num_signals; i++) {
		struct gaccel_signal *sig = &job->signals[i];

		if (sig->chain) {
			drm_syncobj_add_point(sig->syncobj, sig->chain, fence,
					      sig->point);
			sig->chain = NULL;
		} else {
			drm_syncobj_replace_fence(sig->syncobj, fence);
		}
	}
}
