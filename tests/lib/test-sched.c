// SPDX-License-Identifier: MIT
//
// test-sched: the backend scheduler against a test backend that supports
// only some ops and has its own buffer type (not host memory, so the
// scheduler must copy between it and the CPU). Random graphs give the same
// results split as on one backend; hand-made graphs give the expected
// splits and copies; the eval callback sees what it asks for and can cancel;
// n_copies with events; reserve, buffer sizes, user assignments, op_offload,
// GGML_SCHED_DEBUG.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"
#include "test-abort.h"
#include "test-log.h"
#include "testbackend.h"

// ---- helpers ---------------------------------------------------------------

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params p = { .mem_size = tb_ctx_size(), .mem_buffer = NULL, .no_alloc = true };
    return ggml_init(p);
}

// the accelerator-like test device: ops, not host memory
static struct tb_device * accel_dev(const char * name, const enum ggml_op * ops, int n_ops, bool events, bool read_host, bool offload) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = name;
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.host = false;
    cfg.events = events;
    cfg.read_host = read_host;
    cfg.offload = offload;
    tb_config_ops(&cfg, ops, n_ops);
    return tb_device_new(&cfg);
}

// a CPU-type test device with every op of the test kernels (exact reference)
static struct tb_device * tcpu_dev(void) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "TCPU";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_CPU;
    cfg.host = true;
    cfg.read_host = true;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    return tb_device_new(&cfg);
}

static void fill(struct ggml_tensor * t, uint64_t seed) {
    struct tb_rng r = { seed * 2654435761u + 12345 };
    int64_t n = ggml_nelements(t);
    float * v = malloc(n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        v[i] = tb_randf(&r);
    }
    ggml_backend_tensor_set(t, v, 0, n * sizeof(float));
    free(v);
}

struct run {
    struct ggml_context * ctx;
    struct ggml_context * ctx_w;
    ggml_backend_buffer_t wbuf;
    struct tb_graph tg;
};

