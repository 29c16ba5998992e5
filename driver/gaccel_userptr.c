// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * BO_CREATE_USERPTR: user pages pinned long term and wrapped in a private
 * dma-buf, which is then imported through the ordinary PRIME path. The
 * buffer object therefore lives exactly like any imported dma-buf, and the
 * pages are unpinned when the last user of the dma-buf goes away.
 *
 * A read-only userptr (pinned without FOLL_WRITE: possibly page cache of a
 * file the caller may not write) stays read-only for every importer, since
 * re-exporting the object hands out this very dma-buf: its file is opened
 * O_RDONLY (gaccel marks such imports read-only), devices may only map it
 * %DMA_TO_DEVICE, CPU write access is refused and the kernel mapping is
 * read-only. The pinned pages are charged to the pinning process's
 * mm->pinned_vm (RLIMIT_MEMLOCK) until the dma-buf is released, by
 * whichever process drops the last reference.
 */

#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"

/**
 * struct gaccel_userptr - the exporter side of a userptr buffer.
 * @pages: the pinned pages.
 * @npages: how many.
 * @mm: the mm whose pinned_vm was charged (NULL until it is).
 * @readonly: pinned without FOLL_WRITE.
 */
struct gaccel_userptr {
	struct page **pages;
	unsigned long npages;
	struct mm_struct *mm;
	bool readonly;
};

