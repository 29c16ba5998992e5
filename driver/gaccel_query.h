/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * QUERY: what the device, its engine and the caller's limits are.
 */
#ifndef __GACCEL_QUERY_H__
#define __GACCEL_QUERY_H__

struct drm_device;
struct drm_file;

int gaccel_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif /* __GACCEL_QUERY_H__ */
