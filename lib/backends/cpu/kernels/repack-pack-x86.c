/*
 * repack-pack-x86.c - the packers of gk-repack.h (16 plain rows -> one
 * group) with AVX2, for set_tensor into CPU_REPACK: the same bytes as the
 * portable gk_repack_* (test-cpu-kernels compares them on random blocks).
 *
 * Every layout is, apart from its scales, a transposition of 4-byte words:
 * step s of a tile holds word s of each of the 16 rows. Q8_0's values, the
 * Q4_K pairs of sub-blocks and Q4_0's nibbles are the plain bytes in that
 * order (a Q4_0 byte holds values k and k + 16, as the tile byte does), so
 * they are 8 x 8 word transpositions of unaligned row loads; Q6_K first
 * rebuilds per row the bytes of its tiles (nibbles of two values, four
 * 2-bit high parts) with shifts and masks. The scales of 16 rows (Q4_K's
 * 12 packed bytes, Q6_K's 16) become one byte per row and vector by a
 * 16 x 16 byte transposition. Loads stay inside the plain blocks: the rows
 * come from any address.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"
#include "gk-x86.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#define Q8_BLK sizeof(gk_block_q8_0)
#define Q4_BLK sizeof(gk_block_q4_0)
#define Q4K_BLK sizeof(gk_block_q4_K)
#define Q6K_BLK sizeof(gk_block_q6_K)

// a block of zeros standing for the rows past nrows (packs to zeros)
static const uint8_t g_zero_blk[256] __attribute__((aligned(32)));

#define INLINE static inline __attribute__((always_inline))

// Stores: nt, the group's memory (32-byte aligned) with non-temporal
// stores (no read of the lines before they are written: a copy's traffic,
// and the weights are not read again soon); else plain ones (a scratch).
INLINE void st256(uint8_t * p, __m256i v, int nt) {
    if (nt) {
        _mm256_stream_si256((__m256i *) p, v);
    } else {
        _mm256_storeu_si256((__m256i *) p, v);
    }
}

INLINE void st128(uint8_t * p, __m128i v, int nt) {
    if (nt) {
        _mm_stream_si128((__m128i *) p, v);
    } else {
        _mm_storeu_si128((__m128i *) p, v);
    }
}

INLINE int ld16(const uint8_t * p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

// the fp16 at p[r] + off of 16 rows, row r in bytes 2r, 2r + 1
INLINE __m256i fp16x16(const uint8_t * const * p, size_t off) {
    __m128i a = _mm_cvtsi32_si128(ld16(p[0] + off));
    __m128i b = _mm_cvtsi32_si128(ld16(p[8] + off));
    a = _mm_insert_epi16(a, ld16(p[1] + off), 1);
    b = _mm_insert_epi16(b, ld16(p[9] + off), 1);
    a = _mm_insert_epi16(a, ld16(p[2] + off), 2);
    b = _mm_insert_epi16(b, ld16(p[10] + off), 2);
    a = _mm_insert_epi16(a, ld16(p[3] + off), 3);
    b = _mm_insert_epi16(b, ld16(p[11] + off), 3);
    a = _mm_insert_epi16(a, ld16(p[4] + off), 4);
    b = _mm_insert_epi16(b, ld16(p[12] + off), 4);
    a = _mm_insert_epi16(a, ld16(p[5] + off), 5);
    b = _mm_insert_epi16(b, ld16(p[13] + off), 5);
    a = _mm_insert_epi16(a, ld16(p[6] + off), 6);
    b = _mm_insert_epi16(b, ld16(p[14] + off), 6);
    a = _mm_insert_epi16(a, ld16(p[7] + off), 7);
    b = _mm_insert_epi16(b, ld16(p[15] + off), 7);
    return _mm256_set_m128i(b, a);
}

// the 8 words at p[r] of 16 rows -> tile steps 0..7 at o (64 bytes each)
INLINE void tile8(const uint8_t * const * p, uint8_t * o, int nt) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m256i v[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            v[i] = _mm256_loadu_si256((const __m256i *) p[8 * h + i]);
        }
        gk_transpose8x8_epi32(v);
#pragma GCC unroll 8
        for (int s = 0; s < 8; s++) {
            st256(o + 64 * s + 32 * h, v[s], nt);
        }
    }
}

// v[i]: 16 bytes of row i -> v[k]: byte k of rows 0..15. Each round moves
// the top bit of the row index into the byte index (the pair's bytes
// interleaved); after four the indices have traded places.
INLINE void tr16x16(__m128i v[16]) {
#pragma GCC unroll 4
    for (int round = 0; round < 4; round++) {
        __m128i t[16];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            t[2 * i] = _mm_unpacklo_epi8(v[i], v[i + 8]);
            t[2 * i + 1] = _mm_unpackhi_epi8(v[i], v[i + 8]);
        }
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            v[i] = t[i];
        }
    }
}

INLINE void q8_0_pack(const void * src, size_t bx, int64_t nblk, void * dst, int nt) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q8_BLK;
        const uint8_t * p[GK_RP_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q8_BLK;
        }
        st256(o, fp16x16(p, 0), nt);
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] += 2;
        }
        tile8(p, o + 2 * GK_RP_ROWS, nt);
    }
}

INLINE void q4_0_pack(const void * src, size_t bx, int64_t nblk, void * dst, int nt) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q4_BLK;
        const uint8_t * p[GK_RP_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4_BLK;
        }
        st256(o, fp16x16(p, 0), nt);
        // byte k of the block (values k, k + 16) is tile byte (r, k): the
        // rows' 4 words, 4 rows at a time
        uint8_t * q = o + 2 * GK_RP_ROWS;
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) {
            const __m128i a0 = _mm_loadu_si128((const __m128i *) (p[4 * g + 0] + 2));
            const __m128i a1 = _mm_loadu_si128((const __m128i *) (p[4 * g + 1] + 2));
            const __m128i a2 = _mm_loadu_si128((const __m128i *) (p[4 * g + 2] + 2));
            const __m128i a3 = _mm_loadu_si128((const __m128i *) (p[4 * g + 3] + 2));
            const __m128i t0 = _mm_unpacklo_epi32(a0, a1);
            const __m128i t1 = _mm_unpackhi_epi32(a0, a1);
            const __m128i t2 = _mm_unpacklo_epi32(a2, a3);
            const __m128i t3 = _mm_unpackhi_epi32(a2, a3);
            st128(q + 16 * g, _mm_unpacklo_epi64(t0, t2), nt);
            st128(q + 64 + 16 * g, _mm_unpackhi_epi64(t0, t2), nt);
            st128(q + 128 + 16 * g, _mm_unpacklo_epi64(t1, t3), nt);
            st128(q + 192 + 16 * g, _mm_unpackhi_epi64(t1, t3), nt);
        }
    }
}

// --- Q4_K -----------------------------------------------------------------------

INLINE __m128i and8(__m128i x, int m) {
    return _mm_and_si128(x, _mm_set1_epi8((char) m));
}

INLINE void q4_K_pack_sb(const uint8_t * const * x, uint8_t * o, int nt) {
    // bytes 0..15 of each row: d, dmin, the 12 scale bytes q[0..11]
    __m128i v[16];
#pragma GCC unroll 16
    for (int r = 0; r < GK_RP_ROWS; r++) {
        v[r] = _mm_loadu_si128((const __m128i *) x[r]);
    }
    tr16x16(v);
    st128(o + GK_RPK4_D, _mm_unpacklo_epi8(v[0], v[1]), nt);
    st128(o + GK_RPK4_D + 16, _mm_unpackhi_epi8(v[0], v[1]), nt);
    st128(o + GK_RPK4_DMIN, _mm_unpacklo_epi8(v[2], v[3]), nt);
    st128(o + GK_RPK4_DMIN + 16, _mm_unpackhi_epi8(v[2], v[3]), nt);
    const __m128i * q = v + 4;
    // sub-blocks 0-3: scale q[j] & 63, min q[j + 4] & 63; 4-7: low bits in
    // q[j + 4] (scale, min nibbles: already the SLO byte), high bits in the
    // top two bits of q[j - 4] (scale) and q[j] (min)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        const __m128i lo = _mm_or_si128(and8(q[j], 0x0F), and8(_mm_slli_epi16(q[j + 4], 4), 0xF0));
        st128(o + GK_RPK4_SLO + 16 * j, lo, nt);
        st128(o + GK_RPK4_SLO + 16 * (j + 4), q[j + 8], nt);
    }
    // pair p: bits 4-5 of sc_2p, m_2p, sc_2p+1, m_2p+1 at 0, 2, 4, 6
#pragma GCC unroll 2
    for (int p = 0; p < 2; p++) {
        const __m128i a = q[2 * p], b = q[2 * p + 4], c = q[2 * p + 1], d = q[2 * p + 5];
        const __m128i hi = _mm_or_si128(_mm_or_si128(and8(_mm_srli_epi16(a, 4), 0x03), and8(_mm_srli_epi16(b, 2), 0x0C)),
                                        _mm_or_si128(and8(c, 0x30), and8(_mm_slli_epi16(d, 2), 0xC0)));
        st128(o + GK_RPK4_SHI + 16 * p, hi, nt);
    }
#pragma GCC unroll 4
    for (int p = 2; p < 4; p++) {
        const __m128i a = q[2 * p - 4], b = q[2 * p], c = q[2 * p - 3], d = q[2 * p + 1];
        const __m128i hi = _mm_or_si128(_mm_or_si128(and8(_mm_srli_epi16(a, 6), 0x03), and8(_mm_srli_epi16(b, 4), 0x0C)),
                                        _mm_or_si128(and8(_mm_srli_epi16(c, 2), 0x30), and8(d, 0xC0)));
        st128(o + GK_RPK4_SHI + 16 * p, hi, nt);
    }
    // pair p's tile byte (r, i) is the plain byte qs[32 p + i]
    const size_t qs = offsetof(gk_block_q4_K, qs);
#pragma GCC unroll 4
    for (int p = 0; p < 4; p++) {
        const uint8_t * pp[GK_RP_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            pp[r] = x[r] + qs + 32 * p;
        }
        tile8(pp, o + GK_RPK4_QS + 512 * p, nt);
    }
}

INLINE void q4_K_pack(const void * src, size_t bx, int nrows, int64_t nsb, void * dst, int nt) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            x[r] = r < nrows ? (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4K_BLK : g_zero_blk;
        }
        q4_K_pack_sb(x, (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q4K_BLK, nt);
    }
}

// --- Q6_K -----------------------------------------------------------------------

INLINE __m256i and8y(__m256i x, int m) {
    return _mm256_and_si256(x, _mm256_set1_epi8((char) m));
}

// Q6_K: the plain bytes are first transposed as words (8 x 8, as Q8_0's),
// then the tile bytes are built from the transposed vectors, the same
// position of every row at once:
// - ql[64h + 32j + k], j < 2, holds value k of block 4h + j in its low
//   nibble and of block 4h + j + 2 in its high one. The tile's low-nibble
//   byte k (< 16) is the nibble of value k | that of value k + 16 << 4:
//   step s (< 4) of those bytes combines words s and s + 4 of the 32.
// - qh[32h + k] holds bits 4-5 of value k of block 4h + c at 2c. The
//   high-bit byte k (< 8) of block c holds those of values k + 8m at 2m:
//   step t (< 2) is, per byte, a 4 x 4 transposition of 2-bit fields of
//   words t, t + 2, t + 4, t + 6 (m = 0..3): a swap of the off-diagonal
//   2 x 2 quarters, then within them.
// Each block is read front to back (ql, qh, scales, d): with the scales
// read first, packing from DRAM ran at two thirds of the speed.

// swaps the bits (x >> n) & m of a with the bits b & m (delta swap)
#define DSWAP(a, b, n, m)                                                                                   \
    do {                                                                                                    \
        const __m256i d_ = and8y(_mm256_xor_si256(_mm256_srli_epi16((a), (n)), (b)), (m));                  \
        (b) = _mm256_xor_si256((b), d_);                                                                    \
        (a) = _mm256_xor_si256((a), _mm256_slli_epi16(d_, (n)));                                            \
    } while (0)

INLINE void q6_K_pack_sb(const uint8_t * const * x, uint8_t * o, int nt) {
    uint8_t * qs = o + GK_RPK6_QS;
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
#pragma GCC unroll 2
        for (int j = 0; j < 2; j++) {
            uint8_t * b0 = qs + GK_RPK6_BLK * (4 * h + j);
            uint8_t * b2 = qs + GK_RPK6_BLK * (4 * h + j + 2);
#pragma GCC unroll 2
            for (int half = 0; half < 2; half++) {
                __m256i t[8];
#pragma GCC unroll 8
                for (int i = 0; i < 8; i++) {
                    t[i] = _mm256_loadu_si256((const __m256i *) (x[8 * half + i] + 64 * h + 32 * j));
                }
                gk_transpose8x8_epi32(t);
#pragma GCC unroll 4
                for (int s = 0; s < 4; s++) {
                    st256(b0 + 64 * s + 32 * half,
                          _mm256_or_si256(and8y(t[s], 0x0F), and8y(_mm256_slli_epi16(t[s + 4], 4), 0xF0)), nt);
                    st256(b2 + 64 * s + 32 * half,
                          _mm256_or_si256(and8y(_mm256_srli_epi16(t[s], 4), 0x0F), and8y(t[s + 4], 0xF0)), nt);
                }
            }
        }
    }
    // then the high bits (qh, after ql in the block)
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
#pragma GCC unroll 2
        for (int half = 0; half < 2; half++) {
            __m256i t[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++) {
                t[i] = _mm256_loadu_si256((const __m256i *) (x[8 * half + i] + offsetof(gk_block_q6_K, qh) + 32 * h));
            }
            gk_transpose8x8_epi32(t);
#pragma GCC unroll 2
            for (int st = 0; st < 2; st++) {
                __m256i a0 = t[st], a1 = t[st + 2], a2 = t[st + 4], a3 = t[st + 6];
                DSWAP(a0, a2, 4, 0x0F);
                DSWAP(a1, a3, 4, 0x0F);
                DSWAP(a0, a1, 2, 0x33);
                DSWAP(a2, a3, 2, 0x33);
                uint8_t * hb = qs + GK_RPK6_BLK * 4 * h + 256 + 64 * st + 32 * half;
                st256(hb, a0, nt);
                st256(hb + GK_RPK6_BLK, a1, nt);
                st256(hb + 2 * GK_RPK6_BLK, a2, nt);
                st256(hb + 3 * GK_RPK6_BLK, a3, nt);
            }
        }
    }
    // the scales and d, last in the block
    __m128i v[16];
#pragma GCC unroll 16
    for (int r = 0; r < GK_RP_ROWS; r++) {
        v[r] = _mm_loadu_si128((const __m128i *) (x[r] + offsetof(gk_block_q6_K, scales)));
    }
    tr16x16(v);
#pragma GCC unroll 16
    for (int j = 0; j < 16; j++) {
        st128(o + GK_RPK6_SC + 16 * j, v[j], nt);
    }
    st256(o + GK_RPK6_D, fp16x16(x, offsetof(gk_block_q6_K, d)), nt);
}

INLINE void q6_K_pack(const void * src, size_t bx, int nrows, int64_t nsb, void * dst, int nt) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            x[r] = r < nrows ? (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q6K_BLK : g_zero_blk;
        }
        q6_K_pack_sb(x, (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q6K_BLK, nt);
    }
}

// --- entry points ---------------------------------------------------------------

void gk_repack_q8_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst) {
    q8_0_pack(src, bx, nblk, dst, 0);
}

void gk_repack_q4_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst) {
    q4_0_pack(src, bx, nblk, dst, 0);
}

void gk_repack_q4_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    q4_K_pack(src, bx, nrows, nsb, dst, 0);
}

void gk_repack_q6_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    q6_K_pack(src, bx, nrows, nsb, dst, 0);
}

void gk_repack_q8_0_avx2_nt(const void * src, size_t bx, int64_t nblk, void * dst) {
    q8_0_pack(src, bx, nblk, dst, 1);
    _mm_sfence();
}

void gk_repack_q4_0_avx2_nt(const void * src, size_t bx, int64_t nblk, void * dst) {
    q4_0_pack(src, bx, nblk, dst, 1);
    _mm_sfence();
}

void gk_repack_q4_K_avx2_nt(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    q4_K_pack(src, bx, nrows, nsb, dst, 1);
    _mm_sfence();
}

void gk_repack_q6_K_avx2_nt(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    q6_K_pack(src, bx, nrows, nsb, dst, 1);
    _mm_sfence();
}
