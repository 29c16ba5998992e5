/*
 * quant-x86.c - AVX2 quantized dot products. Called only after the CPU was
 * checked for AVX2/FMA/F16C.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"

#include <immintrin.h>

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline int hsum256_epi32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

static inline float f16(uint16_t h) {
    return _cvtsh_ss(h);
}

// 8 int32 sums of pairs of products of signed bytes x*y (|x| <= 127)
static inline __m256i mul_sum_i8_pairs(__m256i x, __m256i y) {
    const __m256i ax = _mm256_sign_epi8(x, x);
    const __m256i sy = _mm256_sign_epi8(y, x);
    const __m256i dot16 = _mm256_maddubs_epi16(ax, sy);
    return _mm256_madd_epi16(dot16, _mm256_set1_epi16(1));
}

float gk_dot_q8_0_q8_0_avx2(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y) {
    const int64_t nb = n / GK_QK8_0;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 2 <= nb; i += 2) {
        const __m256i p0 = mul_sum_i8_pairs(_mm256_loadu_si256((const __m256i *) x[i].qs),
                                            _mm256_loadu_si256((const __m256i *) y[i].qs));
        const __m256i p1 = mul_sum_i8_pairs(_mm256_loadu_si256((const __m256i *) x[i + 1].qs),
                                            _mm256_loadu_si256((const __m256i *) y[i + 1].qs));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i].d) * f16(y[i].d)), _mm256_cvtepi32_ps(p0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i + 1].d) * f16(y[i + 1].d)), _mm256_cvtepi32_ps(p1), acc1);
    }
    for (; i < nb; i++) {
        const __m256i p0 = mul_sum_i8_pairs(_mm256_loadu_si256((const __m256i *) x[i].qs),
                                            _mm256_loadu_si256((const __m256i *) y[i].qs));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i].d) * f16(y[i].d)), _mm256_cvtepi32_ps(p0), acc0);
    }
    return hsum256(_mm256_add_ps(acc0, acc1));
}

// 32 nibbles of a Q4_0 block as signed bytes -8..7, element order
static inline __m256i q4_0_bytes(const uint8_t * qs) {
    const __m128i raw = _mm_loadu_si128((const __m128i *) qs);
    const __m128i lo  = _mm_and_si128(raw, _mm_set1_epi8(0xF));
    const __m128i hi  = _mm_and_si128(_mm_srli_epi16(raw, 4), _mm_set1_epi8(0xF));
    const __m256i v   = _mm256_set_m128i(hi, lo);
    return _mm256_sub_epi8(v, _mm256_set1_epi8(8));
}

float gk_dot_q4_0_q8_0_avx2(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y) {
    const int64_t nb = n / GK_QK4_0;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 2 <= nb; i += 2) {
        const __m256i p0 = mul_sum_i8_pairs(q4_0_bytes(x[i].qs), _mm256_loadu_si256((const __m256i *) y[i].qs));
        const __m256i p1 = mul_sum_i8_pairs(q4_0_bytes(x[i + 1].qs), _mm256_loadu_si256((const __m256i *) y[i + 1].qs));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i].d) * f16(y[i].d)), _mm256_cvtepi32_ps(p0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i + 1].d) * f16(y[i + 1].d)), _mm256_cvtepi32_ps(p1), acc1);
    }
    for (; i < nb; i++) {
        const __m256i p0 = mul_sum_i8_pairs(q4_0_bytes(x[i].qs), _mm256_loadu_si256((const __m256i *) y[i].qs));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i].d) * f16(y[i].d)), _mm256_cvtepi32_ps(p0), acc0);
    }
    return hsum256(_mm256_add_ps(acc0, acc1));
}

// Four weight rows (bx bytes apart) with one Q8_0 activation row. The
// activation block is loaded once for the four rows; its magnitude goes
// into the unsigned operand of maddubs and its sign onto the weights.
void gk_dot4_q8_0_q8_0_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s) {
    const int64_t nb = n / GK_QK8_0;
    const gk_block_q8_0 * xr[4];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        xr[r] = (const gk_block_q8_0 *) ((const char *) x + r * bx);
    }
    __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps() };
    const __m256i ones = _mm256_set1_epi16(1);
    for (int64_t i = 0; i < nb; i++) {
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const __m256i ay = _mm256_sign_epi8(yv, yv);
        const float dy = f16(y[i].d);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            const __m256i xv = _mm256_loadu_si256((const __m256i *) xr[r][i].qs);
            const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(ay, _mm256_sign_epi8(xv, yv)), ones);
            acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(f16(xr[r][i].d) * dy), _mm256_cvtepi32_ps(p), acc[r]);
        }
    }
    for (int r = 0; r < 4; r++) {
        s[r] = hsum256(acc[r]);
    }
}

// Four Q4_0 rows with one Q8_0 row: the nibbles (0..15) are the unsigned
// operand of maddubs; the offset 8 is taken off once per activation block.
void gk_dot4_q4_0_q8_0_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s) {
    const int64_t nb = n / GK_QK4_0;
    const gk_block_q4_0 * xr[4];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        xr[r] = (const gk_block_q4_0 *) ((const char *) x + r * bx);
    }
    __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps() };
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i k8 = _mm256_set1_epi8(8);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    // the 16 bytes in both lanes, the high lane shifted by a nibble: after the
    // mask, low nibbles (elements 0..15) then high nibbles (16..31)
    const __m256i sh = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    for (int64_t i = 0; i < nb; i++) {
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const __m256i y8 = _mm256_maddubs_epi16(k8, yv); // 8 * pair sums of y
        const float dy = f16(y[i].d);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) xr[r][i].qs));
            const __m256i xu = _mm256_and_si256(_mm256_srlv_epi32(v, sh), m4);
            const __m256i p16 = _mm256_sub_epi16(_mm256_maddubs_epi16(xu, yv), y8);
            const __m256i p = _mm256_madd_epi16(p16, ones);
            acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(f16(xr[r][i].d) * dy), _mm256_cvtepi32_ps(p), acc[r]);
        }
    }
    for (int r = 0; r < 4; r++) {
        s[r] = hsum256(acc[r]);
    }
}

void gk_dequantize_row_q8_0_avx2(const gk_block_q8_0 * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const __m256 d = _mm256_set1_ps(f16(x[i].d));
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *) (x[i].qs + 8 * j)));
            _mm256_storeu_ps(y + i * GK_QK8_0 + 8 * j, _mm256_mul_ps(d, _mm256_cvtepi32_ps(q)));
        }
    }
}

void gk_dequantize_row_q4_0_avx2(const gk_block_q4_0 * x, float * y, int64_t n) {
    const __m256i k8 = _mm256_set1_epi32(8);
    for (int64_t i = 0; i < n / GK_QK4_0; i++) {
        const __m256 d = _mm256_set1_ps(f16(x[i].d));
        const __m128i raw = _mm_loadu_si128((const __m128i *) x[i].qs);
        const __m128i lo = _mm_and_si128(raw, _mm_set1_epi8(0xF));
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(raw, 4), _mm_set1_epi8(0xF));
        const __m128i part[4] = { lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8) };
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            const __m256i q = _mm256_sub_epi32(_mm256_cvtepu8_epi32(part[j]), k8);
            _mm256_storeu_ps(y + i * GK_QK4_0 + 8 * j, _mm256_mul_ps(d, _mm256_cvtepi32_ps(q)));
        }
    }
}
