/*
 * testbackend.h - a configurable backend for the unit tests of ggml-backend,
 * ggml-alloc and the scheduler.
 *
 * A test backend has its own device, buffer type and registry. It supports
 * the ops of its configuration only, computes them with small reference
 * kernels of its own (F32: ADD, SUB, MUL, DIV, SQR, SCALE, MUL_MAT, CPY/CONT
 * and the view ops), counts buffer allocations and tensor copies, and can
 * have events. Its memory is host memory, but its buffer type may claim not
 * to be host memory so that the scheduler must copy between it and the CPU.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TESTBACKEND_H
#define TESTBACKEND_H

#include "ggml.h"

#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-backend-impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TB_MAX_DEVICES 8

struct tb_config {
    const char *               name;
    enum ggml_backend_dev_type type;
    bool                       ops[GGML_OP_COUNT]; // supported ops (views are always supported)
    bool                       host;               // buffer type is host memory (the CPU can read it)
    bool                       events;             // device events
    bool                       offload;            // offload_op answers true for MUL_MAT
    bool                       read_host;          // can use host (CPU) buffers directly
    size_t                     max_size;           // buffer type max size (0 = unlimited)
    size_t                     alignment;          // buffer type alignment (0 = 32)
};

struct tb_device {
    struct tb_config                 cfg;
    struct ggml_backend_device       dev;
    struct ggml_backend_buffer_type  buft;
    struct ggml_backend_reg          reg;
    // counters
    int n_buffers_alloc;
    int n_buffers_live;
    int n_set;
    int n_get;
    int n_cpy;
    int n_compute;
    int n_events_live;
    int n_event_record;
    int n_event_wait;
};

static struct tb_device tb_devices[TB_MAX_DEVICES];
static int tb_n_devices;

static const ggml_guid tb_guid = { 't', 'e', 's', 't', '-', 'b', 'a', 'c', 'k', 'e', 'n', 'd', 0, 0, 0, 1 };

// ---- reference kernels ----------------------------------------------------

static bool ggml_op_is_empty_tb(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE ||
           op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}


static float tb_get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(const float *) ((const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

static float * tb_ptr(struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

static bool tb_compute_node(struct ggml_tensor * t) {
    const struct ggml_tensor * a = t->src[0];
    const struct ggml_tensor * b = t->src[1];
    switch (t->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        default:
            break;
    }
    if (t->type != GGML_TYPE_F32) {
        return false;
    }
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        float v;
        switch (t->op) {
            case GGML_OP_ADD:
            case GGML_OP_SUB:
            case GGML_OP_MUL:
            case GGML_OP_DIV: {
                float x = tb_get(a, i0, i1, i2, i3);
                float y = tb_get(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
                v = t->op == GGML_OP_ADD ? x + y : t->op == GGML_OP_SUB ? x - y : t->op == GGML_OP_MUL ? x * y : x / y;
                break;
            }
            case GGML_OP_SQR: {
                float x = tb_get(a, i0, i1, i2, i3);
                v = x * x;
                break;
            }
            case GGML_OP_SCALE: {
                float s, bias;
                memcpy(&s, &t->op_params[0], sizeof(s));
                memcpy(&bias, &t->op_params[1], sizeof(bias));
                v = tb_get(a, i0, i1, i2, i3) * s + bias;
                break;
            }
            case GGML_OP_CPY:
            case GGML_OP_CONT:
            case GGML_OP_DUP: {
                // same number of elements, walk both in row-major order
                int64_t idx = ((i3 * t->ne[2] + i2) * t->ne[1] + i1) * t->ne[0] + i0;
                int64_t j0 = idx % a->ne[0];
                int64_t j1 = (idx / a->ne[0]) % a->ne[1];
                int64_t j2 = (idx / a->ne[0] / a->ne[1]) % a->ne[2];
                int64_t j3 = idx / a->ne[0] / a->ne[1] / a->ne[2];
                v = tb_get(a, j0, j1, j2, j3);
                break;
            }
            case GGML_OP_MUL_MAT: {
                // a: [K, M, ...], b: [K, N, ...], t: [M, N, ...]
                double acc = 0;
                int64_t a2 = i2 / (b->ne[2] / a->ne[2]);
                int64_t a3 = i3 / (b->ne[3] / a->ne[3]);
                for (int64_t k = 0; k < a->ne[0]; k++) {
                    acc += (double) tb_get(a, k, i0, a2, a3) * (double) tb_get(b, k, i1, i2, i3);
                }
                v = (float) acc;
                break;
            }
            default:
                return false;
        }
        // (CPY's result is a view of src[1]: writing t writes the destination)
        *tb_ptr(t, i0, i1, i2, i3) = v;
    }
    return true;
}

// ---- buffer ----------------------------------------------------------------

static struct tb_device * tb_dev_of_buft(ggml_backend_buffer_type_t buft) {
    return (struct tb_device *) buft->context;
}

static void tb_buffer_free(ggml_backend_buffer_t buffer) {
    tb_dev_of_buft(buffer->buft)->n_buffers_live--;
    free(buffer->context);
}

static void * tb_buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void tb_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    (void) buffer;
    memset((char *) tensor->data + offset, value, size);
}

static void tb_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    tb_dev_of_buft(buffer->buft)->n_set++;
    memmove((char *) tensor->data + offset, data, size);
}

static void tb_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    tb_dev_of_buft(buffer->buft)->n_get++;
    memmove(data, (const char *) tensor->data + offset, size);
}

static bool tb_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    // only between buffers of the same type
    ggml_backend_buffer_t sbuf = src->view_src ? src->view_src->buffer : src->buffer;
    if (sbuf == NULL || sbuf->buft != buffer->buft) {
        return false;
    }
    tb_dev_of_buft(buffer->buft)->n_cpy++;
    memmove(dst->data, src->data, ggml_nbytes(src));
    return true;
}

static void tb_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

static const struct ggml_backend_buffer_i tb_buffer_i = {
    /* .free_buffer   = */ tb_buffer_free,
    /* .get_base      = */ tb_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ tb_buffer_memset_tensor,
    /* .set_tensor    = */ tb_buffer_set_tensor,
    /* .get_tensor    = */ tb_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ tb_buffer_cpy_tensor,
    /* .clear         = */ tb_buffer_clear,
    /* .reset         = */ NULL,
};

