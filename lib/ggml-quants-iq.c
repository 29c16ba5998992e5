/*
 * ggml-quants-iq.c - dequantization and quantization of the i-quants.
 *
 * IQ4_NL / IQ4_XS: per 32 values the scale that fits the non-linear value
 * set best (ggml-quants-fit.c); IQ4_XS codes its scales in 6 bits against
 * the super-block's fp16 scale.
 *
 * Codebook types (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M):
 * for a trial scale S every group of 8 values takes its signs from the
 * values (where only an even number of negative signs can be coded, the
 * least important value gives way) and the grid entry nearest to the
 * magnitudes, by exhaustive search of the grid. Each sub-block (the values
 * sharing a scale code) tries a range of scales around max|x| / (largest
 * grid value), each refined once by least squares, and keeps the best; the
 * super-block scale d is set from the largest, and each sub-block then
 * takes the code (or a neighbour) that fits best with the search run again.
 * The errors are weighted by the importance matrix when there is one.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-quants.h"
#include "ggml-quants-fit.h"
#include "ggml-impl.h"
#include "backends/cpu/kernels/gk-iq-tables.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#define DEQUANT(t, blck)                                                              \
    void dequantize_row_##t(const block_##t * x, float * y, int64_t k) {              \
        GGML_ASSERT(k % (blck) == 0);                                                 \
        gk_dequantize_row_unpack(gk_unpack_##t, (blck), sizeof(block_##t), x, y, k);  \
    }

DEQUANT(iq2_xxs, QK_K)
DEQUANT(iq2_xs, QK_K)
DEQUANT(iq2_s, QK_K)
DEQUANT(iq3_xxs, QK_K)
DEQUANT(iq3_s, QK_K)
DEQUANT(iq1_s, QK_K)
DEQUANT(iq1_m, QK_K)
DEQUANT(iq4_nl, QK4_NL)
DEQUANT(iq4_xs, QK_K)

static inline float h2f(ggml_half h) {
    return ggml_fp16_to_fp32(h);
}

static inline ggml_half f2h(float f) {
    return ggml_fp32_to_fp16(f);
}

static inline double wt(const float * w, int i) {
    return w ? (double) w[i] : 1.0;
}

// --- IQ4_NL, IQ4_XS -----------------------------------------------------------------

static void pack_nl(const uint8_t * idx, uint8_t * qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t) (idx[j] | (idx[j + 16] << 4));
    }
}

static void iq4_nl_impl(const float * x, block_iq4_nl * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK4_NL == 0);
    for (int64_t i = 0; i < k / QK4_NL; i++) {
        const float * xb = x + i * QK4_NL;
        const float * wb = w ? w + i * QK4_NL : NULL;
        y[i].d = f2h(gq_fit_levels(xb, wb, QK4_NL, gk_kvalues_iq4nl, 16));
        uint8_t idx[QK4_NL];
        gq_err_levels(xb, wb, QK4_NL, h2f(y[i].d), gk_kvalues_iq4nl, 16, idx);
        pack_nl(idx, y[i].qs);
    }
}

static void iq4_xs_impl(const float * x, block_iq4_xs * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    struct gq_levels nl;
    gq_levels_init(&nl, gk_kvalues_iq4nl, 16);
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float * xb = x + i * QK_K;
        const float * wb = w ? w + i * QK_K : NULL;
        float s[8], smax = 0.0f;
        for (int ib = 0; ib < 8; ib++) {
            s[ib] = gq_fit_levels(xb + 32 * ib, wb ? wb + 32 * ib : NULL, 32, gk_kvalues_iq4nl, 16);
            if (fabsf(s[ib]) > fabsf(smax)) {
                smax = s[ib];
            }
        }
        y[i].d = f2h(smax / -32.0f); // the largest codes as -32 exactly
        const float d = h2f(y[i].d);
        y[i].scales_h = 0;
        memset(y[i].scales_l, 0, sizeof(y[i].scales_l));
        for (int ib = 0; ib < 8; ib++) {
            const float * xs = xb + 32 * ib;
            const float * ws = wb ? wb + 32 * ib : NULL;
            const int c0 = d != 0.0f ? gq_clampi((int) lrintf(s[ib] / d), -32, 31) : 0;
            int c = c0;
            double best = INFINITY;
            uint8_t idx[32], trial[32];
            for (int cc = c0 - 1; cc <= c0 + 1; cc++) {
                if (cc < -32 || cc > 31) {
                    continue;
                }
                const double e = gq_levels_err(&nl, xs, ws, 32, d * (float) cc, trial);
                if (e < best) {
                    best = e;
                    c = cc;
                    memcpy(idx, trial, sizeof(trial));
                }
            }
            if (!(best < INFINITY)) {
                gq_levels_err(&nl, xs, ws, 32, d * (float) c, idx);
            }
            pack_nl(idx, y[i].qs + 16 * ib);
            const int v = c + 32;
            y[i].scales_l[ib / 2] |= (uint8_t) ((v & 0xf) << (4 * (ib % 2)));
            y[i].scales_h |= (uint16_t) ((v >> 4) << (2 * ib));
        }
    }
}

// --- codebook search ------------------------------------------------------------------

enum iq_kind { IQ_GRID8, IQ_GRID4, IQ_TERNARY };

struct iq_code {
    enum iq_kind kind;
    const void * grid;  // uint64_t (8 values) or uint32_t (4 values)
    int ngrid;
    bool parity;        // only an even number of negative signs per 8
    float gmax;         // the largest grid magnitude
    // the grid's byte values are levels: level ((byte - sub) & 0xff) >> shift
    // has the value lev[level]
    int sub, shift, nlev;
    float lev[8];
    uint8_t * off;      // per entry and value j: 8 j + its level (iq_tables())
    uint8_t * half;     // 8-value entries: the levels of values 0-3 as one
                        // number, ((l0 nlev + l1) nlev + l2) nlev + l3
};

static void iq_tables(void);

static inline int level_of(const struct iq_code * c, uint8_t byte) {
    return ((byte - c->sub) & 0xff) >> c->shift;
}

// Best entry of a grid of n-value entries (n = 8: uint64_t, 4: uint32_t)
// for targets t at scale S (values S * (g + delta)); adds the entry's error
// and least-squares terms. The errors of every value at every level are
// tabulated first; an entry's error is then a sum of lookups, in the order
// of the values. With weights >= 0 every term is >= 0 and the partial sums
// only grow: an entry whose partial sum reaches the best so far cannot
// become better (the first least error wins) and is left there.
static int grid_best(const struct iq_code * c, int n, const float * t, const float * w, float S, float delta,
                     double * err, double * num, double * den) {
    double E[8 * 8];
    bool mono = true;
    for (int j = 0; j < n; j++) {
        mono = mono && !(wt(w, j) < 0);
        for (int l = 0; l < c->nlev; l++) {
            const double r = (double) t[j] - (double) S * (c->lev[l] + delta);
            E[8 * j + l] = wt(w, j) * r * r;
        }
    }
    int best = 0;
    double be = INFINITY;
    const uint8_t * o = c->off;
    if (mono && n == 8 && c->half) { // nlev <= 4
        // the partial sums of values 0-3 for every combination of their
        // levels (the same additions in the same order as per entry)
        const int nl = c->nlev;
        double H[4 * 4 * 4 * 4];
        for (int l0 = 0; l0 < nl; l0++) {
            const double a0 = 0.0 + E[l0];
            for (int l1 = 0; l1 < nl; l1++) {
                const double a1 = a0 + E[8 + l1];
                for (int l2 = 0; l2 < nl; l2++) {
                    const double a2 = a1 + E[16 + l2];
                    for (int l3 = 0; l3 < nl; l3++) {
                        H[((l0 * nl + l1) * nl + l2) * nl + l3] = a2 + E[24 + l3];
                    }
                }
            }
        }
        for (int g = 0; g < c->ngrid; g++, o += 8) {
            double e = H[c->half[g]];
            if (e >= be) {
                continue;
            }
            e += E[o[4]];
            e += E[o[5]];
            e += E[o[6]];
            e += E[o[7]];
            if (e < be) {
                be = e;
                best = g;
            }
        }
    } else if (mono && n == 4) {
        for (int g = 0; g < c->ngrid; g++, o += 4) {
            double e = E[o[0]] + E[o[1]];
            if (e >= be) {
                continue;
            }
            e += E[o[2]];
            e += E[o[3]];
            if (e < be) {
                be = e;
                best = g;
            }
        }
    } else {
        for (int g = 0; g < c->ngrid; g++, o += n) {
            double e = 0;
            for (int j = 0; j < n; j++) {
                e += E[o[j]];
            }
            if (e < be) {
                be = e;
                best = g;
            }
        }
    }
    const uint64_t bits = n == 8 ? ((const uint64_t *) c->grid)[best] : ((const uint32_t *) c->grid)[best];
    for (int j = 0; j < n; j++) {
        const double gv = c->lev[level_of(c, (uint8_t) (bits >> (8 * j)))] + delta;
        *num += wt(w, j) * t[j] * gv;
        *den += wt(w, j) * gv * gv;
    }
    *err += be;
    return best;
}

// One group of 8 values at scale S: grid entries (two for 4-value grids)
// and the sign mask (bit j: value j negative) or, for the ternary grid, the
// shift sign (negdelta). Returns the error, adds the least-squares terms.
struct iq_pick {
    uint16_t idx[2];
    uint8_t  signs;
};

static double group_pick(const struct iq_code * c, const float * x, const float * w, float S, bool negdelta,
                         struct iq_pick * p, double * num, double * den) {
    double err = 0;
    if (c->kind == IQ_TERNARY) {
        p->idx[0] = (uint16_t) grid_best(c, 8, x, w, S, negdelta ? -GK_IQ1S_DELTA : GK_IQ1S_DELTA, &err, num, den);
        p->signs = 0;
        return err;
    }
    uint8_t mask = 0;
    for (int j = 0; j < 8; j++) {
        if (x[j] < 0.0f) {
            mask |= (uint8_t) (1u << j);
        }
    }
    if (c->parity && (__builtin_popcount(mask) & 1)) {
        int jmin = 0;
        double vmin = INFINITY;
        for (int j = 0; j < 8; j++) {
            const double v = wt(w, j) * x[j] * x[j];
            if (v < vmin) {
                vmin = v;
                jmin = j;
            }
        }
        mask ^= (uint8_t) (1u << jmin);
    }
    float t[8];
    for (int j = 0; j < 8; j++) {
        t[j] = (mask >> j) & 1 ? -x[j] : x[j];
    }
    p->signs = mask;
    if (c->kind == IQ_GRID8) {
        p->idx[0] = (uint16_t) grid_best(c, 8, t, w, S, 0.0f, &err, num, den);
    } else {
        p->idx[0] = (uint16_t) grid_best(c, 4, t, w, S, 0.0f, &err, num, den);
        p->idx[1] = (uint16_t) grid_best(c, 4, t + 4, w ? w + 4 : NULL, S, 0.0f, &err, num, den);
    }
    return err;
}

// A sub-block of n values (groups of 8) at scale S; for the ternary grid the
// shift sign is chosen per sub-block (delta_per_group: per group of 8).
static double sub_pick(const struct iq_code * c, const float * x, const float * w, int n, float S,
                       bool delta_per_group, struct iq_pick * p, double * num, double * den) {
    double err = 0;
    if (c->kind != IQ_TERNARY) {
        for (int g = 0; g < n / 8; g++) {
            err += group_pick(c, x + 8 * g, w ? w + 8 * g : NULL, S, false, p + g, num, den);
        }
        return err;
    }
    if (delta_per_group) {
        for (int g = 0; g < n / 8; g++) {
            struct iq_pick a, b;
            double na = 0, da = 0, nb = 0, db = 0;
            const double ea = group_pick(c, x + 8 * g, w ? w + 8 * g : NULL, S, false, &a, &na, &da);
            const double eb = group_pick(c, x + 8 * g, w ? w + 8 * g : NULL, S, true, &b, &nb, &db);
            if (ea <= eb) {
                p[g] = a;
                err += ea; *num += na; *den += da;
            } else {
                p[g] = b;
                p[g].signs = 1;
                err += eb; *num += nb; *den += db;
            }
        }
        return err;
    }
    struct iq_pick pa[4], pb[4];
    double na = 0, da = 0, nb = 0, db = 0, ea = 0, eb = 0;
    for (int g = 0; g < n / 8; g++) {
        ea += group_pick(c, x + 8 * g, w ? w + 8 * g : NULL, S, false, pa + g, &na, &da);
        eb += group_pick(c, x + 8 * g, w ? w + 8 * g : NULL, S, true, pb + g, &nb, &db);
    }
    for (int g = 0; g < n / 8; g++) {
        p[g] = ea <= eb ? pa[g] : pb[g];
        p[g].signs = ea <= eb ? 0 : 1;
    }
    *num += ea <= eb ? na : nb;
    *den += ea <= eb ? da : db;
    return ea <= eb ? ea : eb;
}

// the scale of a sub-block that fits best (see the top of the file)
static float sub_scale(const struct iq_code * c, const float * x, const float * w, int n, bool dpg) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++) {
        amax = fmaxf(amax, fabsf(x[j]));
    }
    if (!(amax > 0.0f) || !isfinite(amax)) {
        return 0.0f;
    }
    struct iq_pick p[4];
    // a coarse pass over the range of scales, then least-squares steps from
    // the best of it
    float best_s = amax / c->gmax;
    double best_e = INFINITY;
    for (int k = 0; k < 4; k++) {
        const float S = amax / c->gmax * (0.5f + 0.2f * (float) k);
        double num = 0, den = 0;
        const double e = sub_pick(c, x, w, n, S, dpg, p, &num, &den);
        if (e < best_e) {
            best_e = e;
            best_s = S;
        }
    }
    float S = best_s;
    for (int it = 0; it < 3; it++) {
        double num = 0, den = 0;
        const double e = sub_pick(c, x, w, n, S, dpg, p, &num, &den);
        if (e < best_e) {
            best_e = e;
            best_s = S;
        }
        if (!(den > 0) || !(num > 0)) {
            break;
        }
        S = (float) (num / den);
    }
    return best_s;
}

// Super-block: sub-blocks of n values, scale codes 0..cmax with the value
// scale d * (2 code + 1) * mul. Sets *d (fp16-rounded through dh), codes
// and picks (n / 8 per sub-block).
static void iq_super(const struct iq_code * c, const float * x, const float * w, int n, int cmax, float mul,
                     bool dpg, ggml_half * dh, uint8_t * codes, struct iq_pick * picks) {
    iq_tables();
    const int nsub = QK_K / n;
    float S[QK_K / 16], smax = 0.0f;
    for (int b = 0; b < nsub; b++) {
        S[b] = sub_scale(c, x + b * n, w ? w + b * n : NULL, n, dpg);
        smax = fmaxf(smax, S[b]);
    }
    *dh = f2h(smax / ((float) (2 * cmax + 1) * mul));
    const float d = h2f(*dh);
    for (int b = 0; b < nsub; b++) {
        const float * xs = x + b * n;
        const float * ws = w ? w + b * n : NULL;
        const int c0 = d > 0.0f ? gq_clampi((int) lrintf((S[b] / (d * mul) - 1.0f) * 0.5f), 0, cmax) : 0;
        double best = INFINITY;
        codes[b] = (uint8_t) c0;
        for (int cc = c0 - 1; cc <= c0 + 1; cc++) {
            if (cc < 0 || cc > cmax) {
                continue;
            }
            struct iq_pick p[4];
            double num = 0, den = 0;
            const double e = sub_pick(c, xs, ws, n, d * (float) (2 * cc + 1) * mul, dpg, p, &num, &den);
            if (e < best) {
                best = e;
                codes[b] = (uint8_t) cc;
                memcpy(picks + b * (n / 8), p, sizeof(struct iq_pick) * (size_t) (n / 8));
            }
        }
    }
}

// grid values: IQ2 {8, 25, 43}; IQ3_XXS 4, 12, .., 52, 62; IQ3_S 1, 3, ..,
// 15; IQ1 {-1, 0, 1} (bytes 0xff, 0, 1)
#define IQ2_LEV    0, 4, 3, { 8, 25, 43 }
#define IQ3XXS_LEV 4, 3, 8, { 4, 12, 20, 28, 36, 44, 52, 62 }
#define IQ3S_LEV   0, 1, 8, { 1, 3, 5, 7, 9, 11, 13, 15 }
#define IQ1_LEV    -1, 0, 3, { -1, 0, 1 }
static uint8_t off_iq2xxs[256 * 8], off_iq2xs[512 * 8], off_iq2s[1024 * 8], off_iq3xxs[256 * 4],
    off_iq3s[512 * 4], off_iq1s[2048 * 8];
static uint8_t half_iq2xxs[256], half_iq2xs[512], half_iq2s[1024], half_iq1s[2048];
static const struct iq_code code_iq2xxs = { IQ_GRID8, gk_iq2xxs_grid, 256, true, 43.0f, IQ2_LEV, off_iq2xxs,
                                            half_iq2xxs };
static const struct iq_code code_iq2xs  = { IQ_GRID8, gk_iq2xs_grid, 512, true, 43.0f, IQ2_LEV, off_iq2xs,
                                            half_iq2xs };
static const struct iq_code code_iq2s   = { IQ_GRID8, gk_iq2s_grid, 1024, false, 43.0f, IQ2_LEV, off_iq2s,
                                            half_iq2s };
static const struct iq_code code_iq3xxs = { IQ_GRID4, gk_iq3xxs_grid, 256, true, 62.0f, IQ3XXS_LEV, off_iq3xxs,
                                            NULL };
static const struct iq_code code_iq3s   = { IQ_GRID4, gk_iq3s_grid, 512, false, 15.0f, IQ3S_LEV, off_iq3s, NULL };
static const struct iq_code code_iq1s   = { IQ_TERNARY, gk_iq1s_grid, 2048, false, 1.125f, IQ1_LEV, off_iq1s,
                                            half_iq1s };

static void fill_off(const struct iq_code * c) {
    const int n = c->kind == IQ_GRID4 ? 4 : 8;
    for (int g = 0; g < c->ngrid; g++) {
        const uint64_t bits = n == 8 ? ((const uint64_t *) c->grid)[g] : ((const uint32_t *) c->grid)[g];
        int h = 0;
        for (int j = 0; j < n; j++) {
            const int l = level_of(c, (uint8_t) (bits >> (8 * j)));
            c->off[g * n + j] = (uint8_t) (8 * j + l);
            h = j < 4 ? h * c->nlev + l : h;
        }
        if (n == 8) {
            c->half[g] = (uint8_t) h;
        }
    }
}

static void fill_all_off(void) {
    fill_off(&code_iq2xxs);
    fill_off(&code_iq2xs);
    fill_off(&code_iq2s);
    fill_off(&code_iq3xxs);
    fill_off(&code_iq3s);
    fill_off(&code_iq1s);
}

// the grids' level offsets, built once (any thread may quantize first)
static void iq_tables(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_all_off);
}

static void iq2_xxs_impl(const float * x, block_iq2_xxs * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[8];
        struct iq_pick p[32];
        iq_super(&code_iq2xxs, x + i * QK_K, w ? w + i * QK_K : NULL, 32, 15, 0.125f, false, &y[i].d, codes, p);
        uint8_t * qs = (uint8_t *) y[i].qs;
        for (int ib = 0; ib < 8; ib++) {
            uint32_t word = (uint32_t) codes[ib] << 28;
            for (int l = 0; l < 4; l++) {
                qs[8 * ib + l] = (uint8_t) p[4 * ib + l].idx[0];
                word |= (uint32_t) (p[4 * ib + l].signs & 127) << (7 * l);
            }
            memcpy(qs + 8 * ib + 4, &word, 4);
        }
    }
}

static void iq2_xs_impl(const float * x, block_iq2_xs * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[16];
        struct iq_pick p[32];
        iq_super(&code_iq2xs, x + i * QK_K, w ? w + i * QK_K : NULL, 16, 15, 0.125f, false, &y[i].d, codes, p);
        for (int g = 0; g < 32; g++) {
            y[i].qs[g] = (uint16_t) (p[g].idx[0] | ((p[g].signs & 127) << 9));
        }
        for (int b = 0; b < 8; b++) {
            y[i].scales[b] = (uint8_t) (codes[2 * b] | (codes[2 * b + 1] << 4));
        }
    }
}

static void iq2_s_impl(const float * x, block_iq2_s * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[16];
        struct iq_pick p[32];
        iq_super(&code_iq2s, x + i * QK_K, w ? w + i * QK_K : NULL, 16, 15, 0.125f, false, &y[i].d, codes, p);
        memset(y[i].qh, 0, sizeof(y[i].qh));
        for (int g = 0; g < 32; g++) {
            y[i].qs[g] = (uint8_t) p[g].idx[0];
            y[i].qs[32 + g] = p[g].signs;
            y[i].qh[g / 4] |= (uint8_t) ((p[g].idx[0] >> 8) << (2 * (g % 4)));
        }
        for (int b = 0; b < 8; b++) {
            y[i].scales[b] = (uint8_t) (codes[2 * b] | (codes[2 * b + 1] << 4));
        }
    }
}

static void iq3_xxs_impl(const float * x, block_iq3_xxs * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[8];
        struct iq_pick p[32];
        iq_super(&code_iq3xxs, x + i * QK_K, w ? w + i * QK_K : NULL, 32, 15, 0.25f, false, &y[i].d, codes, p);
        for (int ib = 0; ib < 8; ib++) {
            uint32_t word = (uint32_t) codes[ib] << 28;
            for (int l = 0; l < 4; l++) {
                y[i].qs[8 * ib + 2 * l]     = (uint8_t) p[4 * ib + l].idx[0];
                y[i].qs[8 * ib + 2 * l + 1] = (uint8_t) p[4 * ib + l].idx[1];
                word |= (uint32_t) (p[4 * ib + l].signs & 127) << (7 * l);
            }
            memcpy(y[i].qs + 64 + 4 * ib, &word, 4);
        }
    }
}

static void iq3_s_impl(const float * x, block_iq3_s * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[8];
        struct iq_pick p[32];
        // value scale d * (2 code + 1): mul 1
        iq_super(&code_iq3s, x + i * QK_K, w ? w + i * QK_K : NULL, 32, 15, 1.0f, false, &y[i].d, codes, p);
        memset(y[i].qh, 0, sizeof(y[i].qh));
        for (int g = 0; g < 32; g++) {
            y[i].qs[2 * g]     = (uint8_t) p[g].idx[0];
            y[i].qs[2 * g + 1] = (uint8_t) p[g].idx[1];
            y[i].qh[g / 4] |= (uint8_t) (((p[g].idx[0] >> 8) << (2 * (g % 4))) | ((p[g].idx[1] >> 8) << (2 * (g % 4) + 1)));
            y[i].signs[g] = p[g].signs;
        }
        for (int b = 0; b < 4; b++) {
            y[i].scales[b] = (uint8_t) (codes[2 * b] | (codes[2 * b + 1] << 4));
        }
    }
}

static void iq1_s_impl(const float * x, block_iq1_s * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[8];
        struct iq_pick p[32];
        iq_super(&code_iq1s, x + i * QK_K, w ? w + i * QK_K : NULL, 32, 7, 1.0f, false, &y[i].d, codes, p);
        for (int ib = 0; ib < 8; ib++) {
            uint16_t h = (uint16_t) ((codes[ib] << 12) | (p[4 * ib].signs ? 0x8000 : 0));
            for (int l = 0; l < 4; l++) {
                y[i].qs[4 * ib + l] = (uint8_t) p[4 * ib + l].idx[0];
                h |= (uint16_t) ((p[4 * ib + l].idx[0] >> 8) << (3 * l));
            }
            y[i].qh[ib] = h;
        }
    }
}

static void iq1_m_impl(const float * x, block_iq1_m * y, int64_t k, const float * w) {
    GGML_ASSERT(k % QK_K == 0);
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint8_t codes[16];
        struct iq_pick p[32];
        ggml_half dh;
        iq_super(&code_iq1s, x + i * QK_K, w ? w + i * QK_K : NULL, 16, 7, 1.0f, true, &dh, codes, p);
        memset(y[i].qh, 0, sizeof(y[i].qh));
        for (int g = 0; g < 32; g++) {
            y[i].qs[g] = (uint8_t) p[g].idx[0];
            const int nib = ((p[g].idx[0] >> 8) & 7) | (p[g].signs ? 8 : 0);
            y[i].qh[g / 2] |= (uint8_t) (nib << (4 * (g % 2)));
        }
        uint16_t sc[4] = { 0, 0, 0, 0 };
        for (int g = 0; g < 16; g++) {
            sc[g / 4] |= (uint16_t) (codes[g] << (3 * (g % 4)));
        }
        // the fp16 block scale in the top nibbles of the four words
        sc[0] |= (uint16_t) ((dh & 0x000f) << 12);
        sc[1] |= (uint16_t) ((dh & 0x00f0) << 8);
        sc[2] |= (uint16_t) ((dh & 0x0f00) << 4);
        sc[3] |= (uint16_t) (dh & 0xf000);
        memcpy(y[i].scales, sc, sizeof(sc));
    }
}

void quantize_row_iq4_nl_ref(const float * x, block_iq4_nl * y, int64_t k)   { iq4_nl_impl(x, y, k, NULL); }
void quantize_row_iq4_xs_ref(const float * x, block_iq4_xs * y, int64_t k)   { iq4_xs_impl(x, y, k, NULL); }
void quantize_row_iq3_xxs_ref(const float * x, block_iq3_xxs * y, int64_t k) { iq3_xxs_impl(x, y, k, NULL); }
void quantize_row_iq3_s_ref(const float * x, block_iq3_s * y, int64_t k)     { iq3_s_impl(x, y, k, NULL); }
void quantize_row_iq2_s_ref(const float * x, block_iq2_s * y, int64_t k)     { iq2_s_impl(x, y, k, NULL); }

GQ_CHUNK_W(iq4_nl, GGML_TYPE_IQ4_NL)
GQ_CHUNK_W(iq4_xs, GGML_TYPE_IQ4_XS)
GQ_CHUNK_W(iq2_xxs, GGML_TYPE_IQ2_XXS)
GQ_CHUNK_W(iq2_xs, GGML_TYPE_IQ2_XS)
GQ_CHUNK_W(iq2_s, GGML_TYPE_IQ2_S)
GQ_CHUNK_W(iq3_xxs, GGML_TYPE_IQ3_XXS)
GQ_CHUNK_W(iq3_s, GGML_TYPE_IQ3_S)
GQ_CHUNK_W(iq1_s, GGML_TYPE_IQ1_S)
GQ_CHUNK_W(iq1_m, GGML_TYPE_IQ1_M)
