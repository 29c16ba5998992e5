/*
 * ggml-scalar.c - element-by-element access to host tensors: the scalar
 * helpers upstream declares in ggml-cpu.h (ggml_new_i32/f32,
 * ggml_set_i32/f32, ggml_get/set_{i32,f32}_{1d,nd}) and ggml_set_zero.
 *
 * Elements are read and written through ne/nb, so views of any stride work;
 * values are converted between the element type and int32/float. Indices
 * outside the tensor and element types without a scalar value (quantized
 * blocks) abort with a message: they are caller mistakes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <string.h>

static void * element_ptr(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    GGML_ASSERT(t != NULL && t->data != NULL);
    if (i0 < 0 || i0 >= t->ne[0] || i1 < 0 || i1 >= t->ne[1] || i2 < 0 || i2 >= t->ne[2] || i3 < 0 || i3 >= t->ne[3]) {
        GGML_ABORT("element [%lld, %lld, %lld, %lld] of tensor '%s' out of range [%lld, %lld, %lld, %lld]",
                   (long long) i0, (long long) i1, (long long) i2, (long long) i3, t->name,
                   (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3]);
    }
    return (char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

static void * element_ptr_1d(const struct ggml_tensor * t, int i) {
    GGML_ASSERT(t != NULL);
    if (i < 0 || i >= ggml_nelements(t)) {
        GGML_ABORT("element %d of tensor '%s' out of range (%lld elements)", i, t->name, (long long) ggml_nelements(t));
    }
    int64_t i0, i1, i2, i3;
    ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
    return element_ptr(t, i0, i1, i2, i3);
}

static _Noreturn void unsupported(const char * func, const struct ggml_tensor * t) {
    GGML_ABORT("%s: tensor '%s' of type %s has no scalar elements", func, t->name, ggml_type_name(t->type));
}

static float load_f32(const char * func, const struct ggml_tensor * t, const void * p) {
    switch (t->type) {
        case GGML_TYPE_I8:   return (float) *(const int8_t *) p;
        case GGML_TYPE_I16:  return (float) *(const int16_t *) p;
        case GGML_TYPE_I32:  return (float) *(const int32_t *) p;
        case GGML_TYPE_F16:  return ggml_fp16_to_fp32(*(const ggml_fp16_t *) p);
        case GGML_TYPE_BF16: return ggml_bf16_to_fp32(*(const ggml_bf16_t *) p);
        case GGML_TYPE_F32:  return *(const float *) p;
        default:             unsupported(func, t);
    }
}

static int32_t load_i32(const char * func, const struct ggml_tensor * t, const void * p) {
    switch (t->type) {
        case GGML_TYPE_I8:   return *(const int8_t *) p;
        case GGML_TYPE_I16:  return *(const int16_t *) p;
        case GGML_TYPE_I32:  return *(const int32_t *) p;
        default:             return (int32_t) load_f32(func, t, p);
    }
}

static void store_f32(const char * func, const struct ggml_tensor * t, void * p, float v) {
    switch (t->type) {
        case GGML_TYPE_I8:   *(int8_t *) p = (int8_t) v; break;
        case GGML_TYPE_I16:  *(int16_t *) p = (int16_t) v; break;
        case GGML_TYPE_I32:  *(int32_t *) p = (int32_t) v; break;
        case GGML_TYPE_F16:  *(ggml_fp16_t *) p = ggml_fp32_to_fp16(v); break;
        case GGML_TYPE_BF16: *(ggml_bf16_t *) p = ggml_fp32_to_bf16(v); break;
        case GGML_TYPE_F32:  *(float *) p = v; break;
        default:             unsupported(func, t);
    }
}

static void store_i32(const char * func, const struct ggml_tensor * t, void * p, int32_t v) {
    switch (t->type) {
        case GGML_TYPE_I8:   *(int8_t *) p = (int8_t) v; break;
        case GGML_TYPE_I16:  *(int16_t *) p = (int16_t) v; break;
        case GGML_TYPE_I32:  *(int32_t *) p = v; break;
        default:             store_f32(func, t, p, (float) v); break;
    }
}

struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value) {
    GGML_ASSERT(!ggml_get_no_alloc(ctx));
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
    return ggml_set_i32(t, value);
}

struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value) {
    GGML_ASSERT(!ggml_get_no_alloc(ctx));
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    return ggml_set_f32(t, value);
}

struct ggml_tensor * ggml_set_i32(struct ggml_tensor * tensor, int32_t value) {
    const int64_t n = ggml_nelements(tensor);
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(tensor, i, &i0, &i1, &i2, &i3);
        store_i32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3), value);
    }
    return tensor;
}

struct ggml_tensor * ggml_set_f32(struct ggml_tensor * tensor, float value) {
    const int64_t n = ggml_nelements(tensor);
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(tensor, i, &i0, &i1, &i2, &i3);
        store_f32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3), value);
    }
    return tensor;
}

int32_t ggml_get_i32_1d(const struct ggml_tensor * tensor, int i) {
    return load_i32(__func__, tensor, element_ptr_1d(tensor, i));
}

void ggml_set_i32_1d(const struct ggml_tensor * tensor, int i, int32_t value) {
    store_i32(__func__, tensor, element_ptr_1d(tensor, i), value);
}

int32_t ggml_get_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    return load_i32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3));
}

void ggml_set_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, int32_t value) {
    store_i32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3), value);
}

float ggml_get_f32_1d(const struct ggml_tensor * tensor, int i) {
    return load_f32(__func__, tensor, element_ptr_1d(tensor, i));
}

void ggml_set_f32_1d(const struct ggml_tensor * tensor, int i, float value) {
    store_f32(__func__, tensor, element_ptr_1d(tensor, i), value);
}

float ggml_get_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    return load_f32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3));
}

void ggml_set_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, float value) {
    store_f32(__func__, tensor, element_ptr(tensor, i0, i1, i2, i3), value);
}

struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor != NULL);
    if (ggml_is_empty(tensor)) {
        return tensor;
    }
    if (tensor->buffer != NULL) {
        ggml_backend_tensor_memset(tensor, 0, 0, ggml_nbytes(tensor));
    } else {
        GGML_ASSERT(tensor->data != NULL);
        memset(tensor->data, 0, ggml_nbytes(tensor));
    }
    return tensor;
}
