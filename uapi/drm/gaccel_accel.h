/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * gaccel: uAPI of the gaccel DRM accel driver (/dev/accel/accelN).
 *
 * Rules that hold for every ioctl of this header:
 *
 * - Ioctl numbers form an append-only enum: an ioctl, once released, keeps its
 *   number and its struct may only grow at the end.
 * - All types are fixed size with explicit padding; pointers are __u64.
 * - Every flag, pad and reserved field must be zero, otherwise the ioctl fails
 *   with -EINVAL (and drm_dbg() says which field was wrong).
 * - Arrays are described by {stride, count, pointer} so that their elements
 *   can grow; see &struct drm_gaccel_array.
 * - Sizes of variable-length replies are negotiated: see &struct
 *   drm_gaccel_query.
 */
#ifndef _UAPI_DRM_GACCEL_ACCEL_H_
#define _UAPI_DRM_GACCEL_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Bumped on every backwards-compatible addition. */
#define DRM_GACCEL_UAPI_VERSION_MAJOR	0
#define DRM_GACCEL_UAPI_VERSION_MINOR	2

/**
 * enum drm_gaccel_ioctl_id - driver ioctl numbers, relative to
 * DRM_COMMAND_BASE. Append only.
 *
 * @DRM_GACCEL_QUERY: query device information, see &struct drm_gaccel_query.
 * @DRM_GACCEL_BO_CREATE: create a shmem buffer object, see
 *	&struct drm_gaccel_bo_create.
 * @DRM_GACCEL_BO_INFO: describe a buffer object, see &struct drm_gaccel_bo_info.
 * @DRM_GACCEL_BO_CREATE_USERPTR: wrap user memory in a buffer object without
 *	copying it, see &struct drm_gaccel_bo_create_userptr.
 * @DRM_GACCEL_GRAPH_CREATE: copy in and validate a graph program, see
 *	&struct drm_gaccel_graph_create.
 * @DRM_GACCEL_GRAPH_DESTROY: drop a graph handle, see
 *	&struct drm_gaccel_graph_destroy.
 * @DRM_GACCEL_QUEUE_CREATE: create a submission queue, see
 *	&struct drm_gaccel_queue_create.
 * @DRM_GACCEL_QUEUE_DESTROY: destroy a queue, see
 *	&struct drm_gaccel_queue_destroy.
 * @DRM_GACCEL_QUEUE_GET_STATE: read a queue's error state and counters, see
 *	&struct drm_gaccel_queue_get_state.
 * @DRM_GACCEL_SUBMIT: queue jobs, see &struct drm_gaccel_submit.
 * @DRM_GACCEL_BO_WAIT: wait for the jobs using a buffer object, see
 *	&struct drm_gaccel_bo_wait.
 */
enum drm_gaccel_ioctl_id {
	DRM_GACCEL_QUERY = 0,
	DRM_GACCEL_BO_CREATE = 1,
	DRM_GACCEL_BO_INFO = 2,
	DRM_GACCEL_BO_CREATE_USERPTR = 3,
	DRM_GACCEL_GRAPH_CREATE = 4,
	DRM_GACCEL_GRAPH_DESTROY = 5,
	DRM_GACCEL_QUEUE_CREATE = 6,
	DRM_GACCEL_QUEUE_DESTROY = 7,
	DRM_GACCEL_QUEUE_GET_STATE = 8,
	DRM_GACCEL_SUBMIT = 9,
	DRM_GACCEL_BO_WAIT = 10,
};

/**
 * enum drm_gaccel_query_type - what &struct drm_gaccel_query asks for.
 *
 * @DRM_GACCEL_QUERY_DEVICE_INFO: &struct drm_gaccel_device_info.
 * @DRM_GACCEL_QUERY_OPS: &struct drm_gaccel_query_ops followed by its
 *	entries, one &struct drm_gaccel_op_info per op the engine runs.
 * @DRM_GACCEL_QUERY_DTYPES: &struct drm_gaccel_query_dtypes followed by
 *	its entries, one &struct drm_gaccel_dtype_info per dtype.
 * @DRM_GACCEL_QUERY_LIMITS: &struct drm_gaccel_limits (uAPI 0.2).
 */
enum drm_gaccel_query_type {
	DRM_GACCEL_QUERY_DEVICE_INFO = 0,
	DRM_GACCEL_QUERY_OPS = 1,
	DRM_GACCEL_QUERY_DTYPES = 2,
	DRM_GACCEL_QUERY_LIMITS = 3,
};

/**
 * struct drm_gaccel_query - argument of DRM_IOCTL_GACCEL_QUERY.
 *
 * With @pointer zero, the kernel only stores in @size the number of bytes
 * it has for @type. Otherwise it copies min(@size, its size) bytes to
 * @pointer, zeroes the bytes of the user buffer past its own size (so that
 * newer userspace reads zero for fields an older kernel does not know) and
 * stores its own size in @size. A buffer shorter than the kernel's structure
 * therefore receives a valid prefix of it.
 */
