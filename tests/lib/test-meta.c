// SPDX-License-Identifier: MIT
//
// test-meta: the meta device (ggml_backend_meta_device, tensor parallelism)
// over two CPU backends and over the CPU and a test device whose memory is
// not host memory. Weights split along each axis (uneven slices included)
// round-trip through set/get; an attention + MLP block (row- and
// column-split products, partial sums, reshapes, permutes, RoPE, softmax,
// GLU) computed on the meta backend, directly and through the scheduler
// with the inputs on the CPU, equals the same graph on the CPU backend;
// splits the meta backend cannot run fail cleanly.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"
#include "testbackend.h"

// ---- split states by tensor name -------------------------------------------

struct split_rule {
    const char * name;
    int axis;        // or GGML_BACKEND_SPLIT_AXIS_MIRRORED
    int64_t first;   // slice of device 0 (device 1: the rest); 0: halves, -1: empty
};

struct split_rules {
    const struct split_rule * r;
    int n;
    int calls;
};

static struct ggml_backend_meta_split_state by_name(const struct ggml_tensor * t, void * ud) {
    struct split_rules * rules = ud;
    struct ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.nr[0] = 1;
    s.n_segments = 1;
    rules->calls++;
    // fused weights: segments split each on their own
    if (strcmp(t->name, "wqkv") == 0) { // Q (16 + 16 rows), then K and V (16 + 16 each): 2 segments
        s.axis = 1;
        s.n_segments = 2;
        s.ne[0] = 16, s.ne[1] = 16, s.nr[0] = 1;
        s.ne[2] = 16, s.ne[3] = 16, s.nr[1] = 2;
        return s;
    }
    if (strcmp(t->name, "w13") == 0) { // gate and up, 20 + 28 rows each: one segment twice
        s.axis = 1;
        s.ne[0] = 20, s.ne[1] = 28, s.nr[0] = 2;
        return s;
    }
    for (int i = 0; i < rules->n; i++) {
        if (strcmp(rules->r[i].name, t->name) == 0) {
            s.axis = rules->r[i].axis;
            if (s.axis >= 0 && s.axis < GGML_MAX_DIMS) {
                const int64_t ne = t->ne[s.axis];
                s.ne[0] = rules->r[i].first < 0 ? 0 : rules->r[i].first ? rules->r[i].first : ne / 2;
                s.ne[1] = ne - s.ne[0];
            }
        }
    }
    return s;
}

static ggml_backend_dev_t cpu_dev(void) {
    ggml_backend_dev_t d = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    return d;
}

static void fill_rand(float * v, int64_t n, uint64_t seed) {
    struct tb_rng r = { seed * 2654435761u + 7 };
    for (int64_t i = 0; i < n; i++) {
        v[i] = tb_randf(&r);
    }
}

static struct ggml_context * new_ctx(size_t n_tensors) {
    struct ggml_init_params p = { ggml_tensor_overhead() * n_tensors + ggml_graph_overhead() + 4096, NULL, true };
    return ggml_init(p);
}

// ---- device ----------------------------------------------------------------

