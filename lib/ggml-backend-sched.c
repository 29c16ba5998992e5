/*
 * ggml-backend-sched.c - the backend scheduler: runs one graph over several
 * backends.
 *
 * split_graph assigns every tensor of the graph to a backend in five passes
 * (pre-allocated tensors and weights, expansion to neighbours, upgrade to a
 * higher-priority backend with the same buffer type, sources, then splits),
 * cuts the node list into splits of one backend each and gives every split a
 * copy of each input its backend cannot read where it lives. The copies, and
 * markers that keep each copied source alive until its split has run, go
 * into a graph of the scheduler's own that the graph allocator places.
 *
 * With parallel = true, every copy exists GGML_SCHED_MAX_COPIES times; each
 * graph uses the next set, and the events recorded after each split let the
 * inputs of graph N+1 be uploaded while graph N still runs.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"
#include "ggml-backend-hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GGML_SCHED_MAX_BACKENDS 16
#define GGML_SCHED_MAX_COPIES    4

struct sched_split {
    int backend_id;
    int i_start;
    int i_end;
    struct ggml_tensor ** inputs;   // original tensors copied in at the start
    int n_inputs;
    int cap_inputs;
    uint32_t deps;                  // other backends whose buffers the split reads directly
    struct ggml_cgraph graph;       // nodes [i_start, i_end) of the user's graph
};

struct ggml_backend_sched {
    bool is_reset; // true when the scheduler has been reset since the last split
    bool is_alloc;
    bool user_set; // set_tensor_backend was called since the last reset

    int n_backends;
    ggml_backend_t             backends[GGML_SCHED_MAX_BACKENDS];
    ggml_backend_buffer_type_t bufts[GGML_SCHED_MAX_BACKENDS];
    ggml_gallocr_t galloc;

    // per tensor of the graph (by hash slot)
    struct gbh_set        hash_set;
    int                 * hv_tensor_backend_ids; // [size]
    struct ggml_tensor ** hv_tensor_copies;      // [size][n_backends][n_copies]
    uint8_t             * hv_input_seen;         // [size][n_backends]
    uint8_t             * hv_user;               // [size]: assigned by the user

    // the scheduler's graph: input copies, dependency markers and the nodes
    struct ggml_cgraph * graph;
    int * node_backend_ids; // [graph capacity]
    int * leaf_backend_ids;
    int * prev_node_backend_ids;
    int * prev_leaf_backend_ids;
    int   cap_ids;
    int   prev_n_nodes;
    int   prev_n_leafs;

    struct sched_split * splits;
    int n_splits;
    int cap_splits;

    // pipeline parallelism
    int n_copies;
    int cur_copy;
    int next_copy;
    ggml_backend_event_t events[GGML_SCHED_MAX_BACKENDS][GGML_SCHED_MAX_COPIES];

    struct ggml_context * ctx;

    // sources of the user's nodes replaced by copies, to put back when the
    // same graph is split again (or after a reserve)
    struct sched_rewrite {
        struct ggml_tensor * node;
        int                  j;
        struct ggml_tensor * orig;
    } * rewrites;
    int                  n_rewrites;
    int                  cap_rewrites;
    struct ggml_cgraph * rewritten_graph;
    uint64_t             rewritten_uid;

    ggml_backend_sched_eval_callback callback_eval;
    void * callback_eval_user_data;

    size_t graph_size;
    bool   op_offload;
    int    debug;
    bool   debug_realloc; // GGML_SCHED_DEBUG_REALLOC: abort when buffers must grow after the first allocation
};

#define SLOT(sched, t)       gbh_insert(&(sched)->hash_set, (t))
#define TENSOR_ID(sched, t)  (sched)->hv_tensor_backend_ids[SLOT(sched, t)]
#define TENSOR_COPY(sched, slot, b, c) \
    (sched)->hv_tensor_copies[((slot) * (sched)->n_backends + (b)) * (sched)->n_copies + (c)]

static void add_rewrite(ggml_backend_sched_t sched, struct ggml_tensor * node, int j, struct ggml_tensor * orig) {
    if (sched->n_rewrites == sched->cap_rewrites) {
        int cap = sched->cap_rewrites ? 2 * sched->cap_rewrites : 64;
        struct sched_rewrite * nr = (struct sched_rewrite *) realloc(sched->rewrites, cap * sizeof(*nr));
        GGML_ASSERT(nr != NULL);
        sched->rewrites = nr;
        sched->cap_rewrites = cap;
    }
    struct sched_rewrite * r = &sched->rewrites[sched->n_rewrites++];
    r->node = node;
    r->j    = j;
    r->orig = orig;
}

// put the user's sources back, when graph is the (live) graph last split
static void undo_rewrites(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    if (graph != NULL && graph == sched->rewritten_graph && graph->uid == sched->rewritten_uid) {
        for (int i = sched->n_rewrites - 1; i >= 0; i--) {
            struct sched_rewrite * r = &sched->rewrites[i];
            r->node->src[r->j] = r->orig;
        }
    }
    sched->n_rewrites = 0;
    sched->rewritten_graph = NULL;
}

static bool is_view_op(enum ggml_op op) {
    return op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

static int sched_backend_prio(ggml_backend_sched_t sched, ggml_backend_t backend) {
    for (int i = 0; i < sched->n_backends; i++) {
        if (sched->backends[i] == backend) {
            return i;
        }
    }
    return -1;
}

static ggml_backend_buffer_t tensor_buffer(const struct ggml_tensor * t) {
    return t->view_src ? t->view_src->buffer : t->buffer;
}

// the highest-priority backend that can use the buffer of tensor and run op
static int backend_from_buffer(ggml_backend_sched_t sched, const struct ggml_tensor * tensor, const struct ggml_tensor * op) {
    ggml_backend_buffer_t buffer = tensor_buffer(tensor);
    if (buffer == NULL) {
        return -1;
    }
    for (int i = 0; i < sched->n_backends; i++) {
        if (ggml_backend_supports_buft(sched->backends[i], buffer->buft) &&
            ggml_backend_supports_op(sched->backends[i], op)) {
            return i;
        }
    }
    return -1;
}

// pass 1 for one tensor
static int backend_from_cur(ggml_backend_sched_t sched, struct ggml_tensor * tensor) {
    // a tensor that already has memory runs where that memory can be used
    ggml_backend_buffer_t buffer = tensor_buffer(tensor);
    if (buffer != NULL) {
        int id = backend_from_buffer(sched, tensor, tensor);
        if (id != -1) {
            return id;
        }
        for (int i = 0; i < sched->n_backends; i++) {
            if (ggml_backend_supports_buft(sched->backends[i], buffer->buft)) {
                GGML_LOG_WARN("%s: no backend that can use buffer %s supports op %s of tensor %s; using %s\n", __func__,
                              ggml_backend_buffer_name(buffer), ggml_op_desc(tensor), tensor->name, ggml_backend_name(sched->backends[i]));
                return i;
            }
        }
        GGML_ABORT("pre-allocated tensor (%s) in a buffer (%s) that no backend of the scheduler can use",
                   tensor->name, ggml_backend_buffer_name(buffer));
    }

    // graph inputs are set by the user on the host: they live on the CPU
    if (tensor->flags & GGML_TENSOR_FLAG_INPUT) {
        return sched->n_backends - 1;
    }

    // an op on weights runs where the weights are (small rope/attention
    // side tensors are no reason to choose a backend)
    if (tensor->op != GGML_OP_ROPE && tensor->op != GGML_OP_FLASH_ATTN_EXT) {
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            const struct ggml_tensor * src = tensor->src[i];
            if (src == NULL) {
                continue;
            }
            ggml_backend_buffer_t sbuf = tensor_buffer(src);
            if (sbuf == NULL || sbuf->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
                continue;
            }
            int src_backend_id = backend_from_buffer(sched, src, tensor);
            if (src_backend_id == -1) {
                continue;
            }
            // offload: weights in host memory of the CPU, a better backend wants the op
            if (sched->op_offload && src_backend_id == sched->n_backends - 1 && ggml_backend_buffer_is_host(sbuf)) {
                for (int b = 0; b < src_backend_id; b++) {
                    if (ggml_backend_supports_op(sched->backends[b], tensor) &&
                        ggml_backend_offload_op(sched->backends[b], tensor)) {
                        return b;
                    }
                }
            }
            return src_backend_id;
        }
    }
    return -1;
}

// can backend_id use the memory t lives (or will live) in?
static bool buffer_supported(ggml_backend_sched_t sched, struct ggml_tensor * t, int backend_id) {
    ggml_backend_buffer_t buf = tensor_buffer(t);
    ggml_backend_buffer_type_t buft = NULL;
    if (buf) {
        buft = buf->buft;
    } else {
        int id = TENSOR_ID(sched, t);
        if (id == -1 && t->view_src) {
            id = TENSOR_ID(sched, t->view_src);
        }
        if (id != -1) {
            buft = sched->bufts[id];
        }
    }
    return buft != NULL && ggml_backend_supports_buft(sched->backends[backend_id], buft);
}

static void set_if_supported(ggml_backend_sched_t sched, struct ggml_tensor * node, int cur_backend_id, int * node_backend_id) {
    if (ggml_backend_supports_op(sched->backends[cur_backend_id], node)) {
        *node_backend_id = cur_backend_id;
    }
}

static const char * fmt_size(size_t size, char * buf, size_t n) {
    if (size >= 1024 * 1024) {
        snprintf(buf, n, "%zuM", size / 1024 / 1024);
    } else {
        snprintf(buf, n, "%zuK", size / 1024);
    }
    return buf;
}

static void print_assignments(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    char sz[32];
    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        GGML_LOG_INFO("## SPLIT #%d: %s # %d inputs", s, ggml_backend_name(sched->backends[split->backend_id]), split->n_inputs);
        for (int j = 0; j < split->n_inputs; j++) {
            GGML_LOG_CONT(" [%s (%5.5s)]", split->inputs[j]->name, fmt_size(ggml_nbytes(split->inputs[j]), sz, sizeof(sz)));
        }
        GGML_LOG_CONT("\n");
        if (sched->debug < 2) {
            continue;
        }
        for (int i = split->i_start; i < split->i_end; i++) {
            struct ggml_tensor * node = graph->nodes[i];
            int id = TENSOR_ID(sched, node);
            GGML_LOG_INFO("node #%3d (%10.10s): %20.20s (%5.5s) [%5.5s]:", i, ggml_op_desc(node), node->name,
                          fmt_size(ggml_nbytes(node), sz, sizeof(sz)), id >= 0 ? ggml_backend_name(sched->backends[id]) : "NULL");
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                int sid = TENSOR_ID(sched, src);
                GGML_LOG_CONT(" %20.20s [%5.5s]", src->name, sid >= 0 ? ggml_backend_name(sched->backends[sid]) : "NULL");
            }
            GGML_LOG_CONT("\n");
        }
    }
}

static struct sched_split * new_split(ggml_backend_sched_t sched, int backend_id, int i_start) {
    if (sched->n_splits == sched->cap_splits) {
        int cap = sched->cap_splits ? 2 * sched->cap_splits : 16;
        struct sched_split * ns = (struct sched_split *) realloc(sched->splits, cap * sizeof(*ns));
        GGML_ASSERT(ns != NULL);
        memset(ns + sched->cap_splits, 0, (cap - sched->cap_splits) * sizeof(*ns));
        sched->splits = ns;
        sched->cap_splits = cap;
    }
    struct sched_split * split = &sched->splits[sched->n_splits++];
    split->backend_id = backend_id;
    split->i_start    = i_start;
    split->i_end      = i_start;
    split->n_inputs   = 0;
    split->deps       = 0;
    return split;
}

static void split_add_input(struct sched_split * split, struct ggml_tensor * t) {
    if (split->n_inputs == split->cap_inputs) {
        int cap = split->cap_inputs ? 2 * split->cap_inputs : 8;
        struct ggml_tensor ** ni = (struct ggml_tensor **) realloc(split->inputs, cap * sizeof(*ni));
        GGML_ASSERT(ni != NULL);
        split->inputs = ni;
        split->cap_inputs = cap;
    }
    split->inputs[split->n_inputs++] = t;
}

static struct ggml_cgraph graph_slice(struct ggml_cgraph * graph, int i0, int i1) {
    struct ggml_cgraph view = *graph;
    view.size      = i1 - i0;
    view.n_nodes   = i1 - i0;
    view.nodes     = graph->nodes + i0;
    view.n_leafs   = 0;
    view.leafs     = NULL;
    view.grads     = NULL;
    view.grad_accs = NULL;
    return view;
}

static void ensure_id_capacity(ggml_backend_sched_t sched, int n) {
    if (n <= sched->cap_ids) {
        return;
    }
    int cap = n + n / 2 + 16;
    int ** arrays[4] = { &sched->node_backend_ids, &sched->leaf_backend_ids, &sched->prev_node_backend_ids, &sched->prev_leaf_backend_ids };
    for (int i = 0; i < 4; i++) {
        int * na = (int *) realloc(*arrays[i], cap * sizeof(int));
        GGML_ASSERT(na != NULL);
        *arrays[i] = na;
    }
    sched->cap_ids = cap;
}

// does the graph need a copy of src for backend_id?
static bool needs_copy(ggml_backend_sched_t sched, struct ggml_tensor * src, int src_backend_id, int backend_id) {
    if ((src->flags & GGML_TENSOR_FLAG_INPUT) && sched->n_copies > 1) {
        return true; // pipelined inputs: one copy per graph in flight
    }
    return src_backend_id != backend_id && !buffer_supported(sched, src, backend_id);
}

void ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    GGML_ASSERT(sched && graph);
    GGML_ASSERT((size_t) (graph->n_nodes + graph->n_leafs) <= 2 * sched->graph_size &&
                "graph larger than the scheduler's graph_size");

    // the sources of this graph as the user built it
    undo_rewrites(sched, graph);

    // reset splits and the context
    sched->n_splits = 0;
    sched->is_reset = false;
    if (sched->ctx) {
        ggml_free(sched->ctx);
        sched->ctx = NULL;
    }

    // pass 1: pre-allocated tensors, inputs and ops on weights
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        int * id = &TENSOR_ID(sched, leaf);
        if (*id == -1) {
            *id = backend_from_cur(sched, leaf);
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int * id = &TENSOR_ID(sched, node);
        if (*id == -1) {
            *id = backend_from_cur(sched, node);
        }
        // sources that already have memory
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            int * src_id = &TENSOR_ID(sched, src);
            if (*src_id == -1) {
                *src_id = backend_from_cur(sched, src);
            }
        }
    }

    // pass 2: expand the assignments to neighbours. First the backends other
    // than the CPU (the lowest priority), down then up; then all of them.
    {
        int cur = -1;
        for (int i = 0; i < graph->n_nodes; i++) {
            struct ggml_tensor * node = graph->nodes[i];
            if (is_view_op(node->op)) {
                continue;
            }
            int * id = &TENSOR_ID(sched, node);
            if (*id != -1) {
                cur = *id == sched->n_backends - 1 ? -1 : *id;
            } else if (cur != -1) {
                set_if_supported(sched, node, cur, id);
            }
        }
        cur = -1;
        for (int i = graph->n_nodes - 1; i >= 0; i--) {
            struct ggml_tensor * node = graph->nodes[i];
            if (is_view_op(node->op)) {
                continue;
            }
            int * id = &TENSOR_ID(sched, node);
            if (*id != -1) {
                cur = *id == sched->n_backends - 1 ? -1 : *id;
            } else if (cur != -1) {
                set_if_supported(sched, node, cur, id);
            }
        }
        cur = -1;
        for (int i = 0; i < graph->n_nodes; i++) {
            struct ggml_tensor * node = graph->nodes[i];
            if (is_view_op(node->op)) {
                continue;
            }
            int * id = &TENSOR_ID(sched, node);
            if (*id != -1) {
                cur = *id;
            } else if (cur != -1) {
                set_if_supported(sched, node, cur, id);
            }
        }
        cur = -1;
        for (int i = graph->n_nodes - 1; i >= 0; i--) {
            struct ggml_tensor * node = graph->nodes[i];
            if (is_view_op(node->op)) {
                continue;
            }
            int * id = &TENSOR_ID(sched, node);
            if (*id != -1) {
                cur = *id;
            } else if (cur != -1) {
                set_if_supported(sched, node, cur, id);
            }
        }
    }

    // pass 3: upgrade assigned nodes to a higher-priority backend with the
    // same buffer type; place the rest where most of their inputs are
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int * id = &TENSOR_ID(sched, node);
        if (*id != -1) {
            // a pre-allocated tensor stays where its memory is, and the
            // user's choice stands
            if (tensor_buffer(node) != NULL || sched->hv_user[SLOT(sched, node)]) {
                continue;
            }
            for (int b = 0; b < *id; b++) {
                if (sched->bufts[b] != sched->bufts[*id] || !ggml_backend_supports_op(sched->backends[b], node)) {
                    continue;
                }
                bool srcs_ok = true;
                for (int j = 0; j < GGML_MAX_SRC && srcs_ok; j++) {
                    struct ggml_tensor * src = node->src[j];
                    if (src && !buffer_supported(sched, src, b)) {
                        srcs_ok = false;
                    }
                }
                if (srcs_ok) {
                    *id = b;
                    break;
                }
            }
        } else {
            int best = -1, best_n = -1;
            for (int b = 0; b < sched->n_backends; b++) {
                if (!ggml_backend_supports_op(sched->backends[b], node)) {
                    continue;
                }
                int n = 0;
                for (int j = 0; j < GGML_MAX_SRC; j++) {
                    struct ggml_tensor * src = node->src[j];
                    if (src && (TENSOR_ID(sched, src) == b || buffer_supported(sched, src, b))) {
                        n++;
                    }
                }
                if (n > best_n) {
                    best_n = n;
                    best = b;
                }
            }
            if (best != -1) {
                *id = best;
            }
        }
    }

    // pass 4: anything left, and the sources
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int * id = &TENSOR_ID(sched, node);
        if (*id == -1 && node->view_src != NULL) {
            *id = TENSOR_ID(sched, node->view_src);
        }
        if (*id == -1) {
            for (int b = 0; b < sched->n_backends; b++) {
                if (ggml_backend_supports_op(sched->backends[b], node)) {
                    *id = b;
                    break;
                }
            }
        }
        if (*id == -1) {
            GGML_ABORT("no backend of the scheduler supports op %s (node %s)", ggml_op_desc(node), node->name);
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            int * src_id = &TENSOR_ID(sched, src);
            if (*src_id == -1) {
                if (src->view_src != NULL && TENSOR_ID(sched, src->view_src) != -1) {
                    *src_id = TENSOR_ID(sched, src->view_src);
                } else {
                    *src_id = *id;
                }
            }
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        int * id = &TENSOR_ID(sched, graph->leafs[i]);
        if (*id == -1) {
            *id = sched->n_backends - 1; // unused leafs: the CPU
        }
    }

    // pass 5a: splits and the inputs each one needs
    const size_t hsize = sched->hash_set.size;
    memset(sched->hv_input_seen, 0, hsize * sched->n_backends);
    int total_inputs = 0;
    if (graph->n_nodes > 0) {
        int cur_backend_id = -1;
        for (int i = 0; i < graph->n_nodes; i++) {
            if (!is_view_op(graph->nodes[i]->op)) {
                cur_backend_id = TENSOR_ID(sched, graph->nodes[i]);
                break;
            }
        }
        if (cur_backend_id == -1) {
            cur_backend_id = TENSOR_ID(sched, graph->nodes[0]);
        }
        struct sched_split * split = new_split(sched, cur_backend_id, 0);
        int split_n_ops = 0; // nodes of the current split that are not views

        for (int i = 0; i < graph->n_nodes; i++) {
            struct ggml_tensor * node = graph->nodes[i];
            if (is_view_op(node->op)) {
                continue;
            }
            int node_backend_id = TENSOR_ID(sched, node);
            bool need_new_split = node_backend_id != cur_backend_id;
            if (!need_new_split) {
                // a weight on another backend that this one cannot read
                for (int j = 0; j < GGML_MAX_SRC; j++) {
                    struct ggml_tensor * src = node->src[j];
                    if (src == NULL) {
                        continue;
                    }
                    ggml_backend_buffer_t sbuf = tensor_buffer(src);
                    if (sbuf && sbuf->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
                        int src_backend_id = TENSOR_ID(sched, src);
                        if (src_backend_id != cur_backend_id && !buffer_supported(sched, src, cur_backend_id)) {
                            need_new_split = true;
                            break;
                        }
                    }
                }
            }
            if (need_new_split) {
                if (split_n_ops == 0) {
                    // nothing ran in this split yet: it becomes the node's
                    split->backend_id = node_backend_id;
                } else {
                    split->i_end = i;
                    split = new_split(sched, node_backend_id, i);
                }
                cur_backend_id = node_backend_id;
                split_n_ops = 0;
            }
            split_n_ops++;

            for (int j = 0; j < GGML_MAX_SRC; j++) {
                struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                size_t slot = SLOT(sched, src);
                int src_backend_id = sched->hv_tensor_backend_ids[slot];
                GGML_ASSERT(src_backend_id != -1);
                if (needs_copy(sched, src, src_backend_id, cur_backend_id)) {
                    uint8_t * seen = &sched->hv_input_seen[slot * sched->n_backends + cur_backend_id];
                    if (!*seen) {
                        *seen = 1;
                        split_add_input(split, src);
                        total_inputs++;
                    }
                } else if (src_backend_id != cur_backend_id) {
                    split->deps |= 1u << src_backend_id;
                }
            }
        }
        split->i_end = graph->n_nodes;
    }

    // let the backends reorder the nodes of their splits
    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        ggml_backend_t backend = sched->backends[split->backend_id];
        if (backend->iface.graph_optimize != NULL && split->i_end > split->i_start) {
            struct ggml_cgraph gv = graph_slice(graph, split->i_start, split->i_end);
            backend->iface.graph_optimize(backend, &gv);
        }
    }

    // pass 5b: the copies, the dependency markers and the scheduler's graph
    const int n_copies = sched->n_copies;
    const int cap_nodes = graph->n_nodes + 3 * total_inputs + 1;
    const int cap_leafs = graph->n_leafs + total_inputs * n_copies + 1;
    const int cap = cap_nodes > cap_leafs ? cap_nodes : cap_leafs;
    const size_t n_tensors = (size_t) total_inputs * (n_copies + 2) + 16;
    struct ggml_init_params params = {
        /* .mem_size   = */ ggml_tensor_overhead() * n_tensors + ggml_graph_overhead_custom(cap, false),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    sched->ctx = ggml_init(params);
    GGML_ASSERT(sched->ctx != NULL);
    sched->graph = ggml_new_graph_custom(sched->ctx, cap, false);
    ensure_id_capacity(sched, cap);

    struct ggml_cgraph * g = sched->graph;
    int n_nodes = 0, n_leafs = 0;

    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        const int bid = split->backend_id;
        ggml_backend_t backend = sched->backends[bid];

        // copies of the inputs, with a marker that places each source before its copy
        for (int j = 0; j < split->n_inputs; j++) {
            struct ggml_tensor * input = split->inputs[j];
            size_t slot = SLOT(sched, input);
            int input_id = sched->hv_tensor_backend_ids[slot];

            for (int c = 0; c < n_copies; c++) {
                struct ggml_tensor * cpy = ggml_dup_tensor(sched->ctx, input);
                for (int d = 0; d < GGML_MAX_DIMS; d++) {
                    cpy->nb[d] = input->nb[d];
                }
                ggml_format_name(cpy, "%s#%s#%d", ggml_backend_name(backend), input->name, c);
                if (n_copies > 1) {
                    // every copy of every slot lives as long as the scheduler's buffers
                    cpy->flags |= GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT;
                }
                TENSOR_COPY(sched, slot, bid, c) = cpy;
            }

            struct ggml_tensor * dep = ggml_view_tensor(sched->ctx, input);
            dep->src[0] = input;
            ggml_format_name(dep, "%s#dep#%d", input->name, s);
            sched->node_backend_ids[n_nodes] = input_id;
            g->nodes[n_nodes++] = dep;

            if (n_copies == 1) {
                sched->node_backend_ids[n_nodes] = bid;
                g->nodes[n_nodes++] = TENSOR_COPY(sched, slot, bid, 0);
            } else {
                for (int c = 0; c < n_copies; c++) {
                    sched->leaf_backend_ids[n_leafs] = bid;
                    g->leafs[n_leafs++] = TENSOR_COPY(sched, slot, bid, c);
                }
            }
        }

        // the split's nodes, reading the copies
        for (int i = split->i_start; i < split->i_end; i++) {
            struct ggml_tensor * node = graph->nodes[i];
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                size_t slot = gbh_find(&sched->hash_set, src);
                if (slot == GBH_FULL) {
                    continue;
                }
                struct ggml_tensor * cpy = TENSOR_COPY(sched, slot, bid, sched->cur_copy);
                if (cpy != NULL) {
                    add_rewrite(sched, node, j, src);
                    node->src[j] = cpy;
                }
            }
            sched->node_backend_ids[n_nodes] = TENSOR_ID(sched, node);
            g->nodes[n_nodes++] = node;
        }

        // markers that keep the copied sources alive until the split has run
        for (int j = 0; j < split->n_inputs; j++) {
            struct ggml_tensor * input = split->inputs[j];
            struct ggml_tensor * keep = ggml_view_tensor(sched->ctx, input);
            ggml_format_name(keep, "%s#keep#%d", input->name, s);
            sched->node_backend_ids[n_nodes] = TENSOR_ID(sched, input);
            g->nodes[n_nodes++] = keep;
        }

        split->graph = graph_slice(graph, split->i_start, split->i_end);
    }

    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        sched->leaf_backend_ids[n_leafs] = TENSOR_ID(sched, leaf);
        g->leafs[n_leafs++] = leaf;
    }
    GGML_ASSERT(n_nodes <= cap && n_leafs <= cap);
    g->n_nodes = n_nodes;
    g->n_leafs = n_leafs;
    sched->rewritten_graph = graph;
    sched->rewritten_uid   = graph->uid;

    if (sched->debug) {
        print_assignments(sched, graph);
    }
}