struct drm_gaccel_query {
	/** @type: Input: one of &enum drm_gaccel_query_type. */
	__u32 type;
	/**
	 * @size: Input: size in bytes of the buffer at @pointer.
	 * Output: size in bytes of the kernel's reply for @type.
	 */
	__u32 size;
	/** @pointer: Input: user pointer to the reply buffer, or 0. */
	__u64 pointer;
	/** @reserved: Input: must be zero. */
	__u64 reserved;
};

/**
 * enum drm_gaccel_engine_kind - what executes the jobs.
 *
 * @DRM_GACCEL_ENGINE_SOFTWARE: the reference engine, kernel worker threads
 *	computing on host memory.
 * @DRM_GACCEL_ENGINE_HARDWARE: a vendor engine driving real silicon.
 */
enum drm_gaccel_engine_kind {
	DRM_GACCEL_ENGINE_SOFTWARE = 0,
	DRM_GACCEL_ENGINE_HARDWARE = 1,
};

/**
 * enum drm_gaccel_mem_kind - where buffer objects live.
 *
 * @DRM_GACCEL_MEM_HOST: host memory shared with the CPU (unified memory);
 *	the device can work on any page userspace can pin.
 * @DRM_GACCEL_MEM_DEVICE: dedicated device memory.
 */
enum drm_gaccel_mem_kind {
	DRM_GACCEL_MEM_HOST = 0,
	DRM_GACCEL_MEM_DEVICE = 1,
};

/**
 * struct drm_gaccel_device_info - reply of %DRM_GACCEL_QUERY_DEVICE_INFO.
 *
 * All fields are Output. New fields are only ever appended.
 */
struct drm_gaccel_device_info {
	/** @uapi_major: %DRM_GACCEL_UAPI_VERSION_MAJOR of the driver. */
	__u32 uapi_major;
	/** @uapi_minor: %DRM_GACCEL_UAPI_VERSION_MINOR of the driver. */
	__u32 uapi_minor;
	/** @engine_name: NUL-terminated name of the engine. */
	char engine_name[32];
	/** @engine_kind: one of &enum drm_gaccel_engine_kind. */
	__u32 engine_kind;
	/** @mem_kind: one of &enum drm_gaccel_mem_kind. */
	__u32 mem_kind;
	/** @mem_size: bytes of memory the engine can address. */
	__u64 mem_size;
	/** @max_bo_size: largest buffer object the driver creates, in bytes. */
	__u64 max_bo_size;
	/** @bo_alignment: alignment of buffer object sizes and offsets. */
	__u32 bo_alignment;
	/** @max_rank: highest tensor rank a graph may use. */
	__u32 max_rank;
	/** @max_graph_nodes: most nodes a graph may hold. */
	__u32 max_graph_nodes;
	/** @max_graph_tensors: most tensor descriptors a graph may hold. */
	__u32 max_graph_tensors;
	/** @max_bindings: most binding slots a graph may declare. */
	__u32 max_bindings;
	/** @num_workers: execution units (threads or cores) of the engine. */
	__u32 num_workers;
};

/**
 * struct drm_gaccel_limits - reply of %DRM_GACCEL_QUERY_LIMITS.
 *
 * What one open file of the node may hold at a time, and what all the files
 * of one user may hold together (the max_user_* fields). A file counts for
 * the real uid of the task that opened it and, when opened inside user
 * namespaces, for the owner of each of them up to the first one created by
 * the global root. Each limit is a module parameter of gaccel.ko (named in
 * brackets) that the administrator may change; a file sees the values in
 * force when it asks. Going past a limit, of the file or of one of its
 * users, fails the ioctl that would have gone past it: -EMFILE for a count
 * of objects, -ENOMEM for bytes, -EAGAIN for jobs in flight (retry once
 * some have completed), -EINVAL for the size of one request. Nothing is
 * taken from the file or its users when it fails.
 *
 * All fields are Output. New fields are only ever appended.
 */
