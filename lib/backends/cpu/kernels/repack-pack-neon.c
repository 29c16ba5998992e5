/*
 * repack-pack-neon.c - the packers of gk-repack.h (16 plain rows -> one
 * group) with NEON, for set_tensor into CPU_REPACK: the same bytes as the
 * portable gk_repack_* (test-cpu-kernels compares them on random blocks).
 *
 * As in repack-pack-x86.c: the tiles are transpositions of 4-byte words
 * (here 4 x 4, four rows and four words per step), Q6_K's tile bytes are
 * built from its transposed plain words, and the scales of 16 rows become
 * one byte per row and vector by a 16 x 16 byte transposition. Loads stay
 * inside the plain blocks.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"

#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

#define Q8_BLK sizeof(gk_block_q8_0)
#define Q4_BLK sizeof(gk_block_q4_0)
#define Q4K_BLK sizeof(gk_block_q4_K)
#define Q6K_BLK sizeof(gk_block_q6_K)

// a block of zeros standing for the rows past nrows (packs to zeros)
static const uint8_t g_zero_blk[256] __attribute__((aligned(16)));

INLINE uint32x4_t trn64(uint32x4_t a, uint32x4_t b, int hi) {
    const uint64x2_t x = vreinterpretq_u64_u32(a), y = vreinterpretq_u64_u32(b);
    return vreinterpretq_u32_u64(hi ? vtrn2q_u64(x, y) : vtrn1q_u64(x, y));
}

// v[i]: 4 words of row i -> v[s]: word s of rows 0..3
INLINE void tr4x4(uint8x16_t v[4]) {
    const uint32x4_t t0 = vtrn1q_u32(vreinterpretq_u32_u8(v[0]), vreinterpretq_u32_u8(v[1]));
    const uint32x4_t t1 = vtrn2q_u32(vreinterpretq_u32_u8(v[0]), vreinterpretq_u32_u8(v[1]));
    const uint32x4_t t2 = vtrn1q_u32(vreinterpretq_u32_u8(v[2]), vreinterpretq_u32_u8(v[3]));
    const uint32x4_t t3 = vtrn2q_u32(vreinterpretq_u32_u8(v[2]), vreinterpretq_u32_u8(v[3]));
    v[0] = vreinterpretq_u8_u32(trn64(t0, t2, 0));
    v[1] = vreinterpretq_u8_u32(trn64(t1, t3, 0));
    v[2] = vreinterpretq_u8_u32(trn64(t0, t2, 1));
    v[3] = vreinterpretq_u8_u32(trn64(t1, t3, 1));
}

// words 4q..4q+3 of rows 4g..4g+3 (at p[r] + 16 q) -> v[s]: word 4q + s
INLINE void quad(const uint8_t * const * p, int g, int q, uint8x16_t v[4]) {
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        v[i] = vld1q_u8(p[4 * g + i] + 16 * q);
    }
    tr4x4(v);
}

// the 4 nq words at p[r] of 16 rows -> tile steps 0..4nq-1 at o
INLINE void tile(const uint8_t * const * p, int nq, uint8_t * o) {
#pragma GCC unroll 2
    for (int q = 0; q < nq; q++) {
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) {
            uint8x16_t v[4];
            quad(p, g, q, v);
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                vst1q_u8(o + 64 * (4 * q + s) + 16 * g, v[s]);
            }
        }
    }
}

// v[i]: 16 bytes of row i -> v[k]: byte k of rows 0..15 (four rounds that
// each move the top bit of the row index into the byte index)
INLINE void tr16x16(uint8x16_t v[16]) {
#pragma GCC unroll 4
    for (int round = 0; round < 4; round++) {
        uint8x16_t t[16];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            t[2 * i] = vzip1q_u8(v[i], v[i + 8]);
            t[2 * i + 1] = vzip2q_u8(v[i], v[i + 8]);
        }
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            v[i] = t[i];
        }
    }
}

// the fp16 at p[r] + off of 16 rows -> 32 bytes at o
INLINE void scales16(const uint8_t * const * p, size_t off, uint8_t * o) {
#pragma GCC unroll 16
    for (int r = 0; r < GK_RP_ROWS; r++) {
        memcpy(o + 2 * r, p[r] + off, 2);
    }
}

INLINE void rows(const void * src, size_t bx, int nrows, size_t off, const uint8_t ** p) {
#pragma GCC unroll 16
    for (int r = 0; r < GK_RP_ROWS; r++) {
        p[r] = r < nrows ? (const uint8_t *) src + (size_t) r * bx + off : g_zero_blk;
    }
}

void gk_repack_q8_0_neon(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q8_BLK;
        const uint8_t * p[GK_RP_ROWS];
        rows(src, bx, GK_RP_ROWS, (size_t) b * Q8_BLK, p);
        scales16(p, 0, o);
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] += 2;
        }
        tile(p, 2, o + 2 * GK_RP_ROWS);
    }
}

void gk_repack_q4_0_neon(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * GK_RP_ROWS * Q4_BLK;
        const uint8_t * p[GK_RP_ROWS];
        rows(src, bx, GK_RP_ROWS, (size_t) b * Q4_BLK, p);
        scales16(p, 0, o);
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            p[r] += 2;
        }
        // byte k of the block (values k, k + 16) is tile byte (r, k)
        tile(p, 1, o + 2 * GK_RP_ROWS);
    }
}

// --- Q4_K -----------------------------------------------------------------------

INLINE uint8x16_t and8(uint8x16_t x, uint8_t m) {
    return vandq_u8(x, vdupq_n_u8(m));
}

void gk_repack_q4_K_neon(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t sb = 0; sb < nsb; sb++) {
        uint8_t * o = (uint8_t *) dst + (size_t) sb * GK_RP_ROWS * Q4K_BLK;
        const uint8_t * x[GK_RP_ROWS];
        rows(src, bx, nrows, (size_t) sb * Q4K_BLK, x);
        // bytes 0..15 of each row: d, dmin, the 12 scale bytes q[0..11]
        uint8x16_t v[16];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            v[r] = vld1q_u8(x[r]);
        }
        tr16x16(v);
        vst1q_u8(o + GK_RPK4_D, vzip1q_u8(v[0], v[1]));
        vst1q_u8(o + GK_RPK4_D + 16, vzip2q_u8(v[0], v[1]));
        vst1q_u8(o + GK_RPK4_DMIN, vzip1q_u8(v[2], v[3]));
        vst1q_u8(o + GK_RPK4_DMIN + 16, vzip2q_u8(v[2], v[3]));
        const uint8x16_t * q = v + 4;
        // sub-blocks 0-3: scale q[j] & 63, min q[j + 4] & 63; 4-7: the low
        // bits are q[j + 4], the high ones the top bits of q[j - 4], q[j]
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            vst1q_u8(o + GK_RPK4_SLO + 16 * j, vorrq_u8(and8(q[j], 0x0F), vshlq_n_u8(q[j + 4], 4)));
            vst1q_u8(o + GK_RPK4_SLO + 16 * (j + 4), q[j + 8]);
        }
        // pair p: bits 4-5 of sc_2p, m_2p, sc_2p+1, m_2p+1 at 0, 2, 4, 6
#pragma GCC unroll 2
        for (int p = 0; p < 2; p++) {
            const uint8x16_t a = q[2 * p], b = q[2 * p + 4], c = q[2 * p + 1], d = q[2 * p + 5];
            vst1q_u8(o + GK_RPK4_SHI + 16 * p,
                     vorrq_u8(vorrq_u8(and8(vshrq_n_u8(a, 4), 0x03), and8(vshrq_n_u8(b, 2), 0x0C)),
                              vorrq_u8(and8(c, 0x30), and8(vshlq_n_u8(d, 2), 0xC0))));
        }
#pragma GCC unroll 2
        for (int p = 2; p < 4; p++) {
            const uint8x16_t a = q[2 * p - 4], b = q[2 * p], c = q[2 * p - 3], d = q[2 * p + 1];
            vst1q_u8(o + GK_RPK4_SHI + 16 * p,
                     vorrq_u8(vorrq_u8(vshrq_n_u8(a, 6), and8(vshrq_n_u8(b, 4), 0x0C)),
                              vorrq_u8(and8(vshrq_n_u8(c, 2), 0x30), and8(d, 0xC0))));
        }
        // pair p's tile byte (r, i) is the plain byte qs[32 p + i]
        const uint8_t * pq[GK_RP_ROWS];
#pragma GCC unroll 4
        for (int p = 0; p < 4; p++) {
#pragma GCC unroll 16
            for (int r = 0; r < GK_RP_ROWS; r++) {
                pq[r] = x[r] + offsetof(gk_block_q4_K, qs) + 32 * p;
            }
            tile(pq, 2, o + GK_RPK4_QS + 512 * p);
        }
    }
}

// --- Q6_K -----------------------------------------------------------------------

// swaps the bits (a >> n) & m with the bits b & m (delta swap)
#define DSWAP(a, b, n, m)                                                        \
    do {                                                                         \
        const uint8x16_t d_ = and8(veorq_u8(vshrq_n_u8((a), (n)), (b)), (m));   \
        (b) = veorq_u8((b), d_);                                                 \
        (a) = veorq_u8((a), vshlq_n_u8(d_, (n)));                                \
    } while (0)

void gk_repack_q6_K_neon(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t sb = 0; sb < nsb; sb++) {
        uint8_t * o = (uint8_t *) dst + (size_t) sb * GK_RP_ROWS * Q6K_BLK;
        const uint8_t * x[GK_RP_ROWS];
        rows(src, bx, nrows, (size_t) sb * Q6K_BLK, x);
        uint8_t * qs = o + GK_RPK6_QS;
        const uint8_t * p[GK_RP_ROWS];
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            // ql[64h + 32j + k]: value k of block 4h + j (low nibble) and
            // 4h + j + 2 (high); low-nibble byte k (< 16) of a tile: values
            // k and k + 16, so step s from words s and s + 4
#pragma GCC unroll 2
            for (int j = 0; j < 2; j++) {
#pragma GCC unroll 16
                for (int r = 0; r < GK_RP_ROWS; r++) {
                    p[r] = x[r] + offsetof(gk_block_q6_K, ql) + 64 * h + 32 * j;
                }
                uint8_t * b0 = qs + GK_RPK6_BLK * (4 * h + j);
                uint8_t * b2 = b0 + 2 * GK_RPK6_BLK;
#pragma GCC unroll 4
                for (int g = 0; g < 4; g++) {
                    uint8x16_t a[4], c[4];
                    quad(p, g, 0, a);
                    quad(p, g, 1, c);
#pragma GCC unroll 4
                    for (int s = 0; s < 4; s++) {
                        vst1q_u8(b0 + 64 * s + 16 * g, vorrq_u8(and8(a[s], 0x0F), vshlq_n_u8(c[s], 4)));
                        vst1q_u8(b2 + 64 * s + 16 * g, vorrq_u8(vshrq_n_u8(a[s], 4), and8(c[s], 0xF0)));
                    }
                }
            }
        }
        // then the high bits and the scales: each block read front to back
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            // qh[32h + k]: bits 4-5 of value k of block 4h + c at 2c; the
            // high-bit byte k (< 8) of block c: those of values k + 8m at 2m,
            // step t from words t + 2m: a 4 x 4 transposition of 2-bit fields
#pragma GCC unroll 16
            for (int r = 0; r < GK_RP_ROWS; r++) {
                p[r] = x[r] + offsetof(gk_block_q6_K, qh) + 32 * h;
            }
#pragma GCC unroll 4
            for (int g = 0; g < 4; g++) {
                uint8x16_t w[8];
                quad(p, g, 0, w);
                quad(p, g, 1, w + 4);
#pragma GCC unroll 2
                for (int t = 0; t < 2; t++) {
                    uint8x16_t a0 = w[t], a1 = w[t + 2], a2 = w[t + 4], a3 = w[t + 6];
                    DSWAP(a0, a2, 4, 0x0F);
                    DSWAP(a1, a3, 4, 0x0F);
                    DSWAP(a0, a1, 2, 0x33);
                    DSWAP(a2, a3, 2, 0x33);
                    uint8_t * hb = qs + GK_RPK6_BLK * 4 * h + 256 + 64 * t + 16 * g;
                    vst1q_u8(hb, a0);
                    vst1q_u8(hb + GK_RPK6_BLK, a1);
                    vst1q_u8(hb + 2 * GK_RPK6_BLK, a2);
                    vst1q_u8(hb + 3 * GK_RPK6_BLK, a3);
                }
            }
        }
        uint8x16_t v[16];
#pragma GCC unroll 16
        for (int r = 0; r < GK_RP_ROWS; r++) {
            v[r] = vld1q_u8(x[r] + offsetof(gk_block_q6_K, scales));
        }
        tr16x16(v);
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) {
            vst1q_u8(o + GK_RPK6_SC + 16 * j, v[j]);
        }
        scales16(x, offsetof(gk_block_q6_K, d), o + GK_RPK6_D);
    }
}
