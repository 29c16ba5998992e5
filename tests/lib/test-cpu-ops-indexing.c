// SPDX-License-Identifier: MIT
/*
 * CPU kernels of the ops that place, select and route elements (ACC, SET,
 * ADD_ID, MUL_MAT_ID, TOP_K and ggml_argsort_top_k, FILL, CUMSUM, ROLL,
 * PAD_REFLECT_1D, COUNT_EQUAL, OUT_PROD, TRI, DIAG, circular PAD, ADD into
 * another type, XIELU, GET_REL_POS, ADD_REL_POS, LIGHTNING_INDEXER, WIN_PART,
 * WIN_UNPART, copies of any same-type view), the user ops (MAP_CUSTOM1..3, CUSTOM), the attention
 * sinks of SOFT_MAX and FLASH_ATTN_EXT, the smaller op wrappers, and
 * ggml_build_forward_select / _order, against
 * references computed here (ops-case.h: 1, 2, 4 threads, fast and scalar
 * reference paths). Sources include non-contiguous views and broadcasts.
 *
 * NMSE thresholds: exact ops (placement, selection) 0; sums in float against
 * double 1e-10; dot products (MUL_MAT_ID) 1e-9; softmax/attention 1e-10.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "ops-case.h"

/* a [ne0, ne1, ne2, ne3] view whose dim 0 is strided: a permuted copy */
static struct ggml_tensor *strided_input(struct tc *c, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2,
					 int64_t ne3, float lo, float hi)
{
	struct ggml_tensor *s = input(c, type, ne1, ne0, ne2, ne3, lo, hi);
	return ggml_permute(c->ctx, s, 1, 0, 2, 3);
}

/* a view of a larger tensor: rows of ne0 inside rows of ne0 + pad */
static struct ggml_tensor *padded_input(struct tc *c, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2,
					int64_t ne3, float lo, float hi)
{
	struct ggml_tensor *s = input(c, type, ne0 + 3, ne1, ne2, ne3, lo, hi);
	return ggml_view_4d(c->ctx, s, ne0, ne1, ne2, ne3, s->nb[1], s->nb[2], s->nb[3], ggml_type_size(type));
}

/* ---- ACC, SET ------------------------------------------------------------- */

TEST(acc_and_set)
{
	for (int v = 0; v < 10; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool acc = v < 4;
		const bool inplace = v % 2 == 1;
		const enum ggml_type t = v == 8 ? GGML_TYPE_F16 : v == 9 ? GGML_TYPE_I32 : GGML_TYPE_F32;
		int64_t ne[4];
		rand_shape(ne, 40);
		struct ggml_tensor *a = input(&c, t, ne[0], ne[1], ne[2], ne[3], -8, 8);
		/* b: a sub-block of a (v 6, 7: 1-D and 2-D forms) at a random place */
		int64_t bn[4], o[4];
		for (int d = 0; d < 4; d++) {
			bn[d] = irand(1, (int)ne[d]);
			o[d] = irand(0, (int)(ne[d] - bn[d]));
		}
		if (v == 6) {
			bn[0] = irand(1, (int)(ne[0] * ne[1]));
			bn[1] = bn[2] = bn[3] = 1;
			o[0] = irand(0, (int)(ne[0] * ne[1] - bn[0]));
			o[1] = o[2] = o[3] = 0;
		}
		if (v == 7)
			bn[2] = bn[3] = 1, o[2] = o[3] = 0;
		struct ggml_tensor *b = v == 2 || v == 4 ? strided_input(&c, t, bn[0], bn[1], bn[2], bn[3], -8, 8)
							 : input(&c, t, bn[0], bn[1], bn[2], bn[3], -8, 8);
		const size_t es = ggml_type_size(t);
		size_t nb1 = a->nb[1], nb2 = a->nb[2], nb3 = a->nb[3];
		if (v == 5 && ne[1] >= 2 && bn[1] * 2 <= ne[1]) { /* every other row of a */
			nb1 = 2 * a->nb[1];
			o[1] = 0;
		}
		const size_t off = o[0] * es + o[1] * a->nb[1] + o[2] * a->nb[2] + o[3] * a->nb[3];
		if (acc)
			c.out = inplace ? ggml_acc_inplace(c.ctx, a, b, nb1, nb2, nb3, off) : ggml_acc(c.ctx, a, b, nb1, nb2, nb3, off);
		else if (v == 6)
			c.out = ggml_set_1d(c.ctx, a, b, off);
		else if (v == 7)
			c.out = ggml_set_2d_inplace(c.ctx, a, b, nb1, off);
		else
			c.out = inplace ? ggml_set_inplace(c.ctx, a, b, nb1, nb2, nb3, off) : ggml_set(c.ctx, a, b, nb1, nb2, nb3, off);
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++)
			r[i] = tget_flat(a, i);
		for (int64_t i3 = 0; i3 < bn[3]; i3++)
			for (int64_t i2 = 0; i2 < bn[2]; i2++)
				for (int64_t i1 = 0; i1 < bn[1]; i1++)
					for (int64_t i0 = 0; i0 < bn[0]; i0++) {
						const size_t byte = off + i0 * es + i1 * nb1 + i2 * nb2 + i3 * nb3;
						const double x = tget(b, i0, i1, i2, i3);
						double *d = &r[byte / es];
						*d = acc ? (double)(float)(*d + x) : x;
					}
		char name[48];
		snprintf(name, sizeof(name), "%s v%d", acc ? "acc" : "set", v);
		run_case(_metadata, &c, 0, name);
		tc_free(&c);
	}
}

/* ---- ADD_ID ----------------------------------------------------------------- */