struct drm_gaccel_limits {
	/** @max_bos: buffer object handles per file [max_bos]. */
	__u64 max_bos;
	/**
	 * @max_bo_bytes: bytes of all buffer objects the file holds handles
	 * to, shmem, userptr and imported alike [max_bo_mib].
	 */
	__u64 max_bo_bytes;
	/** @max_graphs: graphs per file [max_graphs]. */
	__u64 max_graphs;
	/**
	 * @max_graph_bytes: kernel memory of all the file's graphs, as
	 * copied in and validated [max_graph_mib].
	 */
	__u64 max_graph_bytes;
	/** @max_queues: queues per file [max_queues]. */
	__u64 max_queues;
	/** @max_jobs: jobs submitted and not yet finished, per file [max_jobs]. */
	__u64 max_jobs;
	/** @max_queue_jobs: jobs in flight per queue [max_queue_jobs]. */
	__u64 max_queue_jobs;
	/** @max_submit_jobs: jobs in one SUBMIT [max_submit_jobs]. */
	__u64 max_submit_jobs;
	/** @max_job_syncs: waits and signals of one job [max_job_syncs]. */
	__u64 max_job_syncs;
	/**
	 * @max_scratch_bytes: engine scratch memory one job may need, over
	 * all of the engine's workers [max_scratch_mib].
	 */
	__u64 max_scratch_bytes;
	/**
	 * @job_timeout_ms: how long one job may run before it is cancelled
	 * and its queue marked timed out [job_timeout_ms].
	 */
	__u64 job_timeout_ms;
	/** @max_user_bos: buffer object handles per user [max_user_bos]. */
	__u64 max_user_bos;
	/** @max_user_bo_bytes: bytes behind them [max_user_bo_mib]. */
	__u64 max_user_bo_bytes;
	/** @max_user_graphs: graphs per user [max_user_graphs]. */
	__u64 max_user_graphs;
	/** @max_user_graph_bytes: their kernel memory [max_user_graph_mib]. */
	__u64 max_user_graph_bytes;
	/** @max_user_queues: queues per user [max_user_queues]. */
	__u64 max_user_queues;
	/** @max_user_jobs: jobs in flight per user [max_user_jobs]. */
	__u64 max_user_jobs;
};

/**
 * DOC: buffer object flags
 *
 * Flags of &struct drm_gaccel_bo_create (Input) and &struct drm_gaccel_bo_info
 * (Output). Only %DRM_GACCEL_BO_NO_MMAP may be passed to BO_CREATE; only
 * %DRM_GACCEL_BO_READ_ONLY may be passed to BO_CREATE_USERPTR. The others
 * describe how an existing object was made.
 *
 * %DRM_GACCEL_BO_NO_MMAP: the object has no mmap offset; mmap() of the
 * accel node and of an exported dma-buf fails.
 * %DRM_GACCEL_BO_READ_ONLY: the device never writes the object; a job that
 * binds it to a slot some node writes is refused, and CPU mappings of it
 * cannot be writable. Set for read-only userptrs and for imports of
 * dma-bufs whose file is not open for writing.
 * %DRM_GACCEL_BO_USERPTR: the object wraps pinned user memory.
 * %DRM_GACCEL_BO_IMPORTED: the object was imported from a dma-buf.
 */
#define DRM_GACCEL_BO_NO_MMAP		0x1u
#define DRM_GACCEL_BO_READ_ONLY		0x2u
#define DRM_GACCEL_BO_USERPTR		0x4u
#define DRM_GACCEL_BO_IMPORTED		0x8u

/**
 * struct drm_gaccel_bo_create - argument of DRM_IOCTL_GACCEL_BO_CREATE.
 *
 * Creates a buffer object backed by shmem pages, allocated on first use.
 * The object is released with the core DRM_IOCTL_GEM_CLOSE and can be
 * exported with DRM_IOCTL_PRIME_HANDLE_TO_FD.
 *
 * Errors: -EINVAL for a zero size, a size above
 * &drm_gaccel_device_info.max_bo_size or an unknown flag; -EMFILE when the
 * file holds &drm_gaccel_limits.max_bos handles; -ENOMEM past
 * &drm_gaccel_limits.max_bo_bytes, or out of memory. -EFAULT when the
 * result cannot be copied back: the handle then stays with the file until
 * GEM_CLOSE or close.
 */
struct drm_gaccel_bo_create {
	/**
	 * @size: Input: size in bytes, not zero.
	 * Output: the size rounded up to &drm_gaccel_device_info.bo_alignment.
	 */
	__u64 size;
	/** @flags: Input: %DRM_GACCEL_BO_NO_MMAP or zero. */
	__u32 flags;
	/** @handle: Output: GEM handle of the new object. */
	__u32 handle;
};

/**
 * struct drm_gaccel_bo_info - argument of DRM_IOCTL_GACCEL_BO_INFO.
 *
 * Errors: -ENOENT for a handle this file does not hold; -EINVAL if @pad is
 * not zero.
 */
struct drm_gaccel_bo_info {
	/** @handle: Input: GEM handle. */
	__u32 handle;
	/** @pad: Input: must be zero. */
	__u32 pad;
	/** @flags: Output: DRM_GACCEL_BO_* flags of the object. */
	__u32 flags;
	/** @pad2: Output: zero. */
	__u32 pad2;
	/** @size: Output: size in bytes. */
	__u64 size;
	/**
	 * @mmap_offset: Output: offset to pass to mmap() on the accel file
	 * descriptor (MAP_SHARED only), or 0 if the object cannot be mapped.
	 */
	__u64 mmap_offset;
};

