// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Floating-point kernels of the reference engine. This translation unit is
 * built with the kernel's CC_FLAGS_FPU: nothing here may be called outside
 * a kernel_fpu_begin()/kernel_fpu_end() section, and it must not sleep.
 *
 * The row kernels come from the userspace CPU backend
 * (lib/backends/cpu/kernels), so both compute the same numbers.
 */

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>

#include "gaccel_ref.h"

#include "gk-convert.h"
#include "gk-fp16.h"
#include "gk-math.h"
#include "gk-quant.h"
#include "gk-vec.h"

static_assert(sizeof(gk_block_q8_0) == GACCEL_REF_Q8_0_BYTES);
static_assert(sizeof(gk_block_q8_0x) == GACCEL_REF_Q8_0X_BYTES);
static_assert(GACCEL_REF_MM_QTILE == GK_GEMM_MR);

/* The portable kernels, compiled into this unit. */
#include "vec.c"
#include "quant.c"

static inline float pf(const struct drm_gaccel_node *n, int i)
{
	return gk_bits_f32((u32)n->params[i]);
}

static inline const u8 *at(const u8 *base, const struct drm_gaccel_tensor *t,
			   u64 i0, u64 i1, u64 i2, u64 i3)
{
	return base + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] +
	       i3 * t->nb[3];
}

static inline float load(const u8 *p, u32 dtype)
{
	switch (dtype) {
	case DRM_GACCEL_DTYPE_F16:
		return gk_fp16_to_fp32(*(const u16 *)p);
	case DRM_GACCEL_DTYPE_BF16:
		return gk_bf16_to_fp32(*(const u16 *)p);
	case DRM_GACCEL_DTYPE_I32:
		return (float)*(const s32 *)p;
	default:
		return *(const float *)p;
	}
}

static inline void store(u8 *p, u32 dtype, float v)
{
	switch (dtype) {
	case DRM_GACCEL_DTYPE_F16:
		*(u16 *)p = gk_fp32_to_fp16(v);
		break;
	case DRM_GACCEL_DTYPE_BF16:
		*(u16 *)p = gk_fp32_to_bf16(v);
		break;
	default:
		*(float *)p = v;
		break;
	}
}

/* Row @r of a tensor shaped like @t: its indices in dimensions 1..3. */
static inline void row_idx(const struct drm_gaccel_tensor *t, u64 r,
			   u64 *i1, u64 *i2, u64 *i3)
{
	*i1 = r % t->ne[1];
	r /= t->ne[1];
	*i2 = r % t->ne[2];
	*i3 = r / t->ne[2];
}

#ifdef CONFIG_ARM64
/* The NEON dot of one weight row with a column (Q8_0 for quantized rows). */
static float mm_dot1_neon(u32 t, u64 k, const u8 *x, const void *y)
{
	switch (t) {
	case DRM_GACCEL_DTYPE_F16:
		return gk_dot_f16_f32_neon(k, (const u16 *)x, y);
	case DRM_GACCEL_DTYPE_BF16:
		return gk_dot_bf16_f32_neon(k, (const u16 *)x, y);
	case DRM_GACCEL_DTYPE_Q8_0:
		return gk_dot_q8_0_q8_0_neon(k, (const void *)x, y);
	case DRM_GACCEL_DTYPE_Q4_0:
		return gk_dot_q4_0_q8_0_neon(k, (const void *)x, y);
	default:
		return gk_dot_f32_neon(k, (const float *)x, y);
	}
}

/* Four weight rows, @bx bytes apart, with one column, by NEON. */
static void mm_dot4_neon(u32 t, u64 k, const u8 *x, u64 bx, const void *y,
			 float *s)
{
	switch (t) {
	case DRM_GACCEL_DTYPE_F16:
		gk_dot4_f16_f32_neon(k, (const u16 *)x, bx / 2, y, s);
		return;
	case DRM_GACCEL_DTYPE_BF16:
		gk_dot4_bf16_f32_neon(k, (const u16 *)x, bx / 2, y, s);
		return;
	case DRM_GACCEL_DTYPE_Q8_0:
		gk_dot4_q8_0_q8_0_neon(k, x, bx, y, s);
		return;
	case DRM_GACCEL_DTYPE_Q4_0:
		gk_dot4_q4_0_q8_0_neon(k, x, bx, y, s);
		return;
	default:
		gk_dot4_f32_neon(k, (const float *)x, bx / 4, y, s);
		return;
	}
}
#endif

/* One weight row (@x) dotted with the src1 column @y in its dot form. */
static float mm_dot1(const struct gaccel_ref_node *rn, u32 t, u64 k,
		     const u8 *x, const void *y)
{
#ifdef CONFIG_ARM64
	if (rn->neon)
		return mm_dot1_neon(t, k, x, y);
#endif
#ifdef CONFIG_X86_64
	if (rn->avx2) {
		switch (t) {
		case DRM_GACCEL_DTYPE_F16:
			return gk_dot_f16_f32_avx2(k, (const u16 *)x, y);
		case DRM_GACCEL_DTYPE_BF16:
			return gk_dot_bf16_f32_avx2(k, (const u16 *)x, y);
		case DRM_GACCEL_DTYPE_Q8_0:
			return gk_dot_q8_0_q8_0_avx2(k, (const void *)x, y);
		case DRM_GACCEL_DTYPE_Q4_0:
			return gk_dot_q4_0_q8_0_avx2(k, (const void *)x, y);
		default:
			return gk_dot_f32_avx2(k, (const float *)x, y);
		}
	}
#endif
	switch (t) {
	case DRM_GACCEL_DTYPE_F16:
		return gk_dot_f16_f32(k, (const u16 *)x, y);
	case DRM_GACCEL_DTYPE_BF16:
		return gk_dot_bf16_f32(k, (const u16 *)x, y);
	case DRM_GACCEL_DTYPE_Q8_0:
		return gk_dot_q8_0_q8_0(k, (const void *)x, y);
	case DRM_GACCEL_DTYPE_Q4_0:
		return gk_dot_q4_0_q8_0(k, (const void *)x, y);
	default:
		return gk_dot_f32(k, (const float *)x, y);
	}
}

