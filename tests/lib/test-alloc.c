// SPDX-License-Identifier: MIT
//
// test-alloc: the tensor allocator and the graph allocator. Properties on
// thousands of seeded random graphs: tensors alive at the same time never
// overlap, every tensor lies inside its buffer, INPUT and OUTPUT tensors are
// never reused, in-place reuse happens, alloc_graph after reserve does not
// reallocate, and graphs are split into chunks under a small max size. Also
// ggml_backend_alloc_ctx_tensors with multi-buffers.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <string.h>

#include "test-harness.h"
#include "testbackend.h"

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params p = { .mem_size = tb_ctx_size(), .mem_buffer = NULL, .no_alloc = true };
    return ggml_init(p);
}

static struct tb_device * host_dev(size_t max_size, size_t alignment) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "ALLOC";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.host = true;
    cfg.max_size = max_size;
    cfg.alignment = alignment;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    return tb_device_new(&cfg);
}

// one tensor of the graph with its life span in node order
struct span {
    struct ggml_tensor * t;
    int  def;  // -1 for leafs and inputs
    int  last; // INT32_MAX for inputs and outputs
};

#define END_OF_GRAPH 0x7fffffff

static int span_index(struct span * spans, int n, const struct ggml_tensor * t) {
    for (int i = 0; i < n; i++) {
        if (spans[i].t == t) {
            return i;
        }
    }
    return -1;
}

// the life spans of the tensors that own memory (views extend their source)
static int life_spans(struct ggml_cgraph * g, struct span * spans, int cap) {
    int n = 0;
    for (int i = 0; i < g->n_leafs && n < cap; i++) {
        spans[n++] = (struct span) { g->leafs[i], -1, END_OF_GRAPH }; // set before compute, kept
    }
    for (int i = 0; i < g->n_nodes && n < cap; i++) {
        if (g->nodes[i]->view_src == NULL) {
            spans[n++] = (struct span) { g->nodes[i], i, i };
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        struct ggml_tensor * node = g->nodes[i];
        // a view is alive while its source is
        if (node->view_src) {
            int k = span_index(spans, n, node->view_src);
            if (k >= 0 && spans[k].last < i) {
                spans[k].last = i;
            }
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * s = node->src[j];
            if (s == NULL) {
                continue;
            }
            struct ggml_tensor * owner = s->view_src ? s->view_src : s;
            int k = span_index(spans, n, owner);
            if (k >= 0 && spans[k].last < i) {
                spans[k].last = i;
            }
        }
    }
    for (int k = 0; k < n; k++) {
        if (spans[k].t->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT)) {
            spans[k].last = END_OF_GRAPH;
        }
        if (spans[k].t->flags & GGML_TENSOR_FLAG_INPUT) {
            spans[k].def = -1;
        }
    }
    // views that are outputs keep their source to the end
    for (int i = 0; i < g->n_nodes; i++) {
        struct ggml_tensor * node = g->nodes[i];
        if (node->view_src && (node->flags & GGML_TENSOR_FLAG_OUTPUT)) {
            int k = span_index(spans, n, node->view_src);
            if (k >= 0) {
                spans[k].last = END_OF_GRAPH;
            }
        }
    }
    return n;
}

static bool inside_buffer(const struct ggml_tensor * t) {
    ggml_backend_buffer_t buf = t->view_src ? t->view_src->buffer : t->buffer;
    if (buf == NULL || t->data == NULL) {
        return false;
    }
    const char * base = ggml_backend_buffer_get_base(buf);
    const char * d = t->data;
    return d >= base && d + ggml_nbytes(t) <= base + ggml_backend_buffer_get_size(buf);
}

