/*
 * gaccel-backend.c - the gaccel registry entry, its devices, backends
 * (streams) and events.
 *
 * A backend owns a kernel queue and a timeline syncobj: each graph_compute
 * is one SUBMIT that signals the next timeline point and returns at once;
 * synchronize waits for the last point and reads the queue's error state.
 * Events are binary syncobjs that take the fence of a timeline point.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gaccel-impl.h"
#include "ggml-impl.h"
#include "ggml-gaccel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GACCEL_MAX_WAITS 8

struct gaccel_backend {
    struct gaccel_device *        gdev;
    uint32_t                      queue;
    uint32_t                      timeline;  // syncobj signalled by our jobs
    uint64_t                      submitted; // last timeline point submitted
    uint64_t                      completed; // last point waited for
    int32_t                       last_error;
    bool                          failed;    // a job failed since the last graph_compute
    bool                          warned_fallback;
    uint32_t                      waits[GACCEL_MAX_WAITS]; // event syncobjs the next job waits for
    uint32_t                      n_waits;
    struct gaccel_program_cache * cache;
    int                           n_threads; // for splits the engine refuses
    ggml_backend_t                cpu;       // which run on this CPU backend (made on first use)
};

// ---------------------------------------------------------------------------
// registry
// ---------------------------------------------------------------------------

static struct gaccel_device * g_devices;
static int                    g_n_devices;
static pthread_once_t         g_scan_once = PTHREAD_ONCE_INIT;

static const struct ggml_backend_device_i gaccel_device_iface;
static struct ggml_backend_reg            g_reg;

static void scan_devices(void) {
    int n = gaccel_scan_devices(&g_devices);
    if (n < 0) {
        GGML_LOG_ERROR("gaccel: scanning /dev/accel: %s\n", strerror(-n));
        n = 0;
    }
    for (int i = 0; i < n; i++) {
        struct gaccel_device * gdev = &g_devices[i];
        snprintf(gdev->name, sizeof(gdev->name), "%s%d", GGML_GACCEL_NAME, i);
        snprintf(gdev->description, sizeof(gdev->description), "%.32s (%s)", gdev->info.engine_name,
                 gdev->path);
        gdev->dev = (struct ggml_backend_device) {
            /* .iface   = */ gaccel_device_iface,
            /* .reg     = */ &g_reg,
            /* .context = */ gdev,
        };
        gaccel_buffer_types_init(gdev);
    }
    g_n_devices = n;
}

static const char * gaccel_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return GGML_GACCEL_NAME;
}

static size_t gaccel_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    pthread_once(&g_scan_once, scan_devices);
    return (size_t) g_n_devices;
}

static ggml_backend_dev_t gaccel_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    pthread_once(&g_scan_once, scan_devices);
    if (index >= (size_t) g_n_devices) {
        GGML_LOG_ERROR("gaccel: no device %zu (%d found)\n", index, g_n_devices);
        return NULL;
    }
    return &g_devices[index].dev;
}

static void * gaccel_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    (void) name;
    return NULL;
}

static const struct ggml_backend_reg_i gaccel_reg_iface = {
    /* .get_name         = */ gaccel_reg_get_name,
    /* .get_device_count = */ gaccel_reg_get_device_count,
    /* .get_device       = */ gaccel_reg_get_device,
    /* .get_proc_address = */ gaccel_reg_get_proc_address,
};

static struct ggml_backend_reg g_reg = {
    /* .api_version = */ GGML_BACKEND_API_VERSION,
    /* .iface       = */ gaccel_reg_iface,
    /* .context     = */ NULL,
};

ggml_backend_reg_t ggml_backend_gaccel_reg(void) {
    return &g_reg;
}

// ---------------------------------------------------------------------------
// device
// ---------------------------------------------------------------------------

static const char * gaccel_dev_get_name(ggml_backend_dev_t dev) {
    return ((struct gaccel_device *) dev->context)->name;
}

static const char * gaccel_dev_get_description(ggml_backend_dev_t dev) {
    return ((struct gaccel_device *) dev->context)->description;
}

