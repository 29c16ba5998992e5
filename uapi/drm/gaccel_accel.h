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
#define DRM_GACCEL_UAPI_VERSION_MINOR	1

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
 */
enum drm_gaccel_ioctl_id {
	DRM_GACCEL_QUERY = 0,
	DRM_GACCEL_BO_CREATE = 1,
	DRM_GACCEL_BO_INFO = 2,
	DRM_GACCEL_BO_CREATE_USERPTR = 3,
};

/**
 * enum drm_gaccel_query_type - what &struct drm_gaccel_query asks for.
 *
 * @DRM_GACCEL_QUERY_DEVICE_INFO: &struct drm_gaccel_device_info.
 */
enum drm_gaccel_query_type {
	DRM_GACCEL_QUERY_DEVICE_INFO = 0,
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
 * binds it to a slot some node writes is refused.
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
 * &drm_gaccel_device_info.max_bo_size or an unknown flag; -ENOMEM.
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
 * the last reference goes). A MAP_PRIVATE page written by the CPU after
 * the pin is copied on write and no longer seen by the object. It has no
 * mmap offset.
 *
 * Errors: -EINVAL for an unknown flag, a zero or unaligned @pointer or
 * @size, a range that wraps or exceeds &drm_gaccel_device_info.max_bo_size;
 * -EFAULT for a range that is not mapped or not writable (without
 * %DRM_GACCEL_BO_READ_ONLY); -ENOMEM when RLIMIT_MEMLOCK would be exceeded.
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

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_GACCEL_ACCEL_H_ */
