// SPDX-License-Identifier: MIT
/*
 * MUL_MAT with Q8_0/Q4_0 weights on every kernel path of this CPU: the int8
 * dot-product kernels (multi-row dots and the packed int8 GEMM; AVX512-VNNI
 * on x86-64, SDOT on arm64 - qemu-aarch64 has it), the plain SIMD kernels
 * (AVX2 / NEON: GGML_CPU_DISABLE=avx512,dotprod, switched in-process with
 * ggml_cpu_isa_disable()), and the scalar reference path; at 1, 2 and 3
 * threads, on shapes around the kernels' edges: rows not a multiple of the
 * 16-row tile or the 96-row chunk, K over several K steps (32 blocks), column
 * counts around the 4-column tile and the GEMM thresholds, broadcast batches,
 * F16 and non-contiguous activations.
 *
 * References, in double precision, from the test's own dequantization:
 *   ref_f: activations as given; every path within NMSE 2e-4 of it (the
 *          activations are quantized to Q8_0 by the kernels, as upstream's
 *          vec_dot_type scheme does; Q8_0 rounding is ~1e-5 relative NMSE)
 *   ref_q: activations quantized to Q8_0 here (round half away from zero,
 *          scale rounded to fp16), as the int8 kernels do. Paths that
 *          quantize the activations (int8 always; SIMD and the reference
 *          below 32 columns) must match it to float rounding: NMSE 1e-10
 *          (integer dots are exact; only the float scaling and summation
 *          order differ). This catches packing or offset mistakes that the
 *          loose threshold could hide.
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

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
	return test_urand(&rng);
}



/* float -> fp16 -> double, round to nearest even (normal range suffices) */
static double round_half(float f)
{
	return half_to_double(ggml_fp32_to_fp16(f));
}

