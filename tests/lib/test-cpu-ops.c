// SPDX-License-Identifier: MIT
/*
 * CPU op kernels against independent references computed here in double
 * precision (the library's scalar reference path is not used as the
 * reference; it is checked against the same references, and the fast path
 * against it). Shapes are random with odd sizes; views, broadcasting and
 * in-place variants are included; every case runs at 1, 2 and 4 threads.
 *
 * NMSE thresholds (sum (out-ref)^2 / sum ref^2):
 *   exact-in-float ops (copies, add/sub/mul, scale, get/set_rows, repeat,
 *   concat, pad, ...)              1e-7 (typically 0: float = double rounded)
 *   transcendental ops and reductions (softmax, norms, unary, glu)
 *                                  1e-9..1e-12 (see each case)
 *   rope (positions up to 4000)    1e-8
 *   F16/BF16 destinations          the format's rounding: 1e-6 / 1e-4
 *   MUL_MAT F32/F16/BF16 weights   1e-9, 1e-6 with F16 activations (products
 *                                  exact, float accumulation); BF16 on
 *                                  AVX512-BF16 1e-5 (activations rounded to
 *                                  BF16)
 *   MUL_MAT quantized weights      2e-4 (Q8_0/Q8_K rounding of the activations)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"

#include "ops-case.h"

/* ---- element-wise binary ------------------------------------------------ */

TEST(binary_broadcast)
{
	const enum ggml_op ops[] = { GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV };
	const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
	for (int o = 0; o < 4; o++) {
		for (int variant = 0; variant < 6; variant++) {
			struct tc c = { .ctx = new_ctx() };
			int64_t ne[4];
			rand_shape(ne, 70);
			const enum ggml_type t0 = variant == 4 ? GGML_TYPE_F16 : variant == 5 ? GGML_TYPE_BF16 : GGML_TYPE_F32;
			struct ggml_tensor *a = input(&c, t0, ne[0], ne[1], ne[2], ne[3], -2, 2);
			/* src1: same shape, broadcast rows, broadcast in every dim, or a scalar row */
			int64_t nb_[4] = { ne[0], ne[1], ne[2], ne[3] };
			if (variant == 1) { nb_[1] = 1; nb_[3] = 1; }
			if (variant == 2) { nb_[1] = 1; nb_[2] = 1; nb_[3] = 1; }
			if (variant == 3 && ne[0] % 1 == 0) { nb_[0] = 1; nb_[2] = 1; }
			struct ggml_tensor *b = input(&c, types[variant % 3 == 2 ? 0 : variant % 3], nb_[0], nb_[1], nb_[2], nb_[3],
						      o == 3 ? 0.5f : -2, 2);
			struct ggml_tensor *x = a;
			if (variant == 0 && ne[1] > 1) /* a non-contiguous source: a transposed copy */
				x = ggml_transpose(c.ctx, ggml_transpose(c.ctx, a));
			const bool inplace = variant == 2 && t0 == GGML_TYPE_F32;
			struct ggml_tensor *(*fn[4])(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *) = {
				inplace ? ggml_add_inplace : ggml_add, inplace ? ggml_sub_inplace : ggml_sub,
				inplace ? ggml_mul_inplace : ggml_mul, inplace ? ggml_div_inplace : ggml_div };
			c.out = fn[o](c.ctx, x, b);
			double *r = ref_alloc(&c);
			int64_t i = 0;
			for (int64_t i3 = 0; i3 < ne[3]; i3++)
				for (int64_t i2 = 0; i2 < ne[2]; i2++)
					for (int64_t i1 = 0; i1 < ne[1]; i1++)
						for (int64_t i0 = 0; i0 < ne[0]; i0++, i++) {
							double u = tget(a, i0, i1, i2, i3);
							double v = tget(b, i0 % nb_[0], i1 % nb_[1], i2 % nb_[2], i3 % nb_[3]);
							double z = o == 0 ? u + v : o == 1 ? u - v : o == 2 ? u * v : u / v;
							/* round to the destination type */
							r[i] = t0 == GGML_TYPE_F32 ? (float)z : z;
						}
			double thr = t0 == GGML_TYPE_F32 ? 1e-7 : t0 == GGML_TYPE_F16 ? 2e-6 : 1e-4;
			run_case(_metadata, &c, thr, ggml_op_name(ops[o]));
			tc_free(&c);
		}
	}
}

/* ---- element-wise unary and maps ------------------------------------------ */

static double d_unary(enum ggml_unary_op op, double x)
{
	switch (op) {
	case GGML_UNARY_OP_ABS: return fabs(x);
	case GGML_UNARY_OP_SGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
	case GGML_UNARY_OP_NEG: return -x;
	case GGML_UNARY_OP_STEP: return x > 0 ? 1 : 0;
	case GGML_UNARY_OP_TANH: return tanh(x);
	case GGML_UNARY_OP_ELU: return x > 0 ? x : expm1(x);
	case GGML_UNARY_OP_RELU: return x > 0 ? x : 0;
	case GGML_UNARY_OP_SIGMOID: return 1 / (1 + exp(-x));
	case GGML_UNARY_OP_GELU: return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
	case GGML_UNARY_OP_GELU_QUICK: return x / (1 + exp(-1.702 * x));
	case GGML_UNARY_OP_SILU: return x / (1 + exp(-x));
	case GGML_UNARY_OP_HARDSWISH: return x * fmin(1, fmax(0, (x + 3) / 6));
	case GGML_UNARY_OP_HARDSIGMOID: return fmin(1, fmax(0, (x + 3) / 6));
	case GGML_UNARY_OP_EXP: return exp(x);
	case GGML_UNARY_OP_GELU_ERF: return 0.5 * x * (1 + erf(x / sqrt(2)));
	default: abort();
	}
}

TEST(unary_ops)
{
	const enum ggml_unary_op ops[] = { GGML_UNARY_OP_ABS, GGML_UNARY_OP_SGN, GGML_UNARY_OP_NEG, GGML_UNARY_OP_STEP,
		GGML_UNARY_OP_TANH, GGML_UNARY_OP_ELU, GGML_UNARY_OP_RELU, GGML_UNARY_OP_SIGMOID, GGML_UNARY_OP_GELU,
		GGML_UNARY_OP_GELU_QUICK, GGML_UNARY_OP_SILU, GGML_UNARY_OP_HARDSWISH, GGML_UNARY_OP_HARDSIGMOID,
		GGML_UNARY_OP_EXP, GGML_UNARY_OP_GELU_ERF };
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (int variant = 0; variant < 2; variant++) {
			struct tc c = { .ctx = new_ctx() };
			int64_t ne[4];
			rand_shape(ne, 50);
			const enum ggml_type type = variant ? GGML_TYPE_F16 : GGML_TYPE_F32;
			if (variant == 0)
				ne[1] = ne[1] < 2 ? 2 : ne[1];
			struct ggml_tensor *a = input(&c, type, ne[0], ne[1], ne[2], ne[3], -5, 5);
			struct ggml_tensor *x = a;
			if (variant == 0) { /* a view with padded rows (contiguous_1 needs ne1 > 1) */
				ne[1] = ne[1] < 2 ? 2 : ne[1];
				struct ggml_tensor *p = input(&c, type, ne[0] + 3, ne[1], ne[2], ne[3], -5, 5);
				x = ggml_view_4d(c.ctx, p, ne[0], ne[1], ne[2], ne[3], p->nb[1], p->nb[2], p->nb[3], 4);
			}
			c.out = ggml_unary(c.ctx, x, ops[o]);
			double *r = ref_alloc(&c);
			for (int64_t i = 0; i < c.n; i++)
				r[i] = d_unary(ops[o], tget_flat(x, i));
			run_case(_metadata, &c, variant ? 2e-6 : 1e-9, ggml_unary_op_name(ops[o]));
			tc_free(&c);
		}
	}
}

TEST(math_maps)
{
	for (int o = 0; o < 9; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 40);
		const bool positive = o == 1 || o == 2;
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], positive ? 0.01f : -4, 4);
		struct ggml_tensor *b = NULL;
		const char *name = "";
		switch (o) {
		case 0: c.out = ggml_sqr(c.ctx, a); name = "sqr"; break;
		case 1: c.out = ggml_sqrt(c.ctx, a); name = "sqrt"; break;
		case 2: c.out = ggml_log(c.ctx, a); name = "log"; break;
		case 3: c.out = ggml_sin(c.ctx, a); name = "sin"; break;
		case 4: c.out = ggml_cos(c.ctx, a); name = "cos"; break;
		case 5: c.out = ggml_scale(c.ctx, a, 0.37f); name = "scale"; break;
		case 6: c.out = ggml_scale_bias(c.ctx, a, -1.5f, 0.25f); name = "scale_bias"; break;
		case 7: c.out = ggml_clamp(c.ctx, a, -1.0f, 2.0f); name = "clamp"; break;
		case 8: b = input(&c, GGML_TYPE_F32, 1, 1, 1, 1, -3, 3); c.out = ggml_add1(c.ctx, a, b); name = "add1"; break;
		}
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++) {
			double x = tget_flat(a, i);
			switch (o) {
			case 0: r[i] = (float)(x * x); break;
			case 1: r[i] = sqrt(x); break;
			case 2: r[i] = log(x); break;
			case 3: r[i] = sin(x); break;
			case 4: r[i] = cos(x); break;
			case 5: r[i] = (float)(x * (double)0.37f); break;
			case 6: r[i] = x * (double)-1.5f + 0.25; break;
			case 7: r[i] = fmin(2, fmax(-1, x)); break;
			case 8: r[i] = (float)(x + tget(b, 0, 0, 0, 0)); break;
			}
		}
		run_case(_metadata, &c, 1e-12 + (o >= 1 && o <= 4 ? 1e-12 : 1e-12) + 1e-13, name);
		tc_free(&c);
	}
}

/* ---- reductions ---------------------------------------------------------- */

TEST(reductions)
{
	for (int o = 0; o < 4; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 300);
		if (o == 3) /* argmax: a matrix */
			ne[2] = ne[3] = 1;
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1);
		switch (o) {
		case 0: c.out = ggml_sum(c.ctx, a); break;
		case 1: c.out = ggml_sum_rows(c.ctx, a); break;
		case 2: c.out = ggml_mean(c.ctx, a); break;
		case 3: c.out = ggml_argmax(c.ctx, a); break;
		}
		double *r = ref_alloc(&c);
		const int64_t rows = ne[1] * ne[2] * ne[3];
		for (int64_t row = 0; row < rows; row++) {
			double s = 0;
			int64_t best = 0;
			for (int64_t i0 = 0; i0 < ne[0]; i0++) {
				double v = tget_flat(a, row * ne[0] + i0);
				s += v;
				if (v > tget_flat(a, row * ne[0] + best))
					best = i0;
			}
			if (o == 0)
				r[0] += s;
			else if (o == 1)
				r[row] = s;
			else if (o == 2)
				r[row] = s / ne[0];
			else
				r[row] = (double)best;
		}
		run_case(_metadata, &c, o == 3 ? 0 : 1e-10, o == 0 ? "sum" : o == 1 ? "sum_rows" : o == 2 ? "mean" : "argmax");
		tc_free(&c);
	}
}

TEST(argsort)
{
	for (int order = 0; order < 2; order++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 200);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1);
		c.out = ggml_argsort(c.ctx, a, order ? GGML_SORT_ORDER_DESC : GGML_SORT_ORDER_ASC);
		double *r = ref_alloc(&c);
		const int64_t rows = ne[1] * ne[2] * ne[3];
		/* reference: selection of the rank of each element (values are distinct) */
		for (int64_t row = 0; row < rows; row++)
			for (int64_t i = 0; i < ne[0]; i++) {
				double v = tget_flat(a, row * ne[0] + i);
				int64_t rank = 0;
				for (int64_t j = 0; j < ne[0]; j++) {
					double w = tget_flat(a, row * ne[0] + j);
					if (order ? (w > v || (w == v && j < i)) : (w < v || (w == v && j < i)))
						rank++;
				}
				r[row * ne[0] + rank] = (double)i;
			}
		run_case(_metadata, &c, 0, order ? "argsort desc" : "argsort asc");
		tc_free(&c);
	}
}

