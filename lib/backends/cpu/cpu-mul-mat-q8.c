/*
 * cpu-mul-mat-q8.c - MUL_MAT's int8 paths (step 3 in cpu-mul-mat.c): the
 * activations quantized once per node into Q8_0x columns (the block's
 * offset correction, and for the K-quants and the unpack types the sums
 * the kernels need after the rows), then per chunk the multi-row int8 dots
 * (few columns), the one-column kernels on repacked groups (several groups
 * far apart in one loop), or the int8 GEMM on packed or repacked 16-row
 * tiles. Which kernels a weight type has on this CPU is
 * ggml_cpu_mm_q8x_kernels().
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "cpu-mul-mat.h"
#include "cpu-quant-types.h"
#include "kernels/gk-fp16.h"

#include <string.h>

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
bool ggml_cpu_mm_rp_kquant(const struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    if (src0->type != GGML_TYPE_Q4_K && src0->type != GGML_TYPE_Q6_K) {
        return false;
    }
    const int64_t min_cols = src0->type == GGML_TYPE_Q6_K ? MM_GEMM_MIN_COLS_Q6K : MM_GEMM_MIN_COLS_QK;
    return ggml_cpu_is_repacked(src0) || dst->src[1]->ne[1] >= min_cols;
}

// the int8 kernels for this weight type on this CPU, or false (rp: a
// Q4_K/Q6_K product that takes them, ggml_cpu_mm_rp_kquant)
bool ggml_cpu_mm_q8x_kernels(enum ggml_type t, bool rp, struct q8x_kernels * k) {
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
            .gemv1_y = q4 ? gk_q4v_pack_y : NULL, .gemv1 = q4 ? gk_gemv_q4_0_vnni : NULL,
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
bool ggml_cpu_mm_q8x_possible(const struct ggml_tensor * dst) {
    struct q8x_kernels k;
    if (!ggml_cpu_mm_q8x_kernels(dst->src[0]->type, ggml_cpu_mm_rp_kquant(dst), &k)) {
        return false;
    }
    if (k.rp_gemm_k) {
        return true;
    }
    if (k.unpack) {
        return dst->src[1]->ne[1] >= (k.half ? MM_GEMM_MIN_COLS_UNPACK_HALF : MM_GEMM_MIN_COLS_UNPACK);
    }
    return k.gemm != NULL || !ggml_cpu_mm_use_gemm(dst);
}

bool ggml_cpu_mm_gemm_q8_possible(const struct ggml_tensor * dst) {
    struct q8x_kernels k;
    if (!ggml_cpu_mm_q8x_kernels(dst->src[0]->type, ggml_cpu_mm_rp_kquant(dst), &k)) {
        return false;
    }
    int64_t min_cols = MM_GEMM_MIN_COLS_Q8;
#if defined(__x86_64__)
    if (ggml_cpu_isa()->use_vnni256 && (dst->src[0]->type == GGML_TYPE_Q8_0 || dst->src[0]->type == GGML_TYPE_Q4_0)) {
        min_cols = dst->src[0]->type == GGML_TYPE_Q8_0 ? MM_GEMM_MIN_COLS_Q8_0_VNNI : MM_GEMM_MIN_COLS_Q4_0_VNNI;
    }
#endif
    // (Q4_K/Q6_K: the GEMM alone, ggml_cpu_mm_rp_kquant chose the column count)
    return k.rp_gemm_k != NULL ||
           (k.gemm != NULL && (dst->src[1]->ne[1] >= min_cols || ggml_cpu_is_repacked(dst->src[0])));
}

// one column on plain rows through kn.gemv1 (the column repacked per thread)
bool ggml_cpu_mm_q8x_gemv1(const struct ggml_tensor * dst) {
    struct q8x_kernels k;
    return dst->src[1]->ne[1] == 1 && !ggml_cpu_is_repacked(dst->src[0]) && ggml_cpu_mm_q8x_possible(dst) &&
           ggml_cpu_mm_q8x_kernels(dst->src[0]->type, ggml_cpu_mm_rp_kquant(dst), &k) && k.gemv1 != NULL;
}

// blocks of 32 values per K step of the int8 GEMM
int64_t ggml_cpu_mm_kc_q8(const struct ggml_tensor * dst) {
    const int64_t nblk = dst->src[0]->ne[0] / GK_QK8_0;
    return nblk < MM_KC_Q8 ? nblk : MM_KC_Q8;
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
void ggml_cpu_mul_mat_q8x(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * src0 = dst->src[0];
    const struct ggml_tensor * src1 = dst->src[1];
    GGML_TENSOR_BINARY_OP_LOCALS

    struct q8x_kernels kn;
    GGML_ASSERT(ggml_cpu_mm_q8x_kernels(src0->type, ggml_cpu_mm_rp_kquant(dst), &kn));

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
        const int64_t tmp_n = ggml_cpu_mm_kc_q8(dst) * GK_QK8_0;
        while (ggml_cpu_act_next(params, &ai, &ra, &rb)) {
            for (int64_t r = ra; r < rb; r++) {
                int64_t i11;
                const char * s = mm_src1_row(src1, r, &i11);
                gk_block_q8_0x * d = act + r * nblk;
                if (src1->type == GGML_TYPE_F32 && nb10 == sizeof(float)) {
                    kn.quant((const float *) s, d, ne10, kn.off);
                    act_ext(&kn, d, nblk, asum, r);
                    continue;
                }
                for (int64_t k0 = 0; k0 < ne10; k0 += tmp_n) {
                    const int64_t kl = k0 + tmp_n < ne10 ? tmp_n : ne10 - k0;
                    mm_src1_to_f32(src1, s, k0, kl, tmp, false);
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

    if (kn.gemv1 && ne11 == 1 && !ggml_cpu_is_repacked(src0)) {
        // One column on plain rows: the rows in blocks of MM_Q4V_ROWS; a
        // chunk is up to GK_Q4V_STREAMS blocks span blocks apart, read in
        // the same loop (several memory streams per thread, each running
        // on through its rows); the column repacked in the thread's scratch
        // once per batch
        void * ya = ggml_cpu_thread_scratch(params, dst);
        int64_t ya_b = -1;
        const int64_t nbl = (ne01 + MM_Q4V_ROWS - 1) / MM_Q4V_ROWS;
        const int64_t span = (nbl + GK_Q4V_STREAMS - 1) / GK_Q4V_STREAMS;
        struct ggml_cpu_chunk_iter ci;
        ggml_cpu_chunk_begin(params, span * nbatch, &ci);
        for (int64_t c = ggml_cpu_chunk_next(params, &ci); c >= 0; c = ggml_cpu_chunk_next(params, &ci)) {
            const struct mm_chunk k = mm_chunk_at(dst, c / span, 1, ne01);
            if (k.b != ya_b) {
                kn.gemv1_y(ne00, act + (size_t) k.b * (size_t) nblk, ya);
                ya_b = k.b;
            }
            const void * wb[GK_Q4V_STREAMS];
            float * db[GK_Q4V_STREAMS];
            int ns = 0;
            for (int64_t g = c % span; g < nbl; g += span) {
                const int64_t r0 = g * MM_Q4V_ROWS;
                const void * wr = k.w + r0 * (int64_t) nb01;
                float * dr = k.d + r0;
                if (r0 + MM_Q4V_ROWS > ne01) {
                    // the last block, short: alone
                    kn.gemv1(ne00, 1, &wr, nb01, (int) (ne01 - r0), ya, &dr);
                    continue;
                }
                wb[ns] = wr;
                db[ns] = dr;
                ns++;
            }
            if (ns > 0) {
                kn.gemv1(ne00, ns, wb, nb01, MM_Q4V_ROWS, ya, db);
            }
        }
        return;
    }

    if (!ggml_cpu_mm_gemm_q8_possible(dst)) {
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
    const int64_t kcb = ggml_cpu_mm_kc_q8(dst);
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
