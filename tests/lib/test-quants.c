// SPDX-License-Identifier: MIT
//
// test-quants: block layouts, bit-exact Q8_0/Q4_0 encodings of hand-made
// blocks, dequantization of every type checked against an element-by-
// element decoder written here from the format description, round-trip
// error bounds, ggml_quantize_chunk and ggml_validate_row_data.
//
// Stated error bounds (random data, roughly normal, 16 rows of 4096):
//   Q8_0  per element |x - y| <= 0.51 * amax/127 of its block (+ fp16 scale rounding), NMSE < 1e-4
//   Q4_0  per element |x - y| <= 1.01 * |d| of its block (the clamp at q = 15 costs one step), NMSE < 1.5e-2
//   Q4_K  NMSE < 6e-3
//   Q6_K  NMSE < 1e-3
//   F16   NMSE < 1e-7, BF16 NMSE < 1e-4

#include "ggml.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

// deterministic pseudo-random numbers (xorshift), roughly normal by summing
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static float uniform01(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float) ((rng_state >> 11) * (1.0 / 9007199254740992.0));
}

static float normalish(void) {
    float s = 0.0f;
    for (int i = 0; i < 6; i++) {
        s += uniform01();
    }
    return (s - 3.0f) * 1.41421356f;
}

static uint16_t le16(const uint8_t * p) {
    return (uint16_t) (p[0] | (p[1] << 8));
}

// ---------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------

TEST(block_layouts) {
    ASSERT_EQ(18, sizeof(block_q4_0));
    ASSERT_EQ(34, sizeof(block_q8_0));
    ASSERT_EQ(144, sizeof(block_q4_K));
    ASSERT_EQ(210, sizeof(block_q6_K));
    ASSERT_EQ(0, offsetof(block_q4_0, d));
    ASSERT_EQ(2, offsetof(block_q4_0, qs));
    ASSERT_EQ(2, offsetof(block_q8_0, qs));
    ASSERT_EQ(0, offsetof(block_q4_K, d));
    ASSERT_EQ(2, offsetof(block_q4_K, dmin));
    ASSERT_EQ(4, offsetof(block_q4_K, scales));
    ASSERT_EQ(16, offsetof(block_q4_K, qs));
    ASSERT_EQ(0, offsetof(block_q6_K, ql));
    ASSERT_EQ(128, offsetof(block_q6_K, qh));
    ASSERT_EQ(192, offsetof(block_q6_K, scales));
    ASSERT_EQ(208, offsetof(block_q6_K, d));
    ASSERT_EQ(sizeof(block_q4_0), ggml_type_size(GGML_TYPE_Q4_0));
    ASSERT_EQ(sizeof(block_q6_K), ggml_type_size(GGML_TYPE_Q6_K));
}

// ---------------------------------------------------------------------------
// Bit-exact encodings
// ---------------------------------------------------------------------------

TEST(q8_0_known_block) {
    // amax = 127 so d = 1 exactly; every other value is k + 0.25 -> q = k
    float x[32];
    int8_t want[32];
    x[0] = -127.0f;
    want[0] = -127;
    for (int j = 1; j < 32; j++) {
        const int k = j * 8 - 127;
        x[j] = (float) k + 0.25f;
        want[j] = (int8_t) k;
    }
    uint8_t out[34];
    ASSERT_EQ(34, ggml_quantize_chunk(GGML_TYPE_Q8_0, x, out, 0, 1, 32, NULL));
    ASSERT_EQ(0x3c00, le16(out)); // fp16 1.0
    ASSERT_EQ(0, memcmp(want, out + 2, 32));

    // zeros: scale 0, all q 0, decodes to zeros
    float z[32] = { 0 };
    ggml_quantize_chunk(GGML_TYPE_Q8_0, z, out, 0, 1, 32, NULL);
    for (int j = 0; j < 34; j++) {
        ASSERT_EQ(0, out[j]);
    }

    // a scale that is not a power of two: 16/127 -> fp16 0x3008
    for (int j = 0; j < 32; j++) {
        x[j] = j == 7 ? -16.0f : 0.0f;
    }
    ggml_quantize_chunk(GGML_TYPE_Q8_0, x, out, 0, 1, 32, NULL);
    ASSERT_EQ(0x3008, le16(out));
    ASSERT_EQ(-127, (int8_t) out[2 + 7]);
}

