// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * GRAPH_CREATE validation: every rule rejected by its own case, including
 * a program that would touch one byte past its slot. Every case runs as an
 * unprivileged user (uid/gid 65534), the client the rules defend against.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#define F32 DRM_GACCEL_DTYPE_F32

/* A small graph that each case breaks in one place: t2 = t0 + t1. */
FIXTURE(graph) {
	int fd;
	struct drm_gaccel_slot slots[3];
	struct drm_gaccel_tensor t[7];
	struct drm_gaccel_node n[2];
	uint32_t ns, nt, nn;
};

FIXTURE_SETUP(graph)
{
	ASSERT_EQ(0, gaccel_drop_privileges());
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
	memset(self->slots, 0, sizeof(self->slots));
	for (int i = 0; i < 3; i++)
		self->slots[i].size = 64 * 4;
	self->t[0] = gaccel_tensor(0, F32, 0, 16, 4, 1, 1);
	self->t[1] = gaccel_tensor(1, F32, 0, 16, 4, 1, 1);
	self->t[2] = gaccel_tensor(2, F32, 0, 16, 4, 1, 1);
	self->t[3] = gaccel_tensor(1, F32, 0, 16, 1, 1, 1);
	self->n[0] = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);
	self->n[1] = gaccel_node(DRM_GACCEL_OP_MUL, 2, 2, 3, GACCEL_NONE);
	self->ns = 3;
	self->nt = 4;
	self->nn = 2;
}

FIXTURE_TEARDOWN(graph)
{
	close(self->fd);
}

static int create(FIXTURE_DATA(graph) *self)
{
	uint32_t h;
	int ret = gaccel_graph_create(self->fd, self->slots, self->ns, self->t, self->nt,
				      self->n, self->nn, &h);

	if (!ret)
		ret = gaccel_graph_destroy(self->fd, h) ? -1000 : 0;
	return ret;
}

TEST_F(graph, valid_and_destroy)
{
	struct drm_gaccel_graph_destroy d = { 0 };
	uint32_t h;

	ASSERT_EQ(0, gaccel_graph_create(self->fd, self->slots, 3, self->t, 4, self->n, 2, &h));
	EXPECT_NE(0, h);
	d.handle = h;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_DESTROY, &d));
	EXPECT_EQ(0, gaccel_graph_destroy(self->fd, h));
	EXPECT_EQ(-ENOENT, gaccel_graph_destroy(self->fd, h));
	EXPECT_EQ(-ENOENT, gaccel_graph_destroy(self->fd, 0));
}

TEST_F(graph, flags_must_be_zero)
{
	struct drm_gaccel_graph_create c = {
		.slots = { sizeof(self->slots[0]), 3, (uintptr_t)self->slots },
		.tensors = { sizeof(self->t[0]), 4, (uintptr_t)self->t },
		.nodes = { sizeof(self->n[0]), 2, (uintptr_t)self->n },
		.flags = 1,
	};

	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	EXPECT_EQ(0, c.handle);
}

TEST_F(graph, empty_arrays)
{
	self->ns = 0;
	EXPECT_EQ(-EINVAL, create(self));
	self->ns = 3;
	self->nt = 0;
	EXPECT_EQ(-EINVAL, create(self));
	self->nt = 4;
	self->nn = 0;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, slot_mbz_and_size)
{
	self->slots[1].flags = 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->slots[1].flags = 0;
	self->slots[1].pad = 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->slots[1].pad = 0;
	self->slots[1].size = 0;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, tensor_slot_out_of_range)
{
	self->t[1].slot = 3;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[1].slot = UINT32_MAX;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, tensor_unknown_dtype)
{
	/* 8, 26, 27 and 30 were Q8_0, I32, I64 and BF16 in uAPI 0.1 (ggml's values). */
	const uint32_t bad[] = { 7, 8, 26, 27, 28, 29, 30, 31, 64, 1000, UINT32_MAX };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		self->t[3].dtype = bad[i];
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("dtype %u", bad[i]);
	}
}