TEST(add_id)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n0 = irand(1, 70), n1 = irand(1, 8), n2 = irand(1, 9), E = irand(1, 6);
		struct ggml_tensor *a = v == 1 ? strided_input(&c, GGML_TYPE_F32, n0, n1, n2, 1, -2, 2)
					       : v == 2 ? padded_input(&c, GGML_TYPE_F32, n0, n1, n2, 1, -2, 2)
							: input(&c, GGML_TYPE_F32, n0, n1, n2, 1, -2, 2);
		struct ggml_tensor *b = input(&c, GGML_TYPE_F32, n0, E, 1, 1, -2, 2);
		struct ggml_tensor *ids = input(&c, GGML_TYPE_I32, n1, n2, 1, 1, 0, (float)(E - 1));
		c.out = ggml_add_id(c.ctx, a, b, ids);
		double *r = ref_alloc(&c);
		for (int64_t i2 = 0, i = 0; i2 < n2; i2++)
			for (int64_t i1 = 0; i1 < n1; i1++)
				for (int64_t i0 = 0; i0 < n0; i0++, i++)
					r[i] = (float)(tget(a, i0, i1, i2, 0) + tget(b, i0, (int64_t)tget(ids, i1, i2, 0, 0), 0, 0));
		run_case(_metadata, &c, 0, "add_id");
		tc_free(&c);
	}
}

/* ---- MUL_MAT_ID ----------------------------------------------------------- */

TEST(mul_mat_id)
{
	static const enum ggml_type wts[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0 };
	for (int v = 0; v < 10; v++) {
		struct tc c = { .ctx = new_ctx() };
		const enum ggml_type wt = wts[v % 5];
		const bool q = ggml_is_quantized(wt);
		const int64_t K = q ? 32 * irand(1, 4) : irand(1, 90), N = irand(1, 40), E = irand(1, 8);
		const int64_t n_used = irand(1, (int)E), T = v == 9 ? 1 : irand(1, 7);
		const int64_t n_b = v >= 5 && v != 7 ? 1 : n_used; /* broadcast one row over the experts used */
		struct ggml_tensor *as = input(&c, wt, K, N, E, 1, -1, 1);
		struct ggml_tensor *b;
		if (v == 6) /* [K, T, n_b] stored, viewed as [K, n_b, T] */
			b = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, K, T, n_b, 1, -1, 1), 0, 2, 1, 3);
		else if (v == 7) /* F16 activations with strided elements */
			b = strided_input(&c, GGML_TYPE_F16, K, n_b, T, 1, -1, 1);
		else
			b = input(&c, GGML_TYPE_F32, K, n_b, T, 1, -1, 1);
		struct ggml_tensor *ids = input(&c, GGML_TYPE_I32, n_used, T, 1, 1, 0, (float)(E - 1));
		c.out = ggml_mul_mat_id(c.ctx, as, b, ids);
		ASSERT_EQ(c.out->ne[0], N);
		ASSERT_EQ(c.out->ne[1], n_used);
		ASSERT_EQ(c.out->ne[2], T);
		double *r = ref_alloc(&c);
		for (int64_t t = 0; t < T; t++)
			for (int64_t e = 0; e < n_used; e++) {
				const int64_t x = (int64_t)tget(ids, e, t, 0, 0);
				for (int64_t n = 0; n < N; n++) {
					double s = 0;
					for (int64_t k = 0; k < K; k++)
						s += tget(as, k, n, x, 0) * tget(b, k, e % n_b, t, 0);
					r[(t * n_used + e) * N + n] = s;
				}
			}
		char name[48];
		snprintf(name, sizeof(name), "mul_mat_id %s v%d", ggml_type_name(wt), v);
		run_case(_metadata, &c, 1e-9, name);
		tc_free(&c);
	}
}

/* ---- TOP_K, argsort_top_k -------------------------------------------------- */

TEST(top_k)
{
	for (int v = 0; v < 6; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 80);
		const int k = irand(0, (int)ne[0]);
		struct ggml_tensor *a = v == 2 ? strided_input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3)
					       : input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3);
		if (v == 3) /* ties: the lower index first */
			for (int64_t i = 0; i < ggml_nelements(a); i += 2)
				((float *)a->data)[i] = 0.5f;
		const bool via_argsort = v >= 4;
		c.out = via_argsort ? ggml_argsort_top_k(c.ctx, a, k) : ggml_top_k(c.ctx, a, k);
		ASSERT_EQ(c.out->ne[0], k);
		ASSERT_EQ(c.out->type, GGML_TYPE_I32);
		double *r = ref_alloc(&c);
		int32_t *idx = malloc(ne[0] * sizeof(int32_t));
		for (int64_t row = 0; row < ne[1] * ne[2] * ne[3]; row++) {
			const int64_t i1 = row % ne[1], i2 = (row / ne[1]) % ne[2], i3 = row / (ne[1] * ne[2]);
			for (int64_t i = 0; i < ne[0]; i++)
				idx[i] = (int32_t)i;
			/* selection sort, descending, stable */
			for (int64_t i = 0; i < k; i++) {
				int64_t best = i;
				for (int64_t j = i + 1; j < ne[0]; j++) {
					double vj = tget(a, idx[j], i1, i2, i3), vb = tget(a, idx[best], i1, i2, i3);
					if (vj > vb || (vj == vb && idx[j] < idx[best]))
						best = j;
				}
				int32_t tmp = idx[i];
				idx[i] = idx[best];
				idx[best] = tmp;
				r[row * k + i] = idx[i];
			}
		}
		free(idx);
		run_case(_metadata, &c, 0, via_argsort ? "argsort_top_k" : "top_k");
		tc_free(&c);
	}
}

/* ---- FILL, CUMSUM, ROLL, PAD_REFLECT_1D ----------------------------------- */

TEST(fill_op)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 50);
		const enum ggml_type t = v >= 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
		struct ggml_tensor *a = input(&c, t, ne[0], ne[1], ne[2], ne[3], -1, 1);
		const float val = v == 3 ? -0.0f : 0.3125f * (float)irand(-9, 9);
		c.out = v % 2 ? ggml_fill_inplace(c.ctx, a, val) : ggml_fill(c.ctx, a, val);
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++)
			r[i] = val;
		run_case(_metadata, &c, 0, "fill");
		tc_free(&c);
	}
}

