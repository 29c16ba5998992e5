// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Buffer objects: shmem-backed GEM objects, created by BO_CREATE or by a
 * dma-buf import (PRIME or BO_CREATE_USERPTR), mapped by the CPU through the
 * accel node and by the software engine through a cached kernel mapping.
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"

static void gaccel_gem_free(struct drm_gem_object *obj)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);

	if (!iosys_map_is_null(&bo->map))
		drm_gem_vunmap_unlocked(obj, &bo->map);
	mutex_destroy(&bo->vmap_lock);
	drm_gem_shmem_free(&bo->base);
}

static int gaccel_gem_mmap(struct drm_gem_object *obj,
			   struct vm_area_struct *vma)
{
	if (gaccel_bo_flags(obj) & (DRM_GACCEL_BO_NO_MMAP | DRM_GACCEL_BO_USERPTR))
		return -EACCES;
	return drm_gem_shmem_object_mmap(obj, vma);
}

static enum drm_gem_object_status gaccel_gem_status(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	/* Imported objects are resident for as long as they are imported. */
	if (obj->import_attach || shmem->pages)
		return DRM_GEM_OBJECT_RESIDENT;
	return 0;
}

static const struct drm_gem_object_funcs gaccel_gem_funcs = {
	.free = gaccel_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = gaccel_gem_mmap,
	.status = gaccel_gem_status,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

struct drm_gem_object *gaccel_gem_create_object(struct drm_device *drm,
						size_t size)
{
	struct gaccel_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	mutex_init(&bo->vmap_lock);
	bo->base.base.funcs = &gaccel_gem_funcs;
	return &bo->base.base;
}

u32 gaccel_bo_flags(struct drm_gem_object *obj)
{
	u32 flags = to_gaccel_bo(obj)->flags;

	if (obj->import_attach) {
		flags |= DRM_GACCEL_BO_IMPORTED;
		if (gaccel_userptr_is_userptr(obj))
			flags |= DRM_GACCEL_BO_USERPTR;
		if (gaccel_userptr_is_readonly(obj))
			flags |= DRM_GACCEL_BO_READ_ONLY;
	}
	return flags;
}

/*
 * The kernel address of the whole object, mapped on first use and kept
 * until the object is freed. Imported objects are mapped through their
 * exporter's vmap. NULL if the object cannot be mapped.
 */
void *gaccel_bo_vaddr(struct drm_gem_object *obj)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	struct iosys_map map;
	void *vaddr = NULL;

	mutex_lock(&bo->vmap_lock);
	if (iosys_map_is_null(&bo->map)) {
		if (drm_gem_vmap_unlocked(obj, &map) == 0) {
			if (map.is_iomem)
				drm_gem_vunmap_unlocked(obj, &map);
			else
				bo->map = map;
		}
	}
	if (!iosys_map_is_null(&bo->map))
		vaddr = bo->map.vaddr;
	mutex_unlock(&bo->vmap_lock);
	return vaddr;
}

int gaccel_ioctl_bo_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct gaccel_device *gdev = to_gaccel_device(drm);
	struct drm_gaccel_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	u64 size = args->size;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_GACCEL_BO_NO_MMAP) {
		drm_dbg(drm, "BO_CREATE: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (!size || size > gdev->engine->caps.max_bo_size) {
		drm_dbg(drm, "BO_CREATE: size %llu out of range\n", size);
		return -EINVAL;
	}
	size = PAGE_ALIGN(size);

	shmem = drm_gem_shmem_create(drm, size);
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);
	obj = &shmem->base;
	to_gaccel_bo(obj)->flags = args->flags;

	if (!(args->flags & DRM_GACCEL_BO_NO_MMAP)) {
		ret = drm_gem_create_mmap_offset(obj);
		if (ret)
			goto out_put;
	}

	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret)
		goto out_put;

	args->handle = handle;
	args->size = size;
out_put:
	drm_gem_object_put(obj);
	return ret;
}

int gaccel_ioctl_bo_info(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_gaccel_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret = 0;
	u32 flags;

	if (args->pad) {
		drm_dbg(drm, "BO_INFO: pad is %#x, must be zero\n", args->pad);
		return -EINVAL;
	}

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "BO_INFO: no object %u\n", args->handle);
		return -ENOENT;
	}

	flags = gaccel_bo_flags(obj);
	args->flags = flags;
	args->pad2 = 0;
	args->size = obj->size;
	args->mmap_offset = 0;
	if (!(flags & (DRM_GACCEL_BO_NO_MMAP | DRM_GACCEL_BO_USERPTR))) {
		/* Imported objects get their offset on first request. */
		ret = drm_gem_create_mmap_offset(obj);
		if (!ret)
			args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	}
	drm_gem_object_put(obj);
	return ret;
}
