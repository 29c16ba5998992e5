/*
 * quant-gemm-k.c - Q4_K weights for the int8 GEMM of Q8_0/Q4_0 (the packed
 * 16-row tiles of gk-quant.h, GK_GEMM_MR), portable.
 *
 * A Q4_K value is d * sc_j * q - dmin * m_j with q in 0..15 and one 6-bit
 * scale sc_j and min m_j per sub-block j of 32 values. A sub-block is packed
 * as one tile block: the nibbles q as unsigned bytes (what the Q4_0 tiles
 * hold), the float scale d * sc_j in wd, so the GEMM kernels of Q4_0 (VNNI,
 * AVX2, SDOT; activations as Q8_0x blocks with corr 0) compute
 * sum_j d sc_j da_j (q . a)_j. The mins go to wmin as -dmin * m_j, one
 * float per row and sub-block (row-major, nkb per row): the caller adds
 * wmin . (sums of the dequantized activation blocks) with the float GEMM,
 * a product 32 times smaller.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"

void gk_pack_q4_K(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd, float * wmin) {
    for (int b = 0; b < nkb; b++) {
        const int64_t sb = (b0 + b) / 8;
        const int j = (int) ((b0 + b) % 8);
        uint8_t * o = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        for (int r = 0; r < GK_GEMM_MR; r++) {
            if (r >= nrows) {
                wd[(size_t) b * GK_GEMM_MR + r] = 0.0f;
                for (int k = 0; k < GK_QK8_0; k++) {
                    o[64 * (k / 4) + 4 * r + k % 4] = 0;
                }
                continue;
            }
            const gk_block_q4_K * blk = (const gk_block_q4_K *) ((const uint8_t *) x + (size_t) r * bx) + sb;
            uint8_t sc, m;
            gk_q4_K_scale_min(j, blk->scales, &sc, &m);
            wd[(size_t) b * GK_GEMM_MR + r] = gk_fp16_to_fp32(blk->d) * (float) sc;
            wmin[(size_t) r * (size_t) nkb + (size_t) b] = -gk_fp16_to_fp32(blk->dmin) * (float) m;
            const uint8_t * q = blk->qs + 32 * (j / 2);
            for (int k = 0; k < GK_QK8_0; k++) {
                o[64 * (k / 4) + 4 * r + k % 4] = (uint8_t) (j % 2 ? q[k] >> 4 : q[k] & 0xF);
            }
        }
    }
}
