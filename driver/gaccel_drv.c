// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel: DRM accel driver with pluggable engines.
 *
 * The DRM driver every engine's device shares (file open and close, the
 * ioctl table, fdinfo, debugfs) and the module's init and exit. Engines
 * register through gaccel_engine.c; the reference engine, built in, does so
 * for a platform device the module creates (gaccel_ref.c), so that one
 * /dev/accel/accelN node appears on insmod even on machines without
 * accelerator hardware.
 */

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#if IS_ENABLED(CONFIG_DRM_ACCEL)
#include <drm/drm_accel.h>
#endif
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_fence.h"
#include "gaccel_gem.h"
#include "gaccel_graph.h"
#include "gaccel_job.h"
#include "gaccel_query.h"
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
#ifndef GACCEL_HAVE_DRM_SHOW_FDINFO
	gfile->client_id = gaccel_fdinfo_client_id();
#endif
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

/*
 * Accel devices get no drm_driver.debugfs_init call: add files directly,
 * to the device's directory, or before 6.4 (no such directory) to that of
 * its primary minor, which a render-node device has too.
 */
void gaccel_debugfs_init(struct gaccel_device *gdev)
{
#ifdef GACCEL_HAVE_DRM_DEVICE_DEBUGFS_ROOT
	struct dentry *root = gdev->drm.debugfs_root;
#else
	struct dentry *root = gdev->drm.primary->debugfs_root;
#endif

	debugfs_create_file("engine_stats", 0400, root, gdev,
			    &gaccel_engine_stats_fops);
	if (gdev->engine->ops->debugfs_init)
		gdev->engine->ops->debugfs_init(gdev->engine, root);
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

/*
 * The ioctls that call into the engine (graph validation asks its
 * node_check and node_scratch; SUBMIT maps objects for its device and may
 * run a short job itself) run inside drm_dev_enter(): unregistering the
 * engine waits for them, and afterwards they fail with -ENODEV.
 */
static int gaccel_ioctl_graph_create_entered(struct drm_device *drm,
					     void *data, struct drm_file *file)
{
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = gaccel_ioctl_graph_create(drm, data, file);
	drm_dev_exit(idx);
	return ret;
}

static int gaccel_ioctl_submit_entered(struct drm_device *drm, void *data,
				       struct drm_file *file)
{
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = gaccel_ioctl_submit(drm, data, file);
	drm_dev_exit(idx);
	return ret;
}

static const struct drm_ioctl_desc gaccel_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GACCEL_QUERY, gaccel_ioctl_query,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE, gaccel_ioctl_bo_create,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_INFO, gaccel_ioctl_bo_info,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_CREATE_USERPTR, gaccel_ioctl_bo_create_userptr,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_CREATE, gaccel_ioctl_graph_create_entered,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_GRAPH_DESTROY, gaccel_ioctl_graph_destroy,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_CREATE, gaccel_ioctl_queue_create,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_DESTROY, gaccel_ioctl_queue_destroy,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_QUEUE_GET_STATE, gaccel_ioctl_queue_get_state,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_SUBMIT, gaccel_ioctl_submit_entered,
			  GACCEL_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(GACCEL_BO_WAIT, gaccel_ioctl_bo_wait,
			  GACCEL_IOCTL_FLAGS),
};

/*
 * The node's DEFINE_DRM_*_FOPS() plus fdinfo, for the memory statistics:
 * the core's, or gaccel_fdinfo.c's where the core has none.
 */
static const struct file_operations gaccel_fops = {
	.owner = THIS_MODULE,
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	DRM_ACCEL_FOPS,
#else
	DRM_GEM_FOPS,
#endif
#ifdef GACCEL_HAVE_DRM_SHOW_FDINFO
	.show_fdinfo = drm_show_fdinfo,
#else
	.show_fdinfo = gaccel_fdinfo_fops_show,
#endif
};

const struct drm_driver gaccel_drm_driver = {
	.driver_features = GACCEL_NODE_FEATURE | DRIVER_GEM |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = gaccel_open,
	.postclose = gaccel_postclose,
#ifdef GACCEL_HAVE_DRM_SHOW_FDINFO
	.show_fdinfo = gaccel_fdinfo_show,
#endif
	.gem_create_object = gaccel_gem_create_object,
#ifdef GACCEL_HAVE_DRM_DRIVER_PRIME_FD
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
#endif
#ifdef GACCEL_HAVE_DRM_DRIVER_GEM_PRIME_MMAP
	.gem_prime_mmap = drm_gem_prime_mmap,
#endif
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

static int __init gaccel_init(void)
{
	int ret;

	ret = gaccel_job_module_init();
	if (ret)
		return ret;
	ret = gaccel_queue_module_init();
	if (ret)
		goto err_job;
	ret = gaccel_ref_module_init();
	if (ret)
		goto err_queue;
	return 0;

err_queue:
	gaccel_queue_module_exit();
err_job:
	gaccel_job_module_exit();
	gaccel_fence_module_exit();
	return ret;
}

/*
 * Runs only once no file, exported object or job fence is left (each holds
 * a module reference) and no engine module is loaded (each uses its
 * symbols): what remains are queues being freed, and devices with them.
 */
static void __exit gaccel_exit(void)
{
	gaccel_ref_module_exit();
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
