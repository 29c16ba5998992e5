/*
 * gk-gemv-tile.h - what the few-column float tiles of every ISA share
 * (gemv-float-x86.c, -avx512.c, -neon.c, gemv-bf16-avx512.c): the weight
 * types, the scalar load of a K tail, the prefetch of a tile's rows
 * GEMV_PF bytes ahead into L2, and whether one-column rows start on cache
 * lines.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_GEMV_TILE_H
#define GK_GEMV_TILE_H

#include "gk-fp16.h"

#include <stdbool.h>
#include <stdint.h>

enum { T_F32, T_F16, T_BF16 };

#define GEMV_PF 2048

// weight l of a row of type t, as F32
static inline __attribute__((always_inline)) float ldw1(const int t, const char * p, int64_t l) {
    if (t == T_F32) {
        return ((const float *) p)[l];
    }
    const uint16_t h = ((const uint16_t *) p)[l];
    return t == T_F16 ? gk_fp16_to_fp32(h) : gk_bf16_to_fp32(h);
}

// the lines at byte off + GEMV_PF of R rows ldb bytes apart, rowb bytes
// long (past their end, the same rows of the next tile), into L2
static inline __attribute__((always_inline)) void prefetch_rows(const int R, const char * w, int64_t ldb, int64_t rowb,
                                                                int64_t off) {
    const int64_t pe = off + GEMV_PF;
    const char * p = pe < rowb ? w + pe : w + R * ldb + (pe - rowb);
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
        __builtin_prefetch(p + r * ldb, 0, 2);
    }
}

// true when the NS rows at w all start on a cache line (gk_gemv1_* tiles:
// 512-bit loads off a line span two, which streams slower from DRAM)
static inline __attribute__((always_inline)) bool rows_on_lines(const int NS, const char * const * w) {
    uintptr_t mis = 0;
#pragma GCC unroll 4
    for (int s = 0; s < NS; s++) {
        mis |= (uintptr_t) w[s];
    }
    return mis % 64 == 0;
}

#endif // GK_GEMV_TILE_H
