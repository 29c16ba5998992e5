// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A dma-buf exporter for the driver tests only, never shipped: exporters
 * the test VM's kernel does not have. /dev/gaccel_test_exporter answers
 * GTE_IOCTL_EXPORT with a one-page dma-buf (read-only or not, with a kernel
 * mapping flagged as I/O memory or a size of half the page if asked), and
 * GTE_IOCTL_LAST_DIR
 * with the direction of the last map_dma_buf, so a test can check how an
 * importer maps it.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/iosys-map.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#define GTE_EXPORT_RDONLY	0x1
#define GTE_EXPORT_IOMEM	0x2
#define GTE_EXPORT_PARTIAL	0x4
#define GTE_IOCTL_EXPORT	_IOW('G', 0x70, unsigned int)
#define GTE_IOCTL_LAST_DIR	_IOR('G', 0x71, unsigned int)

struct gte_buf {
	struct page *page;
	bool iomem;
};

static atomic_t gte_last_dir = ATOMIC_INIT(DMA_NONE);

static struct sg_table *gte_map(struct dma_buf_attachment *attach,
				enum dma_data_direction dir)
{
	struct gte_buf *buf = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	atomic_set(&gte_last_dir, dir);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	sg_set_page(sgt->sgl, buf->page, PAGE_SIZE, 0);
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

static void gte_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
		      enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

static void gte_release(struct dma_buf *dmabuf)
{
	struct gte_buf *buf = dmabuf->priv;

	__free_page(buf->page);
	kfree(buf);
}

static int gte_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct gte_buf *buf = dmabuf->priv;

	/* Ordinary memory, but said to be I/O memory when asked. */
	if (buf->iomem)
		iosys_map_set_vaddr_iomem(map, (void __iomem __force *)page_address(buf->page));
	else
		iosys_map_set_vaddr(map, page_address(buf->page));
	return 0;
}

static const struct dma_buf_ops gte_ops = {
	.map_dma_buf = gte_map,
	.unmap_dma_buf = gte_unmap,
	.release = gte_release,
	.vmap = gte_vmap,
};

static long gte_export(unsigned int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct dma_buf *dmabuf;
	struct gte_buf *buf;
	int fd;

	if (flags & ~(GTE_EXPORT_RDONLY | GTE_EXPORT_IOMEM | GTE_EXPORT_PARTIAL))
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!buf->page) {
		kfree(buf);
		return -ENOMEM;
	}
	buf->iomem = flags & GTE_EXPORT_IOMEM;
	exp.ops = &gte_ops;
	exp.size = flags & GTE_EXPORT_PARTIAL ? PAGE_SIZE / 2 : PAGE_SIZE;
	exp.flags = flags & GTE_EXPORT_RDONLY ? O_RDONLY : O_RDWR;
	exp.priv = buf;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		__free_page(buf->page);
		kfree(buf);
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}

static long gte_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned int v;

	switch (cmd) {
	case GTE_IOCTL_EXPORT:
		if (get_user(v, (unsigned int __user *)arg))
			return -EFAULT;
		return gte_export(v);
	case GTE_IOCTL_LAST_DIR:
		/* Read and reset: DMA_NONE until the next mapping. */
		v = atomic_xchg(&gte_last_dir, DMA_NONE);
		return put_user(v, (unsigned int __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations gte_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = gte_ioctl,
};

static struct miscdevice gte_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "gaccel_test_exporter",
	.fops = &gte_fops,
};

module_misc_device(gte_misc);

MODULE_DESCRIPTION("dma-buf exporter for gaccel's driver tests");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