/**
 * struct drm_gaccel_bo_create_userptr - argument of
 * DRM_IOCTL_GACCEL_BO_CREATE_USERPTR.
 *
 * Pins the pages of [@pointer, @pointer + @size) long term and makes them a
 * buffer object, without copying: the device works on the very pages the
 * process sees. Without %DRM_GACCEL_BO_READ_ONLY the pages are pinned for
 * writing, which the kernel refuses for read-only mappings and for
 * file-backed mappings other than shmem (tmpfs, memfd); map a weights file
 * read-only and pass %DRM_GACCEL_BO_READ_ONLY. The pinned pages count
 * against RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.
 *
 * The object is a dma-buf import like any other: it can be exported, and
 * it stays valid after the range is unmapped (the pages stay pinned until
 * the last reference goes). It has no mmap offset.
 *
 * The object holds the pages mapped at pin time and the process keeps
 * them: pinning private memory (anonymous, or a MAP_PRIVATE file mapping)
 * first gives the process its own copy of every page it shared
 * copy-on-write, READ_ONLY included, so the process's later writes and the
 * device's meet in the same pages, and a fork() afterwards gives the child
 * copies. Only a MAP_SHARED file mapping is zero copy of the file: a
 * MAP_PRIVATE one is copied at pin time.
 *
 * Errors: -EINVAL for an unknown flag, a zero or unaligned @pointer or
 * @size, a range that wraps or exceeds &drm_gaccel_device_info.max_bo_size;
 * -EFAULT for a range that is not mapped or not writable (without
 * %DRM_GACCEL_BO_READ_ONLY); -ENOMEM when RLIMIT_MEMLOCK would be exceeded
 * (the pages show in the caller's VmPin even with CAP_IPC_LOCK) or past
 * &drm_gaccel_limits.max_bo_bytes; -EMFILE past &drm_gaccel_limits.max_bos.
 *
 * A %DRM_GACCEL_BO_READ_ONLY object stays read-only for everyone: its
 * dma-buf (which re-exporting the object hands out) is O_RDONLY, other
 * devices may only map it DMA_TO_DEVICE and CPU write access to it fails.
 */
struct drm_gaccel_bo_create_userptr {
	/** @pointer: Input: start of the range, page aligned. */
	__u64 pointer;
	/** @size: Input: length of the range in bytes, page aligned. */
	__u64 size;
	/** @flags: Input: %DRM_GACCEL_BO_READ_ONLY or zero. */
	__u32 flags;
	/** @handle: Output: GEM handle of the new object. */
	__u32 handle;
};

#define DRM_IOCTL_GACCEL_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_QUERY, struct drm_gaccel_query)
#define DRM_IOCTL_GACCEL_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_BO_CREATE, \
		 struct drm_gaccel_bo_create)
#define DRM_IOCTL_GACCEL_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_BO_INFO, struct drm_gaccel_bo_info)
#define DRM_IOCTL_GACCEL_BO_CREATE_USERPTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_BO_CREATE_USERPTR, \
		 struct drm_gaccel_bo_create_userptr)

/**
 * enum drm_gaccel_dtype - element types of tensors.
 *
 * gaccel's own numbering, frozen: a value is never renumbered or reused,
 * new dtypes are appended. Userspace maps its own types (ggml's enum
 * ggml_type) to these. Which ones an engine accepts is reported by
 * %DRM_GACCEL_QUERY_DTYPES. (uAPI 0.1 used ggml's values; 0.2 does not.)
 *
 * @DRM_GACCEL_DTYPE_F32: 32-bit IEEE float.
 * @DRM_GACCEL_DTYPE_F16: 16-bit IEEE float.
 * @DRM_GACCEL_DTYPE_BF16: bfloat16.
 * @DRM_GACCEL_DTYPE_Q4_0: blocks of 32 4-bit values with an F16 scale.
 * @DRM_GACCEL_DTYPE_Q8_0: blocks of 32 8-bit values with an F16 scale.
 * @DRM_GACCEL_DTYPE_I32: 32-bit signed integer.
 * @DRM_GACCEL_DTYPE_I64: 64-bit signed integer (row indices).
 */
enum drm_gaccel_dtype {
	DRM_GACCEL_DTYPE_F32 = 0,
	DRM_GACCEL_DTYPE_F16 = 1,
	DRM_GACCEL_DTYPE_BF16 = 2,
	DRM_GACCEL_DTYPE_Q4_0 = 3,
	DRM_GACCEL_DTYPE_Q8_0 = 4,
	DRM_GACCEL_DTYPE_I32 = 5,
	DRM_GACCEL_DTYPE_I64 = 6,
};

