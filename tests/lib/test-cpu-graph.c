// SPDX-License-Identifier: MIT
/*
 * How the CPU backend walks a graph on several threads: which nodes run on
 * thread 0 alone, where barriers go, and when a MUL_MAT reuses the
 * activations an earlier one left in the work buffer (cpu-graph.c).
 *
 * Each graph is computed whole on 2, 3 and 4 threads and compared with the
 * same graph computed one node at a time on one thread, from the same
 * inputs: a missing barrier, a stale reuse or a node whose work was taken
 * by the wrong threads shows as a difference (and, in the ThreadSanitizer
 * build, as a data race). The graphs are built so that each of those
 * mistakes would matter: products sharing their src1 with an in-place
 * write to it in between; a node that overwrites what a split node before
 * it reads; disjoint writes into slices of one tensor followed by a read of
 * all of it; small (solo) nodes between split ones; a llama-style layer
 * with its KV cache written by SET_ROWS (two in a row at decode sizes, one
 * at prefill), for
 * float and quantized weights.
 *
 * All ops involved compute each value the same way whatever the split, so
 * the comparison is exact except for FLASH_ATTN_EXT (relative 1e-6).
 *
 * And: the caller leaves a graph before workers that fell behind (its
 * memory freed at once, see caller_leaves_before_late_workers).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static struct ggml_context *new_ctx(size_t mb)
{
	struct ggml_init_params ip = { mb << 20, NULL, false };
	return ggml_init(ip);
}

static void fill(struct ggml_tensor *t, float scale)
{
	const int64_t n = ggml_nelements(t);
	if (t->type == GGML_TYPE_F32) {
		for (int64_t i = 0; i < n; i++)
			((float *)t->data)[i] = scale * frand();
		return;
	}
	float *tmp = malloc(sizeof(float) * n);
	for (int64_t i = 0; i < n; i++)
		tmp[i] = scale * frand();
	if (t->type == GGML_TYPE_F16) {
		ggml_fp32_to_fp16_row(tmp, t->data, n);
	} else {
		/* quantized: four distinct rows, repeated (the K-quant reference
		 * quantizers are slow under qemu) */
		const int64_t rows = ggml_nrows(t), q = rows < 4 ? rows : 4;
		ggml_quantize_chunk(t->type, tmp, t->data, 0, q, t->ne[0], NULL);
		for (int64_t r = q; r < rows; r++)
			memcpy((char *)t->data + r * t->nb[1], (char *)t->data + (r % q) * t->nb[1], t->nb[1]);
	}
	free(tmp);
}

/* Saved bytes of the tensors a graph reads or changes in place (the
 * context's own tensors: leaves, the cache), restored before each compute. */
struct snapshot {
	struct ggml_context *ctx;
	void *mem;
	size_t size;
};

static void snap_take(struct snapshot *s, struct ggml_context *ctx)
{
	s->ctx = ctx;
	s->size = ggml_used_mem(ctx);
	s->mem = malloc(s->size);
	memcpy(s->mem, ggml_get_mem_buffer(ctx), s->size);
}

static void snap_restore(const struct snapshot *s)
{
	memcpy(ggml_get_mem_buffer(s->ctx), s->mem, s->size);
}

/* a pool of 4 threads, made by each test (the harness forks per test) */
static struct ggml_threadpool *pool;

static void pool_start(void)
{
	struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
	pool = ggml_threadpool_new(&p);
}

static int compute(struct ggml_cgraph *g, int nth)
{
	struct ggml_cplan plan = ggml_graph_plan(g, nth, nth > 1 ? pool : NULL);
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	int rc = ggml_graph_compute(g, &plan);
	free(work);
	return rc;
}

