/*
 * quant-fp4.c - unpacking of the FP4 (E2M1) types: MXFP4 (32 values, one
 * E8M0 scale) and NVFP4 (64 values, a UE4M3 scale per 16). The value table
 * holds E2M1 values doubled, so the scales are taken halved.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"
#include "gk-iq-tables.h"

// value j < 16 is the low nibble of qs[j], value j + 16 the high nibble
void gk_unpack_mxfp4(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_mxfp4 * blk = x;
    for (int j = 0; j < 16; j++) {
        q[j]      = gk_kvalues_fp4[blk->qs[j] & 0xf];
        q[j + 16] = gk_kvalues_fp4[blk->qs[j] >> 4];
    }
    a[0] = a[1] = gk_e8m0_half_to_fp32(blk->e);
    b[0] = b[1] = 0.0f;
}

// sub-block s (16 values) uses qs[8s..8s+8): low nibbles values 0..7, high
// nibbles values 8..15, scaled by d[s]
void gk_unpack_nvfp4(const void * x, int8_t * q, float * a, float * b) {
    const gk_block_nvfp4 * blk = x;
    for (int s = 0; s < GK_QK_NVFP4 / GK_QK_NVFP4_SUB; s++) {
        for (int j = 0; j < 8; j++) {
            const uint8_t v = blk->qs[8 * s + j];
            q[16 * s + j]     = gk_kvalues_fp4[v & 0xf];
            q[16 * s + j + 8] = gk_kvalues_fp4[v >> 4];
        }
        a[s] = gk_ue4m3_half_to_fp32(blk->d[s]);
        b[s] = 0.0f;
    }
}
