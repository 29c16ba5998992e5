// SPDX-License-Identifier: MIT
/*
 * The freestanding CPU kernels against references computed here in double
 * precision with libm: the math approximations (their stated error bounds),
 * the float dots (portable and SIMD), the activation quantizers and the
 * quantized dots (integer parts exact, so compared tightly with the
 * dequantized values).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"
#include "kernels/gk-attn.h"
#include "kernels/gk-convert.h"
#include "kernels/gk-gemv.h"
#include "kernels/gk-math.h"
#include "kernels/gk-quant.h"
#include "kernels/gk-quant-simd.h"
#include "kernels/gk-quant-ext.h"
#include "kernels/gk-repack.h"
#include "kernels/gk-vec.h"

/* |a - b| <= tol, printing the values when not */
#define EXPECT_NEAR(a, b, tol) do { \
	double a_ = (a), b_ = (b), t_ = (tol); \
	EXPECT_LE(fabs(a_ - b_), t_) TH_LOG("%s = %.9g, expected %.9g +- %.3g", #a, a_, b_, t_); \
} while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) {
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)urand(); }

/* max relative error (with an absolute floor) of f over [lo, hi] */
struct err { double rel, abs; };

static struct err sweep(float (*f)(float), double (*g)(double), float lo, float hi, int n, double floor_)
{
	struct err e = { 0, 0 };
	for (int i = 0; i <= n; i++) {
		float x = lo + (hi - lo) * (float)i / (float)n;
		double r = g(x), v = f(x);
		double a = fabs(v - r);
		double rel = a / fmax(fabs(r), floor_);
		if (a > e.abs) e.abs = a;
		if (rel > e.rel) e.rel = rel;
	}
	return e;
}

static double d_gelu(double x) { return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
static double d_gelu_erf(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double d_silu(double x) { return x / (1 + exp(-x)); }
static double d_sigmoid(double x) { return 1 / (1 + exp(-x)); }

static float f_expf(float x) { return gk_expf(x); }
static float f_expm1f(float x) { return gk_expm1f(x); }
static float f_tanhf(float x) { return gk_tanhf(x); }
static float f_erff(float x) { return gk_erff(x); }
static float f_logf(float x) { return gk_logf(x); }
static float f_sinf(float x) { return gk_sinf(x); }
static float f_cosf(float x) { return gk_cosf(x); }
static float f_sqrtf(float x) { return gk_sqrtf(x); }
static float f_geluf(float x) { return gk_geluf(x); }
static float f_gelu_erff(float x) { return gk_gelu_erff(x); }
static float f_siluf(float x) { return gk_siluf(x); }
static float f_sigmoidf(float x) { return gk_sigmoidf(x); }

TEST(math_bounds)
{
	struct err e;

	e = sweep(f_expf, exp, -87.0f, 88.0f, 400000, 0);
	TH_LOG("expf rel %.3g", e.rel);
	EXPECT_LE(e.rel, 2e-7);
	e = sweep(f_expf, exp, -103.0f, -87.0f, 20000, 1e-45);
	EXPECT_LE(e.abs, 1.5e-45); /* subnormal results: within one subnormal step */
	EXPECT_EQ(gk_expf(89.0f), INFINITY);
	EXPECT_EQ(gk_expf(-105.0f), 0.0f);
	EXPECT_TRUE(isnan(gk_expf(NAN)));

	e = sweep(f_expm1f, expm1, -1.0f, 1.0f, 200000, 0);
	TH_LOG("expm1f rel %.3g", e.rel);
	EXPECT_LE(e.rel, 3e-7);

	e = sweep(f_tanhf, tanh, -12.0f, 12.0f, 400000, 0);
	TH_LOG("tanhf rel %.3g abs %.3g", e.rel, e.abs);
	EXPECT_LE(e.rel, 4e-7);
	EXPECT_LE(e.abs, 2e-7);

	e = sweep(f_erff, erf, -6.0f, 6.0f, 400000, 1);
	TH_LOG("erff abs %.3g", e.abs);
	EXPECT_LE(e.abs, 4e-7);

	e = sweep(f_logf, log, 1e-30f, 1e3f, 400000, 1e-30);
	TH_LOG("logf (abs for |log|<1, else rel) %.3g", e.rel);
	EXPECT_LE(e.rel, 2e-7);
	EXPECT_EQ(gk_logf(0.0f), -INFINITY);
	EXPECT_TRUE(isnan(gk_logf(-1.0f)));

	e = sweep(f_sinf, sin, -1e4f, 1e4f, 400000, 1);
	TH_LOG("sinf abs %.3g", e.abs);
	EXPECT_LE(e.abs, 2e-7 * 4); /* the argument itself is only known to 1e4 * 2^-24 */
	e = sweep(f_sinf, sin, -10.0f, 10.0f, 400000, 1);
	EXPECT_LE(e.abs, 2e-7);
	e = sweep(f_cosf, cos, -10.0f, 10.0f, 400000, 1);
	TH_LOG("cosf abs %.3g", e.abs);
	EXPECT_LE(e.abs, 2e-7);

	e = sweep(f_sqrtf, sqrt, 0.0f, 1e6f, 200000, 1e-30);
	EXPECT_LE(e.rel, 6e-8);

	e = sweep(f_geluf, d_gelu, -12.0f, 12.0f, 200000, 1);
	TH_LOG("gelu abs %.3g", e.abs);
	EXPECT_LE(e.abs, 2e-6);
	e = sweep(f_gelu_erff, d_gelu_erf, -12.0f, 12.0f, 200000, 1);
	TH_LOG("gelu_erf abs %.3g", e.abs);
	EXPECT_LE(e.abs, 2e-6);
	e = sweep(f_siluf, d_silu, -80.0f, 80.0f, 200000, 1);
	TH_LOG("silu abs %.3g", e.abs);
	EXPECT_LE(e.abs, 1e-5);
	e = sweep(f_sigmoidf, d_sigmoid, -80.0f, 80.0f, 200000, 1e-30);
	TH_LOG("sigmoid rel %.3g", e.rel);
	EXPECT_LE(e.rel, 5e-7);
}

/* ---- float dots ---------------------------------------------------------- */

typedef float (*dot_ff)(int64_t, const float *, const float *);
typedef float (*dot_hf)(int64_t, const uint16_t *, const float *);
typedef float (*dot_hh)(int64_t, const uint16_t *, const uint16_t *);

static int simd_ok(void)
{
#if defined(__x86_64__)
	return ggml_cpu_fast_x86();
#elif defined(__aarch64__)
	return ggml_cpu_isa()->neon;
#else
	return 0;
#endif
}

TEST(float_dots)
{
	static const int64_t sizes[] = { 0, 1, 3, 7, 8, 15, 31, 33, 64, 100, 257, 1000, 4099 };
	dot_ff ff[2] = { gk_dot_f32, NULL };
	dot_hf hf[2] = { gk_dot_f16_f32, NULL }, bf[2] = { gk_dot_bf16_f32, NULL };
	dot_hh hh[2] = { gk_dot_f16, NULL }, bb[2] = { gk_dot_bf16, NULL };
#if defined(__x86_64__)
	ff[1] = gk_dot_f32_avx2; hf[1] = gk_dot_f16_f32_avx2; bf[1] = gk_dot_bf16_f32_avx2;
	hh[1] = gk_dot_f16_avx2; bb[1] = gk_dot_bf16_avx2;
#elif defined(__aarch64__)
	ff[1] = gk_dot_f32_neon; hf[1] = gk_dot_f16_f32_neon; bf[1] = gk_dot_bf16_f32_neon;
	hh[1] = gk_dot_f16_neon; bb[1] = gk_dot_bf16_neon;
#endif
	const int nimpl = simd_ok() ? 2 : 1;
	int checked = 0;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const int64_t n = sizes[s];
		float *x = malloc((n + 1) * 4), *y = malloc((n + 1) * 4);
		uint16_t *xh = malloc((n + 1) * 2), *yh = malloc((n + 1) * 2);
		uint16_t *xb = malloc((n + 1) * 2), *yb = malloc((n + 1) * 2);
		double r_ff = 0, r_hf = 0, r_bf = 0, r_hh = 0, r_bb = 0, mag = 0;
		for (int64_t i = 0; i < n; i++) {
			x[i] = frand(-1, 1);
			y[i] = frand(-1, 1);
			xh[i] = ggml_fp32_to_fp16(x[i]);
			yh[i] = ggml_fp32_to_fp16(y[i]);
			xb[i] = ggml_fp32_to_bf16(x[i]).bits;
			yb[i] = ggml_fp32_to_bf16(y[i]).bits;
		}
		for (int64_t i = 0; i < n; i++) {
			double hx = ggml_fp16_to_fp32(xh[i]), hy = ggml_fp16_to_fp32(yh[i]);
			double bx = ggml_bf16_to_fp32((ggml_bf16_t){ xb[i] });
			double by = ggml_bf16_to_fp32((ggml_bf16_t){ yb[i] });
			r_ff += (double)x[i] * y[i];
			r_hf += hx * y[i];
			r_bf += bx * y[i];
			r_hh += hx * hy;
			r_bb += bx * by;
			mag += fabs((double)x[i] * y[i]);
		}
		/* float accumulation: error bounded by ~n/4 * eps * sum|xy| */
		const double tol = 1e-6 * (mag + 1) * (1 + n / 256.0);
		for (int k = 0; k < nimpl; k++) {
			EXPECT_NEAR(ff[k](n, x, y), r_ff, tol);
			EXPECT_NEAR(hf[k](n, xh, y), r_hf, tol);
			EXPECT_NEAR(bf[k](n, xb, y), r_bf, tol);
			EXPECT_NEAR(hh[k](n, xh, yh), r_hh, tol);
			EXPECT_NEAR(bb[k](n, xb, yb), r_bb, tol);
			checked += 5;
		}
		free(x); free(y); free(xh); free(yh); free(xb); free(yb);
	}
	TH_LOG("%d dot checks, %s", checked, nimpl == 2 ? "portable and SIMD" : "portable only");
}

#if defined(__x86_64__)
TEST(dot4_rows)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	static const int64_t sizes[] = { 1, 5, 16, 17, 100, 1031 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const int64_t n = sizes[s], ld = n + 7;
		float *x = malloc(4 * ld * 4), *y = malloc(n * 4), out[4];
		uint16_t *xh = malloc(4 * ld * 2), *xb = malloc(4 * ld * 2);
		for (int64_t i = 0; i < 4 * ld; i++) {
			x[i] = frand(-1, 1);
			xh[i] = ggml_fp32_to_fp16(x[i]);
			xb[i] = ggml_fp32_to_bf16(x[i]).bits;
		}
		for (int64_t i = 0; i < n; i++)
			y[i] = frand(-1, 1);
		for (int kind = 0; kind < 4; kind++) {
			if (kind == 0) gk_dot4_f32_avx2(n, x, ld, y, out);
			if (kind == 1) gk_dot4_f16_f32_avx2(n, xh, ld, y, out);
			if (kind == 2) gk_dot4_bf16_f32_avx2(n, xb, ld, y, out);
			if (kind == 3) {
				float *yp = malloc(n * 4);
				gk_bf16p_pack_y_avx2(n, y, yp);
				gk_dot4_bf16p_f32_avx2(n, xb, ld, yp, out);
				free(yp);
			}
			for (int r = 0; r < 4; r++) {
				double ref = 0;
				for (int64_t i = 0; i < n; i++) {
					double v = kind == 0 ? x[r * ld + i] : kind == 1 ? ggml_fp16_to_fp32(xh[r * ld + i])
								 : ggml_bf16_to_fp32((ggml_bf16_t){ xb[r * ld + i] });
					ref += v * y[i];
				}
				EXPECT_NEAR(out[r], ref, 1e-5 * (1 + n / 64.0));
			}
		}
		free(x); free(y); free(xh); free(xb);
	}
}
#endif

/* the element-wise vector kernels of this CPU (AVX2 or NEON) */
#if defined(__x86_64__)
#define VK(f) f##_avx2
#elif defined(__aarch64__)
#define VK(f) f##_neon
#endif

#ifdef VK
TEST(vector_exp_silu_scale)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	enum { N = 4099 };
	static float z[N], x[N], y[N];
	double rel = 0, sum = 0;
	for (int i = 0; i < N; i++)
		x[i] = z[i] = -100.0f + 110.0f * i / N; /* e^(x-9) over [-109, 1] */
	z[7] = -INFINITY;
	float s = VK(gk_exp_sub_sum)(N, z, 9.0f);
	for (int i = 0; i < N; i++) {
		double r = i == 7 ? 0 : exp((double)(x[i] - 9.0f)); /* the argument as the kernel forms it */
		if (x[i] - 9.0f < -87.3f) {
			EXPECT_EQ(z[i], 0.0f); /* below the normal range: 0 */
		} else {
			rel = fmax(rel, fabs(z[i] - r) / r);
		}
		sum += z[i];
	}
	TH_LOG("vector exp rel %.3g", rel);
	EXPECT_LE(rel, 2e-7);
	EXPECT_NEAR(s, sum, 1e-6 * sum);
	for (int i = 0; i < N; i++)
		x[i] = -80.0f + 160.0f * i / N;
	VK(gk_silu)(N, x, y);
	double err = 0;
	for (int i = 0; i < N; i++)
		err = fmax(err, fabs(y[i] - x[i] / (1 + exp(-(double)x[i]))));
	EXPECT_LE(err, 1e-5);
	VK(gk_scale_bias)(N, x, 0.3f, -2.0f, y);
	for (int i = 0; i < N; i++)
		EXPECT_NEAR(y[i], (double)x[i] * 0.3f - 2.0, 1e-5);
	for (int i = 0; i < N; i++)
		z[i] = y[i];
	VK(gk_axpy)(N, -1.5f, x, y);
	for (int i = 0; i < N; i++)
		EXPECT_NEAR(y[i], z[i] - 1.5 * x[i], 1e-4);
	for (int n = 0; n < 40; n++) {
		float mx = -INFINITY;
		for (int i = 0; i < n; i++)
			mx = fmaxf(mx, x[(i * 37) % N]);
		for (int i = 0; i < n; i++)
			z[i] = x[(i * 37) % N];
		EXPECT_EQ(VK(gk_max)(n, z), mx);
	}
	/* NaNs are skipped */
	for (int i = 0; i < 20; i++)
		z[i] = (float)i;
	z[3] = NAN;
	z[17] = NAN;
	EXPECT_EQ(VK(gk_max)(20, z), 19.0f);
}

/* GELU (tanh form, as x sigmoid(2u)) and GELU_QUICK against libm; the product */
TEST(vector_gelu)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	enum { N = 4099 };
	static float x[N], y[N], z[N];
	for (int i = 0; i < N; i++)
		x[i] = -80.0f + 160.0f * i / N;
	double e1 = 0, e2 = 0;
	VK(gk_gelu)(N, x, y);
	VK(gk_gelu_quick)(N, x, z);
	for (int i = 0; i < N; i++) {
		e1 = fmax(e1, fabs(y[i] - d_gelu(x[i])));
		e2 = fmax(e2, fabs(z[i] - x[i] / (1 + exp(-1.702 * x[i]))));
	}
	TH_LOG("vector gelu abs %.3g, gelu_quick abs %.3g", e1, e2);
	EXPECT_LE(e1, 2e-6);
	EXPECT_LE(e2, 1e-5);
	for (int i = 0; i < 50; i++)
		x[i] = frand(-3, 3);
	for (int n = 0; n < 50; n += 7) {
		VK(gk_mul)(n, x, x + 50, y);
		for (int i = 0; i < n; i++)
			EXPECT_EQ(y[i], x[i] * x[50 + i]);
	}
}

/* RoPE rotations: normal (adjacent pairs) and NeoX (halves), odd pair counts, in place */
TEST(vector_rope)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	static float x[300], y[300], z[300], cs[300];
	for (int nd = 2; nd <= 300; nd += 2) {
		for (int i = 0; i < nd; i++)
			x[i] = frand(-2, 2);
		for (int i = 0; i < nd; i += 2) {
			const float th = frand(-3, 3);
			cs[i] = cosf(th) * 1.1f;
			cs[i + 1] = sinf(th) * 1.1f;
		}
		for (int neox = 0; neox < 2; neox++) {
			if (neox)
				VK(gk_rope_neox)(nd, x, z, cs);
			else
				VK(gk_rope_norm)(nd, x, z, cs);
			double err = 0;
			for (int k = 0; k < nd / 2; k++) {
				const int i0 = neox ? k : 2 * k, i1 = neox ? k + nd / 2 : 2 * k + 1;
				const double c = cs[2 * k], sn = cs[2 * k + 1];
				err = fmax(err, fabs(z[i0] - (x[i0] * c - x[i1] * sn)));
				err = fmax(err, fabs(z[i1] - (x[i0] * sn + x[i1] * c)));
			}
			EXPECT_LE(err, 1e-6) TH_LOG("n_dims %d neox %d", nd, neox);
			/* in place gives the same */
			memcpy(y, x, nd * sizeof(float));
			if (neox)
				VK(gk_rope_neox)(nd, y, y, cs);
			else
				VK(gk_rope_norm)(nd, y, y, cs);
			EXPECT_EQ(memcmp(y, z, nd * sizeof(float)), 0) TH_LOG("in place n_dims %d neox %d", nd, neox);
		}
	}
}

/*
 * ADD/SUB/MUL/DIV and NORM's kernels against the portable ones: random data,
 * every length up to 100 (tails of every size) and a long row, unaligned
 * starts, in place. The binary ops and the centre-and-scale give the same
 * bits (one IEEE operation per element); the sums agree to float rounding.
 */
