/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_DRV_H__
#define __GACCEL_DRV_H__

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "gaccel_compat.h"
#include "gaccel_limits.h"

struct gaccel_engine;

/**
 * struct gaccel_device - one gaccel accelerator.
 * @drm: the DRM device, registered as /dev/accel/accelN.
 * @engine: the engine executing its jobs.
 * @free_wq: where queues are torn down after their last job.
 * @num_queues: queues not yet torn down.
 * @queues_idle: woken when @num_queues drops to zero.
 */
struct gaccel_device {
	struct drm_device drm;
	struct gaccel_engine *engine;
	struct workqueue_struct *free_wq;
	atomic_t num_queues;
	wait_queue_head_t queues_idle;
};

static inline struct gaccel_device *to_gaccel_device(struct drm_device *drm)
{
	return container_of(drm, struct gaccel_device, drm);
}

/**
 * struct gaccel_file - per open file state.
 * @gdev: the device the file was opened on.
 * @graphs: graph handles.
 * @queues: queue handles.
 * @usage: what the file holds, against its limits (gaccel_limits.h).
 */
struct gaccel_file {
	struct gaccel_device *gdev;
	struct xarray graphs;
	struct xarray queues;
	struct gaccel_usage *usage;
};

int gaccel_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file);
int gaccel_ioctl_bo_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int gaccel_ioctl_bo_info(struct drm_device *drm, void *data,
			 struct drm_file *file);
int gaccel_ioctl_bo_create_userptr(struct drm_device *drm, void *data,
				   struct drm_file *file);
int gaccel_ioctl_graph_create(struct drm_device *drm, void *data,
			      struct drm_file *file);
int gaccel_ioctl_graph_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file);
int gaccel_ioctl_queue_create(struct drm_device *drm, void *data,
			      struct drm_file *file);
int gaccel_ioctl_queue_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file);
int gaccel_ioctl_queue_get_state(struct drm_device *drm, void *data,
				 struct drm_file *file);
int gaccel_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file);
int gaccel_ioctl_bo_wait(struct drm_device *drm, void *data,
			 struct drm_file *file);

#endif /* __GACCEL_DRV_H__ */