TEST(norms)
{
	for (int o = 0; o < 4; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 400);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 5);
		const float eps = 1e-5f;
		const bool rms = o & 1;
		struct ggml_tensor *x = o >= 2 ? ggml_permute(c.ctx, a, 0, 2, 1, 3) : a;
		c.out = rms ? ggml_rms_norm(c.ctx, x, eps) : ggml_norm(c.ctx, x, eps);
		double *r = ref_alloc(&c);
		const int64_t rows = c.n / ne[0];
		for (int64_t row = 0; row < rows; row++) {
			double mean = 0, var = 0;
			for (int64_t i = 0; i < ne[0]; i++)
				mean += tget_flat(x, row * ne[0] + i);
			mean = rms ? 0 : mean / ne[0];
			for (int64_t i = 0; i < ne[0]; i++) {
				double d = tget_flat(x, row * ne[0] + i) - mean;
				var += d * d;
			}
			double sc = 1 / sqrt(var / ne[0] + eps);
			for (int64_t i = 0; i < ne[0]; i++)
				r[row * ne[0] + i] = (tget_flat(x, row * ne[0] + i) - mean) * sc;
		}
		run_case(_metadata, &c, 1e-12, rms ? "rms_norm" : "norm");
		tc_free(&c);
	}
}

/* the large-output tests run on x86-64 only, and not under ThreadSanitizer:
 * true when this one is skipped */
static bool large_outputs_skipped(struct __test_metadata *_metadata)
{
#if !defined(__x86_64__)
	SKIP(return true, "non-temporal stores only on x86-64 (and slow under emulation)");
#endif
#if defined(__SANITIZE_THREAD__)
	SKIP(return true, "too slow under ThreadSanitizer");
#endif
	(void)_metadata;
	return false;
}

/*
 * Outputs past GGML_CPU_STREAM_BYTES (32 MiB) are written with non-temporal
 * stores on x86-64 (NORM, RMS_NORM, conversions into F32): an F32 output of
 * 1031 x 8140 values (33.6 MB; odd rows, so most rows start unaligned):
 * NORM, RMS_NORM in place, BF16 -> F32. Not under ThreadSanitizer (too slow
 * there for the harness's timeout; the split of rows is the other ops').
 */
TEST(large_outputs)
{
	if (large_outputs_skipped(_metadata))
		return;
	const int64_t ne0 = 1031, ne1 = 8140;
	for (int o = 0; o < 3; o++) {
		struct ggml_init_params ip = { 3 * ne0 * ne1 * 4 + 16 * 1024 * 1024, NULL, false };
		struct tc c = { .ctx = ggml_init(ip) };
		ASSERT_NE(c.ctx, NULL);
		struct ggml_tensor *a = input(&c, o == 2 ? GGML_TYPE_BF16 : GGML_TYPE_F32, ne0, ne1, 1, 1, -3, 5);
		const float eps = 1e-5f;
		const char *name = o == 0 ? "norm" : o == 1 ? "rms_norm_inplace" : "cpy bf16->f32";
		if (o == 0)
			c.out = ggml_norm(c.ctx, a, eps);
		else if (o == 1)
			c.out = ggml_rms_norm_inplace(c.ctx, a, eps);
		else
			c.out = ggml_cpy(c.ctx, a, ggml_new_tensor_2d(c.ctx, GGML_TYPE_F32, ne0, ne1));
		double *r = ref_alloc(&c);
		for (int64_t row = 0; row < ne1; row++) {
			double mean = 0, var = 0;
			for (int64_t i = 0; i < ne0; i++)
				mean += tget_flat(a, row * ne0 + i);
			mean = o == 0 ? mean / ne0 : 0;
			for (int64_t i = 0; i < ne0; i++) {
				double d = tget_flat(a, row * ne0 + i) - mean;
				var += d * d;
			}
			double sc = o == 2 ? 1 : 1 / sqrt(var / ne0 + eps);
			for (int64_t i = 0; i < ne0; i++)
				r[row * ne0 + i] = (tget_flat(a, row * ne0 + i) - mean) * sc;
		}
		run_case(_metadata, &c, o == 2 ? 1e-14 : 1e-12, name);
		tc_free(&c);
	}
}

/*
 * More streamed outputs (past GGML_CPU_STREAM_BYTES; x86-64 writes them with
 * non-temporal stores from the kernels, issue 16): ADD of two odd-width
 * tensors (rows off 32-byte boundaries), MUL by a broadcast row, NORM at
 * 4096 wide (AVX512: the two-row pipeline, output rows at either 32-byte
 * offset from a line), SOFT_MAX with an F16 mask of 64 rows, CPY F16 ->
 * F32. Not under ThreadSanitizer (too slow there).
 */
static void large_eltwise(struct __test_metadata *_metadata, int o0, int o1)
{
	for (int o = o0; o <= o1; o++) {
		if (o == 4)
			continue; /* (SOFT_MAX without a mask: not streamed) */
		const int64_t ne0 = o == 0 ? 4101 : o == 6 ? 1031 : 4096;
		const int64_t ne1 = o == 0 ? 2100 : o == 6 ? 8140 : o == 5 ? 64 : 2050;
		const int64_t ne2 = o == 5 ? 33 : 1;
		struct ggml_init_params ip = { 3 * ne0 * ne1 * ne2 * 4 + 16 * 1024 * 1024, NULL, false };
		struct tc c = { .ctx = ggml_init(ip) };
		ASSERT_NE(c.ctx, NULL);
		if (o == 3)
			ggml_new_tensor_1d(c.ctx, GGML_TYPE_F32, 1); /* NORM's output 16 bytes further */
		struct ggml_tensor *a = input(&c, o == 6 ? GGML_TYPE_F16 : GGML_TYPE_F32, ne0, ne1, ne2, 1, -3, 5), *b = NULL;
		const char *name = "?";
		double *r;
		switch (o) {
		case 0: case 1:
			b = input(&c, GGML_TYPE_F32, ne0, o == 0 ? ne1 : 1, 1, 1, 0.5f, 2);
			c.out = o == 0 ? ggml_add(c.ctx, a, b) : ggml_mul(c.ctx, a, b);
			name = o == 0 ? "add" : "mul row";
			r = ref_alloc(&c);
			for (int64_t i = 0; i < ne0 * ne1; i++)
				r[i] = o == 0 ? tget_flat(a, i) + tget_flat(b, i) : tget_flat(a, i) * tget_flat(b, i % ne0);
			break;
		case 2: case 3:
			c.out = ggml_norm(c.ctx, a, 1e-5f);
			name = o == 2 ? "norm" : "norm off 16";
			r = ref_alloc(&c);
			for (int64_t row = 0; row < ne1; row++) {
				double mean = 0, var = 0;
				for (int64_t i = 0; i < ne0; i++)
					mean += tget_flat(a, row * ne0 + i);
				mean /= ne0;
				for (int64_t i = 0; i < ne0; i++) {
					double d = tget_flat(a, row * ne0 + i) - mean;
					var += d * d;
				}
				const double sc = 1 / sqrt(var / ne0 + 1e-5);
				for (int64_t i = 0; i < ne0; i++)
					r[row * ne0 + i] = (tget_flat(a, row * ne0 + i) - mean) * sc;
			}
			break;
		case 4: case 5: {
			struct ggml_tensor *m = NULL;
			if (o == 5) {
				m = input(&c, GGML_TYPE_F16, ne0, ne1, 1, 1, -2, 2);
				for (int64_t i1 = 0; i1 < ne1; i1++)
					for (int64_t i0 = ne0 - ne1 + i1 + 1; i0 < ne0; i0++)
						tset_f(m, i0, i1, 0, 0, -INFINITY);
			}
			c.out = ggml_soft_max_ext(c.ctx, a, m, 0.3f, 0.0f);
			name = o == 4 ? "soft_max" : "soft_max mask";
			r = ref_alloc(&c);
			for (int64_t row = 0; row < ne1 * ne2; row++) {
				double mx = -INFINITY, sum = 0;
				double *z = r + row * ne0;
				for (int64_t i = 0; i < ne0; i++) {
					z[i] = tget_flat(a, row * ne0 + i) * (double)0.3f + (m ? tget(m, i, row % ne1, 0, 0) : 0);
					mx = fmax(mx, z[i]);
				}
				for (int64_t i = 0; i < ne0; i++)
					sum += z[i] = exp(z[i] - mx);
				for (int64_t i = 0; i < ne0; i++)
					z[i] /= sum;
			}
			break;
		}
		case 6:
			c.out = ggml_cpy(c.ctx, a, ggml_new_tensor_2d(c.ctx, GGML_TYPE_F32, ne0, ne1));
			name = "cpy f16->f32";
			r = ref_alloc(&c);
			for (int64_t i = 0; i < ne0 * ne1; i++)
				r[i] = tget_flat(a, i);
			break;
		}
		run_case(_metadata, &c, o == 6 ? 1e-14 : 1e-12, name);
		tc_free(&c);
	}
}

/* (three tests: each case takes seconds under ASan) */
TEST(large_outputs_binary)
{
	if (large_outputs_skipped(_metadata))
		return;
	large_eltwise(_metadata, 0, 1);
}

TEST(large_outputs_norm)
{
	if (large_outputs_skipped(_metadata))
		return;
	large_eltwise(_metadata, 2, 3);
}

TEST(large_outputs_softmax_cpy)
{
	if (large_outputs_skipped(_metadata))
		return;
	large_eltwise(_metadata, 5, 6);
}

/* ---- soft_max ---------------------------------------------------------------- */

/* variants 6 and 7: whole rows masked between others (the next row's
 * maximum, found in a row's exponential pass on x86-64, then comes from its
 * own pass), a negative scale without a mask (no such pass) */
TEST(soft_max)
{
	for (int variant = 0; variant < 8; variant++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 300);
		ne[2] = irand(1, 6);
		if (variant >= 6)
			ne[1] = irand(3, 9);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -8, 8);
		struct ggml_tensor *m = NULL;
		float scale = variant == 0 ? 1.0f : variant == 7 ? -0.5f : 0.3f;
		float max_bias = variant == 4 || variant == 5 ? 8.0f : 0.0f;
		if (variant == 6) {
			m = input(&c, GGML_TYPE_F16, ne[0], ne[1], 1, 1, -2, 2);
			for (int64_t i1 = 0; i1 < m->ne[1]; i1++)
				for (int64_t i0 = 0; i0 < m->ne[0]; i0++)
					if (i1 % 3 == 1)
						tset_f(m, i0, i1, 0, 0, -INFINITY);
		} else if (variant >= 1 && variant <= 5) {
			const enum ggml_type mt = variant % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
			m = input(&c, mt, ne[0], ne[1] + irand(0, 2), variant == 3 ? ne[2] : 1, 1, -2, 2);
			/* a causal-style -inf region */
			for (int64_t i1 = 0; i1 < m->ne[1]; i1++)
				for (int64_t i0 = 0; i0 < m->ne[0]; i0++)
					if (i0 > i1 + 2)
						for (int64_t i2 = 0; i2 < m->ne[2]; i2++)
							tset_f(m, i0, i1, i2, 0, -INFINITY);
		}
		c.out = variant == 0 ? ggml_soft_max(c.ctx, a) : ggml_soft_max_ext(c.ctx, a, m, scale, max_bias);
		double *r = ref_alloc(&c);
		const int64_t n_head = ne[2];
		const int n_head_log2 = 1 << (int)floor(log2((double)n_head));
		const double m0 = pow(2.0, -max_bias / n_head_log2), m1 = pow(2.0, -(max_bias / 2) / n_head_log2);
		for (int64_t i3 = 0; i3 < ne[3]; i3++)
			for (int64_t i2 = 0; i2 < ne[2]; i2++)
				for (int64_t i1 = 0; i1 < ne[1]; i1++) {
					double slope = max_bias > 0 ? (i2 < n_head_log2 ? pow(m0, i2 + 1) : pow(m1, 2 * (i2 - n_head_log2) + 1)) : 1;
					double mx = -INFINITY, s = 0;
					double *row = r + ((i3 * ne[2] + i2) * ne[1] + i1) * ne[0];
					for (int64_t i0 = 0; i0 < ne[0]; i0++) {
						double v = tget(a, i0, i1, i2, i3) * (double)scale;
						if (m)
							v += slope * tget(m, i0, i1, i2 % m->ne[2], 0);
						row[i0] = v;
						mx = fmax(mx, v);
					}
					for (int64_t i0 = 0; i0 < ne[0]; i0++) {
						row[i0] = mx == -INFINITY ? 0 : exp(row[i0] - mx);
						s += row[i0];
					}
					for (int64_t i0 = 0; i0 < ne[0]; i0++)
						row[i0] = s > 0 ? row[i0] / s : 0;
				}
		run_case(_metadata, &c, 1e-12, "soft_max");
		tc_free(&c);
	}
}

