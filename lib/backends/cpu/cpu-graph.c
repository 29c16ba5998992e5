/*
 * cpu-graph.c - ggml_graph_plan / ggml_graph_compute on the CPU.
 *
 * Every thread walks every node; each op splits its work by (ith, nth) or
 * takes chunks from a shared counter; a barrier ends each node. Thread 0
 * polls the abort callback after each node and records at which node to
 * stop, so that all threads leave after the same barrier.
 *
 * Work buffer of a node: a shared part (e.g. MUL_MAT's converted
 * activations), then one scratch area per thread; the plan's work_size is
 * the largest over the nodes, plus alignment slack.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static size_t align_up(size_t n) {
    return (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

static bool node_is_noop(const struct ggml_tensor * node) {
    return ggml_op_is_empty(node->op) || node->op == GGML_OP_NONE || ggml_is_empty(node);
}

static size_t node_work(const struct ggml_tensor * node, int n_threads) {
    if (node_is_noop(node) || !ggml_cpu_supports_op(node)) {
        return 0;
    }
    const size_t shared = ggml_cpu_op_work_shared(node, n_threads);
    const size_t per    = ggml_cpu_op_work_per_thread(node);
    if (shared == 0 && per == 0) {
        return 0;
    }
    return align_up(shared) + (size_t) n_threads * align_up(per);
}

void * ggml_cpu_thread_scratch(const struct ggml_compute_params * params, const struct ggml_tensor * node) {
    const size_t shared = align_up(ggml_cpu_op_work_shared(node, params->nth));
    const size_t per    = align_up(ggml_cpu_op_work_per_thread(node));
    GGML_ASSERT(shared + (size_t) params->nth * per <= params->wsize);
    return (char *) params->wdata + shared + (size_t) params->ith * per;
}

struct ggml_cplan ggml_graph_plan(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * threadpool) {
    if (n_threads <= 0) {
        n_threads = threadpool ? ggml_threadpool_get_n_threads(threadpool) : GGML_DEFAULT_N_THREADS;
    }
    size_t work = 0;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const size_t w = node_work(cgraph->nodes[i], n_threads);
        work = w > work ? w : work;
    }
    struct ggml_cplan cplan;
    memset(&cplan, 0, sizeof(cplan));
    cplan.work_size  = work > 0 ? work + GGML_CPU_CACHE_LINE : 0; // slack to align work_data
    cplan.work_data  = NULL;
    cplan.n_threads  = n_threads;
    cplan.threadpool = threadpool;
    return cplan;
}

struct graph_state {
    struct ggml_cgraph * cgraph;
    const struct ggml_cplan * cplan;
    struct ggml_threadpool * tp;
    void * wdata;
    size_t wsize;
    bool ref;
    _Alignas(GGML_CPU_CACHE_LINE) atomic_int chunk[2];
    _Alignas(GGML_CPU_CACHE_LINE) atomic_int abort_at;
};

static void graph_worker(void * data, int ith, int nth) {
    struct graph_state * st = data;
    const struct ggml_cplan * cplan = st->cplan;
    int k = 0; // computed nodes so far
    for (int i = 0; i < st->cgraph->n_nodes; i++) {
        struct ggml_tensor * node = st->cgraph->nodes[i];
        if (node_is_noop(node)) {
            continue;
        }
        if (ith == 0) {
            // nobody uses the other counter now: node k-1 is done, node k+1 not started
            atomic_store_explicit(&st->chunk[(k + 1) & 1], 0, memory_order_relaxed);
        }
        struct ggml_compute_params params = {
            .ith = ith, .nth = nth, .wsize = st->wsize, .wdata = st->wdata,
            .tp = st->tp, .chunk = &st->chunk[k & 1], .ref = st->ref,
        };
        ggml_cpu_compute_forward(&params, node);
        if (ith == 0 && cplan->abort_callback && cplan->abort_callback(cplan->abort_callback_data)) {
            atomic_store(&st->abort_at, k);
        }
        ggml_cpu_barrier(st->tp, nth);
        if (atomic_load(&st->abort_at) <= k) {
            break;
        }
        k++;
    }
}

enum ggml_status ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan) {
    GGML_ASSERT(cplan);
    const bool use_ref = cplan->use_ref || ggml_cpu_get_use_ref();
    GGML_ASSERT(cplan->n_threads > 0);
    GGML_ASSERT(cplan->work_size == 0 || cplan->work_data != NULL);

    int n_threads = cplan->n_threads;
    if (cplan->threadpool && n_threads > ggml_threadpool_get_n_threads(cplan->threadpool)) {
        n_threads = ggml_threadpool_get_n_threads(cplan->threadpool);
    }

    // refuse the whole graph before computing anything
    size_t need = 0;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        if (node_is_noop(node)) {
            continue;
        }
        if (!ggml_cpu_supports_op(node)) {
            GGML_LOG_ERROR("%s: node %d (%s, op %s, type %s) is not supported by the CPU backend\n", __func__, i,
                           node->name, ggml_op_desc(node), ggml_type_name(node->type));
            return GGML_STATUS_FAILED;
        }
        if (node->data == NULL) {
            GGML_LOG_ERROR("%s: node %d (%s) has no data\n", __func__, i, node->name);
            return GGML_STATUS_FAILED;
        }
        const size_t w = node_work(node, n_threads);
        need = w > need ? w : need;
    }
    if (need > 0 && (cplan->work_data == NULL || cplan->work_size < need + GGML_CPU_CACHE_LINE)) {
        GGML_LOG_ERROR("%s: work buffer of %zu bytes, the graph needs %zu (use ggml_graph_plan)\n", __func__,
                       cplan->work_size, need + GGML_CPU_CACHE_LINE);
        return GGML_STATUS_FAILED;
    }

    struct graph_state st;
    memset(&st, 0, sizeof(st));
    st.cgraph = cgraph;
    st.cplan  = cplan;
    st.ref    = use_ref;
    if (need > 0) {
        uintptr_t p = (uintptr_t) cplan->work_data;
        uintptr_t a = (p + GGML_CPU_CACHE_LINE - 1) & ~(uintptr_t) (GGML_CPU_CACHE_LINE - 1);
        st.wdata = (void *) a;
        st.wsize = cplan->work_size - (size_t) (a - p);
    }
    atomic_init(&st.chunk[0], 0);
    atomic_init(&st.chunk[1], 0);
    atomic_init(&st.abort_at, INT_MAX);

    struct ggml_threadpool * disposable = NULL;
    st.tp = cplan->threadpool;
    if (st.tp == NULL && n_threads > 1) {
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
        disposable = ggml_threadpool_new(&tpp);
        if (disposable == NULL) {
            GGML_LOG_WARN("%s: no threadpool, computing on one thread\n", __func__);
            n_threads = 1;
        }
        st.tp = disposable;
    }

    ggml_cpu_run(st.tp, n_threads, graph_worker, &st);

    ggml_threadpool_free(disposable);
    return atomic_load(&st.abort_at) != INT_MAX ? GGML_STATUS_ABORTED : GGML_STATUS_SUCCESS;
}


enum ggml_status ggml_graph_compute_with_ctx(struct ggml_context * ctx, struct ggml_cgraph * cgraph, int n_threads) {
    struct ggml_cplan cplan = ggml_graph_plan(cgraph, n_threads, NULL);
    if (cplan.work_size > 0) {
        cplan.work_data = ggml_new_buffer(ctx, cplan.work_size);
        if (cplan.work_data == NULL) {
            GGML_LOG_ERROR("%s: no room for %zu bytes of work data in the context\n", __func__, cplan.work_size);
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    return ggml_graph_compute(cgraph, &cplan);
}
