/*
 * attn-neon.c - NEON attention kernels (see gk-attn.h). AArch64: NEON and
 * the half precision conversions are part of the base architecture.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-attn.h"
#include "gk-fp16.h"

#include <arm_neon.h>

static inline float32x4_t load_f16(const uint16_t * p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}

// MR query rows x NR keys, 4-lane accumulators along the head dimension:
// MR = NR = 4 uses 16 accumulators + 4 keys + 1 query of the 32 registers.
static inline __attribute__((always_inline)) void
qk_tile(const int MR, const int NR, int64_t dk, const float * q, int64_t ldq,
        const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    float32x4_t acc[4][4];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            acc[i][j] = vdupq_n_f32(0);
        }
    }
    int64_t l = 0;
    for (; l + 4 <= dk; l += 4) {
        float32x4_t kv[4];
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            kv[j] = load_f16(k + j * ldk + l);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float32x4_t qv = vld1q_f32(q + i * ldq + l);
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++) {
                acc[i][j] = vfmaq_f32(acc[i][j], qv, kv[j]);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int j = 0; j < NR; j++) {
            float t = vaddvq_f32(acc[i][j]);
            for (int64_t e = l; e < dk; e++) {
                t += q[i * ldq + e] * gk_fp16_to_fp32(k[j * ldk + e]);
            }
            s[i * lds + j] = t;
        }
    }
}

#define QK_ROWS(MR)                                                              \
    do {                                                                         \
        int j = 0;                                                               \
        for (; j + 4 <= n; j += 4) {                                             \
            qk_tile(MR, 4, dk, q, ldq, k + j * ldk, ldk, s + j, lds);            \
        }                                                                        \
        for (; j < n; j++) {                                                     \
            qk_tile(MR, 1, dk, q, ldq, k + j * ldk, ldk, s + j, lds);            \
        }                                                                        \
    } while (0)

void gk_fa_qk_f16_neon(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    switch (m) {
        case 4: QK_ROWS(4); break;
        case 3: QK_ROWS(3); break;
        case 2: QK_ROWS(2); break;
        case 1: QK_ROWS(1); break;
        default: break;
    }
}

// MR rows of o, 4*ND columns in registers over the n keys: MR = ND = 4 is
// 16 accumulators + 4 widened V vectors + the broadcast weights.
static inline __attribute__((always_inline)) void
pv_tile(const int MR, const int ND, int n, const float * p, int64_t ldp,
        const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    float32x4_t acc[4][4];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int d = 0; d < ND; d++) {
            acc[i][d] = vld1q_f32(o + i * ldo + 4 * d);
        }
    }
    for (int j = 0; j < n; j++) {
        float32x4_t vv[4];
        #pragma GCC unroll 4
        for (int d = 0; d < ND; d++) {
            vv[d] = load_f16(v + j * ldv + 4 * d);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float pj = p[i * ldp + j];
            #pragma GCC unroll 4
            for (int d = 0; d < ND; d++) {
                acc[i][d] = vfmaq_n_f32(acc[i][d], vv[d], pj);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 4
        for (int d = 0; d < ND; d++) {
            vst1q_f32(o + i * ldo + 4 * d, acc[i][d]);
        }
    }
}

#define PV_ROWS(MR)                                                              \
    do {                                                                         \
        for (; d + 16 <= dv; d += 16) {                                          \
            pv_tile(MR, 4, n, p, ldp, v + d, ldv, o + d, ldo);                   \
        }                                                                        \
        for (; d + 4 <= dv; d += 4) {                                            \
            pv_tile(MR, 1, n, p, ldp, v + d, ldv, o + d, ldo);                   \
        }                                                                        \
    } while (0)

void gk_fa_pv_f16_neon(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    int64_t d = 0;
    switch (m) {
        case 4: PV_ROWS(4); break;
        case 3: PV_ROWS(3); break;
        case 2: PV_ROWS(2); break;
        case 1: PV_ROWS(1); break;
        default: return;
    }
    for (; d < dv; d++) {
        for (int i = 0; i < m; i++) {
            float t = 0.0f;
            for (int j = 0; j < n; j++) {
                t += p[i * ldp + j] * gk_fp16_to_fp32(v[j * ldv + d]);
            }
            o[i * ldo + d] += t;
        }
    }
}
