// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_job_init() takes a drm_client_id (6.12.103+, 6.17+). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

int gaccel_probe_fn(struct drm_sched_job *job, struct drm_sched_entity *e);
int gaccel_probe_fn(struct drm_sched_job *job, struct drm_sched_entity *e)
{
	return drm_sched_job_init(job, e, 1, NULL, 0);
}
MODULE_LICENSE("Dual MIT/GPL");
