// SPDX-License-Identifier: MIT
//
// ggml-cpp.h - std::unique_ptr owners of the library's objects for C++
// programs: each *_ptr frees its object with the matching *_free() when it
// goes out of scope. The names follow upstream ggml so C++ code written
// against it builds unchanged.
#ifndef GGML_CPP_H
#define GGML_CPP_H

#ifndef __cplusplus
#error "ggml-cpp.h is for C++ only"
#endif

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "gguf.h"

#include <memory>

struct ggml_context_deleter {
    void operator()(ggml_context * ctx) const { ggml_free(ctx); }
};
struct gguf_context_deleter {
    void operator()(gguf_context * ctx) const { gguf_free(ctx); }
};
struct ggml_gallocr_deleter {
    void operator()(ggml_gallocr_t galloc) const { ggml_gallocr_free(galloc); }
};
struct ggml_backend_deleter {
    void operator()(ggml_backend_t backend) const { ggml_backend_free(backend); }
};
struct ggml_backend_buffer_deleter {
    void operator()(ggml_backend_buffer_t buffer) const { ggml_backend_buffer_free(buffer); }
};
struct ggml_backend_event_deleter {
    void operator()(ggml_backend_event_t event) const { ggml_backend_event_free(event); }
};
struct ggml_backend_sched_deleter {
    void operator()(ggml_backend_sched_t sched) const { ggml_backend_sched_free(sched); }
};

typedef std::unique_ptr<ggml_context, ggml_context_deleter>               ggml_context_ptr;
typedef std::unique_ptr<gguf_context, gguf_context_deleter>               gguf_context_ptr;
typedef std::unique_ptr<ggml_gallocr, ggml_gallocr_deleter>               ggml_gallocr_ptr;
typedef std::unique_ptr<ggml_backend, ggml_backend_deleter>               ggml_backend_ptr;
typedef std::unique_ptr<ggml_backend_buffer, ggml_backend_buffer_deleter> ggml_backend_buffer_ptr;
typedef std::unique_ptr<ggml_backend_event, ggml_backend_event_deleter>   ggml_backend_event_ptr;
typedef std::unique_ptr<ggml_backend_sched, ggml_backend_sched_deleter>   ggml_backend_sched_ptr;

#endif // GGML_CPP_H
