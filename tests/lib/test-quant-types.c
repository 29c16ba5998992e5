// SPDX-License-Identifier: MIT
//
// test-quant-types: every ggml tensor type beyond Q4_0/Q8_0/Q4_K/Q6_K (those
// have test-quants and test-cpu-kernels).
//
//  - the type-traits table against upstream ggml v0.21.0's, slot by slot
//    (name, block size and bytes, is_quantized, which conversions exist)
//  - dequantization against element decoders written here from the format
//    descriptions (a second, independent reading of each layout), in double
//    precision, on random blocks
//  - round trips: quantize -> dequantize of roughly normal data, normalized
//    squared error within each type's bound; the importance matrix lowers
//    the error it weights
//  - the CPU dots (portable and SIMD) against the double-precision dot of the
//    dequantized weights and activations; MUL_MAT through a graph
//
// Stated NMSE bounds (normal data, no importance matrix; measured values
// are about 2/3 of them):
//   q4_1 8e-3  q5_0 2.5e-3  q5_1 2e-3  q2_K 0.1  q3_K 0.03  q5_K 1.7e-3
//   iq4_nl/iq4_xs 8e-3  mxfp4 0.018  nvfp4 0.012  tq1_0/tq2_0 0.3 (ternary)
//   q1_0 0.5  q2_0 0.19  iq2_xxs 0.16  iq2_xs 0.12  iq2_s 0.08  iq3_xxs 0.045
//   iq3_s 0.025  iq1_s 0.3  iq1_m 0.25

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "cpu-quant-types.h"
#include "cpu-impl.h"
#include "kernels/gk-iq-tables.h"
#include "kernels/gk-quant-simd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static float normalish(void) {
    double s = 0;
    for (int i = 0; i < 6; i++) {
        s += (double) (rnd64() >> 11) / 9007199254740992.0;
    }
    return (float) ((s - 3.0) * 1.41421356);
}

// ---------------------------------------------------------------------------
// The traits table
// ---------------------------------------------------------------------------

struct slot {
    const char * name;
    int blck, size;
    bool quant, to_float, from_ref;
};

// upstream v0.21.0 (src/ggml.c type_traits), by type id
static const struct slot upstream[GGML_TYPE_COUNT] = {
    [0]  = { "f32", 1, 4, false, false, false },
    [1]  = { "f16", 1, 2, false, true, true },
    [2]  = { "q4_0", 32, 18, true, true, true },
    [3]  = { "q4_1", 32, 20, true, true, true },
    [4]  = { "DEPRECATED", 0, 0, false, false, false },
    [5]  = { "DEPRECATED", 0, 0, false, false, false },
    [6]  = { "q5_0", 32, 22, true, true, true },
    [7]  = { "q5_1", 32, 24, true, true, true },
    [8]  = { "q8_0", 32, 34, true, true, true },
    [9]  = { "q8_1", 32, 36, true, false, true },
    [10] = { "q2_K", 256, 84, true, true, true },
    [11] = { "q3_K", 256, 110, true, true, true },
    [12] = { "q4_K", 256, 144, true, true, true },
    [13] = { "q5_K", 256, 176, true, true, true },
    [14] = { "q6_K", 256, 210, true, true, true },
    [15] = { "q8_K", 256, 292, true, false, false },
    [16] = { "iq2_xxs", 256, 66, true, true, false },
    [17] = { "iq2_xs", 256, 74, true, true, false },
    [18] = { "iq3_xxs", 256, 98, true, true, true },
    [19] = { "iq1_s", 256, 50, true, true, false },
    [20] = { "iq4_nl", 32, 18, true, true, true },
    [21] = { "iq3_s", 256, 110, true, true, true },
    [22] = { "iq2_s", 256, 82, true, true, true },
    [23] = { "iq4_xs", 256, 136, true, true, true },
    [24] = { "i8", 1, 1, false, false, false },
    [25] = { "i16", 1, 2, false, false, false },
    [26] = { "i32", 1, 4, false, false, false },
    [27] = { "i64", 1, 8, false, false, false },
    [28] = { "f64", 1, 8, false, false, false },
    [29] = { "iq1_m", 256, 56, true, true, false },
    [30] = { "bf16", 1, 2, false, true, true },
    [31] = { "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking", 0, 0, false, false, false },
    [32] = { "TYPE_Q4_0_4_8 REMOVED, use Q4_0 with runtime repacking", 0, 0, false, false, false },
    [33] = { "TYPE_Q4_0_8_8 REMOVED, use Q4_0 with runtime repacking", 0, 0, false, false, false },
    [34] = { "tq1_0", 256, 54, true, true, true },
    [35] = { "tq2_0", 256, 66, true, true, true },
    [36] = { "TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking", 0, 0, false, false, false },
    [37] = { "TYPE_IQ4_NL_4_8 REMOVED, use IQ4_NL with runtime repacking", 0, 0, false, false, false },
    [38] = { "TYPE_IQ4_NL_8_8 REMOVED, use IQ4_NL with runtime repacking", 0, 0, false, false, false },
    [39] = { "mxfp4", 32, 17, true, true, true },
    [40] = { "nvfp4", 64, 36, true, true, true },
    [41] = { "q1_0", 128, 18, true, true, true },
    [42] = { "q2_0", 64, 18, true, true, true },
};

TEST(traits_table_is_upstreams) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const struct ggml_type_traits * tt = ggml_get_type_traits((enum ggml_type) t);
        const struct slot * u = &upstream[t];
        ASSERT_NE(NULL, u->name) TH_LOG("type %d missing from the expected table", t);
        EXPECT_STREQ(u->name, tt->type_name) TH_LOG("type %d", t);
        EXPECT_EQ(u->blck, tt->blck_size) TH_LOG("type %s", u->name);
        EXPECT_EQ((size_t) u->size, tt->type_size) TH_LOG("type %s", u->name);
        EXPECT_EQ(u->quant, tt->is_quantized) TH_LOG("type %s", u->name);
        EXPECT_EQ(u->to_float, tt->to_float != NULL) TH_LOG("type %s", u->name);
        EXPECT_EQ(u->from_ref, tt->from_float_ref != NULL) TH_LOG("type %s", u->name);
    }
    // the importance matrix is required where upstream requires it
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const bool need = t == GGML_TYPE_IQ2_XXS || t == GGML_TYPE_IQ2_XS || t == GGML_TYPE_IQ1_S;
        EXPECT_EQ(need, ggml_quantize_requires_imatrix((enum ggml_type) t)) TH_LOG("type %d", t);
    }
}