// Free memory of a host-memory engine is what the kernel could still give.
static size_t host_available(void) {
    FILE * f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb = 0;
    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return (size_t) kb * 1024;
}

static void gaccel_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    struct gaccel_device * gdev = dev->context;
    *total    = (size_t) gdev->info.mem_size;
    *free_mem = gdev->info.mem_kind == DRM_GACCEL_MEM_HOST ? host_available() : *total;
    if (*free_mem > *total) {
        *free_mem = *total;
    }
}

// An engine working in host memory is an integrated device: llama.cpp
// offloads to IGPU (never to ACCEL) devices.
static enum ggml_backend_dev_type gaccel_dev_get_type(ggml_backend_dev_t dev) {
    struct gaccel_device * gdev = dev->context;
    return gdev->info.mem_kind == DRM_GACCEL_MEM_HOST ? GGML_BACKEND_DEVICE_TYPE_IGPU
                                                      : GGML_BACKEND_DEVICE_TYPE_GPU;
}

static void gaccel_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = gaccel_dev_get_name(dev);
    props->description = gaccel_dev_get_description(dev);
    props->type        = gaccel_dev_get_type(dev);
    props->device_id   = NULL;
    gaccel_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps = (struct ggml_backend_dev_caps) {
        .async                = true,
        .host_buffer          = false,
        .buffer_from_host_ptr = true,
        .events               = true,
        .mmap_support         = true,
    };
}

static ggml_backend_buffer_type_t gaccel_dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &((struct gaccel_device *) dev->context)->buft;
}

static ggml_backend_buffer_t gaccel_dev_buffer_from_host_ptr(ggml_backend_dev_t dev, void * ptr, size_t size,
                                                             size_t max_tensor_size) {
    (void) max_tensor_size;
    return gaccel_buffer_from_host_ptr(dev->context, ptr, size);
}

static bool gaccel_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    return gaccel_supports_op(dev->context, op);
}

static bool gaccel_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return gaccel_buft_is_gaccel(buft) && buft->device == dev;
}

// Weights in host memory move to the engine for the big ops only: a
// matrix product is worth a submit, an element-wise op is not.
static bool gaccel_dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    return op->op == GGML_OP_MUL_MAT && gaccel_supports_op(dev->context, op);
}

// ---- events ----

static ggml_backend_event_t gaccel_dev_event_new(ggml_backend_dev_t dev) {
    struct gaccel_device * gdev = dev->context;
    uint32_t handle;
    int ret = gaccel_syncobj_create(gdev->fd, true, &handle);
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: cannot create a syncobj: %s\n", gdev->name, strerror(-ret));
        return NULL;
    }
    struct ggml_backend_event * ev = calloc(1, sizeof(*ev));
    if (!ev) {
        gaccel_syncobj_destroy(gdev->fd, handle);
        return NULL;
    }
    ev->device  = dev;
    ev->context = (void *) (uintptr_t) handle;
    return ev;
}

static uint32_t event_handle(ggml_backend_event_t ev) {
    return (uint32_t) (uintptr_t) ev->context;
}

static void gaccel_dev_event_free(ggml_backend_dev_t dev, ggml_backend_event_t ev) {
    struct gaccel_device * gdev = dev->context;
    if (ev) {
        gaccel_syncobj_destroy(gdev->fd, event_handle(ev));
        free(ev);
    }
}

static void gaccel_dev_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t ev) {
    struct gaccel_device * gdev = dev->context;
    int ret = gaccel_syncobj_wait(gdev->fd, event_handle(ev), 0);
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: waiting for an event: %s\n", gdev->name, strerror(-ret));
    }
}

static ggml_backend_t gaccel_dev_init_backend(ggml_backend_dev_t dev, const char * params);

