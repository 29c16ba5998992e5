/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Userspace stand-in for the kernel header of this name: see kshim.h. */
#include "../kshim.h"

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};
