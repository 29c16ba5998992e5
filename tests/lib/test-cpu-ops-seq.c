// SPDX-License-Identifier: MIT
/*
 * CPU kernels of the normalizations L2_NORM and GROUP_NORM, the
 * convolution-family IM2COL, the ggml_conv_* compositions, the transposed
 * and direct depthwise convolutions, 3-D convolutions, COL2IM_1D, POOL_1D/2D, UPSCALE (every mode) and
 * TIMESTEP_EMBEDDING, multi-section rope, SOLVE_TRI, DeepSeek V4's
 * hyper-connection ops, and the recurrent ops
 * SSM_CONV, SSM_SCAN (Mamba-1 and -2, K > 1 state snapshots), RWKV_WKV6,
 * RWKV_WKV7, GATED_LINEAR_ATTN and GATED_DELTA_NET (scalar and per-dim
 * gates, head broadcast, K > 1 snapshots),
 * against references computed here in double (ops-case.h: 1, 2, 4 threads,
 * fast and scalar reference paths), with non-contiguous inputs where the
 * op accepts them.
 *
 * NMSE thresholds: im2col (copies) 0, F16 patches 1e-6; convolutions
 * (F16 patches of the input, float sums) 1e-6; pooling 0 (max) and 1e-12;
 * norms 1e-11;
 * timestep embedding 1e-9 (timesteps to 1000: a float ulp of the frequency
 * moves the angle by ~1e-4); ssm_conv 1e-11; ssm_scan and rwkv (float
 * recurrences over up to 12 tokens) 1e-9.
 */
#include <stdio.h>

#include "ops-case.h"

static struct ggml_tensor *strided_input(struct tc *c, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2,
					 int64_t ne3, float lo, float hi)
{
	struct ggml_tensor *s = input(c, type, ne1, ne0, ne2, ne3, lo, hi);
	return ggml_permute(c->ctx, s, 1, 0, 2, 3);
}

/* ---- L2_NORM, GROUP_NORM --------------------------------------------------- */

TEST(l2_norm)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		int64_t ne[4];
		rand_shape(ne, 70);
		struct ggml_tensor *a = v == 1 ? strided_input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -2, 2)
					       : input(&c, GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3], -2, 2);
		if (v == 3) /* a zero row: divided by eps */
			for (int64_t i = 0; i < ne[0]; i++)
				tset_f(a, i, 0, 0, 0, 0.0f);
		const float eps = v == 3 ? 0.5f : 1e-6f;
		c.out = v == 2 ? ggml_l2_norm_inplace(c.ctx, a, eps) : ggml_l2_norm(c.ctx, a, eps);
		double *r = ref_alloc(&c);
		for (int64_t row = 0; row < c.n / ne[0]; row++) {
			double ss = 0;
			for (int64_t i = 0; i < ne[0]; i++)
				ss += tget_flat(a, row * ne[0] + i) * tget_flat(a, row * ne[0] + i);
			const double scale = 1.0 / fmax(sqrt(ss), eps);
			for (int64_t i = 0; i < ne[0]; i++)
				r[row * ne[0] + i] = tget_flat(a, row * ne[0] + i) * scale;
		}
		run_case(_metadata, &c, 1e-11, "l2_norm");
		tc_free(&c);
	}
}

TEST(group_norm)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t W = irand(1, 12), H = irand(1, 9), C = irand(1, 13), N = irand(1, 3);
		const int groups = irand(1, (int)C);
		struct ggml_tensor *a = v == 1 ? strided_input(&c, GGML_TYPE_F32, W, H, C, N, -3, 5)
					       : input(&c, GGML_TYPE_F32, W, H, C, N, -3, 5);
		const float eps = 1e-5f;
		c.out = v == 2 ? ggml_group_norm_inplace(c.ctx, a, groups, eps) : ggml_group_norm(c.ctx, a, groups, eps);
		double *r = ref_alloc(&c);
		const int64_t per = (C + groups - 1) / groups;
		for (int64_t n = 0; n < N; n++)
			for (int64_t c0 = 0; c0 < C; c0 += per) {
				const int64_t c1 = c0 + per < C ? c0 + per : C;
				double s = 0, s2 = 0, cnt = (double)W * H * (c1 - c0);
				for (int64_t ch = c0; ch < c1; ch++)
					for (int64_t y = 0; y < H; y++)
						for (int64_t x = 0; x < W; x++)
							s += tget(a, x, y, ch, n);
				const double mean = s / cnt;
				for (int64_t ch = c0; ch < c1; ch++)
					for (int64_t y = 0; y < H; y++)
						for (int64_t x = 0; x < W; x++)
							s2 += (tget(a, x, y, ch, n) - mean) * (tget(a, x, y, ch, n) - mean);
				const double scale = 1.0 / sqrt(s2 / cnt + eps);
				for (int64_t ch = c0; ch < c1; ch++)
					for (int64_t y = 0; y < H; y++)
						for (int64_t x = 0; x < W; x++)
							r[((n * C + ch) * H + y) * W + x] = (tget(a, x, y, ch, n) - mean) * scale;
			}
		run_case(_metadata, &c, 1e-11, "group_norm");
		tc_free(&c);
	}
}

/* ---- IM2COL, TIMESTEP_EMBEDDING --------------------------------------------- */

TEST(im2col)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool is_2d = v < 5;
		const int s0 = irand(1, 3), s1 = irand(1, 3), p0 = irand(0, 2), p1 = irand(0, 2);
		const int d0 = irand(1, 2), d1 = irand(1, 2);
		const int64_t KW = irand(1, 4), KH = is_2d ? irand(1, 4) : 1, IC = irand(1, 4), OC = 2;
		const int64_t IW = KW * d0 + irand(0, 12), IH = is_2d ? KH * d1 + irand(0, 9) : 1, N = irand(1, 2);
		const enum ggml_type dt = v == 3 || v == 6 ? GGML_TYPE_F16 : GGML_TYPE_F32;
		struct ggml_tensor *k = is_2d ? ggml_new_tensor_4d(c.ctx, GGML_TYPE_F16, KW, KH, IC, OC)
					      : ggml_new_tensor_3d(c.ctx, GGML_TYPE_F16, KW, IC, OC);
		struct ggml_tensor *b;
		if (is_2d)
			b = v == 1 ? strided_input(&c, GGML_TYPE_F32, IW, IH, IC, N, -2, 2)
			  : v == 2 ? input(&c, GGML_TYPE_F16, IW, IH, IC, N, -2, 2)
				   : input(&c, GGML_TYPE_F32, IW, IH, IC, N, -2, 2);
		else
			b = v == 7 ? strided_input(&c, GGML_TYPE_F32, IW, IC, N, 1, -2, 2)
				   : input(&c, GGML_TYPE_F32, IW, IC, N, 1, -2, 2);
		c.out = ggml_im2col(c.ctx, k, b, s0, s1, p0, p1, d0, d1, is_2d, dt);
		const int64_t OW = (IW + 2 * p0 - d0 * (KW - 1) - 1) / s0 + 1;
		const int64_t OH = is_2d ? (IH + 2 * p1 - d1 * (KH - 1) - 1) / s1 + 1 : 1;
		ASSERT_EQ(c.out->ne[0], IC * KH * KW);
		ASSERT_EQ(c.out->ne[1], OW);
		ASSERT_EQ(c.out->ne[2], is_2d ? OH : N);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < N; n++)
			for (int64_t oy = 0; oy < OH; oy++)
				for (int64_t ox = 0; ox < OW; ox++)
					for (int64_t ic = 0; ic < IC; ic++)
						for (int64_t ky = 0; ky < KH; ky++)
							for (int64_t kx = 0; kx < KW; kx++) {
								const int64_t ix = ox * s0 + kx * d0 - p0, iy = is_2d ? oy * s1 + ky * d1 - p1 : 0;
								double x = 0;
								if (ix >= 0 && ix < IW && iy >= 0 && iy < IH)
									x = is_2d ? tget(b, ix, iy, ic, n) : tget(b, ix, ic, n, 0);
								r[((n * OH + oy) * OW + ox) * IC * KH * KW + (ic * KH + ky) * KW + kx] = x;
							}
		char name[48];
		snprintf(name, sizeof(name), "im2col %s v%d", is_2d ? "2d" : "1d", v);
		run_case(_metadata, &c, dt == GGML_TYPE_F16 ? 1e-6 : 0, name);
		tc_free(&c);
	}
}

