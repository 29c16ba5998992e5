/*
 * quant-act-neon.c - NEON activation quantizers: F32 rows to Q8_0, Q8_0x
 * (the SDOT kernels' form) and Q8_K blocks, the same bytes as the portable
 * gk_quantize_row_q8_0 and gk_quantize_row_q8_K.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-quant-ext.h"
#include "gk-fp16.h"

#include <arm_neon.h>

// (int) (t + (t >= 0 ? 0.5 : -0.5)), as gk_iroundf: the sign of t on 0.5
// (a -0 product gives -0.5, which truncates to 0 as well)
static inline int32x4_t round_half_away(float32x4_t t) {
    const uint32x4_t signmask = vdupq_n_u32(0x80000000u);
    return vcvtq_s32_f32(vaddq_f32(t, vbslq_f32(signmask, t, vdupq_n_f32(0.5f))));
}

// the 32 values of xb times id, rounded, as bytes; *sum: their sum
static inline void q8_block(const float * xb, float id, int8_t * qs, int32_t * sum) {
    int32x4_t s = vdupq_n_s32(0);
    for (int j = 0; j < GK_QK8_0; j += 16) {
        const int32x4_t q0 = round_half_away(vmulq_n_f32(vld1q_f32(xb + j), id));
        const int32x4_t q1 = round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 4), id));
        const int32x4_t q2 = round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 8), id));
        const int32x4_t q3 = round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 12), id));
        const int16x8_t h0 = vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1));
        const int16x8_t h1 = vcombine_s16(vqmovn_s32(q2), vqmovn_s32(q3));
        vst1q_s8(qs + j, vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1)));
        s = vaddq_s32(s, vaddq_s32(vaddq_s32(q0, q1), vaddq_s32(q2, q3)));
    }
    *sum = vaddvq_s32(s);
}

static inline float block_amax(const float * xb) {
    float32x4_t m = vabsq_f32(vld1q_f32(xb));
    for (int j = 4; j < GK_QK8_0; j += 4) {
        m = vmaxq_f32(m, vabsq_f32(vld1q_f32(xb + j)));
    }
    return vmaxvq_f32(m);
}

void gk_quantize_row_q8_0_neon(const float * x, gk_block_q8_0 * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const float * xb = x + i * GK_QK8_0;
        const float d = block_amax(xb) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        int32_t sum;
        y[i].d = gk_fp32_to_fp16(d);
        q8_block(xb, id, y[i].qs, &sum);
    }
}

void gk_quantize_row_q8_1_neon(const float * x, gk_block_q8_1 * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        const float * xb = x + i * GK_QK8_1;
        const float d = block_amax(xb) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        int32_t sum;
        q8_block(xb, id, y[i].qs, &sum);
        y[i].d = gk_fp32_to_fp16(d);
        y[i].s = gk_fp32_to_fp16((float) sum * d);
    }
}

void gk_quantize_row_q8_0x_neon(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off) {
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const float * xb = x + i * GK_QK8_0;
        const float d = block_amax(xb) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        int32_t sum;
        q8_block(xb, id, y[i].qs, &sum);
        y[i].d = gk_fp16_to_fp32(gk_fp32_to_fp16(d));
        y[i].corr = -off * sum;
    }
}

void gk_quantize_row_q8_K_neon(const float * x, gk_block_q8_K * y, int64_t n) {
    const int32x4_t cap = vdupq_n_s32(127);
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float * xb = x + i * GK_QK_K;
        float32x4_t m0 = vdupq_n_f32(0), m1 = m0;
        for (int j = 0; j < GK_QK_K; j += 8) {
            m0 = vmaxq_f32(m0, vabsq_f32(vld1q_f32(xb + j)));
            m1 = vmaxq_f32(m1, vabsq_f32(vld1q_f32(xb + j + 4)));
        }
        const float amax = vmaxvq_f32(vmaxq_f32(m0, m1));
        if (amax == 0.0f) {
            __builtin_memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        // the first value of that magnitude, with its sign (as the reference scans)
        const float32x4_t va = vdupq_n_f32(amax);
        int at = 0;
        for (int j = 0; j < GK_QK_K; j += 4) {
            if (vmaxvq_u32(vceqq_f32(vabsq_f32(vld1q_f32(xb + j)), va)) != 0) {
                at = j;
                while (__builtin_fabsf(xb[at]) != amax) {
                    at++;
                }
                break;
            }
        }
        const float iscale = -127.0f / xb[at];
        for (int j = 0; j < GK_QK_K; j += 16) {
            const int32x4_t q0 = vminq_s32(round_half_away(vmulq_n_f32(vld1q_f32(xb + j), iscale)), cap);
            const int32x4_t q1 = vminq_s32(round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 4), iscale)), cap);
            const int32x4_t q2 = vminq_s32(round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 8), iscale)), cap);
            const int32x4_t q3 = vminq_s32(round_half_away(vmulq_n_f32(vld1q_f32(xb + j + 12), iscale)), cap);
            const int16x8_t h0 = vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1));
            const int16x8_t h1 = vcombine_s16(vqmovn_s32(q2), vqmovn_s32(q3));
            vst1q_s8(y[i].qs + j, vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1)));
            y[i].bsums[j / 16] = (int16_t) vaddvq_s32(vaddq_s32(vaddq_s32(q0, q1), vaddq_s32(q2, q3)));
        }
        y[i].d = 1.0f / iscale;
    }
}
