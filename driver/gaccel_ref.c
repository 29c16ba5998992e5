// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Reference software engine: executes jobs on kernel worker threads in host
 * memory, so the driver works and is tested without accelerator hardware.
 */

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"

static unsigned int ref_workers;
module_param_named(workers, ref_workers, uint, 0444);
MODULE_PARM_DESC(workers,
		 "Worker threads of the reference engine (0 = one per online CPU)");

static void gaccel_ref_fini(struct gaccel_engine *engine)
{
	kfree(engine);
}

static const struct gaccel_engine_ops gaccel_ref_ops = {
	.fini = gaccel_ref_fini,
};

struct gaccel_engine *gaccel_ref_engine_create(struct gaccel_device *gdev)
{
	struct gaccel_engine *engine;

	engine = kzalloc(sizeof(*engine), GFP_KERNEL);
	if (!engine)
		return ERR_PTR(-ENOMEM);

	engine->ops = &gaccel_ref_ops;
	engine->gdev = gdev;
	engine->caps = (struct gaccel_engine_caps) {
		.name = "gaccel-ref",
		.kind = DRM_GACCEL_ENGINE_SOFTWARE,
		.mem_kind = DRM_GACCEL_MEM_HOST,
		.mem_size = (u64)totalram_pages() << PAGE_SHIFT,
		.max_bo_size = (u64)totalram_pages() << PAGE_SHIFT,
		.max_rank = 4,
		.max_graph_nodes = 65536,
		.max_graph_tensors = 131072,
		.max_bindings = 4096,
		.num_workers = ref_workers ? ref_workers : num_online_cpus(),
	};
	return engine;
}