// a random graph of seed; weights in a WEIGHTS buffer of wbuft
static void build(struct run * r, uint64_t seed, ggml_backend_buffer_type_t wbuft) {
    struct tb_rng rng = { seed };
    int D = 2 + tb_rand(&rng) % 7;
    int n_in = 1 + tb_rand(&rng) % 3;
    int n_w = tb_rand(&rng) % 3;
    int n_ops = 4 + tb_rand(&rng) % 30;
    r->ctx = new_ctx();
    r->ctx_w = new_ctx();
    r->tg = tb_random_graph_w(r->ctx, r->ctx_w, &rng, D, n_in, n_w, n_ops);
    r->wbuf = NULL;
    if (n_w > 0) {
        r->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(r->ctx_w, wbuft);
        ggml_backend_buffer_set_usage(r->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        for (int i = 0; i < r->tg.n_weights; i++) {
            fill(r->tg.weights[i], seed * 100 + 50 + i);
        }
    }
}

static void set_inputs(struct run * r, uint64_t seed) {
    for (int i = 0; i < r->tg.n_inputs; i++) {
        if (r->tg.inputs[i]->buffer != NULL) { // inputs no output depends on are not in the graph
            fill(r->tg.inputs[i], seed * 100 + i);
        }
    }
}

static void destroy(struct run * r) {
    ggml_backend_buffer_free(r->wbuf);
    ggml_free(r->ctx);
    ggml_free(r->ctx_w);
}

// outputs concatenated
static int read_outputs(struct run * r, float * out, int cap) {
    int n = 0;
    for (int i = 0; i < r->tg.n_outputs; i++) {
        struct ggml_tensor * t = r->tg.outputs[i];
        int64_t ne = ggml_nelements(t);
        if (n + ne > cap) {
            break;
        }
        ggml_backend_tensor_get(t, out + n, 0, ne * sizeof(float));
        n += (int) ne;
    }
    return n;
}

static bool close_enough(float a, float b, float tol) {
    if (isnan(a) || isnan(b)) {
        return isnan(a) && isnan(b);
    }
    if (isinf(a) || isinf(b)) {
        return a == b;
    }
    float m = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
    return fabsf(a - b) <= tol * (m > 1 ? m : 1);
}

static const enum ggml_op accel_ops[] = { GGML_OP_ADD, GGML_OP_MUL, GGML_OP_MUL_MAT };

// ---- random graphs: split results equal single-backend results ----------

static void random_compare(struct __test_metadata * _metadata, ggml_backend_t accel, ggml_backend_t cpu_split,
                           ggml_backend_t cpu_ref, int n_graphs, uint64_t seed0, float tol, bool parallel) {
    ggml_backend_t backends[2] = { accel, cpu_split };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 2048, parallel, true);
    ggml_backend_sched_t ref = ggml_backend_sched_new(&cpu_ref, NULL, 1, 2048, false, true);
    ASSERT_NE(NULL, sched);
    ASSERT_NE(NULL, ref);
    static float a[1 << 14], b[1 << 14];
    int total_splits = 0;
    for (int it = 0; it < n_graphs; it++) {
        uint64_t seed = seed0 + it;
        // weights on the accelerator for even seeds, on the CPU for odd ones
        ggml_backend_buffer_type_t wbuft = (it % 2 == 0) ? ggml_backend_get_default_buffer_type(accel)
                                                          : ggml_backend_get_default_buffer_type(cpu_split);
        struct run r1, r2;
        build(&r1, seed, wbuft);
        build(&r2, seed, ggml_backend_get_default_buffer_type(cpu_ref));

        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, r1.tg.graph));
        set_inputs(&r1, seed);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, r1.tg.graph));
        total_splits += ggml_backend_sched_get_n_splits(sched);

        ggml_backend_sched_reset(ref);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(ref, r2.tg.graph));
        set_inputs(&r2, seed);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(ref, r2.tg.graph));
        ASSERT_EQ(1, ggml_backend_sched_get_n_splits(ref));

        int na = read_outputs(&r1, a, 1 << 14);
        int nb = read_outputs(&r2, b, 1 << 14);
        ASSERT_EQ(na, nb);
        if (tol == 0.0f) {
            for (int i = 0; i < na; i++) {
                EXPECT_TRUE(close_enough(a[i], b[i], 0.0f)) {
                    TH_LOG("graph %d (seed %llu) output value %d: %g vs %g", it, (unsigned long long) seed, i, a[i], b[i]);
                    break;
                }
            }
        } else {
            // other kernels: normalized mean squared error, as test-backend-ops
            double err = 0, norm = 0;
            bool same_class = true;
            for (int i = 0; i < na; i++) {
                if (!isfinite(a[i]) || !isfinite(b[i])) {
                    same_class &= (isnan(a[i]) && isnan(b[i])) || a[i] == b[i];
                    continue;
                }
                err += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
                norm += (double) b[i] * b[i];
            }
            EXPECT_TRUE(same_class);
            EXPECT_LE(err, tol * (norm > 0 ? norm : 1)) {
                TH_LOG("graph %d (seed %llu): nmse %g", it, (unsigned long long) seed, norm > 0 ? err / norm : err);
            }
        }

        // computing the same allocated graph again gives the same result
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, r1.tg.graph));
        int nc = read_outputs(&r1, b, 1 << 14);
        ASSERT_EQ(na, nc);
        EXPECT_EQ(0, memcmp(a, b, na * sizeof(float))) {
            TH_LOG("graph %d: recompute differs", it);
        }

        ggml_backend_sched_reset(sched);
        ggml_backend_sched_reset(ref);
        destroy(&r1);
        destroy(&r2);
        if (_metadata->exit_code != 0) {
            break;
        }
    }
    TH_LOG("%d splits over %d graphs", total_splits, n_graphs);
    EXPECT_GT(total_splits, n_graphs);
    ggml_backend_sched_free(sched);
    ggml_backend_sched_free(ref);
}

TEST(random_graphs_exact_vs_test_cpu) {
    struct tb_device * da = accel_dev("ACC", accel_ops, 3, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t accel = tb_backend_new(da);
    ggml_backend_t tcpu = tb_backend_new(dc);
    random_compare(_metadata, accel, tcpu, tcpu, 300, 1000, 0.0f, false);
    ggml_backend_free(accel);
    ggml_backend_free(tcpu);
    EXPECT_EQ(0, da->n_buffers_live);
}

TEST(random_graphs_vs_cpu_backend) {
    struct tb_device * da = accel_dev("ACC2", accel_ops, 3, false, false, false);
    ggml_backend_t accel = tb_backend_new(da);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, 2);
    random_compare(_metadata, accel, cpu, cpu, 200, 5000, 1e-7f, false);
    ggml_backend_free(accel);
    ggml_backend_free(cpu);
}

