/*
 * quant-tq.c - unpacking of the ternary types TQ1_0 and TQ2_0 (values
 * d * {-1, 0, 1} in 256-value blocks).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-fp16.h"

// A TQ1_0 byte holds base-3 digits as a fixed-point fraction of 243: digit
// k (k < 5, most significant first) is floor(3 * frac(byte * 3^k / 256)),
// computed in 8 bits as ((uint8_t) (byte * 3^k) * 3) >> 8.
static int tq1_digit(uint8_t byte, int k) {
    static const uint8_t pow3[5] = { 1, 3, 9, 27, 81 };
    const uint8_t v = (uint8_t) (byte * pow3[k]);
    return ((int) v * 3) >> 8;
}

// qs[0..32): digit k of byte m is value 32k + m (values 0..159);
// qs[32..48): digit k of byte 32 + m is value 160 + 16k + m (to 239);
// qh[0..4): digit k (k < 4) of byte m is value 240 + 4k + m.
void gk_unpack_tq1_0(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_tq1_0 * blk = x;
    for (int k = 0; k < 5; k++) {
        for (int m = 0; m < 32; m++) {
            q[32 * k + m] = (int8_t) (tq1_digit(blk->qs[m], k) - 1);
        }
        for (int m = 0; m < 16; m++) {
            q[160 + 16 * k + m] = (int8_t) (tq1_digit(blk->qs[32 + m], k) - 1);
        }
    }
    for (int k = 0; k < 4; k++) {
        for (int m = 0; m < 4; m++) {
            q[240 + 4 * k + m] = (int8_t) (tq1_digit(blk->qh[m], k) - 1);
        }
    }
    const float d = gk_fp16_to_fp32(blk->d);
    for (int g = 0; g < 16; g++) {
        a[g] = d;
        b[g] = 0.0f;
    }
}

// TQ2_0: value 128h + 32k + m is bits 2k..2k+1 of qs[32h + m], minus 1
void gk_unpack_tq2_0(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_tq2_0 * blk = x;
    for (int h = 0; h < 2; h++) {
        for (int k = 0; k < 4; k++) {
            for (int m = 0; m < 32; m++) {
                q[128 * h + 32 * k + m] = (int8_t) (((blk->qs[32 * h + m] >> (2 * k)) & 3) - 1);
            }
        }
    }
    const float d = gk_fp16_to_fp32(blk->d);
    for (int g = 0; g < 16; g++) {
        a[g] = d;
        b[g] = 0.0f;
    }
}