TEST(vector_binary_norm)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	enum { N = 4133 };
	static float x[N + 1], y[N + 1], z[N + 1], r[N + 1], w[N + 1];
	for (int i = 0; i <= N; i++) {
		x[i] = frand(-3, 3) + 0.25f;
		y[i] = frand(0.5f, 2) * (i % 3 ? 1 : -1);
	}
	for (int len = 0; len <= N; len += len < 100 ? 1 : N - 100) {
		for (int off = 0; off < 2; off++) {
			const float *xa = x + off, *ya = y + off;
			for (int op = GK_ADD; op <= GK_DIV; op++) {
				gk_binary_f32(op, len, xa, ya, r);
				VK(gk_binary)(op, len, xa, ya, z);
				EXPECT_EQ(memcmp(z, r, len * sizeof(float)), 0) TH_LOG("op %d len %d off %d", op, len, off);
				/* in place, on x's side and on y's side */
				memcpy(w, xa, len * sizeof(float));
				VK(gk_binary)(op, len, w, ya, w);
				EXPECT_EQ(memcmp(w, r, len * sizeof(float)), 0) TH_LOG("in place x, op %d len %d", op, len);
				memcpy(w, ya, len * sizeof(float));
				VK(gk_binary)(op, len, xa, w, w);
				EXPECT_EQ(memcmp(w, r, len * sizeof(float)), 0) TH_LOG("in place y, op %d len %d", op, len);
			}
			double d = 0, sa = 0;
			for (int i = 0; i < len; i++) {
				d += xa[i];
				sa += fabs(xa[i]);
			}
			EXPECT_NEAR(VK(gk_sum_f64)(len, xa), gk_sum_f64(len, xa), 1e-12 * (sa + 1));
			EXPECT_NEAR(gk_sum_f64(len, xa), d, 1e-12 * (sa + 1));
			const float mean = len ? (float)(d / len) : 0.0f;
			const float s2 = gk_sumsq_dev_f32(len, xa, mean);
			EXPECT_NEAR(VK(gk_sumsq_dev)(len, xa, mean), s2, 2e-6 * s2 + 1e-30);
			gk_centre_scale_f32(len, xa, mean, 0.7f, r);
			VK(gk_centre_scale)(len, xa, mean, 0.7f, z);
			EXPECT_EQ(memcmp(z, r, len * sizeof(float)), 0) TH_LOG("centre_scale len %d", len);
			memcpy(w, xa, len * sizeof(float));
			VK(gk_centre_scale)(len, w, mean, 0.7f, w);
			EXPECT_EQ(memcmp(w, r, len * sizeof(float)), 0) TH_LOG("centre_scale in place len %d", len);
		}
	}
}

/*
 * The fused GLU kernels and SOFT_MAX's first pass against their parts (the
 * portable math of gk-math.h and the separate kernels), every length up to
 * 70 and a long row, in place; the AVX512 forms where they may run.
 */
TEST(vector_glu_softmax)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	enum { N = 4133 };
	static float a[N], b[N], z[N], w[N], m[N];
	for (int i = 0; i < N; i++) {
		a[i] = frand(-12, 12);
		b[i] = frand(-2, 2);
		m[i] = i % 5 ? 0.0f : -INFINITY;
	}
	a[3] = -90.0f; /* past the clamps */
	a[4] = 95.0f;
	for (int len = 0; len <= N; len += len < 70 ? 1 : N - 70) {
		for (int k = 0; k < 2; k++) {
			/* against the portable functions: abs. 2e-6 (GELU's bound) relative to |b| */
			if (k)
				VK(gk_geglu)(len, a, b, z);
			else
				VK(gk_swiglu)(len, a, b, z);
			double err = 0;
			for (int i = 0; i < len; i++) {
				const double x = a[i];
				const double act = k ? d_gelu(x) : d_silu(x);
				err = fmax(err, fabs(z[i] - act * b[i]) / fmax(1.0, fabs(act * b[i])));
			}
			EXPECT_LE(err, 4e-6) TH_LOG("%s len %d", k ? "geglu" : "swiglu", len);
			/* in place on either side */
			memcpy(w, a, len * sizeof(float));
			if (k)
				VK(gk_geglu)(len, w, b, w);
			else
				VK(gk_swiglu)(len, w, b, w);
			EXPECT_EQ(memcmp(w, z, len * sizeof(float)), 0) TH_LOG("in place len %d", len);
#if defined(__x86_64__)
			if (ggml_cpu_isa()->use_vnni256) {
				if (k)
					gk_geglu_avx512(len, a, b, w);
				else
					gk_swiglu_avx512(len, a, b, w);
				double e5 = 0;
				for (int i = 0; i < len; i++)
					e5 = fmax(e5, fabs(w[i] - z[i]) / fmax(1.0, fabs(z[i])));
				EXPECT_LE(e5, 4e-6) TH_LOG("avx512 %s len %d", k ? "geglu" : "swiglu", len);
				if (k)
					gk_gelu_avx512(len, a, w);
				else
					gk_silu_avx512(len, a, w);
				e5 = 0;
				for (int i = 0; i < len; i++) {
					const double act = k ? d_gelu(a[i]) : d_silu(a[i]);
					e5 = fmax(e5, fabs(w[i] - act) / fmax(1.0, fabs(act)));
				}
				EXPECT_LE(e5, 2e-6) TH_LOG("avx512 %s len %d", k ? "gelu" : "silu", len);
			}
#endif
		}
		/* scale, mask, max: the bits of scale_bias then axpy; the max */
		for (int mk = 0; mk < 2; mk++) {
			const float mx = VK(gk_scale_mask_max)(len, a, 0.37f, mk ? m : NULL, 0.5f, z);
			VK(gk_scale_bias)(len, a, 0.37f, 0.0f, w);
			if (mk)
				VK(gk_axpy)(len, 0.5f, m, w);
			EXPECT_EQ(memcmp(w, z, len * sizeof(float)), 0) TH_LOG("scale_mask_max len %d mask %d", len, mk);
			float ref = -INFINITY;
			for (int i = 0; i < len; i++)
				ref = fmaxf(ref, w[i]);
			EXPECT_EQ(mx, ref) TH_LOG("max len %d mask %d", len, mk);
		}
	}
}

#if defined(__x86_64__)
/*
 * SILU, SWIGLU, GELU and GEGLU of the AVX2 and AVX512 kernels (their table
 * exponentials, vec-x86.c and vec-avx512.c) against libm in double over
 * [-100, 100] (every 1/4096), every tail length to 40 (nothing written
 * past n), and the special lanes: SILU within 8.5e-7 relative (the
 * kernels' bound; x >= -88; below, x / (1 + e^88): under |x| 1e-38 instead
 * of x e^x), SWIGLU within 9.5e-7 relative to silu(a) b, GELU/GEGLU within 2e-6 (GELU's
 * bound, relative above 1); +-inf give +-inf, NaN NaN, -0 -0.
 */
typedef void (*act_fn)(int64_t, const float *, float *);
typedef void (*glu_fn)(int64_t, const float *, const float *, float *);

static void act_check(struct __test_metadata *_metadata, const char *isa, act_fn silu, glu_fn swiglu,
		      act_fn gelu, glu_fn geglu)
{
	enum { N = 819201, T = 40 };
	float *x = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
	float *y = malloc((N + 16) * sizeof(float));
	for (int i = 0; i < N; i++) {
		x[i] = -100.0f + (float)i / 4096.0f;
		b[i] = frand(-3, 3);
	}
	for (int k = 0; k < 4; k++) {
		double e = 0, ex = 0;
		if (k == 0)
			silu(N, x, y);
		else if (k == 1)
			swiglu(N, x, b, y);
		else if (k == 2)
			gelu(N, x, y);
		else
			geglu(N, x, b, y);
		for (int i = 0; i < N; i++) {
			const double a = x[i], act = k & 2 ? d_gelu(a) : d_silu(a);
			const double ref = k & 1 ? act * b[i] : act;
			const double err = k & 2 ? fabs(y[i] - ref) / fmax(1.0, fabs(ref))
						 : fabs(y[i] - ref) / (fabs(ref) * 1e-6 + (a < -88 ? 1e-35 : 0));
			if (!(err <= e)) {
				e = err;
				ex = a;
			}
		}
		static const char *const names[4] = { "silu", "swiglu", "gelu", "geglu" };
		static const double bound[4] = { 0.85, 0.95, 2e-6, 2e-6 };
		TH_LOG("%s %s max err %.3g%s at x = %g", isa, names[k], k & 2 ? e : e * 1e-6, k & 2 ? " abs" : " rel", ex);
		EXPECT_LE(e, bound[k]) TH_LOG("%s %s at x = %g", isa, names[k], ex);
	}
	/* tails: every length, against the long run's values, nothing past n */
	for (int n = 0; n <= T; n++) {
		for (int k = 0; k < 4; k++) {
			float ref[T];
			const float *xa = x + 3 * 4096 * 25 + 7; /* around 0 */
			if (k == 0)
				silu(T, xa, ref);
			else if (k == 1)
				swiglu(T, xa, b, ref);
			else if (k == 2)
				gelu(T, xa, ref);
			else
				geglu(T, xa, b, ref);
			for (int i = 0; i < n + 16; i++)
				y[i] = 12345.0f;
			if (k == 0)
				silu(n, xa, y);
			else if (k == 1)
				swiglu(n, xa, b, y);
			else if (k == 2)
				gelu(n, xa, y);
			else
				geglu(n, xa, b, y);
			for (int i = 0; i < n; i++)
				EXPECT_LE(fabs(y[i] - ref[i]), 2e-6 * fmax(1.0, fabs(ref[i]))) TH_LOG("%s len %d k %d", isa, n, k);
			for (int i = n; i < n + 16; i++)
				EXPECT_EQ(y[i], 12345.0f) TH_LOG("%s len %d k %d: written past n", isa, n, k);
		}
	}
	/* special lanes (whole vectors) */
	static const float sp[16] = { -INFINITY, INFINITY, NAN, -0.0f, 0.0f, -88.0f, -88.5f, 86.4f,
				       86.6f, 88.0f, 89.0f, -1e30f, 1e30f, -1e-30f, 1e-30f, -87.0f };
	float o[16], one[16];
	for (int i = 0; i < 16; i++)
		one[i] = 1.0f;
	for (int k = 0; k < 4; k++) {
		if (k == 0)
			silu(16, sp, o);
		else if (k == 1)
			swiglu(16, sp, one, o);
		else if (k == 2)
			gelu(16, sp, o);
		else
			geglu(16, sp, one, o);
		EXPECT_EQ(o[0], -INFINITY) TH_LOG("%s k %d -inf", isa, k);
		EXPECT_EQ(o[1], INFINITY) TH_LOG("%s k %d +inf", isa, k);
		EXPECT_TRUE(isnan(o[2])) TH_LOG("%s k %d NaN", isa, k);
		EXPECT_TRUE(o[3] == 0.0f && signbit(o[3])) TH_LOG("%s k %d -0", isa, k);
		EXPECT_TRUE(o[4] == 0.0f && !signbit(o[4])) TH_LOG("%s k %d +0", isa, k);
		for (int i = 5; i < 16; i++) {
			const double ref = k & 2 ? d_gelu(sp[i]) : d_silu(sp[i]);
			if (k & 2 || sp[i] >= -88.0f) {
				EXPECT_LE(fabs(o[i] - ref), 2e-6 * fmax(k & 2 ? 1.0 : 0.0, fabs(ref)) + 1e-35)
				TH_LOG("%s k %d x %g: %.9g vs %.9g", isa, k, sp[i], o[i], ref);
			} else {
				EXPECT_TRUE(fabs(o[i]) <= -sp[i] * 1e-38 && signbit(o[i])) TH_LOG("%s k %d x %g: %g", isa, k, sp[i], o[i]);
			}
		}
	}
	free(x);
	free(b);
	free(y);
}

TEST(activation_kernels)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	act_check(_metadata, "avx2", gk_silu_avx2, gk_swiglu_avx2, gk_gelu_avx2, gk_geglu_avx2);
	if (ggml_cpu_isa()->use_vnni256)
		act_check(_metadata, "avx512", gk_silu_avx512, gk_swiglu_avx512, gk_gelu_avx512, gk_geglu_avx512);
}
#endif

#if defined(__x86_64__)
/* SOFT_MAX's row kernels (softmax-x86.c, softmax-avx512.c) against double
 * references: the maximum of v = x * s (+ slope * m, one fma, F32 or F16
 * mask) exactly; e^(v - max) within 2e-7 relative over the float
 * arguments in [-87.3, 0], 0 below, for -inf and NaN; the sum; the
 * normalisation (plain, non-temporal, and pipelined into the next row's
 * exponential pass) exactly; every tail length. */
typedef float (*sm_max_fn)(int64_t, const float *, float, const void *, enum gk_sm_mask, float);
typedef float (*sm_exp_fn)(int64_t, const struct gk_sm_exp *);
typedef void (*sm_norm_fn)(int64_t, const float *, float, float *, bool);

static double sm_exp_err(sm_exp_fn fexp)
{
	/* every 61st float d in [-87.3, 0] (all of them take minutes under
	 * load; softmax-*.c were checked so), as rows x = d with s = 1, max = 0 */
	enum { B = 1 << 14 };
	static float x[B], z[B];
	double worst = 0;
	const float lim = -87.3f;
	uint32_t hi, u = 0x80000000u;
	memcpy(&hi, &lim, 4);
	while (u <= hi) {
		int n = 0;
		for (; n < B && u <= hi; n++, u += 61)
			memcpy(&x[n], &u, 4);
		fexp(n, &(struct gk_sm_exp){ .x = x, .s = 1.0f, .max = 0.0f, .z = z });
		for (int i = 0; i < n; i++) {
			const double r = exp((double)x[i]);
			worst = fmax(worst, fabs(z[i] - r) / r);
		}
	}
	return worst;
}