/* every node in its own graph, in order, on one thread */
static int compute_stepwise(struct ggml_context *ctx, struct ggml_cgraph *g)
{
	for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
		struct ggml_cgraph *one = ggml_new_graph(ctx);
		ggml_graph_add_node(one, ggml_graph_node(g, i));
		int rc = compute(one, 1);
		if (rc != GGML_STATUS_SUCCESS)
			return rc;
	}
	return GGML_STATUS_SUCCESS;
}

#define MAX_OUT 8

/* Computes g (outputs out[]) stepwise, then whole at 2..4 threads, and
 * returns the largest difference relative to the output's largest value. */
static double check_graph(struct ggml_context *ctx, struct ggml_cgraph *g, struct ggml_tensor **out, int n_out)
{
	struct snapshot s;
	float *want[MAX_OUT];
	double worst = 0;
	if (!pool)
		pool_start();
	if (!pool)
		return INFINITY;
	snap_take(&s, ctx);
	if (compute_stepwise(ctx, g) != GGML_STATUS_SUCCESS)
		return INFINITY;
	for (int o = 0; o < n_out; o++) {
		want[o] = malloc(ggml_nbytes(out[o]));
		memcpy(want[o], out[o]->data, ggml_nbytes(out[o]));
	}
	const int reps = out[0]->ne[1] > 64 ? 1 : 3;
	for (int nth = 1; nth <= 4; nth++) {
		for (int rep = 0; rep < reps; rep++) {
			snap_restore(&s);
			if (compute(g, nth) != GGML_STATUS_SUCCESS)
				return INFINITY;
			for (int o = 0; o < n_out; o++) {
				const int64_t n = ggml_nelements(out[o]);
				const float *got = out[o]->data;
				double mx = 0, d = 0;
				for (int64_t i = 0; i < n; i++) {
					mx = fmax(mx, fabs(want[o][i]));
					d = fmax(d, fabs((double)got[i] - want[o][i]));
				}
				if (d != d || (d > 0 && mx == 0))
					return INFINITY;
				if (d > 0)
					worst = fmax(worst, d / mx);
			}
		}
	}
	for (int o = 0; o < n_out; o++)
		free(want[o]);
	free(s.mem);
	return worst;
}

/* Products sharing src1, an in-place scale of src1 between two of them (the
 * second must see the scaled values), a product with another src1 in
 * between, and products of two weight types (two forms of activations). */
TEST(products_sharing_src1)
{
	static const enum ggml_type wt[] = { GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_F32, GGML_TYPE_F16,
					     GGML_TYPE_Q4_K };
	static const int cols[] = { 1, 3, 40, 300 };
	for (size_t it = 0; it < sizeof(wt) / sizeof(wt[0]); it++) {
		for (size_t ic = 0; ic < sizeof(cols) / sizeof(cols[0]); ic++) {
			struct ggml_context *ctx = new_ctx(64);
			const int K = 256, N = cols[ic];
			struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
			struct ggml_tensor *z = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
			struct ggml_tensor *w[5];
			for (int i = 0; i < 5; i++) {
				w[i] = ggml_new_tensor_2d(ctx, i == 4 ? GGML_TYPE_Q8_0 : wt[it], K, 48 + 16 * i);
				fill(w[i], 0.1f);
			}
			fill(x, 1.0f);
			fill(z, 1.0f);
			struct ggml_cgraph *g = ggml_new_graph(ctx);
			struct ggml_tensor *y0 = ggml_mul_mat(ctx, w[0], x);
			struct ggml_tensor *y1 = ggml_mul_mat(ctx, w[1], x);
			struct ggml_tensor *y4 = ggml_mul_mat(ctx, w[4], x);
			ggml_build_forward_expand(g, y0);
			ggml_build_forward_expand(g, y1);
			ggml_build_forward_expand(g, y4);
			ggml_build_forward_expand(g, ggml_scale_inplace(ctx, x, 2.0f));
			struct ggml_tensor *y2 = ggml_mul_mat(ctx, w[2], x);
			ggml_build_forward_expand(g, y2);
			struct ggml_tensor *yz = ggml_mul_mat(ctx, w[3], z);
			ggml_build_forward_expand(g, yz);
			struct ggml_tensor *y3 = ggml_mul_mat(ctx, w[3], x);
			ggml_build_forward_expand(g, y3);
			struct ggml_tensor *out[] = { y0, y1, y2, y3, y4, yz };
			double err = check_graph(ctx, g, out, 6);
			if (err != 0)
				TH_LOG("%s, %d columns: difference %g", ggml_type_name(wt[it]), N, err);
			EXPECT_EQ(0, err);
			ggml_free(ctx);
		}
	}
}

