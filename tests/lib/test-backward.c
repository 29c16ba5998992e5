// SPDX-License-Identifier: MIT
/*
 * The backward pass (ggml_build_backward_expand) checked numerically: for
 * each differentiable op, a graph out = op(params...) with random shapes
 * (broadcast operands, non-contiguous views where the op accepts them), the
 * loss sum(out * w) for fixed random weights w, and the gradient of every
 * parameter element compared with the central difference (4 points)
 * of sum(out * w) computed here in double from the forward results. A
 * wrong formula gives errors of the order of the gradient itself; float
 * rounding stays far below the NMSE threshold (1e-4). Inputs are kept
 * away from the kinks of piecewise ops (ReLU at 0, CLAMP's bounds, max
 * pooling ties) by more than the step.
 *
 * Also: gradient accumulation into grad_accs over two evaluations, the
 * loss gradient set by ggml_graph_reset, and ops without a gradient
 * aborting with their name.
 */
#include <math.h>
#include <stdio.h>

#include "ops-case.h"
#include "test-abort.h"

#define NTH 2
#define MAX_PARAMS 4

struct gcase {
	struct ggml_context *ctx;
	struct ggml_tensor *p[MAX_PARAMS];
	int np;
	struct ggml_tensor *out;
	float lo, hi;   /* range of the parameters' values */
	float margin;   /* keep |x - k| >= margin for the kinks k of the case */
	const float *kinks;
	int nkinks;
};

static struct ggml_tensor *param(struct gcase *g, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	struct ggml_tensor *t = ggml_new_tensor_4d(g->ctx, GGML_TYPE_F32, ne0, ne1, ne2, ne3);
	ggml_set_param(t);
	ggml_format_name(t, "p%d", g->np);
	g->p[g->np++] = t;
	return t;
}

static float rand_value(const struct gcase *g)
{
	for (;;) {
		float v = g->lo + (g->hi - g->lo) * (float)urand();
		bool ok = true;
		for (int k = 0; k < g->nkinks; k++)
			ok = ok && fabsf(v - g->kinks[k]) >= g->margin;
		if (ok)
			return v;
	}
}

static double loss_of(struct ggml_tensor *out, const double *w)
{
	double s = 0;
	for (int64_t i = 0; i < ggml_nelements(out); i++)
		s += w[i] * tget_flat(out, i);
	return s;
}

/* the forward pass of a numerical derivative, run twice per parameter value:
 * on ops-case.h's kept threadpool, not a pool made and joined per graph as
 * ggml_graph_compute_with_ctx (the backward pass's call below) does */
static double fwd_loss(struct ggml_cgraph *gf, struct ggml_tensor *out, const double *w)
{
	struct ggml_cplan plan = ggml_graph_plan(gf, NTH, case_pool(NTH));
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	enum ggml_status st = plan.work_size && !work ? GGML_STATUS_ALLOC_FAILED : ggml_graph_compute(gf, &plan);
	free(work);
	return st == GGML_STATUS_SUCCESS ? loss_of(out, w) : NAN;
}

