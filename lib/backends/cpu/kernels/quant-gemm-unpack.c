/*
 * quant-gemm-unpack.c - the packed int8 GEMM tiles (gk-quant.h, GK_GEMM_MR
 * rows) of any type with an unpack function (gk-quant-ext.h), so that its
 * prefill runs on the int8 GEMMs of Q8_0 instead of one float dot per
 * output.
 *
 * Each tile block holds 32 bytes per row: the values of one 32-value block
 * of the row (types whose groups of 16 come in equal pairs: legacy 32-value
 * blocks, Q5_K, IQ4_XS, ...), or, with half set, the 16 values of one
 * group of 16 at the half of the 32 where the activation block that the
 * caller stores twice has them (Q2_K, Q3_K, ...; the other half holds the
 * byte of the value 0). A value q is stored as q + shift: the caller picks
 * shift 0 for signed bytes (AVX2's sign trick, NEON's SDOT) or 128 for
 * unsigned ones (VPDPBUSD), whose offset the activation blocks' corr takes
 * back off exactly in int32. The group's scale a goes to wd; its offset b,
 * where the type has one, to wmin, which the GEMM multiplies by the sums of the
 * activation blocks.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-ext.h"

#include <string.h>

void gk_pack_unpack(gk_unpack_fn f, int blck, size_t bsize, bool half, int shift, const void * x, size_t bx,
                    int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd, float * wmin) {
    const int gv = half ? 16 : 32; // values of the row per tile block
    int8_t q[GK_QK_K];
    float a[GK_QK_K / 16], b[GK_QK_K / 16];
    for (int r = 0; r < GK_GEMM_MR; r++) {
        const uint8_t * row = (const uint8_t *) x + (size_t) r * bx;
        int64_t cur = -1;
        for (int t = 0; t < nkb; t++) {
            uint8_t * o = wq + (size_t) t * GK_GEMM_MR * GK_QK8_0 + 4 * r;
            uint8_t val[GK_QK8_0];
            if (r >= nrows) {
                wd[(size_t) t * GK_GEMM_MR + r] = 0.0f;
                if (wmin) {
                    wmin[(size_t) t * GK_GEMM_MR + (size_t) r] = 0.0f;
                }
                memset(val, 0, sizeof(val));
            } else {
                const int64_t e0 = (b0 + t) * gv; // the block's first value in the row
                const int64_t blk = e0 / blck;
                if (blk != cur) {
                    f(row + (size_t) blk * bsize, q, a, b);
                    cur = blk;
                }
                const int j0 = (int) (e0 % blck);
                wd[(size_t) t * GK_GEMM_MR + r] = a[j0 / 16];
                if (wmin) {
                    wmin[(size_t) t * GK_GEMM_MR + (size_t) r] = b[j0 / 16];
                }
                const int p0 = half ? 16 * (int) ((b0 + t) % 2) : 0;
                memset(val, shift, sizeof(val));
                for (int k = 0; k < gv; k++) {
                    val[p0 + k] = (uint8_t) (q[j0 + k] + shift);
                }
            }
            // four consecutive values of a row per 32-bit lane, 16 rows per
            // 64 bytes (the layout of gk_pack_q8_0_u8_vnni and the others)
            for (int k = 0; k < GK_QK8_0; k++) {
                o[64 * (k / 4) + k % 4] = val[k];
            }
        }
    }
}
