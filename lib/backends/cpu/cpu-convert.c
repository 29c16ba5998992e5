/*
 * cpu-convert.c - ggml_cpu_* row conversions: the fastest kernel this CPU
 * runs, chosen at run time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "cpu-impl.h"
#include "kernels/gk-convert.h"

#include <string.h>

void ggml_cpu_fp32_to_fp32(const float * x, float * y, int64_t n) {
    if (n > 0) {
        memcpy(y, x, (size_t) n * sizeof(float));
    }
}

void ggml_cpu_fp32_to_i32(const float * x, int32_t * y, int64_t n) {
    gk_fp32_to_i32_row(x, y, n);
}

void ggml_cpu_fp32_to_fp16(const float * x, ggml_fp16_t * y, int64_t n) {
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    (void) isa;
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86()) { // convert-x86.c is built with AVX2+FMA+F16C
        gk_fp32_to_fp16_row_f16c(x, y, n);
        return;
    }
#elif defined(__aarch64__)
    if (isa->neon) {
        gk_fp32_to_fp16_row_neon(x, y, n);
        return;
    }
#endif
    gk_fp32_to_fp16_row(x, y, n);
}

void ggml_cpu_fp16_to_fp32(const ggml_fp16_t * x, float * y, int64_t n) {
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    (void) isa;
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86()) { // convert-x86.c is built with AVX2+FMA+F16C
        gk_fp16_to_fp32_row_f16c(x, y, n);
        return;
    }
#elif defined(__aarch64__)
    if (isa->neon) {
        gk_fp16_to_fp32_row_neon(x, y, n);
        return;
    }
#endif
    gk_fp16_to_fp32_row(x, y, n);
}

void ggml_cpu_fp32_to_bf16(const float * x, ggml_bf16_t * y, int64_t n) {
    // ggml_bf16_t is a struct of one uint16_t: same size and layout.
    uint16_t * out = (uint16_t *) y;
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    (void) isa;
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86()) {
        gk_fp32_to_bf16_row_avx2(x, out, n);
        return;
    }
#elif defined(__aarch64__)
    if (isa->neon) {
        gk_fp32_to_bf16_row_neon(x, out, n);
        return;
    }
#endif
    gk_fp32_to_bf16_row(x, out, n);
}

void ggml_cpu_bf16_to_fp32(const ggml_bf16_t * x, float * y, int64_t n) {
    const uint16_t * in = (const uint16_t *) x;
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    (void) isa;
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86()) {
        gk_bf16_to_fp32_row_avx2(in, y, n);
        return;
    }
#elif defined(__aarch64__)
    if (isa->neon) {
        gk_bf16_to_fp32_row_neon(in, y, n);
        return;
    }
#endif
    gk_bf16_to_fp32_row(in, y, n);
}
