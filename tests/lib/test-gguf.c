// SPDX-License-Identifier: MIT
//
// test-gguf: GGUF files (gguf.h). Round trips of every value type, array
// type and tensor layout (alignments 1 to 4096, no_alloc both ways, every
// reader and writer entry point); the API's documented aborts; and the
// reader on hostile input: every prefix of a valid file, and a file with
// each field broken in turn (magic, version, counts, lengths, types,
// shapes, offsets, duplicates, alignment), each of which must return NULL,
// leave *ctx NULL, log a line naming the field and leak nothing (LeakSanitizer
// checks before each test returns). The fuzzer's saved findings in tests/fuzz/gguf/regress/
// are replayed. Last, a file's tensors are placed in CPU backend buffers:
// copied into ggml_backend_alloc_ctx_tensors, and mmapped zero-copy through
// ggml_backend_dev_buffer_from_host_ptr.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "gguf.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-harness.h"
#include "test-abort.h"
#include "test-log.h"

// The harness ends each test's process with _exit(), so LeakSanitizer's
// check at exit never runs there: each test asks for it before returning.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
static int leaks(void) {
    return __lsan_do_recoverable_leak_check();
}
#else
static int leaks(void) {
    return 0;
}
#endif

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

// Temporary files live in one directory, made before the harness forks the
// tests and removed when the main process exits.
static char tmp_dir[] = "/tmp/test-gguf-XXXXXX";
static pid_t tmp_owner;

__attribute__((constructor)) static void tmp_make(void) {
    if (mkdtemp(tmp_dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    tmp_owner = getpid();
}

__attribute__((destructor)) static void tmp_remove(void) {
    if (getpid() != tmp_owner) {
        return;
    }
    DIR * d = opendir(tmp_dir);
    if (d != NULL) {
        struct dirent * e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] != '.') {
                char p[512];
                snprintf(p, sizeof(p), "%s/%s", tmp_dir, e->d_name);
                unlink(p);
            }
        }
        closedir(d);
    }
    rmdir(tmp_dir);
}

static const char * tmp_path(const char * name) {
    static char path[4][256];
    static int next;
    char * p = path[next++ % 4];
    snprintf(p, sizeof(path[0]), "%s/%s", tmp_dir, name);
    return p;
}

static uint8_t * read_all(const char * path, size_t * size) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t * d = malloc(n > 0 ? (size_t) n : 1);
    if (d == NULL || fread(d, 1, (size_t) n, f) != (size_t) n) {
        free(d);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t) n;
    return d;
}

static bool write_all(const char * path, const void * data, size_t size) {
    FILE * f = fopen(path, "wb");
    if (f == NULL) {
        return false;
    }
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static const struct gguf_init_params no_ctx = { .no_alloc = false, .ctx = NULL };

// A file's bytes, built field by field (little-endian).
struct fb {
    uint8_t * d;
    size_t    n;
    size_t    cap;
};

static void fb_put(struct fb * b, const void * p, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        if (b->d == NULL) {
            abort();
        }
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void fb_u32(struct fb * b, uint32_t v) {
    uint8_t x[4];
    for (int i = 0; i < 4; i++) {
        x[i] = (uint8_t) (v >> (8 * i));
    }
    fb_put(b, x, 4);
}

static void fb_u64(struct fb * b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (uint8_t) (v >> (8 * i));
    }
    fb_put(b, x, 8);
}

static void fb_str(struct fb * b, const char * s) {
    fb_u64(b, strlen(s));
    fb_put(b, s, strlen(s));
}

static void fb_header(struct fb * b, int64_t n_tensors, int64_t n_kv) {
    fb_put(b, "GGUF", 4);
    fb_u32(b, 3);
    fb_u64(b, (uint64_t) n_tensors);
    fb_u64(b, (uint64_t) n_kv);
}

static void fb_pad(struct fb * b, size_t align) {
    while (b->n % align) {
        fb_put(b, "", 1);
    }
}

static void fb_zeros(struct fb * b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        fb_put(b, "", 1);
    }
}

// A tensor info: name, dims, type, offset.
static void fb_tensor(struct fb * b, const char * name, uint32_t n_dims, const int64_t * ne, int32_t type,
                      uint64_t offset) {
    fb_str(b, name);
    fb_u32(b, n_dims);
    for (uint32_t i = 0; i < n_dims; i++) {
        fb_u64(b, (uint64_t) ne[i]);
    }
    fb_u32(b, (uint32_t) type);
    fb_u64(b, offset);
}

// Parses data in all three ways; true when every one fails cleanly: NULL,
// *ctx NULL (set to a sentinel before), and an error logged. The log of the
// last attempt is left in log_buf.
static bool rejected(const void * data, size_t size) {
    struct ggml_context * sentinel = (struct ggml_context *) (uintptr_t) 0x1;
    bool ok = true;
    for (int mode = 0; mode < 3; mode++) {
        struct ggml_context * gctx = sentinel;
        struct gguf_init_params p = { .no_alloc = mode == 1, .ctx = mode == 2 ? NULL : &gctx };
        log_start();
        struct gguf_context * ctx = gguf_init_from_buffer(data, size, p);
        log_stop();
        if (ctx != NULL) {
            gguf_free(ctx);
            ggml_free(mode == 2 ? NULL : gctx);
            ok = false;
        } else if (mode != 2 && gctx != NULL) {
            ok = false;
        } else if (strstr(log_buf, "gguf") == NULL) {
            ok = false;
        }
    }
    return ok;
}

// The file's reader error mentions want.
static bool rejected_with(struct fb * b, const char * want) {
    bool ok = rejected(b->d, b->n);
    if (ok && strstr(log_buf, want) == NULL) {
        fprintf(stderr, "# log \"%s\" lacks \"%s\"\n", log_buf, want);
        ok = false;
    }
    if (!ok) {
        fprintf(stderr, "# case expecting \"%s\" failed\n", want);
    }
    free(b->d);
    memset(b, 0, sizeof(*b));
    return ok;
}

static bool accepted(struct fb * b) {
    struct ggml_context * gctx = NULL;
    log_start();
    struct gguf_context * ctx = gguf_init_from_buffer(b->d, b->n, (struct gguf_init_params) { false, &gctx });
    log_stop();
    bool ok = ctx != NULL && gctx != NULL;
    if (!ok) {
        fprintf(stderr, "# rejected: %s", log_buf);
    }
    gguf_free(ctx);
    ggml_free(gctx);
    free(b->d);
    memset(b, 0, sizeof(*b));
    return ok;
}

// ---------------------------------------------------------------------------
// constants
// ---------------------------------------------------------------------------

TEST(constants_and_type_names) {
    static const char * names[] = { "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr",
                                    "u64", "i64", "f64" };
    EXPECT_EQ(13, GGUF_TYPE_COUNT);
    EXPECT_EQ(0, GGUF_TYPE_UINT8);
    EXPECT_EQ(7, GGUF_TYPE_BOOL);
    EXPECT_EQ(8, GGUF_TYPE_STRING);
    EXPECT_EQ(9, GGUF_TYPE_ARRAY);
    EXPECT_EQ(12, GGUF_TYPE_FLOAT64);
    EXPECT_EQ(3, GGUF_VERSION);
    EXPECT_EQ(32, GGUF_DEFAULT_ALIGNMENT);
    EXPECT_STREQ("GGUF", GGUF_MAGIC);
    EXPECT_STREQ("general.alignment", GGUF_KEY_GENERAL_ALIGNMENT);
    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        EXPECT_STREQ(names[t], gguf_type_name((enum gguf_type) t));
    }
    EXPECT_EQ(NULL, gguf_type_name(GGUF_TYPE_COUNT));
    EXPECT_EQ(NULL, gguf_type_name((enum gguf_type) -1));

    struct gguf_context * ctx = gguf_init_empty();
    ASSERT_NE(NULL, ctx);
    EXPECT_EQ(3u, gguf_get_version(ctx));
    EXPECT_EQ(32u, gguf_get_alignment(ctx));
    EXPECT_EQ(0u, gguf_get_data_offset(ctx));
    EXPECT_EQ(0, gguf_get_n_kv(ctx));
    EXPECT_EQ(0, gguf_get_n_tensors(ctx));
    EXPECT_EQ(-1, gguf_find_key(ctx, "x"));
    EXPECT_EQ(-1, gguf_find_tensor(ctx, "x"));
    EXPECT_EQ(-1, gguf_remove_key(ctx, "x"));
    // header (24 bytes) padded to the alignment
    EXPECT_EQ(32u, gguf_get_meta_size(ctx));
    gguf_free(ctx);
    gguf_free(NULL);
    EXPECT_EQ(0, leaks());
}