/* ---- rope ---------------------------------------------------------------- */

static double d_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base)
{
	return n_dims * log(n_ctx_orig / (n_rot * 2 * M_PI)) / (2 * log(base));
}

TEST(rope)
{
	/* variant 6: YaRN with n_ctx_orig 0, whose correction dims are -inf */
	for (int variant = 0; variant < 7; variant++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t D = 2 * irand(2, 40), H = irand(1, 5), T = irand(1, 7);
		const int n_dims = variant == 2 ? (int)(D / 2 + (D / 2) % 2) : (int)D;
		const int mode = variant & 1 ? GGML_ROPE_TYPE_NEOX : 0;
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, D, H, T, 1, -1, 1);
		struct ggml_tensor *pos = input(&c, GGML_TYPE_I32, T, 1, 1, 1, 0, 4000);
		struct ggml_tensor *ff = variant >= 3 ? input(&c, GGML_TYPE_F32, n_dims / 2, 1, 1, 1, 1, 4) : NULL;
		const float base = 10000.0f, fscale = variant >= 4 ? 0.25f : 1.0f, ext = variant >= 4 ? 1.0f : 0.0f;
		const float attn = variant == 5 ? 1.2f : 1.0f, bfast = 32.0f, bslow = 1.0f;
		const int n_ctx_orig = variant == 6 ? 0 : 4096;
		c.out = ggml_rope_ext(c.ctx, a, pos, ff, n_dims, mode, n_ctx_orig, base, fscale, ext, attn, bfast, bslow);
		double *r = ref_alloc(&c);
		double lo = fmax(0, floor(d_corr_dim(n_dims, n_ctx_orig, bfast, base)));
		double hi = fmin(n_dims - 1, ceil(d_corr_dim(n_dims, n_ctx_orig, bslow, base)));
		for (int64_t t = 0; t < T; t++)
			for (int64_t h = 0; h < H; h++) {
				double *row = r + (t * H + h) * D;
				for (int64_t i = 0; i < D; i++)
					row[i] = tget(a, i, h, t, 0);
				for (int64_t k = 0; k < n_dims / 2; k++) {
					double te = tget(pos, t, 0, 0, 0) * pow(base, -2.0 * k / n_dims);
					if (ff)
						te /= tget(ff, k, 0, 0, 0);
					double theta = fscale * te, msc = attn;
					if (ext != 0) {
						double y = (k - lo) / fmax(0.001, hi - lo);
						double mix = (1 - fmin(1, fmax(0, y))) * ext;
						theta = theta * (1 - mix) + te * mix;
						msc *= 1 + 0.1 * log(1 / fscale);
					}
					int64_t i0 = mode ? k : 2 * k, i1 = mode ? k + n_dims / 2 : 2 * k + 1;
					double x0 = tget(a, i0, h, t, 0), x1 = tget(a, i1, h, t, 0);
					row[i0] = (x0 * cos(theta) - x1 * sin(theta)) * msc;
					row[i1] = (x0 * sin(theta) + x1 * cos(theta)) * msc;
				}
			}
		/* positions up to 4000: theta and its sin/cos in float lose ~4000 * 2^-24 */
		run_case(_metadata, &c, 1e-8, mode ? "rope neox" : "rope");
		tc_free(&c);
	}
}

/*
 * ROPE's angles without a YaRN ramp (op_rope's rope_cache takes a shorter
 * loop then) against the general loop, which an ext_factor of 1e-30 picks:
 * with freq_scale 1 the ramp's mix (<= 1e-30) leaves 1 - mix at 1 and adds
 * te * mix far below an ulp of every angle, and log(1 / freq_scale) = 0
 * leaves the magnitude scale, so the two give the same bits. Normal and
 * NeoX, with and without freq factors, positions up to 10^6, 1 and 3
 * threads.
 */
TEST(rope_angles_bits)
{
	for (int variant = 0; variant < 4; variant++) {
		for (int nth = 1; nth <= 3; nth += 2) {
			struct tc c = { .ctx = new_ctx() };
			const int64_t D = variant & 2 ? 128 : 2 * irand(2, 40), H = irand(1, 5), T = 7;
			const int mode = variant & 1 ? GGML_ROPE_TYPE_NEOX : 0;
			struct ggml_tensor *a = input(&c, GGML_TYPE_F32, D, H, T, 1, -1, 1);
			struct ggml_tensor *pos = input(&c, GGML_TYPE_I32, T, 1, 1, 1, 0, 4000);
			((int32_t *)pos->data)[T - 1] = 1000000;
			((int32_t *)pos->data)[0] = 0;
			struct ggml_tensor *ff = variant >= 2 ? input(&c, GGML_TYPE_F32, D / 2, 1, 1, 1, 1, 4) : NULL;
			struct ggml_tensor *o[2];
			for (int k = 0; k < 2; k++) {
				o[k] = ggml_rope_ext(c.ctx, a, pos, ff, (int)D, mode, 4096, 10000.0f, 1.0f, k ? 1e-30f : 0.0f,
						     1.2f, 32.0f, 1.0f);
				ASSERT_EQ(compute(c.ctx, o[k], nth, NULL), GGML_STATUS_SUCCESS);
			}
			EXPECT_EQ(memcmp(o[0]->data, o[1]->data, ggml_nbytes(o[0])), 0)
				TH_LOG("variant %d D %lld nth %d", variant, (long long)D, nth);
			tc_free(&c);
		}
	}
}

/* ---- get_rows, set_rows, cpy ------------------------------------------ */

static int ref_dequant(const struct ggml_tensor *t, float *out)
{
	/* rows of a quantized tensor through the core's reference dequantizer */
	for (int64_t r = 0; r < ggml_nrows(t); r++) {
		int64_t i1 = r % t->ne[1], i2 = (r / t->ne[1]) % t->ne[2], i3 = r / (t->ne[1] * t->ne[2]);
		ggml_get_type_traits(t->type)->to_float(eptr(t, 0, i1, i2, i3), out + r * t->ne[0], t->ne[0]);
	}
	return 0;
}

TEST(get_rows)
{
	const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
					 GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t bs = ggml_blck_size(types[t]);
		const int64_t ne0 = bs * irand(1, bs == 1 ? 70 : 3), ne1 = irand(2, 30), ne2 = irand(1, 3);
		struct ggml_tensor *a = input(&c, types[t], ne0, ne1, ne2, 1, -1, 1);
		struct ggml_tensor *ids = input(&c, GGML_TYPE_I32, irand(1, 12), ne2, 1, 1, 0, (float)(ne1 - 1));
		c.out = ggml_get_rows(c.ctx, a, ids);
		double *r = ref_alloc(&c);
		float *deq = malloc(ggml_nelements(a) * sizeof(float));
		if (ggml_is_quantized(types[t]))
			ref_dequant(a, deq);
		for (int64_t i2 = 0; i2 < ne2; i2++)
			for (int64_t i1 = 0; i1 < ids->ne[0]; i1++) {
				int64_t row = (int64_t)tget(ids, i1, i2, 0, 0);
				for (int64_t i0 = 0; i0 < ne0; i0++)
					r[(i2 * ids->ne[0] + i1) * ne0 + i0] = ggml_is_quantized(types[t]) ?
						deq[(i2 * ne1 + row) * ne0 + i0] : tget(a, i0, row, i2, 0);
			}
		free(deq);
		run_case(_metadata, &c, 1e-14, ggml_type_name(types[t]));
		tc_free(&c);
	}
}

TEST(set_rows_and_cpy)
{
	const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0 };
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (int op = 0; op < 2; op++) {
			struct tc c = { .ctx = new_ctx() };
			const int64_t ne0 = 32 * irand(1, 4), n = irand(1, 9), ne2 = irand(1, 3);
			struct ggml_tensor *b = input(&c, GGML_TYPE_F32, ne0, n, ne2, 1, -3, 3);
			struct ggml_tensor *dst;
			int64_t *map = calloc(64 * ne2, sizeof(int64_t));
			if (op == 0) {
				const int64_t rows = n + irand(0, 5);
				dst = input(&c, types[t], ne0, rows, ne2, 1, -1, 1);
				/* distinct target rows: a random permutation prefix */
				struct ggml_tensor *ids = input(&c, GGML_TYPE_I64, n, ne2, 1, 1, 0, 0);
				for (int64_t i2 = 0; i2 < ne2; i2++) {
					int64_t perm[64];
					for (int64_t i = 0; i < rows; i++) perm[i] = i;
					for (int64_t i = rows - 1; i > 0; i--) {
						int64_t j = irand(0, (int)i), tmp = perm[i];
						perm[i] = perm[j]; perm[j] = tmp;
					}
					for (int64_t i = 0; i < n; i++)
						*(int64_t *)eptr(ids, i, i2, 0, 0) = perm[i];
					for (int64_t i = 0; i < rows; i++) map[i2 * 64 + i] = -1;
					for (int64_t i = 0; i < n; i++) map[i2 * 64 + perm[i]] = i;
				}
				c.out = ggml_set_rows(c.ctx, dst, b, ids);
			} else {
				dst = ggml_new_tensor_4d(c.ctx, types[t], ne0, n, ne2, 1);
				c.out = ggml_cpy(c.ctx, b, dst);
			}
			double *r = ref_alloc(&c);
			/* expected: the row quantized by the core's reference (quantized types), or rounded */
			const int64_t rows = c.out->ne[1];
			float *tmp = malloc(ne0 * sizeof(float));
			void *q = malloc(ggml_row_size(types[t], ne0));
			for (int64_t i2 = 0; i2 < ne2; i2++)
				for (int64_t i1 = 0; i1 < rows; i1++) {
					int64_t src_row = op == 0 ? map[i2 * 64 + i1] : i1;
					for (int64_t i0 = 0; i0 < ne0; i0++)
						tmp[i0] = src_row >= 0 ? (float)tget(b, i0, src_row, i2, 0) : 0;
					if (src_row < 0) { /* untouched row: its old content */
						if (ggml_is_quantized(types[t]))
							ggml_get_type_traits(types[t])->to_float(eptr(dst, 0, i1, i2, 0), tmp, ne0);
						else
							for (int64_t i0 = 0; i0 < ne0; i0++) tmp[i0] = (float)tget(dst, i0, i1, i2, 0);
					} else if (ggml_is_quantized(types[t])) {
						ggml_quantize_chunk(types[t], tmp, q, 0, 1, ne0, NULL);
						ggml_get_type_traits(types[t])->to_float(q, tmp, ne0);
					} else if (types[t] == GGML_TYPE_F16) {
						for (int64_t i0 = 0; i0 < ne0; i0++)
							tmp[i0] = (float)half_to_double(ggml_fp32_to_fp16(tmp[i0]));
					} else if (types[t] == GGML_TYPE_BF16) {
						for (int64_t i0 = 0; i0 < ne0; i0++)
							tmp[i0] = (float)bf16_to_double(ggml_fp32_to_bf16(tmp[i0]).bits);
					}
					for (int64_t i0 = 0; i0 < ne0; i0++)
						r[(i2 * rows + i1) * ne0 + i0] = tmp[i0];
				}
			if (ggml_is_quantized(types[t])) {
				/* compare dequantized: out is read through a F32 copy */
				struct ggml_tensor *deq = ggml_new_tensor_4d(c.ctx, GGML_TYPE_F32, ne0, rows, ne2, 1);
				c.out = ggml_cpy(c.ctx, c.out, deq);
			}
			free(tmp); free(q); free(map);
			run_case(_metadata, &c, 1e-14, op ? "cpy" : "set_rows");
			tc_free(&c);
		}
	}
}