/* runs the check on g (built: params and out); returns the NMSE */
static double check_grads(struct __test_metadata *_metadata, struct gcase *g, const char *name, float eps)
{
	struct ggml_context *ctx = g->ctx;
	const int64_t n_out = ggml_nelements(g->out);
	double *w = malloc(n_out * sizeof(double));
	struct ggml_tensor *wt = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, g->out->ne);
	for (int64_t i = 0; i < n_out; i++) {
		w[i] = 0.5 + urand();
		((float *)wt->data)[i] = (float)w[i];
	}
	struct ggml_tensor *loss = ggml_sum(ctx, ggml_mul(ctx, g->out, wt));
	ggml_set_loss(loss);

	struct ggml_cgraph *gf = ggml_new_graph_custom(ctx, 1024, true);
	ggml_build_forward_expand(gf, loss);
	struct ggml_cgraph *gb = ggml_graph_dup(ctx, gf, true);
	ggml_build_backward_expand(ctx, gb, NULL);

	for (int k = 0; k < g->np; k++)
		for (int64_t i = 0; i < ggml_nelements(g->p[k]); i++)
			((float *)g->p[k]->data)[i] = rand_value(g);

	ggml_graph_reset(gb);
	EXPECT_EQ(ggml_graph_compute_with_ctx(ctx, gb, NTH), GGML_STATUS_SUCCESS);
	double num = 0, den = 0, worst = 0;
	int64_t worst_i = -1, worst_k = 0;
	double worst_a = 0, worst_n = 0;
	for (int k = 0; k < g->np; k++) {
		struct ggml_tensor *p = g->p[k];
		struct ggml_tensor *gr = ggml_graph_get_grad(gb, p);
		const int64_t n = ggml_nelements(p);
		double *ga = malloc(n * sizeof(double));
		for (int64_t i = 0; i < n; i++)
			ga[i] = gr ? tget_flat(gr, i) : 0.0;
		float *x = (float *)p->data;
		for (int64_t i = 0; i < n; i++) {
			const float x0 = x[i];
			x[i] = x0 + eps;
			const double fu = fwd_loss(gf, g->out, w);
			x[i] = x0 - eps;
			const double fd = fwd_loss(gf, g->out, w);
			x[i] = x0 + eps / 2;
			const double fuh = fwd_loss(gf, g->out, w);
			x[i] = x0 - eps / 2;
			const double fdh = fwd_loss(gf, g->out, w);
			x[i] = x0;
			const double gn = (8 * fuh + fd - 8 * fdh - fu) / (6.0 * eps);
			const double d = ga[i] - gn;
			num += d * d;
			den += gn * gn;
			if (fabs(d) > worst) {
				worst = fabs(d);
				worst_i = i;
				worst_k = k;
				worst_a = ga[i];
				worst_n = gn;
			}
		}
		free(ga);
	}
	const double nmse = den > 0 ? num / den : num;
	if (!(nmse <= 1e-4))
		TH_LOG("%s: NMSE %.3g, worst p%lld[%lld]: backward %.6g, numeric %.6g", name, nmse, (long long)worst_k,
		       (long long)worst_i, worst_a, worst_n);
	EXPECT_LE(nmse, 1e-4);
	free(w);
	return nmse;
}

static struct gcase new_case(float lo, float hi)
{
	struct gcase g = { .ctx = new_ctx(), .lo = lo, .hi = hi };
	return g;
}

static const float kink0[] = { 0.0f };

/* ---- element-wise and broadcasting binary ops --------------------------- */

TEST(binary_broadcast)
{
	for (int v = 0; v < 16; v++) {
		struct gcase g = new_case(0.5f, 2.0f);
		const int op = v % 4; /* add, sub, mul, div */
		int64_t ne[4] = { irand(1, 5), irand(1, 4), irand(1, 3), irand(1, 2) };
		int64_t nb[4];
		for (int d = 0; d < 4; d++)
			nb[d] = irand(0, 1) ? ne[d] : 1;
		struct ggml_tensor *a = param(&g, ne[0], ne[1], ne[2], ne[3]);
		struct ggml_tensor *b = param(&g, nb[0], nb[1], nb[2], nb[3]);
		if (v >= 8) /* a non-contiguous first operand */
			a = ggml_transpose(g.ctx, a);
		struct ggml_tensor *bb = v >= 8 ? ggml_transpose(g.ctx, b) : b;
		struct ggml_tensor *(*fn[])(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *) = {
			ggml_add, ggml_sub, ggml_mul, ggml_div
		};
		g.out = fn[op](g.ctx, a, bb);
		check_grads(_metadata, &g, (const char *[]){ "add", "sub", "mul", "div" }[op], 1e-2f);
		ggml_free(g.ctx);
	}
}