TEST(timestep_embedding)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n = irand(1, 9);
		const int dim = v == 1 ? 2 * irand(1, 64) + 1 : 2 * irand(1, 64), max_period = 10000;
		struct ggml_tensor *ts = input(&c, GGML_TYPE_F32, n, 1, 1, 1, 0, v == 2 ? 1000 : 10);
		c.out = ggml_timestep_embedding(c.ctx, ts, dim, max_period);
		ASSERT_EQ(c.out->ne[0], dim);
		ASSERT_EQ(c.out->ne[1], n);
		double *r = ref_alloc(&c);
		const int half = dim / 2;
		for (int64_t i = 0; i < n; i++) {
			for (int j = 0; j < half; j++) {
				/* the argument as the kernel forms it in float, its cos/sin in double */
				const float f = (float)exp(-log((double)max_period) * j / half);
				const double arg = (float)(tget(ts, i, 0, 0, 0) * f);
				r[i * dim + j] = cos(arg);
				r[i * dim + j + half] = sin(arg);
			}
			if (dim % 2)
				r[i * dim + dim - 1] = 0;
		}
		run_case(_metadata, &c, 1e-9, "timestep_embedding");
		tc_free(&c);
	}
}

/* ---- SSM_CONV, SSM_SCAN, RWKV_WKV6 ----------------------------------------- */

TEST(ssm_conv)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t d_conv = irand(1, 5), d_inner = irand(1, 40), n_t = irand(1, 9), n_s = irand(1, 3);
		struct ggml_tensor *sx = input(&c, GGML_TYPE_F32, d_conv - 1 + n_t, d_inner, n_s, 1, -1, 1);
		struct ggml_tensor *w = v == 1 ? strided_input(&c, GGML_TYPE_F32, d_conv, d_inner, 1, 1, -1, 1)
					       : input(&c, GGML_TYPE_F32, d_conv, d_inner, 1, 1, -1, 1);
		c.out = ggml_ssm_conv(c.ctx, sx, w);
		double *r = ref_alloc(&c);
		for (int64_t s = 0; s < n_s; s++)
			for (int64_t t = 0; t < n_t; t++)
				for (int64_t i = 0; i < d_inner; i++) {
					double acc = 0;
					for (int64_t k = 0; k < d_conv; k++)
						acc += tget(sx, t + k, i, s, 0) * tget(w, k, i, 0, 0);
					r[(s * n_t + t) * d_inner + i] = acc;
				}
		run_case(_metadata, &c, 1e-11, "ssm_conv");
		tc_free(&c);
	}
}

static double softplus_d(double x)
{
	return x > 20 ? x : log1p(exp(x));
}

TEST(ssm_scan)
{
	for (int v = 0; v < 5; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool mamba1 = v < 2;
		const int64_t d_state = irand(1, 20), head_dim = irand(1, 9), n_group = mamba1 ? 1 : irand(1, 2);
		const int64_t n_head = n_group * irand(1, 3), n_tok = irand(1, 12), n_seqs = irand(1, 3);
		const int64_t n_slots = n_seqs + irand(0, 2);
		const int64_t K = v == 4 ? irand(2, 4) : 1;
		struct ggml_tensor *s = input(&c, GGML_TYPE_F32, d_state, head_dim, n_head, n_slots, -1, 1);
		struct ggml_tensor *x = input(&c, GGML_TYPE_F32, head_dim, n_head, n_tok, n_seqs, -1, 1);
		struct ggml_tensor *dt = input(&c, GGML_TYPE_F32, n_head, n_tok, n_seqs, 1, -4, 2);
		struct ggml_tensor *A = input(&c, GGML_TYPE_F32, mamba1 ? d_state : 1, n_head, 1, 1, -2, -0.1f);
		struct ggml_tensor *B = input(&c, GGML_TYPE_F32, d_state, n_group, n_tok, n_seqs, -1, 1);
		struct ggml_tensor *C = input(&c, GGML_TYPE_F32, d_state, n_group, n_tok, n_seqs, -1, 1);
		struct ggml_tensor *ids = input(&c, GGML_TYPE_I32, n_seqs, 1, 1, 1, 0, (float)(n_slots - 1));
		c.out = ggml_ssm_scan(c.ctx, s, x, dt, A, B, C, ids, K);
		ASSERT_EQ(ggml_nelements(c.out), ggml_nelements(x) + K * d_state * head_dim * n_head * n_seqs);
		double *r = ref_alloc(&c);
		const int64_t ssz = d_state * head_dim * n_head;
		double *st = malloc(ssz * sizeof(double));
		/* states of slots never written (K past the token count) are not compared */
		for (int64_t i = ggml_nelements(x); i < c.n; i++)
			r[i] = NAN;
		for (int64_t q = 0; q < n_seqs; q++) {
			const int64_t src = (int64_t)tget(ids, q, 0, 0, 0);
			for (int64_t h = 0; h < n_head; h++)
				for (int64_t i = 0; i < head_dim; i++)
					for (int64_t j = 0; j < d_state; j++)
						st[(h * head_dim + i) * d_state + j] = tget(s, j, i, h, src);
			for (int64_t t = 0; t < n_tok; t++) {
				for (int64_t h = 0; h < n_head; h++) {
					const int64_t g = h / (n_head / n_group);
					const double dts = softplus_d(tget(dt, h, t, q, 0));
					for (int64_t i = 0; i < head_dim; i++) {
						double y = 0;
						for (int64_t j = 0; j < d_state; j++) {
							const double a = mamba1 ? tget(A, j, h, 0, 0) : tget(A, 0, h, 0, 0);
							double *sv = &st[(h * head_dim + i) * d_state + j];
							*sv = *sv * exp(dts * a) + tget(B, j, g, t, q) * tget(x, i, h, t, q) * dts;
							y += *sv * tget(C, j, g, t, q);
						}
						r[((q * n_tok + t) * n_head + h) * head_dim + i] = y;
					}
				}
				const int64_t k = n_tok - 1 - t; /* snapshot k tokens before the end */
				if (k < K)
					for (int64_t e = 0; e < ssz; e++)
						r[ggml_nelements(x) + (k * n_seqs + q) * ssz + e] = st[e];
			}
		}
		free(st);
		/* NaN references: the output there is whatever the buffer held */
		for (int64_t i = 0; i < c.n; i++)
			if (r[i] != r[i]) {
				r[i] = 0;
				/* not written by the op: give the output a value the check accepts */
				((float *)c.out->data)[i] = 0;
			}
		char name[48];
		snprintf(name, sizeof(name), "ssm_scan %s K=%lld", mamba1 ? "mamba1" : "mamba2", (long long)K);
		run_case(_metadata, &c, 1e-9, name);
		tc_free(&c);
	}
}

