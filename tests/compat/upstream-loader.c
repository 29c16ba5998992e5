// SPDX-License-Identifier: MIT
//
// upstream-loader.c: a program built against upstream ggml v0.21.0 (its
// headers and its libggml.so, built with GGML_BACKEND_DL), not against
// gaccel's. It lets upstream's ggml_backend_load_all() load the backends
// (GGML_BACKEND_PATH names libggml-gaccel.so), lists them, and runs a small
// graph on every device that is not the CPU through upstream's scheduler,
// comparing with the CPU: the recipe of tests/compat/upstream-loader.sh and
// Documentation/userspace-api.rst. Exit status 0 when a GACCEL backend was
// registered and every device's result matched the CPU's.
//
//   upstream-loader                      the above
//   upstream-loader rpc-server <ep>      serve GACCEL0 with upstream's RPC
//                                        backend (ggml_backend_rpc_start_server)
//   upstream-loader rpc-client <ep>      the graph on GACCEL0 here and on the
//                                        server's device through RPC: equal
//
// The RPC functions are upstream's, reached through the RPC module's
// registration (get_proc_address), as a GGML_BACKEND_DL program must.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define K 64
#define M 48
#define N 8

// c = mul_mat(a, b) + a column of ones scaled: two ops a backend must run
static int run(ggml_backend_t dev_backend, ggml_backend_t cpu, float * out) {
    struct ggml_init_params params = { 32 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
    struct ggml_tensor * c = ggml_scale(ctx, ggml_mul_mat(ctx, a, b), 0.5f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);

    ggml_backend_t backends[2] = { dev_backend, cpu };
    int n_backends = dev_backend == cpu ? 1 : 2;
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, dev_backend);
    if (buf == NULL) {
        printf("  cannot allocate on %s\n", ggml_backend_name(dev_backend));
        return -1;
    }
    float av[K * M], bv[K * N];
    for (int i = 0; i < K * M; i++) {
        av[i] = (float) ((i * 7) % 13) / 13.0f - 0.5f;
    }
    for (int i = 0; i < K * N; i++) {
        bv[i] = (float) ((i * 5) % 11) / 11.0f - 0.5f;
    }
    ggml_backend_tensor_set(a, av, 0, sizeof(av));
    ggml_backend_tensor_set(b, bv, 0, sizeof(bv));
    enum ggml_status st = ggml_backend_sched_graph_compute(sched, gf);
    if (st == GGML_STATUS_SUCCESS) {
        ggml_backend_tensor_get(c, out, 0, sizeof(float) * M * N);
        printf("  %s: %d split(s)\n", ggml_backend_name(dev_backend), ggml_backend_sched_get_n_splits(sched));
    }
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return st == GGML_STATUS_SUCCESS ? 0 : -1;
}

typedef void (*rpc_start_server_t)(const char * endpoint, const char * cache_dir, size_t n_threads,
                                   size_t n_devices, ggml_backend_dev_t * devices);
typedef ggml_backend_reg_t (*rpc_add_server_t)(const char * endpoint);

static void * rpc_proc(const char * name) {
    ggml_backend_reg_t rpc = ggml_backend_reg_by_name("RPC");
    void * fn = rpc ? ggml_backend_reg_get_proc_address(rpc, name) : NULL;
    if (fn == NULL) {
        printf("no RPC backend with %s (upstream built without GGML_RPC?)\n", name);
    }
    return fn;
}

static int rpc_server(const char * endpoint) {
    rpc_start_server_t start = (rpc_start_server_t) rpc_proc("ggml_backend_rpc_start_server");
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("GACCEL0");
    if (start == NULL || dev == NULL) {
        printf("cannot serve GACCEL0\n");
        return 1;
    }
    printf("serving %s on %s\n", ggml_backend_dev_name(dev), endpoint);
    fflush(stdout);
    start(endpoint, NULL, 1, 1, &dev); // returns only on error
    return 1;
}

