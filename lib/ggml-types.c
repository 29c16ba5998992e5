/*
 * ggml-types.c - type traits, ggml_quantize_chunk, ggml_validate_row_data.
 *
 * Every type slot of enum ggml_type has its block size and block bytes (so
 * tensors of any known type can be created, sized and moved); conversions
 * exist for F32, F16, BF16, Q4_0, Q8_0, Q4_K and Q6_K. Removed slots have a
 * block size of 0.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"
#include "ggml-quants.h"

#include <math.h>
#include <string.h>

static void f32_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    memcpy(y, x, (size_t) k * sizeof(float));
}

static void f32_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    memcpy(y, x, (size_t) k * sizeof(float));
}

static void f16_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    ggml_fp16_to_fp32_row((const ggml_fp16_t *) x, y, k);
}

static void f16_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_fp32_to_fp16_row(x, (ggml_fp16_t *) y, k);
}

static void bf16_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    ggml_bf16_to_fp32_row((const ggml_bf16_t *) x, y, k);
}

static void bf16_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_fp32_to_bf16_row_ref(x, (ggml_bf16_t *) y, k);
}

#define QUANT_WRAPPERS(name, block)                                                              \
    static void name##_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) { \
        dequantize_row_##name((const block *) x, y, k);                                          \
    }                                                                                            \
    static void name##_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { \
        quantize_row_##name##_ref(x, (block *) y, k);                                            \
    }

QUANT_WRAPPERS(q4_0, block_q4_0)
QUANT_WRAPPERS(q8_0, block_q8_0)
QUANT_WRAPPERS(q4_K, block_q4_K)
QUANT_WRAPPERS(q6_K, block_q6_K)

#define PLAIN(n, bytes)      { .type_name = n, .blck_size = 1, .type_size = bytes, .is_quantized = false }
#define QUANT(n, blk, bytes) { .type_name = n, .blck_size = blk, .type_size = bytes, .is_quantized = true }
#define REMOVED              { .type_name = "DEPRECATED", .blck_size = 0, .type_size = 0, .is_quantized = false }

static const struct ggml_type_traits type_traits[GGML_TYPE_COUNT] = {
    [GGML_TYPE_F32]  = { .type_name = "f32", .blck_size = 1, .type_size = sizeof(float), .is_quantized = false,
                         .to_float = f32_to_float, .from_float_ref = f32_from_float },
    [GGML_TYPE_F16]  = { .type_name = "f16", .blck_size = 1, .type_size = sizeof(ggml_fp16_t), .is_quantized = false,
                         .to_float = f16_to_float, .from_float_ref = f16_from_float },
    [GGML_TYPE_Q4_0] = { .type_name = "q4_0", .blck_size = QK4_0, .type_size = sizeof(block_q4_0), .is_quantized = true,
                         .to_float = q4_0_to_float, .from_float_ref = q4_0_from_float },
    [GGML_TYPE_Q4_1]    = QUANT("q4_1", 32, 20),
    [4]                 = REMOVED,
    [5]                 = REMOVED,
    [GGML_TYPE_Q5_0]    = QUANT("q5_0", 32, 22),
    [GGML_TYPE_Q5_1]    = QUANT("q5_1", 32, 24),
    [GGML_TYPE_Q8_0] = { .type_name = "q8_0", .blck_size = QK8_0, .type_size = sizeof(block_q8_0), .is_quantized = true,
                         .to_float = q8_0_to_float, .from_float_ref = q8_0_from_float },
    [GGML_TYPE_Q8_1]    = QUANT("q8_1", 32, 36),
    [GGML_TYPE_Q2_K]    = QUANT("q2_K", 256, 84),
    [GGML_TYPE_Q3_K]    = QUANT("q3_K", 256, 110),
    [GGML_TYPE_Q4_K] = { .type_name = "q4_K", .blck_size = QK_K, .type_size = sizeof(block_q4_K), .is_quantized = true,
                         .to_float = q4_K_to_float, .from_float_ref = q4_K_from_float },
    [GGML_TYPE_Q5_K]    = QUANT("q5_K", 256, 176),
    [GGML_TYPE_Q6_K] = { .type_name = "q6_K", .blck_size = QK_K, .type_size = sizeof(block_q6_K), .is_quantized = true,
                         .to_float = q6_K_to_float, .from_float_ref = q6_K_from_float },
    [GGML_TYPE_Q8_K]    = QUANT("q8_K", 256, 292),
    [GGML_TYPE_IQ2_XXS] = QUANT("iq2_xxs", 256, 66),
    [GGML_TYPE_IQ2_XS]  = QUANT("iq2_xs", 256, 74),
    [GGML_TYPE_IQ3_XXS] = QUANT("iq3_xxs", 256, 98),
    [GGML_TYPE_IQ1_S]   = QUANT("iq1_s", 256, 50),
    [GGML_TYPE_IQ4_NL]  = QUANT("iq4_nl", 32, 18),
    [GGML_TYPE_IQ3_S]   = QUANT("iq3_s", 256, 110),
    [GGML_TYPE_IQ2_S]   = QUANT("iq2_s", 256, 82),
    [GGML_TYPE_IQ4_XS]  = QUANT("iq4_xs", 256, 136),
    [GGML_TYPE_I8]      = PLAIN("i8", 1),
    [GGML_TYPE_I16]     = PLAIN("i16", 2),
    [GGML_TYPE_I32]     = PLAIN("i32", 4),
    [GGML_TYPE_I64]     = PLAIN("i64", 8),
    [GGML_TYPE_F64]     = PLAIN("f64", 8),
    [GGML_TYPE_IQ1_M]   = QUANT("iq1_m", 256, 56),
    [GGML_TYPE_BF16] = { .type_name = "bf16", .blck_size = 1, .type_size = sizeof(ggml_bf16_t), .is_quantized = false,
                         .to_float = bf16_to_float, .from_float_ref = bf16_from_float },
    [31]                = REMOVED,
    [32]                = REMOVED,
    [33]                = REMOVED,
    [GGML_TYPE_TQ1_0]   = QUANT("tq1_0", 256, 54),
    [GGML_TYPE_TQ2_0]   = QUANT("tq2_0", 256, 66),
    [36]                = REMOVED,
    [37]                = REMOVED,
    [38]                = REMOVED,
    [GGML_TYPE_MXFP4]   = QUANT("mxfp4", 32, 17),
    [GGML_TYPE_NVFP4]   = QUANT("nvfp4", 64, 36),
    [GGML_TYPE_Q1_0]    = QUANT("q1_0", 128, 18),
    [GGML_TYPE_Q2_0]    = QUANT("q2_0", 64, 18),
};

const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    return &type_traits[type];
}

int64_t ggml_blck_size(enum ggml_type type) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    return type_traits[type].blck_size;
}

size_t ggml_type_size(enum ggml_type type) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    return type_traits[type].type_size;
}

size_t ggml_row_size(enum ggml_type type, int64_t ne) {
    const int64_t blck = ggml_blck_size(type);
    GGML_ASSERT(blck > 0 && "type was removed from ggml");
    GGML_ASSERT(ne % blck == 0 && "row length must be a multiple of the block size");
    return ggml_type_size(type) * (size_t) (ne / blck);
}

const char * ggml_type_name(enum ggml_type type) {
    return type >= 0 && type < GGML_TYPE_COUNT ? type_traits[type].type_name : "NONE";
}

bool ggml_is_quantized(enum ggml_type type) {
    return type >= 0 && type < GGML_TYPE_COUNT && type_traits[type].is_quantized;
}

// ---------------------------------------------------------------------------
// Quantization
// ---------------------------------------------------------------------------

void ggml_quantize_init(enum ggml_type type) {
    GGML_UNUSED(type); // no type here needs lookup tables
}

void ggml_quantize_free(void) {
}

bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    // as upstream: these need one (and have no quantizer here anyway)
    return type == GGML_TYPE_IQ2_XXS || type == GGML_TYPE_IQ2_XS ||
           type == GGML_TYPE_IQ1_S   || type == GGML_TYPE_IQ1_M;
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst,
                           int64_t start, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    GGML_UNUSED(imatrix); // the reference quantizers here do not weight errors
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    const struct ggml_type_traits * tt = &type_traits[type];
    if (tt->from_float_ref == NULL) {
        GGML_ABORT("ggml_quantize_chunk: no quantizer for type %s", ggml_type_name(type));
    }
    GGML_ASSERT(n_per_row > 0 && nrows >= 0);
    GGML_ASSERT(start % n_per_row == 0);
    GGML_ASSERT(start % tt->blck_size == 0);

    const size_t  row_size  = ggml_row_size(type, n_per_row);
    const int64_t start_row = start / n_per_row;
    char * out = (char *) dst + (size_t) start_row * row_size;
    for (int64_t r = 0; r < nrows; r++) {
        tt->from_float_ref(src + start + r * n_per_row, out + (size_t) r * row_size, n_per_row);
    }
    return (size_t) nrows * row_size;
}

// ---------------------------------------------------------------------------
// Row validation: sizes, and no NaN/Inf in floats and block scales
// ---------------------------------------------------------------------------

static bool half_ok(ggml_half h) {
    return (h & 0x7c00) != 0x7c00; // exponent all ones: Inf or NaN
}

static bool check_halves(const void * data, size_t nblocks, size_t block_size, size_t offset, int count) {
    const uint8_t * p = data;
    for (size_t i = 0; i < nblocks; i++) {
        for (int c = 0; c < count; c++) {
            ggml_half h;
            memcpy(&h, p + i * block_size + offset + (size_t) c * sizeof(ggml_half), sizeof(h));
            if (!half_ok(h)) {
                GGML_LOG_ERROR("ggml_validate_row_data: invalid scale (Inf/NaN) in block %zu\n", i);
                return false;
            }
        }
    }
    return true;
}

bool ggml_validate_row_data(enum ggml_type type, const void * data, size_t nbytes) {
    if (type < 0 || type >= GGML_TYPE_COUNT || type_traits[type].blck_size == 0) {
        GGML_LOG_ERROR("%s: invalid type %d\n", __func__, (int) type);
        return false;
    }
    const size_t tsize = type_traits[type].type_size;
    if (nbytes % tsize != 0) {
        GGML_LOG_ERROR("%s: invalid size %zu for type %s (type size = %zu)\n",
                       __func__, nbytes, ggml_type_name(type), tsize);
        return false;
    }
    const size_t n = nbytes / tsize;
    switch (type) {
        case GGML_TYPE_F32: {
            const uint8_t * p = data;
            for (size_t i = 0; i < n; i++) {
                float v;
                memcpy(&v, p + i * sizeof(float), sizeof(v));
                if (!isfinite(v)) {
                    GGML_LOG_ERROR("%s: found %f at element %zu\n", __func__, (double) v, i);
                    return false;
                }
            }
            return true;
        }
        case GGML_TYPE_F64: {
            const uint8_t * p = data;
            for (size_t i = 0; i < n; i++) {
                double v;
                memcpy(&v, p + i * sizeof(double), sizeof(v));
                if (!isfinite(v)) {
                    GGML_LOG_ERROR("%s: found %f at element %zu\n", __func__, v, i);
                    return false;
                }
            }
            return true;
        }
        case GGML_TYPE_F16:
            return check_halves(data, n, sizeof(ggml_half), 0, 1);
        case GGML_TYPE_BF16: {
            const uint8_t * p = data;
            for (size_t i = 0; i < n; i++) {
                uint16_t b;
                memcpy(&b, p + i * 2, 2);
                if ((b & 0x7f80) == 0x7f80) {
                    GGML_LOG_ERROR("%s: found Inf/NaN at element %zu\n", __func__, i);
                    return false;
                }
            }
            return true;
        }
        case GGML_TYPE_Q4_0: return check_halves(data, n, sizeof(block_q4_0), offsetof(block_q4_0, d), 1);
        case GGML_TYPE_Q8_0: return check_halves(data, n, sizeof(block_q8_0), offsetof(block_q8_0, d), 1);
        case GGML_TYPE_Q4_K: return check_halves(data, n, sizeof(block_q4_K), offsetof(block_q4_K, d), 2);
        case GGML_TYPE_Q6_K: return check_halves(data, n, sizeof(block_q6_K), offsetof(block_q6_K, d), 1);
        default:
            // integers, and types whose blocks this library does not decode
            return true;
    }
}
