/*
 * vec-neon.c - NEON float vector kernels (AArch64: NEON and the half
 * precision conversions are part of the base architecture).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-fp16.h"
#include "gk-math.h"

#include <arm_neon.h>

static inline float32x4_t load_f16(const uint16_t * p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}

static inline float32x4_t load_bf16(const uint16_t * p) {
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}

#define GK_DOT_NEON(LOADX, LOADY, SX, SY)                                  \
    float32x4_t a0 = vdupq_n_f32(0), a1 = vdupq_n_f32(0);                  \
    float32x4_t a2 = vdupq_n_f32(0), a3 = vdupq_n_f32(0);                  \
    int64_t i = 0;                                                         \
    for (; i + 16 <= n; i += 16) {                                         \
        a0 = vfmaq_f32(a0, LOADX(x + i +  0), LOADY(y + i +  0));          \
        a1 = vfmaq_f32(a1, LOADX(x + i +  4), LOADY(y + i +  4));          \
        a2 = vfmaq_f32(a2, LOADX(x + i +  8), LOADY(y + i +  8));          \
        a3 = vfmaq_f32(a3, LOADX(x + i + 12), LOADY(y + i + 12));          \
    }                                                                      \
    for (; i + 4 <= n; i += 4) {                                           \
        a0 = vfmaq_f32(a0, LOADX(x + i), LOADY(y + i));                    \
    }                                                                      \
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3))); \
    for (; i < n; i++) {                                                   \
        s += SX(x[i]) * SY(y[i]);                                          \
    }                                                                      \
    return s;

#define ID(v) (v)

float gk_dot_f32_neon(int64_t n, const float * x, const float * y) {
    GK_DOT_NEON(vld1q_f32, vld1q_f32, ID, ID)
}

float gk_dot_f16_f32_neon(int64_t n, const uint16_t * x, const float * y) {
    GK_DOT_NEON(load_f16, vld1q_f32, gk_fp16_to_fp32, ID)
}

float gk_dot_bf16_f32_neon(int64_t n, const uint16_t * x, const float * y) {
    GK_DOT_NEON(load_bf16, vld1q_f32, gk_bf16_to_fp32, ID)
}

float gk_dot_f16_neon(int64_t n, const uint16_t * x, const uint16_t * y) {
    GK_DOT_NEON(load_f16, load_f16, gk_fp16_to_fp32, gk_fp16_to_fp32)
}

float gk_dot_bf16_neon(int64_t n, const uint16_t * x, const uint16_t * y) {
    GK_DOT_NEON(load_bf16, load_bf16, gk_bf16_to_fp32, gk_bf16_to_fp32)
}

// MR x NR block of C with 4-lane accumulators along k (4 x 4 = 16 of the 32
// vector registers).
static inline __attribute__((always_inline)) void
tile(const int MR, const int NR, int k, const float * a, int64_t lda,
     const float * b, int64_t ldb, float * c, int64_t ldc) {
    float32x4_t acc[4][4];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            acc[i][j] = vdupq_n_f32(0);
        }
    }
    int l = 0;
    for (; l + 4 <= k; l += 4) {
        float32x4_t bv[4];
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            bv[j] = vld1q_f32(b + j * ldb + l);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float32x4_t av = vld1q_f32(a + i * lda + l);
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++) {
                acc[i][j] = vfmaq_f32(acc[i][j], av, bv[j]);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            float s = vaddvq_f32(acc[i][j]);
            for (int t = l; t < k; t++) {
                s += a[i * lda + t] * b[j * ldb + t];
            }
            c[i * ldc + j] += s;
        }
    }
}

void gk_gemm_nt_f32_neon(int m, int n, int k, const float * a, int64_t lda,
                         const float * b, int64_t ldb, float * c, int64_t ldc) {
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            tile(4, 4, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
        }
        for (; i < m; i++) {
            tile(1, 4, k, a + i * lda, lda, b + j * ldb, ldb, c + i * ldc + j, ldc);
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
// once per four rows.
#define GK_DOT4ROWS_NEON(LOADX, SX)                                               \
    float32x4_t a[4] = { vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0) }; \
    float32x4_t b[4] = { vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0) }; \
    int64_t i = 0;                                                                \
    for (; i + 8 <= n; i += 8) {                                                  \
        const float32x4_t y0 = vld1q_f32(y + i), y1 = vld1q_f32(y + i + 4);       \
        _Pragma("GCC unroll 4")                                                   \
        for (int r = 0; r < 4; r++) {                                             \
            a[r] = vfmaq_f32(a[r], LOADX(x + r * ldx + i), y0);                   \
            b[r] = vfmaq_f32(b[r], LOADX(x + r * ldx + i + 4), y1);               \
        }                                                                         \
    }                                                                             \
    _Pragma("GCC unroll 4")                                                       \
    for (int r = 0; r < 4; r++) {                                                 \
        s[r] = vaddvq_f32(vaddq_f32(a[r], b[r]));                                 \
        for (int64_t t = i; t < n; t++) {                                         \
            s[r] += SX(x[r * ldx + t]) * y[t];                                    \
        }                                                                         \
    }

void gk_dot4_f32_neon(int64_t n, const float * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_NEON(vld1q_f32, ID)
}

void gk_dot4_f16_f32_neon(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_NEON(load_f16, gk_fp16_to_fp32)
}

void gk_dot4_bf16_f32_neon(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s) {
    GK_DOT4ROWS_NEON(load_bf16, gk_bf16_to_fp32)
}

// e^x for 4 lanes, the algorithm of exp256 in vec-x86.c (and of gk_expf):
// x = n ln2 + r with n rounded to nearest, e^r by its Taylor polynomial to
// r^8 (fused multiply-adds), 2^n into the exponent. Lanes below -87.3 give
// 0 (also -inf); rel. error <= 2e-7 elsewhere for x <= 88 (the same bound
// as the AVX2 form: the operations are the same, lane for lane).
static inline float32x4_t exp128(float32x4_t x) {
    const uint32x4_t keep = vcgeq_f32(x, vdupq_n_f32(-87.3f));
    x = vmaxq_f32(vminq_f32(x, vdupq_n_f32(88.0f)), vdupq_n_f32(-87.3f));
    const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504f)));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693145752f));
    r = vfmsq_f32(r, n, vdupq_n_f32(1.42860677e-6f));
    float32x4_t p = vdupq_n_f32(1.0f / 40320.0f);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 5040.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 720.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 120.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 24.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 6.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(0.5f), p, r);
    p = vfmaq_f32(r, vmulq_f32(r, r), p);
    p = vaddq_f32(p, vdupq_n_f32(1.0f));
    const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    const float32x4_t v = vmulq_f32(p, vreinterpretq_f32_s32(e));
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), keep));
}

float gk_exp_sub_sum_neon(int64_t n, float * z, float max) {
    const float32x4_t m = vdupq_n_f32(max);
    float32x4_t s0 = vdupq_n_f32(0), s1 = vdupq_n_f32(0);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t e0 = exp128(vsubq_f32(vld1q_f32(z + i), m));
        const float32x4_t e1 = exp128(vsubq_f32(vld1q_f32(z + i + 4), m));
        vst1q_f32(z + i, e0);
        vst1q_f32(z + i + 4, e1);
        s0 = vaddq_f32(s0, e0);
        s1 = vaddq_f32(s1, e1);
    }
    float s = vaddvq_f32(vaddq_f32(s0, s1));
    for (; i < n; i++) {
        z[i] = gk_expf(z[i] - max);
        s += z[i];
    }
    return s;
}

void gk_silu_neon(int64_t n, const float * x, float * y) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t v = vld1q_f32(x + i);
        const float32x4_t e = exp128(vnegq_f32(v));
        vst1q_f32(y + i, vdivq_f32(v, vaddq_f32(vdupq_n_f32(1.0f), e)));
    }
    for (; i < n; i++) {
        y[i] = gk_siluf(x[i]);
    }
}

void gk_scale_bias_neon(int64_t n, const float * x, float s, float b, float * y) {
    const float32x4_t vs = vdupq_n_f32(s), vb = vdupq_n_f32(b);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        vst1q_f32(y + i, vfmaq_f32(vb, vld1q_f32(x + i), vs));
        vst1q_f32(y + i + 4, vfmaq_f32(vb, vld1q_f32(x + i + 4), vs));
    }
    for (; i < n; i++) {
        y[i] = x[i] * s + b;
    }
}

void gk_axpy_neon(int64_t n, float a, const float * x, float * y) {
    const float32x4_t va = vdupq_n_f32(a);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vst1q_f32(y + i, vfmaq_f32(vld1q_f32(y + i), va, vld1q_f32(x + i)));
    }
    for (; i < n; i++) {
        y[i] += a * x[i];
    }
}

// the largest element (-inf for n == 0; NaNs are skipped: FMAXNM)
float gk_max_neon(int64_t n, const float * x) {
    float32x4_t m0 = vdupq_n_f32(-GK_INFINITY), m1 = m0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        m0 = vmaxnmq_f32(m0, vld1q_f32(x + i));
        m1 = vmaxnmq_f32(m1, vld1q_f32(x + i + 4));
    }
    float m = vmaxnmvq_f32(vmaxnmq_f32(m0, m1));
    for (; i < n; i++) {
        m = x[i] > m ? x[i] : m;
    }
    return m;
}

// RoPE rotations (as gk_rope_norm_avx2 / gk_rope_neox_avx2): the
// de-interleaving loads split x and cs into their pair halves.
void gk_rope_norm_neon(int64_t n_dims, const float * x, float * z, const float * cs) {
    int64_t i = 0;
    for (; i + 8 <= n_dims; i += 8) {
        const float32x4x2_t v = vld2q_f32(x + i);  // a = x[2k], b = x[2k+1]
        const float32x4x2_t t = vld2q_f32(cs + i); // cos, sin
        float32x4x2_t o;
        o.val[0] = vfmsq_f32(vmulq_f32(v.val[0], t.val[0]), v.val[1], t.val[1]);
        o.val[1] = vfmaq_f32(vmulq_f32(v.val[0], t.val[1]), v.val[1], t.val[0]);
        vst2q_f32(z + i, o);
    }
    for (; i < n_dims; i += 2) {
        const float a = x[i], b = x[i + 1];
        z[i]     = a * cs[i] - b * cs[i + 1];
        z[i + 1] = a * cs[i + 1] + b * cs[i];
    }
}

void gk_rope_neox_neon(int64_t n_dims, const float * x, float * z, const float * cs) {
    const int64_t half = n_dims / 2;
    int64_t k = 0;
    for (; k + 4 <= half; k += 4) {
        const float32x4x2_t t = vld2q_f32(cs + 2 * k);
        const float32x4_t a = vld1q_f32(x + k);
        const float32x4_t b = vld1q_f32(x + k + half);
        vst1q_f32(z + k, vfmsq_f32(vmulq_f32(a, t.val[0]), b, t.val[1]));
        vst1q_f32(z + k + half, vfmaq_f32(vmulq_f32(a, t.val[1]), b, t.val[0]));
    }
    for (; k < half; k++) {
        const float a = x[k], b = x[k + half];
        z[k]        = a * cs[2 * k] - b * cs[2 * k + 1];
        z[k + half] = a * cs[2 * k + 1] + b * cs[2 * k];
    }
}

// x / (1 + e^(a x + b x^3)): GELU (tanh form) and GELU_QUICK, as vec-x86.c
static inline float32x4_t x_sigmoid_cubic(float32x4_t v, float a, float b) {
    const float32x4_t t = vmulq_f32(v, vfmaq_f32(vdupq_n_f32(a), vmulq_f32(v, v), vdupq_n_f32(b)));
    return vdivq_f32(v, vaddq_f32(vdupq_n_f32(1.0f), exp128(t)));
}

void gk_gelu_neon(int64_t n, const float * x, float * y) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vst1q_f32(y + i, x_sigmoid_cubic(vld1q_f32(x + i), -2.0f * GK_SQRT_2_OVER_PI,
                                         -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A));
    }
    for (; i < n; i++) {
        y[i] = gk_geluf(x[i]);
    }
}

void gk_gelu_quick_neon(int64_t n, const float * x, float * y) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vst1q_f32(y + i, x_sigmoid_cubic(vld1q_f32(x + i), GK_GELU_QUICK_A, 0.0f));
    }
    for (; i < n; i++) {
        y[i] = gk_gelu_quickf(x[i]);
    }
}

void gk_mul_neon(int64_t n, const float * x, const float * y, float * z) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vst1q_f32(z + i, vmulq_f32(vld1q_f32(x + i), vld1q_f32(y + i)));
    }
    for (; i < n; i++) {
        z[i] = x[i] * y[i];
    }
}

// z = x op y, 16 values a step (z may be x or y: every load of a step comes
// before its stores)
#define GK_BINARY_NEON(VOP, SOP)                                                  \
    for (; i + 16 <= n; i += 16) {                                                \
        const float32x4_t r0 = VOP(vld1q_f32(x + i), vld1q_f32(y + i));           \
        const float32x4_t r1 = VOP(vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));   \
        const float32x4_t r2 = VOP(vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));   \
        const float32x4_t r3 = VOP(vld1q_f32(x + i + 12), vld1q_f32(y + i + 12)); \
        vst1q_f32(z + i, r0);                                                     \
        vst1q_f32(z + i + 4, r1);                                                 \
        vst1q_f32(z + i + 8, r2);                                                 \
        vst1q_f32(z + i + 12, r3);                                                \
    }                                                                             \
    for (; i + 4 <= n; i += 4) {                                                  \
        vst1q_f32(z + i, VOP(vld1q_f32(x + i), vld1q_f32(y + i)));                \
    }                                                                             \
    for (; i < n; i++) {                                                          \
        z[i] = x[i] SOP y[i];                                                     \
    }

void gk_binary_neon(enum gk_binop op, int64_t n, const float * x, const float * y, float * z) {
    int64_t i = 0;
    switch (op) {
        case GK_ADD: GK_BINARY_NEON(vaddq_f32, +) break;
        case GK_SUB: GK_BINARY_NEON(vsubq_f32, -) break;
        case GK_MUL: GK_BINARY_NEON(vmulq_f32, *) break;
        case GK_DIV: GK_BINARY_NEON(vdivq_f32, /) break;
    }
}

double gk_sum_f64_neon(int64_t n, const float * x) {
    float64x2_t a0 = vdupq_n_f64(0), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
        a0 = vaddq_f64(a0, vcvt_f64_f32(vget_low_f32(v0)));
        a1 = vaddq_f64(a1, vcvt_high_f64_f32(v0));
        a2 = vaddq_f64(a2, vcvt_f64_f32(vget_low_f32(v1)));
        a3 = vaddq_f64(a3, vcvt_high_f64_f32(v1));
    }
    double s = vaddvq_f64(vaddq_f64(vaddq_f64(a0, a1), vaddq_f64(a2, a3)));
    for (; i < n; i++) {
        s += x[i];
    }
    return s;
}

float gk_sumsq_dev_neon(int64_t n, const float * x, float mean) {
    const float32x4_t m = vdupq_n_f32(mean);
    float32x4_t a0 = vdupq_n_f32(0), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const float32x4_t d0 = vsubq_f32(vld1q_f32(x + i), m);
        const float32x4_t d1 = vsubq_f32(vld1q_f32(x + i + 4), m);
        const float32x4_t d2 = vsubq_f32(vld1q_f32(x + i + 8), m);
        const float32x4_t d3 = vsubq_f32(vld1q_f32(x + i + 12), m);
        a0 = vfmaq_f32(a0, d0, d0);
        a1 = vfmaq_f32(a1, d1, d1);
        a2 = vfmaq_f32(a2, d2, d2);
        a3 = vfmaq_f32(a3, d3, d3);
    }
    for (; i + 4 <= n; i += 4) {
        const float32x4_t d = vsubq_f32(vld1q_f32(x + i), m);
        a0 = vfmaq_f32(a0, d, d);
    }
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)));
    for (; i < n; i++) {
        const float d = x[i] - mean;
        s += d * d;
    }
    return s;
}

void gk_centre_scale_neon(int64_t n, const float * x, float mean, float s, float * z) {
    const float32x4_t m = vdupq_n_f32(mean), vs = vdupq_n_f32(s);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t r0 = vmulq_f32(vsubq_f32(vld1q_f32(x + i), m), vs);
        const float32x4_t r1 = vmulq_f32(vsubq_f32(vld1q_f32(x + i + 4), m), vs);
        vst1q_f32(z + i, r0);
        vst1q_f32(z + i + 4, r1);
    }
    for (; i < n; i++) {
        z[i] = (x[i] - mean) * s;
    }
}

// z = silu(a) * b, z = gelu(a) * b in one pass (z may be a or b)
void gk_swiglu_neon(int64_t n, const float * a, const float * b, float * z) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t v = vld1q_f32(a + i);
        const float32x4_t s = vdivq_f32(v, vaddq_f32(vdupq_n_f32(1.0f), exp128(vnegq_f32(v))));
        vst1q_f32(z + i, vmulq_f32(s, vld1q_f32(b + i)));
    }
    for (; i < n; i++) {
        z[i] = gk_siluf(a[i]) * b[i];
    }
}

void gk_geglu_neon(int64_t n, const float * a, const float * b, float * z) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t g = x_sigmoid_cubic(vld1q_f32(a + i), -2.0f * GK_SQRT_2_OVER_PI,
                                              -2.0f * GK_SQRT_2_OVER_PI * GK_GELU_COEF_A);
        vst1q_f32(z + i, vmulq_f32(g, vld1q_f32(b + i)));
    }
    for (; i < n; i++) {
        z[i] = gk_geluf(a[i]) * b[i];
    }
}

// z = x * s + slope * m (m may be NULL), returns max(z): as the AVX2 form
float gk_scale_mask_max_neon(int64_t n, const float * x, float s, const float * m, float slope, float * z) {
    const float32x4_t vs = vdupq_n_f32(s), zero = vdupq_n_f32(0.0f);
    float32x4_t m0 = vdupq_n_f32(-GK_INFINITY), m1 = m0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float32x4_t v0 = vfmaq_f32(zero, vld1q_f32(x + i), vs);
        float32x4_t v1 = vfmaq_f32(zero, vld1q_f32(x + i + 4), vs);
        if (m) {
            v0 = vfmaq_n_f32(v0, vld1q_f32(m + i), slope);
            v1 = vfmaq_n_f32(v1, vld1q_f32(m + i + 4), slope);
        }
        vst1q_f32(z + i, v0);
        vst1q_f32(z + i + 4, v1);
        m0 = vmaxq_f32(v0, m0);
        m1 = vmaxq_f32(v1, m1);
    }
    float out[4];
    vst1q_f32(out, vmaxq_f32(m0, m1));
    float mx = out[0];
    for (int k = 1; k < 4; k++) {
        mx = out[k] > mx ? out[k] : mx;
    }
    for (; i < n; i++) {
        float v = x[i] * s + 0.0f;
        if (m) {
            v = __builtin_fmaf(slope, m[i], v);
        }
        z[i] = v;
        mx = v > mx ? v : mx;
    }
    return mx;
}

// cos and sin of 4 angles by the algorithm of gk_cosf/gk_sinf, operation for
// operation (no fused multiply-adds): the same bits (as vec-x86.c)
static inline void sincos128(float32x4_t x, float32x4_t * c, float32x4_t * s) {
    const float32x4_t t = vmulq_f32(x, vdupq_n_f32(0.636619772f));
    const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(t), vdupq_n_u32(0x80000000u));
    const float32x4_t half = vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(vdupq_n_f32(0.5f)), sign));
    const int32x4_t qi = vcvtq_s32_f32(vaddq_f32(t, half));
    const float32x4_t k = vcvtq_f32_s32(qi);
    float32x4_t r = vsubq_f32(x, vmulq_f32(k, vdupq_n_f32(1.5703125f)));
    r = vsubq_f32(r, vmulq_f32(k, vdupq_n_f32(4.83751297e-4f)));
    r = vsubq_f32(r, vmulq_f32(k, vdupq_n_f32(7.54978995e-8f)));
    const float32x4_t z = vmulq_f32(r, r);
    float32x4_t ps = vdupq_n_f32(2.75573192e-6f);
    ps = vsubq_f32(vmulq_f32(ps, z), vdupq_n_f32(1.98412698e-4f));
    ps = vaddq_f32(vmulq_f32(ps, z), vdupq_n_f32(8.33333333e-3f));
    ps = vsubq_f32(vmulq_f32(ps, z), vdupq_n_f32(1.66666667e-1f));
    const float32x4_t sk = vaddq_f32(r, vmulq_f32(vmulq_f32(r, z), ps));
    float32x4_t pc = vdupq_n_f32(-2.75573192e-7f);
    pc = vaddq_f32(vmulq_f32(pc, z), vdupq_n_f32(2.48015873e-5f));
    pc = vsubq_f32(vmulq_f32(pc, z), vdupq_n_f32(1.38888889e-3f));
    pc = vaddq_f32(vmulq_f32(pc, z), vdupq_n_f32(4.16666667e-2f));
    const float32x4_t ck = vaddq_f32(vsubq_f32(vdupq_n_f32(1.0f), vmulq_f32(vdupq_n_f32(0.5f), z)),
                                     vmulq_f32(vmulq_f32(z, z), pc));
    const uint32x4_t q = vreinterpretq_u32_s32(qi);
    const uint32x4_t odd = vtstq_u32(q, vdupq_n_u32(1));
    const float32x4_t sv = vbslq_f32(odd, ck, sk);
    const float32x4_t cv = vbslq_f32(odd, sk, ck);
    const uint32x4_t sneg = vshlq_n_u32(vshrq_n_u32(q, 1), 31);
    const uint32x4_t cneg = vshlq_n_u32(vshrq_n_u32(vaddq_u32(q, vdupq_n_u32(1)), 1), 31);
    *s = vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(sv), sneg));
    *c = vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(cv), cneg));
}

void gk_sincos_neon(int64_t n, const float * theta, float mscale, float * cs) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t x = vld1q_f32(theta + i);
        if (vminvq_u32(vcaleq_f32(x, vdupq_n_f32(1e6f))) == 0) {
            for (int64_t j = i; j < i + 4; j++) {
                cs[2 * j]     = gk_cosf(theta[j]) * mscale;
                cs[2 * j + 1] = gk_sinf(theta[j]) * mscale;
            }
            continue;
        }
        float32x4_t c, s;
        sincos128(x, &c, &s);
        float32x4x2_t v = { { vmulq_n_f32(c, mscale), vmulq_n_f32(s, mscale) } };
        vst2q_f32(cs + 2 * i, v);
    }
    for (; i < n; i++) {
        cs[2 * i]     = gk_cosf(theta[i]) * mscale;
        cs[2 * i + 1] = gk_sinf(theta[i]) * mscale;
    }
}
