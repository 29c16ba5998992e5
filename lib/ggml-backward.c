/*
 * ggml-backward.c - the backward pass: ggml_build_backward_expand appends
 * to a forward graph the nodes that compute the gradient of its loss with
 * respect to its parameters, and ggml_graph_reset prepares those gradients
 * before each evaluation.
 *
 * The gradients live in the graph's grads[] (and grad_accs[] for the
 * accumulators), indexed like its hash set. A node needs a gradient if it
 * is a parameter, a loss, or depends on one that does through a source that
 * carries gradients (indices, positions and piecewise-constant ops do not).
 * An op run in place that overwrote a source its gradient reads gets a
 * warning (upstream aborts): the gradient is built from what the memory
 * holds. Nodes are then visited from the last to the first; each adds its
 * contribution to its sources' gradients (chain rule), building new nodes in
 * ctx and expanding the graph with them. A source with an accumulator
 * (grad_accs of the caller, or the loss's own) receives its contributions in
 * place, so the accumulator holds the sum after the graph is computed.
 *
 * The ops upstream differentiates get the same gradient ops (so that graphs
 * built here compute what upstream's do); beyond them, every GLU variant and
 * the other activations (ggml-backward-act.c), SOLVE_TRI (ggml-backward-
 * solve.c), the piecewise-constant roundings and FILL (zero gradients),
 * NORM, GROUP_NORM, CUMSUM, POOL_1D, IM2COL_3D, WIN_PART/UNPART, TRI, DIAG,
 * CLAMP, LEAKY_RELU and CONCAT have one. Any other op aborts with its name.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backward.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <stdlib.h>

struct bw {
    struct ggml_context * ctx;
    struct ggml_cgraph  * g;
    bool                * needed; // [visited_hash_set.size]: carries a gradient
};

// the hash slot of t in the graph, or GGML_HASHSET_FULL when t is not in it
static size_t slot_of(const struct ggml_cgraph * g, const struct ggml_tensor * t) {
    const size_t i = ggml_hash_find(&g->visited_hash_set, t);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(g->visited_hash_set.used, i)) {
        return GGML_HASHSET_FULL;
    }
    return i;
}

static bool wants(const struct bw * w, const struct ggml_tensor * t) {
    if (t == NULL) {
        return false;
    }
    const size_t i = slot_of(w->g, t);
    return i != GGML_HASHSET_FULL && w->needed[i];
}

enum contrib { C_ADD, C_SUB };

// grad(t) += d (C_ADD) or -= d (C_SUB); in place into t's accumulator
static void contribute(struct bw * w, struct ggml_tensor * t, struct ggml_tensor * d, enum contrib how) {
    const size_t i = slot_of(w->g, t);
    GGML_ASSERT(i != GGML_HASHSET_FULL);
    struct ggml_tensor ** gr = &w->g->grads[i];
    const bool acc = w->g->grad_accs[i] != NULL;
    if (*gr == NULL) {
        *gr = how == C_ADD ? d : ggml_neg(w->ctx, d);
    } else if (how == C_ADD) {
        *gr = acc ? ggml_add_inplace(w->ctx, *gr, d) : ggml_add(w->ctx, *gr, d);
    } else {
        *gr = acc ? ggml_sub_inplace(w->ctx, *gr, d) : ggml_sub(w->ctx, *gr, d);
    }
    ggml_format_name(*gr, "grad for %s", t->name);
    ggml_build_forward_expand(w->g, *gr);
}

static void add_grad(struct bw * w, struct ggml_tensor * t, struct ggml_tensor * d) {
    contribute(w, t, d, C_ADD);
}

static void sub_grad(struct bw * w, struct ggml_tensor * t, struct ggml_tensor * d) {
    contribute(w, t, d, C_SUB);
}

// a tensor of zeros shaped like t (without reading t: no NaN from t's values)
static struct ggml_tensor * zeros_like(struct bw * w, struct ggml_tensor * t) {
    if (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16) {
        return ggml_fill(w->ctx, ggml_new_tensor(w->ctx, t->type, GGML_MAX_DIMS, t->ne), 0.0f);
    }
    return ggml_scale(w->ctx, t, 0.0f);
}

// grad(t) += d placed into the view (nb1, nb2, nb3, offset) of t's gradient
static void add_grad_view(struct bw * w, struct ggml_tensor * t, struct ggml_tensor * d, size_t nb1, size_t nb2,
                          size_t nb3, size_t offset) {
    const size_t i = slot_of(w->g, t);
    struct ggml_tensor ** gr = &w->g->grads[i];
    if (*gr == NULL) {
        *gr = ggml_acc(w->ctx, zeros_like(w, t), d, nb1, nb2, nb3, offset);
    } else if (w->g->grad_accs[i] != NULL) {
        *gr = ggml_acc_inplace(w->ctx, *gr, d, nb1, nb2, nb3, offset);
    } else {
        *gr = ggml_acc(w->ctx, *gr, d, nb1, nb2, nb3, offset);
    }
    ggml_format_name(*gr, "grad for %s", t->name);
    ggml_build_forward_expand(w->g, *gr);
}

// grad(t) += the scalar d broadcast over t (SUM, MEAN)
static void add_grad_scalar(struct bw * w, struct ggml_tensor * t, struct ggml_tensor * d) {
    const size_t i = slot_of(w->g, t);
    struct ggml_tensor ** gr = &w->g->grads[i];
    if (*gr == NULL) {
        *gr = ggml_repeat(w->ctx, d, t);
    } else {
        *gr = w->g->grad_accs[i] != NULL ? ggml_add1_inplace(w->ctx, *gr, d) : ggml_add1(w->ctx, *gr, d);
    }
    ggml_format_name(*gr, "grad for %s", t->name);
    ggml_build_forward_expand(w->g, *gr);
}

// d summed down to the shape of t (the broadcast of a binary op undone)
static struct ggml_tensor * unbroadcast(struct bw * w, struct ggml_tensor * d, struct ggml_tensor * t) {
    return ggml_are_same_shape(d, t) ? d : ggml_repeat_back(w->ctx, d, t);
}

// MUL_MAT: src0 [n, m, q1, r1] broadcast over src1 [n, p, q1 r2, r1 r3]
// (src1's slice i2 uses src0's slice i2 / r2): the out product summed over
// each group of r2 (and r3) consecutive slices
static struct ggml_tensor * mul_mat_grad0(struct bw * w, struct ggml_tensor * src0, struct ggml_tensor * src1,
                                          struct ggml_tensor * grad) {
    struct ggml_context * ctx = w->ctx;
    // out_prod reads its first operand by rows
    struct ggml_tensor * b = ggml_is_transposed(src1) ? ggml_cont(ctx, src1) : src1;
    struct ggml_tensor * d = ggml_out_prod(ctx, b, grad); // [n, m, qq, rr]
    const int64_t r2 = d->ne[2] / src0->ne[2], r3 = d->ne[3] / src0->ne[3];
    const int64_t nm = src0->ne[0] * src0->ne[1];
    if (r2 > 1) {
        // [nm, r2, q1 * rr] -> sum over dim 1
        d = ggml_repeat_back(ctx, ggml_reshape_3d(ctx, d, nm, r2, src0->ne[2] * d->ne[3]),
                             ggml_new_tensor_3d(ctx, d->type, nm, 1, src0->ne[2] * d->ne[3]));
    }
    if (r3 > 1) {
        // [nm q1, r3, r1] -> sum over dim 1
        d = ggml_repeat_back(ctx, ggml_reshape_3d(ctx, d, nm * src0->ne[2], r3, src0->ne[3]),
                             ggml_new_tensor_3d(ctx, d->type, nm * src0->ne[2], 1, src0->ne[3]));
    }
    return ggml_are_same_shape(d, src0) ? d : ggml_reshape(ctx, d, src0);
}

// NORM (and GROUP_NORM reshaped to rows): y = (x - mean) / sqrt(var + eps)
// per row; dx = (dy - mean(dy) - y mean(dy y)) / sqrt(var + eps)
static struct ggml_tensor * norm_grad(struct bw * w, struct ggml_tensor * x, struct ggml_tensor * dy, float eps) {
    struct ggml_context * ctx = w->ctx;
    struct ggml_tensor * xc = ggml_sub(ctx, x, ggml_repeat(ctx, ggml_mean(ctx, x), x));
    struct ggml_tensor * sd = ggml_sqrt(ctx, ggml_scale_bias(ctx, ggml_mean(ctx, ggml_sqr(ctx, xc)), 1.0f, eps));
    struct ggml_tensor * y = ggml_div(ctx, xc, sd);
    struct ggml_tensor * t = ggml_sub(ctx, dy, ggml_repeat(ctx, ggml_mean(ctx, dy), dy));
    t = ggml_sub(ctx, t, ggml_mul(ctx, y, ggml_mean(ctx, ggml_mul(ctx, dy, y))));
    return ggml_div(ctx, t, sd);
}

static struct ggml_tensor * as_rows_of(struct ggml_context * ctx, struct ggml_tensor * t, int64_t n) {
    struct ggml_tensor * c = ggml_is_contiguous(t) ? t : ggml_cont(ctx, t);
    return ggml_reshape_2d(ctx, c, n, ggml_nelements(t) / n);
}

static void backward_unary(struct bw * w, struct ggml_tensor * node, struct ggml_tensor * grad) {
    struct ggml_context * ctx = w->ctx;
    struct ggml_tensor * x = node->src[0];
    if (!wants(w, x)) {
        return;
    }
    switch (ggml_get_unary_op(node)) {
        case GGML_UNARY_OP_ABS:      add_grad(w, x, ggml_mul(ctx, ggml_sgn(ctx, x), grad)); break;
        case GGML_UNARY_OP_NEG:      sub_grad(w, x, grad); break;
        case GGML_UNARY_OP_RELU:     add_grad(w, x, ggml_mul(ctx, ggml_step(ctx, x), grad)); break;
        case GGML_UNARY_OP_SILU:     add_grad(w, x, ggml_silu_back(ctx, grad, x)); break;
        case GGML_UNARY_OP_EXP:      add_grad(w, x, ggml_mul(ctx, node, grad)); break;
        case GGML_UNARY_OP_EXPM1:    add_grad(w, x, ggml_mul(ctx, grad, ggml_exp(ctx, x))); break;
        case GGML_UNARY_OP_SOFTPLUS: add_grad(w, x, ggml_mul(ctx, grad, ggml_sigmoid(ctx, x))); break;
        case GGML_UNARY_OP_SGN: case GGML_UNARY_OP_STEP:
            break; // never reached: their sources are ignored (as upstream)
        case GGML_UNARY_OP_FLOOR: case GGML_UNARY_OP_CEIL: case GGML_UNARY_OP_ROUND: case GGML_UNARY_OP_TRUNC:
            // piecewise constant: an explicit zero gradient, so a parameter
            // rounded directly still has a gradient node
            add_grad(w, x, zeros_like(w, x));
            break;
        default:
            add_grad(w, x, ggml_backward_unary(ctx, grad, node));
            break;
    }
}

// the contributions of node to its sources' gradients
static void backward_node(struct bw * w, struct ggml_tensor * node) {
    struct ggml_context * ctx = w->ctx;
    struct ggml_tensor * grad = ggml_graph_get_grad(w->g, node);
    if (grad == NULL) {
        return;
    }
    struct ggml_tensor * s0 = node->src[0];
    struct ggml_tensor * s1 = node->src[1];
    struct ggml_tensor * s2 = node->src[2];
    const bool w0 = wants(w, s0), w1 = wants(w, s1), w2 = wants(w, s2);

    switch (node->op) {
        case GGML_OP_NONE:
            break;
        case GGML_OP_DUP:
            if (w0) add_grad(w, s0, grad);
            break;
        case GGML_OP_ADD:
            if (w0) add_grad(w, s0, grad);
            if (w1) add_grad(w, s1, unbroadcast(w, grad, s1));
            break;
        case GGML_OP_SUB:
            if (w0) add_grad(w, s0, grad);
            if (w1) sub_grad(w, s1, unbroadcast(w, grad, s1));
            break;
        case GGML_OP_ADD1:
            if (w0) add_grad(w, s0, grad);
            // the sum (upstream takes a row mean, which has the wrong shape)
            if (w1) add_grad(w, s1, ggml_sum(ctx, grad));
            break;
        case GGML_OP_ACC: {
            if (w0) add_grad(w, s0, grad);
            if (w1) {
                const size_t nb1 = (size_t) ggml_get_op_params_i32(node, 0), nb2 = (size_t) ggml_get_op_params_i32(node, 1);
                const size_t nb3 = (size_t) ggml_get_op_params_i32(node, 2), off = (size_t) ggml_get_op_params_i32(node, 3);
                struct ggml_tensor * v = ggml_view_4d(ctx, grad, s1->ne[0], s1->ne[1], s1->ne[2], s1->ne[3], nb1, nb2,
                                                      nb3, off);
                add_grad(w, s1, ggml_reshape(ctx, ggml_cont(ctx, v), s1));
            }
            break;
        }
        case GGML_OP_MUL:
            if (w0) add_grad(w, s0, ggml_mul(ctx, grad, s1));
            if (w1) add_grad(w, s1, unbroadcast(w, ggml_mul(ctx, s0, grad), s1));
            break;
        case GGML_OP_DIV:
            if (w0) add_grad(w, s0, ggml_div(ctx, grad, s1));
            if (w1) sub_grad(w, s1, unbroadcast(w, ggml_mul(ctx, grad, ggml_div(ctx, node, s1)), s1));
            break;
        case GGML_OP_SQR:
            if (w0) add_grad(w, s0, ggml_scale(ctx, ggml_mul(ctx, s0, grad), 2.0f));
            break;
        case GGML_OP_SQRT:
            if (w0) add_grad(w, s0, ggml_scale(ctx, ggml_div(ctx, grad, node), 0.5f));
            break;
        case GGML_OP_LOG:
            if (w0) add_grad(w, s0, ggml_div(ctx, grad, s0));
            break;
        case GGML_OP_SIN:
            if (w0) add_grad(w, s0, ggml_mul(ctx, grad, ggml_cos(ctx, s0)));
            break;
        case GGML_OP_COS:
            if (w0) sub_grad(w, s0, ggml_mul(ctx, grad, ggml_sin(ctx, s0)));
            break;
        case GGML_OP_SUM:
            if (w0) add_grad_scalar(w, s0, grad);
            break;
        case GGML_OP_SUM_ROWS:
            if (w0) add_grad(w, s0, ggml_repeat(ctx, grad, s0));
            break;
        case GGML_OP_MEAN:
            if (w0) add_grad(w, s0, ggml_repeat(ctx, ggml_scale(ctx, grad, 1.0f / (float) s0->ne[0]), s0));
            break;
        case GGML_OP_CUMSUM:
            // dx_i = sum_{j >= i} dy_j = rowsum(dy) - cumsum(dy)_i + dy_i
            if (w0) {
                struct ggml_tensor * rs = ggml_repeat(ctx, ggml_sum_rows(ctx, grad), grad);
                add_grad(w, s0, ggml_add(ctx, ggml_sub(ctx, rs, ggml_cumsum(ctx, grad)), grad));
            }
            break;
        case GGML_OP_REPEAT:
            if (w0) add_grad(w, s0, ggml_repeat_back(ctx, grad, s0));
            break;
        case GGML_OP_REPEAT_BACK:
            if (w0) add_grad(w, s0, ggml_repeat(ctx, grad, s0));
            break;
        case GGML_OP_CONCAT: {
            const int dim = ggml_get_op_params_i32(node, 0);
            size_t off = 0;
            struct ggml_tensor * srcs[2] = { s0, s1 };
            for (int k = 0; k < 2; k++) {
                struct ggml_tensor * s = srcs[k];
                if (wants(w, s)) {
                    struct ggml_tensor * v = ggml_view_4d(ctx, grad, s->ne[0], s->ne[1], s->ne[2], s->ne[3],
                                                          grad->nb[1], grad->nb[2], grad->nb[3], off);
                    add_grad(w, s, ggml_cont(ctx, v));
                }
                off += (size_t) s->ne[dim] * grad->nb[dim];
            }
            break;
        }
        case GGML_OP_RMS_NORM:
            if (w0) add_grad(w, s0, ggml_rms_norm_back(ctx, grad, s0, ggml_get_op_params_f32(node, 0)));
            break;
        case GGML_OP_NORM:
            if (w0) {
                struct ggml_tensor * x = ggml_is_contiguous(s0) ? s0 : ggml_cont(ctx, s0);
                add_grad(w, s0, norm_grad(w, x, grad, ggml_get_op_params_f32(node, 0)));
            }
            break;
        case GGML_OP_GROUP_NORM:
            if (w0) {
                const int ng = ggml_get_op_params_i32(node, 0);
                GGML_ASSERT(s0->ne[2] % ng == 0 && "backward of ggml_group_norm: channels must divide into groups");
                const int64_t n = s0->ne[0] * s0->ne[1] * (s0->ne[2] / ng);
                struct ggml_tensor * d = norm_grad(w, as_rows_of(ctx, s0, n), as_rows_of(ctx, grad, n),
                                                   ggml_get_op_params_f32(node, 1));
                add_grad(w, s0, ggml_reshape(ctx, d, s0));
            }
            break;
        case GGML_OP_MUL_MAT:
            if (w0) add_grad(w, s0, mul_mat_grad0(w, s0, s1, grad));
            if (w1) {
                struct ggml_tensor * a = ggml_is_transposed(s0) ? ggml_cont(ctx, s0) : s0;
                add_grad(w, s1, ggml_out_prod(ctx, a, ggml_transpose(ctx, grad)));
            }
            break;
        case GGML_OP_SCALE:
            if (w0) add_grad(w, s0, ggml_scale(ctx, grad, ggml_get_op_params_f32(node, 0)));
            break;
        case GGML_OP_CLAMP:
            // dy where min < x < max: step(x - min) * step(max - x) (also
            // right from the clamped values when the op ran in place)
            if (w0) {
                const float lo = ggml_get_op_params_f32(node, 0), hi = ggml_get_op_params_f32(node, 1);
                struct ggml_tensor * in = ggml_mul(ctx, ggml_step(ctx, ggml_scale_bias(ctx, s0, 1.0f, -lo)),
                                                   ggml_step(ctx, ggml_scale_bias(ctx, s0, -1.0f, hi)));
                add_grad(w, s0, ggml_mul(ctx, in, grad));
            }
            break;
        case GGML_OP_LEAKY_RELU:
            // dy (x > 0) + slope dy (x <= 0) = dy (slope + (1 - slope) step(x))
            if (w0) {
                const float k = ggml_get_op_params_f32(node, 0);
                struct ggml_tensor * f = ggml_scale_bias(ctx, ggml_step(ctx, s0), 1.0f - k, k);
                add_grad(w, s0, ggml_mul(ctx, f, grad));
            }
            break;
        case GGML_OP_SET: {
            const size_t nb1 = (size_t) ggml_get_op_params_i32(node, 0), nb2 = (size_t) ggml_get_op_params_i32(node, 1);
            const size_t nb3 = (size_t) ggml_get_op_params_i32(node, 2), off = (size_t) ggml_get_op_params_i32(node, 3);
            if (w0 || w1) {
                struct ggml_tensor * v = ggml_view_4d(ctx, grad, s1->ne[0], s1->ne[1], s1->ne[2], s1->ne[3], nb1,
                                                      nb2, nb3, off);
                if (w0) {
                    // the overwritten block gets no gradient
                    add_grad(w, s0, ggml_acc(ctx, grad, ggml_neg(ctx, v), nb1, nb2, nb3, off));
                }
                if (w1) {
                    add_grad(w, s1, ggml_reshape(ctx, ggml_cont(ctx, v), s1));
                }
            }
            break;
        }
        case GGML_OP_CPY:
            // the destination's old values do not reach the result
            if (w0) add_grad(w, s0, ggml_reshape(ctx, grad, s0));
            break;
        case GGML_OP_CONT:
            if (w0) add_grad(w, s0, ggml_are_same_shape(grad, s0) ? grad : ggml_reshape(ctx, grad, s0));
            break;
        case GGML_OP_RESHAPE:
            if (w0) add_grad(w, s0, ggml_reshape(ctx, ggml_is_contiguous(grad) ? grad : ggml_cont(ctx, grad), s0));
            break;
        case GGML_OP_VIEW:
            if (w0) {
                size_t off;
                memcpy(&off, node->op_params, sizeof(off));
                size_t nb1 = node->nb[1], nb2 = node->nb[2], nb3 = node->nb[3];
                const size_t gi = slot_of(w->g, s0);
                const struct ggml_tensor * prev = w->g->grads[gi];
                if (prev != NULL && prev->type != s0->type) {
                    // strides of s0's type -> strides of the gradient's
                    const size_t es = ggml_element_size(s0), eg = ggml_element_size(prev);
                    GGML_ASSERT(off % es == 0 && nb1 % es == 0 && nb2 % es == 0 && nb3 % es == 0);
                    off = off / es * eg;
                    nb1 = nb1 / es * eg;
                    nb2 = nb2 / es * eg;
                    nb3 = nb3 / es * eg;
                }
                add_grad_view(w, s0, grad, nb1, nb2, nb3, off);
            }
            break;
        case GGML_OP_PERMUTE:
            if (w0) {
                int inv[4];
                for (int k = 0; k < 4; k++) {
                    inv[ggml_get_op_params_i32(node, k) & 3] = k;
                }
                add_grad(w, s0, ggml_permute(ctx, grad, inv[0], inv[1], inv[2], inv[3]));
            }
            break;
        case GGML_OP_TRANSPOSE:
            if (w0) add_grad(w, s0, ggml_transpose(ctx, grad));
            break;
        case GGML_OP_GET_ROWS:
            if (w0) add_grad(w, s0, ggml_get_rows_back(ctx, grad, s1, s0));
            break;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            if (w0) add_grad(w, s0, ggml_diag_mask_zero(ctx, grad, ggml_get_op_params_i32(node, 0)));
            break;
        case GGML_OP_SOFT_MAX:
            GGML_ASSERT(!w1 && "backward of the softmax mask is not implemented");
            if (w0) {
                add_grad(w, s0, ggml_soft_max_ext_back(ctx, grad, node, ggml_get_op_params_f32(node, 0),
                                                       ggml_get_op_params_f32(node, 1)));
            }
            break;
        case GGML_OP_ROPE:
            GGML_ASSERT(!w2 && "gradients for rope frequency factors are not implemented");
            if (w0) {
                // the rotation by the opposite angles, same sources and op_params
                struct ggml_tensor * d = ggml_dup_tensor(ctx, grad);
                memcpy(d->op_params, node->op_params, sizeof(d->op_params));
                d->op     = GGML_OP_ROPE_BACK;
                d->src[0] = grad;
                d->src[1] = s1;
                d->src[2] = s2;
                add_grad(w, s0, d);
            }
            break;
        case GGML_OP_IM2COL:
            if (w1) {
                add_grad(w, s1, ggml_im2col_back(ctx, grad, s0, s1->ne, ggml_get_op_params_i32(node, 0),
                                                 ggml_get_op_params_i32(node, 1), ggml_get_op_params_i32(node, 2),
                                                 ggml_get_op_params_i32(node, 3), ggml_get_op_params_i32(node, 4),
                                                 ggml_get_op_params_i32(node, 5), ggml_get_op_params_i32(node, 6) == 1));
            }
            break;
        case GGML_OP_IM2COL_3D:
            // IM2COL_BACK in its 3-D form: IM2COL_3D's op_params, [15] = 3
            if (w1) {
                struct ggml_tensor * d = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, s1->ne);
                for (int k = 0; k < 10; k++) {
                    ggml_set_op_params_i32(d, k, ggml_get_op_params_i32(node, k));
                }
                ggml_set_op_params_i32(d, 15, 3);
                d->op     = GGML_OP_IM2COL_BACK;
                d->src[0] = grad;
                d->src[1] = s0;
                add_grad(w, s1, d);
            }
            break;
        case GGML_OP_POOL_2D:
            if (w0) {
                add_grad(w, s0, ggml_pool_2d_back(ctx, grad, s0, (enum ggml_op_pool) ggml_get_op_params_i32(node, 0),
                                                  ggml_get_op_params_i32(node, 1), ggml_get_op_params_i32(node, 2),
                                                  ggml_get_op_params_i32(node, 3), ggml_get_op_params_i32(node, 4),
                                                  (float) ggml_get_op_params_i32(node, 5),
                                                  (float) ggml_get_op_params_i32(node, 6)));
            }
            break;
        case GGML_OP_POOL_1D:
            // POOL_2D_BACK over rows (k1 = s1 = 1, p1 = 0); op_params[7] = 1:
            // AVG divides by the taps inside the input, as POOL_1D does
            if (w0) {
                struct ggml_tensor * d = ggml_pool_2d_back(ctx, grad, s0,
                                                           (enum ggml_op_pool) ggml_get_op_params_i32(node, 0),
                                                           ggml_get_op_params_i32(node, 1), 1,
                                                           ggml_get_op_params_i32(node, 2), 1,
                                                           (float) ggml_get_op_params_i32(node, 3), 0.0f);
                ggml_set_op_params_i32(d, 7, 1);
                add_grad(w, s0, d);
            }
            break;
        case GGML_OP_WIN_PART:
            if (w0) {
                add_grad(w, s0, ggml_win_unpart(ctx, grad, s0->ne[1], s0->ne[2], ggml_get_op_params_i32(node, 2)));
            }
            break;
        case GGML_OP_WIN_UNPART:
            if (w0) add_grad(w, s0, ggml_win_part(ctx, grad, ggml_get_op_params_i32(node, 0)));
            break;
        case GGML_OP_TRI:
            // linear: the same triangle of the gradient
            if (w0) add_grad(w, s0, ggml_tri(ctx, grad, (enum ggml_tri_type) ggml_get_op_params_i32(node, 0)));
            break;
        case GGML_OP_DIAG:
            // a [n, 1, ne2, ne3] -> diagonal matrices: the gradient's diagonals
            if (w0) {
                struct ggml_tensor * v = ggml_view_4d(ctx, grad, 1, s0->ne[0], grad->ne[2], grad->ne[3],
                                                      grad->nb[1] + grad->nb[0], grad->nb[2], grad->nb[3], 0);
                add_grad(w, s0, ggml_reshape(ctx, ggml_cont(ctx, v), s0));
            }
            break;
        case GGML_OP_SOLVE_TRI:
            if (w0 || w1) {
                struct ggml_tensor * y = ggml_backward_solve_tri_b(ctx, grad, node);
                if (w1) add_grad(w, s1, y);
                if (w0) add_grad(w, s0, ggml_backward_solve_tri_a(ctx, y, node));
            }
            break;
        case GGML_OP_OPT_STEP_SGD: {
            // a' = a (1 - alpha wd) - alpha g, alpha and wd from the params tensor
            struct ggml_tensor * p = s2;
            struct ggml_tensor * alpha = ggml_view_1d(ctx, p, 1, 0);
            struct ggml_tensor * wd = ggml_view_1d(ctx, p, 1, sizeof(float));
            if (w0) {
                struct ggml_tensor * keep = ggml_scale_bias(ctx, ggml_mul(ctx, alpha, wd), -1.0f, 1.0f);
                add_grad(w, s0, ggml_mul(ctx, grad, keep));
            }
            if (w1) add_grad(w, s1, ggml_mul(ctx, grad, ggml_scale(ctx, alpha, -1.0f)));
            break;
        }
        case GGML_OP_FILL:
            // the result does not depend on the values of a
            if (w0) add_grad(w, s0, zeros_like(w, s0));
            break;
        case GGML_OP_UNARY:
            backward_unary(w, node, grad);
            break;
        case GGML_OP_GLU:
            if (w0) add_grad(w, s0, ggml_backward_glu(ctx, grad, node, 0));
            if (w1) add_grad(w, s1, ggml_backward_glu(ctx, grad, node, 1));
            break;
        case GGML_OP_CROSS_ENTROPY_LOSS:
            GGML_ASSERT(!w1 && "backward of cross-entropy labels is not implemented");
            if (w0) add_grad(w, s0, ggml_cross_entropy_loss_back(ctx, grad, s0, s1));
            break;
        default:
            GGML_ABORT("ggml_build_backward_expand: op %s has no backward pass", ggml_op_desc(node));
    }

    for (int k = 0; k < 3; k++) {
        struct ggml_tensor * s = node->src[k];
        if (wants(w, s)) {
            GGML_ASSERT(ggml_are_same_shape(s, w->g->grads[slot_of(w->g, s)]) &&
                        "ggml_build_backward_expand: a gradient's shape differs from its tensor's");
        }
    }
}

// sources of node whose gradient the result does not depend on
static bool ignores_src(const struct ggml_tensor * node, int k) {
    switch (node->op) {
        case GGML_OP_IM2COL: case GGML_OP_IM2COL_BACK: case GGML_OP_IM2COL_3D:
            return k == 0; // the kernel: only its shape is used
        case GGML_OP_CPY: case GGML_OP_GET_ROWS: case GGML_OP_GET_ROWS_BACK: case GGML_OP_ROPE:
            return k == 1; // the destination, indices, positions
        case GGML_OP_UNARY:
            switch (ggml_get_unary_op(node)) {
                case GGML_UNARY_OP_SGN: case GGML_UNARY_OP_STEP:
                    return true; // piecewise constant (the roundings get zero gradients)
                default:
                    return false;
            }
        default:
            return false;
    }
}

// An op computed in place overwrites its first source: differentiable when
// its gradient does not read that source's values (views and copies, the
// ops whose gradient is the result's gradient moved or scaled, and those
// that read only their result).
static bool inplace_ok(const struct ggml_tensor * node) {
    if (ggml_impl_is_view(node)) {
        return true;
    }
    switch (node->op) {
        case GGML_OP_CPY: case GGML_OP_ADD: case GGML_OP_SUB: case GGML_OP_ADD1: case GGML_OP_ACC:
        case GGML_OP_SET: case GGML_OP_SCALE: case GGML_OP_DIAG_MASK_INF: case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_SOFT_MAX: case GGML_OP_ROPE:
        case GGML_OP_CLAMP: // its mask reads a clamped value at a bound as outside
        case GGML_OP_OPT_STEP_SGD:
            return true;
        case GGML_OP_UNARY:
            return ggml_get_unary_op(node) == GGML_UNARY_OP_NEG || ggml_get_unary_op(node) == GGML_UNARY_OP_EXP;
        default:
            return false;
    }
}

void ggml_build_backward_expand(struct ggml_context * ctx, struct ggml_cgraph * cgraph,
                                struct ggml_tensor ** grad_accs) {
    GGML_ASSERT(cgraph->n_nodes > 0 && "ggml_build_backward_expand: build the forward graph first");
    GGML_ASSERT(cgraph->grads != NULL && cgraph->grad_accs != NULL &&
                "ggml_build_backward_expand: the graph has no gradients (ggml_new_graph_custom(.., true))");
    const size_t hs = cgraph->visited_hash_set.size;
    const int n_fwd = cgraph->n_nodes;
    memset(cgraph->grads, 0, hs * sizeof(*cgraph->grads));
    memset(cgraph->grad_accs, 0, hs * sizeof(*cgraph->grad_accs));

    bool any_param = false, any_loss = false;
    for (int i = 0; i < n_fwd; i++) {
        any_param = any_param || (cgraph->nodes[i]->flags & GGML_TENSOR_FLAG_PARAM);
        any_loss  = any_loss  || (cgraph->nodes[i]->flags & GGML_TENSOR_FLAG_LOSS);
    }
    GGML_ASSERT(any_param && "ggml_build_backward_expand: no parameter (ggml_set_param)");
    GGML_ASSERT(any_loss && "ggml_build_backward_expand: no loss (ggml_set_loss)");

    struct bw w = { ctx, cgraph, calloc(hs, sizeof(bool)) };
    GGML_ASSERT(w.needed != NULL);

    // which nodes carry a gradient, in forward order (sources first)
    for (int i = 0; i < n_fwd; i++) {
        struct ggml_tensor * node = cgraph->nodes[i];
        if (node->type == GGML_TYPE_I32) {
            continue;
        }
        bool need = (node->flags & (GGML_TENSOR_FLAG_PARAM | GGML_TENSOR_FLAG_LOSS)) != 0;
        for (int k = 0; k < GGML_MAX_SRC && !need; k++) {
            struct ggml_tensor * s = node->src[k];
            if (s == NULL || ignores_src(node, k) || !wants(&w, s)) {
                continue;
            }
            GGML_ASSERT((s->type == GGML_TYPE_F32 || s->type == GGML_TYPE_F16) &&
                        "ggml_build_backward_expand: gradients are F32 or F16");
            need = true;
        }
        if (!need) {
            continue;
        }
        if (node->view_src != NULL && !inplace_ok(node)) {
            // upstream aborts here; the gradient is built, but it reads the
            // source's memory, which holds the result once the op has run
            GGML_LOG_WARN("%s: %s (%s) runs in place: its gradient reads the overwritten source\n", __func__,
                          node->name, ggml_op_desc(node));
        }
        const size_t h = slot_of(cgraph, node);
        GGML_ASSERT(h != GGML_HASHSET_FULL);
        if (grad_accs != NULL && grad_accs[i] != NULL) {
            cgraph->grad_accs[h] = grad_accs[i];
        } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            // set to 1 by ggml_graph_reset
            cgraph->grad_accs[h] = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
            ggml_format_name(cgraph->grad_accs[h], "grad acc for %s", node->name);
        }
        cgraph->grads[h] = cgraph->grad_accs[h];
        w.needed[h] = true;
    }

    for (int i = n_fwd - 1; i >= 0; i--) {
        backward_node(&w, cgraph->nodes[i]);
    }
    free(w.needed);
}

// The accumulators before an evaluation: the loss's gradient 1, every other
// 0, and AdamW's moments 0 (a new optimization starts).
void ggml_graph_reset(struct ggml_cgraph * cgraph) {
    if (cgraph == NULL) {
        return;
    }
    GGML_ASSERT(cgraph->grads != NULL && "ggml_graph_reset needs a graph with gradients");
    for (int i = 0; i < cgraph->n_nodes; i++) {
        struct ggml_tensor * node = cgraph->nodes[i];
        struct ggml_tensor * acc = ggml_graph_get_grad_acc(cgraph, node);
        if (node->op == GGML_OP_OPT_STEP_ADAMW) {
            ggml_set_zero(node->src[2]);
            ggml_set_zero(node->src[3]);
        }
        if (acc == NULL) {
            continue;
        }
        if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            GGML_ASSERT(acc->type == GGML_TYPE_F32 && ggml_is_scalar(acc));
            const float one = 1.0f;
            if (acc->buffer != NULL) {
                ggml_backend_tensor_set(acc, &one, 0, sizeof(one));
            } else {
                GGML_ASSERT(acc->data != NULL);
                memcpy(acc->data, &one, sizeof(one));
            }
        } else {
            ggml_set_zero(acc);
        }
    }
}