/*
 * @nr (1..4) weight rows, @bx bytes apart, dotted with @y into @s[0..nr).
 * The AVX2 and NEON kernels load each piece of @y once for four rows; with
 * rn->mm_q8x, @y is in Q8_0x blocks (quantized weights on AVX2, as the CPU
 * backend).
 */
static void mm_dotn(const struct gaccel_ref_node *rn, u32 t, u64 k,
		    const u8 *x, u64 bx, u64 nr, const void *y, float *s)
{
	u64 r;

#ifdef CONFIG_ARM64
	if (rn->neon && nr == 4) {
		mm_dot4_neon(t, k, x, bx, y, s);
		return;
	}
#endif
#ifdef CONFIG_X86_64
	if (rn->mm_q8x) {
		if (t == DRM_GACCEL_DTYPE_Q4_0)
			gk_dot4_q4_0_q8x_avx2(k, x, bx, nr, y, s);
		else
			gk_dot4_q8_0_q8x_avx2(k, x, bx, nr, y, s);
		return;
	}
	if (rn->avx2 && nr == 4) {
		switch (t) {
		case DRM_GACCEL_DTYPE_F16:
			gk_dot4_f16_f32_avx2(k, (const u16 *)x, bx / 2, y, s);
			return;
		case DRM_GACCEL_DTYPE_BF16:
			gk_dot4_bf16_f32_avx2(k, (const u16 *)x, bx / 2, y, s);
			return;
		case DRM_GACCEL_DTYPE_Q8_0:
			gk_dot4_q8_0_q8_0_avx2(k, x, bx, y, s);
			return;
		case DRM_GACCEL_DTYPE_Q4_0:
			gk_dot4_q4_0_q8_0_avx2(k, x, bx, y, s);
			return;
		default:
			gk_dot4_f32_avx2(k, (const float *)x, bx / 4, y, s);
			return;
		}
	}
#endif
	for (r = 0; r < nr; r++)
		s[r] = mm_dot1(rn, t, k, x + r * bx, y);
}

/**
 * struct mm_unit - the tile of one MUL_MAT unit.
 * @blk: index of its block of columns over all batches.
 * @i: first weight row (dst element along dimension 0).
 * @nr: weight rows.
 * @j: first dst column (src1 row).
 * @nc: dst columns.
 * @i2: batch index in dimension 2.
 * @i3: batch index in dimension 3.
 */
struct mm_unit {
	u64 blk, i, nr, j, nc, i2, i3;
};

/*
 * Unit @r: weight rows [mm_block * (r % blocks), + mm_block) by dst columns
 * [mm_cols * c, + mm_cols) of one batch, c = r / blocks % column blocks. A
 * participant runs consecutive units, so it goes down all the rows for one
 * block of columns before the next block.
 */
static void mm_unit(const struct gaccel_ref_node *rn, u64 r, struct mm_unit *u)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	u64 blocks = DIV_ROUND_UP(a->ne[1], rn->mm_block);
	u64 cblocks = DIV_ROUND_UP(d->ne[1], rn->mm_cols);
	u64 q;

	u->blk = r / blocks;
	u->i = (r % blocks) * rn->mm_block;
	u->nr = min(rn->mm_block, a->ne[1] - u->i);
	u->j = (u->blk % cblocks) * rn->mm_cols;
	u->nc = min(rn->mm_cols, d->ne[1] - u->j);
	q = u->blk / cblocks;
	u->i2 = q % d->ne[2];
	u->i3 = q / d->ne[2];
}

/* The first weight row of unit @u. */
static const u8 *mm_weights(const struct gaccel_ref_node *rn,
			    const struct mm_unit *u)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];

	return at(rn->s[0], a, 0, u->i, u->i2 / (b->ne[2] / a->ne[2]),
		  u->i3 / (b->ne[3] / a->ne[3]));
}

/*
 * @k values of a src1 column quantized for the dots of quantized weights:
 * Q8_0x blocks with AVX2, Q8_0 otherwise (the NEON quantizer writes the
 * same bytes as the portable one).
 */
static void mm_quantize(const struct gaccel_ref_node *rn, const float *x,
			void *y, u64 k)
{
#ifdef CONFIG_X86_64
	if (rn->mm_q8x) {
		/* The offset is not read by the AVX2 dots. */
		gk_quantize_row_q8_0x_avx2(x, y, k, 8);
		return;
	}
#endif
#ifdef CONFIG_ARM64
	if (rn->neon) {
		gk_quantize_row_q8_0_neon(x, y, k);
		return;
	}
#endif
	gk_quantize_row_q8_0(x, y, k);
}

/*
 * The src1 columns of unit @u in the form the weights' dot takes, as the
 * CPU backend has them: F32 read in place for F32, F16 and BF16 weights;
 * quantized to Q8_0 for Q8_0 and Q4_0 weights, into this participant's
 * scratch, once for all the units of that block of columns it runs in a
 * row (a participant keeps its own copy of @rn). Returns the first column;
 * the others follow @stride bytes apart. With @budget, the columns are
 * quantized a few at a time, as long as the budget lasts (at least one):
 * NULL means that some are still to do, in the next section.
 */
