/*
 * ggml-types.c - type traits, ggml_quantize_chunk, ggml_validate_row_data.
 *
 * The traits table matches upstream ggml v0.21.0 entry for entry: names,
 * block sizes and bytes, is_quantized, and which types have to_float and
 * from_float_ref (the bodies are this library's: ggml-quants*.c). Removed
 * slots have a block size of 0.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"
#include "ggml-quants.h"

#include <math.h>
#include <string.h>

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

#define TO_FLOAT(name)                                                                           \
    static void name##_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) { \
        dequantize_row_##name((const block_##name *) x, y, k);                                   \
    }
#define FROM_FLOAT(name)                                                                         \
    static void name##_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { \
        quantize_row_##name##_ref(x, (block_##name *) y, k);                                     \
    }
#define BOTH(name) TO_FLOAT(name) FROM_FLOAT(name)

BOTH(q1_0) BOTH(q2_0) BOTH(q4_0) BOTH(q4_1) BOTH(q5_0) BOTH(q5_1) BOTH(q8_0) FROM_FLOAT(q8_1)
BOTH(mxfp4) BOTH(nvfp4) BOTH(q2_K) BOTH(q3_K) BOTH(q4_K) BOTH(q5_K) BOTH(q6_K)
TO_FLOAT(iq2_xxs) TO_FLOAT(iq2_xs) BOTH(iq3_xxs) BOTH(iq3_s) BOTH(iq2_s) TO_FLOAT(iq1_s) TO_FLOAT(iq1_m)
BOTH(iq4_nl) BOTH(iq4_xs) BOTH(tq1_0) BOTH(tq2_0)

// The table is upstream's, entry for entry: plain types without conversions
// (F32 included: a to_float there makes upstream's tests take F32 for a
// quantized type), Q8_1 with a quantizer only, Q8_K with neither, and the
// i-quants that need an importance matrix without from_float_ref.
#define PLAIN(n, bytes)  { .type_name = n, .blck_size = 1, .type_size = bytes, .is_quantized = false }
#define Q(n, t, blk)     { .type_name = #n, .blck_size = blk, .type_size = sizeof(block_##n), .is_quantized = true, \
                           .to_float = n##_to_float, .from_float_ref = n##_from_float }
#define QD(n, blk)       { .type_name = #n, .blck_size = blk, .type_size = sizeof(block_##n), .is_quantized = true, \
                           .to_float = n##_to_float }
#define REMOVED(name)    { .type_name = name, .blck_size = 0, .type_size = 0, .is_quantized = false }

static const struct ggml_type_traits type_traits[GGML_TYPE_COUNT] = {
    [GGML_TYPE_F32]     = PLAIN("f32", sizeof(float)),
    [GGML_TYPE_F16]     = { .type_name = "f16", .blck_size = 1, .type_size = sizeof(ggml_fp16_t), .is_quantized = false,
                            .to_float = f16_to_float, .from_float_ref = f16_from_float },
    [GGML_TYPE_Q4_0]    = Q(q4_0, Q4_0, QK4_0),
    [GGML_TYPE_Q4_1]    = Q(q4_1, Q4_1, QK4_1),
    [4]                 = REMOVED("DEPRECATED"),
    [5]                 = REMOVED("DEPRECATED"),
    [GGML_TYPE_Q5_0]    = Q(q5_0, Q5_0, QK5_0),
    [GGML_TYPE_Q5_1]    = Q(q5_1, Q5_1, QK5_1),
    [GGML_TYPE_Q8_0]    = Q(q8_0, Q8_0, QK8_0),
    [GGML_TYPE_Q8_1]    = { .type_name = "q8_1", .blck_size = QK8_1, .type_size = sizeof(block_q8_1), .is_quantized = true,
                            .from_float_ref = q8_1_from_float },
    [GGML_TYPE_Q2_K]    = Q(q2_K, Q2_K, QK_K),
    [GGML_TYPE_Q3_K]    = Q(q3_K, Q3_K, QK_K),
    [GGML_TYPE_Q4_K]    = Q(q4_K, Q4_K, QK_K),
    [GGML_TYPE_Q5_K]    = Q(q5_K, Q5_K, QK_K),
    [GGML_TYPE_Q6_K]    = Q(q6_K, Q6_K, QK_K),
    [GGML_TYPE_Q8_K]    = { .type_name = "q8_K", .blck_size = QK_K, .type_size = sizeof(block_q8_K), .is_quantized = true },
    [GGML_TYPE_IQ2_XXS] = QD(iq2_xxs, QK_K),
    [GGML_TYPE_IQ2_XS]  = QD(iq2_xs, QK_K),
    [GGML_TYPE_IQ3_XXS] = Q(iq3_xxs, IQ3_XXS, QK_K),
    [GGML_TYPE_IQ1_S]   = QD(iq1_s, QK_K),
    [GGML_TYPE_IQ4_NL]  = Q(iq4_nl, IQ4_NL, QK4_NL),
    [GGML_TYPE_IQ3_S]   = Q(iq3_s, IQ3_S, QK_K),
    [GGML_TYPE_IQ2_S]   = Q(iq2_s, IQ2_S, QK_K),
    [GGML_TYPE_IQ4_XS]  = Q(iq4_xs, IQ4_XS, QK_K),
    [GGML_TYPE_I8]      = PLAIN("i8", 1),
    [GGML_TYPE_I16]     = PLAIN("i16", 2),
    [GGML_TYPE_I32]     = PLAIN("i32", 4),
    [GGML_TYPE_I64]     = PLAIN("i64", 8),
    [GGML_TYPE_F64]     = PLAIN("f64", 8),
    [GGML_TYPE_IQ1_M]   = QD(iq1_m, QK_K),
    [GGML_TYPE_BF16]    = { .type_name = "bf16", .blck_size = 1, .type_size = sizeof(ggml_bf16_t), .is_quantized = false,
                            .to_float = bf16_to_float, .from_float_ref = bf16_from_float },
    [31]                = REMOVED("TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking"),
    [32]                = REMOVED("TYPE_Q4_0_4_8 REMOVED, use Q4_0 with runtime repacking"),
    [33]                = REMOVED("TYPE_Q4_0_8_8 REMOVED, use Q4_0 with runtime repacking"),
    [GGML_TYPE_TQ1_0]   = Q(tq1_0, TQ1_0, QK_K),
    [GGML_TYPE_TQ2_0]   = Q(tq2_0, TQ2_0, QK_K),
    [36]                = REMOVED("TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking"),
    [37]                = REMOVED("TYPE_IQ4_NL_4_8 REMOVED, use IQ4_NL with runtime repacking"),
    [38]                = REMOVED("TYPE_IQ4_NL_8_8 REMOVED, use IQ4_NL with runtime repacking"),
    [GGML_TYPE_MXFP4]   = Q(mxfp4, MXFP4, QK_MXFP4),
    [GGML_TYPE_NVFP4]   = Q(nvfp4, NVFP4, QK_NVFP4),
    [GGML_TYPE_Q1_0]    = Q(q1_0, Q1_0, QK1_0),
    [GGML_TYPE_Q2_0]    = Q(q2_0, Q2_0, QK2_0),
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
    // The grid searches here are exhaustive and need no lookup tables built
    // beforehand (upstream builds neighbour maps of its grids here)
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
}

void ggml_quantize_free(void) {
}

bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    // as upstream: the 2-bit and 1-bit codebook types whose quality depends on it
    return type == GGML_TYPE_IQ2_XXS || type == GGML_TYPE_IQ2_XS || type == GGML_TYPE_IQ1_S;
}

typedef size_t (*quantize_rows_fn)(const float * src, void * dst, int64_t nrow, int64_t n_per_row, const float * imatrix);

static quantize_rows_fn rows_quantizer(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q1_0:    return quantize_q1_0;
        case GGML_TYPE_Q2_0:    return quantize_q2_0;
        case GGML_TYPE_Q4_0:    return quantize_q4_0;
        case GGML_TYPE_Q4_1:    return quantize_q4_1;
        case GGML_TYPE_Q5_0:    return quantize_q5_0;
        case GGML_TYPE_Q5_1:    return quantize_q5_1;
        case GGML_TYPE_Q8_0:    return quantize_q8_0;
        case GGML_TYPE_MXFP4:   return quantize_mxfp4;
        case GGML_TYPE_NVFP4:   return quantize_nvfp4;
        case GGML_TYPE_Q2_K:    return quantize_q2_K;
        case GGML_TYPE_Q3_K:    return quantize_q3_K;
        case GGML_TYPE_Q4_K:    return quantize_q4_K;
        case GGML_TYPE_Q5_K:    return quantize_q5_K;
        case GGML_TYPE_Q6_K:    return quantize_q6_K;
        case GGML_TYPE_TQ1_0:   return quantize_tq1_0;
        case GGML_TYPE_TQ2_0:   return quantize_tq2_0;
        case GGML_TYPE_IQ2_XXS: return quantize_iq2_xxs;
        case GGML_TYPE_IQ2_XS:  return quantize_iq2_xs;
        case GGML_TYPE_IQ3_XXS: return quantize_iq3_xxs;
        case GGML_TYPE_IQ3_S:   return quantize_iq3_s;
        case GGML_TYPE_IQ2_S:   return quantize_iq2_s;
        case GGML_TYPE_IQ1_S:   return quantize_iq1_s;
        case GGML_TYPE_IQ1_M:   return quantize_iq1_m;
        case GGML_TYPE_IQ4_NL:  return quantize_iq4_nl;
        case GGML_TYPE_IQ4_XS:  return quantize_iq4_xs;
        default:                return NULL;
    }
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst,
                           int64_t start, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    const struct ggml_type_traits * tt = &type_traits[type];
    GGML_ASSERT(tt->blck_size > 0 && "type was removed from ggml");
    GGML_ASSERT(n_per_row > 0 && nrows >= 0);
    GGML_ASSERT(start % n_per_row == 0);
    GGML_ASSERT(start % tt->blck_size == 0);
    if (ggml_quantize_requires_imatrix(type)) {
        GGML_ASSERT(imatrix != NULL && "this type needs an importance matrix");
    }
    ggml_quantize_init(type);

    const int64_t n = nrows * n_per_row;
    const size_t  row_size  = ggml_row_size(type, n_per_row);
    const int64_t start_row = start / n_per_row;
    size_t result;
    switch (type) {
        case GGML_TYPE_F32:
            result = (size_t) n * sizeof(float);
            memcpy((float *) dst + start, src + start, result);
            break;
        case GGML_TYPE_F16:
            ggml_fp32_to_fp16_row(src + start, (ggml_fp16_t *) dst + start, n);
            result = (size_t) n * sizeof(ggml_fp16_t);
            break;
        case GGML_TYPE_BF16:
            ggml_fp32_to_bf16_row_ref(src + start, (ggml_bf16_t *) dst + start, n);
            result = (size_t) n * sizeof(ggml_bf16_t);
            break;
        default: {
            const quantize_rows_fn f = rows_quantizer(type);
            if (f == NULL) {
                GGML_ABORT("ggml_quantize_chunk: type %s cannot be quantized", ggml_type_name(type));
            }
            result = f(src + start, (char *) dst + (size_t) start_row * row_size, nrows, n_per_row, imatrix);
            break;
        }
    }
    GGML_ASSERT(result == (size_t) nrows * row_size);
    return result;
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
#define HALVES(T, field, count) check_halves(data, n, sizeof(block_##T), offsetof(block_##T, field), count)
        case GGML_TYPE_Q1_0:    return HALVES(q1_0, d, 1);
        case GGML_TYPE_Q2_0:    return HALVES(q2_0, d, 1);
        case GGML_TYPE_Q4_0:    return HALVES(q4_0, d, 1);
        case GGML_TYPE_Q4_1:    return HALVES(q4_1, d, 2);  // d, m
        case GGML_TYPE_Q5_0:    return HALVES(q5_0, d, 1);
        case GGML_TYPE_Q5_1:    return HALVES(q5_1, d, 2);  // d, m
        case GGML_TYPE_Q8_0:    return HALVES(q8_0, d, 1);
        case GGML_TYPE_Q8_1:    return HALVES(q8_1, d, 2);  // d, s
        case GGML_TYPE_Q2_K:    return HALVES(q2_K, d, 2);  // d, dmin
        case GGML_TYPE_Q3_K:    return HALVES(q3_K, d, 1);
        case GGML_TYPE_Q4_K:    return HALVES(q4_K, d, 2);
        case GGML_TYPE_Q5_K:    return HALVES(q5_K, d, 2);
        case GGML_TYPE_Q6_K:    return HALVES(q6_K, d, 1);
        case GGML_TYPE_TQ1_0:   return HALVES(tq1_0, d, 1);
        case GGML_TYPE_TQ2_0:   return HALVES(tq2_0, d, 1);
        case GGML_TYPE_IQ2_XXS: return HALVES(iq2_xxs, d, 1);
        case GGML_TYPE_IQ2_XS:  return HALVES(iq2_xs, d, 1);
        case GGML_TYPE_IQ2_S:   return HALVES(iq2_s, d, 1);
        case GGML_TYPE_IQ3_XXS: return HALVES(iq3_xxs, d, 1);
        case GGML_TYPE_IQ3_S:   return HALVES(iq3_s, d, 1);
        case GGML_TYPE_IQ1_S:   return HALVES(iq1_s, d, 1);
        case GGML_TYPE_IQ4_NL:  return HALVES(iq4_nl, d, 1);
        case GGML_TYPE_IQ4_XS:  return HALVES(iq4_xs, d, 1);
#undef HALVES
        case GGML_TYPE_IQ1_M: {
            // the fp16 scale is in the top nibbles of the four scale words
            const block_iq1_m * b = data;
            for (size_t i = 0; i < n; i++) {
                uint16_t sc[4];
                memcpy(sc, b[i].scales, sizeof(sc));
                const ggml_half h = (ggml_half) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
                if (!half_ok(h)) {
                    GGML_LOG_ERROR("ggml_validate_row_data: invalid scale (Inf/NaN) in block %zu\n", i);
                    return false;
                }
            }
            return true;
        }
        case GGML_TYPE_Q8_K: {
            const block_q8_K * b = data;
            for (size_t i = 0; i < n; i++) {
                float d;
                memcpy(&d, &b[i].d, sizeof(d));
                if (!isfinite(d)) {
                    GGML_LOG_ERROR("ggml_validate_row_data: invalid scale (Inf/NaN) in block %zu\n", i);
                    return false;
                }
            }
            return true;
        }
        case GGML_TYPE_MXFP4: {
            // E8M0 0xff is NaN
            const block_mxfp4 * b = data;
            for (size_t i = 0; i < n; i++) {
                if (b[i].e == 0xff) {
                    GGML_LOG_ERROR("ggml_validate_row_data: invalid E8M0 scale 0xff in block %zu\n", i);
                    return false;
                }
            }
            return true;
        }
        default:
            // integers, and NVFP4 (every UE4M3 byte decodes to a finite value)
            return true;
    }
}

// The tensor type a model file's ftype names. Q4_1_SOME_F16 has no single
// type, and UNKNOWN none: both abort, as upstream's do.
enum ggml_type ggml_ftype_to_ggml_type(enum ggml_ftype ftype) {
    static const struct {
        enum ggml_ftype ftype;
        enum ggml_type  type;
    } map[] = {
        { GGML_FTYPE_ALL_F32, GGML_TYPE_F32 },          { GGML_FTYPE_MOSTLY_F16, GGML_TYPE_F16 },
        { GGML_FTYPE_MOSTLY_BF16, GGML_TYPE_BF16 },     { GGML_FTYPE_MOSTLY_Q4_0, GGML_TYPE_Q4_0 },
        { GGML_FTYPE_MOSTLY_Q4_1, GGML_TYPE_Q4_1 },     { GGML_FTYPE_MOSTLY_Q5_0, GGML_TYPE_Q5_0 },
        { GGML_FTYPE_MOSTLY_Q5_1, GGML_TYPE_Q5_1 },     { GGML_FTYPE_MOSTLY_Q8_0, GGML_TYPE_Q8_0 },
        { GGML_FTYPE_MOSTLY_Q1_0, GGML_TYPE_Q1_0 },     { GGML_FTYPE_MOSTLY_Q2_0, GGML_TYPE_Q2_0 },
        { GGML_FTYPE_MOSTLY_MXFP4, GGML_TYPE_MXFP4 },   { GGML_FTYPE_MOSTLY_NVFP4, GGML_TYPE_NVFP4 },
        { GGML_FTYPE_MOSTLY_Q2_K, GGML_TYPE_Q2_K },     { GGML_FTYPE_MOSTLY_Q3_K, GGML_TYPE_Q3_K },
        { GGML_FTYPE_MOSTLY_Q4_K, GGML_TYPE_Q4_K },     { GGML_FTYPE_MOSTLY_Q5_K, GGML_TYPE_Q5_K },
        { GGML_FTYPE_MOSTLY_Q6_K, GGML_TYPE_Q6_K },     { GGML_FTYPE_MOSTLY_IQ2_XXS, GGML_TYPE_IQ2_XXS },
        { GGML_FTYPE_MOSTLY_IQ2_XS, GGML_TYPE_IQ2_XS }, { GGML_FTYPE_MOSTLY_IQ3_XXS, GGML_TYPE_IQ3_XXS },
        { GGML_FTYPE_MOSTLY_IQ1_S, GGML_TYPE_IQ1_S },   { GGML_FTYPE_MOSTLY_IQ1_M, GGML_TYPE_IQ1_M },
        { GGML_FTYPE_MOSTLY_IQ4_NL, GGML_TYPE_IQ4_NL }, { GGML_FTYPE_MOSTLY_IQ4_XS, GGML_TYPE_IQ4_XS },
        { GGML_FTYPE_MOSTLY_IQ3_S, GGML_TYPE_IQ3_S },   { GGML_FTYPE_MOSTLY_IQ2_S, GGML_TYPE_IQ2_S },
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (map[i].ftype == ftype) {
            return map[i].type;
        }
    }
    GGML_ABORT("ggml_ftype_to_ggml_type: ftype %d has no single tensor type", (int) ftype);
}
