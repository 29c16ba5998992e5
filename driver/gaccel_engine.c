// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Engine registration: the API an engine module calls, and the DMA view of
 * a job's slots for engines that reach memory by DMA.
 *
 * An engine registers from its driver's probe with the struct device it
 * drives (a PCI function, a platform or device-tree device) and gets a
 * gaccel device of its own: a DRM accel node whose parent is that device,
 * its schedulers and its debugfs directory. It unregisters from its remove
 * (or the error path of its probe). Unregistration is synchronous with
 * respect to the engine's code: once gaccel_engine_unregister() returns,
 * gaccel calls none of the engine's operations again and no job of it runs,
 * so the engine may release its hardware and its module may go, even while
 * files still hold the (then unplugged) device: those only see -ENODEV.
 *
 * What makes that hold: every call into the engine is made either inside
 * drm_dev_enter()/drm_dev_exit() (the ioctls that reach the engine, run(),
 * the timeout handler's cancel() and reset()), which drm_dev_unplug()
 * waits for, or for a job the engine is running, which unregistration
 * cancels and waits for (its done()), or by the poller, which stops once no
 * job runs.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"
#include "gaccel_sched.h"

/* Most workers (schedulers) one engine may declare. */
#define GACCEL_ENGINE_MAX_WORKERS	1024

/*
 * Whether every page the core may map for @dev's DMA ends up where the
 * device reaches: behind a translating IOMMU (which allocates addresses
 * within the device's mask), with a mask that covers all memory, or with
 * swiotlb bouncing what it does not cover (then the DMA API says mappings
 * have a largest size). Otherwise a job's mapping would fail, and the DMA
 * API warn, on whatever page a client's object happens to get.
 */
static bool gaccel_engine_dma_reaches_all(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	if (dom && dom->type != IOMMU_DOMAIN_IDENTITY)
		return true;
	if (!dma_addressing_limited(dev))
		return true;
	return dma_max_mapping_size(dev) != SIZE_MAX;
}

static int gaccel_engine_desc_check(struct device *dev,
				    const struct gaccel_engine_desc *desc)
{
	const struct gaccel_engine_caps *caps = &desc->caps;
	const struct gaccel_engine_ops *ops = desc->ops;

	if (!ops || !ops->run || !ops->cancel || !ops->reset || !ops->stats) {
		dev_err(dev, "gaccel: engine without run, cancel, reset or stats\n");
		return -EINVAL;
	}
	if (!ops->is_short != !ops->run_short) {
		dev_err(dev, "gaccel: engine has one of is_short and run_short\n");
		return -EINVAL;
	}
	if (!caps->name || !caps->name[0] || !caps->ops || !caps->num_ops ||
	    !caps->num_workers || caps->num_workers > GACCEL_ENGINE_MAX_WORKERS ||
	    !caps->max_bo_size || !caps->max_rank ||
	    caps->max_rank > 4 || !caps->max_graph_nodes ||
	    !caps->max_graph_tensors || !caps->max_bindings) {
		dev_err(dev, "gaccel: engine caps incomplete or out of range\n");
		return -EINVAL;
	}
	switch (desc->mem) {
	case GACCEL_ENGINE_MEM_CPU:
		break;
	case GACCEL_ENGINE_MEM_DMA:
		if (!dev->dma_mask || ops->is_short || caps->node_scratch) {
			dev_err(dev, "gaccel: DMA engine without a DMA mask, or with CPU-side short jobs or scratch\n");
			return -EINVAL;
		}
		if (!gaccel_engine_dma_reaches_all(dev)) {
			dev_err(dev, "gaccel: the device's DMA mask %#llx does not cover memory, and neither an IOMMU nor bounce buffers make up for it\n",
				dma_get_mask(dev));
			return -ENODEV;
		}
		break;
	default:
		dev_err(dev, "gaccel: unknown memory kind %d\n", desc->mem);
		return -EINVAL;
	}
	switch (desc->completion) {
	case GACCEL_ENGINE_COMPLETE_IRQ:
		break;
	case GACCEL_ENGINE_COMPLETE_POLL:
		if (!ops->poll || desc->poll_us < 10 || desc->poll_us > 1000000) {
			dev_err(dev, "gaccel: polling engine without poll or with poll_us %u\n",
				desc->poll_us);
			return -EINVAL;
		}
		break;
	default:
		dev_err(dev, "gaccel: unknown completion kind %d\n", desc->completion);
		return -EINVAL;
	}
	return 0;
}

/**
 * gaccel_engine_register - create a gaccel device for an engine.
 * @dev: the engine's device, bound to the engine's driver (call this from
 *	its probe): the parent of the accel node, and for DMA engines the
 *	device buffer objects are mapped for (set its DMA mask first).
 * @desc: what the engine is and does; copied, except @desc->ops and
 *	@desc->priv, which must stay valid until gaccel_engine_unregister().
 *
 * The device is allocated with devres on @dev; the node appears before this
 * returns and jobs may start at once.
 *
 * Returns the engine handle, or an ERR_PTR (with a message in the log).
 */
struct gaccel_engine *gaccel_engine_register(struct device *dev,
					     const struct gaccel_engine_desc *desc)
{
	struct gaccel_device *gdev;
	struct gaccel_engine *engine;
	struct gaccel_op_caps *ops;
	int ret;

	ret = gaccel_engine_desc_check(dev, desc);
	if (ret)
		return ERR_PTR(ret);

	gdev = devm_drm_dev_alloc(dev, &gaccel_drm_driver, struct gaccel_device,
				  drm);
	if (IS_ERR(gdev))
		return ERR_CAST(gdev);

	/* The core's own copy: QUERY and validation never read the engine's. */
	ops = drmm_kmalloc_array(&gdev->drm, desc->caps.num_ops, sizeof(*ops),
				 GFP_KERNEL);
	if (!ops)
		return ERR_PTR(-ENOMEM);
	memcpy(ops, desc->caps.ops, desc->caps.num_ops * sizeof(*ops));

	ret = drmm_mutex_init(&gdev->drm, &gdev->import_lock);
	if (!ret)
		ret = drmm_mutex_init(&gdev->drm, &gdev->dma_lock);
	if (ret)
		return ERR_PTR(ret);
	gdev->imports = RB_ROOT;
	INIT_LIST_HEAD(&gdev->dma_objs);

	engine = &gdev->engine_data;
	engine->ops = desc->ops;
	engine->caps = desc->caps;
	engine->caps.ops = ops;
	strscpy(gdev->engine_name, desc->caps.name, sizeof(gdev->engine_name));
	engine->caps.name = gdev->engine_name;
	engine->mem = desc->mem;
	engine->completion = desc->completion;
	engine->poll_us = desc->poll_us;
	engine->priv = desc->priv;
	engine->dev = dev;
	engine->gdev = gdev;
	gdev->engine = engine;

	ret = gaccel_sched_init(gdev);
	if (ret)
		return ERR_PTR(ret);
	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		return ERR_PTR(ret);
	gaccel_debugfs_init(gdev);
	drm_info(&gdev->drm, "engine %s, %u workers, %s memory, %s completion\n",
		 engine->caps.name, engine->caps.num_workers,
		 engine->mem == GACCEL_ENGINE_MEM_DMA ? "DMA" : "CPU",
		 engine->completion == GACCEL_ENGINE_COMPLETE_POLL ? "polled" :
								     "signalled");
	return engine;
}
EXPORT_SYMBOL_NS_GPL(gaccel_engine_register, GACCEL_NS);

/**
 * gaccel_engine_unregister - take an engine's device away.
 * @engine: the handle gaccel_engine_register() returned.
 *
 * The node goes, ioctls of open files fail with -ENODEV from now on, jobs
 * not started are skipped (their fences signal -ENODEV) and running ones
 * are cancelled; this waits for their done() (bounded by the engine's
 * cancel), then undoes every DMA mapping made for the engine's device
 * (objects outlive it). Afterwards gaccel makes no call into the engine and
 * has nothing mapped for its device. The device itself is freed when the
 * last file, queue and fence let it go.
 */
void gaccel_engine_unregister(struct gaccel_engine *engine)
{
	struct gaccel_device *gdev = engine->gdev;

	drm_dev_unplug(&gdev->drm);
	gaccel_sched_unplug(gdev);
	gaccel_sched_quiesce(gdev);
	gaccel_gem_dma_unmap_all(gdev);
}
EXPORT_SYMBOL_NS_GPL(gaccel_engine_unregister, GACCEL_NS);

/**
 * gaccel_engine_minor - the N of the engine's node: /dev/accel/accelN, or
 * /dev/dri/renderDN on a kernel without accel nodes (gaccel_drv.c).
 * @engine: a registered engine.
 */
int gaccel_engine_minor(const struct gaccel_engine *engine)
{
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	return engine->gdev->drm.accel->index;
#else
	return engine->gdev->drm.render->index;
#endif
}
EXPORT_SYMBOL_NS_GPL(gaccel_engine_minor, GACCEL_NS);

/* ------------------------------------------------------------------------ */
/* DMA slots                                                                 */

/**
 * gaccel_dma_cursor_init - start walking a DMA slot.
 * @cur: the cursor.
 * @slot: the slot.
 */
void gaccel_dma_cursor_init(struct gaccel_dma_cursor *cur,
			    const struct gaccel_engine_dma *slot)
{
	cur->slot = slot;
	cur->sg = slot->sgt->sgl;
	cur->start = 0;
	cur->left = slot->sgt->nents;
}
EXPORT_SYMBOL_NS_GPL(gaccel_dma_cursor_init, GACCEL_NS);

/**
 * gaccel_dma_cursor_seek - the DMA address of a byte of a slot.
 * @cur: the cursor; seeks forward are cheap (no restart), backward ones
 *	walk the table again.
 * @pos: the byte, relative to the slot's start, below its size.
 * @addr: its DMA address.
 *
 * Returns how many bytes from @pos on are contiguous in DMA space (at most
 * to the end of the slot), or 0 when @pos is outside the slot.
 */
u64 gaccel_dma_cursor_seek(struct gaccel_dma_cursor *cur, u64 pos,
			   dma_addr_t *addr)
{
	const struct gaccel_engine_dma *slot = cur->slot;
	u64 at, len;

	if (pos >= slot->size)
		return 0;
	at = slot->offset + pos;
	if (at < cur->start)
		gaccel_dma_cursor_init(cur, slot);
	while (cur->left && at >= cur->start + sg_dma_len(cur->sg)) {
		cur->start += sg_dma_len(cur->sg);
		cur->sg = sg_next(cur->sg);
		cur->left--;
	}
	if (!cur->left)
		return 0;
	*addr = sg_dma_address(cur->sg) + (at - cur->start);
	len = cur->start + sg_dma_len(cur->sg) - at;
	return min(len, slot->size - pos);
}
EXPORT_SYMBOL_NS_GPL(gaccel_dma_cursor_seek, GACCEL_NS);

/*
 * Synchronise the bytes of @slot between the CPU and @dev: for the device
 * before a job (whatever the direction: the engine reads what the CPU
 * wrote), for the CPU after it (written slots only). Segment by segment,
 * only the slot's range: with bounce buffers each synced byte is copied.
 */
static void gaccel_dma_sync_slot(struct device *dev,
				 const struct gaccel_engine_dma *slot,
				 bool for_device)
{
	u64 start = 0, end = slot->offset + slot->size;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(slot->sgt, sg, i) {
		u64 len = sg_dma_len(sg), from, to;

		if (start >= end)
			break;
		from = max(start, slot->offset);
		to = min(start + len, end);
		if (from < to) {
			dma_addr_t a = sg_dma_address(sg) + (from - start);

			if (for_device)
				dma_sync_single_for_device(dev, a, to - from,
							   slot->dir);
			else
				dma_sync_single_for_cpu(dev, a, to - from,
							DMA_FROM_DEVICE);
		}
		start += len;
	}
}

/**
 * gaccel_engine_sync_job - make a DMA engine's slots coherent.
 * @engine: the engine.
 * @ejob: the job, its slots mapped.
 * @for_device: before the job runs (every slot), or after (written ones).
 *
 * On the fence signalling path: allocates nothing, takes no lock.
 */
void gaccel_engine_sync_job(struct gaccel_engine *engine,
			    struct gaccel_engine_job *ejob, bool for_device)
{
	const struct gaccel_graph *g = ejob->graph;
	u32 i;

	if (engine->mem != GACCEL_ENGINE_MEM_DMA)
		return;
	for (i = 0; i < g->num_slots; i++) {
		if (!for_device && !g->slot_written[i])
			continue;
		gaccel_dma_sync_slot(engine->dev, &ejob->dma[i], for_device);
	}
}