TEST(cumsum)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 90);
		struct ggml_tensor *a = v == 1 ? strided_input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1)
				      : v == 2 ? padded_input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1)
					       : input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -1, 1);
		c.out = ggml_cumsum(c.ctx, a);
		double *r = ref_alloc(&c);
		for (int64_t row = 0; row < c.n / ne[0]; row++) {
			double s = 0;
			for (int64_t i = 0; i < ne[0]; i++) {
				s += tget_flat(a, row * ne[0] + i);
				r[row * ne[0] + i] = s;
			}
		}
		run_case(_metadata, &c, 1e-10, "cumsum");
		tc_free(&c);
	}
}

TEST(roll)
{
	for (int v = 0; v < 5; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 40);
		const enum ggml_type t = v == 3 ? GGML_TYPE_F16 : v == 4 ? GGML_TYPE_I32 : GGML_TYPE_F32;
		struct ggml_tensor *a = v == 2 ? padded_input(&c, t, ne[0], ne[1], ne[2], ne[3], -9, 9)
					       : input(&c, t, ne[0], ne[1], ne[2], ne[3], -9, 9);
		int s[4];
		for (int d = 0; d < 4; d++)
			s[d] = irand(-(int)ne[d] + 1, (int)ne[d] - 1);
		c.out = ggml_roll(c.ctx, a, s[0], s[1], s[2], s[3]);
		double *r = ref_alloc(&c);
		int64_t i = 0;
		for (int64_t i3 = 0; i3 < ne[3]; i3++)
			for (int64_t i2 = 0; i2 < ne[2]; i2++)
				for (int64_t i1 = 0; i1 < ne[1]; i1++)
					for (int64_t i0 = 0; i0 < ne[0]; i0++, i++)
						r[i] = tget(a, ((i0 - s[0]) % ne[0] + ne[0]) % ne[0], ((i1 - s[1]) % ne[1] + ne[1]) % ne[1],
							    ((i2 - s[2]) % ne[2] + ne[2]) % ne[2], ((i3 - s[3]) % ne[3] + ne[3]) % ne[3]);
		run_case(_metadata, &c, 0, "roll");
		tc_free(&c);
	}
}

TEST(pad_reflect_1d)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 30);
		const int p0 = irand(0, (int)ne[0] - 1), p1 = v == 0 ? 0 : irand(0, (int)ne[0] - 1);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -5, 5);
		c.out = ggml_pad_reflect_1d(c.ctx, a, p0, p1);
		ASSERT_EQ(c.out->ne[0], ne[0] + p0 + p1);
		double *r = ref_alloc(&c);
		const int64_t n0 = c.out->ne[0];
		for (int64_t row = 0; row < c.n / n0; row++)
			for (int64_t i = 0; i < n0; i++) {
				/* left: a[p0 - i], right: a[n - 2 - (i - p0 - n)] */
				int64_t j = i < p0 ? p0 - i : i - p0 < ne[0] ? i - p0 : ne[0] - 2 - (i - p0 - ne[0]);
				r[row * n0 + i] = tget_flat(a, row * ne[0] + j);
			}
		run_case(_metadata, &c, 0, "pad_reflect_1d");
		tc_free(&c);
	}
}

/* ---- attention sinks ------------------------------------------------------ */

TEST(soft_max_sinks)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n = irand(1, 70), rows = irand(1, 9), H = irand(1, 6);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, n, rows, H, 1, -4, 4);
		struct ggml_tensor *m = v >= 1 ? input(&c, GGML_TYPE_F16, n, rows, 1, 1, -2, 0) : NULL;
		struct ggml_tensor *sk = input(&c, GGML_TYPE_F32, H, 1, 1, 1, v == 2 ? 5 : -3, v == 2 ? 9 : 3);
		const float scale = 0.75f;
		c.out = ggml_soft_max_ext(c.ctx, a, m, scale, 0.0f);
		ggml_soft_max_add_sinks(c.out, sk);
		ASSERT_EQ(c.out->src[2], sk);
		double *r = ref_alloc(&c);
		for (int64_t h = 0; h < H; h++)
			for (int64_t i1 = 0; i1 < rows; i1++) {
				double mx = tget(sk, h, 0, 0, 0), s;
				double *z = &r[(h * rows + i1) * n];
				for (int64_t i = 0; i < n; i++) {
					z[i] = scale * tget(a, i, i1, h, 0) + (m ? tget(m, i, i1, 0, 0) : 0);
					mx = fmax(mx, z[i]);
				}
				s = exp(tget(sk, h, 0, 0, 0) - mx);
				for (int64_t i = 0; i < n; i++) {
					z[i] = exp(z[i] - mx);
					s += z[i];
				}
				for (int64_t i = 0; i < n; i++)
					z[i] /= s;
			}
		run_case(_metadata, &c, 1e-10, "soft_max + sinks");
		tc_free(&c);
	}
	/* NULL removes them */
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
	struct ggml_tensor *sm = ggml_soft_max(ctx, a);
	ggml_soft_max_add_sinks(sm, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1));
	ggml_soft_max_add_sinks(sm, NULL);
	EXPECT_EQ(sm->src[2], NULL);
	ggml_free(ctx);
}