TEST_F(graph, tensor_zero_or_huge_dimension)
{
	self->t[0].ne[2] = 0;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0].ne[2] = 1ull << 41;
	self->t[0].nb[2] = 0;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, tensor_misaligned)
{
	self->t[0].offset = 2;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0].offset = 0;
	self->t[0].nb[1] = 66;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0].nb[1] = 64;
	self->t[0].nb[0] = 2;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, one_byte_past_the_slot)
{
	/* 64 floats need 256 bytes. */
	self->slots[1].size = 255;
	EXPECT_EQ(-EINVAL, create(self));
	self->slots[1].size = 256;
	EXPECT_EQ(0, create(self));
	/* The same through the offset. */
	self->t[1].offset = 4;
	EXPECT_EQ(-EINVAL, create(self));
	self->slots[1].size = 260;
	EXPECT_EQ(0, create(self));
	/* And through a stride. */
	self->t[1].nb[1] = 68;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, extent_overflow)
{
	self->slots[0].size = UINT64_MAX;
	self->t[0].ne[3] = 1ull << 40;
	self->t[0].nb[3] = 1ull << 40;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0] = gaccel_tensor(0, F32, UINT64_MAX - 255, 16, 4, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	/* Large but representable: fine if the slot says so. */
	self->t[0] = gaccel_tensor(0, F32, 1ull << 50, 16, 4, 1, 1);
	EXPECT_EQ(0, create(self));
}

TEST_F(graph, runs_unprivileged)
{
	EXPECT_EQ(GACCEL_TEST_UNPRIV_ID, getuid());
	EXPECT_EQ(GACCEL_TEST_UNPRIV_ID, geteuid());
	EXPECT_EQ(GACCEL_TEST_UNPRIV_ID, getgid());
	EXPECT_EQ(0, getgroups(0, NULL));
	EXPECT_EQ(0, create(self));
}

/*
 * A CPY whose extent wraps through dimension 0: (ne0 - 1) * nb0 is 2^64,
 * which unchecked 64-bit arithmetic takes for 0, so the tensor looks 4
 * bytes long while its elements lie 1 TiB apart. Accepted, the engine
 * would read and write far outside the objects: it must not be.
 */
TEST_F(graph, extent_wraps_through_dim0)
{
	self->slots[0].size = 256;
	self->slots[2].size = 1 << 20;
	self->t[0] = gaccel_tensor(0, F32, 0, (1ull << 24) + 1, 1, 1, 1);
	self->t[0].nb[0] = 1ull << 40;
	self->t[0].nb[1] = self->t[0].nb[2] = self->t[0].nb[3] = 0;
	self->t[2] = gaccel_tensor(2, F32, 0, (1ull << 24) + 1, 1, 1, 1);
	self->t[2].nb[1] = self->t[2].nb[2] = self->t[2].nb[3] = 0;
	self->n[0] = gaccel_node(DRM_GACCEL_OP_CPY, 2, 0, GACCEL_NONE, GACCEL_NONE);
	self->nn = 1;
	EXPECT_EQ(-EINVAL, create(self));
	/* The same as a destination. */
	self->n[0] = gaccel_node(DRM_GACCEL_OP_CPY, 0, 2, GACCEL_NONE, GACCEL_NONE);
	self->slots[2].size = 1ull << 30;
	self->t[2] = gaccel_tensor(2, F32, 0, (1ull << 24) + 1, 1, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	/* Each product of another dimension wrapping on its own. */
	for (int i = 1; i < 4; i++) {
		self->t[0] = gaccel_tensor(0, F32, 0, 1, 1, 1, 1);
		self->t[0].ne[i] = (1ull << 24) + 1;
		self->t[0].nb[i] = 1ull << 40;
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("dimension %d", i);
	}
	/* A quantized row: blocks, not elements, times the block stride. */
	self->t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_Q8_0, 0, 32 * ((1ull << 32) + 1), 1, 1, 1);
	self->t[0].nb[1] = self->t[0].nb[2] = self->t[0].nb[3] = 0;
	self->n[0] = gaccel_node(DRM_GACCEL_OP_GET_ROWS, 2, 0, 1, GACCEL_NONE);
	EXPECT_EQ(-EINVAL, create(self));
}

/*
 * Element counts that overflow 64 bits (zero strides keep the extent
 * small): such a CPY used to pass the equal-count rule with both counts
 * wrapped to 0, and computed nothing.
 */
