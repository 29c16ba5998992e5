/*
 * cpu-ops-conv.c - CPU kernels of the convolution-family ops: IM2COL,
 * CONV_TRANSPOSE_1D/2D, CONV_2D, CONV_2D_DW, POOL_1D, POOL_2D, UPSCALE and
 * TIMESTEP_EMBEDDING, COL2IM_1D, IM2COL_3D, CONV_3D. The input is read through its strides (any view);
 * IM2COL writes F32 or F16 patches, threads split the patches (rows of dst).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-math.h"
#include "kernels/gk-vec.h"

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

// Transposed convolutions: each thread owns whole output channels (its
// slices of dst are zeroed and accumulated by it alone).
static void op_conv_transpose(const struct ggml_compute_params * params, struct ggml_tensor * dst, bool two_d) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int s = ggml_get_op_params_i32(dst, 0);
    const bool k16 = k->type == GGML_TYPE_F16;
    const int64_t KW = k->ne[0], KH = two_d ? k->ne[1] : 1;
    const int64_t OC = two_d ? k->ne[2] : k->ne[1], IC = two_d ? k->ne[3] : k->ne[2];
    const int64_t IW = b->ne[0], IH = two_d ? b->ne[1] : 1, N = two_d ? b->ne[3] : 1;
    for (int64_t w = params->ith; w < OC * N; w += params->nth) {
        const int64_t oc = w % OC, n = w / OC;
        for (int64_t oy = 0; oy < (two_d ? dst->ne[1] : 1); oy++) {
            for (int64_t ox = 0; ox < dst->ne[0]; ox++) {
                *(float *) ((char *) dst->data + ox * dst->nb[0] + (two_d ? oy * dst->nb[1] + oc * dst->nb[2] + n * dst->nb[3]
                                                                         : oc * dst->nb[1])) = 0.0f;
            }
        }
        for (int64_t iy = 0; iy < IH; iy++) {
            for (int64_t ix = 0; ix < IW; ix++) {
                for (int64_t ic = 0; ic < IC; ic++) {
                    float x = two_d ? elem_f(b, ix, iy, ic, n) : elem_f(b, ix, ic, 0, 0);
                    if (k16) {
                        x = gk_fp16_to_fp32(gk_fp32_to_fp16(x)); // the F16 kernel's precision
                    }
                    for (int64_t ky = 0; ky < KH; ky++) {
                        for (int64_t kx = 0; kx < KW; kx++) {
                            const float wv = two_d ? elem_f(k, kx, ky, oc, ic) : elem_f(k, kx, oc, ic, 0);
                            const int64_t ox = ix * s + kx, oy = iy * s + ky;
                            float * d = (float *) ((char *) dst->data + ox * dst->nb[0] +
                                                   (two_d ? oy * dst->nb[1] + oc * dst->nb[2] + n * dst->nb[3]
                                                          : oc * dst->nb[1]));
                            *d += wv * x;
                        }
                    }
                }
            }
        }
    }
}

// CONV_2D (direct), scalar reference: one output row (oy, oc, n) per step
static void op_conv_2d_ref(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int s0 = ggml_get_op_params_i32(dst, 0), s1 = ggml_get_op_params_i32(dst, 1);
    const int p0 = ggml_get_op_params_i32(dst, 2), p1 = ggml_get_op_params_i32(dst, 3);
    const int d0 = ggml_get_op_params_i32(dst, 4), d1 = ggml_get_op_params_i32(dst, 5);
    const bool k16 = k->type == GGML_TYPE_F16;
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t oy = ir % dst->ne[1], oc = (ir / dst->ne[1]) % dst->ne[2], n = ir / (dst->ne[1] * dst->ne[2]);
        for (int64_t ox = 0; ox < dst->ne[0]; ox++) {
            float sum = 0.0f;
            for (int64_t ic = 0; ic < k->ne[2]; ic++) {
                for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                    const int64_t iy = oy * s1 + ky * d1 - p1;
                    if (iy < 0 || iy >= b->ne[1]) {
                        continue;
                    }
                    for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                        const int64_t ix = ox * s0 + kx * d0 - p0;
                        if (ix < 0 || ix >= b->ne[0]) {
                            continue;
                        }
                        float x = elem_f(b, ix, iy, ic, n);
                        if (k16) {
                            x = gk_fp16_to_fp32(gk_fp32_to_fp16(x));
                        }
                        sum += elem_f(k, kx, ky, ic, oc) * x;
                    }
                }
            }
            char * p = (char *) dst->data + ox * dst->nb[0] + oy * dst->nb[1] + oc * dst->nb[2] + n * dst->nb[3];
            if (dst->type == GGML_TYPE_F32) {
                *(float *) p = sum;
            } else {
                *(uint16_t *) p = gk_fp32_to_fp16(sum);
            }
        }
    }
}

// CONV_2D, fast path: a tile of CONV_TP output pixels of one image at a
// time. Its patches are gathered (im2col) into B [CONV_TP x CONV_TK], one
// slice of the K = IC*KH*KW patch elements at a time (rounded to F16 as the
// reference rounds them for an F16 kernel), and multiplied with the
// matching slice of the kernel, A [OC x CONV_TK] (in place for a contiguous
// F32 kernel, else converted CONV_TOC rows at a time), by the F32 GEMM into
// C [OC x CONV_TP], which goes to dst at the end of the tile. Threads take
// tiles in turn. The sums run in another order than the reference's (and
// with FMAs), so results differ in the last bits.
#define CONV_TP  48  // pixels per tile (a multiple of the GEMM's 3 columns)
#define CONV_TK  256 // patch elements per slice
#define CONV_TOC 32  // kernel rows converted at a time

size_t ggml_cpu_conv_work_per_thread(const struct ggml_tensor * node) {
    if (node->op != GGML_OP_CONV_2D) {
        return 0;
    }
    const int64_t oc = node->src[0]->ne[3];
    return ((size_t) CONV_TP * CONV_TK + (size_t) CONV_TOC * CONV_TK + (size_t) oc * CONV_TP) * sizeof(float) +
           CONV_TK * sizeof(uint16_t);
}

static void conv_gemm(int m, int n, int k, const float * a, int64_t lda, const float * b, int64_t ldb, float * c,
                      int64_t ldc) {
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86()) {
        gk_gemm_nt_f32_avx2(m, n, k, a, lda, b, ldb, c, ldc);
        return;
    }
#elif defined(__aarch64__)
    if (ggml_cpu_isa()->neon) {
        gk_gemm_nt_f32_neon(m, n, k, a, lda, b, ldb, c, ldc);
        return;
    }
#endif
    gk_gemm_nt_f32(m, n, k, a, lda, b, ldb, c, ldc);
}

static void op_conv_2d_fast(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int s0 = ggml_get_op_params_i32(dst, 0), s1 = ggml_get_op_params_i32(dst, 1);
    const int p0 = ggml_get_op_params_i32(dst, 2), p1 = ggml_get_op_params_i32(dst, 3);
    const int d0 = ggml_get_op_params_i32(dst, 4), d1 = ggml_get_op_params_i32(dst, 5);
    const int64_t KW = k->ne[0], KH = k->ne[1], IC = k->ne[2], OC = k->ne[3];
    const int64_t IW = b->ne[0], IH = b->ne[1];
    const int64_t OW = dst->ne[0], OH = dst->ne[1], N = dst->ne[3];
    const int64_t K = IC * KH * KW, npix = OW * OH;
    const int64_t tiles_per_image = (npix + CONV_TP - 1) / CONV_TP;
    const size_t kts = ggml_type_size(k->type);
    // the kernel's rows (one per oc) are K dense elements
    const bool k_rows = k->nb[0] == kts && k->nb[1] == (size_t) KW * kts && k->nb[2] == (size_t) KH * k->nb[1];
    const bool k_inplace = k_rows && k->type == GGML_TYPE_F32;
    const bool round16 = k->type == GGML_TYPE_F16;
    const bool b_f32 = b->type == GGML_TYPE_F32 && b->nb[0] == sizeof(float);

    float * B = ggml_cpu_thread_scratch(params, dst);
    float * A = B + (size_t) CONV_TP * CONV_TK;
    float * C = A + (size_t) CONV_TOC * CONV_TK;
    uint16_t * h = (uint16_t *) (C + (size_t) OC * CONV_TP);

    for (int64_t t = params->ith; t < N * tiles_per_image; t += params->nth) {
        const int64_t n = t / tiles_per_image, pix0 = (t % tiles_per_image) * CONV_TP;
        const int np = (int) (npix - pix0 < CONV_TP ? npix - pix0 : CONV_TP);
        memset(C, 0, (size_t) OC * CONV_TP * sizeof(float));
        for (int64_t k0 = 0; k0 < K; k0 += CONV_TK) {
            const int kb = (int) (K - k0 < CONV_TK ? K - k0 : CONV_TK);
            // B: patch elements [k0, k0 + kb) of each pixel of the tile
            for (int p = 0; p < np; p++) {
                const int64_t oy = (pix0 + p) / OW, ox = (pix0 + p) % OW;
                float * row = B + (size_t) p * CONV_TK;
                int64_t kx = k0 % KW, ky = (k0 / KW) % KH, ic = k0 / (KW * KH);
                for (int kk = 0; kk < kb; kk++) {
                    const int64_t ix = ox * s0 + kx * d0 - p0, iy = oy * s1 + ky * d1 - p1;
                    float v = 0.0f;
                    if (ix >= 0 && ix < IW && iy >= 0 && iy < IH) {
                        v = b_f32 ? *(const float *) ((const char *) b->data + ix * sizeof(float) + iy * b->nb[1] +
                                                      ic * b->nb[2] + n * b->nb[3])
                                  : elem_f(b, ix, iy, ic, n);
                    }
                    row[kk] = v;
                    if (++kx == KW) {
                        kx = 0;
                        if (++ky == KH) {
                            ky = 0;
                            ic++;
                        }
                    }
                }
                if (round16) {
                    ggml_cpu_row_from_f32(GGML_TYPE_F16, row, h, kb, false);
                    ggml_cpu_row_to_f32(GGML_TYPE_F16, h, row, kb, false);
                }
            }
            // C += A B^T, A the kernel's slice
            for (int64_t oc0 = 0; oc0 < OC; oc0 += CONV_TOC) {
                const int ocb = (int) (OC - oc0 < CONV_TOC ? OC - oc0 : CONV_TOC);
                const float * a;
                int64_t lda;
                if (k_inplace) {
                    a = (const float *) ((const char *) k->data + oc0 * k->nb[3]) + k0;
                    lda = (int64_t) (k->nb[3] / sizeof(float));
                } else {
                    for (int i = 0; i < ocb; i++) {
                        float * ar = A + (size_t) i * CONV_TK;
                        if (k_rows) {
                            ggml_cpu_row_to_f32(k->type, (const char *) k->data + (oc0 + i) * k->nb[3] + k0 * kts, ar,
                                                kb, false);
                        } else {
                            for (int kk = 0; kk < kb; kk++) {
                                const int64_t e = k0 + kk;
                                ar[kk] = elem_f(k, e % KW, (e / KW) % KH, e / (KW * KH), oc0 + i);
                            }
                        }
                    }
                    a = A;
                    lda = CONV_TK;
                }
                conv_gemm(ocb, np, kb, a, lda, B, CONV_TK, C + oc0 * CONV_TP, CONV_TP);
            }
        }
        for (int64_t oc = 0; oc < OC; oc++) {
            const float * c = C + oc * CONV_TP;
            for (int p = 0; p < np; p++) {
                const int64_t oy = (pix0 + p) / OW, ox = (pix0 + p) % OW;
                char * q = (char *) dst->data + ox * dst->nb[0] + oy * dst->nb[1] + oc * dst->nb[2] + n * dst->nb[3];
                if (dst->type == GGML_TYPE_F32) {
                    *(float *) q = c[p];
                } else {
                    *(uint16_t *) q = gk_fp32_to_fp16(c[p]);
                }
            }
        }
    }
}

static void op_conv_2d(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    if (params->ref) {
        op_conv_2d_ref(params, dst);
    } else {
        op_conv_2d_fast(params, dst);
    }
}

// CONV_2D_DW: one output row (oy, c, n) per step, through dst's strides
static void op_conv_2d_dw(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int s0 = ggml_get_op_params_i32(dst, 0), s1 = ggml_get_op_params_i32(dst, 1);
    const int p0 = ggml_get_op_params_i32(dst, 2), p1 = ggml_get_op_params_i32(dst, 3);
    const int d0 = ggml_get_op_params_i32(dst, 4), d1 = ggml_get_op_params_i32(dst, 5);
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t oy = ir % dst->ne[1], c = (ir / dst->ne[1]) % dst->ne[2], n = ir / (dst->ne[1] * dst->ne[2]);
        for (int64_t ox = 0; ox < dst->ne[0]; ox++) {
            float sum = 0.0f;
            for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                const int64_t iy = oy * s1 + ky * d1 - p1;
                if (iy < 0 || iy >= b->ne[1]) {
                    continue;
                }
                for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                    const int64_t ix = ox * s0 + kx * d0 - p0;
                    if (ix >= 0 && ix < b->ne[0]) {
                        sum += elem_f(k, kx, ky, 0, c) * elem_f(b, ix, iy, c, n);
                    }
                }
            }
            char * p = (char *) dst->data + ox * dst->nb[0] + oy * dst->nb[1] + c * dst->nb[2] + n * dst->nb[3];
            if (dst->type == GGML_TYPE_F32) {
                *(float *) p = sum;
            } else {
                *(uint16_t *) p = gk_fp32_to_fp16(sum);
            }
        }
    }
}

static inline int64_t clamp_i(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static inline float floor_f(float x) {
    const float t = (float) (int64_t) x;
    return t > x ? t - 1.0f : t;
}

static inline float cubic_w1(float x) { return (1.25f * x - 2.25f) * x * x + 1.0f; }              // |x| <= 1, a = -0.75
static inline float cubic_w2(float x) { return ((-0.75f * x + 3.75f) * x - 6.0f) * x + 3.0f; }    // 1 < |x| < 2

static inline float cubic(float p0, float p1, float p2, float p3, float t) {
    return p0 * cubic_w2(t + 1.0f) + p1 * cubic_w1(t) + p2 * cubic_w1(1.0f - t) + p3 * cubic_w2(2.0f - t);
}

// UPSCALE: see lib/ggml-ops-conv.c; rows of dst split over the threads
static void op_upscale(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int32_t flags = ggml_get_op_params_i32(dst, 0);
    const int mode = flags & 0xFF;
    const int64_t n00 = a->ne[0], n01 = a->ne[1];
    float sf0 = (float) dst->ne[0] / (float) n00, sf1 = (float) dst->ne[1] / (float) n01;
    const float sf2 = (float) dst->ne[2] / (float) a->ne[2], sf3 = (float) dst->ne[3] / (float) a->ne[3];
    float off = 0.5f;
    if (flags & GGML_SCALE_FLAG_ALIGN_CORNERS) {
        off = 0.0f;
        sf0 = dst->ne[0] > 1 && n00 > 1 ? (float) (dst->ne[0] - 1) / (float) (n00 - 1) : sf0;
        sf1 = dst->ne[1] > 1 && n01 > 1 ? (float) (dst->ne[1] - 1) / (float) (n01 - 1) : sf1;
    }
    const int64_t nr = ggml_nrows(dst);
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t i1 = ir % dst->ne[1], i2 = (ir / dst->ne[1]) % dst->ne[2], i3 = ir / (dst->ne[1] * dst->ne[2]);
        const int64_t j2 = (int64_t) ((float) i2 / sf2), j3 = (int64_t) ((float) i3 / sf3);
        float * out = (float *) ((char *) dst->data + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            float v;
            if (mode == GGML_SCALE_MODE_NEAREST) {
                v = elem_f(a, (int64_t) ((float) i0 / sf0), (int64_t) ((float) i1 / sf1), j2, j3);
            } else if (mode == GGML_SCALE_MODE_BILINEAR && (flags & GGML_SCALE_FLAG_ANTIALIAS)) {
                // triangle filter over the source pixels the output pixel covers
                const float sup0 = 1.0f / sf0 > 1.0f ? 1.0f / sf0 : 1.0f, sup1 = 1.0f / sf1 > 1.0f ? 1.0f / sf1 : 1.0f;
                const float x = ((float) i0 + off) / sf0, y = ((float) i1 + off) / sf1;
                const int64_t x0 = clamp_i((int64_t) (x - sup0 + off), 0, n00), x1 = clamp_i((int64_t) (x + sup0 + off), 0, n00);
                const int64_t y0 = clamp_i((int64_t) (y - sup1 + off), 0, n01), y1 = clamp_i((int64_t) (y + sup1 + off), 0, n01);
                float acc = 0.0f, wsum = 0.0f;
                for (int64_t sy = y0; sy < y1; sy++) {
                    const float wy = 1.0f - gk_fabsf(((float) sy - y + off) / sup1);
                    for (int64_t sx = x0; sx < x1; sx++) {
                        const float wx = 1.0f - gk_fabsf(((float) sx - x + off) / sup0);
                        const float w = (wx > 0.0f ? wx : 0.0f) * (wy > 0.0f ? wy : 0.0f);
                        if (w > 0.0f) {
                            acc += elem_f(a, sx, sy, j2, j3) * w;
                            wsum += w;
                        }
                    }
                }
                v = wsum > 0.0f ? acc / wsum : acc;
            } else if (mode == GGML_SCALE_MODE_BILINEAR) {
                const float x = ((float) i0 + off) / sf0 - off, y = ((float) i1 + off) / sf1 - off;
                const int64_t fx = (int64_t) floor_f(x), fy = (int64_t) floor_f(y);
                const int64_t x0 = clamp_i(fx, 0, n00 - 1), x1 = clamp_i(fx + 1, 0, n00 - 1);
                const int64_t y0 = clamp_i(fy, 0, n01 - 1), y1 = clamp_i(fy + 1, 0, n01 - 1);
                const float dx = gk_minf(1.0f, gk_maxf(0.0f, x - (float) x0));
                const float dy = gk_minf(1.0f, gk_maxf(0.0f, y - (float) y0));
                v = elem_f(a, x0, y0, j2, j3) * (1 - dx) * (1 - dy) + elem_f(a, x1, y0, j2, j3) * dx * (1 - dy) +
                    elem_f(a, x0, y1, j2, j3) * (1 - dx) * dy + elem_f(a, x1, y1, j2, j3) * dx * dy;
            } else {
                const float x = ((float) i0 + off) / sf0 - off, y = ((float) i1 + off) / sf1 - off;
                const int64_t fx = (int64_t) floor_f(x), fy = (int64_t) floor_f(y);
                const float dx = x - (float) fx, dy = y - (float) fy;
                float rows[4];
                for (int r = 0; r < 4; r++) {
                    const int64_t sy = clamp_i(fy - 1 + r, 0, n01 - 1);
                    rows[r] = cubic(elem_f(a, clamp_i(fx - 1, 0, n00 - 1), sy, j2, j3), elem_f(a, clamp_i(fx, 0, n00 - 1), sy, j2, j3),
                                    elem_f(a, clamp_i(fx + 1, 0, n00 - 1), sy, j2, j3), elem_f(a, clamp_i(fx + 2, 0, n00 - 1), sy, j2, j3), dx);
                }
                v = cubic(rows[0], rows[1], rows[2], rows[3], dy);
            }
            out[i0 * (int64_t) (dst->nb[0] / sizeof(float))] = v;
        }
    }
}

// COL2IM_1D: output elements (t, oc) split over the threads
static void op_col2im_1d(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t s0 = ggml_get_op_params_i32(dst, 0), OC = ggml_get_op_params_i32(dst, 1);
    const int64_t p0 = ggml_get_op_params_i32(dst, 2);
    const int64_t K = a->ne[0] / OC, T_in = a->ne[1], T_out = dst->ne[0];
    for (int64_t w = params->ith; w < T_out * OC; w += params->nth) {
        const int64_t t = w % T_out, oc = w / T_out, ta = t + p0;
        float sum = 0.0f;
        for (int64_t ti = 0; ti < T_in; ti++) {
            const int64_t k = ta - ti * s0;
            if (k >= 0 && k < K) {
                sum += elem_f(a, oc * K + k, ti, 0, 0);
            }
        }
        char * p = (char *) dst->data + t * dst->nb[0] + oc * dst->nb[1];
        switch (dst->type) {
            case GGML_TYPE_F32: *(float *) p = sum; break;
            case GGML_TYPE_F16: *(uint16_t *) p = gk_fp32_to_fp16(sum); break;
            default:            *(uint16_t *) p = gk_fp32_to_bf16(sum); break;
        }
    }
}

// IM2COL_3D: one patch (row of dst) per step
static void op_im2col_3d(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    int32_t p[10];
    for (int i = 0; i < 10; i++) {
        p[i] = ggml_get_op_params_i32(dst, i);
    }
    const int64_t IC = p[9], KW = k->ne[0], KH = k->ne[1], KD = k->ne[2];
    const int64_t OD = dst->ne[3] / (b->ne[3] / IC);
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t ow = ir % dst->ne[1], oh = (ir / dst->ne[1]) % dst->ne[2], r3 = ir / (dst->ne[1] * dst->ne[2]);
        const int64_t n = r3 / OD, od = r3 % OD;
        char * row = (char *) dst->data + ow * dst->nb[1] + oh * dst->nb[2] + r3 * dst->nb[3];
        for (int64_t ic = 0; ic < IC; ic++) {
            for (int64_t kd = 0; kd < KD; kd++) {
                const int64_t iz = od * p[2] + kd * p[8] - p[5];
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t iy = oh * p[1] + kh * p[7] - p[4];
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t ix = ow * p[0] + kw * p[6] - p[3];
                        float v = 0.0f;
                        if (ix >= 0 && ix < b->ne[0] && iy >= 0 && iy < b->ne[1] && iz >= 0 && iz < b->ne[2]) {
                            v = elem_f(b, ix, iy, iz, n * IC + ic);
                        }
                        const int64_t i0 = ((ic * KD + kd) * KH + kh) * KW + kw;
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
}

// CONV_3D (direct): one output row (oy, oz, n * OC + oc) per step
static void op_conv_3d(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * k = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    int32_t p[12];
    for (int i = 0; i < 12; i++) {
        p[i] = ggml_get_op_params_i32(dst, i);
    }
    const int64_t C = p[9], OC = p[11];
    const bool k16 = k->type == GGML_TYPE_F16;
    const int64_t nr = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t ir = params->ith; ir < nr; ir += params->nth) {
        const int64_t oy = ir % dst->ne[1], oz = (ir / dst->ne[1]) % dst->ne[2], r3 = ir / (dst->ne[1] * dst->ne[2]);
        const int64_t n = r3 / OC, oc = r3 % OC;
        for (int64_t ox = 0; ox < dst->ne[0]; ox++) {
            float sum = 0.0f;
            for (int64_t ic = 0; ic < C; ic++) {
                for (int64_t kz = 0; kz < k->ne[2]; kz++) {
                    const int64_t iz = oz * p[2] + kz * p[8] - p[5];
                    if (iz < 0 || iz >= b->ne[2]) {
                        continue;
                    }
                    for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                        const int64_t iy = oy * p[1] + ky * p[7] - p[4];
                        if (iy < 0 || iy >= b->ne[1]) {
                            continue;
                        }
                        for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                            const int64_t ix = ox * p[0] + kx * p[6] - p[3];
                            if (ix < 0 || ix >= b->ne[0]) {
                                continue;
                            }
                            float x = elem_f(b, ix, iy, iz, n * C + ic);
                            if (k16) {
                                x = gk_fp16_to_fp32(gk_fp32_to_fp16(x));
                            }
                            sum += elem_f(k, kx, ky, kz, oc * C + ic) * x;
                        }
                    }
                }
            }
            *(float *) ((char *) dst->data + ox * dst->nb[0] + oy * dst->nb[1] + oz * dst->nb[2] + r3 * dst->nb[3]) = sum;
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
        case GGML_OP_CONV_TRANSPOSE_1D: case GGML_OP_CONV_TRANSPOSE_2D:
            return (node->src[0]->type == GGML_TYPE_F32 || node->src[0]->type == GGML_TYPE_F16) &&
                   f32ish(node->src[1]->type) && node->type == GGML_TYPE_F32;
        case GGML_OP_IM2COL_3D:
            return f32ish(node->src[1]->type) && (node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16);
        case GGML_OP_CONV_3D:
            return f32ish(node->src[0]->type) && f32ish(node->src[1]->type) && node->type == GGML_TYPE_F32;
        case GGML_OP_COL2IM_1D:
            return f32ish(node->src[0]->type) && node->type == node->src[0]->type;
        case GGML_OP_CONV_2D_DW: case GGML_OP_CONV_2D:
            return f32ish(node->src[0]->type) && f32ish(node->src[1]->type) &&
                   (node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16);
        case GGML_OP_UPSCALE:
            return node->src[0]->type == GGML_TYPE_F32 && node->type == GGML_TYPE_F32 &&
                   (ggml_get_op_params_i32(node, 0) & 0xFF) < GGML_SCALE_MODE_COUNT;
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
        case GGML_OP_CONV_TRANSPOSE_1D:  op_conv_transpose(params, node, false); break;
        case GGML_OP_CONV_TRANSPOSE_2D:  op_conv_transpose(params, node, true); break;
        case GGML_OP_CONV_2D_DW:         op_conv_2d_dw(params, node); break;
        case GGML_OP_CONV_2D:            op_conv_2d(params, node); break;
        case GGML_OP_COL2IM_1D:          op_col2im_1d(params, node); break;
        case GGML_OP_IM2COL_3D:          op_im2col_3d(params, node); break;
        case GGML_OP_CONV_3D:            op_conv_3d(params, node); break;
        case GGML_OP_UPSCALE:            op_upscale(params, node); break;
        case GGML_OP_POOL_2D:            op_pool(params, node, true); break;
        default: GGML_ABORT("%s: op %s is not a convolution op", __func__, ggml_op_desc(node));
    }
}
