/*
 * cpu-backend.c - the CPU backend as a ggml-backend object: the backend
 * (stream), its device and its registry entry. Graph compute goes through
 * ggml_graph_plan()/ggml_graph_compute() of the CPU compute code.
 *
 * The CPU buffer types themselves live in lib/ggml-backend.c: every program
 * can use them, with or without this backend.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//
// backend (stream)
//

struct ggml_backend_cpu_context {
    int                      n_threads;
    ggml_threadpool_t        threadpool;  // set by the user, or NULL
    ggml_threadpool_t        own_pool;    // the backend's own, used when threadpool is NULL

    uint8_t *                work_data;
    size_t                   work_size;

    ggml_abort_callback      abort_callback;
    void *                   abort_callback_data;

    bool                     use_ref;
};

static ggml_guid_t ggml_backend_cpu_guid(void) {
    static ggml_guid guid = { 0x67, 0x61, 0x63, 0x63, 0x65, 0x6c, 0x2d, 0x63, 0x70, 0x75, 0x2d, 0x62, 0x61, 0x63, 0x6b, 0x31 };
    return &guid;
}

static const char * ggml_backend_cpu_get_name(ggml_backend_t backend) {
    GGML_UNUSED(backend);
    return "CPU";
}

// The pool a compute runs on: the user's (set_threadpool), else
// the backend's own, created on first use and kept, so that a compute does
// not start and join its threads each time (that cost ~0.2 ms per graph on
// two threads, more than small graphs take to compute). Its idle workers
// poll briefly, then sleep on a futex. NULL: one thread, or no pool could be
// made (ggml_graph_compute then tries a pool of its own for the call).
static ggml_threadpool_t cpu_pool(struct ggml_backend_cpu_context * ctx) {
    const int n_threads = ctx->n_threads;
    if (ctx->threadpool != NULL) {
        return ctx->threadpool;
    }
    if (n_threads <= 1) {
        return NULL;
    }
    if (ctx->own_pool != NULL && ggml_threadpool_get_n_threads(ctx->own_pool) == n_threads) {
        return ctx->own_pool;
    }
    ggml_threadpool_free(ctx->own_pool);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
    ctx->own_pool = ggml_threadpool_new(&tpp);
    return ctx->own_pool;
}

static void ggml_backend_cpu_free(ggml_backend_t backend) {
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend->context;
    ggml_threadpool_free(ctx->own_pool);
    free(ctx->work_data);
    free(ctx);
    free(backend);
}

struct ggml_backend_plan_cpu {
    struct ggml_cplan  cplan;
    struct ggml_cgraph cgraph;
};

static ggml_backend_graph_plan_t ggml_backend_cpu_graph_plan_create(ggml_backend_t backend, const struct ggml_cgraph * cgraph) {
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend->context;
    struct ggml_backend_plan_cpu * plan = (struct ggml_backend_plan_cpu *) calloc(1, sizeof(*plan));
    if (plan == NULL) {
        return NULL;
    }
    plan->cplan  = ggml_graph_plan(cgraph, ctx->n_threads, ctx->threadpool);
    plan->cgraph = *cgraph; // FIXME: deep copy
    if (plan->cplan.work_size > 0) {
        plan->cplan.work_data = (uint8_t *) malloc(plan->cplan.work_size);
        if (plan->cplan.work_data == NULL) {
            free(plan);
            return NULL;
        }
    }
    plan->cplan.abort_callback      = ctx->abort_callback;
    plan->cplan.abort_callback_data = ctx->abort_callback_data;
    return plan;
}

static void ggml_backend_cpu_graph_plan_free(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    GGML_UNUSED(backend);
    struct ggml_backend_plan_cpu * cpu_plan = (struct ggml_backend_plan_cpu *) plan;
    if (cpu_plan == NULL) {
        return;
    }
    free(cpu_plan->cplan.work_data);
    free(cpu_plan);
}

static enum ggml_status ggml_backend_cpu_graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend->context;
    struct ggml_backend_plan_cpu * cpu_plan = (struct ggml_backend_plan_cpu *) plan;
    if (cpu_plan == NULL) {
        return GGML_STATUS_FAILED;
    }
    cpu_plan->cplan.use_ref = ctx->use_ref;
    struct ggml_cplan cplan = cpu_plan->cplan;
    if (cplan.threadpool == NULL) {
        // the backend's pool follows set_n_threads; a plan made for more
        // threads than it has now gets a pool of its own for the call
        ggml_threadpool_t tp = cpu_pool(ctx);
        if (tp != NULL && ggml_threadpool_get_n_threads(tp) >= cplan.n_threads) {
            cplan.threadpool = tp;
        }
    }
    return ggml_graph_compute(&cpu_plan->cgraph, &cplan);
}

static enum ggml_status ggml_backend_cpu_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend->context;
    struct ggml_cplan cplan = ggml_graph_plan(cgraph, ctx->n_threads, cpu_pool(ctx));

    // the work buffer only grows
    if (cplan.work_size > ctx->work_size) {
        free(ctx->work_data);
        ctx->work_data = (uint8_t *) malloc(cplan.work_size);
        if (ctx->work_data == NULL) {
            ctx->work_size = 0;
            return GGML_STATUS_ALLOC_FAILED;
        }
        ctx->work_size = cplan.work_size;
    }
    cplan.work_data = ctx->work_data;

    cplan.abort_callback      = ctx->abort_callback;
    cplan.abort_callback_data = ctx->abort_callback_data;

    cplan.use_ref             = ctx->use_ref;

    return ggml_graph_compute(cgraph, &cplan);
}

static const struct ggml_backend_i ggml_backend_cpu_i = {
    /* .get_name            = */ ggml_backend_cpu_get_name,
    /* .free                = */ ggml_backend_cpu_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ NULL,
    /* .graph_plan_create   = */ ggml_backend_cpu_graph_plan_create,
    /* .graph_plan_free     = */ ggml_backend_cpu_graph_plan_free,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ ggml_backend_cpu_graph_plan_compute,
    /* .graph_compute       = */ ggml_backend_cpu_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static ggml_backend_dev_t ggml_backend_cpu_device(void);

