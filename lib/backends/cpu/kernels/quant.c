/*
 * quant.c - portable quantized-block kernels (also the scalar reference path).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"
#include "gk-math.h"

void gk_quantize_row_q8_0(const float * x, gk_block_q8_0 * y, int64_t n) {
    const int64_t nb = n / GK_QK8_0;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * GK_QK8_0;
        float amax = 0.0f;
        for (int j = 0; j < GK_QK8_0; j++) {
            amax = gk_maxf(amax, gk_fabsf(xb[j]));
        }
        const float d  = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = gk_fp32_to_fp16(d);
        for (int j = 0; j < GK_QK8_0; j++) {
            y[i].qs[j] = (int8_t) gk_iroundf(xb[j] * id);
        }
    }
}

void gk_quantize_row_q4_0(const float * x, gk_block_q4_0 * y, int64_t n) {
    const int64_t nb = n / GK_QK4_0;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * GK_QK4_0;
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < GK_QK4_0; j++) {
            if (gk_fabsf(xb[j]) > amax) {
                amax = gk_fabsf(xb[j]);
                max  = xb[j];
            }
        }
        const float d  = max / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = gk_fp32_to_fp16(d);
        for (int j = 0; j < GK_QK4_0 / 2; j++) {
            int q0 = (int) (xb[j] * id + 8.5f);
            int q1 = (int) (xb[j + GK_QK4_0 / 2] * id + 8.5f);
            q0 = q0 > 15 ? 15 : (q0 < 0 ? 0 : q0);
            q1 = q1 > 15 ? 15 : (q1 < 0 ? 0 : q1);
            y[i].qs[j] = (uint8_t) (q0 | (q1 << 4));
        }
    }
}

void gk_quantize_row_q8_K(const float * x, gk_block_q8_K * y, int64_t n) {
    const int64_t nb = n / GK_QK_K;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * GK_QK_K;
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < GK_QK_K; j++) {
            if (gk_fabsf(xb[j]) > amax) {
                amax = gk_fabsf(xb[j]);
                max  = xb[j];
            }
        }
        if (amax == 0.0f) {
            y[i].d = 0.0f;
            for (int j = 0; j < GK_QK_K; j++) {
                y[i].qs[j] = 0;
            }
            for (int j = 0; j < GK_QK_K / 16; j++) {
                y[i].bsums[j] = 0;
            }
            continue;
        }
        const float iscale = -127.0f / max;
        for (int j = 0; j < GK_QK_K; j++) {
            int v = gk_iroundf(iscale * xb[j]);
            y[i].qs[j] = (int8_t) (v > 127 ? 127 : v);
        }
        for (int j = 0; j < GK_QK_K / 16; j++) {
            int s = 0;
            for (int l = 0; l < 16; l++) {
                s += y[i].qs[16 * j + l];
            }
            y[i].bsums[j] = (int16_t) s;
        }
        y[i].d = 1.0f / iscale;
    }
}

void gk_dequantize_row_q8_0(const gk_block_q8_0 * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const float d = gk_fp16_to_fp32(x[i].d);
        for (int j = 0; j < GK_QK8_0; j++) {
            y[i * GK_QK8_0 + j] = d * (float) x[i].qs[j];
        }
    }
}

void gk_dequantize_row_q4_0(const gk_block_q4_0 * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK4_0; i++) {
        const float d = gk_fp16_to_fp32(x[i].d);
        for (int j = 0; j < GK_QK4_0 / 2; j++) {
            y[i * GK_QK4_0 + j]                = d * (float) ((x[i].qs[j] & 0xF) - 8);
            y[i * GK_QK4_0 + j + GK_QK4_0 / 2] = d * (float) ((x[i].qs[j] >> 4) - 8);
        }
    }
}

void gk_dequantize_row_q4_K(const gk_block_q4_K * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float d   = gk_fp16_to_fp32(x[i].d);
        const float min = gk_fp16_to_fp32(x[i].dmin);
        const uint8_t * q = x[i].qs;
        for (int c = 0; c < 4; c++) {
            uint8_t sc, m;
            gk_q4_K_scale_min(2 * c, x[i].scales, &sc, &m);
            const float d1 = d * sc, m1 = min * m;
            gk_q4_K_scale_min(2 * c + 1, x[i].scales, &sc, &m);
            const float d2 = d * sc, m2 = min * m;
            for (int l = 0; l < 32; l++) {
                y[l]      = d1 * (float) (q[l] & 0xF) - m1;
                y[l + 32] = d2 * (float) (q[l] >> 4) - m2;
            }
            q += 32;
            y += 64;
        }
    }
}

void gk_dequantize_row_q6_K(const gk_block_q6_K * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float d = gk_fp16_to_fp32(x[i].d);
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t *  sc = x[i].scales;
        for (int h = 0; h < 2; h++) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = (int) ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = (int) ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = (int) ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = (int) ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l]      = d * sc[is + 0] * q1;
                y[l + 32] = d * sc[is + 2] * q2;
                y[l + 64] = d * sc[is + 4] * q3;
                y[l + 96] = d * sc[is + 6] * q4;
            }
            y  += 128;
            ql += 64;
            qh += 32;
            sc += 8;
        }
    }
}

void gk_dequantize_row_q8_K(const gk_block_q8_K * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        for (int j = 0; j < GK_QK_K; j++) {
            y[i * GK_QK_K + j] = x[i].d * (float) x[i].qs[j];
        }
    }
}

float gk_dot_q8_0_q8_0(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        int sumi = 0;
        for (int j = 0; j < GK_QK8_0; j++) {
            sumi += x[i].qs[j] * y[i].qs[j];
        }
        s += (float) sumi * gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
    }
    return s;
}

float gk_dot_q4_0_q8_0(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK4_0; i++) {
        int sumi = 0;
        for (int j = 0; j < GK_QK4_0 / 2; j++) {
            sumi += ((x[i].qs[j] & 0xF) - 8) * y[i].qs[j];
            sumi += ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + GK_QK4_0 / 2];
        }
        s += (float) sumi * gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
    }
    return s;
}

float gk_dot_q4_K_q8_K(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float d    = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        const uint8_t * q  = x[i].qs;
        const int8_t *  q8 = y[i].qs;
        int sumi = 0, summ = 0;
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            gk_q4_K_scale_min(j, x[i].scales, &sc, &m);
            summ += m * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]);
            const int shift = (j & 1) ? 4 : 0;
            const uint8_t * qj = q + 32 * (j / 2);
            int si = 0;
            for (int l = 0; l < 32; l++) {
                si += ((qj[l] >> shift) & 0xF) * q8[32 * j + l];
            }
            sumi += sc * si;
        }
        s += d * (float) sumi - dmin * (float) summ;
    }
    return s;
}

float gk_dot_q6_K_q8_K(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t *  sc = x[i].scales;
        const int8_t *  q8 = y[i].qs;
        int sumi = 0;
        for (int h = 0; h < 2; h++) {
            for (int is = 0; is < 2; is++) {
                int s1 = 0, s2 = 0, s3 = 0, s4 = 0;
                for (int l = 16 * is; l < 16 * is + 16; l++) {
                    const int q1 = (int) ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                    const int q2 = (int) ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                    const int q3 = (int) ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                    const int q4 = (int) ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                    s1 += q1 * q8[l];
                    s2 += q2 * q8[l + 32];
                    s3 += q3 * q8[l + 64];
                    s4 += q4 * q8[l + 96];
                }
                sumi += sc[is + 0] * s1 + sc[is + 2] * s2 + sc[is + 4] * s3 + sc[is + 6] * s4;
            }
            ql += 64;
            qh += 32;
            sc += 8;
            q8 += 128;
        }
        s += gk_fp16_to_fp32(x[i].d) * y[i].d * (float) sumi;
    }
    return s;
}