TEST(softmax_rows)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	static const sm_max_fn fmax_[2] = { gk_softmax_max_avx2, gk_softmax_max_avx512 };
	static const sm_exp_fn fexp[2] = { gk_softmax_exp_avx2, gk_softmax_exp_avx512 };
	static const sm_norm_fn fnorm[2] = { gk_softmax_norm_avx2, gk_softmax_norm_avx512 };
	enum { N = 4133 };
	static float x[N], mf[N], z[N], y[N], po[N + 16] __attribute__((aligned(64)));
	static float pv[N] __attribute__((aligned(64))), x2[N], mf2[N], z3[N];
	static uint16_t mh[N], mh2[N];
	static float vk[N + 1] __attribute__((aligned(64))), zr[N], pk[N] __attribute__((aligned(64)));
	static double v[N];
	for (int i = 0; i < N; i++) {
		x[i] = frand(-30, 30);
		mf[i] = i % 7 == 3 ? -INFINITY : frand(-3, 3);
		mh[i] = ggml_fp32_to_fp16(mf[i]);
		pv[i] = frand(0, 1);
		/* the next row (its maximum found in this row's pass): largest
		 * values at either end, -0 and +0, NaN */
		x2[i] = frand(-40, 20) + (i == N - 1 ? 30.0f : 0.0f);
		mf2[i] = i % 5 == 1 ? -INFINITY : frand(-3, 3);
		mh2[i] = ggml_fp32_to_fp16(mf2[i]);
	}
	x[5] = NAN; /* skipped by the maximum, 0 out */
	x2[7] = NAN;
	x2[0] = 25.0f;
	for (int isa = 0; isa < 2; isa++) {
		if (isa == 1 && !ggml_cpu_isa()->use_vnni256)
			break;
		const char *nm = isa ? "avx512" : "avx2";
		const double e = sm_exp_err(fexp[isa]);
		TH_LOG("%s softmax exp rel %.3g", nm, e);
		EXPECT_LE(e, 2e-7) TH_LOG("%s exp", nm);
		/* -inf, NaN, under -87.3: 0; 0: 1 */
		static const float sp[8] = { -INFINITY, NAN, -87.31f, -100.0f, -1e30f, 0.0f, -0.0f, -87.3f };
		float so[8];
		fexp[isa](8, &(struct gk_sm_exp){ .x = sp, .s = 1.0f, .max = 0.0f, .z = so });
		for (int i = 0; i < 5; i++) {
			EXPECT_EQ(so[i], 0.0f) TH_LOG("%s e(%g)", nm, sp[i]);
		}
		EXPECT_EQ(so[5], 1.0f);
		EXPECT_EQ(so[6], 1.0f);
		EXPECT_NEAR(so[7], exp(-87.3f), 2e-7 * exp(-87.3f));
		for (int len = 0; len <= N; len += len < 70 ? 1 : N - 70) {
			for (int mk = 0; mk < 3; mk++) {
				const enum gk_sm_mask mt = mk == 2 ? GK_SM_F16 : mk == 1 ? GK_SM_F32 : GK_SM_NONE;
				const void *m = mk == 2 ? (const void *)mh : mk == 1 ? (const void *)mf : NULL;
				const float s = 0.37f, slope = 0.5f;
				float ref = -INFINITY;
				for (int i = 0; i < len; i++) {
					float t = x[i] * s;
					if (mk)
						t = fmaf(slope, mk == 2 ? ggml_fp16_to_fp32(mh[i]) : mf[i], t);
					v[i] = t;
					if (t > ref)
						ref = t; /* NaN compares false */
				}
				const float mx = fmax_[isa](len, x, s, m, mt, slope);
				EXPECT_EQ(mx, ref) TH_LOG("%s max len %d mask %d", nm, len, mk);
				if (len == 0)
					continue;
				const float sum = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt, .s = s,
										.slope = slope, .max = mx, .z = z });
				double err = 0, dsum = 0;
				for (int i = 0; i < len; i++) {
					const double r = v[i] != v[i] || v[i] - mx < -87.3 ? 0 : exp(v[i] - mx);
					err = fmax(err, r > 0 ? fabs(z[i] - r) / r : fabs(z[i]));
					dsum += z[i];
				}
				/* v - max is rounded to float by the kernel: 1 ulp of v */
				EXPECT_LE(err, 2e-7 + 1.2e-7 * fabs(mx)) TH_LOG("%s exp len %d mask %d", nm, len, mk);
				EXPECT_NEAR(sum, dsum, 1e-6 * dsum);
				/* normalisation: x * s exactly, in place and non-temporal */
				memcpy(y, z, len * sizeof(float));
				fnorm[isa](len, z, 1.0f / sum, z, false);
				for (int i = 0; i < len; i++) {
					EXPECT_EQ(z[i], y[i] * (1.0f / sum)) TH_LOG("%s norm len %d at %d", nm, len, i);
				}
				for (int off = 0; off < 3; off++) {
					memset(po, 0, sizeof(po));
					fnorm[isa](len, y, 1.0f / sum, po + off, true);
					gk_sfence_x86();
					EXPECT_EQ(memcmp(po + off, z, len * sizeof(float)), 0) TH_LOG("%s nt len %d", nm, len);
				}
				/* the next row's maximum found meanwhile: the same value
				 * as its own pass (at every length, so the largest value
				 * sits in the tail, the first vector or the middle) */
				for (int nx = 0; nx < 2; nx++) {
					const float *xn = nx ? x2 : x;
					const void *mn = mk == 2 ? (const void *)(nx ? mh2 : mh)
							   : mk == 1 ? (const void *)(nx ? mf2 : mf) : NULL;
					float got = 12345.0f;
					const float s3 = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt, .s = s,
							.slope = slope, .max = mx, .z = z3, .xn = xn, .mn = mn,
							.slope_n = 0.75f, .max_next = &got });
					EXPECT_EQ(s3, sum) TH_LOG("%s fused sum len %d mask %d", nm, len, mk);
					EXPECT_EQ(memcmp(z3, y, len * sizeof(float)), 0) TH_LOG("%s fused exp len %d", nm, len);
					const float want = fmax_[isa](len, xn, s, mn, mt, 0.75f);
					EXPECT_EQ(got, want) TH_LOG("%s fused max len %d mask %d next %d: %g vs %g", nm, len, mk, nx, got, want);
					if (!mk || want == -INFINITY)
						continue;
					/* with a mask, the next row's v kept (vn), then read
					 * in place of its x and m (v, here in place of z): the
					 * same exponentials and sum as from x and m */
					for (int i = 0; i < len + 1; i++)
						vk[i] = 777.0f;
					got = 12345.0f;
					const float s4 = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt, .s = s,
							.slope = slope, .max = mx, .z = z3, .xn = xn, .mn = mn,
							.slope_n = 0.75f, .max_next = &got, .vn = vk });
					EXPECT_EQ(s4, sum) TH_LOG("%s vn sum len %d mask %d", nm, len, mk);
					EXPECT_EQ(memcmp(z3, y, len * sizeof(float)), 0) TH_LOG("%s vn exp len %d", nm, len);
					EXPECT_EQ(got, want) TH_LOG("%s vn max len %d mask %d", nm, len, mk);
					int bad = -1;
					for (int i = 0; i < len && bad < 0; i++) {
						const float mv = mk == 2 ? ggml_fp16_to_fp32(nx ? mh2[i] : mh[i]) : (nx ? mf2 : mf)[i];
						const float t = fmaf(0.75f, mv, xn[i] * s);
						if (!(vk[i] == t || (t != t && vk[i] != vk[i])))
							bad = i;
					}
					EXPECT_EQ(bad, -1) TH_LOG("%s vn len %d mask %d next %d at %d", nm, len, mk, nx, bad);
					EXPECT_EQ(vk[len], 777.0f) TH_LOG("%s vn past the row, len %d", nm, len);
					/* its own pass from x and m, then from vk (x and m
					 * those of another row, which must not count) */
					const float s5 = fexp[isa](len, &(struct gk_sm_exp){ .x = xn, .m = mn, .mt = mt, .s = s,
							.slope = 0.75f, .max = want, .z = zr });
					const float s6 = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt, .s = s,
							.slope = slope, .max = want, .z = vk, .v = vk });
					EXPECT_EQ(s6, s5) TH_LOG("%s v sum len %d mask %d next %d", nm, len, mk, nx);
					EXPECT_EQ(memcmp(vk, zr, len * sizeof(float)), 0) TH_LOG("%s v exp len %d mask %d", nm, len, mk);
				}
				/* the previous row normalised meanwhile: the same bits */
				if (len % 16 == 0) {
					float *z2 = y; /* y is free again */
					memset(po, 0, sizeof(po));
					const float s2 = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt,
							.s = s, .slope = slope, .max = mx, .z = z2, .next = x,
							.prev = pv, .prev_s = 0.25f, .prev_out = po });
					gk_sfence_x86();
					EXPECT_EQ(s2, sum);
					for (int i = 0; i < len; i++) {
						EXPECT_EQ(po[i], pv[i] * 0.25f) TH_LOG("%s pipelined len %d at %d", nm, len, i);
					}
					/* and the next row's v kept in prev's place (vn ==
					 * prev): each prev value read first */
					if (mk) {
						memcpy(pk, pv, len * sizeof(float));
						memset(po, 0, sizeof(po));
						float got = 0;
						const float s7 = fexp[isa](len, &(struct gk_sm_exp){ .x = x, .m = m, .mt = mt,
								.s = s, .slope = slope, .max = mx, .z = z2, .next = x,
								.prev = pk, .prev_s = 0.25f, .prev_out = po, .xn = x2,
								.mn = mk == 2 ? (const void *)mh2 : (const void *)mf2,
								.slope_n = 0.75f, .max_next = &got, .vn = pk });
						gk_sfence_x86();
						EXPECT_EQ(s7, sum);
						int bad = -1;
						for (int i = 0; i < len && bad < 0; i++) {
							const float mv = mk == 2 ? ggml_fp16_to_fp32(mh2[i]) : mf2[i];
							const float t = fmaf(0.75f, mv, x2[i] * s);
							if (po[i] != pv[i] * 0.25f || !(pk[i] == t || (t != t && pk[i] != pk[i])))
								bad = i;
						}
						EXPECT_EQ(bad, -1) TH_LOG("%s vn = prev len %d mask %d at %d", nm, len, mk, bad);
					}
				}
			}
		}
	}
}
#endif

#if defined(__x86_64__)
/* The flash attention's transposed block form (attn-t-x86.c, attn-avx512.c)
 * against double references, on every ISA this CPU has: F16 rows widened
 * exactly for every head dimension 1..70 (tails), nothing written past a
 * row; the mask classes for every length 1..70 with the odd value at every
 * position and a value past the end that must not count; Q K^T, the
 * vertical softmax (rows with no key yet, rows all -inf, with and without
 * a mask tile) and P V for every row-vector count, key counts 1..64 and
 * head dimensions that are not multiples of the tiles, nothing written
 * past the rv x L lanes of a key or an output column. */
struct fa_t_impl {
	const char *name;
	int lanes, rvmax;
	void (*rows)(int, int64_t, const uint16_t *, int64_t, float *, int64_t);
	int (*cls)(const void *, int, int);
	void (*tqk)(int, int, int64_t, const float *, const float *, int64_t, float *);
	void (*tsm)(int, int, float, const float *, float *, float *, float *, float *);
	void (*tpv)(int, int, int64_t, const float *, const float *, int64_t, const float *, float *);
};

#define FAT_SENT 12345.0f

static int fa_t_classes(const struct fa_t_impl *im, struct __test_metadata *_metadata)
{
	static uint16_t h[80];
	static float f[80];
	int bad = 0;
	for (int n = 1; n <= 70; n++)
		for (int base = 0; base < 2; base++) /* 0: zeros (some -0), 1: -inf */
			for (int p = -1; p < n; p++)
				for (int odd = 0; odd < 3; odd++) {
					if (p < 0 && odd > 0)
						continue;
					for (int j = 0; j < 80; j++) {
						f[j] = base ? -INFINITY : (j % 3 ? 0.0f : -0.0f);
						/* past the end: the other class */
						if (j >= n)
							f[j] = base ? 0.0f : -INFINITY;
					}
					/* the odd value: the other base class, a small one, NaN */
					if (p >= 0)
						f[p] = odd == 0 ? (base ? 0.0f : -INFINITY) : odd == 1 ? 1e-3f : NAN;
					for (int j = 0; j < 80; j++)
						h[j] = ggml_fp32_to_fp16(f[j]);
					/* one value, flipped: the other class */
					const int want = p < 0 ? base : odd == 0 && n == 1 ? 1 - base : 2;
					for (int t = 0; t < 2; t++) {
						const int got = im->cls(t ? (const void *)h : (const void *)f, t, n);
						if (got != want && bad++ < 5)
							TH_LOG("%s mask class %s n %d base %d at %d (%d): %d, expected %d", im->name,
							       t ? "f16" : "f32", n, base, p, odd, got, want);
					}
				}
	return bad;
}

static int fa_t_rows(const struct fa_t_impl *im, struct __test_metadata *_metadata)
{
	enum { NR = 3, LD = 80 };
	static uint16_t src[NR * LD];
	static float dst[NR * LD];
	int bad = 0;
	for (int i = 0; i < NR * LD; i++)
		src[i] = ggml_fp32_to_fp16(frand(-4, 4));
	for (int d = 1; d <= 70; d++) {
		for (int i = 0; i < NR * LD; i++)
			dst[i] = FAT_SENT;
		im->rows(NR, d, src + 1, LD - 1, dst, LD);
		for (int j = 0; j < NR; j++)
			for (int l = 0; l < LD; l++) {
				const float want = l < d ? ggml_fp16_to_fp32(src[1 + j * (LD - 1) + l]) : FAT_SENT;
				if (dst[j * LD + l] != want && bad++ < 5)
					TH_LOG("%s rows_f16 d %d row %d [%d]: %g, expected %g", im->name, d, j, l,
					       dst[j * LD + l], want);
			}
	}
	return bad;
}

/* Q K^T, softmax, P V of one block: rv vectors of L rows, n keys, dk, dv */
static int fa_t_block(const struct fa_t_impl *im, int rv, int n, int dk, int dv, int masked,
		      struct __test_metadata *_metadata)
{
	enum { KC = 64, DMAX = 70, WMAX = 32 };
	static float qt[DMAX * WMAX], k[KC * (DMAX + 3)], v[KC * (DMAX + 3)], st[(KC + 1) * WMAX];
	static float mt[KC * WMAX], ot[(DMAX + 1) * WMAX], m[WMAX], s[WMAX], ms[WMAX];
	static double sc[KC * WMAX], o0[DMAX * WMAX], m0[WMAX], s0[WMAX];
	const int W = rv * im->lanes, ldk = dk + 3, ldv = dv + 1;
	int bad = 0;
	for (int i = 0; i < dk * W; i++)
		qt[i] = frand(-1, 1);
	for (int i = 0; i < n * ldk; i++)
		k[i] = frand(-1, 1);
	for (int i = 0; i < n * ldv; i++)
		v[i] = frand(-1, 1);
	for (int i = 0; i < (n + 1) * W; i++)
		st[i] = FAT_SENT;
	/* Q K^T */
	im->tqk(rv, n, dk, qt, k, ldk, st);
	for (int j = 0; j <= n; j++)
		for (int i = 0; i < W; i++) {
			double r = 0, a = 0;
			for (int l = 0; j < n && l < dk; l++) {
				r += (double)qt[l * W + i] * k[j * ldk + l];
				a += fabs((double)qt[l * W + i] * k[j * ldk + l]);
			}
			const double got = st[j * W + i];
			if ((j < n ? !(fabs(got - r) <= 1e-6 * a + 1e-30) : got != FAT_SENT) && bad++ < 5)
				TH_LOG("%s tqk rv %d n %d dk %d key %d row %d: %g, expected %g", im->name, rv, n, dk, j, i,
				       got, j < n ? r : FAT_SENT);
		}
	if (bad)
		return bad;
	/* the softmax: rows 0 mod 5 with no key yet, rows 1 mod 7 masked
	 * all -inf where masked, the others a state of earlier chunks */
	const float scale = 0.7f;
	for (int i = 0; i < W; i++) {
		m[i] = i % 5 == 0 ? -INFINITY : frand(-1, 1);
		s[i] = i % 5 == 0 ? 0.0f : frand(0.5f, 3);
		m0[i] = m[i];
		s0[i] = s[i];
	}
	for (int j = 0; j < n; j++)
		for (int i = 0; i < W; i++) {
			const float x = i % 7 == 1 || (i % 3 == 2 && j % 4 == 1) ? -INFINITY : frand(-2, 2);
			mt[j * W + i] = x;
			/* the kernels' float products and sums */
			const float vs = st[j * W + i] * scale;
			sc[j * W + i] = masked ? vs + x : vs;
		}
	im->tsm(rv, n, scale, masked ? mt : NULL, st, m, s, ms);
	for (int i = 0; i < W; i++) {
		double mx = m0[i];
		for (int j = 0; j < n; j++)
			mx = fmax(mx, sc[j * W + i]);
		/* e^d of the float differences d, within 2e-7 (gk-vec.h) */
		const float ref = mx == -INFINITY ? 0.0f : (float)mx;
		const double f = exp((double)((float)m0[i] - ref));
		double sum = s0[i] * f;
		for (int j = 0; j < n; j++) {
			const double p = exp((double)((float)sc[j * W + i] - ref)), got = st[j * W + i];
			sum += p;
			if (!(fabs(got - p) <= 1e-6 * p + 1e-37) && bad++ < 5)
				TH_LOG("%s tsoftmax rv %d n %d row %d key %d: %g, expected %g", im->name, rv, n, i, j, got, p);
		}
		if ((m[i] != (float)mx || !(fabs(ms[i] - f) <= 1e-6 * f) || !(fabs(s[i] - sum) <= 1e-5 * sum + 1e-37)) &&
		    bad++ < 5)
			TH_LOG("%s tsoftmax rv %d n %d row %d: m %g s %g ms %g, expected %g %g %g", im->name, rv, n, i,
			       m[i], s[i], ms[i], mx, sum, f);
		ms[i] = frand(0, 1); /* the rescale P V applies */
	}
	if (bad)
		return bad;
	/* P V */
	for (int i = 0; i < (dv + 1) * W; i++)
		ot[i] = i < dv * W ? frand(-1, 1) : FAT_SENT;
	for (int d = 0; d < dv; d++)
		for (int i = 0; i < W; i++) {
			double r = (double)ms[i] * ot[d * W + i];
			for (int j = 0; j < n; j++)
				r += (double)st[j * W + i] * v[j * ldv + d];
			o0[d * W + i] = r;
		}
	im->tpv(rv, n, dv, st, v, ldv, ms, ot);
	for (int d = 0; d <= dv; d++)
		for (int i = 0; i < W; i++) {
			const double got = ot[d * W + i], want = d < dv ? o0[d * W + i] : FAT_SENT;
			if (!(fabs(got - want) <= 1e-5 * (fabs(want) + 1)) && bad++ < 5)
				TH_LOG("%s tpv rv %d n %d dv %d col %d row %d: %g, expected %g", im->name, rv, n, dv, d, i,
				       got, want);
		}
	return bad;
}

TEST(flash_attn_transposed)
{
	if (!ggml_cpu_fast_x86())
		SKIP(return, "no AVX2/FMA/F16C");
	static const struct fa_t_impl impls[2] = {
		{ "avx2", 8, 4, gk_fa_rows_f16_avx2, gk_fa_mask_class_avx2, gk_fa_tqk_avx2, gk_fa_tsoftmax_avx2,
		  gk_fa_tpv_avx2 },
		{ "avx512", 16, 2, gk_fa_rows_f16_avx512, gk_fa_mask_class_avx512, gk_fa_tqk_avx512,
		  gk_fa_tsoftmax_avx512, gk_fa_tpv_avx512 },
	};
	static const int ns[] = { 1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 17, 25, 31, 63, 64 };
	static const int ds[] = { 1, 3, 8, 13, 16, 23, 64, 70 };
	for (int isa = 0; isa < 2; isa++) {
		if (isa == 1 && !(ggml_cpu_isa()->use_avx512f && ggml_cpu_isa()->avx512_bwvl))
			break;
		const struct fa_t_impl *im = &impls[isa];
		EXPECT_EQ(fa_t_classes(im, _metadata), 0);
		EXPECT_EQ(fa_t_rows(im, _metadata), 0);
		int bad = 0;
		for (int rv = 1; rv <= im->rvmax; rv++)
			for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
				for (size_t b = 0; b < sizeof(ds) / sizeof(ds[0]); b++)
					bad += fa_t_block(im, rv, ns[a], ds[b], ds[(b + a) % (sizeof(ds) / sizeof(ds[0]))],
							  (int)(a + b) % 2, _metadata);
		EXPECT_EQ(bad, 0) TH_LOG("%s block kernels", im->name);
	}
}

/* One sixteen-lane dot of gk_fa_qk_f16_avx512 emulated in scalar code:
 * lane l takes dims l, l + 16, ... (a fused multiply-add each), then the
 * lanes are added in _mm512_reduce_add_ps's order: halves of 256, then of
 * 128 bits, then (x0 + x2) + (x1 + x3). Exactly the kernel's bits. */
static float fa_qk16_ref(const float *q, const uint16_t *k, int64_t dk)
{
	float acc[16] = { 0 }, t3[8], t6[4];
	for (int64_t l = 0; l < dk; l++)
		acc[l % 16] = fmaf(q[l], ggml_fp16_to_fp32(k[l]), acc[l % 16]);
	for (int e = 0; e < 8; e++)
		t3[e] = acc[e + 8] + acc[e];
	for (int e = 0; e < 4; e++)
		t6[e] = t3[e + 4] + t3[e];
	return (t6[0] + t6[2]) + (t6[1] + t6[3]);
}

/* The decode form's Q.K kernel on 512-bit vectors (attn-f16-avx512.c):
 * every row count, key counts through its 4- and 8-key tiles and their
 * tails, head dimensions with a masked step; the sums of four keys are
 * added together (gk_hsum4_avx512), each with the bits of its own
 * reduction. */
