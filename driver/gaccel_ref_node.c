// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The reference engine's view of one node: which ops and dtypes it runs
 * (its caps table), what its kernels assume of their operands, how much
 * scratch memory a node needs, and how a node is cut into units of bounded
 * work.
 *
 * Graph validation (gaccel_graph.c) enforces the uAPI's rules, which imply
 * everything checked here. The kernels check again, once per node and job,
 * the facts their indexing relies on, so that a rule missed by validation
 * fails the job with -EINVAL instead of reaching outside a buffer object.
 * Nothing here uses floating point: it runs outside FPU sections.
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/minmax.h>

#include <drm/gaccel_accel.h>

#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_ref.h"

#define F32	BIT_ULL(DRM_GACCEL_DTYPE_F32)
#define F16	BIT_ULL(DRM_GACCEL_DTYPE_F16)
#define BF16	BIT_ULL(DRM_GACCEL_DTYPE_BF16)
#define Q4_0	BIT_ULL(DRM_GACCEL_DTYPE_Q4_0)
#define Q8_0	BIT_ULL(DRM_GACCEL_DTYPE_Q8_0)
#define I32	BIT_ULL(DRM_GACCEL_DTYPE_I32)
#define I64	BIT_ULL(DRM_GACCEL_DTYPE_I64)

static const struct gaccel_op_caps gaccel_ref_ops[] = {
	{ DRM_GACCEL_OP_MUL_MAT, 4, F32 | F16 | BF16 | Q8_0 | Q4_0, F32, F32 },
	{ DRM_GACCEL_OP_ADD, 4, F32, F32, F32 },
	{ DRM_GACCEL_OP_MUL, 4, F32, F32, F32 },
	{ DRM_GACCEL_OP_SCALE, 4, F32, 0, F32 },
	{ DRM_GACCEL_OP_RMS_NORM, 4, F32, 0, F32 },
	{ DRM_GACCEL_OP_NORM, 4, F32, 0, F32 },
	{ DRM_GACCEL_OP_SOFT_MAX, 4, F32, F32 | F16, F32 },
	{ DRM_GACCEL_OP_ROPE, 3, F32, I32, F32 },
	{ DRM_GACCEL_OP_GET_ROWS, 4, F32 | F16 | BF16 | Q8_0 | Q4_0, I32 | I64, F32 },
	{ DRM_GACCEL_OP_SET_ROWS, 4, F32, I32 | I64, F32 | F16 | BF16 },
	{ DRM_GACCEL_OP_CPY, 4, F32 | F16 | BF16, 0, F32 | F16 | BF16 },
	{ DRM_GACCEL_OP_SILU, 4, F32, 0, F32 },
	{ DRM_GACCEL_OP_GELU, 4, F32, 0, F32 },
	{ DRM_GACCEL_OP_SWIGLU, 4, F32, F32, F32 },
	{ DRM_GACCEL_OP_GEGLU, 4, F32, F32, F32 },
};

/**
 * gaccel_ref_caps() - the reference engine's capabilities.
 * @caps: filled in, except what depends on the machine (memory sizes and
 *	workers), which the caller sets.
 *
 * Graph validation takes everything it checks from here, so the userspace
 * fuzzer of the validator (tests/fuzz/validator) uses this very table.
 */
void gaccel_ref_caps(struct gaccel_engine_caps *caps)
{
	u64 dtypes = 0;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(gaccel_ref_ops); i++)
		dtypes |= gaccel_ref_ops[i].src0_dtypes |
			  gaccel_ref_ops[i].src1_dtypes |
			  gaccel_ref_ops[i].dst_dtypes;
	*caps = (struct gaccel_engine_caps) {
		.name = "gaccel-ref",
		.kind = DRM_GACCEL_ENGINE_SOFTWARE,
		.mem_kind = DRM_GACCEL_MEM_HOST,
		.max_rank = 4,
		.max_graph_nodes = 65536,
		.max_graph_tensors = 131072,
		.max_bindings = 4096,
		.num_workers = 1,
		.ops = gaccel_ref_ops,
		.num_ops = ARRAY_SIZE(gaccel_ref_ops),
		.dtypes = dtypes,
		.node_scratch = gaccel_ref_node_scratch,
	};
}

