/*
 * gk-gemv1-tile.h - the one-column tile most ISAs' gk_gemv1_* take (the
 * tile1 that gk-gemv1-drive.h calls): row w[s] of each of NS blocks over
 * all of K, in two sets of accumulators two vectors of K at a time, then
 * one vector, then the scalar tail, as the same ISA's few-column tile does
 * for one column (fewer than 8 accumulators: two K steps at once), so each
 * row's lanes see the same operations in the same order and the results
 * are the same bits. Included by an ISA's file after it defines
 *
 *   gk_v1_t               its vector type, of GK_V1_W floats;
 *   gk_v1_zero()          a vector of zeros;
 *   gk_v1_loady(p)        GK_V1_W floats of the column;
 *   gk_v1_fma(a, w, y)    a + w * y, fused;
 *   gk_v1_add(a, b)       a + b;
 *   gk_v1_hsum(v)         its lanes' sum, in the order of its tile;
 *   ldw(t, p), ldw1(t, p, l)  (gk-gemv-tile.h) weights as a vector / one.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_GEMV1_TILE_H
#define GK_GEMV1_TILE_H

#include <stdint.h>

static inline __attribute__((always_inline)) void tile1_sets(const int t, const int NS, int64_t k,
                                                             const char * const * w, const float * y,
                                                             float * const * d) {
    const int es = t == T_F32 ? 4 : 2;
    gk_v1_t acc[2][GK_GEMV_STREAMS];
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        acc[0][s] = gk_v1_zero();
        acc[1][s] = gk_v1_zero();
    }
    int64_t i = 0;
    for (; i + 2 * GK_V1_W <= k; i += 2 * GK_V1_W) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            const gk_v1_t yv = gk_v1_loady(y + i + GK_V1_W * u);
#pragma GCC unroll 4
            for (int s = 0; s < NS; s++) {
                acc[u][s] = gk_v1_fma(acc[u][s], ldw(t, w[s] + (i + GK_V1_W * u) * es), yv);
            }
        }
    }
    if (i + GK_V1_W <= k) {
        const gk_v1_t yv = gk_v1_loady(y + i);
#pragma GCC unroll 4
        for (int s = 0; s < NS; s++) {
            acc[0][s] = gk_v1_fma(acc[0][s], ldw(t, w[s] + i * es), yv);
        }
        i += GK_V1_W;
    }
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        float sum = gk_v1_hsum(gk_v1_add(acc[0][s], acc[1][s]));
        for (int64_t l = i; l < k; l++) {
            sum += ldw1(t, w[s], l) * y[l];
        }
        *d[s] = sum;
    }
}

#endif // GK_GEMV1_TILE_H
