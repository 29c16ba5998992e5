/*
 * ggml-alloc.c - the tensor allocator (a bump allocator over one buffer) and
 * the graph allocator (lifetime-aware placement of a graph's tensors over one
 * or more buffer types, each split into chunks of at most the type's max size).
 *
 * The graph allocator plans first, on simulated addresses {chunk, offset},
 * then allocates one backend buffer per chunk of the size the plan reached and
 * points the tensors into them. A later graph whose tensors fit the recorded
 * plan reuses the buffers as they are.
 *
 * Rules of the plan:
 *   - a tensor that already has data or a buffer is left alone;
 *   - INPUT tensors get memory before any node runs and keep it to the end
 *     of the graph (recomputing a graph never overwrites an input);
 *   - OUTPUT tensors are never freed or reused;
 *   - any other tensor is freed once its last consumer (and every view of it)
 *     has been placed; an op that can run in place takes over the memory of
 *     a parent whose only consumer it is.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-backend-hash.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHUNKS 16

static size_t align_up(size_t offset, size_t alignment) {
    return (offset + alignment - 1) / alignment * alignment;
}

static bool tensor_is_view(const struct ggml_tensor * t) {
    return t->view_src != NULL;
}

// ops whose kernels may write their result over their first operands
static bool op_can_inplace(enum ggml_op op) {
    switch (op) {
        case GGML_OP_SCALE:
        case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_ADD:
        case GGML_OP_ADD1:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_UNARY:
        case GGML_OP_ROPE:
        case GGML_OP_RMS_NORM:
        case GGML_OP_SOFT_MAX:
            return true;
        default:
            return false;
    }
}

//
// tallocr
//

struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer) {
    void * base = ggml_backend_buffer_get_base(buffer);
    size_t align = ggml_backend_buffer_get_alignment(buffer);
    GGML_ASSERT(align && !(align & (align - 1))); // power of 2

    struct ggml_tallocr talloc = {
        /* .buffer    = */ buffer,
        /* .base      = */ base,
        /* .alignment = */ align,
        /* .offset    = */ align_up((size_t) (uintptr_t) base, align) - (size_t) (uintptr_t) base,
    };
    return talloc;
}

enum ggml_status ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor) {
    size_t size = ggml_backend_buffer_get_alloc_size(talloc->buffer, tensor);
    size = align_up(size, talloc->alignment);

    if (talloc->offset + size > ggml_backend_buffer_get_size(talloc->buffer)) {
        GGML_LOG_ERROR("%s: not enough space in the buffer to allocate %s (needed %zu, available %zu)\n",
                       __func__, tensor->name, size, ggml_backend_buffer_get_size(talloc->buffer) - talloc->offset);
        return GGML_STATUS_ALLOC_FAILED;
    }

    void * addr = (char *) ggml_backend_buffer_get_base(talloc->buffer) + talloc->offset;
    talloc->offset += size;

    return ggml_backend_tensor_alloc(talloc->buffer, tensor, addr);
}

//
// dynamic tensor allocator: simulated addresses in up to MAX_CHUNKS chunks
//

struct dyn_block {
    size_t offset;
    size_t size;
};

struct dyn_chunk {
    struct dyn_block * free; // sorted by offset, merged
    int    n_free;
    int    cap;
    size_t limit;    // the chunk never grows past this
    size_t max_size; // high-water mark
};

struct dyn_addr {
    int    chunk;
    size_t offset;
};

struct dyn_tallocr {
    size_t alignment;
    size_t max_chunk_size;
    int    n_chunks;
    struct dyn_chunk chunks[MAX_CHUNKS];
};

static void dyn_chunk_insert(struct dyn_chunk * c, int pos, struct dyn_block b) {
    if (c->n_free == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->free = (struct dyn_block *) realloc(c->free, c->cap * sizeof(*c->free));
        GGML_ASSERT(c->free != NULL);
    }
    memmove(&c->free[pos + 1], &c->free[pos], (c->n_free - pos) * sizeof(*c->free));
    c->free[pos] = b;
    c->n_free++;
}

static void dyn_chunk_remove(struct dyn_chunk * c, int pos) {
    memmove(&c->free[pos], &c->free[pos + 1], (c->n_free - pos - 1) * sizeof(*c->free));
    c->n_free--;
}

static int dyn_new_chunk(struct dyn_tallocr * a, size_t min_size) {
    if (a->n_chunks == MAX_CHUNKS) {
        return -1;
    }
    struct dyn_chunk * c = &a->chunks[a->n_chunks];
    memset(c, 0, sizeof(*c));
    c->limit = min_size > a->max_chunk_size ? min_size : a->max_chunk_size;
    struct dyn_block all = { 0, c->limit };
    dyn_chunk_insert(c, 0, all);
    return a->n_chunks++;
}

