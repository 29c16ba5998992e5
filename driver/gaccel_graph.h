/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef __GACCEL_GRAPH_H__
#define __GACCEL_GRAPH_H__

#include <linux/kref.h>
#include <linux/types.h>

#include <drm/gaccel_accel.h>

struct drm_device;
struct drm_file;
struct gaccel_file;

/**
 * struct gaccel_dtype - size of a dtype.
 * @block_size: elements per block.
 * @type_size: bytes per block.
 * @alignment: byte alignment of offsets and strides.
 */
struct gaccel_dtype {
	u32 block_size;
	u32 type_size;
	u32 alignment;
};

const struct gaccel_dtype *gaccel_dtype_get(u32 dtype);

/**
 * struct gaccel_graph - a validated, immutable program.
 * @ref: held by the handle and by every job using it.
 * @num_slots: binding slots.
 * @num_tensors: tensor descriptors.
 * @num_nodes: nodes, run in order.
 * @slot_size: declared size of each slot.
 * @slot_written: per slot, whether some node writes it.
 * @tensors: the descriptors.
 * @nodes: the nodes.
 * @scratch_size: bytes of scratch memory a job of the graph needs.
 * @usage: the creating file's usage, charged @charged graph bytes and one
 *	graph until the last reference goes (jobs may outlive the handle).
 * @charged: the graph bytes charged.
 */
struct gaccel_graph {
	struct kref ref;
	u32 num_slots;
	u32 num_tensors;
	u32 num_nodes;
	u64 *slot_size;
	bool *slot_written;
	struct drm_gaccel_tensor *tensors;
	struct drm_gaccel_node *nodes;
	u64 scratch_size;
	struct gaccel_usage *usage;
	u64 charged;
};

static inline const struct drm_gaccel_tensor *
gaccel_graph_src(const struct gaccel_graph *graph,
		 const struct drm_gaccel_node *node, unsigned int i)
{
	u32 t = node->src[i];

	return t == DRM_GACCEL_NO_TENSOR ? NULL : &graph->tensors[t];
}

void gaccel_graph_put(struct gaccel_graph *graph);
struct gaccel_graph *gaccel_graph_lookup(struct gaccel_file *gfile, u32 handle);
void gaccel_graph_file_fini(struct gaccel_file *gfile);

int gaccel_copy_array(struct drm_device *drm, const char *what,
		      const struct drm_gaccel_array *arr, u32 max_count,
		      size_t min_size, size_t elem_size, void **out);

#endif /* __GACCEL_GRAPH_H__ */
