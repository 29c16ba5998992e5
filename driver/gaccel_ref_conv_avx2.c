// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AVX2/F16C row converters of the userspace CPU backend (F16 and BF16 to
 * F32 and back), built into the reference engine with the FPU and
 * AVX2/FMA/F16C enabled (see Kbuild). Called only inside
 * kernel_fpu_begin()/end() sections, and only after gaccel_ref.c found all
 * three extensions on the CPU.
 */

/* <immintrin.h> would pull in <mm_malloc.h>, which needs libc. */
#define _MM_MALLOC_H_INCLUDED

/* sparse cannot parse the compiler's intrinsics headers: it skips this. */
#ifndef __CHECKER__
#include "convert-x86.c"
#endif
