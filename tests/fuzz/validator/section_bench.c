// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * section_bench: how long the reference engine's FPU sections take on this
 * machine, natively. The driver's gaccel_graph.c, gaccel_ref_node.c and
 * gaccel_ref_fpu.c (built -O2 against the shims, AVX2 kernels included)
 * validate and run worst-case nodes, one participant, cut into units and
 * sections exactly as the engine cuts them; every gaccel_ref_fpu_run()
 * call (one section) is timed, the node run REPEATS times and each
 * section's shortest time kept, so that preemption of this process by
 * others does not count: the figures are the work of a section. In the
 * kernel a section also saves and
 * restores the FPU state (kernel_fpu_begin/end), well under a microsecond.
 * The in-kernel figure, under the test VM's emulation, comes from debugfs
 * "fpu" (numerics_test fpu_sections_bounded). `make bench-sections`.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_limits.h"
#include "gaccel_ref.h"

#include "host_stubs.h"

#define REPEATS	5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct drm_gaccel_tensor tensor(u32 slot, u32 dtype, u64 ne0, u64 ne1)
{
	static const u32 bytes[] = { [DRM_GACCEL_DTYPE_F32] = 4, [DRM_GACCEL_DTYPE_F16] = 2,
				     [DRM_GACCEL_DTYPE_BF16] = 2, [DRM_GACCEL_DTYPE_Q4_0] = 18,
				     [DRM_GACCEL_DTYPE_Q8_0] = 34, [DRM_GACCEL_DTYPE_I32] = 4,
				     [DRM_GACCEL_DTYPE_I64] = 8 };
	u64 bs = dtype == DRM_GACCEL_DTYPE_Q8_0 || dtype == DRM_GACCEL_DTYPE_Q4_0 ? 32 : 1;
	struct drm_gaccel_tensor t = { .slot = slot, .dtype = dtype, .ne = { ne0, ne1, 1, 1 } };

	t.nb[0] = bytes[dtype];
	t.nb[1] = t.nb[0] * (ne0 / bs);
	t.nb[2] = t.nb[3] = t.nb[1] * ne1;
	return t;
}

/* The name of a MUL_MAT weight type. */
static const char *wname(u32 dtype)
{
	return dtype == DRM_GACCEL_DTYPE_F32 ? "F32" :
	       dtype == DRM_GACCEL_DTYPE_F16 ? "F16" :
	       dtype == DRM_GACCEL_DTYPE_BF16 ? "BF16" :
	       dtype == DRM_GACCEL_DTYPE_Q8_0 ? "Q8_0" : "Q4_0";
}

/* Validate a one-node graph over slots of these tensors, run it, time it. */
static void bench(const char *name, struct drm_gaccel_tensor *t, u32 nt,
		  struct drm_gaccel_node *n, bool avx2)
{
	struct drm_gaccel_slot slots[4] = { { 0 } };
	struct drm_gaccel_graph_create args = { 0 };
	struct drm_gaccel_graph_destroy destroy = { 0 };
	struct gaccel_graph *g;
	void *mem[4];
	double *best = NULL, *sorted;
	u64 sections = 0, stride = 0, cap = 0;
	void *scratch = NULL;
	int ret;

