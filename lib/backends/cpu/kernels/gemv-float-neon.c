/*
 * gemv-float-neon.c - few-column products of F32, F16 and BF16 weights on
 * NEON (gk-gemv.h). A tile is 4 weight rows x up to 4 columns: 16
 * accumulators of 4 lanes, the 4 weight vectors of a K step (F16 widened
 * by FCVTL, BF16 by a shift) and one column vector at a time in the other
 * registers. Tiles of fewer than 8 accumulators take two K steps at once
 * into two sets, so that 8 FMA chains are in flight. No software prefetch
 * (not measured on arm64 hardware). One column (decode) reads up to four
 * blocks of rows far apart in one loop (gk_gemv1_*, gk-gemv1-drive.h), as
 * the x86 files do.
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__aarch64__)

#include "gk-gemv.h"
#include "gk-gemv-tile.h"
#include "gk-fp16.h"

#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>

// rows per tile, widest column block (the prefetch distance: gk-gemv-tile.h)
#define TR 4
#define TN 4
// bytes of a row per K piece with several column blocks
#define GEMV_KB 4096

static inline __attribute__((always_inline)) float32x4_t ldw(const int t, const char * p) {
    if (t == T_F32) {
        return vld1q_f32((const float *) p);
    }
    const uint16x4_t h = vld1_u16((const uint16_t *) p);
    if (t == T_F16) {
        return vcvt_f32_f16(vreinterpret_f16_u16(h));
    }
    return vreinterpretq_f32_u32(vshll_n_u16(h, 16));
}

static inline __attribute__((always_inline)) void tile(const int t, const int R, const int N, bool pf, int64_t k, int64_t rem, bool add,
                                                       const char * w, int64_t ldb, const float * y, int64_t ldy,
                                                       float * d, int64_t ldd) {
    const int es = t == T_F32 ? 4 : 2;
    const int U = R * N < 8 ? 2 : 1;
    (void) pf;
    float32x4_t acc[2][TR][TN];
#pragma GCC unroll 2
    for (int u = 0; u < U; u++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
            for (int j = 0; j < N; j++) {
                acc[u][r][j] = vdupq_n_f32(0);
            }
        }
    }
    int64_t i = 0;
    for (; i + 4 * U <= k; i += 4 * U) {
#pragma GCC unroll 2
        for (int u = 0; u < U; u++) {
            float32x4_t wv[TR];
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                wv[r] = ldw(t, w + r * ldb + (i + 4 * u) * es);
            }
#pragma GCC unroll 4
            for (int j = 0; j < N; j++) {
                const float32x4_t yv = vld1q_f32(y + j * ldy + i + 4 * u);
#pragma GCC unroll 4
                for (int r = 0; r < R; r++) {
                    acc[u][r][j] = vfmaq_f32(acc[u][r][j], wv[r], yv);
                }
            }
        }
    }
    if (U == 2 && i + 4 <= k) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const float32x4_t wv = ldw(t, w + r * ldb + i * es);
#pragma GCC unroll 4
            for (int j = 0; j < N; j++) {
                acc[0][r][j] = vfmaq_f32(acc[0][r][j], wv, vld1q_f32(y + j * ldy + i));
            }
        }
        i += 4;
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int j = 0; j < N; j++) {
            float s = vaddvq_f32(U == 2 ? vaddq_f32(acc[0][r][j], acc[1][r][j]) : acc[0][r][j]);
            for (int64_t l = i; l < k; l++) {
                s += ldw1(t, w + r * ldb, l) * y[j * ldy + l];
            }
            d[j * ldd + r] = add ? d[j * ldd + r] + s : s;
        }
    }
}

#include "gk-gemv-drive.h"

GK_GEMV_ENTRIES(neon)

// One column on NS blocks (gk_gemv1_*): a row of each per tile
// (gk-gemv1-tile.h); 8 accumulators for four blocks
typedef float32x4_t gk_v1_t;
#define GK_V1_W 4
#define gk_v1_zero() vdupq_n_f32(0)
#define gk_v1_loady(p) vld1q_f32(p)
#define gk_v1_fma(a, w, y) vfmaq_f32((a), (w), (y))
#define gk_v1_add(a, b) vaddq_f32((a), (b))
#define gk_v1_hsum(v) vaddvq_f32(v)
#include "gk-gemv1-tile.h"

static inline __attribute__((always_inline)) void tile1(const int t, const int NS, int64_t k,
                                                        const char * const * w, int64_t ldb, const void * yp,
                                                        float * const * d) {
    (void) ldb;
    tile1_sets(t, NS, k, w, (const float *) yp, d);
}

#include "gk-gemv1-drive.h"

GK_GEMV1_ENTRIES(neon)

#endif
