/*
 * quant-gemm-x86.c - int8 GEMM for Q8_0/Q4_0 weights with AVX2 alone (no
 * VNNI), on the packed tiles of the VNNI GEMM (gk-quant.h, GK_GEMM_MR):
 * 16 weight rows per tile, each 32-byte vector holding four consecutive
 * values of 8 rows, multiplied with four broadcast activation bytes of one
 * Q8_0x column. Called only after the CPU was checked for AVX2/FMA/F16C.
 * Not part of the kernel module build.
 *
 * VPMADDUBSW multiplies unsigned bytes with signed bytes and adds pairs into
 * int16 lanes, saturating; VPMADDWD with ones adds pairs of those into int32.
 * - Q4_0 (gk_gemm_q4x_avx2): the nibbles 0..15 are the unsigned operand, so
 *   a pair is at most 2 * 15 * 127 and the eight steps of a block add up in
 *   int16 without saturating (8 * 3810 < 32768): one VPMADDUBSW and one add
 *   per 32 products, one VPMADDWD per block. The offset 8 comes off through
 *   the activation block's corr (-8 * its sum).
 * - Q8_0 (gk_gemm_q8s_avx2): the tile holds the signed values (packed by
 *   gk_pack_q8_0_s8_avx2); the unsigned operand is their magnitude and their
 *   sign moves onto the activation bytes (VPSIGNB), so a pair is at most
 *   2 * 127 * 127 < 32768; each step goes to int32 (VPMADDWD) and adds up
 *   there.
 * Per 32-value block the int32 dots are converted and scaled in float by
 * d_weight * d_activation, as in the VNNI GEMM; gk_gemm_q8s_min_avx2 (the
 * unpack types with offsets, e.g. Q4_1, Q5_K) also adds each group's offset
 * times the activation block's sum there.
 *
 * quant-gemm-avxvnni.c builds the GEMMs again with GK_AVXVNNI, as
 * gk_gemm_*_avxvnni, for CPUs with AVX-VNNI but no AVX512 (VEX-encoded
 * VPDPBUSD on ymm): each product step is one VPDPBUSD into int32 lanes, on
 * the same operands (Q4_0: the nibbles and the activation bytes; Q8_0: the
 * magnitudes and the sign-moved activation bytes). Nothing saturates on
 * either path, so the int32 dots, and the results, are the same bits.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"
#include "gk-x86.h"

#include <immintrin.h>

#ifndef GK_AVXVNNI
// ---------------------------------------------------------------------------
// weight packing (the VNNI tile layout; Q8_0 signed, Q4_0 nibbles)
// ---------------------------------------------------------------------------

static GK_ALWAYS_INLINE void pack(bool q4, const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq,
                                  float * wd) {
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    const __m256i sh = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    for (int b = 0; b < nkb; b++) {
        uint8_t * o = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        float * od = wd + (size_t) b * GK_GEMM_MR;
        for (int h = 0; h < GK_GEMM_MR / 8; h++) {
            __m256i r[8];
            uint16_t dh[8];
#pragma GCC unroll 8
            for (int j = 0; j < 8; j++) {
                const int row = 8 * h + j;
                if (row < nrows) {
                    const uint8_t * p = (const uint8_t *) x + (size_t) row * bx + (size_t) (b0 + b) * bsz;
                    _mm_prefetch((const char *) p + 1024, _MM_HINT_T0);
                    dh[j] = gk_ld16(p);
                    if (q4) {
                        r[j] = _mm256_and_si256(_mm256_srlv_epi32(_mm256_broadcastsi128_si256(
                                   _mm_loadu_si128((const __m128i *) (p + 2))), sh), m4);
                    } else {
                        r[j] = _mm256_loadu_si256((const __m256i *) (p + 2));
                    }
                } else {
                    dh[j] = 0;
                    r[j] = _mm256_setzero_si256();
                }
            }
            _mm256_storeu_ps(od + 8 * h, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) dh)));
            gk_transpose8x8_epi32(r);
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                _mm256_storeu_si256((__m256i *) (o + 64 * s + 32 * h), r[s]);
            }
        }
    }
}

void gk_pack_q8_0_s8_avx2(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack(false, x, bx, nrows, b0, nkb, wq, wd);
}

void gk_pack_q4_0_u8_avx2(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack(true, x, bx, nrows, b0, nkb, wq, wd);
}
#endif // GK_AVXVNNI: the tiles are the same

// ---------------------------------------------------------------------------
// micro-kernels: 8 packed weight rows (one half of a tile) x NC columns
// ---------------------------------------------------------------------------

// c[j * ldc + r] += rows h*8 + r of the tile . column j, for r < nr (<= 8).
// With wm (the groups' offsets, wm[b * GK_GEMM_MR + r]) and as (the
// activation blocks' float sums, as[j * lda + b]): per block and column also
// the offsets times the column's sum (Q4_1, Q5_1, Q5_K, ...: their mins) in
// the same float step; NULL (inlined) compiles it away.
static GK_ALWAYS_INLINE void half8(const bool q4, const int NC, int nkb, const uint8_t * wq, const float * wd,
                                   const float * wm, int h, int nr, const gk_block_q8_0x * a, const float * as,
                                   int64_t lda, float * c, int64_t ldc) {
    __m256 f[8];
#pragma GCC unroll 8
    for (int j = 0; j < NC; j++) {
        f[j] = _mm256_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0 + 32 * h;
        __m256i acc[8];
#pragma GCC unroll 8
        for (int j = 0; j < NC; j++) {
            acc[j] = _mm256_setzero_si256();
        }
#pragma GCC unroll 8
        for (int s = 0; s < 8; s++) {
            const __m256i wv = _mm256_loadu_si256((const __m256i *) (w + 64 * s));
            if (q4) {
#pragma GCC unroll 8
                for (int j = 0; j < NC; j++) {
                    const __m256i av = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    acc[j] = gk_dp16(acc[j], wv, av);
                }
            } else {
                const __m256i aw = _mm256_abs_epi8(wv);
#pragma GCC unroll 8
                for (int j = 0; j < NC; j++) {
                    const __m256i av = _mm256_set1_epi32(gk_ld32(a[j * lda + b].qs + 4 * s));
                    acc[j] = gk_dp32(acc[j], aw, _mm256_sign_epi8(av, wv));
                }
            }
        }
        const __m256 dw = _mm256_loadu_ps(wd + (size_t) b * GK_GEMM_MR + 8 * h);
#pragma GCC unroll 8
        for (int j = 0; j < NC; j++) {
            __m256i i = acc[j];
            if (q4) {
                i = _mm256_add_epi32(gk_dp16_wide(i), _mm256_set1_epi32(a[j * lda + b].corr));
            }
            f[j] = _mm256_fmadd_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a[j * lda + b].d)), _mm256_cvtepi32_ps(i), f[j]);
        }
        if (wm) {
            const __m256 o = _mm256_loadu_ps(wm + (size_t) b * GK_GEMM_MR + 8 * h);
#pragma GCC unroll 8
            for (int j = 0; j < NC; j++) {
                f[j] = _mm256_fmadd_ps(o, _mm256_set1_ps(as[j * lda + b]), f[j]);
            }
        }
    }
    if (nr == 8) {
#pragma GCC unroll 8
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

// columns per micro-kernel call: Q4_0 keeps NC int16 and NC float
// accumulators, Q8_0 NC int32 and NC float, plus the weights (and their
// magnitudes), the broadcast and the ones: 16 registers in all. The
// AVX-VNNI build frees the ones (and Q4_0 no longer widens), but 7 and 6
// columns measured no faster there (4096 x 4096 by 512, one thread).
#ifndef NC_Q4
#define NC_Q4 6
#endif
#ifndef NC_Q8
#define NC_Q8 5
#endif

static GK_ALWAYS_INLINE void gemm(const bool q4, int nkb, const uint8_t * wq, const float * wd, const float * wm,
                                  int nrows, int ncols, const gk_block_q8_0x * a, const float * as, int64_t lda,
                                  float * c, int64_t ldc) {
    const int nc = q4 ? NC_Q4 : NC_Q8;
    for (int h = 0; h * 8 < nrows; h++) {
        const int nr = nrows - 8 * h < 8 ? nrows - 8 * h : 8;
        float * ch = c + 8 * h;
        int j = 0;
        for (; j + nc <= ncols; j += nc) {
            half8(q4, nc, nkb, wq, wd, wm, h, nr, a + j * lda, wm ? as + j * lda : NULL, lda, ch + j * ldc, ldc);
        }
        const float * ast = wm ? as + j * lda : NULL;
        switch (ncols - j) {
            case 1: half8(q4, 1, nkb, wq, wd, wm, h, nr, a + j * lda, ast, lda, ch + j * ldc, ldc); break;
            case 2: half8(q4, 2, nkb, wq, wd, wm, h, nr, a + j * lda, ast, lda, ch + j * ldc, ldc); break;
            case 3: half8(q4, 3, nkb, wq, wd, wm, h, nr, a + j * lda, ast, lda, ch + j * ldc, ldc); break;
            case 4: half8(q4, 4, nkb, wq, wd, wm, h, nr, a + j * lda, ast, lda, ch + j * ldc, ldc); break;
            case 5: half8(q4, 5, nkb, wq, wd, wm, h, nr, a + j * lda, ast, lda, ch + j * ldc, ldc); break;
            default: break;
        }
    }
}

void GK_X86_FN(gk_gemm_q4x)(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                      const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    gemm(true, nkb, wq, wd, NULL, nrows, ncols, a, NULL, lda, c, ldc);
}

void GK_X86_FN(gk_gemm_q8s)(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                      const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    gemm(false, nkb, wq, wd, NULL, nrows, ncols, a, NULL, lda, c, ldc);
}

void GK_X86_FN(gk_gemm_q8s_min)(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows, int ncols,
                          const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c, int64_t ldc) {
    gemm(false, nkb, wq, wd, wmin, nrows, ncols, a, asum, lda, c, ldc);
}
