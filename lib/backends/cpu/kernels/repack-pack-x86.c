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

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#define Q8_BLK sizeof(gk_block_q8_0)
#define Q4_BLK sizeof(gk_block_q4_0)
#define Q4K_BLK sizeof(gk_block_q4_K)
#define Q6K_BLK sizeof(gk_block_q6_K)

// a block of zeros standing for the rows past nrows (packs to zeros)
static const uint8_t g_zero_blk[256] __attribute__((aligned(32)));

// v[i]: 8 words of row i -> v[s]: word s of rows 0..7
static inline void tr8x8(__m256i v[8]) {
    const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]);
    const __m256i t1 = _mm256_unpackhi_epi32(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(v[4], v[5]);
    const __m256i t5 = _mm256_unpackhi_epi32(v[4], v[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(v[6], v[7]);
    const __m256i t7 = _mm256_unpackhi_epi32(v[6], v[7]);
    // rows 0-3 (u0..u3) and 4-7 (u4..u7): words s | s + 4
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2);
    const __m256i u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3);
    const __m256i u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6);
    const __m256i u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7);
    const __m256i u7 = _mm256_unpackhi_epi64(t5, t7);
    v[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    v[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    v[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    v[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    v[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    v[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    v[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    v[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

// the 8 words at p[r] of 16 rows -> tile steps 0..7 at o (64 bytes each)
static inline void tile8(const uint8_t * const * p, uint8_t * o) {
    for (int h = 0; h < 2; h++) {
        __m256i v[8];
        for (int i = 0; i < 8; i++) {
            v[i] = _mm256_loadu_si256((const __m256i *) p[8 * h + i]);
        }
        tr8x8(v);
        for (int s = 0; s < 8; s++) {
            _mm256_storeu_si256((__m256i *) (o + 64 * s + 32 * h), v[s]);
        }
    }
}

// v[i]: 16 bytes of row i -> v[k]: byte k of rows 0..15. Each round moves
// the top bit of the row index into the byte index (the pair's bytes
// interleaved); after four the indices have traded places.
static inline void tr16x16(__m128i v[16]) {
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

// the fp16 at p[r] + off of 16 rows -> 32 bytes at o
static inline void scales16(const uint8_t * const * p, size_t off, uint8_t * o) {
    for (int r = 0; r < GK_RP_ROWS; r++) {
        memcpy(o + 2 * r, p[r] + off, 2);
    }
}

void gk_repack_q8_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q8_BLK;
        const uint8_t * p[GK_RP_ROWS];
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q8_BLK;
        }
        scales16(p, 0, o);
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] += 2;
        }
        tile8(p, o + 2 * GK_RP_ROWS);
    }
}

void gk_repack_q4_0_avx2(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q4_BLK;
        const uint8_t * p[GK_RP_ROWS];
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4_BLK;
        }
        scales16(p, 0, o);
        // byte k of the block (values k, k + 16) is tile byte (r, k): the
        // rows' 4 words, 4 rows at a time
        uint8_t * q = o + 2 * GK_RP_ROWS;
        for (int g = 0; g < 4; g++) {
            const __m128i a0 = _mm_loadu_si128((const __m128i *) (p[4 * g + 0] + 2));
            const __m128i a1 = _mm_loadu_si128((const __m128i *) (p[4 * g + 1] + 2));
            const __m128i a2 = _mm_loadu_si128((const __m128i *) (p[4 * g + 2] + 2));
            const __m128i a3 = _mm_loadu_si128((const __m128i *) (p[4 * g + 3] + 2));
            const __m128i t0 = _mm_unpacklo_epi32(a0, a1);
            const __m128i t1 = _mm_unpackhi_epi32(a0, a1);
            const __m128i t2 = _mm_unpacklo_epi32(a2, a3);
            const __m128i t3 = _mm_unpackhi_epi32(a2, a3);
            _mm_storeu_si128((__m128i *) (q + 16 * g), _mm_unpacklo_epi64(t0, t2));
            _mm_storeu_si128((__m128i *) (q + 64 + 16 * g), _mm_unpackhi_epi64(t0, t2));
            _mm_storeu_si128((__m128i *) (q + 128 + 16 * g), _mm_unpacklo_epi64(t1, t3));
            _mm_storeu_si128((__m128i *) (q + 192 + 16 * g), _mm_unpackhi_epi64(t1, t3));
        }
    }
}

// --- Q4_K -----------------------------------------------------------------------

static inline __m128i and8(__m128i x, int m) {
    return _mm_and_si128(x, _mm_set1_epi8((char) m));
}

static void q4_K_pack_sb(const uint8_t * const * x, uint8_t * o) {
    // bytes 0..15 of each row: d, dmin, the 12 scale bytes q[0..11]
    __m128i v[16];
    for (int r = 0; r < GK_RP_ROWS; r++) {
        v[r] = _mm_loadu_si128((const __m128i *) x[r]);
    }
    tr16x16(v);
    _mm_storeu_si128((__m128i *) (o + GK_RPK4_D), _mm_unpacklo_epi8(v[0], v[1]));
    _mm_storeu_si128((__m128i *) (o + GK_RPK4_D + 16), _mm_unpackhi_epi8(v[0], v[1]));
    _mm_storeu_si128((__m128i *) (o + GK_RPK4_DMIN), _mm_unpacklo_epi8(v[2], v[3]));
    _mm_storeu_si128((__m128i *) (o + GK_RPK4_DMIN + 16), _mm_unpackhi_epi8(v[2], v[3]));
    const __m128i * q = v + 4;
    // sub-blocks 0-3: scale q[j] & 63, min q[j + 4] & 63; 4-7: low bits in
    // q[j + 4] (scale, min nibbles: already the SLO byte), high bits in the
    // top two bits of q[j - 4] (scale) and q[j] (min)
    for (int j = 0; j < 4; j++) {
        const __m128i lo = _mm_or_si128(and8(q[j], 0x0F), and8(_mm_slli_epi16(q[j + 4], 4), 0xF0));
        _mm_storeu_si128((__m128i *) (o + GK_RPK4_SLO + 16 * j), lo);
        _mm_storeu_si128((__m128i *) (o + GK_RPK4_SLO + 16 * (j + 4)), q[j + 8]);
    }
    // pair p: bits 4-5 of sc_2p, m_2p, sc_2p+1, m_2p+1 at 0, 2, 4, 6
    for (int p = 0; p < 2; p++) {
        const __m128i a = q[2 * p], b = q[2 * p + 4], c = q[2 * p + 1], d = q[2 * p + 5];
        const __m128i hi = _mm_or_si128(_mm_or_si128(and8(_mm_srli_epi16(a, 4), 0x03), and8(_mm_srli_epi16(b, 2), 0x0C)),
                                        _mm_or_si128(and8(c, 0x30), and8(_mm_slli_epi16(d, 2), 0xC0)));
        _mm_storeu_si128((__m128i *) (o + GK_RPK4_SHI + 16 * p), hi);
    }
    for (int p = 2; p < 4; p++) {
        const __m128i a = q[2 * p - 4], b = q[2 * p], c = q[2 * p - 3], d = q[2 * p + 1];
        const __m128i hi = _mm_or_si128(_mm_or_si128(and8(_mm_srli_epi16(a, 6), 0x03), and8(_mm_srli_epi16(b, 4), 0x0C)),
                                        _mm_or_si128(and8(_mm_srli_epi16(c, 2), 0x30), and8(d, 0xC0)));
        _mm_storeu_si128((__m128i *) (o + GK_RPK4_SHI + 16 * p), hi);
    }
    // pair p's tile byte (r, i) is the plain byte qs[32 p + i]
    const size_t qs = offsetof(gk_block_q4_K, qs);
    for (int p = 0; p < 4; p++) {
        const uint8_t * pp[GK_RP_ROWS];
        for (int r = 0; r < GK_RP_ROWS; r++) {
            pp[r] = x[r] + qs + 32 * p;
        }
        tile8(pp, o + GK_RPK4_QS + 512 * p);
    }
}

void gk_repack_q4_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
        for (int r = 0; r < GK_RP_ROWS; r++) {
            x[r] = r < nrows ? (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4K_BLK : g_zero_blk;
        }
        q4_K_pack_sb(x, (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q4K_BLK);
    }
}

// --- Q6_K -----------------------------------------------------------------------

static inline __m256i and8y(__m256i x, int m) {
    return _mm256_and_si256(x, _mm256_set1_epi8((char) m));
}

// Per row and half h (values 128h..128h+127: blocks 4h..4h+3) the bytes of
// its tiles as 8 words: kind 0: the low-nibble bytes of blocks 4h, 4h + 1
// (16 bytes each: byte k = nibble of value k | nibble of value k + 16 << 4),
// kind 1: those of blocks 4h + 2, 4h + 3, kind 2: the high-bit bytes of the
// four blocks (8 bytes each: byte k = bits 4-5 of values k, k + 8, k + 16,
// k + 24 at 0, 2, 4, 6).
static inline __m256i q6_K_row(const uint8_t * b, int h, int kind) {
    if (kind < 2) {
        // blocks 4h + c take ql[64h + 32 (c & 1) + k], nibble c >> 1
        const __m256i l0 = _mm256_loadu_si256((const __m256i *) (b + 64 * h));
        const __m256i l1 = _mm256_loadu_si256((const __m256i *) (b + 64 * h + 32));
        const __m256i x = _mm256_permute2x128_si256(l0, l1, 0x20); // values 0-15
        const __m256i y = _mm256_permute2x128_si256(l0, l1, 0x31); // values 16-31
        if (kind == 0) {
            return _mm256_or_si256(and8y(x, 0x0F), and8y(_mm256_slli_epi16(y, 4), 0xF0));
        }
        return _mm256_or_si256(and8y(_mm256_srli_epi16(x, 4), 0x0F), and8y(y, 0xF0));
    }
    // qh[32h + k] holds bits 4-5 of value k of blocks 4h + c at 2c; the
    // output wants, per block c (word c), the four groups of 8 values m
    // (word m of qh) at 2m: a 4 x 4 transposition of 2-bit fields per byte,
    // as a swap of the off-diagonal 2 x 2 quarters, then within them
    const __m256i g = _mm256_loadu_si256((const __m256i *) (b + offsetof(gk_block_q6_K, qh) + 32 * h));
    const __m256i p = _mm256_permute4x64_epi64(g, 0x4E); // words 2, 3, 0, 1
    const __m256i a = _mm256_or_si256(and8y(g, 0x0F), and8y(_mm256_slli_epi16(p, 4), 0xF0));
    const __m256i c = _mm256_or_si256(and8y(g, 0xF0), and8y(_mm256_srli_epi16(p, 4), 0x0F));
    const __m256i s = _mm256_blend_epi32(a, c, 0xF0);
    const __m256i q = _mm256_shuffle_epi32(s, 0x4E); // words 1, 0, 3, 2
    const __m256i e = _mm256_or_si256(and8y(s, 0x33), and8y(_mm256_slli_epi16(q, 2), 0xCC));
    const __m256i f = _mm256_or_si256(and8y(s, 0xCC), and8y(_mm256_srli_epi16(q, 2), 0x33));
    return _mm256_blend_epi32(e, f, 0xCC);
}

static void q6_K_pack_sb(const uint8_t * const * x, uint8_t * o) {
    __m128i v[16];
    for (int r = 0; r < GK_RP_ROWS; r++) {
        v[r] = _mm_loadu_si128((const __m128i *) (x[r] + offsetof(gk_block_q6_K, scales)));
    }
    tr16x16(v);
    for (int j = 0; j < 16; j++) {
        _mm_storeu_si128((__m128i *) (o + GK_RPK6_SC + 16 * j), v[j]);
    }
    scales16(x, offsetof(gk_block_q6_K, d), o + GK_RPK6_D);
    for (int h = 0; h < 2; h++) {
        uint8_t * blk = o + GK_RPK6_QS + GK_RPK6_BLK * 4 * h;
        for (int kind = 0; kind < 3; kind++) {
            for (int half = 0; half < 2; half++) {
                __m256i w[8];
                for (int i = 0; i < 8; i++) {
                    w[i] = q6_K_row(x[8 * half + i], h, kind);
                }
                tr8x8(w);
                for (int s = 0; s < 8; s++) {
                    // kind 0/1: words 0-3 block 2 kind, 4-7 the next, low
                    // nibbles' steps 0-3; kind 2: block s / 2, high bits'
                    // step s % 2
                    uint8_t * d = kind < 2 ? blk + GK_RPK6_BLK * (2 * kind + s / 4) + 64 * (s % 4)
                                           : blk + GK_RPK6_BLK * (s / 2) + 256 + 64 * (s % 2);
                    _mm256_storeu_si256((__m256i *) (d + 32 * half), w[s]);
                }
            }
        }
    }
}

void gk_repack_q6_K_avx2(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
        for (int r = 0; r < GK_RP_ROWS; r++) {
            x[r] = r < nrows ? (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q6K_BLK : g_zero_blk;
        }
        q6_K_pack_sb(x, (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q6K_BLK);
    }
}
