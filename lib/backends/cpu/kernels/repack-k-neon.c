/*
 * repack-k-neon.c - the int8 GEMM on repacked Q4_K/Q6_K weight groups
 * (gk-repack.h) with the Armv8.2 dot product (SDOT by element); called only
 * when ggml_cpu_isa()->use_dotprod is set. The arithmetic of
 * repack-k-avx512.c on 16-byte vectors, each holding four values of four
 * rows: Q4_K's nibbles (0..15) split off one load into the vectors of two
 * sub-blocks, Q6_K's 6-bit values (0..63) rebuilt from a nibble and two
 * high bits; both signed bytes as they are. Q4_K's mins come off in float
 * from the activation blocks' sums, Q6_K's offset 32 through the int32
 * accumulators, which start at -32 * the sum of the activation half.
 *
 * SPDX-License-Identifier: MIT
 */
#pragma GCC target("arch=armv8.2-a+dotprod")

#include "gk-repack.h"

#include <arm_neon.h>

#define Q4K_GRP (GK_RP_ROWS * sizeof(gk_block_q4_K))
#define Q6K_GRP (GK_RP_ROWS * sizeof(gk_block_q6_K))
#define INLINE  inline __attribute__((always_inline))

// the four bytes 4m..4m+3 of v (unsigned or signed) as floats
static INLINE float32x4_t bytes4_f32(uint8x16_t v, bool sgn, int m) {
    if (sgn) {
        const int16x8_t h = m < 2 ? vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(v)))
                                  : vmovl_s8(vget_high_s8(vreinterpretq_s8_u8(v)));
        return vcvtq_f32_s32(m % 2 ? vmovl_s16(vget_high_s16(h)) : vmovl_s16(vget_low_s16(h)));
    }
    const uint16x8_t h = m < 2 ? vmovl_u8(vget_low_u8(v)) : vmovl_u8(vget_high_u8(v));
    return vcvtq_f32_u32(m % 2 ? vmovl_u16(vget_high_u16(h)) : vmovl_u16(vget_low_u16(h)));
}

static INLINE float32x4_t fp16x4(const uint8_t * p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *) p)));
}

static INLINE void store16(float * c, int nrows, float32x4_t * f) {
    if (nrows == GK_RP_ROWS) {
        for (int m = 0; m < 4; m++) {
            vst1q_f32(c + 4 * m, vaddq_f32(vld1q_f32(c + 4 * m), f[m]));
        }
        return;
    }
    float t[GK_RP_ROWS];
    for (int m = 0; m < 4; m++) {
        vst1q_f32(t + 4 * m, f[m]);
    }
    for (int r = 0; r < nrows; r++) {
        c[r] += t[r];
    }
}

// acc += w . (the four activation bytes of step s of x0/x1: s < 4 / >= 4)
#define SDOT_STEP(acc, w, x0, x1, s)                                                  \
    do {                                                                              \
        switch (s) {                                                                  \
            case 0: acc = vdotq_laneq_s32(acc, w, x0, 0); break;                      \
            case 1: acc = vdotq_laneq_s32(acc, w, x0, 1); break;                      \
            case 2: acc = vdotq_laneq_s32(acc, w, x0, 2); break;                      \
            case 3: acc = vdotq_laneq_s32(acc, w, x0, 3); break;                      \
            case 4: acc = vdotq_laneq_s32(acc, w, x1, 0); break;                      \
            case 5: acc = vdotq_laneq_s32(acc, w, x1, 1); break;                      \
            case 6: acc = vdotq_laneq_s32(acc, w, x1, 2); break;                      \
            default: acc = vdotq_laneq_s32(acc, w, x1, 3); break;                     \
        }                                                                             \
    } while (0)

// --- Q4_K ---------------------------------------------------------------------

static INLINE void q4k(const int NC, int nsb, const uint8_t * g, int nrows, const gk_block_q8_0x * a,
                       const float * as, int64_t lda, float * c, int64_t ldc) {
    const uint8x16_t m4 = vdupq_n_u8(0xF), m3 = vdupq_n_u8(3);
    float32x4_t f[2][4];
    for (int j = 0; j < NC; j++) {
        for (int m = 0; m < 4; m++) {
            f[j][m] = vdupq_n_f32(0);
        }
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q4K_GRP;
        for (int p = 0; p < 4; p++) {
            const uint8_t * q = w + GK_RPK4_QS + 512 * p;
            const int64_t blk = 8 * (int64_t) sb + 2 * p;
            int32x4_t acc[2][2][4]; // [column][sub-block 2p, 2p + 1][rows 4m..4m+3]
            int8x16_t x[2][2][2];   // [column][sub-block][values 0-15, 16-31]
            for (int j = 0; j < NC; j++) {
                for (int jj = 0; jj < 2; jj++) {
                    x[j][jj][0] = vld1q_s8(a[j * lda + blk + jj].qs);
                    x[j][jj][1] = vld1q_s8(a[j * lda + blk + jj].qs + 16);
                    for (int m = 0; m < 4; m++) {
                        acc[j][jj][m] = vdupq_n_s32(0);
                    }
                }
            }
            for (int s = 0; s < 8; s++) {
                for (int m = 0; m < 4; m++) {
                    const uint8x16_t pq = vld1q_u8(q + 64 * s + 16 * m);
                    const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(pq, m4));
                    const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(pq, 4));
                    for (int j = 0; j < NC; j++) {
                        SDOT_STEP(acc[j][0][m], lo, x[j][0][0], x[j][0][1], s);
                        SDOT_STEP(acc[j][1][m], hi, x[j][1][0], x[j][1][1], s);
                    }
                }
            }
            const uint8x16_t hb = vld1q_u8(w + GK_RPK4_SHI + 16 * p);
            for (int jj = 0; jj < 2; jj++) {
                const uint8x16_t lo = vld1q_u8(w + GK_RPK4_SLO + 16 * (2 * p + jj));
                const uint8x16_t hh = jj ? vshrq_n_u8(hb, 4) : hb;
                const uint8x16_t sc = vorrq_u8(vandq_u8(lo, m4), vshlq_n_u8(vandq_u8(hh, m3), 4));
                const uint8x16_t mn = vorrq_u8(vshrq_n_u8(lo, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hh, 2), m3), 4));
                for (int m = 0; m < 4; m++) {
                    const float32x4_t s4 = vmulq_f32(fp16x4(w + GK_RPK4_D + 8 * m), bytes4_f32(sc, false, m));
                    const float32x4_t k4 = vmulq_f32(fp16x4(w + GK_RPK4_DMIN + 8 * m), bytes4_f32(mn, false, m));
                    for (int j = 0; j < NC; j++) {
                        f[j][m] = vfmaq_f32(f[j][m], vcvtq_f32_s32(acc[j][jj][m]),
                                            vmulq_n_f32(s4, a[j * lda + blk + jj].d));
                        f[j][m] = vfmsq_f32(f[j][m], k4, vdupq_n_f32(as[j * lda + blk + jj]));
                    }
                }
            }
        }
    }
    for (int j = 0; j < NC; j++) {
        store16(c + j * ldc, nrows, f[j]);
    }
}