// ---------------------------------------------------------------------------
// key/value round trips
// ---------------------------------------------------------------------------

static const char * const strs[] = { "", "one", "with spaces and \xe2\x96\x81 utf-8", "x" };

// Sets one of every kind; check_values() verifies them on any context.
static void set_values(struct gguf_context * ctx) {
    static const uint8_t bytes[40] = { 0, 1, 2, 3, 0x80, 0xff, 0x7f, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                       18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 };
    static const uint8_t bools[5] = { 1, 0, 7, 1, 0 }; // 7 becomes true (1)
    char key[64];

    gguf_set_val_u8(ctx, "v.u8", 0xff);
    gguf_set_val_i8(ctx, "v.i8", -128);
    gguf_set_val_u16(ctx, "v.u16", 0xffff);
    gguf_set_val_i16(ctx, "v.i16", -32768);
    gguf_set_val_u32(ctx, "v.u32", 0xffffffffu);
    gguf_set_val_i32(ctx, "v.i32", INT32_MIN);
    gguf_set_val_f32(ctx, "v.f32", -0.15625f);
    gguf_set_val_u64(ctx, "v.u64", UINT64_MAX);
    gguf_set_val_i64(ctx, "v.i64", INT64_MIN);
    gguf_set_val_f64(ctx, "v.f64", 1e-300);
    gguf_set_val_bool(ctx, "v.bool.t", true);
    gguf_set_val_bool(ctx, "v.bool.f", false);
    gguf_set_val_str(ctx, "v.str", "hello, gguf");
    gguf_set_val_str(ctx, "v.str.empty", "");
    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        if (t == GGUF_TYPE_STRING || t == GGUF_TYPE_ARRAY) {
            continue;
        }
        for (int n = 0; n <= 5; n += 5) {
            snprintf(key, sizeof(key), "a.%s.%d", gguf_type_name((enum gguf_type) t), n);
            gguf_set_arr_data(ctx, key, (enum gguf_type) t, t == GGUF_TYPE_BOOL ? bools : bytes, (size_t) n);
        }
    }
    gguf_set_arr_str(ctx, "a.str.4", (const char **) strs, 4);
    gguf_set_arr_str(ctx, "a.str.0", NULL, 0);
}

// The id of key k, which must exist with that type (else 0 after a failure).
static int64_t key_id(struct __test_metadata * _metadata, const struct gguf_context * ctx, const char * k,
                      enum gguf_type type) {
    const int64_t id = gguf_find_key(ctx, k);
    EXPECT_LE(0, id) TH_LOG("key %s", k);
    if (id < 0) {
        return 0;
    }
    EXPECT_EQ(type, gguf_get_kv_type(ctx, id)) TH_LOG("key %s", k);
    return id;
}

static int check_values(struct __test_metadata * _metadata, const struct gguf_context * ctx) {
    static const size_t esize[GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
    static const uint8_t bytes[40] = { 0, 1, 2, 3, 0x80, 0xff, 0x7f, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                       18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 };
    static const uint8_t bools[5] = { 1, 0, 1, 1, 0 };
    int64_t id;
    char key[64];

#define KEY(k, type) (id = key_id(_metadata, ctx, k, type))
    EXPECT_EQ(0xff, gguf_get_val_u8(ctx, KEY("v.u8", GGUF_TYPE_UINT8)));
    EXPECT_EQ(-128, gguf_get_val_i8(ctx, KEY("v.i8", GGUF_TYPE_INT8)));
    EXPECT_EQ(0xffff, gguf_get_val_u16(ctx, KEY("v.u16", GGUF_TYPE_UINT16)));
    EXPECT_EQ(-32768, gguf_get_val_i16(ctx, KEY("v.i16", GGUF_TYPE_INT16)));
    EXPECT_EQ(0xffffffffu, gguf_get_val_u32(ctx, KEY("v.u32", GGUF_TYPE_UINT32)));
    EXPECT_EQ(INT32_MIN, gguf_get_val_i32(ctx, KEY("v.i32", GGUF_TYPE_INT32)));
    EXPECT_TRUE(gguf_get_val_f32(ctx, KEY("v.f32", GGUF_TYPE_FLOAT32)) == -0.15625f);
    EXPECT_EQ(UINT64_MAX, gguf_get_val_u64(ctx, KEY("v.u64", GGUF_TYPE_UINT64)));
    EXPECT_EQ(INT64_MIN, gguf_get_val_i64(ctx, KEY("v.i64", GGUF_TYPE_INT64)));
    EXPECT_TRUE(gguf_get_val_f64(ctx, KEY("v.f64", GGUF_TYPE_FLOAT64)) == 1e-300);
    EXPECT_TRUE(gguf_get_val_bool(ctx, KEY("v.bool.t", GGUF_TYPE_BOOL)));
    EXPECT_FALSE(gguf_get_val_bool(ctx, KEY("v.bool.f", GGUF_TYPE_BOOL)));
    EXPECT_STREQ("hello, gguf", gguf_get_val_str(ctx, KEY("v.str", GGUF_TYPE_STRING)));
    EXPECT_STREQ("", gguf_get_val_str(ctx, KEY("v.str.empty", GGUF_TYPE_STRING)));
    EXPECT_EQ(1u, gguf_get_arr_n(ctx, KEY("v.u32", GGUF_TYPE_UINT32)));
    uint32_t u32;
    memcpy(&u32, gguf_get_val_data(ctx, id), 4);
    EXPECT_EQ(0xffffffffu, u32);

    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        if (t == GGUF_TYPE_STRING || t == GGUF_TYPE_ARRAY) {
            continue;
        }
        for (int n = 0; n <= 5; n += 5) {
            snprintf(key, sizeof(key), "a.%s.%d", gguf_type_name((enum gguf_type) t), n);
            KEY(key, GGUF_TYPE_ARRAY);
            EXPECT_EQ(t, gguf_get_arr_type(ctx, id));
            EXPECT_EQ((size_t) n, gguf_get_arr_n(ctx, id));
            if (n > 0) {
                EXPECT_EQ(0, memcmp(gguf_get_arr_data(ctx, id), t == GGUF_TYPE_BOOL ? bools : bytes,
                                    (size_t) n * esize[t])) TH_LOG("key %s", key);
            }
        }
    }
    KEY("a.str.4", GGUF_TYPE_ARRAY);
    EXPECT_EQ(GGUF_TYPE_STRING, gguf_get_arr_type(ctx, id));
    EXPECT_EQ(4u, gguf_get_arr_n(ctx, id));
    for (size_t i = 0; i < 4; i++) {
        EXPECT_STREQ(strs[i], gguf_get_arr_str(ctx, id, i));
    }
    KEY("a.str.0", GGUF_TYPE_ARRAY);
    EXPECT_EQ(GGUF_TYPE_STRING, gguf_get_arr_type(ctx, id));
    EXPECT_EQ(0u, gguf_get_arr_n(ctx, id));
#undef KEY
    return 0;
}

