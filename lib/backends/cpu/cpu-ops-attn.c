/*
 * cpu-ops-attn.c - FLASH_ATTN_EXT on the CPU: softmax(scale * Q K^T + slope
 * * mask) V with logit softcap, ALiBi slopes, GQA/MQA broadcast of K and V
 * over the query heads and attention sinks, by an online softmax over the
 * keys (no score matrix is stored).
 *
 * Four paths: the scalar one (one query row at a time, any types and
 * strides; the reference path), the vector one (blocks of query rows
 * sharing a K/V head), its transposed form on AVX512F or AVX2 (prefill:
 * blocks of 32 or 16 rows along the vector lanes) and the decode one (few query rows per
 * K/V head: every head of a key at once, the keys split between the
 * threads, the partial softmaxes merged at the end). See Documentation/
 * (cpu-backend).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-ops-rows.h"
#include "kernels/gk-attn.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"
#include "kernels/gk-vec.h"

#include <string.h>

// The thread's scratch: the scalar path's four rows (Q, K, the output, V)
// of the longest row of the node, and its mask row; the vector paths' areas
// after them.
#define SCRATCH_ROWS 4

// the node's parameters: the scale (divided by the softcap where there is
// one: tanh takes the scaled score), the ALiBi bias and the softcap
struct fa_op {
    float scale, max_bias, softcap;
};

static struct fa_op fa_op_params(const struct ggml_tensor * dst) {
    struct fa_op o = {
        ggml_get_op_params_f32(dst, 0), ggml_get_op_params_f32(dst, 1), ggml_get_op_params_f32(dst, 2),
    };
    if (o.softcap != 0.0f) {
        o.scale /= o.softcap;
    }
    return o;
}

static int64_t row_stride(const struct ggml_tensor * node) {
    int64_t m = node->ne[0];
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (node->src[i] && node->src[i]->ne[0] > m) {
            m = node->src[i]->ne[0];
        }
    }
    return GGML_PAD(m, 16);
}

static size_t scalar_scratch(const struct ggml_tensor * node) {
    return (size_t) (SCRATCH_ROWS * row_stride(node) + (node->src[3] ? GGML_PAD(node->src[3]->ne[0], 16) : 0));
}

// ---------------------------------------------------------------------------
// the vector paths (F16 K and V widened in registers; other types converted)
// ---------------------------------------------------------------------------

// The block form: blocks of up to FA_QB query rows that share a K/V head
// (consecutive queries of one head, or the heads of a GQA group), keys in
// chunks of FA_KC. Per chunk, for groups of 4 rows (GK_FA_MAX_ROWS): the
// scores by gk_fa_qk (each K row widened once per group, the chunk then
// reused from L1 by the next groups), scale, softcap, mask; per row the
// chunk's max, the rescale of the running output and sum, e^(s - max) in
// place (vector exp); then the weighted V rows added by gk_fa_pv. FA_QB
// rows per block keep the K/V traffic of long contexts at 1/16 of one pass
// per query. Groups whose mask is -inf over the whole chunk are skipped
// (causal masks: the upper triangle costs almost nothing).
// K or V of another type (F32, BF16, quantized: a quantized KV cache) is
// converted to F32 per chunk, once for all the block's rows: the scores
// through the F32 GEMM tile (gk_gemm_nt_f32), the values added with axpy for
// a few rows (decode) or, transposed, through the GEMM tile for more. The
// conversions are exact, so the numerics are those of the F16 path.
//
// The decode form (F16 K and V, or on AVX512 Q8_0/Q4_0: attn-quant-avx512.c; at
// most FA_DEC_MAX_ROWS (4) query rows per K/V head: one token, GQA groups
// of up to 4): the bytes of K and V are all
// there is to it (a few FMAs per byte), so it is about reading them at the
// memory's speed. A KV cache holds a key's heads side by side and one
// head's keys a row apart (a page, typically): read head by head, K and V
// are hundreds of 256-byte pieces a page apart, which the hardware
// prefetchers do not follow. So a block is all the K/V heads of a batch (up
// to FA_DEC_ROWS rows; more heads: several blocks), and its keys are walked
// FA_KG at a time through every head: FA_KG rows of the cache read from
// start to end side by side, streams the prefetchers keep ahead of (K/V
// head-major, each head's keys adjacent rows: a block per head, two
// sequential streams, fa_dec_plan). Then
// the block's keys are split into ranges (flash-decoding), so that the
// threads share the keys and not only the heads: a unit of work is a range
// of keys of a block, handed out as chunks (each thread's own consecutive
// ranges first: sequential memory); each leaves per row its partial softmax
// (max M, sum S, unnormalised output O) in the shared work buffer; after
// the node's segment wait (the graph walk ends a segment inside the node,
// as after MUL_MAT's conversion), the rows are merged in chunks:
// O = sum_r e^(M_r - M) O_r, S likewise, then the sink and 1/S. One thread
// takes no split; ranges are FA_DEC_MIN_KEYS keys or more, about
// FA_DEC_UNITS per thread.
#define FA_KC 64
#define FA_QB 16
#define FA_QB_CONV 64 // rows per block when K or V is converted: fewer conversions per row
#define FA_DEC_ROWS 64
// rows per K/V head at most: 8 (two kernel calls per head, GQA 8) measured
// 0-10% slower than the block form (compute, not the reads, bounds it)
#define FA_DEC_MAX_ROWS GK_FA_MAX_ROWS
#define FA_KG 8
#define FA_DEC_UNITS 8
#define FA_DEC_MIN_KEYS 64
#define FA_REC_HEAD 16 // a partial: M, S, padding to 64 bytes, then O

// the decode form's blocks and key ranges
struct fa_dec {
    int64_t hb;  // K/V heads per block
    int64_t nhb; // blocks per batch
    int64_t nr;  // key ranges per block (1: no split, no merge)
};

// the AVX512 kernels (attn-*avx512.c) may run: AVX512F/BW/VL, not disabled
static bool fa_avx512(void) {
#if defined(__x86_64__)
    return ggml_cpu_isa()->use_avx512f && ggml_cpu_isa()->avx512_bwvl;
#else
    return false;
#endif
}

// K and V the decode form reads as they are: F16, or on AVX512 each of
// them F16, Q8_0 or Q4_0 (attn-quant-avx512.c)
static bool fa_dec_type(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F16 || ((t->type == GGML_TYPE_Q8_0 || t->type == GGML_TYPE_Q4_0) &&
                                        t->nb[1] % sizeof(uint16_t) == 0);
}

static bool fa_dec_types(const struct ggml_tensor * k, const struct ggml_tensor * v) {
    if (k->type == GGML_TYPE_F16 && v->type == GGML_TYPE_F16) {
        return true;
    }
    return fa_avx512() && fa_dec_type(k) && fa_dec_type(v);
}

// the decode form's shape: K and V of fa_dec_types, few rows per K/V head
static bool fa_dec_shape(const struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0], * k = dst->src[1], * v = dst->src[2];
    return fa_dec_types(k, v) && k->ne[2] == v->ne[2] &&
           q->ne[2] % k->ne[2] == 0 && q->ne[1] * (q->ne[2] / k->ne[2]) <= FA_DEC_MAX_ROWS &&
           k->nb[2] % sizeof(uint16_t) == 0 && v->nb[2] % sizeof(uint16_t) == 0;
}

// rows of the thread's block scratch
static int64_t fa_rows_max(const struct ggml_tensor * dst) {
    const bool conv = dst->src[1]->type != GGML_TYPE_F16 || dst->src[2]->type != GGML_TYPE_F16;
    return conv || fa_dec_shape(dst) ? FA_QB_CONV : FA_QB;
}

// floats per partial of the decode form
static int64_t fa_rec(const struct ggml_tensor * dst) {
    return FA_REC_HEAD + GGML_PAD(dst->src[2]->ne[0], 16);
}

static bool fa_vec_ok(bool ref, const struct ggml_tensor * dst) {
    (void) ref;
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    return HAVE_VK && SIMD(ref) && row_is_dense(k) && row_is_dense(v) && (!mask || row_is_dense(mask)) &&
           (k->type != GGML_TYPE_F16 || k->nb[1] % sizeof(uint16_t) == 0) &&
           (v->type != GGML_TYPE_F16 || v->nb[1] % sizeof(uint16_t) == 0) &&
           k->ne[2] == v->ne[2] && k->ne[3] == v->ne[3];
}

// true when the node takes the decode form on nth threads; its blocks and
// ranges in *d
static bool fa_dec_plan(const struct ggml_tensor * dst, int nth, bool ref, struct fa_dec * d) {
    if (!fa_vec_ok(ref, dst) || !fa_dec_shape(dst)) {
        return false;
    }
    const struct ggml_tensor * q = dst->src[0], * k = dst->src[1];
    const int64_t n_head_kv = k->ne[2], R = q->ne[1] * (q->ne[2] / n_head_kv);
    // as few blocks as FA_DEC_ROWS allows, of (nearly) equal heads; one
    // head a block when each head's keys are adjacent rows (head-major K
    // and V, [D, n_kv, H]): a head is then two sequential streams, and all
    // the heads' keys side by side would be 2 n_head_kv streams
    const struct ggml_tensor * v = dst->src[2];
    const bool head_major = k->nb[2] >= k->nb[1] * (size_t) k->ne[1] && v->nb[2] >= v->nb[1] * (size_t) v->ne[1];
    const int64_t hbmax = head_major ? 1 : FA_DEC_ROWS / R;
    d->nhb = (n_head_kv + hbmax - 1) / hbmax;
    d->hb = (n_head_kv + d->nhb - 1) / d->nhb; // <= hbmax
    d->nhb = (n_head_kv + d->hb - 1) / d->hb;
    const int64_t blocks = q->ne[3] * d->nhb;
    const int64_t want = ((int64_t) FA_DEC_UNITS * nth + blocks - 1) / blocks;
    const int64_t most = (k->ne[1] + FA_DEC_MIN_KEYS - 1) / FA_DEC_MIN_KEYS;
    d->nr = nth <= 1 ? 1 : want < most ? want : most;
    return true;
}

#if HAVE_VK
// the cache lines of up to FA_KC rows of n halves, ld halves apart, row
// after row, into L1 (or, l2, into L2 only). Inlined by force: GCC treats
// an out-of-line function of prefetches alone as having no effect and
// deletes its calls. It left this one out of line once it had six calls
// (f94478f), and the head-major decode lost its prefetches (n_kv 4096, one
// thread: 3.4-5.4 ms without, 1.9-3.1 with, AVX512 and AVX2 alike); the
// block forms' next-chunk prefetches had been lost the same way before
// (restored, n_q 512: the same time either way)
static inline __attribute__((always_inline)) void fa_prefetch(const uint16_t * p, int64_t ld, int64_t n,
                                                              int64_t rows, bool l2) {
    rows = rows < FA_KC ? rows : FA_KC;
    for (int64_t j = 0; j < rows; j++) {
        for (int64_t e = 0; e < n; e += GGML_CPU_CACHE_LINE / (int64_t) sizeof(uint16_t)) {
            if (l2) {
                __builtin_prefetch(p + j * ld + e, 0, 2);
            } else {
                __builtin_prefetch(p + j * ld + e);
            }
        }
    }
}

// The decode form on head-major K and V reads a head's K rows for FA_KC
// keys (16 KiB at D = 128), then its V rows: two streams read in turns,
// which the hardware prefetchers follow badly. Asking for the V rows of
// the keys whose K rows are being read, and for the next chunk's K rows
// while V is, measured (bench-ops --other, F16, D = 128, 32 heads, n_kv
// 4096, one query, Zen 5, busy host, two alternating runs each): one thread
// 12.2-19.0 -> 27.8-33.3 GB/s of K/V, two threads 31-38 -> 68-75. Not
// for Q8_0/Q4_0 K and V (attn-quant-avx512.c): quiet, one thread, 1.54-1.57
// ms without, 1.68-2.83 with. With the heads side by side (a
// KV cache's layout) a block's rows are long sequential runs already: no
// prefetch (one thread, layer decode at 4096 cached tokens: no change).
// K and V that fit the caches do not need it, and pay for the extra
// instructions (n_kv 512, 8 MiB: 160-230 -> 220-380 us): only from
// FA_DEC_PF_MIN_BYTES of K and V, a last-level cache's size.
#define FA_DEC_PF_MIN_BYTES ((size_t) 32 << 20)

// With the heads side by side (a KV cache's layout) and GQA (several query
// rows per K/V head), a block's K (then V) rows for FA_KG keys are read
// head by head, 256-byte pieces of rows 1-2 KiB apart, and the hardware
// prefetchers fall behind: FLASH_ATTN_EXT alone, F16, D = 128, 32 query
// heads on 8 K/V heads, n_kv 4096 (16.8 MB of K and V), one query, one
// thread, Zen 5, read 11.6-16.7 GB/s (1.0-1.4 ms). So each pass asks for
// the rows FA_DEC_PF_KEYS keys ahead of the ones it reads, into L2:
// 0.72-0.96 ms. Asking for the next chunk's rows (64 keys ahead) measured
// 0.75-0.78, 16 or 32 keys 0.77-0.94, into L1 0.73-0.82. Not without GQA
// (one row per head: 32 heads, 64 MiB, 3.39 -> 3.73 ms; a prefetch per
// line is as many instructions as the FMAs there), and not for K and V
// that stay in the caches (n_kv 1024, 4 MiB: 142-157 -> 165-185 us): only
// from FA_DEC_ROW_PF_MIN_BYTES. In a model's decode, K and V come from
// DRAM whatever their size (every layer's weights stream between), so the
// limit is low.
#define FA_DEC_PF_KEYS 8
#define FA_DEC_ROW_PF_MIN_BYTES ((size_t) 16 << 20)

// Without GQA (one query row per K/V head) in a KV cache's layout, on
// AVX512 (F16, Q8_0 or Q4_0 K and V), the walk of FA_KG keys through every head read
// FA_KG rows (8 KiB each at 32 heads) in 256-byte pieces side by side: at
// each row's (page's) end the hardware prefetchers stop and start again
// only after misses, and every FA_KG keys all FA_KG streams start anew;
// that read 14-19 GB/s from DRAM against a limit of about 35 on one
// thread (Q8_0: 10-11). Keys outermost instead (gk_fa_qk_*_heads_avx512,
// gk_fa_pv_*_heads_avx512; when every head of the block is live in the
// chunk): each key's row from start to end, the whole range one sequential
// stream, and the first line of every 4 KiB page of the row 4 keys ahead
// asked for (two or three prefetches a row, not one a line), which starts
// the hardware prefetchers there before the reads reach it. The sums are
// the per-head kernels' (same bits). With GQA (F16, from
// FA_DEC_ROW_PF_MIN_BYTES) the same walk, 1 to 4 rows per head, with every
// line of the row 8 keys ahead asked for (the rows are short, the FMAs per
// byte four times as many: the per-line prefetches pay there): 32 query
// heads on 8, 4096 keys from DRAM, 1.28-1.34 -> 1.04-1.10 ms; in cache it
// was slower (82 -> 108 us: the values' outputs loaded and stored per key),
// hence the threshold. With 3 or 4 rows per head the _g8 kernels take 8
// keys at a time head by head, the outputs kept in registers (in cache
// 102 -> 73 us, from DRAM 1.10-1.23 -> 0.80-0.82 ms at 4 rows); through
// the whole node below the threshold that was still no faster than the
// 8-key walk. See cpu-backend.rst for figures.

// nc rows of K or V (not F16) from p as F32 [nc][ne0]: one conversion when
// the rows are adjacent, else one per row (a KV cache's heads interleave)
static void fa_rows_to_f32(const struct ggml_tensor * t, const char * p, int nc, float * out) {
    const size_t rs = ggml_row_size(t->type, t->ne[0]);
    if (t->nb[1] == rs) {
        ggml_cpu_row_to_f32(t->type, p, out, (int64_t) nc * t->ne[0], false);
        return;
    }
    for (int j = 0; j < nc; j++) {
        ggml_cpu_row_to_f32(t->type, p + j * t->nb[1], out + j * t->ne[0], t->ne[0], false);
    }
}

// the decode form's products: F16 rows (the VK kernels, or on AVX512
// attn-f16-avx512.c's), or Q8_0 / Q4_0 rows (strides in halves, as for
// F16: even, fa_dec_type)
static inline void fa_dec_qk(enum ggml_type kt, bool wide, int m, int n, int64_t dk, const float * q, int64_t ldq,
                             const uint16_t * k, int64_t ldk, float * s, int64_t lds) {
#if defined(__x86_64__)
    const int64_t ldb = ldk * (int64_t) sizeof(uint16_t);
    if (kt == GGML_TYPE_Q8_0) {
        gk_fa_qk_q8_0_avx512(m, n, dk, q, ldq, k, ldb, s, lds);
        return;
    }
    if (kt == GGML_TYPE_Q4_0) {
        gk_fa_qk_q4_0_avx512(m, n, dk, q, ldq, k, ldb, s, lds);
        return;
    }
    if (wide) {
        gk_fa_qk_f16_avx512(m, n, dk, q, ldq, k, ldk, s, lds);
        return;
    }
#endif
    (void) kt;
    (void) wide;
    VK(gk_fa_qk_f16)(m, n, dk, q, ldq, k, ldk, s, lds);
}

static inline void fa_dec_pv(enum ggml_type vt, bool wide, int m, int n, int64_t dv, const float * p, int64_t ldp,
                             const uint16_t * v, int64_t ldv, float * o, int64_t ldo) {
#if defined(__x86_64__)
    const int64_t ldb = ldv * (int64_t) sizeof(uint16_t);
    if (vt == GGML_TYPE_Q8_0) {
        gk_fa_pv_q8_0_avx512(m, n, dv, p, ldp, v, ldb, o, ldo);
        return;
    }
    if (vt == GGML_TYPE_Q4_0) {
        gk_fa_pv_q4_0_avx512(m, n, dv, p, ldp, v, ldb, o, ldo);
        return;
    }
    if (wide) {
        gk_fa_pv_f16_avx512(m, n, dv, p, ldp, v, ldv, o, ldo);
        return;
    }
#endif
    (void) vt;
    (void) wide;
    VK(gk_fa_pv_f16)(m, n, dv, p, ldp, v, ldv, o, ldo);
}

// the decode form on a KV cache's layout (see fa_vec): keys outermost, all
// nh heads of each key; AVX512 (wide): one row per head on F16, Q8_0, Q4_0,
// 1 to 4 (GQA) on F16; AVX2: one row per head on F16. Strides in halves
// as for fa_dec_qk
static inline void fa_dec_qk_heads(enum ggml_type kt, bool wide, int nh, int r, int n, int64_t dk, const float * q,
                                   int64_t ldq, const uint16_t * k, int64_t ldk, int64_t kgs, float * s, int64_t lds,
                                   int npf) {
#if defined(__x86_64__)
    const int64_t b = (int64_t) sizeof(uint16_t);
    if (!wide) {
        gk_fa_qk_f16_heads_avx2(nh, n, dk, q, ldq, k, ldk, kgs, s, lds, npf);
    } else if (kt == GGML_TYPE_Q8_0) {
        gk_fa_qk_q8_0_heads_avx512(nh, n, dk, q, ldq, k, ldk * b, kgs * b, s, lds, npf);
    } else if (kt == GGML_TYPE_Q4_0) {
        gk_fa_qk_q4_0_heads_avx512(nh, n, dk, q, ldq, k, ldk * b, kgs * b, s, lds, npf);
    } else {
        gk_fa_qk_f16_heads_g8_avx512(nh, r, n, dk, q, ldq, k, ldk, kgs, s, lds, npf);
    }
#else
    (void) kt, (void) wide, (void) r, (void) nh, (void) n, (void) dk, (void) q, (void) ldq, (void) k, (void) ldk, (void) kgs, (void) s,
        (void) lds, (void) npf;
    GGML_ABORT("fa_dec_qk_heads off x86-64");
#endif
}

static inline void fa_dec_pv_heads(enum ggml_type vt, bool wide, int nh, int r, int n, int64_t dv, const float * p,
                                   int64_t ldp, const uint16_t * v, int64_t ldv, int64_t vgs, float * o, int64_t ldo,
                                   int npf) {
#if defined(__x86_64__)
    const int64_t b = (int64_t) sizeof(uint16_t);
    if (!wide) {
        gk_fa_pv_f16_heads_avx2(nh, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf);
    } else if (vt == GGML_TYPE_Q8_0) {
        gk_fa_pv_q8_0_heads_avx512(nh, n, dv, p, ldp, v, ldv * b, vgs * b, o, ldo, npf);
    } else if (vt == GGML_TYPE_Q4_0) {
        gk_fa_pv_q4_0_heads_avx512(nh, n, dv, p, ldp, v, ldv * b, vgs * b, o, ldo, npf);
    } else {
        gk_fa_pv_f16_heads_g8_avx512(nh, r, n, dv, p, ldp, v, ldv, vgs, o, ldo, npf);
    }
#else
    (void) vt, (void) wide, (void) r, (void) nh, (void) n, (void) dv, (void) p, (void) ldp, (void) v, (void) ldv, (void) vgs, (void) o,
        (void) ldo, (void) npf;
    GGML_ABORT("fa_dec_pv_heads off x86-64");
#endif
}

// the AVX2 keys-outermost kernels (attn-x86.c) exist: x86-64 (the vector
// path there is AVX2's)
#if defined(__x86_64__)
#define FA_HEADS_AVX2 true
#else
#define FA_HEADS_AVX2 false
#endif

// keys of the range from the chunk's first on, for the kernels' prefetches
static inline int by_key_pf(int64_t left) {
    return left < INT32_MAX ? (int) left : INT32_MAX;
}

// the end of a query row (iq1, iq2, iq3): the sink, 1/S, into dst; o (the
// unnormalised output) is overwritten
static void fa_finish(struct ggml_tensor * dst, int64_t iq1, int64_t iq2, int64_t iq3, float M, float S, float * o) {
    const struct ggml_tensor * sinks = dst->src[4];
    const int64_t DV = dst->src[2]->ne[0];
    if (sinks) {
        const float sv = elem_get(sinks->type, (const char *) sinks->data + iq2 * sinks->nb[0]);
        if (sv > M) {
            const float ms = gk_expf(M - sv);
            VK(gk_scale_bias)(DV, o, ms, 0.0f, o);
            S = S * ms + 1.0f;
        } else {
            S += gk_expf(sv - M);
        }
    }
    const float inv = S == 0.0f ? 0.0f : 1.0f / S;
    // dst [DV, n_head, n_q, ne3]
    float * out = (float *) ((char *) dst->data + iq2 * dst->nb[1] + iq1 * dst->nb[2] + iq3 * dst->nb[3]);
    VK(gk_scale_bias)(DV, o, inv, 0.0f, out);
}

// The decode form's merge: every query row's nr partials (the shared work
// buffer, row after row) into its output, rows in chunks.
static void fa_merge(const struct ggml_compute_params * params, struct ggml_tensor * dst, int64_t nr, float * o) {
    const struct ggml_tensor * q = dst->src[0];
    const int64_t DV = dst->src[2]->ne[0], n_head_kv = dst->src[1]->ne[2];
    const int64_t g = q->ne[2] / n_head_kv, R = q->ne[1] * g;
    const int64_t rows = q->ne[3] * n_head_kv * R, rec = fa_rec(dst);
    const float * parts = (const float *) params->wdata;
    const int64_t nch = rows < 4 * (int64_t) params->nth ? rows : 4 * (int64_t) params->nth;
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nch, &ci);
    for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
        for (int64_t row = rows * c / nch; row < rows * (c + 1) / nch; row++) {
            const float * pr = parts + row * nr * rec;
            float M = -GK_INFINITY, S = 0.0f;
            for (int64_t r = 0; r < nr; r++) {
                M = pr[r * rec] > M ? pr[r * rec] : M;
            }
            memset(o, 0, (size_t) DV * sizeof(float));
            if (M != -GK_INFINITY) {
                // a range with every key masked has M = -inf, S = 0, O = 0
                for (int64_t r = 0; r < nr; r++) {
                    const float mr = pr[r * rec];
                    if (mr != -GK_INFINITY) {
                        const float w = gk_expf(mr - M);
                        S += w * pr[r * rec + 1];
                        VK(gk_axpy)(DV, w, pr + r * rec + FA_REC_HEAD, o);
                    }
                }
            }
            const int64_t iq3 = row / (n_head_kv * R), kh = row / R % n_head_kv, rr = row % R;
            fa_finish(dst, rr / g, kh * g + rr % g, iq3, M, S, o);
        }
    }
}

static void fa_vec(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    const struct fa_op op = fa_op_params(dst);
    const float scale = op.scale, max_bias = op.max_bias, softcap = op.softcap;
    const int64_t DK = q->ne[0], DV = v->ne[0];
    const int64_t n_kv = k->ne[1];
    const int64_t n_q = q->ne[1], n_head = q->ne[2], n_head_kv = k->ne[2];
    const int64_t g = n_head / n_head_kv;           // query heads per K/V head
    const int64_t R = n_q * g;                      // rows per (batch, K/V head)
    const bool k16 = k->type == GGML_TYPE_F16, v16 = v->type == GGML_TYPE_F16;
    const int64_t qbmax = fa_rows_max(dst);
    struct fa_dec dec;
    const bool decode = fa_dec_plan(dst, params->nth, params->ref, &dec);
    const bool wide = fa_avx512(); // the decode form's F16 products on 512-bit vectors
    int64_t hb = 1, nhb = n_head_kv, nbk, qbs = qbmax, nr = 1;
    if (decode) {
        hb = dec.hb;
        nhb = dec.nhb;
        nr = dec.nr;
        nbk = 1;
    } else {
        // FA_QB rows per block, fewer when that leaves threads without work
        // (e.g. prefill with one K/V head for many query heads)
        while (qbs > GK_FA_MAX_ROWS && q->ne[3] * n_head_kv * ((R + qbs - 1) / qbs) < 2 * params->nth) {
            qbs /= 2;
        }
        nbk = (R + qbs - 1) / qbs;
    }
    const int64_t gr = decode ? R : GK_FA_MAX_ROWS; // rows per group (decode: of one K/V head)
    const int64_t nblocks = q->ne[3] * nhb * nbk;
    const int64_t ldk = (int64_t) (k->nb[1] / sizeof(uint16_t));
    const int64_t ldv = (int64_t) (v->nb[1] / sizeof(uint16_t));
    const int64_t ldq = GGML_PAD(DK, 16), ldo = GGML_PAD(DV, 16);
    const int64_t rec = fa_rec(dst);
    enum { NG = FA_QB_CONV };

    // per-thread scratch after the rows of the scalar path
    float * qb = (float *) ggml_cpu_thread_scratch(params, dst) + scalar_scratch(dst);
    float * ob = qb + qbmax * ldq;
    float * sb = ob + qbmax * ldo;                  // scores, then weights [rows][FA_KC]
    float * mb = sb + qbmax * FA_KC;                // mask chunk [rows][FA_KC]
    float * kc = mb + qbmax * FA_KC;                // K chunk as F32 [FA_KC][DK] (not F16)
    float * vc = kc + (k16 ? 0 : FA_KC * DK);       // V chunk as F32 [FA_KC][DV] (not F16)
    float * vt = vc + (v16 ? 0 : FA_KC * DV);       // and transposed [DV][FA_KC]

    // units (blocks, or key ranges of blocks) as chunks: own share first,
    // then the others' leftovers; key ranges through the first of the
    // node's two parts (the merge takes the second)
    struct ggml_compute_params p1 = *params;
    if (nr > 1) {
        GGML_ASSERT(params->act_part != NULL && "FLASH_ATTN_EXT split over keys without its graph plan");
        GGML_ASSERT(params->wsize >= (size_t) (q->ne[3] * n_head_kv * R * nr * rec) * sizeof(float));
        p1.part = params->act_part;
    }
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(&p1, nblocks * nr, &ci);
    for (int64_t u = ggml_cpu_chunk_next(&p1, &ci); u >= 0; u = ggml_cpu_chunk_next(&p1, &ci)) {
        const int64_t b = u / nr, ir = u % nr;
        const int64_t k0 = n_kv * ir / nr, k1 = n_kv * (ir + 1) / nr;
        const int64_t iq3 = b / (nhb * nbk);
        const int64_t ikh = (b / nbk) % nhb * hb; // the block's first K/V head
        const int64_t rb = (b % nbk) * qbs;
        const int64_t nh = n_head_kv - ikh < hb ? n_head_kv - ikh : hb; // its heads
        const int m = (int) (decode ? nh * R : R - rb < qbs ? R - rb : qbs);
        const int ng = (int) ((m + gr - 1) / gr);
        GGML_ASSERT(m <= FA_QB_CONV);
        const int64_t ik3 = iq3 / (q->ne[3] / k->ne[3]);
        const uint16_t * kbase = (const uint16_t *) ((const char *) k->data + ikh * k->nb[2] + ik3 * k->nb[3]);
        const uint16_t * vbase = (const uint16_t *) ((const char *) v->data + ikh * v->nb[2] + ik3 * v->nb[3]);
        // group gi's K/V head: the block's, or (decode) ikh + gi
        const int64_t kgs = decode ? (int64_t) (k->nb[2] / sizeof(uint16_t)) : 0;
        // decode, one head a block (head-major K and V): each head's K and
        // V rows are read in turns of FA_KC keys, so the next rows of the
        // other are asked for meanwhile (fa_prefetch, FA_DEC_PF_MIN_BYTES)
        const bool dec_pf = decode && nh == 1 && k->type == GGML_TYPE_F16 && v->type == GGML_TYPE_F16 &&
                            ggml_nbytes(k) + ggml_nbytes(v) >= FA_DEC_PF_MIN_BYTES;
        const int64_t vgs = decode ? (int64_t) (v->nb[2] / sizeof(uint16_t)) : 0;
        // decode, several heads a block, GQA: the rows ahead (FA_DEC_PF_KEYS)
        const bool row_pf = decode && nh > 1 && R > 1 && k->type == GGML_TYPE_F16 && v->type == GGML_TYPE_F16 &&
                            ggml_nbytes(k) + ggml_nbytes(v) >= FA_DEC_ROW_PF_MIN_BYTES;
        // decode, several heads a block: keys outermost (fa_dec_qk_heads);
        // AVX512 with one row per head (K and V F16, Q8_0, Q4_0), or with
        // GQA on F16 K and V from FA_DEC_ROW_PF_MIN_BYTES; AVX2 with one
        // row per head on F16 K and V
        const bool by_key = decode && nh > 1 &&
                            (wide ? R == 1 || row_pf : FA_HEADS_AVX2 && R == 1 && k16 && v16);
        int64_t iq1[FA_QB_CONV], iq2[FA_QB_CONV];
        const char * mrow[FA_QB_CONV];
        int mrep[FA_QB_CONV]; // the first row with the same mask row: its chunk is converted once
        float slope[FA_QB_CONV], M[FA_QB_CONV], S[FA_QB_CONV], mmax[FA_QB_CONV];
        for (int i = 0; i < m; i++) {
            const int64_t rr = decode ? i % R : rb + i;      // row of its K/V head
            const int64_t kh = decode ? ikh + i / R : ikh;   // that head
            iq1[i] = rr / g;
            iq2[i] = kh * g + rr % g;
            const float * qr = row_in(q, iq1[i], iq2[i], iq3, qb + i * ldq, false);
            if (qr != qb + i * ldq) {
                memcpy(qb + i * ldq, qr, (size_t) DK * sizeof(float));
            }
            mrow[i] = mask ? row_ptr(mask, iq1[i] % mask->ne[1], iq2[i] % mask->ne[2], iq3 % mask->ne[3]) : NULL;
            mrep[i] = i;
            for (int j = 0; mask && j < i; j++) {
                if (mrow[j] == mrow[i]) {
                    mrep[i] = j;
                    break;
                }
            }
            slope[i] = ggml_cpu_alibi_slope(max_bias, iq2[i], n_head);
            M[i] = -GK_INFINITY;
            S[i] = 0.0f;
            memset(ob + i * ldo, 0, (size_t) DV * sizeof(float));
        }
        for (int64_t c0 = k0; c0 < k1; c0 += FA_KC) {
            const int nc = (int) (k1 - c0 < FA_KC ? k1 - c0 : FA_KC);
            bool live[NG];
            for (int gi = 0; gi < ng; gi++) {
                live[gi] = !mask;
            }
            if (mask) {
                for (int i = 0; i < m; i++) {
                    if (mrep[i] == i) {
                        float * mi = mb + i * FA_KC;
                        if (mask->type == GGML_TYPE_F16) {
                            ggml_cpu_fp16_to_fp32((const ggml_fp16_t *) mrow[i] + c0, mi, nc);
                        } else {
                            memcpy(mi, (const float *) mrow[i] + c0, (size_t) nc * sizeof(float));
                        }
                        mmax[i] = VK(gk_max)(nc, mi);
                    }
                    const int gi = (int) (i / gr);
                    live[gi] = live[gi] || mmax[mrep[i]] != -GK_INFINITY;
                }
            }
            bool any_live = false;
            for (int gi = 0; gi < ng; gi++) {
                any_live = any_live || live[gi];
            }
            if (!any_live) {
                continue;
            }
            bool all_live = true;
            for (int gi = 0; gi < ng; gi++) {
                all_live = all_live && live[gi];
            }
            if (by_key && all_live) {
                fa_dec_qk_heads(k->type, wide, (int) nh, (int) R, nc, DK, qb, ldq, kbase + c0 * ldk, ldk, kgs, sb, FA_KC, by_key_pf(k1 - c0));
            } else if (decode) {
                // FA_KG keys at a time through every head: those rows of K
                // read from start to end, side by side
                for (int j0 = 0; j0 < nc; j0 += FA_KG) {
                    const int nj = nc - j0 < FA_KG ? nc - j0 : FA_KG;
                    for (int gi = 0; gi < ng; gi++) {
                        for (int64_t r0 = gi * gr; live[gi] && r0 < (gi + 1) * gr; r0 += GK_FA_MAX_ROWS) {
                            const int mr = (int) ((gi + 1) * gr - r0 < GK_FA_MAX_ROWS ? (gi + 1) * gr - r0
                                                                                      : GK_FA_MAX_ROWS);
                            fa_dec_qk(k->type, wide, mr, nj, DK, qb + r0 * ldq, ldq, kbase + gi * kgs + (c0 + j0) * ldk, ldk,
                                      sb + r0 * FA_KC + j0, FA_KC);
                        }
                        if (dec_pf && live[gi]) {
                            fa_prefetch(vbase + gi * vgs + (c0 + j0) * ldv, ldv, DV, nj, false);
                        }
                    }
                    if (row_pf && c0 + j0 + FA_DEC_PF_KEYS < k1) {
                        const int64_t left = k1 - c0 - j0 - FA_DEC_PF_KEYS;
                        fa_prefetch(kbase + (c0 + j0 + FA_DEC_PF_KEYS) * ldk, ldk, (nh - 1) * kgs + DK,
                                    left < nj ? left : nj, true);
                    }
                }
            } else {
                if (c0 + FA_KC < k1 && k16 && v16) {
                    fa_prefetch(kbase + (c0 + FA_KC) * ldk, ldk, DK, k1 - c0 - FA_KC, false);
                    fa_prefetch(vbase + (c0 + FA_KC) * ldv, ldv, DV, k1 - c0 - FA_KC, false);
                }
                if (!k16) {
                    fa_rows_to_f32(k, (const char *) kbase + c0 * k->nb[1], nc, kc);
                }
                for (int gi = 0, g1; gi < ng; gi = g1) {
                    // F16: per group; converted: one GEMM over each run of live groups
                    for (g1 = gi + 1; !k16 && live[gi] && g1 < ng && live[g1]; g1++) {
                    }
                    const int r0 = (int) (gi * gr);
                    const int re = (int) (g1 * gr < m ? g1 * gr : m);
                    if (live[gi] && k16) {
                        VK(gk_fa_qk_f16)(re - r0, nc, DK, qb + r0 * ldq, ldq, kbase + c0 * ldk, ldk,
                                         sb + r0 * FA_KC, FA_KC);
                    } else if (live[gi]) {
                        memset(sb + r0 * FA_KC, 0, (size_t) (re - r0) * FA_KC * sizeof(float));
                        VK(gk_gemm_nt_f32)(re - r0, nc, (int) DK, qb + r0 * ldq, ldq, kc, DK, sb + r0 * FA_KC, FA_KC);
                    }
                }
            }
            for (int i = 0; i < m; i++) {
                if (!live[i / gr]) {
                    continue;
                }
                float * si = sb + i * FA_KC;
                VK(gk_scale_bias)(nc, si, scale, 0.0f, si);
                if (softcap != 0.0f) {
                    for (int j = 0; j < nc; j++) {
                        si[j] = softcap * gk_tanhf(si[j]);
                    }
                }
                if (mask) {
                    VK(gk_axpy)(nc, slope[i], mb + mrep[i] * FA_KC, si);
                }
                const float mc = VK(gk_max)(nc, si);
                if (mc == -GK_INFINITY) {
                    memset(si, 0, (size_t) nc * sizeof(float));
                    continue;
                }
                if (mc > M[i]) {
                    const float ms = gk_expf(M[i] - mc);
                    if (S[i] != 0.0f) {
                        VK(gk_scale_bias)(DV, ob + i * ldo, ms, 0.0f, ob + i * ldo);
                    }
                    S[i] *= ms;
                    M[i] = mc;
                }
                S[i] += VK(gk_exp_sub_sum)(nc, si, M[i]);
            }
            if (by_key && all_live) {
                fa_dec_pv_heads(v->type, wide, (int) nh, (int) R, nc, DV, sb, FA_KC, vbase + c0 * ldv, ldv, vgs, ob, ldo, by_key_pf(k1 - c0));
                continue;
            }
            if (decode) {
                for (int j0 = 0; j0 < nc; j0 += FA_KG) {
                    const int nj = nc - j0 < FA_KG ? nc - j0 : FA_KG;
                    for (int gi = 0; gi < ng; gi++) {
                        for (int64_t r0 = gi * gr; live[gi] && r0 < (gi + 1) * gr; r0 += GK_FA_MAX_ROWS) {
                            const int mr = (int) ((gi + 1) * gr - r0 < GK_FA_MAX_ROWS ? (gi + 1) * gr - r0
                                                                                      : GK_FA_MAX_ROWS);
                            fa_dec_pv(v->type, wide, mr, nj, DV, sb + r0 * FA_KC + j0, FA_KC,
                                      vbase + gi * vgs + (c0 + j0) * ldv, ldv, ob + r0 * ldo, ldo);
                        }
                        if (dec_pf && c0 + FA_KC + j0 < k1) {
                            const int64_t left = k1 - c0 - FA_KC - j0;
                            fa_prefetch(kbase + gi * kgs + (c0 + FA_KC + j0) * ldk, ldk, DK, left < nj ? left : nj,
                                        false);
                        }
                    }
                    if (row_pf && c0 + j0 + FA_DEC_PF_KEYS < k1) {
                        const int64_t left = k1 - c0 - j0 - FA_DEC_PF_KEYS;
                        fa_prefetch(vbase + (c0 + j0 + FA_DEC_PF_KEYS) * ldv, ldv, (nh - 1) * vgs + DV,
                                    left < nj ? left : nj, true);
                    }
                }
                continue;
            }
            if (!v16) {
                fa_rows_to_f32(v, (const char *) vbase + c0 * v->nb[1], nc, vc);
                if (m > GK_FA_MAX_ROWS) {
                    // many rows: the GEMM wants V transposed
                    for (int j = 0; j < nc; j++) {
                        for (int64_t d = 0; d < DV; d++) {
                            vt[d * FA_KC + j] = vc[j * DV + d];
                        }
                    }
                } else {
                    // few rows (decode): each V row added to each row's output
                    for (int i = 0; i < m; i++) {
                        if (live[i / gr]) {
                            for (int j = 0; j < nc; j++) {
                                VK(gk_axpy)(DV, sb[i * FA_KC + j], vc + j * DV, ob + i * ldo);
                            }
                        }
                    }
                    continue;
                }
            }
            for (int gi = 0, g1; gi < ng; gi = g1) {
                for (g1 = gi + 1; !v16 && live[gi] && g1 < ng && live[g1]; g1++) {
                }
                const int r0 = (int) (gi * gr);
                const int re = (int) (g1 * gr < m ? g1 * gr : m);
                if (live[gi] && v16) {
                    VK(gk_fa_pv_f16)(re - r0, nc, DV, sb + r0 * FA_KC, FA_KC, vbase + c0 * ldv, ldv,
                                     ob + r0 * ldo, ldo);
                } else if (live[gi]) {
                    VK(gk_gemm_nt_f32)(re - r0, (int) DV, nc, sb + r0 * FA_KC, FA_KC, vt, FA_KC, ob + r0 * ldo, ldo);
                }
            }
        }
        if (nr == 1) {
            for (int i = 0; i < m; i++) {
                fa_finish(dst, iq1[i], iq2[i], iq3, M[i], S[i], ob + i * ldo);
            }
        } else {
            // the partials of this range, at row * nr + ir (the block's
            // rows are the rows ikh * R .. of its batch)
            float * parts = (float *) params->wdata + ((iq3 * n_head_kv + ikh) * R * nr + ir) * rec;
            for (int i = 0; i < m; i++) {
                float * pr = parts + i * nr * rec;
                pr[0] = M[i];
                pr[1] = S[i];
                memcpy(pr + FA_REC_HEAD, ob + i * ldo, (size_t) DV * sizeof(float));
            }
        }
    }
    if (nr > 1) {
        // every range's partials are written: merge them
        ggml_cpu_act_sync(params);
        fa_merge(params, dst, nr, ob);
    }
}
#if defined(__x86_64__)
// ---------------------------------------------------------------------------
// the transposed block form (AVX512F, attn-avx512.c; AVX2, attn-t-x86.c)
// ---------------------------------------------------------------------------

// Blocks of up to FA_TB query rows of one K/V head, held transposed: the
// rows run along the vector lanes (16 or 8 a vector, one or more vectors), so
// scores, weights and outputs of all the block's rows at one key or one
// output column are one or two vectors. Per chunk of FA_KC keys: K widened
// to F32 once (or converted, other types), the scores of all rows by the
// Q K^T tile, the mask as a tile only where some row's chunk of it is
// neither all zero nor all -inf (a causal mask: the chunks on the
// diagonal; chunks all -inf for every row are skipped), the online softmax
// as vector operations over the rows, V widened, the P V tile (the running
// output's rescale folded into its load). Used for the block form's
// shapes (not the decode form's) with at least FA_TB_MIN rows per K/V head.
#define FA_TB 32 // rows per block at most (the scratch's); each ISA's own in fa_t_kern
#define FA_TB_MIN 8
#define FA_TB_GROUP 8 // blocks per unit of work: one conversion of K and V for all
#define FA_TB_CLS_MAX 4096 // chunks at most whose mask classes a thread keeps

// The form's kernels on one ISA, chosen once per node: rows per vector,
// rows per block (tb <= FA_TB, a multiple of lanes; half that, rounded up
// to whole vectors, while there are fewer than two blocks per thread), the five kernels of gk-attn.h.
struct fa_t_kern {
    int lanes, tb;
    void (*rows_f16)(int n, int64_t d, const uint16_t * src, int64_t lds, float * dst, int64_t ldd);
    int (*mask_class)(const void * row, int f16, int n);
    void (*tqk)(int rv, int n, int64_t dk, const float * qt, const float * k, int64_t ldk, float * st);
    void (*tsoftmax)(int rv, int n, float scale, const float * mt, float * st, float * m, float * s, float * ms);
    void (*tpv)(int rv, int n, int64_t dv, const float * pt, const float * v, int64_t ldv, const float * ms,
                float * ot);
};

static const struct fa_t_kern fa_t_avx512 = {
    16, 32, gk_fa_rows_f16_avx512, gk_fa_mask_class_avx512, gk_fa_tqk_avx512, gk_fa_tsoftmax_avx512,
    gk_fa_tpv_avx512,
};

// 24 rows (three vectors): the 3 x 4 tiles measured 3-10% faster than
// 16 rows (2 x 6) and 32 (4 x 2: too few accumulators) 25-35% slower
static const struct fa_t_kern fa_t_avx2 = {
    8, 24, gk_fa_rows_f16_avx2, gk_fa_mask_class_avx2, gk_fa_tqk_avx2, gk_fa_tsoftmax_avx2, gk_fa_tpv_avx2,
};

// the kernels this CPU runs the form with (NULL: none); AVX2 is there
// whenever the vector paths run (SIMD)
static const struct fa_t_kern * fa_t_kern(void) {
    if (fa_avx512()) {
        return &fa_t_avx512;
    }
    return ggml_cpu_fast_x86() ? &fa_t_avx2 : NULL;
}

static bool fa_t_ok(bool ref, const struct ggml_tensor * dst) {
    if (!fa_vec_ok(ref, dst) || !fa_t_kern() || fa_dec_shape(dst)) {
        return false;
    }
    const struct ggml_tensor * q = dst->src[0], * k = dst->src[1];
    return q->ne[2] % k->ne[2] == 0 && q->ne[1] * (q->ne[2] / k->ne[2]) >= FA_TB_MIN;
}

// chunks whose mask classes the thread keeps (0: none kept)
static int64_t fa_t_cls_chunks(const struct ggml_tensor * node) {
    const int64_t nch = (node->src[1]->ne[1] + FA_KC - 1) / FA_KC;
    return node->src[3] && nch <= FA_TB_CLS_MAX ? nch : 0;
}

static size_t fa_t_scratch(const struct ggml_tensor * node) {
    const int64_t dk = node->src[0]->ne[0], dv = node->src[2]->ne[0];
    return (size_t) (2 * FA_TB * FA_KC + FA_KC * (dk + dv) + GGML_PAD(dv, 16) +
                     FA_TB_GROUP * FA_TB * (dk + dv + 3)) * sizeof(float) +
           (size_t) (fa_t_cls_chunks(node) * FA_TB_GROUP * FA_TB);
}

// one block's rows: their queries, output, softmax state (the block's
// part of the thread's scratch)
struct fa_tb {
    float * qt, * ot, * M, * S, * MS;
    int64_t iq1[FA_TB], iq2[FA_TB];
    const char * mrow[FA_TB];
    float slope[FA_TB];
    int m;
};

static void fa_tblock(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    const struct fa_op op = fa_op_params(dst);
    const float scale = op.scale, max_bias = op.max_bias, softcap = op.softcap;
    const int64_t DK = q->ne[0], DV = v->ne[0];
    const int64_t n_kv = k->ne[1];
    const int64_t n_head = q->ne[2], n_head_kv = k->ne[2];
    const int64_t g = n_head / n_head_kv, R = q->ne[1] * g;
    const bool k16 = k->type == GGML_TYPE_F16, v16 = v->type == GGML_TYPE_F16;
    const int64_t heads = q->ne[3] * n_head_kv;
    const struct fa_t_kern * kern = fa_t_kern();
    const int L = kern->lanes;
    // kern->tb rows per block, half that when that leaves threads without
    // work; up to FA_TB_GROUP blocks per unit, fewer likewise
    int64_t qbs = kern->tb;
    if (heads * ((R + qbs - 1) / qbs) < 2 * params->nth) {
        qbs = (kern->tb / 2 + L - 1) / L * L;
    }
    const int64_t nbk = (R + qbs - 1) / qbs;
    int64_t nbg = nbk < FA_TB_GROUP ? nbk : FA_TB_GROUP;
    while (nbg > 1 && heads * ((nbk + nbg - 1) / nbg) < 2 * params->nth) {
        nbg = (nbg + 1) / 2;
    }
    const int64_t ngr = (nbk + nbg - 1) / nbg, nunits = heads * ngr;
    const int64_t ldk = (int64_t) (k->nb[1] / sizeof(uint16_t)), ldv = (int64_t) (v->nb[1] / sizeof(uint16_t));

    float * st = (float *) ggml_cpu_thread_scratch(params, dst) + scalar_scratch(dst); // [FA_KC][W]
    float * mt = st + FA_TB * FA_KC;        // [FA_KC][W]
    float * kc = mt + FA_TB * FA_KC;        // the K chunk as F32 [FA_KC][DK]
    float * vc = kc + FA_KC * DK;           // the V chunk as F32 [FA_KC][DV]
    float * ob = vc + FA_KC * DV;           // one output row
    float * blk = ob + GGML_PAD(DV, 16);    // the blocks' [DK][W], [DV][W], 3 x [W]
    // the mask classes of the last unit's rows [chunk][block][row]: the
    // next unit (the next K/V head of the same rows: units run head
    // fastest) reuses them when its mask rows are the same ones (a mask
    // shared by the heads), instead of reading the mask again
    const int64_t ncls = fa_t_cls_chunks(dst);
    uint8_t * clsc = (uint8_t *) (blk + FA_TB_GROUP * FA_TB * (DK + DV + 3));
    const char * cls_rows[FA_TB_GROUP * FA_TB];
    int64_t cls_nb = 0, cls_m[FA_TB_GROUP] = { 0 };
    struct fa_tb tb[FA_TB_GROUP];

    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nunits, &ci);
    for (int64_t u = ggml_cpu_chunk_next(params, &ci); u >= 0; u = ggml_cpu_chunk_next(params, &ci)) {
        const int64_t iq3 = u / (n_head_kv * ngr);
        const int64_t ikh = u % n_head_kv;
        const int64_t b0 = (u / n_head_kv) % ngr * nbg, nb = nbk - b0 < nbg ? nbk - b0 : nbg;
        const int64_t ik3 = iq3 / (q->ne[3] / k->ne[3]);
        const char * kbase = (const char *) k->data + ikh * k->nb[2] + ik3 * k->nb[3];
        const char * vbase = (const char *) v->data + ikh * v->nb[2] + ik3 * v->nb[3];
        for (int64_t bi = 0; bi < nb; bi++) {
            struct fa_tb * t = &tb[bi];
            const int64_t rb = (b0 + bi) * qbs;
            t->m = (int) (R - rb < qbs ? R - rb : qbs);
            const int W = (t->m + L - 1) / L * L;
            t->qt = blk + bi * FA_TB * (DK + DV + 3);
            t->ot = t->qt + FA_TB * DK;
            t->M = t->ot + FA_TB * DV;
            t->S = t->M + FA_TB;
            t->MS = t->S + FA_TB;
            memset(t->qt, 0, (size_t) (DK * W) * sizeof(float));
            memset(t->ot, 0, (size_t) (DV * W) * sizeof(float));
            for (int i = 0; i < W; i++) {
                t->M[i] = -GK_INFINITY;
                t->S[i] = 0.0f;
            }
            for (int i = 0; i < t->m; i++) {
                const int64_t rr = rb + i;
                t->iq1[i] = rr / g;
                t->iq2[i] = ikh * g + rr % g;
                const float * qr = row_in(q, t->iq1[i], t->iq2[i], iq3, kc, false);
                for (int64_t l = 0; l < DK; l++) {
                    t->qt[l * W + i] = qr[l];
                }
                t->mrow[i] = mask ? row_ptr(mask, t->iq1[i] % mask->ne[1], t->iq2[i] % mask->ne[2],
                                            iq3 % mask->ne[3])
                                  : NULL;
                t->slope[i] = ggml_cpu_alibi_slope(max_bias, t->iq2[i], n_head);
            }
        }
        bool reuse = ncls > 0 && mask && cls_nb == nb;
        for (int64_t bi = 0; bi < nb; bi++) {
            reuse = reuse && cls_m[bi] == tb[bi].m;
            for (int i = 0; reuse && i < tb[bi].m; i++) {
                reuse = cls_rows[bi * FA_TB + i] == tb[bi].mrow[i];
            }
        }
        if (ncls > 0 && mask && !reuse) {
            cls_nb = nb;
            for (int64_t bi = 0; bi < nb; bi++) {
                cls_m[bi] = tb[bi].m;
                for (int i = 0; i < tb[bi].m; i++) {
                    cls_rows[bi * FA_TB + i] = tb[bi].mrow[i];
                }
            }
        }
        for (int64_t c0 = 0; c0 < n_kv; c0 += FA_KC) {
            const int nc = (int) (n_kv - c0 < FA_KC ? n_kv - c0 : FA_KC);
            bool converted = false;
            for (int64_t bi = 0; bi < nb; bi++) {
                struct fa_tb * t = &tb[bi];
                const int m = t->m, rv = (m + L - 1) / L, W = L * rv;
                int cls[FA_TB];
                bool live = !mask, tile = false;
                uint8_t * cc = ncls > 0 ? clsc + (c0 / FA_KC * FA_TB_GROUP + bi) * FA_TB : NULL;
                for (int i = 0; mask && i < m; i++) {
                    if (reuse) {
                        cls[i] = cc[i];
                    } else {
                        cls[i] = i > 0 && t->mrow[i] == t->mrow[i - 1]
                                     ? cls[i - 1]
                                     : kern->mask_class(t->mrow[i] + c0 * (int64_t) ggml_type_size(mask->type),
                                                        mask->type == GGML_TYPE_F16, nc);
                        if (cc) {
                            cc[i] = (uint8_t) cls[i];
                        }
                    }
                    live = live || cls[i] != 1;
                    tile = tile || cls[i] != 0;
                }
                if (mask && !reuse && c0 + FA_KC < n_kv) {
                    // the next chunk's mask: a piece of each of up to
                    // FA_TB rows a mask row apart, which the prefetchers miss
                    const size_t ts = ggml_type_size(mask->type);
                    for (int i = 0; i < m; i++) {
                        if (i == 0 || t->mrow[i] != t->mrow[i - 1]) {
                            const char * p = t->mrow[i] + (c0 + FA_KC) * (int64_t) ts;
                            __builtin_prefetch(p);
                            __builtin_prefetch(p + FA_KC * ts - 1);
                        }
                    }
                }
                if (!live) {
                    continue;
                }
                if (!converted) {
                    // K and V of the chunk widened once for all the blocks
                    if (k16) {
                        kern->rows_f16(nc, DK, (const uint16_t *) (kbase + c0 * k->nb[1]), ldk, kc, DK);
                    } else {
                        fa_rows_to_f32(k, kbase + c0 * k->nb[1], nc, kc);
                    }
                    if (v16) {
                        kern->rows_f16(nc, DV, (const uint16_t *) (vbase + c0 * v->nb[1]), ldv, vc, DV);
                    } else {
                        fa_rows_to_f32(v, vbase + c0 * v->nb[1], nc, vc);
                    }
                    if (c0 + FA_KC < n_kv && k16 && v16) {
                        fa_prefetch((const uint16_t *) kbase + (c0 + FA_KC) * ldk, ldk, DK, n_kv - c0 - FA_KC, false);
                        fa_prefetch((const uint16_t *) vbase + (c0 + FA_KC) * ldv, ldv, DV, n_kv - c0 - FA_KC, false);
                    }
                    converted = true;
                }
                kern->tqk(rv, nc, DK, t->qt, kc, DK, st);
                float sc = scale;
                if (softcap != 0.0f) {
                    for (int64_t e = 0; e < (int64_t) nc * W; e++) {
                        st[e] = softcap * gk_tanhf(st[e] * scale);
                    }
                    sc = 1.0f;
                }
                if (tile) {
                    for (int i = 0; i < W; i++) {
                        const int c = i < m ? cls[i] : 0;
                        for (int j = 0; j < nc; j++) {
                            float x = 0.0f;
                            if (c == 1) {
                                x = -GK_INFINITY;
                            } else if (c == 2) {
                                x = mask->type == GGML_TYPE_F16
                                        ? gk_fp16_to_fp32(((const uint16_t *) t->mrow[i])[c0 + j])
                                        : ((const float *) t->mrow[i])[c0 + j];
                                x *= t->slope[i];
                            }
                            mt[j * W + i] = x;
                        }
                    }
                }
                kern->tsoftmax(rv, nc, sc, tile ? mt : NULL, st, t->M, t->S, t->MS);
                kern->tpv(rv, nc, DV, st, vc, DV, t->MS, t->ot);
            }
        }
        for (int64_t bi = 0; bi < nb; bi++) {
            const struct fa_tb * t = &tb[bi];
            const int W = (t->m + L - 1) / L * L;
            for (int i = 0; i < t->m; i++) {
                for (int64_t d = 0; d < DV; d++) {
                    ob[d] = t->ot[d * W + i];
                }
                fa_finish(dst, t->iq1[i], t->iq2[i], iq3, t->M[i], t->S[i], ob);
            }
        }
    }
}
#endif
#endif

static size_t fa_vec_scratch(const struct ggml_tensor * node) {
    const int64_t dk = node->src[1]->ne[0], dv = node->src[2]->ne[0];
    const size_t conv = (node->src[1]->type == GGML_TYPE_F16 ? 0 : (size_t) (FA_KC * dk)) +
                        (node->src[2]->type == GGML_TYPE_F16 ? 0 : (size_t) (2 * FA_KC * dv));
    const size_t qbmax = (size_t) fa_rows_max(node);
    const size_t vec = (qbmax * (GGML_PAD(node->src[0]->ne[0], 16) + GGML_PAD(dv, 16) + 2 * FA_KC) + conv) *
                       sizeof(float);
#if defined(__x86_64__) && HAVE_VK
    return vec > fa_t_scratch(node) ? vec : fa_t_scratch(node);
#else
    return vec;
#endif
}

int64_t ggml_cpu_attn_key_ranges(const struct ggml_tensor * node, int nth, bool ref) {
    struct fa_dec d;
    return fa_dec_plan(node, nth, ref, &d) ? d.nr : 1;
}

size_t ggml_cpu_attn_work_shared(const struct ggml_tensor * node, int n_threads) {
    struct fa_dec d;
    if (!fa_dec_plan(node, n_threads, false, &d) || d.nr == 1) {
        return 0;
    }
    const struct ggml_tensor * q = node->src[0];
    return (size_t) (ggml_nrows(q) * d.nr * fa_rec(node)) * sizeof(float);
}

void ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
#if defined(__x86_64__) && HAVE_VK
    if (fa_t_ok(params->ref, dst)) {
        fa_tblock(params, dst);
        return;
    }
#endif
#if HAVE_VK
    if (fa_vec_ok(params->ref, dst)) {
        fa_vec(params, dst);
        return;
    }
#endif
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    const struct ggml_tensor * sinks = dst->src[4];
    const struct fa_op op = fa_op_params(dst);
    const float scale = op.scale, max_bias = op.max_bias, softcap = op.softcap;
    const int64_t DK = q->ne[0], DV = v->ne[0];
    const int64_t n_kv = k->ne[1];
    const int64_t n_head = q->ne[2];
    // rows: (iq1 query, iq2 head, iq3 batch)
    const int64_t nr = q->ne[1] * q->ne[2] * q->ne[3];
    // rows in chunks, four a thread: handed out as the vector path's blocks
    const int64_t nc = nr < 4 * (int64_t) params->nth ? nr : 4 * (int64_t) params->nth;
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nc, &ci);
    float * qrow = (float *) ggml_cpu_thread_scratch(params, dst);
    float * krow = qrow + row_stride(dst);
    float * acc  = krow + row_stride(dst);
    float * vrow = acc + row_stride(dst);
    float * mrow = vrow + row_stride(dst);
    for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
        for (int64_t ir = nr * c / nc; ir < nr * (c + 1) / nc; ir++) {
            const int64_t iq3 = ir / (q->ne[2] * q->ne[1]);
            const int64_t iq2 = (ir - iq3 * q->ne[2] * q->ne[1]) / q->ne[1];
            const int64_t iq1 = ir - iq3 * q->ne[2] * q->ne[1] - iq2 * q->ne[1];
            const int64_t ik2 = iq2 / (n_head / k->ne[2]);
            const int64_t ik3 = iq3 / (q->ne[3] / k->ne[3]);
            const int64_t iv2 = iq2 / (n_head / v->ne[2]);
            const int64_t iv3 = iq3 / (q->ne[3] / v->ne[3]);
            const float slope = ggml_cpu_alibi_slope(max_bias, iq2, n_head);
            const float * qr = row_in(q, iq1, iq2, iq3, qrow, params->ref);
            const float * mr = NULL;
            if (mask) {
                mr = row_in(mask, iq1 % mask->ne[1], iq2 % mask->ne[2], iq3 % mask->ne[3], mrow, params->ref);
            }
            float M = -GK_INFINITY, S = 0.0f;
            for (int64_t d = 0; d < DV; d++) {
                acc[d] = 0.0f;
            }
            for (int64_t ic = 0; ic < n_kv; ic++) {
                const float mv = mr ? slope * mr[ic] : 0.0f;
                if (mv == -GK_INFINITY) {
                    continue;
                }
                const float * kr = row_in(k, ic, ik2, ik3, krow, params->ref);
                float s = ggml_cpu_dot_f32(DK, qr, kr, params->ref) * scale;
                if (softcap != 0.0f) {
                    s = softcap * gk_tanhf(s);
                }
                s += mv;
                const float Mold = M;
                float ms = 1.0f, vs = 1.0f;
                if (s > M) {
                    M = s;
                    ms = gk_expf(Mold - M);
                    for (int64_t d = 0; d < DV; d++) {
                        acc[d] *= ms;
                    }
                } else {
                    vs = gk_expf(s - M);
                }
                const float * vr = row_in(v, ic, iv2, iv3, vrow, params->ref);
                for (int64_t d = 0; d < DV; d++) {
                    acc[d] += vr[d] * vs;
                }
                S = S * ms + vs;
            }
            if (sinks) {
                const float sv = elem_get(sinks->type, (const char *) sinks->data + iq2 * sinks->nb[0]);
                float ms = 1.0f, vs = 1.0f;
                if (sv > M) {
                    ms = gk_expf(M - sv);
                    for (int64_t d = 0; d < DV; d++) {
                        acc[d] *= ms;
                    }
                } else {
                    vs = gk_expf(sv - M);
                }
                S = S * ms + vs;
            }
            const float inv = S == 0.0f ? 0.0f : 1.0f / S;
            // dst [DV, n_head, n_q, ne3]
            float * out = (float *) ((char *) dst->data + iq2 * dst->nb[1] + iq1 * dst->nb[2] + iq3 * dst->nb[3]);
            for (int64_t d = 0; d < DV; d++) {
                out[d] = acc[d] * inv;
            }
        }
    }
}

static bool f32ish(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

static bool fa_kv_ok(const struct ggml_tensor * t) {
    return f32ish(t->type) ||
           (ggml_is_quantized(t->type) && ggml_cpu_type_to_f32_ok(t->type) && row_is_dense(t));
}

bool ggml_cpu_attn_supports_op(const struct ggml_tensor * node) {
    // K and V: F32/F16/BF16, or quantized (a quantized KV cache) with whole rows
    return f32ish(node->src[0]->type) && fa_kv_ok(node->src[1]) && fa_kv_ok(node->src[2]) &&
           node->type == GGML_TYPE_F32 && (!node->src[3] || f32ish(node->src[3]->type)) &&
           ggml_is_contiguous_rows(node);
}

size_t ggml_cpu_attn_work_per_thread(const struct ggml_tensor * node) {
    return scalar_scratch(node) * sizeof(float) + fa_vec_scratch(node);
}
