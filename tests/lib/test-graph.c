// SPDX-License-Identifier: MIT
//
// test-graph: graph building (order, dedup, leafs, use counts), graph view,
// copy, dup, clear, lookup; the tensor hash set and bitset; and every op
// constructor's result shape, type, sources, op_params and error checks.

#include "ggml.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-harness.h"
#include "test-abort.h"

static struct ggml_context * new_ctx(size_t size) {
    struct ggml_init_params p = { .mem_size = size, .mem_buffer = NULL, .no_alloc = true };
    return ggml_init(p);
}

static int32_t use_count(struct ggml_cgraph * g, struct ggml_tensor * t) {
    size_t i = ggml_hash_find(&g->visited_hash_set, t);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(g->visited_hash_set.used, i)) {
        return -1;
    }
    return g->use_counts[i];
}

static int index_of(struct ggml_tensor ** list, int n, const struct ggml_tensor * t) {
    for (int i = 0; i < n; i++) {
        if (list[i] == t) {
            return i;
        }
    }
    return -1;
}

static float op_f32(const struct ggml_tensor * t, int i) {
    return ggml_get_op_params_f32(t, (uint32_t) i);
}

static int32_t op_i32(const struct ggml_tensor * t, int i) {
    return ggml_get_op_params_i32(t, (uint32_t) i);
}

#define ASSERT_SHAPE(t, a, b, c, d) do {                          \
        ASSERT_EQ((int64_t) (a), (t)->ne[0]);                     \
        ASSERT_EQ((int64_t) (b), (t)->ne[1]);                     \
        ASSERT_EQ((int64_t) (c), (t)->ne[2]);                     \
        ASSERT_EQ((int64_t) (d), (t)->ne[3]);                     \
    } while (0)

// ---------------------------------------------------------------------------
// Hash set and bitset
// ---------------------------------------------------------------------------

TEST(hash_size_is_prime_and_enough) {
    const size_t asks[] = { 1, 2, 3, 4, 100, 4096, 4099, 4100, 100000, 3000000 };
    for (size_t k = 0; k < sizeof(asks) / sizeof(asks[0]); k++) {
        size_t n = ggml_hash_size(asks[k]);
        ASSERT_GE(n, asks[k]);
        ASSERT_LE(n, asks[k] * 2 + 64);
        for (size_t d = 2; d * d <= n; d++) {
            ASSERT_NE(0, n % d);
        }
    }
    ASSERT_EQ(4099, ggml_hash_size(4096));
}

TEST(hash_set_operations) {
    struct ggml_tensor tensors[300];
    struct ggml_hash_set set = ggml_hash_set_new(ggml_hash_size(300));
    ggml_hash_set_reset(&set);
    for (int i = 0; i < 300; i++) {
        ASSERT_FALSE(ggml_hash_contains(&set, &tensors[i]));
    }
    for (int i = 0; i < 300; i += 2) {
        size_t slot = ggml_hash_insert(&set, &tensors[i]);
        ASSERT_NE(GGML_HASHSET_ALREADY_EXISTS, slot);
        ASSERT_EQ(&tensors[i], set.keys[slot]);
        ASSERT_EQ(GGML_HASHSET_ALREADY_EXISTS, ggml_hash_insert(&set, &tensors[i]));
    }
    for (int i = 0; i < 300; i++) {
        ASSERT_EQ(i % 2 == 0, ggml_hash_contains(&set, &tensors[i]));
    }
    // find_or_insert: same slot for a present key, a new one otherwise
    size_t s0 = ggml_hash_find(&set, &tensors[0]);
    ASSERT_EQ(s0, ggml_hash_find_or_insert(&set, &tensors[0]));
    size_t s1 = ggml_hash_find_or_insert(&set, &tensors[1]);
    ASSERT_TRUE(ggml_hash_contains(&set, &tensors[1]));
    ASSERT_EQ(s1, ggml_hash_find(&set, &tensors[1]));
    ggml_hash_set_reset(&set);
    for (int i = 0; i < 300; i++) {
        ASSERT_FALSE(ggml_hash_contains(&set, &tensors[i]));
    }
    ggml_hash_set_free(&set);
}

TEST(hash_set_full) {
    struct ggml_tensor tensors[6];
    struct ggml_hash_set set = ggml_hash_set_new(5);
    ggml_hash_set_reset(&set);
    for (int i = 0; i < 5; i++) {
        ASSERT_NE(GGML_HASHSET_FULL, ggml_hash_insert(&set, &tensors[i]));
    }
    ASSERT_EQ(GGML_HASHSET_FULL, ggml_hash_find(&set, &tensors[5]));
    ASSERT_FALSE(ggml_hash_contains(&set, &tensors[5]));
    for (int i = 0; i < 5; i++) {
        ASSERT_TRUE(ggml_hash_contains(&set, &tensors[i]));
    }
    ggml_hash_set_free(&set);
}

TEST(bitset) {
    ggml_bitset_t bits[3] = { 0 };
    ASSERT_EQ(3, ggml_bitset_size(65));
    ASSERT_EQ(2, ggml_bitset_size(64));
    ggml_bitset_set(bits, 0);
    ggml_bitset_set(bits, 33);
    ggml_bitset_set(bits, 95);
    ASSERT_TRUE(ggml_bitset_get(bits, 0));
    ASSERT_TRUE(ggml_bitset_get(bits, 33));
    ASSERT_TRUE(ggml_bitset_get(bits, 95));
    ASSERT_FALSE(ggml_bitset_get(bits, 32));
    ASSERT_EQ(1u << 31, bits[2]);
    ggml_bitset_clear(bits, 33);
    ASSERT_FALSE(ggml_bitset_get(bits, 33));
    ASSERT_EQ(0, bits[1]);
}