TEST(add1_acc_set)
{
	for (int v = 0; v < 3; v++) {
		struct gcase g = new_case(-1, 1);
		struct ggml_tensor *a = param(&g, 6, 5, 2, 1);
		if (v == 0) {
			struct ggml_tensor *s = param(&g, 1, 1, 1, 1);
			g.out = ggml_add1(g.ctx, a, s);
		} else {
			struct ggml_tensor *b = param(&g, 3, 2, 2, 1);
			const size_t off = 1 * a->nb[0] + 2 * a->nb[1];
			g.out = v == 1 ? ggml_acc(g.ctx, a, b, a->nb[1], a->nb[2], a->nb[3], off)
				       : ggml_set(g.ctx, a, b, a->nb[1], a->nb[2], a->nb[3], off);
		}
		check_grads(_metadata, &g, (const char *[]){ "add1", "acc", "set" }[v], 1e-2f);
		ggml_free(g.ctx);
	}
}

/* ---- math and activations ---------------------------------------------- */

TEST(math_ops)
{
	for (int v = 0; v < 9; v++) {
		const bool pos = v == 1 || v == 2;
		struct gcase g = new_case(pos ? 0.5f : -2.0f, 2.0f);
		int64_t ne[4];
		rand_shape(ne, 6);
		ne[1] = ne[1] > 4 ? 4 : ne[1];
		struct ggml_tensor *a = param(&g, ne[0], ne[1], ne[2], ne[3]);
		/* a strided view, except for the ops that need packed rows (as upstream) */
		struct ggml_tensor *x = v < 5 ? ggml_permute(g.ctx, a, 1, 0, 2, 3) : a;
		struct ggml_context *c = g.ctx;
		switch (v) {
		case 0: g.out = ggml_sqr(c, x); break;
		case 1: g.out = ggml_sqrt(c, x); break;
		case 2: g.out = ggml_log(c, x); break;
		case 3: g.out = ggml_sin(c, x); break;
		case 4: g.out = ggml_cos(c, x); break;
		case 5: g.out = ggml_scale(c, x, -1.75f); break;
		case 6: g.out = ggml_clamp(c, ggml_dup(c, x), -1.0f, 1.0f); break; /* in place: not on the parameter */
		case 7: g.out = ggml_leaky_relu(c, x, 0.1f, false); break;
		case 8: g.out = ggml_scale_bias(c, x, 0.5f, 3.0f); break;
		}
		static const float clamp_kinks[] = { -1.0f, 1.0f };
		if (v == 6) {
			g.kinks = clamp_kinks;
			g.nkinks = 2;
			g.margin = 0.05f;
		} else if (v == 7) {
			g.kinks = kink0;
			g.nkinks = 1;
			g.margin = 0.05f;
		}
		check_grads(_metadata, &g, "math", 1e-2f);
		ggml_free(g.ctx);
	}
}

TEST(unary_ops)
{
	static const enum ggml_unary_op ops[] = {
		GGML_UNARY_OP_ABS, GGML_UNARY_OP_NEG, GGML_UNARY_OP_RELU, GGML_UNARY_OP_SILU, GGML_UNARY_OP_EXP,
		GGML_UNARY_OP_EXPM1, GGML_UNARY_OP_SOFTPLUS, GGML_UNARY_OP_TANH, GGML_UNARY_OP_ELU,
		GGML_UNARY_OP_SIGMOID, GGML_UNARY_OP_GELU, GGML_UNARY_OP_GELU_QUICK, GGML_UNARY_OP_GELU_ERF,
		GGML_UNARY_OP_HARDSWISH, GGML_UNARY_OP_HARDSIGMOID,
	};
	static const float kinks[] = { 0.0f, -3.0f, 3.0f };
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]) + 1; k++) {
		struct gcase g = new_case(-4.0f, 4.0f);
		g.kinks = kinks;
		g.nkinks = 3;
		g.margin = 0.05f;
		/* rows of a wider tensor: dims above 0 not packed */
		struct ggml_tensor *a = param(&g, 9, 3, 2, 1);
		struct ggml_tensor *x = ggml_view_3d(g.ctx, a, 5, 3, 2, a->nb[1], a->nb[2], a->nb[0]);
		char name[64];
		if (k < sizeof(ops) / sizeof(ops[0])) {
			g.out = ggml_unary(g.ctx, x, ops[k]);
			snprintf(name, sizeof(name), "%s", ggml_unary_op_name(ops[k]));
		} else {
			g.out = ggml_xielu(g.ctx, x, 0.8f, 0.8f, 0.5f, 1e-6f);
			snprintf(name, sizeof(name), "XIELU");
		}
		check_grads(_metadata, &g, name, 1e-2f);
		ggml_free(g.ctx);
	}
}

