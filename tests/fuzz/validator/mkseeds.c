// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * mkseeds: write the seed corpus of the validator fuzzer, one valid graph
 * per file (format: fuzz_input.h), into the directory given: every op with
 * each dtype it takes, broadcasts, views with permuted strides, a chained
 * graph, and the same graphs for the AVX2 kernels.
 *
 * usage: mkseeds <dir>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaccel_test.h"
#include "fuzz_input.h"

#define F32	DRM_GACCEL_DTYPE_F32
#define F16	DRM_GACCEL_DTYPE_F16
#define BF16	DRM_GACCEL_DTYPE_BF16
#define Q4_0	DRM_GACCEL_DTYPE_Q4_0
#define Q8_0	DRM_GACCEL_DTYPE_Q8_0
#define I32	DRM_GACCEL_DTYPE_I32
#define I64	DRM_GACCEL_DTYPE_I64
#define NONE	GACCEL_NONE

struct seed {
	int nt, nn;
	struct drm_gaccel_tensor t[FUZZ_MAX_TENSORS];
	struct drm_gaccel_node n[FUZZ_MAX_NODES];
};

static const char *dir;
static int count;

static uint64_t extent(const struct drm_gaccel_tensor *t)
{
	uint64_t bs = t->dtype == Q8_0 || t->dtype == Q4_0 ? 32 : 1;
	uint64_t es = t->nb[0], end = t->offset + (t->ne[0] / bs - 1) * t->nb[0] + es;

	for (int i = 1; i < 4; i++)
		end += (t->ne[i] - 1) * t->nb[i];
	return end;
}

/*
 * Tensor i lives in slot i unless it is a view of an earlier tensor's slot
 * (slot set below i): slot sizes are the largest extent in each.
 */
static void emit(const struct seed *s, uint8_t flags)
{
	struct drm_gaccel_slot slots[FUZZ_MAX_SLOTS];
	struct fuzz_head h = { 0, (uint8_t)s->nt, (uint8_t)s->nn, flags };
	/* Row indices 1 and 0, and floats 1.0 and -0.5, in the slots. */
	static const uint8_t fill[16] = { 1, 0, 0, 0, 0, 0, 0x80, 0x3f,
					  0, 0, 0, 0, 0, 0, 0, 0xbf };
	char path[512];
	int ns = 0;
	FILE *f;

	memset(slots, 0, sizeof(slots));
	for (int i = 0; i < s->nt; i++) {
		uint64_t e = extent(&s->t[i]);

		if ((int)s->t[i].slot >= ns)
			ns = s->t[i].slot + 1;
		if (e > slots[s->t[i].slot].size)
			slots[s->t[i].slot].size = e;
	}
	if (ns > FUZZ_MAX_SLOTS) {
		fprintf(stderr, "mkseeds: seed %d has %d slots\n", count, ns);
		exit(1);
	}
	h.ns = (uint8_t)ns;
	snprintf(path, sizeof(path), "%s/seed-%03d", dir, count++);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(&h, sizeof(h), 1, f);
	fwrite(slots, sizeof(slots[0]), ns, f);
	fwrite(s->t, sizeof(s->t[0]), s->nt, f);
	fwrite(s->n, sizeof(s->n[0]), s->nn, f);
	fwrite(fill, sizeof(fill), 1, f);
	fclose(f);
}

/*
 * Each graph twice, for the scalar and the AVX2 kernels; the AVX2 copy
 * with one more tensor no node uses (every descriptor is validated, and
 * a tensor without a node's shape rules is one the fuzzer can bend freely).
 */
static void emit2(const struct seed *s)
{
	struct seed spare = *s;

	emit(s, 0);
	if (spare.nt < FUZZ_MAX_TENSORS) {
		spare.t[spare.nt] = spare.t[0];
		spare.nt++;
	}
	emit(&spare, FUZZ_AVX2);
}

/* One node over tensors 0.. in their own slots. */
static struct seed one(uint32_t op, int nt, const struct drm_gaccel_tensor *t,
		       uint32_t dst, uint32_t s0, uint32_t s1, uint32_t s2)
{
	struct seed s = { .nt = nt, .nn = 1 };

	for (int i = 0; i < nt; i++) {
		s.t[i] = t[i];
		s.t[i].slot = i;
	}
	s.n[0] = gaccel_node(op, dst, s0, s1, s2);
	return s;
}