// ---------------------------------------------------------------------------
// Graph building
// ---------------------------------------------------------------------------

TEST(build_order_and_dedup) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 16);
    struct ggml_tensor * n = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_name(x, "x");
    ggml_set_input(x);

    struct ggml_tensor * h  = ggml_rms_norm(ctx, x, 1e-5f);
    struct ggml_tensor * hn = ggml_mul(ctx, h, n);
    struct ggml_tensor * y  = ggml_mul_mat(ctx, w, hn);
    struct ggml_tensor * r  = ggml_add(ctx, ggml_sum_rows(ctx, y), ggml_sum_rows(ctx, y)); // two uses of y
    struct ggml_tensor * o  = ggml_add(ctx, r, r);                                       // same source twice

    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ASSERT_EQ(GGML_DEFAULT_GRAPH_SIZE, ggml_graph_size(g));
    ggml_build_forward_expand(g, o);

    ASSERT_EQ(7, ggml_graph_n_nodes(g)); // rms_norm, mul, mul_mat, 2x sum_rows, add, add
    ASSERT_EQ(3, g->n_leafs);
    ASSERT_EQ(o, ggml_graph_node(g, -1));
    ASSERT_EQ(o, ggml_graph_node(g, ggml_graph_n_nodes(g) - 1));
    ASSERT_EQ(h, ggml_graph_node(g, 0));
    ASSERT_EQ(g->nodes, ggml_graph_nodes(g));

    // leafs in visiting order: w (src[0] of mul_mat), x (under src[1]), n
    ASSERT_EQ(w, g->leafs[0]);
    ASSERT_EQ(x, g->leafs[1]);
    ASSERT_EQ(n, g->leafs[2]);

    // every node comes after its sources
    for (int i = 0; i < g->n_nodes; i++) {
        struct ggml_tensor * t = g->nodes[i];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (t->src[s] && t->src[s]->op != GGML_OP_NONE) {
                int j = index_of(g->nodes, g->n_nodes, t->src[s]);
                ASSERT_GE(j, 0);
                ASSERT_LT(j, i);
            }
        }
    }

    // use counts count source slots
    ASSERT_EQ(2, use_count(g, r));
    ASSERT_EQ(2, use_count(g, y));
    ASSERT_EQ(1, use_count(g, x));
    ASSERT_EQ(0, use_count(g, o));

    // unnamed tensors got node_/leaf_ names, named ones kept theirs
    ASSERT_STREQ("x", x->name);
    ASSERT_STREQ("leaf_0", w->name);
    ASSERT_STREQ("leaf_2", n->name);
    ASSERT_STREQ("node_0", h->name);
    ASSERT_EQ(h, ggml_graph_get_tensor(g, "node_0"));
    ASSERT_EQ(x, ggml_graph_get_tensor(g, "x"));
    ASSERT_NULL(ggml_graph_get_tensor(g, "missing"));

    // expanding again with something already there adds nothing
    ggml_build_forward_expand(g, y);
    ASSERT_EQ(7, g->n_nodes);
    ASSERT_EQ(3, g->n_leafs);

    // a second output: only its new nodes are appended
    struct ggml_tensor * o2 = ggml_scale(ctx, y, 2.0f);
    ggml_build_forward_expand(g, o2);
    ASSERT_EQ(8, g->n_nodes);
    ASSERT_EQ(o2, ggml_graph_node(g, -1));
    ASSERT_EQ(3, use_count(g, y));

    ggml_graph_print(g);
    ggml_free(ctx);
}

TEST(views_are_nodes_and_param_is_node) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
    struct ggml_tensor * p = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
    ggml_set_param(p);
    struct ggml_tensor * t = ggml_transpose(ctx, a);
    struct ggml_tensor * c = ggml_cont(ctx, t);
    struct ggml_tensor * s = ggml_add(ctx, c, p);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g, s);
    ASSERT_EQ(1, g->n_leafs);
    ASSERT_EQ(a, g->leafs[0]);
    ASSERT_EQ(4, g->n_nodes);
    ASSERT_EQ(t, g->nodes[0]);
    ASSERT_EQ(c, g->nodes[1]);
    ASSERT_EQ(p, g->nodes[2]);
    ASSERT_EQ(s, g->nodes[3]);
    ggml_free(ctx);
}

static void overfill_graph(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * t = a;
    for (int i = 0; i < 5; i++) {
        t = ggml_sqr(ctx, t);
    }
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 4, false);
    ggml_build_forward_expand(g, t);
}

TEST(graph_full_aborts) {
    ASSERT_TRUE(expect_abort(overfill_graph, "graph is full"));
}

TEST(deep_chain) {
    // a long dependency chain must not exhaust the stack
    const int n = 20000;
    struct ggml_context * ctx = new_ctx((size_t) (n + 2) * ggml_tensor_overhead() + ggml_graph_overhead_custom((size_t) n + 1, false));
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    for (int i = 0; i < n; i++) {
        t = ggml_neg(ctx, t);
    }
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, (size_t) n + 1, false);
    ggml_build_forward_expand(g, t);
    ASSERT_EQ(n, g->n_nodes);
    ASSERT_EQ(1, g->n_leafs);
    ASSERT_EQ(t, g->nodes[n - 1]);
    ggml_free(ctx);
}

