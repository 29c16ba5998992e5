/*
 * ggml-backward-solve.c - the gradient of SOLVE_TRI (X with A X = B, A
 * lower triangular; row i of A holds A[i][0..n), row i of X and B a
 * right-hand side's k values). With G the gradient of X:
 *   dB = Y, the solution of A^T Y = G (back substitution, A^T upper);
 *   dA[i][j] = -Y_i . X_j for j <= i (A's upper triangle is not read).
 * Both are CUSTOM nodes computed in double through the sources' strides,
 * batched over dims 2-3 like the op (CPU only).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backward.h"
#include "ggml-impl.h"

static inline double get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(const float *) ((const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] +
                             i3 * t->nb[3]);
}

static inline float * out_at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

// dst = Y [k, n]: src[0] = G [k, n], src[1] = A [n, n]; one (column c,
// batch) per task: Y_i = (G_i - sum_{m > i} A[m][i] Y_m) / A[i][i], i = n-1..0
static void solve_b_fn(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
    (void) userdata;
    const struct ggml_tensor * g = dst->src[0];
    const struct ggml_tensor * a = dst->src[1];
    const int64_t k = dst->ne[0], n = dst->ne[1], nb = dst->ne[2] * dst->ne[3];
    for (int64_t w = ith; w < k * nb; w += nth) {
        const int64_t c = w % k, b = w / k, i2 = b % dst->ne[2], i3 = b / dst->ne[2];
        for (int64_t i = n - 1; i >= 0; i--) {
            double s = get(g, c, i, i2, i3);
            for (int64_t m = i + 1; m < n; m++) {
                s -= get(a, i, m, i2, i3) * *out_at(dst, c, m, i2, i3);
            }
            *out_at(dst, c, i, i2, i3) = (float) (s / get(a, i, i, i2, i3));
        }
    }
}

// dst = dA [n, n]: src[0] = Y [k, n], src[1] = X [k, n]; row i per task
static void solve_a_fn(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
    (void) userdata;
    const struct ggml_tensor * y = dst->src[0];
    const struct ggml_tensor * x = dst->src[1];
    const int64_t k = y->ne[0], n = dst->ne[1];
    const int64_t nr = n * dst->ne[2] * dst->ne[3];
    for (int64_t r = ith; r < nr; r += nth) {
        const int64_t i = r % n, i2 = (r / n) % dst->ne[2], i3 = r / (n * dst->ne[2]);
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            if (j <= i) {
                for (int64_t c = 0; c < k; c++) {
                    s -= get(y, c, i, i2, i3) * get(x, c, j, i2, i3);
                }
            }
            *out_at(dst, j, i, i2, i3) = (float) s;
        }
    }
}

struct ggml_tensor * ggml_backward_solve_tri_b(struct ggml_context * ctx, struct ggml_tensor * grad,
                                               struct ggml_tensor * fwd) {
    struct ggml_tensor * a = fwd->src[0];
    struct ggml_tensor * b = fwd->src[1];
    GGML_ASSERT(grad->type == GGML_TYPE_F32 && ggml_are_same_shape(grad, b));
    struct ggml_tensor * args[2] = { grad, a };
    return ggml_custom_4d(ctx, GGML_TYPE_F32, b->ne[0], b->ne[1], b->ne[2], b->ne[3], args, 2, solve_b_fn,
                          GGML_N_TASKS_MAX, NULL);
}

struct ggml_tensor * ggml_backward_solve_tri_a(struct ggml_context * ctx, struct ggml_tensor * y,
                                               struct ggml_tensor * fwd) {
    struct ggml_tensor * a = fwd->src[0];
    struct ggml_tensor * args[2] = { y, fwd };
    return ggml_custom_4d(ctx, GGML_TYPE_F32, a->ne[0], a->ne[1], a->ne[2], a->ne[3], args, 2, solve_a_fn,
                          GGML_N_TASKS_MAX, NULL);
}
