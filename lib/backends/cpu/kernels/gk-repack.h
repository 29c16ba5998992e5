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
 * Q4_K and Q6_K (nsb super-blocks of 256 values per row) the same way, a
 * super-block of the group in the bytes of the 16 rows' super-blocks
 * (2304 and 3360), with every bit of them, the scales unpacked so that one
 * vector operation serves 16 rows:
 *
 *   Q4_K  0    16 fp16 d                                          32 bytes
 *         32   16 fp16 dmin                                       32
 *         64   sub-block j (< 8): 16 bytes, row r:                128
 *              (sc_j & 15) | (m_j & 15) << 4
 *         192  pair p (< 4): 16 bytes, row r: the high bits       64
 *              sc_2p >> 4 | (m_2p >> 4) << 2 | (sc_2p+1 >> 4) << 4
 *              | (m_2p+1 >> 4) << 6
 *         256  pair p: 512 bytes, byte t = T_2p[t] | T_2p+1[t] << 4   2048
 *              with T_j the 512-entry tile (above) of the nibbles of
 *              sub-block j (32 values)
 *   Q6_K  0    16 fp16 d                                          32
 *         32   sub-block j (< 16, 16 values): 16 int8 scales      256
 *         288  block i (< 8, values 32i..32i+31): the tile T of   3072
 *              its 6-bit values (0..63) as 256 bytes of low
 *              nibbles (byte t = T[t] & 15 | (T[t + 256] & 15) << 4)
 *              and 128 of high bits (byte u = the bits 4-5 of
 *              T[u], T[u + 128], T[u + 256], T[u + 384] at 0, 2, 4, 6)
 *
 * Steps 0-3 of a Q6_K tile are its block's first sub-block, 4-7 the second.
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

// K-quant groups: the byte offsets above, in a group's super-block
#define GK_RPK4_D    0
#define GK_RPK4_DMIN 32
#define GK_RPK4_SLO  64
#define GK_RPK4_SHI  192
#define GK_RPK4_QS   256
#define GK_RPK6_D    0
#define GK_RPK6_SC   32
#define GK_RPK6_QS   288
#define GK_RPK6_BLK  384

// nrows (<= 16) plain rows (bx bytes apart, nsb super-blocks each) -> one
// group at dst (rows from nrows on: zero)
void gk_repack_q4_K(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_repack_q6_K(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_unrepack_q4_K(const void * src, int64_t nsb, void * dst, size_t bx);
void gk_unrepack_q6_K(const void * src, int64_t nsb, void * dst, size_t bx);
// super-blocks [b0, b0 + nb) of row r (< 16) of a group, plain, at dst
void gk_repack_row_q4_K(const void * grp, int r, int64_t b0, int64_t nb, void * dst);
void gk_repack_row_q6_K(const void * grp, int r, int64_t b0, int64_t nb, void * dst);

// The GEMM on a K-quant group, read in place: super-blocks [0, nsb) of the
// group at grp (already offset to its first one), rows r < nrows (<= 16),
// ncols activation columns of Q8_0x blocks (corr not read; column j at
// a + j * lda, 8 blocks per super-block): c[j * ldc + r] += w[r] . a[j].
// ext holds per column and block (same index as a): Q4_K the float
// a.d * (sum of a.qs), for the mins; Q6_K two int32, -32 * the sums of the
// block's halves (the values' offset, per 16-value sub-block).
typedef void (*gk_rp_gemm_k_fn)(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                                const void * ext, int64_t lda, float * c, int64_t ldc);

// The GEMM on a group, read in place: blocks [0, nkb) of the group at grp
// (already offset to its first block), rows r < nrows (<= 16) with ncols
// Q8_0x activation columns (column j at a + j * lda, same first block):
// c[j * ldc + r] += w[r] . a[j]. The activations' corr must hold -off * sum
// with the offset of the kernel's weight form: VNNI 128 (Q8_0) and 8 (Q4_0),
// AVX2 and SDOT 0 (Q8_0, not read by AVX2) and 8 (Q4_0).
typedef void (*gk_rp_gemm_fn)(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                              int64_t lda, float * c, int64_t ldc);

// The matrix-vector product (one activation column) on ng (1 ..
// GK_RP_STREAMS) full groups at once, read in the same loop: blocks
// [0, nkb) of the groups at grp[g] (each already offset to its first
// block), c[g][r] += w_g[r] . a for r < 16. Per group the same arithmetic
// as the gk_rp_gemm_fn of the ISA with ncols = 1.
#define GK_RP_STREAMS 4
typedef void (*gk_rp_gemv_fn)(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a,
                              float * const * c);

// An ISA's two gk_rp_gemv_fn entry points gk_rp_gemv_q8_0_<isa> and
// _q4_0_<isa>, for a file that defines the inline kernel
// grpv(bool q4, int NG, nkb, grp, a, c) (NG: groups, a constant where
// inlined)
#define GK_RP_GEMV_ENTRIES(isa)                                                                                \
    static inline __attribute__((always_inline)) void rp_gemv_##isa(const bool q4, int nkb, int ng,          \
                                                                     const void * const * grp,                \
                                                                     const gk_block_q8_0x * a, float * const * c) { \
        _Static_assert(GK_RP_STREAMS <= 4, "the cases below");                                                \
        switch (ng) {                                                                                        \
            case 1: grpv(q4, 1, nkb, grp, a, c); break;                                                      \
            case 2: grpv(q4, 2, nkb, grp, a, c); break;                                                      \
            case 3: grpv(q4, 3, nkb, grp, a, c); break;                                                      \
            case 4: grpv(q4, 4, nkb, grp, a, c); break;                                                      \
            default: break;                                                                                  \
        }                                                                                                    \
    }                                                                                                        \
    void gk_rp_gemv_q8_0_##isa(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a,           \
                               float * const * c) {                                                          \
        rp_gemv_##isa(false, nkb, ng, grp, a, c);                                                            \
    }                                                                                                        \
    void gk_rp_gemv_q4_0_##isa(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a,           \
                               float * const * c) {                                                          \
        rp_gemv_##isa(true, nkb, ng, grp, a, c);                                                             \
    }