TEST(flash_attn_ext_sinks)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t D = 8 * irand(1, 12), NQ = v == 3 ? irand(17, 40) : irand(1, 9), NKV = irand(1, 150);
		const int64_t H = 4, HKV = v == 1 ? 2 : 4;
		const enum ggml_type kvt = v == 2 ? GGML_TYPE_F32 : GGML_TYPE_F16;
		struct ggml_tensor *q = input(&c, GGML_TYPE_F32, D, NQ, H, 1, -1, 1);
		struct ggml_tensor *k = input(&c, kvt, D, NKV, HKV, 1, -1, 1);
		struct ggml_tensor *vv = input(&c, kvt, D, NKV, HKV, 1, -1, 1);
		struct ggml_tensor *m = input(&c, GGML_TYPE_F16, NKV, NQ, 1, 1, -1, 0);
		struct ggml_tensor *sk = input(&c, GGML_TYPE_F32, H, 1, 1, 1, -2, 6);
		const float scale = 1.0f / sqrtf((float)D);
		c.out = ggml_flash_attn_ext(c.ctx, q, k, vv, m, scale, 0.0f, 0.0f);
		ggml_flash_attn_ext_add_sinks(c.out, sk);
		ASSERT_EQ(c.out->src[4], sk);
		double *r = ref_alloc(&c);
		double *sc = malloc(NKV * sizeof(double));
		for (int64_t h = 0; h < H; h++)
			for (int64_t iq = 0; iq < NQ; iq++) {
				const int64_t hk = h / (H / HKV);
				const double sink = tget(sk, h, 0, 0, 0);
				double mx = sink, s = 0;
				for (int64_t j = 0; j < NKV; j++) {
					double d = 0;
					for (int64_t e = 0; e < D; e++)
						d += tget(q, e, iq, h, 0) * tget(k, e, j, hk, 0);
					sc[j] = d * scale + tget(m, j, iq, 0, 0);
					mx = fmax(mx, sc[j]);
				}
				for (int64_t j = 0; j < NKV; j++) {
					sc[j] = exp(sc[j] - mx);
					s += sc[j];
				}
				s += exp(sink - mx);
				for (int64_t e = 0; e < D; e++) {
					double o = 0;
					for (int64_t j = 0; j < NKV; j++)
						o += sc[j] * tget(vv, e, j, hk, 0);
					r[(iq * H + h) * D + e] = o / s;
				}
			}
		free(sc);
		run_case(_metadata, &c, 1e-10, "flash_attn_ext + sinks");
		tc_free(&c);
	}
}

/* ---- the smaller wrappers build the op they name ------------------------- */

TEST(op_wrappers)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 3);
	struct {
		struct ggml_tensor *(*fn)(struct ggml_context *, struct ggml_tensor *);
		struct ggml_tensor *(*fn_inplace)(struct ggml_context *, struct ggml_tensor *);
		enum ggml_unary_op op;
	} u[] = {
		{ ggml_expm1, ggml_expm1_inplace, GGML_UNARY_OP_EXPM1 },
		{ ggml_softplus, ggml_softplus_inplace, GGML_UNARY_OP_SOFTPLUS },
		{ ggml_gelu_erf, ggml_gelu_erf_inplace, GGML_UNARY_OP_GELU_ERF },
		{ ggml_floor, ggml_floor_inplace, GGML_UNARY_OP_FLOOR },
		{ ggml_ceil, ggml_ceil_inplace, GGML_UNARY_OP_CEIL },
		{ ggml_round, ggml_round_inplace, GGML_UNARY_OP_ROUND },
		{ ggml_trunc, ggml_trunc_inplace, GGML_UNARY_OP_TRUNC },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		struct ggml_tensor *t = u[i].fn(ctx, a), *ti = u[i].fn_inplace(ctx, a);
		EXPECT_EQ(t->op, GGML_OP_UNARY);
		EXPECT_EQ(ggml_get_unary_op(t), u[i].op);
		EXPECT_EQ(ggml_get_unary_op(ti), u[i].op);
		EXPECT_EQ(t->view_src, NULL);
		EXPECT_EQ(ti->view_src, a);
	}
	struct ggml_tensor *g = ggml_geglu_erf(ctx, a);
	EXPECT_EQ(ggml_get_glu_op(g), GGML_GLU_OP_GEGLU_ERF);
	EXPECT_EQ(g->ne[0], 3);
	g = ggml_geglu_quick_swapped(ctx, a);
	EXPECT_EQ(ggml_get_glu_op(g), GGML_GLU_OP_GEGLU_QUICK);
	EXPECT_EQ(g->op_params[1], 1);
	g = ggml_geglu_erf_split(ctx, a, a);
	EXPECT_EQ(g->src[1], a);
	struct ggml_tensor *mm = ggml_mul_mat(ctx, a, a);
	ggml_mul_mat_set_hint(mm, GGML_HINT_SRC0_IS_HADAMARD);
	EXPECT_EQ(mm->op_params[1], GGML_HINT_SRC0_IS_HADAMARD);
	EXPECT_EQ(mm->op_params[0], GGML_PREC_DEFAULT);
	float dims[2];
	ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, dims);
	EXPECT_EQ(dims[0], 20.0f); /* floor(128 ln(4096 / (2 pi 32)) / (2 ln 1e4)) = floor(20.9) */
	EXPECT_EQ(dims[1], 46.0f); /* ceil(128 ln(4096 / (2 pi)) / (2 ln 1e4)) = ceil(45.03) */
	EXPECT_TRUE(ggml_is_view(ggml_transpose(ctx, a)));
	EXPECT_FALSE(ggml_is_view(a));
	EXPECT_TRUE(ggml_is_contiguous_to_1(ggml_view_2d(ctx, a, 3, 3, a->nb[1], 0)));
	EXPECT_FALSE(ggml_is_contiguous_to_2(ggml_view_2d(ctx, a, 3, 3, a->nb[1], 0)));
	EXPECT_FALSE(ggml_is_contiguous_to_1(ggml_transpose(ctx, a)));
	ggml_free(ctx);
}

