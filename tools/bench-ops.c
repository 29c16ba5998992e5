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
 *   bench-ops [-q] [-t 1,2] [-T type,...] [-n 1,8,512] [-S 4096x14336,...] [--mm|--other|--fa|--conv|--elt|--load] [--cpu-time]
 *     --conv  CONV_2D only (fast and scalar paths alternately)
 *     --fa    FLASH_ATTN_EXT only: head-major K/V, and a KV cache's layout
 *             at decode
 *     --elt   element-wise ops only, against the copy bandwidth and a single
 *             pass (see bench_eltwise); -O ADD,NORM,... those ops only
 *             (names as printed, up to a space), -r 4096 one row count
 *     -S   weight shapes, rows x columns (ggml ne01 x ne00); decode products
 *          cycle through copies of the weights adding up to 128 MiB, so
 *          that they stream from DRAM, not from a last-level cache, and
 *          (n <= 8) are also compared with a plain read of the same bytes
 *          timed alternately ("same bytes read", see read_job)
 *     -q   quick: fewer repetitions, n=512 for f32/f16/q8_0 only
 *     -R   weights also in the CPU device's repacking extra buffer type
 *          (CPU_REPACK; found through ggml_backend_dev_get_extra_bufts,
 *          used where the device's supports_op takes them, as llama.cpp
 *          does), timed alternately with the plain ones (five rounds,
 *          median of each): prints the "+rp" time and plain / rp
 *     --raw  a tab-separated line per product (RAW, mm, type, shape, n,
 *          threads, plain ms, repacked ms or -1) for tools/bench-upstream.sh
 *     --no-limits  skip measuring the FMA peak and read bandwidth
 *     --load  only loading weights: set_tensor of each -T type's -S matrices
 *          (random bytes) into the repacking buffer type where it takes
 *          them, beside memcpy of the same bytes (five rounds alternating,
 *          -q three, medians): GB/s and the ratio to memcpy's speed; in
 *          gaccel, with the portable packers and the SIMD ones alternately
 *     --cpu-time  time by the process's CPU time over the thread count
 *                 instead of the wall clock, limits included (on a shared
 *                 machine: leaves out the time spent waiting for a core)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
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

/* Copies of the weights until they are four times the size of a 32 MiB
 * last-level cache (at most 16; copies 1.. are byte copies of copy 0): decode
 * figures are then DRAM figures. With twice the cache (64 MiB) the products
 * of the shapes cycling two to eight copies still hit the cache part of the
 * time on Zen 5 (repacked Q4_0 14336 x 4096, one thread: 42 GB/s with two
 * copies, 31 with eight, against 31 for 4096 x 128256, one copy). */
#define STREAM_BYTES ((size_t)128 << 20)
#define MAX_COPIES 16

/*
 * The same-bytes read: the weights a product reads, read by a plain sum in
 * four streams per thread (each thread a contiguous share), timed like the
 * product (copy r % ncopy at repetition r, median) and alternated with it.
 * The machine's read bandwidth moves by up to 1.5 times within minutes when
 * it is shared; a product measured against this read of the same bytes at
 * the same time tells how well it streams.
 */
struct read_job {
	const char *const *bufs;
	int ncopy, nth, reps;
	size_t bytes;
	_Atomic int arrive, gen;
	volatile float sink;
};

#if defined(__x86_64__)
__attribute__((target("avx2")))
#endif
static float read_share(const char *p, size_t n)
{
	const size_t q = n / 4 / 64 * 64;
#if defined(__x86_64__)
	__m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
	for (size_t i = 0; i < q; i += 64) {
		s0 = _mm256_add_ps(s0, _mm256_add_ps(_mm256_loadu_ps((const float *)(p + i)),
						     _mm256_loadu_ps((const float *)(p + i + 32))));
		s1 = _mm256_add_ps(s1, _mm256_add_ps(_mm256_loadu_ps((const float *)(p + q + i)),
						     _mm256_loadu_ps((const float *)(p + q + i + 32))));
		s2 = _mm256_add_ps(s2, _mm256_add_ps(_mm256_loadu_ps((const float *)(p + 2 * q + i)),
						     _mm256_loadu_ps((const float *)(p + 2 * q + i + 32))));
		s3 = _mm256_add_ps(s3, _mm256_add_ps(_mm256_loadu_ps((const float *)(p + 3 * q + i)),
						     _mm256_loadu_ps((const float *)(p + 3 * q + i + 32))));
	}
	float out[8];
	_mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
	return out[0] + out[7];
#else
	uint64_t s = 0;
	for (size_t i = 0; i < q; i += 64) {
		uint64_t a, b, c, d;
		memcpy(&a, p + i, 8), memcpy(&b, p + q + i, 8), memcpy(&c, p + 2 * q + i, 8), memcpy(&d, p + 3 * q + i, 8);
		s += a ^ b ^ c ^ d;
	}
	return (float)(s & 0xffff);
#endif
}

