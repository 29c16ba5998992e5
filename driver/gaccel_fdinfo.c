// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fdinfo (Documentation/gpu/drm-usage-stats.rst): the engine's keys, and on
 * kernels whose DRM core has no fdinfo support (before 6.5, as Debian 12's
 * 6.1) the rest of it too: drm-driver, drm-client-id and the memory
 * statistics, with the same keys and meanings as the core's.
 */

#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"
#include "gaccel_limits.h"

#ifndef GACCEL_HAVE_DRM_SHOW_FDINFO
static atomic64_t gaccel_fdinfo_next_id = ATOMIC64_INIT(0);

/**
 * gaccel_fdinfo_client_id - a new file's drm-client-id: unique while the
 * module is loaded, never 0.
 */
u64 gaccel_fdinfo_client_id(void)
{
	return atomic64_inc_return(&gaccel_fdinfo_next_id);
}

/* A size in the largest of bytes, KiB and MiB that holds it exactly. */
static void gaccel_fdinfo_size(struct drm_printer *p, const char *key, u64 sz)
{
	static const char *const unit[] = { "", " KiB", " MiB" };
	unsigned int u = 0;

	while (u + 1 < ARRAY_SIZE(unit) && sz && !(sz & 1023)) {
		sz >>= 10;
		u++;
	}
	drm_printf(p, "drm-%s-memory:\t%llu%s\n", key, sz, unit[u]);
}

/*
 * The file's objects, as the core counts them from 6.5 on: shared when
 * another handle or a dma-buf refers to the object, resident when its
 * pages exist, active while a fence of its reservation is unsignalled.
 */
static void gaccel_fdinfo_memory(struct drm_printer *p, struct drm_file *file)
{
	u64 total = 0, shared = 0, resident = 0, active = 0;
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		total += obj->size;
		if (obj->handle_count > 1 || obj->dma_buf)
			shared += obj->size;
		if (gaccel_gem_resident(obj))
			resident += obj->size;
		if (!dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP))
			active += obj->size;
	}
	spin_unlock(&file->table_lock);

	gaccel_fdinfo_size(p, "total", total);
	gaccel_fdinfo_size(p, "shared", shared);
	gaccel_fdinfo_size(p, "active", active);
	gaccel_fdinfo_size(p, "resident", resident);
}
#endif

/**
 * gaccel_fdinfo_show - &drm_driver.show_fdinfo: the engine is one engine
 * class, "compute", with one unit per worker; busy time is summed per file
 * as its jobs finish.
 * @p: where to print.
 * @file: the file.
 */
void gaccel_fdinfo_show(struct drm_printer *p, struct drm_file *file)
{
	struct gaccel_device *gdev = to_gaccel_device(file->minor->dev);
	struct gaccel_file *gfile = file->driver_priv;

	drm_printf(p, "drm-engine-compute:\t%llu ns\n",
		   (unsigned long long)atomic64_read(&gfile->usage->engine_ns));
	if (gdev->engine->caps.num_workers > 1)
		drm_printf(p, "drm-engine-capacity-compute:\t%u\n",
			   gdev->engine->caps.num_workers);
#ifdef GACCEL_HAVE_DRM_SHOW_FDINFO
	drm_show_memory_stats(p, file);
#else
	gaccel_fdinfo_memory(p, file);
#endif
}

#ifndef GACCEL_HAVE_DRM_SHOW_FDINFO
/**
 * gaccel_fdinfo_fops_show - &file_operations.show_fdinfo of the node where
 * the core has none: its keys first, then the driver's.
 * @m: the fdinfo file.
 * @f: the node's file.
 */
void gaccel_fdinfo_fops_show(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_printer p = drm_seq_file_printer(m);

	drm_printf(&p, "drm-driver:\t%s\n", file->minor->dev->driver->name);
	drm_printf(&p, "drm-client-id:\t%llu\n", gfile->client_id);
	gaccel_fdinfo_show(&p, file);
}
#endif
