/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SUBMIT and BO_WAIT: the ioctls that queue jobs and wait for objects.
 */
#ifndef __GACCEL_SUBMIT_H__
#define __GACCEL_SUBMIT_H__

struct drm_device;
struct drm_file;

int gaccel_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file);
int gaccel_ioctl_bo_wait(struct drm_device *drm, void *data,
			 struct drm_file *file);

#endif /* __GACCEL_SUBMIT_H__ */