static void dyn_reset(struct dyn_tallocr * a) {
    for (int i = 0; i < a->n_chunks; i++) {
        free(a->chunks[i].free);
    }
    a->n_chunks = 0;
    memset(a->chunks, 0, sizeof(a->chunks));
}

static void dyn_init(struct dyn_tallocr * a, size_t alignment, size_t max_chunk_size) {
    memset(a, 0, sizeof(*a));
    a->alignment = alignment;
    a->max_chunk_size = max_chunk_size;
}

static bool dyn_is_tail(const struct dyn_chunk * c, const struct dyn_block * b) {
    return b->offset + b->size == c->limit;
}

static struct dyn_addr dyn_alloc(struct dyn_tallocr * a, size_t size) {
    size = align_up(size, a->alignment);

    // 1. the smallest hole that fits, tails excluded (they grow the chunk)
    int best_c = -1, best_b = -1;
    size_t best_size = SIZE_MAX;
    for (int ci = 0; ci < a->n_chunks; ci++) {
        struct dyn_chunk * c = &a->chunks[ci];
        for (int bi = 0; bi < c->n_free; bi++) {
            struct dyn_block * b = &c->free[bi];
            if (dyn_is_tail(c, b) && b->offset + size > c->max_size) {
                continue; // it would raise the high-water mark
            }
            if (b->size >= size && b->size < best_size) {
                best_c = ci;
                best_b = bi;
                best_size = b->size;
            }
        }
    }

    // 2. the tail block that grows its chunk least
    if (best_c < 0) {
        size_t best_growth = SIZE_MAX;
        for (int ci = 0; ci < a->n_chunks; ci++) {
            struct dyn_chunk * c = &a->chunks[ci];
            if (c->n_free == 0) {
                continue;
            }
            struct dyn_block * b = &c->free[c->n_free - 1];
            if (!dyn_is_tail(c, b) || b->size < size) {
                continue;
            }
            size_t growth = b->offset + size - c->max_size;
            if (growth < best_growth) {
                best_growth = growth;
                best_c = ci;
                best_b = c->n_free - 1;
            }
        }
    }

    // 3. a new chunk
    if (best_c < 0) {
        best_c = dyn_new_chunk(a, size);
        if (best_c < 0) {
            // out of chunks: grow the last one past the max size; the real
            // allocation then fails in the backend with a message
            best_c = a->n_chunks - 1;
            struct dyn_chunk * c = &a->chunks[best_c];
            struct dyn_block * tail = c->n_free ? &c->free[c->n_free - 1] : NULL;
            if (tail && dyn_is_tail(c, tail)) {
                tail->size += size;
            } else {
                struct dyn_block b = { c->limit, size };
                dyn_chunk_insert(c, c->n_free, b);
            }
            c->limit += size;
            best_b = c->n_free - 1;
        } else {
            best_b = 0;
        }
    }

    struct dyn_chunk * c = &a->chunks[best_c];
    struct dyn_block * b = &c->free[best_b];
    struct dyn_addr addr = { best_c, b->offset };
    b->offset += size;
    b->size   -= size;
    if (b->size == 0) {
        dyn_chunk_remove(c, best_b);
    }
    if (addr.offset + size > c->max_size) {
        c->max_size = addr.offset + size;
    }
    return addr;
}

static void dyn_free(struct dyn_tallocr * a, struct dyn_addr addr, size_t size) {
    size = align_up(size, a->alignment);
    struct dyn_chunk * c = &a->chunks[addr.chunk];

    int pos = 0;
    while (pos < c->n_free && c->free[pos].offset < addr.offset) {
        pos++;
    }
    bool merge_prev = pos > 0 && c->free[pos - 1].offset + c->free[pos - 1].size == addr.offset;
    bool merge_next = pos < c->n_free && addr.offset + size == c->free[pos].offset;

    if (merge_prev && merge_next) {
        c->free[pos - 1].size += size + c->free[pos].size;
        dyn_chunk_remove(c, pos);
    } else if (merge_prev) {
        c->free[pos - 1].size += size;
    } else if (merge_next) {
        c->free[pos].offset = addr.offset;
        c->free[pos].size  += size;
    } else {
        struct dyn_block b = { addr.offset, size };
        dyn_chunk_insert(c, pos, b);
    }
}

//
// graph allocator
//

struct hash_node {
    int    n_children;
    int    n_views;
    int    buffer_id;
    struct dyn_addr addr;
    size_t size;       // bytes of the block this tensor owns (0 = none)
    bool   allocated;  // placed (by us, in place, or already had memory)
    bool   owned;      // owns the block at addr (and must free it)
    bool   ours;       // placed by the allocator (not pre-allocated)
    bool   leaf;       // a leaf of the graph: kept for the whole graph
    bool   out_view;   // an OUTPUT view reads this tensor's memory: kept
};

struct tensor_alloc {
    int    buffer_id;
    struct dyn_addr addr;
    size_t size_max; // 0 = not ours (pre-allocated or view)
};