static bool alloc_splits(ggml_backend_sched_t sched) {
    struct ggml_cgraph * g = sched->graph;
    bool ids_changed = g->n_nodes != sched->prev_n_nodes || g->n_leafs != sched->prev_n_leafs;
    for (int i = 0; i < g->n_nodes && !ids_changed; i++) {
        if (sched->bufts[sched->node_backend_ids[i]] != sched->bufts[sched->prev_node_backend_ids[i]]) {
            ids_changed = true;
        }
    }
    for (int i = 0; i < g->n_leafs && !ids_changed; i++) {
        if (sched->bufts[sched->leaf_backend_ids[i]] != sched->bufts[sched->prev_leaf_backend_ids[i]]) {
            ids_changed = true;
        }
    }

    if (ids_changed || !ggml_gallocr_alloc_graph(sched->galloc, g)) {
        if (sched->debug_realloc && sched->prev_n_nodes != -1) {
            GGML_ABORT("%s: the graph needs new buffers (GGML_SCHED_DEBUG_REALLOC is set); reserve with a larger graph",
                       __func__);
        }
        if (sched->prev_n_nodes != -1) {
            GGML_LOG_DEBUG("%s: reallocating the scheduler's buffers\n", __func__);
        }
        // the buffers may be in use: wait before reallocating them
        for (int b = 0; b < sched->n_backends; b++) {
            ggml_backend_synchronize(sched->backends[b]);
        }
        if (!ggml_gallocr_reserve_n(sched->galloc, g, sched->node_backend_ids, sched->leaf_backend_ids)) {
            GGML_LOG_ERROR("%s: failed to allocate the graph buffers\n", __func__);
            return false;
        }
        if (!ggml_gallocr_alloc_graph(sched->galloc, g)) {
            GGML_LOG_ERROR("%s: failed to allocate the graph\n", __func__);
            return false;
        }
    }

    memcpy(sched->prev_node_backend_ids, sched->node_backend_ids, g->n_nodes * sizeof(int));
    memcpy(sched->prev_leaf_backend_ids, sched->leaf_backend_ids, g->n_leafs * sizeof(int));
    sched->prev_n_nodes = g->n_nodes;
    sched->prev_n_leafs = g->n_leafs;
    return true;
}

