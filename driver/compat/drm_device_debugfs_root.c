// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* The device has a debugfs directory of its own, not only its minors (6.4+). */
#include <linux/module.h>
#include <drm/drm_device.h>

struct dentry *gaccel_probe_fn(struct drm_device *drm);
struct dentry *gaccel_probe_fn(struct drm_device *drm)
{
	return drm->debugfs_root;
}
MODULE_LICENSE("Dual MIT/GPL");
