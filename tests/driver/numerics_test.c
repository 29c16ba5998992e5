// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Numerics of the reference engine: every op on random data, against a
 * reference computed here in double precision.
 */
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "gaccel_test.h"

#define F32 DRM_GACCEL_DTYPE_F32
#define F16 DRM_GACCEL_DTYPE_F16
#define BF16 DRM_GACCEL_DTYPE_BF16
#define Q8_0 DRM_GACCEL_DTYPE_Q8_0
#define Q4_0 DRM_GACCEL_DTYPE_Q4_0
#define I32 DRM_GACCEL_DTYPE_I32
#define MAXT 6

static uint32_t rng = 12345;

static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static uint16_t f2h(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;

	memcpy(&u, &h, 2);
	return u;
}

static float h2f(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, 2);
	return (float)h;
}

static uint16_t f2bf(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return u >> 16;
}

static float bf2f(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint64_t extent(const struct drm_gaccel_tensor *t)
{
	uint64_t bs = t->dtype == Q8_0 || t->dtype == Q4_0 ? 32 : 1;
	uint64_t end = t->offset + (t->ne[0] / bs - 1) * t->nb[0] + t->nb[0];

	for (int i = 1; i < 4; i++)
		end += (t->ne[i] - 1) * t->nb[i];
	return (end + 3) & ~3ull;
}

/*
 * Run a graph whose tensor i lives alone in slot i (its own object):
 * data[i] goes in before, comes back out after.
 */
static int run(int fd, struct drm_gaccel_tensor *t, int nt, void **data,
	       const struct drm_gaccel_node *n, int nn)
{
	struct drm_gaccel_slot slots[MAXT];
	struct drm_gaccel_binding b[MAXT];
	struct drm_gaccel_queue_get_state st;
	void *p[MAXT];
	uint64_t sz[MAXT];
	uint32_t q, g;
	int ret;

	memset(slots, 0, sizeof(slots));
	memset(b, 0, sizeof(b));
	for (int i = 0; i < nt; i++) {
		t[i].slot = i;
		sz[i] = extent(&t[i]);
		slots[i].size = sz[i];
		b[i].slot = i;
		if (gaccel_bo_create(fd, sz[i], 0, &b[i].handle))
			return -1;
		p[i] = gaccel_bo_mmap(fd, b[i].handle, PROT_READ | PROT_WRITE);
		if (p[i] == MAP_FAILED)
			return -2;
		memcpy(p[i], data[i], sz[i]);
	}
	ret = gaccel_graph_create(fd, slots, nt, t, nt, n, nn, &g);
	if (ret)
		return ret;
	if (gaccel_queue_create(fd, &q) || gaccel_submit1(fd, q, g, b, nt, NULL, 0))
		return -3;
	for (int i = 0; i < nt; i++) {
		if (gaccel_bo_wait(fd, b[i].handle, 60000000000ll))
			return -4;
		memcpy(data[i], p[i], sz[i]);
		munmap(p[i], sz[i]);
		gaccel_gem_close(fd, b[i].handle);
	}
	/*
	 * The objects' fences signal whether the job succeeded or not: a
	 * failed job must not pass for one whose results are wrong.
	 */
	ret = gaccel_queue_state(fd, q, &st);
	if (!ret && (st.completed != 1 || st.failed)) {
		fprintf(stderr, "# job failed: error %d, %llu completed, %llu failed, %llu timed out\n",
			st.last_error, (unsigned long long)st.completed,
			(unsigned long long)st.failed, (unsigned long long)st.timeouts);
		ret = st.last_error ? st.last_error : -5;
	}
	gaccel_graph_destroy(fd, g);
	gaccel_queue_destroy(fd, q);
	return ret;
}

static float *frandv(size_t n)
{
	float *v = malloc((n + 64) * 4);

	for (size_t i = 0; i < n + 64; i++)
		v[i] = frand();
	return v;
}

FIXTURE(num) {
	int fd;
};

FIXTURE_SETUP(num)
{
	self->fd = gaccel_open_device();
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(num)
{
	close(self->fd);
}

/* --- MUL_MAT ---------------------------------------------------------------- */

/* Weights M x K in @dtype from floats; returns the dequantized values in @w. */
static void *make_weights(uint32_t dtype, float *w, int m, int k, size_t *bytes)
{
	int nb = k / 32;
	uint8_t *out;

	switch (dtype) {
	case F32:
		*bytes = (size_t)m * k * 4;
		out = malloc(*bytes + 64);
		memcpy(out, w, *bytes);
		return out;
	case F16:
	case BF16:
		*bytes = (size_t)m * k * 2;
		out = malloc(*bytes + 64);
		for (int i = 0; i < m * k; i++) {
			uint16_t v = dtype == F16 ? f2h(w[i]) : f2bf(w[i]);

			memcpy(out + 2 * i, &v, 2);
			w[i] = dtype == F16 ? h2f(v) : bf2f(v);
		}
		return out;
	case Q8_0:
		*bytes = (size_t)m * nb * 34;
		out = malloc(*bytes + 64);
		for (int r = 0; r < m * nb; r++) {
			float *x = w + r * 32, amax = 0, d;
			uint8_t *blk = out + r * 34;
			uint16_t dh;

			for (int j = 0; j < 32; j++)
				amax = fmaxf(amax, fabsf(x[j]));
			d = amax / 127;
			dh = f2h(d);
			memcpy(blk, &dh, 2);
			for (int j = 0; j < 32; j++) {
				int8_t qv = (int8_t)roundf(d ? x[j] / d : 0);

				blk[2 + j] = (uint8_t)qv;
				x[j] = qv * h2f(dh);
			}
		}
		return out;
	default: /* Q4_0 */
		*bytes = (size_t)m * nb * 18;
		out = malloc(*bytes + 64);
		for (int r = 0; r < m * nb; r++) {
			float *x = w + r * 32, amax = 0, max = 0, d, id;
			uint8_t *blk = out + r * 18;
			uint16_t dh;

			for (int j = 0; j < 32; j++)
				if (fabsf(x[j]) > amax) {
					amax = fabsf(x[j]);
					max = x[j];
				}
			d = max / -8;
			id = d ? 1.0f / d : 0;
			dh = f2h(d);
			memcpy(blk, &dh, 2);
			for (int j = 0; j < 16; j++) {
				int q0 = (int)(x[j] * id + 8.5f), q1 = (int)(x[j + 16] * id + 8.5f);

				q0 = q0 > 15 ? 15 : q0;
				q1 = q1 > 15 ? 15 : q1;
				blk[2 + j] = (uint8_t)(q0 | (q1 << 4));
				x[j] = (q0 - 8) * h2f(dh);
				x[j + 16] = (q1 - 8) * h2f(dh);
			}
		}
		return out;
	}
}

static void mul_mat_case(struct __test_metadata *_metadata, int fd, uint32_t dtype,
			 int m, int n, int k, int a2, int b2, double tol)
{
	struct drm_gaccel_tensor t[3];
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 2, 0, 1, GACCEL_NONE);
	float *w = frandv((size_t)m * k * a2), *x = frandv((size_t)k * n * b2);
	float *y = calloc((size_t)m * n * b2 + 64, 4);
	size_t wb;
	void *wq = make_weights(dtype, w, m * a2, k, &wb);
	void *data[3] = { wq, x, y };
	double worst = 0;

	t[0] = gaccel_tensor(0, dtype, 0, k, m, a2, 1);
	t[1] = gaccel_tensor(1, F32, 0, k, n, b2, 1);
	t[2] = gaccel_tensor(2, F32, 0, m, n, b2, 1);
	ASSERT_EQ(0, run(fd, t, 3, data, &node, 1));
	for (int p = 0; p < b2; p++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				const float *wr = w + ((size_t)(p / (b2 / a2)) * m + i) * k;
				const float *xr = x + ((size_t)p * n + j) * k;
				double ref = 0, mag = 0, err;

				for (int l = 0; l < k; l++) {
					ref += (double)wr[l] * xr[l];
					mag += fabs((double)wr[l] * xr[l]);
				}
				err = fabs(y[((size_t)p * n + j) * m + i] - ref) / (mag + 1e-30);
				if (err > worst)
					worst = err;
			}
	EXPECT_LE(worst, tol) TH_LOG("dtype %u %dx%dx%d: error %g", dtype, m, n, k, worst);
	free(w);
	free(x);
	free(y);
	free(wq);
}

TEST_F(num, mul_mat_f32)
{
	mul_mat_case(_metadata, self->fd, F32, 17, 5, 64, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 8, 3, 37, 2, 4, 1e-5);
	/* Big enough to be shared out among workers. */
	mul_mat_case(_metadata, self->fd, F32, 256, 48, 256, 1, 1, 1e-5);
}

TEST_F(num, mul_mat_f32_rows)
{
	/*
	 * Rows in fours plus a tail, K not a multiple of the vector width;
	 * K above the engine's work per unit: units of a few rows by all
	 * the columns (up to 15) and a tail.
	 */
	mul_mat_case(_metadata, self->fd, F32, 23, 9, 100, 2, 4, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 6, 2, 70000, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 7, 6, 20000, 1, 1, 1e-5);
	/* 15 columns of rows too long for all of them in one unit: 14 + 1. */
	mul_mat_case(_metadata, self->fd, F32, 9, 15, 9000, 1, 1, 1e-5);
}

TEST_F(num, mul_mat_f16)
{
	mul_mat_case(_metadata, self->fd, F16, 16, 7, 96, 1, 1, 2e-3);
	mul_mat_case(_metadata, self->fd, F16, 23, 9, 100, 2, 4, 2e-3);
}

TEST_F(num, mul_mat_bf16)
{
	mul_mat_case(_metadata, self->fd, BF16, 16, 7, 96, 1, 2, 1.6e-2);
	mul_mat_case(_metadata, self->fd, BF16, 19, 5, 70, 1, 3, 1.6e-2);
	/* One column: reordered for the dots, once per batch; a tail row. */
	mul_mat_case(_metadata, self->fd, BF16, 19, 1, 70, 1, 3, 1.6e-2);
	mul_mat_case(_metadata, self->fd, BF16, 300, 1, 1000, 1, 1, 1.6e-2);
}

/*
 * Float weights with 16 columns or more (the F32 GEMM: units of 96 rows by
 * up to 512 columns, K in steps of 256, in each step the columns in
 * blocks of 32, F16/BF16 weights converted once per step): rows not a
 * multiple of the unit's, K not a multiple of the step or of 8, a partial
 * block of columns, a second unit of columns, broadcast batches.
 */
TEST_F(num, mul_mat_float_gemm)
{
	mul_mat_case(_metadata, self->fd, F32, 50, 70, 600, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 25, 16, 260, 2, 4, 1e-5);
	mul_mat_case(_metadata, self->fd, F16, 50, 70, 600, 1, 1, 2e-3);
	mul_mat_case(_metadata, self->fd, F16, 29, 17, 261, 2, 4, 2e-3);
	mul_mat_case(_metadata, self->fd, BF16, 50, 70, 600, 1, 1, 1.6e-2);
	mul_mat_case(_metadata, self->fd, BF16, 29, 20, 300, 1, 2, 1.6e-2);
	mul_mat_case(_metadata, self->fd, F16, 5, 530, 40, 1, 1, 2e-3);
}

TEST_F(num, mul_mat_q8_0)
{
	mul_mat_case(_metadata, self->fd, Q8_0, 16, 6, 128, 1, 1, 1e-2);
	/* Shared out: every worker quantizes src1 rows into its own scratch. */
	mul_mat_case(_metadata, self->fd, Q8_0, 256, 48, 256, 1, 1, 1e-2);
	/* Broadcast batches; long rows cut into units of 16 rows and a tail. */
	mul_mat_case(_metadata, self->fd, Q8_0, 37, 5, 96, 2, 4, 1e-2);
	mul_mat_case(_metadata, self->fd, Q8_0, 30, 3, 4096, 1, 1, 1e-2);
	/*
	 * The int8 GEMM: K steps of 32 blocks and a partial one, a partial
	 * tile of rows, columns quantized over two sections; two blocks of
	 * columns (128 and 12).
	 */
	mul_mat_case(_metadata, self->fd, Q8_0, 40, 70, 1088, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q8_0, 20, 140, 64, 1, 1, 1e-2);
	/*
	 * Many columns of rows so long that only 6 fit the GEMM's quantized
	 * columns: three blocks of them, each quantized a column a section.
	 */
	mul_mat_case(_metadata, self->fd, Q8_0, 5, 16, 65536, 1, 1, 1e-2);
}

TEST_F(num, mul_mat_q4_0)
{
	mul_mat_case(_metadata, self->fd, Q4_0, 16, 6, 128, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q4_0, 256, 48, 256, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q4_0, 37, 5, 96, 2, 4, 1e-2);
	mul_mat_case(_metadata, self->fd, Q4_0, 30, 3, 4096, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q4_0, 40, 70, 1088, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q4_0, 5, 16, 65536, 1, 1, 1e-2);
}

/* --- element-wise and row ops ---------------------------------------------- */

/* dst = op(src0[, src1]) on [ne0, ne1] F32 tensors; check against @ref. */
typedef double (*ref2_fn)(double a, double b, const int32_t *params);

static void eltwise_case(struct __test_metadata *_metadata, int fd, uint32_t op,
			 int ne0, int ne1, int b0, int b1, const int32_t *params,
			 ref2_fn ref, double tol)
{
	struct drm_gaccel_tensor t[3];
	struct drm_gaccel_node node = gaccel_node(op, 2, 0, b0 ? 1 : GACCEL_NONE, GACCEL_NONE);
	float *a = frandv(ne0 * ne1), *b = frandv(ne0 * ne1), *d = calloc(ne0 * ne1 + 64, 4);
	void *data[3] = { a, b, d };
	int nt = b0 ? 3 : 2;

	if (params)
		memcpy(node.params, params, sizeof(node.params));
	t[0] = gaccel_tensor(0, F32, 0, ne0, ne1, 1, 1);
	if (b0) {
		t[1] = gaccel_tensor(1, F32, 0, b0, b1, 1, 1);
		t[2] = gaccel_tensor(2, F32, 0, ne0, ne1, 1, 1);
	} else {
		node.dst = 1;
		t[1] = gaccel_tensor(1, F32, 0, ne0, ne1, 1, 1);
		data[1] = d;
	}
	ASSERT_EQ(0, run(fd, t, nt, data, &node, 1));
	for (int j = 0; j < ne1; j++)
		for (int i = 0; i < ne0; i++) {
			double r = ref(a[j * ne0 + i], b0 ? b[(j % b1) * b0 + i % b0] : 0, node.params);

			ASSERT_LE(fabs(d[j * ne0 + i] - r), tol * fmax(1.0, fabs(r)))
				TH_LOG("op %u [%d,%d]: %g vs %g", op, i, j, d[j * ne0 + i], r);
		}
	free(a);
	free(b);
	free(d);
}

static double r_add(double a, double b, const int32_t *p) { return a + b; }
static double r_mul(double a, double b, const int32_t *p) { return a * b; }
static double r_scale(double a, double b, const int32_t *p)
{
	return a * gaccel_f(p[0]) + gaccel_f(p[1]);
}
static double r_silu(double a, double b, const int32_t *p) { return a / (1 + exp(-a)); }
static double r_gelu(double a, double b, const int32_t *p)
{
	return 0.5 * a * (1 + tanh(0.7978845608 * a * (1 + 0.044715 * a * a)));
}

TEST_F(num, add_mul_broadcast)
{
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_ADD, 33, 7, 33, 7, NULL, r_add, 1e-6);
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_ADD, 32, 6, 32, 1, NULL, r_add, 1e-6);
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_MUL, 32, 6, 8, 3, NULL, r_mul, 1e-6);
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_ADD, 4096, 64, 4096, 1, NULL, r_add, 1e-6);
}

