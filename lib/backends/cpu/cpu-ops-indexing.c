/*
 * cpu-ops-indexing.c - CPU kernels of the ops that place, select or
 * rearrange elements: ACC, SET, ADD_ID, TOP_K, FILL, CUMSUM, ROLL,
 * PAD_REFLECT_1D, COUNT_EQUAL, GET_REL_POS, ADD_REL_POS, WIN_PART, WIN_UNPART.
 *
 * Sources are read through their strides (views of any layout); the ops
 * upstream defines for F32 only are F32 only here too (ggml_cpu_indexing_
 * supports_op says which). Threads split rows of dst, or of b for SET/ACC.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"

#include <string.h>

// rows [*r0, *r1) of nr for thread ith of nth
static void thread_rows(int64_t nr, int ith, int nth, int64_t * r0, int64_t * r1) {
    const int64_t per = (nr + nth - 1) / nth;
    *r0 = per * ith < nr ? per * ith : nr;
    *r1 = *r0 + per < nr ? *r0 + per : nr;
}

static inline void unravel(const int64_t * ne, int64_t ir, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i3 = ir / (ne[2] * ne[1]);
    *i2 = (ir - *i3 * ne[2] * ne[1]) / ne[1];
    *i1 = ir - *i3 * ne[2] * ne[1] - *i2 * ne[1];
}

static inline char * at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

static inline float f32_at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(const float *) at(t, i0, i1, i2, i3);
}

// ---------------------------------------------------------------------------
// ACC, SET
// ---------------------------------------------------------------------------

// dst = a (all threads, by rows of a), unless the op works in place
static void copy_a_into_dst(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool inplace) {
    const struct ggml_tensor * a = dst->src[0];
    if (inplace || dst->data == a->data) {
        return;
    }
    const size_t es = ggml_type_size(a->type);
    int64_t r0, r1;
    thread_rows(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(a->ne, ir, &i1, &i2, &i3);
        if (a->nb[0] == es && dst->nb[0] == es) {
            memcpy(at(dst, 0, i1, i2, i3), at(a, 0, i1, i2, i3), (size_t) a->ne[0] * es);
        } else {
            for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                memcpy(at(dst, i0, i1, i2, i3), at(a, i0, i1, i2, i3), es);
            }
        }
    }
    ggml_cpu_barrier(params->tp, params->nth);
}

static void op_acc_set(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool acc) {
    const struct ggml_tensor * b = dst->src[1];
    const size_t nb1 = (size_t) ggml_get_op_params_i32(dst, 0);
    const size_t nb2 = (size_t) ggml_get_op_params_i32(dst, 1);
    const size_t nb3 = (size_t) ggml_get_op_params_i32(dst, 2);
    const size_t offset = (size_t) ggml_get_op_params_i32(dst, 3);
    const bool inplace = ggml_get_op_params_i32(dst, 4) != 0;
    copy_a_into_dst(params, dst, inplace);

    // the view of dst that b lands in: b's shape, strides (es, nb1, nb2, nb3)
    const size_t es = ggml_type_size(dst->type);
    char * base = (char *) dst->data + offset;
    const char * end = (const char *) dst->data + ggml_nbytes(dst);
    int64_t r0, r1;
    thread_rows(ggml_nrows(b), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(b->ne, ir, &i1, &i2, &i3);
        char * row = base + i1 * nb1 + i2 * nb2 + i3 * nb3;
        GGML_ASSERT(row + (size_t) b->ne[0] * es <= end && "acc/set: the view of b runs past the destination");
        for (int64_t i0 = 0; i0 < b->ne[0]; i0++) {
            char * d = row + i0 * es;
            const char * s = at(b, i0, i1, i2, i3);
            if (acc) {
                *(float *) d += *(const float *) s;
            } else {
                memcpy(d, s, es);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// ADD_ID: dst[:, i1, i2] = a[:, i1, i2] + b[:, ids[i1, i2]]
// ---------------------------------------------------------------------------

static void op_add_id(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const struct ggml_tensor * ids = dst->src[2];
    int64_t r0, r1;
    thread_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        const int32_t id = *(const int32_t *) at(ids, i1, i2, 0, 0);
        GGML_ASSERT(id >= 0 && id < b->ne[1] && "add_id: id out of range");
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            *(float *) at(dst, i0, i1, i2, i3) = f32_at(a, i0, i1, i2, i3) + f32_at(b, i0, id, 0, 0);
        }
    }
}

// ---------------------------------------------------------------------------
// TOP_K: the indices of the k largest values of each row, written in
// descending order of value (ties: the lower index first)
// ---------------------------------------------------------------------------

// a before b in the order: larger value, or equal and lower index
static inline bool top_before(const float * v, int32_t a, int32_t b) {
    return v[a] > v[b] || (v[a] == v[b] && a < b);
}

// sift down in a min-heap (by top_before reversed: the root is the worst kept)
static void heap_down(int32_t * h, int64_t n, int64_t i, const float * v) {
    for (;;) {
        int64_t l = 2 * i + 1, w = i;
        if (l < n && top_before(v, h[w], h[l])) {
            w = l;
        }
        if (l + 1 < n && top_before(v, h[w], h[l + 1])) {
            w = l + 1;
        }
        if (w == i) {
            return;
        }
        const int32_t t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void op_top_k(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t n = a->ne[0], k = dst->ne[0];
    float * vals = ggml_cpu_thread_scratch(params, dst);
    int32_t * heap = (int32_t *) (vals + GGML_PAD(n, 16));
    int64_t r0, r1;
    thread_rows(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(a->ne, ir, &i1, &i2, &i3);
        for (int64_t i = 0; i < n; i++) {
            vals[i] = f32_at(a, i, i1, i2, i3);
        }
        if (k == 0) {
            continue;
        }
        // keep the k best in a heap whose root is the worst of them
        for (int64_t i = 0; i < k; i++) {
            heap[i] = (int32_t) i;
        }
        for (int64_t i = k / 2; i-- > 0;) {
            heap_down(heap, k, i, vals);
        }
        for (int64_t i = k; i < n; i++) {
            if (top_before(vals, (int32_t) i, heap[0])) {
                heap[0] = (int32_t) i;
                heap_down(heap, k, 0, vals);
            }
        }
        // pop the worst to the end: best first
        for (int64_t m = k; m > 1; m--) {
            const int32_t t = heap[0];
            heap[0] = heap[m - 1];
            heap[m - 1] = t;
            heap_down(heap, m - 1, 0, vals);
        }
        for (int64_t i = 0; i < k; i++) {
            *(int32_t *) at(dst, i, i1, i2, i3) = heap[i];
        }
    }
}

// ---------------------------------------------------------------------------
// FILL, CUMSUM, ROLL, PAD_REFLECT_1D
// ---------------------------------------------------------------------------

static void op_fill(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float c = ggml_get_op_params_f32(dst, 0);
    const uint16_t h = gk_fp32_to_fp16(c);
    int64_t r0, r1;
    thread_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            char * p = at(dst, i0, i1, i2, i3);
            if (dst->type == GGML_TYPE_F32) {
                *(float *) p = c;
            } else {
                *(uint16_t *) p = h;
            }
        }
    }
}

static void op_cumsum(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    int64_t r0, r1;
    thread_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        float s = 0.0f;
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            s += f32_at(a, i0, i1, i2, i3);
            *(float *) at(dst, i0, i1, i2, i3) = s;
        }
    }
}

// (i - shift) mod ne, for |shift| < ne
static inline int64_t roll_src(int64_t i, int64_t shift, int64_t ne) {
    int64_t j = i - shift;
    return j < 0 ? j + ne : j >= ne ? j - ne : j;
}

static void op_roll(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    int64_t sh[4];
    for (int d = 0; d < 4; d++) {
        sh[d] = ggml_get_op_params_i32(dst, d);
    }
    const size_t es = ggml_type_size(dst->type);
    int64_t r0, r1;
    thread_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        const int64_t j1 = roll_src(i1, sh[1], a->ne[1]);
        const int64_t j2 = roll_src(i2, sh[2], a->ne[2]);
        const int64_t j3 = roll_src(i3, sh[3], a->ne[3]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            memcpy(at(dst, i0, i1, i2, i3), at(a, roll_src(i0, sh[0], a->ne[0]), j1, j2, j3), es);
        }
    }
}

static void op_pad_reflect_1d(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t p0 = ggml_get_op_params_i32(dst, 0);
    const int64_t n = a->ne[0];
    int64_t r0, r1;
    thread_rows(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t ir = r0; ir < r1; ir++) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            // position in a, mirrored about 0 and n - 1
            int64_t j = i0 - p0;
            j = j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
            *(float *) at(dst, i0, i1, i2, i3) = f32_at(a, j, i1, i2, i3);
        }
    }
}

// thread 0 counts all (one value out, no reduction across threads)
static void op_count_equal(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    if (params->ith != 0) {
        return;
    }
    int64_t n = 0;
    for (int64_t ir = 0; ir < ggml_nrows(a); ir++) {
        int64_t i1, i2, i3;
        unravel(a->ne, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
            n += *(const int32_t *) at(a, i0, i1, i2, i3) == *(const int32_t *) at(b, i0, i1, i2, i3);
        }
    }
    *(int64_t *) dst->data = n;
}

// GET_REL_POS: rows of dst split over the threads
static void op_get_rel_pos(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t kh = dst->ne[1];
    const int64_t nr = dst->ne[1] * dst->ne[2];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = ir / dst->ne[1];
        const int64_t pos = kh - 1 - i1 + i2;
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            const char * s = at(a, i0, pos, 0, 0);
            const uint16_t h = a->type == GGML_TYPE_F16 ? *(const uint16_t *) s :
                               gk_fp32_to_fp16(a->type == GGML_TYPE_F32 ? *(const float *) s
                                                                        : gk_bf16_to_fp32(*(const uint16_t *) s));
            *(uint16_t *) at(dst, i0, i1, i2, 0) = h;
        }
    }
}

// ADD_REL_POS: copy (unless in place), barrier, then each row of pw/ph
// (one thread each) adds into its own W x W block of dst
static void op_add_rel_pos(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * pw = dst->src[1];
    const struct ggml_tensor * ph = dst->src[2];
    copy_a_into_dst(params, dst, ggml_get_op_params_i32(dst, 0) != 0);
    float * d = (float *) dst->data;
    const float * w = (const float *) pw->data;
    const float * h = (const float *) ph->data;
    const int64_t W = pw->ne[0];
    const int64_t nr = ggml_nrows(pw);
    for (int64_t r = params->ith; r < nr; r += params->nth) {
        for (int64_t i0 = 0; i0 < W; i0++) {
            const int64_t p = r * W + i0;
            const int64_t base_h = p * W, base_w = p * W - (W - 1) * i0;
            for (int64_t j = 0; j < W; j++) {
                d[base_h + j] += h[p];
                d[base_w + j * W] += w[p];
            }
        }
    }
}

// WIN_PART / WIN_UNPART: rows of dst split over the threads
static void op_win(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool part) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t nr = ggml_nrows(dst);
    const int w = ggml_get_op_params_i32(dst, part ? 2 : 0);
    const int64_t npx = part ? ggml_get_op_params_i32(dst, 0) : (dst->ne[1] + w - 1) / w;
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(dst->ne, ir, &i1, &i2, &i3);
        float * d = (float *) at(dst, 0, i1, i2, i3);
        const float * s = NULL;
        if (part) {
            const int64_t x = (i3 % npx) * w + i1, y = (i3 / npx) * w + i2;
            s = x < a->ne[1] && y < a->ne[2] ? (const float *) at(a, 0, x, y, 0) : NULL;
        } else {
            s = (const float *) at(a, 0, i1 % w, i2 % w, (i2 / w) * npx + i1 / w);
        }
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            d[i0 * (int64_t) (dst->nb[0] / sizeof(float))] = s ? s[i0 * (int64_t) (a->nb[0] / sizeof(float))] : 0.0f;
        }
    }
}

// ---------------------------------------------------------------------------
// dispatch
// ---------------------------------------------------------------------------

static bool f32_only(const struct ggml_tensor * node, int n_src) {
    if (node->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (node->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

bool ggml_cpu_indexing_supports_op(const struct ggml_tensor * node) {
    const struct ggml_tensor * s0 = node->src[0];
    switch (node->op) {
        case GGML_OP_ACC:
            return f32_only(node, 2);
        case GGML_OP_SET:
            return !ggml_is_quantized(node->type) && node->src[1]->type == node->type && s0->type == node->type;
        case GGML_OP_ADD_ID:
            return f32_only(node, 2) && node->src[2]->type == GGML_TYPE_I32;
        case GGML_OP_TOP_K:
            return s0->type == GGML_TYPE_F32 && node->type == GGML_TYPE_I32 && s0->ne[0] <= INT32_MAX;
        case GGML_OP_FILL:
            return (node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16);
        case GGML_OP_CUMSUM: case GGML_OP_PAD_REFLECT_1D:
            return f32_only(node, 1);
        case GGML_OP_ROLL:
            return s0->type == node->type && !ggml_is_quantized(node->type);
        case GGML_OP_GET_REL_POS:
            return node->type == GGML_TYPE_F16 &&
                   (s0->type == GGML_TYPE_F16 || s0->type == GGML_TYPE_BF16 || s0->type == GGML_TYPE_F32);
        case GGML_OP_ADD_REL_POS:
            return f32_only(node, 3) && ggml_is_contiguous(node);
        case GGML_OP_WIN_PART: case GGML_OP_WIN_UNPART:
            return f32_only(node, 1) && node->src[0]->nb[0] == sizeof(float);
        case GGML_OP_COUNT_EQUAL:
            return s0->type == GGML_TYPE_I32 && node->src[1]->type == GGML_TYPE_I32 && node->type == GGML_TYPE_I64;
        default:
            return false;
    }
}

size_t ggml_cpu_indexing_work_per_thread(const struct ggml_tensor * node) {
    if (node->op == GGML_OP_TOP_K) {
        const int64_t n = node->src[0]->ne[0];
        return (size_t) GGML_PAD(n, 16) * sizeof(float) + (size_t) node->ne[0] * sizeof(int32_t);
    }
    return 0;
}

void ggml_cpu_indexing_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_ACC:            op_acc_set(params, node, true); break;
        case GGML_OP_SET:            op_acc_set(params, node, false); break;
        case GGML_OP_ADD_ID:         op_add_id(params, node); break;
        case GGML_OP_TOP_K:          op_top_k(params, node); break;
        case GGML_OP_FILL:           op_fill(params, node); break;
        case GGML_OP_CUMSUM:         op_cumsum(params, node); break;
        case GGML_OP_ROLL:           op_roll(params, node); break;
        case GGML_OP_PAD_REFLECT_1D: op_pad_reflect_1d(params, node); break;
        case GGML_OP_COUNT_EQUAL:    op_count_equal(params, node); break;
        case GGML_OP_WIN_PART:       op_win(params, node, true); break;
        case GGML_OP_WIN_UNPART:     op_win(params, node, false); break;
        case GGML_OP_GET_REL_POS:    op_get_rel_pos(params, node); break;
        case GGML_OP_ADD_REL_POS:    op_add_rel_pos(params, node); break;
        default: GGML_ABORT("%s: op %s is not an indexing op", __func__, ggml_op_desc(node));
    }
}
