// SPDX-License-Identifier: MIT
/*
 * The CPU_REPACK buffer type (lib/backends/cpu/cpu-repack.c): Q8_0, Q4_0,
 * Q4_K and Q6_K weights stored with 16 rows interleaved.
 *
 * - roundtrip: get_tensor returns what set_tensor was given, for whole
 *   tensors, random byte ranges (partial groups, plain rows), views and
 *   memset_tensor, on shapes with ragged row counts and 3-D tensors.
 * - q8_0, q4_0: MUL_MAT on repacked weights on every path of this CPU (the
 *   int8 kernels reading the groups in place - VNNI or SDOT -, the AVX2
 *   ones, and the portable path that unpacks rows: the reference switch)
 *   at 1 to 3 threads, against the same product on the plain weights on the
 *   same path (NMSE 1e-10: the integer dots are exact, only the float
 *   summation order may differ) and against the test's double reference
 *   with the activations quantized to Q8_0 as the kernels do (1e-10; the
 *   float GEMM of the reference path above 31 columns: float activations,
 *   2e-4). Rows not a multiple of 16, K over several K steps, 1 to 40
 *   columns, broadcast batches.
 * - q4_K, q6_K: the same on shapes of whole super-blocks. The int8 kernels
 *   on the groups (VNNI, AVX2, SDOT) take Q8_0 activations: against
 *   the double reference with them (1e-10); the reference path unpacks the
 *   rows for the Q8_K dots (or the float GEMM): against the same path on
 *   the plain weights (1e-10); every path against float activations.
 * - views: products on a view of rows starting at a group; a view that
 *   does not start at one is refused.
 * - device: the extra buffer types, supports_buft/supports_op, and a graph
 *   through the scheduler.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"
#include "test-ref-quant.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double urand(void)
{
	return test_urand(&rng);
}



static void quant_act(const float *x, int64_t k, double *out)
{
	for (int64_t b = 0; b < k / 32; b++) {
		float amax = 0;
		for (int j = 0; j < 32; j++)
			amax = fabsf(x[32 * b + j]) > amax ? fabsf(x[32 * b + j]) : amax;
		const float d = amax / 127.0f;
		const float id = d != 0.0f ? 1.0f / d : 0.0f;
		const double dq = half_to_double(ggml_fp32_to_fp16(d));
		for (int j = 0; j < 32; j++) {
			const float v = x[32 * b + j] * id;
			out[32 * b + j] = dq * (int)(v + (v >= 0.0f ? 0.5f : -0.5f));
		}
	}
}

static double nmse_d(const float *out, const double *ref, int64_t n)
{
	double num = 0, den = 0;
	for (int64_t i = 0; i < n; i++) {
		num += (out[i] - ref[i]) * (out[i] - ref[i]);
		den += ref[i] * ref[i];
	}
	return den > 0 ? num / den : num;
}

static double nmse_f(const float *out, const float *ref, int64_t n)
{
	double num = 0, den = 0;
	for (int64_t i = 0; i < n; i++) {
		num += ((double)out[i] - ref[i]) * ((double)out[i] - ref[i]);
		den += (double)ref[i] * ref[i];
	}
	return den > 0 ? num / den : num;
}

/* random quantized weights [K, M, b2] in plain layout (malloc'd) */
static void *make_weights(enum ggml_type type, int64_t K, int64_t M, int64_t b2)
{
	const size_t rs = ggml_row_size(type, K);
	float *f = malloc(K * M * b2 * sizeof(float));
	void *q = malloc(rs * M * b2);
	for (int64_t i = 0; i < K * M * b2; i++)
		f[i] = (float)(2 * urand() - 1);
	ggml_quantize_chunk(type, f, q, 0, M * b2, K, NULL);
	free(f);
	return q;
}

struct rp_ctx {
	struct ggml_context *ctx;
	ggml_backend_buffer_t buf;
};

