// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * QUERY: size negotiation, truncation, bad input, unknown ioctls, several
 * open files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

FIXTURE(query) {
	int fd;
};

FIXTURE_SETUP(query)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0) TH_LOG("no gaccel device: %s", strerror(-self->fd));
}

FIXTURE_TEARDOWN(query)
{
	close(self->fd);
}

static int query(int fd, uint32_t type, void *buf, uint32_t *size)
{
	struct drm_gaccel_query q = {
		.type = type,
		.size = *size,
		.pointer = (uintptr_t)buf,
	};
	int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);

	*size = q.size;
	return ret;
}

TEST_F(query, size_negotiation)
{
	uint32_t size = 0;

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, NULL, &size));
	EXPECT_EQ(sizeof(struct drm_gaccel_device_info), size);

	/* The size field is ignored when the pointer is NULL. */
	size = 12345;
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, NULL, &size));
	EXPECT_EQ(sizeof(struct drm_gaccel_device_info), size);
}

TEST_F(query, device_info)
{
	struct drm_gaccel_device_info info;
	uint32_t size = sizeof(info);

	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, &info, &size));
	EXPECT_EQ(sizeof(info), size);
	EXPECT_EQ(DRM_GACCEL_UAPI_VERSION_MAJOR, info.uapi_major);
	EXPECT_EQ(DRM_GACCEL_UAPI_VERSION_MINOR, info.uapi_minor);
	EXPECT_NE(NULL, memchr(info.engine_name, 0, sizeof(info.engine_name)));
	EXPECT_STREQ("gaccel-ref", info.engine_name);
	EXPECT_EQ(DRM_GACCEL_ENGINE_SOFTWARE, info.engine_kind);
	EXPECT_EQ(DRM_GACCEL_MEM_HOST, info.mem_kind);
	EXPECT_GT(info.mem_size, 64ull << 20);
	EXPECT_GE(info.max_bo_size, (uint64_t)getpagesize());
	EXPECT_EQ((uint32_t)getpagesize(), info.bo_alignment);
	EXPECT_EQ(4, info.max_rank);
	EXPECT_GT(info.max_graph_nodes, 0);
	EXPECT_GT(info.max_graph_tensors, 0);
	EXPECT_GT(info.max_bindings, 0);
	EXPECT_GE(info.num_workers, 1);
}

TEST_F(query, short_buffer_gets_a_prefix)
{
	struct drm_gaccel_device_info full, part;
	uint32_t size = sizeof(full);
	uint32_t n;

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, &full, &size));
	for (n = 0; n < sizeof(part); n += 5) {
		memset(&part, 0x5a, sizeof(part));
		size = n;
		ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, &part, &size));
		EXPECT_EQ(sizeof(full), size);
		EXPECT_EQ(0, memcmp(&part, &full, n)) TH_LOG("prefix of %u bytes differs", n);
		for (uint32_t i = n; i < sizeof(part); i++) {
			ASSERT_EQ(0x5a, ((unsigned char *)&part)[i])
				TH_LOG("byte %u past a %u-byte buffer was written", i, n);
		}
	}
}

TEST_F(query, long_buffer_tail_is_zeroed)
{
	unsigned char buf[sizeof(struct drm_gaccel_device_info) + 64];
	uint32_t size = sizeof(buf);

	memset(buf, 0xff, sizeof(buf));
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, buf, &size));
	EXPECT_EQ(sizeof(struct drm_gaccel_device_info), size);
	for (size_t i = size; i < sizeof(buf); i++) {
		ASSERT_EQ(0, buf[i]) TH_LOG("tail byte %zu not zeroed", i);
	}
}

TEST_F(query, unknown_type)
{
	struct drm_gaccel_device_info info;
	uint32_t types[] = { 1000, 0x7fffffff, 0xffffffff };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint32_t size = sizeof(info);

		EXPECT_EQ(-EINVAL, query(self->fd, types[i], &info, &size));
		size = 0;
		EXPECT_EQ(-EINVAL, query(self->fd, types[i], NULL, &size));
	}
}

TEST_F(query, reserved_must_be_zero)
{
	struct drm_gaccel_device_info info;
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_DEVICE_INFO,
		.size = sizeof(info),
		.pointer = (uintptr_t)&info,
	};

	for (int bit = 0; bit < 64; bit += 7) {
		q.reserved = 1ull << bit;
		EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_QUERY, &q));
	}
}

