// SPDX-License-Identifier: MIT
//
// gguf_fuzz: libFuzzer target over the GGUF parser (make fuzz-gguf).
//
// Each input is parsed twice: from a buffer with the data section loaded
// (no_alloc false), and through the callback reader in 7-byte chunks with
// tensors created but no data (no_alloc true); both must agree. A file that
// parses is then walked through every getter, written back (metadata from
// gguf_get_meta_data, full file through gguf_write_to_file_ptr) and parsed
// again: metadata, tensor infos and tensor bytes must come back identical.
// Any difference, crash, leak or sanitizer report is a finding.

#include "ggml.h"
#include "gguf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "gguf_fuzz: %s:%d: %s\n", __FILE__, __LINE__, #x); abort(); } } while (0)

static void quiet(enum ggml_log_level level, const char * text, void * ud) {
    (void) level;
    (void) text;
    (void) ud;
}

struct src {
    const uint8_t * data;
    size_t          size;
};

static size_t read_cb(void * ud, void * out, uint64_t offset, size_t len) {
    const struct src * s = ud;
    if (offset >= s->size) {
        return 0;
    }
    size_t n = s->size - offset < len ? (size_t) (s->size - offset) : len;
    memcpy(out, s->data + offset, n);
    return n;
}

static size_t elem_size(enum gguf_type t) {
    switch (t) {
    case GGUF_TYPE_UINT8: case GGUF_TYPE_INT8: case GGUF_TYPE_BOOL: return 1;
    case GGUF_TYPE_UINT16: case GGUF_TYPE_INT16: return 2;
    case GGUF_TYPE_UINT32: case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
    case GGUF_TYPE_UINT64: case GGUF_TYPE_INT64: case GGUF_TYPE_FLOAT64: return 8;
    default: return 0;
    }
}

// Every getter on every key and tensor; returns a checksum so nothing is
// optimised away.
static uint64_t walk(const struct gguf_context * ctx) {
    uint64_t sum = gguf_get_version(ctx) + gguf_get_alignment(ctx) + gguf_get_data_offset(ctx);
    for (int64_t i = 0; i < gguf_get_n_kv(ctx); i++) {
        const char * key = gguf_get_key(ctx, i);
        CHECK(gguf_find_key(ctx, key) == i);
        enum gguf_type t = gguf_get_kv_type(ctx, i);
        CHECK(gguf_type_name(t) != NULL);
        size_t n = gguf_get_arr_n(ctx, i);
        if (t == GGUF_TYPE_ARRAY) {
            enum gguf_type et = gguf_get_arr_type(ctx, i);
            if (et == GGUF_TYPE_STRING) {
                for (size_t j = 0; j < n; j++) {
                    sum += strlen(gguf_get_arr_str(ctx, i, j));
                }
            } else {
                const uint8_t * p = gguf_get_arr_data(ctx, i);
                for (size_t j = 0; j < n * elem_size(et); j++) {
                    sum += p[j];
                }
            }
            continue;
        }
        CHECK(n == 1);
        switch (t) {
        case GGUF_TYPE_UINT8:   sum += gguf_get_val_u8(ctx, i); break;
        case GGUF_TYPE_INT8:    sum += (uint64_t) gguf_get_val_i8(ctx, i); break;
        case GGUF_TYPE_UINT16:  sum += gguf_get_val_u16(ctx, i); break;
        case GGUF_TYPE_INT16:   sum += (uint64_t) gguf_get_val_i16(ctx, i); break;
        case GGUF_TYPE_UINT32:  sum += gguf_get_val_u32(ctx, i); break;
        case GGUF_TYPE_INT32:   sum += (uint64_t) gguf_get_val_i32(ctx, i); break;
        case GGUF_TYPE_FLOAT32: sum += gguf_get_val_f32(ctx, i) == 0.0f; break;
        case GGUF_TYPE_UINT64:  sum += gguf_get_val_u64(ctx, i); break;
        case GGUF_TYPE_INT64:   sum += (uint64_t) gguf_get_val_i64(ctx, i); break;
        case GGUF_TYPE_FLOAT64: sum += gguf_get_val_f64(ctx, i) == 0.0; break;
        case GGUF_TYPE_BOOL:    sum += gguf_get_val_bool(ctx, i); break;
        case GGUF_TYPE_STRING:  sum += strlen(gguf_get_val_str(ctx, i)); break;
        default: CHECK(!"bad type");
        }
        if (t != GGUF_TYPE_STRING) {
            CHECK(gguf_get_val_data(ctx, i) != NULL);
        }
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        const char * name = gguf_get_tensor_name(ctx, i);
        CHECK(gguf_find_tensor(ctx, name) == i);
        CHECK(gguf_get_tensor_offset(ctx, i) % gguf_get_alignment(ctx) == 0);
        const int64_t * ne = gguf_get_tensor_ne(ctx, i);
        sum += (uint64_t) ne[0] + (uint64_t) ne[1] + (uint64_t) ne[2] + (uint64_t) ne[3] + gguf_get_tensor_type(ctx, i) + gguf_get_tensor_size(ctx, i);
    }
    return sum;
}

