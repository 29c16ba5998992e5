/*
 * ggml.h - tensors, contexts, graphs and ops of libggml-backend.
 *
 * Source-compatible with upstream ggml's ggml.h for every name declared here:
 * same names, signatures, enum names and values, and struct layouts, so that
 * a ggml program using only what is declared builds against this library
 * unchanged. The implementation is gaccel's own.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_H
#define GGML_H

#if defined(__GNUC__) || defined(__clang__)
#    define GGML_API __attribute__((visibility("default"))) extern
#    define GGML_NORETURN __attribute__((noreturn))
#    define GGML_ATTRIBUTE_FORMAT(...) __attribute__((format(printf, __VA_ARGS__)))
#    define GGML_DEPRECATED(func, hint) func __attribute__((deprecated(hint)))
#else
#    define GGML_API extern
#    define GGML_NORETURN _Noreturn
#    define GGML_ATTRIBUTE_FORMAT(...)
#    define GGML_DEPRECATED(func, hint) func
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------
// Versions, status, assertions
// ---------------------------------------------------------------------------

#define GGML_FILE_MAGIC   0x67676d6c // "ggml"
#define GGML_FILE_VERSION 2

#define GGML_QNT_VERSION        2
#define GGML_QNT_VERSION_FACTOR 1000

#define GGML_MAX_DIMS           4
#define GGML_MAX_PARAMS         2048
#define GGML_MAX_SRC            10
#define GGML_MAX_N_THREADS      512
#define GGML_MAX_OP_PARAMS      64
#define GGML_MAX_NAME           64
#define GGML_DEFAULT_N_THREADS  4
#define GGML_DEFAULT_GRAPH_SIZE 2048

#if UINTPTR_MAX == 0xFFFFFFFF
#    define GGML_MEM_ALIGN 4
#else
#    define GGML_MEM_ALIGN 16
#endif

#define GGML_EXIT_SUCCESS 0
#define GGML_EXIT_ABORTED 1

#define GGML_ROPE_TYPE_NEOX   2
#define GGML_ROPE_TYPE_MROPE  8
#define GGML_ROPE_TYPE_VISION 24

#define GGML_MROPE_SECTIONS 4

#define GGML_UNUSED(x) (void)(x)

#define GGML_PAD(x, n) (((x) + (n) - 1) & ~((n) - 1))

#ifdef NDEBUG
#    define GGML_UNREACHABLE() __builtin_unreachable()
#else
#    define GGML_UNREACHABLE() GGML_ABORT("statement should be unreachable")
#endif

// Print a message (through the abort callback when one is set) and abort.
GGML_NORETURN GGML_ATTRIBUTE_FORMAT(3, 4)
GGML_API void ggml_abort(const char * file, int line, const char * fmt, ...);

#define GGML_ABORT(...) ggml_abort(__FILE__, __LINE__, __VA_ARGS__)
#define GGML_ASSERT(x) if (!(x)) GGML_ABORT("GGML_ASSERT(%s) failed", #x)

enum ggml_status {
    GGML_STATUS_ALLOC_FAILED = -2,
    GGML_STATUS_FAILED       = -1,
    GGML_STATUS_SUCCESS      =  0,
    GGML_STATUS_ABORTED      =  1,
};

// Text for a status, e.g. "GGML status: success".
GGML_API const char * ggml_status_to_string(enum ggml_status status);

// ---------------------------------------------------------------------------
// Half precision and brain float
// ---------------------------------------------------------------------------

// IEEE 754 binary16, stored as its bit pattern.
typedef uint16_t ggml_fp16_t;
GGML_API float       ggml_fp16_to_fp32(ggml_fp16_t x);
GGML_API ggml_fp16_t ggml_fp32_to_fp16(float x);
GGML_API void        ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n);
GGML_API void        ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n);

// The upper 16 bits of an IEEE 754 binary32.
typedef struct { uint16_t bits; } ggml_bf16_t;
GGML_API ggml_bf16_t ggml_fp32_to_bf16(float x);
GGML_API float       ggml_bf16_to_fp32(ggml_bf16_t x);
GGML_API void        ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n);
GGML_API void        ggml_fp32_to_bf16_row_ref(const float * x, ggml_bf16_t * y, int64_t n);
GGML_API void        ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n);

// ---------------------------------------------------------------------------
// Logging, abort, GUIDs, time
// ---------------------------------------------------------------------------

enum ggml_log_level {
    GGML_LOG_LEVEL_NONE  = 0,
    GGML_LOG_LEVEL_DEBUG = 1,
    GGML_LOG_LEVEL_INFO  = 2,
    GGML_LOG_LEVEL_WARN  = 3,
    GGML_LOG_LEVEL_ERROR = 4,
    GGML_LOG_LEVEL_CONT  = 5, // continues the previous message
};

typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);

// Returns true to abort a running computation.
typedef bool (*ggml_abort_callback)(void * data);

// Called by ggml_abort() with the message instead of printing it.
typedef void (*ggml_abort_callback_t)(const char * error_message);

// Set the abort callback; NULL restores the default. Returns the old one.
GGML_API ggml_abort_callback_t ggml_set_abort_callback(ggml_abort_callback_t callback);

// The current log callback; NULL restores the default (stderr).
GGML_API void ggml_log_get(ggml_log_callback * log_callback, void ** user_data);
GGML_API void ggml_log_set(ggml_log_callback log_callback, void * user_data);

typedef uint8_t ggml_guid[16];
typedef ggml_guid * ggml_guid_t;

GGML_API bool ggml_guid_matches(ggml_guid_t guid_a, ggml_guid_t guid_b);

GGML_API const char * ggml_version(void);
GGML_API const char * ggml_commit(void);

GGML_API void    ggml_time_init(void); // call once at start; later calls are harmless
GGML_API int64_t ggml_time_ms(void);
GGML_API int64_t ggml_time_us(void);
GGML_API int64_t ggml_cycles(void);
GGML_API int64_t ggml_cycles_per_ms(void);

// fopen with a UTF-8 path (a plain fopen outside Windows).
GGML_API FILE * ggml_fopen(const char * fname, const char * mode);

// ---------------------------------------------------------------------------
// Tensors, contexts, graphs and ops: added by the ggml core.
// ---------------------------------------------------------------------------

#ifdef __cplusplus
}
#endif

#endif // GGML_H