/* leaky_relu, diag_mask_zero, swiglu_oai, computed */
TEST(small_ops_computed)
{
	for (int o = 0; o < 3; o++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 40);
		if (o == 1)
			ne[1] = ne[0];
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3);
		struct ggml_tensor *b = o == 2 ? input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3) : NULL;
		const int n_past = irand(0, 3);
		const float alpha = 1.702f, limit = 2.0f;
		c.out = o == 0 ? ggml_leaky_relu(c.ctx, a, 0.125f, false) : o == 1 ? ggml_diag_mask_zero(c.ctx, a, n_past)
									    : ggml_swiglu_oai(c.ctx, a, b, alpha, limit);
		double *r = ref_alloc(&c);
		int64_t i = 0;
		for (int64_t i3 = 0; i3 < ne[3]; i3++)
			for (int64_t i2 = 0; i2 < ne[2]; i2++)
				for (int64_t i1 = 0; i1 < ne[1]; i1++)
					for (int64_t i0 = 0; i0 < ne[0]; i0++, i++) {
						const double x = tget(a, i0, i1, i2, i3);
						if (o == 0) {
							r[i] = x > 0 ? x : 0.125 * x;
						} else if (o == 1) {
							r[i] = i0 > n_past + i1 ? 0 : x;
						} else {
							const double xa = fmin(x, limit);
							const double yb = fmax(fmin(tget(b, i0, i1, i2, i3), limit), -limit);
							r[i] = xa / (1 + exp(-alpha * xa)) * (yb + 1);
						}
					}
		run_case(_metadata, &c, 1e-11, o == 0 ? "leaky_relu" : o == 1 ? "diag_mask_zero" : "swiglu_oai");
		tc_free(&c);
	}
}

/* ---- ggml_build_forward_select, _order ------------------------------------ */

static int compute_graph(struct ggml_cgraph *gf, int nth)
{
	struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
	void *work = plan.work_size ? malloc(plan.work_size) : NULL;
	plan.work_data = work;
	int st = ggml_graph_compute(gf, &plan);
	free(work);
	return st;
}

TEST(build_forward_select)
{
	for (int idx = 0; idx < 2; idx++) {
		struct ggml_context *ctx = new_ctx();
		/* candidate 0: rows of a table picked by ids; candidate 1: scaled input */
		struct ggml_tensor *table = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 4);
		struct ggml_tensor *ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
		struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
		fill(table, -1, 1);
		fill(x, -1, 1);
		/* the other candidate's input is left invalid, as when it is not set */
		for (int i = 0; i < 3; i++)
			((int32_t *)ids->data)[i] = idx == 0 ? 3 - i : 1000000;
		struct ggml_tensor *cand[2] = { ggml_get_rows(ctx, table, ids), ggml_scale(ctx, x, 2.0f) };
		struct ggml_tensor *other = cand[1 - idx];
		struct ggml_tensor *sel_in = cand[idx];
		struct ggml_cgraph *gf = ggml_new_graph(ctx);
		struct ggml_tensor *sel = ggml_build_forward_select(gf, cand, 2, idx);
		ASSERT_EQ(sel, sel_in);
		struct ggml_tensor *out = ggml_add(ctx, sel, sel);
		ggml_build_forward_expand(gf, out);
		EXPECT_EQ(ggml_graph_n_nodes(gf), 3); /* both candidates are nodes */
		memset(other->data, 0x7f, ggml_nbytes(other));
		for (int nth = 1; nth <= 2; nth++) {
			ASSERT_EQ(compute_graph(gf, nth), GGML_STATUS_SUCCESS);
			for (int64_t r = 0; r < 3; r++)
				for (int64_t i = 0; i < 5; i++) {
					const double want = idx == 0 ? 2.0 * tget(table, i, 3 - r, 0, 0) : 4.0 * tget(x, i, r, 0, 0);
					EXPECT_EQ(tget(out, i, r, 0, 0), (float)want);
				}
			/* the candidate not selected was not computed */
			for (size_t i = 0; i < ggml_nbytes(other); i++)
				EXPECT_EQ(((uint8_t *)other->data)[i], 0x7f);
		}
		ggml_free(ctx);
	}

	/* _order: in the graph, computed only when an expanded node needs it */
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
	fill(x, 1, 2);
	struct ggml_tensor *y = ggml_scale(ctx, x, 3.0f);
	struct ggml_tensor *z = ggml_scale(ctx, x, 5.0f);
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_order(gf, y);
	ggml_build_forward_order(gf, z);
	ggml_build_forward_expand(gf, ggml_sqr(ctx, z));
	EXPECT_EQ(ggml_graph_n_nodes(gf), 3);
	EXPECT_EQ(ggml_graph_node(gf, 0), y);
	memset(y->data, 0, ggml_nbytes(y));
	ASSERT_EQ(compute_graph(gf, 2), GGML_STATUS_SUCCESS);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(((float *)y->data)[i], 0.0f);
		EXPECT_EQ(((float *)z->data)[i], 5.0f * ((float *)x->data)[i]);
	}
	ggml_free(ctx);
}

/* ---- COUNT_EQUAL, OUT_PROD, TRI, DIAG -------------------------------------- */

TEST(count_equal)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 40);
		struct ggml_tensor *a = input(&c, GGML_TYPE_I32, ne[0], ne[1], ne[2], ne[3], 0, 3);
		struct ggml_tensor *b = v == 1 ? strided_input(&c, GGML_TYPE_I32, ne[0], ne[1], ne[2], ne[3], 0, 3)
					       : input(&c, GGML_TYPE_I32, ne[0], ne[1], ne[2], ne[3], 0, 3);
		c.out = ggml_count_equal(c.ctx, a, b);
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < ggml_nelements(a); i++)
			r[0] += tget_flat(a, i) == tget_flat(b, i);
		run_case(_metadata, &c, 0, "count_equal");
		tc_free(&c);
	}
}

