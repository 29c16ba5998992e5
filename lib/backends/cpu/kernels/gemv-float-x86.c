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
#include "gk-gemv-tile.h"
#include "gk-fp16.h"

#include <immintrin.h>
#include <stdbool.h>

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// rows per tile, widest column block (the prefetch distance: gk-gemv-tile.h)
#define TR 4
#define TN 3
// bytes of a row per K piece with several column blocks
#define GEMV_KB 4096

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

#include "gk-gemv-drive.h"

GK_GEMV_ENTRIES(avx2)

// One column on NS blocks (gk_gemv1_*): a row of each per tile
// (gk-gemv1-tile.h); 8 accumulators, the column vector and a weight vector
// in the 16 registers. No software prefetch (the hardware prefetchers alone
// stream faster: the AVX-512 tile1() in gemv-float-avx512.c)
typedef __m256 gk_v1_t;
#define GK_V1_W 8
#define gk_v1_zero() _mm256_setzero_ps()
#define gk_v1_loady(p) _mm256_loadu_ps(p)
#define gk_v1_fma(a, w, y) _mm256_fmadd_ps((w), (y), (a))
#define gk_v1_add(a, b) _mm256_add_ps((a), (b))
#define gk_v1_hsum(v) hsum256(v)
#include "gk-gemv1-tile.h"

static inline __attribute__((always_inline)) void tile1(const int t, const int NS, int64_t k,
                                                        const char * const * w, int64_t ldb, const void * yp,
                                                        float * const * d) {
    (void) ldb;
    tile1_sets(t, NS, k, w, (const float *) yp, d);
}

#include "gk-gemv1-drive.h"

GK_GEMV1_ENTRIES(avx2)

#endif
