// SPDX-License-Identifier: MIT
//
// test-backend: buffer types, buffers, backends, events and devices through
// the public wrappers, with the documented fallbacks and misuse: size 0,
// NULL, out-of-bounds accesses, copies between every kind of buffer, events
// used with a backend of another device; the CPU backend object and device;
// graph copy and compare_graph_backend.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test-harness.h"
#include "test-log.h"
#include "testbackend.h"

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

TEST(zero_size_buffer_is_valid) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 0);
    ASSERT_NE(NULL, buf);
    EXPECT_EQ(0, ggml_backend_buffer_get_size(buf));
    EXPECT_EQ(NULL, ggml_backend_buffer_get_base(buf));
    ggml_backend_buffer_clear(buf, 0xff);
    ggml_backend_buffer_reset(buf);
    EXPECT_EQ(ggml_backend_cpu_buffer_type(), ggml_backend_buffer_get_type(buf));
    EXPECT_STREQ("CPU", ggml_backend_buffer_name(buf));
    ggml_backend_buffer_free(buf);
    ggml_backend_buffer_free(NULL);
    ggml_backend_free(NULL);
    ggml_backend_event_free(NULL);
    EXPECT_EQ(NULL, ggml_backend_event_new(NULL));
}

TEST(cpu_buffer_type_properties) {
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    EXPECT_STREQ("CPU", ggml_backend_buft_name(buft));
    EXPECT_EQ(32, ggml_backend_buft_get_alignment(buft));
    EXPECT_EQ(SIZE_MAX, ggml_backend_buft_get_max_size(buft));
    EXPECT_TRUE(ggml_backend_buft_is_host(buft));
    ggml_backend_dev_t dev = ggml_backend_buft_get_device(buft);
    ASSERT_NE(NULL, dev);
    EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_CPU, ggml_backend_dev_type(dev));

    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 100);
    ASSERT_NE(NULL, buf);
    EXPECT_EQ(0, (uintptr_t) ggml_backend_buffer_get_base(buf) % 32);
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_ANY, ggml_backend_buffer_get_usage(buf));
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(GGML_BACKEND_BUFFER_USAGE_WEIGHTS, ggml_backend_buffer_get_usage(buf));
    ggml_backend_buffer_clear(buf, 0xab);
    EXPECT_EQ(0xab, ((uint8_t *) ggml_backend_buffer_get_base(buf))[99]);
    EXPECT_FALSE(ggml_backend_buffer_is_multi_buffer(buf));
    ggml_backend_buffer_free(buf);
}

// Whether the mapping holding p has VM_HUGEPAGE ("hg" in VmFlags).
static bool vma_has_hugepage_flag(const void * p) {
    FILE * f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false, hg = false;
    if (f == NULL) {
        return false;
    }
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        // a mapping's first line: "lo-hi perms ..."; its keys follow
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = (uintptr_t) p >= lo && (uintptr_t) p < hi;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            hg = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return hg;
}

// CPU buffers (and contexts) of 2 MiB and more: 2 MiB aligned, whole huge
// pages asked for (lib/ggml-mem.c). Not under AddressSanitizer, which keeps
// them on its checked heap.
TEST(cpu_buffer_large_on_huge_pages) {
#if defined(__SANITIZE_ADDRESS__) || !defined(__linux__)
    SKIP(return, "large buffers stay on the heap under AddressSanitizer");
#else
    const size_t mib = (size_t) 1 << 20;
    const size_t sizes[] = { 2 * mib, 2 * mib + 1, 5 * mib + 100, 2 * mib - 32 };
    // whether this kernel (not an emulator's stand-in) honours the advice
    void * probe = ggml_aligned_malloc(2 * mib);
    ASSERT_NE(NULL, probe);
    bool honoured = vma_has_hugepage_flag(probe);
    ggml_aligned_free(probe, 2 * mib);
    if (!honoured) {
        TH_LOG("MADV_HUGEPAGE not visible in /proc/self/smaps: alignment checked only");
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), sizes[i]);
        ASSERT_NE(NULL, buf);
        uint8_t * base = ggml_backend_buffer_get_base(buf);
        bool large = sizes[i] >= 2 * mib;
        EXPECT_EQ(large, (uintptr_t) base % (2 * mib) == 0) TH_LOG("size %zu at %p", sizes[i], (void *) base);
        if (honoured) {
            EXPECT_EQ(large, vma_has_hugepage_flag(base)) TH_LOG("size %zu", sizes[i]);
        }
        ggml_backend_buffer_clear(buf, 0x5a);
        EXPECT_EQ(0x5a, base[0]);
        EXPECT_EQ(0x5a, base[sizes[i] - 1]);
        ggml_backend_buffer_free(buf);
    }
    // a context's own memory comes the same way
    struct ggml_init_params ip = { .mem_size = 3 * mib, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    ASSERT_NE(NULL, ctx);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) (2 * mib / 4));
    ASSERT_NE(NULL, t);
    memset(t->data, 1, ggml_nbytes(t));
    EXPECT_EQ(0, (uintptr_t) ggml_get_mem_buffer(ctx) % (2 * mib));
    ggml_free(ctx);
