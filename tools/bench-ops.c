// SPDX-License-Identifier: MIT
/*
 * bench-ops - CPU op throughput of libggml-backend against this machine's
 * own limits.
 *
 * First measures the fp32 FMA peak (independent FMA chains in registers)
 * and the DRAM read bandwidth (a sum over a 512 MiB array, four streams per
 * thread, best of 7) at 1 and 2 threads; then MUL_MAT with 4096 x 14336 weights (ne00 = 14336, ne01 =
 * 4096) and F32 activations at n = 1, 8, 512 for every weight type, and
 * ADD, RMS_NORM, SOFT_MAX, ROPE, FLASH_ATTN_EXT, CONV_2D; each at 1 and 2 threads. Prints medians,
 * GFLOPS, GB/s and the ratio to the measured limit: mat-vec (n <= 8) against
 * the read bandwidth, n = 512 against the FMA peak.
 *
 *   bench-ops [-q] [-t 1,2] [-T type,...] [-n 1,8,512] [-S 4096x14336,...] [--mm|--other|--conv] [--cpu-time]
 *     --conv  CONV_2D only (fast and scalar paths alternately)
 *     -S   weight shapes, rows x columns (ggml ne01 x ne00); decode products
 *          cycle through copies of the weights adding up to 64 MiB, so
 *          that they stream from DRAM, not from a last-level cache
 *     -q   quick: fewer repetitions, n=512 for f32/f16/q8_0 only
 *     -R   weights also in the CPU device's repacking extra buffer type
 *          (CPU_REPACK; found through ggml_backend_dev_get_extra_bufts,
 *          used where the device's supports_op takes them, as llama.cpp
 *          does), timed alternately with the plain ones (five rounds,
 *          median of each): prints the "+rp" time and plain / rp
 *     --raw  a tab-separated line per product (RAW, mm, type, shape, n,
 *          threads, plain ms, repacked ms or -1) for tools/bench-upstream.sh
 *     --no-limits  skip measuring the FMA peak and read bandwidth
 *     --cpu-time  time by the process's CPU time over the thread count
 *                 instead of the wall clock, limits included (on a shared
 *                 machine: leaves out the time spent waiting for a core)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-limits.h"
#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

static double peak_gflops[BENCH_MAX_THREADS + 1], read_gbs[BENCH_MAX_THREADS + 1];

static void measure_limits(int max_threads, int quick)
{
	bench_measure_limits(max_threads, quick, 1, peak_gflops, read_gbs);
}

/* ---- op benchmarks -------------------------------------------------------- */

static struct ggml_threadpool *pools[3];
static bool plan_use_ref; /* time the scalar reference path */

/* median time of reps computes; rep r computes gfs[r % ngf] (copies of one
 * product on different weights, so that they stream from DRAM) */
static double time_graphs(struct ggml_cgraph **gfs, int ngf, int nth, int reps)
{
	size_t wsize = 0;
	for (int g = 0; g < ngf; g++) {
		struct ggml_cplan p = ggml_graph_plan(gfs[g], nth, pools[nth]);
		wsize = p.work_size > wsize ? p.work_size : wsize;
	}
	struct ggml_cplan plan = ggml_graph_plan(gfs[0], nth, pools[nth]);
	plan.use_ref = plan_use_ref;
	void *work = wsize ? malloc(wsize) : NULL;
	plan.work_data = work;
	plan.work_size = wsize;
	double *t = malloc(sizeof(double) * reps);
	ggml_graph_compute(gfs[ngf - 1], &plan); /* warm-up */
	for (int r = 0; r < reps; r++) {
		double t0 = bench_clock();
		if (ggml_graph_compute(gfs[r % ngf], &plan) != GGML_STATUS_SUCCESS) {
			fprintf(stderr, "compute failed\n");
			exit(1);
		}
		t[r] = (bench_clock() - t0) / (bench_cpu_time ? nth : 1);
	}
	double m = bench_median(t, reps);
	free(t);
	free(work);
	return m;
}

static double time_graph(struct ggml_cgraph *gf, int nth, int reps)
{
	return time_graphs(&gf, 1, nth, reps);
}

