/*
 * cpu-ops-backward.c - CPU kernels of the backward ops (lib/ggml-ops-
 * backward.c): SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK, GET_ROWS_BACK,
 * REPEAT_BACK, IM2COL_BACK, POOL_2D_BACK. (ROPE_BACK is ROPE's kernel with
 * the angles negated, cpu-ops.c.) Sources are read through their strides,
 * F32 or F16; results are F32 (F16 where the op's type follows a source).
 * Sums in double. Each kernel writes only the part of dst its thread owns,
 * so no barrier is needed: rows for the row-wise ops, output rows (gathered
 * from every source row that maps to them) for GET_ROWS_BACK, REPEAT_BACK
 * and IM2COL_BACK, whole channel planes (scattered into) for POOL_2D_BACK.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"

static inline char * at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

static inline float get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = at(t, i0, i1, i2, i3);
    return t->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) p) : *(const float *) p;
}

static inline void set(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    char * p = at(t, i0, i1, i2, i3);
    if (t->type == GGML_TYPE_F16) {
        *(uint16_t *) p = gk_fp32_to_fp16(v);
    } else {
        *(float *) p = v;
    }
}

static inline void unravel(const struct ggml_tensor * t, int64_t ir, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i1 = ir % t->ne[1];
    *i2 = (ir / t->ne[1]) % t->ne[2];
    *i3 = ir / (t->ne[1] * t->ne[2]);
}

// SILU_BACK: dx = dy * s (1 + x (1 - s)), s = sigmoid(x)
static void op_silu_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * dy = dst->src[0];
    const struct ggml_tensor * x = dst->src[1];
    for (int64_t ir = params->ith; ir < ggml_nrows(dst); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(dst, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            const float xv = get(x, i0, i1, i2, i3);
            const float s = 1.0f / (1.0f + gk_expf(-xv));
            set(dst, i0, i1, i2, i3, get(dy, i0, i1, i2, i3) * s * (1.0f + xv * (1.0f - s)));
        }
    }
}

// RMS_NORM_BACK per row: r = 1 / sqrt(mean(x^2) + eps);
// dx = r dy - r^3 x sum(dy x) / n
static void op_rms_norm_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * dy = dst->src[0];
    const struct ggml_tensor * x = dst->src[1];
    const float eps = ggml_get_op_params_f32(dst, 0);
    const int64_t n = dst->ne[0];
    for (int64_t ir = params->ith; ir < ggml_nrows(dst); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(dst, ir, &i1, &i2, &i3);
        double sxx = 0.0, sxd = 0.0;
        for (int64_t i0 = 0; i0 < n; i0++) {
            const double xv = get(x, i0, i1, i2, i3);
            sxx += xv * xv;
            sxd += xv * get(dy, i0, i1, i2, i3);
        }
        const double ms = sxx / (double) n + eps;
        const double r = 1.0 / (double) gk_sqrtf((float) ms);
        const double k = r * r * r * sxd / (double) n;
        for (int64_t i0 = 0; i0 < n; i0++) {
            set(dst, i0, i1, i2, i3, (float) (r * get(dy, i0, i1, i2, i3) - k * get(x, i0, i1, i2, i3)));
        }
    }
}

// SOFT_MAX_BACK per row: dx = scale * y * (dy - sum(dy y))
static void op_soft_max_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * dy = dst->src[0];
    const struct ggml_tensor * y = dst->src[1];
    const float scale = ggml_get_op_params_f32(dst, 0);
    const int64_t n = dst->ne[0];
    for (int64_t ir = params->ith; ir < ggml_nrows(dst); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(dst, ir, &i1, &i2, &i3);
        double dot = 0.0;
        for (int64_t i0 = 0; i0 < n; i0++) {
            dot += (double) get(dy, i0, i1, i2, i3) * get(y, i0, i1, i2, i3);
        }
        // the dot rounded to float first: where dy is constant over a row
        // (the gradient of a sum) dy - dot is then exactly 0 when the row
        // of y sums to 1 in float, as the true gradient is. dst may be dy
        // itself (the in-place form): each value is read before it is written.
        const float dotf = (float) dot;
        for (int64_t i0 = 0; i0 < n; i0++) {
            const float v = scale * get(y, i0, i1, i2, i3) * (get(dy, i0, i1, i2, i3) - dotf);
            set(dst, i0, i1, i2, i3, v);
        }
    }
}

// GET_ROWS_BACK: dst row r = sum of the rows i of dy with idx[i] == r; each
// thread owns the dst rows r % nth == ith
static void op_get_rows_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * dy = dst->src[0];
    const struct ggml_tensor * idx = dst->src[1];
    const int64_t n = dst->ne[0], nr = dst->ne[1];
    for (int64_t r = params->ith; r < nr; r += params->nth) {
        for (int64_t i0 = 0; i0 < n; i0++) {
            set(dst, i0, r, 0, 0, 0.0f);
        }
    }
    for (int64_t i = 0; i < idx->ne[0]; i++) {
        const int32_t r = *(const int32_t *) at(idx, i, 0, 0, 0);
        GGML_ASSERT(r >= 0 && r < nr && "get_rows_back: row index out of range");
        if (r % params->nth != params->ith) {
            continue;
        }
        for (int64_t i0 = 0; i0 < n; i0++) {
            set(dst, i0, r, 0, 0, get(dst, i0, r, 0, 0) + get(dy, i0, i, 0, 0));
        }
    }
}

// REPEAT_BACK: dst[i] = sum of src[i + k * dst->ne] over every tile k
static void op_repeat_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * s = dst->src[0];
    int64_t nt[4];
    for (int d = 0; d < 4; d++) {
        nt[d] = s->ne[d] / dst->ne[d];
    }
    for (int64_t ir = params->ith; ir < ggml_nrows(dst); ir += params->nth) {
        int64_t i1, i2, i3;
        unravel(dst, ir, &i1, &i2, &i3);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            double sum = 0.0;
            for (int64_t k3 = 0; k3 < nt[3]; k3++) {
                for (int64_t k2 = 0; k2 < nt[2]; k2++) {
                    for (int64_t k1 = 0; k1 < nt[1]; k1++) {
                        for (int64_t k0 = 0; k0 < nt[0]; k0++) {
                            sum += get(s, i0 + k0 * dst->ne[0], i1 + k1 * dst->ne[1], i2 + k2 * dst->ne[2],
                                       i3 + k3 * dst->ne[3]);
                        }
                    }
                }
            }
            set(dst, i0, i1, i2, i3, (float) sum);
        }
    }
}

// IM2COL_BACK: dst = the im2col input's shape ([IW, IH, IC, N] 2-D, [IW,
// IC, N] 1-D), each element the sum of the patch elements that copied it:
// patch (ic*KH*KW + ky*KW + kx, ox, oy, n) copied (ox*s0 + kx*d0 - p0,
// oy*s1 + ky*d1 - p1, ic, n)
// The 3-D form (op_params[15] == 3, op_params[0..9] = IM2COL_3D's { s0, s1,
// s2, p0, p1, p2, d0, d1, d2, IC }): dst = [IW, IH, ID, IC * N (+ unread
// channels, 0)], patch element ((ic KD + kd) KH + kh) KW + kw of (ow, oh,
// n OD + od) copied (ow s0 + kw d0 - p0, oh s1 + kh d1 - p1, od s2 + kd d2
// - p2, n IC + ic)
static void op_im2col_3d_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * g = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    int32_t p[10];
    for (int i = 0; i < 10; i++) {
        p[i] = ggml_get_op_params_i32(dst, i);
    }
    const int64_t IC = p[9], KW = k->ne[0], KH = k->ne[1], KD = k->ne[2];
    const int64_t N = dst->ne[3] / IC;
    const int64_t OW = g->ne[1], OH = g->ne[2], OD = N > 0 ? g->ne[3] / N : 0;
    for (int64_t ir = params->ith; ir < ggml_nrows(dst); ir += params->nth) {
        int64_t iy, iz, c;
        unravel(dst, ir, &iy, &iz, &c);
        const int64_t n = c / IC, ic = c % IC;
        for (int64_t ix = 0; ix < dst->ne[0]; ix++) {
            double sum = 0.0;
            for (int64_t kd = 0; n < N && kd < KD; kd++) {
                const int64_t tz = iz + p[5] - kd * p[8];
                if (tz < 0 || tz % p[2] != 0 || tz / p[2] >= OD) {
                    continue;
                }
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ty = iy + p[4] - kh * p[7];
                    if (ty < 0 || ty % p[1] != 0 || ty / p[1] >= OH) {
                        continue;
                    }
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t tx = ix + p[3] - kw * p[6];
                        if (tx < 0 || tx % p[0] != 0 || tx / p[0] >= OW) {
                            continue;
                        }
                        const int64_t col = ((ic * KD + kd) * KH + kh) * KW + kw;
                        sum += get(g, col, tx / p[0], ty / p[1], n * OD + tz / p[2]);
                    }
                }
            }
            set(dst, ix, iy, iz, c, (float) sum);
        }
    }
}

static void op_im2col_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * g = dst->src[0];
    const struct ggml_tensor * k = dst->src[1];
    if (ggml_get_op_params_i32(dst, 15) == 3) {
        op_im2col_3d_back(params, dst);
        return;
    }
    const int s0 = ggml_get_op_params_i32(dst, 0), s1 = ggml_get_op_params_i32(dst, 1);
    const int p0 = ggml_get_op_params_i32(dst, 2), p1 = ggml_get_op_params_i32(dst, 3);
    const int d0 = ggml_get_op_params_i32(dst, 4), d1 = ggml_get_op_params_i32(dst, 5);
    const bool is_2d = ggml_get_op_params_i32(dst, 6) == 1;
    const int64_t KW = k->ne[0], KH = is_2d ? k->ne[1] : 1;
    const int64_t IW = dst->ne[0], IH = is_2d ? dst->ne[1] : 1;
    const int64_t IC = is_2d ? dst->ne[2] : dst->ne[1];
    const int64_t OW = g->ne[1], OH = is_2d ? g->ne[2] : 1;
    const int64_t nrows = IH * IC * (is_2d ? dst->ne[3] : dst->ne[2]);
    for (int64_t ir = params->ith; ir < nrows; ir += params->nth) {
        const int64_t iy = ir % IH, ic = (ir / IH) % IC, n = ir / (IH * IC);
        for (int64_t ix = 0; ix < IW; ix++) {
            double sum = 0.0;
            for (int64_t ky = 0; ky < KH; ky++) {
                const int64_t ty = iy + p1 - ky * d1;
                if (is_2d && (ty < 0 || ty % s1 != 0 || ty / s1 >= OH)) {
                    continue;
                }
                const int64_t oy = is_2d ? ty / s1 : 0;
                for (int64_t kx = 0; kx < KW; kx++) {
                    const int64_t tx = ix + p0 - kx * d0;
                    if (tx < 0 || tx % s0 != 0 || tx / s0 >= OW) {
                        continue;
                    }
                    const int64_t ox = tx / s0, col = (ic * KH + ky) * KW + kx;
                    sum += is_2d ? get(g, col, ox, oy, n) : get(g, col, ox, n, 0);
                }
            }
            if (is_2d) {
                set(dst, ix, iy, ic, n, (float) sum);
            } else {
                set(dst, ix, ic, n, 0, (float) sum);
            }
        }
    }
}

// POOL_2D_BACK: the gradient of each pooled value goes to the input it took
// (MAX: the first maximum of its window) or is shared by its window's
// inputs (AVG: / (k0 k1), or / the taps inside the input when op_params[7]
// is 1, the 1-D pool's rule). Each thread owns whole (i2, i3) planes.
static void op_pool_2d_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * g = dst->src[0];
    const struct ggml_tensor * x = dst->src[1];
    const enum ggml_op_pool op = (enum ggml_op_pool) ggml_get_op_params_i32(dst, 0);
    const int k0 = ggml_get_op_params_i32(dst, 1), k1 = ggml_get_op_params_i32(dst, 2);
    const int s0 = ggml_get_op_params_i32(dst, 3), s1 = ggml_get_op_params_i32(dst, 4);
    const int p0 = ggml_get_op_params_i32(dst, 5), p1 = ggml_get_op_params_i32(dst, 6);
    const bool count_inside = ggml_get_op_params_i32(dst, 7) == 1;
    const int64_t W = dst->ne[0], H = dst->ne[1];
    const int64_t nplanes = dst->ne[2] * dst->ne[3];
    for (int64_t pl = params->ith; pl < nplanes; pl += params->nth) {
        const int64_t i2 = pl % dst->ne[2], i3 = pl / dst->ne[2];
        for (int64_t iy = 0; iy < H; iy++) {
            for (int64_t ix = 0; ix < W; ix++) {
                set(dst, ix, iy, i2, i3, 0.0f);
            }
        }
        for (int64_t oy = 0; oy < g->ne[1]; oy++) {
            for (int64_t ox = 0; ox < g->ne[0]; ox++) {
                const float gv = get(g, ox, oy, i2, i3);
                const int64_t y0 = oy * s1 - p1, x0 = ox * s0 - p0;
                if (op == GGML_OP_POOL_MAX) {
                    float best = -3.40282347e38f;
                    int64_t bx = -1, by = -1;
                    for (int64_t ky = 0; ky < k1; ky++) {
                        for (int64_t kx = 0; kx < k0; kx++) {
                            const int64_t iy = y0 + ky, ix = x0 + kx;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
                                continue;
                            }
                            const float v = get(x, ix, iy, i2, i3);
                            if (bx < 0 || v > best) {
                                best = v;
                                bx = ix;
                                by = iy;
                            }
                        }
                    }
                    if (bx >= 0) {
                        set(dst, bx, by, i2, i3, get(dst, bx, by, i2, i3) + gv);
                    }
                    continue;
                }
                int count = 0;
                for (int64_t ky = 0; ky < k1; ky++) {
                    for (int64_t kx = 0; kx < k0; kx++) {
                        const int64_t iy = y0 + ky, ix = x0 + kx;
                        count += iy >= 0 && iy < H && ix >= 0 && ix < W;
                    }
                }
                const float share = count_inside ? (count > 0 ? gv / (float) count : 0.0f) : gv / (float) (k0 * k1);
                for (int64_t ky = 0; ky < k1; ky++) {
                    for (int64_t kx = 0; kx < k0; kx++) {
                        const int64_t iy = y0 + ky, ix = x0 + kx;
                        if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                            set(dst, ix, iy, i2, i3, get(dst, ix, iy, i2, i3) + share);
                        }
                    }
                }
            }
        }
    }
}

static bool f32_or_f16(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16;
}

bool ggml_cpu_backward_supports_op(const struct ggml_tensor * node) {
    const struct ggml_tensor * s0 = node->src[0];
    const struct ggml_tensor * s1 = node->src[1];
    switch (node->op) {
        case GGML_OP_SILU_BACK: case GGML_OP_RMS_NORM_BACK: case GGML_OP_SOFT_MAX_BACK:
            return f32_or_f16(node) && f32_or_f16(s0) && f32_or_f16(s1) && ggml_are_same_shape(s0, s1) &&
                   ggml_are_same_shape(node, s0);
        case GGML_OP_GET_ROWS_BACK:
            return node->type == GGML_TYPE_F32 && f32_or_f16(s0) && s1->type == GGML_TYPE_I32;
        case GGML_OP_REPEAT_BACK:
            return f32_or_f16(node) && f32_or_f16(s0) && ggml_can_repeat(node, s0);
        case GGML_OP_IM2COL_BACK:
            return node->type == GGML_TYPE_F32 && f32_or_f16(s0);
        case GGML_OP_POOL_2D_BACK:
            return node->type == GGML_TYPE_F32 && f32_or_f16(s0) && f32_or_f16(s1) &&
                   ggml_are_same_shape(node, s1);
        default:
            return false;
    }
}

void ggml_cpu_backward_forward(const struct ggml_compute_params * params, struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SILU_BACK:     op_silu_back(params, node); break;
        case GGML_OP_RMS_NORM_BACK: op_rms_norm_back(params, node); break;
        case GGML_OP_SOFT_MAX_BACK: op_soft_max_back(params, node); break;
        case GGML_OP_GET_ROWS_BACK: op_get_rows_back(params, node); break;
        case GGML_OP_REPEAT_BACK:   op_repeat_back(params, node); break;
        case GGML_OP_IM2COL_BACK:   op_im2col_back(params, node); break;
        case GGML_OP_POOL_2D_BACK:  op_pool_2d_back(params, node); break;
        default: GGML_ABORT("%s: op %s is not a backward op", __func__, ggml_op_desc(node));
    }
}
