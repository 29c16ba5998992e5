/*
 * cpu-mul-mat.c - MUL_MAT on the CPU (the type traits' dots come from here:
 * cpu-type-traits.c).
 *
 * dst[i0, i1, i2, i3] = sum_k src0[k, i0, i2', i3'] * src1[k, i1, i2, i3]
 * with src0 broadcast over dims 2-3 (i2' = i2 / (ne12/ne02), same for dim 3).
 *
 * 1. src1 is brought into the form the kernels read, in the shared work
 *    buffer, by all threads: Q8_0/Q8_K rows for quantized weights (upstream's
 *    vec_dot_type scheme), dense F32 rows for float weights when src1 is not
 *    already dense F32.
 * 2. The output is cut into chunks taken from a shared counter. Few columns
 *    (matrix-vector): each chunk is a block of weight rows dotted with every
 *    column (float weights on x86-64 and arm64: register tiles of a few rows
 *    by a few columns, gk-gemv.h, up to MM_GEMM_MIN_COLS_GEMV/_BF16DP
 *    columns on x86-64). Many columns: a blocked GEMM - a panel of weight rows x KC
 *    values is converted to F32 in the thread's scratch and multiplied with
 *    a block of columns by the register-blocked tile kernel. On CPUs with
 *    AVX512F, F32/F16/BF16 weights are packed (widened) into panels of 32
 *    rows per K value instead and multiplied on 512-bit FMAs (BF16 on
 *    AVX512-BF16: its own GEMM on VDPBF16PS).
 * 3. Q8_0/Q4_0 weights on CPUs with int8 dot products (AVX512-VNNI on
 *    x86-64, SDOT on arm64) take ggml_cpu_mul_mat_q8x (cpu-mul-mat-q8.c)
 *    instead: activations as Q8_0x
 *    columns, multi-row int8 dots for few columns, and from
 *    MM_GEMM_MIN_COLS_Q8 (with VNNI: _Q8_0_VNNI, _Q4_0_VNNI) columns an int8 GEMM
 *    on packed 16-row weight tiles
 *    (integer dots per 32-value block, the block scales applied in float).
 *    Weights in a CPU_REPACK buffer (cpu-repack.c) are read by that GEMM
 *    where they are stored, for every column count. Q4_K/Q6_K weights take
 *    their own GEMM on such 16-row groups (scales, mins and offsets applied
 *    per super-block in the kernel): repacked ones at every column count,
 *    plain ones from MM_GEMM_MIN_COLS_QK/_Q6K columns, each tile repacked
 *    per K step into the thread's scratch.
 *    The other types with an unpack function (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K,
 *    Q5_K, IQ4_NL, IQ4_XS) are packed through it (gk_pack_unpack) from
 *    MM_GEMM_MIN_COLS_UNPACK(_HALF) columns.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-mul-mat.h"
#include "cpu-quant-types.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-gemv.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-quant-ext.h"
#include "kernels/gk-repack.h"
#include "kernels/gk-vec.h"

#include <string.h>


// ---------------------------------------------------------------------------
// dispatched kernels
// ---------------------------------------------------------------------------

float ggml_cpu_dot_f32(int64_t n, const float * x, const float * y, bool ref) {
#if defined(__x86_64__)
    if (!ref && ggml_cpu_fast_x86()) {
        return gk_dot_f32_avx2(n, x, y);
    }
#elif defined(__aarch64__)
    if (!ref && ggml_cpu_isa()->neon) {
        return gk_dot_f32_neon(n, x, y);
    }
#endif
    return gk_dot_f32(n, x, y);
}

// dot of a weight row (type) with an activation row (its vec_dot form)
typedef float (*mm_dot_fn)(int64_t n, const void * x, const void * y);

#define WRAP(name, tx, ty) \
    static float w_##name(int64_t n, const void * x, const void * y) { return name(n, (const tx *) x, (const ty *) y); }

WRAP(gk_dot_f32, float, float)
WRAP(gk_dot_f16_f32, uint16_t, float)
WRAP(gk_dot_bf16_f32, uint16_t, float)
WRAP(gk_dot_q8_0_q8_0, gk_block_q8_0, gk_block_q8_0)
WRAP(gk_dot_q4_0_q8_0, gk_block_q4_0, gk_block_q8_0)
WRAP(gk_dot_q4_K_q8_K, gk_block_q4_K, gk_block_q8_K)
WRAP(gk_dot_q6_K_q8_K, gk_block_q6_K, gk_block_q8_K)
#if defined(__x86_64__)
WRAP(gk_dot_f32_avx2, float, float)
WRAP(gk_dot_f16_f32_avx2, uint16_t, float)
WRAP(gk_dot_bf16_f32_avx2, uint16_t, float)
WRAP(gk_dot_q8_0_q8_0_avx2, gk_block_q8_0, gk_block_q8_0)
WRAP(gk_dot_q4_0_q8_0_avx2, gk_block_q4_0, gk_block_q8_0)
// Q4_K/Q6_K: quant-kdot-x86.c's dots, not quant-x86.c's (kept for the
// kernel module): one weight row at a time, so that a thread's rows are one
// stream (see that file)
static float w_gk_dot_q4_K_q8_K_avx2(int64_t n, const void * x, const void * y) {
    return gk_dotk_q4_K_q8_K_avx2(n, x, y);
}
static float w_gk_dot_q6_K_q8_K_avx2(int64_t n, const void * x, const void * y) {
    return gk_dotk_q6_K_q8_K_avx2(n, x, y);
}
// AVX512-VNNI (quant-k-avx512.c), where use_vnni256
WRAP(gk_dot_q4_K_q8_K_avx512, gk_block_q4_K, gk_block_q8_K)
WRAP(gk_dot_q6_K_q8_K_avx512, gk_block_q6_K, gk_block_q8_K)
#endif
#if defined(__aarch64__)
WRAP(gk_dot_f32_neon, float, float)
WRAP(gk_dot_f16_f32_neon, uint16_t, float)
WRAP(gk_dot_bf16_f32_neon, uint16_t, float)
WRAP(gk_dot_q8_0_q8_0_neon, gk_block_q8_0, gk_block_q8_0)
WRAP(gk_dot_q4_0_q8_0_neon, gk_block_q4_0, gk_block_q8_0)
WRAP(gk_dot_q4_K_q8_K_neon, gk_block_q4_K, gk_block_q8_K)
WRAP(gk_dot_q6_K_q8_K_neon, gk_block_q6_K, gk_block_q8_K)
WRAP(gk_dot_q4_K_q8_K_dotprod, gk_block_q4_K, gk_block_q8_K)
WRAP(gk_dot_q6_K_q8_K_dotprod, gk_block_q6_K, gk_block_q8_K)
#endif

static bool use_fast(bool ref) {
#if defined(__x86_64__)
    return !ref && ggml_cpu_fast_x86();
#elif defined(__aarch64__)
    return !ref && ggml_cpu_isa()->neon;
#else
    (void) ref;
    return false;
#endif
}

#if defined(__x86_64__)
#define PICK(ref, base) (use_fast(ref) ? w_##base##_avx2 : w_##base)
#elif defined(__aarch64__)
#define PICK(ref, base) (use_fast(ref) ? w_##base##_neon : w_##base)
#else
#define PICK(ref, base) w_##base
#endif

// the dot used by MUL_MAT: float weights x F32 activations, quantized
// weights x Q8 activations
static mm_dot_fn mm_dot(enum ggml_type type, bool ref) {
#if defined(__x86_64__)
    if (use_fast(ref) && ggml_cpu_isa()->use_vnni256) {
        if (type == GGML_TYPE_Q4_K) {
            return w_gk_dot_q4_K_q8_K_avx512;
        }
        if (type == GGML_TYPE_Q6_K) {
            return w_gk_dot_q6_K_q8_K_avx512;
        }
    }
#endif
#if defined(__aarch64__)
    if (use_fast(ref) && ggml_cpu_isa()->use_dotprod) {
        if (type == GGML_TYPE_Q4_K) {
            return w_gk_dot_q4_K_q8_K_dotprod;
        }
        if (type == GGML_TYPE_Q6_K) {
            return w_gk_dot_q6_K_q8_K_dotprod;
        }
    }
#endif
    switch (type) {
        case GGML_TYPE_F32:  return PICK(ref, gk_dot_f32);
        case GGML_TYPE_F16:  return PICK(ref, gk_dot_f16_f32);
        case GGML_TYPE_BF16: return PICK(ref, gk_dot_bf16_f32);
        case GGML_TYPE_Q8_0: return PICK(ref, gk_dot_q8_0_q8_0);
        case GGML_TYPE_Q4_0: return PICK(ref, gk_dot_q4_0_q8_0);
        case GGML_TYPE_Q4_K: return PICK(ref, gk_dot_q4_K_q8_K);
        case GGML_TYPE_Q6_K: return PICK(ref, gk_dot_q6_K_q8_K);
        default: return ggml_cpu_qt_dot(type, ref); // the other types (cpu-quant-types.c)
    }
}

ggml_cpu_qdot_fn ggml_cpu_mm_dot(enum ggml_type type, bool ref) {
    return mm_dot(type, ref);
}

// four weight rows (a row stride in elements) with one activation row, or NULL
typedef void (*mm_dot4_fn)(int64_t n, const void * x, size_t bx, const void * y, float * s);

#if defined(__x86_64__)
static void w4_f32(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_f32_avx2(n, x, (int64_t) (bx / sizeof(float)), y, s);
}
static void w4_f16(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_f16_f32_avx2(n, x, (int64_t) (bx / sizeof(uint16_t)), y, s);
}
static void w4_bf16(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_bf16_f32_avx2(n, x, (int64_t) (bx / sizeof(uint16_t)), y, s);
}
static void w4_q8_0(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q8_0_q8_0_avx2(n, x, bx, y, s);
}
static void w4_q4_0(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q4_0_q8_0_avx2(n, x, bx, y, s);
}
#endif

#if defined(__aarch64__)
static void w4_f32(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_f32_neon(n, x, (int64_t) (bx / sizeof(float)), y, s);
}
static void w4_f16(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_f16_f32_neon(n, x, (int64_t) (bx / sizeof(uint16_t)), y, s);
}
static void w4_bf16(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_bf16_f32_neon(n, x, (int64_t) (bx / sizeof(uint16_t)), y, s);
}
static void w4_q8_0(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q8_0_q8_0_neon(n, x, bx, y, s);
}
static void w4_q4_0(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q4_0_q8_0_neon(n, x, bx, y, s);
}
#endif

#if defined(__x86_64__)
static void w4_q4_K_avx512(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q4_K_q8_K_avx512(n, x, bx, y, s);
}
static void w4_q6_K_avx512(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q6_K_q8_K_avx512(n, x, bx, y, s);
}
static void w4_q4_K(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q4_K_q8_K_avx2(n, x, bx, y, s);
}
static void w4_q6_K(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q6_K_q8_K_avx2(n, x, bx, y, s);
}
static void w4_q5_K_avx512(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q5_K_q8_K_avx512(n, x, bx, y, s);
}
static void w4_q5_K(int64_t n, const void * x, size_t bx, const void * y, float * s) {
    gk_dot4_q5_K_q8_K_avx2(n, x, bx, y, s);
}
#endif

// the four-row dots of Q4_K/Q5_K/Q6_K rows longer than this (their Q8_K
// activations no longer stay in L1 beside one weight stream; gk-x86.h).
// One thread, CPU time, from DRAM, one row / four rows, Q6_K (Q4_K): K =
// 8192 28 / 26-28 GB/s (25.6 / 23-25), 14336 20-21 / 26-28 (15-17 / 24-25),
// 28672 9-12 / 27-29
#define MM_DOT4_K_MIN_LEN 8192

// four rows, each the current row of a stream of rows (the stream's next
// row nx bytes on), with one activation row, or NULL (gk_dot4s_*): one
// column of plain Q6_K weights. One row at a time (above) a thread's rows
// were one memory stream; four far apart, each prefetched ahead and on into
// its next row, as the repacked groups' one-column product reads them
typedef void (*mm_dot4s_fn)(int64_t n, const void * x, size_t bx, size_t nx, const void * y, float * s);

#if defined(__x86_64__)
static void w4s_q6_K_avx512(int64_t n, const void * x, size_t bx, size_t nx, const void * y, float * s) {
    gk_dot4s_q6_K_q8_K_avx512(n, x, bx, nx, y, s);
}
static void w4s_q6_K(int64_t n, const void * x, size_t bx, size_t nx, const void * y, float * s) {
    gk_dot4s_q6_K_q8_K_avx2(n, x, bx, nx, y, s);
}
#endif

// (AVX2 alone, 256-bit: from MM_DOT4_K_MIN_LEN values on only; below, the
// one-row dot's single stream measured faster, see mm_dot4)
static mm_dot4s_fn mm_dot4s(enum ggml_type type, int64_t k, bool ref) {
#if defined(__x86_64__)
    if (use_fast(ref) && type == GGML_TYPE_Q6_K) {
        return ggml_cpu_isa()->use_vnni256 ? w4s_q6_K_avx512 : k > MM_DOT4_K_MIN_LEN ? w4s_q6_K : NULL;
    }
#else
    (void) k;
#endif
    (void) type;
    (void) ref;
    return NULL;
}

static mm_dot4_fn mm_dot4(enum ggml_type type, int64_t k, bool ref) {
#if defined(__x86_64__)
    if (use_fast(ref) && k > MM_DOT4_K_MIN_LEN) {
        const bool vnni = ggml_cpu_isa()->use_vnni256;
        switch (type) {
            case GGML_TYPE_Q4_K: return vnni ? w4_q4_K_avx512 : w4_q4_K;
            case GGML_TYPE_Q5_K: return vnni ? w4_q5_K_avx512 : w4_q5_K;
            case GGML_TYPE_Q6_K: return vnni ? w4_q6_K_avx512 : w4_q6_K;
            default: break;
        }
    }
#else
    (void) k;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    if (use_fast(ref)) {
        switch (type) {
            case GGML_TYPE_F32:  return w4_f32;
            case GGML_TYPE_F16:  return w4_f16;
            case GGML_TYPE_BF16: return w4_bf16;
            case GGML_TYPE_Q8_0: return w4_q8_0;
            case GGML_TYPE_Q4_0: return w4_q4_0;
            default: break;
        }
    }
#endif
    (void) type;
    (void) ref;
    return NULL;
}

// F32, F16 and BF16 weights by few columns (gk-gemv.h): m weight rows nb01
// bytes apart by n activation columns (F32; BF16 for gemv_bf16_bf16) ldy
// elements apart, into n destination columns ldd floats apart; or NULL
typedef void (*mm_gemv_fn)(int64_t k, const void * w, size_t nb01, int m, int n, const void * y, int64_t ldy,
                           float * d, int64_t ldd);

#define GEMV_WRAP(name, tw, ty)                                                                                   \
    static void g_##name(int64_t k, const void * w, size_t nb01, int m, int n, const void * y, int64_t ldy,     \
                         float * d, int64_t ldd) {                                                              \
        name(k, (const tw *) w, (int64_t) (nb01 / sizeof(tw)), m, n, (const ty *) y, ldy, d, ldd);              \
    }

#if defined(__x86_64__)
GEMV_WRAP(gk_gemv_f32_avx2, float, float)
GEMV_WRAP(gk_gemv_f16_avx2, uint16_t, float)
GEMV_WRAP(gk_gemv_bf16_avx2, uint16_t, float)
GEMV_WRAP(gk_gemv_f32_avx512, float, float)
GEMV_WRAP(gk_gemv_f16_avx512, uint16_t, float)
GEMV_WRAP(gk_gemv_bf16_avx512, uint16_t, float)
GEMV_WRAP(gk_gemv_bf16_bf16_avx512bf16, uint16_t, uint16_t)
#endif
#if defined(__aarch64__)
GEMV_WRAP(gk_gemv_f32_neon, float, float)
GEMV_WRAP(gk_gemv_f16_neon, uint16_t, float)
GEMV_WRAP(gk_gemv_bf16_neon, uint16_t, float)
#endif

// BF16 weights by few columns on AVX512-BF16: the activations are rounded
// to BF16 rows (upstream's vec_dot_type for BF16, as the BF16 GEMM does)
// and the products run on VDPBF16PS (gemv-bf16-avx512.c)
static bool use_bf16_gemv(const struct ggml_tensor * dst, bool ref);

// *one: the same ISA's kernel for one column on GK_GEMV_STREAMS blocks at
// once (gk_gemv1_*), or NULL
static mm_gemv_fn mm_gemv(const struct ggml_tensor * dst, bool ref, gk_gemv1_fn * one) {
    *one = NULL;
#if defined(__x86_64__)
    const enum ggml_type type = dst->src[0]->type;
    if (!use_fast(ref) || ggml_cpu_is_repacked(dst->src[0])) {
        return NULL;
    }
    if (use_bf16_gemv(dst, ref)) {
        *one = gk_gemv1_bf16_bf16_avx512bf16;
        return g_gk_gemv_bf16_bf16_avx512bf16;
    }
    const bool z = ggml_cpu_isa()->use_avx512f;
    switch (type) {
        case GGML_TYPE_F32:
            *one = z ? gk_gemv1_f32_avx512 : gk_gemv1_f32_avx2;
            return z ? g_gk_gemv_f32_avx512 : g_gk_gemv_f32_avx2;
        case GGML_TYPE_F16:
            *one = z ? gk_gemv1_f16_avx512 : gk_gemv1_f16_avx2;
            return z ? g_gk_gemv_f16_avx512 : g_gk_gemv_f16_avx2;
        case GGML_TYPE_BF16:
            *one = z ? gk_gemv1_bf16_avx512 : gk_gemv1_bf16_avx2;
            return z ? g_gk_gemv_bf16_avx512 : g_gk_gemv_bf16_avx2;
        default: break;
    }
#elif defined(__aarch64__)
    if (use_fast(ref) && !ggml_cpu_is_repacked(dst->src[0])) {
        switch (dst->src[0]->type) {
            case GGML_TYPE_F32:  *one = gk_gemv1_f32_neon;  return g_gk_gemv_f32_neon;
            case GGML_TYPE_F16:  *one = gk_gemv1_f16_neon;  return g_gk_gemv_f16_neon;
            case GGML_TYPE_BF16: *one = gk_gemv1_bf16_neon; return g_gk_gemv_bf16_neon;
            default: break;
        }
    }
#endif
    (void) dst;
    (void) ref;
    return NULL;
}

// F32 values to the activations of the quantized dots (Q8_0 or Q8_K),
// SIMD where this CPU has it: the same bytes as the portable quantizers
void ggml_cpu_quantize_act(enum ggml_type act, const float * x, void * y, int64_t n, bool ref) {
    if (act == GGML_TYPE_Q8_K) {
#if defined(__x86_64__)
        if (use_fast(ref)) {
            if (ggml_cpu_isa()->use_vnni256) {
                gk_quantize_row_q8_K_avx512(x, y, n);
            } else {
                gk_quantize_row_q8_K_avx2(x, y, n);
            }
            return;
        }
#elif defined(__aarch64__)
        if (use_fast(ref)) {
            gk_quantize_row_q8_K_neon(x, y, n);
            return;
        }
#endif
        gk_quantize_row_q8_K(x, y, n);
        return;
    }
    if (act == GGML_TYPE_Q8_1) {
#if defined(__x86_64__)
        if (use_fast(ref)) {
            gk_quantize_row_q8_1_avx2(x, y, n);
            return;
        }
#elif defined(__aarch64__)
        if (use_fast(ref)) {
            gk_quantize_row_q8_1_neon(x, y, n);
            return;
        }
#endif
        ggml_cpu_qt_quantize_q8_1(x, y, n);
        return;
    }
#if defined(__x86_64__)
    if (use_fast(ref)) {
        gk_quantize_row_q8_0_avx2(x, y, n);
        return;
    }
#elif defined(__aarch64__)
    if (use_fast(ref)) {
        gk_quantize_row_q8_0_neon(x, y, n);
        return;
    }
#endif
    gk_quantize_row_q8_0(x, y, n);
}

// the form src1 takes for the dots
static enum ggml_type mm_act_type(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_0: return GGML_TYPE_Q8_0;
        case GGML_TYPE_Q4_K: case GGML_TYPE_Q6_K: return GGML_TYPE_Q8_K;
        default: {
            const enum ggml_type act = ggml_cpu_qt_act_type(type);
            return act != GGML_TYPE_COUNT ? act : GGML_TYPE_F32;
        }
    }
}

static void gemm_nt(bool ref, int m, int n, int k, const float * a, int64_t lda,
                    const float * b, int64_t ldb, float * c, int64_t ldc) {
#if defined(__x86_64__)
    if (use_fast(ref)) {
        gk_gemm_nt_f32_avx2(m, n, k, a, lda, b, ldb, c, ldc);
        return;
    }
#elif defined(__aarch64__)
    if (use_fast(ref)) {
        gk_gemm_nt_f32_neon(m, n, k, a, lda, b, ldb, c, ldc);
        return;
    }
#endif
    gk_gemm_nt_f32(m, n, k, a, lda, b, ldb, c, ldc);
}

// ---------------------------------------------------------------------------
// planning
// ---------------------------------------------------------------------------

bool ggml_cpu_mul_mat_supported(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    if (mm_dot(src0->type, true) == NULL || dst->type != GGML_TYPE_F32) {
        return false;
    }
    if (src1->type != GGML_TYPE_F32 && src1->type != GGML_TYPE_F16 && src1->type != GGML_TYPE_BF16) {
        return false;
    }
    if (src0->nb[0] != ggml_type_size(src0->type) || dst->nb[0] != sizeof(float)) {
        return false;
    }
    if (src0->ne[0] != src1->ne[0] || dst->ne[0] != src0->ne[1] || dst->ne[1] != src1->ne[1] ||
        dst->ne[2] != src1->ne[2] || dst->ne[3] != src1->ne[3] ||
        src1->ne[2] % src0->ne[2] != 0 || src1->ne[3] % src0->ne[3] != 0) {
        return false;
    }
    if (ggml_cpu_is_repacked(src0) && ggml_cpu_repack_mm_rows(src0) < 0) {
        return false;
    }
    return src0->ne[0] % ggml_blck_size(mm_act_type(src0->type)) == 0;
}

// Matrix-matrix products go through the F32 GEMM on converted weight panels,
// except Q8_0/Q4_0 weights on CPUs with int8 dot products, which take the
// int8 GEMM (ggml_cpu_mul_mat_q8x). With AVX2 alone (no VNNI) int8 dots with per-block
// scales do not beat F32 FMAs, and the conversion is ~0.2% of the work.
bool ggml_cpu_mm_use_gemm(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const enum ggml_type t = src0->type;
    int64_t min_cols = ggml_is_quantized(t) ? MM_GEMM_MIN_COLS_Q : MM_GEMM_MIN_COLS;
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86() && (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) &&
        !ggml_cpu_is_repacked(src0)) {
        // the few-column tiles (gk-gemv.h) up to here
        min_cols = t == GGML_TYPE_BF16 && ggml_cpu_isa()->use_bf16dp ? MM_GEMM_MIN_COLS_BF16DP : MM_GEMM_MIN_COLS_GEMV;
    }
#endif
    return dst->src[1]->ne[1] >= min_cols;
}

// src1 read in place: dense F32 rows for the dot path
static bool src1_direct(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    return !ggml_cpu_mm_use_gemm(dst) && mm_act_type(src0->type) == GGML_TYPE_F32 && src1->type == GGML_TYPE_F32 &&
           src1->nb[0] == sizeof(float) && !use_bf16_gemv(dst, false);
}

// BF16 weights, many columns, a CPU with AVX512-BF16: the activations are
// rounded to BF16 (upstream's vec_dot_type for BF16) and the GEMM runs on
// VDPBF16PS (gemm-bf16-avx512.c)
static bool use_bf16_gemm(const struct ggml_tensor * dst, bool ref) {
#if defined(__x86_64__)
    const struct ggml_tensor * src0 = dst->src[0];
    return !ref && ggml_cpu_isa()->use_bf16dp && src0->type == GGML_TYPE_BF16 && ggml_cpu_mm_use_gemm(dst) &&
           src0->ne[0] % 2 == 0 && !ggml_cpu_is_repacked(src0);
#else
    (void) dst;
    (void) ref;
    return false;
#endif
}

static bool use_bf16_gemv(const struct ggml_tensor * dst, bool ref) {
#if defined(__x86_64__)
    const struct ggml_tensor * src0 = dst->src[0];
    return !ref && ggml_cpu_isa()->use_bf16dp && src0->type == GGML_TYPE_BF16 && !ggml_cpu_mm_use_gemm(dst) &&
           !ggml_cpu_is_repacked(src0);
#else
    (void) dst;
    (void) ref;
    return false;
#endif
}

// F32, F16 and BF16 weights (BF16: where the BF16 GEMM does not take
// them), many columns, a CPU with AVX512F: the weights are packed into F32
// panels of 32 rows per K value and the GEMM runs on 512-bit FMAs
// (gemm-f32-avx512.c); the activations as for the F32 GEMM
#if defined(__x86_64__)
static bool use_f32p_gemm(const struct ggml_tensor * dst, bool ref) {
    const enum ggml_type t = dst->src[0]->type;
    return !ref && ggml_cpu_isa()->use_avx512f && ggml_cpu_mm_use_gemm(dst) && !use_bf16_gemm(dst, ref) &&
           (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) && !ggml_cpu_is_repacked(dst->src[0]);
}
#endif

bool ggml_cpu_mul_mat_act_form(const struct ggml_tensor * dst, bool ref, int * form, int64_t * n_values) {
    const struct ggml_tensor * src1 = dst->src[1];
    *n_values = src1->ne[0] * ggml_nrows(src1);
    struct q8x_kernels k;
    if (!ref && ggml_cpu_mm_q8x_possible(dst) && ggml_cpu_mm_q8x_kernels(dst->src[0]->type, ggml_cpu_mm_rp_kquant(dst), &k)) {
        // Q8_0x blocks whose corr holds the weights' offset (Q4_K and the
        // unpack types with offsets: the blocks' sums after them; Q6_K: the
        // halves' offsets)
        *form = (k.half ? 0x50000 : k.ext == 2 ? 0x60000 : k.ext == 1 ? 0x40000 : 0x10000) + k.off;
        return true;
    }
    if (src1_direct(dst)) {
        *form = 0;
        return false;
    }
    *form = use_bf16_gemm(dst, ref) ? 0x70000 + GGML_TYPE_BF16 :
            use_bf16_gemv(dst, ref) ? 0x80000 + GGML_TYPE_BF16 :
            (ggml_cpu_mm_use_gemm(dst) ? 0x20000 : 0x30000) + (int) mm_act_type(dst->src[0]->type);
    return true;
}

size_t ggml_cpu_mul_mat_work_shared(const struct ggml_tensor * dst, int n_threads) {
    (void) n_threads;
    if (src1_direct(dst)) {
        return 0;
    }
    const struct ggml_tensor * src1 = dst->src[1];
    const enum ggml_type act = ggml_cpu_mm_use_gemm(dst) ? GGML_TYPE_F32 : mm_act_type(dst->src[0]->type);
    size_t rs = ggml_row_size(act, src1->ne[0]);
    if (ggml_cpu_mm_q8x_possible(dst)) {
        // Q8_0x blocks (half: each block twice), then per block what the
        // kernels read after all rows (act_ext): two int32 with ext 2, else
        // room for a float sum
        struct q8x_kernels k;
        if (ggml_cpu_mm_q8x_kernels(dst->src[0]->type, ggml_cpu_mm_rp_kquant(dst), &k)) {
            const size_t ext = k.ext == 2 ? 2 * sizeof(int32_t) : sizeof(float);
            const size_t rsq = (size_t) (src1->ne[0] / GK_QK8_0 * (k.half ? 2 : 1)) * (sizeof(gk_block_q8_0x) + ext);
            rs = rs > rsq ? rs : rsq;
        }
    }
    return rs * (size_t) ggml_nrows(src1) + GGML_CPU_CACHE_LINE;
}

#if defined(__x86_64__)
// BF16 matrix-vector products read the activation reordered
// (gk_bf16p_pack_y_avx2), packed once per thread and batch
static bool bf16_packed_y(const struct ggml_tensor * dst, bool ref) {
    return !ref && ggml_cpu_fast_x86() && dst->src[0]->type == GGML_TYPE_BF16 && dst->src[1]->ne[1] == 1;
}
#endif

size_t ggml_cpu_mul_mat_work_per_thread(const struct ggml_tensor * dst) {
    size_t q8 = 0;
    if (ggml_cpu_is_repacked(dst->src[0])) {
        // one weight row unpacked (the portable dots)
        q8 = ggml_row_size(dst->src[0]->type, dst->src[0]->ne[0]) + GGML_CPU_CACHE_LINE;
    }
    if (ggml_cpu_mm_q8x_possible(dst)) {
        // one packed tile: bytes, then the float scales (also room for the
        // float staging of non-F32 activations, MM_KC_Q8 blocks)
        // (and the mins of a K-quant tile: another float per row and block)
        const size_t t = (size_t) ggml_cpu_mm_kc_q8(dst) * GK_GEMM_MR * (GK_QK8_0 + 2 * sizeof(float)) + GGML_CPU_CACHE_LINE;
        q8 = q8 > t ? q8 : t;
    }
    if (ggml_cpu_mm_q8x_gemv1(dst)) {
        // the one column repacked (kn.gemv1)
        const size_t t = gk_q4v_y_size(dst->src[0]->ne[0]) + GGML_CPU_CACHE_LINE;
        q8 = q8 > t ? q8 : t;
    }
    if (!ggml_cpu_mm_use_gemm(dst)) {
        // room for one reordered activation row (BF16 dot path)
        const size_t bf16 = dst->src[0]->type == GGML_TYPE_BF16 && dst->src[1]->ne[1] == 1 ?
                            (size_t) dst->src[0]->ne[0] * sizeof(float) + GGML_CPU_CACHE_LINE : 0;
        return bf16 > q8 ? bf16 : q8;
    }
    const int64_t kc = dst->src[0]->ne[0] < MM_KC ? dst->src[0]->ne[0] : MM_KC;
    const size_t f32 = (size_t) MM_MB * (size_t) kc * sizeof(float) + GGML_CPU_CACHE_LINE;
    return f32 > q8 ? f32 : q8;
}

// ---------------------------------------------------------------------------
// compute
// ---------------------------------------------------------------------------

// blocks (of the type) [b0, b0 + nb) of row ir of a repacked weight slice
// w (rows nb01 apart, ir in a full group) in the plain layout, at out
void ggml_cpu_mm_rp_row(enum ggml_type type, const char * w, size_t nb01, int64_t ir, int64_t b0, int64_t nb, void * out) {
    const char * grp = w + (ir - ir % GK_RP_ROWS) * (int64_t) nb01;
    const int r = (int) (ir % GK_RP_ROWS);
    switch (type) {
        case GGML_TYPE_Q8_0: gk_repack_row_q8_0(grp, r, b0, nb, out); break;
        case GGML_TYPE_Q4_0: gk_repack_row_q4_0(grp, r, b0, nb, out); break;
        case GGML_TYPE_Q4_K: gk_repack_row_q4_K(grp, r, b0, nb, out); break;
        default: gk_repack_row_q6_K(grp, r, b0, nb, out); break;
    }
}


// values [k0, k0 + n) of a weight row as F32 (k0 and n whole blocks)
static void weights_to_f32(enum ggml_type type, const char * row, int64_t k0, int64_t n, float * out, bool ref) {
    ggml_cpu_row_to_f32(type, row + ggml_row_size(type, k0), out, n, ref);
}

void ggml_cpu_mul_mat(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    GGML_TENSOR_BINARY_OP_LOCALS

    const bool ref = params->ref;
    const enum ggml_type act = mm_act_type(src0->type);
    const bool direct = src1_direct(dst);
    const bool bf16v = use_bf16_gemv(dst, ref);

    if (!ref && ggml_cpu_mm_q8x_possible(dst)) {
        ggml_cpu_mul_mat_q8x(params, dst);
        return;
    }

    // 1. activations
    const char * a_base;
    size_t a_rs, a_nb1, a_nb2, a_nb3;
    if (direct) {
        a_base = src1->data;
        a_rs = 0;
        a_nb1 = nb11;
        a_nb2 = nb12;
        a_nb3 = nb13;
    } else {
        a_rs = ggml_row_size(bf16v ? GGML_TYPE_BF16 : act, ne10);
        a_nb1 = a_rs;
        a_nb2 = a_rs * (size_t) ne11;
        a_nb3 = a_nb2 * (size_t) ne12;
        char * wd = params->wdata;
        a_base = wd;
        const int64_t nr = ne11 * ne12 * ne13;
        int64_t ra, rb;
        struct ggml_cpu_act_iter ai;
        ggml_cpu_act_begin(params, nr, &ai);
        const bool packed = ggml_cpu_mm_use_gemm(dst);
        const bool bf16 = use_bf16_gemm(dst, ref);
        while (ggml_cpu_act_next(params, &ai, &ra, &rb)) {
            for (int64_t r = ra; r < rb; r++) {
                int64_t i11;
                const char * s = mm_src1_row(src1, r, &i11);
                char * d = wd + (size_t) r * a_rs;
                if (packed && bf16) {
                    // the same layout, rounded to BF16
                    uint16_t * base = (uint16_t *) wd + (size_t) (r - i11) * (size_t) ne10;
                    for (int64_t k0 = 0; k0 < ne10; k0 += MM_KC_BF16) {
                        const int64_t kcb = k0 + MM_KC_BF16 < ne10 ? MM_KC_BF16 : ne10 - k0;
                        uint16_t * o = base + k0 * ne11 + i11 * kcb;
                        if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                            ggml_cpu_fp32_to_bf16((const float *) s + k0, (ggml_bf16_t *) o, kcb);
                        } else if (src1->type == GGML_TYPE_BF16 && nb10 == sizeof(uint16_t)) {
                            memcpy(o, (const uint16_t *) s + k0, (size_t) kcb * sizeof(uint16_t));
                        } else {
                            for (int64_t k = 0; k < kcb; k++) {
                                const float f = mm_src1_at(src1, s, k0 + k);
                                ggml_cpu_fp32_to_bf16(&f, (ggml_bf16_t *) o + k, 1);
                            }
                        }
                    }
                    continue;
                }
                if (bf16v) {
                    // BF16 rows for gemv_bf16_bf16
                    if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                        ggml_cpu_fp32_to_bf16((const float *) s, (ggml_bf16_t *) d, ne10);
                    } else if (src1->type == GGML_TYPE_BF16 && nb10 == sizeof(uint16_t)) {
                        memcpy(d, s, (size_t) ne10 * sizeof(uint16_t));
                    } else {
                        for (int64_t k = 0; k < ne10; k++) {
                            const float f = mm_src1_at(src1, s, k);
                            ggml_cpu_fp32_to_bf16(&f, (ggml_bf16_t *) d + k, 1);
                        }
                    }
                    continue;
                }
                if (packed) {
                    // GEMM layout: per batch, per block of MM_KC values of k, a dense
                    // [ne11][kcb] matrix, so that a block of columns is contiguous
                    float * base = (float *) wd + (size_t) (r - i11) * (size_t) ne10;
                    for (int64_t k0 = 0; k0 < ne10; k0 += MM_KC) {
                        const int64_t kcb = k0 + MM_KC < ne10 ? MM_KC : ne10 - k0;
                        float * o = base + k0 * ne11 + i11 * kcb;
                        mm_src1_to_f32(src1, s, k0, kcb, o, ref);
                    }
                    continue;
                }
                if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                    if (act != GGML_TYPE_F32) {
                        ggml_cpu_quantize_act(act, (const float *) s, d, ne10, ref);
                    } else {
                        // (dense F32 rows not read in place: the reference
                        // path where the fast one takes BF16 rows)
                        memcpy(d, s, (size_t) ne10 * sizeof(float));
                    }
                } else {
                    // F16/BF16 or strided src1: straight into the F32 row, or one
                    // block at a time into the Q8 row
                    if (act == GGML_TYPE_F32) {
                        mm_src1_to_f32(src1, s, 0, ne10, (float *) d, ref);
                    } else {
                        const int64_t bs = ggml_blck_size(act);
                        float blk[256];
                        for (int64_t b = 0; b < ne10 / bs; b++) {
                            for (int64_t k = 0; k < bs; k++) {
                                blk[k] = mm_src1_at(src1, s, b * bs + k);
                            }
                            ggml_cpu_quantize_act(act, blk, d + (size_t) b * ggml_row_size(act, bs), bs, ref);
                        }
                    }
                }
            }
        }
        if (params->act != GGML_CPU_ACT_REUSE) {
            ggml_cpu_act_sync(params);
        }
    }

    const int64_t nbatch = ne12 * ne13;

    if (!ggml_cpu_mm_use_gemm(dst)) {
        // 2a. dot path: chunks of MM_DOT_ROWS weight rows x all columns of one batch
        const mm_dot_fn dot = mm_dot(src0->type, ref);
        // repacked weights (here only on the reference path or without int8
        // kernels): rows [0, nrg) are unpacked one at a time into the scratch
        const int64_t nrg = ggml_cpu_is_repacked(src0) ? ggml_cpu_repack_mm_rows(src0) : 0;
        const mm_dot4_fn dot4 = nrg > 0 ? NULL : mm_dot4(src0->type, ne00, ref);
        void * wrow = nrg > 0 ? ggml_cpu_thread_scratch(params, dst) : NULL;
#if defined(__x86_64__)
        float * yp = bf16_packed_y(dst, ref) ? ggml_cpu_thread_scratch(params, dst) : NULL;
        int64_t yp_col = -1; // the column (with its batch) packed in yp
#endif
        // few-column tiles (gk-gemv.h) where the activation columns and the
        // destination columns are whole elements apart
        const size_t aes = bf16v ? sizeof(uint16_t) : sizeof(float);
        gk_gemv1_fn gemv1 = NULL;
        const mm_gemv_fn gemv =
            nrg == 0 && a_nb1 % aes == 0 && nb1 % sizeof(float) == 0 ? mm_gemv(dst, ref, &gemv1) : NULL;
        if (gemv1 && ne11 == 1) {
            // One column: the rows in blocks of MM_GEMV1_ROWS; a chunk is up
            // to GK_GEMV_STREAMS blocks span blocks apart, read in the same
            // loop (several memory streams per thread, as the repacked
            // groups above)
            const int64_t nbl = (ne01 + MM_GEMV1_ROWS - 1) / MM_GEMV1_ROWS;
            const int64_t span = (nbl + GK_GEMV_STREAMS - 1) / GK_GEMV_STREAMS;
            struct ggml_cpu_chunk_iter ci;
            ggml_cpu_chunk_begin(params, span * nbatch, &ci);
            for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
                const struct mm_chunk k = mm_chunk_at(dst, c / span, 1, ne01);
                const void * y = a_base + k.i12 * a_nb2 + k.i13 * a_nb3;
                const void * wb[GK_GEMV_STREAMS];
                float * db[GK_GEMV_STREAMS];
                int nb = 0;
                for (int64_t g = c % span; g < nbl; g += span) {
                    const int64_t r0 = g * MM_GEMV1_ROWS;
                    const void * wr = k.w + r0 * (int64_t) nb01;
                    float * dr = k.d + r0;
                    if (r0 + MM_GEMV1_ROWS > ne01) {
                        // the last block, short: alone
                        gemv1(ne00, 1, &wr, nb01, (int) (ne01 - r0), y, &dr);
                        continue;
                    }
                    wb[nb] = wr;
                    db[nb] = dr;
                    nb++;
                }
                if (nb > 0) {
                    gemv1(ne00, nb, wb, nb01, MM_GEMV1_ROWS, y, db);
                }
            }
            return;
        }
        const mm_dot4s_fn dot4s = nrg == 0 && ne11 == 1 ? mm_dot4s(src0->type, ne00, ref) : NULL;
        if (dot4s) {
            // One column: the rows in blocks of MM_DOT4S_ROWS; a chunk is
            // the four blocks span blocks apart (four streams, row j of each
            // per call); where the four are not all there and full, the
            // blocks' rows one at a time
            const int64_t nbl = (ne01 + MM_DOT4S_ROWS - 1) / MM_DOT4S_ROWS;
            const int64_t span = (nbl + 3) / 4;
            struct ggml_cpu_chunk_iter ci;
            ggml_cpu_chunk_begin(params, span * nbatch, &ci);
            for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
                const struct mm_chunk k = mm_chunk_at(dst, c / span, 1, ne01);
                const void * y = a_base + k.i12 * a_nb2 + k.i13 * a_nb3;
                const int64_t g = c % span, r0 = g * MM_DOT4S_ROWS;
                if ((g + 3 * span + 1) * MM_DOT4S_ROWS <= ne01) {
                    const size_t bx = (size_t) (span * MM_DOT4S_ROWS) * nb01;
                    for (int64_t j = 0; j < MM_DOT4S_ROWS; j++) {
                        float s4[4];
                        dot4s(ne00, k.w + (r0 + j) * (int64_t) nb01, bx, nb01, y, s4);
                        for (int q = 0; q < 4; q++) {
                            k.d[r0 + j + q * span * MM_DOT4S_ROWS] = s4[q];
                        }
                    }
                    continue;
                }
                for (int64_t b = g; b < nbl; b += span) {
                    const int64_t ra = b * MM_DOT4S_ROWS, rb = ra + MM_DOT4S_ROWS < ne01 ? ra + MM_DOT4S_ROWS : ne01;
                    for (int64_t ir = ra; ir < rb; ir++) {
                        k.d[ir] = dot(ne00, k.w + ir * (int64_t) nb01, y);
                    }
                }
            }
            return;
        }
        const int64_t nrb = (ne01 + MM_DOT_ROWS - 1) / MM_DOT_ROWS;
        const int64_t nchunks = nrb * nbatch;
        struct ggml_cpu_chunk_iter ci;
        ggml_cpu_chunk_begin(params, nchunks, &ci);
        for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
            const struct mm_chunk k = mm_chunk_at(dst, c, nrb, MM_DOT_ROWS);
            const int64_t i12 = k.i12, i13 = k.i13, ir0 = k.ir0, ir1 = k.ir1;
            const char * w = k.w;
            if (gemv) {
                gemv(ne00, w + ir0 * nb01, nb01, (int) (ir1 - ir0), (int) ne11, a_base + i12 * a_nb2 + i13 * a_nb3,
                     (int64_t) (a_nb1 / aes), k.d + ir0, (int64_t) (nb1 / sizeof(float)));
                continue;
            }
            // groups of four weight rows, each with every column: the four
            // rows stay in cache while the columns go by
            for (int64_t g0 = ir0; g0 < ir1; g0 += 4) {
                const int64_t g1 = g0 + 4 < ir1 ? g0 + 4 : ir1;
                for (int64_t i11 = 0; i11 < ne11; i11++) {
                    const char * y = a_base + i11 * a_nb1 + i12 * a_nb2 + i13 * a_nb3;
                    float * d = (float *) ((char *) dst->data + i11 * nb1 + i12 * nb2 + i13 * nb3);
#if defined(__x86_64__)
                    if (yp && g1 - g0 == 4) {
                        if (yp_col != i11 + ne11 * k.b) {
                            gk_bf16p_pack_y_avx2(ne00, (const float *) y, yp);
                            yp_col = i11 + ne11 * k.b;
                        }
                        gk_dot4_bf16p_f32_avx2(ne00, (const uint16_t *) (w + g0 * nb01),
                                               (int64_t) (nb01 / sizeof(uint16_t)), yp, d + g0);
                        continue;
                    }
#endif
                    if (dot4 && g1 - g0 == 4) {
                        dot4(ne00, w + g0 * nb01, nb01, y, d + g0);
                        continue;
                    }
                    for (int64_t ir = g0; ir < g1; ir++) {
                        if (ir < nrg) {
                            ggml_cpu_mm_rp_row(src0->type, w, nb01, ir, 0, ne00 / ggml_blck_size(src0->type), wrow);
                            d[ir] = dot(ne00, wrow, y);
                            continue;
                        }
                        d[ir] = dot(ne00, w + ir * nb01, y);
                    }
                }
            }
        }
        return;
    }

#if defined(__x86_64__)
    if (use_bf16_gemm(dst, ref)) {
        // 2c. BF16 GEMM: as 2b, the panel of each 32 rows packed in K pairs
        uint32_t * bp = ggml_cpu_thread_scratch(params, dst);
        const int64_t nrb = (ne01 + MM_MB - 1) / MM_MB;
        const int64_t nchunks = nrb * nbatch;
        const int64_t ldd = (int64_t) (nb1 / sizeof(float));
        struct ggml_cpu_chunk_iter ci;
        ggml_cpu_chunk_begin(params, nchunks, &ci);
        for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
            const struct mm_chunk k = mm_chunk_at(dst, c, nrb, MM_MB);
            const int64_t b = k.b, ir0 = k.ir0, ir1 = k.ir1;
            const uint16_t * w = (const uint16_t *) (k.w);
            const int64_t ldw = (int64_t) (nb01 / sizeof(uint16_t));
            const uint16_t * xb = (const uint16_t *) a_base + (size_t) b * (size_t) ne11 * (size_t) ne10;
            float * d = k.d;
            mm_zero_rows(d, ldd, ne11, ir0, ir1);
            for (int64_t k0 = 0; k0 < ne00; k0 += MM_KC_BF16) {
                const int64_t kc = k0 + MM_KC_BF16 < ne00 ? MM_KC_BF16 : ne00 - k0;
                for (int64_t s0 = ir0; s0 < ir1; s0 += 32) {
                    const int nr = (int) (s0 + 32 < ir1 ? 32 : ir1 - s0);
                    gk_bf16_pack_panel_avx512bf16(w + s0 * ldw + k0, ldw, nr, (int) kc,
                                                  bp + (s0 - ir0) * (kc / 2));
                }
                const uint16_t * xk = xb + k0 * ne11;
                // prefetched while the tiles run, as in 2d: during the first
                // block of columns the rows' next K block, during the first
                // panel of each further block the next block of columns or
                // the next K block's first
                const int64_t kn = ne00 - (k0 + kc) < MM_KC_BF16 ? ne00 - (k0 + kc) : MM_KC_BF16;
                for (int64_t ic0 = 0; ic0 < ne11; ic0 += MM_NB) {
                    const int64_t ic1 = ic0 + MM_NB < ne11 ? ic0 + MM_NB : ne11;
                    const uint16_t * an = ic1 < ne11 ? xk + ic1 * kc : kn > 0 ? xb + (k0 + kc) * ne11 : NULL;
                    const int64_t anc = ic1 < ne11 ? ne11 - ic1 : ne11, ank = ic1 < ne11 ? kc : kn;
                    for (int64_t s0 = ir0; s0 < ir1; s0 += 32) {
                        const int nr = (int) (s0 + 32 < ir1 ? 32 : ir1 - s0);
                        const void * pf = NULL;
                        int64_t pf_ld = 0;
                        int pf_rows = 0, pf_bytes = 0;
                        if (ic0 == 0 && kn > 0) {
                            pf = w + s0 * ldw + k0 + kc;
                            pf_ld = (int64_t) nb01;
                            pf_rows = nr;
                            pf_bytes = (int) (kn * (int64_t) sizeof(uint16_t));
                        } else if (ic0 > 0 && s0 == ir0 && an) {
                            pf = an;
                            pf_ld = ank * (int64_t) sizeof(uint16_t);
                            pf_rows = (int) (anc < MM_NB ? anc : MM_NB);
                            pf_bytes = (int) pf_ld;
                        }
                        gk_gemm_nt_bf16_avx512bf16((int) (ic1 - ic0), nr, (int) kc, xk + ic0 * kc, kc,
                                                   bp + (s0 - ir0) * (kc / 2), d + ic0 * ldd + s0, ldd, pf, pf_ld,
                                                   pf_rows, pf_bytes);
                    }
                }
            }
        }
        return;
    }

    if (use_f32p_gemm(dst, ref)) {
        // 2d. F32 GEMM on 512-bit FMAs: as 2b, the rows of each K block
        // packed (and widened) 32 at a time into panels of one vector pair
        // per K value
        _Static_assert(MM_MB % 32 == 0, "whole panels per chunk");
        float * fp = ggml_cpu_thread_scratch(params, dst);
        const size_t es = ggml_type_size(src0->type);
        const int64_t nrb = (ne01 + MM_MB - 1) / MM_MB;
        const int64_t nchunks = nrb * nbatch;
        const int64_t ldd = (int64_t) (nb1 / sizeof(float));
        struct ggml_cpu_chunk_iter ci;
        ggml_cpu_chunk_begin(params, nchunks, &ci);
        for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
            const struct mm_chunk k = mm_chunk_at(dst, c, nrb, MM_MB);
            const int64_t b = k.b, ir0 = k.ir0, ir1 = k.ir1;
            const char * w = k.w;
            const int64_t ldw = (int64_t) (nb01 / es);
            const float * xb = (const float *) a_base + (size_t) b * (size_t) ne11 * (size_t) ne10;
            float * d = k.d;
            mm_zero_rows(d, ldd, ne11, ir0, ir1);
            for (int64_t k0 = 0; k0 < ne00; k0 += MM_KC) {
                const int64_t kc = k0 + MM_KC < ne00 ? MM_KC : ne00 - k0;
                for (int64_t s0 = ir0; s0 < ir1; s0 += 32) {
                    const int nr = (int) (s0 + 32 < ir1 ? 32 : ir1 - s0);
                    const char * ws = w + (size_t) s0 * nb01 + (size_t) k0 * es;
                    float * o = fp + (s0 - ir0) * kc;
                    if (src0->type == GGML_TYPE_F32) {
                        gk_f32_pack_panel_avx512((const float *) ws, ldw, nr, (int) kc, o);
                    } else if (src0->type == GGML_TYPE_F16) {
                        gk_f16_pack_panel_avx512((const uint16_t *) ws, ldw, nr, (int) kc, o);
                    } else {
                        gk_bf16_pack_panel_avx512((const uint16_t *) ws, ldw, nr, (int) kc, o);
                    }
                }
                const float * xk = xb + k0 * ne11;
                // prefetched while the tiles run: during the first block of
                // columns the rows' next K block (it is packed next); during
                // the first panel of each further block the next block of
                // columns, or the next K block's first (with one block of
                // columns, they stay in L2 between K blocks)
                const int64_t kn = ne00 - (k0 + kc) < MM_KC ? ne00 - (k0 + kc) : MM_KC;
                for (int64_t ic0 = 0; ic0 < ne11; ic0 += MM_NB) {
                    const int64_t ic1 = ic0 + MM_NB < ne11 ? ic0 + MM_NB : ne11;
                    const float * an = ic1 < ne11 ? xk + ic1 * kc : kn > 0 ? xb + (k0 + kc) * ne11 : NULL;
                    const int64_t anc = ic1 < ne11 ? ne11 - ic1 : ne11, ank = ic1 < ne11 ? kc : kn;
                    for (int64_t s0 = ir0; s0 < ir1; s0 += 32) {
                        const int nr = (int) (s0 + 32 < ir1 ? 32 : ir1 - s0);
                        const void * pf = NULL;
                        int64_t pf_ld = 0;
                        int pf_rows = 0, pf_bytes = 0;
                        if (ic0 == 0 && kn > 0) {
                            pf = w + (size_t) s0 * nb01 + (size_t) (k0 + kc) * es;
                            pf_ld = (int64_t) nb01;
                            pf_rows = nr;
                            pf_bytes = (int) (kn * (int64_t) es);
                        } else if (ic0 > 0 && s0 == ir0 && an) {
                            pf = an;
                            pf_ld = ank * (int64_t) sizeof(float);
                            pf_rows = (int) (anc < MM_NB ? anc : MM_NB);
                            pf_bytes = (int) pf_ld;
                        }
                        gk_gemm_nt_f32p_avx512((int) (ic1 - ic0), nr, (int) kc, xk + ic0 * kc, kc,
                                               fp + (s0 - ir0) * kc, d + ic0 * ldd + s0, ldd, pf, pf_ld, pf_rows,
                                               pf_bytes);
                    }
                }
            }
        }
        return;
    }
#endif

    // 2b. GEMM path (float weights): a chunk is MM_MB weight rows of one batch
    // with every column; per block of K, the weight rows are packed into the
    // thread's F32 panel, then multiplied with each block of MM_NB packed
    // activation columns.
    float * panel = ggml_cpu_thread_scratch(params, dst);
    const int64_t nrg = ggml_cpu_is_repacked(src0) ? ggml_cpu_repack_mm_rows(src0) : 0;
    const int64_t nrb = (ne01 + MM_MB - 1) / MM_MB;
    const int64_t nchunks = nrb * nbatch;
    const int64_t ldd = (int64_t) (nb1 / sizeof(float));
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nchunks, &ci);
    for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
        const struct mm_chunk k = mm_chunk_at(dst, c, nrb, MM_MB);
        const int64_t b = k.b, ir0 = k.ir0, ir1 = k.ir1;
        const char * w = k.w;
        const float * xb = (const float *) a_base + (size_t) b * (size_t) ne11 * (size_t) ne10;
        float * d = k.d;
        mm_zero_rows(d, ldd, ne11, ir0, ir1);
        for (int64_t k0 = 0; k0 < ne00; k0 += MM_KC) {
            const int64_t kc = k0 + MM_KC < ne00 ? MM_KC : ne00 - k0;
            for (int64_t ir = ir0; ir < ir1; ir++) {
                if (ir < nrg) {
                    // room for the blocks of every repacked type (MM_KC values)
                    gk_block_q8_0 blk[MM_KC / GK_QK8_0];
                    _Static_assert(sizeof(blk) >= sizeof(gk_block_q6_K) * (MM_KC / GK_QK_K), "rp_row room");
                    const int64_t bs = ggml_blck_size(src0->type);
                    ggml_cpu_mm_rp_row(src0->type, w, nb01, ir, k0 / bs, kc / bs, blk);
                    ggml_cpu_row_to_f32(src0->type, blk, panel + (ir - ir0) * kc, kc, ref);
                    continue;
                }
                weights_to_f32(src0->type, w + ir * nb01, k0, kc, panel + (ir - ir0) * kc, ref);
            }
            const float * xk = xb + k0 * ne11;
            for (int64_t ic0 = 0; ic0 < ne11; ic0 += MM_NB) {
                const int64_t ic1 = ic0 + MM_NB < ne11 ? ic0 + MM_NB : ne11;
                // C[j, i] += X[j] . W[i]: X rows are the "A" operand (m = columns)
                gemm_nt(ref, (int) (ic1 - ic0), (int) (ir1 - ir0), (int) kc,
                        xk + ic0 * kc, kc, panel, kc, d + ic0 * ldd + ir0, ldd);
            }
        }
    }
}