// upstream's activation type of each weight type (ggml-cpu.c type_traits_cpu)
TEST(cpu_vec_dot_types) {
    static const struct { enum ggml_type w, act; } want[] = {
        { GGML_TYPE_Q1_0, GGML_TYPE_Q8_0 },  { GGML_TYPE_Q2_0, GGML_TYPE_Q8_0 },
        { GGML_TYPE_Q4_1, GGML_TYPE_Q8_1 },  { GGML_TYPE_Q5_0, GGML_TYPE_Q8_0 },
        { GGML_TYPE_Q5_1, GGML_TYPE_Q8_1 },  { GGML_TYPE_Q8_1, GGML_TYPE_Q8_1 },
        { GGML_TYPE_MXFP4, GGML_TYPE_Q8_0 }, { GGML_TYPE_NVFP4, GGML_TYPE_Q8_0 },
        { GGML_TYPE_Q2_K, GGML_TYPE_Q8_K },  { GGML_TYPE_Q3_K, GGML_TYPE_Q8_K },
        { GGML_TYPE_Q5_K, GGML_TYPE_Q8_K },  { GGML_TYPE_TQ1_0, GGML_TYPE_Q8_K },
        { GGML_TYPE_TQ2_0, GGML_TYPE_Q8_K }, { GGML_TYPE_IQ2_XXS, GGML_TYPE_Q8_K },
        { GGML_TYPE_IQ2_XS, GGML_TYPE_Q8_K }, { GGML_TYPE_IQ2_S, GGML_TYPE_Q8_K },
        { GGML_TYPE_IQ3_XXS, GGML_TYPE_Q8_K }, { GGML_TYPE_IQ3_S, GGML_TYPE_Q8_K },
        { GGML_TYPE_IQ1_S, GGML_TYPE_Q8_K }, { GGML_TYPE_IQ1_M, GGML_TYPE_Q8_K },
        { GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0 }, { GGML_TYPE_IQ4_XS, GGML_TYPE_Q8_K },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct ggml_type_traits_cpu * tc = ggml_get_type_traits_cpu(want[i].w);
        EXPECT_EQ(want[i].act, tc->vec_dot_type) TH_LOG("%s", ggml_type_name(want[i].w));
        EXPECT_NE(NULL, tc->vec_dot) TH_LOG("%s", ggml_type_name(want[i].w));
        EXPECT_NE(NULL, ggml_get_type_traits_cpu(tc->vec_dot_type)->from_float);
        // a CPU quantizer where upstream's CPU table has one
        const bool has = want[i].w != GGML_TYPE_IQ2_XXS && want[i].w != GGML_TYPE_IQ2_XS &&
                         want[i].w != GGML_TYPE_IQ2_S && want[i].w != GGML_TYPE_IQ3_XXS &&
                         want[i].w != GGML_TYPE_IQ3_S && want[i].w != GGML_TYPE_IQ1_S &&
                         want[i].w != GGML_TYPE_IQ1_M;
        EXPECT_EQ(has, tc->from_float != NULL) TH_LOG("%s", ggml_type_name(want[i].w));
    }
}

// ---------------------------------------------------------------------------
// Element decoders written from the format descriptions (double precision)
// ---------------------------------------------------------------------------

static double f16(const uint8_t * p) {
    return (double) ggml_fp16_to_fp32((ggml_fp16_t) (p[0] | (p[1] << 8)));
}

static int bit(const uint8_t * p, int i) {
    return (p[i / 8] >> (i % 8)) & 1;
}

static int nib(const uint8_t * p, int j, int half) {
    // 32 values in 16 bytes: j < 16 low nibble of byte j, else high of j-16
    (void) half;
    return j < 16 ? p[j] & 15 : p[j - 16] >> 4;
}

// value j of one block
static double dec_q4_1(const uint8_t * b, int j) { return f16(b) * nib(b + 4, j, 0) + f16(b + 2); }
static double dec_q5_0(const uint8_t * b, int j) { return f16(b) * ((nib(b + 6, j, 0) | bit(b + 2, j) << 4) - 16); }
static double dec_q5_1(const uint8_t * b, int j) { return f16(b) * (nib(b + 8, j, 0) | bit(b + 4, j) << 4) + f16(b + 2); }
static double dec_q1_0(const uint8_t * b, int j) { return bit(b + 2, j) ? f16(b) : -f16(b); }
static double dec_q2_0(const uint8_t * b, int j) { return f16(b) * (((b[2 + j / 4] >> (2 * (j % 4))) & 3) - 1); }

static double dec_q2_K(const uint8_t * b, int j) {
    // scales[16], qs[64], d, dmin; value j: half h = j/128, shift (j%128)/32
    const int h = j / 128, sh = (j % 128) / 32, l = j % 32, g = j / 16;
    const int q = (b[16 + 32 * h + l] >> (2 * sh)) & 3;
    return f16(b + 80) * (b[g] & 15) * q - f16(b + 82) * (b[g] >> 4);
}

static double dec_q3_K(const uint8_t * b, int j) {
    // hmask[32], qs[64], scales[12], d
    const int h = j / 128, sh = (j % 128) / 32, l = j % 32, g = j / 16;
    const uint8_t * sc = b + 96;
    const int lo = g < 8 ? sc[g] & 15 : sc[g - 8] >> 4;
    const int hi = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
    int q = (b[32 + 32 * h + l] >> (2 * sh)) & 3;
    if (!((b[l] >> (4 * h + sh)) & 1)) {
        q -= 4;
    }
    return f16(b + 108) * ((lo | hi << 4) - 32) * q;
}