TEST(random_graphs_pipelined_with_events) {
    struct tb_device * da = accel_dev("ACC3", accel_ops, 3, true, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t accel = tb_backend_new(da);
    ggml_backend_t tcpu = tb_backend_new(dc);
    random_compare(_metadata, accel, tcpu, tcpu, 200, 9000, 0.0f, true);
    EXPECT_GT(da->n_event_record, 0);
    EXPECT_EQ(0, da->n_events_live);
    ggml_backend_free(accel);
    ggml_backend_free(tcpu);
}

// ---- hand-made graphs ------------------------------------------------------

struct hand {
    struct ggml_context * ctx;
    struct ggml_context * ctx_w;
    ggml_backend_buffer_t wbuf;
    struct ggml_tensor * x, * w, * n1, * n2, * n3;
    struct ggml_cgraph * g;
};

// n1 = mul_mat(w, x); n2 = sqr(n1); n3 = add(n2, n2): the accelerator runs
// MUL_MAT and ADD, not SQR
static void hand_build(struct hand * h, ggml_backend_buffer_type_t wbuft) {
    h->ctx = new_ctx();
    h->ctx_w = new_ctx();
    h->w = ggml_new_tensor_2d(h->ctx_w, GGML_TYPE_F32, 4, 4);
    ggml_set_name(h->w, "w");
    h->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(h->ctx_w, wbuft);
    ggml_backend_buffer_set_usage(h->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    fill(h->w, 1);
    h->x = ggml_new_tensor_2d(h->ctx, GGML_TYPE_F32, 4, 4);
    ggml_set_name(h->x, "x");
    ggml_set_input(h->x);
    h->n1 = ggml_mul_mat(h->ctx, h->w, h->x);
    ggml_set_name(h->n1, "n1");
    h->n2 = ggml_sqr(h->ctx, h->n1);
    ggml_set_name(h->n2, "n2");
    h->n3 = ggml_add(h->ctx, h->n2, h->n2);
    ggml_set_name(h->n3, "n3");
    ggml_set_output(h->n3);
    h->g = ggml_new_graph(h->ctx);
    ggml_build_forward_expand(h->g, h->n3);
}

static void hand_free(struct hand * h) {
    ggml_backend_buffer_free(h->wbuf);
    ggml_free(h->ctx);
    ggml_free(h->ctx_w);
}

static void hand_expected(struct hand * h, float * out) {
    float w[16], x[16];
    ggml_backend_tensor_get(h->w, w, 0, sizeof(w));
    ggml_backend_tensor_get(h->x, x, 0, sizeof(x));
    for (int n = 0; n < 4; n++) {
        for (int m = 0; m < 4; m++) {
            double acc = 0;
            for (int k = 0; k < 4; k++) {
                acc += (double) w[m * 4 + k] * x[n * 4 + k];
            }
            float v = (float) acc;
            out[n * 4 + m] = v * v + v * v;
        }
    }
}

TEST(hand_graph_three_splits_with_copies) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("HAND", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);
    ASSERT_NE(NULL, sched);

    struct hand h;
    hand_build(&h, &da->buft);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    EXPECT_EQ(3, ggml_backend_sched_get_n_splits(sched));
    EXPECT_EQ(be[0], ggml_backend_sched_get_tensor_backend(sched, h.n1));
    EXPECT_EQ(be[1], ggml_backend_sched_get_tensor_backend(sched, h.n2));
    EXPECT_EQ(be[0], ggml_backend_sched_get_tensor_backend(sched, h.n3));
    EXPECT_EQ(be[1], ggml_backend_sched_get_tensor_backend(sched, h.x));
    // the sources of n1 and n3 were replaced by copies on the accelerator
    EXPECT_NE(h.x, h.n1->src[1]);
    EXPECT_EQ(&da->buft, h.n1->src[1]->buffer->buft);
    EXPECT_NE(h.n2, h.n3->src[0]);
    EXPECT_EQ(h.w, h.n1->src[0]); // the weight is read in place

    fill(h.x, 2);
    int set_before = da->n_set;
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
    // x -> accelerator, n2 -> accelerator: two copies into its buffers
    EXPECT_EQ(2, da->n_set - set_before);
    EXPECT_EQ(2, da->n_compute);
    EXPECT_EQ(1, dc->n_compute);

    float got[16], want[16];
    ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
    hand_expected(&h, want);
    for (int i = 0; i < 16; i++) {
        EXPECT_TRUE(close_enough(got[i], want[i], 1e-5f));
    }
    ggml_backend_sched_free(sched);
    hand_free(&h);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(hand_graph_host_readable_needs_no_copies) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    // this accelerator reads host memory, and its own buffer is host memory
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "IGPU";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_IGPU;
    cfg.host = true;
    cfg.read_host = true;
    tb_config_ops(&cfg, ops, 2);
    struct tb_device * da = tb_device_new(&cfg);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);
    struct hand h;
    hand_build(&h, &da->buft);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    EXPECT_EQ(3, ggml_backend_sched_get_n_splits(sched));
    EXPECT_EQ(h.x, h.n1->src[1]);
    EXPECT_EQ(h.n2, h.n3->src[0]);
    fill(h.x, 3);
    int set_before = da->n_set;
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
    EXPECT_EQ(0, da->n_set - set_before);
    float got[16], want[16];
    ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
    hand_expected(&h, want);
    for (int i = 0; i < 16; i++) {
        EXPECT_TRUE(close_enough(got[i], want[i], 1e-5f));
    }
    ggml_backend_sched_free(sched);
    hand_free(&h);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(user_assignment_and_one_split_on_cpu) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("USR", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);
    struct hand h;
    // weights in CPU memory: nothing pulls the graph to the accelerator
    hand_build(&h, &dc->buft);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    EXPECT_EQ(1, ggml_backend_sched_get_n_splits(sched));
    EXPECT_EQ(be[1], ggml_backend_sched_get_tensor_backend(sched, h.n3));

    // the user's choice stands even where a better backend shares the buffer type
    ggml_backend_sched_reset(sched);
    hand_free(&h);
    hand_build(&h, &dc->buft);
    ggml_backend_sched_set_tensor_backend(sched, h.n1, be[1]);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    EXPECT_EQ(be[1], ggml_backend_sched_get_tensor_backend(sched, h.n1));

    // the user puts n3 on the accelerator: two splits
    ggml_backend_sched_reset(sched);
    hand_free(&h);
    hand_build(&h, &dc->buft);
    ggml_backend_sched_set_tensor_backend(sched, h.n3, be[0]);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    EXPECT_EQ(2, ggml_backend_sched_get_n_splits(sched));
    EXPECT_EQ(be[0], ggml_backend_sched_get_tensor_backend(sched, h.n3));
    fill(h.x, 4);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
    float got[16], want[16];
    ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
    hand_expected(&h, want);
    for (int i = 0; i < 16; i++) {
        EXPECT_TRUE(close_enough(got[i], want[i], 1e-5f));
    }
    ggml_backend_sched_free(sched);
    hand_free(&h);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(op_offload_moves_matmul_on_host_weights) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT };
    struct tb_device * da = accel_dev("OFF", ops, 1, false, false, true);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    for (int offload = 0; offload <= 1; offload++) {
        ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, offload);
        struct hand h;
        hand_build(&h, &dc->buft);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
        EXPECT_EQ(offload ? be[0] : be[1], ggml_backend_sched_get_tensor_backend(sched, h.n1));
        EXPECT_EQ(offload ? 2 : 1, ggml_backend_sched_get_n_splits(sched));
        fill(h.x, 5);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
        float got[16], want[16];
        ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
        hand_expected(&h, want);
        for (int i = 0; i < 16; i++) {
            EXPECT_TRUE(close_enough(got[i], want[i], 1e-5f));
        }
        ggml_backend_sched_free(sched);
        hand_free(&h);
    }
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

