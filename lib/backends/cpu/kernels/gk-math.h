/*
 * gk-math.h - freestanding single-precision math for the compute kernels:
 * no libc, no tables. Errors below are the maxima measured by
 * tests/lib/test-cpu-kernels.c against double-precision libm over the
 * stated ranges (ulp = unit in the last place of the float result).
 *
 *   gk_expf      rel. error <= 2e-7 for x in [-87, 88] (measured 7.6e-8); 0 below
 *                -103.9, +inf above 88.72, subnormal results within one step.
 *   gk_expm1f    rel. error <= 3e-7 on [-1, 1] (measured 1.8e-7), then as gk_expf.
 *   gk_tanhf     rel. error <= 4e-7, abs. <= 2e-7 (measured 1.7e-7 / 8.2e-8).
 *   gk_erff      abs. error <= 4e-7 (measured 3.3e-7: A&S 7.1.26 above |x| = 0.5,
 *                Taylor series below).
 *   gk_logf      rel. error <= 2e-7 for x > 0 (measured 1.4e-7); -inf at 0, NaN < 0.
 *   gk_sinf/cosf abs. error <= 2e-7 for |x| <= 10 (measured 9.1e-8), <= 8e-7
 *                for |x| <= 1e4 (Cody-Waite reduction).
 *   gk_sqrtf     correctly rounded (hardware instruction where available).
 *   gelu, gelu_erf abs. <= 2e-6, silu abs. <= 1e-5 (x in [-80, 80]), sigmoid rel. <= 5e-7.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_MATH_H
#define GK_MATH_H

#include "gk-types.h"
#include "gk-fp16.h"

#define GK_INFINITY (__builtin_inff())
#define GK_NAN      (__builtin_nanf(""))

static inline float gk_fabsf(float x) { return gk_bits_f32(gk_f32_bits(x) & 0x7fffffffu); }
static inline float gk_maxf(float a, float b) { return a > b ? a : b; }
static inline float gk_minf(float a, float b) { return a < b ? a : b; }
static inline int   gk_isnan(float x) { return x != x; }

// Round to nearest integer (ties away from zero), meant for |x| < 2^30.
// NaN and values outside the int range give INT_MIN, what x86's conversion
// gives, instead of undefined behaviour: data and op parameters reach here
// unchecked (quantizing activations, sin/cos of ROPE angles, exp).
static inline int gk_iroundf(float x) {
    const float r = x + (x >= 0.0f ? 0.5f : -0.5f);
    return r > -2147483648.0f && r < 2147483648.0f ? (int) r : -2147483647 - 1;
}

static inline float gk_sqrtf(float x) {
#if defined(__x86_64__) && defined(__SSE__)
    float r;
    __asm__("sqrtss %1, %0" : "=x"(r) : "x"(x));
    return r;
#elif defined(__aarch64__)
    float r;
    __asm__("fsqrt %s0, %s1" : "=w"(r) : "w"(x));
    return r;
#else
    if (!(x > 0.0f)) {
        return x == 0.0f ? x : GK_NAN;
    }
    if (x == GK_INFINITY) {
        return x;
    }
    // initial guess from the exponent, then Newton steps
    float r = gk_bits_f32((gk_f32_bits(x) >> 1) + 0x1fc00000u);
    for (int i = 0; i < 5; i++) {
        r = 0.5f * (r + x / r);
    }
    return r;
#endif
}

// 2^n * p for any integer n (p finite, normalised near 1).
static inline float gk_ldexpf(float p, int n) {
    while (n > 127) {
        p *= 0x1p127f;
        n -= 127;
        if (p == GK_INFINITY) {
            return p;
        }
    }
    while (n < -126) {
        p *= 0x1p-126f;
        n += 126;
        if (p == 0.0f) {
            return p;
        }
    }
    return p * gk_bits_f32((uint32_t) (n + 127) << 23);
}

// e^r - 1 for |r| <= ln2/2 (about 0.347): Taylor to r^8.
static inline float gk_expm1_small(float r) {
    float p = 1.0f / 40320.0f;
    p = p * r + 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    return r + r * r * p;
}

static inline float gk_expf(float x) {
    if (gk_isnan(x)) {
        return x;
    }
    if (x > 88.7228394f) {
        return GK_INFINITY;
    }
    if (x < -103.972084f) {
        return 0.0f;
    }
    // x = n ln2 + r with |r| <= ln2/2; ln2 split in two for an exact n*ln2_hi
    const float n = (float) gk_iroundf(x * 1.44269504f);
    float r = x - n * 0.693145752f;
    r = r - n * 1.42860677e-6f;
    return gk_ldexpf(1.0f + gk_expm1_small(r), (int) n);
}

static inline float gk_expm1f(float x) {
    if (gk_fabsf(x) <= 0.34657359f) {
        return gk_expm1_small(x);
    }
    if (gk_fabsf(x) <= 1.0f) {
        // e^x - 1 = (e^(x/2) - 1)(e^(x/2) + 1)
        float h = gk_expm1_small(0.5f * x);
        return h * (h + 2.0f);
    }
    return gk_expf(x) - 1.0f;
}

static inline float gk_tanhf(float x) {
    const float a = gk_fabsf(x);
    float t;
    if (a > 9.1f) {
        t = 1.0f; // 1 - tanh(9.1) < 2^-25
    } else if (a >= 0.5f) {
        t = 1.0f - 2.0f / (gk_expf(2.0f * a) + 1.0f);
    } else {
        const float em = gk_expm1f(2.0f * a);
        t = em / (em + 2.0f);
    }
    return x < 0.0f ? -t : (gk_isnan(x) ? x : t);
}

static inline float gk_erff(float x) {
    const float a = gk_fabsf(x);
    float e;
    if (a < 0.5f) {
        // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
        const float z = a * a;
        float p = -1.0f / 1320.0f;
        p = p * z + 1.0f / 216.0f;
        p = p * z - 1.0f / 42.0f;
        p = p * z + 1.0f / 10.0f;
        p = p * z - 1.0f / 3.0f;
        p = p * z + 1.0f;
        e = 1.12837917f * a * p;
    } else if (a > 4.0f) {
        e = 1.0f;
    } else {
        // Abramowitz & Stegun 7.1.26
        const float t = 1.0f / (1.0f + 0.3275911f * a);
        float p = 1.061405429f;
        p = p * t - 1.453152027f;
        p = p * t + 1.421413741f;
        p = p * t - 0.284496736f;
        p = p * t + 0.254829592f;
        e = 1.0f - p * t * gk_expf(-a * a);
    }
    return x < 0.0f ? -e : (gk_isnan(x) ? x : e);
}

static inline float gk_logf(float x) {
    if (gk_isnan(x) || x < 0.0f) {
        return GK_NAN;
    }
    if (x == 0.0f) {
        return -GK_INFINITY;
    }
    if (x == GK_INFINITY) {
        return x;
    }
    int e = 0;
    if (x < 0x1p-126f) { // subnormal: scale up first
        x *= 0x1p32f;
        e = -32;
    }
    uint32_t u = gk_f32_bits(x);
    e += (int) (u >> 23) - 127;
    float m = gk_bits_f32((u & 0x7fffff) | 0x3f800000); // [1, 2)
    if (m > 1.41421356f) {
        m *= 0.5f;
        e++;
    }
    // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716
    const float s = (m - 1.0f) / (m + 1.0f);
    const float z = s * s;
    float p = 1.0f / 11.0f;
    p = p * z + 1.0f / 9.0f;
    p = p * z + 1.0f / 7.0f;
    p = p * z + 1.0f / 5.0f;
    p = p * z + 1.0f / 3.0f;
    const float lm = 2.0f * s + 2.0f * s * z * p;
    return (float) e * 0.693145752f + ((float) e * 1.42860677e-6f + lm);
}

// sin and cos on [-pi/4, pi/4]
static inline float gk_sin_kernel(float r) {
    const float z = r * r;
    float p = 2.75573192e-6f;
    p = p * z - 1.98412698e-4f;
    p = p * z + 8.33333333e-3f;
    p = p * z - 1.66666667e-1f;
    return r + r * z * p;
}

static inline float gk_cos_kernel(float r) {
    const float z = r * r;
    float p = -2.75573192e-7f;
    p = p * z + 2.48015873e-5f;
    p = p * z - 1.38888889e-3f;
    p = p * z + 4.16666667e-2f;
    return 1.0f - 0.5f * z + z * z * p;
}

// x = q pi/2 + r, |r| <= pi/4 (Cody-Waite, three parts of pi/2)
static inline float gk_reduce_pio2(float x, int * q) {
    const float k = (float) gk_iroundf(x * 0.636619772f);
    *q = (int) k;
    float r = x - k * 1.5703125f;
    r = r - k * 4.83751297e-4f;
    r = r - k * 7.54978995e-8f;
    return r;
}

static inline float gk_sinf(float x) {
    if (gk_isnan(x) || gk_fabsf(x) == GK_INFINITY) {
        return GK_NAN;
    }
    int q;
    const float r = gk_reduce_pio2(x, &q);
    switch (q & 3) {
        case 0:  return  gk_sin_kernel(r);
        case 1:  return  gk_cos_kernel(r);
        case 2:  return -gk_sin_kernel(r);
        default: return -gk_cos_kernel(r);
    }
}

static inline float gk_cosf(float x) {
    if (gk_isnan(x) || gk_fabsf(x) == GK_INFINITY) {
        return GK_NAN;
    }
    int q;
    const float r = gk_reduce_pio2(x, &q);
    switch (q & 3) {
        case 0:  return  gk_cos_kernel(r);
        case 1:  return -gk_sin_kernel(r);
        case 2:  return -gk_cos_kernel(r);
        default: return  gk_sin_kernel(r);
    }
}

// x^y for x > 0 (ALiBi slopes, YaRN): exp(y log x)
static inline float gk_powf(float x, float y) {
    if (y == 0.0f) {
        return 1.0f;
    }
    if (x == 0.0f) {
        return y > 0.0f ? 0.0f : GK_INFINITY;
    }
    return gk_expf(y * gk_logf(x));
}

// --- activation functions ---------------------------------------------------

static inline float gk_sigmoidf(float x) { return 1.0f / (1.0f + gk_expf(-x)); }
static inline float gk_siluf(float x)    { return x / (1.0f + gk_expf(-x)); }

#define GK_SQRT_2_OVER_PI 0.79788456080286535588f
#define GK_GELU_COEF_A    0.044715f
#define GK_SQRT_2_INV     0.70710678118654752440f
#define GK_GELU_QUICK_A   (-1.702f)

// GELU, tanh approximation (as upstream's GGML_OP_UNARY GELU)
static inline float gk_geluf(float x) {
    if (x > 10.0f) {
        return x;
    }
    if (x < -10.0f) {
        return 0.0f;
    }
    return 0.5f * x * (1.0f + gk_tanhf(GK_SQRT_2_OVER_PI * x * (1.0f + GK_GELU_COEF_A * x * x)));
}

// GELU with erf (exact form)
static inline float gk_gelu_erff(float x) {
    return 0.5f * x * (1.0f + gk_erff(x * GK_SQRT_2_INV));
}

static inline float gk_gelu_quickf(float x) {
    return x * (1.0f / (1.0f + gk_expf(GK_GELU_QUICK_A * x)));
}

#endif // GK_MATH_H
