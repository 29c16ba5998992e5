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
 *    x86-64, SDOT on arm64) take mul_mat_q8x instead: activations as Q8_0x
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
#include "cpu-quant-types.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-gemv.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-quant-ext.h"
#include "kernels/gk-repack.h"
#include "kernels/gk-vec.h"

#include <string.h>

// GEMM blocking: weight rows per chunk (multiple of 3 and 4), columns per
// chunk, K values per panel.
#define MM_MB 96
#define MM_NB 64
#define MM_KC 256
// K values per panel of the BF16 GEMM (2c): its panels hold 2 bytes a
// value, so twice as many fit the room (and the caches) F32 panels take
#define MM_KC_BF16 512
_Static_assert(MM_KC_BF16 * 2 <= MM_KC * 4, "a BF16 panel fits the thread's scratch");
// columns from which float weights take the GEMM path (the portable and
// NEON kernels)
#define MM_GEMM_MIN_COLS 16
// the same on x86-64 (AVX2 and AVX-512), where fewer columns take the
// few-column tiles (gk-gemv.h); BF16 with AVX512-BF16 on VDPBF16PS. One
// thread, CPU time, tiles / GEMM, 4096 x 4096 (Zen 4; AVX2 with
// GGML_CPU_DISABLE=avx512): AVX-512 F32 n = 16 6.8 / 9.6 ms, 32 12.3 /
// 14.4, 48 19.0 / 19.5, 64 23.4 / 25.4, 128 47 / 46; F16 n = 64 22.9 /
// 23.4, 128 45 / 45; BF16 (VDPBF16PS both) n = 32 6.2 / 7.1, 64 11.6 /
// 12.1, 96 17.0 / 17.4, 128 22.8 / 22.3, 192 34.5 / 32.3; AVX2 F32 n = 64
// 26.4 / 30.3, 96 38 / 42, F16 64 24 / 28.5, BF16 64 28 / 29.6, 96 42 /
// 42. 4096 x 14336, n = 64: AVX-512 F32 86 / 90, F16 78 / 86, BF16 41 /
// 44 (n = 128: 81.7 / 80.5); AVX2 F32 98 / 120, F16 87 / 106, BF16 96 /
// 109.
#define MM_GEMM_MIN_COLS_GEMV 64
#define MM_GEMM_MIN_COLS_BF16DP 128
#define MM_GEMM_MIN_COLS_Q 32
// columns from which Q8_0/Q4_0 weights take the int8 GEMM (VNNI/SDOT; at 2-3
// columns the multi-row dots are on par with it, measured), and its K step
// in blocks of 32 (a 16-row tile of 1024 values is 16 KiB + 2 KiB)
#define MM_GEMM_MIN_COLS_Q8 4
// the same for Q8_0 and Q4_0 with VNNI, whose eight-row dots take up to
// GK_DOT8_COLS (4) columns per pass over the weights (gk_dot8c_*): one
// thread, CPU time, medians of 4-5 alternating bench-ops runs (Zen 5,
// noisy host), dots / GEMM: Q8_0 n = 2 2048 x 2048 0.22 / 0.54 ms, 4096 x
// 4096 0.91 / 1.54, 4096 x 14336 2.7 / 4.4; n = 3 4096 x 14336 3.4 / 4.6;
// n = 4 2048 x 2048 0.31 / 0.51, 4096 x 4096 1.22 / 1.46, 4096 x 14336 3.9
// / 4.9; n = 5 (4 + 1 columns) 2048 x 2048 0.48 / 0.52, 4096 x 4096 1.78 /
// 1.51, 4096 x 14336 5.6 / 5.2. Q4_0 n = 4 4096 x 4096 0.92 / 1.45, 4096 x
// 14336 2.9 / 4.1; n = 5 1.40 / 1.51 and 4.33 / 4.31, n = 8 1.73 / 1.84
// and 5.3 / 5.0. (Until November 2026 the dots took one column per pass,
// and Q8_0 took the GEMM from 2 columns.)
#define MM_GEMM_MIN_COLS_Q8_0_VNNI 5
#define MM_GEMM_MIN_COLS_Q4_0_VNNI 5
#define MM_KC_Q8 32
// columns from which plain Q4_K / Q6_K weights take the int8 GEMM on
// repacked groups, each 16-row tile repacked per K step into the thread's
// scratch (below: the one-row dots with Q8_K activations, which read the
// weights once without packing). 4096 x 4096, one thread, CPU time, dots
// against GEMM: VNNI Q4_K n = 2 0.75-0.9 ms vs 1.06-1.38, n = 3 1.5-1.9
// vs 1.16-1.46, n = 4 1.9-2.6 vs 1.37; Q6_K n = 3 1.78 vs 1.67-2.15, n = 4
// 2.1-2.2 vs 1.85-1.96; AVX2 alone at n = 4 on par, n = 8 Q4_K 3.5 vs 2.7,
// Q6_K 4.3 vs 3.3
#define MM_GEMM_MIN_COLS_QK 3
#define MM_GEMM_MIN_COLS_Q6K 4
// the same for the types packed through their unpack function (portable
// unpacking per tile, paid back over the columns; 4096 x 4096, one thread,
// CPU time, against their one-row dots: n = 32 Q5_K 39.0 -> 28.5 ms, Q4_1
// 28.7 -> 23.8; n = 512 2.2-3.2x), and for those with tile blocks of 16
// values (half-empty: Q2_K/Q3_K n = 128 0.85/1.03x, 256 0.98/1.25x, 512
// 1.61/1.53x; with AVX2 alone 2x slower at every n, so not taken there)
#define MM_GEMM_MIN_COLS_UNPACK 32
#define MM_GEMM_MIN_COLS_UNPACK_HALF 256
// columns up to which the int8 GEMM runs one weight tile over all of K
#define MM_Q8_TILE_OUTER_COLS 32
// weight rows per chunk on the dot path
#define MM_DOT_ROWS 16
// weight rows per block of a one-column float product (gk_gemv1_*): a
// chunk is GK_GEMV_STREAMS blocks far apart
#ifndef MM_GEMV1_ROWS
#define MM_GEMV1_ROWS 16
#endif
// Repacked groups per chunk of a one-column product (kn.rp_gemv,
// kn.rp_gemv_k), ngr / MM_RP_STREAMS groups apart, read in the same loop.
// On Zen 5 a thread reading one sequential stream gets ~28 GB/s, four far
// apart ~34 (a 512 MiB sum). bench-ops -n 1 -R --cpu-time, repacked, three
// alternating runs, 1 / 4 / 8 groups: 4096 x 14336 Q8_0 1T 2264-3072 /
// 1783-1878 / 1751-1805 us, 2T 1243-1477 / 701-1044 / 894-968; Q4_0 1T
// 1025-1747 / 863-1034 / 1086-1113, 2T 410-990 / 484-560 / 542-616;
// 14336 x 4096 alike. Q4_K / Q6_K, 1 -> 4 groups (medians of five
// alternated runs, busy machine): 4096 x 14336 1T 1645 -> 1038 / 2801 ->
// 1690 us, 2T 426-861 -> 272-711 / 1490 -> 763; 14336 x 4096 1T 1663 ->
// 1146 / 2781 -> 1641, 2T 888 -> 583 / 1570 -> 928.
#ifndef MM_RP_STREAMS
#define MM_RP_STREAMS GK_RP_STREAMS
#endif
_Static_assert(MM_RP_STREAMS >= 1 && MM_RP_STREAMS <= GK_RP_STREAMS, "groups per one-column chunk");

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
// int8 GEMM (mul_mat_q8x). With AVX2 alone (no VNNI) int8 dots with per-block
// scales do not beat F32 FMAs, and the conversion is ~0.2% of the work.
static bool use_gemm(const struct ggml_tensor * dst) {
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

// Q8_0/Q4_0 weights on CPUs with int8 dot-product instructions (mul_mat_q8x):
// x86-64 with AVX512-VNNI (use_vnni256: the dots and the GEMM on 512-bit
// VPDPBUSD), arm64 with SDOT. The
// activations become Q8_0x columns; few columns: multi-row dots, from
// MM_GEMM_MIN_COLS_Q8 columns the int8 GEMM on packed 16-row weight tiles.
// Planning does not know whether the reference path will run, so the work
// sizes cover both.
struct q8x_kernels {
    void (*quant)(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off);
    int32_t off;    // the weights' offset, undone by the activations' corr
    // (dot_rows rows per dot call at most; pack/gemm may be NULL)
    void (*dot)(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
    int dot_rows;   // rows per dot call (at most)
    // or NULL: dot with several activation rows at once (ys blocks apart,
    // results ss floats apart), which reads the weights once for them
    void (*dotc)(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, int64_t ys, int ncols,
                 float * s, int64_t ss);
    void (*pack)(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
    void (*gemm)(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                 const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
    // gemm with the groups' offsets times the blocks' sums added per block
    // (set for the offs types, which take it instead of gemm)
    void (*gemm_min)(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows, int ncols,
                     const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c, int64_t ldc);
    gk_rp_gemm_fn rp_gemm; // the GEMM on repacked groups, read in place
    gk_rp_gemv_fn rp_gemv; // one column on several groups at once (may be NULL)
    // tile blocks of 16 values (and 16 zeros): each activation block is
    // stored twice, and the sums are of its halves (unpack types)
    bool half;
    // Q4_K/Q6_K (all other kernels NULL): the GEMM on their groups, read in
    // place where the weights are repacked; rows outside full groups (all
    // rows of plain weights) are repacked by repack into a group in the
    // thread's scratch per K step
    gk_rp_gemm_k_fn rp_gemm_k;
    gk_rp_gemv_k_fn rp_gemv_k; // one column on several groups at once (may be NULL)
    void (*repack)(const void * src, size_t bx, int nrows, int64_t nsb, void * dst);
    // what follows the activation rows: 0 nothing, 1 the float sums of the
    // blocks (K-quant mins), 2 two int32 per block, -32 * the sums of its
    // halves (Q6_K)
    int ext;
    // the other types with an unpack function: their tiles packed through
    // it (gk_pack_unpack; pack NULL), values stored + shift
    gk_unpack_fn unpack;
    int shift;
    bool offs; // groups with offsets: wmin, added by gemm_min
};

// Types whose prefill takes the int8 GEMM through their unpack function:
// half when their groups of 16 have scales of their own (tile blocks of 16
// values), neg when their values go below 0 (stored + 128 for VPDPBUSD),
// offs when their groups have offsets (gemm_min adds them times the activation
// blocks' sums)
struct mm_unpack {
    gk_unpack_fn f;
    bool half, neg, offs;
};

static bool mm_unpack_type(enum ggml_type t, struct mm_unpack * u) {
    switch (t) {
        case GGML_TYPE_Q4_1:   *u = (struct mm_unpack) { gk_unpack_q4_1,   false, false, true  }; return true;
        case GGML_TYPE_Q5_0:   *u = (struct mm_unpack) { gk_unpack_q5_0,   false, true,  false }; return true;
        case GGML_TYPE_Q5_1:   *u = (struct mm_unpack) { gk_unpack_q5_1,   false, false, true  }; return true;
        case GGML_TYPE_Q2_K:   *u = (struct mm_unpack) { gk_unpack_q2_K,   true,  false, true  }; return true;
        case GGML_TYPE_Q3_K:   *u = (struct mm_unpack) { gk_unpack_q3_K,   true,  true,  false }; return true;
        case GGML_TYPE_Q5_K:   *u = (struct mm_unpack) { gk_unpack_q5_K,   false, false, true  }; return true;
        case GGML_TYPE_IQ4_NL: *u = (struct mm_unpack) { gk_unpack_iq4_nl, false, true,  false }; return true;
        case GGML_TYPE_IQ4_XS: *u = (struct mm_unpack) { gk_unpack_iq4_xs, false, true,  false }; return true;
        case GGML_TYPE_Q1_0:    *u = (struct mm_unpack) { gk_unpack_q1_0,    false, true, false }; return true;
        case GGML_TYPE_Q2_0:    *u = (struct mm_unpack) { gk_unpack_q2_0,    false, true, false }; return true;
        case GGML_TYPE_MXFP4:   *u = (struct mm_unpack) { gk_unpack_mxfp4,   false, true, false }; return true;
        case GGML_TYPE_NVFP4:   *u = (struct mm_unpack) { gk_unpack_nvfp4,   true,  true, false }; return true;
        case GGML_TYPE_TQ1_0:   *u = (struct mm_unpack) { gk_unpack_tq1_0,   false, true, false }; return true;
        case GGML_TYPE_TQ2_0:   *u = (struct mm_unpack) { gk_unpack_tq2_0,   false, true, false }; return true;
        case GGML_TYPE_IQ2_XXS: *u = (struct mm_unpack) { gk_unpack_iq2_xxs, false, true, false }; return true;
        case GGML_TYPE_IQ2_XS:  *u = (struct mm_unpack) { gk_unpack_iq2_xs,  true,  true, false }; return true;
        case GGML_TYPE_IQ2_S:   *u = (struct mm_unpack) { gk_unpack_iq2_s,   true,  true, false }; return true;
        case GGML_TYPE_IQ3_XXS: *u = (struct mm_unpack) { gk_unpack_iq3_xxs, false, true, false }; return true;
        case GGML_TYPE_IQ3_S:   *u = (struct mm_unpack) { gk_unpack_iq3_s,   false, true, false }; return true;
        case GGML_TYPE_IQ1_S:   *u = (struct mm_unpack) { gk_unpack_iq1_s,   false, true, false }; return true;
        case GGML_TYPE_IQ1_M:   *u = (struct mm_unpack) { gk_unpack_iq1_m,   true,  true, false }; return true;
        default: return false;
    }
}

// Q4_K/Q6_K weights that take the int8 GEMM on repacked groups: in a
// repacking buffer at every column count, plain from MM_GEMM_MIN_COLS_QK /
// _Q6K columns (below: the one-row dots with Q8_K activations, mm_dot)
static bool rp_kquant(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    if (src0->type != GGML_TYPE_Q4_K && src0->type != GGML_TYPE_Q6_K) {
        return false;
    }
    const int64_t min_cols = src0->type == GGML_TYPE_Q6_K ? MM_GEMM_MIN_COLS_Q6K : MM_GEMM_MIN_COLS_QK;
    return ggml_cpu_is_repacked(src0) || dst->src[1]->ne[1] >= min_cols;
}

// the int8 kernels for this weight type on this CPU, or false (rp: a
// Q4_K/Q6_K product that takes them, rp_kquant)
static bool q8x_kernels(enum ggml_type t, bool rp, struct q8x_kernels * k) {
    const bool q4 = t == GGML_TYPE_Q4_0;
    if (t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K) {
        const bool q6 = t == GGML_TYPE_Q6_K;
        if (!rp) {
            return false;
        }
#if defined(__x86_64__)
        if (ggml_cpu_fast_x86()) {
            const bool vnni = ggml_cpu_isa()->use_vnni256, vex = ggml_cpu_isa()->use_avxvnni;
            *k = (struct q8x_kernels) {
                .quant = vnni ? gk_quantize_row_q8_0x_vnni : gk_quantize_row_q8_0x_avx2,
                .rp_gemm_k = vnni ? (q6 ? gk_rp_gemm_q6_K_vnni : gk_rp_gemm_q4_K_vnni) :
                             vex  ? (q6 ? gk_rp_gemm_q6_K_avxvnni : gk_rp_gemm_q4_K_avxvnni) :
                                    (q6 ? gk_rp_gemm_q6_K_avx2 : gk_rp_gemm_q4_K_avx2),
                .rp_gemv_k = vnni ? (q6 ? gk_rp_gemv_q6_K_vnni : gk_rp_gemv_q4_K_vnni) : NULL,
                .repack = q6 ? gk_repack_q6_K_avx2 : gk_repack_q4_K_avx2,
                .ext = q6 ? 2 : 1,
            };
            return true;
        }
#elif defined(__aarch64__)
        if (ggml_cpu_isa()->neon && ggml_cpu_isa()->use_dotprod) {
            *k = (struct q8x_kernels) {
                .quant = gk_quantize_row_q8_0x_neon,
                .rp_gemm_k = q6 ? gk_rp_gemm_q6_K_dotprod : gk_rp_gemm_q4_K_dotprod,
                .repack = q6 ? gk_repack_q6_K_neon : gk_repack_q4_K_neon,
                .ext = q6 ? 2 : 1,
            };
            return true;
        }
#endif
        (void) q6;
        return false;
    }
    struct mm_unpack u;
    if (!rp && mm_unpack_type(t, &u)) {
        // unsigned tile bytes (+ 128 where values are negative, taken back
        // off by corr) on VPDPBUSD; signed ones on AVX2's sign trick and SDOT
#if defined(__x86_64__)
        if (ggml_cpu_fast_x86() && (ggml_cpu_isa()->use_vnni256 || !u.half)) {
            const bool vnni = ggml_cpu_isa()->use_vnni256, vex = ggml_cpu_isa()->use_avxvnni;
            const int shift = vnni && u.neg ? 128 : 0;
            *k = (struct q8x_kernels) {
                .quant = vnni ? gk_quantize_row_q8_0x_vnni : gk_quantize_row_q8_0x_avx2, .off = shift,
                .gemm = vnni ? gk_gemm_q8x_vnni : vex ? gk_gemm_q8s_avxvnni : gk_gemm_q8s_avx2, .half = u.half,
                .gemm_min = !u.offs ? NULL : vnni ? gk_gemm_q8x_min_vnni :
                                              vex ? gk_gemm_q8s_min_avxvnni : gk_gemm_q8s_min_avx2,
                .ext = u.half || u.offs ? 1 : 0, .unpack = u.f, .shift = shift, .offs = u.offs,
            };
            return true;
        }
#elif defined(__aarch64__)
        if (ggml_cpu_isa()->neon && ggml_cpu_isa()->use_dotprod) {
            *k = (struct q8x_kernels) {
                .quant = gk_quantize_row_q8_0x_neon, .gemm = gk_gemm_q8x_dotprod, .half = u.half,
                .gemm_min = u.offs ? gk_gemm_q8x_min_dotprod : NULL,
                .ext = u.half || u.offs ? 1 : 0, .unpack = u.f, .offs = u.offs,
            };
            return true;
        }
#endif
        return false;
    }
    if (t != GGML_TYPE_Q8_0 && t != GGML_TYPE_Q4_0) {
        return false;
    }
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86() && ggml_cpu_isa()->use_vnni256) {
        *k = (struct q8x_kernels) {
            .quant = gk_quantize_row_q8_0x_vnni, .off = q4 ? 8 : 128,
            .dot = q4 ? gk_dot8_q4_0_q8x_vnni : gk_dot8_q8_0_q8x_vnni, .dot_rows = 8,
            .dotc = q4 ? gk_dot8c_q4_0_q8x_vnni : gk_dot8c_q8_0_q8x_vnni,
            .pack = q4 ? gk_pack_q4_0_u8_vnni : gk_pack_q8_0_u8_vnni, .gemm = gk_gemm_q8x_vnni,
            .rp_gemm = q4 ? gk_rp_gemm_q4_0_vnni : gk_rp_gemm_q8_0_vnni,
            .rp_gemv = q4 ? gk_rp_gemv_q4_0_vnni : gk_rp_gemv_q8_0_vnni,
        };
        return true;
    }
    if (ggml_cpu_fast_x86()) {
        // AVX2 alone: VPMADDUBSW (the dots do not read corr); the GEMMs on
        // VPDPBUSD where the CPU has AVX-VNNI
        const bool vex = ggml_cpu_isa()->use_avxvnni;
        *k = (struct q8x_kernels) {
            .quant = gk_quantize_row_q8_0x_avx2, .off = q4 ? 8 : 0,
            .dot = q4 ? gk_dot4_q4_0_q8x_avx2 : gk_dot4_q8_0_q8x_avx2, .dot_rows = 4,
            .pack = q4 ? gk_pack_q4_0_u8_avx2 : gk_pack_q8_0_s8_avx2,
            .gemm = q4 ? (vex ? gk_gemm_q4x_avxvnni : gk_gemm_q4x_avx2) : (vex ? gk_gemm_q8s_avxvnni : gk_gemm_q8s_avx2),
            .rp_gemm = q4 ? (vex ? gk_rp_gemm_q4_0_avxvnni : gk_rp_gemm_q4_0_avx2) :
                            (vex ? gk_rp_gemm_q8_0_avxvnni : gk_rp_gemm_q8_0_avx2),
            .rp_gemv = q4 ? (vex ? gk_rp_gemv_q4_0_avxvnni : gk_rp_gemv_q4_0_avx2) :
                            (vex ? gk_rp_gemv_q8_0_avxvnni : gk_rp_gemv_q8_0_avx2),
        };
        return true;
    }
#elif defined(__aarch64__)
    if (ggml_cpu_isa()->neon && ggml_cpu_isa()->use_dotprod) {
        *k = (struct q8x_kernels) {
            .quant = gk_quantize_row_q8_0x_neon, .off = q4 ? 8 : 0,
            .dot = q4 ? gk_dot4_q4_0_q8x_dotprod : gk_dot4_q8_0_q8x_dotprod, .dot_rows = 4,
            .pack = q4 ? gk_pack_q4_0_s8_dotprod : gk_pack_q8_0_s8_dotprod, .gemm = gk_gemm_q8x_dotprod,
            .rp_gemm = q4 ? gk_rp_gemm_q4_0_dotprod : gk_rp_gemm_q8_0_dotprod,
            .rp_gemv = q4 ? gk_rp_gemv_q4_0_dotprod : gk_rp_gemv_q8_0_dotprod,
        };
        return true;
    }
#endif
    (void) q4;
    (void) k;
    return false;
}

// int8 kernels for this product (without a GEMM kernel, only below the
// float GEMM's column threshold)
static bool use_q8x_possible(const struct ggml_tensor * dst) {
    struct q8x_kernels k;
    if (!q8x_kernels(dst->src[0]->type, rp_kquant(dst), &k)) {
        return false;
    }
    if (k.rp_gemm_k) {
        return true;
    }
    if (k.unpack) {
        return dst->src[1]->ne[1] >= (k.half ? MM_GEMM_MIN_COLS_UNPACK_HALF : MM_GEMM_MIN_COLS_UNPACK);
    }
    return k.gemm != NULL || !use_gemm(dst);
}

static bool use_gemm_q8_possible(const struct ggml_tensor * dst) {
    struct q8x_kernels k;
    if (!q8x_kernels(dst->src[0]->type, rp_kquant(dst), &k)) {
        return false;
    }
    int64_t min_cols = MM_GEMM_MIN_COLS_Q8;
#if defined(__x86_64__)
    if (ggml_cpu_isa()->use_vnni256 && (dst->src[0]->type == GGML_TYPE_Q8_0 || dst->src[0]->type == GGML_TYPE_Q4_0)) {
        min_cols = dst->src[0]->type == GGML_TYPE_Q8_0 ? MM_GEMM_MIN_COLS_Q8_0_VNNI : MM_GEMM_MIN_COLS_Q4_0_VNNI;
    }
#endif
    // (Q4_K/Q6_K: the GEMM alone, rp_kquant chose the column count)
    return k.rp_gemm_k != NULL ||
           (k.gemm != NULL && (dst->src[1]->ne[1] >= min_cols || ggml_cpu_is_repacked(dst->src[0])));
}

// src1 read in place: dense F32 rows for the dot path
static bool src1_direct(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    return !use_gemm(dst) && mm_act_type(src0->type) == GGML_TYPE_F32 && src1->type == GGML_TYPE_F32 &&
           src1->nb[0] == sizeof(float) && !use_bf16_gemv(dst, false);
}

// BF16 weights, many columns, a CPU with AVX512-BF16: the activations are
// rounded to BF16 (upstream's vec_dot_type for BF16) and the GEMM runs on
// VDPBF16PS (gemm-bf16-avx512.c)
static bool use_bf16_gemm(const struct ggml_tensor * dst, bool ref) {
#if defined(__x86_64__)
    const struct ggml_tensor * src0 = dst->src[0];
    return !ref && ggml_cpu_isa()->use_bf16dp && src0->type == GGML_TYPE_BF16 && use_gemm(dst) &&
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
    return !ref && ggml_cpu_isa()->use_bf16dp && src0->type == GGML_TYPE_BF16 && !use_gemm(dst) &&
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
    return !ref && ggml_cpu_isa()->use_avx512f && use_gemm(dst) && !use_bf16_gemm(dst, ref) &&
           (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) && !ggml_cpu_is_repacked(dst->src[0]);
}
#endif

bool ggml_cpu_mul_mat_act_form(const struct ggml_tensor * dst, bool ref, int * form, int64_t * n_values) {
    const struct ggml_tensor * src1 = dst->src[1];
    *n_values = src1->ne[0] * ggml_nrows(src1);
    struct q8x_kernels k;
    if (!ref && use_q8x_possible(dst) && q8x_kernels(dst->src[0]->type, rp_kquant(dst), &k)) {
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
            (use_gemm(dst) ? 0x20000 : 0x30000) + (int) mm_act_type(dst->src[0]->type);
    return true;
}

size_t ggml_cpu_mul_mat_work_shared(const struct ggml_tensor * dst, int n_threads) {
    (void) n_threads;
    if (src1_direct(dst)) {
        return 0;
    }
    const struct ggml_tensor * src1 = dst->src[1];
    const enum ggml_type act = use_gemm(dst) ? GGML_TYPE_F32 : mm_act_type(dst->src[0]->type);
    size_t rs = ggml_row_size(act, src1->ne[0]);
    if (use_q8x_possible(dst)) {
        // Q8_0x blocks (half: each block twice), then per block what the
        // kernels read after all rows (act_ext): two int32 with ext 2, else
        // room for a float sum
        struct q8x_kernels k;
        if (q8x_kernels(dst->src[0]->type, rp_kquant(dst), &k)) {
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

// Chunk c of a product cut into nrb blocks of mb weight rows per batch:
// its batch b (dst's i12, i13), its weight rows [ir0, ir1), the batch's
// weight matrix w (broadcast over batches as MUL_MAT does) and the batch's
// destination d (column 0, row 0)
struct mm_chunk {
    int64_t b, i12, i13, ir0, ir1;
    const char * w;
    float * d;
};

static struct mm_chunk mm_chunk_at(const struct ggml_tensor * dst, int64_t c, int64_t nrb, int64_t mb) {
    const struct ggml_tensor * src0 = dst->src[0];
    struct mm_chunk k;
    k.b = c / nrb;
    k.i13 = k.b / dst->ne[2];
    k.i12 = k.b % dst->ne[2];
    const int64_t i03 = k.i13 / (dst->ne[3] / src0->ne[3]), i02 = k.i12 / (dst->ne[2] / src0->ne[2]);
    k.ir0 = (c % nrb) * mb;
    k.ir1 = k.ir0 + mb < src0->ne[1] ? k.ir0 + mb : src0->ne[1];
    k.w = (const char *) src0->data + i02 * src0->nb[2] + i03 * src0->nb[3];
    k.d = (float *) ((char *) dst->data + k.i12 * dst->nb[2] + k.i13 * dst->nb[3]);
    return k;
}

// rows [ir0, ir1) of ncols destination columns ldd floats apart set to 0
// (the GEMM paths add their K blocks into them)
static void mm_zero_rows(float * d, int64_t ldd, int64_t ncols, int64_t ir0, int64_t ir1) {
    for (int64_t j = 0; j < ncols; j++) {
        memset(d + j * ldd + ir0, 0, (size_t) (ir1 - ir0) * sizeof(float));
    }
}

// blocks of 32 values per K step of the int8 GEMM
static int64_t mm_kc_q8(const struct ggml_tensor * dst) {
    const int64_t nblk = dst->src[0]->ne[0] / GK_QK8_0;
    return nblk < MM_KC_Q8 ? nblk : MM_KC_Q8;
}

size_t ggml_cpu_mul_mat_work_per_thread(const struct ggml_tensor * dst) {
    size_t q8 = 0;
    if (ggml_cpu_is_repacked(dst->src[0])) {
        // one weight row unpacked (the portable dots)
        q8 = ggml_row_size(dst->src[0]->type, dst->src[0]->ne[0]) + GGML_CPU_CACHE_LINE;
    }
    if (use_q8x_possible(dst)) {
        // one packed tile: bytes, then the float scales (also room for the
        // float staging of non-F32 activations, MM_KC_Q8 blocks)
        // (and the mins of a K-quant tile: another float per row and block)
        const size_t t = (size_t) mm_kc_q8(dst) * GK_GEMM_MR * (GK_QK8_0 + 2 * sizeof(float)) + GGML_CPU_CACHE_LINE;
        q8 = q8 > t ? q8 : t;
    }
    if (!use_gemm(dst)) {
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

// values [k0, k0 + n) of a weight row as F32 (k0 and n whole blocks)
static void weights_to_f32(enum ggml_type type, const char * row, int64_t k0, int64_t n, float * out, bool ref) {
    ggml_cpu_row_to_f32(type, row + ggml_row_size(type, k0), out, n, ref);
}

// blocks (of the type) [b0, b0 + nb) of row ir of a repacked weight slice
// w (rows nb01 apart, ir in a full group) in the plain layout, at out
static void rp_row(enum ggml_type type, const char * w, size_t nb01, int64_t ir, int64_t b0, int64_t nb, void * out) {
    const char * grp = w + (ir - ir % GK_RP_ROWS) * (int64_t) nb01;
    const int r = (int) (ir % GK_RP_ROWS);
    switch (type) {
        case GGML_TYPE_Q8_0: gk_repack_row_q8_0(grp, r, b0, nb, out); break;
        case GGML_TYPE_Q4_0: gk_repack_row_q4_0(grp, r, b0, nb, out); break;
        case GGML_TYPE_Q4_K: gk_repack_row_q4_K(grp, r, b0, nb, out); break;
        default: gk_repack_row_q6_K(grp, r, b0, nb, out); break;
    }
}

// the sum of 16 int8 values: a loop of a fixed count that the compiler turns
// into vector code (a byte at a time for the variable halves took about
// 1 us of a 4096-value conversion, as long as the quantization itself)
static inline int32_t act_sum16(const int8_t * q) {
    int32_t s = 0;
    for (int k = 0; k < 16; k++) {
        s += q[k];
    }
    return s;
}

// The sums of the dequantized values of n Q8_0x blocks (K-quant mins and
// offsets). half (unpack types with scales per 16): the n / 2 blocks at y
// are first stored twice each
// (y[2b] = y[2b + 1] = the old y[b]), and block b sums its half b % 2.
static void act_sums(gk_block_q8_0x * y, int64_t n, bool half, float * out) {
    if (half) {
        for (int64_t b = n / 2 - 1; b >= 0; b--) {
            y[2 * b + 1] = y[b];
            y[2 * b] = y[b];
        }
    }
    for (int64_t b = 0; b < n; b++) {
        const int32_t lo = act_sum16(y[b].qs), hi = act_sum16(y[b].qs + 16);
        const int32_t s = !half ? lo + hi : b % 2 ? hi : lo;
        out[b] = y[b].d * (float) s;
    }
}

// what the kernels kn read after the activation rows (k.ext), for row r
// of n blocks at y: float sums at asum + r * n, or int32 pairs at
// (int32_t *) asum + 2 * r * n
static void act_ext(const struct q8x_kernels * kn, gk_block_q8_0x * y, int64_t n, float * asum, int64_t r) {
    if (kn->ext == 1) {
        act_sums(y, n, kn->half, asum + r * n);
    } else if (kn->ext == 2) {
        int32_t * o = (int32_t *) asum + 2 * r * n;
        for (int64_t b = 0; b < n; b++) {
            o[2 * b] = -32 * act_sum16(y[b].qs);
            o[2 * b + 1] = -32 * act_sum16(y[b].qs + 16);
        }
    }
}

// what the K-quant kernels kn read after the activations (act_ext) from
// element eb (activation row times blocks per row, plus the first block) on
static const void * act_ext_at(const struct q8x_kernels * kn, const float * asum, size_t eb) {
    return kn->ext == 2 ? (const void *) ((const int32_t *) asum + 2 * eb) : (const void *) (asum + eb);
}

// Q8_0/Q4_0 weights with int8 dot products: the activations are quantized
// into Q8_0x columns in the shared work buffer. Few columns: chunks of
// MM_DOT_ROWS weight rows, k.dot_rows at a time with every column. Otherwise the int8 GEMM: a
// chunk is MM_MB weight rows of one batch with every column; per K step of
// MM_KC_Q8 blocks, each 16-row tile is packed in the thread's scratch and
// multiplied with every column (the tile stays in L1, the K step of the
// columns in L2).
static void mul_mat_q8x(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    GGML_TENSOR_BINARY_OP_LOCALS

    struct q8x_kernels kn;
    GGML_ASSERT(q8x_kernels(src0->type, rp_kquant(dst), &kn));

    // blocks per row as the kernels see them (half: 16-value sub-blocks)
    const int64_t nblk = ne00 / GK_QK8_0 * (kn.half ? 2 : 1);
    gk_block_q8_0x * act = params->wdata;
    // K-quants: the sums of the dequantized activation blocks, after the blocks
    float * asum = (float *) (act + ne11 * ne12 * ne13 * nblk);

    // 1. activations: F32 (or F16/BF16/strided, through a float row) -> Q8_0x
    {
        const int64_t nr = ne11 * ne12 * ne13;
        int64_t ra, rb;
        struct ggml_cpu_act_iter ai;
        ggml_cpu_act_begin(params, nr, &ai);
        float * tmp = ggml_cpu_thread_scratch(params, dst); // room for KC_Q8 x 32 floats at least
        const int64_t tmp_n = mm_kc_q8(dst) * GK_QK8_0;
        while (ggml_cpu_act_next(params, &ai, &ra, &rb)) {
            for (int64_t r = ra; r < rb; r++) {
                const int64_t i13 = r / (ne11 * ne12);
                const int64_t i12 = (r - i13 * ne11 * ne12) / ne11;
                const int64_t i11 = r - i13 * ne11 * ne12 - i12 * ne11;
                const char * s = (const char *) src1->data + i11 * nb11 + i12 * nb12 + i13 * nb13;
                gk_block_q8_0x * d = act + r * nblk;
                if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                    kn.quant((const float *) s, d, ne10, kn.off);
                    act_ext(&kn, d, nblk, asum, r);
                    continue;
                }
                for (int64_t k0 = 0; k0 < ne10; k0 += tmp_n) {
                    const int64_t kl = k0 + tmp_n < ne10 ? tmp_n : ne10 - k0;
                    if (nb10 == ggml_type_size(src1->type)) {
                        ggml_cpu_row_to_f32(src1->type, s + k0 * (int64_t) nb10, tmp, kl, false);
                    } else {
                        for (int64_t k = 0; k < kl; k++) {
                            const char * e = s + (k0 + k) * nb10;
                            tmp[k] = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                     src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                   gk_bf16_to_fp32(*(const uint16_t *) e);
                        }
                    }
                    kn.quant(tmp, d + k0 / GK_QK8_0, kl, kn.off);
                }
                act_ext(&kn, d, nblk, asum, r);
            }
        }
        if (params->act != GGML_CPU_ACT_REUSE) {
            ggml_cpu_act_sync(params);
        }
    }

    const int64_t nbatch = ne12 * ne13;

    if (!use_gemm_q8_possible(dst)) {
        // 2a. dots: chunks of MM_DOT_ROWS weight rows x all columns of one batch
        const int64_t nrb = (ne01 + MM_DOT_ROWS - 1) / MM_DOT_ROWS;
        const int64_t nchunks = nrb * nbatch;
        struct ggml_cpu_chunk_iter ci;
        ggml_cpu_chunk_begin(params, nchunks, &ci);
        for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
            const struct mm_chunk k = mm_chunk_at(dst, c, nrb, MM_DOT_ROWS);
            const int64_t b = k.b, i12 = k.i12, i13 = k.i13, ir0 = k.ir0, ir1 = k.ir1;
            const char * w = k.w;
            for (int64_t g0 = ir0; g0 < ir1; g0 += kn.dot_rows) {
                const int nr = (int) (g0 + kn.dot_rows < ir1 ? kn.dot_rows : ir1 - g0);
                if (kn.dotc && nb1 % sizeof(float) == 0) {
                    float * d = (float *) ((char *) dst->data + i12 * nb2 + i13 * nb3);
                    kn.dotc(ne00, w + g0 * nb01, nb01, nr, act + (size_t) b * (size_t) ne11 * (size_t) nblk, nblk,
                            (int) ne11, d + g0, (int64_t) (nb1 / sizeof(float)));
                    continue;
                }
                for (int64_t i11 = 0; i11 < ne11; i11++) {
                    float * d = (float *) ((char *) dst->data + i11 * nb1 + i12 * nb2 + i13 * nb3);
                    kn.dot(ne00, w + g0 * nb01, nb01, nr, act + ((size_t) b * (size_t) ne11 + (size_t) i11) * (size_t) nblk,
                         d + g0);
                }
            }
        }
        return;
    }

    // 2b. GEMM: chunks of MM_MB weight rows x all columns of one batch
    // (repacked weights with few columns: MM_DOT_ROWS, one group)
    const int64_t kcb = mm_kc_q8(dst);
    uint8_t * wq = ggml_cpu_thread_scratch(params, dst);
    float * wd = (float *) (wq + (size_t) kcb * GK_GEMM_MR * GK_QK8_0);
    float * wmin = wd + (size_t) kcb * GK_GEMM_MR;
    // rows [0, nrg) of src0 are stored in groups of 16 (repacked weights),
    // read in place by kn.rp_gemm; the others are packed per tile
    const int64_t nrg = ggml_cpu_is_repacked(src0) ? ggml_cpu_repack_mm_rows(src0) : 0;
    const size_t gsz = (size_t) GK_RP_ROWS * ggml_type_size(src0->type);
    const int64_t mb = nrg > 0 && ne11 < MM_GEMM_MIN_COLS_Q8 ? MM_DOT_ROWS : MM_MB;
    const int64_t ldd = (int64_t) (nb1 / sizeof(float));
    // One column on repacked groups: a chunk is up to GK_RP_STREAMS groups
    // span apart, read in the same loop (several memory streams per
    // thread); then the rows outside groups, MM_DOT_ROWS at a time.
    const int nstr = MM_RP_STREAMS;
    const bool streams = nrg >= GK_RP_ROWS && ne11 == 1 && (kn.rp_gemv || kn.rp_gemv_k) && nstr > 1;
    const int64_t ngr = streams ? nrg / GK_RP_ROWS : 0;
    const int64_t span = streams ? (ngr + nstr - 1) / nstr : 0;
    const int64_t r0 = streams ? nrg : 0; // first row of the row chunks
    const int64_t nrb = (ne01 - r0 + mb - 1) / mb;
    const int64_t nchunks = (span + nrb) * nbatch;
    struct ggml_cpu_chunk_iter ci;
    ggml_cpu_chunk_begin(params, nchunks, &ci);
    for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
        // per batch: span group chunks, then nrb row chunks
        const int64_t bi = c / (span + nrb), cc = c % (span + nrb);
        if (cc < span) {
            const int64_t nrb1 = nrb > 0 ? nrb : 1;
            const struct mm_chunk k = mm_chunk_at(dst, bi * nrb1, nrb1, mb);
            const gk_block_q8_0x * ab = act + (size_t) k.b * (size_t) nblk;
            const void * grp[GK_RP_STREAMS];
            float * cg[GK_RP_STREAMS];
            int ng = 0;
            for (int64_t g = cc; g < ngr && ng < nstr; g += span) {
                cg[ng] = k.d + g * GK_RP_ROWS;
                memset(cg[ng], 0, GK_RP_ROWS * sizeof(float));
                ng++;
            }
            for (int64_t k0 = 0; k0 < nblk; k0 += kcb) {
                const int nkb = (int) (k0 + kcb < nblk ? kcb : nblk - k0);
                // the K step's first block (K-quants: super-block k0 / 8)
                const size_t ko = (size_t) (kn.rp_gemv_k ? k0 / 8 : k0) * gsz;
                for (int i = 0; i < ng; i++) {
                    grp[i] = k.w + (cc + i * span) * GK_RP_ROWS * (int64_t) nb01 + ko;
                }
                if (kn.rp_gemv_k) {
                    kn.rp_gemv_k(nkb / 8, ng, grp, ab + k0, act_ext_at(&kn, asum, (size_t) k.b * (size_t) nblk + k0),
                                 cg);
                } else {
                    kn.rp_gemv(nkb, ng, grp, ab + k0, cg);
                }
            }
            continue;
        }
        struct mm_chunk k = mm_chunk_at(dst, bi * nrb + cc - span, nrb, mb);
        k.ir0 += r0;
        k.ir1 = k.ir0 + mb < ne01 ? k.ir0 + mb : ne01;
        const int64_t b = k.b, ir0 = k.ir0, ir1 = k.ir1;
        const char * w = k.w;
        const gk_block_q8_0x * ab = act + (size_t) b * (size_t) ne11 * (size_t) nblk;
        float * d = k.d;
        mm_zero_rows(d, ldd, ne11, ir0, ir1);
        // Few columns (their Q8_0x rows fit in L2): one tile at a time over
        // all of K, so that the weights stream from 16 rows at once (K steps
        // outside would interleave all the chunk's rows in 1 KiB pieces,
        // which the prefetchers do not follow). Many columns: K steps
        // outside, so that the K step of the columns stays in L2.
        const bool tile_outer = ne11 <= MM_Q8_TILE_OUTER_COLS;
        const int64_t nt = (ir1 - ir0 + GK_GEMM_MR - 1) / GK_GEMM_MR;
        const int64_t nk = (nblk + kcb - 1) / kcb;
        for (int64_t it = 0; it < nt * nk; it++) {
            const int64_t ti = tile_outer ? it / nk : it % nt;
            const int64_t k0 = (tile_outer ? it % nk : it / nt) * kcb;
            const int64_t t0 = ir0 + ti * GK_GEMM_MR;
            const int nkb = (int) (k0 + kcb < nblk ? kcb : nblk - k0);
            const int nr = (int) (t0 + GK_GEMM_MR < ir1 ? GK_GEMM_MR : ir1 - t0);
            if (kn.rp_gemm_k) {
                // repacked K-quant: super-blocks [k0 / 8, + nkb / 8) of the
                // group, or of the rows outside groups repacked into one
                const int64_t s0 = k0 / 8;
                const void * grp = w + t0 * nb01 + (size_t) s0 * gsz;
                if (t0 >= nrg) {
                    const size_t sbs = ggml_type_size(src0->type);
                    kn.repack(w + t0 * nb01 + (size_t) s0 * sbs, nb01, nr, nkb / 8, wq);
                    grp = wq;
                    if (tile_outer && k0 + kcb < nblk) {
                        // the rows' next K step, read next (the kernels
                        // prefetch the groups they read in place themselves)
                        const int64_t n1 = k0 + 2 * kcb < nblk ? kcb : nblk - k0 - kcb;
                        const size_t len = (size_t) (n1 / 8) * sbs;
                        for (int r = 0; r < nr; r++) {
                            const char * row = w + (t0 + r) * nb01 + (size_t) (s0 + nkb / 8) * sbs;
                            for (size_t o = 0; o < len; o += 64) {
                                __builtin_prefetch(row + o);
                            }
                        }
                    }
                }
                kn.rp_gemm_k(nkb / 8, grp, nr, (int) ne11, ab + k0,
                             act_ext_at(&kn, asum, (size_t) b * (size_t) ne11 * (size_t) nblk + (size_t) k0), nblk,
                             d + t0, ldd);
                continue;
            }
            if (t0 < nrg) {
                kn.rp_gemm(nkb, w + t0 * nb01 + (size_t) k0 * gsz, nr, (int) ne11, ab + k0, nblk, d + t0, ldd);
                continue;
            }
            if (kn.unpack) {
                // through the type's unpack function; the groups' offsets,
                // where it has them, in the GEMM's float step (gemm_min)
                gk_pack_unpack(kn.unpack, (int) ggml_blck_size(src0->type), ggml_type_size(src0->type), kn.half,
                               kn.shift, w + t0 * nb01, nb01, nr, k0, nkb, wq, wd, kn.offs ? wmin : NULL);
                if (kn.offs) {
                    kn.gemm_min(nkb, wq, wd, wmin, nr, (int) ne11, ab + k0,
                                asum + (size_t) b * (size_t) ne11 * (size_t) nblk + k0, nblk, d + t0, ldd);
                    continue;
                }
                kn.gemm(nkb, wq, wd, nr, (int) ne11, ab + k0, nblk, d + t0, ldd);
                continue;
            }
            kn.pack(w + t0 * nb01, nb01, nr, k0, nkb, wq, wd);
            kn.gemm(nkb, wq, wd, nr, (int) ne11, ab + k0, nblk, d + t0, ldd);
        }
    }
}

void ggml_cpu_mul_mat(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    GGML_TENSOR_BINARY_OP_LOCALS

    const bool ref = params->ref;
    const enum ggml_type act = mm_act_type(src0->type);
    const bool direct = src1_direct(dst);
    const bool bf16v = use_bf16_gemv(dst, ref);

    if (!ref && use_q8x_possible(dst)) {
        mul_mat_q8x(params, dst);
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
        const bool packed = use_gemm(dst);
        const bool bf16 = use_bf16_gemm(dst, ref);
        while (ggml_cpu_act_next(params, &ai, &ra, &rb)) {
            for (int64_t r = ra; r < rb; r++) {
                const int64_t i13 = r / (ne11 * ne12);
                const int64_t i12 = (r - i13 * ne11 * ne12) / ne11;
                const int64_t i11 = r - i13 * ne11 * ne12 - i12 * ne11;
                const char * s = (const char *) src1->data + i11 * nb11 + i12 * nb12 + i13 * nb13;
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
                                const char * e = s + (k0 + k) * nb10;
                                const float f = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                                src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                              gk_bf16_to_fp32(*(const uint16_t *) e);
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
                            const char * e = s + k * nb10;
                            const float f = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                            src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                          gk_bf16_to_fp32(*(const uint16_t *) e);
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
                        if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                            memcpy(o, (const float *) s + k0, (size_t) kcb * sizeof(float));
                        } else if (nb10 == ggml_type_size(src1->type)) {
                            ggml_cpu_row_to_f32(src1->type, s + k0 * (int64_t) nb10, o, kcb, ref);
                        } else {
                            for (int64_t k = 0; k < kcb; k++) {
                                const char * e = s + (k0 + k) * nb10;
                                o[k] = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                       src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                     gk_bf16_to_fp32(*(const uint16_t *) e);
                            }
                        }
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
                        float * f = (float *) d;
                        if (nb10 == ggml_type_size(src1->type)) {
                            ggml_cpu_row_to_f32(src1->type, s, f, ne10, ref);
                        } else {
                            for (int64_t k = 0; k < ne10; k++) {
                                const char * e = s + k * nb10;
                                f[k] = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                       src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                     gk_bf16_to_fp32(*(const uint16_t *) e);
                            }
                        }
                    } else {
                        const int64_t bs = ggml_blck_size(act);
                        float blk[256];
                        for (int64_t b = 0; b < ne10 / bs; b++) {
                            for (int64_t k = 0; k < bs; k++) {
                                const char * e = s + (b * bs + k) * nb10;
                                blk[k] = src1->type == GGML_TYPE_F32 ? *(const float *) e :
                                         src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                                                       gk_bf16_to_fp32(*(const uint16_t *) e);
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

    if (!use_gemm(dst)) {
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
                            rp_row(src0->type, w, nb01, ir, 0, ne00 / ggml_blck_size(src0->type), wrow);
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
                    rp_row(src0->type, w, nb01, ir, k0 / bs, kc / bs, blk);
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
