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

// ---------------------------------------------------------------------------
// One query row per head, keys outermost (the decode form on a KV cache's
// layout without GQA): for each key the pieces of all nh heads, i.e. the
// key's row of the cache from start to end, so a range of keys is one
// sequential stream, and the first line of each page of the row
// GK_FA_PF_AHEAD keys ahead asked for (gk_prefetch_pages). The steps per
// head are qk_tile(1, 1)'s and pv_tile(1, ND)'s with the keys one at a
// time: the same sums in the same order, so the same bits.
// ---------------------------------------------------------------------------

// NH heads x one key: s[h*lds] = q[h*ldq ..] . k[h*kgs ..]
static inline __attribute__((always_inline)) void
qkh_tile(const int NH, int64_t dk, const float * q, int64_t ldq, const uint16_t * k, int64_t kgs, float * s,
         int64_t lds) {
    __m256 acc[8];
    #pragma GCC unroll 8
    for (int h = 0; h < NH; h++) {
        acc[h] = _mm256_setzero_ps();
    }
    int64_t l = 0;
    for (; l + 8 <= dk; l += 8) {
        #pragma GCC unroll 8
        for (int h = 0; h < NH; h++) {
            acc[h] = _mm256_fmadd_ps(_mm256_loadu_ps(q + h * ldq + l), load_f16(k + h * kgs + l), acc[h]);
        }
    }
    float sum[8];
    #pragma GCC unroll 2
    for (int x = 0; x < NH; x += 4) {
        const __m256 z = _mm256_setzero_ps();
        const __m128 r = hsum4x256(acc[x], x + 1 < NH ? acc[x + 1] : z, x + 2 < NH ? acc[x + 2] : z,
                                   x + 3 < NH ? acc[x + 3] : z);
        float t4[4];
        _mm_storeu_ps(t4, r);
        for (int y = 0; y < 4 && x + y < NH; y++) {
            sum[x + y] = t4[y];
        }
    }
    #pragma GCC unroll 8
    for (int h = 0; h < NH; h++) {
        float t = sum[h];
        for (int64_t e = l; e < dk; e++) {
            t += q[h * ldq + e] * gk_fp16_to_fp32(k[h * kgs + e]);
        }
        s[h * lds] = t;
    }
}

void gk_fa_qk_f16_heads_avx2(int nh, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k,
                             int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf) {
    const int64_t len = ((nh - 1) * kgs + dk) * (int64_t) sizeof(uint16_t);
    for (int j = 0; j < n; j++) {
        const uint16_t * kj = k + j * ldk;
        if (j + GK_FA_PF_AHEAD < npf) {
            gk_prefetch_pages(kj + GK_FA_PF_AHEAD * ldk, len);
        }
        int h = 0;
        for (; h + 8 <= nh; h += 8) {
            qkh_tile(8, dk, q + h * ldq, ldq, kj + h * kgs, kgs, s + h * lds + j, lds);
        }
        const float * qh = q + h * ldq;
        const uint16_t * kh = kj + h * kgs;
        float * sh = s + h * lds + j;
        switch (nh - h) {
            case 7: qkh_tile(7, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 6: qkh_tile(6, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 5: qkh_tile(5, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 4: qkh_tile(4, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 3: qkh_tile(3, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 2: qkh_tile(2, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 1: qkh_tile(1, dk, qh, ldq, kh, kgs, sh, lds); break;
            default: break;
        }
    }
}

// one head's output row += the key's weight times its V piece (pv_tile(1,
// ND)'s steps for one key), the columns up to the last multiple of 8
static inline __attribute__((always_inline)) void pvh_head(int64_t dv, float w, const uint16_t * v, float * o) {
    const __m256 pb = _mm256_set1_ps(w);
    int64_t d = 0;
    for (; d + 32 <= dv; d += 32) {
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            _mm256_storeu_ps(o + d + 8 * c,
                             _mm256_fmadd_ps(pb, load_f16(v + d + 8 * c), _mm256_loadu_ps(o + d + 8 * c)));
        }
    }
    for (; d + 8 <= dv; d += 8) {
        _mm256_storeu_ps(o + d, _mm256_fmadd_ps(pb, load_f16(v + d), _mm256_loadu_ps(o + d)));
    }
}

void gk_fa_pv_f16_heads_avx2(int nh, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v,
                             int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf) {
    const int64_t len = ((nh - 1) * vgs + dv) * (int64_t) sizeof(uint16_t);
    for (int j = 0; j < n; j++) {
        const uint16_t * vj = v + j * ldv;
        if (j + GK_FA_PF_AHEAD < npf) {
            gk_prefetch_pages(vj + GK_FA_PF_AHEAD * ldv, len);
        }
        for (int h = 0; h < nh; h++) {
            pvh_head(dv, p[h * ldp + j], vj + h * vgs, o + h * ldo);
        }
    }
    // the columns past the last multiple of 8 as gk_fa_pv_f16_avx2's: all
    // the keys' products summed, then added
    for (int64_t d = dv & ~(int64_t) 7; d < dv; d++) {
        for (int h = 0; h < nh; h++) {
            float t = 0.0f;
            for (int j = 0; j < n; j++) {
                t += p[h * ldp + j] * gk_fp16_to_fp32(v[j * ldv + h * vgs + d]);
            }
            o[h * ldo + d] += t;
        }
    }
}
