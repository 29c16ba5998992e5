/*
 * cpu-ops-custom.c - runs the user functions of MAP_CUSTOM1..3 and CUSTOM
 * (lib/ggml-ops-custom.c): on min(n_tasks, threads of the node) threads,
 * the others returning at once.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"

#include <string.h>

void ggml_cpu_custom_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    struct ggml_custom_params p;
    memcpy(&p, node->op_params, sizeof(p));
    const int nth = p.n_tasks == GGML_N_TASKS_MAX || p.n_tasks > params->nth ? params->nth : p.n_tasks;
    if (params->ith >= nth) {
        return;
    }
    switch (node->op) {
        case GGML_OP_MAP_CUSTOM1:
            ((ggml_custom1_op_t) p.fun)(node, node->src[0], params->ith, nth, p.userdata);
            break;
        case GGML_OP_MAP_CUSTOM2:
            ((ggml_custom2_op_t) p.fun)(node, node->src[0], node->src[1], params->ith, nth, p.userdata);
            break;
        case GGML_OP_MAP_CUSTOM3:
            ((ggml_custom3_op_t) p.fun)(node, node->src[0], node->src[1], node->src[2], params->ith, nth, p.userdata);
            break;
        case GGML_OP_CUSTOM:
            ((ggml_custom_op_t) p.fun)(node, params->ith, nth, p.userdata);
            break;
        default:
            GGML_ABORT("%s: op %s is not a custom op", __func__, ggml_op_desc(node));
    }
}
