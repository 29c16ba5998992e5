/*
 * cpu-mul-mat.h - what MUL_MAT's two files share (private to them):
 * cpu-mul-mat.c (the plan, the float paths and the dots) and
 * cpu-mul-mat-q8.c (the int8 paths on Q8_0x activations). The blocking
 * and hand-over constants, the chunk arithmetic, and the int8 kernels'
 * table for one weight type on this CPU.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_MUL_MAT_H
#define GGML_CPU_MUL_MAT_H

#include "ggml.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-quant-ext.h"
#include "kernels/gk-repack.h"

#include <stdbool.h>
#include <stdint.h>
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
// the same for plain Q6_K (the four-row stream dots, mm_dot4s)
#ifndef MM_DOT4S_ROWS
#define MM_DOT4S_ROWS 16
#endif
// rows per stream of a chunk of a one-column plain Q4_0 product (kn.gemv1;
// a chunk is GK_Q4V_STREAMS such blocks ne01 / GK_Q4V_STREAMS rows apart)
#ifndef MM_Q4V_ROWS
#define MM_Q4V_ROWS 16
#endif
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

// Q8_0/Q4_0 weights on CPUs with int8 dot-product instructions (ggml_cpu_mul_mat_q8x):
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
    // one column on plain (not repacked) rows, or NULL: the column packed
    // per thread by gemv1_y (gk_q4v_y_size bytes), then several row streams
    // per call (gk_gemv_q4_0_vnni)
    void (*gemv1_y)(int64_t n, const gk_block_q8_0x * y, void * out);
    void (*gemv1)(int64_t n, int ns, const void * const * x, size_t bx, int nrows, const void * ya,
                  float * const * s);
};

// Chunk c of a product cut into nrb blocks of mb weight rows per batch:
// its batch b (dst's i12, i13), its weight rows [ir0, ir1), the batch's
// weight matrix w (broadcast over batches as MUL_MAT does) and the batch's
// destination d (column 0, row 0)
struct mm_chunk {
    int64_t b, i12, i13, ir0, ir1;
    const char * w;
    float * d;
};

static inline struct mm_chunk mm_chunk_at(const struct ggml_tensor * dst, int64_t c, int64_t nrb, int64_t mb) {
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
static inline void mm_zero_rows(float * d, int64_t ldd, int64_t ncols, int64_t ir0, int64_t ir1) {
    for (int64_t j = 0; j < ncols; j++) {
        memset(d + j * ldd + ir0, 0, (size_t) (ir1 - ir0) * sizeof(float));
    }
}

// activation row r of src1 (rows counted over dims 1-3), and its index in
// dim 1
static inline const char * mm_src1_row(const struct ggml_tensor * src1, int64_t r, int64_t * i11) {
    const int64_t ne11 = src1->ne[1], ne12 = src1->ne[2];
    const int64_t i13 = r / (ne11 * ne12);
    const int64_t i12 = (r - i13 * ne11 * ne12) / ne11;
    *i11 = r - i13 * ne11 * ne12 - i12 * ne11;
    return (const char *) src1->data + *i11 * (int64_t) src1->nb[1] + i12 * (int64_t) src1->nb[2] +
           i13 * (int64_t) src1->nb[3];
}

// value k of the activation row at s (src1's type: F32, F16 or BF16,
// elements src1->nb[0] bytes apart) as F32
static inline float mm_src1_at(const struct ggml_tensor * src1, const char * s, int64_t k) {
    const char * e = s + k * (int64_t) src1->nb[0];
    return src1->type == GGML_TYPE_F32 ? *(const float *) e :
           src1->type == GGML_TYPE_F16 ? gk_fp16_to_fp32(*(const uint16_t *) e) :
                                         gk_bf16_to_fp32(*(const uint16_t *) e);
}

// values [k0, k0 + n) of the activation row at s (src1's type: F32, F16
// or BF16, elements src1->nb[0] bytes apart) as F32, at out
static inline void mm_src1_to_f32(const struct ggml_tensor * src1, const char * s, int64_t k0, int64_t n, float * out,
                                  bool ref) {
    const size_t nb10 = src1->nb[0];
    if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
        memcpy(out, (const float *) s + k0, (size_t) n * sizeof(float));
    } else if (nb10 == ggml_type_size(src1->type)) {
        ggml_cpu_row_to_f32(src1->type, s + k0 * (int64_t) nb10, out, n, ref);
    } else {
        for (int64_t k = 0; k < n; k++) {
            out[k] = mm_src1_at(src1, s, k0 + k);
        }
    }
}

// MUL_MAT takes the GEMM paths (many columns) rather than the dots
bool ggml_cpu_mm_use_gemm(const struct ggml_tensor * dst);

// blocks (of the type) [b0, b0 + nb) of row ir of a repacked weight slice
// (see cpu-mul-mat.c)
void ggml_cpu_mm_rp_row(enum ggml_type type, const char * w, size_t nb01, int64_t ir, int64_t b0, int64_t nb,
                        void * out);

// cpu-mul-mat-q8.c: Q4_K/Q6_K products that take the int8 GEMM on
// repacked groups; the int8 kernels of a weight type (false: none); whether
// the int8 path may take a product, and its GEMM; its K step in blocks; the
// product itself
bool    ggml_cpu_mm_rp_kquant(const struct ggml_tensor * dst);
bool    ggml_cpu_mm_q8x_kernels(enum ggml_type t, bool rp, struct q8x_kernels * k);
bool    ggml_cpu_mm_q8x_possible(const struct ggml_tensor * dst);
bool    ggml_cpu_mm_gemm_q8_possible(const struct ggml_tensor * dst);
bool    ggml_cpu_mm_q8x_gemv1(const struct ggml_tensor * dst);
int64_t ggml_cpu_mm_kc_q8(const struct ggml_tensor * dst);
void    ggml_cpu_mul_mat_q8x(const struct ggml_compute_params * params, struct ggml_tensor * dst);

#endif
