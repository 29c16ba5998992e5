// SPDX-License-Identifier: MIT
//
// test-core: struct layouts, contexts and their memory accounting, tensor
// creation, sizes of every type, views/permute/transpose strides, names,
// flags, and the contiguity predicates.

#include "ggml.h"
#include "ggml-impl.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "test-harness.h"
#include "test-abort.h"

static struct ggml_context * new_ctx(size_t size, bool no_alloc) {
    struct ggml_init_params p = { .mem_size = size, .mem_buffer = NULL, .no_alloc = no_alloc };
    return ggml_init(p);
}

// ---------------------------------------------------------------------------
// Layouts (LP64: x86-64 and arm64)
// ---------------------------------------------------------------------------

TEST(tensor_layout_matches_upstream) {
    if (sizeof(void *) != 8) {
        SKIP(return, "layout numbers are for 64-bit targets");
    }
    ASSERT_EQ(336, sizeof(struct ggml_tensor));
    ASSERT_EQ(0,   offsetof(struct ggml_tensor, type));
    ASSERT_EQ(8,   offsetof(struct ggml_tensor, buffer));
    ASSERT_EQ(16,  offsetof(struct ggml_tensor, ne));
    ASSERT_EQ(48,  offsetof(struct ggml_tensor, nb));
    ASSERT_EQ(80,  offsetof(struct ggml_tensor, op));
    ASSERT_EQ(84,  offsetof(struct ggml_tensor, op_params));
    ASSERT_EQ(148, offsetof(struct ggml_tensor, flags));
    ASSERT_EQ(152, offsetof(struct ggml_tensor, src));
    ASSERT_EQ(232, offsetof(struct ggml_tensor, view_src));
    ASSERT_EQ(240, offsetof(struct ggml_tensor, view_offs));
    ASSERT_EQ(248, offsetof(struct ggml_tensor, data));
    ASSERT_EQ(256, offsetof(struct ggml_tensor, name));
    ASSERT_EQ(320, offsetof(struct ggml_tensor, extra));
    ASSERT_EQ(328, offsetof(struct ggml_tensor, padding));
    ASSERT_EQ(GGML_TENSOR_SIZE, sizeof(struct ggml_tensor));
    ASSERT_EQ(32,  sizeof(struct ggml_object));
    ASSERT_EQ(368, ggml_tensor_overhead());
    ASSERT_EQ(82608, ggml_graph_overhead());
}