TEST(values_round_trip) {
    struct gguf_context * ctx = gguf_init_empty();
    set_values(ctx);
    const int64_t n_kv = gguf_get_n_kv(ctx);
    EXPECT_EQ(14 + 2 * 11 + 2, n_kv);
    check_values(_metadata, ctx);

    // in the file: through each reader
    const char * path = tmp_path("values.gguf");
    ASSERT_TRUE(gguf_write_to_file(ctx, path, false));
    size_t size;
    uint8_t * file = read_all(path, &size);
    ASSERT_NE(NULL, file);
    EXPECT_EQ(gguf_get_meta_size(ctx), size);
    uint8_t * meta = malloc(size);
    gguf_get_meta_data(ctx, meta);
    EXPECT_EQ(0, memcmp(meta, file, size));

    struct gguf_context * r1 = gguf_init_from_file(path, no_ctx);
    struct gguf_context * r2 = gguf_init_from_buffer(file, size, no_ctx);
    ASSERT_NE(NULL, r1);
    ASSERT_NE(NULL, r2);
    EXPECT_EQ(n_kv, gguf_get_n_kv(r1));
    check_values(_metadata, r1);
    check_values(_metadata, r2);
    for (int64_t i = 0; i < n_kv; i++) {
        EXPECT_STREQ(gguf_get_key(ctx, i), gguf_get_key(r1, i)); // order kept
    }
    // the same bytes again when written back
    uint8_t * meta2 = malloc(size);
    ASSERT_EQ(size, gguf_get_meta_size(r2));
    gguf_get_meta_data(r2, meta2);
    EXPECT_EQ(0, memcmp(meta, meta2, size));

    // gguf_set_kv copies everything; setting an existing key moves it last
    struct gguf_context * copy = gguf_init_empty();
    gguf_set_val_str(copy, "v.u8", "replaced by set_kv");
    gguf_set_kv(copy, r1);
    EXPECT_EQ(n_kv, gguf_get_n_kv(copy));
    check_values(_metadata, copy);
    gguf_set_kv(copy, copy); // no-op
    EXPECT_EQ(n_kv, gguf_get_n_kv(copy));
    gguf_set_val_u8(copy, "v.u8", 7);
    EXPECT_EQ(n_kv - 1, gguf_find_key(copy, "v.u8"));
    EXPECT_EQ(7, gguf_get_val_u8(copy, n_kv - 1));
    // a value may be set from the context's own storage
    gguf_set_val_str(copy, gguf_get_key(copy, gguf_find_key(copy, "v.str")),
                     gguf_get_val_str(copy, gguf_find_key(copy, "v.str")));
    EXPECT_STREQ("hello, gguf", gguf_get_val_str(copy, n_kv - 1));
    EXPECT_EQ(2, gguf_remove_key(copy, "v.i16")); // v.u8 moved last
    EXPECT_STREQ("v.u32", gguf_get_key(copy, 2));
    EXPECT_EQ(-1, gguf_find_key(copy, "v.i16"));
    EXPECT_EQ(n_kv - 1, gguf_get_n_kv(copy));

    free(meta);
    free(meta2);
    free(file);
    gguf_free(copy);
    gguf_free(r1);
    gguf_free(r2);
    gguf_free(ctx);
    EXPECT_EQ(0, leaks());
}

// A value with NUL bytes in it (legal in the format) survives a round trip.
TEST(string_with_nul_bytes) {
    struct fb b = { 0 };
    fb_header(&b, 0, 1);
    fb_str(&b, "k");
    fb_u32(&b, GGUF_TYPE_STRING);
    fb_u64(&b, 3);
    fb_put(&b, "a\0b", 3);
    struct gguf_context * ctx = gguf_init_from_buffer(b.d, b.n, no_ctx);
    ASSERT_NE(NULL, ctx);
    EXPECT_STREQ("a", gguf_get_val_str(ctx, 0));
    uint8_t meta[64];
    ASSERT_GE(sizeof(meta), gguf_get_meta_size(ctx));
    gguf_get_meta_data(ctx, meta);
    EXPECT_EQ(0, memcmp(meta, b.d, b.n));
    gguf_free(ctx);
    free(b.d);
    EXPECT_EQ(0, leaks());
}

// ---------------------------------------------------------------------------
// tensors
// ---------------------------------------------------------------------------

struct model {
    struct ggml_context * g;
    struct gguf_context * ctx;
};

static const enum ggml_type model_types[] = {
    GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_I8, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K,
    GGML_TYPE_BF16, GGML_TYPE_I32, GGML_TYPE_Q6_K, GGML_TYPE_I8,
};
#define N_MODEL (int) (sizeof(model_types) / sizeof(model_types[0]))

// Tensors of sizes that are not multiples of any alignment (3 x i8, ...),
// 1 to 4 dimensions, a pattern in each; alignment 0 keeps the default.
static struct model make_model(uint32_t alignment) {
    struct model m;
    struct ggml_init_params ip = { .mem_size = 4 << 20, .mem_buffer = NULL, .no_alloc = false };
    m.g = ggml_init(ip);
    m.ctx = gguf_init_empty();
    gguf_set_val_str(m.ctx, "general.architecture", "test");
    if (alignment) {
        gguf_set_val_u32(m.ctx, GGUF_KEY_GENERAL_ALIGNMENT, alignment);
    }
    for (int i = 0; i < N_MODEL; i++) {
        const int64_t blck = ggml_blck_size(model_types[i]);
        int64_t ne[4] = { blck * (model_types[i] == GGML_TYPE_I8 ? 3 : 2), 1 + i % 3, 1 + (i % 4 == 3), 1 };
        if (i == 5) {
            ne[3] = 2;
        }
        struct ggml_tensor * t = ggml_new_tensor(m.g, model_types[i], 4, ne);
        char name[32];
        snprintf(name, sizeof(name), "blk.%d.%s", i, ggml_type_name(model_types[i]));
        ggml_set_name(t, name);
        for (size_t b = 0; b < ggml_nbytes(t); b++) {
            ((uint8_t *) t->data)[b] = (uint8_t) (b * 31 + (size_t) i * 7 + 1);
        }
        gguf_add_tensor(m.ctx, t);
    }
    return m;
}

static void free_model(struct model * m) {
    gguf_free(m->ctx);
    ggml_free(m->g);
}

// r holds m's tensors (infos; and data when gctx was loaded with data).
static int check_tensors(struct __test_metadata * _metadata, const struct model * m,
                         const struct gguf_context * r, struct ggml_context * gctx, bool with_data) {
    const size_t align = gguf_get_alignment(r);
    EXPECT_EQ(N_MODEL, gguf_get_n_tensors(r));
    EXPECT_EQ(0u, gguf_get_data_offset(r) % align);
    struct ggml_tensor * blob = NULL;
    if (gctx != NULL && with_data) {
        blob = ggml_get_first_tensor(gctx);
        ASSERT_NE(NULL, blob);
        EXPECT_STREQ("GGUF tensor data binary blob", blob->name);
        EXPECT_EQ(GGML_TYPE_I8, blob->type);
    }
    size_t expect_off = 0;
    for (int i = 0; i < N_MODEL; i++) {
        const struct ggml_tensor * src = ggml_get_tensor(m->g, gguf_get_tensor_name(m->ctx, i));
        ASSERT_NE(NULL, src);
        EXPECT_STREQ(src->name, gguf_get_tensor_name(r, i));
        EXPECT_EQ(i, gguf_find_tensor(r, src->name));
        EXPECT_EQ(src->type, gguf_get_tensor_type(r, i));
        EXPECT_EQ(ggml_nbytes(src), gguf_get_tensor_size(r, i));
        EXPECT_EQ(expect_off, gguf_get_tensor_offset(r, i));
        EXPECT_EQ(0u, gguf_get_tensor_offset(r, i) % align);
        expect_off += GGML_PAD(ggml_nbytes(src), align);
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            EXPECT_EQ(src->ne[d], gguf_get_tensor_ne(r, i)[d]);
        }
        if (gctx == NULL) {
            continue;
        }
        struct ggml_tensor * t = ggml_get_tensor(gctx, src->name);
        ASSERT_NE(NULL, t);
        EXPECT_TRUE(ggml_are_same_shape(src, t));
        EXPECT_EQ(src->type, t->type);
        EXPECT_EQ(ggml_nbytes(src), ggml_nbytes(t));
        if (with_data) {
            ASSERT_NE(NULL, t->data);
            EXPECT_EQ((char *) blob->data + gguf_get_tensor_offset(r, i), (char *) t->data);
            EXPECT_EQ(0, memcmp(src->data, t->data, ggml_nbytes(src))) TH_LOG("tensor %s", src->name);
        } else {
            EXPECT_EQ(NULL, t->data);
        }
    }
    return 0;
}

TEST(tensors_round_trip_alignments) {
    static const uint32_t aligns[] = { 0, 1, 2, 8, 32, 64, 4096 };
    for (size_t a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
        struct model m = make_model(aligns[a]);
        const size_t align = aligns[a] ? aligns[a] : GGUF_DEFAULT_ALIGNMENT;
        EXPECT_EQ(align, gguf_get_alignment(m.ctx));
        const char * path = tmp_path("tensors.gguf");
        ASSERT_TRUE(gguf_write_to_file(m.ctx, path, false));

        size_t size;
        uint8_t * file = read_all(path, &size);
        ASSERT_NE(NULL, file);
        // each tensor padded, the last one too
        size_t data_size = 0;
        for (int i = 0; i < N_MODEL; i++) {
            data_size += GGML_PAD(gguf_get_tensor_size(m.ctx, i), align);
        }
        EXPECT_EQ(gguf_get_meta_size(m.ctx) + data_size, size);

        for (int mode = 0; mode < 4; mode++) {
            struct ggml_context * gctx = NULL;
            struct gguf_init_params p = { .no_alloc = mode & 1, .ctx = mode & 2 ? NULL : &gctx };
            struct gguf_context * r = gguf_init_from_file(path, p);
            ASSERT_NE(NULL, r) TH_LOG("alignment %zu mode %d", align, mode);
            EXPECT_EQ(align, gguf_get_alignment(r));
            EXPECT_EQ(gguf_get_meta_size(m.ctx), gguf_get_data_offset(r));
            check_tensors(_metadata, &m, r, gctx, !(mode & 1));
            if (gctx != NULL) {
                // the context holds exactly the tensors (and the blob)
                int n = 0;
                for (struct ggml_tensor * t = ggml_get_first_tensor(gctx); t; t = ggml_get_next_tensor(gctx, t)) {
                    n++;
                }
                EXPECT_EQ(N_MODEL + !(mode & 1), n);
            }
            gguf_free(r);
            ggml_free(gctx);
        }
        free(file);
        free_model(&m);
    }
    EXPECT_EQ(0, leaks());
}

