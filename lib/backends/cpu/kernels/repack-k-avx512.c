/*
 * repack-k-avx512.c - the int8 GEMM on repacked Q4_K/Q6_K weight groups
 * (gk-repack.h) with AVX512-VNNI; called only when ggml_cpu_isa()->
 * use_vnni256 is set. The weights are read where they are stored, 16 rows
 * per stream; with one column this is the matrix-vector product.
 *
 * - Several columns (q4k(), q6k()): 512-bit VPDPBUSD, RPK_NC (8) columns
 *   per pass; a group stores the 64 bytes of a tile step for its 16 rows
 *   together, so one load and one vector serve all 16 rows (the 256-bit
 *   form needed two of each and ran at less than half the rate on a CPU
 *   with full-width 512-bit units, Zen 5).
 * - Q4_K: one load gives the nibbles of two sub-blocks (low: sub-block 2p,
 *   high: 2p + 1, taken in place as 16 times the value, the 1/16 in the
 *   scale: exact), each multiplied with four broadcast activation bytes of
 *   its Q8_0x block. Per sub-block the int32 dots are scaled by d * sc_j *
 *   a.d, and the mins come off in float: - dmin * m_j * (a.d * sum a.qs),
 *   from the caller's block sums.
 * - Q6_K: the 6-bit values rebuilt per tile vector from a nibble and two
 *   high bits (VPDPBUSD takes them unsigned, 0..63); the accumulator of a
 *   16-value sub-block starts at -32 * the sum of its activation half (the
 *   caller's), so that it holds (q - 32) . a; the block's two sub-blocks
 *   are scaled by d * sc_j, summed, and then by a.d.
 * - One column (decode): q4kv(), q6kv(), 512-bit, 16 rows per vector, on
 *   up to GK_RP_STREAMS groups at once (gk_rp_gemv_*: several memory
 *   streams; one group from the GEMM entry), the weights from DRAM; at two
 *   threads each thread must keep up with half of the memory's rate. In L2
 *   (one thread, 8 groups of K = 4096, per call 4 super-blocks as the
 *   driver): Q4_K 70 GB/s of weights one group at a time, 110 four at a
 *   time; Q6_K 48 (the 256-bit kernel it replaces), 65 (one), 74 (four).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"
#include "gk-x86.h"

#include <immintrin.h>

#define Q4K_GRP (GK_RP_ROWS * sizeof(gk_block_q4_K))
#define Q6K_GRP (GK_RP_ROWS * sizeof(gk_block_q6_K))

// --- Q4_K ---------------------------------------------------------------------

// At most this many super-blocks per pass over the columns (the caller's K
// step is 4): their scales and mins unpacked once for every column
#define Q4K_NSB 4

// The 6-bit scales (*sc) and mins (*mn) of sub-blocks 4h..4h+3 of
// super-block w for its 16 rows, a byte each ([sub-block][row]); hi: the
// group's high bits (GK_RPK4_SHI), loaded once for both halves
static GK_ALWAYS_INLINE void q4k_scale_bytes(const uint8_t * w, __m512i hi, int h, __m512i * sc, __m512i * mn) {
    const __m512i m4z = _mm512_set1_epi8(0xF), m30z = _mm512_set1_epi8(0x30);
    // 16-bit shift counts: lanes 0 and 2 of a pair's high bits as stored,
    // lanes 1 and 3 by 4 (the second sub-block of the pair)
    const __m512i hcnt = _mm512_set_epi64(4 * 0x0001000100010001ull, 4 * 0x0001000100010001ull, 0, 0,
                                          4 * 0x0001000100010001ull, 4 * 0x0001000100010001ull, 0, 0);
    const __m512i hsel0 = _mm512_set_epi64(3, 2, 3, 2, 1, 0, 1, 0), hsel1 = _mm512_set_epi64(7, 6, 7, 6, 5, 4, 5, 4);
    // sub-blocks 4h..4h+3: pairs 2h, 2h, 2h + 1, 2h + 1
    const __m512i lo = _mm512_loadu_si512((const void *) (w + GK_RPK4_SLO + 64 * h));
    const __m512i hh = _mm512_srlv_epi16(_mm512_permutexvar_epi64(h ? hsel1 : hsel0, hi), hcnt);
    // (lo & 15) | (hh & 3) << 4; (lo >> 4 & 15) | (hh >> 2 & 3) << 4
    *sc = _mm512_ternarylogic_epi32(_mm512_slli_epi16(hh, 4), m30z, _mm512_and_si512(lo, m4z), 0xEA);
    *mn = _mm512_ternarylogic_epi32(_mm512_slli_epi16(hh, 2), m30z, _mm512_and_si512(_mm512_srli_epi16(lo, 4), m4z),
                                    0xEA);
}

// The 6-bit scales and mins of super-block w's 8 sub-blocks for its 16
// rows, times d and dmin, as floats: sk[0][j][r] = d * sc_j (odd j: / 16,
// for q4k()'s high nibbles taken in place; exact, a power of 2), sk[1][j][r]
// = dmin * m_j (512-bit, four sub-blocks per vector for the bytes)
static GK_ALWAYS_INLINE void q4k_scales(const uint8_t * w, float sk[2][8][16]) {
    const __m512 dz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK4_D)));
    const __m512 dz16 = _mm512_mul_ps(dz, _mm512_set1_ps(0.0625f));
    const __m512 nz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK4_DMIN)));
    const __m512i hi = _mm512_loadu_si512((const void *) (w + GK_RPK4_SHI));
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i sc, mn;
        q4k_scale_bytes(w, hi, h, &sc, &mn);
        // (the lane index of VEXTRACTI32X4 an immediate at every -O)
        const __m128i su[4] = { _mm512_castsi512_si128(sc), _mm512_extracti32x4_epi32(sc, 1),
                                _mm512_extracti32x4_epi32(sc, 2), _mm512_extracti32x4_epi32(sc, 3) };
        const __m128i mu[4] = { _mm512_castsi512_si128(mn), _mm512_extracti32x4_epi32(mn, 1),
                                _mm512_extracti32x4_epi32(mn, 2), _mm512_extracti32x4_epi32(mn, 3) };
#pragma GCC unroll 4
        for (int u = 0; u < 4; u++) {
            _mm512_storeu_ps(sk[0][4 * h + u],
                             _mm512_mul_ps(u & 1 ? dz16 : dz, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(su[u]))));
            _mm512_storeu_ps(sk[1][4 * h + u], _mm512_mul_ps(nz, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(mu[u]))));
        }
    }
}

// Columns per pass of the multi-column kernels (q4k(), q6k()): their int32
// accumulators (two per column) and float sums (one) take 3 * 8 of the 32
// zmm registers, the weights and constants most of the rest
#ifndef RPK_NC
#define RPK_NC 8
#endif
_Static_assert(RPK_NC >= 1 && RPK_NC <= 8, "the kernels' arrays hold 8 columns");

// NC (<= RPK_NC) columns over nsb super-blocks, their scales and mins at sk
// (q4k_scales()); pf: the group's bytes to prefetch meanwhile (at the same
// offsets), or NULL. 512-bit: one load is step s of a pair for the 16 rows,
// its low nibbles sub-block 2p, its high ones (q & 0xF0, 16 times the
// value; the 1/16 is in sk) sub-block 2p + 1.
static GK_ALWAYS_INLINE void q4k(const int NC, int nsb, const uint8_t * g, const float sk[][2][8][16], int nrows,
                                 const gk_block_q8_0x * a, const float * as, int64_t lda, float * c, int64_t ldc,
                                 const uint8_t * pf) {
    const __m512i m4z = _mm512_set1_epi8(0xF);
    __m512 fz[8];
#pragma GCC unroll 8
    for (int j = 0; j < NC; j++) {
        fz[j] = _mm512_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q4K_GRP;
#pragma GCC unroll 1
        for (int p = 0; p < 4; p++) {
            const uint8_t * q = w + GK_RPK4_QS + 512 * p;
            const int64_t blk = 8 * (int64_t) sb + 2 * p;
            // [column][sub-block 2p, 2p + 1], rows 0-15
            __m512i iz[8][2];
#pragma GCC unroll 8
            for (int j = 0; j < NC; j++) {
                iz[j][0] = iz[j][1] = _mm512_setzero_si512();
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
                const __m512i pz = _mm512_loadu_si512((const void *) (q + 64 * s));
                const __m512i lz = _mm512_and_si512(pz, m4z), hz = _mm512_andnot_si512(m4z, pz);
#pragma GCC unroll 8
                for (int j = 0; j < NC; j++) {
                    iz[j][0] = _mm512_dpbusd_epi32(iz[j][0], lz, _mm512_set1_epi32(gk_ld32(a[j * lda + blk].qs + 4 * s)));
                    iz[j][1] = _mm512_dpbusd_epi32(iz[j][1], hz,
                                                   _mm512_set1_epi32(gk_ld32(a[j * lda + blk + 1].qs + 4 * s)));
                }
            }
#pragma GCC unroll 2
            for (int jj = 0; jj < 2; jj++) {
                const __m512 sz = _mm512_loadu_ps(sk[sb][0][2 * p + jj]);
                const __m512 kz = _mm512_loadu_ps(sk[sb][1][2 * p + jj]);
#pragma GCC unroll 8
                for (int j = 0; j < NC; j++) {
                    const __m512 da = _mm512_set1_ps(a[j * lda + blk + jj].d);
                    const __m512 ms = _mm512_set1_ps(as[j * lda + blk + jj]);
                    fz[j] = _mm512_fmadd_ps(_mm512_mul_ps(sz, da), _mm512_cvtepi32_ps(iz[j][jj]), fz[j]);
                    fz[j] = _mm512_fnmadd_ps(kz, ms, fz[j]);
                }
            }
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 8
    for (int j = 0; j < NC; j++) {
        _mm512_mask_storeu_ps(c + j * ldc, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c + j * ldc), fz[j]));
    }
}

// --- one column (decode) ----------------------------------------------------------

// Bytes ahead of the line being read that q4kv() and q6kv() prefetch in
// each group (0: none). A group's super-blocks are one sequential stream,
// but with four of them per loop the hardware prefetchers alone leave the
// memory idle part of the time, Q6_K most (its compute per byte is the
// highest). Driver pattern on 14336 x 4096 / 4096 x 14336 (one thread,
// weights from DRAM, GB/s of weights, best of 24 passes, PF 0 / 1024 /
// 2048): Q6_K 19-27 / 31-36 / 33-37, Q4_K 29-34 / 31-37 / 31-35.
#ifndef RPK_PF_Q4K
#define RPK_PF_Q4K 1024
#endif
#ifndef RPK_PF_Q6K
#define RPK_PF_Q6K 2048
#endif

// The matrix-vector product on NG (<= GK_RP_STREAMS) groups, their
// super-blocks read in the same loop, so that the weights come from NG
// memory streams (one thread reading one sequential stream does not get the
// DRAM bandwidth it gets from several: repack-avx512.c). Each group's
// arithmetic does not depend on NG (the results are the same to the bit
// with one group or four).
// Q4_K, with fewer vector operations per weight byte than q4k(1, ...),
// whose scale handling took nearly half of them (kernel alone, weights in
// L2, one thread, one group: 44 -> 61 GB/s of weights):
// - 512-bit vectors, 16 rows each (fewer instructions to issue);
// - the 6-bit scales and mins of all 8 sub-blocks of the super-block are
//   unpacked for the 16 rows at once (512-bit, four sub-blocks per vector)
//   into a scratch, from which each is widened by a load;
// - the high nibbles are taken as they stand (q & 0xF0, 16 times the value)
//   and the factor 1/16 goes into the activation scale (exact: a power of 2,
//   and 16 * the dot stays below 2^24);
// - per sub-block only the activation scale is applied; d and dmin once per
//   super-block, to the sums over its sub-blocks.
// Rows r < nrows of c[g] are written.
static GK_ALWAYS_INLINE void q4kv(const int NG, int nsb, const void * const * grp, const gk_block_q8_0x * a,
                                  const float * as, int nrows, float * const * c) {
    const __m512i m4z = _mm512_set1_epi8(0xF);
    __m512 fz[GK_RP_STREAMS];
    uint8_t sm[GK_RP_STREAMS][2][8][16] __attribute__((aligned(64))); // [group][scale, min][sub-block][row]
    const size_t PF = RPK_PF_Q4K;
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        fz[g] = _mm512_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const int64_t blk0 = 8 * (int64_t) sb;
        const size_t o = (size_t) sb * Q4K_GRP;
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            const uint8_t * w = (const uint8_t *) grp[g] + o;
            const __m512i hi = _mm512_loadu_si512((const void *) (w + GK_RPK4_SHI));
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                __m512i sc, mn;
                q4k_scale_bytes(w, hi, h, &sc, &mn);
                _mm512_store_si512((void *) sm[g][0][4 * h], sc);
                _mm512_store_si512((void *) sm[g][1][4 * h], mn);
            }
        }
        __m512 gz[GK_RP_STREAMS], hz[GK_RP_STREAMS];
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            gz[g] = hz[g] = _mm512_setzero_ps();
        }
#pragma GCC unroll 1
        for (int p = 0; p < 4; p++) {
            const int64_t blk = blk0 + 2 * p;
            const size_t oq = o + GK_RPK4_QS + 512 * (size_t) p;
            // [group][sub-block 2p, 2p + 1], rows 0-15
            __m512i i0[GK_RP_STREAMS], i1[GK_RP_STREAMS];
#pragma GCC unroll 4
            for (int g = 0; g < NG; g++) {
                i0[g] = i1[g] = _mm512_setzero_si512();
            }
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                const __m512i al = _mm512_set1_epi32(gk_ld32(a[blk].qs + 4 * s));
                const __m512i ah = _mm512_set1_epi32(gk_ld32(a[blk + 1].qs + 4 * s));
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
                    if (PF > 0) {
                        // the line PF ahead of this one (and of the
                        // super-block's 4 lines of scales)
                        _mm_prefetch((const char *) grp[g] + oq + 64 * s + PF, _MM_HINT_T0);
                        if (p == 0 && s < 4) {
                            _mm_prefetch((const char *) grp[g] + o + 64 * s + PF, _MM_HINT_T0);
                        }
                    }
                    const __m512i pz = _mm512_loadu_si512((const void *) ((const uint8_t *) grp[g] + oq + 64 * s));
                    i0[g] = _mm512_dpbusd_epi32(i0[g], _mm512_and_si512(pz, m4z), al);
                    i1[g] = _mm512_dpbusd_epi32(i1[g], _mm512_andnot_si512(m4z, pz), ah);
                }
            }
#pragma GCC unroll 2
            for (int jj = 0; jj < 2; jj++) {
                const int j = 2 * p + jj;
                const __m512 da = _mm512_set1_ps(jj ? a[blk + 1].d * 0.0625f : a[blk].d);
                const __m512 ms = _mm512_set1_ps(as[blk + jj]);
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
                    const __m512 sz =
                        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_load_si128((const __m128i *) sm[g][0][j])));
                    const __m512 kz =
                        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_load_si128((const __m128i *) sm[g][1][j])));
                    gz[g] = _mm512_fmadd_ps(_mm512_mul_ps(sz, da), _mm512_cvtepi32_ps(jj ? i1[g] : i0[g]), gz[g]);
                    hz[g] = _mm512_fmadd_ps(kz, ms, hz[g]);
                }
            }
        }
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            const uint8_t * w = (const uint8_t *) grp[g] + o;
            const __m512 dz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK4_D)));
            const __m512 nz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK4_DMIN)));
            fz[g] = _mm512_fnmadd_ps(nz, hz[g], _mm512_fmadd_ps(dz, gz[g], fz[g]));
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        _mm512_mask_storeu_ps(c[g], m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c[g]), fz[g]));
    }
}

void gk_rp_gemm_q4_K_vnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const float * as = (const float *) ext;
    if (ncols == 1) {
        q4kv(1, nsb, &grp, a, as, nrows, &c);
        return;
    }
    // Q4K_NSB super-blocks at a time: their scales and mins unpacked once,
    // then every column, RPK_NC at a time
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
        int j = 0;
        for (; j + RPK_NC <= ncols; j += RPK_NC) {
            q4k(RPK_NC, ns, gs, sk, nrows, a0 + j * lda, as0 + j * lda, lda, c + j * ldc, ldc, j == 0 ? pf : NULL);
        }
#define Q4K_REST(n)                                                                                                  \
    case n: q4k(n, ns, gs, sk, nrows, a0 + j * lda, as0 + j * lda, lda, c + j * ldc, ldc, j == 0 ? pf : NULL); break
        switch (ncols - j) {
            Q4K_REST(1);
            Q4K_REST(2);
            Q4K_REST(3);
            Q4K_REST(4);
            Q4K_REST(5);
            Q4K_REST(6);
            Q4K_REST(7);
            default: break;
        }
#undef Q4K_REST
    }
}

// --- Q6_K ---------------------------------------------------------------------

// The int8 scales of super-block w's 16 sub-blocks for its 16 rows, times
// d, as floats: sk[j][r] = d * sc_j
static GK_ALWAYS_INLINE void q6k_scales(const uint8_t * w, float sk[16][16]) {
    const __m512 dz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK6_D)));
#pragma GCC unroll 16
    for (int j = 0; j < 16; j++) {
        const __m128i v = _mm_loadu_si128((const __m128i *) (w + GK_RPK6_SC + 16 * j));
        _mm512_storeu_ps(sk[j], _mm512_mul_ps(dz, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v))));
    }
}

// NC (<= RPK_NC) columns over nsb super-blocks, their scales at sk
// (q6k_scales()); pf: as for q4k(). 512-bit: the low nibbles of step s of
// a block for the 16 rows are one load, their high bits another, shared by
// two steps.
static GK_ALWAYS_INLINE void q6k(const int NC, int nsb, const uint8_t * g, const float (*sk)[16][16], int nrows,
                                 const gk_block_q8_0x * a, const int32_t * hs, int64_t lda, float * c, int64_t ldc,
                                 const uint8_t * pf) {
    const __m512i m4z = _mm512_set1_epi8(0xF), m30z = _mm512_set1_epi8(0x30);
    __m512 fz[8];
#pragma GCC unroll 8
    for (int j = 0; j < NC; j++) {
        fz[j] = _mm512_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const uint8_t * w = g + (size_t) sb * Q6K_GRP;
#pragma GCC unroll 1
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t * lo = w + GK_RPK6_QS + GK_RPK6_BLK * ib;
            const uint8_t * hi = lo + 256;
            const int64_t blk = 8 * (int64_t) sb + ib;
            if (pf) {
                // the super-block's 53 lines, 7 per block
#pragma GCC unroll 7
                for (int l = 0; l < 7; l++) {
                    _mm_prefetch((const char *) pf + (size_t) sb * Q6K_GRP + 64 * (7 * ib + l), _MM_HINT_T0);
                }
            }
            // [column][sub-block: steps 0-3, 4-7], rows 0-15
            __m512i iz[8][2];
#pragma GCC unroll 8
            for (int j = 0; j < NC; j++) {
                const int32_t * h = hs + 2 * (j * lda + blk);
                iz[j][0] = _mm512_set1_epi32(h[0]);
                iz[j][1] = _mm512_set1_epi32(h[1]);
            }
            const __m512i hb2[2] = { _mm512_loadu_si512((const void *) hi), _mm512_loadu_si512((const void *) (hi + 64)) };
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const int sh = 2 * (s / 2); // the bits of step s in the high byte
                const __m512i pq = _mm512_loadu_si512((const void *) (lo + 64 * s));
                const __m512i hb = hb2[s % 2];
                // (pq & 15) | (hb << 4 - sh & 0x30); (pq >> 4 & 15) | (hb >> sh & 0x30)
                const __m512i wl = _mm512_ternarylogic_epi32(_mm512_and_si512(pq, m4z),
                                                             _mm512_slli_epi16(hb, 4 - sh), m30z, 0xF8);
                const __m512i wh = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(pq, 4), m4z),
                                                             sh ? _mm512_srli_epi16(hb, sh) : hb, m30z, 0xF8);
#pragma GCC unroll 8
                for (int j = 0; j < NC; j++) {
                    iz[j][0] = _mm512_dpbusd_epi32(iz[j][0], wl, _mm512_set1_epi32(gk_ld32(a[j * lda + blk].qs + 4 * s)));
                    iz[j][1] = _mm512_dpbusd_epi32(iz[j][1], wh,
                                                   _mm512_set1_epi32(gk_ld32(a[j * lda + blk].qs + 4 * s + 16)));
                }
            }
            // the block's two sub-blocks share the activation scale:
            // (s0 * i0 + s1 * i1) * a.d
            const __m512 s0 = _mm512_loadu_ps(sk[sb][2 * ib]), s1 = _mm512_loadu_ps(sk[sb][2 * ib + 1]);
#pragma GCC unroll 8
            for (int j = 0; j < NC; j++) {
                const __m512 gz = _mm512_fmadd_ps(s1, _mm512_cvtepi32_ps(iz[j][1]),
                                                  _mm512_mul_ps(s0, _mm512_cvtepi32_ps(iz[j][0])));
                fz[j] = _mm512_fmadd_ps(gz, _mm512_set1_ps(a[j * lda + blk].d), fz[j]);
            }
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 8
    for (int j = 0; j < NC; j++) {
        _mm512_mask_storeu_ps(c + j * ldc, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c + j * ldc), fz[j]));
    }
}

// Q6_K: per lane (row) the operations of the 256-bit one-column kernel it
// replaced (rows 0-7 and 8-15 in two vectors), the same values in the same
// order: the block's two sub-blocks each scaled by d * sc_j * a.d
static GK_ALWAYS_INLINE void q6kv(const int NG, int nsb, const void * const * grp, const gk_block_q8_0x * a,
                                  const int32_t * hs, int nrows, float * const * c) {
    const __m512i m4z = _mm512_set1_epi8(0xF), m30z = _mm512_set1_epi8(0x30);
    __m512 fz[GK_RP_STREAMS];
    const size_t PF = RPK_PF_Q6K;
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        fz[g] = _mm512_setzero_ps();
    }
    for (int sb = 0; sb < nsb; sb++) {
        const size_t o = (size_t) sb * Q6K_GRP;
#pragma GCC unroll 1
        for (int ib = 0; ib < 8; ib++) {
            const size_t olo = o + GK_RPK6_QS + GK_RPK6_BLK * (size_t) ib, ohi = olo + 256;
            if (PF > 0) {
                // 7 lines per block (the super-block's 52.5), PF ahead
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
#pragma GCC unroll 7
                    for (int l = 0; l < 7; l++) {
                        _mm_prefetch((const char *) grp[g] + o + 64 * (7 * ib + l) + PF, _MM_HINT_T0);
                    }
                }
            }
            const int64_t blk = 8 * (int64_t) sb + ib;
            // [group][sub-block: steps 0-3, 4-7], rows 0-15
            __m512i iz[GK_RP_STREAMS][2];
            const __m512i h0 = _mm512_set1_epi32(hs[2 * blk]), h1 = _mm512_set1_epi32(hs[2 * blk + 1]);
#pragma GCC unroll 4
            for (int g = 0; g < NG; g++) {
                iz[g][0] = h0;
                iz[g][1] = h1;
            }
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const int sh = 2 * (s / 2); // the bits of step s in the high byte
                const __m512i al = _mm512_set1_epi32(gk_ld32(a[blk].qs + 4 * s));
                const __m512i ah = _mm512_set1_epi32(gk_ld32(a[blk].qs + 4 * s + 16));
#pragma GCC unroll 4
                for (int g = 0; g < NG; g++) {
                    const uint8_t * w = (const uint8_t *) grp[g];
                    const __m512i pq = _mm512_loadu_si512((const void *) (w + olo + 64 * s));
                    const __m512i hb = _mm512_loadu_si512((const void *) (w + ohi + 64 * (s % 2)));
                    // (pq & 15) | (hb << 4 - sh & 0x30); (pq >> 4 & 15) | (hb >> sh & 0x30)
                    const __m512i wl = _mm512_ternarylogic_epi32(_mm512_and_si512(pq, m4z),
                                                                 _mm512_slli_epi16(hb, 4 - sh), m30z, 0xF8);
                    const __m512i wh = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(pq, 4), m4z),
                                                                 sh ? _mm512_srli_epi16(hb, sh) : hb, m30z, 0xF8);
                    iz[g][0] = _mm512_dpbusd_epi32(iz[g][0], wl, al);
                    iz[g][1] = _mm512_dpbusd_epi32(iz[g][1], wh, ah);
                }
            }
            const __m512 da = _mm512_set1_ps(a[blk].d);
#pragma GCC unroll 4
            for (int g = 0; g < NG; g++) {
                const uint8_t * w = (const uint8_t *) grp[g] + o;
                const __m512 dz = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (w + GK_RPK6_D)));
#pragma GCC unroll 2
                for (int u = 0; u < 2; u++) {
                    const __m128i v = _mm_loadu_si128((const __m128i *) (w + GK_RPK6_SC + 16 * (2 * ib + u)));
                    const __m512 sz = _mm512_mul_ps(dz, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)));
                    fz[g] = _mm512_fmadd_ps(_mm512_mul_ps(sz, da), _mm512_cvtepi32_ps(iz[g][u]), fz[g]);
                }
            }
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= 16 ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        _mm512_mask_storeu_ps(c[g], m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c[g]), fz[g]));
    }
}

void gk_rp_gemm_q6_K_vnni(int nsb, const void * grp, int nrows, int ncols, const gk_block_q8_0x * a,
                          const void * ext, int64_t lda, float * c, int64_t ldc) {
    const uint8_t * g = (const uint8_t *) grp;
    const int32_t * hs = (const int32_t *) ext;
    if (ncols == 1) {
        q6kv(1, nsb, &grp, a, hs, nrows, &c);
        return;
    }
    // as in gk_rp_gemm_q4_K_vnni: the scales of Q4K_NSB super-blocks at a
    // time converted once, every column RPK_NC at a time, the first pass
    // prefetching with few columns
    float sk[Q4K_NSB][16][16];
    for (int s0 = 0; s0 < nsb; s0 += Q4K_NSB) {
        const int ns = nsb - s0 < Q4K_NSB ? nsb - s0 : Q4K_NSB;
        const uint8_t * gs = g + (size_t) s0 * Q6K_GRP;
        for (int sb = 0; sb < ns; sb++) {
            q6k_scales(gs + (size_t) sb * Q6K_GRP, sk[sb]);
        }
        const gk_block_q8_0x * a0 = a + 8 * s0;
        const int32_t * hs0 = hs + 2 * 8 * s0;
        const uint8_t * pf = ncols <= 32 ? gs + (size_t) ns * Q6K_GRP : NULL;
        int j = 0;
        for (; j + RPK_NC <= ncols; j += RPK_NC) {
            q6k(RPK_NC, ns, gs, sk, nrows, a0 + j * lda, hs0 + 2 * j * lda, lda, c + j * ldc, ldc, j == 0 ? pf : NULL);
        }
#define Q6K_REST(n)                                                                                                  \
    case n:                                                                                                          \
        q6k(n, ns, gs, sk, nrows, a0 + j * lda, hs0 + 2 * j * lda, lda, c + j * ldc, ldc, j == 0 ? pf : NULL);      \
        break
        switch (ncols - j) {
            Q6K_REST(1);
            Q6K_REST(2);
            Q6K_REST(3);
            Q6K_REST(4);
            Q6K_REST(5);
            Q6K_REST(6);
            Q6K_REST(7);
            default: break;
        }
#undef Q6K_REST
    }
}

_Static_assert(GK_RP_STREAMS == 4, "the switches below");

void gk_rp_gemv_q4_K_vnni(int nsb, int ng, const void * const * grp, const gk_block_q8_0x * a, const void * ext,
                          float * const * c) {
    const float * as = (const float *) ext;
    switch (ng) {
        case 1: q4kv(1, nsb, grp, a, as, 16, c); break;
        case 2: q4kv(2, nsb, grp, a, as, 16, c); break;
        case 3: q4kv(3, nsb, grp, a, as, 16, c); break;
        case 4: q4kv(4, nsb, grp, a, as, 16, c); break;
        default: break;
    }
}

void gk_rp_gemv_q6_K_vnni(int nsb, int ng, const void * const * grp, const gk_block_q8_0x * a, const void * ext,
                          float * const * c) {
    const int32_t * hs = (const int32_t *) ext;
    switch (ng) {
        case 1: q6kv(1, nsb, grp, a, hs, 16, c); break;
        case 2: q6kv(2, nsb, grp, a, hs, 16, c); break;
        case 3: q6kv(3, nsb, grp, a, hs, 16, c); break;
        case 4: q6kv(4, nsb, grp, a, hs, 16, c); break;
        default: break;
    }
}
