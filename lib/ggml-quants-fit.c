/*
 * ggml-quants-fit.c - scale and affine searches shared by the reference
 * quantizers (ggml-quants-fit.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants-fit.h"

#include <math.h>
#include <stdlib.h>

static inline double wt(const float * w, int i) {
    return w ? (double) w[i] : 1.0;
}

int gq_nearest(float v, float s, const int8_t * lev, int nlev) {
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

// How the nearest level is found: a contiguous integer range by rounding,
// a sorted table by bisection, any other by a scan.
enum lev_kind { LEV_RANGE, LEV_SORTED, LEV_ANY };

static enum lev_kind lev_kind(const int8_t * lev, int nlev) {
    bool range = true, sorted = true;
    for (int l = 1; l < nlev; l++) {
        range = range && lev[l] == lev[l - 1] + 1;
        sorted = sorted && lev[l] > lev[l - 1];
    }
    return range ? LEV_RANGE : sorted ? LEV_SORTED : LEV_ANY;
}

static inline int nearest_k(enum lev_kind k, float v, float s, const int8_t * lev, int nlev) {
    if (k == LEV_ANY || s == 0.0f || !isfinite(v / s)) {
        return gq_nearest(v, s, lev, nlev);
    }
    const float t = v / s; // the level value wanted
    if (k == LEV_RANGE) {
        const float r = rintf(t) - (float) lev[0];
        return r < 0.0f ? 0 : r > (float) (nlev - 1) ? nlev - 1 : (int) r;
    }
    int lo = 0, hi = nlev - 1; // first level >= t, then the nearer neighbour
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if ((float) lev[mid] < t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo > 0 && t - (float) lev[lo - 1] <= (float) lev[lo] - t) {
        lo--;
    }
    return lo;
}

double gq_err_levels(const float * x, const float * w, int n, float s, const int8_t * lev, int nlev, uint8_t * idx) {
    const enum lev_kind k = lev_kind(lev, nlev);
    double err = 0;
    for (int i = 0; i < n; i++) {
        const int l = nearest_k(k, x[i], s, lev, nlev);
        if (idx) {
            idx[i] = (uint8_t) l;
        }
        const double e = (double) x[i] - (double) s * lev[l];
        err += wt(w, i) * e * e;
    }
    return err;
}

float gq_fit_levels(const float * x, const float * w, int n, const int8_t * lev, int nlev) {
    int im = -1;
    float amax = 0.0f;
    for (int i = 0; i < n; i++) {
        if (fabsf(x[i]) > amax) {
            amax = fabsf(x[i]);
            im = i;
        }
    }
    if (im < 0) {
        return 0.0f;
    }
    // the element of largest magnitude tried on the three most extreme
    // levels of either sign
    int cand[6], nc = 0;
    int order[64];
    for (int l = 0; l < nlev; l++) {
        order[l] = l;
    }
    for (int a = 0; a < nlev; a++) { // by decreasing |level|
        for (int b = a + 1; b < nlev; b++) {
            if (abs(lev[order[b]]) > abs(lev[order[a]])) {
                const int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
        }
    }
    int npos = 0, nneg = 0;
    for (int a = 0; a < nlev && nc < 6; a++) {
        const int v = lev[order[a]];
        if (v > 0 && npos < 3) {
            cand[nc++] = v;
            npos++;
        } else if (v < 0 && nneg < 3) {
            cand[nc++] = v;
            nneg++;
        }
    }
    uint8_t idx[256];
    float best_s = 0.0f;
    double best_e = INFINITY;
    for (int c = 0; c < nc; c++) {
        float s = x[im] / (float) cand[c];
        for (int it = 0; it < 3; it++) {
            const double e = gq_err_levels(x, w, n, s, lev, nlev, idx);
            if (e < best_e) {
                best_e = e;
                best_s = s;
            }
            if (it == 2) {
                break;
            }
            double num = 0, den = 0;
            for (int i = 0; i < n; i++) {
                num += wt(w, i) * x[i] * lev[idx[i]];
                den += wt(w, i) * (double) lev[idx[i]] * lev[idx[i]];
            }
            if (den <= 0) {
                break;
            }
            s = (float) (num / den);
        }
    }
    return best_s;
}

static double affine_err(const float * x, const float * w, int n, int nmax, float s, float b) {
    double err = 0;
    for (int i = 0; i < n; i++) {
        const int q = s > 0 ? gq_clampi((int) lrintf((x[i] - b) / s), 0, nmax) : 0;
        const double e = (double) s * q + b - x[i];
        err += wt(w, i) * e * e;
    }
    return err;
}

float gq_fit_affine(const float * x, const float * w, int n, int nmax, bool b_nonpos, float * b_out) {
    float lo = x[0], hi = x[0];
    for (int i = 1; i < n; i++) {
        lo = fminf(lo, x[i]);
        hi = fmaxf(hi, x[i]);
    }
    if (b_nonpos && lo > 0.0f) {
        lo = 0.0f;
    }
    if (!(hi > lo)) {
        *b_out = lo;
        return 0.0f;
    }
    float best_s = (hi - lo) / (float) nmax, best_b = lo;
    double best_e = affine_err(x, w, n, nmax, best_s, best_b);
    for (int k = 0; k <= 6; k++) {
        float s = (hi - lo) / ((float) nmax - 1.0f + 0.3f * (float) k);
        float b = lo;
        for (int it = 0; it < 3; it++) {
            // weighted least squares of x ~ s q + b with the current q
            double sw = 0, sq = 0, sq2 = 0, sx = 0, sxq = 0;
            for (int i = 0; i < n; i++) {
                const int q = gq_clampi((int) lrintf((x[i] - b) / s), 0, nmax);
                const double ww = wt(w, i);
                sw += ww;
                sq += ww * q;
                sq2 += ww * q * q;
                sx += ww * x[i];
                sxq += ww * x[i] * q;
            }
            const double det = sw * sq2 - sq * sq;
            if (det <= 0) {
                break;
            }
            double ns = (sw * sxq - sq * sx) / det;
            double nb = (sq2 * sx - sq * sxq) / det;
            if (b_nonpos && nb > 0) {
                nb = 0;
                ns = sq2 > 0 ? sxq / sq2 : 0;
            }
            if (!(ns > 0)) {
                break;
            }
            s = (float) ns;
            b = (float) nb;
        }
        const double e = affine_err(x, w, n, nmax, s, b);
        if (e < best_e) {
            best_e = e;
            best_s = s;
            best_b = b;
        }
    }
    *b_out = best_b;
    return best_s;
}

void gq_range_levels(int lo, int hi, int8_t * lev) {
    for (int v = lo; v <= hi; v++) {
        lev[v - lo] = (int8_t) v;
    }
}