TEST(device_identity_and_props) {
    static const struct split_rule none[] = { { "x", GGML_BACKEND_SPLIT_AXIS_MIRRORED, 0 } };
    struct split_rules rules = { none, 1, 0 }, other = { none, 1, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ASSERT_NE(m, NULL);
    EXPECT_EQ(m, ggml_backend_meta_device(devs, 2, by_name, &rules));
    EXPECT_NE(m, ggml_backend_meta_device(devs, 2, by_name, &other));
    EXPECT_NE(m, ggml_backend_meta_device(devs, 1, by_name, &rules));
    EXPECT_STREQ(ggml_backend_dev_name(m), "Meta(CPU,CPU)");
    EXPECT_EQ(ggml_backend_dev_type(m), GGML_BACKEND_DEVICE_TYPE_META);
    size_t f1, t1, f2, t2;
    ggml_backend_dev_memory(devs[0], &f1, &t1);
    ggml_backend_dev_memory(m, &f2, &t2);
    EXPECT_EQ(t2, 2 * t1);
    struct ggml_backend_dev_props p;
    ggml_backend_dev_get_props(m, &p);
    EXPECT_EQ(p.type, GGML_BACKEND_DEVICE_TYPE_META);
    EXPECT_FALSE(p.caps.events);
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(m);
    EXPECT_TRUE(ggml_backend_buft_is_meta(buft));
    EXPECT_FALSE(ggml_backend_buft_is_host(buft));
    EXPECT_STREQ(ggml_backend_buft_name(buft), "Meta(CPU,CPU)");
    EXPECT_EQ(ggml_backend_buft_get_device(buft), m);
    EXPECT_TRUE(ggml_backend_dev_supports_buft(m, buft));
    EXPECT_TRUE(ggml_backend_dev_supports_buft(m, ggml_backend_dev_buffer_type(ggml_backend_meta_device(devs, 2, by_name, &other))));
    EXPECT_FALSE(ggml_backend_dev_supports_buft(m, ggml_backend_dev_buffer_type(devs[0])));
    EXPECT_FALSE(ggml_backend_dev_supports_buft(devs[0], buft));
    ggml_backend_t be = ggml_backend_dev_init(m, NULL);
    ASSERT_NE(be, NULL);
    EXPECT_TRUE(ggml_backend_is_meta(be));
    EXPECT_STREQ(ggml_backend_name(be), "Meta(CPU,CPU)");
    EXPECT_EQ(ggml_backend_meta_n_backends(be), 2);
    EXPECT_NE(ggml_backend_meta_simple_backend(be, 0), ggml_backend_meta_simple_backend(be, 1));
    EXPECT_EQ(ggml_backend_get_device(be), m);
    ggml_backend_free(be);
}

// ---- set/get ---------------------------------------------------------------

TEST(weights_round_trip_every_axis) {
    static const struct split_rule rs[] = {
        { "a0", 0, 0 }, { "a0u", 0, 3 }, { "a1", 1, 3 }, { "a2", 2, 2 }, { "a3", 3, 1 },
        { "q", 0, 64 }, { "m", GGML_BACKEND_SPLIT_AXIS_MIRRORED, 0 },
    };
    struct split_rules rules = { rs, 7, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    struct ggml_context * ctx = new_ctx(16);
    struct ggml_tensor * ts[7] = {
        ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 5), ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 5),
        ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 10, 3), ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 2, 5, 2),
        ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 2, 3, 2, 4), ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 128, 3),
        ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 6),
    };
    static const char * names[7] = { "a0", "a0u", "a1", "a2", "a3", "q", "m" };
    for (int i = 0; i < 7; i++) {
        ggml_set_name(ts[i], names[i]);
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(m));
    ASSERT_NE(buf, NULL);
    EXPECT_TRUE(ggml_backend_buffer_is_meta(buf));
    EXPECT_GE(rules.calls, 7);
    for (int i = 0; i < 7; i++) {
        const size_t nb = ggml_nbytes(ts[i]);
        uint8_t * in = malloc(nb), * out = malloc(nb);
        for (size_t k = 0; k < nb; k++) {
            in[k] = (uint8_t) (k * 131 + i * 7 + (k >> 8));
        }
        memset(out, 0, nb);
        ggml_backend_tensor_set(ts[i], in, 0, nb);
        ggml_backend_tensor_get(ts[i], out, 0, nb);
        EXPECT_EQ(memcmp(in, out, nb), 0) TH_LOG("tensor %s", names[i]);
        // a whole slab (row of the axes above the split one) at an offset
        if (i == 2) {
            const size_t slab = ts[i]->nb[2];
            memset(out, 0, nb);
            ggml_backend_tensor_set(ts[i], in + slab, slab, slab);
            ggml_backend_tensor_get(ts[i], out, slab, 2 * slab);
            EXPECT_EQ(memcmp(in + slab, out, 2 * slab), 0);
        }
        free(in);
        free(out);
    }
    // a tensor in segments (fused Q/K/V rows split each on their own)
    {
        struct ggml_context * c2 = new_ctx(4);
        struct ggml_tensor * f = ggml_new_tensor_2d(c2, GGML_TYPE_F32, 3, 96); // 3 x H x D rows, as below
        ggml_set_name(f, "wqkv");
        ggml_backend_buffer_t b2 = ggml_backend_alloc_ctx_tensors_from_buft(c2, ggml_backend_dev_buffer_type(m));
        ASSERT_NE(b2, NULL);
        float in[3 * 96], out[3 * 96];
        fill_rand(in, 3 * 96, 5);
        ggml_backend_tensor_set(f, in, 0, sizeof(in));
        memset(out, 0, sizeof(out));
        ggml_backend_tensor_get(f, out, 0, sizeof(out));
        EXPECT_EQ(memcmp(in, out, sizeof(in)), 0);
        ggml_backend_buffer_free(b2);
        ggml_free(c2);
    }
    // memset of a whole split tensor
    ggml_backend_tensor_memset(ts[2], 0, 0, ggml_nbytes(ts[2]));
    float z[120];
    ggml_backend_tensor_get(ts[2], z, 0, sizeof(z));
    for (int k = 0; k < 120; k++) {
        ASSERT_EQ(z[k], 0.0f);
    }
    // each device holds its slices only: less than the whole per device
    size_t whole = 0;
    for (int i = 0; i < 7; i++) {
        whole += ggml_nbytes(ts[i]);
    }
    EXPECT_GE(ggml_backend_buffer_get_size(buf), whole);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

