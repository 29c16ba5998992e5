/*
 * vec-x86.c - AVX2/FMA/F16C float vector kernels. Called only after the CPU
 * was checked for all three.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-fp16.h"
#include "gk-math.h"
#include "gk-exp-avx2.h"

#include <immintrin.h>

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline __m256 load_f16(const uint16_t * p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) p));
}

static inline __m256 load_bf16(const uint16_t * p) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *) p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

#define GK_DOT_AVX2(LOADX, LOADY, SX, SY)                                       \
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();                  \
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();                  \
    int64_t i = 0;                                                              \
    for (; i + 32 <= n; i += 32) {                                              \
        a0 = _mm256_fmadd_ps(LOADX(x + i +  0), LOADY(y + i +  0), a0);         \
        a1 = _mm256_fmadd_ps(LOADX(x + i +  8), LOADY(y + i +  8), a1);         \
        a2 = _mm256_fmadd_ps(LOADX(x + i + 16), LOADY(y + i + 16), a2);         \
        a3 = _mm256_fmadd_ps(LOADX(x + i + 24), LOADY(y + i + 24), a3);         \
    }                                                                           \
    for (; i + 8 <= n; i += 8) {                                                \
        a0 = _mm256_fmadd_ps(LOADX(x + i), LOADY(y + i), a0);                   \
    }                                                                           \
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))); \
    for (; i < n; i++) {                                                        \
        s += SX(x[i]) * SY(y[i]);                                               \
    }                                                                           \
    return s;

#define ID(v) (v)

float gk_dot_f32_avx2(int64_t n, const float * x, const float * y) {
    GK_DOT_AVX2(_mm256_loadu_ps, _mm256_loadu_ps, ID, ID)
}

float gk_dot_f16_f32_avx2(int64_t n, const uint16_t * x, const float * y) {
    GK_DOT_AVX2(load_f16, _mm256_loadu_ps, gk_fp16_to_fp32, ID)
}

float gk_dot_bf16_f32_avx2(int64_t n, const uint16_t * x, const float * y) {
    GK_DOT_AVX2(load_bf16, _mm256_loadu_ps, gk_bf16_to_fp32, ID)
}

float gk_dot_f16_avx2(int64_t n, const uint16_t * x, const uint16_t * y) {
    GK_DOT_AVX2(load_f16, load_f16, gk_fp16_to_fp32, gk_fp16_to_fp32)
}

float gk_dot_bf16_avx2(int64_t n, const uint16_t * x, const uint16_t * y) {
    GK_DOT_AVX2(load_bf16, load_bf16, gk_bf16_to_fp32, gk_bf16_to_fp32)
}

// An MR x NR block of C: MR*NR accumulators of 8 lanes along k, reduced at
// the end. MR = 4, NR = 3 uses 12 of the 16 YMM registers; per 8 values of k
// it loads 7 vectors for 12 FMAs.
static inline __attribute__((always_inline)) void
tile(const int MR, const int NR, int k, const float * a, int64_t lda,
     const float * b, int64_t ldb, float * c, int64_t ldc) {
    __m256 acc[4][3];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            acc[i][j] = _mm256_setzero_ps();
        }
    }
    int l = 0;
    for (; l + 8 <= k; l += 8) {
        __m256 bv[3];
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            bv[j] = _mm256_loadu_ps(b + j * ldb + l);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const __m256 av = _mm256_loadu_ps(a + i * lda + l);
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++) {
                acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            float s = hsum256(acc[i][j]);
            for (int t = l; t < k; t++) {
                s += a[i * lda + t] * b[j * ldb + t];
            }
            c[i * ldc + j] += s;
        }
    }
}

void gk_gemm_nt_f32_avx2(int m, int n, int k, const float * a, int64_t lda,
                         const float * b, int64_t ldb, float * c, int64_t ldc) {
    int j = 0;
    for (; j + 3 <= n; j += 3) {
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            tile(4, 3, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
        }
        for (; i < m; i++) {
            tile(1, 3, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
        }
    }
    for (; j < n; j++) {
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            tile(4, 1, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
        }
        for (; i < m; i++) {
            tile(1, 1, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
        }
    }
}

// Four rows of x (row stride ldx elements) dotted with one y: y is loaded
// once per four rows, and four weight streams are in flight. Each row is
// prefetched GK_DOT4_PF bytes ahead into L2, past its end into the same row
// of the next four (which the matrix-vector caller takes next): four short
// streams (a 4096-value F16 row is 8 KiB) are more than the hardware
// prefetchers train on in time. 4096 x 65536 F16 from DRAM, one thread:
// 19 -> 26 GB/s (best of 256 B .. 2 KiB, L1 or L2; into L1 was slower).
#define GK_DOT4_PF 2048

// the prefetches of four rows ldx bytes apart, row bytes long, at byte off.
// Inlined by force: an out-of-line function of prefetches alone counts as
// having no effect to GCC, which then deletes its calls (it did here, from
// some session until 27 November; tests/check/16-prefetches.t now checks)
static inline __attribute__((always_inline)) void dot4_prefetch(const void * x, int64_t ldx, int64_t row, int64_t off) {
    const int64_t pe = off + GK_DOT4_PF;
    const char * pp = (const char *) x + (pe < row ? pe : 4 * ldx + (pe - row));
    _mm_prefetch(pp, _MM_HINT_T1);
    _mm_prefetch(pp + ldx, _MM_HINT_T1);
    _mm_prefetch(pp + 2 * ldx, _MM_HINT_T1);
    _mm_prefetch(pp + 3 * ldx, _MM_HINT_T1);
}

#define GK_DOT4ROWS_AVX2(LOADX, SX)                                                  \
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();                       \
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();                       \
    __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();                       \
    __m256 b2 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();                       \
    const int64_t es = (int64_t) sizeof(*x);                                         \
    int64_t i = 0;                                                                   \
    for (; i + 16 <= n; i += 16) {                                                   \
        if (i * es % 64 == 0) {                                                      \
            dot4_prefetch(x, ldx * es, n * es, i * es);                              \
        }                                                                            \
        const __m256 y0 = _mm256_loadu_ps(y + i), y1 = _mm256_loadu_ps(y + i + 8);   \
        a0 = _mm256_fmadd_ps(LOADX(x + 0 * ldx + i), y0, a0);                        \
        a1 = _mm256_fmadd_ps(LOADX(x + 1 * ldx + i), y0, a1);                        \
        a2 = _mm256_fmadd_ps(LOADX(x + 2 * ldx + i), y0, a2);                        \
        a3 = _mm256_fmadd_ps(LOADX(x + 3 * ldx + i), y0, a3);                        \
        b0 = _mm256_fmadd_ps(LOADX(x + 0 * ldx + i + 8), y1, b0);                    \
        b1 = _mm256_fmadd_ps(LOADX(x + 1 * ldx + i + 8), y1, b1);                    \
        b2 = _mm256_fmadd_ps(LOADX(x + 2 * ldx + i + 8), y1, b2);                    \
        b3 = _mm256_fmadd_ps(LOADX(x + 3 * ldx + i + 8), y1, b3);                    \
    }                                                                                \
    s[0] = hsum256(_mm256_add_ps(a0, b0));                                           \
    s[1] = hsum256(_mm256_add_ps(a1, b1));                                           \
    s[2] = hsum256(_mm256_add_ps(a2, b2));                                           \
    s[3] = hsum256(_mm256_add_ps(a3, b3));                                           \
    for (; i < n; i++) {                                                             \
        for (int r = 0; r < 4; r++) {                                                \
            s[r] += SX(x[r * ldx + i]) * y[i];                                       \
        }                                                                            \
    }

void gk_dot4_f32_avx2(int64_t n, const float * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_AVX2(_mm256_loadu_ps, ID)
}

void gk_dot4_f16_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_AVX2(load_f16, gk_fp16_to_fp32)
}

void gk_dot4_bf16_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_AVX2(load_bf16, gk_bf16_to_fp32)
}

// e^x for 8 lanes, the algorithm of gk_expf (gk-math.h): x = n ln2 + r,
// e^r by its Taylor polynomial to r^8, 2^n into the exponent. Lanes below
// -87.3 (results under the normal range, including -inf) give 0; rel. error
// <= 2e-7 elsewhere (x <= 88).
static inline __m256 exp256(__m256 x) {
    const __m256 zero_below = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
    x = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(88.0f)), _mm256_set1_ps(-87.3f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860677e-6f), r);
    __m256 p = _mm256_set1_ps(1.0f / 40320.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 5040.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(r, r), p, r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), zero_below);
}

// e^(sx) for the activations (SILU, GELU and their GLUs), s = -1 (neg) or
// 1, where only 1 / (1 + e^(sx)) is taken: sx clamped to [-86.5, 88];
// k = round(8 sx / ln2) from a shifted FMA (k in kf's low bits), r = sx -
// k ln2/8 (one constant: |k| <= 1016, so its rounding moves r by < 2.4e-7),
// |r| <= ln2/16; e^(sx) = 2^(k >> 3) 2^((k & 7)/8) e^r: the entry of
// gk_exp2_8th (tab) by a permute on k's low three bits, e^r by its Taylor
// polynomial to r^3 (rel. error < 1.5e-7 there), 2^(k >> 3) added into
// the exponent (k >= -999: k >> 3 >= -125, the result stays normal). Rel.
// error <= 5.2e-7 (SILU checked at every float x in [-88, 88]). It replaced
// a Taylor polynomial to r^7 on |r| <= ln2/2 with a two-part ln2 (13
// vector ops per 8 lanes against 15): SILU in L1 on a Zen 5 thread
// 1.6-2.1 -> 2.3-3.5 G elements/s, measured under load.
static inline __m256 exp_act256(__m256 v, const bool neg, __m256 tab) {
    const __m256 x = neg ? _mm256_max_ps(_mm256_min_ps(v, _mm256_set1_ps(86.5f)), _mm256_set1_ps(-88.0f))
                         : _mm256_max_ps(_mm256_min_ps(v, _mm256_set1_ps(88.0f)), _mm256_set1_ps(-86.5f));
    const __m256 magic = _mm256_set1_ps(12582912.0f); // 1.5 * 2^23
    const __m256 kf = _mm256_fmadd_ps(x, _mm256_set1_ps(neg ? -11.5415603271f : 11.5415603271f), magic);
    const __m256 k = _mm256_sub_ps(kf, magic);
    const __m256 t = _mm256_permutevar8x32_ps(tab, _mm256_castps_si256(kf));
    __m256 p;
    if (neg) { // q = x + k ln2/8 = -r: t (1 - q (1 - q (1/2 - q/6)))
        const __m256 q = _mm256_fmadd_ps(k, _mm256_set1_ps(0.0866433978f), x);
        p = _mm256_fnmadd_ps(_mm256_set1_ps(1.0f / 6.0f), q, _mm256_set1_ps(0.5f));
        p = _mm256_fnmadd_ps(p, q, _mm256_set1_ps(1.0f));
        p = _mm256_fnmadd_ps(_mm256_mul_ps(t, q), p, t);
    } else {
        const __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.0866433978f), x);
        p = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 6.0f), r, _mm256_set1_ps(0.5f));
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
        p = _mm256_fmadd_ps(_mm256_mul_ps(t, r), p, t);
    }
    // (k >> 3) << 23: kf's low mantissa bits hold k, its bits 3-11 land on
    // the exponent
    const __m256i e = _mm256_and_si256(_mm256_slli_epi32(_mm256_castps_si256(kf), 20),
                                       _mm256_set1_epi32((int) 0xff800000u));
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}

// x / (1 + e^-x): -inf gives -inf, +inf +inf, NaN NaN
static inline __m256 silu256(__m256 v, __m256 tab) {
    return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_act256(v, true, tab)));
}

float gk_exp_sub_sum_avx2(int64_t n, float * z, float max) {
    const __m256 m = _mm256_set1_ps(max);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 e0 = exp256(_mm256_sub_ps(_mm256_loadu_ps(z + i), m));
        const __m256 e1 = exp256(_mm256_sub_ps(_mm256_loadu_ps(z + i + 8), m));
        _mm256_storeu_ps(z + i, e0);
        _mm256_storeu_ps(z + i + 8, e1);
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    float s = hsum256(_mm256_add_ps(s0, s1));
    for (; i < n; i++) {
        z[i] = gk_expf(z[i] - max);
        s += z[i];
    }
    return s;
}

void gk_silu_avx2(int64_t n, const float * x, float * y) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 r0 = silu256(_mm256_loadu_ps(x + i), tab);
        const __m256 r1 = silu256(_mm256_loadu_ps(x + i + 8), tab);
        _mm256_storeu_ps(y + i, r0);
        _mm256_storeu_ps(y + i + 8, r1);
    }
    for (; i < n; i++) {
        y[i] = gk_siluf(x[i]);
    }
}

// z = silu(a) * b in one pass (z may be a or b)
void gk_swiglu_avx2(int64_t n, const float * a, const float * b, float * z) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(z + i, _mm256_mul_ps(silu256(_mm256_loadu_ps(a + i), tab), _mm256_loadu_ps(b + i)));
    }
    for (; i < n; i++) {
        z[i] = gk_siluf(a[i]) * b[i];
    }
}

// a * b + c rounded once, as the vector FMAs: the tails give the bits of
// the vector lanes
static inline float fmadd1(float a, float b, float c) {
    return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}

void gk_scale_bias_avx2(int64_t n, const float * x, float s, float b, float * y) {
    const __m256 vs = _mm256_set1_ps(s), vb = _mm256_set1_ps(b);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, vb));
        _mm256_storeu_ps(y + i + 8, _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), vs, vb));
    }
    for (; i < n; i++) {
        y[i] = fmadd1(x[i], s, b);
    }
}

// y in the order gk_dot4_bf16p_f32_avx2 reads it: each 16 values as their 8
// even-indexed values then their 8 odd-indexed ones (the tail as it is).
void gk_bf16p_pack_y_avx2(int64_t n, const float * y, float * yp) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        for (int k = 0; k < 8; k++) {
            yp[i + k]     = y[i + 2 * k];
            yp[i + 8 + k] = y[i + 2 * k + 1];
        }
    }
    for (; i < n; i++) {
        yp[i] = y[i];
    }
}

// Four BF16 rows with one packed F32 row: 16 weights per load; the odd ones
// are the high halves of the 32-bit lanes (a mask makes them floats), the
// even ones the low halves (a shift).
void gk_dot4_bf16p_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * yp, float * s) {
    const __m256i hi = _mm256_set1_epi32((int) 0xffff0000u);
    __m256 a[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps() };
    __m256 b[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps() };
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (i % 32 == 0) {
            dot4_prefetch(x, 2 * ldx, 2 * n, 2 * i);
        }
        const __m256 ye = _mm256_loadu_ps(yp + i), yo = _mm256_loadu_ps(yp + i + 8);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *) (x + r * ldx + i));
            a[r] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(v, 16)), ye, a[r]);
            b[r] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(v, hi)), yo, b[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++) {
        s[r] = hsum256(_mm256_add_ps(a[r], b[r]));
        for (int64_t t = i; t < n; t++) {
            s[r] += gk_bf16_to_fp32(x[r * ldx + t]) * yp[t];
        }
    }
}

// y += a * x
void gk_axpy_avx2(int64_t n, float a, const float * x, float * y) {
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    }
    for (; i < n; i++) {
        y[i] += a * x[i];
    }
}

// the largest element (-inf for n == 0; NaNs are skipped)
float gk_max_avx2(int64_t n, const float * x) {
    __m256 m0 = _mm256_set1_ps(-GK_INFINITY), m1 = m0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);
        m1 = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), m1);
    }
    float out[8];
    _mm256_storeu_ps(out, _mm256_max_ps(m0, m1));
    float m = out[0];
    for (int k = 1; k < 8; k++) {
        m = out[k] > m ? out[k] : m;
    }
    for (; i < n; i++) {
        m = x[i] > m ? x[i] : m;
    }
    return m;
}

// Rotations of RoPE. cs holds (cos, sin) of each pair, interleaved; z may be
// x. Normal mode rotates adjacent pairs (x[2k], x[2k+1]), NeoX mode the
// pairs (x[k], x[k + n_dims/2]).
void gk_rope_norm_avx2(int64_t n_dims, const float * x, float * z, const float * cs) {
    int64_t i = 0;
    for (; i + 8 <= n_dims; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 t = _mm256_loadu_ps(cs + i);
        const __m256 c = _mm256_moveldup_ps(t);
        const __m256 s = _mm256_movehdup_ps(t);
        const __m256 sw = _mm256_permute_ps(v, 0xB1); // pairs swapped
        _mm256_storeu_ps(z + i, _mm256_addsub_ps(_mm256_mul_ps(v, c), _mm256_mul_ps(sw, s)));
    }
    for (; i < n_dims; i += 2) {
        const float a = x[i], b = x[i + 1];
        z[i]     = a * cs[i] - b * cs[i + 1];
        z[i + 1] = a * cs[i + 1] + b * cs[i];
    }
}

void gk_rope_neox_avx2(int64_t n_dims, const float * x, float * z, const float * cs) {
    const int64_t half = n_dims / 2;
    int64_t k = 0;
    for (; k + 8 <= half; k += 8) {
        const __m256 lo = _mm256_loadu_ps(cs + 2 * k);
        const __m256 hi = _mm256_loadu_ps(cs + 2 * k + 8);
        const __m256 c = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
        const __m256 s = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
        const __m256 a = _mm256_loadu_ps(x + k);
        const __m256 b = _mm256_loadu_ps(x + k + half);
        _mm256_storeu_ps(z + k, _mm256_fmsub_ps(a, c, _mm256_mul_ps(b, s)));
        _mm256_storeu_ps(z + k + half, _mm256_fmadd_ps(a, s, _mm256_mul_ps(b, c)));
    }
    for (; k < half; k++) {
        const float a = x[k], b = x[k + half];
        z[k]        = a * cs[2 * k] - b * cs[2 * k + 1];
        z[k + half] = a * cs[2 * k + 1] + b * cs[2 * k];
    }
}

// x * sigmoid(-(a x + b x^3)) = x / (1 + e^(a x + b x^3)): GELU in its
// tanh form (0.5 x (1 + tanh u) = x sigmoid(2u)) and GELU_QUICK.
static inline __m256 x_sigmoid_cubic(__m256 v, float a, float b, __m256 tab) {
    const __m256 t = _mm256_mul_ps(v, _mm256_fmadd_ps(_mm256_mul_ps(v, v), _mm256_set1_ps(b), _mm256_set1_ps(a)));
    return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_act256(t, false, tab)));
}

void gk_gelu_avx2(int64_t n, const float * x, float * y) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, x_sigmoid_cubic(_mm256_loadu_ps(x + i), -2.0f * GK_SQRT_2_OVER_PI,
                                                -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A, tab));
    }
    for (; i < n; i++) {
        y[i] = gk_geluf(x[i]);
    }
}

// z = gelu(a) * b in one pass (z may be a or b)
void gk_geglu_avx2(int64_t n, const float * a, const float * b, float * z) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = x_sigmoid_cubic(_mm256_loadu_ps(a + i), -2.0f * GK_SQRT_2_OVER_PI,
                                         -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A, tab);
        _mm256_storeu_ps(z + i, _mm256_mul_ps(g, _mm256_loadu_ps(b + i)));
    }
    for (; i < n; i++) {
        z[i] = gk_geluf(a[i]) * b[i];
    }
}

void gk_gelu_quick_avx2(int64_t n, const float * x, float * y) {
    const __m256 tab = _mm256_load_ps(gk_exp2_8th);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, x_sigmoid_cubic(_mm256_loadu_ps(x + i), GK_GELU_QUICK_A, 0.0f, tab));
    }
    for (; i < n; i++) {
        y[i] = gk_gelu_quickf(x[i]);
    }
}

// z = y * x (z may be x or y)
void gk_mul_avx2(int64_t n, const float * x, const float * y, float * z) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(z + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    }
    for (; i < n; i++) {
        z[i] = x[i] * y[i];
    }
}

// z = x op y, 32 values a step (z may be x or y: every load of a step comes
// before its stores)
#define GK_BINARY_AVX2(VOP, SOP)                                                              \
    for (; i + 32 <= n; i += 32) {                                                            \
        const __m256 r0 = VOP(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));                \
        const __m256 r1 = VOP(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8));        \
        const __m256 r2 = VOP(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16));      \
        const __m256 r3 = VOP(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24));      \
        _mm256_storeu_ps(z + i, r0);                                                          \
        _mm256_storeu_ps(z + i + 8, r1);                                                      \
        _mm256_storeu_ps(z + i + 16, r2);                                                     \
        _mm256_storeu_ps(z + i + 24, r3);                                                     \
    }                                                                                         \
    for (; i + 8 <= n; i += 8) {                                                              \
        _mm256_storeu_ps(z + i, VOP(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));          \
    }                                                                                         \
    for (; i < n; i++) {                                                                      \
        z[i] = x[i] SOP y[i];                                                                 \
    }

void gk_binary_avx2(enum gk_binop op, int64_t n, const float * x, const float * y, float * z) {
    int64_t i = 0;
    switch (op) {
        case GK_ADD: GK_BINARY_AVX2(_mm256_add_ps, +) break;
        case GK_SUB: GK_BINARY_AVX2(_mm256_sub_ps, -) break;
        case GK_MUL: GK_BINARY_AVX2(_mm256_mul_ps, *) break;
        case GK_DIV: GK_BINARY_AVX2(_mm256_div_ps, /) break;
    }
}

// gk_binary_avx2 with non-temporal stores (then SFENCE), for outputs larger
// than the last-level cache: the values before z's first 32-byte boundary
// and the last n % 8 by the scalar operation (the same bits: one IEEE
// operation per value either way). z may be x or y.
#define GK_BINARY_NT_AVX2(VOP, SOP)                                                           \
    for (; i < n && ((uintptr_t) (z + i) & 31) != 0; i++) {                                  \
        z[i] = x[i] SOP y[i];                                                                 \
    }                                                                                         \
    for (; i + 32 <= n; i += 32) {                                                            \
        const __m256 r0 = VOP(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));                \
        const __m256 r1 = VOP(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8));        \
        const __m256 r2 = VOP(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16));      \
        const __m256 r3 = VOP(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24));      \
        _mm256_stream_ps(z + i, r0);                                                          \
        _mm256_stream_ps(z + i + 8, r1);                                                      \
        _mm256_stream_ps(z + i + 16, r2);                                                     \
        _mm256_stream_ps(z + i + 24, r3);                                                     \
    }                                                                                         \
    for (; i + 8 <= n; i += 8) {                                                              \
        _mm256_stream_ps(z + i, VOP(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));          \
    }                                                                                         \
    for (; i < n; i++) {                                                                      \
        z[i] = x[i] SOP y[i];                                                                 \
    }

void gk_binary_nt_avx2(enum gk_binop op, int64_t n, const float * x, const float * y, float * z) {
    int64_t i = 0;
    if (((uintptr_t) z & 3) != 0) {
        gk_binary_avx2(op, n, x, y, z);
        return;
    }
    switch (op) {
        case GK_ADD: GK_BINARY_NT_AVX2(_mm256_add_ps, +) break;
        case GK_SUB: GK_BINARY_NT_AVX2(_mm256_sub_ps, -) break;
        case GK_MUL: GK_BINARY_NT_AVX2(_mm256_mul_ps, *) break;
        case GK_DIV: GK_BINARY_NT_AVX2(_mm256_div_ps, /) break;
    }
    _mm_sfence();
}

// a[0..3] += v0, v1 widened to double (gk_sum_f64_avx2's step of 16)
static inline __attribute__((always_inline)) void sum16_f64(__m256 v0, __m256 v1, __m256d a[4]) {
    a[0] = _mm256_add_pd(a[0], _mm256_cvtps_pd(_mm256_castps256_ps128(v0)));
    a[1] = _mm256_add_pd(a[1], _mm256_cvtps_pd(_mm256_extractf128_ps(v0, 1)));
    a[2] = _mm256_add_pd(a[2], _mm256_cvtps_pd(_mm256_castps256_ps128(v1)));
    a[3] = _mm256_add_pd(a[3], _mm256_cvtps_pd(_mm256_extractf128_ps(v1, 1)));
}

// the sum in double: each 8 floats widened to two vectors of 4 doubles
double gk_sum_f64_avx2(int64_t n, const float * x) {
    __m256d a[4] = { _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd() };
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        sum16_f64(_mm256_loadu_ps(x + i), _mm256_loadu_ps(x + i + 8), a);
    }
    double out[4];
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3])));
    double s = (out[0] + out[1]) + (out[2] + out[3]);
    for (; i < n; i++) {
        s += x[i];
    }
    return s;
}

float gk_sumsq_dev_avx2(int64_t n, const float * x, float mean) {
    const __m256 m = _mm256_set1_ps(mean);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
        const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m);
        const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 16), m);
        const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 24), m);
        a0 = _mm256_fmadd_ps(d0, d0, a0);
        a1 = _mm256_fmadd_ps(d1, d1, a1);
        a2 = _mm256_fmadd_ps(d2, d2, a2);
        a3 = _mm256_fmadd_ps(d3, d3, a3);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
        a0 = _mm256_fmadd_ps(d, d, a0);
    }
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; i < n; i++) {
        const float d = x[i] - mean;
        s += d * d;
    }
    return s;
}

void gk_centre_scale_avx2(int64_t n, const float * x, float mean, float s, float * z) {
    const __m256 m = _mm256_set1_ps(mean), vs = _mm256_set1_ps(s);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 r0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), vs);
        const __m256 r1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m), vs);
        _mm256_storeu_ps(z + i, r0);
        _mm256_storeu_ps(z + i + 8, r1);
    }
    for (; i < n; i++) {
        z[i] = (x[i] - mean) * s;
    }
}

// z = x * s + slope * m (m may be NULL: no mask), returns max(z) (-inf for
// n == 0; NaNs skipped): SOFT_MAX's first pass. Each value is x * s
// rounded, then one fused multiply-add of the mask (as gk_scale_bias with
// b = 0, then gk_axpy's vector lanes).
float gk_scale_mask_max_avx2(int64_t n, const float * x, float s, const float * m, float slope, float * z) {
    const __m256 vs = _mm256_set1_ps(s), vsl = _mm256_set1_ps(slope), zero = _mm256_setzero_ps();
    __m256 m0 = _mm256_set1_ps(-GK_INFINITY), m1 = m0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 v0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, zero);
        __m256 v1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), vs, zero);
        if (m) {
            v0 = _mm256_fmadd_ps(vsl, _mm256_loadu_ps(m + i), v0);
            v1 = _mm256_fmadd_ps(vsl, _mm256_loadu_ps(m + i + 8), v1);
        }
        _mm256_storeu_ps(z + i, v0);
        _mm256_storeu_ps(z + i + 8, v1);
        m0 = _mm256_max_ps(v0, m0);
        m1 = _mm256_max_ps(v1, m1);
    }
    float out[8];
    _mm256_storeu_ps(out, _mm256_max_ps(m0, m1));
    float mx = out[0];
    for (int k = 1; k < 8; k++) {
        mx = out[k] > mx ? out[k] : mx;
    }
    for (; i < n; i++) {
        float v = x[i] * s + 0.0f;
        if (m) {
            v = fmadd1(slope, m[i], v);
        }
        z[i] = v;
        mx = v > mx ? v : mx;
    }
    return mx;
}

// y = x written with non-temporal stores (then SFENCE): for outputs larger
// than the last-level cache, which skip the read for ownership of their
// lines. x and y do not overlap.
void gk_copy_nt_avx2(int64_t n, const float * x, float * y) {
    int64_t i = 0;
    for (; i < n && ((uintptr_t) (y + i) & 31) != 0; i++) {
        y[i] = x[i];
    }
    for (; i + 32 <= n; i += 32) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        const __m256 c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24);
        _mm256_stream_ps(y + i, a);
        _mm256_stream_ps(y + i + 8, b);
        _mm256_stream_ps(y + i + 16, c);
        _mm256_stream_ps(y + i + 24, d);
    }
    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(y + i, _mm256_loadu_ps(x + i));
    }
    for (; i < n; i++) {
        y[i] = x[i];
    }
    _mm_sfence();
}

// y = x * s + b as gk_scale_bias_avx2 (the same bits), and z = (x - mean) *
// s as gk_centre_scale_avx2, written with non-temporal stores (then SFENCE);
// y and z are x itself or do not overlap it
void gk_scale_bias_nt_avx2(int64_t n, const float * x, float s, float b, float * y) {
    const __m256 vs = _mm256_set1_ps(s), vb = _mm256_set1_ps(b);
    int64_t i = 0;
    for (; i < n && ((uintptr_t) (y + i) & 31) != 0; i++) {
        y[i] = fmadd1(x[i], s, b);
    }
    for (; i + 16 <= n; i += 16) {
        _mm256_stream_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, vb));
        _mm256_stream_ps(y + i + 8, _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), vs, vb));
    }
    for (; i < n; i++) {
        y[i] = fmadd1(x[i], s, b);
    }
    _mm_sfence();
}

void gk_centre_scale_nt_avx2(int64_t n, const float * x, float mean, float s, float * z) {
    const __m256 m = _mm256_set1_ps(mean), vs = _mm256_set1_ps(s);
    int64_t i = 0;
    for (; i < n && ((uintptr_t) (z + i) & 31) != 0; i++) {
        z[i] = (x[i] - mean) * s;
    }
    for (; i + 16 <= n; i += 16) {
        _mm256_stream_ps(z + i, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), vs));
        _mm256_stream_ps(z + i + 8, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m), vs));
    }
    for (; i < n; i++) {
        z[i] = (x[i] - mean) * s;
    }
    _mm_sfence();
}

// The row read from memory is also asked for GK_PIPE_PF bytes ahead (past
// its end: into the next row, read next; a prefetch never faults): NORM,
// [4096,4096] from DRAM, one thread: 9.1-10.6 -> 6.2-7.6 ms (CPU time; 2048
// bytes: 6.6-7.0, 8192 and 16384 no better than 4096).
#define GK_PIPE_PF 4096

static inline __attribute__((always_inline)) void pipe_prefetch(const float * p) {
    const char * q = (const char *) ((uintptr_t) p + GK_PIPE_PF);
    _mm_prefetch(q, _MM_HINT_T0);
    _mm_prefetch(q + 64, _MM_HINT_T0);
}

// The loops of gk_dot_f32_avx2 (x = y), gk_sumsq_dev_avx2 and gk_sum_f64_avx2,
// step for step (the same sums); each step also writes the same span of y or
// z (aligned: blocks of 8 from 0), the tail with ordinary stores.
float gk_scale_nt_sumsq_avx2(int64_t n, const float * x, float s, float * y, const float * xn) {
    const __m256 vs = _mm256_set1_ps(s), vb = _mm256_setzero_ps();
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        pipe_prefetch(xn + i);
        const __m256 v0 = _mm256_loadu_ps(xn + i), v1 = _mm256_loadu_ps(xn + i + 8);
        const __m256 v2 = _mm256_loadu_ps(xn + i + 16), v3 = _mm256_loadu_ps(xn + i + 24);
        _mm256_stream_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, vb));
        _mm256_stream_ps(y + i + 8, _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), vs, vb));
        _mm256_stream_ps(y + i + 16, _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), vs, vb));
        _mm256_stream_ps(y + i + 24, _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), vs, vb));
        a0 = _mm256_fmadd_ps(v0, v0, a0);
        a1 = _mm256_fmadd_ps(v1, v1, a1);
        a2 = _mm256_fmadd_ps(v2, v2, a2);
        a3 = _mm256_fmadd_ps(v3, v3, a3);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(xn + i);
        _mm256_stream_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, vb));
        a0 = _mm256_fmadd_ps(v, v, a0);
    }
    float r = hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; i < n; i++) {
        r += xn[i] * xn[i];
        y[i] = fmadd1(x[i], s, 0.0f);
    }
    _mm_sfence();
    return r;
}

double gk_norm_step_nt_avx2(int64_t n, const float * x, float mean, float s, float * z,
                           const float * x1, float mean1, float * ss1, const float * x2) {
    const __m256 m = _mm256_set1_ps(mean), vs = _mm256_set1_ps(s), m1 = _mm256_set1_ps(mean1);
    __m256 q0 = _mm256_setzero_ps(), q1 = q0, q2 = q0, q3 = q0;
    __m256d a[4] = { _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd() };
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        pipe_prefetch(x2 + i);
        const __m256 v0 = _mm256_loadu_ps(x2 + i), v1 = _mm256_loadu_ps(x2 + i + 8);
        const __m256 v2 = _mm256_loadu_ps(x2 + i + 16), v3 = _mm256_loadu_ps(x2 + i + 24);
        for (int k = 0; k < 32; k += 8) {
            _mm256_stream_ps(z + i + k, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + k), m), vs));
        }
        const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x1 + i), m1);
        const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x1 + i + 8), m1);
        const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(x1 + i + 16), m1);
        const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(x1 + i + 24), m1);
        q0 = _mm256_fmadd_ps(d0, d0, q0);
        q1 = _mm256_fmadd_ps(d1, d1, q1);
        q2 = _mm256_fmadd_ps(d2, d2, q2);
        q3 = _mm256_fmadd_ps(d3, d3, q3);
        // gk_sum_f64_avx2's two steps of 16
        sum16_f64(v0, v1, a);
        sum16_f64(v2, v3, a);
    }
    // the three loops' own tails
    int64_t j = i;
    for (; j + 16 <= n; j += 16) {
        sum16_f64(_mm256_loadu_ps(x2 + j), _mm256_loadu_ps(x2 + j + 8), a);
    }
    double out[4];
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3])));
    double r = (out[0] + out[1]) + (out[2] + out[3]);
    for (; j < n; j++) {
        r += x2[j];
    }
    for (j = i; j + 8 <= n; j += 8) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x1 + j), m1);
        q0 = _mm256_fmadd_ps(d, d, q0);
    }
    float ss = hsum256(_mm256_add_ps(_mm256_add_ps(q0, q1), _mm256_add_ps(q2, q3)));
    for (; j < n; j++) {
        const float d = x1[j] - mean1;
        ss += d * d;
    }
    *ss1 = ss;
    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(z + i, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), vs));
    }
    for (; i < n; i++) {
        z[i] = (x[i] - mean) * s;
    }
    _mm_sfence();
    return r;
}

// cos and sin of 8 angles by the algorithm of gk_cosf/gk_sinf (gk-math.h),
// operation for operation (no fused multiply-adds), so the same bits:
// Cody-Waite reduction by pi/2 (k rounded half away from zero), the two
// kernel polynomials, the quadrant choosing and negating them
static inline void sincos256(__m256 x, __m256 * c, __m256 * s) {
    const __m256 signbit = _mm256_set1_ps(-0.0f);
    const __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(0.636619772f));
    const __m256 half = _mm256_or_ps(_mm256_set1_ps(0.5f), _mm256_and_ps(t, signbit));
    const __m256i qi = _mm256_cvttps_epi32(_mm256_add_ps(t, half));
    const __m256 k = _mm256_cvtepi32_ps(qi);
    __m256 r = _mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(1.5703125f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(k, _mm256_set1_ps(4.83751297e-4f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(k, _mm256_set1_ps(7.54978995e-8f)));
    const __m256 z = _mm256_mul_ps(r, r);
    __m256 ps = _mm256_set1_ps(2.75573192e-6f);
    ps = _mm256_sub_ps(_mm256_mul_ps(ps, z), _mm256_set1_ps(1.98412698e-4f));
    ps = _mm256_add_ps(_mm256_mul_ps(ps, z), _mm256_set1_ps(8.33333333e-3f));
    ps = _mm256_sub_ps(_mm256_mul_ps(ps, z), _mm256_set1_ps(1.66666667e-1f));
    const __m256 sk = _mm256_add_ps(r, _mm256_mul_ps(_mm256_mul_ps(r, z), ps));
    __m256 pc = _mm256_set1_ps(-2.75573192e-7f);
    pc = _mm256_add_ps(_mm256_mul_ps(pc, z), _mm256_set1_ps(2.48015873e-5f));
    pc = _mm256_sub_ps(_mm256_mul_ps(pc, z), _mm256_set1_ps(1.38888889e-3f));
    pc = _mm256_add_ps(_mm256_mul_ps(pc, z), _mm256_set1_ps(4.16666667e-2f));
    const __m256 ck = _mm256_add_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(_mm256_set1_ps(0.5f), z)),
                                    _mm256_mul_ps(_mm256_mul_ps(z, z), pc));
    // q & 1: swap the kernels; sin negated for q & 2, cos for (q + 1) & 2
    const __m256 odd = _mm256_castsi256_ps(_mm256_slli_epi32(qi, 31));
    const __m256 sv = _mm256_blendv_ps(sk, ck, odd);
    const __m256 cv = _mm256_blendv_ps(ck, sk, odd);
    const __m256 sneg = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(qi, 1), 31));
    const __m256 cneg = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_srli_epi32(_mm256_add_epi32(qi, _mm256_set1_epi32(1)), 1), 31));
    *s = _mm256_xor_ps(sv, sneg);
    *c = _mm256_xor_ps(cv, cneg);
}

void gk_sincos_avx2(int64_t n, const float * theta, float mscale, float * cs) {
    const __m256 m = _mm256_set1_ps(mscale), lim = _mm256_set1_ps(1e6f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(theta + i);
        // finite and |x| <= 1e6 (k fits an int), else the scalar functions
        const __m256 ok = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), lim, _CMP_LE_OQ);
        if (_mm256_movemask_ps(ok) != 0xff) {
            for (int64_t j = i; j < i + 8; j++) {
                cs[2 * j]     = gk_cosf(theta[j]) * mscale;
                cs[2 * j + 1] = gk_sinf(theta[j]) * mscale;
            }
            continue;
        }
        __m256 c, s;
        sincos256(x, &c, &s);
        c = _mm256_mul_ps(c, m);
        s = _mm256_mul_ps(s, m);
        const __m256 lo = _mm256_unpacklo_ps(c, s), hi = _mm256_unpackhi_ps(c, s);
        _mm256_storeu_ps(cs + 2 * i, _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps(cs + 2 * i + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
    for (; i < n; i++) {
        cs[2 * i]     = gk_cosf(theta[i]) * mscale;
        cs[2 * i + 1] = gk_sinf(theta[i]) * mscale;
    }
}
