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
 */
enum drm_gaccel_ioctl_id {
	DRM_GACCEL_QUERY = 0,
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

#define DRM_IOCTL_GACCEL_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_QUERY, struct drm_gaccel_query)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_GACCEL_ACCEL_H_ */
