/*
 * attn-quant-avx512.c - FLASH_ATTN_EXT's decode form on a quantized KV
 * cache (AVX512F): the two products of up to 4 query rows with Q8_0 or
 * Q4_0 rows of K and V, read as they are stored (a block of 32 values: an
 * F16 scale and 32 int8, or 16 bytes of nibbles less 8), each block
 * widened in registers once per call (extension, conversion, times its
 * scale: exact in F32), so a key costs its block bytes of reads and no F32
 * copy. The contracts of gk_fa_qk_f16_* / gk_fa_pv_f16_* (gk-attn.h), with
 * K and V rows of blocks (dk, dv multiples of 32) ldk, ldv bytes apart.
 *
 * Call only when the CPU has AVX512F (ggml_cpu_isa()->use_avx512f).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)

#include "gk-attn.h"
#include "gk-avx512.h"
#include "gk-quant.h"

#include <immintrin.h>

// the 32 values of block b of a row times its scale, as two vectors: QT
// 0 Q8_0 (int8), 1 Q4_0 (low nibbles the first 16, high the last, less 8)
static inline __attribute__((always_inline)) void qblock(const int QT, const char * row, int64_t b, __m512 * x0,
                                                         __m512 * x1) {
    if (QT == 0) {
        const gk_block_q8_0 * blk = (const gk_block_q8_0 *) row + b;
        const __m512 d = _mm512_set1_ps(_cvtsh_ss(blk->d));
        const __m512i i0 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *) blk->qs));
        const __m512i i1 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *) (blk->qs + 16)));
        *x0 = _mm512_mul_ps(_mm512_cvtepi32_ps(i0), d);
        *x1 = _mm512_mul_ps(_mm512_cvtepi32_ps(i1), d);
    } else {
        const gk_block_q4_0 * blk = (const gk_block_q4_0 *) row + b;
        const __m512 d = _mm512_set1_ps(_cvtsh_ss(blk->d));
        const __m512i u = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *) blk->qs));
        const __m512i m4 = _mm512_set1_epi32(15), e8 = _mm512_set1_epi32(8);
        const __m512i i0 = _mm512_sub_epi32(_mm512_and_si512(u, m4), e8);
        const __m512i i1 = _mm512_sub_epi32(_mm512_srli_epi32(u, 4), e8);
        *x0 = _mm512_mul_ps(_mm512_cvtepi32_ps(i0), d);
        *x1 = _mm512_mul_ps(_mm512_cvtepi32_ps(i1), d);
    }
}

// MR rows x NJ keys: per block, each key's block widened once and used by
// the MR rows; one horizontal sum per (row, key) at the end
static inline __attribute__((always_inline)) void
qk8_tile(const int QT, const int MR, const int NJ, int64_t nb, const float * q, int64_t ldq, const char * k, int64_t ldk,
         float * s, int64_t lds) {
    __m512 acc[4][8];
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < NJ; j++) {
            acc[i][j] = _mm512_setzero_ps();
        }
    }
    for (int64_t b = 0; b < nb; b++) {
        __m512 q0[4], q1[4];
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            q0[i] = _mm512_loadu_ps(q + i * ldq + 32 * b);
            q1[i] = _mm512_loadu_ps(q + i * ldq + 32 * b + 16);
        }
#pragma GCC unroll 8
        for (int j = 0; j < NJ; j++) {
            __m512 x0, x1;
            qblock(QT, k + j * ldk, b, &x0, &x1);
#pragma GCC unroll 4
            for (int i = 0; i < MR; i++) {
                acc[i][j] = _mm512_fmadd_ps(q0[i], x0, acc[i][j]);
                acc[i][j] = _mm512_fmadd_ps(q1[i], x1, acc[i][j]);
            }
        }
    }
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < NJ; j++) {
            s[i * lds + j] = _mm512_reduce_add_ps(acc[i][j]);
        }
    }
}

#define QK8_ROWS(QT, MR, NJ)                                                          \
    do {                                                                          \
        int j = 0;                                                                \
        for (; j + NJ <= n; j += NJ) {                                            \
            qk8_tile(QT, MR, NJ, nb, q, ldq, kb + j * ldk, ldk, s + j, lds);          \
        }                                                                         \
        for (; j < n; j++) {                                                      \
            qk8_tile(QT, MR, 1, nb, q, ldq, kb + j * ldk, ldk, s + j, lds);           \
        }                                                                         \
    } while (0)

static inline __attribute__((always_inline)) void qk8_rows(const int QT, int m, int n, int64_t dk, const float * q,
                                                            int64_t ldq, const char * kb, int64_t ldk, float * s,
                                                            int64_t lds) {
    const int64_t nb = dk / 32;
    switch (m) {
        case 4: QK8_ROWS(QT, 4, 4); break;
        case 3: QK8_ROWS(QT, 3, 4); break;
        case 2: QK8_ROWS(QT, 2, 6); break;
        case 1: QK8_ROWS(QT, 1, 8); break;
        default: break;
    }
}

void gk_fa_qk_q8_0_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const void * k, int64_t ldk,
                          float * s, int64_t lds) {
    qk8_rows(0, m, n, dk, q, ldq, (const char *) k, ldk, s, lds);
}

void gk_fa_qk_q4_0_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const void * k, int64_t ldk,
                          float * s, int64_t lds) {
    qk8_rows(1, m, n, dk, q, ldq, (const char *) k, ldk, s, lds);
}

// MR rows x NB blocks of output columns, over the n keys
static inline __attribute__((always_inline)) void
pv8_tile(const int QT, const int MR, const int NB, int n, const float * p, int64_t ldp, const char * v, int64_t ldv, int64_t b0,
         float * o, int64_t ldo) {
    __m512 acc[4][8];
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int c = 0; c < 2 * NB; c++) {
            acc[i][c] = _mm512_loadu_ps(o + i * ldo + 32 * b0 + 16 * c);
        }
    }
    for (int j = 0; j < n; j++) {
        __m512 pb[4];
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            pb[i] = _mm512_set1_ps(p[i * ldp + j]);
        }
#pragma GCC unroll 4
        for (int bb = 0; bb < NB; bb++) {
            __m512 x0, x1;
            qblock(QT, v + j * ldv, b0 + bb, &x0, &x1);
#pragma GCC unroll 4
            for (int i = 0; i < MR; i++) {
                acc[i][2 * bb] = _mm512_fmadd_ps(x0, pb[i], acc[i][2 * bb]);
                acc[i][2 * bb + 1] = _mm512_fmadd_ps(x1, pb[i], acc[i][2 * bb + 1]);
            }
        }
    }
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int c = 0; c < 2 * NB; c++) {
            _mm512_storeu_ps(o + i * ldo + 32 * b0 + 16 * c, acc[i][c]);
        }
    }
}

#define PV8_ROWS(QT, MR, NB)                                                          \
    do {                                                                          \
        int64_t b = 0;                                                            \
        for (; b + NB <= nb; b += NB) {                                           \
            pv8_tile(QT, MR, NB, n, p, ldp, vb, ldv, b, o, ldo);                      \
        }                                                                         \
        for (; b < nb; b++) {                                                     \
            pv8_tile(QT, MR, 1, n, p, ldp, vb, ldv, b, o, ldo);                       \
        }                                                                         \
    } while (0)

static inline __attribute__((always_inline)) void pv8_rows(const int QT, int m, int n, int64_t dv, const float * p,
                                                            int64_t ldp, const char * vb, int64_t ldv, float * o,
                                                            int64_t ldo) {
    const int64_t nb = dv / 32;
    switch (m) {
        case 4: PV8_ROWS(QT, 4, 2); break;
        case 3: PV8_ROWS(QT, 3, 2); break;
        case 2: PV8_ROWS(QT, 2, 4); break;
        case 1: PV8_ROWS(QT, 1, 4); break;
        default: break;
    }
}

void gk_fa_pv_q8_0_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const void * v, int64_t ldv,
                          float * o, int64_t ldo) {
    pv8_rows(0, m, n, dv, p, ldp, (const char *) v, ldv, o, ldo);
}

void gk_fa_pv_q4_0_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const void * v, int64_t ldv,
                          float * o, int64_t ldo) {
    pv8_rows(1, m, n, dv, p, ldp, (const char *) v, ldv, o, ldo);
}

// One query row per head, keys outermost (gk-attn.h): NH heads x one key
static inline __attribute__((always_inline)) void qk8h_tile(const int QT, const int NH, int64_t nb, const float * q,
                                                            int64_t ldq, const char * k, int64_t kgs, float * s,
                                                            int64_t lds) {
    __m512 acc[8];
#pragma GCC unroll 8
    for (int h = 0; h < NH; h++) {
        acc[h] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < nb; b++) {
#pragma GCC unroll 8
        for (int h = 0; h < NH; h++) {
            __m512 x0, x1;
            qblock(QT, k + h * kgs, b, &x0, &x1);
            acc[h] = _mm512_fmadd_ps(_mm512_loadu_ps(q + h * ldq + 32 * b), x0, acc[h]);
            acc[h] = _mm512_fmadd_ps(_mm512_loadu_ps(q + h * ldq + 32 * b + 16), x1, acc[h]);
        }
    }
#pragma GCC unroll 8
    for (int h = 0; h < NH; h++) {
        s[h * lds] = _mm512_reduce_add_ps(acc[h]);
    }
}

static inline __attribute__((always_inline)) void qk8h(const int QT, int nh, int n, int64_t dk, const float * q,
                                                       int64_t ldq, const char * k, int64_t ldk, int64_t kgs,
                                                       float * s, int64_t lds, int npf) {
    const int64_t nb = dk / 32;
    for (int j = 0; j < n; j++) {
        const char * kj = k + j * ldk;
        if (j + GK_FA_PF_AHEAD < npf) {
            gk_prefetch_pages(kj + GK_FA_PF_AHEAD * ldk, (nh - 1) * kgs + nb * (int64_t) (QT == 0 ? sizeof(gk_block_q8_0) : sizeof(gk_block_q4_0)));
        }
        int h = 0;
        for (; h + 4 <= nh; h += 4) {
            qk8h_tile(QT, 4, nb, q + h * ldq, ldq, kj + h * kgs, kgs, s + h * lds + j, lds);
        }
        for (; h < nh; h++) {
            qk8h_tile(QT, 1, nb, q + h * ldq, ldq, kj + h * kgs, kgs, s + h * lds + j, lds);
        }
    }
}

// one head's output row += the weight of one key times its V row
// (pv8_tile's steps with one row and one key)
static inline __attribute__((always_inline)) void pv8h(const int QT, int nh, int n, int64_t dv, const float * p,
                                                       int64_t ldp, const char * v, int64_t ldv, int64_t vgs,
                                                       float * o, int64_t ldo, int npf) {
    const int64_t nb = dv / 32;
    for (int j = 0; j < n; j++) {
        const char * vj = v + j * ldv;
        if (j + GK_FA_PF_AHEAD < npf) {
            gk_prefetch_pages(vj + GK_FA_PF_AHEAD * ldv, (nh - 1) * vgs + nb * (int64_t) (QT == 0 ? sizeof(gk_block_q8_0) : sizeof(gk_block_q4_0)));
        }
        for (int h = 0; h < nh; h++) {
            const __m512 pb = _mm512_set1_ps(p[h * ldp + j]);
            float * oh = o + h * ldo;
            for (int64_t b = 0; b < nb; b++) {
                __m512 x0, x1;
                qblock(QT, vj + h * vgs, b, &x0, &x1);
                _mm512_storeu_ps(oh + 32 * b, _mm512_fmadd_ps(x0, pb, _mm512_loadu_ps(oh + 32 * b)));
                _mm512_storeu_ps(oh + 32 * b + 16, _mm512_fmadd_ps(x1, pb, _mm512_loadu_ps(oh + 32 * b + 16)));
            }
        }
    }
}

void gk_fa_qk_q8_0_heads_avx512(int nh, int n, int64_t dk, const float * q, int64_t ldq, const void * k,
                                int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf) {
    qk8h(0, nh, n, dk, q, ldq, (const char *) k, ldk, kgs, s, lds, npf);
}

void gk_fa_qk_q4_0_heads_avx512(int nh, int n, int64_t dk, const float * q, int64_t ldq, const void * k,
                                int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf) {
    qk8h(1, nh, n, dk, q, ldq, (const char *) k, ldk, kgs, s, lds, npf);
}

void gk_fa_pv_q8_0_heads_avx512(int nh, int n, int64_t dv, const float * p, int64_t ldp, const void * v,
                                int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf) {
    pv8h(0, nh, n, dv, p, ldp, (const char *) v, ldv, vgs, o, ldo, npf);
}

void gk_fa_pv_q4_0_heads_avx512(int nh, int n, int64_t dv, const float * p, int64_t ldp, const void * v,
                                int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf) {
    pv8h(1, nh, n, dv, p, ldp, (const char *) v, ldv, vgs, o, ldo, npf);
}

#endif