TEST(dup_cont_views)
{
	for (int variant = 0; variant < 5; variant++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 33);
		const enum ggml_type st = variant == 3 ? GGML_TYPE_F16 : GGML_TYPE_F32;
		struct ggml_tensor *a = input(&c, st, ne[0], ne[1], ne[2], ne[3], -1, 1);
		struct ggml_tensor *x;
		switch (variant) {
		case 0: x = ggml_permute(c.ctx, a, 2, 0, 1, 3); c.out = ggml_cont(c.ctx, x); break;
		case 1: x = ggml_transpose(c.ctx, a); c.out = ggml_cont(c.ctx, x); break;
		case 2: x = a; c.out = ggml_dup(c.ctx, a); break;
		case 3: x = ggml_transpose(c.ctx, a);
			c.out = ggml_cpy(c.ctx, x, ggml_new_tensor_4d(c.ctx, GGML_TYPE_F32, ne[1], ne[0], ne[2], ne[3])); break;
		default: /* different shape, same element count: the flat order is kept */
			x = ggml_transpose(c.ctx, a);
			c.out = ggml_cpy(c.ctx, x, ggml_new_tensor_1d(c.ctx, GGML_TYPE_F32, ggml_nelements(a))); break;
		}
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++)
			r[i] = tget_flat(x, i);
		run_case(_metadata, &c, 0, "dup/cont/cpy");
		tc_free(&c);
	}
}

/* ---- glu ------------------------------------------------------------------ */

TEST(glu)
{
	const enum ggml_glu_op ops[] = { GGML_GLU_OP_REGLU, GGML_GLU_OP_GEGLU, GGML_GLU_OP_SWIGLU, GGML_GLU_OP_GEGLU_QUICK };
	for (int o = 0; o < 4; o++) {
		for (int form = 0; form < 3; form++) { /* fused, fused swapped, split */
			struct tc c = { .ctx = new_ctx() };
			int64_t ne[4];
			rand_shape(ne, 60);
			struct ggml_tensor *a = input(&c, GGML_TYPE_F32, form == 2 ? ne[0] : 2 * ne[0], ne[1], ne[2], ne[3], -4, 4);
			struct ggml_tensor *b = form == 2 ? input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -4, 4) : NULL;
			c.out = form == 2 ? ggml_glu_split(c.ctx, a, b, ops[o]) : ggml_glu(c.ctx, a, ops[o], form == 1);
			double *r = ref_alloc(&c);
			for (int64_t row = 0; row < c.n / ne[0]; row++)
				for (int64_t i = 0; i < ne[0]; i++) {
					double x, g;
					if (form == 2) {
						x = tget_flat(a, row * ne[0] + i);
						g = tget_flat(b, row * ne[0] + i);
					} else {
						double lo = tget_flat(a, row * 2 * ne[0] + i), hi = tget_flat(a, row * 2 * ne[0] + ne[0] + i);
						x = form == 1 ? hi : lo;
						g = form == 1 ? lo : hi;
					}
					double act = o == 0 ? (x > 0 ? x : 0) : o == 1 ? d_unary(GGML_UNARY_OP_GELU, x) :
						     o == 2 ? d_unary(GGML_UNARY_OP_SILU, x) : d_unary(GGML_UNARY_OP_GELU_QUICK, x);
					r[row * ne[0] + i] = act * g;
				}
			run_case(_metadata, &c, 1e-11, ggml_glu_op_name(ops[o]));
			tc_free(&c);
		}
	}
}

/* ---- shape ops ------------------------------------------------------------ */

/*
 * CONCAT and REPEAT of integer and quantized tensors move bytes: every byte
 * of the result must be the byte of the source element (or block) it comes
 * from, sources filled with random bytes (so no F32 round trip could keep
 * them: I32/I64 values beyond 2^24, NaN patterns in halves). Sources are
 * whole tensors or views (a slice in dims 2-3, and for unquantized types a
 * permuted view, whose rows are not dense).
 */
static void fill_bytes(struct ggml_tensor *t)
{
	uint8_t *p = t->data;
	for (size_t i = 0; i < ggml_nbytes(t); i++)
		p[i] = (uint8_t)irand(0, 255);
}

/* address of element (or, quantized, of the block holding element) i0 */
static const uint8_t *raw_at(const struct ggml_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
	return (const uint8_t *)t->data + (i0 / ggml_blck_size(t->type)) * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] +
	       i3 * t->nb[3];
}

static struct ggml_tensor *raw_source(struct ggml_context *ctx, enum ggml_type type, const int64_t ne[4], int view)
{
	if (view == 1) { /* a slice of a bigger tensor in dims 2 and 3 */
		struct ggml_tensor *t = ggml_new_tensor_4d(ctx, type, ne[0], ne[1], ne[2] + 1, ne[3] + 2);
		fill_bytes(t);
		return ggml_view_4d(ctx, t, ne[0], ne[1], ne[2], ne[3], t->nb[1], t->nb[2], t->nb[3], t->nb[2]);
	}
	if (view == 2 && !ggml_is_quantized(type)) { /* dims 0 and 1 swapped: rows not dense */
		struct ggml_tensor *t = ggml_new_tensor_4d(ctx, type, ne[1], ne[0], ne[2], ne[3]);
		fill_bytes(t);
		return ggml_permute(ctx, t, 1, 0, 2, 3);
	}
	struct ggml_tensor *t = ggml_new_tensor_4d(ctx, type, ne[0], ne[1], ne[2], ne[3]);
	fill_bytes(t);
	return t;
}

TEST(concat_repeat_raw)
{
	const enum ggml_type types[] = { GGML_TYPE_I8, GGML_TYPE_I16, GGML_TYPE_I32, GGML_TYPE_I64, GGML_TYPE_F16,
					 GGML_TYPE_Q8_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K };
	int bad = 0;
	for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		const enum ggml_type type = types[ti];
		const int64_t bs = ggml_blck_size(type);
		for (int o = 0; o < 5; o++) { /* concat in dim o, or (o == 4) repeat */
			if (o == 4 && ggml_is_quantized(type))
				continue;
			for (int view = 0; view < 3; view++) {
				for (int nth = 1; nth <= 3; nth += 2) {
					struct ggml_context *ctx = new_ctx();
					int64_t ne[4];
					rand_shape(ne, 9);
					ne[0] *= bs;
					int64_t nb_[4] = { ne[0], ne[1], ne[2], ne[3] };
					struct ggml_tensor *a = raw_source(ctx, type, ne, view), *b = NULL, *out;
					if (o < 4) {
						nb_[o] = o == 0 ? bs * irand(1, 3) : irand(1, 4);
						b = raw_source(ctx, type, nb_, (view + 1) % 3);
						out = ggml_concat(ctx, a, b, o);
					} else {
						out = ggml_repeat_4d(ctx, a, ne[0] * 3, ne[1] * 2, ne[2], ne[3] * 2);
					}
					ASSERT_EQ(compute(ctx, out, nth, NULL), GGML_STATUS_SUCCESS);
					/* each element (block) of out against its source's bytes */
					const size_t esz = ggml_type_size(type);
					int64_t nbad = 0;
					for (int64_t i3 = 0; i3 < out->ne[3]; i3++)
						for (int64_t i2 = 0; i2 < out->ne[2]; i2++)
							for (int64_t i1 = 0; i1 < out->ne[1]; i1++)
								for (int64_t i0 = 0; i0 < out->ne[0]; i0 += bs) {
									int64_t j[4] = { i0, i1, i2, i3 };
									const struct ggml_tensor *s = a;
									if (o == 4) {
										for (int d = 0; d < 4; d++)
											j[d] %= a->ne[d];
									} else if (j[o] >= a->ne[o]) {
										j[o] -= a->ne[o];
										s = b;
									}
									nbad += memcmp(raw_at(out, i0, i1, i2, i3),
										       raw_at(s, j[0], j[1], j[2], j[3]), esz) != 0;
								}
					if (nbad) {
						bad++;
						TH_LOG("%s %s view %d nth %d [%lld,%lld,%lld,%lld]: %lld elements differ",
						       o == 4 ? "repeat" : "concat", ggml_type_name(type), view, nth,
						       (long long)out->ne[0], (long long)out->ne[1], (long long)out->ne[2],
						       (long long)out->ne[3], (long long)nbad);
					}
					ggml_free(ctx);
				}
			}
		}
	}
	EXPECT_EQ(bad, 0);
}

/*
 * Same-type DUP/CPY/CONT are byte copies of elements or, quantized, of whole
 * blocks, for every type (the IQ types included, which have no quantizer to
 * go back through): into a slice (rows dense, tensor not contiguous), out of
 * a slice, and into a different shape (blocks regrouped in flat order).
 */
TEST(cpy_same_type_raw)
{
	const enum ggml_type types[] = { GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS,
					 GGML_TYPE_IQ3_XXS, GGML_TYPE_Q4_K, GGML_TYPE_Q8_0, GGML_TYPE_F16 };
	int bad = 0;
	for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		const enum ggml_type type = types[ti];
		const int64_t bs = ggml_blck_size(type);
		for (int form = 0; form < 4; form++) {
			for (int nth = 1; nth <= 3; nth += 2) {
				struct ggml_context *ctx = new_ctx();
				int64_t ne[4];
				rand_shape(ne, 7);
				ne[0] *= bs;
				struct ggml_tensor *a = raw_source(ctx, type, ne, form == 1 || form == 3), *dst, *out;
				switch (form) {
				case 0: { /* into a slice of a bigger tensor */
					struct ggml_tensor *big = ggml_new_tensor_4d(ctx, type, ne[0], ne[1] + 2, ne[2], ne[3]);
					fill_bytes(big);
					dst = ggml_view_4d(ctx, big, ne[0], ne[1], ne[2], ne[3], big->nb[1], big->nb[2],
							   big->nb[3], big->nb[1]);
					out = ggml_cpy(ctx, a, dst);
					break;
				}
				case 1: /* a slice made contiguous */
					out = dst = ggml_cont(ctx, a);
					break;
				case 2: /* into another shape: rows of a different length */
					dst = ggml_new_tensor_2d(ctx, type, ne[0] * ne[1], ne[2] * ne[3]);
					out = ggml_cpy(ctx, a, dst);
					break;
				default: /* a slice into another shape */
					dst = ggml_new_tensor_1d(ctx, type, ne[0] * ne[1] * ne[2] * ne[3]);
					out = ggml_cpy(ctx, a, dst);
					break;
				}
				ASSERT_EQ(compute(ctx, out, nth, NULL), GGML_STATUS_SUCCESS);
				/* block k of dst in flat order is block k of a */
				const size_t esz = ggml_type_size(type);
				const int64_t nblk = ggml_nelements(a) / bs;
				int64_t nbad = 0;
				for (int64_t k = 0; k < nblk; k++) {
					int64_t j[4], f = k;
					j[0] = (f % (a->ne[0] / bs)) * bs; f /= a->ne[0] / bs;
					j[1] = f % a->ne[1]; f /= a->ne[1];
					j[2] = f % a->ne[2]; j[3] = f / a->ne[2];
					int64_t i[4];
					f = k;
					i[0] = (f % (dst->ne[0] / bs)) * bs; f /= dst->ne[0] / bs;
					i[1] = f % dst->ne[1]; f /= dst->ne[1];
					i[2] = f % dst->ne[2]; i[3] = f / dst->ne[2];
					nbad += memcmp(raw_at(dst, i[0], i[1], i[2], i[3]), raw_at(a, j[0], j[1], j[2], j[3]),
						       esz) != 0;
				}
				if (nbad) {
					bad++;
					TH_LOG("%s form %d nth %d: %lld blocks differ", ggml_type_name(type), form, nth,
					       (long long)nbad);
				}
				ggml_free(ctx);
			}
		}
	}
	EXPECT_EQ(bad, 0);
}

