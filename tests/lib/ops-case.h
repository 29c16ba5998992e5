// SPDX-License-Identifier: MIT
/*
 * ops-case.h - the harness of the CPU op tests (test-cpu-ops*.c): random
 * inputs, independent element access (own fp16/bf16/Q8_0/Q4_0 decoding), a
 * case = inputs + output + expected values in double, and run_case(), which
 * computes the case at 1, 2 and 4 threads on the fast path and at 2 threads
 * on the scalar reference path and compares each with the expected values
 * (NMSE) and the fast path with the reference path.
 */
#ifndef OPS_CASE_H
#define OPS_CASE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static inline double urand(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng >> 11) / 9007199254740992.0;
}
static inline int irand(int lo, int hi) { return lo + (int)(urand() * (hi - lo + 1)); }

/* ---- independent element access (own fp16/bf16 decoding) ---------------- */

static inline double half_to_double(uint16_t h)
{
	int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
	return s ? -v : v;
}

static inline double bf16_to_double(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline const char *eptr(const struct ggml_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
	return (const char *)t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

/* element i0 of a Q8_0/Q4_0 row (own decoding: fp16 scale, then 32 int8,
 * or 16 bytes of nibbles, low = element j, high = element j + 16, minus 8) */
static inline double quant_get(const struct ggml_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
	const int64_t bsz = t->type == GGML_TYPE_Q8_0 ? 34 : 18;
	const uint8_t *b = (const uint8_t *)t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3] + (i0 / 32) * bsz;
	const double d = half_to_double((uint16_t)(b[0] | b[1] << 8));
	const int j = (int)(i0 % 32);
	if (t->type == GGML_TYPE_Q8_0)
		return d * (int8_t)b[2 + j];
	return d * ((j < 16 ? b[2 + j] & 15 : b[2 + j - 16] >> 4) - 8);
}

static inline double tget(const struct ggml_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
	if (t->type == GGML_TYPE_Q8_0 || t->type == GGML_TYPE_Q4_0)
		return quant_get(t, i0, i1, i2, i3);
	const char *p = eptr(t, i0, i1, i2, i3);
	switch (t->type) {
	case GGML_TYPE_F32: return *(const float *)p;
	case GGML_TYPE_F16: return half_to_double(*(const uint16_t *)p);
	case GGML_TYPE_BF16: return bf16_to_double(*(const uint16_t *)p);
	case GGML_TYPE_I32: return *(const int32_t *)p;
	case GGML_TYPE_I64: return (double)*(const int64_t *)p;
	default: abort();
	}
}

/* value of a tensor at a flat index of its logical order */
static inline double tget_flat(const struct ggml_tensor *t, int64_t i)
{
	int64_t i0 = i % t->ne[0]; i /= t->ne[0];
	int64_t i1 = i % t->ne[1]; i /= t->ne[1];
	int64_t i2 = i % t->ne[2]; i /= t->ne[2];
	return tget(t, i0, i1, i2, i);
}

static inline void tset_f(struct ggml_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v)
{
	char *p = (char *)eptr(t, i0, i1, i2, i3);
	switch (t->type) {
	case GGML_TYPE_F32: *(float *)p = v; break;
	case GGML_TYPE_F16: *(uint16_t *)p = ggml_fp32_to_fp16(v); break;
	case GGML_TYPE_BF16: *(uint16_t *)p = ggml_fp32_to_bf16(v).bits; break;
	case GGML_TYPE_I32: *(int32_t *)p = (int32_t)v; break;
	case GGML_TYPE_I64: *(int64_t *)p = (int64_t)v; break;
	default: abort();
	}
}

/* random values in [lo, hi] (integers for I32); quantized: from random F32
 * (with a flat importance matrix for the types that need one) */
static inline void fill(struct ggml_tensor *t, float lo, float hi)
{
	if (ggml_is_quantized(t->type)) {
		const int64_t n = ggml_nelements(t);
		float *f = malloc(n * sizeof(float));
		float *im = NULL;
		for (int64_t i = 0; i < n; i++)
			f[i] = lo + (hi - lo) * (float)urand();
		if (ggml_quantize_requires_imatrix(t->type)) {
			im = malloc(t->ne[0] * sizeof(float));
			for (int64_t i = 0; i < t->ne[0]; i++)
				im[i] = 1.0f;
		}
		ggml_quantize_chunk(t->type, f, t->data, 0, ggml_nrows(t), t->ne[0], im);
		free(im);
		free(f);
		return;
	}
	for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
		for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
			for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
				for (int64_t i0 = 0; i0 < t->ne[0]; i0++)
					tset_f(t, i0, i1, i2, i3, t->type == GGML_TYPE_I32 ? (float)irand((int)lo, (int)hi)
											   : lo + (hi - lo) * (float)urand());
}

/* ---- cases ------------------------------------------------------------------ */

struct tc {
	struct ggml_context *ctx;
	struct ggml_tensor *in[8];
	void *saved[8];
	int n_in;
	struct ggml_tensor *out;
	double *ref;   /* expected values of out, flat logical order */
	int64_t n;
};

/*
 * A case's context: 8 MiB holds every case's tensors, and a test that needs
 * more asks for it (new_ctx_size). Under ASan an allocation this large is
 * mapped and its shadow written on every ggml_init and again on every
 * ggml_free: with 64 MiB contexts that was most of the time of the cases
 * that build a few hundred small graphs.
 */
static inline struct ggml_context *new_ctx_size(size_t bytes)
{
	struct ggml_init_params ip = { bytes, NULL, false };
	return ggml_init(ip);
}

static inline struct ggml_context *new_ctx(void)
{
	return new_ctx_size((size_t)8 * 1024 * 1024);
}

static inline struct ggml_tensor *input(struct tc *c, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
				 float lo, float hi)
{
	struct ggml_tensor *t = ggml_new_tensor_4d(c->ctx, type, ne0, ne1, ne2, ne3);
	fill(t, lo, hi);
	c->in[c->n_in++] = t;
	return t;
}

static inline void tc_free(struct tc *c)
{
	for (int i = 0; i < c->n_in; i++)
		free(c->saved[i]);
	free(c->ref);
	ggml_free(c->ctx);
	memset(c, 0, sizeof(*c));
}

static inline double *ref_alloc(struct tc *c)
{
	c->n = ggml_nelements(c->out);
	c->ref = calloc(c->n, sizeof(double));
	return c->ref;
}

static inline void snapshot(struct tc *c)
{
	for (int i = 0; i < c->n_in; i++) {
		c->saved[i] = malloc(ggml_nbytes(c->in[i]));
		memcpy(c->saved[i], c->in[i]->data, ggml_nbytes(c->in[i]));
	}
}

static inline void restore(struct tc *c)
{
	for (int i = 0; i < c->n_in; i++)
		memcpy(c->in[i]->data, c->saved[i], ggml_nbytes(c->in[i]));
}

/*
 * One threadpool per thread count, kept for the rest of the test (each case
 * runs in its own child process, which exits with it). Without it every
 * multi-threaded compute() created and joined its threads, and under ASan a
 * joined thread's whole stack shadow is cleared: cases with a few hundred
 * small graphs (concat_repeat_raw, mul_mat_few_cols) spent most of their
 * 17-25 s there. NULL (the graph makes its own pool) if creation fails.
 */
#define OPS_CASE_MAX_POOLS 8
static inline struct ggml_threadpool *case_pool(int nth)
{
	static struct ggml_threadpool *pools[OPS_CASE_MAX_POOLS + 1];
	if (nth < 2 || nth > OPS_CASE_MAX_POOLS)
		return NULL;
	if (!pools[nth]) {
		struct ggml_threadpool_params p = ggml_threadpool_params_default(nth);
		pools[nth] = ggml_threadpool_new(&p);
	}
	return pools[nth];
}

static inline enum ggml_status compute(struct ggml_context *ctx, struct ggml_tensor *out, int nth, struct ggml_cplan *plan_out)
{
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, out);
	struct ggml_cplan plan = ggml_graph_plan(gf, nth, case_pool(nth));
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	enum ggml_status st = ggml_graph_compute(gf, &plan);
	if (plan_out)
		*plan_out = plan;
	free(work);
	return st;
}

