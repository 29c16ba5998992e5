/*
 * ggml-ops.c - graph op constructors.
 *
 * A constructor checks its operands (GGML_ASSERT: a wrong shape or type is a
 * caller error, as upstream treats it), creates the result tensor, records
 * the op, its sources and its op_params. Nothing is computed here.
 *
 * The op_params layout of every op is written next to its constructor; the
 * backends read them with ggml_get_op_params_i32/_f32 (ggml-impl.h), and the
 * layouts are upstream's so that graphs built elsewhere compute the same.
 * _inplace variants return a view of their first operand: the op writes its
 * result into that operand's memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

#include <math.h>

// the result of an op on a: a new tensor like a, or a view of a
static struct ggml_tensor * result_like(struct ggml_context * ctx, struct ggml_tensor * a, bool inplace) {
    return inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
}

// rows packed inside each dimension above 0 (padding only between rows)
static bool is_padded_1d(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) &&
           t->nb[2] == t->nb[1] * (size_t) t->ne[1] &&
           t->nb[3] == t->nb[2] * (size_t) t->ne[2];
}

// ---------------------------------------------------------------------------
// DUP, CPY, CONT, casts
// ---------------------------------------------------------------------------

// DUP: src[0] = a; no op_params
static struct ggml_tensor * dup_impl(struct ggml_context * ctx, struct ggml_tensor * a, bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    result->op     = GGML_OP_DUP;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a) {
    return dup_impl(ctx, a, false);
}

struct ggml_tensor * ggml_dup_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return dup_impl(ctx, a, true);
}

// CPY: src[0] = a (source), src[1] = b (destination); result = view of b;
// no op_params. Element counts must match, shapes need not.
struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_nelements(a) == ggml_nelements(b) && "ggml_cpy: element counts differ");
    struct ggml_tensor * result = ggml_view_tensor(ctx, b);
    if (b->name[0] != '\0') {
        ggml_format_name(result, "%s (copy of %s)", b->name, a->name);
    } else {
        ggml_format_name(result, "%s (copy)", a->name);
    }
    result->op     = GGML_OP_CPY;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// a CPY into a new tensor of type
struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type) {
    struct ggml_tensor * result = ggml_new_tensor(ctx, type, GGML_MAX_DIMS, a->ne);
    ggml_format_name(result, "%s (copy)", a->name);
    result->op     = GGML_OP_CPY;
    result->src[0] = a;
    result->src[1] = result;
    return result;
}

// CONT: src[0] = a; no op_params; result contiguous with the given shape
struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    GGML_ASSERT(ggml_nelements(a) == ne0 * ne1 * ne2 * ne3 && "ggml_cont: element counts differ");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type, ne0, ne1, ne2, ne3);
    ggml_format_name(result, "%s (cont)", a->name);
    result->op     = GGML_OP_CONT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_cont_4d(ctx, a, a->ne[0], a->ne[1], a->ne[2], a->ne[3]);
}

struct ggml_tensor * ggml_cont_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    return ggml_cont_4d(ctx, a, ne0, 1, 1, 1);
}

struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    return ggml_cont_4d(ctx, a, ne0, ne1, 1, 1);
}

struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, int64_t ne2) {
    return ggml_cont_4d(ctx, a, ne0, ne1, ne2, 1);
}

// ---------------------------------------------------------------------------
// Views: RESHAPE, VIEW, PERMUTE, TRANSPOSE (no computation; result->view_src
// is the viewed tensor, result->view_offs the byte offset into it)
// ---------------------------------------------------------------------------

// RESHAPE: src[0] = a; no op_params; a must be contiguous
static struct ggml_tensor * reshape_impl(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims, const int64_t * ne) {
    GGML_ASSERT(ggml_is_contiguous(a) && "ggml_reshape: tensor must be contiguous");
    int64_t n = 1;
    for (int i = 0; i < n_dims; i++) {
        n *= ne[i];
    }
    GGML_ASSERT(ggml_nelements(a) == n && "ggml_reshape: element counts differ");
    struct ggml_tensor * result = ggml_new_view_impl(ctx, a, n_dims, ne, 0);
    ggml_format_name(result, "%s (reshaped)", a->name);
    result->op     = GGML_OP_RESHAPE;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_reshape(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return reshape_impl(ctx, a, GGML_MAX_DIMS, b->ne);
}

struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    const int64_t ne[1] = { ne0 };
    return reshape_impl(ctx, a, 1, ne);
}

struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = { ne0, ne1 };
    return reshape_impl(ctx, a, 2, ne);
}

struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a,
                                     int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return reshape_impl(ctx, a, 3, ne);
}

struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                     int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return reshape_impl(ctx, a, 4, ne);
}

// VIEW: src[0] = a; op_params = the byte offset (a size_t in op_params[0..1])
static struct ggml_tensor * view_impl(struct ggml_context * ctx, struct ggml_tensor * a,
                                      int n_dims, const int64_t * ne, size_t offset) {
    struct ggml_tensor * result = ggml_new_view_impl(ctx, a, n_dims, ne, offset);
    ggml_format_name(result, "%s (view)", a->name);
    ggml_set_op_params(result, &offset, sizeof(offset));
    result->op     = GGML_OP_VIEW;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset) {
    const int64_t ne[1] = { ne0 };
    return view_impl(ctx, a, 1, ne, offset);
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, size_t nb1, size_t offset) {
    const int64_t ne[2] = { ne0, ne1 };
    struct ggml_tensor * result = view_impl(ctx, a, 2, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = result->nb[1] * (size_t) ne1;
    result->nb[3] = result->nb[2];
    return result;
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, int64_t ne2, size_t nb1, size_t nb2, size_t offset) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    struct ggml_tensor * result = view_impl(ctx, a, 3, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = nb2;
    result->nb[3] = result->nb[2] * (size_t) ne2;
    return result;
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
                                  size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    struct ggml_tensor * result = view_impl(ctx, a, 4, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = nb2;
    result->nb[3] = nb3;
    return result;
}

// PERMUTE: src[0] = a; op_params = int32 { axis0, axis1, axis2, axis3 }:
// dimension i of a becomes dimension axis<i> of the result
struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int axis0, int axis1, int axis2, int axis3) {
    const int axes[4] = { axis0, axis1, axis2, axis3 };
    for (int i = 0; i < 4; i++) {
        GGML_ASSERT(axes[i] >= 0 && axes[i] < GGML_MAX_DIMS && "ggml_permute: axis out of range");
        for (int j = 0; j < i; j++) {
            GGML_ASSERT(axes[i] != axes[j] && "ggml_permute: axes must be distinct");
        }
    }
    struct ggml_tensor * result = ggml_new_view_impl(ctx, a, GGML_MAX_DIMS, a->ne, 0);
    ggml_format_name(result, "%s (permuted)", a->name);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[axes[i]] = a->ne[i];
        result->nb[axes[i]] = a->nb[i];
    }
    result->op     = GGML_OP_PERMUTE;
    result->src[0] = a;
    const int32_t params[4] = { axis0, axis1, axis2, axis3 };
    ggml_set_op_params(result, params, sizeof(params));
    return result;
}

// TRANSPOSE: src[0] = a; no op_params; swaps dimensions 0 and 1
struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a) {
    struct ggml_tensor * result = ggml_new_view_impl(ctx, a, GGML_MAX_DIMS, a->ne, 0);
    ggml_format_name(result, "%s (transposed)", a->name);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = a->nb[i];
    }
    result->ne[0] = a->ne[1];
    result->ne[1] = a->ne[0];
    result->nb[0] = a->nb[1];
    result->nb[1] = a->nb[0];
    result->op     = GGML_OP_TRANSPOSE;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// Element-wise binary ops: ADD, SUB, MUL, DIV (b broadcast over a), ADD1
// src[0] = a, src[1] = b; no op_params; result has a's type and shape
// ---------------------------------------------------------------------------

static struct ggml_tensor * binary_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        enum ggml_op op, bool inplace) {
    if (!ggml_can_repeat(b, a)) {
        GGML_ABORT("%s: b [%lld, %lld, %lld, %lld] cannot be broadcast to a [%lld, %lld, %lld, %lld]",
                   ggml_op_name(op), (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2],
                   (long long) b->ne[3], (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2],
                   (long long) a->ne[3]);
    }
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    result->op     = op;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ADD with a result of another type: a quantized, F16 or BF16, b broadcast
// over a's rows (same row length)
struct ggml_tensor * ggml_add_cast(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   enum ggml_type type) {
    GGML_ASSERT(b->ne[0] == a->ne[0] && ggml_can_repeat(b, a) && "ggml_add_cast: b must repeat over a's rows");
    GGML_ASSERT((ggml_is_quantized(a->type) || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16) &&
                "ggml_add_cast: a must be quantized, F16 or BF16");
    struct ggml_tensor * result = ggml_new_tensor(ctx, type, GGML_MAX_DIMS, a->ne);
    result->op     = GGML_OP_ADD;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_ADD, false);
}

struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_ADD, true);
}

struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_SUB, false);
}

struct ggml_tensor * ggml_sub_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_SUB, true);
}

struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_MUL, false);
}

struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_MUL, true);
}

struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_DIV, false);
}

struct ggml_tensor * ggml_div_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_DIV, true);
}

// ADD1: a + the single element of b
static struct ggml_tensor * add1_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, bool inplace) {
    GGML_ASSERT(ggml_is_scalar(b) && "ggml_add1: b must have one element");
    GGML_ASSERT(is_padded_1d(a) && "ggml_add1: a must have packed rows");
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    result->op     = GGML_OP_ADD1;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return add1_impl(ctx, a, b, false);
}

struct ggml_tensor * ggml_add1_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return add1_impl(ctx, a, b, true);
}

// ---------------------------------------------------------------------------
// Element-wise unary math ops: SQR, SQRT, LOG, SIN, COS
// src[0] = a; no op_params
// ---------------------------------------------------------------------------

static struct ggml_tensor * map_impl(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op op, bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    result->op     = op;
    result->src[0] = a;
    return result;
}

#define MAP_OP(name, OP)                                                                    \
    struct ggml_tensor * ggml_##name(struct ggml_context * ctx, struct ggml_tensor * a) {         \
        return map_impl(ctx, a, OP, false);                                                 \
    }                                                                                       \
    struct ggml_tensor * ggml_##name##_inplace(struct ggml_context * ctx, struct ggml_tensor * a) { \
        return map_impl(ctx, a, OP, true);                                                  \
    }

MAP_OP(sqr,  GGML_OP_SQR)
MAP_OP(sqrt, GGML_OP_SQRT)
MAP_OP(log,  GGML_OP_LOG)
MAP_OP(sin,  GGML_OP_SIN)
MAP_OP(cos,  GGML_OP_COS)

// ---------------------------------------------------------------------------
// Reductions: SUM, SUM_ROWS, MEAN, ARGMAX, ARGSORT (src[0] = a)
// ---------------------------------------------------------------------------

// SUM: no op_params; one element of a's type
struct ggml_tensor * ggml_sum(struct ggml_context * ctx, struct ggml_tensor * a) {
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, a->type, 1);
    result->op     = GGML_OP_SUM;
    result->src[0] = a;
    return result;
}

// SUM_ROWS: no op_params; [1, ne1, ne2, ne3] of a's type
struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a) {
    int64_t ne[GGML_MAX_DIMS] = { 1, a->ne[1], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    result->op     = GGML_OP_SUM_ROWS;
    result->src[0] = a;
    return result;
}

// MEAN: no op_params; [1, ne1, ne2, ne3] F32
struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a) {
    int64_t ne[GGML_MAX_DIMS] = { 1, a->ne[1], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, ne);
    result->op     = GGML_OP_MEAN;
    result->src[0] = a;
    return result;
}

// ARGMAX: no op_params; a is a matrix; I32 [ne1]
struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_ASSERT(ggml_is_matrix(a) && "ggml_argmax: a must be a matrix");
    GGML_ASSERT(a->ne[0] <= INT32_MAX);
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, a->ne[1]);
    result->op     = GGML_OP_ARGMAX;
    result->src[0] = a;
    return result;
}

// ARGSORT: op_params = int32 { order (enum ggml_sort_order) }; I32, a's shape
struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order) {
    GGML_ASSERT(a->ne[0] <= INT32_MAX);
    GGML_ASSERT(order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC);
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_I32, GGML_MAX_DIMS, a->ne);
    ggml_set_op_params_i32(result, 0, (int32_t) order);
    result->op     = GGML_OP_ARGSORT;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// REPEAT, CONCAT
// ---------------------------------------------------------------------------

// REPEAT: src[0] = a; no op_params; a tiled to the result's shape
static struct ggml_tensor * repeat_impl(struct ggml_context * ctx, struct ggml_tensor * a, const int64_t * ne) {
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    GGML_ASSERT(ggml_can_repeat(a, result) && "ggml_repeat: target shape is not a multiple of a's");
    result->op     = GGML_OP_REPEAT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_can_repeat(a, b) && "ggml_repeat: b's shape is not a multiple of a's");
    return repeat_impl(ctx, a, b->ne);
}

struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                    int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    const bool ok = ggml_is_empty(a) ||
        (ne0 % a->ne[0] == 0 && ne1 % a->ne[1] == 0 && ne2 % a->ne[2] == 0 && ne3 % a->ne[3] == 0);
    GGML_ASSERT(ok && "ggml_repeat_4d: target shape is not a multiple of a's");
    return repeat_impl(ctx, a, ne);
}

// CONCAT: src[0] = a, src[1] = b; op_params = int32 { dim }
struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim) {
    GGML_ASSERT(dim >= 0 && dim < GGML_MAX_DIMS && "ggml_concat: dim out of range");
    GGML_ASSERT(a->type == b->type && "ggml_concat: types differ");
    int64_t ne[GGML_MAX_DIMS];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (d == dim) {
            ne[d] = a->ne[d] + b->ne[d];
            continue;
        }
        GGML_ASSERT(a->ne[d] == b->ne[d] && "ggml_concat: shapes differ outside dim");
        ne[d] = a->ne[d];
    }
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    ggml_set_op_params_i32(result, 0, dim);
    result->op     = GGML_OP_CONCAT;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// UNARY: src[0] = a; op_params = int32 { enum ggml_unary_op }
// ---------------------------------------------------------------------------

static struct ggml_tensor * unary_impl(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op, bool inplace) {
    GGML_ASSERT(op >= 0 && op < GGML_UNARY_OP_COUNT);
    GGML_ASSERT(ggml_is_contiguous_rows(a) && "unary ops need rows with contiguous elements");
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    result->op     = GGML_OP_UNARY;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return unary_impl(ctx, a, op, false);
}

struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return unary_impl(ctx, a, op, true);
}

#define UNARY_OP(name, OP)                                                                  \
    struct ggml_tensor * ggml_##name(struct ggml_context * ctx, struct ggml_tensor * a) {         \
        return unary_impl(ctx, a, OP, false);                                               \
    }
#define UNARY_OP_INPLACE(name, OP)                                                          \
    UNARY_OP(name, OP)                                                                      \
    struct ggml_tensor * ggml_##name##_inplace(struct ggml_context * ctx, struct ggml_tensor * a) { \
        return unary_impl(ctx, a, OP, true);                                                \
    }

UNARY_OP_INPLACE(abs,        GGML_UNARY_OP_ABS)
UNARY_OP_INPLACE(sgn,        GGML_UNARY_OP_SGN)
UNARY_OP_INPLACE(neg,        GGML_UNARY_OP_NEG)
UNARY_OP_INPLACE(step,       GGML_UNARY_OP_STEP)
UNARY_OP_INPLACE(tanh,       GGML_UNARY_OP_TANH)
UNARY_OP_INPLACE(elu,        GGML_UNARY_OP_ELU)
UNARY_OP_INPLACE(relu,       GGML_UNARY_OP_RELU)
UNARY_OP_INPLACE(sigmoid,    GGML_UNARY_OP_SIGMOID)
UNARY_OP_INPLACE(gelu,       GGML_UNARY_OP_GELU)
UNARY_OP_INPLACE(gelu_quick, GGML_UNARY_OP_GELU_QUICK)
UNARY_OP_INPLACE(silu,       GGML_UNARY_OP_SILU)
UNARY_OP(hardswish,          GGML_UNARY_OP_HARDSWISH)
UNARY_OP(hardsigmoid,        GGML_UNARY_OP_HARDSIGMOID)
UNARY_OP_INPLACE(exp,        GGML_UNARY_OP_EXP)
UNARY_OP_INPLACE(expm1,      GGML_UNARY_OP_EXPM1)
UNARY_OP_INPLACE(softplus,   GGML_UNARY_OP_SOFTPLUS)
UNARY_OP_INPLACE(gelu_erf,   GGML_UNARY_OP_GELU_ERF)
UNARY_OP_INPLACE(floor,      GGML_UNARY_OP_FLOOR)
UNARY_OP_INPLACE(ceil,       GGML_UNARY_OP_CEIL)
UNARY_OP_INPLACE(round,      GGML_UNARY_OP_ROUND)
UNARY_OP_INPLACE(trunc,      GGML_UNARY_OP_TRUNC)

// XIELU (UNARY): op_params = int32 op, then float { alpha_n', alpha_p', beta,
// eps } with alpha_n' = beta + softplus(alpha_n), alpha_p' = softplus(alpha_p):
// x > 0: alpha_p' x^2 + beta x; else alpha_n' (expm1(min(x, eps)) - x) + beta x
static float softplus_f(float x) {
    return x > 20.0f ? x : log1pf(expf(x));
}

struct ggml_tensor * ggml_xielu(struct ggml_context * ctx, struct ggml_tensor * a, float alpha_n, float alpha_p,
                                float beta, float eps) {
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_i32(result, 0, (int32_t) GGML_UNARY_OP_XIELU);
    ggml_set_op_params_f32(result, 1, beta + softplus_f(alpha_n));
    ggml_set_op_params_f32(result, 2, softplus_f(alpha_p));
    ggml_set_op_params_f32(result, 3, beta);
    ggml_set_op_params_f32(result, 4, eps);
    result->op     = GGML_OP_UNARY;
    result->src[0] = a;
    return result;
}

// LEAKY_RELU: src[0] = a; op_params = float { negative_slope }
struct ggml_tensor * ggml_leaky_relu(struct ggml_context * ctx, struct ggml_tensor * a, float negative_slope,
                                     bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_f32(result, 0, negative_slope);
    result->op     = GGML_OP_LEAKY_RELU;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// GLU: src[0] = a, src[1] = b (split form) or NULL (fused form);
// op_params = int32 { enum ggml_glu_op, swapped (0/1) }.
// Fused: a's rows hold [x | g], result ne[0] = a->ne[0] / 2;
// swapped: the activation applies to the second half. Split: x = a, g = b.
// ---------------------------------------------------------------------------

static struct ggml_tensor * glu_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     enum ggml_glu_op op, bool swapped) {
    GGML_ASSERT(op >= 0 && op < GGML_GLU_OP_COUNT);
    GGML_ASSERT(ggml_is_contiguous_1(a) && "glu: a needs rows with contiguous elements");
    int64_t ne[GGML_MAX_DIMS] = { a->ne[0], a->ne[1], a->ne[2], a->ne[3] };
    if (b != NULL) {
        GGML_ASSERT(ggml_is_contiguous_1(b) && "glu: b needs rows with contiguous elements");
        GGML_ASSERT(ggml_are_same_shape(a, b) && "glu: a and b must have the same shape");
        GGML_ASSERT(a->type == b->type && "glu: a and b must have the same type");
    } else {
        // an odd row's last element belongs to neither half (as upstream)
        ne[0] = a->ne[0] / 2;
    }
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    ggml_set_op_params_i32(result, 1, (int32_t) swapped);
    result->op     = GGML_OP_GLU;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped) {
    return glu_impl(ctx, a, NULL, op, swapped);
}

struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                    enum ggml_glu_op op) {
    return glu_impl(ctx, a, b, op, false);
}

#define GLU_OP(name, OP)                                                                            \
    struct ggml_tensor * ggml_##name(struct ggml_context * ctx, struct ggml_tensor * a) {                 \
        return glu_impl(ctx, a, NULL, OP, false);                                                   \
    }                                                                                               \
    struct ggml_tensor * ggml_##name##_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {       \
        return glu_impl(ctx, a, NULL, OP, true);                                                    \
    }                                                                                               \
    struct ggml_tensor * ggml_##name##_split(struct ggml_context * ctx, struct ggml_tensor * a,           \
                                             struct ggml_tensor * b) {                              \
        return glu_impl(ctx, a, b, OP, false);                                                      \
    }

GLU_OP(reglu,  GGML_GLU_OP_REGLU)
GLU_OP(geglu,  GGML_GLU_OP_GEGLU)
GLU_OP(swiglu, GGML_GLU_OP_SWIGLU)
GLU_OP(geglu_erf,   GGML_GLU_OP_GEGLU_ERF)
GLU_OP(geglu_quick, GGML_GLU_OP_GEGLU_QUICK)

// SWIGLU_OAI (split form only): op_params [2] = float alpha, [3] = float limit
struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     float alpha, float limit) {
    struct ggml_tensor * result = glu_impl(ctx, a, b, GGML_GLU_OP_SWIGLU_OAI, false);
    ggml_set_op_params_f32(result, 2, alpha);
    ggml_set_op_params_f32(result, 3, limit);
    return result;
}

// ---------------------------------------------------------------------------
// NORM, RMS_NORM: src[0] = a; op_params = float { eps }; along rows
// ---------------------------------------------------------------------------

static struct ggml_tensor * norm_impl(struct ggml_context * ctx, struct ggml_tensor * a, float eps,
                                      enum ggml_op op, bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_f32(result, 0, eps);
    result->op     = op;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_NORM, false);
}

struct ggml_tensor * ggml_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_NORM, true);
}

struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_RMS_NORM, false);
}

struct ggml_tensor * ggml_rms_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_RMS_NORM, true);
}

// L2_NORM: rows scaled to unit length, x / max(|x|, eps); op_params = float { eps }
struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_L2_NORM, false);
}

struct ggml_tensor * ggml_l2_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_L2_NORM, true);
}

// GROUP_NORM: the channels (dim 2) split into n_groups groups of
// ceil(ne2 / n_groups); each group of each dim-3 index normalized to zero
// mean and unit variance over its ne0 * ne1 * channels values.
// op_params = int32 n_groups, then float eps
static struct ggml_tensor * group_norm_impl(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps,
                                            bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_i32(result, 0, n_groups);
    ggml_set_op_params_f32(result, 1, eps);
    result->op     = GGML_OP_GROUP_NORM;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_group_norm(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps) {
    return group_norm_impl(ctx, a, n_groups, eps, false);
}

struct ggml_tensor * ggml_group_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps) {
    return group_norm_impl(ctx, a, n_groups, eps, true);
}

// ---------------------------------------------------------------------------
// MUL_MAT: src[0] = a (weights), src[1] = b; op_params = int32 { prec }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (a->ne[0] != b->ne[0] || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0) {
        GGML_ABORT("ggml_mul_mat: shapes a [%lld, %lld, %lld, %lld] and b [%lld, %lld, %lld, %lld] do not fit "
                   "(need a->ne[0] == b->ne[0] and b->ne[2..3] multiples of a->ne[2..3])",
                   (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3],
                   (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    GGML_ASSERT(!ggml_is_transposed(a) && "ggml_mul_mat: a must not be transposed");
    const int64_t ne[4] = { a->ne[1], b->ne[1], b->ne[2], b->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_MUL_MAT;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// op_params[1] of MUL_MAT: a hint about src0 a backend may use; the
// result is the same product whatever the hint.
void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint) {
    GGML_ASSERT(a->op == GGML_OP_MUL_MAT);
    ggml_set_op_params_i32(a, 1, (int32_t) hint);
}

void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    GGML_ASSERT(a->op == GGML_OP_MUL_MAT);
    ggml_set_op_params_i32(a, 0, (int32_t) prec);
}

// ---------------------------------------------------------------------------
// SCALE: src[0] = a; op_params = float { s, b }: s * a + b
// ---------------------------------------------------------------------------

static struct ggml_tensor * scale_impl(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b, bool inplace) {
    GGML_ASSERT(is_padded_1d(a) && "ggml_scale: a must have packed rows");
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_f32(result, 0, s);
    ggml_set_op_params_f32(result, 1, b);
    result->op     = GGML_OP_SCALE;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return scale_impl(ctx, a, s, 0.0f, false);
}

struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return scale_impl(ctx, a, s, 0.0f, true);
}

struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return scale_impl(ctx, a, s, b, false);
}

struct ggml_tensor * ggml_scale_bias_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return scale_impl(ctx, a, s, b, true);
}

// ---------------------------------------------------------------------------
// GET_ROWS: src[0] = a (data), src[1] = b (I32 row numbers); no op_params.
// Result F32 (I32 for I32 data) [a->ne[0], b->ne[0], b->ne[1], b->ne[2]].
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(b->type == GGML_TYPE_I32 && "ggml_get_rows: row numbers must be I32");
    GGML_ASSERT(a->ne[2] == b->ne[1] && "ggml_get_rows: a->ne[2] must equal b->ne[1]");
    GGML_ASSERT(a->ne[3] == b->ne[2] && "ggml_get_rows: a->ne[3] must equal b->ne[2]");
    GGML_ASSERT(b->ne[3] == 1 && "ggml_get_rows: b must be at most 3-D");
    const enum ggml_type type = a->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, type, a->ne[0], b->ne[0], b->ne[1], b->ne[2]);
    result->op     = GGML_OP_GET_ROWS;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// SET_ROWS: result = view of a (destination); src[0] = b (F32/F16 rows),
// src[1] = c (I64/I32 row numbers), src[2] = a (so the write is ordered
// after a's producers, upstream's convention); no op_params.
struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   struct ggml_tensor * c) {
    GGML_ASSERT(a->ne[0] == b->ne[0] && "ggml_set_rows: row lengths differ");
    GGML_ASSERT(a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3] && "ggml_set_rows: a and b differ in dims 2-3");
    GGML_ASSERT(c->ne[0] == b->ne[1] && "ggml_set_rows: one row number per row of b");
    GGML_ASSERT(c->ne[1] > 0 && c->ne[2] > 0 && b->ne[2] % c->ne[1] == 0 && b->ne[3] % c->ne[2] == 0 &&
                "ggml_set_rows: c must broadcast over b's dims 2-3");
    GGML_ASSERT(c->ne[3] == 1 && "ggml_set_rows: c must be at most 3-D");
    GGML_ASSERT((b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16) && "ggml_set_rows: rows must be F32 or F16");
    GGML_ASSERT((c->type == GGML_TYPE_I64 || c->type == GGML_TYPE_I32) && "ggml_set_rows: row numbers must be I64 or I32");
    GGML_ASSERT(ggml_is_contiguous_rows(a) && "ggml_set_rows: destination rows must be contiguous");
    GGML_ASSERT(ggml_is_contiguous_rows(b) && "ggml_set_rows: source rows must be contiguous");
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    result->op     = GGML_OP_SET_ROWS;
    result->src[0] = b;
    result->src[1] = c;
    result->src[2] = a;
    return result;
}

// ---------------------------------------------------------------------------
// DIAG_MASK_INF, DIAG_MASK_ZERO: src[0] = a; op_params = int32 { n_past }
// ---------------------------------------------------------------------------

static struct ggml_tensor * diag_mask_impl(struct ggml_context * ctx, struct ggml_tensor * a, int n_past, enum ggml_op op,
                                           bool inplace) {
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_i32(result, 0, n_past);
    result->op     = op;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, GGML_OP_DIAG_MASK_INF, false);
}

struct ggml_tensor * ggml_diag_mask_inf_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, GGML_OP_DIAG_MASK_INF, true);
}

struct ggml_tensor * ggml_diag_mask_zero(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, GGML_OP_DIAG_MASK_ZERO, false);
}

struct ggml_tensor * ggml_diag_mask_zero_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, GGML_OP_DIAG_MASK_ZERO, true);
}

// ---------------------------------------------------------------------------
// SOFT_MAX: src[0] = a, src[1] = mask (or NULL), src[2] = sinks (NULL here);
// op_params = float { scale, max_bias }
// ---------------------------------------------------------------------------

static struct ggml_tensor * soft_max_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                          float scale, float max_bias, bool inplace) {
    GGML_ASSERT(ggml_is_contiguous(a) && "ggml_soft_max: a must be contiguous");
    if (mask != NULL) {
        GGML_ASSERT((mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && "ggml_soft_max: mask must be F16 or F32");
        GGML_ASSERT(ggml_is_contiguous(mask) && "ggml_soft_max: mask must be contiguous");
        GGML_ASSERT(mask->ne[0] == a->ne[0] && "ggml_soft_max: mask row length differs");
        GGML_ASSERT(mask->ne[1] >= a->ne[1] && "ggml_soft_max: mask has too few rows");
        GGML_ASSERT(a->ne[2] % mask->ne[2] == 0 && a->ne[3] % mask->ne[3] == 0 &&
                    "ggml_soft_max: mask must broadcast over a's dims 2-3");
    }
    if (max_bias > 0.0f) {
        GGML_ASSERT(mask != NULL && "ggml_soft_max: ALiBi (max_bias > 0) needs a mask");
    }
    struct ggml_tensor * result = result_like(ctx, a, inplace);
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    result->op     = GGML_OP_SOFT_MAX;
    result->src[0] = a;
    result->src[1] = mask;
    return result;
}

struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a) {
    return soft_max_impl(ctx, a, NULL, 1.0f, 0.0f, false);
}

struct ggml_tensor * ggml_soft_max_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return soft_max_impl(ctx, a, NULL, 1.0f, 0.0f, true);
}

struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                       float scale, float max_bias) {
    return soft_max_impl(ctx, a, mask, scale, max_bias, false);
}

struct ggml_tensor * ggml_soft_max_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                               float scale, float max_bias) {
    return soft_max_impl(ctx, a, mask, scale, max_bias, true);
}

// the dimension at which the wavelength of rope's dims reaches n_rot full
// turns over n_ctx_orig positions
static float yarn_corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    return (float) n_dims * logf((float) n_ctx_orig / (n_rot * 2.0f * (float) M_PI)) / (2.0f * logf(base));
}

void ggml_rope_yarn_corr_dims(int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow,
                              float dims[2]) {
    const float start = floorf(yarn_corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base));
    const float end   = ceilf(yarn_corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base));
    dims[0] = start > 0.0f ? start : 0.0f;
    dims[1] = end < (float) (n_dims - 1) ? end : (float) (n_dims - 1);
}

// Attention sinks: one logit per head (a->ne[2] of them, F32) that joins
// each row's softmax denominator without a value; NULL removes them.
void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    if (sinks == NULL) {
        a->src[2] = NULL;
        return;
    }
    GGML_ASSERT(a->op == GGML_OP_SOFT_MAX);
    GGML_ASSERT(a->src[2] == NULL && "ggml_soft_max_add_sinks: the op has sinks already");
    GGML_ASSERT(a->src[0]->ne[2] == sinks->ne[0] && "ggml_soft_max_add_sinks: one sink per head");
    GGML_ASSERT(sinks->type == GGML_TYPE_F32);
    a->src[2] = sinks;
}

// ---------------------------------------------------------------------------
// ROPE: src[0] = a, src[1] = b (I32 positions), src[2] = c (F32 frequency
// factors or NULL). op_params (16 x 4 bytes):
//   [0] int   n_past (always 0)     [1] int   n_dims     [2] int mode
//   [3] int   n_ctx (unused, 0)     [4] int   n_ctx_orig
//   [5] float freq_base             [6] float freq_scale [7] float ext_factor
//   [8] float attn_factor           [9] float beta_fast  [10] float beta_slow
//   [11..14] int M-RoPE sections (ggml_rope_multi; else 0)  [15] int n_offs
// ---------------------------------------------------------------------------

static struct ggml_tensor * rope_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      struct ggml_tensor * c, int n_dims, const int * sections, int mode,
                                      int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                      float attn_factor, float beta_fast, float beta_slow, bool inplace) {
    GGML_ASSERT((mode & 1) == 0 && "ggml_rope: mode bit 0 (skip n_past) is not supported");
    GGML_ASSERT(ggml_is_vector(b) && "ggml_rope: positions must be a vector");
    GGML_ASSERT(b->type == GGML_TYPE_I32 && "ggml_rope: positions must be I32");
    if (mode & GGML_ROPE_TYPE_MROPE) {
        GGML_ASSERT(a->ne[2] * 4 == b->ne[0] && "ggml_rope: M-RoPE needs 4 positions per token");
    } else {
        GGML_ASSERT(a->ne[2] == b->ne[0] && "ggml_rope: one position per a->ne[2]");
    }
    GGML_ASSERT(n_dims > 0 && n_dims <= a->ne[0] && n_dims % 2 == 0 && "ggml_rope: n_dims must be even and <= ne[0]");
    if (mode == GGML_ROPE_TYPE_VISION) {
        GGML_ASSERT(n_dims * 2 == a->ne[0] && "ggml_rope_multi: vision rope rotates (i, i + n_dims), n_dims = ne[0] / 2");
    }
    if ((mode & GGML_ROPE_TYPE_MROPE) && sections != NULL) {
        // sections count pairs; they may cover more than the row (as upstream's)
        GGML_ASSERT(sections[0] >= 0 && sections[1] >= 0 && sections[2] >= 0 && sections[3] >= 0 &&
                    sections[0] + sections[1] + sections[2] > 0 &&
                    "ggml_rope_multi: sections must be non-negative, not all zero");
    }
    if (c != NULL) {
        GGML_ASSERT(c->type == GGML_TYPE_F32 && "ggml_rope: frequency factors must be F32");
        GGML_ASSERT(c->ne[0] >= n_dims / 2 && "ggml_rope: need n_dims/2 frequency factors");
    }

    struct ggml_tensor * result = result_like(ctx, a, inplace);
    int32_t params[16] = { 0, n_dims, mode, 0, n_ctx_orig };
    memcpy(params + 5,  &freq_base,   sizeof(float));
    memcpy(params + 6,  &freq_scale,  sizeof(float));
    memcpy(params + 7,  &ext_factor,  sizeof(float));
    memcpy(params + 8,  &attn_factor, sizeof(float));
    memcpy(params + 9,  &beta_fast,   sizeof(float));
    memcpy(params + 10, &beta_slow,   sizeof(float));
    if ((mode & GGML_ROPE_TYPE_MROPE) && sections != NULL) {
        memcpy(params + 11, sections, sizeof(int32_t) * GGML_MROPE_SECTIONS);
    }
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_ROPE;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = c;
    return result;
}

struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                               int n_dims, int mode) {
    return rope_impl(ctx, a, b, NULL, n_dims, NULL, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, false);
}

struct ggml_tensor * ggml_rope_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                       int n_dims, int mode) {
    return rope_impl(ctx, a, b, NULL, n_dims, NULL, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, true);
}

struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig,
                                   float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                   float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, NULL, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                           struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig,
                                           float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                           float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, NULL, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, true);
}

// Multi-section rope (op_params [11..14] = sections): MROPE, IMROPE (the
// sections interleaved) and VISION; b holds 4 positions per token (t, h, w,
// e: b[i], b[i + n], b[i + 2n], b[i + 3n]).
struct ggml_tensor * ggml_rope_multi(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     struct ggml_tensor * c, int n_dims, int sections[GGML_MROPE_SECTIONS], int mode,
                                     int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                     float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, sections, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_multi_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                             struct ggml_tensor * c, int n_dims, int sections[GGML_MROPE_SECTIONS],
                                             int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                             float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, sections, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, true);
}

// the older names of ggml_rope_ext without frequency factors
struct ggml_tensor * ggml_rope_custom(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                      float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, NULL, n_dims, NULL, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                              float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, NULL, n_dims, NULL, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor,
                     beta_fast, beta_slow, true);
}

// op_params [15]: the rotated dims start at element n_offs of each row
// (the others are copied); not for VISION. a: a ROPE or ROPE_BACK. Returns a.
struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs) {
    GGML_ASSERT((a->op == GGML_OP_ROPE || a->op == GGML_OP_ROPE_BACK) && "ggml_rope_set_offset: not a rope");
    GGML_ASSERT(n_offs >= 0 && n_offs % 2 == 0 && "ggml_rope_set_offset: the offset must be even and non-negative");
    GGML_ASSERT(ggml_get_op_params_i32(a, 2) != GGML_ROPE_TYPE_VISION && "ggml_rope_set_offset: not for vision rope");
    GGML_ASSERT(n_offs + ggml_get_op_params_i32(a, 1) <= a->ne[0] && "ggml_rope_set_offset: the rotated dims pass the row");
    ggml_set_op_params_i32(a, 15, n_offs);
    return a;
}

// ---------------------------------------------------------------------------
// CLAMP: result = view of a; src[0] = a; op_params = float { min, max }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max) {
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, min);
    ggml_set_op_params_f32(result, 1, max);
    result->op     = GGML_OP_CLAMP;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// PAD: src[0] = a; op_params = int32 { lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3,
// 0 }: zeros before (lp) and after (rp) each dimension
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_pad_ext(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3) {
    const int32_t params[9] = { lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3, 0 };
    for (int i = 0; i < 8; i++) {
        GGML_ASSERT(params[i] >= 0 && "ggml_pad: padding must not be negative");
    }
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type,
        a->ne[0] + lp0 + rp0, a->ne[1] + lp1 + rp1, a->ne[2] + lp2 + rp2, a->ne[3] + lp3 + rp3);
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_PAD;
    result->src[0] = a;
    return result;
}

// op_params [8] = 1: the padding repeats a periodically instead of zeros
struct ggml_tensor * ggml_pad_ext_circular(struct ggml_context * ctx, struct ggml_tensor * a,
                                           int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3) {
    struct ggml_tensor * result = ggml_pad_ext(ctx, a, lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3);
    ggml_set_op_params_i32(result, 8, 1);
    return result;
}

struct ggml_tensor * ggml_pad_circular(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    return ggml_pad_ext_circular(ctx, a, 0, p0, 0, p1, 0, p2, 0, p3);
}

struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    return ggml_pad_ext(ctx, a, 0, p0, 0, p1, 0, p2, 0, p3);
}

// ---------------------------------------------------------------------------
// ARANGE: no sources; op_params = float { start, stop, step };
// F32 [ceil((stop - start) / step)]
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_arange(struct ggml_context * ctx, float start, float stop, float step) {
    GGML_ASSERT(stop > start && "ggml_arange: stop must exceed start");
    GGML_ASSERT(step > 0.0f && "ggml_arange: step must be positive");
    const int64_t steps = (int64_t) ceilf((stop - start) / step);
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, steps);
    ggml_set_op_params_f32(result, 0, start);
    ggml_set_op_params_f32(result, 1, stop);
    ggml_set_op_params_f32(result, 2, step);
    result->op = GGML_OP_ARANGE;
    return result;
}

// ---------------------------------------------------------------------------
// FLASH_ATTN_EXT: src[0] = q, src[1] = k, src[2] = v, src[3] = mask (or
// NULL), src[4] = sinks (NULL here); op_params = float { scale, max_bias,
// logit_softcap }, then int32 [3] = prec (enum ggml_prec).
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                         struct ggml_tensor * v, struct ggml_tensor * mask,
                                         float scale, float max_bias, float logit_softcap) {
    GGML_ASSERT(k->ne[0] == q->ne[0] && "ggml_flash_attn_ext: q and k row lengths differ");
    GGML_ASSERT(q->ne[2] % k->ne[2] == 0 && q->ne[3] % k->ne[3] == 0 &&
                "ggml_flash_attn_ext: k heads/batches must divide q's");
    GGML_ASSERT(v->ne[1] == k->ne[1] && v->ne[2] == k->ne[2] && v->ne[3] == k->ne[3] &&
                "ggml_flash_attn_ext: k and v differ in dims 1-3");
    if (mask != NULL) {
        GGML_ASSERT((mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && "ggml_flash_attn_ext: mask must be F16 or F32");
        GGML_ASSERT(ggml_is_contiguous(mask) && "ggml_flash_attn_ext: mask must be contiguous");
        GGML_ASSERT(mask->ne[0] >= k->ne[1] && "ggml_flash_attn_ext: mask rows must cover n_kv");
        GGML_ASSERT(mask->ne[1] >= q->ne[1] && "ggml_flash_attn_ext: mask has fewer rows than queries");
        GGML_ASSERT(q->ne[2] % mask->ne[2] == 0 && q->ne[3] % mask->ne[3] == 0 &&
                    "ggml_flash_attn_ext: mask must broadcast over heads and batches");
    }
    if (max_bias > 0.0f) {
        GGML_ASSERT(mask != NULL && "ggml_flash_attn_ext: ALiBi (max_bias > 0) needs a mask");
    }
    const int64_t ne[4] = { v->ne[0], q->ne[2], q->ne[1], q->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    ggml_set_op_params_f32(result, 2, logit_softcap);
    ggml_set_op_params_i32(result, 3, GGML_PREC_DEFAULT);
    result->op     = GGML_OP_FLASH_ATTN_EXT;
    result->src[0] = q;
    result->src[1] = k;
    result->src[2] = v;
    result->src[3] = mask;
    return result;
}

// sinks as for ggml_soft_max_add_sinks, one per query head (src[4])
void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    if (sinks == NULL) {
        a->src[4] = NULL;
        return;
    }
    GGML_ASSERT(a->op == GGML_OP_FLASH_ATTN_EXT);
    GGML_ASSERT(a->src[4] == NULL && "ggml_flash_attn_ext_add_sinks: the op has sinks already");
    GGML_ASSERT(a->src[0]->ne[2] == sinks->ne[0] && "ggml_flash_attn_ext_add_sinks: one sink per query head");
    GGML_ASSERT(sinks->type == GGML_TYPE_F32);
    a->src[4] = sinks;
}

void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    GGML_ASSERT(a->op == GGML_OP_FLASH_ATTN_EXT);
    ggml_set_op_params_i32(a, 3, (int32_t) prec);
}

enum ggml_prec ggml_flash_attn_ext_get_prec(const struct ggml_tensor * a) {
    GGML_ASSERT(a->op == GGML_OP_FLASH_ATTN_EXT);
    return (enum ggml_prec) ggml_get_op_params_i32(a, 3);
}