TEST(shape_ops)
{
	for (int o = 0; o < 8; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 20);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1);
		struct ggml_tensor *b = NULL;
		const int dim = o % 4;
		const char *name = "";
		int lp[4] = { 0 }, rp[4] = { 0 };
		int n_past = irand(0, 3);
		if (o < 4) {
			int64_t nb_[4] = { ne[0], ne[1], ne[2], ne[3] };
			nb_[dim] = irand(1, 5);
			b = input(&c, GGML_TYPE_F32, nb_[0], nb_[1], nb_[2], nb_[3], -1, 1);
			c.out = ggml_concat(c.ctx, a, b, dim);
			name = "concat";
		} else if (o == 4) {
			c.out = ggml_repeat_4d(c.ctx, a, ne[0] * 2, ne[1] * 3, ne[2], ne[3] * 2);
			name = "repeat";
		} else if (o == 5) {
			for (int d = 0; d < 4; d++) { lp[d] = irand(0, 2); rp[d] = irand(0, 2); }
			c.out = ggml_pad_ext(c.ctx, a, lp[0], rp[0], lp[1], rp[1], lp[2], rp[2], lp[3], rp[3]);
			name = "pad";
		} else if (o == 6) {
			c.out = ggml_diag_mask_inf(c.ctx, a, n_past);
			name = "diag_mask_inf";
		} else {
			c.out = ggml_arange(c.ctx, -1.5f, 20.0f, 0.75f);
			name = "arange";
		}
		double *r = ref_alloc(&c);
		const int64_t *oe = c.out->ne;
		int64_t i = 0;
		for (int64_t i3 = 0; i3 < oe[3]; i3++)
			for (int64_t i2 = 0; i2 < oe[2]; i2++)
				for (int64_t i1 = 0; i1 < oe[1]; i1++)
					for (int64_t i0 = 0; i0 < oe[0]; i0++, i++) {
						int64_t j[4] = { i0, i1, i2, i3 };
						if (o < 4) {
							if (j[dim] < a->ne[dim])
								r[i] = tget(a, j[0], j[1], j[2], j[3]);
							else {
								j[dim] -= a->ne[dim];
								r[i] = tget(b, j[0], j[1], j[2], j[3]);
							}
						} else if (o == 4) {
							r[i] = tget(a, i0 % ne[0], i1 % ne[1], i2 % ne[2], i3 % ne[3]);
						} else if (o == 5) {
							int in = 1;
							for (int d = 0; d < 4; d++) {
								j[d] -= lp[d];
								in &= j[d] >= 0 && j[d] < ne[d];
							}
							r[i] = in ? tget(a, j[0], j[1], j[2], j[3]) : 0;
						} else if (o == 6) {
							r[i] = i0 > n_past + i1 ? -INFINITY : tget(a, i0, i1, i2, i3);
						} else {
							r[i] = -1.5 + 0.75 * i0;
						}
					}
		run_case(_metadata, &c, 0, name);
		tc_free(&c);
	}
}

/* ---- mul_mat ----------------------------------------------------------------- */

/* one MUL_MAT of type weights [K, M] (v = 2: two batches, the weights
 * broadcast; v = 3: a permuted, non-contiguous activation; v = 1: F16
 * activations) by N columns, against the double product of the reference
 * dequantization */
static void mul_mat_case(struct __test_metadata *_metadata, enum ggml_type type, int64_t K, int64_t M, int64_t N, int v)
{
	struct tc c = { .ctx = new_ctx() };
	const int64_t b2 = v == 2 ? 2 : 1, b3 = v == 3 ? 2 : 1; /* weights broadcast over batches */
	struct ggml_tensor *w = input(&c, type, K, M, b2, 1, -1, 1);
	struct ggml_tensor *x = input(&c, v == 1 ? GGML_TYPE_F16 : GGML_TYPE_F32, K, N, b2 * (v == 2 ? 2 : 1), b3, -1, 1);
	struct ggml_tensor *xx = x;
	if (v == 3) /* a non-contiguous activation: permuted dims 1 and 2 */
		xx = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, K, 1, N, b3, -1, 1), 0, 2, 1, 3);
	c.out = ggml_mul_mat(c.ctx, w, xx);
	double *r = ref_alloc(&c);
	float *wd = malloc(ggml_nelements(w) * sizeof(float));
	if (ggml_is_quantized(type))
		ref_dequant(w, wd);
	else
		for (int64_t i = 0; i < ggml_nelements(w); i++)
			wd[i] = (float)tget_flat(w, i);
	const int64_t B2 = xx->ne[2], B3 = xx->ne[3];
	for (int64_t i3 = 0; i3 < B3; i3++)
		for (int64_t i2 = 0; i2 < B2; i2++)
			for (int64_t j = 0; j < N; j++)
				for (int64_t i = 0; i < M; i++) {
					const int64_t w2 = i2 / (B2 / w->ne[2]);
					double s = 0;
					for (int64_t k = 0; k < K; k++)
						s += (double)wd[(w2 * M + i) * K + k] * tget(xx, k, j, i2, i3);
					r[((i3 * B2 + i2) * N + j) * M + i] = s;
				}
	free(wd);
	char name[64];
	snprintf(name, sizeof(name), "mul_mat %s K=%lld N=%lld", ggml_type_name(type), (long long)K, (long long)N);
	/* BF16 weights on AVX512-BF16: activations rounded to BF16 */
	const bool bf16dp = type == GGML_TYPE_BF16 && ggml_cpu_isa()->use_bf16dp;
	run_case(_metadata, &c, ggml_is_quantized(type) ? 2e-4 : bf16dp ? 1e-5 : (v == 1 ? 1e-6 : 1e-9), name);
	tc_free(&c);
}

TEST(mul_mat)
{
	const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
					 GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	static const int ncols[] = { 1, 3, 17, 70 };
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		const int64_t bs = ggml_blck_size(types[t]);
		for (int v = 0; v < 4; v++) {
			const int64_t K = bs == 1 ? irand(1, 300) : bs * irand(1, bs >= 256 ? 2 : 9);
			mul_mat_case(_metadata, types[t], K, irand(1, 150), ncols[v], v);
		}
	}
}

/* The types whose prefill packs int8 GEMM tiles through their unpack
 * function (cpu-mul-mat.c, MM_GEMM_MIN_COLS_UNPACK: 32 columns; those with
 * half tile blocks from 256, MM_GEMM_MIN_COLS_UNPACK_HALF), by enough
 * columns for that GEMM (rows around its 16-row tiles, weights broadcast
 * over two batches) and by 3 (their dots) */
TEST(mul_mat_unpack_gemm)
{
	const enum ggml_type types[] = { GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0,    GGML_TYPE_Q5_1,   GGML_TYPE_Q2_K,
					 GGML_TYPE_Q3_K,   GGML_TYPE_Q5_K,    GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS,
					 GGML_TYPE_Q1_0,   GGML_TYPE_Q2_0,    GGML_TYPE_MXFP4,  GGML_TYPE_NVFP4,
					 GGML_TYPE_TQ1_0,  GGML_TYPE_TQ2_0,   GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS,
					 GGML_TYPE_IQ2_S,  GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,  GGML_TYPE_IQ1_S,
					 GGML_TYPE_IQ1_M };
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		const enum ggml_type ty = types[t];
		const bool half = ty == GGML_TYPE_Q2_K || ty == GGML_TYPE_Q3_K || ty == GGML_TYPE_NVFP4 ||
				  ty == GGML_TYPE_IQ2_XS || ty == GGML_TYPE_IQ2_S || ty == GGML_TYPE_IQ1_M;
		const int64_t bs = ggml_blck_size(ty);
		const int64_t K = bs * irand(1, bs >= 256 ? 2 : 512 / bs);
		mul_mat_case(_metadata, ty, K, irand(1, 40), half ? 260 : 40, 2);
		mul_mat_case(_metadata, ty, K, irand(1, 40), 3, 0);
	}
}

/* The AVX-VNNI GEMMs (VPDPBUSD on VEX ymm, quant-gemm-avxvnni.c) against
 * the AVX2 ones they replace on CPUs that have AVX-VNNI: the same tiles and
 * integer sums, so the same bits. Types through gk_gemm_q8s (Q5_0, IQ4_NL)
 * and gk_gemm_q8s_min (Q4_1, Q5_K: offsets), by enough columns for the
 * unpack GEMM, rows around its 16-row tiles, at 1 and 3 threads; Q8_0/Q4_0
 * are in test-mul-mat. Skipped where the CPU has no AVX-VNNI. */
TEST(mul_mat_avxvnni_bits)
{
	static const char *const env_off = "avx512,dotprod";
	ggml_cpu_isa_disable(env_off);
	if (!ggml_cpu_isa()->use_avxvnni) {
		ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
		SKIP(return, "no AVX-VNNI on this CPU");
	}
	const enum ggml_type types[] = { GGML_TYPE_Q5_0, GGML_TYPE_IQ4_NL, GGML_TYPE_Q4_1, GGML_TYPE_Q5_K };
	int bad = 0;
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (int nth = 1; nth <= 3; nth += 2) {
			struct tc c = { .ctx = new_ctx() };
			const int64_t bs = ggml_blck_size(types[t]);
			const int64_t K = bs * (bs >= 256 ? 2 : 9), M = irand(17, 40), N = 40;
			struct ggml_tensor *w = input(&c, types[t], K, M, 1, 1, -1, 1);
			struct ggml_tensor *x = input(&c, GGML_TYPE_F32, K, N, 1, 1, -1, 1);
			c.out = ggml_mul_mat(c.ctx, w, x);
			const size_t nb = ggml_nbytes(c.out);
			float *vex = malloc(nb);
			ggml_cpu_isa_disable(env_off);
			ASSERT_EQ(compute(c.ctx, c.out, nth, NULL), GGML_STATUS_SUCCESS);
			memcpy(vex, c.out->data, nb);
			ggml_cpu_isa_disable("avx512,dotprod,avx_vnni");
			memset(c.out->data, 0xff, nb);
			ASSERT_EQ(compute(c.ctx, c.out, nth, NULL), GGML_STATUS_SUCCESS);
			if (memcmp(vex, c.out->data, nb) != 0) {
				bad++;
				TH_LOG("%s %lldx%lld by %lld, %d threads: AVX-VNNI and AVX2 GEMMs differ",
				       ggml_type_name(types[t]), (long long)M, (long long)K, (long long)N, nth);
			}
			free(vex);
			tc_free(&c);
		}
	}
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
	EXPECT_EQ(bad, 0);
}

/* BF16 weights by many columns (from 128 on x86-64 with AVX512-BF16,
 * MM_GEMM_MIN_COLS_BF16DP), K even: the AVX512-BF16 GEMM where the CPU has
 * it (activations rounded to BF16), with row counts around its 32-row
 * panels and 12-column tiles, K around its 512-value blocks (MM_KC_BF16) */
TEST(mul_mat_bf16_gemm)
{
	static const int shapes[][3] = { { 64, 96, 130 }, { 258, 33, 140 }, { 512, 100, 129 }, { 2, 7, 160 },
					 { 1030, 40, 136 } };
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t K = shapes[sh][0], M = shapes[sh][1], N = shapes[sh][2];
		struct ggml_tensor *w = input(&c, GGML_TYPE_BF16, K, M, 1, 1, -1, 1);
		struct ggml_tensor *x = input(&c, GGML_TYPE_F32, K, N, 1, 1, -1, 1);
		c.out = ggml_mul_mat(c.ctx, w, x);
		double *r = ref_alloc(&c);
		for (int64_t j = 0; j < N; j++)
			for (int64_t i = 0; i < M; i++) {
				double s = 0;
				for (int64_t k = 0; k < K; k++)
					s += tget(w, k, i, 0, 0) * tget(x, k, j, 0, 0);
				r[j * M + i] = s;
			}
		char name[64];
		snprintf(name, sizeof(name), "mul_mat bf16 %lldx%lld by %lld", (long long)M, (long long)K, (long long)N);
		run_case(_metadata, &c, ggml_cpu_isa()->use_bf16dp ? 1e-5 : 1e-9, name);
		tc_free(&c);
	}
}