static inline double nmse_of(const struct tc *c, double *maxerr)
{
	double num = 0, den = 0, mx = 0;
	for (int64_t i = 0; i < c->n; i++) {
		double v = tget_flat(c->out, i), r = c->ref[i];
		double d;
		if (isinf(r) && v == r)
			d = 0;
		else
			d = v - r;
		num += d * d;
		den += r == r && !isinf(r) ? r * r : 0;
		if (fabs(d) > mx || d != d)
			mx = d != d ? INFINITY : fabs(d);
	}
	if (maxerr)
		*maxerr = mx;
	return den > 0 ? num / den : num;
}

/*
 * Runs the case at 1, 2 and 4 threads on the fast path and at 2 threads on
 * the reference path; each result must be within thr of the reference; the
 * fast result must also be within thr of the reference path's.
 */
static inline int run_case(struct __test_metadata *_metadata, struct tc *c, double thr, const char *name)
{
	static const int threads[] = { 1, 2, 4 };
	double *fast = malloc(c->n * sizeof(double));
	int bad = 0;
	snapshot(c);
	for (int k = 0; k < 4; k++) {
		const int nth = k < 3 ? threads[k] : 2;
		const bool ref = k == 3;
		restore(c);
		ggml_cpu_set_use_ref(ref);
		enum ggml_status st = compute(c->ctx, c->out, nth, NULL);
		ggml_cpu_set_use_ref(false);
		EXPECT_EQ(st, GGML_STATUS_SUCCESS) TH_LOG("%s: compute failed", name);
		double mx;
		double e = nmse_of(c, &mx);
		if (!(e <= thr)) {
			bad++;
			TH_LOG("%s [%lld,%lld,%lld,%lld] %s nth=%d: NMSE %.3g > %.3g (max abs err %.3g)", name,
			       (long long)c->out->ne[0], (long long)c->out->ne[1], (long long)c->out->ne[2],
			       (long long)c->out->ne[3], ref ? "ref" : "fast", nth, e, thr, mx);
		}
		if (k == 0)
			for (int64_t i = 0; i < c->n; i++)
				fast[i] = tget_flat(c->out, i);
		if (ref) { /* fast vs ref path */
			double num = 0, den = 0;
			for (int64_t i = 0; i < c->n; i++) {
				double r = tget_flat(c->out, i);
				if (!(isinf(r) && fast[i] == r)) {
					num += (fast[i] - r) * (fast[i] - r);
				}
				den += isinf(r) ? 0 : r * r;
			}
			double e2 = den > 0 ? num / den : num;
			if (!(e2 <= thr)) {
				bad++;
				TH_LOG("%s: fast vs ref path NMSE %.3g > %.3g", name, e2, thr);
			}
		}
	}
	free(fast);
	EXPECT_EQ(bad, 0);
	return bad;
}

static inline void rand_shape(int64_t ne[4], int max0)
{
	ne[0] = irand(1, max0);
	ne[1] = irand(1, 9);
	ne[2] = irand(1, 4);
	ne[3] = irand(1, 3);
}

#endif
