/*
 * repack-avx512.c - the int8 GEMM on repacked Q8_0/Q4_0 weight groups
 * (gk-repack.h) with AVX512-VNNI, 512-bit VPDPBUSD (one zmm holds a step of
 * all 16 rows); called only when ggml_cpu_isa()->use_vnni256 is set. The
 * same arithmetic as gk_gemm_q8x_vnni on a packed tile (quant-avx512.c),
 * but the weights are read where they are stored: Q8_0 bytes made unsigned
 * on the fly (xor 0x80, the activations' corr takes off 128 * sum), Q4_0
 * nibbles split off one load into the tile vectors of steps s and s + 4
 * (corr: 8 * sum), the 16 fp16 scales of a block converted at once. With
 * one column this is the matrix-vector product: one weight stream per 16
 * rows, one VPDPBUSD per 16 rows and 4 values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"
#include "gk-x86.h"

#include <immintrin.h>

// Bytes ahead of the block being read that are prefetched (0: none). A
// group is one sequential stream, which the hardware prefetchers follow
// once the buffer has huge pages (cpu-repack.c): none is best for both
// (bench-ops n = 1, 4096 x 14336, one thread, three alternating runs:
// Q4_0 plain/rp 1.11-1.22 without, 1.02-1.08 with 4096 bytes; Q8_0 0.85-0.89
// with 512 bytes into L1, 0.89-1.03 without, 2048 into L2 the same)
#ifndef RP_PF_Q4
#define RP_PF_Q4 0
#endif
#ifndef RP_PF_Q8
#define RP_PF_Q8 0
#endif

// Columns per tile, and the column count from which each column has one
// accumulator (below: two, so that few columns, decode above all, do not
// wait on one chain of VPDPBUSD latencies; 12 columns with two would need
// more than 32 registers). 4096 x 4096 Q4_0, n = 32, one thread: 8 columns
// (two accumulators) 2.53-2.69 ms, 12 2.29-2.50.
#ifndef RP_NC
#define RP_NC 12
#endif
#ifndef RP_NC_ONE
#define RP_NC_ONE 6
#endif

// 16 rows (one group) x NC columns. A step's 16 rows are one zmm (rows 0-7
// then 8-15, as in the packed tiles), one VPDPBUSD per step and column.
static GK_ALWAYS_INLINE void grp16(const bool q4, const int NC, int nkb, const uint8_t * g, int nrows,
                                   const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m512i m4 = _mm512_set1_epi8(0xF);
    const __m512i x80 = _mm512_set1_epi8((char) 0x80);
    __m512 f[RP_NC];
#pragma GCC unroll 16
    for (int j = 0; j < NC; j++) {
        f[j] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = g + (size_t) b * gsz;
        const size_t pf = q4 ? RP_PF_Q4 : RP_PF_Q8;
        if (pf > 0) {
#pragma GCC unroll 9
            for (size_t o = 0; o < gsz; o += 64) {
                _mm_prefetch((const char *) w + pf + o, _MM_HINT_T0);
            }
        }
        // two accumulators per column (Q4_0: low and high nibbles, Q8_0:
        // even and odd steps), so that few columns do not wait on a single
        // chain of VPDPBUSD latencies
        const bool two = NC < RP_NC_ONE;
        __m512i i0[RP_NC], k0[RP_NC];
#pragma GCC unroll 16
        for (int j = 0; j < NC; j++) {
            i0[j] = _mm512_set1_epi32(a[j * lda + b].corr);
            k0[j] = _mm512_setzero_si512();
        }
        const uint8_t * q = w + 2 * GK_RP_ROWS;
        if (q4) {
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const __m512i p = _mm512_loadu_si512((const void *) (q + 64 * s));
                const __m512i l = _mm512_and_si512(p, m4);
                const __m512i h = _mm512_and_si512(_mm512_srli_epi16(p, 4), m4);
#pragma GCC unroll 16
                for (int j = 0; j < NC; j++) {
                    i0[j] = _mm512_dpbusd_epi32(i0[j], l, _mm512_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s)));
                    const __m512i ah = _mm512_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s + 16));
                    if (two) {
                        k0[j] = _mm512_dpbusd_epi32(k0[j], h, ah);
                    } else {
                        i0[j] = _mm512_dpbusd_epi32(i0[j], h, ah);
                    }
                }
            }
        } else {
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                const __m512i wv = _mm512_xor_si512(_mm512_loadu_si512((const void *) (q + 64 * s)), x80);
#pragma GCC unroll 16
                for (int j = 0; j < NC; j++) {
                    const __m512i av = _mm512_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    if (s % 2 == 0 || !two) {
                        i0[j] = _mm512_dpbusd_epi32(i0[j], wv, av);
                    } else {
                        k0[j] = _mm512_dpbusd_epi32(k0[j], wv, av);
                    }
                }
            }
        }
        const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) w));
#pragma GCC unroll 16
        for (int j = 0; j < NC; j++) {
            f[j] = _mm512_fmadd_ps(_mm512_mul_ps(d, _mm512_set1_ps(a[j * lda + b].d)),
                                   _mm512_cvtepi32_ps(two ? _mm512_add_epi32(i0[j], k0[j]) : i0[j]), f[j]);
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= GK_RP_ROWS ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 16
    for (int j = 0; j < NC; j++) {
        float * cj = c + j * ldc;
        _mm512_mask_storeu_ps(cj, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, cj), f[j]));
    }
}

static GK_ALWAYS_INLINE void gemm(const bool q4, int nkb, const void * grp, int nrows, int ncols,
                                  const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    int j = 0;
    for (; j + RP_NC <= ncols; j += RP_NC) {
        grp16(q4, RP_NC, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc);
    }
    const gk_block_q8_0x * at = a + j * lda;
    float * ct = c + j * ldc;
    switch (ncols - j) {
#define T(n) case n: if (n < RP_NC) grp16(q4, n < RP_NC ? n : 1, nkb, g, nrows, at, lda, ct, ldc); break;
        T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(9) T(10) T(11) T(12) T(13) T(14) T(15)
#undef T
        default: break;
    }
}

void gk_rp_gemm_q8_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc) {
    gemm(false, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

void gk_rp_gemm_q4_0_vnni(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc) {
    gemm(true, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

// The matrix-vector product on ng (<= GK_RP_STREAMS) full groups at once:
// their blocks b read in the same loop, so that the weights come from ng
// memory streams (one thread reading one sequential stream does not get
// the DRAM bandwidth it gets from several). Per group the arithmetic of
// grp16 with one column, so that the results are the same to the bit.
static GK_ALWAYS_INLINE void grpv(const bool q4, const int NG, int nkb, const void * const * grp,
                                  const gk_block_q8_0x * a, float * const * c) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m512i m4 = _mm512_set1_epi8(0xF);
    const __m512i x80 = _mm512_set1_epi8((char) 0x80);
    __m512 f[GK_RP_STREAMS];
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        f[g] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        __m512i i0[GK_RP_STREAMS], k0[GK_RP_STREAMS];
        const __m512i corr = _mm512_set1_epi32(a[b].corr);
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            i0[g] = corr;
            k0[g] = _mm512_setzero_si512();
        }
        if (q4) {
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const __m512i al = _mm512_set1_epi32(gk_ld32(a[b].qs + 4 * s));
                const __m512i ah = _mm512_set1_epi32(gk_ld32(a[b].qs + 4 * s + 16));
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
                    const uint8_t * q = (const uint8_t *) grp[g] + (size_t) b * gsz + 2 * GK_RP_ROWS;
                    const __m512i p = _mm512_loadu_si512((const void *) (q + 64 * s));
                    const __m512i l = _mm512_and_si512(p, m4);
                    const __m512i h = _mm512_and_si512(_mm512_srli_epi16(p, 4), m4);
                    i0[g] = _mm512_dpbusd_epi32(i0[g], l, al);
                    k0[g] = _mm512_dpbusd_epi32(k0[g], h, ah);
                }
            }
        } else {
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                const __m512i av = _mm512_set1_epi32(gk_ld32(a[b].qs + 4 * s));
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
                    const uint8_t * q = (const uint8_t *) grp[g] + (size_t) b * gsz + 2 * GK_RP_ROWS;
                    const __m512i wv = _mm512_xor_si512(_mm512_loadu_si512((const void *) (q + 64 * s)), x80);
                    if (s % 2 == 0) {
                        i0[g] = _mm512_dpbusd_epi32(i0[g], wv, av);
                    } else {
                        k0[g] = _mm512_dpbusd_epi32(k0[g], wv, av);
                    }
                }
            }
        }
        const __m512 ad = _mm512_set1_ps(a[b].d);
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            const uint8_t * w = (const uint8_t *) grp[g] + (size_t) b * gsz;
            const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) w));
            f[g] = _mm512_fmadd_ps(_mm512_mul_ps(d, ad), _mm512_cvtepi32_ps(_mm512_add_epi32(i0[g], k0[g])), f[g]);
        }
    }
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        _mm512_storeu_ps(c[g], _mm512_add_ps(_mm512_loadu_ps(c[g]), f[g]));
    }
}

GK_RP_GEMV_ENTRIES(vnni)