TEST(enum_values_match_upstream) {
    ASSERT_EQ(0, GGML_TYPE_F32);
    ASSERT_EQ(1, GGML_TYPE_F16);
    ASSERT_EQ(2, GGML_TYPE_Q4_0);
    ASSERT_EQ(8, GGML_TYPE_Q8_0);
    ASSERT_EQ(12, GGML_TYPE_Q4_K);
    ASSERT_EQ(14, GGML_TYPE_Q6_K);
    ASSERT_EQ(24, GGML_TYPE_I8);
    ASSERT_EQ(26, GGML_TYPE_I32);
    ASSERT_EQ(30, GGML_TYPE_BF16);
    ASSERT_EQ(43, GGML_TYPE_COUNT);
    ASSERT_EQ(101, GGML_OP_COUNT);
    ASSERT_EQ(22, GGML_UNARY_OP_COUNT);
    ASSERT_EQ(6, GGML_GLU_OP_COUNT);
    // spot checks of ops the backends dispatch on
    ASSERT_EQ(2, GGML_OP_ADD);
    ASSERT_EQ(29, GGML_OP_MUL_MAT);
    ASSERT_EQ(42, GGML_OP_SET_ROWS);
    ASSERT_EQ(48, GGML_OP_ROPE);
    ASSERT_EQ(74, GGML_OP_FLASH_ATTN_EXT);
    ASSERT_EQ(GGML_OP_COUNT - 10, GGML_OP_UNARY);
    ASSERT_EQ(GGML_OP_COUNT - 1, GGML_OP_GLU);
    ASSERT_EQ(10, GGML_PREC_F32);
    ASSERT_EQ(16, GGML_TENSOR_FLAG_COMPUTE);
    ASSERT_STREQ("MUL_MAT", ggml_op_name(GGML_OP_MUL_MAT));
    ASSERT_STREQ("GLU", ggml_op_name(GGML_OP_GLU));
    ASSERT_STREQ("DSV4_HC_POST", ggml_op_name(GGML_OP_DSV4_HC_POST));
    ASSERT_STREQ("SILU", ggml_unary_op_name(GGML_UNARY_OP_SILU));
    ASSERT_STREQ("TRUNC", ggml_unary_op_name(GGML_UNARY_OP_TRUNC));
    ASSERT_STREQ("SWIGLU", ggml_glu_op_name(GGML_GLU_OP_SWIGLU));
    for (int op = 0; op < GGML_OP_COUNT; op++) {
        ASSERT_NE(NULL, ggml_op_name((enum ggml_op) op));
        ASSERT_NE(NULL, ggml_op_symbol((enum ggml_op) op));
        ASSERT_NE(0, strcmp("UNKNOWN", ggml_op_name((enum ggml_op) op)));
    }
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

struct type_case { enum ggml_type type; const char * name; int64_t blck; size_t size; bool quant; };

static const struct type_case type_cases[] = {
    { GGML_TYPE_F32,  "f32",  1,   4,   false },
    { GGML_TYPE_F16,  "f16",  1,   2,   false },
    { GGML_TYPE_BF16, "bf16", 1,   2,   false },
    { GGML_TYPE_F64,  "f64",  1,   8,   false },
    { GGML_TYPE_I8,   "i8",   1,   1,   false },
    { GGML_TYPE_I16,  "i16",  1,   2,   false },
    { GGML_TYPE_I32,  "i32",  1,   4,   false },
    { GGML_TYPE_I64,  "i64",  1,   8,   false },
    { GGML_TYPE_Q4_0, "q4_0", 32,  18,  true  },
    { GGML_TYPE_Q8_0, "q8_0", 32,  34,  true  },
    { GGML_TYPE_Q4_K, "q4_K", 256, 144, true  },
    { GGML_TYPE_Q6_K, "q6_K", 256, 210, true  },
    { GGML_TYPE_Q5_K, "q5_K", 256, 176, true  },
    { GGML_TYPE_IQ4_NL, "iq4_nl", 32, 18, true },
};

TEST(type_sizes) {
    for (size_t i = 0; i < sizeof(type_cases) / sizeof(type_cases[0]); i++) {
        const struct type_case * c = &type_cases[i];
        ASSERT_STREQ(c->name, ggml_type_name(c->type));
        ASSERT_EQ(c->blck, ggml_blck_size(c->type));
        ASSERT_EQ(c->size, ggml_type_size(c->type));
        ASSERT_EQ(c->quant, ggml_is_quantized(c->type));
        ASSERT_EQ(c->size * 3, ggml_row_size(c->type, c->blck * 3));
        const struct ggml_type_traits * tt = ggml_get_type_traits(c->type);
        ASSERT_EQ(c->blck, tt->blck_size);
        ASSERT_EQ(c->size, tt->type_size);
    }
    // removed slots
    ASSERT_EQ(0, ggml_blck_size((enum ggml_type) 4));
    ASSERT_EQ(0, ggml_blck_size((enum ggml_type) 32));
    ASSERT_STREQ("NONE", ggml_type_name(GGML_TYPE_COUNT));
    // as upstream: F32 has no conversions in the table (upstream's tests take
    // an entry with to_float for a quantized type)
    ASSERT_EQ(NULL, ggml_get_type_traits(GGML_TYPE_F32)->to_float);
    ASSERT_EQ(NULL, ggml_get_type_traits(GGML_TYPE_F32)->from_float_ref);
    // conversions exist for the others
    const enum ggml_type conv[] = { GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q4_0,
                                    GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
    for (size_t i = 0; i < sizeof(conv) / sizeof(conv[0]); i++) {
        ASSERT_NE(NULL, ggml_get_type_traits(conv[i])->to_float);
        ASSERT_NE(NULL, ggml_get_type_traits(conv[i])->from_float_ref);
    }
}

TEST(nbytes_every_type) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    ASSERT_NE(NULL, ctx);
    for (size_t i = 0; i < sizeof(type_cases) / sizeof(type_cases[0]); i++) {
        const struct type_case * c = &type_cases[i];
        struct ggml_tensor * t = ggml_new_tensor_3d(ctx, c->type, c->blck * 2, 3, 5);
        ASSERT_EQ(c->size, t->nb[0]);
        ASSERT_EQ(c->size * 2, t->nb[1]);
        ASSERT_EQ(c->size * 2 * 3, t->nb[2]);
        ASSERT_EQ(c->size * 2 * 3 * 5, t->nb[3]);
        ASSERT_EQ(c->size * 2 * 3 * 5, ggml_nbytes(t));
        ASSERT_EQ(GGML_PAD(c->size * 30, GGML_MEM_ALIGN), ggml_nbytes_pad(t));
        ASSERT_EQ(c->blck * 30, ggml_nelements(t));
        ASSERT_EQ(15, ggml_nrows(t));
        // a view of the first column of blocks of every row: spans rows but has gaps
        struct ggml_tensor * v = ggml_view_3d(ctx, t, c->blck, 3, 5, t->nb[1], t->nb[2], 0);
        ASSERT_EQ(c->size * (2 * 3 * 5 - 1), ggml_nbytes(v));
        ASSERT_FALSE(ggml_is_contiguous(v));
        ASSERT_TRUE(ggml_is_contiguous_1(v));
    }
    ggml_free(ctx);
}

TEST(nbytes_transposed_and_empty) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 3);
    struct ggml_tensor * t = ggml_transpose(ctx, a);
    ASSERT_EQ(ggml_nbytes(a), ggml_nbytes(t));
    ASSERT_TRUE(ggml_is_transposed(t));
    ASSERT_TRUE(ggml_is_permuted(t));
    ASSERT_FALSE(ggml_is_contiguous(t));
    ASSERT_TRUE(ggml_is_contiguously_allocated(t));
    struct ggml_tensor * e = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 0, 4);
    ASSERT_EQ(0, ggml_nbytes(e));
    ASSERT_TRUE(ggml_is_empty(e));
    ggml_free(ctx);
}

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

