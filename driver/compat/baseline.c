// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Always compiles: tells a missing feature from a broken probe setup. */
#include <linux/module.h>
MODULE_LICENSE("Dual MIT/GPL");
