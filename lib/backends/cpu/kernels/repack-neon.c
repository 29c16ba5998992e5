/*
 * repack-neon.c - the int8 GEMM on repacked Q8_0/Q4_0 weight groups
 * (gk-repack.h) with the Armv8.2 dot product (SDOT by element); called only
 * when ggml_cpu_isa()->use_dotprod is set. The arithmetic of
 * gk_gemm_q8x_dotprod (quant-dotprod-neon.c), reading the weights where
 * they are stored: a 16-byte vector holds four values of four rows; Q8_0
 * bytes are signed as they are, Q4_0 nibbles (0..15, the offset 8 taken off
 * by the activations' corr) split off one load into the vectors of steps s
 * and s + 4; the 16 fp16 scales of a block converted four at a time.
 *
 * SPDX-License-Identifier: MIT
 */
#pragma GCC target("arch=armv8.2-a+dotprod")

#include "gk-repack.h"

#include <arm_neon.h>

static inline __attribute__((always_inline)) void grp16(const bool q4, const int NC, int nkb, const uint8_t * g,
                                                        int nrows, const gk_block_q8_0x * a, int64_t lda,
                                                        float * c, int64_t ldc) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    float32x4_t f[4][2];
    for (int m = 0; m < 4; m++) {
        for (int j = 0; j < NC; j++) {
            f[m][j] = vdupq_n_f32(0);
        }
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = g + (size_t) b * gsz;
        const uint8_t * q = w + 2 * GK_RP_ROWS;
        __builtin_prefetch(w + 1024);
        int32x4_t acc[4][2];
        int8x16_t a0[2], a1[2];
        for (int j = 0; j < NC; j++) {
            for (int m = 0; m < 4; m++) {
                acc[m][j] = vdupq_n_s32(a[j * lda + b].corr);
            }
            a0[j] = vld1q_s8(a[j * lda + b].qs);
            a1[j] = vld1q_s8(a[j * lda + b].qs + 16);
        }
#define RP_LANE(t)                                                                                   \
        do {                                                                                         \
            if (q4) {                                                                                \
                for (int m = 0; m < 4; m++) {                                                        \
                    const uint8x16_t p = vld1q_u8(q + 64 * (t) + 16 * m);                            \
                    const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(p, m4));                       \
                    const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(p, 4));                      \
                    for (int j = 0; j < NC; j++) {                                                   \
                        acc[m][j] = vdotq_laneq_s32(acc[m][j], lo, a0[j], t);                        \
                        acc[m][j] = vdotq_laneq_s32(acc[m][j], hi, a1[j], t);                        \
                    }                                                                                \
                }                                                                                    \
            } else {                                                                                 \
                for (int m = 0; m < 4; m++) {                                                        \
                    const int8x16_t lo = vld1q_s8((const int8_t *) q + 64 * (t) + 16 * m);           \
                    const int8x16_t hi = vld1q_s8((const int8_t *) q + 64 * ((t) + 4) + 16 * m);     \
                    for (int j = 0; j < NC; j++) {                                                   \
                        acc[m][j] = vdotq_laneq_s32(acc[m][j], lo, a0[j], t);                        \
                        acc[m][j] = vdotq_laneq_s32(acc[m][j], hi, a1[j], t);                        \
                    }                                                                                \
                }                                                                                    \
            }                                                                                        \
        } while (0)
        RP_LANE(0);
        RP_LANE(1);
        RP_LANE(2);
        RP_LANE(3);
#undef RP_LANE
        for (int m = 0; m < 4; m++) {
            const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *) w + 4 * m)));
            for (int j = 0; j < NC; j++) {
                f[m][j] = vfmaq_f32(f[m][j], vcvtq_f32_s32(acc[m][j]), vmulq_n_f32(dw, a[j * lda + b].d));
            }
        }
    }
    for (int j = 0; j < NC; j++) {
        float * cj = c + j * ldc;
        if (nrows == GK_RP_ROWS) {
            for (int m = 0; m < 4; m++) {
                vst1q_f32(cj + 4 * m, vaddq_f32(vld1q_f32(cj + 4 * m), f[m][j]));
            }
        } else {
            float t[GK_RP_ROWS];
            for (int m = 0; m < 4; m++) {
                vst1q_f32(t + 4 * m, f[m][j]);
            }
            for (int r = 0; r < nrows; r++) {
                cj[r] += t[r];
            }
        }
    }
}