TEST(context_accounting) {
    struct ggml_context * ctx = new_ctx(4096, false);
    ASSERT_NE(NULL, ctx);
    ASSERT_EQ(0, ggml_used_mem(ctx));
    ASSERT_EQ(4096, ggml_get_mem_size(ctx));
    ASSERT_FALSE(ggml_get_no_alloc(ctx));

    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    // object header, tensor, 40 data bytes padded to 48
    ASSERT_EQ(sizeof(struct ggml_object) + sizeof(struct ggml_tensor) + 48, ggml_used_mem(ctx));
    ASSERT_EQ((char *) ggml_get_mem_buffer(ctx) + sizeof(struct ggml_object), (char *) t);
    ASSERT_EQ((char *) (t + 1), (char *) t->data);
    ASSERT_EQ(0, ((uintptr_t) t->data) % GGML_MEM_ALIGN);
    ASSERT_EQ(GGML_OP_NONE, t->op);
    ASSERT_NULL(t->buffer);
    ASSERT_NULL(t->view_src);
    ASSERT_EQ(40, ggml_get_max_tensor_size(ctx));

    ggml_set_no_alloc(ctx, true);
    const size_t before = ggml_used_mem(ctx);
    struct ggml_tensor * u = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 64);
    ASSERT_NULL(u->data);
    ASSERT_EQ(before + ggml_tensor_overhead(), ggml_used_mem(ctx));

    void * buf = ggml_new_buffer(ctx, 100);
    ASSERT_NE(NULL, buf);
    ASSERT_EQ(0, ((uintptr_t) buf) % GGML_MEM_ALIGN);

    ggml_reset(ctx);
    ASSERT_EQ(0, ggml_used_mem(ctx));
    ASSERT_NULL(ggml_get_first_tensor(ctx));
    ggml_free(ctx);
}

TEST(context_caller_buffer) {
    static _Alignas(64) char pool[8192];
    struct ggml_init_params p = { .mem_size = sizeof(pool), .mem_buffer = pool, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(p);
    ASSERT_EQ((void *) pool, ggml_get_mem_buffer(ctx));
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4);
    ASSERT_TRUE((char *) t > pool && (char *) t < pool + sizeof(pool));
    ggml_free(ctx); // must not free pool
    ggml_free(NULL);
}

TEST(context_overhead_estimate_is_enough) {
    // the documented way to size a no_alloc context: n * tensor_overhead + graph_overhead
    struct ggml_context * ctx = new_ctx(100 * ggml_tensor_overhead() + ggml_graph_overhead(), true);
    for (int i = 0; i < 100; i++) {
        ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1000, 1000, 3, 7);
    }
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ASSERT_NE(NULL, g);
    ASSERT_EQ(ggml_get_mem_size(ctx), ggml_used_mem(ctx));
    ggml_free(ctx);
}