// ---- eval callback -----------------------------------------------------------

struct cb_state {
    int asked;
    int observed;
    int cancel_at; // observation number that returns false (-1: never)
    struct ggml_tensor * seen[64];
};

static bool eval_cb(struct ggml_tensor * t, bool ask, void * ud) {
    struct cb_state * st = ud;
    if (ask) {
        st->asked++;
        return t->op != GGML_OP_NONE; // every computed node
    }
    if (st->observed < 64) {
        st->seen[st->observed] = t;
    }
    st->observed++;
    return st->observed != st->cancel_at;
}

TEST(eval_callback_sees_nodes_and_cancels) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("CB", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);

    struct cb_state st = { 0, 0, -1, { 0 } };
    ggml_backend_sched_set_eval_callback(sched, eval_cb, &st);
    struct hand h;
    hand_build(&h, &da->buft);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    fill(h.x, 6);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
    EXPECT_EQ(3, st.observed);
    EXPECT_EQ(h.n1, st.seen[0]);
    EXPECT_EQ(h.n2, st.seen[1]);
    EXPECT_EQ(h.n3, st.seen[2]);
    // the data is there when the callback looks
    float got[16], want[16];
    ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
    hand_expected(&h, want);
    EXPECT_TRUE(close_enough(got[0], want[0], 1e-5f));

    // cancel at the second node: the third split does not run
    ggml_backend_sched_reset(sched);
    hand_free(&h);
    hand_build(&h, &da->buft);
    memset(&st, 0, sizeof(st));
    st.cancel_at = 2;
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
    fill(h.x, 6);
    int computes = da->n_compute;
    EXPECT_EQ(GGML_STATUS_ABORTED, ggml_backend_sched_graph_compute(sched, h.g));
    EXPECT_EQ(2, st.observed);
    EXPECT_EQ(computes + 1, da->n_compute); // n1 ran, n3 did not

    ggml_backend_sched_free(sched);
    hand_free(&h);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