/* Write after read: a split node reads a, the next overwrites a in place;
 * disjoint writes into slices of one tensor, then a read of all of it;
 * small nodes (run on thread 0 alone) between large ones. */
TEST(hazards_between_elementwise_nodes)
{
	static const int sizes[] = { 64, 1000, 20000, 70000 };
	for (size_t is = 0; is < sizeof(sizes) / sizeof(sizes[0]); is++) {
		const int n = sizes[is];
		struct ggml_context *ctx = new_ctx(64);
		struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
		struct ggml_tensor *b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
		struct ggml_tensor *small = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
		struct ggml_tensor *slab = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, 4);
		fill(a, 1.0f);
		fill(b, 1.0f);
		fill(small, 1.0f);
		fill(slab, 1.0f);
		struct ggml_cgraph *g = ggml_new_graph_custom(ctx, 256, false);
		struct ggml_tensor *c = ggml_add(ctx, a, b); /* reads a */
		ggml_build_forward_expand(g, c);
		ggml_build_forward_expand(g, ggml_scale_inplace(ctx, a, 3.0f)); /* overwrites a */
		struct ggml_tensor *s1 = ggml_sqr(ctx, small);
		ggml_build_forward_expand(g, s1);
		struct ggml_tensor *d = ggml_mul(ctx, c, a); /* the scaled a */
		ggml_build_forward_expand(g, d);
		/* four writes into disjoint rows of slab, then one read of all */
		for (int r = 0; r < 4; r++) {
			struct ggml_tensor *row = ggml_view_1d(ctx, slab, n, (size_t)r * slab->nb[1]);
			struct ggml_tensor *src = r % 2 ? d : c;
			ggml_build_forward_expand(g, ggml_cpy(ctx, ggml_scale(ctx, src, (float)(r + 1)), row));
		}
		struct ggml_tensor *sum = ggml_sum_rows(ctx, ggml_cont(ctx, ggml_transpose(ctx, slab)));
		ggml_build_forward_expand(g, sum);
		struct ggml_tensor *s2 = ggml_add(ctx, s1, small);
		ggml_build_forward_expand(g, s2);
		struct ggml_tensor *out[] = { c, d, sum, s2 };
		double err = check_graph(ctx, g, out, 4);
		if (err != 0)
			TH_LOG("%d values: difference %g", n, err);
		EXPECT_EQ(0, err);
		ggml_free(ctx);
	}
}

/* A llama-style layer: norms, Q/K/V products, RoPE, K and V written into
 * an F16 cache by SET_ROWS, flash attention over it, output product,
 * SwiGLU FFN, residuals; two layers in a row, decode and prefill sizes. */
