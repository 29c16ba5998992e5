/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Userspace stand-in for the kernel header of this name: see kshim.h. */
#include "../kshim.h"
