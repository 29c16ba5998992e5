/*
 * gk-exp-avx512.h - e^d for d <= 0 on sixteen lanes, the exponential of
 * SOFT_MAX (softmax-avx512.c) and of the flash attention's online softmax
 * (attn-avx512.c). Include only from files built with AVX512F
 * (*-avx512.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_EXP_AVX512_H
#define GK_EXP_AVX512_H

#include <immintrin.h>

// 2^(j/16), j = 0..15 (each rounded to float)
static const float gk_exp2_16th[16] __attribute__((aligned(64))) = {
    1.000000000e+00f, 1.044273734e+00f, 1.090507746e+00f, 1.138788581e+00f,
    1.189207077e+00f, 1.241857767e+00f, 1.296839595e+00f, 1.354255557e+00f,
    1.414213538e+00f, 1.476826191e+00f, 1.542210817e+00f, 1.610490322e+00f,
    1.681792855e+00f, 1.756252170e+00f, 1.834008098e+00f, 1.915206552e+00f,
};

// e^d for d <= 0 within the bound gk-vec.h states for SOFT_MAX (tab:
// gk_exp2_16th, loaded): lanes below -87.3 (-inf, NaN) 0. k = round(16 d / ln2) from a shifted multiply-add
// (k in the low bits of kf), r = d - k ln2/16 (two-part constant, |r| <=
// ln2/32), e^d = 2^(k >> 4) 2^((k & 15)/16) e^r: the table entry from a
// permute on k's low four bits, e^r by its Taylor polynomial to r^3 (rel.
// error < 1e-8 on that interval), then k >> 4 added into the exponent.
// A kept lane has k >= -2015, so k >> 4 = -126 only with k & 15 >= 1:
// the table entry times e^r is then above 1 and the result stays normal.
static inline __m512 gk_exp_neg512(__m512 d, __m512 tab) {
    const __mmask16 keep = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
    const __m512 magic = _mm512_set1_ps(12582912.0f); // 1.5 * 2^23: k rounded by the add
    const __m512 kf = _mm512_fmadd_ps(d, _mm512_set1_ps(23.0831206542f), magic);
    const __m512 k = _mm512_sub_ps(kf, magic);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.0433216095f), d);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(8.92879263e-08f), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 6.0f), r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const __m512 t = _mm512_permutexvar_ps(_mm512_castps_si512(kf), tab);
    p = _mm512_fmadd_ps(_mm512_mul_ps(t, r), p, t); // t e^r
    // (k >> 4) << 23: kf's low mantissa bits hold k (the magic's bits
    // shift out), its bits 4-12 land on the exponent
    const __m512i e = _mm512_and_si512(_mm512_slli_epi32(_mm512_castps_si512(kf), 19),
                                       _mm512_set1_epi32((int) 0xff800000u));
    return _mm512_castsi512_ps(_mm512_maskz_add_epi32(keep, _mm512_castps_si512(p), e));
}

#endif
