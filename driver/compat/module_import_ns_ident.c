// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Up to 6.12 MODULE_IMPORT_NS() takes a bare identifier, later a string. */
#include <linux/module.h>
MODULE_IMPORT_NS(DMA_BUF);
MODULE_LICENSE("Dual MIT/GPL");
