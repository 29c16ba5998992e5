// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Queues and jobs: one drm_sched scheduler and entity per queue, explicit
 * syncobj dependencies and signals, implicit dma_resv fences on bound
 * objects, job timeout with per-queue error state.
 *
 * Submit order: everything that can fail (handle lookups, kernel mappings,
 * fences, chains, reservation locks) happens before drm_sched_job_arm();
 * after it, only pushes, fence installs and unlocks.
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/ww_mutex.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_utils.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"

/* ------------------------------------------------------------------------ */
/* Fences                                                                    */

struct gaccel_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's lock */
};

static const char *gaccel_fence_driver_name(struct dma_fence *fence)
{
	return "gaccel";
}

static const char *gaccel_fence_timeline_name(struct dma_fence *fence)
{
	return "gaccel-queue";
}

static const struct dma_fence_ops gaccel_fence_ops = {
	.get_driver_name = gaccel_fence_driver_name,
	.get_timeline_name = gaccel_fence_timeline_name,
};

/* ------------------------------------------------------------------------ */
/* Jobs                                                                      */

struct gaccel_signal {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

/**
 * struct gaccel_job - one graph run.
 * @base: the scheduler job.
 * @queue: the queue (a reference).
 * @graph: the program (a reference).
 * @bos: the distinct bound objects (references).
 * @bo_write: whether the job writes each of @bos.
 * @num_bos: entries of @bos.
 * @slots: kernel address of each slot.
 * @signals: syncobjs to signal.
 * @num_signals: entries of @signals.
 * @hw: engine fence, allocated at submit and initialised by run_job.
 * @hw_inited: @hw was initialised (it is then reference counted).
 * @sched_inited: drm_sched_job_init() succeeded.
 * @timedout: set by the timeout handler before it cancels the job.
 * @ejob: what the engine sees.
 */
struct gaccel_job {
	struct drm_sched_job base;
	struct gaccel_queue *queue;
	struct gaccel_graph *graph;
	struct drm_gem_object **bos;
	bool *bo_write;
	u32 num_bos;
	void **slots;
	struct gaccel_signal *signals;
	u32 num_signals;
	struct gaccel_fence *hw;
	bool hw_inited;
	bool sched_inited;
	bool timedout;
	struct gaccel_engine_job ejob;
};

static inline struct gaccel_job *to_gaccel_job(struct drm_sched_job *job)
{
	return container_of(job, struct gaccel_job, base);
}

static void gaccel_queue_put(struct gaccel_queue *q);

static void gaccel_job_free(struct gaccel_job *job)
{
	u32 i;

	if (job->sched_inited)
		drm_sched_job_cleanup(&job->base);
	if (job->hw) {
		if (job->hw_inited)
			dma_fence_put(&job->hw->base);
		else
			kfree(job->hw);
	}
	for (i = 0; i < job->num_bos; i++)
		drm_gem_object_put(job->bos[i]);
	for (i = 0; i < job->num_signals; i++) {
		if (job->signals[i].syncobj)
			drm_syncobj_put(job->signals[i].syncobj);
		dma_fence_chain_free(job->signals[i].chain);
	}
	kvfree(job->signals);
	kvfree(job->bos);
	kvfree(job->bo_write);
	kvfree(job->slots);
	kvfree(job->ejob.scratch);
	gaccel_graph_put(job->graph);
	gaccel_queue_put(job->queue);
	kfree(job);
}

static void gaccel_queue_note(struct gaccel_queue *q, int error)
{
	spin_lock(&q->state_lock);
	if (error) {
		q->failed++;
		q->last_error = error;
		q->state |= DRM_GACCEL_QUEUE_STATE_FAULT;
	} else {
		q->completed++;
	}
	spin_unlock(&q->state_lock);
}

static void gaccel_job_engine_done(struct gaccel_engine_job *ejob, int error)
{
	struct gaccel_job *job = container_of(ejob, struct gaccel_job, ejob);

	if (READ_ONCE(job->timedout))
		error = -ETIMEDOUT;
	gaccel_queue_note(job->queue, error);
	if (error)
		dma_fence_set_error(&job->hw->base, error);
	/* The scheduler may free the job from here on. */
	dma_fence_signal(&job->hw->base);
}

static struct dma_fence *gaccel_run_job(struct drm_sched_job *sched_job)
{
	struct gaccel_job *job = to_gaccel_job(sched_job);
	struct gaccel_queue *q = job->queue;
	struct gaccel_engine *engine = q->gdev->engine;
	int error = sched_job->s_fence->finished.error;
	bool dead;

