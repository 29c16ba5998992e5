/*
 * gk-gemv-drive.h - the ISA-independent part of the few-column float
 * products (gk-gemv.h): how a product is cut into register tiles. Included
 * once by each ISA's file (gemv-float-x86.c, -avx512.c, -neon.c) after it
 * includes gk-gemv-tile.h (the weight types T_F32, T_F16, T_BF16) and
 * defines
 *
 *   TR, TN                 rows per tile, widest column block (TN <= 6),
 *   GEMV_KB                bytes of a row per K piece,
 *   tile(t, R, N, pf, k, rem, add, w, ldb, y, ldy, d, ldd)
 *                          R rows x N columns over k values (rem: values
 *                          left in the row from w on, for the prefetches;
 *                          pf: prefetch; add: add to d), R and N constants
 *                          where it is inlined;
 *
 * and GK_GEMV_ENTRIES(isa) then defines gk_gemv_f32_<isa>, _f16_<isa> and
 * _bf16_<isa>.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_GEMV_DRIVE_H
#define GK_GEMV_DRIVE_H

#include <stdbool.h>
#include <stdint.h>

_Static_assert(TN >= 1 && TN <= 6, "column blocks of 1 to 6");

// R rows x nc columns (1 <= nc <= TN) as a tile of constant shape
static inline __attribute__((always_inline)) void tile_n(const int t, const int R, int nc, bool pf, int64_t k,
                                                         int64_t rem, bool add, const char * w, int64_t ldb,
                                                         const float * y, int64_t ldy, float * d, int64_t ldd) {
    if (nc >= TN) {
        tile(t, R, TN, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    } else if (nc == 1) {
        tile(t, R, 1, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    } else if (nc == 2 || TN <= 3) {
        tile(t, R, 2, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    } else if (nc == 3 || TN <= 4) {
        tile(t, R, 3, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    } else if (nc == 4 || TN <= 5) {
        tile(t, R, 4, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    } else {
        tile(t, R, 5, pf, k, rem, add, w, ldb, y, ldy, d, ldd);
    }
}

// R rows by n columns. One column block: one pass over K. More: the rows
// in K pieces of GEMV_KB bytes, every block over a piece before the next,
// so that the piece is read from DRAM once, stays in L1 for the later
// blocks, and streams in while all the blocks compute (not in the first
// block's pass alone).
static inline __attribute__((always_inline)) void rows(const int t, const int R, int64_t k, const char * w, int64_t ldb,
                                                       int n, const float * y, int64_t ldy, float * d, int64_t ldd) {
    const int nb = (n + TN - 1) / TN; // column blocks, balanced
    const int64_t es = t == T_F32 ? 4 : 2;
    const int64_t kc = nb == 1 ? k : GEMV_KB / es;
    for (int64_t k0 = 0; k0 < k; k0 += kc) {
        const int64_t kl = k0 + kc < k ? kc : k - k0;
        for (int b = 0; b < nb; b++) {
            const int j0 = n * b / nb, j1 = n * (b + 1) / nb;
            tile_n(t, R, j1 - j0, b == 0, kl, k - k0, k0 > 0, w + k0 * es, ldb, y + j0 * ldy + k0, ldy, d + j0 * ldd,
                   ldd);
        }
    }
}

static inline __attribute__((always_inline)) void gemv(const int t, int64_t k, const char * w, int64_t ldb, int m,
                                                       int n, const float * y, int64_t ldy, float * d, int64_t ldd) {
    int i = 0;
    for (; i + TR <= m; i += TR) {
        rows(t, TR, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
    for (; i < m; i++) {
        rows(t, 1, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
}

#define GK_GEMV_ENTRIES(isa)                                                                                     \
    void gk_gemv_f32_##isa(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy, \
                           float * d, int64_t ldd) {                                                             \
        gemv(T_F32, k, (const char *) w, ldw * 4, m, n, y, ldy, d, ldd);                                        \
    }                                                                                                            \
    void gk_gemv_f16_##isa(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y,           \
                           int64_t ldy, float * d, int64_t ldd) {                                                \
        gemv(T_F16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);                                        \
    }                                                                                                            \
    void gk_gemv_bf16_##isa(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y,          \
                            int64_t ldy, float * d, int64_t ldd) {                                               \
        gemv(T_BF16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);                                       \
    }

#endif // GK_GEMV_DRIVE_H