static void k4_scale_min(const uint8_t * s, int j, int * sc, int * m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
        *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

static double dec_q5_K(const uint8_t * b, int j) {
    // d, dmin, scales[12], qh[32], qs[128]
    int sc, m;
    k4_scale_min(b + 4, j / 32, &sc, &m);
    const int c = j / 64, l = j % 32, hi = (j % 64) >= 32;
    const int lo4 = hi ? b[48 + 32 * c + l] >> 4 : b[48 + 32 * c + l] & 15;
    const int q = lo4 | (((b[16 + l] >> (2 * c + hi)) & 1) << 4);
    return f16(b) * sc * q - f16(b + 2) * m;
}

static int tq1_digit_ref(int byte, int k) {
    // the byte is ceil(v * 256 / 243) for the 5-digit base-3 number v
    const int v = (byte * 243) >> 8;
    int p = 1;
    for (int i = k; i < 4; i++) {
        p *= 3;
    }
    return (v / p) % 3;
}

static double dec_tq1_0(const uint8_t * b, int j) {
    // qs[48], qh[4], d
    int t;
    if (j < 160) {
        t = tq1_digit_ref(b[j % 32], j / 32);
    } else if (j < 240) {
        t = tq1_digit_ref(b[32 + (j - 160) % 16], (j - 160) / 16);
    } else {
        t = tq1_digit_ref(b[48 + (j - 240) % 4], (j - 240) / 4);
    }
    return f16(b + 52) * (t - 1);
}

static double dec_tq2_0(const uint8_t * b, int j) {
    const int h = j / 128, k = (j % 128) / 32, m = j % 32;
    return f16(b + 64) * (((b[32 * h + m] >> (2 * k)) & 3) - 1);
}

static const double e2m1[16] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6 };

static double dec_mxfp4(const uint8_t * b, int j) {
    return ldexp(1.0, b[0] - 127) * e2m1[nib(b + 1, j, 0)];
}

static double ue4m3(int x) {
    if (x == 0 || x == 0x7f) {
        return 0;
    }
    const int e = (x >> 3) & 15, m = x & 7;
    return e == 0 ? ldexp(m / 8.0, -6) : ldexp(1.0 + m / 8.0, e - 7);
}

static double dec_nvfp4(const uint8_t * b, int j) {
    const int s = j / 16, r = j % 16;
    const uint8_t v = b[4 + 8 * s + r % 8];
    return ue4m3(b[s]) * e2m1[r < 8 ? v & 15 : v >> 4];
}

static const int iq4nl[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };

static double dec_iq4_nl(const uint8_t * b, int j) { return f16(b) * iq4nl[nib(b + 2, j, 0)]; }

static double dec_iq4_xs(const uint8_t * b, int j) {
    // d, scales_h (16 bits), scales_l[4], qs[128]
    const int ib = j / 32;
    const int sh = b[2] | (b[3] << 8);
    const int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 15) | (((sh >> (2 * ib)) & 3) << 4);
    return f16(b) * (ls - 32) * iq4nl[nib(b + 8 + 16 * ib, j % 32, 0)];
}

// signs of the 7-bit codes: bit 7 makes the count of set bits even
static int parity_sign(int code7, int j) {
    const int par = __builtin_popcount(code7) & 1;
    return ((j < 7 ? (code7 >> j) & 1 : par)) ? -1 : 1;
}

static double dec_iq2_xxs(const uint8_t * b, int j) {
    const int ib = j / 32, l = (j % 32) / 8, k = j % 8;
    const uint8_t * g = b + 2 + 8 * ib;
    const uint32_t w = (uint32_t) g[4] | (uint32_t) g[5] << 8 | (uint32_t) g[6] << 16 | (uint32_t) g[7] << 24;
    const int mag = (int) ((gk_iq2xxs_grid[g[l]] >> (8 * k)) & 0xff);
    return f16(b) * (0.5 + (w >> 28)) * 0.25 * mag * parity_sign((w >> (7 * l)) & 127, k);
}

static double dec_iq3_s(const uint8_t * b, int j) {
    // d, qs[64], qh[8], signs[32], scales[4]
    const int k = j / 8, half = (j % 8) / 4, e = j % 4, ib = j / 32;
    const int idx = b[2 + 2 * k + half] | (((b[66 + k / 4] >> (2 * (k % 4) + half)) & 1) << 8);
    const int mag = (int) ((gk_iq3s_grid[idx] >> (8 * e)) & 0xff);
    const int s = (b[106 + ib / 2] >> (4 * (ib % 2))) & 15;
    const int neg = (b[74 + k] >> (j % 8)) & 1;
    return f16(b) * (1 + 2 * s) * mag * (neg ? -1 : 1);
}

static double dec_iq1_m(const uint8_t * b, int j) {
    // qs[32], qh[16], scales[8] (4 x 16 bits; the fp16 d in their top nibbles)
    uint16_t sc[4];
    for (int i = 0; i < 4; i++) {
        sc[i] = (uint16_t) (b[48 + 2 * i] | (b[49 + 2 * i] << 8));
    }
    const uint16_t dbits = (uint16_t) ((sc[0] >> 12) | ((sc[1] >> 12) << 4) | ((sc[2] >> 12) << 8) | ((sc[3] >> 12) << 12));
    const double d = ggml_fp16_to_fp32(dbits);
    const int k = j / 8, g = j / 16;
    const int nibble = (b[32 + k / 2] >> (4 * (k % 2))) & 15;
    const int idx = b[k] | ((nibble & 7) << 8);
    const int v = (int8_t) ((gk_iq1s_grid[idx] >> (8 * (j % 8))) & 0xff);
    const int s = (sc[g / 4] >> (3 * (g % 4))) & 7;
    return d * (2 * s + 1) * (v + ((nibble & 8) ? -0.125 : 0.125));
}