#endif
}

// a tensor of 16 floats in buf, with guard bytes around it
struct guarded {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * t;
    struct ggml_tensor * guard;
};

static void guarded_new(struct guarded * g, ggml_backend_buffer_type_t buft) {
    g->ctx = new_ctx();
    g->t = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, 16);
    ggml_set_name(g->t, "t");
    g->guard = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, 16);
    g->buf = ggml_backend_alloc_ctx_tensors_from_buft(g->ctx, buft);
    ggml_backend_buffer_clear(g->buf, 0x55);
}

static void guarded_free(struct guarded * g) {
    ggml_backend_buffer_free(g->buf);
    ggml_free(g->ctx);
}

static bool guard_intact(struct guarded * g) {
    uint8_t b[64];
    ggml_backend_tensor_get(g->guard, b, 0, 64);
    for (int i = 0; i < 64; i++) {
        if (b[i] != 0x55) {
            return false;
        }
    }
    return true;
}

TEST(out_of_bounds_access_is_refused) {
    struct guarded g;
    guarded_new(&g, ggml_backend_cpu_buffer_type());
    float src[32];
    for (int i = 0; i < 32; i++) {
        src[i] = (float) i;
    }
    log_start();
    ggml_backend_tensor_set(g.t, src, 0, 65);          // one byte too many
    ggml_backend_tensor_set(g.t, src, 60, 8);          // crosses the end
    ggml_backend_tensor_set(g.t, src, SIZE_MAX, 8);    // offset overflow
    ggml_backend_tensor_set(g.t, src, 8, SIZE_MAX - 4); // size overflow
    ggml_backend_tensor_memset(g.t, 0, 32, 64);
    ggml_backend_tensor_get(g.t, src, 0, 128);
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "out of bounds"));
    EXPECT_TRUE(guard_intact(&g));
    // in bounds works; size 0 is a no-op even at the end
    ggml_backend_tensor_set(g.t, src, 0, 64);
    ggml_backend_tensor_set(g.t, src, 64, 0);
    float back[16];
    ggml_backend_tensor_get(g.t, back, 0, 64);
    EXPECT_EQ(0, memcmp(src, back, 64));
    ggml_backend_tensor_memset(g.t, 0, 4, 4);
    ggml_backend_tensor_get(g.t, back, 0, 8);
    EXPECT_EQ(0.0f, back[0]);
    EXPECT_EQ(0.0f, back[1]);
    EXPECT_TRUE(guard_intact(&g));
    guarded_free(&g);
}

TEST(unallocated_tensor_access_is_refused) {
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    float v[4] = { 0 };
    log_start();
    ggml_backend_tensor_set(t, v, 0, sizeof(v));
    ggml_backend_tensor_get(t, v, 0, sizeof(v));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "no buffer"));
    ggml_free(ctx);
}

TEST(set_get_2d) {
    struct guarded g;
    guarded_new(&g, ggml_backend_cpu_buffer_type());
    float rows[6] = { 1, 2, 3, 4, 5, 6 };
    // three rows of two floats into every other pair of floats of t
    ggml_backend_tensor_set_2d(g.t, rows, 0, 8, 3, 16, 8);
    float back[16];
    ggml_backend_tensor_get(g.t, back, 0, 64);
    EXPECT_EQ(1.0f, back[0]);
    EXPECT_EQ(2.0f, back[1]);
    EXPECT_EQ(3.0f, back[4]);
    EXPECT_EQ(6.0f, back[9]);
    float out[6];
    ggml_backend_tensor_get_2d(g.t, out, 0, 8, 3, 16, 8);
    EXPECT_EQ(0, memcmp(rows, out, sizeof(out)));
    log_start();
    ggml_backend_tensor_set_2d(g.t, rows, 0, 8, 5, 16, 8); // last row past the end
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "out of bounds"));
    EXPECT_TRUE(guard_intact(&g));
    guarded_free(&g);
}