TEST(flash_attn_decode_qk_bits)
{
	if (!(ggml_cpu_isa()->use_avx512f && ggml_cpu_isa()->avx512_bwvl))
		SKIP(return, "no AVX512F/BW/VL");
	static const int ns[] = { 1, 3, 4, 5, 6, 7, 8, 9, 12, 13, 17 };
	static const int64_t ds[] = { 16, 40, 64, 72, 128 };
	enum { LD = 136, NK = 17 };
	static float q[4 * LD], s[4 * NK];
	static uint16_t k[NK * LD];
	for (int i = 0; i < 4 * LD; i++)
		q[i] = frand(-1.0f, 1.0f);
	for (int i = 0; i < NK * LD; i++)
		k[i] = ggml_fp32_to_fp16(frand(-1.0f, 1.0f));
	int bad = 0;
	for (int m = 1; m <= 4; m++)
		for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
			for (size_t b = 0; b < sizeof(ds) / sizeof(ds[0]); b++) {
				const int n = ns[a];
				const int64_t dk = ds[b];
				memset(s, 0, sizeof(s));
				gk_fa_qk_f16_avx512(m, n, dk, q, LD, k, LD, s, NK);
				for (int i = 0; i < m; i++)
					for (int j = 0; j < n; j++) {
						const float want = fa_qk16_ref(q + i * LD, k + j * LD, dk);
						if (memcmp(&want, &s[i * NK + j], sizeof(float)) != 0 && bad++ < 5)
							TH_LOG("m %d n %d dk %lld: s[%d][%d] %.9g, want %.9g", m, n, (long long)dk,
							       i, j, s[i * NK + j], want);
					}
			}
	EXPECT_EQ(bad, 0);
}

/* The keys-outermost forms (r rows per head, nh heads side by side in a
 * key's row, attn-f16-avx512.c): the bits of the per-head kernels with the
 * same rows, every head count through the tiles and their rest, 1 to 4 rows
 * a head, head dimensions with a masked step, prefetch counts short of, at
 * and past the keys; and the _g8 forms (8 keys at a time at 3 or 4 rows). */
TEST(flash_attn_decode_heads_bits)
{
	if (!(ggml_cpu_isa()->use_avx512f && ggml_cpu_isa()->avx512_bwvl))
		SKIP(return, "no AVX512F/BW/VL");
	enum { LQ = 136, NH = 19, RM = 4, NK = 21, GS = 144, LK = NH * GS + 8 };
	static const int64_t ds[] = { 16, 40, 64, 72, 128, 136 };
	static const int ns[] = { 1, 5, 8, 13, 21 };
	static float q[NH * RM * LQ], s[NH * RM * NK], s1[NH * RM * NK], o[NH * RM * LQ], o1[NH * RM * LQ],
		o0[NH * RM * LQ];
	static uint16_t k[NK * LK];
	for (int i = 0; i < NH * RM * LQ; i++) {
		q[i] = frand(-1.0f, 1.0f);
		o0[i] = frand(-2.0f, 2.0f);
	}
	for (int i = 0; i < NK * LK; i++)
		k[i] = ggml_fp32_to_fp16(frand(-1.0f, 1.0f));
	int bad = 0;
	for (int g8 = 0; g8 <= 1; g8++)
	for (int r = 1; r <= RM; r++)
		for (int nh = 1; nh <= NH; nh++)
			for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
				for (size_t b = 0; b < sizeof(ds) / sizeof(ds[0]); b++) {
					const int n = ns[a];
					const int npf = (int)(a + b) % 3 == 0 ? 0 : (int)(a + b) % 3 == 1 ? n : n + 7;
					const int64_t d = ds[b];
					memset(s, 0, sizeof(s));
					memset(s1, 0, sizeof(s1));
					if (g8) {
						gk_fa_qk_f16_heads_g8_avx512(nh, r, n, d, q, LQ, k, LK, GS, s, NK, npf);
					} else {
						gk_fa_qk_f16_heads_avx512(nh, r, n, d, q, LQ, k, LK, GS, s, NK, npf);
					}
					memcpy(o, o0, sizeof(o));
					memcpy(o1, o0, sizeof(o1));
					/* the scores as weights (p = s, ldp = NK) */
					if (g8) {
						gk_fa_pv_f16_heads_g8_avx512(nh, r, n, d, s, NK, k, LK, GS, o, LQ, npf);
					} else {
						gk_fa_pv_f16_heads_avx512(nh, r, n, d, s, NK, k, LK, GS, o, LQ, npf);
					}
					for (int h = 0; h < nh; h++) {
						gk_fa_qk_f16_avx512(r, n, d, q + h * r * LQ, LQ, k + h * GS, LK, s1 + h * r * NK, NK);
						gk_fa_pv_f16_avx512(r, n, d, s1 + h * r * NK, NK, k + h * GS, LK, o1 + h * r * LQ,
								    LQ);
					}
					if (memcmp(s, s1, sizeof(s)) != 0 && bad++ < 5)
						TH_LOG("qk g8 %d r %d nh %d n %d d %lld: scores differ", g8, r, nh, n, (long long)d);
					if (memcmp(o, o1, sizeof(o)) != 0 && bad++ < 5)
						TH_LOG("pv g8 %d r %d nh %d n %d d %lld: outputs differ", g8, r, nh, n, (long long)d);
				}
	EXPECT_EQ(bad, 0);
}

/* The AVX2 keys-outermost forms (one row per head, attn-x86.c): the bits of
 * gk_fa_qk_f16_avx2 / gk_fa_pv_f16_avx2 with one row on each head; head
 * counts through the 8-head tiles and their rest, head dimensions with a
 * tail past the last multiple of 8, prefetch counts short of, at and past
 * the keys. */
TEST(flash_attn_decode_heads_avx2_bits)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	enum { LQ = 136, NH = 19, NK = 21, GS = 144, LK = NH * GS + 8 };
	static const int64_t ds[] = { 8, 20, 64, 72, 128, 133 };
	static const int ns[] = { 1, 5, 8, 21 };
	static float q[NH * LQ], s[NH * NK], s1[NH * NK], o[NH * LQ], o1[NH * LQ], o0[NH * LQ];
	static uint16_t k[NK * LK];
	for (int i = 0; i < NH * LQ; i++) {
		q[i] = frand(-1.0f, 1.0f);
		o0[i] = frand(-2.0f, 2.0f);
	}
	for (int i = 0; i < NK * LK; i++)
		k[i] = ggml_fp32_to_fp16(frand(-1.0f, 1.0f));
	int bad = 0;
	for (int nh = 1; nh <= NH; nh++)
		for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
			for (size_t b = 0; b < sizeof(ds) / sizeof(ds[0]); b++) {
				const int n = ns[a];
				const int npf = (int)(a + b) % 3 == 0 ? 0 : (int)(a + b) % 3 == 1 ? n : n + 7;
				const int64_t d = ds[b];
				memset(s, 0, sizeof(s));
				memset(s1, 0, sizeof(s1));
				gk_fa_qk_f16_heads_avx2(nh, n, d, q, LQ, k, LK, GS, s, NK, npf);
				memcpy(o, o0, sizeof(o));
				memcpy(o1, o0, sizeof(o1));
				gk_fa_pv_f16_heads_avx2(nh, n, d, s, NK, k, LK, GS, o, LQ, npf);
				for (int h = 0; h < nh; h++) {
					gk_fa_qk_f16_avx2(1, n, d, q + h * LQ, LQ, k + h * GS, LK, s1 + h * NK, NK);
					gk_fa_pv_f16_avx2(1, n, d, s1 + h * NK, NK, k + h * GS, LK, o1 + h * LQ, LQ);
				}
				if (memcmp(s, s1, sizeof(s)) != 0 && bad++ < 5)
					TH_LOG("qk nh %d n %d d %lld: scores differ", nh, n, (long long)d);
				if (memcmp(o, o1, sizeof(o)) != 0 && bad++ < 5)
					TH_LOG("pv nh %d n %d d %lld: outputs differ", nh, n, (long long)d);
			}
	EXPECT_EQ(bad, 0);
}

/* The same for Q8_0 and Q4_0 K/V rows (attn-quant-avx512.c): the bits of
 * the one-row kernels on each head */
TEST(flash_attn_decode_heads_quant_bits)
{
	if (!(ggml_cpu_isa()->use_avx512f && ggml_cpu_isa()->avx512_bwvl))
		SKIP(return, "no AVX512F/BW/VL");
	enum { LQ = 160, NH = 11, NK = 9, DM = 160, GS = 200 /* bytes, >= 5 Q8_0 blocks */, LK = NH * GS + 8 };
	static float q[NH * LQ], s[NH * NK], s1[NH * NK], o[NH * LQ], o1[NH * LQ], o0[NH * LQ], tmp[DM];
	static char kq[2][NK * LK];
	for (int i = 0; i < NH * LQ; i++) {
		q[i] = frand(-1.0f, 1.0f);
		o0[i] = frand(-2.0f, 2.0f);
	}
	for (int t = 0; t < 2; t++)
		for (int j = 0; j < NK; j++)
			for (int h = 0; h < NH; h++) {
				for (int l = 0; l < DM; l++)
					tmp[l] = frand(-1.0f, 1.0f);
				ggml_quantize_chunk(t ? GGML_TYPE_Q4_0 : GGML_TYPE_Q8_0, tmp, kq[t] + j * LK + h * GS, 0, 1, DM,
						    NULL);
			}
	int bad = 0;
	for (int t = 0; t < 2; t++)
		for (int nh = 1; nh <= NH; nh++)
			for (int n = 1; n <= NK; n += 4)
				for (int64_t d = 32; d <= DM; d += 64) {
					const int npf = (nh + n) % 3 == 0 ? 0 : (nh + n) % 3 == 1 ? n : n + 7;
					memset(s, 0, sizeof(s));
					memset(s1, 0, sizeof(s1));
					memcpy(o, o0, sizeof(o));
					memcpy(o1, o0, sizeof(o1));
					if (t) {
						gk_fa_qk_q4_0_heads_avx512(nh, n, d, q, LQ, kq[t], LK, GS, s, NK, npf);
						gk_fa_pv_q4_0_heads_avx512(nh, n, d, s, NK, kq[t], LK, GS, o, LQ, npf);
					} else {
						gk_fa_qk_q8_0_heads_avx512(nh, n, d, q, LQ, kq[t], LK, GS, s, NK, npf);
						gk_fa_pv_q8_0_heads_avx512(nh, n, d, s, NK, kq[t], LK, GS, o, LQ, npf);
					}
					for (int h = 0; h < nh; h++) {
						if (t) {
							gk_fa_qk_q4_0_avx512(1, n, d, q + h * LQ, LQ, kq[t] + h * GS, LK, s1 + h * NK, NK);
							gk_fa_pv_q4_0_avx512(1, n, d, s1 + h * NK, NK, kq[t] + h * GS, LK, o1 + h * LQ, LQ);
						} else {
							gk_fa_qk_q8_0_avx512(1, n, d, q + h * LQ, LQ, kq[t] + h * GS, LK, s1 + h * NK, NK);
							gk_fa_pv_q8_0_avx512(1, n, d, s1 + h * NK, NK, kq[t] + h * GS, LK, o1 + h * LQ, LQ);
						}
					}
					if (memcmp(s, s1, sizeof(s)) != 0 && bad++ < 5)
						TH_LOG("%s qk nh %d n %d d %lld: scores differ", t ? "q4_0" : "q8_0", nh, n, (long long)d);
					if (memcmp(o, o1, sizeof(o)) != 0 && bad++ < 5)
						TH_LOG("%s pv nh %d n %d d %lld: outputs differ", t ? "q4_0" : "q8_0", nh, n, (long long)d);
				}
	EXPECT_EQ(bad, 0);
}
#endif

/* RoPE's cosines and sines: the bits of gk_cosf/gk_sinf, also for angles
 * past the vector range (scalar), NaN, every tail */
TEST(vector_sincos)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C or NEON");
	enum { N = 1000 };
	static float th[N], cs[2 * N];
	for (int i = 0; i < N; i++)
		th[i] = i < 500 ? frand(-10, 10) : i < 900 ? frand(-5000, 5000) : frand(-1e7f, 1e7f);
	th[7] = -0.0f;
	th[8] = 0.0f;
	th[9] = NAN;
	th[10] = 0.785398163f; /* quadrant edges */
	th[11] = -2.35619449f;
	for (int len = 0; len <= N; len += len < 40 ? 1 : N - 40) {
		VK(gk_sincos)(len, th, 1.25f, cs);
		int bad = 0;
		for (int i = 0; i < len; i++) {
			const float c = gk_cosf(th[i]) * 1.25f, s = gk_sinf(th[i]) * 1.25f;
			if (memcmp(&cs[2 * i], &c, 4) || memcmp(&cs[2 * i + 1], &s, 4)) {
				if (!bad++)
					TH_LOG("len %d theta[%d] = %.9g: %.9g %.9g, expected %.9g %.9g", len, i, th[i],
					       cs[2 * i], cs[2 * i + 1], c, s);
			}
		}
		EXPECT_EQ(bad, 0);
	}
}

#if defined(__x86_64__)
/* the non-temporal forms give the bits of the ordinary ones, any alignment */
TEST(vector_nt_stores)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	enum { N = 1100 };
	static float x[N + 8], y[N + 8], z[N + 8];
	for (int i = 0; i < N + 8; i++)
		x[i] = frand(-5, 5);
	for (int len = 0; len <= N; len += len < 80 ? 1 : 1020) {
		for (int off = 0; off < 8; off++) {
			float *yo = y + off;
			gk_copy_nt_avx2(len, x, yo);
			EXPECT_EQ(memcmp(yo, x, len * sizeof(float)), 0) TH_LOG("copy len %d off %d", len, off);
			gk_scale_bias_avx2(len, x, 0.3f, -1.0f, z);
			gk_scale_bias_nt_avx2(len, x, 0.3f, -1.0f, yo);
			EXPECT_EQ(memcmp(yo, z, len * sizeof(float)), 0) TH_LOG("scale_bias len %d off %d", len, off);
			gk_centre_scale_avx2(len, x, 0.25f, 1.5f, z);
			gk_centre_scale_nt_avx2(len, x, 0.25f, 1.5f, yo);
			EXPECT_EQ(memcmp(yo, z, len * sizeof(float)), 0) TH_LOG("centre_scale len %d off %d", len, off);
			memcpy(yo, x, len * sizeof(float));
			gk_centre_scale_nt_avx2(len, yo, 0.25f, 1.5f, yo);
			EXPECT_EQ(memcmp(yo, z, len * sizeof(float)), 0) TH_LOG("centre_scale in place len %d", len);
		}
	}
}

/* The element-wise ops' non-temporal forms for large outputs (issue 16):
 * the bits of the ordinary forms at every offset of the output from a
 * 32-byte boundary and every tail: the binary ops (in place too), the
 * F16/BF16 -> F32 conversions (NaN, infinities, subnormals among the
 * inputs); nothing written outside. NORM's AVX512 two-row step: its write
 * and the next row's sum, and the centred sum of squares. */
TEST(vector_nt_eltwise)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	enum { N = 1100, G = 16 };
	static float x[N + G], y[N + G], z[N + G] __attribute__((aligned(64))), w[N + G] __attribute__((aligned(64)));
	static uint16_t h[N + G], b[N + G];
	for (int i = 0; i < N + G; i++) {
		x[i] = frand(-5, 5);
		y[i] = frand(0.5f, 3);
		h[i] = ggml_fp32_to_fp16(frand(-70000, 70000));
		b[i] = (uint16_t)(urand() * 65536.0);
	}
	h[3] = 0x7c00; h[4] = 0xfc00; h[5] = 0x7e01; h[6] = 0x0001; h[7] = 0x83ff; h[9] = 0x7c01;
	b[3] = 0x7f80; b[4] = 0xff81; b[5] = 0x0001;
	const float canary = -1234.5f;
	for (int len = 0; len <= N; len += len < 80 ? 1 : 1020) {
		for (int off = 0; off < 8; off++) {
			float *zo = z + off;
			for (int op = GK_ADD; op <= GK_DIV; op++) {
				gk_binary_avx2((enum gk_binop)op, len, x, y, w);
				for (int i = 0; i < N + G; i++)
					z[i] = canary;
				gk_binary_nt_avx2((enum gk_binop)op, len, x, y, zo);
				EXPECT_EQ(memcmp(zo, w, len * sizeof(float)), 0) TH_LOG("binary %d len %d off %d", op, len, off);
				EXPECT_EQ(z[off + len], canary) TH_LOG("binary %d len %d off %d: past the end", op, len, off);
				if (off)
					EXPECT_EQ(z[off - 1], canary) TH_LOG("binary %d len %d off %d: before", op, len, off);
				memcpy(zo, x, len * sizeof(float));
				gk_binary_nt_avx2((enum gk_binop)op, len, zo, y, zo);
				EXPECT_EQ(memcmp(zo, w, len * sizeof(float)), 0) TH_LOG("binary %d in place len %d", op, len);
			}
			for (int t = 0; t < 2; t++) {
				if (t == 0)
					gk_fp16_to_fp32_row_f16c(h + off, w, len);
				else
					gk_bf16_to_fp32_row_avx2(b + off, w, len);
				for (int i = 0; i < N + G; i++)
					z[i] = canary;
				if (t == 0)
					gk_fp16_to_fp32_row_nt_f16c(h + off, zo, len);
				else
					gk_bf16_to_fp32_row_nt_avx2(b + off, zo, len);
				EXPECT_EQ(memcmp(zo, w, len * sizeof(float)), 0) TH_LOG("%s len %d off %d", t ? "bf16" : "f16", len, off);
				EXPECT_EQ(z[off + len], canary) TH_LOG("%s len %d off %d: past the end", t ? "bf16" : "f16", len, off);
				if (off)
					EXPECT_EQ(z[off - 1], canary) TH_LOG("%s len %d off %d: before", t ? "bf16" : "f16", len, off);
			}
		}
		/* NORM's two-row step (AVX512): z 32-byte aligned, as op_norm asks */
		if (ggml_cpu_isa()->use_vnni256) {
			const double sm = gk_centre_scale_nt_sum_avx512(len, x, 0.25f, 1.5f, z, y);
			const double smr = gk_sum_f64_avx2(len, y);
			gk_centre_scale_avx2(len, x, 0.25f, 1.5f, w);
			EXPECT_EQ(memcmp(z, w, len * sizeof(float)), 0) TH_LOG("centre_scale_nt_sum len %d", len);
			EXPECT_EQ(memcmp(&sm, &smr, sizeof sm), 0) TH_LOG("sum len %d: %.17g %.17g", len, sm, smr);
			memcpy(z, x, len * sizeof(float));
			gk_centre_scale_nt_sum_avx512(len, z, 0.25f, 1.5f, z, z);
			EXPECT_EQ(memcmp(z, w, len * sizeof(float)), 0) TH_LOG("centre_scale_nt_sum in place len %d", len);
			const float q2 = gk_sumsq_dev_avx2(len, y, -0.4f), q5 = gk_sumsq_dev_avx512(len, y, -0.4f);
			EXPECT_EQ(memcmp(&q2, &q5, sizeof q2), 0) TH_LOG("sumsq_dev len %d: %.9g %.9g", len, q2, q5);
			const double u2 = gk_sum_f64_avx2(len, x + 1), u5 = gk_sum_f64_avx512(len, x + 1);
			EXPECT_EQ(memcmp(&u2, &u5, sizeof u2), 0) TH_LOG("sum_f64 len %d: %.17g %.17g", len, u2, u5);
		}
	}
}

