// SPDX-License-Identifier: MIT
//
// simple-backend: the smallest complete ggml-backend program. It loads every
// backend it can find, picks the best device, builds a small matrix
// multiplication, lets the scheduler run it (on the best device and the CPU)
// and prints the result.
//
//   build/tools/simple-backend        (GGML_SCHED_DEBUG=2 shows the splits)

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// A is 4 x 2 (4 rows of 2), B is 3 x 2: ggml_mul_mat(A, B) = B * A^T, 3 x 4
#define ROWS_A 4
#define COLS_A 2
#define ROWS_B 3
#define COLS_B 2

static const float matrix_A[ROWS_A * COLS_A] = {
    2, 8,
    5, 1,
    4, 2,
    8, 6,
};

static const float matrix_B[ROWS_B * COLS_B] = {
    10, 5,
    9, 9,
    5, 4,
};

int main(void) {
    ggml_time_init();

    // every backend library found next to the program, in GGML_BACKEND_DIR, ...
    ggml_backend_load_all();

    ggml_backend_t backend = ggml_backend_init_best();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (backend == NULL || cpu == NULL) {
        fprintf(stderr, "simple-backend: no backend\n");
        return 1;
    }
    printf("devices:\n");
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        printf("  %zu: %s (%s)\n", i, ggml_backend_dev_name(dev), ggml_backend_dev_description(dev));
    }
    printf("best backend: %s\n", ggml_backend_name(backend));

    // the best backend first, the CPU last (it runs whatever the other cannot)
    ggml_backend_t backends[2] = { backend, cpu };
    int n_backends = ggml_backend_get_device(backend) == ggml_backend_get_device(cpu) ? 1 : 2;
    if (n_backends == 1) {
        backends[0] = cpu;
    }
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false, true);
    if (sched == NULL) {
        fprintf(stderr, "simple-backend: cannot create the scheduler\n");
        return 1;
    }

    // the graph: tensors without data (no_alloc); the scheduler allocates them
    struct ggml_init_params params = {
        /* .mem_size   = */ ggml_tensor_overhead() * 8 + ggml_graph_overhead(),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, COLS_A, ROWS_A);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, COLS_B, ROWS_B);
    ggml_set_input(a);
    ggml_set_input(b);
    struct ggml_tensor * result = ggml_mul_mat(ctx, a, b);
    ggml_set_output(result);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, result);

    if (!ggml_backend_sched_alloc_graph(sched, gf)) {
        fprintf(stderr, "simple-backend: cannot allocate the graph\n");
        return 1;
    }
    ggml_backend_tensor_set(a, matrix_A, 0, ggml_nbytes(a));
    ggml_backend_tensor_set(b, matrix_B, 0, ggml_nbytes(b));

    if (ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS) {
        fprintf(stderr, "simple-backend: compute failed\n");
        return 1;
    }
    printf("splits: %d\n", ggml_backend_sched_get_n_splits(sched));

    float out[ROWS_A * ROWS_B];
    ggml_backend_tensor_get(result, out, 0, ggml_nbytes(result));

    // result is ROWS_A x ROWS_B in ggml order: ne[0] = ROWS_A; print it
    // transposed, as A * B^T (4 x 3)
    int bad = 0;
    printf("mul mat (%d x %d) (transposed result):\n[", (int) result->ne[0], (int) result->ne[1]);
    for (int j = 0; j < ROWS_A; j++) {
        if (j > 0) {
            printf("\n");
        }
        for (int i = 0; i < ROWS_B; i++) {
            float v = out[i * ROWS_A + j];
            float want = 0;
            for (int k = 0; k < COLS_A; k++) {
                want += matrix_A[j * COLS_A + k] * matrix_B[i * COLS_B + k];
            }
            bad += fabsf(v - want) > 1e-4f;
            printf(" %.2f", v);
        }
    }
    printf(" ]\n");

    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_backend_free(backend);
    ggml_backend_free(cpu);
    if (bad) {
        fprintf(stderr, "simple-backend: %d wrong values\n", bad);
        return 1;
    }
    return 0;
}