// ---- reserve, sizes, copies, misuse -----------------------------------------

TEST(reserve_then_alloc_does_not_reallocate) {
    struct tb_device * da = accel_dev("RES", accel_ops, 3, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 2048, false, false);

    struct run r;
    build(&r, 77, &da->buft);
    size_t sizes[2] = { 0, 0 };
    ggml_backend_sched_reserve_size(sched, r.tg.graph, sizes);
    EXPECT_EQ(0, da->n_buffers_alloc - (r.wbuf ? 1 : 0));
    destroy(&r);

    build(&r, 77, &da->buft);
    int allocs = da->n_buffers_alloc + dc->n_buffers_alloc;
    ASSERT_TRUE(ggml_backend_sched_reserve(sched, r.tg.graph));
    EXPECT_EQ(sizes[0], ggml_backend_sched_get_buffer_size(sched, be[0]));
    EXPECT_EQ(sizes[1], ggml_backend_sched_get_buffer_size(sched, be[1]));
    destroy(&r);
    int after_reserve = da->n_buffers_alloc + dc->n_buffers_alloc;
    EXPECT_GE(after_reserve, allocs);

    for (int i = 0; i < 5; i++) {
        build(&r, 77, &da->buft);
        int before = da->n_buffers_alloc + dc->n_buffers_alloc - (r.wbuf ? 1 : 0);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, r.tg.graph));
        EXPECT_EQ(before, da->n_buffers_alloc + dc->n_buffers_alloc - (r.wbuf ? 1 : 0));
        set_inputs(&r, 77);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, r.tg.graph));
        ggml_backend_sched_reset(sched);
        destroy(&r);
    }
    EXPECT_EQ(&da->buft, ggml_backend_sched_get_buffer_type(sched, be[0]));
    EXPECT_EQ(2, ggml_backend_sched_get_n_backends(sched));
    EXPECT_EQ(be[1], ggml_backend_sched_get_backend(sched, 1));
    EXPECT_EQ(1, ggml_backend_sched_get_n_copies(sched));
    ggml_backend_sched_free(sched);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(sched_new_refuses_bad_backends) {
    struct tb_device * da = accel_dev("BAD", accel_ops, 3, true, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(dc), tb_backend_new(da) };
    log_start();
    // the last backend must be the CPU
    EXPECT_EQ(NULL, ggml_backend_sched_new(be, NULL, 2, 64, false, false));
    EXPECT_EQ(NULL, ggml_backend_sched_new(be, NULL, 0, 64, false, false));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "CPU"));
    // parallel: four copies and the events of the device
    ggml_backend_t be2[2] = { be[1], be[0] };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be2, NULL, 2, 64, true, false);
    ASSERT_NE(NULL, sched);
    EXPECT_EQ(4, ggml_backend_sched_get_n_copies(sched));
    EXPECT_EQ(4, da->n_events_live);
    EXPECT_EQ(NULL, ggml_backend_sched_get_backend(sched, 5));
    ggml_backend_sched_free(sched);
    EXPECT_EQ(0, da->n_events_live);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(sched_debug_prints_splits) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("DBG", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    setenv("GGML_SCHED_DEBUG", "2", 1);
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);
    unsetenv("GGML_SCHED_DEBUG");
    struct hand h;
    hand_build(&h, &da->buft);
    log_start();
    ggml_backend_sched_split_graph(sched, h.g);
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "SPLIT #0: DBG"));
    EXPECT_NE(NULL, strstr(log_buf, "SPLIT #1: TCPU"));
    EXPECT_NE(NULL, strstr(log_buf, "n2"));
    ggml_backend_sched_free(sched);
    hand_free(&h);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(new_graph_without_reset_and_same_graph_twice) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("NORESET", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 64, false, false);
    for (int i = 0; i < 4; i++) {
        struct hand h;
        hand_build(&h, &da->buft);
        // allocated twice: the second split starts from the user's graph again
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, h.g));
        EXPECT_EQ(3, ggml_backend_sched_get_n_splits(sched));
        fill(h.x, 10 + i);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, h.g));
        float got[16], want[16];
        ggml_backend_tensor_get(h.n3, got, 0, sizeof(got));
        hand_expected(&h, want);
        for (int k = 0; k < 16; k++) {
            EXPECT_TRUE(close_enough(got[k], want[k], 1e-5f));
        }
        hand_free(&h); // and no reset before the next graph
    }
    ggml_backend_sched_free(sched);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