static void read_barrier(struct read_job *j, int *gen)
{
	if (atomic_fetch_add(&j->arrive, 1) == j->nth - 1) {
		atomic_store(&j->arrive, 0);
		atomic_fetch_add(&j->gen, 1);
	} else {
		while (atomic_load(&j->gen) == *gen)
			;
	}
	(*gen)++;
}

/* thread ith's reads; thread 0 times them into t */
static void read_loop(struct read_job *j, int ith, double *t)
{
	int gen = 0;
	const size_t share = j->bytes / j->nth / 256 * 256;
	float s = 0;
	for (int r = 0; r < j->reps; r++) {
		read_barrier(j, &gen);
		const double t0 = ith == 0 ? bench_clock() : 0;
		s += read_share(j->bufs[r % j->ncopy] + (size_t)ith * share, share);
		read_barrier(j, &gen);
		if (ith == 0)
			t[r] = (bench_clock() - t0) / (bench_cpu_time ? j->nth : 1);
	}
	j->sink += s;
}

struct read_arg {
	struct read_job *j;
	int ith;
};

static void *read_main(void *arg)
{
	struct read_arg *a = arg;
	read_loop(a->j, a->ith, NULL);
	return NULL;
}

/* median seconds of a same-bytes read of reps copies (see read_job) */
static double time_reads(const char *const *bufs, int ncopy, size_t bytes, int nth, int reps)
{
	struct read_job j = { bufs, ncopy, nth, reps, bytes, 0, 0, 0 };
	pthread_t th[BENCH_MAX_THREADS];
	struct read_arg a[BENCH_MAX_THREADS];
	for (int i = 1; i < nth; i++) {
		a[i] = (struct read_arg){ &j, i };
		pthread_create(&th[i], NULL, read_main, &a[i]);
	}
	double *t = malloc(sizeof(double) * (reps + 1));
	/* one pass more first, as the products' warm-up */
	j.reps = reps + 1;
	read_loop(&j, 0, t);
	for (int i = 1; i < nth; i++)
		pthread_join(th[i], NULL);
	const double share = (double)(bytes / nth / 256 * 256) * nth / bytes;
	double m = bench_median(t + 1, reps) / share;
	free(t);
	return m;
}

static int bench_repack; /* -R */
static int bench_raw;    /* --raw */

