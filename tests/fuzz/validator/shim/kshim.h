/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Just enough of the kernel's API, in userspace, for the driver files the
 * validator fuzzer builds unchanged: driver/gaccel_graph.c (GRAPH_CREATE
 * and its validation), driver/gaccel_ref_node.c (the reference engine's
 * caps, kernel contract and units) and driver/gaccel_ref_fpu.c (its
 * kernels). Every shim header of linux/ and drm/ includes this file.
 *
 * Memory comes from malloc() so that AddressSanitizer sees every byte;
 * "user" pointers are plain pointers into the fuzzer's input; the xarray
 * is a growable array; locks do nothing (one thread).
 */
#ifndef GACCEL_KSHIM_H
#define GACCEL_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

/* --- compiler ------------------------------------------------------------ */

#define __user
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define static_assert(expr, ...) _Static_assert(expr, #expr)
#define fallthrough		__attribute__((__fallthrough__))
#define __counted_by(member)

/* --- bits, sizes, arithmetic --------------------------------------------- */

#define U64_MAX			(~0ULL)
#define U32_MAX			(~0U)
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ALIGN(x, a)		(((x) + (a) - 1) / (a) * (a))

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define min3(a, b, c)		min(min(a, b), c)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

/* --- memory ------------------------------------------------------------- */

#define GFP_KERNEL		0u
#define GFP_KERNEL_ACCOUNT	0u
#define __GFP_NOWARN		0u
#define __GFP_ACCOUNT		0u
#define __GFP_RETRY_MAYFAIL	0u

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size ? size : 1);
}

static inline void *kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	(void)gfp;
	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return malloc(bytes ? bytes : 1);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n ? n : 1, size ? size : 1);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* --- user memory: the fuzzer's own buffers -------------------------------- */

#define u64_to_user_ptr(x)	((void *)(uintptr_t)(x))

static inline unsigned long copy_from_user(void *to, const void *from,
					   unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

/* As the kernel's: a longer user struct must have zeros past ours. */
static inline int copy_struct_from_user(void *dst, size_t ksize,
					const void *src, size_t usize)
{
	size_t i;

	if (usize < ksize) {
		memcpy(dst, src, usize);
		memset((char *)dst + usize, 0, ksize - usize);
		return 0;
	}
	for (i = ksize; i < usize; i++)
		if (((const unsigned char *)src)[i])
			return -E2BIG;
	memcpy(dst, src, ksize);
	return 0;
}

static inline void cond_resched(void)
{
}

/* --- reference counts, atomics, waits, work ------------------------------ */

struct kref {
	int refcount;
};

static inline void kref_init(struct kref *k)
{
	k->refcount = 1;
}

static inline void kref_get(struct kref *k)
{
	k->refcount++;
}

static inline int kref_put(struct kref *k, void (*release)(struct kref *k))
{
	if (--k->refcount)
		return 0;
	release(k);
	return 1;
}

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *v)
{
	return v->counter;
}

typedef struct {
	int unused;
} wait_queue_head_t;

struct work_struct {
	void (*func)(struct work_struct *work);
};

struct mutex {
	int unused;
};

struct list_head {
	struct list_head *next, *prev;
};

struct rb_node {
	struct rb_node *rb_left, *rb_right;
};

struct rb_root {
	struct rb_node *rb_node;
};

struct delayed_work {
	struct work_struct work;
};

struct workqueue_struct;

typedef unsigned long long dma_addr_t;

typedef struct {
	int unused;
} spinlock_t;

/* --- xarray: an array grown on demand ----------------------------------- */

struct xarray {
	void **slot;
	unsigned long size;
};

struct xa_limit {
	u32 min;
	u32 max;
};

#define xa_limit_32b		((struct xa_limit){ .min = 0, .max = UINT_MAX })
#define XA_FLAGS_ALLOC1		1u
#define xa_lock(xa)		((void)(xa))
#define xa_unlock(xa)		((void)(xa))

static inline void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	(void)flags;
	xa->slot = NULL;
	xa->size = 0;
}

static inline void *xa_load(struct xarray *xa, unsigned long index)
{
	return index < xa->size ? xa->slot[index] : NULL;
}

/* IDs from 1, as an XA_FLAGS_ALLOC1 array hands them out. */
static inline int xa_alloc(struct xarray *xa, u32 *id, void *entry,
			   struct xa_limit limit, gfp_t gfp)
{
	unsigned long i = limit.min ? limit.min : 1;
	void **grown;

	(void)gfp;
	for (; i < xa->size; i++)
		if (!xa->slot[i])
			break;
	if (i > limit.max)
		return -EBUSY;
	if (i >= xa->size) {
		grown = realloc(xa->slot, (i + 1) * sizeof(void *));
		if (!grown)
			return -ENOMEM;
		memset(grown + xa->size, 0, (i + 1 - xa->size) * sizeof(void *));
		xa->slot = grown;
		xa->size = i + 1;
	}
	xa->slot[i] = entry;
	*id = (u32)i;
	return 0;
}

static inline void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *entry = xa_load(xa, index);

	if (entry)
		xa->slot[index] = NULL;
	return entry;
}

#define xa_for_each(xa, index, entry) \
	for ((index) = 0; (index) < (xa)->size; (index)++) \
		if (((entry) = (xa)->slot[index]) != NULL)

static inline void xa_destroy(struct xarray *xa)
{
	free(xa->slot);
	xa->slot = NULL;
	xa->size = 0;
}

/* --- DRM ---------------------------------------------------------------- */

struct drm_device {
	int unused;
};

struct drm_file {
	void *driver_priv;
};

/* Embedded in the device's scheduler array (gaccel_sched.h); never used. */
struct drm_gpu_scheduler {
	int unused;
};

struct va_format {
	const char *fmt;
	va_list *va;
};

/* Defined by the harness: silent unless GACCEL_FUZZ_DEBUG is set. */
void kshim_dbg(const char *fmt, ...);
#define drm_dbg(drm, fmt, ...)	((void)(drm), kshim_dbg(fmt, ##__VA_ARGS__))

#endif
