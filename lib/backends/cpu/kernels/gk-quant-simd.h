/*
 * gk-quant-simd.h - SIMD dots of the types of gk-quant-ext.h: the same
 * sums as the portable kernels of quant-unpack.c (integer sums per group
 * exact; the float sums of the group maps may round differently).
 * Call them only after checking the CPU (cpu-quant-types.c does).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_QUANT_SIMD_H
#define GK_QUANT_SIMD_H

#include "gk-quant-ext.h"

#if defined(__x86_64__)
// AVX2 (quant-iq-x86.c, quant-k-x86.c, quant-legacy-x86.c)
float gk_dot_iq4_nl_q8_0_avx2(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y);
float gk_dot_mxfp4_q8_0_avx2(int64_t n, const gk_block_mxfp4 * x, const gk_block_q8_0 * y);
float gk_dot_iq4_xs_q8_K_avx2(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y);
float gk_dot_q2_K_q8_K_avx2(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y);
float gk_dot_q3_K_q8_K_avx2(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y);
float gk_dot_q5_K_q8_K_avx2(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y);
float gk_dot_q4_1_q8_1_avx2(int64_t n, const gk_block_q4_1 * x, const gk_block_q8_1 * y);
float gk_dot_q5_1_q8_1_avx2(int64_t n, const gk_block_q5_1 * x, const gk_block_q8_1 * y);
float gk_dot_q5_0_q8_0_avx2(int64_t n, const gk_block_q5_0 * x, const gk_block_q8_0 * y);
float gk_dot_q8_1_q8_1_avx2(int64_t n, const gk_block_q8_1 * x, const gk_block_q8_1 * y);
float gk_dot_nvfp4_q8_0_avx2(int64_t n, const gk_block_nvfp4 * x, const gk_block_q8_0 * y);
float gk_dot_tq2_0_q8_K_avx2(int64_t n, const gk_block_tq2_0 * x, const gk_block_q8_K * y);
// AVX2 (quant-iqgrid-x86.c)
float gk_dot_iq2_xxs_q8_K_avx2(int64_t n, const gk_block_iq2_xxs * x, const gk_block_q8_K * y);
float gk_dot_iq2_xs_q8_K_avx2(int64_t n, const gk_block_iq2_xs * x, const gk_block_q8_K * y);
float gk_dot_iq2_s_q8_K_avx2(int64_t n, const gk_block_iq2_s * x, const gk_block_q8_K * y);
float gk_dot_iq3_xxs_q8_K_avx2(int64_t n, const gk_block_iq3_xxs * x, const gk_block_q8_K * y);
float gk_dot_iq3_s_q8_K_avx2(int64_t n, const gk_block_iq3_s * x, const gk_block_q8_K * y);
float gk_dot_iq1_s_q8_K_avx2(int64_t n, const gk_block_iq1_s * x, const gk_block_q8_K * y);
// AVX512F/BW/VL + VNNI, 256-bit (quant-k-avx512.c, quant-iq-avx512.c):
// only when ggml_cpu_isa()->use_vnni256
float gk_dot_q5_K_q8_K_avx512(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y);
float gk_dot_q3_K_q8_K_avx512(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y);
float gk_dot_q2_K_q8_K_avx512(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y);
float gk_dot_iq4_xs_q8_K_avx512(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y);
float gk_dot_iq4_nl_q8_0_avx512(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y);
#endif

#if defined(__aarch64__)
// NEON (quant-iq-neon.c, quant-k-neon.c, quant-legacy-neon.c)
float gk_dot_iq4_nl_q8_0_neon(int64_t n, const gk_block_iq4_nl * x, const gk_block_q8_0 * y);
float gk_dot_mxfp4_q8_0_neon(int64_t n, const gk_block_mxfp4 * x, const gk_block_q8_0 * y);
float gk_dot_iq4_xs_q8_K_neon(int64_t n, const gk_block_iq4_xs * x, const gk_block_q8_K * y);
float gk_dot_q2_K_q8_K_neon(int64_t n, const gk_block_q2_K * x, const gk_block_q8_K * y);
float gk_dot_q3_K_q8_K_neon(int64_t n, const gk_block_q3_K * x, const gk_block_q8_K * y);
float gk_dot_q5_K_q8_K_neon(int64_t n, const gk_block_q5_K * x, const gk_block_q8_K * y);
float gk_dot_q4_1_q8_1_neon(int64_t n, const gk_block_q4_1 * x, const gk_block_q8_1 * y);
float gk_dot_q5_1_q8_1_neon(int64_t n, const gk_block_q5_1 * x, const gk_block_q8_1 * y);
float gk_dot_q5_0_q8_0_neon(int64_t n, const gk_block_q5_0 * x, const gk_block_q8_0 * y);
float gk_dot_q8_1_q8_1_neon(int64_t n, const gk_block_q8_1 * x, const gk_block_q8_1 * y);
// NEON (quant-iqgrid-neon.c)
float gk_dot_iq2_xxs_q8_K_neon(int64_t n, const gk_block_iq2_xxs * x, const gk_block_q8_K * y);
float gk_dot_iq2_xs_q8_K_neon(int64_t n, const gk_block_iq2_xs * x, const gk_block_q8_K * y);
float gk_dot_iq2_s_q8_K_neon(int64_t n, const gk_block_iq2_s * x, const gk_block_q8_K * y);
float gk_dot_iq3_xxs_q8_K_neon(int64_t n, const gk_block_iq3_xxs * x, const gk_block_q8_K * y);
float gk_dot_iq3_s_q8_K_neon(int64_t n, const gk_block_iq3_s * x, const gk_block_q8_K * y);
float gk_dot_iq1_s_q8_K_neon(int64_t n, const gk_block_iq1_s * x, const gk_block_q8_K * y);
#endif

#endif // GK_QUANT_SIMD_H
