/*
 * gk-attn.h - freestanding attention kernels (FLASH_ATTN_EXT with F16 K and
 * V): the two products of a block of up to 4 query rows with a chunk of keys.
 *
 *   gk_fa_qk_f16_*: s[i*lds + j]  = sum_l q[i*ldq + l] * K[j*ldk + l]
 *                   (i < m <= 4, j < n, l < dk; overwrites s)
 *   gk_fa_pv_f16_*: o[i*ldo + d] += sum_j p[i*ldp + j] * V[j*ldv + d]
 *                   (i < m <= 4, j < n, d < dv)
 *
 * q, p, s, o are F32; K and V rows are F16 (strides in elements), widened
 * in registers, so each K/V element is loaded once per block of queries.
 * Float accumulation (8 or 4 lanes, then a horizontal sum). The online
 * softmax between the two is the caller's (cpu-ops.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_ATTN_H
#define GK_ATTN_H

#include "gk-types.h"

#define GK_FA_MAX_ROWS 4

// Asks for the first line of each 4 KiB page of the bytes [p, p + len)
// into L2. The hardware prefetchers stop at a page's end and start again
// only after misses in the next page; one prefetch there each page starts
// them early (FLASH_ATTN_EXT's decode walking a KV cache key by key).
// Inlined by force: GCC deletes the calls of an out-of-line function of
// prefetches alone.
static inline __attribute__((always_inline)) void gk_prefetch_pages(const void * p, int64_t len) {
    const uintptr_t a = (uintptr_t) p, e = a + (uintptr_t) len;
    __builtin_prefetch((const void *) a, 0, 2);
    for (uintptr_t x = (a | 4095u) + 1u; x < e; x += 4096u) {
        __builtin_prefetch((const void *) x, 0, 2);
    }
}

#if defined(__x86_64__)
void gk_fa_qk_f16_avx2(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds);
void gk_fa_pv_f16_avx2(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo);
/*
 * The same for one query row per head over nh heads whose K (V) pieces
 * are kgs (vgs) halves apart in a key's row (a KV cache's layout), keys
 * outermost, the first line of each page of the row GK_FA_PF_AHEAD keys
 * ahead asked for while j + GK_FA_PF_AHEAD < npf: the contracts of the
 * _heads_avx512 forms below with r = 1, and the bits of the forms above
 * with m = 1 on each head.
 */
void gk_fa_qk_f16_heads_avx2(int nh, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k,
                             int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf);
void gk_fa_pv_f16_heads_avx2(int nh, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v,
                             int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf);

/*
 * The block form on AVX512F (attn-avx512.c): rv (1 or 2) vectors of 16
 * query rows, held transposed (element l of row 16 r + i at
 * [(l * rv + r) * 16 + i]); keys, weights and outputs likewise ([j][rv][16],
 * [d][rv][16]). K and V rows are F32 (ldk, ldv: their strides).
 *   gk_fa_rows_f16_avx512: dst[j*ldd + l] = src[j*lds + l] widened (j < n, l < d)
 *   gk_fa_tqk_avx512:      st[j] = sum_l qt[l] * k[j*ldk + l]      (j < n; overwrites)
 *   gk_fa_tsoftmax_avx512: st[j] = scale * st[j] + mt[j] (mt may be NULL);
 *                          m' = max(m, max_j st[j]); ms = e^(m - m'),
 *                          st[j] = e^(st[j] - m'), s = s * ms + sum_j st[j]
 *                          (a row with m' = -inf: weights 0, ms 0)
 *   gk_fa_tpv_avx512:      ot[d] = ms * ot[d] + sum_j st[j] * v[j*ldv + d] (d < dv)
 */
/*
 * The same block form on AVX2/FMA/F16C (attn-t-x86.c): rv (1 to 4)
 * vectors of 8 query rows, held transposed (element l of row 8 r + i at
 * [(l * rv + r) * 8 + i]); keys, weights, outputs [j][rv][8], [d][rv][8];
 * the contracts of the _avx512 forms below (gk_fa_mask_class_avx2 too).
 */
void gk_fa_rows_f16_avx2(int n, int64_t d, const uint16_t * src, int64_t lds, float * dst, int64_t ldd);
int gk_fa_mask_class_avx2(const void * row, int f16, int n);
void gk_fa_tqk_avx2(int rv, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st);
void gk_fa_tsoftmax_avx2(int rv, int n, float scale, const float * mt, float * st, float * m, float * s,
                         float * ms);
void gk_fa_tpv_avx2(int rv, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
                    float * ot);

/*
 * The decode form's F16 products with 512-bit vectors (attn-f16-avx512.c):
 * gk_fa_qk_f16_avx2 and gk_fa_pv_f16_avx2's contracts; AVX512F/BW/VL.
 */
void gk_fa_qk_f16_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k, int64_t ldk,
                         float * s, int64_t lds);
void gk_fa_pv_f16_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v, int64_t ldv,
                         float * o, int64_t ldo);