/* every GLU variant: fused (swapped or not, odd rows) and split */
TEST(glu_ops)
{
	static const float kinks[] = { 0.0f };
	for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
		for (int form = 0; form < 4; form++) {
			struct gcase g = new_case(-3.0f, 3.0f);
			g.kinks = kinks;
			g.nkinks = 1;
			g.margin = 0.05f;
			struct ggml_tensor *a = param(&g, form == 2 ? 9 : 8, 3, 2, 1);
			if (form < 3) {
				g.out = ggml_glu(g.ctx, a, (enum ggml_glu_op)op, form == 1);
			} else {
				struct ggml_tensor *b = param(&g, 8, 3, 2, 1);
				g.out = ggml_glu_split(g.ctx, a, b, (enum ggml_glu_op)op);
			}
			if (op == GGML_GLU_OP_SWIGLU_OAI) {
				/* its alpha and limit: ggml_swiglu_oai's, clamping at +-2 */
				g.out = form < 3 ? g.out
						 : ggml_swiglu_oai(g.ctx, g.p[0], g.p[1], 1.702f, 2.0f);
				static const float oai_kinks[] = { 0.0f, 2.0f, -2.0f };
				g.kinks = oai_kinks;
				g.nkinks = 3;
			}
			char name[64];
			snprintf(name, sizeof(name), "%s form %d", ggml_glu_op_name((enum ggml_glu_op)op), form);
			check_grads(_metadata, &g, name, 1e-2f);
			ggml_free(g.ctx);
		}
	}
}

/* ---- reductions, norms -------------------------------------------------- */

TEST(reductions_and_norms)
{
	for (int v = 0; v < 9; v++) {
		struct gcase g = new_case(-2.0f, 2.0f);
		struct ggml_context *c = g.ctx;
		const int64_t n0 = irand(2, 8), n1 = irand(1, 4), n2 = irand(1, 3);
		struct ggml_tensor *a = param(&g, n0, n1, n2, 1);
		switch (v) {
		case 0: g.out = ggml_sum(c, a); break;
		case 1: g.out = ggml_sum_rows(c, a); break;
		case 2: g.out = ggml_mean(c, a); break;
		case 3: g.out = ggml_cumsum(c, a); break;
		case 4: g.out = ggml_rms_norm(c, a, 1e-5f); break;
		case 5: g.out = ggml_norm(c, ggml_permute(c, a, 0, 2, 1, 3), 1e-5f); break;
		case 6: {
			struct ggml_tensor *b = param(&g, 4, 3, 6, 1);
			g.out = ggml_group_norm(c, b, 3, 1e-5f);
			break;
		}
		case 7: g.out = ggml_repeat(c, a, ggml_new_tensor_4d(c, GGML_TYPE_F32, n0 * 2, n1 * 3, n2, 2)); break;
		case 8: {
			struct ggml_tensor *b = param(&g, n0 * 2, n1, n2 * 2, 1);
			g.out = ggml_repeat_back(c, b, a);
			break;
		}
		}
		check_grads(_metadata, &g, (const char *[]){ "sum", "sum_rows", "mean", "cumsum", "rms_norm", "norm",
							     "group_norm", "repeat", "repeat_back" }[v],
			    1e-2f);
		ggml_free(g.ctx);
	}
}

