/*
 * cpu-impl.h - internal interfaces of the CPU backend.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_IMPL_H
#define GGML_CPU_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Instruction set extensions of this CPU, read once (before main()).
// The fast kernels use avx2+fma+f16c together on x86-64 and neon on arm64;
// the other fields answer ggml_cpu_has_*().
struct ggml_cpu_isa {
    bool avx2;
    bool fma;
    bool f16c;
    bool neon;
    // x86-64, answered truthfully (cpuid + xgetbv for OS-enabled state)
    bool sse3, ssse3, avx, avx_vnni, bmi2, avx512, avx512_vbmi, avx512_vnni, avx512_bf16, amx_int8;
    bool avx512_bwvl;  // AVX512BW and AVX512VL
    bool use_vnni256;  // the AVX512-VNNI (256-bit) int8 kernels may run
    bool use_avxvnni;  // the AVX-VNNI (VEX, no AVX512) int8 GEMMs may run
    bool use_bf16dp;   // the AVX512-BF16 GEMM may run
    bool use_avx512f;  // the AVX512F float GEMM may run
    bool use_dotprod;  // the arm64 SDOT int8 kernels may run

    // arm64 (getauxval(AT_HWCAP/AT_HWCAP2))
    bool arm_fma, fp16_va, dotprod, matmul_int8, sve, sme, sme2;
    int  sve_cnt; // SVE vector length in bytes, 0 without SVE
};

const struct ggml_cpu_isa * ggml_cpu_isa(void);

// Detects again, then turns off the kernels of the extensions in the comma-
// separated list ("avx512", "dotprod"; NULL: none), as GGML_CPU_DISABLE does
// at start.
// For tests: call only while no graph is being computed.
void ggml_cpu_isa_disable(const char * list);

// True when the AVX2+FMA+F16C kernels may run (x86-64) ...
static inline bool ggml_cpu_fast_x86(void) {
    const struct ggml_cpu_isa * isa = ggml_cpu_isa();
    return isa->avx2 && isa->fma && isa->f16c;
}

// Scalar reference path: when set, graph compute uses the portable scalar
// kernels only (the backend's ggml_backend_cpu_set_use_ref() and the
// environment variable GGML_CPU_REF=1 set it). Process-wide; the CPU backend
// object may keep its own copy and pass it in the compute params instead.
void ggml_cpu_set_use_ref(bool use_ref);
bool ggml_cpu_get_use_ref(void);

// ---------------------------------------------------------------------------
// Threadpool (threadpool.c): the caller is thread 0, the pool's workers are
// threads 1..n-1. ggml_cpu_run() returns when every thread has returned from
// fn. Inside fn, ggml_cpu_barrier() waits for the n threads of this run.
// ---------------------------------------------------------------------------

struct ggml_threadpool;
typedef void (*ggml_cpu_task_fn)(void * data, int ith, int nth);

// Runs fn on n_threads threads of tp (n_threads <= pool size; a paused pool
// is resumed). tp may be NULL only when n_threads == 1.
void ggml_cpu_run(struct ggml_threadpool * tp, int n_threads, ggml_cpu_task_fn fn, void * data);
// As ggml_cpu_run(), but returns when thread 0 returns from fn: the
// workers may still be on their way out of it (fn must let them leave
// without touching anything but data), so data must be memory of the pool
// (ggml_cpu_run_state()); the next run or state request waits for them.
void ggml_cpu_run_leave(struct ggml_threadpool * tp, int n_threads, ggml_cpu_task_fn fn, void * data);
// The pool's memory for a run's state (slot < GGML_CPU_RUN_STATES), at
// least size bytes, aligned to a cache line (NULL: out of memory), once the
// last run's workers are out.
#define GGML_CPU_RUN_STATES 2
void * ggml_cpu_run_state(struct ggml_threadpool * tp, int slot, size_t size);
void ggml_cpu_barrier(struct ggml_threadpool * tp, int nth);

// A word threads wait on until it changes, and how many of them sleep on it.
struct ggml_cpu_word {
    _Alignas(64) _Atomic int val;
    _Atomic int sleepers;
};

// Adds to w and wakes its sleepers (a system call only when there are any).
void ggml_cpu_word_add_wake(struct ggml_cpu_word * w, int add);
// Waits while w holds val: spins while spinning pays (the calling thread's
// budget, shared with barriers: doubled by a wait that ended spinning,
// halved by one that had to sleep), then sleeps.
void ggml_cpu_word_wait(struct ggml_threadpool * tp, struct ggml_cpu_word * w, int val);

// ---------------------------------------------------------------------------
// Graph compute (cpu-graph.c) and op kernels (cpu-ops.c, cpu-mul-mat.c)
// ---------------------------------------------------------------------------

#include "ggml.h"
#include <stdatomic.h>
#include <stddef.h>

#define GGML_CPU_CACHE_LINE 64

// How MUL_MAT gets its activations (src1 in the form its kernels read, in
// the shared part of the work buffer): converted by all threads, or by
// thread 0 alone (few values), each followed by a barrier; or already there,
// left by an earlier MUL_MAT of the same graph with the same src1 and form.
enum ggml_cpu_act_mode {
    GGML_CPU_ACT_SPLIT = 0,
    GGML_CPU_ACT_SOLO,
    GGML_CPU_ACT_REUSE,
};

struct ggml_cpu_part;
struct ggml_cpu_thread;

struct ggml_compute_params {
    int ith, nth;              // this thread (or piece of the node), of nth (1: one thread runs it alone)
    size_t wsize;              // shared part of the work buffer (MUL_MAT's activations)
    void * wdata;
    void * scratch;            // this thread's private part of the work buffer
    size_t scratch_size;
    struct ggml_threadpool * tp;
    struct ggml_cpu_part * part;     // MUL_MAT, FLASH_ATTN_EXT: the node's chunks (ggml_cpu_chunk_next)
    struct ggml_cpu_part * act_part; // MUL_MAT: the pieces of its conversion (GGML_CPU_ACT_SPLIT)
    struct ggml_cpu_thread * thr;    // the thread's place in a walk on several threads (cpu-work.c), or NULL
    bool ref;                  // scalar reference kernels only
    enum ggml_cpu_act_mode act;
};

// Dynamic work split of a node into n chunks (n < 2^31): each thread first
// takes the chunks of its own contiguous share (n / nth of them, in order),
// then what is left of the others' shares, from their ends. A thread's own
// share costs no cache line traffic, its memory streams in order, and a
// thread that is slow (or not running) loses its unstarted chunks to the
// others. A thread's chunks count as done when it asks for one more and
// there is none: call ggml_cpu_chunk_next() until it returns -1. Without params->part (one
// thread) the chunks come in order.
#define GGML_CPU_CHUNK_STRIDE 8 // uint64_t words between two threads' words: a cache line

struct ggml_cpu_chunk_iter {
    int64_t n;
    int64_t next;   // without a part: the next chunk
    int64_t done;   // chunks this thread finished, not yet added to the part's count
    int     victim; // the share this thread takes from now
    bool    held;   // a chunk was handed out and is not counted done yet
};

void    ggml_cpu_chunk_begin(const struct ggml_compute_params * params, int64_t n, struct ggml_cpu_chunk_iter * it);
// the next chunk for this thread, or -1 when all are taken
int64_t ggml_cpu_chunk_next(const struct ggml_compute_params * params, struct ggml_cpu_chunk_iter * it);

// MUL_MAT's conversion of nr rows of src1 into the shared activations, by
// params->act: the rows this thread converts come in ranges from
// ggml_cpu_act_next(); then ggml_cpu_act_sync() waits until every row is
// converted (not called for GGML_CPU_ACT_REUSE).
struct ggml_cpu_act_iter {
    struct ggml_cpu_chunk_iter ci;
    int64_t nr, np; // rows, pieces
    bool    first;
};
void ggml_cpu_act_begin(const struct ggml_compute_params * params, int64_t nr, struct ggml_cpu_act_iter * it);
bool ggml_cpu_act_next(const struct ggml_compute_params * params, struct ggml_cpu_act_iter * it, int64_t * r0,
                       int64_t * r1);
void ggml_cpu_act_sync(const struct ggml_compute_params * params);

// Work buffer of a graph: the shared part (the largest
// ggml_cpu_op_work_shared() of its nodes), then one private scratch area per
// thread (the largest ggml_cpu_op_work_per_thread()), at the same place for
// every node, so that nodes computed without a barrier between them never
// touch another thread's scratch.
size_t ggml_cpu_op_work_shared(const struct ggml_tensor * node, int n_threads);
size_t ggml_cpu_op_work_per_thread(const struct ggml_tensor * node);
void * ggml_cpu_thread_scratch(const struct ggml_compute_params * params, const struct ggml_tensor * node);

// true when the CPU kernels implement this node (op and types)
bool ggml_cpu_supports_op(const struct ggml_tensor * node);
void ggml_cpu_compute_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);

void   ggml_cpu_mul_mat(const struct ggml_compute_params * params, struct ggml_tensor * dst);
size_t ggml_cpu_mul_mat_work_shared(const struct ggml_tensor * dst, int n_threads);
// The activations MUL_MAT writes into the shared work buffer before its
// barrier: false when it reads src1 in place. *form identifies their layout
// (two nodes with the same src1 and form leave the same bytes), *n_values
// how many values are converted.
bool   ggml_cpu_mul_mat_act_form(const struct ggml_tensor * dst, bool ref, int * form, int64_t * n_values);
size_t ggml_cpu_mul_mat_work_per_thread(const struct ggml_tensor * dst);
bool   ggml_cpu_mul_mat_supported(const struct ggml_tensor * dst);

// MUL_MAT_ID (cpu-mul-mat-id.c)
void   ggml_cpu_mul_mat_id(const struct ggml_compute_params * params, struct ggml_tensor * dst);
bool   ggml_cpu_mul_mat_id_supported(const struct ggml_tensor * dst);
size_t ggml_cpu_mul_mat_id_work_per_thread(const struct ggml_tensor * dst);

// Op families in their own files; ggml_cpu_supports_op(), _compute_forward()
// and the work sizes of cpu-ops.c call these.
// ACC, SET, ADD_ID, TOP_K, FILL, CUMSUM, ROLL, PAD_REFLECT_1D, COUNT_EQUAL (cpu-ops-indexing.c)
bool   ggml_cpu_indexing_supports_op(const struct ggml_tensor * node);
size_t ggml_cpu_indexing_work_per_thread(const struct ggml_tensor * node);
void   ggml_cpu_indexing_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// L2_NORM, GROUP_NORM (cpu-ops-norm.c)
bool   ggml_cpu_norm_supports_op(const struct ggml_tensor * node);
void   ggml_cpu_norm_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// IM2COL, POOL_1D, POOL_2D, TIMESTEP_EMBEDDING (cpu-ops-conv.c)
bool   ggml_cpu_conv_supports_op(const struct ggml_tensor * node);
size_t ggml_cpu_conv_work_per_thread(const struct ggml_tensor * node);
void   ggml_cpu_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// OUT_PROD, TRI, DIAG, SOLVE_TRI, LIGHTNING_INDEXER (cpu-ops-linalg.c)
bool   ggml_cpu_linalg_supports_op(const struct ggml_tensor * node);
size_t ggml_cpu_linalg_work_per_thread(const struct ggml_tensor * node);
void   ggml_cpu_linalg_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// DSV4_HC_COMB, DSV4_HC_PRE, DSV4_HC_POST (cpu-ops-hc.c)
bool   ggml_cpu_hc_supports_op(const struct ggml_tensor * node);
void   ggml_cpu_hc_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// MAP_CUSTOM1..3, CUSTOM (cpu-ops-custom.c): the user's function
bool   ggml_cpu_backward_supports_op(const struct ggml_tensor * node);
void   ggml_cpu_backward_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);

bool   ggml_cpu_train_supports_op(const struct ggml_tensor * node);
void   ggml_cpu_train_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);

void   ggml_cpu_custom_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// FLASH_ATTN_EXT (cpu-ops-attn.c)
bool   ggml_cpu_attn_supports_op(const struct ggml_tensor * node);
size_t ggml_cpu_attn_work_per_thread(const struct ggml_tensor * node);
// The decode form splits the keys into ranges whose partial results are
// merged after a wait inside the node (as MUL_MAT's conversion): how many
// ranges on nth threads (1: no split, no wait), and the shared work buffer
// the partials take.
int64_t ggml_cpu_attn_key_ranges(const struct ggml_tensor * node, int nth, bool ref);
size_t ggml_cpu_attn_work_shared(const struct ggml_tensor * node, int n_threads);
void   ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);
// SSM_CONV, SSM_SCAN, RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN, GATED_DELTA_NET (cpu-ops-ssm.c)
bool   ggml_cpu_ssm_supports_op(const struct ggml_tensor * node);
size_t ggml_cpu_ssm_work_per_thread(const struct ggml_tensor * node);
void   ggml_cpu_ssm_forward(const struct ggml_compute_params * params, struct ggml_tensor * node);

// rows and elements in any supported type, as F32 (cpu-ops.c)
bool  ggml_cpu_type_to_f32_ok(enum ggml_type type);
bool  ggml_cpu_type_from_f32_ok(enum ggml_type type);
void  ggml_cpu_row_to_f32(enum ggml_type type, const void * src, float * dst, int64_t n, bool ref);
void  ggml_cpu_row_from_f32(enum ggml_type type, const float * src, void * dst, int64_t n, bool ref);

// the ALiBi slope of head h of n_head (1 when max_bias <= 0) (cpu-ops.c)
float ggml_cpu_alibi_slope(float max_bias, int64_t h, int64_t n_head);

// Dispatched float and quantized dots (cpu-mul-mat.c)
float ggml_cpu_dot_f32(int64_t n, const float * x, const float * y, bool ref);

// ggml_graph_compute with an explicit reference-path switch (the CPU
// backend object passes its own use_ref)
struct ggml_cgraph;
struct ggml_cplan;

// Repacked weights (cpu-repack.c): t (or the tensor it views) is in a
// CPU_REPACK buffer and of a type stored interleaved there
bool    ggml_cpu_is_repacked(const struct ggml_tensor * t);
// for a repacked MUL_MAT src0: its first rows that are in full groups of 16
// (the rest are plain), or -1 if MUL_MAT cannot read it (a view that does not
// start at a group, or with other strides)
int64_t ggml_cpu_repack_mm_rows(const struct ggml_tensor * t);
// this CPU has int8 kernels for the repacked layout
bool    ggml_cpu_repack_fast(void);
// ... for this weight type (the device takes only those into CPU_REPACK)
bool    ggml_cpu_repack_type_fast(enum ggml_type type);

// NUMA (cpu-numa.c)
int ggml_cpu_numa_n_nodes(void);

#endif // GGML_CPU_IMPL_H