// The other entry points: FILE * at a non-zero position, buffer, callback
// in small chunks.
struct cb_src {
    const uint8_t * d;
    size_t          n;
    size_t          max_len;
};

static size_t cb_read(void * ud, void * out, uint64_t offset, size_t len) {
    struct cb_src * s = ud;
    if (len > s->max_len) {
        s->max_len = len;
    }
    if (offset >= s->n) {
        return 0;
    }
    size_t k = s->n - offset < len ? s->n - (size_t) offset : len;
    memcpy(out, s->d + offset, k);
    return k;
}

TEST(reader_entry_points) {
    struct model m = make_model(64);
    const char * path = tmp_path("entry.gguf");
    ASSERT_TRUE(gguf_write_to_file(m.ctx, path, false));
    size_t size;
    uint8_t * file = read_all(path, &size);
    ASSERT_NE(NULL, file);

    // a GGUF stored after 13 bytes of something else in a file
    const char * outer = tmp_path("outer.bin");
    FILE * f = fopen(outer, "w+b");
    ASSERT_NE(NULL, f);
    ASSERT_EQ(13u, fwrite("prefix-bytes!", 1, 13, f));
    ASSERT_EQ(size, fwrite(file, 1, size, f));
    ASSERT_EQ(0, fseek(f, 13, SEEK_SET));
    struct ggml_context * gctx = NULL;
    struct gguf_context * r = gguf_init_from_file_ptr(f, (struct gguf_init_params) { false, &gctx });
    ASSERT_NE(NULL, r);
    check_tensors(_metadata, &m, r, gctx, true);
    gguf_free(r);
    ggml_free(gctx);
    fclose(f);

    r = gguf_init_from_buffer(file, size, (struct gguf_init_params) { false, &gctx });
    ASSERT_NE(NULL, r);
    check_tensors(_metadata, &m, r, gctx, true);
    gguf_free(r);
    ggml_free(gctx);

    struct cb_src src = { file, size, 0 };
    r = gguf_init_from_callback(cb_read, &src, 5, size, (struct gguf_init_params) { false, &gctx });
    ASSERT_NE(NULL, r);
    EXPECT_EQ(5u, src.max_len);
    check_tensors(_metadata, &m, r, gctx, true);
    gguf_free(r);
    ggml_free(gctx);

    // a callback whose source is shorter than it claims: the last tensor's
    // last byte missing
    const int64_t last = gguf_get_n_tensors(m.ctx) - 1;
    src.n = gguf_get_meta_size(m.ctx) + gguf_get_tensor_offset(m.ctx, last) + gguf_get_tensor_size(m.ctx, last) - 1;
    log_start();
    r = gguf_init_from_callback(cb_read, &src, 0, size, (struct gguf_init_params) { false, &gctx });
    log_stop();
    EXPECT_EQ(NULL, r);
    EXPECT_EQ(NULL, gctx);
    EXPECT_NE(NULL, strstr(log_buf, "data section")) TH_LOG("%s", log_buf);

    // no size known (max_expected_size UINT64_MAX): the short read is found
    log_start();
    r = gguf_init_from_callback(cb_read, &src, 3, UINT64_MAX, (struct gguf_init_params) { false, &gctx });
    log_stop();
    EXPECT_EQ(NULL, r);
    EXPECT_EQ(NULL, gctx);
    EXPECT_NE(NULL, strstr(log_buf, "file ends in the data section")) TH_LOG("%s", log_buf);
    src.n = size;
    r = gguf_init_from_callback(cb_read, &src, 0, UINT64_MAX, (struct gguf_init_params) { false, &gctx });
    ASSERT_NE(NULL, r);
    check_tensors(_metadata, &m, r, gctx, true);
    gguf_free(r);
    ggml_free(gctx);

    log_start();
    EXPECT_EQ(NULL, gguf_init_from_callback(NULL, NULL, 0, size, no_ctx));
    EXPECT_EQ(NULL, gguf_init_from_file_ptr(NULL, no_ctx));
    EXPECT_EQ(NULL, gguf_init_from_file(tmp_path("does-not-exist.gguf"), no_ctx));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "does-not-exist.gguf"));

    free(file);
    free_model(&m);
    EXPECT_EQ(0, leaks());
}

// The three ways of writing give the same file.
TEST(write_meta_then_data) {
    struct model m = make_model(0);
    const char * whole = tmp_path("whole.gguf");
    ASSERT_TRUE(gguf_write_to_file(m.ctx, whole, false));
    size_t size;
    uint8_t * ref = read_all(whole, &size);
    ASSERT_NE(NULL, ref);
    const size_t align = gguf_get_alignment(m.ctx);
    static const uint8_t zeros[64];

    // metadata, then the data appended
    const char * appended = tmp_path("appended.gguf");
    ASSERT_TRUE(gguf_write_to_file(m.ctx, appended, true));
    FILE * f = fopen(appended, "ab");
    ASSERT_NE(NULL, f);
    for (int i = 0; i < N_MODEL; i++) {
        const struct ggml_tensor * t = ggml_get_tensor(m.g, gguf_get_tensor_name(m.ctx, i));
        fwrite(t->data, 1, ggml_nbytes(t), f);
        fwrite(zeros, 1, GGML_PAD(ggml_nbytes(t), align) - ggml_nbytes(t), f);
    }
    fclose(f);
    size_t size2;
    uint8_t * got = read_all(appended, &size2);
    ASSERT_EQ(size, size2);
    EXPECT_EQ(0, memcmp(ref, got, size));
    free(got);

    // data behind a placeholder, then the metadata over it
    const size_t meta_size = gguf_get_meta_size(m.ctx);
    uint8_t * buf = calloc(1, size);
    for (int i = 0; i < N_MODEL; i++) {
        const struct ggml_tensor * t = ggml_get_tensor(m.g, gguf_get_tensor_name(m.ctx, i));
        memcpy(buf + meta_size + gguf_get_tensor_offset(m.ctx, i), t->data, ggml_nbytes(t));
    }
    gguf_get_meta_data(m.ctx, buf);
    EXPECT_EQ(0, memcmp(ref, buf, size));

    free(buf);
    free(ref);
    free_model(&m);
    EXPECT_EQ(0, leaks());
}

// Tensor data taken from a backend buffer, from gguf_set_tensor_data, and
// a tensor without data refused.
TEST(write_tensor_sources) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ASSERT_NE(NULL, cpu);
    struct ggml_init_params ip = { .mem_size = 8 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * g = ggml_init(ip);
    struct ggml_tensor * a = ggml_new_tensor_2d(g, GGML_TYPE_F32, 300, 7);
    struct ggml_tensor * b = ggml_new_tensor_1d(g, GGML_TYPE_I8, 5);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(g, cpu);
    ASSERT_NE(NULL, buf);
    float va[2100];
    for (int i = 0; i < 2100; i++) {
        va[i] = (float) i * 0.5f - 3.0f;
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    static const int8_t vb[5] = { -1, 2, -3, 4, -5 };

    struct gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, a);
    gguf_add_tensor(ctx, b);
    gguf_set_tensor_data(ctx, "b", vb);
    const char * path = tmp_path("sources.gguf");
    ASSERT_TRUE(gguf_write_to_file(ctx, path, false));

    struct ggml_context * gctx = NULL;
    struct gguf_context * r = gguf_init_from_file(path, (struct gguf_init_params) { false, &gctx });
    ASSERT_NE(NULL, r);
    EXPECT_EQ(0, memcmp(va, ggml_get_tensor(gctx, "a")->data, sizeof(va)));
    EXPECT_EQ(0, memcmp(vb, ggml_get_tensor(gctx, "b")->data, sizeof(vb)));
    gguf_free(r);
    ggml_free(gctx);

    // a tensor with neither data nor buffer: refused, file not claimed written
    struct ggml_tensor * c = ggml_new_tensor_1d(g, GGML_TYPE_F32, 4);
    ggml_set_name(c, "c");
    gguf_add_tensor(ctx, c);
    log_start();
    EXPECT_FALSE(gguf_write_to_file(ctx, path, false));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "'c' has no data")) TH_LOG("%s", log_buf);
    EXPECT_TRUE(gguf_write_to_file(ctx, path, true)); // the metadata is fine

    log_start();
    EXPECT_FALSE(gguf_write_to_file(ctx, "/nonexistent-dir/x.gguf", false));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "/nonexistent-dir/x.gguf"));

    gguf_free(ctx);
    ggml_backend_buffer_free(buf);
    ggml_free(g);
    ggml_backend_free(cpu);
    EXPECT_EQ(0, leaks());
}

