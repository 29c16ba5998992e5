// SPDX-License-Identifier: MIT
//
// An "existing ggml program": written the way upstream ggml's examples use
// the library (a context that owns the data and ggml_graph_compute_with_ctx;
// then weights in a backend buffer, a compute context of metadata only and
// the scheduler), with nothing but the public headers. It must build against
// libggml-backend unchanged and print the same numbers.
// tests/check/80-upstream-style.t builds it, runs it and checks the output.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_A 4
#define COLS_A 2
#define ROWS_B 3
#define COLS_B 2

static const float matrix_a[ROWS_A * COLS_A] = {
    1, 2,
    3, 4,
    5, 6,
    7, 8,
};

static const float matrix_b[ROWS_B * COLS_B] = {
    1, 0,
    0, 1,
    1, 1,
};

static void print_result(const char * title, const float * out, int n0, int n1) {
    printf("%s (%d x %d):\n", title, n0, n1);
    for (int j = 0; j < n1; j++) {
        for (int i = 0; i < n0; i++) {
            printf(" %.2f", out[j * n0 + i]);
        }
        printf("\n");
    }
}

// ---- 1. context mode: the context holds the data ----------------------------

static int run_ctx(void) {
    size_t ctx_size = 0;
    ctx_size += ROWS_A * COLS_A * ggml_type_size(GGML_TYPE_F32);
    ctx_size += ROWS_B * COLS_B * ggml_type_size(GGML_TYPE_F32);
    ctx_size += ROWS_A * ROWS_B * ggml_type_size(GGML_TYPE_F32);
    ctx_size += 3 * ggml_tensor_overhead();
    ctx_size += 2 * ggml_graph_overhead();
    ctx_size += 2 * ggml_tensor_overhead() + 64 * sizeof(float);
    ctx_size += 1024;

    struct ggml_init_params params = {
        /*.mem_size   =*/ ctx_size,
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ false,
    };
    struct ggml_context * ctx = ggml_init(params);
    if (!ctx) {
        fprintf(stderr, "ggml_init failed\n");
        return 1;
    }

    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, COLS_A, ROWS_A);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, COLS_B, ROWS_B);
    memcpy(a->data, matrix_a, ggml_nbytes(a));
    memcpy(b->data, matrix_b, ggml_nbytes(b));
    ggml_set_name(a, "a");

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    struct ggml_tensor * result = ggml_mul_mat(ctx, a, b);
    ggml_set_name(result, "result");
    ggml_build_forward_expand(gf, result);

    if (ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS) {
        fprintf(stderr, "ggml_graph_compute_with_ctx failed\n");
        return 1;
    }

    struct ggml_tensor * out = ggml_graph_node(gf, -1);
    if (out != result || ggml_get_tensor(ctx, "result") != result || ggml_graph_get_tensor(gf, "result") != result) {
        fprintf(stderr, "lookups by name disagree\n");
        return 1;
    }
    print_result("ctx mul_mat", (const float *) out->data, (int) out->ne[0], (int) out->ne[1]);

    // the scalar accessors of older examples
    struct ggml_tensor * s = ggml_new_f32(ctx, 0.5f);
    struct ggml_tensor * scaled = ggml_scale(ctx, result, ggml_get_f32_1d(s, 0));
    struct ggml_cgraph * gf2 = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf2, scaled);
    ggml_graph_compute_with_ctx(ctx, gf2, 1);
    printf("scaled: %.2f %.2f\n", ggml_get_f32_1d(scaled, 0), ggml_get_f32_nd(scaled, 3, 2, 0, 0));
    ggml_free(ctx);
    return 0;
}

// ---- 2. backend mode: a backend buffer, a metadata context, the scheduler ---

struct simple_model {
    struct ggml_tensor * a;
    struct ggml_tensor * b;
    ggml_backend_t backend;
    ggml_backend_t cpu_backend;
    ggml_backend_sched_t sched;
    ggml_backend_buffer_t buffer;
    struct ggml_context * ctx;
};

static struct ggml_cgraph * build_graph(struct simple_model * model, void * buf, size_t buf_size) {
    struct ggml_init_params params0 = {
        /*.mem_size   =*/ buf_size,
        /*.mem_buffer =*/ buf,
        /*.no_alloc   =*/ true, // the scheduler allocates the tensors
    };
    struct ggml_context * ctx0 = ggml_init(params0);
    struct ggml_cgraph * gf = ggml_new_graph(ctx0);
    struct ggml_tensor * result = ggml_mul_mat(ctx0, model->a, model->b);
    ggml_build_forward_expand(gf, result);
    ggml_free(ctx0); // the graph lives in buf
    return gf;
}

static int run_backend(void) {
    struct simple_model model;
    memset(&model, 0, sizeof(model));

    ggml_backend_load_all();
    model.backend = ggml_backend_init_best();
    model.cpu_backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!model.backend || !model.cpu_backend) {
        fprintf(stderr, "no backend\n");
        return 1;
    }
    ggml_backend_t backends[2] = { model.backend, model.cpu_backend };
    model.sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
    if (!model.sched) {
        fprintf(stderr, "ggml_backend_sched_new failed\n");
        return 1;
    }

    struct ggml_init_params params = {
        /*.mem_size   =*/ 2 * ggml_tensor_overhead(),
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ true,
    };
    model.ctx = ggml_init(params);
    model.a = ggml_new_tensor_2d(model.ctx, GGML_TYPE_F32, COLS_A, ROWS_A);
    model.b = ggml_new_tensor_2d(model.ctx, GGML_TYPE_F32, COLS_B, ROWS_B);
    model.buffer = ggml_backend_alloc_ctx_tensors(model.ctx, model.backend);
    if (!model.buffer) {
        fprintf(stderr, "ggml_backend_alloc_ctx_tensors failed\n");
        return 1;
    }
    ggml_backend_tensor_set(model.a, matrix_a, 0, ggml_nbytes(model.a));
    ggml_backend_tensor_set(model.b, matrix_b, 0, ggml_nbytes(model.b));

    size_t buf_size = ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE + ggml_graph_overhead();
    void * buf = malloc(buf_size);
    struct ggml_cgraph * gf = build_graph(&model, buf, buf_size);

    ggml_backend_sched_reset(model.sched);
    if (!ggml_backend_sched_alloc_graph(model.sched, gf)) {
        fprintf(stderr, "ggml_backend_sched_alloc_graph failed\n");
        return 1;
    }
    if (ggml_backend_sched_graph_compute(model.sched, gf) != GGML_STATUS_SUCCESS) {
        fprintf(stderr, "ggml_backend_sched_graph_compute failed\n");
        return 1;
    }

    struct ggml_tensor * result = ggml_graph_node(gf, -1);
    float * out = malloc(ggml_nbytes(result));
    ggml_backend_tensor_get(result, out, 0, ggml_nbytes(result));
    print_result("backend mul_mat", out, (int) result->ne[0], (int) result->ne[1]);
    printf("backend: %s, splits: %d\n", ggml_backend_name(model.backend), ggml_backend_sched_get_n_splits(model.sched));

    free(out);
    free(buf);
    ggml_backend_sched_free(model.sched);
    ggml_backend_buffer_free(model.buffer);
    ggml_free(model.ctx);
    ggml_backend_free(model.cpu_backend);
    ggml_backend_free(model.backend);
    return 0;
}

int main(void) {
    ggml_time_init();
    if (run_ctx() != 0) {
        return 1;
    }
    if (run_backend() != 0) {
        return 1;
    }
    return 0;
}
