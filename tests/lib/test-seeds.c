// SPDX-License-Identifier: MIT
//
// test-seeds: the behaviour seeds 002 (implementation walk-through) and 004
// (reference documentation) describe, function by function, where the other
// unit tests do not already check it: size-0 buffers, NULL safety, who frees
// what, the fallbacks when optional interface members are NULL (with a
// minimal backend that fills in only the required members), tensor copies
// through host staging, graph copy, compare_graph_backend's callback
// protocol, the scheduler usage example of 004, reserve then alloc, the
// tensor backend assignments, the eval callback protocol and event misuse.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"
#include "test-log.h"
#include "testbackend.h"
#include "test-abort.h"

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params p = { .mem_size = tb_ctx_size(), .mem_buffer = NULL, .no_alloc = true };
    return ggml_init(p);
}

static struct tb_device * dev_with(const char * name, bool host, bool events) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = name;
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.host = host;
    cfg.events = events;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    return tb_device_new(&cfg);
}

static void fill(float * v, int n, float scale) {
    for (int i = 0; i < n; i++) {
        v[i] = scale * (float) ((i * 7) % 11 - 5);
    }
}

// ---------------------------------------------------------------------------
// A minimal backend: every optional member of the interface tables is NULL.
// Memory is plain host memory, but the buffer type does not say so (is_host
// is optional and defaults to false).
// ---------------------------------------------------------------------------

static int min_n_free_calls;
static int min_n_get;
static int min_n_set;

static void * min_buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void min_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    (void) buffer;
    min_n_set++;
    memcpy((char *) tensor->data + offset, data, size);
}

static void min_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    (void) buffer;
    min_n_get++;
    memcpy(data, (const char *) tensor->data + offset, size);
}

static void min_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

// no free_buffer: the memory is a static arena the test owns
static const struct ggml_backend_buffer_i min_buffer_i = {
    /* .free_buffer   = */ NULL,
    /* .get_base      = */ min_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ NULL,
    /* .set_tensor    = */ min_buffer_set_tensor,
    /* .get_tensor    = */ min_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ min_buffer_clear,
    /* .reset         = */ NULL,
};

static _Alignas(64) char min_arena[1 << 16];
static int min_n_alloc;

static const char * min_buft_get_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "MIN";
}

static ggml_backend_buffer_t min_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > sizeof(min_arena)) {
        return NULL;
    }
    min_n_alloc++;
    return ggml_backend_buffer_init(buft, min_buffer_i, min_arena, size);
}

static size_t min_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return 64;
}

static struct ggml_backend_device min_dev;
static struct ggml_backend_reg min_reg;

static struct ggml_backend_buffer_type min_buft = {
    /* .iface = */ {
        /* .get_name       = */ min_buft_get_name,
        /* .alloc_buffer   = */ min_buft_alloc_buffer,
        /* .get_alignment  = */ min_buft_get_alignment,
        /* .get_max_size   = */ NULL,
        /* .get_alloc_size = */ NULL,
        /* .is_host        = */ NULL,
    },
    /* .device  = */ &min_dev,
    /* .context = */ NULL,
};

static const char * min_backend_get_name(ggml_backend_t backend) {
    (void) backend;
    return "MIN";
}

static void min_backend_free(ggml_backend_t backend) {
    min_n_free_calls++;
    free(backend);
}

static enum ggml_status min_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    (void) backend;
    for (int i = 0; i < ggml_graph_n_nodes(cgraph); i++) {
        if (!tb_compute_node(ggml_graph_node(cgraph, i))) {
            return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}

static const struct ggml_backend_i min_backend_i = {
    /* .get_name            = */ min_backend_get_name,
    /* .free                = */ min_backend_free,
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
    /* .graph_compute       = */ min_backend_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static const char * min_dev_get_name(ggml_backend_dev_t dev) {
    (void) dev;
    return "MIN0";
}

static const char * min_dev_get_description(ggml_backend_dev_t dev) {
    (void) dev;
    return "minimal test device";
}

static void min_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = sizeof(min_arena);
    *total = sizeof(min_arena);
}

static enum ggml_backend_dev_type min_dev_get_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static void min_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name = min_dev_get_name(dev);
    props->description = min_dev_get_description(dev);
    min_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->type = min_dev_get_type(dev);
}

static ggml_backend_t min_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    static ggml_guid guid = { 'm', 'i', 'n' };
    ggml_backend_t b = (ggml_backend_t) calloc(1, sizeof(*b));
    b->guid = &guid;
    b->iface = min_backend_i;
    b->device = dev;
    return b;
}

static ggml_backend_buffer_type_t min_dev_get_buffer_type(ggml_backend_dev_t dev) {
    (void) dev;
    return &min_buft;
}

static bool min_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    return op->type == GGML_TYPE_F32 && (op->op == GGML_OP_ADD || op->op == GGML_OP_MUL || ggml_op_is_empty_tb(op->op));
}

static bool min_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    (void) dev;
    return buft == &min_buft;
}

static const struct ggml_backend_device_i min_dev_i = {
    /* .get_name             = */ min_dev_get_name,
    /* .get_description      = */ min_dev_get_description,
    /* .get_memory           = */ min_dev_get_memory,
    /* .get_type             = */ min_dev_get_type,
    /* .get_props            = */ min_dev_get_props,
    /* .init_backend         = */ min_dev_init_backend,
    /* .get_buffer_type      = */ min_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ min_dev_supports_op,
    /* .supports_buft        = */ min_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

static const char * min_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return "MIN";
}

static size_t min_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static ggml_backend_dev_t min_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index == 0 ? &min_dev : NULL;
}

static const struct ggml_backend_reg_i min_reg_i = {
    /* .get_name         = */ min_reg_get_name,
    /* .get_device_count = */ min_reg_get_device_count,
    /* .get_device       = */ min_reg_get_device,
    /* .get_proc_address = */ NULL,
};

static ggml_backend_t min_backend_new(void) {
    min_reg.api_version = GGML_BACKEND_API_VERSION;
    min_reg.iface = min_reg_i;
    min_dev.iface = min_dev_i;
    min_dev.reg = &min_reg;
    return ggml_backend_dev_init(&min_dev, NULL);
}

// ---------------------------------------------------------------------------
// Buffer types and buffers (002: buft_*, buffer_*)
// ---------------------------------------------------------------------------

