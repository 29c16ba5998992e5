/*
 * quant-gemm-avxvnni.c - the int8 GEMMs of quant-gemm-x86.c for CPUs with
 * AVX-VNNI but no AVX512 (gk_gemm_q4x_avxvnni, gk_gemm_q8s_avxvnni,
 * gk_gemm_q8s_min_avxvnni): built with AVX2/FMA/F16C and AVX-VNNI enabled
 * (mk/lib.mk, *-avxvnni.c), each step one VEX-encoded VPDPBUSD where the
 * AVX2 GEMMs take VPMADDUBSW and VPMADDWD. Same tiles (packed by the AVX2
 * packers), same results to the bit. Called only when
 * ggml_cpu_isa()->use_avxvnni. Not part of the kernel module build.
 *
 * SPDX-License-Identifier: MIT
 */
#define GK_AVXVNNI 1
#include "quant-gemm-x86.c"
