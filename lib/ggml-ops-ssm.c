/*
 * ggml-ops-ssm.c - constructors of the recurrent ops of state-space and
 * RWKV models: SSM_CONV, SSM_SCAN, RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN,
 * GATED_DELTA_NET.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

// ---------------------------------------------------------------------------
// SSM_CONV: sx [d_conv - 1 + n_t, d_inner, n_s] (the previous conv state then
// the new tokens), c [d_conv, d_inner]; result [d_inner, n_t, n_s] F32 with
// result[i, t, s] = sum_k sx[t + k, i, s] * c[k, i]. src[0] = sx, src[1] = c
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c) {
    GGML_ASSERT(ggml_is_3d(sx) && "ggml_ssm_conv: sx must be 3-D");
    GGML_ASSERT(ggml_is_matrix(c) && "ggml_ssm_conv: c must be 2-D");
    const int64_t d_conv  = c->ne[0];
    const int64_t d_inner = c->ne[1];
    const int64_t n_t     = sx->ne[0] - d_conv + 1;
    GGML_ASSERT(sx->ne[1] == d_inner && "ggml_ssm_conv: sx and c differ in d_inner");
    GGML_ASSERT(n_t >= 0 && "ggml_ssm_conv: sx shorter than the kernel");
    struct ggml_tensor * result = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d_inner, n_t, sx->ne[2]);
    result->op     = GGML_OP_SSM_CONV;
    result->src[0] = sx;
    result->src[1] = c;
    return result;
}

// ---------------------------------------------------------------------------
// SSM_SCAN (Mamba-1 and -2 selective scan):
//   s   [d_state, head_dim, n_head, >= n_seqs] states, sequence q's initial
//       state at s[..., ids[q]]
//   x   [head_dim, n_head, n_tok, n_seqs], dt [n_head, n_tok, n_seqs]
//   A   [d_state, n_head] (Mamba-1) or [1, n_head] (Mamba-2)
//   B,C [d_state, n_group, n_tok, n_seqs] (head h uses group h / (n_head / n_group))
//   ids [n_seqs] I32; K >= 1 states kept per sequence (K > 1: Mamba-2 only)
// Per token, with dts = softplus(dt[h]):
//   state = state * exp(dts * A[., h]) + B[., g] * x[i, h] * dts,
//   y[i, h] = sum over d_state of state * C[., g]
// Result: 1-D F32, y (as x's shape) then K blocks of n_seqs final states
// shaped like s's [d_state, head_dim, n_head]: block 0 is the state after
// the last token, block k (0 < k < K) the state k tokens before the end.
// src[0..6] = s, x, dt, A, B, C, ids; op_params = int32 { K }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                   struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                   struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K) {
    GGML_ASSERT(K >= 1 && K <= INT32_MAX && "ggml_ssm_scan: K out of range");
    GGML_ASSERT(ggml_is_contiguous(s) && ggml_is_contiguous(dt) && ggml_is_contiguous(A) &&
                "ggml_ssm_scan: s, dt and A must be contiguous");
    GGML_ASSERT(x->nb[0] == ggml_type_size(x->type) && B->nb[0] == ggml_type_size(B->type) &&
                C->nb[0] == ggml_type_size(C->type) && "ggml_ssm_scan: x, B, C need contiguous rows");
    GGML_ASSERT(x->nb[1] == x->ne[0] * x->nb[0] && B->nb[1] == B->ne[0] * B->nb[0] &&
                C->nb[1] == C->ne[0] * C->nb[0] && "ggml_ssm_scan: x, B, C need packed dims 0-1");
    GGML_ASSERT(ggml_are_same_shape(B, C) && "ggml_ssm_scan: B and C differ in shape");
    GGML_ASSERT(ids->type == GGML_TYPE_I32 && "ggml_ssm_scan: ids must be I32");
    const int64_t d_state = s->ne[0], head_dim = x->ne[0], n_head = x->ne[1];
    const int64_t n_tok = x->ne[2], n_seqs = x->ne[3];
    GGML_ASSERT(dt->ne[0] == n_head && dt->ne[1] == n_tok && dt->ne[2] == n_seqs && ggml_is_3d(dt) &&
                "ggml_ssm_scan: dt must be [n_head, n_tok, n_seqs]");
    GGML_ASSERT(s->ne[1] == head_dim && s->ne[2] == n_head && "ggml_ssm_scan: s must be [d_state, head_dim, n_head, ...]");
    GGML_ASSERT(B->ne[0] == d_state && B->ne[2] == n_tok && B->ne[3] == n_seqs && "ggml_ssm_scan: B's shape");
    GGML_ASSERT(B->ne[1] > 0 && n_head % B->ne[1] == 0 && "ggml_ssm_scan: groups must divide heads");
    GGML_ASSERT(ids->ne[0] == n_seqs && ggml_is_vector(ids) && "ggml_ssm_scan: one id per sequence");
    GGML_ASSERT(A->ne[1] == n_head && ggml_is_matrix(A) && "ggml_ssm_scan: A must be [d_state or 1, n_head]");
    if (A->ne[0] != 1) {
        GGML_ASSERT(A->ne[0] == d_state && K == 1 && "ggml_ssm_scan: Mamba-1 A is [d_state, n_head], K = 1");
    }
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_F32,
                                                     ggml_nelements(x) + K * d_state * head_dim * n_head * n_seqs);
    result->op     = GGML_OP_SSM_SCAN;
    result->src[0] = s;
    result->src[1] = x;
    result->src[2] = dt;
    result->src[3] = A;
    result->src[4] = B;
    result->src[5] = C;
    result->src[6] = ids;
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    return result;
}

// ---------------------------------------------------------------------------
// RWKV_WKV6: k, v, r, td [S, H, T] (T tokens of n_seqs equal sequences),
// tf [S, H] (time_first, "u"), state [S * S * H, n_seqs]. Per head h and
// token t, with the S x S state W (row i for k's index, column j for v's):
//   out[j] = sum_i r[i] * (tf[i] * k[i] * v[j] + W[i][j])
//   W[i][j] = W[i][j] * td[i] + k[i] * v[j]
// Result F32 [S * H, T + S * n_seqs]: the T outputs, then the final states.
// src[0..5] = k, v, r, tf, td, state; no op_params
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_rwkv_wkv6(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
                                    struct ggml_tensor * r, struct ggml_tensor * tf, struct ggml_tensor * td,
                                    struct ggml_tensor * state) {
    GGML_ASSERT(ggml_is_contiguous(k) && ggml_is_contiguous(v) && ggml_is_contiguous(r) && ggml_is_contiguous(tf) &&
                ggml_is_contiguous(td) && ggml_is_contiguous(state) && "ggml_rwkv_wkv6: operands must be contiguous");
    const int64_t S = k->ne[0], H = k->ne[1], T = k->ne[2];
    const int64_t n_seqs = state->ne[1];
    GGML_ASSERT(v->ne[0] == S && v->ne[1] == H && v->ne[2] == T && "ggml_rwkv_wkv6: v's shape");
    GGML_ASSERT(r->ne[0] == S && r->ne[1] == H && r->ne[2] == T && "ggml_rwkv_wkv6: r's shape");
    GGML_ASSERT(td->ne[0] == S && td->ne[1] == H && td->ne[2] == T && "ggml_rwkv_wkv6: td's shape");
    GGML_ASSERT(ggml_nelements(tf) == S * H && "ggml_rwkv_wkv6: tf's shape");
    GGML_ASSERT(ggml_nelements(state) == S * S * H * n_seqs && "ggml_rwkv_wkv6: state's shape");
    GGML_ASSERT(n_seqs > 0 && T % n_seqs == 0 && "ggml_rwkv_wkv6: tokens must split evenly into sequences");
    const int64_t ne[4] = { S * H, T + S * n_seqs, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_RWKV_WKV6;
    result->src[0] = k;
    result->src[1] = v;
    result->src[2] = r;
    result->src[3] = tf;
    result->src[4] = td;
    result->src[5] = state;
    return result;
}

// ---------------------------------------------------------------------------
// RWKV_WKV7: r, w, k, v, a, b [S, H, T], state [S * S * H, n_seqs]. Per head
// and token, with the S x S state W (row i for v's index, column j for k's):
//   sa_i = sum_j a_j W[i][j];  W[i][j] = W[i][j] w_j + v_i k_j + sa_i b_j;
//   out_i = sum_j W[i][j] r_j
// Result F32 [S * H, T + S * n_seqs]: the outputs, then the final states.
// src[0..6] = r, w, k, v, a, b, state
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_rwkv_wkv7(struct ggml_context * ctx, struct ggml_tensor * r, struct ggml_tensor * w,
                                    struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * a,
                                    struct ggml_tensor * b, struct ggml_tensor * state) {
    GGML_ASSERT(ggml_is_contiguous(r) && ggml_is_contiguous(w) && ggml_is_contiguous(k) && ggml_is_contiguous(v) &&
                ggml_is_contiguous(a) && ggml_is_contiguous(b) && ggml_is_contiguous(state) &&
                "ggml_rwkv_wkv7: operands must be contiguous");
    const int64_t S = k->ne[0], H = k->ne[1], T = k->ne[2];
    const int64_t n_seqs = state->ne[1];
    const struct ggml_tensor * same[] = { r, w, v, a, b };
    for (int i = 0; i < 5; i++) {
        GGML_ASSERT(same[i]->ne[0] == S && same[i]->ne[1] == H && same[i]->ne[2] == T && "ggml_rwkv_wkv7: shapes differ");
    }
    GGML_ASSERT(ggml_nelements(state) == S * S * H * n_seqs && "ggml_rwkv_wkv7: state's shape");
    GGML_ASSERT(n_seqs > 0 && T % n_seqs == 0 && "ggml_rwkv_wkv7: tokens must split evenly into sequences");
    const int64_t ne[4] = { S * H, T + S * n_seqs, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_RWKV_WKV7;
    result->src[0] = r;
    result->src[1] = w;
    result->src[2] = k;
    result->src[3] = v;
    result->src[4] = a;
    result->src[5] = b;
    result->src[6] = state;
    return result;
}

// ---------------------------------------------------------------------------
// GATED_LINEAR_ATTN: k, v, q, g [S, H, T], state [S * S * H, n_seqs]; per
// head and token (W row i for k's index, column j for v's):
//   W[i][j] = W[i][j] g_i + k_i v_j;  out_j = sum_i q_i scale W[i][j]
// Result as RWKV_WKV7's. src[0..4] = k, v, q, g, state; op_params = float { scale }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_gated_linear_attn(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
                                            struct ggml_tensor * q, struct ggml_tensor * g, struct ggml_tensor * state,
                                            float scale) {
    GGML_ASSERT(ggml_is_contiguous(k) && ggml_is_contiguous(v) && ggml_is_contiguous(q) && ggml_is_contiguous(g) &&
                ggml_is_contiguous(state) && "ggml_gated_linear_attn: operands must be contiguous");
    const int64_t S = k->ne[0], H = k->ne[1], T = k->ne[2];
    const int64_t n_seqs = state->ne[1];
    GGML_ASSERT(v->ne[0] == S && v->ne[1] == H && v->ne[2] == T && "ggml_gated_linear_attn: v's shape");
    GGML_ASSERT(q->ne[0] == S && q->ne[1] == H && q->ne[2] == T && "ggml_gated_linear_attn: q's shape");
    GGML_ASSERT(g->ne[0] == S && g->ne[1] == H && g->ne[2] == T && "ggml_gated_linear_attn: g's shape");
    GGML_ASSERT(ggml_nelements(state) == S * S * H * n_seqs && "ggml_gated_linear_attn: state's shape");
    GGML_ASSERT(n_seqs > 0 && T % n_seqs == 0 && "ggml_gated_linear_attn: tokens must split evenly into sequences");
    const int64_t ne[4] = { S * H, T + S * n_seqs, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    ggml_set_op_params_f32(result, 0, scale);
    result->op     = GGML_OP_GATED_LINEAR_ATTN;
    result->src[0] = k;
    result->src[1] = v;
    result->src[2] = q;
    result->src[3] = g;
    result->src[4] = state;
    return result;
}

// ---------------------------------------------------------------------------
// GATED_DELTA_NET: q, k [S, Hk, T, n_seqs], v [S, H, T, n_seqs] (H % Hk ==
// 0, head h reads q/k head h % Hk; seqs broadcast likewise), g [1 or S, H,
// T, n_seqs], beta [1, H, T, n_seqs], state [S, S, H, n_seqs] holding M with
// M[j][i] = S[i][j]. Per head and token:
//   decay: S[i][:] *= exp(g_i) (g_0 for a scalar gate)
//   delta_j = beta (v_j - sum_i S[i][j] k_i);  S[i][j] += k_i delta_j
//   out_j = sum_i S[i][j] q_i / sqrt(S)
// Result F32 [S * H, T * n_seqs + K * S * n_seqs]: the outputs [S, H, T,
// n_seqs], then K state snapshots (as state): slot 0 the final state, slot
// s the state s tokens before the end (written for s < T).
// src[0..5] = q, k, v, g, beta, state; op_params = int32 { K }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
                                          struct ggml_tensor * state, int64_t K) {
    GGML_ASSERT(ggml_is_contiguous_rows(q) && ggml_is_contiguous_rows(k) && ggml_is_contiguous_rows(v) &&
                "ggml_gated_delta_net: q, k, v need contiguous rows");
    GGML_ASSERT(ggml_is_contiguous(g) && ggml_is_contiguous(beta) && ggml_is_contiguous(state) &&
                "ggml_gated_delta_net: g, beta, state must be contiguous");
    GGML_ASSERT(q->type == GGML_TYPE_F32 && k->type == GGML_TYPE_F32 && v->type == GGML_TYPE_F32 &&
                g->type == GGML_TYPE_F32 && beta->type == GGML_TYPE_F32 && state->type == GGML_TYPE_F32 &&
                "ggml_gated_delta_net: F32 only");
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], n_seqs = v->ne[3];
    GGML_ASSERT(q->ne[0] == S && k->ne[0] == S && q->ne[2] == T && k->ne[2] == T && "ggml_gated_delta_net: q, k shapes");
    GGML_ASSERT(q->ne[1] > 0 && H % q->ne[1] == 0 && k->ne[1] > 0 && H % k->ne[1] == 0 &&
                n_seqs % q->ne[3] == 0 && n_seqs % k->ne[3] == 0 && "ggml_gated_delta_net: q, k must broadcast to v");
    GGML_ASSERT((g->ne[0] == 1 || g->ne[0] == S) && g->ne[1] == H && g->ne[2] == T && g->ne[3] == n_seqs &&
                "ggml_gated_delta_net: g's shape");
    GGML_ASSERT(beta->ne[0] == 1 && beta->ne[1] == H && beta->ne[2] == T && beta->ne[3] == n_seqs &&
                "ggml_gated_delta_net: beta's shape");
    GGML_ASSERT(state->ne[0] == S && state->ne[1] == S && state->ne[2] == H && state->ne[3] == n_seqs &&
                "ggml_gated_delta_net: state's shape");
    GGML_ASSERT(K >= 1 && K <= INT32_MAX && "ggml_gated_delta_net: K out of range");
    const int64_t ne[4] = { S * H, T * n_seqs + K * S * n_seqs, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    result->op     = GGML_OP_GATED_DELTA_NET;
    result->src[0] = q;
    result->src[1] = k;
    result->src[2] = v;
    result->src[3] = g;
    result->src[4] = beta;
    result->src[5] = state;
    return result;
}
