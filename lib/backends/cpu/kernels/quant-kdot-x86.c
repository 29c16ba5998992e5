/*
 * quant-kdot-x86.c - AVX2 dots of one Q4_K or Q6_K weight row with one Q8_K
 * activation row, for MUL_MAT's matrix-vector path (not in the kernel
 * module, whose engine has no K-quants). They replaced the first AVX2 dots,
 * with the same integer sums per superblock at about 1.5 (Q4_K) and 2
 * (Q6_K) times their throughput from cache, so that one thread streams the
 * weights at the memory's rate.
 *
 * Measured and not kept (one thread, CPU time, 4096 x 4096 and 5632 x
 * 2048, weights cycled through 64 MiB, against the read limit of the same
 * run): four rows per call sharing the activation loads were faster from
 * cache (Q4_K 25 GB/s, Q6_K 32) but slower from DRAM (Q4_K 8 GB/s, and
 * 14-17 with the next group prefetched into L2, against 19-21 for one row):
 * four rows are four short streams the hardware prefetchers do not keep up
 * with, one row at a time is one stream through the whole matrix. (Rows
 * longer than L1 holds their activations beside are the exception: there
 * MUL_MAT takes the four-row forms below, prefetched; gk-x86.h.) VPDPWSSD
 * (AVX512-VNNI) instead of VPMADDWD + VPADDD measured the same; software
 * prefetch into L1 (512 B, 1 KiB ahead) 10-20% slower; the scales
 * broadcast from memory as dwords instead of byte shuffles 15% slower.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-x86.h"

#include <immintrin.h>

// sum += a * b over pairs of int16
static GK_ALWAYS_INLINE __m256i kd_madd_add(__m256i sum, __m256i a, __m256i b) {
    return _mm256_add_epi32(sum, _mm256_madd_epi16(a, b));
}

// byte shuffles that broadcast int16 lane j of a 128-bit half
static GK_ALWAYS_INLINE __m256i kd_pick16(int j) {
    const char a = (char) (2 * j), b = (char) (2 * j + 1);
    return _mm256_setr_epi8(a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b,
                            a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b);
}

// Q4_K: per superblock, the 6-bit scales and mins unpacked from the three
// words of its 12 bytes in general registers and widened to int16 once;
// each sub-block's scale is picked out of that vector by a byte shuffle for
// the VPMADDWD after the VPMADDUBSW of nibbles (unsigned) and activations.
// Two int32 accumulators (even and odd sub-blocks) keep the chain short.
// The mins: one VPMADDWD of the eight mins with the activation's pair sums
// of bsums. d and dmin are converted together.
static GK_ALWAYS_INLINE void q4k_block(const gk_block_q4_K * b, const gk_block_q8_K * yb, const __m256i * pick,
                                       __m256 * acc, __m128 * accm) {
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m128i pm;
    const __m256i sc16 = gk_q4_K_scales_bsums(b->scales, yb->bsums, &pm);
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        const __m256i q4 = _mm256_loadu_si256((const __m256i *) (b->qs + 32 * k));
        const __m256i lo = _mm256_and_si256(q4, m4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
        const __m256i y0 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *) (yb->qs + 64 * k + 32));
        s0 = kd_madd_add(s0, _mm256_maddubs_epi16(lo, y0), _mm256_shuffle_epi8(sc16, pick[2 * k]));
        s1 = kd_madd_add(s1, _mm256_maddubs_epi16(hi, y1), _mm256_shuffle_epi8(sc16, pick[2 * k + 1]));
    }
    const __m128 dd = gk_d_dmin(&b->d, yb->d);
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
    *accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), *accm);
}

float gk_dotk_q4_K_q8_K_avx2(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    __m256i pick[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        pick[j] = kd_pick16(j);
    }
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        q4k_block(x + i, y + i, pick, &acc, &accm);
    }
    return gk_hsum_acc(acc, accm);
}

// four rows bx bytes apart (GK_KDOT4 in gk-x86.h); each row's value the
// one-row dot's, bit for bit
GK_KDOT4_MINS_FN(gk_dot4_q4_K_q8_K_avx2, gk_block_q4_K, q4k_block, kd_pick16)

// Q6_K: the 6-bit values (0..63) are the unsigned operand of VPMADDUBSW;
// their offset 32 comes off once per superblock through the bsums
// (32 * sum_j scale_j * bsum_j), which starts the first accumulator; the
// 16-value groups' scales are picked by byte shuffles; two accumulators.
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
            const __m256i p = _mm256_maddubs_epi16(q[g], yv);
            if (g & 1) {
                s1 = kd_madd_add(s1, p, _mm256_shuffle_epi8(sch, pick[g]));
            } else {
                s0 = kd_madd_add(s0, p, _mm256_shuffle_epi8(sch, pick[g]));
            }
        }
    }
    const __m128 dd = _mm_mul_ss(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld16(&b->d))), _mm_set_ss(yb->d));
    *acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd), _mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)), *acc);
}

// byte shuffles that broadcast int16 lane 2g of a 128-bit half to the low
// half of the result, lane 2g + 1 to the high half (Q6_K's scales per 16)
static GK_ALWAYS_INLINE __m256i kd_pick16_pair(int g) {
    const char lo0 = (char) (4 * g), lo1 = (char) (4 * g + 1), hi0 = (char) (4 * g + 2), hi1 = (char) (4 * g + 3);
    return _mm256_setr_epi8(lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1,
                            hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1);
}

float gk_dotk_q6_K_q8_K_avx2(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    __m256i pick[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        pick[g] = kd_pick16_pair(g);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        q6k_block(x + i, y + i, pick, &acc);
    }
    return gk_hsum8(acc);
}

// Q6_K's four-row form (gk_dot4_q4_K_q8_K_avx2's)
GK_KDOT4_FN(gk_dot4_q6_K_q8_K_avx2, gk_block_q6_K, q6k_block, kd_pick16_pair)
GK_KDOT4S_FN(gk_dot4s_q6_K_q8_K_avx2, gk_block_q6_K, q6k_block, kd_pick16_pair)