TEST(graph_view_cpy_dup_clear) {
    struct ggml_context * ctx = new_ctx(1 << 22);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * c = ggml_add(ctx, a, b);
    struct ggml_tensor * d = ggml_mul(ctx, c, c);
    struct ggml_tensor * e = ggml_sqrt(ctx, d);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 64, false);
    ggml_build_forward_expand(g, e);
    ASSERT_EQ(3, g->n_nodes);

    struct ggml_cgraph v = ggml_graph_view(g, 1, 3);
    ASSERT_EQ(2, v.n_nodes);
    ASSERT_EQ(0, v.n_leafs);
    ASSERT_EQ(d, v.nodes[0]);
    ASSERT_EQ(e, ggml_graph_node(&v, -1));
    ASSERT_EQ(2, use_count(&v, c)); // shares the parent's hash set and counts
    ASSERT_NE(g->uid, v.uid);

    struct ggml_cgraph * g2 = ggml_new_graph_custom(ctx, 128, false);
    ggml_graph_cpy(g, g2);
    ASSERT_EQ(g->n_nodes, g2->n_nodes);
    ASSERT_EQ(g->n_leafs, g2->n_leafs);
    for (int i = 0; i < g->n_nodes; i++) {
        ASSERT_EQ(g->nodes[i], g2->nodes[i]);
    }
    for (int i = 0; i < g->n_leafs; i++) {
        ASSERT_EQ(g->leafs[i], g2->leafs[i]);
    }
    ASSERT_EQ(2, use_count(g2, c));
    ASSERT_EQ(1, use_count(g2, a));
    ASSERT_TRUE(ggml_hash_contains(&g2->visited_hash_set, e));
    ASSERT_NULL(ggml_graph_get_grad(g2, e));

    // the copy is independent: growing it leaves the original alone
    struct ggml_tensor * f = ggml_exp(ctx, e);
    ggml_build_forward_expand(g2, f);
    ASSERT_EQ(4, g2->n_nodes);
    ASSERT_EQ(3, g->n_nodes);
    ASSERT_FALSE(ggml_hash_contains(&g->visited_hash_set, f));

    struct ggml_cgraph * g3 = ggml_graph_dup(ctx, g2, true);
    ASSERT_EQ(4, g3->n_nodes);
    ASSERT_EQ(128, ggml_graph_size(g3));
    ASSERT_NE(NULL, g3->grads);
    ASSERT_NULL(ggml_graph_get_grad(g3, f));
    ASSERT_NULL(ggml_graph_get_grad_acc(g3, f));
    ggml_graph_reset(g3);

    ggml_graph_clear(g2);
    ASSERT_EQ(0, g2->n_nodes);
    ASSERT_EQ(0, g2->n_leafs);
    ASSERT_FALSE(ggml_hash_contains(&g2->visited_hash_set, e));
    ggml_build_forward_expand(g2, e);
    ASSERT_EQ(3, g2->n_nodes);
    ASSERT_EQ(2, use_count(g2, c));

    ggml_graph_add_node(g2, f);
    ASSERT_EQ(f, ggml_graph_node(g2, -1));
    ggml_free(ctx);
}

TEST(graph_overhead_accounts) {
    const size_t sizes[] = { 1, 7, 100, 2048, 5000 };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (int grads = 0; grads < 2; grads++) {
            struct ggml_context * ctx = new_ctx(ggml_graph_overhead_custom(sizes[k], grads));
            struct ggml_cgraph * g = ggml_new_graph_custom(ctx, sizes[k], grads);
            ASSERT_EQ(ggml_get_mem_size(ctx), ggml_used_mem(ctx));
            ASSERT_EQ((int) sizes[k], g->size);
            ASSERT_GE(g->visited_hash_set.size, 2 * sizes[k]);
            // the arrays are inside the object
            char * lo = ggml_get_mem_buffer(ctx);
            char * hi = lo + ggml_get_mem_size(ctx);
            ASSERT_TRUE((char *) (g->nodes + g->size) <= hi);
            ASSERT_TRUE((char *) (g->visited_hash_set.used + ggml_bitset_size(g->visited_hash_set.size)) <= hi);
            ggml_free(ctx);
        }
    }
}

// ---------------------------------------------------------------------------
// Op constructors
// ---------------------------------------------------------------------------