/* NORM/RMS_NORM's pipelined steps: the write of one row gives the bits of
 * gk_scale_bias_avx2 (b = 0) and gk_centre_scale_avx2, the sums over the
 * other rows those of gk_dot_f32_avx2, gk_sumsq_dev_avx2 and
 * gk_sum_f64_avx2 (y 32-byte aligned, or x itself) */
TEST(vector_norm_pipe)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	enum { N = 4104 };
	static float x[N], xn[N], x1[N], z[N];
	static float y[N] __attribute__((aligned(32)));
	for (int i = 0; i < N; i++) {
		x[i] = frand(-5, 5);
		xn[i] = frand(-3, 7);
		x1[i] = frand(-1e3, 1e4);
	}
	x[1] = -0.0f;
	for (int len = 0; len <= N; len += len < 80 ? 1 : len < 4096 ? 1011 : 8) {
		const float ss = gk_scale_nt_sumsq_avx2(len, x, 0.3f, y, xn), ssr = gk_dot_f32_avx2(len, xn, xn);
		gk_scale_bias_avx2(len, x, 0.3f, 0.0f, z);
		EXPECT_EQ(memcmp(y, z, len * sizeof(float)), 0) TH_LOG("scale len %d", len);
		EXPECT_EQ(memcmp(&ss, &ssr, sizeof ss), 0) TH_LOG("sumsq len %d: %.9g %.9g", len, ss, ssr);
		float s1;
		const double sm = gk_norm_step_nt_avx2(len, x, 0.25f, 1.5f, y, xn, -0.4f, &s1, x1);
		const double smr = gk_sum_f64_avx2(len, x1);
		const float s1r = gk_sumsq_dev_avx2(len, xn, -0.4f);
		gk_centre_scale_avx2(len, x, 0.25f, 1.5f, z);
		EXPECT_EQ(memcmp(y, z, len * sizeof(float)), 0) TH_LOG("centre_scale len %d", len);
		EXPECT_EQ(memcmp(&sm, &smr, sizeof sm), 0) TH_LOG("sum len %d: %.17g %.17g", len, sm, smr);
		EXPECT_EQ(memcmp(&s1, &s1r, sizeof s1), 0) TH_LOG("sumsq_dev len %d: %.9g %.9g", len, s1, s1r);
		/* in place */
		memcpy(y, x, len * sizeof(float));
		gk_norm_step_nt_avx2(len, y, 0.25f, 1.5f, y, xn, -0.4f, &s1, x1);
		EXPECT_EQ(memcmp(y, z, len * sizeof(float)), 0) TH_LOG("centre_scale in place len %d", len);
	}
}
#endif
#endif

#if defined(__x86_64__) || defined(__aarch64__)
/* The one-column products on several blocks (gk_gemv1_*, decode): every
 * block's rows the same bits as the same ISA's few-column tiles give with
 * n = 1 (the multi-stream loop only reorders which rows are read when),
 * one to four blocks of 1 to 6 rows far apart (the blocks given in
 * reverse order, so that a mixed-up block shows), K around the vector
 * widths and the two-step loops, rows ldb apart past their values. The
 * values between the blocks' rows in the destination stay untouched. Rows
 * at any offset from a cache line, then all on lines (rows a multiple of
 * 64 bytes apart: AVX-512 F32 takes 512-bit loads only there). */
struct gemv1_impl {
	const char *name;
	int t; /* 0 F32, 1 F16, 2 BF16 weights */
	bool bf16y;
	gk_gemv1_fn gemv1;
	void (*gemv_f)(int64_t, const float *, int64_t, int, int, const float *, int64_t, float *, int64_t);
	void (*gemv_h)(int64_t, const uint16_t *, int64_t, int, int, const float *, int64_t, float *, int64_t);
	void (*gemv_b)(int64_t, const uint16_t *, int64_t, int, int, const uint16_t *, int64_t, float *, int64_t);
};

TEST(gemv1_exact)
{
	struct gemv1_impl im[7];
	int ni = 0;
#if defined(__aarch64__)
	im[ni++] = (struct gemv1_impl){ "f32 neon", 0, false, gk_gemv1_f32_neon, gk_gemv_f32_neon, NULL, NULL };
	im[ni++] = (struct gemv1_impl){ "f16 neon", 1, false, gk_gemv1_f16_neon, NULL, gk_gemv_f16_neon, NULL };
	im[ni++] = (struct gemv1_impl){ "bf16 neon", 2, false, gk_gemv1_bf16_neon, NULL, gk_gemv_bf16_neon, NULL };
#else
	if (!ggml_cpu_fast_x86())
		SKIP(return, "no AVX2/FMA/F16C");
	im[ni++] = (struct gemv1_impl){ "f32 avx2", 0, false, gk_gemv1_f32_avx2, gk_gemv_f32_avx2, NULL, NULL };
	im[ni++] = (struct gemv1_impl){ "f16 avx2", 1, false, gk_gemv1_f16_avx2, NULL, gk_gemv_f16_avx2, NULL };
	im[ni++] = (struct gemv1_impl){ "bf16 avx2", 2, false, gk_gemv1_bf16_avx2, NULL, gk_gemv_bf16_avx2, NULL };
	if (ggml_cpu_isa()->use_avx512f) {
		im[ni++] = (struct gemv1_impl){ "f32 avx512", 0, false, gk_gemv1_f32_avx512, gk_gemv_f32_avx512, NULL,
						NULL };
		im[ni++] = (struct gemv1_impl){ "f16 avx512", 1, false, gk_gemv1_f16_avx512, NULL, gk_gemv_f16_avx512,
						NULL };
		im[ni++] = (struct gemv1_impl){ "bf16 avx512", 2, false, gk_gemv1_bf16_avx512, NULL,
						gk_gemv_bf16_avx512, NULL };
	}
	if (ggml_cpu_isa()->use_bf16dp)
		im[ni++] = (struct gemv1_impl){ "bf16 avx512bf16", 2, true, gk_gemv1_bf16_bf16_avx512bf16, NULL, NULL,
						gk_gemv_bf16_bf16_avx512bf16 };
#endif
	static const int64_t ks[] = { 1, 7, 8, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 96, 100, 129, 257, 1000 };
	int checked = 0;
	for (int i = 0; i < ni; i++) {
		const size_t es = im[i].t == 0 ? 4 : 2;
		for (size_t kk = 0; kk < 2 * sizeof(ks) / sizeof(ks[0]); kk++) {
			const size_t nk = sizeof(ks) / sizeof(ks[0]);
			const bool lines = kk >= nk; /* every row on a cache line */
			const int64_t k = ks[kk % nk];
			const int64_t ldw = lines ? (k + 5 + 63) / 64 * 64 : k + 5; /* elements */
			const int m = 1 + (int)(kk % 6), ns = 1 + (int)(kk % 4);
			const int64_t gap = 3 * m; /* rows from one block to the next */
			const int64_t nrows = gap * 4;
			void *w = lines ? aligned_alloc(64, es * ldw * nrows) : malloc(es * ldw * nrows);
			for (int64_t e = 0; e < ldw * nrows; e++) {
				const float f = frand(-1, 1);
				if (im[i].t == 0)
					((float *)w)[e] = f;
				else
					((uint16_t *)w)[e] = im[i].t == 1 ? gk_fp32_to_fp16(f) : gk_fp32_to_bf16(f);
			}
			float *yf = malloc(sizeof(float) * k);
			uint16_t *yb = malloc(sizeof(uint16_t) * k);
			for (int64_t e = 0; e < k; e++) {
				yb[e] = gk_fp32_to_bf16(frand(-1, 1));
				yf[e] = im[i].bf16y ? gk_bf16_to_fp32(yb[e]) : frand(-1, 1);
			}
			float *d = malloc(sizeof(float) * nrows), *r = malloc(sizeof(float) * nrows);
			for (int64_t e = 0; e < nrows; e++)
				d[e] = r[e] = -7.0f;
			const void *wb[4];
			float *db[4];
			for (int s = 0; s < ns; s++) {
				const int64_t row0 = gap * (ns - 1 - s) + s % 2; /* reverse order */
				wb[s] = (const char *)w + es * ldw * row0;
				db[s] = d + row0;
				if (im[i].gemv_f)
					im[i].gemv_f(k, wb[s], ldw, m, 1, yf, k, r + row0, 1);
				else if (im[i].gemv_h)
					im[i].gemv_h(k, wb[s], ldw, m, 1, yf, k, r + row0, 1);
				else
					im[i].gemv_b(k, wb[s], ldw, m, 1, yb, k, r + row0, 1);
			}
			im[i].gemv1(k, ns, wb, es * ldw, m, im[i].bf16y ? (const void *)yb : (const void *)yf, db);
			EXPECT_EQ(memcmp(d, r, sizeof(float) * nrows), 0)
				TH_LOG("%s k %lld, %d blocks of %d rows%s", im[i].name, (long long)k, ns, m,
				       lines ? ", rows on cache lines" : "");
			checked++;
			free(w); free(yf); free(yb); free(d); free(r);
		}
	}
	EXPECT_GT(checked, 0);
}
#endif

#if defined(__x86_64__)
/* The AVX512-BF16 GEMM: BF16 rows packed into a panel, columns of BF16
 * activations; products are exact in F32, the sums F32 */
TEST(gemm_bf16_avx512)
{
	if (!ggml_cpu_isa()->use_bf16dp)
		SKIP(return, "no AVX512-BF16");
	/* m columns, n rows (<= 32), k (even) */
	static const int shapes[][3] = { { 1, 1, 2 }, { 12, 32, 256 }, { 13, 17, 38 }, { 27, 31, 600 }, { 3, 16, 2 },
					 { 64, 20, 254 }, { 7, 1, 100 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
		const int lda = k + 6, ldw = k + 4, ldc = n + 3;
		uint16_t *a = malloc(sizeof(uint16_t) * m * lda), *w = malloc(sizeof(uint16_t) * n * ldw);
		uint32_t *panel = malloc(sizeof(uint32_t) * 32 * (k / 2));
		float *c = malloc(sizeof(float) * m * ldc), *ci = malloc(sizeof(float) * m * ldc);
		for (int i = 0; i < m * lda; i++) a[i] = gk_fp32_to_bf16(frand(-1, 1));
		for (int i = 0; i < n * ldw; i++) w[i] = gk_fp32_to_bf16(frand(-1, 1));
		for (int i = 0; i < m * ldc; i++) ci[i] = c[i] = frand(-1, 1);
		gk_bf16_pack_panel_avx512bf16(w, ldw, n, k, panel);
		/* prefetching the weights (a hint: changes no result) */
		gk_gemm_nt_bf16_avx512bf16(m, n, k, a, lda, panel, c, ldc, w, ldw * sizeof(uint16_t), n,
					   k * sizeof(uint16_t));
		for (int j = 0; j < m; j++) {
			for (int i = 0; i < n; i++) {
				double r = ci[j * ldc + i];
				for (int l = 0; l < k; l++)
					r += (double)gk_bf16_to_fp32(a[j * lda + l]) * gk_bf16_to_fp32(w[i * ldw + l]);
				EXPECT_NEAR(c[j * ldc + i], r, 1e-5 * (1 + k / 64.0));
			}
			for (int i = n; i < ldc; i++) /* past the rows: untouched */
				EXPECT_EQ(c[j * ldc + i], ci[j * ldc + i]);
		}
		free(a); free(w); free(panel); free(c); free(ci);
	}
}
#endif

#if defined(__x86_64__)
/* The AVX512F float GEMM: F32, F16 and BF16 rows packed (widened) into a
 * panel of 32 rows per K value, F32 columns; against sums in double of the
 * same values. Shapes around the 16 x 16 transposes, the 32-row panel and
 * the 12-column tiles; leading dimensions past the values */
TEST(gemm_f32_avx512)
{
	if (!ggml_cpu_isa()->use_avx512f)
		SKIP(return, "no AVX512F");
	/* m columns, n rows (<= 32), k */
	static const int shapes[][3] = { { 1, 1, 1 }, { 12, 32, 256 }, { 13, 17, 38 }, { 27, 31, 600 }, { 3, 16, 16 },
					 { 64, 20, 255 }, { 7, 1, 100 }, { 25, 9, 15 }, { 14, 32, 33 } };
	for (int wt = 0; wt < 3; wt++) {
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
			const int lda = k + 6, ldw = k + 3, ldc = n + 3;
			float *a = malloc(sizeof(float) * m * lda), *wf = malloc(sizeof(float) * n * ldw);
			uint16_t *wh = malloc(sizeof(uint16_t) * n * ldw);
			float *panel = malloc(sizeof(float) * 32 * k);
			float *c = malloc(sizeof(float) * m * ldc), *ci = malloc(sizeof(float) * m * ldc);
			for (int i = 0; i < m * lda; i++) a[i] = frand(-1, 1);
			for (int i = 0; i < n * ldw; i++) {
				/* the values the packed type holds, in wf */
				wh[i] = wt == 1 ? gk_fp32_to_fp16(frand(-1, 1)) : gk_fp32_to_bf16(frand(-1, 1));
				wf[i] = wt == 0 ? frand(-1, 1) : wt == 1 ? gk_fp16_to_fp32(wh[i]) : gk_bf16_to_fp32(wh[i]);
			}
			for (int i = 0; i < m * ldc; i++) ci[i] = c[i] = frand(-1, 1);
			for (int i = 0; i < 32 * k; i++) panel[i] = NAN; /* rows past n must be written */
			if (wt == 0) gk_f32_pack_panel_avx512(wf, ldw, n, k, panel);
			else if (wt == 1) gk_f16_pack_panel_avx512(wh, ldw, n, k, panel);
			else gk_bf16_pack_panel_avx512(wh, ldw, n, k, panel);
			int bad = 0;
			for (int l = 0; l < k; l++)
				for (int i = 0; i < 32; i++) {
					const float e = i < n ? wf[i * ldw + l] : 0.0f;
					if (memcmp(&panel[l * 32 + i], &e, sizeof(e)) && !bad++)
						TH_LOG("type %d %dx%d: panel[%d][%d] %g, expected %g", wt, n, k, l, i,
						       panel[l * 32 + i], e);
				}
			EXPECT_EQ(bad, 0);
			gk_gemm_nt_f32p_avx512(m, n, k, a, lda, panel, c, ldc, wf, ldw * sizeof(float), n, k * sizeof(float));
			for (int j = 0; j < m; j++) {
				for (int i = 0; i < n; i++) {
					double r = ci[j * ldc + i];
					for (int l = 0; l < k; l++)
						r += (double)a[j * lda + l] * wf[i * ldw + l];
					if (!(fabs(c[j * ldc + i] - r) <= 1e-5 * (1 + k / 64.0)) && !bad++)
						TH_LOG("type %d m %d n %d k %d: C[%d][%d] %g, expected %g", wt, m, n, k,
						       j, i, c[j * ldc + i], r);
				}
				for (int i = n; i < ldc; i++) /* past the rows: untouched */
					EXPECT_EQ(c[j * ldc + i], ci[j * ldc + i]);
			}
			EXPECT_EQ(bad, 0);
			free(a); free(wf); free(wh); free(panel); free(c); free(ci);
		}
	}
}
#endif

