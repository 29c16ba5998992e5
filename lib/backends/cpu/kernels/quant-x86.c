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

float gk_dot_q4_K_q8_K_avx2(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        uint8_t sm[16];
        gk_q4_K_scales_mins(x[i].scales, sm, sm + 8);
        // mins: sum_j mn[j] * (bsums[2j] + bsums[2j+1])
        const __m256i bs  = _mm256_loadu_si256((const __m256i *) y[i].bsums);
        const __m128i bs2 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
        const __m128i mn  = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *) (sm + 8)));
        const __m128i pm  = _mm_madd_epi16(mn, bs2); // 4 x int32
        __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            const __m256i q4 = _mm256_loadu_si256((const __m256i *) (x[i].qs + 32 * c));
            const __m256i lo = _mm256_and_si256(q4, m4);
            const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
            const __m256i y0 = _mm256_loadu_si256((const __m256i *) (y[i].qs + 64 * c));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *) (y[i].qs + 64 * c + 32));
            const __m256i s0 = _mm256_set1_epi16(sm[2 * c]);
            const __m256i s1 = _mm256_set1_epi16(sm[2 * c + 1]);
            const __m256i p0 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, y0), s0);
            const __m256i p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, y1), s1);
            sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(p0, p1));
        }
        const float d    = y[i].d * f16(x[i].d);
        const float dmin = y[i].d * f16(x[i].dmin);
        acc  = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
        accm = _mm_fmadd_ps(_mm_set1_ps(dmin), _mm_cvtepi32_ps(pm), accm);
    }
    __m128 am = _mm_add_ps(accm, _mm_movehl_ps(accm, accm));
    am = _mm_add_ss(am, _mm_movehdup_ps(am));
    return hsum256(acc) - _mm_cvtss_f32(am);
}

// Q6_K: per 32 values, the 6-bit weights q (0..63) are the unsigned operand
// of maddubs and one madd applies the two 16-value scales; the offset 32 of
// every weight comes off once per block from the activation's bsums
// (32 * sum_j scale_j * bsum_j), so no second maddubs per vector.
float gk_dot_q6_K_q8_K_avx2(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y) {
    const int64_t nb = n / GK_QK_K;
    const __m256i m4  = _mm256_set1_epi8(0x0F);
    const __m256i m30 = _mm256_set1_epi8(0x30);
    __m256i pick[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        const char lo0 = (char) (4 * g), lo1 = (char) (4 * g + 1), hi0 = (char) (4 * g + 2), hi1 = (char) (4 * g + 3);
        pick[g] = _mm256_setr_epi8(lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1, lo0, lo1,
                                   hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1, hi0, hi1);
    }
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t *  q8 = y[i].qs;
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) x[i].scales));
        // the offset 32 of every weight: 32 * sum_j scale_j * (sum of activation group j)
        const __m256i bs  = _mm256_loadu_si256((const __m256i *) y[i].bsums);
        const __m256i off = _mm256_slli_epi32(_mm256_madd_epi16(sc16, bs), 5);
        __m256i sump = _mm256_setzero_si256();
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256i sch = h == 0 ? _mm256_permute2x128_si256(sc16, sc16, 0x00)
                                       : _mm256_permute2x128_si256(sc16, sc16, 0x11);
            const __m256i l0 = _mm256_loadu_si256((const __m256i *) ql);
            const __m256i l1 = _mm256_loadu_si256((const __m256i *) (ql + 32));
            const __m256i hb = _mm256_loadu_si256((const __m256i *) qh);
            __m256i q[4];
            q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
            q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
            q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                   _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
#pragma GCC unroll 4
            for (int g = 0; g < 4; g++) {
                const __m256i yv = _mm256_loadu_si256((const __m256i *) (q8 + 32 * g));
                const __m256i p  = _mm256_maddubs_epi16(q[g], yv);
                sump = _mm256_add_epi32(sump, _mm256_madd_epi16(p, _mm256_shuffle_epi8(sch, pick[g])));
            }
            ql += 64;
            qh += 32;
            q8 += 128;
        }
        const __m256i sumi = _mm256_sub_epi32(sump, off);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(f16(x[i].d) * y[i].d), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256(acc);
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