TEST(buft_optional_members_fall_back) {
    ggml_backend_t b = min_backend_new();
    ASSERT_NE(NULL, b);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);

    EXPECT_STREQ("MIN", ggml_backend_buft_name(&min_buft));
    EXPECT_EQ(SIZE_MAX, ggml_backend_buft_get_max_size(&min_buft));          // get_max_size NULL
    EXPECT_EQ(ggml_nbytes(t), ggml_backend_buft_get_alloc_size(&min_buft, t)); // get_alloc_size NULL
    EXPECT_FALSE(ggml_backend_buft_is_host(&min_buft));                        // is_host NULL
    EXPECT_EQ(&min_dev, ggml_backend_buft_get_device(&min_buft));

    // the backend wrappers go through the default buffer type of the device
    EXPECT_EQ(&min_buft, ggml_backend_get_default_buffer_type(b));
    EXPECT_EQ(64, ggml_backend_get_alignment(b));
    EXPECT_EQ(SIZE_MAX, ggml_backend_get_max_size(b));
    EXPECT_EQ(&min_dev, ggml_backend_get_device(b));
    EXPECT_STREQ("MIN", ggml_backend_name(b));

    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(b, 1024);
    ASSERT_NE(NULL, buf);
    EXPECT_EQ(1, min_n_alloc);
    EXPECT_EQ(&min_buft, ggml_backend_buffer_get_type(buf));
    EXPECT_STREQ("MIN", ggml_backend_buffer_name(buf));
    EXPECT_EQ(64, ggml_backend_buffer_get_alignment(buf));
    EXPECT_EQ(SIZE_MAX, ggml_backend_buffer_get_max_size(buf));
    EXPECT_EQ(ggml_nbytes(t), ggml_backend_buffer_get_alloc_size(buf, t));
    EXPECT_FALSE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(1024, ggml_backend_buffer_get_size(buf));
    EXPECT_EQ((void *) min_arena, ggml_backend_buffer_get_base(buf));
    ggml_backend_buffer_reset(buf); // reset NULL: nothing happens

    // init_tensor NULL: tensor_alloc succeeds
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t, min_arena + 64));
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_buffer_init_tensor(buf, t));
    EXPECT_EQ(buf, t->buffer);
    // free_buffer NULL: only the handle goes, the arena is the test's
    ggml_backend_buffer_free(buf);
    min_arena[0] = 1;
    ggml_free(ctx);
    ggml_backend_free(b);
    EXPECT_EQ(1, min_n_free_calls);
}

TEST(size_zero_buffers_of_every_kind) {
    ggml_backend_t b = min_backend_new();
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_device * d = dev_with("ZERO", false, false);

    // a size-0 allocation never reaches the buffer type: a dummy buffer
    ggml_backend_buffer_t bufs[4] = {
        ggml_backend_alloc_buffer(b, 0),
        ggml_backend_alloc_buffer(cpu, 0),
        ggml_backend_buft_alloc_buffer(&d->buft, 0),
        ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(ggml_backend_get_device(cpu)), 0),
    };
    EXPECT_EQ(0, min_n_alloc);
    EXPECT_EQ(0, d->n_buffers_alloc);
    for (int i = 0; i < 4; i++) {
        ASSERT_NE(NULL, bufs[i]);
        EXPECT_EQ(0, ggml_backend_buffer_get_size(bufs[i]));
        EXPECT_EQ(NULL, ggml_backend_buffer_get_base(bufs[i]));     // get_base of size 0 is NULL
        ggml_backend_buffer_clear(bufs[i], 0x11);                   // nothing to clear
        ggml_backend_buffer_reset(bufs[i]);
        ggml_backend_buffer_set_usage(bufs[i], GGML_BACKEND_BUFFER_USAGE_COMPUTE);
        EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_COMPUTE, ggml_backend_buffer_get_usage(bufs[i]));
        EXPECT_NE(NULL, ggml_backend_buffer_name(bufs[i]));
        EXPECT_GT(ggml_backend_buffer_get_alignment(bufs[i]), 0);
        EXPECT_FALSE(ggml_backend_buffer_is_multi_buffer(bufs[i]));
    }
    EXPECT_TRUE(ggml_backend_buffer_is_host(bufs[1]));
    EXPECT_FALSE(ggml_backend_buffer_is_host(bufs[0]));
    EXPECT_EQ(&d->buft, ggml_backend_buffer_get_type(bufs[2]));
    for (int i = 0; i < 4; i++) {
        ggml_backend_buffer_free(bufs[i]);
    }
    EXPECT_EQ(0, d->n_buffers_live);

    // a zero-byte tensor access does nothing, even on an unallocated tensor
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    log_start();
    ggml_backend_tensor_set(t, NULL, 0, 0);
    ggml_backend_tensor_get(t, NULL, 0, 0);
    ggml_backend_tensor_memset(t, 0, 0, 0);
    log_stop();
    EXPECT_EQ(0, log_len);
    ggml_free(ctx);

    ggml_backend_free(cpu);
    ggml_backend_free(b);
}

// 004: alloc_buffer "Returns a new buffer, or NULL on failure": a size the
// host cannot provide (even one that overflows when padded) is a failure
TEST(impossible_allocation_returns_null) {
    // (sizes that do not overflow but cannot be had are left out: ASan
    // aborts on them instead of returning NULL)
    const size_t sizes[] = { SIZE_MAX, SIZE_MAX - 5, SIZE_MAX - 30 };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        log_start();
        ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), sizes[i]);
        log_stop();
        EXPECT_EQ(NULL, buf) TH_LOG("size %zu", sizes[i]);
        EXPECT_NE(0, log_len);
        ggml_backend_buffer_free(buf);
    }
}

TEST(null_safety) {
    // 004 (and 002): these accept NULL
    ggml_backend_buffer_free(NULL);
    ggml_backend_free(NULL);
    ggml_backend_event_free(NULL);
    ggml_backend_sched_free(NULL);
    ggml_gallocr_free(NULL);
    ggml_free(NULL);
    EXPECT_EQ(NULL, ggml_backend_event_new(NULL));
    EXPECT_EQ(NULL, ggml_backend_guid(NULL));
    EXPECT_STREQ("NULL", ggml_backend_name(NULL));
    // a failed graph copy can be freed like a good one
    struct ggml_backend_graph_copy none = { NULL, NULL, NULL, NULL };
    ggml_backend_graph_copy_free(none);
}

TEST(device_optional_members_fall_back) {
    ggml_backend_t b = min_backend_new();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * c = ggml_add(ctx, a, a);

    EXPECT_EQ(NULL, ggml_backend_dev_host_buffer_type(&min_dev));  // get_host_buffer_type NULL
    EXPECT_FALSE(ggml_backend_dev_offload_op(&min_dev, c));          // offload_op NULL
    EXPECT_FALSE(ggml_backend_offload_op(b, c));
    EXPECT_EQ(NULL, ggml_backend_event_new(&min_dev));               // event_new NULL
    EXPECT_EQ(NULL, ggml_backend_reg_get_proc_address(&min_reg, "ggml_backend_set_n_threads")); // get_proc_address NULL
    EXPECT_EQ(&min_reg, ggml_backend_dev_backend_reg(&min_dev));
    EXPECT_STREQ("MIN", ggml_backend_reg_name(&min_reg));
    EXPECT_EQ(1, ggml_backend_reg_dev_count(&min_reg));
    EXPECT_EQ(&min_dev, ggml_backend_reg_dev_get(&min_reg, 0));
    EXPECT_TRUE(ggml_backend_supports_op(b, c));
    EXPECT_TRUE(ggml_backend_dev_supports_op(&min_dev, c));
    EXPECT_TRUE(ggml_backend_supports_buft(b, &min_buft));
    EXPECT_FALSE(ggml_backend_supports_buft(b, ggml_backend_cpu_buffer_type()));

    // props are zeroed before get_props: what it leaves out is 0/NULL/false
    struct ggml_backend_dev_props props;
    memset(&props, 0xa5, sizeof(props));
    ggml_backend_dev_get_props(&min_dev, &props);
    EXPECT_STREQ("MIN0", props.name);
    EXPECT_EQ(NULL, props.device_id);
    EXPECT_FALSE(props.caps.async);
    EXPECT_FALSE(props.caps.host_buffer);
    EXPECT_FALSE(props.caps.buffer_from_host_ptr);
    EXPECT_FALSE(props.caps.events);
    EXPECT_FALSE(props.caps.mmap_support);
    EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_ACCEL, props.type);
    size_t fr = 0, to = 0;
    ggml_backend_dev_memory(&min_dev, &fr, &to);
    EXPECT_EQ(sizeof(min_arena), to);

    // buffer_from_host_ptr NULL: refused with a message, not a crash
    log_start();
    EXPECT_EQ(NULL, ggml_backend_dev_buffer_from_host_ptr(&min_dev, min_arena, 128, 128));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "buffer_from_host_ptr"));
    ggml_free(ctx);
    ggml_backend_free(b);
}