static const struct ggml_backend_device_i gaccel_device_iface = {
    /* .get_name             = */ gaccel_dev_get_name,
    /* .get_description      = */ gaccel_dev_get_description,
    /* .get_memory           = */ gaccel_dev_get_memory,
    /* .get_type             = */ gaccel_dev_get_type,
    /* .get_props            = */ gaccel_dev_get_props,
    /* .init_backend         = */ gaccel_dev_init_backend,
    /* .get_buffer_type      = */ gaccel_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ gaccel_dev_buffer_from_host_ptr,
    /* .supports_op          = */ gaccel_dev_supports_op,
    /* .supports_buft        = */ gaccel_dev_supports_buft,
    /* .offload_op           = */ gaccel_dev_offload_op,
    /* .event_new            = */ gaccel_dev_event_new,
    /* .event_free           = */ gaccel_dev_event_free,
    /* .event_synchronize    = */ gaccel_dev_event_synchronize,
};

// ---------------------------------------------------------------------------
// backend
// ---------------------------------------------------------------------------

static ggml_guid_t gaccel_guid(void) {
    static ggml_guid guid = { 0x67, 0x61, 0x63, 0x63, 0x65, 0x6c, 0x2d, 0x62,
                              0x61, 0x63, 0x6b, 0x65, 0x6e, 0x64, 0x00, 0x01 };
    return &guid;
}

static const char * gaccel_backend_get_name(ggml_backend_t backend) {
    struct gaccel_backend * ctx = backend->context;
    return ctx->gdev->name;
}

static int queue_create(struct gaccel_backend * ctx) {
    struct drm_gaccel_queue_create args = { .priority = DRM_GACCEL_QUEUE_PRIORITY_NORMAL };
    int ret = gaccel_ioctl(ctx->gdev->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &args);
    ctx->queue = ret == 0 ? args.handle : 0;
    return ret;
}

static void queue_destroy(struct gaccel_backend * ctx) {
    if (ctx->queue) {
        struct drm_gaccel_queue_destroy args = { .handle = ctx->queue };
        gaccel_ioctl(ctx->gdev->fd, DRM_IOCTL_GACCEL_QUEUE_DESTROY, &args);
        ctx->queue = 0;
    }
}

// Wait for every submitted job; a job that failed or timed out is logged
// and makes the next graph_compute report GGML_STATUS_FAILED.
static void gaccel_backend_synchronize(ggml_backend_t backend) {
    struct gaccel_backend * ctx = backend->context;
    if (ctx->completed == ctx->submitted) {
        return;
    }
    int ret = gaccel_syncobj_wait(ctx->gdev->fd, ctx->timeline, ctx->submitted);
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: waiting for jobs: %s\n", ctx->gdev->name, strerror(-ret));
        ctx->failed = true;
    }
    ctx->completed = ctx->submitted;

    struct drm_gaccel_queue_get_state st = { .handle = ctx->queue };
    if (gaccel_ioctl(ctx->gdev->fd, DRM_IOCTL_GACCEL_QUEUE_GET_STATE, &st) == 0 &&
        (st.state & (DRM_GACCEL_QUEUE_STATE_TIMEDOUT | DRM_GACCEL_QUEUE_STATE_FAULT)) &&
        st.last_error != ctx->last_error) {
        GGML_LOG_ERROR("gaccel: %s: a job %s: %s\n", ctx->gdev->name,
                       st.state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT ? "timed out" : "failed",
                       strerror(-st.last_error));
        ctx->last_error = st.last_error;
        ctx->failed     = true;
        if (st.state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT) {
            // a timed-out queue refuses further jobs: start a new one
            queue_destroy(ctx);
            ctx->last_error = 0;
            if (queue_create(ctx) != 0) {
                GGML_LOG_ERROR("gaccel: %s: cannot create a new queue\n", ctx->gdev->name);
            }
        }
    }
}

static void gaccel_backend_free(ggml_backend_t backend) {
    struct gaccel_backend * ctx = backend->context;
    gaccel_backend_synchronize(backend);
    gaccel_program_cache_free(ctx->cache);
    queue_destroy(ctx);
    if (ctx->timeline) {
        gaccel_syncobj_destroy(ctx->gdev->fd, ctx->timeline);
    }
    ggml_backend_free(ctx->cpu);
    free(ctx);
    free(backend);
}