struct dec_case {
    enum ggml_type type;
    double (*dec)(const uint8_t * b, int j);
    int fp16_at[4]; // offsets of fp16 fields to keep finite (-1: none)
};

static const struct dec_case dec_cases[] = {
    { GGML_TYPE_Q4_1, dec_q4_1, { 0, 2, -1, -1 } },     { GGML_TYPE_Q5_0, dec_q5_0, { 0, -1, -1, -1 } },
    { GGML_TYPE_Q5_1, dec_q5_1, { 0, 2, -1, -1 } },     { GGML_TYPE_Q1_0, dec_q1_0, { 0, -1, -1, -1 } },
    { GGML_TYPE_Q2_0, dec_q2_0, { 0, -1, -1, -1 } },    { GGML_TYPE_Q2_K, dec_q2_K, { 80, 82, -1, -1 } },
    { GGML_TYPE_Q3_K, dec_q3_K, { 108, -1, -1, -1 } },  { GGML_TYPE_Q5_K, dec_q5_K, { 0, 2, -1, -1 } },
    { GGML_TYPE_TQ1_0, dec_tq1_0, { 52, -1, -1, -1 } }, { GGML_TYPE_TQ2_0, dec_tq2_0, { 64, -1, -1, -1 } },
    { GGML_TYPE_MXFP4, dec_mxfp4, { -1, -1, -1, -1 } }, { GGML_TYPE_NVFP4, dec_nvfp4, { -1, -1, -1, -1 } },
    { GGML_TYPE_IQ4_NL, dec_iq4_nl, { 0, -1, -1, -1 } }, { GGML_TYPE_IQ4_XS, dec_iq4_xs, { 0, -1, -1, -1 } },
    { GGML_TYPE_IQ2_XXS, dec_iq2_xxs, { 0, -1, -1, -1 } }, { GGML_TYPE_IQ3_S, dec_iq3_s, { 0, -1, -1, -1 } },
    { GGML_TYPE_IQ1_M, dec_iq1_m, { -1, -1, -1, -1 } },
};

TEST(dequantize_matches_format) {
    enum { NB = 40 };
    for (size_t c = 0; c < sizeof(dec_cases) / sizeof(dec_cases[0]); c++) {
        const struct dec_case * dc = &dec_cases[c];
        const int blck = (int) ggml_blck_size(dc->type);
        const size_t bs = ggml_type_size(dc->type);
        uint8_t * q = malloc(NB * bs);
        float * y = malloc(sizeof(float) * NB * (size_t) blck);
        for (size_t i = 0; i < NB * bs; i++) {
            q[i] = (uint8_t) rnd64();
        }
        for (int b = 0; b < NB; b++) {
            for (int f = 0; f < 4 && dc->fp16_at[f] >= 0; f++) {
                // a finite scale between 2^-8 and 2^3 of either sign
                const ggml_fp16_t h = ggml_fp32_to_fp16((float) ldexp(1.0 + (double) (rnd64() % 1000) / 1000.0,
                                                                     (int) (rnd64() % 12) - 8) * ((rnd64() & 1) ? -1.f : 1.f));
                memcpy(q + (size_t) b * bs + dc->fp16_at[f], &h, 2);
            }
            if (dc->type == GGML_TYPE_IQ1_M) {
                // its d lives in the top nibbles of the scale words: keep it finite
                q[(size_t) b * bs + 55] &= 0x3f;
            }
        }
        ggml_get_type_traits(dc->type)->to_float(q, y, (int64_t) NB * blck);
        int bad = 0;
        for (int b = 0; b < NB && bad < 3; b++) {
            for (int j = 0; j < blck; j++) {
                const double want = dc->dec(q + (size_t) b * bs, j);
                const double got = y[b * blck + j];
                if (fabs(got - want) > 1e-6 * fabs(want) + 1e-30) {
                    if (bad++ < 3) {
                        TH_LOG("%s block %d value %d: %.9g, the format says %.9g", ggml_type_name(dc->type), b, j, got, want);
                    }
                }
            }
        }
        EXPECT_EQ(0, bad) TH_LOG("%s", ggml_type_name(dc->type));
        free(q);
        free(y);
    }
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

struct rt_case {
    enum ggml_type type;
    double nmse;
    int rows, n; // smaller for the slow exhaustive grid searches
};

static const struct rt_case rt_cases[] = {
    { GGML_TYPE_Q4_1, 8e-3, 8, 1024 },   { GGML_TYPE_Q5_0, 2.5e-3, 8, 1024 }, { GGML_TYPE_Q5_1, 2e-3, 8, 1024 },
    { GGML_TYPE_Q2_K, 0.1, 8, 1024 },    { GGML_TYPE_Q3_K, 0.03, 8, 1024 },   { GGML_TYPE_Q5_K, 1.7e-3, 8, 1024 },
    { GGML_TYPE_IQ4_NL, 8e-3, 8, 1024 }, { GGML_TYPE_IQ4_XS, 8e-3, 8, 1024 }, { GGML_TYPE_MXFP4, 0.018, 8, 1024 },
    { GGML_TYPE_NVFP4, 0.012, 8, 1024 }, { GGML_TYPE_TQ1_0, 0.3, 8, 1024 },   { GGML_TYPE_TQ2_0, 0.3, 8, 1024 },
    { GGML_TYPE_Q1_0, 0.5, 8, 1024 },    { GGML_TYPE_Q2_0, 0.19, 8, 1024 },
    { GGML_TYPE_IQ2_XXS, 0.16, 1, 512 }, { GGML_TYPE_IQ2_XS, 0.12, 1, 512 },  { GGML_TYPE_IQ2_S, 0.08, 1, 512 },
    { GGML_TYPE_IQ3_XXS, 0.045, 1, 512 }, { GGML_TYPE_IQ3_S, 0.025, 1, 512 }, { GGML_TYPE_IQ1_S, 0.3, 1, 512 },
    { GGML_TYPE_IQ1_M, 0.25, 1, 512 },
};

static double wnmse(const float * x, const float * y, const float * w, int64_t rows, int64_t n) {
    double e = 0, s = 0;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t i = 0; i < n; i++) {
            const double ww = w ? w[i] : 1.0;
            const double d = (double) y[r * n + i] - x[r * n + i];
            e += ww * d * d;
            s += ww * (double) x[r * n + i] * x[r * n + i];
        }
    }
    return e / s;
}

