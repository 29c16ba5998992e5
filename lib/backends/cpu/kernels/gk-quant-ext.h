/*
 * gk-quant-ext.h - the block layouts of the quantized types beyond Q4_0,
 * Q8_0, Q4_K and Q6_K (those are in gk-quant.h), bit-identical to upstream
 * ggml's ggml-common.h, and the freestanding kernels on them.
 *
 * Every one of these types decodes, block by block, to small integers with
 * an affine map per group of 16 values:
 *
 *     value[j] = a[j / 16] * q[j] + b[j / 16]
 *
 * (b is 0 for the symmetric types). A type's unpack function produces q, a
 * and b for one block; the row dequantizer and the dot products with the Q8
 * activations (integer sums per group, the maps applied in float) are
 * written once on top of that (quant-unpack.c). The unpack functions are in
 * one file per family: quant-legacy.c, quant-k.c, quant-tq.c, quant-fp4.c,
 * quant-iq.c.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_QUANT_EXT_H
#define GK_QUANT_EXT_H

#include "gk-types.h"
#include "gk-quant.h"

#define GK_QK1_0     128
#define GK_QK2_0     64
#define GK_QK4_1     32
#define GK_QK5_0     32
#define GK_QK5_1     32
#define GK_QK8_1     32
#define GK_QK_MXFP4  32
#define GK_QK_NVFP4  64
#define GK_QK_NVFP4_SUB 16
#define GK_QK4_NL    32

// --- legacy 32-value blocks and the 1-/2-bit ones ----------------------------

typedef struct { uint16_t d; uint8_t qs[GK_QK1_0 / 8]; } gk_block_q1_0;           // bit set: +d, clear: -d
typedef struct { uint16_t d; uint8_t qs[GK_QK2_0 / 4]; } gk_block_q2_0;           // (q - 1) * d, q in 0..3
typedef struct { uint16_t d, m; uint8_t qs[GK_QK4_1 / 2]; } gk_block_q4_1;        // d * q + m
typedef struct { uint16_t d; uint8_t qh[4]; uint8_t qs[GK_QK5_0 / 2]; } gk_block_q5_0; // d * (q - 16)
typedef struct { uint16_t d, m; uint8_t qh[4]; uint8_t qs[GK_QK5_1 / 2]; } gk_block_q5_1; // d * q + m
typedef struct { uint16_t d, s; int8_t qs[GK_QK8_1]; } gk_block_q8_1;             // s = d * sum(qs)

// --- FP4 -----------------------------------------------------------------------

typedef struct { uint8_t e; uint8_t qs[GK_QK_MXFP4 / 2]; } gk_block_mxfp4;       // E8M0 scale
typedef struct {
    uint8_t d[GK_QK_NVFP4 / GK_QK_NVFP4_SUB];  // UE4M3 scale per 16 values
    uint8_t qs[GK_QK_NVFP4 / 2];
} gk_block_nvfp4;

// --- ternary -------------------------------------------------------------------

typedef struct {
    uint8_t  qs[(GK_QK_K - 4 * GK_QK_K / 64) / 5]; // 5 base-3 digits per byte
    uint8_t  qh[GK_QK_K / 64];                     // 4 digits per byte
    uint16_t d;
} gk_block_tq1_0;
typedef struct { uint8_t qs[GK_QK_K / 4]; uint16_t d; } gk_block_tq2_0;

// --- K-quants --------------------------------------------------------------------

typedef struct {
    uint8_t  scales[GK_QK_K / 16]; // low nibble scale, high nibble min
    uint8_t  qs[GK_QK_K / 4];
    uint16_t d, dmin;
} gk_block_q2_K;
typedef struct {
    uint8_t  hmask[GK_QK_K / 8];
    uint8_t  qs[GK_QK_K / 4];
    uint8_t  scales[12];           // 16 6-bit scales, biased by 32
    uint16_t d;
} gk_block_q3_K;
typedef struct {
    uint16_t d, dmin;
    uint8_t  scales[GK_K_SCALE_SIZE]; // as Q4_K
    uint8_t  qh[GK_QK_K / 8];
    uint8_t  qs[GK_QK_K / 2];
} gk_block_q5_K;

// --- i-quants ----------------------------------------------------------------------

typedef struct { uint16_t d; uint16_t qs[GK_QK_K / 8]; } gk_block_iq2_xxs;
typedef struct { uint16_t d; uint16_t qs[GK_QK_K / 8]; uint8_t scales[GK_QK_K / 32]; } gk_block_iq2_xs;
typedef struct { uint16_t d; uint8_t qs[GK_QK_K / 4]; uint8_t qh[GK_QK_K / 32]; uint8_t scales[GK_QK_K / 32]; } gk_block_iq2_s;
typedef struct { uint16_t d; uint8_t qs[3 * GK_QK_K / 8]; } gk_block_iq3_xxs;
typedef struct {
    uint16_t d;
    uint8_t  qs[GK_QK_K / 4];
    uint8_t  qh[GK_QK_K / 32];
    uint8_t  signs[GK_QK_K / 8];
    uint8_t  scales[GK_QK_K / 64];
} gk_block_iq3_s;
typedef struct { uint16_t d; uint8_t qs[GK_QK_K / 8]; uint16_t qh[GK_QK_K / 32]; } gk_block_iq1_s;
typedef struct { uint8_t qs[GK_QK_K / 8]; uint8_t qh[GK_QK_K / 16]; uint8_t scales[GK_QK_K / 32]; } gk_block_iq1_m;
typedef struct { uint16_t d; uint8_t qs[GK_QK4_NL / 2]; } gk_block_iq4_nl;
typedef struct { uint16_t d; uint16_t scales_h; uint8_t scales_l[GK_QK_K / 64]; uint8_t qs[GK_QK_K / 2]; } gk_block_iq4_xs;

_Static_assert(sizeof(gk_block_q1_0) == 18, "q1_0 block");
_Static_assert(sizeof(gk_block_q2_0) == 18, "q2_0 block");
_Static_assert(sizeof(gk_block_q4_1) == 20, "q4_1 block");
_Static_assert(sizeof(gk_block_q5_0) == 22, "q5_0 block");
_Static_assert(sizeof(gk_block_q5_1) == 24, "q5_1 block");
_Static_assert(sizeof(gk_block_q8_1) == 36, "q8_1 block");
_Static_assert(sizeof(gk_block_mxfp4) == 17, "mxfp4 block");
_Static_assert(sizeof(gk_block_nvfp4) == 36, "nvfp4 block");
_Static_assert(sizeof(gk_block_tq1_0) == 54, "tq1_0 block");
_Static_assert(sizeof(gk_block_tq2_0) == 66, "tq2_0 block");
_Static_assert(sizeof(gk_block_q2_K) == 84, "q2_K block");
_Static_assert(sizeof(gk_block_q3_K) == 110, "q3_K block");
_Static_assert(sizeof(gk_block_q5_K) == 176, "q5_K block");
_Static_assert(sizeof(gk_block_iq2_xxs) == 66, "iq2_xxs block");
_Static_assert(sizeof(gk_block_iq2_xs) == 74, "iq2_xs block");
_Static_assert(sizeof(gk_block_iq2_s) == 82, "iq2_s block");
_Static_assert(sizeof(gk_block_iq3_xxs) == 98, "iq3_xxs block");
_Static_assert(sizeof(gk_block_iq3_s) == 110, "iq3_s block");
_Static_assert(sizeof(gk_block_iq1_s) == 50, "iq1_s block");
_Static_assert(sizeof(gk_block_iq1_m) == 56, "iq1_m block");
_Static_assert(sizeof(gk_block_iq4_nl) == 18, "iq4_nl block");
_Static_assert(sizeof(gk_block_iq4_xs) == 136, "iq4_xs block");

// --- scale formats -------------------------------------------------------------

// E8M0 (MXFP4's block scale) as 2^(e - 128): half the scale, because the
// FP4 value table holds doubled values
static inline float gk_e8m0_half_to_fp32(uint8_t e) {
    uint32_t bits = e < 2 ? (0x00200000u << e) : ((uint32_t) (e - 1) << 23);
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

// UE4M3 (NVFP4's sub-block scale: no sign, 4 exponent bits biased by 7,
// 3 mantissa bits; 0 and 0x7f read as 0), halved like E8M0 above
static inline float gk_ue4m3_half_to_fp32(uint8_t x) {
    if (x == 0 || x == 0x7f) {
        return 0.0f;
    }
    const int e = (x >> 3) & 0xf, m = x & 7;
    // exact: a subnormal is m * 2^-9, a normal (8 + m) * 2^(e - 10)
    const int sh = e == 0 ? -10 : e - 11;
    float v = (float) (e == 0 ? m : 8 + m);
    uint32_t pb = (uint32_t) (127 + sh) << 23; // 2^sh, sh in [-10, 4]
    float p;
    __builtin_memcpy(&p, &pb, 4);
    return v * p;
}

// --- unpacking -----------------------------------------------------------------

// One block of x: q[0..blck) and the maps a[], b[] of its groups of 16.
typedef void (*gk_unpack_fn)(const void * x, int8_t * q, float * a, float * b);

#define GK_UNPACK_DECL(t) void gk_unpack_##t(const void * x, int8_t * q, float * a, float * b);
GK_UNPACK_DECL(q1_0)
GK_UNPACK_DECL(q2_0)
GK_UNPACK_DECL(q4_1)
GK_UNPACK_DECL(q5_0)
GK_UNPACK_DECL(q5_1)
GK_UNPACK_DECL(mxfp4)
GK_UNPACK_DECL(nvfp4)
GK_UNPACK_DECL(tq1_0)
GK_UNPACK_DECL(tq2_0)
GK_UNPACK_DECL(q2_K)
GK_UNPACK_DECL(q3_K)
GK_UNPACK_DECL(q5_K)
GK_UNPACK_DECL(iq2_xxs)
GK_UNPACK_DECL(iq2_xs)
GK_UNPACK_DECL(iq2_s)
GK_UNPACK_DECL(iq3_xxs)
GK_UNPACK_DECL(iq3_s)
GK_UNPACK_DECL(iq1_s)
GK_UNPACK_DECL(iq1_m)
GK_UNPACK_DECL(iq4_nl)
GK_UNPACK_DECL(iq4_xs)
#undef GK_UNPACK_DECL

// Packed int8 GEMM tiles (GK_GEMM_MR rows, tile blocks [b0, b0 + nkb) of
// 32 values, or with half of 16; quant-gemm-unpack.c) of rows of blocks of
// blck values (bsize bytes), unpacked by f: value q stored as q + shift,
// the scale of its group at wd[t * GK_GEMM_MR + r], its offset (if wmin) at
// wmin[t * GK_GEMM_MR + r] (rows from nrows on: 0)
void gk_pack_unpack(gk_unpack_fn f, int blck, size_t bsize, bool half, int shift, const void * x, size_t bx,
                    int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd, float * wmin);

// n values of blocks of blck values (bsize bytes each) to float
void gk_dequantize_row_unpack(gk_unpack_fn f, int blck, size_t bsize, const void * x, float * y, int64_t n);

// dots of n values of such blocks with activations as Q8_K (blck 256), Q8_0
// or Q8_1 (blck a multiple of 32)
float gk_dot_unpack_q8_K(gk_unpack_fn f, size_t bsize, int64_t n, const void * x, const gk_block_q8_K * y);
float gk_dot_unpack_q8_0(gk_unpack_fn f, int blck, size_t bsize, int64_t n, const void * x, const gk_block_q8_0 * y);
float gk_dot_unpack_q8_1(gk_unpack_fn f, int blck, size_t bsize, int64_t n, const void * x, const gk_block_q8_1 * y);

// Q8_1 activations (d = max|x| / 127, s = d * sum(qs)) and back
void gk_quantize_row_q8_1(const float * x, gk_block_q8_1 * y, int64_t n);

// SIMD activation quantizers, the same bytes as the portable ones for
// finite values: AVX2 (quant-act-x86.c), NEON (quant-act-neon.c)
#if defined(__x86_64__)
void gk_quantize_row_q8_0_avx2(const float * x, gk_block_q8_0 * y, int64_t n);
void gk_quantize_row_q8_1_avx2(const float * x, gk_block_q8_1 * y, int64_t n);
#elif defined(__aarch64__)
void gk_quantize_row_q8_1_neon(const float * x, gk_block_q8_1 * y, int64_t n);
#endif

#endif // GK_QUANT_EXT_H
