/*
 * gemm-bf16-avx512.c - BF16 GEMM on the AVX512-BF16 dot-product instruction
 * (VDPBF16PS: sixteen F32 lanes, each adding the products of a pair of BF16
 * values), for MUL_MAT's GEMM path with BF16 weights.
 *
 * The weights' rows are packed into a panel of 32 rows per pair of K
 * values (gk_bf16_pack_panel_avx512bf16: one 32-bit word per row and pair,
 * 32 words a pair; blocks of 16 pairs of 16 rows transposed in registers
 * as 32-bit words), so that one K pair of 32 rows is two vectors; each
 * activation column's pair is broadcast against them. A tile keeps 32
 * rows x 12 columns of sums in 24 registers, which land as rows of the
 * destination (rows of a column are contiguous there): no horizontal sums,
 * no transposes of the output. The shape of gemm-f32-avx512.c, with a K
 * pair per step; like it, the tiles prefetch what the caller packs next
 * (the same rows' next K block), which the hardware prefetchers miss.
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

// r[0..16) (16 rows of 16 32-bit words) -> r[i] = word i of the 16 rows
static inline __attribute__((always_inline)) void transpose16(__m512i r[16]) {
    __m512i t[16];
    // pairs of rows: 2x2 blocks of single words
#pragma GCC unroll 8
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    // quads of rows: 2x2 blocks of word pairs
#pragma GCC unroll 4
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    // r[4q + s] holds, in each 128-bit lane l, word 4l + s of rows
    // 4q..4q+3: gather the lanes in two rounds
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++) {
        t[s] = _mm512_shuffle_i32x4(r[s], r[4 + s], 0x88);
        t[4 + s] = _mm512_shuffle_i32x4(r[s], r[4 + s], 0xdd);
        t[8 + s] = _mm512_shuffle_i32x4(r[8 + s], r[12 + s], 0x88);
        t[12 + s] = _mm512_shuffle_i32x4(r[8 + s], r[12 + s], 0xdd);
    }
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++) {
        r[s] = _mm512_shuffle_i32x4(t[s], t[8 + s], 0x88);
        r[8 + s] = _mm512_shuffle_i32x4(t[s], t[8 + s], 0xdd);
        r[4 + s] = _mm512_shuffle_i32x4(t[4 + s], t[12 + s], 0x88);
        r[12 + s] = _mm512_shuffle_i32x4(t[4 + s], t[12 + s], 0xdd);
    }
}

// 16 rows (nr of them real, the others zero) from row0 (rows ldw values
// apart) into panel columns r0..r0+16, np pairs: blocks of 16 pairs (64
// bytes of each row) transposed in registers, the rest one word at a time
static inline __attribute__((always_inline)) void pack16(int nr, const uint16_t * row0, int64_t ldw, int np,
                                                         uint32_t * panel) {
    const size_t stride = (size_t) ldw * sizeof(uint16_t);
    int p = 0;
    for (; p + 16 <= np; p += 16) {
        __m512i v[16];
        const char * q = (const char *) (row0 + 2 * (size_t) p);
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            v[i] = i < nr ? _mm512_loadu_si512(q) : _mm512_setzero_si512();
            q += stride;
            // one pointer walking the rows
            __asm__("" : "+r"(q));
        }
        transpose16(v);
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            _mm512_storeu_si512(panel + (size_t) (p + i) * PR, v[i]);
        }
    }
    for (; p < np; p++) {
        uint32_t * o = panel + (size_t) p * PR;
        for (int i = 0; i < 16; i++) {
            uint32_t v = 0;
            // (a pair may sit at any 2-byte boundary: rows of odd length)
            if (i < nr) {
                memcpy(&v, (const char *) row0 + (size_t) i * stride + 4 * (size_t) p, sizeof(v));
            }
            o[i] = v;
        }
    }
}

void gk_bf16_pack_panel_avx512bf16(const uint16_t * w, int64_t ldw, int nrows, int k, uint32_t * panel) {
    const int np = k / 2;
    for (int r0 = 0; r0 < PR; r0 += 16) {
        const int nr = nrows - r0 < 16 ? (nrows - r0 > 0 ? nrows - r0 : 0) : 16;
        const uint16_t * row0 = w + (size_t) r0 * (size_t) ldw;
        if (nr == 16) {
            pack16(16, row0, ldw, np, panel + r0);
        } else if (nr > 0) {
            pack16(nr, row0, ldw, np, panel + r0);
        } else {
            for (int p = 0; p < np; p++) {
                _mm512_storeu_si512(panel + (size_t) p * PR + r0, _mm512_setzero_si512());
            }
        }
    }
}

// Lines of memory to prefetch while the tiles run: n lines from row, at
// offset off, rows of len bytes (a multiple of 64) ld bytes apart
struct pf {
    const char * row;
    int64_t ld;
    int len, off, n;
};

// C[j][0..32) += panel . A[j] for nc (<= NR) columns, masks for the rows;
// meanwhile up to one line of *pf per K pair (16 per 16 pairs)
static inline __attribute__((always_inline)) void tile(int nc, int np, const uint32_t * panel, const uint16_t * a,
                                                       int64_t lda, float * c, int64_t ldc, __mmask16 m0,
                                                       __mmask16 m1, struct pf * pf) {
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
    for (int p0 = 0; p0 < np; p0 += 16) {
        // prefetches once per 16 pairs, out of the inner loop
        for (int i = 0; i < 16 && pf->n > 0; i++, pf->n--) {
            _mm_prefetch(pf->row + pf->off, _MM_HINT_T0);
            pf->off += 64;
            if (pf->off >= pf->len) {
                pf->off = 0;
                pf->row += pf->ld;
            }
        }
        const int pe = p0 + 16 < np ? p0 + 16 : np;
        for (int p = p0; p < pe; p++) {
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
                         __mmask16 m0, __mmask16 m1, struct pf * pf) {                                               \
        tile(n, np, panel, a, lda, c, ldc, m0, m1, pf);                                                               \
    }
TILE_N(1)
TILE_N(2)
TILE_N(3)
TILE_N(4)
TILE_N(5)
TILE_N(6)
TILE_N(7)
TILE_N(8)
TILE_N(9)
TILE_N(10)
TILE_N(11)
TILE_N(12)

typedef void (*tile_fn)(int np, const uint32_t * panel, const uint16_t * a, int64_t lda, float * c, int64_t ldc,
                        __mmask16 m0, __mmask16 m1, struct pf * pf);
static const tile_fn tiles[NR + 1] = { NULL,   tile_1, tile_2, tile_3,  tile_4,  tile_5, tile_6,
                                       tile_7, tile_8, tile_9, tile_10, tile_11, tile_12 };

void gk_gemm_nt_bf16_avx512bf16(int m, int nrows, int k, const uint16_t * a, int64_t lda, const uint32_t * panel,
                                float * c, int64_t ldc, const void * pf, int64_t pf_ld, int pf_rows, int pf_bytes) {
    const int np = k / 2;
    const __mmask16 m0 = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
    const __mmask16 m1 = (__mmask16) (nrows >= PR ? 0xffff : nrows > 16 ? (1u << (nrows - 16)) - 1 : 0);
    // as few tiles as NR allows, of (nearly) equal widths: no narrow tile
    // at the end, whose few sums would leave the dot units waiting
    const int nt = (m + NR - 1) / NR;
    // the lines to prefetch, spread over the tiles' K pairs
    const int len = (pf_bytes + 63) / 64 * 64;
    const int lines = pf ? pf_rows * (len / 64) : 0;
    struct pf pfs = { (const char *) pf, pf_ld, len > 0 ? len : 64, 0, 0 };
    int j = 0;
    for (int t = 0; t < nt; t++) {
        const int nc = m / nt + (t < m % nt ? 1 : 0);
        pfs.n = lines * (t + 1) / nt - lines * t / nt;
        tiles[nc](np, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1, &pfs);
        j += nc;
    }
}
#endif
