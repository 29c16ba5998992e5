/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The byte format the validator fuzzer reads (and mkseeds writes):
 *
 *   struct fuzz_head
 *   slots   x ns, each (sizeof(struct drm_gaccel_slot)   [+ 8]) bytes
 *   tensors x nt, each (sizeof(struct drm_gaccel_tensor) [+ 8]) bytes
 *   nodes   x nn, each (sizeof(struct drm_gaccel_node)   [+ 8]) bytes
 *   the rest: bytes the slots are filled with when the graph runs
 *
 * An array whose FUZZ_WIDE_* flag is set has elements 8 bytes longer than
 * the kernel's structure (the uAPI lets newer userspace do that if the
 * tail is zero). Counts are taken modulo FUZZ_MAX_* + 1, so 0 happens.
 */
#ifndef GACCEL_FUZZ_INPUT_H
#define GACCEL_FUZZ_INPUT_H

#include <stdint.h>

#define FUZZ_MAX_SLOTS		8
#define FUZZ_MAX_TENSORS	16
#define FUZZ_MAX_NODES		8

#define FUZZ_WIDE_SLOTS		0x01u
#define FUZZ_WIDE_TENSORS	0x02u
#define FUZZ_WIDE_NODES		0x04u
#define FUZZ_AVX2		0x08u	/* run the AVX2 kernels, if the CPU has them */
#define FUZZ_NO_RUN		0x10u	/* validate only */

struct fuzz_head {
	uint8_t ns;
	uint8_t nt;
	uint8_t nn;
	uint8_t flags;
};

#endif