static struct sg_table *gaccel_userptr_map(struct dma_buf_attachment *attach,
					   enum dma_data_direction dir)
{
	struct gaccel_userptr *up = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	if (up->readonly && dir != DMA_TO_DEVICE) {
		dev_dbg(attach->dev, "gaccel: read-only userptr: refusing a mapping the device may write (%d)\n",
			dir);
		return ERR_PTR(-EACCES);
	}

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL_ACCOUNT);
	if (!sgt)
		return ERR_PTR(-ENOMEM);

	/*
	 * npages <= INT_MAX: checked at creation. Segments no longer than
	 * the importing device takes in one piece.
	 */
	ret = sg_alloc_table_from_pages_segment(sgt, up->pages, up->npages, 0,
						up->npages << PAGE_SHIFT,
						dma_get_max_seg_size(attach->dev) &
						PAGE_MASK,
						GACCEL_GFP_USER_SIZED);
	if (ret)
		goto err_free;

	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_table;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void gaccel_userptr_unmap(struct dma_buf_attachment *attach,
				 struct sg_table *sgt,
				 enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

/* CPU writes through a kernel importer's vmap: refused for read-only. */
static int gaccel_userptr_begin_cpu_access(struct dma_buf *dmabuf,
					   enum dma_data_direction dir)
{
	struct gaccel_userptr *up = dmabuf->priv;

	if (up->readonly && dir != DMA_FROM_DEVICE)
		return -EACCES;
	return 0;
}

static void gaccel_userptr_unaccount(struct gaccel_userptr *up)
{
	if (up->mm) {
		atomic64_sub(up->npages, &up->mm->pinned_vm);
		mmdrop(up->mm);
		up->mm = NULL;
	}
}

static void gaccel_userptr_release(struct dma_buf *dmabuf)
{
	struct gaccel_userptr *up = dmabuf->priv;

	unpin_user_pages_dirty_lock(up->pages, up->npages, !up->readonly);
	gaccel_userptr_unaccount(up);
	kvfree(up->pages);
	kfree(up);
}

static int gaccel_userptr_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct gaccel_userptr *up = dmabuf->priv;
	void *vaddr;

	/* Pages pinned read-only are mapped read-only for the kernel too. */
	vaddr = vmap(up->pages, up->npages, VM_MAP,
		     up->readonly ? PAGE_KERNEL_RO : PAGE_KERNEL);
	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void gaccel_userptr_vunmap(struct dma_buf *dmabuf,
				  struct iosys_map *map)
{
	vunmap(map->vaddr);
}

static const struct dma_buf_ops gaccel_userptr_ops = {
	.map_dma_buf = gaccel_userptr_map,
	.unmap_dma_buf = gaccel_userptr_unmap,
	.release = gaccel_userptr_release,
	.begin_cpu_access = gaccel_userptr_begin_cpu_access,
	.vmap = gaccel_userptr_vmap,
	.vunmap = gaccel_userptr_vunmap,
};

bool gaccel_userptr_is_userptr(struct drm_gem_object *obj)
{
	return obj->import_attach &&
	       obj->import_attach->dmabuf->ops == &gaccel_userptr_ops;
}

/*
 * Charge the pages to the caller's mm->pinned_vm (VmPin in
 * /proc/<pid>/status), within RLIMIT_MEMLOCK unless the caller has
 * CAP_IPC_LOCK, as RDMA and vfio do. The mm is kept (not its address
 * space) so that the release, whoever does it and whenever, gives the pages
 * back to the same mm, exactly once.
 */
static int gaccel_userptr_account(struct gaccel_userptr *up)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit;
	s64 pinned;

	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	pinned = atomic64_add_return(up->npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(up->npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	up->mm = mm;
	mmgrab(mm);
	return 0;
}

static int gaccel_userptr_pin(struct gaccel_userptr *up, unsigned long start)
{
	unsigned int gup = FOLL_LONGTERM | (up->readonly ? 0 : FOLL_WRITE);
	unsigned long done = 0;
	int ret;

	while (done < up->npages) {
		unsigned long todo = min_t(unsigned long, up->npages - done,
					   SZ_64K);

		ret = pin_user_pages_fast(start + (done << PAGE_SHIFT), todo,
					  gup, up->pages + done);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			goto err_unpin;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
	}
	return 0;

err_unpin:
	unpin_user_pages(up->pages, done);
	return ret;
}

int gaccel_ioctl_bo_create_userptr(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct gaccel_device *gdev = to_gaccel_device(drm);
	struct drm_gaccel_bo_create_userptr *args = data;
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct gaccel_userptr *up;
	struct drm_gem_object *obj;
	struct dma_buf *dmabuf;
	u64 end;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_GACCEL_BO_READ_ONLY) {
		drm_dbg(drm, "BO_CREATE_USERPTR: unknown flags %#x\n",
			args->flags);
		return -EINVAL;
	}
	if (!args->pointer || !PAGE_ALIGNED(args->pointer) ||
	    !args->size || !PAGE_ALIGNED(args->size)) {
		drm_dbg(drm, "BO_CREATE_USERPTR: range %#llx+%#llx is not page aligned\n",
			args->pointer, args->size);
		return -EINVAL;
	}
	if (check_add_overflow(args->pointer, args->size, &end) ||
	    args->size > gdev->engine->caps.max_bo_size) {
		drm_dbg(drm, "BO_CREATE_USERPTR: range %#llx+%#llx too large\n",
			args->pointer, args->size);
		return -EINVAL;
	}
	/* Page counts reach APIs taking an int or unsigned int (vmap, sg). */
	if ((args->size >> PAGE_SHIFT) > INT_MAX) {
		drm_dbg(drm, "BO_CREATE_USERPTR: %llu pages, at most %d\n",
			args->size >> PAGE_SHIFT, INT_MAX);
		return -EINVAL;
	}
	if (!access_ok(u64_to_user_ptr(args->pointer), args->size))
		return -EFAULT;

	up = kzalloc(sizeof(*up), GFP_KERNEL_ACCOUNT);
	if (!up)
		return -ENOMEM;
	up->npages = args->size >> PAGE_SHIFT;
	up->readonly = args->flags & DRM_GACCEL_BO_READ_ONLY;
	up->pages = kvmalloc_array(up->npages, sizeof(*up->pages),
				   GACCEL_GFP_USER_SIZED);
	if (!up->pages) {
		ret = -ENOMEM;
		goto err_free;
	}

	ret = gaccel_userptr_account(up);
	if (ret) {
		drm_dbg(drm, "BO_CREATE_USERPTR: RLIMIT_MEMLOCK exceeded\n");
		goto err_free;
	}

	ret = gaccel_userptr_pin(up, args->pointer);
	if (ret) {
		drm_dbg(drm, "BO_CREATE_USERPTR: pinning failed: %d\n", ret);
		goto err_unaccount;
	}

	exp.ops = &gaccel_userptr_ops;
	exp.size = args->size;
	exp.flags = up->readonly ? O_RDONLY : O_RDWR;
	exp.priv = up;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto err_unpin;
	}
	/* From here on, the dma-buf's release undoes everything above. */

	obj = gaccel_gem_prime_import(drm, dmabuf);
	dma_buf_put(dmabuf);
	if (IS_ERR(obj))
		return PTR_ERR(obj);

	/* Publishes the object: only the put may follow. */
	ret = drm_gem_handle_create(file, obj, &handle);
	drm_gem_object_put(obj);
	if (ret)
		return ret;
	args->handle = handle;
	return 0;

err_unpin:
	unpin_user_pages(up->pages, up->npages);
err_unaccount:
	gaccel_userptr_unaccount(up);
err_free:
	kvfree(up->pages);
	kfree(up);
	return ret;
}