/* ---- matrix product: broadcast over dims 2 and 3, transposed operands -- */

TEST(mul_mat)
{
	for (int v = 0; v < 8; v++) {
		struct gcase g = new_case(-1.0f, 1.0f);
		struct ggml_context *c = g.ctx;
		const int64_t k = irand(1, 5), m = irand(1, 4), n = irand(1, 3);
		const int64_t q = irand(1, 2), r = irand(1, 2), bq = v & 1 ? 2 : 1, br = v & 2 ? 2 : 1;
		struct ggml_tensor *a = param(&g, k, m, q, r);
		struct ggml_tensor *b;
		if (v & 4) { /* b transposed: a non-contiguous view */
			b = param(&g, n, k, q * bq, r * br);
			b = ggml_transpose(c, b);
		} else {
			b = param(&g, k, n, q * bq, r * br);
		}
		g.out = ggml_mul_mat(c, a, b);
		check_grads(_metadata, &g, "mul_mat", 1e-2f);
		ggml_free(g.ctx);
	}
}

/* ---- layout ops ---------------------------------------------------------- */

TEST(layout_ops)
{
	for (int v = 0; v < 9; v++) {
		struct gcase g = new_case(-1.0f, 1.0f);
		struct ggml_context *c = g.ctx;
		struct ggml_tensor *a = param(&g, 4, 3, 2, 2);
		switch (v) {
		case 0: g.out = ggml_cont(c, ggml_permute(c, a, 2, 0, 3, 1)); break;
		case 1: g.out = ggml_reshape_2d(c, a, 8, 6); break;
		case 2: g.out = ggml_view_2d(c, a, 3, 4, a->nb[1], a->nb[0]); break;
		case 3: g.out = ggml_transpose(c, ggml_reshape_2d(c, a, 12, 4)); break;
		case 4: g.out = ggml_cpy(c, ggml_permute(c, a, 1, 0, 2, 3), ggml_new_tensor_4d(c, GGML_TYPE_F32, 3, 4, 2, 2)); break;
		case 5: g.out = ggml_dup(c, a); break;
		case 6: {
			struct ggml_tensor *b = param(&g, 4, 3, 5, 2);
			g.out = ggml_concat(c, a, b, 2);
			break;
		}
		case 7: {
			/* a view used twice: its gradients add up */
			struct ggml_tensor *x = ggml_view_1d(c, a, 10, 3 * a->nb[0]);
			g.out = ggml_mul(c, x, ggml_view_1d(c, a, 10, 20 * a->nb[0]));
			break;
		}
		case 8: {
			struct ggml_tensor *b = param(&g, 3, 6, 5, 1);
			g.out = ggml_win_unpart(c, ggml_win_part(c, b, 4), 6, 5, 4);
			g.out = ggml_mul(c, g.out, g.out);
			break;
		}
		}
		check_grads(_metadata, &g, "layout", 1e-2f);
		ggml_free(g.ctx);
	}
}

/* ---- indexing, masks, attention ops -------------------------------------- */

