// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * NEON vec kernels of the userspace CPU backend, built into the
 * reference engine on arm64 with FP/SIMD enabled (see Kbuild). Called only
 * inside kernel_fpu_begin()/end() sections.
 */

/*
 * <arm_neon.h> includes <stdint.h>: the kernel's own types stand in for it
 * (the compiler's wrapper would want libc's).
 */
#include <linux/types.h>
#define _GCC_WRAP_STDINT_H

/* sparse cannot parse the compiler's intrinsics headers: it skips this. */
#ifndef __CHECKER__
#include "vec-neon.c"
#endif
