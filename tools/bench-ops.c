// SPDX-License-Identifier: MIT
/*
 * bench-ops - CPU op throughput of libggml-backend against this machine's
 * own limits.
 *
 * First measures the fp32 FMA peak (independent FMA chains in registers)
 * and the DRAM read bandwidth (a sum over a 512 MiB array, four streams per
 * thread, best of 7) at 1 and 2 threads; then MUL_MAT with 4096 x 14336 weights (ne00 = 14336, ne01 =
 * 4096) and F32 activations at n = 1, 8, 512 for every weight type, and
 * ADD, RMS_NORM, SOFT_MAX, ROPE, FLASH_ATTN_EXT; each at 1 and 2 threads. Prints medians,
 * GFLOPS, GB/s and the ratio to the measured limit: mat-vec (n <= 8) against
 * the read bandwidth, n = 512 against the FMA peak.
 *
 *   bench-ops [-q] [-t 1,2] [-T type,...] [-n 1,8,512] [--mm|--other]
 *     -q   quick: fewer repetitions, n=512 for f32/f16/q8_0 only
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml.h"
#include "ggml-cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- machine limits ----------------------------------------------------- */

#define FMA_ITERS 100000000L

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static float fma_kernel(long iters)
{
	const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
	__m256 a0 = _mm256_set1_ps(0), a1 = _mm256_set1_ps(1), a2 = _mm256_set1_ps(2), a3 = _mm256_set1_ps(3);
	__m256 a4 = _mm256_set1_ps(4), a5 = _mm256_set1_ps(5), a6 = _mm256_set1_ps(6), a7 = _mm256_set1_ps(7);
	__m256 a8 = _mm256_set1_ps(8), a9 = _mm256_set1_ps(9), a10 = _mm256_set1_ps(10), a11 = _mm256_set1_ps(11);
	for (long k = 0; k < iters; k++) {
		/* 12 independent chains: enough to cover FMA latency x 2 pipes */
		a0 = _mm256_fmadd_ps(a0, m, c); a1 = _mm256_fmadd_ps(a1, m, c); a2 = _mm256_fmadd_ps(a2, m, c);
		a3 = _mm256_fmadd_ps(a3, m, c); a4 = _mm256_fmadd_ps(a4, m, c); a5 = _mm256_fmadd_ps(a5, m, c);
		a6 = _mm256_fmadd_ps(a6, m, c); a7 = _mm256_fmadd_ps(a7, m, c); a8 = _mm256_fmadd_ps(a8, m, c);
		a9 = _mm256_fmadd_ps(a9, m, c); a10 = _mm256_fmadd_ps(a10, m, c); a11 = _mm256_fmadd_ps(a11, m, c);
	}
	__m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
				 _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
	s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
	float out[8];
	_mm256_storeu_ps(out, s);
	return out[0];
}
static const double FLOPS_PER_ITER = 12 * 8 * 2;
#elif defined(__aarch64__)
static float fma_kernel(long iters)
{
	float32x4_t a[16], m = vdupq_n_f32(0.999999f), c = vdupq_n_f32(1e-7f);
	for (int i = 0; i < 16; i++)
		a[i] = vdupq_n_f32((float)i);
	for (long k = 0; k < iters; k++)
		for (int i = 0; i < 16; i++)
			a[i] = vfmaq_f32(c, a[i], m);
	float32x4_t s = a[0];
	for (int i = 1; i < 16; i++)
		s = vaddq_f32(s, a[i]);
	return vgetq_lane_f32(s, 0);
}
static const double FLOPS_PER_ITER = 16 * 4 * 2;
#else
static float fma_kernel(long iters)
{
	float a = 1;
	for (long k = 0; k < iters; k++)
		a = a * 0.999999f + 1e-7f;
	return a;
}
static const double FLOPS_PER_ITER = 2;
#endif

struct par {
	int kind; /* 0 fma, 1 read */
	long iters;
	const float *p;
	size_t n;
	volatile float sink;
	pthread_barrier_t *bar;
};

/* sums four interleaved quarters of [p, p+n) at once: four streams in flight,
 * as a kernel reading several weight rows has */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static float read_kernel(const float *p, size_t n)
{
	const size_t q = n / 4 / 32 * 32;
	const float *p0 = p, *p1 = p + q, *p2 = p + 2 * q, *p3 = p + 3 * q;
	__m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
	for (size_t i = 0; i < q; i += 16) {
		s0 = _mm256_add_ps(s0, _mm256_add_ps(_mm256_load_ps(p0 + i), _mm256_load_ps(p0 + i + 8)));
		s1 = _mm256_add_ps(s1, _mm256_add_ps(_mm256_load_ps(p1 + i), _mm256_load_ps(p1 + i + 8)));
		s2 = _mm256_add_ps(s2, _mm256_add_ps(_mm256_load_ps(p2 + i), _mm256_load_ps(p2 + i + 8)));
		s3 = _mm256_add_ps(s3, _mm256_add_ps(_mm256_load_ps(p3 + i), _mm256_load_ps(p3 + i + 8)));
	}
	float out[8];
	_mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
	return out[0] + out[7];
}
#else
static float read_kernel(const float *p, size_t n)
{
	const size_t q = n / 4;
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	for (size_t i = 0; i < q; i++) {
		s0 += p[i]; s1 += p[q + i]; s2 += p[2 * q + i]; s3 += p[3 * q + i];
	}
	return s0 + s1 + s2 + s3;
}
#endif

