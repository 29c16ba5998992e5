// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Buffer objects on huge kernel pages, for an engine that reads memory
 * through the CPU (the reference engine).
 *
 * Such an engine streams an object's bytes through one kernel mapping of
 * it. A shmem object can only be mapped with 4 KiB pages (vmap() maps
 * page by page), so reading weights for a matrix-vector product costs one
 * TLB miss per 4 KiB, while the CPU backend's buffers beside it sit on
 * transparent huge pages: in a virtual machine, where every miss walks two
 * sets of page tables, that made the engine up to a third slower at one
 * column than the same kernels reading 2 MiB pages. BO_CREATE objects of
 * GACCEL_VMEM_MIN and more are therefore backed by vmalloc_huge() memory,
 * mapped in the kernel with 2 MiB entries where the allocator finds 2 MiB
 * blocks (4 KiB ones otherwise).
 *
 * Like a shmem object's, the memory comes at first use, not at creation:
 * the first CPU mapping, job, export mapping or pin allocates all of it,
 * zeroed and charged to the memory cgroup of the task doing so, failing
 * with -ENOMEM rather than invoking the OOM killer (GACCEL_GFP_USER_SIZED).
 * It stays until the object is freed; it is never swapped (a shmem object
 * a job has used is pinned for its lifetime too). CPU mappings insert the
 * pages one by one at fault time, as the shmem helper does; exports see
 * them as a scatter list of the pages.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include "gaccel_compat_gem.h"
#include "gaccel_drv.h"
#include "gaccel_gem.h"
#include "gaccel_limits.h"

/* The memory of @bo, allocated on first use. */
static int gaccel_vmem_populate(struct gaccel_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	void *vmem;
	int ret = 0;

	/* pairs with the release below: the memory is zeroed before seen */
	if (smp_load_acquire(&bo->vmem))
		return 0;
	mutex_lock(&bo->vmem_lock);
	if (!bo->vmem) {
		vmem = vmalloc_huge(obj->size, GACCEL_GFP_USER_SIZED | __GFP_ZERO);
		if (vmem) {
			/* the fault handler and status read it unlocked */
			smp_store_release(&bo->vmem, vmem);
		} else {
			drm_dbg(obj->dev, "object of %zu bytes: no memory for its pages\n",
				obj->size);
			ret = -ENOMEM;
		}
	}
	mutex_unlock(&bo->vmem_lock);
	return ret;
}

static void gaccel_vmem_free(struct drm_gem_object *obj)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);

	vfree(bo->vmem);
	drm_gem_object_release(obj);
	mutex_destroy(&bo->vmem_lock);
	mutex_destroy(&bo->vmap_lock);
	kfree(bo);
}

static int gaccel_vmem_pin(struct drm_gem_object *obj)
{
	return gaccel_vmem_populate(to_gaccel_bo(obj));
}

static int gaccel_vmem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	int ret;

	ret = gaccel_vmem_populate(bo);
	if (ret)
		return ret;
	iosys_map_set_vaddr(map, bo->vmem);
	return 0;
}

static struct sg_table *gaccel_vmem_get_sg_table(struct drm_gem_object *obj)
{
	struct gaccel_bo *bo = to_gaccel_bo(obj);
	size_t i, n = obj->size >> PAGE_SHIFT;
	struct sg_table *sgt;
	struct page **pages;
	int ret;

	ret = gaccel_vmem_populate(bo);
	if (ret)
		return ERR_PTR(ret);
	pages = kvmalloc_array(n, sizeof(*pages), GACCEL_GFP_USER_SIZED);
	if (!pages)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++)
		pages[i] = vmalloc_to_page((u8 *)bo->vmem + (i << PAGE_SHIFT));
	sgt = drm_prime_pages_to_sg(obj->dev, pages, n);
	kvfree(pages);
	return sgt;
}

static vm_fault_t gaccel_vmem_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	/* pairs with the release in gaccel_vmem_populate() */
	void *vmem = smp_load_acquire(&to_gaccel_bo(obj)->vmem);
	unsigned long page;

	/*
	 * vm_pgoff holds the object's fake offset (and, for a dma-buf
	 * mapping, the offset into the buffer on top of it).
	 */
	page = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	if (!vmem || page >= obj->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vma, vmf->address,
			      vmalloc_to_pfn((u8 *)vmem + (page << PAGE_SHIFT)));
}

static const struct vm_operations_struct gaccel_vmem_vm_ops = {
	.fault = gaccel_vmem_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static int gaccel_vmem_mmap(struct drm_gem_object *obj,
			    struct vm_area_struct *vma)
{
	int ret;

	ret = gaccel_gem_mmap_check(obj, vma);
	if (ret)
		return ret;
	/* Like the shmem helper: all of the memory when first mapped. */
	ret = gaccel_vmem_populate(to_gaccel_bo(obj));
	if (ret)
		return ret;
	gaccel_vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	return 0;
}

#ifdef GACCEL_HAVE_DRM_GEM_STATUS
static enum drm_gem_object_status gaccel_vmem_status(struct drm_gem_object *obj)
{
	return gaccel_gem_resident(obj) ? DRM_GEM_OBJECT_RESIDENT : 0;
}
#endif

static const struct drm_gem_object_funcs gaccel_vmem_funcs = {
	.free = gaccel_vmem_free,
	.open = gaccel_gem_open,
	.close = gaccel_gem_close,
	.export = gaccel_gem_prime_export,
	.pin = gaccel_vmem_pin,
	.get_sg_table = gaccel_vmem_get_sg_table,
	.vmap = gaccel_vmem_vmap,
	.mmap = gaccel_vmem_mmap,
#ifdef GACCEL_HAVE_DRM_GEM_STATUS
	.status = gaccel_vmem_status,
#endif
	.vm_ops = &gaccel_vmem_vm_ops,
};

/**
 * gaccel_vmem_create - a BO_CREATE object on huge kernel pages.
 * @drm: the device.
 * @size: its size, whole pages.
 *
 * No memory but the object's own struct until first use.
 *
 * Returns the object with a reference, or an ERR_PTR.
 */
struct drm_gem_object *gaccel_vmem_create(struct drm_device *drm, size_t size)
{
	struct gaccel_bo *bo;
	struct drm_gem_object *obj;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	obj = &bo->base.base;
	obj->funcs = &gaccel_vmem_funcs;
	drm_gem_private_object_init(drm, obj, size);
	mutex_init(&bo->vmap_lock);
	mutex_init(&bo->vmem_lock);
	return obj;
}
