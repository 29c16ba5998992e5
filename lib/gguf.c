/*
 * gguf.c - GGUF files: parser, in-memory model, writer (API in gguf.h).
 *
 * The parser treats the file as hostile. Every count, length, size and
 * offset read from it is checked, with overflow-checked arithmetic, against
 * what is left of the file before anything is allocated for it; memory grows
 * only with bytes actually read, so a small file cannot make the parser
 * allocate much. An error logs one line naming the field and where it is,
 * frees everything and returns NULL. See Documentation/gguf.rst.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gguf.h"

#include "ggml-backend.h"
#include "ggml-impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

// Longest string and largest array accepted from a file (as upstream).
#define GGUF_MAX_STRING_LENGTH  (UINT64_C(1) << 30)
#define GGUF_MAX_ARRAY_ELEMENTS (UINT64_C(1) << 30)

// Fewest bytes a key/value pair and a tensor info take in a file: a count
// larger than the rest of the file allows is rejected before any parsing.
//   pair:   u64 key length, a key of >= 1 byte, i32 type, a value of >= 1 byte
//   tensor: u64 name length, u32 n_dims, i32 type, u64 offset
#define GGUF_MIN_KV_BYTES     14
#define GGUF_MIN_TENSOR_BYTES 24

// Tensor data is copied through a bounce buffer of this size when written
// from a backend buffer.
#define GGUF_WRITE_CHUNK (1u << 20)

static const size_t gguf_type_sizes[GGUF_TYPE_COUNT] = {
    [GGUF_TYPE_UINT8]   = 1,
    [GGUF_TYPE_INT8]    = 1,
    [GGUF_TYPE_UINT16]  = 2,
    [GGUF_TYPE_INT16]   = 2,
    [GGUF_TYPE_UINT32]  = 4,
    [GGUF_TYPE_INT32]   = 4,
    [GGUF_TYPE_FLOAT32] = 4,
    [GGUF_TYPE_BOOL]    = 1,
    [GGUF_TYPE_STRING]  = 0, // variable
    [GGUF_TYPE_ARRAY]   = 0, // not an element type
    [GGUF_TYPE_UINT64]  = 8,
    [GGUF_TYPE_INT64]   = 8,
    [GGUF_TYPE_FLOAT64] = 8,
};

static const char * const gguf_type_names[GGUF_TYPE_COUNT] = {
    [GGUF_TYPE_UINT8]   = "u8",
    [GGUF_TYPE_INT8]    = "i8",
    [GGUF_TYPE_UINT16]  = "u16",
    [GGUF_TYPE_INT16]   = "i16",
    [GGUF_TYPE_UINT32]  = "u32",
    [GGUF_TYPE_INT32]   = "i32",
    [GGUF_TYPE_FLOAT32] = "f32",
    [GGUF_TYPE_BOOL]    = "bool",
    [GGUF_TYPE_STRING]  = "str",
    [GGUF_TYPE_ARRAY]   = "arr",
    [GGUF_TYPE_UINT64]  = "u64",
    [GGUF_TYPE_INT64]   = "i64",
    [GGUF_TYPE_FLOAT64] = "f64",
};

// A string value: len bytes (may hold NULs) and a terminating NUL.
struct gguf_str {
    size_t len;
    char * data;
};

struct gguf_kv {
    char *         key;
    enum gguf_type type;     // element type, never GGUF_TYPE_ARRAY
    bool           is_array;
    size_t         n;        // elements; 1 for a single value
    void *         data;     // n packed elements, or n struct gguf_str
};

struct gguf_tensor_info {
    struct ggml_tensor t;      // name, type, ne, nb; data/buffer when adding
    uint64_t           offset; // from the start of the data section
};

struct gguf_context {
    uint32_t version;

    struct gguf_kv * kv;
    size_t           n_kv;
    size_t           cap_kv;

    struct gguf_tensor_info * info;
    size_t                    n_info;
    size_t                    cap_info;

    size_t alignment;
    size_t offset; // data section in the file read
    size_t size;   // data section size, each tensor padded
    void * data;   // data section read (in the caller's ggml_context)
};

static bool gguf_type_valid(int32_t type) {
    return type >= 0 && type < GGUF_TYPE_COUNT;
}

static bool is_pow2(uint64_t x) {
    return x != 0 && (x & (x - 1)) == 0;
}

// x rounded up to a multiple of align (a power of two); false on overflow.
static bool pad_to(uint64_t x, uint64_t align, uint64_t * out) {
    uint64_t sum;
    if (__builtin_add_overflow(x, align - 1, &sum)) {
        return false;
    }
    *out = sum & ~(align - 1);
    return true;
}

// ---------------------------------------------------------------------------
// Little-endian encoding (the format's byte order, whatever the host's)
// ---------------------------------------------------------------------------

static uint64_t load_le(const uint8_t * p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v |= (uint64_t) p[i] << (8 * i);
    }
    return v;
}

static void store_le(uint8_t * p, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t) (v >> (8 * i));
    }
}

// Converts n elements of size bytes between file order and host order, in
// place (the same operation both ways; nothing to do on little-endian hosts).
static void swap_elements(void * data, size_t size, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint8_t * p = data;
    for (size_t i = 0; i < n; i++, p += size) {
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            uint8_t t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
    }
#else
    (void) data;
    (void) size;
    (void) n;
#endif
}

// ---------------------------------------------------------------------------
// Context basics
// ---------------------------------------------------------------------------

struct gguf_context * gguf_init_empty(void) {
    struct gguf_context * ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    ctx->version   = GGUF_VERSION;
    ctx->alignment = GGUF_DEFAULT_ALIGNMENT;
    return ctx;
}

static void kv_clear(struct gguf_kv * kv) {
    if (kv->type == GGUF_TYPE_STRING && kv->data != NULL) {
        struct gguf_str * s = kv->data;
        for (size_t i = 0; i < kv->n; i++) {
            free(s[i].data);
        }
    }
    free(kv->data);
    free(kv->key);
    memset(kv, 0, sizeof(*kv));
}

void gguf_free(struct gguf_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    for (size_t i = 0; i < ctx->n_kv; i++) {
        kv_clear(&ctx->kv[i]);
    }
    free(ctx->kv);
    free(ctx->info);
    free(ctx);
}

// Room for one more element in a growing array; false when out of memory.
static bool grow(void ** arr, size_t * cap, size_t n, size_t elem) {
    if (n < *cap) {
        return true;
    }
    size_t new_cap = *cap ? *cap * 2 : 8;
    size_t bytes;
    if (new_cap < *cap || __builtin_mul_overflow(new_cap, elem, &bytes)) {
        return false;
    }
    void * p = realloc(*arr, bytes);
    if (p == NULL) {
        return false;
    }
    *arr = p;
    *cap = new_cap;
    return true;
}

static char * dup_bytes(const char * s, size_t len) {
    char * d = malloc(len + 1);
    if (d != NULL) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

// ---------------------------------------------------------------------------
// String set (duplicate keys and tensor names, in linear time)
// ---------------------------------------------------------------------------

struct str_set {
    const char ** slots;
    size_t        mask;
    size_t        used;
};

static uint64_t str_hash(const char * s) {
    uint64_t h = UINT64_C(0xcbf29ce484222325); // FNV-1a
    for (; *s; s++) {
        h = (h ^ (uint8_t) *s) * UINT64_C(0x100000001b3);
    }
    return h;
}

static void str_set_free(struct str_set * set) {
    free(set->slots);
    memset(set, 0, sizeof(*set));
}

// Adds s (kept by pointer). Returns 1 when added, 0 when already present,
// -1 when out of memory.
static int str_set_add(struct str_set * set, const char * s) {
    if (2 * (set->used + 1) > set->mask + 1 || set->slots == NULL) {
        size_t cap = set->slots ? 2 * (set->mask + 1) : 64;
        const char ** slots = calloc(cap, sizeof(*slots));
        if (slots == NULL) {
            return -1;
        }
        for (size_t i = 0; set->slots && i <= set->mask; i++) {
            if (set->slots[i] != NULL) {
                size_t j = str_hash(set->slots[i]) & (cap - 1);
                while (slots[j] != NULL) {
                    j = (j + 1) & (cap - 1);
                }
                slots[j] = set->slots[i];
            }
        }
        free(set->slots);
        set->slots = slots;
        set->mask  = cap - 1;
    }
    size_t j = str_hash(s) & set->mask;
    while (set->slots[j] != NULL) {
        if (strcmp(set->slots[j], s) == 0) {
            return 0;
        }
        j = (j + 1) & set->mask;
    }
    set->slots[j] = s;
    set->used++;
    return 1;
}

// ---------------------------------------------------------------------------
// Reader: bounded reads through a callback
// ---------------------------------------------------------------------------

struct gguf_reader {
    gguf_reader_callback_t read;
    void *                 userdata;
    size_t                 max_chunk;
    uint64_t               pos;    // offset of the next byte, from the start of the GGUF data
    uint64_t               remain; // bytes that may still be read
    uint64_t               total;  // pos + remain at the start
    const char *           source; // for messages
};

// Reads exactly n bytes or fails (then nothing more can be read).
static bool rd_bytes(struct gguf_reader * r, void * dst, size_t n) {
    if (n > r->remain) {
        return false;
    }
    uint8_t * out = dst;
    size_t done = 0;
    while (done < n) {
        size_t chunk = n - done < r->max_chunk ? n - done : r->max_chunk;
        size_t got = r->read(r->userdata, out + done, r->pos + done, chunk);
        if (got != chunk) {
            r->remain = 0;
            return false;
        }
        done += chunk;
    }
    r->pos    += n;
    r->remain -= n;
    return true;
}

static bool rd_uint(struct gguf_reader * r, uint64_t * v, size_t n) {
    uint8_t b[8];
    if (!rd_bytes(r, b, n)) {
        return false;
    }
    *v = load_le(b, n);
    return true;
}

static bool rd_u32(struct gguf_reader * r, uint32_t * v) {
    uint64_t x;
    if (!rd_uint(r, &x, 4)) {
        return false;
    }
    *v = (uint32_t) x;
    return true;
}

static bool rd_i32(struct gguf_reader * r, int32_t * v) {
    uint32_t x;
    if (!rd_u32(r, &x)) {
        return false;
    }
    memcpy(v, &x, sizeof(*v));
    return true;
}

static bool rd_u64(struct gguf_reader * r, uint64_t * v) {
    return rd_uint(r, v, 8);
}

static bool rd_i64(struct gguf_reader * r, int64_t * v) {
    uint64_t x;
    if (!rd_u64(r, &x)) {
        return false;
    }
    memcpy(v, &x, sizeof(*v));
    return true;
}

static bool rd_seek(struct gguf_reader * r, uint64_t pos) {
    if (pos < r->pos || pos - r->pos > r->remain) {
        return false;
    }
    r->remain -= pos - r->pos;
    r->pos     = pos;
    return true;
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

// Logs one line naming the source and the bad field; returns false.
GGML_ATTRIBUTE_FORMAT(2, 3)
static bool parse_err(const struct gguf_reader * r, const char * fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    GGML_LOG_ERROR("gguf: %s: %s\n", r->source, msg);
    return false;
}

// A string's length: fits in what is left of the file and under the cap.
static bool rd_str_len(struct gguf_reader * r, uint64_t * len, const char * what, uint64_t what_idx,
                       const char * key) {
    uint64_t at = r->pos;
    if (!rd_u64(r, len)) {
        return parse_err(r, "file ends in the length of %s %" PRIu64 "%s%s%s (offset %" PRIu64 ")",
                         what, what_idx, key ? " of key '" : "", key ? key : "", key ? "'" : "", at);
    }
    if (*len > GGUF_MAX_STRING_LENGTH || *len > r->remain) {
        return parse_err(r, "length %" PRIu64 " of %s %" PRIu64 "%s%s%s (offset %" PRIu64 ") exceeds the "
                         "%" PRIu64 " bytes left in the file (limit %" PRIu64 ")",
                         *len, what, what_idx, key ? " of key '" : "", key ? key : "", key ? "'" : "", at,
                         r->remain, GGUF_MAX_STRING_LENGTH);
    }
    return true;
}

static bool rd_str(struct gguf_reader * r, struct gguf_str * s, const char * what, uint64_t what_idx,
                   const char * key) {
    uint64_t len;
    if (!rd_str_len(r, &len, what, what_idx, key)) {
        return false;
    }
    s->data = malloc((size_t) len + 1);
    if (s->data == NULL) {
        return parse_err(r, "out of memory for a %" PRIu64 "-byte string", len);
    }
    if (!rd_bytes(r, s->data, (size_t) len)) {
        free(s->data);
        s->data = NULL;
        return parse_err(r, "file ends in %s %" PRIu64 "%s%s%s", what, what_idx,
                         key ? " of key '" : "", key ? key : "", key ? "'" : "");
    }
    s->data[len] = '\0';
    s->len       = (size_t) len;
    return true;
}

// The value of pair kv (key, type, is_array and, for arrays, n already set).
static bool parse_value(struct gguf_reader * r, struct gguf_kv * kv, uint64_t idx) {
    if (kv->type == GGUF_TYPE_STRING) {
        // each string needs at least its 8-byte length
        if (kv->n > GGUF_MAX_ARRAY_ELEMENTS || kv->n > r->remain / 8) {
            return parse_err(r, "key %" PRIu64 " '%s': %zu strings do not fit in the %" PRIu64
                             " bytes left in the file", idx, kv->key, kv->n, r->remain);
        }
        struct gguf_str * s = calloc(kv->n ? kv->n : 1, sizeof(*s));
        if (s == NULL) {
            return parse_err(r, "key %" PRIu64 " '%s': out of memory for %zu strings", idx, kv->key, kv->n);
        }
        for (size_t i = 0; i < kv->n; i++) {
            if (!rd_str(r, &s[i], "string", i, kv->key)) {
                for (size_t j = 0; j < i; j++) {
                    free(s[j].data);
                }
                free(s);
                return false;
            }
        }
        kv->data = s;
        return true;
    }

    const size_t esize = gguf_type_sizes[kv->type];
    if (kv->n > GGUF_MAX_ARRAY_ELEMENTS || kv->n > r->remain / esize) {
        return parse_err(r, "key %" PRIu64 " '%s': %zu values of type %s need %s bytes, the file has %" PRIu64
                         " left", idx, kv->key, kv->n, gguf_type_names[kv->type],
                         kv->n > GGUF_MAX_ARRAY_ELEMENTS ? "too many" : "more", r->remain);
    }
    const size_t bytes = kv->n * esize;
    kv->data = malloc(bytes ? bytes : 1);
    if (kv->data == NULL) {
        return parse_err(r, "key %" PRIu64 " '%s': out of memory for %zu bytes", idx, kv->key, bytes);
    }
    if (!rd_bytes(r, kv->data, bytes)) {
        return parse_err(r, "file ends in the value of key %" PRIu64 " '%s'", idx, kv->key);
    }
    swap_elements(kv->data, esize, kv->n);
    if (kv->type == GGUF_TYPE_BOOL) {
        uint8_t * b = kv->data;
        for (size_t i = 0; i < kv->n; i++) {
            b[i] = b[i] != 0;
        }
    }
    return true;
}

static bool parse_kv(struct gguf_reader * r, struct gguf_context * ctx, uint64_t n_kv) {
    struct str_set keys = { 0 };
    bool ok = true;

    for (uint64_t i = 0; ok && i < n_kv; i++) {
        if (!grow((void **) &ctx->kv, &ctx->cap_kv, ctx->n_kv, sizeof(*ctx->kv))) {
            ok = parse_err(r, "out of memory for key/value pair %" PRIu64, i);
            break;
        }
        struct gguf_kv * kv = &ctx->kv[ctx->n_kv];
        memset(kv, 0, sizeof(*kv));

        struct gguf_str key = { 0 };
        if (!rd_str(r, &key, "key", i, NULL)) {
            ok = false;
            break;
        }
        kv->key = key.data;
        ctx->n_kv++; // owned by ctx from here: freed with it on error
        if (key.len == 0) {
            ok = parse_err(r, "key %" PRIu64 " is empty", i);
            break;
        }
        if (strlen(key.data) != key.len) {
            ok = parse_err(r, "key %" PRIu64 " '%s' contains a NUL byte", i, key.data);
            break;
        }
        int added = str_set_add(&keys, kv->key);
        if (added <= 0) {
            ok = added == 0 ? parse_err(r, "key %" PRIu64 " '%s' is a duplicate", i, kv->key)
                            : parse_err(r, "out of memory for key %" PRIu64, i);
            break;
        }

        int32_t type;
        if (!rd_i32(r, &type)) {
            ok = parse_err(r, "file ends in the type of key %" PRIu64 " '%s'", i, kv->key);
            break;
        }
        kv->n = 1;
        if (type == GGUF_TYPE_ARRAY) {
            kv->is_array = true;
            uint64_t n;
            if (!rd_i32(r, &type)) {
                ok = parse_err(r, "file ends in the element type of array key %" PRIu64 " '%s'", i, kv->key);
                break;
            }
            if (!gguf_type_valid(type) || type == GGUF_TYPE_ARRAY) {
                ok = parse_err(r, "key %" PRIu64 " '%s': invalid array element type %" PRId32, i, kv->key, type);
                break;
            }
            if (!rd_u64(r, &n)) {
                ok = parse_err(r, "file ends in the element count of array key %" PRIu64 " '%s'", i, kv->key);
                break;
            }
            if (n > GGUF_MAX_ARRAY_ELEMENTS) {
                ok = parse_err(r, "key %" PRIu64 " '%s': array of %" PRIu64 " elements exceeds the limit %" PRIu64,
                               i, kv->key, n, GGUF_MAX_ARRAY_ELEMENTS);
                break;
            }
            kv->n = (size_t) n;
        } else if (!gguf_type_valid(type)) {
            ok = parse_err(r, "key %" PRIu64 " '%s': invalid value type %" PRId32, i, kv->key, type);
            break;
        }
        kv->type = (enum gguf_type) type;
        ok = parse_value(r, kv, i);
    }
    str_set_free(&keys);
    return ok;
}

// Alignment from "general.alignment" (a u32 power of two) or the default.
static bool parse_alignment(struct gguf_reader * r, struct gguf_context * ctx) {
    int64_t id = gguf_find_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT);
    ctx->alignment = GGUF_DEFAULT_ALIGNMENT;
    if (id < 0) {
        return true;
    }
    const struct gguf_kv * kv = &ctx->kv[id];
    if (kv->is_array || kv->type != GGUF_TYPE_UINT32) {
        return parse_err(r, "key '%s' must be a single u32, it is %s%s", GGUF_KEY_GENERAL_ALIGNMENT,
                         kv->is_array ? "an array of " : "", gguf_type_names[kv->type]);
    }
    uint32_t a;
    memcpy(&a, kv->data, sizeof(a));
    if (!is_pow2(a)) {
        return parse_err(r, "key '%s' is %" PRIu32 ", not a power of two", GGUF_KEY_GENERAL_ALIGNMENT, a);
    }
    ctx->alignment = a;
    return true;
}

// Shape and type of a tensor: strides set, byte size representable.
static bool tensor_layout(struct ggml_tensor * t, size_t * nbytes) {
    const int64_t blck = ggml_blck_size(t->type);
    int64_t nel = 1;
    size_t nb;

    if (blck <= 0 || t->ne[0] % blck != 0) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->ne[i] < 0 || __builtin_mul_overflow(nel, t->ne[i], &nel)) {
            return false;
        }
    }
    if (__builtin_mul_overflow((size_t) (t->ne[0] / blck), ggml_type_size(t->type), &nb)) {
        return false;
    }
    t->nb[0] = ggml_type_size(t->type);
    t->nb[1] = nb;
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (__builtin_mul_overflow(nb, (size_t) t->ne[i], &nb)) {
            return false;
        }
        if (i + 1 < GGML_MAX_DIMS) {
            t->nb[i + 1] = nb;
        }
    }
    if (nb > (size_t) INT64_MAX) {
        return false;
    }
    *nbytes = nb;
    return true;
}

static bool parse_tensor_infos(struct gguf_reader * r, struct gguf_context * ctx, uint64_t n_tensors) {
    struct str_set names = { 0 };
    uint64_t expect = 0; // offset the next tensor's data must have
    bool ok = true;

    for (uint64_t i = 0; ok && i < n_tensors; i++) {
        if (!grow((void **) &ctx->info, &ctx->cap_info, ctx->n_info, sizeof(*ctx->info))) {
            ok = parse_err(r, "out of memory for tensor info %" PRIu64, i);
            break;
        }
        struct gguf_tensor_info * ti = &ctx->info[ctx->n_info];
        struct ggml_tensor * t = &ti->t;
        memset(ti, 0, sizeof(*ti));

        uint64_t len;
        if (!rd_str_len(r, &len, "tensor name", i, NULL)) {
            ok = false;
            break;
        }
        if (len >= GGML_MAX_NAME) {
            ok = parse_err(r, "tensor %" PRIu64 ": name of %" PRIu64 " bytes, the limit is %d",
                           i, len, GGML_MAX_NAME - 1);
            break;
        }
        if (!rd_bytes(r, t->name, (size_t) len)) {
            ok = parse_err(r, "file ends in the name of tensor %" PRIu64, i);
            break;
        }
        t->name[len] = '\0';
        if (strlen(t->name) != len) {
            ok = parse_err(r, "tensor %" PRIu64 ": name '%s' contains a NUL byte", i, t->name);
            break;
        }
        ctx->n_info++;

        uint32_t n_dims;
        if (!rd_u32(r, &n_dims)) {
            ok = parse_err(r, "file ends in n_dims of tensor '%s'", t->name);
            break;
        }
        if (n_dims > GGML_MAX_DIMS) {
            ok = parse_err(r, "tensor '%s': n_dims %" PRIu32 " exceeds GGML_MAX_DIMS (%d)",
                           t->name, n_dims, GGML_MAX_DIMS);
            break;
        }
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            t->ne[d] = 1;
        }
        for (uint32_t d = 0; ok && d < n_dims; d++) {
            if (!rd_i64(r, &t->ne[d])) {
                ok = parse_err(r, "file ends in ne[%" PRIu32 "] of tensor '%s'", d, t->name);
            } else if (t->ne[d] < 0) {
                ok = parse_err(r, "tensor '%s': ne[%" PRIu32 "] = %" PRId64 " is negative", t->name, d, t->ne[d]);
            }
        }
        if (!ok) {
            break;
        }

        int32_t type;
        if (!rd_i32(r, &type)) {
            ok = parse_err(r, "file ends in the type of tensor '%s'", t->name);
            break;
        }
        if (type < 0 || type >= GGML_TYPE_COUNT || ggml_blck_size((enum ggml_type) type) <= 0) {
            ok = parse_err(r, "tensor '%s': invalid ggml_type %" PRId32, t->name, type);
            break;
        }
        t->type = (enum ggml_type) type;
        const int64_t blck = ggml_blck_size(t->type);
        if (t->ne[0] % blck != 0) {
            ok = parse_err(r, "tensor '%s': ne[0] = %" PRId64 " is not a multiple of the %s block size %" PRId64,
                           t->name, t->ne[0], ggml_type_name(t->type), blck);
            break;
        }
        size_t nbytes;
        if (!tensor_layout(t, &nbytes)) {
            ok = parse_err(r, "tensor '%s': shape [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "] of %s "
                           "overflows its element count or byte size", t->name,
                           t->ne[0], t->ne[1], t->ne[2], t->ne[3], ggml_type_name(t->type));
            break;
        }

        if (!rd_u64(r, &ti->offset)) {
            ok = parse_err(r, "file ends in the data offset of tensor '%s'", t->name);
            break;
        }
        // the data section is the tensors in info order, each padded to the
        // alignment: one offset only is valid
        if (ti->offset % ctx->alignment != 0) {
            ok = parse_err(r, "tensor '%s': data offset %" PRIu64 " is not a multiple of the alignment %zu",
                           t->name, ti->offset, ctx->alignment);
            break;
        }
        if (ti->offset != expect) {
            ok = parse_err(r, "tensor '%s': data offset %" PRIu64 " %s: it must be %" PRIu64 " (tensors' data "
                           "follow each other in order, each padded to the alignment %zu)", t->name, ti->offset,
                           ti->offset < expect ? "overlaps earlier data" : "leaves a gap", expect, ctx->alignment);
            break;
        }
        uint64_t padded;
        if (!pad_to(nbytes, ctx->alignment, &padded) || __builtin_add_overflow(expect, padded, &expect) ||
            expect > SIZE_MAX) {
            ok = parse_err(r, "tensor '%s': data section size overflows", t->name);
            break;
        }
    }

    // duplicate names, now that ctx->info no longer moves (the set keeps
    // pointers to the names)
    for (size_t i = 0; ok && i < ctx->n_info; i++) {
        int added = str_set_add(&names, ctx->info[i].t.name);
        if (added <= 0) {
            ok = added == 0 ? parse_err(r, "tensor %zu: name '%s' is a duplicate", i, ctx->info[i].t.name)
                            : parse_err(r, "out of memory for tensor names");
        }
    }
    str_set_free(&names);
    ctx->size = (size_t) expect;
    return ok;
}

// Tensors of the file in a new ggml_context; with !no_alloc the data section
// is read into it.
static bool load_tensors(struct gguf_reader * r, struct gguf_context * ctx, struct gguf_init_params params,
                         uint64_t data_in_file) {
    const size_t overhead = ggml_tensor_overhead();
    size_t mem_size;

    if (!params.no_alloc && ctx->size > (size_t) INT64_MAX) {
        return parse_err(r, "data section of %zu bytes is too large to load", ctx->size);
    }
    if (__builtin_mul_overflow(ctx->n_info + (params.no_alloc ? 0 : 1), overhead, &mem_size) ||
        (!params.no_alloc && __builtin_add_overflow(mem_size, ctx->size, &mem_size)) ||
        __builtin_add_overflow(mem_size, GGML_MEM_ALIGN, &mem_size)) {
        return parse_err(r, "ggml_context size overflows");
    }
    struct ggml_init_params ip = {
        .mem_size   = mem_size,
        .mem_buffer = NULL,
        .no_alloc   = params.no_alloc,
    };
    struct ggml_context * gctx = ggml_init(ip);
    if (gctx == NULL) {
        return parse_err(r, "cannot create a ggml_context of %zu bytes for the tensors", mem_size);
    }

    struct ggml_tensor * blob = NULL;
    if (!params.no_alloc) {
        blob = ggml_new_tensor_1d(gctx, GGML_TYPE_I8, (int64_t) ctx->size);
        ggml_set_name(blob, "GGUF tensor data binary blob");
        if (!rd_bytes(r, blob->data, (size_t) data_in_file)) {
            ggml_free(gctx);
            return parse_err(r, "file ends in the data section (%" PRIu64 " bytes at offset %zu)",
                             data_in_file, ctx->offset);
        }
        if (blob->data != NULL) { // NULL when the data section is empty
            memset((char *) blob->data + data_in_file, 0, ctx->size - (size_t) data_in_file);
        }
        ctx->data = blob->data;
    }

    ggml_set_no_alloc(gctx, true);
    for (size_t i = 0; i < ctx->n_info; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        struct ggml_tensor * t = ggml_new_tensor(gctx, ti->t.type, GGML_MAX_DIMS, ti->t.ne);
        ggml_set_name(t, ti->t.name);
        if (blob != NULL && blob->data != NULL) {
            t->data = (char *) blob->data + ti->offset;
        }
    }
    ggml_set_no_alloc(gctx, params.no_alloc);

    *params.ctx = gctx;
    return true;
}

static struct gguf_context * gguf_parse(struct gguf_reader * r, struct gguf_init_params params) {
    if (params.ctx != NULL) {
        *params.ctx = NULL;
    }
    struct gguf_context * ctx = gguf_init_empty();
    if (ctx == NULL) {
        return NULL;
    }

    uint8_t magic[4];
    if (!rd_bytes(r, magic, sizeof(magic))) {
        parse_err(r, "file too short for the GGUF magic (%" PRIu64 " bytes)", r->total);
        goto fail;
    }
    if (memcmp(magic, GGUF_MAGIC, 4) != 0) {
        char shown[5];
        for (int i = 0; i < 4; i++) {
            shown[i] = magic[i] >= 0x20 && magic[i] < 0x7f ? (char) magic[i] : '?';
        }
        shown[4] = '\0';
        parse_err(r, "bad magic '%s' (%02x %02x %02x %02x), expected 'GGUF'", shown,
                  magic[0], magic[1], magic[2], magic[3]);
        goto fail;
    }

    if (!rd_u32(r, &ctx->version)) {
        parse_err(r, "file ends in the version");
        goto fail;
    }
    if (ctx->version != 2 && ctx->version != 3) {
        if (ctx->version == 1) {
            parse_err(r, "version 1 files are not supported (versions 2 and %d are)", GGUF_VERSION);
        } else if ((ctx->version & 0xffff) == 0 && ctx->version != 0) {
            parse_err(r, "version 0x%08" PRIx32 ": a big-endian file? (versions 2 and %d are supported)",
                      ctx->version, GGUF_VERSION);
        } else {
            parse_err(r, "unsupported version %" PRIu32 " (versions 2 and %d are supported)",
                      ctx->version, GGUF_VERSION);
        }
        goto fail;
    }

    int64_t n_tensors, n_kv;
    if (!rd_i64(r, &n_tensors)) {
        parse_err(r, "file ends in the tensor count");
        goto fail;
    }
    if (!rd_i64(r, &n_kv)) {
        parse_err(r, "file ends in the key/value count");
        goto fail;
    }
    if (n_tensors < 0 || (uint64_t) n_tensors > r->remain / GGUF_MIN_TENSOR_BYTES) {
        parse_err(r, "tensor count %" PRId64 " is %s", n_tensors, n_tensors < 0 ? "negative" :
                  "more than the rest of the file can hold");
        goto fail;
    }
    if (n_kv < 0 || (uint64_t) n_kv > r->remain / GGUF_MIN_KV_BYTES) {
        parse_err(r, "key/value count %" PRId64 " is %s", n_kv, n_kv < 0 ? "negative" :
                  "more than the rest of the file can hold");
        goto fail;
    }
    uint64_t min_bytes;
    if (__builtin_add_overflow((uint64_t) n_tensors * GGUF_MIN_TENSOR_BYTES, (uint64_t) n_kv * GGUF_MIN_KV_BYTES,
                               &min_bytes) || min_bytes > r->remain) {
        parse_err(r, "%" PRId64 " tensors and %" PRId64 " key/value pairs need more than the %" PRIu64
                  " bytes left in the file", n_tensors, n_kv, r->remain);
        goto fail;
    }

    if (!parse_kv(r, ctx, (uint64_t) n_kv) || !parse_alignment(r, ctx) ||
        !parse_tensor_infos(r, ctx, (uint64_t) n_tensors)) {
        goto fail;
    }

    // the data section starts aligned when there are tensors
    uint64_t data_start = r->pos;
    if (ctx->n_info > 0 && (!pad_to(r->pos, ctx->alignment, &data_start) || !rd_seek(r, data_start))) {
        parse_err(r, "the data section (aligned to %zu: offset %" PRIu64 ") starts past the end of the file "
                  "(%" PRIu64 " bytes)", ctx->alignment, data_start, r->total);
        goto fail;
    }
    if (data_start > SIZE_MAX) {
        parse_err(r, "data section offset %" PRIu64 " overflows", data_start);
        goto fail;
    }
    ctx->offset = (size_t) data_start;

    // the last tensor's bytes must be in the file (its padding need not be)
    uint64_t data_in_file = 0;
    if (ctx->n_info > 0) {
        const struct gguf_tensor_info * last = &ctx->info[ctx->n_info - 1];
        data_in_file = last->offset + ggml_nbytes(&last->t);
        if (data_in_file > r->remain) {
            parse_err(r, "tensor '%s': data [%" PRIu64 ", %" PRIu64 ") ends past the end of the file: "
                      "the data section starts at %zu and has %" PRIu64 " bytes", last->t.name, last->offset,
                      data_in_file, ctx->offset, r->remain);
            goto fail;
        }
    }

    if (params.ctx != NULL && !load_tensors(r, ctx, params, data_in_file)) {
        goto fail;
    }
    return ctx;

fail:
    gguf_free(ctx);
    return NULL;
}

// --- sources ---------------------------------------------------------------

static struct gguf_context * parse_from(gguf_reader_callback_t cb, void * ud, size_t max_chunk, uint64_t size,
                                        const char * source, struct gguf_init_params params) {
    struct gguf_reader r = {
        .read      = cb,
        .userdata  = ud,
        .max_chunk = max_chunk ? max_chunk : SIZE_MAX,
        .pos       = 0,
        .remain    = size,
        .total     = size,
        .source    = source,
    };
    return gguf_parse(&r, params);
}

struct gguf_context * gguf_init_from_callback(gguf_reader_callback_t callback, void * userdata,
                                              size_t max_chunk_read, uint64_t max_expected_size,
                                              struct gguf_init_params params) {
    if (callback == NULL) {
        GGML_LOG_ERROR("%s: no callback\n", __func__);
        if (params.ctx != NULL) {
            *params.ctx = NULL;
        }
        return NULL;
    }
    return parse_from(callback, userdata, max_chunk_read, max_expected_size, "callback", params);
}

struct buffer_source {
    const uint8_t * data;
    size_t          size;
};

static size_t buffer_read(void * ud, void * out, uint64_t offset, size_t len) {
    const struct buffer_source * b = ud;
    if (offset > b->size || len > b->size - offset) {
        return 0;
    }
    memcpy(out, b->data + offset, len);
    return len;
}

struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params) {
    if (data == NULL && size > 0) {
        GGML_LOG_ERROR("%s: NULL data\n", __func__);
        if (params.ctx != NULL) {
            *params.ctx = NULL;
        }
        return NULL;
    }
    struct buffer_source b = { data, size };
    return parse_from(buffer_read, &b, 0, size, "buffer", params);
}

struct file_source {
    FILE *   file;
    uint64_t base; // stream position of the GGUF data's first byte
    uint64_t pos;  // stream position now
};

static size_t file_read(void * ud, void * out, uint64_t offset, size_t len) {
    struct file_source * f = ud;
    uint64_t want;
    if (__builtin_add_overflow(f->base, offset, &want) || want > INT64_MAX) {
        return 0;
    }
    if (want != f->pos) {
        if (fseeko(f->file, (off_t) want, SEEK_SET) != 0) {
            return 0;
        }
        f->pos = want;
    }
    size_t got = fread(out, 1, len, f->file);
    f->pos += got;
    return got;
}

static struct gguf_context * from_file_ptr(FILE * file, const char * source, struct gguf_init_params params) {
    off_t cur = ftello(file);
    off_t end = -1;
    if (cur >= 0 && fseeko(file, 0, SEEK_END) == 0) {
        end = ftello(file);
    }
    if (cur < 0 || end < cur || fseeko(file, cur, SEEK_SET) != 0) {
        GGML_LOG_ERROR("gguf: %s: cannot find the file's size (not a seekable file?)\n", source);
        if (params.ctx != NULL) {
            *params.ctx = NULL;
        }
        return NULL;
    }
    struct file_source f = { file, (uint64_t) cur, (uint64_t) cur };
    return parse_from(file_read, &f, 0, (uint64_t) (end - cur), source, params);
}

struct gguf_context * gguf_init_from_file_ptr(FILE * file, struct gguf_init_params params) {
    if (file == NULL) {
        GGML_LOG_ERROR("%s: NULL file\n", __func__);
        if (params.ctx != NULL) {
            *params.ctx = NULL;
        }
        return NULL;
    }
    return from_file_ptr(file, "file", params);
}

struct gguf_context * gguf_init_from_file(const char * fname, struct gguf_init_params params) {
    FILE * file = ggml_fopen(fname, "rb");
    if (file == NULL) {
        GGML_LOG_ERROR("%s: cannot open '%s': %s\n", __func__, fname, strerror(errno));
        if (params.ctx != NULL) {
            *params.ctx = NULL;
        }
        return NULL;
    }
    struct gguf_context * ctx = from_file_ptr(file, fname, params);
    fclose(file);
    return ctx;
}

// ---------------------------------------------------------------------------
// Getters
// ---------------------------------------------------------------------------

const char * gguf_type_name(enum gguf_type type) {
    return gguf_type_valid(type) ? gguf_type_names[type] : NULL;
}

uint32_t gguf_get_version(const struct gguf_context * ctx) {
    return ctx->version;
}

size_t gguf_get_alignment(const struct gguf_context * ctx) {
    return ctx->alignment;
}

size_t gguf_get_data_offset(const struct gguf_context * ctx) {
    return ctx->offset;
}

int64_t gguf_get_n_kv(const struct gguf_context * ctx) {
    return (int64_t) ctx->n_kv;
}

int64_t gguf_find_key(const struct gguf_context * ctx, const char * key) {
    for (size_t i = 0; i < ctx->n_kv; i++) {
        if (strcmp(ctx->kv[i].key, key) == 0) {
            return (int64_t) i;
        }
    }
    return -1;
}

static const struct gguf_kv * get_kv(const struct gguf_context * ctx, int64_t key_id) {
    if (key_id < 0 || (uint64_t) key_id >= ctx->n_kv) {
        GGML_ABORT("gguf: key id %" PRId64 " out of range [0, %zu)", key_id, ctx->n_kv);
    }
    return &ctx->kv[key_id];
}

const char * gguf_get_key(const struct gguf_context * ctx, int64_t key_id) {
    return get_kv(ctx, key_id)->key;
}

enum gguf_type gguf_get_kv_type(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    return kv->is_array ? GGUF_TYPE_ARRAY : kv->type;
}

enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    if (!kv->is_array) {
        GGML_ABORT("gguf: key '%s' is not an array", kv->key);
    }
    return kv->type;
}

// A single value of the given type.
static const struct gguf_kv * get_single(const struct gguf_context * ctx, int64_t key_id, enum gguf_type type) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    if (kv->type != type || kv->n != 1) {
        GGML_ABORT("gguf: key '%s' is %s%s, not a single %s", kv->key, kv->is_array ? "an array of " : "",
                   gguf_type_names[kv->type], gguf_type_names[type]);
    }
    return kv;
}

#define GGUF_GETTER(name, ctype, gtype)                                               \
    ctype gguf_get_val_##name(const struct gguf_context * ctx, int64_t key_id) {      \
        ctype v;                                                                      \
        memcpy(&v, get_single(ctx, key_id, gtype)->data, sizeof(v));                  \
        return v;                                                                     \
    }

GGUF_GETTER(u8,  uint8_t,  GGUF_TYPE_UINT8)
GGUF_GETTER(i8,  int8_t,   GGUF_TYPE_INT8)
GGUF_GETTER(u16, uint16_t, GGUF_TYPE_UINT16)
GGUF_GETTER(i16, int16_t,  GGUF_TYPE_INT16)
GGUF_GETTER(u32, uint32_t, GGUF_TYPE_UINT32)
GGUF_GETTER(i32, int32_t,  GGUF_TYPE_INT32)
GGUF_GETTER(f32, float,    GGUF_TYPE_FLOAT32)
GGUF_GETTER(u64, uint64_t, GGUF_TYPE_UINT64)
GGUF_GETTER(i64, int64_t,  GGUF_TYPE_INT64)
GGUF_GETTER(f64, double,   GGUF_TYPE_FLOAT64)

bool gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id) {
    return *(const uint8_t *) get_single(ctx, key_id, GGUF_TYPE_BOOL)->data != 0;
}

const char * gguf_get_val_str(const struct gguf_context * ctx, int64_t key_id) {
    return ((const struct gguf_str *) get_single(ctx, key_id, GGUF_TYPE_STRING)->data)->data;
}

const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    if (kv->n != 1 || kv->type == GGUF_TYPE_STRING) {
        GGML_ABORT("gguf: key '%s' is not a single value other than a string", kv->key);
    }
    return kv->data;
}

size_t gguf_get_arr_n(const struct gguf_context * ctx, int64_t key_id) {
    return get_kv(ctx, key_id)->n;
}

const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    if (kv->type == GGUF_TYPE_STRING) {
        GGML_ABORT("gguf: key '%s' holds strings: use gguf_get_arr_str", kv->key);
    }
    return kv->data;
}

const char * gguf_get_arr_str(const struct gguf_context * ctx, int64_t key_id, size_t i) {
    const struct gguf_kv * kv = get_kv(ctx, key_id);
    if (kv->type != GGUF_TYPE_STRING) {
        GGML_ABORT("gguf: key '%s' does not hold strings", kv->key);
    }
    if (i >= kv->n) {
        GGML_ABORT("gguf: string %zu of key '%s' out of range [0, %zu)", i, kv->key, kv->n);
    }
    return ((const struct gguf_str *) kv->data)[i].data;
}

int64_t gguf_get_n_tensors(const struct gguf_context * ctx) {
    return (int64_t) ctx->n_info;
}

int64_t gguf_find_tensor(const struct gguf_context * ctx, const char * name) {
    for (size_t i = 0; i < ctx->n_info; i++) {
        if (strcmp(ctx->info[i].t.name, name) == 0) {
            return (int64_t) i;
        }
    }
    return -1;
}

static const struct gguf_tensor_info * get_info(const struct gguf_context * ctx, int64_t tensor_id) {
    if (tensor_id < 0 || (uint64_t) tensor_id >= ctx->n_info) {
        GGML_ABORT("gguf: tensor id %" PRId64 " out of range [0, %zu)", tensor_id, ctx->n_info);
    }
    return &ctx->info[tensor_id];
}

size_t gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id) {
    return (size_t) get_info(ctx, tensor_id)->offset;
}

const char * gguf_get_tensor_name(const struct gguf_context * ctx, int64_t tensor_id) {
    return get_info(ctx, tensor_id)->t.name;
}

const int64_t * gguf_get_tensor_ne(const struct gguf_context * ctx, int64_t tensor_id) {
    return get_info(ctx, tensor_id)->t.ne;
}

enum ggml_type gguf_get_tensor_type(const struct gguf_context * ctx, int64_t tensor_id) {
    return get_info(ctx, tensor_id)->t.type;
}

size_t gguf_get_tensor_size(const struct gguf_context * ctx, int64_t tensor_id) {
    return ggml_nbytes(&get_info(ctx, tensor_id)->t);
}

// ---------------------------------------------------------------------------
// Setters
// ---------------------------------------------------------------------------

static void * xmalloc(size_t n) {
    void * p = malloc(n ? n : 1);
    if (p == NULL) {
        GGML_ABORT("gguf: out of memory (%zu bytes)", n);
    }
    return p;
}

// Offsets of tensors from..n_info-1: each after the previous one, padded.
static void relayout(struct gguf_context * ctx, size_t from) {
    for (size_t i = from; i < ctx->n_info; i++) {
        uint64_t off = 0;
        if (i > 0) {
            const struct gguf_tensor_info * prev = &ctx->info[i - 1];
            uint64_t padded;
            if (!pad_to(ggml_nbytes(&prev->t), ctx->alignment, &padded) ||
                __builtin_add_overflow(prev->offset, padded, &off)) {
                GGML_ABORT("gguf: data section size overflows at tensor '%s'", ctx->info[i].t.name);
            }
        }
        ctx->info[i].offset = off;
    }
}

static void set_alignment(struct gguf_context * ctx, size_t alignment) {
    if (ctx->alignment != alignment) {
        ctx->alignment = alignment;
        relayout(ctx, 0);
    }
}

int64_t gguf_remove_key(struct gguf_context * ctx, const char * key) {
    const int64_t id = gguf_find_key(ctx, key);
    if (id < 0) {
        return -1;
    }
    const bool alignment = strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0;
    kv_clear(&ctx->kv[id]);
    memmove(&ctx->kv[id], &ctx->kv[id + 1], (ctx->n_kv - (size_t) id - 1) * sizeof(*ctx->kv));
    ctx->n_kv--;
    if (alignment) {
        set_alignment(ctx, GGUF_DEFAULT_ALIGNMENT);
    }
    return id;
}

// "general.alignment" only as a u32 power of two.
static void check_reserved(const char * key, enum gguf_type type, bool is_array, const void * val) {
    if (strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) != 0) {
        return;
    }
    if (type != GGUF_TYPE_UINT32 || is_array) {
        GGML_ABORT("gguf: %s must be a single u32", GGUF_KEY_GENERAL_ALIGNMENT);
    }
    uint32_t a;
    memcpy(&a, val, sizeof(a));
    if (!is_pow2(a)) {
        GGML_ABORT("gguf: %s must be a power of two, not %" PRIu32, GGUF_KEY_GENERAL_ALIGNMENT, a);
    }
}

// Takes ownership of data (n elements, packed or struct gguf_str): replaces
// the key's pair or appends one. key may point into ctx (copied first).
static void put_kv(struct gguf_context * ctx, const char * key, enum gguf_type type, bool is_array,
                   size_t n, void * data) {
    GGML_ASSERT(key != NULL && key[0] != '\0');
    char * k = dup_bytes(key, strlen(key));
    GGML_ASSERT(k != NULL);
    gguf_remove_key(ctx, k);
    if (!grow((void **) &ctx->kv, &ctx->cap_kv, ctx->n_kv, sizeof(*ctx->kv))) {
        GGML_ABORT("gguf: out of memory for key '%s'", k);
    }
    ctx->kv[ctx->n_kv++] = (struct gguf_kv) {
        .key      = k,
        .type     = type,
        .is_array = is_array,
        .n        = n,
        .data     = data,
    };
    if (strcmp(k, GGUF_KEY_GENERAL_ALIGNMENT) == 0) {
        uint32_t a;
        memcpy(&a, data, sizeof(a));
        set_alignment(ctx, a);
    }
}

static void set_single(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * val) {
    check_reserved(key, type, false, val);
    const size_t size = gguf_type_sizes[type];
    void * data = xmalloc(size);
    memcpy(data, val, size);
    put_kv(ctx, key, type, false, 1, data);
}

#define GGUF_SETTER(name, ctype, gtype)                                                  \
    void gguf_set_val_##name(struct gguf_context * ctx, const char * key, ctype val) {   \
        set_single(ctx, key, gtype, &val);                                               \
    }

GGUF_SETTER(u8,  uint8_t,  GGUF_TYPE_UINT8)
GGUF_SETTER(i8,  int8_t,   GGUF_TYPE_INT8)
GGUF_SETTER(u16, uint16_t, GGUF_TYPE_UINT16)
GGUF_SETTER(i16, int16_t,  GGUF_TYPE_INT16)
GGUF_SETTER(u32, uint32_t, GGUF_TYPE_UINT32)
GGUF_SETTER(i32, int32_t,  GGUF_TYPE_INT32)
GGUF_SETTER(f32, float,    GGUF_TYPE_FLOAT32)
GGUF_SETTER(u64, uint64_t, GGUF_TYPE_UINT64)
GGUF_SETTER(i64, int64_t,  GGUF_TYPE_INT64)
GGUF_SETTER(f64, double,   GGUF_TYPE_FLOAT64)

void gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool val) {
    const uint8_t b = val ? 1 : 0;
    set_single(ctx, key, GGUF_TYPE_BOOL, &b);
}

static struct gguf_str * copy_strs(const char * const * strs, const size_t * lens, size_t n) {
    struct gguf_str * s = xmalloc(n * sizeof(*s));
    for (size_t i = 0; i < n; i++) {
        GGML_ASSERT(strs[i] != NULL);
        s[i].len  = lens ? lens[i] : strlen(strs[i]);
        s[i].data = dup_bytes(strs[i], s[i].len);
        GGML_ASSERT(s[i].data != NULL);
    }
    return s;
}

void gguf_set_val_str(struct gguf_context * ctx, const char * key, const char * val) {
    GGML_ASSERT(val != NULL);
    check_reserved(key, GGUF_TYPE_STRING, false, NULL);
    put_kv(ctx, key, GGUF_TYPE_STRING, false, 1, copy_strs(&val, NULL, 1));
}

void gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n) {
    GGML_ASSERT(gguf_type_valid(type) && type != GGUF_TYPE_STRING && type != GGUF_TYPE_ARRAY);
    check_reserved(key, type, true, NULL);
    size_t bytes;
    if (__builtin_mul_overflow(n, gguf_type_sizes[type], &bytes)) {
        GGML_ABORT("gguf: array of %zu %s for key '%s' is too large", n, gguf_type_names[type], key);
    }
    GGML_ASSERT(data != NULL || bytes == 0);
    uint8_t * copy = xmalloc(bytes);
    if (bytes) {
        memcpy(copy, data, bytes);
    }
    if (type == GGUF_TYPE_BOOL) {
        for (size_t i = 0; i < n; i++) {
            copy[i] = copy[i] != 0;
        }
    }
    put_kv(ctx, key, type, true, n, copy);
}

void gguf_set_arr_str(struct gguf_context * ctx, const char * key, const char ** data, size_t n) {
    GGML_ASSERT(data != NULL || n == 0);
    check_reserved(key, GGUF_TYPE_STRING, true, NULL);
    put_kv(ctx, key, GGUF_TYPE_STRING, true, n, copy_strs(data, NULL, n));
}

void gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src) {
    if (ctx == src) {
        return;
    }
    for (size_t i = 0; i < src->n_kv; i++) {
        const struct gguf_kv * kv = &src->kv[i];
        void * data;
        if (kv->type == GGUF_TYPE_STRING) {
            const struct gguf_str * s = kv->data;
            const char ** strs = xmalloc(kv->n * sizeof(*strs));
            size_t * lens = xmalloc(kv->n * sizeof(*lens));
            for (size_t j = 0; j < kv->n; j++) {
                strs[j] = s[j].data;
                lens[j] = s[j].len;
            }
            data = copy_strs(strs, lens, kv->n);
            free(strs);
            free(lens);
        } else {
            const size_t bytes = kv->n * gguf_type_sizes[kv->type];
            data = xmalloc(bytes);
            if (bytes) {
                memcpy(data, kv->data, bytes);
            }
        }
        check_reserved(kv->key, kv->type, kv->is_array, data);
        put_kv(ctx, kv->key, kv->type, kv->is_array, kv->n, data);
    }
}

void gguf_add_tensor(struct gguf_context * ctx, const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor != NULL);
    if (gguf_find_tensor(ctx, tensor->name) != -1) {
        GGML_ABORT("gguf: duplicate tensor name '%s'", tensor->name);
    }
    if (!grow((void **) &ctx->info, &ctx->cap_info, ctx->n_info, sizeof(*ctx->info))) {
        GGML_ABORT("gguf: out of memory for tensor '%s'", tensor->name);
    }
    struct gguf_tensor_info * ti = &ctx->info[ctx->n_info++];
    memset(ti, 0, sizeof(*ti));
    ti->t = *tensor;
    relayout(ctx, ctx->n_info - 1);
}

static struct gguf_tensor_info * find_info(struct gguf_context * ctx, const char * name) {
    const int64_t id = gguf_find_tensor(ctx, name);
    if (id < 0) {
        GGML_ABORT("gguf: no tensor '%s'", name);
    }
    return &ctx->info[id];
}

void gguf_set_tensor_type(struct gguf_context * ctx, const char * name, enum ggml_type type) {
    struct gguf_tensor_info * ti = find_info(ctx, name);
    struct ggml_tensor t = ti->t;
    size_t nbytes;
    GGML_ASSERT(type >= 0 && type < GGML_TYPE_COUNT);
    t.type = type;
    if (!tensor_layout(&t, &nbytes)) {
        GGML_ABORT("gguf: tensor '%s' of ne[0] = %" PRId64 " cannot be of type %s", name, t.ne[0],
                   ggml_type_name(type));
    }
    ti->t = t;
    relayout(ctx, (size_t) (ti - ctx->info) + 1);
}

void gguf_set_tensor_data(struct gguf_context * ctx, const char * name, const void * data) {
    struct gguf_tensor_info * ti = find_info(ctx, name);
    ti->t.data   = (void *) (uintptr_t) data;
    ti->t.buffer = NULL;
}

// ---------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------

// Writes to a FILE, or into a memory area, or only counts bytes.
struct gguf_writer {
    FILE *    file;
    uint8_t * mem;
    size_t    written;
    bool      ok;
};

static void wr_bytes(struct gguf_writer * w, const void * p, size_t n) {
    if (!w->ok || n == 0) {
        return;
    }
    if (w->file != NULL) {
        if (fwrite(p, 1, n, w->file) != n) {
            GGML_LOG_ERROR("gguf: write failed at offset %zu: %s\n", w->written, strerror(errno));
            w->ok = false;
            return;
        }
    } else if (w->mem != NULL) {
        memcpy(w->mem + w->written, p, n);
    }
    w->written += n;
}

static void wr_uint(struct gguf_writer * w, uint64_t v, size_t n) {
    uint8_t b[8];
    store_le(b, v, n);
    wr_bytes(w, b, n);
}

static void wr_str(struct gguf_writer * w, const char * s, size_t len) {
    wr_uint(w, len, 8);
    wr_bytes(w, s, len);
}

static void wr_pad(struct gguf_writer * w, size_t alignment) {
    static const uint8_t zeros[256];
    size_t n = (alignment - w->written % alignment) % alignment;
    if (w->file == NULL) {
        if (w->ok && w->mem != NULL) {
            memset(w->mem + w->written, 0, n);
        }
        w->written += n;
        return;
    }
    while (w->ok && n > 0) {
        const size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
        wr_bytes(w, zeros, k);
        n -= k;
    }
}

static void wr_kv(struct gguf_writer * w, const struct gguf_kv * kv) {
    wr_str(w, kv->key, strlen(kv->key));
    if (kv->is_array) {
        wr_uint(w, GGUF_TYPE_ARRAY, 4);
        wr_uint(w, kv->type, 4);
        wr_uint(w, kv->n, 8);
    } else {
        wr_uint(w, kv->type, 4);
    }
    if (kv->type == GGUF_TYPE_STRING) {
        const struct gguf_str * s = kv->data;
        for (size_t i = 0; i < kv->n; i++) {
            wr_str(w, s[i].data, s[i].len);
        }
        return;
    }
    const size_t esize = gguf_type_sizes[kv->type];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < kv->n; i++) {
        uint64_t v = 0;
        memcpy((uint8_t *) &v + 8 - esize, (const uint8_t *) kv->data + i * esize, esize);
        wr_uint(w, v, esize);
    }
#else
    wr_bytes(w, kv->data, kv->n * esize);
#endif
}

static void wr_meta(struct gguf_writer * w, const struct gguf_context * ctx) {
    wr_bytes(w, GGUF_MAGIC, 4);
    wr_uint(w, ctx->version, 4);
    wr_uint(w, ctx->n_info, 8);
    wr_uint(w, ctx->n_kv, 8);
    for (size_t i = 0; i < ctx->n_kv; i++) {
        wr_kv(w, &ctx->kv[i]);
    }
    for (size_t i = 0; i < ctx->n_info; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        // ggml_n_dims() but keeping a trailing 0: a tensor of no elements
        // must not come back with the sizes before the 0 only
        int n_dims = GGML_MAX_DIMS;
        while (n_dims > 1 && ti->t.ne[n_dims - 1] == 1) {
            n_dims--;
        }
        wr_str(w, ti->t.name, strlen(ti->t.name));
        wr_uint(w, (uint32_t) n_dims, 4);
        for (int d = 0; d < n_dims; d++) {
            wr_uint(w, (uint64_t) ti->t.ne[d], 8);
        }
        wr_uint(w, (uint32_t) ti->t.type, 4);
        wr_uint(w, ti->offset, 8);
    }
    wr_pad(w, ctx->alignment);
}

static bool wr_tensor_data(struct gguf_writer * w, const struct gguf_tensor_info * ti, size_t data_start,
                           size_t alignment) {
    const struct ggml_tensor * t = &ti->t;
    const size_t nbytes = ggml_nbytes(t);

    if (w->written - data_start != ti->offset) {
        GGML_LOG_ERROR("gguf: tensor '%s' would be written at data offset %zu, its info says %" PRIu64 "\n",
                       t->name, w->written - data_start, ti->offset);
        return false;
    }
    if (nbytes > 0 && t->buffer == NULL && t->data == NULL) {
        GGML_LOG_ERROR("gguf: tensor '%s' has no data (neither a buffer nor gguf_set_tensor_data)\n", t->name);
        return false;
    }
    if (!ggml_is_contiguous(t)) {
        GGML_LOG_ERROR("gguf: tensor '%s' is not contiguous\n", t->name);
        return false;
    }
    if (t->buffer != NULL && nbytes > 0) {
        const size_t chunk = nbytes < GGUF_WRITE_CHUNK ? nbytes : GGUF_WRITE_CHUNK;
        uint8_t * bounce = malloc(chunk);
        if (bounce == NULL) {
            GGML_LOG_ERROR("gguf: out of memory writing tensor '%s'\n", t->name);
            return false;
        }
        for (size_t off = 0; off < nbytes && w->ok; off += chunk) {
            const size_t n = nbytes - off < chunk ? nbytes - off : chunk;
            ggml_backend_tensor_get(t, bounce, off, n);
            wr_bytes(w, bounce, n);
        }
        free(bounce);
    } else {
        wr_bytes(w, t->data, nbytes);
    }
    wr_pad(w, alignment);
    return w->ok;
}

static bool write_out(struct gguf_writer * w, const struct gguf_context * ctx, bool only_meta) {
    wr_meta(w, ctx);
    if (only_meta) {
        return w->ok;
    }
    const size_t data_start = w->written;
    for (size_t i = 0; i < ctx->n_info && w->ok; i++) {
        if (!wr_tensor_data(w, &ctx->info[i], data_start, ctx->alignment)) {
            return false;
        }
    }
    return w->ok;
}

bool gguf_write_to_file_ptr(const struct gguf_context * ctx, FILE * file, bool only_meta) {
    GGML_ASSERT(file != NULL);
    struct gguf_writer w = { .file = file, .ok = true };
    return write_out(&w, ctx, only_meta);
}

bool gguf_write_to_file(const struct gguf_context * ctx, const char * fname, bool only_meta) {
    FILE * file = ggml_fopen(fname, "wb");
    if (file == NULL) {
        GGML_LOG_ERROR("%s: cannot create '%s': %s\n", __func__, fname, strerror(errno));
        return false;
    }
    bool ok = gguf_write_to_file_ptr(ctx, file, only_meta);
    if (fclose(file) != 0 && ok) {
        GGML_LOG_ERROR("%s: cannot write '%s': %s\n", __func__, fname, strerror(errno));
        ok = false;
    }
    if (!ok) {
        GGML_LOG_ERROR("%s: failed to write '%s'\n", __func__, fname);
    }
    return ok;
}

size_t gguf_get_meta_size(const struct gguf_context * ctx) {
    struct gguf_writer w = { .ok = true };
    wr_meta(&w, ctx);
    return w.written;
}

void gguf_get_meta_data(const struct gguf_context * ctx, void * data) {
    GGML_ASSERT(data != NULL);
    struct gguf_writer w = { .mem = data, .ok = true };
    wr_meta(&w, ctx);
}
