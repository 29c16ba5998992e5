// SPDX-License-Identifier: MIT
//
// simple-train: trains a small model with ggml-opt and prints the loss
// falling epoch by epoch. The data are generated here, nothing is
// downloaded: noisy, shifted 5x7 pictures of the digits 0-9 (2000 of them,
// 20% held out for validation). The model is a two-layer perceptron
// (35 -> 64 -> 10, ReLU), trained with cross-entropy by AdamW (or SGD) in
// batches of 50 through the scheduler: the best device and the CPU, the
// weights in CPU memory so that their optimizer steps run there.
//
//   build/tools/simple-train [adamw|sgd] [epochs]       (make train-example)
//
// The exit status is 0 when the last epoch's training loss is below half
// the first's and the validation accuracy is above 80% (chance: 10%).

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-opt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 5, H = 7, NIN = W * H, NHID = 64, NCLASS = 10, NDATA = 2000, BATCH = 50 };

// the digits, one row of 5 pixels per character ('#' on)
static const char * const glyphs[NCLASS][H] = {
    { ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###." },
    { "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###." },
    { ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####" },
    { "####.", "....#", "....#", ".###.", "....#", "....#", "####." },
    { "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#." },
    { "#####", "#....", "####.", "....#", "....#", "#...#", ".###." },
    { "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###." },
    { "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..." },
    { ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###." },
    { ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.." },
};

static uint64_t rng = 88172645463325252ull;

static double uniform(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double) (rng >> 11) / 9007199254740992.0;
}

static double gauss(void) {
    return sqrt(-2.0 * log(uniform() + 1e-300)) * cos(2.0 * M_PI * uniform());
}

// datapoint i: digit i % 10, shifted by up to one pixel, 4% of the pixels
// flipped, Gaussian noise on top; its label one-hot
static void make_data(ggml_opt_dataset_t ds) {
    float * x = ggml_get_data_f32(ggml_opt_dataset_data(ds));
    float * y = ggml_get_data_f32(ggml_opt_dataset_labels(ds));
    for (int i = 0; i < NDATA; i++) {
        const int c = i % NCLASS;
        const int dx = (int) (uniform() * 3) - 1, dy = (int) (uniform() * 3) - 1;
        for (int r = 0; r < H; r++) {
            for (int col = 0; col < W; col++) {
                const int sr = r - dy, sc = col - dx;
                float v = sr >= 0 && sr < H && sc >= 0 && sc < W && glyphs[c][sr][sc] == '#' ? 1.0f : 0.0f;
                if (uniform() < 0.04) {
                    v = 1.0f - v;
                }
                x[i * NIN + r * W + col] = v + (float) (0.15 * gauss());
            }
        }
        for (int k = 0; k < NCLASS; k++) {
            y[i * NCLASS + k] = k == c ? 1.0f : 0.0f;
        }
    }
}

static enum ggml_opt_optimizer_type optimizer = GGML_OPT_OPTIMIZER_TYPE_ADAMW;

static struct ggml_opt_optimizer_params get_params(void * userdata) {
    (void) userdata;
    struct ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(NULL);
    p.adamw.alpha = 0.01f;
    p.sgd.alpha = 0.3f;
    return p;
}

static void fill_normal(struct ggml_tensor * t, double scale) {
    const int64_t n = ggml_nelements(t);
    float * v = malloc((size_t) n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        v[i] = (float) (scale * gauss());
    }
    ggml_backend_tensor_set(t, v, 0, ggml_nbytes(t));
    free(v);
}

int main(int argc, char ** argv) {
    int nepoch = 20;
    if (argc > 1) {
        if (strcmp(argv[1], "sgd") == 0) {
            optimizer = GGML_OPT_OPTIMIZER_TYPE_SGD;
        } else if (strcmp(argv[1], "adamw") != 0) {
            fprintf(stderr, "usage: %s [adamw|sgd] [epochs]\n", argv[0]);
            return 2;
        }
    }
    if (argc > 2) {
        nepoch = atoi(argv[2]);
        if (nepoch < 1 || nepoch > 10000) {
            fprintf(stderr, "simple-train: epochs must be 1..10000\n");
            return 2;
        }
    }
    ggml_time_init();
    ggml_backend_load_all();

    // the best device first, the CPU last (it runs what the other cannot)
    ggml_backend_t best = ggml_backend_init_best();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (best == NULL || cpu == NULL) {
        fprintf(stderr, "simple-train: no backend\n");
        return 1;
    }
    ggml_backend_t backends[2] = { best, cpu };
    const int n_backends = ggml_backend_get_device(best) == ggml_backend_get_device(cpu) ? 1 : 2;
    if (n_backends == 1) {
        backends[0] = cpu;
    }
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false, true);

    // the weights and the input batch: allocated here, in CPU memory
    struct ggml_init_params sp = { ggml_tensor_overhead() * 8, NULL, true };
    struct ggml_context * ctx_static = ggml_init(sp);
    struct ggml_tensor * x  = ggml_new_tensor_2d(ctx_static, GGML_TYPE_F32, NIN, BATCH);
    struct ggml_tensor * w1 = ggml_new_tensor_2d(ctx_static, GGML_TYPE_F32, NIN, NHID);
    struct ggml_tensor * b1 = ggml_new_tensor_1d(ctx_static, GGML_TYPE_F32, NHID);
    struct ggml_tensor * w2 = ggml_new_tensor_2d(ctx_static, GGML_TYPE_F32, NHID, NCLASS);
    struct ggml_tensor * b2 = ggml_new_tensor_1d(ctx_static, GGML_TYPE_F32, NCLASS);
    ggml_set_name(x, "x");
    ggml_set_name(w1, "w1");
    ggml_set_name(b1, "b1");
    ggml_set_name(w2, "w2");
    ggml_set_name(b2, "b2");
    ggml_set_param(w1);
    ggml_set_param(b1);
    ggml_set_param(w2);
    ggml_set_param(b2);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx_static, cpu);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    fill_normal(w1, 1.0 / sqrt(NIN));
    fill_normal(b1, 0.0);
    fill_normal(w2, 1.0 / sqrt(NHID));
    fill_normal(b2, 0.0);

    // the model: tensors without memory, the scheduler allocates them
    struct ggml_init_params cp = { ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE +
                                   3 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true), NULL, true };
    struct ggml_context * ctx_compute = ggml_init(cp);
    struct ggml_tensor * h = ggml_relu(ctx_compute, ggml_add(ctx_compute, ggml_mul_mat(ctx_compute, w1, x), b1));
    struct ggml_tensor * logits = ggml_add(ctx_compute, ggml_mul_mat(ctx_compute, w2, h), b2);

    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, NIN, NCLASS, NDATA, 1);
    make_data(ds);

    struct ggml_opt_params params = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    params.ctx_compute  = ctx_compute;
    params.inputs       = x;
    params.outputs      = logits;
    params.optimizer    = optimizer;
    params.get_opt_pars = get_params;
    ggml_opt_context_t opt = ggml_opt_init(params);

    printf("simple-train: %d digits (%d for validation), %s, batch %d, on %s%s\n", NDATA, NDATA / 5,
           ggml_opt_optimizer_name(optimizer), BATCH, ggml_backend_name(backends[0]), n_backends == 2 ? " + CPU" : "");
    printf("epoch  train loss  val loss  val accuracy\n");

    const int64_t split = NDATA - NDATA / 5;
    ggml_opt_result_t train = ggml_opt_result_init(), val = ggml_opt_result_init();
    ggml_opt_dataset_shuffle(opt, ds, -1); // which datapoints are held out
    double first = 0, last = 0, acc = 0;
    for (int e = 1; e <= nepoch; e++) {
        ggml_opt_dataset_shuffle(opt, ds, split); // a new order of the training part
        ggml_opt_result_reset(train);
        ggml_opt_result_reset(val);
        ggml_opt_epoch(opt, ds, train, val, split, NULL, NULL);
        double tl, vl;
        ggml_opt_result_loss(train, &tl, NULL);
        ggml_opt_result_loss(val, &vl, NULL);
        ggml_opt_result_accuracy(val, &acc, NULL);
        printf("%5d  %10.4f  %8.4f  %11.1f%%\n", e, tl, vl, 100.0 * acc);
        if (e == 1) {
            first = tl;
        }
        last = tl;
    }

    ggml_opt_result_free(train);
    ggml_opt_result_free(val);
    ggml_opt_free(opt);
    ggml_opt_dataset_free(ds);
    ggml_free(ctx_compute);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx_static);
    ggml_backend_sched_free(sched);
    ggml_backend_free(best);
    ggml_backend_free(cpu);

    const bool ok = last < 0.5 * first && acc > 0.8;
    if (!ok) {
        fprintf(stderr, "simple-train: did not learn (loss %.4f -> %.4f, accuracy %.1f%%)\n", first, last, 100 * acc);
    }
    return ok ? 0 : 1;
}
