/*
 * gk-avx512.h - small AVX512F helpers shared by the *-avx512.c kernel files
 * (include only from files built with AVX512F).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_AVX512_H
#define GK_AVX512_H

#include <immintrin.h>
#include <stdint.h>

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

// The sums of four vectors, [sum a, sum b, sum c, sum d], each added in
// the order of GCC's _mm512_reduce_add_ps (the 256-bit halves, then the
// 128-bit halves, then (x0 + x2) + (x1 + x3)), so each has its bits, but
// the four share the shuffles and adds: 14 instructions instead of about
// 36 and four scalar stores.
static inline __attribute__((always_inline)) __m128 gk_hsum4_avx512(__m512 a, __m512 b, __m512 c, __m512 d) {
    // [a.l0 + a.l2, a.l1 + a.l3, b.l0 + b.l2, b.l1 + b.l3] (128-bit lanes)
    const __m512 ab = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0xEE), _mm512_shuffle_f32x4(a, b, 0x44));
    const __m512 cd = _mm512_add_ps(_mm512_shuffle_f32x4(c, d, 0xEE), _mm512_shuffle_f32x4(c, d, 0x44));
    // lane i: the 128-bit sum of vector i
    const __m512 t = _mm512_add_ps(_mm512_shuffle_f32x4(ab, cd, 0xDD), _mm512_shuffle_f32x4(ab, cd, 0x88));
    // in each lane (t0 + t2, t1 + t3, ...), then element 0 + element 1
    const __m512 u = _mm512_add_ps(t, _mm512_permute_ps(t, 0x4E));
    const __m512 v = _mm512_add_ps(u, _mm512_permute_ps(u, 0xB1));
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 8, 4, 0), v));
}

#endif
