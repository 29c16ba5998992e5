// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_start() takes an errno (6.13+). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

void gaccel_probe_fn(struct drm_gpu_scheduler *sched);
void gaccel_probe_fn(struct drm_gpu_scheduler *sched)
{
	drm_sched_start(sched, 0);
}
MODULE_LICENSE("Dual MIT/GPL");