// ---- buffer type -----------------------------------------------------------

static const char * tb_buft_get_name(ggml_backend_buffer_type_t buft) {
    return tb_dev_of_buft(buft)->cfg.name;
}

static size_t tb_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    size_t a = tb_dev_of_buft(buft)->cfg.alignment;
    return a ? a : 32;
}

static ggml_backend_buffer_t tb_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct tb_device * d = tb_dev_of_buft(buft);
    if (d->cfg.max_size && size > d->cfg.max_size) {
        return NULL;
    }
    size_t align = tb_buft_get_alignment(buft);
    void * data = aligned_alloc(align, (size + align - 1) / align * align);
    if (data == NULL) {
        return NULL;
    }
    // poison: tests must not read memory nobody wrote
    memset(data, 0x7f, size);
    d->n_buffers_alloc++;
    d->n_buffers_live++;
    return ggml_backend_buffer_init(buft, tb_buffer_i, data, size);
}

static size_t tb_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    size_t m = tb_dev_of_buft(buft)->cfg.max_size;
    return m ? m : SIZE_MAX;
}

static bool tb_buft_is_host(ggml_backend_buffer_type_t buft) {
    return tb_dev_of_buft(buft)->cfg.host;
}

// ---- backend ---------------------------------------------------------------

static struct tb_device * tb_dev_of(ggml_backend_t backend) {
    return (struct tb_device *) backend->device->context;
}

static const char * tb_backend_get_name(ggml_backend_t backend) {
    return tb_dev_of(backend)->cfg.name;
}

static void tb_backend_free(ggml_backend_t backend) {
    free(backend);
}

static enum ggml_status tb_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct tb_device * d = tb_dev_of(backend);
    d->n_compute++;
    int n = ggml_graph_n_nodes(cgraph);
    for (int i = 0; i < n; i++) {
        struct ggml_tensor * node = ggml_graph_node(cgraph, i);
        if (!d->cfg.ops[node->op] && !ggml_op_is_empty_tb(node->op)) {
            return GGML_STATUS_FAILED; // the scheduler gave it an op it does not support
        }
        if (!tb_compute_node(node)) {
            return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}

static void tb_backend_event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    tb_dev_of(backend)->n_event_record++;
    event->context = (void *) (uintptr_t) 1;
}

static void tb_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    (void) event;
    tb_dev_of(backend)->n_event_wait++;
}

static const struct ggml_backend_i tb_backend_i = {
    /* .get_name            = */ tb_backend_get_name,
    /* .free                = */ tb_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ NULL,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ tb_backend_graph_compute,
    /* .event_record        = */ tb_backend_event_record,
    /* .event_wait          = */ tb_backend_event_wait,
    /* .graph_optimize      = */ NULL,
};

// ---- device ----------------------------------------------------------------

static struct tb_device * tb_dev_ctx(ggml_backend_dev_t dev) {
    return (struct tb_device *) dev->context;
}

static const char * tb_dev_get_name(ggml_backend_dev_t dev) {
    return tb_dev_ctx(dev)->cfg.name;
}

