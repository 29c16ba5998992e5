/*
 * gemv-float-avx512.c - few-column products of F32, F16 and BF16 weights on
 * 512-bit FMAs (gk-gemv.h). A tile is 4 weight rows x up to 6 columns: 24
 * accumulators of 16 lanes, the 4 weight vectors of a K step (F16 widened
 * by VCVTPH2PS, BF16 by a shift) and one column vector at a time in the
 * other registers. Tiles of fewer than 8 accumulators (1 column, 4 rows)
 * take two K steps at once into two sets, so that 8 FMA chains are in
 * flight. Each row is prefetched GEMV_PF bytes ahead into L2 (past its end,
 * the same row of the next tile), in the first column block of a tile only:
 * the later blocks find the rows in cache.
 *
 * Call only when the CPU has AVX512F (ggml_cpu_isa()->use_avx512f).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)
#pragma GCC target("avx512f")

#include "gk-gemv.h"
#include "gk-fp16.h"

#include <immintrin.h>
#include <stdbool.h>

enum { T_F32, T_F16, T_BF16 };

// rows per tile, widest column block, prefetch distance in bytes
#define TR 4
#define TN 6
// bytes of a row per K piece with several column blocks
#define GEMV_KB 4096
#define GEMV_PF 2048

static inline __attribute__((always_inline)) __m512 ldw(const int t, const char * p) {
    if (t == T_F32) {
        return _mm512_loadu_ps(p);
    }
    const __m256i h = _mm256_loadu_si256((const __m256i *) p);
    if (t == T_F16) {
        return _mm512_cvtph_ps(h);
    }
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
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
    __m512 acc[2][TR][TN];
#pragma GCC unroll 2
    for (int u = 0; u < U; u++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
#pragma GCC unroll 6
            for (int j = 0; j < N; j++) {
                acc[u][r][j] = _mm512_setzero_ps();
            }
        }
    }
    const int64_t rowb = rem * es; // (prefetches: the row goes on past k)
    int64_t i = 0;
    for (; i + 16 * U <= k; i += 16 * U) {
        if (pf) {
            // the lines of this step's bytes (16 * U * es of each row)
            if (16 * U * es >= 64) {
#pragma GCC unroll 2
                for (int q = 0; q < 16 * U * es / 64; q++) {
                    prefetch_rows(R, w, ldb, rowb, i * es + 64 * q);
                }
            } else if (i * es % 64 == 0) {
                prefetch_rows(R, w, ldb, rowb, i * es);
            }
        }
#pragma GCC unroll 2
        for (int u = 0; u < U; u++) {
            __m512 wv[TR];
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                wv[r] = ldw(t, w + r * ldb + (i + 16 * u) * es);
            }
#pragma GCC unroll 6
            for (int j = 0; j < N; j++) {
                const __m512 yv = _mm512_loadu_ps(y + j * ldy + i + 16 * u);
#pragma GCC unroll 4
                for (int r = 0; r < R; r++) {
                    acc[u][r][j] = _mm512_fmadd_ps(wv[r], yv, acc[u][r][j]);
                }
            }
        }
    }
    if (U == 2 && i + 16 <= k) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m512 wv = ldw(t, w + r * ldb + i * es);
#pragma GCC unroll 6
            for (int j = 0; j < N; j++) {
                acc[0][r][j] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(y + j * ldy + i), acc[0][r][j]);
            }
        }
        i += 16;
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 6
        for (int j = 0; j < N; j++) {
            float s = _mm512_reduce_add_ps(U == 2 ? _mm512_add_ps(acc[0][r][j], acc[1][r][j]) : acc[0][r][j]);
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
        case 3: tile(t, R, 3, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 4: tile(t, R, 4, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 5: tile(t, R, 5, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        default: tile(t, R, 6, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
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

void gk_gemv_f32_avx512(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd) {
    gemv(T_F32, k, (const char *) w, ldw * 4, m, n, y, ldy, d, ldd);
}

void gk_gemv_f16_avx512(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd) {
    gemv(T_F16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);
}

void gk_gemv_bf16_avx512(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                         float * d, int64_t ldd) {
    gemv(T_BF16, k, (const char *) w, ldw * 2, m, n, y, ldy, d, ldd);
}

#endif
