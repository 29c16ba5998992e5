/*
 * ggml-backward.h - internal: the gradient nodes of the activations that
 * have no backward op of their own (lib/ggml-backward-act.c), for
 * ggml_build_backward_expand (lib/ggml-backward.c). Not installed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_BACKWARD_H
#define GGML_BACKWARD_H

#include "ggml.h"

// grad * f'(x) for the unary op of fwd (a GGML_OP_UNARY node, x its source):
// an F32 tensor of x's shape
struct ggml_tensor * ggml_backward_unary(struct ggml_context * ctx, struct ggml_tensor * grad,
                                         struct ggml_tensor * fwd);

// The gradient of a GLU node fwd for its source src (0 or 1): F32 of that
// source's shape. A fused GLU (one source) gets both halves at once.
struct ggml_tensor * ggml_backward_glu(struct ggml_context * ctx, struct ggml_tensor * grad,
                                       struct ggml_tensor * fwd, int src);

// The gradients of ggml_solve_tri's sources (lib/ggml-backward-solve.c):
// src 1 (B): Y = A^-T grad; src 0 (A): -Y X^T on A's lower triangle, with
// y = the node computing Y (NULL: built here).
struct ggml_tensor * ggml_backward_solve_tri_b(struct ggml_context * ctx, struct ggml_tensor * grad,
                                               struct ggml_tensor * fwd);
struct ggml_tensor * ggml_backward_solve_tri_a(struct ggml_context * ctx, struct ggml_tensor * y,
                                               struct ggml_tensor * fwd);

#endif // GGML_BACKWARD_H
