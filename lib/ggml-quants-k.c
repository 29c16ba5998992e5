/*
 * ggml-quants-k.c - dequantization and reference quantization of the
 * K-quants Q2_K, Q3_K, Q5_K and Q8_K (Q4_K and Q6_K are in ggml-quants.c).
 *
 * Per group (16 or 32 values) a scale - and for Q2_K/Q5_K a min - is
 * fitted (ggml-quants-fit.c); the group scales are then coded in 4 or 6
 * bits against the super-block's fp16 scales, each code taking the
 * neighbour of the rounded value that fits its group best, and the values
 * are quantized again with the coded scales.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

void dequantize_row_q2_K(const block_q2_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_unpack(gk_unpack_q2_K, QK_K, sizeof(block_q2_K), x, y, k);
}

void dequantize_row_q3_K(const block_q3_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_unpack(gk_unpack_q3_K, QK_K, sizeof(block_q3_K), x, y, k);
}

void dequantize_row_q5_K(const block_q5_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_unpack(gk_unpack_q5_K, QK_K, sizeof(block_q5_K), x, y, k);
}

void dequantize_row_q8_K(const block_q8_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_dequantize_row_q8_K(x, y, k);
}

void quantize_row_q8_K_ref(const float * x, block_q8_K * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    gk_quantize_row_q8_K(x, y, k);
}

static inline float h2f(ggml_half h) {
    return ggml_fp16_to_fp32(h);
}

static inline ggml_half f2h(float f) {
    return ggml_fp32_to_fp16(f);
}

static inline double wt(const float * w, int i) {
    return w ? (double) w[i] : 1.0;
}

// error of x ~ ds * q - dm, q = clamp(round((x + dm) / ds), 0, nmax); the q
// stored when q is not NULL
static double affine_group(const float * x, const float * w, int n, int nmax, float ds, float dm, uint8_t * q) {
    double err = 0;
    for (int l = 0; l < n; l++) {
        const int qq = ds > 0.0f ? gq_clampi(gq_lrint((x[l] + dm) / ds), 0, nmax) : 0;
        if (q) {
            q[l] = (uint8_t) qq;
        }
        const double e = (double) ds * qq - dm - x[l];
        err += wt(w, l) * e * e;
    }
    return err;
}

// ngroups groups of gs values, affine x ~ d*ls*q - dmin*lm: fits each group,
// sets d and dmin (largest scale and min over codemax), codes ls and lm
// (0..codemax) and quantizes q (0..nmax) with the coded values
static void affine_super(const float * x, const float * w, int ngroups, int gs, int nmax, int codemax,
                         ggml_half * d_out, ggml_half * dmin_out, uint8_t * ls, uint8_t * lm, uint8_t * q) {
    float s[16], m[16], smax = 0.0f, mmax = 0.0f;
    for (int g = 0; g < ngroups; g++) {
        float b;
        s[g] = gq_fit_affine(x + g * gs, w ? w + g * gs : NULL, gs, nmax, true, &b);
        m[g] = -b;
        smax = fmaxf(smax, s[g]);
        mmax = fmaxf(mmax, m[g]);
    }
    *d_out = f2h(smax / (float) codemax);
    *dmin_out = f2h(mmax / (float) codemax);
    const float d = h2f(*d_out), dmin = h2f(*dmin_out);
    for (int g = 0; g < ngroups; g++) {
        const float * xg = x + g * gs;
        const float * wg = w ? w + g * gs : NULL;
        const int a0 = d > 0.0f ? gq_clampi((int) lrintf(s[g] / d), 0, codemax) : 0;
        const int b0 = dmin > 0.0f ? gq_clampi((int) lrintf(m[g] / dmin), 0, codemax) : 0;
        double best = INFINITY;
        ls[g] = (uint8_t) a0;
        lm[g] = (uint8_t) b0;
        uint8_t trial[32]; // gs <= 32
        for (int a = a0 - 2; a <= a0 + 2; a++) {
            for (int b = b0 - 2; b <= b0 + 2; b++) {
                if (a < 0 || a > codemax || b < 0 || b > codemax) {
                    continue;
                }
                const double e = affine_group(xg, wg, gs, nmax, d * (float) a, dmin * (float) b, trial);
                if (e < best) {
                    best = e;
                    ls[g] = (uint8_t) a;
                    lm[g] = (uint8_t) b;
                    memcpy(q + g * gs, trial, (size_t) gs);
                }
            }
        }
        if (!(best < INFINITY)) { // no pair won: the rounded codes
            affine_group(xg, wg, gs, nmax, d * (float) ls[g], dmin * (float) lm[g], q + g * gs);
        }
    }
}

// --- Q2_K ----------------------------------------------------------------------
// Q2_K's four levels fit large values before small ones (weights |x|):
// on data whose products matter more where values are large (dot products
// with correlated activations) this halves the bias of the dots; the
// squared error grows a little (still below upstream's quantizer's)
#define Q2K_WEIGHT(v) fabsf(v)

static void q2_K_impl(const float * x, block_q2_K * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t ls[16], lm[16], q[QK_K];
        float wb[QK_K];
        for (int j = 0; j < QK_K; j++) {
            wb[j] = (w ? w[i * QK_K + j] : 1.0f) * Q2K_WEIGHT(x[i * QK_K + j]);
        }
        affine_super(x + i * QK_K, wb, 16, 16, 3, 15, &y[i].d, &y[i].dmin, ls, lm, q);
        for (int g = 0; g < 16; g++) {
            y[i].scales[g] = (uint8_t) (ls[g] | (lm[g] << 4));
        }
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int h = 0; h < 2; h++) {
            for (int j = 0; j < 4; j++) {
                for (int l = 0; l < 32; l++) {
                    y[i].qs[32 * h + l] |= (uint8_t) (q[128 * h + 32 * j + l] << (2 * j));
                }
            }
        }
    }
}

// --- Q5_K ----------------------------------------------------------------------

static void q5_K_impl(const float * x, block_q5_K * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t ls[8], lm[8], q[QK_K];
        affine_super(x + i * QK_K, w ? w + i * QK_K : NULL, 8, 32, 31, 63, &y[i].d, &y[i].dmin, ls, lm, q);
        // 6-bit scales and mins packed as Q4_K's (gk_q4_K_scale_min)
        memset(y[i].scales, 0, sizeof(y[i].scales));
        for (int j = 0; j < 8; j++) {
            if (j < 4) {
                y[i].scales[j]     = ls[j];
                y[i].scales[j + 4] = lm[j];
            } else {
                y[i].scales[j + 4] = (uint8_t) ((ls[j] & 0xf) | ((lm[j] & 0xf) << 4));
                y[i].scales[j - 4] |= (uint8_t) ((ls[j] >> 4) << 6);
                y[i].scales[j]     |= (uint8_t) ((lm[j] >> 4) << 6);
            }
        }
        memset(y[i].qh, 0, sizeof(y[i].qh));
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                const uint8_t q0 = q[64 * c + l], q1 = q[64 * c + 32 + l];
                y[i].qs[32 * c + l] = (uint8_t) ((q0 & 0xf) | ((q1 & 0xf) << 4));
                y[i].qh[l] |= (uint8_t) (((q0 >> 4) << (2 * c)) | ((q1 >> 4) << (2 * c + 1)));
            }
        }
    }
}

// --- Q3_K: levels -4..3 per group of 16, signed 6-bit group scales ----------------

static void q3_K_impl(const float * x, block_q3_K * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    int8_t lev[8];
    gq_range_levels(-4, 3, lev);
    struct gq_levels lv;
    gq_levels_init(&lv, lev, 8);
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float * xb = x + i * QK_K;
        const float * wb = w ? w + i * QK_K : NULL;
        float s[16], smax = 0.0f;
        for (int g = 0; g < 16; g++) {
            s[g] = gq_fit_levels(xb + 16 * g, wb ? wb + 16 * g : NULL, 16, lev, 8);
            if (fabsf(s[g]) > fabsf(smax)) {
                smax = s[g];
            }
        }
        // the largest scale codes as -32 exactly
        y[i].d = f2h(smax / -32.0f);
        const float d = h2f(y[i].d);
        uint8_t idx[QK_K];
        memset(y[i].scales, 0, sizeof(y[i].scales));
        for (int g = 0; g < 16; g++) {
            const float * xg = xb + 16 * g;
            const float * wg = wb ? wb + 16 * g : NULL;
            const int c0 = d != 0.0f ? gq_clampi((int) lrintf(s[g] / d), -32, 31) : 0;
            int c = c0;
            double best = INFINITY;
            uint8_t trial[16];
            for (int cc = c0 - 1; cc <= c0 + 1; cc++) {
                if (cc < -32 || cc > 31) {
                    continue;
                }
                const double e = gq_levels_err(&lv, xg, wg, 16, d * (float) cc, trial);
                if (e < best) {
                    best = e;
                    c = cc;
                    memcpy(idx + 16 * g, trial, sizeof(trial));
                }
            }
            if (!(best < INFINITY)) {
                gq_levels_err(&lv, xg, wg, 16, d * (float) c, idx + 16 * g);
            }
            const int v = c + 32;
            if (g < 8) {
                y[i].scales[g] |= (uint8_t) (v & 0xf);
            } else {
                y[i].scales[g - 8] |= (uint8_t) ((v & 0xf) << 4);
            }
            y[i].scales[8 + g % 4] |= (uint8_t) ((v >> 4) << (2 * (g / 4)));
        }
        memset(y[i].qs, 0, sizeof(y[i].qs));
        memset(y[i].hmask, 0, sizeof(y[i].hmask));
        for (int h = 0; h < 2; h++) {
            for (int j = 0; j < 4; j++) {
                for (int l = 0; l < 32; l++) {
                    const int v = idx[128 * h + 32 * j + l]; // value v - 4
                    y[i].qs[32 * h + l] |= (uint8_t) ((v & 3) << (2 * j));
                    y[i].hmask[l] |= (uint8_t) ((v >> 2) << (4 * h + j));
                }
            }
        }
    }
}

void quantize_row_q2_K_ref(const float * x, block_q2_K * y, int64_t k) { q2_K_impl(x, y, k, NULL); }
void quantize_row_q3_K_ref(const float * x, block_q3_K * y, int64_t k) { q3_K_impl(x, y, k, NULL); }
void quantize_row_q5_K_ref(const float * x, block_q5_K * y, int64_t k) { q5_K_impl(x, y, k, NULL); }

GQ_CHUNK_W(q2_K, GGML_TYPE_Q2_K)
GQ_CHUNK_W(q3_K, GGML_TYPE_Q3_K)
GQ_CHUNK_W(q5_K, GGML_TYPE_Q5_K)
