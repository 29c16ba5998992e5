/*
 * ggml-ops-custom.c - user-defined ops: MAP_CUSTOM1..3 (a function of one
 * to three tensors into a tensor like the first) and CUSTOM (a function of
 * up to GGML_MAX_SRC tensors into a tensor of any shape). The function, its
 * task count and user data are kept in op_params (struct
 * ggml_custom_params, ggml-impl.h); the CPU backend calls
 * fun(dst, srcs..., ith, nth, userdata) on nth = min(n_tasks, threads)
 * threads (n_tasks GGML_N_TASKS_MAX: all of them). Other backends do not
 * run them (the scheduler places them on the CPU).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

static void set_custom_params(struct ggml_tensor * t, void (*fun)(void), int n_tasks, void * userdata) {
    GGML_ASSERT((n_tasks == GGML_N_TASKS_MAX || n_tasks > 0) && "custom op: n_tasks must be positive or GGML_N_TASKS_MAX");
    GGML_ASSERT(fun != NULL && "custom op: no function");
    const struct ggml_custom_params p = { fun, n_tasks, userdata };
    ggml_set_op_params(t, &p, sizeof(p));
}

static struct ggml_tensor * map_custom_impl(struct ggml_context * ctx, enum ggml_op op, struct ggml_tensor * a,
                                            struct ggml_tensor * b, struct ggml_tensor * c, void (*fun)(void),
                                            int n_tasks, void * userdata, bool inplace) {
    struct ggml_tensor * result = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    set_custom_params(result, fun, n_tasks, userdata);
    result->op     = op;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = c;
    return result;
}

struct ggml_tensor * ggml_map_custom1(struct ggml_context * ctx, struct ggml_tensor * a, ggml_custom1_op_t fun,
                                      int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM1, a, NULL, NULL, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom1_inplace(struct ggml_context * ctx, struct ggml_tensor * a, ggml_custom1_op_t fun,
                                              int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM1, a, NULL, NULL, (void (*)(void)) fun, n_tasks, userdata, true);
}

struct ggml_tensor * ggml_map_custom2(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      ggml_custom2_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM2, a, b, NULL, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom2_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              ggml_custom2_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM2, a, b, NULL, (void (*)(void)) fun, n_tasks, userdata, true);
}

struct ggml_tensor * ggml_map_custom3(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      struct ggml_tensor * c, ggml_custom3_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM3, a, b, c, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom3_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              struct ggml_tensor * c, ggml_custom3_op_t fun, int n_tasks,
                                              void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM3, a, b, c, (void (*)(void)) fun, n_tasks, userdata, true);
}

// CUSTOM: src[0..n_args-1] = args
struct ggml_tensor * ggml_custom_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                    int64_t ne2, int64_t ne3, struct ggml_tensor ** args, int n_args,
                                    ggml_custom_op_t fun, int n_tasks, void * userdata) {
    GGML_ASSERT(n_args >= 0 && n_args < GGML_MAX_SRC && "ggml_custom_4d: too many arguments");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, type, ne0, ne1, ne2, ne3);
    set_custom_params(result, (void (*)(void)) fun, n_tasks, userdata);
    result->op = GGML_OP_CUSTOM;
    for (int i = 0; i < n_args; i++) {
        result->src[i] = args[i];
    }
    return result;
}

// CUSTOM writing into a: src[0] = a, src[1..n_args] = args
struct ggml_tensor * ggml_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor ** args,
                                         int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata) {
    GGML_ASSERT(n_args >= 0 && n_args < GGML_MAX_SRC - 1 && "ggml_custom_inplace: too many arguments");
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    set_custom_params(result, (void (*)(void)) fun, n_tasks, userdata);
    result->op     = GGML_OP_CUSTOM;
    result->src[0] = a;
    for (int i = 0; i < n_args; i++) {
        result->src[i + 1] = args[i];
    }
    return result;
}
