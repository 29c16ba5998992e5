/*
 * quant-unpack.c - row dequantization and dot products of every type that
 * has an unpack function (gk-quant-ext.h): integer sums per group of 16,
 * the group's affine map applied in float. These are the portable (and
 * reference) kernels of those types.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-fp16.h"

// the largest block of these types
#define UNPACK_MAX GK_QK_K

void gk_dequantize_row_unpack(gk_unpack_fn f, int blck, size_t bsize, const void * x, float * y, int64_t n) {
    int8_t q[UNPACK_MAX];
    float a[UNPACK_MAX / 16], b[UNPACK_MAX / 16];
    const uint8_t * p = x;
    for (int64_t i = 0; i < n / blck; i++) {
        f(p + (size_t) i * bsize, q, a, b);
        for (int j = 0; j < blck; j++) {
            y[i * blck + j] = a[j / 16] * (float) q[j] + b[j / 16];
        }
    }
}

float gk_dot_unpack_q8_K(gk_unpack_fn f, size_t bsize, int64_t n, const void * x, const gk_block_q8_K * y) {
    int8_t q[GK_QK_K];
    float a[GK_QK_K / 16], b[GK_QK_K / 16];
    const uint8_t * p = x;
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        f(p + (size_t) i * bsize, q, a, b);
        const int8_t * q8 = y[i].qs;
        float sb = 0.0f;
        for (int g = 0; g < GK_QK_K / 16; g++) {
            int32_t si = 0;
            for (int l = 0; l < 16; l++) {
                si += q[16 * g + l] * q8[16 * g + l];
            }
            sb += a[g] * (float) si + b[g] * (float) y[i].bsums[g];
        }
        s += y[i].d * sb;
    }
    return s;
}

// blocks of 32 activations with an fp16 scale at offset 0 and the values
// at offset qoff (Q8_0: 2, Q8_1: 4)
static float dot_unpack_q8_32(gk_unpack_fn f, int blck, size_t bsize, int64_t n, const void * x,
                              const uint8_t * y, size_t ysize, size_t qoff) {
    int8_t q[UNPACK_MAX];
    float a[UNPACK_MAX / 16], b[UNPACK_MAX / 16];
    const uint8_t * p = x;
    float s = 0.0f;
    for (int64_t i = 0; i < n / blck; i++) {
        f(p + (size_t) i * bsize, q, a, b);
        for (int k = 0; k < blck / 32; k++) {
            const uint8_t * yb = y + (size_t) (i * (blck / 32) + k) * ysize;
            uint16_t dh;
            __builtin_memcpy(&dh, yb, 2);
            const int8_t * q8 = (const int8_t *) (yb + qoff);
            float sb = 0.0f;
            for (int h = 0; h < 2; h++) {
                const int g = 2 * k + h;
                int32_t si = 0, sy = 0;
                for (int l = 0; l < 16; l++) {
                    si += q[16 * g + l] * q8[16 * h + l];
                    sy += q8[16 * h + l];
                }
                sb += a[g] * (float) si + b[g] * (float) sy;
            }
            s += gk_fp16_to_fp32(dh) * sb;
        }
    }
    return s;
}

float gk_dot_unpack_q8_0(gk_unpack_fn f, int blck, size_t bsize, int64_t n, const void * x, const gk_block_q8_0 * y) {
    return dot_unpack_q8_32(f, blck, bsize, n, x, (const uint8_t *) y, sizeof(gk_block_q8_0), 2);
}

float gk_dot_unpack_q8_1(gk_unpack_fn f, int blck, size_t bsize, int64_t n, const void * x, const gk_block_q8_1 * y) {
    return dot_unpack_q8_32(f, blck, bsize, n, x, (const uint8_t *) y, sizeof(gk_block_q8_1), 4);
}
