/*
 * gk-vec.h - freestanding float vector kernels: dot products of rows in
 * F32/F16/BF16 (with F32 or same-type partners), and the register-blocked
 * F32 tile used by matrix-matrix products. Portable forms, plus per-ISA forms
 * declared for the architecture they are built for (the caller checks the
 * CPU first). Dots accumulate in float with several partial sums.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_VEC_H
#define GK_VEC_H

#include "gk-types.h"

float gk_dot_f32(int64_t n, const float * x, const float * y);
float gk_dot_f16_f32(int64_t n, const uint16_t * x, const float * y);
float gk_dot_bf16_f32(int64_t n, const uint16_t * x, const float * y);
float gk_dot_f16(int64_t n, const uint16_t * x, const uint16_t * y);
float gk_dot_bf16(int64_t n, const uint16_t * x, const uint16_t * y);

// C[i*ldc + j] += sum_k A[i*lda + k] * B[j*ldb + k] for i < m, j < n:
// both operands are row-major with k contiguous ("A times B transposed").
void gk_gemm_nt_f32(int m, int n, int k, const float * a, int64_t lda,
                    const float * b, int64_t ldb, float * c, int64_t ldc);

// Element-wise F32 kernels of ADD, SUB, MUL, DIV and NORM. The portable forms
// are the reference the SIMD forms are tested against; the SIMD forms give
// the same bits for the binary ops and for gk_centre_scale (one IEEE
// operation per element), and sums within float rounding for the others.
enum gk_binop { GK_ADD, GK_SUB, GK_MUL, GK_DIV };

// SOFT_MAX's row kernels (softmax-x86.c, softmax-avx512.c). A row's values
// are v = x * s (rounded), plus slope * m (one fused multiply-add) where
// there is a mask m, F32 or F16 (mt). gk_softmax_max_*: the largest v
// (-inf for n == 0 or all NaN; NaNs skipped). gk_softmax_exp_*: z = e^(v -
// max) for v <= max, returns the sum of z, relative error <= 2e-7 for v -
// max >= -87.3, 0 below (where e^d leaves the normal range), for -inf and
// NaN (2^k e^r with |r| <= ln2/16 (AVX2) or ln2/32 (AVX512), 2^(k mod 8
// or 16) from a table). gk_softmax_norm_*: z = x * s (z may be x), with
// non-temporal stores when nt (no SFENCE: gk_sfence_x86 after the last).
enum gk_sm_mask { GK_SM_NONE, GK_SM_F32, GK_SM_F16 };
struct gk_sm_exp {
    const float * x;     // the row
    const void *  m;     // its mask (NULL: none), of type mt
    enum gk_sm_mask mt;
    float s, slope, max;
    float * z;           // e^(v - max) out (may be x; apart from m and prev)
    const float * next;  // a row asked into L1 meanwhile (NULL: none)
    // the maximum of the row computed next, found meanwhile (xn NULL:
    // none): *max_next = gk_softmax_max_*(n, xn, s, mn, mt, slope_n), the
    // same value (a zero's sign aside); mn of type mt, NULL exactly when m
    // is; without a mask s must be positive and finite
    const float * xn;
    const void *  mn;
    float slope_n;
    float * max_next;
    // the previous row's normalisation, done meanwhile (prev NULL: none):
    // prev_out = prev * prev_s with non-temporal stores (no SFENCE); then
    // n is a multiple of 16 and prev_out and prev 64-byte aligned
    const float * prev;
    float prev_s;
    float * prev_out;
    // with a mask, the scaling and the mask's conversion done once per
    // value: vn (NULL: none; with xn) receives the next row's v as its
    // maximum pass forms them, and v (NULL: none) gives this row's v,
    // read in place of x and m (the same values, so the same bits). vn
    // may be prev (each value of prev is read before vn's is written
    // there) and v may be z; both best 64-byte aligned
    float * vn;
    const float * v;
};
#define GK_SM_INF       __builtin_inff()
// z = x op y (z may be x or y)
void   gk_binary_f32(enum gk_binop op, int64_t n, const float * x, const float * y, float * z);
// the sum of x in double; the sum of (x - mean)^2 in float
double gk_sum_f64(int64_t n, const float * x);
float  gk_sumsq_dev_f32(int64_t n, const float * x, float mean);
// z = (x - mean) * s (z may be x)
void   gk_centre_scale_f32(int64_t n, const float * x, float mean, float s, float * z);

#if defined(__x86_64__)
float gk_dot_f32_avx2(int64_t n, const float * x, const float * y);
float gk_dot_f16_f32_avx2(int64_t n, const uint16_t * x, const float * y);
float gk_dot_bf16_f32_avx2(int64_t n, const uint16_t * x, const float * y);
float gk_dot_f16_avx2(int64_t n, const uint16_t * x, const uint16_t * y);
float gk_dot_bf16_avx2(int64_t n, const uint16_t * x, const uint16_t * y);
// z[i] = e^(z[i] - max) (0 below -87.3), returns the sum; rel. error <= 2e-7
float gk_exp_sub_sum_avx2(int64_t n, float * z, float max);
// y = x * s + b (fused multiply-add: may differ from x * s + b in the last bit)
void  gk_scale_bias_avx2(int64_t n, const float * x, float s, float b, float * y);
// y = x with non-temporal stores, then SFENCE (x and y apart)
void  gk_copy_nt_avx2(int64_t n, const float * x, float * y);
// gk_scale_bias_avx2 and gk_centre_scale_avx2 (the same bits) written with
// non-temporal stores, then SFENCE (the output x itself or apart from it)
void  gk_scale_bias_nt_avx2(int64_t n, const float * x, float s, float b, float * y);
void  gk_centre_scale_nt_avx2(int64_t n, const float * x, float mean, float s, float * z);
// NORM and RMS_NORM on large rows: one row written while the rows after it
// are read (in the same loop), so that memory reads and writes all along (a
// row read alone, then written alone, left DRAM idle half the time). Rows
// apart from y and z (x may be y or z); y and z 32-byte aligned; SFENCE at
// the end. y = x * s + 0 as gk_scale_bias_nt_avx2 (b = 0), returns
// gk_dot_f32_avx2(n, xn, xn). z as gk_centre_scale_nt_avx2, *ss1 =
// gk_sumsq_dev_avx2(n, x1, mean1) (x1 is in the cache: read by the step
// before), returns gk_sum_f64_avx2(n, x2). The same bits as those.
float  gk_scale_nt_sumsq_avx2(int64_t n, const float * x, float s, float * y, const float * xn);
double gk_norm_step_nt_avx2(int64_t n, const float * x, float mean, float s, float * z,
                            const float * x1, float mean1, float * ss1, const float * x2);
// RoPE rotations (cs: cos, sin of each pair, interleaved; z may be x)
void  gk_rope_norm_avx2(int64_t n_dims, const float * x, float * z, const float * cs);
void  gk_rope_neox_avx2(int64_t n_dims, const float * x, float * z, const float * cs);
// cs[2i] = cos(theta[i]) * mscale, cs[2i+1] = sin(theta[i]) * mscale: the
// bits of gk_cosf/gk_sinf (the scalar functions for |theta| > 1e6 or NaN)
void  gk_sincos_avx2(int64_t n, const float * theta, float mscale, float * cs);
// y += a * x;  the largest element of x
void  gk_axpy_avx2(int64_t n, float a, const float * x, float * y);
float gk_max_avx2(int64_t n, const float * x);
// y = x * sigmoid(x)
void  gk_silu_avx2(int64_t n, const float * x, float * y);
// GELU as x * sigmoid(2u) (u the argument of its tanh form: the same
// function, abs. error <= 2e-6 like gk_geluf), GELU_QUICK; z = x * y
void  gk_gelu_avx2(int64_t n, const float * x, float * y);
void  gk_gelu_quick_avx2(int64_t n, const float * x, float * y);
// z = silu(a) * b, z = gelu(a) * b in one pass (z may be a or b)
void  gk_swiglu_avx2(int64_t n, const float * a, const float * b, float * z);
void  gk_geglu_avx2(int64_t n, const float * a, const float * b, float * z);
// z = x * s + slope * m (m NULL: no mask; x * s rounded, then a fused
// multiply-add), returns max(z) (NaNs skipped)
float gk_scale_mask_max_avx2(int64_t n, const float * x, float s, const float * m, float slope, float * z);
// SOFT_MAX's row kernels (above)
float gk_softmax_max_avx2(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope);
float gk_softmax_exp_avx2(int64_t n, const struct gk_sm_exp * a);
// orders the non-temporal stores before (SFENCE)
void  gk_sfence_x86(void);
void  gk_softmax_norm_avx2(int64_t n, const float * x, float s, float * z, bool nt);
float gk_softmax_max_avx512(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope);
float gk_softmax_exp_avx512(int64_t n, const struct gk_sm_exp * a);
void  gk_softmax_norm_avx512(int64_t n, const float * x, float s, float * z, bool nt);
// AVX512F/BW/VL forms (vec-avx512.c), where ggml_cpu_isa()->use_vnni256:
// the contracts of the _avx2 forms
void  gk_silu_avx512(int64_t n, const float * x, float * y);
void  gk_swiglu_avx512(int64_t n, const float * a, const float * b, float * z);
void  gk_gelu_avx512(int64_t n, const float * x, float * y);
void  gk_geglu_avx512(int64_t n, const float * a, const float * b, float * z);
// NORM's two-row step on large rows: z as gk_centre_scale_nt_avx2 (z 32-byte
// aligned, x itself or apart from it; SFENCE at the end) while xn is read,
// returns gk_sum_f64_avx2(n, xn); and gk_sumsq_dev_avx2 (the same bits).
double gk_centre_scale_nt_sum_avx512(int64_t n, const float * x, float mean, float s, float * z, const float * xn);
float  gk_sumsq_dev_avx512(int64_t n, const float * x, float mean);
// gk_sum_f64_avx2 on sixteen lanes (the same bits)
double gk_sum_f64_avx512(int64_t n, const float * x);
void  gk_mul_avx2(int64_t n, const float * x, const float * y, float * z);
// the element-wise kernels above (gk_binary_f32 ...), same contracts
void   gk_binary_avx2(enum gk_binop op, int64_t n, const float * x, const float * y, float * z);
// the same with non-temporal stores (then SFENCE)
void   gk_binary_nt_avx2(enum gk_binop op, int64_t n, const float * x, const float * y, float * z);
double gk_sum_f64_avx2(int64_t n, const float * x);
float  gk_sumsq_dev_avx2(int64_t n, const float * x, float mean);
void   gk_centre_scale_avx2(int64_t n, const float * x, float mean, float s, float * z);
// s[r] = dot of row r (r < 4, rows ldx elements apart) of x with y
void  gk_dot4_f32_avx2(int64_t n, const float * x, int64_t ldx, const float * y, float * s);
void  gk_dot4_f16_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s);
void  gk_dot4_bf16_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s);
// BF16 rows against an F32 row packed by gk_bf16p_pack_y_avx2 (yp: n floats)
void  gk_bf16p_pack_y_avx2(int64_t n, const float * y, float * yp);
void  gk_dot4_bf16p_f32_avx2(int64_t n, const uint16_t * x, int64_t ldx, const float * yp, float * s);
void  gk_gemm_nt_f32_avx2(int m, int n, int k, const float * a, int64_t lda,
                          const float * b, int64_t ldb, float * c, int64_t ldc);
// AVX512-BF16 (gemm-bf16-avx512.c): nrows (<= 32) BF16 rows of k values
// (k even) into a panel of 32 rows per K pair; then C[j][0..nrows) +=
// panel . A[j] for m BF16 columns A[j] = a + j * lda; meanwhile prefetches
// pf_bytes of each of pf_rows rows at pf, pf_ld bytes apart (pf NULL: none)
void  gk_bf16_pack_panel_avx512bf16(const uint16_t * w, int64_t ldw, int nrows, int k, uint32_t * panel);
void  gk_gemm_nt_bf16_avx512bf16(int m, int nrows, int k, const uint16_t * a, int64_t lda, const uint32_t * panel,
                                 float * c, int64_t ldc, const void * pf, int64_t pf_ld, int pf_rows, int pf_bytes);
// AVX512F (gemm-f32-avx512.c): nrows (<= 32) F32, F16 or BF16 rows of k
// values (rows ldw elements apart) into an F32 panel of 32 rows per K value
// (rows past nrows zero); then C[j][0..nrows) += panel . A[j] for m F32
// columns A[j] = a + j * lda; meanwhile prefetches pf_bytes of each of
// pf_rows rows at pf, pf_ld bytes apart (the next panel's weights; pf NULL:
// none)
void  gk_f32_pack_panel_avx512(const float * w, int64_t ldw, int nrows, int k, float * panel);
void  gk_f16_pack_panel_avx512(const uint16_t * w, int64_t ldw, int nrows, int k, float * panel);
void  gk_bf16_pack_panel_avx512(const uint16_t * w, int64_t ldw, int nrows, int k, float * panel);
void  gk_gemm_nt_f32p_avx512(int m, int nrows, int k, const float * a, int64_t lda, const float * panel, float * c,
                             int64_t ldc, const void * pf, int64_t pf_ld, int pf_rows, int pf_bytes);
#endif

#if defined(__aarch64__)
float gk_dot_f32_neon(int64_t n, const float * x, const float * y);
float gk_dot_f16_f32_neon(int64_t n, const uint16_t * x, const float * y);
float gk_dot_bf16_f32_neon(int64_t n, const uint16_t * x, const float * y);
float gk_dot_f16_neon(int64_t n, const uint16_t * x, const uint16_t * y);
float gk_dot_bf16_neon(int64_t n, const uint16_t * x, const uint16_t * y);
void  gk_dot4_f32_neon(int64_t n, const float * x, int64_t ldx, const float * y, float * s);
void  gk_dot4_f16_f32_neon(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s);
void  gk_dot4_bf16_f32_neon(int64_t n, const uint16_t * x, int64_t ldx, const float * y, float * s);
void  gk_gemm_nt_f32_neon(int m, int n, int k, const float * a, int64_t lda,
                          const float * b, int64_t ldb, float * c, int64_t ldc);
// the same contracts as the _avx2 forms above
float gk_exp_sub_sum_neon(int64_t n, float * z, float max);
void  gk_scale_bias_neon(int64_t n, const float * x, float s, float b, float * y);
void  gk_rope_norm_neon(int64_t n_dims, const float * x, float * z, const float * cs);
void  gk_rope_neox_neon(int64_t n_dims, const float * x, float * z, const float * cs);
void  gk_sincos_neon(int64_t n, const float * theta, float mscale, float * cs);
void  gk_axpy_neon(int64_t n, float a, const float * x, float * y);
float gk_max_neon(int64_t n, const float * x);
void  gk_silu_neon(int64_t n, const float * x, float * y);
void  gk_gelu_neon(int64_t n, const float * x, float * y);
void  gk_gelu_quick_neon(int64_t n, const float * x, float * y);
void  gk_swiglu_neon(int64_t n, const float * a, const float * b, float * z);
void  gk_geglu_neon(int64_t n, const float * a, const float * b, float * z);
float gk_scale_mask_max_neon(int64_t n, const float * x, float s, const float * m, float slope, float * z);
void  gk_mul_neon(int64_t n, const float * x, const float * y, float * z);
// the element-wise kernels above (gk_binary_f32 ...), same contracts
void   gk_binary_neon(enum gk_binop op, int64_t n, const float * x, const float * y, float * z);
double gk_sum_f64_neon(int64_t n, const float * x);
float  gk_sumsq_dev_neon(int64_t n, const float * x, float mean);
void   gk_centre_scale_neon(int64_t n, const float * x, float mean, float s, float * z);
#endif

#endif // GK_VEC_H