TEST(backend_optional_members_fall_back) {
    ggml_backend_t b = min_backend_new();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * y = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * z = ggml_add(ctx, x, y);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, z);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, b);
    ASSERT_NE(NULL, buf);
    EXPECT_EQ(&min_buft, ggml_backend_buffer_get_type(buf));

    float vx[8], vy[8], vz[8];
    fill(vx, 8, 1.0f);
    fill(vy, 8, 0.5f);
    // set/get_tensor_async NULL: synchronize (NULL: nothing) + synchronous copy
    int set0 = min_n_set;
    ggml_backend_tensor_set_async(b, x, vx, 0, sizeof(vx));
    ggml_backend_tensor_set_async(b, y, vy, 0, sizeof(vy));
    EXPECT_EQ(set0 + 2, min_n_set);
    ggml_backend_synchronize(b); // synchronize NULL: nothing to wait for
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(b, g));
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute_async(b, g));
    int get0 = min_n_get;
    ggml_backend_tensor_get_async(b, z, vz, 0, sizeof(vz));
    EXPECT_EQ(get0 + 1, min_n_get);
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(vx[i] + vy[i], vz[i]);
    }
    // *_2d NULL: a loop of 1-d accesses
    float two[4] = { 1, 2, 3, 4 };
    get0 = min_n_get;
    set0 = min_n_set;
    ggml_backend_tensor_set_2d(z, two, 0, 2 * sizeof(float), 2, 4 * sizeof(float), 2 * sizeof(float));
    EXPECT_EQ(set0 + 2, min_n_set);
    ggml_backend_tensor_set_2d_async(b, z, two, 0, 2 * sizeof(float), 2, 4 * sizeof(float), 2 * sizeof(float));
    EXPECT_EQ(set0 + 4, min_n_set);
    float back[4] = { 0 };
    ggml_backend_tensor_get_2d_async(b, z, back, 0, 2 * sizeof(float), 2, 4 * sizeof(float), 2 * sizeof(float));
    EXPECT_EQ(get0 + 2, min_n_get);
    EXPECT_EQ(0, memcmp(two, back, sizeof(two)));
    ggml_backend_tensor_get(z, vz, 0, sizeof(vz));
    EXPECT_EQ(1.0f, vz[0]);
    EXPECT_EQ(2.0f, vz[1]);
    EXPECT_EQ(3.0f, vz[4]);
    EXPECT_EQ(4.0f, vz[5]);

    // cpy_tensor_async NULL, cpy_tensor NULL, neither side host: staged copy
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, w, (char *) ggml_backend_buffer_get_base(buf) + ggml_backend_buffer_get_size(buf) - 64));
    get0 = min_n_get;
    set0 = min_n_set;
    ggml_backend_tensor_copy_async(b, b, x, w);
    EXPECT_EQ(get0 + 1, min_n_get);
    EXPECT_EQ(set0 + 1, min_n_set);
    float vw[8];
    ggml_backend_tensor_get(w, vw, 0, sizeof(vw));
    EXPECT_EQ(0, memcmp(vx, vw, sizeof(vw)));
    // copying a tensor onto itself does nothing
    get0 = min_n_get;
    ggml_backend_tensor_copy(w, w);
    EXPECT_EQ(get0, min_n_get);

    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(b);
}

// 002: tensor_memset asserts that the buffer implements memset_tensor;
// graph_plan_* assert that the backend implements plans.
static void do_memset_without_member(void) {
    ggml_backend_t b = min_backend_new();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_backend_alloc_ctx_tensors(ctx, b);
    ggml_backend_tensor_memset(x, 0, 0, 8);
}

static void do_plan_without_member(void) {
    ggml_backend_t b = min_backend_new();
    struct ggml_context * ctx = new_ctx();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_backend_graph_plan_create(b, g);
}

TEST(required_members_missing_assert) {
    EXPECT_TRUE(expect_abort(do_memset_without_member, "memset"));
    EXPECT_TRUE(expect_abort(do_plan_without_member, "graph_plan_create"));
}

// ---------------------------------------------------------------------------
// Who frees what
// ---------------------------------------------------------------------------

TEST(ownership) {
    // a buffer from a host pointer does not own the memory: freeing the
    // buffer leaves it usable (ASan would report a double free otherwise)
    float * mem = aligned_alloc(64, 256);
    ASSERT_NE(NULL, mem);
    ggml_backend_buffer_t wrap = ggml_backend_cpu_buffer_from_ptr(mem, 256);
    ASSERT_NE(NULL, wrap);
    EXPECT_EQ((void *) mem, ggml_backend_buffer_get_base(wrap));
    ggml_backend_buffer_clear(wrap, 0);
    ggml_backend_buffer_free(wrap);
    mem[63] = 1.0f;

    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_buffer_t wrap2 = ggml_backend_dev_buffer_from_host_ptr(cpu_dev, mem, 256, 256);
    ASSERT_NE(NULL, wrap2);
    EXPECT_TRUE(ggml_backend_buffer_is_host(wrap2));
    ggml_backend_buffer_free(wrap2);
    mem[0] = 2.0f;
    free(mem);

    // the scheduler frees the events it created, not the backends
    struct tb_device * d = dev_with("OWN", false, true);
    ggml_backend_t tb = tb_backend_new(d);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_t backends[2] = { tb, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, true, false);
    ASSERT_NE(NULL, sched);
    EXPECT_GT(d->n_events_live, 0);
    ggml_backend_sched_free(sched);
    EXPECT_EQ(0, d->n_events_live);
    EXPECT_STREQ("OWN", ggml_backend_name(tb)); // still alive
    // a multi-buffer frees the buffers it holds
    ggml_backend_buffer_t parts[2] = { ggml_backend_buft_alloc_buffer(&d->buft, 64), ggml_backend_buft_alloc_buffer(&d->buft, 64) };
    EXPECT_EQ(2, d->n_buffers_live);
    ggml_backend_buffer_t multi = ggml_backend_multi_buffer_alloc_buffer(parts, 2);
    EXPECT_EQ(128, ggml_backend_buffer_get_size(multi));
    EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(multi));
    ggml_backend_buffer_set_usage(multi, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_WEIGHTS, ggml_backend_buffer_get_usage(parts[0]));
    EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_WEIGHTS, ggml_backend_buffer_get_usage(parts[1]));
    ggml_backend_buffer_clear(multi, 0x3c);
    uint8_t * p1 = ggml_backend_buffer_get_base(parts[1]);
    EXPECT_EQ(0x3c, p1[63]);
    ggml_backend_buffer_free(multi);
    EXPECT_EQ(0, d->n_buffers_live);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

// ---------------------------------------------------------------------------
// Tensor copy through host staging, views, both directions
// ---------------------------------------------------------------------------

