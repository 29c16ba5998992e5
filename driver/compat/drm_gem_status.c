// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* drm_gem_object_funcs.status, for the core's fdinfo (6.5+). */
#include <linux/module.h>
#include <drm/drm_gem.h>

static enum drm_gem_object_status gaccel_probe_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

const struct drm_gem_object_funcs gaccel_probe_funcs = {
	.status = gaccel_probe_status,
};
MODULE_LICENSE("Dual MIT/GPL");