static void bench_mul_mat(enum ggml_type type, struct shape sh, const int *ns, int nn, const int *ths, int nt,
			  int quick)
{
	const int64_t K = sh.cols, M = sh.rows;
	const size_t wbytes = ggml_row_size(type, K) * M;
	int ncopy = (int)((STREAM_BYTES + wbytes - 1) / wbytes);
	ncopy = ncopy < 1 ? 1 : ncopy > MAX_COPIES ? MAX_COPIES : ncopy;
	struct ggml_init_params ip = { wbytes * ncopy + (size_t)K * 512 * 4 + (size_t)M * 512 * 4 * ncopy +
					       64 * 1024 * 1024,
				       NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	if (!ctx) {
		fprintf(stderr, "no memory for %s\n", ggml_type_name(type));
		return;
	}
	struct ggml_tensor *w[MAX_COPIES];
	/* a flat importance matrix for the types that need one (IQ2_XXS, ...) */
	float *im = NULL;
	if (ggml_quantize_requires_imatrix(type)) {
		im = malloc(K * sizeof(float));
		for (int64_t k = 0; k < K; k++)
			im[k] = 1.0f;
	}
	for (int c = 0; c < ncopy; c++) {
		w[c] = ggml_new_tensor_2d(ctx, type, K, M);
		if (c > 0) {
			memcpy(w[c]->data, w[0]->data, wbytes);
			continue;
		}
		float *tmp = malloc(K * 64 * sizeof(float));
		for (int64_t r = 0; r < M; r += 64) {
			const int64_t nr = r + 64 < M ? 64 : M - r;
			bench_fill_f32(tmp, K * nr, (unsigned)(r + 7919 * c));
			ggml_quantize_chunk(type, tmp, (char *)w[c]->data + r * ggml_row_size(type, K), 0, nr, K, im);
		}
		free(tmp);
	}
	free(im);
	/* the same weights in the repacking extra buffer type, if it takes them */
	ggml_backend_buffer_type_t rbuft = bench_repack ? bench_extra_buft() : NULL;
	const bool rp = rbuft && bench_buft_takes(rbuft, w[0], 1);
	struct ggml_tensor *wr[MAX_COPIES];
	struct ggml_context *rctx = NULL;
	ggml_backend_buffer_t rbuf = NULL;
	if (rp) {
		struct ggml_init_params rip = { ggml_tensor_overhead() * MAX_COPIES, NULL, true };
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
		struct ggml_cgraph *gf[MAX_COPIES], *gr[MAX_COPIES];
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
			double t, trp = 0, trd = 0;
			/* mat-vec: the same bytes read alternately (read_job) */
			const char *rb[MAX_COPIES];
			for (int c = 0; c < ng; c++)
				rb[c] = (const char *)(rp ? wr[c] : w[c])->data;
			if (rp) {
				double tp[5], tr[5], td[5];
				for (int round = 0; round < 5; round++) {
					tp[round] = time_graphs(gf, ng, nth, reps);
					if (N <= 8 && round % 2)
						td[round] = time_reads(rb, ng, wbytes, nth, reps);
					tr[round] = time_graphs(gr, ng, nth, reps);
					if (N <= 8 && round % 2 == 0)
						td[round] = time_reads(rb, ng, wbytes, nth, reps);
				}
				t = bench_median(tp, 5);
				trp = bench_median(tr, 5);
				trd = N <= 8 ? bench_median(td, 5) : 0;
			} else {
				t = time_graphs(gf, ng, nth, reps);
				trd = N <= 8 ? time_reads(rb, ng, wbytes, nth, reps) : 0;
			}
			double gflops = 2.0 * M * N * K / t * 1e-9;
			double gbs = wbytes / t * 1e-9;
			char of[48];
			/* quantized weights: also against the int8 dot peak,
			 * the units their GEMMs run on */
			const int q8 = N > 8 && ggml_is_quantized(type) && bench_int8_gops[nth] > 0;
			printf("MUL_MAT %-5s %lldx%lld n=%-4lld %dT %10.1f us %7.1f GFLOPS %6.1f GB/s%s",
			       ggml_type_name(type), (long long)M, (long long)K, (long long)N, nth, t * 1e6, gflops, gbs,
			       N <= 8 ? bench_of(of, sizeof(of), gbs, read_gbs[nth], "read BW") :
					bench_of(of, sizeof(of), gflops, peak_gflops[nth], "FMA peak"));
			if (q8)
				printf(", %5.1f%% of int8 peak", 100 * gflops / bench_int8_gops[nth]);
			if (trd > 0 && !rp)
				printf(", %5.1f%% of the same bytes read (%.1f GB/s)", 100 * trd / t, wbytes / trd * 1e-9);
			printf("\n");
			if (rp) {
				const double rgb = wbytes / trp * 1e-9, rgf = 2.0 * M * N * K / trp * 1e-9;
				printf("MUL_MAT %-5s %lldx%lld n=%-4lld %dT %10.1f us %7.1f GFLOPS %6.1f GB/s%s",
				       ggml_type_name(type), (long long)M, (long long)K, (long long)N, nth, trp * 1e6, rgf,
				       rgb, N <= 8 ? bench_of(of, sizeof(of), rgb, read_gbs[nth], "read BW") :
						    bench_of(of, sizeof(of), rgf, peak_gflops[nth], "FMA peak"));
				if (q8)
					printf(", %5.1f%% of int8 peak", 100 * rgf / bench_int8_gops[nth]);
				printf("  +rp, plain/rp %.2f", t / trp);
				if (trd > 0)
					printf("; same bytes read %.1f GB/s: plain %.1f%%, rp %.1f%%", wbytes / trd * 1e-9,
					       100 * trd / t, 100 * trd / trp);
				printf("\n");
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
			char of[48];
			printf("%-38s %dT %10.1f us %6.1f GB/s%s\n", name, nth, t * 1e6, gbs,
			       bench_of(of, sizeof(of), gbs, read_gbs[nth], "read BW"));
			fflush(stdout);
		}
	}
	ggml_free(ctx);
}

/* ---- element-wise ops against a copy -------------------------------------
 *
 * Each element-wise op (binary, SCALE, SILU, SWIGLU, GEGLU, NORM, RMS_NORM,
 * SOFT_MAX without and with an F16 causal mask shared by heads of 64 rows,
 * ROPE, CPY between F32 and F16/BF16) on F32 tensors of 4096 x
 * rows: 4096 rows (64 MiB per tensor, larger than a 32 MiB L3: from DRAM)
 * and 8, 64 and 512 rows (in cache). Bytes = every source's bytes + dst's.
 * Two yardsticks, both at the same thread count and in the same run:
 *  - the copy bandwidth: 256 MiB copied into another 256 MiB in one chunk
 *    per thread, by memcpy (non-temporal stores at that size) and by a
 *    loop of vector loads and ordinary stores, alternately, the best of 5
 *    of each, the faster of the two (bytes read + written per second);
 *  - a single pass: a CPY node F32 -> F32 (a copy through the same graph
 *    machinery) of as many bytes (read + written) as the op moves, timed
 *    alternately with the op (median of each); "x pass" = its time over the
 *    op's (1 or more: the op is not slower than one pass over its bytes).
 */
static double copy_gbs[BENCH_MAX_THREADS + 1];
static const char *elt_only; /* -O: ops whose name starts with one of these (comma-separated) */
static int elt_rows_only;    /* -r: only this row count */

struct copy_par {
	char *dst;
	const char *src;
	size_t n;
	pthread_barrier_t *bar;
};

/* the other copy: vector loads and ordinary stores, as the ops write */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static void copy_loop(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i + 128 <= n; i += 128) {
		const __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
		const __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
		const __m256i c = _mm256_loadu_si256((const __m256i *)(src + i + 64));
		const __m256i d = _mm256_loadu_si256((const __m256i *)(src + i + 96));
		_mm256_storeu_si256((__m256i *)(dst + i), a);
		_mm256_storeu_si256((__m256i *)(dst + i + 32), b);
		_mm256_storeu_si256((__m256i *)(dst + i + 64), c);
		_mm256_storeu_si256((__m256i *)(dst + i + 96), d);
	}
}
#else
static void copy_loop(char *dst, const char *src, size_t n)
{
	const float *s = (const float *)src;
	float *d = (float *)dst;
	for (size_t i = 0; i < n / sizeof(float); i++)
		d[i] = s[i];
}
#endif

