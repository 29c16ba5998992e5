/*
 * repack-k-avxvnni.c - the int8 GEMMs of repack-k-x86.c on repacked
 * Q4_K/Q6_K groups for CPUs with AVX-VNNI but no AVX512
 * (gk_rp_gemm_q4_K_avxvnni, gk_rp_gemm_q6_K_avxvnni): built with
 * AVX2/FMA/F16C and AVX-VNNI enabled (mk/lib.mk, *-avxvnni.c), each product
 * step one VEX-encoded VPDPBUSD. The same integer sums, so the same bits as
 * the AVX2 build. Called only when ggml_cpu_isa()->use_avxvnni.
 *
 * SPDX-License-Identifier: MIT
 */
#define GK_AVXVNNI 1
#include "repack-k-x86.c"
