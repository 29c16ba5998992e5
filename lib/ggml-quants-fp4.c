/*
 * ggml-quants-fp4.c - dequantization and reference quantization of the FP4
 * types (MXFP4, NVFP4) and the ternary ones (TQ1_0, TQ2_0).
 *
 * FP4: each block (MXFP4) or 16-value sub-block (NVFP4) takes the scale
 * code near max|x| / 12 (12 is the largest doubled E2M1 value) or one of
 * its neighbours, whichever gives the smallest error with every value at
 * its nearest E2M1 value. Ternary: the least-squares scale of {-1, 0, 1}.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "ggml-impl.h"
#include "backends/cpu/kernels/gk-iq-tables.h"

#include <math.h>
#include <string.h>

void dequantize_row_mxfp4(const block_mxfp4 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_MXFP4 == 0);
    gk_dequantize_row_unpack(gk_unpack_mxfp4, QK_MXFP4, sizeof(block_mxfp4), x, y, k);
}

void dequantize_row_nvfp4(const block_nvfp4 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_NVFP4 == 0);
    gk_dequantize_row_unpack(gk_unpack_nvfp4, QK_NVFP4, sizeof(block_nvfp4), x, y, k);
}

void dequantize_row_tq1_0(const block_tq1_0 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_unpack(gk_unpack_tq1_0, QK_K, sizeof(block_tq1_0), x, y, k);
}

void dequantize_row_tq2_0(const block_tq2_0 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_unpack(gk_unpack_tq2_0, QK_K, sizeof(block_tq2_0), x, y, k);
}

static float amax_of(const float * x, int n) {
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
        const float a = fabsf(x[i]);
        m = a > m ? a : m; // fmaxf(m, a): NaN left out
    }
    return m;
}

// the E2M1 codes idx: low nibbles values 0..h-1, high h..2h-1
static void fp4_pack_idx(const uint8_t * idx, int n, uint8_t * qs) {
    for (int j = 0; j < n / 2; j++) {
        qs[j] = (uint8_t) (idx[j] | (idx[j + n / 2] << 4));
    }
}

static void mxfp4_impl(const float * x, block_mxfp4 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_MXFP4 == 0);
    struct gq_levels fp4;
    gq_levels_init(&fp4, gk_kvalues_fp4, 16);
    for (int64_t i = 0; i < k / QK_MXFP4; i++) {
        const float * xb = x + i * QK_MXFP4;
        const float * wb = w ? w + i * QK_MXFP4 : NULL;
        const float amax = amax_of(xb, QK_MXFP4);
        int e = 0;
        uint8_t idx[2][QK_MXFP4]; // the winner's codes, the trial's
        int won = -1;
        if (amax > 0.0f && isfinite(amax)) {
            int p;
            frexpf(amax / 12.0f, &p); // amax / 12 < 2^p
            const int e0 = gq_clampi(128 + p, 0, 254);
            double best = INFINITY;
            for (int c = e0 - 2; c <= e0 + 1; c++) {
                if (c < 0 || c > 254) {
                    continue;
                }
                const int t = won == 0 ? 1 : 0;
                const double err = gq_levels_err(&fp4, xb, wb, QK_MXFP4, gk_e8m0_half_to_fp32((uint8_t) c), idx[t]);
                if (err < best) {
                    best = err;
                    e = c;
                    won = t;
                }
            }
        }
        y[i].e = (uint8_t) e;
        if (won < 0) { // the codes depend on the scale only, not on the weights
            won = 0;
            gq_levels_err(&fp4, xb, NULL, QK_MXFP4, amax > 0.0f ? gk_e8m0_half_to_fp32((uint8_t) e) : 0.0f, idx[0]);
        }
        fp4_pack_idx(idx[won], QK_MXFP4, y[i].qs);
    }
}

// the UE4M3 code (1..0x7e) whose value is nearest to t
static int ue4m3_nearest(float t) {
    int best = 1;
    float be = INFINITY;
    for (int c = 1; c <= 0x7e; c++) {
        const float e = fabsf(gk_ue4m3_half_to_fp32((uint8_t) c) - t);
        if (e < be) {
            be = e;
            best = c;
        }
    }
    return best;
}

static void nvfp4_impl(const float * x, block_nvfp4 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_NVFP4 == 0);
    struct gq_levels fp4;
    gq_levels_init(&fp4, gk_kvalues_fp4, 16);
    for (int64_t i = 0; i < k / QK_NVFP4; i++) {
        for (int s = 0; s < QK_NVFP4 / QK_NVFP4_SUB; s++) {
            const float * xs = x + i * QK_NVFP4 + s * QK_NVFP4_SUB;
            const float * ws = w ? w + i * QK_NVFP4 + s * QK_NVFP4_SUB : NULL;
            const float amax = amax_of(xs, QK_NVFP4_SUB);
            int code = 0;
            uint8_t idx[2][QK_NVFP4_SUB];
            int won = -1;
            if (amax > 0.0f && isfinite(amax)) {
                const int c0 = ue4m3_nearest(amax / 12.0f);
                double best = INFINITY;
                for (int c = c0 - 1; c <= c0 + 1; c++) {
                    if (c < 1 || c > 0x7e) {
                        continue;
                    }
                    const int t = won == 0 ? 1 : 0;
                    const double err = gq_levels_err(&fp4, xs, ws, QK_NVFP4_SUB, gk_ue4m3_half_to_fp32((uint8_t) c),
                                                     idx[t]);
                    if (err < best) {
                        best = err;
                        code = c;
                        won = t;
                    }
                }
            }
            y[i].d[s] = (uint8_t) code;
            if (won < 0) {
                won = 0;
                gq_levels_err(&fp4, xs, NULL, QK_NVFP4_SUB, gk_ue4m3_half_to_fp32((uint8_t) code), idx[0]);
            }
            fp4_pack_idx(idx[won], QK_NVFP4_SUB, y[i].qs + s * (QK_NVFP4_SUB / 2));
        }
    }
}

// The indices of QK_K magnitudes (NaN taken as 0) by decreasing magnitude,
// equal ones in index order: a stable radix sort of the bits, which order
// as the values do for floats >= +0 (the order a stable comparison sort
// gives, as glibc's qsort here, without a call per comparison)
static void order_by_magnitude(const float * mag, int * order) {
    uint32_t key[QK_K]; // increasing key = decreasing magnitude
    int tmp[QK_K];
    int * src = order, * dst = tmp;
    for (int j = 0; j < QK_K; j++) {
        const float m = isnan(mag[j]) ? 0.0f : mag[j];
        uint32_t u;
        memcpy(&u, &m, sizeof(u));
        key[j] = ~u;
        src[j] = j;
    }
    for (int shift = 0; shift < 32; shift += 8) {
        int pos[257] = { 0 };
        for (int j = 0; j < QK_K; j++) {
            pos[((key[src[j]] >> shift) & 255) + 1]++;
        }
        for (int v = 0; v < 256; v++) {
            pos[v + 1] += pos[v];
        }
        for (int j = 0; j < QK_K; j++) {
            dst[pos[(key[src[j]] >> shift) & 255]++] = src[j];
        }
        int * t = src;
        src = dst;
        dst = t;
    }
    // four passes: the result is back in order[]
}

// ternary digits t = q + 1 (0..2) of a 256-value block: the exact weighted
// least-squares optimum. With the k largest |x| coded as +-1 and the rest 0,
// the best d is sum(w |x|) / sum(w) over those k; every k is tried.
static void ternary(const float * x, const float * w, ggml_half * d, uint8_t * t) {
    float mag[QK_K];
    int order[QK_K];
    for (int j = 0; j < QK_K; j++) {
        mag[j] = fabsf(x[j]);
    }
    order_by_magnitude(mag, order);
    double swx = 0, sw = 0, best = 0;
    int bestk = 0;
    for (int k = 1; k <= QK_K; k++) {
        const int j = order[k - 1];
        const double ww = w ? w[j] : 1.0;
        swx += ww * mag[j];
        sw += ww;
        // error reduction of coding the k largest at d = swx / sw
        const double gain = sw > 0 ? swx * swx / sw : 0;
        if (gain > best) {
            best = gain;
            bestk = k;
        }
    }
    double num = 0, den = 0;
    for (int k = 0; k < bestk; k++) {
        const int j = order[k];
        const double ww = w ? w[j] : 1.0;
        num += ww * mag[j];
        den += ww;
    }
    *d = ggml_fp32_to_fp16(den > 0 ? (float) (num / den) : 0.0f);
    static const int8_t lev[3] = { -1, 0, 1 };
    gq_err_levels(x, w, QK_K, ggml_fp16_to_fp32(*d), lev, 3, t); // index = q + 1
}

// five base-3 digits (most significant first) as a byte whose fraction of
// 256 falls in the digits' interval of 243
static uint8_t tq1_byte(const uint8_t * t, int stride, int ndig) {
    int v = 0;
    for (int k = 0; k < 5; k++) {
        v = 3 * v + (k < ndig ? t[k * stride] : 0);
    }
    return (uint8_t) ((v * 256 + 242) / 243);
}

static void tq1_0_impl(const float * x, block_tq1_0 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t t[QK_K];
        ternary(x + i * QK_K, w ? w + i * QK_K : NULL, &y[i].d, t);
        for (int m = 0; m < 32; m++) {
            y[i].qs[m] = tq1_byte(t + m, 32, 5);
        }
        for (int m = 0; m < 16; m++) {
            y[i].qs[32 + m] = tq1_byte(t + 160 + m, 16, 5);
        }
        for (int m = 0; m < 4; m++) {
            y[i].qh[m] = tq1_byte(t + 240 + m, 4, 4);
        }
    }
}

static void tq2_0_impl(const float * x, block_tq2_0 * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t t[QK_K];
        ternary(x + i * QK_K, w ? w + i * QK_K : NULL, &y[i].d, t);
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int h = 0; h < 2; h++) {
            for (int j = 0; j < 4; j++) {
                for (int m = 0; m < 32; m++) {
                    y[i].qs[32 * h + m] |= (uint8_t) (t[128 * h + 32 * j + m] << (2 * j));
                }
            }
        }
    }
}

void quantize_row_mxfp4_ref(const float * x, block_mxfp4 * y, int64_t k) { mxfp4_impl(x, y, k, NULL); }
void quantize_row_nvfp4_ref(const float * x, block_nvfp4 * y, int64_t k) { nvfp4_impl(x, y, k, NULL); }
void quantize_row_tq1_0_ref(const float * x, block_tq1_0 * y, int64_t k) { tq1_0_impl(x, y, k, NULL); }
void quantize_row_tq2_0_ref(const float * x, block_tq2_0 * y, int64_t k) { tq2_0_impl(x, y, k, NULL); }

GQ_CHUNK_W(mxfp4, GGML_TYPE_MXFP4)
GQ_CHUNK_W(nvfp4, GGML_TYPE_NVFP4)
GQ_CHUNK_W(tq1_0, GGML_TYPE_TQ1_0)
GQ_CHUNK_W(tq2_0, GGML_TYPE_TQ2_0)
