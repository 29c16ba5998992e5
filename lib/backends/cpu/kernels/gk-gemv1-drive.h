/*
 * gk-gemv1-drive.h - the ISA-independent part of the one-column float
 * products on several memory streams (gk_gemv1_*, gk-gemv.h): ns blocks of
 * m rows, row i of every block in the same loop (so that each thread
 * streams from ns places far apart in the weights, each block's rows one
 * after the other, not from one). Included by each ISA's file after it
 * defines
 *
 *   tile1(t, NS, k, w, ldb, y, d)
 *                          row w[s] of each of NS blocks over all of K into
 *                          *d[s] (ldb: to the block's next row, for the
 *                          prefetches), NS constant where it is inlined;
 *
 * and GK_GEMV1_ENTRIES(isa) then defines gk_gemv1_f32_<isa>, _f16_<isa> and
 * _bf16_<isa>.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_GEMV1_DRIVE_H
#define GK_GEMV1_DRIVE_H

#include <stddef.h>
#include <stdint.h>

// NS blocks of m rows: row i of every block at once
static inline __attribute__((always_inline)) void gemv1_blocks(const int t, const int NS, int64_t k,
                                                               const void * const * w, int64_t ldb, int m,
                                                               const void * y, float * const * d) {
    const char * wp[GK_GEMV_STREAMS];
    float * dp[GK_GEMV_STREAMS];
    for (int i = 0; i < m; i++) {
#pragma GCC unroll 4
        for (int s = 0; s < NS; s++) {
            wp[s] = (const char *) w[s] + i * ldb;
            dp[s] = d[s] + i;
        }
        tile1(t, NS, k, wp, ldb, y, dp);
    }
}

static inline __attribute__((always_inline)) void gemv1(const int t, int64_t k, int ns, const void * const * w,
                                                        size_t ldb, int m, const void * y, float * const * d) {
    _Static_assert(GK_GEMV_STREAMS == 4, "one case per block count");
    switch (ns) {
        case 1: gemv1_blocks(t, 1, k, w, (int64_t) ldb, m, y, d); break;
        case 2: gemv1_blocks(t, 2, k, w, (int64_t) ldb, m, y, d); break;
        case 3: gemv1_blocks(t, 3, k, w, (int64_t) ldb, m, y, d); break;
        default: gemv1_blocks(t, 4, k, w, (int64_t) ldb, m, y, d); break;
    }
}

#define GK_GEMV1_ENTRIES(isa)                                                                                   \
    void gk_gemv1_f32_##isa(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,      \
                            float * const * d) {                                                                \
        gemv1(T_F32, k, ns, w, ldb, m, y, d);                                                                   \
    }                                                                                                           \
    void gk_gemv1_f16_##isa(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,      \
                            float * const * d) {                                                                \
        gemv1(T_F16, k, ns, w, ldb, m, y, d);                                                                   \
    }                                                                                                           \
    void gk_gemv1_bf16_##isa(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,     \
                             float * const * d) {                                                               \
        gemv1(T_BF16, k, ns, w, ldb, m, y, d);                                                                  \
    }

#endif // GK_GEMV1_DRIVE_H
