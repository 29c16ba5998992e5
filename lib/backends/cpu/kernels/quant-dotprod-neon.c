/*
 * quant-dotprod-neon.c - int8 kernels for Q8_0/Q4_0 (and Q4_K/Q6_K) weights
 * with the Armv8.2 dot product instructions (SDOT: four signed byte products
 * summed into each int32 lane). Built for armv8.2-a+dotprod by the pragma
 * below; called only when AT_HWCAP reports ASIMDDP
 * (ggml_cpu_isa()->use_dotprod).
 *
 * The activations are Q8_0x columns (float d; corr = -8 * sum for Q4_0
 * weights, 0 for Q8_0), quantized by gk_quantize_row_q8_0x_neon. Q4_0
 * nibbles (0..15) are valid signed bytes: the offset 8 comes back through
 * corr, added once per block.
 * - gk_dot4_*_q8x_dotprod: up to four weight rows with one column; the four
 *   rows' fp16 scales are converted at once and applied by lane (FMLA by
 *   element), so no broadcasts.
 * - gk_gemm_q8x_dotprod: the packed tile layout of the x86 GEMM (gk-quant.h,
 *   GK_GEMM_MR) with signed bytes (gk_pack_*_s8_dotprod): a 16-byte vector
 *   holds four consecutive values of four rows, and SDOT by element takes the
 *   four activation bytes from a lane of one 16-byte load;
 *   gk_gemm_q8x_min_dotprod (the unpack types with offsets, e.g. Q4_1, Q5_K)
 *   also adds each group's offset times the activation block's sum in the
 *   float step.
 * - gk_dot_q4_K_q8_K_dotprod / gk_dot_q6_K_q8_K_dotprod: one K-quant row
 *   with one Q8_K column; the 4- and 6-bit values are non-negative and fit
 *   signed bytes, so they go to SDOT as they are (Q6_K's offset 32 and
 *   Q4_K's mins come off through the activation's bsums).
 *
 * SPDX-License-Identifier: MIT
 */
#pragma GCC target("arch=armv8.2-a+dotprod")

#include "gk-quant.h"
#include "gk-fp16.h"
#include "gk-math.h"

#include <arm_neon.h>