static const u8 *mm_src1(struct gaccel_ref_node *rn, const struct mm_unit *u,
			 u64 *stride, u64 *cost, s64 *budget)
{
	const struct drm_gaccel_tensor *b = rn->src[1];
	const u8 *x = at(rn->s[1], b, 0, u->j, u->i2, u->i3);
	u64 k = rn->src[0]->ne[0], rs = k / GK_QK8_0 * sizeof(gk_block_q8_0), c;
	u32 t = rn->src[0]->dtype;
	u64 c0;

	if (t != DRM_GACCEL_DTYPE_Q8_0 && t != DRM_GACCEL_DTYPE_Q4_0) {
		*stride = b->nb[1];
		return x;
	}
	if (rn->mm_q8x)
		rs = k / GK_QK8_0 * sizeof(gk_block_q8_0x);
	*stride = rs;
	if (rn->mm_col != u->blk + 1) {
		rn->mm_col = u->blk + 1;
		rn->mm_col_done = 0;
	}
	c0 = rn->mm_col_done;
	for (c = c0; c < u->nc; c++) {
		const float *src = (const float *)(x + c * b->nb[1]);
		void *dst = (u8 *)rn->scratch + c * rs;

		if (budget && c > c0 && *budget < (s64)k)
			return NULL;
		mm_quantize(rn, src, dst, k);
		*cost += k;
		if (budget)
			*budget -= (s64)k;
		rn->mm_col_done = c + 1;
	}
	return rn->scratch;
}

/*
 * F32 weights with several columns: the register-blocked GEMM kernel, which
 * reuses each loaded vector of weights for four columns and each vector of
 * src1 for three rows.
 */
static u64 mul_mat_tile(const struct gaccel_ref_node *rn, u64 r)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	u64 ldc = d->nb[1] / 4, c;
	const float *x, *w;
	struct mm_unit u;
	float *out;

	mm_unit(rn, r, &u);
	x = (const float *)at(rn->s[1], b, 0, u.j, u.i2, u.i3);
	w = (const float *)mm_weights(rn, &u);
	out = (float *)at(rn->d, d, u.i, u.j, u.i2, u.i3);
	/* The kernels add to the tile: src1 columns as rows of the product. */
	for (c = 0; c < u.nc; c++)
		memset(out + c * ldc, 0, u.nr * sizeof(float));
#ifdef CONFIG_X86_64
	if (rn->avx2) {
		gk_gemm_nt_f32_avx2(u.nc, u.nr, a->ne[0], x, b->nb[1] / 4, w,
				    a->nb[1] / 4, out, ldc);
		return a->ne[0] * u.nr * u.nc;
	}
#endif
	gk_gemm_nt_f32(u.nc, u.nr, a->ne[0], x, b->nb[1] / 4, w, a->nb[1] / 4,
		       out, ldc);
	return a->ne[0] * u.nr * u.nc;
}

/*
 * Other weights: four-row dots, each group of four weight rows with every
 * column of the unit in turn while the rows are in the cache. mm_block is
 * a multiple of 4 unless it covers all rows.
 */
static u64 mul_mat(struct gaccel_ref_node *rn, u64 r)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	u64 k = a->ne[0], bx = a->nb[1], ldc = d->nb[1] / 4, ys, i, c, cost;
	u32 t = a->dtype;
	struct mm_unit u;
	const u8 *arow, *y;
	float *out;

	mm_unit(rn, r, &u);
	cost = k * u.nr * u.nc;
	y = mm_src1(rn, &u, &ys, &cost, NULL);
	arow = mm_weights(rn, &u);
	out = (float *)at(rn->d, d, u.i, u.j, u.i2, u.i3);
#ifdef CONFIG_X86_64
	if (rn->mm_bf16p) {
		/* One column, reordered once for all the units of its block. */
		if (rn->mm_col != u.blk + 1) {
			gk_bf16p_pack_y_avx2(k, (const float *)y, rn->scratch);
			rn->mm_col = u.blk + 1;
			cost += k;
		}
		for (i = 0; i + 4 <= u.nr; i += 4)
			gk_dot4_bf16p_f32_avx2(k, (const u16 *)(arow + i * bx),
					       bx / 2, rn->scratch, out + i);
		for (; i < u.nr; i++)
			out[i] = mm_dot1(rn, t, k, arow + i * bx, y);
		return cost;
	}
#endif
	for (i = 0; i < u.nr; i += 4) {
		u64 nr = min_t(u64, 4, u.nr - i);

		for (c = 0; c < u.nc; c++)
			mm_dotn(rn, t, k, arow + i * bx, bx, nr, y + c * ys,
				out + i + c * ldc);
	}
	return cost;
}

#ifdef CONFIG_X86_64
/*
 * One K step of an int8 GEMM unit: blocks [@b0, @b0 + @nkb) of its weight
 * rows, a packed tile of GACCEL_REF_MM_QTILE rows at a time, with its
 * columns (@y, Q8_0x rows of @nblk blocks) into @out.
 */
static void mm_qgemm_step(const struct gaccel_ref_node *rn,
			  const struct mm_unit *u, const u8 *w, u64 b0,
			  u64 nkb, const gk_block_q8_0x *y, u64 nblk,
			  float *out, u64 ldc)
{
	const struct drm_gaccel_tensor *a = rn->src[0];
	bool q4 = a->dtype == DRM_GACCEL_DTYPE_Q4_0;
	u8 *wq = (u8 *)rn->scratch + rn->mm_cols * nblk * sizeof(*y);
	float *wd = (float *)(wq + GACCEL_REF_MM_QKC * GACCEL_REF_MM_QTILE * 32);
	u64 t;

	for (t = 0; t < u->nr; t += GACCEL_REF_MM_QTILE) {
		int nr = (int)min_t(u64, GACCEL_REF_MM_QTILE, u->nr - t);
		const u8 *x = w + t * a->nb[1];

		if (q4) {
			gk_pack_q4_0_u8_avx2(x, a->nb[1], nr, b0, (int)nkb, wq, wd);
			gk_gemm_q4x_avx2((int)nkb, wq, wd, nr, (int)u->nc, y + b0,
					 nblk, out + t, ldc);
		} else {
			gk_pack_q8_0_s8_avx2(x, a->nb[1], nr, b0, (int)nkb, wq, wd);
			gk_gemm_q8s_avx2((int)nkb, wq, wd, nr, (int)u->nc, y + b0,
					 nblk, out + t, ldc);
		}
	}
}