TEST(llama_layers)
{
	static const struct {
		enum ggml_type type;
		int n, kv;
	} cases[] = {
		{ GGML_TYPE_Q8_0, 1, 0 }, { GGML_TYPE_Q8_0, 2, 37 }, { GGML_TYPE_Q8_0, 7, 5 },
		{ GGML_TYPE_Q8_0, 260, 3 }, { GGML_TYPE_Q4_0, 1, 9 }, { GGML_TYPE_Q4_0, 33, 5 },
		{ GGML_TYPE_F16, 1, 3 }, { GGML_TYPE_F16, 5, 4 }, { GGML_TYPE_Q6_K, 1, 3 },
		{ GGML_TYPE_Q4_K, 2, 2 },
	};
	const int E = 256, F = 512, H = 4, HKV = 2, HD = E / H, EKV = HD * HKV;
	for (size_t ic = 0; ic < sizeof(cases) / sizeof(cases[0]); ic++) {
		{
			const enum ggml_type wt = cases[ic].type;
			const int n = cases[ic].n, kv = cases[ic].kv, nkv = n + kv;
			struct ggml_context *ctx = new_ctx(128);
			struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, E, n);
			struct ggml_tensor *pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n);
			struct ggml_tensor *idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, n);
			struct ggml_tensor *mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, nkv, n);
			fill(x, 1.0f);
			for (int i = 0; i < n; i++) {
				((int32_t *)pos->data)[i] = kv + i;
				((int64_t *)idx->data)[i] = kv + i;
			}
			for (int q = 0; q < n; q++)
				for (int j = 0; j < nkv; j++)
					((ggml_fp16_t *)mask->data)[q * nkv + j] =
						ggml_fp32_to_fp16(j <= kv + q ? 0.0f : -INFINITY);
			struct ggml_cgraph *g = ggml_new_graph_custom(ctx, 512, false);
			struct ggml_tensor *cur = x;
			for (int il = 0; il < (n > 64 ? 1 : 2); il++) {
				struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, wt, E, E);
				struct ggml_tensor *wk = ggml_new_tensor_2d(ctx, wt, E, EKV);
				struct ggml_tensor *wv = ggml_new_tensor_2d(ctx, wt, E, EKV);
				struct ggml_tensor *wo = ggml_new_tensor_2d(ctx, wt, E, E);
				struct ggml_tensor *wg = ggml_new_tensor_2d(ctx, wt, E, F);
				struct ggml_tensor *wu = ggml_new_tensor_2d(ctx, wt, E, F);
				struct ggml_tensor *wd = ggml_new_tensor_2d(ctx, wt, F, E);
				struct ggml_tensor *nw = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, E);
				struct ggml_tensor *kc = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, EKV, nkv);
				struct ggml_tensor *vc = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, EKV, nkv);
				struct ggml_tensor *ws[] = { wq, wk, wv, wo, wg, wu, wd };
				for (int i = 0; i < 7; i++)
					fill(ws[i], 0.08f);
				fill(nw, 1.0f);
				fill(kc, 1.0f);
				fill(vc, 1.0f);
				struct ggml_tensor *h = ggml_mul(ctx, ggml_rms_norm(ctx, cur, 1e-5f), nw);
				struct ggml_tensor *q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, wq, h), HD, H, n);
				struct ggml_tensor *k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, wk, h), HD, HKV, n);
				struct ggml_tensor *v = ggml_mul_mat(ctx, wv, h);
				q = ggml_rope_ext(ctx, q, pos, NULL, HD, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f,
						  1.0f, 32.0f, 1.0f);
				k = ggml_rope_ext(ctx, k, pos, NULL, HD, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f,
						  1.0f, 32.0f, 1.0f);
				struct ggml_tensor *kw = ggml_set_rows(ctx, kc, ggml_reshape_2d(ctx, k, EKV, n), idx);
				struct ggml_tensor *vw = ggml_set_rows(ctx, vc, v, idx);
				struct ggml_tensor *k3 = ggml_permute(
					ctx, ggml_view_3d(ctx, kw, HD, HKV, nkv, kw->nb[0] * HD, kw->nb[1], 0), 0, 2, 1, 3);
				struct ggml_tensor *v3 = ggml_permute(
					ctx, ggml_view_3d(ctx, vw, HD, HKV, nkv, vw->nb[0] * HD, vw->nb[1], 0), 0, 2, 1, 3);
				struct ggml_tensor *fa = ggml_flash_attn_ext(ctx, ggml_permute(ctx, q, 0, 2, 1, 3), k3, v3,
									     mask, 1.0f / sqrtf((float)HD), 0.0f, 0.0f);
				cur = ggml_add(ctx, cur, ggml_mul_mat(ctx, wo, ggml_reshape_2d(ctx, fa, E, n)));
				h = ggml_mul(ctx, ggml_rms_norm(ctx, cur, 1e-5f), nw);
				h = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, wg, h), ggml_mul_mat(ctx, wu, h));
				cur = ggml_add(ctx, cur, ggml_mul_mat(ctx, wd, h));
			}
			ggml_build_forward_expand(g, cur);
			struct ggml_tensor *out[] = { cur };
			double err = check_graph(ctx, g, out, 1);
			if (err > 1e-6)
				TH_LOG("%s, n %d, kv %d: difference %g", ggml_type_name(wt), n, kv, err);
			EXPECT_LE(err, 1e-6);
			ggml_free(ctx);
		}
	}
}

