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
#pragma GCC target("avx512f,fma")

#include "gk-avx512.h"
#include "gk-gemv.h"
#include "gk-gemv-tile.h"
#include "gk-fp16.h"

#include <immintrin.h>
#include <stdbool.h>

// rows per tile, widest column block (the prefetch distance: gk-gemv-tile.h)
#define TR 4
#define TN 6
// bytes of a row per K piece with several column blocks
#define GEMV_KB 4096

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

#include "gk-gemv-drive.h"

GK_GEMV_ENTRIES(avx512)

// F32 rows of tile1() below that do not start on a cache line: each 512-bit
// load would span two lines, and such loads stream from DRAM 20-25% slower
// on Zen 5 than aligned ones (a 256-bit load at 16 bytes past a line spans
// two only every other time, at 32 never). So two 256-bit loads and FMAs
// on the halves of each accumulator: each lane sees the same operations in
// the same order, and the halves are joined again for the same sums. (Two
// 256-bit loads joined into one 512-bit vector, as the BF16 tile1() does,
// measured no faster here: 4096 x 14336, one thread, twelve alternating
// rounds on a busy host.)
static inline __attribute__((always_inline)) void tile1_f32_halves(const int NS, int64_t k, const char * const * w,
                                                                   const float * y, float * const * d) {
    __m256 acc[2][2][GK_GEMV_STREAMS]; // [K step][half][block]
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            acc[u][0][s] = _mm256_setzero_ps();
            acc[u][1][s] = _mm256_setzero_ps();
        }
    }
    int64_t i = 0;
    for (; i + 32 <= k; i += 32) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m256 yv = _mm256_loadu_ps(y + i + 16 * u + 8 * h);
#pragma GCC unroll 4
                for (int s = 0; s < NS; s++) {
                    const __m256 wv = _mm256_loadu_ps((const float *) w[s] + i + 16 * u + 8 * h);
                    acc[u][h][s] = _mm256_fmadd_ps(wv, yv, acc[u][h][s]);
                }
            }
        }
    }
    if (i + 16 <= k) {
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256 yv = _mm256_loadu_ps(y + i + 8 * h);
#pragma GCC unroll 4
            for (int s = 0; s < NS; s++) {
                acc[0][h][s] = _mm256_fmadd_ps(_mm256_loadu_ps((const float *) w[s] + i + 8 * h), yv, acc[0][h][s]);
            }
        }
        i += 16;
    }
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        const __m512 a = _mm512_add_ps(gk_join256_avx512(acc[0][0][s], acc[0][1][s]), gk_join256_avx512(acc[1][0][s], acc[1][1][s]));
        float sum = _mm512_reduce_add_ps(a);
        for (int64_t l = i; l < k; l++) {
            sum += ((const float *) w[s])[l] * y[l];
        }
        *d[s] = sum;
    }
}

typedef __m512 gk_v1_t;
#define GK_V1_W 16
#define gk_v1_zero() _mm512_setzero_ps()
#define gk_v1_loady(p) _mm512_loadu_ps(p)
#define gk_v1_fma(a, w, y) _mm512_fmadd_ps((w), (y), (a))
#define gk_v1_add(a, b) _mm512_add_ps((a), (b))
#define gk_v1_hsum(v) _mm512_reduce_add_ps(v)
#include "gk-gemv1-tile.h"

// One column on NS blocks (gk_gemv1_*): a row of each per tile
// (gk-gemv1-tile.h; rows off a cache line: tile1_f32_halves). No software
// prefetch: one per line, 2 KiB ahead, cost 10-25% of the DRAM rate
// against the hardware prefetchers alone (Zen 5, four streams per thread).
static inline __attribute__((always_inline)) void tile1(const int t, const int NS, int64_t k,
                                                        const char * const * w, int64_t ldb, const void * yp,
                                                        float * const * d) {
    (void) ldb;
    const float * y = yp;
    if (t == T_F32 && !rows_on_lines(NS, w)) {
        tile1_f32_halves(NS, k, w, y, d);
        return;
    }
    tile1_sets(t, NS, k, w, y, d);
}

#include "gk-gemv1-drive.h"

GK_GEMV1_ENTRIES(avx512)

#endif