// Changing a tensor's type or the alignment keeps the data section one
// aligned run.
TEST(relayout) {
    struct model m = make_model(0);
    const int64_t i0 = gguf_find_tensor(m.ctx, "blk.0.f32");
    ASSERT_EQ(0, i0);
    const size_t off2 = gguf_get_tensor_offset(m.ctx, 2);
    // f32 -> f16 halves tensor 0: later offsets move down
    gguf_set_tensor_type(m.ctx, "blk.0.f32", GGML_TYPE_F16);
    EXPECT_EQ(GGML_TYPE_F16, gguf_get_tensor_type(m.ctx, 0));
    EXPECT_EQ(gguf_get_tensor_size(m.ctx, 0) * 2, ggml_nbytes(ggml_get_tensor(m.g, "blk.0.f32")));
    EXPECT_GE(off2, gguf_get_tensor_offset(m.ctx, 2));
    for (int64_t i = 1; i < N_MODEL; i++) {
        EXPECT_EQ(gguf_get_tensor_offset(m.ctx, i - 1) + GGML_PAD(gguf_get_tensor_size(m.ctx, i - 1), 32),
                  gguf_get_tensor_offset(m.ctx, i));
    }
    gguf_set_val_u32(m.ctx, GGUF_KEY_GENERAL_ALIGNMENT, 256);
    EXPECT_EQ(256u, gguf_get_alignment(m.ctx));
    for (int64_t i = 1; i < N_MODEL; i++) {
        EXPECT_EQ(0u, gguf_get_tensor_offset(m.ctx, i) % 256);
        EXPECT_EQ(gguf_get_tensor_offset(m.ctx, i - 1) + GGML_PAD(gguf_get_tensor_size(m.ctx, i - 1), 256),
                  gguf_get_tensor_offset(m.ctx, i));
    }
    EXPECT_EQ(0u, gguf_get_meta_size(m.ctx) % 256);
    gguf_remove_key(m.ctx, GGUF_KEY_GENERAL_ALIGNMENT);
    EXPECT_EQ(32u, gguf_get_alignment(m.ctx));
    EXPECT_EQ(GGML_PAD(gguf_get_tensor_size(m.ctx, 0), 32), gguf_get_tensor_offset(m.ctx, 1));
    free_model(&m);
    EXPECT_EQ(0, leaks());
}

// ---------------------------------------------------------------------------
// API misuse aborts (as upstream's)
// ---------------------------------------------------------------------------

static struct gguf_context * abort_ctx(void) {
    struct gguf_context * ctx = gguf_init_empty();
    gguf_set_val_u32(ctx, "u", 1);
    gguf_set_arr_str(ctx, "s", (const char **) strs, 2);
    return ctx;
}

static void wrong_type(void) { gguf_get_val_i32(abort_ctx(), 0); }
static void out_of_range(void) { gguf_get_val_u32(abort_ctx(), 2); }
static void negative_id(void) { gguf_get_key(abort_ctx(), -1); }
static void array_as_single(void) { gguf_get_val_str(abort_ctx(), 1); }
static void str_index(void) { gguf_get_arr_str(abort_ctx(), 1, 2); }
static void str_as_data(void) { gguf_get_arr_data(abort_ctx(), 1); }
static void not_array(void) { gguf_get_arr_type(abort_ctx(), 0); }
static void align_not_pow2(void) { gguf_set_val_u32(abort_ctx(), GGUF_KEY_GENERAL_ALIGNMENT, 48); }
static void align_zero(void) { gguf_set_val_u32(abort_ctx(), GGUF_KEY_GENERAL_ALIGNMENT, 0); }
static void align_wrong_type(void) { gguf_set_val_u64(abort_ctx(), GGUF_KEY_GENERAL_ALIGNMENT, 32); }
static void arr_of_str_type(void) { gguf_set_arr_data(abort_ctx(), "x", GGUF_TYPE_STRING, NULL, 0); }
static void no_tensor(void) { gguf_set_tensor_data(abort_ctx(), "missing", NULL); }
static void tensor_id(void) { gguf_get_tensor_name(abort_ctx(), 0); }

static void dup_tensor(void) {
    struct ggml_init_params ip = { .mem_size = 4 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * g = ggml_init(ip);
    struct ggml_tensor * t = ggml_new_tensor_1d(g, GGML_TYPE_F32, 4);
    ggml_set_name(t, "w");
    struct gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, t);
    gguf_add_tensor(ctx, t);
}

static void bad_block_type(void) {
    struct ggml_init_params ip = { .mem_size = 4 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * g = ggml_init(ip);
    struct ggml_tensor * t = ggml_new_tensor_1d(g, GGML_TYPE_F32, 48);
    ggml_set_name(t, "w");
    struct gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, t);
    gguf_set_tensor_type(ctx, "w", GGML_TYPE_Q4_K); // 48 is not a multiple of 256
}

TEST(api_misuse_aborts) {
    EXPECT_TRUE(expect_abort(wrong_type, "not a single i32"));
    EXPECT_TRUE(expect_abort(out_of_range, "key id 2 out of range"));
    EXPECT_TRUE(expect_abort(negative_id, "key id -1 out of range"));
    EXPECT_TRUE(expect_abort(array_as_single, "an array of str"));
    EXPECT_TRUE(expect_abort(str_index, "string 2 of key 's' out of range"));
    EXPECT_TRUE(expect_abort(str_as_data, "gguf_get_arr_str"));
    EXPECT_TRUE(expect_abort(not_array, "not an array"));
    EXPECT_TRUE(expect_abort(align_not_pow2, "power of two"));
    EXPECT_TRUE(expect_abort(align_zero, "power of two"));
    EXPECT_TRUE(expect_abort(align_wrong_type, "single u32"));
    EXPECT_TRUE(expect_abort(arr_of_str_type, "GGML_ASSERT"));
    EXPECT_TRUE(expect_abort(no_tensor, "no tensor 'missing'"));
    EXPECT_TRUE(expect_abort(tensor_id, "tensor id 0 out of range"));
    EXPECT_TRUE(expect_abort(dup_tensor, "duplicate tensor name 'w'"));
    EXPECT_TRUE(expect_abort(bad_block_type, "cannot be of type q4_K"));
    EXPECT_EQ(0, leaks());
}

// ---------------------------------------------------------------------------
// hostile files
// ---------------------------------------------------------------------------

// Every proper prefix of a valid file is refused, up to the end of the last
// tensor's bytes (its padding may be missing); every longer one is read.
TEST(every_truncation) {
    struct model m = make_model(64);
    set_values(m.ctx);
    const char * path = tmp_path("trunc.gguf");
    ASSERT_TRUE(gguf_write_to_file(m.ctx, path, false));
    size_t size;
    uint8_t * file = read_all(path, &size);
    ASSERT_NE(NULL, file);
    const int64_t last = N_MODEL - 1;
    const size_t min_ok = gguf_get_meta_size(m.ctx) + gguf_get_tensor_offset(m.ctx, last) +
                          gguf_get_tensor_size(m.ctx, last);
    ASSERT_LT(min_ok, size);

    int refused = 0;
    for (size_t len = 0; len <= size; len++) {
        // a copy of exactly len bytes: ASan sees any read past it
        uint8_t * prefix = malloc(len ? len : 1);
        memcpy(prefix, file, len);
        if (len < min_ok) {
            ASSERT_TRUE(rejected(prefix, len)) TH_LOG("prefix of %zu bytes accepted", len);
            refused++;
        } else {
            struct ggml_context * gctx = NULL;
            struct gguf_context * r = gguf_init_from_buffer(prefix, len, (struct gguf_init_params) { false, &gctx });
            ASSERT_NE(NULL, r) TH_LOG("prefix of %zu bytes refused", len);
            check_tensors(_metadata, &m, r, gctx, true);
            gguf_free(r);
            ggml_free(gctx);
        }
        free(prefix);
    }
    EXPECT_EQ((int) min_ok, refused);

    // the file reader too, at every 17th length
    const char * cut = tmp_path("cut.gguf");
    for (size_t len = 0; len < min_ok; len += 17) {
        ASSERT_TRUE(write_all(cut, file, len));
        struct ggml_context * gctx = (struct ggml_context *) (uintptr_t) 1;
        log_start();
        struct gguf_context * r = gguf_init_from_file(cut, (struct gguf_init_params) { false, &gctx });
        log_stop();
        EXPECT_EQ(NULL, r);
        EXPECT_EQ(NULL, gctx);
        EXPECT_NE(NULL, strstr(log_buf, "cut.gguf")) TH_LOG("%s", log_buf);
        gguf_free(r);
    }
    free(file);
    free_model(&m);
    EXPECT_EQ(0, leaks());
}

