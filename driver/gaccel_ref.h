/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Between the reference engine's scheduling code (gaccel_ref.c), its view
 * of a node (gaccel_ref_node.c: ops it runs, the rules its kernels rely on,
 * how a node is cut into units) and its floating-point kernels
 * (gaccel_ref_fpu.c, built with the FPU enabled and called only between
 * kernel_fpu_begin() and kernel_fpu_end()).
 */
#ifndef __GACCEL_REF_H__
#define __GACCEL_REF_H__

#include <linux/types.h>

#include <drm/gaccel_accel.h>

struct gaccel_engine_caps;
struct gaccel_graph;

/**
 * struct gaccel_ref_node - one node, resolved against a job's bindings.
 * @node: the node.
 * @dst: destination descriptor.
 * @src: source descriptors, NULL when unused.
 * @d: address of the destination's first element.
 * @s: addresses of the sources' first elements.
 * @scratch: this participant's part of the job's scratch memory.
 * @scratch_size: bytes of @scratch.
 * @avx2: the CPU has AVX2, FMA and F16C and the kernel saves YMM state.
 * @neon: arm64 with FP/SIMD: the NEON dots and quantizer (units and
 *	sections are the portable kernels').
 * @mm_block: MUL_MAT: destination elements per unit along a row, so that
 *	even one long row is cut into short FPU sections; a multiple of 4
 *	(the rows of one multi-row dot) unless it covers the whole row or the
 *	rows are so long that fewer than 4 make a section.
 * @mm_cols: MUL_MAT: destination rows (src1 columns) per unit.
 * @mm_gemm: MUL_MAT: F32 weights, units done by the GEMM kernel.
 * @mm_ksplit: MUL_MAT: rows longer than gaccel_ref_mm_ksplit(): a unit is
 *	one weight row by one column, its dot product done in pieces of at
 *	most that many elements, one or more per section.
 * @mm_q8x: MUL_MAT: quantized weights on AVX2: src1 as Q8_0x blocks.
 * @mm_bf16p: MUL_MAT: BF16 weights by one column on AVX2: the column
 *	reordered in @scratch for the four-row dots.
 * @mm_qgemm: MUL_MAT: quantized weights on AVX2 with several columns: a
 *	unit is GACCEL_REF_MM_QTILE weight rows by up to GACCEL_REF_MM_NB
 *	columns, run by the int8 GEMM on packed weight tiles one K step
 *	(GACCEL_REF_MM_QKC blocks) at a time, a section stopping between
 *	steps (@scratch: the unit's columns as Q8_0x rows, then the packed
 *	tile).
 * @mm_fgemm: MUL_MAT: F32, F16 or BF16 weights on AVX2 with many columns:
 *	a unit is GACCEL_REF_MM_FROWS weight rows by up to GACCEL_REF_MM_FCOLS
 *	columns, run by the F32 GEMM kernel GACCEL_REF_MM_FKC values of K by
 *	GACCEL_REF_MM_NB columns at a time, a section stopping between two
 *	(@scratch: those columns copied together, then for F16 and BF16
 *	weights the K step of the rows converted to F32).
 * @mm_col: MUL_MAT: 1 + the block of src1 columns held converted in
 *	@scratch, 0 for none; each participant of a node has its own copy.
 * @mm_col_done: MUL_MAT: how many columns of that block are converted.
 */
struct gaccel_ref_node {
	const struct drm_gaccel_node *node;
	const struct drm_gaccel_tensor *dst;
	const struct drm_gaccel_tensor *src[DRM_GACCEL_MAX_SRC];
	u8 *d;
	const u8 *s[DRM_GACCEL_MAX_SRC];
	void *scratch;
	u64 scratch_size;
	bool avx2;
	bool neon;
	bool mm_gemm;
	bool mm_ksplit;
	bool mm_q8x;
	bool mm_bf16p;
	bool mm_qgemm;
	bool mm_fgemm;
	u64 mm_block;
	u64 mm_cols;
	u64 mm_col;
	u64 mm_col_done;
};

/**
 * struct gaccel_ref_pos - where a participant is in its chunk of a node,
 * kept between FPU sections.
 * @unit: the unit being run.
 * @end: first unit past the chunk.
 * @i0: first element of @unit's row not yet done in @pass.
 * @pass: pass over the row (the reductions read a row two or three times).
 * @state: what a row kernel carries from one section to the next (float
 *	and double values by bit pattern, so that this file stays free of
 *	floating point).
 */
struct gaccel_ref_pos {
	u64 unit;
	u64 end;
	u64 i0;
	u32 pass;
	u64 state[2];
};

/* Bytes of a Q8_0 and a Q8_0x block (32 values) of src1 in scratch. */
#define GACCEL_REF_Q8_0_BYTES	34
#define GACCEL_REF_Q8_0X_BYTES	40

/*
 * Work of one FPU section, in multiply-adds for MUL_MAT and for the other
 * ops in elements weighted by what their kernels spend on one, measured
 * with `make bench-sections` (about a nanosecond per unit of work on the
 * portable kernels): GACCEL_REF_COST_MOVE for loads, stores and sums,
 * GACCEL_REF_COST_HEAVY for exp, tanh, sin/cos or index arithmetic by
 * division. A section stops once it has used GACCEL_REF_CHUNK, even
 * inside a row, and the next one goes on from there.
 */