/* F32, F16 and BF16 weights by many columns (from 64 on x86-64,
 * MM_GEMM_MIN_COLS_GEMV): the AVX512F float GEMM where
 * the CPU has it (BF16 only without AVX512-BF16: run here with that turned
 * off), with row counts around its 32-row panels and 96-row chunks, K around
 * its 16 x 16 transposes and K blocks, column counts around its 12-column
 * tiles; weight rows apart from each other (a view of wider rows) and a
 * batch broadcasting the weights */
TEST(mul_mat_f32_gemm)
{
	static const int shapes[][5] = { /* K, M, N, pad, batches */
		{ 64, 96, 66, 0, 1 }, { 300, 33, 80, 0, 1 }, { 513, 100, 70, 3, 1 }, { 17, 7, 64, 0, 2 },
		{ 256, 200, 65, 1, 1 }, { 15, 31, 67, 0, 1 }, { 48, 1, 70, 0, 2 }
	};
	static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
	/* what the environment turns off (GGML_CPU_DISABLE=avx512: the AVX2
	 * path), and the BF16 GEMM */
	char off[256];
	snprintf(off, sizeof(off), "%s,avx512_bf16", getenv("GGML_CPU_DISABLE") ? getenv("GGML_CPU_DISABLE") : "");
	ggml_cpu_isa_disable(off);
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
			struct tc c = { .ctx = new_ctx() };
			const int64_t K = shapes[sh][0], M = shapes[sh][1], N = shapes[sh][2], B = shapes[sh][4];
			struct ggml_tensor *wp = input(&c, types[t], K + shapes[sh][3], M, 1, 1, -1, 1);
			struct ggml_tensor *w = ggml_view_2d(c.ctx, wp, K, M, wp->nb[1], 0);
			struct ggml_tensor *x = input(&c, GGML_TYPE_F32, K, N, B, 1, -1, 1);
			c.out = ggml_mul_mat(c.ctx, w, x);
			double *r = ref_alloc(&c);
			for (int64_t b = 0; b < B; b++)
				for (int64_t j = 0; j < N; j++)
					for (int64_t i = 0; i < M; i++) {
						double s = 0;
						for (int64_t k = 0; k < K; k++)
							s += tget(w, k, i, 0, 0) * tget(x, k, j, b, 0);
						r[(b * N + j) * M + i] = s;
					}
			char name[64];
			snprintf(name, sizeof(name), "mul_mat %s %lldx%lld by %lld", ggml_type_name(types[t]), (long long)M,
				 (long long)K, (long long)N);
			run_case(_metadata, &c, 1e-9, name);
			tc_free(&c);
		}
	}
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

/* F32, F16 and BF16 weights by 1..17 columns and around the hand-over to
 * the GEMM (16 on the portable path and NEON, 64 on x86-64, 128 for BF16 on
 * AVX512-BF16): the few-column tiles (gk-gemv.h; 4 rows x up to 3 columns
 * on AVX2, 4 on NEON, 6 on AVX-512, column blocks beyond, rows in K pieces
 * of 4 KiB with several blocks), with each instruction set this CPU
 * has switched on in turn (AVX-512 with AVX512-BF16, AVX-512 without it,
 * AVX2 alone). K not a multiple of the vector widths (8, 16, 32 values),
 * rows not a multiple of the 4-row tile, weight rows apart from each other
 * (a view of wider rows); activations F32, F16, BF16, permuted
 * (non-contiguous) or in batches that broadcast the weights. */
TEST(mul_mat_few_cols)
{
	static const int64_t ks[] = { 1, 7, 15, 33, 64, 100, 257, 520, 1031, 2100 };
	static const char *const isas[] = { "", "avx512_bf16", "avx512" };
	static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
	const char *env = getenv("GGML_CPU_DISABLE") ? getenv("GGML_CPU_DISABLE") : "";
	for (size_t a = 0; a < sizeof(isas) / sizeof(isas[0]); a++) {
		char off[256];
		snprintf(off, sizeof(off), "%s,%s", env, isas[a]);
		ggml_cpu_isa_disable(off);
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			static const int64_t more[] = { 31, 63, 64, 65, 127, 128 };
			for (int64_t n = 1; n <= 17 + (int64_t)(sizeof(more) / sizeof(more[0])); n++) {
				const int64_t N = n <= 17 ? n : more[n - 18];
				struct tc c = { .ctx = new_ctx() };
				const int v = (int)((N + t) % 5); /* 0 F32, 1 F16, 2 BF16, 3 permuted, 4 batches */
				const int64_t K = ks[(N + 3 * t + a) % (sizeof(ks) / sizeof(ks[0]))];
				const int64_t M = 4 * irand(0, 9) + (N + t) % 4 + 1;
				const int64_t pad = N % 3, B = v == 4 ? 3 : 1;
				struct ggml_tensor *wp = input(&c, types[t], K + pad, M, 1, 1, -1, 1);
				struct ggml_tensor *w = ggml_view_2d(c.ctx, wp, K, M, wp->nb[1], 0);
				struct ggml_tensor *x;
				if (v == 3)
					x = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, K, 2, N, 1, -1, 1), 0, 2, 1, 3);
				else
					x = input(&c, v == 1 ? GGML_TYPE_F16 : v == 2 ? GGML_TYPE_BF16 : GGML_TYPE_F32, K, N, B,
						  1, -1, 1);
				c.out = ggml_mul_mat(c.ctx, w, x);
				double *r = ref_alloc(&c);
				const int64_t nb = x->ne[2];
				for (int64_t b = 0; b < nb; b++)
					for (int64_t j = 0; j < N; j++)
						for (int64_t i = 0; i < M; i++) {
							double sum = 0;
							for (int64_t k = 0; k < K; k++)
								sum += tget(w, k, i, 0, 0) * tget(x, k, j, b, 0);
							r[(b * N + j) * M + i] = sum;
						}
				char name[96];
				snprintf(name, sizeof(name), "mul_mat %s %lldx%lld by %lld act %d off '%s'",
					 ggml_type_name(types[t]), (long long)M, (long long)K, (long long)N, v, isas[a]);
				const bool bf16dp = types[t] == GGML_TYPE_BF16 && ggml_cpu_isa()->use_bf16dp;
				run_case(_metadata, &c, bf16dp ? 1e-5 : (v == 1 || v == 2) ? 1e-6 : 1e-9, name);
				tc_free(&c);
			}
		}
	}
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

/* F32, F16 and BF16 weights by one column (decode): the rows in blocks of 16
 * (MM_GEMV1_ROWS), a chunk four blocks a quarter of the rows apart read in
 * the same loop (gk_gemv1_*), with each instruction set this CPU has
 * switched on in turn. Row counts below a block, around whole blocks and
 * whole chunks (the last block short, the last chunk with fewer than four
 * blocks), K around the vector widths, weight rows apart from each other (a
 * view of wider rows) and batches that broadcast the weights: a row read
 * or written at the wrong place shows as a large error. */
TEST(mul_mat_one_col)
{
	static const int64_t ms[] = { 3, 17, 48, 63, 65, 129, 191, 257 };
	static const int64_t ks[] = { 1, 9, 31, 47, 100, 257 };
	static const char *const isas[] = { "", "avx512_bf16", "avx512" };
	static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
	const char *env = getenv("GGML_CPU_DISABLE") ? getenv("GGML_CPU_DISABLE") : "";
	for (size_t a = 0; a < sizeof(isas) / sizeof(isas[0]); a++) {
		char off[256];
		snprintf(off, sizeof(off), "%s,%s", env, isas[a]);
		ggml_cpu_isa_disable(off);
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
				struct tc c = { .ctx = new_ctx() };
				const int64_t M = ms[i], K = ks[(i + 3 * t + a) % (sizeof(ks) / sizeof(ks[0]))];
				const int64_t pad = i % 3, B = i % 4 == 1 ? 2 : 1;
				struct ggml_tensor *wp = input(&c, types[t], K + pad, M, 1, 1, -1, 1);
				struct ggml_tensor *w = ggml_view_2d(c.ctx, wp, K, M, wp->nb[1], 0);
				struct ggml_tensor *x = input(&c, GGML_TYPE_F32, K, 1, B, 1, -1, 1);
				c.out = ggml_mul_mat(c.ctx, w, x);
				double *r = ref_alloc(&c);
				for (int64_t b = 0; b < B; b++)
					for (int64_t j = 0; j < M; j++) {
						double sum = 0;
						for (int64_t k = 0; k < K; k++)
							sum += tget(w, k, j, 0, 0) * tget(x, k, 0, b, 0);
						r[b * M + j] = sum;
					}
				char name[96];
				snprintf(name, sizeof(name), "mul_mat %s %lldx%lld by 1 (%lld batches) off '%s'",
					 ggml_type_name(types[t]), (long long)M, (long long)K, (long long)B, isas[a]);
				const bool bf16dp = types[t] == GGML_TYPE_BF16 && ggml_cpu_isa()->use_bf16dp;
				run_case(_metadata, &c, bf16dp ? 1e-4 : 1e-9, name); /* (bf16dp: K = 1 too) */
				tc_free(&c);
			}
		}
	}
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

/* ---- flash_attn_ext ---------------------------------------------------------- */

/* FLASH_ATTN_EXT in double into r (dst [DV, H, NQ, B]): mask rows by query
 * and, where the mask has them, by head; sinks (sk) may be NULL */
static void fa_reference(double *r, const struct ggml_tensor *q, const struct ggml_tensor *k,
			 const struct ggml_tensor *vv, const struct ggml_tensor *m, const struct ggml_tensor *sk,
			 float scale, float max_bias, float softcap)
{
	const int64_t D = q->ne[0], NQ = q->ne[1], H = q->ne[2], B = q->ne[3];
	const int64_t NKV = k->ne[1], HKV = k->ne[2], DV = vv->ne[0];
	const int n_head_log2 = 1 << (int)floor(log2((double)H));
	const double m0 = pow(2.0, -max_bias / n_head_log2), m1 = pow(2.0, -(max_bias / 2) / n_head_log2);
	double *sc = malloc(NKV * sizeof(double));
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < H; h++)
			for (int64_t iq = 0; iq < NQ; iq++) {
				const int64_t hk = h / (H / HKV);
				const double slope = max_bias > 0 ? (h < n_head_log2 ? pow(m0, h + 1)
									: pow(m1, 2 * (h - n_head_log2) + 1)) : 1;
				double mx = sk ? tget(sk, h, 0, 0, 0) : -INFINITY, s = 0;
				for (int64_t j = 0; j < NKV; j++) {
					double d = 0;
					for (int64_t e = 0; e < D; e++)
						d += tget(q, e, iq, h, b) * tget(k, e, j, hk, 0);
					d *= scale;
					if (softcap != 0)
						d = softcap * tanh(d / softcap);
					sc[j] = d + (m ? slope * tget(m, j, iq, h % m->ne[2], 0) : 0);
					mx = fmax(mx, sc[j]);
				}
				for (int64_t j = 0; j < NKV; j++) {
					sc[j] = mx == -INFINITY ? 0 : exp(sc[j] - mx);
					s += sc[j];
				}
				if (sk)
					s += exp(tget(sk, h, 0, 0, 0) - mx);
				for (int64_t e = 0; e < DV; e++) {
					double o = 0;
					for (int64_t j = 0; j < NKV; j++)
						o += sc[j] * tget(vv, e, j, hk, 0);
					r[((b * NQ + iq) * H + h) * DV + e] = s > 0 ? o / s : 0;
				}
			}
	free(sc);
}

/*
 * Variants: 0 no mask; 1 F16 mask + GQA (4 query heads per K/V head);
 * 2 ALiBi; 3 F32 mask, causal, KV longer than a chunk of the vector path
 * (whole chunks masked for every row of a block), 2 batches; 4 logit
 * softcap, DV != DK, head dim not a multiple of 8; 5 permuted (strided) Q,
 * K and V rows (KV cache layout), GQA with 3 heads per K/V head; 6 F32
 * K/V (the generic path); 7 rows masked completely (output 0); 12 decode
 * (one query row) in the KV cache layout with 6 or 8 K/V heads and GQA 2
 * (the rows of several K/V heads per block, the last block short with 6).
 */
