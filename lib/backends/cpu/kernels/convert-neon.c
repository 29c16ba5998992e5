/*
 * convert-neon.c - NEON row conversions (AArch64, where NEON and the
 * half-precision conversion instructions are always present).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-convert.h"
#include "gk-fp16.h"

#include <arm_neon.h>

void gk_fp16_to_fp32_row_neon(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float16x4_t h = vreinterpret_f16_u16(vld1_u16(x + i));
        vst1q_f32(y + i, vcvt_f32_f16(h));
    }
    for (; i < n; i++) {
        y[i] = gk_fp16_to_fp32(x[i]);
    }
}

void gk_fp32_to_fp16_row_neon(const float * x, uint16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float16x4_t h = vcvt_f16_f32(vld1q_f32(x + i));
        vst1_u16(y + i, vreinterpret_u16_f16(h));
    }
    for (; i < n; i++) {
        y[i] = gk_fp32_to_fp16(x[i]);
    }
}

void gk_bf16_to_fp32_row_neon(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t w = vshll_n_u16(vld1_u16(x + i), 16);
        vst1q_f32(y + i, vreinterpretq_f32_u32(w));
    }
    for (; i < n; i++) {
        y[i] = gk_bf16_to_fp32(x[i]);
    }
}

void gk_fp32_to_bf16_row_neon(const float * x, uint16_t * y, int64_t n) {
    const uint32x4_t abs_mask = vdupq_n_u32(0x7fffffff);
    const uint32x4_t inf      = vdupq_n_u32(0x7f800000);
    const uint32x4_t bias     = vdupq_n_u32(0x7fff);
    const uint32x4_t one      = vdupq_n_u32(1);
    const uint32x4_t quiet    = vdupq_n_u32(0x400000);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t u   = vreinterpretq_u32_f32(vld1q_f32(x + i));
        uint32x4_t nan = vcgtq_u32(vandq_u32(u, abs_mask), inf);
        uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), one);
        uint32x4_t rnd = vaddq_u32(u, vaddq_u32(bias, lsb));
        uint32x4_t r   = vbslq_u32(nan, vorrq_u32(u, quiet), rnd);
        vst1_u16(y + i, vshrn_n_u32(r, 16));
    }
    for (; i < n; i++) {
        y[i] = gk_fp32_to_bf16(x[i]);
    }
}