TEST(out_prod)
{
	static const enum ggml_type ts[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0 };
	for (int v = 0; v < 5; v++) {
		struct tc c = { .ctx = new_ctx() };
		const enum ggml_type t = ts[v % 3];
		const int64_t n0 = t == GGML_TYPE_Q8_0 ? 32 * irand(1, 2) : irand(1, 40), n1 = irand(1, 20), k = irand(1, 30);
		const int64_t a2 = irand(1, 2), r2 = irand(1, 2), b3 = irand(1, 2);
		struct ggml_tensor *a = input(&c, t, n0, k, a2, 1, -1, 1);
		struct ggml_tensor *b = v == 3 ? strided_input(&c, GGML_TYPE_F32, n1, k, a2 * r2, b3, -1, 1)
					       : input(&c, GGML_TYPE_F32, n1, k, a2 * r2, b3, -1, 1);
		c.out = ggml_out_prod(c.ctx, a, b);
		double *r = ref_alloc(&c);
		for (int64_t i3 = 0; i3 < b3; i3++)
			for (int64_t i2 = 0; i2 < a2 * r2; i2++)
				for (int64_t i1 = 0; i1 < n1; i1++)
					for (int64_t i0 = 0; i0 < n0; i0++) {
						double s = 0;
						for (int64_t j = 0; j < k; j++)
							s += tget(a, i0, j, i2 / r2, 0) * tget(b, i1, j, i2, i3);
						r[((i3 * a2 * r2 + i2) * n1 + i1) * n0 + i0] = s;
					}
		run_case(_metadata, &c, 1e-11, "out_prod");
		tc_free(&c);
	}
}

TEST(tri_and_diag)
{
	for (int v = 0; v < 5; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n = irand(1, 20), n2 = irand(1, 3), n3 = irand(1, 2);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, n, v < 4 ? n : 1, n2, n3, -1, 1);
		c.out = v < 4 ? ggml_tri(c.ctx, a, (enum ggml_tri_type)v) : ggml_diag(c.ctx, a);
		double *r = ref_alloc(&c);
		int64_t i = 0;
		for (int64_t i3 = 0; i3 < n3; i3++)
			for (int64_t i2 = 0; i2 < n2; i2++)
				for (int64_t i1 = 0; i1 < n; i1++)
					for (int64_t i0 = 0; i0 < n; i0++, i++) {
						bool keep = v == GGML_TRI_TYPE_UPPER_DIAG ? i0 >= i1 : v == GGML_TRI_TYPE_UPPER ? i0 > i1 :
							    v == GGML_TRI_TYPE_LOWER_DIAG ? i0 <= i1 : v == GGML_TRI_TYPE_LOWER ? i0 < i1 : i0 == i1;
						r[i] = keep ? tget(a, i0, v < 4 ? i1 : 0, i2, i3) : 0;
					}
		run_case(_metadata, &c, 0, v < 4 ? "tri" : "diag");
		tc_free(&c);
	}
}

/* ---- circular PAD, ADD into another type, XIELU ----------------------------- */

TEST(pad_circular)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 20);
		int lp[4], rp[4];
		for (int d = 0; d < 4; d++) {
			lp[d] = v == 0 ? 0 : irand(0, 2 * (int)ne[d]);
			rp[d] = irand(0, 2 * (int)ne[d]);
		}
		struct ggml_tensor *a = v == 2 ? strided_input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3)
					       : input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -3, 3);
		c.out = v == 0 ? ggml_pad_circular(c.ctx, a, rp[0], rp[1], rp[2], rp[3])
			       : ggml_pad_ext_circular(c.ctx, a, lp[0], rp[0], lp[1], rp[1], lp[2], rp[2], lp[3], rp[3]);
		double *r = ref_alloc(&c);
		const int64_t *o = c.out->ne;
		int64_t i = 0;
		for (int64_t i3 = 0; i3 < o[3]; i3++)
			for (int64_t i2 = 0; i2 < o[2]; i2++)
				for (int64_t i1 = 0; i1 < o[1]; i1++)
					for (int64_t i0 = 0; i0 < o[0]; i0++, i++)
						r[i] = tget(a, ((i0 - lp[0]) % ne[0] + ne[0]) % ne[0], ((i1 - lp[1]) % ne[1] + ne[1]) % ne[1],
							    ((i2 - lp[2]) % ne[2] + ne[2]) % ne[2], ((i3 - lp[3]) % ne[3] + ne[3]) % ne[3]);
		run_case(_metadata, &c, 0, "pad_circular");
		tc_free(&c);
	}
}

TEST(add_cast)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n0 = v == 0 ? irand(1, 50) : 32 * irand(1, 3), n1 = irand(1, 6);
		const enum ggml_type at = v == 0 ? GGML_TYPE_F16 : GGML_TYPE_Q8_0;
		const enum ggml_type rt = v == 2 ? GGML_TYPE_Q8_0 : GGML_TYPE_F32;
		struct ggml_tensor *a = input(&c, at, n0, n1, 1, 1, -1, 1);
		struct ggml_tensor *b = input(&c, GGML_TYPE_F32, n0, 1, 1, 1, -1, 1);
		c.out = ggml_add_cast(c.ctx, a, b, rt);
		ASSERT_EQ(c.out->type, rt);
		double *r = ref_alloc(&c);
		for (int64_t i1 = 0; i1 < n1; i1++)
			for (int64_t i0 = 0; i0 < n0; i0++)
				r[i1 * n0 + i0] = (float)(tget(a, i0, i1, 0, 0) + tget(b, i0, 0, 0, 0));
		/* a Q8_0 result rounds each block to 8 bits: 1e-4 */
		run_case(_metadata, &c, rt == GGML_TYPE_Q8_0 ? 1e-4 : 0, "add_cast");
		tc_free(&c);
	}
}

static double softplus_ref(double x)
{
	return x > 20 ? x : log1p(exp(x));
}

TEST(xielu)
{
	struct tc c = { .ctx = new_ctx() };
	int64_t ne[4];
	rand_shape(ne, 60);
	struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -6, 4);
	const float an = 0.8f, ap = 0.8f, beta = 0.5f, eps = -1e-6f;
	c.out = ggml_xielu(c.ctx, a, an, ap, beta, eps);
	double *r = ref_alloc(&c);
	const double an2 = beta + softplus_ref(an), ap2 = softplus_ref(ap);
	for (int64_t i = 0; i < c.n; i++) {
		const double x = tget_flat(a, i);
		r[i] = x > 0 ? ap2 * x * x + beta * x : (expm1(fmin(x, eps)) - x) * an2 + beta * x;
	}
	run_case(_metadata, &c, 1e-11, "xielu");
	tc_free(&c);
}

/* ---- user ops ----------------------------------------------------------- */

