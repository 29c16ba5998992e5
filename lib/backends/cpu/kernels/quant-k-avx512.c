/*
 * quant-k-avx512.c - AVX512 (F, BW, VL, VNNI) dots of one K-quant or IQ4
 * weight row with one Q8_K (IQ4_NL: Q8_0) activation row, for MUL_MAT's
 * matrix-vector path. Built with the AVX512 flags of the *-avx512.c files
 * on top of AVX2/FMA/F16C; called only when ggml_cpu_isa()->use_vnni256
 * (the CPU and OS report AVX512F/BW/VL and VNNI, and GGML_CPU_DISABLE does
 * not name avx512 or avx512_vnni); otherwise the AVX2 dots run.
 *
 * The common pattern, on 256-bit vectors (EVEX-encoded VNNI; the 512-bit
 * forms measured slower on Zen 4, whose 512-bit operations are two 256-bit
 * halves, see the Q4_K and Q6_K dots): VPDPBUSD of the unsigned weight
 * bytes with the signed activation bytes, from zero, gives four-product
 * sums per int32 lane that fit in int16 (|w| <= 63); VPDPWSSD multiplies
 * them by the group scale, held zero-extended in each int32 lane (the high
 * half of the lane multiplies by zero), and adds to the accumulator. That
 * replaces AVX2's VPMADDUBSW + VPMADDWD + VPADDD. The integer sums per
 * superblock equal the AVX2 and portable ones; only the float accumulation
 * order differs.
 *
 * Not part of the kernel module build.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-quant-simd.h"
#include "gk-x86.h"

#include <immintrin.h>

// byte shuffle: int16 lane j of a 128-bit half, zero-extended to each int32
static GK_ALWAYS_INLINE __m256i ka_pick32(int j) {
    const char a = (char) (2 * j), b = (char) (2 * j + 1), z = (char) 0x80;
    return _mm256_setr_epi8(a, b, z, z, a, b, z, z, a, b, z, z, a, b, z, z,
                            a, b, z, z, a, b, z, z, a, b, z, z, a, b, z, z);
}

// byte shuffles for Q2_K/Q3_K/Q6_K-style groups of 16: int16 lane 2g of a
// 128-bit half for the low half of the result, 2g + 1 for the high half,
// zero-extended to int32
static GK_ALWAYS_INLINE __m256i ka_pick32_pair(int g) {
    const char lo0 = (char) (4 * g), lo1 = (char) (4 * g + 1), hi0 = (char) (4 * g + 2), hi1 = (char) (4 * g + 3);
    const char z = (char) 0x80;
    return _mm256_setr_epi8(lo0, lo1, z, z, lo0, lo1, z, z, lo0, lo1, z, z, lo0, lo1, z, z,
                            hi0, hi1, z, z, hi0, hi1, z, z, hi0, hi1, z, z, hi0, hi1, z, z);
}

// Q4_K: quant-kdot-x86.c's dot on 256-bit vectors with VPDPBUSD (nibbles
// times activations, from zero) and VPDPWSSD (times the sub-block's scale,
// zero-extended to int32 by the byte shuffle, added to the accumulator) in
// place of VPMADDUBSW, VPMADDWD and VPADDD. Measured and not kept: the
// 512-bit form ([low | high] nibbles of 32 bytes against 64 activation
// bytes, scales by VPERMD) was 10% slower than AVX2 from cache on Zen 4.
// one Q4_K super-block b against yb, added to acc (scales) and accm (mins)
static GK_ALWAYS_INLINE void q4k_block(const gk_block_q4_K * b, const gk_block_q8_K * yb, const __m256i * pick,
                                       __m256 * acc, __m128 * accm) {
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m128i pm;
    const __m256i sc16 = gk_q4_K_scales_bsums(b->scales, yb->bsums, &pm);
    __m256i s[4] = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                     _mm256_setzero_si256() };
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        const __m256i q4 = _mm256_loadu_si256((const __m256i *) (b->qs + 32 * k));
        const __m256i lo = _mm256_and_si256(q4, m4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
        const __m256i y0 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k + 32));
        s[2 * (k & 1)] = _mm256_dpwssd_epi32(s[2 * (k & 1)], _mm256_dpbusd_epi32(_mm256_setzero_si256(), lo, y0),
                                             _mm256_shuffle_epi8(sc16, pick[2 * k]));
        s[2 * (k & 1) + 1] = _mm256_dpwssd_epi32(s[2 * (k & 1) + 1],
                                                 _mm256_dpbusd_epi32(_mm256_setzero_si256(), hi, y1),
                                                 _mm256_shuffle_epi8(sc16, pick[2 * k + 1]));
    }
    const __m256i s0 = _mm256_add_epi32(s[0], s[2]), s1 = _mm256_add_epi32(s[1], s[3]);
    const __m128 dd = gk_d_dmin(&b->d, yb->d);
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
    *accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), *accm);
}

float gk_dot_q4_K_q8_K_avx512(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    __m256i pick[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        pick[j] = ka_pick32(j);
    }
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        q4k_block(x + i, y + i, pick, &acc, &accm);
    }
    return gk_hsum_acc(acc, accm);
}

// Four rows bx bytes apart against one activation row (gk-x86.h, GK_KDOT4):
// each activation super-block read once for the four, each row's sums the
// one-row dot's, bit for bit.
GK_KDOT4_MINS_FN(gk_dot4_q4_K_q8_K_avx512, gk_block_q4_K, q4k_block, ka_pick32)

// Q6_K: quant-kdot-x86.c's dot with VPDPBUSD + VPDPWSSD: the 6-bit values
// (0..63, unsigned operand) rebuilt from ql and qh; their offset 32 comes
// off through the bsums (32 * sum_j scale_j * bsum_j), which starts the first
// accumulator; the 16-value groups' scales (int8, sign-extended to int16 and
// then zero-extended to int32 by the shuffle) picked per half vector.
// Measured and not kept: the 512-bit form ([q0 | q1] from one 64-byte load of
// ql and a 64-bit variable shift of qh broadcast to both halves, scales by
// VPERMD) was 7% faster than AVX2 from cache but 7% slower from DRAM.
// one Q6_K super-block b against yb, added to acc
static GK_ALWAYS_INLINE void q6k_block(const gk_block_q6_K * b, const gk_block_q8_K * yb, const __m256i * pick,
                                       __m256 * acc) {
    const __m256i bs = _mm256_loadu_si256((const __m256i *) yb->bsums);
    const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) b->scales));
    __m256i s0 = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(_mm256_madd_epi16(sc16, bs), 5));
    __m256i s1 = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m256i sch = h == 0 ? _mm256_permute2x128_si256(sc16, sc16, 0x00)
                                   : _mm256_permute2x128_si256(sc16, sc16, 0x11);
        __m256i q[4];
        gk_q6_K_half_avx2(b->ql + 64 * h, b->qh + 32 * h, q);
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) {
            const __m256i yv = _mm256_loadu_si256((const __m256i *) (yb->qs + 128 * h + 32 * g));
            const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), q[g], yv);
            if (g & 1) {
                s1 = _mm256_dpwssd_epi32(s1, p, _mm256_shuffle_epi8(sch, pick[g]));
            } else {
                s0 = _mm256_dpwssd_epi32(s0, p, _mm256_shuffle_epi8(sch, pick[g]));
            }
        }
    }
    const __m128 dd = _mm_mul_ss(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld16(&b->d))), _mm_set_ss(yb->d));
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
}

float gk_dot_q6_K_q8_K_avx512(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    __m256i pick[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        pick[g] = ka_pick32_pair(g);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        q6k_block(x + i, y + i, pick, &acc);
    }
    return gk_hsum8(acc);
}

// Q6_K's four-row form (gk_dot4_q4_K_q8_K_avx512's)
GK_KDOT4_FN(gk_dot4_q6_K_q8_K_avx512, gk_block_q6_K, q6k_block, ka_pick32_pair)

// The stream form (one column of plain Q6_K, four rows far apart) on
// 512-bit vectors: the 256-bit super-block ran at 35-37 GB/s with the rows
// in L2 on Zen 5, about what one thread reads from DRAM, so the memory
// waited for it. Per half super-block one 64-byte load of ql gives [q0 |
// q1] (low nibbles) and [q2 | q3] (high nibbles), the 32 bytes of qh
// broadcast to both halves and shifted per 64-bit lane (4 / 2 and 0 / 2)
// supply the high bits; two VPDPBUSD against 64 activation bytes each,
// then VPDPWSSD by the 16-value groups' scales (zero-extended int16 in
// each int32 lane, spread by VPERMD: lanes 4g..4g+3 take group g of the
// 64 values). The offset of 32 comes off through the bsums as in
// q6k_block. The integer sum of each super-block is the one-row dot's;
// the float order differs (16 lanes, one FMA each per super-block).
static GK_ALWAYS_INLINE void q6k_block512(const gk_block_q6_K * b, const gk_block_q8_K * yb, __m512 * acc) {
    const __m512i m4 = _mm512_set1_epi8(0x0F), m30 = _mm512_set1_epi8(0x30);
    const __m512i shl = _mm512_setr_epi64(4, 4, 4, 4, 2, 2, 2, 2), shr = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2);
    const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) b->scales));
    const __m512i sc32 = _mm512_cvtepu16_epi32(sc16);
    const __m256i off = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *) yb->bsums));
    __m512i s = _mm512_zextsi256_si512(_mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(off, 5)));
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m512i l = _mm512_loadu_si512((const void *) (b->ql + 64 * h));
        const __m512i hb = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) (b->qh + 32 * h)));
        // (a & m4) | c, c = the high bits already masked
        const __m512i q01 = _mm512_ternarylogic_epi32(l, _mm512_and_si512(_mm512_sllv_epi64(hb, shl), m30), m4, 0xEC);
        const __m512i q23 = _mm512_ternarylogic_epi32(_mm512_srli_epi16(l, 4),
                                                      _mm512_and_si512(_mm512_srlv_epi64(hb, shr), m30), m4, 0xEC);
        const __m512i p01 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), q01,
                                                _mm512_loadu_si512((const void *) (yb->qs + 128 * h)));
        const __m512i p23 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), q23,
                                                _mm512_loadu_si512((const void *) (yb->qs + 128 * h + 64)));
        const __m512i i01 = _mm512_setr_epi32(8 * h, 8 * h, 8 * h, 8 * h, 8 * h + 1, 8 * h + 1, 8 * h + 1, 8 * h + 1,
                                              8 * h + 2, 8 * h + 2, 8 * h + 2, 8 * h + 2, 8 * h + 3, 8 * h + 3,
                                              8 * h + 3, 8 * h + 3);
        const __m512i i23 = _mm512_add_epi32(i01, _mm512_set1_epi32(4));
        s = _mm512_dpwssd_epi32(s, p01, _mm512_permutexvar_epi32(i01, sc32));
        s = _mm512_dpwssd_epi32(s, p23, _mm512_permutexvar_epi32(i23, sc32));
    }
    const float dd = _cvtsh_ss(gk_ld16(&b->d)) * yb->d;
    *acc = _mm512_fmadd_ps(_mm512_set1_ps(dd), _mm512_cvtepi32_ps(s), *acc);
}

void gk_dot4s_q6_K_q8_K_avx512(int64_t n, const void * x, size_t bx, size_t nx, const gk_block_q8_K * y, float * s) {
    const int64_t nb = n / GK_QK_K;
    const char * xc = (const char *) x;
    __m512 acc[4] = { _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps() };
    GK_KDOT4_LOOP(gk_block_q6_K, nb, xc, bx, nx,
                  q6k_block512((const gk_block_q6_K *) (xc + (size_t) r * bx) + i, y + i, &acc[r]));
    for (int r = 0; r < 4; r++) {
        s[r] = _mm512_reduce_add_ps(acc[r]);
    }
}

// Q5_K: Q4_K's layout plus the fifth bits in qh (bit 2c for the low
// nibbles of chunk c, 2c + 1 for the high ones), added as 16 under a byte
// mask (VPTESTMB); scales and mins as Q4_K's (the mins through the bsums).
static GK_ALWAYS_INLINE void q5k_block(const gk_block_q5_K * b, const gk_block_q8_K * yb, const __m256i * pick,
                                       __m256 * acc, __m128 * accm) {
    const __m256i m4 = _mm256_set1_epi8(0xF);
    const __m256i c16 = _mm256_set1_epi8(16);
    __m128i pm;
    const __m256i sc16 = gk_q4_K_scales_bsums(b->scales, yb->bsums, &pm);
    const __m256i hb = _mm256_loadu_si256((const __m256i *) b->qh);
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        const __m256i q4 = _mm256_loadu_si256((const __m256i *) (b->qs + 32 * k));
        const __mmask32 h0 = _mm256_test_epi8_mask(hb, _mm256_set1_epi8((char) (1 << (2 * k))));
        const __mmask32 h1 = _mm256_test_epi8_mask(hb, _mm256_set1_epi8((char) (2 << (2 * k))));
        const __m256i lo = _mm256_and_si256(q4, m4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
        const __m256i v0 = _mm256_mask_add_epi8(lo, h0, lo, c16);
        const __m256i v1 = _mm256_mask_add_epi8(hi, h1, hi, c16);
        const __m256i y0 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k + 32));
        s0 = _mm256_dpwssd_epi32(s0, _mm256_dpbusd_epi32(_mm256_setzero_si256(), v0, y0),
                                 _mm256_shuffle_epi8(sc16, pick[2 * k]));
        s1 = _mm256_dpwssd_epi32(s1, _mm256_dpbusd_epi32(_mm256_setzero_si256(), v1, y1),
                                 _mm256_shuffle_epi8(sc16, pick[2 * k + 1]));
    }
    const __m128 dd = gk_d_dmin(&b->d, yb->d);
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
    *accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), *accm);
}

float gk_dot_q5_K_q8_K_avx512(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    __m256i pick[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        pick[j] = ka_pick32(j);
    }
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        q5k_block(x + i, y + i, pick, &acc, &accm);
    }
    return gk_hsum_acc(acc, accm);
}

// Q5_K's four-row form (gk_dot4_q4_K_q8_K_avx512's)
GK_KDOT4_MINS_FN(gk_dot4_q5_K_q8_K_avx512, gk_block_q5_K, q5k_block, ka_pick32)

// Q2_K and Q3_K share the layout of the 2-bit fields: for half h (32 bytes
// of qs) and shift j, the 32 values meet activation bytes 128h + 32j ..,
// groups 8h + 2j (low 16) and 8h + 2j + 1 (high 16). sc16: the 16 group
// scales as int16; v(h, j): the unsigned weight bytes. Returns the int32 sums
// of scale * dot added to s.
#define KA_2BIT_BODY(VALUES)                                                                          \
    do {                                                                                           \
        _Pragma("GCC unroll 2") for (int h = 0; h < 2; h++) {                                      \
            const __m256i sch = h == 0 ? _mm256_permute2x128_si256(sc16, sc16, 0x00)               \
                                       : _mm256_permute2x128_si256(sc16, sc16, 0x11);              \
            const __m256i q2 = _mm256_loadu_si256((const __m256i *) (b->qs + 32 * h));             \
            _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) {                                  \
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * j), m3);             \
                const __m256i v = VALUES;                                                          \
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (yb->qs + 128 * h + 32 * j)); \
                const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), v, yv);              \
                if (j & 1) {                                                                       \
                    s1 = _mm256_dpwssd_epi32(s1, p, _mm256_shuffle_epi8(sch, pick[j]));            \
                } else {                                                                           \
                    s0 = _mm256_dpwssd_epi32(s0, p, _mm256_shuffle_epi8(sch, pick[j]));            \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

// Q2_K: values 0..3 with 4-bit scales; the 4-bit mins through the bsums
// (one VPMADDWD, scaled by dmin in float)
float gk_dot_q2_K_q8_K_avx512(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m128i m4 = _mm_set1_epi8(0xF);
    __m256i pick[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        pick[g] = ka_pick32_pair(g);
    }
    __m256 acc = _mm256_setzero_ps(), accm = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const gk_block_q8_K * yb = y + i;
        const gk_block_q2_K * b = x + i;
        const __m128i sc8 = _mm_loadu_si128((const __m128i *) b->scales);
        const __m256i sc16 = _mm256_cvtepu8_epi16(_mm_and_si128(sc8, m4));
        const __m256i mn16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc8, 4), m4));
        const __m256i pm = _mm256_madd_epi16(mn16, _mm256_loadu_si256((const __m256i *) yb->bsums));
        __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
        KA_2BIT_BODY(lo);
        const __m128 dd = gk_d_dmin(&b->d, yb->d);
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), acc);
        accm = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(dd)), _mm256_cvtepi32_ps(pm), accm);
    }
    return gk_hsum8(_mm256_sub_ps(acc, accm));
}

// Q3_K: the weights as q + 4 = low bits | hmask bit << 2 (0..7; the bit
// added under a VPTESTMB mask), whose offset 4 comes off through the bsums
// (4 * sum_g sc_g * bsum_g, starting the accumulator); the 16 6-bit scales
// unpacked at once (low nibbles from bytes 0..7, high bit pairs from bytes
// 8..11 by a variable dword shift)
float gk_dot_q3_K_q8_K_avx512(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m256i c4 = _mm256_set1_epi8(4);
    const __m128i m4 = _mm_set1_epi8(0xF);
    const __m128i hshift = _mm_setr_epi32(0, 2, 4, 6);
    __m256i pick[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        pick[g] = ka_pick32_pair(g);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / GK_QK_K; i++) {
        const gk_block_q8_K * yb = y + i;
        const gk_block_q3_K * b = x + i;
        const __m128i s8 = _mm_loadl_epi64((const __m128i *) b->scales);
        const __m128i lo4 = _mm_unpacklo_epi64(_mm_and_si128(s8, m4), _mm_and_si128(_mm_srli_epi16(s8, 4), m4));
        const __m128i hi2 = _mm_and_si128(_mm_srlv_epi32(_mm_set1_epi32(gk_ld32(b->scales + 8)), hshift),
                                          _mm_set1_epi8(3));
        const __m128i sc8 = _mm_sub_epi8(_mm_or_si128(lo4, _mm_slli_epi16(hi2, 4)), _mm_set1_epi8(32));
        const __m256i sc16 = _mm256_cvtepi8_epi16(sc8);
        const __m256i bs = _mm256_loadu_si256((const __m256i *) yb->bsums);
        __m256i s0 = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(_mm256_madd_epi16(sc16, bs), 2));
        __m256i s1 = _mm256_setzero_si256();
        const __m256i hm = _mm256_loadu_si256((const __m256i *) b->hmask);
        KA_2BIT_BODY(_mm256_mask_add_epi8(lo, _mm256_test_epi8_mask(hm, _mm256_set1_epi8((char) (1 << (4 * h + j)))),
                                          lo, c4));
        const float d = _mm_cvtss_f32(_mm_mul_ss(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld16(&b->d))), _mm_set_ss(yb->d)));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), acc);
    }
    return gk_hsum8(acc);
}
