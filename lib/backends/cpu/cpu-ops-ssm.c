/*
 * cpu-ops-ssm.c - CPU kernels of the recurrent ops of state-space and RWKV
 * models: SSM_CONV, SSM_SCAN, RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN,
 * GATED_DELTA_NET. F32. The recurrences run per
 * (sequence, head), which is how the threads split them: each thread owns
 * its heads' states from the first token to the last.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-math.h"

#include <string.h>

static inline float * f32p(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

// dst[i, t, s] = sum_k sx[t + k, i, s] * c[k, i]; threads split i
static void op_ssm_conv(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * sx = dst->src[0];
    const struct ggml_tensor * c = dst->src[1];
    const int64_t d_conv = c->ne[0], d_inner = c->ne[1];
    const int64_t per = (d_inner + params->nth - 1) / params->nth;
    const int64_t i0 = per * params->ith < d_inner ? per * params->ith : d_inner;
    const int64_t i1 = i0 + per < d_inner ? i0 + per : d_inner;
    for (int64_t s = 0; s < dst->ne[2]; s++) {
        for (int64_t t = 0; t < dst->ne[1]; t++) {
            for (int64_t i = i0; i < i1; i++) {
                float sum = 0.0f;
                for (int64_t k = 0; k < d_conv; k++) {
                    sum += *f32p(sx, t + k, i, s, 0) * *f32p(c, k, i, 0, 0);
                }
                *f32p(dst, i, t, s, 0) = sum;
            }
        }
    }
}

static inline float softplus(float x) {
    return x > 20.0f ? x : x < -15.0f ? gk_expf(x) : gk_logf(1.0f + gk_expf(x));
}

// See lib/ggml-ops-ssm.c for the recurrence and the result's layout.
static void op_ssm_scan(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * s0 = dst->src[0];
    const struct ggml_tensor * x  = dst->src[1];
    const struct ggml_tensor * dt = dst->src[2];
    const struct ggml_tensor * A  = dst->src[3];
    const struct ggml_tensor * B  = dst->src[4];
    const struct ggml_tensor * C  = dst->src[5];
    const struct ggml_tensor * ids = dst->src[6];
    const int64_t K = ggml_get_op_params_i32(dst, 0);
    const int64_t d_state = s0->ne[0], head_dim = x->ne[0], n_head = x->ne[1];
    const int64_t n_tok = x->ne[2], n_seqs = x->ne[3];
    const int64_t n_group = B->ne[1];
    const int64_t hpg = n_head / n_group;
    const bool mamba2 = A->ne[0] == 1;
    float * y = (float *) dst->data;
    float * states = y + ggml_nelements(x);
    const int64_t state_size = d_state * head_dim * n_head; // one sequence's

    for (int64_t w = params->ith; w < n_seqs * n_head; w += params->nth) {
        const int64_t q = w / n_head, h = w % n_head, g = h / hpg;
        const int32_t src_seq = *(const int32_t *) ((const char *) ids->data + q * ids->nb[0]);
        GGML_ASSERT(src_seq >= 0 && src_seq < s0->ne[3] && "ssm_scan: state id out of range");
        float * st = states + q * state_size + h * d_state * head_dim; // block 0: the running state
        for (int64_t t = 0; t < n_tok; t++) {
            const float dts = softplus(*f32p(dt, h, t, q, 0));
            const float dA2 = mamba2 ? gk_expf(dts * *f32p(A, 0, h, 0, 0)) : 0.0f;
            for (int64_t i = 0; i < head_dim; i++) {
                const float xdt = *f32p(x, i, h, t, q) * dts;
                const float * prev = t == 0 ? f32p(s0, 0, i, h, src_seq) : st + i * d_state;
                float sum = 0.0f;
                for (int64_t j = 0; j < d_state; j++) {
                    const float dA = mamba2 ? dA2 : gk_expf(dts * *f32p(A, j, h, 0, 0));
                    const float v = (t == 0 ? *(const float *) ((const char *) prev + j * s0->nb[0]) : prev[j]) * dA +
                                    *f32p(B, j, g, t, q) * xdt;
                    st[i * d_state + j] = v;
                    sum += v * *f32p(C, j, g, t, q);
                }
                y[((q * n_tok + t) * n_head + h) * head_dim + i] = sum;
            }
            // the state k tokens before the end, for 0 < k < K
            const int64_t k = n_tok - 1 - t;
            if (K > 1 && k > 0 && k < K) {
                memcpy(states + (k * n_seqs + q) * state_size + h * d_state * head_dim, st,
                       (size_t) (d_state * head_dim) * sizeof(float));
            }
        }
    }
}

// See lib/ggml-ops-ssm.c; work split over (sequence, head).
static void op_rwkv_wkv6(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float * k  = dst->src[0]->data;
    const float * v  = dst->src[1]->data;
    const float * r  = dst->src[2]->data;
    const float * tf = dst->src[3]->data;
    const float * td = dst->src[4]->data;
    const float * state_in = dst->src[5]->data;
    const int64_t S = dst->src[0]->ne[0], H = dst->src[0]->ne[1], T = dst->src[0]->ne[2];
    const int64_t n_seqs = dst->src[5]->ne[1];
    const int64_t C = S * H, tps = T / n_seqs;
    float * out = dst->data;
    float * states = out + T * C;

    for (int64_t w = params->ith; w < n_seqs * H; w += params->nth) {
        const int64_t q = w / H, h = w % H;
        float * W = states + q * S * S * H + h * S * S;
        memcpy(W, state_in + q * S * S * H + h * S * S, (size_t) (S * S) * sizeof(float));
        for (int64_t t = q * tps; t < (q + 1) * tps; t++) {
            const int64_t o = t * C + h * S;
            float * y = out + o;
            for (int64_t j = 0; j < S; j++) {
                y[j] = 0.0f;
            }
            for (int64_t i = 0; i < S; i++) {
                const float ki = k[o + i], ri = r[o + i], ui = tf[h * S + i], di = td[o + i];
                float * Wi = W + i * S;
                for (int64_t j = 0; j < S; j++) {
                    const float kv = ki * v[o + j];
                    y[j] += ri * (ui * kv + Wi[j]);
                    Wi[j] = Wi[j] * di + kv;
                }
            }
        }
    }
}

// See lib/ggml-ops-ssm.c; work split over (sequence, head).
static void op_rwkv_wkv7(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float * r = dst->src[0]->data;
    const float * w = dst->src[1]->data;
    const float * k = dst->src[2]->data;
    const float * v = dst->src[3]->data;
    const float * a = dst->src[4]->data;
    const float * b = dst->src[5]->data;
    const float * state_in = dst->src[6]->data;
    const int64_t S = dst->src[2]->ne[0], H = dst->src[2]->ne[1], T = dst->src[2]->ne[2];
    const int64_t n_seqs = dst->src[6]->ne[1];
    const int64_t C = S * H, tps = T / n_seqs;
    float * out = dst->data;
    float * states = out + T * C;
    for (int64_t wk = params->ith; wk < n_seqs * H; wk += params->nth) {
        const int64_t q = wk / H, h = wk % H;
        float * W = states + q * S * S * H + h * S * S;
        memcpy(W, state_in + q * S * S * H + h * S * S, (size_t) (S * S) * sizeof(float));
        for (int64_t t = q * tps; t < (q + 1) * tps; t++) {
            const int64_t o = t * C + h * S;
            for (int64_t i = 0; i < S; i++) {
                float * Wi = W + i * S;
                float sa = 0.0f;
                for (int64_t j = 0; j < S; j++) {
                    sa += a[o + j] * Wi[j];
                }
                float y = 0.0f;
                for (int64_t j = 0; j < S; j++) {
                    Wi[j] = Wi[j] * w[o + j] + v[o + i] * k[o + j] + sa * b[o + j];
                    y += Wi[j] * r[o + j];
                }
                out[o + i] = y;
            }
        }
    }
}

static void op_gla(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float * k = dst->src[0]->data;
    const float * v = dst->src[1]->data;
    const float * qv = dst->src[2]->data;
    const float * g = dst->src[3]->data;
    const float * state_in = dst->src[4]->data;
    const float scale = ggml_get_op_params_f32(dst, 0);
    const int64_t S = dst->src[0]->ne[0], H = dst->src[0]->ne[1], T = dst->src[0]->ne[2];
    const int64_t n_seqs = dst->src[4]->ne[1];
    const int64_t C = S * H, tps = T / n_seqs;
    float * out = dst->data;
    float * states = out + T * C;
    for (int64_t wk = params->ith; wk < n_seqs * H; wk += params->nth) {
        const int64_t q = wk / H, h = wk % H;
        float * W = states + q * S * S * H + h * S * S;
        memcpy(W, state_in + q * S * S * H + h * S * S, (size_t) (S * S) * sizeof(float));
        for (int64_t t = q * tps; t < (q + 1) * tps; t++) {
            const int64_t o = t * C + h * S;
            float * y = out + o;
            for (int64_t j = 0; j < S; j++) {
                y[j] = 0.0f;
            }
            for (int64_t i = 0; i < S; i++) {
                const float ki = k[o + i], qi = qv[o + i] * scale, gi = g[o + i];
                float * Wi = W + i * S;
                for (int64_t j = 0; j < S; j++) {
                    Wi[j] = Wi[j] * gi + ki * v[o + j];
                    y[j] += Wi[j] * qi;
                }
            }
        }
    }
}

// See lib/ggml-ops-ssm.c: M (row j, column i) = S[i][j], kept in the
// result's slot 0 (or, with snapshots, in the thread's scratch).
static void op_gated_delta_net(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * q = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    const struct ggml_tensor * v = dst->src[2];
    const struct ggml_tensor * g = dst->src[3];
    const struct ggml_tensor * beta = dst->src[4];
    const struct ggml_tensor * state = dst->src[5];
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], n_seqs = v->ne[3];
    const int64_t K = ggml_get_op_params_i32(dst, 0);
    const bool kda = g->ne[0] == S;
    const float scale = 1.0f / gk_sqrtf((float) S);
    float * attn = dst->data;
    float * snaps = attn + S * H * T * n_seqs;
    const int64_t snap_size = S * S * H * n_seqs;
    float * scratch = ggml_cpu_thread_scratch(params, dst);
    float * delta = scratch;
    for (int64_t w = params->ith; w < H * n_seqs; w += params->nth) {
        const int64_t h = w % H, s = w / H;
        const int64_t hq = h % q->ne[1], hk = h % k->ne[1];
        const int64_t sq = s / (n_seqs / q->ne[3]), sk = s / (n_seqs / k->ne[3]);
        float * M = K > 1 ? scratch + GGML_PAD(S, 16) : snaps + (s * H + h) * S * S;
        memcpy(M, (const float *) state->data + (s * H + h) * S * S, (size_t) (S * S) * sizeof(float));
        for (int64_t t = 0; t < T; t++) {
            const float * qd = f32p(q, 0, hq, t, sq);
            const float * kd = f32p(k, 0, hk, t, sk);
            const float * vd = f32p(v, 0, h, t, s);
            const float * gd = f32p(g, 0, h, t, s);
            const float bv = *f32p(beta, 0, h, t, s);
            if (kda) {
                for (int64_t i = 0; i < S; i++) {
                    delta[i] = gk_expf(gd[i]);
                }
                for (int64_t j = 0; j < S; j++) {
                    for (int64_t i = 0; i < S; i++) {
                        M[j * S + i] *= delta[i];
                    }
                }
            } else {
                const float e = gk_expf(gd[0]);
                for (int64_t x = 0; x < S * S; x++) {
                    M[x] *= e;
                }
            }
            for (int64_t j = 0; j < S; j++) {
                float sum = 0.0f;
                for (int64_t i = 0; i < S; i++) {
                    sum += M[j * S + i] * kd[i];
                }
                delta[j] = (vd[j] - sum) * bv;
            }
            float * out = attn + ((s * T + t) * H + h) * S;
            for (int64_t j = 0; j < S; j++) {
                float sum = 0.0f;
                for (int64_t i = 0; i < S; i++) {
                    M[j * S + i] += delta[j] * kd[i];
                    sum += M[j * S + i] * qd[i];
                }
                out[j] = sum * scale;
            }
            const int64_t slot = T - 1 - t;
            if (K > 1 && slot < K) {
                memcpy(snaps + slot * snap_size + (s * H + h) * S * S, M, (size_t) (S * S) * sizeof(float));
            }
        }
    }
}

static bool f32_all(const struct ggml_tensor * node, int n_src) {
    if (node->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (node->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

bool ggml_cpu_ssm_supports_op(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SSM_CONV:  return f32_all(node, 2);
        case GGML_OP_SSM_SCAN:  return f32_all(node, 6) && node->src[6]->type == GGML_TYPE_I32 && ggml_is_contiguous(node);
        case GGML_OP_RWKV_WKV6: return f32_all(node, 6) && ggml_is_contiguous(node);
        case GGML_OP_RWKV_WKV7: return f32_all(node, 7) && ggml_is_contiguous(node);
        case GGML_OP_GATED_LINEAR_ATTN: return f32_all(node, 5) && ggml_is_contiguous(node);
        case GGML_OP_GATED_DELTA_NET: return f32_all(node, 6) && ggml_is_contiguous(node);
        default:                return false;
    }
}

size_t ggml_cpu_ssm_work_per_thread(const struct ggml_tensor * node) {
    if (node->op != GGML_OP_GATED_DELTA_NET) {
        return 0;
    }
    const int64_t S = node->src[2]->ne[0];
    return ((size_t) GGML_PAD(S, 16) + (ggml_get_op_params_i32(node, 0) > 1 ? (size_t) (S * S) : 0)) * sizeof(float);
}

void ggml_cpu_ssm_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SSM_CONV:  op_ssm_conv(params, node); break;
        case GGML_OP_SSM_SCAN:  op_ssm_scan(params, node); break;
        case GGML_OP_RWKV_WKV6: op_rwkv_wkv6(params, node); break;
        case GGML_OP_RWKV_WKV7: op_rwkv_wkv7(params, node); break;
        case GGML_OP_GATED_LINEAR_ATTN: op_gla(params, node); break;
        case GGML_OP_GATED_DELTA_NET: op_gated_delta_net(params, node); break;
        default: GGML_ABORT("%s: op %s is not an ssm/rwkv op", __func__, ggml_op_desc(node));
    }
}