TEST_F(query, bad_pointer)
{
	uint32_t size = sizeof(struct drm_gaccel_device_info);
	void *ro;

	/* Unmapped. */
	EXPECT_EQ(-EFAULT, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO,
				 (void *)(uintptr_t)4096, &size));

	/* Mapped but not writable. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	size = sizeof(struct drm_gaccel_device_info);
	EXPECT_EQ(-EFAULT, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, ro, &size));
	munmap(ro, 4096);

	/* Kernel address. */
	size = sizeof(struct drm_gaccel_device_info);
	EXPECT_EQ(-EFAULT, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO,
				 (void *)(uintptr_t)0xffff888000000000ull, &size));
}

TEST_F(query, unaligned_pointer)
{
	unsigned char buf[sizeof(struct drm_gaccel_device_info) + 1];
	struct drm_gaccel_device_info info;
	uint32_t size = sizeof(info);

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DEVICE_INFO, buf + 1, &size));
	memcpy(&info, buf + 1, sizeof(info));
	EXPECT_STREQ("gaccel-ref", info.engine_name);
}

TEST_F(query, unknown_ioctl_numbers)
{
	char arg[64] = { 0 };

	/* Driver numbers past the table. */
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd,
		DRM_IOWR(DRM_COMMAND_BASE + 0x3f, struct drm_gaccel_query), arg));
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd,
		DRM_IO(DRM_COMMAND_BASE + 1), arg));
	/* Not a DRM ioctl at all. */
	EXPECT_EQ(-ENOTTY, gaccel_ioctl(self->fd, _IOWR('x', 1, int), arg));
}

TEST(second_open_file)
{
	struct drm_gaccel_device_info a, b;
	uint32_t size;
	int fd1, fd2;

	fd1 = gaccel_open_device();
	ASSERT_GE(fd1, 0);
	fd2 = gaccel_open_device();
	ASSERT_GE(fd2, 0);
	ASSERT_NE(fd1, fd2);

	size = sizeof(a);
	ASSERT_EQ(0, query(fd1, DRM_GACCEL_QUERY_DEVICE_INFO, &a, &size));
	close(fd1);
	size = sizeof(b);
	ASSERT_EQ(0, query(fd2, DRM_GACCEL_QUERY_DEVICE_INFO, &b, &size));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	close(fd2);
}

TEST_F(query, ops_table)
{
	struct drm_gaccel_query_ops *hdr;
	struct drm_gaccel_op_info *ops;
	uint32_t size = 0, seen = 0;

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_OPS, NULL, &size));
	ASSERT_GE(size, sizeof(*hdr));
	hdr = calloc(1, size);
	ASSERT_NE(NULL, hdr);
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_OPS, hdr, &size));
	EXPECT_EQ(sizeof(struct drm_gaccel_op_info), hdr->entry_size);
	EXPECT_EQ(size, sizeof(*hdr) + hdr->count * hdr->entry_size);
	ops = (struct drm_gaccel_op_info *)(hdr + 1);
	for (uint32_t i = 0; i < hdr->count; i++) {
		EXPECT_GT(ops[i].op, DRM_GACCEL_OP_NONE);
		EXPECT_LT(ops[i].op, GACCEL_TEST_NUM_OPS);
		EXPECT_NE(0, ops[i].src0_dtypes);
		EXPECT_NE(0, ops[i].dst_dtypes);
		EXPECT_GE(ops[i].max_rank, 1);
		EXPECT_LE(ops[i].max_rank, 4);
		EXPECT_EQ(0, seen & (1u << ops[i].op)) TH_LOG("op %u twice", ops[i].op);
		seen |= 1u << ops[i].op;
		if (ops[i].op == DRM_GACCEL_OP_MUL_MAT) {
			EXPECT_TRUE(ops[i].src0_dtypes & (1ull << DRM_GACCEL_DTYPE_Q4_0));
			EXPECT_TRUE(ops[i].src0_dtypes & (1ull << DRM_GACCEL_DTYPE_Q8_0));
			EXPECT_TRUE(ops[i].src0_dtypes & (1ull << DRM_GACCEL_DTYPE_BF16));
		}
		/* Embedding lookups in quantized tables. */
		if (ops[i].op == DRM_GACCEL_OP_GET_ROWS) {
			EXPECT_TRUE(ops[i].src0_dtypes & (1ull << DRM_GACCEL_DTYPE_Q4_0));
			EXPECT_TRUE(ops[i].src0_dtypes & (1ull << DRM_GACCEL_DTYPE_Q8_0));
			EXPECT_EQ(1ull << DRM_GACCEL_DTYPE_F32, ops[i].dst_dtypes);
		}
	}
	/* The reference engine runs every op of the header. */
	EXPECT_EQ(((1u << GACCEL_TEST_NUM_OPS) - 1) & ~1u, seen);
	free(hdr);
}