static atomic_int custom_calls;

/* dst = a * 2 + (b) + (c), the rows split over nth */
static void custom_rows(struct ggml_tensor *dst, const struct ggml_tensor *a, const struct ggml_tensor *b,
			const struct ggml_tensor *c, int ith, int nth, void *ud)
{
	atomic_fetch_add(&custom_calls, 1);
	const float k = *(const float *)ud;
	const int64_t nr = ggml_nrows(dst);
	for (int64_t r = ith; r < nr; r += nth)
		for (int64_t i = 0; i < dst->ne[0]; i++) {
			float v = k * ((const float *)a->data)[r * a->ne[0] + i];
			if (b)
				v += ((const float *)b->data)[r * b->ne[0] + i];
			if (c)
				v += ((const float *)c->data)[r * c->ne[0] + i];
			((float *)dst->data)[r * dst->ne[0] + i] = v;
		}
}

static void custom1_fn(struct ggml_tensor *dst, const struct ggml_tensor *a, int ith, int nth, void *ud)
{
	custom_rows(dst, a, NULL, NULL, ith, nth, ud);
}

static void custom2_fn(struct ggml_tensor *dst, const struct ggml_tensor *a, const struct ggml_tensor *b, int ith,
		       int nth, void *ud)
{
	custom_rows(dst, a, b, NULL, ith, nth, ud);
}

static void custom3_fn(struct ggml_tensor *dst, const struct ggml_tensor *a, const struct ggml_tensor *b,
		       const struct ggml_tensor *c, int ith, int nth, void *ud)
{
	custom_rows(dst, a, b, c, ith, nth, ud);
}

/* CUSTOM: dst[i] = sum of src[j][i] over its sources */
static void custom_sum_fn(struct ggml_tensor *dst, int ith, int nth, void *ud)
{
	(void)ud;
	atomic_fetch_add(&custom_calls, 1);
	const int64_t n = ggml_nelements(dst);
	for (int64_t i = ith; i < n; i += nth) {
		float s = 0;
		for (int j = 0; j < GGML_MAX_SRC && dst->src[j]; j++)
			s += ((const float *)dst->src[j]->data)[i];
		((float *)dst->data)[i] = s;
	}
}

TEST(custom_ops)
{
	static float k = 2.0f;
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n0 = irand(1, 9), n1 = irand(1, 5);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, n0, n1, 1, 1, -1, 1);
		struct ggml_tensor *b = input(&c, GGML_TYPE_F32, n0, n1, 1, 1, -1, 1);
		struct ggml_tensor *d = input(&c, GGML_TYPE_F32, n0, n1, 1, 1, -1, 1);
		const int n_tasks = v % 2 ? 1 : GGML_N_TASKS_MAX;
		struct ggml_tensor *args[2] = { b, d };
		switch (v) {
		case 0: c.out = ggml_map_custom1(c.ctx, a, custom1_fn, n_tasks, &k); break;
		case 1: c.out = ggml_map_custom1_inplace(c.ctx, a, custom1_fn, n_tasks, &k); break;
		case 2: c.out = ggml_map_custom2(c.ctx, a, b, custom2_fn, n_tasks, &k); break;
		case 3: c.out = ggml_map_custom2_inplace(c.ctx, a, b, custom2_fn, n_tasks, &k); break;
		case 4: c.out = ggml_map_custom3(c.ctx, a, b, d, custom3_fn, n_tasks, &k); break;
		case 5: c.out = ggml_map_custom3_inplace(c.ctx, a, b, d, custom3_fn, n_tasks, &k); break;
		case 6: c.out = ggml_custom_4d(c.ctx, GGML_TYPE_F32, n0, n1, 1, 1, args, 2, custom_sum_fn, n_tasks, NULL); break;
		default: c.out = ggml_custom_inplace(c.ctx, a, args, 2, custom_sum_fn, n_tasks, NULL); break;
		}
		if (v % 2)
			EXPECT_EQ(c.out->view_src, a);
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++) {
			if (v >= 6)
				r[i] = (float)((v == 7 ? tget_flat(a, i) : 0) + tget_flat(b, i) + tget_flat(d, i));
			else
				r[i] = (float)(2 * tget_flat(a, i) + (v >= 2 ? tget_flat(b, i) : 0)) + (v >= 4 ? tget_flat(d, i) : 0);
		}
		atomic_store(&custom_calls, 0);
		run_case(_metadata, &c, 1e-14, "custom op");
		/* 1 + 2 + 4 + 2 threads for GGML_N_TASKS_MAX, once per run for n_tasks 1 */
		EXPECT_EQ(atomic_load(&custom_calls), n_tasks == 1 ? 4 : 9);
		tc_free(&c);
	}
}

/* ---- relative positions, same-type copies of views ------------------------ */

TEST(rel_pos)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t C = irand(1, 9), q = irand(1, 6);
		struct ggml_tensor *a = input(&c, v == 2 ? GGML_TYPE_F32 : GGML_TYPE_F16, C, 2 * q - 1, 1, 1, -2, 2);
		c.out = ggml_get_rel_pos(c.ctx, a, (int)q, (int)q);
		ASSERT_EQ(c.out->type, GGML_TYPE_F16);
		double *r = ref_alloc(&c);
		for (int64_t i2 = 0; i2 < q; i2++)
			for (int64_t i1 = 0; i1 < q; i1++)
				for (int64_t i0 = 0; i0 < C; i0++)
					r[(i2 * q + i1) * C + i0] = half_to_double(ggml_fp32_to_fp16((float)tget(a, i0, q - 1 - i1 + i2, 0, 0)));
		run_case(_metadata, &c, 0, "get_rel_pos");
		tc_free(&c);
	}
	for (int v = 0; v < 2; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t W = irand(1, 5), W2 = irand(1, 4), Hh = irand(1, 4), B = irand(1, 2);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, W * W, W2 * Hh, B, 1, -1, 1);
		struct ggml_tensor *pw = input(&c, GGML_TYPE_F32, W, W2, Hh, B, -1, 1);
		struct ggml_tensor *ph = input(&c, GGML_TYPE_F32, W, W2, Hh, B, -1, 1);
		c.out = v ? ggml_add_rel_pos_inplace(c.ctx, a, pw, ph) : ggml_add_rel_pos(c.ctx, a, pw, ph);
		double *r = ref_alloc(&c);
		for (int64_t i = 0; i < c.n; i++)
			r[i] = tget_flat(a, i);
		/* element p of pw/ph (column i0): ph[p] into a[p W .. p W + W), pw[p] into a[p W - (W-1) i0 + j W] */
		for (int64_t p = 0; p < ggml_nelements(pw); p++) {
			const int64_t i0 = p % W;
			for (int64_t j = 0; j < W; j++) {
				r[p * W + j] += tget_flat(ph, p);
				r[p * W - (W - 1) * i0 + j * W] += tget_flat(pw, p);
			}
		}
		run_case(_metadata, &c, 1e-13, "add_rel_pos");
		tc_free(&c);
	}
}

