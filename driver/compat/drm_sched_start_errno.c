// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_start() takes an errno (6.13+); not the bool of 6.1. */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

void (*gaccel_probe_fn)(struct drm_gpu_scheduler *sched, int errno) =
	drm_sched_start;
MODULE_LICENSE("Dual MIT/GPL");
