/*
 * cpu-impl.h - internal interfaces of the CPU backend.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_IMPL_H
#define GGML_CPU_IMPL_H

#include <stdbool.h>
#include <stdint.h>

// Instruction set extensions of this CPU, read once (before main()).
// The fast kernels use avx2+fma+f16c together on x86-64 and neon on arm64;
// the other fields answer ggml_cpu_has_*().
struct ggml_cpu_isa {
    bool avx2;
    bool fma;
    bool f16c;
    bool neon;
    // x86-64, answered truthfully (cpuid + xgetbv for OS-enabled state)
    bool sse3, ssse3, avx, avx_vnni, bmi2, avx512, avx512_vbmi, avx512_vnni, avx512_bf16, amx_int8;
    // arm64 (getauxval(AT_HWCAP/AT_HWCAP2))
    bool arm_fma, fp16_va, dotprod, matmul_int8, sve, sme;
    int  sve_cnt; // SVE vector length in bytes, 0 without SVE
};

const struct ggml_cpu_isa * ggml_cpu_isa(void);

// True when the AVX2+FMA+F16C kernels may run (x86-64) ...
static inline bool ggml_cpu_fast_x86(void) {
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    return isa->avx2 && isa->fma && isa->f16c;
}

// Scalar reference path: when set, graph compute uses the portable scalar
// kernels only (the backend's ggml_backend_cpu_set_use_ref() and the
// environment variable GGML_CPU_REF=1 set it). Process-wide; the CPU backend
// object may keep its own copy and pass it in the compute params instead.
void ggml_cpu_set_use_ref(bool use_ref);
bool ggml_cpu_get_use_ref(void);

#endif // GGML_CPU_IMPL_H
