// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * engine-mm-bench: the reference engine's MUL_MAT against the CPU backend's,
 * natively, on the same data, one thread each, AVX2 on both sides.
 *
 * The engine side is the driver's own gaccel_graph.c, gaccel_ref_node.c and
 * gaccel_ref_fpu.c with the AVX2 kernels, built as Kbuild builds them (gcc,
 * -O2, -ffp-contract=off) against the userspace shims of
 * tests/fuzz/validator/shim: a one-node graph is validated by the real
 * GRAPH_CREATE code and run by one participant, unit after unit, in the
 * engine's sections, as a worker of the reference engine runs it (minus
 * kernel_fpu_begin()/end(), well under a microsecond a section, and
 * minus the helpers: with one participant the split is not measured). The
 * CPU side is libggml-backend's CPU backend with one thread
 * (ggml_graph_compute), its AVX-512 kernels turned off
 * (GGML_CPU_DISABLE=avx512) so both run the ISA the engine has.
 *
 * Each case runs both sides alternately ROUNDS times and reports the median
 * CPU time of each (thread CPU time: preemption by other processes on a
 * shared machine does not count) and cpu/engine, the engine's speed relative
 * to the CPU backend (above 1: the engine is faster). Weights are random, the
 * largest (F32 5632 x 2048, 46 MB) larger than most last-level caches.
 *
 * Usage: engine-mm-bench [-r ROUNDS] [-t TYPE] [-n N,N,...]
 * make bench-engine-mm BENCH_ARGS=...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <unistd.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_ref.h"

#include "host_stubs.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-backend.h"

#define MAX_ROUNDS	64

struct wtype {
	const char *name;
	u32 dtype;
	enum ggml_type gtype;
};

static const struct wtype wtypes[] = {
	{ "f32", DRM_GACCEL_DTYPE_F32, GGML_TYPE_F32 },
	{ "f16", DRM_GACCEL_DTYPE_F16, GGML_TYPE_F16 },
	{ "bf16", DRM_GACCEL_DTYPE_BF16, GGML_TYPE_BF16 },
	{ "q8_0", DRM_GACCEL_DTYPE_Q8_0, GGML_TYPE_Q8_0 },
	{ "q4_0", DRM_GACCEL_DTYPE_Q4_0, GGML_TYPE_Q4_0 },
};

/* Weight shapes (rows m by k) of a 1B-class llama layer and a square one. */
static const u64 shapes[][2] = { { 5632, 2048 }, { 2048, 5632 }, { 4096, 4096 } };

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static u64 xs = 0x9e3779b97f4a7c15ull;

static float frand(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return (float)((xs >> 40) * (1.0 / (1 << 24))) * 2.0f - 1.0f;
}

static struct drm_gaccel_tensor tensor(u32 slot, u32 dtype, u64 ne0, u64 ne1,
				       size_t row)
{
	struct drm_gaccel_tensor t = { .slot = slot, .dtype = dtype,
				       .ne = { ne0, ne1, 1, 1 } };

	t.nb[0] = dtype == DRM_GACCEL_DTYPE_F32 ? 4 :
		  dtype == DRM_GACCEL_DTYPE_Q8_0 ? 34 :
		  dtype == DRM_GACCEL_DTYPE_Q4_0 ? 18 : 2;
	t.nb[1] = row;
	t.nb[2] = t.nb[3] = row * ne1;
	return t;
}

/* One engine case: the validated graph and what its participant needs. */
struct engine_case {
	struct gaccel_graph *g;
	u32 handle;
	void *slots[3];
	void *scratch;
	u64 stride;
};

static int engine_open(struct engine_case *e, const struct wtype *w, u64 m,
		       u64 k, u64 n, void *wmem, float *x, float *y)
{
	struct drm_gaccel_tensor t[3];
	struct drm_gaccel_slot slots[3] = { { 0 } };
	struct drm_gaccel_node nd = {
		.op = DRM_GACCEL_OP_MUL_MAT, .dst = 2,
		.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR },
	};
	struct drm_gaccel_graph_create args = { 0 };
	int ret;

	t[0] = tensor(0, w->dtype, k, m, ggml_row_size(w->gtype, k));
	t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, k, n, k * 4);
	t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, m, n, m * 4);
	for (int i = 0; i < 3; i++)
		slots[i].size = t[i].nb[1] * t[i].ne[1];
	args.slots = (struct drm_gaccel_array){ sizeof(slots[0]), 3, (uintptr_t)slots };
	args.tensors = (struct drm_gaccel_array){ sizeof(t[0]), 3, (uintptr_t)t };
	args.nodes = (struct drm_gaccel_array){ sizeof(nd), 1, (uintptr_t)&nd };
	ret = gaccel_ioctl_graph_create(&host_gdev.drm, &args, &host_file);
	if (ret)
		return ret;
	e->handle = args.handle;
	e->g = gaccel_graph_lookup(&host_gfile, args.handle);
	e->slots[0] = wmem;
	e->slots[1] = x;
	e->slots[2] = y;
	e->stride = (e->g->scratch_size + 63) / 64 * 64;
	e->scratch = e->stride ? aligned_alloc(64, e->stride) : NULL;
	return 0;
}

