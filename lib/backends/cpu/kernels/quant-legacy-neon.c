/*
 * quant-legacy-neon.c - NEON dots of the 32-value legacy types: Q4_1 and
 * Q5_1 with Q8_1 (the min times the activations' sum), Q5_0 with Q8_0,
 * Q8_1 with Q8_1 (AArch64 base: SMULL/SMLAL).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-fp16.h"

#include <arm_neon.h>

static inline int32x4_t dot16(int8x16_t x, int8x16_t y) {
    int16x8_t p = vmull_s8(vget_low_s8(x), vget_low_s8(y));
    p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(y));
    return vpaddlq_s16(p);
}

// the fifth bits of values 16h..16h+15 (bit j of the word qh) as 0x10 bytes
static inline uint8x16_t fifth16(const uint8_t * qh, int h) {
    static const uint8_t bit[16] = { 1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128 };
    const uint8x8_t b0 = vdup_n_u8(qh[2 * h]), b1 = vdup_n_u8(qh[2 * h + 1]);
    const uint8x16_t v = vcombine_u8(b0, b1);
    const uint8x16_t set = vtstq_u8(v, vld1q_u8(bit));
    return vandq_u8(set, vdupq_n_u8(0x10));
}

// x = weight values as unsigned bytes (two halves), y: 32 activations
static inline float q_affine(uint8x16_t lo, uint8x16_t hi, float dx, float mx, const gk_block_q8_1 * yb) {
    const int8x16_t y0 = vld1q_s8(yb->qs), y1 = vld1q_s8(yb->qs + 16);
    const int32x4_t si = vaddq_s32(dot16(vreinterpretq_s8_u8(lo), y0), dot16(vreinterpretq_s8_u8(hi), y1));
    const int sy = vaddlvq_s8(y0) + vaddlvq_s8(y1);
    const float dy = gk_fp16_to_fp32(yb->d);
    return dx * dy * (float) vaddvq_s32(si) + mx * dy * (float) sy;
}

float gk_dot_q4_1_q8_1_neon(int64_t n, const gk_block_q4_1 * x, const gk_block_q8_1 * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xf);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK4_1; i++) {
        const uint8x16_t raw = vld1q_u8(x[i].qs);
        s += q_affine(vandq_u8(raw, m4), vshrq_n_u8(raw, 4), gk_fp16_to_fp32(x[i].d), gk_fp16_to_fp32(x[i].m), &y[i]);
    }
    return s;
}

float gk_dot_q5_1_q8_1_neon(int64_t n, const gk_block_q5_1 * x, const gk_block_q8_1 * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xf);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK5_1; i++) {
        const uint8x16_t raw = vld1q_u8(x[i].qs);
        const uint8x16_t lo = vorrq_u8(vandq_u8(raw, m4), fifth16(x[i].qh, 0));
        const uint8x16_t hi = vorrq_u8(vshrq_n_u8(raw, 4), fifth16(x[i].qh, 1));
        s += q_affine(lo, hi, gk_fp16_to_fp32(x[i].d), gk_fp16_to_fp32(x[i].m), &y[i]);
    }
    return s;
}

float gk_dot_q5_0_q8_0_neon(int64_t n, const gk_block_q5_0 * x, const gk_block_q8_0 * y) {
    const uint8x16_t m4 = vdupq_n_u8(0xf);
    const int8x16_t k16 = vdupq_n_s8(16);
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK5_0; i++) {
        const uint8x16_t raw = vld1q_u8(x[i].qs);
        const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vandq_u8(raw, m4), fifth16(x[i].qh, 0))), k16);
        const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(raw, 4), fifth16(x[i].qh, 1))), k16);
        const int32x4_t si = vaddq_s32(dot16(lo, vld1q_s8(y[i].qs)), dot16(hi, vld1q_s8(y[i].qs + 16)));
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(si), gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d));
    }
    return vaddvq_f32(acc);
}

float gk_dot_q8_1_q8_1_neon(int64_t n, const gk_block_q8_1 * x, const gk_block_q8_1 * y) {
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        const int32x4_t si = vaddq_s32(dot16(vld1q_s8(x[i].qs), vld1q_s8(y[i].qs)),
                                       dot16(vld1q_s8(x[i].qs + 16), vld1q_s8(y[i].qs + 16)));
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(si), gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d));
    }
    return vaddvq_f32(acc);
}
