/*
 * ggml-ops-conv.c - constructors of the convolution-family ops: IM2COL
 * (the patch matrix convolutions multiply), the convolutions built from it
 * and MUL_MAT (ggml_conv_1d/_2d and their depthwise forms, as upstream
 * builds them, so the results match), POOL_1D, POOL_2D and
 * TIMESTEP_EMBEDDING (the sinusoidal embedding of diffusion models).
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

// ---------------------------------------------------------------------------
// Convolutions: a = kernel, b = input. The patches are F16 (F32 for a BF16
// kernel), multiplied with the kernel's rows.
// ---------------------------------------------------------------------------

static enum ggml_type patch_type(const struct ggml_tensor * a) {
    return a->type == GGML_TYPE_BF16 ? GGML_TYPE_F32 : GGML_TYPE_F16;
}

// a [K, IC, OC], b [IW, IC, N] -> [OW, OC, N]
struct ggml_tensor * ggml_conv_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                  int s0, int p0, int d0) {
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, 0, p0, 0, d0, 0, false, patch_type(a)); // [IC*K, OW, N]
    struct ggml_tensor * result = ggml_mul_mat(ctx,
        ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[2] * cols->ne[1]),
        ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1], a->ne[2]));                  // [OW*N, OC]
    return ggml_reshape_3d(ctx, result, cols->ne[1], a->ne[2], cols->ne[2]);
}

// half padding: p0 = K / 2
struct ggml_tensor * ggml_conv_1d_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     int s, int d) {
    return ggml_conv_1d(ctx, a, b, s, (int) (a->ne[0] / 2), d);
}

// depthwise: a [K, 1, C], b [IW, C, N] -> [OW, C, 1] (N = 1)
struct ggml_tensor * ggml_conv_1d_dw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     int s0, int p0, int d0) {
    struct ggml_tensor * b4 = ggml_reshape_4d(ctx, b, b->ne[0], 1, b->ne[1], b->ne[2]);
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b4, s0, 0, p0, 0, d0, 0, false, patch_type(a));
    struct ggml_tensor * result = ggml_mul_mat(ctx, cols, a);
    return ggml_reshape_3d(ctx, result, result->ne[0], result->ne[2], 1);
}

struct ggml_tensor * ggml_conv_1d_dw_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        int s0, int d0) {
    return ggml_conv_1d_dw(ctx, a, b, s0, (int) (a->ne[0] / 2), d0);
}

// a [KW, KH, IC, OC], b [IW, IH, IC, N] -> [OW, OH, OC, N]
struct ggml_tensor * ggml_conv_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                  int s0, int s1, int p0, int p1, int d0, int d1) {
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, s1, p0, p1, d0, d1, true, patch_type(a)); // [IC*KH*KW, OW, OH, N]
    struct ggml_tensor * result = ggml_mul_mat(ctx,
        ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3] * cols->ne[2] * cols->ne[1]),
        ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1] * a->ne[2], a->ne[3]));      // [OW*OH*N, OC]
    result = ggml_reshape_4d(ctx, result, cols->ne[1], cols->ne[2], cols->ne[3], a->ne[3]); // [OW, OH, N, OC]
    return ggml_cont(ctx, ggml_permute(ctx, result, 0, 1, 3, 2));
}

// stride = kernel size, no padding
struct ggml_tensor * ggml_conv_2d_sk_p0(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ggml_conv_2d(ctx, a, b, (int) a->ne[0], (int) a->ne[1], 0, 0, 1, 1);
}

// stride 1, half padding
struct ggml_tensor * ggml_conv_2d_s1_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ggml_conv_2d(ctx, a, b, 1, 1, (int) (a->ne[0] / 2), (int) (a->ne[1] / 2), 1, 1);
}

// depthwise: a [KW, KH, 1, C], b [IW, IH, C, N] -> [OW, OH, C, N]
struct ggml_tensor * ggml_conv_2d_dw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     int s0, int s1, int p0, int p1, int d0, int d1) {
    struct ggml_tensor * a4 = ggml_reshape_4d(ctx, a, a->ne[0], a->ne[1], 1, a->ne[2] * a->ne[3]);
    struct ggml_tensor * cols = ggml_im2col(ctx, a4, ggml_reshape_4d(ctx, b, b->ne[0], b->ne[1], 1, b->ne[2] * b->ne[3]),
                                            s0, s1, p0, p1, d0, d1, true, patch_type(a));  // [KH*KW, OW, OH, N*C]
    struct ggml_tensor * cols4 = ggml_reshape_4d(ctx, cols, cols->ne[0], cols->ne[2] * cols->ne[1], b->ne[2], b->ne[3]);
    struct ggml_tensor * w = ggml_reshape_4d(ctx, a4, a4->ne[0] * a4->ne[1], a4->ne[2], a4->ne[3], 1); // [KH*KW, 1, C, 1]
    struct ggml_tensor * result = ggml_mul_mat(ctx, w, cols4);                                         // [1, OW*OH, C, N]
    return ggml_reshape_4d(ctx, result, cols->ne[1], cols->ne[2], b->ne[2], b->ne[3]);
}

// ---------------------------------------------------------------------------
// POOL_1D, POOL_2D: F32 results. Output length (in + 2 p - k) / s + 1.
// 1-D: op_params = int32 { op, k0, s0, p0 }; AVG divides by the taps inside
// the input. 2-D: op_params = int32 { op, k0, k1, s0, s1, p0, p1 } (the
// float paddings truncated); AVG divides by k0 * k1. MAX ignores padding.
// ---------------------------------------------------------------------------

// computed in float as upstream does (a fractional size truncates)
static int64_t pool_out_size(int64_t ins, int k, int s, float p) {
    return (int64_t) (((float) ins + 2.0f * p - (float) k) / (float) s + 1.0f);
}

struct ggml_tensor * ggml_pool_1d(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op, int k0,
                                  int s0, int p0) {
    GGML_ASSERT(k0 > 0 && s0 > 0 && (op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG) && "ggml_pool_1d: bad parameters");
    const int64_t ne[4] = { pool_out_size(a->ne[0], k0, s0, (float) p0), a->ne[1], a->ne[2], a->ne[3] };
    GGML_ASSERT(ne[0] > 0 && "ggml_pool_1d: input too small");
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { (int32_t) op, k0, s0, p0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_POOL_1D;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_pool_2d(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op, int k0,
                                  int k1, int s0, int s1, float p0, float p1) {
    GGML_ASSERT(k0 > 0 && k1 > 0 && s0 > 0 && s1 > 0 && (op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG) &&
                "ggml_pool_2d: bad parameters");
    const int64_t ne[4] = { pool_out_size(a->ne[0], k0, s0, p0), pool_out_size(a->ne[1], k1, s1, p1), a->ne[2], a->ne[3] };
    GGML_ASSERT(ne[0] > 0 && ne[1] > 0 && "ggml_pool_2d: input too small");
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { (int32_t) op, k0, k1, s0, s1, (int32_t) p0, (int32_t) p1 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_POOL_2D;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// Transposed convolutions (F32 results). 1-D: a [K, OC, IC], b [IL, IC] ->
// [(IL - 1) s0 + K, OC], out[il s0 + k, oc] += a[k, oc, ic] b[il, ic];
// op_params = int32 { s0, p0, d0 } (p0 = 0, d0 = 1 only, as upstream).
// 2-D: a [KW, KH, OC, IC], b [IW, IH, IC, N] -> [(IW - 1) s + KW,
// (IH - 1) s + KH, OC, N]; op_params = int32 { stride }. An F16 kernel
// multiplies the input rounded to F16.
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_conv_transpose_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            int s0, int p0, int d0) {
    GGML_ASSERT(ggml_is_matrix(b) && "ggml_conv_transpose_1d: b must be 2-D");
    GGML_ASSERT(a->ne[2] == b->ne[1] && a->ne[3] == 1 && "ggml_conv_transpose_1d: kernel and input channels differ");
    GGML_ASSERT(p0 == 0 && d0 == 1 && s0 > 0 && "ggml_conv_transpose_1d: only p0 = 0, d0 = 1");
    const int64_t ne[4] = { (b->ne[0] - 1) * s0 + a->ne[0], a->ne[1], b->ne[2], 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { s0, p0, d0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_CONV_TRANSPOSE_1D;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_conv_transpose_2d_p0(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                               int stride) {
    GGML_ASSERT(a->ne[3] == b->ne[2] && "ggml_conv_transpose_2d_p0: kernel and input channels differ");
    GGML_ASSERT(stride > 0 && "ggml_conv_transpose_2d_p0: stride must be positive");
    const int64_t ne[4] = { (b->ne[0] - 1) * stride + a->ne[0], (b->ne[1] - 1) * stride + a->ne[1], a->ne[2], b->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    ggml_set_op_params_i32(result, 0, stride);
    result->op     = GGML_OP_CONV_TRANSPOSE_2D;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// CONV_2D_DW (direct depthwise): a [KW, KH, 1, C], b [IW, IH, C, N] -> b's
// type [OW, OH, C, N], zero padding; a CWHN input (channels innermost in
// memory) gives a result laid out the same way.
// op_params = int32 { s0, s1, p0, p1, d0, d1 }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_conv_2d_dw_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            int stride0, int stride1, int pad0, int pad1, int dilation0,
                                            int dilation1) {
    GGML_ASSERT(a->ne[2] == 1 && a->ne[3] == b->ne[2] && "ggml_conv_2d_dw_direct: one kernel per channel");
    GGML_ASSERT(stride0 > 0 && stride1 > 0 && dilation0 > 0 && dilation1 > 0 && "ggml_conv_2d_dw_direct: bad parameters");
    const int64_t ne[4] = { conv_out_size(b->ne[0], a->ne[0], stride0, pad0, dilation0),
                            conv_out_size(b->ne[1], a->ne[1], stride1, pad1, dilation1), b->ne[2], b->ne[3] };
    GGML_ASSERT(ne[0] > 0 && ne[1] > 0 && "ggml_conv_2d_dw_direct: input too small");
    struct ggml_tensor * result = ggml_new_tensor(ctx, b->type, 4, ne);
    if (ggml_is_contiguous_channels(b)) {
        const size_t ts = ggml_type_size(result->type);
        GGML_ASSERT(ggml_blck_size(result->type) == 1);
        result->nb[0] = (size_t) result->ne[2] * ts;
        result->nb[1] = (size_t) result->ne[0] * result->nb[0];
        result->nb[2] = ts;
    }
    const int32_t params[] = { stride0, stride1, pad0, pad1, dilation0, dilation1 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_CONV_2D_DW;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// UPSCALE (interpolation to a new size, F32): op_params = int32 { mode |
// flags }. NEAREST: the source element at i * in / out (all dims);
// BILINEAR (dims 0-1; ALIGN_CORNERS maps corner to corner, ANTIALIAS
// averages with a triangle filter when shrinking); BICUBIC (dims 0-1,
// a = -0.75, edges clamped). Dims 2-3 take the nearest source index.
// ---------------------------------------------------------------------------

static struct ggml_tensor * interpolate_impl(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                             int64_t ne2, int64_t ne3, uint32_t mode) {
    GGML_ASSERT((mode & 0xFF) < GGML_SCALE_MODE_COUNT && "ggml_interpolate: unknown mode");
    GGML_ASSERT((!(mode & GGML_SCALE_FLAG_ANTIALIAS) || (mode & 0xFF) == GGML_SCALE_MODE_BILINEAR) &&
                "ggml_interpolate: antialiasing is for bilinear only");
    GGML_ASSERT(a->type == GGML_TYPE_F32 && "ggml_interpolate: F32 only");
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type, ne0, ne1, ne2, ne3);
    ggml_set_op_params_i32(result, 0, (int32_t) mode);
    result->op     = GGML_OP_UPSCALE;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_upscale(struct ggml_context * ctx, struct ggml_tensor * a, int scale_factor,
                                  enum ggml_scale_mode mode) {
    GGML_ASSERT(scale_factor > 1 && "ggml_upscale: the factor must be above 1");
    return interpolate_impl(ctx, a, a->ne[0] * scale_factor, a->ne[1] * scale_factor, a->ne[2], a->ne[3], mode);
}

struct ggml_tensor * ggml_upscale_ext(struct ggml_context * ctx, struct ggml_tensor * a, int ne0, int ne1, int ne2,
                                      int ne3, enum ggml_scale_mode mode) {
    return interpolate_impl(ctx, a, ne0, ne1, ne2, ne3, mode);
}

struct ggml_tensor * ggml_interpolate(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                      int64_t ne2, int64_t ne3, uint32_t mode) {
    return interpolate_impl(ctx, a, ne0, ne1, ne2, ne3, mode);
}

// ---------------------------------------------------------------------------
// CONV_2D (direct): a [KW, KH, IC, OC], b [IW, IH, IC, N] -> b's type
// [OW, OH, OC, N], zero padding; an F16 kernel multiplies the input rounded
// to F16. op_params = int32 { s0, s1, p0, p1, d0, d1 }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_conv_2d_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         int s0, int s1, int p0, int p1, int d0, int d1) {
    GGML_ASSERT(a->ne[2] == b->ne[2] && "ggml_conv_2d_direct: kernel and input channels differ");
    GGML_ASSERT(s0 > 0 && s1 > 0 && d0 > 0 && d1 > 0 && "ggml_conv_2d_direct: bad parameters");
    const int64_t ne[4] = { conv_out_size(b->ne[0], a->ne[0], s0, p0, d0), conv_out_size(b->ne[1], a->ne[1], s1, p1, d1),
                            a->ne[3], b->ne[3] };
    GGML_ASSERT(ne[0] > 0 && ne[1] > 0 && "ggml_conv_2d_direct: input too small");
    struct ggml_tensor * result = ggml_new_tensor(ctx, b->type, 4, ne);
    const int32_t params[] = { s0, s1, p0, p1, d0, d1 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_CONV_2D;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// ---------------------------------------------------------------------------
// COL2IM_1D: overlap-add of columns a [K * OC, T_in] (column t: K taps of
// each output channel) at stride s0, cropped by p0 on both sides -> a's type
// [(T_in - 1) s0 + K - 2 p0, OC]: out[t, oc] = sum over t_in s0 + k = t + p0
// of a[oc K + k, t_in]. op_params = int32 { s0, oc, p0 }
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_col2im_1d(struct ggml_context * ctx, struct ggml_tensor * a, int s0, int oc, int p0) {
    GGML_ASSERT(ggml_is_matrix(a) && ggml_is_contiguous(a) && "ggml_col2im_1d: a contiguous matrix");
    GGML_ASSERT((a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16) &&
                "ggml_col2im_1d: F32, F16 or BF16");
    GGML_ASSERT(s0 > 0 && oc > 0 && p0 >= 0 && "ggml_col2im_1d: bad parameters");
    const int64_t K = a->ne[0] / oc;
    const int64_t T_out = (a->ne[1] - 1) * s0 + K - 2 * (int64_t) p0;
    GGML_ASSERT(K * oc == a->ne[0] && K > 0 && T_out > 0 && "ggml_col2im_1d: a->ne[0] must be K * oc");
    const int64_t ne[4] = { T_out, oc, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, 2, ne);
    const int32_t params[] = { s0, oc, p0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_COL2IM_1D;
    result->src[0] = a;
    return result;
}

// ---------------------------------------------------------------------------
// 3-D convolutions. IM2COL_3D: a = kernel [KW, KH, KD, IC * OC] (its shape
// only), b = input [IW, IH, ID, IC * N] (dim 3 = n * IC + ic) -> dst_type
// [IC * KD * KH * KW, OW, OH, OD * N], element ((ic KD + kd) KH + kh) KW + kw
// of patch (ow, oh, n OD + od), zero outside b.
// op_params = int32 { s0, s1, s2, p0, p1, p2, d0, d1, d2, IC }.
// ggml_conv_3d: IM2COL_3D then MUL_MAT, as upstream builds it -> [OW, OH,
// OD, OC * N] (dim 3 = n * OC + oc).
// CONV_3D (direct): the same result computed directly (an F16 kernel
// rounding the input to F16); op_params = int32 { s0, s1, s2, p0, p1, p2,
// d0, d1, d2, c, n, oc }.
// ---------------------------------------------------------------------------

struct ggml_tensor * ggml_im2col_3d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
                                    int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2,
                                    enum ggml_type dst_type) {
    // N = b->ne[3] / IC samples (a remainder of channels is not read, as upstream)
    GGML_ASSERT(IC > 0 && "ggml_im2col_3d: IC must be positive");
    GGML_ASSERT(s0 > 0 && s1 > 0 && s2 > 0 && d0 > 0 && d1 > 0 && d2 > 0 && "ggml_im2col_3d: bad parameters");
    const int64_t N = b->ne[3] / IC;
    const int64_t OD = conv_out_size(b->ne[2], a->ne[2], s2, p2, d2);
    const int64_t OH = conv_out_size(b->ne[1], a->ne[1], s1, p1, d1);
    const int64_t OW = conv_out_size(b->ne[0], a->ne[0], s0, p0, d0);
    GGML_ASSERT(OD > 0 && OH > 0 && OW > 0 && "ggml_im2col_3d: b too small compared to a");
    const int64_t ne[4] = { a->ne[0] * a->ne[1] * a->ne[2] * IC, OW, OH, OD * N };
    struct ggml_tensor * result = ggml_new_tensor(ctx, dst_type, 4, ne);
    const int32_t params[] = { s0, s1, s2, p0, p1, p2, d0, d1, d2, (int32_t) IC };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_IM2COL_3D;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_conv_3d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
                                  int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2) {
    struct ggml_tensor * cols = ggml_im2col_3d(ctx, a, b, IC, s0, s1, s2, p0, p1, p2, d0, d1, d2, patch_type(a));
    const int64_t OC = a->ne[3] / IC, N = b->ne[3] / IC, OD = cols->ne[3] / N;
    struct ggml_tensor * result = ggml_mul_mat(ctx,
        ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3] * cols->ne[2] * cols->ne[1]),
        ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1] * a->ne[2] * IC, OC));          // [OW*OH*OD*N, OC]
    result = ggml_reshape_4d(ctx, result, cols->ne[1] * cols->ne[2], OD, N, OC);
    result = ggml_cont(ctx, ggml_permute(ctx, result, 0, 1, 3, 2));                  // [OW*OH, OD, OC, N]
    return ggml_reshape_4d(ctx, result, cols->ne[1], cols->ne[2], OD, OC * N);
}

struct ggml_tensor * ggml_conv_3d_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2,
                                         int c, int n, int oc) {
    GGML_ASSERT(c > 0 && n > 0 && oc > 0 && a->ne[3] == (int64_t) c * oc && b->ne[3] == (int64_t) c * n &&
                "ggml_conv_3d_direct: dim 3 of a must be c * oc, of b c * n");
    GGML_ASSERT(s0 > 0 && s1 > 0 && s2 > 0 && d0 > 0 && d1 > 0 && d2 > 0 && "ggml_conv_3d_direct: bad parameters");
    const int64_t ne[4] = { conv_out_size(b->ne[0], a->ne[0], s0, p0, d0), conv_out_size(b->ne[1], a->ne[1], s1, p1, d1),
                            conv_out_size(b->ne[2], a->ne[2], s2, p2, d2), (int64_t) oc * n };
    GGML_ASSERT(ne[0] > 0 && ne[1] > 0 && ne[2] > 0 && "ggml_conv_3d_direct: input too small");
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const int32_t params[] = { s0, s1, s2, p0, p1, p2, d0, d1, d2, c, n, oc };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_CONV_3D;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}
