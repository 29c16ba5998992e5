/*
 * gk-iq-tables.h - lookup tables of the i-quant and FP4 block formats
 * (gk-iq-tables.c). Grid entries pack 8 (uint64_t) or 4 (uint32_t) byte
 * values, the first value in the lowest byte.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_IQ_TABLES_H
#define GK_IQ_TABLES_H

#include "gk-types.h"

// 7 sign bits -> 8 sign bits with an even number of set bits (bit 7 is the
// parity of the 7 given ones): bit j set = value j of a group of 8 negative
extern const uint8_t  gk_ksigns_iq2xs[128];
extern const uint64_t gk_iq2xxs_grid[256];  // 8 magnitudes from {8, 25, 43}
extern const uint64_t gk_iq2xs_grid[512];   // 8 magnitudes from {8, 25, 43}
extern const uint64_t gk_iq2s_grid[1024];   // 8 magnitudes from {8, 25, 43}
extern const uint32_t gk_iq3xxs_grid[256];  // 4 magnitudes, odd, 4..62
extern const uint32_t gk_iq3s_grid[512];    // 4 magnitudes, odd, 1..15
extern const int8_t   gk_kvalues_iq4nl[16];
extern const int8_t   gk_kvalues_fp4[16];   // E2M1 values, doubled
extern const uint64_t gk_iq1s_grid[2048];   // 8 values from {-1, 0, 1} (as int8)

#define GK_IQ1S_DELTA 0.125f

#endif // GK_IQ_TABLES_H