TEST(bad_header) {
    struct fb b = { 0 };

    fb_put(&b, "GGUX", 4);
    fb_u32(&b, 3);
    fb_u64(&b, 0);
    fb_u64(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "bad magic 'GGUX'"));
    EXPECT_TRUE(rejected_with(&b, "too short for the GGUF magic"));
    fb_put(&b, "GGU", 3);
    EXPECT_TRUE(rejected_with(&b, "too short for the GGUF magic"));

    static const uint32_t bad_versions[] = { 0, 1, 4, 0x03000000, 0xffffffff };
    static const char * const why[] = { "unsupported version 0", "version 1 files", "unsupported version 4",
                                        "big-endian", "unsupported version 4294967295" };
    for (int i = 0; i < 5; i++) {
        fb_put(&b, "GGUF", 4);
        fb_u32(&b, bad_versions[i]);
        fb_u64(&b, 0);
        fb_u64(&b, 0);
        EXPECT_TRUE(rejected_with(&b, why[i]));
    }
    fb_put(&b, "GGUF", 4);
    fb_u32(&b, 2); // version 2 is read
    fb_u64(&b, 0);
    fb_u64(&b, 0);
    EXPECT_TRUE(accepted(&b));

    fb_put(&b, "GGUF", 4);
    fb_u32(&b, 3);
    fb_u64(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "ends in the key/value count"));
    fb_put(&b, "GGUF", 4);
    fb_u32(&b, 3);
    fb_u32(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "ends in the tensor count"));

    // counts: negative, huge, and just more than the rest of the file holds
    fb_header(&b, -1, 0);
    EXPECT_TRUE(rejected_with(&b, "tensor count -1 is negative"));
    fb_header(&b, INT64_MAX, 0);
    EXPECT_TRUE(rejected_with(&b, "tensor count 9223372036854775807 is more than"));
    fb_header(&b, 0, INT64_MIN);
    EXPECT_TRUE(rejected_with(&b, "is negative"));
    fb_header(&b, 0, INT64_MAX);
    EXPECT_TRUE(rejected_with(&b, "key/value count 9223372036854775807 is more than"));
    fb_header(&b, 0, 2);
    fb_zeros(&b, 27); // two pairs need at least 28 bytes
    EXPECT_TRUE(rejected_with(&b, "key/value count 2 is more than"));
    fb_header(&b, 1, 1);
    fb_zeros(&b, 37); // 24 + 14 needed
    EXPECT_TRUE(rejected_with(&b, "1 tensors and 1 key/value pairs need more"));
    EXPECT_EQ(0, leaks());
}

// One key/value pair: key, type, then the raw value bytes.
static void kv_head(struct fb * b, int64_t n_kv, const char * key, int32_t type) {
    fb_header(b, 0, n_kv);
    fb_str(b, key);
    fb_u32(b, (uint32_t) type);
}

TEST(bad_key_values) {
    struct fb b = { 0 };

    // key lengths
    fb_header(&b, 0, 1);
    fb_u64(&b, UINT64_MAX);
    fb_zeros(&b, 16);
    EXPECT_TRUE(rejected_with(&b, "length 18446744073709551615 of key 0"));
    fb_header(&b, 0, 1);
    fb_u64(&b, 7);
    fb_put(&b, "abcdef", 6);
    EXPECT_TRUE(rejected_with(&b, "length 7 of key 0"));
    fb_header(&b, 0, 1);
    fb_u64(&b, (1ull << 30) + 1);
    fb_zeros(&b, 16);
    EXPECT_TRUE(rejected_with(&b, "exceeds the"));
    kv_head(&b, 1, "", GGUF_TYPE_UINT8);
    fb_zeros(&b, 2);
    EXPECT_TRUE(rejected_with(&b, "key 0 is empty"));
    fb_header(&b, 0, 1);
    fb_u64(&b, 3);
    fb_put(&b, "a\0b", 3);
    fb_u32(&b, GGUF_TYPE_UINT8);
    fb_zeros(&b, 1);
    EXPECT_TRUE(rejected_with(&b, "contains a NUL byte"));

    // duplicate keys (the second one)
    fb_header(&b, 0, 3);
    fb_str(&b, "k");
    fb_u32(&b, GGUF_TYPE_UINT8);
    fb_zeros(&b, 1);
    fb_str(&b, "j");
    fb_u32(&b, GGUF_TYPE_UINT8);
    fb_zeros(&b, 1);
    fb_str(&b, "k");
    fb_u32(&b, GGUF_TYPE_UINT8);
    fb_zeros(&b, 1);
    EXPECT_TRUE(rejected_with(&b, "key 2 'k' is a duplicate"));

    // types
    kv_head(&b, 1, "k", GGUF_TYPE_COUNT);
    fb_zeros(&b, 8);
    EXPECT_TRUE(rejected_with(&b, "key 0 'k': invalid value type 13"));
    kv_head(&b, 1, "k", -1);
    fb_zeros(&b, 8);
    EXPECT_TRUE(rejected_with(&b, "invalid value type -1"));
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_ARRAY);
    fb_u64(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "invalid array element type 9"));
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, 77);
    fb_u64(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "invalid array element type 77"));
    kv_head(&b, 1, "k", GGUF_TYPE_UINT64);
    fb_zeros(&b, 7);
    EXPECT_TRUE(rejected_with(&b, "key 0 'k': 1 values of type u64 need more bytes"));

    // array counts: huge, over the cap, more than the file holds
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_UINT32);
    fb_u64(&b, UINT64_MAX);
    EXPECT_TRUE(rejected_with(&b, "array of 18446744073709551615 elements exceeds the limit"));
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_UINT8);
    fb_u64(&b, (1ull << 30) + 1);
    EXPECT_TRUE(rejected_with(&b, "exceeds the limit"));
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_INT64);
    fb_u64(&b, 3);
    fb_zeros(&b, 23);
    EXPECT_TRUE(rejected_with(&b, "3 values of type i64 need more bytes"));
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_STRING);
    fb_u64(&b, 1u << 29);
    fb_zeros(&b, 64);
    EXPECT_TRUE(rejected_with(&b, "536870912 strings do not fit"));

    // strings inside: huge length, past the end, cut in the middle
    kv_head(&b, 1, "k", GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_STRING);
    fb_u64(&b, 2);
    fb_str(&b, "ok");
    fb_u64(&b, 1ull << 40);
    fb_zeros(&b, 8);
    EXPECT_TRUE(rejected_with(&b, "length 1099511627776 of string 1 of key 'k'"));
    kv_head(&b, 1, "k", GGUF_TYPE_STRING);
    fb_u64(&b, 9);
    fb_put(&b, "12345678", 8);
    EXPECT_TRUE(rejected_with(&b, "length 9 of string 0 of key 'k'"));
    kv_head(&b, 1, "k", GGUF_TYPE_STRING);
    fb_u32(&b, 1);
    EXPECT_TRUE(rejected_with(&b, "key 0 'k': 1 strings do not fit"));
    EXPECT_EQ(0, leaks());
}

