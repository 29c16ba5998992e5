/*
 * cpu-type-traits.c - ggml_get_type_traits_cpu: per type, the conversion
 * from F32 (from_float), the dot with an activation row (vec_dot) and the
 * activations' type (vec_dot_type), as upstream's CPU backend defines
 * them. The dots and the quantizers are the ones MUL_MAT uses
 * (cpu-mul-mat.c, cpu-quant-types.c), so a caller of the traits gets the
 * same numbers as the graph; F16 and BF16 dot two rows of their own type.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-quant-types.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-vec.h"

// the two same-type float dots (F16 x F16, BF16 x BF16), SIMD where present
#define WRAP(name) \
    static float w_##name(int64_t n, const void * x, const void * y) { return name(n, x, y); }

WRAP(gk_dot_f16)
WRAP(gk_dot_bf16)
#if defined(__x86_64__)
WRAP(gk_dot_f16_avx2)
WRAP(gk_dot_bf16_avx2)
#define PICK(ref, base) (!(ref) && ggml_cpu_fast_x86() ? w_##base##_avx2 : w_##base)
#elif defined(__aarch64__)
WRAP(gk_dot_f16_neon)
WRAP(gk_dot_bf16_neon)
#define PICK(ref, base) (!(ref) && ggml_cpu_isa()->neon ? w_##base##_neon : w_##base)
#else
#define PICK(ref, base) w_##base
#endif

static void vd_generic(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc,
                       ggml_cpu_qdot_fn fn) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    *s = fn(n, x, y);
}

#define VEC_DOT(name, base) \
    static void name(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx, \
                     const void * GGML_RESTRICT y, size_t by, int nrc) { \
        vd_generic(n, s, bs, x, bx, y, by, nrc, PICK(ggml_cpu_get_use_ref(), base)); \
    }

VEC_DOT(vec_dot_f16, gk_dot_f16)
VEC_DOT(vec_dot_bf16, gk_dot_bf16)
// F32 and the quantized types as MUL_MAT picks their dots (VNNI, SDOT
// where present)
#define VEC_DOT_MM(name, type) \
    static void name(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx, \
                     const void * GGML_RESTRICT y, size_t by, int nrc) { \
        vd_generic(n, s, bs, x, bx, y, by, nrc, ggml_cpu_mm_dot(type, ggml_cpu_get_use_ref())); \
    }

VEC_DOT_MM(vec_dot_f32, GGML_TYPE_F32)
VEC_DOT_MM(vec_dot_q8_0, GGML_TYPE_Q8_0)
VEC_DOT_MM(vec_dot_q4_0, GGML_TYPE_Q4_0)
VEC_DOT_MM(vec_dot_q4_K, GGML_TYPE_Q4_K)
VEC_DOT_MM(vec_dot_q6_K, GGML_TYPE_Q6_K)

static void ff_f32(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k)  { ggml_cpu_fp32_to_fp32(x, y, k); }
static void ff_f16(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k)  { ggml_cpu_fp32_to_fp16(x, y, k); }
static void ff_bf16(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { ggml_cpu_fp32_to_bf16(x, y, k); }
static void ff_q8_0(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_cpu_quantize_act(GGML_TYPE_Q8_0, x, y, k, ggml_cpu_get_use_ref());
}
static void ff_q4_0(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { gk_quantize_row_q4_0(x, y, k); }
static void ff_q8_K(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_cpu_quantize_act(GGML_TYPE_Q8_K, x, y, k, ggml_cpu_get_use_ref());
}
static void ff_i32(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k)  { ggml_cpu_fp32_to_i32(x, y, k); }

static void ff_q8_1(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_cpu_quantize_act(GGML_TYPE_Q8_1, x, y, k, ggml_cpu_get_use_ref());
}

// the types of cpu-quant-types.c, as MUL_MAT picks their dots
static void vec_dot_qt(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                       const void * GGML_RESTRICT y, size_t by, int nrc, enum ggml_type type) {
    vd_generic(n, s, bs, x, bx, y, by, nrc, ggml_cpu_qt_dot(type, ggml_cpu_get_use_ref()));
}
#define VEC_DOT_QT(t, T) \
    static void vec_dot_##t(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx, \
                            const void * GGML_RESTRICT y, size_t by, int nrc) { \
        vec_dot_qt(n, s, bs, x, bx, y, by, nrc, GGML_TYPE_##T); \
    }
VEC_DOT_QT(q1_0, Q1_0) VEC_DOT_QT(q2_0, Q2_0) VEC_DOT_QT(q4_1, Q4_1) VEC_DOT_QT(q5_0, Q5_0)
VEC_DOT_QT(q5_1, Q5_1) VEC_DOT_QT(q8_1, Q8_1) VEC_DOT_QT(mxfp4, MXFP4) VEC_DOT_QT(nvfp4, NVFP4)
VEC_DOT_QT(q2_K, Q2_K) VEC_DOT_QT(q3_K, Q3_K) VEC_DOT_QT(q5_K, Q5_K) VEC_DOT_QT(tq1_0, TQ1_0)
VEC_DOT_QT(tq2_0, TQ2_0) VEC_DOT_QT(iq2_xxs, IQ2_XXS) VEC_DOT_QT(iq2_xs, IQ2_XS) VEC_DOT_QT(iq2_s, IQ2_S)
VEC_DOT_QT(iq3_xxs, IQ3_XXS) VEC_DOT_QT(iq3_s, IQ3_S) VEC_DOT_QT(iq1_s, IQ1_S) VEC_DOT_QT(iq1_m, IQ1_M)
VEC_DOT_QT(iq4_nl, IQ4_NL) VEC_DOT_QT(iq4_xs, IQ4_XS)

static struct ggml_type_traits_cpu g_traits[GGML_TYPE_COUNT];

__attribute__((constructor)) static void traits_init(void) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        g_traits[t].vec_dot_type = (enum ggml_type) t;
        g_traits[t].nrows = 1;
    }
    g_traits[GGML_TYPE_F32]  = (struct ggml_type_traits_cpu) { ff_f32,  vec_dot_f32,  GGML_TYPE_F32,  1 };
    g_traits[GGML_TYPE_F16]  = (struct ggml_type_traits_cpu) { ff_f16,  vec_dot_f16,  GGML_TYPE_F16,  1 };
    g_traits[GGML_TYPE_BF16] = (struct ggml_type_traits_cpu) { ff_bf16, vec_dot_bf16, GGML_TYPE_BF16, 1 };
    g_traits[GGML_TYPE_Q8_0] = (struct ggml_type_traits_cpu) { ff_q8_0, vec_dot_q8_0, GGML_TYPE_Q8_0, 1 };
    g_traits[GGML_TYPE_Q4_0] = (struct ggml_type_traits_cpu) { ff_q4_0, vec_dot_q4_0, GGML_TYPE_Q8_0, 1 };
    g_traits[GGML_TYPE_Q4_K] = (struct ggml_type_traits_cpu) { NULL,    vec_dot_q4_K, GGML_TYPE_Q8_K, 1 };
    g_traits[GGML_TYPE_Q6_K] = (struct ggml_type_traits_cpu) { NULL,    vec_dot_q6_K, GGML_TYPE_Q8_K, 1 };
    g_traits[GGML_TYPE_Q8_K] = (struct ggml_type_traits_cpu) { ff_q8_K, NULL,         GGML_TYPE_Q8_K, 1 };
    g_traits[GGML_TYPE_I32]  = (struct ggml_type_traits_cpu) { ff_i32,  NULL,         GGML_TYPE_I32,  1 };
    g_traits[GGML_TYPE_Q8_1] = (struct ggml_type_traits_cpu) { ff_q8_1, vec_dot_q8_1, GGML_TYPE_Q8_1, 1 };
#define QT(t, T) g_traits[GGML_TYPE_##T] = (struct ggml_type_traits_cpu) { NULL, vec_dot_##t, ggml_cpu_qt_act_type(GGML_TYPE_##T), 1 }
    QT(q1_0, Q1_0); QT(q2_0, Q2_0); QT(q4_1, Q4_1); QT(q5_0, Q5_0); QT(q5_1, Q5_1); QT(mxfp4, MXFP4);
    QT(nvfp4, NVFP4); QT(q2_K, Q2_K); QT(q3_K, Q3_K); QT(q5_K, Q5_K); QT(tq1_0, TQ1_0); QT(tq2_0, TQ2_0);
    QT(iq2_xxs, IQ2_XXS); QT(iq2_xs, IQ2_XS); QT(iq2_s, IQ2_S); QT(iq3_xxs, IQ3_XXS); QT(iq3_s, IQ3_S);
    QT(iq1_s, IQ1_S); QT(iq1_m, IQ1_M); QT(iq4_nl, IQ4_NL); QT(iq4_xs, IQ4_XS);
#undef QT
}

const struct ggml_type_traits_cpu * ggml_get_type_traits_cpu(enum ggml_type type) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    struct ggml_type_traits_cpu * t = &g_traits[type];
    // (as upstream, none for the codebook i-quants: their quantizers are
    // reached through ggml_quantize_chunk)
    if (t->from_float == NULL && t->vec_dot != NULL && type != GGML_TYPE_F32 &&
        type != GGML_TYPE_IQ3_XXS && type != GGML_TYPE_IQ3_S && type != GGML_TYPE_IQ2_S) {
        // the weight types' reference quantizers of the core, NULL where
        // upstream has none (filled lazily: the core's traits table may be
        // set up by its own constructor)
        t->from_float = ggml_get_type_traits(type)->from_float_ref;
    }
    return t;
}
