// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uAPI hygiene across all ioctls: every top-level MBZ field, unknown ioctl
 * numbers, NULL/unmapped/misaligned argument pointers, structures shorter
 * or longer than the kernel's. Nested arrays are covered by their suites.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

FIXTURE(uapi) {
	int fd;
	uint32_t bo, queue;
};

FIXTURE_SETUP(uapi)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, gaccel_bo_create(self->fd, 4096, 0, &self->bo));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &self->queue));
}

FIXTURE_TEARDOWN(uapi)
{
	close(self->fd);
}

/* One MBZ field of one ioctl: which bytes to poison in an otherwise valid argument. */
struct mbz {
	const char *name;
	unsigned long req;
	size_t size, off, width;
};

#define MBZ(req, type, field) \
	{ #req "." #field, req, sizeof(type), offsetof(type, field), \
	  sizeof(((type *)0)->field) }

static const struct mbz mbz_fields[] = {
	MBZ(DRM_IOCTL_GACCEL_QUERY, struct drm_gaccel_query, reserved),
	MBZ(DRM_IOCTL_GACCEL_BO_CREATE, struct drm_gaccel_bo_create, flags),
	MBZ(DRM_IOCTL_GACCEL_BO_INFO, struct drm_gaccel_bo_info, pad),
	MBZ(DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, struct drm_gaccel_bo_create_userptr, flags),
	MBZ(DRM_IOCTL_GACCEL_GRAPH_CREATE, struct drm_gaccel_graph_create, flags),
	MBZ(DRM_IOCTL_GACCEL_GRAPH_DESTROY, struct drm_gaccel_graph_destroy, pad),
	MBZ(DRM_IOCTL_GACCEL_QUEUE_CREATE, struct drm_gaccel_queue_create, flags),
	MBZ(DRM_IOCTL_GACCEL_QUEUE_CREATE, struct drm_gaccel_queue_create, pad),
	MBZ(DRM_IOCTL_GACCEL_QUEUE_DESTROY, struct drm_gaccel_queue_destroy, pad),
	MBZ(DRM_IOCTL_GACCEL_QUEUE_GET_STATE, struct drm_gaccel_queue_get_state, pad),
	MBZ(DRM_IOCTL_GACCEL_SUBMIT, struct drm_gaccel_submit, flags),
	MBZ(DRM_IOCTL_GACCEL_BO_WAIT, struct drm_gaccel_bo_wait, flags),
};

TEST_F(uapi, every_mbz_field)
{
	for (size_t i = 0; i < sizeof(mbz_fields) / sizeof(mbz_fields[0]); i++) {
		const struct mbz *m = &mbz_fields[i];

		for (size_t byte = 0; byte < m->width; byte++) {
			unsigned char arg[256] = { 0 };

			/* Handles that exist, so that only the poisoned field is wrong. */
			memcpy(arg, &self->bo, 4);
			if (m->req == DRM_IOCTL_GACCEL_SUBMIT ||
			    m->req == DRM_IOCTL_GACCEL_QUEUE_GET_STATE)
				memcpy(arg, &self->queue, 4);
			arg[m->off + byte] = 0x80;
			EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, m->req, arg))
				TH_LOG("%s byte %zu", m->name, byte);
		}
	}
}

TEST_F(uapi, unknown_ioctl_numbers)
{
	char arg[64] = { 0 };

	for (unsigned int nr = DRM_GACCEL_BO_WAIT + 1; nr < 0x40; nr++) {
		EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd,
						DRM_IOWR(DRM_COMMAND_BASE + nr, struct drm_gaccel_query),
						arg)) TH_LOG("nr %#x", nr);
	}
	EXPECT_EQ(-ENOTTY, gaccel_ioctl(self->fd, _IOWR('x', 1, int), arg));
	EXPECT_EQ(-ENOTTY, gaccel_ioctl(self->fd, _IO('G', 0x20), arg));
}

static const unsigned long all_ioctls[] = {
	DRM_IOCTL_GACCEL_QUERY, DRM_IOCTL_GACCEL_BO_CREATE, DRM_IOCTL_GACCEL_BO_INFO,
	DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, DRM_IOCTL_GACCEL_GRAPH_CREATE,
	DRM_IOCTL_GACCEL_GRAPH_DESTROY, DRM_IOCTL_GACCEL_QUEUE_CREATE,
	DRM_IOCTL_GACCEL_QUEUE_DESTROY, DRM_IOCTL_GACCEL_QUEUE_GET_STATE,
	DRM_IOCTL_GACCEL_SUBMIT, DRM_IOCTL_GACCEL_BO_WAIT,
};

