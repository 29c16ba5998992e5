/*
 * ggml-quants.c - reference quantization and dequantization of Q4_0, Q8_0,
 * Q4_K and Q6_K (block layouts in ggml-quants.h).
 *
 * Dequantization is exact to the format. Quantization picks scales as
 * described next to each routine; Q4_0 and Q8_0 follow the format's usual
 * reference choice, so their encoding of a given input is deterministic and
 * tested bit for bit.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

static inline float h2f(ggml_half h) {
    return ggml_fp16_to_fp32(h);
}

static inline ggml_half f2h(float f) {
    return ggml_fp32_to_fp16(f);
}

static inline int clampi(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

// ---------------------------------------------------------------------------
// Q4_0: d = (the element of largest magnitude, with its sign) / -8, so that
// element encodes as -8 exactly; q = clamp(floor(x/d + 8.5), 0, 15).
// ---------------------------------------------------------------------------

void quantize_row_q4_0_ref(const float * x, block_q4_0 * y, int64_t k) {
    GGML_ASSERT(k % QK4_0 == 0);
    const int64_t nb = k / QK4_0;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * QK4_0;
        float amax = 0.0f, vmax = 0.0f;
        for (int j = 0; j < QK4_0; j++) {
            if (fabsf(xb[j]) > amax) {
                amax = fabsf(xb[j]);
                vmax = xb[j];
            }
        }
        const float d  = vmax / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = f2h(d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            const int q0 = clampi((int) (int8_t) (xb[j] * id + 8.5f), 0, 15);
            const int q1 = clampi((int) (int8_t) (xb[j + QK4_0 / 2] * id + 8.5f), 0, 15);
            y[i].qs[j] = (uint8_t) (q0 | (q1 << 4));
        }
    }
}

void dequantize_row_q4_0(const block_q4_0 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK4_0 == 0);
    const int64_t nb = k / QK4_0;
    for (int64_t i = 0; i < nb; i++) {
        const float d = h2f(x[i].d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            y[i * QK4_0 + j]             = (float) ((x[i].qs[j] & 0xF) - 8) * d;
            y[i * QK4_0 + j + QK4_0 / 2] = (float) ((x[i].qs[j] >> 4) - 8) * d;
        }
    }
}

// ---------------------------------------------------------------------------
// Q8_0: d = max|x| / 127, q = round(x / d).
// ---------------------------------------------------------------------------

void quantize_row_q8_0_ref(const float * x, block_q8_0 * y, int64_t k) {
    GGML_ASSERT(k % QK8_0 == 0);
    const int64_t nb = k / QK8_0;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * QK8_0;
        float amax = 0.0f;
        for (int j = 0; j < QK8_0; j++) {
            amax = fmaxf(amax, fabsf(xb[j]));
        }
        const float d  = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = f2h(d);
        for (int j = 0; j < QK8_0; j++) {
            y[i].qs[j] = (int8_t) roundf(xb[j] * id);
        }
    }
}

void dequantize_row_q8_0(const block_q8_0 * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK8_0 == 0);
    const int64_t nb = k / QK8_0;
    for (int64_t i = 0; i < nb; i++) {
        const float d = h2f(x[i].d);
        for (int j = 0; j < QK8_0; j++) {
            y[i * QK8_0 + j] = (float) x[i].qs[j] * d;
        }
    }
}

// ---------------------------------------------------------------------------
// Q4_K. Per sub-block of 32: an affine fit x ~ s*q - m with q in [0, 15],
// m >= 0 (the sub-block's range always includes 0 from below), searched
// over a few step counts and refined by least squares (fit_affine). The 8
// scales and 8 mins are then coded in 6 bits against the super-block's d and
// dmin (the nearest codes or a neighbour, whichever fits the sub-block best),
// and q is recomputed with the coded values.
// ---------------------------------------------------------------------------

// q = clamp(round((x + m) / s), 0, nmax) for the n values
static void affine_q(const float * x, int n, int nmax, float s, float m, uint8_t * q) {
    for (int i = 0; i < n; i++) {
        q[i] = (uint8_t) clampi(gq_lrint((x[i] + m) / s), 0, nmax);
    }
}

// the squared error of x ~ s*q - m
static double affine_error_q(const float * x, int n, float s, float m, const uint8_t * q) {
    double err = 0;
    for (int i = 0; i < n; i++) {
        const double e = (double) s * q[i] - m - x[i];
        err += e * e;
    }
    return err;
}

// Least-squares (s, m) for x ~ s*q - m; false when the fit degenerates
// (then s, m stay).
static bool refine_affine(const float * x, int n, const uint8_t * q, float * s, float * m) {
    double sq = 0, sq2 = 0, sx = 0, sxq = 0;
    for (int i = 0; i < n; i++) {
        sq  += q[i];
        sq2 += (double) q[i] * q[i];
        sx  += x[i];
        sxq += (double) x[i] * q[i];
    }
    const double det = n * sq2 - sq * sq;
    if (det <= 0) {
        return false;
    }
    const double ns = (n * sxq - sq * sx) / det;
    const double nm = (sq * sxq - sq2 * sx) / det; // x ~ ns*q - nm
    if (ns <= 0 || nm < 0) {
        return false;
    }
    *s = (float) ns;
    *m = (float) nm;
    return true;
}

// Fits x[0..n) ~ s*q - m, q in [0, nmax], m >= 0 (the range always reaches
// down to 0), n <= 32. Tries the range spread over slightly fewer or more
// steps than nmax, refines each (up to three least-squares steps, each
// with the q the previous (s, m) give), keeps the smallest squared error.
// Returns s, stores m. Two shortcuts leave the result as it was: a start
// whose first q equal the previous start's (and refined) repeats its whole
// path, hence its error, which did not win; a step whose q equal the step
// before's would give the same (s, m) again.
static float fit_affine(const float * x, int n, int nmax, float * m_out) {
    float lo = x[0], hi = x[0];
    for (int i = 1; i < n; i++) {
        lo = fminf(lo, x[i]);
        hi = fmaxf(hi, x[i]);
    }
    if (lo > 0.0f) {
        lo = 0.0f;
    }
    if (hi <= lo) {
        *m_out = -lo;
        return 0.0f;
    }
    uint8_t q[2][32], q0[2][32];
    float  best_s = (hi - lo) / (float) nmax, best_m = -lo;
    affine_q(x, n, nmax, best_s, best_m, q[0]);
    double best_e = affine_error_q(x, n, best_s, best_m, q[0]);
    bool prev_refined = false;
    for (int k = 0; k <= 20; k++) {
        float s = (hi - lo) / ((float) nmax - 1.0f + 0.1f * (float) k);
        float m = -lo;
        uint8_t * first = q0[k & 1];
        affine_q(x, n, nmax, s, m, first);
        if (prev_refined && memcmp(first, q0[(k + 1) & 1], (size_t) n) == 0) {
            continue;
        }
        prev_refined = refine_affine(x, n, first, &s, &m);
        const uint8_t * last = first; // the q of the final (s, m)
        if (prev_refined) {
            const uint8_t * prev = first;
            for (int iter = 1; iter <= 3; iter++) {
                uint8_t * cur = q[iter & 1];
                affine_q(x, n, nmax, s, m, cur);
                last = cur;
                if (iter == 3 || memcmp(cur, prev, (size_t) n) == 0 || !refine_affine(x, n, cur, &s, &m)) {
                    break;
                }
                prev = cur;
            }
        }
        const double e = affine_error_q(x, n, s, m, last);
        if (e < best_e) {
            best_e = e;
            best_s = s;
            best_m = m;
        }
    }
    *m_out = best_m;
    return best_s;
}

void quantize_row_q4_K_ref(const float * x, block_q4_K * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    const int64_t nb = k / QK_K;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * QK_K;
        float scales[8], mins[8];
        float max_scale = 0.0f, max_min = 0.0f;
        for (int j = 0; j < 8; j++) {
            scales[j] = fit_affine(xb + 32 * j, 32, 15, &mins[j]);
            max_scale = fmaxf(max_scale, scales[j]);
            max_min   = fmaxf(max_min, mins[j]);
        }
        y[i].d    = f2h(max_scale / 63.0f);
        y[i].dmin = f2h(max_min / 63.0f);
        const float d    = h2f(y[i].d);
        const float dmin = h2f(y[i].dmin);

        // code each sub-block's scale and min in 6 bits: the rounded values
        // and their neighbours, keeping the pair with the smallest error
        uint8_t ls[8], lm[8];
        uint8_t q[QK_K];
        for (int j = 0; j < 8; j++) {
            const float * xs = xb + 32 * j;
            const int ls0 = d    > 0.0f ? clampi((int) lrintf(scales[j] / d), 0, 63) : 0;
            const int lm0 = dmin > 0.0f ? clampi((int) lrintf(mins[j] / dmin), 0, 63) : 0;
            double best = INFINITY;
            ls[j] = (uint8_t) ls0;
            lm[j] = (uint8_t) lm0;
            for (int a = ls0 - 1; a <= ls0 + 1; a++) {
                for (int b = lm0 - 1; b <= lm0 + 1; b++) {
                    if (a < 0 || a > 63 || b < 0 || b > 63) {
                        continue;
                    }
                    const float ds = d * (float) a, dm = dmin * (float) b;
                    uint8_t qt[32];
                    if (ds != 0.0f) {
                        affine_q(xs, 32, 15, ds, dm, qt);
                    } else {
                        memset(qt, 0, sizeof(qt));
                    }
                    const double err = affine_error_q(xs, 32, ds, dm, qt);
                    if (err < best) {
                        best  = err;
                        ls[j] = (uint8_t) a;
                        lm[j] = (uint8_t) b;
                        memcpy(q + 32 * j, qt, sizeof(qt));
                    }
                }
            }
            if (!(best < INFINITY)) { // no pair won: the rounded codes
                const float ds = d * (float) ls[j], dm = dmin * (float) lm[j];
                if (ds != 0.0f) {
                    affine_q(xs, 32, 15, ds, dm, q + 32 * j);
                } else {
                    memset(q + 32 * j, 0, 32);
                }
            }
        }

        memset(y[i].scales, 0, sizeof(y[i].scales));
        for (int j = 0; j < 8; j++) {
            if (j < 4) {
                y[i].scales[j]     = ls[j];
                y[i].scales[j + 4] = lm[j];
            } else {
                y[i].scales[j + 4] = (uint8_t) ((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
                y[i].scales[j - 4] |= (uint8_t) ((ls[j] >> 4) << 6);
                y[i].scales[j]     |= (uint8_t) ((lm[j] >> 4) << 6);
            }
        }
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                y[i].qs[32 * c + l] = (uint8_t) (q[64 * c + l] | (q[64 * c + 32 + l] << 4));
            }
        }
    }
}

void dequantize_row_q4_K(const block_q4_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    const int64_t nb = k / QK_K;
    for (int64_t i = 0; i < nb; i++) {
        const float d    = h2f(x[i].d);
        const float dmin = h2f(x[i].dmin);
        for (int c = 0; c < 4; c++) {
            uint8_t sc0, m0, sc1, m1;
            gk_q4_k_scale_min(2 * c,     x[i].scales, &sc0, &m0);
            gk_q4_k_scale_min(2 * c + 1, x[i].scales, &sc1, &m1);
            const float d0 = d * sc0, mm0 = dmin * m0;
            const float d1 = d * sc1, mm1 = dmin * m1;
            const uint8_t * qs = x[i].qs + 32 * c;
            float * yb = y + i * QK_K + 64 * c;
            for (int l = 0; l < 32; l++) {
                yb[l]      = d0 * (float) (qs[l] & 0xF) - mm0;
                yb[l + 32] = d1 * (float) (qs[l] >> 4)  - mm1;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Q6_K. Per sub-block of 16: s = (the element of largest magnitude, with its
// sign) / -32, so it codes as -32 exactly. The 16 scales are coded as int8
// against d = (the scale of largest magnitude) / -128 (clamped to 127), and
// q = clamp(round(x / (d*sc)), -32, 31) + 32.
// ---------------------------------------------------------------------------

void quantize_row_q6_K_ref(const float * x, block_q6_K * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    const int64_t nb = k / QK_K;
    for (int64_t i = 0; i < nb; i++) {
        const float * xb = x + i * QK_K;
        float scales[16];
        float amax_s = 0.0f, vmax_s = 0.0f;
        for (int s = 0; s < 16; s++) {
            float amax = 0.0f, vmax = 0.0f;
            for (int l = 0; l < 16; l++) {
                const float v = xb[16 * s + l];
                if (fabsf(v) > amax) {
                    amax = fabsf(v);
                    vmax = v;
                }
            }
            scales[s] = vmax / -32.0f;
            if (fabsf(scales[s]) > amax_s) {
                amax_s = fabsf(scales[s]);
                vmax_s = scales[s];
            }
        }
        const float dd  = vmax_s / -128.0f;
        const float idd = dd != 0.0f ? 1.0f / dd : 0.0f;
        for (int s = 0; s < 16; s++) {
            y[i].scales[s] = (int8_t) clampi((int) lrintf(idd * scales[s]), -128, 127);
        }
        y[i].d = f2h(dd);
        const float d = h2f(y[i].d);

        uint8_t q[QK_K];
        for (int s = 0; s < 16; s++) {
            const float ds = d * (float) y[i].scales[s];
            for (int l = 0; l < 16; l++) {
                const int v = ds != 0.0f ? clampi((int) lrintf(xb[16 * s + l] / ds), -32, 31) : 0;
                q[16 * s + l] = (uint8_t) (v + 32);
            }
        }
        for (int h = 0; h < 2; h++) {
            uint8_t * ql = y[i].ql + 64 * h;
            uint8_t * qh = y[i].qh + 32 * h;
            const uint8_t * qq = q + 128 * h;
            for (int l = 0; l < 32; l++) {
                const uint8_t q1 = qq[l], q2 = qq[l + 32], q3 = qq[l + 64], q4 = qq[l + 96];
                ql[l]      = (uint8_t) ((q1 & 0xF) | ((q3 & 0xF) << 4));
                ql[l + 32] = (uint8_t) ((q2 & 0xF) | ((q4 & 0xF) << 4));
                qh[l]      = (uint8_t) ((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
            }
        }
    }
}

void dequantize_row_q6_K(const block_q6_K * x, float * y, int64_t k) {
    GGML_ASSERT(k % QK_K == 0);
    const int64_t nb = k / QK_K;
    for (int64_t i = 0; i < nb; i++) {
        const float d = h2f(x[i].d);
        for (int h = 0; h < 2; h++) {
            const uint8_t * ql = x[i].ql + 64 * h;
            const uint8_t * qh = x[i].qh + 32 * h;
            const int8_t  * sc = x[i].scales + 8 * h;
            float * yb = y + i * QK_K + 128 * h;
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = ((ql[l]      & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l]      >> 4)  | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4)  | (((qh[l] >> 6) & 3) << 4)) - 32;
                yb[l]      = d * (float) sc[is + 0] * (float) q1;
                yb[l + 32] = d * (float) sc[is + 2] * (float) q2;
                yb[l + 64] = d * (float) sc[is + 4] * (float) q3;
                yb[l + 96] = d * (float) sc[is + 6] * (float) q4;
            }
        }
    }
}
