/*
 * quant-iqgrid-x86.c - AVX2 dots of the codebook i-quants (IQ2_XXS, IQ2_XS,
 * IQ2_S, IQ3_XXS, IQ3_S, IQ1_S) with Q8_K activations. Per 32 values the
 * grid entries are gathered into one vector of magnitudes, the 32 sign bits
 * become a byte mask that negates the activations, maddubs multiplies and
 * one madd applies the integer part of the scales ((2s + 1); the common
 * factor of d is applied per block in float). IQ1_S: grid values in
 * {-1, 0, 1}, the +-1/8 shift taken through the activations' bsums.
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

// byte 8l + j: 0xff where bit j of byte l of s is set
static GK_ALWAYS_INLINE __m256i sign_mask(uint32_t s) {
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bm = _mm256_set1_epi64x(0x8040201008040201ll);
    const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int) s), shuf);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, bm), bm);
}

// 16 int16 pair sums of magnitudes (unsigned) times activations negated
// where the mask is set
static GK_ALWAYS_INLINE __m256i signed_products(__m256i mag, __m256i y, __m256i mask) {
    const __m256i ys = _mm256_sub_epi8(_mm256_xor_si256(y, mask), mask);
    return _mm256_maddubs_epi16(mag, ys);
}

static GK_ALWAYS_INLINE __m256i two_scales(int sa, int sb) {
    return _mm256_set_m128i(_mm_set1_epi16((short) sb), _mm_set1_epi16((short) sa));
}

static GK_ALWAYS_INLINE uint32_t ksigns4(uint32_t w) {
    return (uint32_t) gk_ksigns_iq2xs[w & 127] | (uint32_t) gk_ksigns_iq2xs[(w >> 7) & 127] << 8 |
           (uint32_t) gk_ksigns_iq2xs[(w >> 14) & 127] << 16 | (uint32_t) gk_ksigns_iq2xs[(w >> 21) & 127] << 24;
}

static GK_ALWAYS_INLINE __m256i y32(const gk_block_q8_K * y, int ib) {
    return _mm256_loadu_si256((const __m256i *) (y->qs + 32 * ib));
}

float gk_dot_iq2_xxs_q8_K_avx2(int64_t n, const gk_block_iq2_xxs * x, const gk_block_q8_K * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const uint8_t * qs = (const uint8_t *) x[i].qs;
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * g = qs + 8 * ib;
            const uint32_t w = (uint32_t) gk_ld32(g + 4);
            const __m256i mag = _mm256_set_epi64x((long long) gk_iq2xxs_grid[g[3]], (long long) gk_iq2xxs_grid[g[2]],
                                                  (long long) gk_iq2xxs_grid[g[1]], (long long) gk_iq2xxs_grid[g[0]]);
            const __m256i p = signed_products(mag, y32(&y[i], ib), sign_mask(ksigns4(w)));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, _mm256_set1_epi16((short) (2 * (w >> 28) + 1))));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_iq2_xs_q8_K_avx2(int64_t n, const gk_block_iq2_xs * x, const gk_block_q8_K * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const uint16_t * q = x[i].qs + 4 * ib;
            const __m256i mag = _mm256_set_epi64x((long long) gk_iq2xs_grid[q[3] & 511], (long long) gk_iq2xs_grid[q[2] & 511],
                                                  (long long) gk_iq2xs_grid[q[1] & 511], (long long) gk_iq2xs_grid[q[0] & 511]);
            const uint32_t s = (uint32_t) gk_ksigns_iq2xs[q[0] >> 9] | (uint32_t) gk_ksigns_iq2xs[q[1] >> 9] << 8 |
                               (uint32_t) gk_ksigns_iq2xs[q[2] >> 9] << 16 | (uint32_t) gk_ksigns_iq2xs[q[3] >> 9] << 24;
            const __m256i p = signed_products(mag, y32(&y[i], ib), sign_mask(s));
            const int sc = x[i].scales[ib];
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, two_scales(2 * (sc & 0xf) + 1, 2 * (sc >> 4) + 1)));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_iq2_s_q8_K_avx2(int64_t n, const gk_block_iq2_s * x, const gk_block_q8_K * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 4 * ib;
            const int h = x[i].qh[ib];
            const __m256i mag = _mm256_set_epi64x((long long) gk_iq2s_grid[q[3] | ((h << 2) & 0x300)],
                                                  (long long) gk_iq2s_grid[q[2] | ((h << 4) & 0x300)],
                                                  (long long) gk_iq2s_grid[q[1] | ((h << 6) & 0x300)],
                                                  (long long) gk_iq2s_grid[q[0] | ((h << 8) & 0x300)]);
            const __m256i p = signed_products(mag, y32(&y[i], ib), sign_mask((uint32_t) gk_ld32(x[i].qs + 32 + 4 * ib)));
            const int sc = x[i].scales[ib];
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, two_scales(2 * (sc & 0xf) + 1, 2 * (sc >> 4) + 1)));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_iq3_xxs_q8_K_avx2(int64_t n, const gk_block_iq3_xxs * x, const gk_block_q8_K * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 8 * ib;
            const uint32_t w = (uint32_t) gk_ld32(x[i].qs + 64 + 4 * ib);
            const __m256i mag = _mm256_set_epi32((int) gk_iq3xxs_grid[q[7]], (int) gk_iq3xxs_grid[q[6]],
                                                 (int) gk_iq3xxs_grid[q[5]], (int) gk_iq3xxs_grid[q[4]],
                                                 (int) gk_iq3xxs_grid[q[3]], (int) gk_iq3xxs_grid[q[2]],
                                                 (int) gk_iq3xxs_grid[q[1]], (int) gk_iq3xxs_grid[q[0]]);
            const __m256i p = signed_products(mag, y32(&y[i], ib), sign_mask(ksigns4(w)));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, _mm256_set1_epi16((short) (2 * (w >> 28) + 1))));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d) * 0.25f;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_iq3_s_q8_K_avx2(int64_t n, const gk_block_iq3_s * x, const gk_block_q8_K * y) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 8 * ib;
            const int h = x[i].qh[ib];
            int g[8];
            for (int k = 0; k < 8; k++) {
                g[k] = (int) gk_iq3s_grid[q[k] | (((h >> k) & 1) << 8)];
            }
            const __m256i mag = _mm256_setr_epi32(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
            const __m256i p = signed_products(mag, y32(&y[i], ib), sign_mask((uint32_t) gk_ld32(x[i].signs + 4 * ib)));
            const int s = (x[i].scales[ib / 2] >> (4 * (ib % 2))) & 0xf;
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, _mm256_set1_epi16((short) (2 * s + 1))));
        }
        const float d = y[i].d * gk_fp16_to_fp32(x[i].d);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256_ps(acc);
}

float gk_dot_iq1_s_q8_K_avx2(int64_t n, const gk_block_iq1_s * x, const gk_block_q8_K * y) {
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        __m256i sumi = _mm256_setzero_si256();
        int32_t shift = 0;
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * q = x[i].qs + 4 * ib;
            const int h = x[i].qh[ib];
            const __m256i g = _mm256_set_epi64x((long long) gk_iq1s_grid[q[3] | (((h >> 9) & 7) << 8)],
                                                (long long) gk_iq1s_grid[q[2] | (((h >> 6) & 7) << 8)],
                                                (long long) gk_iq1s_grid[q[1] | (((h >> 3) & 7) << 8)],
                                                (long long) gk_iq1s_grid[q[0] | ((h & 7) << 8)]);
            const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(g, g), _mm256_sign_epi8(y32(&y[i], ib), g));
            const int m = 2 * ((h >> 12) & 7) + 1;
            // values 8 g +- 1 (scale / 8): 8 m sum(g y) +- m sum(y)
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, _mm256_set1_epi16((short) (8 * m))));
            const int sy = y[i].bsums[2 * ib] + y[i].bsums[2 * ib + 1];
            shift += (h & 0x8000 ? -m : m) * sy;
        }
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(sumi), _mm256_extracti128_si256(sumi, 1));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
        s += y[i].d * gk_fp16_to_fp32(x[i].d) * 0.125f * (float) (_mm_cvtsi128_si32(t) + shift);
    }
    return s;
}
