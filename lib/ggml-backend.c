/*
 * ggml-backend.c - buffer types, buffers, backends, events, devices and the
 * backend utilities (graph copy, compare, tensor alloc, view init), plus the
 * CPU buffer types every program can use.
 *
 * The wrappers check what the interface tables leave optional and fall back
 * as ggml-backend-impl.h documents. Caller mistakes that upstream asserts
 * (NULL handles, layout mismatches) still assert; out-of-bounds accesses and
 * events used with a backend of another device are refused with an error
 * message and no memory is touched.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"
#include "ggml-backend-hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//
// buffer type
//

const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(buft);
    return buft->iface.get_name(buft);
}

ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    GGML_ASSERT(buft);
    if (size == 0) {
        // a valid buffer that holds nothing: freeing it and querying it work
        struct ggml_backend_buffer_i empty;
        memset(&empty, 0, sizeof(empty));
        return ggml_backend_buffer_init(buft, empty, NULL, 0);
    }
    return buft->iface.alloc_buffer(buft, size);
}

size_t ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(buft);
    return buft->iface.get_alignment(buft);
}

size_t ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(buft);
    if (buft->iface.get_max_size) {
        return buft->iface.get_max_size(buft);
    }
    return SIZE_MAX;
}

size_t ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    GGML_ASSERT(buft);
    if (buft->iface.get_alloc_size) {
        size_t size = buft->iface.get_alloc_size(buft, tensor);
        GGML_ASSERT(size >= ggml_nbytes(tensor));
        return size;
    }
    return ggml_nbytes(tensor);
}

bool ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(buft);
    if (buft->iface.is_host) {
        return buft->iface.is_host(buft);
    }
    return false;
}

ggml_backend_dev_t ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(buft);
    return buft->device;
}

//
// buffer
//

ggml_backend_buffer_t ggml_backend_buffer_init(
               ggml_backend_buffer_type_t buft,
        struct ggml_backend_buffer_i      iface,
               void *                     context,
               size_t                     size) {
    ggml_backend_buffer_t buffer = (ggml_backend_buffer_t) calloc(1, sizeof(*buffer));
    if (!buffer) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    buffer->iface   = iface;
    buffer->buft    = buft;
    buffer->context = context;
    buffer->size    = size;
    buffer->usage   = GGML_BACKEND_BUFFER_USAGE_ANY;
    return buffer;
}

const char * ggml_backend_buffer_name(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_name(ggml_backend_buffer_get_type(buffer));
}

void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        return;
    }
    if (buffer->iface.free_buffer != NULL) {
        buffer->iface.free_buffer(buffer);
    }
    free(buffer);
}

size_t ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer) {
    GGML_ASSERT(buffer);
    return buffer->size;
}

void * ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer) {
    GGML_ASSERT(buffer);
    // get_base is optional when the buffer has size 0 (and for multi-buffers)
    if (buffer->size == 0 || buffer->iface.get_base == NULL) {
        return NULL;
    }
    void * base = buffer->iface.get_base(buffer);
    GGML_ASSERT(base != NULL && "backend buffer base cannot be NULL");
    return base;
}

enum ggml_status ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    GGML_ASSERT(buffer);
    if (buffer->iface.init_tensor) {
        return buffer->iface.init_tensor(buffer, tensor);
    }
    return GGML_STATUS_SUCCESS;
}

void ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    GGML_ASSERT(buffer);
    if (buffer->size == 0 || buffer->iface.clear == NULL) {
        return;
    }
    buffer->iface.clear(buffer, value);
}

size_t ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_alignment(ggml_backend_buffer_get_type(buffer));
}

size_t ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_max_size(ggml_backend_buffer_get_type(buffer));
}

size_t ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor) {
    return ggml_backend_buft_get_alloc_size(ggml_backend_buffer_get_type(buffer), tensor);
}

bool ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_is_host(ggml_backend_buffer_get_type(buffer));
}

void ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    GGML_ASSERT(buffer);
    buffer->usage = usage;
    // a multi-buffer passes the usage on to the buffers it holds
    if (ggml_backend_buffer_is_multi_buffer(buffer)) {
        ggml_backend_multi_buffer_set_usage(buffer, usage);
    }
}

enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer) {
    GGML_ASSERT(buffer);
    return buffer->usage;
}

ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer) {
    GGML_ASSERT(buffer);
    return buffer->buft;
}

void ggml_backend_buffer_reset(ggml_backend_buffer_t buffer) {
    GGML_ASSERT(buffer);
    if (buffer->iface.reset) {
        buffer->iface.reset(buffer);
    }
}

bool ggml_backend_buffer_copy_tensor(const struct ggml_tensor * src, struct ggml_tensor * dst) {
    ggml_backend_buffer_t dst_buf = dst->view_src ? dst->view_src->buffer : dst->buffer;
    if (dst_buf && dst_buf->iface.cpy_tensor) {
        return dst_buf->iface.cpy_tensor(dst_buf, src, dst);
    }
    return false;
}

//
// multi-buffer: one handle for several buffers (from ggml_backend_alloc_ctx_tensors
// when a context does not fit one buffer of the type's max size)
//

struct ggml_backend_multi_buffer_context {
    ggml_backend_buffer_t * buffers;
    size_t n_buffers;
};

static void ggml_backend_multi_buffer_free_buffer(ggml_backend_buffer_t buffer) {
    struct ggml_backend_multi_buffer_context * ctx = (struct ggml_backend_multi_buffer_context *) buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_free(ctx->buffers[i]);
    }
    free(ctx->buffers);
    free(ctx);
}

static void ggml_backend_multi_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct ggml_backend_multi_buffer_context * ctx = (struct ggml_backend_multi_buffer_context *) buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_clear(ctx->buffers[i], value);
    }
}

static const struct ggml_backend_buffer_i ggml_backend_multi_buffer_i = {
    /* .free_buffer   = */ ggml_backend_multi_buffer_free_buffer,
    /* .get_base      = */ NULL,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ NULL,
    /* .set_tensor    = */ NULL,
    /* .get_tensor    = */ NULL,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ ggml_backend_multi_buffer_clear,
    /* .reset         = */ NULL,
};

ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers) {
    GGML_ASSERT(buffers != NULL && n_buffers > 0);
    struct ggml_backend_multi_buffer_context * ctx = (struct ggml_backend_multi_buffer_context *) calloc(1, sizeof(*ctx));
    ggml_backend_buffer_t * copy = (ggml_backend_buffer_t *) malloc(n_buffers * sizeof(*copy));
    if (!ctx || !copy) {
        free(ctx);
        free(copy);
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    memcpy(copy, buffers, n_buffers * sizeof(*copy));
    ctx->buffers   = copy;
    ctx->n_buffers = n_buffers;

    size_t total_size = 0;
    for (size_t i = 0; i < n_buffers; i++) {
        total_size += ggml_backend_buffer_get_size(buffers[i]);
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buffers[0]->buft, ggml_backend_multi_buffer_i, ctx, total_size);
    if (!buffer) {
        free(copy);
        free(ctx);
    }
    return buffer;
}

bool ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer) {
    return buffer->iface.free_buffer == ggml_backend_multi_buffer_free_buffer;
}

void ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    GGML_ASSERT(ggml_backend_buffer_is_multi_buffer(buffer));
    struct ggml_backend_multi_buffer_context * ctx = (struct ggml_backend_multi_buffer_context *) buffer->context;
    buffer->usage = usage;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_set_usage(ctx->buffers[i], usage);
    }
}

//
// backend (stream)
//

ggml_guid_t ggml_backend_guid(ggml_backend_t backend) {
    if (backend == NULL) {
        return NULL;
    }
    return backend->guid;
}

const char * ggml_backend_name(ggml_backend_t backend) {
    if (backend == NULL) {
        return "NULL";
    }
    return backend->iface.get_name(backend);
}

void ggml_backend_free(ggml_backend_t backend) {
    if (backend == NULL) {
        return;
    }
    backend->iface.free(backend);
}

ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend) {
    GGML_ASSERT(backend);
    return ggml_backend_dev_buffer_type(backend->device);
}

ggml_backend_buffer_t ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size) {
    return ggml_backend_buft_alloc_buffer(ggml_backend_get_default_buffer_type(backend), size);
}

size_t ggml_backend_get_alignment(ggml_backend_t backend) {
    return ggml_backend_buft_get_alignment(ggml_backend_get_default_buffer_type(backend));
}

size_t ggml_backend_get_max_size(ggml_backend_t backend) {
    return ggml_backend_buft_get_max_size(ggml_backend_get_default_buffer_type(backend));
}

// The checks shared by every tensor data access: the tensor is allocated and
// [offset, offset + size) lies inside it. Returns false (with a message) when
// the access must not happen.
static bool tensor_access_ok(const char * func, const struct ggml_tensor * tensor, size_t offset, size_t size) {
    GGML_ASSERT(tensor);
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    if (buf == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' has no buffer\n", func, tensor->name);
        return false;
    }
    if (tensor->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is not allocated\n", func, tensor->name);
        return false;
    }
    size_t nbytes = ggml_nbytes(tensor);
    if (offset > nbytes || size > nbytes - offset) {
        GGML_LOG_ERROR("%s: access out of bounds of tensor '%s': offset %zu + size %zu > %zu bytes; nothing copied\n",
                       func, tensor->name, offset, size, nbytes);
        return false;
    }
    return true;
}

void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    GGML_ASSERT(backend);
    if (size == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, tensor, offset, size)) {
        return;
    }
    if (backend->iface.set_tensor_async == NULL) {
        ggml_backend_synchronize(backend);
        ggml_backend_tensor_set(tensor, data, offset, size);
    } else {
        backend->iface.set_tensor_async(backend, tensor, data, offset, size);
    }
}

