// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* struct drm_driver still has .date (removed in 6.14). */
#include <linux/module.h>
#include <drm/drm_drv.h>

const struct drm_driver gaccel_probe_drv = {
	.date = "20000101",
};
MODULE_LICENSE("Dual MIT/GPL");