/*
 * The same products for r (1 to 4) query rows per head over nh heads whose
 * K (V) pieces are kgs (vgs) halves apart in a key's row (a KV cache's
 * layout), keys outermost: every key's row read from start to end, the
 * rows ahead asked for while j + GK_FA_PF_AHEAD < npf (r = 1: the first
 * line of each page of the row GK_FA_PF_AHEAD keys ahead; r > 1: every
 * line of the row GK_FA_PF_LINE_KEYS keys ahead). Rows h*r .. h*r + r - 1
 * of q, s, p, o are head h's (ldq, lds, ldp, ldo apart); the bits of the
 * forms above with those rows.
 *   gk_fa_qk_f16_heads_avx512: s[(h*r+i)*lds + j] = sum_l q[(h*r+i)*ldq + l] * K[j*ldk + h*kgs + l]
 *   gk_fa_pv_f16_heads_avx512: o[(h*r+i)*ldo + d] += sum_j p[(h*r+i)*ldp + j] * V[j*ldv + h*vgs + d]
 */
void gk_fa_qk_f16_heads_avx512(int nh, int r, int n, int64_t dk, const float * q, int64_t ldq, const uint16_t * k,
                               int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf);
void gk_fa_pv_f16_heads_avx512(int nh, int r, int n, int64_t dv, const float * p, int64_t ldp, const uint16_t * v,
                               int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf);
/*
 * The same contracts and bits, r = 3 or 4 (GQA) taken 8 keys at a time
 * head by head, the outputs kept in registers over the 8 keys, each head's
 * pieces of the next 8 keys asked for (every line) before its tile; other
 * r as the forms above.
 */
void gk_fa_qk_f16_heads_g8_avx512(int nh, int r, int n, int64_t dk, const float * q, int64_t ldq,
                                  const uint16_t * k, int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf);
void gk_fa_pv_f16_heads_g8_avx512(int nh, int r, int n, int64_t dv, const float * p, int64_t ldp,
                                  const uint16_t * v, int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf);
// the same with r = 1 on Q8_0 / Q4_0 K and V (attn-quant-avx512.c; ldk,
// kgs, ldv, vgs in bytes; dk, dv multiples of 32): the bits of the m = 1
// forms
void gk_fa_qk_q8_0_heads_avx512(int nh, int n, int64_t dk, const float * q, int64_t ldq, const void * k,
                                int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf);
void gk_fa_pv_q8_0_heads_avx512(int nh, int n, int64_t dv, const float * p, int64_t ldp, const void * v,
                                int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf);
void gk_fa_qk_q4_0_heads_avx512(int nh, int n, int64_t dk, const float * q, int64_t ldq, const void * k,
                                int64_t ldk, int64_t kgs, float * s, int64_t lds, int npf);
void gk_fa_pv_q4_0_heads_avx512(int nh, int n, int64_t dv, const float * p, int64_t ldp, const void * v,
                                int64_t ldv, int64_t vgs, float * o, int64_t ldo, int npf);
// the keys ahead whose rows' pages the _heads forms ask for
#define GK_FA_PF_AHEAD 4
#define GK_FA_PF_LINE_KEYS 8

/*
 * The decode form on a Q8_0 or Q4_0 KV cache (attn-quant-avx512.c):
 * gk_fa_qk_f16 and gk_fa_pv_f16's contracts with K and V rows of Q8_0 /
 * Q4_0 blocks, ldk and ldv in bytes; dk, dv multiples of 32.
 */
void gk_fa_qk_q8_0_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const void * k, int64_t ldk,
                          float * s, int64_t lds);
void gk_fa_pv_q8_0_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const void * v, int64_t ldv,
                          float * o, int64_t ldo);
void gk_fa_qk_q4_0_avx512(int m, int n, int64_t dk, const float * q, int64_t ldq, const void * k, int64_t ldk,
                          float * s, int64_t lds);
void gk_fa_pv_q4_0_avx512(int m, int n, int64_t dv, const float * p, int64_t ldp, const void * v, int64_t ldv,
                          float * o, int64_t ldo);
int gk_fa_mask_class_avx512(const void * row, int f16, int n); // 0 all zero, 1 all -inf, 2 other
void gk_fa_rows_f16_avx512(int n, int64_t d, const uint16_t * src, int64_t lds, float * dst, int64_t ldd);
void gk_fa_tqk_avx512(int rv, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st);
void gk_fa_tsoftmax_avx512(int rv, int n, float scale, const float * mt, float * st, float * m, float * s,
                           float * ms);
void gk_fa_tpv_avx512(int rv, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
                      float * ot);
#endif

#if defined(__aarch64__)
void gk_fa_qk_f16_neon(int m, int n, int64_t dk, const float * q, int64_t ldq,
                       const uint16_t * k, int64_t ldk, float * s, int64_t lds);
void gk_fa_pv_f16_neon(int m, int n, int64_t dv, const float * p, int64_t ldp,
                       const uint16_t * v, int64_t ldv, float * o, int64_t ldo);
#endif

#endif // GK_ATTN_H