struct copy_par_kind {
	struct copy_par p;
	int loop;
};

static void *copy_main(void *arg)
{
	struct copy_par_kind *w = arg;
	pthread_barrier_wait(w->p.bar);
	if (w->loop)
		copy_loop(w->p.dst, w->p.src, w->p.n);
	else
		memcpy(w->p.dst, w->p.src, w->p.n);
	return NULL;
}

static void measure_copy(int max_threads)
{
	const size_t n = (size_t)256 << 20, huge = (size_t)2 << 20;
	char *map = mmap(NULL, 2 * n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "no memory for the copy test\n");
		exit(1);
	}
	char *src = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1)), *dst = src + n;
	(void)madvise(src, 2 * n, MADV_HUGEPAGE);
	memset(src, 1, n);
	memset(dst, 2, n);
	for (int nth = 1; nth <= max_threads; nth++) {
		double best = 0, bestk[2] = { 0, 0 };
		for (int r = 0; r < 10; r++) {
			pthread_t th[BENCH_MAX_THREADS];
			struct copy_par_kind w[BENCH_MAX_THREADS];
			pthread_barrier_t bar;
			pthread_barrier_init(&bar, NULL, nth + 1);
			for (int i = 0; i < nth; i++) {
				w[i] = (struct copy_par_kind){ { dst + i * (n / nth), src + i * (n / nth), n / nth, &bar },
							       r & 1 };
				pthread_create(&th[i], NULL, copy_main, &w[i]);
			}
			const double t0 = bench_clock();
			pthread_barrier_wait(&bar);
			for (int i = 0; i < nth; i++)
				pthread_join(th[i], NULL);
			const double t = (bench_clock() - t0) / (bench_cpu_time ? nth : 1);
			pthread_barrier_destroy(&bar);
			const double g = 2.0 * n / t * 1e-9;
			best = g > best ? g : best;
			bestk[r & 1] = g > bestk[r & 1] ? g : bestk[r & 1];
		}
		copy_gbs[nth] = best;
		printf("limits  %d thread%s: copy (read + written) %5.1f GB/s (memcpy %5.1f, vector loop %5.1f)%s\n", nth,
		       nth > 1 ? "s" : " ", best, bestk[0], bestk[1], bench_cpu_time ? " (CPU time)" : "");
	}
	munmap(map, 2 * n + huge);
	fflush(stdout);
}

enum elt_op {
	E_ADD, E_ADD_B, E_SUB, E_MUL, E_MUL_B, E_DIV, E_SCALE, E_SILU, E_SWIGLU, E_GEGLU, E_NORM, E_RMS_NORM,
	E_RMS_MUL, E_SOFT_MAX, E_SOFT_MAX_MASK, E_ROPE, E_F32_F16, E_F16_F32, E_F32_BF16, E_BF16_F32, E_COUNT
};

static const char *const elt_names[E_COUNT] = {
	"ADD", "ADD bcast row", "SUB", "MUL", "MUL bcast row", "DIV", "SCALE", "SILU", "SWIGLU", "GEGLU", "NORM",
	"RMS_NORM", "RMS_NORM+MUL", "SOFT_MAX", "SOFT_MAX mask", "ROPE neox", "CPY f32->f16", "CPY f16->f32", "CPY f32->bf16",
	"CPY bf16->f32",
};

static struct ggml_tensor *elt_f32(struct ggml_context *ctx, int64_t ne0, int64_t ne1, unsigned seed)
{
	struct ggml_tensor *t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
	bench_fill_f32(t->data, (size_t)ne0 * ne1, seed);
	return t;
}