/* weight matrices of rows x cols (ggml: ne01 x ne00) */
struct shape {
	int64_t rows, cols;
};

/* Copies of the weights until they are twice the size of a 32 MiB last-level
 * cache (at most 8): decode figures are then DRAM figures. */
#define STREAM_BYTES ((size_t)64 << 20)

static int bench_repack; /* -R */
static int bench_raw;    /* --raw */

static void bench_mul_mat(enum ggml_type type, struct shape sh, const int *ns, int nn, const int *ths, int nt,
			  int quick)
{
	const int64_t K = sh.cols, M = sh.rows;
	const size_t wbytes = ggml_row_size(type, K) * M;
	int ncopy = (int)((STREAM_BYTES + wbytes - 1) / wbytes);
	ncopy = ncopy < 1 ? 1 : ncopy > 8 ? 8 : ncopy;
	struct ggml_init_params ip = { wbytes * ncopy + (size_t)K * 512 * 4 + (size_t)M * 512 * 4 * ncopy +
					       64 * 1024 * 1024,
				       NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	if (!ctx) {
		fprintf(stderr, "no memory for %s\n", ggml_type_name(type));
		return;
	}
	struct ggml_tensor *w[8];
	for (int c = 0; c < ncopy; c++) {
		w[c] = ggml_new_tensor_2d(ctx, type, K, M);
		float *tmp = malloc(K * 64 * sizeof(float));
		for (int64_t r = 0; r < M; r += 64) {
			const int64_t nr = r + 64 < M ? 64 : M - r;
			bench_fill_f32(tmp, K * nr, (unsigned)(r + 7919 * c));
			ggml_quantize_chunk(type, tmp, (char *)w[c]->data + r * ggml_row_size(type, K), 0, nr, K, NULL);
		}
		free(tmp);
	}
	/* the same weights in the repacking extra buffer type, if it takes them */
	ggml_backend_buffer_type_t rbuft = bench_repack ? bench_extra_buft() : NULL;
	const bool rp = rbuft && bench_buft_takes(rbuft, w[0], 1);
	struct ggml_tensor *wr[8];
	struct ggml_context *rctx = NULL;
	ggml_backend_buffer_t rbuf = NULL;
	if (rp) {
		struct ggml_init_params rip = { ggml_tensor_overhead() * 8, NULL, true };
		rctx = ggml_init(rip);
		for (int c = 0; c < ncopy; c++)
			wr[c] = ggml_new_tensor_2d(rctx, type, K, M);
		rbuf = ggml_backend_alloc_ctx_tensors_from_buft(rctx, rbuft);
		if (!rbuf) {
			fprintf(stderr, "no memory for the repacked weights\n");
			exit(1);
		}
		for (int c = 0; c < ncopy; c++)
			ggml_backend_tensor_set(wr[c], w[c]->data, 0, wbytes);
	}
	for (int in = 0; in < nn; in++) {
		const int64_t N = ns[in];
		if (quick && N == 512 && type != GGML_TYPE_F32 && type != GGML_TYPE_Q8_0 && type != GGML_TYPE_F16)
			continue;
		struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
		bench_fill_f32(x->data, K * N, 7);
		/* copies only where the weights are read once per product */
		const int ng = N <= 8 ? ncopy : 1;
		struct ggml_cgraph *gf[8], *gr[8];
		for (int c = 0; c < ng; c++) {
			gf[c] = ggml_new_graph(ctx);
			ggml_build_forward_expand(gf[c], ggml_mul_mat(ctx, w[c], x));
			if (rp) {
				gr[c] = ggml_new_graph(ctx);
				ggml_build_forward_expand(gr[c], ggml_mul_mat(ctx, wr[c], x));
			}
		}
		for (int it = 0; it < nt; it++) {
			const int nth = ths[it];
			const int reps = N >= 512 ? (quick ? 1 : 3) : (quick ? 5 : 15);
			double t, trp = 0;
			if (rp) {
				double tp[5], tr[5];
				for (int round = 0; round < 5; round++) {
					tp[round] = time_graphs(gf, ng, nth, reps);
					tr[round] = time_graphs(gr, ng, nth, reps);
				}
				t = bench_median(tp, 5);
				trp = bench_median(tr, 5);
			} else {
				t = time_graphs(gf, ng, nth, reps);
			}
			double gflops = 2.0 * M * N * K / t * 1e-9;
			double gbs = wbytes / t * 1e-9;
			double ratio = N <= 8 ? gbs / read_gbs[nth] : gflops / peak_gflops[nth];
			printf("MUL_MAT %-5s %lldx%lld n=%-4lld %dT %10.1f us %7.1f GFLOPS %6.1f GB/s  %5.1f%% of %s\n",
			       ggml_type_name(type), (long long)M, (long long)K, (long long)N, nth, t * 1e6, gflops, gbs,
			       100 * ratio, N <= 8 ? "read BW" : "FMA peak");
			if (rp) {
				const double rgb = wbytes / trp * 1e-9, rgf = 2.0 * M * N * K / trp * 1e-9;
				printf("MUL_MAT %-5s %lldx%lld n=%-4lld %dT %10.1f us %7.1f GFLOPS %6.1f GB/s  %5.1f%% of %s"
				       "  +rp, plain/rp %.2f\n",
				       ggml_type_name(type), (long long)M, (long long)K, (long long)N, nth, trp * 1e6, rgf,
				       rgb, 100 * (N <= 8 ? rgb / read_gbs[nth] : rgf / peak_gflops[nth]),
				       N <= 8 ? "read BW" : "FMA peak", t / trp);
			}
			if (bench_raw)
				printf("RAW\tmm\t%s\t%lldx%lld\t%lld\t%d\t%.4f\t%.4f\n", ggml_type_name(type), (long long)M,
				       (long long)K, (long long)N, nth, t * 1e3, rp ? trp * 1e3 : -1.0);
			fflush(stdout);
		}
	}
	ggml_backend_buffer_free(rbuf);
	if (rctx)
		ggml_free(rctx);
	ggml_free(ctx);
}

static void bench_other(const int *ths, int nt, int quick)
{
	struct ggml_init_params ip = { 512 * 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	for (int op = 0; op < 4; op++) {
		struct ggml_tensor *out = NULL;
		double bytes = 0;
		const char *name = "";
		if (op == 0) {
			struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 512);
			struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 512);
			bench_fill_f32(a->data, 4096 * 512, 1);
			bench_fill_f32(b->data, 4096 * 512, 2);
			out = ggml_add(ctx, a, b);
			bytes = 3.0 * 4096 * 512 * 4;
			name = "ADD      f32 [4096,512]+[4096,512]";
		} else if (op == 1) {
			struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 512);
			bench_fill_f32(a->data, 4096 * 512, 3);
			out = ggml_rms_norm(ctx, a, 1e-5f);
			bytes = 2.0 * 4096 * 512 * 4;
			name = "RMS_NORM f32 [4096,512]";
		} else if (op == 2) {
			struct ggml_tensor *a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1024, 1024, 4);
			struct ggml_tensor *m = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 1024, 1024);
			bench_fill_f32(a->data, 1024 * 1024 * 4, 4);
			memset(m->data, 0, ggml_nbytes(m));
			out = ggml_soft_max_ext(ctx, a, m, 0.125f, 0.0f);
			bytes = 2.0 * 1024 * 1024 * 4 * 4 + 1024 * 1024 * 2;
			name = "SOFT_MAX f32 [1024,1024,4] mask f16";
		} else {
			struct ggml_tensor *a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 128, 32, 512);
			struct ggml_tensor *p = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 512);
			bench_fill_f32(a->data, 128 * 32 * 512, 5);
			for (int i = 0; i < 512; i++)
				((int32_t *)p->data)[i] = i;
			out = ggml_rope_ext(ctx, a, p, NULL, 128, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
			bytes = 2.0 * 128 * 32 * 512 * 4;
			name = "ROPE     f32 [128,32,512] neox";
		}
		struct ggml_cgraph *gf = ggml_new_graph(ctx);
		ggml_build_forward_expand(gf, out);
		for (int it = 0; it < nt; it++) {
			const int nth = ths[it];
			double t = time_graph(gf, nth, quick ? 5 : 20);
			double gbs = bytes / t * 1e-9;
			printf("%-38s %dT %10.1f us %6.1f GB/s  %5.1f%% of read BW\n", name, nth, t * 1e6, gbs,
			       100 * gbs / read_gbs[nth]);
			fflush(stdout);
		}
	}
	ggml_free(ctx);
}

