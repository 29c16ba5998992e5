// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_init() takes a struct drm_sched_init_args (6.12.114+, 6.15+). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

int gaccel_probe_fn(struct drm_gpu_scheduler *sched);
int gaccel_probe_fn(struct drm_gpu_scheduler *sched)
{
	const struct drm_sched_init_args args = { .name = "probe" };

	return drm_sched_init(sched, &args);
}
MODULE_LICENSE("Dual MIT/GPL");