/*
 * MUL_MAT: columns of a unit of the portable F32 GEMM kernel (its 4), and
 * most columns of a unit of the multi-row dots: below GACCEL_REF_MM_FMIN
 * columns the AVX2 dots take float weights, as the CPU backend's do, and
 * each group of weight rows meets every column while it is in the cache,
 * so the weights are read from memory once, not once per four columns.
 */
#define GACCEL_REF_MM_COLS	4
#define GACCEL_REF_MM_DOT_COLS	GACCEL_REF_MM_FMIN

static bool quantized(u32 dtype)
{
	return dtype == DRM_GACCEL_DTYPE_Q8_0 || dtype == DRM_GACCEL_DTYPE_Q4_0;
}

/*
 * MUL_MAT without the GEMM kernel, rows of @k up to gaccel_ref_mm_ksplit():
 * src1 columns per unit, @ne1 columns in all. Four weight rows share each
 * load of a column, so a unit keeps 4 rows and gives up columns first when
 * 4 rows by all its columns would exceed the largest unit: with AVX2,
 * GACCEL_REF_MM_DOT_UNIT, so that up to 15 columns of rows of 8192 values
 * still read the weights once.
 */
static u64 mm_cols(u64 k, u64 ne1, bool avx2)
{
	u64 cols = min_t(u64, avx2 ? GACCEL_REF_MM_DOT_COLS : GACCEL_REF_MM_COLS,
			 ne1);
	u64 unit = avx2 ? GACCEL_REF_MM_DOT_UNIT : gaccel_ref_mm_max_unit(false);

	return clamp_t(u64, unit / 4 / k, 1, cols);
}

/*
 * Work of a unit of the multi-row dots of @cols columns, in multiply-adds:
 * GACCEL_REF_CHUNK, more for the AVX2 dots of one column, which stream
 * their weights and are bounded by the bytes they read (gaccel_ref.h).
 */
static u64 mm_dot_work(u32 dtype, u64 cols, bool avx2)
{
	if (!avx2 || cols != 1)
		return GACCEL_REF_CHUNK;
	switch (dtype) {
	case DRM_GACCEL_DTYPE_F32:
		return GACCEL_REF_CHUNK << GACCEL_REF_MM_STREAM_F32;
	case DRM_GACCEL_DTYPE_F16:
	case DRM_GACCEL_DTYPE_BF16:
		return GACCEL_REF_CHUNK << GACCEL_REF_MM_STREAM_F16;
	default:
		return GACCEL_REF_CHUNK << GACCEL_REF_MM_STREAM_Q;
	}
}

/*
 * The portable kernels' GEMM tile: 3 rows by GACCEL_REF_MM_COLS columns at
 * least (with AVX2, few columns take the dots, many the F32 GEMM units).
 */
static bool mm_gemm(const struct drm_gaccel_tensor *a,
		    const struct drm_gaccel_tensor *d, bool avx2)
{
	return !avx2 && a->dtype == DRM_GACCEL_DTYPE_F32 &&
	       d->ne[1] >= GACCEL_REF_MM_COLS &&
	       a->ne[0] * 3 * GACCEL_REF_MM_COLS <= gaccel_ref_mm_max_unit(avx2);
}

/*
 * Columns of a unit of the int8 GEMM (quantized weights with AVX2, rows of
 * @k values, @ne1 columns): as many as there are, up to GACCEL_REF_MM_NB
 * and to what GACCEL_REF_MM_QACT bytes hold as Q8_0x rows. Below
 * GACCEL_REF_MM_QMIN the four-row dots take the node.
 */
