// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Buffer objects: shmem-backed GEM objects, created by BO_CREATE or by a
 * dma-buf import (PRIME or BO_CREATE_USERPTR), mapped by the CPU through the
 * accel node and by the software engine through a cached kernel mapping.
 *
 * Lifetime: an object is referenced by each handle of each file (counted
 * against that file's limits by .open/.close), by each job using it, by a
 * dma-buf exported from it and by CPU mappings; the last put frees it.
 * Memory: the object's struct and its shmem file are charged to the memory
 * cgroup of the creating task, its pages to that of the task that first
 * makes them exist (mmap or first job); see Documentation/security.rst.
 */

#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include <drm/gaccel_accel.h>

#include "gaccel_compat_gem.h"
#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"

/*
 * A dma-buf whose file is not open for writing is read-only for gaccel:
 * the exporter said so (a read-only userptr, an O_RDONLY heap buffer, a
 * PRIME export without DRM_RDWR), and every handle to it must keep to it.
 */
static bool gaccel_dmabuf_is_readonly(struct dma_buf *dmabuf)
{
	return !(dmabuf->file->f_mode & FMODE_WRITE);
}

static void gaccel_bo_vunmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	if (obj->import_attach)
		gaccel_dma_buf_vunmap(obj->import_attach->dmabuf, map);
	else
		gaccel_gem_vunmap(obj, map);
}

static void gaccel_import_unindex(struct drm_gem_object *obj);
static void gaccel_bo_dma_unmap(struct drm_gem_object *obj);

static void gaccel_gem_free(struct drm_gem_object *obj)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);

	gaccel_import_unindex(obj);
	gaccel_bo_dma_unmap(obj);
	if (!iosys_map_is_null(&bo->map))
		gaccel_bo_vunmap(obj, &bo->map);
	mutex_destroy(&bo->vmap_lock);
	drm_gem_shmem_free(&bo->base);
}

/*
 * Every handle a file holds is counted against its limits, whether the
 * object was created, imported or shared by PRIME from another file: the
 * core calls .open for each new handle (before publishing it) and .close
 * when the handle goes, also when the file is closed.
 */
int gaccel_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	int ret;

	ret = gaccel_charge(obj->dev, gfile->usage, GACCEL_RES_BOS, 1);
	if (ret)
		return ret;
	ret = gaccel_charge(obj->dev, gfile->usage, GACCEL_RES_BO_BYTES,
			    obj->size);
	if (ret)
		gaccel_uncharge(gfile->usage, GACCEL_RES_BOS, 1);
	return ret;
}

void gaccel_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;

	gaccel_uncharge(gfile->usage, GACCEL_RES_BO_BYTES, obj->size);
	gaccel_uncharge(gfile->usage, GACCEL_RES_BOS, 1);
}

/*
 * What every CPU mapping of an object must respect, whatever its memory:
 * objects made without one or wrapping a user's memory are not mapped,
 * nor copy-on-write, and read-only objects only read-only.
 */
int gaccel_gem_mmap_check(struct drm_gem_object *obj,
			  struct vm_area_struct *vma)
{
	u32 flags = gaccel_bo_flags(obj);

	if (flags & (DRM_GACCEL_BO_NO_MMAP | DRM_GACCEL_BO_USERPTR))
		return -EACCES;
	/*
	 * The shmem helper refuses copy-on-write mappings of its own pages
	 * but hands those of an imported object to the exporter unchecked.
	 */
	if (is_cow_mapping(vma->vm_flags)) {
		drm_dbg(obj->dev, "mmap: private writable mappings are refused\n");
		return -EINVAL;
	}
	if (flags & DRM_GACCEL_BO_READ_ONLY) {
		if (vma->vm_flags & VM_WRITE) {
			drm_dbg(obj->dev, "mmap: object is read-only\n");
			return -EACCES;
		}
		gaccel_vm_flags_clear(vma, VM_MAYWRITE);
	}
	return 0;
}

static int gaccel_gem_mmap(struct drm_gem_object *obj,
			   struct vm_area_struct *vma)
{
	int ret = gaccel_gem_mmap_check(obj, vma);

	return ret ? ret : drm_gem_shmem_object_mmap(obj, vma);
}

/**
 * gaccel_gem_resident - whether the object's pages exist (fdinfo's resident).
 * @obj: the object.
 */
