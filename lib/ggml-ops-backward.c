/*
 * ggml-ops-backward.c - constructors of the backward ops: the gradient of an
 * op's source from the gradient of its result (REPEAT_BACK, SILU_BACK,
 * RMS_NORM_BACK, GET_ROWS_BACK, SOFT_MAX_BACK, ROPE_BACK, IM2COL_BACK,
 * POOL_2D_BACK). ggml_build_backward_expand (ggml-backward.c) builds them.
 * Operand order and op_params are upstream's, so graphs built elsewhere
 * compute the same.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

// REPEAT_BACK: src[0] = a; result of a's type with b's shape, each element
// the sum of the elements of a that ggml_repeat would have copied it to
struct ggml_tensor * ggml_repeat_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_can_repeat(b, a) && "ggml_repeat_back: a must be repetitions of b's shape");
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, b->ne);
    result->op     = GGML_OP_REPEAT_BACK;
    result->src[0] = a;
    return result;
}

// SILU_BACK: src[0] = a (dy), src[1] = b (x); no op_params
struct ggml_tensor * ggml_silu_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_are_same_shape(a, b) && "ggml_silu_back: dy and x differ in shape");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    result->op     = GGML_OP_SILU_BACK;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// RMS_NORM_BACK: src[0] = a (dy), src[1] = b (x); op_params = float { eps }
struct ggml_tensor * ggml_rms_norm_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        float eps) {
    GGML_ASSERT(ggml_are_same_shape(a, b) && "ggml_rms_norm_back: dy and x differ in shape");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, eps);
    result->op     = GGML_OP_RMS_NORM_BACK;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// GET_ROWS_BACK: src[0] = a (dy [n, rows]), src[1] = b (I32 [k], k <=
// rows: row i of a goes to row b[i]; rows of a past k are not used); F32
// [c->ne[0], c->ne[1]]
struct ggml_tensor * ggml_get_rows_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        struct ggml_tensor * c) {
    GGML_ASSERT(ggml_is_matrix(a) && ggml_is_vector(b) && b->type == GGML_TYPE_I32 &&
                "ggml_get_rows_back: a matrix of gradients and a vector of I32 indices");
    GGML_ASSERT(ggml_is_matrix(c) && a->ne[0] == c->ne[0] && "ggml_get_rows_back: c must be a matrix of a's rows");
    GGML_ASSERT(a->ne[1] >= b->ne[0] && "ggml_get_rows_back: a row of a for every index");
    struct ggml_tensor * result = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c->ne[0], c->ne[1]);
    result->op     = GGML_OP_GET_ROWS_BACK;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// SOFT_MAX_BACK: src[0] = a (dy), src[1] = b (y); op_params = float
// { scale, max_bias }
static struct ggml_tensor * soft_max_back_impl(struct ggml_context * ctx, struct ggml_tensor * a,
                                               struct ggml_tensor * b, float scale, float max_bias, bool inplace) {
    GGML_ASSERT(ggml_are_same_shape(a, b) && "ggml_soft_max_ext_back: dy and y differ in shape");
    struct ggml_tensor * result = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    result->op     = GGML_OP_SOFT_MAX_BACK;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_soft_max_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            float scale, float max_bias) {
    return soft_max_back_impl(ctx, a, b, scale, max_bias, false);
}

struct ggml_tensor * ggml_soft_max_ext_back_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                                    struct ggml_tensor * b, float scale, float max_bias) {
    return soft_max_back_impl(ctx, a, b, scale, max_bias, true);
}

// ROPE_BACK: the sources and op_params of the ROPE it undoes (ggml-ops.c);
// the kernel rotates by the opposite angles
struct ggml_tensor * ggml_rope_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig,
                                        float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                        float beta_fast, float beta_slow) {
    struct ggml_tensor * result = ggml_rope_ext(ctx, a, b, c, n_dims, mode, n_ctx_orig, freq_base, freq_scale,
                                                ext_factor, attn_factor, beta_fast, beta_slow);
    result->op = GGML_OP_ROPE_BACK;
    return result;
}

struct ggml_tensor * ggml_rope_multi_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                          struct ggml_tensor * c, int n_dims, int sections[4], int mode,
                                          int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                          float attn_factor, float beta_fast, float beta_slow) {
    struct ggml_tensor * result = ggml_rope_multi(ctx, a, b, c, n_dims, sections, mode, n_ctx_orig, freq_base,
                                                  freq_scale, ext_factor, attn_factor, beta_fast, beta_slow);
    result->op = GGML_OP_ROPE_BACK;
    return result;
}

// IM2COL_BACK: src[0] = a (the gradient of the patches), src[1] = b (the
// kernel, for its shape); F32 [ne]; op_params as IM2COL's: int32 { s0, s1,
// p0, p1, d0, d1, is_2D }
struct ggml_tensor * ggml_im2col_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      int64_t * ne, int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D) {
    GGML_ASSERT(s0 > 0 && d0 > 0 && (!is_2D || (s1 > 0 && d1 > 0)) &&
                "ggml_im2col_back: strides and dilations must be positive");
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_IM2COL_BACK;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// POOL_2D_BACK: src[0] = a (the gradient of the pooled result), src[1] =
// af (the pooled input); F32 [af->ne]; op_params as POOL_2D's: int32 { op,
// k0, k1, s0, s1, p0, p1 }
struct ggml_tensor * ggml_pool_2d_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * af,
                                       enum ggml_op_pool op, int k0, int k1, int s0, int s1, float p0, float p1) {
    GGML_ASSERT(k0 > 0 && k1 > 0 && s0 > 0 && s1 > 0 && (op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG) &&
                "ggml_pool_2d_back: bad parameters");
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, af->ne);
    const int32_t params[] = { (int32_t) op, k0, k1, s0, s1, (int32_t) p0, (int32_t) p1 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_POOL_2D_BACK;
    result->src[0] = a;
    result->src[1] = af;
    return result;
}

// Upstream's constructor aborts before building anything (the op predates
// ggml_flash_attn_ext and was never adapted); a program calling it gets the
// same answer here instead of a graph no backend computes.
struct ggml_tensor * ggml_flash_attn_back(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * d, bool masked) {
    (void) ctx; (void) q; (void) k; (void) v; (void) d; (void) masked;
    GGML_ABORT("ggml_flash_attn_back: not adapted to ggml_flash_attn_ext (upstream aborts here too)");
}
