// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_job_init() takes the job's credits (6.8+). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

int (*gaccel_probe_fn)(struct drm_sched_job *job, struct drm_sched_entity *e,
		       u32 credits, void *owner) = drm_sched_job_init;
MODULE_LICENSE("Dual MIT/GPL");
