/*
 * quant-avx512.c - int8 kernels for Q8_0/Q4_0 weights with VPDPBUSD
 * (AVX512-VNNI; the EVEX encoding also gives 32 vector registers). Built
 * with -mavx512f -mavx512bw -mavx512vl -mavx512vnni on top of
 * AVX2/FMA/F16C; called only when the CPU and OS report all of them
 * (ggml_cpu_isa()->use_vnni256). Not part of the kernel module build.
 *
 * VPDPBUSD multiplies unsigned bytes (first operand) with signed bytes
 * (second operand) and adds groups of four products into int32 lanes.
 *
 * - Matrix-vector (gk_dot8_*_q8x_vnni, gk_dot8c_*: 512-bit): up to eight
 *   weight rows with up to four Q8_0x activation rows per pass, four rows
 *   per vector (see dot8x). Q8_0:
 *   the activation's magnitude is the unsigned operand and its sign moves
 *   onto the weights; Q4_0: the nibbles (0..15) are the unsigned operand
 *   directly and the offset 8 comes off through the activation block's
 *   corr (-8 * its sum), which starts the accumulator.
 * - Matrix-matrix (gk_gemm_q8x_vnni, 512-bit): weights packed by
 *   gk_pack_*_u8_vnni into tiles of 16 rows in which each 64-byte vector
 *   holds four consecutive values of all 16 rows, so one VPDPBUSD with four
 *   broadcast activation bytes advances 16 row dots; the weights are
 *   unsigned (Q4_0: the nibble, Q8_0: q + 128) and the activation block's
 *   precomputed corr (-off * sum) starts the int32 accumulator. Per
 *   32-value block the int32 dots are converted and scaled in float by
 *   d_weight * d_activation. (Until November 2026 the GEMM ran on 256-bit
 *   vectors, two per step, at about 60% of this speed.)
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-quant.h"
#include "gk-fp16.h"
#include "gk-x86.h"

#include <immintrin.h>

#define GK_DOT_PF 512
#ifndef GK_PACK_PF
#define GK_PACK_PF 1024
#endif
#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static ALWAYS_INLINE uint16_t ld16(const void * p) {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

static ALWAYS_INLINE int32_t ld32(const void * p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

// ---------------------------------------------------------------------------
// matrix-vector
// ---------------------------------------------------------------------------

// Up to eight weight rows (bx bytes apart) with nc (1..4) Q8_0x activation
// rows (ys blocks apart; results for activation c at s + c * ss), four
// weight rows per 512-bit vector: lanes 4r..4r+3 hold row r's dot over
// values 4k..4k+3 and 16+4k..16+4k+3 (lane k), from two VPDPBUSD: [a 0..15
// | b 0..15 | c 0..15 | d 0..15] x [y 0..15] x 4, then the same for 16..31.
// Q4_0: the 16 bytes of each row's block are those lanes' nibbles (four
// 128-bit loads into one vector); Q8_0: two rows per 256-bit load pair
// ([a 0..31 | b 0..31], [c 0..31 | d 0..31]), regrouped by two VSHUFI64X2
// into the low and high halves. Per group of four rows and block: the
// weights as bytes (once for all activations), and per activation two
// VPDPBUSD (Q8_0: after its sign moves onto the weights), one convert and
// one FMA with the rows' scales; per block and activation: its halves
// (broadcast loads), Q4_0's corr (-8 * sum y, in lane 0 of each row),
// Q8_0's |y| and sign masks, and the eight fp16 weight scales (converted
// once) multiplied by the activation's. Rows past nrows read the last row
// again; their results are dropped. Each row's float operations are those
// of the 256-bit one-activation kernel this replaced (two rows per vector,
// same lanes), so the results are the same bit for bit, whatever nc.
static ALWAYS_INLINE void dot8x(const bool q4, const int nc, int64_t n, const void * x, size_t bx, int nrows,
                                const gk_block_q8_0x * y, int64_t ys, float * s, int64_t ss) {
    const int64_t nb = n / GK_QK8_0;
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const uint8_t * xr[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        xr[r] = (const uint8_t *) x + (size_t) (r < nrows ? r : nrows - 1) * bx;
    }
    __m512 acc[4][2];
    __m512i pidx[2];
#pragma GCC unroll 2
    for (int g = 0; g < 2; g++) {
        pidx[g] = _mm512_setr_epi32(4 * g, 4 * g, 4 * g, 4 * g, 4 * g + 1, 4 * g + 1, 4 * g + 1, 4 * g + 1,
                                    4 * g + 2, 4 * g + 2, 4 * g + 2, 4 * g + 2, 4 * g + 3, 4 * g + 3, 4 * g + 3, 4 * g + 3);
#pragma GCC unroll 4
        for (int c = 0; c < nc; c++) {
            acc[c][g] = _mm512_setzero_ps();
        }
    }
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m4 = _mm512_set1_epi8(0xF);
    const size_t row = (size_t) nb * bsz;
    for (int64_t i = 0; i < nb; i++) {
        const size_t o = (size_t) i * bsz;
        // the prefetch distance past the row's end: the same row of the next
        // group of eight, which the caller takes next (short rows, e.g. 2048
        // values, would otherwise start each group with eight cold streams)
        const size_t pf = o + 2 + (q4 ? 2 * GK_DOT_PF : GK_DOT_PF);
        const size_t pfo = pf < row ? pf : pf - row + 8 * bx;
        uint64_t da = (uint64_t) ld16(xr[0] + o) | ((uint64_t) ld16(xr[1] + o) << 16) |
                      ((uint64_t) ld16(xr[2] + o) << 32) | ((uint64_t) ld16(xr[3] + o) << 48);
        uint64_t db = (uint64_t) ld16(xr[4] + o) | ((uint64_t) ld16(xr[5] + o) << 16) |
                      ((uint64_t) ld16(xr[6] + o) << 32) | ((uint64_t) ld16(xr[7] + o) << 48);
        // combined in general registers: the integer pipes are idle, the
        // vector ones are not (left alone, the compiler vectorizes this)
        __asm__("" : "+r"(da), "+r"(db));
        const __m256 dw = _mm256_cvtph_ps(_mm_set_epi64x((long long) db, (long long) da));
        __m512i ylo[4], yhi[4], cy[4];
        __mmask64 nlo[4], nhi[4];
        __m512 sc[4];
#pragma GCC unroll 4
        for (int c = 0; c < nc; c++) {
            const gk_block_q8_0x * yc = y + c * ys + i;
            ylo[c] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) yc->qs));
            yhi[c] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) (yc->qs + 16)));
            if (q4) {
                cy[c] = _mm512_maskz_set1_epi32(0x1111, yc->corr);
            } else {
                // the activation's sign goes onto the weights (where y is 0,
                // |y| is too: the product is 0 either way, as with VPSIGNB)
                nlo[c] = _mm512_movepi8_mask(ylo[c]);
                nhi[c] = _mm512_movepi8_mask(yhi[c]);
                ylo[c] = _mm512_abs_epi8(ylo[c]);
                yhi[c] = _mm512_abs_epi8(yhi[c]);
            }
            sc[c] = _mm512_castps256_ps512(_mm256_mul_ps(dw, _mm256_set1_ps(yc->d)));
        }
#pragma GCC unroll 2
        for (int g = 0; g < 2; g++) {
            const uint8_t * const * xg = xr + 4 * g;
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                // eight rows at once are more streams than the hardware
                // prefetchers keep ahead of. Q8_0: 512 bytes ahead into L1
                // (measured best of 256..4096: n=1 ~18.5 -> ~22.5 GB/s on one
                // thread); Q4_0: 1 KiB ahead into L2, every other block of
                // 18 bytes (bench-ops n=1 one thread, median of 7 runs: 63%
                // of the read bandwidth with 512 bytes into L1, 84% with 2
                // KiB into L2, 87% with 1 KiB into L2)
                if (q4) {
                    if ((i & 1) == 0) {
                        _mm_prefetch((const char *) xg[r] + pfo, _MM_HINT_T1);
                    }
                } else {
                    _mm_prefetch((const char *) xg[r] + pfo, _MM_HINT_T0);
                    // and the same place of the next group of eight rows into
                    // L2 (every other block: 68 bytes apart, the prefetch
                    // into L1 catches a line skipped): eight short streams
                    // 512 bytes ahead are more misses than L1 keeps in
                    // flight, and the hardware prefetchers train too late on
                    // rows of a few KiB (bench-ops n=1, one thread, CPU time,
                    // three runs: 2048 x 2048 13 -> 23-30 GB/s, 14336 x 4096
                    // 17-19 -> 25-27, 4096 x 14336 20-23 -> 22-26). Q4_0
                    // measured no better with it (its 1 KiB into L2 already
                    // does this).
                    if ((i & 1) == 0) {
                        _mm_prefetch((const char *) xg[r] + o + 8 * bx, _MM_HINT_T1);
                    }
                }
            }
            __m512i wl, wh;
            if (q4) {
                __m512i raw = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *) (xg[0] + o + 2)));
                raw = _mm512_inserti32x4(raw, _mm_loadu_si128((const __m128i *) (xg[1] + o + 2)), 1);
                raw = _mm512_inserti32x4(raw, _mm_loadu_si128((const __m128i *) (xg[2] + o + 2)), 2);
                raw = _mm512_inserti32x4(raw, _mm_loadu_si128((const __m128i *) (xg[3] + o + 2)), 3);
                wl = _mm512_and_si512(raw, m4);
                wh = _mm512_and_si512(_mm512_srli_epi16(raw, 4), m4);
            } else {
                const __m512i ab = _mm512_inserti64x4(_mm512_castsi256_si512(
                    _mm256_loadu_si256((const __m256i *) (xg[0] + o + 2))), _mm256_loadu_si256((const __m256i *) (xg[1] + o + 2)), 1);
                const __m512i cd = _mm512_inserti64x4(_mm512_castsi256_si512(
                    _mm256_loadu_si256((const __m256i *) (xg[2] + o + 2))), _mm256_loadu_si256((const __m256i *) (xg[3] + o + 2)), 1);
                // [a lo | b lo | c lo | d lo], [a hi | b hi | c hi | d hi]
                wl = _mm512_shuffle_i64x2(ab, cd, _MM_SHUFFLE(2, 0, 2, 0));
                wh = _mm512_shuffle_i64x2(ab, cd, _MM_SHUFFLE(3, 1, 3, 1));
            }
#pragma GCC unroll 4
            for (int c = 0; c < nc; c++) {
                __m512i t;
                if (q4) {
                    t = _mm512_dpbusd_epi32(cy[c], wl, ylo[c]);
                    t = _mm512_dpbusd_epi32(t, wh, yhi[c]);
                } else {
                    t = _mm512_dpbusd_epi32(zero, ylo[c], _mm512_mask_sub_epi8(wl, nlo[c], zero, wl));
                    t = _mm512_dpbusd_epi32(t, yhi[c], _mm512_mask_sub_epi8(wh, nhi[c], zero, wh));
                }
                acc[c][g] = _mm512_fmadd_ps(_mm512_permutexvar_ps(pidx[g], sc[c]), _mm512_cvtepi32_ps(t), acc[c][g]);
            }
        }
    }
    // per row (lanes 4r..4r+3): (l0 + l1) + (l2 + l3), as the 256-bit
    // kernel's two HADDPS
    const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
#pragma GCC unroll 4
    for (int c = 0; c < nc; c++) {
        float out[8];
#pragma GCC unroll 2
        for (int g = 0; g < 2; g++) {
            __m512 u = _mm512_add_ps(acc[c][g], _mm512_permute_ps(acc[c][g], _MM_SHUFFLE(2, 3, 0, 1)));
            u = _mm512_add_ps(u, _mm512_permute_ps(u, _MM_SHUFFLE(1, 0, 3, 2)));
            _mm_storeu_ps(out + 4 * g, _mm512_castps512_ps128(_mm512_permutexvar_ps(pick, u)));
        }
        for (int r = 0; r < nrows && r < 8; r++) {
            s[c * ss + r] = out[r];
        }
    }
}

void gk_dot8_q8_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot8x(false, 1, n, x, bx, nrows, y, 0, s, 0);
}

void gk_dot8_q4_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, float * s) {
    dot8x(true, 1, n, x, bx, nrows, y, 0, s, 0);
}

// nc activations, GK_DOT8_COLS at a time
#define DOT8_COLS(q4, nc, ...)                                                                                   \
    do {                                                                                                         \
        switch (nc) {                                                                                            \
        case 1: dot8x(q4, 1, __VA_ARGS__); break;                                                                \
        case 2: dot8x(q4, 2, __VA_ARGS__); break;                                                                \
        case 3: dot8x(q4, 3, __VA_ARGS__); break;                                                                \
        default: dot8x(q4, 4, __VA_ARGS__); break;                                                               \
        }                                                                                                        \
    } while (0)

void gk_dot8c_q8_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, int64_t ys,
                            int ncols, float * s, int64_t ss) {
    for (int c0 = 0; c0 < ncols; c0 += GK_DOT8_COLS) {
        const int nc = ncols - c0 < GK_DOT8_COLS ? ncols - c0 : GK_DOT8_COLS;
        DOT8_COLS(false, nc, n, x, bx, nrows, y + c0 * ys, ys, s + c0 * ss, ss);
    }
}

void gk_dot8c_q4_0_q8x_vnni(int64_t n, const void * x, size_t bx, int nrows, const gk_block_q8_0x * y, int64_t ys,
                            int ncols, float * s, int64_t ss) {
    for (int c0 = 0; c0 < ncols; c0 += GK_DOT8_COLS) {
        const int nc = ncols - c0 < GK_DOT8_COLS ? ncols - c0 : GK_DOT8_COLS;
        DOT8_COLS(true, nc, n, x, bx, nrows, y + c0 * ys, ys, s + c0 * ss, ss);
    }
}


// ---------------------------------------------------------------------------
// activations for the GEMM
// ---------------------------------------------------------------------------

// Same values as gk_quantize_row_q8_0 (same amax, d, 1/d and rounding of
// x * (1/d) half away from zero), with d kept as the float of its fp16
// rounding and corr = -off * (sum of the block's values).
void gk_quantize_row_q8_0x_vnni(const float * x, gk_block_q8_0x * y, int64_t n, int32_t off) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 signmask = _mm256_castsi256_ps(_mm256_set1_epi32((int) 0x80000000u));
    const __m256 half = _mm256_set1_ps(0.5f);
    const __m256i ones = _mm256_set1_epi8(1);
    for (int64_t i = 0; i < n / GK_QK8_0; i++) {
        const float * xb = x + i * GK_QK8_0;
        __m256 v[4];
        __m256 amax = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            v[j] = _mm256_loadu_ps(xb + 8 * j);
            amax = _mm256_max_ps(amax, _mm256_and_ps(v[j], absmask));
        }
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_movehdup_ps(m));
        const float d = _mm_cvtss_f32(m) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const __m256 vid = _mm256_set1_ps(id);
        __m256i q[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            const __m256 t = _mm256_mul_ps(v[j], vid);
            // (int) (t + (t >= 0 ? 0.5 : -0.5)): the sign of t on 0.5 (a -0
            // product gives -0.5, which truncates to 0 as well)
            q[j] = _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_or_ps(half, _mm256_and_ps(t, signmask))));
        }
        const __m256i q16a = _mm256_packs_epi32(q[0], q[1]);
        const __m256i q16b = _mm256_packs_epi32(q[2], q[3]);
        // packs work per 128-bit lane: restore element order
        const __m256i q8 = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(q16a, q16b),
                                                       _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *) y[i].qs, q8);
        // sum of the 32 values: VPDPBUSD with ones as the unsigned operand
        const __m256i s = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, q8);
        __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
        y[i].d = _cvtsh_ss(_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT));
        y[i].corr = -off * _mm_cvtsi128_si32(s4);
    }
}

// ---------------------------------------------------------------------------
// weight packing
// ---------------------------------------------------------------------------

// Packs rows [0, nrows) (nrows <= 16; the rest of the tile is zero), blocks
// [b0, b0 + nkb) of a Q8_0 (q4 = false) or Q4_0 (q4 = true) weight matrix.
// Rows j and j + 8 share a zmm (their 32 values in its low and high 256
// bits), so that one 8 x 8 transpose of 32-bit elements per 256-bit half
// (the last stage across 128-bit lanes by VPERMT2Q) gives step s of all 16
// rows, stored at o + 64 s.
static ALWAYS_INLINE __m512i pack_row2(bool q4, const uint8_t * p0, const uint8_t * p1) {
    if (q4) {
        // values 0..15 (low nibbles) in lanes 0 and 2, 16..31 in 1 and 3
        const __m512i sh = _mm512_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4, 0, 0, 0, 0, 4, 4, 4, 4);
        const __m512i v = _mm512_inserti64x4(
            _mm512_castsi256_si512(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) p0))),
            _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) p1)), 1);
        return _mm512_and_si512(_mm512_srlv_epi32(v, sh), _mm512_set1_epi8(0xF));
    }
    const __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *) p0)),
                                         _mm256_loadu_si256((const __m256i *) p1), 1);
    return _mm512_xor_si512(v, _mm512_set1_epi8((char) 0x80));
}

static ALWAYS_INLINE void pack_u8(bool q4, const void * x, size_t bx, int nrows, int64_t b0, int nkb,
                                  uint8_t * wq, float * wd) {
    const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
    const __m512i ilo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i ihi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    // a zero row for the rows past nrows (scale 0)
    static const uint8_t zero[36] = { 0 };
    const uint8_t * xb = (const uint8_t *) x + (size_t) b0 * bsz;
    for (int b = 0; b < nkb; b++) {
        uint8_t * o = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        const uint8_t * p[GK_GEMM_MR];
        uint64_t dh[4] = { 0, 0, 0, 0 };
#pragma GCC unroll 16
        for (int r = 0; r < GK_GEMM_MR; r++) {
            if (r < nrows) {
                p[r] = xb + (size_t) r * bx + (size_t) b * bsz;
                // the row's next K step, for the tile-at-a-time order
                _mm_prefetch((const char *) p[r] + GK_PACK_PF, _MM_HINT_T0);
                dh[r / 4] |= (uint64_t) ld16(p[r]) << (16 * (r % 4));
            } else {
                p[r] = zero;
            }
        }
        // the 16 fp16 scales at once, combined in general registers
        __asm__("" : "+r"(dh[0]), "+r"(dh[1]), "+r"(dh[2]), "+r"(dh[3]));
        _mm512_storeu_ps(wd + (size_t) b * GK_GEMM_MR,
                         _mm512_cvtph_ps(_mm256_setr_epi64x((long long) dh[0], (long long) dh[1],
                                                            (long long) dh[2], (long long) dh[3])));
        __m512i v[8];
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            // (Q8_0 zero rows: 0 ^ 0x80, i.e. q = 0 with scale 0)
            v[j] = pack_row2(q4, p[j] + 2, p[j + 8] + 2);
        }
        __m512i t[8], u[8];
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            t[2 * j] = _mm512_unpacklo_epi32(v[2 * j], v[2 * j + 1]);
            t[2 * j + 1] = _mm512_unpackhi_epi32(v[2 * j], v[2 * j + 1]);
        }
#pragma GCC unroll 2
        for (int j = 0; j < 2; j++) {
            u[4 * j] = _mm512_unpacklo_epi64(t[4 * j], t[4 * j + 2]);
            u[4 * j + 1] = _mm512_unpackhi_epi64(t[4 * j], t[4 * j + 2]);
            u[4 * j + 2] = _mm512_unpacklo_epi64(t[4 * j + 1], t[4 * j + 3]);
            u[4 * j + 3] = _mm512_unpackhi_epi64(t[4 * j + 1], t[4 * j + 3]);
        }
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++) {
            _mm512_storeu_si512((void *) (o + 64 * s), _mm512_permutex2var_epi64(u[s], ilo, u[s + 4]));
            _mm512_storeu_si512((void *) (o + 64 * (s + 4)), _mm512_permutex2var_epi64(u[s], ihi, u[s + 4]));
        }
    }
}

void gk_pack_q8_0_u8_vnni(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack_u8(false, x, bx, nrows, b0, nkb, wq, wd);
}

void gk_pack_q4_0_u8_vnni(const void * x, size_t bx, int nrows, int64_t b0, int nkb, uint8_t * wq, float * wd) {
    pack_u8(true, x, bx, nrows, b0, nkb, wq, wd);
}

// ---------------------------------------------------------------------------
// GEMM micro-kernel: 16 packed weight rows x NC activation columns
// ---------------------------------------------------------------------------

// Columns per tile: NC int32 and NC float accumulators. 4096 x 4096, one
// thread, CPU time, best of three (Zen 5), n = 32 / 128 / 512: 6 columns
// 2.73 / 8.89 / 33.9 ms, 8 2.67 / 8.73 / 32.8, 12 2.61 / 8.52 / 33.0, 14
// 2.60 / 8.53 / 34.2 (Q4_0; Q8_0 alike): from 8 on equal within the noise
// (about 57% of VPDPBUSD's zmm peak at n = 512).
#ifndef GEMM_NC
#define GEMM_NC 12
#endif

// One zmm holds step s (values 4s..4s+3) of all 16 rows (o + 64 s), so per
// step and column one VPDPBUSD with the column's four activation bytes
// broadcast (embedded {1to16} from memory); per block and column the int32
// dots are converted and scaled by the 16 weight scales (one zmm) times the
// column's d. NC columns are NC independent VPDPBUSD chains.
// With wm (the groups' offsets, wm[b * 16 + r]) and as (the activation
// blocks' sums, as[j * lda + b]): per block and column also wm times the
// column's sum, the offsets of Q4_1, Q5_1, Q5_K, ... (their mins) in the
// same float step, instead of a float GEMM of its own.
static ALWAYS_INLINE void tile16(const int NC, int nkb, const uint8_t * wq, const float * wd, const float * wm,
                                 int nrows, const gk_block_q8_0x * a, const float * as, int64_t lda, float * c,
                                 int64_t ldc) {
    __m512 f[GEMM_NC];
#pragma GCC unroll 16
    for (int j = 0; j < NC; j++) {
        f[j] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nkb; b++) {
        const uint8_t * w = wq + (size_t) b * GK_GEMM_MR * GK_QK8_0;
        __m512i acc[GEMM_NC];
#pragma GCC unroll 16
        for (int j = 0; j < NC; j++) {
            acc[j] = _mm512_set1_epi32(a[j * lda + b].corr);
        }
#pragma GCC unroll 8
        for (int s = 0; s < 8; s++) {
            const __m512i wv = _mm512_loadu_si512((const void *) (w + 64 * s));
#pragma GCC unroll 16
            for (int j = 0; j < NC; j++) {
                acc[j] = _mm512_dpbusd_epi32(acc[j], wv, _mm512_set1_epi32(ld32(a[j * lda + b].qs + 4 * s)));
            }
        }
        const __m512 d = _mm512_loadu_ps(wd + (size_t) b * GK_GEMM_MR);
#pragma GCC unroll 16
        for (int j = 0; j < NC; j++) {
            f[j] = _mm512_fmadd_ps(_mm512_mul_ps(d, _mm512_set1_ps(a[j * lda + b].d)), _mm512_cvtepi32_ps(acc[j]), f[j]);
        }
        if (wm) {
            const __m512 o = _mm512_loadu_ps(wm + (size_t) b * GK_GEMM_MR);
#pragma GCC unroll 16
            for (int j = 0; j < NC; j++) {
                f[j] = _mm512_fmadd_ps(o, _mm512_set1_ps(as[j * lda + b]), f[j]);
            }
        }
    }
    const __mmask16 m = (__mmask16) (nrows >= GK_GEMM_MR ? 0xffff : (1u << nrows) - 1);
#pragma GCC unroll 16
    for (int j = 0; j < NC; j++) {
        float * cj = c + j * ldc;
        _mm512_mask_storeu_ps(cj, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, cj), f[j]));
    }
}

static ALWAYS_INLINE void gemm16(int nkb, const uint8_t * wq, const float * wd, const float * wm, int nrows,
                                 int ncols, const gk_block_q8_0x * a, const float * as, int64_t lda, float * c,
                                 int64_t ldc) {
    int j = 0;
    for (; j + GEMM_NC <= ncols; j += GEMM_NC) {
        tile16(GEMM_NC, nkb, wq, wd, wm, nrows, a + j * lda, wm ? as + j * lda : NULL, lda, c + j * ldc, ldc);
    }
    const gk_block_q8_0x * at = a + j * lda;
    const float * ast = wm ? as + j * lda : NULL;
    float * ct = c + j * ldc;
    switch (ncols - j) {
#define T(n) case n: if (n < GEMM_NC) tile16(n < GEMM_NC ? n : 1, nkb, wq, wd, wm, nrows, at, ast, lda, ct, ldc); break;
        T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(9) T(10) T(11) T(12) T(13) T(14) T(15)
#undef T
        default: break;
    }
}

void gk_gemm_q8x_vnni(int nkb, const uint8_t * wq, const float * wd, int nrows, int ncols,
                      const gk_block_q8_0x * a, int64_t lda, float * c, int64_t ldc) {
    gemm16(nkb, wq, wd, NULL, nrows, ncols, a, NULL, lda, c, ldc);
}

void gk_gemm_q8x_min_vnni(int nkb, const uint8_t * wq, const float * wd, const float * wmin, int nrows, int ncols,
                          const gk_block_q8_0x * a, const float * asum, int64_t lda, float * c, int64_t ldc) {
    gemm16(nkb, wq, wd, wmin, nrows, ncols, a, asum, lda, c, ldc);
}

// ---------------------------------------------------------------------------
// one column on plain Q4_0 rows, several streams
// ---------------------------------------------------------------------------

// The column's Q8_0x blocks in steps of four (GK_Q4V_STEP bytes each):
// the values 0..15 of the four blocks (64 bytes), their values 16..31, corr
// in int32 lane 4b (the other lanes 0) and d in lanes 4b..4b+3 (floats).
// A last short step is padded with zero blocks (d 0, corr 0).
void gk_q4v_pack_y(int64_t n, const gk_block_q8_0x * y, void * out) {
    const int64_t nb = n / GK_QK8_0;
    for (int64_t s = 0; s < (nb + 3) / 4; s++) {
        int8_t * o = (int8_t *) out + s * GK_Q4V_STEP;
        int32_t corr[16] = { 0 };
        float d[16] = { 0 };
        for (int b = 0; b < 4; b++) {
            const int64_t i = 4 * s + b;
            if (i < nb) {
                __builtin_memcpy(o + 16 * b, y[i].qs, 16);
                __builtin_memcpy(o + 64 + 16 * b, y[i].qs + 16, 16);
                corr[4 * b] = y[i].corr;
                d[4 * b] = d[4 * b + 1] = d[4 * b + 2] = d[4 * b + 3] = y[i].d;
            } else {
                __builtin_memset(o + 16 * b, 0, 16);
                __builtin_memset(o + 64 + 16 * b, 0, 16);
            }
        }
        __builtin_memcpy(o + 128, corr, sizeof(corr));
        __builtin_memcpy(o + 192, d, sizeof(d));
    }
}

// prefetch distance of each row stream (bytes ahead of the step read)
#ifndef GK_Q4V_PF
#define GK_Q4V_PF 2048
#endif

// step i of the packed column (GK_Q4V_STEP bytes: the low and high
// nibbles' bytes, the offset corrections, the scales)
struct q4v_y {
    __m512i lo, hi, cr;
    __m512 d;
};

static ALWAYS_INLINE struct q4v_y q4v_y_at(const uint8_t * ya, int64_t i) {
    const uint8_t * yi = ya + i * GK_Q4V_STEP;
    return (struct q4v_y) {
        .lo = _mm512_loadu_si512((const void *) yi),
        .hi = _mm512_loadu_si512((const void *) (yi + 64)),
        .cr = _mm512_loadu_si512((const void *) (yi + 128)),
        .d = _mm512_loadu_ps((const float *) (yi + 192)),
    };
}

// One Q4_0 step (four blocks, 72 bytes at q) against the packed column
// step: the nibbles of block b in lanes 4b..4b+3 (as the column's bytes),
// picked out of one 64-byte load and one 16-byte load by VPERMT2W (a block
// is nine words: d, then eight words of nibbles), the four fp16 scales
// spread over their lanes by VPERMW. tail (1..3): the row's last blocks,
// through a masked load that reads nothing past them.
static ALWAYS_INLINE __m512 q4v_step(const uint8_t * q, const int tail, const __m512i ylo, const __m512i yhi,
                                     const __m512i cr, const __m512 dy, __m512 acc) {
    static const int16_t iqt[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17,
                                     19, 20, 21, 22, 23, 24, 25, 26, 32, 33, 34, 35, 36, 37, 38, 39 };
    static const int16_t idt[32] = { 0, 0, 0, 0, 9, 9, 9, 9, 18, 18, 18, 18, 27, 27, 27, 27 };
    const __m512i iq = _mm512_loadu_si512((const void *) iqt), id = _mm512_loadu_si512((const void *) idt);
    const __m512i m4 = _mm512_set1_epi8(0xF);
    __m512i a, b;
    if (tail) {
        a = _mm512_maskz_loadu_epi16((__mmask32) ((1u << (9 * tail)) - 1), q);
        b = _mm512_setzero_si512();
    } else {
        a = _mm512_loadu_si512((const void *) q);
        b = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *) (q + 56)));
    }
    const __m512i w = _mm512_permutex2var_epi16(a, iq, b);
    const __m512 dw = _mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutexvar_epi16(id, a)));
    __m512i t = _mm512_dpbusd_epi32(cr, _mm512_and_si512(w, m4), ylo);
    t = _mm512_dpbusd_epi32(t, _mm512_and_si512(_mm512_srli_epi16(w, 4), m4), yhi);
    return _mm512_fmadd_ps(_mm512_mul_ps(dw, dy), _mm512_cvtepi32_ps(t), acc);
}

// the 16 lanes' sum: halves added (lane i + lane i + 8, then + 4, + 2, + 1)
static ALWAYS_INLINE float q4v_sum(__m512 v) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}

// NS streams: rows x[g] + j * bx (j < nrows) against the packed column ya
// (gk_q4v_pack_y), results at s[g][j]. The streams' row j are read in the
// same loop, each prefetched GK_Q4V_PF bytes ahead (the next row follows
// in memory, so the stream runs on through the rows).
static ALWAYS_INLINE void q4v(const int NS, int64_t n, const uint8_t * const * x, size_t bx, int nrows,
                              const uint8_t * ya, float * const * s) {
    const int64_t nb = n / GK_QK8_0, nst = nb / 4;
    const int tail = (int) (nb % 4);
    for (int j = 0; j < nrows; j++) {
        const uint8_t * p[GK_Q4V_STREAMS];
        __m512 acc[GK_Q4V_STREAMS];
#pragma GCC unroll 4
        for (int g = 0; g < NS; g++) {
            p[g] = x[g] + (size_t) j * bx;
            acc[g] = _mm512_setzero_ps();
        }
        for (int64_t i = 0; i < nst; i++) {
            const struct q4v_y y = q4v_y_at(ya, i);
#pragma GCC unroll 4
            for (int g = 0; g < NS; g++) {
                const uint8_t * q = p[g] + i * 72;
                _mm_prefetch((const char *) q + GK_Q4V_PF, _MM_HINT_T0);
                acc[g] = q4v_step(q, 0, y.lo, y.hi, y.cr, y.d, acc[g]);
            }
        }
        if (tail) {
            const struct q4v_y y = q4v_y_at(ya, nst);
#pragma GCC unroll 4
            for (int g = 0; g < NS; g++) {
                acc[g] = q4v_step(p[g] + nst * 72, tail, y.lo, y.hi, y.cr, y.d, acc[g]);
            }
        }
#pragma GCC unroll 4
        for (int g = 0; g < NS; g++) {
            s[g][j] = q4v_sum(acc[g]);
        }
    }
}

void gk_gemv_q4_0_vnni(int64_t n, int ns, const void * const * x, size_t bx, int nrows, const void * ya,
                       float * const * s) {
    const uint8_t * const * xr = (const uint8_t * const *) x;
    switch (ns) {
        case 1: q4v(1, n, xr, bx, nrows, ya, s); break;
        case 2: q4v(2, n, xr, bx, nrows, ya, s); break;
        case 3: q4v(3, n, xr, bx, nrows, ya, s); break;
        default: q4v(4, n, xr, bx, nrows, ya, s); break;
    }
}