static enum ggml_status compute_splits(ggml_backend_sched_t sched) {
    const int cc = sched->cur_copy;

    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        const int bid = split->backend_id;
        ggml_backend_t backend = sched->backends[bid];
        ggml_backend_event_t event = sched->events[bid][cc];

        // inputs
        for (int j = 0; j < split->n_inputs; j++) {
            struct ggml_tensor * input = split->inputs[j];
            size_t slot = gbh_find(&sched->hash_set, input);
            GGML_ASSERT(slot != GBH_FULL);
            struct ggml_tensor * cpy = TENSOR_COPY(sched, slot, bid, cc);
            ggml_backend_t input_backend = sched->backends[sched->hv_tensor_backend_ids[slot]];

            if (input->flags & GGML_TENSOR_FLAG_INPUT) {
                // the user may overwrite the input once compute returns: copy now
                if (event && event->device->iface.event_synchronize) {
                    ggml_backend_event_synchronize(event);
                } else {
                    ggml_backend_synchronize(backend);
                }
                ggml_backend_tensor_copy(input, cpy);
            } else {
                if (event && backend->iface.event_wait) {
                    ggml_backend_event_wait(backend, event);
                } else {
                    ggml_backend_synchronize(backend);
                }
                ggml_backend_tensor_copy_async(input_backend, backend, input, cpy);
            }
        }
        // backends whose memory the split reads in place
        for (int b = 0; b < sched->n_backends; b++) {
            if (split->deps & (1u << b)) {
                ggml_backend_synchronize(sched->backends[b]);
            }
        }

