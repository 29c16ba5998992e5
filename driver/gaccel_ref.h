/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Between the reference engine's scheduling code (gaccel_ref.c) and its
 * floating-point kernels (gaccel_ref_fpu.c, built with the FPU enabled and
 * called only between kernel_fpu_begin() and kernel_fpu_end()).
 */
#ifndef __GACCEL_REF_H__
#define __GACCEL_REF_H__

#include <linux/types.h>

#include <drm/gaccel_accel.h>

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
 * @mm_block: MUL_MAT: destination elements per unit along a row, so that
 *	even one long row is cut into short FPU sections; a multiple of 4
 *	(the rows of one multi-row dot) unless it covers the whole row.
 * @mm_cols: MUL_MAT: destination rows (src1 columns) per unit.
 * @mm_gemm: MUL_MAT: F32 weights, units done by the GEMM kernel.
 * @mm_q8x: MUL_MAT: quantized weights on AVX2: src1 as Q8_0x blocks.
 * @mm_col: MUL_MAT: 1 + the src1 column held converted in @scratch, 0 for
 *	none; each participant of a node has its own copy.
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
	bool mm_gemm;
	bool mm_q8x;
	u64 mm_block;
	u64 mm_cols;
	u64 mm_col;
};

/* Bytes of a Q8_0 and a Q8_0x block (32 values) of src1 in scratch. */
#define GACCEL_REF_Q8_0_BYTES	34
#define GACCEL_REF_Q8_0X_BYTES	40

/* Elements of CPY handled per unit. */
#define GACCEL_REF_CPY_UNIT	1024

int gaccel_ref_fpu_run(struct gaccel_ref_node *rn, u64 begin, u64 end);

#endif /* __GACCEL_REF_H__ */
