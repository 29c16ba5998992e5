// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel: DRM accel driver with a pluggable engine.
 *
 * The module registers a platform device of its own, so that one
 * /dev/accel/accelN node appears on insmod even on machines without
 * accelerator hardware: the reference engine then runs jobs in software.
 */

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_gem.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"

#define GACCEL_NAME	"gaccel"

static int gaccel_open(struct drm_device *drm, struct drm_file *file)
{
	struct gaccel_file *gfile;

	gfile = kzalloc(sizeof(*gfile), GFP_KERNEL_ACCOUNT);
	if (!gfile)
		return -ENOMEM;
	/*
	 * Charged to the opener's users as well. The core calls .open from
	 * the open() of the node, before file->filp is set: the opener is
	 * current, whose credentials become the file's f_cred.
	 */
	gfile->usage = gaccel_usage_create(current_cred());
	if (!gfile->usage) {
		kfree(gfile);
		return -ENOMEM;
	}

	gfile->gdev = to_gaccel_device(drm);
	xa_init_flags(&gfile->graphs, XA_FLAGS_ALLOC1);
	xa_init_flags(&gfile->queues, XA_FLAGS_ALLOC1);
	file->driver_priv = gfile;
	return 0;
}

static void gaccel_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;

	/* Jobs in flight keep their queue, graph and objects. */
	gaccel_queue_file_fini(gfile);
	gaccel_graph_file_fini(gfile);
	gaccel_usage_put(gfile->usage);
	kfree(gfile);
	file->driver_priv = NULL;
}

static int gaccel_engine_stats_show(struct seq_file *m, void *unused)
{
	struct gaccel_device *gdev = m->private;
	struct gaccel_engine_stats st = { };

	gdev->engine->ops->stats(gdev->engine, &st);
	seq_printf(m, "engine %s\nworkers %u\njobs %llu\nfailed %llu\ncancelled %llu\nbusy_ns %llu\nbytes %llu\nresets %llu\n",
		   gdev->engine->caps.name, gdev->engine->caps.num_workers,
		   st.jobs, st.failed, st.cancelled, st.busy_ns, st.bytes,
		   st.resets);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaccel_engine_stats);

/* Accel devices get no drm_driver.debugfs_init call: add files directly. */
static void gaccel_debugfs_init(struct gaccel_device *gdev)
{
	debugfs_create_file("engine_stats", 0400, gdev->drm.debugfs_root, gdev,
			    &gaccel_engine_stats_fops);
	if (gdev->engine->ops->debugfs_init)
		gdev->engine->ops->debugfs_init(gdev->engine,
						gdev->drm.debugfs_root);
}

static void gaccel_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	drm_show_memory_stats(p, file);
}

static const struct drm_ioctl_desc gaccel_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GACCEL_QUERY, gaccel_ioctl_query, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE, gaccel_ioctl_bo_create, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_INFO, gaccel_ioctl_bo_info, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE_USERPTR,
			  gaccel_ioctl_bo_create_userptr, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_CREATE, gaccel_ioctl_graph_create, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_DESTROY, gaccel_ioctl_graph_destroy, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_CREATE, gaccel_ioctl_queue_create, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_DESTROY, gaccel_ioctl_queue_destroy, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_GET_STATE, gaccel_ioctl_queue_get_state, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_SUBMIT, gaccel_ioctl_submit, 0),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_WAIT, gaccel_ioctl_bo_wait, 0),
};

/* DEFINE_DRM_ACCEL_FOPS() plus fdinfo, for the memory statistics. */
static const struct file_operations gaccel_fops = {
	.owner = THIS_MODULE,
	DRM_ACCEL_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver gaccel_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL | DRIVER_GEM |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = gaccel_open,
	.postclose = gaccel_postclose,
	.show_fdinfo = gaccel_show_fdinfo,
	.gem_create_object = gaccel_gem_create_object,
	.gem_prime_import = gaccel_gem_prime_import,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.ioctls = gaccel_ioctls,
	.num_ioctls = ARRAY_SIZE(gaccel_ioctls),
	.fops = &gaccel_fops,
	.name = GACCEL_NAME,
	.desc = "gaccel accelerator",
#ifdef GACCEL_HAVE_DRM_DRIVER_DATE
	.date = "20261122",
#endif
	.major = DRM_GACCEL_UAPI_VERSION_MAJOR,
	.minor = DRM_GACCEL_UAPI_VERSION_MINOR,
};

