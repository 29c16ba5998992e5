// SPDX-License-Identifier: MIT
/*
 * fp16 and bf16 conversions, checked exhaustively over all 65536 inputs of
 * each format against a reference computed here in double precision: a
 * value is rounded to the format by scaling it to its quantum and calling
 * nearbyint() (round to nearest, ties to even), which shares no code with
 * the bit manipulation of the library.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "backends/cpu/kernels/gk-convert.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* ---- reference ----------------------------------------------------------- */

/* binary16 -> double, from the fields. */
static double ref_fp16_value(uint16_t h)
{
	int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, -24);
	else
		v = ldexp(1024 + m, e - 25);
	return sign ? -v : v;
}

/*
 * Round a finite double to a binary format with p significand bits, minimum
 * normal exponent emin (value = f * 2^e, f in [1, 2)) and largest finite
 * value max. Returns the rounded value, or +-inf on overflow.
 */
static double ref_round(double x, int p, int emin, double max)
{
	double ax = fabs(x), q, r;
	int e;

	if (ax == 0)
		return x;
	frexp(ax, &e); /* ax = f * 2^e, f in [0.5, 1) */
	e -= 1;        /* now f in [1, 2) */
	if (e < emin)
		e = emin;  /* subnormal range: fixed quantum */
	q = ldexp(1.0, e - (p - 1));
	r = nearbyint(ax / q) * q;
	if (r > max)
		r = INFINITY;
	return x < 0 ? -r : r;
}

static double ref_fp16_round(float x)
{
	return ref_round(x, 11, -14, 65504.0);
}

static double ref_bf16_round(float x)
{
	return ref_round(x, 8, -126, ldexp(255.0, 120)); /* (2 - 2^-7) * 2^127 */
}

/* ---- fp16 ---------------------------------------------------------------- */

TEST(fp16_to_fp32_exhaustive)
{
	for (uint32_t h = 0; h < 65536; h++) {
		float f = ggml_fp16_to_fp32((ggml_fp16_t)h);
		double ref = ref_fp16_value((uint16_t)h);

		if (isnan(ref)) {
			ASSERT_TRUE(isnan(f)) TH_LOG("h=%#06x", h);
			/* sign and payload carried over */
			ASSERT_EQ(h >> 15, f2u(f) >> 31);
			/* quiet, with the rest of the payload carried over */
			ASSERT_EQ(0x400000, f2u(f) & 0x400000) TH_LOG("h=%#06x", h);
			ASSERT_EQ(h & 0x1ff, (f2u(f) >> 13) & 0x1ff) TH_LOG("h=%#06x", h);
			continue;
		}
		ASSERT_EQ(ref, (double)f) TH_LOG("h=%#06x", h);
		ASSERT_EQ(signbit(ref) != 0, signbit(f) != 0) TH_LOG("h=%#06x", h);
	}
}

/* Every binary16 value, its neighbours in binary32 and the midpoints between
 * consecutive values: exact values round-trip, ties go to the even code.
 */
TEST(fp32_to_fp16_exhaustive)
{
	for (uint32_t h = 0; h < 65536; h++) {
		float f = ggml_fp16_to_fp32((ggml_fp16_t)h);
		float probes[3];

		if (isnan(f)) {
			ggml_fp16_t r = ggml_fp32_to_fp16(f);

			ASSERT_EQ(0x7c00, r & 0x7c00);
			ASSERT_NE(0, r & 0x3ff) TH_LOG("NaN %#06x became inf", h);
			ASSERT_EQ(h & 0x8000, r & 0x8000);
			continue;
		}
		ASSERT_EQ(h, ggml_fp32_to_fp16(f)) TH_LOG("exact h=%#06x", h);

		probes[0] = nextafterf(f, INFINITY);
		probes[1] = nextafterf(f, -INFINITY);
		/* midpoint to the next code of larger magnitude */
		probes[2] = (h & 0x7fff) < 0x7c00 ?
			(float)((ref_fp16_value((uint16_t)h) +
				 ref_fp16_value((uint16_t)(h + 1))) / 2) : f;
		if ((h & 0x7fff) == 0x7bff) /* past the largest finite */
			probes[2] = (h & 0x8000) ? -65520.0f : 65520.0f;
		for (int i = 0; i < 3; i++) {
			double ref = ref_fp16_round(probes[i]);
			ggml_fp16_t r = ggml_fp32_to_fp16(probes[i]);

			ASSERT_EQ(ref, ref_fp16_value(r))
				TH_LOG("h=%#06x probe %d x=%a got %#06x", h, i, probes[i], r);
			if (ref == 0) {
				ASSERT_EQ(signbit(probes[i]) != 0, (r >> 15) != 0);
			}
		}
	}
}

