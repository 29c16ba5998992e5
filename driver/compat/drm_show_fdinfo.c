// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* The DRM core prints fdinfo and has memory statistics helpers (6.5+). */
#include <linux/module.h>
#include <linux/fs.h>
#include <drm/drm_file.h>
#include <drm/drm_drv.h>

static void gaccel_probe_show(struct drm_printer *p, struct drm_file *file)
{
	drm_show_memory_stats(p, file);
}

const struct drm_driver gaccel_probe_drv = {
	.show_fdinfo = gaccel_probe_show,
};

const struct file_operations gaccel_probe_fops = {
	.show_fdinfo = drm_show_fdinfo,
};
MODULE_LICENSE("Dual MIT/GPL");
