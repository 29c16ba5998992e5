/*
 * gaccel-impl.h - internals of the gaccel backend.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_GACCEL_IMPL_H
#define GGML_GACCEL_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ggml-backend-impl.h"
#include "drm/gaccel_accel.h"

// One gaccel node. GEM handles and syncobjs belong to an open file, so
// every buffer, backend and event of the device shares this one fd.
struct gaccel_device {
    int    fd;
    int    index;                       // position among gaccel devices
    char   path[64];                    // /dev/accel/accelN
    char   name[24];                    // GACCEL<index>
    char   description[128];
    struct drm_gaccel_device_info info;

    // what the engine runs, from QUERY OPS (empty with an older driver)
    struct drm_gaccel_op_info * ops;
    uint32_t                    n_ops;

    struct ggml_backend_buffer_type buft;      // buffer objects
    struct ggml_backend_buffer_type buft_host; // wrapped host memory (userptr)
    struct ggml_backend_device      dev;
};

// ---- gaccel-dev.c: devices and ioctls ----------------------------------------

int  gaccel_ioctl(int fd, unsigned long request, void * arg); // 0 or -errno
int  gaccel_ioctl_once(int fd, unsigned long request, void * arg); // EINTR retried, EAGAIN returned
int  gaccel_scan_devices(struct gaccel_device ** out);        // count, or -errno

int  gaccel_bo_create(int fd, uint64_t size, uint32_t * handle, uint64_t * real_size);
int  gaccel_bo_create_userptr(int fd, uint64_t ptr, uint64_t size, bool read_only, uint32_t * handle);
int  gaccel_bo_mmap_offset(int fd, uint32_t handle, uint64_t * offset);
int  gaccel_bo_wait(int fd, uint32_t handle);
void gaccel_gem_close(int fd, uint32_t handle);

int  gaccel_syncobj_create(int fd, bool signaled, uint32_t * handle);
void gaccel_syncobj_destroy(int fd, uint32_t handle);
int  gaccel_syncobj_wait(int fd, uint32_t handle, uint64_t point); // point 0: binary
int  gaccel_syncobj_signal(int fd, uint32_t handle);
int  gaccel_syncobj_transfer(int fd, uint32_t dst, uint32_t src, uint64_t src_point);

// ---- gaccel-buffer.c ---------------------------------------------------------

void gaccel_buffer_types_init(struct gaccel_device * gdev);
ggml_backend_buffer_t gaccel_buffer_from_host_ptr(struct gaccel_device * gdev, void * ptr, size_t size);
bool gaccel_buft_is_gaccel(ggml_backend_buffer_type_t buft);

// Where a tensor lives for the engine: the BO and the byte offset in it.
bool gaccel_tensor_location(const struct ggml_tensor * t, uint32_t * handle, uint64_t * offset,
                            uint64_t * bo_size, bool * read_only);
// Wait until no job uses the buffer's BO (before CPU access).
void gaccel_buffer_wait_idle(ggml_backend_buffer_t buffer);

// ---- gaccel-graph.c ----------------------------------------------------------

// Views, reshapes, permutes, transposes and NONE: descriptors, not compute.
bool gaccel_is_descriptor_op(enum ggml_op op);

// Whether the engine runs this node (op, dtypes, shapes).
bool gaccel_supports_op(const struct gaccel_device * gdev, const struct ggml_tensor * op);

struct gaccel_program_cache;
struct gaccel_program_cache * gaccel_program_cache_new(struct gaccel_device * gdev);
void gaccel_program_cache_free(struct gaccel_program_cache * cache);

// A compiled program for a graph: the kernel graph handle and the BO
// bindings of its slots. Owned by the cache.
struct gaccel_program {
    uint32_t                    graph;
    uint32_t                    n_bindings;
    struct drm_gaccel_binding * bindings;
};

// Compile (or find) the program for cgraph. NULL when the engine cannot
// run it, with the reason in *why.
const struct gaccel_program * gaccel_program_get(struct gaccel_program_cache * cache,
                                                 const struct ggml_cgraph * cgraph, const char ** why);

#endif // GGML_GACCEL_IMPL_H