// checks one allocated graph; returns the number of in-place reuses seen
static int check_graph(struct __test_metadata * _metadata, struct ggml_cgraph * g, size_t max_size) {
    static struct span spans[4096];
    int n = life_spans(g, spans, 4096);

    for (int k = 0; k < n; k++) {
        EXPECT_TRUE(inside_buffer(spans[k].t)) {
            TH_LOG("tensor %s not inside its buffer", spans[k].t->name);
        }
        if (max_size) {
            EXPECT_LE(ggml_backend_buffer_get_size(spans[k].t->buffer), max_size);
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        EXPECT_TRUE(inside_buffer(g->nodes[i]));
    }

    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            struct span * x = &spans[a];
            struct span * y = &spans[b];
            // both alive at a time one of them is written
            bool live_together = x->def < y->last && y->def < x->last;
            if (!live_together || x->t->buffer != y->t->buffer) {
                continue;
            }
            const char * xs = x->t->data, * ys = y->t->data;
            bool overlap = xs < ys + ggml_nbytes(y->t) && ys < xs + ggml_nbytes(x->t);
            EXPECT_FALSE(overlap) {
                TH_LOG("%s [%d,%d] and %s [%d,%d] overlap", x->t->name, x->def, x->last, y->t->name, y->def, y->last);
            }
        }
    }

    int inplace = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        struct ggml_tensor * node = g->nodes[i];
        if (node->view_src) {
            continue;
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * s = node->src[j];
            if (s && s->view_src == NULL && s->data == node->data) {
                inplace++;
                // never an input or an output
                EXPECT_FALSE(s->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT));
            }
        }
    }
    return inplace;
}

TEST(tallocr_bump_and_full) {
    struct tb_device * d = host_dev(0, 64);
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(&d->buft, 1000);
    ASSERT_NE(NULL, buf);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tallocr ta = ggml_tallocr_new(buf);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10); // 40 -> 64
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    struct ggml_tensor * c = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 200);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_tallocr_alloc(&ta, a));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_tallocr_alloc(&ta, b));
    ASSERT_EQ((char *) a->data + 64, (char *) b->data);
    ASSERT_EQ(0, (uintptr_t) b->data % 64);
    ASSERT_EQ(GGML_STATUS_ALLOC_FAILED, ggml_tallocr_alloc(&ta, c));
    ASSERT_EQ(NULL, c->data);
    ggml_free(ctx);
    ggml_backend_buffer_free(buf);
}

TEST(random_graphs_properties) {
    struct tb_device * d = host_dev(0, 32);
    ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
    struct tb_rng rng = { 0x1234567 };
    int total_inplace = 0;
    const int n_graphs = 2000;
    for (int it = 0; it < n_graphs; it++) {
        struct ggml_context * ctx = new_ctx();
        int D = 2 + tb_rand(&rng) % 7;
        struct tb_graph tg = tb_random_graph(ctx, &rng, D, 1 + tb_rand(&rng) % 3, tb_rand(&rng) % 3, 4 + tb_rand(&rng) % 40);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg.graph));
        total_inplace += check_graph(_metadata, tg.graph, 0);
        ggml_free(ctx);
        if (_metadata->exit_code != 0) {
            TH_LOG("failed at graph %d", it);
            break;
        }
    }
    TH_LOG("%d in-place reuses over %d graphs", total_inplace, n_graphs);
    EXPECT_GT(total_inplace, n_graphs / 4);
    ggml_gallocr_free(galloc);
    EXPECT_EQ(0, d->n_buffers_live);
}

TEST(random_graphs_chunked_under_small_max_size) {
    // D <= 8: a tensor is at most 256 bytes, chunks of 1 KiB
    struct tb_device * d = host_dev(1024, 32);
    struct tb_rng rng = { 0xabcdef };
    int multi_chunk = 0;
    for (int it = 0; it < 500; it++) {
        ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
        int before = d->n_buffers_alloc;
        struct ggml_context * ctx = new_ctx();
        int D = 2 + tb_rand(&rng) % 7;
        struct tb_graph tg = tb_random_graph(ctx, &rng, D, 2, 2, 10 + tb_rand(&rng) % 40);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg.graph));
        check_graph(_metadata, tg.graph, 1024);
        if (d->n_buffers_alloc - before > 1) {
            multi_chunk++;
        }
        ggml_free(ctx);
        ggml_gallocr_free(galloc);
        ASSERT_EQ(0, _metadata->exit_code);
    }
    TH_LOG("%d of 500 graphs needed several chunks", multi_chunk);
    EXPECT_GT(multi_chunk, 50);
    EXPECT_EQ(0, d->n_buffers_live);
}