        if (split->graph.n_nodes > 0) {
            if (sched->callback_eval == NULL) {
                enum ggml_status ec = ggml_backend_graph_compute_async(backend, &split->graph);
                if (ec != GGML_STATUS_SUCCESS) {
                    return ec;
                }
            } else {
                // compute up to each node the callback wants to see
                for (int j0 = 0; j0 < split->graph.n_nodes; j0++) {
                    struct ggml_tensor * t = split->graph.nodes[j0];
                    bool need = sched->callback_eval(t, true, sched->callback_eval_user_data);
                    int j1 = j0;
                    while (!need && j1 < split->graph.n_nodes - 1) {
                        t = split->graph.nodes[++j1];
                        need = sched->callback_eval(t, true, sched->callback_eval_user_data);
                    }
                    struct ggml_cgraph gv = graph_slice(&split->graph, j0, j1 + 1);
                    enum ggml_status ec = ggml_backend_graph_compute_async(backend, &gv);
                    if (ec != GGML_STATUS_SUCCESS) {
                        return ec;
                    }
                    ggml_backend_synchronize(backend);
                    if (need && !sched->callback_eval(t, false, sched->callback_eval_user_data)) {
                        // the user cancelled the graph
                        return GGML_STATUS_ABORTED;
                    }
                    j0 = j1;
                }
            }
        }

