/*
 * attn-f16-avx512.c - FLASH_ATTN_EXT's decode form on F16 K and V with
 * 512-bit vectors: the contracts of gk_fa_qk_f16_* / gk_fa_pv_f16_*
 * (gk-attn.h), for up to 4 query rows. The AVX2 forms run out of the 16
 * YMM registers with one row and 8 keys (a widened key spills); here a
 * tile of 4 rows x 4 keys (or 1 x 8) keeps its accumulators, the query
 * vectors and the widened key in the 32 ZMM registers, with 16 values
 * per load. Head dimensions not a multiple of 16 end with a masked step.
 *
 * Call only when the CPU has AVX512F/BW/VL (ggml_cpu_isa()->use_avx512f
 * and avx512_bwvl).
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__x86_64__)

#include "gk-attn.h"
#include "gk-avx512.h"

#include <immintrin.h>

static inline __m512 ld_f16(const uint16_t * p, __mmask16 k) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, p));
}

// one step of 16 (or, masked, fewer) head-dimension values of MR rows x NJ keys
static inline __attribute__((always_inline)) void
qk_step(const int MR, const int NJ, __mmask16 m, int64_t l, const float * q, int64_t ldq, const uint16_t * k,
        int64_t ldk, __m512 acc[4][8]) {
    __m512 qv[4];
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        qv[i] = _mm512_maskz_loadu_ps(m, q + i * ldq + l);
    }
#pragma GCC unroll 8
    for (int j = 0; j < NJ; j++) {
        const __m512 x = ld_f16(k + j * ldk + l, m);
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            acc[i][j] = _mm512_fmadd_ps(qv[i], x, acc[i][j]);
        }
    }
}

static inline __attribute__((always_inline)) void
qk16_tile(const int MR, const int NJ, int64_t dk, const float * q, int64_t ldq, const uint16_t * k, int64_t ldk,
          float * s, int64_t lds) {
    __m512 acc[4][8];
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < NJ; j++) {
            acc[i][j] = _mm512_setzero_ps();
        }
    }
    int64_t l = 0;
    for (; l + 16 <= dk; l += 16) {
        qk_step(MR, NJ, (__mmask16) 0xffff, l, q, ldq, k, ldk, acc);
    }
    if (l < dk) {
        qk_step(MR, NJ, (__mmask16) ((1u << (dk - l)) - 1u), l, q, ldq, k, ldk, acc);
    }
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        int j = 0;
#pragma GCC unroll 2
        for (; j + 4 <= NJ; j += 4) {
            _mm_storeu_ps(s + i * lds + j, gk_hsum4_avx512(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
        }
#pragma GCC unroll 4
        for (; j < NJ; j++) {
            s[i * lds + j] = _mm512_reduce_add_ps(acc[i][j]);
        }
    }
}

#define QK16_ROWS(MR, NJ)                                                         \
    do {                                                                          \
        int j = 0;                                                                \
        for (; j + NJ <= n; j += NJ) {                                            \
            qk16_tile(MR, NJ, dk, q, ldq, k + j * ldk, ldk, s + j, lds);          \
        }                                                                         \
        for (; j < n; j++) {                                                      \
            qk16_tile(MR, 1, dk, q, ldq, k + j * ldk, ldk, s + j, lds);           \
        }                                                                         \
    } while (0)

void gk_fa_qk_f16_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k, int64_t ldk,
                         float * s, int64_t lds) {
    switch (m) {
        case 4: QK16_ROWS(4, 4); break;
        case 3: QK16_ROWS(3, 4); break;
        case 2: QK16_ROWS(2, 6); break;
        case 1: QK16_ROWS(1, 8); break;
        default: break;
    }
}

// MR rows x ND vectors of 16 output columns (the last masked by mt), over
// the n keys
static inline __attribute__((always_inline)) void
pv16_tile(const int MR, const int ND, __mmask16 mt, int n, const float * p, int64_t ldp, const uint16_t * v,
          int64_t ldv, float * o, int64_t ldo) {
    __m512 acc[4][8];
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int c = 0; c < ND; c++) {
            acc[i][c] = _mm512_maskz_loadu_ps(c == ND - 1 ? mt : (__mmask16) 0xffff, o + i * ldo + 16 * c);
        }
    }
    for (int j = 0; j < n; j++) {
        __m512 pb[4];
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            pb[i] = _mm512_set1_ps(p[i * ldp + j]);
        }
#pragma GCC unroll 8
        for (int c = 0; c < ND; c++) {
            const __m512 x = ld_f16(v + j * ldv + 16 * c, c == ND - 1 ? mt : (__mmask16) 0xffff);
#pragma GCC unroll 4
            for (int i = 0; i < MR; i++) {
                acc[i][c] = _mm512_fmadd_ps(x, pb[i], acc[i][c]);
            }
        }
    }
#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 8
        for (int c = 0; c < ND; c++) {
            _mm512_mask_storeu_ps(o + i * ldo + 16 * c, c == ND - 1 ? mt : (__mmask16) 0xffff, acc[i][c]);
        }
    }
}

#define PV16_ROWS(MR, ND)                                                         \
    do {                                                                          \
        int64_t d = 0;                                                            \
        for (; d + 16 * ND <= dv; d += 16 * ND) {                                 \
            pv16_tile(MR, ND, 0xffff, n, p, ldp, v + d, ldv, o + d, ldo);         \
        }                                                                         \
        for (; d + 16 <= dv; d += 16) {                                           \
            pv16_tile(MR, 1, 0xffff, n, p, ldp, v + d, ldv, o + d, ldo);          \
        }                                                                         \
        if (d < dv) {                                                             \
            pv16_tile(MR, 1, (__mmask16) ((1u << (dv - d)) - 1u), n, p, ldp, v + d, ldv, o + d, ldo); \
        }                                                                         \
    } while (0)

void gk_fa_pv_f16_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v, int64_t ldv,
                         float * o, int64_t ldo) {
    switch (m) {
        case 4: PV16_ROWS(4, 4); break;
        case 3: PV16_ROWS(3, 4); break;
        case 2: PV16_ROWS(2, 8); break;
        case 1: PV16_ROWS(1, 8); break;
        default: break;
    }
}

// ---------------------------------------------------------------------------
// r (1 to 4) query rows per head, keys outermost (the decode form on a KV
// cache's layout, heads side by side): for each key, the pieces of all nh
// heads, i.e. the key's row of the cache from start to end; the whole range
// is one sequential stream. The sums are the ones of gk_fa_qk_f16_avx512 /
// gk_fa_pv_f16_avx512 with the same rows (same steps, same order), so the
// bits are the same.
// ---------------------------------------------------------------------------

// NH heads x RR rows each (at most 8 sums) x one key:
// s[(h*RR + i)*lds] = q[(h*RR + i)*ldq ..] . k[h*kgs ..]
static inline __attribute__((always_inline)) void
qkh_tile(const int NH, const int RR, int64_t dk, const float * q, int64_t ldq, const uint16_t * k, int64_t kgs,
         float * s, int64_t lds) {
    __m512 acc[8];
#pragma GCC unroll 8
    for (int a = 0; a < NH * RR; a++) {
        acc[a] = _mm512_setzero_ps();
    }
    int64_t l = 0;
    for (; l + 16 <= dk; l += 16) {
#pragma GCC unroll 8
        for (int h = 0; h < NH; h++) {
            const __m512 x = ld_f16(k + h * kgs + l, (__mmask16) 0xffff);
#pragma GCC unroll 4
            for (int i = 0; i < RR; i++) {
                acc[h * RR + i] = _mm512_fmadd_ps(_mm512_loadu_ps(q + (h * RR + i) * ldq + l), x, acc[h * RR + i]);
            }
        }
    }
    if (l < dk) {
        const __mmask16 m = (__mmask16) ((1u << (dk - l)) - 1u);
#pragma GCC unroll 8
        for (int h = 0; h < NH; h++) {
            const __m512 x = ld_f16(k + h * kgs + l, m);
#pragma GCC unroll 4
            for (int i = 0; i < RR; i++) {
                acc[h * RR + i] =
                    _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, q + (h * RR + i) * ldq + l), x, acc[h * RR + i]);
            }
        }
    }
    int a = 0;
#pragma GCC unroll 2
    for (; a + 4 <= NH * RR; a += 4) {
        float t[4];
        _mm_storeu_ps(t, gk_hsum4_avx512(acc[a], acc[a + 1], acc[a + 2], acc[a + 3]));
        s[(a + 0) * lds] = t[0];
        s[(a + 1) * lds] = t[1];
        s[(a + 2) * lds] = t[2];
        s[(a + 3) * lds] = t[3];
    }
#pragma GCC unroll 4
    for (; a < NH * RR; a++) {
        s[a * lds] = _mm512_reduce_add_ps(acc[a]);
    }
}

// The rows ahead of key j's row (row; rows ld halves apart, len bytes
// each), asked for into L2 while the range (npf keys) has them: with one
// row per head the first line of each page of the row GK_FA_PF_AHEAD keys
// ahead (gk_prefetch_pages), with several (GQA: short rows, four times the
// FMAs per byte) every line of the row GK_FA_PF_LINE_KEYS keys ahead
static inline __attribute__((always_inline)) void rows_ahead(const int RR, const uint16_t * row, int64_t ld,
                                                             int64_t len, int j, int npf) {
    const int ahead = RR > 1 ? GK_FA_PF_LINE_KEYS : GK_FA_PF_AHEAD;
    if (j + ahead >= npf) {
        return;
    }
    if (RR > 1) {
        const char * p = (const char *) (row + ahead * ld);
        for (int64_t x = 0; x < len; x += 64) {
            __builtin_prefetch(p + x, 0, 2);
        }
    } else {
        gk_prefetch_pages(row + ahead * ld, len);
    }
}

// all nh heads of one key, NH heads of RR rows a tile
static inline __attribute__((always_inline)) void qkh_key(const int RR, int nh, int64_t dk, const float * q,
                                                          int64_t ldq, const uint16_t * k, int64_t kgs, float * s,
                                                          int64_t lds) {
    const int NH = 8 / RR; // 8, 4, 2, 2 heads
    int h = 0;
    for (; h + NH <= nh; h += NH) {
        qkh_tile(NH, RR, dk, q + h * RR * ldq, ldq, k + h * kgs, kgs, s + h * RR * lds, lds);
    }
    // the rest: fewer than NH heads
    const float * qh = q + h * RR * ldq;
    const uint16_t * kh = k + h * kgs;
    float * sh = s + h * RR * lds;
    if (RR == 1) {
        switch (nh - h) {
            case 7: qkh_tile(7, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 6: qkh_tile(6, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 5: qkh_tile(5, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 4: qkh_tile(4, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 3: qkh_tile(3, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 2: qkh_tile(2, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 1: qkh_tile(1, 1, dk, qh, ldq, kh, kgs, sh, lds); break;
            default: break;
        }
    } else if (RR == 2) {
        switch (nh - h) {
            case 3: qkh_tile(3, 2, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 2: qkh_tile(2, 2, dk, qh, ldq, kh, kgs, sh, lds); break;
            case 1: qkh_tile(1, 2, dk, qh, ldq, kh, kgs, sh, lds); break;
            default: break;
        }
    } else if (nh - h == 1) {
        qkh_tile(1, RR, dk, qh, ldq, kh, kgs, sh, lds);
    }
}

static inline __attribute__((always_inline)) void qkh_keys(const int RR, int nh, int n, int64_t dk, const float * q,
                                                           int64_t ldq, const uint16_t * k, int64_t ldk,
                                                           int64_t kgs, float * s, int64_t lds, int npf) {
    for (int j = 0; j < n; j++) {
        const uint16_t * kj = k + j * ldk;
        rows_ahead(RR, kj, ldk, ((nh - 1) * kgs + dk) * (int64_t) sizeof(uint16_t), j, npf);
        qkh_key(RR, nh, dk, q, ldq, kj, kgs, s + j, lds);
    }
}

void gk_fa_qk_f16_heads_avx512(int nh, int r, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k,
                               int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf) {
    switch (r) {
        case 1: qkh_keys(1, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        case 2: qkh_keys(2, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        case 3: qkh_keys(3, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        case 4: qkh_keys(4, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        default: break;
    }
}

// the RR output rows of one head += each row's weight of one key times the
// key's V piece (pv16_tile's steps for one key)
static inline __attribute__((always_inline)) void pvh_head(const int RR, int64_t dv, const float * p, int64_t ldp,
                                                           const uint16_t * v, float * o, int64_t ldo) {
    __m512 pb[4];
#pragma GCC unroll 4
    for (int i = 0; i < RR; i++) {
        pb[i] = _mm512_set1_ps(p[i * ldp]);
    }
    int64_t d = 0;
    for (; d + 16 <= dv; d += 16) {
        const __m512 x = ld_f16(v + d, (__mmask16) 0xffff);
#pragma GCC unroll 4
        for (int i = 0; i < RR; i++) {
            _mm512_storeu_ps(o + i * ldo + d, _mm512_fmadd_ps(x, pb[i], _mm512_loadu_ps(o + i * ldo + d)));
        }
    }
    if (d < dv) {
        const __mmask16 m = (__mmask16) ((1u << (dv - d)) - 1u);
        const __m512 x = ld_f16(v + d, m);
#pragma GCC unroll 4
        for (int i = 0; i < RR; i++) {
            _mm512_mask_storeu_ps(o + i * ldo + d, m,
                                  _mm512_fmadd_ps(x, pb[i], _mm512_maskz_loadu_ps(m, o + i * ldo + d)));
        }
    }
}

static inline __attribute__((always_inline)) void pvh_rows(const int RR, int nh, int n, int64_t dv, const float * p,
                                                           int64_t ldp, const uint16_t * v, int64_t ldv,
                                                           int64_t vgs, float * o, int64_t ldo, int npf) {
    for (int j = 0; j < n; j++) {
        const uint16_t * vj = v + j * ldv;
        rows_ahead(RR, vj, ldv, ((nh - 1) * vgs + dv) * (int64_t) sizeof(uint16_t), j, npf);
        for (int h = 0; h < nh; h++) {
            pvh_head(RR, dv, p + h * RR * ldp + j, ldp, vj + h * vgs, o + h * RR * ldo, ldo);
        }
    }
}

void gk_fa_pv_f16_heads_avx512(int nh, int r, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v,
                               int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf) {
    switch (r) {
        case 1: pvh_rows(1, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        case 2: pvh_rows(2, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        case 3: pvh_rows(3, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        case 4: pvh_rows(4, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        default: break;
    }
}

// ---------------------------------------------------------------------------
// The _g8 forms: with 3 or 4 rows per head, 8 keys at a time head by head.
// Functions of their own, so that the one-row form above keeps its code:
// with both in one function GCC allocated the one-row loop's registers
// differently and it read 10-15% slower from DRAM (same instructions in
// the inner loop, a harness alternating the builds).
// ---------------------------------------------------------------------------

// GQA (RR 3 or 4): FA_GQA_KG keys at a time, head by head, each head's RR
// rows x those keys a tile of the per-head forms (qk16_tile, pv16_tile: the
// same sums, the same bits). The keys' rows (2 KiB each at 8 K/V heads of
// 128) are adjacent in a cache, so the group is one short run of memory,
// and the values' outputs stay in registers over FA_GQA_KG keys where a
// key at a time loaded and stored them per multiply-add (the stores bound
// that loop).
#define FA_GQA_KG 8

// head h's pieces (len halves from row + off) of the group's rows
// FA_GQA_KG keys ahead (key j's row at row), every line, while the range
// (npf keys) has them: asked for head by head, spread over the group's
// work, as the key-by-key walk spreads its rows_ahead (the whole group's
// lines asked for at once measured slower from DRAM than no grouping)
static inline __attribute__((always_inline)) void group_ahead(const uint16_t * row, int64_t ld, int64_t off,
                                                              int64_t len, int j, int npf) {
#pragma GCC unroll 8
    for (int t = 0; t < FA_GQA_KG; t++) {
        if (j + FA_GQA_KG + t < npf) {
            const char * p = (const char *) (row + (FA_GQA_KG + t) * ld + off);
            for (int64_t x = 0; x < len * (int64_t) sizeof(uint16_t); x += 64) {
                __builtin_prefetch(p + x, 0, 2);
            }
        }
    }
}

static inline __attribute__((always_inline)) void qkh_group(const int RR, int nh, int64_t dk, const float * q,
                                                            int64_t ldq, const uint16_t * k, int64_t ldk,
                                                            int64_t kgs, float * s, int64_t lds, int j0, int npf) {
    for (int h = 0; h < nh; h++) {
        group_ahead(k, ldk, h * kgs, dk, j0, npf);
        // tiles of 4 keys: at most 16 accumulators
#pragma GCC unroll 2
        for (int j = 0; j < FA_GQA_KG; j += 4) {
            qk16_tile(RR, 4, dk, q + h * RR * ldq, ldq, k + h * kgs + j * ldk, ldk, s + h * RR * lds + j, lds);
        }
    }
}

// groups of FA_GQA_KG keys, then the rest key by key (qkh_keys)
static inline __attribute__((always_inline)) void qkh_grouped(const int RR, int nh, int n, int64_t dk,
                                                              const float * q, int64_t ldq, const uint16_t * k,
                                                              int64_t ldk, int64_t kgs, float * s, int64_t lds,
                                                              int npf) {
    int j = 0;
    for (; j + FA_GQA_KG <= n; j += FA_GQA_KG) {
        qkh_group(RR, nh, dk, q, ldq, k + j * ldk, ldk, kgs, s + j, lds, j, npf);
    }
    qkh_keys(RR, nh, n - j, dk, q, ldq, k + j * ldk, ldk, kgs, s + j, lds, npf - j);
}

// one head's RR rows of outputs += FA_GQA_KG keys' weights times their V
// pieces (PV16_ROWS's tiles, as gk_fa_pv_f16_avx512 with RR rows)
static inline __attribute__((always_inline)) void pvh_group(const int RR, int64_t dv, const float * p, int64_t ldp,
                                                            const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
    const int n = FA_GQA_KG;
    PV16_ROWS(RR, 4);
}

// the same for the values (pvh_rows for the rest)
static inline __attribute__((always_inline)) void pvh_grouped(const int RR, int nh, int n, int64_t dv,
                                                              const float * p, int64_t ldp, const uint16_t * v,
                                                              int64_t ldv, int64_t vgs, float * o, int64_t ldo,
                                                              int npf) {
    int j = 0;
    for (; j + FA_GQA_KG <= n; j += FA_GQA_KG) {
        for (int h = 0; h < nh; h++) {
            group_ahead(v + j * ldv, ldv, h * vgs, dv, j, npf);
            pvh_group(RR, dv, p + h * RR * ldp + j, ldp, v + j * ldv + h * vgs, ldv, o + h * RR * ldo, ldo);
        }
    }
    pvh_rows(RR, nh, n - j, dv, p + j, ldp, v + j * ldv, ldv, vgs, o, ldo, npf - j);
}

// each row count a function of its own (in one, 4 rows measured 15%
// slower from DRAM)
static __attribute__((noinline)) void qkh_grouped3(int nh, int n, int64_t dk, const float * q, int64_t ldq,
                                                   const uint16_t * k, int64_t ldk, int64_t kgs, float * s,
                                                   int64_t lds, int npf) {
    qkh_grouped(3, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf);
}

static __attribute__((noinline)) void qkh_grouped4(int nh, int n, int64_t dk, const float * q, int64_t ldq,
                                                   const uint16_t * k, int64_t ldk, int64_t kgs, float * s,
                                                   int64_t lds, int npf) {
    qkh_grouped(4, nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf);
}

static __attribute__((noinline)) void pvh_grouped3(int nh, int n, int64_t dv, const float * p, int64_t ldp,
                                                   const uint16_t * v, int64_t ldv, int64_t vgs, float * o,
                                                   int64_t ldo, int npf) {
    pvh_grouped(3, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf);
}

static __attribute__((noinline)) void pvh_grouped4(int nh, int n, int64_t dv, const float * p, int64_t ldp,
                                                   const uint16_t * v, int64_t ldv, int64_t vgs, float * o,
                                                   int64_t ldo, int npf) {
    pvh_grouped(4, nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf);
}

void gk_fa_qk_f16_heads_g8_avx512(int nh, int r, int n, int64_t dk, const float * q, int64_t ldq,
                                  const uint16_t * k, int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf) {
    switch (r) {
        case 3: qkh_grouped3(nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        case 4: qkh_grouped4(nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
        default: gk_fa_qk_f16_heads_avx512(nh, r, n, dk, q, ldq, k, ldk, kgs, s, lds, npf); break;
    }
}

void gk_fa_pv_f16_heads_g8_avx512(int nh, int r, int n, int64_t dv, const float * p, int64_t ldp,
                                  const uint16_t * v, int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf) {
    switch (r) {
        case 3: pvh_grouped3(nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        case 4: pvh_grouped4(nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
        default: gk_fa_pv_f16_heads_avx512(nh, r, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf); break;
    }
}

#endif
