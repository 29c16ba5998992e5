/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Independent references shared by the matrix-product tests (test-mul-mat,
 * test-mul-mat-k, test-repack): a seeded generator, fp16 decoding and the
 * Q8_0/Q4_0/Q4_K/Q6_K row decoders, written from the block formats, not
 * from the library's own code.
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

/* a Q4_K row (144-byte blocks: d, dmin, 12 bytes of 6-bit scales and
 * mins, 128 bytes of nibbles; value 32 j + i is nibble j % 2 of byte
 * 32 (j / 2) + i, times d * sc_j, less dmin * m_j) */
static inline void dequant_row_q4_K(const uint8_t *p, int64_t k, double *out)
{
	for (int64_t b = 0; b < k / 256; b++, p += 144) {
		uint16_t dh, mh;
		memcpy(&dh, p, 2);
		memcpy(&mh, p + 2, 2);
		const uint8_t *s = p + 4, *qs = p + 16;
		for (int j = 0; j < 8; j++) {
			const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
			const int m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | (s[j] >> 6) << 4;
			for (int i = 0; i < 32; i++) {
				const int q = (qs[32 * (j / 2) + i] >> (4 * (j % 2))) & 15;
				out[256 * b + 32 * j + i] = half_to_double(dh) * sc * q - half_to_double(mh) * m;
			}
		}
	}
}

/* a Q6_K row (210-byte blocks: 128 bytes of low nibbles, 64 of high bit
 * pairs, 16 int8 scales of 16 values, d; value l = 128 h + v takes the
 * nibble v / 64 of byte 64 h + v % 64 and the bits 2 (v / 32) of byte
 * 32 h + v % 32, offset 32) */
static inline void dequant_row_q6_K(const uint8_t *p, int64_t k, double *out)
{
	for (int64_t b = 0; b < k / 256; b++, p += 210) {
		uint16_t dh;
		memcpy(&dh, p + 208, 2);
		for (int l = 0; l < 256; l++) {
			const int h = l / 128, v = l % 128;
			const int lo = (p[64 * h + v % 64] >> (4 * (v / 64))) & 15;
			const int hi = (p[128 + 32 * h + v % 32] >> (2 * (v / 32))) & 3;
			out[256 * b + l] = half_to_double(dh) * (int8_t)p[192 + l / 16] * ((lo | hi << 4) - 32);
		}
	}
}

/* weights of a Q8_0/Q4_0/Q4_K/Q6_K row, dequantized here */
static inline void dequant_row(enum ggml_type type, const uint8_t *p, int64_t k, double *out)
{
	if (type == GGML_TYPE_Q4_K) {
		dequant_row_q4_K(p, k, out);
		return;
	}
	if (type == GGML_TYPE_Q6_K) {
		dequant_row_q6_K(p, k, out);
		return;
	}
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