TEST_F(num, scale)
{
	int32_t p[16] = { gaccel_fbits(0.37f), gaccel_fbits(-1.5f) };

	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_SCALE, 100, 3, 0, 0, p, r_scale, 1e-6);
}

TEST_F(num, silu_gelu)
{
	rng = 99;
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_SILU, 300, 2, 0, 0, NULL, r_silu, 1e-5);
	eltwise_case(_metadata, self->fd, DRM_GACCEL_OP_GELU, 300, 2, 0, 0, NULL, r_gelu, 1e-4);
}

TEST_F(num, swiglu_geglu)
{
	/* fused 0: two sources; 1: halves of src0's rows; 2: halves swapped. */
	for (int fused = 0; fused < 3; fused++) {
		for (uint32_t op = DRM_GACCEL_OP_SWIGLU; op <= DRM_GACCEL_OP_GEGLU; op++) {
			int n = 40, rows = 3;
			struct drm_gaccel_tensor t[3];
			struct drm_gaccel_node node;
			float *a = frandv(2 * n * rows), *b = frandv(n * rows);
			float *d = calloc(n * rows + 64, 4);
			void *data[3];

			if (fused) {
				t[0] = gaccel_tensor(0, F32, 0, 2 * n, rows, 1, 1);
				t[1] = gaccel_tensor(1, F32, 0, n, rows, 1, 1);
				node = gaccel_node(op, 1, 0, GACCEL_NONE, GACCEL_NONE);
				node.params[1] = fused == 2;
				data[0] = a;
				data[1] = d;
			} else {
				t[0] = gaccel_tensor(0, F32, 0, n, rows, 1, 1);
				t[1] = gaccel_tensor(1, F32, 0, n, rows, 1, 1);
				t[2] = gaccel_tensor(2, F32, 0, n, rows, 1, 1);
				node = gaccel_node(op, 2, 0, 1, GACCEL_NONE);
				data[0] = a;
				data[1] = b;
				data[2] = d;
			}
			ASSERT_EQ(0, run(self->fd, t, fused ? 2 : 3, data, &node, 1));
			for (int j = 0; j < rows; j++)
				for (int i = 0; i < n; i++) {
					int xo = fused == 2 ? n : 0, go = fused == 2 ? 0 : n;
					double x = fused ? a[j * 2 * n + xo + i] : a[j * n + i];
					double g = fused ? a[j * 2 * n + go + i] : b[j * n + i];
					double act = op == DRM_GACCEL_OP_SWIGLU ? r_silu(x, 0, NULL) :
										  r_gelu(x, 0, NULL);

					ASSERT_LE(fabs(d[j * n + i] - act * g), 1e-4);
				}
			free(a);
			free(b);
			free(d);
		}
	}
}

