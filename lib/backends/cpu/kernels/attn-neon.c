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
// MR = NR = 4 uses 16 accumulators + 4 keys + 1 query of the 32 registers;
// one row takes 8 keys, for 8 independent FMA chains.
static inline __attribute__((always_inline)) void
qk_tile(const int MR, const int NR, int64_t dk, const float * q, int64_t ldq,
        const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    float32x4_t acc[4][8];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            acc[i][j] = vdupq_n_f32(0);
        }
    }
    int64_t l = 0;
    for (; l + 4 <= dk; l += 4) {
        float32x4_t kv[8];
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            kv[j] = load_f16(k + j * ldk + l);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float32x4_t qv = vld1q_f32(q + i * ldq + l);
            #pragma GCC unroll 8
            for (int j = 0; j < NR; j++) {
                acc[i][j] = vfmaq_f32(acc[i][j], qv, kv[j]);
            }
        }
    }
    // reduce the accumulators four at a time (three pairwise adds for four sums)
    float32x4_t flat[16];
    float sum[16];
    #pragma GCC unroll 16
    for (int x = 0; x < MR * NR; x++) {
        flat[x] = acc[x / NR][x % NR];
    }
    #pragma GCC unroll 4
    for (int x = 0; x < MR * NR; x += 4) {
        if (x + 4 <= MR * NR) {
            vst1q_f32(sum + x, vpaddq_f32(vpaddq_f32(flat[x], flat[x + 1]), vpaddq_f32(flat[x + 2], flat[x + 3])));
        } else {
            for (int y = x; y < MR * NR; y++) {
                sum[y] = vaddvq_f32(flat[y]);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            float t = sum[i * NR + j];
            for (int64_t e = l; e < dk; e++) {
                t += q[i * ldq + e] * gk_fp16_to_fp32(k[j * ldk + e]);
            }
            s[i * lds + j] = t;
        }
    }
}

#define QK_ROWS(MR, NR)                                                          \
    do {                                                                         \
        int j = 0;                                                               \
        for (; j + NR <= n; j += NR) {                                           \
            qk_tile(MR, NR, dk, q, ldq, k + j * ldk, ldk, s + j, lds);           \
        }                                                                        \
        for (; j < n; j++) {                                                     \
            qk_tile(MR, 1, dk, q, ldq, k + j * ldk, ldk, s + j, lds);            \
        }                                                                        \
    } while (0)

void gk_fa_qk_f16_neon(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
    switch (m) {
        case 4: QK_ROWS(4, 4); break;
        case 3: QK_ROWS(3, 4); break;
        case 2: QK_ROWS(2, 4); break;
        case 1: QK_ROWS(1, 8); break;
        default: break;
    }
}

// MR rows of o, 4*ND columns in registers over the n keys: MR = ND = 4 is
// 16 accumulators + 4 widened V vectors + the broadcast weights; one or two
// rows take 32 columns (8 or 16 independent FMA chains).
static inline __attribute__((always_inline)) void
pv_tile(const int MR, const int ND, int n, const float * p, int64_t ldp,
        const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    float32x4_t acc[4][8];
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            acc[i][d] = vld1q_f32(o + i * ldo + 4 * d);
        }
    }
    for (int j = 0; j < n; j++) {
        float32x4_t vv[8];
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            vv[d] = load_f16(v + j * ldv + 4 * d);
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float pj = p[i * ldp + j];
            #pragma GCC unroll 8
            for (int d = 0; d < ND; d++) {
                acc[i][d] = vfmaq_n_f32(acc[i][d], vv[d], pj);
            }
        }
    }
    #pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        #pragma GCC unroll 8
        for (int d = 0; d < ND; d++) {
            vst1q_f32(o + i * ldo + 4 * d, acc[i][d]);
        }
    }
}

#define PV_ROWS(MR, ND)                                                          \
    do {                                                                         \
        for (; d + 4 * ND <= dv; d += 4 * ND) {                                  \
            pv_tile(MR, ND, n, p, ldp, v + d, ldv, o + d, ldo);                  \
        }                                                                        \
        for (; d + 4 <= dv; d += 4) {                                            \
            pv_tile(MR, 1, n, p, ldp, v + d, ldv, o + d, ldo);                   \
        }                                                                        \
    } while (0)

void gk_fa_pv_f16_neon(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    int64_t d = 0;
    switch (m) {
        case 4: PV_ROWS(4, 4); break;
        case 3: PV_ROWS(3, 4); break;
        case 2: PV_ROWS(2, 8); break;
        case 1: PV_ROWS(1, 8); break;
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
