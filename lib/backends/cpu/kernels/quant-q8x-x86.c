/*
 * quant-q8x-x86.c - AVX2 dots of Q8_0/Q4_0 weight rows with Q8_0x activation
 * rows, for CPUs without AVX512-VNNI (called only after the CPU was checked
 * for AVX2/FMA/F16C). The kernel module's reference engine builds this file
 * too (driver/gaccel_ref_q8x_avx2.c): keep it freestanding and AVX2-only.
 *
 * Two rows share a vector, as in the VNNI kernels (quant-avx512.c): lanes
 * 0-3 hold row a's dot over values 0..15 and 16..31, lanes 4-7 row b's
 * ([a 0..15 | b 0..15] x [y 0..15 | y 0..15], then the same for 16..31), so
 * one convert, one FMA and one scale permute serve two rows, and the four
 * rows' fp16 scales are converted at once. Products: maddubs (unsigned x
 * signed bytes, pairs summed in int16) and madd with ones into int32; Q8_0:
 * |y| unsigned with the sign moved onto the weights; Q4_0: the nibbles
 * (0..15) unsigned and 8 * (pair sums of y) taken off in int16.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"

#include <immintrin.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

// software prefetch distance in bytes (measured best of 256, 512, 1024)
#define Q8X_PF_Q8 512
#define Q8X_PF_Q4 1024

static ALWAYS_INLINE uint16_t ld16(const void * p) {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

static ALWAYS_INLINE __m256i load2x16(const uint8_t * a, const uint8_t * b) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) a)),
                                   _mm_loadu_si128((const __m128i *) b), 1);
}

static ALWAYS_INLINE void dot4x(const bool q4, int64_t n, const void * x, size_t bx, int nrows,
                                const gk_block_q8_0x * y, float * s) {
    const int64_t nb = n / GK_QK8_0;
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const uint8_t * xr[4];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        xr[r] = (const uint8_t *) x + (size_t) (r < nrows ? r : nrows - 1) * bx;
    }
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    const __m256i idx0 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i idx1 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    const __m256i k8 = _mm256_set1_epi8(8);
    const size_t row = (size_t) nb * bsz;
    for (int64_t i = 0; i < nb; i++) {
        const size_t o = (size_t) i * bsz;
        // software prefetch PF bytes ahead; past the row's end, the same row
        // of the next group of four, which the caller takes next. Q8_0:
        // also the same place of the next group into L2, which short rows
        // need (their streams end before the hardware prefetchers run
        // ahead; bench-ops n=1, one thread, CPU time: 2048 x 2048 11 -> 20
        // GB/s, 4096 x 14336 17.5 -> 20)
        const size_t pf = o + (q4 ? Q8X_PF_Q4 : Q8X_PF_Q8);
        const size_t pfo = pf < row ? pf : pf - row + 4 * bx;
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            _mm_prefetch((const char *) xr[r] + pfo, _MM_HINT_T0);
            if (!q4) {
                _mm_prefetch((const char *) xr[r] + o + 4 * bx, _MM_HINT_T1);
            }
        }
        const __m256i ylo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) y[i].qs));
        const __m256i yhi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) (y[i].qs + 16)));
        uint64_t d4 = (uint64_t) ld16(xr[0] + o) | ((uint64_t) ld16(xr[1] + o) << 16) |
                      ((uint64_t) ld16(xr[2] + o) << 32) | ((uint64_t) ld16(xr[3] + o) << 48);
        __asm__("" : "+r"(d4)); // combined in general registers, not vectorized
        const __m256 sc = _mm256_castps128_ps256(
            _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi64_si128((long long) d4)), _mm_set1_ps(y[i].d)));
        __m256i p[2];
        if (q4) {
            // 8 * (pair sums of y) over both halves, in int16
            const __m256i y8 = _mm256_add_epi16(_mm256_maddubs_epi16(k8, ylo), _mm256_maddubs_epi16(k8, yhi));
#pragma GCC unroll 2
            for (int q = 0; q < 2; q++) {
                const __m256i raw = load2x16(xr[2 * q] + o + 2, xr[2 * q + 1] + o + 2);
                const __m256i lo = _mm256_and_si256(raw, m4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
                const __m256i t = _mm256_add_epi16(_mm256_maddubs_epi16(lo, ylo), _mm256_maddubs_epi16(hi, yhi));
                p[q] = _mm256_madd_epi16(_mm256_sub_epi16(t, y8), ones);
            }
        } else {
            const __m256i aylo = _mm256_sign_epi8(ylo, ylo);
            const __m256i ayhi = _mm256_sign_epi8(yhi, yhi);
#pragma GCC unroll 2
            for (int q = 0; q < 2; q++) {
                const uint8_t * a = xr[2 * q] + o + 2;
                const uint8_t * b = xr[2 * q + 1] + o + 2;
                const __m256i xl = _mm256_sign_epi8(load2x16(a, b), ylo);
                const __m256i xh = _mm256_sign_epi8(load2x16(a + 16, b + 16), yhi);
                p[q] = _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(aylo, xl), ones),
                                        _mm256_madd_epi16(_mm256_maddubs_epi16(ayhi, xh), ones));
            }
        }
        acc0 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(sc, idx0), _mm256_cvtepi32_ps(p[0]), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(sc, idx1), _mm256_cvtepi32_ps(p[1]), acc1);
    }
    // acc0 = [a0..a3 | b0..b3], acc1 = [c | d]: hadd of the halves gives
    // [a01, a23, b01, b23], [c01, c23, d01, d23]; hadd of those [a, b, c, d]
    const __m128 h = _mm_hadd_ps(_mm_hadd_ps(_mm256_castps256_ps128(acc0), _mm256_extractf128_ps(acc0, 1)),
                                 _mm_hadd_ps(_mm256_castps256_ps128(acc1), _mm256_extractf128_ps(acc1, 1)));
    float r[4];
    _mm_storeu_ps(r, h);
    for (int k = 0; k < nrows && k < 4; k++) {
        s[k] = r[k];
    }
}

void gk_dot4_q8_0_q8x_avx2(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot4x(false, n, x, bx, nrows, y, s);
}

void gk_dot4_q4_0_q8x_avx2(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot4x(true, n, x, bx, nrows, y, s);
}

// Same values as gk_quantize_row_q8_0 (same amax, d, 1/d and rounding of
// x * (1/d) half away from zero), d as the float of its fp16 rounding and
// corr = -off * (sum of the block's values).
void gk_quantize_row_q8_0x_avx2(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 signmask = _mm256_castsi256_ps(_mm256_set1_epi32((int) 0x80000000u));
    const __m256 half = _mm256_set1_ps(0.5f);
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const float * xb = x + i * GK_QK8_0;
        __m256 v[4];
        __m256 amax = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            v[j] = _mm256_loadu_ps(xb + 8 * j);
            amax = _mm256_max_ps(amax, _mm256_and_ps(v[j], absmask));
        }
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_movehdup_ps(m));
        const float d = _mm_cvtss_f32(m) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const __m256 vid = _mm256_set1_ps(id);
        __m256i q[4];
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            const __m256 t = _mm256_mul_ps(v[j], vid);
            q[j] = _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_or_ps(half, _mm256_and_ps(t, signmask))));
            sum = _mm256_add_epi32(sum, q[j]);
        }
        const __m256i q8 = _mm256_permutevar8x32_epi32(
            _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3])),
            _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *) y[i].qs, q8);
        __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
        y[i].d = _cvtsh_ss(_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT));
        y[i].corr = -off * _mm_cvtsi128_si32(s4);
    }
}