TEST(gemm_tile)
{
	/* odd m, n, k and leading dimensions larger than k */
	static const int shapes[][3] = { { 1, 1, 1 }, { 5, 7, 9 }, { 4, 3, 8 }, { 13, 11, 37 }, { 9, 17, 300 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
		const int lda = k + 3, ldb = k + 5, ldc = n + 2;
		float *a = malloc(sizeof(float) * m * lda), *b = malloc(sizeof(float) * n * ldb);
		float *c0 = malloc(sizeof(float) * m * ldc), *c1 = malloc(sizeof(float) * m * ldc);
		float *ci = malloc(sizeof(float) * m * ldc); /* C before: the GEMM adds to it */
		for (int i = 0; i < m * lda; i++) a[i] = frand(-1, 1);
		for (int i = 0; i < n * ldb; i++) b[i] = frand(-1, 1);
		for (int i = 0; i < m * ldc; i++) ci[i] = c0[i] = c1[i] = frand(-1, 1);
		gk_gemm_nt_f32(m, n, k, a, lda, b, ldb, c0, ldc);
#if defined(__x86_64__)
		if (simd_ok()) gk_gemm_nt_f32_avx2(m, n, k, a, lda, b, ldb, c1, ldc);
		else gk_gemm_nt_f32(m, n, k, a, lda, b, ldb, c1, ldc);
#elif defined(__aarch64__)
		gk_gemm_nt_f32_neon(m, n, k, a, lda, b, ldb, c1, ldc);
#else
		gk_gemm_nt_f32(m, n, k, a, lda, b, ldb, c1, ldc);
#endif
		for (int i = 0; i < m; i++) {
			for (int j = 0; j < n; j++) {
				double r = ci[i * ldc + j];
				for (int l = 0; l < k; l++) r += (double)a[i * lda + l] * b[j * ldb + l];
				EXPECT_NEAR(c0[i * ldc + j], r, 1e-5 * (1 + k / 64.0));
				EXPECT_NEAR(c1[i * ldc + j], r, 1e-5 * (1 + k / 64.0));
			}
			for (int j = n; j < ldc; j++) { /* outside the tile: untouched */
				EXPECT_EQ(c0[i * ldc + j], ci[i * ldc + j]);
				EXPECT_EQ(c1[i * ldc + j], ci[i * ldc + j]);
			}
		}
		free(a); free(b); free(c0); free(c1); free(ci);
	}
}

/* ---- quantization -------------------------------------------------------- */

TEST(activation_quantizers)
{
	const int64_t n = 256 * 4;
	float x[256 * 4], y[256 * 4];
	gk_block_q8_0 q8[256 * 4 / 32];
	gk_block_q4_0 q4[256 * 4 / 32];
	gk_block_q8_K qk[4];

	for (int64_t i = 0; i < n; i++)
		x[i] = frand(-3, 3) * (i < 32 ? 0.0f : 1.0f); /* first block all zero */

	gk_quantize_row_q8_0(x, q8, n);
	gk_dequantize_row_q8_0(q8, y, n);
	for (int64_t b = 0; b < n / 32; b++) {
		float amax = 0;
		for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(x[b * 32 + j]));
		for (int j = 0; j < 32; j++) /* half a step plus the fp16 rounding of d */
			ASSERT_LE(fabsf(y[b * 32 + j] - x[b * 32 + j]), amax / 127 * 0.5f + amax * 1e-3f + 1e-30f);
	}

	gk_quantize_row_q4_0(x, q4, n);
	gk_dequantize_row_q4_0(q4, y, n);
	for (int64_t b = 0; b < n / 32; b++) {
		float amax = 0;
		for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(x[b * 32 + j]));
		for (int j = 0; j < 32; j++)
			ASSERT_LE(fabsf(y[b * 32 + j] - x[b * 32 + j]), amax / 8 * 1.001f + 1e-30f /* -max maps to 7 steps: one full step off */);
	}

	gk_quantize_row_q8_K(x, qk, n);
	gk_dequantize_row_q8_K(qk, y, n);
	for (int64_t b = 0; b < n / 256; b++) {
		float amax = 0;
		for (int j = 0; j < 256; j++) amax = fmaxf(amax, fabsf(x[b * 256 + j]));
		for (int j = 0; j < 256; j++)
			ASSERT_LE(fabsf(y[b * 256 + j] - x[b * 256 + j]), amax / 127 * 0.5f * 1.0001f + 1e-30f);
		for (int j = 0; j < 16; j++) {
			int s = 0;
			for (int l = 0; l < 16; l++) s += qk[b].qs[16 * j + l];
			ASSERT_EQ(qk[b].bsums[j], s);
		}
	}
}

/*
 * Inputs for the SIMD activation quantizers: blocks of random values, of
 * zeros, of values whose largest magnitude appears twice with both signs
 * (the reference keeps the first), of values that land half-way between two
 * steps (the reference rounds away from zero), of -0, tiny and huge values.
 */
static void quant_inputs(float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		x[i] = frand(-3, 3);
	for (int64_t b = 0; b < n / 256; b++) {
		float *xb = x + b * 256;
		switch (b % 8) {
		case 0: /* zeros, and a zero 32-block */
			for (int j = 0; j < 256; j++)
				xb[j] = j < 128 ? 0.0f : (j < 160 ? -0.0f : xb[j]);
			break;
		case 1: /* largest magnitude twice: negative first, then positive */
			xb[37] = -4.0f;
			xb[200] = 4.0f;
			xb[5] = 4.0f; /* in another 32-block: Q8_0 sees it alone */
			break;
		case 2: /* positive first, in the last lane of a vector */
			xb[15] = 5.0f;
			xb[16] = -5.0f;
			xb[255] = -5.0f;
			break;
		case 3: /* scale 1 (max -127 for Q8_K, amax 127 for Q8_0): halves */
			for (int j = 0; j < 256; j++)
				xb[j] = (float)((j * 37) % 253 - 126) + (j % 2 ? 0.5f : -0.5f);
			for (int j = 0; j < 256; j += 32)
				xb[j] = -127.0f;
			break;
		case 4: /* tiny and huge (normal) values */
			for (int j = 0; j < 256; j++)
				xb[j] *= j < 128 ? 1e-30f : 1e30f;
			break;
		case 5: /* one value, the rest -0 */
			for (int j = 0; j < 256; j++)
				xb[j] = -0.0f;
			xb[99] = -0.001f;
			break;
		case 6: /* both signs in one vector (4, 8 or 16 lanes) */
			xb[65] = -6.0f;
			xb[66] = 6.0f;
			break;
		case 7:
			xb[64] = 6.0f;
			xb[67] = -6.0f;
			break;
		default:
			break;
		}
	}
}

struct qk_impl {
	const char *name;
	void (*fn)(const float *, gk_block_q8_K *, int64_t);
	int ok;
};

struct qx_impl {
	const char *name;
	void (*fn)(const float *, gk_block_q8_0x *, int64_t, int32_t);
	int ok;
};

/* The SIMD activation quantizers give the same bytes as the portable ones. */
TEST(activation_quantizers_simd_exact)
{
	const int64_t n = 256 * 16;
	float *x = malloc(sizeof(float) * n);
	gk_block_q8_K *k0 = malloc(sizeof(gk_block_q8_K) * (n / 256)), *k1 = malloc(sizeof(gk_block_q8_K) * (n / 256));
	gk_block_q8_0 *q0 = malloc(sizeof(gk_block_q8_0) * (n / 32));
	gk_block_q8_0x *qx = malloc(sizeof(gk_block_q8_0x) * (n / 32));
	int tested = 0;
	quant_inputs(x, n);
	gk_quantize_row_q8_K(x, k0, n);
	gk_quantize_row_q8_0(x, q0, n);

	/* Q8_K */
	struct qk_impl kq[3];
	int nk = 0;
#if defined(__x86_64__)
	kq[nk++] = (struct qk_impl){ "avx2", gk_quantize_row_q8_K_avx2, ggml_cpu_fast_x86() };
	kq[nk++] = (struct qk_impl){ "avx512", gk_quantize_row_q8_K_avx512, ggml_cpu_isa()->use_vnni256 };
#elif defined(__aarch64__)
	kq[nk++] = (struct qk_impl){ "neon", gk_quantize_row_q8_K_neon, ggml_cpu_isa()->neon };
#endif
	for (int i = 0; i < nk; i++) {
		if (!kq[i].ok)
			continue;
		memset(k1, 0x55, sizeof(gk_block_q8_K) * (n / 256));
		kq[i].fn(x, k1, n);
		for (int64_t ib = 0; ib < n / 256; ib++) {
			EXPECT_EQ(0, memcmp(&k0[ib], &k1[ib], sizeof(k0[ib])))
				TH_LOG("q8_K %s: block %lld differs", kq[i].name, (long long)ib);
		}
		tested++;
	}

	/* Q8_0x: the Q8_0 values, d as the float of its fp16, corr = -off * sum */
	struct qx_impl xq[3];
	int nx = 0;
#if defined(__x86_64__)
	xq[nx++] = (struct qx_impl){ "avx2", gk_quantize_row_q8_0x_avx2, ggml_cpu_fast_x86() };
	xq[nx++] = (struct qx_impl){ "vnni", gk_quantize_row_q8_0x_vnni, ggml_cpu_isa()->use_vnni256 };
#elif defined(__aarch64__)
	xq[nx++] = (struct qx_impl){ "neon", gk_quantize_row_q8_0x_neon, ggml_cpu_isa()->neon };
#endif
	for (int i = 0; i < nx; i++) {
		if (!xq[i].ok)
			continue;
		xq[i].fn(x, qx, n, 8);
		for (int64_t ib = 0; ib < n / 32; ib++) {
			int sum = 0;
			for (int j = 0; j < 32; j++)
				sum += q0[ib].qs[j];
			EXPECT_EQ(0, memcmp(q0[ib].qs, qx[ib].qs, 32)) TH_LOG("q8_0x %s: block %lld", xq[i].name, (long long)ib);
			EXPECT_EQ(ggml_fp16_to_fp32(q0[ib].d), qx[ib].d) TH_LOG("q8_0x %s: block %lld", xq[i].name, (long long)ib);
			EXPECT_EQ(-8 * sum, qx[ib].corr) TH_LOG("q8_0x %s: block %lld", xq[i].name, (long long)ib);
		}
		tested++;
	}

	/* Q8_0 and Q8_1 (the activations of the other quantized types) */
	{
		gk_block_q8_0 *q1 = malloc(sizeof(gk_block_q8_0) * (n / 32));
		gk_block_q8_1 *r0 = malloc(sizeof(gk_block_q8_1) * (n / 32)), *r1 = malloc(sizeof(gk_block_q8_1) * (n / 32));
		gk_quantize_row_q8_1(x, r0, n);
		int simd = 0;
#if defined(__x86_64__)
		if (ggml_cpu_fast_x86()) {
			gk_quantize_row_q8_0_avx2(x, q1, n);
			gk_quantize_row_q8_1_avx2(x, r1, n);
			simd = 1;
		}
#elif defined(__aarch64__)
		if (ggml_cpu_isa()->neon) {
			gk_quantize_row_q8_0_neon(x, q1, n);
			gk_quantize_row_q8_1_neon(x, r1, n);
			simd = 1;
		}
#endif
		for (int64_t ib = 0; simd && ib < n / 32; ib++) {
			EXPECT_EQ(0, memcmp(&q0[ib], &q1[ib], sizeof(q0[ib]))) TH_LOG("q8_0: block %lld", (long long)ib);
			EXPECT_EQ(0, memcmp(&r0[ib], &r1[ib], sizeof(r0[ib]))) TH_LOG("q8_1: block %lld", (long long)ib);
		}
		tested += simd;
		free(q1); free(r0); free(r1);
	}
	if (!tested)
		TH_LOG("no SIMD quantizer on this CPU: nothing compared");
	free(x); free(k0); free(k1); free(q0); free(qx);
}

/* quantized weights (from the core's reference quantizers) x Q8 activations */
TEST(quant_dots)
{
	const enum ggml_type types[] = { GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	const int64_t n = 256 * 7;
	float *w = malloc(n * 4), *a = malloc(n * 4), *wd = malloc(n * 4), *ad = malloc(n * 4);
	void *wq = malloc(n * 2), *aq = malloc(n * 2);
	int simd = simd_ok();
#if defined(__aarch64__)
	int dotprod_checked = 0;
#endif

	for (int t = 0; t < 4; t++) {
		for (int rep = 0; rep < 3; rep++) {
			for (int64_t i = 0; i < n; i++) {
				w[i] = frand(-1, 1) * (rep == 2 ? 100.0f : 1.0f);
				a[i] = frand(-2, 2);
			}
			ggml_quantize_chunk(types[t], w, wq, 0, 1, n, NULL);
			ggml_get_type_traits(types[t])->to_float(wq, wd, n);
			const int k_type = types[t] == GGML_TYPE_Q4_K || types[t] == GGML_TYPE_Q6_K;
			if (k_type) {
				gk_quantize_row_q8_K(a, aq, n);
				gk_dequantize_row_q8_K(aq, ad, n);
			} else {
				gk_quantize_row_q8_0(a, aq, n);
				gk_dequantize_row_q8_0(aq, ad, n);
			}
			double r = 0, mag = 0, rx = 0;
			for (int64_t i = 0; i < n; i++) {
				r += (double)wd[i] * ad[i];
				rx += (double)wd[i] * a[i];
				mag += fabs((double)wd[i] * ad[i]);
			}
			float s_ref = 0, s_simd = 0;
			switch (types[t]) {
			case GGML_TYPE_Q8_0: s_ref = gk_dot_q8_0_q8_0(n, wq, aq); break;
			case GGML_TYPE_Q4_0: s_ref = gk_dot_q4_0_q8_0(n, wq, aq); break;
			case GGML_TYPE_Q4_K: s_ref = gk_dot_q4_K_q8_K(n, wq, aq); break;
			default:             s_ref = gk_dot_q6_K_q8_K(n, wq, aq); break;
			}
			s_simd = s_ref;
#if defined(__x86_64__)
			if (simd) {
				switch (types[t]) {
				case GGML_TYPE_Q8_0: s_simd = gk_dot_q8_0_q8_0_avx2(n, wq, aq); break;
				case GGML_TYPE_Q4_0: s_simd = gk_dot_q4_0_q8_0_avx2(n, wq, aq); break;
				case GGML_TYPE_Q4_K: s_simd = gk_dotk_q4_K_q8_K_avx2(n, wq, aq); break;
				default:             s_simd = gk_dotk_q6_K_q8_K_avx2(n, wq, aq); break;
				}
			}
#elif defined(__aarch64__)
			switch (types[t]) {
			case GGML_TYPE_Q8_0: s_simd = gk_dot_q8_0_q8_0_neon(n, wq, aq); break;
			case GGML_TYPE_Q4_0: s_simd = gk_dot_q4_0_q8_0_neon(n, wq, aq); break;
			case GGML_TYPE_Q4_K: s_simd = gk_dot_q4_K_q8_K_neon(n, wq, aq); break;
			default:             s_simd = gk_dot_q6_K_q8_K_neon(n, wq, aq); break;
			}
#endif
			(void)simd;
			/* same math on the dequantized values: only float rounding differs */
			EXPECT_NEAR(s_ref, r, 2e-6 * mag + 1e-6);
			EXPECT_NEAR(s_simd, r, 2e-6 * mag + 1e-6);
#if defined(__aarch64__)
			/* the SDOT K-quant dots, where the CPU (or qemu) has them */
			if (k_type && ggml_cpu_has_dotprod()) {
				const float s_dp = types[t] == GGML_TYPE_Q4_K ? gk_dot_q4_K_q8_K_dotprod(n, wq, aq) :
										gk_dot_q6_K_q8_K_dotprod(n, wq, aq);
				EXPECT_NEAR(s_dp, r, 2e-6 * mag + 1e-6);
				dotprod_checked++;
			}
#endif
			/* against the unquantized activations: the Q8 rounding, a few % at most */
			EXPECT_NEAR(s_simd, rx, 0.01 * mag + 1e-3);
		}
	}
#if defined(__aarch64__)
	TH_LOG("SDOT K-quant dots checked: %d", dotprod_checked);
#endif
	free(w); free(a); free(wd); free(ad); free(wq); free(aq);
}

#if defined(__x86_64__)
/* four Q8_0/Q4_0 rows at once against the single-row kernel */
TEST(quant_dot4_rows)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	const int64_t n = 32 * 37;
	float *w = malloc(4 * n * 4), *a = malloc(n * 4);
	gk_block_q8_0 *aq = malloc(n / 32 * sizeof(gk_block_q8_0));
	for (int t = 0; t < 2; t++) {
		const enum ggml_type type = t ? GGML_TYPE_Q4_0 : GGML_TYPE_Q8_0;
		const size_t rs = ggml_row_size(type, n) + 6 * 18 * 34; /* padded row stride */
		char *wq = malloc(4 * rs);
		for (int64_t i = 0; i < 4 * n; i++) w[i] = frand(-1, 1);
		for (int64_t i = 0; i < n; i++) a[i] = frand(-1, 1);
		for (int r = 0; r < 4; r++)
			ggml_quantize_chunk(type, w + r * n, wq + r * rs, 0, 1, n, NULL);
		gk_quantize_row_q8_0(a, aq, n);
		float s4[4];
		if (t) gk_dot4_q4_0_q8_0_avx2(n, wq, rs, aq, s4);
		else gk_dot4_q8_0_q8_0_avx2(n, wq, rs, aq, s4);
		for (int r = 0; r < 4; r++) {
			float s1 = t ? gk_dot_q4_0_q8_0(n, (const gk_block_q4_0 *)(wq + r * rs), aq)
				     : gk_dot_q8_0_q8_0(n, (const gk_block_q8_0 *)(wq + r * rs), aq);
			EXPECT_NEAR(s4[r], s1, 1e-4 * (fabs(s1) + 1));
		}
		free(wq);
	}
	free(w); free(a); free(aq);
}
#endif

#if defined(__x86_64__)
/*
 * MUL_MAT's Q4_K/Q6_K dots (quant-kdot-x86.c) against the portable dot:
 * the integer sums are exact, only the float accumulation order differs. Large scales and mins (weights up to 100, an offset so
 * that the mins matter), activations with an offset (bsums matter), and
 * rows of 1 to 7 superblocks.
 */
TEST(quant_dotk_rows)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	const int64_t nmax = 256 * 7;
	float *w = malloc(nmax * 4), *a = malloc(nmax * 4);
	gk_block_q8_K *aq = malloc(nmax / 256 * sizeof(gk_block_q8_K));
	char *wq = malloc(ggml_row_size(GGML_TYPE_Q6_K, nmax));
	int checked512 = 0;
	for (int t = 0; t < 2; t++) {
		const enum ggml_type type = t ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
		for (int rep = 0; rep < 8; rep++) {
			const int64_t n = 256 * (1 + rep % 7);
			const float scale = rep % 4 == 3 ? 100.0f : 1.0f;
			const float shift = rep % 4 == 2 ? 0.7f : 0.0f;
			for (int64_t i = 0; i < n; i++) {
				w[i] = (frand(-1, 1) + shift) * scale;
				a[i] = frand(-1, 1) + (rep % 4 == 1 ? 0.5f : 0.0f);
			}
			ggml_quantize_chunk(type, w, wq, 0, 1, n, NULL);
			gk_quantize_row_q8_K(a, aq, n);
			const float s_ref = t ? gk_dot_q6_K_q8_K(n, (const gk_block_q6_K *)wq, aq)
					      : gk_dot_q4_K_q8_K(n, (const gk_block_q4_K *)wq, aq);
			const float s_new = t ? gk_dotk_q6_K_q8_K_avx2(n, (const gk_block_q6_K *)wq, aq)
					      : gk_dotk_q4_K_q8_K_avx2(n, (const gk_block_q4_K *)wq, aq);
			double mag = 0;
			for (int64_t i = 0; i < n; i++)
				mag += fabs((double)w[i] * a[i]);
			if (fabs(s_new - s_ref) > 1e-6 * mag + 1e-5)
				TH_LOG("%s n %lld rep %d: %g vs %g", t ? "q6_K" : "q4_K", (long long)n, rep, s_new, s_ref);
			EXPECT_NEAR(s_new, s_ref, 1e-6 * mag + 1e-5);
			/* the AVX512-VNNI dots (quant-k-avx512.c), where the CPU has them */
			if (ggml_cpu_isa()->use_vnni256) {
				const float s_512 = t ? gk_dot_q6_K_q8_K_avx512(n, (const gk_block_q6_K *)wq, aq)
						      : gk_dot_q4_K_q8_K_avx512(n, (const gk_block_q4_K *)wq, aq);
				if (fabs(s_512 - s_ref) > 1e-6 * mag + 1e-5)
					TH_LOG("%s avx512 n %lld rep %d: %g vs %g", t ? "q6_K" : "q4_K", (long long)n, rep,
					       s_512, s_ref);
				EXPECT_NEAR(s_512, s_ref, 1e-6 * mag + 1e-5);
				checked512++;
			}
		}
	}
	TH_LOG("AVX512 K-quant dots checked: %d", checked512);
	free(w); free(a); free(aq); free(wq);
}

