/*
 * gk-quant.h - quantized block layouts (bit-identical to upstream ggml's
 * ggml-common.h) and the freestanding kernels on them: activation
 * quantizers, row dequantizers and the quantized dot products used by
 * MUL_MAT (weights x activations quantized on the fly to Q8_0 or Q8_K).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_QUANT_H
#define GK_QUANT_H

#include "gk-types.h"

#define GK_QK4_0 32
#define GK_QK8_0 32
#define GK_QK_K  256
#define GK_K_SCALE_SIZE 12

typedef struct {
    uint16_t d;            // fp16 delta
    uint8_t  qs[GK_QK4_0 / 2]; // nibbles: low = element j, high = element j+16
} gk_block_q4_0;

typedef struct {
    uint16_t d;            // fp16 delta
    int8_t   qs[GK_QK8_0];
} gk_block_q8_0;

typedef struct {
    uint16_t d;            // fp16 super-block scale for the 6-bit scales
    uint16_t dmin;         // fp16 super-block scale for the 6-bit mins
    uint8_t  scales[GK_K_SCALE_SIZE]; // 8 scales and 8 mins, 6 bits each
    uint8_t  qs[GK_QK_K / 2];
} gk_block_q4_K;

typedef struct {
    uint8_t  ql[GK_QK_K / 2];  // low 4 bits
    uint8_t  qh[GK_QK_K / 4];  // high 2 bits
    int8_t   scales[GK_QK_K / 16];
    uint16_t d;                // fp16 super-block scale
} gk_block_q6_K;

typedef struct {
    float    d;
    int8_t   qs[GK_QK_K];
    int16_t  bsums[GK_QK_K / 16]; // sums of 16 quants, for the mins of Q4_K
} gk_block_q8_K;

// A Q8_0 activation block as the int8 kernels read it (internal, no upstream
// equivalent): the scale as a float, and corr = -off * (sum of qs), where off
// undoes the offset of the weights' encoding, as the kernels of this CPU pick
// it (q8x_kernels() in cpu-mul-mat.c): VNNI 8 for Q4_0 nibbles and 128 for
// Q8_0 bytes made unsigned; SDOT 8 for Q4_0 and 0 for Q8_0; the AVX2 dots
// do not read corr.
typedef struct {
    float   d;
    int32_t corr;
    int8_t  qs[GK_QK8_0];
} gk_block_q8_0x;

// Weight rows per packed GEMM tile. A tile of nkb blocks is nkb x 512 bytes
// (per block: for s = 0..7, values 4s..4s+3 of rows 0..15, four bytes per row,
// unsigned: Q4_0 nibble or Q8_0 q + 128), plus nkb x 16 float scales.
#define GK_GEMM_MR 16

_Static_assert(sizeof(gk_block_q4_0) == 18, "q4_0 block");
_Static_assert(sizeof(gk_block_q8_0) == 34, "q8_0 block");
_Static_assert(sizeof(gk_block_q4_K) == 144, "q4_K block");
_Static_assert(sizeof(gk_block_q6_K) == 210, "q6_K block");
_Static_assert(sizeof(gk_block_q8_K) == 292, "q8_K block");

// The 6-bit scale and min j (0..7) of a Q4_K block.
static inline void gk_q4_K_scale_min(int j, const uint8_t * q, uint8_t * d, uint8_t * m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t) ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t) ((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
    }
}

// All 8 scales and 8 mins of a Q4_K block at once (the same values as
// gk_q4_K_scale_min), with 32-bit word operations, one per byte of *sc and
// *mn (scale j in byte j: bits 8j..8j+7); the SIMD dots widen them from there.
static inline void gk_q4_K_scales_mins64(const uint8_t * q, uint64_t * sc, uint64_t * mn) {
    uint32_t a, b, c;
    __builtin_memcpy(&a, q, 4);
    __builtin_memcpy(&b, q + 4, 4);
    __builtin_memcpy(&c, q + 8, 4);
    *sc = (uint64_t) (a & 0x3f3f3f3fu) | ((uint64_t) ((c & 0x0f0f0f0fu) | ((a >> 2) & 0x30303030u)) << 32);
    *mn = (uint64_t) (b & 0x3f3f3f3fu) | ((uint64_t) (((c >> 4) & 0x0f0f0f0fu) | ((b >> 2) & 0x30303030u)) << 32);
}

// The same as arrays: sc[0..7], mn[0..7] (little-endian targets only, as
// the rest of the kernels).
static inline void gk_q4_K_scales_mins(const uint8_t * q, uint8_t * sc, uint8_t * mn) {
    uint64_t s, m;
    gk_q4_K_scales_mins64(q, &s, &m);
    __builtin_memcpy(sc, &s, 8);
    __builtin_memcpy(mn, &m, 8);
}

// --- portable (reference) kernels; n is a multiple of the block size ---------

void gk_quantize_row_q8_0(const float * x, gk_block_q8_0 * y, int64_t n);
void gk_quantize_row_q4_0(const float * x, gk_block_q4_0 * y, int64_t n);
void gk_quantize_row_q8_K(const float * x, gk_block_q8_K * y, int64_t n);

void gk_dequantize_row_q8_0(const gk_block_q8_0 * x, float * y, int64_t n);
void gk_dequantize_row_q4_0(const gk_block_q4_0 * x, float * y, int64_t n);
void gk_dequantize_row_q4_K(const gk_block_q4_K * x, float * y, int64_t n);
void gk_dequantize_row_q6_K(const gk_block_q6_K * x, float * y, int64_t n);
void gk_dequantize_row_q8_K(const gk_block_q8_K * x, float * y, int64_t n);

float gk_dot_q8_0_q8_0(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y);
float gk_dot_q4_0_q8_0(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y);
float gk_dot_q4_K_q8_K(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y);
float gk_dot_q6_K_q8_K(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y);

// the column's size for gk_gemv_q4_0_vnni (below; MUL_MAT plans the room
// on every architecture)
#define GK_Q4V_STEP 256
#define GK_Q4V_STREAMS 4
static inline size_t gk_q4v_y_size(int64_t n) {
    return (size_t) ((n / GK_QK8_0 + 3) / 4) * GK_Q4V_STEP;
}

#if defined(__x86_64__)
float gk_dot_q8_0_q8_0_avx2(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y);
float gk_dot_q4_0_q8_0_avx2(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y);
// Q4_K/Q6_K rows (quant-kdot-x86.c; the kernel module has no K-quants)
float gk_dotk_q4_K_q8_K_avx2(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y);
float gk_dotk_q6_K_q8_K_avx2(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y);
void  gk_dot4_q4_K_q8_K_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
void  gk_dot4_q6_K_q8_K_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
// the same, each row the current one of a stream of rows (its next row nx
// bytes on, where the prefetch runs on)
void  gk_dot4s_q6_K_q8_K_avx2(int64_t n, const void * x, size_t bx, size_t nx, const gk_block_q8_K * y, float * s);
void  gk_dot4_q5_K_q8_K_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
void  gk_dequantize_row_q8_0_avx2(const gk_block_q8_0 * x, float * y, int64_t n);
void  gk_dequantize_row_q4_0_avx2(const gk_block_q4_0 * x, float * y, int64_t n);
// s[r] = dot of weight row r (r < 4, rows bx bytes apart) with y
void  gk_dot4_q8_0_q8_0_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s);
void  gk_dot4_q4_0_q8_0_avx2(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s);

// AVX2 (quant-q8x-x86.c): dots of up to 4 weight rows with one Q8_0x row
// (corr: offset 8 for Q4_0 weights), and the Q8_0x quantizer.
void  gk_dot4_q8_0_q8x_avx2(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
void  gk_dot4_q4_0_q8x_avx2(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
void  gk_quantize_row_q8_0x_avx2(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off);

// int8 GEMM with AVX2 alone (quant-gemm-x86.c): the tile layout of the
// VNNI GEMM below, Q8_0 packed as signed bytes, Q4_0 as nibbles; the
// activations' corr must hold -8 * sum for Q4_0 and is not read for Q8_0
void  gk_pack_q8_0_s8_avx2(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_pack_q4_0_u8_avx2(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_gemm_q8s_avx2(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                       const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
// the same with the groups' offsets (wmin[t * GK_GEMM_MR + r]) times the
// activation blocks' sums (asum[j * lda + t], floats) added per block
void  gk_gemm_q8s_min_avx2(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows, int ncols,
                           const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c, int64_t ldc);
void  gk_gemm_q4x_avx2(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                       const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
// the same three on AVX-VNNI (quant-gemm-avxvnni.c; the same tiles and bits)
void  gk_gemm_q8s_avxvnni(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                          const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
void  gk_gemm_q8s_min_avxvnni(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows,
                              int ncols, const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c,
                              int64_t ldc);
void  gk_gemm_q4x_avxvnni(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                          const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);

// Q8_K activations, the same bytes as gk_quantize_row_q8_K for finite
// values (NaN and inf give other garbage): AVX2
// (quant-act-x86.c) and AVX512F/BW (quant-act-avx512.c)
void  gk_quantize_row_q8_K_avx2(const float * x, gk_block_q8_K * y, int64_t n);
void  gk_quantize_row_q8_K_avx512(const float * x, gk_block_q8_K * y, int64_t n);

// AVX512-VNNI (512-bit VPDPBUSD), quant-avx512.c: dots of up to 8
// weight rows (bx bytes apart, s[r] for r < nrows <= 8) with one Q8_0x row
// (corr for Q4_0 weights: offset 8). The Q8_0x
// activation quantizer (values as gk_quantize_row_q8_0); the weight tile
// packers (rows bx bytes apart, nrows <= GK_GEMM_MR, blocks [b0, b0 + nkb));
// and the GEMM on a packed tile:
// c[j * ldc + r] += sum_k w[r][k] * a[j][k] for r < nrows, j < ncols, with
// activation column j at a + j * lda (blocks), starting at the tile's b0
void  gk_dot8_q8_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
void  gk_dot8_q4_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
// the same with ncols activation rows, ys blocks apart, the results for
// activation j at s + j * ss (GK_DOT8_COLS at a time: the weights are read
// and unpacked once for them)
#define GK_DOT8_COLS 4
void  gk_dot8c_q8_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, int64_t ys,
                             int ncols, float * s, int64_t ss);
void  gk_dot8c_q4_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, int64_t ys,
                             int ncols, float * s, int64_t ss);
void  gk_quantize_row_q8_0x_vnni(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off);
// One column on plain Q4_0 rows (VNNI, quant-avx512.c): the column's
// Q8_0x blocks repacked by gk_q4v_pack_y into steps of four blocks
// (GK_Q4V_STEP bytes each, gk_q4v_y_size(n) bytes in all), then ns (1..
// GK_Q4V_STREAMS) row streams at x[g] (rows bx bytes apart, nrows rows
// each) read in one loop: s[g][j] = row j of stream g times the column.
void  gk_q4v_pack_y(int64_t n, const gk_block_q8_0x * y, void * out);
void  gk_gemv_q4_0_vnni(int64_t n, int ns, const void * const * x, size_t bx, int nrows, const void * ya,
                        float * const * s);
void  gk_pack_q8_0_u8_vnni(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_pack_q4_0_u8_vnni(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_gemm_q8x_vnni(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                       const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
// the same with the groups' offsets (wmin[t * GK_GEMM_MR + r]) times the
// activation blocks' sums (asum[j * lda + t], floats) added per block
void  gk_gemm_q8x_min_vnni(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows, int ncols,
                           const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c, int64_t ldc);

// AVX512F/BW/VL + VNNI (256-bit VPDPBUSD/VPDPWSSD), quant-k-avx512.c: one Q4_K/Q6_K
// weight row with one Q8_K row (MUL_MAT's matrix-vector dots when
// ggml_cpu_isa()->use_vnni256); the same integer sums as the portable dots
float gk_dot_q4_K_q8_K_avx512(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y);
float gk_dot_q6_K_q8_K_avx512(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y);
// four rows bx bytes apart with one activation row (s[0..3]; each the one-row dot's value)
void gk_dot4_q4_K_q8_K_avx512(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
void gk_dot4_q6_K_q8_K_avx512(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
void gk_dot4s_q6_K_q8_K_avx512(int64_t n, const void * x, size_t bx, size_t nx, const gk_block_q8_K * y, float * s);
void gk_dot4_q5_K_q8_K_avx512(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s);
#endif

#if defined(__aarch64__)
float gk_dot_q8_0_q8_0_neon(int64_t n, const gk_block_q8_0 * x, const gk_block_q8_0 * y);
float gk_dot_q4_0_q8_0_neon(int64_t n, const gk_block_q4_0 * x, const gk_block_q8_0 * y);
float gk_dot_q4_K_q8_K_neon(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y);
float gk_dot_q6_K_q8_K_neon(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y);
void  gk_dot4_q8_0_q8_0_neon(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s);
void  gk_dot4_q4_0_q8_0_neon(int64_t n, const void * x, size_t bx, const gk_block_q8_0 * y, float * s);

// activation quantizers (quant-act-neon.c), the same bytes as the portable
// ones for finite values; Q8_0x for the SDOT kernels below (float d, corr = -off * sum)
void  gk_quantize_row_q8_0_neon(const float * x, gk_block_q8_0 * y, int64_t n);
void  gk_quantize_row_q8_0x_neon(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off);
void  gk_quantize_row_q8_K_neon(const float * x, gk_block_q8_K * y, int64_t n);

// Armv8.2 dot product (SDOT), quant-dotprod-neon.c: the same roles as the
// VNNI kernels, with signed bytes: Q8_0x activations from
// gk_quantize_row_q8_0x_neon (corr: offset 8 for Q4_0 weights, 0 for
// Q8_0), dots of up to 4 rows, tile packers (the
// GK_GEMM_MR layout; Q8_0 as is, Q4_0 nibbles) and the GEMM on a packed tile
void  gk_dot4_q8_0_q8x_dotprod(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
void  gk_dot4_q4_0_q8x_dotprod(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s);
void  gk_pack_q8_0_s8_dotprod(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_pack_q4_0_s8_dotprod(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd);
void  gk_gemm_q8x_dotprod(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                          const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc);
// the same with the groups' offsets (wmin[t * GK_GEMM_MR + r]) times the
// activation blocks' sums (asum[j * lda + t], floats) added per block
void  gk_gemm_q8x_min_dotprod(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows,
                              int ncols, const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c,
                              int64_t ldc);
// K-quant weights x Q8_K activations with SDOT
float gk_dot_q4_K_q8_K_dotprod(int64_t n, const gk_block_q4_K * x, const gk_block_q8_K * y);
float gk_dot_q6_K_q8_K_dotprod(int64_t n, const gk_block_q6_K * x, const gk_block_q8_K * y);
#endif

#endif // GK_QUANT_H