	spin_lock(&q->state_lock);
	dead = q->state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT;
	spin_unlock(&q->state_lock);
	if (error || dead) {
		/* A dependency failed or the queue timed out: skip the job. */
		error = error ? error : -ECANCELED;
		gaccel_queue_note(q, error);
		return ERR_PTR(error);
	}

	dma_fence_init(&job->hw->base, &gaccel_fence_ops, &job->hw->lock,
		       q->fence_ctx, ++q->seqno);
	job->hw_inited = true;
	/* One reference for the scheduler, one kept until free_job. */
	dma_fence_get(&job->hw->base);
	engine->ops->run(engine, &job->ejob);
	return &job->hw->base;
}

/*
 * The scheduler took the job off its pending list before calling us. A
 * software engine needs no scheduler stop/start: put the job back, cancel
 * it (its fence then signals with -ETIMEDOUT and the scheduler frees it as
 * usual) and mark the queue, whose later jobs are then skipped.
 */
static enum drm_gpu_sched_stat gaccel_timedout_job(struct drm_sched_job *sched_job)
{
	struct gaccel_job *job = to_gaccel_job(sched_job);
	struct gaccel_queue *q = job->queue;
	struct gaccel_engine *engine = q->gdev->engine;
	struct drm_gpu_scheduler *sched = &q->sched;
	bool finished;

	spin_lock(&sched->job_list_lock);
	finished = !job->hw_inited || dma_fence_is_signaled(&job->hw->base);
	if (finished)
		sched->free_guilty = true;	/* done just in time: free it */
	else
		list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	if (finished)
		return DRM_GPU_SCHED_STAT_NOMINAL;

	drm_dbg(&q->gdev->drm, "job timed out, cancelling it\n");
	WRITE_ONCE(job->timedout, true);
	spin_lock(&q->state_lock);
	q->state |= DRM_GACCEL_QUEUE_STATE_TIMEDOUT;
	q->timeouts++;
	spin_unlock(&q->state_lock);
	/* Returns once the engine has signalled the job's fence. */
	engine->ops->cancel(engine, &job->ejob);
	engine->ops->reset(engine);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void gaccel_free_job(struct drm_sched_job *sched_job)
{
	gaccel_job_free(to_gaccel_job(sched_job));
}

static const struct drm_sched_backend_ops gaccel_sched_ops = {
	.run_job = gaccel_run_job,
	.timedout_job = gaccel_timedout_job,
	.free_job = gaccel_free_job,
};

/* ------------------------------------------------------------------------ */
/* Queues                                                                    */

static void gaccel_queue_free_work(struct work_struct *work)
{
	struct gaccel_queue *q = container_of(work, struct gaccel_queue, free_work);
	struct gaccel_device *gdev = q->gdev;

	/*
	 * drm_sched_job_done() signals a job's finished fence, whose callbacks
	 * may drop the last queue reference, and only then touches the
	 * scheduler again. It runs from a fence callback with interrupts off:
	 * wait for every such section to end before the scheduler goes.
	 */
	synchronize_rcu();
	drm_sched_fini(&q->sched);
	mutex_destroy(&q->submit_lock);
	kfree(q);
	if (atomic_dec_and_test(&gdev->num_queues))
		wake_up_all(&gdev->queues_idle);
}

static void gaccel_queue_release(struct kref *ref)
{
	struct gaccel_queue *q = container_of(ref, struct gaccel_queue, ref);

	/*
	 * The last job may go from the scheduler's own workqueue, which
	 * drm_sched_fini() destroys: finish elsewhere.
	 */
	queue_work(q->gdev->free_wq, &q->free_work);
}

static void gaccel_queue_put(struct gaccel_queue *q)
{
	if (q)
		kref_put(&q->ref, gaccel_queue_release);
}

static struct gaccel_queue *gaccel_queue_lookup(struct gaccel_file *gfile,
						u32 handle)
{
	struct gaccel_queue *q;

	xa_lock(&gfile->queues);
	q = xa_load(&gfile->queues, handle);
	if (q)
		kref_get(&q->ref);
	xa_unlock(&gfile->queues);
	return q;
}

/* Drop the handle's reference: queued jobs still run, nothing new comes. */
static void gaccel_queue_close(struct gaccel_queue *q)
{
	/*
	 * A submit that looked the queue up before the handle went may still
	 * be preparing jobs: once @closed is set under submit_lock, it gives
	 * up instead of pushing to the dying entity (where the job would be
	 * dropped and its fence never signalled).
	 */
	mutex_lock(&q->submit_lock);
	q->closed = true;
	mutex_unlock(&q->submit_lock);
	drm_sched_entity_destroy(&q->entity);
	gaccel_queue_put(q);
}

void gaccel_queue_file_fini(struct gaccel_file *gfile)
{
	struct gaccel_queue *q;
	unsigned long index;

	xa_for_each(&gfile->queues, index, q)
		gaccel_queue_close(q);
	xa_destroy(&gfile->queues);
}

static int gaccel_queue_sched_init(struct gaccel_queue *q, struct drm_device *drm)
{
	long timeout = msecs_to_jiffies(gaccel_limit_job_timeout_ms());
#ifdef GACCEL_HAVE_DRM_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = &gaccel_sched_ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = 1,
		.timeout = timeout,
		.name = "gaccel",
		.dev = drm->dev,
	};