TEST(tensor_copy_staging_and_views) {
    struct tb_device * d1 = dev_with("ST1", false, false);
    struct tb_device * d2 = dev_with("ST2", false, false);
    ggml_backend_t b = min_backend_new();
    struct ggml_context * ctx = new_ctx();
    // one 2-d tensor per buffer type, and a view of each (buffer NULL, view_src set)
    ggml_backend_buffer_type_t bufts[4] = { &d1->buft, &d2->buft, &min_buft, ggml_backend_cpu_buffer_type() };
    struct ggml_tensor * t[4];
    struct ggml_tensor * v[4];
    ggml_backend_buffer_t buf[4];
    for (int i = 0; i < 4; i++) {
        struct ggml_context * c1 = new_ctx();
        t[i] = ggml_new_tensor_2d(c1, GGML_TYPE_F32, 6, 4);
        buf[i] = ggml_backend_alloc_ctx_tensors_from_buft(c1, bufts[i]);
        ASSERT_NE(NULL, buf[i]);
        v[i] = ggml_view_2d(ctx, t[i], 6, 2, t[i]->nb[1], 2 * t[i]->nb[1]);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_view_init(v[i]));
        EXPECT_EQ(buf[i], v[i]->buffer);
        ggml_backend_buffer_clear(buf[i], 0);
        // c1 stays alive to the end of the test (its child process)
    }
    float src[24];
    fill(src, 24, 0.25f);
    ggml_backend_tensor_set(t[0], src, 0, sizeof(src));
    // device -> other device: neither is host, no direct path: staging
    int g1 = d1->n_get, s2 = d2->n_set;
    ggml_backend_tensor_copy(t[0], t[1]);
    EXPECT_EQ(g1 + 1, d1->n_get);
    EXPECT_EQ(s2 + 1, d2->n_set);
    // device -> minimal (no cpy_tensor at all): staging
    ggml_backend_tensor_copy(t[1], t[2]);
    // minimal -> CPU: dst is host, get straight into it
    ggml_backend_tensor_copy(t[2], t[3]);
    float back[24];
    ggml_backend_tensor_get(t[3], back, 0, sizeof(back));
    EXPECT_EQ(0, memcmp(src, back, sizeof(back)));

    // views: rows 2..3 of each, copied around the ring backwards
    float rows[12];
    fill(rows, 12, -1.0f);
    ggml_backend_tensor_set(v[3], rows, 0, sizeof(rows));
    ggml_backend_tensor_copy(v[3], v[2]);
    ggml_backend_tensor_copy(v[2], v[1]);
    ggml_backend_tensor_copy(v[1], v[0]);
    ggml_backend_tensor_get(t[0], back, 0, sizeof(back));
    EXPECT_EQ(0, memcmp(src, back, 12 * sizeof(float)));        // rows 0..1 untouched
    EXPECT_EQ(0, memcmp(rows, back + 12, sizeof(rows)));        // rows 2..3 copied

    for (int i = 0; i < 4; i++) {
        ggml_backend_buffer_free(buf[i]);
    }
    ggml_free(ctx);
    ggml_backend_free(b);
}

static void do_copy_different_layouts(void) {
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 2);
    ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
    ggml_backend_tensor_copy(a, c);
}

TEST(tensor_copy_needs_same_layout) {
    // 004: "The source and destination shapes and types must match."
    EXPECT_TRUE(expect_abort(do_copy_different_layouts, "layout"));
}

// ---------------------------------------------------------------------------
// Graph copy and compare_graph_backend
// ---------------------------------------------------------------------------

struct small_graph {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_cgraph  * g;
    struct ggml_tensor  * a, * b, * sum, * view, * prod, * out;
};

// a + b, a view (reshape + transpose) of the sum, mul_mat, scale; on the CPU
static void small_graph_new(struct small_graph * s, ggml_backend_t cpu) {
    s->ctx = new_ctx();
    s->a = ggml_new_tensor_2d(s->ctx, GGML_TYPE_F32, 4, 6);
    s->b = ggml_new_tensor_2d(s->ctx, GGML_TYPE_F32, 4, 6);
    ggml_set_name(s->a, "a");
    ggml_set_name(s->b, "b");
    s->sum = ggml_add(s->ctx, s->a, s->b);
    s->view = ggml_transpose(s->ctx, ggml_reshape_2d(s->ctx, s->sum, 6, 4));
    s->prod = ggml_mul_mat(s->ctx, s->a, ggml_cont(s->ctx, s->view));
    s->out = ggml_scale(s->ctx, s->prod, 0.5f);
    ggml_set_name(s->out, "out");
    s->g = ggml_new_graph(s->ctx);
    ggml_build_forward_expand(s->g, s->out);
    s->buf = ggml_backend_alloc_ctx_tensors(s->ctx, cpu);
    float va[24], vb[24];
    fill(va, 24, 0.5f);
    fill(vb, 24, -0.25f);
    ggml_backend_tensor_set(s->a, va, 0, sizeof(va));
    ggml_backend_tensor_set(s->b, vb, 0, sizeof(vb));
}

static void small_graph_free(struct small_graph * s) {
    ggml_backend_buffer_free(s->buf);
    ggml_free(s->ctx);
}

TEST(graph_copy_and_free) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_device * d = dev_with("GC", false, false);
    ggml_backend_t tb = tb_backend_new(d);
    struct small_graph s;
    small_graph_new(&s, cpu);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, s.g));

    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(tb, s.g);
    ASSERT_NE(NULL, copy.buffer);
    ASSERT_NE(NULL, copy.ctx_allocated);
    ASSERT_NE(NULL, copy.ctx_unallocated);
    ASSERT_NE(NULL, copy.graph);
    EXPECT_EQ(&d->buft, ggml_backend_buffer_get_type(copy.buffer));
    EXPECT_EQ(1, d->n_buffers_live);
    ASSERT_EQ(ggml_graph_n_nodes(s.g), ggml_graph_n_nodes(copy.graph));
    for (int i = 0; i < ggml_graph_n_nodes(s.g); i++) {
        struct ggml_tensor * t1 = ggml_graph_node(s.g, i);
        struct ggml_tensor * t2 = ggml_graph_node(copy.graph, i);
        EXPECT_NE(t1, t2);
        EXPECT_EQ(t1->op, t2->op);
        EXPECT_STREQ(t1->name, t2->name);
        EXPECT_EQ(0, memcmp(t1->op_params, t2->op_params, sizeof(t1->op_params)));
        for (int k = 0; k < GGML_MAX_DIMS; k++) {
            EXPECT_EQ(t1->ne[k], t2->ne[k]);
            EXPECT_EQ(t1->nb[k], t2->nb[k]);
        }
        // sources point into the copy, views at the copied view source
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            EXPECT_EQ(t1->src[j] == NULL, t2->src[j] == NULL);
            if (t2->src[j]) {
                EXPECT_EQ(0, strcmp(t1->src[j]->name, t2->src[j]->name));
                ggml_backend_buffer_t sb = t2->src[j]->view_src ? t2->src[j]->view_src->buffer : t2->src[j]->buffer;
                EXPECT_EQ(copy.buffer, sb);
            }
        }
        if (t1->view_src) {
            ASSERT_NE(NULL, t2->view_src);
            EXPECT_EQ(t1->view_offs, t2->view_offs);
            EXPECT_EQ((char *) t2->view_src->data + t2->view_offs, (char *) t2->data);
        }
        // the data came along (the graph was computed before the copy)
        size_t n = ggml_nbytes(t1);
        float * x = malloc(n);
        float * y = malloc(n);
        ggml_backend_tensor_get(t1, x, 0, n);
        ggml_backend_tensor_get(t2, y, 0, n);
        EXPECT_EQ(0, memcmp(x, y, n)) TH_LOG("node %d %s", i, t1->name);
        free(x);
        free(y);
    }
    // the copy computes the same result on the other backend
    ggml_backend_tensor_memset(ggml_graph_node(copy.graph, -1), 0, 0, ggml_nbytes(s.out));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(tb, copy.graph));
    float r1[36], r2[36];
    ASSERT_EQ(sizeof(r1), ggml_nbytes(s.out));
    ggml_backend_tensor_get(s.out, r1, 0, sizeof(r1));
    ggml_backend_tensor_get(ggml_graph_node(copy.graph, -1), r2, 0, sizeof(r2));
    for (int i = 0; i < 36; i++) {
        EXPECT_LT(fabsf(r1[i] - r2[i]), 1e-4f);
    }
    // graph_copy_free frees the buffer and both contexts (ASan checks the rest)
    ggml_backend_graph_copy_free(copy);
    EXPECT_EQ(0, d->n_buffers_live);
    small_graph_free(&s);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

