/*
 * ggml-impl.h - internal helpers shared by the library's translation units.
 * Not installed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_IMPL_H
#define GGML_IMPL_H

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// Log through the callback set with ggml_log_set() (stderr by default).
// Exported, as upstream's is: the backend libraries (libggml-cpu, the
// libggml-gaccel module) and libggml log through libggml-base's.
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_log_internal(enum ggml_log_level level, const char * format, ...);
// tests: make the default logger read GGML_LOG_LEVEL again
void ggml_log_reset_threshold_internal(void);

#define GGML_LOG(...)       ggml_log_internal(GGML_LOG_LEVEL_NONE , __VA_ARGS__)
#define GGML_LOG_INFO(...)  ggml_log_internal(GGML_LOG_LEVEL_INFO , __VA_ARGS__)
#define GGML_LOG_WARN(...)  ggml_log_internal(GGML_LOG_LEVEL_WARN , __VA_ARGS__)
#define GGML_LOG_ERROR(...) ggml_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)
#define GGML_LOG_DEBUG(...) ggml_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define GGML_LOG_CONT(...)  ggml_log_internal(GGML_LOG_LEVEL_CONT , __VA_ARGS__)

#include <stdlib.h>
#include <string.h>

// Alignment of tensor data in backend buffers (CPU buffers use it too).
#define TENSOR_ALIGNMENT 32

static inline int ggml_up32(int n) {
    return (n + 31) & ~31;
}

// n rounded up to a multiple of m (a power of two)
static inline int ggml_up(int n, int m) {
    GGML_ASSERT((m & (m - 1)) == 0);
    return (n + m - 1) & ~(m - 1);
}

// Same type, shape and strides.
static inline bool ggml_are_same_layout(const struct ggml_tensor * a, const struct ggml_tensor * b) {
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

static inline bool ggml_op_is_empty(enum ggml_op op) {
    switch (op) {
        case GGML_OP_NONE:
        case GGML_OP_RESHAPE:
        case GGML_OP_TRANSPOSE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
            return true;
        default:
            return false;
    }
}

// Ops whose result shares its source's memory.
static inline bool ggml_impl_is_view(const struct ggml_tensor * t) {
    return t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE ||
           t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE;
}

// ---------------------------------------------------------------------------
// op_params accessors (op_params is GGML_MAX_OP_PARAMS bytes of int32/float)
// ---------------------------------------------------------------------------

// op_params of MAP_CUSTOM1..3 and CUSTOM (ggml-ops-custom.c): the user's
// function (cast to its ggml_custom*_op_t by the backend), tasks, user data
struct ggml_custom_params {
    void (*fun)(void);
    int    n_tasks;
    void * userdata;
};

static inline void ggml_set_op_params(struct ggml_tensor * tensor, const void * params, size_t params_size) {
    GGML_ASSERT(tensor != NULL);
    GGML_ASSERT(params_size <= GGML_MAX_OP_PARAMS);
    memcpy(tensor->op_params, params, params_size);
}

static inline int32_t ggml_get_op_params_i32(const struct ggml_tensor * tensor, uint32_t i) {
    GGML_ASSERT(i < GGML_MAX_OP_PARAMS / sizeof(int32_t));
    return ((const int32_t *)(tensor->op_params))[i];
}

static inline float ggml_get_op_params_f32(const struct ggml_tensor * tensor, uint32_t i) {
    GGML_ASSERT(i < GGML_MAX_OP_PARAMS / sizeof(float));
    float v;
    memcpy(&v, &tensor->op_params[i], sizeof(v));
    return v;
}

static inline void ggml_set_op_params_i32(struct ggml_tensor * tensor, uint32_t i, int32_t value) {
    GGML_ASSERT(i < GGML_MAX_OP_PARAMS / sizeof(int32_t));
    ((int32_t *)(tensor->op_params))[i] = value;
}

static inline void ggml_set_op_params_f32(struct ggml_tensor * tensor, uint32_t i, float value) {
    GGML_ASSERT(i < GGML_MAX_OP_PARAMS / sizeof(float));
    memcpy(&tensor->op_params[i], &value, sizeof(value));
}

// ---------------------------------------------------------------------------
// Context objects
// ---------------------------------------------------------------------------

// Header of every allocation in a context's memory pool; the payload follows
// at offs (tensors: a struct ggml_tensor, then its data unless no_alloc).
struct ggml_object {
    size_t offs;
    size_t size;

    struct ggml_object * next;

    enum ggml_object_type type;

    char padding[4];
};

#define GGML_OBJECT_SIZE sizeof(struct ggml_object)

// ---------------------------------------------------------------------------
// Bitset
// ---------------------------------------------------------------------------

typedef uint32_t ggml_bitset_t;

#define BITSET_SHR  5 // log2(sizeof(ggml_bitset_t) * 8)
#define BITSET_MASK (sizeof(ggml_bitset_t) * 8 - 1)

static inline size_t ggml_bitset_size(size_t n) {
    return (n + BITSET_MASK) >> BITSET_SHR;
}

static inline bool ggml_bitset_get(const ggml_bitset_t * bitset, size_t i) {
    return (bitset[i >> BITSET_SHR] >> (i & BITSET_MASK)) & 1;
}

static inline void ggml_bitset_set(ggml_bitset_t * bitset, size_t i) {
    bitset[i >> BITSET_SHR] |= (ggml_bitset_t)1 << (i & BITSET_MASK);
}

static inline void ggml_bitset_clear(ggml_bitset_t * bitset, size_t i) {
    bitset[i >> BITSET_SHR] &= ~((ggml_bitset_t)1 << (i & BITSET_MASK));
}

// ---------------------------------------------------------------------------
// Hash set of tensor pointers (open addressing, linear probing)
// ---------------------------------------------------------------------------

#define GGML_HASHSET_FULL           ((size_t)-1)
#define GGML_HASHSET_ALREADY_EXISTS ((size_t)-2)

struct ggml_hash_set {
    size_t size;
    ggml_bitset_t * used;       // which slots of keys hold a tensor
    struct ggml_tensor ** keys;
};

// allocates size slots (round size with ggml_hash_size first)
struct ggml_hash_set ggml_hash_set_new(size_t size);
void                 ggml_hash_set_free(struct ggml_hash_set * hash_set);

// the smallest table size (a prime) >= min_sz
size_t ggml_hash_size(size_t min_sz);

// forgets every key
void ggml_hash_set_reset(struct ggml_hash_set * hash_set);

static inline size_t ggml_hash(const struct ggml_tensor * p) {
    // tensors are at least 16-byte aligned: the low bits carry no information
    return (size_t)(uintptr_t)p >> 4;
}

// slot of key, or the empty slot where it would go, or GGML_HASHSET_FULL
static inline size_t ggml_hash_find(const struct ggml_hash_set * hash_set, const struct ggml_tensor * key) {
    size_t h = ggml_hash(key) % hash_set->size;
    size_t i = h;
    while (ggml_bitset_get(hash_set->used, i) && hash_set->keys[i] != key) {
        i = (i + 1) % hash_set->size;
        if (i == h) {
            return GGML_HASHSET_FULL;
        }
    }
    return i;
}

static inline bool ggml_hash_contains(const struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    return i != GGML_HASHSET_FULL && ggml_bitset_get(hash_set->used, i);
}

// slot of the new key, or GGML_HASHSET_ALREADY_EXISTS; aborts when full
static inline size_t ggml_hash_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        GGML_ABORT("hash set of %zu slots is full", hash_set->size);
    }
    if (ggml_bitset_get(hash_set->used, i)) {
        return GGML_HASHSET_ALREADY_EXISTS;
    }
    ggml_bitset_set(hash_set->used, i);
    hash_set->keys[i] = key;
    return i;
}

// slot of key, inserting it if absent; aborts when full
static inline size_t ggml_hash_find_or_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        GGML_ABORT("hash set of %zu slots is full", hash_set->size);
    }
    ggml_bitset_set(hash_set->used, i);
    hash_set->keys[i] = key;
    return i;
}

// ---------------------------------------------------------------------------
// Computation graphs
// ---------------------------------------------------------------------------

enum ggml_cgraph_eval_order {
    GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT = 0,
    GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT,
    GGML_CGRAPH_EVAL_ORDER_COUNT
};

struct ggml_cgraph {
    int size;    // capacity of nodes and leafs
    int n_nodes; // tensors computed by an op, in execution order
    int n_leafs; // tensors with op NONE (inputs, weights, constants)

    struct ggml_tensor ** nodes;     // [size]
    struct ggml_tensor ** grads;     // [visited_hash_set.size] or NULL
    struct ggml_tensor ** grad_accs; // [visited_hash_set.size] or NULL
    struct ggml_tensor ** leafs;     // [size]
    int32_t             * use_counts;// [visited_hash_set.size]: users of each tensor

    struct ggml_hash_set visited_hash_set; // every tensor in nodes and leafs

    enum ggml_cgraph_eval_order order;

    uint64_t uid; // changes whenever the graph is (re)built
};

// A graph of nodes [i0, i1) of cgraph: shares its arrays, has no leafs and
// no hash set. For the scheduler's splits.
struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph, int i0, int i1);

// A new unique graph id.
uint64_t ggml_graph_next_uid(void);

// Bytes a graph of size nodes takes in a context (without the object header).
size_t ggml_graph_nbytes(size_t size, bool grads);

// ---------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------

// A tensor of src's type viewing src's memory at byte offset offset, with
// contiguous strides for shape ne (view ops then set their own strides).
// A view of a view views the original. Used by the view op constructors.
struct ggml_tensor * ggml_new_view_impl(struct ggml_context * ctx, struct ggml_tensor * src,
                                        int n_dims, const int64_t * ne, size_t offset);

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

// Allocation aligned to 64 bytes, and from 2 MiB on to 2 MiB in whole
// 2 MiB pages asked for as transparent huge pages (ggml-mem.c); NULL with a
// log line on failure. Free with ggml_aligned_free(ptr, size), the same
// size.
void * ggml_aligned_malloc(size_t size);
void   ggml_aligned_free(void * ptr, size_t size);

#ifdef __cplusplus
}
#endif

#endif // GGML_IMPL_H
