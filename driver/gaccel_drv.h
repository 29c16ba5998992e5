/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_DRV_H__
#define __GACCEL_DRV_H__

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "gaccel_compat.h"

struct gaccel_engine;

/**
 * struct gaccel_device - one gaccel accelerator.
 * @drm: the DRM device, registered as /dev/accel/accelN.
 * @engine: the engine executing its jobs.
 */
struct gaccel_device {
	struct drm_device drm;
	struct gaccel_engine *engine;
};

static inline struct gaccel_device *to_gaccel_device(struct drm_device *drm)
{
	return container_of(drm, struct gaccel_device, drm);
}

/**
 * struct gaccel_file - per open file state.
 * @gdev: the device the file was opened on.
 */
struct gaccel_file {
	struct gaccel_device *gdev;
};

int gaccel_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file);
int gaccel_ioctl_bo_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int gaccel_ioctl_bo_info(struct drm_device *drm, void *data,
			 struct drm_file *file);
int gaccel_ioctl_bo_create_userptr(struct drm_device *drm, void *data,
				   struct drm_file *file);

#endif /* __GACCEL_DRV_H__ */
