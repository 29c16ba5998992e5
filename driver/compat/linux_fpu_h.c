// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* <linux/fpu.h>, kernel_fpu_begin() for every architecture (6.10+). */
#include <linux/module.h>
#include <linux/fpu.h>
MODULE_LICENSE("Dual MIT/GPL");