TEST(bad_split_states_are_refused) {
    static const struct split_rule rs[] = { { "w", 0, 16 } }; // not a whole Q8_0 block
    struct split_rules rules = { rs, 1, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    struct ggml_context * ctx = new_ctx(4);
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 2);
    ggml_set_name(w, "w");
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(m)), NULL);
    ggml_free(ctx);
}

// ---- a transformer block ---------------------------------------------------

enum { E = 32, F = 48, H = 4, D = 8, T = 5 };

// the fused variant: Q, K, V from one product, gate and up from another
static bool g_fused;

struct block {
    struct ggml_context * cw, * cg;
    struct ggml_tensor * wqkv, * w13;
    ggml_backend_buffer_t wbuf;
    struct ggml_tensor * wq, * wk, * wv, * wo, * w1, * w3, * w2, * b1, * g, * kcache;
    struct ggml_tensor * x, * pos, * mask, * rows, * out;
    struct ggml_cgraph * gf;
};

static const struct split_rule block_rules[] = {
    { "wq", 1, 16 }, { "wk", 1, 16 }, { "wv", 1, 16 }, // heads 2 + 2
    { "wo", 0, 16 },
    { "w1", 1, 20 }, { "w3", 1, 20 }, { "w2", 0, 20 }, // FFN 20 + 28
    { "b1", 0, 20 },
    { "g", GGML_BACKEND_SPLIT_AXIS_MIRRORED, 0 },
    { "kcache", 0, 16 }, // a K cache split by heads
};

static void block_graph(struct block * b, bool silu);

// the weights (in wbuft), then the graph; inputs x, pos, mask stay unallocated
static void block_build(struct block * b, ggml_backend_buffer_type_t wbuft, bool silu) {
    b->cw = new_ctx(16);
    b->wq = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, H * D);
    b->wk = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, H * D);
    b->wv = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, H * D);
    b->wo = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, H * D, E);
    b->w1 = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, F);
    b->w3 = ggml_new_tensor_2d(b->cw, silu ? GGML_TYPE_F16 : GGML_TYPE_F32, E, F); // the test device: F32 only
    b->w2 = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, F, E);
    b->b1 = ggml_new_tensor_1d(b->cw, GGML_TYPE_F32, F);
    b->g = ggml_new_tensor_1d(b->cw, GGML_TYPE_F32, E);
    b->kcache = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, H * D, T + 3);
    b->wqkv = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, 3 * H * D);
    b->w13 = ggml_new_tensor_2d(b->cw, GGML_TYPE_F32, E, 2 * F);
    struct ggml_tensor * ws[] = { b->wq, b->wk, b->wv, b->wo, b->w1, b->w3, b->w2, b->b1, b->g, b->kcache, b->wqkv, b->w13 };
    static const char * names[] = { "wq", "wk", "wv", "wo", "w1", "w3", "w2", "b1", "g", "kcache", "wqkv", "w13" };
    for (int i = 0; i < 12; i++) {
        ggml_set_name(ws[i], names[i]);
    }
    b->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(b->cw, wbuft);
    ggml_backend_buffer_set_usage(b->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (int i = 0; i < 12; i++) {
        const int64_t n = ggml_nelements(ws[i]);
        float * v = malloc(n * sizeof(float));
        fill_rand(v, n, 100 + i);
        if (ws[i]->type == GGML_TYPE_F16) {
            ggml_fp16_t * h = malloc(n * sizeof(*h));
            ggml_fp32_to_fp16_row(v, h, n);
            ggml_backend_tensor_set(ws[i], h, 0, n * sizeof(*h));
            free(h);
        } else {
            ggml_backend_tensor_set(ws[i], v, 0, n * sizeof(float));
        }
        free(v);
    }
    block_graph(b, silu);
}