// The split the engine cannot take runs on the CPU, on the same memory:
// every gaccel buffer is mapped host memory. A refused split is refused
// every time; a CPU backend of our own keeps its threads and work buffer
// between those computes. It is the CPU device of the process's registry,
// not a direct call into the CPU backend: loaded as a module by another
// ggml (upstream's loader), this library uses that ggml's CPU backend.
static enum ggml_status compute_on_cpu(struct gaccel_backend * ctx, struct ggml_cgraph * cgraph) {
    if (ctx->cpu == NULL) {
        ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        if (cpu_dev == NULL) {
            GGML_LOG_ERROR("gaccel: a split needs the CPU and no CPU backend is registered\n");
            return GGML_STATUS_FAILED;
        }
        ctx->cpu = ggml_backend_dev_init(cpu_dev, NULL);
        if (ctx->cpu == NULL) {
            return GGML_STATUS_ALLOC_FAILED;
        }
        ggml_backend_set_n_threads_t set_n_threads = (ggml_backend_set_n_threads_t)
            ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(cpu_dev), "ggml_backend_set_n_threads");
        if (set_n_threads != NULL) {
            set_n_threads(ctx->cpu, ctx->n_threads);
        }
    }
    return ggml_backend_graph_compute(ctx->cpu, cgraph);
}

static enum ggml_status gaccel_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct gaccel_backend * ctx = backend->context;

    if (ctx->failed) {
        // the error of an earlier, asynchronous job surfaces here
        ctx->failed = false;
        return GGML_STATUS_FAILED;
    }

    int n_compute = 0;
    for (int i = 0; i < ggml_graph_n_nodes(cgraph); i++) {
        const struct ggml_tensor * t = ggml_graph_node(cgraph, i);
        n_compute += !gaccel_is_descriptor_op(t->op) && (t->flags & GGML_TENSOR_FLAG_COMPUTE);
    }
    if (n_compute == 0) {
        return GGML_STATUS_SUCCESS;
    }

    const char * why = "no queue";
    const struct gaccel_program * prog = ctx->queue ? gaccel_program_get(ctx->cache, cgraph, &why) : NULL;
    if (!prog) {
        // correct results first: say it once, then compute on the CPU
        if (!ctx->warned_fallback) {
            GGML_LOG_WARN("gaccel: %s: computing a %d-node split on the CPU: %s\n", ctx->gdev->name,
                          n_compute, why);
            ctx->warned_fallback = true;
        }
        gaccel_backend_synchronize(backend);
        for (uint32_t i = 0; i < ctx->n_waits; i++) {
            gaccel_syncobj_wait(ctx->gdev->fd, ctx->waits[i], 0);
        }
        ctx->n_waits = 0;
        return compute_on_cpu(ctx, cgraph);
    }

    struct drm_gaccel_sync syncs[GACCEL_MAX_WAITS + 1];
    uint32_t n_syncs = 0;
    for (uint32_t i = 0; i < ctx->n_waits; i++) {
        syncs[n_syncs++] = (struct drm_gaccel_sync) { .handle = ctx->waits[i] };
    }
    syncs[n_syncs++] = (struct drm_gaccel_sync) {
        .flags  = DRM_GACCEL_SYNC_SIGNAL | DRM_GACCEL_SYNC_TIMELINE,
        .handle = ctx->timeline,
        .point  = ctx->submitted + 1,
    };
    struct drm_gaccel_job job = {
        .graph    = prog->graph,
        .bindings = { sizeof(struct drm_gaccel_binding), prog->n_bindings, (uintptr_t) prog->bindings },
        .syncs    = { sizeof(struct drm_gaccel_sync), n_syncs, (uintptr_t) syncs },
    };
    struct drm_gaccel_submit submit = {
        .queue = ctx->queue,
        .jobs  = { sizeof(job), 1, (uintptr_t) &job },
    };
    // The kernel bounds the jobs a file and a queue have in flight (QUERY
    // LIMITS); past them SUBMIT says EAGAIN. Wait rather than spin: for this
    // backend's own jobs first, then in short sleeps for those of other
    // backends sharing the file.
    int ret;
    while ((ret = gaccel_ioctl_once(ctx->gdev->fd, DRM_IOCTL_GACCEL_SUBMIT, &submit)) == -EAGAIN) {
        GGML_LOG_DEBUG("gaccel: %s: jobs in flight at the file's or queue's limit, waiting\n",
                       ctx->gdev->name);
        if (ctx->completed != ctx->submitted) {
            gaccel_backend_synchronize(backend);
        } else {
            nanosleep(&(struct timespec) { .tv_nsec = 1000000 }, NULL);
        }
    }
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: SUBMIT failed: %s\n", ctx->gdev->name, strerror(-ret));
        return GGML_STATUS_FAILED;
    }
    ctx->n_waits = 0;
    ctx->submitted++;
    return GGML_STATUS_SUCCESS;
}

