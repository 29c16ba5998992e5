/*
 * quant-k-neon.c - NEON dots of Q2_K, Q3_K and Q5_K weights with Q8_K
 * activations (AArch64 base: the int8 products widen with SMULL/SMLAL);
 * integer sums per group of 16 scaled by the group's integer scale, the
 * block's scales applied in float.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-fp16.h"

#include <arm_neon.h>

// sum of x*y over 16 signed bytes (|x*y| <= 127 * 127), as 4 int32 lanes
static inline int32x4_t dot16(int8x16_t x, int8x16_t y) {
    int16x8_t p = vmull_s8(vget_low_s8(x), vget_low_s8(y));
    p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(y));
    return vpaddlq_s16(p);
}

float gk_dot_q2_K_q8_K_neon(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m3 = vdupq_n_u8(3);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int summ = 0;
        for (int g = 0; g < 16; g++) {
            summ += (x[i].scales[g] >> 4) * y[i].bsums[g];
        }
        int32x4_t sumi = vdupq_n_s32(0);
        for (int h = 0; h < 2; h++) {
            const uint8x16_t q0 = vld1q_u8(x[i].qs + 32 * h);
            const uint8x16_t q1 = vld1q_u8(x[i].qs + 32 * h + 16);
            for (int j = 0; j < 4; j++) {
                const int8x16_t shift = vdupq_n_s8((int8_t) (-2 * j));
                const int8x16_t v0 = vreinterpretq_s8_u8(vandq_u8(vshlq_u8(q0, shift), m3));
                const int8x16_t v1 = vreinterpretq_s8_u8(vandq_u8(vshlq_u8(q1, shift), m3));
                const int8_t * q8 = y[i].qs + 128 * h + 32 * j;
                const int g = 8 * h + 2 * j;
                sumi = vmlaq_n_s32(sumi, dot16(v0, vld1q_s8(q8)), x[i].scales[g] & 0xf);
                sumi = vmlaq_n_s32(sumi, dot16(v1, vld1q_s8(q8 + 16)), x[i].scales[g + 1] & 0xf);
            }
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        s += d * (float) vaddvq_s32(sumi) - dmin * (float) summ;
    }
    return s;
}

float gk_dot_q3_K_q8_K_neon(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m3 = vdupq_n_u8(3);
    const uint8x16_t m1 = vdupq_n_u8(1);
    const int8x16_t k4 = vdupq_n_s8(4);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int sc[16];
        for (int g = 0; g < 16; g++) {
            const int lo = g < 8 ? x[i].scales[g] & 0xf : x[i].scales[g - 8] >> 4;
            const int hi = (x[i].scales[8 + g % 4] >> (2 * (g / 4))) & 3;
            sc[g] = (lo | (hi << 4)) - 32;
        }
        const uint8x16_t hm0 = vld1q_u8(x[i].hmask), hm1 = vld1q_u8(x[i].hmask + 16);
        int32x4_t sumi = vdupq_n_s32(0);
        for (int h = 0; h < 2; h++) {
            const uint8x16_t q0 = vld1q_u8(x[i].qs + 32 * h);
            const uint8x16_t q1 = vld1q_u8(x[i].qs + 32 * h + 16);
            for (int j = 0; j < 4; j++) {
                const int8x16_t shift = vdupq_n_s8((int8_t) (-2 * j));
                const int8x16_t hshift = vdupq_n_s8((int8_t) (-(4 * h + j)));
                // q = low 2 bits + 4 * high bit - 4, in -4..3
                const uint8x16_t u0 = vorrq_u8(vandq_u8(vshlq_u8(q0, shift), m3), vshlq_n_u8(vandq_u8(vshlq_u8(hm0, hshift), m1), 2));
                const uint8x16_t u1 = vorrq_u8(vandq_u8(vshlq_u8(q1, shift), m3), vshlq_n_u8(vandq_u8(vshlq_u8(hm1, hshift), m1), 2));
                const int8_t * q8 = y[i].qs + 128 * h + 32 * j;
                const int g = 8 * h + 2 * j;
                sumi = vmlaq_n_s32(sumi, dot16(vsubq_s8(vreinterpretq_s8_u8(u0), k4), vld1q_s8(q8)), sc[g]);
                sumi = vmlaq_n_s32(sumi, dot16(vsubq_s8(vreinterpretq_s8_u8(u1), k4), vld1q_s8(q8 + 16)), sc[g + 1]);
            }
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * (float) vaddvq_s32(sumi);
    }
    return s;
}

float gk_dot_q5_K_q8_K_neon(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xf);
    const uint8x16_t m1 = vdupq_n_u8(1);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        uint8_t sc[8], mn[8];
        gk_q4_K_scales_mins(x[i].scales, sc, mn);
        int summ = 0;
        for (int j = 0; j < 8; j++) {
            summ += mn[j] * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]);
        }
        const uint8x16_t hb[2] = { vld1q_u8(x[i].qh), vld1q_u8(x[i].qh + 16) };
        int32x4_t sumi = vdupq_n_s32(0);
        for (int c = 0; c < 4; c++) {
            const int8x16_t s0 = vdupq_n_s8((int8_t) (-2 * c)), s1 = vdupq_n_s8((int8_t) (-2 * c - 1));
            int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
            for (int hh = 0; hh < 2; hh++) {
                const uint8x16_t raw = vld1q_u8(x[i].qs + 32 * c + 16 * hh);
                const uint8x16_t h0 = vshlq_n_u8(vandq_u8(vshlq_u8(hb[hh], s0), m1), 4);
                const uint8x16_t h1 = vshlq_n_u8(vandq_u8(vshlq_u8(hb[hh], s1), m1), 4);
                const int8x16_t v0 = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(raw, m4), h0));
                const int8x16_t v1 = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(raw, 4), h1));
                a = vaddq_s32(a, dot16(v0, vld1q_s8(y[i].qs + 64 * c + 16 * hh)));
                b = vaddq_s32(b, dot16(v1, vld1q_s8(y[i].qs + 64 * c + 32 + 16 * hh)));
            }
            sumi = vmlaq_n_s32(sumi, a, sc[2 * c]);
            sumi = vmlaq_n_s32(sumi, b, sc[2 * c + 1]);
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        s += d * (float) vaddvq_s32(sumi) - dmin * (float) summ;
    }
    return s;
}
