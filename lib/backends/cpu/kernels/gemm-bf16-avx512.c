/*
 * gemm-bf16-avx512.c - BF16 GEMM on the AVX512-BF16 dot-product instruction
 * (VDPBF16PS: sixteen F32 lanes, each adding the products of a pair of BF16
 * values), for MUL_MAT's GEMM path with BF16 weights.
 *
 * The weights' rows are packed into a panel of 32 rows per pair of K
 * values (gk_bf16_pack_panel_avx512bf16: one 32-bit word per row and pair,
 * 32 words a pair), so that one K pair of 32 rows is two vectors; each
 * activation column's pair is broadcast against them. A tile keeps 32
 * rows x 12 columns of sums in 24 registers, which land as rows of the
 * destination (rows of a column are contiguous there): no horizontal sums,
 * no transposes.
 *
 * Call only when the CPU has AVX512F and AVX512-BF16 (ggml_cpu_isa()->
 * use_bf16dp).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512bf16")

#include "gk-vec.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

// rows per panel, columns per tile
#define PR 32
#define NR 12

void gk_bf16_pack_panel_avx512bf16(const uint16_t * w, int64_t ldw, int nrows, int k, uint32_t * panel) {
    const int np = k / 2;
    int r = 0;
    for (; r < nrows; r++) {
        // (a pair may sit at any 2-byte boundary: rows of odd length)
        const uint16_t * row = w + (size_t) r * (size_t) ldw;
        for (int p = 0; p < np; p++) {
            uint32_t v;
            memcpy(&v, row + 2 * p, sizeof(v));
            panel[(size_t) p * PR + (size_t) r] = v;
        }
    }
    for (; r < PR; r++) {
        for (int p = 0; p < np; p++) {
            panel[(size_t) p * PR + (size_t) r] = 0;
        }
    }
}

// C[j][0..32) += panel . A[j] for nc (<= NR) columns, masks for the rows
static inline __attribute__((always_inline)) void tile(int nc, int np, const uint32_t * panel, const uint16_t * a, int64_t lda, float * c, int64_t ldc,
                        __mmask16 m0, __mmask16 m1) {
    __m512 acc0[NR], acc1[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; j++) {
        acc0[j] = _mm512_setzero_ps();
        acc1[j] = _mm512_setzero_ps();
    }
    const uint32_t * acol[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; j++) {
        acol[j] = (const uint32_t *) (const void *) (a + (size_t) (j < nc ? j : 0) * (size_t) lda);
    }
    for (int p = 0; p < np; p++) {
        const __m512bh w0 = (__m512bh) _mm512_loadu_si512(panel + (size_t) p * PR);
        const __m512bh w1 = (__m512bh) _mm512_loadu_si512(panel + (size_t) p * PR + 16);
#pragma GCC unroll 12
        for (int j = 0; j < NR; j++) {
            if (j < nc) {
                const __m512bh x = (__m512bh) _mm512_set1_epi32((int) acol[j][p]);
                acc0[j] = _mm512_dpbf16_ps(acc0[j], w0, x);
                acc1[j] = _mm512_dpbf16_ps(acc1[j], w1, x);
            }
        }
    }
#pragma GCC unroll 12
    for (int j = 0; j < nc; j++) {
        float * cj = c + (size_t) j * (size_t) ldc;
        _mm512_mask_storeu_ps(cj, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cj), acc0[j]));
        _mm512_mask_storeu_ps(cj + 16, m1, _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cj + 16), acc1[j]));
    }
}

// with nc a constant, the compiler keeps the sums in registers
#define TILE_N(n)                                                                                                    \
    static void tile_##n(int np, const uint32_t * panel, const uint16_t * a, int64_t lda, float * c, int64_t ldc,    \
                         __mmask16 m0, __mmask16 m1) {                                                               \
        tile(n, np, panel, a, lda, c, ldc, m0, m1);                                                                  \
    }
TILE_N(12)
TILE_N(8)
TILE_N(4)
TILE_N(2)
TILE_N(1)

void gk_gemm_nt_bf16_avx512bf16(int m, int nrows, int k, const uint16_t * a, int64_t lda, const uint32_t * panel,
                                float * c, int64_t ldc) {
    const int np = k / 2;
    const __mmask16 m0 = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
    const __mmask16 m1 = (__mmask16) (nrows >= PR ? 0xffff : nrows > 16 ? (1u << (nrows - 16)) - 1 : 0);
    int j = 0;
    for (; j + 12 <= m; j += 12) {
        tile_12(np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1);
    }
    for (; j + 8 <= m; j += 8) {
        tile_8(np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1);
    }
    for (; j + 4 <= m; j += 4) {
        tile_4(np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1);
    }
    for (; j + 2 <= m; j += 2) {
        tile_2(np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1);
    }
    for (; j < m; j++) {
        tile_1(np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1);
    }
}
#endif