/* The caller returns once the graph's work is done, while workers that fell
 * behind (more threads than cores, and a busy thread beside them) may still
 * be on their way out of the walk: the graph, its tensors and the work
 * buffer are freed right after each compute, so that a worker touching
 * them late is a use after free (AddressSanitizer) or a race
 * (ThreadSanitizer); the values are checked against one thread. */
#include <pthread.h>
#include <stdatomic.h>

static atomic_bool spin_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
		;
	return NULL;
}

static struct ggml_cgraph *small_graph(struct ggml_context *ctx, struct ggml_tensor **out)
{
	struct ggml_tensor *w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 96);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 3);
	struct ggml_tensor *big = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 8);
	rng = 0x9e3779b97f4a7c15ull; /* the same values every time */
	fill(w, 1.0f);
	fill(x, 1.0f);
	fill(big, 1.0f);
	struct ggml_tensor *y = ggml_mul_mat(ctx, w, x);                          /* chunks */
	struct ggml_tensor *z = ggml_scale(ctx, ggml_add(ctx, big, big), 0.5f);   /* pieces */
	struct ggml_tensor *acc = ggml_acc(ctx, z, y, z->nb[1], z->nb[2], z->nb[3], 0); /* every thread */
	struct ggml_cgraph *g = ggml_new_graph(ctx);
	ggml_build_forward_expand(g, acc);
	*out = acc;
	return g;
}

TEST(caller_leaves_before_late_workers)
{
	struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
	struct ggml_threadpool *tp = ggml_threadpool_new(&p);
	ASSERT_NE(NULL, tp);
	struct ggml_context *ctx = new_ctx(4);
	struct ggml_tensor *out;
	struct ggml_cgraph *g = small_graph(ctx, &out);
	struct ggml_cplan plan = ggml_graph_plan(g, 1, NULL);
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_graph_compute(g, &plan));
	const size_t nb = ggml_nbytes(out);
	float *want = malloc(nb);
	memcpy(want, out->data, nb);
	free(work);
	ggml_free(ctx);

	pthread_t th;
	atomic_store(&spin_stop, false);
	ASSERT_EQ(0, pthread_create(&th, NULL, spinner, NULL));
	int bad = 0;
	for (int it = 0; it < 60; it++) {
		ctx = new_ctx(4);
		g = small_graph(ctx, &out);
		plan = ggml_graph_plan(g, 2 + it % 3, tp);
		work = plan.work_size ? malloc(plan.work_size) : NULL;
		plan.work_data = work;
		if (ggml_graph_compute(g, &plan) != GGML_STATUS_SUCCESS || memcmp(out->data, want, nb) != 0)
			bad++;
		free(work);
		ggml_free(ctx);
	}
	atomic_store(&spin_stop, true);
	pthread_join(th, NULL);
	EXPECT_EQ(0, bad);
	free(want);
	ggml_threadpool_free(tp);
}

TEST_HARNESS_MAIN