struct leaf_alloc {
    struct tensor_alloc leaf;
};

struct node_alloc {
    struct tensor_alloc dst;
    struct tensor_alloc src[GGML_MAX_SRC];
};

struct vbuffer {
    ggml_backend_buffer_t chunks[MAX_CHUNKS];
    int n_chunks;
};

struct ggml_gallocr {
    ggml_backend_buffer_type_t * bufts;   // [n_buffers]
    struct vbuffer            ** buffers; // [n_buffers]
    struct dyn_tallocr        ** allocs;  // [n_buffers]
    int n_buffers;

    struct gbh_set     hash_set;
    struct hash_node * hash_values; // [hash_set.size]

    struct node_alloc * node_allocs; // [n_nodes]
    int n_nodes;
    struct leaf_alloc * leaf_allocs; // [n_leafs]
    int n_leafs;

    uint64_t topology; // fingerprint of the graph the plan was made for
};

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    GGML_ASSERT(bufts != NULL && n_bufs > 0);
    ggml_gallocr_t galloc = (ggml_gallocr_t) calloc(1, sizeof(*galloc));
    GGML_ASSERT(galloc != NULL);

    galloc->bufts   = (ggml_backend_buffer_type_t *) calloc(n_bufs, sizeof(*galloc->bufts));
    galloc->buffers = (struct vbuffer **) calloc(n_bufs, sizeof(*galloc->buffers));
    galloc->allocs  = (struct dyn_tallocr **) calloc(n_bufs, sizeof(*galloc->allocs));
    GGML_ASSERT(galloc->bufts && galloc->buffers && galloc->allocs);

    for (int i = 0; i < n_bufs; i++) {
        galloc->bufts[i] = bufts[i];

        // the same buffer type shares the allocator and the buffers
        for (int j = 0; j < i; j++) {
            if (bufts[i] == bufts[j]) {
                galloc->allocs[i]  = galloc->allocs[j];
                galloc->buffers[i] = galloc->buffers[j];
                break;
            }
        }
        if (galloc->allocs[i] == NULL) {
            size_t alignment = ggml_backend_buft_get_alignment(bufts[i]);
            size_t max_size  = ggml_backend_buft_get_max_size(bufts[i]);
            if (max_size > SIZE_MAX / 2) {
                max_size = SIZE_MAX / 2;
            }
            galloc->allocs[i] = (struct dyn_tallocr *) calloc(1, sizeof(struct dyn_tallocr));
            galloc->buffers[i] = (struct vbuffer *) calloc(1, sizeof(struct vbuffer));
            GGML_ASSERT(galloc->allocs[i] && galloc->buffers[i]);
            dyn_init(galloc->allocs[i], alignment, max_size);
        }
    }
    galloc->n_buffers = n_bufs;
    return galloc;
}

ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    return ggml_gallocr_new_n(&buft, 1);
}

static void vbuffer_free(struct vbuffer * vb) {
    for (int i = 0; i < vb->n_chunks; i++) {
        ggml_backend_buffer_free(vb->chunks[i]);
        vb->chunks[i] = NULL;
    }
    vb->n_chunks = 0;
}

void ggml_gallocr_free(ggml_gallocr_t galloc) {
    if (galloc == NULL) {
        return;
    }
    for (int i = 0; i < galloc->n_buffers; i++) {
        bool shared = false;
        for (int j = 0; j < i; j++) {
            if (galloc->allocs[j] == galloc->allocs[i]) {
                shared = true;
                break;
            }
        }
        if (shared) {
            continue;
        }
        vbuffer_free(galloc->buffers[i]);
        free(galloc->buffers[i]);
        dyn_reset(galloc->allocs[i]);
        free(galloc->allocs[i]);
    }
    gbh_free(&galloc->hash_set);
    free(galloc->hash_values);
    free(galloc->bufts);
    free(galloc->buffers);
    free(galloc->allocs);
    free(galloc->node_allocs);
    free(galloc->leaf_allocs);
    free(galloc);
}

static struct hash_node * hn_get(ggml_gallocr_t galloc, const struct ggml_tensor * t) {
    size_t i = gbh_insert(&galloc->hash_set, t);
    return &galloc->hash_values[i];
}

static bool is_allocated(ggml_gallocr_t galloc, const struct ggml_tensor * t) {
    return t->data != NULL || t->buffer != NULL || hn_get(galloc, t)->allocated;
}

static bool never_free(const struct ggml_tensor * t) {
    return (t->flags & GGML_TENSOR_FLAG_OUTPUT) || (t->flags & GGML_TENSOR_FLAG_INPUT);
}

// a leaf's data is set by the user before compute: its memory is never
// shared with a node, so that recomputing the graph reads the same data
static bool keep_whole_graph(ggml_gallocr_t galloc, const struct ggml_tensor * t) {
    if (never_free(t)) {
        return true;
    }
    struct hash_node * hn = hn_get(galloc, t);
    return hn->leaf || hn->out_view;
}

