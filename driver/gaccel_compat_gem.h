/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Kernel API differences of buffer objects (gaccel_gem.c), as wrappers
 * chosen by the probes of driver/compat/ (gaccel_compat.h).
 */
#ifndef __GACCEL_COMPAT_GEM_H__
#define __GACCEL_COMPAT_GEM_H__

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>

#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>

#include "gaccel_compat.h"

/* vm_flags became read-only with its setters in 6.3. */
static inline void gaccel_vm_flags_set(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
#ifdef GACCEL_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void gaccel_vm_flags_clear(struct vm_area_struct *vma,
					 vm_flags_t flags)
{
#ifdef GACCEL_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Mappings of a dma-buf and of a shmem object, taken without the
 * reservation lock held. From 6.2 the callee takes dma_resv (the _unlocked
 * variants); before, dma_buf_vmap() took the dma-buf's own mutex and the
 * shmem helper its vmap_lock, so the plain calls are the same operation,
 * and an attachment is mapped under dma_resv as the 6.2 helper does.
 */
static inline struct sg_table *
gaccel_dma_buf_map_attachment(struct dma_buf_attachment *attach,
			      enum dma_data_direction dir)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	return dma_buf_map_attachment_unlocked(attach, dir);
#else
	struct sg_table *sgt;

	dma_resv_lock(attach->dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(attach, dir);
	dma_resv_unlock(attach->dmabuf->resv);
	return sgt;
#endif
}

static inline void
gaccel_dma_buf_unmap_attachment(struct dma_buf_attachment *attach,
				struct sg_table *sgt,
				enum dma_data_direction dir)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	dma_buf_unmap_attachment_unlocked(attach, sgt, dir);
#else
	dma_resv_lock(attach->dmabuf->resv, NULL);
	dma_buf_unmap_attachment(attach, sgt, dir);
	dma_resv_unlock(attach->dmabuf->resv);
#endif
}

static inline int gaccel_dma_buf_vmap(struct dma_buf *dmabuf,
				      struct iosys_map *map)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	return dma_buf_vmap_unlocked(dmabuf, map);
#else
	return dma_buf_vmap(dmabuf, map);
#endif
}

static inline void gaccel_dma_buf_vunmap(struct dma_buf *dmabuf,
					 struct iosys_map *map)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	dma_buf_vunmap_unlocked(dmabuf, map);
#else
	dma_buf_vunmap(dmabuf, map);
#endif
}

static inline int gaccel_gem_vmap(struct drm_gem_object *obj,
				  struct iosys_map *map)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	return drm_gem_vmap_unlocked(obj, map);
#else
	/*
	 * What drm_gem_vmap() did then (not exported): the object's own
	 * vmap, which locks for itself; a vmem object is no shmem object.
	 */
	return obj->funcs->vmap(obj, map);
#endif
}

static inline void gaccel_gem_vunmap(struct drm_gem_object *obj,
				     struct iosys_map *map)
{
#ifdef GACCEL_HAVE_DMA_BUF_UNLOCKED
	drm_gem_vunmap_unlocked(obj, map);
#else
	if (obj->funcs->vunmap)
		obj->funcs->vunmap(obj, map);
#endif
}

#endif /* __GACCEL_COMPAT_GEM_H__ */
