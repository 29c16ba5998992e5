// SPDX-License-Identifier: MIT
//
// test-scalar: upstream's scalar element accessors of ggml-cpu.h
// (ggml_new_i32/f32, ggml_set_i32/f32, ggml_get/set_{i32,f32}_{1d,nd}) and
// ggml_set_zero, which older ggml programs use to fill and read tensors:
// every element type they accept, conversions, non-contiguous views, and
// misuse (a context that does not allocate, an unsupported type).

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <string.h>

#include "test-harness.h"
#include "test-abort.h"

static struct ggml_context * alloc_ctx(void) {
    struct ggml_init_params p = { 1 << 20, NULL, false };
    return ggml_init(p);
}

TEST(new_scalars) {
    struct ggml_context * ctx = alloc_ctx();
    struct ggml_tensor * i = ggml_new_i32(ctx, -7);
    struct ggml_tensor * f = ggml_new_f32(ctx, 2.5f);
    EXPECT_EQ(GGML_TYPE_I32, i->type);
    EXPECT_EQ(GGML_TYPE_F32, f->type);
    EXPECT_EQ(1, ggml_nelements(i));
    EXPECT_EQ(1, ggml_nelements(f));
    EXPECT_EQ(-7, ggml_get_i32_1d(i, 0));
    EXPECT_EQ(2.5f, ggml_get_f32_1d(f, 0));
    EXPECT_EQ(-7.0f, ggml_get_f32_1d(i, 0));
    EXPECT_EQ(2, ggml_get_i32_1d(f, 0));
    ggml_free(ctx);
}

TEST(every_type_round_trips) {
    struct ggml_context * ctx = alloc_ctx();
    const enum ggml_type types[] = { GGML_TYPE_I8, GGML_TYPE_I16, GGML_TYPE_I32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F32 };
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(ctx, types[k], 5, 3);
        // set everything, then one element by flat index and one by coordinates
        ggml_set_i32(t, 3);
        for (int i = 0; i < 15; i++) {
            EXPECT_EQ(3, ggml_get_i32_1d(t, i)) TH_LOG("%s", ggml_type_name(types[k]));
        }
        ggml_set_f32(t, -2.0f);
        EXPECT_EQ(-2.0f, ggml_get_f32_nd(t, 4, 2, 0, 0));
        ggml_set_i32_1d(t, 7, 42);               // row 1, column 2
        EXPECT_EQ(42, ggml_get_i32_nd(t, 2, 1, 0, 0));
        ggml_set_f32_nd(t, 0, 2, 0, 0, 5.0f);    // row 2, column 0 = index 10
        EXPECT_EQ(5.0f, ggml_get_f32_1d(t, 10));
        ggml_set_i32_nd(t, 1, 0, 0, 0, -3);
        EXPECT_EQ(-3.0f, ggml_get_f32_1d(t, 1));
        ggml_set_f32_1d(t, 14, 9.0f);
        EXPECT_EQ(9, ggml_get_i32_nd(t, 4, 2, 0, 0));
        EXPECT_EQ(-2.0f, ggml_get_f32_1d(t, 0));
    }
    // conversions: floats truncate to integers; F16/BF16 round
    struct ggml_tensor * h = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 2);
    ggml_set_f32_1d(h, 0, 0.1f);
    EXPECT_LT(fabsf(ggml_get_f32_1d(h, 0) - 0.1f), 1e-4f);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_BF16, 2);
    ggml_set_f32_1d(b, 1, 3.0f);
    EXPECT_EQ(3.0f, ggml_get_f32_1d(b, 1));
    struct ggml_tensor * f = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
    ggml_set_f32_1d(f, 0, 2.75f);
    EXPECT_EQ(2, ggml_get_i32_1d(f, 0));
    struct ggml_tensor * c = ggml_new_tensor_1d(ctx, GGML_TYPE_I8, 1);
    ggml_set_i32_1d(c, 0, -100);
    EXPECT_EQ(-100, ggml_get_i32_1d(c, 0));
    ggml_free(ctx);
}

