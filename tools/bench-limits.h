// SPDX-License-Identifier: MIT
/*
 * bench-limits.h - what the CPU benchmarks share: a clock, medians, random
 * fills, and this machine's own limits measured in the same run (fp32 FMA
 * peak from independent FMA chains in registers, 256-bit and where the CPU
 * has AVX512F 512-bit ones, the larger; DRAM read bandwidth from a
 * sum over a 512 MiB array in four streams per thread). Header-only, for
 * tools/bench-ops.c and tools/bench-layer.c.
 */
#ifndef BENCH_LIMITS_H
#define BENCH_LIMITS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#define BENCH_MAX_THREADS 8

/* the clock of the timings: wall time, or with bench_cpu_time set the CPU
 * time of the process (all its threads) divided by the number of threads
 * working, which on a shared machine leaves out the time the threads waited
 * for a core (but counts a thread's spinning while another waits) */
static int bench_cpu_time;

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline double bench_clock(void)
{
	struct timespec ts;
	clock_gettime(bench_cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* sorts v */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(double), bench_cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* uniform in [-1, 1), a fixed sequence per seed */
static inline void bench_fill_f32(float *p, size_t n, unsigned seed)
{
	uint32_t s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		p[i] = ((s >> 8) * (1.0f / 16777216.0f)) * 2 - 1;
	}
}

#define BENCH_FMA_ITERS 100000000L

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static float bench_fma_kernel(long iters)
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
static const double BENCH_FLOPS_PER_ITER = 12 * 8 * 2;
/* the same on 512-bit vectors, where the CPU has AVX512F: on CPUs with full
 * 512-bit FMA units (Zen 5, Intel server cores) twice the 256-bit peak, on
 * those that split them (Zen 4) the same; the machine's peak is the larger
 * (16 chains: 2 pipes x latency 4 at least, 2 x 8 lanes per lane width) */
#define BENCH_HAVE_FMA512 1
__attribute__((target("avx512f"))) static float bench_fma512_kernel(long iters)
{
	const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
	__m512 a[16];
	for (int i = 0; i < 16; i++)
		a[i] = _mm512_set1_ps((float)i);
	for (long k = 0; k < iters; k++) {
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++)
			a[i] = _mm512_fmadd_ps(a[i], m, c);
	}
	__m512 s = a[0];
	for (int i = 1; i < 16; i++)
		s = _mm512_add_ps(s, a[i]);
	float out[16];
	_mm512_storeu_ps(out, s);
	return out[0];
}
/* flops of bench_fma512_kernel per iteration, per 16 ymm iterations: the
 * same wall time budget is split in iterations of equal flops */
static const double BENCH_FLOPS512_PER_ITER = 16 * 16 * 2;

/*
 * The int8 dot-product peak, for the quantized products' integer GEMMs:
 * independent accumulator chains of each integer multiply-add form the CPU
 * has, 2 operations per byte pair multiplied and added. AVX2: VPMADDUBSW,
 * VPMADDWD, VPADDD per 32 pairs (the chains get operands of their own, which
 * the empty asm keeps from being computed once for all); AVX512-VNNI:
 * VPDPBUSD on 256-bit and on 512-bit vectors. The peak is the largest.
 */
#define BENCH_HAVE_INT8 1
__attribute__((target("avx2"))) static float bench_i8_avx2_kernel(long iters)
{
	const __m256i one = _mm256_set1_epi16(1);
	__m256i a[8], u[8], s = _mm256_set1_epi8(-3);
	for (int i = 0; i < 8; i++) {
		a[i] = _mm256_set1_epi32(i);
		u[i] = _mm256_set1_epi8((char)(i + 1));
	}
	for (long k = 0; k < iters; k++) {
		__asm__("" : "+x"(s));
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++)
			a[i] = _mm256_add_epi32(a[i], _mm256_madd_epi16(_mm256_maddubs_epi16(u[i], s), one));
	}
	__m256i t = a[0];
	for (int i = 1; i < 8; i++)
		t = _mm256_add_epi32(t, a[i]);
	return (float)_mm256_extract_epi32(t, 0);
}
static const double BENCH_I8_AVX2_PER_ITER = 8 * 32 * 2;

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) static float bench_i8_vnni256_kernel(long iters)
{
	const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-5);
	__m256i a[16];
	for (int i = 0; i < 16; i++)
		a[i] = _mm256_set1_epi32(i);
	for (long k = 0; k < iters; k++) {
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++)
			a[i] = _mm256_dpbusd_epi32(a[i], u, s);
	}
	__m256i t = a[0];
	for (int i = 1; i < 16; i++)
		t = _mm256_add_epi32(t, a[i]);
	return (float)_mm256_extract_epi32(t, 0);
}
static const double BENCH_I8_VNNI256_PER_ITER = 16 * 32 * 2;

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static float bench_i8_vnni512_kernel(long iters)
{
	const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-5);
	__m512i a[16];
	for (int i = 0; i < 16; i++)
		a[i] = _mm512_set1_epi32(i);
	for (long k = 0; k < iters; k++) {
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++)
			a[i] = _mm512_dpbusd_epi32(a[i], u, s);
	}
	__m512i t = a[0];
	for (int i = 1; i < 16; i++)
		t = _mm512_add_epi32(t, a[i]);
	return (float)_mm512_reduce_add_epi32(t);
}
static const double BENCH_I8_VNNI512_PER_ITER = 16 * 64 * 2;

