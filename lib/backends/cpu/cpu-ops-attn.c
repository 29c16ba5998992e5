/*
 * cpu-ops-attn.c - FLASH_ATTN_EXT on the CPU: softmax(scale * Q K^T + slope
 * * mask) V with logit softcap, ALiBi slopes, GQA/MQA broadcast of K and V
 * over the query heads and attention sinks, by an online softmax over the
 * keys (no score matrix is stored).
 *
 * Three paths: the scalar one (one query row at a time, any types and
 * strides; the reference path), the vector one (blocks of query rows
 * sharing a K/V head) and the decode one (few query rows per K/V head:
 * every head of a key at once, the keys split between the threads, the
 * partial softmaxes merged at the end). See Documentation/ (cpu-backend).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-attn.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"
#include "kernels/gk-vec.h"

#include <string.h>

// The vector kernels of this CPU (as in cpu-ops.c): VK(gk_name) is
// gk_name_avx2 on x86-64 (after the AVX2+FMA+F16C check) and gk_name_neon on
// arm64; SIMD(ref) says whether they may run (not on the reference path).
#if defined(__x86_64__)
#define HAVE_VK 1
#define VK(f) f##_avx2
#define SIMD(ref) (!(ref) && ggml_cpu_fast_x86())
#elif defined(__aarch64__)
#define HAVE_VK 1
#define VK(f) f##_neon
#define SIMD(ref) (!(ref) && ggml_cpu_isa()->neon)
#else
#define HAVE_VK 0
#define SIMD(ref) false
#endif

static inline float elem_get(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F32:  return *(const float *) p;
        case GGML_TYPE_F16:  return gk_fp16_to_fp32(*(const uint16_t *) p);
        case GGML_TYPE_BF16: return gk_bf16_to_fp32(*(const uint16_t *) p);
        default: GGML_ABORT("element access to type %s", ggml_type_name(type));
    }
}

static inline bool row_is_dense(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type);
}

static inline char * row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

// Row (i1, i2, i3) of t as F32: in place when possible, else converted into tmp.
static const float * row_in(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, float * tmp, bool ref) {
    const char * p = row_ptr(t, i1, i2, i3);
    if (t->type == GGML_TYPE_F32 && row_is_dense(t)) {
        return (const float *) p;
    }
    if (row_is_dense(t)) {
        ggml_cpu_row_to_f32(t->type, p, tmp, t->ne[0], ref);
    } else {
        for (int64_t i = 0; i < t->ne[0]; i++) {
            tmp[i] = elem_get(t->type, p + i * t->nb[0]);
        }
    }
    return tmp;
}

// The thread's scratch: the scalar path's four rows (Q, K, the output, V)
// of the longest row of the node, and its mask row; the vector paths' areas
// after them.
#define SCRATCH_ROWS 4

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
// FLASH_ATTN_EXT: one query row per task, online softmax over the keys
// ---------------------------------------------------------------------------

// The vector form (F16 K and V, rows dense): blocks of up to FA_QB query
// rows that share a K/V head (consecutive queries of one head, or the heads
// of a GQA group), keys in chunks of FA_KC. Per chunk, for groups of 4 rows
// (GK_FA_MAX_ROWS): the scores by gk_fa_qk (each K row widened once per
// group, the chunk then reused from L1 by the next groups), scale, softcap,
// mask; per row the chunk's max, the rescale of the running output and sum,
// e^(s - max) in place (vector exp); then the weighted V rows added by
// gk_fa_pv. FA_QB rows per block keep the K/V traffic of long contexts at
// 1/16 of one pass per query. Groups whose mask is -inf over the whole chunk
// are skipped (causal masks: the upper triangle costs almost nothing).
// K or V of another type (F32, BF16, quantized: a quantized KV cache) is
// converted to F32 per chunk, once for all the block's rows: the scores
// through the F32 GEMM tile (gk_gemm_nt_f32), the values added with axpy for
// a few rows (decode) or, transposed, through the GEMM tile for more. The
// conversions are exact, so the numerics are those of the F16 path.
#define FA_KC 64
#define FA_QB 16
#define FA_QB_CONV 64 // rows per block when K or V is converted: fewer conversions per row

#if HAVE_VK
static bool fa_vec_ok(const struct ggml_compute_params * params, const struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    return SIMD(params->ref) && row_is_dense(k) && row_is_dense(v) && (!mask || row_is_dense(mask)) &&
           (k->type != GGML_TYPE_F16 || k->nb[1] % sizeof(uint16_t) == 0) &&
           (v->type != GGML_TYPE_F16 || v->nb[1] % sizeof(uint16_t) == 0) &&
           k->ne[2] == v->ne[2] && k->ne[3] == v->ne[3];
}

// the cache lines of the next chunk's rows (up to FA_KC rows of n halves)
// of nh heads (hs halves apart), row after row
static inline void fa_prefetch(const uint16_t * p, int64_t ld, int64_t n, int64_t rows, int nh, int64_t hs) {
    rows = rows < FA_KC ? rows : FA_KC;
    for (int64_t j = 0; j < rows; j++) {
        for (int h = 0; h < nh; h++) {
            for (int64_t e = 0; e < n; e += GGML_CPU_CACHE_LINE / (int64_t) sizeof(uint16_t)) {
                __builtin_prefetch(p + j * ld + h * hs + e);
            }
        }
    }
}

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

static void fa_vec(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    const struct ggml_tensor * sinks = dst->src[4];
    float scale = ggml_get_op_params_f32(dst, 0);
    const float max_bias = ggml_get_op_params_f32(dst, 1);
    const float softcap  = ggml_get_op_params_f32(dst, 2);
    if (softcap != 0.0f) {
        scale /= softcap;
    }
    const int64_t DK = q->ne[0], DV = v->ne[0];
    const int64_t n_kv = k->ne[1];
    const int64_t n_q = q->ne[1], n_head = q->ne[2], n_head_kv = k->ne[2];
    const int64_t g = n_head / n_head_kv;           // query heads per K/V head
    const int64_t R = n_q * g;                      // rows per (batch, K/V head)
    // FA_QB rows per block, fewer when that leaves threads without work
    // (e.g. decode with one K/V head for many query heads)
    const bool k16 = k->type == GGML_TYPE_F16, v16 = v->type == GGML_TYPE_F16;
    const int64_t qbmax = k16 && v16 ? FA_QB : FA_QB_CONV;
    int64_t qbs = qbmax;
    while (qbs > GK_FA_MAX_ROWS && q->ne[3] * n_head_kv * ((R + qbs - 1) / qbs) < 2 * params->nth) {
        qbs /= 2;
    }
    // Few rows per K/V head (decode: one query row per head): the rows of
    // hb consecutive K/V heads in one block, a group of R rows per head, so
    // that each key's K and V rows are read for hb heads at once (a KV
    // cache holds a key's heads side by side, and one head's rows are a
    // page apart: read head by head, they are 256-byte pieces that the
    // hardware prefetchers do not follow)
    int64_t hb = 1;
    if (k16 && v16 && R <= GK_FA_MAX_ROWS) {
        while (hb * 2 * R <= FA_QB && hb * 2 <= n_head_kv &&
               q->ne[3] * ((n_head_kv + 2 * hb - 1) / (2 * hb)) >= 2 * params->nth) {
            hb *= 2;
        }
    }
    const int64_t gr = hb > 1 ? R : GK_FA_MAX_ROWS; // rows per group (of one K/V head)
    const int64_t nhb = (n_head_kv + hb - 1) / hb;  // blocks of heads
    const int64_t nbk = hb > 1 ? 1 : (R + qbs - 1) / qbs;
    const int64_t nblocks = q->ne[3] * nhb * nbk;
    const int64_t ldk = (int64_t) (k->nb[1] / sizeof(uint16_t));
    const int64_t ldv = (int64_t) (v->nb[1] / sizeof(uint16_t));
    const int64_t ldq = GGML_PAD(DK, 16), ldo = GGML_PAD(DV, 16);
    enum { NG = FA_QB_CONV / GK_FA_MAX_ROWS };

    // per-thread scratch after the rows of the scalar path
    float * qb = (float *) ggml_cpu_thread_scratch(params, dst) + scalar_scratch(dst);
    float * ob = qb + qbmax * ldq;
    float * sb = ob + qbmax * ldo;                  // scores, then weights [rows][FA_KC]
    float * mb = sb + qbmax * FA_KC;                // mask chunk [rows][FA_KC]
    float * kc = mb + qbmax * FA_KC;                // K chunk as F32 [FA_KC][DK] (not F16)
    float * vc = kc + (k16 ? 0 : FA_KC * DK);       // V chunk as F32 [FA_KC][DV] (not F16)
    float * vt = vc + (v16 ? 0 : FA_KC * DV);       // and transposed [DV][FA_KC]

    // blocks as chunks: own share first, then the others' leftovers
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nblocks, &ci);
    for (int64_t b = ggml_cpu_chunk_next(params, &ci); b >= 0; b = ggml_cpu_chunk_next(params, &ci)) {
        const int64_t iq3 = b / (nhb * nbk);
        const int64_t ikh = (b / nbk) % nhb * hb; // the block's first K/V head
        const int64_t rb = (b % nbk) * qbs;
        const int64_t nh = n_head_kv - ikh < hb ? n_head_kv - ikh : hb; // its heads
        const int m = (int) (hb > 1 ? nh * R : R - rb < qbs ? R - rb : qbs);
        const int ng = (int) ((m + gr - 1) / gr);
        const int64_t ik3 = iq3 / (q->ne[3] / k->ne[3]);
        const uint16_t * kbase = (const uint16_t *) ((const char *) k->data + ikh * k->nb[2] + ik3 * k->nb[3]);
        const uint16_t * vbase = (const uint16_t *) ((const char *) v->data + ikh * v->nb[2] + ik3 * v->nb[3]);
        // group gi's K/V head: the block's (hb = 1) or ikh + gi
        const int64_t kgs = hb > 1 ? (int64_t) (k->nb[2] / sizeof(uint16_t)) : 0;
        const int64_t vgs = hb > 1 ? (int64_t) (v->nb[2] / sizeof(uint16_t)) : 0;
        int64_t iq1[FA_QB_CONV], iq2[FA_QB_CONV];
        const char * mrow[FA_QB_CONV];
        float slope[FA_QB_CONV], M[FA_QB_CONV], S[FA_QB_CONV];
        for (int i = 0; i < m; i++) {
            const int64_t rr = hb > 1 ? i % R : rb + i;      // row of its K/V head
            const int64_t kh = hb > 1 ? ikh + i / R : ikh;   // that head
            iq1[i] = rr / g;
            iq2[i] = kh * g + rr % g;
            const float * qr = row_in(q, iq1[i], iq2[i], iq3, qb + i * ldq, false);
            if (qr != qb + i * ldq) {
                memcpy(qb + i * ldq, qr, (size_t) DK * sizeof(float));
            }
            mrow[i] = mask ? row_ptr(mask, iq1[i] % mask->ne[1], iq2[i] % mask->ne[2], iq3 % mask->ne[3]) : NULL;
            slope[i] = ggml_cpu_alibi_slope(max_bias, iq2[i], n_head);
            M[i] = -GK_INFINITY;
            S[i] = 0.0f;
            memset(ob + i * ldo, 0, (size_t) DV * sizeof(float));
        }
        for (int64_t c0 = 0; c0 < n_kv; c0 += FA_KC) {
            const int nc = (int) (n_kv - c0 < FA_KC ? n_kv - c0 : FA_KC);
            bool live[NG];
            for (int gi = 0; gi < ng; gi++) {
                live[gi] = !mask;
            }
            if (mask) {
                for (int i = 0; i < m; i++) {
                    float * mi = mb + i * FA_KC;
                    if (mask->type == GGML_TYPE_F16) {
                        ggml_cpu_fp16_to_fp32((const ggml_fp16_t *) mrow[i] + c0, mi, nc);
                    } else {
                        memcpy(mi, (const float *) mrow[i] + c0, (size_t) nc * sizeof(float));
                    }
                    const int gi = (int) (i / gr);
                    live[gi] = live[gi] || VK(gk_max)(nc, mi) != -GK_INFINITY;
                }
            }
            bool any_live = false;
            for (int gi = 0; gi < ng; gi++) {
                any_live = any_live || live[gi];
            }
            if (!any_live) {
                continue;
            }
            if (c0 + FA_KC < n_kv && k16 && v16) {
                fa_prefetch(kbase + (c0 + FA_KC) * ldk, ldk, DK, n_kv - c0 - FA_KC, (int) nh, kgs);
                fa_prefetch(vbase + (c0 + FA_KC) * ldv, ldv, DV, n_kv - c0 - FA_KC, (int) nh, vgs);
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
                    VK(gk_fa_qk_f16)(re - r0, nc, DK, qb + r0 * ldq, ldq, kbase + gi * kgs + c0 * ldk, ldk,
                                     sb + r0 * FA_KC, FA_KC);
                } else if (live[gi]) {
                    memset(sb + r0 * FA_KC, 0, (size_t) (re - r0) * FA_KC * sizeof(float));
                    VK(gk_gemm_nt_f32)(re - r0, nc, (int) DK, qb + r0 * ldq, ldq, kc, DK, sb + r0 * FA_KC, FA_KC);
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
                    VK(gk_axpy)(nc, slope[i], mb + i * FA_KC, si);
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
                    VK(gk_fa_pv_f16)(re - r0, nc, DV, sb + r0 * FA_KC, FA_KC, vbase + gi * vgs + c0 * ldv, ldv,
                                     ob + r0 * ldo, ldo);
                } else if (live[gi]) {
                    VK(gk_gemm_nt_f32)(re - r0, (int) DV, nc, sb + r0 * FA_KC, FA_KC, vt, FA_KC, ob + r0 * ldo, ldo);
                }
            }
        }
        for (int i = 0; i < m; i++) {
            float * oi = ob + i * ldo;
            if (sinks) {
                const float sv = elem_get(sinks->type, (const char *) sinks->data + iq2[i] * sinks->nb[0]);
                if (sv > M[i]) {
                    const float ms = gk_expf(M[i] - sv);
                    VK(gk_scale_bias)(DV, oi, ms, 0.0f, oi);
                    S[i] = S[i] * ms + 1.0f;
                } else {
                    S[i] += gk_expf(sv - M[i]);
                }
            }
            const float inv = S[i] == 0.0f ? 0.0f : 1.0f / S[i];
            // dst [DV, n_head, n_q, ne3]
            float * out = (float *) ((char *) dst->data + iq2[i] * dst->nb[1] + iq1[i] * dst->nb[2] + iq3 * dst->nb[3]);
            VK(gk_scale_bias)(DV, oi, inv, 0.0f, out);
        }
    }
}
#endif

static size_t fa_vec_scratch(const struct ggml_tensor * node) {
    const int64_t dk = node->src[1]->ne[0], dv = node->src[2]->ne[0];
    const size_t conv = (node->src[1]->type == GGML_TYPE_F16 ? 0 : (size_t) (FA_KC * dk)) +
                        (node->src[2]->type == GGML_TYPE_F16 ? 0 : (size_t) (2 * FA_KC * dv));
    const size_t qbmax = conv ? FA_QB_CONV : FA_QB;
    return (qbmax * (GGML_PAD(node->src[0]->ne[0], 16) + GGML_PAD(dv, 16) + 2 * FA_KC) + conv) *
           sizeof(float);
}

void ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
#if HAVE_VK
    if (fa_vec_ok(params, dst)) {
        fa_vec(params, dst);
        return;
    }
#endif
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * mask = dst->src[3];
    const struct ggml_tensor * sinks = dst->src[4];
    float scale = ggml_get_op_params_f32(dst, 0);
    const float max_bias = ggml_get_op_params_f32(dst, 1);
    const float softcap  = ggml_get_op_params_f32(dst, 2);
    if (softcap != 0.0f) {
        scale /= softcap;
    }
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
