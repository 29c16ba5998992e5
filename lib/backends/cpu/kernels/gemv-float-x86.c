/*
 * gemv-float-x86.c - few-column products of F32, F16 and BF16 weights on
 * AVX2/FMA/F16C (gk-gemv.h). A tile is 4 weight rows x up to 3 columns: 12
 * accumulators of 8 lanes, the 3 column vectors of a K step and one weight
 * vector at a time (F16 widened by VCVTPH2PS, BF16 by a shift) in the 16
 * registers (all 4 weight vectors at once would spill an accumulator). Tiles of fewer than 8 accumulators (1 column, 4 rows)
 * take two K steps at once into two sets, so that 8 FMA chains are in
 * flight. Each row is prefetched GEMV_PF bytes ahead into L2 (past its end,
 * the same row of the next tile), in the first column block of a tile only:
 * the later blocks find the rows in cache.
 *
 * Called only after the CPU was checked for AVX2, FMA and F16C.
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)
#include "gk-gemv.h"
#include "gk-fp16.h"

#include <immintrin.h>
#include <stdbool.h>

enum { T_F32, T_F16, T_BF16 };

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// rows per tile, widest column block, prefetch distance in bytes
#define TR 4
#define TN 3
// bytes of a row per K piece with several column blocks
#define GEMV_KB 4096
#define GEMV_PF 2048

static inline __attribute__((always_inline)) __m256 ldw(const int t, const char * p) {
    if (t == T_F32) {
        return _mm256_loadu_ps((const float *) p);
    }
    const __m128i h = _mm_loadu_si128((const __m128i *) p);
    if (t == T_F16) {
        return _mm256_cvtph_ps(h);
    }
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

static inline __attribute__((always_inline)) float ldw1(const int t, const char * p, int64_t l) {
    if (t == T_F32) {
        return ((const float *) p)[l];
    }
    const uint16_t h = ((const uint16_t *) p)[l];
    return t == T_F16 ? gk_fp16_to_fp32(h) : gk_bf16_to_fp32(h);
}

// the lines at byte off + GEMV_PF of R rows ldb bytes apart, rowb bytes long
static inline __attribute__((always_inline)) void prefetch_rows(const int R, const char * w, int64_t ldb, int64_t rowb,
                                                                int64_t off) {
    const int64_t pe = off + GEMV_PF;
    const char * p = pe < rowb ? w + pe : w + R * ldb + (pe - rowb);
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
        _mm_prefetch(p + r * ldb, _MM_HINT_T1);
    }
}

static inline __attribute__((always_inline)) void tile(const int t, const int R, const int N, bool pf, int64_t k, int64_t rem, bool add,
                                                       const char * w, int64_t ldb, const float * y, int64_t ldy,
                                                       float * d, int64_t ldd) {
    const int es = t == T_F32 ? 4 : 2;
    const int U = R * N < 8 ? 2 : 1;
    __m256 acc[2][TR][TN];
#pragma GCC unroll 2
    for (int u = 0; u < U; u++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
#pragma GCC unroll 3
            for (int j = 0; j < N; j++) {
                acc[u][r][j] = _mm256_setzero_ps();
            }
        }
    }
    const int64_t rowb = rem * es; // (prefetches: the row goes on past k)
    int64_t i = 0;
    for (; i + 8 * U <= k; i += 8 * U) {
        if (pf) {
            // the lines of this step's bytes (8 * U * es of each row)
            if (8 * U * es >= 64) {
#pragma GCC unroll 2
                for (int q = 0; q < 8 * U * es / 64; q++) {
                    prefetch_rows(R, w, ldb, rowb, i * es + 64 * q);
                }
            } else if (i * es % 64 == 0) {
                prefetch_rows(R, w, ldb, rowb, i * es);
            }
        }
#pragma GCC unroll 2
        for (int u = 0; u < U; u++) {
            // the columns' vectors first, then one weight vector at a
            // time: 12 + 3 + 1 registers for 4 x 3
            __m256 yv[TN];
#pragma GCC unroll 3
            for (int j = 0; j < N; j++) {
                yv[j] = _mm256_loadu_ps(y + j * ldy + i + 8 * u);
            }
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                const __m256 wv = ldw(t, w + r * ldb + (i + 8 * u) * es);
#pragma GCC unroll 3
                for (int j = 0; j < N; j++) {
                    acc[u][r][j] = _mm256_fmadd_ps(wv, yv[j], acc[u][r][j]);
                }
            }
        }
    }
    if (U == 2 && i + 8 <= k) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m256 wv = ldw(t, w + r * ldb + i * es);
#pragma GCC unroll 3
            for (int j = 0; j < N; j++) {
                acc[0][r][j] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(y + j * ldy + i), acc[0][r][j]);
            }
        }
        i += 8;
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 3
        for (int j = 0; j < N; j++) {
            float s = hsum256(U == 2 ? _mm256_add_ps(acc[0][r][j], acc[1][r][j]) : acc[0][r][j]);
            for (int64_t l = i; l < k; l++) {
                s += ldw1(t, w + r * ldb, l) * y[j * ldy + l];
            }
            d[j * ldd + r] = add ? d[j * ldd + r] + s : s;
        }
    }
}

// R rows x nc columns (1 <= nc <= TN) as a tile of constant shape
static inline __attribute__((always_inline)) void tile_n(const int t, const int R, int nc, bool pf, int64_t k, int64_t rem, bool add,
                                                         const char * w, int64_t ldb, const float * y, int64_t ldy,
                                                         float * d, int64_t ldd) {
    switch (nc) {
        case 1: tile(t, R, 1, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 2: tile(t, R, 2, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        default: tile(t, R, 3, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
    }
}

// R rows by n columns. One column block: one pass over K. More: the rows
// in K pieces of GEMV_KB bytes, every block over a piece before the next,
// so that the piece is read from DRAM once, stays in L1 for the later
// blocks, and streams in while all the blocks compute (not in the first
// block's pass alone).
static inline __attribute__((always_inline)) void rows(const int t, const int R, int64_t k, const char * w, int64_t ldb, int n,
                                                       const float * y, int64_t ldy, float * d, int64_t ldd) {
    const int nb = (n + TN - 1) / TN; // column blocks, balanced
    const int64_t kc = nb == 1 ? k : GEMV_KB / (t == T_F32 ? 4 : 2);
    for (int64_t k0 = 0; k0 < k; k0 += kc) {
        const int64_t kl = k0 + kc < k ? kc : k - k0;
        for (int b = 0; b < nb; b++) {
            const int j0 = n * b / nb, j1 = n * (b + 1) / nb;
            tile_n(t, R, j1 - j0, b == 0, kl, k - k0, k0 > 0, w + k0 * (t == T_F32 ? 4 : 2), ldb, y + j0 * ldy + k0, ldy,
                   d + j0 * ldd, ldd);
        }
    }
}

static inline __attribute__((always_inline)) void gemv(const int t, int64_t k, const char * w, int64_t ldb, int m, int n,
                                                       const float * y, int64_t ldy, float * d, int64_t ldd) {
    int i = 0;
    for (; i + TR <= m; i += TR) {
        rows(t, TR, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
    for (; i < m; i++) {
        rows(t, 1, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
}

void gk_gemv_f32_avx2(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd) {
    gemv(T_F32, k, (const char *) w, ldw * 4, m, n, y, ldy, d, ldd);
}

void gk_gemv_f16_avx2(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd) {
    gemv(T_F16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);
}

void gk_gemv_bf16_avx2(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                         float * d, int64_t ldd) {
    gemv(T_BF16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);
}

#endif