TEST(fp32_to_fp16_random)
{
	srand(1234);
	for (int i = 0; i < (1 << 20); i++) {
		uint32_t u = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
		float x = u2f(u);
		ggml_fp16_t r = ggml_fp32_to_fp16(x);

		if (isnan(x)) {
			ASSERT_TRUE(isnan(ggml_fp16_to_fp32(r)));
			continue;
		}
		ASSERT_EQ(ref_fp16_round(x), ref_fp16_value(r)) TH_LOG("x=%a got %#06x", x, r);
	}
}

/* ---- bf16 ---------------------------------------------------------------- */

TEST(bf16_to_fp32_exhaustive)
{
	for (uint32_t b = 0; b < 65536; b++) {
		ggml_bf16_t v = { (uint16_t)b };
		float f = ggml_bf16_to_fp32(v);

		ASSERT_EQ(b << 16, f2u(f)) TH_LOG("b=%#06x", b);
	}
}

TEST(fp32_to_bf16_exhaustive)
{
	for (uint32_t b = 0; b < 65536; b++) {
		ggml_bf16_t v = { (uint16_t)b };
		float f = ggml_bf16_to_fp32(v);
		float probes[3];

		if (isnan(f)) {
			ggml_bf16_t r = ggml_fp32_to_bf16(f);

			ASSERT_TRUE(isnan(ggml_bf16_to_fp32(r))) TH_LOG("b=%#06x", b);
			ASSERT_EQ(b & 0x8000, r.bits & 0x8000);
			/* quiet, and a payload with the top bits kept */
			ASSERT_NE(0, r.bits & 0x40);
			continue;
		}
		ASSERT_EQ(b, ggml_fp32_to_bf16(f).bits) TH_LOG("exact b=%#06x", b);

		probes[0] = nextafterf(f, INFINITY);
		probes[1] = nextafterf(f, -INFINITY);
		/* the midpoint: half a bf16 ulp, exactly representable */
		probes[2] = (b & 0x7fff) < 0x7f80 ? u2f((b << 16) + 0x8000) : f;
		for (int i = 0; i < 3; i++) {
			double ref = ref_bf16_round(probes[i]);
			ggml_bf16_t r = ggml_fp32_to_bf16(probes[i]);

			ASSERT_EQ(ref, (double)ggml_bf16_to_fp32(r))
				TH_LOG("b=%#06x probe %d x=%a got %#06x", b, i, probes[i], r.bits);
		}
	}
}

TEST(fp32_to_bf16_random)
{
	srand(99);
	for (int i = 0; i < (1 << 20); i++) {
		uint32_t u = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
		float x = u2f(u);
		ggml_bf16_t r = ggml_fp32_to_bf16(x);

		if (isnan(x)) {
			ASSERT_TRUE(isnan(ggml_bf16_to_fp32(r)));
			continue;
		}
		ASSERT_EQ(ref_bf16_round(x), (double)ggml_bf16_to_fp32(r))
			TH_LOG("x=%a got %#06x", x, r.bits);
	}
}

/* ---- rows: every implementation gives the scalar bits -------------------- */

typedef void (*to32_fn)(const uint16_t *, float *, int64_t);
typedef void (*from32_fn)(const float *, uint16_t *, int64_t);

struct row_impl {
	const char *name;
	to32_fn h2f, b2f;
	from32_fn f2h, f2b;
};

static void pub_h2f(const uint16_t *x, float *y, int64_t n) { ggml_fp16_to_fp32_row(x, y, n); }
static void pub_f2h(const float *x, uint16_t *y, int64_t n) { ggml_fp32_to_fp16_row(x, y, n); }
static void pub_b2f(const uint16_t *x, float *y, int64_t n) { ggml_bf16_to_fp32_row((const ggml_bf16_t *)x, y, n); }
static void pub_f2b(const float *x, uint16_t *y, int64_t n) { ggml_fp32_to_bf16_row(x, (ggml_bf16_t *)y, n); }
static void cpu_h2f(const uint16_t *x, float *y, int64_t n) { ggml_cpu_fp16_to_fp32(x, y, n); }
static void cpu_f2h(const float *x, uint16_t *y, int64_t n) { ggml_cpu_fp32_to_fp16(x, y, n); }
static void cpu_b2f(const uint16_t *x, float *y, int64_t n) { ggml_cpu_bf16_to_fp32((const ggml_bf16_t *)x, y, n); }
static void cpu_f2b(const float *x, uint16_t *y, int64_t n) { ggml_cpu_fp32_to_bf16(x, (ggml_bf16_t *)y, n); }
static void ref_f2b(const float *x, uint16_t *y, int64_t n) { ggml_fp32_to_bf16_row_ref(x, (ggml_bf16_t *)y, n); }

