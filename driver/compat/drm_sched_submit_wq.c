// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_sched runs jobs on a workqueue the driver may pass (6.8+), not a kthread. */
#include <linux/module.h>
#include <drm/gpu_scheduler.h>

struct workqueue_struct *gaccel_probe_fn(struct drm_gpu_scheduler *sched);
struct workqueue_struct *gaccel_probe_fn(struct drm_gpu_scheduler *sched)
{
	return sched->submit_wq;
}
MODULE_LICENSE("Dual MIT/GPL");