TEST(elementwise_ops) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 6, 4, 3, 2);
    struct ggml_tensor * row = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 6);
    struct ggml_tensor * one = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_set_name(a, "a");

    struct ggml_tensor * (*bin[])(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *) = {
        ggml_add, ggml_sub, ggml_mul, ggml_div,
    };
    struct ggml_tensor * (*bin_ip[])(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *) = {
        ggml_add_inplace, ggml_sub_inplace, ggml_mul_inplace, ggml_div_inplace,
    };
    const enum ggml_op bin_ops[] = { GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV };
    for (int i = 0; i < 4; i++) {
        struct ggml_tensor * r = bin[i](ctx, a, row);
        ASSERT_EQ(bin_ops[i], r->op);
        ASSERT_TRUE(ggml_are_same_layout(a, r));
        ASSERT_EQ(a, r->src[0]);
        ASSERT_EQ(row, r->src[1]);
        ASSERT_NULL(r->view_src);
        struct ggml_tensor * ri = bin_ip[i](ctx, a, row);
        ASSERT_EQ(a, ri->view_src);
        ASSERT_EQ(bin_ops[i], ri->op);
        ASSERT_STREQ("a (view)", ri->name);
    }
    struct ggml_tensor * a1 = ggml_add1(ctx, a, one);
    ASSERT_EQ(GGML_OP_ADD1, a1->op);
    ASSERT_EQ(a, ggml_add1_inplace(ctx, a, one)->view_src);

    struct ggml_tensor * (*un[])(struct ggml_context *, struct ggml_tensor *) = {
        ggml_sqr, ggml_sqrt, ggml_log, ggml_sin, ggml_cos,
    };
    struct ggml_tensor * (*un_ip[])(struct ggml_context *, struct ggml_tensor *) = {
        ggml_sqr_inplace, ggml_sqrt_inplace, ggml_log_inplace, ggml_sin_inplace, ggml_cos_inplace,
    };
    const enum ggml_op un_ops[] = { GGML_OP_SQR, GGML_OP_SQRT, GGML_OP_LOG, GGML_OP_SIN, GGML_OP_COS };
    for (int i = 0; i < 5; i++) {
        struct ggml_tensor * r = un[i](ctx, a);
        ASSERT_EQ(un_ops[i], r->op);
        ASSERT_TRUE(ggml_are_same_layout(a, r));
        ASSERT_EQ(a, un_ip[i](ctx, a)->view_src);
    }

    struct ggml_tensor * s = ggml_scale(ctx, a, 0.5f);
    ASSERT_EQ(GGML_OP_SCALE, s->op);
    ASSERT_EQ(0.5f, op_f32(s, 0));
    ASSERT_EQ(0.0f, op_f32(s, 1));
    struct ggml_tensor * sb = ggml_scale_bias_inplace(ctx, a, 2.0f, -1.0f);
    ASSERT_EQ(2.0f, op_f32(sb, 0));
    ASSERT_EQ(-1.0f, op_f32(sb, 1));
    ASSERT_EQ(a, sb->view_src);
    ASSERT_EQ(a, ggml_scale_inplace(ctx, a, 3.0f)->view_src);
    ASSERT_EQ(4.0f, op_f32(ggml_scale_bias(ctx, a, 4.0f, 0.0f), 0));

    struct ggml_tensor * cl = ggml_clamp(ctx, a, -1.5f, 2.5f);
    ASSERT_EQ(GGML_OP_CLAMP, cl->op);
    ASSERT_EQ(-1.5f, op_f32(cl, 0));
    ASSERT_EQ(2.5f, op_f32(cl, 1));
    ASSERT_EQ(a, cl->view_src);

    struct ggml_tensor * du = ggml_dup(ctx, a);
    ASSERT_EQ(GGML_OP_DUP, du->op);
    ASSERT_EQ(a, ggml_dup_inplace(ctx, a)->view_src);
    ggml_free(ctx);
}

TEST(unary_and_glu_ops) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 3, 2);
    struct ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 3, 2);

    struct { struct ggml_tensor * (*f)(struct ggml_context *, struct ggml_tensor *); enum ggml_unary_op op; } un[] = {
        { ggml_abs, GGML_UNARY_OP_ABS }, { ggml_sgn, GGML_UNARY_OP_SGN }, { ggml_neg, GGML_UNARY_OP_NEG },
        { ggml_step, GGML_UNARY_OP_STEP }, { ggml_tanh, GGML_UNARY_OP_TANH }, { ggml_elu, GGML_UNARY_OP_ELU },
        { ggml_relu, GGML_UNARY_OP_RELU }, { ggml_sigmoid, GGML_UNARY_OP_SIGMOID },
        { ggml_gelu, GGML_UNARY_OP_GELU }, { ggml_gelu_quick, GGML_UNARY_OP_GELU_QUICK },
        { ggml_silu, GGML_UNARY_OP_SILU }, { ggml_hardswish, GGML_UNARY_OP_HARDSWISH },
        { ggml_hardsigmoid, GGML_UNARY_OP_HARDSIGMOID }, { ggml_exp, GGML_UNARY_OP_EXP },
    };
    for (size_t i = 0; i < sizeof(un) / sizeof(un[0]); i++) {
        struct ggml_tensor * r = un[i].f(ctx, a);
        ASSERT_EQ(GGML_OP_UNARY, r->op);
        ASSERT_EQ(un[i].op, ggml_get_unary_op(r));
        ASSERT_EQ((int32_t) un[i].op, r->op_params[0]);
        ASSERT_STREQ(ggml_unary_op_name(un[i].op), ggml_op_desc(r));
        ASSERT_TRUE(ggml_are_same_layout(a, r));
    }
    struct ggml_tensor * (*un_ip[])(struct ggml_context *, struct ggml_tensor *) = {
        ggml_abs_inplace, ggml_sgn_inplace, ggml_neg_inplace, ggml_step_inplace, ggml_tanh_inplace,
        ggml_elu_inplace, ggml_relu_inplace, ggml_sigmoid_inplace, ggml_gelu_inplace,
        ggml_gelu_quick_inplace, ggml_silu_inplace, ggml_exp_inplace,
    };
    for (size_t i = 0; i < sizeof(un_ip) / sizeof(un_ip[0]); i++) {
        struct ggml_tensor * r = un_ip[i](ctx, a);
        ASSERT_EQ(GGML_OP_UNARY, r->op);
        ASSERT_EQ(a, r->view_src);
    }
    ASSERT_EQ(GGML_UNARY_OP_TANH, ggml_get_unary_op(ggml_unary(ctx, a, GGML_UNARY_OP_TANH)));
    ASSERT_EQ(a, ggml_unary_inplace(ctx, a, GGML_UNARY_OP_RELU)->view_src);

    // fused GLU halves the rows
    struct { struct ggml_tensor * (*f)(struct ggml_context *, struct ggml_tensor *); enum ggml_glu_op op; int swapped; } fused[] = {
        { ggml_reglu, GGML_GLU_OP_REGLU, 0 },  { ggml_reglu_swapped, GGML_GLU_OP_REGLU, 1 },
        { ggml_geglu, GGML_GLU_OP_GEGLU, 0 },  { ggml_geglu_swapped, GGML_GLU_OP_GEGLU, 1 },
        { ggml_swiglu, GGML_GLU_OP_SWIGLU, 0 }, { ggml_swiglu_swapped, GGML_GLU_OP_SWIGLU, 1 },
    };
    for (size_t i = 0; i < sizeof(fused) / sizeof(fused[0]); i++) {
        struct ggml_tensor * r = fused[i].f(ctx, a);
        ASSERT_EQ(GGML_OP_GLU, r->op);
        ASSERT_SHAPE(r, 4, 3, 2, 1);
        ASSERT_EQ(fused[i].op, ggml_get_glu_op(r));
        ASSERT_EQ(fused[i].swapped, op_i32(r, 1));
        ASSERT_EQ(a, r->src[0]);
        ASSERT_NULL(r->src[1]);
        ASSERT_STREQ(ggml_glu_op_name(fused[i].op), ggml_op_desc(r));
    }
    struct ggml_tensor * g = ggml_glu(ctx, a, GGML_GLU_OP_SWIGLU, true);
    ASSERT_EQ(1, op_i32(g, 1));

    struct { struct ggml_tensor * (*f)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *); enum ggml_glu_op op; } split[] = {
        { ggml_reglu_split, GGML_GLU_OP_REGLU }, { ggml_geglu_split, GGML_GLU_OP_GEGLU },
        { ggml_swiglu_split, GGML_GLU_OP_SWIGLU },
    };
    for (size_t i = 0; i < sizeof(split) / sizeof(split[0]); i++) {
        struct ggml_tensor * r = split[i].f(ctx, a, b);
        ASSERT_EQ(GGML_OP_GLU, r->op);
        ASSERT_SHAPE(r, 8, 3, 2, 1);
        ASSERT_EQ(split[i].op, ggml_get_glu_op(r));
        ASSERT_EQ(0, op_i32(r, 1));
        ASSERT_EQ(b, r->src[1]);
    }
    ASSERT_EQ(GGML_GLU_OP_GEGLU, ggml_get_glu_op(ggml_glu_split(ctx, a, b, GGML_GLU_OP_GEGLU)));
    ggml_free(ctx);
}