TEST(round_trip) {
    for (size_t c = 0; c < sizeof(rt_cases) / sizeof(rt_cases[0]); c++) {
        const struct rt_case * rc = &rt_cases[c];
        const int64_t total = (int64_t) rc->rows * rc->n;
        float * x = malloc(sizeof(float) * (size_t) total);
        float * y = malloc(sizeof(float) * (size_t) total);
        float * im = malloc(sizeof(float) * (size_t) rc->n);
        void * q = malloc(ggml_row_size(rc->type, rc->n) * (size_t) rc->rows);
        for (int64_t i = 0; i < total; i++) {
            x[i] = normalish();
        }
        for (int i = 0; i < rc->n; i++) {
            im[i] = 1.0f;
        }
        const bool need = ggml_quantize_requires_imatrix(rc->type);
        ASSERT_EQ(ggml_row_size(rc->type, rc->n) * (size_t) rc->rows,
                  ggml_quantize_chunk(rc->type, x, q, 0, rc->rows, rc->n, need ? im : NULL));
        ggml_get_type_traits(rc->type)->to_float(q, y, total);
        const double e = wnmse(x, y, NULL, rc->rows, rc->n);
        EXPECT_LT(e, rc->nmse) TH_LOG("%s: nmse %.5f", ggml_type_name(rc->type), e);
        TH_LOG("%s nmse %.5f (bound %.3g)", ggml_type_name(rc->type), e, rc->nmse);
        const ggml_from_float_t ref = ggml_get_type_traits(rc->type)->from_float_ref;
        if (ref) {
            // the traits' quantizer is the chunk quantizer without weights
            void * q2 = malloc(ggml_row_size(rc->type, rc->n));
            const int64_t last = rc->rows - 1;
            ref(x + last * rc->n, q2, rc->n);
            EXPECT_EQ(0, memcmp((char *) q + (size_t) last * ggml_row_size(rc->type, rc->n), q2, ggml_row_size(rc->type, rc->n)));
            free(q2);
        }
        // the importance matrix: a column weighted 100x more ends up with a
        // smaller share of the weighted error than without it
        for (int i = 0; i < rc->n; i++) {
            im[i] = i % 4 == 0 ? 100.0f : 1.0f;
        }
        ggml_quantize_chunk(rc->type, x, q, 0, rc->rows, rc->n, im);
        ggml_get_type_traits(rc->type)->to_float(q, y, total);
        const double ew = wnmse(x, y, im, rc->rows, rc->n);
        if (need) {
            for (int i = 0; i < rc->n; i++) {
                im[i] = 1.0f;
            }
        }
        ggml_quantize_chunk(rc->type, x, q, 0, rc->rows, rc->n, need ? im : NULL);
        ggml_get_type_traits(rc->type)->to_float(q, y, total);
        for (int i = 0; i < rc->n; i++) {
            im[i] = i % 4 == 0 ? 100.0f : 1.0f;
        }
        const double eu = wnmse(x, y, im, rc->rows, rc->n);
        if (rc->type != GGML_TYPE_Q1_0) { // signs only: the weights cannot move values
            EXPECT_LT(ew, eu) TH_LOG("%s: weighted error %.5f with the matrix, %.5f without", ggml_type_name(rc->type), ew, eu);
        }
        free(x);
        free(y);
        free(im);
        free(q);
    }
}

TEST(quantize_chunk_offsets_and_zeros) {
    // rows quantized in two chunks land where one chunk puts them; all-zero
    // input decodes to zeros for every type
    for (size_t c = 0; c < sizeof(rt_cases) / sizeof(rt_cases[0]); c++) {
        const enum ggml_type t = rt_cases[c].type;
        const int64_t n = 256, rows = 3;
        float x[768], y[768], im[256];
        for (int i = 0; i < 768; i++) {
            x[i] = i < 512 ? normalish() : 0.0f;
        }
        for (int i = 0; i < 256; i++) {
            im[i] = 1.0f;
        }
        const size_t rs = ggml_row_size(t, n);
        uint8_t a[3 * 256], b[3 * 256];
        memset(b, 0xee, sizeof(b));
        ggml_quantize_chunk(t, x, a, 0, rows, n, im);
        ggml_quantize_chunk(t, x, b, 0, 1, n, im);
        ggml_quantize_chunk(t, x, b, n, 2, n, im);
        EXPECT_EQ(0, memcmp(a, b, rs * rows)) TH_LOG("%s", ggml_type_name(t));
        ggml_get_type_traits(t)->to_float(a + 2 * rs, y, n);
        for (int i = 0; i < n; i++) {
            EXPECT_EQ(0.0f, y[i]) TH_LOG("%s zero row value %d", ggml_type_name(t), i);
        }
    }
}

// ---------------------------------------------------------------------------
// Dots
// ---------------------------------------------------------------------------

// activations back to float (Q8_1 and Q8_K have no to_float in the table)
static void act_to_float(enum ggml_type act, const void * q, float * y, int64_t n) {
    if (act == GGML_TYPE_Q8_K) {
        dequantize_row_q8_K(q, y, n);
    } else if (act == GGML_TYPE_Q8_1) {
        const block_q8_1 * b = q;
        for (int64_t i = 0; i < n; i++) {
            y[i] = ggml_fp16_to_fp32(b[i / 32].d) * (float) b[i / 32].qs[i % 32];
        }
    } else {
        ggml_get_type_traits(act)->to_float(q, y, n);
    }
}