/* an activation row quantized to Q8_0 as the kernels do, back as doubles */
static void quant_act(const float *x, int64_t k, double *out)
{
	for (int64_t b = 0; b < k / 32; b++) {
		float amax = 0;
		for (int j = 0; j < 32; j++)
			amax = fabsf(x[32 * b + j]) > amax ? fabsf(x[32 * b + j]) : amax;
		const float d = amax / 127.0f;
		const float id = d != 0.0f ? 1.0f / d : 0.0f;
		const double dq = round_half(d);
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

/* P_VEX: the AVX2 kernels with the AVX-VNNI GEMMs (x86-64 CPUs with
 * AVX-VNNI; VPDPBUSD in place of VPMADDUBSW), compared bit for bit with
 * P_SIMD, the AVX2 kernels alone, which run next */
enum path { P_INT8, P_VEX, P_SIMD, P_REF, P_COUNT };
static const char *const path_name[P_COUNT] = { "int8", "avx-vnni", "simd", "ref" };

/* selects a path; false when this CPU does not have it */
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

struct shape {
	int64_t K, M, N, b2, b3; /* weights [K, M, b2, b3]; activations broadcast x2 over dims 2/3 when b2/b3 > 0 */
	int act;                 /* 0 F32, 1 F16, 2 F32 permuted (non-contiguous) */
};

/* runs one case on every path and thread count; returns the failures */
static int run_shape(struct __test_metadata *_metadata, enum ggml_type type, const struct shape *sh)
{
	struct ggml_init_params ip = { 96 * 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	const int64_t K = sh->K, M = sh->M, N = sh->N;
	const int64_t wb2 = sh->b2 ? sh->b2 : 1, wb3 = sh->b3 ? sh->b3 : 1;
	const int64_t B2 = sh->b2 ? 2 * sh->b2 : 1, B3 = sh->b3 ? 2 * sh->b3 : 1;
	struct ggml_tensor *w = ggml_new_tensor_4d(ctx, type, K, M, wb2, wb3);
	{
		const int64_t n = K * M * wb2 * wb3;
		float *f = malloc(n * sizeof(float));
		for (int64_t i = 0; i < n; i++)
			f[i] = (float)(2 * urand() - 1);
		ggml_quantize_chunk(type, f, w->data, 0, M * wb2 * wb3, K, NULL);
		free(f);
	}
	/* activations, logical [K, N, B2, B3], as floats the test keeps */
	float *xf = malloc(K * N * B2 * B3 * sizeof(float));
	for (int64_t i = 0; i < K * N * B2 * B3; i++)
		xf[i] = (float)(4 * urand() - 2) * (i % 7 == 0 ? 8.0f : 1.0f);
	struct ggml_tensor *x;
	if (sh->act == 1) {
		x = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, K, N, B2, B3);
		for (int64_t i = 0; i < K * N * B2 * B3; i++) {
			((uint16_t *)x->data)[i] = ggml_fp32_to_fp16(xf[i]);
			xf[i] = (float)half_to_double(((uint16_t *)x->data)[i]);
		}
	} else if (sh->act == 2) {
		/* stored [K, B2, N, B3], viewed as [K, N, B2, B3] */
		struct ggml_tensor *s = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, K, B2, N, B3);
		for (int64_t i3 = 0; i3 < B3; i3++)
			for (int64_t j = 0; j < N; j++)
				for (int64_t i2 = 0; i2 < B2; i2++)
					memcpy((float *)s->data + ((i3 * N + j) * B2 + i2) * K,
					       xf + ((i3 * B2 + i2) * N + j) * K, K * sizeof(float));
		x = ggml_permute(ctx, s, 0, 2, 1, 3);
	} else {
		x = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, K, N, B2, B3);
		memcpy(x->data, xf, K * N * B2 * B3 * sizeof(float));
	}
	struct ggml_tensor *out = ggml_mul_mat(ctx, w, x);
	const int64_t nout = M * N * B2 * B3;

	double *ref_f = calloc(nout, sizeof(double)), *ref_q = calloc(nout, sizeof(double));
	double *wrow = malloc(K * sizeof(double)), *aq = malloc(K * sizeof(double));
	for (int64_t i3 = 0; i3 < B3; i3++)
		for (int64_t i2 = 0; i2 < B2; i2++)
			for (int64_t j = 0; j < N; j++) {
				const float *a = xf + ((i3 * B2 + i2) * N + j) * K;
				quant_act(a, K, aq);
				for (int64_t i = 0; i < M; i++) {
					const int64_t w2 = i2 / (B2 / wb2), w3 = i3 / (B3 / wb3);
					dequant_row(type, (const uint8_t *)w->data + i * w->nb[1] + w2 * w->nb[2] + w3 * w->nb[3],
						    K, wrow);
					double sf = 0, sq = 0;
					for (int64_t k = 0; k < K; k++) {
						sf += wrow[k] * a[k];
						sq += wrow[k] * aq[k];
					}
					ref_f[((i3 * B2 + i2) * N + j) * M + i] = sf;
					ref_q[((i3 * B2 + i2) * N + j) * M + i] = sq;
				}
			}
	free(wrow);
	free(aq);

	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, out);
	int bad = 0;
	float *vex[4] = { NULL }; /* P_VEX's results by thread count */
	for (int p = 0; p < P_COUNT; p++) {
		if (!set_path(p))
			continue;
		for (int nth = 1; nth <= 3; nth++) {
			memset(out->data, 0xff, ggml_nbytes(out)); /* NaNs: every value must be written */
			struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
			void *work = plan.work_size ? malloc(plan.work_size) : NULL;
			plan.work_data = work;
			const enum ggml_status st = ggml_graph_compute(gf, &plan);
			free(work);
			EXPECT_EQ(st, GGML_STATUS_SUCCESS);
			const double ef = nmse(out->data, ref_f, nout), eq = nmse(out->data, ref_q, nout);
			/* the paths that quantize the activations (see the top) */
			const bool quantizes = p == P_INT8 || N < 32;
			if (!(ef <= 2e-4) || (quantizes && !(eq <= 1e-10))) {
				bad++;
				TH_LOG("%s K=%lld M=%lld N=%lld b=%lld,%lld act=%d %s nth=%d: NMSE %.3g (float act), %.3g (Q8_0 act)",
				       ggml_type_name(type), (long long)K, (long long)M, (long long)N, (long long)sh->b2,
				       (long long)sh->b3, sh->act, path_name[p], nth, ef, eq);
			}
			if (p == P_VEX) {
				vex[nth] = malloc(ggml_nbytes(out));
				memcpy(vex[nth], out->data, ggml_nbytes(out));
			} else if (p == P_SIMD && vex[nth] && memcmp(vex[nth], out->data, ggml_nbytes(out)) != 0) {
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
	free(xf);
	ggml_free(ctx);
	return bad;
}

static const struct shape shapes[] = {
	{ 32, 1, 1, 0, 0, 0 },
	{ 64, 4, 2, 0, 0, 0 },
	{ 96, 17, 3, 0, 0, 0 },
	{ 256, 16, 4, 0, 0, 0 },
	{ 160, 33, 5, 0, 0, 0 },
	{ 1056, 100, 7, 0, 0, 0 },   /* 33 blocks: two K steps */
	{ 2080, 131, 8, 0, 0, 0 },   /* 65 blocks, rows over two chunks */
	{ 128, 97, 13, 0, 0, 0 },
	{ 1024, 20, 31, 0, 0, 0 },
	{ 320, 45, 40, 0, 0, 0 },    /* float GEMM on AVX2 */
	{ 1088, 37, 36, 0, 0, 0 },   /* int8 GEMM with K steps outside (> 32 columns) */
	{ 64, 9, 6, 1, 0, 1 },       /* F16 activations */
	{ 96, 23, 9, 1, 1, 2 },      /* permuted activations, batches broadcast */
	{ 224, 18, 5, 2, 1, 0 },     /* broadcast over dim 2 */
	{ 64, 40, 33, 0, 2, 2 },     /* broadcast over dim 3, non-contiguous */
	{ 32, 16, 25, 0, 0, 0 },     /* one block, two 12-column tiles and one column (VNNI GEMM) */
	{ 64, 7, 47, 0, 0, 0 },      /* 7 rows, 3 x 12 columns and 11 */
	{ 4160, 29, 4, 0, 0, 0 },    /* long rows, 3 x 8 + 5 rows, 4 columns (VNNI dots: one pass) */
	{ 96, 23, 3, 1, 1, 2 },      /* the dots on permuted activations, batches broadcast */
};

TEST(q8_0)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		bad += run_shape(_metadata, GGML_TYPE_Q8_0, &shapes[i]);
	EXPECT_EQ(bad, 0);
}

TEST(q4_0)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		bad += run_shape(_metadata, GGML_TYPE_Q4_0, &shapes[i]);
	EXPECT_EQ(bad, 0);
}