/*
 * One K step of an F32 GEMM unit for one block of its columns: values
 * [@k0, @k0 + @kc) of columns [@cb * GACCEL_REF_MM_FNB, + GACCEL_REF_MM_FNB)
 * of the unit, copied together into the scratch, by its weight rows (F32
 * ones read in place; F16/BF16 ones converted after the columns, by the
 * first block of the step: the next blocks of that step use them as they
 * are), into @out.
 */
static void mm_fgemm_step(const struct gaccel_ref_node *rn,
			  const struct mm_unit *u, const u8 *w, u64 k0, u64 kc,
			  u64 cb, float *out, u64 ldc)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	u64 j = cb * GACCEL_REF_MM_FNB, nc = min_t(u64, GACCEL_REF_MM_FNB, u->nc - j);
	const u8 *x = at(rn->s[1], b, k0, u->j + j, u->i2, u->i3);
	const float *p = (const float *)(w + k0 * a->nb[0]);
	float *xp = rn->scratch;
	u64 ldp = a->nb[1] / 4, r, c;

	for (c = 0; c < nc; c++)
		memcpy(xp + c * kc, x + c * b->nb[1], kc * sizeof(float));
	if (a->dtype != DRM_GACCEL_DTYPE_F32) {
		float *panel = xp + GACCEL_REF_MM_FNB * GACCEL_REF_MM_FKC;

		for (r = 0; !cb && r < u->nr; r++) {
			const u16 *src = (const u16 *)(w + r * a->nb[1]) + k0;

			if (a->dtype == DRM_GACCEL_DTYPE_F16)
				gk_fp16_to_fp32_row_f16c(src, panel + r * kc, kc);
			else
				gk_bf16_to_fp32_row_avx2(src, panel + r * kc, kc);
		}
		p = panel;
		ldp = kc;
	}
	gk_gemm_nt_f32_avx2((int)nc, (int)u->nr, (int)kc, xp, kc, p, ldp,
			    out + j * ldc, ldc);
}

/*
 * MUL_MAT by a GEMM kernel (rn->mm_qgemm or rn->mm_fgemm): unit @r is a
 * tile of weight rows by columns; each call zeroes the tile first (at
 * pos->i0 and pos->pass 0), then adds steps, at least one, and more while
 * the budget covers a whole step. pos->i0 is the first value of K not
 * done; the F32 GEMM goes through the tile's blocks of columns within each
 * K step (pos->pass: the next block), so that each weight row is read,
 * and converted, once for all of them.
 */
static int mul_mat_gemm(struct gaccel_ref_node *rn, u64 r,
			struct gaccel_ref_pos *pos, s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	u64 k = a->ne[0], ldc = d->nb[1] / 4, nblk = k / GK_QK8_0, c, step;
	const gk_block_q8_0x *y = NULL;
	struct mm_unit u;
	u64 cost, nb;
	const u8 *w;
	float *out;

	mm_unit(rn, r, &u);
	w = mm_weights(rn, &u);
	out = (float *)at(rn->d, d, u.i, u.j, u.i2, u.i3);
	if (!pos->i0 && !pos->pass)
		for (c = 0; c < u.nc; c++)
			memset(out + c * ldc, 0, u.nr * sizeof(float));
	if (rn->mm_fgemm) {
		nb = DIV_ROUND_UP(u.nc, GACCEL_REF_MM_FNB);
		do {
			u64 cb = pos->pass;
			u64 nc = min_t(u64, GACCEL_REF_MM_FNB,
				       u.nc - cb * GACCEL_REF_MM_FNB);

			step = min_t(u64, GACCEL_REF_MM_FKC, k - pos->i0);
			mm_fgemm_step(rn, &u, w, pos->i0, step, cb, out, ldc);
			/* Work of the step: its FMAs, at least 1. */
			cost = max_t(u64, step * u.nr * nc / GACCEL_REF_MM_FDIV, 1);
			*budget -= (s64)cost;
			if (++pos->pass == nb) {
				pos->pass = 0;
				pos->i0 += step;
			}
		} while (pos->i0 < k && *budget >= (s64)cost);
		return pos->i0 >= k;
	}

	/* Work of one value of K for the whole tile, at least 1. */
	cost = max_t(u64, u.nr * u.nc / GACCEL_REF_MM_QDIV, 1);
	{
		u64 ys, qcost = 0;

		/* Long columns: their quantization takes sections of its own. */
		y = (const gk_block_q8_0x *)mm_src1(rn, &u, &ys, &qcost, budget);
		if (!y)
			return 0;
	}
	do {
		u64 b0 = pos->i0 / GK_QK8_0;
		u64 nkb = min_t(u64, GACCEL_REF_MM_QKC, nblk - b0);

		mm_qgemm_step(rn, &u, w, b0, nkb, y, nblk, out, ldc);
		step = nkb * GK_QK8_0;
		*budget -= (s64)(step * cost);
		pos->i0 += step;
	} while (pos->i0 < k && *budget >= (s64)(step * cost));
	return pos->i0 >= k;
}
#endif

/*
 * Row kernels run a row in spans: each call does the elements of the row
 * (from pos->i0, in pass pos->pass) that the section's budget allows, at
 * least one, and returns 1 once the row is done, 0 when the budget ran out
 * first (pos says where to go on in the next section) or a negative errno.
 * Sums carried across sections are added in the same order as in one go,
 * so splitting a row never changes a result.
 */