TEST(vec_dot_against_dequantized) {
    const int64_t n = 512;
    float x[1024], a[1024], xd[1024], ad[1024], im[1024];
    uint8_t xq[4 * 1024], aq[4 * 1024];
    for (int i = 0; i < n; i++) {
        im[i] = 1.0f;
    }
    for (size_t c = 0; c < sizeof(rt_cases) / sizeof(rt_cases[0]); c++) {
        const enum ggml_type t = rt_cases[c].type;
        const enum ggml_type act = ggml_cpu_qt_act_type(t);
        ASSERT_NE(GGML_TYPE_COUNT, act);
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < n; i++) {
                x[i] = normalish() * (rep == 2 ? 1e-3f : 1.0f);
                a[i] = normalish() + (rep == 1 ? 2.0f : 0.0f); // rep 1: activations with an offset (the mins)
            }
            ggml_quantize_chunk(t, x, xq, 0, 1, n, im);
            ggml_get_type_traits_cpu(act)->from_float(a, aq, n);
            ggml_get_type_traits(t)->to_float(xq, xd, n);
            act_to_float(act, aq, ad, n);
            double want = 0, mag = 0;
            for (int i = 0; i < n; i++) {
                want += (double) xd[i] * ad[i];
                mag += fabs((double) xd[i] * ad[i]);
            }
            const ggml_cpu_qdot_fn ref = ggml_cpu_qt_dot(t, true);
            const ggml_cpu_qdot_fn fast = ggml_cpu_qt_dot(t, false);
            const double got = ref(n, xq, aq);
            EXPECT_LE(fabs(got - want), 2e-6 * mag + 1e-12) TH_LOG("%s portable: %.9g want %.9g", ggml_type_name(t), got, want);
            const double gf = fast(n, xq, aq);
            EXPECT_LE(fabs(gf - want), 2e-6 * mag + 1e-12) TH_LOG("%s dispatched: %.9g want %.9g", ggml_type_name(t), gf, want);
            // the traits' vec_dot is the same
            float s = NAN;
            ggml_get_type_traits_cpu(t)->vec_dot((int) n, &s, 0, xq, 0, aq, 0, 1);
            EXPECT_LE(fabs(s - want), 2e-6 * mag + 1e-12) TH_LOG("%s vec_dot", ggml_type_name(t));
        }
    }
}