/* a no_alloc context whose tensors go to a CPU_REPACK buffer */
static struct ggml_tensor *new_repacked(struct rp_ctx *r, enum ggml_type type, int64_t K, int64_t M, int64_t b2)
{
	struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
	r->ctx = ggml_init(ip);
	struct ggml_tensor *t = ggml_new_tensor_3d(r->ctx, type, K, M, b2);
	r->buf = ggml_backend_alloc_ctx_tensors_from_buft(r->ctx, ggml_backend_cpu_repack_buffer_type());
	return t;
}

static void free_repacked(struct rp_ctx *r)
{
	ggml_backend_buffer_free(r->buf);
	ggml_free(r->ctx);
}

/* ------------------------------------------------------------------------- */

struct rt_shape {
	int64_t K, M, b2;
};

static const struct rt_shape rt_shapes[] = {
	{ 32, 1, 1 }, { 64, 15, 1 }, { 32, 16, 1 }, { 96, 17, 1 }, { 256, 33, 2 }, { 1056, 50, 1 }, { 64, 40, 3 },
};

static bool kquant(enum ggml_type type)
{
	return type == GGML_TYPE_Q4_K || type == GGML_TYPE_Q6_K;
}

TEST(roundtrip)
{
	const enum ggml_type types[4] = { GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	for (int ti = 0; ti < 4; ti++)
		for (size_t si = 0; si < sizeof(rt_shapes) / sizeof(rt_shapes[0]); si++) {
			const enum ggml_type type = types[ti];
			/* K-quants: the shapes with 256-value blocks */
			const struct rt_shape s0 = rt_shapes[si];
			const struct rt_shape sk = { s0.K * 8, s0.M, s0.b2 };
			const struct rt_shape *s = kquant(type) ? &sk : &s0;
			struct rp_ctx r;
			struct ggml_tensor *t = new_repacked(&r, type, s->K, s->M, s->b2);
			ASSERT_NE(r.buf, NULL);
			ASSERT_FALSE(ggml_backend_buffer_is_host(r.buf));
			ASSERT_TRUE(ggml_cpu_is_repacked(t));
			const size_t n = ggml_nbytes(t);
			uint8_t *plain = make_weights(type, s->K, s->M, s->b2);
			uint8_t *got = malloc(n);
			ggml_backend_tensor_set(t, plain, 0, n);
			/* the bytes are repacked where there is a whole group */
			if (s->M >= 16)
				EXPECT_NE(memcmp(t->data, plain, ggml_row_size(type, s->K) * 16), 0);
			ggml_backend_tensor_get(t, got, 0, n);
			EXPECT_EQ(memcmp(got, plain, n), 0);
			/* random ranges: set into the tensor and a shadow, read back */
			for (int it = 0; it < 40; it++) {
				size_t a = (size_t)(urand() * n), b = (size_t)(urand() * n);
				if (a > b) {
					size_t x = a;
					a = b;
					b = x;
				}
				if (a == b)
					continue;
				if (it % 2 == 0) {
					for (size_t i = a; i < b; i++)
						plain[i] = (uint8_t)(urand() * 256);
					ggml_backend_tensor_set(t, plain + a, a, b - a);
				} else {
					const uint8_t v = (uint8_t)(urand() * 256);
					memset(plain + a, v, b - a);
					ggml_backend_tensor_memset(t, v, a, b - a);
				}
				size_t c = (size_t)(urand() * n), d = (size_t)(urand() * n);
				if (c > d) {
					size_t x = c;
					c = d;
					d = x;
				}
				if (c < d) {
					memset(got, 0, n);
					ggml_backend_tensor_get(t, got, c, d - c);
					EXPECT_EQ(memcmp(got, plain + c, d - c), 0);
				}
			}
			ggml_backend_tensor_get(t, got, 0, n);
			EXPECT_EQ(memcmp(got, plain, n), 0);
			/* a view of some rows in the middle */
			if (s->M > 3) {
				struct ggml_tensor *v = ggml_view_2d(r.ctx, t, s->K, s->M - 3, t->nb[1], t->nb[1] * 2);
				const size_t vn = ggml_nbytes(v);
				ggml_backend_tensor_get(v, got, 0, vn);
				EXPECT_EQ(memcmp(got, plain + t->nb[1] * 2, vn), 0);
				for (size_t i = 0; i < vn; i++)
					plain[t->nb[1] * 2 + i] = (uint8_t)(urand() * 256);
				ggml_backend_tensor_set(v, plain + t->nb[1] * 2, 0, vn);
				ggml_backend_tensor_get(t, got, 0, n);
				EXPECT_EQ(memcmp(got, plain, n), 0);
			}
			free(got);
			free(plain);
			free_repacked(&r);
		}
}

/* ------------------------------------------------------------------------- */

/* P_VEX: the AVX2 kernels with the AVX-VNNI ones (x86-64 CPUs with
 * AVX-VNNI; VPDPBUSD in place of VPMADDUBSW), compared bit for bit with
 * P_SIMD, the AVX2 kernels alone, which run next */
enum path { P_INT8, P_VEX, P_SIMD, P_REF, P_COUNT };
static const char *const path_name[P_COUNT] = { "int8", "avx-vnni", "simd", "ref" };

static bool set_path(enum path p)
{
	ggml_cpu_set_use_ref(p == P_REF);
	ggml_cpu_isa_disable(p == P_INT8 ? NULL : p == P_VEX ? "avx512,dotprod" : "avx512,dotprod,avx_vnni");
	if (p == P_INT8)
		return ggml_cpu_isa()->use_vnni256 || ggml_cpu_isa()->use_dotprod;
	if (p == P_VEX)
		return ggml_cpu_isa()->use_avxvnni;
	return true;
}

static void restore_path(void)
{
	ggml_cpu_set_use_ref(false);
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

static void compute(struct ggml_cgraph *gf, int nth)
{
	struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS)
		abort();
	free(work);
}

struct mm_shape {
	int64_t K, M, N, b2; /* weights [K, M, b2]; activations [K, N, 2 * b2] (broadcast) when b2 > 1 */
	int64_t v0, vm;      /* a view of rows [v0, v0 + vm) instead, when vm > 0 */
};

/* one product on every path and thread count; returns the failures */
static int run_mm(struct __test_metadata *_metadata, enum ggml_type type, const struct mm_shape *sh)
{
	const int64_t K = sh->K, M = sh->M, N = sh->N, b2 = sh->b2;
	const int64_t B2 = b2 > 1 ? 2 * b2 : 1;
	struct ggml_init_params ip = { 64 * 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	struct rp_ctx r;
	struct ggml_tensor *wr = new_repacked(&r, type, K, M, b2);
	struct ggml_tensor *wp = ggml_new_tensor_3d(ctx, type, K, M, b2);
	void *q = make_weights(type, K, M, b2);
	memcpy(wp->data, q, ggml_nbytes(wp));
	ggml_backend_tensor_set(wr, q, 0, ggml_nbytes(wr));
	free(q);
	const int64_t M1 = sh->vm ? sh->vm : M, r0 = sh->vm ? sh->v0 : 0;
	if (sh->vm) {
		wr = ggml_view_2d(ctx, wr, K, M1, wr->nb[1], wr->nb[1] * r0);
		wp = ggml_view_2d(ctx, wp, K, M1, wp->nb[1], wp->nb[1] * r0);
	}
	struct ggml_tensor *x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, N, B2);
	float *xf = x->data;
	for (int64_t i = 0; i < K * N * B2; i++)
		xf[i] = (float)(4 * urand() - 2) * (i % 7 == 0 ? 8.0f : 1.0f);
	struct ggml_tensor *outr = ggml_mul_mat(ctx, wr, x), *outp = ggml_mul_mat(ctx, wp, x);
	const int64_t nout = M1 * N * B2;

	/* double references from the plain weights */
	double *ref_f = calloc(nout, sizeof(double)), *ref_q = calloc(nout, sizeof(double));
	double *wrow = malloc(K * sizeof(double)), *aq = malloc(K * sizeof(double));
	for (int64_t i2 = 0; i2 < B2; i2++)
		for (int64_t j = 0; j < N; j++) {
			const float *a = xf + (i2 * N + j) * K;
			quant_act(a, K, aq);
			for (int64_t i = 0; i < M1; i++) {
				dequant_row(type, (const uint8_t *)wp->data + i * wp->nb[1] + (i2 / (B2 / b2)) * wp->nb[2], K,
					    wrow);
				double sf = 0, sq = 0;
				for (int64_t k = 0; k < K; k++) {
					sf += wrow[k] * a[k];
					sq += wrow[k] * aq[k];
				}
				ref_f[(i2 * N + j) * M1 + i] = sf;
				ref_q[(i2 * N + j) * M1 + i] = sq;
			}
		}
	free(wrow);
	free(aq);

	struct ggml_cgraph *gr = ggml_new_graph(ctx), *gp = ggml_new_graph(ctx);
	ggml_build_forward_expand(gr, outr);
	ggml_build_forward_expand(gp, outp);
	int bad = 0;
	float *vex[4] = { NULL }; /* P_VEX's results (repacked weights) by thread count */
	for (int p = 0; p < P_COUNT; p++) {
		if (!set_path(p))
			continue;
		for (int nth = 1; nth <= 3; nth++) {
			memset(outr->data, 0xff, ggml_nbytes(outr)); /* NaNs: every value must be written */
			memset(outp->data, 0xff, ggml_nbytes(outp));
			compute(gr, nth);
			compute(gp, nth);
			const double ef = nmse_d(outr->data, ref_f, nout), eq = nmse_d(outr->data, ref_q, nout);
			const double ep = nmse_f(outr->data, outp->data, nout);
			/* the float GEMM from 32 columns: the reference path, NEON
			 * without SDOT and the portable kernels; x86-64 with AVX2
			 * quantizes on every other path */
			const bool simd8 = p == P_INT8 || (p != P_REF && ggml_cpu_fast_x86());
			bool quantizes = simd8 || N < 32;
			/* K-quants: Q8_0 activations where the group kernels run
			 * (x86-64: VNNI, AVX2; arm64: SDOT), the same arithmetic as on the plain weights
			 * where the rows are unpacked (the reference path) */
			bool same = true;
			if (kquant(type)) {
				quantizes = simd8;
				/* and where the plain weights take the group kernels
				 * too, their tiles repacked per K step (from 3 columns,
				 * Q6_K 4) */
				same = p == P_REF || (quantizes && N >= (type == GGML_TYPE_Q6_K ? 4 : 3));
			}
			/* (one block: the rounding of 32 values is a noisy sample;
			 * Q8_K activations: of 256 values) */
			const int64_t big = kquant(type) ? 8192 : 1024;
			if (!(ef <= (K * M1 >= big ? 2e-4 : kquant(type) ? 3e-3 : 1e-3)) || (quantizes && !(eq <= 1e-10)) ||
			    (same && !(ep <= 1e-10))) {
				bad++;
				TH_LOG("%s K=%lld M=%lld N=%lld b2=%lld view=%lld+%lld %s nth=%d: NMSE %.3g (float act), "
				       "%.3g (Q8_0 act), %.3g (plain weights)",
				       ggml_type_name(type), (long long)K, (long long)M, (long long)N, (long long)b2,
				       (long long)r0, (long long)sh->vm, path_name[p], nth, ef, eq, ep);
			}
			if (p == P_VEX) {
				vex[nth] = malloc(ggml_nbytes(outr));
				memcpy(vex[nth], outr->data, ggml_nbytes(outr));
			} else if (p == P_SIMD && vex[nth] && memcmp(vex[nth], outr->data, ggml_nbytes(outr)) != 0) {
				bad++;
				TH_LOG("%s K=%lld M=%lld N=%lld: avx-vnni and simd results differ (nth=%d)",
				       ggml_type_name(type), (long long)K, (long long)M, (long long)N, nth);
			}
		}
	}
	restore_path();
	for (int t = 0; t < 4; t++)
		free(vex[t]);
	free(ref_f);
	free(ref_q);
	free_repacked(&r);
	ggml_free(ctx);
	return bad;
}

static const struct mm_shape mm_shapes[] = {
	{ 32, 1, 1, 1, 0, 0 },
	{ 64, 15, 2, 1, 0, 0 },
	{ 96, 16, 1, 1, 0, 0 },
	{ 256, 17, 3, 1, 0, 0 },
	{ 160, 33, 4, 1, 0, 0 },
	{ 1056, 100, 1, 1, 0, 0 },  /* 33 blocks: two K steps */
	{ 2080, 131, 5, 1, 0, 0 },  /* 65 blocks, rows over two chunks */
	{ 128, 97, 13, 1, 0, 0 },
	{ 1088, 37, 36, 1, 0, 0 },  /* K steps outside (> 32 columns); float GEMM on the reference path */
	{ 320, 200, 40, 1, 0, 0 },
	{ 224, 18, 5, 2, 0, 0 },    /* broadcast over dim 2 */
	{ 64, 48, 1, 3, 0, 0 },     /* 3-D weights */
	{ 256, 64, 2, 1, 16, 40 },  /* a view: rows 16..55, the last 8 of a group */
	{ 96, 50, 33, 1, 32, 18 },  /* a view into the plain rows 48, 49 */
	{ 64, 20, 1, 1, 16, 4 },    /* a view of the plain rows only */
	{ 32, 32, 23, 1, 0, 0 },    /* one block, 12 + 11 columns (VNNI group GEMM) */
	{ 96, 16, 6, 1, 0, 0 },     /* 6 columns: one accumulator per column */
	{ 2080, 257, 1, 1, 0, 0 },  /* one column: 16 groups read 4 at a time, 3 K steps, a plain row */
	{ 96, 80, 1, 3, 0, 0 },     /* 5 groups per batch of 3-D weights (one chunk of 2, two of 1 + tail) */
	{ 64, 112, 1, 2, 0, 0 },    /* 7 groups, broadcast over dim 2 */
	{ 256, 160, 1, 1, 32, 112 },/* a view of groups 2..8 */
};

TEST(q8_0)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(mm_shapes) / sizeof(mm_shapes[0]); i++)
		bad += run_mm(_metadata, GGML_TYPE_Q8_0, &mm_shapes[i]);
	EXPECT_EQ(bad, 0);
}

