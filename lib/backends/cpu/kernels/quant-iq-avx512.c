/*
 * quant-iq-avx512.c - AVX512 (F, BW, VL, VNNI) dots of the non-linear 4-bit
 * types IQ4_NL (with Q8_0 activations) and IQ4_XS (with Q8_K), for
 * MUL_MAT's matrix-vector path. Built with the *-avx512.c flags; called only
 * when ggml_cpu_isa()->use_vnni256 (cpu-quant-types.c), otherwise the AVX2
 * dots of quant-iq-x86.c run. 256-bit vectors, as in quant-k-avx512.c.
 *
 * The 16 nibbles of a 32-value group are broadcast to both 128-bit halves
 * and shifted by 0 (low half) or 4 (high half) with one VPSRLVQ, so one
 * byte shuffle of the 16-entry table gives the 32 signed values in order.
 * Signed products as in the AVX2 dots: |w| (unsigned) times y * sign(w),
 * exact because the activations' quantizers give |y| <= 127. Not part of
 * the kernel module build.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant-simd.h"
#include "gk-iq-tables.h"
#include "gk-x86.h"

#include <immintrin.h>

// the 32 table indices of 16 nibble bytes: low nibbles, then high nibbles
static GK_ALWAYS_INLINE __m256i qa_nibbles(const uint8_t * qs, __m256i shift, __m256i m4) {
    const __m256i q = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) qs));
    return _mm256_and_si256(_mm256_srlv_epi64(q, shift), m4);
}

static GK_ALWAYS_INLINE float qa_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// IQ4_NL: per 32-value block, VPDPBUSD of |w| with y * sign(w) (int32 sums
// of four products, no int16 step), converted and scaled by d_x * d_y (both
// fp16, converted together)
float gk_dot_iq4_nl_q8_0_avx512(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y) {
    const __m256i tbl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) gk_kvalues_iq4nl));
    const __m256i shift = _mm256_setr_epi64x(0, 0, 4, 4);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    const int64_t nb = n / GK_QK4_NL;
    int64_t i = 0;
    for (; i + 1 < nb; i += 2) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            const __m256i w = _mm256_shuffle_epi8(tbl, qa_nibbles(x[i + u].qs, shift, m4));
            const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i + u].qs);
            const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_abs_epi8(w), _mm256_sign_epi8(yv, w));
            const __m128 dd =
                _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(gk_ld16(&x[i + u].d)), gk_ld16(&y[i + u].d), 1));
            const __m256 d = _mm256_broadcastss_ps(_mm_mul_ss(dd, _mm_movehdup_ps(dd)));
            if (u) {
                acc1 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc1);
            } else {
                acc0 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc0);
            }
        }
    }
    for (; i < nb; i++) {
        const __m256i w = _mm256_shuffle_epi8(tbl, qa_nibbles(x[i].qs, shift, m4));
        const __m256i yv = _mm256_loadu_si256((const __m256i *) y[i].qs);
        const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_abs_epi8(w), _mm256_sign_epi8(yv, w));
        const __m128 dd = _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(gk_ld16(&x[i].d)), gk_ld16(&y[i].d), 1));
        acc0 = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_mul_ss(dd, _mm_movehdup_ps(dd))), _mm256_cvtepi32_ps(p), acc0);
    }
    return qa_hsum(_mm256_add_ps(acc0, acc1));
}

// IQ4_XS: eight 32-value groups per superblock with 6-bit scales (ls - 32):
// the eight scales unpacked at once (low nibbles interleaved from scales_l,
// high bit pairs from scales_h by a variable shift) into int16 lanes, picked
// per group by a byte shuffle for VPDPWSSD after VPMADDUBSW (pair sums of
// |w| * |y| <= 2 * 127 * 127, no saturation)
float gk_dot_iq4_xs_q8_K_avx512(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y) {
    const __m256i tbl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) gk_kvalues_iq4nl));
    const __m256i shift = _mm256_setr_epi64x(0, 0, 4, 4);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    const __m128i hshift = _mm_setr_epi16(0, 2, 4, 6, 8, 10, 12, 14);
    __m256i pick[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        const char a = (char) (2 * j), b = (char) (2 * j + 1);
        pick[j] = _mm256_setr_epi8(a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b,
                                   a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const gk_block_iq4_xs * b = x + i;
        const __m128i l = _mm_cvtsi32_si128(gk_ld32(b->scales_l));
        const __m128i l8 = _mm_unpacklo_epi8(_mm_and_si128(l, _mm_set1_epi8(0xF)),
                                             _mm_and_si128(_mm_srli_epi16(l, 4), _mm_set1_epi8(0xF)));
        const __m128i h = _mm_and_si128(_mm_srlv_epi16(_mm_set1_epi16((short) b->scales_h), hshift), _mm_set1_epi16(3));
        const __m128i ls = _mm_sub_epi16(_mm_or_si128(_mm_cvtepu8_epi16(l8), _mm_slli_epi16(h, 4)), _mm_set1_epi16(32));
        const __m256i sc16 = _mm256_broadcastsi128_si256(ls);
        __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int ib = 0; ib < 8; ib++) {
            const __m256i w = _mm256_shuffle_epi8(tbl, qa_nibbles(b->qs + 16 * ib, shift, m4));
            const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 32 * ib));
            const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(yv, w));
            if (ib & 1) {
                s1 = _mm256_dpwssd_epi32(s1, p, _mm256_shuffle_epi8(sc16, pick[ib]));
            } else {
                s0 = _mm256_dpwssd_epi32(s0, p, _mm256_shuffle_epi8(sc16, pick[ib]));
            }
        }
        const float d = _mm_cvtss_f32(_mm_mul_ss(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld16(&b->d))), _mm_set_ss(y[i].d)));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), acc);
    }
    return qa_hsum(acc);
}