TEST(rwkv_wkv6)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t S = irand(1, 16), H = irand(1, 4), n_seqs = irand(1, 3), T = n_seqs * irand(1, 6);
		struct ggml_tensor *k = input(&c, GGML_TYPE_F32, S, H, T, 1, -1, 1);
		struct ggml_tensor *vv = input(&c, GGML_TYPE_F32, S, H, T, 1, -1, 1);
		struct ggml_tensor *rr = input(&c, GGML_TYPE_F32, S, H, T, 1, -1, 1);
		struct ggml_tensor *tf = input(&c, GGML_TYPE_F32, S, H, 1, 1, -1, 1);
		struct ggml_tensor *td = input(&c, GGML_TYPE_F32, S, H, T, 1, 0.2f, 1);
		struct ggml_tensor *state = input(&c, GGML_TYPE_F32, S * S * H, n_seqs, 1, 1, -1, 1);
		c.out = ggml_rwkv_wkv6(c.ctx, k, vv, rr, tf, td, state);
		ASSERT_EQ(c.out->ne[0], S * H);
		ASSERT_EQ(c.out->ne[1], T + S * n_seqs);
		double *r = ref_alloc(&c);
		double *W = malloc(S * S * sizeof(double));
		const int64_t tps = T / n_seqs;
		for (int64_t q = 0; q < n_seqs; q++)
			for (int64_t h = 0; h < H; h++) {
				for (int64_t e = 0; e < S * S; e++)
					W[e] = tget(state, h * S * S + e, q, 0, 0);
				for (int64_t t = q * tps; t < (q + 1) * tps; t++) {
					for (int64_t j = 0; j < S; j++) {
						double y = 0;
						for (int64_t i = 0; i < S; i++)
							y += tget(rr, i, h, t, 0) *
							     (tget(tf, i, h, 0, 0) * tget(k, i, h, t, 0) * tget(vv, j, h, t, 0) + W[i * S + j]);
						r[t * S * H + h * S + j] = y;
					}
					for (int64_t i = 0; i < S; i++)
						for (int64_t j = 0; j < S; j++)
							W[i * S + j] = W[i * S + j] * tget(td, i, h, t, 0) + tget(k, i, h, t, 0) * tget(vv, j, h, t, 0);
				}
				for (int64_t e = 0; e < S * S; e++)
					r[T * S * H + q * S * S * H + h * S * S + e] = W[e];
			}
		free(W);
		run_case(_metadata, &c, 1e-9, "rwkv_wkv6");
		tc_free(&c);
	}
}

/* ---- convolutions (im2col + mul_mat) and pooling --------------------------- */

static double f16_round(double x)
{
	return half_to_double(ggml_fp32_to_fp16((float)x));
}

TEST(conv)
{
	for (int v = 0; v < 8; v++) { /* v6: ggml_conv_2d_direct, same results as v3; v7: 1-D depthwise, half padding */
		struct tc c = { .ctx = new_ctx() };
		const int s0 = irand(1, 2), s1 = irand(1, 2), p0 = irand(0, 2), p1 = irand(0, 2), d0 = irand(1, 2), d1 = irand(1, 2);
		const int64_t KW = irand(1, 3), KH = irand(1, 3), IC = irand(1, 3), OC = irand(1, 4), N = irand(1, 2);
		const int64_t IW = KW * d0 + irand(0, 9), IH = KH * d1 + irand(0, 7);
		struct ggml_tensor *k, *b;
		const bool dw = v == 2 || v == 5 || v == 7;
		const bool two_d = v >= 3 && v != 7;
		if (!two_d) {
			k = input(&c, GGML_TYPE_F16, KW, dw ? 1 : IC, dw ? IC : OC, 1, -1, 1);
			b = input(&c, GGML_TYPE_F32, IW, IC, dw ? 1 : N, 1, -1, 1);
		} else {
			k = input(&c, GGML_TYPE_F16, KW, KH, dw ? 1 : IC, dw ? IC : OC, -1, 1);
			b = input(&c, GGML_TYPE_F32, IW, IH, IC, N, -1, 1);
		}
		int ps0 = p0, ps1 = p1, ss0 = s0, ss1 = s1;
		switch (v) {
		case 0: c.out = ggml_conv_1d(c.ctx, k, b, s0, p0, d0); break;
		case 1: ps0 = (int)(KW / 2); c.out = ggml_conv_1d_ph(c.ctx, k, b, s0, d0); break;
		case 2: c.out = ggml_conv_1d_dw(c.ctx, k, b, s0, p0, d0); break;
		case 3: c.out = ggml_conv_2d(c.ctx, k, b, s0, s1, p0, p1, d0, d1); break;
		case 4: ss0 = (int)KW; ss1 = (int)KH; ps0 = ps1 = 0; c.out = ggml_conv_2d_sk_p0(c.ctx, k, b); break;
		case 5: c.out = ggml_conv_2d_dw(c.ctx, k, b, s0, s1, p0, p1, d0, d1); break;
		case 6: c.out = ggml_conv_2d_direct(c.ctx, k, b, s0, s1, p0, p1, d0, d1); break;
		default: ps0 = (int)(KW / 2); c.out = ggml_conv_1d_dw_ph(c.ctx, k, b, s0, d0); break;
		}
		const int dd0 = v == 4 ? 1 : d0, dd1 = v == 4 ? 1 : d1;
		const int64_t OW = (IW + 2 * ps0 - dd0 * (KW - 1) - 1) / ss0 + 1;
		const int64_t OH = two_d ? (IH + 2 * ps1 - dd1 * (KH - 1) - 1) / ss1 + 1 : 1;
		const int64_t OCn = dw ? IC : OC, Nn = two_d ? N : (dw ? 1 : N);
		ASSERT_EQ(ggml_nelements(c.out), OW * OH * OCn * Nn);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < Nn; n++)
			for (int64_t oc = 0; oc < OCn; oc++)
				for (int64_t oy = 0; oy < OH; oy++)
					for (int64_t ox = 0; ox < OW; ox++) {
						double acc = 0;
						for (int64_t ic = dw ? oc : 0; ic < (dw ? oc + 1 : IC); ic++)
							for (int64_t ky = 0; ky < (two_d ? KH : 1); ky++)
								for (int64_t kx = 0; kx < KW; kx++) {
									const int64_t ix = ox * ss0 + kx * dd0 - ps0, iy = oy * ss1 + ky * dd1 - ps1;
									if (ix < 0 || ix >= IW || (two_d && (iy < 0 || iy >= IH)))
										continue;
									const double x = two_d ? tget(b, ix, iy, ic, n) : tget(b, ix, ic, n, 0);
									const double w = two_d ? tget(k, kx, ky, dw ? 0 : ic, oc) : tget(k, kx, dw ? 0 : ic, oc, 0);
									acc += f16_round(x) * w;
								}
						/* layouts: 1-D [OW, OC, N], 2-D [OW, OH, OC, N] */
						r[((n * OCn + oc) * OH + oy) * OW + ox] = acc;
					}
		char name[32];
		snprintf(name, sizeof(name), "conv v%d", v);
		run_case(_metadata, &c, 1e-6, name);
		tc_free(&c);
	}
}

/*
 * CONV_2D through the fast path's tiles: shapes that cross its pixel tiles
 * (48), kernel slices (256 patch elements) and kernel row blocks (32), with
 * F32, F16 and BF16 kernels (contiguous, or a slice: rows converted one
 * element at a time), F32 or F16 inputs (F16 out), whole or sliced.
 */