TEST(graph_copy_failure_returns_nulls) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "TINY";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.max_size = 16; // nothing of the graph fits
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    struct tb_device * d = tb_device_new(&cfg);
    ggml_backend_t tb = tb_backend_new(d);
    struct small_graph s;
    small_graph_new(&s, cpu);
    log_start();
    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(tb, s.g);
    log_stop();
    EXPECT_EQ(NULL, copy.buffer);
    EXPECT_EQ(NULL, copy.ctx_allocated);
    EXPECT_EQ(NULL, copy.ctx_unallocated);
    EXPECT_EQ(NULL, copy.graph);
    ggml_backend_graph_copy_free(copy);
    // compare_graph_backend cannot copy: false, callback never called
    log_start();
    EXPECT_FALSE(ggml_backend_compare_graph_backend(cpu, tb, s.g, NULL, NULL, NULL, 0));
    log_stop();
    EXPECT_EQ(0, d->n_buffers_live);
    small_graph_free(&s);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

struct cmp_log {
    int  n;
    int  stop_after;      // return false on this call (1-based; 0 = never)
    int  index[32];
    enum ggml_op op[32];
    bool t1_in_graph[32];
    bool t2_on_backend2[32];
    float max_err;
    struct ggml_cgraph * graph;
    ggml_backend_buffer_type_t buft2;
};

static bool cmp_record(int i, struct ggml_tensor * t1, struct ggml_tensor * t2, void * ud) {
    struct cmp_log * l = ud;
    if (l->n < 32) {
        l->index[l->n] = i;
        l->op[l->n] = t1->op;
        l->t1_in_graph[l->n] = ggml_graph_node(l->graph, i) == t1;
        ggml_backend_buffer_t b2 = t2->view_src ? t2->view_src->buffer : t2->buffer;
        l->t2_on_backend2[l->n] = b2 && ggml_backend_buffer_get_type(b2) == l->buft2;
    }
    l->n++;
    // both results are there when the callback runs
    size_t n = ggml_nbytes(t1);
    float * x = malloc(n);
    float * y = malloc(n);
    ggml_backend_tensor_get(t1, x, 0, n);
    ggml_backend_tensor_get(t2, y, 0, n);
    for (size_t k = 0; k < n / sizeof(float); k++) {
        float e = fabsf(x[k] - y[k]);
        if (e > l->max_err) {
            l->max_err = e;
        }
    }
    free(x);
    free(y);
    return l->stop_after == 0 || l->n < l->stop_after;
}

TEST(compare_graph_backend_protocol) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_device * d = dev_with("CMPP", false, false);
    ggml_backend_t tb = tb_backend_new(d);
    struct small_graph s;
    small_graph_new(&s, cpu);
    const int n_nodes = ggml_graph_n_nodes(s.g);
    int n_views = 0;
    for (int i = 0; i < n_nodes; i++) {
        enum ggml_op op = ggml_graph_node(s.g, i)->op;
        n_views += op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
    }
    ASSERT_GT(n_views, 0);

    // every node but the views, in order, with its index; t1 from the
    // graph, t2 from the copy on backend2
    struct cmp_log l;
    memset(&l, 0, sizeof(l));
    l.graph = s.g;
    l.buft2 = &d->buft;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, s.g, cmp_record, &l, NULL, 0));
    EXPECT_EQ(n_nodes - n_views, l.n);
    for (int k = 0; k < l.n; k++) {
        EXPECT_TRUE(l.t1_in_graph[k]);
        EXPECT_TRUE(l.t2_on_backend2[k]);
        EXPECT_NE(GGML_OP_RESHAPE, l.op[k]);
        EXPECT_NE(GGML_OP_TRANSPOSE, l.op[k]);
        if (k > 0) {
            EXPECT_GT(l.index[k], l.index[k - 1]);
        }
    }
    EXPECT_LT(l.max_err, 1e-4f);
    EXPECT_EQ(0, d->n_buffers_live); // the copy is freed

    // the callback returning false stops the comparison (002: the loop
    // breaks and the function still returns true)
    memset(&l, 0, sizeof(l));
    l.graph = s.g;
    l.buft2 = &d->buft;
    l.stop_after = 1;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, s.g, cmp_record, &l, NULL, 0));
    EXPECT_EQ(1, l.n);

    // with test nodes: only those, same protocol
    const struct ggml_tensor * test_nodes[2] = { s.sum, s.out };
    memset(&l, 0, sizeof(l));
    l.graph = s.g;
    l.buft2 = &d->buft;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, s.g, cmp_record, &l, test_nodes, 2));
    EXPECT_EQ(2, l.n);
    EXPECT_EQ(GGML_OP_ADD, l.op[0]);
    EXPECT_EQ(GGML_OP_SCALE, l.op[1]);
    EXPECT_EQ(n_nodes - 1, l.index[1]);
    memset(&l, 0, sizeof(l));
    l.graph = s.g;
    l.buft2 = &d->buft;
    l.stop_after = 1;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, s.g, cmp_record, &l, test_nodes, 2));
    EXPECT_EQ(1, l.n);

    small_graph_free(&s);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

// ---------------------------------------------------------------------------
// Scheduler
// ---------------------------------------------------------------------------

// model: y = relu-free 2-layer net  h = W1 x + b1 (ADD), y = W2 h * s (SCALE)
struct model {
    struct ggml_context * ctx_w;
    ggml_backend_buffer_t buf_w;
    struct ggml_tensor * w1, * b1, * w2;
};

#define K 16
#define H 12
#define O 8

static void model_new(struct model * m) {
    m->ctx_w = new_ctx();
    m->w1 = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, K, H);
    m->b1 = ggml_new_tensor_1d(m->ctx_w, GGML_TYPE_F32, H);
    m->w2 = ggml_new_tensor_2d(m->ctx_w, GGML_TYPE_F32, H, O);
    m->buf_w = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx_w, ggml_backend_cpu_buffer_type());
    float w1[K * H], b1[H], w2[H * O];
    fill(w1, K * H, 0.125f);
    fill(b1, H, 0.5f);
    fill(w2, H * O, -0.0625f);
    ggml_backend_tensor_set(m->w1, w1, 0, sizeof(w1));
    ggml_backend_tensor_set(m->b1, b1, 0, sizeof(b1));
    ggml_backend_tensor_set(m->w2, w2, 0, sizeof(w2));
}

