/*
 * attn-q8-avx512.c - FLASH_ATTN_EXT's decode form on a Q8_0 KV cache
 * (AVX512F): the two products of up to 4 query rows with Q8_0 rows of K
 * and V, read as they are stored (34 bytes a block of 32 values: an F16
 * scale and 32 int8), each block widened in registers once per call
 * (sign extension, conversion, times its scale: exact in F32), so a key
 * costs its 34 bytes a block of reads and no F32 copy. The contracts of
 * gk_fa_qk_f16_* / gk_fa_pv_f16_* (gk-attn.h), with K and V rows of Q8_0
 * blocks (dk, dv multiples of 32) ldk, ldv bytes apart.
 *
 * Call only when the CPU has AVX512F (ggml_cpu_isa()->use_avx512f).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)

#include "gk-attn.h"
#include "gk-quant.h"

#include <immintrin.h>

// the 32 values of a block times its scale, as two vectors
static inline __attribute__((always_inline)) void q8_block(const gk_block_q8_0 * b, __m512 * x0, __m512 * x1) {
    const __m512 d = _mm512_set1_ps(_cvtsh_ss(b->d));
    const __m512i i0 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *) b->qs));
    const __m512i i1 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *) (b->qs + 16)));
    *x0 = _mm512_mul_ps(_mm512_cvtepi32_ps(i0), d);
    *x1 = _mm512_mul_ps(_mm512_cvtepi32_ps(i1), d);
}

// MR rows x NJ keys: per block, each key's block widened once and used by
// the MR rows; one horizontal sum per (row, key) at the end
static inline __attribute__((always_inline)) void
qk8_tile(const int MR, const int NJ, int64_t nb, const float * q, int64_t ldq, const char * k, int64_t ldk,
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
            q8_block((const gk_block_q8_0 *) (k + j * ldk) + b, &x0, &x1);
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

#define QK8_ROWS(MR, NJ)                                                          \
    do {                                                                          \
        int j = 0;                                                                \
        for (; j + NJ <= n; j += NJ) {                                            \
            qk8_tile(MR, NJ, nb, q, ldq, kb + j * ldk, ldk, s + j, lds);          \
        }                                                                         \
        for (; j < n; j++) {                                                      \
            qk8_tile(MR, 1, nb, q, ldq, kb + j * ldk, ldk, s + j, lds);           \
        }                                                                         \
    } while (0)

void gk_fa_qk_q8_0_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const void * k, int64_t ldk,
                          float * s, int64_t lds) {
    const char * kb = (const char *) k;
    const int64_t nb = dk / GK_QK8_0;
    switch (m) {
        case 4: QK8_ROWS(4, 4); break;
        case 3: QK8_ROWS(3, 4); break;
        case 2: QK8_ROWS(2, 6); break;
        case 1: QK8_ROWS(1, 8); break;
        default: break;
    }
}

// MR rows x NB blocks of output columns, over the n keys
static inline __attribute__((always_inline)) void
pv8_tile(const int MR, const int NB, int n, const float * p, int64_t ldp, const char * v, int64_t ldv, int64_t b0,
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
            q8_block((const gk_block_q8_0 *) (v + j * ldv) + b0 + bb, &x0, &x1);
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

#define PV8_ROWS(MR, NB)                                                          \
    do {                                                                          \
        int64_t b = 0;                                                            \
        for (; b + NB <= nb; b += NB) {                                           \
            pv8_tile(MR, NB, n, p, ldp, vb, ldv, b, o, ldo);                      \
        }                                                                         \
        for (; b < nb; b++) {                                                     \
            pv8_tile(MR, 1, n, p, ldp, vb, ldv, b, o, ldo);                       \
        }                                                                         \
    } while (0)

void gk_fa_pv_q8_0_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const void * v, int64_t ldv,
                          float * o, int64_t ldo) {
    const char * vb = (const char *) v;
    const int64_t nb = dv / GK_QK8_0;
    switch (m) {
        case 4: PV8_ROWS(4, 2); break;
        case 3: PV8_ROWS(3, 2); break;
        case 2: PV8_ROWS(2, 4); break;
        case 1: PV8_ROWS(1, 4); break;
        default: break;
    }
}

#endif