TEST(conv_2d_direct_tiles)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const enum ggml_type kt = v % 3 == 0 ? GGML_TYPE_F32 : v % 3 == 1 ? GGML_TYPE_F16 : GGML_TYPE_BF16;
		const enum ggml_type bt = v == 4 || v == 7 ? GGML_TYPE_F16 : GGML_TYPE_F32;
		const bool k_view = v == 3 || v == 5, b_view = v >= 5;
		const int s0 = irand(1, 2), s1 = irand(1, 2), p0 = irand(0, 2), p1 = irand(0, 2), d0 = irand(1, 2), d1 = irand(1, 2);
		const int64_t KW = irand(1, 3), KH = irand(1, 3), IC = irand(1, 40), OC = irand(1, 70), N = irand(1, 2);
		const int64_t IW = KW * d0 + irand(0, 20), IH = KH * d1 + irand(0, 16);
		struct ggml_tensor *k, *b;
		if (k_view) { /* a slice in kx: the kernel's rows are not dense */
			struct ggml_tensor *kb = input(&c, kt, KW + 1, KH, IC, OC, -1, 1);
			k = ggml_view_4d(c.ctx, kb, KW, KH, IC, OC, kb->nb[1], kb->nb[2], kb->nb[3], kb->nb[0]);
		} else {
			k = input(&c, kt, KW, KH, IC, OC, -1, 1);
		}
		if (b_view) { /* a slice in channels */
			struct ggml_tensor *bb = input(&c, bt, IW, IH, IC + 2, N, -1, 1);
			b = ggml_view_4d(c.ctx, bb, IW, IH, IC, N, bb->nb[1], bb->nb[2], bb->nb[3], bb->nb[2]);
		} else {
			b = input(&c, bt, IW, IH, IC, N, -1, 1);
		}
		c.out = ggml_conv_2d_direct(c.ctx, k, b, s0, s1, p0, p1, d0, d1);
		const int64_t OW = c.out->ne[0], OH = c.out->ne[1];
		ASSERT_EQ(OW, (IW + 2 * p0 - d0 * (KW - 1) - 1) / s0 + 1);
		ASSERT_EQ(OH, (IH + 2 * p1 - d1 * (KH - 1) - 1) / s1 + 1);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < N; n++)
			for (int64_t oc = 0; oc < OC; oc++)
				for (int64_t oy = 0; oy < OH; oy++)
					for (int64_t ox = 0; ox < OW; ox++) {
						double acc = 0;
						for (int64_t ic = 0; ic < IC; ic++)
							for (int64_t ky = 0; ky < KH; ky++)
								for (int64_t kx = 0; kx < KW; kx++) {
									const int64_t ix = ox * s0 + kx * d0 - p0, iy = oy * s1 + ky * d1 - p1;
									if (ix < 0 || ix >= IW || iy < 0 || iy >= IH)
										continue;
									double x = tget(b, ix, iy, ic, n);
									if (kt == GGML_TYPE_F16)
										x = f16_round(x);
									acc += x * tget(k, kx, ky, ic, oc);
								}
						r[((n * OC + oc) * OH + oy) * OW + ox] = bt == GGML_TYPE_F16 ? f16_round(acc) : acc;
					}
		char name[48];
		snprintf(name, sizeof(name), "conv_2d_direct v%d K=%lld OC=%lld", v, (long long)(IC * KH * KW),
			 (long long)OC);
		run_case(_metadata, &c, bt == GGML_TYPE_F16 ? 1e-6 : 1e-10, name);
		tc_free(&c);
	}
}

TEST(pool)
{
	for (int v = 0; v < 8; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool two_d = v >= 4;
		const enum ggml_op_pool op = v % 2 ? GGML_OP_POOL_AVG : GGML_OP_POOL_MAX;
		const int k0 = irand(1, 4), k1 = irand(1, 4), s0 = irand(1, 3), s1 = irand(1, 3);
		const int p0 = irand(0, k0 / 2), p1 = irand(0, k1 / 2);
		const int64_t W = k0 + irand(0, 12), H = k1 + irand(0, 8), C = irand(1, 3);
		struct ggml_tensor *a = input(&c, v == 2 || v == 6 ? GGML_TYPE_F16 : GGML_TYPE_F32, W, H, C, 1, -4, 4);
		c.out = two_d ? ggml_pool_2d(c.ctx, a, op, k0, k1, s0, s1, (float)p0, (float)p1) : ggml_pool_1d(c.ctx, a, op, k0, s0, p0);
		const int64_t OW = (W + 2 * p0 - k0) / s0 + 1, OH = two_d ? (H + 2 * p1 - k1) / s1 + 1 : H;
		ASSERT_EQ(c.out->ne[0], OW);
		ASSERT_EQ(c.out->ne[1], OH);
		double *r = ref_alloc(&c);
		for (int64_t ch = 0; ch < C; ch++)
			for (int64_t oy = 0; oy < OH; oy++)
				for (int64_t ox = 0; ox < OW; ox++) {
					double m = -INFINITY, s = 0;
					int cnt = 0;
					for (int ky = 0; ky < (two_d ? k1 : 1); ky++)
						for (int kx = 0; kx < k0; kx++) {
							const int64_t ix = ox * s0 - p0 + kx, iy = two_d ? oy * s1 - p1 + ky : oy;
							if (ix < 0 || ix >= W || iy < 0 || iy >= H)
								continue;
							const double x = tget(a, ix, iy, ch, 0);
							m = fmax(m, x);
							s += x;
							cnt++;
						}
					r[(ch * OH + oy) * OW + ox] = op == GGML_OP_POOL_MAX ? m : two_d ? s / (k0 * k1) : s / cnt;
				}
		run_case(_metadata, &c, op == GGML_OP_POOL_MAX ? 0 : 1e-12, two_d ? "pool_2d" : "pool_1d");
		tc_free(&c);
	}
}

/* ---- multi-section rope, rope offset --------------------------------------- */

