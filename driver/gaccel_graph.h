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
 * @slot_align: per slot, the byte alignment its tensors' offsets and
 *	strides were checked against (the largest dtype alignment among
 *	them, at least 1): a binding must place the slot at an address that
 *	is a multiple of it, see gaccel_graph_slot_align().
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
	u32 *slot_align;
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

/**
 * gaccel_graph_slot_align() - alignment a binding of @slot must have.
 * @graph: a validated graph.
 * @slot: slot index, below @graph->num_slots.
 *
 * Validation checked each tensor's offset and strides against its dtype's
 * alignment relative to the start of its slot; the engine reads elements
 * in place, so the slot itself must start at a multiple of this (a buffer
 * object's base is page aligned: the binding offset must be a multiple).
 */
static inline u32 gaccel_graph_slot_align(const struct gaccel_graph *graph,
					  u32 slot)
{
	return graph->slot_align[slot];
}

void gaccel_graph_put(struct gaccel_graph *graph);
struct gaccel_graph *gaccel_graph_lookup(struct gaccel_file *gfile, u32 handle);
void gaccel_graph_file_fini(struct gaccel_file *gfile);

int gaccel_ioctl_graph_create(struct drm_device *drm, void *data,
			      struct drm_file *file);
int gaccel_ioctl_graph_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file);

int gaccel_copy_array(struct drm_device *drm, const char *what,
		      const struct drm_gaccel_array *arr, u32 max_count,
		      size_t min_size, size_t elem_size, void **out);

#endif /* __GACCEL_GRAPH_H__ */