void gk_rp_gemm_q4_K_dotprod(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const float * as = (const float *) ext;
    int j = 0;
    for (; j + 2 <= ncols; j += 2) {
        q4k(2, nsb, g, nrows, a + j * lda, as + j * lda, lda, c + j * ldc, ldc);
    }
    if (j < ncols) {
        q4k(1, nsb, g, nrows, a + j * lda, as + j * lda, lda, c + j * ldc, ldc);
    }
}

// --- Q6_K ---------------------------------------------------------------------

static INLINE void q6k(const int NC, int nsb, const uint8_t * g, int nrows, const gk_block_q8_0x * a,
                       const int32_t * hs, int64_t lda, float * c, int64_t ldc) {
    const uint8x16_t m4 = vdupq_n_u8(0xF), m30 = vdupq_n_u8(0x30);
    float32x4_t f[2][4];
    for (int j = 0; j < NC; j++) {
        for (int m = 0; m < 4; m++) {
            f[j][m] = vdupq_n_f32(0);
        }
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q6K_GRP;
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * lo = w + GK_RPK6_QS + GK_RPK6_BLK * ib;
            const uint8_t * hi = lo + 256;
            const int64_t blk = 8 * (int64_t) sb + ib;
            int32x4_t acc[2][2][4]; // [column][sub-block: steps 0-3, 4-7][rows 4m..4m+3]
            int8x16_t x[2][2];
            for (int j = 0; j < NC; j++) {
                const int32_t * hj = hs + 2 * (j * lda + blk);
                x[j][0] = vld1q_s8(a[j * lda + blk].qs);
                x[j][1] = vld1q_s8(a[j * lda + blk].qs + 16);
                for (int m = 0; m < 4; m++) {
                    acc[j][0][m] = vdupq_n_s32(hj[0]);
                    acc[j][1][m] = vdupq_n_s32(hj[1]);
                }
            }
            for (int s = 0; s < 4; s++) {
                for (int m = 0; m < 4; m++) {
                    const uint8x16_t pq = vld1q_u8(lo + 64 * s + 16 * m);
                    const uint8x16_t hb = vld1q_u8(hi + 64 * (s % 2) + 16 * m);
                    // the high bits of step s at 2 (s / 2), of step s + 4 at 2 (s / 2) + 4
                    const uint8x16_t hl = s < 2 ? vshlq_n_u8(hb, 4) : vshlq_n_u8(hb, 2);
                    const uint8x16_t hh = s < 2 ? hb : vshrq_n_u8(hb, 2);
                    const int8x16_t wl = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(pq, m4), vandq_u8(hl, m30)));
                    const int8x16_t wh = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(pq, 4), vandq_u8(hh, m30)));
                    for (int j = 0; j < NC; j++) {
                        SDOT_STEP(acc[j][0][m], wl, x[j][0], x[j][1], s);
                        SDOT_STEP(acc[j][1][m], wh, x[j][0], x[j][1], s + 4);
                    }
                }
            }
            for (int u = 0; u < 2; u++) {
                const uint8x16_t sc = vld1q_u8(w + GK_RPK6_SC + 16 * (2 * ib + u));
                for (int m = 0; m < 4; m++) {
                    const float32x4_t s4 = vmulq_f32(fp16x4(w + GK_RPK6_D + 8 * m), bytes4_f32(sc, true, m));
                    for (int j = 0; j < NC; j++) {
                        f[j][m] = vfmaq_f32(f[j][m], vcvtq_f32_s32(acc[j][u][m]), vmulq_n_f32(s4, a[j * lda + blk].d));
                    }
                }
            }
        }
    }
    for (int j = 0; j < NC; j++) {
        store16(c + j * ldc, nrows, f[j]);
    }
}

void gk_rp_gemm_q6_K_dotprod(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const int32_t * hs = (const int32_t *) ext;
    int j = 0;
    for (; j + 2 <= ncols; j += 2) {
        q6k(2, nsb, g, nrows, a + j * lda, hs + 2 * j * lda, lda, c + j * ldc, ldc);
    }
    if (j < ncols) {
        q6k(1, nsb, g, nrows, a + j * lda, hs + 2 * j * lda, lda, c + j * ldc, ldc);
    }
}
