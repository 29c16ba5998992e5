/*
 * gk-types.h - the few types the freestanding compute kernels use.
 *
 * Everything under kernels/ is freestanding C: no libc calls, no allocation,
 * no global state, so that the same sources build into libggml-backend and
 * into gaccel.ko's reference engine.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_TYPES_H
#define GK_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif // GK_TYPES_H
