/*
 * gaccel-graph.c - which ggml nodes the engine runs, and the compiler from
 * a ggml graph split to a gaccel program, with a cache so that a split
 * computed again (every token of a model) costs one SUBMIT and no
 * GRAPH_CREATE.
 *
 * A program names memory through binding slots: every buffer object the
 * split touches becomes one slot, bound to that object at submit time.
 * Tensor descriptors give dtype, shape, strides and the byte offset in the
 * slot; views, reshapes, permutes and transposes are only descriptors.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gaccel-impl.h"
#include "ggml-impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------
// ggml op -> engine op
// ---------------------------------------------------------------------------

// Nodes that compute nothing: their result is a descriptor of their source.
bool gaccel_is_descriptor_op(enum ggml_op op) {
    switch (op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        default:
            return false;
    }
}

// The engine op for a node, or DRM_GACCEL_OP_NONE.
static uint32_t engine_op(const struct ggml_tensor * t) {
    switch (t->op) {
        case GGML_OP_MUL_MAT:  return DRM_GACCEL_OP_MUL_MAT;
        case GGML_OP_ADD:      return DRM_GACCEL_OP_ADD;
        case GGML_OP_MUL:      return DRM_GACCEL_OP_MUL;
        case GGML_OP_SCALE:    return DRM_GACCEL_OP_SCALE;
        case GGML_OP_RMS_NORM: return DRM_GACCEL_OP_RMS_NORM;
        case GGML_OP_NORM:     return DRM_GACCEL_OP_NORM;
        case GGML_OP_SOFT_MAX: return DRM_GACCEL_OP_SOFT_MAX;
        case GGML_OP_ROPE:     return DRM_GACCEL_OP_ROPE;
        case GGML_OP_GET_ROWS: return DRM_GACCEL_OP_GET_ROWS;
        case GGML_OP_SET_ROWS: return DRM_GACCEL_OP_SET_ROWS;
        case GGML_OP_CPY:
        case GGML_OP_DUP:
        case GGML_OP_CONT:     return DRM_GACCEL_OP_CPY;
        case GGML_OP_UNARY:
            switch (ggml_get_unary_op(t)) {
                case GGML_UNARY_OP_SILU: return DRM_GACCEL_OP_SILU;
                case GGML_UNARY_OP_GELU: return DRM_GACCEL_OP_GELU;
                default:                 return DRM_GACCEL_OP_NONE;
            }
        case GGML_OP_GLU:
            switch (ggml_get_glu_op(t)) {
                case GGML_GLU_OP_SWIGLU: return DRM_GACCEL_OP_SWIGLU;
                case GGML_GLU_OP_GEGLU:  return DRM_GACCEL_OP_GEGLU;
                default:                 return DRM_GACCEL_OP_NONE;
            }
        default:
            return DRM_GACCEL_OP_NONE;
    }
}

static const struct drm_gaccel_op_info * find_op(const struct gaccel_device * gdev, uint32_t op) {
    for (uint32_t i = 0; i < gdev->n_ops; i++) {
        if (gdev->ops[i].op == op) {
            return &gdev->ops[i];
        }
    }
    return NULL;
}

// The uAPI numbers dtypes its own way (frozen, append-only); -1 for a ggml
// type the uAPI has no dtype for.
static int gaccel_dtype(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:  return DRM_GACCEL_DTYPE_F32;
        case GGML_TYPE_F16:  return DRM_GACCEL_DTYPE_F16;
        case GGML_TYPE_BF16: return DRM_GACCEL_DTYPE_BF16;
        case GGML_TYPE_Q4_0: return DRM_GACCEL_DTYPE_Q4_0;
        case GGML_TYPE_Q8_0: return DRM_GACCEL_DTYPE_Q8_0;
        case GGML_TYPE_I32:  return DRM_GACCEL_DTYPE_I32;
        case GGML_TYPE_I64:  return DRM_GACCEL_DTYPE_I64;
        default:             return -1;
    }
}

static bool dtype_ok(uint64_t mask, enum ggml_type type) {
    int dt = gaccel_dtype(type);
    return dt >= 0 && dt < 64 && (mask >> dt) & 1;
}

static int32_t op_param_i32(const struct ggml_tensor * t, int i) {
    return t->op_params[i];
}

static float op_param_f32(const struct ggml_tensor * t, int i) {
    float f;
    memcpy(&f, &t->op_params[i], sizeof(f));
    return f;
}

bool gaccel_supports_op(const struct gaccel_device * gdev, const struct ggml_tensor * t) {
    if (gdev->n_ops == 0) {
        return false; // an engine that runs nothing (or an older driver)
    }
    if (gaccel_is_descriptor_op(t->op)) {
        return true;
    }
    uint32_t op = engine_op(t);
    const struct drm_gaccel_op_info * info = op ? find_op(gdev, op) : NULL;
    if (!info) {
        return false;
    }
    if (!dtype_ok(info->dst_dtypes, t->type) || !t->src[0] ||
        !dtype_ok(info->src0_dtypes, t->src[0]->type) ||
        (t->src[1] && !dtype_ok(info->src1_dtypes, t->src[1]->type))) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] && ggml_n_dims(t->src[i]) > (int) info->max_rank) {
            return false;
        }
    }
    if (ggml_n_dims(t) > (int) info->max_rank) {
        return false;
    }

    // What the uAPI's op semantics leave out.
    switch (t->op) {
        case GGML_OP_SOFT_MAX:
            // no ALiBi, no attention sinks
            return op_param_f32(t, 1) == 0.0f && t->src[2] == NULL;
        case GGML_OP_SET_ROWS:
            // F32 rows: what ggml_set_rows accepted before it took F16 rows
            return t->src[0]->type == GGML_TYPE_F32;
        case GGML_OP_UNARY:
            // packed above the rows: what the unary constructor required
            // before it accepted any row stride (CPU-only since)
            return ggml_is_contiguous_1(t->src[0]) && ggml_is_contiguous_1(t);
        case GGML_OP_GLU:
            // split, or the halves of src0's even rows (swapped or not)
            return t->src[1] == NULL ? t->src[0]->ne[0] == 2 * t->ne[0] : op_param_i32(t, 1) == 0;
        case GGML_OP_ROPE: {
            int mode = op_param_i32(t, 2);
            // no multi-section modes, no offset of the rotated dims (op_params[15])
            return (mode == 0 || mode == GGML_ROPE_TYPE_NEOX) && op_param_i32(t, 15) == 0;
        }
        case GGML_OP_MUL_MAT:
            // F32 activations with contiguous rows
            return t->src[1]->type == GGML_TYPE_F32 && t->type == GGML_TYPE_F32 &&
                   t->src[1]->nb[0] == sizeof(float) && t->nb[0] == sizeof(float);
        default:
            return true;
    }
}

// ---------------------------------------------------------------------------
// compiling
// ---------------------------------------------------------------------------

struct builder {
    struct drm_gaccel_slot *    slots;
    struct drm_gaccel_binding * bindings;
    uint32_t                    n_slots;

    struct drm_gaccel_tensor * tensors;
    const struct ggml_tensor ** keys; // the ggml tensor of each descriptor
    uint32_t                   n_tensors;

    struct drm_gaccel_node * nodes;
    uint32_t                 n_nodes;
    uint32_t                 cap; // of tensors and nodes
};

static void builder_free(struct builder * b) {
    free(b->slots);
    free(b->bindings);
    free(b->tensors);
    free(b->keys);
    free(b->nodes);
}

static int slot_for(struct builder * b, uint32_t handle, uint64_t bo_size) {
    for (uint32_t i = 0; i < b->n_slots; i++) {
        if (b->bindings[i].handle == handle) {
            return (int) i;
        }
    }
    uint32_t i = b->n_slots++;
    b->slots[i]    = (struct drm_gaccel_slot) { .size = bo_size };
    b->bindings[i] = (struct drm_gaccel_binding) { .slot = i, .handle = handle };
    return (int) i;
}

// Descriptor index of a ggml tensor, added on first use; -1 if the tensor
// is not in a gaccel buffer or not writable where it must be.
static int tensor_for(struct builder * b, const struct ggml_tensor * t, bool written) {
    for (uint32_t i = b->n_tensors; i-- > 0;) {
        if (b->keys[i] == t) {
            return (int) i;
        }
    }
    uint32_t handle;
    uint64_t offset, bo_size;
    bool read_only;
    int dtype = gaccel_dtype(t->type);
    if (dtype < 0 || !gaccel_tensor_location(t, &handle, &offset, &bo_size, &read_only) ||
        (written && read_only) || b->n_tensors == b->cap) {
        return -1;
    }
    int slot = slot_for(b, handle, bo_size);
    uint32_t i = b->n_tensors++;
    b->keys[i]    = t;
    b->tensors[i] = (struct drm_gaccel_tensor) { .slot = (uint32_t) slot, .dtype = (uint32_t) dtype, .offset = offset };
    for (int d = 0; d < 4; d++) {
        b->tensors[i].ne[d] = (uint64_t) t->ne[d];
        b->tensors[i].nb[d] = (uint64_t) t->nb[d];
    }
    return (int) i;
}

// Op parameters as the uAPI defines them: the words of ggml's op_params
// that the engine op reads (DRM_GACCEL_PARAMS_*), zero for all others. The
// kernel refuses a node with a non-zero word the op does not read, and
// ggml keeps things the engine ignores in op_params (the unary or GLU op
// in word 0, MUL_MAT's precision, ROPE's n_past and n_ctx).
static uint32_t params_used(uint32_t op) {
    switch (op) {
        case DRM_GACCEL_OP_SCALE:    return DRM_GACCEL_PARAMS_SCALE;
        case DRM_GACCEL_OP_RMS_NORM:
        case DRM_GACCEL_OP_NORM:     return DRM_GACCEL_PARAMS_NORM;
        case DRM_GACCEL_OP_SOFT_MAX: return DRM_GACCEL_PARAMS_SOFT_MAX;
        case DRM_GACCEL_OP_ROPE:     return DRM_GACCEL_PARAMS_ROPE;
        case DRM_GACCEL_OP_SWIGLU:
        case DRM_GACCEL_OP_GEGLU:    return DRM_GACCEL_PARAMS_GLU;
        default:                     return 0;
    }
}

static void node_params(const struct ggml_tensor * t, uint32_t op, int32_t * params) {
    uint32_t used = params_used(op);
    for (int i = 0; i < DRM_GACCEL_MAX_PARAMS; i++) {
        params[i] = (used >> i) & 1 ? t->op_params[i] : 0;
    }
}

static const char * build(struct builder * b, const struct ggml_cgraph * cgraph) {
    int n = ggml_graph_n_nodes((struct ggml_cgraph *) cgraph);
    b->cap      = (uint32_t) n * (1 + DRM_GACCEL_MAX_SRC) + 1;
    b->slots    = calloc(b->cap, sizeof(*b->slots));
    b->bindings = calloc(b->cap, sizeof(*b->bindings));
    b->tensors  = calloc(b->cap, sizeof(*b->tensors));
    b->keys     = calloc(b->cap, sizeof(*b->keys));
    b->nodes    = calloc(n ? (size_t) n : 1, sizeof(*b->nodes));
    if (!b->slots || !b->bindings || !b->tensors || !b->keys || !b->nodes) {
        return "out of memory";
    }

    for (int i = 0; i < n; i++) {
        const struct ggml_tensor * t = ggml_graph_node((struct ggml_cgraph *) cgraph, i);
        if (gaccel_is_descriptor_op(t->op) || !(t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            continue; // nothing to run, or a node not to be computed (ggml_build_forward_select)
        }
        struct drm_gaccel_node * node = &b->nodes[b->n_nodes];
        node->op = engine_op(t);
        if (node->op == DRM_GACCEL_OP_NONE) {
            return ggml_op_desc(t);
        }
        int dst = tensor_for(b, t, true);
        if (dst < 0) {
            return "a destination outside writable gaccel memory";
        }
        node->dst = (uint32_t) dst;
        for (int s = 0; s < DRM_GACCEL_MAX_SRC; s++) {
            node->src[s] = DRM_GACCEL_NO_TENSOR;
            if (t->src[s]) {
                int idx = tensor_for(b, t->src[s], false);
                if (idx < 0) {
                    return "a source outside gaccel memory";
                }
                node->src[s] = (uint32_t) idx;
            }
        }
        for (int s = DRM_GACCEL_MAX_SRC; s < GGML_MAX_SRC; s++) {
            if (t->src[s]) {
                return "a node with too many sources";
            }
        }
        node_params(t, node->op, node->params);
        b->n_nodes++;
    }
    return NULL;
}

// ---------------------------------------------------------------------------
// the cache
// ---------------------------------------------------------------------------

#define GACCEL_CACHE_SIZE 64

struct cache_entry {
    uint64_t               hash;
    size_t                 key_size;
    uint8_t *              key; // slots, tensors, nodes and bindings, serialized
    uint64_t               last_use;
    struct gaccel_program  program;
};

struct gaccel_program_cache {
    struct gaccel_device * gdev;
    struct cache_entry     entries[GACCEL_CACHE_SIZE];
    uint64_t               clock;
};

struct gaccel_program_cache * gaccel_program_cache_new(struct gaccel_device * gdev) {
    struct gaccel_program_cache * cache = calloc(1, sizeof(*cache));
    if (cache) {
        cache->gdev = gdev;
    }
    return cache;
}

static void entry_clear(struct gaccel_program_cache * cache, struct cache_entry * e) {
    if (e->key) {
        struct drm_gaccel_graph_destroy args = { .handle = e->program.graph };
        gaccel_ioctl(cache->gdev->fd, DRM_IOCTL_GACCEL_GRAPH_DESTROY, &args);
        free(e->key);
        free(e->program.bindings);
    }
    memset(e, 0, sizeof(*e));
}

void gaccel_program_cache_free(struct gaccel_program_cache * cache) {
    if (!cache) {
        return;
    }
    for (int i = 0; i < GACCEL_CACHE_SIZE; i++) {
        entry_clear(cache, &cache->entries[i]);
    }
    free(cache);
}

static uint64_t fnv1a(const uint8_t * p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

static uint8_t * serialize(const struct builder * b, size_t * size) {
    size_t s0 = b->n_slots * sizeof(*b->slots), s1 = b->n_tensors * sizeof(*b->tensors);
    size_t s2 = b->n_nodes * sizeof(*b->nodes), s3 = b->n_slots * sizeof(*b->bindings);
    uint8_t * key = malloc(s0 + s1 + s2 + s3 + 1);
    if (key) {
        memcpy(key, b->slots, s0);
        memcpy(key + s0, b->tensors, s1);
        memcpy(key + s0 + s1, b->nodes, s2);
        memcpy(key + s0 + s1 + s2, b->bindings, s3);
    }
    *size = s0 + s1 + s2 + s3;
    return key;
}

const struct gaccel_program * gaccel_program_get(struct gaccel_program_cache * cache,
                                                 const struct ggml_cgraph * cgraph, const char ** why) {
    struct builder b = { 0 };
    const struct gaccel_program * result = NULL;
    *why = build(&b, cgraph);
    if (*why) {
        builder_free(&b);
        return NULL;
    }

    size_t key_size;
    uint8_t * key = serialize(&b, &key_size);
    if (!key) {
        *why = "out of memory";
        builder_free(&b);
        return NULL;
    }
    uint64_t hash = fnv1a(key, key_size);
    cache->clock++;

    struct cache_entry * victim = &cache->entries[0];
    for (int i = 0; i < GACCEL_CACHE_SIZE; i++) {
        struct cache_entry * e = &cache->entries[i];
        if (e->key && e->hash == hash && e->key_size == key_size && memcmp(e->key, key, key_size) == 0) {
            e->last_use = cache->clock;
            free(key);
            builder_free(&b);
            return &e->program;
        }
        if (!e->key || (victim->key && e->last_use < victim->last_use)) {
            victim = e;
        }
    }

    struct drm_gaccel_graph_create args = {
        .slots   = { sizeof(*b.slots), b.n_slots, (uintptr_t) b.slots },
        .tensors = { sizeof(*b.tensors), b.n_tensors, (uintptr_t) b.tensors },
        .nodes   = { sizeof(*b.nodes), b.n_nodes, (uintptr_t) b.nodes },
    };
    int ret = gaccel_ioctl(cache->gdev->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &args);
    if (ret != 0) {
        // supports_op promised more than the kernel validates (drm.debug
        // says which rule): the caller runs the split another way
        *why = ret == -EINVAL ? "the kernel refused the program" : strerror(-ret);
        free(key);
        builder_free(&b);
        return NULL;
    }

    entry_clear(cache, victim);
    victim->hash     = hash;
    victim->key      = key;
    victim->key_size = key_size;
    victim->last_use = cache->clock;
    victim->program  = (struct gaccel_program) {
        .graph      = args.handle,
        .n_bindings = b.n_slots,
        .bindings   = b.bindings,
    };
    b.bindings = NULL; // now owned by the cache entry
    result = &victim->program;
    builder_free(&b);
    return result;
}
