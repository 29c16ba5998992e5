// SPDX-License-Identifier: MIT
//
// gguf-xwrite: writes a GGUF file with every value type, every array type
// (strings too, and empty arrays) and tensors of several types, through
// gguf.h only, so the same source builds against upstream ggml and against
// libggml-backend. See run.sh.
//
//   gguf-xwrite FILE [ALIGNMENT]

#include "ggml.h"
#include "gguf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: gguf-xwrite FILE [ALIGNMENT]\n");
        return 2;
    }
    struct gguf_context * ctx = gguf_init_empty();
    if (argc > 2) {
        gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, (uint32_t) atoi(argv[2]));
    }
    gguf_set_val_str(ctx, "general.architecture", "xcheck");
    gguf_set_val_u8(ctx, "x.u8", 250);
    gguf_set_val_i8(ctx, "x.i8", -7);
    gguf_set_val_u16(ctx, "x.u16", 65000);
    gguf_set_val_i16(ctx, "x.i16", -32000);
    gguf_set_val_u32(ctx, "x.u32", 4000000000u);
    gguf_set_val_i32(ctx, "x.i32", -2000000000);
    gguf_set_val_f32(ctx, "x.f32", 0.1f);
    gguf_set_val_u64(ctx, "x.u64", 18000000000000000000ull);
    gguf_set_val_i64(ctx, "x.i64", -9000000000000000000ll);
    gguf_set_val_f64(ctx, "x.f64", 2.718281828459045);
    gguf_set_val_bool(ctx, "x.bool", true);
    gguf_set_val_str(ctx, "x.str", "snowman \xe2\x98\x83");
    gguf_set_val_str(ctx, "x.str.empty", "");

    uint8_t raw[64];
    for (int i = 0; i < 64; i++) {
        raw[i] = (uint8_t) (i * 29 + 3);
    }
    const uint8_t bools[5] = { 1, 0, 0, 1, 1 };
    static const char * const names[] = { "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "", "",
                                           "u64", "i64", "f64" };
    char key[32];
    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        if (t == GGUF_TYPE_STRING || t == GGUF_TYPE_ARRAY) {
            continue;
        }
        snprintf(key, sizeof(key), "a.%s", names[t]);
        gguf_set_arr_data(ctx, key, (enum gguf_type) t, t == GGUF_TYPE_BOOL ? (const void *) bools : raw, 5);
        snprintf(key, sizeof(key), "a.%s.empty", names[t]);
        gguf_set_arr_data(ctx, key, (enum gguf_type) t, raw, 0);
    }
    const char * strs[] = { "<s>", "", "\xe2\x96\x81the", "</s>" };
    gguf_set_arr_str(ctx, "tokenizer.ggml.tokens", strs, 4);
    gguf_set_arr_str(ctx, "a.str.empty", strs, 0);

    struct ggml_init_params ip = { 1 << 20, NULL, false };
    struct ggml_context * g = ggml_init(ip);
    static const struct { const char * name; enum ggml_type type; int64_t ne0, ne1; } ts[] = {
        { "token_embd.weight", GGML_TYPE_F32, 7, 3 },
        { "blk.0.attn_q.weight", GGML_TYPE_Q8_0, 64, 2 },
        { "blk.0.ffn_up.weight", GGML_TYPE_Q4_K, 256, 3 },
        { "blk.0.bias", GGML_TYPE_I8, 5, 1 },
        { "blk.0.attn_norm.weight", GGML_TYPE_F16, 9, 1 },
    };
    for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(g, ts[i].type, ts[i].ne0, ts[i].ne1);
        ggml_set_name(t, ts[i].name);
        for (size_t b = 0; b < ggml_nbytes(t); b++) {
            ((uint8_t *) t->data)[b] = (uint8_t) (b * 13 + i * 101);
        }
        gguf_add_tensor(ctx, t);
    }
    if (!gguf_write_to_file(ctx, argv[1], false)) {
        fprintf(stderr, "gguf-xwrite: cannot write %s\n", argv[1]);
        return 1;
    }
    gguf_free(ctx);
    ggml_free(g);
    return 0;
}