/*
 * FLASH_ATTN_EXT, F32 Q, F16 K/V and an F16 mask of zeros: head dim 128,
 * 32 heads, n_kv 512 and 4096, n_q 1 and 512; n_kv 4096 also with Q8_0 K/V
 * (a quantized KV cache: converted to F32 per chunk of keys). FLOPs = 4 n_q n_head n_kv D
 * (Q.K and P.V), against the FMA peak; n_q = 1 reads K and V once, so also
 * GB/s against the read bandwidth. The scalar reference path is timed in the
 * same run; for n_q = 512 on the first 32 queries only (a view of Q; its
 * cost is linear in n_q) and scaled by 16, else it would take minutes.
 */
static void bench_flash_attn(const int *ths, int nt, int quick)
{
	const int64_t D = 128, H = 32;
	static const int64_t nkvs[2] = { 512, 4096 }, nqs[2] = { 1, 512 };
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 2; b++) {
			const int64_t NKV = nkvs[a > 0], NQ = nqs[b], NQR = NQ > 32 ? 32 : NQ;
			const enum ggml_type kvt = a == 2 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
			const size_t bytes = (size_t)(D * NQ * H * 4 * 2 + 2 * D * NKV * H * 2 + NKV * GGML_PAD(NQ, 64) * 2);
			struct ggml_init_params ip = { bytes + 16 * 1024 * 1024, NULL, false };
			struct ggml_context *ctx = ggml_init(ip);
			struct ggml_tensor *q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, NQ, H);
			struct ggml_tensor *k = ggml_new_tensor_3d(ctx, kvt, D, NKV, H);
			struct ggml_tensor *v = ggml_new_tensor_3d(ctx, kvt, D, NKV, H);
			struct ggml_tensor *m = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, NKV, GGML_PAD(NQ, 64));
			bench_fill_f32(q->data, D * NQ * H, 11);
			{
				float *tmp = malloc(sizeof(float) * D * NKV);
				for (int64_t h = 0; h < H; h++) {
					/* start 0: ggml_quantize_chunk offsets the source by start too */
					bench_fill_f32(tmp, D * NKV, 12 + h);
					ggml_quantize_chunk(kvt, tmp, (char *)k->data + h * k->nb[2], 0, NKV, D, NULL);
					bench_fill_f32(tmp, D * NKV, 100 + h);
					ggml_quantize_chunk(kvt, tmp, (char *)v->data + h * v->nb[2], 0, NKV, D, NULL);
				}
				free(tmp);
			}
			memset(m->data, 0, ggml_nbytes(m));
			const float scale = 0.08838835f; /* 1/sqrt(128) */
			struct ggml_tensor *out = ggml_flash_attn_ext(ctx, q, k, v, m, scale, 0.0f, 0.0f);
			struct ggml_cgraph *gf = ggml_new_graph(ctx);
			ggml_build_forward_expand(gf, out);
			struct ggml_tensor *qr = ggml_view_3d(ctx, q, D, NQR, H, q->nb[1], q->nb[2], 0);
			struct ggml_tensor *outr = ggml_flash_attn_ext(ctx, qr, k, v, m, scale, 0.0f, 0.0f);
			struct ggml_cgraph *gfr = ggml_new_graph(ctx);
			ggml_build_forward_expand(gfr, outr);
			const double flops = 4.0 * NQ * H * NKV * D, kvbytes = (double)(ggml_nbytes(k) + ggml_nbytes(v));
			for (int it = 0; it < nt; it++) {
				const int nth = ths[it];
				double t = time_graph(gf, nth, quick ? 3 : (NQ == 1 ? 21 : 7));
				plan_use_ref = true;
				double tr = time_graph(gfr, nth, quick ? 1 : 3) * ((double)NQ / NQR);
				plan_use_ref = false;
				double gf_s = flops / t * 1e-9, gbs = kvbytes / t * 1e-9;
				printf("FLASH_ATTN_EXT %-4s D=128 H=32 n_kv=%-4lld n_q=%-3lld %dT %9.1f us %6.1f GFLOPS %5.1f%% of FMA peak",
				       ggml_type_name(kvt), (long long)NKV, (long long)NQ, nth, t * 1e6, gf_s,
				       100 * gf_s / peak_gflops[nth]);
				if (NQ == 1)
					printf(", K/V %5.1f GB/s %5.1f%% of read BW", gbs, 100 * gbs / read_gbs[nth]);
				printf("; scalar path %10.1f us%s: x%.1f\n", tr * 1e6, NQ > NQR ? " (scaled)" : "", tr / t);
				fflush(stdout);
			}
			ggml_free(ctx);
		}
}

