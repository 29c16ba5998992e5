/*
 * cpu-quant-types.c - the CPU dots of the quantized types beyond Q4_0,
 * Q8_0, Q4_K and Q6_K: every type upstream defines a vec_dot for, with the
 * same activation type. The portable kernels work on the unpacked blocks
 * (kernels/quant-unpack.c); types with SIMD kernels take them when the CPU
 * has the instructions (and the reference path is not asked for).
 *
 * SPDX-License-Identifier: MIT
 */
#include "cpu-quant-types.h"
#include "cpu-impl.h"
#include "kernels/gk-quant-ext.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-quant-simd.h"

#define DOT_K(t)                                                                     \
    static float dot_##t(int64_t n, const void * x, const void * y) {                \
        return gk_dot_unpack_q8_K(gk_unpack_##t, sizeof(gk_block_##t), n, x, y);     \
    }
#define DOT_0(t, blck)                                                               \
    static float dot_##t(int64_t n, const void * x, const void * y) {                \
        return gk_dot_unpack_q8_0(gk_unpack_##t, blck, sizeof(gk_block_##t), n, x, y); \
    }
#define DOT_1(t, blck)                                                               \
    static float dot_##t(int64_t n, const void * x, const void * y) {                \
        return gk_dot_unpack_q8_1(gk_unpack_##t, blck, sizeof(gk_block_##t), n, x, y); \
    }

DOT_0(q1_0, GK_QK1_0)
DOT_0(q2_0, GK_QK2_0)
DOT_1(q4_1, GK_QK4_1)
DOT_0(q5_0, GK_QK5_0)
DOT_1(q5_1, GK_QK5_1)
DOT_0(mxfp4, GK_QK_MXFP4)
DOT_0(nvfp4, GK_QK_NVFP4)
DOT_K(q2_K)
DOT_K(q3_K)
DOT_K(q5_K)
DOT_K(tq1_0)
DOT_K(tq2_0)
DOT_K(iq2_xxs)
DOT_K(iq2_xs)
DOT_K(iq2_s)
DOT_K(iq3_xxs)
DOT_K(iq3_s)
DOT_K(iq1_s)
DOT_K(iq1_m)
DOT_0(iq4_nl, GK_QK4_NL)
DOT_K(iq4_xs)

// Q8_1 x Q8_1 (upstream gives Q8_1 a vec_dot of its own type)
static float dot_q8_1(int64_t n, const void * x, const void * y) {
    const gk_block_q8_1 * a = x;
    const gk_block_q8_1 * b = y;
    float s = 0.0f;
    for (int64_t i = 0; i < n / GK_QK8_1; i++) {
        int32_t si = 0;
        for (int j = 0; j < GK_QK8_1; j++) {
            si += a[i].qs[j] * b[i].qs[j];
        }
        s += (float) si * gk_fp16_to_fp32(a[i].d) * gk_fp16_to_fp32(b[i].d);
    }
    return s;
}

struct qt_entry {
    enum ggml_type act;
    ggml_cpu_qdot_fn ref;
};

static struct qt_entry entry(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q1_0:    return (struct qt_entry) { GGML_TYPE_Q8_0, dot_q1_0 };
        case GGML_TYPE_Q2_0:    return (struct qt_entry) { GGML_TYPE_Q8_0, dot_q2_0 };
        case GGML_TYPE_Q4_1:    return (struct qt_entry) { GGML_TYPE_Q8_1, dot_q4_1 };
        case GGML_TYPE_Q5_0:    return (struct qt_entry) { GGML_TYPE_Q8_0, dot_q5_0 };
        case GGML_TYPE_Q5_1:    return (struct qt_entry) { GGML_TYPE_Q8_1, dot_q5_1 };
        case GGML_TYPE_Q8_1:    return (struct qt_entry) { GGML_TYPE_Q8_1, dot_q8_1 };
        case GGML_TYPE_MXFP4:   return (struct qt_entry) { GGML_TYPE_Q8_0, dot_mxfp4 };
        case GGML_TYPE_NVFP4:   return (struct qt_entry) { GGML_TYPE_Q8_0, dot_nvfp4 };
        case GGML_TYPE_Q2_K:    return (struct qt_entry) { GGML_TYPE_Q8_K, dot_q2_K };
        case GGML_TYPE_Q3_K:    return (struct qt_entry) { GGML_TYPE_Q8_K, dot_q3_K };
        case GGML_TYPE_Q5_K:    return (struct qt_entry) { GGML_TYPE_Q8_K, dot_q5_K };
        case GGML_TYPE_TQ1_0:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_tq1_0 };
        case GGML_TYPE_TQ2_0:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_tq2_0 };
        case GGML_TYPE_IQ2_XXS: return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq2_xxs };
        case GGML_TYPE_IQ2_XS:  return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq2_xs };
        case GGML_TYPE_IQ2_S:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq2_s };
        case GGML_TYPE_IQ3_XXS: return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq3_xxs };
        case GGML_TYPE_IQ3_S:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq3_s };
        case GGML_TYPE_IQ1_S:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq1_s };
        case GGML_TYPE_IQ1_M:   return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq1_m };
        case GGML_TYPE_IQ4_NL:  return (struct qt_entry) { GGML_TYPE_Q8_0, dot_iq4_nl };
        case GGML_TYPE_IQ4_XS:  return (struct qt_entry) { GGML_TYPE_Q8_K, dot_iq4_xs };
        default:                return (struct qt_entry) { GGML_TYPE_COUNT, NULL };
    }
}