TEST(no_realloc_after_reserve) {
    struct tb_device * d = host_dev(0, 32);
    struct tb_rng rng = { 42 };
    for (int it = 0; it < 200; it++) {
        ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
        uint64_t seed = rng.s;
        struct ggml_context * ctx = new_ctx();
        struct tb_graph tg = tb_random_graph(ctx, &rng, 8, 2, 1, 30);
        ASSERT_TRUE(ggml_gallocr_reserve(galloc, tg.graph));
        int n_alloc = d->n_buffers_alloc;
        size_t size = ggml_gallocr_get_buffer_size(galloc, 0);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg.graph));
        EXPECT_EQ(n_alloc, d->n_buffers_alloc);
        check_graph(_metadata, tg.graph, 0);

        // the same graph built again (same seed): same buffers
        struct tb_rng again = { seed };
        struct ggml_context * ctx2 = new_ctx();
        struct tb_graph tg2 = tb_random_graph(ctx2, &again, 8, 2, 1, 30);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg2.graph));
        EXPECT_EQ(n_alloc, d->n_buffers_alloc);
        EXPECT_EQ(size, ggml_gallocr_get_buffer_size(galloc, 0));
        check_graph(_metadata, tg2.graph, 0);

        // a smaller graph fits the reservation too
        struct ggml_context * ctx3 = new_ctx();
        struct tb_graph tg3 = tb_random_graph(ctx3, &rng, 4, 2, 1, 30);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg3.graph));
        check_graph(_metadata, tg3.graph, 0);

        ggml_free(ctx);
        ggml_free(ctx2);
        ggml_free(ctx3);
        ggml_gallocr_free(galloc);
        ASSERT_EQ(0, _metadata->exit_code);
    }
}

TEST(inplace_chain_and_inputs_kept) {
    struct tb_device * d = host_dev(0, 32);
    ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_input(a);
    ggml_set_input(b);
    struct ggml_tensor * t1 = ggml_add(ctx, a, b);   // cannot reuse the inputs
    struct ggml_tensor * t2 = ggml_sqr(ctx, t1);     // in place over t1
    struct ggml_tensor * t3 = ggml_scale(ctx, t2, 2); // in place over t2
    struct ggml_tensor * t4 = ggml_mul_mat(ctx, t3, a); // not an in-place op
    ggml_set_output(t4);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, t4);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
    EXPECT_NE(a->data, t1->data);
    EXPECT_NE(b->data, t1->data);
    EXPECT_EQ(t1->data, t2->data);
    EXPECT_EQ(t2->data, t3->data);
    EXPECT_NE(t3->data, t4->data);
    check_graph(_metadata, g, 0);
    ggml_free(ctx);
    ggml_gallocr_free(galloc);
}

TEST(preallocated_tensors_left_alone) {
    struct tb_device * d = host_dev(0, 32);
    ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
    struct ggml_context * wctx = new_ctx();
    struct ggml_tensor * w = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, 64);
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, &d->buft);
    ASSERT_NE(NULL, wbuf);
    void * wdata = w->data;

    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_sqr(ctx, ggml_add(ctx, w, x));
    ggml_set_output(y);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, y);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
    EXPECT_EQ(wdata, w->data);
    EXPECT_EQ(wbuf, w->buffer);
    EXPECT_NE(wbuf, y->buffer);
    ggml_free(ctx);
    ggml_free(wctx);
    ggml_gallocr_free(galloc);
    ggml_backend_buffer_free(wbuf);
}

TEST(reserve_n_size_and_two_buffers) {
    struct tb_device * d1 = host_dev(0, 32);
    struct tb_device * d2 = host_dev(0, 64);
    ggml_backend_buffer_type_t bufts[2] = { &d1->buft, &d2->buft };
    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, 2);
    struct ggml_context * ctx = new_ctx();
    struct tb_rng rng = { 7 };
    struct tb_graph tg = tb_random_graph(ctx, &rng, 8, 2, 0, 20);
    int ids_n[2048], ids_l[2048];
    for (int i = 0; i < tg.graph->n_nodes; i++) {
        ids_n[i] = i % 2;
    }
    for (int i = 0; i < tg.graph->n_leafs; i++) {
        ids_l[i] = 0;
    }
    size_t sizes[2] = { 0, 0 };
    ggml_gallocr_reserve_n_size(galloc, tg.graph, ids_n, ids_l, sizes);
    EXPECT_GT(sizes[0], 0);
    EXPECT_GT(sizes[1], 0);
    EXPECT_EQ(0, d1->n_buffers_alloc);
    EXPECT_EQ(0, d2->n_buffers_alloc);
    // several buffers: alloc_graph without reserve_n refuses
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc, tg.graph));
    ASSERT_TRUE(ggml_gallocr_reserve_n(galloc, tg.graph, ids_n, ids_l));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, tg.graph));
    EXPECT_EQ(sizes[0], ggml_gallocr_get_buffer_size(galloc, 0));
    EXPECT_EQ(sizes[1], ggml_gallocr_get_buffer_size(galloc, 1));
    for (int i = 0; i < tg.graph->n_nodes; i++) {
        struct ggml_tensor * node = tg.graph->nodes[i];
        if (node->view_src == NULL) {
            EXPECT_EQ(bufts[i % 2], node->buffer->buft);
        }
    }
    check_graph(_metadata, tg.graph, 0);
    ggml_free(ctx);
    ggml_gallocr_free(galloc);
}

