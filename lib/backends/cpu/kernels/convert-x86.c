/*
 * convert-x86.c - AVX2/F16C row conversions. Built with -mavx2 -mfma -mf16c;
 * called only after the CPU was checked for those features.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-convert.h"
#include "gk-fp16.h"

#include <immintrin.h>

void gk_fp16_to_fp32_row_f16c(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *) (x + i));
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++) {
        y[i] = gk_fp16_to_fp32(x[i]);
    }
}

// The F16/BF16 -> F32 conversions written with non-temporal stores (then
// SFENCE), for outputs larger than the last-level cache: the same values as
// the forms above. The lanes before y's first 32-byte boundary go through a
// masked store of a whole converted vector, the last n % 8 through the
// scalar conversion, as above. x and y do not overlap.
static inline __m256i head_mask8(int64_t h) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int) h), lane);
}

// eight BF16 values at p widened to F32
static inline __m256 bf16x8_ps(const uint16_t * p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *) p)), 16));
}

static inline int64_t nt_head(const float * y, int64_t n) {
    const int64_t h = (int64_t) ((32 - ((uintptr_t) y & 31)) & 31) / (int64_t) sizeof(float);
    return ((uintptr_t) y & 3) == 0 && h + 8 <= n ? h : -1;
}

void gk_fp16_to_fp32_row_nt_f16c(const uint16_t * x, float * y, int64_t n) {
    const int64_t h = nt_head(y, n);
    if (h < 0) {
        gk_fp16_to_fp32_row_f16c(x, y, n);
        return;
    }
    if (h > 0) {
        _mm256_maskstore_ps(y, head_mask8(h), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) x)));
    }
    int64_t i = h;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i)));
        const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i + 8)));
        _mm256_stream_ps(y + i, a);
        _mm256_stream_ps(y + i + 8, b);
    }
    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i))));
    }
    for (; i < n; i++) {
        y[i] = gk_fp16_to_fp32(x[i]);
    }
    _mm_sfence();
}

void gk_bf16_to_fp32_row_nt_avx2(const uint16_t * x, float * y, int64_t n) {
    const int64_t h = nt_head(y, n);
    if (h < 0) {
        gk_bf16_to_fp32_row_avx2(x, y, n);
        return;
    }
    if (h > 0) {
        _mm256_maskstore_ps(y, head_mask8(h), bf16x8_ps(x));
    }
    int64_t i = h;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = bf16x8_ps(x + i), b = bf16x8_ps(x + i + 8);
        _mm256_stream_ps(y + i, a);
        _mm256_stream_ps(y + i + 8, b);
    }
    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(y + i, bf16x8_ps(x + i));
    }
    for (; i < n; i++) {
        y[i] = gk_bf16_to_fp32(x[i]);
    }
    _mm_sfence();
}

void gk_fp32_to_fp16_row_f16c(const float * x, uint16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_loadu_ps(x + i);
        __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *) (y + i), h);
    }
    for (; i < n; i++) {
        y[i] = gk_fp32_to_fp16(x[i]);
    }
}

void gk_bf16_to_fp32_row_avx2(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i b = _mm_loadu_si128((const __m128i *) (x + i));
        __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16);
        _mm256_storeu_ps(y + i, _mm256_castsi256_ps(w));
    }
    for (; i < n; i++) {
        y[i] = gk_bf16_to_fp32(x[i]);
    }
}

void gk_fp32_to_bf16_row_avx2(const float * x, uint16_t * y, int64_t n) {
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i inf      = _mm256_set1_epi32(0x7f800000);
    const __m256i bias     = _mm256_set1_epi32(0x7fff);
    const __m256i one      = _mm256_set1_epi32(1);
    const __m256i quiet    = _mm256_set1_epi32(0x400000);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r[2];
        for (int k = 0; k < 2; k++) {
            __m256i u   = _mm256_loadu_si256((const __m256i *) (x + i + 8 * k));
            __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
            __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
            __m256i rnd = _mm256_add_epi32(u, _mm256_add_epi32(bias, lsb));
            __m256i qn  = _mm256_or_si256(u, quiet);
            r[k] = _mm256_srli_epi32(_mm256_blendv_epi8(rnd, qn, nan), 16);
        }
        // pack the two halves to 16 x uint16 (packus works per 128-bit lane)
        __m256i p = _mm256_packus_epi32(r[0], r[1]);
        p = _mm256_permute4x64_epi64(p, 0xd8);
        _mm256_storeu_si256((__m256i *) (y + i), p);
    }
    for (; i < n; i++) {
        y[i] = gk_fp32_to_bf16(x[i]);
    }
}
