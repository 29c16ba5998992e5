/*
 * quant-legacy.c - unpacking of the 32-value legacy types (Q4_1, Q5_0,
 * Q5_1), the 1- and 2-bit Q1_0 and Q2_0, and the Q8_1 activation
 * quantizer. Layouts in gk-quant-ext.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-fp16.h"
#include "gk-math.h"

static void set_maps(float * a, float * b, int ngroups, float av, float bv) {
    for (int g = 0; g < ngroups; g++) {
        a[g] = av;
        b[g] = bv;
    }
}

// bit j of the 128 (qs[j / 8], bit j % 8): +d when set, -d when clear
void gk_unpack_q1_0(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q1_0 * blk = x;
    for (int j = 0; j < GK_QK1_0; j++) {
        q[j] = (blk->qs[j / 8] >> (j % 8)) & 1 ? 1 : -1;
    }
    set_maps(a, b, GK_QK1_0 / 16, gk_fp16_to_fp32(blk->d), 0.0f);
}

// 2-bit field j % 4 of byte j / 4, q - 1 in {-1, 0, 1, 2}
void gk_unpack_q2_0(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q2_0 * blk = x;
    for (int j = 0; j < GK_QK2_0; j++) {
        q[j] = (int8_t) (((blk->qs[j / 4] >> (2 * (j % 4))) & 3) - 1);
    }
    set_maps(a, b, GK_QK2_0 / 16, gk_fp16_to_fp32(blk->d), 0.0f);
}

// value j < 16 in the low nibble of qs[j], value j + 16 in its high nibble
static void nibbles32(const uint8_t * qs, int8_t * q) {
    for (int j = 0; j < 16; j++) {
        q[j]      = (int8_t) (qs[j] & 0xf);
        q[j + 16] = (int8_t) (qs[j] >> 4);
    }
}

void gk_unpack_q4_1(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q4_1 * blk = x;
    nibbles32(blk->qs, q);
    set_maps(a, b, 2, gk_fp16_to_fp32(blk->d), gk_fp16_to_fp32(blk->m));
}

// the fifth bit of value j is bit j of the little-endian word qh
static void fifth_bits(const uint8_t * qh, int8_t * q) {
    const uint32_t h = (uint32_t) qh[0] | ((uint32_t) qh[1] << 8) | ((uint32_t) qh[2] << 16) | ((uint32_t) qh[3] << 24);
    for (int j = 0; j < 32; j++) {
        q[j] = (int8_t) (q[j] | (((h >> j) & 1) << 4));
    }
}

void gk_unpack_q5_0(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q5_0 * blk = x;
    nibbles32(blk->qs, q);
    fifth_bits(blk->qh, q);
    for (int j = 0; j < 32; j++) {
        q[j] = (int8_t) (q[j] - 16);
    }
    set_maps(a, b, 2, gk_fp16_to_fp32(blk->d), 0.0f);
}

void gk_unpack_q5_1(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q5_1 * blk = x;
    nibbles32(blk->qs, q);
    fifth_bits(blk->qh, q);
    set_maps(a, b, 2, gk_fp16_to_fp32(blk->d), gk_fp16_to_fp32(blk->m));
}

void gk_quantize_row_q8_1(const float * x, gk_block_q8_1 * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        const float * xb = x + i * GK_QK8_1;
        float amax = 0.0f;
        for (int j = 0; j < GK_QK8_1; j++) {
            amax = gk_maxf(amax, gk_fabsf(xb[j]));
        }
        const float d  = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        int sum = 0;
        for (int j = 0; j < GK_QK8_1; j++) {
            y[i].qs[j] = (int8_t) gk_iroundf(xb[j] * id);
            sum += y[i].qs[j];
        }
        y[i].d = gk_fp32_to_fp16(d);
        y[i].s = gk_fp32_to_fp16((float) sum * d);
    }
}
