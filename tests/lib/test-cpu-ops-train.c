// SPDX-License-Identifier: MIT
/*
 * CPU kernels of the training ops and the backward ops, against references
 * computed here in double (ops-case.h: 1, 2, 4 threads, fast and scalar
 * reference paths): CROSS_ENTROPY_LOSS and its gradient, OPT_STEP_ADAMW and
 * OPT_STEP_SGD over several steps (parameter and moments updated in place),
 * and SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK, GET_ROWS_BACK, REPEAT_BACK,
 * ROPE_BACK (the inverse rotation: ROPE then ROPE_BACK gives the input back),
 * POOL_2D_BACK and IM2COL_BACK (the adjoint of IM2COL: <im2col(x), y> =
 * <x, im2col_back(y)>). Sources include non-contiguous views.
 *
 * NMSE thresholds: 1e-10 (float kernels against double references).
 */
#include <stdio.h>

#include "ops-case.h"

/* logits [nc, nr] and labels (rows summing to 1), the loss in double */
static double ce_ref(const struct ggml_tensor *a, const struct ggml_tensor *b, int64_t nr)
{
	double sum = 0;
	for (int64_t r = 0; r < nr; r++) {
		const int64_t i1 = r % a->ne[1], i2 = r / a->ne[1];
		double mx = -INFINITY, se = 0;
		for (int64_t i = 0; i < a->ne[0]; i++)
			mx = fmax(mx, tget(a, i, i1, i2, 0));
		for (int64_t i = 0; i < a->ne[0]; i++)
			se += exp(tget(a, i, i1, i2, 0) - mx);
		for (int64_t i = 0; i < a->ne[0]; i++)
			sum += tget(b, i, i1, i2, 0) * (tget(a, i, i1, i2, 0) - mx - log(se));
	}
	return -sum / (double)nr;
}

static struct ggml_tensor *labels(struct tc *c, int64_t nc, int64_t n1, int64_t n2)
{
	struct ggml_tensor *b = input(c, GGML_TYPE_F32, nc, n1, n2, 1, 0, 1);
	for (int64_t r = 0; r < n1 * n2; r++) {
		float *row = (float *)b->data + r * nc;
		double s = 0;
		for (int64_t i = 0; i < nc; i++)
			s += row[i];
		for (int64_t i = 0; i < nc; i++)
			row[i] = (float)(row[i] / s);
	}
	return b;
}

TEST(cross_entropy_loss)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t nc = irand(1, 300), n1 = irand(1, 9), n2 = irand(1, 3);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, nc, n1, n2, 1, -8, 8);
		struct ggml_tensor *b = labels(&c, nc, n1, n2);
		c.out = ggml_cross_entropy_loss(c.ctx, a, b);
		double *r = ref_alloc(&c);
		r[0] = ce_ref(a, b, n1 * n2);
		run_case(_metadata, &c, 1e-10, "cross_entropy_loss");
		tc_free(&c);
	}
}

TEST(cross_entropy_loss_back)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t nc = irand(1, 300), n1 = irand(1, 9), n2 = irand(1, 3);
		struct ggml_tensor *d = input(&c, GGML_TYPE_F32, 1, 1, 1, 1, -2, 2);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, nc, n1, n2, 1, -8, 8);
		struct ggml_tensor *b = labels(&c, nc, n1, n2);
		c.out = ggml_cross_entropy_loss_back(c.ctx, d, a, b);
		double *r = ref_alloc(&c);
		const double k = tget(d, 0, 0, 0, 0) / (double)(n1 * n2);
		for (int64_t i2 = 0; i2 < n2; i2++)
			for (int64_t i1 = 0; i1 < n1; i1++) {
				double mx = -INFINITY, se = 0;
				for (int64_t i = 0; i < nc; i++)
					mx = fmax(mx, tget(a, i, i1, i2, 0));
				for (int64_t i = 0; i < nc; i++)
					se += exp(tget(a, i, i1, i2, 0) - mx);
				for (int64_t i = 0; i < nc; i++)
					r[(i2 * n1 + i1) * nc + i] =
						(exp(tget(a, i, i1, i2, 0) - mx) / se - tget(b, i, i1, i2, 0)) * k;
			}
		run_case(_metadata, &c, 1e-10, "cross_entropy_loss_back");
		tc_free(&c);
	}
}

/* AdamW and SGD: steps of the optimizer, each one graph evaluation on the
 * parameter, its gradient and moments, against the scalar formulas */