/* the op's output over a [ne0, rows] F32 input (rows a multiple of 8) */
static struct ggml_tensor *elt_build(struct ggml_context *ctx, enum elt_op op, int64_t ne0, int64_t rows)
{
	struct ggml_tensor *a = elt_f32(ctx, ne0, rows, 31), *b;
	switch (op) {
	case E_ADD: return ggml_add(ctx, a, elt_f32(ctx, ne0, rows, 32));
	case E_ADD_B: return ggml_add(ctx, a, elt_f32(ctx, ne0, 1, 32));
	case E_SUB: return ggml_sub(ctx, a, elt_f32(ctx, ne0, rows, 32));
	case E_MUL: return ggml_mul(ctx, a, elt_f32(ctx, ne0, rows, 32));
	case E_MUL_B: return ggml_mul(ctx, a, elt_f32(ctx, ne0, 1, 32));
	case E_DIV:
		b = elt_f32(ctx, ne0, rows, 32);
		for (int64_t i = 0; i < ne0 * rows; i++)
			((float *)b->data)[i] += 2.0f;
		return ggml_div(ctx, a, b);
	case E_SCALE: return ggml_scale(ctx, a, 0.37f);
	case E_SILU: return ggml_silu(ctx, a);
	case E_SWIGLU: return ggml_swiglu_split(ctx, a, elt_f32(ctx, ne0, rows, 32));
	case E_GEGLU: return ggml_geglu_split(ctx, a, elt_f32(ctx, ne0, rows, 32));
	case E_NORM: return ggml_norm(ctx, a, 1e-5f);
	case E_RMS_NORM: return ggml_rms_norm(ctx, a, 1e-5f);
	case E_RMS_MUL: return ggml_mul(ctx, ggml_rms_norm(ctx, a, 1e-5f), elt_f32(ctx, ne0, 1, 32));
	case E_SOFT_MAX: return ggml_soft_max_ext(ctx, a, NULL, 0.125f, 0.0f);
	case E_SOFT_MAX_MASK: {
		/* as attention without flash attention: heads of up to 64 queries
		 * over 4096 keys, an F16 causal mask [4096, queries] shared by the heads */
		const int64_t nq = rows < 64 ? rows : 64;
		struct ggml_tensor *x = ggml_reshape_3d(ctx, a, ne0, nq, rows / nq);
		struct ggml_tensor *m = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, ne0, nq);
		for (int64_t q = 0; q < nq; q++)
			for (int64_t k = 0; k < ne0; k++)
				((ggml_fp16_t *)m->data)[q * ne0 + k] =
					ggml_fp32_to_fp16(k > ne0 - nq + q ? -HUGE_VALF : 0.0f);
		return ggml_soft_max_ext(ctx, x, m, 0.125f, 0.0f);
	}
	case E_ROPE: {
		/* heads of 128, 32 per position */
		struct ggml_tensor *x = ggml_reshape_3d(ctx, a, 128, 32, ne0 * rows / (128 * 32));
		struct ggml_tensor *p = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, x->ne[2]);
		for (int64_t i = 0; i < x->ne[2]; i++)
			((int32_t *)p->data)[i] = (int32_t)i;
		return ggml_rope_ext(ctx, x, p, NULL, 128, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f,
				     1.0f);
	}
	case E_F32_F16: return ggml_cpy(ctx, a, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, ne0, rows));
	case E_F32_BF16: return ggml_cpy(ctx, a, ggml_new_tensor_2d(ctx, GGML_TYPE_BF16, ne0, rows));
	case E_F16_F32:
	case E_BF16_F32: {
		const enum ggml_type t = op == E_F16_F32 ? GGML_TYPE_F16 : GGML_TYPE_BF16;
		struct ggml_tensor *h = ggml_new_tensor_2d(ctx, t, ne0, rows);
		if (t == GGML_TYPE_F16)
			ggml_fp32_to_fp16_row(a->data, h->data, ne0 * rows);
		else
			ggml_fp32_to_bf16_row(a->data, h->data, ne0 * rows);
		return ggml_cpy(ctx, h, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, rows));
	}
	default: return NULL;
	}
}

/* bytes read and written by the graph's nodes (a fused pair counts its
 * intermediate once written and once read, as two passes do) */
static double elt_bytes(struct ggml_cgraph *gf)
{
	double b = 0;
	for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
		struct ggml_tensor *t = ggml_graph_node(gf, i);
		if (t->op == GGML_OP_NONE || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_VIEW ||
		    t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE)
			continue;
		b += ggml_nbytes(t);
		for (int s = 0; s < GGML_MAX_SRC; s++)
			if (t->src[s] && t->src[s]->type != GGML_TYPE_I32)
				b += ggml_nbytes(t->src[s]);
	}
	return b;
}

