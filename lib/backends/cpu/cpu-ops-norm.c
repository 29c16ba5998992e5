/*
 * cpu-ops-norm.c - CPU kernels of the normalizations beyond NORM and
 * RMS_NORM (cpu-ops.c): L2_NORM (per row) and GROUP_NORM (per group of
 * channels). F32, sources read through their strides. Sums in double.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-math.h"

static inline float * f32p(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

// rows split over the threads; dst[row] = a[row] / max(|a[row]|, eps)
static void op_l2_norm(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const float eps = ggml_get_op_params_f32(dst, 0);
    const int64_t nr = ggml_nrows(dst), n = dst->ne[0];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i3 = ir / (dst->ne[2] * dst->ne[1]);
        const int64_t i2 = (ir / dst->ne[1]) % dst->ne[2];
        const int64_t i1 = ir % dst->ne[1];
        double ss = 0.0;
        for (int64_t i0 = 0; i0 < n; i0++) {
            const float x = *f32p(a, i0, i1, i2, i3);
            ss += (double) x * x;
        }
        const float norm = gk_sqrtf((float) ss);
        const float scale = 1.0f / (norm > eps ? norm : eps);
        for (int64_t i0 = 0; i0 < n; i0++) {
            *f32p(dst, i0, i1, i2, i3) = *f32p(a, i0, i1, i2, i3) * scale;
        }
    }
}

// groups of ceil(ne2 / n_groups) channels, each (group, i3) split over the
// threads; mean and variance over the group's ne0 * ne1 * channels values
static void op_group_norm(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int n_groups = ggml_get_op_params_i32(dst, 0);
    const float eps = ggml_get_op_params_f32(dst, 1);
    const int64_t nc = a->ne[2];
    const int64_t per = (nc + n_groups - 1) / n_groups;
    const int64_t nwork = (int64_t) n_groups * a->ne[3];
    for (int64_t w = params->ith; w < nwork; w += params->nth) {
        const int64_t g = w % n_groups, i3 = w / n_groups;
        const int64_t c0 = g * per, c1 = c0 + per < nc ? c0 + per : nc;
        if (c0 >= c1) {
            continue;
        }
        const double count = (double) a->ne[0] * (double) a->ne[1] * (double) (c1 - c0);
        double sum = 0.0;
        for (int64_t i2 = c0; i2 < c1; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    sum += *f32p(a, i0, i1, i2, i3);
                }
            }
        }
        const float mean = (float) (sum / count);
        double var = 0.0;
        for (int64_t i2 = c0; i2 < c1; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    const float d = *f32p(a, i0, i1, i2, i3) - mean;
                    var += (double) d * d;
                }
            }
        }
        const float scale = 1.0f / gk_sqrtf((float) (var / count) + eps);
        for (int64_t i2 = c0; i2 < c1; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    *f32p(dst, i0, i1, i2, i3) = (*f32p(a, i0, i1, i2, i3) - mean) * scale;
                }
            }
        }
    }
}

bool ggml_cpu_norm_supports_op(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_L2_NORM:
            return node->type == GGML_TYPE_F32 && node->src[0]->type == GGML_TYPE_F32 &&
                   ggml_get_op_params_f32(node, 0) >= 0.0f;
        case GGML_OP_GROUP_NORM:
            return node->type == GGML_TYPE_F32 && node->src[0]->type == GGML_TYPE_F32 &&
                   ggml_get_op_params_i32(node, 0) > 0;
        default:
            return false;
    }
}

void ggml_cpu_norm_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_L2_NORM:    op_l2_norm(params, node); break;
        case GGML_OP_GROUP_NORM: op_group_norm(params, node); break;
        default: GGML_ABORT("%s: op %s is not a norm op", __func__, ggml_op_desc(node));
    }
}
