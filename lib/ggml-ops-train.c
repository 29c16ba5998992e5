/*
 * ggml-ops-train.c - constructors of the training ops: the cross-entropy
 * loss and its gradient, and the optimizer steps (AdamW, SGD) that update
 * a parameter in place. Operand order and parameter layouts are upstream's
 * (ggml-opt drives them the same way).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

// CROSS_ENTROPY_LOSS: src[0] = a (logits), src[1] = b (labels); F32 [1]
struct ggml_tensor * ggml_cross_entropy_loss(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_are_same_shape(a, b) && "ggml_cross_entropy_loss: logits and labels differ in shape");
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, a->type, 1);
    result->op     = GGML_OP_CROSS_ENTROPY_LOSS;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// CROSS_ENTROPY_LOSS_BACK: src[0] = a (d loss, scalar), src[1] = b
// (logits), src[2] = c (labels); result of b's shape
struct ggml_tensor * ggml_cross_entropy_loss_back(struct ggml_context * ctx, struct ggml_tensor * a,
                                                  struct ggml_tensor * b, struct ggml_tensor * c) {
    GGML_ASSERT(ggml_is_scalar(a) && "ggml_cross_entropy_loss_back: the loss gradient is a scalar");
    GGML_ASSERT(ggml_are_same_shape(b, c) && "ggml_cross_entropy_loss_back: logits and labels differ in shape");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, b);
    result->op     = GGML_OP_CROSS_ENTROPY_LOSS_BACK;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = c;
    return result;
}

// OPT_STEP_ADAMW: a view of a; src[0] = a, [1] = grad, [2] = m, [3] = v,
// [4] = adamw_params (F32 [7])
struct ggml_tensor * ggml_opt_step_adamw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
                                         struct ggml_tensor * m, struct ggml_tensor * v,
                                         struct ggml_tensor * adamw_params) {
    GGML_ASSERT((a->flags & GGML_TENSOR_FLAG_PARAM) && "ggml_opt_step_adamw: a is not a parameter (ggml_set_param)");
    GGML_ASSERT(ggml_are_same_shape(a, grad) && ggml_are_same_shape(a, m) && ggml_are_same_shape(a, v) &&
                "ggml_opt_step_adamw: grad, m and v must have a's shape");
    GGML_ASSERT(adamw_params->type == GGML_TYPE_F32 && ggml_nelements(adamw_params) == 7 &&
                "ggml_opt_step_adamw: adamw_params is F32 [7]");
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    result->op     = GGML_OP_OPT_STEP_ADAMW;
    result->src[0] = a;
    result->src[1] = grad;
    result->src[2] = m;
    result->src[3] = v;
    result->src[4] = adamw_params;
    return result;
}

// OPT_STEP_SGD: a view of a; src[0] = a, [1] = grad, [2] = sgd_params (F32 [2])
struct ggml_tensor * ggml_opt_step_sgd(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
                                       struct ggml_tensor * sgd_params) {
    GGML_ASSERT((a->flags & GGML_TENSOR_FLAG_PARAM) && "ggml_opt_step_sgd: a is not a parameter (ggml_set_param)");
    GGML_ASSERT(ggml_are_same_shape(a, grad) && "ggml_opt_step_sgd: grad must have a's shape");
    GGML_ASSERT(sgd_params->type == GGML_TYPE_F32 && ggml_nelements(sgd_params) == 2 &&
                "ggml_opt_step_sgd: sgd_params is F32 [2]");
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    result->op     = GGML_OP_OPT_STEP_SGD;
    result->src[0] = a;
    result->src[1] = grad;
    result->src[2] = sgd_params;
    return result;
}
