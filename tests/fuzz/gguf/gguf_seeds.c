// SPDX-License-Identifier: MIT
//
// gguf_seeds: writes the fuzzer's seed corpus, small valid GGUF files made
// with the library's own writer: every value type, arrays of each type
// (empty, one element, several, strings), tensors of plain and block types
// with different alignments, a version 2 file, metadata-only and
// tensors-only files.
//
//   gguf_seeds <directory>

#include "ggml.h"
#include "gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_written;

static void save(struct gguf_context * ctx, const char * dir, const char * name) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/seed-%s.gguf", dir, name);
    if (!gguf_write_to_file(ctx, path, false)) {
        fprintf(stderr, "gguf_seeds: cannot write %s\n", path);
        exit(1);
    }
    n_written++;
}

static void all_scalars(struct gguf_context * ctx) {
    gguf_set_val_u8(ctx, "t.u8", 200);
    gguf_set_val_i8(ctx, "t.i8", -100);
    gguf_set_val_u16(ctx, "t.u16", 60000);
    gguf_set_val_i16(ctx, "t.i16", -30000);
    gguf_set_val_u32(ctx, "t.u32", 4000000000u);
    gguf_set_val_i32(ctx, "t.i32", -2000000000);
    gguf_set_val_f32(ctx, "t.f32", 3.25f);
    gguf_set_val_u64(ctx, "t.u64", 0x123456789abcdef0ull);
    gguf_set_val_i64(ctx, "t.i64", -0x123456789abcdefll);
    gguf_set_val_f64(ctx, "t.f64", -1.5e300);
    gguf_set_val_bool(ctx, "t.bool", true);
    gguf_set_val_str(ctx, "general.name", "seed");
}

static void all_arrays(struct gguf_context * ctx, size_t n) {
    static const uint8_t bytes[64] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    static const char * strs[] = { "tok", "", "a longer token", "\xe2\x96\x81x" };
    char key[64];
    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        if (t == GGUF_TYPE_STRING || t == GGUF_TYPE_ARRAY) {
            continue;
        }
        snprintf(key, sizeof(key), "a.%s", gguf_type_name((enum gguf_type) t));
        gguf_set_arr_data(ctx, key, (enum gguf_type) t, bytes, n);
    }
    gguf_set_arr_str(ctx, "a.str", strs, n < 4 ? n : 4);
}

// Tensors of several types, data filled with a pattern.
static struct ggml_context * add_tensors(struct gguf_context * ctx, const enum ggml_type * types, int n) {
    struct ggml_init_params ip = { .mem_size = 1 << 20, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * g = ggml_init(ip);
    for (int i = 0; i < n; i++) {
        const int64_t blck = ggml_blck_size(types[i]);
        struct ggml_tensor * t = i % 2 ? ggml_new_tensor_2d(g, types[i], blck, 2)
                                       : ggml_new_tensor_1d(g, types[i], blck * (i + 1));
        char name[32];
        snprintf(name, sizeof(name), "blk.%d.weight", i);
        ggml_set_name(t, name);
        for (size_t b = 0; b < ggml_nbytes(t); b++) {
            ((uint8_t *) t->data)[b] = (uint8_t) (b * 7 + i);
        }
        gguf_add_tensor(ctx, t);
    }
    return g;
}

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gguf_seeds <directory>\n");
        return 2;
    }
    const char * dir = argv[1];
    static const enum ggml_type types[] = {
        GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_I32,
    };
    struct gguf_context * ctx;
    struct ggml_context * g;

    ctx = gguf_init_empty();
    save(ctx, dir, "empty");
    gguf_free(ctx);

    ctx = gguf_init_empty();
    all_scalars(ctx);
    save(ctx, dir, "scalars");
    gguf_free(ctx);

    for (size_t n = 0; n <= 3; n++) {
        char name[32];
        ctx = gguf_init_empty();
        all_arrays(ctx, n);
        snprintf(name, sizeof(name), "arrays-%zu", n);
        save(ctx, dir, name);
        gguf_free(ctx);
    }

    const uint32_t aligns[] = { 0, 1, 8, 64 };
    for (size_t a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
        char name[32];
        ctx = gguf_init_empty();
        gguf_set_val_str(ctx, "general.architecture", "llama");
        if (aligns[a]) {
            gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, aligns[a]);
        }
        g = add_tensors(ctx, types, a == 0 ? 6 : 3);
        snprintf(name, sizeof(name), "tensors-align%u", (unsigned) (aligns[a] ? aligns[a] : GGUF_DEFAULT_ALIGNMENT));
        save(ctx, dir, name);
        gguf_free(ctx);
        ggml_free(g);
    }

    ctx = gguf_init_empty();
    g = add_tensors(ctx, types, 2);
    save(ctx, dir, "tensors-only");
    gguf_free(ctx);
    ggml_free(g);

    ctx = gguf_init_empty();
    all_scalars(ctx);
    all_arrays(ctx, 2);
    g = add_tensors(ctx, types + 2, 2);
    save(ctx, dir, "mixed");
    gguf_free(ctx);
    ggml_free(g);

    // version 2: same layout, another version number (byte 4)
    {
        char path[4096];
        snprintf(path, sizeof(path), "%s/seed-scalars.gguf", dir);
        struct gguf_context * v3 = gguf_init_from_file(path, (struct gguf_init_params) { true, NULL });
        size_t size = v3 ? gguf_get_meta_size(v3) : 0;
        uint8_t * meta = malloc(size ? size : 1);
        if (v3 == NULL || meta == NULL) {
            fprintf(stderr, "gguf_seeds: cannot read back %s\n", path);
            return 1;
        }
        gguf_get_meta_data(v3, meta);
        meta[4] = 2;
        snprintf(path, sizeof(path), "%s/seed-version2.gguf", dir);
        FILE * f = fopen(path, "wb");
        if (f == NULL || fwrite(meta, 1, size, f) != size || fclose(f) != 0) {
            fprintf(stderr, "gguf_seeds: cannot write %s\n", path);
            return 1;
        }
        n_written++;
        free(meta);
        gguf_free(v3);
    }

    printf("gguf_seeds: %d files in %s\n", n_written, dir);
    return 0;
}
