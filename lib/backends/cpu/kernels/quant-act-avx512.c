/*
 * quant-act-avx512.c - AVX512 activation quantizer for the K-quant
 * products: F32 rows to Q8_K blocks, the same bytes as
 * gk_quantize_row_q8_K, sixteen values (one sum) per vector. Called only
 * when the AVX512 kernels may run (ggml_cpu_isa()->use_vnni256).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"

#include <immintrin.h>

// (int) (t + (t >= 0 ? 0.5 : -0.5)), as gk_iroundf
static inline __m512i round_half_away(__m512 t) {
    const __m512i signmask = _mm512_set1_epi32((int) 0x80000000u);
    const __m512i half = _mm512_castps_si512(_mm512_set1_ps(0.5f));
    const __m512 h = _mm512_castsi512_ps(_mm512_or_si512(half, _mm512_and_si512(_mm512_castps_si512(t), signmask)));
    return _mm512_cvttps_epi32(_mm512_add_ps(t, h));
}

void gk_quantize_row_q8_K_avx512(const float * x, gk_block_q8_K * y, int64_t n) {
    const __m512i cap = _mm512_set1_epi32(127);
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const float * xb = x + i * GK_QK_K;
        __m512 m0 = _mm512_setzero_ps(), m1 = m0;
        for (int j = 0; j < GK_QK_K; j += 32) {
            m0 = _mm512_max_ps(m0, _mm512_abs_ps(_mm512_loadu_ps(xb + j)));
            m1 = _mm512_max_ps(m1, _mm512_abs_ps(_mm512_loadu_ps(xb + j + 16)));
        }
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
        if (amax == 0.0f) {
            __builtin_memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        // the first value of that magnitude, with its sign (as the reference scans)
        const __m512 va = _mm512_set1_ps(amax);
        int at = 0;
        for (int j = 0; j < GK_QK_K; j += 16) {
            const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_loadu_ps(xb + j)), va, _CMP_EQ_OQ);
            if (hit) {
                at = j + __builtin_ctz((unsigned) hit);
                break;
            }
        }
        const float iscale = -127.0f / xb[at];
        const __m512 vs = _mm512_set1_ps(iscale);
        for (int j = 0; j < GK_QK_K; j += 64) {
            __m512i q[4];
            for (int k = 0; k < 4; k++) {
                q[k] = _mm512_min_epi32(round_half_away(_mm512_mul_ps(_mm512_loadu_ps(xb + j + 16 * k), vs)), cap);
                _mm_storeu_si128((__m128i *) (y[i].qs + j + 16 * k), _mm512_cvtsepi32_epi8(q[k]));
            }
            // the four sums at once: interleave and add until each 128-bit
            // lane holds a part of all four, then add the lanes
            const __m512i t0 = _mm512_add_epi32(_mm512_unpacklo_epi32(q[0], q[1]), _mm512_unpackhi_epi32(q[0], q[1]));
            const __m512i t1 = _mm512_add_epi32(_mm512_unpacklo_epi32(q[2], q[3]), _mm512_unpackhi_epi32(q[2], q[3]));
            const __m512i t = _mm512_add_epi32(_mm512_unpacklo_epi64(t0, t1), _mm512_unpackhi_epi64(t0, t1));
            const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64(t, 1));
            const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
            _mm_storel_epi64((__m128i *) (y[i].bsums + j / 16), _mm_packs_epi32(s, s));
        }
        y[i].d = 1.0f / iscale;
    }
}
