/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * gaccel engine interface: what the rest of the driver needs from whatever
 * executes jobs. A vendor port implements a struct gaccel_engine_ops for its
 * silicon; the reference software engine (gaccel_ref.c) is the model.
 * See Documentation/engine-porting.rst.
 */
#ifndef __GACCEL_ENGINE_H__
#define __GACCEL_ENGINE_H__

#include <linux/types.h>

struct gaccel_device;
struct gaccel_engine;

/**
 * struct gaccel_engine_caps - static capabilities, reported through QUERY.
 * @name: engine name, at most 31 characters.
 * @kind: &enum drm_gaccel_engine_kind.
 * @mem_kind: &enum drm_gaccel_mem_kind.
 * @mem_size: bytes of memory the engine can address.
 * @max_bo_size: largest buffer object, in bytes.
 * @max_rank: highest tensor rank of a graph.
 * @max_graph_nodes: most nodes of a graph.
 * @max_graph_tensors: most tensor descriptors of a graph.
 * @max_bindings: most binding slots of a graph.
 * @num_workers: execution units of the engine.
 */
struct gaccel_engine_caps {
	const char *name;
	u32 kind;
	u32 mem_kind;
	u64 mem_size;
	u64 max_bo_size;
	u32 max_rank;
	u32 max_graph_nodes;
	u32 max_graph_tensors;
	u32 max_bindings;
	u32 num_workers;
};

/**
 * struct gaccel_engine_ops - operations an engine provides.
 * @fini: release everything the engine's create function acquired.
 */
struct gaccel_engine_ops {
	void (*fini)(struct gaccel_engine *engine);
};

/**
 * struct gaccel_engine - an engine instance, owned by one gaccel_device.
 * @ops: the engine's operations.
 * @caps: its capabilities, filled in by the create function.
 * @gdev: the device it belongs to.
 */
struct gaccel_engine {
	const struct gaccel_engine_ops *ops;
	struct gaccel_engine_caps caps;
	struct gaccel_device *gdev;
};

struct gaccel_engine *gaccel_ref_engine_create(struct gaccel_device *gdev);

#endif /* __GACCEL_ENGINE_H__ */