        if (event && backend->iface.event_record) {
            ggml_backend_event_record(event, backend);
        }
    }
    return GGML_STATUS_SUCCESS;
}

ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends,
                                            size_t graph_size, bool parallel, bool op_offload) {
    if (backends == NULL || n_backends <= 0 || n_backends > GGML_SCHED_MAX_BACKENDS) {
        GGML_LOG_ERROR("%s: need 1..%d backends (got %d)\n", __func__, GGML_SCHED_MAX_BACKENDS, n_backends);
        return NULL;
    }
    for (int b = 0; b < n_backends; b++) {
        if (backends[b] == NULL) {
            GGML_LOG_ERROR("%s: backend %d is NULL\n", __func__, b);
            return NULL;
        }
    }
    if (ggml_backend_dev_type(ggml_backend_get_device(backends[n_backends - 1])) != GGML_BACKEND_DEVICE_TYPE_CPU) {
        GGML_LOG_ERROR("%s: the last backend must be a CPU backend (got %s)\n", __func__, ggml_backend_name(backends[n_backends - 1]));
        return NULL;
    }
    if (graph_size == 0) {
        graph_size = GGML_DEFAULT_GRAPH_SIZE;
    }

    ggml_backend_sched_t sched = (ggml_backend_sched_t) calloc(1, sizeof(*sched));
    GGML_ASSERT(sched != NULL);

    const char * debug = getenv("GGML_SCHED_DEBUG");
    sched->debug = debug ? atoi(debug) : 0;
    if (debug && sched->debug == 0 && debug[0] != '0') {
        sched->debug = 1;
    }

    const char * debug_realloc = getenv("GGML_SCHED_DEBUG_REALLOC");
    sched->debug_realloc = debug_realloc && atoi(debug_realloc) != 0;

    sched->n_backends = n_backends;
    sched->n_copies   = parallel ? GGML_SCHED_MAX_COPIES : 1;
    sched->graph_size = graph_size;
    sched->op_offload = op_offload;

    // room for the graph's nodes, leafs and the sources they reference
    sched->hash_set = gbh_new(2 * graph_size + 64);
    const size_t hsize = sched->hash_set.size;
    sched->hv_tensor_backend_ids = (int *) malloc(hsize * sizeof(int));
    sched->hv_tensor_copies = (struct ggml_tensor **) calloc(hsize * n_backends * sched->n_copies, sizeof(struct ggml_tensor *));
    sched->hv_input_seen = (uint8_t *) calloc(hsize * n_backends, 1);
    sched->hv_user = (uint8_t *) calloc(hsize, 1);
    GGML_ASSERT(sched->hv_tensor_backend_ids && sched->hv_tensor_copies && sched->hv_input_seen && sched->hv_user);

    for (int b = 0; b < n_backends; b++) {
        sched->backends[b] = backends[b];
        sched->bufts[b] = bufts && bufts[b] ? bufts[b] : ggml_backend_get_default_buffer_type(backends[b]);
        if (!ggml_backend_supports_buft(backends[b], sched->bufts[b])) {
            GGML_LOG_ERROR("%s: backend %s cannot use buffer type %s\n", __func__,
                           ggml_backend_name(backends[b]), ggml_backend_buft_name(sched->bufts[b]));
            free(sched->hv_tensor_backend_ids);
            free(sched->hv_tensor_copies);
            free(sched->hv_input_seen);
            free(sched->hv_user);
            gbh_free(&sched->hash_set);
            free(sched);
            return NULL;
        }
        if (sched->n_copies > 1) {
            for (int c = 0; c < sched->n_copies; c++) {
                sched->events[b][c] = ggml_backend_event_new(backends[b]->device);
            }
        }
    }

    sched->galloc = ggml_gallocr_new_n(sched->bufts, n_backends);
    sched->prev_n_nodes = -1;
    sched->prev_n_leafs = -1;

    ggml_backend_sched_reset(sched);
    return sched;
}