void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    GGML_ASSERT(backend);
    if (size == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, tensor, offset, size)) {
        return;
    }
    if (backend->iface.get_tensor_async == NULL) {
        ggml_backend_synchronize(backend);
        ggml_backend_tensor_get(tensor, data, offset, size);
    } else {
        backend->iface.get_tensor_async(backend, tensor, data, offset, size);
    }
}

// the last byte a 2d access touches must lie inside the tensor
static bool tensor_access_2d_ok(const char * func, const struct ggml_tensor * tensor, size_t offset, size_t size,
                                size_t n_copies, size_t stride_tensor) {
    if (n_copies == 0 || size == 0) {
        return tensor_access_ok(func, tensor, 0, 0);
    }
    if (stride_tensor != 0 && (n_copies - 1) > (SIZE_MAX - offset - size) / stride_tensor) {
        GGML_LOG_ERROR("%s: 2d access size overflows\n", func);
        return false;
    }
    return tensor_access_ok(func, tensor, offset, (n_copies - 1) * stride_tensor + size);
}

void ggml_backend_tensor_set_2d_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size,
                                      size_t n_copies, size_t stride_tensor, size_t stride_data) {
    GGML_ASSERT(backend);
    if (size == 0 || n_copies == 0) {
        return;
    }
    if (!tensor_access_2d_ok(__func__, tensor, offset, size, n_copies, stride_tensor)) {
        return;
    }
    if (backend->iface.set_tensor_2d_async == NULL) {
        for (size_t i = 0; i < n_copies; i++) {
            ggml_backend_tensor_set_async(backend, tensor, (const char *) data + i * stride_data, offset + i * stride_tensor, size);
        }
        return;
    }
    backend->iface.set_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
}

void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size,
                                      size_t n_copies, size_t stride_tensor, size_t stride_data) {
    GGML_ASSERT(backend);
    if (size == 0 || n_copies == 0) {
        return;
    }
    if (!tensor_access_2d_ok(__func__, tensor, offset, size, n_copies, stride_tensor)) {
        return;
    }
    if (backend->iface.get_tensor_2d_async == NULL) {
        for (size_t i = 0; i < n_copies; i++) {
            ggml_backend_tensor_get_async(backend, tensor, (char *) data + i * stride_data, offset + i * stride_tensor, size);
        }
        return;
    }
    backend->iface.get_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
}

void ggml_backend_tensor_set(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    GGML_ASSERT(tensor);
    if (size == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, tensor, offset, size)) {
        return;
    }
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    GGML_ASSERT(buf->iface.set_tensor != NULL);
    buf->iface.set_tensor(buf, tensor, data, offset, size);
}

void ggml_backend_tensor_get(const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    GGML_ASSERT(tensor);
    if (size == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, tensor, offset, size)) {
        return;
    }
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    GGML_ASSERT(buf->iface.get_tensor != NULL);
    buf->iface.get_tensor(buf, tensor, data, offset, size);
}

void ggml_backend_tensor_set_2d(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size,
                                size_t n_copies, size_t stride_tensor, size_t stride_data) {
    GGML_ASSERT(tensor);
    if (size == 0 || n_copies == 0) {
        return;
    }
    if (!tensor_access_2d_ok(__func__, tensor, offset, size, n_copies, stride_tensor)) {
        return;
    }
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    if (buf->iface.set_tensor_2d == NULL) {
        for (size_t i = 0; i < n_copies; i++) {
            ggml_backend_tensor_set(tensor, (const char *) data + i * stride_data, offset + i * stride_tensor, size);
        }
        return;
    }
    buf->iface.set_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
}

void ggml_backend_tensor_get_2d(const struct ggml_tensor * tensor, void * data, size_t offset, size_t size,
                                size_t n_copies, size_t stride_tensor, size_t stride_data) {
    GGML_ASSERT(tensor);
    if (size == 0 || n_copies == 0) {
        return;
    }
    if (!tensor_access_2d_ok(__func__, tensor, offset, size, n_copies, stride_tensor)) {
        return;
    }
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    if (buf->iface.get_tensor_2d == NULL) {
        for (size_t i = 0; i < n_copies; i++) {
            ggml_backend_tensor_get(tensor, (char *) data + i * stride_data, offset + i * stride_tensor, size);
        }
        return;
    }
    buf->iface.get_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
}

void ggml_backend_tensor_memset(struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    GGML_ASSERT(tensor);
    if (size == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, tensor, offset, size)) {
        return;
    }
    ggml_backend_buffer_t buf = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    GGML_ASSERT(buf->iface.memset_tensor != NULL && "memset not implemented by backend buffer");
    buf->iface.memset_tensor(buf, tensor, value, offset, size);
}

void ggml_backend_synchronize(ggml_backend_t backend) {
    GGML_ASSERT(backend);
    if (backend->iface.synchronize == NULL) {
        return;
    }
    backend->iface.synchronize(backend);
}

ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    GGML_ASSERT(backend);
    GGML_ASSERT(backend->iface.graph_plan_create != NULL);
    return backend->iface.graph_plan_create(backend, cgraph);
}