TEST(rope_multi_and_offset)
{
	static const int modes[] = { GGML_ROPE_TYPE_MROPE, GGML_ROPE_TYPE_IMROPE, GGML_ROPE_TYPE_VISION,
				     GGML_ROPE_TYPE_MROPE, 0, GGML_ROPE_TYPE_NEOX };
	for (int v = 0; v < 6; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int mode = modes[v];
		const bool multi = v < 4, vision = mode == GGML_ROPE_TYPE_VISION;
		int sec[4] = { irand(1, 4), irand(0, 3), irand(0, 3), v == 2 ? irand(0, 2) : 0 };
		const int sect = sec[0] + sec[1] + sec[2] + sec[3];
		const int n_dims = vision ? 2 * sect : multi ? 2 * sect + 2 * irand(0, 2) : 2 * irand(1, 8);
		const int n_offs = multi ? 0 : 2 * irand(0, 3);
		const int64_t ne0 = vision ? 2 * n_dims : n_dims + n_offs + irand(0, 5), H = irand(1, 4), T = irand(1, 5);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, ne0, H, T, 1, -1, 1);
		struct ggml_tensor *pos = input(&c, GGML_TYPE_I32, multi ? 4 * T : T, 1, 1, 1, 0, 60);
		struct ggml_tensor *ff = v == 3 ? input(&c, GGML_TYPE_F32, n_dims / 2, 1, 1, 1, 1, 3) : NULL;
		const float base = 10000.0f, fscale = v == 3 ? 0.5f : 1.0f;
		if (multi && v == 1) /* in place: the same rotation into a's own rows */
			c.out = ggml_rope_multi_inplace(c.ctx, a, pos, ff, n_dims, sec, mode, 4096, base, fscale, 0.0f, 1.0f,
							0.0f, 0.0f);
		else if (multi)
			c.out = ggml_rope_multi(c.ctx, a, pos, ff, n_dims, sec, mode, 4096, base, fscale, 0.0f, 1.0f, 0.0f, 0.0f);
		else
			c.out = ggml_rope_set_offset(ggml_rope_ext(c.ctx, a, pos, NULL, n_dims, mode, 4096, base, 1.0f, 0.0f, 1.0f,
								   0.0f, 0.0f), n_offs);
		double *r = ref_alloc(&c);
		const int n_pairs = vision ? n_dims : n_dims / 2;
		for (int64_t t = 0; t < T; t++)
			for (int64_t h = 0; h < H; h++) {
				double *z = &r[(t * H + h) * ne0];
				for (int64_t i = 0; i < ne0; i++)
					z[i] = tget(a, i, h, t, 0);
				for (int k = 0; k < n_pairs; k++) {
					/* the section of pair k, its position and its exponent */
					int which = 0, e = k;
					if (multi) {
						const int s = k % sect;
						if (mode == GGML_ROPE_TYPE_IMROPE)
							which = s % 3 == 1 && s < 3 * sec[1] ? 1 : s % 3 == 2 && s < 3 * sec[2] ? 2 :
								s % 3 == 0 && s < 3 * sec[0] ? 0 : 3;
						else
							which = s < sec[0] ? 0 : s < sec[0] + sec[1] ? 1 : s < sec[0] + sec[1] + sec[2] ? 2 : 3;
						if (vision) { /* angles restart in each section */
							int start = 0;
							for (int w = 0; w < which; w++)
								start += sec[w];
							e = k % sect - start;
						}
					}
					const double p = tget(pos, t + which * T, 0, 0, 0);
					double th = p * pow(base, -2.0 * e / n_dims) * fscale;
					if (ff)
						th /= tget(ff, k, 0, 0, 0);
					const int64_t i0 = vision ? k : mode == 0 ? n_offs + 2 * k : n_offs + k;
					const int64_t i1 = vision ? k + n_dims : mode == 0 ? i0 + 1 : i0 + n_dims / 2;
					const double x0 = tget(a, i0, h, t, 0), x1 = tget(a, i1, h, t, 0);
					z[i0] = x0 * cos(th) - x1 * sin(th);
					z[i1] = x0 * sin(th) + x1 * cos(th);
				}
			}
		char name[48];
		snprintf(name, sizeof(name), "rope mode %d v%d", mode, v);
		run_case(_metadata, &c, 1e-9, name);
		tc_free(&c);
	}
}

/* ---- transposed and direct depthwise convolutions, upscaling ---------------- */

TEST(conv_transpose)
{
	for (int v = 0; v < 5; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool two_d = v >= 2;
		const enum ggml_type kt = v % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
		const int s = irand(1, 3);
		const int64_t KW = irand(1, 4), KH = two_d ? irand(1, 4) : 1, OC = irand(1, 4), IC = irand(1, 3);
		const int64_t IW = irand(1, 9), IH = two_d ? irand(1, 7) : 1, N = v == 4 ? 2 : 1;
		struct ggml_tensor *k = two_d ? input(&c, kt, KW, KH, OC, IC, -1, 1) : input(&c, kt, KW, OC, IC, 1, -1, 1);
		struct ggml_tensor *b = two_d ? input(&c, GGML_TYPE_F32, IW, IH, IC, N, -1, 1) : input(&c, GGML_TYPE_F32, IW, IC, 1, 1, -1, 1);
		c.out = two_d ? ggml_conv_transpose_2d_p0(c.ctx, k, b, s) : ggml_conv_transpose_1d(c.ctx, k, b, s, 0, 1);
		const int64_t OW = (IW - 1) * s + KW, OH = two_d ? (IH - 1) * s + KH : 1;
		ASSERT_EQ(c.out->ne[0], OW);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < N; n++)
			for (int64_t oc = 0; oc < OC; oc++)
				for (int64_t iy = 0; iy < IH; iy++)
					for (int64_t ix = 0; ix < IW; ix++)
						for (int64_t ic = 0; ic < IC; ic++) {
							double x = two_d ? tget(b, ix, iy, ic, n) : tget(b, ix, ic, 0, 0);
							if (kt == GGML_TYPE_F16)
								x = f16_round(x);
							for (int64_t ky = 0; ky < KH; ky++)
								for (int64_t kx = 0; kx < KW; kx++) {
									const double w = two_d ? tget(k, kx, ky, oc, ic) : tget(k, kx, oc, ic, 0);
									const int64_t ox = ix * s + kx, oy = iy * s + ky;
									r[((n * OC + oc) * OH + oy) * OW + ox] += w * x;
								}
						}
		run_case(_metadata, &c, 1e-11, two_d ? "conv_transpose_2d" : "conv_transpose_1d");
		tc_free(&c);
	}
}

TEST(conv_2d_dw_direct)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int s0 = irand(1, 2), s1 = irand(1, 2), p0 = irand(0, 2), p1 = irand(0, 2), d0 = irand(1, 2), d1 = irand(1, 2);
		const int64_t KW = irand(1, 4), KH = irand(1, 4), C = irand(1, 5), N = irand(1, 2);
		const int64_t W = KW * d0 + irand(0, 8), H = KH * d1 + irand(0, 6);
		struct ggml_tensor *k = input(&c, GGML_TYPE_F32, KW, KH, 1, C, -1, 1);
		struct ggml_tensor *b;
		if (v == 1) /* CWHN in memory, viewed as WHCN */
			b = ggml_permute(c.ctx, input(&c, GGML_TYPE_F32, C, W, H, N, -1, 1), 2, 0, 1, 3);
		else
			b = input(&c, v == 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, W, H, C, N, -1, 1);
		c.out = ggml_conv_2d_dw_direct(c.ctx, k, b, s0, s1, p0, p1, d0, d1);
		if (v == 1)
			EXPECT_EQ(c.out->nb[2], ggml_type_size(c.out->type)); /* the input's layout kept */
		const int64_t OW = c.out->ne[0], OH = c.out->ne[1];
		ASSERT_EQ(OW, (W + 2 * p0 - d0 * (KW - 1) - 1) / s0 + 1);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < N; n++)
			for (int64_t ch = 0; ch < C; ch++)
				for (int64_t oy = 0; oy < OH; oy++)
					for (int64_t ox = 0; ox < OW; ox++) {
						double acc = 0;
						for (int64_t ky = 0; ky < KH; ky++)
							for (int64_t kx = 0; kx < KW; kx++) {
								const int64_t ix = ox * s0 + kx * d0 - p0, iy = oy * s1 + ky * d1 - p1;
								if (ix >= 0 && ix < W && iy >= 0 && iy < H)
									acc += tget(k, kx, ky, 0, ch) * tget(b, ix, iy, ch, n);
							}
						r[((n * C + ch) * OH + oy) * OW + ox] = b->type == GGML_TYPE_F16 ? f16_round(acc) : acc;
					}
		run_case(_metadata, &c, v == 2 ? 1e-6 : 1e-11, "conv_2d_dw_direct");
		tc_free(&c);
	}
}

static double cubic_ref(double p0, double p1, double p2, double p3, double t)
{
	/* Keys' cubic convolution, a = -0.75 */
	const double a = -0.75;
	double w[4], d[4] = { t + 1, t, 1 - t, 2 - t };
	for (int i = 0; i < 4; i++) {
		const double x = fabs(d[i]);
		w[i] = x <= 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	}
	return p0 * w[0] + p1 * w[1] + p2 * w[2] + p3 * w[3];
}