ggml_backend_t ggml_backend_cpu_init(void) {
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) calloc(1, sizeof(*ctx));
    ggml_backend_t cpu_backend = (ggml_backend_t) calloc(1, sizeof(*cpu_backend));
    if (ctx == NULL || cpu_backend == NULL) {
        free(ctx);
        free(cpu_backend);
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    ctx->n_threads = GGML_DEFAULT_N_THREADS;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 0 && ncpu < ctx->n_threads) {
        ctx->n_threads = (int) ncpu;
    }

    cpu_backend->guid    = ggml_backend_cpu_guid();
    cpu_backend->iface   = ggml_backend_cpu_i;
    cpu_backend->device  = ggml_backend_cpu_device();
    cpu_backend->context = ctx;
    return cpu_backend;
}

bool ggml_backend_is_cpu(ggml_backend_t backend) {
    return backend != NULL && ggml_guid_matches(backend->guid, ggml_backend_cpu_guid());
}

void ggml_backend_cpu_set_n_threads(ggml_backend_t backend_cpu, int n_threads) {
    GGML_ASSERT(ggml_backend_is_cpu(backend_cpu));
    if (n_threads < 1 || n_threads > GGML_MAX_N_THREADS) {
        GGML_LOG_ERROR("%s: invalid number of threads %d (1..%d)\n", __func__, n_threads, GGML_MAX_N_THREADS);
        return;
    }
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend_cpu->context;
    ctx->n_threads = n_threads;
}

void ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool) {
    GGML_ASSERT(ggml_backend_is_cpu(backend_cpu));
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend_cpu->context;
    if (ctx->threadpool && ctx->threadpool != threadpool) {
        // the old pool is about to be replaced: let its workers sleep
        ggml_threadpool_pause(ctx->threadpool);
    }
    ctx->threadpool = threadpool;
    if (threadpool != NULL) {
        // the user's pool takes over: the backend's own threads are not needed
        ggml_threadpool_free(ctx->own_pool);
        ctx->own_pool = NULL;
    }
}

void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback, void * abort_callback_data) {
    GGML_ASSERT(ggml_backend_is_cpu(backend_cpu));
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend_cpu->context;
    ctx->abort_callback      = abort_callback;
    ctx->abort_callback_data = abort_callback_data;
}

void ggml_backend_cpu_set_use_ref(ggml_backend_t backend_cpu, bool use_ref) {
    GGML_ASSERT(ggml_backend_is_cpu(backend_cpu));
    struct ggml_backend_cpu_context * ctx = (struct ggml_backend_cpu_context *) backend_cpu->context;
    ctx->use_ref = use_ref;
}