static void bench_eltwise(const int *ths, int nt, int quick)
{
	static const int64_t rowss[4] = { 4096, 512, 64, 8 };
	const int64_t ne0 = 4096;
	printf("element-wise ops, F32 [4096, rows]: GB/s read + written, %% of the copy bandwidth, "
	       "x pass = (time of a F32 copy node of as many bytes) / (time of the op)\n");
	for (int is = 0; is < 4; is++) {
		const int64_t rows = rowss[is];
		if (elt_rows_only && rows != elt_rows_only)
			continue;
		for (int op = 0; op < E_COUNT; op++) {
			if (elt_only) {
				int hit = 0;
				for (const char *p = elt_only; *p;) {
					const size_t l = strcspn(p, ",");
					hit |= l && !strncmp(elt_names[op], p, l) &&
					       (elt_names[op][l] == 0 || elt_names[op][l] == ' ');
					p += l + (p[l] == ',');
				}
				if (!hit)
					continue;
			}
			const size_t tb = (size_t)ne0 * rows * 4;
			struct ggml_init_params ip = { 8 * tb + 16 * 1024 * 1024, NULL, false };
			struct ggml_context *ctx = ggml_init(ip);
			if (!ctx) {
				fprintf(stderr, "no memory for %s\n", elt_names[op]);
				exit(1);
			}
			struct ggml_tensor *out = elt_build(ctx, op, ne0, rows);
			struct ggml_cgraph *gf = ggml_new_graph(ctx);
			ggml_build_forward_expand(gf, out);
			const double bytes = elt_bytes(gf);
			/* the single pass: a copy of bytes / 2 */
			const int64_t nc = (int64_t)(bytes / 2 / 4 / ne0);
			struct ggml_tensor *cs = elt_f32(ctx, ne0, nc, 33);
			struct ggml_tensor *cd = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, nc);
			struct ggml_cgraph *gc = ggml_new_graph(ctx);
			ggml_build_forward_expand(gc, ggml_cpy(ctx, cs, cd));
			const double cbytes = 2.0 * ggml_nbytes(cd);
			for (int it = 0; it < nt; it++) {
				const int nth = ths[it];
				const int rounds = 5;
				const int reps = rows >= 4096 ? (quick ? 2 : 3) : (int)(quick ? 4096 / rows : 16384 / rows);
				double to[5], tc[5];
				for (int r = 0; r < rounds; r++) {
					to[r] = time_graph(gf, nth, reps);
					tc[r] = time_graph(gc, nth, reps);
				}
				const double t = bench_median(to, rounds), c = bench_median(tc, rounds);
				const double gbs = bytes / t * 1e-9;
				printf("%-14s [4096,%4lld] %dT %10.2f us %6.1f GB/s %5.1f%% of copy BW  pass %10.2f us "
				       "%6.1f GB/s  x pass %.2f\n",
				       elt_names[op], (long long)rows, nth, t * 1e6, gbs, 100 * gbs / copy_gbs[nth], c * 1e6,
				       cbytes / c * 1e-9, (c / cbytes) / (t / bytes));
				fflush(stdout);
			}
			ggml_free(ctx);
		}
	}
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
				char of[48];
				printf("FLASH_ATTN_EXT %-4s D=128 H=32 n_kv=%-4lld n_q=%-3lld %dT %9.1f us %6.1f GFLOPS%s",
				       ggml_type_name(kvt), (long long)NKV, (long long)NQ, nth, t * 1e6, gf_s,
				       bench_of(of, sizeof(of), gf_s, peak_gflops[nth], "FMA peak"));
				if (NQ == 1)
					printf(", K/V %5.1f GB/s%s", gbs, bench_of(of, sizeof(of), gbs, read_gbs[nth], "read BW"));
				printf("; scalar path %10.1f us%s: x%.1f\n", tr * 1e6, NQ > NQR ? " (scaled)" : "", tr / t);
				fflush(stdout);
			}
			ggml_free(ctx);
		}
}

/*
 * FLASH_ATTN_EXT at decode (one query) on a KV cache's layout: K and V are
 * [D * Hkv, n_kv] F16 tensors (a token's heads side by side, as llama.cpp
 * keeps them), viewed as [D, n_kv, Hkv]; Q is [D, 1, H] permuted from
 * [D, H, 1]. D 128, H 32 with Hkv 32 and 8 (GQA 4, Llama-3-8B-like), n_kv
 * 512 and 4096. GB/s of K and V against the read bandwidth.
 */