TEST(q4_0)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(mm_shapes) / sizeof(mm_shapes[0]); i++)
		bad += run_mm(_metadata, GGML_TYPE_Q4_0, &mm_shapes[i]);
	EXPECT_EQ(bad, 0);
}

/* K-quants: whole super-blocks of 256 values */
static const struct mm_shape mm_shapes_k[] = {
	{ 256, 1, 1, 1, 0, 0 },
	{ 512, 15, 2, 1, 0, 0 },
	{ 768, 16, 1, 1, 0, 0 },
	{ 256, 17, 3, 1, 0, 0 },
	{ 1280, 33, 4, 1, 0, 0 },
	{ 2304, 100, 1, 1, 0, 0 },  /* 72 blocks of 32: three K steps */
	{ 4352, 131, 5, 1, 0, 0 },  /* 136 blocks, rows over two chunks */
	{ 256, 97, 13, 1, 0, 0 },
	{ 1280, 37, 36, 1, 0, 0 },  /* K steps outside (> 32 columns) */
	{ 512, 200, 40, 1, 0, 0 },
	{ 512, 18, 5, 2, 0, 0 },    /* broadcast over dim 2 */
	{ 256, 48, 1, 3, 0, 0 },    /* 3-D weights */
	{ 512, 64, 2, 1, 16, 40 },  /* a view: rows 16..55, the last 8 of a group */
	{ 256, 50, 33, 1, 32, 18 }, /* a view into the plain rows 48, 49 */
	{ 256, 20, 1, 1, 16, 4 },   /* a view of the plain rows only */
	{ 512, 40, 15, 1, 0, 0 },   /* the VNNI GEMM's passes of 8 columns: 8 + 7 */
	{ 768, 21, 22, 2, 0, 0 },   /* 8 + 8 + 6, broadcast, rows past the group */
	{ 2304, 257, 1, 1, 0, 0 },  /* one column: 16 groups read 4 at a time, 3 K steps (4 + 4 + 1 super-blocks), a plain row */
	{ 512, 80, 1, 3, 0, 0 },    /* 5 groups per batch of 3-D weights (one chunk of 2, three of 1) */
	{ 768, 112, 1, 2, 0, 0 },   /* 7 groups, broadcast over dim 2 */
	{ 1280, 160, 1, 1, 32, 112 },/* a view of groups 2..8, 2 K steps (4 + 1) */
	{ 256, 30, 1, 1, 0, 0 },    /* one group and 14 plain rows */
};

