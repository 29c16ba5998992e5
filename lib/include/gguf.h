/*
 * gguf.h - GGUF model files: read, inspect, edit and write them.
 *
 * Source-compatible with upstream ggml's gguf.h (v0.21.0): the same
 * functions, signatures, enum values, macros and struct, so programs such as
 * llama.cpp's model loader build against this library unchanged. The
 * implementation (lib/gguf.c) is gaccel's own; Documentation/gguf.rst
 * describes the file layout, the checks made on untrusted files and how to
 * put a file's tensors into backend buffers.
 *
 * A GGUF file, all integers little-endian:
 *
 *   "GGUF"  u32 version  i64 tensor count  i64 key/value count
 *   key/value pairs:  string key, i32 gguf_type, then
 *       a value of that type, or for GGUF_TYPE_ARRAY: i32 element type,
 *       u64 element count and the elements
 *   tensor infos:  string name, u32 n_dims, i64 ne[n_dims], i32 ggml_type,
 *       u64 offset of the data from the start of the data section
 *   padding to the alignment, then the data section: each tensor's bytes,
 *       each padded to the alignment
 *
 * A string is a u64 byte count and the bytes, without a terminating NUL; a
 * bool is one byte. The alignment is the u32 value of "general.alignment"
 * when the file has that key, else GGUF_DEFAULT_ALIGNMENT.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGUF_H
#define GGUF_H

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GGUF_MAGIC   "GGUF"
#define GGUF_VERSION 3

#define GGUF_KEY_GENERAL_ALIGNMENT "general.alignment"

#define GGUF_DEFAULT_ALIGNMENT 32

#ifdef __cplusplus
extern "C" {
#endif

// Value types of key/value pairs (stored in the file as int32).
enum gguf_type {
    GGUF_TYPE_UINT8   = 0,
    GGUF_TYPE_INT8    = 1,
    GGUF_TYPE_UINT16  = 2,
    GGUF_TYPE_INT16   = 3,
    GGUF_TYPE_UINT32  = 4,
    GGUF_TYPE_INT32   = 5,
    GGUF_TYPE_FLOAT32 = 6,
    GGUF_TYPE_BOOL    = 7,
    GGUF_TYPE_STRING  = 8,
    GGUF_TYPE_ARRAY   = 9,
    GGUF_TYPE_UINT64  = 10,
    GGUF_TYPE_INT64   = 11,
    GGUF_TYPE_FLOAT64 = 12,
    GGUF_TYPE_COUNT,       // number of types, not a type
};

struct gguf_context;

struct gguf_init_params {
    // with ctx set: true creates the tensors without data (data == NULL, to
    // be placed in a backend buffer); false also reads the data section into
    // the new context and points each tensor's data at its bytes
    bool no_alloc;

    // if not NULL, receives a new ggml_context holding one tensor per tensor
    // info, named as in the file (freed by the caller with ggml_free)
    struct ggml_context ** ctx;
};

// Reads up to len bytes at offset into output; returns how many it read.
typedef size_t (*gguf_reader_callback_t)(void * userdata, void * output, uint64_t offset, size_t len);

// A context with no key/value pairs and no tensors, to fill and write.
GGML_API struct gguf_context * gguf_init_empty(void);

// Parse a GGUF file. Every field is checked before it is used; a malformed
// file logs an error naming the field and returns NULL (then *params.ctx is
// NULL too).
// - from_file_ptr reads from the stream's current position to its end and
//   leaves the position unspecified;
// - from_buffer parses size bytes at data (the buffer may be freed after);
// - from_callback reads through callback at most max_chunk_read bytes at a
//   time (0: no limit) and never beyond max_expected_size bytes.
GGML_API struct gguf_context * gguf_init_from_file_ptr(FILE * file, struct gguf_init_params params);
GGML_API struct gguf_context * gguf_init_from_file(const char * fname, struct gguf_init_params params);
GGML_API struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params);
GGML_API struct gguf_context * gguf_init_from_callback(gguf_reader_callback_t callback, void * userdata,
                                                       size_t max_chunk_read, uint64_t max_expected_size,
                                                       struct gguf_init_params params);

GGML_API void gguf_free(struct gguf_context * ctx);

// "u8", "i8", ..., "str", "arr", ..., "f64"; NULL for a value outside the enum.
GGML_API const char * gguf_type_name(enum gguf_type type);

GGML_API uint32_t gguf_get_version    (const struct gguf_context * ctx);
GGML_API size_t   gguf_get_alignment  (const struct gguf_context * ctx);
// Offset of the data section in the file read (0 for a context not read
// from a file). Aligned when the file has at least one tensor.
GGML_API size_t   gguf_get_data_offset(const struct gguf_context * ctx);

GGML_API int64_t      gguf_get_n_kv(const struct gguf_context * ctx);
GGML_API int64_t      gguf_find_key(const struct gguf_context * ctx, const char * key); // -1 when absent
GGML_API const char * gguf_get_key (const struct gguf_context * ctx, int64_t key_id);

// GGUF_TYPE_ARRAY for an array; gguf_get_arr_type gives its element type.
GGML_API enum gguf_type gguf_get_kv_type (const struct gguf_context * ctx, int64_t key_id);
GGML_API enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id);

// Single values. A key_id out of range or a type other than the value's
// aborts (ggml_abort).
GGML_API uint8_t      gguf_get_val_u8  (const struct gguf_context * ctx, int64_t key_id);
GGML_API int8_t       gguf_get_val_i8  (const struct gguf_context * ctx, int64_t key_id);
GGML_API uint16_t     gguf_get_val_u16 (const struct gguf_context * ctx, int64_t key_id);
GGML_API int16_t      gguf_get_val_i16 (const struct gguf_context * ctx, int64_t key_id);
GGML_API uint32_t     gguf_get_val_u32 (const struct gguf_context * ctx, int64_t key_id);
GGML_API int32_t      gguf_get_val_i32 (const struct gguf_context * ctx, int64_t key_id);
GGML_API float        gguf_get_val_f32 (const struct gguf_context * ctx, int64_t key_id);
GGML_API uint64_t     gguf_get_val_u64 (const struct gguf_context * ctx, int64_t key_id);
GGML_API int64_t      gguf_get_val_i64 (const struct gguf_context * ctx, int64_t key_id);
GGML_API double       gguf_get_val_f64 (const struct gguf_context * ctx, int64_t key_id);
GGML_API bool         gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id);
GGML_API const char * gguf_get_val_str (const struct gguf_context * ctx, int64_t key_id);
// The bytes of a single value other than a string.
GGML_API const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id);
// Number of elements (1 for a single value).
GGML_API size_t       gguf_get_arr_n   (const struct gguf_context * ctx, int64_t key_id);

// The elements of an array other than of strings, packed; bools are one
// byte each (0 or 1).
GGML_API const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id);

// Element i of an array of strings, NUL-terminated.
GGML_API const char * gguf_get_arr_str (const struct gguf_context * ctx, int64_t key_id, size_t i);

GGML_API int64_t         gguf_get_n_tensors    (const struct gguf_context * ctx);
GGML_API int64_t         gguf_find_tensor      (const struct gguf_context * ctx, const char * name); // -1 when absent
// Offset of the tensor's data from the start of the data section.
GGML_API size_t          gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id);
GGML_API const char *    gguf_get_tensor_name  (const struct gguf_context * ctx, int64_t tensor_id);
// GGML_MAX_DIMS sizes; 1 for the dimensions the file does not list.
GGML_API const int64_t * gguf_get_tensor_ne    (const struct gguf_context * ctx, int64_t tensor_id);
GGML_API enum ggml_type  gguf_get_tensor_type  (const struct gguf_context * ctx, int64_t tensor_id);
GGML_API size_t          gguf_get_tensor_size  (const struct gguf_context * ctx, int64_t tensor_id);

// Removes the key if present; returns the id it had, or -1.
GGML_API int64_t gguf_remove_key(struct gguf_context * ctx, const char * key);

// Set a value: an existing key is removed first, the pair is then appended.
// "general.alignment" must be a u32 power of two (anything else aborts);
// setting it re-aligns the tensors' offsets.
GGML_API void gguf_set_val_u8  (struct gguf_context * ctx, const char * key, uint8_t      val);
GGML_API void gguf_set_val_i8  (struct gguf_context * ctx, const char * key, int8_t       val);
GGML_API void gguf_set_val_u16 (struct gguf_context * ctx, const char * key, uint16_t     val);
GGML_API void gguf_set_val_i16 (struct gguf_context * ctx, const char * key, int16_t      val);
GGML_API void gguf_set_val_u32 (struct gguf_context * ctx, const char * key, uint32_t     val);
GGML_API void gguf_set_val_i32 (struct gguf_context * ctx, const char * key, int32_t      val);
GGML_API void gguf_set_val_f32 (struct gguf_context * ctx, const char * key, float        val);
GGML_API void gguf_set_val_u64 (struct gguf_context * ctx, const char * key, uint64_t     val);
GGML_API void gguf_set_val_i64 (struct gguf_context * ctx, const char * key, int64_t      val);
GGML_API void gguf_set_val_f64 (struct gguf_context * ctx, const char * key, double       val);
GGML_API void gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool         val);
GGML_API void gguf_set_val_str (struct gguf_context * ctx, const char * key, const char * val);

// An array of n elements of type (not STRING or ARRAY), copied from data.
GGML_API void gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n);

// An array of the n NUL-terminated strings data[0..n-1], copied.
GGML_API void gguf_set_arr_str (struct gguf_context * ctx, const char * key, const char ** data, size_t n);

// Sets every key/value pair of src in ctx (in src's order).
GGML_API void gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src);

// Appends a tensor info (name, type, shape) after the last one; the data is
// taken from the tensor when writing (its buffer, or its data pointer).
// Names must be unique (a duplicate aborts).
GGML_API void gguf_add_tensor(struct gguf_context * ctx, const struct ggml_tensor * tensor);

// Changes a tensor's type; the offsets of the tensors after it move so the
// data section stays one aligned run.
GGML_API void gguf_set_tensor_type(struct gguf_context * ctx, const char * name, enum ggml_type type);

// Where to take the tensor's gguf_get_tensor_size() bytes from when writing.
GGML_API void gguf_set_tensor_data(struct gguf_context * ctx, const char * name, const void * data);

// Writing. Either the whole file at once:
//     gguf_write_to_file(ctx, path, false);
// or the metadata now and the data appended by the caller:
//     gguf_write_to_file(ctx, path, true); then append each tensor's bytes,
//     each padded with zeros to gguf_get_alignment();
// or the data first, behind gguf_get_meta_size() reserved bytes, then the
// metadata from gguf_get_meta_data() written over the reserved bytes.
// Returns false (after logging why) when the file cannot be written or a
// tensor has no data.
GGML_API bool gguf_write_to_file_ptr(const struct gguf_context * ctx, FILE * file, bool only_meta);
GGML_API bool gguf_write_to_file(const struct gguf_context * ctx, const char * fname, bool only_meta);

// Size of the metadata (header, pairs, tensor infos and the padding after
// them): the offset at which the data section starts in a written file.
GGML_API size_t gguf_get_meta_size(const struct gguf_context * ctx);

// Writes the gguf_get_meta_size() bytes of metadata to data.
GGML_API void   gguf_get_meta_data(const struct gguf_context * ctx, void * data);

#ifdef __cplusplus
}
#endif

#endif // GGUF_H