typedef int (*row_fn)(struct gaccel_ref_node *rn, u64 r,
		      struct gaccel_ref_pos *pos, s64 *budget);

/* One past the last element to do now: whole groups of @g, at least one. */
static u64 span_end(const struct gaccel_ref_pos *pos, u64 n, s64 *budget,
		    u64 cost, u64 g)
{
	u64 todo = n - pos->i0, can = *budget > 0 ? (u64)*budget / cost : 0;

	can = max_t(u64, can / g * g, g);
	todo = min(todo, can);
	*budget -= (s64)(todo * cost);
	return pos->i0 + todo;
}

/* The span up to @end is done: 1 if that finished the row of @n. */
static int span_done(struct gaccel_ref_pos *pos, u64 end, u64 n)
{
	pos->i0 = end;
	return end >= n;
}

static inline u64 dbits(double v)
{
	union { double d; u64 u; } x = { .d = v };

	return x.u;
}

static inline double bitsd(u64 v)
{
	union { u64 u; double d; } x = { .u = v };

	return x.d;
}

static inline u64 fbits(float v)
{
	union { float f; u32 u; } x = { .f = v };

	return x.u;
}

static inline float bitsf(u64 v)
{
	union { u32 u; float f; } x = { .u = (u32)v };

	return x.f;
}

/*
 * MUL_MAT with rows longer than gaccel_ref_mm_ksplit(): unit @r is one
 * weight row by one src1 column; each call does the next piece of the dot
 * (quantizing that piece of the column into scratch first for quantized
 * weights) and carries the partial sum (float) in state[0].
 */
static int mul_mat_long(struct gaccel_ref_node *rn, u64 r,
			struct gaccel_ref_pos *pos, s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	u64 k = a->ne[0], i0 = pos->i0, end, n;
	bool quant = a->dtype == DRM_GACCEL_DTYPE_Q8_0 ||
		     a->dtype == DRM_GACCEL_DTYPE_Q4_0;
	float sum = i0 ? bitsf(pos->state[0]) : 0.0f, s;
	const float *y;
	struct mm_unit u;
	const u8 *x;

	mm_unit(rn, r, &u);
	x = mm_weights(rn, &u);
	y = (const float *)at(rn->s[1], b, 0, u.j, u.i2, u.i3) + i0;
	end = span_end(pos, k, budget, quant ? 2 : 1, quant ? GK_QK8_0 : 1);
	n = min_t(u64, end - i0, gaccel_ref_mm_ksplit(rn->avx2));
	end = i0 + n;
	if (quant) {
		x += i0 / GK_QK8_0 * a->nb[0];
		mm_quantize(rn, y, rn->scratch, n);
		mm_dotn(rn, a->dtype, n, x, a->nb[1], 1, rn->scratch, &s);
	} else {
		x += i0 * a->nb[0];
		s = mm_dot1(rn, a->dtype, n, x, y);
	}
	sum += s;
	pos->state[0] = fbits(sum);
	if (!span_done(pos, end, k))
		return 0;
	*(float *)at(rn->d, d, u.i, u.j, u.i2, u.i3) = sum;
	return 1;
}

static int binary(struct gaccel_ref_node *rn, u64 r, struct gaccel_ref_pos *pos,
		  s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	bool add = rn->node->op == DRM_GACCEL_OP_ADD;
	u64 i0, i1, i2, i3, end;

	end = span_end(pos, d->ne[0], budget, GACCEL_REF_COST_HEAVY, 1);
	row_idx(d, r, &i1, &i2, &i3);
	for (i0 = pos->i0; i0 < end; i0++) {
		float x = *(const float *)at(rn->s[0], a, i0, i1, i2, i3);
		float y = *(const float *)at(rn->s[1], b, i0 % b->ne[0],
					     i1 % b->ne[1], i2 % b->ne[2],
					     i3 % b->ne[3]);

		*(float *)at(rn->d, d, i0, i1, i2, i3) = add ? x + y : x * y;
	}
	return span_done(pos, end, d->ne[0]);
}

static inline float gelu(float x)
{
	return gk_geluf(x);
}

static int unary(struct gaccel_ref_node *rn, u64 r, struct gaccel_ref_pos *pos,
		 s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	const struct drm_gaccel_node *n = rn->node;
	float s = pf(n, 0), bias = pf(n, 1);
	u64 i0, i1, i2, i3, end;

	end = span_end(pos, d->ne[0], budget, gaccel_ref_elem_cost(n->op), 1);
	row_idx(d, r, &i1, &i2, &i3);
	for (i0 = pos->i0; i0 < end; i0++) {
		float x = *(const float *)at(rn->s[0], a, i0, i1, i2, i3);

		switch (n->op) {
		case DRM_GACCEL_OP_SCALE:
			x = x * s + bias;
			break;
		case DRM_GACCEL_OP_SILU:
			x = gk_siluf(x);
			break;
		default:
			x = gelu(x);
			break;
		}
		*(float *)at(rn->d, d, i0, i1, i2, i3) = x;
	}
	return span_done(pos, end, d->ne[0]);
}

static int glu(struct gaccel_ref_node *rn, u64 r, struct gaccel_ref_pos *pos,
	       s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	bool swapped = rn->node->params[1];
	u64 i0, i1, i2, i3, half = d->ne[0], end;

	end = span_end(pos, half, budget, GACCEL_REF_COST_HEAVY, 1);
	row_idx(d, r, &i1, &i2, &i3);
	for (i0 = pos->i0; i0 < end; i0++) {
		float x, g;

		if (b) {
			x = *(const float *)at(rn->s[0], a, i0, i1, i2, i3);
			g = *(const float *)at(rn->s[1], b, i0, i1, i2, i3);
		} else {
			x = *(const float *)at(rn->s[0], a, i0 + (swapped ? half : 0),
					       i1, i2, i3);
			g = *(const float *)at(rn->s[0], a, i0 + (swapped ? 0 : half),
					       i1, i2, i3);
		}
		x = rn->node->op == DRM_GACCEL_OP_SWIGLU ? gk_siluf(x) : gelu(x);
		*(float *)at(rn->d, d, i0, i1, i2, i3) = x * g;
	}
	return span_done(pos, end, half);
}