TEST(tensor_copy_between_all_kinds_of_buffers) {
    struct tb_device * dev1 = dev_with("DEV1", false, false);
    struct tb_device * dev2 = dev_with("DEV2", false, false);
    ggml_backend_buffer_type_t bufts[4] = { ggml_backend_cpu_buffer_type(), &dev1->buft, &dev1->buft, &dev2->buft };
    struct guarded g[4];
    for (int i = 0; i < 4; i++) {
        guarded_new(&g[i], bufts[i]);
    }
    float v[16];
    for (int i = 0; i < 16; i++) {
        v[i] = (float) i * 0.5f;
    }
    ggml_backend_tensor_set(g[0].t, v, 0, sizeof(v));
    ggml_backend_tensor_copy(g[0].t, g[1].t); // host -> device: set
    int cpy = dev1->n_cpy;
    ggml_backend_tensor_copy(g[1].t, g[2].t); // device -> same device: cpy_tensor
    EXPECT_EQ(cpy + 1, dev1->n_cpy);
    int get = dev1->n_get;
    ggml_backend_tensor_copy(g[2].t, g[3].t); // device -> other device: staging
    EXPECT_GT(dev1->n_get, get);
    ggml_backend_t b1 = tb_backend_new(dev1);
    ggml_backend_t b2 = tb_backend_new(dev2);
    struct guarded h;
    guarded_new(&h, ggml_backend_cpu_buffer_type());
    ggml_backend_tensor_copy_async(b2, b1, g[3].t, h.t); // no async path: falls back
    float back[16];
    ggml_backend_tensor_get(h.t, back, 0, sizeof(back));
    EXPECT_EQ(0, memcmp(v, back, sizeof(v)));
    for (int i = 0; i < 4; i++) {
        EXPECT_TRUE(guard_intact(&g[i]));
        guarded_free(&g[i]);
    }
    guarded_free(&h);
    ggml_backend_free(b1);
    ggml_backend_free(b2);
}

TEST(events_checked_per_device) {
    struct tb_device * da = dev_with("EVA", false, true);
    struct tb_device * db = dev_with("EVB", false, true);
    ggml_backend_t a = tb_backend_new(da);
    ggml_backend_t b = tb_backend_new(db);
    ggml_backend_event_t ev = ggml_backend_event_new(&da->dev);
    ASSERT_NE(NULL, ev);
    EXPECT_EQ(1, da->n_events_live);

    ggml_backend_event_record(ev, a);
    EXPECT_EQ(1, da->n_event_record);
    log_start();
    ggml_backend_event_record(ev, b); // another device: refused
    log_stop();
    EXPECT_EQ(0, db->n_event_record);
    EXPECT_NE(NULL, strstr(log_buf, "cannot be recorded"));

    ggml_backend_event_wait(a, ev);
    EXPECT_EQ(1, da->n_event_wait);
    // a backend of another device: refused (the host waits instead)
    log_start();
    ggml_backend_event_wait(b, ev);
    log_stop();
    EXPECT_EQ(0, db->n_event_wait);
    EXPECT_NE(NULL, strstr(log_buf, "cannot wait for an event of device EVA"));
    ggml_backend_event_synchronize(ev);
    ggml_backend_event_free(ev);
    EXPECT_EQ(0, da->n_events_live);

    // the CPU has no events
    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_EQ(NULL, ggml_backend_event_new(cpu_dev));
    ggml_backend_free(a);
    ggml_backend_free(b);
}

