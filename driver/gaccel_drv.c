// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel: DRM accel driver with a pluggable engine.
 *
 * The module registers a platform device of its own, so that one
 * /dev/accel/accelN node appears on insmod even on machines without
 * accelerator hardware: the reference engine then runs jobs in software.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
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

#define GACCEL_NAME	"gaccel"

static int gaccel_open(struct drm_device *drm, struct drm_file *file)
{
	struct gaccel_file *gfile;

	gfile = kzalloc(sizeof(*gfile), GFP_KERNEL);
	if (!gfile)
		return -ENOMEM;

	gfile->gdev = to_gaccel_device(drm);
	file->driver_priv = gfile;
	return 0;
}

static void gaccel_postclose(struct drm_device *drm, struct drm_file *file)
{
	kfree(file->driver_priv);
	file->driver_priv = NULL;
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

	gdev->engine = gaccel_ref_engine_create(gdev);
	if (IS_ERR(gdev->engine))
		return PTR_ERR(gdev->engine);

	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		goto err_engine;

	platform_set_drvdata(pdev, gdev);
	drm_info(&gdev->drm, "engine %s, %u workers\n",
		 gdev->engine->caps.name, gdev->engine->caps.num_workers);
	return 0;

err_engine:
	gdev->engine->ops->fini(gdev->engine);
	return ret;
}

static void gaccel_remove(struct platform_device *pdev)
{
	struct gaccel_device *gdev = platform_get_drvdata(pdev);

	drm_dev_unplug(&gdev->drm);
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