TEST(reductions_and_shapes) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 4, 3, 2);
    struct ggml_tensor * m = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 4);

    struct ggml_tensor * s = ggml_sum(ctx, a);
    ASSERT_EQ(GGML_OP_SUM, s->op);
    ASSERT_SHAPE(s, 1, 1, 1, 1);
    ASSERT_SHAPE(ggml_sum_rows(ctx, a), 1, 4, 3, 2);
    struct ggml_tensor * mean = ggml_mean(ctx, a);
    ASSERT_EQ(GGML_OP_MEAN, mean->op);
    ASSERT_SHAPE(mean, 1, 4, 3, 2);
    struct ggml_tensor * am = ggml_argmax(ctx, m);
    ASSERT_EQ(GGML_TYPE_I32, am->type);
    ASSERT_SHAPE(am, 4, 1, 1, 1);
    struct ggml_tensor * as = ggml_argsort(ctx, a, GGML_SORT_ORDER_DESC);
    ASSERT_EQ(GGML_TYPE_I32, as->type);
    ASSERT_SHAPE(as, 5, 4, 3, 2);
    ASSERT_EQ(GGML_SORT_ORDER_DESC, op_i32(as, 0));

    struct ggml_tensor * rp = ggml_repeat(ctx, m, a);
    ASSERT_EQ(GGML_OP_REPEAT, rp->op);
    ASSERT_SHAPE(rp, 5, 4, 3, 2);
    ASSERT_SHAPE(ggml_repeat_4d(ctx, m, 10, 8, 1, 3), 10, 8, 1, 3);

    struct ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 4, 7, 2);
    struct ggml_tensor * cc = ggml_concat(ctx, a, b, 2);
    ASSERT_EQ(GGML_OP_CONCAT, cc->op);
    ASSERT_SHAPE(cc, 5, 4, 10, 2);
    ASSERT_EQ(2, op_i32(cc, 0));

    struct ggml_tensor * n = ggml_norm(ctx, a, 1e-6f);
    ASSERT_EQ(GGML_OP_NORM, n->op);
    ASSERT_EQ(1e-6f, op_f32(n, 0));
    struct ggml_tensor * rn = ggml_rms_norm_inplace(ctx, a, 1e-5f);
    ASSERT_EQ(GGML_OP_RMS_NORM, rn->op);
    ASSERT_EQ(1e-5f, op_f32(rn, 0));
    ASSERT_EQ(a, rn->view_src);
    ASSERT_EQ(a, ggml_norm_inplace(ctx, a, 1.0f)->view_src);
    ASSERT_EQ(GGML_OP_RMS_NORM, ggml_rms_norm(ctx, a, 0.0f)->op);

    struct ggml_tensor * pd = ggml_pad(ctx, a, 3, 0, 1, 2);
    ASSERT_EQ(GGML_OP_PAD, pd->op);
    ASSERT_SHAPE(pd, 8, 4, 4, 4);
    ASSERT_EQ(0, op_i32(pd, 0));
    ASSERT_EQ(3, op_i32(pd, 1));
    ASSERT_EQ(2, op_i32(pd, 7));
    struct ggml_tensor * pe = ggml_pad_ext(ctx, a, 1, 2, 0, 0, 0, 1, 0, 0);
    ASSERT_SHAPE(pe, 8, 4, 4, 2);
    ASSERT_EQ(1, op_i32(pe, 0));
    ASSERT_EQ(2, op_i32(pe, 1));
    ASSERT_EQ(1, op_i32(pe, 5));

    struct ggml_tensor * ar = ggml_arange(ctx, 0.0f, 10.0f, 3.0f);
    ASSERT_EQ(GGML_OP_ARANGE, ar->op);
    ASSERT_EQ(GGML_TYPE_F32, ar->type);
    ASSERT_SHAPE(ar, 4, 1, 1, 1);
    ASSERT_EQ(0.0f, op_f32(ar, 0));
    ASSERT_EQ(10.0f, op_f32(ar, 1));
    ASSERT_EQ(3.0f, op_f32(ar, 2));

    struct ggml_tensor * dm = ggml_diag_mask_inf(ctx, m, 2);
    ASSERT_EQ(GGML_OP_DIAG_MASK_INF, dm->op);
    ASSERT_EQ(2, op_i32(dm, 0));
    ASSERT_EQ(m, ggml_diag_mask_inf_inplace(ctx, m, 0)->view_src);
    ggml_free(ctx);
}

