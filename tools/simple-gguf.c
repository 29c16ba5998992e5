// SPDX-License-Identifier: MIT
//
// simple-gguf: a GGUF model file's tensors in a backend's buffer.
//
// It reads the file's metadata and tensor infos (gguf_init_from_file with
// no_alloc: the tensors are created without data), picks the best device,
// and puts the tensor data in that device's memory:
//   - zero-copy when the device can wrap host memory
//     (caps.buffer_from_host_ptr): the file is mmapped read-only, the mapping
//     wrapped with ggml_backend_dev_buffer_from_host_ptr(), and each tensor
//     placed on its own bytes with ggml_backend_tensor_alloc();
//   - otherwise (or with -c) by copy: ggml_backend_alloc_ctx_tensors() makes
//     one buffer for all tensors and each is filled from the file with
//     ggml_backend_tensor_set().
// Then it reads every tensor back through the backend and prints a checksum.
//
//   build/tools/simple-gguf -w model.gguf    write a small example model first
//   build/tools/simple-gguf [-c] model.gguf
//
// See Documentation/gguf.rst.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "gguf.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const char * msg) {
    fprintf(stderr, "simple-gguf: %s\n", msg);
    return 1;
}

// A small llama-flavoured model: metadata, a vocabulary, and weights of
// three types quantized from a fixed pattern.
static int write_example(const char * path) {
    static const char * vocab[] = { "<s>", "</s>", "hello", "world" };
    struct ggml_init_params ip = { .mem_size = 1 << 20, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * g = ggml_init(ip);
    struct gguf_context * ctx = gguf_init_empty();

    gguf_set_val_str(ctx, "general.architecture", "llama");
    gguf_set_val_str(ctx, "general.name", "simple-gguf example");
    gguf_set_val_u32(ctx, "llama.embedding_length", 256);
    gguf_set_val_f32(ctx, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gguf_set_arr_str(ctx, "tokenizer.ggml.tokens", vocab, 4);

    static const struct { const char * name; enum ggml_type type; int64_t ne0, ne1; } ws[] = {
        { "token_embd.weight",  GGML_TYPE_F32,  256, 4 },
        { "blk.0.attn_q.weight", GGML_TYPE_Q8_0, 256, 256 },
        { "blk.0.ffn_up.weight", GGML_TYPE_Q4_K, 256, 512 },
    };
    float * src = malloc(sizeof(float) * 256 * 512);
    if (src == NULL) {
        return fail("out of memory");
    }
    for (int i = 0; i < 256 * 512; i++) {
        src[i] = (float) ((i * 37) % 101 - 50) / 64.0f;
    }
    for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(g, ws[i].type, ws[i].ne0, ws[i].ne1);
        ggml_set_name(t, ws[i].name);
        ggml_quantize_chunk(t->type, src, t->data, 0, t->ne[1], t->ne[0], NULL);
        gguf_add_tensor(ctx, t);
    }
    bool ok = gguf_write_to_file(ctx, path, false);
    printf("wrote %s: %" PRId64 " keys, %" PRId64 " tensors\n", path, gguf_get_n_kv(ctx), gguf_get_n_tensors(ctx));
    free(src);
    gguf_free(ctx);
    ggml_free(g);
    return ok ? 0 : fail("cannot write the file");
}

static void print_kv(const struct gguf_context * ctx, int64_t i) {
    const enum gguf_type type = gguf_get_kv_type(ctx, i);
    printf("  %-40s ", gguf_get_key(ctx, i));
    switch (type) {
    case GGUF_TYPE_STRING:  printf("str  \"%s\"\n", gguf_get_val_str(ctx, i)); break;
    case GGUF_TYPE_UINT32:  printf("u32  %" PRIu32 "\n", gguf_get_val_u32(ctx, i)); break;
    case GGUF_TYPE_INT32:   printf("i32  %" PRId32 "\n", gguf_get_val_i32(ctx, i)); break;
    case GGUF_TYPE_UINT64:  printf("u64  %" PRIu64 "\n", gguf_get_val_u64(ctx, i)); break;
    case GGUF_TYPE_FLOAT32: printf("f32  %g\n", (double) gguf_get_val_f32(ctx, i)); break;
    case GGUF_TYPE_BOOL:    printf("bool %s\n", gguf_get_val_bool(ctx, i) ? "true" : "false"); break;
    case GGUF_TYPE_ARRAY:
        printf("arr  %zu x %s\n", gguf_get_arr_n(ctx, i), gguf_type_name(gguf_get_arr_type(ctx, i)));
        break;
    default: printf("%s\n", gguf_type_name(type)); break;
    }
}

// Zero-copy: the mapped file wrapped by the device, tensors on their bytes.
static ggml_backend_buffer_t place_mapped(ggml_backend_dev_t dev, const struct gguf_context * ctx,
                                          struct ggml_context * tensors, void * map, size_t size) {
    size_t max_tensor = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        if (gguf_get_tensor_size(ctx, i) > max_tensor) {
            max_tensor = gguf_get_tensor_size(ctx, i);
        }
    }
    ggml_backend_buffer_t buf = ggml_backend_dev_buffer_from_host_ptr(dev, map, size, max_tensor);
    if (buf == NULL) {
        return NULL;
    }
    // the tensors get the file's alignment (32 unless general.alignment
    // says otherwise), not the one the device's allocator would give
    if (gguf_get_alignment(ctx) % ggml_backend_buffer_get_alignment(buf) != 0) {
        printf("note: the file aligns tensors to %zu bytes, %s buffers to %zu\n", gguf_get_alignment(ctx),
               ggml_backend_buffer_name(buf), ggml_backend_buffer_get_alignment(buf));
    }
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        struct ggml_tensor * t = ggml_get_tensor(tensors, gguf_get_tensor_name(ctx, i));
        char * addr = (char *) map + gguf_get_data_offset(ctx) + gguf_get_tensor_offset(ctx, i);
        if (ggml_backend_tensor_alloc(buf, t, addr) != GGML_STATUS_SUCCESS) {
            ggml_backend_buffer_free(buf);
            return NULL;
        }
    }
    return buf;
}