TEST(indexing_and_attention)
{
	for (int v = 0; v < 9; v++) {
		struct gcase g = new_case(-2.0f, 2.0f);
		struct ggml_context *c = g.ctx;
		switch (v) {
		case 0: {
			struct ggml_tensor *a = param(&g, 5, 6, 1, 1);
			struct ggml_tensor *idx = ggml_new_tensor_1d(c, GGML_TYPE_I32, 8);
			for (int i = 0; i < 8; i++)
				((int32_t *)idx->data)[i] = irand(0, 5); /* repeats: gradients add up */
			g.out = ggml_get_rows(c, a, idx);
			break;
		}
		case 1: g.out = ggml_diag_mask_inf(c, param(&g, 5, 5, 2, 1), 1);
			g.out = ggml_soft_max(c, g.out);
			break;
		case 2: g.out = ggml_diag_mask_zero(c, param(&g, 5, 4, 2, 1), 0); break;
		case 3: {
			/* with a mask and attention sinks (neither differentiated) */
			struct ggml_tensor *a = param(&g, 7, 3, 2, 1);
			struct ggml_tensor *mask = ggml_new_tensor_2d(c, GGML_TYPE_F32, 7, 3);
			struct ggml_tensor *sinks = ggml_new_tensor_1d(c, GGML_TYPE_F32, 2);
			for (int i = 0; i < 21; i++)
				((float *)mask->data)[i] = i % 5 == 0 ? -INFINITY : (float)urand();
			((float *)sinks->data)[0] = 0.5f;
			((float *)sinks->data)[1] = 2.0f;
			g.out = ggml_soft_max_ext(c, a, mask, 0.7f, 0.0f);
			ggml_soft_max_add_sinks(g.out, sinks);
			break;
		}
		case 4: case 5: case 6: {
			/* rope: normal, NeoX, M-RoPE; a part of the row left unrotated */
			const int mode = v == 4 ? 0 : v == 5 ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_MROPE;
			struct ggml_tensor *a = param(&g, 10, 2, 3, 1);
			struct ggml_tensor *pos = ggml_new_tensor_1d(c, GGML_TYPE_I32, v == 6 ? 12 : 3);
			for (int i = 0; i < pos->ne[0]; i++)
				((int32_t *)pos->data)[i] = irand(0, 50);
			if (v == 6) {
				int sections[4] = { 2, 1, 1, 0 };
				g.out = ggml_rope_multi(c, a, pos, NULL, 8, sections, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f,
							0.0f, 0.0f);
			} else {
				struct ggml_tensor *ff = ggml_new_tensor_1d(c, GGML_TYPE_F32, 4);
				for (int i = 0; i < 4; i++)
					((float *)ff->data)[i] = 1.0f + (float)i;
				g.out = ggml_rope_ext(c, a, pos, ff, 8, mode, 64, 10000.0f, 0.5f, 1.0f, 1.2f, 32.0f, 1.0f);
			}
			break;
		}
		case 7: g.out = ggml_tri(c, param(&g, 4, 4, 2, 1), GGML_TRI_TYPE_LOWER); break;
		case 8: g.out = ggml_diag(c, param(&g, 4, 1, 2, 1)); break;
		}
		check_grads(_metadata, &g, (const char *[]){ "get_rows", "diag_mask_inf+soft_max", "diag_mask_zero",
							     "soft_max_ext", "rope", "rope_neox", "rope_multi", "tri",
							     "diag" }[v],
			    1e-2f);
		ggml_free(g.ctx);
	}
}

/* ---- convolution family -------------------------------------------------- */

TEST(conv_family)
{
	for (int v = 0; v < 7; v++) {
		struct gcase g = new_case(-2.0f, 2.0f);
		struct ggml_context *c = g.ctx;
		switch (v) {
		case 0: { /* 2-D im2col, stride, padding, dilation */
			struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F32, 3, 2, 2, 1);
			struct ggml_tensor *x = param(&g, 6, 5, 2, 1);
			g.out = ggml_im2col(c, k, x, 2, 1, 1, 0, 1, 2, true, GGML_TYPE_F32);
			break;
		}
		case 1: { /* 1-D */
			struct ggml_tensor *k = ggml_new_tensor_3d(c, GGML_TYPE_F32, 3, 2, 1);
			struct ggml_tensor *x = param(&g, 9, 2, 2, 1);
			g.out = ggml_im2col(c, k, x, 2, 0, 1, 0, 2, 0, false, GGML_TYPE_F32);
			break;
		}
		case 2: { /* 3-D */
			struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F32, 2, 2, 2, 2);
			struct ggml_tensor *x = param(&g, 4, 3, 3, 2);
			g.out = ggml_im2col_3d(c, k, x, 2, 1, 2, 1, 1, 0, 1, 1, 1, 1, GGML_TYPE_F32);
			break;
		}
		case 3: case 4: /* pool 2-D max, avg */
			g.out = ggml_pool_2d(c, param(&g, 7, 6, 2, 1), v == 3 ? GGML_OP_POOL_MAX : GGML_OP_POOL_AVG, 3, 2,
					     2, 2, 1, 1);
			break;
		case 5: case 6: /* pool 1-D max, avg */
			g.out = ggml_pool_1d(c, param(&g, 9, 3, 2, 1), v == 5 ? GGML_OP_POOL_MAX : GGML_OP_POOL_AVG, 3, 2, 1);
			break;
		}
		if (v == 3 || v == 5) {
			/* max pooling: distinct values, further apart than the step */
			g.lo = -20;
			g.hi = 20;
		}
		struct ggml_tensor *p = g.p[0];
		check_grads(_metadata, &g, (const char *[]){ "im2col", "im2col_1d", "im2col_3d", "pool_2d max",
							     "pool_2d avg", "pool_1d max", "pool_1d avg" }[v],
			    v == 3 || v == 5 ? 1e-3f : 1e-2f);
		(void)p;
		ggml_free(g.ctx);
	}
}