// the block's graph (again: a new context, as each step of a model makes)
static void block_graph(struct block * b, bool silu) {
    struct ggml_init_params p = { 256 * ggml_tensor_overhead() + 2 * ggml_graph_overhead(), NULL, true };
    b->cg = ggml_init(p);
    struct ggml_context * c = b->cg;
    b->x = ggml_new_tensor_2d(c, GGML_TYPE_F32, E, T);
    b->pos = ggml_new_tensor_1d(c, GGML_TYPE_I32, T);
    b->mask = ggml_new_tensor_2d(c, GGML_TYPE_F32, T, T);
    ggml_set_input(b->x);
    ggml_set_input(b->pos);
    ggml_set_input(b->mask);
    b->rows = ggml_new_tensor_1d(c, GGML_TYPE_I64, T);
    ggml_set_input(b->rows);
    struct ggml_tensor * xn = ggml_mul(c, ggml_rms_norm(c, b->x, 1e-5f), b->g);
    // attention: heads split, the output projection gives partial sums
    struct ggml_tensor * q, * k, * v;
    if (g_fused) { // views of one product, whose rows hold segments split apart
        struct ggml_tensor * qkv = ggml_mul_mat(c, b->wqkv, xn);
        q = ggml_view_3d(c, qkv, D, H, T, D * sizeof(float), qkv->nb[1], 0);
        k = ggml_view_3d(c, qkv, D, H, T, D * sizeof(float), qkv->nb[1], H * D * sizeof(float));
        v = ggml_view_3d(c, qkv, D, H, T, D * sizeof(float), qkv->nb[1], 2 * H * D * sizeof(float));
    } else {
        q = ggml_reshape_3d(c, ggml_mul_mat(c, b->wq, xn), D, H, T);
        k = ggml_reshape_3d(c, ggml_mul_mat(c, b->wk, xn), D, H, T);
        v = ggml_reshape_3d(c, ggml_mul_mat(c, b->wv, xn), D, H, T);
    }
    q = ggml_rope_ext(c, q, b->pos, NULL, D, GGML_ROPE_TYPE_NEOX, 64, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    k = ggml_rope_ext(c, k, b->pos, NULL, D, GGML_ROPE_TYPE_NEOX, 64, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    // K through a cache split by heads: rows stored, then read back as
    // [D, H, T] through a view that splits the cache's row into two axes
    struct ggml_tensor * kc = ggml_set_rows(c, b->kcache, ggml_reshape_2d(c, k, D * H, T), b->rows);
    k = ggml_view_3d(c, kc, D, H, T, D * sizeof(float), kc->nb[1], 2 * kc->nb[1]);
    q = ggml_permute(c, q, 0, 2, 1, 3);                               // [D, T, H]
    k = ggml_permute(c, k, 0, 2, 1, 3);
    struct ggml_tensor * kq = ggml_mul_mat(c, k, q);                  // [T, T, H]
    kq = ggml_soft_max_ext(c, kq, b->mask, 1.0f / sqrtf((float) D), 0.0f);
    struct ggml_tensor * vt = ggml_cont(c, ggml_permute(c, v, 1, 2, 0, 3)); // [T, D, H]
    struct ggml_tensor * kqv = ggml_mul_mat(c, vt, kq);                // [D, T, H]
    kqv = ggml_cont_2d(c, ggml_permute(c, kqv, 0, 2, 1, 3), D * H, T); // [D*H, T]
    struct ggml_tensor * h = ggml_add(c, b->x, ggml_mul_mat(c, b->wo, kqv));
    // FFN: columns split, partial sums again
    struct ggml_tensor * hn = ggml_rms_norm(c, h, 1e-5f);
    struct ggml_tensor * up, * gate;
    if (g_fused) {
        struct ggml_tensor * gu = ggml_mul_mat(c, b->w13, hn);
        gate = ggml_view_2d(c, gu, F, T, gu->nb[1], 0);
        up = ggml_add(c, ggml_view_2d(c, gu, F, T, gu->nb[1], F * sizeof(float)), b->b1);
    } else {
        up = ggml_add(c, ggml_mul_mat(c, b->w1, hn), b->b1);
        gate = ggml_mul_mat(c, b->w3, hn);
    }
    struct ggml_tensor * act = silu ? ggml_swiglu_split(c, gate, up) : ggml_mul(c, ggml_sqr(c, gate), up);
    b->out = ggml_add(c, h, ggml_scale(c, ggml_mul_mat(c, b->w2, act), 0.5f));
    ggml_set_output(b->out);
    b->gf = ggml_new_graph(c);
    ggml_build_forward_expand(b->gf, b->out);
}

static void block_inputs(struct block * b) {
    float x[E * T], mask[T * T];
    int32_t pos[T];
    fill_rand(x, E * T, 7);
    for (int i = 0; i < T; i++) {
        pos[i] = i + 3;
        for (int j = 0; j < T; j++) {
            mask[i * T + j] = j <= i ? 0.0f : -INFINITY;
        }
    }
    ggml_backend_tensor_set(b->x, x, 0, sizeof(x));
    ggml_backend_tensor_set(b->pos, pos, 0, sizeof(pos));
    ggml_backend_tensor_set(b->mask, mask, 0, sizeof(mask));
    int64_t rows[T];
    for (int i = 0; i < T; i++) {
        rows[i] = i + 2;
    }
    ggml_backend_tensor_set(b->rows, rows, 0, sizeof(rows));
}

static void block_free(struct block * b) {
    ggml_backend_buffer_free(b->wbuf);
    ggml_free(b->cw);
    ggml_free(b->cg);
}

// the block on one backend, allocated by a graph allocator on its buffer type
static int block_run(struct block * b, ggml_backend_t be, float * out) {
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_get_default_buffer_type(be));
    if (!ggml_gallocr_alloc_graph(ga, b->gf)) {
        ggml_gallocr_free(ga);
        return -1;
    }
    block_inputs(b);
    enum ggml_status st = ggml_backend_graph_compute(be, b->gf);
    if (st == GGML_STATUS_SUCCESS) {
        ggml_backend_tensor_get(b->out, out, 0, sizeof(float) * E * T);
    }
    ggml_gallocr_free(ga);
    return st == GGML_STATUS_SUCCESS ? 0 : -2;
}

static double rel_err(const float * a, const float * b, int n) {
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (double) (a[i] - b[i]);
        den += (double) b[i] * b[i];
    }
    return sqrt(num / den);
}