static u64 mm_qgemm_cols(u64 k, u64 ne1)
{
	u64 fit = GACCEL_REF_MM_QACT / (k / 32 * GACCEL_REF_Q8_0X_BYTES);

	return min3(ne1, fit, (u64)GACCEL_REF_MM_NB);
}

/*
 * Scratch of a unit of the F32 GEMM: its columns' K step copied together
 * (read in place, columns a power-of-two stride apart meet in the same
 * cache sets), and before them for F16/BF16 weights the K step of its
 * rows converted.
 */
static u64 mm_fpanel(u32 dtype)
{
	u64 x = GACCEL_REF_MM_FNB * GACCEL_REF_MM_FKC * sizeof(float);

	if (dtype == DRM_GACCEL_DTYPE_F32)
		return x;
	return x + GACCEL_REF_MM_FROWS * GACCEL_REF_MM_FKC * sizeof(float);
}

/*
 * BF16 weights by one column: the AVX2 dots read the column reordered
 * (gk_bf16p_pack_y_avx2()), as the CPU backend's do, once per participant.
 */
static bool mm_bf16p(const struct drm_gaccel_tensor *a,
		     const struct drm_gaccel_tensor *d)
{
	return a->dtype == DRM_GACCEL_DTYPE_BF16 && d->ne[1] == 1;
}

/*
 * Scratch a worker needs for @node: src1 columns quantized for Q8_0 and
 * Q4_0 weights (as Q8_0x blocks, the larger form, whatever the CPU), as
 * many as one unit takes, and for the int8 GEMM one packed weight tile
 * besides; for rows split along k, one piece of a column. Float weights
 * with enough columns for the F32 GEMM: a K step of its columns, and of
 * F16 and BF16 weights converted to F32 (mm_fpanel()); BF16 weights with
 * one column: the column reordered for the AVX2 dots (mm_bf16p()). The
 * AVX2 kernels' units are the larger: enough for the portable ones. Other
 * nodes, and other products of float weights, read their operands in
 * place. At most 512 KiB + 18 KiB.
 */
u64 gaccel_ref_node_scratch(const struct gaccel_graph *graph,
			    const struct drm_gaccel_node *node)
{
	const struct drm_gaccel_tensor *a, *d;
	u64 k, dot, cols;

	if (node->op != DRM_GACCEL_OP_MUL_MAT)
		return 0;
	a = gaccel_graph_src(graph, node, 0);
	d = &graph->tensors[node->dst];
	k = a->ne[0];
	if (!quantized(a->dtype)) {
		if (k > GACCEL_REF_MM_KSPLIT)
			return 0;
		if (mm_bf16p(a, d))
			return k * sizeof(float);
		if (d->ne[1] < GACCEL_REF_MM_FMIN)
			return 0;
		return mm_fpanel(a->dtype);
	}
	if (k > GACCEL_REF_MM_KSPLIT)
		return GACCEL_REF_MM_KSPLIT / 32 * GACCEL_REF_Q8_0X_BYTES;
	dot = mm_cols(k, d->ne[1], true) * (k / 32) * GACCEL_REF_Q8_0X_BYTES;
	cols = mm_qgemm_cols(k, d->ne[1]);
	if (cols < GACCEL_REF_MM_QMIN)
		return dot;
	return max(dot, cols * (k / 32) * GACCEL_REF_Q8_0X_BYTES +
		   GACCEL_REF_MM_QPACK);
}

static const struct gaccel_op_caps *op_caps(u32 op)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(gaccel_ref_ops); i++)
		if (gaccel_ref_ops[i].op == op)
			return &gaccel_ref_ops[i];
	return NULL;
}

static bool same_shape(const struct drm_gaccel_tensor *a,
		       const struct drm_gaccel_tensor *b)
{
	return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] &&
	       a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static u64 nelements(const struct drm_gaccel_tensor *t)
{
	return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

/* Dimensions 1..3 of @a and @b agree. */
static bool same_rows(const struct drm_gaccel_tensor *a,
		      const struct drm_gaccel_tensor *b)
{
	return a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] &&
	       a->ne[3] == b->ne[3];
}