TEST_F(num, rms_norm_and_norm)
{
	for (uint32_t op = DRM_GACCEL_OP_RMS_NORM; op <= DRM_GACCEL_OP_NORM; op++) {
		int n = 257, rows = 5;
		float eps = 1e-5f;
		struct drm_gaccel_tensor t[2] = {
			gaccel_tensor(0, F32, 0, n, rows, 1, 1),
			gaccel_tensor(1, F32, 0, n, rows, 1, 1),
		};
		struct drm_gaccel_node node = gaccel_node(op, 1, 0, GACCEL_NONE, GACCEL_NONE);
		float *a = frandv(n * rows), *d = calloc(n * rows + 64, 4);
		void *data[2] = { a, d };

		node.params[0] = gaccel_fbits(eps);
		ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
		for (int j = 0; j < rows; j++) {
			double mean = 0, var = 0;

			if (op == DRM_GACCEL_OP_NORM) {
				for (int i = 0; i < n; i++)
					mean += a[j * n + i];
				mean /= n;
			}
			for (int i = 0; i < n; i++)
				var += (a[j * n + i] - mean) * (a[j * n + i] - mean);
			var /= n;
			for (int i = 0; i < n; i++) {
				double r = (a[j * n + i] - mean) / sqrt(var + eps);

				ASSERT_LE(fabs(d[j * n + i] - r), 1e-4 * fmax(1, fabs(r)));
			}
		}
		free(a);
		free(d);
	}
}

TEST_F(num, soft_max_with_mask)
{
	for (uint32_t mdt = F32; mdt <= F16; mdt++) {
		int n = 50, rows = 4, heads = 2;
		float scale = 0.125f;
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, F32, 0, n, rows, heads, 1),
			gaccel_tensor(1, mdt, 0, n, rows, 1, 1),
			gaccel_tensor(2, F32, 0, n, rows, heads, 1),
		};
		struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_SOFT_MAX, 2, 0, 1, GACCEL_NONE);
		float *a = frandv(n * rows * heads), *mf = frandv(n * rows);
		float *d = calloc(n * rows * heads + 64, 4);
		uint16_t *mh = calloc(n * rows + 64, 2);
		void *data[3] = { a, mdt == F32 ? (void *)mf : (void *)mh, d };

		for (int i = 0; i < n * rows; i++) {
			if (i % 7 == 3)
				mf[i] = -INFINITY;
			mh[i] = f2h(mf[i]);
			mf[i] = h2f(mh[i]);
		}
		node.params[0] = gaccel_fbits(scale);
		ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
		for (int r = 0; r < rows * heads; r++) {
			double mx = -INFINITY, sum = 0, v[64];

			for (int i = 0; i < n; i++) {
				v[i] = a[r * n + i] * scale + mf[(r % rows) * n + i];
				mx = fmax(mx, v[i]);
			}
			for (int i = 0; i < n; i++)
				sum += exp(v[i] - mx);
			for (int i = 0; i < n; i++)
				ASSERT_LE(fabs(d[r * n + i] - exp(v[i] - mx) / sum), 1e-6);
		}
		free(a);
		free(mf);
		free(mh);
		free(d);
	}
}

static void rope_ref(const float *x, float *y, int hd, int n_dims, int mode, int pos,
		     float base, const float *ff)
{
	for (int i = 0; i < hd; i++)
		y[i] = x[i];
	for (int i0 = 0; i0 < n_dims; i0 += 2) {
		double theta = pos * pow(base, -(double)i0 / n_dims) / (ff ? ff[i0 / 2] : 1);
		int j0 = mode == 2 ? i0 / 2 : i0, j1 = mode == 2 ? i0 / 2 + n_dims / 2 : i0 + 1;

		y[j0] = x[j0] * cos(theta) - x[j1] * sin(theta);
		y[j1] = x[j0] * sin(theta) + x[j1] * cos(theta);
	}
}

