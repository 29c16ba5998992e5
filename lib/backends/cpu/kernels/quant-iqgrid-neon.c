/*
 * quant-iqgrid-neon.c - NEON dots of the codebook i-quants (IQ2_XXS,
 * IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S) with Q8_K activations: per 16
 * values two grid entries of magnitudes (four for the 4-value grids), the
 * sign bits expanded to a byte mask (TST) that negates the activations,
 * SMULL/SMLAL products; the integer part of the scales per group, the
 * common factor of d per block. IQ1_S's +-1/8 shift through the bsums.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-fp16.h"
#include "gk-iq-tables.h"

#include <arm_neon.h>

static inline int32x4_t dot16(int8x16_t x, int8x16_t y) {
    int16x8_t p = vmull_s8(vget_low_s8(x), vget_low_s8(y));
    p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(y));
    return vpaddlq_s16(p);
}

// magnitudes times the activations negated where bit j of byte s0 (values
// 0..7) or s1 (8..15) is set
static inline int32x4_t dot_signed(uint8x16_t mag, const int8_t * y, uint8_t s0, uint8_t s1) {
    static const uint8_t bit[16] = { 1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128 };
    const int8x16_t m = vreinterpretq_s8_u8(vtstq_u8(vcombine_u8(vdup_n_u8(s0), vdup_n_u8(s1)), vld1q_u8(bit)));
    const int8x16_t yv = vld1q_s8(y);
    return dot16(vreinterpretq_s8_u8(mag), vsubq_s8(veorq_s8(yv, m), m));
}

static inline uint8x16_t two8(uint64_t a, uint64_t b) {
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(a), vcreate_u64(b)));
}

static inline uint8x16_t four4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    const uint32_t v[4] = { a, b, c, d };
    return vreinterpretq_u8_u32(vld1q_u32(v));
}

static inline uint32_t ld32(const void * p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

float gk_dot_iq2_xxs_q8_K_neon(int64_t n, const gk_block_iq2_xxs * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const uint8_t * qs = (const uint8_t *) x[i].qs;
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * g = qs + 8 * ib;
            const uint32_t w = ld32(g + 4);
            const int8_t * q8 = y[i].qs + 32 * ib;
            int32x4_t a = dot_signed(two8(gk_iq2xxs_grid[g[0]], gk_iq2xxs_grid[g[1]]), q8,
                                     gk_ksigns_iq2xs[w & 127], gk_ksigns_iq2xs[(w >> 7) & 127]);
            a = vaddq_s32(a, dot_signed(two8(gk_iq2xxs_grid[g[2]], gk_iq2xxs_grid[g[3]]), q8 + 16,
                                        gk_ksigns_iq2xs[(w >> 14) & 127], gk_ksigns_iq2xs[(w >> 21) & 127]));
            sumi = vmlaq_n_s32(sumi, a, (int32_t) (2 * (w >> 28) + 1));
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_iq2_xs_q8_K_neon(int64_t n, const gk_block_iq2_xs * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const uint16_t * q = x[i].qs + 4 * ib;
            const int8_t * q8 = y[i].qs + 32 * ib;
            const int32x4_t a = dot_signed(two8(gk_iq2xs_grid[q[0] & 511], gk_iq2xs_grid[q[1] & 511]), q8,
                                           gk_ksigns_iq2xs[q[0] >> 9], gk_ksigns_iq2xs[q[1] >> 9]);
            const int32x4_t b = dot_signed(two8(gk_iq2xs_grid[q[2] & 511], gk_iq2xs_grid[q[3] & 511]), q8 + 16,
                                           gk_ksigns_iq2xs[q[2] >> 9], gk_ksigns_iq2xs[q[3] >> 9]);
            sumi = vmlaq_n_s32(sumi, a, 2 * (x[i].scales[ib] & 0xf) + 1);
            sumi = vmlaq_n_s32(sumi, b, 2 * (x[i].scales[ib] >> 4) + 1);
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_iq2_s_q8_K_neon(int64_t n, const gk_block_iq2_s * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 4 * ib;
            const uint8_t * sg = x[i].qs + 32 + 4 * ib;
            const int h = x[i].qh[ib];
            const int8_t * q8 = y[i].qs + 32 * ib;
            const int32x4_t a = dot_signed(two8(gk_iq2s_grid[q[0] | ((h << 8) & 0x300)], gk_iq2s_grid[q[1] | ((h << 6) & 0x300)]),
                                           q8, sg[0], sg[1]);
            const int32x4_t b = dot_signed(two8(gk_iq2s_grid[q[2] | ((h << 4) & 0x300)], gk_iq2s_grid[q[3] | ((h << 2) & 0x300)]),
                                           q8 + 16, sg[2], sg[3]);
            sumi = vmlaq_n_s32(sumi, a, 2 * (x[i].scales[ib] & 0xf) + 1);
            sumi = vmlaq_n_s32(sumi, b, 2 * (x[i].scales[ib] >> 4) + 1);
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_iq3_xxs_q8_K_neon(int64_t n, const gk_block_iq3_xxs * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 8 * ib;
            const uint32_t w = ld32(x[i].qs + 64 + 4 * ib);
            const int8_t * q8 = y[i].qs + 32 * ib;
            int32x4_t a = dot_signed(four4(gk_iq3xxs_grid[q[0]], gk_iq3xxs_grid[q[1]], gk_iq3xxs_grid[q[2]], gk_iq3xxs_grid[q[3]]),
                                     q8, gk_ksigns_iq2xs[w & 127], gk_ksigns_iq2xs[(w >> 7) & 127]);
            a = vaddq_s32(a, dot_signed(four4(gk_iq3xxs_grid[q[4]], gk_iq3xxs_grid[q[5]], gk_iq3xxs_grid[q[6]], gk_iq3xxs_grid[q[7]]),
                                        q8 + 16, gk_ksigns_iq2xs[(w >> 14) & 127], gk_ksigns_iq2xs[(w >> 21) & 127]));
            sumi = vmlaq_n_s32(sumi, a, (int32_t) (2 * (w >> 28) + 1));
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.25f * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_iq3_s_q8_K_neon(int64_t n, const gk_block_iq3_s * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 8 * ib;
            const uint8_t * sg = x[i].signs + 4 * ib;
            const int h = x[i].qh[ib];
            uint32_t g[8];
            for (int k = 0; k < 8; k++) {
                g[k] = gk_iq3s_grid[q[k] | (((h >> k) & 1) << 8)];
            }
            const int8_t * q8 = y[i].qs + 32 * ib;
            int32x4_t a = dot_signed(four4(g[0], g[1], g[2], g[3]), q8, sg[0], sg[1]);
            a = vaddq_s32(a, dot_signed(four4(g[4], g[5], g[6], g[7]), q8 + 16, sg[2], sg[3]));
            sumi = vmlaq_n_s32(sumi, a, 2 * ((x[i].scales[ib / 2] >> (4 * (ib % 2))) & 0xf) + 1);
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_iq1_s_q8_K_neon(int64_t n, const gk_block_iq1_s * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        int32_t shift = 0;
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 4 * ib;
            const int h = x[i].qh[ib];
            const int8_t * q8 = y[i].qs + 32 * ib;
            const int8x16_t g0 = vreinterpretq_s8_u8(two8(gk_iq1s_grid[q[0] | ((h & 7) << 8)], gk_iq1s_grid[q[1] | (((h >> 3) & 7) << 8)]));
            const int8x16_t g1 = vreinterpretq_s8_u8(two8(gk_iq1s_grid[q[2] | (((h >> 6) & 7) << 8)], gk_iq1s_grid[q[3] | (((h >> 9) & 7) << 8)]));
            const int32x4_t a = vaddq_s32(dot16(g0, vld1q_s8(q8)), dot16(g1, vld1q_s8(q8 + 16)));
            const int m = 2 * ((h >> 12) & 7) + 1;
            sumi = vmlaq_n_s32(sumi, a, 8 * m);
            shift += (h & 0x8000 ? -m : m) * (y[i].bsums[2 * ib] + y[i].bsums[2 * ib + 1]);
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f * (float) (vaddvq_s32(sumi) + shift);
    }
    return s;
}
