// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched has a variable number of run queues (6.7+). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

u32 gaccel_probe_fn(struct drm_gpu_scheduler *sched);
u32 gaccel_probe_fn(struct drm_gpu_scheduler *sched)
{
	return sched->num_rqs;
}
MODULE_LICENSE("Dual MIT/GPL");
