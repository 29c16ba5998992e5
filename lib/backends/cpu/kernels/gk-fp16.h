/*
 * gk-fp16.h - scalar IEEE binary16 and bfloat16 conversions, freestanding.
 *
 * Both directions are exact where the result is representable; narrowing
 * rounds to nearest, ties to even, handles subnormals and overflows to
 * infinity. NaNs stay NaN with their sign and (top) payload bits, and come
 * out quiet, as the F16C and NEON conversion instructions make them, so the
 * scalar and vector paths agree bit for bit. bfloat16 widening is a plain
 * shift (no quieting), as every vector implementation does it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GK_FP16_H
#define GK_FP16_H

#include "gk-types.h"

static inline uint32_t gk_f32_bits(float f)
{
    union { float f; uint32_t u; } v = { .f = f };
    return v.u;
}

static inline float gk_bits_f32(uint32_t u)
{
    union { uint32_t u; float f; } v = { .u = u };
    return v.f;
}

static inline float gk_fp16_to_fp32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp  = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;

    if (exp == 0x1f) // inf, or NaN: quieted (as F16C and NEON do), payload kept
        return gk_bits_f32(sign | 0x7f800000 | (mant << 13) | (mant ? 0x400000u : 0));
    if (exp != 0) // normal: rebias 15 -> 127
        return gk_bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
    if (mant == 0)
        return gk_bits_f32(sign);
    // subnormal: mant * 2^-24, normalised for binary32
    exp = 113;
    while (!(mant & 0x400)) {
        mant <<= 1;
        exp--;
    }
    return gk_bits_f32(sign | (exp << 23) | ((mant & 0x3ff) << 13));
}

static inline uint16_t gk_fp32_to_fp16(float f)
{
    uint32_t u    = gk_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t abs  = u & 0x7fffffff;

    if (abs > 0x7f800000) // NaN: quiet, keep the top payload bits
        return sign | 0x7e00 | (uint16_t)((abs >> 13) & 0x3ff);
    if (abs >= 0x477ff000) // rounds to 65536 or more (or is inf)
        return sign | 0x7c00;
    if (abs >= 0x38800000) { // normal in binary16
        // rebias and round the 13 dropped bits to nearest even; a carry
        // into the exponent is the correct result
        uint32_t r = abs - 0x38000000;
        r += 0xfff + ((r >> 13) & 1);
        return sign | (uint16_t)(r >> 13);
    }
    if (abs < 0x33000000) // below half the smallest subnormal: zero
        return sign;
    {
        // subnormal in binary16: value = m * 2^-24 with m < 1024
        uint32_t e     = abs >> 23;             // 102..112
        uint32_t m     = (abs & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e;               // 14..24
        uint32_t q     = m >> shift;
        uint32_t rem   = m & ((1u << shift) - 1);
        uint32_t half  = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        return sign | (uint16_t)q;
    }
}

static inline float gk_bf16_to_fp32(uint16_t b)
{
    return gk_bits_f32((uint32_t)b << 16);
}

static inline uint16_t gk_fp32_to_bf16(float f)
{
    uint32_t u = gk_f32_bits(f);

    if ((u & 0x7fffffff) > 0x7f800000) // NaN: quiet it
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

#endif // GK_FP16_H
