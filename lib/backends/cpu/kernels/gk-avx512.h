/*
 * gk-avx512.h - small AVX512F helpers shared by the *-avx512.c kernel files
 * (include only from files built with AVX512F).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_AVX512_H
#define GK_AVX512_H

#include <immintrin.h>

// Two 256-bit halves as one vector: VINSERTF64X4 (AVX512F; the f32x8 form
// needs AVX512DQ)
static inline __attribute__((always_inline)) __m512 gk_join256_avx512(__m256 lo, __m256 hi) {
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}

// Sixteen floats by two 256-bit loads. ggml tensors are 16- or 32-byte
// aligned (contexts, CPU buffers), so most 512-bit loads would span two
// cache lines, and on Zen 5 such loads cost far more than a line-split
// 256-bit load: SILU over [4096,4096] at the 48-byte offset bench-ops
// gives its rows, one thread, a stand-alone loop of the kernels alternately
// (CPU time, medians of 31): from DRAM 5.4 -> 3.4-3.6 ms (a memcpy of the
// same bytes: 3.4-3.5), in cache (64 rows) 37-62 -> 31-33 us; SWIGLU 7.2 ->
// 5.2-5.4 ms and 87 -> 40-42 us, as fast as with every operand 64-byte
// aligned. Peeling the rows to align one input measured the same; the
// stores, split or not, the same.
static inline __attribute__((always_inline)) __m512 gk_loadu16_avx512(const float * p) {
    return gk_join256_avx512(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8));
}

#endif