TEST(flash_attn_ext)
{
	/* v8-v11: a quantized KV cache (Q8_0, Q4_0 K with Q8_0 V in the cache
	 * layout with GQA and a causal mask), BF16 K with F32 V, F16 K with Q8_0 V */
	static const enum ggml_type kts[13] = { [6] = GGML_TYPE_F32, [8] = GGML_TYPE_Q8_0, [9] = GGML_TYPE_Q4_0,
						[10] = GGML_TYPE_BF16 };
	static const enum ggml_type vts[13] = { [6] = GGML_TYPE_F32, [8] = GGML_TYPE_Q8_0, [9] = GGML_TYPE_Q8_0,
						[10] = GGML_TYPE_F32, [11] = GGML_TYPE_Q8_0 };
	for (int v = 0; v < 13; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool cache = v == 5 || v == 9 || v == 12;
		const bool qkv = v >= 8 && v != 10;
		const int64_t D = v == 4 ? irand(1, 70) : qkv ? 32 * irand(1, 4) : 8 * irand(1, 16);
		const int64_t DV = v == 4 ? irand(1, 50) : D;
		const int64_t NQ = v == 12 ? 1 : irand(1, 9);
		const int64_t NKV = v == 3 || v == 9 || v == 12 ? irand(65, 260) : 2 * irand(0, 60) + 1;
		const int64_t HKV = v == 1 ? 2 : v == 5 || v == 9 ? 2 : v == 12 ? 2 * irand(3, 4) : 4;
		const int64_t H = v == 1 ? 8 : v == 5 || v == 9 ? 6 : v == 12 ? 2 * HKV : 4;
		const int64_t B = v == 3 ? 2 : 1;
		const enum ggml_type kvt = kts[v] ? kts[v] : GGML_TYPE_F16, vvt = vts[v] ? vts[v] : GGML_TYPE_F16;
		struct ggml_tensor *q;
		if (cache) {
			/* [D, H, NQ] stored, viewed as [D, NQ, H] */
			struct ggml_tensor *qs = input(&c, GGML_TYPE_F32, D, H, NQ, B, -1, 1);
			q = ggml_permute(c.ctx, qs, 0, 2, 1, 3);
		} else {
			q = input(&c, GGML_TYPE_F32, D, NQ, H, B, -1, 1);
		}
		struct ggml_tensor *k, *vv;
		if (cache) { /* a KV cache layout: [D, HKV, NKV] stored, viewed as [D, NKV, HKV] */
			k = ggml_permute(c.ctx, input(&c, kvt, D, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
			vv = ggml_permute(c.ctx, input(&c, vvt, DV, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
		} else {
			k = input(&c, kvt, D, NKV, HKV, 1, -1, 1);
			vv = input(&c, vvt, DV, NKV, HKV, 1, -1, 1);
		}
		struct ggml_tensor *m = NULL;
		if (v >= 1) {
			m = input(&c, v == 3 ? GGML_TYPE_F32 : GGML_TYPE_F16, NKV, NQ + irand(0, 3), 1, 1, -1, 0);
			if (v == 3 || v == 9) /* causal: query i sees keys up to NKV - NQ + i */
				for (int64_t i1 = 0; i1 < m->ne[1]; i1++)
					for (int64_t i0 = NKV - NQ + i1 + 1; i0 < NKV; i0++)
						tset_f(m, i0, i1, 0, 0, -INFINITY);
			if (v == 7) /* first query row fully masked, others partly */
				for (int64_t i1 = 0; i1 < m->ne[1]; i1++)
					for (int64_t i0 = 0; i0 < NKV; i0++)
						if (i1 == 0 || i0 % 3 == 1)
							tset_f(m, i0, i1, 0, 0, -INFINITY);
		}
		const float scale = 1.0f / sqrtf((float)D), max_bias = v == 2 ? 4.0f : 0.0f;
		const float softcap = v == 4 ? 2.5f : 0.0f;
		c.out = ggml_flash_attn_ext(c.ctx, q, k, vv, m, scale, max_bias, softcap);
		fa_reference(ref_alloc(&c), q, k, vv, m, NULL, scale, max_bias, softcap);
		char name[64];
		snprintf(name, sizeof(name), "flash_attn_ext v%d D=%lld NKV=%lld", v, (long long)D, (long long)NKV);
		run_case(_metadata, &c, 1e-10, name);
		tc_free(&c);
	}
}

/*
 * Decode (few query rows per K/V head, F16 K and V in the KV cache layout):
 * on 2 and 4 threads the keys are split into ranges whose partial softmaxes
 * are merged. Variants: 0 one query row, 16 heads, the first ~60% of the
 * keys masked (whole ranges with nothing to add); 1 GQA 4 with sinks and a
 * mask per head (sliding windows of different lengths, one head with every
 * key masked); 2 two query rows of GQA 2 (4 rows per K/V head), ALiBi, F32
 * mask, two batches; 3 softcap, fewer keys than a range; 4 a few ranges,
 * head dim not a multiple of 8, no mask; 5 80 query heads on 40 K/V heads
 * (two blocks of heads); 6 head dim 128 with sinks that outweigh the keys;
 * 7 GQA 8 (8 rows per K/V head: the block form), causal; 8 two query rows
 * of GQA 3 (6 rows per K/V head: the block form); 9 192 query heads on 64
 * K/V heads (GQA 3: 4 blocks of 16 heads; 3 blocks of 22 heads would be
 * 66 rows, more than a block holds); 10 Q8_0 K/V (read as stored on
 * AVX512F), one query row, 16 heads, masked partly; 11 Q8_0 K/V head-major
 * ([D, n_kv, H]: a block per head), GQA 4 with sinks; 12 F16 head-major,
 * two query rows of GQA 2, causal, head dim not a multiple of 8; 13 Q4_0
 * K with Q8_0 V, GQA 2, partly masked; 14 F16 K with Q4_0 V, head-major;
 * 15 GQA 4 with 32 query heads over more than 4096 keys, 16 MiB of K and V
 * (the rows ahead asked for, FA_DEC_ROW_PF_MIN_BYTES), partly masked;
 * 16 no GQA, 20 heads (tiles of 8 and a rest of 4), D 128, over 1000 keys in
 * the KV cache layout (on AVX512 keys outermost: gk_fa_qk_f16_heads_avx512,
 * its page prefetches), a mask per head with windows, so that some chunks
 * have every head live (the keys-outermost kernels) and others not (the
 * per-head tiles); 17 the same with Q4_0 K and Q8_0 V, 12 heads of 96
 * (gk_fa_qk_q4_0_heads_avx512, gk_fa_pv_q8_0_heads_avx512; v10 takes the
 * Q8_0 pair).
 */
TEST(flash_attn_ext_decode)
{
	for (int v = 0; v < 18; v++) {
		struct tc c = { .ctx = v == 15 ? new_ctx_size((size_t)48 << 20) : v == 16 ? new_ctx_size((size_t)32 << 20) : new_ctx() };
		const int64_t D = v == 9 ? 32 : v == 4 || v == 12 ? 8 * irand(2, 8) + irand(1, 7) : v == 6 || v == 15 || v == 16 ? 128 : v == 5 ? 32 : v == 11 || v == 14 || v == 17 ? 96 : 64;
		const int64_t NQ = v == 2 || v == 8 || v == 12 ? 2 : 1;
		const int64_t NKV = v == 9 ? irand(100, 200) : v == 3 ? irand(1, 63) : v == 4 ? irand(65, 200) : v == 5 ? irand(250, 350) : v == 15 ? irand(4100, 4200) : v == 16 ? irand(1000, 1100) : irand(700, 1300);
		const int64_t HKV = v == 1 ? 4 : v == 2 ? 4 : v == 5 ? 40 : v == 6 ? 8 : v == 7 ? 4 : v == 8 ? 5 : v == 9 ? 64 : v == 11 ? 3 : v == 12 || v == 13 ? 5 : v == 15 ? 8 : v == 16 ? 20 : v == 17 ? 12 : 16;
		const int64_t H = v == 1 || v == 11 ? 4 * HKV : v == 2 || v == 12 || v == 13 ? 2 * HKV : v == 5 ? 80 : v == 7 ? 32 : v == 8 ? 15 : v == 9 ? 192 : v == 15 ? 32 : HKV;
		const int64_t B = v == 2 ? 2 : 1;
		const bool sinks = v == 1 || v == 6 || v == 11;
		const enum ggml_type kvt = v == 10 || v == 11 ? GGML_TYPE_Q8_0 : v == 13 || v == 17 ? GGML_TYPE_Q4_0 : GGML_TYPE_F16;
		const enum ggml_type vvt = v == 10 || v == 11 || v == 13 || v == 17 ? GGML_TYPE_Q8_0 : v == 14 ? GGML_TYPE_Q4_0 : GGML_TYPE_F16;
		/* [D, H, NQ] stored, viewed as [D, NQ, H]; K and V [D, HKV, NKV] viewed as [D, NKV, HKV]
		 * (v11, v12: [D, NKV, HKV] stored, head-major) */
		struct ggml_tensor *q = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, D, H, NQ, B, -1, 1), 0, 2, 1, 3);
		struct ggml_tensor *k, *vv;
		if (v == 11 || v == 12 || v == 14) {
			k = input(&c, kvt, D, NKV, HKV, 1, -1, 1);
			vv = input(&c, vvt, D, NKV, HKV, 1, -1, 1);
		} else {
			k = ggml_permute(c.ctx, input(&c, kvt, D, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
			vv = ggml_permute(c.ctx, input(&c, vvt, D, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
		}
		struct ggml_tensor *m = NULL;
		if (v != 4 && v != 6) {
			const int64_t MH = v == 1 || v == 16 || v == 17 ? H : 1;
			m = input(&c, v == 2 ? GGML_TYPE_F32 : GGML_TYPE_F16, NKV, NQ + irand(0, 2), MH, 1, -1, 0);
			for (int64_t h = 0; h < MH; h++)
				for (int64_t i1 = 0; i1 < m->ne[1]; i1++)
					for (int64_t j = 0; j < NKV; j++) {
						bool off = false;
						if (v == 0 || v == 10 || v == 13)
							off = j < NKV * 3 / 5;
						else if (v == 15)
							off = j < NKV / 3;
						else if (v == 16 || v == 17) /* head h sees keys from 50 h on */
							off = j < 50 * h;
						else if (v == 1) /* window of 40 + 90 h keys; head 5 sees nothing */
							off = h == 5 || j < NKV - 40 - 90 * h;
						else if (v == 2 || v == 7 || v == 8 || v == 12)
							off = j > NKV - NQ + i1;
						if (off)
							tset_f(m, j, i1, h, 0, -INFINITY);
					}
		}
		struct ggml_tensor *sk = sinks ? input(&c, GGML_TYPE_F32, H, 1, 1, 1, v == 6 ? 4 : -2, v == 6 ? 8 : 3) : NULL;
		const float scale = 1.0f / sqrtf((float)D), max_bias = v == 2 ? 8.0f : 0.0f;
		const float softcap = v == 3 ? 1.5f : 0.0f;
		c.out = ggml_flash_attn_ext(c.ctx, q, k, vv, m, scale, max_bias, softcap);
		if (sk)
			ggml_flash_attn_ext_add_sinks(c.out, sk);
		fa_reference(ref_alloc(&c), q, k, vv, m, sk, scale, max_bias, softcap);
		char name[80];
		snprintf(name, sizeof(name), "flash_attn_ext decode v%d D=%lld NKV=%lld H=%lld/%lld", v, (long long)D,
			 (long long)NKV, (long long)H, (long long)HKV);
		run_case(_metadata, &c, 1e-10, name);
		tc_free(&c);
	}
}

/*
 * The block form with many rows per K/V head (prefill): on AVX512F the
 * transposed form (blocks of 32 or 16 rows along the vector lanes), else
 * the 4-row groups. Row counts around the blocks (the last one short, a
 * single vector of rows or two), keys around the 64-key chunks, head dims
 * that are not multiples of 16. Variants: 0 F16 K/V, causal F16 mask
 * (chunks all -inf, all zero and mixed; rows of a block mixed and not);
 * 1 GQA 4, F32 mask of arbitrary values with ALiBi, DV != DK; 2 softcap,
 * no mask; 3 sinks, the first query row masked completely and mask rows
 * longer than the keys, in the KV cache layout (strided rows), two
 * batches; 4 Q8_0 K/V, causal, KV cache layout, GQA 2; 5 Q4_0 K, F32 V,
 * sliding window (chunks all -inf before the window).
 */
TEST(flash_attn_ext_block)
{
	static const enum ggml_type kts[6] = { GGML_TYPE_F16, GGML_TYPE_F16, GGML_TYPE_F16, GGML_TYPE_F16,
					       GGML_TYPE_Q8_0, GGML_TYPE_Q4_0 };
	static const enum ggml_type vts[6] = { GGML_TYPE_F16, GGML_TYPE_F16, GGML_TYPE_F16, GGML_TYPE_F16,
					       GGML_TYPE_Q8_0, GGML_TYPE_F32 };
	for (int v = 0; v < 6; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool cache = v == 3 || v == 4;
		const int64_t D = v >= 4 ? 32 * irand(1, 4) : v == 0 ? 16 * irand(1, 8) + irand(0, 15) : irand(5, 100);
		const int64_t DV = v == 1 ? irand(3, 90) : D;
		const int64_t HKV = v == 1 ? 2 : v == 4 ? 2 : 1 + (v & 1);
		const int64_t H = v == 1 ? 8 : v == 4 ? 4 : HKV;
		const int64_t NQ = v == 1 ? irand(2, 12) : v == 4 ? irand(9, 30) : irand(9, 70);
		const int64_t NKV = NQ + irand(0, 200);
		const int64_t B = v == 3 ? 2 : 1;
		struct ggml_tensor *q, *k, *vv;
		if (cache) {
			q = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, D, H, NQ, B, -1, 1), 0, 2, 1, 3);
			k = ggml_permute(c.ctx, input(&c, kts[v], D, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
			vv = ggml_permute(c.ctx, input(&c, vts[v], DV, HKV, NKV, 1, -1, 1), 0, 2, 1, 3);
		} else {
			q = input(&c, GGML_TYPE_F32, D, NQ, H, B, -1, 1);
			k = input(&c, kts[v], D, NKV, HKV, 1, -1, 1);
			vv = input(&c, vts[v], DV, NKV, HKV, 1, -1, 1);
		}
		struct ggml_tensor *m = NULL;
		if (v != 2) {
			const int64_t MQ = NQ + irand(0, 3);
			m = input(&c, v == 1 || v == 5 ? GGML_TYPE_F32 : GGML_TYPE_F16, NKV + (v == 3 ? 7 : 0), MQ, 1, 1, -2, 1);
			for (int64_t i1 = 0; i1 < MQ; i1++)
				for (int64_t j = 0; j < NKV; j++) {
					bool off = false;
					if (v == 0 || v == 3 || v == 4)
						off = j > NKV - NQ + i1 || (v == 3 && i1 == 0);
					else if (v == 5)
						off = j > NKV - NQ + i1 || j < NKV - NQ + i1 - 70;
					if (off)
						tset_f(m, j, i1, 0, 0, -INFINITY);
					else if (v != 1)
						tset_f(m, j, i1, 0, 0, 0.0f);
				}
		}
		struct ggml_tensor *sk = v == 3 ? input(&c, GGML_TYPE_F32, H, 1, 1, 1, -1, 2) : NULL;
		const float scale = 1.0f / sqrtf((float)D), max_bias = v == 1 ? 8.0f : 0.0f;
		const float softcap = v == 2 ? 3.0f : 0.0f;
		c.out = ggml_flash_attn_ext(c.ctx, q, k, vv, m, scale, max_bias, softcap);
		if (sk)
			ggml_flash_attn_ext_add_sinks(c.out, sk);
		fa_reference(ref_alloc(&c), q, k, vv, m, sk, scale, max_bias, softcap);
		char name[128];
		snprintf(name, sizeof(name), "flash_attn_ext block v%d D=%lld DV=%lld NQ=%lld NKV=%lld H=%lld/%lld", v,
			 (long long)D, (long long)DV, (long long)NQ, (long long)NKV, (long long)H, (long long)HKV);
		run_case(_metadata, &c, 1e-10, name);
		tc_free(&c);
	}
}

/* ---- in-place variants: the result aliases the input -------------------- */

TEST(inplace_variants)
{
	for (int o = 0; o < 6; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 80);
		ne[2] = o == 5 ? irand(1, 4) : ne[2];
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0] * (o == 5 ? 2 : 1), ne[1], ne[2], ne[3], -3, 3);
		struct ggml_tensor *pos = o == 5 ? input(&c, GGML_TYPE_I32, ne[2], 1, 1, 1, 0, 100) : NULL;
		const char *name = "";
		double *r;
		switch (o) {
		case 0: c.out = ggml_silu_inplace(c.ctx, a); name = "silu_inplace"; break;
		case 1: c.out = ggml_gelu_inplace(c.ctx, a); name = "gelu_inplace"; break;
		case 2: c.out = ggml_scale_inplace(c.ctx, a, 1.75f); name = "scale_inplace"; break;
		case 3: c.out = ggml_soft_max_inplace(c.ctx, a); name = "soft_max_inplace"; break;
		case 4: c.out = ggml_rms_norm_inplace(c.ctx, a, 1e-6f); name = "rms_norm_inplace"; break;
		default: c.out = ggml_rope_inplace(c.ctx, a, pos, (int)(2 * ne[0]), 0); name = "rope_inplace"; break;
		}
		EXPECT_EQ(c.out->data, a->data);
		r = ref_alloc(&c);
		const int64_t n0 = a->ne[0], rows = c.n / n0;
		for (int64_t row = 0; row < rows; row++) {
			const double *xs = NULL;
			double x[200], mx = -INFINITY, sum = 0, ss = 0;
			for (int64_t i = 0; i < n0; i++) {
				x[i] = tget_flat(a, row * n0 + i);
				mx = fmax(mx, x[i]);
				ss += x[i] * x[i];
			}
			xs = x;
			for (int64_t i = 0; i < n0; i++) {
				double v = xs[i], z;
				switch (o) {
				case 0: z = d_unary(GGML_UNARY_OP_SILU, v); break;
				case 1: z = d_unary(GGML_UNARY_OP_GELU, v); break;
				case 2: z = (float)(v * 1.75); break;
				case 3: z = exp(v - mx); sum += z; break;
				case 4: z = v / sqrt(ss / n0 + 1e-6); break;
				default: {
					const int64_t t = (row / ne[1]) % ne[2];
					const double p = tget(pos, t, 0, 0, 0);
					const int64_t k = i / 2;
					const double th = p * pow(10000.0, -2.0 * k / n0);
					z = i % 2 == 0 ? xs[i] * cos(th) - xs[i + 1] * sin(th) : xs[i - 1] * sin(th) + xs[i] * cos(th);
				}
				}
				r[row * n0 + i] = z;
			}
			if (o == 3)
				for (int64_t i = 0; i < n0; i++)
					r[row * n0 + i] /= sum;
		}
		run_case(_metadata, &c, o == 5 ? 1e-9 : 1e-10, name);
		tc_free(&c);
	}
}

/* ---- graph behaviour ------------------------------------------------------- */

static int abort_after;
static int abort_calls;
static bool abort_cb(void *data)
{
	(void)data;
	return ++abort_calls >= abort_after;
}

TEST(abort_callback_stops_long_graph)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
	for (int i = 0; i < 1000; i++)
		((float *)a->data)[i] = 0;
	struct ggml_tensor *x = a;
	for (int i = 0; i < 500; i++)
		x = ggml_add1(ctx, x, ggml_arange(ctx, 1.0f, 2.0f, 1.0f));
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, x);
	for (int nth = 1; nth <= 4; nth *= 2) {
		struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
		void *work = malloc(plan.work_size + 1);
		plan.work_data = work;
		plan.abort_callback = abort_cb;
		abort_calls = 0;
		abort_after = 10;
		EXPECT_EQ(ggml_graph_compute(gf, &plan), GGML_STATUS_ABORTED);
		EXPECT_EQ(abort_calls, 10);
		/* not aborting: the whole graph runs; each node adds 1 */
		abort_after = 1 << 30;
		abort_calls = 0;
		EXPECT_EQ(ggml_graph_compute(gf, &plan), GGML_STATUS_SUCCESS);
		EXPECT_EQ(((float *)x->data)[999], 500.0f);
		free(work);
	}
	ggml_free(ctx);
}

TEST(unsupported_node_fails_cleanly)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
	memset(x->data, 0x7f, ggml_nbytes(x));
	x->op = GGML_OP_FLASH_ATTN_BACK; /* an op without a CPU kernel */
	x->src[0] = a;
	struct ggml_tensor *y = ggml_scale(ctx, x, 2.0f);
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, y);
	struct ggml_cplan plan = ggml_graph_plan(gf, 2, NULL);
	void *work = malloc(plan.work_size + 1);
	plan.work_data = work;
	memset(y->data, 0, ggml_nbytes(y));
	EXPECT_EQ(ggml_graph_compute(gf, &plan), GGML_STATUS_FAILED);
	EXPECT_EQ(((float *)y->data)[0], 0.0f); /* nothing computed */
	free(work);

	/* a weight type without a CPU kernel for MUL_MAT: refused, not computed */
	struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_K, 256, 4); /* activations only */
	struct ggml_tensor *mq = ggml_mul_mat(ctx, wq, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 2));
	struct ggml_cgraph *g1 = ggml_new_graph(ctx);
	ggml_build_forward_expand(g1, mq);
	plan = ggml_graph_plan(g1, 1, NULL);
	work = malloc(plan.work_size + 1);
	plan.work_data = work;
	EXPECT_EQ(ggml_graph_compute(g1, &plan), GGML_STATUS_FAILED);
	free(work);

	/* a work buffer smaller than planned is refused too */
	struct ggml_tensor *m = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 8), ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 8));
	struct ggml_cgraph *g2 = ggml_new_graph(ctx);
	ggml_build_forward_expand(g2, m);
	plan = ggml_graph_plan(g2, 2, NULL);
	ASSERT_GT(plan.work_size, 0);
	work = malloc(plan.work_size);
	plan.work_data = work;
	plan.work_size /= 2;
	EXPECT_EQ(ggml_graph_compute(g2, &plan), GGML_STATUS_FAILED);
	free(work);
	ggml_free(ctx);
}