static void allocate_node(ggml_gallocr_t galloc, struct ggml_tensor * node, int buffer_id) {
    GGML_ASSERT(buffer_id >= 0 && buffer_id < galloc->n_buffers);
    struct hash_node * hn = hn_get(galloc, node);

    if (is_allocated(galloc, node)) {
        hn->allocated = true;
        return;
    }
    if (tensor_is_view(node)) {
        // a view lives in its source's memory, placed at init
        hn->allocated = true;
        hn->buffer_id = buffer_id;
        return;
    }

    hn->allocated = true;
    hn->ours      = true;
    hn->buffer_id = buffer_id;

    // reuse a parent's memory when the op allows it
    if (op_can_inplace(node->op) && !(node->flags & GGML_TENSOR_FLAG_INPUT)) {
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            struct ggml_tensor * parent = node->src[i];
            if (parent == NULL) {
                continue;
            }
            // never take the memory of an input or an output, or of a
            // tensor whose memory the allocator does not own
            if (keep_whole_graph(galloc, parent) || (parent->view_src && keep_whole_graph(galloc, parent->view_src))) {
                continue;
            }
            if (!ggml_are_same_layout(node, parent)) {
                continue;
            }
            struct hash_node * p_hn = hn_get(galloc, parent);
            if (p_hn->n_children != 1 || p_hn->n_views != 0) {
                continue;
            }
            if (tensor_is_view(parent)) {
                struct ggml_tensor * vsrc = parent->view_src;
                struct hash_node * v_hn = hn_get(galloc, vsrc);
                if (v_hn->n_views == 1 && v_hn->n_children == 0 && parent->view_offs == 0 &&
                    v_hn->owned && v_hn->buffer_id == buffer_id) {
                    hn->addr  = v_hn->addr;
                    hn->size  = v_hn->size;
                    hn->owned = true;
                    v_hn->owned = false;
                    v_hn->size  = 0;
                    return;
                }
            } else if (p_hn->owned && p_hn->buffer_id == buffer_id) {
                hn->addr  = p_hn->addr;
                hn->size  = p_hn->size;
                hn->owned = true;
                p_hn->owned = false;
                p_hn->size  = 0;
                return;
            }
        }
    }

    size_t size = ggml_backend_buft_get_alloc_size(galloc->bufts[buffer_id], node);
    struct dyn_tallocr * alloc = galloc->allocs[buffer_id];
    if (size == 0) {
        size = alloc->alignment; // every tensor gets an address of its own
    }
    size = align_up(size, alloc->alignment);
    hn->addr  = dyn_alloc(alloc, size);
    hn->size  = size;
    hn->owned = true;
}

static void free_node(ggml_gallocr_t galloc, struct ggml_tensor * node) {
    if (keep_whole_graph(galloc, node)) {
        return;
    }
    struct hash_node * hn = hn_get(galloc, node);
    if (!hn->owned) {
        return;
    }
    dyn_free(galloc->allocs[hn->buffer_id], hn->addr, hn->size);
    hn->owned = false;
    hn->size  = 0;
}

static int get_buffer_id(const int * ids, int i) {
    return ids ? ids[i] : 0;
}

