/*
 * attn-t-x86.c - FLASH_ATTN_EXT's transposed block form on AVX2/FMA/F16C
 * (see gk-attn.h, the gk_fa_t*_avx2 group): attn-avx512.c's scheme with
 * eight lanes. A block of up to 32 query rows is held transposed, the rows
 * along the lanes (rv vectors of 8 rows), so that a score, a weight or an
 * output element of all the block's rows is rv vectors; both products are
 * GEMM tiles with one operand broadcast from memory and the online softmax
 * is vertical.
 *
 * The tiles fit the 16 YMM registers: NJ keys (or output columns) x RV row
 * vectors of accumulators, RV vectors of Q (or of the weights) and one
 * broadcast: 1 x 12, 2 x 6, 3 x 4 (15 or 16 registers), 4 x 2 (13); per
 * step RV + NJ loads for RV * NJ FMAs. Any head dimension (the vectors run
 * along the rows). Called only after the CPU was checked for all three
 * extensions.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-attn.h"
#include "gk-exp-avx2.h"

#include <immintrin.h>

void gk_fa_rows_f16_avx2(int n, int64_t d, const uint16_t * src, int64_t lds, float * dst, int64_t ldd) {
    for (int j = 0; j < n; j++) {
        const uint16_t * s = src + j * lds;
        float * o = dst + j * ldd;
        int64_t l = 0;
        for (; l + 16 <= d; l += 16) {
            _mm256_storeu_ps(o + l, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (s + l))));
            _mm256_storeu_ps(o + l + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (s + l + 8))));
        }
        for (; l + 8 <= d; l += 8) {
            _mm256_storeu_ps(o + l, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (s + l))));
        }
        if (l < d) {
            // the last d - l (< 8) values through a padded copy
            uint16_t h[8] = { 0 };
            float f[8];
            for (int64_t e = l; e < d; e++) {
                h[e - l] = s[e];
            }
            _mm256_storeu_ps(f, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) h)));
            for (int64_t e = l; e < d; e++) {
                o[e] = f[e - l];
            }
        }
    }
}

int gk_fa_mask_class_avx2(const void * row, int f16, int n) {
    // F16: no bits but the sign (zero), every value 0xfc00 (-inf); F32
    // likewise with 0x7fffffff, 0xff800000. Whole vectors, then the tail
    // (n % per values) one at a time.
    const int per = f16 ? 16 : 8;
    const __m256i abs = f16 ? _mm256_set1_epi16(0x7fff) : _mm256_set1_epi32(0x7fffffff);
    const __m256i ninf = f16 ? _mm256_set1_epi16((short) 0xfc00) : _mm256_set1_epi32((int) 0xff800000u);
    __m256i any = _mm256_setzero_si256(), off = _mm256_setzero_si256();
    const char * p = (const char *) row;
    const int es = f16 ? 2 : 4;
    int j = 0;
    for (; j + per <= n; j += per) {
        const __m256i x = _mm256_loadu_si256((const __m256i *) (p + es * j));
        any = _mm256_or_si256(any, _mm256_and_si256(x, abs));
        off = _mm256_or_si256(off, _mm256_xor_si256(x, ninf));
    }
    bool z = _mm256_testz_si256(any, any), o = _mm256_testz_si256(off, off);
    for (; j < n; j++) {
        uint32_t x;
        if (f16) {
            const uint16_t h = ((const uint16_t *) row)[j];
            z = z && (h & 0x7fffu) == 0;
            o = o && h == 0xfc00u;
            continue;
        }
        x = ((const uint32_t *) row)[j];
        z = z && (x & 0x7fffffffu) == 0;
        o = o && x == 0xff800000u;
    }
    return z ? 0 : o ? 1 : 2;
}

// NJ keys x RV row vectors of scores
static inline __attribute__((always_inline)) void
qkt_tile(const int RV, const int NJ, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st) {
    __m256 acc[12][4];
#pragma GCC unroll 12
    for (int j = 0; j < NJ; j++) {
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            acc[j][r] = _mm256_setzero_ps();
        }
    }
    for (int64_t l = 0; l < dk; l++) {
        __m256 q[4];
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            q[r] = _mm256_loadu_ps(qt + (l * RV + r) * 8);
        }
#pragma GCC unroll 12
        for (int j = 0; j < NJ; j++) {
            const __m256 kb = _mm256_broadcast_ss(k + j * ldk + l);
#pragma GCC unroll 4
            for (int r = 0; r < RV; r++) {
                acc[j][r] = _mm256_fmadd_ps(q[r], kb, acc[j][r]);
            }
        }
    }
#pragma GCC unroll 12
    for (int j = 0; j < NJ; j++) {
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            _mm256_storeu_ps(st + (j * RV + r) * 8, acc[j][r]);
        }
    }
}

// the keys by tiles of NJ (the widest that fits), then 2 and 1
static inline __attribute__((always_inline)) void
qkt_rows(const int RV, const int NJ, int n, int64_t dk, const float * qt, const float * k, int64_t ldk,
         float * st) {
    int j = 0;
    for (; j + NJ <= n; j += NJ) {
        qkt_tile(RV, NJ, dk, qt, k + j * ldk, ldk, st + j * RV * 8);
    }
    for (; j + 2 <= n; j += 2) {
        qkt_tile(RV, 2, dk, qt, k + j * ldk, ldk, st + j * RV * 8);
    }
    for (; j < n; j++) {
        qkt_tile(RV, 1, dk, qt, k + j * ldk, ldk, st + j * RV * 8);
    }
}

void gk_fa_tqk_avx2(int rv, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st) {
    switch (rv) {
        case 1: qkt_rows(1, 12, n, dk, qt, k, ldk, st); break;
        case 2: qkt_rows(2, 6, n, dk, qt, k, ldk, st); break;
        case 3: qkt_rows(3, 4, n, dk, qt, k, ldk, st); break;
        default: qkt_rows(4, 2, n, dk, qt, k, ldk, st); break;
    }
}

static inline __attribute__((always_inline)) void
soft_rows(const int RV, int n, float scale, const float * mt, float * st, float * m, float * s, float * ms) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th), vs = _mm256_set1_ps(scale);
    const __m256 ninf = _mm256_set1_ps(-__builtin_inff());
    __m256 mx[4], sum[4], ref[4];
#pragma GCC unroll 4
    for (int r = 0; r < RV; r++) {
        mx[r] = _mm256_loadu_ps(m + 8 * r);
    }
    for (int j = 0; j < n; j++) {
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            float * x = st + (j * RV + r) * 8;
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            if (mt) {
                v = _mm256_add_ps(v, _mm256_loadu_ps(mt + (j * RV + r) * 8));
            }
            _mm256_storeu_ps(x, v);
            mx[r] = _mm256_max_ps(v, mx[r]); // keeps mx where v is NaN
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < RV; r++) {
        // a row with no key yet (max -inf) takes 0 as its reference: its
        // weights are then e^-inf = 0 and nothing is added
        const __m256 none = _mm256_cmp_ps(mx[r], ninf, _CMP_EQ_OQ);
        ref[r] = _mm256_andnot_ps(none, mx[r]);
        const __m256 old = _mm256_loadu_ps(m + 8 * r);
        const __m256 f = gk_exp_neg256(_mm256_sub_ps(old, ref[r]), tab);
        _mm256_storeu_ps(ms + 8 * r, f);
        _mm256_storeu_ps(m + 8 * r, mx[r]);
        sum[r] = _mm256_mul_ps(_mm256_loadu_ps(s + 8 * r), f);
    }
    for (int j = 0; j < n; j++) {
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            float * x = st + (j * RV + r) * 8;
            const __m256 p = gk_exp_neg256(_mm256_sub_ps(_mm256_loadu_ps(x), ref[r]), tab);
            _mm256_storeu_ps(x, p);
            sum[r] = _mm256_add_ps(sum[r], p);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < RV; r++) {
        _mm256_storeu_ps(s + 8 * r, sum[r]);
    }
}

void gk_fa_tsoftmax_avx2(int rv, int n, float scale, const float * mt, float * st, float * m, float * s,
                         float * ms) {
    switch (rv) {
        case 1: soft_rows(1, n, scale, mt, st, m, s, ms); break;
        case 2: soft_rows(2, n, scale, mt, st, m, s, ms); break;
        case 3: soft_rows(3, n, scale, mt, st, m, s, ms); break;
        default: soft_rows(4, n, scale, mt, st, m, s, ms); break;
    }
}

// ND output columns x RV row vectors, over the n keys
static inline __attribute__((always_inline)) void
pvt_tile(const int RV, const int ND, int n, const float * pt, const float * v, int64_t ldv, const float * ms,
         float * ot) {
    __m256 acc[12][4];
#pragma GCC unroll 4
    for (int r = 0; r < RV; r++) {
        const __m256 f = _mm256_loadu_ps(ms + 8 * r);
#pragma GCC unroll 12
        for (int d = 0; d < ND; d++) {
            acc[d][r] = _mm256_mul_ps(_mm256_loadu_ps(ot + (d * RV + r) * 8), f);
        }
    }
    for (int j = 0; j < n; j++) {
        __m256 p[4];
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            p[r] = _mm256_loadu_ps(pt + (j * RV + r) * 8);
        }
#pragma GCC unroll 12
        for (int d = 0; d < ND; d++) {
            const __m256 vb = _mm256_broadcast_ss(v + j * ldv + d);
#pragma GCC unroll 4
            for (int r = 0; r < RV; r++) {
                acc[d][r] = _mm256_fmadd_ps(p[r], vb, acc[d][r]);
            }
        }
    }
#pragma GCC unroll 12
    for (int d = 0; d < ND; d++) {
#pragma GCC unroll 4
        for (int r = 0; r < RV; r++) {
            _mm256_storeu_ps(ot + (d * RV + r) * 8, acc[d][r]);
        }
    }
}

// the output columns by tiles of ND, then 2 and 1
static inline __attribute__((always_inline)) void
pvt_rows(const int RV, const int ND, int n, int64_t dv, const float * pt, const float * v, int64_t ldv,
         const float * ms, float * ot) {
    int64_t d = 0;
    for (; d + ND <= dv; d += ND) {
        pvt_tile(RV, ND, n, pt, v + d, ldv, ms, ot + d * RV * 8);
    }
    for (; d + 2 <= dv; d += 2) {
        pvt_tile(RV, 2, n, pt, v + d, ldv, ms, ot + d * RV * 8);
    }
    for (; d < dv; d++) {
        pvt_tile(RV, 1, n, pt, v + d, ldv, ms, ot + d * RV * 8);
    }
}

void gk_fa_tpv_avx2(int rv, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
                    float * ot) {
    switch (rv) {
        case 1: pvt_rows(1, 12, n, dv, pt, v, ldv, ms, ot); break;
        case 2: pvt_rows(2, 6, n, dv, pt, v, ldv, ms, ot); break;
        case 3: pvt_rows(3, 4, n, dv, pt, v, ldv, ms, ot); break;
        default: pvt_rows(4, 2, n, dv, pt, v, ldv, ms, ot); break;
    }
}
