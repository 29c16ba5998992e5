/*
 * gaccel-buffer.c - buffers of the gaccel backend: buffer objects mapped
 * into the process, and host memory wrapped without a copy (userptr BOs).
 *
 * Both kinds are host memory the CPU reads and writes directly (is_host),
 * so the CPU backend can run the ops the engine cannot on the same bytes.
 * CPU access first waits until no job uses the buffer object.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gaccel-impl.h"
#include "ggml-impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GACCEL_BUFFER_ALIGNMENT 64

struct gaccel_buffer {
    struct gaccel_device * gdev;
    uint32_t handle;
    uint64_t bo_size;     // bytes of the buffer object
    void *   map;         // CPU address of the object's first byte
    size_t   map_size;    // bytes to munmap (0: the memory is the caller's)
    void *   base;        // what ggml sees as the buffer's base
    uint64_t base_offset; // base - map: offset of base inside the object
    bool     read_only;   // the engine may only read it
};

// ---------------------------------------------------------------------------
// buffers
// ---------------------------------------------------------------------------

void gaccel_buffer_wait_idle(ggml_backend_buffer_t buffer) {
    struct gaccel_buffer * ctx = buffer->context;
    if (ctx->gdev->n_ops == 0) {
        return; // an engine that runs nothing has no jobs to wait for
    }
    int ret = gaccel_bo_wait(ctx->gdev->fd, ctx->handle);
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: waiting for BO %u: %s\n", ctx->handle, strerror(-ret));
    }
}

static void gaccel_buffer_free(ggml_backend_buffer_t buffer) {
    struct gaccel_buffer * ctx = buffer->context;
    if (ctx->map_size) {
        munmap(ctx->map, ctx->map_size);
    }
    // Jobs still using the object hold their own reference in the kernel.
    gaccel_gem_close(ctx->gdev->fd, ctx->handle);
    free(ctx);
}

static void * gaccel_buffer_get_base(ggml_backend_buffer_t buffer) {
    struct gaccel_buffer * ctx = buffer->context;
    return ctx->base;
}

static void gaccel_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor,
                                        uint8_t value, size_t offset, size_t size) {
    gaccel_buffer_wait_idle(buffer);
    memset((char *) tensor->data + offset, value, size);
}

static void gaccel_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor,
                                     const void * data, size_t offset, size_t size) {
    gaccel_buffer_wait_idle(buffer);
    memcpy((char *) tensor->data + offset, data, size);
}

static void gaccel_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,
                                     void * data, size_t offset, size_t size) {
    gaccel_buffer_wait_idle(buffer);
    memcpy(data, (const char *) tensor->data + offset, size);
}

static bool gaccel_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src,
                                     struct ggml_tensor * dst) {
    ggml_backend_buffer_t src_buf = src->view_src ? src->view_src->buffer : src->buffer;
    if (!src_buf || !ggml_backend_buffer_is_host(src_buf)) {
        return false;
    }
    if (gaccel_buft_is_gaccel(src_buf->buft)) {
        gaccel_buffer_wait_idle(src_buf);
    }
    gaccel_buffer_wait_idle(buffer);
    memcpy(dst->data, src->data, ggml_nbytes(src));
    return true;
}

static void gaccel_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct gaccel_buffer * ctx = buffer->context;
    gaccel_buffer_wait_idle(buffer);
    memset(ctx->base, value, buffer->size);
}

static const struct ggml_backend_buffer_i gaccel_buffer_iface = {
    /* .free_buffer   = */ gaccel_buffer_free,
    /* .get_base      = */ gaccel_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ gaccel_buffer_memset_tensor,
    /* .set_tensor    = */ gaccel_buffer_set_tensor,
    /* .get_tensor    = */ gaccel_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ gaccel_buffer_cpy_tensor,
    /* .clear         = */ gaccel_buffer_clear,
    /* .reset         = */ NULL,
};

// ---------------------------------------------------------------------------
// buffer types
// ---------------------------------------------------------------------------

static const char * gaccel_buft_get_name(ggml_backend_buffer_type_t buft) {
    struct gaccel_device * gdev = buft->context;
    return buft == &gdev->buft_host ? "GACCEL_Mapped" : gdev->name;
}

static ggml_backend_buffer_t gaccel_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct gaccel_device * gdev = buft->context;
    uint32_t handle;
    uint64_t bo_size, offset;
    int ret;

    ret = gaccel_bo_create(gdev->fd, size ? size : 1, &handle, &bo_size);
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: cannot create a %zu-byte buffer object: %s\n", gdev->name, size,
                       strerror(-ret));
        return NULL;
    }
    ret = gaccel_bo_mmap_offset(gdev->fd, handle, &offset);
    void * map = MAP_FAILED;
    if (ret == 0) {
        map = mmap(NULL, bo_size, PROT_READ | PROT_WRITE, MAP_SHARED, gdev->fd, (off_t) offset);
        if (map == MAP_FAILED) {
            ret = -errno;
        }
    }
    struct gaccel_buffer * ctx = map != MAP_FAILED ? calloc(1, sizeof(*ctx)) : NULL;
    if (!ctx) {
        GGML_LOG_ERROR("gaccel: %s: cannot map a %zu-byte buffer object: %s\n", gdev->name, size,
                       strerror(ret ? -ret : ENOMEM));
        if (map != MAP_FAILED) {
            munmap(map, bo_size);
        }
        gaccel_gem_close(gdev->fd, handle);
        return NULL;
    }
    *ctx = (struct gaccel_buffer) {
        .gdev     = gdev,
        .handle   = handle,
        .bo_size  = bo_size,
        .map      = map,
        .map_size = bo_size,
        .base     = map,
    };
    return ggml_backend_buffer_init(buft, gaccel_buffer_iface, ctx, size);
}

