/*
 * softmax-x86.c - SOFT_MAX's row kernels for AVX2/FMA/F16C (gk-vec.h): the
 * largest scaled and masked value v of a row, then e^(v - max) and their
 * sum in one pass that forms v again from the input (without a mask: one
 * multiplication, cheaper than writing v and reading it back; with a mask
 * the fused pass keeps them, gk_sm_exp.vn/.v), then the normalisation. The mask may be F32 or
 * F16 (converted on the fly). The exponential (gk-exp-avx2.h) takes
 * 2^(j/8) from an 8-entry table (one VPERMPS) and a quartic. Tails run on the vector path
 * from padded copies. Called only after the CPU was checked for all three extensions.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-exp-avx2.h"

#include <immintrin.h>

static inline float hmax256(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// v = x * s, plus slope * m (a fused multiply-add) with a mask
static inline __m256 sm_v256(const float * x, float s, const void * m, enum gk_sm_mask mt, float slope, int64_t i) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), _mm256_set1_ps(s));
    switch (mt) {
        case GK_SM_F32:
            return _mm256_fmadd_ps(_mm256_set1_ps(slope), _mm256_loadu_ps((const float *) m + i), v);
        case GK_SM_F16:
            return _mm256_fmadd_ps(_mm256_set1_ps(slope),
                                   _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) ((const uint16_t *) m + i))), v);
        case GK_SM_NONE:
        default:
            return v;
    }
}

// The last n - i (< 8) values of x and m copied to the start of eight
// zeroed lanes: sm_v256 on the copies at index 0. Returns the lane mask.
struct sm_tail {
    float x[8];
    union {
        float f[8];
        uint16_t h[8];
    } m;
};

static inline __m256 sm_tail_load(struct sm_tail * t, int64_t n, int64_t i, const float * x, const void * m,
                                  enum gk_sm_mask mt) {
    const int left = (int) (n - i);
    int32_t lanes[8];
    for (int k = 0; k < 8; k++) {
        t->x[k] = k < left ? x[i + k] : 0.0f;
        t->m.f[k] = 0.0f;
        lanes[k] = k < left ? -1 : 0;
    }
    for (int k = 0; k < left; k++) {
        if (mt == GK_SM_F32) {
            t->m.f[k] = ((const float *) m)[i + k];
        } else if (mt == GK_SM_F16) {
            t->m.h[k] = ((const uint16_t *) m)[i + k];
        }
    }
    return _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *) lanes));
}

static inline __attribute__((always_inline)) float sm_max256(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope) {
    __m256 m0 = _mm256_set1_ps(-GK_SM_INF), m1 = m0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        // max(v, acc) keeps acc where v is NaN
        m0 = _mm256_max_ps(sm_v256(x, s, m, mt, slope, i), m0);
        m1 = _mm256_max_ps(sm_v256(x, s, m, mt, slope, i + 8), m1);
    }
    for (; i + 8 <= n; i += 8) {
        m0 = _mm256_max_ps(sm_v256(x, s, m, mt, slope, i), m0);
    }
    if (i < n) {
        struct sm_tail t;
        const __m256 lanes = sm_tail_load(&t, n, i, x, m, mt);
        const __m256 v = sm_v256(t.x, s, &t.m, mt, slope, 0);
        m1 = _mm256_max_ps(_mm256_blendv_ps(m1, v, lanes), m1);
    }
    return hmax256(_mm256_max_ps(m0, m1));
}

float gk_softmax_max_avx2(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope) {
    switch (mt) {
        case GK_SM_F32: return sm_max256(n, x, s, m, GK_SM_F32, slope);
        case GK_SM_F16: return sm_max256(n, x, s, m, GK_SM_F16, slope);
        case GK_SM_NONE:
        default: return sm_max256(n, x, s, NULL, GK_SM_NONE, 0.0f);
    }
}

static inline __attribute__((always_inline)) float sm_exp_sum256(int64_t n, const struct gk_sm_exp * a,
                                                                 enum gk_sm_mask mt, bool pipe, bool fmax, bool vin,
                                                                 bool vout) {
    const float * x = a->x;
    const void * m = a->m;
    const float s = a->s, slope = a->slope;
    float * z = a->z;
    const float * prev = a->prev;
    float * prev_out = a->prev_out;
    // this row's v from a->v (vin), the next row's written to a->vn (vout)
    const float * vv = a->v;
    float * vn = a->vn;
    // the next row, its maximum found as sm_max256 finds it
    const float * xn = a->xn;
    const void * mn = a->mn;
    const float slope_n = a->slope_n;
    const __m256 vm = _mm256_set1_ps(a->max), ps = _mm256_set1_ps(a->prev_s), tab = _mm256_load_ps(gk_exp2_8th);
    const float * pf = a->next ? a->next : x; // prefetches of x itself cost little
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    __m256 m0 = _mm256_set1_ps(-GK_SM_INF), m1 = m0;
    // without a mask (then s > 0) the largest x times s: the largest x * s,
    // rounding being monotonic, one multiplication fewer per vector
#define SM_VN(j) (mt == GK_SM_NONE ? _mm256_loadu_ps(xn + (j)) : sm_v256(xn, s, mn, mt, slope_n, (j)))
#define SM_VC(j) (vin ? _mm256_loadu_ps(vv + (j)) : sm_v256(x, s, m, mt, slope, (j)))
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        // a line of the row asked for per 16 values: memory streams it in
        // while this row computes
        _mm_prefetch((const char *) (pf + i), _MM_HINT_T0);
        // this row's v first: vn may be v's buffer's partner, prev
        const __m256 v0 = SM_VC(i), v1 = SM_VC(i + 8);
        if (pipe) {
            _mm256_stream_ps(prev_out + i, _mm256_mul_ps(_mm256_loadu_ps(prev + i), ps));
            _mm256_stream_ps(prev_out + i + 8, _mm256_mul_ps(_mm256_loadu_ps(prev + i + 8), ps));
        }
        if (fmax) {
            const __m256 n0 = SM_VN(i), n1 = SM_VN(i + 8);
            if (vout) {
                _mm256_storeu_ps(vn + i, n0);
                _mm256_storeu_ps(vn + i + 8, n1);
            }
            // one accumulator (the same maximum; zeros' signs aside): with
            // two, GCC kept one and a sum on the stack, 16 registers being
            // too few with a mask
            m0 = _mm256_max_ps(n1, _mm256_max_ps(n0, m0));
        }
        const __m256 e0 = gk_exp_neg256(_mm256_sub_ps(v0, vm), tab);
        const __m256 e1 = gk_exp_neg256(_mm256_sub_ps(v1, vm), tab);
        _mm256_storeu_ps(z + i, e0);
        _mm256_storeu_ps(z + i + 8, e1);
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 v = SM_VC(i);
        if (pipe) {
            _mm256_stream_ps(prev_out + i, _mm256_mul_ps(_mm256_loadu_ps(prev + i), ps)); // n % 8 == 0
        }
        if (fmax) {
            const __m256 nv = SM_VN(i);
            if (vout) {
                _mm256_storeu_ps(vn + i, nv);
            }
            m0 = _mm256_max_ps(nv, m0);
        }
        const __m256 e = gk_exp_neg256(_mm256_sub_ps(v, vm), tab);
        _mm256_storeu_ps(z + i, e);
        s0 = _mm256_add_ps(s0, e);
    }
    if (i < n) {
        struct sm_tail t;
        // (vin: t.x holds v, no mask)
        const __m256 lanes = sm_tail_load(&t, n, i, vin ? vv : x, vin ? NULL : m, vin ? GK_SM_NONE : mt);
        const __m256 v = vin ? _mm256_loadu_ps(t.x) : sm_v256(t.x, s, &t.m, mt, slope, 0);
        if (fmax) {
            struct sm_tail tn;
            const __m256 ln = sm_tail_load(&tn, n, i, xn, mn, mt);
            // (the lanes past n hold 0 * s, and blendv drops them)
            const __m256 nv = sm_v256(tn.x, mt == GK_SM_NONE ? 1.0f : s, &tn.m, mt, slope_n, 0);
            if (vout) {
                float o[8];
                _mm256_storeu_ps(o, nv);
                for (int k = 0; k < (int) (n - i); k++) {
                    vn[i + k] = o[k];
                }
            }
            m1 = _mm256_max_ps(_mm256_blendv_ps(m1, nv, ln), m1);
        }
        const __m256 e = _mm256_and_ps(gk_exp_neg256(_mm256_sub_ps(v, vm), tab), lanes);
        float out[8];
        _mm256_storeu_ps(out, e);
        for (int k = 0; k < (int) (n - i); k++) {
            z[i + k] = out[k];
        }
        s1 = _mm256_add_ps(s1, e);
    }
    if (fmax) {
        const float mx = hmax256(_mm256_max_ps(m0, m1));
        *a->max_next = mt == GK_SM_NONE ? mx * s : mx;
    }
    return hsum256(_mm256_add_ps(s0, s1));
#undef SM_VN
#undef SM_VC
}

// the kernel for a's flags: pipe, fmax, and with a mask vin and vout
#define SM_EXP256_V(mt, p, f)                                                                               \
    (vin ? (vout ? sm_exp_sum256(n, a, mt, p, f, true, (f)) : sm_exp_sum256(n, a, mt, p, f, true, false))   \
         : (vout ? sm_exp_sum256(n, a, mt, p, f, false, (f)) : sm_exp_sum256(n, a, mt, p, f, false, false)))
#define SM_EXP256(mt)                                                                                       \
    (pipe ? (fmax ? SM_EXP256_V(mt, true, true) : SM_EXP256_V(mt, true, false))                            \
          : (fmax ? SM_EXP256_V(mt, false, true) : SM_EXP256_V(mt, false, false)))
#define SM_EXP256_NONE                                                                                      \
    (pipe ? (fmax ? sm_exp_sum256(n, a, GK_SM_NONE, true, true, false, false)                               \
                  : sm_exp_sum256(n, a, GK_SM_NONE, true, false, false, false))                             \
          : (fmax ? sm_exp_sum256(n, a, GK_SM_NONE, false, true, false, false)                              \
                  : sm_exp_sum256(n, a, GK_SM_NONE, false, false, false, false)))

float gk_softmax_exp_avx2(int64_t n, const struct gk_sm_exp * a) {
    const bool pipe = a->prev != NULL, fmax = a->xn != NULL;
    const bool vin = a->v != NULL, vout = fmax && a->vn != NULL;
    switch (a->m ? a->mt : GK_SM_NONE) {
        case GK_SM_F32: return SM_EXP256(GK_SM_F32);
        case GK_SM_F16: return SM_EXP256(GK_SM_F16);
        case GK_SM_NONE:
        default: return SM_EXP256_NONE;
    }
}

void gk_softmax_norm_avx2(int64_t n, const float * x, float s, float * z, bool nt) {
    const __m256 vs = _mm256_set1_ps(s);
    int64_t i = 0;
    if (nt) {
        for (; i < n && ((uintptr_t) (z + i) & 31) != 0; i++) {
            z[i] = x[i] * s;
        }
        for (; i + 16 <= n; i += 16) {
            _mm256_stream_ps(z + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
            _mm256_stream_ps(z + i + 8, _mm256_mul_ps(_mm256_loadu_ps(x + i + 8), vs));
        }
    } else {
        for (; i + 16 <= n; i += 16) {
            _mm256_storeu_ps(z + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
            _mm256_storeu_ps(z + i + 8, _mm256_mul_ps(_mm256_loadu_ps(x + i + 8), vs));
        }
    }
    for (; i < n; i++) {
        z[i] = x[i] * s;
    }
}

void gk_sfence_x86(void) {
    _mm_sfence();
}