//
// device
//

struct ggml_backend_cpu_device_context {
    char description[256];
};

static struct ggml_backend_cpu_device_context cpu_device_ctx;

static void cpu_read_description(struct ggml_backend_cpu_device_context * ctx) {
    snprintf(ctx->description, sizeof(ctx->description), "CPU");
    FILE * f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        // x86: "model name", arm64: no model name; keep "CPU" then
        if (strncmp(line, "model name", 10) == 0) {
            char * p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t') {
                    p++;
                }
                size_t n = strlen(p);
                while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == ' ')) {
                    p[--n] = '\0';
                }
                snprintf(ctx->description, sizeof(ctx->description), "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

static const char * ggml_backend_cpu_device_get_name(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return "CPU";
}

static const char * ggml_backend_cpu_device_get_description(ggml_backend_dev_t dev) {
    struct ggml_backend_cpu_device_context * ctx = (struct ggml_backend_cpu_device_context *) dev->context;
    if (ctx->description[0] == '\0') {
        cpu_read_description(ctx);
    }
    return ctx->description;
}

static void ggml_backend_cpu_device_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    GGML_UNUSED(dev);
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGE_SIZE);
    size_t t = pages > 0 && page_size > 0 ? (size_t) pages * (size_t) page_size : 0;
    size_t f = t;
    // free: MemAvailable from /proc/meminfo when readable
    FILE * fp = fopen("/proc/meminfo", "r");
    if (fp) {
        char line[256];
        while (fgets(line, sizeof(line), fp)) {
            unsigned long long kb;
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                f = (size_t) kb * 1024;
                break;
            }
        }
        fclose(fp);
    }
    if (f > t) {
        f = t;
    }
    if (free) {
        *free = f;
    }
    if (total) {
        *total = t;
    }
}

static enum ggml_backend_dev_type ggml_backend_cpu_device_get_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return GGML_BACKEND_DEVICE_TYPE_CPU;
}

static void ggml_backend_cpu_device_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = ggml_backend_cpu_device_get_name(dev);
    props->description = ggml_backend_cpu_device_get_description(dev);
    props->type        = ggml_backend_cpu_device_get_type(dev);
    props->device_id   = NULL;
    ggml_backend_cpu_device_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = false;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = true;
    props->caps.events               = false;
    props->caps.mmap_support         = true;
}

static ggml_backend_t ggml_backend_cpu_device_init_backend(ggml_backend_dev_t dev, const char * params) {
    GGML_UNUSED(dev);
    ggml_backend_t backend = ggml_backend_cpu_init();
    if (backend && params && *params) {
        // "n_threads=N" (or just "N") sets the number of threads
        const char * p = strstr(params, "n_threads=");
        p = p ? p + strlen("n_threads=") : params;
        if (isdigit((unsigned char) *p)) {
            int n = atoi(p);
            if (n > 0) {
                ggml_backend_cpu_set_n_threads(backend, n);
            }
        }
    }
    return backend;
}

static ggml_backend_buffer_type_t ggml_backend_cpu_device_get_buffer_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return ggml_backend_cpu_buffer_type();
}

static ggml_backend_buffer_t ggml_backend_cpu_device_buffer_from_host_ptr(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size) {
    GGML_UNUSED(dev);
    GGML_UNUSED(max_tensor_size);
    return ggml_backend_cpu_buffer_from_ptr(ptr, size);
}

// CPU_REPACK memory only as MUL_MAT's weights (src0, of a type stored
// repacked there and with int8 kernels for that layout on this CPU, whole
// or a view that starts at a group). Other buffers
// are left to the scheduler, which copies what the CPU cannot read.
static bool cpu_op_memory_ok(const struct ggml_tensor * op) {
    for (int i = -1; i < GGML_MAX_SRC; i++) {
        const struct ggml_tensor * t = i < 0 ? op : op->src[i];
        if (t == NULL) {
            continue;
        }
        ggml_backend_buffer_t buf = t->view_src ? t->view_src->buffer : t->buffer;
        if (buf == NULL || buf->buft != ggml_backend_cpu_repack_buffer_type()) {
            continue;
        }
        if (!(i == 0 && op->op == GGML_OP_MUL_MAT && ggml_cpu_is_repacked(t) && ggml_cpu_repack_mm_rows(t) >= 0 &&
              ggml_cpu_repack_type_fast(t->type))) {
            return false;
        }
    }
    return true;
}