	return drm_sched_init(&q->sched, &args);
#else
	return drm_sched_init(&q->sched, &gaccel_sched_ops, NULL,
			      DRM_SCHED_PRIORITY_COUNT, 1, 0, timeout, NULL,
			      NULL, "gaccel", drm->dev);
#endif
}

int gaccel_ioctl_queue_create(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	static const enum drm_sched_priority prio[] = {
		[DRM_GACCEL_QUEUE_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
		[DRM_GACCEL_QUEUE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
		[DRM_GACCEL_QUEUE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct gaccel_device *gdev = to_gaccel_device(drm);
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_queue_create *args = data;
	struct drm_gpu_scheduler *sched_list[1];
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

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	kref_init(&q->ref);
	q->gdev = gdev;
	mutex_init(&q->submit_lock);
	spin_lock_init(&q->state_lock);
	INIT_WORK(&q->free_work, gaccel_queue_free_work);
	q->fence_ctx = dma_fence_context_alloc(1);

	ret = gaccel_queue_sched_init(q, drm);
	if (ret)
		goto err_free;
	sched_list[0] = &q->sched;
	ret = drm_sched_entity_init(&q->entity, prio[args->priority],
				    sched_list, 1, NULL);
	if (ret)
		goto err_sched;

	ret = xa_alloc(&gfile->queues, &handle, q, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err_entity;

	atomic_inc(&gdev->num_queues);
	args->handle = handle;
	return 0;

err_entity:
	drm_sched_entity_destroy(&q->entity);
err_sched:
	drm_sched_fini(&q->sched);
err_free:
	mutex_destroy(&q->submit_lock);
	kfree(q);
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
	gaccel_queue_close(q);
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
	spin_lock(&q->state_lock);
	args->state = q->state;
	args->last_error = q->last_error;
	args->submitted = q->submitted;
	args->completed = q->completed;
	args->failed = q->failed;
	args->timeouts = q->timeouts;
	spin_unlock(&q->state_lock);
	gaccel_queue_put(q);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Submit                                                                    */

static int gaccel_job_bind(struct drm_device *drm, struct drm_file *file,
			   struct gaccel_job *job,
			   const struct drm_gaccel_array *arr)
{
	const struct gaccel_graph *graph = job->graph;
	struct drm_gaccel_binding *b;
	bool *bound;
	u32 i, j;
	int ret;

	if (arr->count != graph->num_slots) {
		drm_dbg(drm, "SUBMIT: %u bindings for %u slots\n", arr->count,
			graph->num_slots);
		return -EINVAL;
	}
	ret = gaccel_copy_array(drm, "SUBMIT bindings", arr, graph->num_slots,
				sizeof(*b), sizeof(*b), (void **)&b);
	if (ret)
		return ret;

	job->bos = kvcalloc(arr->count, sizeof(*job->bos), GFP_KERNEL);
	job->bo_write = kvcalloc(arr->count, sizeof(bool), GFP_KERNEL);
	job->slots = kvcalloc(arr->count, sizeof(void *), GFP_KERNEL);
	bound = kvcalloc(arr->count, sizeof(bool), GFP_KERNEL);
	if (!job->bos || !job->bo_write || !job->slots || !bound) {
		ret = -ENOMEM;
		goto out;
	}

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
		if (b[i].slot >= graph->num_slots || bound[b[i].slot]) {
			drm_dbg(drm, "SUBMIT: binding %u: slot %u unknown or bound twice\n",
				i, b[i].slot);
			ret = -EINVAL;
			goto out;
		}
		bound[b[i].slot] = true;

		obj = drm_gem_object_lookup(file, b[i].handle);
		if (!obj) {
			drm_dbg(drm, "SUBMIT: binding %u: no object %u\n", i,
				b[i].handle);
			ret = -ENOENT;
			goto out;
		}
		/* Keep one reference per distinct object. */
		for (j = 0; j < job->num_bos; j++)
			if (job->bos[j] == obj)
				break;
		if (j < job->num_bos)
			drm_gem_object_put(obj);
		else
			job->bos[job->num_bos++] = obj;

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
		write = graph->slot_written[b[i].slot];
		if (write && (gaccel_bo_flags(obj) & DRM_GACCEL_BO_READ_ONLY)) {
			drm_dbg(drm, "SUBMIT: binding %u: slot %u is written, object %u is read-only\n",
				i, b[i].slot, b[i].handle);
			ret = -EACCES;
			goto out;
		}
		job->bo_write[j] |= write;

		ret = gaccel_bo_vmap(obj, (void **)&vaddr);
		if (ret) {
			drm_dbg(drm, "SUBMIT: binding %u: object cannot be mapped\n", i);
			goto out;
		}
		job->slots[b[i].slot] = vaddr + b[i].offset;
	}
	ret = 0;
out:
	kvfree(bound);
	kvfree(b);
	return ret;
}

static int gaccel_job_syncs(struct drm_device *drm, struct drm_file *file,
			    struct gaccel_job *job,
			    const struct drm_gaccel_array *arr)
{
	struct drm_gaccel_sync *s;
	u32 i, nsig = 0;
	int ret;

	ret = gaccel_copy_array(drm, "SUBMIT syncs", arr, gaccel_limit_job_syncs(),
				sizeof(*s), sizeof(*s), (void **)&s);
	if (ret || !arr->count)
		return ret;

	job->signals = kvcalloc(arr->count, sizeof(*job->signals), GFP_KERNEL);
	if (!job->signals) {
		ret = -ENOMEM;
		goto out;
	}

	for (i = 0; i < arr->count; i++) {
		bool timeline = s[i].flags & DRM_GACCEL_SYNC_TIMELINE;
		struct dma_fence *fence;

		if (s[i].flags & ~(DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE) ||
		    (!timeline && s[i].point) || (timeline && !s[i].point)) {
			drm_dbg(drm, "SUBMIT: sync %u: bad flags %#x or point %llu\n",
				i, s[i].flags, s[i].point);
			ret = -EINVAL;
			goto out;
		}
		if (!(s[i].flags & DRM_GACCEL_SYNC_SIGNAL)) {
			ret = drm_syncobj_find_fence(file, s[i].handle,
						     s[i].point, 0, &fence);
			if (ret) {
				drm_dbg(drm, "SUBMIT: sync %u: no fence to wait for (%d)\n",
					i, ret);
				goto out;
			}
			ret = drm_sched_job_add_dependency(&job->base, fence);
			if (ret)
				goto out;
			continue;
		}

		job->signals[nsig].syncobj = drm_syncobj_find(file, s[i].handle);
		if (!job->signals[nsig].syncobj) {
			drm_dbg(drm, "SUBMIT: sync %u: no syncobj %u\n", i,
				s[i].handle);
			ret = -ENOENT;
			goto out;
		}
		job->signals[nsig].point = s[i].point;
		job->num_signals = ++nsig;
		if (timeline) {
			job->signals[nsig - 1].chain = dma_fence_chain_alloc();
			if (!job->signals[nsig - 1].chain) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
out:
	kvfree(s);
	return ret;
}

static int gaccel_job_prepare(struct drm_device *drm, struct drm_file *file,
			      struct gaccel_queue *q,
			      const struct drm_gaccel_job *uj,
			      struct gaccel_job **out)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct gaccel_job *job;
	int ret;

	if (uj->flags) {
		drm_dbg(drm, "SUBMIT: job flags %#x must be zero\n", uj->flags);
		return -EINVAL;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	kref_get(&q->ref);
	job->queue = q;

	job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL);
	if (!job->hw) {
		ret = -ENOMEM;
		goto err;
	}
	spin_lock_init(&job->hw->lock);

	job->graph = gaccel_graph_lookup(gfile, uj->graph);
	if (!job->graph) {
		drm_dbg(drm, "SUBMIT: no graph %u\n", uj->graph);
		ret = -ENOENT;
		goto err;
	}

#ifdef GACCEL_HAVE_DRM_SCHED_JOB_INIT_CLIENT_ID
	ret = drm_sched_job_init(&job->base, &q->entity, 1, NULL,
				 file->client_id);
#else
	ret = drm_sched_job_init(&job->base, &q->entity, 1, NULL);
#endif
	if (ret)
		goto err;
	job->sched_inited = true;

	ret = gaccel_job_bind(drm, file, job, &uj->bindings);
	if (ret)
		goto err;
	ret = gaccel_job_syncs(drm, file, job, &uj->syncs);
	if (ret)
		goto err;

	if (job->graph->scratch_size) {
		u32 parts = q->gdev->engine->caps.num_workers;

		job->ejob.scratch_stride = ALIGN(job->graph->scratch_size, 64);
		job->ejob.scratch = kvmalloc_array(parts, job->ejob.scratch_stride,
						   GFP_KERNEL);
		if (!job->ejob.scratch) {
			ret = -ENOMEM;
			goto err;
		}
	}
	job->ejob.graph = job->graph;
	job->ejob.slots = job->slots;
	job->ejob.done = gaccel_job_engine_done;
	*out = job;
	return 0;

err:
	gaccel_job_free(job);
	return ret;
}

/* All distinct objects of all jobs, for one reservation lock pass. */
static int gaccel_collect_bos(struct gaccel_job **jobs, u32 njobs,
			      struct drm_gem_object ***out, u32 *count)
{
	struct drm_gem_object **all;
	u32 i, j, k, n = 0, total = 0;

	for (i = 0; i < njobs; i++)
		total += jobs[i]->num_bos;
	all = kvcalloc(max(total, 1u), sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	for (i = 0; i < njobs; i++) {
		for (j = 0; j < jobs[i]->num_bos; j++) {
			for (k = 0; k < n; k++)
				if (all[k] == jobs[i]->bos[j])
					break;
			if (k == n)
				all[n++] = jobs[i]->bos[j];
		}
	}
	*out = all;
	*count = n;
	return 0;
}

int gaccel_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_submit *args = data;
	struct drm_gem_object **bos = NULL;
	struct gaccel_job **jobs = NULL;
	struct drm_gaccel_job *ujobs;
	struct ww_acquire_ctx ctx;
	struct gaccel_queue *q;
	u32 i, j, njobs = 0, nbos = 0;
	bool dead;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "SUBMIT: flags %#x must be zero\n", args->flags);
		return -EINVAL;
	}
	q = gaccel_queue_lookup(gfile, args->queue);
	if (!q) {
		drm_dbg(drm, "SUBMIT: no queue %u\n", args->queue);
		return -ENOENT;
	}
	spin_lock(&q->state_lock);
	dead = q->state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT;
	spin_unlock(&q->state_lock);
	if (dead) {
		drm_dbg(drm, "SUBMIT: queue %u timed out\n", args->queue);
		ret = -ECANCELED;
		goto out_queue;
	}

	ret = gaccel_copy_array(drm, "SUBMIT jobs", &args->jobs,
				gaccel_limit_submit_jobs(),
				sizeof(*ujobs), sizeof(*ujobs), (void **)&ujobs);
	if (ret)
		goto out_queue;
	if (!args->jobs.count)
		goto out_queue;

	jobs = kvcalloc(args->jobs.count, sizeof(*jobs), GFP_KERNEL);
	if (!jobs) {
		ret = -ENOMEM;
		goto out_ujobs;
	}
	for (njobs = 0; njobs < args->jobs.count; njobs++) {
		ret = gaccel_job_prepare(drm, file, q, &ujobs[njobs], &jobs[njobs]);
		if (ret)
			goto out_jobs;
	}

	ret = gaccel_collect_bos(jobs, njobs, &bos, &nbos);
	if (ret)
		goto out_jobs;
	ret = drm_gem_lock_reservations(bos, nbos, &ctx);
	if (ret)
		goto out_bos;
	for (i = 0; i < nbos; i++) {
		ret = dma_resv_reserve_fences(bos[i]->resv, njobs);
		if (ret)
			goto out_unlock;
	}
	for (i = 0; i < njobs; i++) {
		for (j = 0; j < jobs[i]->num_bos; j++) {
			ret = drm_sched_job_add_implicit_dependencies(&jobs[i]->base,
								      jobs[i]->bos[j],
								      jobs[i]->bo_write[j]);
			if (ret)
				goto out_unlock;
		}
	}

	mutex_lock(&q->submit_lock);
	if (q->closed) {
		mutex_unlock(&q->submit_lock);
		drm_dbg(drm, "SUBMIT: queue %u destroyed meanwhile\n", args->queue);
		ret = -ENOENT;
		goto out_unlock;
	}
	/* Point of no return. */
	for (i = 0; i < njobs; i++) {
		struct gaccel_job *job = jobs[i];
		struct dma_fence *done;

		drm_sched_job_arm(&job->base);
		done = dma_fence_get(&job->base.s_fence->finished);
		for (j = 0; j < job->num_bos; j++)
			dma_resv_add_fence(job->bos[j]->resv, done,
					   job->bo_write[j] ? DMA_RESV_USAGE_WRITE :
							      DMA_RESV_USAGE_READ);
		for (j = 0; j < job->num_signals; j++) {
			struct gaccel_signal *sig = &job->signals[j];

			if (sig->chain) {
				drm_syncobj_add_point(sig->syncobj, sig->chain,
						      done, sig->point);
				sig->chain = NULL;
			} else {
				drm_syncobj_replace_fence(sig->syncobj, done);
			}
		}
		spin_lock(&q->state_lock);
		q->submitted++;
		spin_unlock(&q->state_lock);
		drm_sched_entity_push_job(&job->base);
		dma_fence_put(done);
		jobs[i] = NULL;
	}
	mutex_unlock(&q->submit_lock);
	ret = 0;

out_unlock:
	drm_gem_unlock_reservations(bos, nbos, &ctx);
out_bos:
	kvfree(bos);
out_jobs:
	for (i = 0; i < njobs; i++)
		if (jobs[i])
			gaccel_job_free(jobs[i]);
	kvfree(jobs);
out_ujobs:
	kvfree(ujobs);
out_queue:
	gaccel_queue_put(q);
	return ret;
}

int gaccel_ioctl_bo_wait(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_gaccel_bo_wait *args = data;
	struct drm_gem_object *obj;
	long ret;

	if (args->flags) {
		drm_dbg(drm, "BO_WAIT: flags %#x must be zero\n", args->flags);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "BO_WAIT: no object %u\n", args->handle);
		return -ENOENT;
	}
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_READ, true,
				    drm_timeout_abs_to_jiffies(args->timeout_ns));
	drm_gem_object_put(obj);
	if (ret == 0)
		return -ETIME;
	return ret < 0 ? ret : 0;
}
