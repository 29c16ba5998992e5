/*
 * gemv-bf16-avx512.c - few-column products of BF16 weights with BF16
 * activations on VDPBF16PS (gk-gemv.h): each instruction multiplies 16
 * pairs of neighbouring K values and adds both products into the F32 lane,
 * so a 512-bit load of 32 weights goes straight into the FMA unit with no
 * widening, and the horizontal sum of the lanes at the end is the dot. A
 * tile is 4 weight rows x up to 6 columns, with two sets of accumulators
 * and the prefetches of gemv-float-avx512.c. The tail of K below 32 values
 * is summed in scalar F32 (the products of two BF16 values are exact).
 *
 * Call only when the CPU has AVX512-BF16 (ggml_cpu_isa()->use_bf16dp).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512bf16")

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

static inline __attribute__((always_inline)) void tile(const int R, const int N, bool pf, int64_t k, int64_t rem, bool add,
                                                       const char * w, int64_t ldb, const uint16_t * y, int64_t ldy,
                                                       float * d, int64_t ldd) {
    const int es = 2;
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
    for (; i + 32 * U <= k; i += 32 * U) {
        if (pf) {
            // the lines of this step's bytes (32 * U * es of each row)
            if (32 * U * es >= 64) {
#pragma GCC unroll 2
                for (int q = 0; q < 32 * U * es / 64; q++) {
                    prefetch_rows(R, w, ldb, rowb, i * es + 64 * q);
                }
            } else if (i * es % 64 == 0) {
                prefetch_rows(R, w, ldb, rowb, i * es);
            }
        }
#pragma GCC unroll 2
        for (int u = 0; u < U; u++) {
            __m512bh wv[TR];
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                wv[r] = (__m512bh) _mm512_loadu_si512(w + r * ldb + (i + 32 * u) * es);
            }
#pragma GCC unroll 6
            for (int j = 0; j < N; j++) {
                const __m512bh yv = (__m512bh) _mm512_loadu_si512(y + j * ldy + i + 32 * u);
#pragma GCC unroll 4
                for (int r = 0; r < R; r++) {
                    acc[u][r][j] = _mm512_dpbf16_ps(acc[u][r][j], wv[r], yv);
                }
            }
        }
    }
    if (U == 2 && i + 32 <= k) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m512bh wv = (__m512bh) _mm512_loadu_si512(w + r * ldb + i * es);
#pragma GCC unroll 6
            for (int j = 0; j < N; j++) {
                acc[0][r][j] = _mm512_dpbf16_ps(acc[0][r][j], wv, (__m512bh) _mm512_loadu_si512(y + j * ldy + i));
            }
        }
        i += 32;
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 6
        for (int j = 0; j < N; j++) {
            float s = _mm512_reduce_add_ps(U == 2 ? _mm512_add_ps(acc[0][r][j], acc[1][r][j]) : acc[0][r][j]);
            for (int64_t l = i; l < k; l++) {
                s += gk_bf16_to_fp32(((const uint16_t *) (w + r * ldb))[l]) * gk_bf16_to_fp32(y[j * ldy + l]);
            }
            d[j * ldd + r] = add ? d[j * ldd + r] + s : s;
        }
    }
}

// R rows x nc columns (1 <= nc <= TN) as a tile of constant shape
static inline __attribute__((always_inline)) void tile_n(const int R, int nc, bool pf, int64_t k, int64_t rem, bool add,
                                                         const char * w, int64_t ldb, const uint16_t * y, int64_t ldy,
                                                         float * d, int64_t ldd) {
    switch (nc) {
        case 1: tile(R, 1, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 2: tile(R, 2, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 3: tile(R, 3, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 4: tile(R, 4, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        case 5: tile(R, 5, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
        default: tile(R, 6, pf, k, rem, add, w, ldb, y, ldy, d, ldd); break;
    }
}

// R rows by n columns. One column block: one pass over K. More: the rows
// in K pieces of GEMV_KB bytes, every block over a piece before the next,
// so that the piece is read from DRAM once, stays in L1 for the later
// blocks, and streams in while all the blocks compute (not in the first
// block's pass alone).
static inline __attribute__((always_inline)) void rows(const int R, int64_t k, const char * w, int64_t ldb, int n,
                                                       const uint16_t * y, int64_t ldy, float * d, int64_t ldd) {
    const int nb = (n + TN - 1) / TN; // column blocks, balanced
    const int64_t kc = nb == 1 ? k : GEMV_KB / 2;
    for (int64_t k0 = 0; k0 < k; k0 += kc) {
        const int64_t kl = k0 + kc < k ? kc : k - k0;
        for (int b = 0; b < nb; b++) {
            const int j0 = n * b / nb, j1 = n * (b + 1) / nb;
            tile_n(R, j1 - j0, b == 0, kl, k - k0, k0 > 0, w + k0 * 2, ldb, y + j0 * ldy + k0, ldy,
                   d + j0 * ldd, ldd);
        }
    }
}

// 32 BF16 weights at p: one 512-bit load where the rows start on cache
// lines (lines), else two 256-bit loads joined (a 512-bit load off a line
// spans two, and such loads stream from DRAM 20-25% slower on Zen 5:
// gemv-float-avx512.c); the same vector
static inline __attribute__((always_inline)) __m512bh ldw32(bool lines, const char * p) {
    if (lines) {
        return (__m512bh) _mm512_loadu_si512(p);
    }
    const __m256i lo = _mm256_loadu_si256((const __m256i *) p), hi = _mm256_loadu_si256((const __m256i *) (p + 32));
    return (__m512bh) _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// One column on NS blocks (gk_gemv1_bf16_bf16_avx512bf16): a row of each
// per tile, in two sets of accumulators as tile() takes for one column
// (the same operations in each row's lanes: the same bits); no software
// prefetch (the hardware prefetchers alone stream faster: the F32 tile1()
// of gemv-float-avx512.c)
static inline __attribute__((always_inline)) void tile1_l(bool lines, const int NS, int64_t k, const char * const * w,
                                                          const uint16_t * y, float * const * d) {
    const int es = 2;
    __m512 acc[2][GK_GEMV_STREAMS];
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        acc[0][s] = _mm512_setzero_ps();
        acc[1][s] = _mm512_setzero_ps();
    }
    int64_t i = 0;
    for (; i + 64 <= k; i += 64) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            const __m512bh yv = (__m512bh) _mm512_loadu_si512(y + i + 32 * u);
#pragma GCC unroll 4
            for (int s = 0; s < NS; s++) {
                acc[u][s] = _mm512_dpbf16_ps(acc[u][s], ldw32(lines, w[s] + (i + 32 * u) * es), yv);
            }
        }
    }
    if (i + 32 <= k) {
        const __m512bh yv = (__m512bh) _mm512_loadu_si512(y + i);
#pragma GCC unroll 4
        for (int s = 0; s < NS; s++) {
            acc[0][s] = _mm512_dpbf16_ps(acc[0][s], ldw32(lines, w[s] + i * es), yv);
        }
        i += 32;
    }
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        float sum = _mm512_reduce_add_ps(_mm512_add_ps(acc[0][s], acc[1][s]));
        for (int64_t l = i; l < k; l++) {
            sum += gk_bf16_to_fp32(((const uint16_t *) w[s])[l]) * gk_bf16_to_fp32(y[l]);
        }
        *d[s] = sum;
    }
}

static inline __attribute__((always_inline)) void tile1(const int t, const int NS, int64_t k,
                                                        const char * const * w, int64_t ldb, const void * yp,
                                                        float * const * d) {
    (void) t;
    (void) ldb;
    if (rows_on_lines(NS, w)) {
        tile1_l(true, NS, k, w, yp, d);
    } else {
        tile1_l(false, NS, k, w, yp, d);
    }
}

#include "gk-gemv1-drive.h"

void gk_gemv1_bf16_bf16_avx512bf16(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                                   float * const * d) {
    gemv1(0, k, ns, w, ldb, m, y, d);
}

void gk_gemv_bf16_bf16_avx512bf16(int64_t k, const uint16_t * wp, int64_t ldw, int m, int n, const uint16_t * y,
                                  int64_t ldy, float * d, int64_t ldd) {
    const char * w = (const char *) wp;
    const int64_t ldb = ldw * 2;
    int i = 0;
    for (; i + TR <= m; i += TR) {
        rows(TR, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
    for (; i < m; i++) {
        rows(1, k, w + i * ldb, ldb, n, y, ldy, d + i, ldd);
    }
}

#endif