enum ggml_type ggml_cpu_qt_act_type(enum ggml_type type) {
    return entry(type).act;
}

#if defined(__x86_64__)
#define WRAP_SIMD(t, act, isa)                                                                  \
    static float dot_##t##_##isa(int64_t n, const void * x, const void * y) {                  \
        return gk_dot_##t##_##act##_##isa(n, x, y);                                              \
    }
WRAP_SIMD(q5_K, q8_K, avx512)
WRAP_SIMD(q3_K, q8_K, avx512)
WRAP_SIMD(q2_K, q8_K, avx512)
WRAP_SIMD(iq4_xs, q8_K, avx512)
WRAP_SIMD(iq4_nl, q8_0, avx512)
WRAP_SIMD(iq4_nl, q8_0, avx2)
WRAP_SIMD(mxfp4, q8_0, avx2)
WRAP_SIMD(iq4_xs, q8_K, avx2)
WRAP_SIMD(q2_K, q8_K, avx2)
WRAP_SIMD(q3_K, q8_K, avx2)
WRAP_SIMD(q5_K, q8_K, avx2)
WRAP_SIMD(q4_1, q8_1, avx2)
WRAP_SIMD(q5_1, q8_1, avx2)
WRAP_SIMD(q5_0, q8_0, avx2)
WRAP_SIMD(q8_1, q8_1, avx2)
WRAP_SIMD(iq2_xxs, q8_K, avx2)
WRAP_SIMD(iq2_xs, q8_K, avx2)
WRAP_SIMD(iq2_s, q8_K, avx2)
WRAP_SIMD(iq3_xxs, q8_K, avx2)
WRAP_SIMD(iq3_s, q8_K, avx2)
WRAP_SIMD(iq1_s, q8_K, avx2)
WRAP_SIMD(nvfp4, q8_0, avx2)
WRAP_SIMD(tq2_0, q8_K, avx2)
#endif
#if defined(__aarch64__)
#define WRAP_SIMD(t, act, isa)                                                                  \
    static float dot_##t##_##isa(int64_t n, const void * x, const void * y) {                  \
        return gk_dot_##t##_##act##_##isa(n, x, y);                                              \
    }
WRAP_SIMD(iq4_nl, q8_0, neon)
WRAP_SIMD(mxfp4, q8_0, neon)
WRAP_SIMD(iq4_xs, q8_K, neon)
WRAP_SIMD(q2_K, q8_K, neon)
WRAP_SIMD(q3_K, q8_K, neon)
WRAP_SIMD(q5_K, q8_K, neon)
WRAP_SIMD(q4_1, q8_1, neon)
WRAP_SIMD(q5_1, q8_1, neon)
WRAP_SIMD(q5_0, q8_0, neon)
WRAP_SIMD(q8_1, q8_1, neon)
WRAP_SIMD(iq2_xxs, q8_K, neon)
WRAP_SIMD(iq2_xs, q8_K, neon)
WRAP_SIMD(iq2_s, q8_K, neon)
WRAP_SIMD(iq3_xxs, q8_K, neon)
WRAP_SIMD(iq3_s, q8_K, neon)
WRAP_SIMD(iq1_s, q8_K, neon)
#endif