/**
 * enum drm_gaccel_op - graph node operations.
 *
 * Semantics follow the ggml op of the same name; operand layout and op
 * parameters are described in Documentation/gaccel-uapi.rst. Views,
 * reshapes, permutes and transposes are tensor descriptors, not ops.
 *
 * @DRM_GACCEL_OP_NONE: invalid.
 * @DRM_GACCEL_OP_MUL_MAT: dst = src1 x src0^T (ggml_mul_mat).
 * @DRM_GACCEL_OP_ADD: dst = src0 + src1, src1 broadcast.
 * @DRM_GACCEL_OP_MUL: dst = src0 * src1, src1 broadcast.
 * @DRM_GACCEL_OP_SCALE: dst = src0 * params[0] + params[1] (floats).
 * @DRM_GACCEL_OP_RMS_NORM: rows divided by their RMS; params[0] = eps.
 * @DRM_GACCEL_OP_NORM: rows minus mean, divided by stddev; params[0] = eps.
 * @DRM_GACCEL_OP_SOFT_MAX: softmax of rows of src0 * scale + mask (src1,
 *	optional); params[0] = scale, params[1] = max_bias (must be 0).
 * @DRM_GACCEL_OP_ROPE: rotary embedding; src1 positions (I32), src2
 *	optional frequency factors; params as ggml_rope_ext.
 * @DRM_GACCEL_OP_GET_ROWS: dst rows = src0 rows picked by src1 (I32, I64).
 * @DRM_GACCEL_OP_SET_ROWS: dst rows picked by src1 (I32, I64) = src0 rows.
 * @DRM_GACCEL_OP_CPY: copy with dtype conversion, same element count.
 * @DRM_GACCEL_OP_SILU: x * sigmoid(x).
 * @DRM_GACCEL_OP_GELU: GELU, tanh approximation.
 * @DRM_GACCEL_OP_SWIGLU: silu(src0) * src1, or of the halves of src0's rows
 *	(params[1] = swapped, 0 or 1).
 * @DRM_GACCEL_OP_GEGLU: gelu(src0) * src1, or of the halves of src0's rows
 *	(params[1] = swapped, 0 or 1).
 *
 * Values are frozen and only ever appended; there is no count: which ops a
 * device runs is reported by %DRM_GACCEL_QUERY_OPS.
 */
enum drm_gaccel_op {
	DRM_GACCEL_OP_NONE = 0,
	DRM_GACCEL_OP_MUL_MAT = 1,
	DRM_GACCEL_OP_ADD = 2,
	DRM_GACCEL_OP_MUL = 3,
	DRM_GACCEL_OP_SCALE = 4,
	DRM_GACCEL_OP_RMS_NORM = 5,
	DRM_GACCEL_OP_NORM = 6,
	DRM_GACCEL_OP_SOFT_MAX = 7,
	DRM_GACCEL_OP_ROPE = 8,
	DRM_GACCEL_OP_GET_ROWS = 9,
	DRM_GACCEL_OP_SET_ROWS = 10,
	DRM_GACCEL_OP_CPY = 11,
	DRM_GACCEL_OP_SILU = 12,
	DRM_GACCEL_OP_GELU = 13,
	DRM_GACCEL_OP_SWIGLU = 14,
	DRM_GACCEL_OP_GEGLU = 15,
};

/**
 * struct drm_gaccel_query_ops - reply header of %DRM_GACCEL_QUERY_OPS.
 *
 * Followed by @count entries of @entry_size bytes each, every one starting
 * with a &struct drm_gaccel_op_info.
 */
struct drm_gaccel_query_ops {
	/** @count: Output: number of entries. */
	__u32 count;
	/** @entry_size: Output: bytes per entry. */
	__u32 entry_size;
};

/**
 * struct drm_gaccel_op_info - one op the engine runs.
 *
 * A dtype mask has bit N set when &enum drm_gaccel_dtype value N is
 * accepted in that position.
 */
struct drm_gaccel_op_info {
	/** @op: Output: &enum drm_gaccel_op. */
	__u32 op;
	/** @max_rank: Output: highest rank of its operands. */
	__u32 max_rank;
	/** @src0_dtypes: Output: dtypes accepted for the first source. */
	__u64 src0_dtypes;
	/** @src1_dtypes: Output: dtypes accepted for the second source. */
	__u64 src1_dtypes;
	/** @dst_dtypes: Output: dtypes accepted for the destination. */
	__u64 dst_dtypes;
};

/**
 * struct drm_gaccel_query_dtypes - reply header of %DRM_GACCEL_QUERY_DTYPES.
 *
 * Followed by @count entries of @entry_size bytes each, every one starting
 * with a &struct drm_gaccel_dtype_info.
 */
struct drm_gaccel_query_dtypes {
	/** @count: Output: number of entries. */
	__u32 count;
	/** @entry_size: Output: bytes per entry. */
	__u32 entry_size;
};