// a reserved scheduler given a larger graph: reallocates, or aborts under
// GGML_SCHED_DEBUG_REALLOC
static void grow_after_reserve(void) {
    static const enum ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    struct tb_device * da = accel_dev("GROW", ops, 2, false, false, false);
    struct tb_device * dc = tcpu_dev();
    ggml_backend_t be[2] = { tb_backend_new(da), tb_backend_new(dc) };
    ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 2048, false, false);
    struct run r;
    build(&r, 5, &da->buft);
    ggml_backend_sched_reserve(sched, r.tg.graph);
    destroy(&r);
    for (uint64_t seed = 100; seed < 140; seed++) {
        build(&r, seed, &da->buft);
        ggml_backend_sched_alloc_graph(sched, r.tg.graph);
        ggml_backend_sched_reset(sched);
        destroy(&r);
    }
    ggml_backend_sched_free(sched);
    ggml_backend_free(be[0]);
    ggml_backend_free(be[1]);
}

TEST(debug_realloc_aborts_on_growth) {
    grow_after_reserve(); // reallocates quietly
    setenv("GGML_SCHED_DEBUG_REALLOC", "1", 1);
    EXPECT_TRUE(expect_abort(grow_after_reserve, "GGML_SCHED_DEBUG_REALLOC"));
    unsetenv("GGML_SCHED_DEBUG_REALLOC");
}

// ---- transformer-shaped graphs ---------------------------------------------

// two pre-norm attention + feed-forward blocks over T tokens of width E;
// the weights live in a WEIGHTS buffer of wbuft
struct xf {
    struct ggml_context * ctx;
    struct ggml_context * ctx_w;
    ggml_backend_buffer_t wbuf;
    struct ggml_tensor * inp;
    struct ggml_tensor * out;
    struct ggml_cgraph * g;
};