TEST(bad_alignment_key) {
    struct fb b = { 0 };

    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT64);
    fb_u64(&b, 32);
    EXPECT_TRUE(rejected_with(&b, "must be a single u32, it is u64"));
    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_STRING);
    fb_str(&b, "32");
    EXPECT_TRUE(rejected_with(&b, "it is str"));
    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_ARRAY);
    fb_u32(&b, GGUF_TYPE_UINT32);
    fb_u64(&b, 1);
    fb_u32(&b, 32);
    EXPECT_TRUE(rejected_with(&b, "it is an array of u32"));
    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT32);
    fb_u32(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "is 0, not a power of two"));
    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT32);
    fb_u32(&b, 96);
    EXPECT_TRUE(rejected_with(&b, "is 96, not a power of two"));
    kv_head(&b, 1, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT32);
    fb_u32(&b, 1u << 31);
    EXPECT_TRUE(accepted(&b)); // no tensors: nothing to align

    // with a tensor, the aligned data section is past the end of the file
    fb_header(&b, 1, 1);
    fb_str(&b, GGUF_KEY_GENERAL_ALIGNMENT);
    fb_u32(&b, GGUF_TYPE_UINT32);
    fb_u32(&b, 1u << 31);
    fb_tensor(&b, "t", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0);
    fb_zeros(&b, 4);
    EXPECT_TRUE(rejected_with(&b, "starts past the end of the file"));
    EXPECT_EQ(0, leaks());
}

// A file with one tensor "t" described by the arguments, data present.
static void one_tensor(struct fb * b, const char * name, uint32_t n_dims, const int64_t * ne, int32_t type,
                       uint64_t offset, size_t data) {
    fb_header(b, 1, 0);
    fb_tensor(b, name, n_dims, ne, type, offset);
    fb_pad(b, 32);
    fb_zeros(b, data);
}

TEST(bad_tensor_infos) {
    struct fb b = { 0 };
    char name[80];

    // names
    memset(name, 'n', sizeof(name));
    name[63] = '\0';
    one_tensor(&b, name, 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(accepted(&b)); // 63 bytes fit
    name[63] = 'n';
    name[64] = '\0';
    one_tensor(&b, name, 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "tensor 0: name of 64 bytes, the limit is 63"));
    fb_header(&b, 1, 0);
    fb_u64(&b, 3);
    fb_put(&b, "a\0b", 3);
    fb_u32(&b, 1);
    fb_u64(&b, 4);
    fb_u32(&b, GGML_TYPE_I8);
    fb_u64(&b, 0);
    fb_pad(&b, 32);
    fb_zeros(&b, 4);
    EXPECT_TRUE(rejected_with(&b, "name 'a' contains a NUL byte"));
    fb_header(&b, 1, 0);
    fb_u64(&b, UINT64_MAX);
    fb_zeros(&b, 32);
    EXPECT_TRUE(rejected_with(&b, "length 18446744073709551615 of tensor name 0"));

    // duplicate names (offsets valid)
    fb_header(&b, 3, 0);
    fb_tensor(&b, "x", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0);
    fb_tensor(&b, "y", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 32);
    fb_tensor(&b, "x", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 64);
    fb_pad(&b, 32);
    fb_zeros(&b, 96);
    EXPECT_TRUE(rejected_with(&b, "tensor 2: name 'x' is a duplicate"));

    // shapes
    one_tensor(&b, "t", 5, (int64_t[]) { 1, 1, 1, 1, 1 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "n_dims 5 exceeds GGML_MAX_DIMS"));
    one_tensor(&b, "t", 2, (int64_t[]) { 4, -1 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "ne[1] = -1 is negative"));
    one_tensor(&b, "t", 4, (int64_t[]) { 1 << 20, 1 << 20, 1 << 20, 1 << 20 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "overflows its element count or byte size"));
    one_tensor(&b, "t", 1, (int64_t[]) { INT64_MAX / 2 + 1 }, GGML_TYPE_F32, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "overflows"));
    one_tensor(&b, "t", 2, (int64_t[]) { INT64_MAX, 2 }, GGML_TYPE_I8, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "overflows"));
    // no elements, but sizes before the 0 that overflow the strides
    one_tensor(&b, "t", 3, (int64_t[]) { 1ll << 40, 1ll << 40, 0 }, GGML_TYPE_F32, 0, 4);
    EXPECT_TRUE(rejected_with(&b, "overflows"));
    one_tensor(&b, "t", 2, (int64_t[]) { 0, 1ll << 40 }, GGML_TYPE_F32, 0, 0);
    EXPECT_TRUE(accepted(&b)); // an empty tensor is fine
    fb_header(&b, 1, 0);
    fb_str(&b, "t");
    fb_u32(&b, 2);
    fb_u64(&b, 4);
    fb_zeros(&b, 3); // the 24 bytes a tensor info takes at least
    EXPECT_TRUE(rejected_with(&b, "ends in ne[1] of tensor 't'"));

    // types
    one_tensor(&b, "t", 1, (int64_t[]) { 32 }, -1, 0, 64);
    EXPECT_TRUE(rejected_with(&b, "tensor 't': invalid ggml_type -1"));
    one_tensor(&b, "t", 1, (int64_t[]) { 32 }, GGML_TYPE_COUNT, 0, 64);
    EXPECT_TRUE(rejected_with(&b, "invalid ggml_type 43"));
    one_tensor(&b, "t", 1, (int64_t[]) { 32 }, 4, 0, 64); // a removed type
    EXPECT_TRUE(rejected_with(&b, "invalid ggml_type 4"));
    one_tensor(&b, "t", 1, (int64_t[]) { 31 }, GGML_TYPE_Q4_0, 0, 64);
    EXPECT_TRUE(rejected_with(&b, "ne[0] = 31 is not a multiple of the q4_0 block size 32"));
    one_tensor(&b, "t", 2, (int64_t[]) { 256, 3 }, GGML_TYPE_Q4_K, 0, 3 * 144);
    EXPECT_TRUE(accepted(&b));
    EXPECT_EQ(0, leaks());
}

TEST(bad_tensor_data) {
    struct fb b = { 0 };

    // offsets: misaligned, overlapping, leaving a gap, not starting at 0
    fb_header(&b, 2, 0);
    fb_tensor(&b, "a", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0);
    fb_tensor(&b, "b", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 4);
    fb_pad(&b, 32);
    fb_zeros(&b, 64);
    EXPECT_TRUE(rejected_with(&b, "tensor 'b': data offset 4 is not a multiple of the alignment 32"));
    fb_header(&b, 2, 0);
    fb_tensor(&b, "a", 1, (int64_t[]) { 40 }, GGML_TYPE_I8, 0);
    fb_tensor(&b, "b", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 32);
    fb_pad(&b, 32);
    fb_zeros(&b, 128);
    EXPECT_TRUE(rejected_with(&b, "data offset 32 overlaps earlier data: it must be 64"));
    fb_header(&b, 2, 0);
    fb_tensor(&b, "a", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 0);
    fb_tensor(&b, "b", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 64);
    fb_pad(&b, 32);
    fb_zeros(&b, 128);
    EXPECT_TRUE(rejected_with(&b, "data offset 64 leaves a gap: it must be 32"));
    one_tensor(&b, "t", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, 32, 64);
    EXPECT_TRUE(rejected_with(&b, "leaves a gap"));
    one_tensor(&b, "t", 1, (int64_t[]) { 4 }, GGML_TYPE_I8, UINT64_MAX - 31, 64);
    EXPECT_TRUE(rejected_with(&b, "data offset 18446744073709551584 leaves a gap"));

    // offsets that are each right but whose sum overflows 64 bits
    fb_header(&b, 4, 0);
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof(name), "t%d", i & 7);
        fb_tensor(&b, name, 1, (int64_t[]) { 1ll << 62 }, GGML_TYPE_I8, (uint64_t) i << 62);
    }
    fb_pad(&b, 32);
    EXPECT_TRUE(rejected_with(&b, "tensor 't3': data section size overflows"));

    // data past the end of the file, by one byte, and by far
    one_tensor(&b, "t", 1, (int64_t[]) { 33 }, GGML_TYPE_I8, 0, 32);
    EXPECT_TRUE(rejected_with(&b, "tensor 't': data [0, 33) ends past the end of the file"));
    one_tensor(&b, "t", 2, (int64_t[]) { 1 << 30, 1 << 30 }, GGML_TYPE_F32, 0, 32);
    EXPECT_TRUE(rejected_with(&b, "ends past the end of the file"));
    // the data section start itself past the end (no room for padding)
    fb_header(&b, 1, 0);
    fb_tensor(&b, "t", 1, (int64_t[]) { 0 }, GGML_TYPE_I8, 0);
    EXPECT_TRUE(rejected_with(&b, "starts past the end of the file"));
    // the data offset cut short
    fb_header(&b, 1, 0);
    fb_str(&b, "t");
    fb_u32(&b, 1);
    fb_u64(&b, 4);
    fb_u32(&b, GGML_TYPE_I8);
    fb_u32(&b, 0);
    EXPECT_TRUE(rejected_with(&b, "ends in the data offset of tensor 't'"));

    // the last tensor's padding may be missing
    one_tensor(&b, "t", 1, (int64_t[]) { 33 }, GGML_TYPE_I8, 0, 33);
    EXPECT_TRUE(accepted(&b));
    EXPECT_EQ(0, leaks());
}

