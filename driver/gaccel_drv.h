/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_DRV_H__
#define __GACCEL_DRV_H__

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/xarray.h>

#include "gaccel_compat.h"
#include "gaccel_engine.h"
#include "gaccel_limits.h"
#include "gaccel_sched.h"

struct drm_driver;
struct gaccel_client;

/**
 * struct gaccel_device - one gaccel accelerator.
 * @drm: the DRM device, registered as /dev/accel/accelN. Files and queues
 *	hold references; the engine and the schedulers are finished when the
 *	last one goes (drmm actions).
 * @engine: the engine executing its jobs (@engine_data).
 * @engine_data: the engine as gaccel_engine_register() made it
 *	(gaccel_engine.c): its caps are the core's copy, which outlives the
 *	engine's module.
 * @engine_name: the engine's name, the same copy.
 * @sched: its schedulers, one per engine worker (gaccel_sched.c).
 * @import_lock: protects @imports.
 * @imports: a DMA engine's imported objects by dma-buf (gaccel_gem.c):
 *	one object, so one DMA mapping, per dma-buf, whichever files import it.
 * @dma_lock: protects @dma_objs, @dma_gone and the objects' mappings.
 * @dma_objs: the objects DMA-mapped for a DMA engine's device.
 * @dma_gone: the engine is unregistered: its mappings are undone and no
 *	new one is made.
 */
struct gaccel_device {
	struct drm_device drm;
	struct gaccel_engine *engine;
	struct gaccel_engine engine_data;
	char engine_name[32];
	struct gaccel_scheds sched;
	struct mutex import_lock; /* protects imports */
	struct rb_root imports;
	struct mutex dma_lock; /* protects dma_objs, dma_gone */
	struct list_head dma_objs;
	bool dma_gone;
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
 * @client: the file's turn at the schedulers (gaccel_queue.c).
 * @client_id: fdinfo's drm-client-id, where &drm_file has none (before 6.5).
 */
struct gaccel_file {
	struct gaccel_device *gdev;
	struct xarray graphs;
	struct xarray queues;
	struct gaccel_usage *usage;
	struct gaccel_client *client;
#ifndef GACCEL_HAVE_DRM_SHOW_FDINFO
	u64 client_id;
#endif
};

extern const struct drm_driver gaccel_drm_driver;

/* fdinfo (gaccel_fdinfo.c) */
struct drm_printer;
struct file;
struct seq_file;
void gaccel_fdinfo_show(struct drm_printer *p, struct drm_file *file);
#ifndef GACCEL_HAVE_DRM_SHOW_FDINFO
u64 gaccel_fdinfo_client_id(void);
void gaccel_fdinfo_fops_show(struct seq_file *m, struct file *f);
#endif
void gaccel_debugfs_init(struct gaccel_device *gdev);

/* The reference engine's device (gaccel_ref.c) */
int gaccel_ref_module_init(void);
void gaccel_ref_module_exit(void);

#endif /* __GACCEL_DRV_H__ */