static void alloc_graph_impl(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    // reset the hash set and the allocators
    size_t min_hash = (size_t) (graph->n_nodes + graph->n_leafs) * (GGML_MAX_SRC + 1) + 1;
    if (galloc->hash_set.size < gbh_size_for(min_hash)) {
        gbh_free(&galloc->hash_set);
        free(galloc->hash_values);
        galloc->hash_set = gbh_new(min_hash);
        galloc->hash_values = (struct hash_node *) malloc(galloc->hash_set.size * sizeof(*galloc->hash_values));
        GGML_ASSERT(galloc->hash_values != NULL);
    } else {
        gbh_reset(&galloc->hash_set);
    }
    memset(galloc->hash_values, 0, galloc->hash_set.size * sizeof(*galloc->hash_values));

    for (int i = 0; i < galloc->n_buffers; i++) {
        bool shared = false;
        for (int j = 0; j < i; j++) {
            if (galloc->allocs[j] == galloc->allocs[i]) {
                shared = true;
            }
        }
        if (!shared) {
            struct dyn_tallocr * a = galloc->allocs[i];
            size_t alignment = a->alignment, max_chunk = a->max_chunk_size;
            dyn_reset(a);
            dyn_init(a, alignment, max_chunk);
        }
    }

    // buffer ids of the leafs, so that a leaf placed as a parent goes to its own buffer
    for (int i = 0; i < graph->n_leafs; i++) {
        struct hash_node * hn = hn_get(galloc, graph->leafs[i]);
        hn->buffer_id = get_buffer_id(leaf_buffer_ids, i);
        hn->leaf = true;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        hn_get(galloc, graph->nodes[i])->buffer_id = get_buffer_id(node_buffer_ids, i);
    }

    // count children and views; inputs are placed first so that they never overlap
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];

        if (tensor_is_view(node)) {
            hn_get(galloc, node->view_src)->n_views += 1;
            if (node->flags & GGML_TENSOR_FLAG_OUTPUT) {
                hn_get(galloc, node->view_src)->out_view = true;
            }
        }
        if (node->flags & GGML_TENSOR_FLAG_INPUT) {
            allocate_node(galloc, node, get_buffer_id(node_buffer_ids, i));
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            hn_get(galloc, src)->n_children += 1;
            if (src->flags & GGML_TENSOR_FLAG_INPUT) {
                allocate_node(galloc, src, hn_get(galloc, src)->buffer_id);
            }
        }
    }

    // leafs (and the sources of leaf views) get their memory before any node runs
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        if (leaf->view_src && !is_allocated(galloc, leaf->view_src)) {
            allocate_node(galloc, leaf->view_src, get_buffer_id(leaf_buffer_ids, i));
        }
        allocate_node(galloc, leaf, get_buffer_id(leaf_buffer_ids, i));
    }

    // place the nodes in execution order
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int buffer_id = get_buffer_id(node_buffer_ids, i);

        // parents not yet placed (leafs and view sources)
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * parent = node->src[j];
            if (parent == NULL) {
                continue;
            }
            if (parent->view_src && !is_allocated(galloc, parent->view_src)) {
                allocate_node(galloc, parent->view_src, hn_get(galloc, parent->view_src)->buffer_id);
            }
            allocate_node(galloc, parent, hn_get(galloc, parent)->buffer_id);
        }
        if (node->view_src && !is_allocated(galloc, node->view_src)) {
            allocate_node(galloc, node->view_src, buffer_id);
        }

        allocate_node(galloc, node, buffer_id);

        // release the parents whose last consumer this was
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * parent = node->src[j];
            if (parent == NULL) {
                continue;
            }
            struct hash_node * p_hn = hn_get(galloc, parent);
            p_hn->n_children -= 1;

            if (p_hn->n_children == 0 && p_hn->n_views == 0) {
                if (tensor_is_view(parent)) {
                    struct ggml_tensor * vsrc = parent->view_src;
                    struct hash_node * v_hn = hn_get(galloc, vsrc);
                    v_hn->n_views -= 1;
                    if (v_hn->n_views == 0 && v_hn->n_children == 0 && v_hn->ours) {
                        free_node(galloc, vsrc);
                    }
                } else if (p_hn->ours) {
                    free_node(galloc, parent);
                }
            }
        }

        // a dependency marker (an op-less view nobody reads, as the scheduler
        // adds them) holds its source only until it has been placed
        struct hash_node * hn = hn_get(galloc, node);
        if (node->op == GGML_OP_NONE && tensor_is_view(node) && hn->n_children == 0 && hn->n_views == 0 &&
            !(node->flags & GGML_TENSOR_FLAG_OUTPUT)) {
            struct hash_node * v_hn = hn_get(galloc, node->view_src);
            v_hn->n_views -= 1;
            if (v_hn->n_views == 0 && v_hn->n_children == 0 && v_hn->ours) {
                free_node(galloc, node->view_src);
            }
        }
    }

    // leafs no node uses
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        if (leaf->view_src && !is_allocated(galloc, leaf->view_src)) {
            allocate_node(galloc, leaf->view_src, get_buffer_id(leaf_buffer_ids, i));
        }
        allocate_node(galloc, leaf, get_buffer_id(leaf_buffer_ids, i));
    }
}

// A fingerprint of which node reads which tensor: a plan made for one graph
// is only reused for a graph of the same shape of dependencies. Uses the
// hash set (the plan is already recorded when this runs).
static uint64_t graph_topology(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    gbh_reset(&galloc->hash_set);
    for (int i = 0; i < graph->n_leafs; i++) {
        galloc->hash_values[gbh_insert(&galloc->hash_set, graph->leafs[i])].n_children = 1 + i;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        galloc->hash_values[gbh_insert(&galloc->hash_set, graph->nodes[i])].n_children = 1 + graph->n_leafs + i;
    }
    uint64_t h = 1469598103934665603ull;
#define MIX(v) do { h ^= (uint64_t) (v); h *= 1099511628211ull; } while (0)
    for (int i = 0; i < graph->n_nodes; i++) {
        const struct ggml_tensor * node = graph->nodes[i];
        MIX(node->op);
        MIX(node->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT));
        for (int j = 0; j < GGML_MAX_SRC + 1; j++) {
            const struct ggml_tensor * t = j < GGML_MAX_SRC ? node->src[j] : node->view_src;
            size_t slot = t ? gbh_find(&galloc->hash_set, t) : GBH_FULL;
            MIX(slot == GBH_FULL ? (t ? 0x7fffffff : 0) : galloc->hash_values[slot].n_children);
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        MIX(graph->leafs[i]->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT));
        MIX(graph->leafs[i]->view_src != NULL);
    }