/* the forms this CPU has: kind 3 + index, their names and ops per iteration */
enum { BENCH_I8_FORMS = 3 };
static const char *const bench_i8_name[BENCH_I8_FORMS] = { "vpmaddubsw", "vpdpbusd ymm", "vpdpbusd zmm" };
static const double *const bench_i8_per_iter[BENCH_I8_FORMS] = { &BENCH_I8_AVX2_PER_ITER,
								  &BENCH_I8_VNNI256_PER_ITER,
								  &BENCH_I8_VNNI512_PER_ITER };
static int bench_i8_has(int form)
{
	__builtin_cpu_init();
	if (form == 0)
		return __builtin_cpu_supports("avx2");
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}
static float bench_i8_kernel(int form, long iters)
{
	return form == 0 ? bench_i8_avx2_kernel(iters) :
	       form == 1 ? bench_i8_vnni256_kernel(iters) : bench_i8_vnni512_kernel(iters);
}
#elif defined(__aarch64__)
static float bench_fma_kernel(long iters)
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
static const double BENCH_FLOPS_PER_ITER = 16 * 4 * 2;

/*
 * The int8 dot-product peak (see the x86 forms): SMULL + SADALP per 8 byte
 * pairs on every arm64 CPU, SDOT per 16 where it has the dot-product
 * extension (HWCAP_ASIMDDP).
 */
#include <sys/auxv.h>
#define BENCH_HAVE_INT8 1
static float bench_i8_neon_kernel(long iters)
{
	int32x4_t a[8];
	int8x8_t u[8], s = vdup_n_s8(-3);
	for (int i = 0; i < 8; i++) {
		a[i] = vdupq_n_s32(i);
		u[i] = vdup_n_s8((int8_t)(i + 1));
	}
	for (long k = 0; k < iters; k++) {
		__asm__("" : "+w"(s));
		for (int i = 0; i < 8; i++)
			a[i] = vpadalq_s16(a[i], vmull_s8(u[i], s));
	}
	for (int i = 1; i < 8; i++)
		a[0] = vaddq_s32(a[0], a[i]);
	return (float)vgetq_lane_s32(a[0], 0);
}
static const double BENCH_I8_NEON_PER_ITER = 8 * 8 * 2;

__attribute__((target("arch=armv8.2-a+dotprod"))) static float bench_i8_sdot_kernel(long iters)
{
	const int8x16_t u = vdupq_n_s8(3), s = vdupq_n_s8(-5);
	int32x4_t a[16];
	for (int i = 0; i < 16; i++)
		a[i] = vdupq_n_s32(i);
	for (long k = 0; k < iters; k++)
		for (int i = 0; i < 16; i++)
			a[i] = vdotq_s32(a[i], u, s);
	for (int i = 1; i < 16; i++)
		a[0] = vaddq_s32(a[0], a[i]);
	return (float)vgetq_lane_s32(a[0], 0);
}
static const double BENCH_I8_SDOT_PER_ITER = 16 * 16 * 2;

enum { BENCH_I8_FORMS = 2 };
static const char *const bench_i8_name[BENCH_I8_FORMS] = { "smull", "sdot" };
static const double *const bench_i8_per_iter[BENCH_I8_FORMS] = { &BENCH_I8_NEON_PER_ITER, &BENCH_I8_SDOT_PER_ITER };
static int bench_i8_has(int form)
{
	return form == 0 || (getauxval(AT_HWCAP) & (1UL << 20)) != 0; /* HWCAP_ASIMDDP */
}
static float bench_i8_kernel(int form, long iters)
{
	return form == 0 ? bench_i8_neon_kernel(iters) : bench_i8_sdot_kernel(iters);
}
#else
static float bench_fma_kernel(long iters)
{
	float a = 1;
	for (long k = 0; k < iters; k++)
		a = a * 0.999999f + 1e-7f;
	return a;
}
static const double BENCH_FLOPS_PER_ITER = 2;
#endif