static void mul_mats(void)
{
	static const uint32_t w[] = { F32, F16, BF16, Q8_0, Q4_0 };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, w[i], 0, 64, 6, 1, 1),
			gaccel_tensor(0, F32, 0, 64, 5, 1, 1),
			gaccel_tensor(0, F32, 0, 6, 5, 1, 1),
		};
		struct drm_gaccel_tensor tb[3] = {
			gaccel_tensor(0, w[i], 0, 32, 7, 2, 1),
			gaccel_tensor(0, F32, 0, 32, 4, 4, 2),
			gaccel_tensor(0, F32, 0, 7, 4, 4, 2),
		};
		struct seed s = one(DRM_GACCEL_OP_MUL_MAT, 3, t, 2, 0, 1, NONE);

		emit2(&s);
		s = one(DRM_GACCEL_OP_MUL_MAT, 3, tb, 2, 0, 1, NONE);
		s.t[0].ne[3] = 2;
		s.t[0].nb[3] = s.t[0].nb[2] * 2;
		emit2(&s);
	}
}

static void eltwise(void)
{
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F32, 0, 16, 4, 3, 1),
		gaccel_tensor(0, F32, 0, 8, 1, 3, 1),
		gaccel_tensor(0, F32, 0, 16, 4, 3, 1),
	};
	static const uint32_t unary[] = { DRM_GACCEL_OP_SCALE, DRM_GACCEL_OP_SILU,
					  DRM_GACCEL_OP_GELU, DRM_GACCEL_OP_RMS_NORM,
					  DRM_GACCEL_OP_NORM, DRM_GACCEL_OP_SOFT_MAX,
					  DRM_GACCEL_OP_CPY };
	struct seed s;

	s = one(DRM_GACCEL_OP_ADD, 3, t, 2, 0, 1, NONE);
	emit2(&s);
	s = one(DRM_GACCEL_OP_MUL, 3, t, 2, 0, 1, NONE);
	emit2(&s);
	for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++) {
		struct drm_gaccel_tensor u[2] = { t[0], t[2] };

		s = one(unary[i], 2, u, 1, 0, NONE, NONE);
		if (unary[i] == DRM_GACCEL_OP_SCALE) {
			s.n[0].params[0] = gaccel_fbits(0.5f);
			s.n[0].params[1] = gaccel_fbits(2.0f);
		}
		if (unary[i] == DRM_GACCEL_OP_RMS_NORM || unary[i] == DRM_GACCEL_OP_NORM)
			s.n[0].params[0] = gaccel_fbits(1e-6f);
		if (unary[i] == DRM_GACCEL_OP_SOFT_MAX)
			s.n[0].params[0] = gaccel_fbits(0.125f);
		emit2(&s);
	}
	/* SOFT_MAX with a mask of each dtype, broadcast over dimension 2. */
	for (uint32_t m = F32; m <= F16; m++) {
		struct drm_gaccel_tensor v[3] = {
			t[0], gaccel_tensor(0, m, 0, 16, 4, 1, 1), t[2],
		};

		s = one(DRM_GACCEL_OP_SOFT_MAX, 3, v, 2, 0, 1, NONE);
		s.n[0].params[0] = gaccel_fbits(1.0f);
		emit2(&s);
	}
	/* CPY F32 -> F16 into a transposed view, and BF16 -> F32. */
	{
		struct drm_gaccel_tensor v[2] = {
			gaccel_tensor(0, F32, 0, 8, 6, 1, 1),
			gaccel_tensor(0, F16, 0, 6, 8, 1, 1),
		};

		v[1].ne[0] = 8;
		v[1].ne[1] = 6;
		v[1].nb[0] = 12;
		v[1].nb[1] = 2;
		s = one(DRM_GACCEL_OP_CPY, 2, v, 1, 0, NONE, NONE);
		emit2(&s);
		v[0] = gaccel_tensor(0, BF16, 0, 48, 1, 1, 1);
		v[1] = gaccel_tensor(0, F32, 0, 12, 4, 1, 1);
		s = one(DRM_GACCEL_OP_CPY, 2, v, 1, 0, NONE, NONE);
		emit2(&s);
	}
	/* GLU: split operands, then the halves of one, swapped. */
	{
		struct drm_gaccel_tensor v[3] = { t[0], t[0], t[2] };

		s = one(DRM_GACCEL_OP_SWIGLU, 3, v, 2, 0, 1, NONE);
		emit2(&s);
		v[1] = gaccel_tensor(0, F32, 0, 8, 4, 3, 1);
		s = one(DRM_GACCEL_OP_GEGLU, 2, v, 1, 0, NONE, NONE);
		s.n[0].params[1] = 1;
		emit2(&s);
	}
}