static bool ggml_backend_cpu_device_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    switch (op->op) {
        case GGML_OP_NONE:
        case GGML_OP_RESHAPE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        default:
            break;
    }
    return cpu_op_memory_ok(op) && ggml_cpu_supports_op(op);
}

static bool ggml_backend_cpu_device_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(dev);
    return ggml_backend_buft_is_host(buft) || buft == ggml_backend_cpu_repack_buffer_type();
}

static const struct ggml_backend_device_i ggml_backend_cpu_device_i = {
    /* .get_name             = */ ggml_backend_cpu_device_get_name,
    /* .get_description      = */ ggml_backend_cpu_device_get_description,
    /* .get_memory           = */ ggml_backend_cpu_device_get_memory,
    /* .get_type             = */ ggml_backend_cpu_device_get_type,
    /* .get_props            = */ ggml_backend_cpu_device_get_props,
    /* .init_backend         = */ ggml_backend_cpu_device_init_backend,
    /* .get_buffer_type      = */ ggml_backend_cpu_device_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ ggml_backend_cpu_device_buffer_from_host_ptr,
    /* .supports_op          = */ ggml_backend_cpu_device_supports_op,
    /* .supports_buft        = */ ggml_backend_cpu_device_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

//
// registry
//

static const char * ggml_backend_cpu_reg_get_name(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    return "CPU";
}

static size_t ggml_backend_cpu_reg_get_device_count(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    return 1;
}

static struct ggml_backend_reg ggml_backend_cpu_reg_obj;

static struct ggml_backend_device ggml_backend_cpu_device_obj = {
    /* .iface   = */ {
        /* .get_name             = */ ggml_backend_cpu_device_get_name,
        /* .get_description      = */ ggml_backend_cpu_device_get_description,
        /* .get_memory           = */ ggml_backend_cpu_device_get_memory,
        /* .get_type             = */ ggml_backend_cpu_device_get_type,
        /* .get_props            = */ ggml_backend_cpu_device_get_props,
        /* .init_backend         = */ ggml_backend_cpu_device_init_backend,
        /* .get_buffer_type      = */ ggml_backend_cpu_device_get_buffer_type,
        /* .get_host_buffer_type = */ NULL,
        /* .buffer_from_host_ptr = */ ggml_backend_cpu_device_buffer_from_host_ptr,
        /* .supports_op          = */ ggml_backend_cpu_device_supports_op,
        /* .supports_buft        = */ ggml_backend_cpu_device_supports_buft,
        /* .offload_op           = */ NULL,
        /* .event_new            = */ NULL,
        /* .event_free           = */ NULL,
        /* .event_synchronize    = */ NULL,
    },
    /* .reg     = */ &ggml_backend_cpu_reg_obj,
    /* .context = */ &cpu_device_ctx,
};

static ggml_backend_dev_t ggml_backend_cpu_device(void) {
    (void) ggml_backend_cpu_device_i;
    return &ggml_backend_cpu_device_obj;
}

// the device of the CPU buffer types (lib/ggml-backend.c)
ggml_backend_dev_t ggml_backend_cpu_device_for_buft(void);
ggml_backend_dev_t ggml_backend_cpu_device_for_buft(void) {
    return ggml_backend_cpu_device();
}

static ggml_backend_dev_t ggml_backend_cpu_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    GGML_UNUSED(reg);
    GGML_ASSERT(index == 0);
    return ggml_backend_cpu_device();
}