static void *par_main(void *arg)
{
	struct par *w = arg;
	pthread_barrier_wait(w->bar);
	w->sink = w->kind == 0 ? fma_kernel(w->iters) : read_kernel(w->p, w->n);
	return NULL;
}

/* seconds for nth threads running the kernel concurrently */
static double run_par(int nth, int kind, long iters, float *buf, size_t n)
{
	pthread_t th[8];
	struct par w[8];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, nth + 1);
	for (int i = 0; i < nth; i++) {
		w[i] = (struct par){ .kind = kind, .iters = iters, .p = buf + i * (n / nth), .n = n / nth, .bar = &bar };
		pthread_create(&th[i], NULL, par_main, &w[i]);
	}
	double t0 = now();
	pthread_barrier_wait(&bar);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	double t = now() - t0;
	pthread_barrier_destroy(&bar);
	return t;
}

static double peak_gflops[3], read_gbs[3];

static void measure_limits(int max_threads, int quick)
{
	const size_t n = (size_t)512 << 20 >> 2; /* 512 MiB of floats */
	float *buf = aligned_alloc(64, n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		buf[i] = (float)(i & 1023);
	for (int nth = 1; nth <= max_threads; nth++) {
		double best = 0;
		for (int r = 0; r < 3; r++) {
			long iters = quick ? FMA_ITERS / 4 : FMA_ITERS;
			double t = run_par(nth, 0, iters, NULL, 0);
			double g = iters * FLOPS_PER_ITER * nth / t * 1e-9;
			best = g > best ? g : best;
		}
		peak_gflops[nth] = best;
		/* the best of 7: the machine's limit, not an average under load */
		double bw = 0;
		for (int r = 0; r < 7; r++) {
			double b = n * sizeof(float) / run_par(nth, 1, 0, buf, n) * 1e-9;
			bw = b > bw ? b : bw;
		}
		read_gbs[nth] = bw;
		printf("limits  %d thread%s: fp32 FMA peak %7.1f GFLOPS, DRAM read %5.1f GB/s\n", nth, nth > 1 ? "s" : " ",
		       peak_gflops[nth], read_gbs[nth]);
	}
	free(buf);
}

/* ---- op benchmarks -------------------------------------------------------- */

static struct ggml_threadpool *pools[3];
static bool plan_use_ref; /* time the scalar reference path */

static double time_graph(struct ggml_cgraph *gf, int nth, int reps)
{
	struct ggml_cplan plan = ggml_graph_plan(gf, nth, pools[nth]);
	plan.use_ref = plan_use_ref;
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	double *t = malloc(sizeof(double) * reps);
	ggml_graph_compute(gf, &plan); /* warm-up */
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) {
			fprintf(stderr, "compute failed\n");
			exit(1);
		}
		t[r] = now() - t0;
	}
	double m = median(t, reps);
	free(t);
	free(work);
	return m;
}

static void fill_f32(float *p, size_t n, unsigned seed)
{
	uint32_t s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		p[i] = ((s >> 8) * (1.0f / 16777216.0f)) * 2 - 1;
	}
}