// the heads all on device 0, the FFN all on device 1: empty slices
static const struct split_rule lopsided_rules[] = {
    { "wq", 1, 32 }, { "wk", 1, 32 }, { "wv", 1, 32 }, { "wo", 0, 32 },
    { "w1", 1, -1 }, { "w3", 1, -1 }, { "w2", 0, -1 }, { "b1", 0, -1 },
    { "g", GGML_BACKEND_SPLIT_AXIS_MIRRORED, 0 }, { "kcache", 0, 32 },
};

static void block_vs_cpu_rules(struct __test_metadata * _metadata, ggml_backend_dev_t d1, bool silu, bool sched,
                               const struct split_rule * rs) {
    struct split_rules rules = { rs, 10, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), d1 };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_t meta = ggml_backend_dev_init(m, NULL);
    ASSERT_NE(meta, NULL);

    float ref[E * T], got[E * T];
    struct block bc, bm;
    block_build(&bc, ggml_backend_get_default_buffer_type(cpu), silu);
    ASSERT_EQ(block_run(&bc, cpu, ref), 0);
    block_build(&bm, ggml_backend_dev_buffer_type(m), silu);
    ASSERT_NE(bm.wbuf, NULL);
    EXPECT_TRUE(ggml_backend_buffer_is_meta(bm.wbuf));
    if (!sched) {
        ASSERT_EQ(block_run(&bm, meta, got), 0);
    } else {
        // weights on the meta device, inputs and output on the CPU; three
        // steps, each a new graph (views of the weights and cache made anew)
        ggml_backend_t bes[2] = { meta, cpu };
        ggml_backend_sched_t s = ggml_backend_sched_new(bes, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
        for (int step = 0; step < 3; step++) {
            if (step > 0) {
                ggml_backend_sched_reset(s);
                ggml_free(bm.cg);
                block_graph(&bm, silu);
            }
            ASSERT_TRUE(ggml_backend_sched_alloc_graph(s, bm.gf));
            EXPECT_EQ(ggml_backend_sched_get_tensor_backend(s, ggml_graph_node(bm.gf, 3)), meta);
            block_inputs(&bm);
            ASSERT_EQ(ggml_backend_sched_graph_compute(s, bm.gf), GGML_STATUS_SUCCESS);
            ggml_backend_tensor_get(bm.out, got, 0, sizeof(got));
            const double e = rel_err(got, ref, E * T);
            EXPECT_LT(e, 1e-5) TH_LOG("step %d: meta vs CPU: relative error %g", step, e);
        }
        ggml_backend_sched_free(s);
    }
    const double e = rel_err(got, ref, E * T);
    EXPECT_LT(e, 1e-5) TH_LOG("meta vs CPU: relative error %g", e);
    // and not by accident: the output depends on the split weights
    EXPECT_GT(fabs(ref[0]) + fabs(ref[E * T - 1]), 1e-3);
    block_free(&bc);
    block_free(&bm);
    ggml_backend_free(meta);
    ggml_backend_free(cpu);
}

