// SPDX-License-Identifier: MIT
/*
 * ggml-opt (lib/ggml-opt*.c): datasets (batches in order for every shard
 * and batch size, the host and tensor paths agree, shuffling is a
 * reproducible permutation of whole shards that leaves the validation part
 * alone), the result accessors against values computed here, training that
 * must converge (3-class blobs with a small MLP and cross-entropy, a line
 * with mean squared error; AdamW and SGD), gradient accumulation (two
 * micro-batches of 8 give the gradients and the steps of one batch of 16,
 * over several steps), static against dynamic graphs (the same losses and
 * weights), and training through the scheduler with an accelerator-like
 * backend beside the CPU (non-host memory, MUL_MAT offloaded) against the
 * CPU alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"
#include "testbackend.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-opt.h"

// ---- helpers ---------------------------------------------------------------

static uint64_t rng_state = 0x1234567;

static double urand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double) (rng_state >> 11) / 9007199254740992.0;
}

static double nrand(void) {
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(2.0 * M_PI * v);
}

static ggml_backend_sched_t sched_of(ggml_backend_t * backends, int n) {
    return ggml_backend_sched_new(backends, NULL, n, GGML_DEFAULT_GRAPH_SIZE, false, true);
}

static struct ggml_context * new_ctx(size_t n_tensors, size_t n_graphs) {
    struct ggml_init_params p = {
        .mem_size   = n_tensors * ggml_tensor_overhead() + n_graphs * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
        .mem_buffer = NULL,
        .no_alloc   = true,
    };
    return ggml_init(p);
}

// The classification data: NCLASS Gaussian blobs in the plane.
enum { NIN = 2, NHID = 16, NCLASS = 3, NDATA = 192 };

static ggml_opt_dataset_t blobs(uint64_t seed) {
    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, NIN, NCLASS, NDATA, 1);
    float * x = ggml_get_data_f32(ggml_opt_dataset_data(ds));
    float * y = ggml_get_data_f32(ggml_opt_dataset_labels(ds));
    rng_state = seed;
    for (int i = 0; i < NDATA; i++) {
        const int c = i % NCLASS;
        const double a = 2.0 * M_PI * c / NCLASS;
        x[i * NIN + 0] = (float) (2.0 * cos(a) + 0.5 * nrand());
        x[i * NIN + 1] = (float) (2.0 * sin(a) + 0.5 * nrand());
        for (int k = 0; k < NCLASS; k++) {
            y[i * NCLASS + k] = k == c ? 1.0f : 0.0f;
        }
    }
    return ds;
}

// A 2-16-3 MLP with ReLU; parameters and the input in ctx_static (allocated
// on backend), the rest in ctx_compute.
struct mlp {
    struct ggml_context * ctx_static;
    struct ggml_context * ctx_compute;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * x, * w1, * b1, * w2, * b2, * out;
};

static struct ggml_tensor * mlp_forward(struct mlp * m, struct ggml_context * ctx, struct ggml_tensor * x) {
    struct ggml_tensor * h = ggml_relu(ctx, ggml_add(ctx, ggml_mul_mat(ctx, m->w1, x), m->b1));
    return ggml_add(ctx, ggml_mul_mat(ctx, m->w2, h), m->b2);
}

static void mlp_init(struct mlp * m, ggml_backend_t backend, int64_t batch, uint64_t seed, bool build) {
    memset(m, 0, sizeof(*m));
    m->ctx_static = new_ctx(8, 0);
    m->x  = ggml_new_tensor_2d(m->ctx_static, GGML_TYPE_F32, NIN, batch);
    m->w1 = ggml_new_tensor_2d(m->ctx_static, GGML_TYPE_F32, NIN, NHID);
    m->b1 = ggml_new_tensor_1d(m->ctx_static, GGML_TYPE_F32, NHID);
    m->w2 = ggml_new_tensor_2d(m->ctx_static, GGML_TYPE_F32, NHID, NCLASS);
    m->b2 = ggml_new_tensor_1d(m->ctx_static, GGML_TYPE_F32, NCLASS);
    ggml_set_name(m->x, "x");
    ggml_set_name(m->w1, "w1");
    ggml_set_name(m->b1, "b1");
    ggml_set_name(m->w2, "w2");
    ggml_set_name(m->b2, "b2");
    struct ggml_tensor * params[] = { m->w1, m->b1, m->w2, m->b2 };
    for (int i = 0; i < 4; i++) {
        ggml_set_param(params[i]);
    }
    m->buf = ggml_backend_alloc_ctx_tensors(m->ctx_static, backend);
    // as a model's weights are: the scheduler offloads their products
    ggml_backend_buffer_set_usage(m->buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    rng_state = seed;
    for (int i = 0; i < 4; i++) {
        const int64_t n = ggml_nelements(params[i]);
        float * v = malloc((size_t) n * sizeof(float));
        for (int64_t j = 0; j < n; j++) {
            v[j] = (float) (0.5 * nrand());
        }
        ggml_backend_tensor_set(params[i], v, 0, ggml_nbytes(params[i]));
        free(v);
    }
    if (build) {
        m->ctx_compute = new_ctx(GGML_DEFAULT_GRAPH_SIZE, 3);
        m->out = mlp_forward(m, m->ctx_compute, m->x);
    }
}

static void mlp_free(struct mlp * m) {
    ggml_backend_buffer_free(m->buf);
    ggml_free(m->ctx_static);
    ggml_free(m->ctx_compute);
}

// all parameters, one after the other
static void mlp_weights(struct mlp * m, float * w) {
    struct ggml_tensor * params[] = { m->w1, m->b1, m->w2, m->b2 };
    for (int i = 0; i < 4; i++) {
        ggml_backend_tensor_get(params[i], w, 0, ggml_nbytes(params[i]));
        w += ggml_nelements(params[i]);
    }
}
#define NWEIGHTS (NIN * NHID + NHID + NHID * NCLASS + NCLASS)

// (plain comparisons: gcc 12 for aarch64 fails on fmax reductions here)
static double max_rel_diff(const float * a, const float * b, int n) {
    double scale = 1e-6, d = 0;
    for (int i = 0; i < n; i++) {
        const double ai = fabs(a[i]), di = fabs((double) a[i] - b[i]);
        if (ai > scale) {
            scale = ai;
        }
        if (di > d) {
            d = di;
        }
    }
    return d / scale;
}

static struct ggml_opt_optimizer_params opt_pars_sgd(void * ud) {
    struct ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(ud);
    p.sgd.alpha = 0.2f;
    return p;
}

static struct ggml_opt_optimizer_params opt_pars_adamw(void * ud) {
    struct ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(ud);
    p.adamw.alpha = 0.02f;
    return p;
}

// ---- datasets --------------------------------------------------------------

TEST(dataset_batches_in_order_for_every_shard_and_batch_size) {
    enum { N = 12, ND = 3, NL = 2 };
    static const int shards[] = { 1, 2, 3, 4, 6, 12 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    for (size_t s = 0; s < sizeof(shards) / sizeof(shards[0]); s++) {
        ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_I32, ND, NL, N, shards[s]);
        ASSERT_EQ(N, ggml_opt_dataset_ndata(ds));
        struct ggml_tensor * d = ggml_opt_dataset_data(ds), * l = ggml_opt_dataset_labels(ds);
        ASSERT_EQ(ND, d->ne[0]);
        ASSERT_EQ(N, d->ne[1]);
        ASSERT_EQ(NL, l->ne[0]);
        for (int i = 0; i < N * ND; i++) {
            ((float *) d->data)[i] = (float) i;
        }
        for (int i = 0; i < N * NL; i++) {
            ((int32_t *) l->data)[i] = 1000 + i;
        }
        for (int batch = shards[s]; batch <= N; batch += shards[s]) {
            struct ggml_context * ctx = new_ctx(2, 0);
            struct ggml_tensor * db = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ND, batch);
            struct ggml_tensor * lb = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, NL, batch);
            ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
            float dh[N * ND];
            int32_t lh[N * NL];
            for (int ib = 0; ib < N / batch; ib++) {
                ggml_opt_dataset_get_batch(ds, db, lb, ib);
                ggml_opt_dataset_get_batch_host(ds, dh, (size_t) batch * ND * sizeof(float), lh, ib);
                for (int k = 0; k < batch * ND; k++) {
                    ASSERT_EQ((float) (ib * batch * ND + k), ((float *) db->data)[k]);
                    ASSERT_EQ((float) (ib * batch * ND + k), dh[k]);
                }
                for (int k = 0; k < batch * NL; k++) {
                    ASSERT_EQ(1000 + ib * batch * NL + k, ((int32_t *) lb->data)[k]);
                    ASSERT_EQ(1000 + ib * batch * NL + k, lh[k]);
                }
            }
            ggml_backend_buffer_free(buf);
            ggml_free(ctx);
        }
        ggml_opt_dataset_free(ds);
    }
    ggml_backend_free(cpu);
}

// the order of datapoints after shuffling, read back batch by batch
static void dataset_order(ggml_opt_dataset_t ds, int n, int * order) {
    float v[64];
    ggml_opt_dataset_get_batch_host(ds, v, (size_t) n * sizeof(float), NULL, 0);
    for (int i = 0; i < n; i++) {
        order[i] = (int) v[i];
    }
}

TEST(dataset_shuffle_is_a_reproducible_permutation_of_shards) {
    enum { N = 64 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_sched_t sched = sched_of(&cpu, 1);
    ggml_opt_context_t oc[2];
    ggml_opt_dataset_t ds[2];
    int order[2][N];
    for (int r = 0; r < 2; r++) {
        oc[r] = ggml_opt_init(ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_SUM));
        ASSERT_FALSE(ggml_opt_static_graphs(oc[r]));
        ds[r] = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 1, 0, N, 1);
        ASSERT_EQ(NULL, ggml_opt_dataset_labels(ds[r]));
        for (int i = 0; i < N; i++) {
            ggml_get_data_f32(ggml_opt_dataset_data(ds[r]))[i] = (float) i;
        }
        ggml_opt_dataset_shuffle(oc[r], ds[r], -1);
        dataset_order(ds[r], N, order[r]);
    }
    // a new context shuffles the same way
    ASSERT_EQ(0, memcmp(order[0], order[1], sizeof(order[0])));
    int seen[N] = { 0 }, fixed = 0;
    for (int i = 0; i < N; i++) {
        ASSERT_TRUE(order[0][i] >= 0 && order[0][i] < N);
        seen[order[0][i]]++;
        fixed += order[0][i] == i;
    }
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(1, seen[i]);
    }
    EXPECT_LT(fixed, N / 4) TH_LOG("%d of %d datapoints did not move", fixed, N);

    // the generator moves on: a second shuffle gives another order
    int again[N];
    ggml_opt_dataset_shuffle(oc[0], ds[0], -1);
    dataset_order(ds[0], N, again);
    EXPECT_NE(0, memcmp(again, order[0], sizeof(again)));

    // shuffling the first 32 leaves the rest where it was
    int before[N], after[N];
    dataset_order(ds[1], N, before);
    ggml_opt_dataset_shuffle(oc[1], ds[1], 32);
    dataset_order(ds[1], N, after);
    int moved = 0;
    for (int i = 32; i < N; i++) {
        ASSERT_EQ(before[i], after[i]);
    }
    for (int i = 0; i < 32; i++) {
        int found = 0;
        for (int j = 0; j < 32; j++) {
            found += before[j] == after[i];
        }
        ASSERT_EQ(1, found);
        moved += before[i] != after[i];
    }
    EXPECT_GT(moved, 16);

    // shards of 4 move as a whole
    ggml_opt_dataset_t d4 = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 1, 0, N, 4);
    for (int i = 0; i < N; i++) {
        ggml_get_data_f32(ggml_opt_dataset_data(d4))[i] = (float) i;
    }
    ggml_opt_dataset_shuffle(oc[0], d4, -1);
    int o4[N];
    dataset_order(d4, N, o4);
    for (int i = 0; i < N; i += 4) {
        ASSERT_EQ(0, o4[i] % 4);
        for (int k = 1; k < 4; k++) {
            ASSERT_EQ(o4[i] + k, o4[i + k]);
        }
    }
    ggml_opt_dataset_free(d4);
    for (int r = 0; r < 2; r++) {
        ggml_opt_dataset_free(ds[r]);
        ggml_opt_free(oc[r]);
    }
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
}

// ---- results ---------------------------------------------------------------

TEST(result_accessors_match_values_computed_here) {
    enum { B = 4, NB = 5 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_sched_t sched = sched_of(&cpu, 1);

    ggml_opt_result_t res = ggml_opt_result_init();
    int64_t nd = -1;
    double loss, unc, acc, acc_unc;
    ggml_opt_result_ndata(res, &nd);
    ggml_opt_result_loss(res, &loss, &unc);
    ggml_opt_result_accuracy(res, &acc, &acc_unc);
    EXPECT_EQ(0, nd);
    EXPECT_EQ(0.0, loss);
    EXPECT_TRUE(isnan(unc));
    EXPECT_TRUE(isnan(acc) && isnan(acc_unc));

    // forward only, cross-entropy of logits given as the inputs
    struct ggml_context * cs = new_ctx(1, 0);
    struct ggml_context * cc = new_ctx(GGML_DEFAULT_GRAPH_SIZE, 3);
    struct ggml_tensor * in = ggml_new_tensor_2d(cs, GGML_TYPE_F32, NCLASS, B);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(cs, cpu);
    struct ggml_opt_params p = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.ctx_compute = cc;
    p.inputs = in;
    p.outputs = ggml_scale(cc, in, 1.0f);
    p.build_type = GGML_OPT_BUILD_TYPE_FORWARD;
    ggml_opt_context_t oc = ggml_opt_init(p);
    ASSERT_NE(NULL, ggml_opt_labels(oc));
    ASSERT_NE(NULL, ggml_opt_pred(oc));
    ASSERT_NE(NULL, ggml_opt_ncorrect(oc));
    EXPECT_EQ(NULL, ggml_opt_grad_acc(oc, in));

    double batch_loss[NB], sum = 0;
    int32_t want_pred[NB * B];
    int correct = 0;
    rng_state = 99;
    for (int ib = 0; ib < NB; ib++) {
        float x[NCLASS * B], y[NCLASS * B];
        double l = 0;
        for (int r = 0; r < B; r++) {
            int best = 0, label = (int) (urand() * NCLASS) % NCLASS;
            for (int k = 0; k < NCLASS; k++) {
                x[r * NCLASS + k] = (float) (3.0 * urand());
                y[r * NCLASS + k] = k == label ? 1.0f : 0.0f;
                best = x[r * NCLASS + k] > x[r * NCLASS + best] ? k : best;
            }
            double se = 0;
            for (int k = 0; k < NCLASS; k++) {
                se += exp(x[r * NCLASS + k]);
            }
            l += log(se) - x[r * NCLASS + label];
            want_pred[ib * B + r] = best;
            correct += best == label;
        }
        batch_loss[ib] = l / B;
        sum += batch_loss[ib];
        ggml_opt_alloc(oc, false);
        ggml_backend_tensor_set(in, x, 0, sizeof(x));
        ggml_backend_tensor_set(ggml_opt_labels(oc), y, 0, sizeof(y));
        ggml_opt_eval(oc, res);
    }
    const double mean = sum / NB;
    double ss = 0;
    for (int ib = 0; ib < NB; ib++) {
        ss += (batch_loss[ib] - mean) * (batch_loss[ib] - mean);
    }
    ggml_opt_result_ndata(res, &nd);
    ggml_opt_result_loss(res, &loss, &unc);
    ggml_opt_result_accuracy(res, &acc, &acc_unc);
    int32_t pred[NB * B];
    ggml_opt_result_pred(res, pred);
    EXPECT_EQ(NB * B, nd);
    EXPECT_LT(fabs(loss - mean), 1e-5) TH_LOG("loss %g, want %g", loss, mean);
    EXPECT_LT(fabs(unc - sqrt(ss / (NB - 1) / NB)), 1e-5);
    const double a = (double) correct / (NB * B);
    EXPECT_LT(fabs(acc - a), 1e-12);
    EXPECT_LT(fabs(acc_unc - sqrt(a * (1 - a) / (NB * B - 1))), 1e-12);
    EXPECT_EQ(0, memcmp(pred, want_pred, sizeof(pred)));
    double loss2;
    ggml_opt_result_loss(res, &loss2, NULL);
    EXPECT_EQ(loss, loss2);

    ggml_opt_result_reset(res);
    ggml_opt_result_ndata(res, &nd);
    ggml_opt_result_loss(res, &loss, &unc);
    EXPECT_EQ(0, nd);
    EXPECT_EQ(0.0, loss);
    EXPECT_TRUE(isnan(unc));

    ggml_opt_free(oc);
    ggml_opt_result_free(res);
    ggml_backend_buffer_free(buf);
    ggml_free(cs);
    ggml_free(cc);
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
}

TEST(optimizer_names_and_parameters) {
    EXPECT_STREQ("adamw", ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_ADAMW));
    EXPECT_STREQ("sgd", ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_SGD));
    EXPECT_STREQ("undefined", ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_COUNT));
    struct ggml_opt_optimizer_params d = ggml_opt_get_default_optimizer_params(NULL);
    EXPECT_EQ(0.001f, d.adamw.alpha);
    EXPECT_EQ(0.9f, d.adamw.beta1);
    EXPECT_EQ(0.999f, d.adamw.beta2);
    EXPECT_EQ(1e-8f, d.adamw.eps);
    EXPECT_EQ(0.0f, d.adamw.wd);
    EXPECT_EQ(0.001f, d.sgd.alpha);
    EXPECT_EQ(0.0f, d.sgd.wd);
    d.sgd.alpha = 0.5f;
    struct ggml_opt_optimizer_params c = ggml_opt_get_constant_optimizer_params(&d);
    EXPECT_EQ(0, memcmp(&c, &d, sizeof(c)));
    struct ggml_opt_params p = ggml_opt_default_params(NULL, GGML_OPT_LOSS_TYPE_MEAN);
    EXPECT_EQ(GGML_OPT_BUILD_TYPE_OPT, p.build_type);
    EXPECT_EQ(1, p.opt_period);
    EXPECT_EQ(GGML_OPT_OPTIMIZER_TYPE_ADAMW, p.optimizer);
    EXPECT_TRUE(p.get_opt_pars == ggml_opt_get_default_optimizer_params);
}

// ---- training --------------------------------------------------------------

// trains the MLP for nepoch epochs on the blobs (batch 16, 1/4 held out):
// the first and the last epoch's training loss and the last validation accuracy
static void train_blobs(struct __test_metadata * _metadata, ggml_backend_t * backends, int nb,
                        enum ggml_opt_optimizer_type optimizer, ggml_opt_get_optimizer_params pars, int nepoch,
                        double * first, double * last, double * acc_val, float * weights) {
    ggml_backend_sched_t sched = sched_of(backends, nb);
    struct mlp m;
    mlp_init(&m, backends[nb - 1], 16, 5, true);
    ggml_opt_dataset_t ds = blobs(7);
    struct ggml_opt_params p = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.ctx_compute = m.ctx_compute;
    p.inputs = m.x;
    p.outputs = m.out;
    p.optimizer = optimizer;
    p.get_opt_pars = pars;
    ggml_opt_context_t oc = ggml_opt_init(p);
    ASSERT_EQ(optimizer, ggml_opt_context_optimizer_type(oc));
    ggml_opt_result_t rt = ggml_opt_result_init(), rv = ggml_opt_result_init();
    ggml_opt_dataset_shuffle(oc, ds, -1);
    for (int e = 0; e < nepoch; e++) {
        ggml_opt_result_reset(rt);
        ggml_opt_result_reset(rv);
        ggml_opt_dataset_shuffle(oc, ds, NDATA * 3 / 4);
        ggml_opt_epoch(oc, ds, rt, rv, NDATA * 3 / 4, NULL, NULL);
        double l;
        ggml_opt_result_loss(rt, &l, NULL);
        if (e == 0) {
            *first = l;
        }
        *last = l;
    }
    ggml_opt_result_accuracy(rv, acc_val, NULL);
    if (weights != NULL) {
        mlp_weights(&m, weights);
    }
    ggml_opt_result_free(rt);
    ggml_opt_result_free(rv);
    ggml_opt_free(oc);
    ggml_opt_dataset_free(ds);
    mlp_free(&m);
    ggml_backend_sched_free(sched);
}

TEST(classification_converges_with_adamw_and_sgd) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct {
        enum ggml_opt_optimizer_type type;
        ggml_opt_get_optimizer_params pars;
    } opts[] = {
        { GGML_OPT_OPTIMIZER_TYPE_ADAMW, opt_pars_adamw },
        { GGML_OPT_OPTIMIZER_TYPE_SGD,   opt_pars_sgd   },
    };
    for (int o = 0; o < 2; o++) {
        double first, last, acc;
        train_blobs(_metadata, &cpu, 1, opts[o].type, opts[o].pars, 30, &first, &last, &acc, NULL);
        TH_LOG("%s: training loss %.4f -> %.4f, validation accuracy %.3f (chance 0.333)",
               ggml_opt_optimizer_name(opts[o].type), first, last, acc);
        EXPECT_LT(last, 0.3 * first);
        EXPECT_GT(acc, 0.9);
    }
    ggml_backend_free(cpu);
}

static struct ggml_opt_optimizer_params opt_pars_line(void * ud) {
    const int64_t epoch = *(const int64_t *) ud; // ggml_opt_fit passes the epoch
    struct ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(NULL);
    p.adamw.alpha = 0.05f;
    p.sgd.alpha = epoch < 100 ? 0.05f : 0.02f;
    return p;
}

TEST(regression_fits_a_line_with_adamw_and_sgd) {
    enum { N = 64 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_sched_t sched = sched_of(&cpu, 1);
    for (int o = 0; o < 2; o++) {
        const enum ggml_opt_optimizer_type type = o == 0 ? GGML_OPT_OPTIMIZER_TYPE_ADAMW : GGML_OPT_OPTIMIZER_TYPE_SGD;
        ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 1, 1, N, 1);
        rng_state = 3;
        for (int i = 0; i < N; i++) {
            const float x = -1.0f + 2.0f * i / (N - 1);
            ggml_get_data_f32(ggml_opt_dataset_data(ds))[i] = x;
            ggml_get_data_f32(ggml_opt_dataset_labels(ds))[i] = 1.5f * x - 0.5f + (float) (0.01 * nrand());
        }
        struct ggml_context * cs = new_ctx(3, 0), * cc = new_ctx(GGML_DEFAULT_GRAPH_SIZE, 3);
        struct ggml_tensor * x = ggml_new_tensor_2d(cs, GGML_TYPE_F32, 1, 16);
        struct ggml_tensor * a = ggml_new_tensor_1d(cs, GGML_TYPE_F32, 1);
        struct ggml_tensor * b = ggml_new_tensor_1d(cs, GGML_TYPE_F32, 1);
        ggml_set_param(a);
        ggml_set_param(b);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(cs, cpu);
        const float zero = 0.0f;
        ggml_backend_tensor_set(a, &zero, 0, sizeof(zero));
        ggml_backend_tensor_set(b, &zero, 0, sizeof(zero));
        struct ggml_tensor * f = ggml_add(cc, ggml_mul(cc, x, a), b);
        ggml_opt_fit(sched, cc, x, f, ds, GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR, type, opt_pars_line, 200, 16, 0.0f,
                     true);
        float av, bv;
        ggml_backend_tensor_get(a, &av, 0, sizeof(av));
        ggml_backend_tensor_get(b, &bv, 0, sizeof(bv));
        TH_LOG("%s: a = %.4f (1.5), b = %.4f (-0.5)", ggml_opt_optimizer_name(type), av, bv);
        EXPECT_LT(fabsf(av - 1.5f), 0.05f);
        EXPECT_LT(fabsf(bv + 0.5f), 0.05f);
        ggml_backend_buffer_free(buf);
        ggml_free(cs);
        ggml_free(cc);
        ggml_opt_dataset_free(ds);
    }
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
}

// ---- gradient accumulation ---------------------------------------------------

// one context on its own MLP (same initial weights for the same seed)
struct acc_run {
    struct mlp m;
    ggml_opt_context_t oc;
};

static void acc_run_init(struct acc_run * r, ggml_backend_sched_t sched, ggml_backend_t cpu, int batch,
                         int period, enum ggml_opt_build_type bt, enum ggml_opt_optimizer_type type) {
    mlp_init(&r->m, cpu, batch, 11, true);
    struct ggml_opt_params p = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.ctx_compute = r->m.ctx_compute;
    p.inputs = r->m.x;
    p.outputs = r->m.out;
    p.opt_period = period;
    p.build_type = bt;
    p.optimizer = type;
    p.get_opt_pars = type == GGML_OPT_OPTIMIZER_TYPE_SGD ? opt_pars_sgd : opt_pars_adamw;
    r->oc = ggml_opt_init(p);
}

static void acc_run_free(struct acc_run * r) {
    ggml_opt_free(r->oc);
    mlp_free(&r->m);
}

// one backward evaluation on datapoints [i0, i0 + batch) of ds
static void acc_step(struct acc_run * r, ggml_opt_dataset_t ds, int batch, int ibatch, ggml_opt_result_t res) {
    ggml_opt_alloc(r->oc, true);
    ggml_opt_dataset_get_batch(ds, r->m.x, ggml_opt_labels(r->oc), ibatch);
    ggml_opt_eval(r->oc, res);
    (void) batch;
}

static void grads(struct acc_run * r, float * g) {
    struct ggml_tensor * params[] = { r->m.w1, r->m.b1, r->m.w2, r->m.b2 };
    for (int i = 0; i < 4; i++) {
        struct ggml_tensor * acc = ggml_opt_grad_acc(r->oc, params[i]);
        ggml_backend_tensor_get(acc, g, 0, ggml_nbytes(params[i]));
        g += ggml_nelements(params[i]);
    }
}

TEST(two_micro_batches_of_8_equal_one_batch_of_16) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_sched_t sched[2] = { sched_of(&cpu, 1), sched_of(&cpu, 1) };
    ggml_opt_dataset_t ds = blobs(21);

    // the gradients: accumulated over 2 x 8 against one batch of 16, for
    // several logical batches (the accumulators restart each period)
    {
        struct acc_run one, two;
        acc_run_init(&one, sched[0], cpu, 16, 1, GGML_OPT_BUILD_TYPE_GRAD, GGML_OPT_OPTIMIZER_TYPE_ADAMW);
        acc_run_init(&two, sched[1], cpu, 8, 2, GGML_OPT_BUILD_TYPE_GRAD, GGML_OPT_OPTIMIZER_TYPE_ADAMW);
        for (int step = 0; step < 3; step++) {
            float g1[NWEIGHTS], g2[NWEIGHTS];
            acc_step(&one, ds, 16, step, NULL);
            acc_step(&two, ds, 8, 2 * step, NULL);
            acc_step(&two, ds, 8, 2 * step + 1, NULL);
            grads(&one, g1);
            grads(&two, g2);
            const double d = max_rel_diff(g1, g2, NWEIGHTS);
            EXPECT_LT(d, 1e-5) TH_LOG("logical batch %d: gradients differ by %g", step, d);
        }
        acc_run_free(&one);
        acc_run_free(&two);
    }

    // the optimizer steps, and the losses they report
    for (int o = 0; o < 2; o++) {
        const enum ggml_opt_optimizer_type type = o == 0 ? GGML_OPT_OPTIMIZER_TYPE_ADAMW : GGML_OPT_OPTIMIZER_TYPE_SGD;
        struct acc_run one, two;
        acc_run_init(&one, sched[0], cpu, 16, 1, GGML_OPT_BUILD_TYPE_OPT, type);
        acc_run_init(&two, sched[1], cpu, 8, 2, GGML_OPT_BUILD_TYPE_OPT, type);
        ggml_opt_result_t r1 = ggml_opt_result_init(), r2 = ggml_opt_result_init();
        for (int step = 0; step < 4; step++) {
            acc_step(&one, ds, 16, step, r1);
            acc_step(&two, ds, 8, 2 * step, r2);
            acc_step(&two, ds, 8, 2 * step + 1, r2);
        }
        float w1[NWEIGHTS], w2[NWEIGHTS], w0[NWEIGHTS];
        struct mlp fresh;
        mlp_init(&fresh, cpu, 16, 11, false);
        mlp_weights(&fresh, w0);
        mlp_free(&fresh);
        mlp_weights(&one.m, w1);
        mlp_weights(&two.m, w2);
        const double d = max_rel_diff(w1, w2, NWEIGHTS), moved = max_rel_diff(w0, w1, NWEIGHTS);
        EXPECT_LT(d, 1e-5) TH_LOG("%s: weights after 4 steps differ by %g", ggml_opt_optimizer_name(type), d);
        EXPECT_GT(moved, 1e-3) TH_LOG("%s: the weights did not move", ggml_opt_optimizer_name(type));
        double l1, l2;
        int64_t n1, n2;
        ggml_opt_result_loss(r1, &l1, NULL);
        ggml_opt_result_loss(r2, &l2, NULL);
        ggml_opt_result_ndata(r1, &n1);
        ggml_opt_result_ndata(r2, &n2);
        EXPECT_EQ(64, n1);
        EXPECT_EQ(64, n2);
        // micro-batch means average to the batch means
        EXPECT_LT(fabs(l1 - l2), 1e-5 * fabs(l1)) TH_LOG("mean loss %g against %g", l1, l2);
        ggml_opt_result_free(r1);
        ggml_opt_result_free(r2);
        acc_run_free(&one);
        acc_run_free(&two);
    }
    ggml_opt_dataset_free(ds);
    ggml_backend_sched_free(sched[0]);
    ggml_backend_sched_free(sched[1]);
    ggml_backend_free(cpu);
}

// ---- static and dynamic graphs ------------------------------------------------

TEST(static_and_dynamic_graphs_train_alike) {
    enum { STEPS = 12, B = 16 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_opt_dataset_t ds = blobs(33);
    for (int o = 0; o < 2; o++) {
        const enum ggml_opt_optimizer_type type = o == 0 ? GGML_OPT_OPTIMIZER_TYPE_ADAMW : GGML_OPT_OPTIMIZER_TYPE_SGD;
        float loss_s[STEPS], loss_d[STEPS], ws[NWEIGHTS], wd[NWEIGHTS];

        // static: the graphs built once by ggml_opt_init
        struct acc_run s;
        ggml_backend_sched_t sched = sched_of(&cpu, 1);
        acc_run_init(&s, sched, cpu, B, 1, GGML_OPT_BUILD_TYPE_OPT, type);
        ASSERT_TRUE(ggml_opt_static_graphs(s.oc));
        for (int i = 0; i < STEPS; i++) {
            acc_step(&s, ds, B, i % (NDATA / B), NULL);
            ggml_backend_tensor_get(ggml_opt_loss(s.oc), &loss_s[i], 0, sizeof(float));
        }
        mlp_weights(&s.m, ws);
        acc_run_free(&s);
        ggml_backend_sched_free(sched);

        // dynamic: a new forward graph (and input tensor) for every step
        sched = sched_of(&cpu, 1);
        struct mlp m;
        mlp_init(&m, cpu, B, 11, false);
        struct ggml_opt_params p = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
        p.optimizer = type;
        p.get_opt_pars = type == GGML_OPT_OPTIMIZER_TYPE_SGD ? opt_pars_sgd : opt_pars_adamw;
        ggml_opt_context_t oc = ggml_opt_init(p);
        ASSERT_FALSE(ggml_opt_static_graphs(oc));
        for (int i = 0; i < STEPS; i++) {
            struct ggml_context * cc = new_ctx(GGML_DEFAULT_GRAPH_SIZE, 3);
            struct ggml_tensor * x = ggml_new_tensor_2d(cc, GGML_TYPE_F32, NIN, B);
            struct ggml_tensor * out = mlp_forward(&m, cc, x);
            struct ggml_cgraph * gf = ggml_new_graph_custom(cc, GGML_DEFAULT_GRAPH_SIZE, true);
            ggml_build_forward_expand(gf, out);
            ggml_opt_prepare_alloc(oc, cc, gf, x, out);
            ggml_opt_alloc(oc, true);
            ASSERT_TRUE(ggml_opt_inputs(oc) == x && ggml_opt_outputs(oc) == out);
            ASSERT_NE(NULL, x->data);
            ggml_opt_dataset_get_batch(ds, x, ggml_opt_labels(oc), i % (NDATA / B));
            ggml_opt_eval(oc, NULL);
            ggml_backend_tensor_get(ggml_opt_loss(oc), &loss_d[i], 0, sizeof(float));
            ggml_free(cc);
        }
        mlp_weights(&m, wd);
        ggml_opt_free(oc);
        mlp_free(&m);
        ggml_backend_sched_free(sched);

        const double dl = max_rel_diff(loss_s, loss_d, STEPS), dw = max_rel_diff(ws, wd, NWEIGHTS);
        TH_LOG("%s: loss %.4f -> %.4f; static vs dynamic: losses %g, weights %g apart", ggml_opt_optimizer_name(type),
               loss_s[0], loss_s[STEPS - 1], dl, dw);
        EXPECT_LT(dl, 1e-5);
        EXPECT_LT(dw, 1e-5);
        EXPECT_LT(loss_s[STEPS - 1], loss_s[0]);
    }
    ggml_opt_dataset_free(ds);
    ggml_backend_free(cpu);
}

// ---- the scheduler with an accelerator -----------------------------------------

TEST(training_through_the_scheduler_with_an_accelerator_matches_the_cpu) {
    static const enum ggml_op acc_ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD, GGML_OP_MUL, GGML_OP_SCALE, GGML_OP_CPY,
                                            GGML_OP_CONT };
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "ACC";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.offload = true; // MUL_MAT of CPU weights goes to ACC
    tb_config_ops(&cfg, acc_ops, (int) (sizeof(acc_ops) / sizeof(acc_ops[0])));
    struct tb_device * dev = tb_device_new(&cfg);

    ggml_backend_t cpu_alone = ggml_backend_cpu_init();
    ggml_backend_t both[2] = { tb_backend_new(dev), ggml_backend_cpu_init() };
    for (int o = 0; o < 2; o++) {
        const enum ggml_opt_optimizer_type type = o == 0 ? GGML_OPT_OPTIMIZER_TYPE_ADAMW : GGML_OPT_OPTIMIZER_TYPE_SGD;
        ggml_opt_get_optimizer_params pars = o == 0 ? opt_pars_adamw : opt_pars_sgd;
        double f_cpu, l_cpu, a_cpu, f_acc, l_acc, a_acc;
        float w_cpu[NWEIGHTS], w_acc[NWEIGHTS];
        train_blobs(_metadata, &cpu_alone, 1, type, pars, 5, &f_cpu, &l_cpu, &a_cpu, w_cpu);
        const int computes = dev->n_compute;
        train_blobs(_metadata, both, 2, type, pars, 5, &f_acc, &l_acc, &a_acc, w_acc);
        const int ran = dev->n_compute - computes;
        const double dw = max_rel_diff(w_cpu, w_acc, NWEIGHTS);
        TH_LOG("%s: loss %.5f -> %.5f (CPU %.5f -> %.5f), %d graph splits on ACC, weights %g apart",
               ggml_opt_optimizer_name(type), f_acc, l_acc, f_cpu, l_cpu, ran, dw);
        EXPECT_GT(ran, 0);
        EXPECT_LT(fabs(l_acc - l_cpu), 1e-4 * l_cpu);
        EXPECT_LT(dw, 1e-4);
        EXPECT_LT(l_acc, f_acc);
    }
    ggml_backend_free(both[0]);
    ggml_backend_free(both[1]);
    ggml_backend_free(cpu_alone);
}

TEST_HARNESS_MAIN
