/*
 * ggml-quants-legacy.c - dequantization and reference quantization of the
 * 32-value legacy types Q4_1, Q5_0, Q5_1, Q8_1 and of the 1- and 2-bit
 * Q1_0 and Q2_0; the row-chunk quantizers of these and of Q4_0 and Q8_0.
 *
 * With an importance matrix the quantizers minimize the weighted squared
 * error of each block (ggml-quants-fit.c); without one, Q4_1, Q5_0 and Q5_1
 * take their direct encodings (see the reference quantizers below).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

#define DEQUANT(t, blck)                                                              \
    void dequantize_row_##t(const block_##t * x, float * y, int64_t k) {              \
        GGML_ASSERT(k % (blck) == 0);                                                 \
        gk_dequantize_row_unpack(gk_unpack_##t, (blck), sizeof(block_##t), x, y, k);  \
    }

DEQUANT(q1_0, QK1_0)
DEQUANT(q2_0, QK2_0)
DEQUANT(q4_1, QK4_1)
DEQUANT(q5_0, QK5_0)
DEQUANT(q5_1, QK5_1)

static inline float h2f(ggml_half h) {
    return ggml_fp16_to_fp32(h);
}

static inline ggml_half f2h(float f) {
    return ggml_fp32_to_fp16(f);
}

// Q1_0: d = the weighted mean of |x| (the least-squares scale of signs)
static void q1_0_impl(const float * x, block_q1_0 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK1_0 == 0);
    for (int64_t i = 0; i < k / QK1_0; i++) {
        const float * xb = x + i * QK1_0;
        const float * wb = w ? w + i * QK1_0 : NULL;
        double num = 0, den = 0;
        for (int j = 0; j < QK1_0; j++) {
            const double ww = wb ? wb[j] : 1.0;
            num += ww * fabsf(xb[j]);
            den += ww;
        }
        y[i].d = f2h(den > 0 ? (float) (num / den) : 0.0f);
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK1_0; j++) {
            if (xb[j] >= 0.0f) {
                y[i].qs[j / 8] |= (uint8_t) (1u << (j % 8));
            }
        }
    }
}

// Q2_0: levels {-1, 0, 1, 2} times d, d searched
static void q2_0_impl(const float * x, block_q2_0 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK2_0 == 0);
    static const int8_t lev[4] = { -1, 0, 1, 2 };
    for (int64_t i = 0; i < k / QK2_0; i++) {
        const float * xb = x + i * QK2_0;
        const float * wb = w ? w + i * QK2_0 : NULL;
        y[i].d = f2h(gq_fit_levels(xb, wb, QK2_0, lev, 4));
        uint8_t idx[QK2_0];
        gq_err_levels(xb, wb, QK2_0, h2f(y[i].d), lev, 4, idx);
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK2_0; j++) {
            y[i].qs[j / 4] |= (uint8_t) (idx[j] << (2 * (j % 4)));
        }
    }
}

// Q4_1 / Q5_1: an affine fit x ~ d q + m per block, q in [0, 2^bits)
static void affine32(const float * xb, const float * wb, int nmax, ggml_half * d, ggml_half * m, uint8_t * q) {
    float b;
    const float s = gq_fit_affine(xb, wb, 32, nmax, false, &b);
    *d = f2h(s);
    *m = f2h(b);
    const float dd = h2f(*d), mm = h2f(*m);
    for (int j = 0; j < 32; j++) {
        q[j] = dd > 0 ? (uint8_t) gq_clampi((int) lrintf((xb[j] - mm) / dd), 0, nmax) : 0;
    }
}

static void pack_nibbles32(const uint8_t * q, uint8_t * qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t) ((q[j] & 0xf) | ((q[j + 16] & 0xf) << 4));
    }
}

static void pack_fifth_bits(const uint8_t * q, uint8_t * qh) {
    uint32_t h = 0;
    for (int j = 0; j < 32; j++) {
        h |= (uint32_t) ((q[j] >> 4) & 1) << j;
    }
    for (int b = 0; b < 4; b++) {
        qh[b] = (uint8_t) (h >> (8 * b));
    }
}

static void q4_1_impl(const float * x, block_q4_1 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK4_1 == 0);
    for (int64_t i = 0; i < k / QK4_1; i++) {
        uint8_t q[32];
        affine32(x + i * 32, w ? w + i * 32 : NULL, 15, &y[i].d, &y[i].m, q);
        pack_nibbles32(q, y[i].qs);
    }
}

static void q5_1_impl(const float * x, block_q5_1 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK5_1 == 0);
    for (int64_t i = 0; i < k / QK5_1; i++) {
        uint8_t q[32];
        affine32(x + i * 32, w ? w + i * 32 : NULL, 31, &y[i].d, &y[i].m, q);
        pack_nibbles32(q, y[i].qs);
        pack_fifth_bits(q, y[i].qh);
    }
}

// Q5_0: levels -16..15 times d, d searched
static void q5_0_impl(const float * x, block_q5_0 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK5_0 == 0);
    int8_t lev[32];
    gq_range_levels(-16, 15, lev);
    for (int64_t i = 0; i < k / QK5_0; i++) {
        const float * xb = x + i * 32;
        const float * wb = w ? w + i * 32 : NULL;
        y[i].d = f2h(gq_fit_levels(xb, wb, 32, lev, 32));
        uint8_t q[32];
        gq_err_levels(xb, wb, 32, h2f(y[i].d), lev, 32, q); // level index = q
        pack_nibbles32(q, y[i].qs);
        pack_fifth_bits(q, y[i].qh);
    }
}

void quantize_row_q1_0_ref(const float * x, block_q1_0 * y, int64_t k) { q1_0_impl(x, y, k, NULL); }
void quantize_row_q2_0_ref(const float * x, block_q2_0 * y, int64_t k) { q2_0_impl(x, y, k, NULL); }
// The reference quantizers of Q4_1, Q5_0 and Q5_1 are the direct ones (no
// search): they also quantize rows at run time (a quantized KV cache, CPY
// and SET_ROWS into these types), where the searches above would cost 30x
// more. ggml_quantize_chunk searches when given an importance matrix.

// x ~ d q + m with m the block's minimum and d its range over nmax steps
static void minmax32(const float * xb, int nmax, ggml_half * d, ggml_half * m, uint8_t * q) {
    float lo = xb[0], hi = xb[0];
    for (int j = 1; j < 32; j++) {
        lo = fminf(lo, xb[j]);
        hi = fmaxf(hi, xb[j]);
    }
    *d = f2h((hi - lo) / (float) nmax);
    *m = f2h(lo);
    const float dd = h2f(*d), mm = h2f(*m);
    const float id = dd != 0.0f ? 1.0f / dd : 0.0f;
    for (int j = 0; j < 32; j++) {
        q[j] = (uint8_t) gq_clampi((int) lrintf((xb[j] - mm) * id), 0, nmax);
    }
}

void quantize_row_q4_1_ref(const float * x, block_q4_1 * y, int64_t k) {
    GGML_ASSERT(k % QK4_1 == 0);
    for (int64_t i = 0; i < k / QK4_1; i++) {
        uint8_t q[32];
        minmax32(x + i * 32, 15, &y[i].d, &y[i].m, q);
        pack_nibbles32(q, y[i].qs);
    }
}

void quantize_row_q5_1_ref(const float * x, block_q5_1 * y, int64_t k) {
    GGML_ASSERT(k % QK5_1 == 0);
    for (int64_t i = 0; i < k / QK5_1; i++) {
        uint8_t q[32];
        minmax32(x + i * 32, 31, &y[i].d, &y[i].m, q);
        pack_nibbles32(q, y[i].qs);
        pack_fifth_bits(q, y[i].qh);
    }
}

// Q5_0: the element of largest magnitude codes as -16 exactly
void quantize_row_q5_0_ref(const float * x, block_q5_0 * y, int64_t k) {
    GGML_ASSERT(k % QK5_0 == 0);
    for (int64_t i = 0; i < k / QK5_0; i++) {
        const float * xb = x + i * 32;
        float amax = 0.0f, vmax = 0.0f;
        for (int j = 0; j < 32; j++) {
            if (fabsf(xb[j]) > amax) {
                amax = fabsf(xb[j]);
                vmax = xb[j];
            }
        }
        y[i].d = f2h(vmax / -16.0f);
        const float d = h2f(y[i].d);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        uint8_t q[32];
        for (int j = 0; j < 32; j++) {
            q[j] = (uint8_t) gq_clampi((int) lrintf(xb[j] * id) + 16, 0, 31);
        }
        pack_nibbles32(q, y[i].qs);
        pack_fifth_bits(q, y[i].qh);
    }
}

// the chunk quantizers: the searches with an importance matrix, the
// reference ones without
#define CHUNK_W_OR_REF(t, type)                                                                   \
    size_t quantize_##t(const float * src, void * dst, int64_t nrow, int64_t n_per_row,          \
                        const float * imatrix) {                                                  \
        const size_t rs = ggml_row_size(type, n_per_row);                                         \
        for (int64_t r = 0; r < nrow; r++) {                                                      \
            block_##t * out = (block_##t *) ((char *) dst + r * rs);                              \
            if (imatrix) {                                                                        \
                t##_impl(src + r * n_per_row, out, n_per_row, imatrix);                           \
            } else {                                                                              \
                quantize_row_##t##_ref(src + r * n_per_row, out, n_per_row);                      \
            }                                                                                     \
        }                                                                                         \
        return (size_t) nrow * rs;                                                                \
    }

CHUNK_W_OR_REF(q4_1, GGML_TYPE_Q4_1)
CHUNK_W_OR_REF(q5_0, GGML_TYPE_Q5_0)
CHUNK_W_OR_REF(q5_1, GGML_TYPE_Q5_1)

void quantize_row_q8_1_ref(const float * x, block_q8_1 * y, int64_t k) {
    GGML_ASSERT(k % QK8_1 == 0);
    gk_quantize_row_q8_1(x, y, k);
}

// chunk quantizers: rows of n_per_row, the importance matrix per column
GQ_CHUNK_W(q1_0, GGML_TYPE_Q1_0)
GQ_CHUNK_W(q2_0, GGML_TYPE_Q2_0)

// Q4_0, Q8_0, Q4_K and Q6_K keep their reference encodings (ggml-quants.c);
// the importance matrix does not change them
#define CHUNK_REF(t, type)                                                                        \
    size_t quantize_##t(const float * src, void * dst, int64_t nrow, int64_t n_per_row,          \
                        const float * imatrix) {                                                  \
        (void) imatrix;                                                                           \
        const size_t rs = ggml_row_size(type, n_per_row);                                         \
        for (int64_t r = 0; r < nrow; r++) {                                                      \
            quantize_row_##t##_ref(src + r * n_per_row, (block_##t *) ((char *) dst + r * rs), n_per_row); \
        }                                                                                         \
        return (size_t) nrow * rs;                                                                \
    }

CHUNK_REF(q4_0, GGML_TYPE_Q4_0)
CHUNK_REF(q8_0, GGML_TYPE_Q8_0)
CHUNK_REF(q4_K, GGML_TYPE_Q4_K)
CHUNK_REF(q6_K, GGML_TYPE_Q6_K)