// Copy: one buffer of the device's type for all tensors, filled from the file.
static ggml_backend_buffer_t place_copied(ggml_backend_t backend, const struct gguf_context * ctx,
                                          struct ggml_context * tensors, int fd) {
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(tensors, backend);
    if (buf == NULL) {
        return NULL;
    }
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    const size_t chunk = 1 << 20;
    char * bounce = malloc(chunk);
    for (int64_t i = 0; bounce != NULL && i < gguf_get_n_tensors(ctx); i++) {
        struct ggml_tensor * t = ggml_get_tensor(tensors, gguf_get_tensor_name(ctx, i));
        const off_t at = (off_t) (gguf_get_data_offset(ctx) + gguf_get_tensor_offset(ctx, i));
        const size_t n = gguf_get_tensor_size(ctx, i);
        for (size_t off = 0; off < n; off += chunk) {
            const size_t k = n - off < chunk ? n - off : chunk;
            if (pread(fd, bounce, k, at + (off_t) off) != (ssize_t) k) {
                free(bounce);
                ggml_backend_buffer_free(buf);
                return NULL;
            }
            ggml_backend_tensor_set(t, bounce, off, k);
        }
    }
    free(bounce);
    return buf;
}

int main(int argc, char ** argv) {
    bool copy = false;
    int opt;
    while ((opt = getopt(argc, argv, "cw")) != -1) {
        if (opt == 'c') {
            copy = true;
        } else if (opt == 'w') {
            if (optind >= argc) {
                break;
            }
            return write_example(argv[optind]);
        } else {
            optind = argc;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: simple-gguf [-c] FILE.gguf | -w FILE.gguf\n");
        return 2;
    }
    const char * path = argv[optind];

    // metadata and tensor infos; tensors without data
    struct ggml_context * tensors = NULL;
    struct gguf_context * ctx = gguf_init_from_file(path, (struct gguf_init_params) { .no_alloc = true, .ctx = &tensors });
    if (ctx == NULL) {
        return fail("not a valid GGUF file (the log says why)");
    }
    printf("%s: GGUF v%" PRIu32 ", %" PRId64 " keys, %" PRId64 " tensors, data at %zu, aligned to %zu\n", path,
           gguf_get_version(ctx), gguf_get_n_kv(ctx), gguf_get_n_tensors(ctx), gguf_get_data_offset(ctx),
           gguf_get_alignment(ctx));
    for (int64_t i = 0; i < gguf_get_n_kv(ctx); i++) {
        print_kv(ctx, i);
    }

    ggml_backend_load_all();
    ggml_backend_t backend = ggml_backend_init_best();
    if (backend == NULL) {
        return fail("no backend");
    }
    ggml_backend_dev_t dev = ggml_backend_get_device(backend);
    struct ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);

    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        return fail("cannot open the file again");
    }
    void * map = NULL;
    ggml_backend_buffer_t buf = NULL;
    const char * how = "copied into";
    if (!copy && props.caps.buffer_from_host_ptr) {
        // shared, read-only: the device maps the page cache pages themselves
        map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED) {
            buf = place_mapped(dev, ctx, tensors, map, (size_t) st.st_size);
            how = "mapped zero-copy by";
        } else {
            map = NULL;
        }
    }
    if (buf == NULL) {
        how = "copied into";
        buf = place_copied(backend, ctx, tensors, fd);
    }
    if (buf == NULL) {
        return fail("cannot place the tensors in a buffer of the device");
    }
    printf("tensors %s %s (%s), %s buffer of %zu bytes\n", how, props.name, props.description,
           ggml_backend_buffer_name(buf), ggml_backend_buffer_get_size(buf));

    // every tensor read back through the backend
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        struct ggml_tensor * t = ggml_get_tensor(tensors, gguf_get_tensor_name(ctx, i));
        const size_t n = ggml_nbytes(t);
        uint8_t * data = malloc(n ? n : 1);
        if (data == NULL) {
            return fail("out of memory");
        }
        ggml_backend_tensor_get(t, data, 0, n);
        uint32_t sum = 2166136261u;
        for (size_t b = 0; b < n; b++) {
            sum = (sum ^ data[b]) * 16777619u;
        }
        free(data);
        printf("  %-24s %-5s [%5" PRId64 ", %5" PRId64 "] %8zu bytes  fnv1a %08" PRIx32 "%s\n", t->name,
               ggml_type_name(t->type), t->ne[0], t->ne[1], n, sum,
               map != NULL && (char *) t->data >= (char *) map && (char *) t->data < (char *) map + st.st_size
                   ? "  (in the mapping)" : "");
    }

    ggml_backend_buffer_free(buf);
    if (map != NULL) {
        munmap(map, (size_t) st.st_size);
    }
    close(fd);
    ggml_backend_free(backend);
    ggml_free(tensors);
    gguf_free(ctx);
    return 0;
}