bool gaccel_gem_resident(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	/*
	 * Imported objects (userptr included) are resident for as long as
	 * they are imported: the exporter pinned them at attach time. Huge
	 * page objects (gaccel_vmem.c) once their memory is allocated.
	 */
	return obj->import_attach || READ_ONCE(to_gaccel_bo(obj)->vmem) ||
	       READ_ONCE(shmem->pages);
}

#ifdef GACCEL_HAVE_DRM_GEM_STATUS
static enum drm_gem_object_status gaccel_gem_status(struct drm_gem_object *obj)
{
	return gaccel_gem_resident(obj) ? DRM_GEM_OBJECT_RESIDENT : 0;
}
#endif

/*
 * A read-only export (PRIME without DRM_RDWR) is read-only for every
 * importer, not only for CPU mappings of its file: devices may only map it
 * DMA_TO_DEVICE and CPU write access is refused. Writable exports keep the
 * core's ops, so that they come back to this device as the object itself.
 */
static struct sg_table *gaccel_ro_dmabuf_map(struct dma_buf_attachment *attach,
					     enum dma_data_direction dir)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;

	if (dir != DMA_TO_DEVICE) {
		drm_dbg(obj->dev, "read-only export: refusing a mapping the importer may write (%d)\n",
			dir);
		return ERR_PTR(-EACCES);
	}
	return drm_gem_map_dma_buf(attach, dir);
}

static int gaccel_ro_dmabuf_begin_cpu_access(struct dma_buf *dmabuf,
					     enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? 0 : -EACCES;
}