static const char * tb_dev_get_description(ggml_backend_dev_t dev) {
    (void) dev;
    return "unit test backend";
}

static void tb_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = 1u << 30;
    *total = 1u << 30;
}

static enum ggml_backend_dev_type tb_dev_get_type(ggml_backend_dev_t dev) {
    return tb_dev_ctx(dev)->cfg.type;
}

static void tb_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name = tb_dev_get_name(dev);
    props->description = tb_dev_get_description(dev);
    props->type = tb_dev_get_type(dev);
    tb_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.events = tb_dev_ctx(dev)->cfg.events;
}

static ggml_backend_t tb_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    ggml_backend_t backend = (ggml_backend_t) calloc(1, sizeof(*backend));
    backend->guid = (ggml_guid_t) &tb_guid;
    backend->iface = tb_backend_i;
    backend->device = dev;
    backend->context = NULL;
    return backend;
}

static ggml_backend_buffer_type_t tb_dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &tb_dev_ctx(dev)->buft;
}

static bool tb_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    if (ggml_op_is_empty_tb(op->op)) {
        return true;
    }
    if (op->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (op->src[i] && op->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return tb_dev_ctx(dev)->cfg.ops[op->op];
}

static bool tb_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    struct tb_device * d = tb_dev_ctx(dev);
    return buft == &d->buft || (d->cfg.read_host && ggml_backend_buft_is_host(buft));
}

static bool tb_dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    return tb_dev_ctx(dev)->cfg.offload && op->op == GGML_OP_MUL_MAT;
}

static ggml_backend_event_t tb_dev_event_new(ggml_backend_dev_t dev) {
    if (!tb_dev_ctx(dev)->cfg.events) {
        return NULL;
    }
    ggml_backend_event_t ev = (ggml_backend_event_t) calloc(1, sizeof(*ev));
    ev->device = dev;
    tb_dev_ctx(dev)->n_events_live++;
    return ev;
}

static void tb_dev_event_free(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    tb_dev_ctx(dev)->n_events_live--;
    free(event);
}

static void tb_dev_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    (void) dev;
    (void) event;
}

static const struct ggml_backend_device_i tb_device_i = {
    /* .get_name             = */ tb_dev_get_name,
    /* .get_description      = */ tb_dev_get_description,
    /* .get_memory           = */ tb_dev_get_memory,
    /* .get_type             = */ tb_dev_get_type,
    /* .get_props            = */ tb_dev_get_props,
    /* .init_backend         = */ tb_dev_init_backend,
    /* .get_buffer_type      = */ tb_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ tb_dev_supports_op,
    /* .supports_buft        = */ tb_dev_supports_buft,
    /* .offload_op           = */ tb_dev_offload_op,
    /* .event_new            = */ tb_dev_event_new,
    /* .event_free           = */ tb_dev_event_free,
    /* .event_synchronize    = */ tb_dev_event_synchronize,
};

// ---- registry --------------------------------------------------------------

static const char * tb_reg_get_name(ggml_backend_reg_t reg) {
    return ((struct tb_device *) reg->context)->cfg.name;
}

static size_t tb_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static ggml_backend_dev_t tb_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) index;
    return &((struct tb_device *) reg->context)->dev;
}

static const struct ggml_backend_reg_i tb_reg_i = {
    /* .get_name         = */ tb_reg_get_name,
    /* .get_device_count = */ tb_reg_get_device_count,
    /* .get_device       = */ tb_reg_get_device,
    /* .get_proc_address = */ NULL,
};

// a device (and its buffer type and registry) for cfg; they live to the end of the program
static struct tb_device * tb_device_new(const struct tb_config * cfg) {
    if (tb_n_devices == TB_MAX_DEVICES) {
        abort();
    }
    struct tb_device * d = &tb_devices[tb_n_devices++];
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    d->dev.iface = tb_device_i;
    d->dev.reg = &d->reg;
    d->dev.context = d;
    d->buft.iface.get_name = tb_buft_get_name;
    d->buft.iface.alloc_buffer = tb_buft_alloc_buffer;
    d->buft.iface.get_alignment = tb_buft_get_alignment;
    d->buft.iface.get_max_size = tb_buft_get_max_size;
    d->buft.iface.get_alloc_size = NULL;
    d->buft.iface.is_host = tb_buft_is_host;
    d->buft.device = &d->dev;
    d->buft.context = d;
    d->reg.api_version = GGML_BACKEND_API_VERSION;
    d->reg.iface = tb_reg_i;
    d->reg.context = d;
    return d;
}

static ggml_backend_t tb_backend_new(struct tb_device * d) {
    return ggml_backend_dev_init(&d->dev, NULL);
}