TEST(copy_ops) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 32, 4, 2);
    struct ggml_tensor * h = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 4);
    ggml_set_name(a, "a");
    ggml_set_name(h, "h");
    struct ggml_tensor * c = ggml_cpy(ctx, a, h);
    ASSERT_EQ(GGML_OP_CPY, c->op);
    ASSERT_EQ(h, c->view_src);
    ASSERT_EQ(a, c->src[0]);
    ASSERT_EQ(h, c->src[1]);
    ASSERT_TRUE(ggml_are_same_layout(h, c));
    ASSERT_STREQ("h (copy of a)", c->name);

    struct ggml_tensor * q = ggml_cast(ctx, a, GGML_TYPE_Q8_0);
    ASSERT_EQ(GGML_OP_CPY, q->op);
    ASSERT_EQ(GGML_TYPE_Q8_0, q->type);
    ASSERT_SHAPE(q, 32, 4, 2, 1);
    ASSERT_EQ(q, q->src[1]);

    struct ggml_tensor * t = ggml_transpose(ctx, ggml_reshape_2d(ctx, a, 32, 8));
    struct ggml_tensor * ct = ggml_cont(ctx, t);
    ASSERT_EQ(GGML_OP_CONT, ct->op);
    ASSERT_SHAPE(ct, 8, 32, 1, 1);
    ASSERT_TRUE(ggml_is_contiguous(ct));
    ASSERT_SHAPE(ggml_cont_1d(ctx, t, 256), 256, 1, 1, 1);
    ASSERT_SHAPE(ggml_cont_2d(ctx, t, 16, 16), 16, 16, 1, 1);
    ASSERT_SHAPE(ggml_cont_3d(ctx, t, 4, 8, 8), 4, 8, 8, 1);
    ASSERT_SHAPE(ggml_cont_4d(ctx, t, 4, 4, 4, 4), 4, 4, 4, 4);
    ASSERT_SHAPE(ggml_reshape_1d(ctx, a, 256), 256, 1, 1, 1);
    ASSERT_SHAPE(ggml_reshape_3d(ctx, a, 8, 8, 4), 8, 8, 4, 1);
    ASSERT_SHAPE(ggml_reshape_4d(ctx, a, 8, 8, 2, 2), 8, 8, 2, 2);
    ggml_free(ctx);
}

TEST(rows_ops) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * emb = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 100);
    struct ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 7);
    struct ggml_tensor * g = ggml_get_rows(ctx, emb, ids);
    ASSERT_EQ(GGML_OP_GET_ROWS, g->op);
    ASSERT_EQ(GGML_TYPE_F32, g->type);
    ASSERT_SHAPE(g, 64, 7, 1, 1);

    struct ggml_tensor * a3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 10, 3);
    struct ggml_tensor * i2 = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 5, 3);
    ASSERT_SHAPE(ggml_get_rows(ctx, a3, i2), 16, 5, 3, 1);
    struct ggml_tensor * ai = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 4, 10);
    ASSERT_EQ(GGML_TYPE_I32, ggml_get_rows(ctx, ai, ids)->type);

    // KV-cache style store
    struct ggml_tensor * cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 512);
    struct ggml_tensor * rows  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 7);
    struct ggml_tensor * where = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 7);
    struct ggml_tensor * s = ggml_set_rows(ctx, cache, rows, where);
    ASSERT_EQ(GGML_OP_SET_ROWS, s->op);
    ASSERT_EQ(cache, s->view_src);
    ASSERT_EQ(rows, s->src[0]);
    ASSERT_EQ(where, s->src[1]);
    ASSERT_EQ(cache, s->src[2]);
    ASSERT_TRUE(ggml_are_same_layout(cache, s));
    ggml_free(ctx);
}