TEST(opt_steps)
{
	for (int v = 0; v < 6; v++) {
		const bool adamw = v < 3;
		struct ggml_context *ctx = new_ctx();
		int64_t ne[4];
		rand_shape(ne, 40);
		const int64_t n = ne[0] * ne[1] * ne[2] * ne[3];
		struct ggml_tensor *w = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
		struct ggml_tensor *g = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
		struct ggml_tensor *m = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
		struct ggml_tensor *vv = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
		struct ggml_tensor *p = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, adamw ? 7 : 2);
		ggml_set_param(w);
		fill(w, -1, 1);
		memset(m->data, 0, ggml_nbytes(m));
		memset(vv->data, 0, ggml_nbytes(vv));
		double *rw = malloc(n * sizeof(double)), *rm = calloc(n, sizeof(double)), *rv = calloc(n, sizeof(double));
		for (int64_t i = 0; i < n; i++)
			rw[i] = ((float *)w->data)[i];
		const float alpha = 0.01f + 0.1f * (float)urand(), beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
		const float wd = v % 3 == 0 ? 0.0f : 0.1f;
		struct ggml_tensor *step = adamw ? ggml_opt_step_adamw(ctx, w, g, m, vv, p) : ggml_opt_step_sgd(ctx, w, g, p);
		EXPECT_EQ(step->data, w->data); /* in place: a view of the parameter */
		struct ggml_cgraph *gf = ggml_new_graph(ctx);
		ggml_build_forward_expand(gf, step);
		double max_err = 0;
		for (int t = 1; t <= 4; t++) {
			fill(g, -1, 1);
			float *pp = (float *)p->data;
			const float b1h = 1.0f / (1.0f - powf(beta1, (float)t)), b2h = 1.0f / (1.0f - powf(beta2, (float)t));
			if (adamw) {
				const float pa[7] = { alpha, beta1, beta2, eps, wd, b1h, b2h };
				memcpy(pp, pa, sizeof(pa));
			} else {
				pp[0] = alpha;
				pp[1] = wd;
			}
			ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, 1 + t % 3), GGML_STATUS_SUCCESS);
			for (int64_t i = 0; i < n; i++) {
				const double gi = ((float *)g->data)[i];
				if (adamw) {
					rm[i] = rm[i] * beta1 + gi * (1 - beta1);
					rv[i] = rv[i] * beta2 + gi * gi * (1 - beta2);
					const double mh = rm[i] * b1h, vh = sqrt(rv[i] * b2h) + eps;
					rw[i] = rw[i] * (1 - alpha * wd) - alpha * mh / vh;
				} else {
					rw[i] = rw[i] * (1 - alpha * wd) - alpha * gi;
				}
				max_err = fmax(max_err, fabs(rw[i] - ((float *)w->data)[i]));
				if (adamw) {
					max_err = fmax(max_err, fabs(rm[i] - ((float *)m->data)[i]));
					max_err = fmax(max_err, fabs(rv[i] - ((float *)vv->data)[i]));
				}
			}
		}
		if (!(max_err < 1e-5))
			TH_LOG("%s: max abs error %.3g", adamw ? "adamw" : "sgd", max_err);
		EXPECT_LT(max_err, 1e-5);
		free(rw);
		free(rm);
		free(rv);
		ggml_free(ctx);
	}
}

/* ---- backward ops ----------------------------------------------------------- */

TEST(silu_rms_norm_soft_max_back)
{
	for (int v = 0; v < 9; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 70);
		const int op = v % 3;
		struct ggml_tensor *dy = input(&c, GGML_TYPE_F32, ne[1], ne[0], ne[2], ne[3], -2, 2);
		dy = ggml_permute(c.ctx, dy, 1, 0, 2, 3); /* strided */
		struct ggml_tensor *x = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -4, 4);
		const float scale = 0.75f, eps = 1e-5f;
		if (op == 2) {
			/* y: rows of a softmax */
			for (int64_t r = 0; r < ggml_nrows(x); r++) {
				float *row = (float *)x->data + r * ne[0];
				double s = 0;
				for (int64_t i = 0; i < ne[0]; i++)
					s += row[i] = expf(row[i]);
				for (int64_t i = 0; i < ne[0]; i++)
					row[i] = (float)(row[i] / s);
			}
		}
		c.out = op == 0 ? ggml_silu_back(c.ctx, dy, x) : op == 1 ? ggml_rms_norm_back(c.ctx, dy, x, eps)
									 : ggml_soft_max_ext_back(c.ctx, dy, x, scale, 0.0f);
		double *r = ref_alloc(&c);
		int64_t k = 0;
		for (int64_t i3 = 0; i3 < ne[3]; i3++)
			for (int64_t i2 = 0; i2 < ne[2]; i2++)
				for (int64_t i1 = 0; i1 < ne[1]; i1++) {
					double sxx = 0, sxd = 0;
					for (int64_t i0 = 0; i0 < ne[0]; i0++) {
						sxx += tget(x, i0, i1, i2, i3) * tget(x, i0, i1, i2, i3);
						sxd += tget(x, i0, i1, i2, i3) * tget(dy, i0, i1, i2, i3);
					}
					for (int64_t i0 = 0; i0 < ne[0]; i0++, k++) {
						const double xv = tget(x, i0, i1, i2, i3), d = tget(dy, i0, i1, i2, i3);
						if (op == 0) {
							const double s = 1 / (1 + exp(-xv));
							r[k] = d * s * (1 + xv * (1 - s));
						} else if (op == 1) {
							const double ms = sxx / ne[0] + eps;
							r[k] = d / sqrt(ms) - xv * sxd / (ne[0] * ms * sqrt(ms));
						} else {
							r[k] = scale * xv * (d - sxd);
						}
					}
				}
		run_case(_metadata, &c, 1e-10, (const char *[]){ "silu_back", "rms_norm_back", "soft_max_back" }[op]);
		tc_free(&c);
	}
}

