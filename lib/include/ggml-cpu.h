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

// ---------------------------------------------------------------------------
// System info
// ---------------------------------------------------------------------------

GGML_API void ggml_cpu_init(void);

// x86
GGML_API int ggml_cpu_has_sse3       (void);
GGML_API int ggml_cpu_has_ssse3      (void);
GGML_API int ggml_cpu_has_avx        (void);
GGML_API int ggml_cpu_has_avx_vnni   (void);
GGML_API int ggml_cpu_has_avx2       (void);
GGML_API int ggml_cpu_has_bmi2       (void);
GGML_API int ggml_cpu_has_f16c       (void);
GGML_API int ggml_cpu_has_fma        (void);
GGML_API int ggml_cpu_has_avx512     (void);
GGML_API int ggml_cpu_has_avx512_vbmi(void);
GGML_API int ggml_cpu_has_avx512_vnni(void);
GGML_API int ggml_cpu_has_avx512_bf16(void);
GGML_API int ggml_cpu_has_amx_int8   (void);
// ARM
GGML_API int ggml_cpu_has_neon       (void);
GGML_API int ggml_cpu_has_arm_fma    (void);
GGML_API int ggml_cpu_has_fp16_va    (void);
GGML_API int ggml_cpu_has_dotprod    (void);
GGML_API int ggml_cpu_has_matmul_int8(void);
GGML_API int ggml_cpu_has_sve        (void);
GGML_API int ggml_cpu_get_sve_cnt    (void);  // sve vector length in bytes
GGML_API int ggml_cpu_has_sme        (void);
// other
GGML_API int ggml_cpu_has_riscv_v    (void);
GGML_API int ggml_cpu_get_rvv_vlen   (void);  // risc-v vector length in bytes
GGML_API int ggml_cpu_has_vsx        (void);
GGML_API int ggml_cpu_has_vxe        (void);
GGML_API int ggml_cpu_has_wasm_simd  (void);
GGML_API int ggml_cpu_has_llamafile  (void);

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
