// SPDX-License-Identifier: MIT
/*
 * MUL_MAT with K-quant weights (Q4_K, Q6_K) on every path of this CPU: the
 * int8 GEMM on 16-row groups from 3 (Q6_K: 4) columns (each tile of the
 * plain rows repacked per K step, as the repacking buffer stores them;
 * activations as Q8_0 blocks; VNNI, AVX2 or SDOT), the dots with Q8_K
 * activations below, and the reference path; at 1
 * to 3 threads, on shapes around the edges: rows not a multiple of the
 * 16-row tile or the 96-row chunk, K over several K steps (32 sub-blocks)
 * and not a multiple of one, column counts around the thresholds, broadcast
 * batches, F16 and permuted activations.
 *
 * References in double precision from the core's dequantizer:
 *   ref_f: the activations as given; every path within NMSE 2e-4
 *   ref_q: the activations quantized to Q8_0 (per 32 values) as the int8
 *          GEMM does; that path must match it to 1e-10 (integer dots are
 *          exact, the scales and the mins' float GEMM only round)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"
#include "test-ref-quant.h"

static uint64_t rng = 0x853c49e6748fea9bull;
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

static double nmse(const float *out, const double *ref, int64_t n)
{
	double num = 0, den = 0;
	for (int64_t i = 0; i < n; i++) {
		num += (out[i] - ref[i]) * (out[i] - ref[i]);
		den += ref[i] * ref[i];
	}
	return den > 0 ? num / den : num;
}

enum path { P_INT8, P_SIMD, P_REF, P_COUNT };
static const char *const path_name[P_COUNT] = { "int8", "simd", "ref" };

static bool set_path(enum path p)
{
	ggml_cpu_set_use_ref(p == P_REF);
	ggml_cpu_isa_disable(p == P_INT8 ? NULL : "avx512,dotprod");
	if (p == P_INT8)
		return ggml_cpu_isa()->use_vnni256 || ggml_cpu_isa()->use_dotprod;
	return true;
}

static void restore_path(void)
{
	ggml_cpu_set_use_ref(false);
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

/* the int8 GEMM on this path (the activations then go through Q8_0) */
static bool int8_gemm(enum path p, enum ggml_type type, int64_t N)
{
	if (p == P_REF || N < (type == GGML_TYPE_Q6_K ? 4 : 3))
		return false;
	/* x86-64: AVX2 is enough (unless GGML_CPU_NO_SIMD turned it off) */
	return p == P_INT8 || ggml_cpu_fast_x86();
}

struct shape {
	int64_t K, M, N, b2;
	int act; /* 0 F32, 1 F16, 2 F32 permuted */
};

static int run_shape(struct __test_metadata *_metadata, enum ggml_type type, const struct shape *sh)
{
	struct ggml_init_params ip = { 64 * 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	const int64_t K = sh->K, M = sh->M, N = sh->N, wb2 = sh->b2 ? sh->b2 : 1, B2 = sh->b2 ? 2 * sh->b2 : 1;
	struct ggml_tensor *w = ggml_new_tensor_3d(ctx, type, K, M, wb2);
	{
		float *f = malloc(K * M * wb2 * sizeof(float));
		for (int64_t i = 0; i < K * M * wb2; i++)
			f[i] = (float)(2 * urand() - 1) + (i % 5 == 0 ? 0.5f : 0.0f);
		ggml_quantize_chunk(type, f, w->data, 0, M * wb2, K, NULL);
		free(f);
	}
	float *xf = malloc(K * N * B2 * sizeof(float));
	for (int64_t i = 0; i < K * N * B2; i++)
		xf[i] = (float)(4 * urand() - 2) * (i % 7 == 0 ? 8.0f : 1.0f);
	struct ggml_tensor *x;
	if (sh->act == 1) {
		x = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, K, N, B2);
		for (int64_t i = 0; i < K * N * B2; i++) {
			((uint16_t *)x->data)[i] = ggml_fp32_to_fp16(xf[i]);
			xf[i] = (float)half_to_double(((uint16_t *)x->data)[i]);
		}
	} else if (sh->act == 2) {
		struct ggml_tensor *s = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, B2, N);
		for (int64_t j = 0; j < N; j++)
			for (int64_t i2 = 0; i2 < B2; i2++)
				memcpy((float *)s->data + (j * B2 + i2) * K, xf + (i2 * N + j) * K, K * sizeof(float));
		x = ggml_permute(ctx, s, 0, 2, 1, 3);
	} else {
		x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, N, B2);
		memcpy(x->data, xf, K * N * B2 * sizeof(float));
	}
	struct ggml_tensor *out = ggml_mul_mat(ctx, w, x);
	const int64_t nout = M * N * B2;

	double *ref_f = calloc(nout, sizeof(double)), *ref_q = calloc(nout, sizeof(double));
	double *aq = malloc(K * sizeof(double));
	float *wrow = malloc(K * sizeof(float));
	const struct ggml_type_traits *tr = ggml_get_type_traits(type);
	for (int64_t i2 = 0; i2 < B2; i2++)
		for (int64_t j = 0; j < N; j++) {
			const float *a = xf + (i2 * N + j) * K;
			quant_act(a, K, aq);
			for (int64_t i = 0; i < M; i++) {
				tr->to_float((const char *)w->data + i * w->nb[1] + (i2 / (B2 / wb2)) * w->nb[2], wrow, K);
				double sf = 0, sq = 0;
				for (int64_t k = 0; k < K; k++) {
					sf += (double)wrow[k] * a[k];
					sq += (double)wrow[k] * aq[k];
				}
				ref_f[(i2 * N + j) * M + i] = sf;
				ref_q[(i2 * N + j) * M + i] = sq;
			}
		}
	free(wrow);
	free(aq);

	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, out);
	int bad = 0;
	for (int p = 0; p < P_COUNT; p++) {
		if (!set_path(p))
			continue;
		for (int nth = 1; nth <= 3; nth++) {
			memset(out->data, 0xff, ggml_nbytes(out));
			struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
			void *work = plan.work_size ? malloc(plan.work_size) : NULL;
			plan.work_data = work;
			const enum ggml_status st = ggml_graph_compute(gf, &plan);
			free(work);
			EXPECT_EQ(st, GGML_STATUS_SUCCESS);
			const double ef = nmse(out->data, ref_f, nout), eq = nmse(out->data, ref_q, nout);
			/* (a single output: one sample of the activation rounding) */
			if (!(ef <= (M * N >= 16 ? 2e-4 : 1e-2)) || (int8_gemm(p, type, N) && !(eq <= 1e-10))) {
				bad++;
				TH_LOG("%s K=%lld M=%lld N=%lld b2=%lld act=%d %s nth=%d: NMSE %.3g (float act), %.3g (Q8_0 act)",
				       ggml_type_name(type), (long long)K, (long long)M, (long long)N, (long long)sh->b2,
				       sh->act, path_name[p], nth, ef, eq);
			}
		}
	}
	restore_path();
	free(ref_f);
	free(ref_q);
	free(xf);
	ggml_free(ctx);
	return bad;
}

