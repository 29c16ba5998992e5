// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Graphs: programs copied into the kernel and validated once, so that the
 * engine only ever touches bytes validation proved to lie inside a slot.
 */

#include <linux/bits.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"

/*
 * Most elements along one dimension, and in a whole tensor. Every product
 * of counts the engine forms (rows, units, element indices) then stays far
 * inside 64 bits; extents are computed with overflow checks regardless.
 */
#define GACCEL_MAX_NE		BIT_ULL(40)
#define GACCEL_MAX_NELEMENTS	BIT_ULL(48)
/* Largest array element stride userspace may use. */
#define GACCEL_MAX_STRIDE	4096

static const struct gaccel_dtype gaccel_dtypes[] = {
	[DRM_GACCEL_DTYPE_F32] = { 1, 4, 4 },
	[DRM_GACCEL_DTYPE_F16] = { 1, 2, 2 },
	[DRM_GACCEL_DTYPE_Q4_0] = { 32, 18, 2 },
	[DRM_GACCEL_DTYPE_Q8_0] = { 32, 34, 2 },
	[DRM_GACCEL_DTYPE_I32] = { 1, 4, 4 },
	[DRM_GACCEL_DTYPE_I64] = { 1, 8, 8 },
	[DRM_GACCEL_DTYPE_BF16] = { 1, 2, 2 },
};

const struct gaccel_dtype *gaccel_dtype_get(u32 dtype)
{
	if (dtype >= ARRAY_SIZE(gaccel_dtypes) || !gaccel_dtypes[dtype].block_size)
		return NULL;
	return &gaccel_dtypes[dtype];
}

/*
 * Copy a {stride, count, pointer} array into a kernel array of @elem_size
 * byte elements. A stride below @min_size is refused; a larger one than
 * @elem_size must carry zeros in the bytes the kernel does not know.
 */