TEST(non_contiguous_views_and_set_all) {
    struct ggml_context * ctx = alloc_ctx();
    struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    for (int i = 0; i < 12; i++) {
        ggml_set_f32_1d(t, i, (float) i);
    }
    // the transpose is 3 x 4: flat index i is (i % 3, i / 3) of the view
    struct ggml_tensor * tt = ggml_transpose(ctx, t);
    ASSERT_FALSE(ggml_is_contiguous(tt));
    for (int i = 0; i < 12; i++) {
        int i0 = i % 3, i1 = i / 3;
        EXPECT_EQ((float) (i0 * 4 + i1), ggml_get_f32_1d(tt, i));
        EXPECT_EQ((float) (i0 * 4 + i1), ggml_get_f32_nd(tt, i0, i1, 0, 0));
    }
    ggml_set_f32_1d(tt, 5, -1.0f);             // (2, 1) of the view = (1, 2) of t
    EXPECT_EQ(-1.0f, ggml_get_f32_nd(t, 1, 2, 0, 0));
    // setting all of a strided view leaves the rest alone
    struct ggml_tensor * col = ggml_view_2d(ctx, t, 1, 3, t->nb[1], 2 * sizeof(float)); // column 2
    ggml_set_f32(col, 100.0f);
    for (int r = 0; r < 3; r++) {
        EXPECT_EQ(100.0f, ggml_get_f32_nd(t, 2, r, 0, 0));
        EXPECT_NE(100.0f, ggml_get_f32_nd(t, 1, r, 0, 0));
        EXPECT_NE(100.0f, ggml_get_f32_nd(t, 3, r, 0, 0));
    }
    // a 4-d tensor, last coordinates
    struct ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_I32, 2, 2, 2, 2);
    ggml_set_i32(q, 0);
    ggml_set_i32_nd(q, 1, 1, 1, 1, 77);
    EXPECT_EQ(77, ggml_get_i32_1d(q, 15));
    EXPECT_EQ(0, ggml_get_i32_1d(q, 14));
    ggml_free(ctx);
}

TEST(set_zero) {
    struct ggml_context * ctx = alloc_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 9);
    ggml_set_f32(t, 1.0f);
    EXPECT_EQ(t, ggml_set_zero(t));
    for (int i = 0; i < 9; i++) {
        EXPECT_EQ(0.0f, ggml_get_f32_1d(t, i));
    }
    ggml_free(ctx);

    // a tensor in a backend buffer is zeroed through the buffer
    struct ggml_init_params p = { 4 * ggml_tensor_overhead(), NULL, true };
    ctx = ggml_init(p);
    t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 9);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
    ggml_backend_buffer_clear(buf, 0xff);
    ggml_set_zero(t);
    float v[9];
    ggml_backend_tensor_get(t, v, 0, sizeof(v));
    for (int i = 0; i < 9; i++) {
        EXPECT_EQ(0.0f, v[i]);
    }
    // an empty tensor has nothing to zero
    struct ggml_tensor * e = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 0);
    EXPECT_EQ(e, ggml_set_zero(e));
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

static void do_new_i32_no_alloc(void) {
    struct ggml_init_params p = { 1 << 16, NULL, true };
    ggml_new_i32(ggml_init(p), 1);
}

static void do_get_quantized(void) {
    struct ggml_context * ctx = alloc_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_Q8_0, 32);
    ggml_get_f32_1d(t, 0);
}

static void do_out_of_range(void) {
    struct ggml_context * ctx = alloc_ctx();
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_f32_1d(t, 4, 0.0f);
}

TEST(misuse_aborts) {
    EXPECT_TRUE(expect_abort(do_new_i32_no_alloc, "no_alloc"));
    EXPECT_TRUE(expect_abort(do_get_quantized, "q8_0"));
    EXPECT_TRUE(expect_abort(do_out_of_range, "out of range"));
}

TEST_HARNESS_MAIN