static void bench_mul_mat(enum ggml_type type, const int *ns, int nn, const int *ths, int nt, int quick)
{
	const int64_t K = 14336, M = 4096;
	const size_t wbytes = ggml_row_size(type, K) * M;
	struct ggml_init_params ip = { wbytes + (size_t)K * 512 * 4 + (size_t)M * 512 * 4 + 64 * 1024 * 1024, NULL, false };
	struct ggml_context *ctx = ggml_init(ip);
	if (!ctx) {
		fprintf(stderr, "no memory for %s\n", ggml_type_name(type));
		return;
	}
	struct ggml_tensor *w = ggml_new_tensor_2d(ctx, type, K, M);
	{
		float *tmp = malloc(K * 64 * sizeof(float));
		for (int64_t r = 0; r < M; r += 64) {
			fill_f32(tmp, K * 64, (unsigned)r);
			ggml_quantize_chunk(type, tmp, (char *)w->data + r * ggml_row_size(type, K), 0, 64, K, NULL);
		}
		free(tmp);
	}
	for (int in = 0; in < nn; in++) {
		const int64_t N = ns[in];
		if (quick && N == 512 && type != GGML_TYPE_F32 && type != GGML_TYPE_Q8_0 && type != GGML_TYPE_F16)
			continue;
		struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
		fill_f32(x->data, K * N, 7);
		struct ggml_tensor *y = ggml_mul_mat(ctx, w, x);
		struct ggml_cgraph *gf = ggml_new_graph(ctx);
		ggml_build_forward_expand(gf, y);
		for (int it = 0; it < nt; it++) {
			const int nth = ths[it];
			const int reps = N >= 512 ? (quick ? 1 : 3) : (quick ? 5 : 15);
			double t = time_graph(gf, nth, reps);
			double gflops = 2.0 * M * N * K / t * 1e-9;
			double gbs = wbytes / t * 1e-9;
			double ratio = N <= 8 ? gbs / read_gbs[nth] : gflops / peak_gflops[nth];
			printf("MUL_MAT %-5s n=%-4lld %dT %10.1f us %7.1f GFLOPS %6.1f GB/s  %5.1f%% of %s\n", ggml_type_name(type),
			       (long long)N, nth, t * 1e6, gflops, gbs, 100 * ratio, N <= 8 ? "read BW" : "FMA peak");
			fflush(stdout);
		}
	}
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
			fill_f32(a->data, 4096 * 512, 1);
			fill_f32(b->data, 4096 * 512, 2);
			out = ggml_add(ctx, a, b);
			bytes = 3.0 * 4096 * 512 * 4;
			name = "ADD      f32 [4096,512]+[4096,512]";
		} else if (op == 1) {
			struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 512);
			fill_f32(a->data, 4096 * 512, 3);
			out = ggml_rms_norm(ctx, a, 1e-5f);
			bytes = 2.0 * 4096 * 512 * 4;
			name = "RMS_NORM f32 [4096,512]";
		} else if (op == 2) {
			struct ggml_tensor *a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1024, 1024, 4);
			struct ggml_tensor *m = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 1024, 1024);
			fill_f32(a->data, 1024 * 1024 * 4, 4);
			memset(m->data, 0, ggml_nbytes(m));
			out = ggml_soft_max_ext(ctx, a, m, 0.125f, 0.0f);
			bytes = 2.0 * 1024 * 1024 * 4 * 4 + 1024 * 1024 * 2;
			name = "SOFT_MAX f32 [1024,1024,4] mask f16";
		} else {
			struct ggml_tensor *a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 128, 32, 512);
			struct ggml_tensor *p = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 512);
			fill_f32(a->data, 128 * 32 * 512, 5);
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
			fill_f32(q->data, D * NQ * H, 11);
			{
				float *tmp = malloc(sizeof(float) * D * NKV);
				for (int64_t h = 0; h < H; h++) {
					/* start 0: ggml_quantize_chunk offsets the source by start too */
					fill_f32(tmp, D * NKV, 12 + h);
					ggml_quantize_chunk(kvt, tmp, (char *)k->data + h * k->nb[2], 0, NKV, D, NULL);
					fill_f32(tmp, D * NKV, 100 + h);
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
	int ns[3] = { 1, 8, 512 }, nn = 3;
	int quick = 0, only_other = 0, only_mm = 0;
	enum ggml_type types[8] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
				    GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	int ntypes = 7;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			quick = 1;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nt = parse_list(argv[++i], ths, 2);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nn = parse_list(argv[++i], ns, 3);
		else if (!strcmp(argv[i], "--mm"))
			only_mm = 1;
		else if (!strcmp(argv[i], "--other"))
			only_other = 1;
		else if (!strcmp(argv[i], "-T") && i + 1 < argc) {
			ntypes = 0;
			char *list = strdup(argv[++i]);
			for (char *tok = strtok(list, ","); tok && ntypes < 8; tok = strtok(NULL, ","))
				for (int t = 0; t < GGML_TYPE_COUNT; t++)
					if (ggml_type_name(t) && !strcmp(ggml_type_name(t), tok))
						types[ntypes++] = t;
			free(list);
		} else {
			fprintf(stderr, "usage: %s [-q] [-t 1,2] [-n 1,8,512] [-T f32,q8_0,...] [--mm|--other]\n", argv[0]);
			return 2;
		}
	}
	for (int i = 0; i < nt; i++)
		if (ths[i] < 1 || ths[i] > 2) {
			fprintf(stderr, "threads: 1 or 2\n");
			return 2;
		}
	ggml_cpu_init();
	measure_limits(2, quick);
	for (int nth = 1; nth <= 2; nth++) {
		struct ggml_threadpool_params p = ggml_threadpool_params_default(nth);
		pools[nth] = ggml_threadpool_new(&p);
	}
	if (!only_other)
		for (int t = 0; t < ntypes; t++)
			bench_mul_mat(types[t], ns, nn, ths, nt, quick);
	if (!only_mm)
		bench_other(ths, nt, quick);
	if (!only_mm)
		bench_flash_attn(ths, nt, quick);
	for (int nth = 1; nth <= 2; nth++)
		ggml_threadpool_free(pools[nth]);
	return 0;
}