TEST_F(graph, element_count_overflow)
{
	struct drm_gaccel_tensor big = gaccel_tensor(0, F32, 0, 1, 1ull << 40, 1ull << 24, 2);

	big.nb[1] = big.nb[2] = big.nb[3] = 0;
	self->t[0] = big;
	self->t[2] = big;
	self->t[2].slot = 2;
	self->t[2].ne[3] = 1;
	self->n[0] = gaccel_node(DRM_GACCEL_OP_CPY, 2, 0, GACCEL_NONE, GACCEL_NONE);
	self->nn = 1;
	EXPECT_EQ(-EINVAL, create(self));
	/* 2^48 elements is the most a tensor may have. */
	self->t[0] = gaccel_tensor(0, F32, 0, 1, 1ull << 24, 1ull << 24, 1);
	self->t[0].nb[1] = self->t[0].nb[2] = self->t[0].nb[3] = 0;
	self->t[2] = self->t[0];
	self->t[2].slot = 2;
	self->t[2].ne[1] = 1ull << 23;
	self->t[2].ne[2] = 1ull << 25;
	EXPECT_EQ(0, create(self));
	self->t[2].ne[3] = 2;
	self->t[0].ne[3] = 2;
	EXPECT_EQ(-EINVAL, create(self));
}

/*
 * Strides at the largest value (2^40) times counts at theirs, in a tensor
 * no node uses: every descriptor is checked.
 */
TEST_F(graph, largest_strides_and_counts)
{
	self->slots[0].size = UINT64_MAX;
	self->nt = 5;
	for (int i = 0; i < 4; i++) {
		self->t[4] = gaccel_tensor(0, F32, 0, 16, 4, 1, 1);
		self->t[4].ne[i] = 1ull << 40;
		self->t[4].nb[i] = 1ull << 40;
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("dimension %d", i);
	}
	/* Just fits: 4 + 15 * 4 + (2^23 - 1) * 2^40 is below 2^64. */
	self->t[4] = gaccel_tensor(0, F32, 0, 16, 1ull << 23, 1, 1);
	self->t[4].nb[1] = 1ull << 40;
	self->t[4].nb[2] = self->t[4].nb[3] = 0;
	EXPECT_EQ(0, create(self));
	/* An offset that puts the end at 2^64 overflows; 4 bytes less fits. */
	self->t[4].offset = UINT64_MAX - (((1ull << 23) - 1) << 40) - 64 + 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[4].offset -= 4;
	EXPECT_EQ(0, create(self));
}

TEST_F(graph, per_op_max_rank)
{
	struct drm_gaccel_tensor pos = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 0, 1, 1, 1, 1);

	/* ROPE takes rank 3 at most (the engine's table says so). */
	self->t[0] = gaccel_tensor(0, F32, 0, 16, 2, 1, 2);
	self->t[2] = gaccel_tensor(2, F32, 0, 16, 2, 1, 2);
	self->t[3] = pos;
	self->n[0] = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 3, GACCEL_NONE);
	self->n[0].params[1] = 16;
	self->nn = 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0] = gaccel_tensor(0, F32, 0, 16, 4, 1, 1);
	self->t[2] = gaccel_tensor(2, F32, 0, 16, 4, 1, 1);
	EXPECT_EQ(0, create(self));
}

TEST_F(graph, rope_odd_rows)
{
	struct drm_gaccel_tensor pos = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 0, 1, 1, 1, 1);

	/* 15 elements a row: the last pair would end one past the row. */
	self->t[0] = gaccel_tensor(0, F32, 0, 15, 4, 1, 1);
	self->t[2] = gaccel_tensor(2, F32, 0, 15, 4, 1, 1);
	self->t[3] = pos;
	self->n[0] = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 3, GACCEL_NONE);
	self->nn = 1;
	for (int mode = 0; mode <= 2; mode += 2) {
		self->n[0].params[2] = mode;
		self->n[0].params[1] = 14;
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("mode %d", mode);
		self->n[0].params[1] = 2;
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("mode %d", mode);
	}
	self->t[0] = gaccel_tensor(0, F32, 0, 14, 4, 1, 1);
	self->t[2] = gaccel_tensor(2, F32, 0, 14, 4, 1, 1);
	EXPECT_EQ(0, create(self));
	/* n_dims beyond the int range, and frequency factors not a vector. */
	self->n[0].params[1] = INT32_MIN;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[0].params[1] = 14;
	self->t[4] = gaccel_tensor(1, F32, 64, 7, 2, 1, 1);
	self->nt = 5;
	self->n[0].src[2] = 4;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[4] = gaccel_tensor(1, F32, 64, 7, 1, 1, 1);
	EXPECT_EQ(0, create(self));
}