void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    if (sched == NULL) {
        return;
    }
    for (int b = 0; b < sched->n_backends; b++) {
        for (int c = 0; c < sched->n_copies; c++) {
            ggml_backend_event_free(sched->events[b][c]);
        }
    }
    ggml_gallocr_free(sched->galloc);
    if (sched->ctx) {
        ggml_free(sched->ctx);
    }
    for (int s = 0; s < sched->cap_splits; s++) {
        free(sched->splits[s].inputs);
    }
    free(sched->splits);
    gbh_free(&sched->hash_set);
    free(sched->hv_tensor_backend_ids);
    free(sched->hv_tensor_copies);
    free(sched->hv_input_seen);
    free(sched->hv_user);
    free(sched->node_backend_ids);
    free(sched->leaf_backend_ids);
    free(sched->prev_node_backend_ids);
    free(sched->prev_leaf_backend_ids);
    free(sched->rewrites);
    free(sched);
}

void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    // forget the assignments and the copies of the last graph
    if (!sched->is_reset || sched->user_set) {
        const size_t hsize = sched->hash_set.size;
        gbh_reset(&sched->hash_set);
        memset(sched->hv_tensor_backend_ids, -1, hsize * sizeof(int));
        memset(sched->hv_tensor_copies, 0, hsize * sched->n_backends * sched->n_copies * sizeof(struct ggml_tensor *));
        memset(sched->hv_user, 0, hsize);
        sched->is_reset = true;
        sched->user_set = false;
    }
    sched->is_alloc = false;
}

void ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes) {
    GGML_ASSERT(sched && measure_graph && sizes);
    ggml_backend_sched_synchronize(sched);
    ggml_backend_sched_split_graph(sched, measure_graph);
    ggml_gallocr_reserve_n_size(sched->galloc, sched->graph, sched->node_backend_ids, sched->leaf_backend_ids, sizes);
    undo_rewrites(sched, measure_graph);
    ggml_backend_sched_reset(sched);
}

bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph) {
    GGML_ASSERT(sched && measure_graph);
    ggml_backend_sched_synchronize(sched);
    ggml_backend_sched_split_graph(sched, measure_graph);
    bool ok = ggml_gallocr_reserve_n(sched->galloc, sched->graph, sched->node_backend_ids, sched->leaf_backend_ids);
    if (ok) {
        // the next alloc_graph of this shape reuses the plan
        memcpy(sched->prev_node_backend_ids, sched->node_backend_ids, sched->graph->n_nodes * sizeof(int));
        memcpy(sched->prev_leaf_backend_ids, sched->leaf_backend_ids, sched->graph->n_leafs * sizeof(int));
        sched->prev_n_nodes = sched->graph->n_nodes;
        sched->prev_n_leafs = sched->graph->n_leafs;
    }
    // the measure graph may be computed next: give it its sources back
    undo_rewrites(sched, measure_graph);
    ggml_backend_sched_reset(sched);
    return ok;
}

bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    GGML_ASSERT(sched && graph);
    GGML_ASSERT((size_t) (graph->n_nodes + graph->n_leafs) <= 2 * sched->graph_size);

    // a new graph without a reset in between: the assignments and copies of
    // the last one would leak into this one
    if (!sched->is_reset && (graph != sched->rewritten_graph || graph->uid != sched->rewritten_uid)) {
        ggml_backend_sched_reset(sched);
    }

    sched->cur_copy  = sched->next_copy;
    sched->next_copy = (sched->next_copy + 1) % sched->n_copies;

    ggml_backend_sched_split_graph(sched, graph);
    if (!alloc_splits(sched)) {
        return false;
    }
    sched->is_alloc = true;
    return true;
}

enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    enum ggml_status err = ggml_backend_sched_graph_compute_async(sched, graph);
    ggml_backend_sched_synchronize(sched);
    return err;
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    GGML_ASSERT(sched && graph);
    if (!sched->is_reset && !sched->is_alloc) {
        ggml_backend_sched_reset(sched);
    }
    if (!sched->is_alloc) {
        if (!ggml_backend_sched_alloc_graph(sched, graph)) {
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    return compute_splits(sched);
}

void ggml_backend_sched_synchronize(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    for (int b = 0; b < sched->n_backends; b++) {
        ggml_backend_synchronize(sched->backends[b]);
    }
    if (!sched->is_alloc) {
        // no graph in flight: start again with the first set of copies
        sched->next_copy = 0;
    }
}

void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback, void * user_data) {
    GGML_ASSERT(sched);
    sched->callback_eval = callback;
    sched->callback_eval_user_data = user_data;
}

int ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    return sched->n_splits;
}

int ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    return sched->n_copies;
}

int ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    return sched->n_backends;
}

ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i) {
    GGML_ASSERT(sched);
    if (i < 0 || i >= sched->n_backends) {
        GGML_LOG_ERROR("%s: backend index %d out of range (%d backends)\n", __func__, i, sched->n_backends);
        return NULL;
    }
    return sched->backends[i];
}

ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend) {
    GGML_ASSERT(sched);
    int prio = sched_backend_prio(sched, backend);
    if (prio == -1) {
        GGML_LOG_ERROR("%s: backend %s is not part of the scheduler\n", __func__, ggml_backend_name(backend));
        return NULL;
    }
    return sched->bufts[prio];
}

size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend) {
    GGML_ASSERT(sched);
    int prio = sched_backend_prio(sched, backend);
    if (prio == -1) {
        GGML_LOG_ERROR("%s: backend %s is not part of the scheduler\n", __func__, ggml_backend_name(backend));
        return 0;
    }
    return ggml_gallocr_get_buffer_size(sched->galloc, prio);
}

void ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend) {
    GGML_ASSERT(sched && node);
    int prio = sched_backend_prio(sched, backend);
    if (prio == -1) {
        GGML_LOG_ERROR("%s: backend %s is not part of the scheduler\n", __func__, ggml_backend_name(backend));
        return;
    }
    size_t slot = SLOT(sched, node);
    sched->hv_tensor_backend_ids[slot] = prio;
    sched->hv_user[slot] = 1;
    // the next reset must forget it, even without a split in between
    sched->user_set = true;
}

ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node) {
    GGML_ASSERT(sched && node);
    size_t slot = gbh_find(&sched->hash_set, node);
    if (slot == GBH_FULL) {
        return NULL;
    }
    int id = sched->hv_tensor_backend_ids[slot];
    return id == -1 ? NULL : sched->backends[id];
}
