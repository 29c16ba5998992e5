/*
 * cpu-ops-conv.c - CPU kernels of the convolution-family ops: IM2COL,
 * POOL_1D, POOL_2D and TIMESTEP_EMBEDDING. The input is read through its strides (any view);
 * IM2COL writes F32 or F16 patches, threads split the patches (rows of dst).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"

static inline float elem_f(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = (const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    switch (t->type) {
        case GGML_TYPE_F32:  return *(const float *) p;
        case GGML_TYPE_F16:  return gk_fp16_to_fp32(*(const uint16_t *) p);
        case GGML_TYPE_BF16: return gk_bf16_to_fp32(*(const uint16_t *) p);
        default: GGML_ABORT("im2col: input type %s", ggml_type_name(t->type));
    }
}

// One patch per row of dst: (ox, oy, n) = (i1, i2, i3) in 2-D, (ox, n) =
// (i1, i2) in 1-D; element ic*KH*KW + ky*KW + kx.
static void op_im2col(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int32_t s0 = ggml_get_op_params_i32(dst, 0), s1 = ggml_get_op_params_i32(dst, 1);
    const int32_t p0 = ggml_get_op_params_i32(dst, 2), p1 = ggml_get_op_params_i32(dst, 3);
    const int32_t d0 = ggml_get_op_params_i32(dst, 4), d1 = ggml_get_op_params_i32(dst, 5);
    const bool is_2d = ggml_get_op_params_i32(dst, 6) == 1;
    const int64_t KW = k->ne[0], KH = is_2d ? k->ne[1] : 1;
    const int64_t IW = b->ne[0], IH = is_2d ? b->ne[1] : 1;
    const int64_t IC = is_2d ? b->ne[2] : b->ne[1];
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    const int64_t per = (nr + params->nth - 1) / params->nth;
    const int64_t r0 = per * params->ith < nr ? per * params->ith : nr;
    const int64_t r1 = r0 + per < nr ? r0 + per : nr;
    for (int64_t ir = r0; ir < r1; ir++) {
        const int64_t i1 = ir % dst->ne[1];
        const int64_t i2 = (ir / dst->ne[1]) % dst->ne[2];
        const int64_t i3 = ir / (dst->ne[1] * dst->ne[2]);
        const int64_t ox = i1, oy = is_2d ? i2 : 0, n = is_2d ? i3 : i2;
        char * row = (char *) dst->data + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3];
        for (int64_t ic = 0; ic < IC; ic++) {
            for (int64_t ky = 0; ky < KH; ky++) {
                const int64_t iy = oy * s1 + ky * d1 - p1;
                for (int64_t kx = 0; kx < KW; kx++) {
                    const int64_t ix = ox * s0 + kx * d0 - p0;
                    float v = 0.0f;
                    if (ix >= 0 && ix < IW && (!is_2d || (iy >= 0 && iy < IH))) {
                        v = is_2d ? elem_f(b, ix, iy, ic, n) : elem_f(b, ix, ic, n, 0);
                    }
                    const int64_t i0 = (ic * KH + ky) * KW + kx;
                    if (dst->type == GGML_TYPE_F32) {
                        *(float *) (row + i0 * dst->nb[0]) = v;
                    } else {
                        *(uint16_t *) (row + i0 * dst->nb[0]) = gk_fp32_to_fp16(v);
                    }
                }
            }
        }
    }
}

// row i: t = timesteps[i]; j < dim/2: cos(t f_j), sin(t f_j) at j + dim/2,
// f_j = exp(-ln(max_period) j / (dim/2)); a last 0 for odd dim. Threads
// split the rows.
static void op_timestep_embedding(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * ts = dst->src[0];
    const int dim = ggml_get_op_params_i32(dst, 0);
    const int max_period = ggml_get_op_params_i32(dst, 1);
    const int half = dim / 2;
    const float lmp = gk_logf((float) max_period);
    for (int64_t i = params->ith; i < ts->ne[0]; i += params->nth) {
        const float t = elem_f(ts, i, 0, 0, 0);
        float * row = (float *) ((char *) dst->data + i * dst->nb[1]);
        for (int j = 0; j < half; j++) {
            const float arg = t * gk_expf(-lmp * (float) j / (float) half);
            row[j] = gk_cosf(arg);
            row[j + half] = gk_sinf(arg);
        }
        if (dim % 2 != 0) {
            row[2 * half] = 0.0f;
        }
    }
}

// POOL_1D/2D: one output row (dims 1..3 of dst) per step, split over the
// threads. See lib/ggml-ops-conv.c for the averaging rules.
static void op_pool(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool two_d) {
    const struct ggml_tensor * a = dst->src[0];
    const enum ggml_op_pool op = (enum ggml_op_pool) ggml_get_op_params_i32(dst, 0);
    const int k0 = ggml_get_op_params_i32(dst, 1);
    const int k1 = two_d ? ggml_get_op_params_i32(dst, 2) : 1;
    const int s0 = ggml_get_op_params_i32(dst, two_d ? 3 : 2);
    const int s1 = two_d ? ggml_get_op_params_i32(dst, 4) : 1;
    const int p0 = ggml_get_op_params_i32(dst, two_d ? 5 : 3);
    const int p1 = two_d ? ggml_get_op_params_i32(dst, 6) : 0;
    const int64_t nr = ggml_nrows(dst);
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        float * out = (float *) ((char *) dst->data + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3]);
        for (int64_t ox = 0; ox < dst->ne[0]; ox++) {
            float res = op == GGML_OP_POOL_MAX ? -3.40282347e38f : 0.0f;
            int count = 0;
            for (int ky = 0; ky < k1; ky++) {
                const int64_t iy = two_d ? i1 * s1 - p1 + ky : i1;
                if (iy < 0 || iy >= a->ne[1]) {
                    continue;
                }
                for (int kx = 0; kx < k0; kx++) {
                    const int64_t ix = ox * s0 - p0 + kx;
                    if (ix < 0 || ix >= a->ne[0]) {
                        continue;
                    }
                    const float v = elem_f(a, ix, iy, i2, i3);
                    res = op == GGML_OP_POOL_MAX ? (v > res ? v : res) : res + v;
                    count++;
                }
            }
            if (op == GGML_OP_POOL_AVG) {
                res = two_d ? res / (float) (k0 * k1) : count > 0 ? res / (float) count : 0.0f;
            }
            out[ox] = res;
        }
    }
}

static bool f32ish(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

bool ggml_cpu_conv_supports_op(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_IM2COL:
            return f32ish(node->src[1]->type) && (node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16);
        case GGML_OP_TIMESTEP_EMBEDDING:
            return f32ish(node->src[0]->type) && node->type == GGML_TYPE_F32 && node->nb[0] == sizeof(float);
        case GGML_OP_POOL_1D: case GGML_OP_POOL_2D:
            return (node->src[0]->type == GGML_TYPE_F32 || node->src[0]->type == GGML_TYPE_F16) &&
                   node->type == GGML_TYPE_F32 &&
                   (ggml_get_op_params_i32(node, 0) == GGML_OP_POOL_MAX || ggml_get_op_params_i32(node, 0) == GGML_OP_POOL_AVG);
        default:
            return false;
    }
}

void ggml_cpu_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_IM2COL:             op_im2col(params, node); break;
        case GGML_OP_TIMESTEP_EMBEDDING: op_timestep_embedding(params, node); break;
        case GGML_OP_POOL_1D:            op_pool(params, node, false); break;
        case GGML_OP_POOL_2D:            op_pool(params, node, true); break;
        default: GGML_ABORT("%s: op %s is not a convolution op", __func__, ggml_op_desc(node));
    }
}
