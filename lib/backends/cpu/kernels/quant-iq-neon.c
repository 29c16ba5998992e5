/*
 * quant-iq-neon.c - NEON dots of IQ4_NL and MXFP4 (with Q8_0) and IQ4_XS
 * (with Q8_K):
 * the nibbles become their int8 values through a TBL lookup of the
 * 16-entry table.
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

// sum over 32 values of 16 nibble bytes (low nibbles first) times y
static inline int32x4_t dot_nl32(const uint8_t * qs, const int8_t * y, int8x16_t tbl) {
    const uint8x16_t raw = vld1q_u8(qs);
    const int8x16_t lo = vqtbl1q_s8(tbl, vandq_u8(raw, vdupq_n_u8(0xf)));
    const int8x16_t hi = vqtbl1q_s8(tbl, vshrq_n_u8(raw, 4));
    return vaddq_s32(dot16(lo, vld1q_s8(y)), dot16(hi, vld1q_s8(y + 16)));
}

float gk_dot_iq4_nl_q8_0_neon(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y) {
    const int8x16_t tbl = vld1q_s8(gk_kvalues_iq4nl);
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK4_NL; i++) {
        const int32x4_t s = dot_nl32(x[i].qs, y[i].qs, tbl);
        const float d = gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(s), d);
    }
    return vaddvq_f32(acc);
}

float gk_dot_mxfp4_q8_0_neon(int64_t n, const gk_block_mxfp4 * x, const gk_block_q8_0 * y) {
    const int8x16_t tbl = vld1q_s8(gk_kvalues_fp4);
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / GK_QK_MXFP4; i++) {
        const int32x4_t s = dot_nl32(x[i].qs, y[i].qs, tbl);
        const float d = gk_e8m0_half_to_fp32(x[i].e) * gk_fp16_to_fp32(y[i].d);
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(s), d);
    }
    return vaddvq_f32(acc);
}

float gk_dot_iq4_xs_q8_K_neon(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y) {
    const int8x16_t tbl = vld1q_s8(gk_kvalues_iq4nl);
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int32x4_t sumi = vdupq_n_s32(0);
        for (int ib = 0; ib < 8; ib++) {
            const int ls = ((x[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((x[i].scales_h >> (2 * ib)) & 3) << 4);
            sumi = vmlaq_n_s32(sumi, dot_nl32(x[i].qs + 16 * ib, y[i].qs + 32 * ib, tbl), ls - 32);
        }
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * (float) vaddvq_s32(sumi);
    }
    return s;
}