TEST(upscale_interpolate)
{
	static const uint32_t modes[] = { GGML_SCALE_MODE_NEAREST, GGML_SCALE_MODE_BILINEAR,
					  GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ALIGN_CORNERS, GGML_SCALE_MODE_BICUBIC,
					  GGML_SCALE_MODE_BICUBIC | GGML_SCALE_FLAG_ALIGN_CORNERS,
					  GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS, GGML_SCALE_MODE_NEAREST };
	for (int v = 0; v < 7; v++) {
		struct tc c = { .ctx = new_ctx() };
		const uint32_t mode = modes[v];
		const int64_t W = irand(1, 9), H = irand(1, 7), C = irand(1, 3);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, W, H, C, 1, -2, 2);
		int64_t OW = irand(1, 17), OH = irand(1, 13), OC = v == 6 ? 2 * C : C;
		if (v == 0) {
			c.out = ggml_upscale(c.ctx, a, 2, GGML_SCALE_MODE_NEAREST);
			OW = 2 * W;
			OH = 2 * H;
		} else {
			c.out = ggml_interpolate(c.ctx, a, OW, OH, OC, 1, mode);
		}
		const int m = mode & 0xFF;
		const bool align = mode & GGML_SCALE_FLAG_ALIGN_CORNERS;
		double sf0 = (double)OW / W, sf1 = (double)OH / H, off = 0.5;
		if (align) {
			off = 0;
			sf0 = OW > 1 && W > 1 ? (double)(OW - 1) / (W - 1) : sf0;
			sf1 = OH > 1 && H > 1 ? (double)(OH - 1) / (H - 1) : sf1;
		}
		double *r = ref_alloc(&c);
		for (int64_t ch = 0; ch < OC; ch++)
			for (int64_t oy = 0; oy < OH; oy++)
				for (int64_t ox = 0; ox < OW; ox++) {
					const int64_t sc = (int64_t)(ch / ((double)OC / C));
					double val;
					if (m == GGML_SCALE_MODE_NEAREST) {
						val = tget(a, (int64_t)(ox / sf0), (int64_t)(oy / sf1), sc, 0);
					} else if (mode & GGML_SCALE_FLAG_ANTIALIAS) {
						const double s0 = fmax(1, 1 / sf0), s1 = fmax(1, 1 / sf1);
						const double x = (ox + off) / sf0, y = (oy + off) / sf1;
						double acc = 0, ws = 0;
						for (int64_t sy = 0; sy < H; sy++)
							for (int64_t sx = 0; sx < W; sx++) {
								if (sx < (int64_t)(x - s0 + off) || sx >= (int64_t)(x + s0 + off) ||
								    sy < (int64_t)(y - s1 + off) || sy >= (int64_t)(y + s1 + off))
									continue;
								const double w = fmax(0, 1 - fabs((sx - x + off) / s0)) * fmax(0, 1 - fabs((sy - y + off) / s1));
								acc += w * tget(a, sx, sy, sc, 0);
								ws += w;
							}
						val = ws > 0 ? acc / ws : acc;
					} else {
						const double x = (ox + off) / sf0 - off, y = (oy + off) / sf1 - off;
						const int64_t fx = (int64_t)floor(x), fy = (int64_t)floor(y);
#define CL(v, n) ((v) < 0 ? 0 : (v) > (n) - 1 ? (n) - 1 : (v))
						if (m == GGML_SCALE_MODE_BILINEAR) {
							const int64_t x0 = CL(fx, W), x1 = CL(fx + 1, W), y0 = CL(fy, H), y1 = CL(fy + 1, H);
							const double dx = fmin(1, fmax(0, x - x0)), dy = fmin(1, fmax(0, y - y0));
							val = tget(a, x0, y0, sc, 0) * (1 - dx) * (1 - dy) + tget(a, x1, y0, sc, 0) * dx * (1 - dy) +
							      tget(a, x0, y1, sc, 0) * (1 - dx) * dy + tget(a, x1, y1, sc, 0) * dx * dy;
						} else {
							double rows[4];
							for (int k = 0; k < 4; k++) {
								const int64_t sy = CL(fy - 1 + k, H);
								rows[k] = cubic_ref(tget(a, CL(fx - 1, W), sy, sc, 0), tget(a, CL(fx, W), sy, sc, 0),
										    tget(a, CL(fx + 1, W), sy, sc, 0), tget(a, CL(fx + 2, W), sy, sc, 0), x - fx);
							}
							val = cubic_ref(rows[0], rows[1], rows[2], rows[3], y - fy);
						}
#undef CL
					}
					r[(ch * OH + oy) * OW + ox] = val;
				}
		char name[48];
		snprintf(name, sizeof(name), "interpolate mode 0x%x", (unsigned)mode);
		run_case(_metadata, &c, 1e-10, name);
		tc_free(&c);
	}
}

/* ---- RWKV_WKV7, GATED_LINEAR_ATTN, SOLVE_TRI ------------------------------- */

TEST(rwkv_wkv7_and_gla)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const bool gla = v >= 2;
		const int64_t S = irand(1, 12), H = irand(1, 3), n_seqs = irand(1, 3), T = n_seqs * irand(1, 5);
		struct ggml_tensor *in[6];
		for (int i = 0; i < (gla ? 4 : 6); i++)
			in[i] = input(&c, GGML_TYPE_F32, S, H, T, 1, i == (gla ? 3 : 1) ? 0.3f : -1, 1);
		struct ggml_tensor *state = input(&c, GGML_TYPE_F32, S * S * H, n_seqs, 1, 1, -1, 1);
		const float scale = 0.5f;
		/* wkv7: r w k v a b; gla: k v q g */
		c.out = gla ? ggml_gated_linear_attn(c.ctx, in[0], in[1], in[2], in[3], state, scale)
			    : ggml_rwkv_wkv7(c.ctx, in[0], in[1], in[2], in[3], in[4], in[5], state);
		double *r = ref_alloc(&c);
		double *W = malloc(S * S * sizeof(double));
		const int64_t tps = T / n_seqs;
#define X(t_, i_, h_, tt_) tget(t_, i_, h_, tt_, 0)
		for (int64_t q = 0; q < n_seqs; q++)
			for (int64_t h = 0; h < H; h++) {
				for (int64_t e = 0; e < S * S; e++)
					W[e] = tget(state, h * S * S + e, q, 0, 0);
				for (int64_t t = q * tps; t < (q + 1) * tps; t++) {
					if (!gla) {
						for (int64_t i = 0; i < S; i++) {
							double sa = 0, y = 0;
							for (int64_t j = 0; j < S; j++)
								sa += X(in[4], j, h, t) * W[i * S + j];
							for (int64_t j = 0; j < S; j++) {
								W[i * S + j] = W[i * S + j] * X(in[1], j, h, t) + X(in[3], i, h, t) * X(in[2], j, h, t) +
									       sa * X(in[5], j, h, t);
								y += W[i * S + j] * X(in[0], j, h, t);
							}
							r[t * S * H + h * S + i] = y;
						}
					} else {
						for (int64_t j = 0; j < S; j++)
							r[t * S * H + h * S + j] = 0;
						for (int64_t i = 0; i < S; i++)
							for (int64_t j = 0; j < S; j++) {
								W[i * S + j] = W[i * S + j] * X(in[3], i, h, t) + X(in[0], i, h, t) * X(in[1], j, h, t);
								r[t * S * H + h * S + j] += W[i * S + j] * X(in[2], i, h, t) * scale;
							}
					}
				}
				for (int64_t e = 0; e < S * S; e++)
					r[T * S * H + q * S * S * H + h * S * S + e] = W[e];
			}
#undef X
		free(W);
		run_case(_metadata, &c, 1e-9, gla ? "gated_linear_attn" : "rwkv_wkv7");
		tc_free(&c);
	}
}