TEST_F(graph, norm_eps)
{
	const int32_t bad[] = { gaccel_fbits(-1e-6f), gaccel_fbits(1.0f / 0.0f),
				0x7fc00000 /* NaN */, (int32_t)0xff800000 /* -inf */ };

	self->n[1] = gaccel_node(DRM_GACCEL_OP_RMS_NORM, 2, 0, GACCEL_NONE, GACCEL_NONE);
	for (int op = DRM_GACCEL_OP_RMS_NORM; op <= DRM_GACCEL_OP_NORM; op++) {
		self->n[1].op = op;
		self->n[1].params[0] = gaccel_fbits(1e-6f);
		EXPECT_EQ(0, create(self));
		self->n[1].params[0] = (int32_t)0x80000000; /* -0.0 */
		EXPECT_EQ(0, create(self));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			self->n[1].params[0] = bad[i];
			EXPECT_EQ(-EINVAL, create(self)) TH_LOG("op %d eps %#x", op, bad[i]);
		}
	}
}

/*
 * MUL_MAT rows of any length: the engine splits long dot products into
 * pieces of bounded work, so no row cap refuses them.
 */
TEST_F(graph, mul_mat_long_rows)
{
	for (int i = 0; i < 3; i++)
		self->slots[i].size = 1ull << 40;
	for (uint64_t k = 1ull << 16; k <= 1ull << 30; k <<= 7) {
		self->t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_Q8_0, 0, k + 32, 2, 1, 1);
		self->t[1] = gaccel_tensor(1, F32, 0, k + 32, 3, 1, 1);
		self->t[3] = gaccel_tensor(2, F32, 0, 2, 3, 1, 1);
		self->n[0] = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 3, 0, 1, GACCEL_NONE);
		self->nn = 1;
		EXPECT_EQ(0, create(self)) TH_LOG("k %llu", (unsigned long long)k + 32);
		self->t[0] = gaccel_tensor(0, F32, 0, k + 1, 2, 1, 1);
		self->t[1] = gaccel_tensor(1, F32, 0, k + 1, 3, 1, 1);
		EXPECT_EQ(0, create(self)) TH_LOG("k %llu", (unsigned long long)k + 1);
	}
}

/*
 * A slot starts where its binding puts it: the offset must keep the
 * alignment its tensors were checked against (4 for F32, 8 with an I64
 * tensor in the slot), or elements would be read misaligned.
 */
TEST_F(graph, binding_offset_keeps_slot_alignment)
{
	struct drm_gaccel_binding b[3];
	uint32_t g, q, bo;

	ASSERT_EQ(0, gaccel_bo_create(self->fd, 8192, 0, &bo));
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &q));
	self->t[4] = gaccel_tensor(0, DRM_GACCEL_DTYPE_I64, 0, 2, 1, 1, 1);
	self->nt = 5;
	ASSERT_EQ(0, gaccel_graph_create(self->fd, self->slots, 3, self->t, 5, self->n, 2, &g));
	memset(b, 0, sizeof(b));
	for (int i = 0; i < 3; i++) {
		b[i].slot = i;
		b[i].handle = bo;
		b[i].offset = 1024 * i;
	}
	EXPECT_EQ(0, gaccel_submit1(self->fd, q, g, b, 3, NULL, 0));
	b[1].offset = 1024 + 2;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, q, g, b, 3, NULL, 0));
	b[1].offset = 1024 + 4;
	EXPECT_EQ(0, gaccel_submit1(self->fd, q, g, b, 3, NULL, 0));
	/* Slot 0 also holds an I64 tensor: 8 bytes. */
	b[0].offset = 4;
	EXPECT_EQ(-EINVAL, gaccel_submit1(self->fd, q, g, b, 3, NULL, 0));
	b[0].offset = 8;
	EXPECT_EQ(0, gaccel_submit1(self->fd, q, g, b, 3, NULL, 0));
	EXPECT_EQ(0, gaccel_bo_wait(self->fd, bo, 20000000000ll));
}