#undef MIX
    gbh_reset(&galloc->hash_set);
    memset(galloc->hash_values, 0, galloc->hash_set.size * sizeof(*galloc->hash_values));
    return h;
}

static void record_alloc(ggml_gallocr_t galloc, const struct ggml_tensor * t, struct tensor_alloc * ta) {
    struct hash_node * hn = hn_get(galloc, t);
    ta->buffer_id = hn->buffer_id;
    if (t->data == NULL && t->view_src == NULL && hn->ours) {
        ta->addr     = hn->addr;
        ta->size_max = ggml_backend_buft_get_alloc_size(galloc->bufts[hn->buffer_id], t);
        if (ta->size_max == 0) {
            ta->size_max = 1;
        }
    } else {
        ta->addr.chunk  = 0;
        ta->addr.offset = SIZE_MAX;
        ta->size_max    = 0;
    }
}

// plan the graph; sizes (per buffer id, may be NULL) receive the bytes needed.
// With no_alloc, the buffers are left as they are.
static bool reserve_impl(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                         const int * leaf_buffer_ids, bool no_alloc, size_t * sizes) {
    alloc_graph_impl(galloc, graph, node_buffer_ids, leaf_buffer_ids);

    // record the plan
    if (galloc->n_nodes < graph->n_nodes) {
        free(galloc->node_allocs);
        galloc->node_allocs = (struct node_alloc *) calloc(graph->n_nodes, sizeof(*galloc->node_allocs));
        GGML_ASSERT(galloc->node_allocs != NULL);
    }
    galloc->n_nodes = graph->n_nodes;
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        struct node_alloc * na = &galloc->node_allocs[i];
        record_alloc(galloc, node, &na->dst);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j]) {
                record_alloc(galloc, node->src[j], &na->src[j]);
            } else {
                na->src[j].buffer_id = -1;
                na->src[j].size_max  = 0;
            }
        }
    }
    if (galloc->n_leafs < graph->n_leafs) {
        free(galloc->leaf_allocs);
        galloc->leaf_allocs = (struct leaf_alloc *) calloc(graph->n_leafs, sizeof(*galloc->leaf_allocs));
        GGML_ASSERT(galloc->leaf_allocs != NULL);
    }
    galloc->n_leafs = graph->n_leafs;
    for (int i = 0; i < graph->n_leafs; i++) {
        record_alloc(galloc, graph->leafs[i], &galloc->leaf_allocs[i].leaf);
    }
    galloc->topology = graph_topology(galloc, graph);

    // size the buffers: one per chunk, grown only when the plan needs more
    bool ok = true;
    for (int i = 0; i < galloc->n_buffers; i++) {
        bool shared = false;
        for (int j = 0; j < i; j++) {
            if (galloc->allocs[j] == galloc->allocs[i]) {
                shared = true;
            }
        }
        struct dyn_tallocr * a = galloc->allocs[i];
        struct vbuffer * vb = galloc->buffers[i];
        if (sizes) {
            size_t total = 0;
            if (!shared) {
                for (int c = 0; c < a->n_chunks; c++) {
                    total += a->chunks[c].max_size;
                }
            }
            sizes[i] = total;
        }
        if (shared || no_alloc) {
            continue;
        }
        for (int c = 0; c < a->n_chunks; c++) {
            size_t need = a->chunks[c].max_size;
            size_t have = c < vb->n_chunks && vb->chunks[c] ? ggml_backend_buffer_get_size(vb->chunks[c]) : 0;
            if (need > have || (c < vb->n_chunks && vb->chunks[c] == NULL)) {
                if (c < vb->n_chunks) {
                    ggml_backend_buffer_free(vb->chunks[c]);
                    vb->chunks[c] = NULL;
                }
                ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(galloc->bufts[i], need);
                if (buf == NULL) {
                    GGML_LOG_ERROR("%s: failed to allocate %s buffer of size %zu\n", __func__,
                                   ggml_backend_buft_name(galloc->bufts[i]), need);
                    ok = false;
                    if (c >= vb->n_chunks) {
                        vb->n_chunks = c + 1;
                    }
                    continue;
                }
                ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
                vb->chunks[c] = buf;
                if (c >= vb->n_chunks) {
                    vb->n_chunks = c + 1;
                }
            }
        }
    }
    return ok;
}

bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    return reserve_impl(galloc, graph, node_buffer_ids, leaf_buffer_ids, false, NULL);
}

void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                 const int * leaf_buffer_ids, size_t * sizes) {
    reserve_impl(galloc, graph, node_buffer_ids, leaf_buffer_ids, true, sizes);
}

bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    return ggml_gallocr_reserve_n(galloc, graph, NULL, NULL);
}

static bool init_tensor(ggml_gallocr_t galloc, struct ggml_tensor * tensor, const struct tensor_alloc * ta) {
    if (tensor->view_src != NULL) {
        if (tensor->buffer == NULL) {
            if (tensor->view_src->buffer == NULL) {
                return true; // its source comes later in the graph
            }
            return ggml_backend_view_init(tensor) == GGML_STATUS_SUCCESS;
        }
        return true;
    }
    if (tensor->data != NULL || ta->size_max == 0) {
        return true;
    }
    struct vbuffer * vb = galloc->buffers[ta->buffer_id];
    GGML_ASSERT(ta->addr.chunk < vb->n_chunks && vb->chunks[ta->addr.chunk] != NULL);
    ggml_backend_buffer_t buf = vb->chunks[ta->addr.chunk];
    void * addr = (char *) ggml_backend_buffer_get_base(buf) + ta->addr.offset;
    return ggml_backend_tensor_alloc(buf, tensor, addr) == GGML_STATUS_SUCCESS;
}

static bool node_alloc_fits(ggml_gallocr_t galloc, const struct ggml_tensor * t, const struct tensor_alloc * ta) {
    if (t->data != NULL || t->view_src != NULL) {
        return true;
    }
    if (ta->size_max == 0) {
        return false; // planned as pre-allocated or a view, but it is neither now
    }
    if (ta->buffer_id < 0 || ta->buffer_id >= galloc->n_buffers) {
        return false;
    }
    return ggml_backend_buft_get_alloc_size(galloc->bufts[ta->buffer_id], t) <= ta->size_max;
}

static bool needs_realloc(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (galloc->n_nodes != graph->n_nodes || galloc->n_leafs != graph->n_leafs) {
        return true;
    }
    if (galloc->hash_set.size == 0 || graph_topology(galloc, graph) != galloc->topology) {
        // same size, other dependencies: the plan's lifetimes do not apply
        return true;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        struct node_alloc * na = &galloc->node_allocs[i];
        if (!node_alloc_fits(galloc, node, &na->dst)) {
            return true;
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            if (!node_alloc_fits(galloc, src, &na->src[j])) {
                return true;
            }
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        if (!node_alloc_fits(galloc, graph->leafs[i], &galloc->leaf_allocs[i].leaf)) {
            return true;
        }
    }
    // every planned chunk has its buffer
    for (int i = 0; i < galloc->n_buffers; i++) {
        struct vbuffer * vb = galloc->buffers[i];
        for (int c = 0; c < galloc->allocs[i]->n_chunks; c++) {
            if (c >= vb->n_chunks || vb->chunks[c] == NULL) {
                return true;
            }
        }
    }
    return false;
}

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (needs_realloc(galloc, graph)) {
        if (galloc->n_buffers == 1) {
            if (!ggml_gallocr_reserve(galloc, graph)) {
                return false;
            }
        } else {
            GGML_LOG_DEBUG("%s: cannot reallocate multi buffer graph automatically, call reserve\n", __func__);
            return false;
        }
    }

    // reset the buffers (tensor extras) before placing the tensors again
    for (int i = 0; i < galloc->n_buffers; i++) {
        bool shared = false;
        for (int j = 0; j < i; j++) {
            if (galloc->buffers[j] == galloc->buffers[i]) {
                shared = true;
            }
        }
        if (shared) {
            continue;
        }
        struct vbuffer * vb = galloc->buffers[i];
        for (int c = 0; c < vb->n_chunks; c++) {
            if (vb->chunks[c]) {
                ggml_backend_buffer_reset(vb->chunks[c]);
            }
        }
    }

    bool ok = true;
    // leafs first, then nodes with their sources (views after their source)
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        ok = init_tensor(galloc, leaf, &galloc->leaf_allocs[i].leaf) && ok;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        struct node_alloc * na = &galloc->node_allocs[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            ok = init_tensor(galloc, src, &na->src[j]) && ok;
        }
        ok = init_tensor(galloc, node, &na->dst) && ok;
    }
    // views whose source came after them
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        if (leaf->view_src && leaf->buffer == NULL && leaf->view_src->buffer) {
            ok = ggml_backend_view_init(leaf) == GGML_STATUS_SUCCESS && ok;
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (node->view_src && node->buffer == NULL && node->view_src->buffer) {
            ok = ggml_backend_view_init(node) == GGML_STATUS_SUCCESS && ok;
        }
    }
    return ok;
}

size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id) {
    GGML_ASSERT(buffer_id >= 0 && buffer_id < galloc->n_buffers);
    // a buffer shared with a lower id is counted there
    for (int i = 0; i < buffer_id; i++) {
        if (galloc->buffers[i] == galloc->buffers[buffer_id]) {
            return 0;
        }
    }
    struct vbuffer * vb = galloc->buffers[buffer_id];
    size_t total = 0;
    for (int c = 0; c < vb->n_chunks; c++) {
        if (vb->chunks[c]) {
            total += ggml_backend_buffer_get_size(vb->chunks[c]);
        }
    }
    return total;
}