// The same for K-quant groups: super-blocks [0, nsb) of the ng full groups
// at grp[g] (each already offset to its first super-block), one column a
// with its ext (as for gk_rp_gemm_k_fn): c[g][r] += w_g[r] . a for r < 16.
// Per group the same arithmetic as the gk_rp_gemm_k_fn of the ISA with
// ncols = 1.
typedef void (*gk_rp_gemv_k_fn)(int nsb, int ng, const void * const * grp, const gk_block_q8_0x * a,
                                const void * ext, float * const * c);

#if defined(__x86_64__)
// The packers above with AVX2 (repack-pack-x86.c): the same bytes, at a
// copy's speed. _nt: dst 32-byte aligned, written with non-temporal stores
// (for memory not read again soon: set_tensor), ending with a store fence.
void gk_repack_q8_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_repack_q6_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_repack_q8_0_avx2_nt(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_0_avx2_nt(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_K_avx2_nt(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_repack_q6_K_avx2_nt(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);

// AVX2 (repack-x86.c)
void gk_rp_gemm_q8_0_avx2(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_avx2(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemv_q8_0_avx2(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
void gk_rp_gemv_q4_0_avx2(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
// the same four on AVX-VNNI (repack-avxvnni.c; the same bits)
void gk_rp_gemm_q8_0_avxvnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_avxvnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
void gk_rp_gemv_q8_0_avxvnni(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a,
                             float * const * c);
void gk_rp_gemv_q4_0_avxvnni(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a,
                             float * const * c);
// AVX512-VNNI, 256-bit VPDPBUSD (repack-avx512.c)
void gk_rp_gemm_q8_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc);
void gk_rp_gemv_q8_0_vnni(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
void gk_rp_gemv_q4_0_vnni(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
// K-quants: AVX2 (repack-k-x86.c), AVX512-VNNI (repack-k-avx512.c,
// 512-bit)
void gk_rp_gemm_q4_K_avx2(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q6_K_avx2(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc);
// the same two on AVX-VNNI (repack-k-avxvnni.c; the same bits)
void gk_rp_gemm_q4_K_avxvnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q6_K_avxvnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_K_vnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q6_K_vnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemv_q4_K_vnni(int nsb, int ng, const void * const * grp, const gk_block_q8_0x * a, const void * ext,
                          float * const * c);
void gk_rp_gemv_q6_K_vnni(int nsb, int ng, const void * const * grp, const gk_block_q8_0x * a, const void * ext,
                          float * const * c);
#endif

#if defined(__aarch64__)
// The packers above with NEON (repack-pack-neon.c): the same bytes
void gk_repack_q8_0_neon(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_0_neon(const void * src, size_t bx, int64_t nblk, void * dst);
void gk_repack_q4_K_neon(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
void gk_repack_q6_K_neon(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);

// SDOT (repack-neon.c)
void gk_rp_gemm_q8_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q4_0_dotprod(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             int64_t lda, float * c, int64_t ldc);
void gk_rp_gemv_q8_0_dotprod(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
void gk_rp_gemv_q4_0_dotprod(int nkb, int ng, const void * const * grp, const gk_block_q8_0x * a, float * const * c);
// K-quants (repack-k-neon.c)
void gk_rp_gemm_q4_K_dotprod(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc);
void gk_rp_gemm_q6_K_dotprod(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                             const void * ext, int64_t lda, float * c, int64_t ldc);
#endif

#endif // GK_REPACK_H
