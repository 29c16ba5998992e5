// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The _unlocked dma-buf and GEM mapping calls of the dma_resv locking rules
 * (6.2+): dma_buf_vmap_unlocked(), drm_gem_vmap_unlocked(),
 * dma_buf_map_attachment_unlocked().
 */
#include <linux/module.h>
#include <linux/dma-buf.h>
#include <drm/drm_gem.h>

int gaccel_probe_fn(struct dma_buf_attachment *attach,
		    struct drm_gem_object *obj, struct iosys_map *map);
int gaccel_probe_fn(struct dma_buf_attachment *attach,
		    struct drm_gem_object *obj, struct iosys_map *map)
{
	struct sg_table *sgt;

	sgt = dma_buf_map_attachment_unlocked(attach, DMA_TO_DEVICE);
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_TO_DEVICE);
	return dma_buf_vmap_unlocked(attach->dmabuf, map) +
	       drm_gem_vmap_unlocked(obj, map);
}
MODULE_LICENSE("Dual MIT/GPL");