static const struct dma_buf_ops gaccel_ro_dmabuf_ops = {
	.cache_sgt_mapping = true,
	.attach = drm_gem_map_attach,
	.detach = drm_gem_map_detach,
	.map_dma_buf = gaccel_ro_dmabuf_map,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.begin_cpu_access = gaccel_ro_dmabuf_begin_cpu_access,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

struct dma_buf *gaccel_gem_prime_export(struct drm_gem_object *obj, int flags)
{
	struct dma_buf_export_info exp = {
		.exp_name = KBUILD_MODNAME,
		.owner = THIS_MODULE,
		.ops = &gaccel_ro_dmabuf_ops,
		.size = obj->size,
		.flags = flags,
		.priv = obj,
		.resv = obj->resv,
	};

	if ((flags & O_ACCMODE) != O_RDONLY)
		return drm_gem_prime_export(obj, flags);
	return drm_gem_dmabuf_export(obj->dev, &exp);
}

static const struct drm_gem_object_funcs gaccel_gem_funcs = {
	.free = gaccel_gem_free,
	.open = gaccel_gem_open,
	.close = gaccel_gem_close,
	.export = gaccel_gem_prime_export,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = gaccel_gem_mmap,
#ifdef GACCEL_HAVE_DRM_GEM_STATUS
	.status = gaccel_gem_status,
#endif
	.vm_ops = &drm_gem_shmem_vm_ops,
};

struct drm_gem_object *gaccel_gem_create_object(struct drm_device *drm,
						size_t size)
{
	struct gaccel_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	mutex_init(&bo->vmap_lock);
	bo->base.base.funcs = &gaccel_gem_funcs;
	return &bo->base.base;
}

/*
 * A DMA engine's device keeps one object per imported dma-buf: each object
 * holds its own attachment and, once a job bound it, its own DMA mapping,
 * and the DMA API does not support the same pages mapped for device writes
 * many times over (a client could import one dma-buf in as many files as it
 * likes). The tree is keyed by the dma-buf; an object being freed (no
 * reference left) is dropped from it, so a new import makes a new one.
 */
static struct drm_gem_object *gaccel_import_find(struct gaccel_device *gdev,
						 struct dma_buf *dmabuf)
{
	struct rb_node *n = gdev->imports.rb_node;

	lockdep_assert_held(&gdev->import_lock);
	while (n) {
		struct gaccel_bo *bo = rb_entry(n, struct gaccel_bo, import_node);
		struct dma_buf *key = bo->base.base.import_attach->dmabuf;

		if (dmabuf < key) {
			n = n->rb_left;
		} else if (dmabuf > key) {
			n = n->rb_right;
		} else {
			if (kref_get_unless_zero(&bo->base.base.refcount))
				return &bo->base.base;
			rb_erase(n, &gdev->imports);
			bo->import_indexed = false;
			return NULL;
		}
	}
	return NULL;
}

static void gaccel_import_index(struct gaccel_device *gdev,
				struct drm_gem_object *obj)
{
	struct rb_node **link = &gdev->imports.rb_node, *parent = NULL;
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	struct dma_buf *dmabuf = obj->import_attach->dmabuf;

	lockdep_assert_held(&gdev->import_lock);
	while (*link) {
		struct gaccel_bo *b = rb_entry(*link, struct gaccel_bo, import_node);

		parent = *link;
		link = dmabuf < b->base.base.import_attach->dmabuf ?
		       &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&bo->import_node, parent, link);
	rb_insert_color(&bo->import_node, &gdev->imports);
	bo->import_indexed = true;
}

static void gaccel_import_unindex(struct drm_gem_object *obj)
{
	struct gaccel_device *gdev = to_gaccel_device(obj->dev);
	struct gaccel_bo *bo = to_gaccel_bo(obj);

	if (!obj->import_attach || gdev->engine->mem != GACCEL_ENGINE_MEM_DMA)
		return;
	mutex_lock(&gdev->import_lock);
	if (bo->import_indexed) {
		rb_erase(&bo->import_node, &gdev->imports);
		bo->import_indexed = false;
	}
	mutex_unlock(&gdev->import_lock);
}

/**
 * gaccel_gem_prime_import - &drm_driver.gem_prime_import.
 * @drm: the device.
 * @dmabuf: the dma-buf to import.
 *
 * A dma-buf that is not whole pages is refused. A writable export of one
 * of this device's own objects comes back as the object itself, as
 * drm_gem_prime_import() does. Anything else becomes an object of its own
 * that holds an attachment (for the engine's device) but no DMA mapping
 * yet: a CPU engine reaches memory through kernel mappings (dma_buf_vmap()
 * when a job binds it), never by DMA, so a mapping would only cost an
 * IOMMU or swiotlb mapping per import; a DMA engine's first job maps it
 * (gaccel_bo_dma_map()), and imports one dma-buf as one object, whatever
 * the file (gaccel_import_find()). A read-only dma-buf (its file not open
 * for writing) makes an
 * object gaccel_bo_flags() reports %DRM_GACCEL_BO_READ_ONLY: jobs may not
 * write it and CPU mappings of it are read-only.
 *
 * Returns the object with a reference, or an ERR_PTR.
 */
struct drm_gem_object *gaccel_gem_prime_import(struct drm_device *drm,
					       struct dma_buf *dmabuf)
{
	struct gaccel_device *gdev = to_gaccel_device(drm);
	bool dma = gdev->engine->mem == GACCEL_ENGINE_MEM_DMA;
	bool ro = gaccel_dmabuf_is_readonly(dmabuf);
	struct dma_buf_attachment *attach;
	struct drm_gem_object *obj;
	int ret;

	/*
	 * Objects are whole pages, which the engine may all touch: the tail
	 * of a page past an exporter's buffer is not the importer's.
	 */
	if (!PAGE_ALIGNED(dmabuf->size)) {
		drm_dbg(drm, "import: dma-buf of %zu bytes, not whole pages\n",
			dmabuf->size);
		return ERR_PTR(-EINVAL);
	}
	/* A GEM export's priv is its object (drm_gem_dmabuf_release()). */
	if (!ro && dmabuf->ops->release == drm_gem_dmabuf_release) {
		obj = dmabuf->priv;
		if (obj->dev == drm) {
			drm_gem_object_get(obj);
			return obj;
		}
	}

	if (dma) {
		mutex_lock(&gdev->import_lock);
		obj = gaccel_import_find(gdev, dmabuf);
		if (obj)
			goto out_unlock;
	}

	attach = dma_buf_attach(dmabuf, drm->dev);
	if (IS_ERR(attach)) {
		obj = ERR_CAST(attach);
		goto out_unlock;
	}
	get_dma_buf(dmabuf);

	obj = drm_gem_shmem_prime_import_sg_table(drm, attach, NULL);
	if (IS_ERR(obj)) {
		ret = PTR_ERR(obj);
		goto err_detach;
	}
	obj->import_attach = attach;
	obj->resv = dmabuf->resv;
	if (dma)
		gaccel_import_index(gdev, obj);
	goto out_unlock;

err_detach:
	dma_buf_detach(dmabuf, attach);
	dma_buf_put(dmabuf);
	obj = ERR_PTR(ret);
out_unlock:
	if (dma)
		mutex_unlock(&gdev->import_lock);
	return obj;
}

u32 gaccel_bo_flags(struct drm_gem_object *obj)
{
	u32 flags = to_gaccel_bo(obj)->flags;

	if (obj->import_attach) {
		flags |= DRM_GACCEL_BO_IMPORTED;
		if (gaccel_userptr_is_userptr(obj))
			flags |= DRM_GACCEL_BO_USERPTR;
		if (gaccel_dmabuf_is_readonly(obj->import_attach->dmabuf))
			flags |= DRM_GACCEL_BO_READ_ONLY;
	}
	return flags;
}

/**
 * gaccel_bo_vmap - the kernel address of a whole object.
 * @obj: the object.
 * @vaddr: where to put the address.
 *
 * The mapping is made on first use and kept until the object is freed;
 * imported objects are mapped through their exporter. Memory the engine
 * cannot use (an exporter's I/O memory) is refused here, before the shmem
 * helper would warn about it.
 *
 * Returns 0, or -ENOMEM when the pages cannot be allocated (the caller's
 * memory cgroup is charged for them), -EINVAL for I/O memory, or the
 * exporter's error.
 */
int gaccel_bo_vmap(struct drm_gem_object *obj, void **vaddr)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	struct iosys_map map;
	int ret = 0;

	mutex_lock(&bo->vmap_lock);
	if (iosys_map_is_null(&bo->map)) {
		if (obj->import_attach)
			ret = gaccel_dma_buf_vmap(obj->import_attach->dmabuf,
						  &map);
		else
			ret = gaccel_gem_vmap(obj, &map);
		if (!ret && map.is_iomem) {
			drm_dbg(obj->dev, "vmap: the exporter gives I/O memory, which the engine cannot use\n");
			gaccel_bo_vunmap(obj, &map);
			ret = -EINVAL;
		}
		if (!ret)
			bo->map = map;
		else
			drm_dbg(obj->dev, "vmap: object of %zu bytes: %d\n",
				obj->size, ret);
	}
	if (!ret)
		*vaddr = bo->map.vaddr;
	mutex_unlock(&bo->vmap_lock);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* DMA mappings for a DMA engine's device                                    */

static int gaccel_bo_dma_map_locked(struct gaccel_device *gdev,
				    struct gaccel_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	enum dma_data_direction dir = DMA_BIDIRECTIONAL;
	struct sg_table *sgt;
	int ret;

	if (obj->import_attach) {
		if (gaccel_dmabuf_is_readonly(obj->import_attach->dmabuf))
			dir = DMA_TO_DEVICE;
		sgt = gaccel_dma_buf_map_attachment(obj->import_attach, dir);
		if (IS_ERR(sgt)) {
			drm_dbg(obj->dev, "dma map: the exporter refused (%ld)\n",
				PTR_ERR(sgt));
			return PTR_ERR(sgt);
		}
	} else {
		/* Pages allocated now, charged to the submitter's memcg. */
		ret = drm_gem_shmem_pin(&bo->base);
		if (ret)
			return ret;
		sgt = drm_gem_shmem_get_sg_table(&bo->base);
		if (IS_ERR(sgt)) {
			drm_gem_shmem_unpin(&bo->base);
			return PTR_ERR(sgt);
		}
		ret = dma_map_sgtable(gdev->engine->dev, sgt, dir, 0);
		if (ret) {
			drm_dbg(obj->dev, "dma map: object of %zu bytes: %d\n",
				obj->size, ret);
			sg_free_table(sgt);
			kfree(sgt);
			drm_gem_shmem_unpin(&bo->base);
			return ret;
		}
	}
	bo->dma_sgt = sgt;
	bo->dma_dir = dir;
	list_add(&bo->dma_link, &gdev->dma_objs);
	return 0;
}

static void gaccel_bo_dma_unmap_locked(struct gaccel_device *gdev,
				       struct gaccel_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;

	if (!bo->dma_sgt)
		return;
	if (obj->import_attach) {
		gaccel_dma_buf_unmap_attachment(obj->import_attach,
						bo->dma_sgt, bo->dma_dir);
	} else {
		dma_unmap_sgtable(gdev->engine->dev, bo->dma_sgt, bo->dma_dir, 0);
		sg_free_table(bo->dma_sgt);
		kfree(bo->dma_sgt);
		drm_gem_shmem_unpin(&bo->base);
	}
	bo->dma_sgt = NULL;
	list_del(&bo->dma_link);
}

/**
 * gaccel_bo_dma_map - the whole object, DMA-mapped for the engine's device.
 * @obj: the object.
 * @sgt: where to put the mapping (owned by the object).
 * @dir: where to put its direction: %DMA_TO_DEVICE for a read-only import,
 *	%DMA_BIDIRECTIONAL otherwise.
 *
 * For engines that reach memory by DMA (%GACCEL_ENGINE_MEM_DMA). The
 * mapping is made when a job first binds the object and kept, the pages
 * pinned, until the object is freed or the engine unregistered
 * (gaccel_gem_dma_unmap_all()): a shmem object's pages (allocated now,
 * charged to the caller's memory cgroup) mapped with the DMA API, an
 * import through its attachment, once per object (the exporter maps it,
 * for this device).
 *
 * Returns 0, -ENODEV once the engine is gone, -ENOMEM, or the exporter's
 * or the DMA API's error.
 */
int gaccel_bo_dma_map(struct drm_gem_object *obj, struct sg_table **sgt,
		      enum dma_data_direction *dir)
{
	struct gaccel_device *gdev = to_gaccel_device(obj->dev);
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	int ret = 0;

	mutex_lock(&gdev->dma_lock);
	if (gdev->dma_gone)
		ret = -ENODEV;
	else if (!bo->dma_sgt)
		ret = gaccel_bo_dma_map_locked(gdev, bo);
	if (!ret) {
		*sgt = bo->dma_sgt;
		*dir = bo->dma_dir;
	}
	mutex_unlock(&gdev->dma_lock);
	return ret;
}

static void gaccel_bo_dma_unmap(struct drm_gem_object *obj)
{
	struct gaccel_device *gdev = to_gaccel_device(obj->dev);

	if (gdev->engine->mem != GACCEL_ENGINE_MEM_DMA)
		return;
	mutex_lock(&gdev->dma_lock);
	gaccel_bo_dma_unmap_locked(gdev, to_gaccel_bo(obj));
	mutex_unlock(&gdev->dma_lock);
}

/**
 * gaccel_gem_dma_unmap_all - undo every mapping for the engine's device.
 * @gdev: the device; its engine is unregistering and runs no job.
 *
 * Objects outlive the engine (files hold them), their mappings must not:
 * the device they were made for is being released from its driver.
 */
void gaccel_gem_dma_unmap_all(struct gaccel_device *gdev)
{
	struct gaccel_bo *bo, *next;

	if (gdev->engine->mem != GACCEL_ENGINE_MEM_DMA)
		return;
	mutex_lock(&gdev->dma_lock);
	gdev->dma_gone = true;
	list_for_each_entry_safe(bo, next, &gdev->dma_objs, dma_link)
		gaccel_bo_dma_unmap_locked(gdev, bo);
	mutex_unlock(&gdev->dma_lock);
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

	if (size >= GACCEL_VMEM_MIN &&
	    gdev->engine->mem == GACCEL_ENGINE_MEM_CPU) {
		obj = gaccel_vmem_create(drm, size);
		if (IS_ERR(obj))
			return PTR_ERR(obj);
	} else {
		shmem = drm_gem_shmem_create(drm, size);
		if (IS_ERR(shmem))
			return PTR_ERR(shmem);
		obj = &shmem->base;
	}
	to_gaccel_bo(obj)->flags = args->flags;

	if (!(args->flags & DRM_GACCEL_BO_NO_MMAP)) {
		ret = drm_gem_create_mmap_offset(obj);
		if (ret)
			goto out_put;
	}

	/*
	 * This publishes the object: after it, only the put below may touch
	 * it. The core copies the result out after we return; if that
	 * fails, the handle stays with the file (counted against its limits,
	 * freed by GEM_CLOSE or when the file is closed).
	 */
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
