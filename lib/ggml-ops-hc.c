/*
 * ggml-ops-hc.c - constructors of DeepSeek V4's hyper-connection ops, which
 * replace the residual x + f(x) by hc streams mixed per token:
 *
 *   DSV4_HC_COMB: mixes [(2 + hc) hc, T], scale [>= 3], base [(2 + hc) hc]
 *     -> [hc (dst), hc (src), T]: logits[d, s] = mixes[2 hc + d + hc s] *
 *     scale[2] + base[2 hc + d + hc s]; softmax over d plus eps, then
 *     normalized over s (each divided by eps + its sum), then n_iter - 1
 *     times over d and over s again. hc = 4 only (as upstream).
 *     op_params = float eps, int32 n_iter
 *   DSV4_HC_PRE: x [E, hc, T], weights [hc, T] -> [E, T],
 *     out[i, t] = sum_h x[i, h, t] weights[h, t]
 *   DSV4_HC_POST: x [E, T], residual [E, hc, T], post [hc, T], comb [hc, hc, T]
 *     -> [E, hc, T], out[i, d, t] = x[i, t] post[d, t] + sum_s residual[i, s, t] comb[d, s, t]
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

struct ggml_tensor * ggml_dsv4_hc_comb(struct ggml_context * ctx, struct ggml_tensor * mixes, struct ggml_tensor * scale,
                                       struct ggml_tensor * base, float eps, int32_t n_iter) {
    GGML_ASSERT(mixes->type == GGML_TYPE_F32 && scale->type == GGML_TYPE_F32 && base->type == GGML_TYPE_F32 &&
                "ggml_dsv4_hc_comb: F32 only");
    GGML_ASSERT(n_iter > 0 && "ggml_dsv4_hc_comb: n_iter must be positive");
    const int64_t hc = 4;
    GGML_ASSERT(mixes->ne[0] == (2 + hc) * hc && mixes->ne[2] == 1 && mixes->ne[3] == 1 &&
                "ggml_dsv4_hc_comb: mixes must be [(2 + 4) * 4, n_tokens]");
    GGML_ASSERT(scale->ne[0] >= 3 && ggml_nelements(scale) == scale->ne[0] && "ggml_dsv4_hc_comb: scale [>= 3]");
    GGML_ASSERT(base->ne[0] == mixes->ne[0] && ggml_nelements(base) == base->ne[0] && "ggml_dsv4_hc_comb: base's shape");
    struct ggml_tensor * result = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, hc, hc, mixes->ne[1]);
    ggml_set_op_params_f32(result, 0, eps);
    ggml_set_op_params_i32(result, 1, n_iter);
    result->op     = GGML_OP_DSV4_HC_COMB;
    result->src[0] = mixes;
    result->src[1] = scale;
    result->src[2] = base;
    return result;
}

struct ggml_tensor * ggml_dsv4_hc_pre(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * weights) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && weights->type == GGML_TYPE_F32 && "ggml_dsv4_hc_pre: F32 only");
    GGML_ASSERT(x->ne[1] > 0 && x->ne[3] == 1 && weights->ne[0] == x->ne[1] && weights->ne[1] == x->ne[2] &&
                weights->ne[2] == 1 && weights->ne[3] == 1 && "ggml_dsv4_hc_pre: shapes do not match");
    struct ggml_tensor * result = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, x->ne[0], x->ne[2]);
    result->op     = GGML_OP_DSV4_HC_PRE;
    result->src[0] = x;
    result->src[1] = weights;
    return result;
}

struct ggml_tensor * ggml_dsv4_hc_post(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * residual,
                                       struct ggml_tensor * post, struct ggml_tensor * comb) {
    GGML_ASSERT(x->type == GGML_TYPE_F32 && residual->type == GGML_TYPE_F32 && post->type == GGML_TYPE_F32 &&
                comb->type == GGML_TYPE_F32 && "ggml_dsv4_hc_post: F32 only");
    const int64_t E = x->ne[0], T = x->ne[1], hc = residual->ne[1];
    GGML_ASSERT(x->ne[2] == 1 && x->ne[3] == 1 && residual->ne[0] == E && residual->ne[2] == T && residual->ne[3] == 1 &&
                post->ne[0] == hc && post->ne[1] == T && post->ne[2] == 1 && post->ne[3] == 1 && comb->ne[0] == hc &&
                comb->ne[1] == hc && comb->ne[2] == T && comb->ne[3] == 1 && "ggml_dsv4_hc_post: shapes do not match");
    struct ggml_tensor * result = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, E, hc, T);
    result->op     = GGML_OP_DSV4_HC_POST;
    result->src[0] = x;
    result->src[1] = residual;
    result->src[2] = post;
    result->src[3] = comb;
    return result;
}