static void model_free(struct model * m) {
    ggml_backend_buffer_free(m->buf_w);
    ggml_free(m->ctx_w);
}

struct built {
    struct ggml_context * ctx;
    struct ggml_cgraph  * g;
    struct ggml_tensor  * x, * y;
};

static struct built build_graph(struct model * m, int batch) {
    struct built b;
    b.ctx = new_ctx();
    b.x = ggml_new_tensor_2d(b.ctx, GGML_TYPE_F32, K, batch);
    ggml_set_name(b.x, "x");
    ggml_set_input(b.x);
    struct ggml_tensor * h = ggml_add(b.ctx, ggml_mul_mat(b.ctx, m->w1, b.x), m->b1);
    b.y = ggml_scale(b.ctx, ggml_mul_mat(b.ctx, m->w2, h), 2.0f);
    ggml_set_name(b.y, "y");
    ggml_set_output(b.y);
    b.g = ggml_new_graph(b.ctx);
    ggml_build_forward_expand(b.g, b.y);
    return b;
}

static void reference(const struct model * m, const float * x, int batch, float * y) {
    float w1[K * H], b1[H], w2[H * O];
    ggml_backend_tensor_get(m->w1, w1, 0, sizeof(w1));
    ggml_backend_tensor_get(m->b1, b1, 0, sizeof(b1));
    ggml_backend_tensor_get(m->w2, w2, 0, sizeof(w2));
    for (int n = 0; n < batch; n++) {
        double h[H];
        for (int i = 0; i < H; i++) {
            double acc = b1[i];
            for (int k = 0; k < K; k++) {
                acc += (double) w1[i * K + k] * x[n * K + k];
            }
            h[i] = (float) acc;
        }
        for (int o = 0; o < O; o++) {
            double acc = 0;
            for (int i = 0; i < H; i++) {
                acc += (double) w2[o * H + i] * h[i];
            }
            y[n * O + o] = (float) (2.0 * acc);
        }
    }
}

static struct tb_device * gpu_dev(const char * name, bool offload) {
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = name;
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    cfg.offload = offload;
    cfg.ops[GGML_OP_MUL_MAT] = true;
    cfg.ops[GGML_OP_ADD] = true;
    return tb_device_new(&cfg);
}

// 004's example: weights marked WEIGHTS, GPU first and CPU last, reserve with
// the worst case, then compute one graph ten times.
TEST(sched_usage_example_of_004) {
    struct tb_device * d = gpu_dev("GPU", true);
    ggml_backend_t backend_gpu = tb_backend_new(d);
    ggml_backend_t backend_cpu = ggml_backend_cpu_init();
    struct model m;
    model_new(&m);

    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_t backends[] = { backend_gpu, backend_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
    ASSERT_NE(NULL, sched);
    EXPECT_EQ(2, ggml_backend_sched_get_n_backends(sched));
    EXPECT_EQ(backend_gpu, ggml_backend_sched_get_backend(sched, 0));
    EXPECT_EQ(backend_cpu, ggml_backend_sched_get_backend(sched, 1));
    EXPECT_EQ(1, ggml_backend_sched_get_n_copies(sched));
    EXPECT_EQ(&d->buft, ggml_backend_sched_get_buffer_type(sched, backend_gpu));
    EXPECT_EQ(ggml_backend_cpu_buffer_type(), ggml_backend_sched_get_buffer_type(sched, backend_cpu));

    const int max_batch = 64;
    struct built worst = build_graph(&m, max_batch);
    ASSERT_TRUE(ggml_backend_sched_reserve(sched, worst.g));
    size_t gpu_size = ggml_backend_sched_get_buffer_size(sched, backend_gpu);
    size_t cpu_size = ggml_backend_sched_get_buffer_size(sched, backend_cpu);
    EXPECT_GT(gpu_size, 0);
    int n_alloc = d->n_buffers_alloc;

    struct built b = build_graph(&m, 40);
    float x[K * 40], y[O * 40], ref[O * 40];
    for (int it = 0; it < 10; it++) {
        if (it == 0) {
            // allocation happens on the first compute; set the input after an
            // explicit alloc, as the header's example does
            ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
        }
        fill(x, K * 40, 0.1f * (float) (it + 1));
        ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
        ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
        reference(&m, x, 40, ref);
        double err = 0, nrm = 0;
        for (int i = 0; i < O * 40; i++) {
            err += (double) (y[i] - ref[i]) * (y[i] - ref[i]);
            nrm += (double) ref[i] * ref[i];
        }
        EXPECT_LT(err / nrm, 1e-10) TH_LOG("iteration %d", it);
    }
    // the matmuls ran on the GPU (op_offload with host weights), the scale on the CPU
    EXPECT_GT(d->n_compute, 0);
    EXPECT_GE(ggml_backend_sched_get_n_splits(sched), 2);
    // the reserved buffers were enough: no new allocation, same sizes
    EXPECT_EQ(n_alloc, d->n_buffers_alloc);
    EXPECT_EQ(gpu_size, ggml_backend_sched_get_buffer_size(sched, backend_gpu));
    EXPECT_EQ(cpu_size, ggml_backend_sched_get_buffer_size(sched, backend_cpu));

    ggml_backend_sched_free(sched);
    ggml_free(b.ctx);
    ggml_free(worst.ctx);
    model_free(&m);
    ggml_backend_free(backend_cpu);
    ggml_backend_free(backend_gpu);
}

// 004: "Run the graph - allocation happens automatically on first call":
// no alloc_graph, no reset, the same graph computed ten times (async +
// synchronize for half of them)
TEST(sched_compute_allocates_on_first_call) {
    struct tb_device * d = gpu_dev("AUTO", true);
    ggml_backend_t gpu = tb_backend_new(d);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct model m;
    model_new(&m);
    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_t backends[] = { gpu, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);

    // a graph of the weights only (no input to set): two rows of W1 as x
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * x = ggml_view_2d(ctx, m.w1, K, 2, m.w1->nb[1], 0);
    struct ggml_tensor * h = ggml_add(ctx, ggml_mul_mat(ctx, m.w1, x), m.b1);
    struct ggml_tensor * mm2 = ggml_mul_mat(ctx, m.w2, h);
    struct ggml_tensor * y = ggml_scale(ctx, mm2, 2.0f);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, y);

    float xin[K * 2], ref[O * 2], out[O * 2];
    ggml_backend_tensor_get(m.w1, xin, 0, sizeof(xin));
    reference(&m, xin, 2, ref);
    int n_alloc = -1;
    for (int it = 0; it < 10; it++) {
        memset(out, 0, sizeof(out));
        if (it % 2) {
            ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute_async(sched, g));
            ggml_backend_sched_synchronize(sched);
        } else {
            ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, g));
        }
        ASSERT_NE(NULL, y->data) TH_LOG("allocated by the first compute");
        ggml_backend_tensor_get(y, out, 0, sizeof(out));
        for (int i = 0; i < O * 2; i++) {
            EXPECT_LT(fabsf(out[i] - ref[i]), 1e-4f * (1.0f + fabsf(ref[i]))) TH_LOG("it %d i %d", it, i);
        }
        if (it == 0) {
            n_alloc = d->n_buffers_alloc;
        }
    }
    EXPECT_EQ(n_alloc, d->n_buffers_alloc);
    // (y->src[0] may now be the scheduler's copy of mm2 for the CPU)
    EXPECT_EQ(gpu, ggml_backend_sched_get_tensor_backend(sched, mm2));
    EXPECT_EQ(cpu, ggml_backend_sched_get_tensor_backend(sched, y));
    ggml_backend_t other = ggml_backend_cpu_init();
    log_start();
    EXPECT_EQ(0, ggml_backend_sched_get_buffer_size(sched, other));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "not part of the scheduler"));
    log_start();
    EXPECT_EQ(NULL, ggml_backend_sched_get_backend(sched, 2));
    log_stop();
    ggml_backend_free(other);

    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    model_free(&m);
    ggml_backend_free(cpu);
    ggml_backend_free(gpu);
}

