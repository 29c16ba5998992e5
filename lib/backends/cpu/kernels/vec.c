/*
 * vec.c - portable float vector kernels (also the scalar reference path).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-fp16.h"

// Four partial sums: the same association as a 4-wide SIMD loop, and an
// error that grows with n/4 rather than n.
#define GK_DOT4(n, X, Y)                                        \
    do {                                                        \
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;       \
        int64_t i = 0;                                          \
        for (; i + 4 <= (n); i += 4) {                          \
            s0 += X(i + 0) * Y(i + 0);                          \
            s1 += X(i + 1) * Y(i + 1);                          \
            s2 += X(i + 2) * Y(i + 2);                          \
            s3 += X(i + 3) * Y(i + 3);                          \
        }                                                       \
        for (; i < (n); i++) {                                  \
            s0 += X(i) * Y(i);                                  \
        }                                                       \
        return (s0 + s1) + (s2 + s3);                           \
    } while (0)

float gk_dot_f32(int64_t n, const float * x, const float * y) {
#define XF(i) x[i]
#define YF(i) y[i]
    GK_DOT4(n, XF, YF);
}

float gk_dot_f16_f32(int64_t n, const uint16_t * x, const float * y) {
#define XH(i) gk_fp16_to_fp32(x[i])
    GK_DOT4(n, XH, YF);
}

float gk_dot_bf16_f32(int64_t n, const uint16_t * x, const float * y) {
#define XB(i) gk_bf16_to_fp32(x[i])
    GK_DOT4(n, XB, YF);
}

float gk_dot_f16(int64_t n, const uint16_t * x, const uint16_t * y) {
#define YH(i) gk_fp16_to_fp32(y[i])
    GK_DOT4(n, XH, YH);
}

float gk_dot_bf16(int64_t n, const uint16_t * x, const uint16_t * y) {
#define YB(i) gk_bf16_to_fp32(y[i])
    GK_DOT4(n, XB, YB);
}

void gk_gemm_nt_f32(int m, int n, int k, const float * a, int64_t lda,
                    const float * b, int64_t ldb, float * c, int64_t ldc) {
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            c[i * ldc + j] += gk_dot_f32(k, a + i * lda, b + j * ldb);
        }
    }
}

void gk_binary_f32(enum gk_binop op, int64_t n, const float * x, const float * y, float * z) {
    switch (op) {
        case GK_ADD: for (int64_t k = 0; k < n; k++) z[k] = x[k] + y[k]; break;
        case GK_SUB: for (int64_t k = 0; k < n; k++) z[k] = x[k] - y[k]; break;
        case GK_MUL: for (int64_t k = 0; k < n; k++) z[k] = x[k] * y[k]; break;
        case GK_DIV: for (int64_t k = 0; k < n; k++) z[k] = x[k] / y[k]; break;
    }
}

double gk_sum_f64(int64_t n, const float * x) {
    double s = 0.0;
    for (int64_t k = 0; k < n; k++) {
        s += x[k];
    }
    return s;
}

float gk_sumsq_dev_f32(int64_t n, const float * x, float mean) {
    double s = 0.0;
    for (int64_t k = 0; k < n; k++) {
        const float d = x[k] - mean;
        s += (double) d * d;
    }
    return (float) s;
}

void gk_centre_scale_f32(int64_t n, const float * x, float mean, float s, float * z) {
    for (int64_t k = 0; k < n; k++) {
        z[k] = (x[k] - mean) * s;
    }
}