/*
 * CONV_2D (ggml_conv_2d_direct): a 3x3 kernel, 64 -> 64 channels, a
 * 128x128 F32 input padded to a 128x128 output, F32 and F16 kernels. The
 * fast path (im2col tiles and the F32 GEMM) and the scalar reference path
 * alternate, rounds times; medians of each, FLOPs = 2 OH OW OC IC KH KW.
 */
static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void bench_conv_2d(const int *ths, int nt, int quick)
{
	const int64_t W = 128, H = 128, IC = 64, OC = 64, KS = 3;
	const int rounds = quick ? 3 : 5;
	for (int kt = 0; kt < 2; kt++) {
		const enum ggml_type ktype = kt ? GGML_TYPE_F16 : GGML_TYPE_F32;
		struct ggml_init_params ip = { 64 * 1024 * 1024, NULL, false };
		struct ggml_context *ctx = ggml_init(ip);
		struct ggml_tensor *k = ggml_new_tensor_4d(ctx, ktype, KS, KS, IC, OC);
		struct ggml_tensor *b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, W, H, IC, 1);
		{
			float *tmp = malloc(sizeof(float) * KS * KS * IC * OC);
			bench_fill_f32(tmp, KS * KS * IC * OC, 21);
			if (kt)
				ggml_fp32_to_fp16_row(tmp, k->data, KS * KS * IC * OC);
			else
				memcpy(k->data, tmp, ggml_nbytes(k));
			free(tmp);
		}
		bench_fill_f32(b->data, W * H * IC, 22);
		struct ggml_tensor *out = ggml_conv_2d_direct(ctx, k, b, 1, 1, 1, 1, 1, 1);
		struct ggml_cgraph *gf = ggml_new_graph(ctx);
		ggml_build_forward_expand(gf, out);
		const double flops = 2.0 * W * H * OC * IC * KS * KS;
		for (int it = 0; it < nt; it++) {
			const int nth = ths[it];
			struct ggml_cplan plan = ggml_graph_plan(gf, nth, pools[nth]);
			void *work = plan.work_size ? malloc(plan.work_size) : NULL;
			plan.work_data = work;
			double tf[8], tr[8];
			ggml_graph_compute(gf, &plan); /* warm-up */
			for (int r = 0; r < rounds; r++) {
				for (int ref = 0; ref < 2; ref++) {
					plan.use_ref = ref;
					const double t0 = bench_clock();
					if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) {
						fprintf(stderr, "compute failed\n");
						exit(1);
					}
					(ref ? tr : tf)[r] = (bench_clock() - t0) / (bench_cpu_time ? nth : 1);
				}
			}
			free(work);
			qsort(tf, rounds, sizeof(double), cmp_double);
			qsort(tr, rounds, sizeof(double), cmp_double);
			const double f = tf[rounds / 2], rf = tr[rounds / 2];
			printf("CONV_2D  %s kernel 3x3 64->64 128x128 %dT %9.1f ms %6.1f GFLOPS %5.1f%% of FMA peak; "
			       "scalar path %9.1f ms: x%.1f\n",
			       ggml_type_name(ktype), nth, f * 1e3, flops / f * 1e-9, 100 * flops / f * 1e-9 / peak_gflops[nth],
			       rf * 1e3, rf / f);
			fflush(stdout);
		}
		ggml_free(ctx);
	}
}