/*
 * NORM: pass 0 sums the row for its mean, pass 1 sums the squares of the
 * differences (RMS_NORM starts here, with a mean of 0), pass 2 writes.
 * state[0]: the running sum (double), then the scale (float); state[1]:
 * the mean (float).
 */
static int norm(struct gaccel_ref_node *rn, u64 r, struct gaccel_ref_pos *pos,
		s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	float eps = pf(rn->node, 0), mean, scale;
	u64 i0, i1, i2, i3, n = d->ne[0], end;
	double sum;

	row_idx(d, r, &i1, &i2, &i3);
	if (rn->node->op == DRM_GACCEL_OP_RMS_NORM && !pos->pass)
		pos->pass = 1;
	while (pos->pass < 3) {
		if (*budget <= 0)
			return 0;
		end = span_end(pos, n, budget, GACCEL_REF_COST_MOVE, 1);
		mean = bitsf(pos->state[1]);
		switch (pos->pass) {
		case 0:
			sum = bitsd(pos->state[0]);
			for (i0 = pos->i0; i0 < end; i0++)
				sum += *(const float *)at(rn->s[0], a, i0, i1, i2, i3);
			pos->state[0] = dbits(sum);
			break;
		case 1:
			sum = bitsd(pos->state[0]);
			for (i0 = pos->i0; i0 < end; i0++) {
				float v = *(const float *)at(rn->s[0], a, i0, i1,
							     i2, i3) - mean;

				sum += (double)(v * v);
			}
			pos->state[0] = dbits(sum);
			break;
		default:
			scale = bitsf(pos->state[0]);
			for (i0 = pos->i0; i0 < end; i0++) {
				float v = *(const float *)at(rn->s[0], a, i0, i1,
							     i2, i3);

				*(float *)at(rn->d, d, i0, i1, i2, i3) =
					(v - mean) * scale;
			}
			break;
		}
		if (!span_done(pos, end, n))
			return 0;
		/* The pass is over: what the next one needs. */
		pos->i0 = 0;
		if (pos->pass == 0) {
			pos->state[1] = fbits((float)(bitsd(pos->state[0]) / n));
			pos->state[0] = dbits(0.0);
		} else if (pos->pass == 1) {
			scale = 1.0f / gk_sqrtf((float)(bitsd(pos->state[0]) / n) +
						eps);
			pos->state[0] = fbits(scale);
		}
		pos->pass++;
	}
	return 1;
}

/*
 * SOFT_MAX: pass 0 writes x * scale + mask and finds the maximum, pass 1
 * exponentiates and sums, pass 2 divides. state[0]: the maximum (float),
 * state[1]: the sum (double).
 */
static int soft_max(struct gaccel_ref_node *rn, u64 r,
		    struct gaccel_ref_pos *pos, s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *m = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	float scale = pf(rn->node, 0), max;
	u64 i0, i1, i2, i3, n = d->ne[0], end;
	double sum;
	float *out;

	row_idx(d, r, &i1, &i2, &i3);
	if (!pos->pass && !pos->i0)
		pos->state[0] = fbits(-GK_INFINITY);
	while (pos->pass < 3) {
		if (*budget <= 0)
			return 0;
		end = span_end(pos, n, budget, pos->pass == 1 ?
			       GACCEL_REF_COST_HEAVY : GACCEL_REF_COST_MOVE, 1);
		max = bitsf(pos->state[0]);
		sum = bitsd(pos->state[1]);
		for (i0 = pos->i0; i0 < end; i0++) {
			out = (float *)at(rn->d, d, i0, i1, i2, i3);
			if (pos->pass == 0) {
				float v = *(const float *)at(rn->s[0], a, i0, i1,
							     i2, i3) * scale;

				if (m)
					v += load(at(rn->s[1], m, i0, i1,
						     i2 % m->ne[2],
						     i3 % m->ne[3]), m->dtype);
				*out = v;
				max = gk_maxf(max, v);
			} else if (pos->pass == 1) {
				*out = max == -GK_INFINITY ? 0.0f :
				       gk_expf(*out - max);
				sum += (double)*out;
			} else {
				*out = sum > 0.0 ? (float)(*out / sum) : 0.0f;
			}
		}
		pos->state[0] = fbits(max);
		pos->state[1] = dbits(sum);
		if (!span_done(pos, end, n))
			return 0;
		pos->i0 = 0;
		pos->pass++;
	}
	return 1;
}

static float rope_ramp(float low, float high, u64 i0)
{
	float y = ((float)(i0 / 2) - low) / gk_maxf(0.001f, high - low);

	return 1.0f - gk_minf(1.0f, gk_maxf(0.0f, y));
}

static float corr_dim(u32 n_dims, s32 n_ctx_orig, float n_rot, float base)
{
	return (float)n_dims *
	       gk_logf((float)n_ctx_orig / (n_rot * 2.0f * 3.14159265358979f)) /
	       (2.0f * gk_logf(base));
}

/*
 * floor(@x) for a number: through an int only where that is exact (beyond
 * 2^23 every float is an integer), so infinities and huge values pass
 * through unchanged instead of being converted out of the int range.
 */
static float floor_f(float x)
{
	int i;

	if (!(x > -8388608.0f && x < 8388608.0f))
		return x;
	i = (int)x;
	return (float)(i - (x < (float)i));
}

