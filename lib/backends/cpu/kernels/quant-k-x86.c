/*
 * quant-k-x86.c - AVX2 dots of Q2_K, Q3_K, Q5_K and TQ2_0 weights with Q8_K
 * activations. The weights are brought to unsigned bytes (Q3_K: q + 4,
 * whose offset comes off through the activations' bsums) for maddubs, one
 * madd applies the group scales, the block's sums are exact int32 and its
 * scales are applied in float.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-fp16.h"
#include "gk-x86.h"

static GK_ALWAYS_INLINE float hsum256_ps(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static GK_ALWAYS_INLINE int32_t hsum256_epi32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

// scales of two groups of 16 for one madd: low lane sa, high lane sb
static GK_ALWAYS_INLINE __m256i two_scales(int sa, int sb) {
    return _mm256_set_m128i(_mm_set1_epi16((short) sb), _mm_set1_epi16((short) sa));
}

float gk_dot_q2_K_q8_K_avx2(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const __m128i sc8 = _mm_loadu_si128((const __m128i *) x[i].scales);
        const __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc8, 4), _mm_set1_epi8(0xf)));
        const __m256i bs = _mm256_loadu_si256((const __m256i *) y[i].bsums);
        const int32_t summ = hsum256_epi32(_mm256_madd_epi16(mins, bs));
        __m256i sumi = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) {
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * h));
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 128 * h + 32 * j));
                const int g = 8 * h + 2 * j;
                const __m256i s = two_scales(x[i].scales[g] & 0xf, x[i].scales[g + 1] & 0xf);
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(v, yv), s));
            }
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(-dmin), _mm256_setr_ps((float) summ, 0, 0, 0, 0, 0, 0, 0), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_q3_K_q8_K_avx2(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m256i m1 = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        int8_t sc[16];
        for (int g = 0; g < 16; g++) {
            const int lo = g < 8 ? x[i].scales[g] & 0xf : x[i].scales[g - 8] >> 4;
            const int hi = (x[i].scales[8 + g % 4] >> (2 * (g / 4))) & 3;
            sc[g] = (int8_t) ((lo | (hi << 4)) - 32);
        }
        // the weights as q + 4 (0..7): minus 4 * sum_g sc[g] * bsums[g]
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) sc));
        const __m256i bs = _mm256_loadu_si256((const __m256i *) y[i].bsums);
        const int32_t off = hsum256_epi32(_mm256_madd_epi16(sc16, bs));
        const __m256i hm = _mm256_loadu_si256((const __m256i *) x[i].hmask);
        __m256i sumi = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) {
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * h));
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);
                const __m256i hb = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * h + j), m1);
                const __m256i v = _mm256_or_si256(lo, _mm256_slli_epi16(hb, 2));
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 128 * h + 32 * j));
                const int g = 8 * h + 2 * j;
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(v, yv), two_scales(sc[g], sc[g + 1])));
            }
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        const __m256i offv = _mm256_setr_epi32(-4 * off, 0, 0, 0, 0, 0, 0, 0);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_add_epi32(sumi, offv)), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_q5_K_q8_K_avx2(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y) {
    const __m256i m4 = _mm256_set1_epi8(0xf);
    const __m256i m1 = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        uint8_t sm[16];
        gk_q4_K_scales_mins(x[i].scales, sm, sm + 8);
        const __m256i bs = _mm256_loadu_si256((const __m256i *) y[i].bsums);
        const __m128i bs2 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
        const __m128i mn = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *) (sm + 8)));
        __m128i pm = _mm_madd_epi16(mn, bs2);
        pm = _mm_add_epi32(pm, _mm_shuffle_epi32(pm, 0x4e));
        pm = _mm_add_epi32(pm, _mm_shuffle_epi32(pm, 0xb1));
        const int32_t summ = _mm_cvtsi128_si32(pm);
        const __m256i hb = _mm256_loadu_si256((const __m256i *) x[i].qh);
        __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            const __m256i q4 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * c));
            const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c), m1), 4);
            const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c + 1), m1), 4);
            const __m256i v0 = _mm256_or_si256(_mm256_and_si256(q4, m4), h0);
            const __m256i v1 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q4, 4), m4), h1);
            const __m256i y0 = _mm256_loadu_si256((const __m256i *) (y[i].qs + 64 * c));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *) (y[i].qs + 64 * c + 32));
            const __m256i p0 = _mm256_madd_epi16(_mm256_maddubs_epi16(v0, y0), _mm256_set1_epi16(sm[2 * c]));
            const __m256i p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(v1, y1), _mm256_set1_epi16(sm[2 * c + 1]));
            sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(p0, p1));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        const float dmin = y[i].d * gk_fp16_to_fp32(x[i].dmin);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(-dmin), _mm256_setr_ps((float) summ, 0, 0, 0, 0, 0, 0, 0), acc);
    }
    return hsum256_ps(acc);
}

// TQ2_0: values q - 1 with q the 2-bit fields (as Q2_K's layout, no
// scales): sum(q y) - sum(y), the activations' sum from their bsums
float gk_dot_tq2_0_q8_K_avx2(int64_t n, const gk_block_tq2_0 * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) y[i].bsums), _mm256_set1_epi16(-1));
        for (int h = 0; h < 2; h++) {
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * h));
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 128 * h + 32 * j));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(v, yv), ones));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * gk_fp16_to_fp32(x[i].d)), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}