static struct ggml_backend_feature * ggml_backend_cpu_get_features(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    static struct ggml_backend_feature features[32];
    static int n;
    if (n == 0) {
#define CPU_FEATURE(nm, fn) if (fn()) { features[n].name = nm; features[n].value = "1"; n++; }
        struct ggml_backend_feature * f = features;
        (void) f;
        CPU_FEATURE("SSE3", ggml_cpu_has_sse3)
        CPU_FEATURE("SSSE3", ggml_cpu_has_ssse3)
        CPU_FEATURE("AVX", ggml_cpu_has_avx)
        CPU_FEATURE("AVX_VNNI", ggml_cpu_has_avx_vnni)
        CPU_FEATURE("AVX2", ggml_cpu_has_avx2)
        CPU_FEATURE("F16C", ggml_cpu_has_f16c)
        CPU_FEATURE("FMA", ggml_cpu_has_fma)
        CPU_FEATURE("BMI2", ggml_cpu_has_bmi2)
        CPU_FEATURE("AVX512", ggml_cpu_has_avx512)
        CPU_FEATURE("AVX512_VBMI", ggml_cpu_has_avx512_vbmi)
        CPU_FEATURE("AVX512_VNNI", ggml_cpu_has_avx512_vnni)
        CPU_FEATURE("AVX512_BF16", ggml_cpu_has_avx512_bf16)
        CPU_FEATURE("AMX_INT8", ggml_cpu_has_amx_int8)
        CPU_FEATURE("NEON", ggml_cpu_has_neon)
        CPU_FEATURE("ARM_FMA", ggml_cpu_has_arm_fma)
        CPU_FEATURE("FP16_VA", ggml_cpu_has_fp16_va)
        CPU_FEATURE("DOTPROD", ggml_cpu_has_dotprod)
        CPU_FEATURE("MATMUL_INT8", ggml_cpu_has_matmul_int8)
        CPU_FEATURE("SVE", ggml_cpu_has_sve)
        CPU_FEATURE("SME", ggml_cpu_has_sme)
#undef CPU_FEATURE
        features[n].name = NULL;
        features[n].value = NULL;
        if (n == 0) {
            n = -1; // none: do not probe again
        }
    }
    return features;
}

// The extra buffer types, NULL-terminated: CPU_REPACK where this CPU has
// int8 kernels that read it (x86-64 with AVX2, arm64 with SDOT); without
// them its weights would be unpacked row by row, slower than plain ones.
static ggml_backend_buffer_type_t * ggml_backend_cpu_device_get_extra_bufts(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    static ggml_backend_buffer_type_t bufts[2];
    bufts[0] = ggml_cpu_repack_fast() ? ggml_backend_cpu_repack_buffer_type() : NULL;
    bufts[1] = NULL;
    return bufts;
}

static void * ggml_backend_cpu_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    GGML_UNUSED(reg);
    if (strcmp(name, "ggml_backend_set_n_threads") == 0) {
        ggml_backend_set_n_threads_t fn = ggml_backend_cpu_set_n_threads;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_backend_dev_get_extra_bufts") == 0) {
        ggml_backend_dev_get_extra_bufts_t fn = ggml_backend_cpu_device_get_extra_bufts;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_backend_get_features") == 0) {
        ggml_backend_get_features_t fn = ggml_backend_cpu_get_features;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_backend_set_abort_callback") == 0) {
        ggml_backend_set_abort_callback_t fn = ggml_backend_cpu_set_abort_callback;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_backend_cpu_numa_init") == 0) {
        return (void *) ggml_numa_init;
    }
    if (strcmp(name, "ggml_backend_cpu_is_numa") == 0) {
        return (void *) ggml_is_numa;
    }
    if (strcmp(name, "ggml_backend_cpu_set_use_ref") == 0) {
        void (*fn)(ggml_backend_t, bool) = ggml_backend_cpu_set_use_ref;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_threadpool_new") == 0) {
        return (void *) ggml_threadpool_new;
    }
    if (strcmp(name, "ggml_threadpool_free") == 0) {
        return (void *) ggml_threadpool_free;
    }
    if (strcmp(name, "ggml_backend_cpu_set_threadpool") == 0) {
        return (void *) ggml_backend_cpu_set_threadpool;
    }
    return NULL;
}

static struct ggml_backend_reg ggml_backend_cpu_reg_obj = {
    /* .api_version = */ GGML_BACKEND_API_VERSION,
    /* .iface       = */ {
        /* .get_name         = */ ggml_backend_cpu_reg_get_name,
        /* .get_device_count = */ ggml_backend_cpu_reg_get_device_count,
        /* .get_device       = */ ggml_backend_cpu_reg_get_device,
        /* .get_proc_address = */ ggml_backend_cpu_get_proc_address,
    },
    /* .context     = */ NULL,
};

ggml_backend_reg_t ggml_backend_cpu_reg(void) {
    return &ggml_backend_cpu_reg_obj;
}
