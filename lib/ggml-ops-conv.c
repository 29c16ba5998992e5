/*
 * ggml-ops-conv.c - constructors of the convolution-family ops: IM2COL
 * (the patch matrix convolutions multiply) and TIMESTEP_EMBEDDING (the
 * sinusoidal embedding of diffusion models).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

// output length of a convolution over ins inputs with a kernel of ks taps
static int64_t conv_out_size(int64_t ins, int64_t ks, int s, int p, int d) {
    return (ins + 2 * p - d * (ks - 1) - 1) / s + 1;
}

// ---------------------------------------------------------------------------
// IM2COL: a = kernel [KW, KH, IC, OC] (2-D) or [KW, IC, OC] (1-D), only its
// shape is used; b = input [IW, IH, IC, N] (2-D) or [IW, IC, N] (1-D).
// Result (dst_type, F32 or F16):
//   2-D: [IC * KH * KW, OW, OH, N], element (ic*KH*KW + ky*KW + kx, ox, oy, n)
//        = b[ox*s0 + kx*d0 - p0, oy*s1 + ky*d1 - p1, ic, n], 0 outside b
//   1-D: [IC * KW, OW, N, 1] likewise without the y terms
// src[0] = a, src[1] = b; op_params = int32 { s0, s1, p0, p1, d0, d1, is_2D }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_im2col(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D,
                                 enum ggml_type dst_type) {
    GGML_ASSERT(s0 > 0 && d0 > 0 && (!is_2D || (s1 > 0 && d1 > 0)) && "ggml_im2col: strides and dilations must be positive");
    if (is_2D) {
        GGML_ASSERT(a->ne[2] == b->ne[2] && "ggml_im2col: kernel and input channels differ");
    } else {
        GGML_ASSERT(b->ne[1] == a->ne[1] && "ggml_im2col: kernel and input channels differ");
        GGML_ASSERT(b->ne[3] == 1 && "ggml_im2col: a 1-D input is at most 3-D");
    }
    const int64_t OH = is_2D ? conv_out_size(b->ne[1], a->ne[1], s1, p1, d1) : 0;
    const int64_t OW = conv_out_size(b->ne[0], a->ne[0], s0, p0, d0);
    GGML_ASSERT((!is_2D || OH > 0) && "ggml_im2col: b too small compared to a");
    GGML_ASSERT(OW > 0 && "ggml_im2col: b too small compared to a");
    const int64_t ne[4] = {
        is_2D ? a->ne[2] * a->ne[1] * a->ne[0] : a->ne[1] * a->ne[0],
        OW,
        is_2D ? OH : b->ne[2],
        is_2D ? b->ne[3] : 1,
    };
    struct ggml_tensor * result = ggml_new_tensor(ctx, dst_type, 4, ne);
    const int32_t params[] = { s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_IM2COL;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// TIMESTEP_EMBEDDING: timesteps [N] (F32) -> [dim, N] F32; for j < dim/2,
// f = max_period^(-j / (dim/2)): row[j] = cos(t f), row[j + dim/2] = sin(t f);
// an odd dim leaves a last 0. op_params = int32 { dim, max_period }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_timestep_embedding(struct ggml_context * ctx, struct ggml_tensor * timesteps, int dim,
                                             int max_period) {
    GGML_ASSERT(dim > 0 && max_period > 0 && "ggml_timestep_embedding: dim and max_period must be positive");
    struct ggml_tensor * result = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, dim, timesteps->ne[0]);
    ggml_set_op_params_i32(result, 0, dim);
    ggml_set_op_params_i32(result, 1, max_period);
    result->op     = GGML_OP_TIMESTEP_EMBEDDING;
    result->src[0] = timesteps;
    return result;
}
