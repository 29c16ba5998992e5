/*
 * repack-k-x86.c - the int8 GEMM on repacked Q4_K/Q6_K weight groups
 * (gk-repack.h) with AVX2 alone (VPMADDUBSW; called only after the CPU was
 * checked for AVX2/FMA/F16C). The arithmetic of repack-k-avx512.c with
 * VPMADDUBSW (unsigned weight bytes times signed activation bytes, pairs
 * added into int16) and VPMADDWD with ones (pairs of those into int32):
 * - Q4_K: a pair is at most 2 * 15 * 127, so a 32-value sub-block (eight
 *   steps) adds up in int16 (8 * 3810 < 32768), one VPMADDWD per sub-block;
 * - Q6_K: a pair is at most 2 * 63 * 127 = 16002, two steps add up in
 *   int16, then into the int32 accumulator that starts at -32 * the sum of
 *   the activation half.
 * One column reads both halves of the group (16 rows) per super-block, so
 * that each cache line is read once, whole; more columns (up to three)
 * take the halves in two passes, which the 16 registers leave room for.
 * The steps go through gk_dp16 and gk_dp32 (gk-x86.h) or, for Q6_K's pairs
 * of steps, an AVX-VNNI form of their own, so that
 * repack-k-avxvnni.c builds the same kernels on AVX-VNNI (one VPDPBUSD a
 * step; the same integer sums and bits) as gk_rp_gemm_q4_K_avxvnni and
 * gk_rp_gemm_q6_K_avxvnni.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"
#include "gk-x86.h"

#include <immintrin.h>

#define Q4K_GRP (GK_RP_ROWS * sizeof(gk_block_q4_K))
#define Q6K_GRP (GK_RP_ROWS * sizeof(gk_block_q6_K))

// c[r] += f[r / 8][r % 8] for r < nr (rows of the pass)
static GK_ALWAYS_INLINE void store(float * c, int nr, const int H, const __m256 * f) {
    if (nr == 8 * H) {
#pragma GCC unroll 2
        for (int h = 0; h < H; h++) {
            _mm256_storeu_ps(c + 8 * h, _mm256_add_ps(_mm256_loadu_ps(c + 8 * h), f[h]));
        }
        return;
    }
    float t[16];
#pragma GCC unroll 2
    for (int h = 0; h < H; h++) {
        _mm256_storeu_ps(t + 8 * h, f[h]);
    }
    for (int r = 0; r < nr; r++) {
        c[r] += t[r];
    }
}

// 8 bytes (unsigned or signed) as a float vector times d
static GK_ALWAYS_INLINE __m256 bytes8_ps(const uint8_t * p, bool sgn, __m256 d) {
    const __m128i v = _mm_loadl_epi64((const __m128i *) p);
    return _mm256_mul_ps(d, _mm256_cvtepi32_ps(sgn ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v)));
}

// --- Q4_K ---------------------------------------------------------------------

// At most this many super-blocks per pass over the columns (the caller's K
// step is 4): their scales and mins unpacked once for every column
#define Q4K_NSB 4

// The scales and mins of sub-blocks 2p + jj (jj = 0, 1) of super-block w,
// times d and dmin, as floats: s[h][jj], k[h][jj] for rows 8h .. 8h + 7.
// The 6-bit fields are decoded for all 16 rows per instruction (until 28
// November eight rows at a time: a third of the one-column kernel's
// instructions)
static GK_ALWAYS_INLINE void q4k_scales_pair16(const uint8_t * w, int p, __m256 s[2][2], __m256 k[2][2]) {
    const __m128i m4x = _mm_set1_epi8(0xF), m3x = _mm_set1_epi8(3);
    __m256 d[2], dm[2];
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        d[h] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + GK_RPK4_D + 16 * h)));
        dm[h] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + GK_RPK4_DMIN + 16 * h)));
    }
    const __m128i hb = _mm_loadu_si128((const __m128i *) (w + GK_RPK4_SHI + 16 * p));
#pragma GCC unroll 2
    for (int jj = 0; jj < 2; jj++) {
        const __m128i lo = _mm_loadu_si128((const __m128i *) (w + GK_RPK4_SLO + 16 * (2 * p + jj)));
        const __m128i hh = jj ? _mm_srli_epi16(hb, 4) : hb;
        const __m128i sc = _mm_or_si128(_mm_and_si128(lo, m4x), _mm_slli_epi16(_mm_and_si128(hh, m3x), 4));
        const __m128i mn = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(lo, 4), m4x),
                                        _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(hh, 2), m3x), 4));
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m128i sch = h ? _mm_unpackhi_epi64(sc, sc) : sc;
            const __m128i mnh = h ? _mm_unpackhi_epi64(mn, mn) : mn;
            s[h][jj] = _mm256_mul_ps(d[h], _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sch)));
            k[h][jj] = _mm256_mul_ps(dm[h], _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(mnh)));
        }
    }
}

// The 6-bit scales and mins of super-block w's 8 sub-blocks for its 16
// rows, times d and dmin, as floats: sk[0][j][r] = d * sc_j, sk[1][j][r] =
// dmin * m_j
static GK_ALWAYS_INLINE void q4k_scales(const uint8_t * w, float sk[2][8][16]) {
    for (int p = 0; p < 4; p++) {
        __m256 s[2][2], k[2][2];
        q4k_scales_pair16(w, p, s, k);
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
#pragma GCC unroll 2
            for (int jj = 0; jj < 2; jj++) {
                _mm256_storeu_ps(sk[0][2 * p + jj] + 8 * h, s[h][jj]);
                _mm256_storeu_ps(sk[1][2 * p + jj] + 8 * h, k[h][jj]);
            }
        }
    }
}

// One column (ncols == 1, the AVX2 / AVX-VNNI decode of repacked weights:
// one group per call, one stream per thread): bytes ahead of the line being
// read that q4k() / q6k() prefetch (0: none). The caller runs one group
// over all of K, and the next group follows this one in memory, so the
// lines ahead are always the ones read next. Without them the one stream
// read 19 (Q4_K) and 14 (Q6_K) GB/s from DRAM on Zen 5 (one thread, the
// driver's pattern, AVX-VNNI); 1 KiB ahead 26-27 / 22, 2 KiB 28 / 24,
// 4 KiB 29-33 / 25-27, 8 KiB (Q4_K) as 4 KiB or a little more, Q6_K less.
#ifndef RPK1_PF_Q4K
#define RPK1_PF_Q4K 8192
#endif
#ifndef RPK1_PF_Q6K
#define RPK1_PF_Q6K 4096
#endif

// rows 8 h0 .. 8 (h0 + H) - 1 of the group (nr of them), NC columns, the
// super-blocks' scales and mins at sk (NULL: unpacked here, for one
// column); pf: the group's bytes to prefetch meanwhile (same offsets), or NULL
static GK_ALWAYS_INLINE void q4k(const int NC, const int H, int h0, int nsb, const uint8_t * g,
                                 const float (*sk)[2][8][16], int nr, const gk_block_q8_0x * a, const float * as,
                                 int64_t lda, float * c, int64_t ldc, const uint8_t * pf) {
    const __m256i m4 = _mm256_set1_epi8(0xF);
    __m256 f[3][2];
#pragma GCC unroll 3
    for (int j = 0; j < NC; j++) {
        f[j][0] = f[j][1] = _mm256_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q4K_GRP;
        for (int p = 0; p < 4; p++) {
            const uint8_t * q = w + GK_RPK4_QS + 512 * p + 32 * h0;
            const int64_t blk = 8 * (int64_t) sb + 2 * p;
            // [column][sub-block 2p, 2p + 1][half]: int16 sums
            __m256i i[3][2][2];
#pragma GCC unroll 3
            for (int j = 0; j < NC; j++) {
                i[j][0][0] = i[j][0][1] = i[j][1][0] = i[j][1][1] = _mm256_setzero_si256();
            }
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                if (pf) {
                    // one line of the values per step, and the 4 of the scales
                    const size_t o = (size_t) sb * Q4K_GRP;
                    _mm_prefetch((const char *) pf + o + GK_RPK4_QS + 512 * p + 64 * s, _MM_HINT_T0);
                    if (p == 0 && s < 4) {
                        _mm_prefetch((const char *) pf + o + 64 * s, _MM_HINT_T0);
                    }
                }
#pragma GCC unroll 2
                for (int h = 0; h < H; h++) {
                    const __m256i pq = _mm256_loadu_si256((const __m256i *) (q + 64 * s + 32 * h));
                    const __m256i l = _mm256_and_si256(pq, m4);
                    const __m256i u = _mm256_and_si256(_mm256_srli_epi16(pq, 4), m4);
#pragma GCC unroll 3
                    for (int j = 0; j < NC; j++) {
                        const __m256i al = _mm256_set1_epi32(gk_ld32(a[j * lda + blk].qs + 4 * s));
                        const __m256i ah = _mm256_set1_epi32(gk_ld32(a[j * lda + blk + 1].qs + 4 * s));
                        i[j][0][h] = gk_dp16(i[j][0][h], l, al);
                        i[j][1][h] = gk_dp16(i[j][1][h], u, ah);
                    }
                }
            }
            // (no sk: the one-column call, both halves, H = 2)
            __m256 s16[2][2], k16[2][2];
            if (!sk) {
                q4k_scales_pair16(w, p, s16, k16);
            }
#pragma GCC unroll 2
            for (int h = 0; h < H; h++) {
                const int o = 8 * (h0 + h);
                __m256 s2[2], k2[2];
                if (sk) {
                    s2[0] = _mm256_loadu_ps(sk[sb][0][2 * p] + o);
                    s2[1] = _mm256_loadu_ps(sk[sb][0][2 * p + 1] + o);
                    k2[0] = _mm256_loadu_ps(sk[sb][1][2 * p] + o);
                    k2[1] = _mm256_loadu_ps(sk[sb][1][2 * p + 1] + o);
                } else {
                    s2[0] = s16[h][0];
                    s2[1] = s16[h][1];
                    k2[0] = k16[h][0];
                    k2[1] = k16[h][1];
                }
#pragma GCC unroll 2
                for (int jj = 0; jj < 2; jj++) {
                    const __m256 s = s2[jj], k = k2[jj];
#pragma GCC unroll 3
                    for (int j = 0; j < NC; j++) {
                        const __m256 da = _mm256_set1_ps(a[j * lda + blk + jj].d);
                        const __m256i v = gk_dp16_wide(i[j][jj][h]);
                        f[j][h] = _mm256_fmadd_ps(_mm256_mul_ps(s, da), _mm256_cvtepi32_ps(v), f[j][h]);
                        f[j][h] = _mm256_fnmadd_ps(k, _mm256_set1_ps(as[j * lda + blk + jj]), f[j][h]);
                    }
                }
            }
        }
    }
#pragma GCC unroll 3
    for (int j = 0; j < NC; j++) {
        store(c + j * ldc, nr, H, f[j]);
    }
}

// --- Q6_K ---------------------------------------------------------------------

// pf: as for q4k()
static GK_ALWAYS_INLINE void q6k(const int NC, const int H, int h0, int nsb, const uint8_t * g, int nr,
                                 const gk_block_q8_0x * a, const int32_t * hs, int64_t lda, float * c, int64_t ldc,
                                 const uint8_t * pf) {
    const __m256i m4 = _mm256_set1_epi8(0xF), m30 = _mm256_set1_epi8(0x30);
#ifndef GK_AVXVNNI
    const __m256i ones = _mm256_set1_epi16(1);
#endif
    __m256 f[3][2];
#pragma GCC unroll 3
    for (int j = 0; j < NC; j++) {
        f[j][0] = f[j][1] = _mm256_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q6K_GRP;
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * lo = w + GK_RPK6_QS + GK_RPK6_BLK * ib + 32 * h0;
            const uint8_t * hi = w + GK_RPK6_QS + GK_RPK6_BLK * ib + 256 + 32 * h0;
            const int64_t blk = 8 * (int64_t) sb + ib;
            if (pf) {
                // the super-block's 53 lines, 7 per block
#pragma GCC unroll 7
                for (int l = 0; l < 7; l++) {
                    _mm_prefetch((const char *) pf + (size_t) sb * Q6K_GRP + 64 * (7 * ib + l), _MM_HINT_T0);
                }
            }
            // [column][sub-block: steps 0-3, 4-7][half]: int32 sums
            __m256i i[3][2][2];
#pragma GCC unroll 3
            for (int j = 0; j < NC; j++) {
                const int32_t * hj = hs + 2 * (j * lda + blk);
                i[j][0][0] = i[j][0][1] = _mm256_set1_epi32(hj[0]);
                i[j][1][0] = i[j][1][1] = _mm256_set1_epi32(hj[1]);
            }
#pragma GCC unroll 2
            for (int s2 = 0; s2 < 2; s2++) {
#pragma GCC unroll 2
                for (int h = 0; h < H; h++) {
                    // steps 2 s2, 2 s2 + 1 (and 4 more): their high bits at 2 s2 (and 2 s2 + 4)
                    const int sh = 2 * s2;
                    const __m256i hb0 = _mm256_loadu_si256((const __m256i *) (hi + 32 * h));
                    const __m256i hb1 = _mm256_loadu_si256((const __m256i *) (hi + 64 + 32 * h));
                    const __m256i p0 = _mm256_loadu_si256((const __m256i *) (lo + 64 * (2 * s2) + 32 * h));
                    const __m256i p1 = _mm256_loadu_si256((const __m256i *) (lo + 64 * (2 * s2 + 1) + 32 * h));
                    const __m256i wl0 = _mm256_or_si256(_mm256_and_si256(p0, m4),
                                                        _mm256_and_si256(_mm256_slli_epi16(hb0, 4 - sh), m30));
                    const __m256i wl1 = _mm256_or_si256(_mm256_and_si256(p1, m4),
                                                        _mm256_and_si256(_mm256_slli_epi16(hb1, 4 - sh), m30));
                    const __m256i wh0 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(p0, 4), m4),
                                                        _mm256_and_si256(_mm256_srli_epi16(hb0, sh), m30));
                    const __m256i wh1 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(p1, 4), m4),
                                                        _mm256_and_si256(_mm256_srli_epi16(hb1, sh), m30));
#pragma GCC unroll 3
                    for (int j = 0; j < NC; j++) {
                        const int8_t * aq = a[j * lda + blk].qs + 8 * s2;
#ifdef GK_AVXVNNI
                        i[j][0][h] = gk_dp32(gk_dp32(i[j][0][h], wl0, _mm256_set1_epi32(gk_ld32(aq))), wl1,
                                             _mm256_set1_epi32(gk_ld32(aq + 4)));
                        i[j][1][h] = gk_dp32(gk_dp32(i[j][1][h], wh0, _mm256_set1_epi32(gk_ld32(aq + 16))), wh1,
                                             _mm256_set1_epi32(gk_ld32(aq + 20)));
#else
                        // two steps added in int16 (see the top), then widened
                        const __m256i tl = _mm256_add_epi16(
                            _mm256_maddubs_epi16(wl0, _mm256_set1_epi32(gk_ld32(aq))),
                            _mm256_maddubs_epi16(wl1, _mm256_set1_epi32(gk_ld32(aq + 4))));
                        const __m256i th = _mm256_add_epi16(
                            _mm256_maddubs_epi16(wh0, _mm256_set1_epi32(gk_ld32(aq + 16))),
                            _mm256_maddubs_epi16(wh1, _mm256_set1_epi32(gk_ld32(aq + 20))));
                        i[j][0][h] = _mm256_add_epi32(i[j][0][h], _mm256_madd_epi16(tl, ones));
                        i[j][1][h] = _mm256_add_epi32(i[j][1][h], _mm256_madd_epi16(th, ones));
#endif
                    }
                }
            }
#pragma GCC unroll 2
            for (int h = 0; h < H; h++) {
                const int o = 8 * (h0 + h);
                const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (w + GK_RPK6_D + 2 * o)));
#pragma GCC unroll 2
                for (int u = 0; u < 2; u++) {
                    const __m256 s = bytes8_ps(w + GK_RPK6_SC + 16 * (2 * ib + u) + o, true, d);
#pragma GCC unroll 3
                    for (int j = 0; j < NC; j++) {
                        const __m256 da = _mm256_set1_ps(a[j * lda + blk].d);
                        f[j][h] = _mm256_fmadd_ps(_mm256_mul_ps(s, da), _mm256_cvtepi32_ps(i[j][u][h]), f[j][h]);
                    }
                }
            }
        }
    }
#pragma GCC unroll 3
    for (int j = 0; j < NC; j++) {
        store(c + j * ldc, nr, H, f[j]);
    }
}

// --- dispatch -----------------------------------------------------------------

void GK_X86_FN(gk_rp_gemm_q4_K)(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const float * as = (const float *) ext;
    if (ncols == 1) {
        q4k(1, 2, 0, nsb, g, NULL, nrows, a, as, lda, c, ldc, RPK1_PF_Q4K ? g + RPK1_PF_Q4K : NULL);
        return;
    }
    // Q4K_NSB super-blocks at a time: their scales and mins unpacked once,
    // then every column
    float sk[Q4K_NSB][2][8][16];
    for (int s0 = 0; s0 < nsb; s0 += Q4K_NSB) {
        const int ns = nsb - s0 < Q4K_NSB ? nsb - s0 : Q4K_NSB;
        const uint8_t * gs = g + (size_t) s0 * Q4K_GRP;
        for (int sb = 0; sb < ns; sb++) {
            q4k_scales(gs + (size_t) sb * Q4K_GRP, sk[sb]);
        }
        const gk_block_q8_0x * a0 = a + 8 * s0;
        const float * as0 = as + 8 * s0;
        // With few columns the caller runs one tile over all of K: the first
        // columns prefetch the group's next super-blocks (the next call's)
        const uint8_t * pf = ncols <= 32 ? gs + (size_t) ns * Q4K_GRP : NULL;
        for (int h = 0; 8 * h < nrows; h++) {
            const int nr = nrows - 8 * h < 8 ? nrows - 8 * h : 8;
            for (int j = 0; j < ncols; j += 3) {
                const int nc = ncols - j < 3 ? ncols - j : 3;
                const gk_block_q8_0x * aj = a0 + j * lda;
                const float * asj = as0 + j * lda;
                float * cj = c + j * ldc + 8 * h;
                const uint8_t * pj = j == 0 && h == 0 ? pf : NULL;
                if (nc == 1) {
                    q4k(1, 1, h, ns, gs, sk, nr, aj, asj, lda, cj, ldc, pj);
                } else if (nc == 2) {
                    q4k(2, 1, h, ns, gs, sk, nr, aj, asj, lda, cj, ldc, pj);
                } else {
                    q4k(3, 1, h, ns, gs, sk, nr, aj, asj, lda, cj, ldc, pj);
                }
            }
        }
    }
}

void GK_X86_FN(gk_rp_gemm_q6_K)(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const int32_t * hs = (const int32_t *) ext;
    if (ncols == 1) {
        q6k(1, 2, 0, nsb, g, nrows, a, hs, lda, c, ldc, RPK1_PF_Q6K ? g + RPK1_PF_Q6K : NULL);
        return;
    }
    // (as in gk_rp_gemm_q4_K_avx2)
    const uint8_t * pf = ncols <= 32 ? g + (size_t) nsb * Q6K_GRP : NULL;
    for (int h = 0; 8 * h < nrows; h++) {
        const int nr = nrows - 8 * h < 8 ? nrows - 8 * h : 8;
        for (int j = 0; j < ncols; j += 3) {
            const int nc = ncols - j < 3 ? ncols - j : 3;
            if (nc == 1) {
                q6k(1, 1, h, nsb, g, nr, a + j * lda, hs + 2 * j * lda, lda, c + j * ldc + 8 * h, ldc,
                    j == 0 && h == 0 ? pf : NULL);
            } else if (nc == 2) {
                q6k(2, 1, h, nsb, g, nr, a + j * lda, hs + 2 * j * lda, lda, c + j * ldc + 8 * h, ldc,
                    j == 0 && h == 0 ? pf : NULL);
            } else {
                q6k(3, 1, h, nsb, g, nr, a + j * lda, hs + 2 * j * lda, lda, c + j * ldc + 8 * h, ldc,
                    j == 0 && h == 0 ? pf : NULL);
            }
        }
    }
}