TEST_F(graph, quantized_layout)
{
	self->slots[0].size = 4096;
	self->t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_Q8_0, 0, 48, 4, 1, 1);
	self->n[0] = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 2, 0, 1, GACCEL_NONE);
	self->nn = 1;
	/* ne0 not a multiple of the block. */
	EXPECT_EQ(-EINVAL, create(self));
	self->t[0] = gaccel_tensor(0, DRM_GACCEL_DTYPE_Q8_0, 0, 32, 4, 1, 1);
	self->t[0].nb[0] = 36;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, node_unknown_op)
{
	const uint32_t bad[] = { DRM_GACCEL_OP_NONE, GACCEL_TEST_NUM_OPS, 99, UINT32_MAX };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		self->n[1].op = bad[i];
		EXPECT_EQ(-EINVAL, create(self)) TH_LOG("op %u", bad[i]);
	}
}

TEST_F(graph, node_mbz)
{
	self->n[1].flags = 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].flags = 0;
	self->n[1].pad = 1;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, node_tensor_out_of_range)
{
	self->n[1].dst = 4;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].dst = 2;
	self->n[1].src[1] = 4;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, node_missing_or_extra_source)
{
	self->n[1].src[1] = GACCEL_NONE;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].src[1] = 3;
	self->n[1].src[2] = 0;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1] = gaccel_node(DRM_GACCEL_OP_SILU, 2, 2, 0, GACCEL_NONE);
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, node_dtype_not_supported)
{
	self->slots[1].size = 4096;
	self->t[1] = gaccel_tensor(1, DRM_GACCEL_DTYPE_F16, 0, 16, 4, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	self->t[1] = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 0, 16, 4, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, binary_shapes)
{
	/* src1 must repeat into src0; dst must match src0. */
	self->t[3] = gaccel_tensor(1, F32, 0, 16, 3, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	self->t[3] = gaccel_tensor(1, F32, 0, 8, 1, 1, 1);
	EXPECT_EQ(0, create(self));
	self->t[2] = gaccel_tensor(2, F32, 0, 16, 2, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, mul_mat_shapes)
{
	/* [16,4] x [16,4] -> [4,4]: fine; then break K, M, N, broadcast. */
	self->t[3] = gaccel_tensor(2, F32, 0, 4, 4, 1, 1);
	self->n[0] = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 3, 0, 1, GACCEL_NONE);
	self->nn = 1;
	EXPECT_EQ(0, create(self));
	self->t[1] = gaccel_tensor(1, F32, 0, 8, 8, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	self->t[1] = gaccel_tensor(1, F32, 0, 16, 4, 1, 1);
	self->t[3] = gaccel_tensor(2, F32, 0, 4, 2, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
	self->t[3] = gaccel_tensor(2, F32, 0, 4, 4, 1, 1);
	self->t[3].nb[0] = 8;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, soft_max_rules)
{
	self->n[1] = gaccel_node(DRM_GACCEL_OP_SOFT_MAX, 2, 0, GACCEL_NONE, GACCEL_NONE);
	EXPECT_EQ(0, create(self));
	self->n[1].params[1] = gaccel_fbits(8.0f);
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].params[1] = 0;
	/* A mask with fewer columns. */
	self->n[1].src[1] = 3;
	self->t[3] = gaccel_tensor(1, F32, 0, 8, 4, 1, 1);
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, rope_rules)
{
	struct drm_gaccel_tensor pos = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 0, 1, 1, 1, 1);

	self->t[3] = pos;
	self->n[1] = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 3, GACCEL_NONE);
	self->n[1].params[1] = 16;
	EXPECT_EQ(0, create(self));
	self->n[1].params[2] = 1;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].params[2] = 2;
	self->n[1].params[1] = 15;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].params[1] = 32;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].params[1] = 16;
	self->t[3].ne[0] = 2;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, get_rows_set_rows_cpy_glu_shapes)
{
	struct drm_gaccel_tensor idx = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 0, 4, 1, 1, 1);

	self->t[3] = idx;
	self->n[1] = gaccel_node(DRM_GACCEL_OP_GET_ROWS, 2, 0, 3, GACCEL_NONE);
	EXPECT_EQ(0, create(self));
	self->t[3].ne[0] = 3;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[3].ne[0] = 4;
	self->n[1].op = DRM_GACCEL_OP_SET_ROWS;
	EXPECT_EQ(0, create(self));
	self->t[3].ne[0] = 2;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1] = gaccel_node(DRM_GACCEL_OP_CPY, 2, 0, GACCEL_NONE, GACCEL_NONE);
	self->t[2] = gaccel_tensor(2, DRM_GACCEL_DTYPE_F16, 0, 64, 1, 1, 1);
	self->nn = 1;
	self->n[0] = self->n[1];
	EXPECT_EQ(0, create(self));
	self->t[2].ne[0] = 63;
	EXPECT_EQ(-EINVAL, create(self));
	self->t[2] = gaccel_tensor(2, F32, 0, 8, 4, 1, 1);
	self->n[0] = gaccel_node(DRM_GACCEL_OP_SWIGLU, 2, 0, GACCEL_NONE, GACCEL_NONE);
	EXPECT_EQ(0, create(self));
	self->t[2].ne[0] = 16;
	EXPECT_EQ(-EINVAL, create(self));
}