static size_t gaccel_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return GACCEL_BUFFER_ALIGNMENT;
}

static size_t gaccel_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    struct gaccel_device * gdev = buft->context;
    return gdev->info.max_bo_size ? (size_t) gdev->info.max_bo_size : SIZE_MAX;
}

static bool gaccel_buft_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return true;
}

static const struct ggml_backend_buffer_type_i gaccel_buft_iface = {
    /* .get_name       = */ gaccel_buft_get_name,
    /* .alloc_buffer   = */ gaccel_buft_alloc_buffer,
    /* .get_alignment  = */ gaccel_buft_get_alignment,
    /* .get_max_size   = */ gaccel_buft_get_max_size,
    /* .get_alloc_size = */ NULL,
    /* .is_host        = */ gaccel_buft_is_host,
};

bool gaccel_buft_is_gaccel(ggml_backend_buffer_type_t buft) {
    return buft && buft->iface.get_name == gaccel_buft_get_name;
}

void gaccel_buffer_types_init(struct gaccel_device * gdev) {
    gdev->buft = (struct ggml_backend_buffer_type) {
        /* .iface   = */ gaccel_buft_iface,
        /* .device  = */ &gdev->dev,
        /* .context = */ gdev,
    };
    gdev->buft_host = gdev->buft;
}

// ---------------------------------------------------------------------------
// wrapping host memory
// ---------------------------------------------------------------------------

// The file behind a private (MAP_PRIVATE) file mapping overlapping
// [start, end), from /proc/self/maps, or false. A long-term pin of such
// pages breaks copy-on-write: the kernel gives the pin private copies, so
// the buffer is not zero-copy and every page counts against memlock.
static bool private_file_mapping(uintptr_t start, uintptr_t end, char * file, size_t file_size) {
    FILE * maps = fopen("/proc/self/maps", "re");
    if (!maps) {
        return false; // no /proc: nothing to say
    }
    char line[512 + 128];
    bool found = false;
    while (!found && fgets(line, sizeof(line), maps)) {
        unsigned long lo, hi, inode;
        char perms[8];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &lo, &hi, perms, &inode, &path_at) < 4 || path_at == 0) {
            continue;
        }
        if (hi <= start || lo >= end || perms[3] != 'p' || inode == 0) {
            continue;
        }
        snprintf(file, file_size, "%s", line + path_at);
        file[strcspn(file, "\n")] = '\0';
        found = true;
    }
    fclose(maps);
    return found;
}

ggml_backend_buffer_t gaccel_buffer_from_host_ptr(struct gaccel_device * gdev, void * ptr, size_t size) {
    const uintptr_t page  = (uintptr_t) sysconf(_SC_PAGESIZE);
    const uintptr_t start = (uintptr_t) ptr & ~(page - 1);
    uintptr_t end;
    uint32_t handle;
    bool read_only = false;
    int ret;

    if (!ptr || size == 0 || __builtin_add_overflow((uintptr_t) ptr, size, &end) ||
        __builtin_add_overflow(end, page - 1, &end)) {
        GGML_LOG_ERROR("gaccel: %s: cannot wrap host memory %p + %zu\n", gdev->name, ptr, size);
        return NULL;
    }
    end &= ~(page - 1);

    // Writable first; a read-only or file-backed mapping (a weights file)
    // can only be pinned for reading, and the engine then only reads it.
    ret = gaccel_bo_create_userptr(gdev->fd, start, end - start, false, &handle);
    if (ret == -EFAULT) {
        ret = gaccel_bo_create_userptr(gdev->fd, start, end - start, true, &handle);
        read_only = ret == 0;
    }
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: %s: cannot wrap %zu bytes of host memory at %p: %s%s\n", gdev->name,
                       size, ptr, strerror(-ret),
                       ret == -ENOMEM ? " (pinned memory counts against RLIMIT_MEMLOCK: raise ulimit -l)" : "");
        return NULL;
    }
    char file[512];
    if (private_file_mapping(start, end, file, sizeof(file))) {
        GGML_LOG_WARN("gaccel: %s: %zu bytes at %p map %s privately (MAP_PRIVATE): the pin copies those pages "
                      "instead of sharing the page cache; map the file MAP_SHARED for zero copy\n",
                      gdev->name, size, ptr, file);
    }
    struct gaccel_buffer * ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        gaccel_gem_close(gdev->fd, handle);
        return NULL;
    }
    *ctx = (struct gaccel_buffer) {
        .gdev        = gdev,
        .handle      = handle,
        .bo_size     = end - start,
        .map         = (void *) start,
        .map_size    = 0,
        .base        = ptr,
        .base_offset = (uintptr_t) ptr - start,
        .read_only   = read_only,
    };
    return ggml_backend_buffer_init(&gdev->buft_host, gaccel_buffer_iface, ctx, size);
}

bool gaccel_tensor_location(const struct ggml_tensor * t, uint32_t * handle, uint64_t * offset,
                            uint64_t * bo_size, bool * read_only) {
    ggml_backend_buffer_t buffer = t->view_src ? t->view_src->buffer : t->buffer;
    if (!buffer || !gaccel_buft_is_gaccel(buffer->buft) || !t->data) {
        return false;
    }
    struct gaccel_buffer * ctx = buffer->context;
    *handle    = ctx->handle;
    *offset    = (uint64_t) ((const char *) t->data - (const char *) ctx->base) + ctx->base_offset;
    *bo_size   = ctx->bo_size;
    *read_only = ctx->read_only;
    return true;
}
