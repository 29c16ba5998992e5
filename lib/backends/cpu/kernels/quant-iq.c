/*
 * quant-iq.c - unpacking of the i-quants: the codebook types (IQ2_XXS,
 * IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M: groups of 4 or 8 values are
 * an index into a grid of gk-iq-tables.c, with signs) and the non-linear
 * 4-bit IQ4_NL and IQ4_XS. All are 256-value blocks except IQ4_NL (32).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-fp16.h"
#include "gk-iq-tables.h"

static inline uint8_t grid8(uint64_t g, int j) {
    return (uint8_t) (g >> (8 * j));
}

static inline uint8_t grid4(uint32_t g, int j) {
    return (uint8_t) (g >> (8 * j));
}

// 8 values: grid magnitudes with the signs of bit j of sign
static void signed8(uint64_t g, uint8_t sign, int8_t * q) {
    for (int j = 0; j < 8; j++) {
        const int v = grid8(g, j);
        q[j] = (int8_t) ((sign >> j) & 1 ? -v : v);
    }
}

static void signed4x2(uint32_t g1, uint32_t g2, uint8_t sign, int8_t * q) {
    for (int j = 0; j < 4; j++) {
        const int v1 = grid4(g1, j), v2 = grid4(g2, j);
        q[j]     = (int8_t) ((sign >> j) & 1 ? -v1 : v1);
        q[j + 4] = (int8_t) ((sign >> (j + 4)) & 1 ? -v2 : v2);
    }
}

// IQ2_XXS: per 32 values, 4 bytes of grid indices (one per 8 values), then
// a 32-bit word: 4 x 7 sign bits (ksigns) and a 4-bit scale s in the top
// bits: the values are scaled by d * (2s + 1) / 8
void gk_unpack_iq2_xxs(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq2_xxs * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    const uint8_t * qs = (const uint8_t *) blk->qs;
    for (int ib = 0; ib < 8; ib++) {
        uint32_t w;
        __builtin_memcpy(&w, qs + 8 * ib + 4, 4);
        for (int l = 0; l < 4; l++) {
            signed8(gk_iq2xxs_grid[qs[8 * ib + l]], gk_ksigns_iq2xs[(w >> (7 * l)) & 127], q + 32 * ib + 8 * l);
        }
        a[2 * ib] = a[2 * ib + 1] = d * (float) (2 * (w >> 28) + 1) * 0.125f;
        b[2 * ib] = b[2 * ib + 1] = 0.0f;
    }
}

// IQ2_XS: per 8 values a 16-bit word: 9-bit grid index, 7 sign bits; a
// 4-bit scale per 16 values (low nibble of scales[ib] first)
void gk_unpack_iq2_xs(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq2_xs * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int k = 0; k < 32; k++) {
        const uint16_t w = blk->qs[k];
        signed8(gk_iq2xs_grid[w & 511], gk_ksigns_iq2xs[w >> 9], q + 8 * k);
    }
    for (int g = 0; g < 16; g++) {
        const int s = (blk->scales[g / 2] >> (4 * (g % 2))) & 0xf;
        a[g] = d * (float) (2 * s + 1) * 0.125f;
        b[g] = 0.0f;
    }
}

// IQ2_S: 10-bit grid indices (qs[k] and bits 2(k%4).. of qh[k/4]), 8 full
// sign bits per 8 values (qs[32 + k]), 4-bit scales as IQ2_XS
void gk_unpack_iq2_s(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq2_s * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int k = 0; k < 32; k++) {
        const int idx = blk->qs[k] | (((blk->qh[k / 4] >> (2 * (k % 4))) & 3) << 8);
        signed8(gk_iq2s_grid[idx], blk->qs[32 + k], q + 8 * k);
    }
    for (int g = 0; g < 16; g++) {
        const int s = (blk->scales[g / 2] >> (4 * (g % 2))) & 0xf;
        a[g] = d * (float) (2 * s + 1) * 0.125f;
        b[g] = 0.0f;
    }
}

// IQ3_XXS: qs[0..64) are grid indices of 4 values each; per 32 values a
// 32-bit word at qs[64 + 4ib]: 4 x 7 sign bits and a 4-bit scale s on top:
// the values are scaled by d * (2s + 1) / 4
void gk_unpack_iq3_xxs(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq3_xxs * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int ib = 0; ib < 8; ib++) {
        uint32_t w;
        __builtin_memcpy(&w, blk->qs + 64 + 4 * ib, 4);
        for (int l = 0; l < 4; l++) {
            signed4x2(gk_iq3xxs_grid[blk->qs[8 * ib + 2 * l]], gk_iq3xxs_grid[blk->qs[8 * ib + 2 * l + 1]],
                      gk_ksigns_iq2xs[(w >> (7 * l)) & 127], q + 32 * ib + 8 * l);
        }
        a[2 * ib] = a[2 * ib + 1] = d * (float) (2 * (w >> 28) + 1) * 0.25f;
        b[2 * ib] = b[2 * ib + 1] = 0.0f;
    }
}

// IQ3_S: 9-bit grid indices of 4 values (qs[k], bit k % 8 of qh[k / 8]),
// 8 sign bits per 8 values, a 4-bit scale s per 32 values: d * (2s + 1)
void gk_unpack_iq3_s(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq3_s * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int k = 0; k < 32; k++) {
        const int i1 = blk->qs[2 * k]     | (((blk->qh[k / 4] >> (2 * (k % 4))) & 1) << 8);
        const int i2 = blk->qs[2 * k + 1] | (((blk->qh[k / 4] >> (2 * (k % 4) + 1)) & 1) << 8);
        signed4x2(gk_iq3s_grid[i1], gk_iq3s_grid[i2], blk->signs[k], q + 8 * k);
    }
    for (int ib = 0; ib < 8; ib++) {
        const int s = (blk->scales[ib / 2] >> (4 * (ib % 2))) & 0xf;
        a[2 * ib] = a[2 * ib + 1] = d * (float) (2 * s + 1);
        b[2 * ib] = b[2 * ib + 1] = 0.0f;
    }
}

// grid values in {-1, 0, 1} shifted by +-1/8: as integers 8g +- 1 with the
// scale divided by 8
static void iq1_group(uint64_t g, int neg, int8_t * q) {
    for (int j = 0; j < 8; j++) {
        q[j] = (int8_t) (8 * (int8_t) grid8(g, j) + (neg ? -1 : 1));
    }
}

// IQ1_S: per 32 values a 16-bit qh: 4 x 3 high index bits, a 3-bit scale s
// (bits 12-14: d * (2s + 1)) and the sign of the shift (bit 15); 11-bit
// indices into the 2048-entry grid
void gk_unpack_iq1_s(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq1_s * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int ib = 0; ib < 8; ib++) {
        const uint16_t h = blk->qh[ib];
        for (int l = 0; l < 4; l++) {
            const int idx = blk->qs[4 * ib + l] | (((h >> (3 * l)) & 7) << 8);
            iq1_group(gk_iq1s_grid[idx], h & 0x8000, q + 32 * ib + 8 * l);
        }
        const float dl = d * (float) (2 * ((h >> 12) & 7) + 1);
        a[2 * ib] = a[2 * ib + 1] = dl * GK_IQ1S_DELTA;
        b[2 * ib] = b[2 * ib + 1] = 0.0f;
    }
}

// IQ1_M: no fp16 field: the block scale is the top nibbles of the four
// 16-bit scale words. Per 16 values a 3-bit scale s (d * (2s + 1)); per 8
// values 3 high index bits and a shift sign in a nibble of qh.
void gk_unpack_iq1_m(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq1_m * blk = x;
    uint16_t sc[4];
    __builtin_memcpy(sc, blk->scales, sizeof(sc));
    const uint16_t dh = (uint16_t) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    const float d = gk_fp16_to_fp32(dh);
    for (int k = 0; k < 32; k++) {
        const uint8_t nib = (uint8_t) ((blk->qh[k / 2] >> (4 * (k % 2))) & 0xf);
        const int idx = blk->qs[k] | ((nib & 7) << 8);
        iq1_group(gk_iq1s_grid[idx], nib & 8, q + 8 * k);
    }
    for (int g = 0; g < 16; g++) {
        const int s = (sc[g / 4] >> (3 * (g % 4))) & 7;
        a[g] = d * (float) (2 * s + 1) * GK_IQ1S_DELTA;
        b[g] = 0.0f;
    }
}

// IQ4_NL: 32 values d * kvalues_iq4nl[nibble], low nibbles first
void gk_unpack_iq4_nl(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq4_nl * blk = x;
    for (int j = 0; j < 16; j++) {
        q[j]      = gk_kvalues_iq4nl[blk->qs[j] & 0xf];
        q[j + 16] = gk_kvalues_iq4nl[blk->qs[j] >> 4];
    }
    a[0] = a[1] = gk_fp16_to_fp32(blk->d);
    b[0] = b[1] = 0.0f;
}

// IQ4_XS: 8 sub-blocks of 32 as IQ4_NL, each with a 6-bit scale biased by
// 32 (low 4 bits in a nibble of scales_l, top 2 bits in scales_h)
void gk_unpack_iq4_xs(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_iq4_xs * blk = x;
    const float d = gk_fp16_to_fp32(blk->d);
    for (int ib = 0; ib < 8; ib++) {
        const uint8_t * qs = blk->qs + 16 * ib;
        for (int j = 0; j < 16; j++) {
            q[32 * ib + j]      = gk_kvalues_iq4nl[qs[j] & 0xf];
            q[32 * ib + j + 16] = gk_kvalues_iq4nl[qs[j] >> 4];
        }
        const int ls = ((blk->scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((blk->scales_h >> (2 * ib)) & 3) << 4);
        a[2 * ib] = a[2 * ib + 1] = d * (float) (ls - 32);
        b[2 * ib] = b[2 * ib + 1] = 0.0f;
    }
}