// The SIMD kernels against the portable ones on random blocks (any bytes,
// finite scales) and activations full of +-127: integer sums exact, so the
// results agree to float rounding of the block scales
TEST(simd_vs_portable_random_blocks) {
    static const enum ggml_type simd_types[] = { GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_Q2_K,
                                                 GGML_TYPE_Q3_K, GGML_TYPE_Q5_K, GGML_TYPE_MXFP4,
                                                 GGML_TYPE_Q4_1, GGML_TYPE_Q5_1, GGML_TYPE_Q5_0,
                                                 GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S,
                                                 GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S,
#if defined(__x86_64__)
                                                 GGML_TYPE_NVFP4, GGML_TYPE_TQ2_0,
#endif
    };
    const int64_t n = 2048;
    // pass 0: the kernels this CPU runs (AVX512-VNNI ones where it has
    // them); pass 1: with avx512 disabled (the AVX2 ones)
    for (int pass = 0; pass < 2; pass++) {
    ggml_cpu_isa_disable(pass ? "avx512" : NULL);
    for (size_t c = 0; c < sizeof(simd_types) / sizeof(simd_types[0]); c++) {
        const enum ggml_type t = simd_types[c];
        const ggml_cpu_qdot_fn ref = ggml_cpu_qt_dot(t, true), fast = ggml_cpu_qt_dot(t, false);
#if defined(__x86_64__)
        if (ggml_cpu_fast_x86()) {
            EXPECT_NE(ref, fast) TH_LOG("%s: no AVX2 kernel chosen", ggml_type_name(t));
        }
#elif defined(__aarch64__)
        if (ggml_cpu_isa()->neon) {
            EXPECT_NE(ref, fast) TH_LOG("%s: no NEON kernel chosen", ggml_type_name(t));
        }
#endif
        // where the fp16 scales are (from the decoder table; d first for the
        // codebook types without a decoder here)
        static const struct dec_case d_first = { GGML_TYPE_COUNT, NULL, { 0, -1, -1, -1 } };
        const struct dec_case * dc = &d_first;
        for (size_t k = 0; k < sizeof(dec_cases) / sizeof(dec_cases[0]); k++) {
            if (dec_cases[k].type == t) {
                dc = &dec_cases[k];
            }
        }
        const size_t bs = ggml_type_size(t);
        const int64_t nb = n / ggml_blck_size(t);
        uint8_t * q = malloc((size_t) nb * bs);
        float * a = malloc(sizeof(float) * (size_t) n);
        float * xd = malloc(sizeof(float) * (size_t) n);
        float * ad = malloc(sizeof(float) * (size_t) n);
        uint8_t * aq = malloc(4 * (size_t) n);
        const enum ggml_type act = ggml_cpu_qt_act_type(t);
        for (int rep = 0; rep < 20; rep++) {
            // reps 10..19 of the 32-value types: an odd number of blocks
            const int64_t nn = ggml_blck_size(t) < 256 && rep >= 10 ? n - ggml_blck_size(t) : n;
            for (size_t i = 0; i < (size_t) nb * bs; i++) {
                q[i] = (uint8_t) rnd64();
            }
            for (int64_t b = 0; b < nb; b++) {
                for (int f = 0; f < 4 && dc->fp16_at[f] >= 0; f++) {
                    const ggml_fp16_t h = ggml_fp32_to_fp16((float) ldexp(1.0 + (double) (rnd64() % 1000) / 1000.0,
                                                                         (int) (rnd64() % 8) - 6));
                    memcpy(q + (size_t) b * bs + dc->fp16_at[f], &h, 2);
                }
                if (t == GGML_TYPE_MXFP4) {
                    q[(size_t) b * bs] = (uint8_t) (110 + rnd64() % 30); // E8M0 2^-17 .. 2^12
                }
            }
            for (int64_t i = 0; i < nn; i++) {
                // rep % 2: every activation at +-max (all +-127 after quantizing)
                a[i] = rep % 2 ? ((rnd64() & 1) ? 1.0f : -1.0f) : normalish();
            }
            ggml_get_type_traits_cpu(act)->from_float(a, aq, nn);
            ggml_get_type_traits(t)->to_float(q, xd, nn);
            act_to_float(act, aq, ad, nn);
            double mag = 0;
            for (int64_t i = 0; i < nn; i++) {
                mag += fabs((double) xd[i] * ad[i]);
            }
            const double r = ref(nn, q, aq), f = fast(nn, q, aq);
            EXPECT_LE(fabs(r - f), 2e-6 * mag + 1e-12) TH_LOG("%s pass %d rep %d: portable %.9g simd %.9g",
                                                           ggml_type_name(t), pass, rep, r, f);
        }
        free(q);
        free(a);
        free(xd);
        free(ad);
        free(aq);
    }
    }
    ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

// Q8_1 weights (upstream gives Q8_1 a dot with itself)
TEST(q8_1_dot) {
    const int64_t n = 1024;
    float x[1024], a[1024];
    block_q8_1 xq[32], aq[32];
    for (int rep = 0; rep < 4; rep++) {
        for (int i = 0; i < n; i++) {
            x[i] = normalish();
            a[i] = rep % 2 ? ((rnd64() & 1) ? 3.0f : -3.0f) : normalish();
        }
        ggml_get_type_traits(GGML_TYPE_Q8_1)->from_float_ref(x, xq, n);
        ggml_get_type_traits_cpu(GGML_TYPE_Q8_1)->from_float(a, aq, n);
        double want = 0, mag = 0;
        for (int i = 0; i < n; i++) {
            const double p = (double) ggml_fp16_to_fp32(xq[i / 32].d) * xq[i / 32].qs[i % 32] *
                             (double) ggml_fp16_to_fp32(aq[i / 32].d) * aq[i / 32].qs[i % 32];
            want += p;
            mag += fabs(p);
        }
        EXPECT_LE(fabs(ggml_cpu_qt_dot(GGML_TYPE_Q8_1, true)(n, xq, aq) - want), 2e-6 * mag);
        EXPECT_LE(fabs(ggml_cpu_qt_dot(GGML_TYPE_Q8_1, false)(n, xq, aq) - want), 2e-6 * mag);
    }
}

// MUL_MAT through a graph on the CPU: every new weight type against the
// product of its dequantized weights with the activations as its vec_dot
// type sees them
TEST(mul_mat_every_type) {
    const int64_t k = 512, m = 3, ncol = 3;
    for (size_t c = 0; c < sizeof(rt_cases) / sizeof(rt_cases[0]); c++) {
        const enum ggml_type t = rt_cases[c].type;
        struct ggml_init_params ip = { 16 << 20, NULL, false };
        struct ggml_context * ctx = ggml_init(ip);
        ASSERT_NE(NULL, ctx);
        struct ggml_tensor * w = ggml_new_tensor_2d(ctx, t, k, m);
        struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, ncol);
        float * wf = malloc(sizeof(float) * (size_t) (k * m));
        float im[512];
        for (int i = 0; i < k; i++) {
            im[i] = 1.0f;
        }
        for (int64_t i = 0; i < k * m; i++) {
            wf[i] = normalish();
        }
        for (int64_t i = 0; i < k * ncol; i++) {
            ((float *) a->data)[i] = normalish();
        }
        ggml_quantize_chunk(t, wf, w->data, 0, m, k, im);
        struct ggml_tensor * out = ggml_mul_mat(ctx, w, a);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_graph_compute_with_ctx(ctx, gf, 2));
        const enum ggml_type act = ggml_cpu_qt_act_type(t);
        float wd[512], ad[512];
        uint8_t aq[4 * 512];
        for (int64_t j = 0; j < ncol; j++) {
            ggml_get_type_traits_cpu(act)->from_float((float *) a->data + j * k, aq, k);
            act_to_float(act, aq, ad, k);
            for (int64_t i = 0; i < m; i++) {
                ggml_get_type_traits(t)->to_float((char *) w->data + i * w->nb[1], wd, k);
                double want = 0, mag = 0;
                for (int64_t l = 0; l < k; l++) {
                    want += (double) wd[l] * ad[l];
                    mag += fabs((double) wd[l] * ad[l]);
                }
                const float got = ((float *) out->data)[j * m + i];
                EXPECT_LE(fabs(got - want), 2e-6 * mag + 1e-9) TH_LOG("%s [%ld,%ld]: %.7g want %.7g",
                                                                     ggml_type_name(t), (long) i, (long) j, got, want);
            }
        }
        free(wf);
        ggml_free(ctx);
    }
}

// A GGUF tensor's rows are checked before use: a NaN or Inf scale in any
// block of any type is refused, a finite one accepted
TEST(validate_row_data_every_type) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const struct ggml_type_traits * tt = ggml_get_type_traits((enum ggml_type) t);
        if (!tt->is_quantized || t == GGML_TYPE_NVFP4) {
            continue;
        }
        const size_t bs = tt->type_size;
        uint8_t * q = calloc(4, bs);
        EXPECT_TRUE(ggml_validate_row_data((enum ggml_type) t, q, 4 * bs)) TH_LOG("%s zeros", tt->type_name);
        EXPECT_FALSE(ggml_validate_row_data((enum ggml_type) t, q, 4 * bs - 1)) TH_LOG("%s size", tt->type_name);
        // the third block's scale made NaN
        uint8_t * b = q + 2 * bs;
        switch (t) {
            case GGML_TYPE_Q8_K: { const float nan = NAN; memcpy(b, &nan, 4); break; }
            case GGML_TYPE_MXFP4: b[0] = 0xff; break;
            case GGML_TYPE_IQ1_M: b[bs - 1] = 0x7f; b[bs - 3] |= 0xe0; break; // fp16 0x7e.. (NaN)
            case GGML_TYPE_Q2_K: b[81] = 0x7e; break;                         // d at 80
            case GGML_TYPE_Q3_K: b[109] = 0x7e; break;                        // d at 108
            case GGML_TYPE_Q6_K: b[209] = 0x7e; break;                        // d at 208
            case GGML_TYPE_TQ1_0: b[53] = 0x7e; break;                        // d at 52
            case GGML_TYPE_TQ2_0: b[65] = 0x7e; break;                        // d at 64
            default: b[1] = 0x7e; break;                                       // d first
        }
        EXPECT_FALSE(ggml_validate_row_data((enum ggml_type) t, q, 4 * bs)) TH_LOG("%s NaN scale accepted", tt->type_name);
        free(q);
    }
}

