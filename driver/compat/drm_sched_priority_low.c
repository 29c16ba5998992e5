// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* DRM_SCHED_PRIORITY_LOW (6.7+; before it, _MIN). */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

const enum drm_sched_priority gaccel_probe_prio = DRM_SCHED_PRIORITY_LOW;
MODULE_LICENSE("Dual MIT/GPL");
