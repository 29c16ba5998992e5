/*
 * cpu-ops-train.c - CPU kernels of the training ops (lib/ggml-ops-train.c):
 * CROSS_ENTROPY_LOSS and its gradient, OPT_STEP_ADAMW and OPT_STEP_SGD.
 * F32, sources read through their strides. The loss is one sum over every
 * row, kept in double on thread 0 (the others return); the gradient and
 * the optimizer steps split rows over the threads and update the
 * parameter, and AdamW's moments, in place.
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

static inline void unravel(const struct ggml_tensor * t, int64_t ir, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i1 = ir % t->ne[1];
    *i2 = (ir / t->ne[1]) % t->ne[2];
    *i3 = ir / (t->ne[1] * t->ne[2]);
}

// log(sum(exp(x - max))) and max of a row of logits
static double row_lse(const struct ggml_tensor * a, int64_t i1, int64_t i2, int64_t i3, float * max_out) {
    float mx = -GK_INFINITY;
    for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
        mx = gk_maxf(mx, *f32p(a, i0, i1, i2, i3));
    }
    double s = 0.0;
    for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
        s += gk_expf(*f32p(a, i0, i1, i2, i3) - mx);
    }
    *max_out = mx;
    return (double) gk_logf((float) s);
}

// -sum over rows of sum(b * log_softmax(a)), / rows
static void op_cross_entropy_loss(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    if (params->ith != 0) {
        return;
    }
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t nr = ggml_nrows(a);
    double sum = 0.0;
    for (int64_t ir = 0; ir < nr; ir++) {
        int64_t i1, i2, i3;
        unravel(a, ir, &i1, &i2, &i3);
        float mx;
        const double lse = row_lse(a, i1, i2, i3, &mx);
        for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
            sum += (double) *f32p(b, i0, i1, i2, i3) * ((double) (*f32p(a, i0, i1, i2, i3) - mx) - lse);
        }
    }
    *(float *) dst->data = (float) (-sum / (double) nr);
}

// (softmax(a) - b) * d / rows
static void op_cross_entropy_loss_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * d = dst->src[0];
    const struct ggml_tensor * a = dst->src[1];
    const struct ggml_tensor * b = dst->src[2];
    const int64_t nr = ggml_nrows(a);
    const float k = *(const float *) d->data / (float) nr;
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(a, ir, &i1, &i2, &i3);
        float mx;
        const float lse = (float) row_lse(a, i1, i2, i3, &mx);
        for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
            const float p = gk_expf(*f32p(a, i0, i1, i2, i3) - mx - lse);
            *f32p(dst, i0, i1, i2, i3) = (p - *f32p(b, i0, i1, i2, i3)) * k;
        }
    }
}

// AdamW: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// w = w (1 - alpha wd) - alpha (m b1h) / (sqrt(v b2h) + eps)
static void op_opt_step_adamw(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * w = dst->src[0];
    const struct ggml_tensor * g = dst->src[1];
    const struct ggml_tensor * m = dst->src[2];
    const struct ggml_tensor * v = dst->src[3];
    const float * p = (const float *) dst->src[4]->data;
    const float alpha = p[0], beta1 = p[1], beta2 = p[2], eps = p[3], wd = p[4], beta1h = p[5], beta2h = p[6];
    const float keep = 1.0f - alpha * wd;
    for (int64_t ir = params->ith; ir < ggml_nrows(w); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(w, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < w->ne[0]; i0++) {
            const float gv = *f32p(g, i0, i1, i2, i3);
            float * mp = f32p(m, i0, i1, i2, i3);
            float * vp = f32p(v, i0, i1, i2, i3);
            float * wp = f32p(w, i0, i1, i2, i3);
            *mp = *mp * beta1 + gv * (1.0f - beta1);
            *vp = *vp * beta2 + gv * gv * (1.0f - beta2);
            const float mh = *mp * beta1h;
            const float vh = gk_sqrtf(*vp * beta2h) + eps;
            *wp = *wp * keep - alpha * mh / vh;
        }
    }
}

// SGD: w = w (1 - alpha wd) - alpha g
static void op_opt_step_sgd(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * w = dst->src[0];
    const struct ggml_tensor * g = dst->src[1];
    const float * p = (const float *) dst->src[2]->data;
    const float alpha = p[0], keep = 1.0f - p[0] * p[1];
    for (int64_t ir = params->ith; ir < ggml_nrows(w); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(w, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < w->ne[0]; i0++) {
            float * wp = f32p(w, i0, i1, i2, i3);
            *wp = *wp * keep - alpha * *f32p(g, i0, i1, i2, i3);
        }
    }
}

static bool all_f32(const struct ggml_tensor * node) {
    if (node->type != GGML_TYPE_F32) {
        return false;
    }
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        if (node->src[k] != NULL && node->src[k]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

bool ggml_cpu_train_supports_op(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_CROSS_ENTROPY_LOSS:
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK:
        case GGML_OP_OPT_STEP_SGD:
            return all_f32(node);
        case GGML_OP_OPT_STEP_ADAMW:
            return all_f32(node) && ggml_is_contiguous(node->src[4]);
        default:
            return false;
    }
}

void ggml_cpu_train_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_CROSS_ENTROPY_LOSS:      op_cross_entropy_loss(params, node); break;
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK: op_cross_entropy_loss_back(params, node); break;
        case GGML_OP_OPT_STEP_ADAMW:          op_opt_step_adamw(params, node); break;
        case GGML_OP_OPT_STEP_SGD:            op_opt_step_sgd(params, node); break;
        default: GGML_ABORT("%s: op %s is not a training op", __func__, ggml_op_desc(node));
    }
}