/** struct drm_gaccel_dtype_info - one dtype the engine knows. */
struct drm_gaccel_dtype_info {
	/** @dtype: Output: &enum drm_gaccel_dtype. */
	__u32 dtype;
	/** @block_size: Output: elements per block (1 for plain types). */
	__u32 block_size;
	/** @type_size: Output: bytes per block. */
	__u32 type_size;
	/** @alignment: Output: required byte alignment of offsets and strides. */
	__u32 alignment;
};

/**
 * struct drm_gaccel_array - a user array of @count elements, @stride bytes
 * apart.
 *
 * @stride may exceed the size of the element structure the kernel knows
 * (newer userspace): the extra bytes of every element must then be zero,
 * otherwise the ioctl fails with -E2BIG. A stride smaller than the
 * element's mandatory part is refused with -EINVAL.
 */
struct drm_gaccel_array {
	/** @stride: Input: bytes from one element to the next. */
	__u32 stride;
	/** @count: Input: number of elements. */
	__u32 count;
	/** @pointer: Input: user pointer to the first element. */
	__u64 pointer;
};

/** Marks an unused source of &struct drm_gaccel_node. */
#define DRM_GACCEL_NO_TENSOR	0xffffffffu
/** Sources per node. */
#define DRM_GACCEL_MAX_SRC	4
/** 32-bit op parameters per node (floats are stored by bit pattern). */
#define DRM_GACCEL_MAX_PARAMS	16

/**
 * struct drm_gaccel_slot - a binding slot of a graph: a range of memory a
 * job binds to a buffer object.
 */
struct drm_gaccel_slot {
	/** @size: Input: bytes every tensor of the slot must fit in. */
	__u64 size;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @pad: Input: must be zero. */
	__u32 pad;
};

/**
 * struct drm_gaccel_tensor - a tensor descriptor over a binding slot.
 *
 * As in ggml: @ne counts elements per dimension, @nb gives the byte stride
 * of each dimension (nb[0] the size of an element or block). Unused
 * dimensions have ne = 1.
 */
struct drm_gaccel_tensor {
	/** @slot: Input: index into the graph's slots. */
	__u32 slot;
	/** @dtype: Input: &enum drm_gaccel_dtype. */
	__u32 dtype;
	/** @offset: Input: byte offset of the first element in the slot. */
	__u64 offset;
	/** @ne: Input: elements per dimension, each at least 1. */
	__u64 ne[4];
	/** @nb: Input: byte strides per dimension. */
	__u64 nb[4];
};

/** struct drm_gaccel_node - one operation of a graph. */
struct drm_gaccel_node {
	/** @op: Input: &enum drm_gaccel_op. */
	__u32 op;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @dst: Input: index of the destination tensor. */
	__u32 dst;
	/** @pad: Input: must be zero. */
	__u32 pad;
	/** @src: Input: source tensor indices, or %DRM_GACCEL_NO_TENSOR. */
	__u32 src[DRM_GACCEL_MAX_SRC];
	/**
	 * @params: Input: op parameters; the words an op does not read (see
	 * DRM_GACCEL_PARAMS_*) must be zero.
	 */
	__s32 params[DRM_GACCEL_MAX_PARAMS];
};

/**
 * struct drm_gaccel_graph_create - argument of DRM_IOCTL_GACCEL_GRAPH_CREATE.
 *
 * The program is copied into the kernel and validated once: every op and
 * dtype against the engine's tables, every shape against its op, every
 * byte a node can read or write against its slot's declared size. A graph
 * is immutable afterwards; jobs only bind buffer objects to its slots.
 *
 * Errors: -EINVAL for any rule broken (drm_dbg() names it), -E2BIG for
 * non-zero bytes past the known part of an array element, -EFAULT.
 */
struct drm_gaccel_graph_create {
	/** @slots: Input: array of &struct drm_gaccel_slot. */
	struct drm_gaccel_array slots;
	/** @tensors: Input: array of &struct drm_gaccel_tensor. */
	struct drm_gaccel_array tensors;
	/** @nodes: Input: array of &struct drm_gaccel_node, run in order. */
	struct drm_gaccel_array nodes;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @handle: Output: graph handle, never 0. */
	__u32 handle;
};

/** struct drm_gaccel_graph_destroy - argument of DRM_IOCTL_GACCEL_GRAPH_DESTROY. */
struct drm_gaccel_graph_destroy {
	/** @handle: Input: graph handle. Jobs in flight keep the graph. */
	__u32 handle;
	/** @pad: Input: must be zero. */
	__u32 pad;
};

/**
 * enum drm_gaccel_queue_priority - scheduling priority of a queue.
 * @DRM_GACCEL_QUEUE_PRIORITY_LOW: runs on schedulers with nothing else
 *	ready.
 * @DRM_GACCEL_QUEUE_PRIORITY_NORMAL: the default.
 * @DRM_GACCEL_QUEUE_PRIORITY_HIGH: served before NORMAL and LOW work;
 *	needs CAP_SYS_NICE (QUEUE_CREATE fails with -EACCES otherwise).
 */