TEST(cpu_backend_and_device) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ASSERT_NE(NULL, cpu);
    EXPECT_TRUE(ggml_backend_is_cpu(cpu));
    EXPECT_STREQ("CPU", ggml_backend_name(cpu));
    EXPECT_EQ(ggml_backend_cpu_buffer_type(), ggml_backend_get_default_buffer_type(cpu));
    EXPECT_EQ(32, ggml_backend_get_alignment(cpu));
    EXPECT_EQ(SIZE_MAX, ggml_backend_get_max_size(cpu));
    ggml_backend_cpu_set_n_threads(cpu, 2);
    EXPECT_TRUE(ggml_backend_supports_buft(cpu, ggml_backend_cpu_buffer_type()));

    struct tb_device * dn = dev_with("NOHOST", false, false);
    EXPECT_FALSE(ggml_backend_supports_buft(cpu, &dn->buft));

    ggml_backend_dev_t dev = ggml_backend_get_device(cpu);
    struct ggml_backend_dev_props props;
    memset(&props, 0xff, sizeof(props));
    ggml_backend_dev_get_props(dev, &props);
    EXPECT_STREQ("CPU", props.name);
    EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_CPU, props.type);
    EXPECT_GT(props.memory_total, 0);
    EXPECT_LE(props.memory_free, props.memory_total);
    EXPECT_TRUE(props.caps.buffer_from_host_ptr);
    EXPECT_TRUE(props.caps.mmap_support);
    EXPECT_FALSE(props.caps.async);
    EXPECT_FALSE(props.caps.events);
    EXPECT_EQ(NULL, props.device_id);
    EXPECT_NE(NULL, ggml_backend_dev_description(dev));
    EXPECT_EQ(NULL, ggml_backend_dev_host_buffer_type(dev));

    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    EXPECT_EQ(ggml_backend_cpu_reg(), reg);
    EXPECT_EQ(GGML_BACKEND_API_VERSION, reg->api_version);
    ggml_backend_set_n_threads_t set_n = (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    ASSERT_NE(NULL, set_n);
    set_n(cpu, 1);
    ggml_backend_get_features_t feats = (ggml_backend_get_features_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features");
    ASSERT_NE(NULL, feats);
    struct ggml_backend_feature * f = feats(reg);
    int n = 0;
    while (f[n].name) {
        n++;
    }
    EXPECT_LT(n, 32);
    EXPECT_NE(NULL, ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback"));
    EXPECT_NE(NULL, ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_set_use_ref"));
    EXPECT_EQ(NULL, ggml_backend_reg_get_proc_address(reg, "no_such_function"));
    ggml_backend_free(cpu);
}

TEST(buffer_from_host_ptr_wraps_without_copy) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ASSERT_NE(NULL, dev);
    float * mem = aligned_alloc(64, 4096);
    for (int i = 0; i < 1024; i++) {
        mem[i] = (float) i;
    }
    ggml_backend_buffer_t buf = ggml_backend_dev_buffer_from_host_ptr(dev, mem, 4096, 4096);
    ASSERT_NE(NULL, buf);
    EXPECT_EQ(mem, ggml_backend_buffer_get_base(buf));
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t, mem + 16));
    float v[8];
    ggml_backend_tensor_get(t, v, 0, sizeof(v));
    EXPECT_EQ(16.0f, v[0]); // the caller's data, not a copy
    mem[17] = -1.0f;
    ggml_backend_tensor_get(t, v, 0, sizeof(v));
    EXPECT_EQ(-1.0f, v[1]);
    ggml_backend_buffer_free(buf); // does not free mem
    mem[0] = 1.0f;
    free(mem);
    ggml_free(ctx);

    log_start();
    EXPECT_EQ(NULL, ggml_backend_cpu_buffer_from_ptr(NULL, 16));
    struct tb_device * dn = dev_with("NOPTR", false, false);
    char small[16];
    EXPECT_EQ(NULL, ggml_backend_dev_buffer_from_host_ptr(&dn->dev, small, sizeof(small), 16));
    log_stop();
}

TEST(tensor_alloc_and_view_init) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256);
    char * base = ggml_backend_buffer_get_base(buf);
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32); // 128 bytes
    struct ggml_tensor * v = ggml_view_1d(ctx, t, 4, 16);
    log_start();
    EXPECT_EQ(GGML_STATUS_FAILED, ggml_backend_tensor_alloc(buf, t, base + 200)); // past the end
    EXPECT_EQ(GGML_STATUS_FAILED, ggml_backend_tensor_alloc(buf, t, base - 32));
    EXPECT_EQ(GGML_STATUS_FAILED, ggml_backend_view_init(v)); // source not allocated
    log_stop();
    EXPECT_EQ(NULL, t->data);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t, base + 128));
    EXPECT_EQ(buf, t->buffer);
    log_start();
    EXPECT_EQ(GGML_STATUS_FAILED, ggml_backend_tensor_alloc(buf, t, base)); // twice
    log_stop();
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_view_init(v));
    EXPECT_EQ(base + 128 + 16, (char *) v->data);
    EXPECT_EQ(buf, v->buffer);
    ggml_free(ctx);
    ggml_backend_buffer_free(buf);
}

