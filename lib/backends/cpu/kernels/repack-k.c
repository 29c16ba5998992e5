/*
 * repack-k.c - the interleaved layouts of Q4_K and Q6_K weights
 * (gk-repack.h), portable: groups of 16 rows to and from the plain layout,
 * and single rows out of a group (the reference path and CPUs without an
 * int8 kernel read those). Byte accesses only: the plain rows may come from
 * any address (set_tensor). Both layouts hold every bit of the plain
 * blocks, so unpacking gives back the bytes that were packed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"

#include <stddef.h>
#include <string.h>

// offset of value k (< 32) of row r (< 16) in a 512-entry tile
static inline int tile_idx(int r, int k) {
    return 64 * (k / 4) + 4 * r + (k % 4);
}

#define Q4K_BLK sizeof(gk_block_q4_K)
#define Q6K_BLK sizeof(gk_block_q6_K)
#define Q4K_GRP (GK_RP_ROWS * Q4K_BLK)
#define Q6K_GRP (GK_RP_ROWS * Q6K_BLK)

// --- Q4_K ---------------------------------------------------------------------

// the 12 scale bytes of a Q4_K block from its 6-bit scales and mins (the
// inverse of gk_q4_K_scale_min: every bit of the 12 bytes is one of them)
static void q4_K_encode_scales(const uint8_t * sc, const uint8_t * mn, uint8_t * q) {
    for (int j = 0; j < 4; j++) {
        q[j] = (uint8_t) ((sc[j] & 63) | (sc[j + 4] >> 4) << 6);
        q[j + 4] = (uint8_t) ((mn[j] & 63) | (mn[j + 4] >> 4) << 6);
        q[j + 8] = (uint8_t) ((sc[j + 4] & 0xF) | (mn[j + 4] & 0xF) << 4);
    }
}

// value i (< 32) of sub-block j of a Q4_K block
static inline uint8_t q4_K_val(const uint8_t * qs, int j, int i) {
    const uint8_t b = qs[32 * (j / 2) + i];
    return j % 2 ? b >> 4 : b & 0xF;
}

static void q4_K_pack_sb(const uint8_t * const * x, int nrows, uint8_t * o) {
    memset(o, 0, Q4K_GRP);
    for (int r = 0; r < nrows; r++) {
        const uint8_t * b = x[r];
        o[GK_RPK4_D + 2 * r] = b[0];
        o[GK_RPK4_D + 2 * r + 1] = b[1];
        o[GK_RPK4_DMIN + 2 * r] = b[2];
        o[GK_RPK4_DMIN + 2 * r + 1] = b[3];
        const uint8_t * scales = b + 4;
        const uint8_t * qs = b + 4 + GK_K_SCALE_SIZE;
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            gk_q4_K_scale_min(j, scales, &sc, &m);
            o[GK_RPK4_SLO + 16 * j + r] = (uint8_t) ((sc & 0xF) | (m & 0xF) << 4);
            o[GK_RPK4_SHI + 16 * (j / 2) + r] |= (uint8_t) (((sc >> 4) | (m >> 4) << 2) << (4 * (j % 2)));
            uint8_t * t = o + GK_RPK4_QS + 512 * (j / 2);
            for (int i = 0; i < 32; i++) {
                t[tile_idx(r, i)] |= (uint8_t) (q4_K_val(qs, j, i) << (4 * (j % 2)));
            }
        }
    }
}

void gk_repack_q4_K(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
        for (int r = 0; r < nrows; r++) {
            x[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4K_BLK;
        }
        q4_K_pack_sb(x, nrows, (uint8_t *) dst + (size_t) b * Q4K_GRP);
    }
}

void gk_repack_row_q4_K(const void * grp, int r, int64_t b0, int64_t nb, void * dst) {
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t * g = (const uint8_t *) grp + (size_t) (b0 + b) * Q4K_GRP;
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q4K_BLK;
        o[0] = g[GK_RPK4_D + 2 * r];
        o[1] = g[GK_RPK4_D + 2 * r + 1];
        o[2] = g[GK_RPK4_DMIN + 2 * r];
        o[3] = g[GK_RPK4_DMIN + 2 * r + 1];
        uint8_t sc[8], mn[8];
        for (int j = 0; j < 8; j++) {
            const uint8_t lo = g[GK_RPK4_SLO + 16 * j + r];
            const uint8_t hi = (uint8_t) (g[GK_RPK4_SHI + 16 * (j / 2) + r] >> (4 * (j % 2)));
            sc[j] = (uint8_t) ((lo & 0xF) | (hi & 3) << 4);
            mn[j] = (uint8_t) ((lo >> 4) | ((hi >> 2) & 3) << 4);
        }
        q4_K_encode_scales(sc, mn, o + 4);
        uint8_t * qs = o + 4 + GK_K_SCALE_SIZE;
        for (int p = 0; p < 4; p++) {
            const uint8_t * t = g + GK_RPK4_QS + 512 * p;
            for (int i = 0; i < 32; i++) {
                // sub-block 2p in the low nibbles, 2p + 1 in the high ones,
                // as the plain bytes 32p + i hold them
                qs[32 * p + i] = t[tile_idx(r, i)];
            }
        }
    }
}

void gk_unrepack_q4_K(const void * src, int64_t nsb, void * dst, size_t bx) {
    for (int r = 0; r < GK_RP_ROWS; r++) {
        gk_repack_row_q4_K(src, r, 0, nsb, (uint8_t *) dst + (size_t) r * bx);
    }
}

// --- Q6_K ---------------------------------------------------------------------

// value l (< 256) of a Q6_K block: 0..63
static inline uint8_t q6_K_val(const uint8_t * ql, const uint8_t * qh, int l) {
    const int h = l / 128, lp = l % 128;
    const uint8_t lo = ql[64 * h + lp % 64];
    const uint8_t hi = qh[32 * h + lp % 32];
    return (uint8_t) ((lp < 64 ? lo & 0xF : lo >> 4) | ((hi >> (2 * (lp / 32))) & 3) << 4);
}

static void q6_K_pack_sb(const uint8_t * const * x, int nrows, uint8_t * o) {
    memset(o, 0, Q6K_GRP);
    for (int r = 0; r < nrows; r++) {
        const uint8_t * b = x[r];
        const uint8_t * ql = b + offsetof(gk_block_q6_K, ql);
        const uint8_t * qh = b + offsetof(gk_block_q6_K, qh);
        const uint8_t * sc = b + offsetof(gk_block_q6_K, scales);
        const uint8_t * d = b + offsetof(gk_block_q6_K, d);
        o[GK_RPK6_D + 2 * r] = d[0];
        o[GK_RPK6_D + 2 * r + 1] = d[1];
        for (int j = 0; j < 16; j++) {
            o[GK_RPK6_SC + 16 * j + r] = sc[j];
        }
        for (int i = 0; i < 8; i++) {
            uint8_t * lo = o + GK_RPK6_QS + GK_RPK6_BLK * i;
            uint8_t * hi = lo + 256;
            for (int k = 0; k < 32; k++) {
                const uint8_t v = q6_K_val(ql, qh, 32 * i + k);
                const int t = tile_idx(r, k);
                lo[t % 256] |= (uint8_t) ((v & 0xF) << (4 * (t / 256)));
                hi[t % 128] |= (uint8_t) ((v >> 4) << (2 * (t / 128)));
            }
        }
    }
}

void gk_repack_q6_K(const void * src, size_t bx, int nrows, int64_t nsb, void * dst) {
    for (int64_t b = 0; b < nsb; b++) {
        const uint8_t * x[GK_RP_ROWS];
        for (int r = 0; r < nrows; r++) {
            x[r] = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q6K_BLK;
        }
        q6_K_pack_sb(x, nrows, (uint8_t *) dst + (size_t) b * Q6K_GRP);
    }
}

void gk_repack_row_q6_K(const void * grp, int r, int64_t b0, int64_t nb, void * dst) {
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t * g = (const uint8_t *) grp + (size_t) (b0 + b) * Q6K_GRP;
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q6K_BLK;
        uint8_t * ql = o + offsetof(gk_block_q6_K, ql);
        uint8_t * qh = o + offsetof(gk_block_q6_K, qh);
        uint8_t * sc = o + offsetof(gk_block_q6_K, scales);
        uint8_t * d = o + offsetof(gk_block_q6_K, d);
        memset(ql, 0, GK_QK_K / 2);
        memset(qh, 0, GK_QK_K / 4);
        d[0] = g[GK_RPK6_D + 2 * r];
        d[1] = g[GK_RPK6_D + 2 * r + 1];
        for (int j = 0; j < 16; j++) {
            sc[j] = g[GK_RPK6_SC + 16 * j + r];
        }
        for (int l = 0; l < GK_QK_K; l++) {
            const uint8_t * lo = g + GK_RPK6_QS + GK_RPK6_BLK * (l / 32);
            const uint8_t * hi = lo + 256;
            const int t = tile_idx(r, l % 32);
            const uint8_t v = (uint8_t) (((lo[t % 256] >> (4 * (t / 256))) & 0xF) |
                                         ((hi[t % 128] >> (2 * (t / 128))) & 3) << 4);
            const int h = l / 128, lp = l % 128;
            ql[64 * h + lp % 64] |= (uint8_t) ((v & 0xF) << (lp < 64 ? 0 : 4));
            qh[32 * h + lp % 32] |= (uint8_t) ((v >> 4) << (2 * (lp / 32)));
        }
    }
}

void gk_unrepack_q6_K(const void * src, int64_t nsb, void * dst, size_t bx) {
    for (int r = 0; r < GK_RP_ROWS; r++) {
        gk_repack_row_q6_K(src, r, 0, nsb, (uint8_t *) dst + (size_t) r * bx);
    }
}
