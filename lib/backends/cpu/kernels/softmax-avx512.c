/*
 * softmax-avx512.c - SOFT_MAX's row kernels for AVX512F/BW/VL: sixteen
 * lanes, tails through masked loads and stores. The contracts of the _avx2
 * forms in softmax-x86.c (gk-vec.h): the same values v and the same
 * maximum; exponentials within the same bound, from a 16-entry table of
 * 2^(j/16) (one permute) and a cubic, fewer multiply-adds than the AVX2
 * form's polynomial. Called only where ggml_cpu_isa()->use_vnni256
 * (AVX512F/BW/VL present, not disabled).
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-vec.h"
#include "gk-avx512.h"
#include "gk-exp-avx512.h"

#include <immintrin.h>

static inline __mmask16 tail_mask(int64_t left) {
    return left >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << left) - 1u);
}

// v = x * s, plus slope * m (a fused multiply-add) with a mask
static inline __m512 sm_v512(const float * x, float s, const void * m, enum gk_sm_mask mt, float slope, int64_t i,
                             __mmask16 k) {
    // whole vectors (k a constant 0xffff) by two 256-bit loads (gk-avx512.h)
    const __m512 v = _mm512_mul_ps(k == 0xffff ? gk_loadu16_avx512(x + i) : _mm512_maskz_loadu_ps(k, x + i),
                                   _mm512_set1_ps(s));
    switch (mt) {
        case GK_SM_F32:
            return _mm512_fmadd_ps(_mm512_set1_ps(slope),
                                   k == 0xffff ? gk_loadu16_avx512((const float *) m + i)
                                               : _mm512_maskz_loadu_ps(k, (const float *) m + i),
                                   v);
        case GK_SM_F16:
            return _mm512_fmadd_ps(_mm512_set1_ps(slope),
                                   _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, (const uint16_t *) m + i)), v);
        case GK_SM_NONE:
        default:
            return v;
    }
}

static inline __attribute__((always_inline)) float sm_max512(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope) {
    __m512 m0 = _mm512_set1_ps(-GK_SM_INF), m1 = m0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        // max(v, acc) keeps acc where v is NaN
        m0 = _mm512_max_ps(sm_v512(x, s, m, mt, slope, i, 0xffff), m0);
        m1 = _mm512_max_ps(sm_v512(x, s, m, mt, slope, i + 16, 0xffff), m1);
    }
    for (; i < n; i += 16) {
        const __mmask16 k = tail_mask(n - i);
        m0 = _mm512_mask_max_ps(m0, k, sm_v512(x, s, m, mt, slope, i, k), m0);
    }
    return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

float gk_softmax_max_avx512(int64_t n, const float * x, float s, const void * m, enum gk_sm_mask mt, float slope) {
    switch (mt) {
        case GK_SM_F32: return sm_max512(n, x, s, m, GK_SM_F32, slope);
        case GK_SM_F16: return sm_max512(n, x, s, m, GK_SM_F16, slope);
        case GK_SM_NONE:
        default: return sm_max512(n, x, s, NULL, GK_SM_NONE, 0.0f);
    }
}

static inline __attribute__((always_inline)) float sm_exp_sum512(int64_t n, const struct gk_sm_exp * a,
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
    // the next row, its maximum found as sm_max512 finds it
    const float * xn = a->xn;
    const void * mn = a->mn;
    const float slope_n = a->slope_n;
    const __m512 vm = _mm512_set1_ps(a->max), ps = _mm512_set1_ps(a->prev_s), tab = _mm512_load_ps(gk_exp2_16th);
    const float * pf = a->next ? a->next : x; // prefetches of x itself cost little
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    __m512 m0 = _mm512_set1_ps(-GK_SM_INF), m1 = m0;
    // without a mask (then s > 0) the largest x times s: the largest x * s,
    // rounding being monotonic, one multiplication fewer per vector
#define SM_VN(j, k)                                                                                          \
    (mt == GK_SM_NONE ? ((k) == 0xffff ? gk_loadu16_avx512(xn + (j)) : _mm512_maskz_loadu_ps((k), xn + (j))) \
                      : sm_v512(xn, s, mn, mt, slope_n, (j), (k)))
    // this row's v
#define SM_VC(j, k)                                                                                          \
    (vin ? ((k) == 0xffff ? _mm512_loadu_ps(vv + (j)) : _mm512_maskz_loadu_ps((k), vv + (j)))               \
         : sm_v512(x, s, m, mt, slope, (j), (k)))
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        // a line of the row asked for per 16 values: memory streams it in
        // while this row computes
        _mm_prefetch((const char *) (pf + i), _MM_HINT_T0);
        _mm_prefetch((const char *) (pf + i + 16), _MM_HINT_T0);
        // this row's v first: vn may be v's buffer's partner, prev
        const __m512 v0 = SM_VC(i, 0xffff), v1 = SM_VC(i + 16, 0xffff);
        if (pipe) {
            _mm512_stream_ps(prev_out + i, _mm512_mul_ps(_mm512_load_ps(prev + i), ps));
            _mm512_stream_ps(prev_out + i + 16, _mm512_mul_ps(_mm512_load_ps(prev + i + 16), ps));
        }
        if (fmax) {
            const __m512 n0 = SM_VN(i, 0xffff), n1 = SM_VN(i + 16, 0xffff);
            if (vout) {
                _mm512_storeu_ps(vn + i, n0);
                _mm512_storeu_ps(vn + i + 16, n1);
            }
            m0 = _mm512_max_ps(n0, m0);
            m1 = _mm512_max_ps(n1, m1);
        }
        const __m512 e0 = gk_exp_neg512(_mm512_sub_ps(v0, vm), tab);
        const __m512 e1 = gk_exp_neg512(_mm512_sub_ps(v1, vm), tab);
        _mm512_storeu_ps(z + i, e0);
        _mm512_storeu_ps(z + i + 16, e1);
        s0 = _mm512_add_ps(s0, e0);
        s1 = _mm512_add_ps(s1, e1);
    }
    for (; i < n; i += 16) {
        const __mmask16 k = tail_mask(n - i);
        const __m512 v = SM_VC(i, k);
        if (pipe) {
            _mm512_stream_ps(prev_out + i, _mm512_mul_ps(_mm512_load_ps(prev + i), ps)); // n % 16 == 0
        }
        if (fmax) {
            const __m512 nv = SM_VN(i, k);
            if (vout) {
                _mm512_mask_storeu_ps(vn + i, k, nv);
            }
            m0 = _mm512_mask_max_ps(m0, k, nv, m0);
        }
        const __m512 e = _mm512_maskz_mov_ps(k, gk_exp_neg512(_mm512_sub_ps(v, vm), tab));
        _mm512_mask_storeu_ps(z + i, k, e);
        s0 = _mm512_add_ps(s0, e);
    }
    if (fmax) {
        const float mx = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
        *a->max_next = mt == GK_SM_NONE ? mx * s : mx;
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
#undef SM_VN
#undef SM_VC
}

// the kernel for a's flags: pipe, fmax, and with a mask vin and vout
#define SM_EXP512_V(mt, p, f)                                                                               \
    (vin ? (vout ? sm_exp_sum512(n, a, mt, p, f, true, (f)) : sm_exp_sum512(n, a, mt, p, f, true, false))   \
         : (vout ? sm_exp_sum512(n, a, mt, p, f, false, (f)) : sm_exp_sum512(n, a, mt, p, f, false, false)))
#define SM_EXP512(mt)                                                                                       \
    (pipe ? (fmax ? SM_EXP512_V(mt, true, true) : SM_EXP512_V(mt, true, false))                            \
          : (fmax ? SM_EXP512_V(mt, false, true) : SM_EXP512_V(mt, false, false)))
#define SM_EXP512_NONE                                                                                      \
    (pipe ? (fmax ? sm_exp_sum512(n, a, GK_SM_NONE, true, true, false, false)                               \
                  : sm_exp_sum512(n, a, GK_SM_NONE, true, false, false, false))                             \
          : (fmax ? sm_exp_sum512(n, a, GK_SM_NONE, false, true, false, false)                              \
                  : sm_exp_sum512(n, a, GK_SM_NONE, false, false, false, false)))

float gk_softmax_exp_avx512(int64_t n, const struct gk_sm_exp * a) {
    const bool pipe = a->prev != NULL, fmax = a->xn != NULL;
    const bool vin = a->v != NULL, vout = fmax && a->vn != NULL;
    switch (a->m ? a->mt : GK_SM_NONE) {
        case GK_SM_F32: return SM_EXP512(GK_SM_F32);
        case GK_SM_F16: return SM_EXP512(GK_SM_F16);
        case GK_SM_NONE:
        default: return SM_EXP512_NONE;
    }
}

// z = x * s (z may be x), non-temporal stores when nt (then SFENCE; z and
// x the same or apart)
void gk_softmax_norm_avx512(int64_t n, const float * x, float s, float * z, bool nt) {
    const __m512 vs = _mm512_set1_ps(s);
    int64_t i = 0;
    if (nt) {
        // to a 64-byte boundary of z, then whole lines
        const int64_t head = (int64_t) (((64 - ((uintptr_t) z & 63)) & 63) / sizeof(float));
        if (((uintptr_t) z & 3) == 0 && head < n) {
            const __mmask16 k = tail_mask(head);
            _mm512_mask_storeu_ps(z, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x), vs));
            for (i = head; i + 16 <= n; i += 16) {
                _mm512_stream_ps(z + i, _mm512_mul_ps(gk_loadu16_avx512(x + i), vs));
            }
        }
    }
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_mul_ps(gk_loadu16_avx512(x + i), vs);
        const __m512 b = _mm512_mul_ps(gk_loadu16_avx512(x + i + 16), vs);
        _mm512_storeu_ps(z + i, a);
        _mm512_storeu_ps(z + i + 16, b);
    }
    for (; i < n; i += 16) {
        const __mmask16 k = tail_mask(n - i);
        _mm512_mask_storeu_ps(z + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), vs));
    }
}