/* sums four interleaved quarters of [p, p+n) at once: four streams in flight,
 * as a kernel reading several weight rows has */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static float bench_read_kernel(const float *p, size_t n)
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
static float bench_read_kernel(const float *p, size_t n)
{
	const size_t q = n / 4;
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	for (size_t i = 0; i < q; i++) {
		s0 += p[i]; s1 += p[q + i]; s2 += p[2 * q + i]; s3 += p[3 * q + i];
	}
	return s0 + s1 + s2 + s3;
}
#endif

struct bench_par {
	int kind; /* 0 fma, 1 read, 2 fma on 512-bit vectors, 3 + form: int8 dots */
	long iters;
	const float *p;
	size_t n;
	volatile float sink;
	pthread_barrier_t *bar;
};

static void *bench_par_main(void *arg)
{
	struct bench_par *w = arg;
	pthread_barrier_wait(w->bar);
#ifdef BENCH_HAVE_FMA512
	if (w->kind == 2) {
		w->sink = bench_fma512_kernel(w->iters);
		return NULL;
	}
#endif
#ifdef BENCH_HAVE_INT8
	if (w->kind >= 3) {
		w->sink = bench_i8_kernel(w->kind - 3, w->iters);
		return NULL;
	}
#endif
	w->sink = w->kind == 0 ? bench_fma_kernel(w->iters) : bench_read_kernel(w->p, w->n);
	return NULL;
}

/* seconds for nth threads running the kernel concurrently */
static double bench_run_par(int nth, int kind, long iters, float *buf, size_t n)
{
	pthread_t th[BENCH_MAX_THREADS];
	struct bench_par w[BENCH_MAX_THREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, nth + 1);
	for (int i = 0; i < nth; i++) {
		w[i] = (struct bench_par){ .kind = kind, .iters = iters, .p = buf + i * (n / nth), .n = n / nth, .bar = &bar };
		pthread_create(&th[i], NULL, bench_par_main, &w[i]);
	}
	double t0 = bench_clock();
	pthread_barrier_wait(&bar);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	double t = (bench_clock() - t0) / (bench_cpu_time ? nth : 1);
	pthread_barrier_destroy(&bar);
	return t;
}

/* "  12.3% of <what>" for a figure v against a limit lim, into buf; empty
 * when the limit was not measured (--no-limits) */
static inline const char *bench_of(char *buf, size_t size, double v, double lim, const char *what)
{
	if (lim > 0)
		snprintf(buf, size, "  %5.1f%% of %s", 100 * v / lim, what);
	else
		buf[0] = 0;
	return buf;
}

/* the int8 dot-product peak (GOPS) per thread count, measured beside the FMA
 * peak; 0 where not measured */
static double bench_int8_gops[BENCH_MAX_THREADS + 1];

/* peak_gflops[nth], read_gbs[nth] and bench_int8_gops[nth] for nth =
 * 1..max_threads (best of 3 and of 7: the machine's limit, not an average
 * under load) */