static int impls(struct row_impl *out)
{
	int n = 0;

	out[n++] = (struct row_impl){ "public", pub_h2f, pub_b2f, pub_f2h, pub_f2b };
	out[n++] = (struct row_impl){ "ggml_cpu", cpu_h2f, cpu_b2f, cpu_f2h, cpu_f2b };
	out[n++] = (struct row_impl){ "portable", gk_fp16_to_fp32_row, gk_bf16_to_fp32_row,
				      gk_fp32_to_fp16_row, gk_fp32_to_bf16_row };
	out[n++] = (struct row_impl){ "bf16_ref", gk_fp16_to_fp32_row, gk_bf16_to_fp32_row,
				      gk_fp32_to_fp16_row, ref_f2b };
#if defined(__x86_64__)
	{
		unsigned int a, b, c, d;

		__builtin_cpu_init();
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) &&
		    __builtin_cpu_supports("avx2"))
			out[n++] = (struct row_impl){ "avx2/f16c",
				gk_fp16_to_fp32_row_f16c, gk_bf16_to_fp32_row_avx2,
				gk_fp32_to_fp16_row_f16c, gk_fp32_to_bf16_row_avx2 };
	}
#endif
#if defined(__aarch64__)
	out[n++] = (struct row_impl){ "neon", gk_fp16_to_fp32_row_neon, gk_bf16_to_fp32_row_neon,
				      gk_fp32_to_fp16_row_neon, gk_fp32_to_bf16_row_neon };
#endif
	return n;
}

/* All 65536 codes, then random floats, at odd lengths and offsets. */
TEST(rows_match_scalar)
{
	enum { N = 65536 + 37 };
	uint16_t *codes = malloc(N * sizeof(*codes));
	uint16_t *out16 = malloc(N * sizeof(*out16));
	float *floats = malloc(N * sizeof(*floats));
	float *out32 = malloc(N * sizeof(*out32));
	struct row_impl impl[8];
	int n_impl = impls(impl);

	ASSERT_NE(NULL, codes);
	ASSERT_NE(NULL, out16);
	ASSERT_NE(NULL, floats);
	ASSERT_NE(NULL, out32);
	srand(7);
	for (int i = 0; i < N; i++) {
		codes[i] = (uint16_t)(i < 65536 ? i : rand());
		floats[i] = u2f(((uint32_t)rand() << 16) ^ (uint32_t)rand());
		if (i % 3 == 0)
			floats[i] = (float)(rand() - RAND_MAX / 2) / 1024.0f;
	}

	for (int k = 0; k < n_impl; k++) {
		static const int offs[] = { 0, 1, 3, 8 };

		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
			int off = offs[o], n = N - off - (int)o;

			impl[k].h2f(codes + off, out32 + off, n);
			for (int i = off; i < off + n; i++) {
				float s = ggml_fp16_to_fp32(codes[i]);

				ASSERT_EQ(f2u(s), f2u(out32[i]))
					TH_LOG("%s fp16->fp32 code %#06x", impl[k].name, codes[i]);
			}
			impl[k].b2f(codes + off, out32 + off, n);
			for (int i = off; i < off + n; i++) {
				ASSERT_EQ((uint32_t)codes[i] << 16, f2u(out32[i]))
					TH_LOG("%s bf16->fp32 code %#06x", impl[k].name, codes[i]);
			}
			impl[k].f2h(floats + off, out16 + off, n);
			for (int i = off; i < off + n; i++) {
				ASSERT_EQ(ggml_fp32_to_fp16(floats[i]), out16[i])
					TH_LOG("%s fp32->fp16 x=%a", impl[k].name, floats[i]);
			}
			impl[k].f2b(floats + off, out16 + off, n);
			for (int i = off; i < off + n; i++) {
				ASSERT_EQ(ggml_fp32_to_bf16(floats[i]).bits, out16[i])
					TH_LOG("%s fp32->bf16 x=%a", impl[k].name, floats[i]);
			}
		}
	}
	TH_LOG("%d implementations compared", n_impl);
	free(codes);
	free(out16);
	free(floats);
	free(out32);
}

TEST(fp32_to_fp32_and_i32)
{
	float x[7] = { 0.0f, -0.0f, 1.5f, -2.75f, 3e9f, -3e9f, NAN };
	float y[7];
	int32_t i32[7];

	ggml_cpu_fp32_to_fp32(x, y, 7);
	EXPECT_EQ(0, memcmp(x, y, sizeof(x)));
	ggml_cpu_fp32_to_i32(x, i32, 7);
	EXPECT_EQ(0, i32[0]);
	EXPECT_EQ(1, i32[2]);
	EXPECT_EQ(-2, i32[3]);
	EXPECT_EQ(INT32_MAX, i32[4]);
	EXPECT_EQ(INT32_MIN, i32[5]);
	EXPECT_EQ(0, i32[6]);
	/* n == 0 touches nothing */
	ggml_cpu_fp32_to_fp32(NULL, NULL, 0);
	ggml_fp32_to_fp16_row(NULL, NULL, 0);
}

TEST_HARNESS_MAIN
