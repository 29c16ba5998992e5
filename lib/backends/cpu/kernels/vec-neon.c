/*
 * vec-neon.c - NEON float vector kernels (AArch64: NEON and the half
 * precision conversions are part of the base architecture).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-fp16.h"

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