// the SIMD kernel of a type on this CPU, or NULL
static ggml_cpu_qdot_fn simd_dot(enum ggml_type type) {
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86() && ggml_cpu_isa()->use_vnni256) {
        // AVX512-VNNI (quant-k-avx512.c, quant-iq-avx512.c)
        switch (type) {
            case GGML_TYPE_Q5_K:   return dot_q5_K_avx512;
            case GGML_TYPE_Q3_K:   return dot_q3_K_avx512;
            case GGML_TYPE_Q2_K:   return dot_q2_K_avx512;
            case GGML_TYPE_IQ4_XS: return dot_iq4_xs_avx512;
            case GGML_TYPE_IQ4_NL: return dot_iq4_nl_avx512;
            default: break;
        }
    }
    if (ggml_cpu_fast_x86()) {
        switch (type) {
            case GGML_TYPE_IQ4_NL: return dot_iq4_nl_avx2;
            case GGML_TYPE_MXFP4:  return dot_mxfp4_avx2;
            case GGML_TYPE_IQ4_XS: return dot_iq4_xs_avx2;
            case GGML_TYPE_Q2_K:   return dot_q2_K_avx2;
            case GGML_TYPE_Q3_K:   return dot_q3_K_avx2;
            case GGML_TYPE_Q5_K:   return dot_q5_K_avx2;
            case GGML_TYPE_Q4_1:   return dot_q4_1_avx2;
            case GGML_TYPE_Q5_1:   return dot_q5_1_avx2;
            case GGML_TYPE_Q5_0:   return dot_q5_0_avx2;
            case GGML_TYPE_Q8_1:   return dot_q8_1_avx2;
            case GGML_TYPE_IQ2_XXS: return dot_iq2_xxs_avx2;
            case GGML_TYPE_IQ2_XS: return dot_iq2_xs_avx2;
            case GGML_TYPE_IQ2_S:  return dot_iq2_s_avx2;
            case GGML_TYPE_IQ3_XXS: return dot_iq3_xxs_avx2;
            case GGML_TYPE_IQ3_S:  return dot_iq3_s_avx2;
            case GGML_TYPE_IQ1_S:  return dot_iq1_s_avx2;
            case GGML_TYPE_NVFP4:  return dot_nvfp4_avx2;
            case GGML_TYPE_TQ2_0:  return dot_tq2_0_avx2;
            default: break;
        }
    }
#elif defined(__aarch64__)
    if (ggml_cpu_isa()->neon) {
        switch (type) {
            case GGML_TYPE_IQ4_NL: return dot_iq4_nl_neon;
            case GGML_TYPE_MXFP4:  return dot_mxfp4_neon;
            case GGML_TYPE_IQ4_XS: return dot_iq4_xs_neon;
            case GGML_TYPE_Q2_K:   return dot_q2_K_neon;
            case GGML_TYPE_Q3_K:   return dot_q3_K_neon;
            case GGML_TYPE_Q5_K:   return dot_q5_K_neon;
            case GGML_TYPE_Q4_1:   return dot_q4_1_neon;
            case GGML_TYPE_Q5_1:   return dot_q5_1_neon;
            case GGML_TYPE_Q5_0:   return dot_q5_0_neon;
            case GGML_TYPE_Q8_1:   return dot_q8_1_neon;
            case GGML_TYPE_IQ2_XXS: return dot_iq2_xxs_neon;
            case GGML_TYPE_IQ2_XS: return dot_iq2_xs_neon;
            case GGML_TYPE_IQ2_S:  return dot_iq2_s_neon;
            case GGML_TYPE_IQ3_XXS: return dot_iq3_xxs_neon;
            case GGML_TYPE_IQ3_S:  return dot_iq3_s_neon;
            case GGML_TYPE_IQ1_S:  return dot_iq1_s_neon;
            default: break;
        }
    }
#endif
    (void) type;
    return NULL;
}

ggml_cpu_qdot_fn ggml_cpu_qt_dot(enum ggml_type type, bool ref) {
    const struct qt_entry e = entry(type);
    if (e.ref == NULL) {
        return NULL;
    }
    if (!ref) {
        const ggml_cpu_qdot_fn f = simd_dot(type);
        if (f) {
            return f;
        }
    }
    return e.ref;
}

void ggml_cpu_qt_quantize_q8_1(const float * x, void * y, int64_t n) {
    gk_quantize_row_q8_1(x, y, n);
}
