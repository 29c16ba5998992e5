/*
 * quant-k-x86.c - AVX2 dots of Q2_K, Q3_K, Q5_K and TQ2_0 weights with Q8_K
 * activations. The weights are brought to unsigned bytes (Q3_K: q + 4,
 * whose offset comes off through the activations' bsums) for maddubs, one
 * madd applies the group scales, the block's sums are exact int32 and its
 * scales are applied in float. The scales are unpacked in vectors, once per
 * super-block, and picked per madd by a byte shuffle; d and dmin are
 * converted by F16C together.
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

// Byte shuffle that takes int16 lane a into the low 128-bit half and lane
// b into the high one, from a vector whose two halves hold the same eight
// int16 (a group scale per lane): the scales of two groups of 16 values
// for one VPMADDWD.
static GK_ALWAYS_INLINE __m256i pick2(int a, int b) {
    const char a0 = (char) (2 * a), a1 = (char) (2 * a + 1), b0 = (char) (2 * b), b1 = (char) (2 * b + 1);
    return _mm256_setr_epi8(a0, a1, a0, a1, a0, a1, a0, a1, a0, a1, a0, a1, a0, a1, a0, a1,
                            b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1);
}

// Q2_K: the 16 scales (low nibbles) widened to int16 once, eight to a
// vector with both halves alike; each madd's pair of scales is a byte
// shuffle of it. The mins (high nibbles) times bsums in one VPMADDWD,
// applied in float with dmin. Two accumulators (alternate madds).
float gk_dot_q2_K_q8_K_avx2(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m128i m4 = _mm_set1_epi8(0xf);
    __m256i pick[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        pick[j] = pick2(2 * j, 2 * j + 1);
    }
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const __m128i sc8 = _mm_loadu_si128((const __m128i *) x[i].scales);
        const __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc8, 4), m4));
        const __m256i pm = _mm256_madd_epi16(mins, _mm256_loadu_si256((const __m256i *) y[i].bsums));
        const __m128i scl = _mm_and_si128(sc8, m4);
        const __m256i sc_h[2] = {
            _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(scl)),
            _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_srli_si128(scl, 8))),
        };
        __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * h));
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 128 * h + 32 * j));
                const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(v, yv), _mm256_shuffle_epi8(sc_h[h], pick[j]));
                if (j & 1) {
                    s1 = _mm256_add_epi32(s1, p);
                } else {
                    s0 = _mm256_add_epi32(s0, p);
                }
            }
        }
        const __m128 dd = gk_d_dmin(&x[i].d, y[i].d);
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), acc);
        const __m128i pm4 = _mm_add_epi32(_mm256_castsi256_si128(pm), _mm256_extracti128_si256(pm, 1));
        accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm4), accm);
    }
    return gk_hsum_acc(acc, accm);
}

// Q3_K: the 16 6-bit scales unpacked in a vector (low 4 bits: the nibbles
// of bytes 0-7, groups 0-7 low, 8-15 high; bits 4-5 of group 4q + r: bits
// 2q, 2q + 1 of byte 8 + r, a variable shift per dword), minus 32, widened
// to int16; then as Q2_K. The weights as q + 4 (0..7): their offset comes
// off as 4 * sum_g sc[g] * bsums[g], which starts the first accumulator.
float gk_dot_q3_K_q8_K_avx2(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m256i m1 = _mm256_set1_epi8(1);
    const __m128i m4x = _mm_set1_epi8(0xf), m3x = _mm_set1_epi8(3), b32 = _mm_set1_epi8(32);
    const __m128i hshift = _mm_setr_epi32(0, 2, 4, 6);
    __m256i pick[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        pick[j] = pick2(2 * j, 2 * j + 1);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const __m128i a = _mm_loadl_epi64((const __m128i *) x[i].scales);
        const __m128i lo = _mm_and_si128(_mm_unpacklo_epi64(a, _mm_srli_epi16(a, 4)), m4x);
        const __m128i hi = _mm_and_si128(_mm_srlv_epi32(_mm_set1_epi32(gk_ld32(x[i].scales + 8)), hshift), m3x);
        const __m128i sc = _mm_sub_epi8(_mm_or_si128(lo, _mm_slli_epi16(hi, 4)), b32);
        const __m256i sc16 = _mm256_cvtepi8_epi16(sc);
        const __m256i sc_h[2] = { _mm256_permute4x64_epi64(sc16, 0x44), _mm256_permute4x64_epi64(sc16, 0xEE) };
        // |bsums| <= 16 * 128: times 4 still an int16
        const __m256i bs4 = _mm256_slli_epi16(_mm256_loadu_si256((const __m256i *) y[i].bsums), 2);
        __m256i s0 = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_madd_epi16(sc16, bs4));
        __m256i s1 = _mm256_setzero_si256();
        const __m256i hm = _mm256_loadu_si256((const __m256i *) x[i].hmask);
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * h));
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const __m256i l2 = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);
                const __m256i hb = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * h + j), m1);
                const __m256i v = _mm256_or_si256(l2, _mm256_slli_epi16(hb, 2));
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (y[i].qs + 128 * h + 32 * j));
                const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(v, yv), _mm256_shuffle_epi8(sc_h[h], pick[j]));
                if (j & 1) {
                    s1 = _mm256_add_epi32(s1, p);
                } else {
                    s0 = _mm256_add_epi32(s0, p);
                }
            }
        }
        const float d = y[i].d * _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld16(&x[i].d))));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), acc);
    }
    return hsum256_ps(acc);
}

// x shifted left by n bits (right by -n), in 16-bit lanes; n a constant
static GK_ALWAYS_INLINE __m256i bit4(__m256i x, int n) {
    return n > 0 ? _mm256_slli_epi16(x, n) : n < 0 ? _mm256_srli_epi16(x, -n) : x;
}

// pick2(j, j): int16 lane j of both halves
static GK_ALWAYS_INLINE __m256i kd_pick_same(int j) {
    return pick2(j, j);
}

// Q5_K: scales and mins as Q4_K's dot unpacks them (three words in general
// registers), the scales widened to int16 once and picked per sub-block by
// a byte shuffle; the mins in one VPMADDWD with the pair sums of bsums.
static GK_ALWAYS_INLINE void q5k_block(const gk_block_q5_K * b, const gk_block_q8_K * yb, const __m256i * pick,
                                       __m256 * acc, __m128 * accm) {
    const __m256i m4 = _mm256_set1_epi8(0xf);
    const __m256i m16 = _mm256_set1_epi8(0x10);
    __m128i pm;
    const __m256i sc16 = gk_q4_K_scales_bsums(b->scales, yb->bsums, &pm);
    const __m256i hb = _mm256_loadu_si256((const __m256i *) b->qh);
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        const __m256i q4 = _mm256_loadu_si256((const __m256i *) (b->qs + 32 * c));
        // bits 2c and 2c + 1 of qh, moved to bit 4 (the shift of
        // 16-bit lanes carries no neighbour's bit into bit 4)
        const __m256i h0 = _mm256_and_si256(bit4(hb, 4 - 2 * c), m16);
        const __m256i h1 = _mm256_and_si256(bit4(hb, 3 - 2 * c), m16);
        const __m256i v0 = _mm256_or_si256(_mm256_and_si256(q4, m4), h0);
        const __m256i v1 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q4, 4), m4), h1);
        const __m256i y0 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * c));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * c + 32));
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_maddubs_epi16(v0, y0), _mm256_shuffle_epi8(sc16, pick[2 * c])));
        s1 = _mm256_add_epi32(s1,
                              _mm256_madd_epi16(_mm256_maddubs_epi16(v1, y1), _mm256_shuffle_epi8(sc16, pick[2 * c + 1])));
    }
    const __m128 dd = gk_d_dmin(&b->d, yb->d);
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
    *accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), *accm);
}

float gk_dot_q5_K_q8_K_avx2(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y) {
    __m256i pick[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        pick[j] = pick2(j, j);
    }
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        q5k_block(x + i, y + i, pick, &acc, &accm);
    }
    return gk_hsum_acc(acc, accm);
}

// four rows bx bytes apart (GK_KDOT4 in gk-x86.h); each row's value the
// one-row dot's, bit for bit
GK_KDOT4_MINS_FN(gk_dot4_q5_K_q8_K_avx2, gk_block_q5_K, q5k_block, kd_pick_same)

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
