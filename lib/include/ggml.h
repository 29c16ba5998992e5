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

#define GGML_ROPE_TYPE_NORMAL 0
#define GGML_ROPE_TYPE_NEOX   2
#define GGML_ROPE_TYPE_MROPE  8
#define GGML_ROPE_TYPE_VISION 24
#define GGML_ROPE_TYPE_IMROPE 40 // interleaved M-RoPE: MROPE | 32

#define GGML_MROPE_SECTIONS 4

#define GGML_UNUSED(x) (void)(x)
#ifdef __cplusplus
extern "C++" {
template <typename... Args>
constexpr inline void ggml_unused_vars_impl(Args &&...) noexcept {}
}
#    define GGML_UNUSED_VARS(...) ggml_unused_vars_impl(__VA_ARGS__)
#else
#    define GGML_UNUSED_VARS(...) do { (void) sizeof((__VA_ARGS__, 0)); } while (0)
#endif

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
// Tensors, contexts, graphs and ops (the ggml core: lib/ggml.c, lib/ggml-ops.c,
// lib/ggml-types.c, lib/ggml-quants.c)
// ---------------------------------------------------------------------------

#ifdef __cplusplus
#    define GGML_RESTRICT
#else
#    define GGML_RESTRICT restrict
#endif

// Copy ne[]/nb[] of a tensor into local constants prefix0..prefix3.
#define GGML_TENSOR_LOCALS_1(type, prefix, pointer, array) \
    const type prefix##0 = (pointer)->array[0]; \
    GGML_UNUSED(prefix##0);
#define GGML_TENSOR_LOCALS_2(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_1    (type, prefix, pointer, array) \
    const type prefix##1 = (pointer)->array[1]; \
    GGML_UNUSED(prefix##1);
#define GGML_TENSOR_LOCALS_3(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_2    (type, prefix, pointer, array) \
    const type prefix##2 = (pointer)->array[2]; \
    GGML_UNUSED(prefix##2);
#define GGML_TENSOR_LOCALS(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_3  (type, prefix, pointer, array) \
    const type prefix##3 = (pointer)->array[3]; \
    GGML_UNUSED(prefix##3);

#define GGML_TENSOR_UNARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

#define GGML_TENSOR_BINARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

#define GGML_TENSOR_TERNARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne2, src2, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb2, src2, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

#define GGML_TENSOR_BINARY_OP_LOCALS01 \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb)

struct ggml_object;
struct ggml_context;
struct ggml_cgraph;

// Element types. Values are stored in model files: gaps are removed types.
enum ggml_type {
    GGML_TYPE_F32     = 0,
    GGML_TYPE_F16     = 1,
    GGML_TYPE_Q4_0    = 2,
    GGML_TYPE_Q4_1    = 3,
    // 4, 5: removed (Q4_2, Q4_3)
    GGML_TYPE_Q5_0    = 6,
    GGML_TYPE_Q5_1    = 7,
    GGML_TYPE_Q8_0    = 8,
    GGML_TYPE_Q8_1    = 9,
    GGML_TYPE_Q2_K    = 10,
    GGML_TYPE_Q3_K    = 11,
    GGML_TYPE_Q4_K    = 12,
    GGML_TYPE_Q5_K    = 13,
    GGML_TYPE_Q6_K    = 14,
    GGML_TYPE_Q8_K    = 15,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS  = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S   = 19,
    GGML_TYPE_IQ4_NL  = 20,
    GGML_TYPE_IQ3_S   = 21,
    GGML_TYPE_IQ2_S   = 22,
    GGML_TYPE_IQ4_XS  = 23,
    GGML_TYPE_I8      = 24,
    GGML_TYPE_I16     = 25,
    GGML_TYPE_I32     = 26,
    GGML_TYPE_I64     = 27,
    GGML_TYPE_F64     = 28,
    GGML_TYPE_IQ1_M   = 29,
    GGML_TYPE_BF16    = 30,
    // 31-33: removed (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8)
    GGML_TYPE_TQ1_0   = 34,
    GGML_TYPE_TQ2_0   = 35,
    // 36-38: removed (IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8)
    GGML_TYPE_MXFP4   = 39,
    GGML_TYPE_NVFP4   = 40,
    GGML_TYPE_Q1_0    = 41,
    GGML_TYPE_Q2_0    = 42,
    GGML_TYPE_COUNT   = 43,
};

// The type most tensors of a model file have (the older model formats'
// "ftype"); values are upstream's.
enum ggml_ftype {
    GGML_FTYPE_UNKNOWN              = -1,
    GGML_FTYPE_ALL_F32              = 0,
    GGML_FTYPE_MOSTLY_F16           = 1,
    GGML_FTYPE_MOSTLY_Q4_0          = 2,
    GGML_FTYPE_MOSTLY_Q4_1          = 3,
    GGML_FTYPE_MOSTLY_Q4_1_SOME_F16 = 4, // no single type: ggml_ftype_to_ggml_type aborts
    GGML_FTYPE_MOSTLY_Q8_0          = 7,
    GGML_FTYPE_MOSTLY_Q5_0          = 8,
    GGML_FTYPE_MOSTLY_Q5_1          = 9,
    GGML_FTYPE_MOSTLY_Q2_K          = 10,
    GGML_FTYPE_MOSTLY_Q3_K          = 11,
    GGML_FTYPE_MOSTLY_Q4_K          = 12,
    GGML_FTYPE_MOSTLY_Q5_K          = 13,
    GGML_FTYPE_MOSTLY_Q6_K          = 14,
    GGML_FTYPE_MOSTLY_IQ2_XXS       = 15,
    GGML_FTYPE_MOSTLY_IQ2_XS        = 16,
    GGML_FTYPE_MOSTLY_IQ3_XXS       = 17,
    GGML_FTYPE_MOSTLY_IQ1_S         = 18,
    GGML_FTYPE_MOSTLY_IQ4_NL        = 19,
    GGML_FTYPE_MOSTLY_IQ3_S         = 20,
    GGML_FTYPE_MOSTLY_IQ2_S         = 21,
    GGML_FTYPE_MOSTLY_IQ4_XS        = 22,
    GGML_FTYPE_MOSTLY_IQ1_M         = 23,
    GGML_FTYPE_MOSTLY_BF16          = 24,
    GGML_FTYPE_MOSTLY_MXFP4         = 25,
    GGML_FTYPE_MOSTLY_NVFP4         = 26,
    GGML_FTYPE_MOSTLY_Q1_0          = 27,
    GGML_FTYPE_MOSTLY_Q2_0          = 28,
};

// Precision requested for an op (stored in its op_params).
enum ggml_prec {
    GGML_PREC_DEFAULT =  0,
    GGML_PREC_F32     = 10,
};

// Graph operations. The order is upstream's: the values are part of the ABI.
enum ggml_op {
    GGML_OP_NONE = 0,

    GGML_OP_DUP,
    GGML_OP_ADD,
    GGML_OP_ADD_ID,
    GGML_OP_ADD1,
    GGML_OP_ACC,
    GGML_OP_SUB,
    GGML_OP_MUL,
    GGML_OP_DIV,
    GGML_OP_SQR,
    GGML_OP_SQRT,
    GGML_OP_LOG,
    GGML_OP_SIN,
    GGML_OP_COS,
    GGML_OP_SUM,
    GGML_OP_SUM_ROWS,
    GGML_OP_CUMSUM,
    GGML_OP_MEAN,
    GGML_OP_ARGMAX,
    GGML_OP_COUNT_EQUAL,
    GGML_OP_REPEAT,
    GGML_OP_REPEAT_BACK,
    GGML_OP_CONCAT,
    GGML_OP_SILU_BACK,
    GGML_OP_NORM,
    GGML_OP_RMS_NORM,
    GGML_OP_RMS_NORM_BACK,
    GGML_OP_GROUP_NORM,
    GGML_OP_L2_NORM,

    GGML_OP_MUL_MAT,
    GGML_OP_MUL_MAT_ID,
    GGML_OP_OUT_PROD,

    GGML_OP_SCALE,
    GGML_OP_SET,
    GGML_OP_CPY,
    GGML_OP_CONT,
    GGML_OP_RESHAPE,
    GGML_OP_VIEW,
    GGML_OP_PERMUTE,
    GGML_OP_TRANSPOSE,
    GGML_OP_GET_ROWS,
    GGML_OP_GET_ROWS_BACK,
    GGML_OP_SET_ROWS,
    GGML_OP_DIAG,
    GGML_OP_DIAG_MASK_INF,
    GGML_OP_DIAG_MASK_ZERO,
    GGML_OP_SOFT_MAX,
    GGML_OP_SOFT_MAX_BACK,
    GGML_OP_ROPE,
    GGML_OP_ROPE_BACK,
    GGML_OP_CLAMP,
    GGML_OP_CONV_TRANSPOSE_1D,
    GGML_OP_IM2COL,
    GGML_OP_IM2COL_BACK,
    GGML_OP_IM2COL_3D,
    GGML_OP_COL2IM_1D,
    GGML_OP_CONV_2D,
    GGML_OP_CONV_3D,
    GGML_OP_CONV_2D_DW,
    GGML_OP_CONV_TRANSPOSE_2D,
    GGML_OP_POOL_1D,
    GGML_OP_POOL_2D,
    GGML_OP_POOL_2D_BACK,
    GGML_OP_UPSCALE,
    GGML_OP_PAD,
    GGML_OP_PAD_REFLECT_1D,
    GGML_OP_ROLL,
    GGML_OP_ARANGE,
    GGML_OP_TIMESTEP_EMBEDDING,
    GGML_OP_ARGSORT,
    GGML_OP_TOP_K,
    GGML_OP_LEAKY_RELU,
    GGML_OP_TRI,
    GGML_OP_FILL,

    GGML_OP_FLASH_ATTN_EXT,
    GGML_OP_FLASH_ATTN_BACK,
    GGML_OP_SSM_CONV,
    GGML_OP_SSM_SCAN,
    GGML_OP_WIN_PART,
    GGML_OP_WIN_UNPART,
    GGML_OP_GET_REL_POS,
    GGML_OP_ADD_REL_POS,
    GGML_OP_RWKV_WKV6,
    GGML_OP_GATED_LINEAR_ATTN,
    GGML_OP_RWKV_WKV7,
    GGML_OP_SOLVE_TRI,
    GGML_OP_GATED_DELTA_NET,
    GGML_OP_LIGHTNING_INDEXER,
    GGML_OP_DSV4_HC_COMB,
    GGML_OP_DSV4_HC_PRE,
    GGML_OP_DSV4_HC_POST,

    GGML_OP_UNARY,

    GGML_OP_MAP_CUSTOM1,
    GGML_OP_MAP_CUSTOM2,
    GGML_OP_MAP_CUSTOM3,

    GGML_OP_CUSTOM,

    GGML_OP_CROSS_ENTROPY_LOSS,
    GGML_OP_CROSS_ENTROPY_LOSS_BACK,
    GGML_OP_OPT_STEP_ADAMW,
    GGML_OP_OPT_STEP_SGD,

    GGML_OP_GLU,

    GGML_OP_COUNT,
};

enum ggml_unary_op {
    GGML_UNARY_OP_ABS,
    GGML_UNARY_OP_SGN,
    GGML_UNARY_OP_NEG,
    GGML_UNARY_OP_STEP,
    GGML_UNARY_OP_TANH,
    GGML_UNARY_OP_ELU,
    GGML_UNARY_OP_RELU,
    GGML_UNARY_OP_SIGMOID,
    GGML_UNARY_OP_GELU,
    GGML_UNARY_OP_GELU_QUICK,
    GGML_UNARY_OP_SILU,
    GGML_UNARY_OP_HARDSWISH,
    GGML_UNARY_OP_HARDSIGMOID,
    GGML_UNARY_OP_EXP,
    GGML_UNARY_OP_EXPM1,
    GGML_UNARY_OP_SOFTPLUS,
    GGML_UNARY_OP_GELU_ERF,
    GGML_UNARY_OP_XIELU,
    GGML_UNARY_OP_FLOOR,
    GGML_UNARY_OP_CEIL,
    GGML_UNARY_OP_ROUND,
    GGML_UNARY_OP_TRUNC,

    GGML_UNARY_OP_COUNT,
};

enum ggml_glu_op {
    GGML_GLU_OP_REGLU,
    GGML_GLU_OP_GEGLU,
    GGML_GLU_OP_SWIGLU,
    GGML_GLU_OP_SWIGLU_OAI,
    GGML_GLU_OP_GEGLU_ERF,
    GGML_GLU_OP_GEGLU_QUICK,

    GGML_GLU_OP_COUNT,
};

enum ggml_object_type {
    GGML_OBJECT_TYPE_TENSOR,
    GGML_OBJECT_TYPE_GRAPH,
    GGML_OBJECT_TYPE_WORK_BUFFER
};

// Bits of ggml_tensor.flags
enum ggml_tensor_flag {
    GGML_TENSOR_FLAG_INPUT   =  1, // set by the user before compute: never reused by the allocator
    GGML_TENSOR_FLAG_OUTPUT  =  2, // read after compute: never overwritten by the allocator
    GGML_TENSOR_FLAG_PARAM   =  4, // trainable weights (a graph node even with op NONE)
    GGML_TENSOR_FLAG_LOSS    =  8, // a loss term (training)
    GGML_TENSOR_FLAG_COMPUTE = 16, // to be computed
};

// hints a backend may use for an op (ggml_mul_mat_set_hint); never change results
enum ggml_op_hint {
    GGML_HINT_NONE             = 0,
    GGML_HINT_SRC0_IS_HADAMARD = 1, // src0 is a Hadamard matrix
};

enum ggml_tri_type {
    GGML_TRI_TYPE_UPPER_DIAG = 0,
    GGML_TRI_TYPE_UPPER      = 1,
    GGML_TRI_TYPE_LOWER_DIAG = 2,
    GGML_TRI_TYPE_LOWER      = 3,
};

struct ggml_init_params {
    size_t mem_size;   // bytes of the context's memory pool
    void * mem_buffer; // NULL: allocated (and freed) by the context
    bool   no_alloc;   // true: tensors get no data memory
};

// An n-dimensional tensor (or a view of one), and a node of a graph.
struct ggml_tensor {
    enum ggml_type type;

    struct ggml_backend_buffer * buffer;

    int64_t ne[GGML_MAX_DIMS]; // elements per dimension
    size_t  nb[GGML_MAX_DIMS]; // strides in bytes: nb[0] = type size,
                               // nb[1] = nb[0] * ne[0] / block size (+ padding),
                               // nb[i] = nb[i-1] * ne[i-1]

    enum ggml_op op;

    // op parameters, int32 for alignment
    int32_t op_params[GGML_MAX_OP_PARAMS / sizeof(int32_t)];

    int32_t flags; // enum ggml_tensor_flag bits

    struct ggml_tensor * src[GGML_MAX_SRC];

    // for views: the viewed tensor and the byte offset into it
    struct ggml_tensor * view_src;
    size_t               view_offs;

    void * data;

    char name[GGML_MAX_NAME];

    void * extra; // backend-specific

    char padding[8];
};

static const size_t GGML_TENSOR_SIZE = sizeof(struct ggml_tensor);

#if !defined(__cplusplus) && UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(struct ggml_tensor) == 336, "struct ggml_tensor must match upstream's layout");
#endif

// Tensor geometry and type information

GGML_API void    ggml_print_object (const struct ggml_object * obj);
GGML_API void    ggml_print_objects(const struct ggml_context * ctx);

GGML_API int64_t ggml_nelements (const struct ggml_tensor * tensor);
GGML_API int64_t ggml_nrows     (const struct ggml_tensor * tensor);
GGML_API size_t  ggml_nbytes    (const struct ggml_tensor * tensor);
GGML_API size_t  ggml_nbytes_pad(const struct ggml_tensor * tensor); // ggml_nbytes padded to GGML_MEM_ALIGN

GGML_API int64_t ggml_blck_size(enum ggml_type type);
GGML_API size_t  ggml_type_size(enum ggml_type type);             // bytes of one block
GGML_API size_t  ggml_row_size (enum ggml_type type, int64_t ne); // bytes of ne elements (a whole number of blocks)
GGML_DEPRECATED(GGML_API double ggml_type_sizef(enum ggml_type type), // type size / block size
                "use ggml_row_size() instead");

GGML_API const char * ggml_type_name(enum ggml_type type);
GGML_API const char * ggml_op_name  (enum ggml_op   op);
GGML_API const char * ggml_op_symbol(enum ggml_op   op);

GGML_API const char * ggml_unary_op_name(enum ggml_unary_op op);
GGML_API const char * ggml_glu_op_name(enum ggml_glu_op op);
GGML_API const char * ggml_op_desc(const struct ggml_tensor * t); // unary/glu op name or op name

GGML_API size_t  ggml_element_size(const struct ggml_tensor * tensor);

GGML_API bool    ggml_is_quantized(enum ggml_type type);

// the tensor type of a model file type (aborts on UNKNOWN and Q4_1_SOME_F16)
GGML_API enum ggml_type ggml_ftype_to_ggml_type(enum ggml_ftype ftype);

GGML_API bool ggml_is_transposed(const struct ggml_tensor * tensor);
GGML_API bool ggml_is_permuted  (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_empty     (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_scalar    (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_vector    (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_matrix    (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_3d        (const struct ggml_tensor * tensor);
GGML_API int  ggml_n_dims       (const struct ggml_tensor * tensor); // 1 for scalars

// elements can be walked with one flat index (no gaps, no permutation)
GGML_API bool ggml_is_contiguous  (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_contiguous_0(const struct ggml_tensor * tensor); // alias of ggml_is_contiguous
GGML_API bool ggml_is_contiguous_1(const struct ggml_tensor * tensor); // rows contiguous, dims 2..3 packed
GGML_API bool ggml_is_contiguous_2(const struct ggml_tensor * tensor); // rows contiguous, dim 3 packed
GGML_API bool ggml_is_contiguous_to_1(const struct ggml_tensor * tensor); // dim 0 packed
GGML_API bool ggml_is_contiguous_to_2(const struct ggml_tensor * tensor); // dims 0..1 packed
GGML_API bool ggml_is_contiguous_to_3(const struct ggml_tensor * tensor); // dims 0..2 packed
GGML_API bool ggml_is_view(const struct ggml_tensor * tensor);            // shares another tensor's data

// one block of memory without gaps (permutation allowed)
GGML_API bool ggml_is_contiguously_allocated(const struct ggml_tensor * tensor);

// stored as CxWxHxN and permuted to WxHxCxN
GGML_API bool ggml_is_contiguous_channels(const struct ggml_tensor * tensor);

// the elements of each row are contiguous
GGML_API bool ggml_is_contiguous_rows(const struct ggml_tensor * tensor);

GGML_API bool ggml_are_same_shape (const struct ggml_tensor * t0, const struct ggml_tensor * t1);
GGML_API bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1);

// t0 can be repeated (tiled) to t1's shape: every dim of t1 a multiple of t0's
GGML_API bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1);

// bytes a tensor header takes in a context (object header + struct)
GGML_API size_t ggml_tensor_overhead(void);

GGML_API bool ggml_validate_row_data(enum ggml_type type, const void * data, size_t nbytes);

// Contexts

GGML_API struct ggml_context * ggml_init (struct ggml_init_params params);
GGML_API void                  ggml_reset(struct ggml_context * ctx);
GGML_API void                  ggml_free (struct ggml_context * ctx);

GGML_API size_t  ggml_used_mem(const struct ggml_context * ctx);

GGML_API bool    ggml_get_no_alloc(struct ggml_context * ctx);
GGML_API void    ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc);

GGML_API void *  ggml_get_mem_buffer     (const struct ggml_context * ctx);
GGML_API size_t  ggml_get_mem_size       (const struct ggml_context * ctx);
GGML_API size_t  ggml_get_max_tensor_size(const struct ggml_context * ctx);

GGML_API struct ggml_tensor * ggml_new_tensor(
        struct ggml_context * ctx,
        enum   ggml_type type,
        int    n_dims,
        const int64_t *ne);

GGML_API struct ggml_tensor * ggml_new_tensor_1d(
        struct ggml_context * ctx,
        enum   ggml_type type,
        int64_t ne0);

GGML_API struct ggml_tensor * ggml_new_tensor_2d(
        struct ggml_context * ctx,
        enum   ggml_type type,
        int64_t ne0,
        int64_t ne1);

GGML_API struct ggml_tensor * ggml_new_tensor_3d(
        struct ggml_context * ctx,
        enum   ggml_type type,
        int64_t ne0,
        int64_t ne1,
        int64_t ne2);

GGML_API struct ggml_tensor * ggml_new_tensor_4d(
        struct ggml_context * ctx,
        enum   ggml_type type,
        int64_t ne0,
        int64_t ne1,
        int64_t ne2,
        int64_t ne3);

GGML_API void * ggml_new_buffer(struct ggml_context * ctx, size_t nbytes);

GGML_API struct ggml_tensor * ggml_dup_tensor (struct ggml_context * ctx, const struct ggml_tensor * src);
GGML_API struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src);

// Walk a context's tensors in creation order; find one by name
GGML_API struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx);
GGML_API struct ggml_tensor * ggml_get_next_tensor (const struct ggml_context * ctx, struct ggml_tensor * tensor);
GGML_API struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name);

// coordinates of the i-th element in row-major order of ne
GGML_API void ggml_unravel_index(const struct ggml_tensor * tensor, int64_t i, int64_t * i0, int64_t * i1, int64_t * i2, int64_t * i3);

GGML_API enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor);
GGML_API enum ggml_glu_op   ggml_get_glu_op(const struct ggml_tensor * tensor);

GGML_API void *  ggml_get_data    (const struct ggml_tensor * tensor);
GGML_API float * ggml_get_data_f32(const struct ggml_tensor * tensor);

// zero the tensor's data (through its backend buffer when it has one)
GGML_API struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor);

GGML_API const char *         ggml_get_name   (const struct ggml_tensor * tensor);
GGML_API struct ggml_tensor * ggml_set_name   (      struct ggml_tensor * tensor, const char * name);
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API struct ggml_tensor * ggml_format_name(      struct ggml_tensor * tensor, const char * fmt, ...);

// Set a flag bit (see enum ggml_tensor_flag)
GGML_API void ggml_set_input(struct ggml_tensor * tensor);
GGML_API void ggml_set_output(struct ggml_tensor * tensor);
GGML_API void ggml_set_param(struct ggml_tensor * tensor);
GGML_API void ggml_set_loss(struct ggml_tensor * tensor);

//
// Operations on tensors (graph nodes; nothing is computed here)
//

GGML_API struct ggml_tensor * ggml_dup(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// _inplace variants return a view of a that the result overwrites
GGML_API struct ggml_tensor * ggml_dup_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_add(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_add_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_add1(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_add1_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// ADD whose result has type type: a quantized, F16 or BF16; b [a->ne[0], ...]
// broadcast over a's rows
GGML_API struct ggml_tensor * ggml_add_cast(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        enum   ggml_type      type);

GGML_API struct ggml_tensor * ggml_sub(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_sub_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_mul(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_mul_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_div(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_div_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_sqr(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sqr_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sqrt(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sqrt_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_log(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_log_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sin(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sin_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_cos(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_cos_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// sum of all elements: a one-element tensor
GGML_API struct ggml_tensor * ggml_sum(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// per-row sums: result [1, ne1, ne2, ne3], a's type
GGML_API struct ggml_tensor * ggml_sum_rows(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// per-row means: result [1, ne1, ne2, ne3], F32
GGML_API struct ggml_tensor * ggml_mean(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// index of the largest element of each row (I32, one per row of a matrix)
GGML_API struct ggml_tensor * ggml_argmax(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// a repeated to the shape of b
GGML_API struct ggml_tensor * ggml_repeat(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// a repeated to the shape ne0..ne3
GGML_API struct ggml_tensor * ggml_repeat_4d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

// a and b joined along dimension dim
GGML_API struct ggml_tensor * ggml_concat(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   dim);

GGML_API struct ggml_tensor * ggml_abs(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_abs_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sgn(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sgn_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_neg(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_neg_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_step(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_step_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_tanh(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_tanh_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_elu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_elu_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_relu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_relu_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sigmoid(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_sigmoid_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu_quick(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu_quick_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_silu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_silu_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// x * min(max(x + 3, 0), 6) / 6
GGML_API struct ggml_tensor * ggml_hardswish(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// min(max(x + 3, 0), 6) / 6
GGML_API struct ggml_tensor * ggml_hardsigmoid(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_exp(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_exp_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// expm1(x); softplus: log(1 + exp(x)) (x above 20: x); gelu_erf: exact GELU
GGML_API struct ggml_tensor * ggml_expm1(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_expm1_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_softplus(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_softplus_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu_erf(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_gelu_erf_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// element-wise rounding
GGML_API struct ggml_tensor * ggml_floor(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_floor_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_ceil(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_ceil_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_round(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_round_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_trunc(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_trunc_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// xIELU: x > 0: softplus(alpha_p) x^2 + beta x;
// else (beta + softplus(alpha_n)) (expm1(min(x, eps)) - x) + beta x
GGML_API struct ggml_tensor * ggml_xielu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 alpha_n,
        float                 alpha_p,
        float                 beta,
        float                 eps);

// x > 0 ? x : negative_slope * x
GGML_API struct ggml_tensor * ggml_leaky_relu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 negative_slope,
        bool                  inplace);

GGML_API struct ggml_tensor * ggml_unary(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_unary_op    op);

GGML_API struct ggml_tensor * ggml_unary_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_unary_op    op);

// Gated linear units. Fused form: a = [x, g] along dim 0 (ne[0] even),
// result ne[0] = a->ne[0]/2, op(x) * g (swapped: op(g) * x).
GGML_API struct ggml_tensor * ggml_glu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_glu_op      op,
        bool                  swapped);

GGML_API struct ggml_tensor * ggml_reglu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_reglu_swapped(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu_swapped(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_swiglu(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_swiglu_swapped(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// Split form: op(a) * b, a and b of the same shape.
GGML_API struct ggml_tensor * ggml_glu_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        enum ggml_glu_op      op);

GGML_API struct ggml_tensor * ggml_reglu_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_geglu_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_swiglu_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_geglu_erf(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu_erf_swapped(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu_erf_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_geglu_quick(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu_quick_swapped(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_geglu_quick_split(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// split form only: x = min(a, limit), y = clamp(b, -limit, limit),
// x * sigmoid(alpha * x) * (y + 1)
GGML_API struct ggml_tensor * ggml_swiglu_oai(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        float                 alpha,
        float                 limit);

// NORM: each row to zero mean and unit variance; RMS_NORM: each row
// divided by its root mean square (eps added to the variance / mean square)
GGML_API struct ggml_tensor * ggml_norm(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

GGML_API struct ggml_tensor * ggml_norm_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

GGML_API struct ggml_tensor * ggml_rms_norm(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

GGML_API struct ggml_tensor * ggml_rms_norm_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

// each row divided by max(its L2 norm, eps)
GGML_API struct ggml_tensor * ggml_l2_norm(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

GGML_API struct ggml_tensor * ggml_l2_norm_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 eps);

// the channels (dim 2) in n_groups groups, each group (per dim-3 index)
// normalized to zero mean and unit variance; eps added to the variance
GGML_API struct ggml_tensor * ggml_group_norm(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_groups,
        float                 eps);

GGML_API struct ggml_tensor * ggml_group_norm_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_groups,
        float                 eps);

// Matrix product: result[i, j] = dot(row i of a, row j of b), F32.
// a [K, N, A2, A3], b [K, M, A2*r2, A3*r3] -> result [N, M, A2*r2, A3*r3]
// (a is broadcast over dims 2 and 3 of b).
GGML_API struct ggml_tensor * ggml_mul_mat(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// Requests a precision for a MUL_MAT node (op_params[0]).
GGML_API void ggml_mul_mat_set_prec(
        struct ggml_tensor * a,
        enum ggml_prec       prec);

// Attaches a hint about a MUL_MAT's src0 (op_params[1]); results do not change.
GGML_API void ggml_mul_mat_set_hint(
        struct ggml_tensor * a,
        enum ggml_op_hint    hint);

// Mixture of experts: as [K, N, n_expert], b [K, n_b, n_tokens],
// ids [n_used, n_tokens] I32 -> F32 [N, n_used, n_tokens] with
// result[:, e, t] = as[:, :, ids[e, t]] x b[:, e % n_b, t].
GGML_API struct ggml_tensor * ggml_mul_mat_id(
        struct ggml_context * ctx,
        struct ggml_tensor  * as,
        struct ggml_tensor  * b,
        struct ggml_tensor  * ids);

// a[:, i1, i2] + b[:, ids[i1, i2]] (ids I32 [a->ne[1], a->ne[2]])
GGML_API struct ggml_tensor * ggml_add_id(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * ids);

// A copy of a (inplace: a itself) with b added (acc) or written (set) into
// the view of strides nb1, nb2, nb3 (bytes) at byte offset offset.
GGML_API struct ggml_tensor * ggml_acc(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                nb2,
        size_t                nb3,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_acc_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                nb2,
        size_t                nb3,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                nb2,
        size_t                nb3,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                nb2,
        size_t                nb3,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set_1d_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_set_2d_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        size_t                nb1,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_scale(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 s);

GGML_API struct ggml_tensor * ggml_scale_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 s);

// s * a + b, elementwise
GGML_API struct ggml_tensor * ggml_scale_bias(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 s,
        float                 b);

GGML_API struct ggml_tensor * ggml_scale_bias_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 s,
        float                 b);

// copies a into b (converting the type); the result is a view of b
GGML_API struct ggml_tensor * ggml_cpy(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// a converted to type
GGML_API struct ggml_tensor * ggml_cast(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum   ggml_type      type);

// a contiguous copy of a
GGML_API struct ggml_tensor * ggml_cont(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// a contiguous copy of a with a new shape (same element count)
GGML_API struct ggml_tensor * ggml_cont_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0);

GGML_API struct ggml_tensor * ggml_cont_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1);

GGML_API struct ggml_tensor * ggml_cont_3d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2);

GGML_API struct ggml_tensor * ggml_cont_4d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        int64_t               ne3);

// views of contiguous a with another shape (b's, or ne0..ne3)
GGML_API struct ggml_tensor * ggml_reshape(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_reshape_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0);

GGML_API struct ggml_tensor * ggml_reshape_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1);

GGML_API struct ggml_tensor * ggml_reshape_3d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2);

GGML_API struct ggml_tensor * ggml_reshape_4d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        int64_t               ne3);

// views of a: ne = shape, nb = strides in bytes, offset in bytes into a
GGML_API struct ggml_tensor * ggml_view_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_view_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        size_t                nb1,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_view_3d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        size_t                nb1,
        size_t                nb2,
        size_t                offset);

GGML_API struct ggml_tensor * ggml_view_4d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        int64_t               ne3,
        size_t                nb1,
        size_t                nb2,
        size_t                nb3,
        size_t                offset);

// dimension i of a becomes dimension axis<i> of the result
GGML_API struct ggml_tensor * ggml_permute(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   axis0,
        int                   axis1,
        int                   axis2,
        int                   axis3);

// swaps dimensions 0 and 1 (a view)
GGML_API struct ggml_tensor * ggml_transpose(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// Gathers rows of a: a [E, R, B2, B3], b I32 [n, B2, B3, 1]
// -> result [E, n, B2, B3], F32 (I32 when a is I32).
GGML_API struct ggml_tensor * ggml_get_rows(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,  // data
        struct ggml_tensor  * b); // row indices

// Scatters rows of b into a: a [E, R, B2, B3] (any type with a from-float
// conversion), b F32 [E, n, B2, B3], c I64 or I32 [n, C1, C2, 1] row numbers
// in [0, R), with B2 % C1 == 0 and B3 % C2 == 0. Rows written twice give an
// undefined result. The result is a view of a.
GGML_API struct ggml_tensor * ggml_set_rows(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,  // destination
        struct ggml_tensor  * b,  // source
        struct ggml_tensor  * c); // row indices

// elements (i0, i1) with i0 > n_past + i1 become -INF
GGML_API struct ggml_tensor * ggml_diag_mask_inf(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_past);

GGML_API struct ggml_tensor * ggml_diag_mask_inf_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_past);

// as ggml_diag_mask_inf, with 0 instead of -INF
GGML_API struct ggml_tensor * ggml_diag_mask_zero(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_past);

GGML_API struct ggml_tensor * ggml_diag_mask_zero_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   n_past);

GGML_API struct ggml_tensor * ggml_soft_max(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

GGML_API struct ggml_tensor * ggml_soft_max_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// softmax over rows of (a*scale + slope*mask); mask (optional, F16/F32) is
// [a->ne[0], >= a->ne[1], M2, M3] with a->ne[2] % M2 == 0, a->ne[3] % M3 == 0.
// slope is the ALiBi slope of the head (1 when max_bias == 0).
GGML_API struct ggml_tensor * ggml_soft_max_ext(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * mask,
        float                 scale,
        float                 max_bias);

GGML_API struct ggml_tensor * ggml_soft_max_ext_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * mask,
        float                 scale,
        float                 max_bias);

// Attention sinks: sinks F32 [a->ne[2]], one logit per head that joins the
// softmax denominator; NULL removes them.
GGML_API void ggml_soft_max_add_sinks(
        struct ggml_tensor * a,
        struct ggml_tensor * sinks);

// Rotary position embedding of the first n_dims elements of each row.
// a [D, n_head, n_tokens, B3]; b: I32 positions, one per a->ne[2].
// mode 0 rotates adjacent pairs, GGML_ROPE_TYPE_NEOX pairs (i, i + n_dims/2).
GGML_API struct ggml_tensor * ggml_rope(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   n_dims,
        int                   mode);

GGML_API struct ggml_tensor * ggml_rope_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   n_dims,
        int                   mode);

// RoPE with YaRN parameters; c (optional, F32, >= n_dims/2 elements)
// divides the frequency of each pair.
GGML_API struct ggml_tensor * ggml_rope_ext(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

GGML_API struct ggml_tensor * ggml_rope_ext_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

// Multi-section rope: mode GGML_ROPE_TYPE_MROPE, _IMROPE (sections
// interleaved) or _VISION (pairs (i, i + n_dims), n_dims = ne[0] / 2); b
// holds 4 positions per token (b[i], b[i + n], b[i + 2n], b[i + 3n] for the
// t, h, w, e sections of sections[] pairs each).
GGML_API struct ggml_tensor * ggml_rope_multi(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   sections[GGML_MROPE_SECTIONS],
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

GGML_API struct ggml_tensor * ggml_rope_multi_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   sections[GGML_MROPE_SECTIONS],
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_rope_custom(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   n_dims,
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow),
    "use ggml_rope_ext instead");

GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_rope_custom_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   n_dims,
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow),
    "use ggml_rope_ext_inplace instead");

// The rotated dims of a rope start at element n_offs of each row (even;
// not for VISION); returns a.
GGML_API struct ggml_tensor * ggml_rope_set_offset(
        struct ggml_tensor  * a,
        int                   n_offs);

// the first and last dims YaRN corrects, in [0, n_dims - 1]
GGML_API void ggml_rope_yarn_corr_dims(
        int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow, float dims[2]);

// every element limited to [min, max]; the result is a view of a
GGML_API struct ggml_tensor * ggml_clamp(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 min,
        float                 max);

// appends p<i> zeros at the end of dimension i
GGML_API struct ggml_tensor * ggml_pad(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                  p0,
        int                  p1,
        int                  p2,
        int                  p3);

// lp<i> zeros before and rp<i> zeros after dimension i
GGML_API struct ggml_tensor * ggml_pad_ext(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                  lp0,
        int                  rp0,
        int                  lp1,
        int                  rp1,
        int                  lp2,
        int                  rp2,
        int                  lp3,
        int                  rp3);

// rows mirrored around their ends: p0 elements before, p1 after (F32)
GGML_API struct ggml_tensor * ggml_pad_reflect_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   p0,
        int                   p1);

// elements moved by shift<i> along dim i, wrapping around
GGML_API struct ggml_tensor * ggml_roll(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   shift0,
        int                   shift1,
        int                   shift2,
        int                   shift3);

// as ggml_pad / ggml_pad_ext, the padding repeating a periodically
GGML_API struct ggml_tensor * ggml_pad_circular(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   p0,
        int                   p1,
        int                   p2,
        int                   p3);

GGML_API struct ggml_tensor * ggml_pad_ext_circular(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                  lp0,
        int                  rp0,
        int                  lp1,
        int                  rp1,
        int                  lp2,
        int                  rp2,
        int                  lp3,
        int                  rp3);

// [start, stop) in steps of step, F32
GGML_API struct ggml_tensor * ggml_arange(
        struct ggml_context * ctx,
        float                 start,
        float                 stop,
        float                 step);

// interpolation modes (ggml_interpolate)
enum ggml_scale_mode {
    GGML_SCALE_MODE_NEAREST  = 0,
    GGML_SCALE_MODE_BILINEAR = 1,
    GGML_SCALE_MODE_BICUBIC  = 2,

    GGML_SCALE_MODE_COUNT
};

enum ggml_scale_flag {
    GGML_SCALE_FLAG_ALIGN_CORNERS = (1 << 8),
    GGML_SCALE_FLAG_ANTIALIAS     = (1 << 9),
};

enum ggml_op_pool {
    GGML_OP_POOL_MAX,
    GGML_OP_POOL_AVG,
    GGML_OP_POOL_COUNT,
};

enum ggml_sort_order {
    GGML_SORT_ORDER_ASC,
    GGML_SORT_ORDER_DESC,
};

// pooling (F32 result); output size (in + 2 p - k) / s + 1
GGML_API struct ggml_tensor * ggml_pool_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_op_pool     op,
        int                   k0, // kernel size
        int                   s0, // stride
        int                   p0); // padding

GGML_API struct ggml_tensor * ggml_pool_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_op_pool     op,
        int                   k0,
        int                   k1,
        int                   s0,
        int                   s1,
        float                 p0,
        float                 p1);

// indices (I32) that sort each row of a
GGML_API struct ggml_tensor * ggml_argsort(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_sort_order  order);

// the first k columns of a descending argsort (a view)
GGML_API struct ggml_tensor * ggml_argsort_top_k(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   k);

// indices (I32 [k, ...]) of the k largest values of each row, in no set order
GGML_API struct ggml_tensor * ggml_top_k(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   k);

// a copy of a (inplace: a itself) with every element c (F32/F16, contiguous)
GGML_API struct ggml_tensor * ggml_fill(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 c);

GGML_API struct ggml_tensor * ggml_fill_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        float                 c);

// inclusive prefix sums along rows (F32)
GGML_API struct ggml_tensor * ggml_cumsum(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// sinusoidal embedding of timesteps [N] -> F32 [dim, N]: cos then sin of
// t * max_period^(-j / (dim/2)), j < dim/2
GGML_API struct ggml_tensor * ggml_timestep_embedding(
        struct ggml_context * ctx,
        struct ggml_tensor  * timesteps,
        int                   dim,
        int                   max_period);

// convolution patches: a is the kernel (only its shape is used), b the input
// (see lib/ggml-ops-conv.c for the layouts)
GGML_API struct ggml_tensor * ggml_im2col(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   s1,
        int                   p0,
        int                   p1,
        int                   d0,
        int                   d1,
        bool                  is_2D,
        enum ggml_type        dst_type);

// Convolutions through ggml_im2col and ggml_mul_mat. 1-D: a [K, IC, OC],
// b [IW, IC, N] -> [OW, OC, N]; 2-D: a [KW, KH, IC, OC], b [IW, IH, IC, N]
// -> [OW, OH, OC, N]; _dw: depthwise (a [K, 1, C] / [KW, KH, 1, C]);
// _ph: half padding; _sk_p0: stride = kernel, no padding; _s1_ph: stride 1.
GGML_API struct ggml_tensor * ggml_conv_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   p0,
        int                   d0);

GGML_API struct ggml_tensor * ggml_conv_1d_ph(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s,
        int                   d);

GGML_API struct ggml_tensor * ggml_conv_1d_dw(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   p0,
        int                   d0);

GGML_API struct ggml_tensor * ggml_conv_1d_dw_ph(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   d0);

GGML_API struct ggml_tensor * ggml_conv_2d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   s1,
        int                   p0,
        int                   p1,
        int                   d0,
        int                   d1);

GGML_API struct ggml_tensor * ggml_conv_2d_sk_p0(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_conv_2d_s1_ph(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

GGML_API struct ggml_tensor * ggml_conv_2d_dw(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   s1,
        int                   p0,
        int                   p1,
        int                   d0,
        int                   d1);

// Transposed convolutions (F32): 1-D a [K, OC, IC], b [IL, IC] ->
// [(IL - 1) s0 + K, OC] (p0 = 0, d0 = 1 only); 2-D a [KW, KH, OC, IC],
// b [IW, IH, IC, N] -> [(IW - 1) stride + KW, (IH - 1) stride + KH, OC, N]
GGML_API struct ggml_tensor * ggml_conv_transpose_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   p0,
        int                   d0);

GGML_API struct ggml_tensor * ggml_conv_transpose_2d_p0(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   stride);

// direct 2-D convolution: a [KW, KH, IC, OC], b [IW, IH, IC, N] -> b's type
// [OW, OH, OC, N]
GGML_API struct ggml_tensor * ggml_conv_2d_direct(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   s1,
        int                   p0,
        int                   p1,
        int                   d0,
        int                   d1);

// direct depthwise 2-D convolution: a [KW, KH, 1, C], b [IW, IH, C, N]
// (WHCN, or CWHN permuted to WHCN: the result keeps that layout)
GGML_API struct ggml_tensor * ggml_conv_2d_dw_direct(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   stride0,
        int                   stride1,
        int                   pad0,
        int                   pad1,
        int                   dilation0,
        int                   dilation1);

// resampling of F32 tensors to ne[0] * scale_factor, ne[1] * scale_factor
GGML_API struct ggml_tensor * ggml_upscale(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   scale_factor,
        enum ggml_scale_mode  mode);

GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_upscale_ext(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   ne0,
        int                   ne1,
        int                   ne2,
        int                   ne3,
        enum ggml_scale_mode  mode),
    "use ggml_interpolate instead");

// resampling to [ne0, ne1, ne2, ne3]; mode: enum ggml_scale_mode, optionally
// | GGML_SCALE_FLAG_ALIGN_CORNERS / _ANTIALIAS (bilinear)
GGML_API struct ggml_tensor * ggml_interpolate(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        int64_t               ne3,
        uint32_t              mode);

// 3-D convolutions: a [KW, KH, KD, IC * OC], b [IW, IH, ID, IC * N]
// (dim 3: n * IC + ic); ggml_im2col_3d -> [IC*KD*KH*KW, OW, OH, OD * N];
// ggml_conv_3d (im2col + mul_mat) and ggml_conv_3d_direct -> [OW, OH, OD,
// OC * N] (dim 3: n * OC + oc)
GGML_API struct ggml_tensor * ggml_im2col_3d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int64_t               IC,
        int                   s0,
        int                   s1,
        int                   s2,
        int                   p0,
        int                   p1,
        int                   p2,
        int                   d0,
        int                   d1,
        int                   d2,
        enum ggml_type        dst_type);

GGML_API struct ggml_tensor * ggml_conv_3d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int64_t               IC,
        int                   s0,
        int                   s1,
        int                   s2,
        int                   p0,
        int                   p1,
        int                   p2,
        int                   d0,
        int                   d1,
        int                   d2);

GGML_API struct ggml_tensor * ggml_conv_3d_direct(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int                   s0,
        int                   s1,
        int                   s2,
        int                   p0,
        int                   p1,
        int                   p2,
        int                   d0,
        int                   d1,
        int                   d2,
        int                   n_channels,
        int                   n_batch,
        int                   n_channels_out);

// overlap-add of columns [K * oc, T_in] at stride s0, cropped by p0 on both
// sides -> [(T_in - 1) s0 + K - 2 p0, oc]
GGML_API struct ggml_tensor * ggml_col2im_1d(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   s0,
        int                   oc,
        int                   p0);

// w x w windows of a [C, W, H] (zero-padded) -> [C, w, w, n_windows]
GGML_API struct ggml_tensor * ggml_win_part(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   w);

// the inverse of ggml_win_part: -> [C, w0, h0]
GGML_API struct ggml_tensor * ggml_win_unpart(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   w0,
        int                   h0,
        int                   w);

// decomposed relative positions (SAM): rows of a for every (query, key) pair
GGML_API struct ggml_tensor * ggml_get_rel_pos(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        int                   qh,
        int                   kh);

GGML_API struct ggml_tensor * ggml_add_rel_pos(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * pw,
        struct ggml_tensor  * ph);

GGML_API struct ggml_tensor * ggml_add_rel_pos_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * pw,
        struct ggml_tensor  * ph);

// I64 [1]: how many elements of a and b (I32, same shape) are equal
GGML_API struct ggml_tensor * ggml_count_equal(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// square F32 matrices with the elements outside the triangle set to 0
GGML_API struct ggml_tensor * ggml_tri(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        enum ggml_tri_type    type);

// [n, 1, ne2, ne3] -> diagonal matrices [n, n, ne2, ne3]
GGML_API struct ggml_tensor * ggml_diag(
        struct ggml_context * ctx,
        struct ggml_tensor  * a);

// a [n0, k, A2, A3], b [n1, k, B2, B3] -> F32 [n0, n1, B2, B3]:
// sum over k of a[:, k] b[:, k]^T
GGML_API struct ggml_tensor * ggml_out_prod(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// Mamba's causal depthwise convolution: sx [d_conv - 1 + n_t, d_inner, n_s],
// c [d_conv, d_inner] -> F32 [d_inner, n_t, n_s]
GGML_API struct ggml_tensor * ggml_ssm_conv(
        struct ggml_context * ctx,
        struct ggml_tensor  * sx,
        struct ggml_tensor  * c);

// Mamba's selective scan (see lib/ggml-ops-ssm.c): the outputs, then K
// blocks of final states, as one F32 vector
GGML_API struct ggml_tensor * ggml_ssm_scan(
        struct ggml_context * ctx,
        struct ggml_tensor  * s,
        struct ggml_tensor  * x,
        struct ggml_tensor  * dt,
        struct ggml_tensor  * A,
        struct ggml_tensor  * B,
        struct ggml_tensor  * C,
        struct ggml_tensor  * ids,
        int64_t               K);

// RWKV v7 time mixing (see lib/ggml-ops-ssm.c): F32 [S * H, T + S * n_seqs]
GGML_API struct ggml_tensor * ggml_rwkv_wkv7(
        struct ggml_context * ctx,
        struct ggml_tensor  * r,
        struct ggml_tensor  * w,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * state);

// gated linear attention (see lib/ggml-ops-ssm.c): F32 [S * H, T + S * n_seqs]
GGML_API struct ggml_tensor * ggml_gated_linear_attn(
        struct ggml_context * ctx,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * q,
        struct ggml_tensor  * g,
        struct ggml_tensor  * state,
        float                 scale);

// gated delta rule (see lib/ggml-ops-ssm.c): q, k [S, Hk, T, n_seqs],
// v [S, H, T, n_seqs], g [1 or S, H, T, n_seqs], beta [1, H, T, n_seqs],
// state [S, S, H, n_seqs]; the outputs, then K state snapshots
GGML_API struct ggml_tensor * ggml_gated_delta_net(
        struct ggml_context * ctx,
        struct ggml_tensor  * q,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * g,
        struct ggml_tensor  * beta,
        struct ggml_tensor  * state,
        int64_t               K);

// sparse attention's key scores: q [E, Hq, T, S], k [E, 1, n_kv, S],
// weights [Hq, T, 1, S] (prescaled), mask [n_kv, T, 1, S'] F16 -> F32
// [n_kv, T, 1, S]: sum over heads of relu(q . k) * weight, plus the mask
GGML_API struct ggml_tensor * ggml_lightning_indexer(
        struct ggml_context * ctx,
        struct ggml_tensor  * q,
        struct ggml_tensor  * k,
        struct ggml_tensor  * weights,
        struct ggml_tensor  * mask);

// DeepSeek V4 hyper-connections (see lib/ggml-ops-hc.c): the stream mixing
// matrices [4, 4, T] (hc = 4), the weighted sum of the streams [E, T], and
// the streams' update [E, hc, T]
GGML_API struct ggml_tensor * ggml_dsv4_hc_comb(
        struct ggml_context * ctx,
        struct ggml_tensor  * mixes,
        struct ggml_tensor  * scale,
        struct ggml_tensor  * base,
        float                 eps,
        int32_t               n_iter);

GGML_API struct ggml_tensor * ggml_dsv4_hc_pre(
        struct ggml_context * ctx,
        struct ggml_tensor  * x,
        struct ggml_tensor  * weights);

GGML_API struct ggml_tensor * ggml_dsv4_hc_post(
        struct ggml_context * ctx,
        struct ggml_tensor  * x,
        struct ggml_tensor  * residual,
        struct ggml_tensor  * post,
        struct ggml_tensor  * comb);

// X with A X = B: A [n, n] lower triangular, B [k, n]; left, lower, !uni only
GGML_API struct ggml_tensor * ggml_solve_tri(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        bool                  left,
        bool                  lower,
        bool                  uni);

// RWKV v6 time mixing: F32 [S * H, T + S * n_seqs], outputs then states
GGML_API struct ggml_tensor * ggml_rwkv_wkv6(
        struct ggml_context * ctx,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * r,
        struct ggml_tensor  * tf,
        struct ggml_tensor  * td,
        struct ggml_tensor  * state);

// Fused attention softmax(scale * q k^T + mask) v, per head.
// q [Dk, n_q, H, B], k [Dk, n_kv, Hkv, B'], v [Dv, n_kv, Hkv, B'] (rows, not
// transposed), mask (optional) [n_kv, >= n_q, M2, M3];
// H % Hkv == 0, B % B' == 0, H % M2 == 0, B % M3 == 0.
// Result F32 [Dv, H, n_q, B]: heads and queries swapped.
GGML_API struct ggml_tensor * ggml_flash_attn_ext(
        struct ggml_context * ctx,
        struct ggml_tensor  * q,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * mask,
        float                 scale,
        float                 max_bias,
        float                 logit_softcap);

GGML_API void ggml_flash_attn_ext_set_prec(
        struct ggml_tensor * a,
        enum ggml_prec       prec);

GGML_API enum ggml_prec ggml_flash_attn_ext_get_prec(
        const struct ggml_tensor * a);

// attention sinks as for ggml_soft_max_add_sinks, F32 [q->ne[2]]
GGML_API void ggml_flash_attn_ext_add_sinks(
        struct ggml_tensor * a,
        struct ggml_tensor * sinks);

//
// Custom ops: fun runs on the CPU backend's threads (ith of nth, nth at
// most n_tasks; GGML_N_TASKS_MAX: all).
//

typedef void (*ggml_custom1_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata);
typedef void (*ggml_custom2_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
                                  int ith, int nth, void * userdata);
typedef void (*ggml_custom3_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
                                  const struct ggml_tensor * c, int ith, int nth, void * userdata);

#define GGML_N_TASKS_MAX (-1)

GGML_API struct ggml_tensor * ggml_map_custom1(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        ggml_custom1_op_t     fun,
        int                   n_tasks,
        void                * userdata);

GGML_API struct ggml_tensor * ggml_map_custom1_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        ggml_custom1_op_t     fun,
        int                   n_tasks,
        void                * userdata);

GGML_API struct ggml_tensor * ggml_map_custom2(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        ggml_custom2_op_t     fun,
        int                   n_tasks,
        void                * userdata);

GGML_API struct ggml_tensor * ggml_map_custom2_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        ggml_custom2_op_t     fun,
        int                   n_tasks,
        void                * userdata);

GGML_API struct ggml_tensor * ggml_map_custom3(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        ggml_custom3_op_t     fun,
        int                   n_tasks,
        void                * userdata);

GGML_API struct ggml_tensor * ggml_map_custom3_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        ggml_custom3_op_t     fun,
        int                   n_tasks,
        void                * userdata);

typedef void (*ggml_custom_op_t)(struct ggml_tensor * dst, int ith, int nth, void * userdata);

// a new tensor computed by fun from args (at most GGML_MAX_SRC - 1)
GGML_API struct ggml_tensor * ggml_custom_4d(
        struct ggml_context * ctx,
        enum ggml_type        type,
        int64_t               ne0,
        int64_t               ne1,
        int64_t               ne2,
        int64_t               ne3,
        struct ggml_tensor ** args,
        int                   n_args,
        ggml_custom_op_t      fun,
        int                   n_tasks,
        void                * userdata);

// fun writes into a (the result is a view of a, its src[0])
GGML_API struct ggml_tensor * ggml_custom_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor ** args,
        int                   n_args,
        ggml_custom_op_t      fun,
        int                   n_tasks,
        void                * userdata);

//
// Backward ops (lib/ggml-ops-backward.c): the gradient of an op's source
// from the gradient of its result. ggml_build_backward_expand builds them;
// they are public for programs that write a backward pass by hand.
//

// sums the repetitions in a into the shape of b (the gradient of ggml_repeat)
GGML_API struct ggml_tensor * ggml_repeat_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// a = dy, b = x: dy * silu'(x)
GGML_API struct ggml_tensor * ggml_silu_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// a = dy, b = x (the input of ggml_rms_norm with eps): dx
GGML_API struct ggml_tensor * ggml_rms_norm_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        float                 eps);

// a = dy of ggml_get_rows (matrix), b = its I32 row indices (vector), c =
// the data it read (matrix, only its shape is used): F32 rows of c's shape,
// each the sum of the rows of a that read it
GGML_API struct ggml_tensor * ggml_get_rows_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c);

// a = dy, b = y (the result of ggml_soft_max_ext with scale, max_bias)
GGML_API struct ggml_tensor * ggml_soft_max_ext_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        float                 scale,
        float                 max_bias);

// the same into a (returns a view of a)
GGML_API struct ggml_tensor * ggml_soft_max_ext_back_inplace(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        float                 scale,
        float                 max_bias);

// a = dy of ggml_rope_ext with the same b (positions), c (frequency
// factors) and parameters: dx, the rotation by the opposite angles
GGML_API struct ggml_tensor * ggml_rope_ext_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

// the same for ggml_rope_multi
GGML_API struct ggml_tensor * ggml_rope_multi_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c,
        int                   n_dims,
        int                   sections[4],
        int                   mode,
        int                   n_ctx_orig,
        float                 freq_base,
        float                 freq_scale,
        float                 ext_factor,
        float                 attn_factor,
        float                 beta_fast,
        float                 beta_slow);

// a = the gradient of ggml_im2col's result, b = its kernel (only its shape
// is used), ne = the shape of its input: F32 [ne], each input element the
// sum of the patch elements that copied it
GGML_API struct ggml_tensor * ggml_im2col_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        int64_t             * ne,
        int                   s0,
        int                   s1,
        int                   p0,
        int                   p1,
        int                   d0,
        int                   d1,
        bool                  is_2D);

// a = the gradient of ggml_pool_2d's result, af = its input: F32 [af->ne]
GGML_API struct ggml_tensor * ggml_pool_2d_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * af,
        enum ggml_op_pool     op,
        int                   k0,
        int                   k1,
        int                   s0,
        int                   s1,
        float                 p0,
        float                 p1);

// The backward pass of the old flash attention op. Upstream aborts here
// (not yet adapted to ggml_flash_attn_ext); so does this library.
GGML_API struct ggml_tensor * ggml_flash_attn_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * q,
        struct ggml_tensor  * k,
        struct ggml_tensor  * v,
        struct ggml_tensor  * d,
        bool                  masked);

//
// Training (lib/ggml-ops-train.c)
//

// a = logits, b = labels (a probability distribution per row), same shape:
// F32 scalar, -sum(b * log_softmax(a)) / rows
GGML_API struct ggml_tensor * ggml_cross_entropy_loss(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b);

// a = the gradient of the loss (scalar), b = logits, c = labels:
// (softmax(b) - c) * a / rows
GGML_API struct ggml_tensor * ggml_cross_entropy_loss_back(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * b,
        struct ggml_tensor  * c);

// One AdamW step on the parameter a (flagged with ggml_set_param), in
// place; m, v its moments (updated in place); adamw_params F32 [7] = {
// alpha, beta1, beta2, eps, wd, beta1h = 1/(1 - beta1^t), beta2h = 1/(1 -
// beta2^t) }. Returns a view of a.
GGML_API struct ggml_tensor * ggml_opt_step_adamw(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * grad,
        struct ggml_tensor  * m,
        struct ggml_tensor  * v,
        struct ggml_tensor  * adamw_params);

// One SGD step with weight decay: sgd_params F32 [2] = { alpha, wd };
// a = a * (1 - alpha * wd) - alpha * grad, in place. Returns a view of a.
GGML_API struct ggml_tensor * ggml_opt_step_sgd(
        struct ggml_context * ctx,
        struct ggml_tensor  * a,
        struct ggml_tensor  * grad,
        struct ggml_tensor  * sgd_params);

//
// Graphs
//

GGML_API struct ggml_cgraph * ggml_new_graph       (struct ggml_context * ctx); // GGML_DEFAULT_GRAPH_SIZE nodes, no grads
GGML_API struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads);
GGML_API struct ggml_cgraph * ggml_graph_dup       (struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads);
GGML_API void                 ggml_graph_cpy       (struct ggml_cgraph * src, struct ggml_cgraph * dst);
GGML_API void                 ggml_graph_reset     (struct ggml_cgraph * cgraph); // zero the gradients (graphs with grads)
GGML_API void                 ggml_graph_clear     (struct ggml_cgraph * cgraph);

GGML_API int                   ggml_graph_size   (struct ggml_cgraph * cgraph);
GGML_API struct ggml_tensor *  ggml_graph_node   (struct ggml_cgraph * cgraph, int i); // i < 0 counts from the end
GGML_API struct ggml_tensor ** ggml_graph_nodes  (struct ggml_cgraph * cgraph);
GGML_API int                   ggml_graph_n_nodes(struct ggml_cgraph * cgraph);

GGML_API void   ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);

GGML_API size_t ggml_graph_overhead(void);
GGML_API size_t ggml_graph_overhead_custom(size_t size, bool grads);

GGML_API struct ggml_tensor * ggml_graph_get_tensor  (const struct ggml_cgraph * cgraph, const char * name);
GGML_API struct ggml_tensor * ggml_graph_get_grad    (const struct ggml_cgraph * cgraph, const struct ggml_tensor * node);
GGML_API struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node);

// prints the nodes and leafs of the graph through the log
GGML_API void ggml_graph_print(const struct ggml_cgraph * cgraph);

// writes cgraph as a Graphviz (dot) file; gb (or NULL) a graph whose
// gradients of cgraph's tensors are named in their boxes
GGML_API void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * cgraph, const char * filename);

// Adds tensor and, first, every tensor it depends on (depth-first).
GGML_API void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);

// Adds tensor's nodes in order without marking them to be computed (they
// are, if an expanded tensor needs them).
GGML_API void ggml_build_forward_order(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);

// Appends the backward pass of cgraph (built forward, with a loss tensor
// flagged by ggml_set_loss and parameters by ggml_set_param; a graph with
// grads): the gradient of every tensor the loss depends on through a
// parameter, in ctx. grad_accs (or NULL) gives, per node index, a tensor to
// accumulate that node's gradient into. ggml_graph_reset then sets the
// loss's gradient to 1 and the others to 0. Ops without a gradient abort.
GGML_API void ggml_build_backward_expand(
        struct ggml_context *  ctx,
        struct ggml_cgraph  *  cgraph,
        struct ggml_tensor  ** grad_accs);

// Adds every one of tensors, computes only tensors[idx] (and what it needs);
// returns tensors[idx]. The graph's nodes do not depend on idx.
GGML_API struct ggml_tensor * ggml_build_forward_select(
        struct ggml_cgraph  * cgraph,
        struct ggml_tensor ** tensors,
        int                   n_tensors,
        int                   idx);

//
// Quantization
//

// Call once before quantizing with a type (a no-op for the types here).
GGML_API void   ggml_quantize_init(enum ggml_type type);
GGML_API void   ggml_quantize_free(void);

// true for types that need an importance matrix (none implemented here)
GGML_API bool   ggml_quantize_requires_imatrix(enum ggml_type type);

// nrows rows of n_per_row floats from src, starting at element start (a
// multiple of n_per_row), into dst; returns the bytes written.
GGML_API size_t ggml_quantize_chunk(
        enum ggml_type   type,
           const float * src,
                  void * dst,
               int64_t   start,
               int64_t   nrows,
               int64_t   n_per_row,
           const float * imatrix);

//
// Type traits
//

typedef void (*ggml_to_float_t)  (const void  * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
typedef void (*ggml_from_float_t)(const float * GGML_RESTRICT x, void  * GGML_RESTRICT y, int64_t k);

struct ggml_type_traits {
    const char             * type_name;
    int64_t                  blck_size;
    int64_t                  blck_size_interleave; // 0 for every type here
    size_t                   type_size;
    bool                     is_quantized;
    ggml_to_float_t          to_float;
    ggml_from_float_t        from_float_ref;
};

GGML_API const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type);

//
// CPU thread pool parameters (the pool itself is the CPU backend's)
//

enum ggml_sched_priority {
    GGML_SCHED_PRIO_LOW = -1,
    GGML_SCHED_PRIO_NORMAL,
    GGML_SCHED_PRIO_MEDIUM,
    GGML_SCHED_PRIO_HIGH,
    GGML_SCHED_PRIO_REALTIME
};

// Filled by ggml_threadpool_params_default()/_init().
struct ggml_threadpool_params {
    bool                cpumask[GGML_MAX_N_THREADS]; // CPUs to run on; all false: no pinning
    int                 n_threads;
    enum ggml_sched_priority prio;
    uint32_t            poll;                        // 0 = sleep when idle ... 100 = spin
    bool                strict_cpu;                  // one CPU of the mask per thread
    bool                paused;                      // created paused
};

struct ggml_threadpool;

typedef struct ggml_threadpool * ggml_threadpool_t;

GGML_API struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads);
GGML_API void                          ggml_threadpool_params_init   (struct ggml_threadpool_params * p, int n_threads);
GGML_API bool                          ggml_threadpool_params_match  (const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1);


#ifdef __cplusplus
}
#endif

#endif // GGML_H
