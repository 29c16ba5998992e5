/*
 * cpu-ops-linalg.c - CPU kernels of OUT_PROD, TRI, DIAG, SOLVE_TRI and
 * LIGHTNING_INDEXER (sparse attention's key scores). Threads split
 * rows of dst; sources are read through their strides.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"

#include <string.h>

static inline char * at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

static float elem_f(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = at(t, i0, i1, i2, i3);
    switch (t->type) {
        case GGML_TYPE_F32:  return *(const float *) p;
        case GGML_TYPE_F16:  return gk_fp16_to_fp32(*(const uint16_t *) p);
        case GGML_TYPE_BF16: return gk_bf16_to_fp32(*(const uint16_t *) p);
        default: GGML_ABORT("out_prod: element type %s", ggml_type_name(t->type));
    }
}

// dst[:, i1, i2, i3] = sum_j b[i1, j, i2, i3] * a[:, j, i2 / r2, i3 / r3]
static void op_out_prod(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t n0 = a->ne[0], k = a->ne[1];
    const int64_t r2 = b->ne[2] / a->ne[2], r3 = b->ne[3] / a->ne[3];
    float * arow = ggml_cpu_thread_scratch(params, dst);
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        float * d = (float *) at(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < n0; i0++) {
            d[i0] = 0.0f;
        }
        for (int64_t j = 0; j < k; j++) {
            const float w = elem_f(b, i1, j, i2, i3);
            const char * ap = at(a, 0, j, i2 / r2, i3 / r3);
            const float * x;
            if (a->type == GGML_TYPE_F32 && a->nb[0] == sizeof(float)) {
                x = (const float *) ap;
            } else if (ggml_is_quantized(a->type)) {
                ggml_cpu_row_to_f32(a->type, ap, arow, n0, params->ref);
                x = arow;
            } else {
                for (int64_t i0 = 0; i0 < n0; i0++) {
                    arow[i0] = elem_f(a, i0, j, i2 / r2, i3 / r3);
                }
                x = arow;
            }
            for (int64_t i0 = 0; i0 < n0; i0++) {
                d[i0] += x[i0] * w;
            }
        }
    }
}

static void op_tri(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const enum ggml_tri_type type = (enum ggml_tri_type) ggml_get_op_params_i32(dst, 0);
    const int64_t nr = ggml_nrows(dst);
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            bool keep;
            switch (type) {
                case GGML_TRI_TYPE_LOWER:      keep = i0 < i1;  break;
                case GGML_TRI_TYPE_LOWER_DIAG: keep = i0 <= i1; break;
                case GGML_TRI_TYPE_UPPER:      keep = i0 > i1;  break;
                default:                       keep = i0 >= i1; break;
            }
            *(float *) at(dst, i0, i1, i2, i3) = keep ? *(const float *) at(a, i0, i1, i2, i3) : 0.0f;
        }
    }
}

static void op_diag(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t nr = ggml_nrows(dst);
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            *(float *) at(dst, i0, i1, i2, i3) = i0 == i1 ? *(const float *) at(a, i0, 0, i2, i3) : 0.0f;
        }
    }
}

// SOLVE_TRI: forward substitution, one right-hand side column per step
static void op_solve_tri(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t k = b->ne[0], n = b->ne[1];
    const int64_t nw = k * b->ne[2] * b->ne[3];
    for (int64_t w = params->ith; w < nw; w += params->nth) {
        const int64_t col = w % k, i2 = (w / k) % b->ne[2], i3 = w / (k * b->ne[2]);
        for (int64_t i = 0; i < n; i++) {
            float sum = 0.0f;
            for (int64_t t = 0; t < i; t++) {
                sum += *(const float *) at(a, t, i, i2, i3) * *(const float *) at(dst, col, t, i2, i3);
            }
            *(float *) at(dst, col, i, i2, i3) = (*(const float *) at(b, col, i, i2, i3) - sum) /
                                                 *(const float *) at(a, i, i, i2, i3);
        }
    }
}

// LIGHTNING_INDEXER: keys split over the threads (each converted once per
// (token, stream))
static void op_lightning_indexer(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * w = dst->src[2];
    const struct ggml_tensor * m = dst->src[3];
    const int64_t E = q->ne[0], Hq = q->ne[1], T = q->ne[2], S = q->ne[3], n_kv = k->ne[2];
    float * krow = ggml_cpu_thread_scratch(params, dst);
    for (int64_t s = 0; s < S; s++) {
        for (int64_t j = params->ith; j < n_kv; j += params->nth) {
            const char * kp = at(k, 0, 0, j, s);
            const float * kf;
            if (k->type == GGML_TYPE_F32 && k->nb[0] == sizeof(float)) {
                kf = (const float *) kp;
            } else {
                ggml_cpu_row_to_f32(k->type, kp, krow, E, params->ref);
                kf = krow;
            }
            for (int64_t t = 0; t < T; t++) {
                float score = 0.0f;
                for (int64_t h = 0; h < Hq; h++) {
                    const float qk = ggml_cpu_dot_f32(E, (const float *) at(q, 0, h, t, s), kf, params->ref);
                    score += (qk > 0.0f ? qk : 0.0f) * *(const float *) at(w, h, t, 0, s);
                }
                *(float *) at(dst, j, t, 0, s) = score + gk_fp16_to_fp32(*(const uint16_t *) at(m, j, t, 0, s % m->ne[3]));
            }
        }
    }
}

static bool f32ish(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

bool ggml_cpu_linalg_supports_op(const struct ggml_tensor * node) {
    const struct ggml_tensor * s0 = node->src[0];
    switch (node->op) {
        case GGML_OP_OUT_PROD:
            return node->type == GGML_TYPE_F32 && node->nb[0] == sizeof(float) && f32ish(node->src[1]->type) &&
                   (f32ish(s0->type) || (ggml_is_quantized(s0->type) && ggml_cpu_type_to_f32_ok(s0->type) &&
                                         ggml_is_contiguous_rows(s0)));
        case GGML_OP_TRI: case GGML_OP_DIAG:
            return node->type == GGML_TYPE_F32 && s0->type == GGML_TYPE_F32;
        case GGML_OP_LIGHTNING_INDEXER:
            return node->type == GGML_TYPE_F32 && node->src[0]->nb[0] == sizeof(float) &&
                   ggml_is_contiguous_rows(node->src[1]) && ggml_cpu_type_to_f32_ok(node->src[1]->type) &&
                   node->src[1]->ne[0] % ggml_blck_size(node->src[1]->type) == 0;
        case GGML_OP_SOLVE_TRI:
            return node->type == GGML_TYPE_F32 && s0->type == GGML_TYPE_F32 && node->src[1]->type == GGML_TYPE_F32;
        default:
            return false;
    }
}

size_t ggml_cpu_linalg_work_per_thread(const struct ggml_tensor * node) {
    return node->op == GGML_OP_OUT_PROD || node->op == GGML_OP_LIGHTNING_INDEXER
               ? (size_t) GGML_PAD(node->src[0]->ne[0], 16) * sizeof(float) : 0;
}

void ggml_cpu_linalg_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_OUT_PROD: op_out_prod(params, node); break;
        case GGML_OP_TRI:      op_tri(params, node); break;
        case GGML_OP_DIAG:     op_diag(params, node); break;
        case GGML_OP_SOLVE_TRI: op_solve_tri(params, node); break;
        case GGML_OP_LIGHTNING_INDEXER: op_lightning_indexer(params, node); break;
        default: GGML_ABORT("%s: op %s is not a linalg op", __func__, ggml_op_desc(node));
    }
}