TEST(matmul_attention_ops) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * w = ggml_new_tensor_4d(ctx, GGML_TYPE_Q4_K, 256, 32, 2, 1);
    struct ggml_tensor * x = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 256, 5, 6, 3);
    struct ggml_tensor * y = ggml_mul_mat(ctx, w, x);
    ASSERT_EQ(GGML_OP_MUL_MAT, y->op);
    ASSERT_EQ(GGML_TYPE_F32, y->type);
    ASSERT_SHAPE(y, 32, 5, 6, 3);
    ASSERT_EQ(GGML_PREC_DEFAULT, op_i32(y, 0));
    ggml_mul_mat_set_prec(y, GGML_PREC_F32);
    ASSERT_EQ(GGML_PREC_F32, op_i32(y, 0));

    struct ggml_tensor * kq = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 40, 7, 8, 1);
    struct ggml_tensor * mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 40, 32);
    struct ggml_tensor * sm = ggml_soft_max_ext(ctx, kq, mask, 0.125f, 8.0f);
    ASSERT_EQ(GGML_OP_SOFT_MAX, sm->op);
    ASSERT_TRUE(ggml_are_same_layout(kq, sm));
    ASSERT_EQ(0.125f, op_f32(sm, 0));
    ASSERT_EQ(8.0f, op_f32(sm, 1));
    ASSERT_EQ(mask, sm->src[1]);
    struct ggml_tensor * sm0 = ggml_soft_max(ctx, kq);
    ASSERT_EQ(1.0f, op_f32(sm0, 0));
    ASSERT_EQ(0.0f, op_f32(sm0, 1));
    ASSERT_NULL(sm0->src[1]);
    ASSERT_EQ(kq, ggml_soft_max_inplace(ctx, kq)->view_src);
    ASSERT_EQ(kq, ggml_soft_max_ext_inplace(ctx, kq, NULL, 1.0f, 0.0f)->view_src);

    struct ggml_tensor * cur = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 8, 7);
    struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 7);
    struct ggml_tensor * ff  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32);
    struct ggml_tensor * r = ggml_rope_ext(ctx, cur, pos, ff, 64, GGML_ROPE_TYPE_NEOX, 4096,
                                           500000.0f, 0.25f, 1.0f, 0.9f, 32.0f, 1.0f);
    ASSERT_EQ(GGML_OP_ROPE, r->op);
    ASSERT_TRUE(ggml_are_same_layout(cur, r));
    ASSERT_EQ(pos, r->src[1]);
    ASSERT_EQ(ff, r->src[2]);
    ASSERT_EQ(0, op_i32(r, 0));
    ASSERT_EQ(64, op_i32(r, 1));
    ASSERT_EQ(GGML_ROPE_TYPE_NEOX, op_i32(r, 2));
    ASSERT_EQ(4096, op_i32(r, 4));
    ASSERT_EQ(500000.0f, op_f32(r, 5));
    ASSERT_EQ(0.25f, op_f32(r, 6));
    ASSERT_EQ(1.0f, op_f32(r, 7));
    ASSERT_EQ(0.9f, op_f32(r, 8));
    ASSERT_EQ(32.0f, op_f32(r, 9));
    ASSERT_EQ(1.0f, op_f32(r, 10));
    struct ggml_tensor * r0 = ggml_rope(ctx, cur, pos, 32, 0);
    ASSERT_EQ(10000.0f, op_f32(r0, 5));
    ASSERT_EQ(1.0f, op_f32(r0, 6));
    ASSERT_EQ(1.0f, op_f32(r0, 8));
    ASSERT_NULL(r0->src[2]);
    ASSERT_EQ(cur, ggml_rope_inplace(ctx, cur, pos, 64, 0)->view_src);
    ASSERT_EQ(cur, ggml_rope_ext_inplace(ctx, cur, pos, NULL, 64, 0, 0, 1e4f, 1, 0, 1, 0, 0)->view_src);

    struct ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 7, 8, 1);
    struct ggml_tensor * k = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 64, 40, 2, 1);
    struct ggml_tensor * v = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 48, 40, 2, 1);
    struct ggml_tensor * fa = ggml_flash_attn_ext(ctx, q, k, v, mask, 0.125f, 0.0f, 30.0f);
    ASSERT_EQ(GGML_OP_FLASH_ATTN_EXT, fa->op);
    ASSERT_EQ(GGML_TYPE_F32, fa->type);
    ASSERT_SHAPE(fa, 48, 8, 7, 1);
    ASSERT_EQ(q, fa->src[0]);
    ASSERT_EQ(k, fa->src[1]);
    ASSERT_EQ(v, fa->src[2]);
    ASSERT_EQ(mask, fa->src[3]);
    ASSERT_EQ(0.125f, op_f32(fa, 0));
    ASSERT_EQ(0.0f, op_f32(fa, 1));
    ASSERT_EQ(30.0f, op_f32(fa, 2));
    ASSERT_EQ(GGML_PREC_DEFAULT, ggml_flash_attn_ext_get_prec(fa));
    ggml_flash_attn_ext_set_prec(fa, GGML_PREC_F32);
    ASSERT_EQ(GGML_PREC_F32, ggml_flash_attn_ext_get_prec(fa));
    ASSERT_EQ(GGML_PREC_F32, op_i32(fa, 3));
    ggml_free(ctx);
}

// bad calls: each must abort with a message naming the problem

static struct ggml_context * bad_ctx;

static void bad_add(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 4, 4);
    ggml_add(bad_ctx, a, b);
}

static void bad_mul_mat(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 5, 4);
    ggml_mul_mat(bad_ctx, a, b);
}

static void bad_get_rows_type(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_1d(bad_ctx, GGML_TYPE_F32, 2);
    ggml_get_rows(bad_ctx, a, b);
}

static void bad_set_rows(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F16, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 2);
    struct ggml_tensor * c = ggml_new_tensor_1d(bad_ctx, GGML_TYPE_I64, 3);
    ggml_set_rows(bad_ctx, a, b, c);
}

static void bad_reshape(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    ggml_reshape_2d(bad_ctx, ggml_transpose(bad_ctx, a), 4, 6);
}

static void bad_concat(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 5, 4);
    ggml_concat(bad_ctx, a, b, 1);
}

static void bad_soft_max_mask(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * m = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 2);
    ggml_soft_max_ext(bad_ctx, a, m, 1.0f, 0.0f);
}

static void bad_rope_positions(void) {
    struct ggml_tensor * a = ggml_new_tensor_3d(bad_ctx, GGML_TYPE_F32, 8, 2, 5);
    struct ggml_tensor * p = ggml_new_tensor_1d(bad_ctx, GGML_TYPE_I32, 4);
    ggml_rope(bad_ctx, a, p, 8, 0);
}

static void bad_glu_split(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 3);
    ggml_swiglu_split(bad_ctx, a, b);
}

static void bad_permute(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    ggml_permute(bad_ctx, a, 0, 1, 1, 3);
}

static void bad_cpy(void) {
    struct ggml_tensor * a = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 6, 5);
    ggml_cpy(bad_ctx, a, b);
}