static void xf_build(struct xf * m, ggml_backend_buffer_type_t wbuft, int E, int T, int F) {
    m->ctx = new_ctx();
    m->ctx_w = new_ctx();
    struct ggml_tensor * w[2][7];
    for (int l = 0; l < 2; l++) {
        w[l][0] = ggml_new_tensor_1d(m->ctx_w, GGML_TYPE_F32, E);    // attn norm
        w[l][1] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, E, E); // wq
        w[l][2] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, E, E); // wk
        w[l][3] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, E, E); // wv
        w[l][4] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, E, E); // wo
        w[l][5] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, E, F); // up
        w[l][6] = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, F, E); // down
    }
    m->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx_w, wbuft);
    ggml_backend_buffer_set_usage(m->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    int k = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(m->ctx_w); t; t = ggml_get_next_tensor(m->ctx_w, t)) {
        fill(t, 1000 + k++);
    }

    m->inp = ggml_new_tensor_2d(m->ctx, GGML_TYPE_F32, E, T);
    ggml_set_input(m->inp);
    struct ggml_tensor * x = m->inp;
    for (int l = 0; l < 2; l++) {
        struct ggml_tensor * h = ggml_mul(m->ctx, ggml_rms_norm(m->ctx, x, 1e-5f), w[l][0]);
        struct ggml_tensor * q = ggml_mul_mat(m->ctx, w[l][1], h);           // [E, T]
        struct ggml_tensor * kk = ggml_mul_mat(m->ctx, w[l][2], h);          // [E, T]
        struct ggml_tensor * v = ggml_mul_mat(m->ctx, w[l][3], h);           // [E, T]
        struct ggml_tensor * kq = ggml_mul_mat(m->ctx, kk, q);               // [T, T]
        kq = ggml_soft_max(m->ctx, ggml_scale(m->ctx, kq, 0.125f));
        struct ggml_tensor * vt = ggml_cont(m->ctx, ggml_transpose(m->ctx, v)); // [T, E]
        struct ggml_tensor * att = ggml_mul_mat(m->ctx, vt, kq);             // [E, T]
        x = ggml_add(m->ctx, x, ggml_mul_mat(m->ctx, w[l][4], att));
        struct ggml_tensor * f = ggml_silu(m->ctx, ggml_mul_mat(m->ctx, w[l][5], ggml_rms_norm(m->ctx, x, 1e-5f)));
        x = ggml_add(m->ctx, x, ggml_mul_mat(m->ctx, w[l][6], f));
    }
    m->out = x;
    ggml_set_output(m->out);
    m->g = ggml_new_graph(m->ctx);
    ggml_build_forward_expand(m->g, m->out);
}

static void xf_free(struct xf * m) {
    ggml_backend_buffer_free(m->wbuf);
    ggml_free(m->ctx);
    ggml_free(m->ctx_w);
}

TEST(transformer_graph_split_equals_cpu) {
    // the accelerator runs the matrix products and the adds, the CPU the rest
    struct tb_device * da = accel_dev("XF", accel_ops, 3, true, false, false);
    ggml_backend_t accel = tb_backend_new(da);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, 2);
    const int E = 16, T = 5, F = 24;

    for (int parallel = 0; parallel <= 1; parallel++) {
        ggml_backend_t be[2] = { accel, cpu };
        ggml_backend_sched_t sched = ggml_backend_sched_new(be, NULL, 2, 1024, parallel, true);
        ggml_backend_sched_t ref = ggml_backend_sched_new(&cpu, NULL, 1, 1024, false, true);
        ASSERT_NE(NULL, sched);

        struct xf m1, m2;
        xf_build(&m1, &da->buft, E, T, F);
        xf_build(&m2, ggml_backend_cpu_buffer_type(), E, T, F);
        ASSERT_TRUE(ggml_backend_sched_reserve(sched, m1.g));
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, m1.g));
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(ref, m2.g));
        EXPECT_GT(ggml_backend_sched_get_n_splits(sched), 4);
        EXPECT_GT(ggml_backend_sched_get_buffer_size(sched, accel), 0);
        EXPECT_GT(ggml_backend_sched_get_buffer_size(sched, cpu), 0);

        float a[16 * 5], b[16 * 5];
        for (int rep = 0; rep < 3; rep++) {
            fill(m1.inp, 77 + rep);
            fill(m2.inp, 77 + rep);
            ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute_async(sched, m1.g));
            ggml_backend_sched_synchronize(sched);
            ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(ref, m2.g));
            ggml_backend_tensor_get(m1.out, a, 0, sizeof(a));
            ggml_backend_tensor_get(m2.out, b, 0, sizeof(b));
            for (int i = 0; i < E * T; i++) {
                EXPECT_TRUE(close_enough(a[i], b[i], 1e-4f)) {
                    TH_LOG("parallel %d rep %d value %d: %g vs %g", parallel, rep, i, a[i], b[i]);
                    break;
                }
            }
        }
        ggml_backend_sched_free(sched);
        ggml_backend_sched_free(ref);
        xf_free(&m1);
        xf_free(&m2);
    }
    ggml_backend_free(accel);
    ggml_backend_free(cpu);
}

TEST_HARNESS_MAIN
