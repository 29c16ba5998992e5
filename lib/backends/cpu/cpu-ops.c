/*
 * cpu-ops.c - the CPU kernels of every op but MUL_MAT (cpu-mul-mat.c).
 *
 * Rows are read and written through F32: a row that already is F32 with
 * contiguous elements is used in place, any other row (F16, BF16, quantized,
 * strided views) is converted into the thread's scratch first. The inner
 * math is in kernels/ (freestanding). Threads split the rows of dst.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-ops-rows.h"
#include "kernels/gk-convert.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-vec.h"

#include <string.h>

// The AVX512F kernels of vec-avx512.c (activations) and softmax-avx512.c:
// where the AVX512 kernels may run (F/BW/VL present, not disabled).
#if defined(__x86_64__)
#define AVX512(ref) (!(ref) && ggml_cpu_isa()->use_vnni256)
#endif

// ---------------------------------------------------------------------------
// type conversion of rows and elements
// ---------------------------------------------------------------------------

bool ggml_cpu_type_to_f32_ok(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32: case GGML_TYPE_F16: case GGML_TYPE_BF16:
        case GGML_TYPE_I32: case GGML_TYPE_I16: case GGML_TYPE_I8:
        case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_K: case GGML_TYPE_Q6_K:
            return true;
        default:
            return ggml_is_quantized(type) && ggml_get_type_traits(type)->to_float != NULL;
    }
}

bool ggml_cpu_type_from_f32_ok(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32: case GGML_TYPE_F16: case GGML_TYPE_BF16:
        case GGML_TYPE_I32: case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_0:
            return true;
        default:
            return ggml_is_quantized(type) && ggml_get_type_traits(type)->from_float_ref != NULL;
    }
}

void ggml_cpu_row_to_f32(enum ggml_type type, const void * src, float * dst, int64_t n, bool ref) {
    switch (type) {
        case GGML_TYPE_F32:
            if (dst != src) {
                memcpy(dst, src, (size_t) n * sizeof(float));
            }
            break;
        case GGML_TYPE_F16:
            if (ref) {
                gk_fp16_to_fp32_row(src, dst, n);
            } else {
                ggml_cpu_fp16_to_fp32(src, dst, n);
            }
            break;
        case GGML_TYPE_BF16:
            if (ref) {
                gk_bf16_to_fp32_row(src, dst, n);
            } else {
                ggml_cpu_bf16_to_fp32(src, dst, n);
            }
            break;
        case GGML_TYPE_I32: for (int64_t i = 0; i < n; i++) dst[i] = (float) ((const int32_t *) src)[i]; break;
        case GGML_TYPE_I16: for (int64_t i = 0; i < n; i++) dst[i] = (float) ((const int16_t *) src)[i]; break;
        case GGML_TYPE_I8:  for (int64_t i = 0; i < n; i++) dst[i] = (float) ((const int8_t *) src)[i]; break;
        case GGML_TYPE_Q8_0:
#if defined(__x86_64__)
            if (!ref && ggml_cpu_fast_x86()) {
                gk_dequantize_row_q8_0_avx2(src, dst, n);
                break;
            }
#endif
            gk_dequantize_row_q8_0(src, dst, n);
            break;
        case GGML_TYPE_Q4_0:
#if defined(__x86_64__)
            if (!ref && ggml_cpu_fast_x86()) {
                gk_dequantize_row_q4_0_avx2(src, dst, n);
                break;
            }
#endif
            gk_dequantize_row_q4_0(src, dst, n);
            break;
        case GGML_TYPE_Q4_K: gk_dequantize_row_q4_K(src, dst, n); break;
        case GGML_TYPE_Q6_K: gk_dequantize_row_q6_K(src, dst, n); break;
        default:
            ggml_get_type_traits(type)->to_float(src, dst, n);
            break;
    }
}

void ggml_cpu_row_from_f32(enum ggml_type type, const float * src, void * dst, int64_t n, bool ref) {
    switch (type) {
        case GGML_TYPE_F32:
            if (dst != src) {
                memmove(dst, src, (size_t) n * sizeof(float));
            }
            break;
        case GGML_TYPE_F16:
            if (ref) {
                gk_fp32_to_fp16_row(src, dst, n);
            } else {
                ggml_cpu_fp32_to_fp16(src, dst, n);
            }
            break;
        case GGML_TYPE_BF16:
            if (ref) {
                gk_fp32_to_bf16_row(src, dst, n);
            } else {
                ggml_cpu_fp32_to_bf16(src, dst, n);
            }
            break;
        case GGML_TYPE_I32: gk_fp32_to_i32_row(src, dst, n); break;
        case GGML_TYPE_Q8_0: gk_quantize_row_q8_0(src, dst, n); break;
        case GGML_TYPE_Q4_0: gk_quantize_row_q4_0(src, dst, n); break;
        default:
            ggml_get_type_traits(type)->from_float_ref(src, dst, n);
            break;
    }
}


static inline void elem_set(enum ggml_type type, char * p, float v) {
    switch (type) {
        case GGML_TYPE_F32:  *(float *) p = v; break;
        case GGML_TYPE_F16:  *(uint16_t *) p = gk_fp32_to_fp16(v); break;
        case GGML_TYPE_BF16: *(uint16_t *) p = gk_fp32_to_bf16(v); break;
        case GGML_TYPE_I32:  *(int32_t *) p = (int32_t) v; break;
        default: GGML_ABORT("element access to type %s", ggml_type_name(type));
    }
}


// Where to write row (i1, i2, i3) of t in F32: the row itself when possible, else tmp;
// row_out_commit() then converts tmp into the row.
static float * row_out(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, float * tmp) {
    if (t->type == GGML_TYPE_F32 && row_is_dense(t)) {
        return (float *) row_ptr(t, i1, i2, i3);
    }
    return tmp;
}

static void row_out_commit(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, const float * v, bool ref) {
    char * p = row_ptr(t, i1, i2, i3);
    if ((const char *) v == p) {
        return;
    }
    if (row_is_dense(t)) {
        ggml_cpu_row_from_f32(t->type, v, p, t->ne[0], ref);
    } else {
        for (int64_t i = 0; i < t->ne[0]; i++) {
            elem_set(t->type, p + i * t->nb[0], v[i]);
        }
    }
}

// y = x * s + b
static void scale_bias(int64_t n, const float * x, float s, float b, float * y, bool ref) {
#if HAVE_VK
    if (SIMD(ref)) {
        VK(gk_scale_bias)(n, x, s, b, y);
        return;
    }
#endif
    for (int64_t k = 0; k < n; k++) {
        y[k] = x[k] * s + b;
    }
}

// Large F32 outputs (at least GGML_CPU_STREAM_BYTES, more than a last-level
// cache holds: the next op reads them from memory anyway) are written with
// non-temporal stores, which skip reading each line before writing it
// (x86-64, SIMD path), where that measured faster: conversions into F32
// (CPY, from the thread's scratch row) and NORM/RMS_NORM's last pass. The
// binary ops, activations and ROPE measured slower with them (from a
// scratch row) and keep ordinary stores.
#define GGML_CPU_STREAM_BYTES ((size_t) 32 << 20)

static inline bool out_stream(const struct ggml_compute_params * params, const struct ggml_tensor * dst) {
#if defined(__x86_64__)
    return SIMD(params->ref) && dst->type == GGML_TYPE_F32 && row_is_dense(dst) &&
           ggml_nbytes(dst) >= GGML_CPU_STREAM_BYTES;
#else
    (void) params;
    (void) dst;
    return false;
#endif
}

// the byte ranges of a and b (from their data to their last byte) apart
static inline bool tensors_apart(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    const char * pa = (const char *) a->data, * pb = (const char *) b->data;
    return pa + ggml_nbytes(a) <= pb || pb + ggml_nbytes(b) <= pa;
}

// row_out_commit() of an op that may stream its output (v is never the row)
static void row_out_commit_s(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, const float * v,
                             bool ref, bool stream) {
#if defined(__x86_64__)
    if (stream) {
        float * p = (float *) row_ptr(t, i1, i2, i3);
        if (v != p) {
            gk_copy_nt_avx2(t->ne[0], v, p);
        }
        return;
    }
#endif
    row_out_commit(t, i1, i2, i3, v, ref);
}

// rows [*r0, *r1) of nr for thread ith of nth
static inline void split_rows(int64_t nr, int ith, int nth, int64_t * r0, int64_t * r1) {
    const int64_t per = (nr + nth - 1) / nth;
    *r0 = per * ith < nr ? per * ith : nr;
    *r1 = *r0 + per < nr ? *r0 + per : nr;
}

static inline void unravel_row(const struct ggml_tensor * t, int64_t ir, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i3 = ir / (t->ne[2] * t->ne[1]);
    *i2 = (ir - *i3 * t->ne[2] * t->ne[1]) / t->ne[1];
    *i1 = ir - *i3 * t->ne[2] * t->ne[1] - *i2 * t->ne[1];
}

// the row after (i1, i2, i3) of t, in unravel_row's order (no divisions)
static inline void next_row(const struct ggml_tensor * t, int64_t * i1, int64_t * i2, int64_t * i3) {
    if (++*i1 == t->ne[1]) {
        *i1 = 0;
        if (++*i2 == t->ne[2]) {
            *i2 = 0;
            ++*i3;
        }
    }
}

static int64_t max_ne0(const struct ggml_tensor * node) {
    int64_t m = node->ne[0];
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (node->src[i] && node->src[i]->ne[0] > m) {
            m = node->src[i]->ne[0];
        }
    }
    return m;
}

// the scratch of this thread: 4 rows of max_ne0 floats, then op extras
#define SCRATCH_ROWS 4

static float * scratch_row(const struct ggml_compute_params * params, const struct ggml_tensor * node, int k) {
    float * base = ggml_cpu_thread_scratch(params, node);
    const int64_t stride = GGML_PAD(max_ne0(node), 16);
    return base + k * stride;
}

// ---------------------------------------------------------------------------
// copies and conversions: DUP, CPY, CONT
// ---------------------------------------------------------------------------

static void op_dup(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src = dst->src[0];
    const bool same_shape = ggml_are_same_shape(src, dst);
    const int64_t nr = ggml_nrows(dst);
    int64_t r0, r1;
    split_rows(nr, params->ith, params->nth, &r0, &r1);

    // same type, both contiguous: a plain copy of this thread's bytes
    if (src->type == dst->type && ggml_is_contiguous(src) && ggml_is_contiguous(dst)) {
        const size_t rs = ggml_row_size(dst->type, dst->ne[0]);
        if (dst->data != src->data) {
            memcpy((char *) dst->data + r0 * rs, (const char *) src->data + r0 * rs, (size_t) (r1 - r0) * rs);
        }
        return;
    }
    // same type, any shapes, in flat order, without a round trip through
    // F32: units are elements (any strides; I16 and I8 included) or, for a
    // quantized type, whole blocks of rows stored densely (a quantized row
    // is a run of blocks, so a different shape regroups blocks)
    if (src->type == dst->type && !(same_shape && row_is_dense(src) && row_is_dense(dst))) {
        GGML_ASSERT(!ggml_is_quantized(src->type) || (row_is_dense(src) && row_is_dense(dst)));
        const size_t es = ggml_type_size(src->type);
        const int64_t bs = ggml_blck_size(src->type);
        const int64_t nd0 = dst->ne[0] / bs, ns0 = src->ne[0] / bs;
        for (int64_t ir = r0; ir < r1; ir++) {
            int64_t i1, i2, i3;
            unravel_row(dst, ir, &i1, &i2, &i3);
            char * d = row_ptr(dst, i1, i2, i3);
            for (int64_t i0 = 0; i0 < nd0; i0++) {
                int64_t flat = ir * nd0 + i0;
                const int64_t j0 = flat % ns0; flat /= ns0;
                const int64_t j1 = flat % src->ne[1]; flat /= src->ne[1];
                const int64_t j2 = flat % src->ne[2]; flat /= src->ne[2];
                memcpy(d + i0 * dst->nb[0], (const char *) src->data + j0 * src->nb[0] + j1 * src->nb[1] +
                                                j2 * src->nb[2] + flat * src->nb[3], es);
            }
        }
        return;
    }
    float * tmp = scratch_row(params, dst, 0);

    if (same_shape) {
        if (src->type == dst->type && row_is_dense(src) && row_is_dense(dst)) {
            const size_t rs = ggml_row_size(dst->type, dst->ne[0]);
            for (int64_t ir = r0; ir < r1; ir++) {
                int64_t i1, i2, i3;
                unravel_row(dst, ir, &i1, &i2, &i3);
                memmove(row_ptr(dst, i1, i2, i3), row_ptr(src, i1, i2, i3), rs);
            }
            return;
        }
        const bool stream = out_stream(params, dst);
#if defined(__x86_64__)
        // F16/BF16 rows (of 64 values or more: one SFENCE per row) into a
        // streamed F32 output: converted straight into the output with
        // non-temporal stores (no pass through tmp)
        if (stream && (src->type == GGML_TYPE_F16 || src->type == GGML_TYPE_BF16) && row_is_dense(src) &&
            dst->ne[0] >= 64 && tensors_apart(src, dst)) {
            const bool f16 = src->type == GGML_TYPE_F16;
            int64_t i1, i2, i3;
            unravel_row(dst, r0, &i1, &i2, &i3);
            for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
                const uint16_t * x = (const uint16_t *) row_ptr(src, i1, i2, i3);
                float * y = (float *) row_ptr(dst, i1, i2, i3);
                if (f16) {
                    gk_fp16_to_fp32_row_nt_f16c(x, y, dst->ne[0]);
                } else {
                    gk_bf16_to_fp32_row_nt_avx2(x, y, dst->ne[0]);
                }
            }
            return;
        }
#endif
        for (int64_t ir = r0; ir < r1; ir++) {
            int64_t i1, i2, i3;
            unravel_row(dst, ir, &i1, &i2, &i3);
            const float * x = row_in(src, i1, i2, i3, tmp, params->ref);
            row_out_commit_s(dst, i1, i2, i3, x, params->ref, stream);
        }
        return;
    }

    // different shapes, same number of elements: walk both in flat order
    if (ggml_is_contiguous(src) && !ggml_is_quantized(src->type)) {
        // dst row ir holds src elements [ir*ne0, (ir+1)*ne0)
        const size_t es = ggml_type_size(src->type);
        for (int64_t ir = r0; ir < r1; ir++) {
            int64_t i1, i2, i3;
            unravel_row(dst, ir, &i1, &i2, &i3);
            const char * p = (const char *) src->data + (size_t) (ir * dst->ne[0]) * es;
            const float * x;
            if (src->type == GGML_TYPE_F32) {
                x = (const float *) p;
            } else {
                ggml_cpu_row_to_f32(src->type, p, tmp, dst->ne[0], params->ref);
                x = tmp;
            }
            row_out_commit(dst, i1, i2, i3, x, params->ref);
        }
        return;
    }
    // general case (element by element; quantized src needs rows of the same length)
    GGML_ASSERT(!ggml_is_quantized(src->type) || src->ne[0] == dst->ne[0]);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        if (ggml_is_quantized(src->type)) {
            // same row length: flat row index maps row to row
            int64_t s1, s2, s3;
            unravel_row(src, ir, &s1, &s2, &s3);
            const float * x = row_in(src, s1, s2, s3, tmp, params->ref);
            row_out_commit(dst, i1, i2, i3, x, params->ref);
            continue;
        }
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            int64_t flat = ir * dst->ne[0] + i0;
            int64_t j0 = flat % src->ne[0]; flat /= src->ne[0];
            int64_t j1 = flat % src->ne[1]; flat /= src->ne[1];
            int64_t j2 = flat % src->ne[2]; flat /= src->ne[2];
            int64_t j3 = flat;
            tmp[i0] = elem_get(src->type, (const char *) src->data + j0 * src->nb[0] + j1 * src->nb[1] +
                                              j2 * src->nb[2] + j3 * src->nb[3]);
        }
        row_out_commit(dst, i1, i2, i3, tmp, params->ref);
    }
}

// ---------------------------------------------------------------------------
// element-wise: binary (with broadcast of src1), unary, scale, clamp, ...
// ---------------------------------------------------------------------------

enum bin_kind { BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV };

static void op_binary(const struct ggml_compute_params * params, struct ggml_tensor * dst, enum bin_kind kind) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    const int64_t nr = ggml_nrows(dst);
    const int64_t ne0 = dst->ne[0];
    const int64_t ne10 = src1->ne[0];
    int64_t r0, r1;
    split_rows(nr, params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * t1 = scratch_row(params, dst, 1);
    float * to = scratch_row(params, dst, 2);
#if HAVE_VK
    // the vector kernel on each run of ne10 values (src1's row repeated
    // along dim 0, src1's rows along dims 1-3); rows of any type and
    // stride come through row_in/row_out as F32; runs shorter than a
    // vector stay on the scalar loop below
    if (SIMD(params->ref) && (ne10 == ne0 || ne10 >= 16)) {
        static const enum gk_binop ops[] = { [BIN_ADD] = GK_ADD, [BIN_SUB] = GK_SUB, [BIN_MUL] = GK_MUL,
                                             [BIN_DIV] = GK_DIV };
        int64_t i1, i2, i3;
        unravel_row(dst, r0, &i1, &i2, &i3);
#if defined(__x86_64__)
        // a large output (out_stream: F32 rows in place) written with
        // non-temporal stores, src1's row whole (rows of 64 values or more:
        // one SFENCE per row)
        if (ne10 == ne0 && ne0 >= 64 && out_stream(params, dst)) {
            for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
                const float * x = row_in(src0, i1, i2, i3, t0, false);
                const float * y = row_in(src1, i1 % src1->ne[1], i2 % src1->ne[2], i3 % src1->ne[3], t1, false);
                gk_binary_nt_avx2(ops[kind], ne0, x, y, (float *) row_ptr(dst, i1, i2, i3));
            }
            return;
        }
#endif
        for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
            const float * x = row_in(src0, i1, i2, i3, t0, false);
            const float * y = row_in(src1, i1 % src1->ne[1], i2 % src1->ne[2], i3 % src1->ne[3], t1, false);
            float * z = row_out(dst, i1, i2, i3, to);
            for (int64_t i0 = 0; i0 < ne0; i0 += ne10) {
                VK(gk_binary)(ops[kind], ne10, x + i0, y, z + i0);
            }
            row_out_commit(dst, i1, i2, i3, z, false);
        }
        return;
    }
#endif
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        const float * y = row_in(src1, i1 % src1->ne[1], i2 % src1->ne[2], i3 % src1->ne[3], t1, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        for (int64_t i0 = 0; i0 < ne0; i0 += ne10) {
            const int64_t n = ne10;
            const float * xs = x + i0;
            float * zs = z + i0;
            switch (kind) {
                case BIN_ADD: for (int64_t k = 0; k < n; k++) zs[k] = xs[k] + y[k]; break;
                case BIN_SUB: for (int64_t k = 0; k < n; k++) zs[k] = xs[k] - y[k]; break;
                case BIN_MUL: for (int64_t k = 0; k < n; k++) zs[k] = xs[k] * y[k]; break;
                case BIN_DIV: for (int64_t k = 0; k < n; k++) zs[k] = xs[k] / y[k]; break;
            }
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

static void op_add1(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const float v = elem_get(dst->src[1]->type, dst->src[1]->data);
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        for (int64_t k = 0; k < dst->ne[0]; k++) {
            z[k] = x[k] + v;
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

static inline float sgnf(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }

static inline float truncf_gk(float x) {
    if (gk_fabsf(x) >= 8388608.0f || gk_isnan(x)) {
        return x;
    }
    const float t = (float) (int32_t) x;
    return x < 0.0f && t == 0.0f ? -0.0f : t;
}
static inline float floorf_gk(float x) { float t = truncf_gk(x); return t > x ? t - 1.0f : t; }
static inline float ceilf_gk(float x)  { float t = truncf_gk(x); return t < x ? t + 1.0f : t; }
static inline float roundf_gk(float x) {
    if (gk_fabsf(x) >= 8388608.0f || gk_isnan(x)) {
        return x;
    }
    return x >= 0.0f ? floorf_gk(x + 0.5f) : -floorf_gk(-x + 0.5f);
}

static inline float unary_f(enum ggml_unary_op op, float x) {
    switch (op) {
        case GGML_UNARY_OP_ABS:         return gk_fabsf(x);
        case GGML_UNARY_OP_SGN:         return sgnf(x);
        case GGML_UNARY_OP_NEG:         return -x;
        case GGML_UNARY_OP_STEP:        return x > 0.0f ? 1.0f : 0.0f;
        case GGML_UNARY_OP_TANH:        return gk_tanhf(x);
        case GGML_UNARY_OP_ELU:         return x > 0.0f ? x : gk_expm1f(x);
        case GGML_UNARY_OP_RELU:        return x > 0.0f ? x : 0.0f;
        case GGML_UNARY_OP_SIGMOID:     return gk_sigmoidf(x);
        case GGML_UNARY_OP_GELU:        return gk_geluf(x);
        case GGML_UNARY_OP_GELU_QUICK:  return gk_gelu_quickf(x);
        case GGML_UNARY_OP_SILU:        return gk_siluf(x);
        case GGML_UNARY_OP_HARDSWISH:   return x * gk_minf(1.0f, gk_maxf(0.0f, (x + 3.0f) / 6.0f));
        case GGML_UNARY_OP_HARDSIGMOID: return gk_minf(1.0f, gk_maxf(0.0f, (x + 3.0f) / 6.0f));
        case GGML_UNARY_OP_EXP:         return gk_expf(x);
        case GGML_UNARY_OP_EXPM1:       return gk_expm1f(x);
        case GGML_UNARY_OP_SOFTPLUS:    return x > 20.0f ? x : gk_logf(1.0f + gk_expf(x));
        case GGML_UNARY_OP_GELU_ERF:    return gk_gelu_erff(x);
        case GGML_UNARY_OP_FLOOR:       return floorf_gk(x);
        case GGML_UNARY_OP_CEIL:        return ceilf_gk(x);
        case GGML_UNARY_OP_ROUND:       return roundf_gk(x);
        case GGML_UNARY_OP_TRUNC:       return truncf_gk(x);
        default: GGML_ABORT("unary op %d has no CPU kernel", (int) op);
    }
}

static bool unary_supported(enum ggml_unary_op op) {
    return op >= 0 && op <= GGML_UNARY_OP_TRUNC;
}

// xIELU with the constructor's parameters (p[1..4] of op_params: alpha_n',
// alpha_p', beta, eps; see ggml_xielu)
static inline float xielu_f(float x, float an, float ap, float beta, float eps) {
    return x > 0.0f ? ap * x * x + beta * x : (gk_expm1f(gk_minf(x, eps)) - x) * an + beta * x;
}

enum map_kind { MAP_UNARY, MAP_SQR, MAP_SQRT, MAP_LOG, MAP_SIN, MAP_COS, MAP_SCALE, MAP_CLAMP, MAP_LEAKY };

static void op_map(const struct ggml_compute_params * params, struct ggml_tensor * dst, enum map_kind kind) {
    const struct ggml_tensor * src0 = dst->src[0];
    const enum ggml_unary_op uop = kind == MAP_UNARY ? ggml_get_unary_op(dst) : GGML_UNARY_OP_COUNT;
    const float p0 = ggml_get_op_params_f32(dst, 0);
    const float p1 = ggml_get_op_params_f32(dst, 1);
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    const int64_t n = dst->ne[0];
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        switch (kind) {
            case MAP_UNARY:
#if HAVE_VK
                if (SIMD(params->ref)) {
#if defined(__x86_64__)
                    if (AVX512(params->ref) && (uop == GGML_UNARY_OP_SILU || uop == GGML_UNARY_OP_GELU)) {
                        (uop == GGML_UNARY_OP_SILU ? gk_silu_avx512 : gk_gelu_avx512)(n, x, z);
                        break;
                    }
#endif
                    if (uop == GGML_UNARY_OP_SILU) {
                        VK(gk_silu)(n, x, z);
                        break;
                    }
                    if (uop == GGML_UNARY_OP_GELU) {
                        VK(gk_gelu)(n, x, z);
                        break;
                    }
                    if (uop == GGML_UNARY_OP_GELU_QUICK) {
                        VK(gk_gelu_quick)(n, x, z);
                        break;
                    }
                }
#endif
                if (uop == GGML_UNARY_OP_XIELU) {
                    const float an = ggml_get_op_params_f32(dst, 1), ap = ggml_get_op_params_f32(dst, 2);
                    const float beta = ggml_get_op_params_f32(dst, 3), eps = ggml_get_op_params_f32(dst, 4);
                    for (int64_t k = 0; k < n; k++) z[k] = xielu_f(x[k], an, ap, beta, eps);
                    break;
                }
                for (int64_t k = 0; k < n; k++) z[k] = unary_f(uop, x[k]);
                break;
            case MAP_SQR:   for (int64_t k = 0; k < n; k++) z[k] = x[k] * x[k]; break;
            case MAP_SQRT:  for (int64_t k = 0; k < n; k++) z[k] = gk_sqrtf(x[k]); break;
            case MAP_LOG:   for (int64_t k = 0; k < n; k++) z[k] = gk_logf(x[k]); break;
            case MAP_SIN:   for (int64_t k = 0; k < n; k++) z[k] = gk_sinf(x[k]); break;
            case MAP_COS:   for (int64_t k = 0; k < n; k++) z[k] = gk_cosf(x[k]); break;
            case MAP_SCALE: scale_bias(n, x, p0, p1, z, params->ref); break;
            case MAP_CLAMP: for (int64_t k = 0; k < n; k++) z[k] = gk_maxf(p0, gk_minf(p1, x[k])); break;
            case MAP_LEAKY: for (int64_t k = 0; k < n; k++) z[k] = x[k] > 0.0f ? x[k] : p0 * x[k]; break;
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

// GLU: dst = act(a) * b; fused (one src of 2*nc columns, halves swapped by
// op_params[1]) or split (src0 = a, src1 = b)
static void op_glu(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    const enum ggml_glu_op op = ggml_get_glu_op(dst);
    const bool swapped = ggml_get_op_params_i32(dst, 1) != 0;
    const float alpha = ggml_get_op_params_f32(dst, 2);
    const float limit = ggml_get_op_params_f32(dst, 3);
    const int64_t nc = dst->ne[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * t1 = scratch_row(params, dst, 1);
    float * to = scratch_row(params, dst, 2);
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        const float * a;
        const float * b;
        if (src1) {
            a = row_in(src0, i1, i2, i3, t0, params->ref);
            b = row_in(src1, i1, i2, i3, t1, params->ref);
        } else {
            const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
            a = x + (swapped ? nc : 0);
            b = x + (swapped ? 0 : nc);
        }
        float * z = row_out(dst, i1, i2, i3, to);
#if HAVE_VK
        // SWIGLU and GEGLU in one pass over a and b
        if (SIMD(params->ref) && (op == GGML_GLU_OP_SWIGLU || op == GGML_GLU_OP_GEGLU)) {
            const bool swi = op == GGML_GLU_OP_SWIGLU;
#if defined(__x86_64__)
            if (AVX512(params->ref)) {
                (swi ? gk_swiglu_avx512 : gk_geglu_avx512)(nc, a, b, z);
            } else
#endif
            if (swi) {
                VK(gk_swiglu)(nc, a, b, z);
            } else {
                VK(gk_geglu)(nc, a, b, z);
            }
            row_out_commit(dst, i1, i2, i3, z, params->ref);
            continue;
        }
        // act(a) into z, then z *= b (z is never b: GLU has no in-place form)
        if (SIMD(params->ref) && z != b &&
            (op == GGML_GLU_OP_SWIGLU || op == GGML_GLU_OP_GEGLU || op == GGML_GLU_OP_GEGLU_QUICK)) {
            if (op == GGML_GLU_OP_SWIGLU) {
                VK(gk_silu)(nc, a, z);
            } else if (op == GGML_GLU_OP_GEGLU) {
                VK(gk_gelu)(nc, a, z);
            } else {
                VK(gk_gelu_quick)(nc, a, z);
            }
            VK(gk_mul)(nc, z, b, z);
            row_out_commit(dst, i1, i2, i3, z, params->ref);
            continue;
        }
#endif
        for (int64_t k = 0; k < nc; k++) {
            float v;
            switch (op) {
                case GGML_GLU_OP_REGLU:       v = a[k] > 0.0f ? a[k] : 0.0f; break;
                case GGML_GLU_OP_GEGLU:       v = gk_geluf(a[k]); break;
                case GGML_GLU_OP_SWIGLU:      v = gk_siluf(a[k]); break;
                case GGML_GLU_OP_GEGLU_ERF:   v = gk_gelu_erff(a[k]); break;
                case GGML_GLU_OP_GEGLU_QUICK: v = gk_gelu_quickf(a[k]); break;
                case GGML_GLU_OP_SWIGLU_OAI: {
                    const float xa = gk_minf(a[k], limit);
                    const float yb = gk_maxf(gk_minf(b[k], limit), -limit);
                    z[k] = xa / (1.0f + gk_expf(-alpha * xa)) * (yb + 1.0f);
                    continue;
                }
                default: GGML_ABORT("glu op %d has no CPU kernel", (int) op);
            }
            z[k] = v * b[k];
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

// ---------------------------------------------------------------------------
// reductions: SUM, SUM_ROWS, MEAN, ARGMAX, NORM, RMS_NORM
// ---------------------------------------------------------------------------

static void op_sum(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    if (params->ith != 0) {
        return;
    }
    const struct ggml_tensor * src0 = dst->src[0];
    float * t0 = scratch_row(params, dst, 0);
    double s = 0.0;
    for (int64_t ir = 0; ir < ggml_nrows(src0); ir++) {
        int64_t i1, i2, i3;
        unravel_row(src0, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        for (int64_t k = 0; k < src0->ne[0]; k++) {
            s += x[k]; // in double, as upstream's sums
        }
    }
    elem_set(dst->type, dst->data, (float) s);
}

static void op_sum_rows(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool mean) {
    const struct ggml_tensor * src0 = dst->src[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(src0), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(src0, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        double s = 0.0;
        for (int64_t k = 0; k < src0->ne[0]; k++) {
            s += x[k];
        }
        if (mean) {
            s /= (double) src0->ne[0];
        }
        elem_set(dst->type, row_ptr(dst, i1, i2, i3), (float) s);
    }
}

static void op_argmax(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(src0), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(src0, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        int32_t best = 0;
        for (int64_t k = 1; k < src0->ne[0]; k++) {
            if (x[k] > x[best]) {
                best = (int32_t) k;
            }
        }
        // dst is I32 [nrows of src0]
        ((int32_t *) dst->data)[ir] = best;
    }
}

#if defined(__x86_64__)
// NORM's pipelined form (streamed output): src0 F32 rows read in place, dst
// rows 32-byte aligned, and no row of dst overlaps a later row of src0 (the
// same tensor, or apart)
static bool norm_pipe_ok(const struct ggml_tensor * src0, const struct ggml_tensor * dst) {
    if (src0->type != GGML_TYPE_F32 || !row_is_dense(src0) || ((uintptr_t) dst->data & 31) != 0 ||
        dst->nb[1] % 32 != 0 || dst->nb[2] % 32 != 0 || dst->nb[3] % 32 != 0) {
        return false;
    }
    if (src0->data == dst->data) {
        return src0->nb[1] == dst->nb[1] && src0->nb[2] == dst->nb[2] && src0->nb[3] == dst->nb[3];
    }
    return tensors_apart(src0, dst);
}
#endif

static void op_norm(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool rms) {
    const struct ggml_tensor * src0 = dst->src[0];
    const float eps = ggml_get_op_params_f32(dst, 0);
    const int64_t n = src0->ne[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
#if defined(__x86_64__)
    const bool stream = out_stream(params, dst);
#endif
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
#if defined(__x86_64__)
    if (stream && r0 < r1 && norm_pipe_ok(src0, dst)) {
        // each row written while the next one (RMS_NORM: its sum of
        // squares) or two (NORM: the next one's centred sum of squares, the
        // sum of the one after) are read: the same values as below (the
        // kernels keep the sums' order). xr[k]: row ir + k, or the range's
        // last row past it (read again from the cache, the sums unused).
        const float * xr[3];
        int64_t j1 = i1, j2 = i2, j3 = i3; // the row of xr[2]
        xr[0] = (const float *) row_ptr(src0, i1, i2, i3);
        for (int k = 1; k < 3; k++) {
            xr[k] = xr[k - 1];
            if (r0 + k < r1) {
                next_row(dst, &j1, &j2, &j3);
                xr[k] = (const float *) row_ptr(src0, j1, j2, j3);
            }
        }
        // NORM on AVX512: two rows live, not three (three rows of 16 KiB
        // fill a 48 KiB L1): row ir written while row ir + 1 is summed (from
        // memory), then row ir + 1's centred sum of squares (cached), with
        // half the AVX2 kernels' instructions; the same sums
        const bool two = !rms && AVX512(params->ref);
        float s2;
        double sum0 = 0.0, sum1 = 0.0;
        if (rms) {
            s2 = VK(gk_dot_f32)(n, xr[0], xr[0]);
        } else {
            sum0 = VK(gk_sum_f64)(n, xr[0]);
            s2 = VK(gk_sumsq_dev)(n, xr[0], (float) (sum0 / (double) n));
            sum1 = two ? 0.0 : VK(gk_sum_f64)(n, xr[1]);
        }
        for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
            float * z = (float *) row_ptr(dst, i1, i2, i3);
            const float scale = 1.0f / gk_sqrtf(s2 / (float) n + eps);
            if (rms) {
                s2 = gk_scale_nt_sumsq_avx2(n, xr[0], scale, z, xr[1]);
            } else if (two) {
                sum0 = gk_centre_scale_nt_sum_avx512(n, xr[0], (float) (sum0 / (double) n), scale, z, xr[1]);
                if (ir + 1 < r1) {
                    s2 = gk_sumsq_dev_avx512(n, xr[1], (float) (sum0 / (double) n));
                }
            } else {
                const float mean = (float) (sum0 / (double) n), mean1 = (float) (sum1 / (double) n);
                sum0 = sum1;
                sum1 = gk_norm_step_nt_avx2(n, xr[0], mean, scale, z, xr[1], mean1, &s2, xr[2]);
            }
            xr[0] = xr[1];
            xr[1] = xr[2];
            if (ir + 3 < r1) {
                next_row(dst, &j1, &j2, &j3);
                xr[2] = (const float *) row_ptr(src0, j1, j2, j3);
            }
        }
        return;
    }
#endif
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
#if defined(__x86_64__)
        // a large output: the last pass writes it with non-temporal stores
        // (z is dst's row: F32, dense), from x (or the row converted in t0)
        if (stream) {
            if (rms) {
                const float s2 = VK(gk_dot_f32)(n, x, x);
                gk_scale_bias_nt_avx2(n, x, 1.0f / gk_sqrtf(s2 / (float) n + eps), 0.0f, z);
            } else {
                const float mean = (float) (VK(gk_sum_f64)(n, x) / (double) n);
                const float s2 = VK(gk_sumsq_dev)(n, x, mean);
                gk_centre_scale_nt_avx2(n, x, mean, 1.0f / gk_sqrtf(s2 / (float) n + eps), z);
            }
            continue;
        }
#endif
#if HAVE_VK
        // NORM in one pass from memory: the sum, the centred sum of squares
        // and the scaled write read the row again from the cache (the
        // reference path below writes the centred row first)
        if (!rms && SIMD(params->ref)) {
#if defined(__x86_64__)
            const bool w16 = AVX512(params->ref); // the same sums, half the instructions
            const float mean = (float) ((w16 ? gk_sum_f64_avx512(n, x) : VK(gk_sum_f64)(n, x)) / (double) n);
            const float s2 = w16 ? gk_sumsq_dev_avx512(n, x, mean) : VK(gk_sumsq_dev)(n, x, mean);
#else
            const float mean = (float) (VK(gk_sum_f64)(n, x) / (double) n);
            const float s2 = VK(gk_sumsq_dev)(n, x, mean);
#endif
            VK(gk_centre_scale)(n, x, mean, 1.0f / gk_sqrtf(s2 / (float) n + eps), z);
            row_out_commit(dst, i1, i2, i3, z, params->ref);
            continue;
        }
#endif
        float mean = 0.0f;
        if (!rms) {
            double s = 0.0;
            for (int64_t k = 0; k < n; k++) {
                s += x[k];
            }
            mean = (float) (s / (double) n);
        }
        // sum of squares of the centred values (RMS: of x itself)
        const float * c = x;
        if (!rms) {
            for (int64_t k = 0; k < n; k++) {
                z[k] = x[k] - mean;
            }
            c = z;
        }
        const float s2 = ggml_cpu_dot_f32(n, c, c, params->ref);
        const float scale = 1.0f / gk_sqrtf(s2 / (float) n + eps);
        scale_bias(n, c, scale, 0.0f, z, params->ref);
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

// ---------------------------------------------------------------------------
// SOFT_MAX (scale, mask F32/F16 broadcast over dims 2-3, ALiBi, sinks)
// ---------------------------------------------------------------------------

float ggml_cpu_alibi_slope(float max_bias, int64_t h, int64_t n_head) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    int n_head_log2 = 1;
    while (n_head_log2 * 2 <= n_head) {
        n_head_log2 *= 2;
    }
    const float m0 = gk_powf(2.0f, -max_bias / (float) n_head_log2);
    const float m1 = gk_powf(2.0f, -(max_bias / 2.0f) / (float) n_head_log2);
    return h < n_head_log2 ? gk_powf(m0, (float) (h + 1)) : gk_powf(m1, (float) (2 * (h - n_head_log2) + 1));
}

#if defined(__x86_64__)
// SOFT_MAX's next row asked for this many bytes ahead of its reads in the
// fused pass ([4096,4096] from DRAM: 1 KiB slower, 16 KiB no better, none
// nearly twice the time)
#define SM_PF_AHEAD 4096
// Rows [r0, r1) of SOFT_MAX on x86-64's vector path (softmax-x86.c,
// softmax-avx512.c): one pass over the row for the exponentials and their
// sum (the scaled and masked values formed from the input) that also finds
// the largest value of the next row (read from memory meanwhile, asked for
// 4 KiB ahead), then the normalisation while the row is in the cache. A
// row whose maximum was not found so (the first of the range, one after a
// row masked whole; src0 or the mask converted, or no mask and a scale not
// positive) takes a read pass of its own first. An F16 mask is
// converted on the fly; with a mask the pass finding the next row's maximum
// also keeps its v (scaled and masked), which that row's pass reads back
// instead of forming them again. A large output (out_stream) is written once, with
// non-temporal stores: the exponentials go to one of two scratch rows, and
// each row's normalisation runs inside the next row's exponential pass,
// so that the stores stream out at the pace of the computation instead of
// stalling in a burst.
static void soft_max_rows_x86(const struct ggml_compute_params * params, struct ggml_tensor * dst, int64_t r0,
                              int64_t r1) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * mask = dst->src[1];
    const struct ggml_tensor * sinks = dst->src[2];
    const float max_bias = ggml_get_op_params_f32(dst, 1);
    const int64_t n = src0->ne[0];
    const bool avx512 = AVX512(params->ref);
    const bool next_ok = src0->type == GGML_TYPE_F32 && row_is_dense(src0);
    float * t0 = scratch_row(params, dst, 0);
    float * t1 = scratch_row(params, dst, 1);
    float * zs[2] = { scratch_row(params, dst, 2), scratch_row(params, dst, 3) };
    // streamed: rows of whole vectors at vector-aligned addresses (and the
    // scratch rows, read by whole 512-bit loads)
    const bool stream = out_stream(params, dst) && n % 16 == 0 && dst->nb[1] % 64 == 0 && dst->nb[2] % 64 == 0 &&
                        dst->nb[3] % 64 == 0 && (uintptr_t) dst->data % 64 == 0 && (uintptr_t) zs[0] % 64 == 0 &&
                        (uintptr_t) zs[1] % 64 == 0;
    struct gk_sm_exp a = { .s = ggml_get_op_params_f32(dst, 0) };
    if (mask) {
        a.mt = row_is_dense(mask) && mask->type == GGML_TYPE_F16 ? GK_SM_F16 : GK_SM_F32;
    }
    // the next row's maximum found in this row's exponential pass: the
    // next row's source and mask rows read in place
    const bool fuse = next_ok && (mask ? a.mt == GK_SM_F16 || (mask->type == GGML_TYPE_F32 && row_is_dense(mask))
                                       : a.s > 0.0f && a.s < GK_INFINITY);
    float max_next = 0.0f;
    // have_max: the row's maximum found in the previous row's pass; v_here:
    // with a mask, its v too (in a.vn)
    bool have_max = false, v_here = false;
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        a.x = row_in(src0, i1, i2, i3, t0, params->ref);
        a.slope = ggml_cpu_alibi_slope(max_bias, i2, src0->ne[2]);
        if (mask) {
            const int64_t j1 = i1 % mask->ne[1], j2 = i2 % mask->ne[2], j3 = i3 % mask->ne[3];
            a.m = a.mt == GK_SM_F16 ? (const void *) row_ptr(mask, j1, j2, j3)
                                    : (const void *) row_in(mask, j1, j2, j3, t1, params->ref);
        }
        if (have_max) {
            a.max = max_next;
        } else {
            a.max = avx512 ? gk_softmax_max_avx512(n, a.x, a.s, a.m, a.mt, a.slope)
                           : gk_softmax_max_avx2(n, a.x, a.s, a.m, a.mt, a.slope);
        }
        a.v = v_here ? a.vn : NULL;
        have_max = false;
        v_here = false;
        float sink = -GK_INFINITY;
        if (sinks) {
            sink = elem_get(sinks->type, (const char *) sinks->data + i2 * sinks->nb[0]);
            a.max = gk_maxf(a.max, sink);
        }
        float * out = row_out(dst, i1, i2, i3, zs[0]);
        if (a.max == -GK_INFINITY) {
            // every input masked: upstream yields zeros
            for (int64_t k = 0; k < n; k++) {
                out[k] = 0.0f;
            }
            row_out_commit(dst, i1, i2, i3, out, params->ref);
            continue;
        }
        // the next row of src0, when it is F32 in memory as rows: its
        // maximum found meanwhile (fuse), or itself asked into L1
        a.next = NULL;
        a.xn = NULL;
        a.mn = NULL;
        a.vn = NULL;
        a.z = stream ? zs[(a.prev == zs[0])] : out;
        if (next_ok && ir + 1 < r1) {
            int64_t n1 = i1, n2 = i2, n3 = i3;
            next_row(dst, &n1, &n2, &n3);
            if (fuse) {
                a.xn = (const float *) row_ptr(src0, n1, n2, n3);
                a.slope_n = ggml_cpu_alibi_slope(max_bias, n2, src0->ne[2]);
                if (mask) {
                    a.mn = row_ptr(mask, n1 % mask->ne[1], n2 % mask->ne[2], n3 % mask->ne[3]);
                    // its v kept for its own pass (the scaling and the
                    // mask's conversion once): in the scratch row that
                    // will hold its exponentials (streamed), else in
                    // t0 or t1 (unused: src0 and the mask are read in
                    // place), the one this row's v is not in
                    a.vn = stream ? zs[a.z == zs[0]] : a.v == t0 ? t1 : t0;
                    v_here = true;
                }
                a.max_next = &max_next;
                have_max = true;
                // the next row, read meanwhile, asked for 4 KiB ahead of
                // the reads (past its end: the row after it when the rows
                // follow each other; a prefetch never faults)
                a.next = (const float *) ((uintptr_t) a.xn + SM_PF_AHEAD);
            } else {
                a.next = (const float *) row_ptr(src0, n1, n2, n3);
            }
        }
        double sum = avx512 ? gk_softmax_exp_avx512(n, &a) : gk_softmax_exp_avx2(n, &a);
        if (sinks) {
            sum += gk_expf(sink - a.max);
        }
        const float inv = (float) (1.0 / sum);
        if (stream) {
            a.prev = a.z;
            a.prev_s = inv;
            a.prev_out = out;
            continue;
        }
        if (avx512) {
            gk_softmax_norm_avx512(n, a.z, inv, out, false);
        } else {
            gk_softmax_norm_avx2(n, a.z, inv, out, false);
        }
        row_out_commit(dst, i1, i2, i3, out, params->ref);
    }
    if (a.prev) {
        // the last row's normalisation
        if (avx512) {
            gk_softmax_norm_avx512(n, a.prev, a.prev_s, a.prev_out, true);
        } else {
            gk_softmax_norm_avx2(n, a.prev, a.prev_s, a.prev_out, true);
        }
        gk_sfence_x86();
    }
}
#endif

static void op_soft_max(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * mask = dst->src[1];
    const struct ggml_tensor * sinks = dst->src[2];
    const float scale    = ggml_get_op_params_f32(dst, 0);
    const float max_bias = ggml_get_op_params_f32(dst, 1);
    const int64_t n = src0->ne[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * t1 = scratch_row(params, dst, 1);
    float * to = scratch_row(params, dst, 2);
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
#if defined(__x86_64__)
    if (SIMD(params->ref)) {
        soft_max_rows_x86(params, dst, r0, r1);
        return;
    }
#endif
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        const float slope = ggml_cpu_alibi_slope(max_bias, i2, src0->ne[2]);
        const float * m = NULL;
        if (mask) {
            m = row_in(mask, i1 % mask->ne[1], i2 % mask->ne[2], i3 % mask->ne[3], t1, params->ref);
        }
        float max = -GK_INFINITY;
#if HAVE_VK
        if (SIMD(params->ref)) {
            max = VK(gk_scale_mask_max)(n, x, scale, m, slope, z);
        } else
#endif
        for (int64_t k = 0; k < n; k++) {
            const float v = x[k] * scale + (m ? slope * m[k] : 0.0f);
            z[k] = v;
            max = gk_maxf(max, v);
        }
        float sink = -GK_INFINITY;
        if (sinks) {
            sink = elem_get(sinks->type, (const char *) sinks->data + i2 * sinks->nb[0]);
            max = gk_maxf(max, sink);
        }
        double sum = 0.0;
        if (max == -GK_INFINITY) {
            // every input masked: upstream yields zeros
            for (int64_t k = 0; k < n; k++) {
                z[k] = 0.0f;
            }
        } else {
#if HAVE_VK
            if (SIMD(params->ref)) {
                sum = VK(gk_exp_sub_sum)(n, z, max);
            } else
#endif
            for (int64_t k = 0; k < n; k++) {
                const float e = gk_expf(z[k] - max);
                z[k] = e;
                sum += e;
            }
            if (sinks) {
                sum += gk_expf(sink - max);
            }
            scale_bias(n, z, (float) (1.0 / sum), 0.0f, z, params->ref);
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

static void op_diag_mask(const struct ggml_compute_params * params, struct ggml_tensor * dst, float value) {
    const struct ggml_tensor * src0 = dst->src[0];
    const int n_past = ggml_get_op_params_i32(dst, 0);
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        for (int64_t k = 0; k < dst->ne[0]; k++) {
            z[k] = k > n_past + i1 ? value : x[k];
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

// ---------------------------------------------------------------------------
// ROPE (normal and NeoX, freq factors, YaRN)
// ---------------------------------------------------------------------------

static float rope_corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    return (float) n_dims * gk_logf((float) n_ctx_orig / (n_rot * 2.0f * 3.14159265358979f)) / (2.0f * gk_logf(base));
}

// The angles of one position row into cs (cos, sin interleaved, mscale
// applied): n_dims of them, ne0 for VISION. Multi-section modes take each
// pair's position from its section (t, h, w, e): MROPE in blocks, IMROPE
// interleaved (sector % 3), VISION in blocks with the angle restarting at
// each section.
struct rope_angles {
    int   n_dims, mode;
    int   sections[4];
    float freq_scale, ext_factor, attn_factor, theta_scale;
    float corr[2];
};

static void rope_cache(const struct rope_angles * ra, const float p[4], const struct ggml_tensor * ff, int64_t n,
                       float * cs, bool simd) {
    // SIMD: the angles in blocks of up to 64, then their cosines and sines
    // by the vector kernel (the bits of gk_cosf/gk_sinf)
#if HAVE_VK
    float thb[64];
    int nb = 0;
    int64_t b0 = 0;
#else
    (void) simd;
#endif
    const bool mrope = (ra->mode & GGML_ROPE_TYPE_MROPE) != 0;
#if HAVE_VK
    if (simd && !mrope && ra->ext_factor == 0.0f) {
        // one position, no YaRN ramp: the angles alone, by the operations of
        // the loop below in its order (th[0] / 1 is th[0]), without its
        // per-pair branches and the three unused positions' products (the
        // loop took about 40% of ROPE's time in cache at 32 heads of 128)
        const float fs = ra->freq_scale, ts = ra->theta_scale;
        const float * fd = ff ? (const float *) ff->data : NULL;
        const int64_t nf = ff ? ff->ne[0] : 0, np = (n + 1) / 2;
        float th0 = p[0];
        for (int64_t k0 = 0; k0 < np; k0 += 64) {
            const int64_t m = np - k0 < 64 ? np - k0 : 64;
            if (fd) {
                for (int64_t j = 0; j < m; j++) {
                    const int64_t k = k0 + j;
                    thb[j] = fs * (th0 / (k < nf ? fd[k] : 1.0f));
                    th0 *= ts;
                }
            } else {
                for (int64_t j = 0; j < m; j++) {
                    thb[j] = fs * th0;
                    th0 *= ts;
                }
            }
            VK(gk_sincos)(m, thb, ra->attn_factor, cs + 2 * k0);
        }
        return;
    }
#endif
    const bool imrope = ra->mode == GGML_ROPE_TYPE_IMROPE, vision = ra->mode == GGML_ROPE_TYPE_VISION;
    const int * sec = ra->sections;
    const int sect_dims = sec[0] + sec[1] + sec[2] + sec[3];
    const int sec_w = sec[0] + sec[1], sec_e = sec_w + sec[2];
    float th[4] = { p[0], p[1], p[2], p[3] };
    for (int64_t i0 = 0; i0 < n; i0 += 2) {
        int which = 0; // t
        if (mrope) {
            const int sector = (int) ((i0 / 2) % sect_dims);
            if (vision) {
                // each section's angles start again from its position
                if (sector == 0) {
                    th[0] = p[0];
                } else if (sector == sec[0]) {
                    th[1] = p[1];
                } else if (sector == sec_w) {
                    th[2] = p[2];
                } else if (sector == sec_e) {
                    th[3] = p[3];
                }
            }
            if (imrope) {
                which = sector % 3 == 1 && sector < 3 * sec[1] ? 1 :
                        sector % 3 == 2 && sector < 3 * sec[2] ? 2 :
                        sector % 3 == 0 && sector < 3 * sec[0] ? 0 : 3;
            } else {
                which = sector < sec[0] ? 0 : sector < sec_w ? 1 : sector < sec_e ? 2 : 3;
            }
        }
        const float f = ff && i0 / 2 < ff->ne[0] ? ((const float *) ff->data)[i0 / 2] : 1.0f;
        const float te = th[which] / f;
        const float ti = ra->freq_scale * te;
        float theta = ti;
        float mscale = ra->attn_factor;
        if (ra->ext_factor != 0.0f) {
            const float y = ((float) (i0 / 2) - ra->corr[0]) / gk_maxf(0.001f, ra->corr[1] - ra->corr[0]);
            const float ramp = 1.0f - gk_minf(1.0f, gk_maxf(0.0f, y));
            const float mix = ramp * ra->ext_factor;
            theta = ti * (1.0f - mix) + te * mix;
            mscale *= 1.0f + 0.1f * gk_logf(1.0f / ra->freq_scale);
        }
#if HAVE_VK
        if (simd) {
            // mscale is the same for every pair
            thb[nb++] = theta;
            if (nb == 64 || i0 + 2 >= n) {
                VK(gk_sincos)(nb, thb, mscale, cs + b0);
                b0 += 2 * nb;
                nb = 0;
            }
        } else
#endif
        {
            cs[i0]     = gk_cosf(theta) * mscale;
            cs[i0 + 1] = gk_sinf(theta) * mscale;
        }
        for (int k = 0; k < 4; k++) {
            th[k] *= ra->theta_scale;
        }
    }
}

static void op_rope(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * pos  = dst->src[1];
    const struct ggml_tensor * ff   = dst->src[2];
    struct rope_angles ra;
    ra.n_dims      = ggml_get_op_params_i32(dst, 1);
    ra.mode        = ggml_get_op_params_i32(dst, 2);
    const int   n_ctx_orig  = ggml_get_op_params_i32(dst, 4);
    const float freq_base   = ggml_get_op_params_f32(dst, 5);
    ra.freq_scale  = ggml_get_op_params_f32(dst, 6);
    ra.ext_factor  = ggml_get_op_params_f32(dst, 7);
    ra.attn_factor = ggml_get_op_params_f32(dst, 8);
    const float beta_fast   = ggml_get_op_params_f32(dst, 9);
    const float beta_slow   = ggml_get_op_params_f32(dst, 10);
    for (int k = 0; k < 4; k++) {
        ra.sections[k] = ggml_get_op_params_i32(dst, 11 + k);
    }
    const int64_t n_offs = ggml_get_op_params_i32(dst, 15);
    const int n_dims = ra.n_dims, mode = ra.mode;
    const bool mrope  = (mode & GGML_ROPE_TYPE_MROPE) != 0;
    const bool vision = mode == GGML_ROPE_TYPE_VISION;
    const bool neox   = mode != 0 && !vision; // NEOX, MROPE, IMROPE: pairs (k, k + n_dims/2)

    {
        // Clamped into [-1, n_dims] before the conversions to int (the
        // result is clamped to [0, n_dims - 1] anyway): a zero n_ctx_orig,
        // beta or base gives inf or NaN here, which (int) must not see.
        // NaN clamps to the low end for start, the high end for end.
        const float lim = (float) n_dims;
        float start = rope_corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base);
        float end   = rope_corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base);
        start = start > -1.0f ? gk_minf(start, lim) : -1.0f;
        end   = end < lim ? gk_maxf(end, -1.0f) : lim;
        const float fs = (float) (int) start - ((float) (int) start > start ? 1.0f : 0.0f);   // floor
        const float ce = (float) (int) end + ((float) (int) end < end ? 1.0f : 0.0f);         // ceil
        ra.corr[0] = gk_maxf(0.0f, fs);
        ra.corr[1] = gk_minf((float) (n_dims - 1), ce);
    }
    ra.theta_scale = gk_powf(freq_base, -2.0f / (float) n_dims);
    const int64_t ne0 = dst->ne[0];
    const int64_t n_angles = vision ? ne0 : n_dims;
    const int32_t * P = (const int32_t *) pos->data;
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    float * cs = scratch_row(params, dst, 3); // cos, sin interleaved: needs ne0 floats
    int64_t cached_pos_row = -1;
#if HAVE_VK
    // F32 rows in place, rotated whole: the heads of a position (dim 1) one
    // after the other by the kernel, without the per-row steps below (at
    // heads of 128 those cost about as much as the rotation)
    const bool heads = SIMD(params->ref) && !vision && n_offs == 0 && n_dims == ne0 &&
                       src0->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_F32 && row_is_dense(src0) &&
                       row_is_dense(dst);
#endif
    int64_t i1, i2, i3;
    unravel_row(dst, r0, &i1, &i2, &i3);
    for (int64_t ir = r0; ir < r1; ir++, next_row(dst, &i1, &i2, &i3)) {
        if (i2 + i3 * dst->ne[2] != cached_pos_row) {
            cached_pos_row = i2 + i3 * dst->ne[2];
            const int64_t n2 = dst->ne[2];
            float p[4] = { (float) P[i2], 0.0f, 0.0f, 0.0f };
            if (mrope) {
                p[1] = (float) P[i2 + n2];
                p[2] = (float) P[i2 + 2 * n2];
                p[3] = (float) P[i2 + 3 * n2];
            }
            rope_cache(&ra, p, ff, n_angles, cs, SIMD(params->ref));
            if (dst->op == GGML_OP_ROPE_BACK) {
                // the transposed rotation: the opposite angles
                for (int64_t k = 1; k < n_angles; k += 2) {
                    cs[k] = -cs[k];
                }
            }
        }
#if HAVE_VK
        if (heads) {
            // rows i1 .. i1 + m - 1 of this position (and of this thread)
            const int64_t m = r1 - ir < dst->ne[1] - i1 ? r1 - ir : dst->ne[1] - i1;
            const char * xp = row_ptr(src0, i1, i2, i3);
            char * zp = row_ptr(dst, i1, i2, i3);
            for (int64_t j = 0; j < m; j++, xp += src0->nb[1], zp += dst->nb[1]) {
                if (neox) {
                    VK(gk_rope_neox)(n_dims, (const float *) xp, (float *) zp, cs);
                } else {
                    VK(gk_rope_norm)(n_dims, (const float *) xp, (float *) zp, cs);
                }
            }
            ir += m - 1;
            i1 += m - 1; // the loop's next_row() steps to the next position
            continue;
        }
#endif
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        float * z = row_out(dst, i1, i2, i3, to);
        if (vision) {
            for (int64_t k = 0; k < n_dims; k++) {
                const float a = x[k], b = x[k + n_dims];
                z[k]          = a * cs[2 * k] - b * cs[2 * k + 1];
                z[k + n_dims] = a * cs[2 * k + 1] + b * cs[2 * k];
            }
            row_out_commit(dst, i1, i2, i3, z, params->ref);
            continue;
        }
        const float * xo = x + n_offs;
        float * zo = z + n_offs;
#if HAVE_VK
        if (SIMD(params->ref)) {
            if (neox) {
                VK(gk_rope_neox)(n_dims, xo, zo, cs);
            } else {
                VK(gk_rope_norm)(n_dims, xo, zo, cs);
            }
        } else
#endif
        if (neox) {
            const int64_t half = n_dims / 2;
            for (int64_t i0 = 0; i0 < n_dims; i0 += 2) {
                const int64_t k = i0 / 2;
                const float a = xo[k], b = xo[k + half];
                zo[k]        = a * cs[i0] - b * cs[i0 + 1];
                zo[k + half] = a * cs[i0 + 1] + b * cs[i0];
            }
        } else {
            for (int64_t i0 = 0; i0 < n_dims; i0 += 2) {
                const float a = xo[i0], b = xo[i0 + 1];
                zo[i0]     = a * cs[i0] - b * cs[i0 + 1];
                zo[i0 + 1] = a * cs[i0 + 1] + b * cs[i0];
            }
        }
        for (int64_t i0 = 0; i0 < n_offs; i0++) {
            z[i0] = x[i0];
        }
        for (int64_t i0 = n_offs + n_dims; i0 < ne0; i0++) {
            z[i0] = x[i0];
        }
        row_out_commit(dst, i1, i2, i3, z, params->ref);
    }
}

// ---------------------------------------------------------------------------
// GET_ROWS, SET_ROWS
// ---------------------------------------------------------------------------

static inline int64_t index_get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2) {
    const char * p = (const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2];
    return t->type == GGML_TYPE_I64 ? *(const int64_t *) p : *(const int32_t *) p;
}

static void op_get_rows(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * ids  = dst->src[1];
    // dst [ne00, ne10, ne11, ne12]: row (i10, i11, i12) = src0 row (ids[i10, i11, i12], i11, i12)
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        const int64_t r = index_get(ids, i1, i2, i3);
        GGML_ASSERT(r >= 0 && r < src0->ne[1]);
        if (src0->type == dst->type && row_is_dense(src0) && row_is_dense(dst)) {
            memcpy(row_ptr(dst, i1, i2, i3), row_ptr(src0, r, i2, i3), ggml_row_size(dst->type, dst->ne[0]));
            continue;
        }
        const float * x = row_in(src0, r, i2, i3, t0, params->ref);
        row_out_commit(dst, i1, i2, i3, x, params->ref);
    }
}

static void op_set_rows(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * ids  = dst->src[1];
    // src0 [ne0, n, ne02, ne03]; ids [n, ne11, ne12] broadcast over dims 2-3 of src0
    int64_t r0, r1;
    split_rows(ggml_nrows(src0), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(src0, ir, &i1, &i2, &i3);
        const int64_t r = index_get(ids, i1, i2 % ids->ne[1], i3 % ids->ne[2]);
        GGML_ASSERT(r >= 0 && r < dst->ne[1]);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        row_out_commit(dst, r, i2, i3, x, params->ref);
    }
}

// ---------------------------------------------------------------------------
// shape ops: CONCAT, REPEAT, PAD, ARANGE, ARGSORT
// ---------------------------------------------------------------------------

// n elements of row (s1, s2, s3) of s into row (d1, d2, d3) of d from
// element d0 on, both of one type, bytes as they are: integers of any width
// without a round trip through F32, quantized rows as whole blocks (n and
// d0 multiples of the block size; a quantized row is always dense).
static void copy_row_raw(const struct ggml_tensor * d, int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                         const struct ggml_tensor * s, int64_t s1, int64_t s2, int64_t s3, int64_t n) {
    char * dp = row_ptr(d, d1, d2, d3);
    const char * sp = row_ptr(s, s1, s2, s3);
    if (row_is_dense(d) && row_is_dense(s)) {
        memcpy(dp + ggml_row_size(d->type, d0), sp, ggml_row_size(s->type, n));
        return;
    }
    const size_t es = ggml_type_size(s->type);
    for (int64_t k = 0; k < n; k++) {
        memcpy(dp + (d0 + k) * d->nb[0], sp + k * s->nb[0], es);
    }
}

// CONCAT and REPEAT whose sources have the destination's type move bytes;
// the F32 path below serves the F32/F16/BF16 mixes.
static bool same_type_raw(const struct ggml_tensor * dst) {
    for (int i = 0; i < GGML_MAX_SRC && dst->src[i]; i++) {
        if (dst->src[i]->type != dst->type) {
            return false;
        }
    }
    return true;
}

static void op_concat_raw(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int dim = ggml_get_op_params_i32(dst, 0);
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i[4];
        unravel_row(dst, ir, &i[1], &i[2], &i[3]);
        if (dim == 0) {
            copy_row_raw(dst, 0, i[1], i[2], i[3], a, i[1], i[2], i[3], a->ne[0]);
            copy_row_raw(dst, a->ne[0], i[1], i[2], i[3], b, i[1], i[2], i[3], b->ne[0]);
        } else {
            int64_t j[4] = { 0, i[1], i[2], i[3] };
            const struct ggml_tensor * s = a;
            if (j[dim] >= a->ne[dim]) {
                j[dim] -= a->ne[dim];
                s = b;
            }
            copy_row_raw(dst, 0, i[1], i[2], i[3], s, j[1], j[2], j[3], dst->ne[0]);
        }
    }
}

static void op_repeat_raw(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        for (int64_t k = 0; k < dst->ne[0]; k += src0->ne[0]) {
            copy_row_raw(dst, k, i1, i2, i3, src0, i1 % src0->ne[1], i2 % src0->ne[2], i3 % src0->ne[3], src0->ne[0]);
        }
    }
}

static void op_concat(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    if (same_type_raw(dst)) {
        op_concat_raw(params, dst);
        return;
    }
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int dim = ggml_get_op_params_i32(dst, 0);
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * to = scratch_row(params, dst, 2);
    float * t0 = scratch_row(params, dst, 0);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i[4];
        unravel_row(dst, ir, &i[1], &i[2], &i[3]);
        if (dim == 0) {
            const float * x = row_in(a, i[1], i[2], i[3], t0, params->ref);
            memcpy(to, x, (size_t) a->ne[0] * sizeof(float));
            const float * y = row_in(b, i[1], i[2], i[3], t0, params->ref);
            memcpy(to + a->ne[0], y, (size_t) b->ne[0] * sizeof(float));
        } else {
            int64_t j[4] = { 0, i[1], i[2], i[3] };
            const struct ggml_tensor * s = a;
            if (j[dim] >= a->ne[dim]) {
                j[dim] -= a->ne[dim];
                s = b;
            }
            const float * x = row_in(s, j[1], j[2], j[3], t0, params->ref);
            memcpy(to, x, (size_t) dst->ne[0] * sizeof(float));
        }
        row_out_commit(dst, i[1], i[2], i[3], to, params->ref);
    }
}

static void op_repeat(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    if (same_type_raw(dst)) {
        op_repeat_raw(params, dst);
        return;
    }
    const struct ggml_tensor * src0 = dst->src[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1 % src0->ne[1], i2 % src0->ne[2], i3 % src0->ne[3], t0, params->ref);
        for (int64_t k = 0; k < dst->ne[0]; k++) {
            to[k] = x[k % src0->ne[0]];
        }
        row_out_commit(dst, i1, i2, i3, to, params->ref);
    }
}

// i mod n in [0, n)
static inline int64_t wrap_index(int64_t i, int64_t n) {
    const int64_t r = i % n;
    return r < 0 ? r + n : r;
}

static void op_pad(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    int32_t lp[4], rp[4];
    for (int d = 0; d < 4; d++) {
        lp[d] = ggml_get_op_params_i32(dst, 2 * d);
        rp[d] = ggml_get_op_params_i32(dst, 2 * d + 1);
    }
    (void) rp;
    const bool circular = ggml_get_op_params_i32(dst, 8) != 0;
    int64_t r0, r1;
    split_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    float * to = scratch_row(params, dst, 2);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(dst, ir, &i1, &i2, &i3);
        if (circular) {
            // every position reads a, taken periodically
            const float * x = row_in(src0, wrap_index(i1 - lp[1], src0->ne[1]), wrap_index(i2 - lp[2], src0->ne[2]),
                                     wrap_index(i3 - lp[3], src0->ne[3]), t0, params->ref);
            for (int64_t k = 0; k < dst->ne[0]; k++) {
                to[k] = x[wrap_index(k - lp[0], src0->ne[0])];
            }
            row_out_commit(dst, i1, i2, i3, to, params->ref);
            continue;
        }
        const int64_t j1 = i1 - lp[1], j2 = i2 - lp[2], j3 = i3 - lp[3];
        const bool inside = j1 >= 0 && j1 < src0->ne[1] && j2 >= 0 && j2 < src0->ne[2] && j3 >= 0 && j3 < src0->ne[3];
        const float * x = inside ? row_in(src0, j1, j2, j3, t0, params->ref) : NULL;
        for (int64_t k = 0; k < dst->ne[0]; k++) {
            const int64_t j0 = k - lp[0];
            to[k] = (x && j0 >= 0 && j0 < src0->ne[0]) ? x[j0] : 0.0f;
        }
        row_out_commit(dst, i1, i2, i3, to, params->ref);
    }
}

static void op_arange(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float start = ggml_get_op_params_f32(dst, 0);
    const float step  = ggml_get_op_params_f32(dst, 2);
    int64_t r0, r1;
    split_rows(dst->ne[0], params->ith, params->nth, &r0, &r1);
    for (int64_t i = r0; i < r1; i++) {
        elem_set(dst->type, (char *) dst->data + i * dst->nb[0], start + step * (float) i);
    }
}

static void op_argsort(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const int order = ggml_get_op_params_i32(dst, 0); // 0 ascending, 1 descending
    const int64_t n = src0->ne[0];
    int64_t r0, r1;
    split_rows(ggml_nrows(src0), params->ith, params->nth, &r0, &r1);
    float * t0 = scratch_row(params, dst, 0);
    int32_t * tmp = (int32_t *) scratch_row(params, dst, 1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel_row(src0, ir, &i1, &i2, &i3);
        const float * x = row_in(src0, i1, i2, i3, t0, params->ref);
        int32_t * idx = (int32_t *) row_ptr(dst, i1, i2, i3);
        for (int64_t k = 0; k < n; k++) {
            idx[k] = (int32_t) k;
        }
        // bottom-up merge sort (stable), ping-pong between idx and tmp
        int32_t * a = idx;
        int32_t * b = tmp;
        for (int64_t w = 1; w < n; w *= 2) {
            for (int64_t lo = 0; lo < n; lo += 2 * w) {
                int64_t mid = lo + w < n ? lo + w : n;
                int64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
                int64_t p = lo, q = mid, o = lo;
                while (p < mid && q < hi) {
                    const float xp = x[a[p]], xq = x[a[q]];
                    const bool take_q = order == 0 ? xq < xp : xq > xp;
                    b[o++] = take_q ? a[q++] : a[p++];
                }
                while (p < mid) b[o++] = a[p++];
                while (q < hi)  b[o++] = a[q++];
            }
            int32_t * t = a; a = b; b = t;
        }
        if (a != idx) {
            memcpy(idx, a, (size_t) n * sizeof(int32_t));
        }
    }
}

// ---------------------------------------------------------------------------
// dispatch, support and work sizes
// ---------------------------------------------------------------------------

static bool f32ish(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

// a tensor whose rows copy_row_raw() moves: any unquantized type, or a
// quantized one with dense rows
static bool raw_rows_ok(const struct ggml_tensor * t) {
    return !ggml_is_quantized(t->type) || row_is_dense(t);
}

bool ggml_cpu_supports_op(const struct ggml_tensor * node) {
    const struct ggml_tensor * s0 = node->src[0];
    const struct ggml_tensor * s1 = node->src[1];
    switch (node->op) {
        case GGML_OP_NONE: case GGML_OP_RESHAPE: case GGML_OP_VIEW: case GGML_OP_PERMUTE: case GGML_OP_TRANSPOSE:
            return true;
        case GGML_OP_DUP: case GGML_OP_CPY: case GGML_OP_CONT:
            if (s0->type == node->type) {
                // a copy of bytes: elements, or blocks of dense rows
                // (upstream moves blocks too, whatever the type)
                const int64_t bs = ggml_blck_size(node->type);
                if (!ggml_is_quantized(node->type) || (ggml_is_contiguous(s0) && ggml_is_contiguous(node)) ||
                    (row_is_dense(s0) && row_is_dense(node) && s0->ne[0] % bs == 0 && node->ne[0] % bs == 0)) {
                    return true;
                }
            }
            if (ggml_is_quantized(node->type) && !ggml_is_contiguous_rows(node)) {
                return false;
            }
            if (ggml_is_quantized(s0->type) && !row_is_dense(s0)) {
                return false; // a quantized row is read whole
            }
            return ggml_cpu_type_to_f32_ok(s0->type) && ggml_cpu_type_from_f32_ok(node->type) &&
                   (!ggml_is_quantized(node->type) || ggml_is_contiguous_rows(node));
        case GGML_OP_ADD: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV:
            if (node->op == GGML_OP_ADD && (ggml_is_quantized(s0->type) || ggml_is_quantized(node->type))) {
                // ggml_add_cast: whole rows of a quantized source or destination
                return ggml_cpu_type_to_f32_ok(s0->type) && ggml_cpu_type_from_f32_ok(node->type) &&
                       f32ish(s1->type) && ggml_is_contiguous_rows(s0) && ggml_is_contiguous_rows(node) &&
                       ggml_can_repeat(s1, s0);
            }
            return f32ish(s0->type) && f32ish(s1->type) && f32ish(node->type) && ggml_can_repeat(s1, s0);
        case GGML_OP_ADD1:
            return f32ish(s0->type) && f32ish(s1->type) && f32ish(node->type);
        case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_LOG: case GGML_OP_SIN: case GGML_OP_COS:
        case GGML_OP_SCALE: case GGML_OP_CLAMP: case GGML_OP_LEAKY_RELU:
        case GGML_OP_NORM: case GGML_OP_RMS_NORM: case GGML_OP_DIAG_MASK_INF: case GGML_OP_DIAG_MASK_ZERO:
            return f32ish(s0->type) && f32ish(node->type);
        case GGML_OP_UNARY:
            return f32ish(s0->type) && f32ish(node->type) && unary_supported(ggml_get_unary_op(node));
        case GGML_OP_GLU:
            return f32ish(s0->type) && f32ish(node->type) && (!s1 || f32ish(s1->type)) &&
                   ggml_get_glu_op(node) < GGML_GLU_OP_COUNT;
        case GGML_OP_SUM: case GGML_OP_SUM_ROWS: case GGML_OP_MEAN:
            return f32ish(s0->type) && f32ish(node->type);
        case GGML_OP_ARGMAX:
            return f32ish(s0->type) && node->type == GGML_TYPE_I32;
        case GGML_OP_SOFT_MAX:
            return f32ish(s0->type) && f32ish(node->type) && (!s1 || f32ish(s1->type));
        case GGML_OP_ROPE: case GGML_OP_ROPE_BACK: {
            const int mode = ggml_get_op_params_i32(node, 2);
            const int n_dims = ggml_get_op_params_i32(node, 1), n_offs = ggml_get_op_params_i32(node, 15);
            int sect = 0;
            for (int k = 0; k < 4; k++) {
                const int sk = ggml_get_op_params_i32(node, 11 + k);
                if (sk < 0) {
                    return false;
                }
                sect += sk;
            }
            const bool multi = mode == GGML_ROPE_TYPE_MROPE || mode == GGML_ROPE_TYPE_IMROPE || mode == GGML_ROPE_TYPE_VISION;
            const int64_t n_pos = multi ? 4 * node->ne[2] : node->ne[2];
            return f32ish(s0->type) && f32ish(node->type) && s1->type == GGML_TYPE_I32 &&
                   (mode == 0 || mode == GGML_ROPE_TYPE_NEOX || multi) && (!multi || sect > 0) &&
                   n_dims > 0 && n_dims % 2 == 0 && n_offs >= 0 && n_offs % 2 == 0 &&
                   (mode == GGML_ROPE_TYPE_VISION ? 2 * (int64_t) n_dims == node->ne[0] && n_offs == 0
                                                  : n_offs + n_dims <= node->ne[0]) &&
                   ggml_nelements(s1) >= n_pos &&
                   (!node->src[2] || node->src[2]->type == GGML_TYPE_F32);
        }
        case GGML_OP_GET_ROWS:
            return (s1->type == GGML_TYPE_I32 || s1->type == GGML_TYPE_I64) && ggml_is_contiguous_rows(s0) &&
                   ((s0->type == node->type) || (ggml_cpu_type_to_f32_ok(s0->type) && ggml_cpu_type_from_f32_ok(node->type) &&
                    !ggml_is_quantized(node->type)));
        case GGML_OP_SET_ROWS:
            return (s1->type == GGML_TYPE_I32 || s1->type == GGML_TYPE_I64) && ggml_cpu_type_to_f32_ok(s0->type) &&
                   !ggml_is_quantized(s0->type) && ggml_cpu_type_from_f32_ok(node->type) && ggml_is_contiguous_rows(node);
        case GGML_OP_CONCAT:
            // one type throughout: any type, moved as bytes (quantized: dense rows of whole blocks)
            return (f32ish(s0->type) && f32ish(s1->type) && f32ish(node->type)) ||
                   (s0->type == node->type && s1->type == node->type && raw_rows_ok(s0) && raw_rows_ok(s1) &&
                    raw_rows_ok(node));
        case GGML_OP_REPEAT:
            return (f32ish(s0->type) && f32ish(node->type)) ||
                   (s0->type == node->type && !ggml_is_quantized(node->type));
        case GGML_OP_PAD:
            return f32ish(s0->type) && f32ish(node->type);
        case GGML_OP_ARANGE:
            return node->type == GGML_TYPE_F32;
        case GGML_OP_ARGSORT:
            return f32ish(s0->type) && node->type == GGML_TYPE_I32 && ggml_is_contiguous_rows(node);
        case GGML_OP_FLASH_ATTN_EXT:
            return ggml_cpu_attn_supports_op(node);
        case GGML_OP_MUL_MAT:
            return ggml_cpu_mul_mat_supported(node);
        case GGML_OP_MUL_MAT_ID:
            return ggml_cpu_mul_mat_id_supported(node);
        case GGML_OP_ACC: case GGML_OP_SET: case GGML_OP_ADD_ID: case GGML_OP_TOP_K: case GGML_OP_FILL:
        case GGML_OP_CUMSUM: case GGML_OP_ROLL: case GGML_OP_PAD_REFLECT_1D: case GGML_OP_COUNT_EQUAL:
        case GGML_OP_GET_REL_POS: case GGML_OP_ADD_REL_POS: case GGML_OP_WIN_PART: case GGML_OP_WIN_UNPART:
            return ggml_cpu_indexing_supports_op(node);
        case GGML_OP_OUT_PROD: case GGML_OP_TRI: case GGML_OP_DIAG: case GGML_OP_SOLVE_TRI:
        case GGML_OP_LIGHTNING_INDEXER:
            return ggml_cpu_linalg_supports_op(node);
        case GGML_OP_MAP_CUSTOM1: case GGML_OP_MAP_CUSTOM2: case GGML_OP_MAP_CUSTOM3: case GGML_OP_CUSTOM:
            return true;
        case GGML_OP_DSV4_HC_COMB: case GGML_OP_DSV4_HC_PRE: case GGML_OP_DSV4_HC_POST:
            return ggml_cpu_hc_supports_op(node);
        case GGML_OP_L2_NORM: case GGML_OP_GROUP_NORM:
            return ggml_cpu_norm_supports_op(node);
        case GGML_OP_IM2COL: case GGML_OP_TIMESTEP_EMBEDDING: case GGML_OP_POOL_1D: case GGML_OP_POOL_2D:
        case GGML_OP_CONV_TRANSPOSE_1D: case GGML_OP_CONV_TRANSPOSE_2D: case GGML_OP_CONV_2D_DW: case GGML_OP_UPSCALE:
        case GGML_OP_CONV_2D: case GGML_OP_COL2IM_1D: case GGML_OP_IM2COL_3D: case GGML_OP_CONV_3D:
            return ggml_cpu_conv_supports_op(node);
        case GGML_OP_SSM_CONV: case GGML_OP_SSM_SCAN: case GGML_OP_RWKV_WKV6: case GGML_OP_RWKV_WKV7:
        case GGML_OP_GATED_LINEAR_ATTN: case GGML_OP_GATED_DELTA_NET:
            return ggml_cpu_ssm_supports_op(node);
        case GGML_OP_SILU_BACK: case GGML_OP_RMS_NORM_BACK: case GGML_OP_SOFT_MAX_BACK: case GGML_OP_GET_ROWS_BACK:
        case GGML_OP_REPEAT_BACK: case GGML_OP_IM2COL_BACK: case GGML_OP_POOL_2D_BACK:
            return ggml_cpu_backward_supports_op(node);
        case GGML_OP_CROSS_ENTROPY_LOSS: case GGML_OP_CROSS_ENTROPY_LOSS_BACK: case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD:
            return ggml_cpu_train_supports_op(node);
        default:
            return false;
    }
}

size_t ggml_cpu_op_work_per_thread(const struct ggml_tensor * node) {
    if (node->op == GGML_OP_MUL_MAT) {
        return ggml_cpu_mul_mat_work_per_thread(node);
    }
    if (node->op == GGML_OP_MUL_MAT_ID) {
        return ggml_cpu_mul_mat_id_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (node->op == GGML_OP_TOP_K) {
        return ggml_cpu_indexing_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (node->op == GGML_OP_OUT_PROD || node->op == GGML_OP_LIGHTNING_INDEXER) {
        return ggml_cpu_linalg_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (node->op == GGML_OP_GATED_DELTA_NET) {
        return ggml_cpu_ssm_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (node->op == GGML_OP_CONV_2D) {
        return ggml_cpu_conv_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (node->op == GGML_OP_FLASH_ATTN_EXT) {
        return ggml_cpu_attn_work_per_thread(node) + GGML_CPU_CACHE_LINE;
    }
    if (ggml_op_is_empty(node->op) || node->op == GGML_OP_NONE) {
        return 0;
    }
    size_t sz = (size_t) SCRATCH_ROWS * GGML_PAD(max_ne0(node), 16) * sizeof(float);
    if (node->op == GGML_OP_ROPE || node->op == GGML_OP_ROPE_BACK) {
        sz += 16 * sizeof(float);
    }
    return sz + GGML_CPU_CACHE_LINE;
}

size_t ggml_cpu_op_work_shared(const struct ggml_tensor * node, int n_threads) {
    if (node->op == GGML_OP_MUL_MAT) {
        return ggml_cpu_mul_mat_work_shared(node, n_threads);
    }
    if (node->op == GGML_OP_FLASH_ATTN_EXT) {
        return ggml_cpu_attn_work_shared(node, n_threads);
    }
    return 0;
}

void ggml_cpu_compute_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_DUP: case GGML_OP_CPY: case GGML_OP_CONT: op_dup(params, node); break;
        case GGML_OP_ADD:  op_binary(params, node, BIN_ADD); break;
        case GGML_OP_SUB:  op_binary(params, node, BIN_SUB); break;
        case GGML_OP_MUL:  op_binary(params, node, BIN_MUL); break;
        case GGML_OP_DIV:  op_binary(params, node, BIN_DIV); break;
        case GGML_OP_ADD1: op_add1(params, node); break;
        case GGML_OP_SQR:  op_map(params, node, MAP_SQR); break;
        case GGML_OP_SQRT: op_map(params, node, MAP_SQRT); break;
        case GGML_OP_LOG:  op_map(params, node, MAP_LOG); break;
        case GGML_OP_SIN:  op_map(params, node, MAP_SIN); break;
        case GGML_OP_COS:  op_map(params, node, MAP_COS); break;
        case GGML_OP_SCALE: op_map(params, node, MAP_SCALE); break;
        case GGML_OP_CLAMP: op_map(params, node, MAP_CLAMP); break;
        case GGML_OP_LEAKY_RELU: op_map(params, node, MAP_LEAKY); break;
        case GGML_OP_UNARY: op_map(params, node, MAP_UNARY); break;
        case GGML_OP_GLU:  op_glu(params, node); break;
        case GGML_OP_SUM:  op_sum(params, node); break;
        case GGML_OP_SUM_ROWS: op_sum_rows(params, node, false); break;
        case GGML_OP_MEAN: op_sum_rows(params, node, true); break;
        case GGML_OP_ARGMAX: op_argmax(params, node); break;
        case GGML_OP_NORM: op_norm(params, node, false); break;
        case GGML_OP_RMS_NORM: op_norm(params, node, true); break;
        case GGML_OP_SOFT_MAX: op_soft_max(params, node); break;
        case GGML_OP_DIAG_MASK_INF: op_diag_mask(params, node, -GK_INFINITY); break;
        case GGML_OP_DIAG_MASK_ZERO: op_diag_mask(params, node, 0.0f); break;
        case GGML_OP_ROPE: case GGML_OP_ROPE_BACK: op_rope(params, node); break;
        case GGML_OP_GET_ROWS: op_get_rows(params, node); break;
        case GGML_OP_SET_ROWS: op_set_rows(params, node); break;
        case GGML_OP_CONCAT: op_concat(params, node); break;
        case GGML_OP_REPEAT: op_repeat(params, node); break;
        case GGML_OP_PAD: op_pad(params, node); break;
        case GGML_OP_ARANGE: op_arange(params, node); break;
        case GGML_OP_ARGSORT: op_argsort(params, node); break;
        case GGML_OP_FLASH_ATTN_EXT: ggml_cpu_attn_forward(params, node); break;
        case GGML_OP_MUL_MAT: ggml_cpu_mul_mat(params, node); break;
        case GGML_OP_MUL_MAT_ID: ggml_cpu_mul_mat_id(params, node); break;
        case GGML_OP_ACC: case GGML_OP_SET: case GGML_OP_ADD_ID: case GGML_OP_TOP_K: case GGML_OP_FILL:
        case GGML_OP_CUMSUM: case GGML_OP_ROLL: case GGML_OP_PAD_REFLECT_1D: case GGML_OP_COUNT_EQUAL:
        case GGML_OP_GET_REL_POS: case GGML_OP_ADD_REL_POS: case GGML_OP_WIN_PART: case GGML_OP_WIN_UNPART:
            ggml_cpu_indexing_forward(params, node);
            break;
        case GGML_OP_OUT_PROD: case GGML_OP_TRI: case GGML_OP_DIAG: case GGML_OP_SOLVE_TRI:
        case GGML_OP_LIGHTNING_INDEXER:
            ggml_cpu_linalg_forward(params, node);
            break;
        case GGML_OP_MAP_CUSTOM1: case GGML_OP_MAP_CUSTOM2: case GGML_OP_MAP_CUSTOM3: case GGML_OP_CUSTOM:
            ggml_cpu_custom_forward(params, node);
            break;
        case GGML_OP_DSV4_HC_COMB: case GGML_OP_DSV4_HC_PRE: case GGML_OP_DSV4_HC_POST:
            ggml_cpu_hc_forward(params, node);
            break;
        case GGML_OP_L2_NORM: case GGML_OP_GROUP_NORM: ggml_cpu_norm_forward(params, node); break;
        case GGML_OP_IM2COL: case GGML_OP_TIMESTEP_EMBEDDING: case GGML_OP_POOL_1D: case GGML_OP_POOL_2D:
        case GGML_OP_CONV_TRANSPOSE_1D: case GGML_OP_CONV_TRANSPOSE_2D: case GGML_OP_CONV_2D_DW: case GGML_OP_UPSCALE:
        case GGML_OP_CONV_2D: case GGML_OP_COL2IM_1D: case GGML_OP_IM2COL_3D: case GGML_OP_CONV_3D:
            ggml_cpu_conv_forward(params, node);
            break;
        case GGML_OP_SSM_CONV: case GGML_OP_SSM_SCAN: case GGML_OP_RWKV_WKV6: case GGML_OP_RWKV_WKV7:
        case GGML_OP_GATED_LINEAR_ATTN: case GGML_OP_GATED_DELTA_NET:
            ggml_cpu_ssm_forward(params, node);
            break;
        case GGML_OP_SILU_BACK: case GGML_OP_RMS_NORM_BACK: case GGML_OP_SOFT_MAX_BACK: case GGML_OP_GET_ROWS_BACK:
        case GGML_OP_REPEAT_BACK: case GGML_OP_IM2COL_BACK: case GGML_OP_POOL_2D_BACK:
            ggml_cpu_backward_forward(params, node);
            break;
        case GGML_OP_CROSS_ENTROPY_LOSS: case GGML_OP_CROSS_ENTROPY_LOSS_BACK: case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD:
            ggml_cpu_train_forward(params, node);
            break;
        case GGML_OP_NONE: case GGML_OP_RESHAPE: case GGML_OP_VIEW: case GGML_OP_PERMUTE: case GGML_OP_TRANSPOSE:
            break;
        default:
            GGML_ABORT("%s: op %s has no CPU kernel", __func__, ggml_op_desc(node));
    }
}