TEST(alloc_ctx_tensors_multi_buffer) {
    struct tb_device * d = host_dev(1000, 32);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t[10];
    for (int i = 0; i < 10; i++) {
        t[i] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 60); // 240 -> 256 bytes
    }
    struct ggml_tensor * v = ggml_view_1d(ctx, t[3], 10, 8);
    EXPECT_EQ(10 * 256, ggml_backend_alloc_ctx_tensors_from_buft_size(ctx, &d->buft));
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, &d->buft);
    ASSERT_NE(NULL, buf);
    EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(buf));
    EXPECT_EQ(10 * 256, ggml_backend_buffer_get_size(buf));
    EXPECT_EQ(4, d->n_buffers_alloc); // 3 + 3 + 3 + 1 tensors of 256 bytes in buffers of at most 1000
    for (int i = 0; i < 10; i++) {
        EXPECT_TRUE(inside_buffer(t[i]));
        EXPECT_LE(ggml_backend_buffer_get_size(t[i]->buffer), 1000);
    }
    EXPECT_EQ((char *) t[3]->data + 8, (char *) v->data);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_WEIGHTS, ggml_backend_buffer_get_usage(t[9]->buffer));
    ggml_backend_buffer_free(buf);
    EXPECT_EQ(0, d->n_buffers_live);
    ggml_free(ctx);
}

TEST(alloc_ctx_tensors_too_large_and_empty) {
    struct tb_device * d = host_dev(100, 32);
    struct ggml_context * ctx = new_ctx();
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 60); // 240 > 100
    EXPECT_EQ(NULL, ggml_backend_alloc_ctx_tensors_from_buft(ctx, &d->buft));
    EXPECT_EQ(0, d->n_buffers_live);
    ggml_free(ctx);

    struct ggml_context * empty = new_ctx();
    EXPECT_EQ(NULL, ggml_backend_alloc_ctx_tensors_from_buft(empty, &d->buft));
    ggml_free(empty);
}

TEST(buffer_allocation_failure_is_reported) {
    // a tensor larger than the buffer type's max size: the chunk cannot be allocated
    struct tb_device * d = host_dev(1024, 32);
    ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2048);
    ggml_set_input(a);
    struct ggml_tensor * b = ggml_sqr(ctx, a);
    ggml_set_output(b);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, b);
    EXPECT_FALSE(ggml_gallocr_reserve(galloc, g));
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc, g));
    EXPECT_EQ(NULL, b->data);
    ggml_free(ctx);
    ggml_gallocr_free(galloc);
    EXPECT_EQ(0, d->n_buffers_live);
}

TEST(plan_not_reused_for_other_dependencies) {
    // graphs with as many nodes and leafs as the reserved one, wired differently
    struct tb_device * d = host_dev(0, 32);
    struct tb_rng rng = { 4242 };
    int pairs = 0;
    for (int it = 0; it < 200 && pairs < 60; it++) {
        ggml_gallocr_t galloc = ggml_gallocr_new(&d->buft);
        struct ggml_context * ctx1 = new_ctx();
        struct tb_graph g1 = tb_random_graph(ctx1, &rng, 4, 2, 1, 12);
        ASSERT_TRUE(ggml_gallocr_reserve(galloc, g1.graph));
        for (int k = 0; k < 40; k++) {
            struct ggml_context * ctx2 = new_ctx();
            struct tb_graph g2 = tb_random_graph(ctx2, &rng, 4, 2, 1, 12);
            if (g2.graph->n_nodes == g1.graph->n_nodes && g2.graph->n_leafs == g1.graph->n_leafs) {
                ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g2.graph));
                check_graph(_metadata, g2.graph, 0);
                pairs++;
                ggml_free(ctx2);
                break;
            }
            ggml_free(ctx2);
        }
        ggml_free(ctx1);
        ggml_gallocr_free(galloc);
        ASSERT_EQ(0, _metadata->exit_code);
    }
    TH_LOG("%d graphs of the reserved size checked", pairs);
    EXPECT_GT(pairs, 10);
}

TEST_HARNESS_MAIN
