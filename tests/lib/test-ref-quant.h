/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Independent references shared by the matrix-product tests (test-mul-mat,
 * test-mul-mat-k, test-repack): a seeded generator, fp16 decoding and the
 * Q8_0/Q4_0 row decoders, written from the block formats, not from the
 * library's own code.
 */
#ifndef TEST_REF_QUANT_H
#define TEST_REF_QUANT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ggml.h"

/* Uniform in [0, 1) from the 64-bit LCG state @rng. */
static inline double test_urand(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*rng >> 11) / 9007199254740992.0;
}

static inline double half_to_double(uint16_t h)
{
	int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
	return s ? -v : v;
}

/* weights of a Q8_0/Q4_0 row, dequantized here */
static inline void dequant_row(enum ggml_type type, const uint8_t *p, int64_t k, double *out)
{
	for (int64_t b = 0; b < k / 32; b++) {
		uint16_t dh;
		if (type == GGML_TYPE_Q8_0) {
			memcpy(&dh, p + 34 * b, 2);
			for (int j = 0; j < 32; j++)
				out[32 * b + j] = half_to_double(dh) * (int8_t)p[34 * b + 2 + j];
		} else {
			memcpy(&dh, p + 18 * b, 2);
			for (int j = 0; j < 16; j++) {
				const uint8_t q = p[18 * b + 2 + j];
				out[32 * b + j] = half_to_double(dh) * ((q & 15) - 8);
				out[32 * b + 16 + j] = half_to_double(dh) * ((q >> 4) - 8);
			}
		}
	}
}

#endif
