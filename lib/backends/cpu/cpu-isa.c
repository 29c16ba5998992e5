/*
 * cpu-isa.c - which instruction set extensions the kernels may use.
 *
 * SPDX-License-Identifier: MIT
 */
#include "cpu-impl.h"

#include <stdlib.h>
#include <string.h>

static struct ggml_cpu_isa g_isa;

// Runs before main() and before any other thread can call a kernel.
__attribute__((constructor)) static void cpu_isa_detect(void) {
    // GGML_CPU_NO_SIMD=1 forces the portable kernels, e.g. to compare paths.
    const char * no_simd = getenv("GGML_CPU_NO_SIMD");
    if (no_simd && strcmp(no_simd, "0") != 0) {
        return;
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    g_isa.avx2 = __builtin_cpu_supports("avx2");
    g_isa.fma  = __builtin_cpu_supports("fma");
    // GCC 12 does not know "f16c" for __builtin_cpu_supports: read CPUID.1:ECX[29].
    {
        unsigned int eax = 1, ebx, ecx, edx;
        __asm__("cpuid" : "+a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "c"(0));
        g_isa.f16c = (ecx >> 29) & 1;
    }
#elif defined(__aarch64__)
    g_isa.neon = true;
#endif
}

const struct ggml_cpu_isa * ggml_cpu_isa(void) {
    return &g_isa;
}
