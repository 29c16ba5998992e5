// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched_start() takes a bool full_recovery (up to 6.11). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

void (*gaccel_probe_fn)(struct drm_gpu_scheduler *sched, bool full_recovery) =
	drm_sched_start;
MODULE_LICENSE("Dual MIT/GPL");