/*
 * What the kernels of gaccel_ref_fpu.c index with, per op: the operands
 * they dereference exist, have dtypes they know, and every index they form
 * from one operand's shape is inside the others'.
 */
static bool gaccel_ref_node_ok(const struct gaccel_ref_node *rn)
{
	const struct drm_gaccel_tensor *d = rn->dst, *a = rn->src[0];
	const struct drm_gaccel_tensor *b = rn->src[1], *c = rn->src[2];
	const struct drm_gaccel_node *n = rn->node;
	const struct gaccel_op_caps *oc = op_caps(n->op);
	u32 n_dims, mode;

	if (!oc || !a || rn->src[3] ||
	    !(oc->dst_dtypes & BIT_ULL(d->dtype)) ||
	    !(oc->src0_dtypes & BIT_ULL(a->dtype)) ||
	    (b && !(oc->src1_dtypes & BIT_ULL(b->dtype))) ||
	    (c && (n->op != DRM_GACCEL_OP_ROPE ||
		   c->dtype != DRM_GACCEL_DTYPE_F32)))
		return false;

	switch (n->op) {
	case DRM_GACCEL_OP_MUL_MAT:
		return b && a->ne[0] == b->ne[0] &&
		       (!quantized(a->dtype) || a->ne[0] % 32 == 0) &&
		       d->ne[0] == a->ne[1] && same_rows(d, b) &&
		       b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
		       a->nb[0] == gaccel_dtype_get(a->dtype)->type_size &&
		       b->nb[0] == 4 && d->nb[0] == 4;
	case DRM_GACCEL_OP_ADD:
	case DRM_GACCEL_OP_MUL:
		/* src1 is indexed modulo its own shape. */
		return b && same_shape(a, d);
	case DRM_GACCEL_OP_SCALE:
	case DRM_GACCEL_OP_SILU:
	case DRM_GACCEL_OP_GELU:
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
		return !b && same_shape(a, d);
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		if (b)
			return same_shape(a, d) && same_shape(b, d);
		return a->ne[0] == 2 * d->ne[0] && same_rows(a, d);
	case DRM_GACCEL_OP_SOFT_MAX:
		/* The mask is indexed modulo its dimensions 2 and 3. */
		return same_shape(a, d) &&
		       (!b || (b->ne[0] == a->ne[0] && b->ne[1] >= a->ne[1]));
	case DRM_GACCEL_OP_ROPE:
		n_dims = (u32)n->params[1];
		mode = (u32)n->params[2];
		return b && same_shape(a, d) && a->ne[0] % 2 == 0 &&
		       n_dims && n_dims % 2 == 0 && n_dims <= a->ne[0] &&
		       (mode == 0 || mode == 2) && b->ne[0] >= a->ne[2] &&
		       (!c || c->ne[0] >= n_dims / 2);
	case DRM_GACCEL_OP_GET_ROWS:
		/* Row indices are checked against a->ne[1] as they are read. */
		return b && d->ne[0] == a->ne[0] && d->ne[1] == b->ne[0] &&
		       d->ne[2] == b->ne[1] && d->ne[3] == b->ne[2] &&
		       a->ne[2] >= b->ne[1] && a->ne[3] >= b->ne[2] &&
		       (!quantized(a->dtype) || a->ne[0] % 32 == 0);
	case DRM_GACCEL_OP_SET_ROWS:
		/* Row indices are checked against d->ne[1] as they are read. */
		return b && d->ne[0] == a->ne[0] && b->ne[0] >= a->ne[1] &&
		       d->ne[2] >= a->ne[2] && d->ne[3] >= a->ne[3];
	case DRM_GACCEL_OP_CPY:
		return !b && nelements(a) == nelements(d);
	}
	return false;
}