TEST(q4_0_known_blocks) {
    uint8_t out[18];
    float x[32];

    // largest magnitude -8 -> d = -8 / -8 = 1; q = floor(x + 8.5)
    for (int j = 0; j < 32; j++) {
        x[j] = (float) (j % 16) - 8.0f + 0.2f;
    }
    x[5] = -8.0f;
    ggml_quantize_chunk(GGML_TYPE_Q4_0, x, out, 0, 1, 32, NULL);
    ASSERT_EQ(0x3c00, le16(out));
    for (int j = 0; j < 16; j++) {
        const int lo = j == 5 ? 0 : j;
        const int hi = j;              // element j + 16 has (j + 16) % 16 = j
        ASSERT_EQ(lo | (hi << 4), out[2 + j]);
    }

    // largest magnitude +16 -> d = 16 / -8 = -2 (fp16 0xc000): q = floor(-x/2 + 8.5)
    for (int j = 0; j < 32; j++) {
        x[j] = 0.0f;
    }
    x[3] = 16.0f;  // -> 0
    x[10] = 5.0f;  // -> floor(6.0) = 6
    x[20] = -6.0f; // -> floor(11.5) = 11, element 20 is the high nibble of byte 4
    ggml_quantize_chunk(GGML_TYPE_Q4_0, x, out, 0, 1, 32, NULL);
    ASSERT_EQ(0xc000, le16(out));
    for (int j = 0; j < 16; j++) {
        int lo = 8, hi = 8;
        if (j == 3)  { lo = 0; }
        if (j == 10) { lo = 6; }
        if (j == 4)  { hi = 11; }
        ASSERT_EQ(lo | (hi << 4), out[2 + j]);
    }

    // zeros: scale (-)0, q = 8 everywhere
    memset(x, 0, sizeof(x));
    ggml_quantize_chunk(GGML_TYPE_Q4_0, x, out, 0, 1, 32, NULL);
    ASSERT_EQ(0, le16(out) & 0x7fff);
    for (int j = 0; j < 16; j++) {
        ASSERT_EQ(0x88, out[2 + j]);
    }
}

// ---------------------------------------------------------------------------
// Dequantization against decoders written from the format description
// ---------------------------------------------------------------------------

static float decode_q4_0(const uint8_t * b, int e) {
    const float d = ggml_fp16_to_fp32(le16(b));
    const uint8_t byte = b[2 + (e % 16)];
    const int q = e < 16 ? (byte & 15) : (byte >> 4);
    return d * (float) (q - 8);
}

static float decode_q8_0(const uint8_t * b, int e) {
    return ggml_fp16_to_fp32(le16(b)) * (float) (int8_t) b[2 + e];
}

static float decode_q4_K(const uint8_t * b, int e) {
    const float d    = ggml_fp16_to_fp32(le16(b));
    const float dmin = ggml_fp16_to_fp32(le16(b + 2));
    const uint8_t * s = b + 4;
    const uint8_t * qs = b + 16;
    const int j = e / 32, l = e % 32;
    int sc, m;
    if (j < 4) {
        sc = s[j] & 63;
        m  = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
        m  = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
    const uint8_t byte = qs[32 * (j / 2) + l];
    const int q = j % 2 == 0 ? (byte & 15) : (byte >> 4);
    return d * (float) sc * (float) q - dmin * (float) m;
}

static float decode_q6_K(const uint8_t * b, int e) {
    const uint8_t * ql = b;
    const uint8_t * qh = b + 128;
    const int8_t  * sc = (const int8_t *) (b + 192);
    const float d = ggml_fp16_to_fp32(le16(b + 208));
    const int h = e / 128, r = e % 128, g = r / 32, l = r % 32;
    const uint8_t lbyte = ql[64 * h + l + 32 * (g % 2)];
    const int low  = g < 2 ? (lbyte & 15) : (lbyte >> 4);
    const int high = (qh[32 * h + l] >> (2 * g)) & 3;
    const int q = (low | (high << 4)) - 32;
    return d * (float) sc[8 * h + l / 16 + 2 * g] * (float) q;
}

struct qtype {
    enum ggml_type type;
    int blck;
    size_t size;
    float (*decode)(const uint8_t *, int);
    size_t d_offsets[2]; // fp16 fields to keep finite when filling random bytes
    int n_d;
};

static const struct qtype qtypes[] = {
    { GGML_TYPE_Q4_0, 32,  18,  decode_q4_0, { 0, 0 },   1 },
    { GGML_TYPE_Q8_0, 32,  34,  decode_q8_0, { 0, 0 },   1 },
    { GGML_TYPE_Q4_K, 256, 144, decode_q4_K, { 0, 2 },   2 },
    { GGML_TYPE_Q6_K, 256, 210, decode_q6_K, { 208, 0 }, 1 },
};

TEST(dequantize_matches_format) {
    for (size_t t = 0; t < sizeof(qtypes) / sizeof(qtypes[0]); t++) {
        const struct qtype * qt = &qtypes[t];
        const int nblk = 5;
        uint8_t * blocks = malloc(qt->size * nblk);
        float * y = malloc(sizeof(float) * (size_t) (qt->blck * nblk));
        for (size_t i = 0; i < qt->size * nblk; i++) {
            blocks[i] = (uint8_t) (uniform01() * 256.0f);
        }
        for (int b = 0; b < nblk; b++) {
            for (int k = 0; k < qt->n_d; k++) {
                const uint16_t h = ggml_fp32_to_fp16(normalish() * 0.01f);
                memcpy(blocks + (size_t) b * qt->size + qt->d_offsets[k], &h, 2);
            }
        }
        ASSERT_TRUE(ggml_validate_row_data(qt->type, blocks, qt->size * nblk));
        ggml_get_type_traits(qt->type)->to_float(blocks, y, qt->blck * nblk);
        for (int b = 0; b < nblk; b++) {
            for (int e = 0; e < qt->blck; e++) {
                const float want = qt->decode(blocks + (size_t) b * qt->size, e);
                const float got = y[b * qt->blck + e];
                if (fabsf(want - got) > 1e-6f * fabsf(want) + 1e-30f) {
                    TH_LOG("%s block %d element %d: want %g got %g", ggml_type_name(qt->type), b, e, want, got);
                    ASSERT_TRUE(false);
                }
            }
        }
        free(blocks);
        free(y);
    }
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

static double nmse(const float * x, const float * y, size_t n) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double) x[i] - y[i]) * ((double) x[i] - y[i]);
        den += (double) x[i] * x[i];
    }
    return num / den;
}