	for (u32 i = 0; i < nt; i++) {
		t[i].slot = i;
		slots[i].size = t[i].nb[1] * t[i].ne[1];
		mem[i] = calloc(1, slots[i].size);
		/* Small finite values everywhere; I32 (indices, positions) 1. */
		for (u64 b = 0; b + 4 <= slots[i].size; b += 4) {
			float f = 0.001f * (b % 97);
			s32 one = 1;

			if (t[i].dtype == DRM_GACCEL_DTYPE_I32)
				memcpy((char *)mem[i] + b, &one, 4);
			else
				memcpy((char *)mem[i] + b, &f, 4);
		}
	}
	args.slots = (struct drm_gaccel_array){ sizeof(slots[0]), nt, (uintptr_t)slots };
	args.tensors = (struct drm_gaccel_array){ sizeof(t[0]), nt, (uintptr_t)t };
	args.nodes = (struct drm_gaccel_array){ sizeof(*n), 1, (uintptr_t)n };
	ret = gaccel_ioctl_graph_create(&host_gdev.drm, &args, &host_file);
	if (ret) {
		printf("%-36s refused (%d)\n", name, ret);
		exit(1);
	}
	g = gaccel_graph_lookup(&host_gfile, args.handle);
	if (g->scratch_size) {
		stride = (g->scratch_size + 63) / 64 * 64;
		scratch = malloc(stride);
	}
	for (int rep = 0; rep < REPEATS; rep++) {
		struct gaccel_ref_node rn = { .scratch = scratch, .scratch_size = stride,
					      .avx2 = avx2 };
		u64 units, cost, per;

		if (gaccel_ref_node_prepare(&rn, g, &g->nodes[0], mem, &units, &cost))
			abort();
		per = max_t(u64, 1, GACCEL_REF_CHUNK / max_t(u64, cost, 1));
		sections = 0;
		for (u64 u = 0; u < units; u += per) {
			struct gaccel_ref_pos pos = { .unit = u, .end = min(u + per, units) };

			do {
				double t0 = now_ns(), dt;

				ret = gaccel_ref_fpu_run(&rn, &pos);
				dt = now_ns() - t0;
				if (sections == cap) {
					cap = cap ? 2 * cap : 1024;
					best = realloc(best, cap * sizeof(*best));
				}
				if (!rep || dt < best[sections])
					best[sections] = dt;
				sections++;
			} while (ret == 1);
		}
	}
	sorted = malloc(sections * sizeof(*sorted));
	memcpy(sorted, best, sections * sizeof(*sorted));
	qsort(sorted, sections, sizeof(*sorted), cmp_double);
	printf("%-34s %5llu sections, median %7.1f us, longest %7.1f us%s\n", name,
	       sections, sorted[sections / 2] / 1e3, sorted[sections - 1] / 1e3,
	       ret ? " (job failed)" : "");
	free(sorted);
	free(best);
	gaccel_graph_put(g);
	destroy.handle = args.handle;
	gaccel_ioctl_graph_destroy(&host_gdev.drm, &destroy, &host_file);
	for (u32 i = 0; i < nt; i++)
		free(mem[i]);
	free(scratch);
}

