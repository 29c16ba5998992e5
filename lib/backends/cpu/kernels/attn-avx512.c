/*
 * attn-avx512.c - FLASH_ATTN_EXT's block form on 512-bit FMAs (see
 * gk-attn.h, the gk_fa_t*_avx512 group): a block of 16 or 32 query rows
 * held transposed, the rows along the vector lanes, so that a score, a
 * weight or an output element of all the block's rows is one or two
 * vectors. Then both products are GEMM tiles with one operand broadcast
 * from memory (no horizontal sums), and the online softmax is vertical:
 * the rows' maxima, sums and rescale factors are vectors, the max and the
 * exponentials per key are a vector operation over the rows.
 *
 *   Q K^T: st[j][i] = sum_l qt[l][i] k[j][l]: a tile of NJ keys keeps NJ x
 *          RV accumulators; per head-dimension element, RV loads of qt and
 *          NJ broadcasts of K (F32: converted per chunk by the caller,
 *          gk_fa_rows_f16_avx512 for F16, once for all the block's rows).
 *   P V:   ot[d][i] = ms[i] ot[d][i] + sum_j st[j][i] v[j][d]: a tile of ND
 *          output columns keeps ND x RV accumulators (the running output's
 *          rescale is folded into its load), per key RV loads of the
 *          weights and ND broadcasts of V.
 *
 * Any head dimension (the vectors run along the rows). Call only when the
 * CPU has AVX512F (ggml_cpu_isa()->use_avx512f).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)

#include "gk-attn.h"
#include "gk-exp-avx512.h"

#include <immintrin.h>

void gk_fa_rows_f16_avx512(int n, int64_t d, const uint16_t * src, int64_t lds, float * dst, int64_t ldd) {
    const __mmask16 tail = (__mmask16) ((1u << (d & 15)) - 1u);
    for (int j = 0; j < n; j++) {
        const uint16_t * s = src + j * lds;
        float * o = dst + j * ldd;
        int64_t l = 0;
        for (; l + 32 <= d; l += 32) {
            _mm512_storeu_ps(o + l, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (s + l))));
            _mm512_storeu_ps(o + l + 16, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (s + l + 16))));
        }
        for (; l + 16 <= d; l += 16) {
            _mm512_storeu_ps(o + l, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (s + l))));
        }
        if (l < d) {
            _mm512_mask_storeu_ps(o + l, tail, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, s + l)));
        }
    }
}

int gk_fa_mask_class_avx512(const void * row, int f16, int n) {
    // F16: no bits but the sign (zero), every value 0xfc00 (-inf); F32
    // likewise with 0x7fffffff, 0xff800000
    __m512i any = _mm512_setzero_si512(), off = _mm512_setzero_si512();
    const int per = f16 ? 32 : 16;
    const __m512i abs = f16 ? _mm512_set1_epi16(0x7fff) : _mm512_set1_epi32(0x7fffffff);
    const __m512i ninf = f16 ? _mm512_set1_epi16((short) 0xfc00) : _mm512_set1_epi32((int) 0xff800000u);
    const char * p = (const char *) row;
    for (int j = 0; j < n; j += per) {
        const int left = n - j < per ? n - j : per;
        __m512i x;
        if (f16) {
            const __mmask32 k = left == 32 ? 0xffffffffu : (__mmask32) ((1u << left) - 1u);
            x = _mm512_maskz_loadu_epi16(k, p + 2 * j);
            // lanes past the end: 0xfc00 for the -inf test, 0 for the zero one
            off = _mm512_or_si512(off, _mm512_xor_si512(_mm512_mask_mov_epi16(ninf, k, x), ninf));
        } else {
            const __mmask16 k = (__mmask16) (left == 16 ? 0xffffu : (1u << left) - 1u);
            x = _mm512_maskz_loadu_epi32(k, p + 4 * j);
            off = _mm512_or_si512(off, _mm512_xor_si512(_mm512_mask_mov_epi32(ninf, k, x), ninf));
        }
        any = _mm512_or_si512(any, _mm512_and_si512(x, abs));
    }
    const bool z = _mm512_test_epi32_mask(any, any) == 0, o = _mm512_test_epi32_mask(off, off) == 0;
    return z ? 0 : o ? 1 : 2;
}

// NJ keys x RV row vectors of scores
static inline __attribute__((always_inline)) void
qkt_tile(const int RV, const int NJ, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st) {
    __m512 acc[16][2];
#pragma GCC unroll 16
    for (int j = 0; j < NJ; j++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            acc[j][r] = _mm512_setzero_ps();
        }
    }
    for (int64_t l = 0; l < dk; l++) {
        __m512 q[2];
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            q[r] = _mm512_loadu_ps(qt + (l * RV + r) * 16);
        }
#pragma GCC unroll 16
        for (int j = 0; j < NJ; j++) {
            const __m512 kb = _mm512_set1_ps(k[j * ldk + l]);
#pragma GCC unroll 2
            for (int r = 0; r < RV; r++) {
                acc[j][r] = _mm512_fmadd_ps(q[r], kb, acc[j][r]);
            }
        }
    }
#pragma GCC unroll 16
    for (int j = 0; j < NJ; j++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            _mm512_storeu_ps(st + (j * RV + r) * 16, acc[j][r]);
        }
    }
}

static inline __attribute__((always_inline)) void
qkt_rows(const int RV, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st) {
    // 16 accumulators (8 keys of two row vectors, or 16 of one): the
    // 64-key chunks without a remainder, enough independent chains
    int j = 0;
    if (RV == 2) {
        for (; j + 8 <= n; j += 8) {
            qkt_tile(RV, 8, dk, qt, k + j * ldk, ldk, st + j * RV * 16);
        }
    } else {
        for (; j + 16 <= n; j += 16) {
            qkt_tile(RV, 16, dk, qt, k + j * ldk, ldk, st + j * RV * 16);
        }
    }
    for (; j + 4 <= n; j += 4) {
        qkt_tile(RV, 4, dk, qt, k + j * ldk, ldk, st + j * RV * 16);
    }
    for (; j < n; j++) {
        qkt_tile(RV, 1, dk, qt, k + j * ldk, ldk, st + j * RV * 16);
    }
}

void gk_fa_tqk_avx512(int rv, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st) {
    if (rv == 2) {
        qkt_rows(2, n, dk, qt, k, ldk, st);
    } else {
        qkt_rows(1, n, dk, qt, k, ldk, st);
    }
}

static inline __attribute__((always_inline)) void
soft_rows(const int RV, int n, float scale, const float * mt, float * st, float * m, float * s, float * ms) {
    const __m512 tab = _mm512_load_ps(gk_exp2_16th), vs = _mm512_set1_ps(scale);
    const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
    __m512 mx[2], sum[2], ref[2];
#pragma GCC unroll 2
    for (int r = 0; r < RV; r++) {
        mx[r] = _mm512_loadu_ps(m + 16 * r);
    }
    for (int j = 0; j < n; j++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            float * x = st + (j * RV + r) * 16;
            __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x), vs);
            if (mt) {
                v = _mm512_add_ps(v, _mm512_loadu_ps(mt + (j * RV + r) * 16));
            }
            _mm512_storeu_ps(x, v);
            mx[r] = _mm512_max_ps(v, mx[r]); // keeps mx where v is NaN
        }
    }
#pragma GCC unroll 2
    for (int r = 0; r < RV; r++) {
        // a row with no key yet (max -inf) takes 0 as its reference: its
        // weights are then e^-inf = 0 and nothing is added
        const __mmask16 none = _mm512_cmp_ps_mask(mx[r], ninf, _CMP_EQ_OQ);
        ref[r] = _mm512_mask_mov_ps(mx[r], none, _mm512_setzero_ps());
        const __m512 old = _mm512_loadu_ps(m + 16 * r);
        const __m512 f = gk_exp_neg512(_mm512_sub_ps(old, ref[r]), tab);
        _mm512_storeu_ps(ms + 16 * r, f);
        _mm512_storeu_ps(m + 16 * r, mx[r]);
        sum[r] = _mm512_mul_ps(_mm512_loadu_ps(s + 16 * r), f);
    }
    for (int j = 0; j < n; j++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            float * x = st + (j * RV + r) * 16;
            const __m512 p = gk_exp_neg512(_mm512_sub_ps(_mm512_loadu_ps(x), ref[r]), tab);
            _mm512_storeu_ps(x, p);
            sum[r] = _mm512_add_ps(sum[r], p);
        }
    }
#pragma GCC unroll 2
    for (int r = 0; r < RV; r++) {
        _mm512_storeu_ps(s + 16 * r, sum[r]);
    }
}

void gk_fa_tsoftmax_avx512(int rv, int n, float scale, const float * mt, float * st, float * m, float * s,
                           float * ms) {
    if (rv == 2) {
        soft_rows(2, n, scale, mt, st, m, s, ms);
    } else {
        soft_rows(1, n, scale, mt, st, m, s, ms);
    }
}

// ND output columns x RV row vectors, over the n keys
static inline __attribute__((always_inline)) void
pvt_tile(const int RV, const int ND, int n, const float * pt, const float * v, int64_t ldv, const __m512 * f,
         float * ot) {
    __m512 acc[16][2];
#pragma GCC unroll 16
    for (int d = 0; d < ND; d++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            acc[d][r] = _mm512_mul_ps(_mm512_loadu_ps(ot + (d * RV + r) * 16), f[r]);
        }
    }
    for (int j = 0; j < n; j++) {
        __m512 p[2];
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            p[r] = _mm512_loadu_ps(pt + (j * RV + r) * 16);
        }
#pragma GCC unroll 16
        for (int d = 0; d < ND; d++) {
            const __m512 vb = _mm512_set1_ps(v[j * ldv + d]);
#pragma GCC unroll 2
            for (int r = 0; r < RV; r++) {
                acc[d][r] = _mm512_fmadd_ps(p[r], vb, acc[d][r]);
            }
        }
    }
#pragma GCC unroll 16
    for (int d = 0; d < ND; d++) {
#pragma GCC unroll 2
        for (int r = 0; r < RV; r++) {
            _mm512_storeu_ps(ot + (d * RV + r) * 16, acc[d][r]);
        }
    }
}

static inline __attribute__((always_inline)) void
pvt_rows(const int RV, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
         float * ot) {
    __m512 f[2];
#pragma GCC unroll 2
    for (int r = 0; r < RV; r++) {
        f[r] = _mm512_loadu_ps(ms + 16 * r);
    }
    int64_t d = 0;
    if (RV == 2) {
        for (; d + 8 <= dv; d += 8) {
            pvt_tile(RV, 8, n, pt, v + d, ldv, f, ot + d * RV * 16);
        }
    } else {
        for (; d + 16 <= dv; d += 16) {
            pvt_tile(RV, 16, n, pt, v + d, ldv, f, ot + d * RV * 16);
        }
    }
    for (; d + 4 <= dv; d += 4) {
        pvt_tile(RV, 4, n, pt, v + d, ldv, f, ot + d * RV * 16);
    }
    for (; d < dv; d++) {
        pvt_tile(RV, 1, n, pt, v + d, ldv, f, ot + d * RV * 16);
    }
}

void gk_fa_tpv_avx512(int rv, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
                      float * ot) {
    if (rv == 2) {
        pvt_rows(2, n, dv, pt, v, ldv, ms, ot);
    } else {
        pvt_rows(1, n, dv, pt, v, ldv, ms, ot);
    }
}

#endif
