/*
 * ggml-quants.h - block layouts of the quantized types and their reference
 * (scalar, portable) quantize/dequantize routines.
 *
 * The structs are bit-identical to upstream ggml's, so weights quantized
 * elsewhere (GGUF files) are used as they are. This header is freestanding:
 * the compute kernels under lib/backends/<x>/kernels/ include it too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_QUANTS_H
#define GGML_QUANTS_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

// IEEE binary16 bit pattern (same as ggml_fp16_t).
typedef uint16_t ggml_half;

#define QK4_0        32
#define QK8_0        32
#define QK_K         256
#define K_SCALE_SIZE 12

// Q4_0: 32 weights = d * (q - 8), q in [0, 15]. Byte j of qs holds weight j in
// its low nibble and weight j + 16 in its high nibble.
typedef struct {
    ggml_half d;
    uint8_t   qs[QK4_0 / 2];
} block_q4_0;

// Q8_0: 32 weights = d * q, q in [-128, 127] (the reference uses [-127, 127]).
typedef struct {
    ggml_half d;
    int8_t    qs[QK8_0];
} block_q8_0;

// Q4_K: 256 weights in 8 sub-blocks of 32. Sub-block j has a 6-bit scale
// sc[j] and 6-bit min m[j] (see gk_q4_k_scale_min); weight = d*sc*q - dmin*m,
// q in [0, 15]. qs: 4 chunks of 32 bytes, chunk c holds sub-block 2c in the
// low nibbles and sub-block 2c+1 in the high nibbles.
typedef struct {
    ggml_half d;
    ggml_half dmin;
    uint8_t   scales[K_SCALE_SIZE];
    uint8_t   qs[QK_K / 2];
} block_q4_K;

// Q6_K: 256 weights in 16 sub-blocks of 16 with int8 scales; weight =
// d * scales[s] * (q - 32), q in [0, 63]: low 4 bits in ql, high 2 in qh.
// Per half h (128 weights, ql + 64h, qh + 32h, scales + 8h), for l < 32:
//   w[l]      low nibble of ql[l],      qh[l] bits 0-1, scale index l/16
//   w[l + 32] low nibble of ql[l + 32], qh[l] bits 2-3, scale index l/16 + 2
//   w[l + 64] high nibble of ql[l],     qh[l] bits 4-5, scale index l/16 + 4
//   w[l + 96] high nibble of ql[l + 32],qh[l] bits 6-7, scale index l/16 + 6
typedef struct {
    uint8_t   ql[QK_K / 2];
    uint8_t   qh[QK_K / 4];
    int8_t    scales[QK_K / 16];
    ggml_half d;
} block_q6_K;

#if !defined(__cplusplus)
_Static_assert(sizeof(block_q4_0) == 18,  "block_q4_0 must be 18 bytes");
_Static_assert(sizeof(block_q8_0) == 34,  "block_q8_0 must be 34 bytes");
_Static_assert(sizeof(block_q4_K) == 144, "block_q4_K must be 144 bytes");
_Static_assert(sizeof(block_q6_K) == 210, "block_q6_K must be 210 bytes");
#endif

// 6-bit scale and min of Q4_K sub-block j (0..7) from the 12 packed bytes:
// sub-blocks 0-3 use the low 6 bits of bytes j (scale) and j+4 (min);
// sub-blocks 4-7 take their low 4 bits from byte j+4 (scale: low nibble,
// min: high nibble) and their top 2 bits from the top bits of bytes j-4
// (scale) and j (min).
static inline void gk_q4_k_scale_min(int j, const uint8_t * q, uint8_t * sc, uint8_t * m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m  = q[j + 4] & 63;
    } else {
        *sc = (uint8_t) ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m  = (uint8_t) ((q[j + 4] >> 4)  | ((q[j]     >> 6) << 4));
    }
}

#ifndef __KERNEL__
#include "backends/cpu/kernels/gk-quant-ext.h"

// The other types' blocks: the kernels' layouts (gk-quant-ext.h) under
// upstream's names.
#define QK1_0   GK_QK1_0
#define QK2_0   GK_QK2_0
#define QK4_1   GK_QK4_1
#define QK5_0   GK_QK5_0
#define QK5_1   GK_QK5_1
#define QK8_1   GK_QK8_1
#define QK4_NL  GK_QK4_NL
#define QK_MXFP4 GK_QK_MXFP4
#define QK_NVFP4 GK_QK_NVFP4
#define QK_NVFP4_SUB GK_QK_NVFP4_SUB
typedef gk_block_q1_0    block_q1_0;
typedef gk_block_q2_0    block_q2_0;
typedef gk_block_q4_1    block_q4_1;
typedef gk_block_q5_0    block_q5_0;
typedef gk_block_q5_1    block_q5_1;
typedef gk_block_q8_1    block_q8_1;
typedef gk_block_mxfp4   block_mxfp4;
typedef gk_block_nvfp4   block_nvfp4;
typedef gk_block_tq1_0   block_tq1_0;
typedef gk_block_tq2_0   block_tq2_0;
typedef gk_block_q2_K    block_q2_K;
typedef gk_block_q3_K    block_q3_K;
typedef gk_block_q5_K    block_q5_K;
typedef gk_block_q8_K    block_q8_K;
typedef gk_block_iq2_xxs block_iq2_xxs;
typedef gk_block_iq2_xs  block_iq2_xs;
typedef gk_block_iq2_s   block_iq2_s;
typedef gk_block_iq3_xxs block_iq3_xxs;
typedef gk_block_iq3_s   block_iq3_s;
typedef gk_block_iq1_s   block_iq1_s;
typedef gk_block_iq1_m   block_iq1_m;
typedef gk_block_iq4_nl  block_iq4_nl;
typedef gk_block_iq4_xs  block_iq4_xs;

// Dequantization of every type with a to_float (upstream's names; the
// bodies are the kernels' unpack functions)
#define GGML_DEQUANT_DECL(t) void dequantize_row_##t(const block_##t * x, float * y, int64_t k);
GGML_DEQUANT_DECL(q1_0)  GGML_DEQUANT_DECL(q2_0)  GGML_DEQUANT_DECL(q4_1)  GGML_DEQUANT_DECL(q5_0)
GGML_DEQUANT_DECL(q5_1)  GGML_DEQUANT_DECL(mxfp4) GGML_DEQUANT_DECL(nvfp4) GGML_DEQUANT_DECL(tq1_0)
GGML_DEQUANT_DECL(tq2_0) GGML_DEQUANT_DECL(q2_K)  GGML_DEQUANT_DECL(q3_K)  GGML_DEQUANT_DECL(q5_K)
GGML_DEQUANT_DECL(iq2_xxs) GGML_DEQUANT_DECL(iq2_xs) GGML_DEQUANT_DECL(iq2_s) GGML_DEQUANT_DECL(iq3_xxs)
GGML_DEQUANT_DECL(iq3_s) GGML_DEQUANT_DECL(iq1_s) GGML_DEQUANT_DECL(iq1_m) GGML_DEQUANT_DECL(iq4_nl)
GGML_DEQUANT_DECL(iq4_xs) GGML_DEQUANT_DECL(q8_K)
#undef GGML_DEQUANT_DECL

// Reference quantizers (no importance matrix) of the types upstream has one
// for in its traits
#define GGML_QREF_DECL(t) void quantize_row_##t##_ref(const float * x, block_##t * y, int64_t k);
GGML_QREF_DECL(q1_0)  GGML_QREF_DECL(q2_0)  GGML_QREF_DECL(q4_1)  GGML_QREF_DECL(q5_0)
GGML_QREF_DECL(q5_1)  GGML_QREF_DECL(q8_1)  GGML_QREF_DECL(mxfp4) GGML_QREF_DECL(nvfp4)
GGML_QREF_DECL(tq1_0) GGML_QREF_DECL(tq2_0) GGML_QREF_DECL(q2_K)  GGML_QREF_DECL(q3_K)
GGML_QREF_DECL(q5_K)  GGML_QREF_DECL(q8_K)  GGML_QREF_DECL(iq3_xxs) GGML_QREF_DECL(iq3_s)
GGML_QREF_DECL(iq2_s) GGML_QREF_DECL(iq4_nl) GGML_QREF_DECL(iq4_xs)
#undef GGML_QREF_DECL

// Row quantizers behind ggml_quantize_chunk: nrow rows of n_per_row values;
// imatrix (NULL or n_per_row weights, the importance of each column) weights
// the squared error the scale and grid searches minimize. Return the bytes
// written.
#define GGML_QCHUNK_DECL(t) \
    size_t quantize_##t(const float * src, void * dst, int64_t nrow, int64_t n_per_row, const float * imatrix);
GGML_QCHUNK_DECL(q1_0)  GGML_QCHUNK_DECL(q2_0)  GGML_QCHUNK_DECL(q4_0)  GGML_QCHUNK_DECL(q4_1)
GGML_QCHUNK_DECL(q5_0)  GGML_QCHUNK_DECL(q5_1)  GGML_QCHUNK_DECL(q8_0)  GGML_QCHUNK_DECL(mxfp4)
GGML_QCHUNK_DECL(nvfp4) GGML_QCHUNK_DECL(q2_K)  GGML_QCHUNK_DECL(q3_K)  GGML_QCHUNK_DECL(q4_K)
GGML_QCHUNK_DECL(q5_K)  GGML_QCHUNK_DECL(q6_K)  GGML_QCHUNK_DECL(tq1_0) GGML_QCHUNK_DECL(tq2_0)
GGML_QCHUNK_DECL(iq2_xxs) GGML_QCHUNK_DECL(iq2_xs) GGML_QCHUNK_DECL(iq3_xxs) GGML_QCHUNK_DECL(iq3_s)
GGML_QCHUNK_DECL(iq2_s) GGML_QCHUNK_DECL(iq1_s) GGML_QCHUNK_DECL(iq1_m) GGML_QCHUNK_DECL(iq4_nl)
GGML_QCHUNK_DECL(iq4_xs)
#undef GGML_QCHUNK_DECL

// Reference routines: k is a multiple of the block size.
void quantize_row_q4_0_ref(const float * x, block_q4_0 * y, int64_t k);
void quantize_row_q8_0_ref(const float * x, block_q8_0 * y, int64_t k);
void quantize_row_q4_K_ref(const float * x, block_q4_K * y, int64_t k);
void quantize_row_q6_K_ref(const float * x, block_q6_K * y, int64_t k);

void dequantize_row_q4_0(const block_q4_0 * x, float * y, int64_t k);
void dequantize_row_q8_0(const block_q8_0 * x, float * y, int64_t k);
void dequantize_row_q4_K(const block_q4_K * x, float * y, int64_t k);
void dequantize_row_q6_K(const block_q6_K * x, float * y, int64_t k);
#endif

#ifdef __cplusplus
}
#endif

#endif // GGML_QUANTS_H
