/*
 * attn-x86.c - AVX2/FMA/F16C attention kernels (see gk-attn.h). Called only
 * after the CPU was checked for all three.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-attn.h"
#include "gk-fp16.h"

#include <immintrin.h>

// the four horizontal sums of a, b, c, d: three hadds and one add for all
// four (one hsum each would take five operations)
static inline __m128 hsum4x256(__m256 a, __m256 b, __m256 c, __m256 d) {
    const __m256 abcd = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
    return _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1));
}

static inline __m256 load_f16(const uint16_t * p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) p));
}

// MR query rows x NR keys: MR*NR accumulators of 8 lanes along the head
// dimension. MR = 4, NR = 3: 12 accumulators, 3 widened keys, 1 query
// vector = the 16 YMM registers; 7 loads per 12 FMAs. Fewer rows take more
// keys (1 x 8, 2 x 4), so that 6 to 12 independent FMA chains hide the
// FMA latency (decode: one query row streaming K from memory).
static inline __attribute__((always_inline)) void
qk_tile(const int MR, const int NR, int64_t dk, const float * q, int64_t ldq,
        const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    __m256 acc[4][8];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            acc[i][j] = _mm256_setzero_ps();
        }
    }
    int64_t l = 0;
    for (; l + 8 <= dk; l += 8) {
        __m256 kv[8];
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            kv[j] = load_f16(k + j * ldk + l);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const __m256 qv = _mm256_loadu_ps(q + i * ldq + l);
            #pragma GCC unroll 8
            for (int j = 0; j < NR; j++) {
                acc[i][j] = _mm256_fmadd_ps(qv, kv[j], acc[i][j]);
            }
        }
    }
    // reduce the accumulators four at a time
    __m256 flat[16];
    float sum[16];
    #pragma GCC unroll 16
    for (int x = 0; x < MR * NR; x++) {
        flat[x] = acc[x / NR][x % NR];
    }
    #pragma GCC unroll 4
    for (int x = 0; x < MR * NR; x += 4) {
        const __m256 z = _mm256_setzero_ps();
        const __m128 r = hsum4x256(flat[x], x + 1 < MR * NR ? flat[x + 1] : z,
                                   x + 2 < MR * NR ? flat[x + 2] : z, x + 3 < MR * NR ? flat[x + 3] : z);
        float t4[4];
        _mm_storeu_ps(t4, r);
        for (int y = 0; y < 4 && x + y < MR * NR; y++) {
            sum[x + y] = t4[y];
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            float t = sum[i * NR + j];
            for (int64_t e = l; e < dk; e++) {
                t += q[i * ldq + e] * gk_fp16_to_fp32(k[j * ldk + e]);
            }
            s[i * lds + j] = t;
        }
    }
}

#define QK_ROWS(MR, NR)                                                          \
    do {                                                                         \
        int j = 0;                                                               \
        for (; j + NR <= n; j += NR) {                                           \
            qk_tile(MR, NR, dk, q, ldq, k + j * ldk, ldk, s + j, lds);           \
        }                                                                        \
        for (; j < n; j++) {                                                     \
            qk_tile(MR, 1, dk, q, ldq, k + j * ldk, ldk, s + j, lds);            \
        }                                                                        \
    } while (0)

void gk_fa_qk_f16_avx2(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    switch (m) {
        case 4: QK_ROWS(4, 3); break;
        case 3: QK_ROWS(3, 3); break;
        case 2: QK_ROWS(2, 4); break;
        case 1: QK_ROWS(1, 8); break;
        default: break;
    }
}

// MR rows of o, 8*ND columns, held in registers over the n keys: per key,
// ND widened V vectors and MR broadcast weights. MR = 4, ND = 3: 12
// accumulators + 3 + 1 = 16 registers, 7 loads per 12 FMAs. Fewer rows take
// wider slices (1 x 64, 2 x 32 columns; with one row each V
// vector is used once and needs no register of its own) for enough independent FMA chains.
static inline __attribute__((always_inline)) void
pv_tile(const int MR, const int ND, int n, const float * p, int64_t ldp,
        const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    __m256 acc[4][8];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            acc[i][d] = _mm256_loadu_ps(o + i * ldo + 8 * d);
        }
    }
    for (int j = 0; j < n; j++) {
        __m256 vv[8];
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            vv[d] = load_f16(v + j * ldv + 8 * d);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const __m256 pb = _mm256_broadcast_ss(p + i * ldp + j);
            #pragma GCC unroll 8
            for (int d = 0; d < ND; d++) {
                acc[i][d] = _mm256_fmadd_ps(pb, vv[d], acc[i][d]);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            _mm256_storeu_ps(o + i * ldo + 8 * d, acc[i][d]);
        }
    }
}

#define PV_ROWS(MR, ND)                                                          \
    do {                                                                         \
        for (; d + 8 * ND <= dv; d += 8 * ND) {                                  \
            pv_tile(MR, ND, n, p, ldp, v + d, ldv, o + d, ldo);                  \
        }                                                                        \
        for (; d + 8 <= dv; d += 8) {                                            \
            pv_tile(MR, 1, n, p, ldp, v + d, ldv, o + d, ldo);                   \
        }                                                                        \
    } while (0)

void gk_fa_pv_f16_avx2(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    int64_t d = 0;
    switch (m) {
        case 4: PV_ROWS(4, 3); break;
        case 3: PV_ROWS(3, 3); break;
        case 2: PV_ROWS(2, 4); break;
        case 1: PV_ROWS(1, 8); break;
        default: return;
    }
    for (; d < dv; d++) {
        for (int i = 0; i < m; i++) {
            float t = 0.0f;
            for (int j = 0; j < n; j++) {
                t += p[i * ldp + j] * gk_fp16_to_fp32(v[j * ldv + d]);
            }
            o[i * ldo + d] += t;
        }
    }
}
