/*
 * repack-avxvnni.c - the int8 GEMMs and one-column products of repack-x86.c
 * on repacked Q8_0/Q4_0 groups for CPUs with AVX-VNNI but no AVX512
 * (gk_rp_gemm_q8_0_avxvnni, gk_rp_gemm_q4_0_avxvnni, gk_rp_gemv_*_avxvnni):
 * built with AVX2/FMA/F16C and AVX-VNNI enabled (mk/lib.mk, *-avxvnni.c),
 * each product step one VEX-encoded VPDPBUSD (gk_dp16, gk_dp32 in gk-x86.h).
 * The same integer sums, so the same bits as the AVX2 build. Called only
 * when ggml_cpu_isa()->use_avxvnni.
 *
 * SPDX-License-Identifier: MIT
 */
#define GK_AVXVNNI 1
#include "repack-x86.c"