static inline __attribute__((always_inline)) void gemm(const bool q4, int nkb, const void * grp, int nrows,
                                                       int ncols, const gk_block_q8_0x * a, int64_t lda,
                                                       float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    int j = 0;
    for (; j + 2 <= ncols; j += 2) {
        grp16(q4, 2, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc);
    }
    if (j < ncols) {
        grp16(q4, 1, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc);
    }
}

void gk_rp_gemm_q8_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc) {
    gemm(false, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

void gk_rp_gemm_q4_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc) {
    gemm(true, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

// The matrix-vector product on ng (<= GK_RP_STREAMS) full groups at once:
// block b of every group read in the same loop iteration (ng memory
// streams; a core reading one sequential stream need not get the DRAM
// bandwidth it gets from several). Per group the arithmetic of grp16 with
// one column, so that the results are the same to the bit; the groups one
// after the other within a block (16 float accumulators of four groups,
// four integer ones of the group at hand).
static inline __attribute__((always_inline)) void grpv(const bool q4, const int NG, int nkb,
                                                       const void * const * grp, const gk_block_q8_0x * a,
                                                       float * const * c) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    float32x4_t f[GK_RP_STREAMS][4];
    for (int g = 0; g < NG; g++) {
        for (int m = 0; m < 4; m++) {
            f[g][m] = vdupq_n_f32(0);
        }
    }
    for (int b = 0; b < nkb; b++) {
        const int8x16_t a0 = vld1q_s8(a[b].qs);
        const int8x16_t a1 = vld1q_s8(a[b].qs + 16);
        for (int g = 0; g < NG; g++) {
            const uint8_t * w = (const uint8_t *) grp[g] + (size_t) b * gsz;
            const uint8_t * q = w + 2 * GK_RP_ROWS;
            __builtin_prefetch(w + 1024);
            int32x4_t acc[4];
            for (int m = 0; m < 4; m++) {
                acc[m] = vdupq_n_s32(a[b].corr);
            }
#define RP_LANE(t)                                                                                   \
            do {                                                                                     \
                for (int m = 0; m < 4; m++) {                                                        \
                    int8x16_t lo, hi;                                                                \
                    if (q4) {                                                                        \
                        const uint8x16_t p = vld1q_u8(q + 64 * (t) + 16 * m);                        \
                        lo = vreinterpretq_s8_u8(vandq_u8(p, m4));                                   \
                        hi = vreinterpretq_s8_u8(vshrq_n_u8(p, 4));                                  \
                    } else {                                                                         \
                        lo = vld1q_s8((const int8_t *) q + 64 * (t) + 16 * m);                       \
                        hi = vld1q_s8((const int8_t *) q + 64 * ((t) + 4) + 16 * m);                 \
                    }                                                                                \
                    acc[m] = vdotq_laneq_s32(acc[m], lo, a0, t);                                     \
                    acc[m] = vdotq_laneq_s32(acc[m], hi, a1, t);                                     \
                }                                                                                    \
            } while (0)
            RP_LANE(0);
            RP_LANE(1);
            RP_LANE(2);
            RP_LANE(3);
#undef RP_LANE
            for (int m = 0; m < 4; m++) {
                const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *) w + 4 * m)));
                f[g][m] = vfmaq_f32(f[g][m], vcvtq_f32_s32(acc[m]), vmulq_n_f32(dw, a[b].d));
            }
        }
    }
    for (int g = 0; g < NG; g++) {
        for (int m = 0; m < 4; m++) {
            vst1q_f32(c[g] + 4 * m, vaddq_f32(vld1q_f32(c[g] + 4 * m), f[g][m]));
        }
    }
}

GK_RP_GEMV_ENTRIES(dotprod)