TEST_F(num, rope_normal_and_neox)
{
	for (int variant = 0; variant < 3; variant++) {
		int mode = variant ? 2 : 0, with_ff = variant == 2;
		int hd = 32, heads = 3, toks = 4, n_dims = 24;
		struct drm_gaccel_tensor t[4] = {
			gaccel_tensor(0, F32, 0, hd, heads, toks, 1),
			gaccel_tensor(1, I32, 0, toks, 1, 1, 1),
			gaccel_tensor(2, F32, 0, hd, heads, toks, 1),
			gaccel_tensor(3, F32, 0, n_dims / 2, 1, 1, 1),
		};
		struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 1,
							   with_ff ? 3 : GACCEL_NONE);
		float *a = frandv(hd * heads * toks), *d = calloc(hd * heads * toks + 64, 4);
		int32_t pos[4] = { 0, 3, 17, 250 };
		float ff[16];
		void *data[4] = { a, pos, d, ff };
		float ref[64];

		for (int i = 0; i < 16; i++)
			ff[i] = 1.0f + i * 0.25f;

		node.params[1] = n_dims;
		node.params[2] = mode;
		node.params[4] = 4096;
		node.params[5] = gaccel_fbits(10000.0f);
		node.params[6] = gaccel_fbits(1.0f);
		node.params[7] = gaccel_fbits(0.0f);
		node.params[8] = gaccel_fbits(1.0f);
		node.params[9] = gaccel_fbits(32.0f);
		node.params[10] = gaccel_fbits(1.0f);
		ASSERT_EQ(0, run(self->fd, t, with_ff ? 4 : 3, data, &node, 1));
		for (int tk = 0; tk < toks; tk++)
			for (int h = 0; h < heads; h++) {
				int off = (tk * heads + h) * hd;

				rope_ref(a + off, ref, hd, n_dims, mode, pos[tk], 10000.0f,
					 with_ff ? ff : NULL);
				for (int i = 0; i < hd; i++) {
					ASSERT_LE(fabs(d[off + i] - ref[i]), 2e-4) {
						TH_LOG("mode %d tok %d head %d i %d", mode, tk, h, i);
					}
				}
			}
		free(a);
		free(d);
	}
}

/* YaRN parameters of a ROPE node (ggml_rope_ext's last six arguments). */
struct yarn {
	int n_ctx_orig;
	float base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
};

static double yarn_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base)
{
	return n_dims * log(n_ctx_orig / (n_rot * 2 * M_PI)) / (2 * log(base));
}

/*
 * RoPE with YaRN, written from its definition: each pair's angle blends
 * the interpolated angle (freq_scale * theta) and the extrapolated one
 * (theta) by a ramp over the dimensions between the beta_fast and
 * beta_slow correction dimensions, times ext_factor; with ext_factor set
 * the magnitude is scaled by attn_factor * (1 + 0.1 ln(1 / freq_scale)).
 */
static void rope_yarn_ref(const float *x, float *y, int hd, int n_dims, int mode, int pos,
			  const struct yarn *p, const float *ff)
{
	double lo = floor(yarn_corr_dim(n_dims, p->n_ctx_orig, p->beta_fast, p->base));
	double hi = ceil(yarn_corr_dim(n_dims, p->n_ctx_orig, p->beta_slow, p->base));
	double mscale = p->attn_factor;

	lo = fmax(0, lo);
	hi = fmin(n_dims - 1, hi);
	if (p->ext_factor != 0)
		mscale *= 1 + 0.1 * log(1.0 / p->freq_scale);
	for (int i = 0; i < hd; i++)
		y[i] = x[i];
	for (int i0 = 0; i0 < n_dims; i0 += 2) {
		double extrap = pos * pow(p->base, -(double)i0 / n_dims) / (ff ? ff[i0 / 2] : 1);
		double interp = p->freq_scale * extrap;
		double ramp = 1 - fmin(1, fmax(0, (i0 / 2 - lo) / fmax(0.001, hi - lo)));
		double mix = ramp * p->ext_factor;
		double theta = interp * (1 - mix) + extrap * mix;
		double c = cos(theta) * mscale, sn = sin(theta) * mscale;
		int j0 = mode == 2 ? i0 / 2 : i0, j1 = mode == 2 ? i0 / 2 + n_dims / 2 : i0 + 1;

		y[j0] = x[j0] * c - x[j1] * sn;
		y[j1] = x[j0] * sn + x[j1] * c;
	}
}

TEST_F(num, rope_yarn)
{
	/* Context extension 4x: YaRN fully, half blended, and linear scaling
	 * only (ext_factor 0: no ramp, no magnitude correction).
	 */
	static const struct yarn cases[] = {
		{ 4096, 10000.0f, 0.25f, 1.0f, 1.0f, 32.0f, 1.0f },
		{ 2048, 500000.0f, 0.25f, 0.5f, 0.9f, 32.0f, 1.0f },
		{ 4096, 10000.0f, 0.5f, 1.0f, 1.1f, 16.0f, 2.0f },
		{ 4096, 10000.0f, 0.25f, 0.0f, 0.8f, 32.0f, 1.0f },
		/* No original context: log(0) makes the correction range
		 * [max(0, floor(-inf)), min(n_dims - 1, ceil(-inf))], as
		 * ggml defines it with floorf and ceilf: the ramp is 1 for
		 * the first pair and 0 after it.
		 */
		{ 0, 10000.0f, 0.25f, 1.0f, 1.0f, 32.0f, 1.0f },
	};
	int checked = 0;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (int variant = 0; variant < 3; variant++) {
			const struct yarn *p = &cases[k];
			int mode = variant ? 2 : 0, with_ff = variant == 2;
			int hd = 32, heads = 3, toks = 5, n_dims = 24;
			struct drm_gaccel_tensor t[4] = {
				gaccel_tensor(0, F32, 0, hd, heads, toks, 1),
				gaccel_tensor(1, I32, 0, toks, 1, 1, 1),
				gaccel_tensor(2, F32, 0, hd, heads, toks, 1),
				gaccel_tensor(3, F32, 0, n_dims / 2, 1, 1, 1),
			};
			struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 1,
								   with_ff ? 3 : GACCEL_NONE);
			float *a = frandv(hd * heads * toks), *d = calloc(hd * heads * toks + 64, 4);
			int32_t pos[5] = { 0, 3, 17, 250, 1000 };
			float ff[16];
			void *data[4] = { a, pos, d, ff };
			float ref[64];

			for (int i = 0; i < 16; i++)
				ff[i] = 1.0f + i * 0.25f;
			node.params[1] = n_dims;
			node.params[2] = mode;
			node.params[4] = p->n_ctx_orig;
			node.params[5] = gaccel_fbits(p->base);
			node.params[6] = gaccel_fbits(p->freq_scale);
			node.params[7] = gaccel_fbits(p->ext_factor);
			node.params[8] = gaccel_fbits(p->attn_factor);
			node.params[9] = gaccel_fbits(p->beta_fast);
			node.params[10] = gaccel_fbits(p->beta_slow);
			ASSERT_EQ(0, run(self->fd, t, with_ff ? 4 : 3, data, &node, 1));
			for (int tk = 0; tk < toks; tk++)
				for (int h = 0; h < heads; h++) {
					int off = (tk * heads + h) * hd;

					rope_yarn_ref(a + off, ref, hd, n_dims, mode, pos[tk], p,
						      with_ff ? ff : NULL);
					for (int i = 0; i < hd; i++) {
						ASSERT_LE(fabs(d[off + i] - ref[i]), 3e-4) {
							TH_LOG("case %zu mode %d ff %d tok %d head %d i %d: %g vs %g",
							       k, mode, with_ff, tk, h, i, d[off + i], ref[i]);
						}
						checked++;
					}
				}
			free(a);
			free(d);
		}
	EXPECT_EQ(5 * 3 * 5 * 3 * 32, checked);
}