static void gaccel_backend_event_record(ggml_backend_t backend, ggml_backend_event_t ev) {
    struct gaccel_backend * ctx = backend->context;
    int ret = ctx->submitted ? gaccel_syncobj_transfer(ctx->gdev->fd, event_handle(ev), ctx->timeline, ctx->submitted)
                             : gaccel_syncobj_signal(ctx->gdev->fd, event_handle(ev));
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: recording an event: %s\n", ctx->gdev->name, strerror(-ret));
    }
}

static void gaccel_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t ev) {
    struct gaccel_backend * ctx = backend->context;
    if (ctx->n_waits < GACCEL_MAX_WAITS) {
        ctx->waits[ctx->n_waits++] = event_handle(ev); // the next job waits in the kernel
    } else {
        gaccel_dev_event_synchronize(ev->device, ev);
    }
}

static const struct ggml_backend_i gaccel_backend_iface = {
    /* .get_name            = */ gaccel_backend_get_name,
    /* .free                = */ gaccel_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ gaccel_backend_synchronize,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ gaccel_backend_graph_compute,
    /* .event_record        = */ gaccel_backend_event_record,
    /* .event_wait          = */ gaccel_backend_event_wait,
    /* .graph_optimize      = */ NULL,
};

static ggml_backend_t gaccel_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    struct gaccel_device * gdev = dev->context;
    struct gaccel_backend * ctx = calloc(1, sizeof(*ctx));
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (!ctx || !backend) {
        free(ctx);
        free(backend);
        return NULL;
    }
    ctx->gdev      = gdev;
    ctx->n_threads = (int) sysconf(_SC_NPROCESSORS_ONLN);
    ctx->cache     = gaccel_program_cache_new(gdev);
    int ret = ctx->cache ? gaccel_syncobj_create(gdev->fd, false, &ctx->timeline) : -ENOMEM;
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: cannot create a timeline syncobj: %s\n", gdev->name, strerror(-ret));
        gaccel_program_cache_free(ctx->cache);
        free(ctx);
        free(backend);
        return NULL;
    }
    // An engine that runs nothing needs no queue: every split then runs on
    // the CPU (supports_op keeps the scheduler from sending any).
    if (gdev->n_ops && (ret = queue_create(ctx)) != 0) {
        GGML_LOG_WARN("gaccel: %s: no queue (%s); computing on the CPU\n", gdev->name, strerror(-ret));
    }
    *backend = (struct ggml_backend) {
        /* .guid    = */ gaccel_guid(),
        /* .iface   = */ gaccel_backend_iface,
        /* .device  = */ dev,
        /* .context = */ ctx,
    };
    return backend;
}

ggml_backend_t ggml_backend_gaccel_init(size_t device) {
    ggml_backend_dev_t dev = gaccel_reg_get_device(&g_reg, device);
    return dev ? gaccel_dev_init_backend(dev, NULL) : NULL;
}

bool ggml_backend_is_gaccel(ggml_backend_t backend) {
    return backend && ggml_guid_matches(backend->guid, gaccel_guid());
}