static void overflow_pool(void) {
    struct ggml_context * ctx = new_ctx(1024, false);
    // 4 KiB of data cannot fit in a 1 KiB pool: a clear abort, never an overrun
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1024);
}

TEST(context_overflow_aborts) {
    ASSERT_TRUE(expect_abort(overflow_pool, "memory pool"));
}

// ---------------------------------------------------------------------------
// Tensors: names, lookup, flags
// ---------------------------------------------------------------------------

TEST(names_and_lookup) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_new_graph_custom(ctx, 16, false); // a non-tensor object in between
    struct ggml_tensor * c = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_name(a, "alpha");
    ggml_format_name(b, "blk.%d.%s", 3, "w");
    ASSERT_STREQ("alpha", ggml_get_name(a));
    ASSERT_STREQ("blk.3.w", b->name);
    ASSERT_EQ(a, ggml_get_tensor(ctx, "alpha"));
    ASSERT_EQ(b, ggml_get_tensor(ctx, "blk.3.w"));
    ASSERT_NULL(ggml_get_tensor(ctx, "nope"));

    ASSERT_EQ(a, ggml_get_first_tensor(ctx));
    ASSERT_EQ(b, ggml_get_next_tensor(ctx, a));
    ASSERT_EQ(c, ggml_get_next_tensor(ctx, b));
    ASSERT_NULL(ggml_get_next_tensor(ctx, c));

    char longname[200];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ggml_set_name(c, longname);
    ASSERT_EQ(GGML_MAX_NAME - 1, strlen(c->name));
    ggml_format_name(c, "%s", longname);
    ASSERT_EQ(GGML_MAX_NAME - 1, strlen(c->name));
    ggml_free(ctx);
}

TEST(flags) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_set_input(a);
    ggml_set_output(a);
    ggml_set_param(a);
    ggml_set_loss(a);
    ASSERT_EQ(GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT | GGML_TENSOR_FLAG_PARAM | GGML_TENSOR_FLAG_LOSS,
              a->flags);
    ggml_free(ctx);
}

TEST(shape_predicates) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    struct ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    struct ggml_tensor * v = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    struct ggml_tensor * m = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 2);
    struct ggml_tensor * t3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 2, 3);
    struct ggml_tensor * t4 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 1, 3, 2);
    ASSERT_TRUE(ggml_is_scalar(s));
    ASSERT_EQ(1, ggml_n_dims(s));
    ASSERT_TRUE(ggml_is_vector(v));
    ASSERT_FALSE(ggml_is_scalar(v));
    ASSERT_TRUE(ggml_is_matrix(m));
    ASSERT_FALSE(ggml_is_vector(m));
    ASSERT_EQ(2, ggml_n_dims(m));
    ASSERT_TRUE(ggml_is_3d(t3));
    ASSERT_EQ(3, ggml_n_dims(t3));
    ASSERT_FALSE(ggml_is_3d(t4));
    ASSERT_EQ(4, ggml_n_dims(t4));
    ASSERT_TRUE(ggml_can_repeat(m, t3)); // 5x2x3 is a whole number of 5x2 tiles
    ASSERT_TRUE(ggml_can_repeat(v, m));
    ASSERT_TRUE(ggml_can_repeat(s, t4));
    ASSERT_FALSE(ggml_can_repeat(m, v));
    ASSERT_FALSE(ggml_can_repeat(t3, m));
    ASSERT_TRUE(ggml_are_same_shape(m, ggml_dup_tensor(ctx, m)));
    ASSERT_FALSE(ggml_are_same_shape(m, v));
    ASSERT_TRUE(ggml_are_same_stride(m, ggml_dup_tensor(ctx, m)));
    ASSERT_TRUE(ggml_are_same_layout(m, ggml_dup_tensor(ctx, m)));

    int64_t i0, i1, i2, i3;
    ggml_unravel_index(t4, 5 * 1 * 3 + 5 * 2 + 4, &i0, &i1, &i2, &i3);
    ASSERT_EQ(4, i0);
    ASSERT_EQ(0, i1);
    ASSERT_EQ(2, i2);
    ASSERT_EQ(1, i3);
    ggml_free(ctx);
}

// ---------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------

