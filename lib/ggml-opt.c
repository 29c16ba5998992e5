/*
 * ggml-opt.c - optimization contexts of ggml-opt: the loss, gradient and
 * optimizer-step graphs built around a model's forward graph, their
 * allocation through a backend scheduler, evaluation, and the epoch and
 * fit drivers.
 *
 * Three graphs, each extending the previous one:
 *   gf       the forward pass: model, loss (and for cross-entropy the
 *            argmax predictions and the count of correct ones)
 *   gb_grad  gf plus the backward pass into per-parameter accumulators
 *   gb_opt   gb_grad plus one AdamW or SGD step per parameter
 * With static graphs (ctx_compute, inputs and outputs given to
 * ggml_opt_init) they are built once and each allocation works on a fresh
 * copy of the graph, so that allocating one graph never leaves data
 * pointers behind in another; the loss, labels and predictions then live
 * in the context's own static buffer. With dynamic graphs the caller brings
 * a forward graph before each ggml_opt_alloc and the graphs are rebuilt.
 *
 * Gradient accumulation: with opt_period > 1 (and always with dynamic
 * graphs) parameter gradients accumulate in F32 tensors of the static
 * buffer; they are zeroed when a period begins, and the last backward
 * evaluation of the period runs gb_opt. Per-datapoint losses are divided by
 * opt_period so that the accumulated gradient is that of the whole logical
 * batch. Only backward evaluations advance the period.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-opt-impl.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// distinct buffer types of a context's static tensors: the scheduler's
// backends' (GGML_SCHED_MAX_BACKENDS is 16)
#define OPT_MAX_BUFTS 17

struct ggml_opt_context {
    ggml_backend_sched_t backend_sched;

    struct ggml_context * ctx_compute; // the caller's: graphs and intermediate tensors
    struct ggml_context * ctx_static;  // accumulators, moments (static graphs: loss, labels, ...)
    struct ggml_context * ctx_cpu;     // the optimizer's hyperparameters
    struct ggml_context * ctx_copy;    // the allocated copy of a static graph
    ggml_backend_buffer_t buf_cpu;

    // ctx_static's tensors, allocated once: results (and the loss gradient)
    // where the loss ops run, each parameter's accumulator and moments
    // where its optimizer step runs; one buffer per buffer type
    bool                       static_allocated;
    ggml_backend_buffer_type_t results_buft;
    ggml_backend_buffer_type_t * state_buft; // per node index of gf
    ggml_backend_buffer_t      bufs_static[OPT_MAX_BUFTS];
    int                        n_bufs_static;

    enum ggml_opt_loss_type      loss_type;
    enum ggml_opt_build_type     build_type;       // of the graph allocated last
    enum ggml_opt_build_type     build_type_alloc; // the most the context builds
    enum ggml_opt_optimizer_type optimizer;

    struct ggml_tensor * inputs;
    struct ggml_tensor * outputs;
    struct ggml_tensor * labels;
    struct ggml_tensor * loss;
    struct ggml_tensor * pred;
    struct ggml_tensor * ncorrect;
    struct ggml_tensor * opt_step_params; // F32 [7] (AdamW) or [2] (SGD), CPU memory

    struct ggml_cgraph * gf;
    struct ggml_cgraph * gb_grad;
    struct ggml_cgraph * gb_opt;
    struct ggml_cgraph * allocated_graph;      // gf, gb_grad or gb_opt
    struct ggml_cgraph * allocated_graph_copy; // what the scheduler allocated and runs

    bool static_graphs;
    bool eval_ready;
    bool loss_per_datapoint;

    // per node index of gf: gradient accumulators, AdamW moments
    int                  n_grad_nodes;
    struct ggml_tensor ** grad_accs;
    struct ggml_tensor ** grad_m;
    struct ggml_tensor ** grad_v;

    int64_t iter;       // optimizer steps done + 1 (AdamW's bias correction)
    int32_t opt_period;
    int32_t opt_i;      // backward evaluations done in the current period

    ggml_opt_get_optimizer_params get_opt_pars;
    void *                        get_opt_pars_ud;

    uint64_t rng[4];    // xoshiro256** state for shuffling
};

//
// Random numbers: xoshiro256**, seeded with splitmix64 from a fixed value
// so that every new context shuffles the same way.
//

static uint64_t splitmix64(uint64_t * x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static uint64_t opt_rng_next(ggml_opt_context_t ctx) {
    uint64_t * s = ctx->rng;
    const uint64_t r = rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return r;
}

uint64_t ggml_opt_rng_below(ggml_opt_context_t opt_ctx, uint64_t n) {
    GGML_ASSERT(n > 0);
    // reject the top partial range so that every value is equally likely
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do {
        r = opt_rng_next(opt_ctx);
    } while (r >= limit);
    return r % n;
}

//
// Parameters
//

struct ggml_opt_optimizer_params ggml_opt_get_default_optimizer_params(void * userdata) {
    (void) userdata;
    struct ggml_opt_optimizer_params p;
    p.adamw.alpha = 1e-3f;
    p.adamw.beta1 = 0.9f;
    p.adamw.beta2 = 0.999f;
    p.adamw.eps   = 1e-8f;
    p.adamw.wd    = 0.0f;
    p.sgd.alpha   = 1e-3f;
    p.sgd.wd      = 0.0f;
    return p;
}

struct ggml_opt_optimizer_params ggml_opt_get_constant_optimizer_params(void * userdata) {
    GGML_ASSERT(userdata != NULL);
    return *(const struct ggml_opt_optimizer_params *) userdata;
}

struct ggml_opt_params ggml_opt_default_params(ggml_backend_sched_t backend_sched, enum ggml_opt_loss_type loss_type) {
    struct ggml_opt_params p = {
        .backend_sched   = backend_sched,
        .ctx_compute     = NULL,
        .inputs          = NULL,
        .outputs         = NULL,
        .loss_type       = loss_type,
        .build_type      = GGML_OPT_BUILD_TYPE_OPT,
        .opt_period      = 1,
        .get_opt_pars    = ggml_opt_get_default_optimizer_params,
        .get_opt_pars_ud = NULL,
        .optimizer       = GGML_OPT_OPTIMIZER_TYPE_ADAMW,
    };
    return p;
}

const char * ggml_opt_optimizer_name(enum ggml_opt_optimizer_type optimizer) {
    switch (optimizer) {
        case GGML_OPT_OPTIMIZER_TYPE_ADAMW: return "adamw";
        case GGML_OPT_OPTIMIZER_TYPE_SGD:   return "sgd";
        default:                            return "undefined";
    }
}

enum ggml_opt_optimizer_type ggml_opt_context_optimizer_type(ggml_opt_context_t opt_ctx) {
    return opt_ctx->optimizer;
}

//
// Copies of static graphs
//

// tensor -> copy, over the tensors a graph reaches
struct tensor_map {
    struct ggml_hash_set set;
    struct ggml_tensor ** copies; // per slot of set
};

static void tensor_map_collect(struct tensor_map * m, struct ggml_tensor * t, size_t * count) {
    while (t != NULL && ggml_hash_insert(&m->set, t) != GGML_HASHSET_ALREADY_EXISTS) {
        (*count)++;
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            tensor_map_collect(m, t->src[k], count);
        }
        t = t->view_src;
    }
}

static struct ggml_tensor * tensor_map_copy(struct tensor_map * m, struct ggml_context * ctx, struct ggml_tensor * t) {
    if (t == NULL) {
        return NULL;
    }
    const size_t h = ggml_hash_find(&m->set, t);
    GGML_ASSERT(h != GGML_HASHSET_FULL && ggml_bitset_get(m->set.used, h));
    if (m->copies[h] != NULL) {
        return m->copies[h];
    }
    struct ggml_tensor * c = ggml_new_tensor(ctx, t->type, GGML_MAX_DIMS, t->ne);
    m->copies[h] = c;
    memcpy(c->nb, t->nb, sizeof(c->nb));
    c->op = t->op;
    memcpy(c->op_params, t->op_params, sizeof(c->op_params));
    c->flags     = t->flags;
    c->data      = t->data;
    c->buffer    = t->buffer;
    c->extra     = t->extra;
    c->view_offs = t->view_offs;
    memcpy(c->name, t->name, sizeof(c->name));
    c->view_src = tensor_map_copy(m, ctx, t->view_src);
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        c->src[k] = tensor_map_copy(m, ctx, t->src[k]);
    }
    return c;
}

// the tensor's copy if the graph reaches it, else the tensor itself
static struct ggml_tensor * tensor_map_get(struct tensor_map * m, struct ggml_tensor * t) {
    if (t == NULL) {
        return NULL;
    }
    const size_t h = ggml_hash_find(&m->set, t);
    if (h == GGML_HASHSET_FULL || !ggml_bitset_get(m->set.used, h) || m->copies[h] == NULL) {
        return t;
    }
    return m->copies[h];
}

// A copy of src with copies of all its tensors (same data pointers: the
// ones already allocated stay where they are), in a new *ctx.
static struct ggml_cgraph * opt_graph_copy(struct ggml_context ** ctx, struct ggml_cgraph * src) {
    struct tensor_map m;
    const size_t n_in = (size_t) src->n_nodes + (size_t) src->n_leafs;
    m.set    = ggml_hash_set_new(ggml_hash_size(2 * n_in + 16));
    m.copies = calloc(m.set.size, sizeof(*m.copies));
    GGML_ASSERT(m.copies != NULL);

    size_t count = 0;
    for (int i = 0; i < src->n_leafs; i++) {
        tensor_map_collect(&m, src->leafs[i], &count);
    }
    for (int i = 0; i < src->n_nodes; i++) {
        tensor_map_collect(&m, src->nodes[i], &count);
    }

    const bool grads = src->grads != NULL;
    const struct ggml_init_params params = {
        .mem_size   = count * ggml_tensor_overhead() + ggml_graph_overhead_custom((size_t) src->size, grads),
        .mem_buffer = NULL,
        .no_alloc   = true,
    };
    ggml_free(*ctx);
    *ctx = ggml_init(params);
    GGML_ASSERT(*ctx != NULL);

    struct ggml_cgraph * dst = ggml_new_graph_custom(*ctx, (size_t) src->size, grads);
    for (int i = 0; i < src->n_leafs; i++) {
        ggml_build_forward_expand(dst, tensor_map_copy(&m, *ctx, src->leafs[i]));
    }
    for (int i = 0; i < src->n_nodes; i++) {
        ggml_build_forward_expand(dst, tensor_map_copy(&m, *ctx, src->nodes[i]));
    }
    GGML_ASSERT(dst->n_leafs == src->n_leafs && dst->n_nodes == src->n_nodes);

    if (grads) {
        for (int i = 0; i < src->n_nodes; i++) {
            const size_t hs = ggml_hash_find(&src->visited_hash_set, src->nodes[i]);
            const size_t hd = ggml_hash_find(&dst->visited_hash_set, dst->nodes[i]);
            GGML_ASSERT(hs != GGML_HASHSET_FULL && hd != GGML_HASHSET_FULL);
            dst->grads[hd]     = tensor_map_get(&m, src->grads[hs]);
            dst->grad_accs[hd] = tensor_map_get(&m, src->grad_accs[hs]);
        }
    }

    free(m.copies);
    ggml_hash_set_free(&m.set);
    return dst;
}

//
// Building the graphs
//

static ggml_backend_buffer_type_t sched_buft(ggml_opt_context_t opt_ctx, int i) {
    return ggml_backend_get_default_buffer_type(ggml_backend_sched_get_backend(opt_ctx->backend_sched, i));
}

// Where a parameter's state goes: the default buffer type of the first
// backend (in the scheduler's order) that can use the parameter's buffer
// and run its optimizer step (if built), where the scheduler will run the
// step. The step updates the state in place: a backend that cannot use the
// state's memory would fail or update a copy. Backend 0 when the parameter
// is not allocated yet.
static ggml_backend_buffer_type_t opt_state_buft(ggml_opt_context_t opt_ctx, const struct ggml_tensor * param,
                                                 struct ggml_tensor * step) {
    if (param->buffer != NULL) {
        ggml_backend_buffer_type_t pb = ggml_backend_buffer_get_type(param->buffer);
        const int n = ggml_backend_sched_get_n_backends(opt_ctx->backend_sched);
        for (int b = 0; b < n; b++) {
            ggml_backend_t be = ggml_backend_sched_get_backend(opt_ctx->backend_sched, b);
            if (ggml_backend_supports_buft(be, pb) && (step == NULL || ggml_backend_supports_op(be, step))) {
                return ggml_backend_get_default_buffer_type(be);
            }
        }
    }
    return sched_buft(opt_ctx, 0);
}

// Allocates ctx_static's tensors, grouped by buffer type.
static void opt_alloc_static(ggml_opt_context_t opt_ctx) {
    GGML_ASSERT(!opt_ctx->static_allocated);
    opt_ctx->static_allocated = true;

    size_t n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(opt_ctx->ctx_static); t; t = ggml_get_next_tensor(opt_ctx->ctx_static, t)) {
        n++;
    }
    if (n == 0) {
        return;
    }
    struct ggml_tensor ** tensors = calloc(n, sizeof(*tensors));
    ggml_backend_buffer_type_t * bufts = calloc(n, sizeof(*bufts));
    struct ggml_hash_set state = ggml_hash_set_new(ggml_hash_size(3 * (size_t) opt_ctx->n_grad_nodes + 1));
    ggml_backend_buffer_type_t * state_buft = calloc(state.size, sizeof(*state_buft));
    GGML_ASSERT(tensors != NULL && bufts != NULL && state_buft != NULL);

    for (int i = 0; i < opt_ctx->n_grad_nodes; i++) {
        if (opt_ctx->state_buft == NULL || opt_ctx->state_buft[i] == NULL) {
            continue; // not a parameter (the loss gradient goes with the results)
        }
        struct ggml_tensor * st[3] = {
            opt_ctx->grad_accs[i],
            opt_ctx->grad_m != NULL ? opt_ctx->grad_m[i] : NULL,
            opt_ctx->grad_v != NULL ? opt_ctx->grad_v[i] : NULL,
        };
        for (int k = 0; k < 3; k++) {
            if (st[k] != NULL) {
                state_buft[ggml_hash_insert(&state, st[k])] = opt_ctx->state_buft[i];
            }
        }
    }
    n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(opt_ctx->ctx_static); t; t = ggml_get_next_tensor(opt_ctx->ctx_static, t)) {
        const size_t h = ggml_hash_find(&state, t);
        const bool is_state = h != GGML_HASHSET_FULL && ggml_bitset_get(state.used, h);
        GGML_ASSERT(t->view_src == NULL && t->data == NULL);
        tensors[n] = t;
        bufts[n] = is_state ? state_buft[h] : opt_ctx->results_buft;
        n++;
    }

    // one buffer per buffer type, in order of first use
    for (size_t i = 0; i < n; i++) {
        if (bufts[i] == NULL) {
            continue;
        }
        ggml_backend_buffer_type_t bt = bufts[i];
        const size_t align = ggml_backend_buft_get_alignment(bt);
        size_t size = 0;
        for (size_t j = i; j < n; j++) {
            if (bufts[j] == bt) {
                const size_t sz = ggml_backend_buft_get_alloc_size(bt, tensors[j]);
                GGML_ASSERT(sz <= SIZE_MAX - size - align);
                size += (sz + align - 1) / align * align;
            }
        }
        GGML_ASSERT(opt_ctx->n_bufs_static < OPT_MAX_BUFTS);
        ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(bt, size);
        GGML_ASSERT(buf != NULL && "out of memory for the optimizer's state");
        opt_ctx->bufs_static[opt_ctx->n_bufs_static++] = buf;
        struct ggml_tallocr ta = ggml_tallocr_new(buf);
        for (size_t j = i; j < n; j++) {
            if (bufts[j] == bt) {
                GGML_ASSERT(ggml_tallocr_alloc(&ta, tensors[j]) == GGML_STATUS_SUCCESS);
                bufts[j] = NULL;
            }
        }
    }

    free(state_buft);
    ggml_hash_set_free(&state);
    free(bufts);
    free(tensors);
}

// the loss (and labels, predictions) of the outputs in ctx, added to gf
static void opt_build_loss(ggml_opt_context_t opt_ctx, struct ggml_context * ctx) {
    struct ggml_tensor * out = opt_ctx->outputs;
    struct ggml_tensor * loss = NULL;
    const float period = (float) opt_ctx->opt_period;

    opt_ctx->labels   = NULL;
    opt_ctx->pred     = NULL;
    opt_ctx->ncorrect = NULL;

    switch (opt_ctx->loss_type) {
        case GGML_OPT_LOSS_TYPE_MEAN:
            loss = ggml_sum(ctx, out);
            ggml_set_name(loss, "loss_sum");
            loss = ggml_scale(ctx, loss, 1.0f / (period * (float) ggml_nelements(out)));
            ggml_set_name(loss, "loss_mean");
            opt_ctx->loss_per_datapoint = true;
            break;
        case GGML_OPT_LOSS_TYPE_SUM:
            loss = ggml_sum(ctx, out);
            ggml_set_name(loss, "loss_sum");
            opt_ctx->loss_per_datapoint = false;
            break;
        case GGML_OPT_LOSS_TYPE_CROSS_ENTROPY:
            opt_ctx->labels = ggml_dup_tensor(ctx, out);
            ggml_set_input(opt_ctx->labels);
            ggml_set_name(opt_ctx->labels, "labels");
            loss = ggml_cross_entropy_loss(ctx, out, opt_ctx->labels);
            ggml_set_name(loss, "loss_cross_entropy");
            if (opt_ctx->opt_period > 1) {
                loss = ggml_scale(ctx, loss, 1.0f / period);
                ggml_set_name(loss, "loss_cross_entropy_scaled");
            }
            opt_ctx->loss_per_datapoint = true;
            break;
        case GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR:
            opt_ctx->labels = ggml_dup_tensor(ctx, out);
            ggml_set_input(opt_ctx->labels);
            ggml_set_name(opt_ctx->labels, "labels");
            loss = ggml_sub(ctx, out, opt_ctx->labels);
            ggml_set_name(loss, "loss_error");
            loss = ggml_sqr(ctx, loss);
            ggml_set_name(loss, "loss_squared_error");
            loss = ggml_sum(ctx, loss);
            ggml_set_name(loss, "loss_sum_squared_error");
            loss = ggml_scale(ctx, loss, 1.0f / (period * (float) ggml_nelements(out)));
            ggml_set_name(loss, "loss_mean_squared_error");
            opt_ctx->loss_per_datapoint = true;
            break;
        default:
            GGML_ABORT("unknown ggml_opt_loss_type %d", (int) opt_ctx->loss_type);
    }
    ggml_set_output(loss);
    ggml_set_loss(loss);
    ggml_build_forward_expand(opt_ctx->gf, loss);
    opt_ctx->loss = loss;

    if (opt_ctx->loss_type == GGML_OPT_LOSS_TYPE_CROSS_ENTROPY) {
        opt_ctx->pred = ggml_argmax(ctx, out);
        ggml_set_name(opt_ctx->pred, "pred");
        ggml_set_output(opt_ctx->pred);
        ggml_build_forward_expand(opt_ctx->gf, opt_ctx->pred);

        opt_ctx->ncorrect = ggml_count_equal(ctx, opt_ctx->pred, ggml_argmax(ctx, opt_ctx->labels));
        ggml_set_name(opt_ctx->ncorrect, "ncorrect");
        ggml_set_output(opt_ctx->ncorrect);
        ggml_build_forward_expand(opt_ctx->gf, opt_ctx->ncorrect);
    }
}

static void opt_build(ggml_opt_context_t opt_ctx) {
    GGML_ASSERT(opt_ctx->ctx_compute != NULL &&
                "no compute context: give one to ggml_opt_init (static graphs) or ggml_opt_prepare_alloc");
    GGML_ASSERT(opt_ctx->gf != NULL && opt_ctx->inputs != NULL && opt_ctx->outputs != NULL);
    GGML_ASSERT((!opt_ctx->static_graphs || opt_ctx->inputs->data != NULL) &&
                "with static graphs the inputs must be allocated by the caller");

    const enum ggml_opt_build_type most = opt_ctx->build_type_alloc;
    // with static graphs and one evaluation per step the gradients need no
    // accumulator: they are used by the step in the same graph
    const bool accumulate = most >= GGML_OPT_BUILD_TYPE_GRAD &&
        !(opt_ctx->static_graphs && most == GGML_OPT_BUILD_TYPE_OPT && opt_ctx->opt_period == 1);
    const bool need_momenta = most == GGML_OPT_BUILD_TYPE_OPT && opt_ctx->optimizer == GGML_OPT_OPTIMIZER_TYPE_ADAMW;

    ggml_set_input(opt_ctx->inputs);
    ggml_set_output(opt_ctx->outputs);

    int n_param = 0;
    for (int i = 0; i < opt_ctx->gf->n_nodes; i++) {
        const struct ggml_tensor * node = opt_ctx->gf->nodes[i];
        n_param += (node->flags & GGML_TENSOR_FLAG_PARAM) != 0;
        GGML_ASSERT(!(node->flags & GGML_TENSOR_FLAG_LOSS) && "the forward graph already has a loss: not supported");
    }

    if (opt_ctx->ctx_static == NULL) {
        // the loss gradient, per parameter an accumulator and two moments,
        // and with static graphs labels, loss (up to 5 tensors), pred and
        // ncorrect (2)
        const size_t per_param = (accumulate ? 1 : 0) + (need_momenta ? 2 : 0);
        const size_t n = 1 + per_param * (size_t) n_param + (opt_ctx->static_graphs ? 9 : 0);
        const struct ggml_init_params params = {
            .mem_size   = n * ggml_tensor_overhead(),
            .mem_buffer = NULL,
            .no_alloc   = true,
        };
        opt_ctx->ctx_static = ggml_init(params);
        GGML_ASSERT(opt_ctx->ctx_static != NULL);
    }
    GGML_ASSERT(opt_ctx->build_type <= most);

    {
        const struct ggml_init_params params = {
            .mem_size   = ggml_tensor_overhead(),
            .mem_buffer = NULL,
            .no_alloc   = true,
        };
        ggml_free(opt_ctx->ctx_cpu);
        opt_ctx->ctx_cpu = ggml_init(params);
        GGML_ASSERT(opt_ctx->ctx_cpu != NULL);
        ggml_backend_buffer_free(opt_ctx->buf_cpu);
        opt_ctx->buf_cpu = NULL;
        opt_ctx->opt_step_params = NULL;
    }

    const int n_model = opt_ctx->gf->n_nodes;
    opt_build_loss(opt_ctx, opt_ctx->static_graphs ? opt_ctx->ctx_static : opt_ctx->ctx_compute);
    if (opt_ctx->results_buft == NULL) {
        // the results on backend 0 if it computes the loss (and the
        // predictions), else on the last backend (the CPU)
        ggml_backend_t b0 = ggml_backend_sched_get_backend(opt_ctx->backend_sched, 0);
        bool first = true;
        for (int i = n_model; i < opt_ctx->gf->n_nodes && first; i++) {
            first = ggml_backend_supports_op(b0, opt_ctx->gf->nodes[i]);
        }
        opt_ctx->results_buft =
            sched_buft(opt_ctx, first ? 0 : ggml_backend_sched_get_n_backends(opt_ctx->backend_sched) - 1);
    }

    if (opt_ctx->static_allocated) {
        if (opt_ctx->build_type == GGML_OPT_BUILD_TYPE_FORWARD) {
            return;
        }
    } else if (most == GGML_OPT_BUILD_TYPE_FORWARD) {
        opt_alloc_static(opt_ctx);
        return;
    }

    if (opt_ctx->grad_accs == NULL) {
        // created once: with dynamic graphs every forward graph must have
        // the same structure (nodes at the same indices)
        const int n = opt_ctx->gf->n_nodes;
        opt_ctx->n_grad_nodes = n;
        opt_ctx->grad_accs = calloc((size_t) n, sizeof(*opt_ctx->grad_accs));
        opt_ctx->state_buft = calloc((size_t) n, sizeof(*opt_ctx->state_buft));
        GGML_ASSERT(opt_ctx->grad_accs != NULL && opt_ctx->state_buft != NULL);
        for (int i = 0; i < n; i++) {
            struct ggml_tensor * node = opt_ctx->gf->nodes[i];
            if ((accumulate && (node->flags & GGML_TENSOR_FLAG_PARAM)) || (node->flags & GGML_TENSOR_FLAG_LOSS)) {
                opt_ctx->grad_accs[i] = ggml_new_tensor(opt_ctx->ctx_static, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
                ggml_format_name(opt_ctx->grad_accs[i], "grad acc for %s", node->name);
            }
            if (node->flags & GGML_TENSOR_FLAG_PARAM) {
                opt_ctx->state_buft[i] = opt_state_buft(opt_ctx, node, NULL);
            }
        }
        if (need_momenta) {
            opt_ctx->grad_m = calloc((size_t) n, sizeof(*opt_ctx->grad_m));
            opt_ctx->grad_v = calloc((size_t) n, sizeof(*opt_ctx->grad_v));
            GGML_ASSERT(opt_ctx->grad_m != NULL && opt_ctx->grad_v != NULL);
            for (int i = 0; i < n; i++) {
                struct ggml_tensor * node = opt_ctx->gf->nodes[i];
                if (node->flags & GGML_TENSOR_FLAG_PARAM) {
                    opt_ctx->grad_m[i] = ggml_new_tensor(opt_ctx->ctx_static, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
                    opt_ctx->grad_v[i] = ggml_new_tensor(opt_ctx->ctx_static, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
                    ggml_format_name(opt_ctx->grad_m[i], "AdamW m for %s", node->name);
                    ggml_format_name(opt_ctx->grad_v[i], "AdamW v for %s", node->name);
                }
            }
        }
    }
    GGML_ASSERT(opt_ctx->gf->n_nodes == opt_ctx->n_grad_nodes &&
                "with dynamic graphs every forward graph must have the same nodes");

    opt_ctx->gb_grad = ggml_graph_dup(opt_ctx->ctx_compute, opt_ctx->gf, true);
    ggml_build_backward_expand(opt_ctx->ctx_compute, opt_ctx->gb_grad, opt_ctx->grad_accs);

    if (opt_ctx->static_allocated) {
        if (opt_ctx->build_type == GGML_OPT_BUILD_TYPE_GRAD) {
            return;
        }
    } else if (most == GGML_OPT_BUILD_TYPE_GRAD) {
        opt_alloc_static(opt_ctx);
        ggml_graph_reset(opt_ctx->gb_grad);
        return;
    }
    GGML_ASSERT(most == GGML_OPT_BUILD_TYPE_OPT);

    opt_ctx->gb_opt = ggml_graph_dup(opt_ctx->ctx_compute, opt_ctx->gb_grad, true);

    const char * oname = ggml_opt_optimizer_name(opt_ctx->optimizer);
    opt_ctx->opt_step_params = ggml_new_tensor_1d(opt_ctx->ctx_cpu, GGML_TYPE_F32, need_momenta ? 7 : 2);
    ggml_set_input(opt_ctx->opt_step_params);
    ggml_format_name(opt_ctx->opt_step_params, "%s_params", oname);

    // the steps in reverse order of the parameters, as their gradients
    // become ready in the backward pass
    for (int i = opt_ctx->gf->n_nodes - 1; i >= 0; i--) {
        struct ggml_tensor * node = opt_ctx->gb_opt->nodes[i];
        struct ggml_tensor * grad = ggml_graph_get_grad(opt_ctx->gb_opt, node);
        if (grad == NULL || !(node->flags & GGML_TENSOR_FLAG_PARAM)) {
            continue;
        }
        struct ggml_tensor * step = NULL;
        switch (opt_ctx->optimizer) {
            case GGML_OPT_OPTIMIZER_TYPE_ADAMW:
                step = ggml_opt_step_adamw(opt_ctx->ctx_compute, node, grad, opt_ctx->grad_m[i], opt_ctx->grad_v[i],
                                           opt_ctx->opt_step_params);
                break;
            case GGML_OPT_OPTIMIZER_TYPE_SGD:
                step = ggml_opt_step_sgd(opt_ctx->ctx_compute, node, grad, opt_ctx->opt_step_params);
                break;
            default:
                GGML_ABORT("unknown ggml_opt_optimizer_type %d", (int) opt_ctx->optimizer);
        }
        ggml_format_name(step, "%s step for %s", oname, node->name);
        ggml_build_forward_expand(opt_ctx->gb_opt, step);
        if (!opt_ctx->static_allocated) {
            opt_ctx->state_buft[i] = opt_state_buft(opt_ctx, node, step);
        }
    }

    if (!opt_ctx->static_allocated) {
        opt_alloc_static(opt_ctx);
        ggml_graph_reset(opt_ctx->gb_opt);
    }
    opt_ctx->buf_cpu = ggml_backend_alloc_ctx_tensors_from_buft(opt_ctx->ctx_cpu, ggml_backend_cpu_buffer_type());
    GGML_ASSERT(opt_ctx->buf_cpu != NULL);
}

//
// Context
//

ggml_opt_context_t ggml_opt_init(struct ggml_opt_params params) {
    GGML_ASSERT(params.backend_sched != NULL);
    GGML_ASSERT(params.opt_period >= 1);
    GGML_ASSERT(params.get_opt_pars != NULL);
    GGML_ASSERT(params.optimizer >= 0 && params.optimizer < GGML_OPT_OPTIMIZER_TYPE_COUNT);
    GGML_ASSERT(params.build_type == GGML_OPT_BUILD_TYPE_FORWARD || params.build_type == GGML_OPT_BUILD_TYPE_GRAD ||
                params.build_type == GGML_OPT_BUILD_TYPE_OPT);

    ggml_opt_context_t ctx = calloc(1, sizeof(*ctx));
    GGML_ASSERT(ctx != NULL);
    ctx->backend_sched    = params.backend_sched;
    ctx->ctx_compute      = params.ctx_compute;
    ctx->loss_type        = params.loss_type;
    ctx->build_type       = params.build_type;
    ctx->build_type_alloc = params.build_type;
    ctx->inputs           = params.inputs;
    ctx->outputs          = params.outputs;
    ctx->opt_period       = params.opt_period;
    ctx->get_opt_pars     = params.get_opt_pars;
    ctx->get_opt_pars_ud  = params.get_opt_pars_ud;
    ctx->optimizer        = params.optimizer;
    ctx->iter             = 1;

    uint64_t seed = 0x67616363656c3137ull; // fixed: shuffles are reproducible
    for (int i = 0; i < 4; i++) {
        ctx->rng[i] = splitmix64(&seed);
    }

    ctx->static_graphs = params.ctx_compute != NULL;
    if (!ctx->static_graphs) {
        GGML_ASSERT(params.inputs == NULL && params.outputs == NULL &&
                    "without ctx_compute the graphs are dynamic: pass inputs and outputs to ggml_opt_prepare_alloc");
        return ctx;
    }
    GGML_ASSERT(params.inputs != NULL && params.outputs != NULL);

    ctx->gf = ggml_new_graph_custom(ctx->ctx_compute, GGML_DEFAULT_GRAPH_SIZE, true);
    ggml_build_forward_expand(ctx->gf, ctx->outputs);
    opt_build(ctx);
    return ctx;
}

void ggml_opt_free(ggml_opt_context_t opt_ctx) {
    if (opt_ctx == NULL) {
        return;
    }
    for (int i = 0; i < opt_ctx->n_bufs_static; i++) {
        ggml_backend_buffer_free(opt_ctx->bufs_static[i]);
    }
    free(opt_ctx->state_buft);
    ggml_backend_buffer_free(opt_ctx->buf_cpu);
    ggml_free(opt_ctx->ctx_static);
    ggml_free(opt_ctx->ctx_cpu);
    ggml_free(opt_ctx->ctx_copy);
    free(opt_ctx->grad_accs);
    free(opt_ctx->grad_m);
    free(opt_ctx->grad_v);
    free(opt_ctx);
}

void ggml_opt_reset(ggml_opt_context_t opt_ctx, bool optimizer) {
    if (optimizer) {
        ggml_graph_reset(opt_ctx->gb_opt);
        opt_ctx->iter = 1;
    } else {
        ggml_graph_reset(opt_ctx->gb_grad);
    }
}

bool ggml_opt_static_graphs(ggml_opt_context_t opt_ctx) {
    return opt_ctx->static_graphs;
}

struct ggml_tensor * ggml_opt_inputs(ggml_opt_context_t opt_ctx) {
    return opt_ctx->inputs;
}

struct ggml_tensor * ggml_opt_outputs(ggml_opt_context_t opt_ctx) {
    return opt_ctx->outputs;
}

struct ggml_tensor * ggml_opt_labels(ggml_opt_context_t opt_ctx) {
    return opt_ctx->labels;
}

struct ggml_tensor * ggml_opt_loss(ggml_opt_context_t opt_ctx) {
    return opt_ctx->loss;
}

struct ggml_tensor * ggml_opt_pred(ggml_opt_context_t opt_ctx) {
    return opt_ctx->pred;
}

struct ggml_tensor * ggml_opt_ncorrect(ggml_opt_context_t opt_ctx) {
    return opt_ctx->ncorrect;
}

struct ggml_tensor * ggml_opt_grad_acc(ggml_opt_context_t opt_ctx, struct ggml_tensor * node) {
    struct ggml_cgraph * g = opt_ctx->gb_opt != NULL ? opt_ctx->gb_opt : opt_ctx->gb_grad;
    return g != NULL ? ggml_graph_get_grad_acc(g, node) : NULL;
}

//
// Evaluation
//

void ggml_opt_prepare_alloc(ggml_opt_context_t opt_ctx, struct ggml_context * ctx_compute, struct ggml_cgraph * gf,
                            struct ggml_tensor * inputs, struct ggml_tensor * outputs) {
    GGML_ASSERT(!opt_ctx->static_graphs && "ggml_opt_prepare_alloc is for dynamic graphs");
    opt_ctx->ctx_compute = ctx_compute;
    opt_ctx->gf          = gf;
    opt_ctx->inputs      = inputs;
    opt_ctx->outputs     = outputs;
}

void ggml_opt_alloc(ggml_opt_context_t opt_ctx, bool backward) {
    GGML_ASSERT(!opt_ctx->eval_ready && "ggml_opt_alloc called twice without ggml_opt_eval");

    if (backward) {
        GGML_ASSERT(opt_ctx->build_type_alloc >= GGML_OPT_BUILD_TYPE_GRAD &&
                    "a backward pass needs a context of build type GRAD or OPT");
        const bool last = (opt_ctx->opt_i + 1) % opt_ctx->opt_period == 0;
        opt_ctx->build_type = last && opt_ctx->build_type_alloc == GGML_OPT_BUILD_TYPE_OPT ?
            GGML_OPT_BUILD_TYPE_OPT : GGML_OPT_BUILD_TYPE_GRAD;
    } else {
        opt_ctx->build_type = GGML_OPT_BUILD_TYPE_FORWARD;
    }

    if (!opt_ctx->static_graphs) {
        opt_build(opt_ctx);
    }

    // a new accumulation period: the accumulators start from zero
    if (backward && opt_ctx->opt_i == 0) {
        ggml_graph_reset(opt_ctx->gb_grad);
    }

    struct ggml_cgraph * graph = NULL;
    switch (opt_ctx->build_type) {
        case GGML_OPT_BUILD_TYPE_FORWARD: graph = opt_ctx->gf;      break;
        case GGML_OPT_BUILD_TYPE_GRAD:    graph = opt_ctx->gb_grad; break;
        case GGML_OPT_BUILD_TYPE_OPT:     graph = opt_ctx->gb_opt;  break;
    }
    GGML_ASSERT(graph != NULL);

    if (opt_ctx->allocated_graph == graph) {
        opt_ctx->eval_ready = true;
        return;
    }

    ggml_backend_sched_reset(opt_ctx->backend_sched);
    opt_ctx->allocated_graph_copy = opt_ctx->static_graphs ? opt_graph_copy(&opt_ctx->ctx_copy, graph) : graph;
    GGML_ASSERT(ggml_backend_sched_alloc_graph(opt_ctx->backend_sched, opt_ctx->allocated_graph_copy) &&
                "the scheduler could not allocate the graph");
    opt_ctx->allocated_graph = graph;
    opt_ctx->eval_ready = true;
}

static void opt_set_step_params(ggml_opt_context_t opt_ctx) {
    const struct ggml_opt_optimizer_params p = opt_ctx->get_opt_pars(opt_ctx->get_opt_pars_ud);
    float * d = ggml_get_data_f32(opt_ctx->opt_step_params);

    switch (opt_ctx->optimizer) {
        case GGML_OPT_OPTIMIZER_TYPE_ADAMW:
            GGML_ASSERT(p.adamw.alpha > 0.0f);
            GGML_ASSERT(p.adamw.beta1 >= 0.0f && p.adamw.beta1 <= 1.0f);
            GGML_ASSERT(p.adamw.beta2 >= 0.0f && p.adamw.beta2 <= 1.0f);
            GGML_ASSERT(p.adamw.eps >= 0.0f);
            GGML_ASSERT(p.adamw.wd >= 0.0f && p.adamw.wd <= 1.0f);
            d[0] = p.adamw.alpha;
            d[1] = p.adamw.beta1;
            d[2] = p.adamw.beta2;
            d[3] = p.adamw.eps;
            d[4] = p.adamw.wd;
            // bias corrections of the moments for this step
            d[5] = 1.0f / (1.0f - powf(p.adamw.beta1, (float) opt_ctx->iter));
            d[6] = 1.0f / (1.0f - powf(p.adamw.beta2, (float) opt_ctx->iter));
            break;
        case GGML_OPT_OPTIMIZER_TYPE_SGD:
            GGML_ASSERT(p.sgd.alpha > 0.0f);
            GGML_ASSERT(p.sgd.wd >= 0.0f && p.sgd.wd <= 1.0f);
            d[0] = p.sgd.alpha;
            d[1] = p.sgd.wd;
            break;
        default:
            GGML_ABORT("unknown ggml_opt_optimizer_type %d", (int) opt_ctx->optimizer);
    }
}

void ggml_opt_eval(ggml_opt_context_t opt_ctx, ggml_opt_result_t result) {
    GGML_ASSERT(opt_ctx->eval_ready && "ggml_opt_eval needs a ggml_opt_alloc first");
    const bool step = opt_ctx->allocated_graph == opt_ctx->gb_opt;
    const bool backward = step || opt_ctx->allocated_graph == opt_ctx->gb_grad;
    if (step) {
        opt_set_step_params(opt_ctx);
    }

    const enum ggml_status st = ggml_backend_sched_graph_compute(opt_ctx->backend_sched, opt_ctx->allocated_graph_copy);
    GGML_ASSERT(st == GGML_STATUS_SUCCESS && "graph computation failed");
    opt_ctx->iter += step;
    if (backward) {
        opt_ctx->opt_i = (opt_ctx->opt_i + 1) % opt_ctx->opt_period;
    }
    if (!opt_ctx->static_graphs) {
        opt_ctx->gf                   = NULL;
        opt_ctx->gb_grad              = NULL;
        opt_ctx->gb_opt               = NULL;
        opt_ctx->allocated_graph      = NULL;
        opt_ctx->allocated_graph_copy = NULL;
    }
    opt_ctx->eval_ready = false;

    if (result == NULL) {
        return;
    }
    if (result->ndata == 0) {
        result->loss_per_datapoint = opt_ctx->loss_per_datapoint;
        result->opt_period         = opt_ctx->opt_period;
    } else {
        GGML_ASSERT(result->loss_per_datapoint == opt_ctx->loss_per_datapoint &&
                    result->opt_period == opt_ctx->opt_period && "a result collects one context's evaluations");
    }

    const int64_t ndata = opt_ctx->outputs->ne[1];
    GGML_ASSERT(result->ndata == ndata * result->n_loss && "every batch of a result must have the same size");

    GGML_ASSERT(ggml_is_scalar(opt_ctx->loss) && opt_ctx->loss->type == GGML_TYPE_F32);
    float loss;
    ggml_backend_tensor_get(opt_ctx->loss, &loss, 0, sizeof(loss));

    int32_t * pred = NULL;
    if (opt_ctx->pred != NULL) {
        GGML_ASSERT(opt_ctx->pred->type == GGML_TYPE_I32 && ggml_nelements(opt_ctx->pred) == ndata);
        pred = malloc((size_t) ndata * sizeof(*pred));
        GGML_ASSERT(pred != NULL);
        ggml_backend_tensor_get(opt_ctx->pred, pred, 0, ggml_nbytes(opt_ctx->pred));
    }
    ggml_opt_result_add_batch(result, loss, pred, ndata);
    free(pred);

    if (opt_ctx->ncorrect == NULL || result->ncorrect < 0) {
        result->ncorrect = -1;
        return;
    }
    GGML_ASSERT(ggml_is_scalar(opt_ctx->ncorrect) && opt_ctx->ncorrect->type == GGML_TYPE_I64);
    int64_t ncorrect;
    ggml_backend_tensor_get(opt_ctx->ncorrect, &ncorrect, 0, sizeof(ncorrect));
    result->ncorrect += ncorrect;
}

//
// Drivers
//

void ggml_opt_epoch(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, ggml_opt_result_t result_train,
                    ggml_opt_result_t result_eval, int64_t idata_split, ggml_opt_epoch_callback callback_train,
                    ggml_opt_epoch_callback callback_eval) {
    GGML_ASSERT(ggml_opt_static_graphs(opt_ctx) && "ggml_opt_epoch needs static graphs");
    struct ggml_tensor * inputs = ggml_opt_inputs(opt_ctx);
    struct ggml_tensor * labels = ggml_opt_labels(opt_ctx);
    struct ggml_tensor * data   = ggml_opt_dataset_data(dataset);
    GGML_ASSERT(data->ne[0] == inputs->ne[0] && "inputs and datapoints differ in size");

    const int64_t ndata       = data->ne[1];
    const int64_t ndata_batch = inputs->ne[1];
    GGML_ASSERT(ndata % ndata_batch == 0 && "the dataset must be a whole number of batches");
    const int64_t nbatches = ndata / ndata_batch;

    if (idata_split < 0) {
        idata_split = ndata;
    }
    GGML_ASSERT(idata_split <= ndata && idata_split % ndata_batch == 0);
    const int64_t ibatch_split = idata_split / ndata_batch;

    int64_t t0 = ggml_time_us();
    for (int64_t ib = 0; ib < ibatch_split; ib++) {
        ggml_opt_alloc(opt_ctx, true);
        ggml_opt_dataset_get_batch(dataset, inputs, labels, ib);
        ggml_opt_eval(opt_ctx, result_train);
        if (callback_train != NULL) {
            callback_train(true, opt_ctx, dataset, result_train, ib + 1, ibatch_split, t0);
        }
    }
    t0 = ggml_time_us();
    for (int64_t ib = ibatch_split; ib < nbatches; ib++) {
        ggml_opt_alloc(opt_ctx, false);
        ggml_opt_dataset_get_batch(dataset, inputs, labels, ib);
        ggml_opt_eval(opt_ctx, result_eval);
        if (callback_eval != NULL) {
            callback_eval(false, opt_ctx, dataset, result_eval, ib + 1 - ibatch_split, nbatches - ibatch_split, t0);
        }
    }
}

static void print_hms(FILE * f, int64_t us) {
    const int64_t s = us / 1000000;
    fprintf(f, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s / 60 % 60, s % 60);
}

void ggml_opt_epoch_callback_progress_bar(bool train, ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset,
                                          ggml_opt_result_t result, int64_t ibatch, int64_t ibatch_max,
                                          int64_t t_start_us) {
    (void) dataset;
    enum { WIDTH = 20 };
    const int64_t filled = ibatch_max > 0 ? ibatch * WIDTH / ibatch_max : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[WIDTH] = '\0';

    const int64_t batch = ggml_opt_inputs(opt_ctx)->ne[1];
    double loss = 0.0, loss_unc = NAN, acc = NAN, acc_unc = NAN;
    if (result != NULL) {
        ggml_opt_result_loss(result, &loss, &loss_unc);
        ggml_opt_result_accuracy(result, &acc, &acc_unc);
    }
    const int64_t t = ggml_time_us() - t_start_us;
    const int64_t eta = ibatch > 0 ? t / ibatch * (ibatch_max - ibatch) : 0;

    fprintf(stderr, "%s [%s] %" PRId64 "/%" PRId64 " loss %.5f +- %.5f", train ? "train" : "val  ", bar,
            ibatch * batch, ibatch_max * batch, loss, loss_unc);
    if (!isnan(acc)) {
        fprintf(stderr, " accuracy %.2f%% +- %.2f%%", 100.0 * acc, 100.0 * acc_unc);
    }
    fprintf(stderr, " time ");
    print_hms(stderr, t);
    fprintf(stderr, " left ");
    print_hms(stderr, eta);
    fprintf(stderr, ibatch == ibatch_max ? "\n" : " \r");
    fflush(stderr);
}

void ggml_opt_fit(ggml_backend_sched_t backend_sched, struct ggml_context * ctx_compute, struct ggml_tensor * inputs,
                  struct ggml_tensor * outputs, ggml_opt_dataset_t dataset, enum ggml_opt_loss_type loss_type,
                  enum ggml_opt_optimizer_type optimizer, ggml_opt_get_optimizer_params get_opt_pars, int64_t nepoch,
                  int64_t nbatch_logical, float val_split, bool silent) {
    ggml_time_init();
    const int64_t t_start = ggml_time_us();

    const int64_t ndata           = ggml_opt_dataset_data(dataset)->ne[1];
    const int64_t nbatch_physical = inputs->ne[1];
    GGML_ASSERT(nbatch_logical > 0 && ndata % nbatch_logical == 0 &&
                "the dataset must be a whole number of logical batches");
    GGML_ASSERT(nbatch_logical % nbatch_physical == 0 &&
                "the logical batch must be a whole number of physical batches (inputs->ne[1])");
    GGML_ASSERT(val_split >= 0.0f && val_split < 1.0f);
    GGML_ASSERT(nbatch_logical / nbatch_physical <= INT32_MAX);

    const int64_t opt_period       = nbatch_logical / nbatch_physical;
    const int64_t nbatches_logical = ndata / nbatch_logical;
    // training on the first logical batches, validation on the rest
    const int64_t ibatch_split = (int64_t) ((1.0f - val_split) * (float) nbatches_logical) * opt_period;
    const int64_t idata_split  = ibatch_split * nbatch_physical;

    int64_t epoch = 1;

    struct ggml_opt_params params = ggml_opt_default_params(backend_sched, loss_type);
    params.ctx_compute     = ctx_compute;
    params.inputs          = inputs;
    params.outputs         = outputs;
    params.opt_period      = (int32_t) opt_period;
    params.get_opt_pars    = get_opt_pars;
    params.get_opt_pars_ud = &epoch;
    params.optimizer       = optimizer;
    ggml_opt_context_t opt_ctx = ggml_opt_init(params);

    // one shuffle of everything picks the validation set; each epoch then
    // reorders the training part (pointless when one batch is everything)
    if (nbatch_logical < ndata) {
        ggml_opt_dataset_shuffle(opt_ctx, dataset, -1);
    }

    ggml_opt_result_t result_train = ggml_opt_result_init();
    ggml_opt_result_t result_val   = ggml_opt_result_init();
    ggml_opt_epoch_callback cb = silent ? NULL : ggml_opt_epoch_callback_progress_bar;

    for (; epoch <= nepoch; epoch++) {
        if (nbatch_logical < idata_split) {
            ggml_opt_dataset_shuffle(opt_ctx, dataset, idata_split);
        }
        ggml_opt_result_reset(result_train);
        ggml_opt_result_reset(result_val);
        if (!silent) {
            fprintf(stderr, "%s: epoch %" PRId64 "/%" PRId64 "\n", __func__, epoch, nepoch);
        }
        ggml_opt_epoch(opt_ctx, dataset, result_train, result_val, idata_split, cb, cb);
    }

    if (!silent) {
        fprintf(stderr, "%s: %" PRId64 " epochs in ", __func__, nepoch);
        print_hms(stderr, ggml_time_us() - t_start);
        fprintf(stderr, "\n");
    }

    ggml_opt_free(opt_ctx);
    ggml_opt_result_free(result_train);
    ggml_opt_result_free(result_val);
}