#define GACCEL_REF_CHUNK	BIT(16)
#define GACCEL_REF_COST_MOVE	4
#define GACCEL_REF_COST_HEAVY	16

/* Work of one element of @op's rows (SOFT_MAX: of its exp pass). */
static inline u32 gaccel_ref_elem_cost(u32 op)
{
	switch (op) {
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
	case DRM_GACCEL_OP_SCALE:
	case DRM_GACCEL_OP_GET_ROWS:
	case DRM_GACCEL_OP_SET_ROWS:
		return GACCEL_REF_COST_MOVE;
	default:
		return GACCEL_REF_COST_HEAVY;
	}
}

/*
 * MUL_MAT: largest unit (a tile of weight rows by src1 columns, run in one
 * section), in multiply-adds; and the longest row done in one piece:
 * longer rows are split along k, a piece per section, so there is no
 * limit on the row length. Both with the AVX2 kernels; the portable ones,
 * about four times slower, take a quarter.
 */
#define GACCEL_REF_MM_MAX_UNIT	BIT(18)
#define GACCEL_REF_MM_KSPLIT	BIT(16)

/*
 * The AVX2 multi-row dots' largest unit (4 weight rows by up to 15
 * columns): twice the others, as the dots stream their weights from
 * memory at a quarter of the GEMM kernels' rate of multiply-adds, so such
 * a unit is no longer a section than theirs (`make bench-sections`).
 */
#define GACCEL_REF_MM_DOT_UNIT	BIT(19)

/*
 * The AVX2 dots of one column (decode) stream their weights from memory,
 * so what bounds a section of them is the bytes it reads, not its
 * multiply-adds: GACCEL_REF_CHUNK shifted left by this many bits for F32,
 * F16/BF16 and the quantized types reads 512 KiB (F32, F16, BF16), 544 KiB
 * (Q8_0) or 288 KiB (Q4_0) of weights a section, about 20 us where the
 * others take up to 40 (`make bench-sections`, decode cases). Fewer,
 * longer sections cost less of their fixed price (kernel_fpu_begin/end,
 * the unit's bookkeeping), which matters most where that price is high
 * (emulated CPUs).
 */
#define GACCEL_REF_MM_STREAM_F32	1
#define GACCEL_REF_MM_STREAM_F16	2
#define GACCEL_REF_MM_STREAM_Q		3

static inline u64 gaccel_ref_mm_max_unit(bool avx2)
{
	return avx2 ? GACCEL_REF_MM_MAX_UNIT : GACCEL_REF_MM_MAX_UNIT / 4;
}

static inline u64 gaccel_ref_mm_ksplit(bool avx2)
{
	return avx2 ? GACCEL_REF_MM_KSPLIT : GACCEL_REF_MM_KSPLIT / 4;
}

/*
 * The GEMM units of MUL_MAT with AVX2 (@mm_qgemm, @mm_fgemm above): most
 * columns of a unit (of the F32 GEMM: of one step); quantized weights:
 * rows of a packed tile, blocks of 32 values per K step, least columns,
 * and the most bytes of quantized columns a participant holds; float
 * weights: rows of a unit, most columns of a unit, values per K step,
 * least columns. Their work is counted in multiply-adds divided by
 * GACCEL_REF_MM_QDIV (int8) or GACCEL_REF_MM_FDIV (F32 FMAs of the GEMM
 * kernel), which `make bench-sections` measured to take about what the
 * portable kernels take per multiply-add.
 */
#define GACCEL_REF_MM_NB	128
#define GACCEL_REF_MM_QTILE	16
#define GACCEL_REF_MM_QKC	32
#define GACCEL_REF_MM_QMIN	4
#define GACCEL_REF_MM_QACT	(512 * 1024)
#define GACCEL_REF_MM_FROWS	96
#define GACCEL_REF_MM_FCOLS	512
#define GACCEL_REF_MM_FNB	32
#define GACCEL_REF_MM_FKC	256
#define GACCEL_REF_MM_FMIN	16
#define GACCEL_REF_MM_QDIV	16
#define GACCEL_REF_MM_FDIV	8

/* Bytes of one packed tile of GACCEL_REF_MM_QKC blocks: quants, scales. */
#define GACCEL_REF_MM_QPACK \
	(GACCEL_REF_MM_QKC * GACCEL_REF_MM_QTILE * (32 + 4))

/* Elements of CPY handled per unit. */
#define GACCEL_REF_CPY_UNIT	1024

void gaccel_ref_caps(struct gaccel_engine_caps *caps);

u64 gaccel_ref_node_scratch(const struct gaccel_graph *graph,
			    const struct drm_gaccel_node *node);
int gaccel_ref_node_prepare(struct gaccel_ref_node *rn,
			    const struct gaccel_graph *graph,
			    const struct drm_gaccel_node *node,
			    void *const *slots, u64 *units, u64 *cost);

int gaccel_ref_fpu_run(struct gaccel_ref_node *rn, struct gaccel_ref_pos *pos);

#endif /* __GACCEL_REF_H__ */