enum drm_gaccel_queue_priority {
	DRM_GACCEL_QUEUE_PRIORITY_LOW = 0,
	DRM_GACCEL_QUEUE_PRIORITY_NORMAL = 1,
	DRM_GACCEL_QUEUE_PRIORITY_HIGH = 2,
};

/**
 * struct drm_gaccel_queue_create - argument of DRM_IOCTL_GACCEL_QUEUE_CREATE.
 *
 * Errors: -EINVAL for an unknown priority or non-zero flags/pad; -EACCES
 * for HIGH without CAP_SYS_NICE; -EMFILE when the file has max_queues
 * queues.
 */
struct drm_gaccel_queue_create {
	/** @priority: Input: &enum drm_gaccel_queue_priority. */
	__u32 priority;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @handle: Output: queue handle, never 0. */
	__u32 handle;
	/** @pad: Input: must be zero. */
	__u32 pad;
};

/**
 * struct drm_gaccel_queue_destroy - argument of DRM_IOCTL_GACCEL_QUEUE_DESTROY.
 *
 * Jobs already queued still run and signal their fences.
 */
struct drm_gaccel_queue_destroy {
	/** @handle: Input: queue handle. */
	__u32 handle;
	/** @pad: Input: must be zero. */
	__u32 pad;
};

/*
 * Queue state bits. %DRM_GACCEL_QUEUE_STATE_TIMEDOUT is sticky: a job of the
 * queue ran past the job timeout and was cancelled; jobs queued behind it
 * are cancelled and further submits fail with -ECANCELED. Create a new
 * queue. %DRM_GACCEL_QUEUE_STATE_FAULT: some job failed (see last_error);
 * the queue keeps running.
 */
#define DRM_GACCEL_QUEUE_STATE_TIMEDOUT	0x1u
#define DRM_GACCEL_QUEUE_STATE_FAULT	0x2u

/** struct drm_gaccel_queue_get_state - argument of DRM_IOCTL_GACCEL_QUEUE_GET_STATE. */
struct drm_gaccel_queue_get_state {
	/** @handle: Input: queue handle. */
	__u32 handle;
	/** @state: Output: DRM_GACCEL_QUEUE_STATE_* bits. */
	__u32 state;
	/** @last_error: Output: negative errno of the last failed job, or 0. */
	__s32 last_error;
	/** @pad: Input: must be zero. */
	__u32 pad;
	/** @submitted: Output: jobs accepted by SUBMIT. */
	__u64 submitted;
	/** @completed: Output: jobs finished without error. */
	__u64 completed;
	/** @failed: Output: jobs finished with an error (timeouts included). */
	__u64 failed;
	/** @timeouts: Output: jobs cancelled by the job timeout. */
	__u64 timeouts;
};

/**
 * struct drm_gaccel_binding - binds a buffer object range to a graph slot.
 *
 * The range [@offset, @offset + @size) must lie inside the object and be at
 * least the slot's declared size; @size 0 means exactly the slot's size.
 * @offset must be a multiple of the largest alignment of the dtypes of the
 * slot's tensors (&drm_gaccel_dtype_info.alignment; tensor offsets and
 * strides are checked against it relative to the slot), -EINVAL otherwise.
 * A read-only object cannot be bound to a slot some node writes (-EACCES).
 */
struct drm_gaccel_binding {
	/** @slot: Input: slot index. Every slot is bound exactly once. */
	__u32 slot;
	/** @handle: Input: GEM handle. */
	__u32 handle;
	/** @offset: Input: byte offset in the object. */
	__u64 offset;
	/** @size: Input: bytes, or 0 for the slot's size. */
	__u64 size;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @pad: Input: must be zero. */
	__u32 pad;
};

/* Flags of &struct drm_gaccel_sync. */
#define DRM_GACCEL_SYNC_SIGNAL		0x1u
#define DRM_GACCEL_SYNC_TIMELINE	0x2u

/**
 * struct drm_gaccel_sync - a syncobj the job waits on or signals.
 *
 * Waits: the job starts after the fence of the syncobj (or of timeline
 * point @point) signals; it must already have a fence at submit time
 * (-EINVAL otherwise). Signals: when the job finishes, the binary syncobj
 * gets its fence, or timeline point @point is added. A job's error is set
 * on its fence (readable as sync_file status); a job whose wait's fence
 * has an error does not run and fails with that error.
 */
struct drm_gaccel_sync {
	/** @flags: Input: %DRM_GACCEL_SYNC_SIGNAL, %DRM_GACCEL_SYNC_TIMELINE. */
	__u32 flags;
	/** @handle: Input: syncobj handle. */
	__u32 handle;
	/** @point: Input: timeline point; must be zero for binary syncobjs. */
	__u64 point;
};