static void block_vs_cpu(struct __test_metadata * _metadata, ggml_backend_dev_t d1, bool silu, bool sched) {
    block_vs_cpu_rules(_metadata, d1, silu, sched, block_rules);
}

TEST(block_fused_weights_in_segments) {
    g_fused = true;
    block_vs_cpu(_metadata, cpu_dev(), true, false);
    g_fused = false;
}

TEST(block_with_empty_slices) {
    block_vs_cpu_rules(_metadata, cpu_dev(), true, false, lopsided_rules);
}

TEST(block_two_cpus_equals_cpu) {
    block_vs_cpu(_metadata, cpu_dev(), true, false);
}

TEST(block_two_cpus_through_scheduler) {
    block_vs_cpu(_metadata, cpu_dev(), true, true);
}

// the CPU and a device with its own memory: slices cross through set/get
TEST(block_cpu_and_test_device) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "ACC";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    struct tb_device * acc = tb_device_new(&cfg);
    // the test device runs few ops: an FFN-only graph (MUL_MAT, ADD, MUL, SQR, SCALE)
    struct split_rules rules = { block_rules, 10, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), &acc->dev };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_t meta = ggml_backend_dev_init(m, NULL);
    ASSERT_NE(meta, NULL);
    float ref[E * T], got[E * T];
    for (int run = 0; run < 2; run++) {
        struct block b;
        block_build(&b, run ? ggml_backend_dev_buffer_type(m) : ggml_backend_get_default_buffer_type(cpu), false);
        // the FFN alone on x: out = x + 0.5 * w2 ((w3 x)^2 * (w1 x + b1))
        struct ggml_tensor * up = ggml_add(b.cg, ggml_mul_mat(b.cg, b.w1, b.x), b.b1);
        struct ggml_tensor * gate = ggml_mul_mat(b.cg, b.w3, b.x);
        struct ggml_tensor * act = ggml_mul(b.cg, ggml_sqr(b.cg, gate), up);
        b.out = ggml_add(b.cg, b.x, ggml_scale(b.cg, ggml_mul_mat(b.cg, b.w2, act), 0.5f));
        b.gf = ggml_new_graph(b.cg);
        ggml_build_forward_expand(b.gf, b.out);
        for (int i = 0; i < ggml_graph_n_nodes(b.gf); i++) {
            ASSERT_TRUE(ggml_backend_supports_op(run ? meta : cpu, ggml_graph_node(b.gf, i)));
        }
        ggml_gallocr_t ga = ggml_gallocr_new(run ? ggml_backend_dev_buffer_type(m) : ggml_backend_get_default_buffer_type(cpu));
        ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, b.gf));
        float x[E * T];
        fill_rand(x, E * T, 7);
        ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
        ASSERT_EQ(ggml_backend_graph_compute(run ? meta : cpu, b.gf), GGML_STATUS_SUCCESS);
        ggml_backend_tensor_get(b.out, run ? got : ref, 0, sizeof(got));
        ggml_gallocr_free(ga);
        block_free(&b);
    }
    EXPECT_GT(acc->n_compute, 0);
    const double e = rel_err(got, ref, E * T);
    EXPECT_LT(e, 1e-5) TH_LOG("meta vs CPU: relative error %g", e);
    ggml_backend_free(meta);
    ggml_backend_free(cpu);
}

