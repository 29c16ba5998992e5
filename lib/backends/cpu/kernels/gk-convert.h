/*
 * gk-convert.h - row conversions between binary32, binary16, bfloat16 and
 * int32, in a portable form and in per-ISA forms (declared only for the
 * architecture they are built for; the caller checks the CPU first).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_CONVERT_H
#define GK_CONVERT_H

#include "gk-types.h"

void gk_fp16_to_fp32_row(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_fp16_row(const float * x, uint16_t * y, int64_t n);
void gk_bf16_to_fp32_row(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_bf16_row(const float * x, uint16_t * y, int64_t n);
void gk_fp32_to_i32_row(const float * x, int32_t * y, int64_t n);

#if defined(__x86_64__)
// AVX2 + F16C
void gk_fp16_to_fp32_row_f16c(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_fp16_row_f16c(const float * x, uint16_t * y, int64_t n);
void gk_bf16_to_fp32_row_avx2(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_bf16_row_avx2(const float * x, uint16_t * y, int64_t n);
// the same with non-temporal stores (then SFENCE); x and y apart
void gk_fp16_to_fp32_row_nt_f16c(const uint16_t * x, float * y, int64_t n);
void gk_bf16_to_fp32_row_nt_avx2(const uint16_t * x, float * y, int64_t n);
#endif

#if defined(__aarch64__)
void gk_fp16_to_fp32_row_neon(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_fp16_row_neon(const float * x, uint16_t * y, int64_t n);
void gk_bf16_to_fp32_row_neon(const uint16_t * x, float * y, int64_t n);
void gk_fp32_to_bf16_row_neon(const float * x, uint16_t * y, int64_t n);
#endif

#endif // GK_CONVERT_H