static int gaccel_probe(struct platform_device *pdev)
{
	struct gaccel_device *gdev;
	int ret;

	/*
	 * The software engine reaches memory through the CPU, but dma-buf
	 * exporters map their buffers for the importing device: give it a
	 * mask that accepts any address.
	 */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	gdev = devm_drm_dev_alloc(&pdev->dev, &gaccel_drm_driver,
				  struct gaccel_device, drm);
	if (IS_ERR(gdev))
		return PTR_ERR(gdev);

	atomic_set(&gdev->num_queues, 0);
	init_waitqueue_head(&gdev->queues_idle);
	gdev->free_wq = alloc_workqueue("gaccel-free", WQ_UNBOUND, 0);
	if (!gdev->free_wq)
		return -ENOMEM;

	gdev->engine = gaccel_ref_engine_create(gdev);
	if (IS_ERR(gdev->engine)) {
		ret = PTR_ERR(gdev->engine);
		goto err_wq;
	}

	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		goto err_engine;

	gaccel_debugfs_init(gdev);
	platform_set_drvdata(pdev, gdev);
	drm_info(&gdev->drm, "engine %s, %u workers\n",
		 gdev->engine->caps.name, gdev->engine->caps.num_workers);
	return 0;

err_engine:
	gdev->engine->ops->fini(gdev->engine);
err_wq:
	destroy_workqueue(gdev->free_wq);
	return ret;
}

static void gaccel_remove(struct platform_device *pdev)
{
	struct gaccel_device *gdev = platform_get_drvdata(pdev);

	drm_dev_unplug(&gdev->drm);
	/* Every file is closed; wait for their last jobs and queues. */
	wait_event(gdev->queues_idle, !atomic_read(&gdev->num_queues));
	destroy_workqueue(gdev->free_wq);
	gdev->engine->ops->fini(gdev->engine);
}

#ifdef GACCEL_HAVE_PLATFORM_REMOVE_VOID
#define GACCEL_REMOVE	gaccel_remove
#else
static int gaccel_remove_int(struct platform_device *pdev)
{
	gaccel_remove(pdev);
	return 0;
}

#define GACCEL_REMOVE	gaccel_remove_int
#endif

static struct platform_driver gaccel_platform_driver = {
	.probe = gaccel_probe,
	.remove = GACCEL_REMOVE,
	.driver = {
		.name = GACCEL_NAME,
	},
};

static struct platform_device *gaccel_pdev;

static int __init gaccel_init(void)
{
	int ret;

	ret = platform_driver_register(&gaccel_platform_driver);
	if (ret)
		return ret;

	gaccel_pdev = platform_device_register_simple(GACCEL_NAME, -1, NULL, 0);
	if (IS_ERR(gaccel_pdev)) {
		platform_driver_unregister(&gaccel_platform_driver);
		return PTR_ERR(gaccel_pdev);
	}

	if (!platform_get_drvdata(gaccel_pdev)) {
		/* The probe failed; its error is in the log. */
		platform_device_unregister(gaccel_pdev);
		platform_driver_unregister(&gaccel_platform_driver);
		return -ENODEV;
	}
	return 0;
}

static void __exit gaccel_exit(void)
{
	platform_device_unregister(gaccel_pdev);
	platform_driver_unregister(&gaccel_platform_driver);
}

module_init(gaccel_init);
module_exit(gaccel_exit);

MODULE_DESCRIPTION("gaccel DRM accel driver");
MODULE_LICENSE("Dual MIT/GPL");
GACCEL_MODULE_IMPORT_NS_DMA_BUF;
