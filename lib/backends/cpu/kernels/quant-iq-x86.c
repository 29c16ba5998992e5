/*
 * quant-iq-x86.c - AVX2 dots of the non-linear 4-bit types: IQ4_NL, MXFP4
 * and NVFP4 (E2M1 values) with Q8_0, IQ4_XS with Q8_K activations. The nibbles become their int8 values
 * through a byte shuffle of the 16-entry table; signed products through
 * maddubs(|w|, y * sign(w)).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-fp16.h"
#include "gk-iq-tables.h"
#include "gk-x86.h"

static GK_ALWAYS_INLINE float hsum256_ps(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// 32 values of 16 nibble bytes (low nibbles first) through the table
static GK_ALWAYS_INLINE __m256i nl_values(const uint8_t * qs, __m128i tbl) {
    const __m128i q = _mm_loadu_si128((const __m128i *) qs);
    const __m128i m4 = _mm_set1_epi8(0xf);
    const __m128i lo = _mm_shuffle_epi8(tbl, _mm_and_si128(q, m4));
    const __m128i hi = _mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(q, 4), m4));
    return _mm256_set_m128i(hi, lo);
}

// 16 pair sums (int16) of w * y for signed bytes (|w|, |y| <= 127)
static GK_ALWAYS_INLINE __m256i mul_s8(__m256i w, __m256i yv) {
    return _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(yv, w));
}

float gk_dot_mxfp4_q8_0_avx2(int64_t n, const gk_block_mxfp4 * x, const gk_block_q8_0 * y) {
    const __m128i tbl = _mm_loadu_si128((const __m128i *) gk_kvalues_fp4);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_MXFP4; i++) {
        const __m256i w = nl_values(x[i].qs, tbl);
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const __m256i p = _mm256_madd_epi16(mul_s8(w, yv), ones);
        const float d = gk_e8m0_half_to_fp32(x[i].e) * gk_fp16_to_fp32(y[i].d);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(p), acc);
    }
    return hsum256_ps(acc);
}

// NVFP4: 64 values in 4 sub-blocks of 16 (qs[8s..8s+8): low nibbles values
// 0..7, high nibbles 8..15), each with a UE4M3 scale; two sub-blocks per
// Q8_0 activation block
float gk_dot_nvfp4_q8_0_avx2(int64_t n, const gk_block_nvfp4 * x, const gk_block_q8_0 * y) {
    const __m128i tbl = _mm_loadu_si128((const __m128i *) gk_kvalues_fp4);
    const __m128i m4 = _mm_set1_epi8(0xf);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_NVFP4; i++) {
        for (int h = 0; h < 2; h++) {
            const __m128i q = _mm_loadu_si128((const __m128i *) (x[i].qs + 16 * h));
            const __m128i lo = _mm_shuffle_epi8(tbl, _mm_and_si128(q, m4));
            const __m128i hi = _mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(q, 4), m4));
            const __m256i w = _mm256_set_m128i(_mm_unpackhi_epi64(lo, hi), _mm_unpacklo_epi64(lo, hi));
            const gk_block_q8_0 * yb = &y[2 * i + h];
            const __m256i yv = _mm256_loadu_si256((const __m256i *) yb->qs);
            const __m256i p = _mm256_madd_epi16(mul_s8(w, yv), ones);
            const float dy = gk_fp16_to_fp32(yb->d);
            const float d0 = gk_ue4m3_half_to_fp32(x[i].d[2 * h]) * dy, d1 = gk_ue4m3_half_to_fp32(x[i].d[2 * h + 1]) * dy;
            acc = _mm256_fmadd_ps(_mm256_setr_ps(d0, d0, d0, d0, d1, d1, d1, d1), _mm256_cvtepi32_ps(p), acc);
        }
    }
    return hsum256_ps(acc);
}

// the product of the fp16 at a and b, in every lane (F16C: both at once)
static GK_ALWAYS_INLINE __m256 dd_fp16(const uint16_t * a, const uint16_t * b) {
    const __m128 dd = _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(gk_ld16(a)), gk_ld16(b), 1));
    return _mm256_broadcastss_ps(_mm_mul_ss(dd, _mm_movehdup_ps(dd)));
}

// IQ4_NL: d_x * d_y converted together by F16C (the scalar conversion and
// its branches cost as much as the block's integer work); two accumulators
float gk_dot_iq4_nl_q8_0_avx2(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y) {
    const __m128i tbl = _mm_loadu_si128((const __m128i *) gk_kvalues_iq4nl);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    const int64_t nb = n / GK_QK4_NL;
    int64_t i = 0;
    for (; i + 1 < nb; i += 2) {
        const __m256i p0 = _mm256_madd_epi16(mul_s8(nl_values(x[i].qs, tbl), _mm256_loadu_si256((const __m256i *) y[i].qs)), ones);
        const __m256i p1 =
            _mm256_madd_epi16(mul_s8(nl_values(x[i + 1].qs, tbl), _mm256_loadu_si256((const __m256i *) y[i + 1].qs)), ones);
        acc0 = _mm256_fmadd_ps(dd_fp16(&x[i].d, &y[i].d), _mm256_cvtepi32_ps(p0), acc0);
        acc1 = _mm256_fmadd_ps(dd_fp16(&x[i + 1].d, &y[i + 1].d), _mm256_cvtepi32_ps(p1), acc1);
    }
    for (; i < nb; i++) {
        const __m256i p = _mm256_madd_epi16(mul_s8(nl_values(x[i].qs, tbl), _mm256_loadu_si256((const __m256i *) y[i].qs)), ones);
        acc0 = _mm256_fmadd_ps(dd_fp16(&x[i].d, &y[i].d), _mm256_cvtepi32_ps(p), acc0);
    }
    return hsum256_ps(_mm256_add_ps(acc0, acc1));
}

float gk_dot_iq4_xs_q8_K_avx2(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y) {
    const __m128i tbl = _mm_loadu_si128((const __m128i *) gk_kvalues_iq4nl);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int ib = 0; ib < 8; ib++) {
            const int ls = ((x[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((x[i].scales_h >> (2 * ib)) & 3) << 4);
            const __m256i w = nl_values(x[i].qs + 16 * ib, tbl);
            const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 32 * ib));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(mul_s8(w, yv), _mm256_set1_epi16((short) (ls - 32))));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}
