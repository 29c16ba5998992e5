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

// Q6_K: a value is d * sc_j * (q - 32) with q in 0..63 and a signed 8-bit
// scale per sub-block j of 16 values. Sub-block v is packed as tile block v
// with its 16 values in the half v % 2 of the 32 slots and zeros in the
// other, so that it meets the right half of activation block v / 2 (the
// caller duplicates each activation block); wd = d * sc_j, and
// wmin = -32 * d * sc_j for the offset, against the sums of the activation
// half-blocks. The values are non-negative bytes: the Q8_0 tiles' kernels
// (signed, AVX2) and the unsigned ones (VNNI) both read them as they are.
void gk_pack_q6_K(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd, float * wmin) {
    for (int b = 0; b < nkb; b++) {
        const int64_t v = b0 + b;          // 16-value sub-block of the row
        const int64_t sb = v / 16;
        const int j = (int) (v % 16);
        const int half = (int) (v % 2);
        uint8_t * o = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        for (int r = 0; r < GK_GEMM_MR; r++) {
            uint8_t val[GK_QK8_0] = { 0 };
            if (r < nrows) {
                const gk_block_q6_K * blk = (const gk_block_q6_K *) ((const uint8_t *) x + (size_t) r * bx) + sb;
                const float d = gk_fp16_to_fp32(blk->d) * (float) blk->scales[j];
                wd[(size_t) b * GK_GEMM_MR + r] = d;
                wmin[(size_t) r * (size_t) nkb + (size_t) b] = -32.0f * d;
                // value l (0..255) of the block: in half h = l / 128, at
                // l' = l % 128: ql byte (l' % 64) + 64 h, low nibble for l' < 64;
                // qh byte l' % 32 + 32 h, bits 2 (l' / 32)
                for (int k = 0; k < 16; k++) {
                    const int l = 16 * j + k, h = l / 128, lp = l % 128;
                    const uint8_t lo = blk->ql[64 * h + lp % 64];
                    const uint8_t hi = blk->qh[32 * h + lp % 32];
                    val[16 * half + k] = (uint8_t) ((lp < 64 ? lo & 0xF : lo >> 4) | ((hi >> (2 * (lp / 32))) & 3) << 4);
                }
            } else {
                wd[(size_t) b * GK_GEMM_MR + r] = 0.0f;
            }
            for (int k = 0; k < GK_QK8_0; k++) {
                o[64 * (k / 4) + 4 * r + k % 4] = val[k];
            }
        }
    }
}