//
// allocate the tensors of a context
//

static bool alloc_tensor_range(struct ggml_context * ctx, struct ggml_tensor * first, struct ggml_tensor * last,
                               ggml_backend_buffer_type_t buft, size_t size,
                               ggml_backend_buffer_t ** buffers, size_t * n_buffers) {
    GGML_UNUSED(ctx);
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(buft, size);
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate %s buffer of size %zu\n", __func__, ggml_backend_buft_name(buft), size);
        return false;
    }
    ggml_backend_buffer_t * nb = (ggml_backend_buffer_t *) realloc(*buffers, (*n_buffers + 1) * sizeof(**buffers));
    GGML_ASSERT(nb != NULL);
    *buffers = nb;
    (*buffers)[(*n_buffers)++] = buffer;

    struct ggml_tallocr talloc = ggml_tallocr_new(buffer);
    for (struct ggml_tensor * t = first; t != last; t = ggml_get_next_tensor(ctx, t)) {
        enum ggml_status st = GGML_STATUS_SUCCESS;
        if (t->data == NULL) {
            if (t->view_src == NULL) {
                st = ggml_tallocr_alloc(&talloc, t);
            } else if (t->buffer == NULL && t->view_src->buffer != NULL) {
                st = ggml_backend_view_init(t);
            }
        } else if (t->view_src != NULL && t->buffer == NULL) {
            st = ggml_backend_view_init(t);
        }
        if (st != GGML_STATUS_SUCCESS) {
            return false;
        }
    }
    return true;
}

static ggml_backend_buffer_t alloc_ctx_tensors_impl(struct ggml_context * ctx, ggml_backend_buffer_type_t buft, bool no_alloc, size_t * nbytes_total) {
    GGML_ASSERT(ggml_get_no_alloc(ctx) == true);

    size_t alignment = ggml_backend_buft_get_alignment(buft);
    size_t max_size  = ggml_backend_buft_get_max_size(buft);

    ggml_backend_buffer_t * buffers = NULL;
    size_t n_buffers = 0;
    *nbytes_total = 0;

    size_t cur_buf_size = 0;
    struct ggml_tensor * first = ggml_get_first_tensor(ctx);
    for (struct ggml_tensor * t = first; t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        size_t this_size = 0;
        if (t->data == NULL && t->view_src == NULL) {
            this_size = align_up(ggml_backend_buft_get_alloc_size(buft, t), alignment);
        }
        if (this_size > max_size) {
            GGML_LOG_ERROR("%s: tensor %s is too large to fit in a %s buffer (tensor size: %zu, max buffer size: %zu)\n",
                           __func__, t->name, ggml_backend_buft_name(buft), this_size, max_size);
            goto fail;
        }
        if (cur_buf_size > 0 && cur_buf_size + this_size > max_size) {
            // this tensor starts a new buffer
            if (!no_alloc && !alloc_tensor_range(ctx, first, t, buft, cur_buf_size, &buffers, &n_buffers)) {
                goto fail;
            }
            *nbytes_total += cur_buf_size;
            first = t;
            cur_buf_size = this_size;
        } else {
            cur_buf_size += this_size;
        }
    }
    if (cur_buf_size > 0) {
        if (!no_alloc && !alloc_tensor_range(ctx, first, NULL, buft, cur_buf_size, &buffers, &n_buffers)) {
            goto fail;
        }
        *nbytes_total += cur_buf_size;
    }

    if (no_alloc) {
        return NULL;
    }
    if (n_buffers == 0) {
        GGML_LOG_DEBUG("%s: all tensors in the context are already allocated\n", __func__);
        return NULL;
    }
    ggml_backend_buffer_t buffer;
    if (n_buffers == 1) {
        buffer = buffers[0];
    } else {
        buffer = ggml_backend_multi_buffer_alloc_buffer(buffers, n_buffers);
    }
    free(buffers);
    return buffer;

fail:
    for (size_t i = 0; i < n_buffers; i++) {
        ggml_backend_buffer_free(buffers[i]);
    }
    free(buffers);
    return NULL;
}

size_t ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    size_t nbytes_total = 0;
    alloc_ctx_tensors_impl(ctx, buft, true, &nbytes_total);
    return nbytes_total;
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    if (ggml_backend_buft_is_meta(buft)) {
        // each device gets its slices only (ggml-backend-meta.c)
        return ggml_backend_meta_alloc_ctx_tensors_from_buft(ctx, buft);
    }
    size_t nbytes_total = 0;
    return alloc_ctx_tensors_impl(ctx, buft, false, &nbytes_total);
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend) {
    return ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_get_default_buffer_type(backend));
}
