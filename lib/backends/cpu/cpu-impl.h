/*
 * cpu-impl.h - internal interfaces of the CPU backend.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_IMPL_H
#define GGML_CPU_IMPL_H

#include <stdbool.h>

// Instruction set extensions the fast kernels may use, read once.
struct ggml_cpu_isa {
    bool avx2;
    bool fma;
    bool f16c;
    bool neon;
};

const struct ggml_cpu_isa * ggml_cpu_isa(void);

#endif // GGML_CPU_IMPL_H