/** struct drm_gaccel_job - one job of a submit: a graph run on bindings. */
struct drm_gaccel_job {
	/** @graph: Input: graph handle. */
	__u32 graph;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @bindings: Input: array of &struct drm_gaccel_binding. */
	struct drm_gaccel_array bindings;
	/** @syncs: Input: array of &struct drm_gaccel_sync. */
	struct drm_gaccel_array syncs;
};

/**
 * struct drm_gaccel_submit - argument of DRM_IOCTL_GACCEL_SUBMIT.
 *
 * Jobs run in order on the queue. All jobs are checked before any is
 * queued: on error none of them is. Bound objects get implicit dma_resv
 * fences (written slots: write usage, others: read usage), and each job
 * waits for the implicit fences of its objects.
 *
 * Errors: -ENOENT for an unknown queue, graph, object or syncobj handle;
 * -EINVAL for bad flags or bindings, or more jobs or syncs than the limits
 * allow; -EACCES for a write to a read-only object; -ECANCELED if the queue
 * timed out; -EAGAIN when the queue or the file has as many jobs in flight
 * as its limit (retry once some have completed).
 */
struct drm_gaccel_submit {
	/** @queue: Input: queue handle. */
	__u32 queue;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @jobs: Input: array of &struct drm_gaccel_job. */
	struct drm_gaccel_array jobs;
};

/**
 * struct drm_gaccel_bo_wait - argument of DRM_IOCTL_GACCEL_BO_WAIT.
 *
 * Waits until every job using the object has finished.
 *
 * Errors: -ENOENT unknown handle, -ETIME on timeout, -EINVAL bad flags.
 */
struct drm_gaccel_bo_wait {
	/** @handle: Input: GEM handle. */
	__u32 handle;
	/** @flags: Input: must be zero. */
	__u32 flags;
	/** @timeout_ns: Input: absolute CLOCK_MONOTONIC deadline in ns. */
	__s64 timeout_ns;
};

#define DRM_IOCTL_GACCEL_GRAPH_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_GRAPH_CREATE, \
		 struct drm_gaccel_graph_create)
#define DRM_IOCTL_GACCEL_GRAPH_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GACCEL_GRAPH_DESTROY, \
		struct drm_gaccel_graph_destroy)
#define DRM_IOCTL_GACCEL_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_QUEUE_CREATE, \
		 struct drm_gaccel_queue_create)
#define DRM_IOCTL_GACCEL_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GACCEL_QUEUE_DESTROY, \
		struct drm_gaccel_queue_destroy)
#define DRM_IOCTL_GACCEL_QUEUE_GET_STATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_QUEUE_GET_STATE, \
		 struct drm_gaccel_queue_get_state)
#define DRM_IOCTL_GACCEL_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GACCEL_SUBMIT, struct drm_gaccel_submit)
#define DRM_IOCTL_GACCEL_BO_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GACCEL_BO_WAIT, struct drm_gaccel_bo_wait)

/*
 * DOC: op parameters
 *
 * Which words of &drm_gaccel_node.params each op reads: bit i set means
 * params[i] is meaningful. Every other word must be zero, otherwise
 * GRAPH_CREATE fails with -EINVAL (drm_dbg() names the node, op and word),
 * so that a later uAPI can give an unused word a meaning safely. The
 * layout of the meaningful words is ggml's op_params layout of the same
 * op. Ops not listed (MUL_MAT, ADD, MUL, GET_ROWS, SET_ROWS, CPY, SILU,
 * GELU) take no parameters.
 *
 * %DRM_GACCEL_PARAMS_SCALE: [0] scale, [1] bias (floats).
 * %DRM_GACCEL_PARAMS_NORM: RMS_NORM and NORM: [0] eps (float).
 * %DRM_GACCEL_PARAMS_SOFT_MAX: [0] scale, [1] max_bias (floats; max_bias
 * must be 0).
 * %DRM_GACCEL_PARAMS_ROPE: [1] n_dims, [2] mode, [4] n_ctx_orig (ints),
 * [5] freq_base, [6] freq_scale, [7] ext_factor, [8] attn_factor,
 * [9] beta_fast, [10] beta_slow (floats). ggml's [0] n_past and [3] n_ctx
 * are unused and must be zero.
 * %DRM_GACCEL_PARAMS_GLU: SWIGLU and GEGLU: [1] swapped (0 or 1).
 */
#define DRM_GACCEL_PARAMS_SCALE		0x0003u
#define DRM_GACCEL_PARAMS_NORM		0x0001u
#define DRM_GACCEL_PARAMS_SOFT_MAX	0x0003u
#define DRM_GACCEL_PARAMS_ROPE		0x07f6u
#define DRM_GACCEL_PARAMS_GLU		0x0002u

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_GACCEL_ACCEL_H_ */
