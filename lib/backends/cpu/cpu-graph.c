/*
 * cpu-graph.c - ggml_graph_plan / ggml_graph_compute on the CPU.
 *
 * Every thread walks every node; each op splits its work by (ith, nth) or
 * takes chunks from a counter of its own node. Before the run, thread 0
 * plans the walk (plan_graph()):
 *
 * - Small nodes (a few thousand values of a cheap op) run on thread 0 alone
 *   ("solo"): splitting them would cost more in synchronisation than it
 *   saves, and consecutive solo nodes need no barrier between them.
 * - A barrier goes before a node only when it may touch memory another
 *   thread touched since the last barrier: it reads what such a node wrote,
 *   or writes what such a node read or wrote (byte ranges of the tensors,
 *   views resolved by their data pointers; MUL_MAT's activations in the
 *   shared work buffer count as memory too). Nodes that only read the same
 *   inputs (the Q, K and V products, gate and up) follow each other without
 *   one.
 * - A MUL_MAT whose src1 is already in the shared work buffer in the form it
 *   needs (an earlier MUL_MAT of this graph left it, and nothing wrote src1
 *   or the buffer since) skips its conversion and the barrier after it. A
 *   conversion of few values runs on thread 0 alone, so that it can follow
 *   solo nodes without a barrier before it.
 *
 * Thread 0 polls the abort callback after each node and records at which
 * node to stop; every thread checks after each barrier, so that all leave
 * after the same one.
 *
 * Work buffer: the shared part (the largest of the nodes', MUL_MAT's
 * activations), then one scratch area per thread, at the same place for
 * every node; the plan's work_size covers that, plus alignment slack.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-work.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t align_up(size_t n) {
    return (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

// Nothing to compute: no op, an empty tensor, or a node the graph holds
// without needing its value (ggml_build_forward_select's other candidates,
// ggml_build_forward_order: no GGML_TENSOR_FLAG_COMPUTE).
static bool node_is_noop(const struct ggml_tensor * node) {
    return ggml_op_is_empty(node->op) || node->op == GGML_OP_NONE || ggml_is_empty(node) ||
           !(node->flags & GGML_TENSOR_FLAG_COMPUTE);
}

// the two parts of the work buffer a graph needs
struct work_sizes {
    size_t shared; // aligned
    size_t per;    // aligned, per thread
};

static void node_work(const struct ggml_tensor * node, int n_threads, struct work_sizes * w) {
    if (node_is_noop(node) || !ggml_cpu_supports_op(node)) {
        return;
    }
    const size_t shared = align_up(ggml_cpu_op_work_shared(node, n_threads));
    const size_t per    = align_up(ggml_cpu_op_work_per_thread(node));
    w->shared = shared > w->shared ? shared : w->shared;
    w->per    = per > w->per ? per : w->per;
}

static size_t work_total(const struct work_sizes * w, int n_threads) {
    return w->shared + (size_t) n_threads * w->per;
}

void * ggml_cpu_thread_scratch(const struct ggml_compute_params * params, const struct ggml_tensor * node) {
    GGML_ASSERT(ggml_cpu_op_work_per_thread(node) <= params->scratch_size);
    return params->scratch;
}

struct ggml_cplan ggml_graph_plan(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * threadpool) {
    if (n_threads <= 0) {
        n_threads = threadpool ? ggml_threadpool_get_n_threads(threadpool) : GGML_DEFAULT_N_THREADS;
    }
    struct work_sizes w = { 0, 0 };
    for (int i = 0; i < cgraph->n_nodes; i++) {
        node_work(cgraph->nodes[i], n_threads, &w);
    }
    const size_t work = work_total(&w, n_threads);
    struct ggml_cplan cplan;
    memset(&cplan, 0, sizeof(cplan));
    cplan.work_size  = work > 0 ? work + GGML_CPU_CACHE_LINE : 0; // slack to align work_data
    cplan.work_data  = NULL;
    cplan.n_threads  = n_threads;
    cplan.threadpool = threadpool;
    return cplan;
}

// --- planning the walk ---------------------------------------------------------

// per node: how the threads take it
enum {
    NP_SKIP      = 1 << 0, // nothing to compute (not in the walk)
    NP_SOLO      = 1 << 1, // one thread alone (the one holding its segment's solo part)
    NP_BARRIER   = 1 << 2, // a synchronisation point before it: it starts a segment
    NP_CONV      = 1 << 3, // MUL_MAT: converts its activations, then waits for them (a segment ends inside);
                           // FLASH_ATTN_EXT: its partials over key ranges, then the wait, then their merge
    NP_SOLO_LAST = 1 << 4, // the last solo node of its segment
};

// how the threads take a node's work (cpu-work.h)
enum {
    NM_SOLO,    // one thread
    NM_CHUNKED, // every thread that gets there calls the op, which takes chunks
    NM_PIECES,  // pieces (ith of PIECES_PER_THREAD * nth) handed out like chunks
    NM_STATIC,  // every thread runs its own share
};

struct node_plan {
    uint8_t flags;
    uint8_t act;   // enum ggml_cpu_act_mode (MUL_MAT)
    uint8_t mode;
    int     seg;   // segment it starts in
    int     part;  // its part (chunks, pieces or static), -1: none
    int     act_part; // MUL_MAT's conversion pieces, -1: none
};

// pieces of an element-wise node per thread
#define PIECES_PER_THREAD 4

// Ops that split their work only by (ith, nth) into rows, with no barrier
// or thread-specific step inside: any nth works, and the pieces may run on
// any thread in any order.
static bool pieces_ok(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_DUP: case GGML_OP_CPY: case GGML_OP_CONT:
        case GGML_OP_ADD: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV:
        case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_LOG: case GGML_OP_SIN: case GGML_OP_COS:
        case GGML_OP_SCALE: case GGML_OP_CLAMP: case GGML_OP_LEAKY_RELU: case GGML_OP_UNARY: case GGML_OP_GLU:
        case GGML_OP_SUM_ROWS: case GGML_OP_MEAN: case GGML_OP_ARGMAX:
        case GGML_OP_NORM: case GGML_OP_RMS_NORM: case GGML_OP_SOFT_MAX:
        case GGML_OP_DIAG_MASK_INF: case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_ROPE: case GGML_OP_ROPE_BACK:
        case GGML_OP_GET_ROWS: case GGML_OP_SET_ROWS:
        case GGML_OP_CONCAT: case GGML_OP_REPEAT: case GGML_OP_PAD: case GGML_OP_ARANGE: case GGML_OP_ARGSORT:
            return true;
        default:
            return false;
    }
}

// Nodes of this size or less (destination values) run on thread 0 alone:
// cheap ops, and ops with a transcendental function per value.
#define SOLO_MAX_VALUES       16384
#define SOLO_MAX_VALUES_TRANS 8192
// A MUL_MAT converts this many src1 values or fewer on thread 0 alone.
#define ACT_SOLO_MAX_VALUES   65536

static bool solo_ok(const struct ggml_tensor * node) {
    int64_t n = ggml_nelements(node), lim = SOLO_MAX_VALUES;
    switch (node->op) {
        case GGML_OP_MUL_MAT: case GGML_OP_MUL_MAT_ID: case GGML_OP_FLASH_ATTN_EXT: case GGML_OP_ARGSORT:
        case GGML_OP_SSM_SCAN: case GGML_OP_RWKV_WKV6: case GGML_OP_RWKV_WKV7: case GGML_OP_GATED_LINEAR_ATTN:
        case GGML_OP_GATED_DELTA_NET:
        case GGML_OP_OUT_PROD:
        case GGML_OP_MAP_CUSTOM1: case GGML_OP_MAP_CUSTOM2: case GGML_OP_MAP_CUSTOM3: case GGML_OP_CUSTOM:
            return false; // heavy, or a user function that may expect every thread
        case GGML_OP_SET_ROWS:
            n = ggml_nelements(node->src[0]); // the rows written, not the destination
            break;
        case GGML_OP_UNARY: case GGML_OP_GLU: case GGML_OP_SOFT_MAX: case GGML_OP_ROPE: case GGML_OP_LOG:
        case GGML_OP_SIN: case GGML_OP_COS:
            lim = SOLO_MAX_VALUES_TRANS;
            break;
        case GGML_OP_SUM: case GGML_OP_SUM_ROWS: case GGML_OP_MEAN: case GGML_OP_ARGMAX:
            n = ggml_nelements(node->src[0]);
            break;
        default:
            break;
    }
    return n <= lim;
}

// a byte range of memory
struct span {
    uintptr_t a, b;
};

static struct span tensor_span(const struct ggml_tensor * t) {
    const uintptr_t a = (uintptr_t) t->data;
    return (struct span) { a, a + ggml_nbytes(t) };
}

static bool overlap(struct span x, struct span y) {
    return x.a < y.b && y.a < x.b && x.a < x.b && y.a < y.b;
}

// What a step (a node, or the part of a MUL_MAT after its barrier) reads and
// writes: its sources, its destination, and the shared activations.
struct step {
    const struct ggml_tensor * node;
    bool split;      // run by every thread (else by thread 0 alone)
    bool read_srcs;  // reads node->src[] (all of them, or src[0] only when !src1)
    bool src1;
    bool read_act, write_act;
    bool write_dst;
};

static bool step_reads(const struct step * s, struct span m, struct span act) {
    if (s->read_act && overlap(m, act)) {
        return true;
    }
    if (!s->read_srcs) {
        return false;
    }
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        const struct ggml_tensor * src = s->node->src[k];
        if (src == NULL || (k == 1 && !s->src1)) {
            continue;
        }
        if (src->data == NULL || overlap(m, tensor_span(src))) {
            return true;
        }
    }
    return false;
}

static bool step_writes(const struct step * s, struct span m, struct span act) {
    return (s->write_act && overlap(m, act)) || (s->write_dst && overlap(m, tensor_span(s->node)));
}

// true when step b must not start before step a is done on every thread
static bool conflict(const struct step * a, const struct step * b, struct span act) {
    if (!a->split && !b->split) {
        return false; // both on thread 0, in order
    }
    // b reads what a wrote
    if (a->write_dst && step_reads(b, tensor_span(a->node), act)) {
        return true;
    }
    if (a->write_act && step_reads(b, act, act)) {
        return true;
    }
    // b writes what a read or wrote
    if (b->write_dst) {
        const struct span d = tensor_span(b->node);
        if (step_reads(a, d, act) || step_writes(a, d, act)) {
            return true;
        }
    }
    if (b->write_act && (step_reads(a, act, act) || step_writes(a, act, act))) {
        return true;
    }
    return false;
}

// the steps since the last barrier
#define MAX_PENDING 32

struct pending {
    struct step s[MAX_PENDING];
    int n;
};

// true when step b may not start before every step of p is done on every thread
static bool pending_conflicts(const struct pending * p, const struct step * b, struct span act) {
    if (p->n == MAX_PENDING) {
        return true;
    }
    for (int i = 0; i < p->n; i++) {
        if (conflict(&p->s[i], b, act)) {
            return true;
        }
    }
    return false;
}

static void add_step(struct pending * p, const struct step * s) {
    p->s[p->n++] = *s;
}

// What planning knows at a point of the walk: the steps since the last
// barrier, and which activations are in the shared buffer.
struct plan_state {
    const struct ggml_tensor * act_src; // of which src1 (NULL: none)
    int act_form;                       // in which form
    struct pending p;
};

static void state_copy(struct plan_state * d, const struct plan_state * s) {
    d->act_src = s->act_src;
    d->act_form = s->act_form;
    d->p.n = s->p.n;
    memcpy(d->p.s, s->p.s, (size_t) s->p.n * sizeof(s->p.s[0]));
}

// Plans node next in the walk: its flags and activation mode in *np, and
// the state after it. Returns true when it adds a barrier (before it, or
// inside it after its conversion).
static bool plan_node(struct plan_state * st, const struct ggml_tensor * node, int nth, bool ref, struct span act,
                      struct node_plan * np) {
    struct pending * p = &st->p;
    const bool solo = nth > 1 && solo_ok(node);
    int form = 0;
    int64_t n_values = 0;
    const bool has_act = node->op == GGML_OP_MUL_MAT && ggml_cpu_mul_mat_act_form(node, ref, &form, &n_values);
    // FLASH_ATTN_EXT split over keys: partials into the shared buffer, a
    // wait inside the node, then their merge into dst
    const bool fa_split = node->op == GGML_OP_FLASH_ATTN_EXT && !solo && nth > 1 &&
                          ggml_cpu_attn_key_ranges(node, nth, ref) > 1;
    bool barrier = false;
    np->flags = solo ? NP_SOLO : 0;
    np->act = GGML_CPU_ACT_SPLIT;
    struct step s = { node, !solo, true, true, false, false, true };
    if (has_act && st->act_src == node->src[1] && st->act_form == form) {
        // the activations are there: the products only
        np->act = GGML_CPU_ACT_REUSE;
        s.src1 = false;
        s.read_act = true;
    } else if (has_act) {
        // conversion (reads src1, writes the activations), a barrier, then
        // the products (read the weights and the activations)
        struct step conv = { node, !solo, true, true, false, true, false };
        struct step prod = { node, !solo, true, false, true, false, true };
        if (!solo && nth > 1 && n_values <= ACT_SOLO_MAX_VALUES) {
            // on thread 0 alone, unless a barrier is needed anyway
            conv.split = false;
            conv.split = pending_conflicts(p, &conv, act);
        }
        np->act = !conv.split && !solo ? GGML_CPU_ACT_SOLO : GGML_CPU_ACT_SPLIT;
        if (pending_conflicts(p, &conv, act)) {
            np->flags |= NP_BARRIER;
            barrier = true;
            p->n = 0;
        }
        if (!solo && nth > 1) {
            p->n = 0; // the barrier inside the node
            barrier = true;
            np->flags |= NP_CONV;
        } else {
            add_step(p, &conv);
        }
        st->act_src = node->src[1];
        st->act_form = form;
        s = prod;
    } else if (fa_split) {
        struct step part = { node, true, true, true, false, true, false };
        struct step merge = { node, true, true, false, true, false, true };
        if (pending_conflicts(p, &part, act)) {
            np->flags |= NP_BARRIER;
        }
        p->n = 0; // the wait inside the node
        barrier = true;
        np->flags |= NP_CONV;
        st->act_src = NULL; // the buffer holds no activations now
        s = merge;
    }
    if (pending_conflicts(p, &s, act)) {
        np->flags |= NP_BARRIER;
        barrier = true;
        p->n = 0;
    }
    add_step(p, &s);
    // activations made from a tensor this node overwrote are stale
    if (st->act_src && overlap(tensor_span(node), tensor_span(st->act_src))) {
        st->act_src = NULL;
    }
    return barrier;
}

// true when nodes a and b touch no common memory but to read it: either may
// run first
static bool independent(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    const struct step sa = { a, true, true, true, false, false, true };
    const struct step sb = { b, true, true, true, false, false, true };
    const struct span none = { 0, 0 };
    return !conflict(&sa, &sb, none);
}

// nodes looked at ahead of the next one in graph order
#define LOOKAHEAD 8

// Plans the walk (see the top of the file): the order in which the nodes
// run (order[], n entries returned in *n_order; nodes without work left
// out) and each one's plan (np[node index]). act: the shared part of the
// work buffer.
//
// The walk takes the nodes in graph order, except that when the next one
// would need a barrier, a node up to LOOKAHEAD further on that would not,
// and that touches no memory an earlier waiting node writes or writes what
// one reads, goes first (Q, K and V products before the RoPE that waits for
// Q, say).
static void plan_graph(const struct ggml_cgraph * g, int nth, bool ref, struct span act, struct node_plan * np,
                       int * order, int * n_order) {
    struct plan_state st, tmp;
    st.act_src = NULL;
    st.act_form = 0;
    st.p.n = 0;
    int n_left = 0;
    // the nodes still to place, in graph order (order[] fills from the front
    // no faster than this list empties, so it shares the array's tail)
    int * left = order + g->n_nodes;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ggml_tensor * node = g->nodes[i];
        np[i] = (struct node_plan) { 0, GGML_CPU_ACT_SPLIT, NM_STATIC, 0, -1, -1 };
        if (node_is_noop(node)) {
            np[i].flags = NP_SKIP;
            continue;
        }
        left[n_left++] = i;
    }
    int head = 0, n = 0;
    while (head < n_left) {
        int pick = 0; // offset from head
        struct node_plan trial;
        state_copy(&tmp, &st);
        if (nth > 1 && plan_node(&tmp, g->nodes[left[head]], nth, ref, act, &trial)) {
            for (int k = 1; k <= LOOKAHEAD && head + k < n_left; k++) {
                const struct ggml_tensor * c = g->nodes[left[head + k]];
                bool free_to_move = true;
                for (int u = 0; u < k && free_to_move; u++) {
                    free_to_move = independent(g->nodes[left[head + u]], c);
                }
                if (!free_to_move) {
                    continue;
                }
                state_copy(&tmp, &st);
                if (!plan_node(&tmp, c, nth, ref, act, &trial)) {
                    pick = k;
                    break;
                }
            }
        }
        const int i = left[head + pick];
        plan_node(&st, g->nodes[i], nth, ref, act, &np[i]);
        // keep the rest in graph order
        memmove(&left[head + 1], &left[head], (size_t) pick * sizeof(int));
        head++;
        order[n++] = i;
    }
    *n_order = n;
}

// Cutting the planned walk into segments and parts (cpu-work.h): counts
// them, and with a work object, sets them up.
struct part_maker {
    struct ggml_cpu_work * w;   // NULL: count only
    _Atomic uint64_t * words;   // nth zeroed words a cache line apart per chunked part, in order
    int nth;
    int n_parts, n_words;
    int seg, seg_solo, last_solo; // the current segment, its solo part and last solo node
};

static int new_part(struct part_maker * m, int64_t total, bool chunked) {
    if (m->w) {
        _Atomic uint64_t * words = chunked ? m->words + (size_t) m->n_words * (size_t) m->nth * GGML_CPU_CHUNK_STRIDE : NULL;
        ggml_cpu_part_init(m->w, m->n_parts, m->seg, total, words);
        atomic_fetch_add_explicit(&m->w->segs[m->seg].pending, 1, memory_order_relaxed);
    }
    m->n_words += chunked ? 1 : 0;
    return m->n_parts++;
}

static void end_segment(struct part_maker * m, struct node_plan * np) {
    if (m->w) {
        m->w->segs[m->seg].solo = m->seg_solo;
        atomic_init(&m->w->segs[m->seg + 1].pending, 0);
        atomic_init(&m->w->segs[m->seg + 1].decision, 0);
        m->w->segs[m->seg + 1].solo = -1;
    }
    if (m->last_solo >= 0) {
        np[m->last_solo].flags |= NP_SOLO_LAST;
    }
    m->seg++;
    m->seg_solo = m->last_solo = -1;
}

// Gives every node of the walk its mode, segment and parts (np[].mode, seg,
// part, act_part, NP_SOLO_LAST); m->seg + 1 segments in the end.
static void plan_parts(const struct ggml_cgraph * g, struct node_plan * np, const int * order, int n_order,
                       struct part_maker * m) {
    m->n_parts = m->n_words = m->seg = 0;
    m->seg_solo = m->last_solo = -1;
    if (m->w) {
        atomic_init(&m->w->segs[0].pending, 0);
        atomic_init(&m->w->segs[0].decision, 1);
        m->w->segs[0].solo = -1;
    }
    for (int k = 0; k < n_order; k++) {
        const int i = order[k];
        struct node_plan * p = &np[i];
        const struct ggml_tensor * node = g->nodes[i];
        if ((p->flags & NP_BARRIER) && k > 0) {
            end_segment(m, np);
        }
        p->seg = m->seg;
        if ((p->flags & NP_SOLO) || ((p->flags & NP_CONV) && p->act == GGML_CPU_ACT_SOLO)) {
            if (m->seg_solo < 0) {
                m->seg_solo = new_part(m, 1, false);
            }
            m->last_solo = i;
        }
        if (p->flags & NP_SOLO) {
            p->mode = NM_SOLO;
        } else if (node->op == GGML_OP_MUL_MAT || node->op == GGML_OP_FLASH_ATTN_EXT) {
            p->mode = NM_CHUNKED;
            if (p->flags & NP_CONV) {
                if (p->act == GGML_CPU_ACT_SPLIT) {
                    p->act_part = new_part(m, -1, true);
                }
                end_segment(m, np); // the wait for the activations
            }
            p->part = new_part(m, -1, true);
        } else if (pieces_ok(node)) {
            p->mode = NM_PIECES;
            p->part = new_part(m, -1, true);
        } else {
            p->mode = NM_STATIC;
            p->part = new_part(m, m->nth, false);
        }
    }
    if (m->w) {
        m->w->segs[m->seg].solo = m->seg_solo;
    }
    if (m->last_solo >= 0) {
        np[m->last_solo].flags |= NP_SOLO_LAST;
    }
}

struct graph_state {
    struct ggml_cgraph * cgraph;
    const struct ggml_cplan * cplan;
    struct ggml_threadpool * tp;
    void * wdata;      // shared part
    size_t wsize;
    char * scratch;    // per-thread parts, scratch_size bytes apart
    size_t scratch_size;
    bool ref;
    const struct node_plan * np; // per node
    const int * order;           // the walk: node indices
    int n_order;
    struct ggml_cpu_work work;   // several threads: parts and segments
    // several threads: thread 0 has seen the last segment done (the graph
    // is computed); a thread's word is 1 while it works on a step, from
    // before it looks at finished
    _Alignas(GGML_CPU_CACHE_LINE) atomic_int finished;
    struct ggml_cpu_word * active;
};

static void walk_one(struct graph_state * st) {
    const struct ggml_cplan * cplan = st->cplan;
    for (int k = 0; k < st->n_order; k++) {
        struct ggml_tensor * node = st->cgraph->nodes[st->order[k]];
        struct ggml_compute_params params = {
            .ith = 0, .nth = 1,
            .wsize = st->wsize, .wdata = st->wdata,
            .scratch = st->scratch, .scratch_size = st->scratch_size,
            .tp = st->tp, .ref = st->ref, .act = GGML_CPU_ACT_SPLIT,
        };
        ggml_cpu_compute_forward(&params, node);
        if (cplan->abort_callback && cplan->abort_callback(cplan->abort_callback_data)) {
            atomic_store(&st->work.abort, true);
            break;
        }
    }
}

static void graph_worker(void * data, int ith, int nth) {
    struct graph_state * st = data;
    if (nth == 1) {
        walk_one(st);
        return;
    }
    const struct ggml_cplan * cplan = st->cplan;
    struct ggml_cpu_work * w = &st->work;
    struct ggml_cpu_thread thr = { w, ith, 0, -1, false };
    bool stopped = false;
    for (int k = 0; k < st->n_order; k++) {
        const int i = st->order[k];
        const struct node_plan * np = &st->np[i];
        if (np->seg != thr.seg && !ggml_cpu_seg_next(&thr, true)) {
            stopped = true; // aborted: every thread stops here
            break;
        }
        if (ith > 0) {
            // Thread 0 may have returned while this thread was not running
            // (the others did its share): then the graph is the caller's
            // again. Either thread 0 sees this flag and waits, or this
            // thread sees finished.
            atomic_store_explicit(&st->active[ith].val, 1, memory_order_seq_cst);
            if (atomic_load_explicit(&st->finished, memory_order_seq_cst)) {
                // thread 0 may have seen the flag and gone to sleep on it
                ggml_cpu_word_add_wake(&st->active[ith], -1);
                return;
            }
        }
        struct ggml_tensor * node = st->cgraph->nodes[i];
        struct ggml_compute_params params = {
            .ith = ith, .nth = nth,
            .wsize = st->wsize, .wdata = st->wdata,
            .scratch = st->scratch + (size_t) ith * st->scratch_size, .scratch_size = st->scratch_size,
            .tp = st->tp,
            .part = np->part >= 0 ? &w->parts[np->part] : NULL,
            .act_part = np->act_part >= 0 ? &w->parts[np->act_part] : NULL,
            .thr = &thr,
            .ref = st->ref, .act = (enum ggml_cpu_act_mode) np->act,
        };
        switch (np->mode) {
            case NM_SOLO:
                if (ggml_cpu_solo_take(&thr)) {
                    params.ith = 0;
                    params.nth = 1;
                    params.part = NULL;
                    params.thr = NULL; // nothing inside waits for other threads
                    ggml_cpu_compute_forward(&params, node);
                    if (np->flags & NP_SOLO_LAST) {
                        ggml_cpu_solo_done(&thr);
                    }
                }
                break;
            case NM_PIECES: {
                // the pieces are handed out as chunks; each runs as piece c of n
                struct ggml_cpu_chunk_iter ci;
                const int n = nth * PIECES_PER_THREAD;
                ggml_cpu_chunk_begin(&params, n, &ci);
                struct ggml_compute_params piece = params;
                piece.nth = n;
                piece.part = NULL;
                piece.thr = NULL;
                for (int64_t c = ggml_cpu_chunk_next(&params, &ci); c >= 0; c = ggml_cpu_chunk_next(&params, &ci)) {
                    piece.ith = (int) c;
                    ggml_cpu_compute_forward(&piece, node);
                }
                break;
            }
            case NM_CHUNKED:
                ggml_cpu_compute_forward(&params, node);
                break;
            case NM_STATIC:
            default:
                ggml_cpu_compute_forward(&params, node);
                ggml_cpu_part_done(w, params.part, 1);
                break;
        }
        if (ith > 0) {
            ggml_cpu_word_add_wake(&st->active[ith], -1);
        } else if (cplan->abort_callback && !atomic_load_explicit(&w->abort, memory_order_relaxed) &&
                   cplan->abort_callback(cplan->abort_callback_data)) {
            atomic_store(&w->abort, true);
        }
    }
    if (ith == 0) {
        // the end of the walk: once the last segment is done (stopped:
        // nothing runs), the workers that are not on a step are let go
        if (!stopped) {
            ggml_cpu_seg_next(&thr, false);
        }
        atomic_store_explicit(&st->finished, 1, memory_order_seq_cst);
        for (int t = 1; t < nth; t++) {
            while (atomic_load_explicit(&st->active[t].val, memory_order_seq_cst) != 0) {
                ggml_cpu_word_wait(st->tp, &st->active[t], 1);
            }
        }
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
    struct work_sizes w = { 0, 0 };
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
        node_work(node, n_threads, &w);
    }
    const size_t need = work_total(&w, n_threads);
    if (need > 0 && (cplan->work_data == NULL || cplan->work_size < need + GGML_CPU_CACHE_LINE)) {
        GGML_LOG_ERROR("%s: work buffer of %zu bytes, the graph needs %zu (use ggml_graph_plan)\n", __func__,
                       cplan->work_size, need + GGML_CPU_CACHE_LINE);
        return GGML_STATUS_FAILED;
    }

    struct ggml_threadpool * disposable = NULL;
    struct ggml_threadpool * tp = cplan->threadpool;
    if (tp == NULL && n_threads > 1) {
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
        disposable = ggml_threadpool_new(&tpp);
        if (disposable == NULL) {
            GGML_LOG_WARN("%s: no threadpool, computing on one thread\n", __func__);
            n_threads = 1;
        }
        tp = disposable;
    }

    // The state of the run: the plan of the walk (per node, then the order
    // and the list planning works through), and for several threads its
    // parts, segments and the threads' step flags. With several threads it
    // is the pool's memory: workers that fall behind may still be on their
    // way out of the walk when this returns.
    const size_t st_size = align_up(sizeof(struct graph_state));
    const size_t np_size = align_up((size_t) cgraph->n_nodes * sizeof(struct node_plan));
    const size_t order_size = align_up((size_t) cgraph->n_nodes * 2 * sizeof(int));
    // at most two parts a node and a solo part a segment; a segment a node
    // and one inside each MUL_MAT
    const size_t max_parts = (size_t) cgraph->n_nodes * 3 + 1, max_segs = (size_t) cgraph->n_nodes * 2 + 2;
    const size_t parts_size = n_threads > 1 ? align_up(max_parts * sizeof(struct ggml_cpu_part)) : 0;
    const size_t segs_size = n_threads > 1 ? align_up(max_segs * sizeof(struct ggml_cpu_seg)) : 0;
    const size_t active_size = n_threads > 1 ? align_up((size_t) n_threads * sizeof(struct ggml_cpu_word)) : 0;
    const size_t total = st_size + np_size + order_size + parts_size + segs_size + active_size;
    char * mem = n_threads > 1 ? ggml_cpu_run_state(tp, 0, total) : aligned_alloc(GGML_CPU_CACHE_LINE, total);
    if (mem == NULL) {
        ggml_threadpool_free(disposable);
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return GGML_STATUS_ALLOC_FAILED;
    }
    struct graph_state * st = (struct graph_state *) mem;
    memset(st, 0, sizeof(*st));
    st->cgraph = cgraph;
    st->cplan  = cplan;
    st->ref    = use_ref;
    st->tp     = tp;
    if (need > 0) {
        uintptr_t p = (uintptr_t) cplan->work_data;
        uintptr_t a = (p + GGML_CPU_CACHE_LINE - 1) & ~(uintptr_t) (GGML_CPU_CACHE_LINE - 1);
        st->wdata        = (void *) a;
        st->wsize        = w.shared;
        st->scratch      = (char *) a + w.shared;
        st->scratch_size = w.per;
    }
    struct node_plan * np = (struct node_plan *) (mem + st_size);
    int * order = (int *) (mem + st_size + np_size);
    const struct span act = { (uintptr_t) st->wdata, (uintptr_t) st->wdata + st->wsize };
    plan_graph(cgraph, n_threads, use_ref, act, np, order, &st->n_order);
    st->np = np;
    st->order = order;
    atomic_init(&st->work.progress.val, 0);
    atomic_init(&st->work.progress.sleepers, 0);
    atomic_init(&st->work.abort, false);
    atomic_init(&st->finished, 0);
    if (n_threads > 1) {
        struct part_maker m = { NULL, NULL, n_threads, 0, 0, 0, -1, -1 };
        plan_parts(cgraph, np, order, st->n_order, &m); // count the chunk words
        const size_t words_size = (size_t) m.n_words * (size_t) n_threads * GGML_CPU_CACHE_LINE;
        _Atomic uint64_t * words = ggml_cpu_run_state(tp, 1, words_size > 0 ? words_size : GGML_CPU_CACHE_LINE);
        if (words == NULL) {
            ggml_threadpool_free(disposable);
            GGML_LOG_ERROR("%s: out of memory\n", __func__);
            return GGML_STATUS_ALLOC_FAILED;
        }
        for (size_t c = 0; c < (size_t) m.n_words * (size_t) n_threads; c++) {
            atomic_init(&words[c * GGML_CPU_CHUNK_STRIDE], 0);
        }
        char * q = mem + st_size + np_size + order_size;
        st->work.nth = n_threads;
        st->work.tp = tp;
        st->work.parts = (struct ggml_cpu_part *) q;
        st->work.segs = (struct ggml_cpu_seg *) (q + parts_size);
        st->active = (struct ggml_cpu_word *) (q + parts_size + segs_size);
        for (int t = 0; t < n_threads; t++) {
            atomic_init(&st->active[t].val, 0);
            atomic_init(&st->active[t].sleepers, 0);
        }
        m.w = &st->work;
        m.words = words;
        plan_parts(cgraph, np, order, st->n_order, &m);
        GGML_ASSERT((size_t) m.n_parts <= max_parts && (size_t) m.seg + 1 < max_segs);
        ggml_cpu_run_leave(tp, n_threads, graph_worker, st);
    } else {
        walk_one(st);
    }
    const bool aborted = atomic_load(&st->work.abort);
    if (n_threads == 1) {
        free(mem);
    }
    ggml_threadpool_free(disposable);
    return aborted ? GGML_STATUS_ABORTED : GGML_STATUS_SUCCESS;
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