/* the int8 path is there when the CPU has it, and the switch turns it off */
TEST(isa_switch)
{
	ggml_cpu_isa_disable(NULL);
	const struct ggml_cpu_isa *isa = ggml_cpu_isa();
#if defined(__x86_64__)
	/* (isa->avx2 etc.: GGML_CPU_NO_SIMD turns them off, not ggml_cpu_has_*) */
	EXPECT_EQ(isa->use_vnni256,
		  ggml_cpu_has_avx512_vnni() && ggml_cpu_has_avx512() && isa->avx512_bwvl && ggml_cpu_fast_x86());
	if (!isa->use_vnni256)
		TH_LOG("no AVX512-VNNI on this CPU: only the AVX2 and reference paths were tested");
#elif defined(__aarch64__)
	EXPECT_EQ(isa->use_dotprod, ggml_cpu_has_dotprod() && ggml_cpu_has_neon());
	if (!isa->use_dotprod)
		TH_LOG("no SDOT on this CPU: only the NEON and reference paths were tested");
#endif
	ggml_cpu_isa_disable("sse3,avx512,dotprod");
	EXPECT_FALSE(isa->use_vnni256);
	EXPECT_FALSE(isa->use_dotprod);
	EXPECT_EQ(ggml_cpu_has_avx512_vnni(), isa->avx512_vnni); /* still reports the CPU */
	EXPECT_EQ(ggml_cpu_has_dotprod(), isa->dotprod);
	restore_path();
}

TEST_HARNESS_MAIN