// common configurations
static void tb_config_ops(struct tb_config * cfg, const enum ggml_op * ops, int n) {
    for (int i = 0; i < n; i++) {
        cfg->ops[ops[i]] = true;
    }
}

static const enum ggml_op tb_all_ops[] = {
    GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV, GGML_OP_SQR, GGML_OP_SCALE,
    GGML_OP_MUL_MAT, GGML_OP_CPY, GGML_OP_CONT, GGML_OP_DUP,
};
#define TB_N_ALL_OPS ((int) (sizeof(tb_all_ops) / sizeof(tb_all_ops[0])))

// ---- random graphs ---------------------------------------------------------

struct tb_rng {
    uint64_t s;
};

static uint32_t tb_rand(struct tb_rng * r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t) (r->s >> 11);
}

static float tb_randf(struct tb_rng * r) {
    return (float) (tb_rand(r) % 2001) / 1000.0f - 1.0f; // [-1, 1]
}

struct tb_graph {
    struct ggml_cgraph  * graph;
    struct ggml_tensor  * inputs[8];
    int                   n_inputs;
    struct ggml_tensor  * weights[8];
    int                   n_weights;
    struct ggml_tensor  * outputs[8];
    int                   n_outputs;
};

// A random graph of D x D F32 tensors: n_in inputs (flagged INPUT), n_w
// weights (no flag, for a WEIGHTS buffer), then n_ops random ops. The last
// node and a few others are outputs. ctx must be no_alloc.
static struct tb_graph tb_random_graph_w(struct ggml_context * ctx, struct ggml_context * ctx_w, struct tb_rng * r,
                                        int D, int n_in, int n_w, int n_ops) {
    struct tb_graph tg;
    memset(&tg, 0, sizeof(tg));
    struct ggml_tensor * pool[512];
    int n = 0;
    for (int i = 0; i < n_in && i < 8; i++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, D, D);
        ggml_format_name(t, "in%d", i);
        ggml_set_input(t);
        tg.inputs[tg.n_inputs++] = t;
        pool[n++] = t;
    }
    for (int i = 0; i < n_w && i < 8; i++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(ctx_w ? ctx_w : ctx, GGML_TYPE_F32, D, D);
        ggml_format_name(t, "w%d", i);
        tg.weights[tg.n_weights++] = t;
        pool[n++] = t;
    }
    struct ggml_tensor * last = pool[n - 1];
    for (int k = 0; k < n_ops && n < 512; k++) {
        // prefer recent tensors so that chains form, with some long edges
        struct ggml_tensor * a = tb_rand(r) % 3 ? pool[n - 1 - tb_rand(r) % (n < 4 ? n : 4)] : pool[tb_rand(r) % n];
        struct ggml_tensor * b = pool[tb_rand(r) % n];
        struct ggml_tensor * t = NULL;
        switch (tb_rand(r) % 9) {
            case 0: t = ggml_add(ctx, a, b); break;
            case 1: t = ggml_sub(ctx, a, b); break;
            case 2: t = ggml_mul(ctx, a, b); break;
            case 3: t = ggml_sqr(ctx, a); break;
            case 4: t = ggml_scale(ctx, a, 0.5f); break;
            case 5: t = ggml_mul_mat(ctx, a, b); break;
            case 6: t = ggml_cont(ctx, ggml_transpose(ctx, a)); break;
            case 7: t = ggml_reshape_2d(ctx, ggml_reshape_1d(ctx, a, (int64_t) D * D), D, D); break;
            default: t = ggml_add(ctx, ggml_scale(ctx, a, 0.25f), b); break;
        }
        ggml_format_name(t, "n%d", k);
        pool[n++] = t;
        last = t;
        if (tb_rand(r) % 16 == 0 && tg.n_outputs < 7) {
            ggml_set_output(t);
            tg.outputs[tg.n_outputs++] = t;
        }
    }
    ggml_set_output(last);
    tg.outputs[tg.n_outputs++] = last;

    tg.graph = ggml_new_graph_custom(ctx, 2048, false);
    for (int i = 0; i < tg.n_outputs; i++) {
        ggml_build_forward_expand(tg.graph, tg.outputs[i]);
    }
    return tg;
}

static struct tb_graph tb_random_graph(struct ggml_context * ctx, struct tb_rng * r, int D, int n_in, int n_w, int n_ops) {
    return tb_random_graph_w(ctx, NULL, r, D, n_in, n_w, n_ops);
}

static size_t tb_ctx_size(void) {
    return ggml_tensor_overhead() * 1600 + ggml_graph_overhead_custom(2048, false);
}

#endif // TESTBACKEND_H