TEST(sched_reserve_size_matches_reserve) {
    struct tb_device * d = gpu_dev("RSV", true);
    ggml_backend_t gpu = tb_backend_new(d);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct model m;
    model_new(&m);
    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_t backends[] = { gpu, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false, true);
    struct built worst = build_graph(&m, 64);

    size_t sizes[2] = { 0, 0 };
    ggml_backend_sched_reserve_size(sched, worst.g, sizes);
    EXPECT_GT(sizes[0], 0);
    EXPECT_EQ(0, d->n_buffers_alloc); // measuring allocates nothing
    ASSERT_TRUE(ggml_backend_sched_reserve(sched, worst.g));
    EXPECT_EQ(sizes[0], ggml_backend_sched_get_buffer_size(sched, gpu));
    EXPECT_EQ(sizes[1], ggml_backend_sched_get_buffer_size(sched, cpu));
    int n_alloc = d->n_buffers_alloc;
    EXPECT_GT(n_alloc, 0);

    // reserve leaves the scheduler reset: a graph of the same shape allocates
    // without a reallocation, and so does a smaller one
    for (int batch = 64; batch >= 8; batch /= 2) {
        ggml_backend_sched_reset(sched);
        struct built b = build_graph(&m, batch);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
        EXPECT_EQ(n_alloc, d->n_buffers_alloc) TH_LOG("batch %d", batch);
        EXPECT_NE(NULL, b.y->data);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
        ggml_free(b.ctx);
    }
    ggml_backend_sched_free(sched);
    ggml_free(worst.ctx);
    model_free(&m);
    ggml_backend_free(cpu);
    ggml_backend_free(gpu);
}

TEST(sched_tensor_backend_assignments) {
    struct tb_device * d = gpu_dev("ASG", false);
    ggml_backend_t gpu = tb_backend_new(d);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_t other = ggml_backend_cpu_init(); // not part of the scheduler
    struct model m;
    model_new(&m);
    ggml_backend_t backends[] = { gpu, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false, false);
    struct built b = build_graph(&m, 4);

    // a tensor the scheduler has not seen has no backend
    EXPECT_EQ(NULL, ggml_backend_sched_get_tensor_backend(sched, b.y));
    // the user's choice is kept and reported
    ggml_backend_sched_set_tensor_backend(sched, b.y, cpu);
    EXPECT_EQ(cpu, ggml_backend_sched_get_tensor_backend(sched, b.y));
    // a backend that is not part of the scheduler is refused with a message
    log_start();
    ggml_backend_sched_set_tensor_backend(sched, b.y, other);
    log_stop();
    EXPECT_NE(0, log_len);
    EXPECT_EQ(cpu, ggml_backend_sched_get_tensor_backend(sched, b.y));
    EXPECT_EQ(NULL, ggml_backend_sched_get_buffer_type(sched, other));

    // reset forgets assignments, including one made since the last reset
    ggml_backend_sched_reset(sched);
    EXPECT_EQ(NULL, ggml_backend_sched_get_tensor_backend(sched, b.y));

    // after a split every node has a backend; the user's choice survives it
    struct ggml_tensor * mm1 = b.y->src[0]->src[1]->src[0]; // mul_mat(w1, x)
    ASSERT_EQ(GGML_OP_MUL_MAT, mm1->op);
    ggml_backend_sched_set_tensor_backend(sched, mm1, cpu);
    ggml_backend_sched_split_graph(sched, b.g);
    EXPECT_EQ(cpu, ggml_backend_sched_get_tensor_backend(sched, mm1));
    for (int i = 0; i < ggml_graph_n_nodes(b.g); i++) {
        EXPECT_NE(NULL, ggml_backend_sched_get_tensor_backend(sched, ggml_graph_node(b.g, i)));
    }
    ggml_backend_sched_reset(sched);
    ggml_backend_sched_set_tensor_backend(sched, mm1, cpu);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    float x[K * 4], y[O * 4], ref[O * 4];
    fill(x, K * 4, 0.3f);
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_EQ(cpu, ggml_backend_sched_get_tensor_backend(sched, mm1));
    ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
    reference(&m, x, 4, ref);
    for (int i = 0; i < O * 4; i++) {
        EXPECT_LT(fabsf(y[i] - ref[i]), 1e-4f * (1.0f + fabsf(ref[i])));
    }

    ggml_backend_sched_free(sched);
    ggml_free(b.ctx);
    model_free(&m);
    ggml_backend_free(other);
    ggml_backend_free(cpu);
    ggml_backend_free(gpu);
}

// the minimal backend (no async, no synchronize, no events, no cpy_tensor,
// buffers the CPU cannot read) in a scheduler beside the CPU, pipelined:
// every copy between them falls back to the synchronous paths
TEST(sched_with_minimal_backend) {
    ggml_backend_t minb = min_backend_new();
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct model m;
    model_new(&m);
    ggml_backend_t backends[] = { minb, cpu };
    for (int parallel = 0; parallel < 2; parallel++) {
        ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, parallel, false);
        ASSERT_NE(NULL, sched);
        for (int it = 0; it < 3; it++) {
            struct built b = build_graph(&m, 3);
            struct ggml_tensor * h = b.y->src[0]->src[1]; // add(mul_mat(w1, x), b1)
            ASSERT_EQ(GGML_OP_ADD, h->op);
            ggml_backend_sched_reset(sched);
            ggml_backend_sched_set_tensor_backend(sched, h, minb);
            ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
            EXPECT_EQ(minb, ggml_backend_sched_get_tensor_backend(sched, h));
            EXPECT_GE(ggml_backend_sched_get_n_splits(sched), 3);
            float x[K * 3], y[O * 3], ref[O * 3];
            fill(x, K * 3, 0.3f * (float) (it + 1));
            ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
            ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
            ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
            reference(&m, x, 3, ref);
            for (int i = 0; i < O * 3; i++) {
                EXPECT_LT(fabsf(y[i] - ref[i]), 1e-4f * (1.0f + fabsf(ref[i]))) TH_LOG("parallel %d it %d", parallel, it);
            }
            ggml_free(b.ctx);
        }
        ggml_backend_sched_free(sched);
    }
    model_free(&m);
    ggml_backend_free(cpu);
    ggml_backend_free(minb);
}

