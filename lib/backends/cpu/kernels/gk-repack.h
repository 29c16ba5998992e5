/*
 * gk-repack.h - weight rows stored interleaved ("repacked") for the int8
 * GEMM/GEMV kernels, and the kernels that read them in place.
 *
 * A matrix of Q8_0 or Q4_0 weights (ne01 rows of nblk blocks of 32 values)
 * is stored as groups of GK_RP_ROWS (16, GK_GEMM_MR) consecutive rows
 * followed by the ne01 % 16 remaining rows in the plain layout. A group
 * takes exactly the bytes of its 16 plain rows (so the rows after it, and
 * every tensor stride, stay where they are) and holds, block after block
 * (block b at b * 16 * sizeof(block)):
 *
 *   16 fp16 scales, row 0..15                                  32 bytes
 *   Q8_0: the 512 values in the tile order of the int8 GEMM:   512 bytes
 *         byte 64 s + 4 r + k = value 4 s + k of row r (s < 8, k < 4),
 *         signed
 *   Q4_0: that 512-entry tile u[] as nibbles (0..15):          256 bytes
 *         byte t = u[t] | u[t + 256] << 4
 *
 * so a GEMM kernel reads one contiguous stream per 16 rows, one vector load
 * serving 8 (AVX2, VNNI) or 4 (NEON) rows, and Q4_0 gives two tile vectors
 * per load (low nibbles: steps 0-3, high nibbles: steps 4-7).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_REPACK_H
#define GK_REPACK_H

#include "gk-quant.h"

#define GK_RP_ROWS GK_GEMM_MR

// --- portable (repack.c) ------------------------------------------------------

// 16 plain rows (bx bytes apart, nblk blocks each) -> one group at dst
void gk_repack_q8_0(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_0(const void * src, size_t bx, int64_t nblk, void * dst);
// one group -> 16 plain rows (bx bytes apart)
void gk_unrepack_q8_0(const void * src, int64_t nblk, void * dst, size_t bx);
void gk_unrepack_q4_0(const void * src, int64_t nblk, void * dst, size_t bx);
// blocks [b0, b0 + nb) of row r (< 16) of a group, plain, at dst
void gk_repack_row_q8_0(const void * grp, int r, int64_t b0, int64_t nb, void * dst);
void gk_repack_row_q4_0(const void * grp, int r, int64_t b0, int64_t nb, void * dst);

// The GEMM on a group, read in place: blocks [0, nkb) of the group at grp
// (already offset to its first block), rows r < nrows (<= 16) with ncols
// Q8_0x activation columns (column j at a + j * lda, same first block):
// c[j * ldc + r] += w[r] . a[j]. The activations' corr must hold -off * sum
// with the offset of the kernel's weight form: VNNI 128 (Q8_0) and 8 (Q4_0),
// AVX2 and SDOT 0 (Q8_0, not read by AVX2) and 8 (Q4_0).
typedef void (*gk_rp_gemm_fn)(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                              int64_t lda, float * c, int64_t ldc);

#if defined(__x86_64__)
// AVX2 (repack-x86.c)
void gk_rp_gemm_q8_0_avx2(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_avx2(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
// AVX512-VNNI, 256-bit VPDPBUSD (repack-avx512.c)
void gk_rp_gemm_q8_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
#endif

#if defined(__aarch64__)
// SDOT (repack-neon.c)
void gk_rp_gemm_q8_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
#endif

#endif // GK_REPACK_H
