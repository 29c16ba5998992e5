/*
 * repack-x86.c - the int8 GEMM on repacked Q8_0/Q4_0 weight groups
 * (gk-repack.h) with AVX2 alone (VPMADDUBSW; called only after the CPU was
 * checked for AVX2/FMA/F16C). The arithmetic of gk_gemm_q4x_avx2 and
 * gk_gemm_q8s_avx2 (quant-gemm-x86.c), reading the weights where they are
 * stored: eight rows (one half of the group) by up to NC columns at a time,
 * Q4_0 nibbles split off one load into the vectors of steps s and s + 4,
 * Q8_0 bytes signed (their magnitude the unsigned operand, their sign moved
 * onto the activation bytes), the eight fp16 scales of the half converted
 * at once.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"
#include "gk-x86.h"

#include <immintrin.h>

#ifndef RP_PF
#define RP_PF 1024
#endif

static GK_ALWAYS_INLINE void half8(const bool q4, const int NC, int nkb, const uint8_t * g, int h, int nr,
                                   const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 f[6];
#pragma GCC unroll 6
    for (int j = 0; j < NC; j++) {
        f[j] = _mm256_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = g + (size_t) b * gsz;
        const uint8_t * q = w + 2 * GK_RP_ROWS + 32 * h;
        if (h == 0) {
            _mm_prefetch((const char *) w + RP_PF, _MM_HINT_T0);
            _mm_prefetch((const char *) w + RP_PF + 64, _MM_HINT_T0);
            _mm_prefetch((const char *) w + RP_PF + 128, _MM_HINT_T0);
            _mm_prefetch((const char *) w + RP_PF + 192, _MM_HINT_T0);
            if (!q4) {
                _mm_prefetch((const char *) w + RP_PF + 256, _MM_HINT_T0);
                _mm_prefetch((const char *) w + RP_PF + 320, _MM_HINT_T0);
                _mm_prefetch((const char *) w + RP_PF + 384, _MM_HINT_T0);
                _mm_prefetch((const char *) w + RP_PF + 448, _MM_HINT_T0);
            }
        }
        __m256i acc[6];
#pragma GCC unroll 6
        for (int j = 0; j < NC; j++) {
            acc[j] = _mm256_setzero_si256();
        }
        if (q4) {
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const __m256i p = _mm256_loadu_si256((const __m256i *) (q + 64 * s));
                const __m256i lo = _mm256_and_si256(p, m4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m4);
#pragma GCC unroll 6
                for (int j = 0; j < NC; j++) {
                    const __m256i al = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    const __m256i ah = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s + 16));
                    acc[j] = gk_dp16x2(acc[j], lo, al, hi, ah);
                }
            }
        } else {
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                const __m256i wv = _mm256_loadu_si256((const __m256i *) (q + 64 * s));
                const __m256i aw = _mm256_abs_epi8(wv);
#pragma GCC unroll 6
                for (int j = 0; j < NC; j++) {
                    const __m256i av = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    acc[j] = gk_dp32(acc[j], aw, _mm256_sign_epi8(av, wv));
                }
            }
        }
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + 16 * h)));
#pragma GCC unroll 6
        for (int j = 0; j < NC; j++) {
            __m256i i = acc[j];
            if (q4) {
                i = _mm256_add_epi32(gk_dp16_wide(i), _mm256_set1_epi32(a[j * lda + b].corr));
            }
            f[j] = _mm256_fmadd_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a[j * lda + b].d)), _mm256_cvtepi32_ps(i), f[j]);
        }
    }
    if (nr == 8) {
#pragma GCC unroll 6
        for (int j = 0; j < NC; j++) {
            float * cj = c + j * ldc;
            _mm256_storeu_ps(cj, _mm256_add_ps(_mm256_loadu_ps(cj), f[j]));
        }
    } else {
        for (int j = 0; j < NC; j++) {
            float t[8];
            _mm256_storeu_ps(t, f[j]);
            for (int r = 0; r < nr; r++) {
                c[j * ldc + r] += t[r];
            }
        }
    }
}

// Both halves of the group per block, up to NC (<= 2) columns: the
// matrix-vector case. Reading the halves in two passes (half8) leaves the
// memory idle while the second reads what the first brought into cache:
// with one column the group streamed at 0.55-0.85x of the plain rows'
// speed (bench-ops n = 1, 4096 x 14336); in one pass each cache line is
// read once, whole, and each activation broadcast serves 16 rows.
static GK_ALWAYS_INLINE void full16(const bool q4, const int NC, int nkb, const uint8_t * g, int nr,
                                    const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 f[2][2];
#pragma GCC unroll 2
    for (int j = 0; j < NC; j++) {
        f[j][0] = f[j][1] = _mm256_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = g + (size_t) b * gsz;
        const uint8_t * q = w + 2 * GK_RP_ROWS;
        __m256i acc[2][2];
#pragma GCC unroll 2
        for (int j = 0; j < NC; j++) {
            acc[j][0] = acc[j][1] = _mm256_setzero_si256();
        }
        if (q4) {
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
#pragma GCC unroll 2
                for (int h = 0; h < 2; h++) {
                    const __m256i p = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32 * h));
                    const __m256i lo = _mm256_and_si256(p, m4);
                    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m4);
#pragma GCC unroll 2
                    for (int j = 0; j < NC; j++) {
                        const __m256i al = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                        const __m256i ah = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s + 16));
                        acc[j][h] = gk_dp16x2(acc[j][h], lo, al, hi, ah);
                    }
                }
            }
        } else {
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
#pragma GCC unroll 2
                for (int h = 0; h < 2; h++) {
                    const __m256i wv = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32 * h));
                    const __m256i aw = _mm256_abs_epi8(wv);
#pragma GCC unroll 2
                    for (int j = 0; j < NC; j++) {
                        const __m256i av = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                        acc[j][h] = gk_dp32(acc[j][h], aw, _mm256_sign_epi8(av, wv));
                    }
                }
            }
        }
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + 16 * h)));
#pragma GCC unroll 2
            for (int j = 0; j < NC; j++) {
                __m256i i = acc[j][h];
                if (q4) {
                    i = _mm256_add_epi32(gk_dp16_wide(i), _mm256_set1_epi32(a[j * lda + b].corr));
                }
                f[j][h] = _mm256_fmadd_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a[j * lda + b].d)),
                                          _mm256_cvtepi32_ps(i), f[j][h]);
            }
        }
    }
    for (int j = 0; j < NC; j++) {
        float t[16];
        _mm256_storeu_ps(t, f[j][0]);
        _mm256_storeu_ps(t + 8, f[j][1]);
        for (int r = 0; r < nr; r++) {
            c[j * ldc + r] += t[r];
        }
    }
}

#define NC_Q4 6
#define NC_Q8 5

static GK_ALWAYS_INLINE void gemm(const bool q4, int nkb, const void * grp, int nrows, int ncols,
                                  const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const int nc = q4 ? NC_Q4 : NC_Q8;
    if (ncols <= 2) {
        if (ncols == 1) {
            full16(q4, 1, nkb, g, nrows, a, lda, c, ldc);
        } else if (ncols == 2) {
            full16(q4, 2, nkb, g, nrows, a, lda, c, ldc);
        }
        return;
    }
    for (int h = 0; h * 8 < nrows; h++) {
        const int nr = nrows - 8 * h < 8 ? nrows - 8 * h : 8;
        float * ch = c + 8 * h;
        int j = 0;
        for (; j + nc <= ncols; j += nc) {
            half8(q4, nc, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc);
        }
        switch (ncols - j) {
            case 1: half8(q4, 1, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc); break;
            case 2: half8(q4, 2, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc); break;
            case 3: half8(q4, 3, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc); break;
            case 4: half8(q4, 4, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc); break;
            case 5: half8(q4, 5, nkb, g, h, nr, a + j * lda, lda, ch + j * ldc, ldc); break;
            default: break;
        }
    }
}

void GK_X86_FN(gk_rp_gemm_q8_0)(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc) {
    gemm(false, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

void GK_X86_FN(gk_rp_gemm_q4_0)(int nkb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          int64_t lda, float * c, int64_t ldc) {
    gemm(true, nkb, grp, nrows, ncols, a, lda, c, ldc);
}

// The matrix-vector product on ng (<= GK_RP_STREAMS) full groups at once:
// block b of every group read in the same loop iteration, so that the
// weights come from ng memory streams (a thread reading one sequential
// stream does not get the DRAM bandwidth it gets from several). Per group
// the arithmetic of full16 with one column (same order of the integer and
// float operations), so that the results are the same to the bit. The
// groups are taken one after the other within a block (the eight float
// accumulators of four groups, one group's two integer ones), each block
// asked for RP_PF bytes ahead: bench-ops -n 1 -R --cpu-time, AVX2 alone,
// medians of five alternated runs, 4096 x 14336 Q8_0 one thread 2.80 ms
// (one group per call) -> 2.15 (four groups) -> 1.91 (and the prefetch),
// two 1.47 -> 1.05 -> 0.99; Q4_0 1.52 -> 1.07 -> 1.06, 0.87 -> 0.58 ->
// 0.58.
static GK_ALWAYS_INLINE void grpv(const bool q4, const int NG, int nkb, const void * const * grp,
                                  const gk_block_q8_0x * a, float * const * c) {
    const size_t gsz = GK_RP_ROWS * (q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 f[GK_RP_STREAMS][2];
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        f[g][0] = f[g][1] = _mm256_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const __m256 ad = _mm256_set1_ps(a[b].d);
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            const uint8_t * w = (const uint8_t *) grp[g] + (size_t) b * gsz;
            const uint8_t * q = w + 2 * GK_RP_ROWS;
#pragma GCC unroll 9
            for (size_t l = 0; l < gsz; l += 64) {
                _mm_prefetch((const char *) w + RP_PF + l, _MM_HINT_T0);
            }
            __m256i acc[2] = { _mm256_setzero_si256(), _mm256_setzero_si256() };
            if (q4) {
#pragma GCC unroll 4
                for (int s = 0; s < 4; s++) {
                    const __m256i al = _mm256_set1_epi32(gk_ld32(a[b].qs + 4 * s));
                    const __m256i ah = _mm256_set1_epi32(gk_ld32(a[b].qs + 4 * s + 16));
#pragma GCC unroll 2
                    for (int h = 0; h < 2; h++) {
                        const __m256i p = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32 * h));
                        const __m256i lo = _mm256_and_si256(p, m4);
                        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m4);
                        acc[h] = gk_dp16x2(acc[h], lo, al, hi, ah);
                    }
                }
            } else {
#pragma GCC unroll 8
                for (int s = 0; s < 8; s++) {
                    const __m256i av = _mm256_set1_epi32(gk_ld32(a[b].qs + 4 * s));
#pragma GCC unroll 2
                    for (int h = 0; h < 2; h++) {
                        const __m256i wv = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32 * h));
                        acc[h] = gk_dp32(acc[h], _mm256_abs_epi8(wv), _mm256_sign_epi8(av, wv));
                    }
                }
            }
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + 16 * h)));
                __m256i i = acc[h];
                if (q4) {
                    i = _mm256_add_epi32(gk_dp16_wide(i), _mm256_set1_epi32(a[b].corr));
                }
                f[g][h] = _mm256_fmadd_ps(_mm256_mul_ps(dw, ad), _mm256_cvtepi32_ps(i), f[g][h]);
            }
        }
    }
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        _mm256_storeu_ps(c[g], _mm256_add_ps(_mm256_loadu_ps(c[g]), f[g][0]));
        _mm256_storeu_ps(c[g] + 8, _mm256_add_ps(_mm256_loadu_ps(c[g] + 8), f[g][1]));
    }
}

#ifdef GK_AVXVNNI
GK_RP_GEMV_ENTRIES(avxvnni)
#else
GK_RP_GEMV_ENTRIES(avx2)
#endif
