/*
 * ggml-cpu.h - the CPU backend of libggml-backend.
 *
 * Source-compatible with upstream ggml's ggml-cpu.h for every name declared.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_H
#define GGML_CPU_H

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// Row conversions with the fastest code this CPU runs (chosen at run time).
GGML_API void ggml_cpu_fp32_to_fp32(const float *, float *, int64_t);
GGML_API void ggml_cpu_fp32_to_i32 (const float *, int32_t *, int64_t);
GGML_API void ggml_cpu_fp32_to_fp16(const float *, ggml_fp16_t *, int64_t);
GGML_API void ggml_cpu_fp16_to_fp32(const ggml_fp16_t *, float *, int64_t);
GGML_API void ggml_cpu_fp32_to_bf16(const float *, ggml_bf16_t *, int64_t);
GGML_API void ggml_cpu_bf16_to_fp32(const ggml_bf16_t *, float *, int64_t);

#ifdef __cplusplus
}
#endif

#endif // GGML_CPU_H
