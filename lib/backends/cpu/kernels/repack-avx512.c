/*
 * repack-avx512.c - the int8 GEMM on repacked Q8_0/Q4_0 weight groups
 * (gk-repack.h) with AVX512-VNNI, 256-bit VPDPBUSD; called only when
 * ggml_cpu_isa()->use_vnni256 is set. The same arithmetic as
 * gk_gemm_q8x_vnni on a packed tile (quant-avx512.c), but the weights are
 * read where they are stored: Q8_0 bytes made unsigned on the fly (xor
 * 0x80, the activations' corr takes off 128 * sum), Q4_0 nibbles split off
 * one load into the tile vectors of steps s and s + 4 (corr: 8 * sum), the
 * 16 fp16 scales of a block converted at once. With one column this is the
 * matrix-vector product: one weight stream per 16 rows, one VPDPBUSD per 8
 * rows and 4 values.
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

static GK_ALWAYS_INLINE void grp16(const bool q4, const int NC, int nkb, const uint8_t * g, int nrows,
                                   const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m256i m4 = _mm256_set1_epi8(0xF);
    const __m256i x80 = _mm256_set1_epi8((char) 0x80);
    __m256 f0[4], f1[4];
#pragma GCC unroll 4
    for (int j = 0; j < NC; j++) {
        f0[j] = _mm256_setzero_ps();
        f1[j] = _mm256_setzero_ps();
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
        // two accumulators per 8 rows and column (Q4_0: low and high
        // nibbles, Q8_0: even and odd steps), so that one column does not
        // wait on a single chain of VPDPBUSD latencies
        __m256i i0[4], i1[4], k0[4], k1[4];
#pragma GCC unroll 4
        for (int j = 0; j < NC; j++) {
            i0[j] = _mm256_set1_epi32(a[j * lda + b].corr);
            i1[j] = i0[j];
            k0[j] = _mm256_setzero_si256();
            k1[j] = k0[j];
        }
        const uint8_t * q = w + 2 * GK_RP_ROWS;
        if (q4) {
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const __m256i p0 = _mm256_loadu_si256((const __m256i *) (q + 64 * s));
                const __m256i p1 = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32));
                const __m256i l0 = _mm256_and_si256(p0, m4);
                const __m256i l1 = _mm256_and_si256(p1, m4);
                const __m256i h0 = _mm256_and_si256(_mm256_srli_epi16(p0, 4), m4);
                const __m256i h1 = _mm256_and_si256(_mm256_srli_epi16(p1, 4), m4);
#pragma GCC unroll 4
                for (int j = 0; j < NC; j++) {
                    const __m256i al = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    const __m256i ah = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s + 16));
                    i0[j] = _mm256_dpbusd_epi32(i0[j], l0, al);
                    i1[j] = _mm256_dpbusd_epi32(i1[j], l1, al);
                    k0[j] = _mm256_dpbusd_epi32(k0[j], h0, ah);
                    k1[j] = _mm256_dpbusd_epi32(k1[j], h1, ah);
                }
            }
        } else {
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                const __m256i w0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (q + 64 * s)), x80);
                const __m256i w1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (q + 64 * s + 32)), x80);
#pragma GCC unroll 4
                for (int j = 0; j < NC; j++) {
                    const __m256i av = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    if (s % 2 == 0) {
                        i0[j] = _mm256_dpbusd_epi32(i0[j], w0, av);
                        i1[j] = _mm256_dpbusd_epi32(i1[j], w1, av);
                    } else {
                        k0[j] = _mm256_dpbusd_epi32(k0[j], w0, av);
                        k1[j] = _mm256_dpbusd_epi32(k1[j], w1, av);
                    }
                }
            }
        }
        const __m256 d0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) w));
        const __m256 d1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + 16)));
#pragma GCC unroll 4
        for (int j = 0; j < NC; j++) {
            const __m256 da = _mm256_set1_ps(a[j * lda + b].d);
            f0[j] = _mm256_fmadd_ps(_mm256_mul_ps(d0, da), _mm256_cvtepi32_ps(_mm256_add_epi32(i0[j], k0[j])), f0[j]);
            f1[j] = _mm256_fmadd_ps(_mm256_mul_ps(d1, da), _mm256_cvtepi32_ps(_mm256_add_epi32(i1[j], k1[j])), f1[j]);
        }
    }
    const __mmask8 m0 = (__mmask8) (nrows >= 8 ? 0xff : (1u << nrows) - 1);
    const __mmask8 m1 = (__mmask8) (nrows >= 16 ? 0xff : nrows <= 8 ? 0 : (1u << (nrows - 8)) - 1);
#pragma GCC unroll 4
    for (int j = 0; j < NC; j++) {
        float * cj = c + j * ldc;
        _mm256_mask_storeu_ps(cj, m0, _mm256_add_ps(_mm256_maskz_loadu_ps(m0, cj), f0[j]));
        _mm256_mask_storeu_ps(cj + 8, m1, _mm256_add_ps(_mm256_maskz_loadu_ps(m1, cj + 8), f1[j]));
    }
}

#define RP_NC 4

static GK_ALWAYS_INLINE void gemm(const bool q4, int nkb, const void * grp, int nrows, int ncols,
                                  const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    int j = 0;
    for (; j + RP_NC <= ncols; j += RP_NC) {
        grp16(q4, RP_NC, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc);
    }
    switch (ncols - j) {
        case 1: grp16(q4, 1, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc); break;
        case 2: grp16(q4, 2, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc); break;
        case 3: grp16(q4, 3, nkb, g, nrows, a + j * lda, lda, c + j * ldc, ldc); break;
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
