/*
 * cpu-dl.c - the entry points of libggml-cpu.so as a backend module
 * (GGML_BACKEND_DL): ggml_backend_init() returns the CPU backend's
 * registration, ggml_backend_score() says it runs here. One build serves
 * every x86-64 (or AArch64) CPU, choosing its kernels at run time
 * (cpu-isa.c), so there is one variant and its score is 1.
 *
 * Built only into the shared library (mk/shlib.mk), never into the static
 * archive, where another backend's entry points would clash with these.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

static int cpu_backend_score(void) {
    return 1;
}

GGML_BACKEND_DL_IMPL(ggml_backend_cpu_reg)
GGML_BACKEND_DL_SCORE_IMPL(cpu_backend_score)