static double round_trip(enum ggml_type type, const float * x, float * y, int64_t nrows, int64_t n_per_row) {
    const size_t row = ggml_row_size(type, n_per_row);
    void * q = malloc(row * (size_t) nrows);
    const size_t written = ggml_quantize_chunk(type, x, q, 0, nrows, n_per_row, NULL);
    if (written != row * (size_t) nrows) {
        free(q);
        return INFINITY;
    }
    ggml_get_type_traits(type)->to_float(q, y, nrows * n_per_row);
    free(q);
    return nmse(x, y, (size_t) (nrows * n_per_row));
}

TEST(round_trip_error_bounds) {
    const int64_t nrows = 16, n = 4096;
    float * x = malloc(sizeof(float) * (size_t) (nrows * n));
    float * y = malloc(sizeof(float) * (size_t) (nrows * n));
    for (int64_t i = 0; i < nrows * n; i++) {
        x[i] = normalish() * (1.0f + (float) (i / n)); // rows of different scales
    }
    const struct { enum ggml_type type; double bound; } cases[] = {
        { GGML_TYPE_F16,  1e-7 },
        { GGML_TYPE_BF16, 1e-4 },
        { GGML_TYPE_Q8_0, 1e-4 },
        { GGML_TYPE_Q4_0, 1.5e-2 },
        { GGML_TYPE_Q4_K, 6e-3 },
        { GGML_TYPE_Q6_K, 1e-3 },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const double e = round_trip(cases[c].type, x, y, nrows, n);
        TH_LOG("%s round-trip NMSE %.3g (bound %.3g)", ggml_type_name(cases[c].type), e, cases[c].bound);
        ASSERT_LT(e, cases[c].bound);
    }

    // per-element bounds for the 32-blocks
    round_trip(GGML_TYPE_Q8_0, x, y, nrows, n);
    for (int64_t b = 0; b < nrows * n / 32; b++) {
        float amax = 0.0f;
        for (int j = 0; j < 32; j++) {
            amax = fmaxf(amax, fabsf(x[b * 32 + j]));
        }
        const float d = amax / 127.0f;
        for (int j = 0; j < 32; j++) {
            ASSERT_LE(fabsf(x[b * 32 + j] - y[b * 32 + j]), 0.51f * d + 127.0f * d / 2048.0f);
        }
    }
    round_trip(GGML_TYPE_Q4_0, x, y, nrows, n);
    for (int64_t b = 0; b < nrows * n / 32; b++) {
        float amax = 0.0f;
        for (int j = 0; j < 32; j++) {
            amax = fmaxf(amax, fabsf(x[b * 32 + j]));
        }
        const float d = amax / 8.0f;
        for (int j = 0; j < 32; j++) {
            ASSERT_LE(fabsf(x[b * 32 + j] - y[b * 32 + j]), 1.01f * d);
        }
    }
    free(x);
    free(y);
}

TEST(special_blocks) {
    // zeros, a constant, one spike: finite output, small error
    float x[256], y[256];
    const enum ggml_type types[] = { GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        memset(x, 0, sizeof(x));
        round_trip(types[t], x, y, 1, 256);
        for (int i = 0; i < 256; i++) {
            ASSERT_EQ(0.0f, y[i]);
        }
        for (int i = 0; i < 256; i++) {
            x[i] = 3.0f;
        }
        ASSERT_LT(round_trip(types[t], x, y, 1, 256), 1e-5);
        for (int i = 0; i < 256; i++) {
            x[i] = -0.75f;
        }
        ASSERT_LT(round_trip(types[t], x, y, 1, 256), 1e-5);
        memset(x, 0, sizeof(x));
        x[77] = 1000.0f;
        round_trip(types[t], x, y, 1, 256);
        ASSERT_LT(fabsf(y[77] - 1000.0f), 1.0f);
        for (int i = 0; i < 256; i++) {
            ASSERT_TRUE(isfinite(y[i]));
        }
    }
}

