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
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_fence.h"
#include "gaccel_gem.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"
#include "gaccel_queue.h"
#include "gaccel_sched.h"
#include "gaccel_submit.h"

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

	if (gaccel_queue_file_init(gfile)) {
		gaccel_usage_put(gfile->usage);
		kfree(gfile);
		return -ENOMEM;
	}

	gfile->gdev = to_gaccel_device(drm);
	xa_init_flags(&gfile->graphs, XA_FLAGS_ALLOC1);
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

/*
 * Documentation/gpu/drm-usage-stats.rst: the core prints drm-driver and
 * drm-client-id. The engine is one engine class, "compute", with one unit
 * per worker; busy time is summed per file as its jobs finish.
 */
static void gaccel_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct gaccel_device *gdev = to_gaccel_device(file->minor->dev);
	struct gaccel_file *gfile = file->driver_priv;

	drm_printf(p, "drm-engine-compute:\t%llu ns\n",
		   (unsigned long long)atomic64_read(&gfile->usage->engine_ns));
	if (gdev->engine->caps.num_workers > 1)
		drm_printf(p, "drm-engine-capacity-compute:\t%u\n",
			   gdev->engine->caps.num_workers);
	drm_show_memory_stats(p, file);
}

/*
 * The node: an accel node (/dev/accel/accelN) where the kernel has
 * CONFIG_DRM_ACCEL, else a render node (/dev/dri/renderDN) with the same
 * uAPI, which libggml-backend finds too. Debian's arm64 kernels are built
 * without DRM_ACCEL, as are all kernels before 6.2. A render node's ioctls
 * must be allowed there explicitly; the primary node the DRM core adds
 * beside it (/dev/dri/cardN) answers them as well.
 */
#if IS_ENABLED(CONFIG_DRM_ACCEL)
#define GACCEL_NODE_FEATURE	DRIVER_COMPUTE_ACCEL
#define GACCEL_IOCTL_FLAGS	0
#else
#define GACCEL_NODE_FEATURE	DRIVER_RENDER
#define GACCEL_IOCTL_FLAGS	DRM_RENDER_ALLOW
#endif

static const struct drm_ioctl_desc gaccel_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GACCEL_QUERY, gaccel_ioctl_query,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE, gaccel_ioctl_bo_create,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_INFO, gaccel_ioctl_bo_info,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE_USERPTR, gaccel_ioctl_bo_create_userptr,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_CREATE, gaccel_ioctl_graph_create,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_DESTROY, gaccel_ioctl_graph_destroy,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_CREATE, gaccel_ioctl_queue_create,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_DESTROY, gaccel_ioctl_queue_destroy,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_GET_STATE, gaccel_ioctl_queue_get_state,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_SUBMIT, gaccel_ioctl_submit,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_WAIT, gaccel_ioctl_bo_wait,
			  GACCEL_IOCTL_FLAGS),
};

/* The node's DEFINE_DRM_*_FOPS() plus fdinfo, for the memory statistics. */
static const struct file_operations gaccel_fops = {
	.owner = THIS_MODULE,
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	DRM_ACCEL_FOPS,
#else
	DRM_GEM_FOPS,
#endif
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver gaccel_drm_driver = {
	.driver_features = GACCEL_NODE_FEATURE | DRIVER_GEM |
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

/* drmm action: the device is released, the schedulers are finished. */
static void gaccel_engine_release(struct drm_device *drm, void *arg)
{
	struct gaccel_device *gdev = to_gaccel_device(drm);

	gdev->engine->ops->fini(gdev->engine);
}

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
	/* Nor has it a limit on the length of a segment. */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	gdev = devm_drm_dev_alloc(&pdev->dev, &gaccel_drm_driver,
				  struct gaccel_device, drm);
	if (IS_ERR(gdev))
		return PTR_ERR(gdev);

	gdev->engine = gaccel_ref_engine_create(gdev);
	if (IS_ERR(gdev->engine))
		return PTR_ERR(gdev->engine);
	/* Released after the schedulers (drmm actions run in reverse). */
	ret = drmm_add_action_or_reset(&gdev->drm, gaccel_engine_release, NULL);
	if (ret)
		return ret;
	ret = gaccel_sched_init(gdev);
	if (ret)
		return ret;

	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		return ret;

	gaccel_debugfs_init(gdev);
	platform_set_drvdata(pdev, gdev);
	drm_info(&gdev->drm, "engine %s, %u workers\n",
		 gdev->engine->caps.name, gdev->engine->caps.num_workers);
	return 0;
}

/*
 * Unbind does not wait for user work: jobs not yet started are skipped,
 * running ones cancelled, and the device is released (engine and
 * schedulers finished) by whoever drops its last reference: a file, a
 * queue draining its last jobs (on the queue module's workqueue, which
 * module exit flushes), or devres right here.
 */
static void gaccel_remove(struct platform_device *pdev)
{
	struct gaccel_device *gdev = platform_get_drvdata(pdev);

	drm_dev_unplug(&gdev->drm);
	gaccel_sched_unplug(gdev);
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

	ret = gaccel_job_module_init();
	if (ret)
		return ret;
	ret = gaccel_queue_module_init();
	if (ret)
		goto err_job;
	ret = platform_driver_register(&gaccel_platform_driver);
	if (ret)
		goto err_queue;

	gaccel_pdev = platform_device_register_simple(GACCEL_NAME, -1, NULL, 0);
	if (IS_ERR(gaccel_pdev)) {
		ret = PTR_ERR(gaccel_pdev);
		goto err_driver;
	}

	if (!platform_get_drvdata(gaccel_pdev)) {
		/* The probe failed; its error is in the log. */
		platform_device_unregister(gaccel_pdev);
		ret = -ENODEV;
		goto err_driver;
	}
	return 0;

err_driver:
	platform_driver_unregister(&gaccel_platform_driver);
err_queue:
	gaccel_queue_module_exit();
err_job:
	gaccel_job_module_exit();
	gaccel_fence_module_exit();
	return ret;
}

/*
 * Runs only once no file, exported object or job fence is left (each holds
 * a module reference): what remains are queues being freed, and the device
 * with them.
 */
static void __exit gaccel_exit(void)
{
	platform_device_unregister(gaccel_pdev);
	platform_driver_unregister(&gaccel_platform_driver);
	gaccel_job_module_exit();
	gaccel_queue_module_exit();
	gaccel_fence_module_exit();
}

module_init(gaccel_init);
module_exit(gaccel_exit);

MODULE_DESCRIPTION("gaccel DRM accel driver");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_VERSION(GACCEL_VERSION);
GACCEL_MODULE_IMPORT_NS_DMA_BUF;