/*
 * Per-op params: every op on valid operands, with each word it reads set
 * (accepted), then with one word it does not read set (refused).
 */
struct params_case {
	uint32_t op, dst, src0, src1, used;
	int32_t params[DRM_GACCEL_MAX_PARAMS];
};

static void params_cases(struct params_case *c, int *n)
{
	int32_t one = gaccel_fbits(1.0f);
	int i = 0;

	/* Tensors: see unused_params_rejected_per_op. */
	c[i++] = (struct params_case){ DRM_GACCEL_OP_MUL_MAT, 4, 0, 1, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_ADD, 2, 0, 1, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_MUL, 2, 0, 1, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_SCALE, 2, 0, GACCEL_NONE,
		DRM_GACCEL_PARAMS_SCALE, { gaccel_fbits(2.0f), gaccel_fbits(0.5f) } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_RMS_NORM, 2, 0, GACCEL_NONE,
		DRM_GACCEL_PARAMS_NORM, { gaccel_fbits(1e-6f) } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_NORM, 2, 0, GACCEL_NONE,
		DRM_GACCEL_PARAMS_NORM, { gaccel_fbits(1e-5f) } };
	/* params[1] (max_bias) is read but must be 0: left at 0 here. */
	c[i++] = (struct params_case){ DRM_GACCEL_OP_SOFT_MAX, 2, 0, GACCEL_NONE,
		DRM_GACCEL_PARAMS_SOFT_MAX, { gaccel_fbits(0.125f) } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_ROPE, 2, 0, 6,
		DRM_GACCEL_PARAMS_ROPE, { 0, 16, 2, 0, 4096, gaccel_fbits(10000.0f),
		gaccel_fbits(0.25f), one, one, gaccel_fbits(32.0f), one } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_GET_ROWS, 2, 0, 3, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_SET_ROWS, 2, 0, 3, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_CPY, 2, 0, GACCEL_NONE, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_SILU, 2, 0, GACCEL_NONE, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_GELU, 2, 0, GACCEL_NONE, 0, { 0 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_SWIGLU, 5, 0, GACCEL_NONE,
		DRM_GACCEL_PARAMS_GLU, { 0, 1 } };
	c[i++] = (struct params_case){ DRM_GACCEL_OP_GEGLU, 2, 0, 1,
		DRM_GACCEL_PARAMS_GLU, { 0, 1 } };
	*n = i;
}

TEST_F(graph, unused_params_rejected_per_op)
{
	struct params_case c[16];
	int nc, checked = 0;

	for (int i = 0; i < 3; i++)
		self->slots[i].size = 4096;
	self->t[0] = gaccel_tensor(0, F32, 0, 16, 4, 1, 1);
	self->t[1] = gaccel_tensor(1, F32, 0, 16, 4, 1, 1);
	self->t[2] = gaccel_tensor(2, F32, 0, 16, 4, 1, 1);
	self->t[3] = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 1024, 4, 1, 1, 1);
	self->t[4] = gaccel_tensor(2, F32, 1024, 4, 4, 1, 1);
	self->t[5] = gaccel_tensor(2, F32, 2048, 8, 4, 1, 1);
	self->t[6] = gaccel_tensor(1, DRM_GACCEL_DTYPE_I32, 2048, 1, 1, 1, 1);
	self->nt = 7;
	self->nn = 1;
	params_cases(c, &nc);
	ASSERT_EQ(GACCEL_TEST_NUM_OPS - 1, nc);
	for (int k = 0; k < nc; k++) {
		self->n[0] = gaccel_node(c[k].op, c[k].dst, c[k].src0, c[k].src1, GACCEL_NONE);
		memcpy(self->n[0].params, c[k].params, sizeof(c[k].params));
		/* Every word the op reads set: a valid program. */
		ASSERT_EQ(0, create(self)) TH_LOG("op %u with its params", c[k].op);
		for (int i = 0; i < DRM_GACCEL_MAX_PARAMS; i++) {
			if (c[k].used & (1u << i))
				continue;
			self->n[0].params[i] = 77;
			EXPECT_EQ(-EINVAL, create(self)) TH_LOG("op %u params[%d]", c[k].op, i);
			/* Negative zero is not zero either. */
			self->n[0].params[i] = INT32_MIN;
			EXPECT_EQ(-EINVAL, create(self)) TH_LOG("op %u params[%d]", c[k].op, i);
			self->n[0].params[i] = 0;
			checked++;
		}
		EXPECT_EQ(0, create(self)) TH_LOG("op %u restored", c[k].op);
	}
	/* 8 ops without params; SCALE, SOFT_MAX 2; norms, GLUs 1; ROPE 9. */
	EXPECT_EQ(8 * 16 + 2 * 14 + 4 * 15 + 7, checked);
}