TEST_F(uapi, null_and_unmapped_arguments)
{
	for (size_t i = 0; i < sizeof(all_ioctls) / sizeof(all_ioctls[0]); i++) {
		EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, all_ioctls[i], NULL)) TH_LOG("%zu", i);
		EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, all_ioctls[i], (void *)(uintptr_t)4096))
			TH_LOG("%zu", i);
	}
}

TEST_F(uapi, misaligned_argument)
{
	unsigned char buf[sizeof(struct drm_gaccel_bo_info) + 1];
	struct drm_gaccel_bo_info info = { .handle = self->bo };

	memcpy(buf + 1, &info, sizeof(info));
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_INFO, buf + 1));
	memcpy(&info, buf + 1, sizeof(info));
	EXPECT_EQ(4096, info.size);
}

TEST_F(uapi, shorter_structures_are_zero_extended)
{
	/* Older userspace with a BO_INFO that ends after the handle. */
	struct drm_gaccel_bo_info info = { .handle = self->bo, .pad = 0xffffffff };
	unsigned long req = DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_BO_INFO, uint32_t);

	/* The kernel sees pad as zero and writes back only what was passed. */
	ASSERT_EQ(0, gaccel_ioctl(self->fd, req, &info));
	EXPECT_EQ(0xffffffff, info.pad);
	EXPECT_EQ(0, info.size);
}

TEST_F(uapi, longer_structures)
{
	/* Newer userspace: the kernel ignores what it does not know. */
	struct {
		struct drm_gaccel_bo_info info;
		uint64_t future[4];
	} big = { .info.handle = self->bo, .future = { 1, 2, 3, 4 } };
	unsigned long req = DRM_IOWR(DRM_COMMAND_BASE + DRM_GACCEL_BO_INFO, big);

	ASSERT_EQ(0, gaccel_ioctl(self->fd, req, &big));
	EXPECT_EQ(4096, big.info.size);
}

TEST_F(uapi, outputs_untouched_on_failure)
{
	struct drm_gaccel_bo_create c = { .size = 0, .flags = 0, .handle = 0xabcd };
	struct drm_gaccel_graph_create g = { .flags = 1, .handle = 0x1234 };
	struct drm_gaccel_queue_create q = { .priority = 9, .handle = 0x5678 };

	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_BO_CREATE, &c));
	EXPECT_EQ(0xabcd, c.handle);
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &g));
	EXPECT_EQ(0x1234, g.handle);
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &q));
	EXPECT_EQ(0x5678, q.handle);
}

TEST_F(uapi, core_caps)
{
	struct drm_get_cap cap = { .capability = DRM_CAP_SYNCOBJ_TIMELINE };

	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GET_CAP, &cap));
	EXPECT_EQ(1, cap.value);
	cap.capability = DRM_CAP_PRIME;
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GET_CAP, &cap));
	EXPECT_EQ(DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT, cap.value);
}

/* Handles above INT_MAX (idr and xarray indices are ints or longs). */
TEST_F(uapi, handles_above_int_max)
{
	const uint32_t handles[] = { 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu,
				     0xffffffffu };

	for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); i++) {
		uint32_t h = handles[i];
		struct drm_gaccel_bo_info info;
		struct drm_prime_handle ph = { .handle = h, .flags = DRM_CLOEXEC };
		struct drm_gaccel_queue_get_state st;
		struct drm_gaccel_binding b = { .slot = 0, .handle = h };
		struct drm_gem_flink flink = { .handle = h };

		EXPECT_EQ(-ENOENT, gaccel_bo_info(self->fd, h, &info)) TH_LOG("%#x", h);
		EXPECT_EQ(-EINVAL, gaccel_gem_close(self->fd, h)) TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_ioctl(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
			TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_bo_wait(self->fd, h, 0)) TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_graph_destroy(self->fd, h)) TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_queue_destroy(self->fd, h)) TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_queue_state(self->fd, h, &st)) TH_LOG("%#x", h);
		EXPECT_EQ(-ENOENT, gaccel_submit1(self->fd, h, 1, &b, 1, NULL, 0))
			TH_LOG("%#x", h);
		/* A render node refuses flink names to everyone. */
		EXPECT_EQ(gaccel_is_render_node(self->fd) ? -EACCES : -ENOENT,
			  gaccel_ioctl(self->fd, DRM_IOCTL_GEM_FLINK, &flink))
			TH_LOG("%#x", h);
	}
}

GACCEL_TEST_HARNESS_MAIN