void ggml_backend_graph_plan_free(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    GGML_ASSERT(backend);
    GGML_ASSERT(backend->iface.graph_plan_free != NULL);
    backend->iface.graph_plan_free(backend, plan);
}

enum ggml_status ggml_backend_graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    GGML_ASSERT(backend);
    GGML_ASSERT(backend->iface.graph_plan_compute != NULL);
    return backend->iface.graph_plan_compute(backend, plan);
}

enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    enum ggml_status err = ggml_backend_graph_compute_async(backend, cgraph);
    ggml_backend_synchronize(backend);
    return err;
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    GGML_ASSERT(backend);
    return backend->iface.graph_compute(backend, cgraph);
}

bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    GGML_ASSERT(backend);
    return ggml_backend_dev_supports_op(backend->device, op);
}

bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(backend);
    return ggml_backend_dev_supports_buft(backend->device, buft);
}

bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    GGML_ASSERT(backend);
    return ggml_backend_dev_offload_op(backend->device, op);
}

ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend) {
    GGML_ASSERT(backend);
    return backend->device;
}

//
// tensor copy
//

static bool same_layout(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

void ggml_backend_tensor_copy(const struct ggml_tensor * src, struct ggml_tensor * dst) {
    GGML_ASSERT(src && dst);
    GGML_ASSERT(same_layout(src, dst) && "cannot copy tensors with different layouts");
    if (src == dst) {
        return;
    }
    if (ggml_nbytes(src) == 0) {
        return;
    }
    if (!tensor_access_ok(__func__, src, 0, ggml_nbytes(src)) || !tensor_access_ok(__func__, dst, 0, ggml_nbytes(dst))) {
        return;
    }
    if (ggml_backend_buffer_is_host(src->buffer ? src->buffer : src->view_src->buffer)) {
        ggml_backend_tensor_set(dst, src->data, 0, ggml_nbytes(src));
    } else if (ggml_backend_buffer_is_host(dst->buffer ? dst->buffer : dst->view_src->buffer)) {
        ggml_backend_tensor_get(src, dst->data, 0, ggml_nbytes(src));
    } else if (!ggml_backend_buffer_copy_tensor(src, dst)) {
        // no direct path: stage through host memory
        size_t nbytes = ggml_nbytes(src);
        void * data = malloc(nbytes);
        GGML_ASSERT(data != NULL);
        ggml_backend_tensor_get(src, data, 0, nbytes);
        ggml_backend_tensor_set(dst, data, 0, nbytes);
        free(data);
    }
}

void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src,
                                    struct ggml_tensor * dst) {
    GGML_ASSERT(same_layout(src, dst) && "cannot copy tensors with different layouts");
    if (src == dst) {
        return;
    }
    if (backend_dst->iface.cpy_tensor_async != NULL) {
        if (backend_dst->iface.cpy_tensor_async(backend_src, backend_dst, src, dst)) {
            return;
        }
    }
    // an async copy would need a direct path between the two: wait for both and copy
    ggml_backend_synchronize(backend_src);
    ggml_backend_synchronize(backend_dst);
    ggml_backend_tensor_copy(src, dst);
}

const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis) {
    switch (split_axis) {
        case GGML_BACKEND_SPLIT_AXIS_0:        return "0";
        case GGML_BACKEND_SPLIT_AXIS_1:        return "1";
        case GGML_BACKEND_SPLIT_AXIS_2:        return "2";
        case GGML_BACKEND_SPLIT_AXIS_3:        return "3";
        case GGML_BACKEND_SPLIT_AXIS_MIRRORED: return "MIRRORED";
        case GGML_BACKEND_SPLIT_AXIS_PARTIAL:  return "PARTIAL";
        case GGML_BACKEND_SPLIT_AXIS_NONE:     return "NONE";
        case GGML_BACKEND_SPLIT_AXIS_UNKNOWN:  return "UNKNOWN";
    }
    GGML_ABORT("ggml_backend_meta_split_axis_name: unknown split axis %d", (int) split_axis);
}

//
// events
//

ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device) {
    // NULL device: no events (the scheduler then synchronizes instead)
    if (device == NULL || device->iface.event_new == NULL) {
        return NULL;
    }
    return device->iface.event_new(device);
}

void ggml_backend_event_free(ggml_backend_event_t event) {
    if (event == NULL) {
        return;
    }
    event->device->iface.event_free(event->device, event);
}

void ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend) {
    GGML_ASSERT(event && backend);
    if (backend->device != event->device) {
        GGML_LOG_ERROR("%s: event of device %s cannot be recorded on backend %s of device %s\n", __func__,
                       ggml_backend_dev_name(event->device), ggml_backend_name(backend), ggml_backend_dev_name(backend->device));
        return;
    }
    GGML_ASSERT(backend->iface.event_record != NULL);
    backend->iface.event_record(backend, event);
}