TEST(get_rows_back_and_repeat_back)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		if (v < 4) {
			const int64_t n = irand(1, 40), rows = irand(1, 9), k = irand(1, 12);
			struct ggml_tensor *dy = input(&c, GGML_TYPE_F32, n, k + v % 2, 1, 1, -2, 2);
			struct ggml_tensor *idx = input(&c, GGML_TYPE_I32, k, 1, 1, 1, 0, (float)(rows - 1));
			struct ggml_tensor *fwd = ggml_new_tensor_2d(c.ctx, GGML_TYPE_F32, n, rows);
			c.out = ggml_get_rows_back(c.ctx, dy, idx, fwd);
			double *r = ref_alloc(&c);
			for (int64_t i = 0; i < k; i++) {
				const int64_t row = (int64_t)tget(idx, i, 0, 0, 0);
				for (int64_t j = 0; j < n; j++)
					r[row * n + j] += tget(dy, j, i, 0, 0);
			}
			run_case(_metadata, &c, 1e-10, "get_rows_back");
		} else {
			int64_t ne[4], nr[4];
			rand_shape(ne, 12);
			for (int d = 0; d < 4; d++)
				nr[d] = irand(1, 3);
			struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0] * nr[0], ne[1] * nr[1], ne[2] * nr[2],
						      ne[3] * nr[3], -2, 2);
			struct ggml_tensor *shape = ggml_new_tensor_4d(c.ctx, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3]);
			c.out = ggml_repeat_back(c.ctx, a, shape);
			double *r = ref_alloc(&c);
			for (int64_t i3 = 0; i3 < a->ne[3]; i3++)
				for (int64_t i2 = 0; i2 < a->ne[2]; i2++)
					for (int64_t i1 = 0; i1 < a->ne[1]; i1++)
						for (int64_t i0 = 0; i0 < a->ne[0]; i0++)
							r[((i3 % ne[3] * ne[2] + i2 % ne[2]) * ne[1] + i1 % ne[1]) * ne[0] +
							  i0 % ne[0]] += tget(a, i0, i1, i2, i3);
			run_case(_metadata, &c, 1e-10, "repeat_back");
		}
		tc_free(&c);
	}
}

/* ROPE_BACK undoes ROPE (the rotation is orthogonal up to attn_factor) */
TEST(rope_back_inverts_rope)
{
	for (int v = 0; v < 6; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int mode = v % 3 == 0 ? 0 : v % 3 == 1 ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_MROPE;
		const int64_t n_dims = 2 * irand(1, 8), ne0 = n_dims + 2 * irand(0, 3), n2 = irand(1, 5);
		struct ggml_tensor *x = input(&c, GGML_TYPE_F32, ne0, irand(1, 4), n2, 1, -2, 2);
		struct ggml_tensor *pos = input(&c, GGML_TYPE_I32, mode == GGML_ROPE_TYPE_MROPE ? 4 * n2 : n2, 1, 1, 1, 0,
						100);
		const float attn = 1.0f; /* the inverse needs |mscale| = 1 */
		struct ggml_tensor *y, *z;
		if (mode == GGML_ROPE_TYPE_MROPE) {
			int s[4] = { (int)n_dims / 4, (int)n_dims / 4, (int)(n_dims / 2 - 2 * (n_dims / 4)), 0 };
			if (s[0] + s[1] + s[2] == 0)
				s[2] = 1;
			y = ggml_rope_multi(c.ctx, x, pos, NULL, (int)n_dims, s, mode, 0, 10000, 1, 0, attn, 0, 0);
			z = ggml_rope_multi_back(c.ctx, y, pos, NULL, (int)n_dims, s, mode, 0, 10000, 1, 0, attn, 0, 0);
		} else {
			y = ggml_rope_ext(c.ctx, x, pos, NULL, (int)n_dims, mode, 0, 10000, 1, 0, attn, 0, 0);
			z = ggml_rope_ext_back(c.ctx, y, pos, NULL, (int)n_dims, mode, 0, 10000, 1, 0, attn, 0, 0);
			if (v >= 3) { /* the rotated dims at the end of the row, in both */
				ggml_rope_set_offset(y, (int)(ne0 - n_dims));
				ggml_rope_set_offset(z, (int)(ne0 - n_dims));
			}
		}
		EXPECT_EQ(z->op, GGML_OP_ROPE_BACK);
		c.out = z;
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++)
			r[i] = tget_flat(x, i);
		run_case(_metadata, &c, 1e-10, "rope_back");
		tc_free(&c);
	}
}

