/*
 * ggml-alloc.h - tensor and graph allocators of libggml-backend.
 *
 * Source-compatible with upstream ggml's ggml-alloc.h: same names, signatures
 * and struct layout. The implementation (lib/ggml-alloc.c) is gaccel's own.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_ALLOC_H
#define GGML_ALLOC_H

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer      * ggml_backend_buffer_t;
typedef struct ggml_backend             * ggml_backend_t;

// Tensor allocator: a bump allocator over one buffer. Tensors are never freed;
// ggml_tallocr_alloc fails (GGML_STATUS_ALLOC_FAILED, with a message) when the
// buffer is full.
struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void * base;
    size_t alignment;
    size_t offset;
};

GGML_API struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer);
GGML_API enum ggml_status    ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor);

// Graph allocator: places the tensors of a graph so that memory is reused once
// the last consumer of a tensor has run.
//
// Usage:
//   ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
//   ggml_gallocr_reserve(galloc, build_graph(max_batch));   // optional
//   struct ggml_cgraph * graph = build_graph(batch);
//   ggml_gallocr_alloc_graph(galloc, graph);
//   ... compute ...
//   ggml_gallocr_free(galloc);
//
// Tensors flagged INPUT (ggml_set_input) get their own memory at the start of
// the graph and are never overwritten by another tensor; OUTPUT tensors
// (ggml_set_output) are never freed or reused. Tensors that already have data
// or a buffer are left alone.
typedef struct ggml_gallocr * ggml_gallocr_t;

GGML_API ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft);
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free(ggml_gallocr_t galloc);

// Pre-allocate buffers for a worst-case graph so that later graphs with the
// same topology never reallocate. Returns false when a buffer allocation fails.
GGML_API bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids);
// Same as reserve_n without allocating: the bytes each buffer would need.
GGML_API void ggml_gallocr_reserve_n_size(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids,
    size_t * sizes);

// Allocate the tensors of a graph. With one buffer, a graph that does not fit
// the reservation reserves again automatically; with several, the caller must
// call ggml_gallocr_reserve_n first (false is returned otherwise).
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

// Allocate every tensor of a context that has no data yet, in one buffer or,
// when the buffer type's max size is smaller, a multi-buffer of several.
GGML_API size_t                       ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend);

#ifdef __cplusplus
}
#endif

#endif // GGML_ALLOC_H