TEST(cpu_compute_and_graph_copy_compare) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "CMP";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    struct tb_device * dt = tb_device_new(&cfg);
    ggml_backend_t tb = tb_backend_new(dt);

    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor * c = ggml_add(ctx, a, b);
    struct ggml_tensor * d = ggml_mul(ctx, c, a);
    struct ggml_tensor * e = ggml_mul_mat(ctx, a, d);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, e);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    ASSERT_NE(NULL, buf);
    float va[32], vb[32];
    for (int i = 0; i < 32; i++) {
        va[i] = (float) (i % 7) - 3.0f;
        vb[i] = (float) (i % 5) * 0.25f;
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    float vd[32];
    ggml_backend_tensor_get(d, vd, 0, sizeof(vd));
    for (int i = 0; i < 32; i++) {
        EXPECT_EQ((va[i] + vb[i]) * va[i], vd[i]);
    }

    // graph plans
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(cpu, g);
    ASSERT_NE(NULL, plan);
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_plan_compute(cpu, plan));
    ggml_backend_graph_plan_free(cpu, plan);

    // the copy on the test backend has the same data
    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(tb, g);
    ASSERT_NE(NULL, copy.buffer);
    EXPECT_EQ(ggml_graph_n_nodes(g), ggml_graph_n_nodes(copy.graph));
    float vc[32];
    ggml_backend_tensor_get(ggml_graph_node(copy.graph, 1), vc, 0, sizeof(vc));
    EXPECT_EQ(0, memcmp(vd, vc, sizeof(vc)));
    ggml_backend_graph_copy_free(copy);

    int n_cb = 0;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, g, NULL, NULL, NULL, 0));
    (void) n_cb;
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

struct cmp_state {
    int calls;
    float max_err;
};

static bool cmp_cb(int i, struct ggml_tensor * t1, struct ggml_tensor * t2, void * ud) {
    (void) i;
    struct cmp_state * st = ud;
    st->calls++;
    int64_t n = ggml_nelements(t1);
    float * x = malloc(n * sizeof(float));
    float * y = malloc(n * sizeof(float));
    ggml_backend_tensor_get(t1, x, 0, n * sizeof(float));
    ggml_backend_tensor_get(t2, y, 0, n * sizeof(float));
    for (int64_t k = 0; k < n; k++) {
        float e = fabsf(x[k] - y[k]);
        if (e > st->max_err) {
            st->max_err = e;
        }
    }
    free(x);
    free(y);
    return true;
}

TEST(compare_graph_backend_callback) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "CMP2";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_GPU;
    tb_config_ops(&cfg, tb_all_ops, TB_N_ALL_OPS);
    struct tb_device * dt = tb_device_new(&cfg);
    ggml_backend_t tb = tb_backend_new(dt);

    struct ggml_context * ctx = new_ctx();
    struct tb_rng rng = { 99 };
    struct tb_graph tg = tb_random_graph(ctx, &rng, 6, 2, 1, 20);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src == NULL && t->op == GGML_OP_NONE) {
            float v[36];
            for (int i = 0; i < 36; i++) {
                v[i] = tb_randf(&rng);
            }
            ggml_backend_tensor_set(t, v, 0, sizeof(v));
        }
    }
    struct cmp_state st = { 0, 0 };
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, tg.graph, cmp_cb, &st, NULL, 0));
    EXPECT_GT(st.calls, 0);
    EXPECT_LT(st.max_err, 1e-3f);

    // only the nodes asked for
    struct cmp_state st2 = { 0, 0 };
    const struct ggml_tensor * test_nodes[1] = { ggml_graph_node(tg.graph, -1) };
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, tb, tg.graph, cmp_cb, &st2, test_nodes, 1));
    EXPECT_EQ(1, st2.calls);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
}