static void bench_flash_attn_cache(const int *ths, int nt, int quick)
{
	const int64_t D = 128, H = 32;
	static const int64_t nkvs[2] = { 512, 4096 }, hkvs[2] = { 32, 8 };
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			const int64_t NKV = nkvs[a], HKV = hkvs[b];
			const size_t bytes = (size_t)(D * H * 4 + 2 * D * NKV * HKV * 2 + NKV * 64 * 2);
			struct ggml_init_params ip = { bytes + 16 * 1024 * 1024, NULL, false };
			struct ggml_context *ctx = ggml_init(ip);
			struct ggml_tensor *q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, H, 1);
			struct ggml_tensor *kc = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, D * HKV, NKV);
			struct ggml_tensor *vc = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, D * HKV, NKV);
			struct ggml_tensor *m = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, NKV, 64);
			bench_fill_f32(q->data, D * H, 11);
			{
				float *tmp = malloc(sizeof(float) * D * HKV * NKV);
				bench_fill_f32(tmp, D * HKV * NKV, 12);
				ggml_fp32_to_fp16_row(tmp, kc->data, D * HKV * NKV);
				bench_fill_f32(tmp, D * HKV * NKV, 13);
				ggml_fp32_to_fp16_row(tmp, vc->data, D * HKV * NKV);
				free(tmp);
			}
			memset(m->data, 0, ggml_nbytes(m));
			struct ggml_tensor *k = ggml_permute(ctx, ggml_view_3d(ctx, kc, D, HKV, NKV, kc->nb[0] * D, kc->nb[1], 0),
							     0, 2, 1, 3);
			struct ggml_tensor *v = ggml_permute(ctx, ggml_view_3d(ctx, vc, D, HKV, NKV, vc->nb[0] * D, vc->nb[1], 0),
							     0, 2, 1, 3);
			struct ggml_tensor *out = ggml_flash_attn_ext(ctx, ggml_permute(ctx, q, 0, 2, 1, 3), k, v, m,
								      0.08838835f, 0.0f, 0.0f);
			struct ggml_cgraph *gf = ggml_new_graph(ctx);
			ggml_build_forward_expand(gf, out);
			const double kvbytes = (double)(ggml_nbytes(kc) + ggml_nbytes(vc));
			for (int it = 0; it < nt; it++) {
				const int nth = ths[it];
				const double t = time_graph(gf, nth, quick ? 3 : 21), gbs = kvbytes / t * 1e-9;
				char of[48];
				printf("FLASH_ATTN_EXT F16  cache H=32 Hkv=%-2lld n_kv=%-4lld n_q=1   %dT %9.1f us, K/V %5.1f GB/s%s\n",
				       (long long)HKV, (long long)NKV, nth, t * 1e6, gbs,
				       bench_of(of, sizeof(of), gbs, read_gbs[nth], "read BW"));
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
			char of[48];
			printf("CONV_2D  %s kernel 3x3 64->64 128x128 %dT %9.1f ms %6.1f GFLOPS%s; "
			       "scalar path %9.1f ms: x%.1f\n",
			       ggml_type_name(ktype), nth, f * 1e3, flops / f * 1e-9,
			       bench_of(of, sizeof(of), flops / f * 1e-9, peak_gflops[nth], "FMA peak"), rf * 1e3, rf / f);
			fflush(stdout);
		}
		ggml_free(ctx);
	}
}

/* ---- loading weights into the repacking buffer type ---------------------- */

/* gaccel's (cpu-impl.h; absent from other libraries: the weak reference is
 * then NULL and only the library's own choice is timed): detects the CPU
 * again, without the kernels of the extensions listed; with
 * GGML_CPU_NO_SIMD=1 in the environment, portable kernels only. */
void ggml_cpu_isa_disable(const char *list) __attribute__((weak));

static const char *const load_variants[2] = { "portable", "simd" };

/* selects the portable packers (v = 0) or the library's choice for this
 * CPU (1, as GGML_CPU_DISABLE says); 0 when there is no such choice */
static int load_variant_set(int v)
{
	if (!ggml_cpu_isa_disable)
		return v == 1;	/* the library's own, once */
	if (v == 0)
		setenv("GGML_CPU_NO_SIMD", "1", 1);
	else
		unsetenv("GGML_CPU_NO_SIMD");
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
	return 1;
}