// ---------------------------------------------------------------------------
// The quantizers' level searches (ggml-quants-fit.c: four values a vector,
// branchless) against the scalar rules, written here: the first level of
// least |v - s lev| (tables in any order), rintf(v / s) clamped (ranges),
// the bisection of v / s and the nearer neighbour (sorted tables); any
// non-finite quotient or s = 0 by the scan. The error is summed in order.
// ---------------------------------------------------------------------------

static int ref_scan(float v, float s, const int8_t * lev, int nlev) {
    int best = 0;
    float be = INFINITY;
    for (int l = 0; l < nlev; l++) {
        const float e = fabsf(v - s * (float) lev[l]);
        if (e < be) {
            be = e;
            best = l;
        }
    }
    return best;
}

static int ref_level(float v, float s, const int8_t * lev, int nlev) {
    bool range = true, sorted = true;
    for (int l = 1; l < nlev; l++) {
        range = range && lev[l] == lev[l - 1] + 1;
        sorted = sorted && lev[l] > lev[l - 1];
    }
    if ((!range && !sorted) || s == 0.0f || !isfinite(v / s)) {
        return ref_scan(v, s, lev, nlev);
    }
    const float t = v / s;
    if (range) {
        const float r = rintf(t) - (float) lev[0];
        return r < 0.0f ? 0 : r > (float) (nlev - 1) ? nlev - 1 : (int) r;
    }
    int lo = nlev - 1;
    for (int l = 0; l < nlev - 1; l++) {
        if ((float) lev[l] >= t) {
            lo = l;
            break;
        }
    }
    if (lo > 0 && t - (float) lev[lo - 1] <= (float) lev[lo] - t) {
        lo--;
    }
    return lo;
}

TEST(level_searches_match_scalar_rules) {
    int8_t range8[8], range3[3], any16[16], sorted12[12], sym8[8];
    gq_range_levels(-4, 3, range8);
    gq_range_levels(-1, 1, range3);
    for (int l = 0; l < 16; l++) {
        any16[l] = (int8_t) ((int) (rnd64() % 255) - 127);
    }
    for (int l = 0, v = -100; l < 12; l++) {
        v += 1 + (int) (rnd64() % 17);
        sorted12[l] = (int8_t) v;
    }
    static const int8_t sym4[4] = { 0, 1, 3, 7 };
    for (int k = 0; k < 4; k++) {
        sym8[k] = sym4[k];
        sym8[4 + k] = (int8_t) -sym4[k];
    }
    const struct {
        const int8_t * lev;
        int nlev;
    } tabs[] = {
        { range8, 8 }, { range3, 3 }, { gk_kvalues_iq4nl, 16 }, { gk_kvalues_fp4, 16 },
        { any16, 16 }, { sorted12, 12 }, { sym8, 8 },
    };
    const float specials[] = { 0.0f, -0.0f, NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e-42f, -1e-42f, 1e-30f };
    int checked = 0;
    for (size_t ti = 0; ti < sizeof(tabs) / sizeof(tabs[0]); ti++) {
        const int8_t * lev = tabs[ti].lev;
        const int nlev = tabs[ti].nlev;
        for (int trial = 0; trial < 400; trial++) {
            float s = normalish() * powf(10.0f, (float) ((int) (rnd64() % 9) - 4));
            switch (trial % 23) {
                case 0: s = 0.0f; break;
                case 1: s = INFINITY; break;
                case 2: s = NAN; break;
                case 3: s = 1e-40f; break;
                case 4: s = 2e37f; break;
                case 5: s = fabsf(s); break;
                default: break;
            }
            float x[37], w[37];
            for (int i = 0; i < 37; i++) {
                const int a = (int) (rnd64() % (uint64_t) nlev), b = (int) (rnd64() % (uint64_t) nlev);
                switch (rnd64() % 8) {
                    case 0: x[i] = specials[rnd64() % 10]; break;
                    case 1: x[i] = s * 0.5f * (float) (lev[a] + lev[b]); break; // a tie, or near one
                    case 2: x[i] = s * (float) lev[a]; break;
                    default: x[i] = normalish() * s * 40.0f; break;
                }
                w[i] = (float) (rnd64() % 1000) / 100.0f;
            }
            if (trial % 7 == 0) {
                w[trial % 37] = -1.0f;
            }
            for (int wi = 0; wi < 2; wi++) {
                const float * wp = wi ? w : NULL;
                uint8_t got[37];
                const double e = gq_err_levels(x, wp, 37, s, lev, nlev, got);
                double want_e = 0;
                for (int i = 0; i < 37; i++) {
                    const int l = ref_level(x[i], s, lev, nlev);
                    ASSERT_EQ(got[i], l) TH_LOG("table %zu s %a x %a: level %d, want %d", ti, s, x[i], got[i], l);
                    const double d = (double) x[i] - (double) s * lev[l];
                    want_e += (wp ? (double) wp[i] : 1.0) * d * d;
                }
                EXPECT_TRUE(memcmp(&e, &want_e, sizeof(e)) == 0 || (isnan(e) && isnan(want_e)))
                    TH_LOG("table %zu s %a: error %a, want %a", ti, s, e, want_e);
                checked++;
            }
        }
    }
    EXPECT_EQ(checked, 7 * 400 * 2);
}

TEST_HARNESS_MAIN
