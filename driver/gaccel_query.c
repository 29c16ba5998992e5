// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* QUERY: size-negotiated replies describing the device and its engine. */

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_print.h>

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_limits.h"
#include "gaccel_query.h"

/*
 * Copy a reply of @len bytes following the rules of struct drm_gaccel_query:
 * NULL pointer asks for the size, a short buffer gets a prefix, a long one
 * gets its tail zeroed.
 */
static int gaccel_query_reply(struct drm_gaccel_query *q, const void *reply,
			      u32 len)
{
	void __user *ptr = u64_to_user_ptr(q->pointer);

	if (!q->pointer) {
		q->size = len;
		return 0;
	}

	if (copy_to_user(ptr, reply, min(q->size, len)))
		return -EFAULT;
	if (q->size > len && clear_user(ptr + len, q->size - len))
		return -EFAULT;

	q->size = len;
	return 0;
}

static int gaccel_query_device_info(struct gaccel_device *gdev,
				    struct drm_gaccel_query *q)
{
	const struct gaccel_engine_caps *caps = &gdev->engine->caps;
	struct drm_gaccel_device_info info = {
		.uapi_major = DRM_GACCEL_UAPI_VERSION_MAJOR,
		.uapi_minor = DRM_GACCEL_UAPI_VERSION_MINOR,
		.engine_kind = caps->kind,
		.mem_kind = caps->mem_kind,
		.mem_size = caps->mem_size,
		.max_bo_size = caps->max_bo_size,
		.bo_alignment = PAGE_SIZE,
		.max_rank = caps->max_rank,
		.max_graph_nodes = caps->max_graph_nodes,
		.max_graph_tensors = caps->max_graph_tensors,
		.max_bindings = caps->max_bindings,
		.num_workers = caps->num_workers,
	};

	strscpy(info.engine_name, caps->name, sizeof(info.engine_name));
	return gaccel_query_reply(q, &info, sizeof(info));
}

static int gaccel_query_ops(struct gaccel_device *gdev,
			    struct drm_gaccel_query *q)
{
	const struct gaccel_engine_caps *caps = &gdev->engine->caps;
	struct drm_gaccel_query_ops *hdr;
	struct drm_gaccel_op_info *info;
	u32 i, len;
	int ret;

	len = sizeof(*hdr) + caps->num_ops * sizeof(*info);
	hdr = kzalloc(len, GFP_KERNEL_ACCOUNT);
	if (!hdr)
		return -ENOMEM;
	hdr->count = caps->num_ops;
	hdr->entry_size = sizeof(*info);
	info = (struct drm_gaccel_op_info *)(hdr + 1);
	for (i = 0; i < caps->num_ops; i++) {
		info[i].op = caps->ops[i].op;
		info[i].max_rank = caps->ops[i].max_rank;
		info[i].src0_dtypes = caps->ops[i].src0_dtypes;
		info[i].src1_dtypes = caps->ops[i].src1_dtypes;
		info[i].dst_dtypes = caps->ops[i].dst_dtypes;
	}
	ret = gaccel_query_reply(q, hdr, len);
	kfree(hdr);
	return ret;
}

static int gaccel_query_dtypes(struct gaccel_device *gdev,
			       struct drm_gaccel_query *q)
{
	u64 mask = gdev->engine->caps.dtypes;
	struct drm_gaccel_query_dtypes *hdr;
	struct drm_gaccel_dtype_info *info;
	u32 n = hweight64(mask), i = 0, len;
	int ret, bit;

	len = sizeof(*hdr) + n * sizeof(*info);
	hdr = kzalloc(len, GFP_KERNEL_ACCOUNT);
	if (!hdr)
		return -ENOMEM;
	hdr->count = n;
	hdr->entry_size = sizeof(*info);
	info = (struct drm_gaccel_dtype_info *)(hdr + 1);
	for_each_set_bit(bit, (unsigned long *)&mask, 64) {
		const struct gaccel_dtype *dt = gaccel_dtype_get(bit);

		if (!dt || i >= n)
			continue;
		info[i].dtype = bit;
		info[i].block_size = dt->block_size;
		info[i].type_size = dt->type_size;
		info[i].alignment = dt->alignment;
		i++;
	}
	hdr->count = i;
	ret = gaccel_query_reply(q, hdr, sizeof(*hdr) + i * sizeof(*info));
	kfree(hdr);
	return ret;
}

static int gaccel_query_limits(struct drm_gaccel_query *q)
{
	struct drm_gaccel_limits limits = { };

	gaccel_limits_get(&limits);
	return gaccel_query_reply(q, &limits, sizeof(limits));
}

int gaccel_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct gaccel_device *gdev = to_gaccel_device(drm);
	struct drm_gaccel_query *q = data;

	if (q->reserved) {
		drm_dbg(drm, "QUERY: reserved is %#llx, must be zero\n",
			q->reserved);
		return -EINVAL;
	}

	switch (q->type) {
	case DRM_GACCEL_QUERY_DEVICE_INFO:
		return gaccel_query_device_info(gdev, q);
	case DRM_GACCEL_QUERY_OPS:
		return gaccel_query_ops(gdev, q);
	case DRM_GACCEL_QUERY_DTYPES:
		return gaccel_query_dtypes(gdev, q);
	case DRM_GACCEL_QUERY_LIMITS:
		return gaccel_query_limits(q);
	default:
		drm_dbg(drm, "QUERY: unknown type %u\n", q->type);
		return -EINVAL;
	}
}