static void bench_measure_limits(int max_threads, int quick, int want_fma, double *peak_gflops, double *read_gbs)
{
	const size_t n = (size_t)512 << 20 >> 2; /* 512 MiB of floats */
	/*
	 * On 2 MiB pages where the kernel has them (MADV_HUGEPAGE): the limit
	 * is what the machine can stream, not what its page walks allow.
	 */
	const size_t huge = (size_t)2 << 20, span = n * sizeof(float) + huge;
	char *map = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "no memory for the bandwidth test\n");
		exit(1);
	}
	float *buf = (float *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
	(void)madvise(buf, n * sizeof(float), MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++)
		buf[i] = (float)(i & 1023);
	for (int nth = 1; nth <= max_threads; nth++) {
		double best = 0;
		for (int r = 0; want_fma && r < 3; r++) {
			long iters = quick ? BENCH_FMA_ITERS / 4 : BENCH_FMA_ITERS;
			double t = bench_run_par(nth, 0, iters, NULL, 0);
			double g = iters * BENCH_FLOPS_PER_ITER * nth / t * 1e-9;
			best = g > best ? g : best;
		}
		char width[64] = "";
#ifdef BENCH_HAVE_FMA512
		/* AVX512F: 512-bit FMA chains too; the peak is the larger */
		__builtin_cpu_init();
		const int zmm = __builtin_cpu_supports("avx512f");
		const double best256 = best;
		best = 0;
		for (int r = 0; want_fma && zmm && r < 3; r++) {
			/* as many flops as the 256-bit runs */
			long iters = (long)((quick ? BENCH_FMA_ITERS / 4 : BENCH_FMA_ITERS) * BENCH_FLOPS_PER_ITER /
					    BENCH_FLOPS512_PER_ITER);
			double t = bench_run_par(nth, 2, iters, NULL, 0);
			double g = iters * BENCH_FLOPS512_PER_ITER * nth / t * 1e-9;
			best = g > best ? g : best;
		}
		if (zmm)
			snprintf(width, sizeof(width), " (ymm %.1f, zmm %.1f)", best256, best);
		best = best > best256 ? best : best256;
#endif
		peak_gflops[nth] = best;
		char i8[160] = "";
#ifdef BENCH_HAVE_INT8
		bench_int8_gops[nth] = 0;
		for (int form = 0; want_fma && form < BENCH_I8_FORMS; form++) {
			double g8 = 0;
			for (int r = 0; bench_i8_has(form) && r < 3; r++) {
				/* as many operations as the fp32 runs' flops */
				long iters = (long)((quick ? BENCH_FMA_ITERS / 4 : BENCH_FMA_ITERS) * BENCH_FLOPS_PER_ITER /
						    *bench_i8_per_iter[form]);
				double t = bench_run_par(nth, 3 + form, iters, NULL, 0);
				double g = iters * *bench_i8_per_iter[form] * nth / t * 1e-9;
				g8 = g > g8 ? g : g8;
			}
			if (g8 > 0) {
				size_t l = strlen(i8);
				snprintf(i8 + l, sizeof(i8) - l, "%s%s %.0f", l ? ", " : "", bench_i8_name[form], g8);
			}
			bench_int8_gops[nth] = g8 > bench_int8_gops[nth] ? g8 : bench_int8_gops[nth];
		}
#endif
		double bw = 0;
		for (int r = 0; r < 7; r++) {
			double b = n * sizeof(float) / bench_run_par(nth, 1, 0, buf, n) * 1e-9;
			bw = b > bw ? b : bw;
		}
		read_gbs[nth] = bw;
		char i8s[sizeof(i8) + 48] = "";
		if (bench_int8_gops[nth] > 0)
			snprintf(i8s, sizeof(i8s), ", int8 dot peak %.0f GOPS (%s)", bench_int8_gops[nth], i8);
		if (want_fma)
			printf("limits  %d thread%s: fp32 FMA peak %7.1f GFLOPS%s%s, DRAM read %5.1f GB/s%s\n", nth,
			       nth > 1 ? "s" : " ", peak_gflops[nth], width, i8s, read_gbs[nth],
			       bench_cpu_time ? " (CPU time)" : "");
		else
			printf("limits  %d thread%s: DRAM read %5.1f GB/s%s\n", nth, nth > 1 ? "s" : " ", read_gbs[nth],
			       bench_cpu_time ? " (CPU time)" : "");
	}
	munmap(map, span);
}

/* ---- the CPU device's repacking extra buffer type ------------------------
 *
 * Found and used as llama.cpp does, through the public API only, so that the
 * same source builds against upstream ggml too (tools/bench-upstream.sh):
 * the buffer types of ggml_backend_dev_get_extra_bufts (the one named
 * "..REPACK..", else the first), and per weight matrix the device's answer
 * for a MUL_MAT reading it from that buffer type (an empty buffer of the
 * type as the weight's). Weights it refuses stay in plain memory.
 */
#include "ggml-backend.h"

static ggml_backend_buffer_type_t bench_extra_buft(void)
{
	ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
	if (!dev)
		return NULL;
	ggml_backend_dev_get_extra_bufts_t fn = (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(
		ggml_backend_dev_backend_reg(dev), "ggml_backend_dev_get_extra_bufts");
	ggml_backend_buffer_type_t *b = fn ? fn(dev) : NULL;
	if (!b || !b[0])
		return NULL;
	for (int i = 0; b[i]; i++)
		if (strstr(ggml_backend_buft_name(b[i]), "REPACK"))
			return b[i];
	return b[0];
}

/* true when the CPU device computes MUL_MAT(w, F32 activations of ncols
 * columns) with w in buft */
static int bench_buft_takes(ggml_backend_buffer_type_t buft, const struct ggml_tensor *w, int ncols)
{
	ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
	if (!buft || !dev)
		return 0;
	struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *wd = ggml_new_tensor_2d(ctx, w->type, w->ne[0], w->ne[1]);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w->ne[0], ncols);
	struct ggml_tensor *op = ggml_mul_mat(ctx, wd, x);
	ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 0);
	wd->buffer = buf;
	const int ok = buf && ggml_backend_dev_supports_op(dev, op);
	wd->buffer = NULL;
	if (buf)
		ggml_backend_buffer_free(buf);
	ggml_free(ctx);
	return ok;
}

#endif /* BENCH_LIMITS_H */
