/*
 * ggml-backend.h - buffer types, buffers, backends, events, devices, the
 * backend registry and the scheduler of libggml-backend.
 *
 * Source-compatible with upstream ggml's ggml-backend.h (v0.21.0) for every
 * name declared: same names, signatures, enum names and values, and struct
 * layouts. The implementation is gaccel's own.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_BACKEND_H
#define GGML_BACKEND_H

#include "ggml.h"
#include "ggml-alloc.h"

#ifndef GGML_BACKEND_API
#    if defined(__GNUC__) || defined(__clang__)
#        define GGML_BACKEND_API __attribute__((visibility("default"))) extern
#    else
#        define GGML_BACKEND_API extern
#    endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer      * ggml_backend_buffer_t;
typedef struct ggml_backend_event       * ggml_backend_event_t;
typedef struct ggml_backend             * ggml_backend_t;
typedef void                            * ggml_backend_graph_plan_t;
typedef struct ggml_backend_reg         * ggml_backend_reg_t;
typedef struct ggml_backend_device      * ggml_backend_dev_t;

//
// Backend buffer type
//

GGML_API const char *          ggml_backend_buft_name          (ggml_backend_buffer_type_t buft);
GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer  (ggml_backend_buffer_type_t buft, size_t size);
GGML_API size_t                ggml_backend_buft_get_alignment (ggml_backend_buffer_type_t buft);
GGML_API size_t                ggml_backend_buft_get_max_size  (ggml_backend_buffer_type_t buft);
GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
GGML_API bool                  ggml_backend_buft_is_host       (ggml_backend_buffer_type_t buft);
GGML_API ggml_backend_dev_t    ggml_backend_buft_get_device    (ggml_backend_buffer_type_t buft);

//
// Backend buffer
//

enum ggml_backend_buffer_usage {
    GGML_BACKEND_BUFFER_USAGE_ANY     = 0,
    GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
    GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
};

GGML_API const char *                   ggml_backend_buffer_name          (ggml_backend_buffer_t buffer);
// NULL is fine. Tensors placed in the buffer keep their (now dangling) data
// pointers: free a buffer only once no graph uses its tensors any more.
GGML_API void                           ggml_backend_buffer_free          (ggml_backend_buffer_t buffer);
GGML_API void *                         ggml_backend_buffer_get_base      (ggml_backend_buffer_t buffer); // NULL for size 0
GGML_API size_t                         ggml_backend_buffer_get_size      (ggml_backend_buffer_t buffer);
GGML_API enum ggml_status               ggml_backend_buffer_init_tensor   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
GGML_API size_t                         ggml_backend_buffer_get_alignment (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_max_size  (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor);
GGML_API void                           ggml_backend_buffer_clear         (ggml_backend_buffer_t buffer, uint8_t value);
GGML_API bool                           ggml_backend_buffer_is_host       (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_set_usage     (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage     (ggml_backend_buffer_t buffer);
GGML_API ggml_backend_buffer_type_t     ggml_backend_buffer_get_type      (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_reset         (ggml_backend_buffer_t buffer);

// Copy the data of src into dst (same layout), whatever buffers they live in.
GGML_API void ggml_backend_tensor_copy(const struct ggml_tensor * src, struct ggml_tensor * dst);

//
// Backend (stream)
//

GGML_API ggml_guid_t  ggml_backend_guid(ggml_backend_t backend);
GGML_API const char * ggml_backend_name(ggml_backend_t backend);
GGML_API void         ggml_backend_free(ggml_backend_t backend); // NULL is fine

GGML_API ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend);
GGML_API ggml_backend_buffer_t      ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size);
GGML_API size_t                     ggml_backend_get_alignment(ggml_backend_t backend);
GGML_API size_t                     ggml_backend_get_max_size(ggml_backend_t backend);

GGML_API void ggml_backend_tensor_set_async   (ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_get_async   (ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_set_2d_async(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size,
                                               size_t n_copies, size_t stride_tensor, size_t stride_data);
GGML_API void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size,
                                               size_t n_copies, size_t stride_tensor, size_t stride_data);

// "offset" is in bytes from tensor->data; the range must lie inside the tensor.
GGML_API void ggml_backend_tensor_set   (      struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_get   (const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_set_2d(      struct ggml_tensor * tensor, const void * data, size_t offset, size_t size,
                                         size_t n_copies, size_t stride_tensor, size_t stride_data);
GGML_API void ggml_backend_tensor_get_2d(const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size,
                                         size_t n_copies, size_t stride_tensor, size_t stride_data);
GGML_API void ggml_backend_tensor_memset(      struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);

GGML_API void ggml_backend_synchronize(ggml_backend_t backend);

GGML_API ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, struct ggml_cgraph * cgraph);
GGML_API void                      ggml_backend_graph_plan_free  (ggml_backend_t backend, ggml_backend_graph_plan_t plan);

GGML_API enum ggml_status ggml_backend_graph_plan_compute (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
GGML_API enum ggml_status ggml_backend_graph_compute      (ggml_backend_t backend, struct ggml_cgraph * cgraph);
GGML_API enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * cgraph);

// NOTE: will be removed, use the device versions instead
GGML_API bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op);
GGML_API bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft);
GGML_API bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op);

// Asynchronous copy: the copy starts after all the work queued on
// backend_src and backend_dst; dst's backend may go on before it ends.
GGML_API void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

GGML_API ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend);

//
// Events
//

GGML_API ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device); // NULL if unsupported
GGML_API void                 ggml_backend_event_free(ggml_backend_event_t event); // NULL is fine
// Recording or waiting with a backend of another device is refused with an error.
GGML_API void                 ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend);
GGML_API void                 ggml_backend_event_synchronize(ggml_backend_event_t event);
GGML_API void                 ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event);

//
// Backend device
//

enum ggml_backend_dev_type {
    // CPU device using system memory
    GGML_BACKEND_DEVICE_TYPE_CPU,
    // GPU device using dedicated memory
    GGML_BACKEND_DEVICE_TYPE_GPU,
    // integrated GPU device using host memory
    GGML_BACKEND_DEVICE_TYPE_IGPU,
    // accelerator devices intended to be used together with the CPU backend (e.g. BLAS or AMX)
    GGML_BACKEND_DEVICE_TYPE_ACCEL,
    // a device that wraps several devices for tensor parallelism
    GGML_BACKEND_DEVICE_TYPE_META,
};

// The seeds' name for IGPU (an integrated GPU sharing host memory): same value.
#define GGML_BACKEND_DEVICE_TYPE_GPU_UMA GGML_BACKEND_DEVICE_TYPE_IGPU

// functionality supported by the device
struct ggml_backend_dev_caps {
    // asynchronous operations
    bool async;
    // pinned host buffer
    bool host_buffer;
    // creating buffers from host ptr
    bool buffer_from_host_ptr;
    // event synchronization
    bool events;
    // buffers made from an mmap'ed file can be used directly
    bool mmap_support;
};

// all the device properties
struct ggml_backend_dev_props {
    // device name
    const char * name;
    // device description
    const char * description;
    // device free memory in bytes
    size_t memory_free;
    // device total memory in bytes
    size_t memory_total;
    // device type
    enum ggml_backend_dev_type type;
    // device id, lower-case PCI bus id ("dddd:bb:dd.f") when available, else NULL
    const char * device_id;
    // device capabilities
    struct ggml_backend_dev_caps caps;
};

GGML_API const char *                  ggml_backend_dev_name(ggml_backend_dev_t device);
GGML_API const char *                  ggml_backend_dev_description(ggml_backend_dev_t device);
GGML_API void                          ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
GGML_API enum ggml_backend_dev_type    ggml_backend_dev_type(ggml_backend_dev_t device);
GGML_API void                          ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props);
GGML_API ggml_backend_reg_t            ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
GGML_API ggml_backend_t                ggml_backend_dev_init(ggml_backend_dev_t device, const char * params);
GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_buffer_type(ggml_backend_dev_t device);
GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device);
GGML_API ggml_backend_buffer_t         ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size, size_t max_tensor_size);

GGML_API bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op);
GGML_API bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft);
GGML_API bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op);

//
// Backend (reg)
//

GGML_API const char *       ggml_backend_reg_name(ggml_backend_reg_t reg);
GGML_API size_t             ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
GGML_API ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);
GGML_API void *             ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);

// Common functions that may be obtained using ggml_backend_reg_get_proc_address

// Communication between the backends of one registry, for tensor parallelism
// (no built-in backend provides them)
typedef void * (*ggml_backend_comm_init_t)(ggml_backend_t * backends, size_t n_backends);
typedef void   (*ggml_backend_comm_free_t)(void * comm_ctx);
typedef bool   (*ggml_backend_comm_allreduce_tensor_t)(void * comm_ctx, struct ggml_tensor ** tensors);
// Split buffer type for tensor parallelism (unused by the built-in backends)
typedef ggml_backend_buffer_type_t   (*ggml_backend_split_buffer_type_t)(int main_device, const float * tensor_split);
// Set the number of threads for the backend
typedef void                         (*ggml_backend_set_n_threads_t)(ggml_backend_t backend, int n_threads);
// Get additional buffer types provided by the device (returns a NULL-terminated array)
typedef ggml_backend_buffer_type_t * (*ggml_backend_dev_get_extra_bufts_t)(ggml_backend_dev_t device);
// Set the abort callback for the backend
typedef void                         (*ggml_backend_set_abort_callback_t)(ggml_backend_t backend, ggml_abort_callback abort_callback, void * abort_callback_data);
// Get a list of feature flags supported by the backend (returns a NULL-terminated array)
struct ggml_backend_feature {
    const char * name;
    const char * value;
};
typedef struct ggml_backend_feature * (*ggml_backend_get_features_t)(ggml_backend_reg_t reg);

//
// Backend registry
//

GGML_API void ggml_backend_register(ggml_backend_reg_t reg);
GGML_API void ggml_backend_device_register(ggml_backend_dev_t device);

// Backend (reg) enumeration
GGML_API size_t             ggml_backend_reg_count(void);
GGML_API ggml_backend_reg_t ggml_backend_reg_get(size_t index);
GGML_API ggml_backend_reg_t ggml_backend_reg_by_name(const char * name);

// Device enumeration
GGML_API size_t             ggml_backend_dev_count(void);
GGML_API ggml_backend_dev_t ggml_backend_dev_get(size_t index);
GGML_API ggml_backend_dev_t ggml_backend_dev_by_name(const char * name);
GGML_API ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type);

// Direct backend (stream) initialization
// = ggml_backend_dev_init(ggml_backend_dev_by_name(name), params); name may be "name:params"
GGML_API ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params);
// = ggml_backend_dev_init(ggml_backend_dev_by_type(type), params)
GGML_API ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params);
// = the first GPU device, else the first IGPU device, else the CPU (never ACCEL)
GGML_API ggml_backend_t ggml_backend_init_best(void);

// Load a backend from a dynamic library and register it
GGML_API ggml_backend_reg_t ggml_backend_load(const char * path);
// Unload a backend if loaded dynamically and unregister it
GGML_API void               ggml_backend_unload(ggml_backend_reg_t reg);
// Load all known backends from dynamic libraries
GGML_API void               ggml_backend_load_all(void);
GGML_API void               ggml_backend_load_all_from_path(const char * dir_path);

//
// Backend scheduler
//

// The backend scheduler runs a graph on several backends: it assigns each node
// to a backend, splits the graph into runs of nodes of one backend, copies the
// inputs of a split between backends, and allocates the tensors.
//
// Example:
//   // backends (highest priority first; the last one must be the CPU)
//   ggml_backend_t backends[] = { backend_gpu, backend_cpu };
//   ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
//
//   // optional: reserve the buffers with a worst-case graph
//   ggml_backend_sched_reserve(sched, build_graph(max_batch));
//
//   struct ggml_cgraph * graph = build_graph(batch);
//   // optional: allocate first to set the inputs (tensors flagged with ggml_set_input)
//   ggml_backend_sched_alloc_graph(sched, graph);
//   ggml_backend_tensor_set(input, data, 0, ggml_nbytes(input));
//   ggml_backend_sched_graph_compute(sched, graph);
//   ...
//   ggml_backend_sched_reset(sched); // before another graph
//
// Environment: GGML_SCHED_DEBUG=1 prints the splits of every graph and their
// inputs, =2 also the backend of every node; GGML_SCHED_DEBUG_REALLOC=1
// aborts when a graph needs larger buffers than the first allocation (or
// reserve) made. ggml_backend_load_all() looks in GGML_BACKEND_DIR, the
// program's directory and the library's directory, then loads the library
// named by GGML_BACKEND_PATH.

typedef struct ggml_backend_sched * ggml_backend_sched_t;

// Evaluation callback for each node in the graph (set with ggml_backend_sched_set_eval_callback)
// when ask == true, the scheduler wants to know if the user wants to observe this node
// this allows the scheduler to batch nodes together in order to evaluate them in a single call
//
// when ask == false, the scheduler is passing the node tensor to the user for observation
// if the user returns false, the scheduler will cancel the graph compute
//
typedef bool (*ggml_backend_sched_eval_callback)(struct ggml_tensor * t, bool ask, void * user_data);

// Initialize a backend scheduler, backends with low index are given priority over backends with high index
GGML_API ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size, bool parallel, bool op_offload);
GGML_API void                 ggml_backend_sched_free(ggml_backend_sched_t sched);

// Provide a graph of maximum size to obtain the sizes the buffers need (no allocation)
GGML_API void                 ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes);
// Initialize backend buffers from a measure graph
GGML_API bool                 ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph); // returns success

GGML_API int                  ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched);
GGML_API ggml_backend_t       ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i);

// Get the number of splits of the last graph
GGML_API int                  ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched);
GGML_API int                  ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched);

GGML_API ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend);
GGML_API size_t                     ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend);

GGML_API void                 ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend);
GGML_API ggml_backend_t       ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node);

// Split graph without allocating it
GGML_API void                 ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);

// Allocate and compute graph on the backend scheduler
GGML_API bool                 ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph); // returns success
GGML_API enum ggml_status     ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
GGML_API enum ggml_status     ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
GGML_API void                 ggml_backend_sched_synchronize(ggml_backend_sched_t sched);

// Reset all assignments and allocators - must be called before changing the node backends or allocating a new graph.
// This in effect deallocates all tensors that were previously allocated and leaves them with dangling pointers.
// The correct way to use this API is to discard the deallocated tensors and create new ones.
GGML_API void                 ggml_backend_sched_reset(ggml_backend_sched_t sched);

// Set a callback to be called for each resulting node during graph compute
GGML_API void                 ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback, void * user_data);

//
// Meta backend: tensor parallelism over several devices ("simple" devices)
// behind one device (Documentation/userspace-api.rst, "Meta device").
//

#define GGML_BACKEND_META_MAX_DEVICES 16

enum ggml_backend_meta_split_axis {
    // split along a tensor dimension
    GGML_BACKEND_SPLIT_AXIS_0 = 0,
    GGML_BACKEND_SPLIT_AXIS_1 = 1,
    GGML_BACKEND_SPLIT_AXIS_2 = 2,
    GGML_BACKEND_SPLIT_AXIS_3 = 3,

    GGML_BACKEND_SPLIT_AXIS_MIRRORED = 10, // every device holds all values
    GGML_BACKEND_SPLIT_AXIS_PARTIAL  = 11, // every device holds a partial sum

    // bookkeeping
    GGML_BACKEND_SPLIT_AXIS_NONE    = 98,
    GGML_BACKEND_SPLIT_AXIS_UNKNOWN = 99,
};

// "0".."3", "MIRRORED", "PARTIAL", "NONE", "UNKNOWN"; aborts on other values
GGML_API const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis);

// How a tensor is split: along axis, in n_segments segments, segment s
// repeating nr[s] times, ne[] holding each (segment, device) slice length.
struct ggml_backend_meta_split_state {
    enum ggml_backend_meta_split_axis axis;

    int64_t  ne[16 * GGML_BACKEND_META_MAX_DEVICES];
    uint32_t nr[16];
    uint32_t n_segments;
};

typedef struct ggml_backend_meta_split_state (*ggml_backend_meta_get_split_state_t)(const struct ggml_tensor * tensor,
                                                                                    void * userdata);

// A device over devs[0..n_devs) (at most GGML_BACKEND_META_MAX_DEVICES):
// its buffer type, buffers and backend split each tensor over them.
// get_split_state gives the state of each tensor allocated outside a graph
// (weights, caches); graph tensors derive theirs from their sources. The
// same arguments give the same device, which lives as long as the process.
GGML_API ggml_backend_dev_t ggml_backend_meta_device(ggml_backend_dev_t * devs, size_t n_devs,
                                                     ggml_backend_meta_get_split_state_t get_split_state,
                                                     void * get_split_state_ud);

//
// Utils
//

struct ggml_backend_graph_copy {
    ggml_backend_buffer_t buffer;
    struct ggml_context * ctx_allocated;
    struct ggml_context * ctx_unallocated;
    struct ggml_cgraph * graph;
};

// Copy a graph to a different backend
GGML_API struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph);
GGML_API void                           ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy);

typedef bool (*ggml_backend_eval_callback)(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data);

// Compare the output of two backends. With test_nodes, only those nodes (of
// graph) are checked; the callback is called for each compared node.
GGML_API bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
                                                 ggml_backend_eval_callback callback, void * user_data,
                                                 struct ggml_tensor const * const * test_nodes, size_t num_test_nodes);

// Tensor initialization
GGML_API enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr);
GGML_API enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor);

// CPU buffer types are always available
GGML_API ggml_backend_buffer_t      ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);
GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);

#ifdef __cplusplus
}
#endif

#endif // GGML_BACKEND_H