int main(void)
{
	unsigned int eax, ebx, ecx, edx;
	bool avx2;
	u64 n = 1 << 20;

	host_setup();
	__builtin_cpu_init();
	avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
	       __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29));
	printf("section_bench: %s kernels, GACCEL_REF_CHUNK %lu, longest MUL_MAT tile %lu\n",
	       avx2 ? "AVX2" : "portable", (unsigned long)GACCEL_REF_CHUNK,
	       (unsigned long)GACCEL_REF_MM_MAX_UNIT);

	for (int simd = 0; simd <= (avx2 ? 1 : 0); simd++) {
		struct drm_gaccel_tensor t[4];
		struct drm_gaccel_node nd;
		static const struct { const char *name; u32 op; } rows[] = {
			{ "SOFT_MAX row of 2^20", DRM_GACCEL_OP_SOFT_MAX },
			{ "RMS_NORM row of 2^20", DRM_GACCEL_OP_RMS_NORM },
			{ "NORM row of 2^20", DRM_GACCEL_OP_NORM },
			{ "GELU row of 2^20", DRM_GACCEL_OP_GELU },
			{ "SILU row of 2^20", DRM_GACCEL_OP_SILU },
		};
		static const u32 w[] = { DRM_GACCEL_DTYPE_F32, DRM_GACCEL_DTYPE_F16,
					 DRM_GACCEL_DTYPE_BF16, DRM_GACCEL_DTYPE_Q8_0,
					 DRM_GACCEL_DTYPE_Q4_0 };
		char name[64];

		printf("-- %s\n", simd ? "AVX2" : "portable");
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			t[0] = tensor(0, DRM_GACCEL_DTYPE_F32, n, 1);
			t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, n, 1);
			nd = (struct drm_gaccel_node){ .op = rows[i].op, .dst = 1,
				.src = { 0, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR,
					 DRM_GACCEL_NO_TENSOR } };
			if (rows[i].op == DRM_GACCEL_OP_SOFT_MAX)
				nd.params[0] = 0x3f800000;
			if (rows[i].op == DRM_GACCEL_OP_RMS_NORM || rows[i].op == DRM_GACCEL_OP_NORM)
				nd.params[0] = 0x358637bd;	/* 1e-6 */
			bench(rows[i].name, t, 2, &nd, simd);
		}
		t[0] = tensor(0, DRM_GACCEL_DTYPE_F32, n, 1);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_I32, 1, 1);
		t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, n, 1);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_ROPE, .dst = 2,
			.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
		nd.params[1] = (s32)n;
		nd.params[5] = 0x461c4000;	/* 10000 */
		nd.params[6] = 0x3f800000;
		nd.params[8] = 0x3f800000;
		bench("ROPE row of 2^20", t, 3, &nd, simd);
		t[0] = tensor(0, DRM_GACCEL_DTYPE_F32, n, 1);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, n / 4, 1);
		t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, n, 1);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_ADD, .dst = 2,
			.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
		bench("ADD row of 2^20, src1 repeated", t, 3, &nd, simd);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, n / 2, 1);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_SWIGLU, .dst = 1,
			.src = { 0, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR,
				 DRM_GACCEL_NO_TENSOR } };
		bench("SWIGLU halves of 2^20", t, 2, &nd, simd);
		t[0] = tensor(0, DRM_GACCEL_DTYPE_F32, n, 2);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_I32, 2, 1);
		t[2] = tensor(2, DRM_GACCEL_DTYPE_BF16, n, 3);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_SET_ROWS, .dst = 2,
			.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
		bench("SET_ROWS F32->BF16 rows of 2^20", t, 3, &nd, simd);
		t[0] = tensor(0, DRM_GACCEL_DTYPE_F32, 1024, 1024);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_F16, 1024, 1024);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_CPY, .dst = 1,
			.src = { 0, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR,
				 DRM_GACCEL_NO_TENSOR } };
		bench("CPY F32->F16 of 2^20", t, 2, &nd, simd);
		t[0] = tensor(0, DRM_GACCEL_DTYPE_Q8_0, n, 2);
		t[1] = tensor(1, DRM_GACCEL_DTYPE_I32, 2, 1);
		t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, n, 2);
		nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_GET_ROWS, .dst = 2,
			.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
		bench("GET_ROWS Q8_0 rows of 2^20", t, 3, &nd, simd);
		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			/*
			 * The largest tile (4 x 4 x 2^14), the F32 GEMM's,
			 * split rows, and the GEMM units of many columns
			 * (AVX2: 64 columns by K steps of 1024 or 256 values,
			 * and as many columns as fit with long rows).
			 */
			static const u64 shapes[][3] = { { 1 << 14, 8, 4 }, { 21845, 6, 4 },
							 { 1 << 20, 2, 2 }, { 2048, 48, 64 },
							 { 1 << 14, 48, 64 } };

			for (int s = 0; s < 5; s++) {
				u64 k = shapes[s][0];

				if (s == 1 && w[i] != DRM_GACCEL_DTYPE_F32)
					continue;
				if (s == 2 && w[i] >= DRM_GACCEL_DTYPE_Q4_0)
					k = 1 << 20;
				t[0] = tensor(0, w[i], k, shapes[s][1]);
				t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, k, shapes[s][2]);
				t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, shapes[s][1], shapes[s][2]);
				nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_MUL_MAT, .dst = 2,
					.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
				snprintf(name, sizeof(name), "MUL_MAT %s k=%llu %llux%llu",
					 wname(w[i]),
					 k, shapes[s][1], shapes[s][2]);
				bench(name, t, 3, &nd, simd);
			}
			/*
			 * Decode: one column by 64 MiB of weights, more than
			 * most last-level caches, so the dots stream them from
			 * memory as a model's token generation does.
			 */
			t[0] = tensor(0, w[i], 4096, 1);
			t[0] = tensor(0, w[i], 4096, (64ull << 20) / t[0].nb[1]);
			t[1] = tensor(1, DRM_GACCEL_DTYPE_F32, 4096, 1);
			t[2] = tensor(2, DRM_GACCEL_DTYPE_F32, t[0].ne[1], 1);
			nd = (struct drm_gaccel_node){ .op = DRM_GACCEL_OP_MUL_MAT, .dst = 2,
				.src = { 0, 1, DRM_GACCEL_NO_TENSOR, DRM_GACCEL_NO_TENSOR } };
			snprintf(name, sizeof(name), "MUL_MAT %s k=4096 %llux1 (64 MiB)",
				 wname(w[i]),
				 t[0].ne[1]);
			bench(name, t, 3, &nd, simd);
		}
	}
	return 0;
}