TEST_F(num, get_rows_and_bad_index)
{
	int ne0 = 20, rows = 9, n = 5;
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F16, 0, ne0, rows, 1, 1),
		gaccel_tensor(1, I32, 0, n, 1, 1, 1),
		gaccel_tensor(2, F32, 0, ne0, n, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_GET_ROWS, 2, 0, 1, GACCEL_NONE);
	uint16_t src[20 * 9 + 32];
	int32_t idx[5] = { 3, 0, 8, 3, 1 };
	float d[20 * 5 + 16];
	void *data[3] = { src, idx, d };

	for (int i = 0; i < ne0 * rows; i++)
		src[i] = f2h(frand());
	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int j = 0; j < n; j++)
		for (int i = 0; i < ne0; i++)
			ASSERT_EQ(h2f(src[idx[j] * ne0 + i]), d[j * ne0 + i]);
	/* An index outside the source fails the job instead of reading past it. */
	idx[2] = 9;
	memset(d, 0, sizeof(d));
	ASSERT_EQ(-EINVAL, run(self->fd, t, 3, data, &node, 1));
	EXPECT_EQ(0, d[2 * ne0]);
}

/* Quantized rows picked by index come out dequantized, exactly: each value
 * is the block's F16 scale times its integer quant, as the reference
 * quantizer of make_weights() computed it.
 */
TEST_F(num, get_rows_q8_0_q4_0)
{
	const uint32_t types[] = { Q8_0, Q4_0 };

	for (int v = 0; v < 4; v++) {
		uint32_t dtype = types[v & 1];
		int wide = v >> 1;
		int ne0 = 96, rows = 7, n = 5, n2 = 2;
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, dtype, 0, ne0, rows, n2, 1),
			gaccel_tensor(1, wide ? DRM_GACCEL_DTYPE_I64 : I32, 0, n, n2, 1, 1),
			gaccel_tensor(2, F32, 0, ne0, n, n2, 1),
		};
		struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_GET_ROWS, 2, 0, 1,
							   GACCEL_NONE);
		float *w = frandv((size_t)ne0 * rows * n2);
		float *d = calloc((size_t)ne0 * n * n2 + 64, 4);
		int32_t idx32[10] = { 6, 0, 3, 3, 1, 2, 6, 5, 0, 4 };
		int64_t idx64[10];
		size_t bytes;
		void *q = make_weights(dtype, w, rows * n2, ne0, &bytes);
		void *data[3] = { q, wide ? (void *)idx64 : (void *)idx32, d };

		for (int i = 0; i < 10; i++)
			idx64[i] = idx32[i];
		ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
		for (int p = 0; p < n2; p++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < ne0; i++) {
					int r = idx32[p * n + j];

					ASSERT_EQ(w[((size_t)p * rows + r) * ne0 + i],
						  d[((size_t)p * n + j) * ne0 + i]) {
						TH_LOG("dtype %u wide %d row %d/%d col %d",
						       dtype, wide, p, j, i);
					}
				}
		/* An index past the source's rows fails the job, reads nothing. */
		idx32[7] = rows;
		idx64[7] = rows;
		memset(d, 0, (size_t)ne0 * n * n2 * 4);
		ASSERT_EQ(-EINVAL, run(self->fd, t, 3, data, &node, 1));
		for (int i = 0; i < ne0; i++)
			ASSERT_EQ(0, d[(size_t)(n + 2) * ne0 + i]);
		free(w);
		free(d);
		free(q);
	}
}

TEST_F(num, set_rows_f16)
{
	for (int wide = 0; wide < 2; wide++) {
	int ne0 = 16, rows = 8, n = 3;
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F32, 0, ne0, n, 1, 1),
		gaccel_tensor(1, wide ? DRM_GACCEL_DTYPE_I64 : I32, 0, n, 1, 1, 1),
		gaccel_tensor(2, F16, 0, ne0, rows, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_SET_ROWS, 2, 0, 1, GACCEL_NONE);
	float *src = frandv(ne0 * n);
	int32_t idx32[3] = { 6, 1, 4 };
	int64_t idx64[3] = { 6, 1, 4 };
	uint16_t dst[16 * 8 + 32] = { 0 };
	void *data[3] = { src, wide ? (void *)idx64 : (void *)idx32, dst };

	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < ne0; i++) {
			int j = r == 6 ? 0 : r == 1 ? 1 : r == 4 ? 2 : -1;
			uint16_t want = j < 0 ? 0 : f2h(src[j * ne0 + i]);

			ASSERT_EQ(want, dst[r * ne0 + i]) TH_LOG("row %d col %d", r, i);
		}
	free(src);
	}
}

TEST_F(num, cpy_conversions_and_transpose)
{
	const uint32_t types[] = { F32, F16, BF16 };

	for (int s = 0; s < 3; s++)
		for (int dd = 0; dd < 3; dd++) {
			int n = 3000;
			struct drm_gaccel_tensor t[2] = {
				gaccel_tensor(0, types[s], 0, n, 1, 1, 1),
				gaccel_tensor(1, types[dd], 0, n, 1, 1, 1),
			};
			struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0,
								   GACCEL_NONE, GACCEL_NONE);
			uint8_t *src = calloc(n, 4), *dst = calloc(n + 16, 4);
			void *data[2] = { src, dst };
			float *v = frandv(n);

			for (int i = 0; i < n; i++) {
				if (types[s] == F32)
					memcpy(src + 4 * i, &v[i], 4);
				else {
					uint16_t h = types[s] == F16 ? f2h(v[i]) : f2bf(v[i]);

					memcpy(src + 2 * i, &h, 2);
					v[i] = types[s] == F16 ? h2f(h) : bf2f(h);
				}
			}
			ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
			for (int i = 0; i < n; i++) {
				float got;
				uint16_t h;

				if (types[dd] == F32) {
					memcpy(&got, dst + 4 * i, 4);
					ASSERT_EQ(v[i], got);
				} else {
					memcpy(&h, dst + 2 * i, 2);
					ASSERT_EQ(types[dd] == F16 ? f2h(v[i]) : f2bf(v[i]), h)
						TH_LOG("%u -> %u at %d", types[s], types[dd], i);
				}
			}
			free(src);
			free(dst);
			free(v);
		}

	/* CONT of a transposed view: [5,7] viewed as [7,5] with swapped strides. */
	{
		struct drm_gaccel_tensor t[2] = {
			gaccel_tensor(0, F32, 0, 7, 5, 1, 1),
			gaccel_tensor(1, F32, 0, 7, 5, 1, 1),
		};
		struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0, GACCEL_NONE,
							   GACCEL_NONE);
		float *a = frandv(35), d[35 + 16];
		void *data[2] = { a, d };

		t[0].nb[0] = 5 * 4;
		t[0].nb[1] = 4;
		t[0].nb[2] = t[0].nb[3] = 35 * 4;
		ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
		for (int j = 0; j < 5; j++)
			for (int i = 0; i < 7; i++)
				ASSERT_EQ(a[i * 5 + j], d[j * 7 + i]);
		free(a);
	}
}

