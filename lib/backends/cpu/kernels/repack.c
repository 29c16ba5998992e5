/*
 * repack.c - the interleaved weight layout of gk-repack.h, portable: groups
 * of 16 rows to and from the plain layout, and single rows out of a group
 * (the reference path and CPUs without an int8 kernel read those). Byte
 * accesses only: the plain rows may come from any address (set_tensor).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-repack.h"

// offset of value k (< 32) of row r (< 16) in the 512-entry tile
static inline int tile_idx(int r, int k) {
    return 64 * (k / 4) + 4 * r + (k % 4);
}

#define Q8_BLK sizeof(gk_block_q8_0)
#define Q4_BLK sizeof(gk_block_q4_0)
#define Q8_GRP (GK_RP_ROWS * Q8_BLK)
#define Q4_GRP (GK_RP_ROWS * Q4_BLK)
#define SC_BYTES (GK_RP_ROWS * 2)

void gk_repack_q8_0(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q8_GRP;
        for (int r = 0; r < GK_RP_ROWS; r++) {
            const uint8_t * x = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q8_BLK;
            o[2 * r] = x[0];
            o[2 * r + 1] = x[1];
            for (int k = 0; k < GK_QK8_0; k++) {
                o[SC_BYTES + tile_idx(r, k)] = x[2 + k];
            }
        }
    }
}

void gk_repack_row_q8_0(const void * grp, int r, int64_t b0, int64_t nb, void * dst) {
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t * g = (const uint8_t *) grp + (size_t) (b0 + b) * Q8_GRP;
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q8_BLK;
        o[0] = g[2 * r];
        o[1] = g[2 * r + 1];
        for (int k = 0; k < GK_QK8_0; k++) {
            o[2 + k] = g[SC_BYTES + tile_idx(r, k)];
        }
    }
}

void gk_unrepack_q8_0(const void * src, int64_t nblk, void * dst, size_t bx) {
    for (int r = 0; r < GK_RP_ROWS; r++) {
        gk_repack_row_q8_0(src, r, 0, nblk, (uint8_t *) dst + (size_t) r * bx);
    }
}

// the nibble of tile entry t in the 256 bytes q
static inline uint8_t q4_get(const uint8_t * q, int t) {
    return t < 256 ? q[t] & 0xF : q[t - 256] >> 4;
}

void gk_repack_q4_0(const void * src, size_t bx, int64_t nblk, void * dst) {
    for (int64_t b = 0; b < nblk; b++) {
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q4_GRP;
        uint8_t * q = o + SC_BYTES;
        for (int t = 0; t < 256; t++) {
            q[t] = 0;
        }
        for (int r = 0; r < GK_RP_ROWS; r++) {
            const uint8_t * x = (const uint8_t *) src + (size_t) r * bx + (size_t) b * Q4_BLK;
            o[2 * r] = x[0];
            o[2 * r + 1] = x[1];
            for (int k = 0; k < GK_QK4_0; k++) {
                // value k: low nibble of byte k (k < 16), else high nibble of byte k - 16
                const uint8_t v = k < 16 ? x[2 + k] & 0xF : x[2 + k - 16] >> 4;
                const int t = tile_idx(r, k);
                q[t & 255] |= (uint8_t) (t < 256 ? v : v << 4);
            }
        }
    }
}

void gk_repack_row_q4_0(const void * grp, int r, int64_t b0, int64_t nb, void * dst) {
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t * g = (const uint8_t *) grp + (size_t) (b0 + b) * Q4_GRP;
        uint8_t * o = (uint8_t *) dst + (size_t) b * Q4_BLK;
        o[0] = g[2 * r];
        o[1] = g[2 * r + 1];
        for (int k = 0; k < 16; k++) {
            o[2 + k] = (uint8_t) (q4_get(g + SC_BYTES, tile_idx(r, k)) | q4_get(g + SC_BYTES, tile_idx(r, k + 16)) << 4);
        }
    }
}

void gk_unrepack_q4_0(const void * src, int64_t nblk, void * dst, size_t bx) {
    for (int r = 0; r < GK_RP_ROWS; r++) {
        gk_repack_row_q4_0(src, r, 0, nblk, (uint8_t *) dst + (size_t) r * bx);
    }
}