static int parse_list(const char *s, int *out, int max)
{
	int n = 0;
	while (*s && n < max) {
		out[n++] = atoi(s);
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
	}
	return n;
}

int main(int argc, char **argv)
{
	int ths[2] = { 1, 2 }, nt = 2;
	int ns[8] = { 1, 8, 512 }, nn = 3;
	int quick = 0, only_other = 0, only_mm = 0, only_conv = 0, no_limits = 0;
	struct shape shapes[8] = { { 4096, 14336 } };
	int nshapes = 1;
	enum ggml_type types[8] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
				    GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	int ntypes = 7;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			quick = 1;
		else if (!strcmp(argv[i], "--cpu-time"))
			bench_cpu_time = 1;
		else if (!strcmp(argv[i], "-R"))
			bench_repack = 1;
		else if (!strcmp(argv[i], "--raw"))
			bench_raw = 1;
		else if (!strcmp(argv[i], "--no-limits"))
			no_limits = 1;
		else if (!strcmp(argv[i], "-S") && i + 1 < argc) {
			nshapes = 0;
			for (const char *p = argv[++i]; *p && nshapes < 8;) {
				char *e;
				shapes[nshapes].rows = strtoll(p, &e, 10);
				shapes[nshapes].cols = *e == 'x' ? strtoll(e + 1, &e, 10) : 0;
				if (shapes[nshapes].rows < 1 || shapes[nshapes].cols < 256 || shapes[nshapes].cols % 256) {
					fprintf(stderr, "-S: rows x cols, cols a multiple of 256\n");
					return 2;
				}
				nshapes++;
				p = *e == ',' ? e + 1 : e;
			}
		}
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nt = parse_list(argv[++i], ths, 2);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nn = parse_list(argv[++i], ns, 8);
		else if (!strcmp(argv[i], "--mm"))
			only_mm = 1;
		else if (!strcmp(argv[i], "--other"))
			only_other = 1;
		else if (!strcmp(argv[i], "--conv"))
			only_conv = 1;
		else if (!strcmp(argv[i], "-T") && i + 1 < argc) {
			ntypes = 0;
			char *list = strdup(argv[++i]);
			for (char *tok = strtok(list, ","); tok && ntypes < 8; tok = strtok(NULL, ","))
				for (int t = 0; t < GGML_TYPE_COUNT; t++)
					if (ggml_type_name(t) && !strcmp(ggml_type_name(t), tok))
						types[ntypes++] = t;
			free(list);
		} else {
			fprintf(stderr, "usage: %s [-q] [-t 1,2] [-n 1,8,512] [-T f32,q8_0,...] [-S 4096x14336,...]\n"
					"       [--mm|--other|--conv] [-R] [--cpu-time] [--no-limits] [--raw]\n",
				argv[0]);
			return 2;
		}
	}
	for (int i = 0; i < nt; i++)
		if (ths[i] < 1 || ths[i] > 2) {
			fprintf(stderr, "threads: 1 or 2\n");
			return 2;
		}
	ggml_cpu_init();
	if (!no_limits)
		measure_limits(2, quick);
	for (int nth = 1; nth <= 2; nth++) {
		struct ggml_threadpool_params p = ggml_threadpool_params_default(nth);
		pools[nth] = ggml_threadpool_new(&p);
	}
	if (only_conv) {
		bench_conv_2d(ths, nt, quick);
		only_mm = 1;
		only_other = 1;
	}
	if (!only_other)
		for (int is = 0; is < nshapes; is++)
			for (int t = 0; t < ntypes; t++)
				bench_mul_mat(types[t], shapes[is], ns, nn, ths, nt, quick);
	if (!only_mm)
		bench_other(ths, nt, quick);
	if (!only_mm)
		bench_flash_attn(ths, nt, quick);
	if (!only_mm)
		bench_conv_2d(ths, nt, quick);
	for (int nth = 1; nth <= 2; nth++)
		ggml_threadpool_free(pools[nth]);
	return 0;
}
