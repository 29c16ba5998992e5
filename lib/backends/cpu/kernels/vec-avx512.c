/*
 * vec-avx512.c - AVX512F float kernels of the activations (SILU, GELU and
 * their GLUs): sixteen lanes, the tails (only) through masked loads and
 * stores (see GK_ACT_LOOP), 2^n by
 * VSCALEFPS. The contracts of the _avx2 forms in vec-x86.c (SOFT_MAX's
 * exponentials are in softmax-avx512.c). Called only when the AVX512 kernels may run
 * (ggml_cpu_isa()->use_vnni256: AVX512F/BW/VL present and not disabled by
 * GGML_CPU_DISABLE=avx512).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-math.h"

#include <immintrin.h>
#include <stdint.h>

static inline __mmask16 tail_mask(int64_t left) {
    return left >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << left) - 1u);
}

// n = round(x / ln2) and r = x - n ln2 (two-part ln2) for x in [-87.3, 88]
static inline __m512 reduce_ln2(__m512 x, __m512 * n) {
    *n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 r = _mm512_fnmadd_ps(*n, _mm512_set1_ps(0.693145752f), x);
    return _mm512_fnmadd_ps(*n, _mm512_set1_ps(1.42860677e-6f), r);
}

// e^x for the activations: clamped to [-87.3, 88], Taylor to r^7 (as
// exp_act256 in vec-x86.c; VSCALEFPS keeps small results exact)
static inline __m512 exp_act512(__m512 x) {
    x = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(88.0f)), _mm512_set1_ps(-87.3f));
    __m512 n;
    const __m512 r = reduce_ln2(x, &n);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

static inline __m512 silu512(__m512 v) {
    return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_act512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
}

// x / (1 + e^(a x + b x^3)): GELU (tanh form) and GELU_QUICK
static inline __m512 x_sigmoid_cubic(__m512 v, float a, float b) {
    const __m512 t = _mm512_mul_ps(v, _mm512_fmadd_ps(_mm512_mul_ps(v, v), _mm512_set1_ps(b), _mm512_set1_ps(a)));
    return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_act512(t)));
}

static inline __m512 gelu512(__m512 v) {
    return x_sigmoid_cubic(v, -2.0f * GK_SQRT_2_OVER_PI, -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A);
}

// The main loops load and store whole vectors; only the tail is masked. A
// masked load (even with all lanes set) that misses the cache is much slower
// on Zen 5 than a plain one (the hardware prefetchers do not seem to run
// ahead of it): SILU over 64 MiB from DRAM, one thread, took 12 ms with
// masked loads and 4.5 ms (the copy's time) with plain ones.
#define GK_ACT_LOOP(F)                                                        \
    int64_t i = 0;                                                            \
    for (; i + 16 <= n; i += 16) {                                            \
        _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(x + i)));                   \
    }                                                                         \
    if (i < n) {                                                              \
        const __mmask16 k = tail_mask(n - i);                                 \
        _mm512_mask_storeu_ps(y + i, k, F(_mm512_maskz_loadu_ps(k, x + i)));  \
    }

// The GLUs also ask for both inputs 2 KiB ahead (past a row's end: into the
// next row, or nowhere; a prefetch never faults): SWIGLU [4096,4096] from
// DRAM, one thread, 10.0-10.9 -> 8.2-8.8 ms, GEGLU 6.5-7.2 -> 5.4-5.9 (CPU
// time, a graph of the op, three rounds). The same for SILU measured
// slower (4.5-5.5 -> 5.2-5.7 ms): it keeps the hardware prefetchers alone.
static inline void glu_prefetch(const float * p) {
    _mm_prefetch((const char *) ((uintptr_t) p + 2048), _MM_HINT_T0);
}

#define GK_GLU_LOOP(F)                                                                              \
    int64_t i = 0;                                                                                  \
    for (; i + 16 <= n; i += 16) {                                                                  \
        glu_prefetch(a + i);                                                                        \
        glu_prefetch(b + i);                                                                        \
        _mm512_storeu_ps(z + i, _mm512_mul_ps(F(_mm512_loadu_ps(a + i)), _mm512_loadu_ps(b + i)));  \
    }                                                                                               \
    if (i < n) {                                                                                    \
        const __mmask16 k = tail_mask(n - i);                                                       \
        const __m512 v = F(_mm512_maskz_loadu_ps(k, a + i));                                        \
        _mm512_mask_storeu_ps(z + i, k, _mm512_mul_ps(v, _mm512_maskz_loadu_ps(k, b + i)));         \
    }

void gk_silu_avx512(int64_t n, const float * x, float * y) {
    GK_ACT_LOOP(silu512)
}

void gk_swiglu_avx512(int64_t n, const float * a, const float * b, float * z) {
    GK_GLU_LOOP(silu512)
}

void gk_gelu_avx512(int64_t n, const float * x, float * y) {
    GK_ACT_LOOP(gelu512)
}

void gk_geglu_avx512(int64_t n, const float * a, const float * b, float * z) {
    GK_GLU_LOOP(gelu512)
}