/* ---- triangular solve; ops whose gradient is zero -------------------------- */

TEST(solve_tri_and_zero_gradients)
{
	for (int v = 0; v < 4; v++) {
		struct gcase g = new_case(-1.0f, 1.0f);
		struct ggml_context *c = g.ctx;
		if (v < 2) {
			const int64_t n = irand(2, 6), k = irand(1, 4), nb = irand(1, 2);
			struct ggml_tensor *a = param(&g, n, n, nb, 1);
			struct ggml_tensor *b = param(&g, k, n, nb, 1);
			/* + 4 on the diagonal: well conditioned */
			struct ggml_tensor *d = ggml_new_tensor_4d(c, GGML_TYPE_F32, n, n, nb, 1);
			for (int64_t i = 0; i < ggml_nelements(d); i++)
				((float *)d->data)[i] = i % n == (i / n) % n ? 4.0f : 0.0f;
			g.out = ggml_solve_tri(c, ggml_add(c, a, d), v == 0 ? b : ggml_sqr(c, b), true, true, false);
			check_grads(_metadata, &g, "solve_tri", 1e-2f);
		} else {
			/* a rounding or a fill of the parameter: a zero gradient node */
			struct ggml_tensor *a = param(&g, 5, 3, 1, 1);
			g.out = v == 2 ? ggml_floor(c, a) : ggml_fill(c, a, 2.0f);
			struct ggml_tensor *loss = ggml_sum(c, g.out);
			ggml_set_loss(loss);
			struct ggml_cgraph *gb = ggml_new_graph_custom(c, 64, true);
			ggml_build_forward_expand(gb, loss);
			ggml_build_backward_expand(c, gb, NULL);
			struct ggml_tensor *gr = ggml_graph_get_grad(gb, a);
			ASSERT_NE(gr, NULL);
			EXPECT_NE(gr->op, GGML_OP_NONE);
			for (int64_t i = 0; i < 15; i++)
				((float *)a->data)[i] = NAN; /* the zeros do not read a */
			ggml_graph_reset(gb);
			ASSERT_EQ(ggml_graph_compute_with_ctx(c, gb, NTH), GGML_STATUS_SUCCESS);
			for (int64_t i = 0; i < 15; i++)
				EXPECT_EQ(((float *)gr->data)[i], 0.0f);
		}
		ggml_free(g.ctx);
	}
}

/* ---- the cross-entropy loss through the backward pass -------------------- */

TEST(cross_entropy_grad)
{
	struct gcase g = new_case(-3.0f, 3.0f);
	struct ggml_tensor *logits = param(&g, 7, 4, 1, 1);
	struct ggml_tensor *labels = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 7, 4);
	for (int r = 0; r < 4; r++) {
		double s = 0;
		for (int i = 0; i < 7; i++)
			s += ((float *)labels->data)[r * 7 + i] = (float)urand();
		for (int i = 0; i < 7; i++)
			((float *)labels->data)[r * 7 + i] /= (float)s;
	}
	g.out = ggml_cross_entropy_loss(g.ctx, logits, labels);
	check_grads(_metadata, &g, "cross_entropy_loss", 1e-2f);
	ggml_free(g.ctx);
}