void ggml_backend_event_synchronize(ggml_backend_event_t event) {
    GGML_ASSERT(event);
    GGML_ASSERT(event->device->iface.event_synchronize);
    event->device->iface.event_synchronize(event->device, event);
}

void ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    GGML_ASSERT(event && backend);
    if (backend->iface.event_wait == NULL) {
        // a backend that cannot wait on the device side waits on the host
        if (event->device->iface.event_synchronize) {
            event->device->iface.event_synchronize(event->device, event);
            return;
        }
        GGML_LOG_ERROR("%s: backend %s cannot wait for events\n", __func__, ggml_backend_name(backend));
        return;
    }
    if (backend->device != event->device && backend->device->reg != event->device->reg) {
        // only a backend of the same registry knows the event's device: the
        // wait is refused; the host waits instead so that nothing races
        GGML_LOG_ERROR("%s: backend %s cannot wait for an event of device %s (another backend); waiting on the host\n",
                       __func__, ggml_backend_name(backend), ggml_backend_dev_name(event->device));
        if (event->device->iface.event_synchronize) {
            event->device->iface.event_synchronize(event->device, event);
        }
        return;
    }
    backend->iface.event_wait(backend, event);
}

//
// devices
//

const char * ggml_backend_dev_name(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    return device->iface.get_name(device);
}

const char * ggml_backend_dev_description(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    return device->iface.get_description(device);
}

void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total) {
    GGML_ASSERT(device);
    device->iface.get_memory(device, free, total);
}

enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    return device->iface.get_type(device);
}

void ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props) {
    GGML_ASSERT(device && props);
    memset(props, 0, sizeof(*props));
    device->iface.get_props(device, props);
}

ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    return device->reg;
}

ggml_backend_t ggml_backend_dev_init(ggml_backend_dev_t device, const char * params) {
    GGML_ASSERT(device);
    return device->iface.init_backend(device, params);
}

ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    return device->iface.get_buffer_type(device);
}

ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    if (device->iface.get_host_buffer_type == NULL) {
        return NULL;
    }
    return device->iface.get_host_buffer_type(device);
}

ggml_backend_buffer_t ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size, size_t max_tensor_size) {
    GGML_ASSERT(device);
    if (device->iface.buffer_from_host_ptr == NULL) {
        GGML_LOG_ERROR("%s: device %s cannot make buffers from host pointers (caps.buffer_from_host_ptr is false)\n",
                       __func__, ggml_backend_dev_name(device));
        return NULL;
    }
    return device->iface.buffer_from_host_ptr(device, ptr, size, max_tensor_size);
}

bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    GGML_ASSERT(device);
    return device->iface.supports_op(device, op);
}

bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(device);
    return device->iface.supports_buft(device, buft);
}

bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    GGML_ASSERT(device);
    if (device->iface.offload_op != NULL) {
        return device->iface.offload_op(device, op);
    }
    return false;
}

//
// backend (reg)
//

const char * ggml_backend_reg_name(ggml_backend_reg_t reg) {
    GGML_ASSERT(reg);
    return reg->iface.get_name(reg);
}

size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg) {
    GGML_ASSERT(reg);
    return reg->iface.get_device_count(reg);
}

ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    GGML_ASSERT(reg);
    return reg->iface.get_device(reg, index);
}

void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    GGML_ASSERT(reg);
    if (!reg->iface.get_proc_address) {
        return NULL;
    }
    return reg->iface.get_proc_address(reg, name);
}

//
// utils: tensor alloc, view init
//

enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr) {
    GGML_ASSERT(buffer && tensor);
    if (tensor->buffer != NULL || tensor->data != NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is already allocated\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (tensor->view_src != NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is a view; use ggml_backend_view_init\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    char * base = (char *) ggml_backend_buffer_get_base(buffer);
    size_t alloc_size = ggml_backend_buffer_get_alloc_size(buffer, tensor);
    if ((char *) addr < base || (size_t) ((char *) addr - base) > buffer->size ||
        alloc_size > buffer->size - (size_t) ((char *) addr - base)) {
        GGML_LOG_ERROR("%s: tensor '%s' (%zu bytes at %p) does not fit buffer %s [%p, %p)\n", __func__, tensor->name,
                       alloc_size, addr, ggml_backend_buffer_name(buffer), (void *) base, (void *) (base + buffer->size));
        return GGML_STATUS_FAILED;
    }
    tensor->buffer = buffer;
    tensor->data   = addr;
    return ggml_backend_buffer_init_tensor(buffer, tensor);
}

enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor);
    if (tensor->view_src == NULL || tensor->view_src->buffer == NULL || tensor->view_src->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is not a view of an allocated tensor\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (tensor->buffer != NULL && tensor->buffer != tensor->view_src->buffer) {
        GGML_LOG_ERROR("%s: view '%s' already belongs to another buffer\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    tensor->buffer = tensor->view_src->buffer;
    tensor->data   = (char *) tensor->view_src->data + tensor->view_offs;
    return ggml_backend_buffer_init_tensor(tensor->buffer, tensor);
}

//
// utils: graph copy
//

struct graph_copy_map {
    struct gbh_set         set;
    struct ggml_tensor  ** copies;
    bool                 * inited;
};

static struct ggml_tensor * graph_copy_dup_tensor(struct graph_copy_map * map, struct ggml_context * ctx_allocated,
                                                  struct ggml_context * ctx_unallocated, struct ggml_tensor * src) {
    GGML_ASSERT(src != NULL);
    GGML_ASSERT(src->data && "graph must be allocated");

    size_t id = gbh_insert(&map->set, src);
    if (map->copies[id] != NULL) {
        return map->copies[id];
    }

    struct ggml_tensor * dst = ggml_dup_tensor(src->view_src ? ctx_unallocated : ctx_allocated, src);
    // same strides as the source, so that views and copies line up
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        dst->nb[i] = src->nb[i];
    }
    if (src->view_src != NULL) {
        dst->view_src  = graph_copy_dup_tensor(map, ctx_allocated, ctx_unallocated, src->view_src);
        dst->view_offs = src->view_offs;
    }
    dst->op = src->op;
    dst->flags = src->flags;
    memcpy(dst->op_params, src->op_params, sizeof(dst->op_params));
    ggml_set_name(dst, src->name);

    for (int i = 0; i < GGML_MAX_SRC; i++) {
        struct ggml_tensor * s = src->src[i];
        if (s == NULL) {
            continue;
        }
        dst->src[i] = graph_copy_dup_tensor(map, ctx_allocated, ctx_unallocated, s);
    }

    map->copies[id] = dst;
    return dst;
}

static void graph_copy_init_tensor(struct graph_copy_map * map, struct ggml_tensor * src) {
    size_t id = gbh_find(&map->set, src);
    GGML_ASSERT(id != GBH_FULL);
    if (map->inited[id]) {
        return;
    }
    map->inited[id] = true;

    struct ggml_tensor * dst = map->copies[id];
    if (dst->view_src != NULL) {
        graph_copy_init_tensor(map, src->view_src);
        enum ggml_status st = ggml_backend_view_init(dst);
        GGML_ASSERT(st == GGML_STATUS_SUCCESS);
    } else {
        ggml_backend_tensor_copy(src, dst);
    }

    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (src->src[i] != NULL) {
            graph_copy_init_tensor(map, src->src[i]);
        }
    }
}

struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph) {
    struct ggml_backend_graph_copy result = { NULL, NULL, NULL, NULL };
    const int n_nodes = ggml_graph_n_nodes(graph);
    const int n_leafs = graph->n_leafs;
    const size_t n_tensors = (size_t) (n_nodes + n_leafs) * (GGML_MAX_SRC + 1) + 1;

    struct graph_copy_map map;
    map.set    = gbh_new(n_tensors);
    map.copies = (struct ggml_tensor **) calloc(map.set.size, sizeof(*map.copies));
    map.inited = (bool *) calloc(map.set.size, sizeof(*map.inited));

    struct ggml_init_params params = {
        /* .mem_size   = */ ggml_tensor_overhead() * n_tensors + ggml_graph_overhead_custom(graph->size, false),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    struct ggml_context * ctx_allocated   = ggml_init(params);
    struct ggml_context * ctx_unallocated = ggml_init(params);

    if (ctx_allocated == NULL || ctx_unallocated == NULL || map.copies == NULL || map.inited == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate context for graph copy\n", __func__);
        goto fail;
    }

    for (int i = 0; i < n_nodes; i++) {
        graph_copy_dup_tensor(&map, ctx_allocated, ctx_unallocated, graph->nodes[i]);
    }
    for (int i = 0; i < n_leafs; i++) {
        graph_copy_dup_tensor(&map, ctx_allocated, ctx_unallocated, graph->leafs[i]);
    }

    result.buffer = ggml_backend_alloc_ctx_tensors(ctx_allocated, backend);
    if (result.buffer == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate buffer for graph copy\n", __func__);
        goto fail;
    }

    for (int i = 0; i < n_nodes; i++) {
        graph_copy_init_tensor(&map, graph->nodes[i]);
    }
    for (int i = 0; i < n_leafs; i++) {
        graph_copy_init_tensor(&map, graph->leafs[i]);
    }

    struct ggml_cgraph * graph_copy = ggml_new_graph_custom(ctx_allocated, graph->size, false);
    for (int i = 0; i < n_nodes; i++) {
        size_t id = gbh_find(&map.set, graph->nodes[i]);
        GGML_ASSERT(id != GBH_FULL);
        graph_copy->nodes[i] = map.copies[id];
    }
    graph_copy->n_nodes = n_nodes;
    for (int i = 0; i < n_leafs; i++) {
        size_t id = gbh_find(&map.set, graph->leafs[i]);
        graph_copy->leafs[i] = map.copies[id];
    }
    graph_copy->n_leafs = n_leafs;

    gbh_free(&map.set);
    free(map.copies);
    free(map.inited);

    result.ctx_allocated   = ctx_allocated;
    result.ctx_unallocated = ctx_unallocated;
    result.graph           = graph_copy;
    return result;

fail:
    gbh_free(&map.set);
    free(map.copies);
    free(map.inited);
    ggml_backend_buffer_free(result.buffer);
    if (ctx_allocated) {
        ggml_free(ctx_allocated);
    }
    if (ctx_unallocated) {
        ggml_free(ctx_unallocated);
    }
    result.buffer = NULL;
    return result;
}

void ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy) {
    ggml_backend_buffer_free(copy.buffer);
    if (copy.ctx_allocated) {
        ggml_free(copy.ctx_allocated);
    }
    if (copy.ctx_unallocated) {
        ggml_free(copy.ctx_unallocated);
    }
}