static inline uint16_t ld16(const void * p) {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

// ---------------------------------------------------------------------------
// matrix-vector
// ---------------------------------------------------------------------------

static inline void dot4(const bool q4, int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y,
                        float * s) {
    const int64_t nb = n / GK_QK8_0;
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const uint8_t * xr[4];
    for (int r = 0; r < 4; r++) {
        xr[r] = (const uint8_t *) x + (size_t) (r < nrows ? r : nrows - 1) * bx;
    }
    float32x4_t acc0 = vdupq_n_f32(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    const int32x4_t zero = vdupq_n_s32(0);
    for (int64_t i = 0; i < nb; i++) {
        const size_t o = (size_t) i * bsz;
        const int8x16_t y0 = vld1q_s8(y[i].qs);
        const int8x16_t y1 = vld1q_s8(y[i].qs + 16);
        const uint64_t d4 = (uint64_t) ld16(xr[0] + o) | ((uint64_t) ld16(xr[1] + o) << 16) |
                            ((uint64_t) ld16(xr[2] + o) << 32) | ((uint64_t) ld16(xr[3] + o) << 48);
        const float32x4_t sc = vmulq_n_f32(vcvt_f32_f16(vreinterpret_f16_u64(vcreate_u64(d4))), y[i].d);
        const int32x4_t c = q4 ? vsetq_lane_s32(y[i].corr, zero, 0) : zero;
        int32x4_t p[4];
        for (int r = 0; r < 4; r++) {
            const uint8_t * w = xr[r] + o + 2;
            if (q4) {
                const uint8x16_t raw = vld1q_u8(w);
                p[r] = vdotq_s32(c, vreinterpretq_s8_u8(vandq_u8(raw, m4)), y0);
                p[r] = vdotq_s32(p[r], vreinterpretq_s8_u8(vshrq_n_u8(raw, 4)), y1);
            } else {
                p[r] = vdotq_s32(zero, vld1q_s8((const int8_t *) w), y0);
                p[r] = vdotq_s32(p[r], vld1q_s8((const int8_t *) w + 16), y1);
            }
        }
        acc0 = vfmaq_laneq_f32(acc0, vcvtq_f32_s32(p[0]), sc, 0);
        acc1 = vfmaq_laneq_f32(acc1, vcvtq_f32_s32(p[1]), sc, 1);
        acc2 = vfmaq_laneq_f32(acc2, vcvtq_f32_s32(p[2]), sc, 2);
        acc3 = vfmaq_laneq_f32(acc3, vcvtq_f32_s32(p[3]), sc, 3);
    }
    const float r[4] = { vaddvq_f32(acc0), vaddvq_f32(acc1), vaddvq_f32(acc2), vaddvq_f32(acc3) };
    for (int k = 0; k < nrows && k < 4; k++) {
        s[k] = r[k];
    }
}

void gk_dot4_q8_0_q8x_dotprod(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot4(false, n, x, bx, nrows, y, s);
}

void gk_dot4_q4_0_q8x_dotprod(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot4(true, n, x, bx, nrows, y, s);
}

// ---------------------------------------------------------------------------
// weight packing: the GK_GEMM_MR tile layout, signed bytes
// ---------------------------------------------------------------------------

static inline void pack_s8(bool q4, const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq,
                           float * wd) {
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    for (int b = 0; b < nkb; b++) {
        uint8_t * o = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        float * od = wd + (size_t) b * GK_GEMM_MR;
        for (int row = 0; row < GK_GEMM_MR; row++) {
            uint32_t v[8];
            if (row < nrows) {
                const uint8_t * p = (const uint8_t *) x + (size_t) row * bx + (size_t) (b0 + b) * bsz;
                od[row] = gk_fp16_to_fp32(ld16(p));
                if (q4) {
                    const uint8x16_t raw = vld1q_u8(p + 2);
                    vst1q_u8((uint8_t *) v, vandq_u8(raw, m4));
                    vst1q_u8((uint8_t *) v + 16, vshrq_n_u8(raw, 4));
                } else {
                    __builtin_memcpy(v, p + 2, 32);
                }
            } else {
                od[row] = 0.0f;
                __builtin_memset(v, 0, sizeof(v));
            }
            // step s (values 4s..4s+3) of row r at o + 64 s + 4 r
            for (int s = 0; s < 8; s++) {
                __builtin_memcpy(o + 64 * s + 4 * row, &v[s], 4);
            }
        }
    }
}

void gk_pack_q8_0_s8_dotprod(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack_s8(false, x, bx, nrows, b0, nkb, wq, wd);
}

void gk_pack_q4_0_s8_dotprod(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack_s8(true, x, bx, nrows, b0, nkb, wq, wd);
}

// ---------------------------------------------------------------------------
// GEMM micro-kernel: 16 packed weight rows x NC (<= 2) columns
// ---------------------------------------------------------------------------

// four k4 steps (16 activation bytes) of one column: q = row quad, t = lane
#define SDOT_STEP(t)                                                                  \
    do {                                                                              \
        const uint8_t * ws = w + 64 * (4 * h + (t));                                  \
        const int8x16_t w0 = vld1q_s8((const int8_t *) ws);                           \
        const int8x16_t w1 = vld1q_s8((const int8_t *) ws + 16);                      \
        const int8x16_t w2 = vld1q_s8((const int8_t *) ws + 32);                      \
        const int8x16_t w3 = vld1q_s8((const int8_t *) ws + 48);                      \
        for (int j = 0; j < NC; j++) {                                                \
            i0[j] = vdotq_laneq_s32(i0[j], w0, av[j], t);                             \
            i1[j] = vdotq_laneq_s32(i1[j], w1, av[j], t);                             \
            i2[j] = vdotq_laneq_s32(i2[j], w2, av[j], t);                             \
            i3[j] = vdotq_laneq_s32(i3[j], w3, av[j], t);                             \
        }                                                                             \
    } while (0)

// With wm (the groups' offsets, wm[b * GK_GEMM_MR + r]) and as (the
// activation blocks' float sums, as[j * lda + b]): per block and column also
// the offsets times the column's sum (Q4_1, Q5_1, Q5_K, ...: their mins) in
// the same float step; NULL (inlined) compiles it away.
static inline __attribute__((always_inline)) void tile16(const int NC, int nkb, const uint8_t * wq, const float * wd,
                                                         const float * wm, int nrows, const gk_block_q8_0x * a,
                                                         const float * as, int64_t lda, float * c, int64_t ldc) {
    float32x4_t f[4][2];
    for (int q = 0; q < 4; q++) {
        for (int j = 0; j < NC; j++) {
            f[q][j] = vdupq_n_f32(0);
        }
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        int32x4_t i0[2], i1[2], i2[2], i3[2];
        for (int j = 0; j < NC; j++) {
            i0[j] = vdupq_n_s32(a[j * lda + b].corr);
            i1[j] = i0[j];
            i2[j] = i0[j];
            i3[j] = i0[j];
        }
        for (int h = 0; h < 2; h++) {
            int8x16_t av[2];
            for (int j = 0; j < NC; j++) {
                av[j] = vld1q_s8(a[j * lda + b].qs + 16 * h);
            }
            SDOT_STEP(0);
            SDOT_STEP(1);
            SDOT_STEP(2);
            SDOT_STEP(3);
        }
        const float * db = wd + (size_t) b * GK_GEMM_MR;
        for (int j = 0; j < NC; j++) {
            const float da = a[j * lda + b].d;
            f[0][j] = vfmaq_f32(f[0][j], vcvtq_f32_s32(i0[j]), vmulq_n_f32(vld1q_f32(db), da));
            f[1][j] = vfmaq_f32(f[1][j], vcvtq_f32_s32(i1[j]), vmulq_n_f32(vld1q_f32(db + 4), da));
            f[2][j] = vfmaq_f32(f[2][j], vcvtq_f32_s32(i2[j]), vmulq_n_f32(vld1q_f32(db + 8), da));
            f[3][j] = vfmaq_f32(f[3][j], vcvtq_f32_s32(i3[j]), vmulq_n_f32(vld1q_f32(db + 12), da));
        }
        if (wm) {
            const float * mb = wm + (size_t) b * GK_GEMM_MR;
            for (int j = 0; j < NC; j++) {
                const float s = as[j * lda + b];
                for (int q = 0; q < 4; q++) {
                    f[q][j] = vfmaq_n_f32(f[q][j], vld1q_f32(mb + 4 * q), s);
                }
            }
        }
    }
    for (int j = 0; j < NC; j++) {
        float * cj = c + j * ldc;
        if (nrows == GK_GEMM_MR) {
            for (int q = 0; q < 4; q++) {
                vst1q_f32(cj + 4 * q, vaddq_f32(vld1q_f32(cj + 4 * q), f[q][j]));
            }
        } else {
            float t[GK_GEMM_MR];
            for (int q = 0; q < 4; q++) {
                vst1q_f32(t + 4 * q, f[q][j]);
            }
            for (int r = 0; r < nrows; r++) {
                cj[r] += t[r];
            }
        }
    }
}

#undef SDOT_STEP

void gk_gemm_q8x_dotprod(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                         const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    int j = 0;
    for (; j + 2 <= ncols; j += 2) {
        tile16(2, nkb, wq, wd, NULL, nrows, a + j * lda, NULL, lda, c + j * ldc, ldc);
    }
    if (j < ncols) {
        tile16(1, nkb, wq, wd, NULL, nrows, a + j * lda, NULL, lda, c + j * ldc, ldc);
    }
}

void gk_gemm_q8x_min_dotprod(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows,
                             int ncols, const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c,
                             int64_t ldc) {
    int j = 0;
    for (; j + 2 <= ncols; j += 2) {
        tile16(2, nkb, wq, wd, wmin, nrows, a + j * lda, asum + j * lda, lda, c + j * ldc, ldc);
    }
    if (j < ncols) {
        tile16(1, nkb, wq, wd, wmin, nrows, a + j * lda, asum + j * lda, lda, c + j * ldc, ldc);
    }
}

// ---------------------------------------------------------------------------
// K-quants x Q8_K (matrix-vector and the vec_dot traits)
// ---------------------------------------------------------------------------

// Q4_K: the nibbles (0..15) are valid signed bytes for SDOT; one SDOT per 16
// values and one multiply-add per 32 (a scale group). The mins term comes
// from the activation's bsums: sum_j min_j * (bsums[2j] + bsums[2j+1]).
float gk_dot_q4_K_q8_K_dotprod(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    float32x4_t acc = vdupq_n_f32(0);
    float accm = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        uint8_t sm[16];
        gk_q4_K_scales_mins(x[i].scales, sm, sm + 8);
        const int16x8_t bs = vpaddq_s16(vld1q_s16(y[i].bsums), vld1q_s16(y[i].bsums + 8));
        const int16x8_t mn = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(sm + 8)));
        const int32x4_t pm = vmlal_s16(vmull_s16(vget_low_s16(mn), vget_low_s16(bs)), vget_high_s16(mn),
                                       vget_high_s16(bs));
        const int8_t * q8 = y[i].qs;
        int32x4_t sumi = vdupq_n_s32(0);
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            const uint8x16_t r0 = vld1q_u8(x[i].qs + 32 * c);
            const uint8x16_t r1 = vld1q_u8(x[i].qs + 32 * c + 16);
            int32x4_t lo = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(vandq_u8(r0, m4)), vld1q_s8(q8));
            lo = vdotq_s32(lo, vreinterpretq_s8_u8(vandq_u8(r1, m4)), vld1q_s8(q8 + 16));
            int32x4_t hi = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(vshrq_n_u8(r0, 4)), vld1q_s8(q8 + 32));
            hi = vdotq_s32(hi, vreinterpretq_s8_u8(vshrq_n_u8(r1, 4)), vld1q_s8(q8 + 48));
            sumi = vmlaq_n_s32(sumi, lo, sm[2 * c]);
            sumi = vmlaq_n_s32(sumi, hi, sm[2 * c + 1]);
            q8 += 64;
        }
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(sumi), y[i].d * gk_fp16_to_fp32(x[i].d));
        accm += y[i].d * gk_fp16_to_fp32(x[i].dmin) * (float) vaddvq_s32(pm);
    }
    return vaddvq_f32(acc) - accm;
}