// n keys k0.. (the last one "k0" again when dup) and n empty tensors.
static void many(struct fb * b, int n, bool dup) {
    char key[32];
    fb_header(b, n, n);
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "k%d", dup && i == n - 1 ? 0 : i);
        fb_str(b, key);
        fb_u32(b, GGUF_TYPE_UINT8);
        fb_zeros(b, 1);
    }
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "t%d", i);
        fb_tensor(b, key, 1, (int64_t[]) { 0 }, GGML_TYPE_F32, 0);
    }
    fb_pad(b, 32);
}

// Many keys and tensors: duplicates are found in linear time (a quadratic
// search would take minutes here under ASan).
TEST(many_keys_and_tensors) {
    enum { N = 50000 };
    struct fb b = { 0 };
    many(&b, N, false);
    struct ggml_context * gctx = NULL;
    struct gguf_context * ctx = gguf_init_from_buffer(b.d, b.n, (struct gguf_init_params) { true, &gctx });
    ASSERT_NE(NULL, ctx);
    EXPECT_EQ(N, gguf_get_n_kv(ctx));
    EXPECT_EQ(N, gguf_get_n_tensors(ctx));
    EXPECT_EQ(N - 1, gguf_find_tensor(ctx, "t49999"));
    gguf_free(ctx);
    ggml_free(gctx);
    free(b.d);
    memset(&b, 0, sizeof(b));

    many(&b, N, true);
    EXPECT_TRUE(rejected_with(&b, "key 49999 'k0' is a duplicate"));
    EXPECT_EQ(0, leaks());
}

// Files the fuzzer found wrong once (tests/fuzz/gguf/regress/): read in
// every mode without a sanitizer report.
TEST(fuzz_regressions) {
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", __FILE__);
    char * slash = strrchr(dir, '/');
    ASSERT_NE(NULL, slash);
    snprintf(slash, sizeof(dir) - (size_t) (slash - dir), "/../fuzz/gguf/regress");
    DIR * d = opendir(dir);
    ASSERT_NE(NULL, d) TH_LOG("cannot open %s (run from the source tree)", dir);
    int n = 0;
    struct dirent * e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t size;
        uint8_t * data = read_all(path, &size);
        ASSERT_NE(NULL, data) TH_LOG("%s", path);
        for (int mode = 0; mode < 3; mode++) {
            struct ggml_context * gctx = NULL;
            struct gguf_init_params p = { .no_alloc = mode == 1, .ctx = mode == 2 ? NULL : &gctx };
            log_start();
            struct gguf_context * ctx = gguf_init_from_buffer(data, size, p);
            log_stop();
            if (ctx != NULL && gguf_get_meta_size(ctx) < (64u << 20)) {
                uint8_t * meta = malloc(gguf_get_meta_size(ctx));
                gguf_get_meta_data(ctx, meta);
                log_start();
                struct gguf_context * again = gguf_init_from_buffer(meta, gguf_get_meta_size(ctx), no_ctx);
                log_stop();
                EXPECT_TRUE(again != NULL || gguf_get_n_tensors(ctx) > 0) TH_LOG("%s", path);
                gguf_free(again);
                free(meta);
            }
            gguf_free(ctx);
            ggml_free(gctx);
        }
        free(data);
        n++;
    }
    closedir(d);
    EXPECT_LT(0, n);
    TH_LOG("%d files replayed", n);
    EXPECT_EQ(0, leaks());
}

// ---------------------------------------------------------------------------
// tensors into backend buffers
// ---------------------------------------------------------------------------

// Copy: tensors created with no_alloc, allocated in the device's buffer,
// filled from the file. Zero-copy: the file mmapped and wrapped with
// ggml_backend_dev_buffer_from_host_ptr, each tensor placed on its bytes.
TEST(load_into_backend_buffers) {
    struct model m = make_model(64);
    const char * path = tmp_path("load.gguf");
    ASSERT_TRUE(gguf_write_to_file(m.ctx, path, false));

    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ASSERT_NE(NULL, dev);
    ggml_backend_t cpu = ggml_backend_dev_init(dev, NULL);
    ASSERT_NE(NULL, cpu);

    // copy into ggml_backend_alloc_ctx_tensors' buffer
    struct ggml_context * gctx = NULL;
    struct gguf_context * r = gguf_init_from_file(path, (struct gguf_init_params) { true, &gctx });
    ASSERT_NE(NULL, r);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(gctx, cpu);
    ASSERT_NE(NULL, buf);
    int fd = open(path, O_RDONLY);
    ASSERT_LE(0, fd);
    for (int64_t i = 0; i < gguf_get_n_tensors(r); i++) {
        struct ggml_tensor * t = ggml_get_tensor(gctx, gguf_get_tensor_name(r, i));
        const size_t n = gguf_get_tensor_size(r, i);
        uint8_t * tmp = malloc(n);
        ASSERT_EQ((ssize_t) n, pread(fd, tmp, n, (off_t) (gguf_get_data_offset(r) + gguf_get_tensor_offset(r, i))));
        ggml_backend_tensor_set(t, tmp, 0, n);
        free(tmp);
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(r); i++) {
        const struct ggml_tensor * src = ggml_get_tensor(m.g, gguf_get_tensor_name(r, i));
        struct ggml_tensor * t = ggml_get_tensor(gctx, src->name);
        EXPECT_EQ(buf, t->buffer);
        uint8_t * back = malloc(ggml_nbytes(t));
        ggml_backend_tensor_get(t, back, 0, ggml_nbytes(t));
        EXPECT_EQ(0, memcmp(src->data, back, ggml_nbytes(t))) TH_LOG("%s", src->name);
        free(back);
    }
    ggml_backend_buffer_free(buf);
    ggml_free(gctx);
    gguf_free(r);

    // zero-copy: the device wraps the mapping
    struct ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);
    ASSERT_TRUE(props.caps.buffer_from_host_ptr);
    r = gguf_init_from_file(path, (struct gguf_init_params) { true, &gctx });
    ASSERT_NE(NULL, r);
    struct stat st;
    ASSERT_EQ(0, fstat(fd, &st));
    void * map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    ASSERT_NE(MAP_FAILED, map);
    size_t max_tensor = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(r); i++) {
        if (gguf_get_tensor_size(r, i) > max_tensor) {
            max_tensor = gguf_get_tensor_size(r, i);
        }
    }
    buf = ggml_backend_dev_buffer_from_host_ptr(dev, map, (size_t) st.st_size, max_tensor);
    ASSERT_NE(NULL, buf);
    for (int64_t i = 0; i < gguf_get_n_tensors(r); i++) {
        struct ggml_tensor * t = ggml_get_tensor(gctx, gguf_get_tensor_name(r, i));
        char * at = (char *) map + gguf_get_data_offset(r) + gguf_get_tensor_offset(r, i);
        ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t, at));
        EXPECT_EQ(at, (char *) t->data); // no copy
        const struct ggml_tensor * src = ggml_get_tensor(m.g, t->name);
        EXPECT_EQ(0, memcmp(src->data, t->data, ggml_nbytes(t)));
    }
    // and it computes: the f32 tensor plus itself on the CPU backend
    struct ggml_init_params ip = { .mem_size = ggml_tensor_overhead() * 4 + ggml_graph_overhead(),
                                   .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * cg = ggml_init(ip);
    struct ggml_tensor * w = ggml_get_tensor(gctx, "blk.0.f32");
    struct ggml_tensor * sum = ggml_add(cg, w, w);
    struct ggml_cgraph * gf = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, sum);
    ggml_backend_buffer_t out = ggml_backend_alloc_ctx_tensors(cg, cpu);
    ASSERT_NE(NULL, out);
    ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(cpu, gf));
    const int64_t n = ggml_nelements(w);
    ASSERT_LE(2, n);
    float got[16];
    ASSERT_GE(16, n);
    ggml_backend_tensor_get(sum, got, 0, (size_t) n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        EXPECT_EQ(2.0f * ((float *) w->data)[i], got[i]);
    }
    ggml_backend_buffer_free(out);
    ggml_free(cg);

    ggml_backend_buffer_free(buf);
    munmap(map, (size_t) st.st_size);
    close(fd);
    ggml_free(gctx);
    gguf_free(r);
    ggml_backend_free(cpu);
    free_model(&m);
    EXPECT_EQ(0, leaks());
}

TEST_HARNESS_MAIN