// A registry with its own reductions (upstream's ggml_backend_comm_*
// procedures, here summing through host memory and counting): the meta
// backend uses them for the partial sums.
struct comm_ctx { size_t n; int calls; };
static int comm_inits, comm_frees, comm_calls;

static void * comm_init(ggml_backend_t * backends, size_t n) {
    (void) backends;
    struct comm_ctx * c = calloc(1, sizeof(*c));
    c->n = n;
    comm_inits++;
    return c;
}

static void comm_free(void * ctx) {
    comm_frees++;
    free(ctx);
}

static bool comm_allreduce(void * ctx, struct ggml_tensor ** ts) {
    struct comm_ctx * c = ctx;
    const int64_t ne = ggml_nelements(ts[0]);
    float * sum = calloc(ne, sizeof(float)), * tmp = malloc(ne * sizeof(float));
    for (size_t j = 0; j < c->n; j++) {
        ggml_backend_tensor_get(ts[j], tmp, 0, ne * sizeof(float));
        for (int64_t i = 0; i < ne; i++) {
            sum[i] += tmp[i];
        }
    }
    for (size_t j = 0; j < c->n; j++) {
        ggml_backend_tensor_set(ts[j], sum, 0, ne * sizeof(float));
    }
    free(sum);
    free(tmp);
    comm_calls++;
    return true;
}

static void * comm_proc(ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    if (strcmp(name, "ggml_backend_comm_init") == 0) {
        return (void *) comm_init;
    }
    if (strcmp(name, "ggml_backend_comm_free") == 0) {
        return (void *) comm_free;
    }
    if (strcmp(name, "ggml_backend_comm_allreduce_tensor") == 0) {
        return (void *) comm_allreduce;
    }
    return NULL;
}

TEST(partial_sums_through_the_registry_reduction) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "ACC2";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.host = true;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    struct tb_device * acc = tb_device_new(&cfg);
    acc->reg.iface.get_proc_address = comm_proc;
    static const struct split_rule rs[] = { { "a", 0, 8 }, { "b", 0, 8 } };
    struct split_rules rules = { rs, 2, 0 };
    ggml_backend_dev_t devs[2] = { &acc->dev, cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ggml_backend_t meta = ggml_backend_dev_init(m, NULL);
    ASSERT_NE(meta, NULL);
    EXPECT_EQ(comm_inits, 1);
    struct ggml_context * cw = new_ctx(4);
    struct ggml_tensor * a = ggml_new_tensor_2d(cw, GGML_TYPE_F32, 16, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(cw, GGML_TYPE_F32, 16, 5);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");
    ggml_backend_buffer_t wb = ggml_backend_alloc_ctx_tensors_from_buft(cw, ggml_backend_dev_buffer_type(m));
    ASSERT_NE(wb, NULL);
    float av[48], bv[80], out[15];
    fill_rand(av, 48, 1);
    fill_rand(bv, 80, 2);
    ggml_backend_tensor_set(a, av, 0, sizeof(av));
    ggml_backend_tensor_set(b, bv, 0, sizeof(bv));
    struct ggml_context * cg = new_ctx(8);
    struct ggml_tensor * p = ggml_mul_mat(cg, a, b); // [3, 5], the inner dimension split
    struct ggml_tensor * o = ggml_scale(cg, p, 2.0f);
    struct ggml_cgraph * gf = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, o);
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_dev_buffer_type(m));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, gf));
    ASSERT_EQ(ggml_backend_graph_compute(meta, gf), GGML_STATUS_SUCCESS);
    EXPECT_EQ(comm_calls, 1);
    ggml_backend_tensor_get(o, out, 0, sizeof(out));
    for (int c = 0; c < 5; c++) {
        for (int r = 0; r < 3; r++) {
            double ref = 0;
            for (int k = 0; k < 16; k++) {
                ref += (double) av[r * 16 + k] * bv[c * 16 + k];
            }
            EXPECT_LT(fabs(out[c * 3 + r] - 2 * ref), 1e-4) TH_LOG("out[%d][%d]", c, r);
        }
    }
    ggml_gallocr_free(ga);
    ggml_free(cg);
    ggml_backend_buffer_free(wb);
    ggml_free(cw);
    ggml_backend_free(meta);
    EXPECT_EQ(comm_frees, 1);
}