/* ---- bookkeeping ------------------------------------------------------------ */

/* gradients accumulate into the caller's grad_accs over evaluations;
 * ggml_graph_reset sets the loss's gradient to 1 and the others to 0 */
TEST(grad_accumulation_and_reset)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
	ggml_set_param(a);
	for (int i = 0; i < 5; i++)
		((float *)a->data)[i] = (float)(i + 1);
	struct ggml_tensor *loss = ggml_sum(ctx, ggml_sqr(ctx, a)); /* d/da = 2a */
	ggml_set_loss(loss);
	struct ggml_cgraph *gf = ggml_new_graph_custom(ctx, 64, true);
	ggml_build_forward_expand(gf, loss);
	struct ggml_tensor *acc = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
	struct ggml_tensor *accs[64] = { 0 };
	for (int i = 0; i < ggml_graph_n_nodes(gf); i++)
		if (ggml_graph_node(gf, i) == a)
			accs[i] = acc;
	struct ggml_cgraph *gb = ggml_graph_dup(ctx, gf, true);
	ggml_build_backward_expand(ctx, gb, accs);
	ASSERT_EQ(ggml_graph_get_grad_acc(gb, a), acc);
	ASSERT_NE(ggml_graph_get_grad_acc(gb, loss), NULL);

	for (int i = 0; i < 5; i++)
		((float *)acc->data)[i] = 99.0f;
	ggml_graph_reset(gb);
	EXPECT_EQ(((float *)acc->data)[0], 0.0f);
	EXPECT_EQ(*(float *)ggml_graph_get_grad_acc(gb, loss)->data, 1.0f);
	for (int rep = 1; rep <= 2; rep++) {
		ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gb, NTH), GGML_STATUS_SUCCESS);
		for (int i = 0; i < 5; i++)
			EXPECT_EQ(((float *)acc->data)[i], (float)(rep * 2 * (i + 1)));
	}
	ggml_graph_reset(gb);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(((float *)acc->data)[i], 0.0f);
	ggml_free(ctx);
}

/* a tensor used by two ops gets the sum of both contributions; the sources
 * that carry no gradient (indices, positions) get none */
TEST(shared_inputs_and_non_differentiable_sources)
{
	struct gcase g = new_case(-1.0f, 1.0f);
	struct ggml_tensor *a = param(&g, 4, 3, 1, 1);
	struct ggml_tensor *b = param(&g, 4, 3, 1, 1);
	g.out = ggml_add(g.ctx, ggml_mul(g.ctx, a, b), ggml_sin(g.ctx, ggml_mul(g.ctx, a, a)));
	check_grads(_metadata, &g, "shared", 1e-2f);
	ggml_free(g.ctx);
}

static void build_no_grad_op(void)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
	ggml_set_param(a);
	struct ggml_tensor *loss = ggml_sum(ctx, ggml_l2_norm(ctx, a, 1e-6f));
	ggml_set_loss(loss);
	struct ggml_cgraph *gb = ggml_new_graph_custom(ctx, 64, true);
	ggml_build_forward_expand(gb, loss);
	ggml_build_backward_expand(ctx, gb, NULL);
}

static void build_without_loss(void)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
	ggml_set_param(a);
	struct ggml_cgraph *gb = ggml_new_graph_custom(ctx, 64, true);
	ggml_build_forward_expand(gb, ggml_sum(ctx, a));
	ggml_build_backward_expand(ctx, gb, NULL);
}

TEST(aborts)
{
	EXPECT_TRUE(expect_abort(build_no_grad_op, "L2_NORM"));
	EXPECT_TRUE(expect_abort(build_without_loss, "no loss"));
}

TEST_HARNESS_MAIN