TEST(threadpool_and_compute_with_ctx)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 37, 29);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 37, 11);
	fill(w, -1, 1);
	fill(x, -1, 1);
	struct ggml_tensor *y = ggml_mul_mat(ctx, w, x);
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, y);
	ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, 3), GGML_STATUS_SUCCESS);
	float *first = malloc(ggml_nbytes(y));
	memcpy(first, y->data, ggml_nbytes(y));

	struct ggml_threadpool_params tpp = ggml_threadpool_params_default(4);
	struct ggml_threadpool *tp = ggml_threadpool_new(&tpp);
	ASSERT_NE(tp, NULL);
	for (int nth = 1; nth <= 4; nth++) {
		memset(y->data, 0, ggml_nbytes(y));
		struct ggml_cplan plan = ggml_graph_plan(gf, nth, tp);
		void *work = malloc(plan.work_size + 1);
		plan.work_data = work;
		ASSERT_EQ(ggml_graph_compute(gf, &plan), GGML_STATUS_SUCCESS);
		EXPECT_EQ(memcmp(first, y->data, ggml_nbytes(y)), 0);
		free(work);
		if (nth == 2)
			ggml_threadpool_pause(tp); /* the next compute resumes it */
	}
	ggml_threadpool_free(tp);
	free(first);
	ggml_free(ctx);
}

TEST_HARNESS_MAIN