// a decode step: one column, so the views of the fused product have axes of
// one index (strides never stepped)
TEST(decode_view_of_fused_product) {
    struct split_rules rules = { block_rules, 10, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ggml_backend_t meta = ggml_backend_dev_init(m, NULL);
    struct ggml_context * cw = new_ctx(4);
    struct ggml_tensor * w = ggml_new_tensor_2d(cw, GGML_TYPE_F32, E, 3 * H * D);
    ggml_set_name(w, "wqkv");
    ggml_backend_buffer_t wb = ggml_backend_alloc_ctx_tensors_from_buft(cw, ggml_backend_dev_buffer_type(m));
    ASSERT_NE(wb, NULL);
    float wv[E * 3 * H * D], xv[E], out[2 * H * D];
    fill_rand(wv, E * 3 * H * D, 3);
    fill_rand(xv, E, 4);
    ggml_backend_tensor_set(w, wv, 0, sizeof(wv));
    struct ggml_context * cg = new_ctx(16);
    struct ggml_tensor * x = ggml_new_tensor_2d(cg, GGML_TYPE_F32, E, 1);
    struct ggml_tensor * qkv = ggml_mul_mat(cg, w, x);
    struct ggml_tensor * kv = ggml_view_3d(cg, qkv, D, 2 * H, 1, D * sizeof(float), qkv->nb[1], H * D * sizeof(float));
    struct ggml_tensor * o = ggml_cont(cg, kv);
    struct ggml_cgraph * gf = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, o);
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_dev_buffer_type(m));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, gf));
    ggml_backend_tensor_set(x, xv, 0, sizeof(xv));
    ASSERT_EQ(ggml_backend_graph_compute(meta, gf), GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(o, out, 0, sizeof(out));
    for (int r = 0; r < 2 * H * D; r++) { // K and V: rows H*D.. of the weight
        double ref = 0;
        for (int k = 0; k < E; k++) {
            ref += (double) wv[(H * D + r) * E + k] * xv[k];
        }
        EXPECT_LT(fabs(out[r] - ref), 1e-4) TH_LOG("row %d", r);
    }
    ggml_gallocr_free(ga);
    ggml_free(cg);
    ggml_backend_buffer_free(wb);
    ggml_free(cw);
    ggml_backend_free(meta);
}

// a product of two row-split matrices (no rule for it) fails, not aborts
TEST(unsupported_split_fails_cleanly) {
    static const struct split_rule rs[] = { { "a", 1, 0 }, { "b", 1, 0 } };
    struct split_rules rules = { rs, 2, 0 };
    ggml_backend_dev_t devs[2] = { cpu_dev(), cpu_dev() };
    ggml_backend_dev_t m = ggml_backend_meta_device(devs, 2, by_name, &rules);
    ggml_backend_t meta = ggml_backend_dev_init(m, NULL);
    struct ggml_context * cw = new_ctx(4);
    struct ggml_tensor * a = ggml_new_tensor_2d(cw, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(cw, GGML_TYPE_F32, 8, 6);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");
    ggml_backend_buffer_t wb = ggml_backend_alloc_ctx_tensors_from_buft(cw, ggml_backend_dev_buffer_type(m));
    ASSERT_NE(wb, NULL);
    struct ggml_context * cg = new_ctx(8);
    struct ggml_tensor * out = ggml_mul_mat(cg, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, out);
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_dev_buffer_type(m));
    const bool alloc_ok = ggml_gallocr_alloc_graph(ga, gf);
    EXPECT_TRUE(!alloc_ok || ggml_backend_graph_compute(meta, gf) == GGML_STATUS_FAILED);
    ggml_gallocr_free(ga);
    ggml_free(cg);
    ggml_backend_buffer_free(wb);
    ggml_free(cw);
    ggml_backend_free(meta);
}

TEST_HARNESS_MAIN