TEST(views_and_strides) {
    struct ggml_context * ctx = new_ctx(1 << 20, false);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 4, 3, 2, 5);
    ggml_set_name(a, "a");
    float * d = ggml_get_data_f32(a);
    for (int i = 0; i < ggml_nelements(a); i++) {
        d[i] = (float) i;
    }

    // view_2d of rows 1..2 of the first matrix
    struct ggml_tensor * v = ggml_view_2d(ctx, a, 4, 2, a->nb[1], a->nb[1]);
    ASSERT_EQ(GGML_OP_VIEW, v->op);
    ASSERT_EQ(a, v->src[0]);
    ASSERT_EQ(a, v->view_src);
    ASSERT_EQ(a->nb[1], v->view_offs);
    ASSERT_EQ((char *) a->data + a->nb[1], (char *) v->data);
    ASSERT_EQ(4.0f, ((float *) v->data)[0]);
    size_t off;
    memcpy(&off, v->op_params, sizeof(off));
    ASSERT_EQ(a->nb[1], off);
    ASSERT_STREQ("a (view)", v->name);

    // a view of a view is flattened onto the original
    struct ggml_tensor * vv = ggml_view_1d(ctx, v, 2, 2 * sizeof(float));
    ASSERT_EQ(a, vv->view_src);
    ASSERT_EQ(a->nb[1] + 2 * sizeof(float), vv->view_offs);
    ASSERT_EQ(v, vv->src[0]);
    ASSERT_EQ(6.0f, ((float *) vv->data)[0]);

    // permute: dim i goes to axis i
    struct ggml_tensor * p = ggml_permute(ctx, a, 2, 0, 3, 1);
    ASSERT_EQ(GGML_OP_PERMUTE, p->op);
    ASSERT_EQ(3, p->ne[0]); ASSERT_EQ(a->nb[1], p->nb[0]);
    ASSERT_EQ(5, p->ne[1]); ASSERT_EQ(a->nb[3], p->nb[1]);
    ASSERT_EQ(4, p->ne[2]); ASSERT_EQ(a->nb[0], p->nb[2]);
    ASSERT_EQ(2, p->ne[3]); ASSERT_EQ(a->nb[2], p->nb[3]);
    ASSERT_EQ(2, p->op_params[0]);
    ASSERT_EQ(1, p->op_params[3]);
    ASSERT_EQ(a->data, p->data);
    ASSERT_TRUE(ggml_is_permuted(p));
    ASSERT_FALSE(ggml_is_contiguous(p));
    ASSERT_EQ(ggml_nbytes(a), ggml_nbytes(p));

    // transpose
    struct ggml_tensor * t = ggml_transpose(ctx, a);
    ASSERT_EQ(3, t->ne[0]); ASSERT_EQ(4, t->ne[1]);
    ASSERT_EQ(a->nb[1], t->nb[0]); ASSERT_EQ(a->nb[0], t->nb[1]);
    ASSERT_EQ(a->nb[2], t->nb[2]);

    // reshape keeps data, needs contiguity
    struct ggml_tensor * r = ggml_reshape_2d(ctx, a, 12, 10);
    ASSERT_EQ(GGML_OP_RESHAPE, r->op);
    ASSERT_EQ(12, r->ne[0]); ASSERT_EQ(10, r->ne[1]); ASSERT_EQ(1, r->ne[2]);
    ASSERT_EQ(48, r->nb[1]);
    ASSERT_EQ(a->data, r->data);
    ASSERT_TRUE(ggml_is_contiguous(r));
    struct ggml_tensor * r4 = ggml_reshape(ctx, r, a);
    ASSERT_TRUE(ggml_are_same_layout(a, r4));
    ASSERT_EQ(a, r4->view_src);

    // view_3d/4d strides
    struct ggml_tensor * v3 = ggml_view_3d(ctx, a, 2, 3, 2, a->nb[1], a->nb[2], sizeof(float));
    ASSERT_EQ(a->nb[1], v3->nb[1]);
    ASSERT_EQ(a->nb[2], v3->nb[2]);
    ASSERT_EQ(a->nb[2] * 2, v3->nb[3]);
    ASSERT_EQ(1.0f, ((float *) v3->data)[0]);
    struct ggml_tensor * v4 = ggml_view_4d(ctx, a, 4, 3, 2, 2, a->nb[1], a->nb[2], a->nb[3], a->nb[3]);
    ASSERT_EQ(a->nb[3], v4->nb[3]);
    ASSERT_EQ(24.0f, ((float *) v4->data)[0]);

    // ggml_view_tensor copies strides and names
    struct ggml_tensor * vt = ggml_view_tensor(ctx, p);
    ASSERT_TRUE(ggml_are_same_layout(p, vt));
    ASSERT_EQ(a, vt->view_src);
    ggml_free(ctx);
}