TEST_F(num, chained_graph)
{
	/* y = silu(W x) * (V x), rms-normed: a small MLP block in one job. */
	int k = 64, m = 32, n = 4;
	struct drm_gaccel_tensor t[6] = {
		gaccel_tensor(0, F32, 0, k, m, 1, 1),
		gaccel_tensor(1, F32, 0, k, m, 1, 1),
		gaccel_tensor(2, F32, 0, k, n, 1, 1),
		gaccel_tensor(3, F32, 0, m, n, 1, 1),
		gaccel_tensor(4, F32, 0, m, n, 1, 1),
		gaccel_tensor(5, F32, 0, m, n, 1, 1),
	};
	struct drm_gaccel_node nodes[4] = {
		gaccel_node(DRM_GACCEL_OP_MUL_MAT, 3, 0, 2, GACCEL_NONE),
		gaccel_node(DRM_GACCEL_OP_MUL_MAT, 4, 1, 2, GACCEL_NONE),
		gaccel_node(DRM_GACCEL_OP_SWIGLU, 5, 3, 4, GACCEL_NONE),
		gaccel_node(DRM_GACCEL_OP_RMS_NORM, 5, 5, GACCEL_NONE, GACCEL_NONE),
	};
	float *w = frandv(k * m), *v = frandv(k * m), *x = frandv(k * n);
	float *h1 = calloc(m * n + 16, 4), *h2 = calloc(m * n + 16, 4), *y = calloc(m * n + 16, 4);
	void *data[6] = { w, v, x, h1, h2, y };

	nodes[3].params[0] = gaccel_fbits(1e-6f);
	ASSERT_EQ(0, run(self->fd, t, 6, data, nodes, 4));
	for (int j = 0; j < n; j++) {
		double r[64], ss = 0;

		for (int i = 0; i < m; i++) {
			double a = 0, b = 0;

			for (int l = 0; l < k; l++) {
				a += (double)w[i * k + l] * x[j * k + l];
				b += (double)v[i * k + l] * x[j * k + l];
			}
			r[i] = a / (1 + exp(-a)) * b;
			ss += r[i] * r[i];
		}
		for (int i = 0; i < m; i++)
			ASSERT_LE(fabs(y[j * m + i] - r[i] / sqrt(ss / m + 1e-6)), 1e-4);
	}
	free(w);
	free(v);
	free(x);
	free(h1);
	free(h2);
	free(y);
}

/* --- rows longer than one FPU section ---------------------------------------- */

/*
 * Each FPU section of the engine does a bounded amount of work, so a row
 * longer than that is finished by later sections, with its sums carried
 * over. These rows are several sections long: the results must be those of
 * the row in one piece.
 */
TEST_F(num, long_rows_norm)
{
	for (uint32_t op = DRM_GACCEL_OP_RMS_NORM; op <= DRM_GACCEL_OP_NORM; op++) {
		int n = 100003, rows = 2;
		float eps = 1e-6f;
		struct drm_gaccel_tensor t[2] = {
			gaccel_tensor(0, F32, 0, n, rows, 1, 1),
			gaccel_tensor(1, F32, 0, n, rows, 1, 1),
		};
		struct drm_gaccel_node node = gaccel_node(op, 1, 0, GACCEL_NONE, GACCEL_NONE);
		float *a = frandv(n * rows), *d = calloc(n * rows + 64, 4);
		void *data[2] = { a, d };

		for (int i = 0; i < n * rows; i++)
			a[i] += 0.25f;	/* a mean NORM must remove */
		node.params[0] = gaccel_fbits(eps);
		ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
		for (int j = 0; j < rows; j++) {
			double mean = 0, var = 0;

			if (op == DRM_GACCEL_OP_NORM) {
				for (int i = 0; i < n; i++)
					mean += a[j * n + i];
				mean /= n;
			}
			for (int i = 0; i < n; i++)
				var += (a[j * n + i] - mean) * (a[j * n + i] - mean);
			var /= n;
			for (int i = 0; i < n; i++) {
				double r = (a[j * n + i] - mean) / sqrt(var + eps);

				ASSERT_LE(fabs(d[j * n + i] - r), 1e-4 * fmax(1, fabs(r)))
					TH_LOG("op %u row %d i %d: %g vs %g", op, j, i, d[j * n + i], r);
			}
		}
		free(a);
		free(d);
	}
}

TEST_F(num, long_rows_soft_max)
{
	int n = 70001, rows = 2;
	float scale = 0.5f;
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F32, 0, n, rows, 1, 1),
		gaccel_tensor(1, F16, 0, n, rows, 1, 1),
		gaccel_tensor(2, F32, 0, n, rows, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_SOFT_MAX, 2, 0, 1, GACCEL_NONE);
	float *a = frandv(n * rows), *mf = frandv(n * rows), *d = calloc(n * rows + 64, 4);
	uint16_t *mh = calloc(n * rows + 64, 2);
	void *data[3] = { a, mh, d };
	double *v = malloc(n * sizeof(double));

	for (int i = 0; i < n * rows; i++) {
		mh[i] = f2h(i % 5 == 1 ? -INFINITY : mf[i]);
		mf[i] = h2f(mh[i]);
	}
	node.params[0] = gaccel_fbits(scale);
	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int r = 0; r < rows; r++) {
		double mx = -INFINITY, sum = 0;

		for (int i = 0; i < n; i++) {
			v[i] = a[r * n + i] * scale + mf[r * n + i];
			mx = fmax(mx, v[i]);
		}
		for (int i = 0; i < n; i++)
			sum += exp(v[i] - mx);
		for (int i = 0; i < n; i++) {
			double ref = exp(v[i] - mx) / sum;

			ASSERT_LE(fabs(d[r * n + i] - ref), 1e-4 * ref + 1e-12)
				TH_LOG("row %d i %d: %g vs %g", r, i, d[r * n + i], ref);
		}
	}
	free(v);
	free(a);
	free(mf);
	free(mh);
	free(d);
}

/*
 * ROPE over a 40000-element row, all of it rotated: with base 1 every pair
 * turns by the same angle (the position), so the angle carried from one
 * section to the next is checked at every pair.
 */
TEST_F(num, long_rows_rope)
{
	for (int mode = 0; mode <= 2; mode += 2) {
		int hd = 40000, toks = 2;
		struct drm_gaccel_tensor t[3] = {
			gaccel_tensor(0, F32, 0, hd, 1, toks, 1),
			gaccel_tensor(1, I32, 0, toks, 1, 1, 1),
			gaccel_tensor(2, F32, 0, hd, 1, toks, 1),
		};
		struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_ROPE, 2, 0, 1, GACCEL_NONE);
		float *a = frandv(hd * toks), *d = calloc(hd * toks + 64, 4);
		int32_t pos[2] = { 1, 2 };
		void *data[3] = { a, pos, d };

		node.params[1] = hd;
		node.params[2] = mode;
		node.params[5] = gaccel_fbits(1.0f);
		node.params[6] = gaccel_fbits(1.0f);
		node.params[8] = gaccel_fbits(1.0f);
		ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
		for (int tk = 0; tk < toks; tk++) {
			const float *x = a + tk * hd;
			const float *y = d + tk * hd;
			double c = cos(pos[tk]), sn = sin(pos[tk]);

			for (int i = 0; i < hd / 2; i++) {
				int j0 = mode == 2 ? i : 2 * i, j1 = mode == 2 ? i + hd / 2 : 2 * i + 1;

				ASSERT_LE(fabs(y[j0] - (x[j0] * c - x[j1] * sn)), 1e-5)
					TH_LOG("mode %d tok %d pair %d", mode, tk, i);
				ASSERT_LE(fabs(y[j1] - (x[j0] * sn + x[j1] * c)), 1e-5)
					TH_LOG("mode %d tok %d pair %d", mode, tk, i);
			}
		}
		free(a);
		free(d);
	}
}