/* The node, one participant, chunk after chunk as gaccel_ref_chunks(). */
static int engine_run(struct engine_case *e)
{
	struct gaccel_ref_node rn = { .scratch = e->scratch,
				      .scratch_size = e->stride, .avx2 = true };
	u64 units, cost, per;
	int ret;

	ret = gaccel_ref_node_prepare(&rn, e->g, &e->g->nodes[0], e->slots,
				      &units, &cost);
	if (ret)
		return ret;
	per = max_t(u64, 1, GACCEL_REF_CHUNK / max_t(u64, cost, 1));
	for (u64 u = 0; u < units; u += per) {
		struct gaccel_ref_pos pos = { .unit = u, .end = min(u + per, units) };

		do {
			ret = gaccel_ref_fpu_run(&rn, &pos);
			if (ret < 0)
				return ret;
		} while (ret);
	}
	return 0;
}

static void engine_close(struct engine_case *e)
{
	struct drm_gaccel_graph_destroy destroy = { .handle = e->handle };

	gaccel_graph_put(e->g);
	gaccel_ioctl_graph_destroy(&host_gdev.drm, &destroy, &host_file);
	free(e->scratch);
}

/* The same product on the CPU backend, one thread, on the same memory. */
struct cpu_case {
	struct ggml_context *ctx;
	struct ggml_cgraph *gf;
	struct ggml_cplan plan;
};

static void cpu_open(struct cpu_case *c, const struct wtype *w, u64 m, u64 k,
		     u64 n, void *wmem, float *x, float *y)
{
	struct ggml_init_params ip = {
		.mem_size = 8 * ggml_tensor_overhead() + ggml_graph_overhead(),
		.no_alloc = true,
	};
	struct ggml_tensor *wt, *xt, *yt;

	c->ctx = ggml_init(ip);
	wt = ggml_new_tensor_2d(c->ctx, w->gtype, (int64_t)k, (int64_t)m);
	xt = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, (int64_t)k, (int64_t)n);
	yt = ggml_mul_mat(c->ctx, wt, xt);
	wt->data = wmem;
	xt->data = x;
	yt->data = y;
	c->gf = ggml_new_graph(c->ctx);
	ggml_build_forward_expand(c->gf, yt);
	c->plan = ggml_graph_plan(c->gf, 1, NULL);
	c->plan.work_data = c->plan.work_size ? malloc(c->plan.work_size) : NULL;
}

static void cpu_close(struct cpu_case *c)
{
	free(c->plan.work_data);
	ggml_free(c->ctx);
}

/*
 * The weights, in a CPU backend buffer: the memory both sides read in
 * production, on 2 MiB pages where the kernel has them (lib/ggml-mem.c),
 * as the engine's objects of that size are in the kernel
 * (driver/gaccel_vmem.c).
 */
static void *weights(const struct wtype *w, u64 m, u64 k, ggml_backend_buffer_t *buf)
{
	size_t bytes = ggml_row_size(w->gtype, (int64_t)k) * m;
	float *f = malloc(k * m * sizeof(float));
	void *out;

	*buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), bytes);
	if (!*buf || !f) {
		fprintf(stderr, "engine-mm-bench: no memory for the weights\n");
		exit(1);
	}
	out = ggml_backend_buffer_get_base(*buf);

	for (u64 i = 0; i < k * m; i++)
		f[i] = frand();
	switch (w->gtype) {
	case GGML_TYPE_F32:
		memcpy(out, f, bytes);
		break;
	case GGML_TYPE_F16:
		ggml_fp32_to_fp16_row(f, out, (int64_t)(k * m));
		break;
	case GGML_TYPE_BF16:
		ggml_fp32_to_bf16_row(f, out, (int64_t)(k * m));
		break;
	default:
		ggml_quantize_chunk(w->gtype, f, out, 0, (int64_t)m, (int64_t)k, NULL);
		break;
	}
	free(f);
	return out;
}

