/*
 * gk-attn.h - freestanding attention kernels (FLASH_ATTN_EXT with F16 K and
 * V): the two products of a block of up to 4 query rows with a chunk of keys.
 *
 *   gk_fa_qk_f16_*: s[i*lds + j]  = sum_l q[i*ldq + l] * K[j*ldk + l]
 *                   (i < m <= 4, j < n, l < dk; overwrites s)
 *   gk_fa_pv_f16_*: o[i*ldo + d] += sum_j p[i*ldp + j] * V[j*ldv + d]
 *                   (i < m <= 4, j < n, d < dv)
 *
 * q, p, s, o are F32; K and V rows are F16 (strides in elements), widened
 * in registers, so each K/V element is loaded once per block of queries.
 * Float accumulation (8 or 4 lanes, then a horizontal sum). The online
 * softmax between the two is the caller's (cpu-ops.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_ATTN_H
#define GK_ATTN_H

#include "gk-types.h"

#define GK_FA_MAX_ROWS 4

#if defined(__x86_64__)
void gk_fa_qk_f16_avx2(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds);
void gk_fa_pv_f16_avx2(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo);
#endif

#if defined(__aarch64__)
void gk_fa_qk_f16_neon(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds);
void gk_fa_pv_f16_neon(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo);
#endif

#endif // GK_ATTN_H
