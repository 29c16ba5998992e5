/*
 * cpu-ops-rows.h - what the op families of the CPU backend share: which
 * vector kernels this CPU runs (VK, SIMD) and access to a tensor's rows
 * and elements as F32. Included by cpu-ops.c and cpu-ops-attn.c only.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CPU_OPS_ROWS_H
#define CPU_OPS_ROWS_H

#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"

// The vector kernels of this CPU: VK(gk_name) is gk_name_avx2 on x86-64 (after
// the AVX2+FMA+F16C check) and gk_name_neon on arm64; SIMD(ref) says whether
// they may run (not on the reference path).
#if defined(__x86_64__)
#define HAVE_VK 1
#define VK(f) f##_avx2
#define SIMD(ref) (!(ref) && ggml_cpu_fast_x86())
#elif defined(__aarch64__)
#define HAVE_VK 1
#define VK(f) f##_neon
#define SIMD(ref) (!(ref) && ggml_cpu_isa()->neon)
#else
#define HAVE_VK 0
#define SIMD(ref) false
#endif

static inline float elem_get(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F32:  return *(const float *) p;
        case GGML_TYPE_F16:  return gk_fp16_to_fp32(*(const uint16_t *) p);
        case GGML_TYPE_BF16: return gk_bf16_to_fp32(*(const uint16_t *) p);
        case GGML_TYPE_I32:  return (float) *(const int32_t *) p;
        case GGML_TYPE_I16:  return (float) *(const int16_t *) p;
        case GGML_TYPE_I8:   return (float) *(const int8_t *) p;
        default: GGML_ABORT("element access to type %s", ggml_type_name(type));
    }
}

static inline bool row_is_dense(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type);
}

static inline char * row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

// Row (i1, i2, i3) of t as F32: in place when possible, else converted into tmp.
static const float * row_in(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, float * tmp, bool ref) {
    const char * p = row_ptr(t, i1, i2, i3);
    if (t->type == GGML_TYPE_F32 && row_is_dense(t)) {
        return (const float *) p;
    }
    if (row_is_dense(t)) {
        ggml_cpu_row_to_f32(t->type, p, tmp, t->ne[0], ref);
    } else {
        for (int64_t i = 0; i < t->ne[0]; i++) {
            tmp[i] = elem_get(t->type, p + i * t->nb[0]);
        }
    }
    return tmp;
}

#endif // CPU_OPS_ROWS_H
