/*
 * cpu-quant-types.h - the CPU dots of the quantized types beyond Q4_0,
 * Q8_0, Q4_K and Q6_K (cpu-quant-types.c): which activation type each one
 * takes (upstream's vec_dot_type) and the dot of a weight row with an
 * activation row, SIMD where this CPU has a kernel for the type.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_QUANT_TYPES_H
#define GGML_CPU_QUANT_TYPES_H

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

typedef float (*ggml_cpu_qdot_fn)(int64_t n, const void * x, const void * y);

// the activation type of a weight type handled here (Q8_0, Q8_1 or Q8_K),
// GGML_TYPE_COUNT for the others
enum ggml_type ggml_cpu_qt_act_type(enum ggml_type type);

// its dot (ref: the portable kernel), NULL for types not handled here
ggml_cpu_qdot_fn ggml_cpu_qt_dot(enum ggml_type type, bool ref);

// MUL_MAT's dot of a weight row of any type with an activation row in its
// vec_dot form, and the F32 -> Q8_0/Q8_1/Q8_K activation quantizer, SIMD
// where the CPU has it (cpu-mul-mat.c; the type traits take them too)
ggml_cpu_qdot_fn ggml_cpu_mm_dot(enum ggml_type type, bool ref);
void ggml_cpu_quantize_act(enum ggml_type act, const float * x, void * y, int64_t n, bool ref);

// F32 values to Q8_1 activations
void ggml_cpu_qt_quantize_q8_1(const float * x, void * y, int64_t n);

#endif // GGML_CPU_QUANT_TYPES_H