static bool tb_abort_always(void * data) {
    (void) data;
    return true;
}

TEST(cpu_abort_callback) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    struct ggml_tensor * c = ggml_sqr(ctx, ggml_add(ctx, a, a));
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, c);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    ggml_backend_buffer_clear(buf, 0);
    ggml_backend_cpu_set_abort_callback(cpu, tb_abort_always, NULL);
    EXPECT_EQ(GGML_STATUS_ABORTED, ggml_backend_graph_compute(cpu, g));
    ggml_backend_cpu_set_abort_callback(cpu, NULL, NULL);
    EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
}

TEST(cpu_threadpool_and_use_ref) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 16);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 8);
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, c);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    float va[32 * 16], vb[32 * 8];
    for (int i = 0; i < 32 * 16; i++) {
        va[i] = (float) ((i * 7) % 13) / 13.0f - 0.5f;
    }
    for (int i = 0; i < 32 * 8; i++) {
        vb[i] = (float) ((i * 5) % 11) / 11.0f - 0.5f;
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));

    float r1[16 * 8], r2[16 * 8], r3[16 * 8];
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    ggml_backend_tensor_get(c, r1, 0, sizeof(r1));

    // with a threadpool of two threads
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(2);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    ASSERT_NE(NULL, tp);
    ggml_backend_cpu_set_n_threads(cpu, 2);
    ggml_backend_cpu_set_threadpool(cpu, tp);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    ggml_backend_tensor_get(c, r2, 0, sizeof(r2));
    ggml_backend_cpu_set_threadpool(cpu, NULL);
    ggml_threadpool_free(tp);

    // the scalar reference path, switched through the proc address
    void (*set_ref)(ggml_backend_t, bool) = (void (*)(ggml_backend_t, bool))
        ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_cpu_set_use_ref");
    ASSERT_NE(NULL, set_ref);
    set_ref(cpu, true);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    ggml_backend_tensor_get(c, r3, 0, sizeof(r3));
    set_ref(cpu, false);

    for (int i = 0; i < 16 * 8; i++) {
        double want = 0;
        for (int k = 0; k < 32; k++) {
            want += (double) va[(i % 16) * 32 + k] * vb[(i / 16) * 32 + k];
        }
        EXPECT_LT(fabs(r1[i] - want), 1e-4);
        EXPECT_LT(fabs(r2[i] - want), 1e-4);
        EXPECT_LT(fabs(r3[i] - want), 1e-4);
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
}

// threads of this process (/proc/self/task), waiting up to 2 s for it to
// become want: a joined thread may still be listed for a moment
static int n_tasks_settled(int want) {
    int n = -1;
    for (int tries = 0; tries < 200; tries++) {
        DIR * d = opendir("/proc/self/task");
        if (d == NULL) {
            return -1;
        }
        n = 0;
        for (struct dirent * e; (e = readdir(d)) != NULL;) {
            n += e->d_name[0] != '.';
        }
        closedir(d);
        if (n == want) {
            break;
        }
        nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
    }
    return n;
}

static void * no_op_thread(void * arg) {
    return arg;
}

// The backend keeps its worker threads between computes (starting and
// joining them per graph cost ~0.2 ms), remakes them when the thread count
// changes, gives them up for a user's threadpool and on free; results stay
// right through every switch, the plan API included.
TEST(cpu_backend_keeps_its_threads) {
    // a thread started and joined first, so that a sanitizer's own helper
    // thread (ThreadSanitizer starts one with the first thread) is counted
    // in the base
    pthread_t th;
    ASSERT_EQ(0, pthread_create(&th, NULL, no_op_thread, NULL));
    ASSERT_EQ(0, pthread_join(th, NULL));
    const int base = n_tasks_settled(-1);
    ASSERT_GT(base, 0);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4096);
    struct ggml_tensor * c = ggml_add(ctx, ggml_scale(ctx, a, 2.0f), a);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, c);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    static float va[4096], vc[4096];
    for (int i = 0; i < 4096; i++) {
        va[i] = (float) (i % 97) - 48.0f;
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));

    int bad = 0;