TEST(solve_tri)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t n = irand(1, 12), k = irand(1, 6), b2 = irand(1, 3), b3 = irand(1, 2);
		struct ggml_tensor *a = input(&c, GGML_TYPE_F32, n, n, b2, b3, -0.3f, 0.3f);
		for (int64_t i3 = 0; i3 < b3; i3++) /* a well-conditioned lower triangle */
			for (int64_t i2 = 0; i2 < b2; i2++)
				for (int64_t i = 0; i < n; i++) {
					tset_f(a, i, i, i2, i3, (float)(1 + urand()));
					for (int64_t j = i + 1; j < n; j++)
						tset_f(a, j, i, i2, i3, 0.0f);
				}
		struct ggml_tensor *b = input(&c, GGML_TYPE_F32, k, n, b2, b3, -1, 1);
		c.out = ggml_solve_tri(c.ctx, a, b, true, true, false);
		double *r = ref_alloc(&c);
		for (int64_t i3 = 0; i3 < b3; i3++)
			for (int64_t i2 = 0; i2 < b2; i2++)
				for (int64_t col = 0; col < k; col++)
					for (int64_t i = 0; i < n; i++) {
						double s = tget(b, col, i, i2, i3);
						for (int64_t t = 0; t < i; t++)
							s -= tget(a, t, i, i2, i3) * r[((i3 * b2 + i2) * n + t) * k + col];
						r[((i3 * b2 + i2) * n + i) * k + col] = s / tget(a, i, i, i2, i3);
					}
		run_case(_metadata, &c, 1e-11, "solve_tri");
		tc_free(&c);
	}
}

TEST(gated_delta_net)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t S = irand(1, 10), Hk = irand(1, 2), H = Hk * (v == 2 ? 2 : 1), T = irand(1, 6), NS = irand(1, 2);
		const bool kda = v == 1;
		const int64_t K = v == 3 ? irand(2, 4) : 1;
		struct ggml_tensor *q = input(&c, GGML_TYPE_F32, S, Hk, T, NS, -1, 1);
		struct ggml_tensor *k = input(&c, GGML_TYPE_F32, S, Hk, T, NS, -1, 1);
		struct ggml_tensor *vv = input(&c, GGML_TYPE_F32, S, H, T, NS, -1, 1);
		struct ggml_tensor *g = input(&c, GGML_TYPE_F32, kda ? S : 1, H, T, NS, -1, 0);
		struct ggml_tensor *beta = input(&c, GGML_TYPE_F32, 1, H, T, NS, 0, 1);
		struct ggml_tensor *st = input(&c, GGML_TYPE_F32, S, S, H, NS, -1, 1);
		c.out = ggml_gated_delta_net(c.ctx, q, k, vv, g, beta, st, K);
		double *r = ref_alloc(&c);
		const int64_t n_attn = S * H * T * NS;
		for (int64_t i = n_attn; i < c.n; i++)
			r[i] = NAN;
		double *M = malloc(S * S * sizeof(double)); /* M[j * S + i] = state S[i][j] */
		for (int64_t s = 0; s < NS; s++)
			for (int64_t h = 0; h < H; h++) {
				for (int64_t e = 0; e < S * S; e++)
					M[e] = tget(st, e % S, e / S, h, s);
				for (int64_t t = 0; t < T; t++) {
					for (int64_t j = 0; j < S; j++)
						for (int64_t i = 0; i < S; i++)
							M[j * S + i] *= exp(tget(g, kda ? i : 0, h, t, s));
					const double b = tget(beta, 0, h, t, s);
					double delta[16];
					for (int64_t j = 0; j < S; j++) {
						double sum = 0;
						for (int64_t i = 0; i < S; i++)
							sum += M[j * S + i] * tget(k, i, h % Hk, t, s);
						delta[j] = (tget(vv, j, h, t, s) - sum) * b;
					}
					for (int64_t j = 0; j < S; j++) {
						double o = 0;
						for (int64_t i = 0; i < S; i++) {
							M[j * S + i] += delta[j] * tget(k, i, h % Hk, t, s);
							o += M[j * S + i] * tget(q, i, h % Hk, t, s);
						}
						r[((s * T + t) * H + h) * S + j] = o / sqrt((double)S);
					}
					const int64_t slot = T - 1 - t;
					if (slot < K)
						for (int64_t e = 0; e < S * S; e++)
							r[n_attn + slot * S * S * H * NS + (s * H + h) * S * S + e] = M[e];
				}
			}
		free(M);
		for (int64_t i = 0; i < c.n; i++)
			if (r[i] != r[i]) { /* snapshot slots the op does not write */
				r[i] = 0;
				((float *)c.out->data)[i] = 0;
			}
		char name[48];
		snprintf(name, sizeof(name), "gated_delta_net v%d", v);
		run_case(_metadata, &c, 1e-9, name);
		tc_free(&c);
	}
}

TEST(col2im_1d)
{
	static const enum ggml_type ts[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int s0 = irand(1, 4), OC = irand(1, 4), K = irand(1, 6), T_in = irand(1, 9);
		const int p0 = irand(0, ((T_in - 1) * s0 + K - 1) / 2);
		struct ggml_tensor *a = input(&c, ts[v], (int64_t)K * OC, T_in, 1, 1, -1, 1);
		c.out = ggml_col2im_1d(c.ctx, a, s0, OC, p0);
		const int64_t T_out = (int64_t)(T_in - 1) * s0 + K - 2 * p0;
		ASSERT_EQ(c.out->ne[0], T_out);
		double *r = ref_alloc(&c);
		for (int64_t ti = 0; ti < T_in; ti++)
			for (int64_t oc = 0; oc < OC; oc++)
				for (int64_t k = 0; k < K; k++) {
					const int64_t t = ti * s0 + k - p0;
					if (t >= 0 && t < T_out)
						r[oc * T_out + t] += tget(a, oc * K + k, ti, 0, 0);
				}
		if (ts[v] != GGML_TYPE_F32)
			for (int64_t i = 0; i < c.n; i++)
				r[i] = ts[v] == GGML_TYPE_F16 ? f16_round(r[i]) : bf16_to_double(ggml_fp32_to_bf16((float)r[i]).bits);
		run_case(_metadata, &c, ts[v] == GGML_TYPE_F32 ? 1e-12 : 1e-5, "col2im_1d");
		tc_free(&c);
	}
}