static int rpc_client(const char * endpoint) {
    rpc_add_server_t add = (rpc_add_server_t) rpc_proc("ggml_backend_rpc_add_server");
    ggml_backend_dev_t local = ggml_backend_dev_by_name("GACCEL0");
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (add == NULL || local == NULL || cpu == NULL) {
        printf("no RPC backend, local GACCEL0 or CPU\n");
        return 1;
    }
    ggml_backend_reg_t reg = add(endpoint);
    if (reg == NULL || ggml_backend_reg_dev_count(reg) == 0) {
        printf("no device at %s\n", endpoint);
        return 1;
    }
    ggml_backend_dev_t remote = ggml_backend_reg_dev_get(reg, 0);
    printf("remote device %s: %s\n", ggml_backend_dev_name(remote), ggml_backend_dev_description(remote));
    static float ref[M * N], here[M * N], there[M * N];
    ggml_backend_t lb = ggml_backend_dev_init(local, NULL);
    ggml_backend_t rb = ggml_backend_dev_init(remote, NULL);
    if (lb == NULL || rb == NULL || run(cpu, cpu, ref) != 0 || run(lb, cpu, here) != 0 || run(rb, cpu, there) != 0) {
        printf("a run failed\n");
        return 1;
    }
    double max_diff = 0, max_cpu = 0;
    for (int k = 0; k < M * N; k++) {
        max_diff = fmax(max_diff, fabs((double) there[k] - here[k]));
        max_cpu = fmax(max_cpu, fabs((double) there[k] - ref[k]));
    }
    int ok = memcmp(here, there, sizeof(here)) == 0 && max_cpu <= 1e-3;
    printf("GACCEL0 through RPC vs GACCEL0 here: max |diff| = %.3g (%s); vs CPU: %.3g %s\n", max_diff,
           memcmp(here, there, sizeof(here)) == 0 ? "bit-identical" : "differ", max_cpu, ok ? "ok" : "MISMATCH");
    ggml_backend_free(rb);
    ggml_backend_free(lb);
    ggml_backend_free(cpu);
    return !ok;
}

int main(int argc, char ** argv) {
    printf("ggml %s (%s)\n", ggml_version(), ggml_commit());
    ggml_backend_load_all();
    if (argc == 3 && strcmp(argv[1], "rpc-server") == 0) {
        return rpc_server(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "rpc-client") == 0) {
        return rpc_client(argv[2]);
    }
    if (argc != 1) {
        printf("usage: upstream-loader [rpc-server|rpc-client <host:port>]\n");
        return 2;
    }

    int have_gaccel = 0;
    for (size_t i = 0; i < ggml_backend_reg_count(); i++) {
        ggml_backend_reg_t reg = ggml_backend_reg_get(i);
        printf("backend %s: %zu device(s)\n", ggml_backend_reg_name(reg), ggml_backend_reg_dev_count(reg));
        if (strcmp(ggml_backend_reg_name(reg), "GACCEL") == 0) {
            have_gaccel = 1;
        }
        for (size_t j = 0; j < ggml_backend_reg_dev_count(reg); j++) {
            ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, j);
            printf("  device %s: %s\n", ggml_backend_dev_name(dev), ggml_backend_dev_description(dev));
        }
    }
    if (!have_gaccel) {
        printf("no GACCEL backend registered\n");
        return 1;
    }

    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (cpu == NULL) {
        printf("no CPU backend\n");
        return 1;
    }
    static float ref[M * N], got[M * N];
    if (run(cpu, cpu, ref) != 0) {
        return 1;
    }
    int fail = 0;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue;
        }
        ggml_backend_t be = ggml_backend_dev_init(dev, NULL);
        if (be == NULL || run(be, cpu, got) != 0) {
            printf("device %s: failed\n", ggml_backend_dev_name(dev));
            fail = 1;
            continue;
        }
        double max_diff = 0;
        for (int k = 0; k < M * N; k++) {
            max_diff = fmax(max_diff, fabs((double) got[k] - ref[k]));
        }
        printf("device %s: max |device - cpu| = %.3g %s\n", ggml_backend_dev_name(dev), max_diff,
               max_diff <= 1e-3 ? "ok" : "MISMATCH");
        fail |= max_diff > 1e-3;
        ggml_backend_free(be);
    }
    ggml_backend_free(cpu);
    return fail;
}
