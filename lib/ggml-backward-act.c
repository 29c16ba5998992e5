/*
 * ggml-backward-act.c - gradients of the activations upstream has no
 * backward op for (the unary ops beyond ABS/NEG/RELU/SILU/EXP/EXPM1/
 * SOFTPLUS, and every GLU variant): a CUSTOM node whose function computes
 * grad * f'(x) element by element, in double, through the sources' strides.
 * The op's identity and parameters ride in the node's op_params after the
 * custom-op header; the derivative formulas are written out below next to
 * the forward formula each one differentiates (lib/backends/cpu/cpu-ops.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backward.h"
#include "ggml-impl.h"

#include <math.h>

// op_params (int32 slots) after struct ggml_custom_params
#define P_KIND  8  // ACT_UNARY or ACT_GLU_*
#define P_OP    9  // the unary or glu op
#define P_SWAP 10  // fused GLU: halves swapped
#define P_F0   11  // float parameters of the op (xIELU: 4, SWIGLU_OAI: 2)

enum { ACT_UNARY, ACT_GLU_A, ACT_GLU_B, ACT_GLU_FUSED };

_Static_assert(sizeof(struct ggml_custom_params) <= P_KIND * sizeof(int32_t), "custom header overlaps");
_Static_assert((P_F0 + 4) * sizeof(int32_t) <= GGML_MAX_OP_PARAMS, "op_params too small");

static double sigm(double x) {
    return 1.0 / (1.0 + exp(-x));
}

#define GELU_C  0.7978845608028654 // sqrt(2 / pi)
#define GELU_K  0.044715
#define GELU_QK 1.702

// f(x) of the GLU activations (the gate's factor)
static double glu_act(enum ggml_glu_op op, double x, const float * p) {
    switch (op) {
        case GGML_GLU_OP_REGLU:       return x > 0.0 ? x : 0.0;
        case GGML_GLU_OP_GEGLU:       return 0.5 * x * (1.0 + tanh(GELU_C * (x + GELU_K * x * x * x)));
        case GGML_GLU_OP_SWIGLU:      return x * sigm(x);
        case GGML_GLU_OP_GEGLU_ERF:   return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
        case GGML_GLU_OP_GEGLU_QUICK: return x * sigm(GELU_QK * x);
        case GGML_GLU_OP_SWIGLU_OAI: {
            const double xa = x < p[1] ? x : p[1]; // min(x, limit)
            return xa * sigm(p[0] * xa);
        }
        default: GGML_ABORT("glu op %d has no gradient", (int) op);
    }
}

// d/dx of the activations (unary ops through their glu twins where they match)
static double act_deriv(int kind, int op, double x, const float * p) {
    if (kind != ACT_UNARY) {
        switch ((enum ggml_glu_op) op) {
            case GGML_GLU_OP_REGLU:       return x > 0.0 ? 1.0 : 0.0;
            case GGML_GLU_OP_SWIGLU_OAI: {
                if (x >= p[1]) {
                    return 0.0; // clamped from above
                }
                const double s = sigm(p[0] * x);
                return s + p[0] * x * s * (1.0 - s);
            }
            case GGML_GLU_OP_GEGLU:       return act_deriv(ACT_UNARY, GGML_UNARY_OP_GELU, x, p);
            case GGML_GLU_OP_SWIGLU:      return act_deriv(ACT_UNARY, GGML_UNARY_OP_SILU, x, p);
            case GGML_GLU_OP_GEGLU_ERF:   return act_deriv(ACT_UNARY, GGML_UNARY_OP_GELU_ERF, x, p);
            case GGML_GLU_OP_GEGLU_QUICK: return act_deriv(ACT_UNARY, GGML_UNARY_OP_GELU_QUICK, x, p);
            default: GGML_ABORT("glu op %d has no gradient", op);
        }
    }
    switch ((enum ggml_unary_op) op) {
        case GGML_UNARY_OP_TANH: {
            const double t = tanh(x);
            return 1.0 - t * t;
        }
        case GGML_UNARY_OP_ELU:     return x > 0.0 ? 1.0 : exp(x);
        case GGML_UNARY_OP_SIGMOID: {
            const double s = sigm(x);
            return s * (1.0 - s);
        }
        case GGML_UNARY_OP_SILU: {
            const double s = sigm(x);
            return s * (1.0 + x * (1.0 - s));
        }
        case GGML_UNARY_OP_GELU: {
            // 0.5 x (1 + tanh(u)), u = c (x + k x^3)
            const double t = tanh(GELU_C * (x + GELU_K * x * x * x));
            return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_K * x * x);
        }
        case GGML_UNARY_OP_GELU_QUICK: {
            const double s = sigm(GELU_QK * x);
            return s + GELU_QK * x * s * (1.0 - s);
        }
        case GGML_UNARY_OP_GELU_ERF:
            // Phi(x) + x phi(x)
            return 0.5 * (1.0 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
        case GGML_UNARY_OP_HARDSWISH:
            // x min(1, max(0, (x + 3) / 6))
            return x <= -3.0 ? 0.0 : x >= 3.0 ? 1.0 : (2.0 * x + 3.0) / 6.0;
        case GGML_UNARY_OP_HARDSIGMOID:
            return x > -3.0 && x < 3.0 ? 1.0 / 6.0 : 0.0;
        case GGML_UNARY_OP_XIELU: {
            // p = { alpha_n', alpha_p', beta, eps }: x > 0: ap x^2 + beta x;
            // else (expm1(min(x, eps)) - x) an + beta x
            if (x > 0.0) {
                return 2.0 * p[1] * x + p[2];
            }
            return ((x < p[3] ? exp(x) : 0.0) - 1.0) * p[0] + p[2];
        }
        default: GGML_ABORT("unary op %s has no gradient", ggml_unary_op_name((enum ggml_unary_op) op));
    }
}

static inline double get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = (const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    return t->type == GGML_TYPE_F16 ? (double) ggml_fp16_to_fp32(*(const ggml_fp16_t *) p) : *(const float *) p;
}

// the gate's factor g(y) and g'(y): y, 1 except SWIGLU_OAI: clamp(y, -l, l) + 1
static void gate(enum ggml_glu_op op, double y, const float * p, double * g, double * dg) {
    if (op == GGML_GLU_OP_SWIGLU_OAI) {
        const double l = p[1];
        *g = (y < -l ? -l : y > l ? l : y) + 1.0;
        *dg = y > -l && y < l ? 1.0 : 0.0;
    } else {
        *g = y;
        *dg = 1.0;
    }
}

// dst->src: [0] = grad, [1] = x (unary) or a (GLU), [2] = b (split GLU)
static void act_back_fn(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
    (void) userdata;
    const int kind = ggml_get_op_params_i32(dst, P_KIND);
    const int op = ggml_get_op_params_i32(dst, P_OP);
    const bool swapped = ggml_get_op_params_i32(dst, P_SWAP) != 0;
    float p[4];
    for (int k = 0; k < 4; k++) {
        p[k] = ggml_get_op_params_f32(dst, P_F0 + k);
    }
    const struct ggml_tensor * g = dst->src[0];
    const struct ggml_tensor * a = dst->src[1];
    const struct ggml_tensor * b = dst->src[2];
    const int64_t nr = ggml_nrows(dst), n0 = g->ne[0];
    for (int64_t ir = ith; ir < nr; ir += nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        float * out = (float *) ((char *) dst->data + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3]);
        if (kind == ACT_GLU_FUSED && dst->ne[0] > 2 * n0) {
            out[2 * n0] = 0.0f; // an odd row's last element is in neither half
        }
        for (int64_t i0 = 0; i0 < n0; i0++) {
            const double gv = get(g, i0, i1, i2, i3);
            if (kind == ACT_UNARY) {
                out[i0] = (float) (gv * act_deriv(kind, op, get(a, i0, i1, i2, i3), p));
                continue;
            }
            // x: the activation's input, y: the gate's
            const int64_t ix = kind == ACT_GLU_FUSED && swapped ? i0 + n0 : i0;
            const int64_t iy = kind == ACT_GLU_FUSED ? (swapped ? i0 : i0 + n0) : i0;
            const double x = get(a, ix, i1, i2, i3);
            const double y = get(kind == ACT_GLU_FUSED ? a : b, iy, i1, i2, i3);
            double gy, dgy;
            gate((enum ggml_glu_op) op, y, p, &gy, &dgy);
            const double dx = gv * gy * act_deriv(kind, op, x, p);
            const double dy = gv * glu_act((enum ggml_glu_op) op, x, p) * dgy;
            if (kind == ACT_GLU_A) {
                out[i0] = (float) dx;
            } else if (kind == ACT_GLU_B) {
                out[i0] = (float) dy;
            } else {
                out[ix] = (float) dx;
                out[iy] = (float) dy;
            }
        }
    }
}

static struct ggml_tensor * act_node(struct ggml_context * ctx, const struct ggml_tensor * shape,
                                     struct ggml_tensor ** args, int n_args, int kind, int op, bool swapped,
                                     const float * p, int np) {
    struct ggml_tensor * t = ggml_custom_4d(ctx, GGML_TYPE_F32, shape->ne[0], shape->ne[1], shape->ne[2],
                                            shape->ne[3], args, n_args, act_back_fn, GGML_N_TASKS_MAX, NULL);
    ggml_set_op_params_i32(t, P_KIND, kind);
    ggml_set_op_params_i32(t, P_OP, op);
    ggml_set_op_params_i32(t, P_SWAP, swapped ? 1 : 0);
    for (int k = 0; k < 4; k++) {
        ggml_set_op_params_f32(t, P_F0 + k, k < np ? p[k] : 0.0f);
    }
    return t;
}

static bool act_type_ok(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16;
}

struct ggml_tensor * ggml_backward_unary(struct ggml_context * ctx, struct ggml_tensor * grad,
                                         struct ggml_tensor * fwd) {
    struct ggml_tensor * x = fwd->src[0];
    GGML_ASSERT(act_type_ok(grad) && act_type_ok(x) && ggml_are_same_shape(grad, x));
    const enum ggml_unary_op op = ggml_get_unary_op(fwd);
    float p[4] = { 0 };
    if (op == GGML_UNARY_OP_XIELU) {
        for (int k = 0; k < 4; k++) {
            p[k] = ggml_get_op_params_f32(fwd, 1 + k);
        }
    }
    struct ggml_tensor * args[2] = { grad, x };
    return act_node(ctx, x, args, 2, ACT_UNARY, (int) op, false, p, 4);
}

struct ggml_tensor * ggml_backward_glu(struct ggml_context * ctx, struct ggml_tensor * grad,
                                       struct ggml_tensor * fwd, int src) {
    const enum ggml_glu_op op = ggml_get_glu_op(fwd);
    const float p[2] = { ggml_get_op_params_f32(fwd, 2), ggml_get_op_params_f32(fwd, 3) }; // alpha, limit
    struct ggml_tensor * a = fwd->src[0];
    struct ggml_tensor * b = fwd->src[1];
    GGML_ASSERT(act_type_ok(grad) && act_type_ok(a) && (!b || act_type_ok(b)));
    if (b == NULL) {
        GGML_ASSERT(src == 0 && a->ne[0] / 2 == grad->ne[0]);
        struct ggml_tensor * args[2] = { grad, a };
        return act_node(ctx, a, args, 2, ACT_GLU_FUSED, (int) op, ggml_get_op_params_i32(fwd, 1) != 0, p, 2);
    }
    GGML_ASSERT(src == 0 || src == 1);
    struct ggml_tensor * args[3] = { grad, a, b };
    return act_node(ctx, src == 0 ? a : b, args, 3, src == 0 ? ACT_GLU_A : ACT_GLU_B, (int) op, false, p, 2);
}