// ---------------------------------------------------------------------------
// ggml_quantize_chunk, ggml_validate_row_data
// ---------------------------------------------------------------------------

TEST(quantize_chunk_rows) {
    const int64_t nrows = 6, n = 512;
    float * x = malloc(sizeof(float) * (size_t) (nrows * n));
    for (int64_t i = 0; i < nrows * n; i++) {
        x[i] = normalish();
    }
    const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q4_0,
                                     GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        const size_t row = ggml_row_size(types[t], n);
        uint8_t * all = malloc(row * nrows);
        uint8_t * parts = malloc(row * nrows);
        memset(parts, 0xee, row * nrows);
        ASSERT_EQ(row * nrows, ggml_quantize_chunk(types[t], x, all, 0, nrows, n, NULL));
        // the same rows quantized in two chunks land at the same offsets
        ASSERT_EQ(row * 2, ggml_quantize_chunk(types[t], x, parts, 0, 2, n, NULL));
        ASSERT_EQ(row * 4, ggml_quantize_chunk(types[t], x, parts, 2 * n, 4, n, NULL));
        ASSERT_EQ(0, memcmp(all, parts, row * nrows));
        // and match the traits' row quantizer (F32: a copy, no quantizer)
        if (types[t] == GGML_TYPE_F32) {
            ASSERT_EQ(NULL, ggml_get_type_traits(types[t])->from_float_ref);
            memcpy(parts, x + n, row);
        } else {
            ggml_get_type_traits(types[t])->from_float_ref(x + n, parts, n);
        }
        ASSERT_EQ(0, memcmp(all + row, parts, row));
        ASSERT_TRUE(ggml_validate_row_data(types[t], all, row * nrows));
        free(all);
        free(parts);
    }
    ASSERT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_Q4_K));
    ASSERT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_Q8_0));
    ggml_quantize_init(GGML_TYPE_Q4_K);
    ggml_quantize_free();
    free(x);
}

TEST(validate_row_data) {
    float f[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
    ASSERT_TRUE(ggml_validate_row_data(GGML_TYPE_F32, f, sizeof(f)));
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, f, 7));
    f[2] = INFINITY;
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, f, sizeof(f)));
    f[2] = NAN;
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, f, sizeof(f)));

    uint16_t h[2] = { 0x3c00, 0x7e00 }; // 1.0, NaN
    ASSERT_TRUE(ggml_validate_row_data(GGML_TYPE_F16, h, 2));
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_F16, h, 4));

    block_q4_K k[2];
    memset(k, 0, sizeof(k));
    ASSERT_TRUE(ggml_validate_row_data(GGML_TYPE_Q4_K, k, sizeof(k)));
    k[1].dmin = 0x7c00; // +Inf
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_Q4_K, k, sizeof(k)));
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_Q4_K, k, sizeof(k) - 1));

    block_q8_0 q[1];
    memset(q, 0, sizeof(q));
    q[0].d = 0xfc01; // NaN
    ASSERT_FALSE(ggml_validate_row_data(GGML_TYPE_Q8_0, q, sizeof(q)));

    int32_t ints[3] = { -1, 0, 1 };
    ASSERT_TRUE(ggml_validate_row_data(GGML_TYPE_I32, ints, sizeof(ints)));
    ASSERT_FALSE(ggml_validate_row_data((enum ggml_type) 5, ints, sizeof(ints)));
}

TEST(float_traits_round_trip) {
    float x[64], y[64];
    uint16_t buf[64];
    for (int i = 0; i < 64; i++) {
        x[i] = (float) (i - 32) / 8.0f; // exact in fp16 and bf16
    }
    ggml_get_type_traits(GGML_TYPE_F16)->from_float_ref(x, buf, 64);
    ggml_get_type_traits(GGML_TYPE_F16)->to_float(buf, y, 64);
    ASSERT_EQ(0, memcmp(x, y, sizeof(x)));
    ggml_get_type_traits(GGML_TYPE_BF16)->from_float_ref(x, buf, 64);
    ggml_get_type_traits(GGML_TYPE_BF16)->to_float(buf, y, 64);
    ASSERT_EQ(0, memcmp(x, y, sizeof(x)));
    ASSERT_EQ(0x3c00, ggml_fp32_to_fp16(1.0f));
    ASSERT_EQ(0x3f80, ggml_fp32_to_bf16(1.0f).bits);
}

TEST_HARNESS_MAIN
