/*
 * ggml-quants-fit.c - scale and affine searches shared by the reference
 * quantizers (ggml-quants-fit.h). The searches run for four values at a
 * time with GCC's generic vectors (SSE2 on x86-64, NEON on arm64): every
 * path gives the bytes of the scalar rule it replaces, the error sums are
 * added in the order of the values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants-fit.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

// A level table prepared for many searches (struct gq_levels). Each search
// gives exactly the level the scalar rule gives (rounding v / s for a range,
// gq_nearest() for a table in any order, the bisection of v / s for a
// sorted one), four values at a time where it can, without branches that
// depend on the data:
// - range: rintf(v / s) as the compiler inlines it (adding and taking 2^23
//   below 2^23), clamped;
// - sorted: the bisection ends on the first level >= t = v / s among the
//   first nlev - 1 (or on the last), i.e. on the count of levels < t among
//   those, then steps down to the nearer neighbour (lev[-1] taken as -inf:
//   never at 0). Four values count the levels below them by comparisons;
//   the scalar path searches the count (the first nlev - 1 levels padded
//   with +inf to 2^m - 1 entries);
// - any other: gq_nearest()'s scan, each lane keeping the first level of
//   least error; for a symmetric table at s > 0 over the magnitudes only
//   (find_levels()).
static int search_half(int n) { // 2^(m-1) for the least 2^m - 1 >= n
    int p = 1;
    while (p - 1 < n) {
        p *= 2;
    }
    return p / 2;
}

void gq_levels_init(struct gq_levels * p, const int8_t * lev, int nlev) {
    p->kind = lev_kind(lev, nlev);
    p->nlev = nlev;
    p->lev = lev;
    p->half = search_half(p->kind == LEV_SORTED ? nlev - 1 : nlev);
    p->sym = 0;
    if (p->kind == LEV_ANY && nlev % 2 == 0 && lev[0] == 0) {
        const int h = nlev / 2;
        bool sym = true;
        for (int k = 0; k < h; k++) {
            sym = sym && lev[h + k] == -lev[k] && (k == 0 || lev[k] > lev[k - 1]);
        }
        p->sym = sym ? h : 0;
    }
    if (p->kind == LEV_SORTED) {
        for (int l = 0; l < 2 * p->half - 1; l++) {
            p->srch[l] = l < nlev - 1 ? (float) lev[l] : INFINITY;
        }
        p->nb[0] = -INFINITY;
        for (int l = 0; l < nlev; l++) {
            p->nb[1 + l] = (float) lev[l];
        }
    }
}

static inline int nearest_sorted(const struct gq_levels * p, float t) {
    int lo = 0;
    for (int step = p->half; step > 0; step >>= 1) {
        lo += p->srch[lo + step - 1] < t ? step : 0;
    }
    // nb[lo] is level lo - 1; -inf at 0, where t + inf is never <= the other side
    return lo - (t - p->nb[lo] <= p->nb[lo + 1] - t);
}

typedef float gq_v4f __attribute__((vector_size(16)));
typedef int32_t gq_v4i __attribute__((vector_size(16)));

static inline gq_v4i sel(gq_v4i m, gq_v4i a, gq_v4i b) { // m ? a : b
    return (a & m) | (b & ~m);
}

// The weighted squared error of x against s * lev[li], summed in the order
// of the values; with ls, also the least-squares sums of the scale,
// sum w x lev and sum w lev^2 (independent sums in the same loop)
static double level_error(const int8_t * lev, int nlev, const float * x, const float * w, int n, float s,
                          const uint8_t * li, double * ls) {
    double sl[64]; // the level values, as the error takes them
    for (int l = 0; l < nlev; l++) {
        sl[l] = (double) s * lev[l];
    }
    double err = 0, num = 0, den = 0;
    if (w && ls) {
        for (int i = 0; i < n; i++) {
            const double e = (double) x[i] - sl[li[i]];
            const int8_t q = lev[li[i]];
            err += (double) w[i] * e * e;
            num += (double) w[i] * x[i] * q;
            den += (double) w[i] * (double) q * q;
        }
    } else if (ls) { // the weights 1.0 change no product
        for (int i = 0; i < n; i++) {
            const double e = (double) x[i] - sl[li[i]];
            const int8_t q = lev[li[i]];
            err += e * e;
            num += (double) x[i] * q;
            den += (double) q * q;
        }
    } else if (w) {
        for (int i = 0; i < n; i++) {
            const double e = (double) x[i] - sl[li[i]];
            err += (double) w[i] * e * e;
        }
    } else {
        for (int i = 0; i < n; i++) {
            const double e = (double) x[i] - sl[li[i]];
            err += e * e;
        }
    }
    if (ls) {
        ls[0] = num;
        ls[1] = den;
    }
    return err;
}

static void find_levels(const struct gq_levels * p, const float * x, int n, float s, uint8_t * li);

// the nearest levels of x[0..n) at scale s (n <= 256), then the weighted
// squared error, summed in the order of the values
double gq_levels_err(const struct gq_levels * p, const float * x, const float * w, int n, float s, uint8_t * idx) {
    uint8_t own[256];
    uint8_t * li = idx ? idx : own;
    find_levels(p, x, n, s, li);
    return level_error(p->lev, p->nlev, x, w, n, s, li, NULL);
}

static void find_levels(const struct gq_levels * p, const float * x, int n, float s, uint8_t * li) {
    const int8_t * lev = p->lev;
    const int nlev = p->nlev;
    if (p->kind == LEV_ANY && p->sym && s > 0.0f && s <= FLT_MAX) {
        // a symmetric table at s > 0: for v >= 0 no level -k (k > 0) nor
        // the second 0 is nearer than level 0, for v < 0 no level +k; and
        // |v - s (-k)| = | |v| - s k | exactly. So the first nearest of
        // |v| among the magnitudes lev[0..h), moved to the negative half
        // for v < 0, is gq_nearest()'s answer
        const int h = p->sym;
        float sl[32];
        for (int k = 0; k < h; k++) {
            sl[k] = s * (float) lev[k];
        }
        const gq_v4i absm = { 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff };
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            gq_v4i xi;
            memcpy(&xi, x + i, sizeof(xi));
            const gq_v4f a = (gq_v4f) (xi & absm);
            gq_v4f be = { INFINITY, INFINITY, INFINITY, INFINITY };
            gq_v4i bi = { 0, 0, 0, 0 };
            for (int k = 0; k < h; k++) {
                const gq_v4f e = (gq_v4f) ((gq_v4i) (a - sl[k]) & absm);
                const gq_v4i lt = e < be;
                be = (gq_v4f) sel(lt, (gq_v4i) e, (gq_v4i) be);
                bi = sel(lt, (gq_v4i) { k, k, k, k }, bi);
            }
            bi += (xi < 0) & (bi > 0) & h;
            for (int j = 0; j < 4; j++) {
                li[i + j] = (uint8_t) bi[j];
            }
        }
        for (; i < n; i++) {
            li[i] = (uint8_t) gq_nearest(x[i], s, lev, nlev);
        }
    } else if (p->kind == LEV_ANY) {
        // four values a vector, the levels in order: each lane keeps the
        // first level of least error, as gq_nearest()
        float sl[64];
        for (int l = 0; l < nlev; l++) {
            sl[l] = s * (float) lev[l];
        }
        const gq_v4i absm = { 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff };
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            gq_v4f xv;
            memcpy(&xv, x + i, sizeof(xv));
            gq_v4f be = { INFINITY, INFINITY, INFINITY, INFINITY };
            gq_v4i bi = { 0, 0, 0, 0 };
            for (int l = 0; l < nlev; l++) {
                const gq_v4f e = (gq_v4f) ((gq_v4i) (xv - sl[l]) & absm);
                const gq_v4i lt = e < be;
                be = (gq_v4f) sel(lt, (gq_v4i) e, (gq_v4i) be);
                bi = sel(lt, (gq_v4i) { l, l, l, l }, bi);
            }
            for (int j = 0; j < 4; j++) {
                li[i + j] = (uint8_t) bi[j];
            }
        }
        for (; i < n; i++) {
            li[i] = (uint8_t) gq_nearest(x[i], s, lev, nlev);
        }
    } else if (s == 0.0f) {
        for (int i = 0; i < n; i++) {
            li[i] = (uint8_t) gq_nearest(x[i], s, lev, nlev);
        }
    } else if (p->kind == LEV_RANGE) {
        const float lev0 = (float) lev[0], top = (float) (nlev - 1);
        int i = 0;
        for (; i + 4 <= n; i += 4) { // four at a time while all are finite
            gq_v4f xv;
            memcpy(&xv, x + i, sizeof(xv));
            const gq_v4f t = xv / s;
            const gq_v4i ti = (gq_v4i) t, sign = ti & (int32_t) 0x80000000;
            const gq_v4f a = (gq_v4f) (ti & 0x7fffffff);
            const gq_v4i fin = a <= FLT_MAX;
            if ((fin[0] & fin[1] & fin[2] & fin[3]) == 0) {
                break;
            }
            // rintf: below 2^23 adding and taking 2^23 rounds to the nearest
            // integer, ties to even; from 2^23 t is an integer
            const gq_v4i big = a >= 0x1p23f;
            const gq_v4f rr = (gq_v4f) ((gq_v4i) ((a + 0x1p23f) - 0x1p23f) | sign);
            const gq_v4f r = (gq_v4f) sel(big, ti, (gq_v4i) rr) - lev0;
            const gq_v4f lo = (gq_v4f) sel(r < 0.0f, (gq_v4i) (gq_v4f) { 0, 0, 0, 0 }, (gq_v4i) r);
            const gq_v4f cl = (gq_v4f) sel(lo > top, (gq_v4i) (gq_v4f) { top, top, top, top }, (gq_v4i) lo);
            const gq_v4i l = __builtin_convertvector(cl, gq_v4i);
            for (int j = 0; j < 4; j++) {
                li[i + j] = (uint8_t) l[j];
            }
        }
        for (; i < n; i++) {
            const float t = x[i] / s;
            if (!isfinite(t)) {
                li[i] = (uint8_t) gq_nearest(x[i], s, lev, nlev);
                continue;
            }
            const float r = rintf(t) - lev0;
            li[i] = (uint8_t) (r < 0.0f ? 0 : r > top ? nlev - 1 : (int) r);
        }
    } else {
        // four at a time while all are finite: the count of the first
        // nlev - 1 levels below t, then the neighbour step
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            gq_v4f xv;
            memcpy(&xv, x + i, sizeof(xv));
            const gq_v4f t = xv / s;
            const gq_v4i fin = (gq_v4f) ((gq_v4i) t & 0x7fffffff) <= FLT_MAX;
            if ((fin[0] & fin[1] & fin[2] & fin[3]) == 0) {
                break;
            }
            gq_v4i c = { 0, 0, 0, 0 };
            for (int l = 0; l < nlev - 1; l++) {
                c -= p->srch[l] < t; // -1 where below
            }
            for (int j = 0; j < 4; j++) {
                const int lo = c[j];
                li[i + j] = (uint8_t) (lo - (t[j] - p->nb[lo] <= p->nb[lo + 1] - t[j]));
            }
        }
        for (; i < n; i++) {
            const float t = x[i] / s;
            li[i] = (uint8_t) (isfinite(t) ? nearest_sorted(p, t) : gq_nearest(x[i], s, lev, nlev));
        }
    }
}

double gq_err_levels(const float * x, const float * w, int n, float s, const int8_t * lev, int nlev, uint8_t * idx) {
    struct gq_levels p;
    gq_levels_init(&p, lev, nlev);
    return gq_levels_err(&p, x, w, n, s, idx);
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
    struct gq_levels p;
    gq_levels_init(&p, lev, nlev);
    uint8_t idx[2][256];
    float best_s = 0.0f;
    double best_e = INFINITY;
    for (int c = 0; c < nc; c++) {
        float s = x[im] / (float) cand[c];
        for (int it = 0; it < 3; it++) {
            double ls[2]; // the next step's sums, in the error's loop
            find_levels(&p, x, n, s, idx[it & 1]);
            const double e = level_error(lev, nlev, x, w, n, s, idx[it & 1], it < 2 ? ls : NULL);
            if (e < best_e) {
                best_e = e;
                best_s = s;
            }
            // the same levels as the step before: the least squares give
            // the same scale again, hence the same error (no better)
            if (it == 2 || (it == 1 && memcmp(idx[0], idx[1], (size_t) n) == 0)) {
                break;
            }
            if (ls[1] <= 0) {
                break;
            }
            s = (float) (ls[0] / ls[1]);
        }
    }
    return best_s;
}

// q = clamp(round((x - b) / s), 0, nmax) (0 unless s > 0 when guard)
static void affine_levels(const float * x, int n, int nmax, float s, float b, bool guard, uint8_t * q) {
    if (guard && !(s > 0)) {
        memset(q, 0, (size_t) n);
        return;
    }
    for (int i = 0; i < n; i++) {
        q[i] = (uint8_t) gq_clampi(gq_lrint((x[i] - b) / s), 0, nmax);
    }
}

static double affine_err_q(const float * x, const float * w, int n, float s, float b, const uint8_t * q) {
    double err = 0;
    for (int i = 0; i < n; i++) {
        const double e = (double) s * q[i] + b - x[i];
        err += wt(w, i) * e * e;
    }
    return err;
}

// Fits x ~ s q + b (n <= 32): seven starting scales over the range, each
// refined up to three times by weighted least squares with the q the
// current (s, b) give; the least error wins. Two shortcuts leave the result
// as it was: a start whose first q equal the previous start's (which was
// refined) repeats that path and its error, which did not win; a step whose
// q equal the step before's gives the same (s, b) again.
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
    uint8_t q[2][32], q0[2][32];
    float best_s = (hi - lo) / (float) nmax, best_b = lo;
    affine_levels(x, n, nmax, best_s, best_b, true, q[0]);
    double best_e = affine_err_q(x, w, n, best_s, best_b, q[0]);
    bool prev_refined = false;
    for (int k = 0; k <= 6; k++) {
        float s = (hi - lo) / ((float) nmax - 1.0f + 0.3f * (float) k);
        float b = lo;
        uint8_t * first = q0[k & 1];
        affine_levels(x, n, nmax, s, b, false, first);
        if (prev_refined && memcmp(first, q0[(k + 1) & 1], (size_t) n) == 0) {
            continue;
        }
        prev_refined = false;
        const uint8_t * used = first;  // the q of the last least-squares step
        const uint8_t * known = first; // the q of the current (s, b), if known
        for (int it = 0; it < 3; it++) {
            const uint8_t * cur = first;
            if (it > 0) {
                uint8_t * next = q[it & 1];
                affine_levels(x, n, nmax, s, b, false, next);
                cur = known = next;
                if (memcmp(cur, used, (size_t) n) == 0) {
                    break;
                }
            }
            // weighted least squares of x ~ s q + b with the current q
            double sw = 0, sq = 0, sq2 = 0, sx = 0, sxq = 0;
            for (int i = 0; i < n; i++) {
                const int qi = cur[i];
                const double ww = wt(w, i);
                sw += ww;
                sq += ww * qi;
                sq2 += ww * qi * qi;
                sx += ww * x[i];
                sxq += ww * x[i] * qi;
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
            prev_refined = prev_refined || it == 0;
            used = cur;
            known = NULL;
        }
        uint8_t last[32];
        if (known == NULL || !(s > 0)) {
            affine_levels(x, n, nmax, s, b, true, last);
            known = last;
        }
        const double e = affine_err_q(x, w, n, s, b, known);
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