// Q6_K: the 6-bit values (0..63) are valid signed bytes for SDOT, so each
// 16 values (one scale group) take one SDOT and one multiply-add by the
// scale; the offset 32 of every value comes off once per block through the
// activation's bsums: 32 * sum_j scale_j * bsums[j].
float gk_dot_q6_K_q8_K_dotprod(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m3 = vdupq_n_u8(0x3);
    const uint8x16_t m30 = vdupq_n_u8(0x30);
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t *  sc = x[i].scales;
        const int8_t *  q8 = y[i].qs;
        const int8x16_t sc8 = vld1q_s8(sc);
        const int16x8_t s0 = vmovl_s8(vget_low_s8(sc8)), s1 = vmovl_s8(vget_high_s8(sc8));
        const int16x8_t b0 = vld1q_s16(y[i].bsums), b1 = vld1q_s16(y[i].bsums + 8);
        int32x4_t off = vmull_s16(vget_low_s16(s0), vget_low_s16(b0));
        off = vmlal_s16(off, vget_high_s16(s0), vget_high_s16(b0));
        off = vmlal_s16(off, vget_low_s16(s1), vget_low_s16(b1));
        off = vmlal_s16(off, vget_high_s16(s1), vget_high_s16(b1));
        int32x4_t sumi = vdupq_n_s32(0);
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
#pragma GCC unroll 2
            for (int is = 0; is < 2; is++) {
                const uint8x16_t l0 = vld1q_u8(ql + 16 * is);
                const uint8x16_t l1 = vld1q_u8(ql + 32 + 16 * is);
                const uint8x16_t hb = vld1q_u8(qh + 16 * is);
                // SLI by 4 keeps the destination's low nibble
                const uint8x16_t q0 = vsliq_n_u8(l0, vandq_u8(hb, m3), 4);
                const uint8x16_t q1 = vsliq_n_u8(l1, vandq_u8(vshrq_n_u8(hb, 2), m3), 4);
                const uint8x16_t q2 = vorrq_u8(vshrq_n_u8(l0, 4), vandq_u8(hb, m30));
                const uint8x16_t q3 = vsliq_n_u8(vshrq_n_u8(l1, 4), vshrq_n_u8(hb, 6), 4);
                const int8_t * yq = q8 + 16 * is;
                const int32x4_t z = vdupq_n_s32(0);
                sumi = vmlaq_n_s32(sumi, vdotq_s32(z, vreinterpretq_s8_u8(q0), vld1q_s8(yq)), sc[is]);
                sumi = vmlaq_n_s32(sumi, vdotq_s32(z, vreinterpretq_s8_u8(q1), vld1q_s8(yq + 32)), sc[is + 2]);
                sumi = vmlaq_n_s32(sumi, vdotq_s32(z, vreinterpretq_s8_u8(q2), vld1q_s8(yq + 64)), sc[is + 4]);
                sumi = vmlaq_n_s32(sumi, vdotq_s32(z, vreinterpretq_s8_u8(q3), vld1q_s8(yq + 96)), sc[is + 6]);
            }
            ql += 64;
            qh += 32;
            sc += 8;
            q8 += 128;
        }
        sumi = vsubq_s32(sumi, vshlq_n_s32(off, 5));
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(sumi), gk_fp16_to_fp32(x[i].d) * y[i].d);
    }
    return vaddvq_f32(acc);
}
