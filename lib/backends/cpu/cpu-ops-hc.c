/*
 * cpu-ops-hc.c - CPU kernels of DeepSeek V4's hyper-connection ops
 * (DSV4_HC_COMB, DSV4_HC_PRE, DSV4_HC_POST; lib/ggml-ops-hc.c). F32,
 * sources read through their strides; threads split the tokens.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-math.h"

static inline float f32_at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2) {
    return *(const float *) ((const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2]);
}

static inline float * f32_out(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2) {
    return (float *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2]);
}

#define HC 4

// each of the HC groups along one index divided by eps + its sum: over src
// for every dst (by_src), or over dst for every src
static void hc_normalize(float m[HC][HC], float eps, bool by_src) {
    for (int a = 0; a < HC; a++) {
        float sum = eps;
        for (int b = 0; b < HC; b++) {
            sum += by_src ? m[b][a] : m[a][b];
        }
        for (int b = 0; b < HC; b++) {
            if (by_src) {
                m[b][a] /= sum;
            } else {
                m[a][b] /= sum;
            }
        }
    }
}

static void op_hc_comb(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * mixes = dst->src[0];
    const struct ggml_tensor * scale = dst->src[1];
    const struct ggml_tensor * base = dst->src[2];
    const float eps = ggml_get_op_params_f32(dst, 0);
    const int32_t n_iter = ggml_get_op_params_i32(dst, 1);
    const float sc = f32_at(scale, 2, 0, 0);
    for (int64_t t = params->ith; t < mixes->ne[1]; t += params->nth) {
        float m[HC][HC]; // [src][dst]
        for (int s = 0; s < HC; s++) {
            float mx = -GK_INFINITY, sum = 0.0f;
            for (int d = 0; d < HC; d++) {
                const int64_t idx = 2 * HC + d + HC * s;
                m[s][d] = f32_at(mixes, idx, t, 0) * sc + f32_at(base, idx, 0, 0);
                mx = gk_maxf(mx, m[s][d]);
            }
            for (int d = 0; d < HC; d++) {
                m[s][d] = gk_expf(m[s][d] - mx);
                sum += m[s][d];
            }
            for (int d = 0; d < HC; d++) {
                m[s][d] = m[s][d] / sum + eps;
            }
        }
        hc_normalize(m, eps, true);
        for (int32_t i = 1; i < n_iter; i++) {
            hc_normalize(m, eps, false);
            hc_normalize(m, eps, true);
        }
        for (int s = 0; s < HC; s++) {
            for (int d = 0; d < HC; d++) {
                *f32_out(dst, d, s, t) = m[s][d];
            }
        }
    }
}

static void op_hc_pre(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * x = dst->src[0];
    const struct ggml_tensor * w = dst->src[1];
    for (int64_t t = params->ith; t < x->ne[2]; t += params->nth) {
        for (int64_t i = 0; i < x->ne[0]; i++) {
            float sum = 0.0f;
            for (int64_t h = 0; h < x->ne[1]; h++) {
                sum += f32_at(x, i, h, t) * f32_at(w, h, t, 0);
            }
            *f32_out(dst, i, t, 0) = sum;
        }
    }
}

static void op_hc_post(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * x = dst->src[0];
    const struct ggml_tensor * res = dst->src[1];
    const struct ggml_tensor * post = dst->src[2];
    const struct ggml_tensor * comb = dst->src[3];
    const int64_t hc = res->ne[1];
    for (int64_t t = params->ith; t < x->ne[1]; t += params->nth) {
        for (int64_t d = 0; d < hc; d++) {
            for (int64_t i = 0; i < x->ne[0]; i++) {
                float v = f32_at(x, i, t, 0) * f32_at(post, d, t, 0);
                for (int64_t s = 0; s < hc; s++) {
                    v += f32_at(res, i, s, t) * f32_at(comb, d, s, t);
                }
                *f32_out(dst, i, d, t) = v;
            }
        }
    }
}

bool ggml_cpu_hc_supports_op(const struct ggml_tensor * node) {
    if (node->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_SRC && node->src[i]; i++) {
        if (node->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return node->op == GGML_OP_DSV4_HC_COMB || node->op == GGML_OP_DSV4_HC_PRE || node->op == GGML_OP_DSV4_HC_POST;
}

void ggml_cpu_hc_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_DSV4_HC_COMB: op_hc_comb(params, node); break;
        case GGML_OP_DSV4_HC_PRE:  op_hc_pre(params, node); break;
        case GGML_OP_DSV4_HC_POST: op_hc_post(params, node); break;
        default: GGML_ABORT("%s: op %s is not a hyper-connection op", __func__, ggml_op_desc(node));
    }
}