TEST(q4_K)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(mm_shapes_k) / sizeof(mm_shapes_k[0]); i++)
		bad += run_mm(_metadata, GGML_TYPE_Q4_K, &mm_shapes_k[i]);
	EXPECT_EQ(bad, 0);
}

TEST(q6_K)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(mm_shapes_k) / sizeof(mm_shapes_k[0]); i++)
		bad += run_mm(_metadata, GGML_TYPE_Q6_K, &mm_shapes_k[i]);
	EXPECT_EQ(bad, 0);
}

/* ------------------------------------------------------------------------- */

TEST(device)
{
	ggml_backend_reg_t reg = ggml_backend_cpu_reg();
	ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
	ggml_backend_buffer_type_t rbuft = ggml_backend_cpu_repack_buffer_type();
	ggml_backend_dev_get_extra_bufts_t get_extra =
		(ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
	ASSERT_NE(get_extra, NULL);
	ggml_backend_buffer_type_t *extra = get_extra(dev);
	ASSERT_NE(extra, NULL);
	EXPECT_EQ(extra[0], ggml_cpu_repack_fast() ? rbuft : NULL);
	if (extra[0] == NULL)
		TH_LOG("no int8 kernels for the repacked layout here: the extra buffer type is not offered");
	EXPECT_STREQ(ggml_backend_buft_name(rbuft), "CPU_REPACK");
	EXPECT_EQ(ggml_backend_buft_get_device(rbuft), dev);
	EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, rbuft));
	EXPECT_FALSE(ggml_backend_buft_is_host(rbuft));

	struct rp_ctx r;
	struct ggml_tensor *w = new_repacked(&r, GGML_TYPE_Q8_0, 64, 48, 1);
	struct ggml_init_params ip = { 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
	struct ggml_tensor *ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
	/* (only where this CPU has the int8 kernels of the layout) */
	const bool fast = ggml_cpu_repack_type_fast(GGML_TYPE_Q8_0);
	EXPECT_EQ(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, w, x)), fast);
	/* the weights read by anything but MUL_MAT's src0 */
	EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_get_rows(ctx, w, ids)));
	EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, w, ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 48))));
	/* views: starting at a group, or not */
	struct ggml_tensor *v16 = ggml_view_2d(ctx, w, 64, 20, w->nb[1], w->nb[1] * 16);
	struct ggml_tensor *v8 = ggml_view_2d(ctx, w, 64, 20, w->nb[1], w->nb[1] * 8);
	EXPECT_EQ(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, v16, x)), fast);
	EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, v8, x)));
	EXPECT_FALSE(ggml_cpu_mul_mat_supported(ggml_mul_mat(ctx, v8, x)));
	ggml_free(ctx);
	free_repacked(&r);

	/* K-quants: taken where this CPU has the group kernels */
	for (int q6 = 0; q6 < 2; q6++) {
		const enum ggml_type kt = q6 ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
		w = new_repacked(&r, kt, 512, 40, 1);
		ctx = ggml_init(ip);
		x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 512, 3);
		EXPECT_TRUE(ggml_cpu_is_repacked(w));
		EXPECT_EQ(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, w, x)), ggml_cpu_repack_type_fast(kt));