int gaccel_copy_array(struct drm_device *drm, const char *what,
		      const struct drm_gaccel_array *arr, u32 max_count,
		      size_t min_size, size_t elem_size, void **out)
{
	void __user *uptr = u64_to_user_ptr(arr->pointer);
	size_t bytes;
	void *k;
	u32 i;
	int ret;

	*out = NULL;
	if (!arr->count)
		return 0;
	if (arr->count > max_count) {
		drm_dbg(drm, "%s: %u elements, at most %u\n", what, arr->count,
			max_count);
		return -EINVAL;
	}
	if (arr->stride < min_size || arr->stride > GACCEL_MAX_STRIDE) {
		drm_dbg(drm, "%s: stride %u out of [%zu, %u]\n", what,
			arr->stride, min_size, GACCEL_MAX_STRIDE);
		return -EINVAL;
	}

	k = kvmalloc_array(arr->count, elem_size, GACCEL_GFP_USER_SIZED);
	if (!k)
		return -ENOMEM;

	if (arr->stride == elem_size) {
		if (check_mul_overflow((size_t)arr->count, elem_size, &bytes) ||
		    copy_from_user(k, uptr, bytes)) {
			ret = -EFAULT;
			goto err;
		}
	} else {
		for (i = 0; i < arr->count; i++) {
			ret = copy_struct_from_user(k + i * elem_size, elem_size,
						    uptr + (size_t)i * arr->stride,
						    arr->stride);
			if (ret) {
				drm_dbg(drm, "%s[%u]: %d copying it in\n",
					what, i, ret);
				goto err;
			}
		}
	}
	*out = k;
	return 0;

err:
	kvfree(k);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Validation                                                                */

struct gaccel_vctx {
	struct drm_device *drm;
	struct gaccel_engine *engine;
	const struct gaccel_engine_caps *caps;
	struct gaccel_graph *graph;
	u32 index;	/* node being checked */
};

static __printf(2, 3) int vfail(struct gaccel_vctx *v, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	drm_dbg(v->drm, "GRAPH_CREATE: node %u: %pV\n", v->index, &vaf);
	va_end(args);
	return -EINVAL;
}

/*
 * One past the last byte any element of @t occupies, relative to the start
 * of its slot: offset + sum over dimensions of (count - 1) * stride + the
 * size of one element (block). False if that does not fit in 64 bits.
 * Strides are unsigned, so this is the largest address any combination of
 * indices reaches; the engine's i * nb products are each below it.
 */
static bool gaccel_tensor_end(const struct drm_gaccel_tensor *t,
			      const struct gaccel_dtype *dt, u64 *end)
{
	u64 e, n, span;
	int i;

	if (check_add_overflow(t->offset, (u64)dt->type_size, &e))
		return false;
	for (i = 0; i < 4; i++) {
		/* Along dimension 0 a quantized tensor has whole blocks. */
		n = i ? t->ne[i] : t->ne[0] / dt->block_size;
		if (check_mul_overflow(n - 1, t->nb[i], &span) ||
		    check_add_overflow(e, span, &e))
			return false;
	}
	*end = e;
	return true;
}

static int gaccel_check_tensor(struct drm_device *drm,
			       const struct gaccel_engine_caps *caps,
			       struct gaccel_graph *graph, u32 idx)
{
	const struct drm_gaccel_tensor *t = &graph->tensors[idx];
	const struct gaccel_dtype *dt;
	u64 end, nel = 1;
	int i;

	if (t->slot >= graph->num_slots) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: slot %u of %u\n", idx,
			t->slot, graph->num_slots);
		return -EINVAL;
	}
	dt = gaccel_dtype_get(t->dtype);
	if (!dt || t->dtype >= 64 || !(caps->dtypes & BIT_ULL(t->dtype))) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: dtype %u not supported\n",
			idx, t->dtype);
		return -EINVAL;
	}
	for (i = 0; i < 4; i++) {
		if (!t->ne[i] || t->ne[i] > GACCEL_MAX_NE ||
		    t->nb[i] > GACCEL_MAX_NE) {
			drm_dbg(drm, "GRAPH_CREATE: tensor %u: ne[%d]=%llu nb[%d]=%llu out of range\n",
				idx, i, t->ne[i], i, t->nb[i]);
			return -EINVAL;
		}
		if (t->nb[i] % dt->alignment) {
			drm_dbg(drm, "GRAPH_CREATE: tensor %u: nb[%d]=%llu misaligned\n",
				idx, i, t->nb[i]);
			return -EINVAL;
		}
		if (check_mul_overflow(nel, t->ne[i], &nel) ||
		    nel > GACCEL_MAX_NELEMENTS) {
			drm_dbg(drm, "GRAPH_CREATE: tensor %u: more than %llu elements\n",
				idx, GACCEL_MAX_NELEMENTS);
			return -EINVAL;
		}
	}
	if (t->offset % dt->alignment) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: offset %llu misaligned\n",
			idx, t->offset);
		return -EINVAL;
	}
	if (t->ne[0] % dt->block_size ||
	    (dt->block_size > 1 && t->nb[0] != dt->type_size) ||
	    t->nb[0] < dt->type_size) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: bad block layout\n", idx);
		return -EINVAL;
	}
	if (!gaccel_tensor_end(t, dt, &end)) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: extent overflows\n", idx);
		return -EINVAL;
	}
	if (end > graph->slot_size[t->slot]) {
		drm_dbg(drm, "GRAPH_CREATE: tensor %u: ends at %llu, slot %u has %llu bytes\n",
			idx, end, t->slot, graph->slot_size[t->slot]);
		return -EINVAL;
	}
	graph->slot_align[t->slot] = max(graph->slot_align[t->slot],
					 dt->alignment);
	return 0;
}

static bool same_shape(const struct drm_gaccel_tensor *a,
		       const struct drm_gaccel_tensor *b)
{
	return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] &&
	       a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static bool can_repeat(const struct drm_gaccel_tensor *small,
		       const struct drm_gaccel_tensor *big)
{
	int i;

	for (i = 0; i < 4; i++)
		if (big->ne[i] % small->ne[i])
			return false;
	return true;
}