// a graph of nodes [i0, i1) of graph, sharing its arrays
static struct ggml_cgraph graph_slice(struct ggml_cgraph * graph, int i0, int i1) {
    struct ggml_cgraph view = *graph;
    view.size    = i1 - i0;
    view.n_nodes = i1 - i0;
    view.nodes   = graph->nodes + i0;
    view.n_leafs = 0;
    view.leafs   = NULL;
    view.grads   = NULL;
    view.grad_accs = NULL;
    return view;
}

bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
                                        ggml_backend_eval_callback callback, void * user_data,
                                        struct ggml_tensor const * const * test_nodes, size_t num_test_nodes) {
    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(backend2, graph);
    if (copy.buffer == NULL) {
        return false;
    }

    struct ggml_cgraph * g1 = graph;
    struct ggml_cgraph * g2 = copy.graph;
    GGML_ASSERT(g1->n_nodes == g2->n_nodes);

    bool ok = true;
    if (num_test_nodes != 0) {
        GGML_ASSERT(test_nodes);
        // run both graphs whole, then compare the nodes asked for
        if (ggml_backend_graph_compute(backend1, g1) != GGML_STATUS_SUCCESS ||
            ggml_backend_graph_compute(backend2, g2) != GGML_STATUS_SUCCESS) {
            ok = false;
        } else {
            // as for every node: a callback returning false stops the
            // comparison, which still counts as done (true)
            bool stop = false;
            for (int i = 0; i < g1->n_nodes && !stop; i++) {
                for (size_t j = 0; j < num_test_nodes; j++) {
                    if (g1->nodes[i] == test_nodes[j]) {
                        if (callback && !callback(i, g1->nodes[i], g2->nodes[i], user_data)) {
                            stop = true;
                        }
                        break;
                    }
                }
            }
        }
    } else {
        for (int i = 0; i < g1->n_nodes; i++) {
            struct ggml_tensor * t1 = g1->nodes[i];
            struct ggml_tensor * t2 = g2->nodes[i];
            GGML_ASSERT(t1->op == t2->op && same_layout(t1, t2));

            struct ggml_cgraph g1v = graph_slice(g1, i, i + 1);
            struct ggml_cgraph g2v = graph_slice(g2, i, i + 1);

            if (ggml_backend_graph_compute(backend1, &g1v) != GGML_STATUS_SUCCESS ||
                ggml_backend_graph_compute(backend2, &g2v) != GGML_STATUS_SUCCESS) {
                ok = false;
                break;
            }
            if (ggml_op_is_empty(t1->op)) {
                continue;
            }
            if (callback && !callback(i, t1, t2, user_data)) {
                break;
            }
        }
    }

    ggml_backend_graph_copy_free(copy);
    return ok;
}

//
// CPU buffer types: plain host memory, always available
//

#define CPU_BUFFER_ALIGNMENT 32

static void * cpu_buffer_get_base(ggml_backend_buffer_t buffer) {
    uintptr_t data = (uintptr_t) buffer->context;
    // round up for the from_ptr buffers whose pointer is not aligned
    if (data % CPU_BUFFER_ALIGNMENT != 0) {
        data = GGML_PAD(data, CPU_BUFFER_ALIGNMENT);
    }
    return (void *) data;
}

static void cpu_buffer_free_buffer(ggml_backend_buffer_t buffer) {
    ggml_aligned_free(buffer->context, GGML_PAD(buffer->size, CPU_BUFFER_ALIGNMENT));
}

static void cpu_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    memset((char *) tensor->data + offset, value, size);
}

static void cpu_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    // memmove: a split input copy may be placed over its own source
    memmove((char *) tensor->data + offset, data, size);
}

static void cpu_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    memmove(data, (const char *) tensor->data + offset, size);
}

static bool cpu_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    GGML_UNUSED(buffer);
    ggml_backend_buffer_t sbuf = src->view_src ? src->view_src->buffer : src->buffer;
    if (sbuf && ggml_backend_buffer_is_host(sbuf)) {
        memmove(dst->data, src->data, ggml_nbytes(src));
        return true;
    }
    return false;
}

static void cpu_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(cpu_buffer_get_base(buffer), value, buffer->size);
}

