/*
 * ggml.c - contexts, tensors, graphs and the tensor hash set.
 *
 * A context is one memory pool. Every allocation in it (tensor, graph, work
 * buffer) starts with a struct ggml_object header; the objects form a list
 * in allocation order, each payload padded to GGML_MEM_ALIGN. A tensor object
 * holds the struct ggml_tensor and, unless the context is no_alloc or the
 * tensor is a view, its data right after it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct ggml_object) % GGML_MEM_ALIGN == 0, "ggml_object size must keep payloads aligned");
_Static_assert(sizeof(struct ggml_tensor) % GGML_MEM_ALIGN == 0, "ggml_tensor size must keep data aligned");
_Static_assert(GGML_OP_COUNT == 101, "enum ggml_op must have upstream's 101 ops");
_Static_assert(GGML_UNARY_OP_COUNT == 22, "enum ggml_unary_op must have upstream's 22 ops");
_Static_assert(GGML_GLU_OP_COUNT == 6, "enum ggml_glu_op must have upstream's 6 ops");

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

struct ggml_context {
    size_t mem_size;
    void * mem_buffer;
    bool   mem_buffer_owned;
    bool   no_alloc;

    int    n_objects;

    struct ggml_object * objects_begin;
    struct ggml_object * objects_end;
};

struct ggml_context * ggml_init(struct ggml_init_params params) {
    if (params.mem_size == 0) {
        params.mem_size = GGML_MEM_ALIGN;
    }
    struct ggml_context * ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: out of memory for the context\n", __func__);
        return NULL;
    }
    ctx->mem_size  = params.mem_buffer ? params.mem_size : GGML_PAD(params.mem_size, GGML_MEM_ALIGN);
    ctx->no_alloc  = params.no_alloc;
    if (params.mem_buffer) {
        ctx->mem_buffer       = params.mem_buffer;
        ctx->mem_buffer_owned = false;
    } else {
        ctx->mem_buffer       = ggml_aligned_malloc(ctx->mem_size);
        ctx->mem_buffer_owned = true;
        if (ctx->mem_buffer == NULL) {
            GGML_LOG_ERROR("%s: cannot allocate a %zu-byte memory pool\n", __func__, ctx->mem_size);
            free(ctx);
            return NULL;
        }
    }
    GGML_ASSERT(((uintptr_t) ctx->mem_buffer) % GGML_MEM_ALIGN == 0);
    return ctx;
}

void ggml_reset(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    ctx->n_objects     = 0;
    ctx->objects_begin = NULL;
    ctx->objects_end   = NULL;
}

void ggml_free(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    if (ctx->mem_buffer_owned) {
        ggml_aligned_free(ctx->mem_buffer, ctx->mem_size);
    }
    free(ctx);
}

size_t ggml_used_mem(const struct ggml_context * ctx) {
    return ctx->objects_end ? ctx->objects_end->offs + ctx->objects_end->size : 0;
}

bool ggml_get_no_alloc(struct ggml_context * ctx) {
    return ctx->no_alloc;
}

void ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc) {
    ctx->no_alloc = no_alloc;
}

void * ggml_get_mem_buffer(const struct ggml_context * ctx) {
    return ctx->mem_buffer;
}

size_t ggml_get_mem_size(const struct ggml_context * ctx) {
    return ctx->mem_size;
}

size_t ggml_tensor_overhead(void) {
    return GGML_OBJECT_SIZE + sizeof(struct ggml_tensor);
}

// Appends an object with a payload of size bytes; aborts when the pool is
// too small (a caller error: the pool size is the caller's estimate).
static struct ggml_object * ggml_new_object(struct ggml_context * ctx, enum ggml_object_type type, size_t size) {
    const size_t cur_end     = ggml_used_mem(ctx);
    const size_t size_needed = GGML_PAD(size, GGML_MEM_ALIGN);

    if (size_needed < size || cur_end + GGML_OBJECT_SIZE + size_needed > ctx->mem_size) {
        GGML_LOG_ERROR("%s: not enough space in the context's memory pool (needed %zu, available %zu)\n",
                       __func__, cur_end + GGML_OBJECT_SIZE + size_needed, ctx->mem_size);
        GGML_ABORT("context memory pool of %zu bytes is full", ctx->mem_size);
    }

    char * mem = ctx->mem_buffer;
    struct ggml_object * obj = (struct ggml_object *) (mem + cur_end);
    memset(obj, 0, sizeof(*obj));
    obj->offs = cur_end + GGML_OBJECT_SIZE;
    obj->size = size_needed;
    obj->next = NULL;
    obj->type = type;

    if (ctx->objects_end) {
        ctx->objects_end->next = obj;
    } else {
        ctx->objects_begin = obj;
    }
    ctx->objects_end = obj;
    ctx->n_objects++;
    return obj;
}

void * ggml_new_buffer(struct ggml_context * ctx, size_t nbytes) {
    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_WORK_BUFFER, nbytes);
    return (char *) ctx->mem_buffer + obj->offs;
}

void ggml_print_object(const struct ggml_object * obj) {
    GGML_LOG_INFO(" - ggml_object: type = %d, offset = %zu, size = %zu, next = %p\n",
                  (int) obj->type, obj->offs, obj->size, (const void *) obj->next);
}

void ggml_print_objects(const struct ggml_context * ctx) {
    GGML_LOG_INFO("%s: objects in context %p:\n", __func__, (const void *) ctx);
    for (const struct ggml_object * obj = ctx->objects_begin; obj != NULL; obj = obj->next) {
        ggml_print_object(obj);
    }
    GGML_LOG_INFO("%s: --- end ---\n", __func__);
}

// ---------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------

static struct ggml_tensor * ggml_new_tensor_impl(
        struct ggml_context * ctx,
        enum   ggml_type      type,
        int                   n_dims,
        const int64_t       * ne,
        struct ggml_tensor  * view_src,
        size_t                view_offs) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    GGML_ASSERT(ggml_blck_size(type) > 0 && "tensor type was removed from ggml");
    GGML_ASSERT(n_dims >= 1 && n_dims <= GGML_MAX_DIMS);

    // a view of a view views the original tensor
    if (view_src != NULL && view_src->view_src != NULL) {
        view_offs += view_src->view_offs;
        view_src   = view_src->view_src;
    }

    int64_t shape[GGML_MAX_DIMS] = { 1, 1, 1, 1 };
    for (int i = 0; i < n_dims; i++) {
        GGML_ASSERT(ne[i] >= 0);
        shape[i] = ne[i];
    }
    GGML_ASSERT(shape[0] % ggml_blck_size(type) == 0 && "ne[0] must be a multiple of the type's block size");

    size_t data_size = ggml_row_size(type, shape[0]);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (__builtin_mul_overflow(data_size, (size_t) shape[i], &data_size)) {
            GGML_ABORT("tensor of [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "] %s is too large",
                       shape[0], shape[1], shape[2], shape[3], ggml_type_name(type));
        }
    }

    GGML_ASSERT(view_src == NULL || data_size == 0 || data_size + view_offs <= ggml_nbytes(view_src));

    void * data = view_src != NULL && view_src->data != NULL ? (char *) view_src->data + view_offs : NULL;

    const size_t obj_alloc_size = (view_src == NULL && !ctx->no_alloc) ? data_size : 0;

    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_TENSOR, sizeof(struct ggml_tensor) + obj_alloc_size);
    struct ggml_tensor * result = (struct ggml_tensor *) ((char *) ctx->mem_buffer + obj->offs);

    memset(result, 0, sizeof(*result));
    result->type      = type;
    result->buffer    = NULL;
    result->op        = GGML_OP_NONE;
    result->view_src  = view_src;
    result->view_offs = view_offs;
    result->data      = obj_alloc_size > 0 ? (void *) (result + 1) : data;

    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[i] = shape[i];
    }
    result->nb[0] = ggml_type_size(type);
    result->nb[1] = result->nb[0] * (size_t) (result->ne[0] / ggml_blck_size(type));
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = result->nb[i - 1] * (size_t) result->ne[i - 1];
    }
    return result;
}

struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne) {
    return ggml_new_tensor_impl(ctx, type, n_dims, ne, NULL, 0);
}

struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0) {
    return ggml_new_tensor(ctx, type, 1, &ne0);
}

struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = { ne0, ne1 };
    return ggml_new_tensor(ctx, type, 2, ne);
}

struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type,
                                        int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return ggml_new_tensor(ctx, type, 3, ne);
}

struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type,
                                        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return ggml_new_tensor(ctx, type, 4, ne);
}

struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src) {
    return ggml_new_tensor(ctx, src->type, GGML_MAX_DIMS, src->ne);
}

struct ggml_tensor * ggml_new_view_impl(struct ggml_context * ctx, struct ggml_tensor * src,
                                        int n_dims, const int64_t * ne, size_t offset) {
    return ggml_new_tensor_impl(ctx, src->type, n_dims, ne, src, offset);
}

struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src) {
    struct ggml_tensor * result = ggml_new_tensor_impl(ctx, src->type, GGML_MAX_DIMS, src->ne, src, 0);
    ggml_format_name(result, "%s (view)", src->name);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = src->nb[i];
    }
    return result;
}

struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx) {
    for (struct ggml_object * obj = ctx->objects_begin; obj != NULL; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *) ((char *) ctx->mem_buffer + obj->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * tensor) {
    struct ggml_object * obj = (struct ggml_object *) ((char *) tensor - GGML_OBJECT_SIZE);
    for (obj = obj->next; obj != NULL; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *) ((char *) ctx->mem_buffer + obj->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return NULL;
}

size_t ggml_get_max_tensor_size(const struct ggml_context * ctx) {
    size_t max_size = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        size_t bytes = ggml_nbytes(t);
        if (bytes > max_size) {
            max_size = bytes;
        }
    }
    return max_size;
}

// ---------------------------------------------------------------------------
// Tensor geometry
// ---------------------------------------------------------------------------

int64_t ggml_nelements(const struct ggml_tensor * tensor) {
    return tensor->ne[0] * tensor->ne[1] * tensor->ne[2] * tensor->ne[3];
}

int64_t ggml_nrows(const struct ggml_tensor * tensor) {
    return tensor->ne[1] * tensor->ne[2] * tensor->ne[3];
}

// Bytes from the first element (block) to the end of the last one.
size_t ggml_nbytes(const struct ggml_tensor * tensor) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] <= 0) {
            return 0;
        }
    }
    const int64_t blck = ggml_blck_size(tensor->type);
    size_t last = 0; // offset of the last block
    last += (size_t) (tensor->ne[0] / blck - 1) * tensor->nb[0];
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        last += (size_t) (tensor->ne[i] - 1) * tensor->nb[i];
    }
    return last + ggml_type_size(tensor->type);
}

size_t ggml_nbytes_pad(const struct ggml_tensor * tensor) {
    return GGML_PAD(ggml_nbytes(tensor), GGML_MEM_ALIGN);
}

size_t ggml_element_size(const struct ggml_tensor * tensor) {
    return ggml_type_size(tensor->type);
}

bool ggml_is_transposed(const struct ggml_tensor * tensor) {
    return tensor->nb[0] > tensor->nb[1];
}

bool ggml_is_permuted(const struct ggml_tensor * tensor) {
    return tensor->nb[0] > tensor->nb[1] || tensor->nb[1] > tensor->nb[2] || tensor->nb[2] > tensor->nb[3];
}

bool ggml_is_empty(const struct ggml_tensor * tensor) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] == 0) {
            return true;
        }
    }
    return false;
}

bool ggml_is_scalar(const struct ggml_tensor * tensor) {
    return tensor->ne[0] == 1 && tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_vector(const struct ggml_tensor * tensor) {
    return tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_matrix(const struct ggml_tensor * tensor) {
    return tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_3d(const struct ggml_tensor * tensor) {
    return tensor->ne[3] == 1;
}

int ggml_n_dims(const struct ggml_tensor * tensor) {
    for (int i = GGML_MAX_DIMS - 1; i >= 1; i--) {
        if (tensor->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

// Dims 0..n may have any strides (each row-of-dims block is contiguous from
// dim n+1 on); dims above n must be packed. Dims of size 1 are ignored.
static bool is_contiguous_above(const struct ggml_tensor * tensor, int n) {
    const int64_t blck = ggml_blck_size(tensor->type);
    size_t expect = ggml_type_size(tensor->type);
    if (tensor->ne[0] != blck && tensor->nb[0] != expect) {
        return false;
    }
    expect *= (size_t) (tensor->ne[0] / blck);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] == 1) {
            continue;
        }
        if (i > n) {
            if (tensor->nb[i] != expect) {
                return false;
            }
            expect *= (size_t) tensor->ne[i];
        } else {
            expect = (size_t) tensor->ne[i] * tensor->nb[i];
        }
    }
    return true;
}

bool ggml_is_contiguous(const struct ggml_tensor * tensor) {
    return is_contiguous_above(tensor, 0);
}

bool ggml_is_contiguous_0(const struct ggml_tensor * tensor) {
    return is_contiguous_above(tensor, 0);
}

bool ggml_is_contiguous_1(const struct ggml_tensor * tensor) {
    return is_contiguous_above(tensor, 1);
}

bool ggml_is_contiguous_2(const struct ggml_tensor * tensor) {
    return is_contiguous_above(tensor, 2);
}

// dims 0..n-1 packed (dims of size 1 ignored), dims n.. any strides
static bool is_packed_below(const struct ggml_tensor * tensor, int n) {
    const int64_t blck = ggml_blck_size(tensor->type);
    size_t expect = ggml_type_size(tensor->type);
    if (tensor->ne[0] != blck && tensor->nb[0] != expect) {
        return false;
    }
    expect *= (size_t) (tensor->ne[0] / blck);
    for (int i = 1; i < n; i++) {
        if (tensor->ne[i] != 1 && tensor->nb[i] != expect) {
            return false;
        }
        expect *= (size_t) tensor->ne[i];
    }
    return true;
}

bool ggml_is_contiguous_to_1(const struct ggml_tensor * tensor) {
    return is_packed_below(tensor, 1);
}

bool ggml_is_contiguous_to_2(const struct ggml_tensor * tensor) {
    return is_packed_below(tensor, 2);
}

bool ggml_is_contiguous_to_3(const struct ggml_tensor * tensor) {
    return is_packed_below(tensor, 3);
}

bool ggml_is_view(const struct ggml_tensor * tensor) {
    return ggml_impl_is_view(tensor);
}

double ggml_type_sizef(enum ggml_type type) {
    return (double) ggml_type_size(type) / (double) ggml_blck_size(type);
}

bool ggml_is_contiguously_allocated(const struct ggml_tensor * tensor) {
    return ggml_nbytes(tensor) ==
           (size_t) ggml_nelements(tensor) * ggml_type_size(tensor->type) / (size_t) ggml_blck_size(tensor->type);
}

bool ggml_is_contiguous_channels(const struct ggml_tensor * tensor) {
    return tensor->nb[0] > tensor->nb[2] && tensor->nb[1] > tensor->nb[0] &&
           tensor->nb[2] == ggml_type_size(tensor->type);
}

bool ggml_is_contiguous_rows(const struct ggml_tensor * tensor) {
    return tensor->ne[0] == ggml_blck_size(tensor->type) || tensor->nb[0] == ggml_type_size(tensor->type);
}

bool ggml_are_same_shape(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->ne[i] != t1->ne[i]) {
            return false;
        }
    }
    return true;
}

bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->nb[i] != t1->nb[i]) {
            return false;
        }
    }
    return true;
}

// t0 tiles t1: every dimension of t1 is a multiple of t0's
bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (ggml_is_empty(t0)) {
        return ggml_is_empty(t1);
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t1->ne[i] % t0->ne[i] != 0) {
            return false;
        }
    }
    return true;
}

void ggml_unravel_index(const struct ggml_tensor * tensor, int64_t i,
                        int64_t * i0, int64_t * i1, int64_t * i2, int64_t * i3) {
    const int64_t ne0 = tensor->ne[0], ne1 = tensor->ne[1], ne2 = tensor->ne[2];
    const int64_t j3 = i / (ne2 * ne1 * ne0);
    const int64_t j2 = (i - j3 * ne2 * ne1 * ne0) / (ne1 * ne0);
    const int64_t j1 = (i - j3 * ne2 * ne1 * ne0 - j2 * ne1 * ne0) / ne0;
    const int64_t j0 = i - j3 * ne2 * ne1 * ne0 - j2 * ne1 * ne0 - j1 * ne0;
    if (i0) { *i0 = j0; }
    if (i1) { *i1 = j1; }
    if (i2) { *i2 = j2; }
    if (i3) { *i3 = j3; }
}

// ---------------------------------------------------------------------------
// Tensor accessors, names, flags
// ---------------------------------------------------------------------------

enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_UNARY);
    return (enum ggml_unary_op) ggml_get_op_params_i32(tensor, 0);
}

enum ggml_glu_op ggml_get_glu_op(const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_GLU);
    return (enum ggml_glu_op) ggml_get_op_params_i32(tensor, 0);
}

void * ggml_get_data(const struct ggml_tensor * tensor) {
    return tensor->data;
}

float * ggml_get_data_f32(const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->type == GGML_TYPE_F32);
    return (float *) tensor->data;
}

const char * ggml_get_name(const struct ggml_tensor * tensor) {
    return tensor->name;
}

struct ggml_tensor * ggml_set_name(struct ggml_tensor * tensor, const char * name) {
    size_t n = strlen(name);
    if (n >= sizeof(tensor->name)) {
        n = sizeof(tensor->name) - 1;
    }
    memmove(tensor->name, name, n);
    tensor->name[n] = '\0';
    return tensor;
}

struct ggml_tensor * ggml_format_name(struct ggml_tensor * tensor, const char * fmt, ...) {
    char buf[GGML_MAX_NAME];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    memcpy(tensor->name, buf, sizeof(buf));
    return tensor;
}

void ggml_set_input(struct ggml_tensor * tensor) {
    tensor->flags |= GGML_TENSOR_FLAG_INPUT;
}

void ggml_set_output(struct ggml_tensor * tensor) {
    tensor->flags |= GGML_TENSOR_FLAG_OUTPUT;
}

void ggml_set_param(struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_NONE);
    tensor->flags |= GGML_TENSOR_FLAG_PARAM;
}

void ggml_set_loss(struct ggml_tensor * tensor) {
    GGML_ASSERT(ggml_is_scalar(tensor));
    GGML_ASSERT(tensor->type == GGML_TYPE_F32);
    tensor->flags |= GGML_TENSOR_FLAG_LOSS;
}

// ---------------------------------------------------------------------------
// Hash set
// ---------------------------------------------------------------------------

size_t ggml_hash_size(size_t min_sz) {
    // primes, each about twice the previous one
    static const size_t primes[] = {
        2, 3, 5, 11, 17, 37, 67, 131, 257, 521, 1031, 2053, 4099, 8209, 16411, 32771, 65537,
        131101, 262147, 524309, 1048583, 2097169, 4194319, 8388617, 16777259, 33554467,
        67108879, 134217757, 268435459, 536870923, 1073741827, 2147483659u,
    };
    const size_t n = sizeof(primes) / sizeof(primes[0]);
    size_t lo = 0, hi = n; // first prime >= min_sz in [lo, hi)
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (primes[mid] < min_sz) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n ? primes[lo] : (min_sz | 1);
}

struct ggml_hash_set ggml_hash_set_new(size_t size) {
    struct ggml_hash_set set;
    set.size = size;
    set.keys = malloc(sizeof(struct ggml_tensor *) * size);
    set.used = calloc(ggml_bitset_size(size), sizeof(ggml_bitset_t));
    GGML_ASSERT(set.keys != NULL && set.used != NULL && "out of memory for a hash set");
    return set;
}

void ggml_hash_set_free(struct ggml_hash_set * hash_set) {
    free(hash_set->used);
    free(hash_set->keys);
    hash_set->used = NULL;
    hash_set->keys = NULL;
}

void ggml_hash_set_reset(struct ggml_hash_set * hash_set) {
    memset(hash_set->used, 0, sizeof(ggml_bitset_t) * ggml_bitset_size(hash_set->size));
}

// ---------------------------------------------------------------------------
// Graphs
// ---------------------------------------------------------------------------

static atomic_uint_fast64_t graph_uid_counter = 1;

uint64_t ggml_graph_next_uid(void) {
    return (uint64_t) atomic_fetch_add(&graph_uid_counter, 1);
}

// Advances *p (an offset counted in a null pointer-sized integer) to an
// align boundary and past size bytes; returns the start.
static size_t carve(size_t * p, size_t size, size_t align) {
    size_t start = (*p + align - 1) / align * align;
    *p = start + size;
    return start;
}

struct graph_layout {
    size_t nodes, leafs, use_counts, keys, grads, grad_accs, bits, total;
};

static struct graph_layout graph_layout(size_t size, bool grads) {
    const size_t hash_size = ggml_hash_size(size * 2);
    struct graph_layout l = { 0 };
    size_t p = 0;
    carve(&p, sizeof(struct ggml_cgraph), 1);
    l.nodes      = carve(&p, size * sizeof(struct ggml_tensor *), sizeof(struct ggml_tensor *));
    l.leafs      = carve(&p, size * sizeof(struct ggml_tensor *), sizeof(struct ggml_tensor *));
    l.use_counts = carve(&p, hash_size * sizeof(int32_t), sizeof(int32_t));
    l.keys       = carve(&p, hash_size * sizeof(struct ggml_tensor *), sizeof(struct ggml_tensor *));
    if (grads) {
        l.grads     = carve(&p, hash_size * sizeof(struct ggml_tensor *), sizeof(struct ggml_tensor *));
        l.grad_accs = carve(&p, hash_size * sizeof(struct ggml_tensor *), sizeof(struct ggml_tensor *));
    }
    l.bits  = carve(&p, ggml_bitset_size(hash_size) * sizeof(ggml_bitset_t), sizeof(ggml_bitset_t));
    l.total = p;
    return l;
}

size_t ggml_graph_nbytes(size_t size, bool grads) {
    return graph_layout(size, grads).total;
}

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    return GGML_OBJECT_SIZE + GGML_PAD(ggml_graph_nbytes(size, grads), GGML_MEM_ALIGN);
}

size_t ggml_graph_overhead(void) {
    return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    GGML_ASSERT(size > 0 && size <= INT32_MAX);
    const struct graph_layout l = graph_layout(size, grads);
    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_GRAPH, l.total);
    char * base = (char *) ctx->mem_buffer + obj->offs;

    const size_t hash_size = ggml_hash_size(size * 2);

    struct ggml_cgraph * cgraph = (struct ggml_cgraph *) base;
    memset(cgraph, 0, sizeof(*cgraph));
    cgraph->size       = (int) size;
    cgraph->n_nodes    = 0;
    cgraph->n_leafs    = 0;
    cgraph->nodes      = (struct ggml_tensor **) (base + l.nodes);
    cgraph->leafs      = (struct ggml_tensor **) (base + l.leafs);
    cgraph->use_counts = (int32_t *) (base + l.use_counts);
    cgraph->grads      = grads ? (struct ggml_tensor **) (base + l.grads) : NULL;
    cgraph->grad_accs  = grads ? (struct ggml_tensor **) (base + l.grad_accs) : NULL;
    cgraph->visited_hash_set.size = hash_size;
    cgraph->visited_hash_set.keys = (struct ggml_tensor **) (base + l.keys);
    cgraph->visited_hash_set.used = (ggml_bitset_t *) (base + l.bits);
    cgraph->order = GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT;
    cgraph->uid   = ggml_graph_next_uid();

    ggml_hash_set_reset(&cgraph->visited_hash_set);
    if (grads) {
        memset(cgraph->grads,     0, hash_size * sizeof(struct ggml_tensor *));
        memset(cgraph->grad_accs, 0, hash_size * sizeof(struct ggml_tensor *));
    }
    return cgraph;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph0, int i0, int i1) {
    GGML_ASSERT(i0 >= 0 && i0 <= i1 && i1 <= cgraph0->n_nodes);
    struct ggml_cgraph view = {
        .size             = 0,
        .n_nodes          = i1 - i0,
        .n_leafs          = 0,
        .nodes            = cgraph0->nodes + i0,
        .use_counts       = cgraph0->use_counts,
        .visited_hash_set = cgraph0->visited_hash_set,
        .order            = cgraph0->order,
        .uid              = ggml_graph_next_uid(),
    };
    return view;
}

// Adds t to the visited set with a use count of 0; false if already there.
static bool visit_insert(struct ggml_cgraph * cgraph, struct ggml_tensor * t) {
    const size_t i = ggml_hash_insert(&cgraph->visited_hash_set, t);
    if (i == GGML_HASHSET_ALREADY_EXISTS) {
        return false;
    }
    cgraph->use_counts[i] = 0;
    return true;
}

// Adds node and, before it, every tensor it depends on that the graph does
// not hold yet: sources in src order, depth first, iteratively.
static void graph_visit(struct ggml_cgraph * cgraph, struct ggml_tensor * root) {
    struct frame { struct ggml_tensor * t; int next_src; };

    if (!visit_insert(cgraph, root)) {
        return;
    }

    size_t cap = 64, depth = 0;
    struct frame * stack = malloc(cap * sizeof(*stack));
    GGML_ASSERT(stack != NULL);
    stack[depth++] = (struct frame) { root, 0 };

    while (depth > 0) {
        struct frame * f = &stack[depth - 1];
        struct ggml_tensor * node = f->t;

        if (f->next_src < GGML_MAX_SRC) {
            const int i = cgraph->order == GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT
                        ? f->next_src : GGML_MAX_SRC - 1 - f->next_src;
            f->next_src++;
            struct ggml_tensor * src = node->src[i];
            if (src == NULL) {
                continue;
            }
            const bool is_new = visit_insert(cgraph, src);
            cgraph->use_counts[ggml_hash_find(&cgraph->visited_hash_set, src)]++;
            if (is_new) {
                if (depth == cap) {
                    cap *= 2;
                    struct frame * grown = realloc(stack, cap * sizeof(*stack));
                    GGML_ASSERT(grown != NULL);
                    stack = grown;
                }
                stack[depth++] = (struct frame) { src, 0 };
            }
            continue;
        }

        // every source is in the graph: place the node itself
        depth--;
        if (node->op == GGML_OP_NONE && !(node->flags & GGML_TENSOR_FLAG_PARAM)) {
            if (cgraph->n_leafs >= cgraph->size) {
                GGML_ABORT("graph is full: more than %d leafs (use ggml_new_graph_custom with a larger size)", cgraph->size);
            }
            if (node->name[0] == '\0') {
                ggml_format_name(node, "leaf_%d", cgraph->n_leafs);
            }
            cgraph->leafs[cgraph->n_leafs++] = node;
        } else {
            if (cgraph->n_nodes >= cgraph->size) {
                GGML_ABORT("graph is full: more than %d nodes (use ggml_new_graph_custom with a larger size)", cgraph->size);
            }
            if (node->name[0] == '\0') {
                ggml_format_name(node, "node_%d", cgraph->n_nodes);
            }
            cgraph->nodes[cgraph->n_nodes++] = node;
        }
    }
    free(stack);
}

// Flags root and every tensor it depends on (through any number of
// sources) that has an op as to be computed (GGML_TENSOR_FLAG_COMPUTE);
// the backends skip graph nodes without the flag. A tensor already
// flagged was reached before, with everything it depends on.
static void mark_compute(struct ggml_tensor * root) {
    size_t cap = 64, depth = 0;
    struct ggml_tensor ** stack = malloc(cap * sizeof(*stack));
    GGML_ASSERT(stack != NULL);
    stack[depth++] = root;
    while (depth > 0) {
        struct ggml_tensor * t = stack[--depth];
        if (t->op != GGML_OP_NONE) {
            t->flags |= GGML_TENSOR_FLAG_COMPUTE;
        }
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            struct ggml_tensor * src = t->src[i];
            if (src == NULL || (src->flags & GGML_TENSOR_FLAG_COMPUTE)) {
                continue;
            }
            if (depth == cap) {
                cap *= 2;
                struct ggml_tensor ** grown = realloc(stack, cap * sizeof(*stack));
                GGML_ASSERT(grown != NULL);
                stack = grown;
            }
            stack[depth++] = src;
        }
    }
    free(stack);
}

static void build_forward(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor, bool compute) {
    const int n0 = cgraph->n_nodes;
    graph_visit(cgraph, tensor);
    if (cgraph->n_nodes > n0) {
        // the last node added is the tensor itself
        GGML_ASSERT(cgraph->nodes[cgraph->n_nodes - 1] == tensor);
    }
    if (compute) {
        mark_compute(tensor);
    }
}

void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    build_forward(cgraph, tensor, true);
}

// the nodes of tensor join the graph in order, but are computed only if
// something expanded with ggml_build_forward_expand needs them
void ggml_build_forward_order(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    build_forward(cgraph, tensor, false);
}

// Every candidate joins the graph (so the graph's shape and its allocation
// do not depend on idx); only tensors[idx] and what it depends on are computed.
struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors, int n_tensors,
                                               int idx) {
    GGML_ASSERT(idx >= 0 && idx < n_tensors && "ggml_build_forward_select: idx out of range");
    for (int i = 0; i < n_tensors; i++) {
        build_forward(cgraph, tensors[i], i == idx);
    }
    return tensors[idx];
}

void ggml_graph_cpy(struct ggml_cgraph * src, struct ggml_cgraph * dst) {
    GGML_ASSERT(dst->size >= src->n_leafs);
    GGML_ASSERT(dst->size >= src->n_nodes);
    GGML_ASSERT(dst->visited_hash_set.size >= src->visited_hash_set.size);

    dst->n_leafs = src->n_leafs;
    dst->n_nodes = src->n_nodes;
    dst->order   = src->order;
    if (src->n_leafs > 0) {
        memcpy(dst->leafs, src->leafs, (size_t) src->n_leafs * sizeof(struct ggml_tensor *));
    }
    if (src->n_nodes > 0) {
        memcpy(dst->nodes, src->nodes, (size_t) src->n_nodes * sizeof(struct ggml_tensor *));
    }

    ggml_hash_set_reset(&dst->visited_hash_set);
    for (size_t i = 0; i < src->visited_hash_set.size; i++) {
        if (!ggml_bitset_get(src->visited_hash_set.used, i)) {
            continue;
        }
        struct ggml_tensor * key = src->visited_hash_set.keys[i];
        const size_t j = ggml_hash_insert(&dst->visited_hash_set, key);
        GGML_ASSERT(j != GGML_HASHSET_ALREADY_EXISTS);
        dst->use_counts[j] = src->use_counts[i];
    }

    if (dst->grads) {
        memset(dst->grads,     0, dst->visited_hash_set.size * sizeof(struct ggml_tensor *));
        memset(dst->grad_accs, 0, dst->visited_hash_set.size * sizeof(struct ggml_tensor *));
    }
    if (src->grads) {
        GGML_ASSERT(dst->grads != NULL && dst->grad_accs != NULL);
        for (int i = 0; i < src->n_nodes; i++) {
            const size_t is = ggml_hash_find(&src->visited_hash_set, src->nodes[i]);
            const size_t id = ggml_hash_find(&dst->visited_hash_set, src->nodes[i]);
            dst->grads[id]     = src->grads[is];
            dst->grad_accs[id] = src->grad_accs[is];
        }
    }
}

struct ggml_cgraph * ggml_graph_dup(struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads) {
    struct ggml_cgraph * result = ggml_new_graph_custom(ctx, (size_t) cgraph->size, cgraph->grads != NULL || force_grads);
    ggml_graph_cpy(cgraph, result);
    return result;
}

void ggml_graph_clear(struct ggml_cgraph * cgraph) {
    cgraph->n_leafs = 0;
    cgraph->n_nodes = 0;
    ggml_hash_set_reset(&cgraph->visited_hash_set);
}

int ggml_graph_size(struct ggml_cgraph * cgraph) {
    return cgraph->size;
}

struct ggml_tensor * ggml_graph_node(struct ggml_cgraph * cgraph, int i) {
    if (i < 0) {
        GGML_ASSERT(cgraph->n_nodes + i >= 0);
        return cgraph->nodes[cgraph->n_nodes + i];
    }
    GGML_ASSERT(i < cgraph->n_nodes);
    return cgraph->nodes[i];
}

struct ggml_tensor ** ggml_graph_nodes(struct ggml_cgraph * cgraph) {
    return cgraph->nodes;
}

int ggml_graph_n_nodes(struct ggml_cgraph * cgraph) {
    return cgraph->n_nodes;
}

// A node added by hand is one to compute (upstream leaves the flag to the
// caller; a node without it would be skipped).
void ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    GGML_ASSERT(cgraph->size > cgraph->n_nodes);
    if (tensor->op != GGML_OP_NONE) {
        tensor->flags |= GGML_TENSOR_FLAG_COMPUTE;
    }
    cgraph->nodes[cgraph->n_nodes++] = tensor;
}

struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * cgraph, const char * name) {
    for (int i = 0; i < cgraph->n_leafs; i++) {
        if (strcmp(cgraph->leafs[i]->name, name) == 0) {
            return cgraph->leafs[i];
        }
    }
    for (int i = 0; i < cgraph->n_nodes; i++) {
        if (strcmp(cgraph->nodes[i]->name, name) == 0) {
            return cgraph->nodes[i];
        }
    }
    return NULL;
}

static struct ggml_tensor * graph_lookup(const struct ggml_cgraph * cgraph, struct ggml_tensor ** table,
                                         const struct ggml_tensor * node) {
    if (table == NULL) {
        return NULL;
    }
    const size_t i = ggml_hash_find(&cgraph->visited_hash_set, node);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(cgraph->visited_hash_set.used, i)) {
        return NULL;
    }
    return table[i];
}

struct ggml_tensor * ggml_graph_get_grad(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    return graph_lookup(cgraph, cgraph->grads, node);
}

struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    return graph_lookup(cgraph, cgraph->grad_accs, node);
}

void ggml_graph_print(const struct ggml_cgraph * cgraph) {
    GGML_LOG_INFO("=== GRAPH ===\n");
    GGML_LOG_INFO("n_nodes = %d\n", cgraph->n_nodes);
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        GGML_LOG_INFO(" - %3d: [ %5" PRId64 ", %5" PRId64 ", %5" PRId64 ", %5" PRId64 "] %16s %s %s\n",
                      i, node->ne[0], node->ne[1], node->ne[2], node->ne[3],
                      ggml_op_desc(node), ggml_type_name(node->type), node->name);
    }
    GGML_LOG_INFO("n_leafs = %d\n", cgraph->n_leafs);
    for (int i = 0; i < cgraph->n_leafs; i++) {
        const struct ggml_tensor * leaf = cgraph->leafs[i];
        GGML_LOG_INFO(" - %3d: [ %5" PRId64 ", %5" PRId64 "] %8s %16s\n",
                      i, leaf->ne[0], leaf->ne[1], ggml_op_name(leaf->op), ggml_get_name(leaf));
    }
    GGML_LOG_INFO("========================================\n");
}

// ---------------------------------------------------------------------------
// Op names
// ---------------------------------------------------------------------------

static const char * const op_names[GGML_OP_COUNT] = {
    [GGML_OP_NONE] = "NONE", [GGML_OP_DUP] = "DUP", [GGML_OP_ADD] = "ADD", [GGML_OP_ADD_ID] = "ADD_ID",
    [GGML_OP_ADD1] = "ADD1", [GGML_OP_ACC] = "ACC", [GGML_OP_SUB] = "SUB", [GGML_OP_MUL] = "MUL",
    [GGML_OP_DIV] = "DIV", [GGML_OP_SQR] = "SQR", [GGML_OP_SQRT] = "SQRT", [GGML_OP_LOG] = "LOG",
    [GGML_OP_SIN] = "SIN", [GGML_OP_COS] = "COS", [GGML_OP_SUM] = "SUM", [GGML_OP_SUM_ROWS] = "SUM_ROWS",
    [GGML_OP_CUMSUM] = "CUMSUM", [GGML_OP_MEAN] = "MEAN", [GGML_OP_ARGMAX] = "ARGMAX",
    [GGML_OP_COUNT_EQUAL] = "COUNT_EQUAL", [GGML_OP_REPEAT] = "REPEAT", [GGML_OP_REPEAT_BACK] = "REPEAT_BACK",
    [GGML_OP_CONCAT] = "CONCAT", [GGML_OP_SILU_BACK] = "SILU_BACK", [GGML_OP_NORM] = "NORM",
    [GGML_OP_RMS_NORM] = "RMS_NORM", [GGML_OP_RMS_NORM_BACK] = "RMS_NORM_BACK",
    [GGML_OP_GROUP_NORM] = "GROUP_NORM", [GGML_OP_L2_NORM] = "L2_NORM", [GGML_OP_MUL_MAT] = "MUL_MAT",
    [GGML_OP_MUL_MAT_ID] = "MUL_MAT_ID", [GGML_OP_OUT_PROD] = "OUT_PROD", [GGML_OP_SCALE] = "SCALE",
    [GGML_OP_SET] = "SET", [GGML_OP_CPY] = "CPY", [GGML_OP_CONT] = "CONT", [GGML_OP_RESHAPE] = "RESHAPE",
    [GGML_OP_VIEW] = "VIEW", [GGML_OP_PERMUTE] = "PERMUTE", [GGML_OP_TRANSPOSE] = "TRANSPOSE",
    [GGML_OP_GET_ROWS] = "GET_ROWS", [GGML_OP_GET_ROWS_BACK] = "GET_ROWS_BACK", [GGML_OP_SET_ROWS] = "SET_ROWS",
    [GGML_OP_DIAG] = "DIAG", [GGML_OP_DIAG_MASK_INF] = "DIAG_MASK_INF", [GGML_OP_DIAG_MASK_ZERO] = "DIAG_MASK_ZERO",
    [GGML_OP_SOFT_MAX] = "SOFT_MAX", [GGML_OP_SOFT_MAX_BACK] = "SOFT_MAX_BACK", [GGML_OP_ROPE] = "ROPE",
    [GGML_OP_ROPE_BACK] = "ROPE_BACK", [GGML_OP_CLAMP] = "CLAMP", [GGML_OP_CONV_TRANSPOSE_1D] = "CONV_TRANSPOSE_1D",
    [GGML_OP_IM2COL] = "IM2COL", [GGML_OP_IM2COL_BACK] = "IM2COL_BACK", [GGML_OP_IM2COL_3D] = "IM2COL_3D",
    [GGML_OP_COL2IM_1D] = "COL2IM_1D", [GGML_OP_CONV_2D] = "CONV_2D", [GGML_OP_CONV_3D] = "CONV_3D",
    [GGML_OP_CONV_2D_DW] = "CONV_2D_DW", [GGML_OP_CONV_TRANSPOSE_2D] = "CONV_TRANSPOSE_2D",
    [GGML_OP_POOL_1D] = "POOL_1D", [GGML_OP_POOL_2D] = "POOL_2D", [GGML_OP_POOL_2D_BACK] = "POOL_2D_BACK",
    [GGML_OP_UPSCALE] = "UPSCALE", [GGML_OP_PAD] = "PAD", [GGML_OP_PAD_REFLECT_1D] = "PAD_REFLECT_1D",
    [GGML_OP_ROLL] = "ROLL", [GGML_OP_ARANGE] = "ARANGE", [GGML_OP_TIMESTEP_EMBEDDING] = "TIMESTEP_EMBEDDING",
    [GGML_OP_ARGSORT] = "ARGSORT", [GGML_OP_TOP_K] = "TOP_K", [GGML_OP_LEAKY_RELU] = "LEAKY_RELU",
    [GGML_OP_TRI] = "TRI", [GGML_OP_FILL] = "FILL", [GGML_OP_FLASH_ATTN_EXT] = "FLASH_ATTN_EXT",
    [GGML_OP_FLASH_ATTN_BACK] = "FLASH_ATTN_BACK", [GGML_OP_SSM_CONV] = "SSM_CONV", [GGML_OP_SSM_SCAN] = "SSM_SCAN",
    [GGML_OP_WIN_PART] = "WIN_PART", [GGML_OP_WIN_UNPART] = "WIN_UNPART", [GGML_OP_GET_REL_POS] = "GET_REL_POS",
    [GGML_OP_ADD_REL_POS] = "ADD_REL_POS", [GGML_OP_RWKV_WKV6] = "RWKV_WKV6",
    [GGML_OP_GATED_LINEAR_ATTN] = "GATED_LINEAR_ATTN", [GGML_OP_RWKV_WKV7] = "RWKV_WKV7",
    [GGML_OP_SOLVE_TRI] = "SOLVE_TRI", [GGML_OP_GATED_DELTA_NET] = "GATED_DELTA_NET",
    [GGML_OP_LIGHTNING_INDEXER] = "LIGHTNING_INDEXER", [GGML_OP_DSV4_HC_COMB] = "DSV4_HC_COMB",
    [GGML_OP_DSV4_HC_PRE] = "DSV4_HC_PRE", [GGML_OP_DSV4_HC_POST] = "DSV4_HC_POST", [GGML_OP_UNARY] = "UNARY",
    [GGML_OP_MAP_CUSTOM1] = "MAP_CUSTOM1", [GGML_OP_MAP_CUSTOM2] = "MAP_CUSTOM2",
    [GGML_OP_MAP_CUSTOM3] = "MAP_CUSTOM3", [GGML_OP_CUSTOM] = "CUSTOM",
    [GGML_OP_CROSS_ENTROPY_LOSS] = "CROSS_ENTROPY_LOSS", [GGML_OP_CROSS_ENTROPY_LOSS_BACK] = "CROSS_ENTROPY_LOSS_BACK",
    [GGML_OP_OPT_STEP_ADAMW] = "OPT_STEP_ADAMW", [GGML_OP_OPT_STEP_SGD] = "OPT_STEP_SGD", [GGML_OP_GLU] = "GLU",
};

// Short formulas for the ops this library builds; the op name otherwise.
static const char * const op_symbols[GGML_OP_COUNT] = {
    [GGML_OP_NONE] = "none", [GGML_OP_DUP] = "x", [GGML_OP_ADD] = "x+y", [GGML_OP_ADD1] = "x+y",
    [GGML_OP_SUB] = "x-y", [GGML_OP_MUL] = "x*y", [GGML_OP_DIV] = "x/y", [GGML_OP_SQR] = "x^2",
    [GGML_OP_SQRT] = "sqrt(x)", [GGML_OP_LOG] = "log(x)", [GGML_OP_SIN] = "sin(x)", [GGML_OP_COS] = "cos(x)",
    [GGML_OP_SUM] = "sum(x)", [GGML_OP_SUM_ROWS] = "sum_rows(x)", [GGML_OP_MEAN] = "mean(x)",
    [GGML_OP_ARGMAX] = "argmax(x)", [GGML_OP_REPEAT] = "repeat(x)", [GGML_OP_CONCAT] = "concat(x, y)",
    [GGML_OP_NORM] = "norm(x)", [GGML_OP_RMS_NORM] = "rms_norm(x)", [GGML_OP_MUL_MAT] = "X*Y",
    [GGML_OP_SCALE] = "x*v", [GGML_OP_CPY] = "x-\\>y", [GGML_OP_CONT] = "cont(x)",
    [GGML_OP_RESHAPE] = "reshape(x)", [GGML_OP_VIEW] = "view(x)", [GGML_OP_PERMUTE] = "permute(x)",
    [GGML_OP_TRANSPOSE] = "transpose(x)", [GGML_OP_GET_ROWS] = "get_rows(x)", [GGML_OP_SET_ROWS] = "set_rows(x)",
    [GGML_OP_DIAG_MASK_INF] = "diag_mask_inf(x)", [GGML_OP_SOFT_MAX] = "soft_max(x)", [GGML_OP_ROPE] = "rope(x)",
    [GGML_OP_CLAMP] = "clamp(x)", [GGML_OP_PAD] = "pad(x)", [GGML_OP_ARANGE] = "arange(start, stop, step)",
    [GGML_OP_ARGSORT] = "argsort(x)", [GGML_OP_FLASH_ATTN_EXT] = "flash_attn_ext(x)",
    [GGML_OP_UNARY] = "unary(x)", [GGML_OP_GLU] = "glu(x)",
};

static const char * const unary_op_names[GGML_UNARY_OP_COUNT] = {
    "ABS", "SGN", "NEG", "STEP", "TANH", "ELU", "RELU", "SIGMOID", "GELU", "GELU_QUICK", "SILU",
    "HARDSWISH", "HARDSIGMOID", "EXP", "EXPM1", "SOFTPLUS", "GELU_ERF", "XIELU", "FLOOR", "CEIL",
    "ROUND", "TRUNC",
};

static const char * const glu_op_names[GGML_GLU_OP_COUNT] = {
    "REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK",
};

const char * ggml_op_name(enum ggml_op op) {
    return op >= 0 && op < GGML_OP_COUNT && op_names[op] ? op_names[op] : "UNKNOWN";
}

const char * ggml_op_symbol(enum ggml_op op) {
    if (op < 0 || op >= GGML_OP_COUNT) {
        return "unknown";
    }
    return op_symbols[op] ? op_symbols[op] : op_names[op];
}

const char * ggml_unary_op_name(enum ggml_unary_op op) {
    return op >= 0 && op < GGML_UNARY_OP_COUNT ? unary_op_names[op] : "UNKNOWN";
}

const char * ggml_glu_op_name(enum ggml_glu_op op) {
    return op >= 0 && op < GGML_GLU_OP_COUNT ? glu_op_names[op] : "UNKNOWN";
}

const char * ggml_op_desc(const struct ggml_tensor * t) {
    if (t->op == GGML_OP_UNARY) {
        return ggml_unary_op_name(ggml_get_unary_op(t));
    }
    if (t->op == GGML_OP_GLU) {
        return ggml_glu_op_name(ggml_get_glu_op(t));
    }
    return ggml_op_name(t->op);
}

// ---------------------------------------------------------------------------
// Thread pool parameters
// ---------------------------------------------------------------------------

void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads) {
    memset(p, 0, sizeof(*p));
    p->n_threads  = n_threads;
    p->prio       = GGML_SCHED_PRIO_NORMAL;
    p->poll       = 50;
    p->strict_cpu = false;
    p->paused     = false;
}

struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads) {
    struct ggml_threadpool_params p;
    ggml_threadpool_params_init(&p, n_threads);
    return p;
}

bool ggml_threadpool_params_match(const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1) {
    return p0->n_threads == p1->n_threads && p0->prio == p1->prio && p0->poll == p1->poll &&
           p0->strict_cpu == p1->strict_cpu &&
           memcmp(p0->cpumask, p1->cpumask, GGML_MAX_N_THREADS) == 0;
}
