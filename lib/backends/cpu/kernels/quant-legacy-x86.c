/*
 * quant-legacy-x86.c - AVX2 dots of the 32-value legacy types: Q4_1 and
 * Q5_1 with Q8_1 activations (unsigned weights for maddubs, the min times
 * the activations' sum), Q5_0 with Q8_0 (signed values through
 * maddubs(|w|, y * sign(w))), Q8_1 with Q8_1.
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

// 32 nibbles of 16 bytes: values 0..15 the low nibbles, 16..31 the high
static GK_ALWAYS_INLINE __m256i nibbles(const uint8_t * qs) {
    const __m128i q = _mm_loadu_si128((const __m128i *) qs);
    const __m128i m4 = _mm_set1_epi8(0xf);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), m4), _mm_and_si128(q, m4));
}

// 0x10 in byte j where bit j of the little-endian word qh is set
static GK_ALWAYS_INLINE __m256i fifth_bits(const uint8_t * qh) {
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bm = _mm256_set1_epi64x(0x8040201008040201ll);
    const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(gk_ld32(qh)), shuf);
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bm), bm), _mm256_set1_epi8(0x10));
}

// sum of 32 products of unsigned u (<= 31) and signed y, as 8 int32 lanes
static GK_ALWAYS_INLINE __m256i dot_u8s8(__m256i u, __m256i y) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, y), _mm256_set1_epi16(1));
}

static GK_ALWAYS_INLINE __m256i dot_s8s8(__m256i w, __m256i y) {
    return dot_u8s8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(y, w));
}

// sum of the 32 activations, as 8 int32 lanes
static GK_ALWAYS_INLINE __m256i sum_s8(__m256i y) {
    return dot_u8s8(_mm256_set1_epi8(1), y);
}

float gk_dot_q4_1_q8_1_avx2(int64_t n, const gk_block_q4_1 * x, const gk_block_q8_1 * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK4_1; i++) {
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const float dy = gk_fp16_to_fp32(y[i].d);
        const __m256 si = _mm256_cvtepi32_ps(dot_u8s8(nibbles(x[i].qs), yv));
        const __m256 sy = _mm256_cvtepi32_ps(sum_s8(yv));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(gk_fp16_to_fp32(x[i].d) * dy), si, acc);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(gk_fp16_to_fp32(x[i].m) * dy), sy, acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_q5_1_q8_1_avx2(int64_t n, const gk_block_q5_1 * x, const gk_block_q8_1 * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK5_1; i++) {
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const float dy = gk_fp16_to_fp32(y[i].d);
        const __m256i u = _mm256_or_si256(nibbles(x[i].qs), fifth_bits(x[i].qh));
        const __m256 si = _mm256_cvtepi32_ps(dot_u8s8(u, yv));
        const __m256 sy = _mm256_cvtepi32_ps(sum_s8(yv));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(gk_fp16_to_fp32(x[i].d) * dy), si, acc);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(gk_fp16_to_fp32(x[i].m) * dy), sy, acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_q5_0_q8_0_avx2(int64_t n, const gk_block_q5_0 * x, const gk_block_q8_0 * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK5_0; i++) {
        const __m256i u = _mm256_or_si256(nibbles(x[i].qs), fifth_bits(x[i].qh));
        const __m256i w = _mm256_sub_epi8(u, _mm256_set1_epi8(16));
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const float d = gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(dot_s8s8(w, yv)), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_q8_1_q8_1_avx2(int64_t n, const gk_block_q8_1 * x, const gk_block_q8_1 * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        const __m256i w = _mm256_loadu_si256((const __m256i *) x[i].qs);
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const float d = gk_fp16_to_fp32(x[i].d) * gk_fp16_to_fp32(y[i].d);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(dot_s8s8(w, yv)), acc);
    }
    return hsum256_ps(acc);
}