struct eval_log {
    int n_ask;
    int n_observe;
    int cancel_at;           // observe call (1-based) that returns false; 0 = never
    bool want_all;
    const char * want_name;  // ask: true only for this node (unless want_all)
    struct ggml_tensor * asked[64];
    struct ggml_tensor * observed[64];
    bool last_ask_answer;
    struct ggml_tensor * last_asked;
    bool observe_without_ask;
    float first_value;
};

static bool eval_cb(struct ggml_tensor * t, bool ask, void * ud) {
    struct eval_log * l = ud;
    if (ask) {
        bool want = l->want_all || (l->want_name && strcmp(t->name, l->want_name) == 0);
        if (l->n_ask < 64) {
            l->asked[l->n_ask] = t;
        }
        l->n_ask++;
        l->last_ask_answer = want;
        l->last_asked = t;
        return want;
    }
    // observe: the node asked last, answered true, computed and readable
    if (l->last_asked != t || !l->last_ask_answer) {
        l->observe_without_ask = true;
    }
    if (l->n_observe < 64) {
        l->observed[l->n_observe] = t;
    }
    l->n_observe++;
    if (l->n_observe == 1) {
        ggml_backend_tensor_get(t, &l->first_value, 0, sizeof(float));
    }
    return l->cancel_at == 0 || l->n_observe < l->cancel_at;
}

TEST(sched_eval_callback_protocol) {
    struct tb_device * d = gpu_dev("EVC", true);
    ggml_backend_t gpu = tb_backend_new(d);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct model m;
    model_new(&m);
    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_t backends[] = { gpu, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false, true);
    float x[K * 3], y[O * 3], ref[O * 3];
    fill(x, K * 3, 0.7f);
    reference(&m, x, 3, ref);

    // 1. ask for every node: each is asked once, then observed, in graph order
    struct built b = build_graph(&m, 3);
    struct eval_log l;
    memset(&l, 0, sizeof(l));
    l.want_all = true;
    ggml_backend_sched_set_eval_callback(sched, eval_cb, &l);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_FALSE(l.observe_without_ask);
    EXPECT_EQ(l.n_ask, l.n_observe);
    EXPECT_GE(l.n_observe, ggml_graph_n_nodes(b.g) - 2); // views may be folded
    EXPECT_EQ(b.y, l.observed[l.n_observe - 1]);
    ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
    for (int i = 0; i < O * 3; i++) {
        EXPECT_LT(fabsf(y[i] - ref[i]), 1e-4f * (1.0f + fabsf(ref[i])));
    }

    // 2. ask for one node only: every node is asked, only that one observed,
    //    and it holds its value when observed; the graph still completes
    ggml_backend_sched_reset(sched);
    ggml_free(b.ctx);
    b = build_graph(&m, 3);
    memset(&l, 0, sizeof(l));
    l.want_name = "y";
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_FALSE(l.observe_without_ask);
    EXPECT_EQ(1, l.n_observe);
    EXPECT_EQ(b.y, l.observed[0]);
    EXPECT_EQ(ref[0], l.first_value);
    EXPECT_GE(l.n_ask, 3);

    // 3. nothing wanted: asked, never observed, results still right
    ggml_backend_sched_reset(sched);
    ggml_free(b.ctx);
    b = build_graph(&m, 3);
    memset(&l, 0, sizeof(l));
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_GT(l.n_ask, 0);
    EXPECT_EQ(0, l.n_observe);
    ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
    EXPECT_LT(fabsf(y[0] - ref[0]), 1e-4f * (1.0f + fabsf(ref[0])));

    // 4. returning false from an observation cancels the graph: no more
    //    callbacks, and the status says it did not complete
    ggml_backend_sched_reset(sched);
    ggml_free(b.ctx);
    b = build_graph(&m, 3);
    memset(&l, 0, sizeof(l));
    l.want_all = true;
    l.cancel_at = 1;
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    EXPECT_NE(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_EQ(1, l.n_observe);
    EXPECT_EQ(1, l.n_ask);

    // 5. removing the callback: plain compute again
    ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
    ggml_backend_sched_reset(sched);
    ggml_free(b.ctx);
    b = build_graph(&m, 3);
    memset(&l, 0, sizeof(l));
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
    ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
    EXPECT_EQ(0, l.n_ask);

    ggml_backend_sched_free(sched);
    ggml_free(b.ctx);
    model_free(&m);
    ggml_backend_free(cpu);
    ggml_backend_free(gpu);
}

// ---------------------------------------------------------------------------
// Events: misuse and fallbacks
// ---------------------------------------------------------------------------

TEST(event_misuse_and_fallbacks) {
    struct tb_device * da = dev_with("EA", false, true);
    struct tb_device * dn = dev_with("EN", false, false); // no events at all
    ggml_backend_t a = tb_backend_new(da);
    ggml_backend_t n = tb_backend_new(dn);
    ggml_backend_t cpu = ggml_backend_cpu_init();

    EXPECT_EQ(NULL, ggml_backend_event_new(&dn->dev));
    ggml_backend_event_t ev = ggml_backend_event_new(&da->dev);
    ASSERT_NE(NULL, ev);
    EXPECT_EQ(&da->dev, ev->device);

    // recording on the CPU backend (another device) is refused, nothing recorded
    log_start();
    ggml_backend_event_record(ev, cpu);
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "cannot be recorded"));
    EXPECT_EQ(0, da->n_event_record);

    // a backend without event_wait waits on the host instead
    ggml_backend_event_record(ev, a);
    EXPECT_EQ(1, da->n_event_record);
    ggml_backend_event_wait(cpu, ev);
    EXPECT_EQ(0, da->n_event_wait);
    ggml_backend_event_synchronize(ev);
    ggml_backend_event_free(ev);
    EXPECT_EQ(0, da->n_events_live);

    // a parallel scheduler whose backends have no events still computes
    // (the events fall back to synchronize)
    struct model m;
    model_new(&m);
    ggml_backend_t backends[] = { n, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, true, false);
    ASSERT_NE(NULL, sched);
    EXPECT_GT(ggml_backend_sched_get_n_copies(sched), 1);
    float x[K * 2], y[O * 2], ref[O * 2];
    for (int it = 0; it < 6; it++) {
        struct built b = build_graph(&m, 2);
        fill(x, K * 2, 0.2f * (float) (it + 1));
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.g));
        ggml_backend_tensor_set(b.x, x, 0, sizeof(x));
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_sched_graph_compute(sched, b.g));
        ggml_backend_tensor_get(b.y, y, 0, sizeof(y));
        reference(&m, x, 2, ref);
        for (int i = 0; i < O * 2; i++) {
            EXPECT_LT(fabsf(y[i] - ref[i]), 1e-4f * (1.0f + fabsf(ref[i])));
        }
        ggml_free(b.ctx);
    }
    ggml_backend_sched_free(sched);
    model_free(&m);
    ggml_backend_free(cpu);
    ggml_backend_free(n);
    ggml_backend_free(a);
}

static void do_event_sync_without_member(void) {
    // an event whose device cannot synchronize it: 002 asserts
    static struct ggml_backend_device dev;
    static struct ggml_backend_event ev;
    ev.device = &dev;
    ggml_backend_event_synchronize(&ev);
}

TEST(event_synchronize_without_member_asserts) {
    EXPECT_TRUE(expect_abort(do_event_sync_without_member, "event_synchronize"));
}

TEST_HARNESS_MAIN