#if defined(__x86_64__)
		/* Q6_K decodes faster plain on x86 with AVX2 alone: left out
		 * of CPU_REPACK there */
		EXPECT_EQ(ggml_cpu_repack_type_fast(kt), ggml_cpu_fast_x86() && (!q6 || ggml_cpu_isa()->use_vnni256));
#endif
		ggml_free(ctx);
		free_repacked(&r);
	}

	/* a type that is not repacked there: nothing may read it (not host memory) */
	struct ggml_tensor *f = new_repacked(&r, GGML_TYPE_F16, 64, 48, 1);
	ctx = ggml_init(ip);
	x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
	EXPECT_FALSE(ggml_cpu_is_repacked(f));
	EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, f, x)));
	uint16_t in[64], out[64];
	for (int i = 0; i < 64; i++)
		in[i] = (uint16_t)(i * 977);
	ggml_backend_tensor_set(f, in, 128, sizeof(in));
	ggml_backend_tensor_get(f, out, 128, sizeof(out));
	EXPECT_EQ(memcmp(in, out, sizeof(in)), 0);
	ggml_free(ctx);
	free_repacked(&r);
}

/* a small graph through the scheduler: repacked and plain weights agree */
TEST(sched)
{
	const int64_t K = 256, M = 72, N = 5;
	/* (without the int8 kernels the device offers no CPU_REPACK and takes
	 * no product of weights in it: nothing to schedule) */
	if (!ggml_cpu_repack_type_fast(GGML_TYPE_Q4_0))
		SKIP(return, "no int8 kernels for the repacked layout on this CPU");
	ggml_backend_t cpu = ggml_backend_cpu_init();
	ASSERT_NE(cpu, NULL);
	ggml_backend_cpu_set_n_threads(cpu, 2);
	struct rp_ctx r;
	struct ggml_tensor *wr = new_repacked(&r, GGML_TYPE_Q4_0, K, M, 1);
	ggml_backend_buffer_set_usage(r.buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	struct ggml_init_params wp_ip = { ggml_tensor_overhead() * 2, NULL, true };
	struct ggml_context *wctx = ggml_init(wp_ip);
	struct ggml_tensor *wp = ggml_new_tensor_2d(wctx, GGML_TYPE_Q4_0, K, M);
	ggml_backend_buffer_t pbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, ggml_backend_cpu_buffer_type());
	ggml_backend_buffer_set_usage(pbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	void *q = make_weights(GGML_TYPE_Q4_0, K, M, 1);
	ggml_backend_tensor_set(wr, q, 0, ggml_nbytes(wr));
	ggml_backend_tensor_set(wp, q, 0, ggml_nbytes(wp));
	free(q);

	struct ggml_init_params ip = { ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
	ggml_set_input(x);
	struct ggml_tensor *yr = ggml_silu(ctx, ggml_mul_mat(ctx, wr, x));
	struct ggml_tensor *yp = ggml_silu(ctx, ggml_mul_mat(ctx, wp, x));
	ggml_set_output(yr);
	ggml_set_output(yp);
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, yr);
	ggml_build_forward_expand(gf, yp);
	ggml_backend_sched_t sched = ggml_backend_sched_new(&cpu, NULL, 1, GGML_DEFAULT_GRAPH_SIZE, false, true);
	ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
	float xs[256 * 5];
	for (int i = 0; i < K * N; i++)
		xs[i] = (float)(2 * urand() - 1);
	ggml_backend_tensor_set(x, xs, 0, sizeof(xs));
	ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
	float a[72 * 5], b[72 * 5];
	ggml_backend_tensor_get(yr, a, 0, sizeof(a));
	ggml_backend_tensor_get(yp, b, 0, sizeof(b));
	EXPECT_LE(nmse_f(a, b, M * N), 1e-10);
	ggml_backend_sched_free(sched);
	ggml_free(ctx);
	ggml_backend_buffer_free(pbuf);
	ggml_free(wctx);
	free_repacked(&r);
	ggml_backend_free(cpu);
}

TEST_HARNESS_MAIN
