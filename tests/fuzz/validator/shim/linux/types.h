/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Userspace stand-in for <linux/types.h>: the uAPI types of the system's
 * header (__u32, __u64, ...) and the kernel's short names, with the
 * kernel's choice of long long for 64 bits (so that %llu matches u64).
 */
#ifndef GACCEL_SHIM_LINUX_TYPES_H
#define GACCEL_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef u32 gfp_t;

#endif