/*
 * YaRN's correction range: max(0, floor(lo)) and min(n_dims - 1, ceil(hi))
 * as ggml defines them. n_ctx_orig 0 (or beta 0, or a base of 1) makes the
 * logarithms infinite: the range is then clamped like any other value; a
 * NaN (from NaN parameters) stands for the widest range, [0, n_dims - 1].
 */
static void rope_corr(u32 n_dims, s32 n_ctx_orig, float beta_fast,
		      float beta_slow, float base, float *lo, float *hi)
{
	float top = (float)(n_dims - 1);
	float x = corr_dim(n_dims, n_ctx_orig, beta_fast, base);
	float y = corr_dim(n_dims, n_ctx_orig, beta_slow, base);

	*lo = x > 0.0f ? floor_f(x) : 0.0f;
	*hi = y < top ? -floor_f(-y) : top;
}

/*
 * ROPE: pairs of a row rotate by angles that grow along the row; state[0]
 * carries the angle (float) to the next section.
 */
static int rope(struct gaccel_ref_node *rn, u64 r, struct gaccel_ref_pos *pos,
		s64 *budget)
{
	const struct drm_gaccel_node *n = rn->node;
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	const struct drm_gaccel_tensor *fft = rn->src[2];
	u32 n_dims = (u32)n->params[1], mode = (u32)n->params[2];
	s32 n_ctx_orig = n->params[4];
	float freq_base = pf(n, 5), freq_scale = pf(n, 6), ext_factor = pf(n, 7);
	float attn_factor = pf(n, 8), beta_fast = pf(n, 9), beta_slow = pf(n, 10);
	float theta_scale = gk_powf(freq_base, -2.0f / (float)n_dims);
	u64 i0, i1, i2, i3, end, ne0 = d->ne[0] & ~1ull;
	float lo, hi, theta;

	rope_corr(n_dims, n_ctx_orig, beta_fast, beta_slow, freq_base, &lo, &hi);
	row_idx(d, r, &i1, &i2, &i3);
	if (!pos->i0)
		theta = (float)READ_ONCE(*(const s32 *)(rn->s[1] +
							i2 * rn->src[1]->nb[0]));
	else
		theta = bitsf(pos->state[0]);

	end = span_end(pos, ne0, budget, GACCEL_REF_COST_HEAVY, 2);
	for (i0 = pos->i0; i0 < end; i0 += 2) {
		u64 j0 = i0, j1 = i0 + 1;
		float x0, x1, c, s, mscale = attn_factor;
		float t_extrap, t_interp, t;

		if (i0 >= n_dims) {
			*(float *)at(rn->d, d, j0, i1, i2, i3) =
				*(const float *)at(rn->s[0], a, j0, i1, i2, i3);
			*(float *)at(rn->d, d, j1, i1, i2, i3) =
				*(const float *)at(rn->s[0], a, j1, i1, i2, i3);
			continue;
		}
		t_extrap = theta;
		if (fft)
			t_extrap /= *(const float *)at(rn->s[2], fft, i0 / 2, 0, 0, 0);
		t_interp = freq_scale * t_extrap;
		t = t_interp;
		if (ext_factor != 0.0f) {
			float mix = rope_ramp(lo, hi, i0) * ext_factor;

			t = t_interp * (1 - mix) + t_extrap * mix;
			mscale *= 1.0f + 0.1f * gk_logf(1.0f / freq_scale);
		}
		c = gk_cosf(t) * mscale;
		s = gk_sinf(t) * mscale;
		theta *= theta_scale;

		if (mode == 2) {
			j0 = i0 / 2;
			j1 = j0 + n_dims / 2;
		}
		x0 = *(const float *)at(rn->s[0], a, j0, i1, i2, i3);
		x1 = *(const float *)at(rn->s[0], a, j1, i1, i2, i3);
		*(float *)at(rn->d, d, j0, i1, i2, i3) = x0 * c - x1 * s;
		*(float *)at(rn->d, d, j1, i1, i2, i3) = x0 * s + x1 * c;
	}
	pos->state[0] = fbits(theta);
	return span_done(pos, end, ne0);
}

/*
 * A row index from user-writable memory: loaded once, so the value checked
 * is the value used even if userspace rewrites it meanwhile.
 */
static inline s64 load_index(const u8 *p, u32 dtype)
{
	if (dtype == DRM_GACCEL_DTYPE_I64)
		return READ_ONCE(*(const s64 *)p);
	return READ_ONCE(*(const s32 *)p);
}

/* Blocks [@i0 / 32, @end / 32) of a quantized row into dst row (i1, i2, i3). */
static void get_row_quant(const struct gaccel_ref_node *rn, const u8 *row,
			  u64 i0, u64 end, u64 i1, u64 i2, u64 i3)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	float v[GK_QK8_0];
	u64 blk, j;

	for (blk = i0 / GK_QK8_0; blk < end / GK_QK8_0; blk++) {
		const u8 *q = row + blk * a->nb[0];

		if (a->dtype == DRM_GACCEL_DTYPE_Q8_0)
			gk_dequantize_row_q8_0((const gk_block_q8_0 *)q, v, GK_QK8_0);
		else
			gk_dequantize_row_q4_0((const gk_block_q4_0 *)q, v, GK_QK4_0);
		for (j = 0; j < GK_QK8_0; j++)
			store((u8 *)at(rn->d, d, blk * GK_QK8_0 + j, i1, i2, i3),
			      d->dtype, v[j]);
	}
}

