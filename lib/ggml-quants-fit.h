/*
 * ggml-quants-fit.h - the searches the reference quantizers share (internal):
 * a scale for a set of integer levels, an affine fit, nearest levels. Every
 * error is a squared error weighted by w (NULL: all weights 1).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_QUANTS_FIT_H
#define GGML_QUANTS_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

// index of the level l minimizing |v - s * lev[l]|
int gq_nearest(float v, float s, const int8_t * lev, int nlev);

// weighted squared error of x against s * lev[idx] with the nearest levels
// (stored in idx when not NULL)
double gq_err_levels(const float * x, const float * w, int n, float s, const int8_t * lev, int nlev, uint8_t * idx);

// A level table prepared once for many searches (gq_levels_init(), then
// gq_levels_err(), which gives what gq_err_levels() gives)
struct gq_levels {
    int kind;          // a contiguous range, a sorted table or any other
    int nlev;
    int half;          // the first step of the binary search, 2^(m-1)
    int sym;           // h when lev[h + k] = -lev[k], lev[0] = 0 and lev[0..h)
                       // ascends (FP4); else 0
    const int8_t * lev;
    float srch[64];    // sorted: the first nlev - 1 levels, then +inf
    float nb[1 + 64];  // sorted: -inf, then the levels
};

void gq_levels_init(struct gq_levels * p, const int8_t * lev, int nlev);
double gq_levels_err(const struct gq_levels * p, const float * x, const float * w, int n, float s, uint8_t * idx);

// The scale s (of either sign) minimizing the error of x against s times
// the nearest of the levels: starts from the element of largest magnitude
// on every non-zero level, refined twice by least squares. 0 for all-zero x.
float gq_fit_levels(const float * x, const float * w, int n, const int8_t * lev, int nlev);

// x ~ s * q + b, q in [0, nmax], s >= 0; with b_nonpos, b <= 0 (the range
// is extended down to 0). Returns s, stores b.
float gq_fit_affine(const float * x, const float * w, int n, int nmax, bool b_nonpos, float * b);

// the integer levels lo..hi as a table (at most 64)
void gq_range_levels(int lo, int hi, int8_t * lev);

// (int) lrintf(v), inlined: glibc's lrintf is a single cvtss2si on x86-64,
// which the compiler emits itself only under -fno-math-errno (the result
// is the same for every v, NaN and out of range included)
static inline int gq_lrint(float v) {
#if defined(__x86_64__)
    return (int) _mm_cvtss_si64(_mm_set_ss(v));
#else
    return (int) lrintf(v);
#endif
}

static inline int gq_clampi(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

// weights of row values: imatrix column weights, or NULL for plain error
static inline const float * gq_row_weights(const float * imatrix, int64_t col0) {
    return imatrix ? imatrix + col0 : NULL;
}

// quantize_<t>() of ggml_quantize_chunk for a type whose <t>_impl(x, y, k, w)
// takes column weights
#define GQ_CHUNK_W(t, type)                                                                       \
    size_t quantize_##t(const float * src, void * dst, int64_t nrow, int64_t n_per_row,          \
                        const float * imatrix) {                                                  \
        const size_t rs = ggml_row_size(type, n_per_row);                                         \
        for (int64_t r = 0; r < nrow; r++) {                                                      \
            t##_impl(src + r * n_per_row, (block_##t *) ((char *) dst + r * rs), n_per_row, imatrix); \
        }                                                                                         \
        return (size_t) nrow * rs;                                                                \
    }

#endif // GGML_QUANTS_FIT_H