/* Checked by gaccel_check_tensor() to stay within GACCEL_MAX_NELEMENTS. */
static u64 nelements(const struct drm_gaccel_tensor *t)
{
	return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

/* 1 + the last dimension with more than one element, as ggml_n_dims(). */
static u32 rank(const struct drm_gaccel_tensor *t)
{
	u32 r = 4;

	while (r > 1 && t->ne[r - 1] == 1)
		r--;
	return r;
}

/* A float parameter (by bit pattern) that is finite and not below zero. */
static bool f32_bits_nonneg(s32 p)
{
	u32 bits = (u32)p;

	if (bits == 0x80000000u)	/* -0.0 */
		return true;
	return !(bits & 0x80000000u) && ((bits >> 23) & 0xff) != 0xff;
}

static u32 param_u32(const struct drm_gaccel_node *n, int i)
{
	return (u32)n->params[i];
}

static int gaccel_check_shapes(struct gaccel_vctx *v,
			       const struct drm_gaccel_node *n,
			       const struct drm_gaccel_tensor *d,
			       const struct drm_gaccel_tensor *a,
			       const struct drm_gaccel_tensor *b,
			       const struct drm_gaccel_tensor *c)
{
	u32 n_dims, mode;

	switch (n->op) {
	case DRM_GACCEL_OP_MUL_MAT:
		if (a->ne[0] != b->ne[0] || d->ne[0] != a->ne[1] ||
		    d->ne[1] != b->ne[1] || d->ne[2] != b->ne[2] ||
		    d->ne[3] != b->ne[3])
			return vfail(v, "MUL_MAT shapes do not match");
		if (b->ne[2] % a->ne[2] || b->ne[3] % a->ne[3])
			return vfail(v, "MUL_MAT cannot broadcast src0");
		if (a->nb[0] != gaccel_dtype_get(a->dtype)->type_size ||
		    b->nb[0] != 4 || d->nb[0] != 4)
			return vfail(v, "MUL_MAT rows must be contiguous");
		return 0;
	case DRM_GACCEL_OP_ADD:
	case DRM_GACCEL_OP_MUL:
		if (!same_shape(a, d) || !can_repeat(b, a))
			return vfail(v, "binary op shapes do not match");
		return 0;
	case DRM_GACCEL_OP_SCALE:
	case DRM_GACCEL_OP_SILU:
	case DRM_GACCEL_OP_GELU:
		if (!same_shape(a, d))
			return vfail(v, "unary op shapes do not match");
		return 0;
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
		if (!same_shape(a, d))
			return vfail(v, "norm shapes do not match");
		if (!f32_bits_nonneg(n->params[0]))
			return vfail(v, "norm eps must be finite and not negative");
		return 0;
	case DRM_GACCEL_OP_SOFT_MAX:
		if (!same_shape(a, d))
			return vfail(v, "SOFT_MAX shapes do not match");
		if (n->params[1])
			return vfail(v, "SOFT_MAX max_bias is not supported");
		if (b && (b->ne[0] != a->ne[0] || b->ne[1] < a->ne[1] ||
			  a->ne[2] % b->ne[2] || a->ne[3] % b->ne[3]))
			return vfail(v, "SOFT_MAX mask shape does not match");
		return 0;
	case DRM_GACCEL_OP_ROPE:
		n_dims = param_u32(n, 1);
		mode = param_u32(n, 2);
		if (!same_shape(a, d))
			return vfail(v, "ROPE shapes do not match");
		/* Pairs of elements rotate: a row has no odd one out. */
		if (a->ne[0] % 2)
			return vfail(v, "ROPE rows of %llu elements: must be even",
				     a->ne[0]);
		if (mode != 0 && mode != 2)
			return vfail(v, "ROPE mode %u not supported", mode);
		if (!n_dims || n_dims % 2 || n_dims > a->ne[0])
			return vfail(v, "ROPE n_dims %u invalid", n_dims);
		if (b->ne[0] != a->ne[2] || nelements(b) != b->ne[0])
			return vfail(v, "ROPE positions do not match");
		if (c && (c->ne[0] < n_dims / 2 || nelements(c) != c->ne[0]))
			return vfail(v, "ROPE frequency factors too short");
		return 0;
	case DRM_GACCEL_OP_GET_ROWS:
		if (d->ne[0] != a->ne[0] || d->ne[1] != b->ne[0] ||
		    d->ne[2] != b->ne[1] || d->ne[3] != b->ne[2] ||
		    b->ne[3] != 1 || a->ne[2] != b->ne[1] ||
		    a->ne[3] != b->ne[2])
			return vfail(v, "GET_ROWS shapes do not match");
		return 0;
	case DRM_GACCEL_OP_SET_ROWS:
		if (d->ne[0] != a->ne[0] || d->ne[2] != a->ne[2] ||
		    d->ne[3] != a->ne[3] || b->ne[0] != a->ne[1] ||
		    a->ne[2] % b->ne[1] || a->ne[3] % b->ne[2] ||
		    b->ne[3] != 1)
			return vfail(v, "SET_ROWS shapes do not match");
		return 0;
	case DRM_GACCEL_OP_CPY:
		if (nelements(a) != nelements(d))
			return vfail(v, "CPY element counts differ");
		return 0;
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		if (param_u32(n, 1) > 1)
			return vfail(v, "GLU swapped must be 0 or 1");
		if (b) {
			if (!same_shape(a, d) || !same_shape(b, d))
				return vfail(v, "GLU shapes do not match");
		} else if (a->ne[0] != 2 * d->ne[0] || a->ne[1] != d->ne[1] ||
			   a->ne[2] != d->ne[2] || a->ne[3] != d->ne[3]) {
			return vfail(v, "GLU shapes do not match");
		}
		return 0;
	}
	return vfail(v, "unknown op %u", n->op);
}

/* Which sources an op takes: bit i set = src[i] required, in the high
 * nibble = allowed.
 */
static u32 gaccel_op_srcs(u32 op)
{
	switch (op) {
	case DRM_GACCEL_OP_SCALE:
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
	case DRM_GACCEL_OP_CPY:
	case DRM_GACCEL_OP_SILU:
	case DRM_GACCEL_OP_GELU:
		return 0x11;
	case DRM_GACCEL_OP_SOFT_MAX:
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		return 0x31;
	case DRM_GACCEL_OP_ROPE:
		return 0x73;
	default:
		return 0x33;
	}
}

/* Words of a node's params the op reads; every other one must be zero. */
static u32 gaccel_op_params(u32 op)
{
	switch (op) {
	case DRM_GACCEL_OP_SCALE:
		return DRM_GACCEL_PARAMS_SCALE;
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
		return DRM_GACCEL_PARAMS_NORM;
	case DRM_GACCEL_OP_SOFT_MAX:
		return DRM_GACCEL_PARAMS_SOFT_MAX;
	case DRM_GACCEL_OP_ROPE:
		return DRM_GACCEL_PARAMS_ROPE;
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		return DRM_GACCEL_PARAMS_GLU;
	default:
		return 0;
	}
}

static int gaccel_check_node(struct gaccel_vctx *v,
			     const struct drm_gaccel_node *n)
{
	const struct drm_gaccel_tensor *src[DRM_GACCEL_MAX_SRC] = { };
	const struct gaccel_op_caps *oc = NULL;
	const struct drm_gaccel_tensor *d;
	struct gaccel_graph *g = v->graph;
	u32 srcs, used, max_rank, i;
	int ret;

	if (n->flags || n->pad)
		return vfail(v, "flags/pad must be zero");
	for (i = 0; i < v->caps->num_ops; i++)
		if (v->caps->ops[i].op == n->op)
			oc = &v->caps->ops[i];
	if (!oc)
		return vfail(v, "op %u not supported by the engine", n->op);
	used = gaccel_op_params(n->op);
	for (i = 0; i < DRM_GACCEL_MAX_PARAMS; i++)
		if (n->params[i] && !(used & BIT(i)))
			return vfail(v, "op %u: params[%u] = %#x is unused and must be zero",
				     n->op, i, (u32)n->params[i]);
	if (n->dst >= g->num_tensors)
		return vfail(v, "dst %u of %u tensors", n->dst, g->num_tensors);
	d = &g->tensors[n->dst];

	srcs = gaccel_op_srcs(n->op);
	for (i = 0; i < DRM_GACCEL_MAX_SRC; i++) {
		u32 t = n->src[i];

		if (t == DRM_GACCEL_NO_TENSOR) {
			if (srcs & BIT(i))
				return vfail(v, "src[%u] missing", i);
			continue;
		}
		if (!(srcs & BIT(i + 4)))
			return vfail(v, "src[%u] not taken by op %u", i, n->op);
		if (t >= g->num_tensors)
			return vfail(v, "src[%u] %u of %u tensors", i, t,
				     g->num_tensors);
		src[i] = &g->tensors[t];
	}

	if (!(oc->dst_dtypes & BIT_ULL(d->dtype)))
		return vfail(v, "dst dtype %u not supported", d->dtype);
	if (!(oc->src0_dtypes & BIT_ULL(src[0]->dtype)))
		return vfail(v, "src0 dtype %u not supported", src[0]->dtype);
	if (src[1] && !(oc->src1_dtypes & BIT_ULL(src[1]->dtype)))
		return vfail(v, "src1 dtype %u not supported", src[1]->dtype);
	if (src[2] && src[2]->dtype != DRM_GACCEL_DTYPE_F32)
		return vfail(v, "src2 dtype %u not supported", src[2]->dtype);

	max_rank = min(oc->max_rank, v->caps->max_rank);
	if (rank(d) > max_rank)
		return vfail(v, "dst has rank %u, op %u takes at most %u",
			     rank(d), n->op, max_rank);
	for (i = 0; i < DRM_GACCEL_MAX_SRC; i++)
		if (src[i] && rank(src[i]) > max_rank)
			return vfail(v, "src[%u] has rank %u, op %u takes at most %u",
				     i, rank(src[i]), n->op, max_rank);

	ret = gaccel_check_shapes(v, n, d, src[0], src[1], src[2]);
	if (ret)
		return ret;

	/* What the engine's tables cannot say, it checks itself. */
	if (v->engine->ops && v->engine->ops->node_check &&
	    v->engine->ops->node_check(v->engine, g, n))
		return vfail(v, "op %u: the engine cannot run this node", n->op);

	g->slot_written[d->slot] = true;
	if (v->caps->node_scratch)
		g->scratch_size = max(g->scratch_size,
				      v->caps->node_scratch(g, n));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Lifetime and ioctls                                                       */

static void gaccel_graph_release(struct kref *ref)
{
	struct gaccel_graph *graph = container_of(ref, struct gaccel_graph, ref);

	kvfree(graph->slot_size);
	kvfree(graph->slot_align);
	kvfree(graph->slot_written);
	kvfree(graph->tensors);
	kvfree(graph->nodes);
	if (graph->usage) {
		gaccel_uncharge(graph->usage, GACCEL_RES_GRAPH_BYTES,
				graph->charged);
		gaccel_uncharge(graph->usage, GACCEL_RES_GRAPHS, 1);
		gaccel_usage_put(graph->usage);
	}
	kfree(graph);
}

void gaccel_graph_put(struct gaccel_graph *graph)
{
	if (graph)
		kref_put(&graph->ref, gaccel_graph_release);
}

struct gaccel_graph *gaccel_graph_lookup(struct gaccel_file *gfile, u32 handle)
{
	struct gaccel_graph *graph;

	xa_lock(&gfile->graphs);
	graph = xa_load(&gfile->graphs, handle);
	if (graph)
		kref_get(&graph->ref);
	xa_unlock(&gfile->graphs);
	return graph;
}

void gaccel_graph_file_fini(struct gaccel_file *gfile)
{
	struct gaccel_graph *graph;
	unsigned long index;

	xa_for_each(&gfile->graphs, index, graph)
		gaccel_graph_put(graph);
	xa_destroy(&gfile->graphs);
}

static int gaccel_graph_copy_slots(struct drm_device *drm,
				   struct gaccel_graph *graph,
				   const struct drm_gaccel_array *arr, u32 max)
{
	struct drm_gaccel_slot *slots;
	u32 i;
	int ret;

	ret = gaccel_copy_array(drm, "GRAPH_CREATE slots", arr, max,
				sizeof(*slots), sizeof(*slots), (void **)&slots);
	if (ret)
		return ret;

	graph->num_slots = arr->count;
	graph->slot_size = kvcalloc(arr->count, sizeof(u64),
				    GACCEL_GFP_USER_SIZED);
	graph->slot_align = kvcalloc(arr->count, sizeof(u32),
				     GACCEL_GFP_USER_SIZED);
	graph->slot_written = kvcalloc(arr->count, sizeof(bool),
				       GACCEL_GFP_USER_SIZED);
	if (!graph->slot_size || !graph->slot_align || !graph->slot_written) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < arr->count; i++) {
		if (slots[i].flags || slots[i].pad) {
			drm_dbg(drm, "GRAPH_CREATE: slot %u: flags/pad must be zero\n", i);
			ret = -EINVAL;
			goto out;
		}
		if (!slots[i].size) {
			drm_dbg(drm, "GRAPH_CREATE: slot %u: size is zero\n", i);
			ret = -EINVAL;
			goto out;
		}
		graph->slot_size[i] = slots[i].size;
		graph->slot_align[i] = 1;
	}
out:
	kvfree(slots);
	return ret;
}

/*
 * The kernel memory a graph of these counts keeps, computed before anything
 * is allocated; follows what gaccel_ioctl_graph_create() allocates.
 */
static int gaccel_graph_bytes(const struct drm_gaccel_graph_create *args,
			      u64 *bytes)
{
	u64 slots, tensors, nodes;

	if (check_mul_overflow((u64)args->slots.count,
			       (u64)(sizeof(u64) + sizeof(u32) + sizeof(bool)),
			       &slots) ||
	    check_mul_overflow((u64)args->tensors.count,
			       (u64)sizeof(struct drm_gaccel_tensor), &tensors) ||
	    check_mul_overflow((u64)args->nodes.count,
			       (u64)sizeof(struct drm_gaccel_node), &nodes) ||
	    check_add_overflow(slots, tensors, bytes) ||
	    check_add_overflow(*bytes, nodes, bytes) ||
	    check_add_overflow(*bytes, (u64)sizeof(struct gaccel_graph), bytes))
		return -EOVERFLOW;
	return 0;
}

/* Take one graph and its bytes from the file's limits, for @graph. */
static int gaccel_graph_charge(struct drm_device *drm, struct gaccel_file *gfile,
			       const struct drm_gaccel_graph_create *args,
			       struct gaccel_graph *graph)
{
	u64 bytes;
	int ret;

	ret = gaccel_graph_bytes(args, &bytes);
	if (ret) {
		drm_dbg(drm, "GRAPH_CREATE: size of the arrays overflows\n");
		return ret;
	}
	ret = gaccel_charge(drm, gfile->usage, GACCEL_RES_GRAPHS, 1);
	if (ret)
		return ret;
	ret = gaccel_charge(drm, gfile->usage, GACCEL_RES_GRAPH_BYTES, bytes);
	if (ret) {
		gaccel_uncharge(gfile->usage, GACCEL_RES_GRAPHS, 1);
		return ret;
	}
	graph->usage = gaccel_usage_get(gfile->usage);
	graph->charged = bytes;
	return 0;
}

int gaccel_ioctl_graph_create(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct gaccel_engine *engine = to_gaccel_device(drm)->engine;
	const struct gaccel_engine_caps *caps = &engine->caps;
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_graph_create *args = data;
	struct gaccel_vctx v = { .drm = drm, .engine = engine, .caps = caps };
	struct gaccel_graph *graph;
	u32 i, handle;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "GRAPH_CREATE: flags %#x must be zero\n", args->flags);
		return -EINVAL;
	}
	if (!args->slots.count || !args->tensors.count || !args->nodes.count) {
		drm_dbg(drm, "GRAPH_CREATE: empty slots, tensors or nodes\n");
		return -EINVAL;
	}
	/* A count over the engine's limits is malformed, not too much. */
	if (args->slots.count > caps->max_bindings ||
	    args->tensors.count > caps->max_graph_tensors ||
	    args->nodes.count > caps->max_graph_nodes) {
		drm_dbg(drm, "GRAPH_CREATE: %u slots, %u tensors, %u nodes; at most %u, %u, %u\n",
			args->slots.count, args->tensors.count, args->nodes.count,
			caps->max_bindings, caps->max_graph_tensors,
			caps->max_graph_nodes);
		return -EINVAL;
	}

	graph = kzalloc(sizeof(*graph), GFP_KERNEL_ACCOUNT);
	if (!graph)
		return -ENOMEM;
	kref_init(&graph->ref);
	v.graph = graph;

	/* Within the file's limits before the big allocations. */
	ret = gaccel_graph_charge(drm, gfile, args, graph);
	if (ret)
		goto err;

	ret = gaccel_graph_copy_slots(drm, graph, &args->slots,
				      caps->max_bindings);
	if (ret)
		goto err;
	ret = gaccel_copy_array(drm, "GRAPH_CREATE tensors", &args->tensors,
				caps->max_graph_tensors,
				sizeof(struct drm_gaccel_tensor),
				sizeof(struct drm_gaccel_tensor),
				(void **)&graph->tensors);
	if (ret)
		goto err;
	graph->num_tensors = args->tensors.count;
	ret = gaccel_copy_array(drm, "GRAPH_CREATE nodes", &args->nodes,
				caps->max_graph_nodes,
				sizeof(struct drm_gaccel_node),
				sizeof(struct drm_gaccel_node),
				(void **)&graph->nodes);
	if (ret)
		goto err;
	graph->num_nodes = args->nodes.count;

	for (i = 0; i < graph->num_tensors; i++) {
		ret = gaccel_check_tensor(drm, caps, graph, i);
		if (ret)
			goto err;
		if (!(i % 4096))
			cond_resched();
	}
	for (i = 0; i < graph->num_nodes; i++) {
		v.index = i;
		ret = gaccel_check_node(&v, &graph->nodes[i]);
		if (ret)
			goto err;
		if (!(i % 4096))
			cond_resched();
	}

	ret = xa_alloc(&gfile->graphs, &handle, graph, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err;
	args->handle = handle;
	return 0;

err:
	gaccel_graph_put(graph);
	return ret;
}

int gaccel_ioctl_graph_destroy(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct gaccel_file *gfile = file->driver_priv;
	struct drm_gaccel_graph_destroy *args = data;
	struct gaccel_graph *graph;

	if (args->pad) {
		drm_dbg(drm, "GRAPH_DESTROY: pad must be zero\n");
		return -EINVAL;
	}
	graph = xa_erase(&gfile->graphs, args->handle);
	if (!graph) {
		drm_dbg(drm, "GRAPH_DESTROY: no graph %u\n", args->handle);
		return -ENOENT;
	}
	gaccel_graph_put(graph);
	return 0;
}