static void ropes(void)
{
	for (int v = 0; v < 4; v++) {
		struct drm_gaccel_tensor t[4] = {
			gaccel_tensor(0, F32, 0, 32, 3, 4, 1),
			gaccel_tensor(0, I32, 0, 4, 1, 1, 1),
			gaccel_tensor(0, F32, 0, 32, 3, 4, 1),
			gaccel_tensor(0, F32, 0, 12, 1, 1, 1),
		};
		struct seed s = one(DRM_GACCEL_OP_ROPE, v & 1 ? 4 : 3, t, 2, 0, 1,
				    v & 1 ? 3 : NONE);

		s.n[0].params[1] = 24;
		s.n[0].params[2] = v & 2 ? 2 : 0;
		s.n[0].params[4] = v == 3 ? 0 : 4096;
		s.n[0].params[5] = gaccel_fbits(10000.0f);
		s.n[0].params[6] = gaccel_fbits(0.25f);
		s.n[0].params[7] = gaccel_fbits(v >= 2 ? 1.0f : 0.0f);
		s.n[0].params[8] = gaccel_fbits(1.0f);
		s.n[0].params[9] = gaccel_fbits(32.0f);
		s.n[0].params[10] = gaccel_fbits(1.0f);
		emit2(&s);
	}
}

static void rows(void)
{
	static const uint32_t src[] = { F32, F16, BF16, Q8_0, Q4_0 };

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, src[i], 0, 64, 5, 2, 1),
			gaccel_tensor(0, i & 1 ? I64 : I32, 0, 3, 2, 1, 1),
			gaccel_tensor(0, F32, 0, 64, 3, 2, 1),
		};
		struct seed s = one(DRM_GACCEL_OP_GET_ROWS, 3, t, 2, 0, 1, NONE);

		emit2(&s);
	}
	for (uint32_t d = F32; d <= BF16; d++) {
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, F32, 0, 16, 3, 2, 1),
			gaccel_tensor(0, d == F16 ? I64 : I32, 0, 3, 1, 1, 1),
			gaccel_tensor(0, d, 0, 16, 7, 2, 1),
		};
		struct seed s = one(DRM_GACCEL_OP_SET_ROWS, 3, t, 2, 0, 1, NONE);

		emit2(&s);
	}
}

/* A transformer-like chain over shared slots: views of one activation slot. */
static void chain(void)
{
	struct seed s = { .nt = 8, .nn = 5 };

	s.t[0] = gaccel_tensor(0, Q8_0, 0, 64, 32, 1, 1);	/* weights */
	s.t[1] = gaccel_tensor(1, F32, 0, 64, 4, 1, 1);	/* x */
	s.t[2] = gaccel_tensor(2, F32, 0, 32, 4, 1, 1);	/* x W */
	s.t[3] = gaccel_tensor(2, F32, 512, 32, 4, 1, 1);	/* normed */
	s.t[4] = gaccel_tensor(3, I32, 0, 4, 1, 1, 1);	/* positions */
	s.t[5] = gaccel_tensor(2, F32, 512, 8, 4, 4, 1);	/* heads view */
	s.t[5].nb[1] = 128;
	s.t[5].nb[2] = 32;
	s.t[5].nb[3] = 512;
	s.t[6] = gaccel_tensor(2, F32, 1024, 8, 4, 4, 1);	/* roped */
	s.t[7] = gaccel_tensor(2, F32, 1536, 32, 4, 1, 1);
	s.n[0] = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 2, 0, 1, NONE);
	s.n[1] = gaccel_node(DRM_GACCEL_OP_RMS_NORM, 3, 2, NONE, NONE);
	s.n[1].params[0] = gaccel_fbits(1e-5f);
	s.n[2] = gaccel_node(DRM_GACCEL_OP_ROPE, 6, 5, 4, NONE);
	s.n[2].params[1] = 8;
	s.n[2].params[5] = gaccel_fbits(10000.0f);
	s.n[2].params[6] = gaccel_fbits(1.0f);
	s.n[2].params[8] = gaccel_fbits(1.0f);
	s.n[3] = gaccel_node(DRM_GACCEL_OP_SOFT_MAX, 7, 3, NONE, NONE);
	s.n[3].params[0] = gaccel_fbits(1.0f);
	s.n[4] = gaccel_node(DRM_GACCEL_OP_ADD, 7, 7, 3, NONE);
	emit2(&s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds <dir>\n");
		return 2;
	}
	dir = argv[1];
	mul_mats();
	eltwise();
	ropes();
	rows();
	chain();
	printf("mkseeds: %d seeds in %s\n", count, dir);
	return 0;
}
