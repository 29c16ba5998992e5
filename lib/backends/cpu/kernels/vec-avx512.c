/*
 * vec-avx512.c - AVX512F float kernels of the activations (SILU, GELU and
 * their GLUs): sixteen lanes, the tails (only) through masked loads and
 * stores (see GK_ACT_LOOP), e^x from a 16-entry table (exp_act512). The
 * contracts of the _avx2 forms in vec-x86.c (SOFT_MAX's exponentials are in
 * softmax-avx512.c). Called only when the AVX512 kernels may run
 * (ggml_cpu_isa()->use_vnni256: AVX512F/BW/VL present and not disabled by
 * GGML_CPU_DISABLE=avx512).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-math.h"
#include "gk-avx512.h"
#include "gk-exp-avx512.h"

#include <immintrin.h>
#include <stdint.h>

static inline __mmask16 tail_mask(int64_t left) {
    return left >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << left) - 1u);
}

// e^(sx) for the activations, s = -1 (neg) or 1, where only 1 / (1 + e^(sx))
// is taken: sx clamped to [-86.5, 88]; k = round(16 sx / ln2) from a
// shifted FMA (k in kf's low bits), r = sx - k ln2/16 (one constant:
// |k| <= 2031, so its rounding moves r by < 2.5e-7), |r| <= ln2/32;
// e^(sx) = 2^(k >> 4) 2^((k & 15)/16) e^r: the entry of gk_exp2_16th (tab)
// by a permute on k's low four bits, e^r ~ 1 + r (c1 + c2 r) (minimax on
// that interval, rel. error 4.3e-7), 2^(k >> 4) added into the exponent
// (k >= -1997: k >> 4 >= -125, so the result stays normal). Rel.
// error <= 8.2e-7 in all (SILU checked at every float x in [-88, 88]
// against libm in double; test-cpu-kernels sweeps [-100, 100]).
// It replaced a Taylor polynomial to r^7 with VRNDSCALEPS and VSCALEFPS
// (12 vector ops per 16 lanes against 14, two of them at half the FMA
// rate): SILU in L1 5.5 -> 9.9 G
// elements/s on one Zen 5 thread, where the FMA pipes, not the VDIVPS,
// bound it.
static inline __m512 exp_act512(__m512 v, const bool neg, __m512 tab) {
    const __m512 x = neg ? _mm512_max_ps(_mm512_min_ps(v, _mm512_set1_ps(86.5f)), _mm512_set1_ps(-88.0f))
                         : _mm512_max_ps(_mm512_min_ps(v, _mm512_set1_ps(88.0f)), _mm512_set1_ps(-86.5f));
    const __m512 magic = _mm512_set1_ps(12582912.0f); // 1.5 * 2^23: k rounded by the add
    const __m512 kf = _mm512_fmadd_ps(x, _mm512_set1_ps(neg ? -23.0831206542f : 23.0831206542f), magic);
    const __m512 k = _mm512_sub_ps(kf, magic);
    const __m512 t = _mm512_permutexvar_ps(_mm512_castps_si512(kf), tab);
    const __m512 c1 = _mm512_set1_ps(1.000058647f), c2 = _mm512_set1_ps(0.4999853379f);
    __m512 p;
    if (neg) { // q = x + k ln2/16 = -r: t (1 - q (c1 - c2 q))
        const __m512 q = _mm512_fmadd_ps(k, _mm512_set1_ps(0.0433216989f), x);
        p = _mm512_fnmadd_ps(_mm512_mul_ps(t, q), _mm512_fnmadd_ps(c2, q, c1), t);
    } else {
        const __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.0433216989f), x);
        p = _mm512_fmadd_ps(_mm512_mul_ps(t, r), _mm512_fmadd_ps(c2, r, c1), t);
    }
    // (k >> 4) << 23: kf's low mantissa bits hold k (the magic's bits shift
    // out), its bits 4-12 land on the exponent
    const __m512i e = _mm512_and_si512(_mm512_slli_epi32(_mm512_castps_si512(kf), 19),
                                       _mm512_set1_epi32((int) 0xff800000u));
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), e));
}

// x / (1 + e^-x): -inf gives -inf, +inf +inf, NaN NaN (as the clamps let
// x through only in the division)
static inline __m512 silu512(__m512 v, __m512 tab) {
    return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_act512(v, true, tab)));
}

// x / (1 + e^(a x + b x^3)): GELU (tanh form) and GELU_QUICK
static inline __m512 x_sigmoid_cubic(__m512 v, float a, float b, __m512 tab) {
    const __m512 t = _mm512_mul_ps(v, _mm512_fmadd_ps(_mm512_mul_ps(v, v), _mm512_set1_ps(b), _mm512_set1_ps(a)));
    return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_act512(t, false, tab)));
}

static inline __m512 gelu512(__m512 v, __m512 tab) {
    return x_sigmoid_cubic(v, -2.0f * GK_SQRT_2_OVER_PI, -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A, tab);
}

// The main loops load and store whole vectors; only the tail is masked. A
// masked load (even with all lanes set) that misses the cache is much slower
// on Zen 5 than a plain one (the hardware prefetchers do not seem to run
// ahead of it): SILU over 64 MiB from DRAM, one thread, took 12 ms with
// masked loads and 4.5 ms (the copy's time) with plain ones.
#define GK_ACT_LOOP(F)                                                        \
    const __m512 tab = _mm512_load_ps(gk_exp2_16th);                          \
    int64_t i = 0;                                                            \
    for (; i + 16 <= n; i += 16) {                                            \
        _mm512_storeu_ps(y + i, F(gk_loadu16_avx512(x + i), tab));            \
    }                                                                         \
    if (i < n) {                                                              \
        const __mmask16 k = tail_mask(n - i);                                 \
        _mm512_mask_storeu_ps(y + i, k, F(_mm512_maskz_loadu_ps(k, x + i), tab)); \
    }

// The GLUs also ask for both inputs 2 KiB ahead (past a row's end: into the
// next row, or nowhere; a prefetch never faults): SWIGLU [4096,4096] from
// DRAM, one thread, 10.0-10.9 -> 8.2-8.8 ms, GEGLU 6.5-7.2 -> 5.4-5.9 (CPU
// time, a graph of the op, three rounds). The same for SILU measured
// slower (4.5-5.5 -> 5.2-5.7 ms): it keeps the hardware prefetchers alone.
static inline __attribute__((always_inline)) void glu_prefetch(const float * p) {
    _mm_prefetch((const char *) ((uintptr_t) p + 2048), _MM_HINT_T0);
}

// With the cheaper exponential (exp_act512) the GLUs from DRAM measured
// 5-8% slower than before (in-process, interleaved with the old kernels:
// the faster loop seems to reach its output lines before their reads for
// ownership are under way). PREFETCHW of the output 1 KiB ahead asks for
// the lines early and won that back (SWIGLU, minima of 21 rounds over 64
// MiB: better than the new kernel without it in 4 runs of 4, than the old
// in 2; GEGLU the best of the three in 3 of 4). 512 B and 2 KiB measured
// no better; a T1 prefetch of the inputs instead of T0, slower. The
// functions carry the prfchw target: without it the hint is PREFETCHT0.
#define GLU_PREFETCHW(p) __builtin_prefetch((const char *) ((uintptr_t) (p) + 1024), 1, 3)

#define GK_GLU_LOOP(F)                                                                              \
    const __m512 tab = _mm512_load_ps(gk_exp2_16th);                                                \
    int64_t i = 0;                                                                                  \
    for (; i + 16 <= n; i += 16) {                                                                  \
        glu_prefetch(a + i);                                                                        \
        glu_prefetch(b + i);                                                                        \
        GLU_PREFETCHW(z + i);                                                                       \
        _mm512_storeu_ps(z + i, _mm512_mul_ps(F(gk_loadu16_avx512(a + i), tab), gk_loadu16_avx512(b + i))); \
    }                                                                                               \
    if (i < n) {                                                                                    \
        const __mmask16 k = tail_mask(n - i);                                                       \
        const __m512 v = F(_mm512_maskz_loadu_ps(k, a + i), tab);                                   \
        _mm512_mask_storeu_ps(z + i, k, _mm512_mul_ps(v, _mm512_maskz_loadu_ps(k, b + i)));         \
    }

void gk_silu_avx512(int64_t n, const float * x, float * y) {
    GK_ACT_LOOP(silu512)
}

__attribute__((target("prfchw"))) void gk_swiglu_avx512(int64_t n, const float * a, const float * b, float * z) {
    GK_GLU_LOOP(silu512)
}

void gk_gelu_avx512(int64_t n, const float * x, float * y) {
    GK_ACT_LOOP(gelu512)
}

__attribute__((target("prfchw"))) void gk_geglu_avx512(int64_t n, const float * a, const float * b, float * z) {
    GK_GLU_LOOP(gelu512)
}

// NORM's two-row step and the centred sum of squares with sixteen lanes
// (op_norm, AVX512): the write of gk_centre_scale_nt_avx2, the sums of
// gk_sum_f64_avx2 and gk_sumsq_dev_avx2 lane for lane (the same bits). The
// sum in double: gk_sum_f64_avx2's accumulators a0..a3 of four doubles are
// the halves of two vectors of eight (a0 | a1, a2 | a3), eight floats
// widened by one VCVTPS2PD (AVX2: an extract and two conversions); the
// output by 256-bit non-temporal stores (z 32-byte aligned), the next row
// asked for 4 KiB ahead (as GK_PIPE_PF). Loads by 256-bit halves.
static inline __attribute__((always_inline)) void sum16_f64_512(const float * p, __m512d * a01, __m512d * a23) {
    *a01 = _mm512_add_pd(*a01, _mm512_cvtps_pd(_mm256_loadu_ps(p)));
    *a23 = _mm512_add_pd(*a23, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)));
}

static inline __attribute__((always_inline)) double sum_f64_finish(__m512d a01, __m512d a23) {
    const __m256d a0 = _mm512_castpd512_pd256(a01), a1 = _mm512_extractf64x4_pd(a01, 1);
    const __m256d a2 = _mm512_castpd512_pd256(a23), a3 = _mm512_extractf64x4_pd(a23, 1);
    double out[4];
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
    return (out[0] + out[1]) + (out[2] + out[3]);
}

double gk_sum_f64_avx512(int64_t n, const float * x) {
    __m512d a01 = _mm512_setzero_pd(), a23 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        sum16_f64_512(x + i, &a01, &a23);
    }
    double r = sum_f64_finish(a01, a23);
    for (; i < n; i++) {
        r += x[i];
    }
    return r;
}

double gk_centre_scale_nt_sum_avx512(int64_t n, const float * x, float mean, float s, float * z, const float * xn) {
    const __m256 m = _mm256_set1_ps(mean), vs = _mm256_set1_ps(s);
    __m512d a01 = _mm512_setzero_pd(), a23 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        _mm_prefetch((const char *) ((uintptr_t) (xn + i) + 4096), _MM_HINT_T0);
        _mm_prefetch((const char *) ((uintptr_t) (xn + i) + 4096 + 64), _MM_HINT_T0);
        sum16_f64_512(xn + i, &a01, &a23);
        sum16_f64_512(xn + i + 16, &a01, &a23);
        for (int k = 0; k < 32; k += 8) {
            _mm256_stream_ps(z + i + k, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + k), m), vs));
        }
    }
    int64_t j = i;
    for (; j + 16 <= n; j += 16) {
        sum16_f64_512(xn + j, &a01, &a23);
    }
    double r = sum_f64_finish(a01, a23);
    for (; j < n; j++) {
        r += xn[j];
    }
    // the rest of the row (z + i 32-byte aligned), then SFENCE
    gk_centre_scale_nt_avx2(n - i, x + i, mean, s, z + i);
    return r;
}

float gk_sumsq_dev_avx512(int64_t n, const float * x, float mean) {
    const __m512 m = _mm512_set1_ps(mean);
    __m512 a01 = _mm512_setzero_ps(), a23 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 d01 = _mm512_sub_ps(gk_loadu16_avx512(x + i), m);
        const __m512 d23 = _mm512_sub_ps(gk_loadu16_avx512(x + i + 16), m);
        a01 = _mm512_fmadd_ps(d01, d01, a01);
        a23 = _mm512_fmadd_ps(d23, d23, a23);
    }
    __m256 a0 = _mm512_castps512_ps256(a01);
    const __m256 a1 = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a01), 1));
    const __m256 a2 = _mm512_castps512_ps256(a23);
    const __m256 a3 = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a23), 1));
    const __m256 m8 = _mm512_castps512_ps256(m);
    for (; i + 8 <= n; i += 8) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), m8);
        a0 = _mm256_fmadd_ps(d, d, a0);
    }
    const __m256 t = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    float r = _mm_cvtss_f32(h);
    for (; i < n; i++) {
        const float d = x[i] - mean;
        r += d * d;
    }
    return r;
}