TEST_F(query, dtypes_table)
{
	struct {
		struct drm_gaccel_query_dtypes hdr;
		struct drm_gaccel_dtype_info d[32];
	} r;
	uint32_t size = sizeof(r);
	int found = 0;

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DTYPES, &r, &size));
	EXPECT_EQ(sizeof(struct drm_gaccel_dtype_info), r.hdr.entry_size);
	ASSERT_LE(r.hdr.count, 32);
	for (uint32_t i = 0; i < r.hdr.count; i++) {
		switch (r.d[i].dtype) {
		case DRM_GACCEL_DTYPE_F32:
			EXPECT_EQ(1, r.d[i].block_size);
			EXPECT_EQ(4, r.d[i].type_size);
			found |= 1;
			break;
		case DRM_GACCEL_DTYPE_Q4_0:
			EXPECT_EQ(32, r.d[i].block_size);
			EXPECT_EQ(18, r.d[i].type_size);
			found |= 2;
			break;
		case DRM_GACCEL_DTYPE_Q8_0:
			EXPECT_EQ(32, r.d[i].block_size);
			EXPECT_EQ(34, r.d[i].type_size);
			found |= 4;
			break;
		case DRM_GACCEL_DTYPE_F16:
		case DRM_GACCEL_DTYPE_BF16:
			EXPECT_EQ(2, r.d[i].type_size);
			found |= 8;
			break;
		}
		EXPECT_GE(r.d[i].alignment, 1);
	}
	EXPECT_EQ(15, found);
	/* A short buffer still gets the header. */
	size = sizeof(r.hdr);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_DTYPES, &r, &size));
	EXPECT_GT(r.hdr.count, 3);
	EXPECT_EQ(sizeof(r.hdr) + r.hdr.count * r.hdr.entry_size, size);
}

/* A module parameter of gaccel.ko, or -1 when it cannot be read. */
static long long module_param_value(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/gaccel/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

TEST_F(query, limits_match_module_parameters)
{
	struct drm_gaccel_limits l;
	uint32_t size = 0;
	long long mib;

	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_LIMITS, NULL, &size));
	EXPECT_EQ(sizeof(l), size);
	memset(&l, 0xa5, sizeof(l));
	ASSERT_EQ(0, query(self->fd, DRM_GACCEL_QUERY_LIMITS, &l, &size));

	EXPECT_EQ(module_param_value("max_bos"), (long long)l.max_bos);
	EXPECT_EQ(module_param_value("max_graphs"), (long long)l.max_graphs);
	EXPECT_EQ(module_param_value("max_graph_mib") << 20,
		  (long long)l.max_graph_bytes);
	EXPECT_EQ(module_param_value("max_queues"), (long long)l.max_queues);
	EXPECT_EQ(module_param_value("max_jobs"), (long long)l.max_jobs);
	EXPECT_EQ(module_param_value("max_queue_jobs"), (long long)l.max_queue_jobs);
	EXPECT_EQ(module_param_value("max_submit_jobs"), (long long)l.max_submit_jobs);
	EXPECT_EQ(module_param_value("max_job_syncs"), (long long)l.max_job_syncs);
	EXPECT_EQ(module_param_value("max_scratch_mib") << 20,
		  (long long)l.max_scratch_bytes);
	EXPECT_EQ(module_param_value("job_timeout_ms"), (long long)l.job_timeout_ms);
	mib = module_param_value("max_bo_mib");
	ASSERT_GE(mib, 0);
	if (mib) {
		EXPECT_EQ(mib << 20, (long long)l.max_bo_bytes);
	} else {
		/* Half of the VM's RAM. */
		EXPECT_GT(l.max_bo_bytes, 16ull << 20);
	}

	EXPECT_EQ(module_param_value("max_user_graphs"), (long long)l.max_user_graphs);
	EXPECT_EQ(module_param_value("max_user_graph_mib") << 20,
		  (long long)l.max_user_graph_bytes);
	EXPECT_EQ(module_param_value("max_user_queues"), (long long)l.max_user_queues);
	EXPECT_EQ(module_param_value("max_user_jobs"), (long long)l.max_user_jobs);
	/* max_user_bos and max_user_bo_mib: 0 by default, then derived. */
	EXPECT_GE(l.max_user_bos, 1);
	EXPECT_GE(l.max_user_bo_bytes, 16ull << 20);

	/* Every limit lets a program do something. */
	EXPECT_GE(l.max_bos, 1);
	EXPECT_GE(l.max_graphs, 1);
	EXPECT_GE(l.max_queues, 1);
	EXPECT_GE(l.max_jobs, 1);
	EXPECT_GE(l.max_queue_jobs, 1);
}

GACCEL_TEST_HARNESS_MAIN