TEST(conv_3d)
{
	for (int v = 0; v < 4; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int s0 = irand(1, 2), s1 = irand(1, 2), s2 = irand(1, 2), p0 = irand(0, 1), p1 = irand(0, 1), p2 = irand(0, 1);
		const int d0 = irand(1, 2), d1 = 1, d2 = irand(1, 2);
		const int64_t KW = irand(1, 3), KH = irand(1, 3), KD = irand(1, 2), IC = irand(1, 3), OC = irand(1, 3), N = irand(1, 2);
		const int64_t IW = KW * d0 + irand(0, 4), IH = KH * d1 + irand(0, 4), ID = KD * d2 + irand(0, 3);
		const enum ggml_type kt = v == 1 ? GGML_TYPE_F32 : GGML_TYPE_F16;
		struct ggml_tensor *k = input(&c, kt, KW, KH, KD, IC * OC, -1, 1);
		struct ggml_tensor *b = input(&c, GGML_TYPE_F32, IW, IH, ID, IC * N, -1, 1);
		const int64_t OW = (IW + 2 * p0 - d0 * (KW - 1) - 1) / s0 + 1, OH = (IH + 2 * p1 - d1 * (KH - 1) - 1) / s1 + 1;
		const int64_t OD = (ID + 2 * p2 - d2 * (KD - 1) - 1) / s2 + 1;
		if (v == 3) { /* the patches themselves */
			c.out = ggml_im2col_3d(c.ctx, k, b, IC, s0, s1, s2, p0, p1, p2, d0, d1, d2, GGML_TYPE_F32);
			double *r = ref_alloc(&c);
			for (int64_t n = 0; n < N; n++)
				for (int64_t od = 0; od < OD; od++)
					for (int64_t oh = 0; oh < OH; oh++)
						for (int64_t ow = 0; ow < OW; ow++)
							for (int64_t ic = 0; ic < IC; ic++)
								for (int64_t kd = 0; kd < KD; kd++)
									for (int64_t kh = 0; kh < KH; kh++)
										for (int64_t kw = 0; kw < KW; kw++) {
											const int64_t ix = ow * s0 + kw * d0 - p0, iy = oh * s1 + kh * d1 - p1,
												      iz = od * s2 + kd * d2 - p2;
											const bool in = ix >= 0 && ix < IW && iy >= 0 && iy < IH && iz >= 0 && iz < ID;
											r[(((n * OD + od) * OH + oh) * OW + ow) * IC * KD * KH * KW +
											  ((ic * KD + kd) * KH + kh) * KW + kw] = in ? tget(b, ix, iy, iz, n * IC + ic) : 0;
										}
			run_case(_metadata, &c, 0, "im2col_3d");
			tc_free(&c);
			continue;
		}
		c.out = v == 2 ? ggml_conv_3d_direct(c.ctx, k, b, s0, s1, s2, p0, p1, p2, d0, d1, d2, (int)IC, (int)N, (int)OC)
			       : ggml_conv_3d(c.ctx, k, b, IC, s0, s1, s2, p0, p1, p2, d0, d1, d2);
		ASSERT_EQ(c.out->ne[0], OW);
		ASSERT_EQ(c.out->ne[2], OD);
		ASSERT_EQ(c.out->ne[3], OC * N);
		double *r = ref_alloc(&c);
		for (int64_t n = 0; n < N; n++)
			for (int64_t oc = 0; oc < OC; oc++)
				for (int64_t od = 0; od < OD; od++)
					for (int64_t oh = 0; oh < OH; oh++)
						for (int64_t ow = 0; ow < OW; ow++) {
							double acc = 0;
							for (int64_t ic = 0; ic < IC; ic++)
								for (int64_t kd = 0; kd < KD; kd++)
									for (int64_t kh = 0; kh < KH; kh++)
										for (int64_t kw = 0; kw < KW; kw++) {
											const int64_t ix = ow * s0 + kw * d0 - p0, iy = oh * s1 + kh * d1 - p1,
												      iz = od * s2 + kd * d2 - p2;
											if (ix < 0 || ix >= IW || iy < 0 || iy >= IH || iz < 0 || iz >= ID)
												continue;
											double x = tget(b, ix, iy, iz, n * IC + ic);
											/* F16 patches: im2col's (any kernel type but
											 * BF16), or the direct form's F16 kernel */
											if (kt == GGML_TYPE_F16 || v != 2)
												x = f16_round(x);
											acc += x * tget(k, kw, kh, kd, oc * IC + ic);
										}
							r[(((n * OC + oc) * OD + od) * OH + oh) * OW + ow] = acc;
						}
		run_case(_metadata, &c, 1e-9, v == 2 ? "conv_3d_direct" : "conv_3d");
		tc_free(&c);
	}
}

/* ---- DeepSeek V4 hyper-connections ------------------------------------------ */

TEST(dsv4_hyper_connections)
{
	for (int v = 0; v < 3; v++) {
		struct tc c = { .ctx = new_ctx() };
		const int64_t T = irand(1, 6), E = irand(1, 20), hc = 4;
		if (v == 0) {
			struct ggml_tensor *mixes = input(&c, GGML_TYPE_F32, (2 + hc) * hc, T, 1, 1, -2, 2);
			struct ggml_tensor *scale = input(&c, GGML_TYPE_F32, 3, 1, 1, 1, 0.5f, 1.5f);
			struct ggml_tensor *base = input(&c, GGML_TYPE_F32, (2 + hc) * hc, 1, 1, 1, -1, 1);
			const float eps = 1e-3f;
			const int n_iter = irand(1, 4);
			c.out = ggml_dsv4_hc_comb(c.ctx, mixes, scale, base, eps, n_iter);
			double *r = ref_alloc(&c);
			for (int64_t t = 0; t < T; t++) {
				double m[4][4]; /* [dst][src] */
				for (int s = 0; s < 4; s++) {
					double mx = -INFINITY, sum = 0;
					for (int d = 0; d < 4; d++) {
						m[d][s] = tget(mixes, 2 * hc + d + hc * s, t, 0, 0) * tget(scale, 2, 0, 0, 0) +
							  tget(base, 2 * hc + d + hc * s, 0, 0, 0);
						mx = fmax(mx, m[d][s]);
					}
					for (int d = 0; d < 4; d++)
						sum += exp(m[d][s] - mx);
					for (int d = 0; d < 4; d++)
						m[d][s] = exp(m[d][s] - mx) / sum + eps;
				}
				for (int it = 0; it < n_iter; it++) {
					if (it > 0) /* over dst, for every src */
						for (int s = 0; s < 4; s++) {
							double sum = eps;
							for (int d = 0; d < 4; d++)
								sum += m[d][s];
							for (int d = 0; d < 4; d++)
								m[d][s] /= sum;
						}
					for (int d = 0; d < 4; d++) { /* over src, for every dst */
						double sum = eps;
						for (int s = 0; s < 4; s++)
							sum += m[d][s];
						for (int s = 0; s < 4; s++)
							m[d][s] /= sum;
					}
				}
				for (int s = 0; s < 4; s++)
					for (int d = 0; d < 4; d++)
						r[(t * 4 + s) * 4 + d] = m[d][s];
			}
			run_case(_metadata, &c, 1e-11, "dsv4_hc_comb");
		} else if (v == 1) {
			struct ggml_tensor *x = input(&c, GGML_TYPE_F32, E, hc, T, 1, -1, 1);
			struct ggml_tensor *w = input(&c, GGML_TYPE_F32, hc, T, 1, 1, -1, 1);
			c.out = ggml_dsv4_hc_pre(c.ctx, x, w);
			double *r = ref_alloc(&c);
			for (int64_t t = 0; t < T; t++)
				for (int64_t i = 0; i < E; i++)
					for (int64_t h = 0; h < hc; h++)
						r[t * E + i] += tget(x, i, h, t, 0) * tget(w, h, t, 0, 0);
			run_case(_metadata, &c, 1e-12, "dsv4_hc_pre");
		} else {
			struct ggml_tensor *x = input(&c, GGML_TYPE_F32, E, T, 1, 1, -1, 1);
			struct ggml_tensor *res = input(&c, GGML_TYPE_F32, E, hc, T, 1, -1, 1);
			struct ggml_tensor *post = input(&c, GGML_TYPE_F32, hc, T, 1, 1, -1, 1);
			struct ggml_tensor *comb = input(&c, GGML_TYPE_F32, hc, hc, T, 1, 0, 1);
			c.out = ggml_dsv4_hc_post(c.ctx, x, res, post, comb);
			double *r = ref_alloc(&c);
			for (int64_t t = 0; t < T; t++)
				for (int64_t d = 0; d < hc; d++)
					for (int64_t i = 0; i < E; i++) {
						double val = tget(x, i, t, 0, 0) * tget(post, d, t, 0, 0);
						for (int64_t s = 0; s < hc; s++)
							val += tget(res, i, s, t, 0) * tget(comb, d, s, t, 0);
						r[(t * hc + d) * E + i] = val;
					}
			run_case(_metadata, &c, 1e-12, "dsv4_hc_post");
		}
		tc_free(&c);
	}
}

TEST_HARNESS_MAIN