/*
 * The four-row Q4_K/Q5_K/Q6_K dots (MUL_MAT's long rows; Q6_K's stream form,
 * its one-column path): each row's value is the one-row dot's, bit for bit
 * (the 512-bit Q6_K stream form: within 1e-6 of the sum of |w * a|), with rows apart by more than their length
 * (views) and rows long enough that the prefetches run past their end.
 */
TEST(quant_dotk_four_rows)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	static const int64_t lens[] = { 256, 256 * 5, 256 * 37 };
	const int64_t nmax = 256 * 37, pad = 200;
	float *w = malloc(4 * nmax * 4), *a = malloc(nmax * 4);
	gk_block_q8_K *aq = malloc(nmax / 256 * sizeof(gk_block_q8_K));
	char *wq = malloc(4 * (ggml_row_size(GGML_TYPE_Q6_K, nmax) + pad));
	int checked = 0;
	for (int t = 0; t < 3; t++) {
		const enum ggml_type type = t == 2 ? GGML_TYPE_Q5_K : t ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			const int64_t n = lens[l];
			const size_t bx = ggml_row_size(type, n) + (l == 1 ? pad : 0);
			for (int r = 0; r < 4; r++) {
				for (int64_t i = 0; i < n; i++)
					w[r * nmax + i] = (frand(-1, 1) + (r == 2 ? 0.7f : 0.0f)) * (r == 3 ? 100.0f : 1.0f);
				ggml_quantize_chunk(type, w + r * nmax, wq + r * bx, 0, 1, n, NULL);
			}
			for (int64_t i = 0; i < n; i++)
				a[i] = frand(-1, 1) + 0.25f;
			gk_quantize_row_q8_K(a, aq, n);
			for (int isa = 0; isa < 2; isa++) {
				if (isa == 1 && !ggml_cpu_isa()->use_vnni256)
					continue;
				float s4[4], s4s[4] = { 0, 0, 0, 0 };
				if (t == 1)
					/* the stream form (one column of plain Q6_K): the same
					 * values, its prefetch running on into a next row */
					(isa ? gk_dot4s_q6_K_q8_K_avx512 : gk_dot4s_q6_K_q8_K_avx2)(n, wq, bx, bx / 3, aq, s4s);
				if (t == 2)
					(isa ? gk_dot4_q5_K_q8_K_avx512 : gk_dot4_q5_K_q8_K_avx2)(n, wq, bx, aq, s4);
				else if (t)
					(isa ? gk_dot4_q6_K_q8_K_avx512 : gk_dot4_q6_K_q8_K_avx2)(n, wq, bx, aq, s4);
				else
					(isa ? gk_dot4_q4_K_q8_K_avx512 : gk_dot4_q4_K_q8_K_avx2)(n, wq, bx, aq, s4);
				for (int r = 0; r < 4; r++) {
					const void *row = wq + r * bx;
					const float s1 =
						t == 2 ? (isa ? gk_dot_q5_K_q8_K_avx512 : gk_dot_q5_K_q8_K_avx2)(n, row, aq)
						: t	 ? (isa ? gk_dot_q6_K_q8_K_avx512 : gk_dotk_q6_K_q8_K_avx2)(n, row, aq)
							 : (isa ? gk_dot_q4_K_q8_K_avx512 : gk_dotk_q4_K_q8_K_avx2)(n, row, aq);
					if (memcmp(&s1, &s4[r], sizeof(float)) != 0)
						TH_LOG("%s %s n %lld row %d: four-row %.9g, one-row %.9g", ggml_type_name(type),
						       isa ? "avx512" : "avx2", (long long)n, r, s4[r], s1);
					EXPECT_EQ(memcmp(&s1, &s4[r], sizeof(float)), 0);
					if (t == 1 && !isa) {
						if (memcmp(&s1, &s4s[r], sizeof(float)) != 0)
							TH_LOG("q6_K avx2 n %lld row %d: streams %.9g, one-row %.9g", (long long)n, r,
							       s4s[r], s1);
						EXPECT_EQ(memcmp(&s1, &s4s[r], sizeof(float)), 0);
					} else if (t == 1) {
						/* the 512-bit stream form: the same integer sums
						 * per super-block, another float order */
						double mag = 0;
						for (int64_t i = 0; i < n; i++)
							mag += fabs((double)w[r * nmax + i] * a[i]);
						if (fabs(s4s[r] - s1) > 1e-6 * mag + 1e-5)
							TH_LOG("q6_K avx512 n %lld row %d: streams %.9g, one-row %.9g", (long long)n, r,
							       s4s[r], s1);
						EXPECT_NEAR(s4s[r], s1, 1e-6 * mag + 1e-5);
					}
					checked++;
				}
			}
		}
	}
	TH_LOG("four-row K-quant dots checked: %d rows", checked);
	free(w); free(a); free(aq); free(wq);
}

/*
 * The eight-row Q8_0/Q4_0 dots with AVX512-VNNI (MUL_MAT's decode path,
 * quant-avx512.c) against a scalar model of their arithmetic, bit for bit:
 * per row and block four int32 lanes (lane k: values 4k..4k+3 and
 * 16+4k..16+4k+3; Q4_0: the nibbles 0..15 with corr = -8 * sum y in lane 0),
 * each converted and accumulated with one FMA by fp16(d_w) * d_y, and the
 * row's value (l0 + l1) + (l2 + l3). Every row count 1..8 (the rows past it
 * read the last row again, and s past it is not written), each row checked
 * at every position of the call, rows apart by more than their length,
 * rows of 1 block up to long enough that the prefetches run past the end,
 * Q8_0 weights of +-127 and activations with zeros and both signs; the same
 * with 1 to GK_DOT8_COLS + 1 activations at once (each its own kernel's
 * value; the activations and results strided), and nothing written past
 * the rows and columns asked for.
 */
