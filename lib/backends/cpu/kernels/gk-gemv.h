/*
 * gk-gemv.h - few-column products of float weights (MUL_MAT below the
 * float GEMM's column count): m weight rows by n activation columns,
 *
 *   d[j * ldd + i] = sum_{l < k} w[i * ldw + l] * y[j * ldy + l],
 *   i < m, j < n (strides in elements; d is stored, not added to).
 *
 * Register tiles of a few weight rows x a few columns accumulate along K in
 * vector lanes: each weight vector is loaded once per tile and used for
 * every column of it, the horizontal sums come once per tile at the end.
 * Columns beyond the widest tile are taken in balanced blocks; rows beyond
 * the tiles' multiple one at a time. Any k (the tail below the vector width
 * in scalar code), any m and n >= 1.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_GEMV_H
#define GK_GEMV_H

#include <stddef.h>
#include <stdint.h>

// One column (decode) on several memory streams: ns <= GK_GEMV_STREAMS
// blocks of m weight rows each (block s: rows ldb bytes apart from w[s]),
// read in the same loop, into d[s][0, m). Each row's sum is made exactly
// as by the few-column tiles of the same ISA with n = 1 (the same lanes,
// the same order), so the results are the same bits. y is F32, or BF16
// for gk_gemv1_bf16_bf16_avx512bf16.
#define GK_GEMV_STREAMS 4
typedef void (*gk_gemv1_fn)(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                            float * const * d);

#if defined(__x86_64__)
// AVX2/FMA/F16C (gemv-float-x86.c): F16 widened by VCVTPH2PS, BF16 by a
// shift; tiles of 4 rows x up to 3 columns
void gk_gemv_f32_avx2(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy, float * d,
                      int64_t ldd);
void gk_gemv_f16_avx2(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                      float * d, int64_t ldd);
void gk_gemv_bf16_avx2(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                       float * d, int64_t ldd);
// AVX512F (gemv-float-avx512.c), where ggml_cpu_isa()->use_avx512f: the
// same on 512-bit vectors, tiles of 4 rows x up to 6 columns
void gk_gemv_f32_avx512(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd);
void gk_gemv_f16_avx512(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                        float * d, int64_t ldd);
void gk_gemv_bf16_avx512(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                         float * d, int64_t ldd);
// AVX512-BF16 (gemv-bf16-avx512.c), where ggml_cpu_isa()->use_bf16dp: BF16
// weights by BF16 activations (rounded by the caller, as upstream's
// vec_dot_type for BF16 is) on VDPBF16PS, sums in F32
void gk_gemv_bf16_bf16_avx512bf16(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const uint16_t * y,
                                  int64_t ldy, float * d, int64_t ldd);
void gk_gemv1_f32_avx2(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y, float * const * d);
void gk_gemv1_f16_avx2(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y, float * const * d);
void gk_gemv1_bf16_avx2(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                        float * const * d);
void gk_gemv1_f32_avx512(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                         float * const * d);
void gk_gemv1_f16_avx512(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                         float * const * d);
void gk_gemv1_bf16_avx512(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                          float * const * d);
void gk_gemv1_bf16_bf16_avx512bf16(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                                   float * const * d);
#endif

#if defined(__aarch64__)
// NEON (gemv-float-neon.c): F16 widened by FCVTL, BF16 by a shift; tiles of
// 4 rows x up to 4 columns
void gk_gemv_f32_neon(int64_t k, const float * w, int64_t ldw, int m, int n, const float * y, int64_t ldy, float * d,
                      int64_t ldd);
void gk_gemv_f16_neon(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                      float * d, int64_t ldd);
void gk_gemv_bf16_neon(int64_t k, const uint16_t * w, int64_t ldw, int m, int n, const float * y, int64_t ldy,
                       float * d, int64_t ldd);
void gk_gemv1_f32_neon(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y, float * const * d);
void gk_gemv1_f16_neon(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y, float * const * d);
void gk_gemv1_bf16_neon(int64_t k, int ns, const void * const * w, size_t ldb, int m, const void * y,
                        float * const * d);
#endif

#endif
