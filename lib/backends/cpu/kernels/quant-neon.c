/*
 * quant-neon.c - NEON quantized dot products (AArch64 base: no SDOT, so the
 * int8 products widen with SMULL/SMLAL and accumulate pairwise).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"

#include <arm_neon.h>

// sum of x*y over 16 signed bytes, as 4 int32 lanes
static inline int32x4_t dot16(int8x16_t x, int8x16_t y) {
    int16x8_t p = vmull_s8(vget_low_s8(x), vget_low_s8(y));
    p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(y));
    return vpaddlq_s16(p);
}

float gk_dot_q8_0_q8_0_neon(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y) {
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        int32x4_t s = dot16(vld1q_s8(x[i].qs), vld1q_s8(y[i].qs));
        s = vaddq_s32(s, dot16(vld1q_s8(x[i].qs + 16), vld1q_s8(y[i].qs + 16)));
        const float d = gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(s), d);
    }
    return vaddvq_f32(acc);
}

float gk_dot_q4_0_q8_0_neon(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y) {
    float32x4_t acc = vdupq_n_f32(0);
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    const int8x16_t  s8 = vdupq_n_s8(8);
    for (int64_t i = 0; i < n / GK_QK4_0; i++) {
        const uint8x16_t raw = vld1q_u8(x[i].qs);
        const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(raw, m4)), s8);
        const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(raw, 4)), s8);
        int32x4_t s = dot16(lo, vld1q_s8(y[i].qs));
        s = vaddq_s32(s, dot16(hi, vld1q_s8(y[i].qs + 16)));
        const float d = gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(s), d);
    }
    return vaddvq_f32(acc);
}

float gk_dot_q4_K_q8_K_neon(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int summ = 0;
        int32x4_t sumi = vdupq_n_s32(0);
        for (int c = 0; c < 4; c++) {
            uint8_t sc0, sc1, m0, m1;
            gk_q4_K_scale_min(2 * c, x[i].scales, &sc0, &m0);
            gk_q4_K_scale_min(2 * c + 1, x[i].scales, &sc1, &m1);
            summ += m0 * (y[i].bsums[4 * c] + y[i].bsums[4 * c + 1]);
            summ += m1 * (y[i].bsums[4 * c + 2] + y[i].bsums[4 * c + 3]);
            const int8_t * q8 = y[i].qs + 64 * c;
            int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
            for (int h = 0; h < 2; h++) {
                const uint8x16_t raw = vld1q_u8(x[i].qs + 32 * c + 16 * h);
                a = vaddq_s32(a, dot16(vreinterpretq_s8_u8(vandq_u8(raw, m4)), vld1q_s8(q8 + 16 * h)));
                b = vaddq_s32(b, dot16(vreinterpretq_s8_u8(vshrq_n_u8(raw, 4)), vld1q_s8(q8 + 32 + 16 * h)));
            }
            sumi = vmlaq_n_s32(sumi, a, sc0);
            sumi = vmlaq_n_s32(sumi, b, sc1);
        }
        const float d    = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        s += d * (float) vaddvq_s32(sumi) - dmin * (float) summ;
    }
    return s;
}

float gk_dot_q6_K_q8_K_neon(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    const uint8x16_t m3 = vdupq_n_u8(3);
    const int8x16_t  k32 = vdupq_n_s8(32);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t *  sc = x[i].scales;
        const int8_t *  q8 = y[i].qs;
        int32x4_t sumi = vdupq_n_s32(0);
        for (int h = 0; h < 2; h++) {
            for (int is = 0; is < 2; is++) { // 16 of the 32 columns at a time
                const uint8x16_t l0 = vld1q_u8(ql + 16 * is);
                const uint8x16_t l1 = vld1q_u8(ql + 32 + 16 * is);
                const uint8x16_t hb = vld1q_u8(qh + 16 * is);
                int8x16_t q[4];
                q[0] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(l0, m4), vshlq_n_u8(vandq_u8(hb, m3), 4)));
                q[1] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(l1, m4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 2), m3), 4)));
                q[2] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(l0, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 4), m3), 4)));
                q[3] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(l1, 4), vshlq_n_u8(vshrq_n_u8(hb, 6), 4)));
                for (int g = 0; g < 4; g++) {
                    const int32x4_t p = dot16(vsubq_s8(q[g], k32), vld1q_s8(q8 + 32 * g + 16 * is));
                    sumi = vmlaq_n_s32(sumi, p, sc[is + 2 * g]);
                }
            }
            ql += 64;
            qh += 32;
            sc += 8;
            q8 += 128;
        }
        s += gk_fp16_to_fp32(x[i].d) * y[i].d * (float) vaddvq_s32(sumi);
    }
    return s;
}

// Four Q8_0 rows (bx bytes apart) with one Q8_0 activation row.
void gk_dot4_q8_0_q8_0_neon(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s) {
    float32x4_t acc[4] = { vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0) };
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const int8x16_t y0 = vld1q_s8(y[i].qs), y1 = vld1q_s8(y[i].qs + 16);
        const float dy = gk_fp16_to_fp32(y[i].d);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            const gk_block_q8_0 * b = (const gk_block_q8_0 *) ((const char *) x + r * bx) + i;
            const int32x4_t p = vaddq_s32(dot16(vld1q_s8(b->qs), y0), dot16(vld1q_s8(b->qs + 16), y1));
            acc[r] = vmlaq_n_f32(acc[r], vcvtq_f32_s32(p), gk_fp16_to_fp32(b->d) * dy);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        s[r] = vaddvq_f32(acc[r]);
    }
}

// Four Q4_0 rows with one Q8_0 activation row.
void gk_dot4_q4_0_q8_0_neon(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s) {
    const uint8x16_t m4 = vdupq_n_u8(0xF);
    const int8x16_t  s8 = vdupq_n_s8(8);
    float32x4_t acc[4] = { vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0) };
    for (int64_t i = 0; i < n / GK_QK4_0; i++) {
        const int8x16_t y0 = vld1q_s8(y[i].qs), y1 = vld1q_s8(y[i].qs + 16);
        const float dy = gk_fp16_to_fp32(y[i].d);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            const gk_block_q4_0 * b = (const gk_block_q4_0 *) ((const char *) x + r * bx) + i;
            const uint8x16_t raw = vld1q_u8(b->qs);
            const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(raw, m4)), s8);
            const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(raw, 4)), s8);
            const int32x4_t p = vaddq_s32(dot16(lo, y0), dot16(hi, y1));
            acc[r] = vmlaq_n_f32(acc[r], vcvtq_f32_s32(p), gk_fp16_to_fp32(b->d) * dy);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        s[r] = vaddvq_f32(acc[r]);
    }
}
