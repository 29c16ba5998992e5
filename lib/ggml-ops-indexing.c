/*
 * ggml-ops-indexing.c - constructors of the ops that select, place or
 * rearrange elements: ACC, SET, ADD_ID, MUL_MAT_ID, TOP_K (and the argsort
 * form of top-k), FILL, CUMSUM, ROLL, PAD_REFLECT_1D, COUNT_EQUAL, TRI,
 * DIAG, OUT_PROD, GET_REL_POS, ADD_REL_POS, SOLVE_TRI, LIGHTNING_INDEXER,
 * WIN_PART, WIN_UNPART.
 *
 * As in ggml-ops.c, a constructor only checks its operands, records the op,
 * its sources and its op_params (upstream's layouts, written next to each).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

#include <stdlib.h>

// ---------------------------------------------------------------------------
// ACC, SET: b written (SET) or added (ACC) into a view of a copy of a (or of
// a itself, inplace) described by strides nb1..nb3 and a byte offset.
// src[0] = a, src[1] = b; op_params = int32 { nb1, nb2, nb3, offset, inplace }
// ---------------------------------------------------------------------------

static struct ggml_tensor * acc_set_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         size_t nb1, size_t nb2, size_t nb3, size_t offset, bool inplace,
                                         enum ggml_op op) {
    GGML_ASSERT(ggml_nelements(b) <= ggml_nelements(a) && "acc/set: b has more elements than a");
    GGML_ASSERT(nb1 <= INT32_MAX && nb2 <= INT32_MAX && nb3 <= INT32_MAX && offset < ((size_t) 1 << 30) &&
                "acc/set: strides and offset must fit the op params");
    if (op == GGML_OP_ACC) {
        GGML_ASSERT(ggml_is_contiguous(a) && "ggml_acc: a must be contiguous");
        GGML_ASSERT(a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 && "ggml_acc: F32 only");
    }
    struct ggml_tensor * result = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    const int32_t params[] = { (int32_t) nb1, (int32_t) nb2, (int32_t) nb3, (int32_t) offset, inplace ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = op;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_acc(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                              size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, nb2, nb3, offset, false, GGML_OP_ACC);
}

struct ggml_tensor * ggml_acc_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, nb2, nb3, offset, true, GGML_OP_ACC);
}

struct ggml_tensor * ggml_set(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                              size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, nb2, nb3, offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, nb2, nb3, offset, true, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 size_t offset) {
    return acc_set_impl(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_1d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         size_t offset) {
    return acc_set_impl(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, true, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 size_t nb1, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, a->nb[2], a->nb[3], offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_2d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         size_t nb1, size_t offset) {
    return acc_set_impl(ctx, a, b, nb1, a->nb[2], a->nb[3], offset, true, GGML_OP_SET);
}

// ---------------------------------------------------------------------------
// ADD_ID: result[:, i1, i2] = a[:, i1, i2] + b[:, ids[i1, i2]] (the bias of
// the expert each row was routed to). src[0] = a, src[1] = b, src[2] = ids
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 struct ggml_tensor * ids) {
    GGML_ASSERT(a->ne[0] == b->ne[0] && "ggml_add_id: row lengths differ");
    GGML_ASSERT(a->ne[1] == ids->ne[0] && a->ne[2] == ids->ne[1] && "ggml_add_id: one id per row of a");
    GGML_ASSERT(ids->type == GGML_TYPE_I32 && "ggml_add_id: ids must be I32");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    result->op     = GGML_OP_ADD_ID;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = ids;
    return result;
}

// ---------------------------------------------------------------------------
// MUL_MAT_ID: as [k, rows, n_expert], b [k, n_b, n_tokens], ids [n_used,
// n_tokens] (I32); result [rows, n_used, n_tokens] F32 with
// result[:, e, t] = as[:, :, ids[e, t]] x b[:, e % n_b, t].
// src[0] = as, src[1] = b, src[2] = ids; no op_params
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b,
                                     struct ggml_tensor * ids) {
    GGML_ASSERT(!ggml_is_transposed(as) && "ggml_mul_mat_id: as must not be transposed");
    GGML_ASSERT(ids->type == GGML_TYPE_I32 && "ggml_mul_mat_id: ids must be I32");
    GGML_ASSERT(as->ne[3] == 1 && "ggml_mul_mat_id: as holds one matrix per expert (3-D)");
    GGML_ASSERT(b->ne[3] == 1 && "ggml_mul_mat_id: b must be 3-D");
    GGML_ASSERT(ids->ne[2] == 1 && ids->ne[3] == 1 && "ggml_mul_mat_id: ids must be 2-D");
    GGML_ASSERT(ids->ne[1] == b->ne[2] && "ggml_mul_mat_id: one expert list per token of b");
    GGML_ASSERT(as->ne[0] == b->ne[0] && "ggml_mul_mat_id: row lengths differ");
    GGML_ASSERT(ids->ne[0] % b->ne[1] == 0 && "ggml_mul_mat_id: b's dim 1 must broadcast over ids' dim 0");
    const int64_t ne[4] = { as->ne[1], ids->ne[0], b->ne[2], 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_MUL_MAT_ID;
    result->src[0] = as;
    result->src[1] = b;
    result->src[2] = ids;
    return result;
}

// ---------------------------------------------------------------------------
// Top-k. ggml_argsort_top_k: the first k columns of a descending ARGSORT
// (a view, indices in descending order of value). TOP_K: I32 [k, ne1..3],
// the indices of the k largest values of each row in no promised order
// (upstream's CPU backend shuffles them; this one writes them descending).
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    GGML_ASSERT(k >= 0 && a->ne[0] >= k && "ggml_argsort_top_k: k exceeds the row length");
    struct ggml_tensor * sorted = ggml_argsort(ctx, a, GGML_SORT_ORDER_DESC);
    return ggml_view_4d(ctx, sorted, k, sorted->ne[1], sorted->ne[2], sorted->ne[3],
                        sorted->nb[1], sorted->nb[2], sorted->nb[3], 0);
}

struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    GGML_ASSERT(k >= 0 && a->ne[0] >= k && "ggml_top_k: k exceeds the row length");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, GGML_TYPE_I32, k, a->ne[1], a->ne[2], a->ne[3]);
    result->op     = GGML_OP_TOP_K;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// FILL: every element of (a copy of) a set to c; op_params = float { c }
// ---------------------------------------------------------------------------

static struct ggml_tensor * fill_impl(struct ggml_context * ctx, struct ggml_tensor * a, float c, bool inplace) {
    GGML_ASSERT((a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && "ggml_fill: F32 or F16 only");
    GGML_ASSERT(ggml_is_contiguous(a) && "ggml_fill: a must be contiguous");
    struct ggml_tensor * result = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, c);
    result->op     = GGML_OP_FILL;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return fill_impl(ctx, a, c, false);
}

struct ggml_tensor * ggml_fill_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return fill_impl(ctx, a, c, true);
}

// ---------------------------------------------------------------------------
// CUMSUM: inclusive prefix sums along each row (F32); no op_params
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_cumsum(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 && "ggml_cumsum: F32 only");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    result->op     = GGML_OP_CUMSUM;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// ROLL: result[i] = a[(i - shift) mod ne] in every dim (elements pushed
// towards higher indices by a positive shift, wrapping around).
// op_params = int32 { shift0, shift1, shift2, shift3 }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_roll(struct ggml_context * ctx, struct ggml_tensor * a,
                               int shift0, int shift1, int shift2, int shift3) {
    GGML_ASSERT(a->nb[0] == ggml_type_size(a->type) && "ggml_roll: a needs contiguous rows");
    GGML_ASSERT(abs(shift0) < a->ne[0] && abs(shift1) < a->ne[1] && abs(shift2) < a->ne[2] &&
                abs(shift3) < a->ne[3] && "ggml_roll: |shift| must be less than the dimension");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    const int32_t params[] = { shift0, shift1, shift2, shift3 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_ROLL;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// PAD_REFLECT_1D: rows extended by p0 elements on the left and p1 on the
// right, mirrored about the first and last element (which are not repeated).
// op_params = int32 { p0, p1 }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_pad_reflect_1d(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1) {
    GGML_ASSERT(p0 >= 0 && p1 >= 0 && "ggml_pad_reflect_1d: negative padding");
    GGML_ASSERT(p0 < a->ne[0] && p1 < a->ne[0] && "ggml_pad_reflect_1d: padding must be shorter than the row");
    GGML_ASSERT(ggml_is_contiguous(a) && "ggml_pad_reflect_1d: a must be contiguous");
    GGML_ASSERT(a->type == GGML_TYPE_F32 && "ggml_pad_reflect_1d: F32 only");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type, a->ne[0] + p0 + p1, a->ne[1], a->ne[2], a->ne[3]);
    const int32_t params[] = { p0, p1 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_PAD_REFLECT_1D;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// COUNT_EQUAL: I64 [1], the number of positions where a and b (I32, same
// shape) hold the same value
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_count_equal(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_are_same_shape(a, b) && "ggml_count_equal: a and b differ in shape");
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 1);
    result->op     = GGML_OP_COUNT_EQUAL;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// TRI: square matrices (F32, contiguous) with the elements outside a
// triangle set to 0; element (column i0, row i1) kept when
// LOWER: i0 < i1, LOWER_DIAG: i0 <= i1, UPPER: i0 > i1, UPPER_DIAG: i0 >= i1.
// op_params = int32 { enum ggml_tri_type }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_tri(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_tri_type type) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 && ggml_is_contiguous(a) && "ggml_tri: contiguous F32 only");
    GGML_ASSERT(a->ne[0] == a->ne[1] && "ggml_tri: square matrices only");
    GGML_ASSERT(type >= GGML_TRI_TYPE_UPPER_DIAG && type <= GGML_TRI_TYPE_LOWER && "ggml_tri: unknown type");
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_i32(result, 0, (int32_t) type);
    result->op     = GGML_OP_TRI;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// DIAG: a row vector [n, 1, ne2, ne3] -> diagonal matrices [n, n, ne2, ne3]
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_diag(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_ASSERT(a->ne[1] == 1 && "ggml_diag: a must be a row vector per matrix");
    const int64_t ne[4] = { a->ne[0], a->ne[0], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, 4, ne);
    result->op     = GGML_OP_DIAG;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// OUT_PROD: a [n0, k, A2, A3], b [n1, k, B2, B3] (B2 % A2 == 0, B3 % A3 ==
// 0) -> F32 [n0, n1, B2, B3], result[i0, i1] = sum_j a[i0, j] * b[i1, j]
// (a broadcast over dims 2-3 as in MUL_MAT)
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_out_prod(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(a->ne[1] == b->ne[1] && b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
                "ggml_out_prod: shapes do not match");
    GGML_ASSERT(!ggml_is_transposed(a) && "ggml_out_prod: a must not be transposed");
    const int64_t ne[4] = { a->ne[0], b->ne[0], b->ne[2], b->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_OUT_PROD;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// GET_REL_POS: a [C, 2 qh - 1] -> F16 [C, kh, qh], result[:, j, i] =
// a[:, kh - 1 - j + i] (qh == kh)
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_get_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, int qh, int kh) {
    GGML_ASSERT(qh == kh && "ggml_get_rel_pos: qh must equal kh");
    GGML_ASSERT(2 * (int64_t) qh - 1 == a->ne[1] && "ggml_get_rel_pos: a needs 2 qh - 1 rows");
    const int64_t ne[4] = { a->ne[0], kh, qh, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F16, 3, ne);
    result->op     = GGML_OP_GET_REL_POS;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// ADD_REL_POS: a (F32, contiguous, [W*W, H*W', B...]) plus decomposed
// relative positions pw, ph (F32 [W, W', H, B]): for each element e of pw
// at flat index p (column i0 of its row): the W elements of a from p*W on
// get ph[p] added, and the W elements from p*W - (W-1)*i0 at stride W get
// pw[p] added. op_params = int32 { inplace }
// ---------------------------------------------------------------------------

static struct ggml_tensor * add_rel_pos_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pw,
                                             struct ggml_tensor * ph, bool inplace) {
    GGML_ASSERT(ggml_are_same_shape(pw, ph) && "ggml_add_rel_pos: pw and ph differ in shape");
    GGML_ASSERT(ggml_is_contiguous(a) && ggml_is_contiguous(pw) && ggml_is_contiguous(ph) &&
                "ggml_add_rel_pos: operands must be contiguous");
    GGML_ASSERT(pw->type == GGML_TYPE_F32 && ph->type == GGML_TYPE_F32 && a->type == GGML_TYPE_F32 &&
                "ggml_add_rel_pos: F32 only");
    GGML_ASSERT(pw->ne[3] == a->ne[2] && pw->ne[0] * pw->ne[0] == a->ne[0] && pw->ne[1] * pw->ne[2] == a->ne[1] &&
                "ggml_add_rel_pos: shapes do not match");
    struct ggml_tensor * result = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    ggml_set_op_params_i32(result, 0, inplace ? 1 : 0);
    result->op     = GGML_OP_ADD_REL_POS;
    result->src[0] = a;
    result->src[1] = pw;
    result->src[2] = ph;
    return result;
}

struct ggml_tensor * ggml_add_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pw,
                                      struct ggml_tensor * ph) {
    return add_rel_pos_impl(ctx, a, pw, ph, false);
}

struct ggml_tensor * ggml_add_rel_pos_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pw,
                                              struct ggml_tensor * ph) {
    return add_rel_pos_impl(ctx, a, pw, ph, true);
}

// ---------------------------------------------------------------------------
// SOLVE_TRI: X with A X = B, A lower triangular [n, n] (row i: A[:, i]),
// B and X [k, n] (k right-hand sides), batched over dims 2-3. F32,
// contiguous; only left, lower, non-unit (as upstream).
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_solve_tri(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, bool left,
                                    bool lower, bool uni) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 && "ggml_solve_tri: F32 only");
    GGML_ASSERT(a->ne[0] == a->ne[1] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3] &&
                "ggml_solve_tri: A must be square with B's rows");
    GGML_ASSERT(ggml_is_contiguous(a) && ggml_is_contiguous(b) && "ggml_solve_tri: operands must be contiguous");
    GGML_ASSERT(left && lower && !uni && "ggml_solve_tri: only left, lower, non-unit triangular systems");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, b->ne[0], b->ne[1], b->ne[2], b->ne[3]);
    result->op     = GGML_OP_SOLVE_TRI;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// LIGHTNING_INDEXER (sparse attention's key scores): q [E, Hq, T, S] F32,
// k [E, 1, n_kv, S], weights [Hq, T, 1, S] F32, mask [n_kv, T, 1, S'] F16
// (S % S' == 0) -> F32 [n_kv, T, 1, S]:
//   out[j, t, s] = sum_h max(q[:, h, t, s] . k[:, 0, j, s], 0) w[h, t, s] + mask[j, t, s % S']
// src[0..3] = q, k, weights, mask
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_lightning_indexer(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                           struct ggml_tensor * weights, struct ggml_tensor * mask) {
    GGML_ASSERT(q->type == GGML_TYPE_F32 && weights->type == GGML_TYPE_F32 && mask->type == GGML_TYPE_F16 &&
                "ggml_lightning_indexer: q and weights F32, mask F16");
    GGML_ASSERT(q->ne[0] == k->ne[0] && k->ne[1] == 1 && mask->ne[0] == k->ne[2] && "ggml_lightning_indexer: q, k, mask");
    GGML_ASSERT(q->ne[1] == weights->ne[0] && q->ne[2] == weights->ne[1] && weights->ne[2] == 1 &&
                mask->ne[1] == q->ne[2] && mask->ne[2] == 1 && "ggml_lightning_indexer: weights and mask shapes");
    GGML_ASSERT(q->ne[3] == k->ne[3] && k->ne[3] == weights->ne[3] && weights->ne[3] % mask->ne[3] == 0 &&
                "ggml_lightning_indexer: streams");
    const int64_t ne[4] = { k->ne[2], q->ne[2], 1, q->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_LIGHTNING_INDEXER;
    result->src[0] = q;
    result->src[1] = k;
    result->src[2] = weights;
    result->src[3] = mask;
    return result;
}

// ---------------------------------------------------------------------------
// WIN_PART: a [C, W, H, 1] (F32) cut into w x w windows, zero-padded at the
// right and bottom: [C, w, w, npx * npy], window py * npx + px holding
// a[:, px w + x, py w + y]. op_params = int32 { npx, npy, w }.
// WIN_UNPART: the inverse, [C, w, w, np] -> [C, w0, h0] (padding dropped);
// op_params = int32 { w }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_win_part(struct ggml_context * ctx, struct ggml_tensor * a, int w) {
    GGML_ASSERT(a->ne[3] == 1 && a->type == GGML_TYPE_F32 && "ggml_win_part: 3-D F32 only");
    GGML_ASSERT(w > 0 && "ggml_win_part: the window must be positive");
    const int npx = (int) ((a->ne[1] + w - 1) / w), npy = (int) ((a->ne[2] + w - 1) / w);
    const int64_t ne[4] = { a->ne[0], w, w, (int64_t) npx * npy };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { npx, npy, w };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_WIN_PART;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_win_unpart(struct ggml_context * ctx, struct ggml_tensor * a, int w0, int h0, int w) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 && "ggml_win_unpart: F32 only");
    GGML_ASSERT(w > 0 && w0 > 0 && h0 > 0 && a->ne[1] == w && a->ne[2] == w &&
                a->ne[3] >= ((w0 + w - 1) / w) * (int64_t) ((h0 + w - 1) / w) && "ggml_win_unpart: shapes do not match");
    const int64_t ne[4] = { a->ne[0], w0, h0, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 3, ne);
    ggml_set_op_params_i32(result, 0, w);
    result->op     = GGML_OP_WIN_UNPART;
    result->src[0] = a;
    return result;
}