TEST(contiguity_predicates) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 4, 3, 2);
    ASSERT_TRUE(ggml_is_contiguous(a));
    ASSERT_TRUE(ggml_is_contiguous_0(a));
    ASSERT_TRUE(ggml_is_contiguous_1(a));
    ASSERT_TRUE(ggml_is_contiguous_2(a));
    ASSERT_TRUE(ggml_is_contiguous_rows(a));

    // rows padded: contiguous from dim 1 up
    struct ggml_tensor * rows = ggml_view_4d(ctx, a, 4, 4, 3, 2, a->nb[1], a->nb[2], a->nb[3], 0);
    ASSERT_FALSE(ggml_is_contiguous(rows));
    ASSERT_TRUE(ggml_is_contiguous_1(rows));
    ASSERT_TRUE(ggml_is_contiguous_2(rows));
    ASSERT_TRUE(ggml_is_contiguous_rows(rows));

    // dims 1 and 2 swapped: rows still contiguous, nothing above
    struct ggml_tensor * p = ggml_permute(ctx, a, 0, 2, 1, 3);
    ASSERT_FALSE(ggml_is_contiguous(p));
    ASSERT_FALSE(ggml_is_contiguous_1(p));
    ASSERT_FALSE(ggml_is_contiguous_2(p));
    ASSERT_TRUE(ggml_is_contiguous_rows(p));

    // transposed: elements of a row are strided
    struct ggml_tensor * t = ggml_transpose(ctx, a);
    ASSERT_FALSE(ggml_is_contiguous_rows(t));
    ASSERT_FALSE(ggml_is_contiguous_2(t));

    // size-1 dims do not matter
    struct ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 1, 3, 1);
    struct ggml_tensor * bp = ggml_permute(ctx, b, 0, 3, 2, 1);
    ASSERT_TRUE(ggml_is_contiguous(bp));

    // channels layout
    struct ggml_tensor * c = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 3, 5, 7); // C x W x H
    struct ggml_tensor * cp = ggml_permute(ctx, c, 2, 0, 1, 3);               // W x H x C
    ASSERT_TRUE(ggml_is_contiguous_channels(cp));
    ASSERT_FALSE(ggml_is_contiguous_channels(c));
    ggml_free(ctx);
}

TEST(fp16_values) {
    ASSERT_EQ(0x3c00, ggml_fp32_to_fp16(1.0f));
    ASSERT_EQ(0xc000, ggml_fp32_to_fp16(-2.0f));
    ASSERT_EQ(0x7bff, ggml_fp32_to_fp16(65504.0f));
    ASSERT_EQ(0.5f, ggml_fp16_to_fp32(0x3800));
    for (int i = -2048; i <= 2048; i++) {
        ASSERT_EQ((float) i, ggml_fp16_to_fp32(ggml_fp32_to_fp16((float) i)));
    }
}

TEST(threadpool_params) {
    struct ggml_threadpool_params p = ggml_threadpool_params_default(3);
    ASSERT_EQ(3, p.n_threads);
    ASSERT_EQ(GGML_SCHED_PRIO_NORMAL, p.prio);
    ASSERT_FALSE(p.paused);
    struct ggml_threadpool_params q;
    ggml_threadpool_params_init(&q, 3);
    ASSERT_TRUE(ggml_threadpool_params_match(&p, &q));
    q.cpumask[1] = true;
    ASSERT_FALSE(ggml_threadpool_params_match(&p, &q));
}

static void removed_type(void) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    ggml_new_tensor_1d(ctx, (enum ggml_type) 4, 32);
}

static void bad_block_multiple(void) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 33);
}

static void huge_tensor(void) {
    struct ggml_context * ctx = new_ctx(1 << 16, true);
    ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1 << 20, 1 << 20, 1 << 20, 1 << 20);
}

TEST(bad_tensors_abort) {
    ASSERT_TRUE(expect_abort(huge_tensor, "too large"));
    ASSERT_TRUE(expect_abort(removed_type, "removed"));
    ASSERT_TRUE(expect_abort(bad_block_multiple, "block size"));
}

TEST_HARNESS_MAIN