/* <op(x), y> == <x, op_back(y)> for the linear ops IM2COL and POOL_2D AVG;
 * POOL_2D MAX routes each gradient to its window's maximum */
TEST(im2col_and_pool_back_are_adjoints)
{
	for (int v = 0; v < 9; v++) {
		struct ggml_context *ctx = new_ctx();
		struct ggml_tensor *x, *fwd, *y, *back;
		if (v < 6) {
			const bool is_2d = v % 2 == 0;
			const int s0 = irand(1, 3), p0 = irand(0, 2), d0 = irand(1, 2);
			const int s1 = irand(1, 3), p1 = irand(0, 2), d1 = irand(1, 2);
			const int64_t ic = irand(1, 3);
			struct ggml_tensor *k = is_2d ? ggml_new_tensor_4d(ctx, GGML_TYPE_F32, irand(1, 3), irand(1, 3), ic, 2)
						      : ggml_new_tensor_3d(ctx, GGML_TYPE_F32, irand(1, 3), ic, 2);
			x = is_2d ? ggml_new_tensor_4d(ctx, GGML_TYPE_F32, irand(6, 12), irand(6, 12), ic, irand(1, 2))
				  : ggml_new_tensor_3d(ctx, GGML_TYPE_F32, irand(6, 12), ic, irand(1, 3));
			fwd = ggml_im2col(ctx, k, x, s0, s1, p0, p1, d0, d1, is_2d, GGML_TYPE_F32);
			y = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, fwd->ne);
			back = ggml_im2col_back(ctx, y, k, x->ne, s0, s1, p0, p1, d0, d1, is_2d);
		} else {
			const enum ggml_op_pool op = v == 8 ? GGML_OP_POOL_MAX : GGML_OP_POOL_AVG;
			x = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, irand(5, 11), irand(5, 11), irand(1, 3), 1);
			const int k0 = irand(1, 3), k1 = irand(1, 3), s0 = irand(1, 3), s1 = irand(1, 3);
			const int p0 = irand(0, k0 / 2), p1 = irand(0, k1 / 2);
			fwd = ggml_pool_2d(ctx, x, op, k0, k1, s0, s1, (float)p0, (float)p1);
			y = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, fwd->ne);
			back = ggml_pool_2d_back(ctx, y, x, op, k0, k1, s0, s1, (float)p0, (float)p1);
		}
		fill(x, -2, 2);
		fill(y, -2, 2);
		for (int nth = 1; nth <= 4; nth *= 2) {
			struct ggml_cgraph *gf = ggml_new_graph(ctx);
			ggml_build_forward_expand(gf, fwd);
			ggml_build_forward_expand(gf, back);
			ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, nth), GGML_STATUS_SUCCESS);
			double lhs = 0, rhs = 0, sx = 0;
			for (int64_t i = 0; i < ggml_nelements(fwd); i++)
				lhs += tget_flat(fwd, i) * tget_flat(y, i);
			for (int64_t i = 0; i < ggml_nelements(x); i++) {
				rhs += tget_flat(x, i) * tget_flat(back, i);
				sx += fabs(tget_flat(x, i) * tget_flat(back, i));
			}
			if (!(fabs(lhs - rhs) <= 1e-5 * (1 + sx)))
				TH_LOG("case %d nth %d: <op(x), y> = %.9g, <x, op_back(y)> = %.9g", v, nth, lhs, rhs);
			EXPECT_LE(fabs(lhs - rhs), 1e-5 * (1 + sx));
		}
		ggml_free(ctx);
	}
}

TEST_HARNESS_MAIN