TEST_F(graph, unused_param_in_second_node)
{
	/* The fixture's ADD then MUL: a stray word in node 1 (the unary op
	 * ggml keeps in op_params[0], say) fails the whole program.
	 */
	EXPECT_EQ(0, create(self));
	self->n[1].params[0] = 10;
	EXPECT_EQ(-EINVAL, create(self));
	self->n[1].params[0] = 0;
	self->n[0].params[5] = 77;
	EXPECT_EQ(-EINVAL, create(self));
}

TEST_F(graph, array_strides)
{
	unsigned char big[4][128];
	struct drm_gaccel_graph_create c = {
		.slots = { sizeof(self->slots[0]), 3, (uintptr_t)self->slots },
		.tensors = { sizeof(self->t[0]), 4, (uintptr_t)self->t },
		.nodes = { sizeof(self->n[0]), 2, (uintptr_t)self->n },
	};

	c.tensors.stride = sizeof(self->t[0]) - 8;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	c.tensors.stride = 1 << 20;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	/* Longer elements with zero tails are fine... */
	memset(big, 0, sizeof(big));
	for (int i = 0; i < 4; i++)
		memcpy(big[i], &self->t[i], sizeof(self->t[i]));
	c.tensors.stride = 128;
	c.tensors.pointer = (uintptr_t)big;
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	EXPECT_EQ(0, gaccel_graph_destroy(self->fd, c.handle));
	/* ...non-zero tails are not. */
	big[2][100] = 1;
	EXPECT_EQ(-E2BIG, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	/* Counts over the limits, bad pointers. */
	c.tensors.stride = sizeof(self->t[0]);
	c.tensors.pointer = (uintptr_t)self->t;
	c.nodes.count = 0x7fffffff;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	c.nodes.count = 2;
	c.slots.count = 1u << 30;
	EXPECT_EQ(-EINVAL, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	c.slots.count = 3;
	c.nodes.pointer = 0;
	EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	c.nodes.pointer = 4096;
	EXPECT_EQ(-EFAULT, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	/* Misaligned user pointers work. */
	unsigned char *odd = malloc(sizeof(self->n) + 1);

	ASSERT_NE(NULL, odd);
	memcpy(odd + 1, self->n, sizeof(self->n));
	c.nodes.pointer = (uintptr_t)(odd + 1);
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &c));
	free(odd);
}

TEST_F(graph, many_graphs_and_other_files)
{
	uint32_t h[256];
	int fd2 = gaccel_open_device();

	ASSERT_GE(fd2, 0);
	for (int i = 0; i < 256; i++)
		ASSERT_EQ(0, gaccel_graph_create(fd2, self->slots, 3, self->t, 4, self->n, 2, &h[i]));
	/* Handles are per file. */
	EXPECT_EQ(-ENOENT, gaccel_graph_destroy(self->fd, h[0]));
	for (int i = 0; i < 128; i++)
		ASSERT_EQ(0, gaccel_graph_destroy(fd2, h[i]));
	close(fd2);
}

GACCEL_TEST_HARNESS_MAIN
