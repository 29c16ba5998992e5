/*
 * gk-x86.h - small AVX2 helpers shared by the x86-64 kernel files (include
 * only from files built with AVX2 enabled).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_X86_H
#define GK_X86_H

#include "gk-quant.h"
#include "gk-types.h"

#include <immintrin.h>

#define GK_ALWAYS_INLINE inline __attribute__((always_inline))

static GK_ALWAYS_INLINE uint16_t gk_ld16(const void * p) {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

static GK_ALWAYS_INLINE int32_t gk_ld32(const void * p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

// The unsigned-by-signed byte product steps of the AVX2 int8 kernels, in
// two builds. With AVX2 alone, VPMADDUBSW into int16 pair sums: gk_dp16
// keeps adding them in int16 (the caller's value ranges keep that from
// saturating) until gk_dp16_wide adds pairs of them into int32; gk_dp32
// goes to int32 at once (VPMADDWD with ones). Built with GK_AVXVNNI (the
// *-avxvnni.c files, AVX-VNNI enabled): each step is one VEX-encoded
// VPDPBUSD into int32 lanes and the widening is nothing. The int32 sums
// are the same on both, so are the results. gk_dp16x2 is two steps added
// in int16 first (AVX2), as the kernels that split a byte into nibbles do.
#ifdef GK_AVXVNNI
#define GK_X86_FN(name) name##_avxvnni
static GK_ALWAYS_INLINE __m256i gk_dp16(__m256i acc, __m256i u, __m256i s) {
    return _mm256_dpbusd_avx_epi32(acc, u, s);
}
static GK_ALWAYS_INLINE __m256i gk_dp16x2(__m256i acc, __m256i u0, __m256i s0, __m256i u1, __m256i s1) {
    return _mm256_dpbusd_avx_epi32(_mm256_dpbusd_avx_epi32(acc, u0, s0), u1, s1);
}
static GK_ALWAYS_INLINE __m256i gk_dp16_wide(__m256i acc) {
    return acc;
}
static GK_ALWAYS_INLINE __m256i gk_dp32(__m256i acc, __m256i u, __m256i s) {
    return _mm256_dpbusd_avx_epi32(acc, u, s);
}
#else
#define GK_X86_FN(name) name##_avx2
static GK_ALWAYS_INLINE __m256i gk_dp16(__m256i acc, __m256i u, __m256i s) {
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(u, s));
}
static GK_ALWAYS_INLINE __m256i gk_dp16x2(__m256i acc, __m256i u0, __m256i s0, __m256i u1, __m256i s1) {
    return _mm256_add_epi16(acc, _mm256_add_epi16(_mm256_maddubs_epi16(u0, s0), _mm256_maddubs_epi16(u1, s1)));
}
static GK_ALWAYS_INLINE __m256i gk_dp16_wide(__m256i acc) {
    return _mm256_madd_epi16(acc, _mm256_set1_epi16(1));
}
static GK_ALWAYS_INLINE __m256i gk_dp32(__m256i acc, __m256i u, __m256i s) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
}
#endif

// Q6_K: one 128-value half of a block as 6-bit values 0..63, four vectors
// of 32 (q[g]: values 32g..32g+31 of the half), from its 64 bytes of low
// nibbles at ql and 32 bytes of high bit pairs at qh
static GK_ALWAYS_INLINE void gk_q6_K_half_avx2(const uint8_t * ql, const uint8_t * qh, __m256i q[4]) {
    const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
    const __m256i l0 = _mm256_loadu_si256((const __m256i *) ql);
    const __m256i l1 = _mm256_loadu_si256((const __m256i *) (ql + 32));
    const __m256i hb = _mm256_loadu_si256((const __m256i *) qh);
    q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
    q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                           _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
}

// 8 vectors of 8 dwords (one per row) -> 8 vectors of 8 dwords (one per
// dword index): out[s] holds dword s of rows 0..7
static GK_ALWAYS_INLINE void gk_transpose8x8_epi32(__m256i r[8]) {
    const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    const __m256i t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]);
    const __m256i t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]);
    const __m256i t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2);
    const __m256i u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3);
    const __m256i u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6);
    const __m256i u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7);
    const __m256i u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

// d and dmin (adjacent fp16 of a K-quant block) times the activations' d:
// lanes 0 and 1
static GK_ALWAYS_INLINE __m128 gk_d_dmin(const uint16_t * d, float yd) {
    return _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(gk_ld32(d))), _mm_set1_ps(yd));
}

// the sum of the eight lanes of v
static GK_ALWAYS_INLINE float gk_hsum8(__m256 v) {
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// the sum of acc's eight lanes less accm's four (the K-quant dots' sums
// and their mins' part)
static GK_ALWAYS_INLINE float gk_hsum_acc(__m256 acc, __m128 accm) {
    __m128 r = _mm_sub_ps(_mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1)), accm);
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// Q4_K/Q5_K super-block: its eight 6-bit sub-block scales as int16 in both
// 128-bit halves (for byte-shuffle picks), and in *pm the mins times the
// activations' 32-value sums (pairs of bsums), four int32 lanes
static GK_ALWAYS_INLINE __m256i gk_q4_K_scales_bsums(const uint8_t * scales, const int16_t * bsums, __m128i * pm) {
    uint64_t sc, mn;
    gk_q4_K_scales_mins64(scales, &sc, &mn);
    const __m256i bs = _mm256_loadu_si256((const __m256i *) bsums);
    const __m128i bs2 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
    *pm = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long) mn)), bs2);
    return _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long) sc)));
}

// The four-row K-quant dots (gk_dot4_q4_K/_q6_K_q8_K_*): four weight rows
// against one activation row, each activation super-block read once for the
// four. One row at a time, a long row's activations (K = 28672: 32 KiB of
// Q8_K) do not stay in L1 beside the weight stream and are read again for
// every row: plain Q4_K 4096 x 28672 from DRAM ran at 9 GB/s on one thread
// against 23 for the repacked layout, Q6_K 10-12 GB/s. Four rows are four
// streams, which the hardware prefetchers do not follow: each row is
// prefetched GK_KDOT4_PF bytes ahead into L2 (256 B: 11 GB/s, 1 KiB 14,
// 2-4 KiB 21-28). Still slower than one row's single stream where the
// activations fit in L1, so MUL_MAT takes them for long rows only.
#define GK_KDOT4_PF 2048

// the lines of four rows bx bytes apart from byte *next up to end; past
// the rows' end (row bytes), the rows the caller takes next, wrap bytes on
// (the next four: 4 * bx; four streams of rows: the stream's next row)
static GK_ALWAYS_INLINE void gk_prefetch4_rows(const char * x, size_t bx, size_t wrap, size_t row, size_t * next,
                                               size_t end) {
    for (; *next < end; *next += 64) {
        const char * p = x + (*next < row ? *next : wrap + (*next - row));
        _mm_prefetch(p, _MM_HINT_T1);
        _mm_prefetch(p + bx, _MM_HINT_T1);
        _mm_prefetch(p + 2 * bx, _MM_HINT_T1);
        _mm_prefetch(p + 3 * bx, _MM_HINT_T1);
    }
}

// The four-row dots' loop over nb super-blocks of type BT: the rows' lines
// prefetched, then BLOCK for r = 0..3 (r and i in scope: row and block)
#define GK_KDOT4_LOOP(BT, nb, xc, bx, wrap, BLOCK)                                                      \
    do {                                                                                               \
        size_t next_ = GK_KDOT4_PF;                                                                    \
        for (int64_t i = 0; i < (nb); i++) {                                                           \
            gk_prefetch4_rows((xc), (bx), (wrap), (size_t) (nb) * sizeof(BT), &next_,                  \
                              (size_t) (i + 1) * sizeof(BT) + GK_KDOT4_PF);                             \
            _Pragma("GCC unroll 4") for (int r = 0; r < 4; r++) {                                      \
                BLOCK;                                                                                 \
            }                                                                                          \
        }                                                                                              \
    } while (0)

// A whole four-row dot NAME(n, x, bx, y, s) of super-blocks BT with mins
// (Q4_K, Q5_K): BLOCK(b, yb, pick, &acc, &accm) adds one row's super-block,
// PICK(j) makes the eight scale picks; each row's value is the one-row
// dot's (the same BLOCK, the same order)
#define GK_KDOT4_MINS_FN(NAME, BT, BLOCK, PICK)                                                       \
    void NAME(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s) {            \
        const int64_t nb = n / GK_QK_K;                                                              \
        const char * xc = (const char *) x;                                                          \
        __m256i pick[8];                                                                             \
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) {                                        \
            pick[j] = PICK(j);                                                                       \
        }                                                                                            \
        __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),             \
                          _mm256_setzero_ps() };                                                     \
        __m128 accm[4] = { _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps() }; \
        GK_KDOT4_LOOP(BT, nb, xc, bx, 4 * bx,                                                        \
                      BLOCK((const BT *) (xc + (size_t) r * bx) + i, y + i, pick, &acc[r], &accm[r])); \
        for (int r = 0; r < 4; r++) {                                                                \
            s[r] = gk_hsum_acc(acc[r], accm[r]);                                                     \
        }                                                                                            \
    }

// the same without mins (Q6_K): BLOCK(b, yb, pick, &acc), four picks.
// GK_KDOT4S_FN: NAME(n, x, bx, nx, y, s), the four rows each the current
// row of a stream of rows, the stream's next row nx bytes on (the prefetch
// runs on into it)
#define GK_KDOT4_FN(NAME, BT, BLOCK, PICK)                                                            \
    void NAME(int64_t n, const void * x, size_t bx, const gk_block_q8_K * y, float * s) {            \
        GK_KDOT4_BODY(BT, BLOCK, PICK, 4 * bx);                                                      \
    }
#define GK_KDOT4S_FN(NAME, BT, BLOCK, PICK)                                                           \
    void NAME(int64_t n, const void * x, size_t bx, size_t nx, const gk_block_q8_K * y, float * s) { \
        GK_KDOT4_BODY(BT, BLOCK, PICK, nx);                                                          \
    }
#define GK_KDOT4_BODY(BT, BLOCK, PICK, WRAP)                                                          \
    do {                                                                                             \
        const int64_t nb = n / GK_QK_K;                                                              \
        const char * xc = (const char *) x;                                                          \
        __m256i pick[4];                                                                             \
        _Pragma("GCC unroll 4") for (int g = 0; g < 4; g++) {                                        \
            pick[g] = PICK(g);                                                                       \
        }                                                                                            \
        __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),             \
                          _mm256_setzero_ps() };                                                     \
        GK_KDOT4_LOOP(BT, nb, xc, bx, (WRAP),                                                        \
                      BLOCK((const BT *) (xc + (size_t) r * bx) + i, y + i, pick, &acc[r]));        \
        for (int r = 0; r < 4; r++) {                                                                \
            s[r] = gk_hsum8(acc[r]);                                                                 \
        }                                                                                            \
    } while (0)

#endif // GK_X86_H
