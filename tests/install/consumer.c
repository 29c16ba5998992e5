// SPDX-License-Identifier: MIT
//
// consumer.c: a program as a user writes it against an installed ggml,
// built by tests/check/77-install.t once with CMake (find_package(ggml),
// CMakeLists.txt here) and once with pkg-config. It prints the version,
// computes a product on the CPU backend through the registry, and lists the
// backends ggml_backend_load_all() registered: the gaccel module must be
// among them, found beside the installed libggml.so.0; and it makes a
// ggml-opt dataset (ggml-opt.h installed, its functions in libggml-base). Built with
// CONSUMER_GACCEL_API (the CMake build, linked with ggml::ggml-gaccel), it
// also calls ggml-gaccel.h and checks that the registry holds that backend.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-opt.h"
#ifdef CONSUMER_GACCEL_API
#include "ggml-gaccel.h"
#endif

#include <stdio.h>
#include <string.h>

int main(void) {
    printf("version %s\n", ggml_version());

    ggml_backend_load_all();
    for (size_t i = 0; i < ggml_backend_reg_count(); i++) {
        ggml_backend_reg_t reg = ggml_backend_reg_get(i);
        printf("backend %s devices %zu\n", ggml_backend_reg_name(reg), ggml_backend_reg_dev_count(reg));
    }
#ifdef CONSUMER_GACCEL_API
    if (ggml_backend_reg_by_name("GACCEL") != ggml_backend_gaccel_reg()) {
        printf("ggml_backend_gaccel_reg() is not the registered GACCEL backend\n");
        return 1;
    }
    printf("gaccel api ok\n");
#endif

    // (2x3) A times (2x2) B, as ggml_mul_mat(A, B): rows of A dot rows of B
    struct ggml_init_params params = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 2);
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);

    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (cpu == NULL || !ggml_backend_is_cpu(cpu)) {
        printf("no CPU backend\n");
        return 1;
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    const float av[6] = { 1, 2, 3, 4, 5, 6 };
    const float bv[4] = { 1, 0, 1, 1 };
    ggml_backend_tensor_set(a, av, 0, sizeof(av));
    ggml_backend_tensor_set(b, bv, 0, sizeof(bv));
    if (ggml_backend_graph_compute(cpu, gf) != GGML_STATUS_SUCCESS) {
        printf("compute failed\n");
        return 1;
    }
    float cv[6];
    ggml_backend_tensor_get(c, cv, 0, sizeof(cv));
    printf("mul_mat");
    for (int i = 0; i < 6; i++) {
        printf(" %g", cv[i]);
    }
    printf("\n");

    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 4, 2, 8, 1);
    printf("opt ndata %lld %s\n", (long long) ggml_opt_dataset_ndata(ds),
           ggml_opt_optimizer_name(ggml_opt_default_params(NULL, GGML_OPT_LOSS_TYPE_MEAN).optimizer));
    ggml_opt_dataset_free(ds);

    ggml_backend_buffer_free(buf);
    ggml_backend_free(cpu);
    ggml_free(ctx);
    return 0;
}