TEST_F(num, long_rows_get_set_rows)
{
	int k = 32 * 2500, rows = 3;
	float *w = frandv((size_t)k * rows);
	size_t wb;
	void *wq = make_weights(Q8_0, w, rows, k, &wb);
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, Q8_0, 0, k, rows, 1, 1),
		gaccel_tensor(1, I32, 0, 2, 1, 1, 1),
		gaccel_tensor(2, F32, 0, k, 2, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_GET_ROWS, 2, 0, 1, GACCEL_NONE);
	int32_t idx[2] = { 2, 0 };
	float *d = calloc((size_t)k * 2 + 64, 4);
	uint16_t *h = calloc((size_t)k * 4 + 64, 2);
	void *data[3] = { wq, idx, d };

	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int j = 0; j < 2; j++) {
		for (int i = 0; i < k; i++) {
			ASSERT_EQ(w[(size_t)idx[j] * k + i], d[(size_t)j * k + i])
				TH_LOG("row %d i %d", j, i);
		}
	}

	/* And back into rows 3 and 1 of an F16 tensor of 4 rows. */
	t[0] = gaccel_tensor(0, F32, 0, k, 2, 1, 1);
	t[2] = gaccel_tensor(2, F16, 0, k, 4, 1, 1);
	node.op = DRM_GACCEL_OP_SET_ROWS;
	idx[0] = 3;
	idx[1] = 1;
	data[0] = d;
	data[2] = h;
	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int j = 0; j < 2; j++) {
		for (int i = 0; i < k; i++) {
			ASSERT_EQ(f2h(d[(size_t)j * k + i]), h[(size_t)idx[j] * k + i])
				TH_LOG("row %d i %d", j, i);
		}
	}
	for (int i = 0; i < k; i++)
		ASSERT_EQ(0, h[i] | h[2 * k + i]);
	free(w);
	free(wq);
	free(d);
	free(h);
}

TEST_F(num, long_rows_eltwise)
{
	int n = 100000;
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F32, 0, n, 1, 1, 1),
		gaccel_tensor(1, F32, 0, n / 2, 1, 1, 1),
		gaccel_tensor(2, F32, 0, n, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);
	float *a = frandv(n), *b = frandv(n), *d = calloc(n + 64, 4);
	void *data[3] = { a, b, d };

	/* ADD with src1 repeated twice along the row. */
	ASSERT_EQ(0, run(self->fd, t, 3, data, &node, 1));
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(a[i] + b[i % (n / 2)], d[i]) TH_LOG("i %d", i);
	}
	/* GEGLU of the two halves of the row. */
	t[1] = gaccel_tensor(1, F32, 0, n / 2, 1, 1, 1);
	node = gaccel_node(DRM_GACCEL_OP_GEGLU, 1, 0, GACCEL_NONE, GACCEL_NONE);
	data[1] = d;
	ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
	for (int i = 0; i < n / 2; i++) {
		double x = a[i], g = a[i + n / 2];
		double r = 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x))) * g;

		ASSERT_LE(fabs(d[i] - r), 1e-5) TH_LOG("i %d", i);
	}
	free(a);
	free(b);
	free(d);
}

/*
 * MUL_MAT with rows long enough that a unit takes fewer than 4 columns (a
 * unit is at most 2^18 multiply-adds), rows longer than 2^16 whose dot
 * products are split into pieces across sections (F32, F16, Q4_0, Q8_0,
 * up to 2^20), and F32 weights either side of the GEMM kernel's limit.
 */
TEST_F(num, mul_mat_long_rows)
{
	mul_mat_case(_metadata, self->fd, F32, 5, 4, 20000, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 5, 4, 40000, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 5, 4, 65536, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F32, 3, 2, 131072 + 7, 1, 1, 1e-5);
	mul_mat_case(_metadata, self->fd, F16, 6, 3, 65600, 1, 1, 1e-3);
	mul_mat_case(_metadata, self->fd, Q4_0, 5, 3, 70016, 1, 1, 1e-2);
	mul_mat_case(_metadata, self->fd, Q8_0, 3, 2, 1 << 18, 2, 4, 1e-2);
	mul_mat_case(_metadata, self->fd, F32, 2, 1, 1 << 20, 1, 1, 1e-5);
}

/* The engine's FPU statistics (debugfs "fpu"): sections run, longest. */
static int fpu_stats(long long *sections, long long *max_ns)
{
	glob_t g;
	FILE *f;
	int n;

	if (gaccel_debugfs_glob("fpu", &g) || g.gl_pathc < 1)
		return -1;
	f = fopen(g.gl_pathv[0], "r+");
	globfree(&g);
	if (!f)
		return -1;
	n = fscanf(f, "sections %lld\nmax_ns %lld\n", sections, max_ns);
	rewind(f);
	fputs("0\n", f);	/* reset for the next reading */
	fclose(f);
	return n == 2 ? 0 : -1;
}

/*
 * Worst cases for the time the engine keeps a CPU in one FPU section
 * (preemption off): the longest rows of each kind. A row of 2^20 elements
 * must take many sections, not one; the longest section is printed (the
 * figure depends on the machine and is not asserted).
 */