/* copies between views of one type that has no F32 conversion in the CPU
 * backend's row writers (I16): element bytes through both views' strides */
TEST(dup_i16_views)
{
	struct ggml_context *ctx = new_ctx();
	struct ggml_tensor *src = ggml_new_tensor_2d(ctx, GGML_TYPE_I16, 10, 11);
	struct ggml_tensor *dst = ggml_new_tensor_2d(ctx, GGML_TYPE_I16, 10, 11);
	for (int i = 0; i < 110; i++)
		((int16_t *)src->data)[i] = (int16_t)(i * 7 - 300);
	memset(dst->data, 0, ggml_nbytes(dst));
	/* column 3 of src (strided) into row 5 of dst, and row 2 of src into column 8 of dst */
	struct ggml_tensor *col = ggml_view_2d(ctx, src, 1, 10, src->nb[1], 3 * src->nb[0]);
	struct ggml_tensor *row = ggml_view_1d(ctx, src, 10, 2 * src->nb[1]);
	struct ggml_tensor *c1 = ggml_cpy(ctx, col, ggml_view_1d(ctx, dst, 10, 5 * dst->nb[1]));
	struct ggml_tensor *c2 = ggml_cpy(ctx, row, ggml_view_2d(ctx, dst, 1, 10, dst->nb[1], 8 * dst->nb[0]));
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, c1);
	ggml_build_forward_expand(gf, c2);
	ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, 2), GGML_STATUS_SUCCESS);
	const int16_t *s = src->data, *d = dst->data;
	for (int i = 0; i < 10; i++) {
		if (i != 8) /* (row 5, column 8) is written by both: last writer unspecified */
			EXPECT_EQ(d[5 * 10 + i], s[i * 10 + 3]);
		if (i != 5)
			EXPECT_EQ(d[i * 10 + 8], s[2 * 10 + i]);
	}
	EXPECT_EQ(d[0], 0);
	ggml_free(ctx);
}

TEST(lightning_indexer)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t E = v == 2 ? 32 : irand(1, 40), Hq = irand(1, 5), T = irand(1, 6), n_kv = irand(1, 30);
		const int64_t S = irand(1, 2), Sm = v == 1 ? 1 : S;
		struct ggml_tensor *q = input(&c, GGML_TYPE_F32, E, Hq, T, S, -1, 1);
		struct ggml_tensor *k = input(&c, v == 2 ? GGML_TYPE_Q8_0 : v == 1 ? GGML_TYPE_F16 : GGML_TYPE_F32, E, 1, n_kv, S, -1, 1);
		struct ggml_tensor *w = input(&c, GGML_TYPE_F32, Hq, T, 1, S, 0, 1);
		struct ggml_tensor *m = input(&c, GGML_TYPE_F16, n_kv, T, 1, Sm, -1, 0);
		c.out = ggml_lightning_indexer(c.ctx, q, k, w, m);
		double *r = ref_alloc(&c);
		for (int64_t s = 0; s < S; s++)
			for (int64_t t = 0; t < T; t++)
				for (int64_t j = 0; j < n_kv; j++) {
					double score = 0;
					for (int64_t h = 0; h < Hq; h++) {
						double qk = 0;
						for (int64_t e = 0; e < E; e++)
							qk += tget(q, e, h, t, s) * tget(k, e, 0, j, s);
						score += fmax(qk, 0) * tget(w, h, t, 0, s);
					}
					r[(s * T + t) * n_kv + j] = score + tget(m, j, t, 0, s % Sm);
				}
		run_case(_metadata, &c, 1e-10, "lightning_indexer");
		tc_free(&c);
	}
}

TEST(win_part_unpart)
{
	for (int v = 0; v < 2; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t C = irand(1, 6), W = irand(1, 11), H = irand(1, 9);
		const int w = irand(1, 4);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, C, W, H, 1, -1, 1);
		struct ggml_tensor *parts = ggml_win_part(c.ctx, a, w);
		const int64_t npx = (W + w - 1) / w;
		c.out = v ? ggml_win_unpart(c.ctx, parts, (int)W, (int)H, w) : parts;
		double *r = ref_alloc(&c);
		if (v) { /* the round trip gives a back */
			for (int64_t i = 0; i < c.n; i++)
				r[i] = tget_flat(a, i);
		} else {
			for (int64_t p = 0; p < parts->ne[3]; p++)
				for (int64_t y = 0; y < w; y++)
					for (int64_t x = 0; x < w; x++)
						for (int64_t ch = 0; ch < C; ch++) {
							const int64_t sx = (p % npx) * w + x, sy = (p / npx) * w + y;
							r[((p * w + y) * w + x) * C + ch] = sx < W && sy < H ? tget(a, ch, sx, sy, 0) : 0;
						}
		}
		run_case(_metadata, &c, 0, v ? "win_unpart(win_part)" : "win_part");
		tc_free(&c);
	}
}

TEST_HARNESS_MAIN
