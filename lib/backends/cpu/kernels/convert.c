/*
 * convert.c - portable row conversions.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gk-convert.h"
#include "gk-fp16.h"

void gk_fp16_to_fp32_row(const uint16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = gk_fp16_to_fp32(x[i]);
    }
}

void gk_fp32_to_fp16_row(const float * x, uint16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = gk_fp32_to_fp16(x[i]);
    }
}

void gk_bf16_to_fp32_row(const uint16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = gk_bf16_to_fp32(x[i]);
    }
}

void gk_fp32_to_bf16_row(const float * x, uint16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = gk_fp32_to_bf16(x[i]);
    }
}

// Truncation toward zero, as a C cast; out-of-range and NaN inputs saturate
// (NaN gives 0) instead of being undefined behaviour.
void gk_fp32_to_i32_row(const float * x, int32_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        if (v != v) {
            y[i] = 0;
        } else if (v >= 2147483648.0f) {
            y[i] = INT32_MAX;
        } else if (v < -2147483648.0f) {
            y[i] = INT32_MIN;
        } else {
            y[i] = (int32_t) v;
        }
    }
}