TEST_F(num, fpu_sections_bounded)
{
	int n = 1 << 20;
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, F32, 0, n, 1, 1, 1),
		gaccel_tensor(1, F32, 0, n, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_SOFT_MAX, 1, 0, GACCEL_NONE, GACCEL_NONE);
	float *a = frandv(n), *d = calloc(n + 64, 4);
	void *data[2] = { a, d };
	long long sections, max_ns, worst = 0;

	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	node.params[0] = gaccel_fbits(1.0f);
	ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	/* 3 passes of 2^20 elements at 4 units each, 2^16 units a section. */
	EXPECT_GE(sections, 3 * n * 4 / 65536);
	ksft_print_msg("SOFT_MAX row of 2^20: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns;

	node.op = DRM_GACCEL_OP_RMS_NORM;
	node.params[0] = gaccel_fbits(1e-6f);
	ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	EXPECT_GE(sections, 2 * n * 4 / 65536);
	ksft_print_msg("RMS_NORM row of 2^20: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;

	t[2] = gaccel_tensor(2, I32, 0, 1, 1, 1, 1);
	node = gaccel_node(DRM_GACCEL_OP_ROPE, 1, 0, 2, GACCEL_NONE);
	node.params[1] = n;
	node.params[5] = gaccel_fbits(10000.0f);
	node.params[6] = gaccel_fbits(1.0f);
	node.params[8] = gaccel_fbits(1.0f);
	data[1] = d;
	{
		int32_t pos = 7;
		void *rdata[3] = { a, d, &pos };

		ASSERT_EQ(0, run(self->fd, t, 3, rdata, &node, 1));
	}
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	EXPECT_GE(sections, n / 2 * 32 / 65536);
	ksft_print_msg("ROPE row of 2^20: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;

	/* MUL_MAT rows of 2^18: dot products in pieces of 2^16. */
	mul_mat_case(_metadata, self->fd, Q8_0, 2, 1, 1 << 18, 1, 1, 1e-2);
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	EXPECT_GE(sections, 2 * 4);
	ksft_print_msg("MUL_MAT Q8_0 k=2^18: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	mul_mat_case(_metadata, self->fd, F32, 4, 4, 21845, 1, 1, 1e-5);
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	ksft_print_msg("MUL_MAT F32 GEMM k=21845: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	/* The largest tile: 4 rows by 4 columns of 2^14, 2^18 multiply-adds. */
	mul_mat_case(_metadata, self->fd, Q8_0, 8, 4, 1 << 14, 1, 1, 1e-2);
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	ksft_print_msg("MUL_MAT Q8_0 4x4 tile, k=2^14: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	mul_mat_case(_metadata, self->fd, F16, 8, 3, 1 << 14, 1, 1, 1e-3);
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	ksft_print_msg("MUL_MAT F16 4x3 tile, k=2^14: %lld sections, longest %lld ns\n",
		       sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	/* GELU (tanh) and CPY with conversion over 2^20 elements. */
	t[1] = gaccel_tensor(1, F32, 0, n, 1, 1, 1);
	node = gaccel_node(DRM_GACCEL_OP_GELU, 1, 0, GACCEL_NONE, GACCEL_NONE);
	ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	ksft_print_msg("GELU row of 2^20: %lld sections, longest %lld ns\n", sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	t[1] = gaccel_tensor(1, F16, 0, 1024, n / 1024, 1, 1);
	node = gaccel_node(DRM_GACCEL_OP_CPY, 1, 0, GACCEL_NONE, GACCEL_NONE);
	ASSERT_EQ(0, run(self->fd, t, 2, data, &node, 1));
	ASSERT_EQ(0, fpu_stats(&sections, &max_ns));
	ksft_print_msg("CPY F32->F16 of 2^20: %lld sections, longest %lld ns\n", sections, max_ns);
	worst = max_ns > worst ? max_ns : worst;
	ksft_print_msg("longest FPU section of these jobs: %lld ns\n", worst);
	free(a);
	free(d);
}

/*
 * Row indices live in memory the client can write while the job runs. A
 * thread of an unprivileged client flips GET_ROWS and SET_ROWS indices
 * between valid and out-of-range values as jobs run: each index must be
 * loaded once and checked, so every row copied is a real row and every
 * job either completes or fails, never reaching outside its objects.
 */
struct flipper {
	volatile int32_t *idx;
	int n;
	volatile int stop;
	volatile unsigned int rounds;
};

static void *flip_indices(void *arg)
{
	static const int32_t vals[] = { 0, 5, 1 << 30, -1, INT32_MIN, 6, 3, 0x7fffffff };
	struct flipper *f = arg;
	unsigned int k = 0;

	while (!f->stop) {
		for (int i = 0; i < f->n; i++)
			f->idx[i] = vals[(k + i) % 8];
		k++;
		f->rounds = k;
	}
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void index_race(struct __test_metadata *_metadata, uint32_t op)
{
	enum { NE0 = 64, ROWS = 6, N = 8, JOBS = 200 };
	struct drm_gaccel_slot slots[3] = { { .size = NE0 * N * 4 }, { .size = N * 4 },
					    { .size = NE0 * N * 4 } };
	struct drm_gaccel_tensor t[3];
	struct drm_gaccel_node node = gaccel_node(op, 2, 0, 1, GACCEL_NONE);
	struct drm_gaccel_binding b[3] = { { .slot = 0 }, { .slot = 1 }, { .slot = 2 } };
	struct flipper fl = { .n = N };
	float *src, *dst;
	uint32_t q, g;
	pthread_t th;
	double deadline;
	int fd, failed = 0;

	ASSERT_EQ(0, gaccel_drop_privileges());
	fd = gaccel_open_device();
	ASSERT_GE(fd, 0);
	t[0] = gaccel_tensor(0, F32, 0, NE0, op == DRM_GACCEL_OP_GET_ROWS ? ROWS : N, 1, 1);
	t[1] = gaccel_tensor(1, I32, 0, N, 1, 1, 1);
	t[2] = gaccel_tensor(2, F32, 0, NE0, op == DRM_GACCEL_OP_GET_ROWS ? N : ROWS, 1, 1);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_bo_create(fd, slots[i].size, 0, &b[i].handle));
	ASSERT_EQ(0, gaccel_graph_create(fd, slots, 3, t, 3, &node, 1, &g));
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	src = gaccel_bo_mmap(fd, b[0].handle, PROT_READ | PROT_WRITE);
	fl.idx = gaccel_bo_mmap(fd, b[1].handle, PROT_READ | PROT_WRITE);
	dst = gaccel_bo_mmap(fd, b[2].handle, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, src);
	ASSERT_NE(MAP_FAILED, (void *)fl.idx);
	ASSERT_NE(MAP_FAILED, dst);
	/* Row r of the source holds r + 1 everywhere. */
	for (int r = 0; r < (int)t[0].ne[1]; r++)
		for (int i = 0; i < NE0; i++)
			src[r * NE0 + i] = r + 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, flip_indices, &fl));
	/*
	 * The race needs the flipper running while jobs read the indices:
	 * it must have started, and on a loaded machine (a VM whose virtual
	 * CPUs the host does not run all the time) it may still not overlap
	 * the first JOBS jobs. Submit until one job met a bad index, within
	 * a deadline well inside the harness's timeout: only an engine that
	 * never refuses one fails the count below.
	 */
	deadline = mono_s() + 15;
	while (!fl.rounds && mono_s() < deadline)
		usleep(1000);
	ASSERT_NE(0, fl.rounds);
	for (int j = 0; j < JOBS || (!failed && mono_s() < deadline); j++) {
		struct drm_gaccel_queue_get_state st;

		memset(dst, 0, slots[2].size);
		ASSERT_EQ(0, gaccel_submit1(fd, q, g, b, 3, NULL, 0));
		ASSERT_EQ(0, gaccel_bo_wait(fd, b[2].handle, 20000000000ll));
		ASSERT_EQ(0, gaccel_queue_state(fd, q, &st));
		failed = (int)st.failed;
		/* Every destination row is untouched or one whole source row. */
		for (int r = 0; r < (int)t[2].ne[1]; r++) {
			float v = dst[r * NE0];

			ASSERT_TRUE(v == 0 || (v >= 1 && v <= t[0].ne[1])) TH_LOG("row %d: %g", r, v);
			for (int i = 1; i < NE0; i++) {
				ASSERT_EQ(v, dst[r * NE0 + i]) TH_LOG("job %d row %d i %d", j, r, i);
			}
		}
	}
	fl.stop = 1;
	pthread_join(th, NULL);
	/* Most jobs meet an out-of-range index and fail with -EINVAL. */
	EXPECT_GT(failed, 0);
	close(fd);
}

TEST(get_rows_index_race_unprivileged)
{
	index_race(_metadata, DRM_GACCEL_OP_GET_ROWS);
}

TEST(set_rows_index_race_unprivileged)
{
	index_race(_metadata, DRM_GACCEL_OP_SET_ROWS);
}

GACCEL_TEST_HARNESS_MAIN
