/*
 * quant-act-x86.c - AVX2 activation quantizers: F32 rows to Q8_K blocks
 * (the K-quant products), Q8_0 and Q8_1 blocks (the products of the other
 * types that take them), the same bytes as gk_quantize_row_q8_K, _q8_0 and
 * _q8_1 for finite values. Called only after the CPU was checked for
 * AVX2/FMA/F16C.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-quant-ext.h"
#include "gk-fp16.h"

#include <immintrin.h>

static inline float hmax256(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

// (int) (t + (t >= 0 ? 0.5 : -0.5)), as gk_iroundf: the sign of t on 0.5
// (a -0 product gives -0.5, which truncates to 0 as well)
static inline __m256i round_half_away(__m256 t) {
    const __m256 signmask = _mm256_castsi256_ps(_mm256_set1_epi32((int) 0x80000000u));
    const __m256 half = _mm256_set1_ps(0.5f);
    return _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_or_ps(half, _mm256_and_ps(t, signmask))));
}

// Per block of 256: the value of largest magnitude (the first one, as the
// reference scans), scale -127 / that value, values rounded half away from
// zero and capped at 127, and the sums of each 16.
void gk_quantize_row_q8_K_avx2(const float * x, gk_block_q8_K * y, int64_t n) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i cap = _mm256_set1_epi32(127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float * xb = x + i * GK_QK_K;
        __m256 m0 = _mm256_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
        for (int j = 0; j < GK_QK_K; j += 32) {
            m0 = _mm256_max_ps(m0, _mm256_and_ps(_mm256_loadu_ps(xb + j), absmask));
            m1 = _mm256_max_ps(m1, _mm256_and_ps(_mm256_loadu_ps(xb + j + 8), absmask));
            m2 = _mm256_max_ps(m2, _mm256_and_ps(_mm256_loadu_ps(xb + j + 16), absmask));
            m3 = _mm256_max_ps(m3, _mm256_and_ps(_mm256_loadu_ps(xb + j + 24), absmask));
        }
        const float amax = hmax256(_mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3)));
        if (amax == 0.0f) {
            __builtin_memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        // the first value of that magnitude, with its sign
        const __m256 va = _mm256_set1_ps(amax);
        int at = 0;
        for (int j = 0; j < GK_QK_K; j += 8) {
            const int hit = _mm256_movemask_ps(
                _mm256_cmp_ps(_mm256_and_ps(_mm256_loadu_ps(xb + j), absmask), va, _CMP_EQ_OQ));
            if (hit) {
                at = j + __builtin_ctz((unsigned) hit);
                break;
            }
        }
        const float iscale = -127.0f / xb[at];
        const __m256 vs = _mm256_set1_ps(iscale);
        // 64 values (four sums) per step
        for (int j = 0; j < GK_QK_K; j += 64) {
            __m256i q[8];
            for (int k = 0; k < 8; k++) {
                q[k] = _mm256_min_epi32(round_half_away(_mm256_mul_ps(_mm256_loadu_ps(xb + j + 8 * k), vs)), cap);
            }
            const __m256i b0 = _mm256_permutevar8x32_epi32(
                _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3])), order);
            const __m256i b1 = _mm256_permutevar8x32_epi32(
                _mm256_packs_epi16(_mm256_packs_epi32(q[4], q[5]), _mm256_packs_epi32(q[6], q[7])), order);
            _mm256_storeu_si256((__m256i *) (y[i].qs + j), b0);
            _mm256_storeu_si256((__m256i *) (y[i].qs + j + 32), b1);
            // sums of 16: lanes of the pair sums, reduced four at a time
            const __m256i h1 = _mm256_hadd_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
            const __m256i h2 = _mm256_hadd_epi32(_mm256_add_epi32(q[4], q[5]), _mm256_add_epi32(q[6], q[7]));
            const __m256i h = _mm256_hadd_epi32(h1, h2);
            const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
            _mm_storel_epi64((__m128i *) (y[i].bsums + j / 16), _mm_packs_epi32(s, s));
        }
        y[i].d = 1.0f / iscale;
    }
}

// One block of 32 (Q8_0, Q8_1): d = max |x| / 127, the values x / d rounded
// half away from zero at qs, their sum in *sum; returns d.
static inline float q8_block(const float * xb, int8_t * qs, int * sum) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int j = 0; j < 4; j++) {
        v[j] = _mm256_loadu_ps(xb + 8 * j);
        amax = _mm256_max_ps(amax, _mm256_and_ps(v[j], absmask));
    }
    const float d = hmax256(amax) / 127.0f;
    const __m256 vid = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
    __m256i q[4];
    for (int j = 0; j < 4; j++) {
        q[j] = round_half_away(_mm256_mul_ps(v[j], vid));
    }
    const __m256i q8 = _mm256_permutevar8x32_epi32(
        _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3])),
        _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *) qs, q8);
    const __m256i s8 = _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    *sum = _mm_cvtsi128_si32(s4);
    return d;
}

void gk_quantize_row_q8_0_avx2(const float * x, gk_block_q8_0 * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        int sum;
        y[i].d = gk_fp32_to_fp16(q8_block(x + i * GK_QK8_0, y[i].qs, &sum));
    }
}

void gk_quantize_row_q8_1_avx2(const float * x, gk_block_q8_1 * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        int sum;
        const float d = q8_block(x + i * GK_QK8_1, y[i].qs, &sum);
        y[i].d = gk_fp32_to_fp16(d);
        y[i].s = gk_fp32_to_fp16((float) sum * d);
    }
}
