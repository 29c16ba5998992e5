/*
 * gemm-f32-avx512.c - F32 GEMM on 512-bit FMAs, for MUL_MAT's GEMM path with
 * F32, F16 and BF16 weights on CPUs with AVX512F.
 *
 * The weights' rows are packed into a panel of 32 rows per K value (32
 * floats a value, 16 x 16 blocks transposed in registers; F16 and BF16
 * widened to F32 on the way, so they cost what F32 does after packing), so
 * that one K value of 32 rows is two vectors; each activation column's value
 * is broadcast against them. A tile keeps 32 rows x 12 columns of sums in 24
 * of the 32 registers, which land as rows of the destination (rows of a
 * column are contiguous there): no horizontal sums, no transposes of the
 * output. The shape of gemm-bf16-avx512.c, with one K value per step
 * instead of a pair. While the tiles run they prefetch the weights the
 * caller packs next (the same rows' next K block): those come from DRAM
 * in pieces of a few hundred bytes of many rows, which the hardware
 * prefetchers do not see coming, and the packing would wait for them.
 *
 * Call only when the CPU has AVX512F (ggml_cpu_isa()->use_avx512f).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)
#pragma GCC target("avx512f")

#include "gk-vec.h"
#include "gk-fp16.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

// rows per panel, columns per tile
#define PR 32
#define NR 12

// r[0..16) (16 rows of 16 K values) -> r[i] = K value i of the 16 rows
static inline __attribute__((always_inline)) void transpose16(__m512 r[16]) {
    __m512 t[16];
    // pairs of rows: 2x2 blocks of single floats
#pragma GCC unroll 8
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    // quads of rows: 2x2 blocks of float pairs
#pragma GCC unroll 4
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
        r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
    }
    // now r[4q + s] holds, in each 128-bit lane l, K value 4l + s of rows
    // 4q..4q+3; gather lanes: first lanes {0, 2} of row quads {0, 1} ...
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++) {
        t[s] = _mm512_shuffle_f32x4(r[s], r[4 + s], 0x88);      // lanes 0,2 of q0; 0,2 of q1
        t[4 + s] = _mm512_shuffle_f32x4(r[s], r[4 + s], 0xdd);  // lanes 1,3 of q0; 1,3 of q1
        t[8 + s] = _mm512_shuffle_f32x4(r[8 + s], r[12 + s], 0x88);
        t[12 + s] = _mm512_shuffle_f32x4(r[8 + s], r[12 + s], 0xdd);
    }
    // ... then lane 0 (K 0..3) of all four quads, and so on
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++) {
        r[s] = _mm512_shuffle_f32x4(t[s], t[8 + s], 0x88);           // K s
        r[8 + s] = _mm512_shuffle_f32x4(t[s], t[8 + s], 0xdd);       // K 8 + s
        r[4 + s] = _mm512_shuffle_f32x4(t[4 + s], t[12 + s], 0x88);  // K 4 + s
        r[12 + s] = _mm512_shuffle_f32x4(t[4 + s], t[12 + s], 0xdd); // K 12 + s
    }
}

// wtype: 0 F32, 1 F16, 2 BF16; 16 values of row w from K value p
static inline __attribute__((always_inline)) __m512 load16(int wtype, const void * w, int p) {
    if (wtype == 0) {
        return _mm512_loadu_ps((const float *) w + p);
    }
    const __m256i h = _mm256_loadu_si256((const __m256i *) (const void *) ((const uint16_t *) w + p));
    if (wtype == 1) {
        return _mm512_cvtph_ps(h);
    }
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

static inline __attribute__((always_inline)) float load1(int wtype, const void * w, int p) {
    if (wtype == 0) {
        return ((const float *) w)[p];
    }
    const uint16_t h = ((const uint16_t *) w)[p];
    return wtype == 1 ? gk_fp16_to_fp32(h) : gk_bf16_to_fp32(h);
}

// 16 rows (nr of them real, the others zero) from row0 (rows ldw elements
// apart) into panel columns r0..r0+16
static inline __attribute__((always_inline)) void pack16(int wtype, int nr, const char * row0, int64_t ldw, int k,
                                                         float * panel) {
    const size_t es = wtype == 0 ? sizeof(float) : sizeof(uint16_t);
    const size_t stride = (size_t) ldw * es;
    int p = 0;
    for (; p + 16 <= k; p += 16) {
        __m512 v[16];
        const char * q = row0 + (size_t) p * es;
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            if (i < nr) {
                v[i] = load16(wtype, q, 0);
            } else {
                v[i] = _mm512_setzero_ps();
            }
            q += stride;
            // one pointer walking the rows (not sixteen, which the
            // compiler would keep on the stack)
            __asm__("" : "+r"(q));
        }
        transpose16(v);
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            _mm512_storeu_ps(panel + (size_t) (p + i) * PR, v[i]);
        }
    }
    for (; p < k; p++) {
        float * o = panel + (size_t) p * PR;
        for (int i = 0; i < 16; i++) {
            o[i] = i < nr ? load1(wtype, row0 + (size_t) i * stride, p) : 0.0f;
        }
    }
}

static inline __attribute__((always_inline)) void pack(int wtype, const void * w, int64_t ldw, int nrows, int k,
                                                       float * panel) {
    const size_t es = wtype == 0 ? sizeof(float) : sizeof(uint16_t);
    for (int r0 = 0; r0 < PR; r0 += 16) {
        const int nr = nrows - r0 < 16 ? (nrows - r0 > 0 ? nrows - r0 : 0) : 16;
        const char * row0 = (const char *) w + (size_t) r0 * (size_t) ldw * es;
        if (nr == 16) {
            pack16(wtype, 16, row0, ldw, k, panel + r0);
        } else if (nr > 0) {
            pack16(wtype, nr, row0, ldw, k, panel + r0);
        } else {
            for (int p = 0; p < k; p++) {
                _mm512_storeu_ps(panel + (size_t) p * PR + r0, _mm512_setzero_ps());
            }
        }
    }
}

void gk_f32_pack_panel_avx512(const float * w, int64_t ldw, int nrows, int k, float * panel) {
    pack(0, w, ldw, nrows, k, panel);
}

void gk_f16_pack_panel_avx512(const uint16_t * w, int64_t ldw, int nrows, int k, float * panel) {
    pack(1, w, ldw, nrows, k, panel);
}

void gk_bf16_pack_panel_avx512(const uint16_t * w, int64_t ldw, int nrows, int k, float * panel) {
    pack(2, w, ldw, nrows, k, panel);
}

// Lines of memory to prefetch while the tiles run: n lines from row, at
// offset off, rows of len bytes (a multiple of 64) ld bytes apart
struct pf {
    const char * row;
    int64_t ld;
    int len, off, n;
};

// C[j][0..32) += panel . A[j] for nc (<= NR) columns, masks for the rows;
// meanwhile up to one line of *pf per K step (16 per 16 steps)
static inline __attribute__((always_inline)) void tile(int nc, int k, const float * panel, const float * a,
                                                       int64_t lda, float * c, int64_t ldc, __mmask16 m0,
                                                       __mmask16 m1, struct pf * pf) {
    __m512 acc0[NR], acc1[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; j++) {
        acc0[j] = _mm512_setzero_ps();
        acc1[j] = _mm512_setzero_ps();
    }
    const float * acol[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; j++) {
        acol[j] = a + (size_t) (j < nc ? j : 0) * (size_t) lda;
    }
    for (int p0 = 0; p0 < k; p0 += 16) {
        // prefetches once per 16 K steps (384 FMAs at 12 columns), out of
        // the inner loop, which has the general registers to itself
        for (int i = 0; i < 16 && pf->n > 0; i++, pf->n--) {
            _mm_prefetch(pf->row + pf->off, _MM_HINT_T0);
            pf->off += 64;
            if (pf->off >= pf->len) {
                pf->off = 0;
                pf->row += pf->ld;
            }
        }
        const int pe = p0 + 16 < k ? p0 + 16 : k;
        for (int p = p0; p < pe; p++) {
            const __m512 w0 = _mm512_loadu_ps(panel + (size_t) p * PR);
            const __m512 w1 = _mm512_loadu_ps(panel + (size_t) p * PR + 16);
#pragma GCC unroll 12
            for (int j = 0; j < NR; j++) {
                if (j < nc) {
                    const __m512 x = _mm512_set1_ps(acol[j][p]);
                    acc0[j] = _mm512_fmadd_ps(w0, x, acc0[j]);
                    acc1[j] = _mm512_fmadd_ps(w1, x, acc1[j]);
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
#define TILE_N(n)                                                                                              \
    static void tile_##n(int k, const float * panel, const float * a, int64_t lda, float * c, int64_t ldc,    \
                         __mmask16 m0, __mmask16 m1, struct pf * pf) {                                         \
        tile(n, k, panel, a, lda, c, ldc, m0, m1, pf);                                                         \
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

typedef void (*tile_fn)(int k, const float * panel, const float * a, int64_t lda, float * c, int64_t ldc,
                        __mmask16 m0, __mmask16 m1, struct pf * pf);
static const tile_fn tiles[NR + 1] = { NULL,   tile_1, tile_2, tile_3,  tile_4,  tile_5, tile_6,
                                       tile_7, tile_8, tile_9, tile_10, tile_11, tile_12 };

void gk_gemm_nt_f32p_avx512(int m, int nrows, int k, const float * a, int64_t lda, const float * panel, float * c,
                            int64_t ldc, const void * pf, int64_t pf_ld, int pf_rows, int pf_bytes) {
    const __mmask16 m0 = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
    const __mmask16 m1 = (__mmask16) (nrows >= PR ? 0xffff : nrows > 16 ? (1u << (nrows - 16)) - 1 : 0);
    // as few tiles as NR allows, of (nearly) equal widths: no narrow tile
    // at the end, whose few sums would leave the FMA units waiting
    const int nt = (m + NR - 1) / NR;
    // the lines to prefetch, spread over the tiles' K steps
    const int len = (pf_bytes + 63) / 64 * 64;
    const int lines = pf ? pf_rows * (len / 64) : 0;
    struct pf pfs = { (const char *) pf, pf_ld, len > 0 ? len : 64, 0, 0 };
    int j = 0;
    for (int t = 0; t < nt; t++) {
        const int nc = m / nt + (t < m % nt ? 1 : 0);
        pfs.n = lines * (t + 1) / nt - lines * t / nt;
        tiles[nc](k, panel, a + (size_t) j * (size_t) lda, lda, c + (size_t) j * (size_t) ldc, ldc, m0, m1, &pfs);
        j += nc;
    }
}
#endif