static void bench_load(const enum ggml_type *types, int ntypes, const struct shape *shapes, int nshapes, int quick)
{
	const int rounds = quick ? 3 : 5;
	ggml_backend_buffer_type_t rbuft = bench_extra_buft();
	if (!rbuft) {
		printf("load: the CPU device has no repacking buffer type\n");
		return;
	}
	const char *saved = getenv("GGML_CPU_NO_SIMD");
	char *saved_copy = saved ? strdup(saved) : NULL;
	printf("load: set_tensor into %s (random bytes), %d rounds alternating, medians%s\n",
	       ggml_backend_buft_name(rbuft), rounds, bench_cpu_time ? ", CPU time" : "");
	printf("%-6s %-11s %7s %9s %7s  %-9s %9s %7s %8s\n", "type", "shape", "MB", "memcpy", "GB/s", "packer", "ms",
	       "GB/s", "/memcpy");
	for (int is = 0; is < nshapes; is++)
		for (int it = 0; it < ntypes; it++) {
			const enum ggml_type type = types[it];
			struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
			struct ggml_context *ctx = ggml_init(ip);
			struct ggml_tensor *w = ggml_new_tensor_2d(ctx, type, shapes[is].cols, shapes[is].rows);
			if (!bench_buft_takes(rbuft, w, 1)) {
				ggml_free(ctx);
				continue;
			}
			ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, rbuft);
			const size_t n = ggml_nbytes(w);
			uint8_t *src = malloc(n), *dst = malloc(n);
			if (!buf || !src || !dst) {
				fprintf(stderr, "load: out of memory\n");
				exit(1);
			}
			uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)type;
			for (size_t i = 0; i < n; i += 8) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				memcpy(src + i, &x, n - i < 8 ? n - i : 8);
			}
			memset(dst, 0, n);	/* fault the pages in */
			ggml_backend_tensor_set(w, src, 0, n);
			double tm[8], tv[2][8];
			int have[2] = { 0, 0 };
			for (int r = 0; r < rounds; r++) {
				double t0 = bench_clock();
				memcpy(dst, src, n);
				tm[r] = bench_clock() - t0;
				__asm__ volatile("" : : "r"(dst) : "memory");
				for (int v = 0; v < 2; v++) {
					if (!load_variant_set(v))
						continue;
					have[v] = 1;
					t0 = bench_clock();
					ggml_backend_tensor_set(w, src, 0, n);
					tv[v][r] = bench_clock() - t0;
				}
			}
			const double mc = bench_median(tm, rounds);
			char sh[32];
			snprintf(sh, sizeof(sh), "%lldx%lld", (long long)shapes[is].rows, (long long)shapes[is].cols);
			for (int v = 0; v < 2; v++) {
				if (!have[v])
					continue;
				const double t = bench_median(tv[v], rounds);
				printf("%-6s %-11s %7.1f %7.2fms %7.2f  %-9s %9.2f %7.2f %8.2f\n", ggml_type_name(type), sh,
				       n / 1e6, mc * 1e3, n / mc / 1e9, ggml_cpu_isa_disable ? load_variants[v] : "library",
				       t * 1e3, n / t / 1e9, mc / t);
			}
			free(src);
			free(dst);
			ggml_backend_buffer_free(buf);
			ggml_free(ctx);
		}
	if (saved_copy)
		setenv("GGML_CPU_NO_SIMD", saved_copy, 1);
	else
		unsetenv("GGML_CPU_NO_SIMD");
	free(saved_copy);
	if (ggml_cpu_isa_disable)
		ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
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
	int quick = 0, only_other = 0, only_mm = 0, only_conv = 0, only_elt = 0, no_limits = 0, only_load = 0, only_fa = 0;
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
		else if (!strcmp(argv[i], "--fa"))
			only_fa = 1;
		else if (!strcmp(argv[i], "--elt"))
			only_elt = 1;
		else if (!strcmp(argv[i], "-O") && i + 1 < argc)
			elt_only = argv[++i];
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			elt_rows_only = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--load"))
			only_load = 1;
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
					"       [--mm|--other|--fa|--conv|--elt [-O ops] [-r rows]|--load] [-R] [--cpu-time] [--no-limits] [--raw]\n",
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
	if (only_load) {
		if (ntypes == 7) {	/* no -T: the types the repacking buffer takes */
			const enum ggml_type lt[4] = { GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
			memcpy(types, lt, sizeof(lt));
			ntypes = 4;
		}
		bench_load(types, ntypes, shapes, nshapes, quick);
		return 0;
	}
	if (!no_limits && !only_elt)
		measure_limits(2, quick);
	if (!only_mm && !only_conv)
		measure_copy(2);
	for (int nth = 1; nth <= 2; nth++) {
		struct ggml_threadpool_params p = ggml_threadpool_params_default(nth);
		pools[nth] = ggml_threadpool_new(&p);
	}
	if (only_elt) {
		bench_eltwise(ths, nt, quick);
		only_mm = 1;
		only_other = 1;
		only_conv = 0;
	}
	if (only_fa) {
		only_mm = 1;
		only_other = 1;
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
		bench_eltwise(ths, nt, quick);
	if (!only_mm || only_fa) {
		bench_flash_attn(ths, nt, quick);
		bench_flash_attn_cache(ths, nt, quick);
	}
	if (!only_mm)
		bench_conv_2d(ths, nt, quick);
	for (int nth = 1; nth <= 2; nth++)
		ggml_threadpool_free(pools[nth]);
	return 0;
}
