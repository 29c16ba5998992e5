// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SUBMIT: check and prepare every job (gaccel_job_create()), lock the
 * reservations of all their objects, collect implicit dependencies, then
 * commit the jobs to their queue in order. Everything that can fail comes
 * before the commit; after it, only fence publication and list moves. A
 * SUBMIT either queues all of its jobs or none. A single short job with
 * nothing to wait for on an idle queue is then run right here, once every
 * lock is released (see gaccel_queue.c).
 *
 * Nothing here outlives the ioctl: the jobs belong to their queue once
 * committed (gaccel_job.c), and are freed here otherwise.
 */

#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/ww_mutex.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_utils.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"
#include "gaccel_limits.h"
#include "gaccel_queue.h"
#include "gaccel_submit.h"

static int gaccel_obj_cmp(const void *a, const void *b)
{
	const struct drm_gem_object *x = *(const struct drm_gem_object **)a;
	const struct drm_gem_object *y = *(const struct drm_gem_object **)b;

	if (x == y)
		return 0;
	return x < y ? -1 : 1;
}

/*
 * All distinct objects of the jobs, for one reservation pass: sorted and
 * deduplicated, O(n log n). One job's list is used as it is.
 */
static int gaccel_submit_objs(struct gaccel_job **jobs, u32 njobs,
			      struct drm_gem_object ***out, u32 *count)
{
	struct drm_gem_object **all;
	u32 i, j, n = 0;
	size_t total = 0;

	if (njobs == 1) {
		*out = jobs[0]->objs;
		*count = jobs[0]->num_bos;
		return 0;
	}
	for (i = 0; i < njobs; i++)
		total += jobs[i]->num_bos;
	all = kvmalloc_array(max_t(size_t, total, 1), sizeof(*all),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!all)
		return -ENOMEM;
	for (i = 0; i < njobs; i++)
		for (j = 0; j < jobs[i]->num_bos; j++)
			all[n++] = jobs[i]->objs[j];
	sort(all, n, sizeof(*all), gaccel_obj_cmp, NULL);
	for (i = 0, j = 0; i < n; i++)
		if (!j || all[j - 1] != all[i])
			all[j++] = all[i];
	*out = all;
	*count = j;
	return 0;
}

int gaccel_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_submit *args = data;
	struct drm_gem_object **objs = NULL;
	struct gaccel_job *one, **jobs = &one, *run_here = NULL;
	struct drm_gaccel_job *ujobs = NULL, ujob;
	struct ww_acquire_ctx ctx;
	struct gaccel_queue *q;
	u32 i, njobs = 0, nobjs = 0;
	bool may_run_here;
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
	ret = gaccel_queue_check_submit(drm, q);
	if (ret)
		goto out_queue;

	ret = gaccel_copy_array_buf(drm, "SUBMIT jobs", &args->jobs,
				    gaccel_limit_submit_jobs(), sizeof(*ujobs),
				    &ujob, sizeof(ujob), (void **)&ujobs);
	if (ret || !args->jobs.count)
		goto out_queue;

	if (args->jobs.count > 1) {
		jobs = kvcalloc(args->jobs.count, sizeof(*jobs),
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!jobs) {
			ret = -ENOMEM;
			goto out_ujobs;
		}
	}
	for (njobs = 0; njobs < args->jobs.count; njobs++) {
		ret = gaccel_job_create(drm, file, q, &ujobs[njobs], &jobs[njobs]);
		if (ret)
			goto out_jobs;
	}

	ret = gaccel_submit_objs(jobs, njobs, &objs, &nobjs);
	if (ret)
		goto out_jobs;
	ret = drm_gem_lock_reservations(objs, nobjs, &ctx);
	if (ret)
		goto out_objs;
	for (i = 0; i < nobjs; i++) {
		ret = dma_resv_reserve_fences(objs[i]->resv, njobs);
		if (ret)
			goto out_unlock;
	}
	for (i = 0; i < njobs; i++) {
		ret = gaccel_job_add_implicit_deps(jobs[i]);
		if (ret)
			goto out_unlock;
	}

	may_run_here = njobs == 1 && gaccel_job_may_run_here(jobs[0]);
	ret = gaccel_queue_commit_begin(drm, q);
	if (ret)
		goto out_unlock;
	if (may_run_here && gaccel_queue_claim(q)) {
		run_here = jobs[0];
	} else {
		/* Allocates: before any job is committed. */
		for (i = 0; i < njobs; i++) {
			ret = gaccel_job_sched_init(jobs[i], file);
			if (ret) {
				gaccel_queue_commit_end(q);
				goto out_unlock;
			}
		}
	}
	/*
	 * Point of no return: nothing below fails. A committed job may run
	 * and complete at once; our reference keeps it and its objects (whose
	 * reservations we unlock below) until the end.
	 */
	for (i = 0; i < njobs; i++) {
		gaccel_job_commit(jobs[i], q->fence_ctx, gaccel_queue_next_seqno(q));
		if (!run_here)
			gaccel_queue_commit(q, jobs[i]);
	}
	gaccel_queue_commit_end(q);

out_unlock:
	drm_gem_unlock_reservations(objs, nobjs, &ctx);
	/* A short job on an idle queue: run it now, no lock held. */
	if (run_here)
		gaccel_job_run_here(run_here);
out_objs:
	if (njobs > 1)
		kvfree(objs);
out_jobs:
	for (i = 0; i < njobs; i++)
		gaccel_job_put(jobs[i]);
	if (jobs != &one)
		kvfree(jobs);
out_ujobs:
	gaccel_free_array_buf(ujobs, &ujob);
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