static float dot8_model(bool q4, int64_t nb, const uint8_t *x, const gk_block_q8_0x *y)
{
	float acc[4] = { 0, 0, 0, 0 };
	const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
	for (int64_t i = 0; i < nb; i++) {
		const uint8_t *b = x + i * bsz;
		const float sc = gk_fp16_to_fp32((uint16_t)(b[0] | b[1] << 8)) * y[i].d;
		for (int k = 0; k < 4; k++) {
			int32_t t = q4 && k == 0 ? y[i].corr : 0;
			for (int j = 4 * k; j < 4 * k + 4; j++) {
				if (q4) {
					t += (b[2 + j] & 15) * y[i].qs[j] + (b[2 + j] >> 4) * y[i].qs[16 + j];
				} else {
					t += (int8_t)b[2 + j] * y[i].qs[j] + (int8_t)b[2 + 16 + j] * y[i].qs[16 + j];
				}
			}
			acc[k] = fmaf(sc, (float)t, acc[k]);
		}
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

TEST(quant_dot8_vnni_rows)
{
	if (!ggml_cpu_isa()->use_vnni256)
		SKIP(return, "no AVX512-VNNI");
	static const int64_t nbs[] = { 1, 2, 7, 64, 301 };
	const int64_t nbmax = 301, ys = nbmax + 3, ss = 11;
	const int cmax = GK_DOT8_COLS + 1;
	const size_t pad = 50; /* rows apart by more than their length */
	float *a = malloc(nbmax * 32 * 4);
	gk_block_q8_0x *y = malloc(cmax * ys * sizeof(*y));
	uint8_t *w = malloc(8 * (nbmax * 34 + pad));
	float *s = malloc(cmax * ss * sizeof(float));
	int checked = 0, checkedc = 0;
	for (int t = 0; t < 2; t++) {
		const bool q4 = t == 1;
		const size_t bsz = q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0);
		for (size_t l = 0; l < sizeof(nbs) / sizeof(nbs[0]); l++) {
			const int64_t nb = nbs[l], n = nb * 32;
			const size_t bx = nb * bsz + pad;
			for (size_t i = 0; i < 8 * bx; i++)
				w[i] = (uint8_t)(urand() * 256);
			for (int r = 0; r < 8; r++)
				for (int64_t i = 0; i < nb; i++) {
					uint8_t *b = w + r * bx + i * bsz;
					const uint16_t d = gk_fp32_to_fp16(frand(-2, 2) * (l == 4 ? 100.0f : 1.0f));
					b[0] = d & 255;
					b[1] = d >> 8;
					for (int j = 0; !q4 && j < 32; j++) {
						const int v = j == (int)(i % 32) ? (i % 2 ? 127 : -127) : (int)(urand() * 255) - 127;
						b[2 + j] = (uint8_t)(int8_t)v;
					}
				}
			float want[GK_DOT8_COLS + 1][8];
			for (int c = 0; c < cmax; c++) {
				for (int64_t i = 0; i < n; i++)
					a[i] = i % 5 == c % 3 ? 0.0f : frand(-3, 3) * (i % 97 == 0 ? 50.0f : 1.0f);
				gk_quantize_row_q8_0x_vnni(a, y + c * ys, n, q4 ? 8 : 128);
				for (int r = 0; r < 8; r++)
					want[c][r] = dot8_model(q4, nb, w + r * bx, y + c * ys);
			}
			for (int nr = 1; nr <= 8; nr++)
				for (int r0 = 0; r0 + nr <= 8; r0++)
					for (int nc = 0; nc <= cmax; nc++) {
						/* nc 0: the one-activation kernel */
						for (int k = 0; k < cmax * ss; k++)
							s[k] = -12345.0f;
						if (nc == 0)
							(q4 ? gk_dot8_q4_0_q8x_vnni : gk_dot8_q8_0_q8x_vnni)(n, w + r0 * bx, bx, nr, y, s);
						else
							(q4 ? gk_dot8c_q4_0_q8x_vnni : gk_dot8c_q8_0_q8x_vnni)(n, w + r0 * bx, bx, nr, y, ys,
														nc, s, ss);
						for (int c = 0; c < cmax; c++)
							for (int k = 0; k < ss; k++) {
								const float *g = &s[c * ss + k];
								if (c < (nc ? nc : 1) && k < nr) {
									if (memcmp(g, &want[c][r0 + k], sizeof(float)) != 0)
										TH_LOG("%s nb %lld nrows %d first %d ncols %d: col %d row %d: %.9g, expected %.9g",
										       q4 ? "q4_0" : "q8_0", (long long)nb, nr, r0, nc, c, k, *g,
										       want[c][r0 + k]);
									EXPECT_EQ(memcmp(g, &want[c][r0 + k], sizeof(float)), 0);
									if (nc)
										checkedc++;
									else
										checked++;
								} else if (*g != -12345.0f) {
									TH_LOG("nrows %d ncols %d wrote col %d row %d", nr, nc, c, k);
									EXPECT_EQ(*g, -12345.0f);
								}
							}
					}
		}
	}
	TH_LOG("eight-row VNNI dots checked: %d rows one activation, %d rows x activations", checked, checkedc);
	free(a); free(y); free(w); free(s);
}

/*
 * One column on plain Q4_0 rows with AVX512-VNNI (MUL_MAT's decode path,
 * gk_gemv_q4_0_vnni on the column packed by gk_q4v_pack_y) against a
 * scalar model of its arithmetic, bit for bit: 16 float lanes per row,
 * lane 4b + k of step i (blocks 4i..4i+3) taking block 4i + b's int32 sum
 * of values 4k..4k+3 and 16+4k..16+4k+3 (nibbles times the column's bytes;
 * lane 0 of each block starts at corr = -8 * its sum) with one FMA by
 * fp16(d_w) * d_y (blocks past the row: 0 * 0), then the lanes summed by
 * halves (i + 8, i + 4, i + 2, i + 1). 1 to GK_Q4V_STREAMS streams, each in
 * its own buffer that ends where its last row does, 1-3 rows per stream,
 * rows of 1 to 301 blocks (every tail of a step of four), nothing written
 * past the rows asked for.
 */
static float q4v_model(int64_t nb, const uint8_t *x, const gk_block_q8_0x *y)
{
	float v[16] = { 0 };
	for (int64_t i = 0; i < (nb + 3) / 4; i++)
		for (int b = 0; b < 4; b++) {
			const int64_t bi = 4 * i + b;
			const uint8_t *blk = x + bi * sizeof(gk_block_q4_0);
			const float sc = bi < nb ? gk_fp16_to_fp32((uint16_t)(blk[0] | blk[1] << 8)) * y[bi].d : 0.0f * 0.0f;
			for (int k = 0; k < 4; k++) {
				int32_t t = bi < nb && k == 0 ? y[bi].corr : 0;
				for (int j = 4 * k; bi < nb && j < 4 * k + 4; j++)
					t += (blk[2 + j] & 15) * y[bi].qs[j] + (blk[2 + j] >> 4) * y[bi].qs[16 + j];
				v[4 * b + k] = fmaf(sc, (float)t, v[4 * b + k]);
			}
		}
	float a[8], h[4];
	for (int i = 0; i < 8; i++)
		a[i] = v[i] + v[i + 8];
	for (int i = 0; i < 4; i++)
		h[i] = a[i] + a[i + 4];
	return (h[0] + h[2]) + (h[1] + h[3]);
}

TEST(quant_gemv_q4_0_vnni)
{
	if (!ggml_cpu_isa()->use_vnni256)
		SKIP(return, "no AVX512-VNNI");
	static const int64_t nbs[] = { 1, 2, 3, 4, 5, 7, 64, 301 };
	const int64_t nbmax = 301;
	const int smax = GK_Q4V_STREAMS, rmax = 3, pad = 5;
	float *a = malloc(nbmax * 32 * sizeof(float));
	gk_block_q8_0x *y = malloc(nbmax * sizeof(*y));
	void *ya = malloc(gk_q4v_y_size(nbmax * 32));
	int checked = 0;
	for (size_t l = 0; l < sizeof(nbs) / sizeof(nbs[0]); l++) {
		const int64_t nb = nbs[l], n = nb * 32;
		const size_t bx = nb * sizeof(gk_block_q4_0);
		uint8_t *w[GK_Q4V_STREAMS];
		float out[GK_Q4V_STREAMS][3 + 5];
		for (int g = 0; g < smax; g++) {
			w[g] = malloc(rmax * bx);
			for (size_t i = 0; i < rmax * bx; i++)
				w[g][i] = (uint8_t)(urand() * 256);
			for (int r = 0; r < rmax; r++)
				for (int64_t i = 0; i < nb; i++) {
					const uint16_t d = gk_fp32_to_fp16(frand(-2, 2) * (l == 7 ? 100.0f : 1.0f));
					w[g][r * bx + i * 18] = d & 255;
					w[g][r * bx + i * 18 + 1] = d >> 8;
				}
		}
		for (int64_t i = 0; i < n; i++)
			a[i] = i % 5 == 1 ? 0.0f : frand(-3, 3) * (i % 97 == 0 ? 50.0f : 1.0f);
		gk_quantize_row_q8_0x_vnni(a, y, n, 8);
		gk_q4v_pack_y(n, y, ya);
		for (int ns = 1; ns <= smax; ns++)
			for (int nr = 1; nr <= rmax; nr++) {
				const void *x[GK_Q4V_STREAMS];
				float *sp[GK_Q4V_STREAMS];
				for (int g = 0; g < ns; g++) {
					/* the last rows of each buffer */
					x[g] = w[g] + (rmax - nr) * bx;
					sp[g] = out[g];
					for (int k = 0; k < rmax + pad; k++)
						out[g][k] = -12345.0f;
				}
				gk_gemv_q4_0_vnni(n, ns, x, bx, nr, ya, sp);
				for (int g = 0; g < ns; g++)
					for (int k = 0; k < rmax + pad; k++) {
						if (k >= nr) {
							EXPECT_EQ(out[g][k], -12345.0f);
							continue;
						}
						const float want = q4v_model(nb, w[g] + (rmax - nr + k) * bx, y);
						if (memcmp(&out[g][k], &want, sizeof(float)) != 0)
							TH_LOG("nb %lld streams %d rows %d: stream %d row %d: %.9g, expected %.9g",
							       (long long)nb, ns, nr, g, k, out[g][k], want);
						EXPECT_EQ(memcmp(&out[g][k], &want, sizeof(float)), 0);
						checked++;
					}
			}
		for (int g = 0; g < smax; g++)
			free(w[g]);
	}
	TH_LOG("one-column plain Q4_0 VNNI rows checked: %d", checked);
	free(a); free(y); free(ya);
}

TEST(dequant_avx2)
{
	if (!simd_ok())
		SKIP(return, "no AVX2/FMA/F16C");
	const int64_t n = 32 * 21;
	float x[32 * 21], y0[32 * 21], y1[32 * 21];
	gk_block_q8_0 q8[21];
	gk_block_q4_0 q4[21];
	for (int64_t i = 0; i < n; i++)
		x[i] = frand(-5, 5);
	gk_quantize_row_q8_0(x, q8, n);
	gk_dequantize_row_q8_0(q8, y0, n);
	gk_dequantize_row_q8_0_avx2(q8, y1, n);
	EXPECT_EQ(memcmp(y0, y1, sizeof(y0)), 0);
	gk_quantize_row_q4_0(x, q4, n);
	gk_dequantize_row_q4_0(q4, y0, n);
	gk_dequantize_row_q4_0_avx2(q4, y1, n);
	EXPECT_EQ(memcmp(y0, y1, sizeof(y0)), 0);
}
#endif

/* The SIMD packers of CPU_REPACK (plain rows -> groups of 16 rows) give the
 * portable packers' bytes, on random bytes (every bit pattern is a valid
 * block for a packer), 1 to 9 blocks, row strides with padding, unaligned
 * rows and, for the K-quants, fewer than 16 rows (the rest packs as
 * zeros); the _nt packers write an aligned group. The source ends where the last row's blocks end, so that an
 * out-of-bounds load shows under ASan. */
typedef void (*pack_fn)(const void *src, size_t bx, int nrows, int64_t nb, void *dst);
static void pk_q8_0(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q8_0(s, bx, nb, d); }
static void pk_q4_0(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q4_0(s, bx, nb, d); }
#if defined(__x86_64__)
static void pk_q8_0_avx2(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q8_0_avx2(s, bx, nb, d); }
static void pk_q4_0_avx2(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q4_0_avx2(s, bx, nb, d); }
static void pk_q8_0_avx2_nt(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q8_0_avx2_nt(s, bx, nb, d); }
static void pk_q4_0_avx2_nt(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q4_0_avx2_nt(s, bx, nb, d); }
#endif
#if defined(__aarch64__)
static void pk_q8_0_neon(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q8_0_neon(s, bx, nb, d); }
static void pk_q4_0_neon(const void *s, size_t bx, int nr, int64_t nb, void *d) { (void)nr; gk_repack_q4_0_neon(s, bx, nb, d); }
#endif

struct packer {
	const char *name;
	size_t blk;	/* bytes of a plain block */
	int kq;		/* takes nrows < 16 */
	pack_fn ref, simd;
	int (*ok)(void);
};

static const struct packer packers[] = {
#if defined(__x86_64__)
	{ "q8_0 avx2", sizeof(gk_block_q8_0), 0, pk_q8_0, pk_q8_0_avx2, simd_ok },
	{ "q4_0 avx2", sizeof(gk_block_q4_0), 0, pk_q4_0, pk_q4_0_avx2, simd_ok },
	{ "q4_K avx2", sizeof(gk_block_q4_K), 1, gk_repack_q4_K, gk_repack_q4_K_avx2, simd_ok },
	{ "q6_K avx2", sizeof(gk_block_q6_K), 1, gk_repack_q6_K, gk_repack_q6_K_avx2, simd_ok },
	/* non-temporal stores: into a 32-byte aligned group */
	{ "q8_0 avx2 nt", sizeof(gk_block_q8_0), 0, pk_q8_0, pk_q8_0_avx2_nt, simd_ok },
	{ "q4_0 avx2 nt", sizeof(gk_block_q4_0), 0, pk_q4_0, pk_q4_0_avx2_nt, simd_ok },
	{ "q4_K avx2 nt", sizeof(gk_block_q4_K), 1, gk_repack_q4_K, gk_repack_q4_K_avx2_nt, simd_ok },
	{ "q6_K avx2 nt", sizeof(gk_block_q6_K), 1, gk_repack_q6_K, gk_repack_q6_K_avx2_nt, simd_ok },
#endif
#if defined(__aarch64__)
	{ "q8_0 neon", sizeof(gk_block_q8_0), 0, pk_q8_0, pk_q8_0_neon, simd_ok },
	{ "q4_0 neon", sizeof(gk_block_q4_0), 0, pk_q4_0, pk_q4_0_neon, simd_ok },
	{ "q4_K neon", sizeof(gk_block_q4_K), 1, gk_repack_q4_K, gk_repack_q4_K_neon, simd_ok },
	{ "q6_K neon", sizeof(gk_block_q6_K), 1, gk_repack_q6_K, gk_repack_q6_K_neon, simd_ok },
#endif
	{ NULL, 0, 0, NULL, NULL, NULL },
};

TEST(repack_packers)
{
	static const int nbs[] = { 1, 2, 3, 9 };
	static const size_t pads[] = { 0, 1, 35 };
	static const int nrs[] = { 16, 1, 5, 15 };
	int ran = 0;
	for (const struct packer *p = packers; p->name; p++) {
		if (!p->ok())
			continue;
		ran++;
		for (size_t ni = 0; ni < sizeof(nbs) / sizeof(nbs[0]); ni++)
		for (size_t pi = 0; pi < sizeof(pads) / sizeof(pads[0]); pi++)
		for (size_t ri = 0; ri < (p->kq ? sizeof(nrs) / sizeof(nrs[0]) : 1); ri++) {
			const int nb = nbs[ni], nr = nrs[ri];
			const size_t bx = nb * p->blk + pads[pi];
			const size_t n = (nr - 1) * bx + nb * p->blk;
			const size_t out = GK_RP_ROWS * nb * p->blk;
			uint8_t *buf = malloc(n + 1), *o0 = malloc(out);
			uint8_t *o1 = aligned_alloc(64, (out + 63) / 64 * 64);
			const uint8_t *src = buf + 1;	/* rows at odd addresses */
			for (size_t i = 0; i < n + 1; i++)
				buf[i] = (uint8_t)(urand() * 256);
			memset(o0, 0xA5, out);
			memset(o1, 0x5A, out);
			p->ref(src, bx, nr, nb, o0);
			p->simd(src, bx, nr, nb, o1);
			size_t bad = 0;
			while (bad < out && o0[bad] == o1[bad])
				bad++;
			EXPECT_EQ(bad, out) TH_LOG("%s: %d blocks, stride %zu, %d rows: byte %zu differs",
						   p->name, nb, bx, nr, bad);
			free(buf); free(o0); free(o1);
		}
	}
	if (!ran)
		SKIP(return, "no SIMD packer on this CPU");
}

/*
 * The one-column product on up to GK_RP_STREAMS repacked groups at once
 * (gk_rp_gemv_*) against the same ISA's group GEMM with one column, group
 * by group: per group the same arithmetic, so the same bits. Groups far
 * apart in one buffer, random bytes and scales, accumulating into c.
 */
struct rp_gemv_impl {
	const char *name;
	bool q4;
	gk_rp_gemm_fn gemm;
	gk_rp_gemv_fn gemv;
	void (*quant)(const float *x, gk_block_q8_0x *y, int64_t n, int32_t off);
	int32_t off;
	bool ok;
};

TEST(repack_gemv_exact)
{
	struct rp_gemv_impl im[4];
	int n = 0;
#if defined(__x86_64__)
	const bool avx2 = ggml_cpu_fast_x86(), vnni = avx2 && ggml_cpu_isa()->use_vnni256;
	im[n++] = (struct rp_gemv_impl){ "q8_0 avx2", false, gk_rp_gemm_q8_0_avx2, gk_rp_gemv_q8_0_avx2,
					 gk_quantize_row_q8_0x_avx2, 0, avx2 };
	im[n++] = (struct rp_gemv_impl){ "q4_0 avx2", true, gk_rp_gemm_q4_0_avx2, gk_rp_gemv_q4_0_avx2,
					 gk_quantize_row_q8_0x_avx2, 8, avx2 };
	im[n++] = (struct rp_gemv_impl){ "q8_0 vnni", false, gk_rp_gemm_q8_0_vnni, gk_rp_gemv_q8_0_vnni,
					 gk_quantize_row_q8_0x_vnni, 128, vnni };
	im[n++] = (struct rp_gemv_impl){ "q4_0 vnni", true, gk_rp_gemm_q4_0_vnni, gk_rp_gemv_q4_0_vnni,
					 gk_quantize_row_q8_0x_vnni, 8, vnni };
#elif defined(__aarch64__)
	const bool dp = ggml_cpu_isa()->neon && ggml_cpu_isa()->use_dotprod;
	im[n++] = (struct rp_gemv_impl){ "q8_0 dotprod", false, gk_rp_gemm_q8_0_dotprod, gk_rp_gemv_q8_0_dotprod,
					 gk_quantize_row_q8_0x_neon, 0, dp };
	im[n++] = (struct rp_gemv_impl){ "q4_0 dotprod", true, gk_rp_gemm_q4_0_dotprod, gk_rp_gemv_q4_0_dotprod,
					 gk_quantize_row_q8_0x_neon, 8, dp };
#endif
	static const int nkbs[] = { 1, 3, 17 };
	int ran = 0;
	for (int i = 0; i < n; i++) {
		if (!im[i].ok)
			continue;
		ran++;
		const size_t gsz = GK_RP_ROWS * (im[i].q4 ? sizeof(gk_block_q4_0) : sizeof(gk_block_q8_0));
		for (size_t ki = 0; ki < sizeof(nkbs) / sizeof(nkbs[0]); ki++) {
			const int nkb = nkbs[ki];
			/* group g at g * (nkb + g) blocks: uneven gaps */
			const size_t nbytes = (size_t)(GK_RP_STREAMS * (nkb + GK_RP_STREAMS)) * gsz;
			uint8_t *buf = malloc(nbytes);
			for (size_t j = 0; j < nbytes; j++)
				buf[j] = (uint8_t)(urand() * 256);
			const void *grp[GK_RP_STREAMS];
			for (int g = 0; g < GK_RP_STREAMS; g++) {
				uint8_t *w = buf + (size_t)(g * (nkb + g)) * gsz;
				grp[g] = w;
				for (int b = 0; b < nkb; b++)
					for (int r = 0; r < GK_RP_ROWS; r++) {
						const ggml_fp16_t h = ggml_fp32_to_fp16(frand(-0.02f, 0.02f));
						memcpy(w + (size_t)b * gsz + 2 * r, &h, 2);
					}
			}
			float *x = malloc(sizeof(float) * 32 * nkb);
			gk_block_q8_0x *a = malloc(sizeof(gk_block_q8_0x) * nkb);
			for (int j = 0; j < 32 * nkb; j++)
				x[j] = frand(-1, 1);
			im[i].quant(x, a, 32 * nkb, im[i].off);
			for (int ng = 1; ng <= GK_RP_STREAMS; ng++) {
				float c0[GK_RP_STREAMS][GK_RP_ROWS], c1[GK_RP_STREAMS][GK_RP_ROWS];
				float *cp[GK_RP_STREAMS];
				for (int g = 0; g < GK_RP_STREAMS; g++) {
					for (int r = 0; r < GK_RP_ROWS; r++)
						c0[g][r] = c1[g][r] = frand(-1, 1);
					cp[g] = c1[g];
				}
				for (int g = 0; g < ng; g++)
					im[i].gemm(nkb, grp[g], GK_RP_ROWS, 1, a, nkb, c0[g], GK_RP_ROWS);
				im[i].gemv(nkb, ng, grp, a, cp);
				EXPECT_EQ(0, memcmp(c0, c1, sizeof(c0)))
					TH_LOG("%s: %d blocks, %d groups: differs from the one-column GEMM",
					       im[i].name, nkb, ng);
			}
			free(buf); free(x); free(a);
		}
	}
	if (!ran)
		SKIP(return, "no repacked one-column kernel on this CPU");
}

/*
 * The one-column products on 1-4 repacked Q4_K/Q6_K groups at once
 * (gk_rp_gemv_*_K_vnni, decode): each group's 16 values are the one-column
 * GEMM's (gk_rp_gemm_*_K_vnni with ncols = 1), bit for bit, added to what
 * c held; groups apart by various distances, several super-blocks.
 */
TEST(repack_gemv_k)
{
#if !defined(__x86_64__)
	SKIP(return, "x86-64 kernels");
#else
	if (!ggml_cpu_isa()->use_vnni256)
		SKIP(return, "no AVX512-VNNI");
	static const int nsbs[] = { 1, 4, 5 };
	const int nsb_max = 5, K = 256 * nsb_max, nblk = K / 32;
	float *x = malloc(K * sizeof(float));
	gk_block_q8_0x *a = malloc(nblk * sizeof(gk_block_q8_0x));
	float *as = malloc(nblk * sizeof(float));
	int32_t *hs = malloc(2 * nblk * sizeof(int32_t));
	int checked = 0;
	for (int t = 0; t < 2; t++) {
		const enum ggml_type type = t ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
		const size_t bx = ggml_row_size(type, K), gsz = GK_RP_ROWS * bx, gsb = GK_RP_ROWS * ggml_type_size(type);
		/* four groups, the second at an odd distance from the first */
		char *rows = malloc(GK_RP_ROWS * bx), *grps = malloc(4 * gsz + 4 * 64 + 7);
		const void *grp[GK_RP_STREAMS];
		for (int g = 0; g < 4; g++) {
			for (int r = 0; r < GK_RP_ROWS; r++) {
				for (int i = 0; i < K; i++)
					x[i] = (frand(-1, 1) + (r % 3 == 1 ? 0.6f : 0.0f)) * (r == 5 ? 30.0f : 1.0f);
				ggml_quantize_chunk(type, x, rows + r * bx, 0, 1, K, NULL);
			}
			char *dst = grps + g * (gsz + 64) + (g == 1 ? 7 : 0);
			(t ? gk_repack_q6_K : gk_repack_q4_K)(rows, bx, GK_RP_ROWS, nsb_max, dst);
			grp[g] = dst;
		}
		for (int i = 0; i < K; i++)
			x[i] = frand(-2, 2) * (i % 7 == 0 ? 8.0f : 1.0f);
		gk_quantize_row_q8_0x_vnni(x, a, K, 0);
		for (int b = 0; b < nblk; b++) {
			int32_t s0 = 0, s1 = 0;
			for (int k = 0; k < 16; k++) {
				s0 += a[b].qs[k];
				s1 += a[b].qs[16 + k];
			}
			as[b] = a[b].d * (float)(s0 + s1);
			hs[2 * b] = -32 * s0;
			hs[2 * b + 1] = -32 * s1;
		}
		for (size_t ni = 0; ni < sizeof(nsbs) / sizeof(nsbs[0]); ni++)
			for (int ng = 1; ng <= GK_RP_STREAMS; ng++)
				for (int off = 0; off < 2; off++) {
					/* from super-block off: each group offset to its first */
					const int nsb = nsbs[ni] - off;
					const void *gp[GK_RP_STREAMS];
					float c1[GK_RP_STREAMS][GK_RP_ROWS], cv[GK_RP_STREAMS][GK_RP_ROWS];
					float *cp[GK_RP_STREAMS];
					for (int g = 0; g < ng; g++) {
						/* (the groups in reverse order when off) */
						const int gi = off ? ng - 1 - g : g;
						gp[g] = (const char *)grp[gi] + off * gsb;
						for (int r = 0; r < GK_RP_ROWS; r++)
							c1[g][r] = cv[g][r] = frand(-1, 1);
						(t ? gk_rp_gemm_q6_K_vnni : gk_rp_gemm_q4_K_vnni)(
							nsb, gp[g], GK_RP_ROWS, 1, a + 8 * off,
							t ? (const void *)(hs + 16 * off) : (const void *)(as + 8 * off), nblk,
							c1[g], GK_RP_ROWS);
						cp[g] = cv[g];
					}
					(t ? gk_rp_gemv_q6_K_vnni : gk_rp_gemv_q4_K_vnni)(
						nsb, ng, gp, a + 8 * off,
						t ? (const void *)(hs + 16 * off) : (const void *)(as + 8 * off), cp);
					for (int g = 0; g < ng; g++) {
						const int ok = memcmp(c1[g], cv[g], sizeof(c1[g])) == 0;
						EXPECT_TRUE(ok) TH_LOG("%s nsb %d ng %d off %d group %d: row 0 %.9g, expected %.9g",
								       ggml_type_name(type), nsb, ng, off, g, cv[g][0], c1[g][0]);
						checked++;
					}
				}
		free(rows);
		free(grps);
	}
	TH_LOG("one-column K-quant group products checked: %d groups", checked);
	free(x); free(a); free(as); free(hs);
#endif
}

/* the public type traits: vec_dot on vec_dot_type rows */
TEST(type_traits_cpu)
{
	const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0,
					 GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
	const int64_t n = 512;
	float x[512], y[512], xd[512], yd[512];
	char xq[4096], yq[4096];
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		const struct ggml_type_traits_cpu *tr = ggml_get_type_traits_cpu(types[t]);
		ASSERT_NE(tr->vec_dot, NULL);
		ASSERT_NE(tr->from_float, NULL);
		ASSERT_EQ(tr->nrows, 1);
		const struct ggml_type_traits_cpu *trv = ggml_get_type_traits_cpu(tr->vec_dot_type);
		ASSERT_NE(trv->from_float, NULL);
		for (int i = 0; i < n; i++) { x[i] = frand(-1, 1); y[i] = frand(-1, 1); }
		tr->from_float(x, xq, n);
		trv->from_float(y, yq, n);
		if (types[t] == GGML_TYPE_F32)	/* no to_float in the table, as upstream */
			memcpy(xd, xq, sizeof(xd));
		else
			ggml_get_type_traits(types[t])->to_float(xq, xd, n);
		if (tr->vec_dot_type == GGML_TYPE_F32)
			memcpy(yd, yq, sizeof(yd));
		else if (tr->vec_dot_type == GGML_TYPE_Q8_K)
			gk_dequantize_row_q8_K((const gk_block_q8_K *)yq, yd, n);
		else
			ggml_get_type_traits(tr->vec_dot_type)->to_float(yq, yd, n);
		double r = 0, mag = 0;
		for (int i = 0; i < n; i++) { r += (double)xd[i] * yd[i]; mag += fabs((double)xd[i] * yd[i]); }
		float s = -1;
		tr->vec_dot(n, &s, 0, xq, 0, yq, 0, 1);
		EXPECT_NEAR(s, r, 2e-6 * mag + 1e-6);
	}
}

TEST_HARNESS_MAIN