static int get_rows(struct gaccel_ref_node *rn, u64 r,
		    struct gaccel_ref_pos *pos, s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	bool quant = a->dtype == DRM_GACCEL_DTYPE_Q8_0 ||
		     a->dtype == DRM_GACCEL_DTYPE_Q4_0;
	u64 i0, i10, i11, i12, end;
	s64 idx;

	row_idx(d, r, &i10, &i11, &i12);
	idx = load_index(at(rn->s[1], b, i10, i11, i12, 0), b->dtype);
	if (idx < 0 || (u64)idx >= a->ne[1])
		return -EINVAL;
	end = span_end(pos, d->ne[0], budget, GACCEL_REF_COST_MOVE,
		       quant ? GK_QK8_0 : 1);
	if (quant)
		get_row_quant(rn, at(rn->s[0], a, 0, idx, i11, i12), pos->i0,
			      end, i10, i11, i12);
	else
		for (i0 = pos->i0; i0 < end; i0++)
			store((u8 *)at(rn->d, d, i0, i10, i11, i12), d->dtype,
			      load(at(rn->s[0], a, i0, idx, i11, i12), a->dtype));
	return span_done(pos, end, d->ne[0]);
}

static int set_rows(struct gaccel_ref_node *rn, u64 r,
		    struct gaccel_ref_pos *pos, s64 *budget)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *b = rn->src[1];
	const struct drm_gaccel_tensor *d = rn->dst;
	u64 i0, i1, i2, i3, end;
	s64 idx;

	row_idx(a, r, &i1, &i2, &i3);
	idx = load_index(at(rn->s[1], b, i1, i2 % b->ne[1], i3 % b->ne[2], 0),
			 b->dtype);
	if (idx < 0 || (u64)idx >= d->ne[1])
		return -EINVAL;
	end = span_end(pos, a->ne[0], budget, GACCEL_REF_COST_MOVE, 1);
	for (i0 = pos->i0; i0 < end; i0++)
		store((u8 *)at(rn->d, d, i0, idx, i2, i3), d->dtype,
		      load(at(rn->s[0], a, i0, i1, i2, i3), a->dtype));
	return span_done(pos, end, a->ne[0]);
}

static inline const u8 *elem(const u8 *base, const struct drm_gaccel_tensor *t,
			     u64 e)
{
	u64 i0 = e % t->ne[0], i1, i2, i3;

	e /= t->ne[0];
	i1 = e % t->ne[1];
	e /= t->ne[1];
	i2 = e % t->ne[2];
	i3 = e / t->ne[2];
	return at(base, t, i0, i1, i2, i3);
}

static u64 cpy(const struct gaccel_ref_node *rn, u64 unit)
{
	const struct drm_gaccel_tensor *a = rn->src[0], *d = rn->dst;
	u64 n = d->ne[0] * d->ne[1] * d->ne[2] * d->ne[3];
	u64 e = unit * GACCEL_REF_CPY_UNIT;
	u64 end = min_t(u64, n, e + GACCEL_REF_CPY_UNIT);

	for (; e < end; e++)
		store((u8 *)elem(rn->d, d, e), d->dtype,
		      load(elem(rn->s[0], a, e), a->dtype));
	return GACCEL_REF_CPY_UNIT * GACCEL_REF_COST_HEAVY;
}

/**
 * gaccel_ref_fpu_run() - run units of a node for one FPU section.
 * @rn: the node, with this participant's scratch.
 * @pos: the units [@pos->unit, @pos->end) still to do and, for a row cut
 *	by the previous section, where in it to go on.
 *
 * Does about GACCEL_REF_CHUNK of work: whole MUL_MAT and CPY units (each
 * at most gaccel_ref_mm_max_unit()), and rows or parts of rows of the
 * other ops.
 *
 * Return: 0 when the units are done, 1 when the section's work is used up
 * first (call again, in a new section), or a negative errno.
 */
int gaccel_ref_fpu_run(struct gaccel_ref_node *rn, struct gaccel_ref_pos *pos)
{
	s64 budget = GACCEL_REF_CHUNK;
	row_fn fn;
	int ret;

	switch (rn->node->op) {
	case DRM_GACCEL_OP_MUL_MAT:
		if (rn->mm_ksplit) {
			fn = mul_mat_long;
			break;
		}
#ifdef CONFIG_X86_64
		if (rn->mm_qgemm || rn->mm_fgemm) {
			fn = mul_mat_gemm;
			break;
		}
#endif
		fallthrough;
	case DRM_GACCEL_OP_CPY:
		for (; pos->unit < pos->end; pos->unit++) {
			if (budget <= 0)
				return 1;
			if (rn->node->op == DRM_GACCEL_OP_CPY)
				budget -= cpy(rn, pos->unit);
			else if (rn->mm_gemm)
				budget -= mul_mat_tile(rn, pos->unit);
			else
				budget -= mul_mat(rn, pos->unit);
		}
		return 0;
	case DRM_GACCEL_OP_ADD:
	case DRM_GACCEL_OP_MUL:
		fn = binary;
		break;
	case DRM_GACCEL_OP_SCALE:
	case DRM_GACCEL_OP_SILU:
	case DRM_GACCEL_OP_GELU:
		fn = unary;
		break;
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		fn = glu;
		break;
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
		fn = norm;
		break;
	case DRM_GACCEL_OP_SOFT_MAX:
		fn = soft_max;
		break;
	case DRM_GACCEL_OP_ROPE:
		fn = rope;
		break;
	case DRM_GACCEL_OP_GET_ROWS:
		fn = get_rows;
		break;
	case DRM_GACCEL_OP_SET_ROWS:
		fn = set_rows;
		break;
	default:
		return -EINVAL;
	}
	while (pos->unit < pos->end) {
		if (budget <= 0)
			return 1;
		ret = fn(rn, pos->unit, pos, &budget);
		if (ret < 0)
			return ret;
		if (!ret)
			return 1;
		pos->unit++;
		pos->i0 = 0;
		pos->pass = 0;
		pos->state[0] = 0;
		pos->state[1] = 0;
	}
	return 0;
}
