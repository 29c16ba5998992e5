/*
 * quant-k.c - unpacking of the K-quants Q2_K, Q3_K and Q5_K (256-value
 * super-blocks; Q4_K and Q6_K have their own kernels in quant.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-fp16.h"

// Q2_K: value 128h + 32j + l (h < 2, j < 4, l < 32) is bits 2j..2j+1 of
// qs[32h + l]; group g = 8h + 2j + l/16 has scale byte g: low nibble the
// scale, high nibble the min: value = d * sc * q - dmin * m.
void gk_unpack_q2_K(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q2_K * blk = x;
    const float d = gk_fp16_to_fp32(blk->d), dmin = gk_fp16_to_fp32(blk->dmin);
    for (int h = 0; h < 2; h++) {
        for (int j = 0; j < 4; j++) {
            for (int l = 0; l < 32; l++) {
                q[128 * h + 32 * j + l] = (int8_t) ((blk->qs[32 * h + l] >> (2 * j)) & 3);
            }
        }
    }
    for (int g = 0; g < 16; g++) {
        a[g] = d * (float) (blk->scales[g] & 0xf);
        b[g] = -(dmin * (float) (blk->scales[g] >> 4));
    }
}

// Q3_K: 16 scales of 6 bits, biased by 32: the low 4 bits of scale g are the
// low (g < 8) or high (g >= 8) nibble of scales[g % 8], the top 2 bits are
// bits 2(g/4).. of scales[8 + g % 4]. Value 128h + 32j + l: bits 2j.. of
// qs[32h + l], minus 4 unless bit 4h + j of hmask[l] is set; its group is
// 8h + 2j + l/16.
void gk_unpack_q3_K(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q3_K * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int h = 0; h < 2; h++) {
        for (int j = 0; j < 4; j++) {
            const int bit = 4 * h + j;
            for (int l = 0; l < 32; l++) {
                const int lo = (blk->qs[32 * h + l] >> (2 * j)) & 3;
                q[128 * h + 32 * j + l] = (int8_t) (lo - ((blk->hmask[l] >> bit) & 1 ? 0 : 4));
            }
        }
    }
    for (int g = 0; g < 16; g++) {
        const int lo = g < 8 ? blk->scales[g] & 0xf : blk->scales[g - 8] >> 4;
        const int hi = (blk->scales[8 + g % 4] >> (2 * (g / 4))) & 3;
        a[g] = d * (float) ((lo | (hi << 4)) - 32);
        b[g] = 0.0f;
    }
}

// Q5_K: as Q4_K (8 sub-blocks of 32 with 6-bit scales and mins), plus a
// fifth bit: value 64c + l has bit 2c of qh[l], value 64c + 32 + l bit 2c + 1.
void gk_unpack_q5_K(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_q5_K * blk = x;
    const float d = gk_fp16_to_fp32(blk->d), dmin = gk_fp16_to_fp32(blk->dmin);
    for (int c = 0; c < 4; c++) {
        for (int l = 0; l < 32; l++) {
            const uint8_t ql = blk->qs[32 * c + l];
            q[64 * c + l]      = (int8_t) ((ql & 0xf) | (((blk->qh[l] >> (2 * c)) & 1) << 4));
            q[64 * c + 32 + l] = (int8_t) ((ql >> 4) | (((blk->qh[l] >> (2 * c + 1)) & 1) << 4));
        }
    }
    for (int s = 0; s < 8; s++) {
        uint8_t sc, m;
        gk_q4_K_scale_min(s, blk->scales, &sc, &m);
        a[2 * s] = a[2 * s + 1] = d * (float) sc;
        b[2 * s] = b[2 * s + 1] = -(dmin * (float) m);
    }
}
