/*
 * ggml-fp16.c - the public scalar and row conversions between binary32,
 * binary16 and bfloat16. The row forms use the CPU backend's dispatched
 * kernels; the _ref form is the plain scalar loop.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"
#include "ggml-cpu.h"
#include "backends/cpu/kernels/gk-fp16.h"

float ggml_fp16_to_fp32(ggml_fp16_t x) {
    return gk_fp16_to_fp32(x);
}

ggml_fp16_t ggml_fp32_to_fp16(float x) {
    return gk_fp32_to_fp16(x);
}

float ggml_bf16_to_fp32(ggml_bf16_t x) {
    return gk_bf16_to_fp32(x.bits);
}

ggml_bf16_t ggml_fp32_to_bf16(float x) {
    ggml_bf16_t r = { gk_fp32_to_bf16(x) };
    return r;
}

void ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n) {
    ggml_cpu_fp16_to_fp32(x, y, n);
}

void ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n) {
    ggml_cpu_fp32_to_fp16(x, y, n);
}

void ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n) {
    ggml_cpu_bf16_to_fp32(x, y, n);
}

void ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n) {
    ggml_cpu_fp32_to_bf16(x, y, n);
}

void ggml_fp32_to_bf16_row_ref(const float * x, ggml_bf16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i].bits = gk_fp32_to_bf16(x[i]);
    }
}
