// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AVX2 int8 GEMM kernels of the userspace CPU backend (packers of Q8_0 and
 * Q4_0 weight tiles and the GEMM of a packed tile with Q8_0x columns),
 * built into the reference engine with the FPU and AVX2/FMA/F16C enabled
 * (see Kbuild). Called only inside kernel_fpu_begin()/end() sections, and
 * only after gaccel_ref.c found all three extensions on the CPU.
 */

/* <immintrin.h> would pull in <mm_malloc.h>, which needs libc. */
#define _MM_MALLOC_H_INCLUDED

/* sparse cannot parse the compiler's intrinsics headers: it skips this. */
#ifndef __CHECKER__
#include "quant-gemm-x86.c"
#endif