static void usage(void)
{
	fprintf(stderr, "usage: engine-mm-bench [-r ROUNDS] [-t f32|f16|bf16|q8_0|q4_0] [-n N,N,...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const u64 default_ns[] = { 1, 2, 4, 8, 32 };
	u64 ns[16];
	int nn = 0, rounds = 7, opt;
	const char *only = NULL;
	double lg[5] = { 0 }, lo[5];
	int cnt[5] = { 0 };

	while ((opt = getopt(argc, argv, "r:t:n:h")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				usage();
			break;
		case 't':
			only = optarg;
			break;
		case 'n': {
			/* A copy: argv is handed to execv() below as it came. */
			char *list = strdup(optarg);

			for (char *s = strtok(list, ","); s && nn < 16; s = strtok(NULL, ","))
				ns[nn++] = strtoull(s, NULL, 10);
			free(list);
			break;
		}
		default:
			usage();
		}
	}
	if (!nn) {
		memcpy(ns, default_ns, sizeof(default_ns));
		nn = sizeof(default_ns) / sizeof(default_ns[0]);
	}
	for (int i = 0; i < nn; i++)
		if (!ns[i] || ns[i] > 512)
			usage();
	/* The CPU backend reads this once, before main(): re-exec with it. */
	if (!getenv("GGML_CPU_DISABLE")) {
		setenv("GGML_CPU_DISABLE", "avx512", 1);
		execv("/proc/self/exe", argv);
		perror("engine-mm-bench: exec");
		return 1;
	}
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
		printf("engine-mm-bench: the CPU has no AVX2/FMA: nothing to compare\n");
		return 0;
	}
	host_setup();
	printf("engine-mm-bench: reference engine vs CPU backend, one thread each, AVX2 (GGML_CPU_DISABLE=%s),\n"
	       "  thread CPU time, median of %d alternating rounds; cpu/eng > 1: the engine is faster\n",
	       getenv("GGML_CPU_DISABLE"), rounds);
	printf("  %-5s %6s %6s %4s %11s %11s %8s %9s\n", "type", "m", "k", "n",
	       "engine us", "cpu us", "cpu/eng", "max|d|");
	for (size_t wi = 0; wi < sizeof(wtypes) / sizeof(wtypes[0]); wi++) {
		const struct wtype *w = &wtypes[wi];

		lo[wi] = INFINITY;
		if (only && strcmp(only, w->name))
			continue;
		for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
			u64 m = shapes[si][0], k = shapes[si][1];
			ggml_backend_buffer_t wbuf;
			void *wmem = weights(w, m, k, &wbuf);

			for (int ni = 0; ni < nn; ni++) {
				u64 n = ns[ni];
				float *x = malloc(k * n * sizeof(float));
				float *ye = calloc(m * n, sizeof(float));
				float *yc = calloc(m * n, sizeof(float));
				double te[MAX_ROUNDS], tc[MAX_ROUNDS], d = 0, ratio;
				struct engine_case e;
				struct cpu_case c;
				int ret;

				for (u64 i = 0; i < k * n; i++)
					x[i] = frand();
				ret = engine_open(&e, w, m, k, n, wmem, x, ye);
				if (ret) {
					printf("  %-5s %6llu %6llu %4llu  refused by GRAPH_CREATE (%d)\n",
					       w->name, m, k, n, ret);
					return 1;
				}
				cpu_open(&c, w, m, k, n, wmem, x, yc);
				for (int r = 0; r < rounds; r++) {
					double t0 = cpu_ns();

					if (engine_run(&e)) {
						printf("engine-mm-bench: the engine refused the node\n");
						return 1;
					}
					te[r] = cpu_ns() - t0;
					t0 = cpu_ns();
					ggml_graph_compute(c.gf, &c.plan);
					tc[r] = cpu_ns() - t0;
				}
				for (u64 i = 0; i < m * n; i++)
					d = fmax(d, fabs((double)ye[i] - yc[i]));
				ratio = median(tc, rounds) / median(te, rounds);
				printf("  %-5s %6llu %6llu %4llu %11.1f %11.1f %8.2f %9.2e\n",
				       w->name, m, k, n, median(te, rounds) / 1e3,
				       median(tc, rounds) / 1e3, ratio, d);
				printf("  RESULT engine_mm type=%s m=%llu k=%llu n=%llu cpu_over_engine=%.3f\n",
				       w->name, m, k, n, ratio);
				lg[wi] += log(ratio);
				lo[wi] = fmin(lo[wi], ratio);
				cnt[wi]++;
				cpu_close(&c);
				engine_close(&e);
				free(x);
				free(ye);
				free(yc);
			}
			ggml_backend_buffer_free(wbuf);
		}
	}
	for (size_t wi = 0; wi < sizeof(wtypes) / sizeof(wtypes[0]); wi++)
		if (cnt[wi])
			printf("  %-5s cpu/eng geometric mean %.2f, lowest %.2f\n",
			       wtypes[wi].name, exp(lg[wi] / cnt[wi]), lo[wi]);
	return 0;
}