/* MUL_MAT: the tile of a unit, and how many units the node has. */
static int gaccel_ref_mm_units(struct gaccel_ref_node *rn, u64 *units,
			       u64 *cost)
{
	const struct drm_gaccel_tensor *d = rn->dst, *a = rn->src[0];
	u64 k = a->ne[0], cols, col_bytes, stream;

	rn->mm_ksplit = false;
	rn->mm_qgemm = false;
	rn->mm_fgemm = false;

	rn->mm_gemm = mm_gemm(a, d, rn->avx2);
	rn->mm_q8x = quantized(a->dtype) && rn->avx2;
	rn->mm_bf16p = rn->avx2 && mm_bf16p(a, d) &&
		       k <= gaccel_ref_mm_ksplit(true) &&
		       rn->scratch_size >= k * sizeof(float);
	col_bytes = k / 32 * (rn->mm_q8x ? GACCEL_REF_Q8_0X_BYTES :
			      GACCEL_REF_Q8_0_BYTES);
	cols = rn->mm_q8x ? mm_qgemm_cols(k, d->ne[1]) : 0;
	if (k > gaccel_ref_mm_ksplit(rn->avx2)) {
		/*
		 * Long rows: one weight row by one column a unit, its dot in
		 * pieces (quantized one piece at a time into the scratch).
		 */
		if (quantized(a->dtype) && rn->scratch_size <
		    gaccel_ref_mm_ksplit(rn->avx2) / 32 * GACCEL_REF_Q8_0X_BYTES)
			return -EINVAL;
		rn->mm_ksplit = true;
		rn->mm_cols = 1;
		rn->mm_block = 1;
	} else if (cols >= GACCEL_REF_MM_QMIN &&
		   rn->scratch_size >= cols * col_bytes + GACCEL_REF_MM_QPACK) {
		/*
		 * Quantized weights, several columns, AVX2: the int8 GEMM on
		 * packed tiles, a unit going down K in steps (a section may
		 * stop between two), its columns quantized once for all the
		 * units of that block a participant runs in a row.
		 */
		rn->mm_gemm = false;
		rn->mm_qgemm = true;
		rn->mm_cols = cols;
		rn->mm_block = GACCEL_REF_MM_QTILE;
		rn->mm_block = min(rn->mm_block, a->ne[1]);
		*cost = max_t(u64, k * rn->mm_block * cols / GACCEL_REF_MM_QDIV, 1);
		*units = DIV_ROUND_UP(d->ne[1], cols) * d->ne[2] * d->ne[3] *
			 DIV_ROUND_UP(a->ne[1], rn->mm_block);
		return 0;
	} else if (rn->avx2 && !quantized(a->dtype) &&
		   d->ne[1] >= GACCEL_REF_MM_FMIN &&
		   rn->scratch_size >= mm_fpanel(a->dtype)) {
		/*
		 * Float weights, many columns, AVX2: the F32 GEMM on the
		 * unit's columns (up to GACCEL_REF_MM_FCOLS), K in steps, in
		 * each step block after block of GACCEL_REF_MM_FNB columns,
		 * so that the weights are read (F16/BF16 ones converted)
		 * once for all of them.
		 */
		rn->mm_gemm = false;
		rn->mm_fgemm = true;
		rn->mm_cols = min_t(u64, d->ne[1], GACCEL_REF_MM_FCOLS);
		rn->mm_block = min_t(u64, GACCEL_REF_MM_FROWS, a->ne[1]);
		*cost = max_t(u64, k * rn->mm_block * rn->mm_cols /
			      GACCEL_REF_MM_FDIV, 1);
		*units = DIV_ROUND_UP(d->ne[1], rn->mm_cols) * d->ne[2] *
			 d->ne[3] * DIV_ROUND_UP(a->ne[1], rn->mm_block);
		return 0;
	} else if (rn->mm_gemm) {
		/*
		 * F32 weights and several columns: tiles of
		 * GACCEL_REF_MM_COLS columns by a multiple of the GEMM
		 * kernel's 3 rows.
		 */
		rn->mm_cols = GACCEL_REF_MM_COLS;
		rn->mm_block = GACCEL_REF_CHUNK / GACCEL_REF_MM_COLS / k;
		rn->mm_block = max_t(u64, rn->mm_block / 3 * 3, 3);
	} else {
		/*
		 * Columns as mm_cols() says, no more than the scratch holds
		 * quantized, by a multiple of the 4 rows of the multi-row
		 * dots (4 x cols x k is at most gaccel_ref_mm_max_unit()).
		 */
		cols = mm_cols(k, d->ne[1], rn->avx2);
		if (quantized(a->dtype)) {
			if (rn->scratch_size < col_bytes)
				return -EINVAL;
			cols = min(cols, rn->scratch_size / col_bytes);
		}
		rn->mm_cols = cols;
		rn->mm_block = max_t(u64, GACCEL_REF_CHUNK / cols / k, 4) & ~3ull;
		/*
		 * Longer units where the dots stream their weights, but no
		 * fewer than 16 a column for the participants to share.
		 */
		stream = max_t(u64, mm_dot_work(a->dtype, cols, rn->avx2) / cols / k,
			       4) & ~3ull;
		stream = min(stream, ALIGN(DIV_ROUND_UP(a->ne[1], 16), 4));
		rn->mm_block = max(rn->mm_block, stream);
	}
	rn->mm_block = min(rn->mm_block, a->ne[1]);
	*cost = k * rn->mm_block * rn->mm_cols;
	*units = DIV_ROUND_UP(d->ne[1], rn->mm_cols) * d->ne[2] * d->ne[3] *
		 DIV_ROUND_UP(a->ne[1], rn->mm_block);
	return 0;
}