// Same pairs and tensor infos.
static void same_meta(const struct gguf_context * a, const struct gguf_context * b) {
    CHECK(gguf_get_n_kv(a) == gguf_get_n_kv(b));
    CHECK(gguf_get_n_tensors(a) == gguf_get_n_tensors(b));
    CHECK(gguf_get_alignment(a) == gguf_get_alignment(b));
    size_t ma = gguf_get_meta_size(a), mb = gguf_get_meta_size(b);
    CHECK(ma == mb);
    uint8_t * pa = malloc(ma), * pb = malloc(mb);
    CHECK(pa && pb);
    gguf_get_meta_data(a, pa);
    gguf_get_meta_data(b, pb);
    CHECK(memcmp(pa, pb, ma) == 0);
    free(pa);
    free(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    static int init;
    if (!init) {
        ggml_log_set(quiet, NULL);
        init = 1;
    }

    struct ggml_context * gctx = NULL;
    struct gguf_context * ctx = gguf_init_from_buffer(data, size,
        (struct gguf_init_params) { .no_alloc = false, .ctx = &gctx });

    struct src s = { data, size };
    struct ggml_context * gctx2 = NULL;
    struct gguf_context * ctx2 = gguf_init_from_callback(read_cb, &s, 7, size,
        (struct gguf_init_params) { .no_alloc = true, .ctx = &gctx2 });

    CHECK((ctx == NULL) == (ctx2 == NULL));
    CHECK((ctx == NULL) == (gctx == NULL));
    CHECK((ctx2 == NULL) == (gctx2 == NULL));
    if (ctx == NULL) {
        return 0;
    }
    CHECK(walk(ctx) == walk(ctx2));
    if (gguf_get_meta_size(ctx) > (64u << 20)) {
        // a huge general.alignment: the padding alone would be written
        goto out;
    }
    same_meta(ctx, ctx2);

    // the ggml contexts hold the data blob (with data) and then one tensor
    // per info, in order; the data lies in the blob
    struct ggml_tensor * first = ggml_get_first_tensor(gctx);
    CHECK(first != NULL);
    const uint8_t * blob = first->data;
    const size_t blob_size = ggml_nbytes(first);
    struct ggml_tensor * t = first;
    struct ggml_tensor * t2 = NULL;
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        const char * name = gguf_get_tensor_name(ctx, i);
        t = ggml_get_next_tensor(gctx, t);
        t2 = i == 0 ? ggml_get_first_tensor(gctx2) : ggml_get_next_tensor(gctx2, t2);
        CHECK(t != NULL && t2 != NULL && t2->data == NULL);
        CHECK(strcmp(t->name, name) == 0 && strcmp(t2->name, name) == 0);
        CHECK(ggml_nbytes(t) == gguf_get_tensor_size(ctx, i));
        CHECK(blob == NULL ? t->data == NULL && ggml_nbytes(t) == 0
                           : (const uint8_t *) t->data == blob + gguf_get_tensor_offset(ctx, i));
        CHECK(gguf_get_tensor_offset(ctx, i) + ggml_nbytes(t) <= blob_size);
        gguf_set_tensor_data(ctx, name, t->data);
    }

    // write the whole file back and parse it again
    char * out = NULL;
    size_t out_size = 0;
    FILE * f = open_memstream(&out, &out_size);
    CHECK(f != NULL);
    CHECK(gguf_write_to_file_ptr(ctx, f, false));
    CHECK(fclose(f) == 0);
    struct ggml_context * gctx3 = NULL;
    struct gguf_context * ctx3 = gguf_init_from_buffer(out, out_size,
        (struct gguf_init_params) { .no_alloc = false, .ctx = &gctx3 });
    CHECK(ctx3 != NULL);
    same_meta(ctx, ctx3);
    CHECK(gguf_get_n_tensors(ctx) == 0 || gguf_get_data_offset(ctx3) == gguf_get_meta_size(ctx));
    struct ggml_tensor * a = ggml_get_first_tensor(gctx);
    struct ggml_tensor * b = ggml_get_first_tensor(gctx3);
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        a = ggml_get_next_tensor(gctx, a);
        b = ggml_get_next_tensor(gctx3, b);
        CHECK(b != NULL && ggml_nbytes(a) == ggml_nbytes(b));
        CHECK(ggml_nbytes(a) == 0 || memcmp(a->data, b->data, ggml_nbytes(a)) == 0);
    }

    free(out);
    gguf_free(ctx3);
    ggml_free(gctx3);
out:
    gguf_free(ctx2);
    ggml_free(gctx2);
    gguf_free(ctx);
    ggml_free(gctx);
    return 0;
}