#define CHECK_RESULT() do { \
        ggml_backend_tensor_get(c, vc, 0, sizeof(vc)); \
        for (int i = 0; i < 4096; i++) { \
            bad += vc[i] != 3.0f * va[i]; \
        } \
        memset(vc, 0, sizeof(vc)); \
        ggml_backend_tensor_set(c, vc, 0, sizeof(vc)); \
    } while (0)

    ggml_backend_cpu_set_n_threads(cpu, 3);
    for (int r = 0; r < 20; r++) {
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
        CHECK_RESULT();
        ASSERT_EQ(base + 2, n_tasks_settled(base + 2));
    }

    // a plan made for 3 threads, computed after the count went down to 2
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(cpu, g);
    ASSERT_NE(NULL, plan);
    ggml_backend_cpu_set_n_threads(cpu, 2);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    CHECK_RESULT();
    EXPECT_EQ(base + 1, n_tasks_settled(base + 1));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_plan_compute(cpu, plan));
    CHECK_RESULT();
    EXPECT_EQ(base + 1, n_tasks_settled(base + 1));
    ggml_backend_graph_plan_free(cpu, plan);

    // one thread: no workers needed, the pool of 2 may stay
    ggml_backend_cpu_set_n_threads(cpu, 1);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    CHECK_RESULT();

    // a user's pool of 4 replaces the backend's own
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(4);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    ASSERT_NE(NULL, tp);
    ggml_backend_cpu_set_n_threads(cpu, 4);
    ggml_backend_cpu_set_threadpool(cpu, tp);
    EXPECT_EQ(base + 3, n_tasks_settled(base + 3));
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    CHECK_RESULT();
    EXPECT_EQ(base + 3, n_tasks_settled(base + 3));
    ggml_backend_cpu_set_threadpool(cpu, NULL);
    ggml_threadpool_free(tp);
    EXPECT_EQ(base, n_tasks_settled(base));

    // and back to its own, which goes with the backend
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    CHECK_RESULT();
    EXPECT_EQ(base + 3, n_tasks_settled(base + 3));
#undef CHECK_RESULT
    EXPECT_EQ(0, bad);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    EXPECT_EQ(base, n_tasks_settled(base));
}

// ggml_cplan.use_ref picks the scalar reference kernels for one compute,
// the same ones ggml_backend_cpu_set_use_ref() picks for a backend.
TEST(cplan_use_ref) {
    enum { K = 4096, M = 16 };
    struct ggml_init_params ip = { .mem_size = 1 << 20, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    ASSERT_NE(NULL, ctx);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, 1);
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, c);
    unsigned seed = 7;
    for (int i = 0; i < K * M; i++) {
        seed = seed * 1103515245u + 12345u;
        ((float *) a->data)[i] = (float) ((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    for (int i = 0; i < K; i++) {
        seed = seed * 1103515245u + 12345u;
        ((float *) b->data)[i] = (float) ((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    float fast[M], ref[M], via_backend[M];

    struct ggml_cplan plan = ggml_graph_plan(g, 1, NULL);
    EXPECT_FALSE(plan.use_ref);
    uint8_t * work = malloc(plan.work_size + 1);
    plan.work_data = work;
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_graph_compute(g, &plan));
    memcpy(fast, c->data, sizeof(fast));
    plan.use_ref = true;
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_graph_compute(g, &plan));
    memcpy(ref, c->data, sizeof(ref));
    free(work);

    ggml_backend_t cpu = ggml_backend_cpu_init();
    ASSERT_NE(NULL, cpu);
    ggml_backend_cpu_set_n_threads(cpu, 1);
    ggml_backend_cpu_set_use_ref(cpu, true);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, g));
    memcpy(via_backend, c->data, sizeof(via_backend));
    ggml_backend_free(cpu);

    // the same kernels: bit-identical
    EXPECT_EQ(0, memcmp(ref, via_backend, sizeof(ref)));
    // and not the SIMD ones, whose summation order differs somewhere in 16
    // dots of 4096 products (unless this build has none)
    const bool simd = (ggml_cpu_has_avx2() || ggml_cpu_has_neon()) && getenv("GGML_CPU_NO_SIMD") == NULL &&
                      getenv("GGML_CPU_REF") == NULL;
    if (simd) {
        EXPECT_NE(0, memcmp(ref, fast, sizeof(ref)));
    }
    for (int i = 0; i < M; i++) {
        EXPECT_LT(fabsf(ref[i] - fast[i]), 1e-3f);
    }
    ggml_free(ctx);
}

TEST_HARNESS_MAIN