static const struct ggml_backend_buffer_i cpu_buffer_i = {
    /* .free_buffer   = */ cpu_buffer_free_buffer,
    /* .get_base      = */ cpu_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ cpu_buffer_memset_tensor,
    /* .set_tensor    = */ cpu_buffer_set_tensor,
    /* .get_tensor    = */ cpu_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ cpu_buffer_cpy_tensor,
    /* .clear         = */ cpu_buffer_clear,
    /* .reset         = */ NULL,
};

// the memory belongs to the caller: nothing to free
static const struct ggml_backend_buffer_i cpu_buffer_from_ptr_i = {
    /* .free_buffer   = */ NULL,
    /* .get_base      = */ cpu_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ cpu_buffer_memset_tensor,
    /* .set_tensor    = */ cpu_buffer_set_tensor,
    /* .get_tensor    = */ cpu_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ cpu_buffer_cpy_tensor,
    /* .clear         = */ cpu_buffer_clear,
    /* .reset         = */ NULL,
};

static const char * cpu_buffer_type_get_name(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return "CPU";
}

static ggml_backend_buffer_t cpu_buffer_type_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > SIZE_MAX - (CPU_BUFFER_ALIGNMENT - 1)) {
        // padding would wrap around to a tiny allocation
        GGML_LOG_ERROR("%s: failed to allocate buffer of size %zu\n", __func__, size);
        return NULL;
    }
    // 2 MiB and more: whole huge pages (ggml-mem.c)
    size_t alloc = GGML_PAD(size, CPU_BUFFER_ALIGNMENT);
    void * data = ggml_aligned_malloc(alloc);
    if (data == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate buffer of size %zu\n", __func__, size);
        return NULL;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, cpu_buffer_i, data, size);
    if (buffer == NULL) {
        ggml_aligned_free(data, alloc);
    }
    return buffer;
}

static size_t cpu_buffer_type_get_alignment(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return CPU_BUFFER_ALIGNMENT;
}

static bool cpu_buffer_type_is_host(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return true;
}

// The device of the CPU buffer types is the CPU backend's device when the
// CPU backend is linked in: it lives in libggml-cpu, which needs this
// library, so the reference is weak (NULL without it, as upstream's is).
ggml_backend_reg_t ggml_backend_cpu_reg(void) __attribute__((weak, visibility("default")));

static ggml_backend_dev_t ggml_backend_cpu_device_for_buft(void) {
    if (ggml_backend_cpu_reg == NULL) {
        return NULL;
    }
    return ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
}

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static struct ggml_backend_buffer_type cpu_buft = {
        /* .iface = */ {
            /* .get_name       = */ cpu_buffer_type_get_name,
            /* .alloc_buffer   = */ cpu_buffer_type_alloc_buffer,
            /* .get_alignment  = */ cpu_buffer_type_get_alignment,
            /* .get_max_size   = */ NULL, // SIZE_MAX
            /* .get_alloc_size = */ NULL, // ggml_nbytes
            /* .is_host        = */ cpu_buffer_type_is_host,
        },
        /* .device  = */ NULL,
        /* .context = */ NULL,
    };
    if (cpu_buft.device == NULL) {
        cpu_buft.device = ggml_backend_cpu_device_for_buft();
    }
    return &cpu_buft;
}

static const char * cpu_buffer_from_ptr_type_get_name(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return "CPU_Mapped";
}

static ggml_backend_buffer_type_t cpu_buffer_from_ptr_type(void) {
    static struct ggml_backend_buffer_type buft = {
        /* .iface = */ {
            /* .get_name       = */ cpu_buffer_from_ptr_type_get_name,
            /* .alloc_buffer   = */ cpu_buffer_type_alloc_buffer,
            /* .get_alignment  = */ cpu_buffer_type_get_alignment,
            /* .get_max_size   = */ NULL,
            /* .get_alloc_size = */ NULL,
            /* .is_host        = */ cpu_buffer_type_is_host,
        },
        /* .device  = */ NULL,
        /* .context = */ NULL,
    };
    if (buft.device == NULL) {
        buft.device = ggml_backend_cpu_device_for_buft();
    }
    return &buft;
}

ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size) {
    if (ptr == NULL) {
        GGML_LOG_ERROR("%s: NULL pointer\n", __func__);
        return NULL;
    }
    if ((uintptr_t) ptr % CPU_BUFFER_ALIGNMENT != 0) {
        // the base is rounded up: the usable size shrinks by the same amount
        size_t skip = (size_t) (GGML_PAD((uintptr_t) ptr, CPU_BUFFER_ALIGNMENT) - (uintptr_t) ptr);
        if (skip > size) {
            GGML_LOG_ERROR("%s: buffer of %zu bytes too small to align\n", __func__, size);
            return NULL;
        }
        size -= skip;
    }
    return ggml_backend_buffer_init(cpu_buffer_from_ptr_type(), cpu_buffer_from_ptr_i, ptr, size);
}
