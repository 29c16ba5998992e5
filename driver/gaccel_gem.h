/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_GEM_H__
#define __GACCEL_GEM_H__

#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/sizes.h>
#include <linux/iosys-map.h>

#include <drm/drm_gem_shmem_helper.h>

struct dma_buf;
struct drm_device;
struct drm_file;
struct gaccel_device;

/**
 * struct gaccel_bo - a gaccel buffer object.
 * @base: the shmem object; must stay first, drm_gem_shmem_free() frees it.
 * @flags: DRM_GACCEL_BO_* flags given at creation.
 * @vmap_lock: serialises the creation of @map.
 * @map: kernel mapping used by the software engine, made on first use and
 *	kept until the object is freed.
 * @dma_sgt: the object's DMA mapping for a DMA engine's device, made when a
 *	job first binds it and kept until the object is freed or the engine
 *	unregistered (&gaccel_device.dma_lock protects it).
 * @dma_dir: the direction @dma_sgt was mapped with.
 * @dma_link: in &gaccel_device.dma_objs while @dma_sgt is set.
 * @import_node: in the device's imports, for a DMA engine's device.
 * @import_indexed: @import_node is in the tree.
 * @vmem_lock: serialises the allocation of @vmem.
 * @vmem: an object on huge kernel pages (gaccel_vmem.c): its memory, NULL
 *	until first used. Such an object's shmem part is unused.
 */
struct gaccel_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
	struct mutex vmap_lock; /* protects map */
	struct iosys_map map;
	struct sg_table *dma_sgt;
	enum dma_data_direction dma_dir;
	struct list_head dma_link;
	struct rb_node import_node;
	bool import_indexed;
	struct mutex vmem_lock; /* protects the allocation of vmem */
	void *vmem;
};

/*
 * BO_CREATE objects from this size on, for an engine that reads memory
 * through the CPU, are on huge kernel pages (gaccel_vmem.c).
 */
#define GACCEL_VMEM_MIN		SZ_2M

static inline struct gaccel_bo *to_gaccel_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct gaccel_bo, base);
}

struct drm_gem_object *gaccel_gem_create_object(struct drm_device *drm,
						size_t size);
struct drm_gem_object *gaccel_gem_prime_import(struct drm_device *drm,
					       struct dma_buf *dmabuf);
u32 gaccel_bo_flags(struct drm_gem_object *obj);
bool gaccel_gem_resident(struct drm_gem_object *obj);
int gaccel_bo_vmap(struct drm_gem_object *obj, void **vaddr);
int gaccel_bo_dma_map(struct drm_gem_object *obj, struct sg_table **sgt,
		      enum dma_data_direction *dir);
void gaccel_gem_dma_unmap_all(struct gaccel_device *gdev);

bool gaccel_userptr_is_userptr(struct drm_gem_object *obj);

/* Shared by both kinds of object (shmem and vmem). */
int gaccel_gem_open(struct drm_gem_object *obj, struct drm_file *file);
void gaccel_gem_close(struct drm_gem_object *obj, struct drm_file *file);
struct dma_buf *gaccel_gem_prime_export(struct drm_gem_object *obj, int flags);
int gaccel_gem_mmap_check(struct drm_gem_object *obj,
			  struct vm_area_struct *vma);

struct drm_gem_object *gaccel_vmem_create(struct drm_device *drm, size_t size);

int gaccel_ioctl_bo_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int gaccel_ioctl_bo_info(struct drm_device *drm, void *data,
			 struct drm_file *file);
int gaccel_ioctl_bo_create_userptr(struct drm_device *drm, void *data,
				   struct drm_file *file);

#endif /* __GACCEL_GEM_H__ */