static void bad_flash_attn(void) {
    struct ggml_tensor * q = ggml_new_tensor_4d(bad_ctx, GGML_TYPE_F32, 64, 7, 8, 1);
    struct ggml_tensor * k = ggml_new_tensor_4d(bad_ctx, GGML_TYPE_F16, 32, 40, 2, 1);
    ggml_flash_attn_ext(bad_ctx, q, k, k, NULL, 1.0f, 0.0f, 0.0f);
}

TEST(bad_calls_abort_with_message) {
    bad_ctx = new_ctx(1 << 16);
    ASSERT_TRUE(expect_abort(bad_add, "cannot be broadcast"));
    ASSERT_TRUE(expect_abort(bad_mul_mat, "ggml_mul_mat: shapes"));
    ASSERT_TRUE(expect_abort(bad_get_rows_type, "I32"));
    ASSERT_TRUE(expect_abort(bad_set_rows, "one row number per row"));
    ASSERT_TRUE(expect_abort(bad_reshape, "contiguous"));
    ASSERT_TRUE(expect_abort(bad_concat, "shapes differ"));
    ASSERT_TRUE(expect_abort(bad_soft_max_mask, "too few rows"));
    ASSERT_TRUE(expect_abort(bad_rope_positions, "one position"));
    ASSERT_TRUE(expect_abort(bad_glu_split, "same shape"));
    ASSERT_TRUE(expect_abort(bad_permute, "distinct"));
    ASSERT_TRUE(expect_abort(bad_cpy, "element counts"));
    ASSERT_TRUE(expect_abort(bad_flash_attn, "row lengths"));
    ggml_free(bad_ctx);
}

// ---- upstream op constructors: their aborts on caller mistakes ------------

static void bad_top_k(void) {
    ggml_top_k(bad_ctx, ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 4, 2), 5);
}

static void bad_mul_mat_id_ids(void) {
    struct ggml_tensor * as = ggml_new_tensor_3d(bad_ctx, GGML_TYPE_F32, 8, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_3d(bad_ctx, GGML_TYPE_F32, 8, 1, 2);
    ggml_mul_mat_id(bad_ctx, as, b, ggml_new_tensor_2d(bad_ctx, GGML_TYPE_F32, 2, 2));
}

static void bad_rope_offset(void) {
    struct ggml_tensor * a = ggml_new_tensor_3d(bad_ctx, GGML_TYPE_F32, 8, 2, 3);
    struct ggml_tensor * p = ggml_new_tensor_1d(bad_ctx, GGML_TYPE_I32, 3);
    ggml_rope_set_offset(ggml_rope(bad_ctx, a, p, 4, 0), 6); // 6 + 4 > 8
}

static void bad_custom_tasks(void) {
    ggml_custom_4d(bad_ctx, GGML_TYPE_F32, 1, 1, 1, 1, NULL, 0, NULL, 0, NULL);
}

static void bad_select(void) {
    struct ggml_tensor * a = ggml_new_tensor_1d(bad_ctx, GGML_TYPE_F32, 2);
    struct ggml_tensor * c[1] = { ggml_scale(bad_ctx, a, 2.0f) };
    ggml_build_forward_select(ggml_new_graph(bad_ctx), c, 1, 1);
}

TEST(new_op_constructors_abort_with_message) {
    bad_ctx = new_ctx(1 << 20);
    ASSERT_TRUE(expect_abort(bad_top_k, "k exceeds"));
    ASSERT_TRUE(expect_abort(bad_mul_mat_id_ids, "I32"));
    ASSERT_TRUE(expect_abort(bad_rope_offset, "rotated dims"));
    ASSERT_TRUE(expect_abort(bad_custom_tasks, "n_tasks"));
    ASSERT_TRUE(expect_abort(bad_select, "idx out of range"));
    ggml_free(bad_ctx);
}

// ---- compute flags, ggml_graph_dump_dot ------------------------------------

TEST(compute_flags_and_dot_dump) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    ggml_set_name(x, "x");
    struct ggml_tensor * a = ggml_scale(ctx, x, 2.0f);
    struct ggml_tensor * b = ggml_sqr(ctx, x);
    ggml_set_name(b, "b \"quoted\" <name>");
    struct ggml_tensor * cand[2] = { a, b };
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ASSERT_EQ(ggml_build_forward_select(g, cand, 2, 1), b);
    struct ggml_tensor * y = ggml_add(ctx, b, x);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(ggml_graph_n_nodes(g), 3);
    EXPECT_FALSE(a->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_TRUE(b->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_TRUE(y->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_FALSE(x->flags & GGML_TENSOR_FLAG_COMPUTE); // a leaf: nothing to compute
    // a later expand that needs a makes it computed too
    ggml_build_forward_expand(g, ggml_add(ctx, a, y));
    EXPECT_TRUE(a->flags & GGML_TENSOR_FLAG_COMPUTE);

    char path[] = "/tmp/test-graph-dot-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    ggml_graph_dump_dot(NULL, g, path);
    FILE * f = fopen(path, "r");
    ASSERT_NE(f, NULL);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    EXPECT_EQ(strncmp(buf, "digraph G {", 11), 0);
    EXPECT_NE(strstr(buf, "b _quoted_ _name_ (f32)|SQR|[4, 3, 1, 1]"), NULL);
    EXPECT_NE(strstr(buf, "x (f32)|leaf"), NULL);
    int edges = 0;
    for (const char * p = buf; (p = strstr(p, "->")) != NULL; p += 2) {
        edges++;
    }
    EXPECT_EQ(edges, 6); // scale(x), sqr(x), add(b, x), add(a, y)
    EXPECT_NE(strstr(buf, "}\n"), NULL);
    ggml_free(ctx);
}

TEST_HARNESS_MAIN
