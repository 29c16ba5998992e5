/*
 * gk-exp-avx2.h - e^d for d <= 0 on eight lanes, the exponential of
 * SOFT_MAX (softmax-x86.c) and of the flash attention's vertical online
 * softmax (attn-t-x86.c). Include only from files built with AVX2, FMA
 * and F16C (*-x86.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_EXP_AVX2_H
#define GK_EXP_AVX2_H

#include <immintrin.h>

// 2^(j/8), j = 0..7 (each rounded to float)
static const float gk_exp2_8th[8] __attribute__((aligned(32))) = {
    1.000000000e+00f, 1.090507746e+00f, 1.189207077e+00f, 1.296839595e+00f,
    1.414213538e+00f, 1.542210817e+00f, 1.681792855e+00f, 1.834008098e+00f,
};

// e^d for d <= 0 as gk-vec.h states it for SOFT_MAX (tab: gk_exp2_8th,
// loaded): lanes below -87.3 (-inf, NaN) 0. k = round(8 d / ln2) from a
// shifted multiply-add (k in the low bits of kf), r = d - k ln2/8
// (two-part constant, |r| <= ln2/16), e^d = 2^(k >> 3) 2^((k & 7)/8) e^r:
// the table entry from a permute on k's low three bits, e^r by its Taylor
// polynomial to r^4 (rel. error < 2e-9 on that interval), then k >> 3
// added into the exponent. A kept lane has k >= -1008, and k >> 3 = -126
// only with k & 7 >= 1 or r > 0: the table entry times e^r is then above
// 1 and the result stays normal.
static inline __m256 gk_exp_neg256(__m256 d, __m256 tab) {
    const __m256 keep = _mm256_cmp_ps(d, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
    const __m256 magic = _mm256_set1_ps(12582912.0f); // 1.5 * 2^23
    const __m256 kf = _mm256_fmadd_ps(d, _mm256_set1_ps(11.5415603271f), magic); // 8 / ln2
    const __m256 k = _mm256_sub_ps(kf, magic);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.0866433978f), d);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.38081790e-10f), r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 24.0f), r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256 t = _mm256_permutevar8x32_ps(tab, _mm256_castps_si256(kf));
    p = _mm256_fmadd_ps(_mm256_mul_ps(t, r), p, t);
    // (k >> 3) << 23: kf's bits 3-11 onto the exponent and sign (two
    // shifts, no mask constant: a register fewer for the callers' loops)
    const __m256i e = _mm256_slli_epi32(_mm256_srli_epi32(_mm256_castps_si256(kf), 3), 23);
    return _mm256_and_ps(_mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e)), keep);
}

#endif