static const struct shape shapes[] = {
	{ 256, 1, 1, 0, 0 },
	{ 256, 17, 2, 0, 0 },
	{ 256, 17, 3, 0, 0 },
	{ 256, 16, 4, 0, 0 },
	{ 512, 15, 3, 0, 0 },     /* fewer rows than one tile */
	{ 1792, 47, 4, 0, 0 },    /* 56 sub-blocks: K steps of 32 and 24 */
	{ 2304, 113, 3, 1, 2 },   /* batches broadcast, permuted */
	{ 512, 33, 5, 0, 0 },
	{ 2304, 100, 7, 0, 0 },   /* 72 sub-blocks: three K steps */
	{ 1024, 131, 8, 0, 0 },   /* rows over two chunks */
	{ 256, 97, 12, 0, 0 },
	{ 256, 40, 11, 0, 0 },
	{ 512, 21, 16, 0, 0 },
	{ 256, 30, 15, 0, 0 },
	{ 256, 30, 24, 0, 0 },
	{ 512, 19, 23, 0, 0 },
	{ 768, 20, 31, 0, 0 },
	{ 1280, 37, 36, 0, 0 },   /* K steps outside (> 32 columns) */
	{ 512, 45, 40, 0, 0 },
	{ 256, 9, 14, 1, 1 },     /* F16 activations */
	{ 256, 9, 25, 1, 1 },
	{ 512, 23, 17, 1, 2 },    /* permuted activations, batches broadcast */
	{ 512, 23, 26, 1, 2 },
	{ 256, 18, 13, 2, 0 },    /* broadcast over dim 2 */
	{ 256, 18, 24, 2, 0 },
	{ 768, 18, 4, 2, 0 },
	{ 1792, 161, 64, 0, 0 },  /* K steps outside, two chunks */
	{ 512, 13, 6, 0, 0 },     /* the VNNI GEMM's 8 columns per pass: fewer, */
	{ 768, 29, 9, 0, 0 },     /* one more, and a pass of 6 after two of 8 */
	{ 256, 7, 22, 1, 0 },     /* on fewer rows than a tile, batches broadcast */
	{ 8448, 19, 1, 0, 0 },    /* long rows: the four-row dots (K > 8192), a remainder of 3 rows */
	{ 9216, 37, 2, 1, 2 },    /* and with batches broadcast, permuted activations, two chunks */
};

TEST(q4_K)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		bad += run_shape(_metadata, GGML_TYPE_Q4_K, &shapes[i]);
	EXPECT_EQ(bad, 0);
}

TEST(q6_K)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		bad += run_shape(_metadata, GGML_TYPE_Q6_K, &shapes[i]);
	EXPECT_EQ(bad, 0);
}

/* Q5_K's long rows: its four-row dots (the GEMM's thresholds are its own,
 * so only the dot path's column counts here) */
TEST(q5_K_long_rows)
{
	static const struct shape long_rows[] = {
		{ 8448, 19, 1, 0, 0 },
		{ 9216, 37, 2, 1, 2 },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(long_rows) / sizeof(long_rows[0]); i++)
		bad += run_shape(_metadata, GGML_TYPE_Q5_K, &long_rows[i]);
	EXPECT_EQ(bad, 0);
}

TEST_HARNESS_MAIN