/**
 * gaccel_ref_node_prepare() - resolve a node of a job and cut it into units.
 * @rn: filled in; the caller has set @rn->scratch, @rn->scratch_size and
 *	@rn->avx2.
 * @graph: the job's validated graph.
 * @node: one of its nodes.
 * @slots: kernel address of each slot, each at least the slot's size long.
 * @units: set to the node's units of work (rows, tiles or element blocks).
 * @cost: set to the work of one unit, in the units of GACCEL_REF_CHUNK
 *	(a row may cost more than a section: gaccel_ref_fpu_run() splits it).
 *
 * Return: 0, or -EINVAL if the node breaks a rule its kernel relies on.
 */
int gaccel_ref_node_prepare(struct gaccel_ref_node *rn,
			    const struct gaccel_graph *graph,
			    const struct drm_gaccel_node *node,
			    void *const *slots, u64 *units, u64 *cost)
{
	const struct drm_gaccel_tensor *d, *a;
	int i;

	rn->node = node;
	rn->dst = &graph->tensors[node->dst];
	rn->d = (u8 *)slots[rn->dst->slot] + rn->dst->offset;
	for (i = 0; i < DRM_GACCEL_MAX_SRC; i++) {
		rn->src[i] = gaccel_graph_src(graph, node, i);
		rn->s[i] = rn->src[i] ? (const u8 *)slots[rn->src[i]->slot] +
					rn->src[i]->offset : NULL;
	}
	if (!gaccel_ref_node_ok(rn))
		return -EINVAL;

	d = rn->dst;
	a = rn->src[0];
	switch (node->op) {
	case DRM_GACCEL_OP_MUL_MAT:
		return gaccel_ref_mm_units(rn, units, cost);
	case DRM_GACCEL_OP_SET_ROWS:
		*cost = a->ne[0] * gaccel_ref_elem_cost(node->op);
		*units = a->ne[1] * a->ne[2] * a->ne[3];
		return 0;
	case DRM_GACCEL_OP_CPY:
		*cost = GACCEL_REF_CPY_UNIT * gaccel_ref_elem_cost(node->op);
		*units = DIV_ROUND_UP(nelements(d), GACCEL_REF_CPY_UNIT);
		return 0;
	default:
		*cost = d->ne[0] * gaccel_ref_elem_cost(node->op);
		*units = d->ne[1] * d->ne[2] * d->ne[3];
		return 0;
	}
}
