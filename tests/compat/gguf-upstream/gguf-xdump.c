// SPDX-License-Identifier: MIT
//
// gguf-xdump: prints everything a GGUF file holds, as read through gguf.h
// (version, alignment, data offset, each key with its type and values in
// full, each tensor's name, type, shape, offset, size and data checksum),
// one item per line. Built against upstream ggml and against
// libggml-backend, the two outputs for one file must be identical. See
// run.sh.
//
//   gguf-xdump FILE

#include "ggml.h"
#include "gguf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void hex(const void * p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        printf("%02x", ((const unsigned char *) p)[i]);
    }
}

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gguf-xdump FILE\n");
        return 2;
    }
    static const size_t esize[GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
    struct ggml_context * g = NULL;
    struct gguf_init_params p = { false, &g };
    struct gguf_context * ctx = gguf_init_from_file(argv[1], p);
    if (ctx == NULL) {
        printf("refused\n");
        return 1;
    }
    printf("version %u alignment %zu data_offset %zu n_kv %" PRId64 " n_tensors %" PRId64 " meta_size %zu\n",
           (unsigned) gguf_get_version(ctx), gguf_get_alignment(ctx), gguf_get_data_offset(ctx),
           gguf_get_n_kv(ctx), gguf_get_n_tensors(ctx), gguf_get_meta_size(ctx));
    for (int64_t i = 0; i < gguf_get_n_kv(ctx); i++) {
        enum gguf_type t = gguf_get_kv_type(ctx, i);
        printf("kv %" PRId64 " %s %s", i, gguf_get_key(ctx, i), gguf_type_name(t));
        if (t == GGUF_TYPE_ARRAY) {
            enum gguf_type et = gguf_get_arr_type(ctx, i);
            size_t n = gguf_get_arr_n(ctx, i);
            printf(" of %s n=%zu:", gguf_type_name(et), n);
            for (size_t j = 0; j < n; j++) {
                if (et == GGUF_TYPE_STRING) {
                    printf(" \"%s\"", gguf_get_arr_str(ctx, i, j));
                } else {
                    printf(" ");
                    hex((const char *) gguf_get_arr_data(ctx, i) + j * esize[et], esize[et]);
                }
            }
        } else if (t == GGUF_TYPE_STRING) {
            printf(" \"%s\"", gguf_get_val_str(ctx, i));
        } else {
            printf(" ");
            hex(gguf_get_val_data(ctx, i), esize[t]);
            switch (t) {
            case GGUF_TYPE_UINT8:   printf(" = %u", gguf_get_val_u8(ctx, i)); break;
            case GGUF_TYPE_INT8:    printf(" = %d", gguf_get_val_i8(ctx, i)); break;
            case GGUF_TYPE_UINT16:  printf(" = %u", gguf_get_val_u16(ctx, i)); break;
            case GGUF_TYPE_INT16:   printf(" = %d", gguf_get_val_i16(ctx, i)); break;
            case GGUF_TYPE_UINT32:  printf(" = %" PRIu32, gguf_get_val_u32(ctx, i)); break;
            case GGUF_TYPE_INT32:   printf(" = %" PRId32, gguf_get_val_i32(ctx, i)); break;
            case GGUF_TYPE_FLOAT32: printf(" = %.9g", (double) gguf_get_val_f32(ctx, i)); break;
            case GGUF_TYPE_UINT64:  printf(" = %" PRIu64, gguf_get_val_u64(ctx, i)); break;
            case GGUF_TYPE_INT64:   printf(" = %" PRId64, gguf_get_val_i64(ctx, i)); break;
            case GGUF_TYPE_FLOAT64: printf(" = %.17g", gguf_get_val_f64(ctx, i)); break;
            case GGUF_TYPE_BOOL:    printf(" = %d", gguf_get_val_bool(ctx, i)); break;
            default: break;
            }
        }
        printf("\n");
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        const char * name = gguf_get_tensor_name(ctx, i);
        const int64_t * ne = gguf_get_tensor_ne(ctx, i);
        struct ggml_tensor * t = ggml_get_tensor(g, name);
        uint32_t h = 2166136261u;
        for (size_t b = 0; t != NULL && b < ggml_nbytes(t); b++) {
            h = (h ^ ((const unsigned char *) t->data)[b]) * 16777619u;
        }
        printf("tensor %" PRId64 " %s type %d ne %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
               " offset %zu size %zu fnv1a %08x\n", i, name, (int) gguf_get_tensor_type(ctx, i),
               ne[0], ne[1], ne[2], ne[3], gguf_get_tensor_offset(ctx, i), gguf_get_tensor_size(ctx, i),
               (unsigned) h);
    }
    gguf_free(ctx);
    ggml_free(g);
    return 0;
}
