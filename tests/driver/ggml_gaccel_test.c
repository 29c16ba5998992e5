// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The gaccel ggml backend against the real driver: device discovery and
 * props, BO buffers, zero-copy wrapping of host memory (anonymous and a
 * read-only file mapping), events, and graphs computed through the backend
 * and through the scheduler next to the CPU, compared with the CPU alone.
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-gaccel.h"
#include "../lib/test-log.h"

static ggml_backend_dev_t gaccel_dev(void)
{
	ggml_backend_reg_t reg = ggml_backend_gaccel_reg();

	if (ggml_backend_reg_dev_count(reg) == 0)
		return NULL;
	return ggml_backend_reg_dev_get(reg, 0);
}

TEST(device_props)
{
	struct ggml_backend_dev_props props;
	ggml_backend_dev_t dev = gaccel_dev();
	size_t free_mem, total;

	ASSERT_NE(NULL, dev);
	EXPECT_STREQ("GACCEL", ggml_backend_reg_name(ggml_backend_gaccel_reg()));
	EXPECT_STREQ("GACCEL0", ggml_backend_dev_name(dev));
	/* The node: an accel node where the kernel has them, else render. */
	if (access("/dev/accel", F_OK) == 0) {
		EXPECT_NE(NULL, strstr(ggml_backend_dev_description(dev), "/dev/accel/accel"));
	} else {
		EXPECT_NE(NULL, strstr(ggml_backend_dev_description(dev), "/dev/dri/renderD"));
	}
	EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_IGPU, ggml_backend_dev_type(dev));
	ggml_backend_dev_get_props(dev, &props);
	EXPECT_TRUE(props.caps.async);
	EXPECT_TRUE(props.caps.events);
	EXPECT_TRUE(props.caps.buffer_from_host_ptr);
	EXPECT_EQ(NULL, props.device_id);
	ggml_backend_dev_memory(dev, &free_mem, &total);
	EXPECT_GT(total, 0);
	EXPECT_LE(free_mem, total);
	EXPECT_GT(free_mem, 0);
	EXPECT_TRUE(ggml_backend_buft_is_host(ggml_backend_dev_buffer_type(dev)));
}

TEST(bo_buffer_set_get)
{
	ggml_backend_dev_t dev = gaccel_dev();
	ggml_backend_buffer_type_t buft;
	ggml_backend_buffer_t buf;
	struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
	struct ggml_context *ctx;
	struct ggml_tensor *t;
	float in[1000], out[1000];

	ASSERT_NE(NULL, dev);
	buft = ggml_backend_dev_buffer_type(dev);
	buf = ggml_backend_buft_alloc_buffer(buft, 1 << 20);
	ASSERT_NE(NULL, buf);
	EXPECT_GE(ggml_backend_buffer_get_size(buf), 1u << 20);
	ASSERT_NE(NULL, ggml_backend_buffer_get_base(buf));
	EXPECT_TRUE(ggml_backend_buffer_is_host(buf));

	ctx = ggml_init(ip);
	ASSERT_NE(NULL, ctx);
	t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
	ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t,
		(char *)ggml_backend_buffer_get_base(buf) + 4096));
	for (int i = 0; i < 1000; i++)
		in[i] = (float)i * 0.5f - 7;
	ggml_backend_tensor_set(t, in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	ggml_backend_tensor_get(t, out, 0, sizeof(out));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	/* the mapping is the buffer: the CPU sees what set_tensor wrote */
	EXPECT_EQ(0, memcmp(t->data, in, sizeof(in)));

	ggml_backend_tensor_memset(t, 0, 8, 16);
	ggml_backend_tensor_get(t, out, 0, sizeof(out));
	EXPECT_EQ(0.0f, out[2]);
	EXPECT_EQ(in[1], out[1]);
	EXPECT_EQ(in[6], out[6]);

	ggml_backend_buffer_clear(buf, 0);
	ggml_backend_tensor_get(t, out, 0, sizeof(out));
	EXPECT_EQ(0.0f, out[999]);

	ggml_free(ctx);
	ggml_backend_buffer_free(buf);
}

TEST(buffer_from_host_ptr_is_zero_copy)
{
	ggml_backend_dev_t dev = gaccel_dev();
	long page = sysconf(_SC_PAGESIZE);
	size_t size = 3 * page + 100;
	char *mem, *ptr;
	ggml_backend_buffer_t buf;
	struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
	struct ggml_context *ctx;
	struct ggml_tensor *t;
	float v;

	ASSERT_NE(NULL, dev);
	mem = aligned_alloc(page, 5 * page);
	ASSERT_NE(NULL, mem);
	ptr = mem + 100; /* not page aligned, as llama.cpp passes sub-ranges */
	for (size_t i = 0; i < size; i++)
		ptr[i] = (char)i;

	buf = ggml_backend_dev_buffer_from_host_ptr(dev, ptr, size, size);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ((void *)ptr, ggml_backend_buffer_get_base(buf));
	EXPECT_EQ(size, ggml_backend_buffer_get_size(buf));

	ctx = ggml_init(ip);
	t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
	ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_tensor_alloc(buf, t, ptr + 2 * page));
	/* a write through the original pointer is seen through the buffer */
	v = 42.5f;
	memcpy(ptr + 2 * page + 12, &v, 4);
	ggml_backend_tensor_get(t, &v, 12, 4);
	EXPECT_EQ(42.5f, v);

	ggml_free(ctx);
	ggml_backend_buffer_free(buf);
	free(mem);
}

TEST(read_only_file_mapping)
{
	ggml_backend_dev_t dev = gaccel_dev();
	long page = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/weights-XXXXXX";
	unsigned char *map;
	ggml_backend_buffer_t buf;
	int fd;

	ASSERT_NE(NULL, dev);
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	for (int i = 0; i < 4; i++) {
		unsigned char blk[4096];

		memset(blk, 0x10 + i, sizeof(blk));
		ASSERT_EQ((ssize_t)sizeof(blk), write(fd, blk, sizeof(blk)));
	}
	/* as a model loader maps weights: read only, and shared, so that the
	 * read-only pin holds the page cache pages (a MAP_PRIVATE mapping is
	 * copied at pin time)
	 */
	map = mmap(NULL, 4 * page, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	log_start();
	buf = ggml_backend_dev_buffer_from_host_ptr(dev, map + 8, 4 * page - 8, 4 * page);
	log_stop();
	ASSERT_NE(NULL, buf) TH_LOG("a read-only mapping must still wrap (pinned read-only)");
	EXPECT_EQ(0x13, ((unsigned char *)ggml_backend_buffer_get_base(buf))[3 * page]);
	EXPECT_EQ(NULL, strstr(log_buf, "MAP_PRIVATE")) TH_LOG("%s", log_buf);
	ggml_backend_buffer_free(buf);
	munmap(map, 4 * page);

	/* the same file mapped privately still wraps, but the pin copies the
	 * pages: the user is told, with the file's name
	 */
	map = mmap(NULL, 4 * page, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	log_start();
	buf = ggml_backend_dev_buffer_from_host_ptr(dev, map, 4 * page, 4 * page);
	log_stop();
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(0x12, ((unsigned char *)ggml_backend_buffer_get_base(buf))[2 * page]);
	EXPECT_NE(NULL, strstr(log_buf, "MAP_PRIVATE")) TH_LOG("%s", log_buf);
	EXPECT_NE(NULL, strstr(log_buf, path)) TH_LOG("%s", log_buf);
	ggml_backend_buffer_free(buf);
	munmap(map, 4 * page);

	/* private anonymous memory (malloc) is the normal case: no warning */
	map = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	log_start();
	buf = ggml_backend_dev_buffer_from_host_ptr(dev, map, 4 * page, 4 * page);
	log_stop();
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(0, log_len) TH_LOG("%s", log_buf);
	ggml_backend_buffer_free(buf);
	munmap(map, 4 * page);
	close(fd);
	unlink(path);
}

TEST(events)
{
	ggml_backend_dev_t dev = gaccel_dev();
	ggml_backend_t backend;
	ggml_backend_event_t ev;

	ASSERT_NE(NULL, dev);
	backend = ggml_backend_dev_init(dev, NULL);
	ASSERT_NE(NULL, backend);
	EXPECT_TRUE(ggml_backend_is_gaccel(backend));
	ev = ggml_backend_event_new(dev);
	ASSERT_NE(NULL, ev);
	ggml_backend_event_record(ev, backend);
	ggml_backend_event_synchronize(ev);
	ggml_backend_event_wait(backend, ev);
	ggml_backend_synchronize(backend);
	ggml_backend_event_free(ev);
	ggml_backend_free(backend);
}

static void fill(float *p, int n, unsigned int seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
	}
}

/* y = 2 silu(W x + b) through the scheduler, with the weights in the first
 * backend's buffer type as a model's would be.
 */
static int run_mlp(ggml_backend_t *backends, int n_backends, float *out, int n, int k, int m,
		   ggml_backend_t *y_backend)
{
	struct ggml_init_params wp = { ggml_tensor_overhead() * 2, NULL, true };
	struct ggml_init_params ip = { ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true };
	struct ggml_context *wctx = ggml_init(wp), *ctx = ggml_init(ip);
	struct ggml_tensor *w, *b, *x, *y;
	ggml_backend_buffer_t wbuf;
	ggml_backend_sched_t sched;
	struct ggml_cgraph *gf;
	float *tmp = malloc(sizeof(float) * (size_t)(n * k + k * m));
	int rc = -1;

	w = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, k, n);
	b = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, n);
	wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx,
		ggml_backend_get_default_buffer_type(backends[0]));
	if (!wbuf || !tmp)
		goto out;
	ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	fill(tmp, n * k, 1);
	ggml_backend_tensor_set(w, tmp, 0, ggml_nbytes(w));
	fill(tmp, n, 2);
	ggml_backend_tensor_set(b, tmp, 0, ggml_nbytes(b));

	x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, m);
	ggml_set_input(x);
	y = ggml_scale(ctx, ggml_silu(ctx, ggml_add(ctx, ggml_mul_mat(ctx, w, x), b)), 2.0f);
	ggml_set_output(y);
	gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, y);

	sched = ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);
	if (sched && ggml_backend_sched_alloc_graph(sched, gf)) {
		fill(tmp, k * m, 3);
		ggml_backend_tensor_set(x, tmp, 0, ggml_nbytes(x));
		if (ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS) {
			ggml_backend_tensor_get(y, out, 0, ggml_nbytes(y));
			*y_backend = ggml_backend_sched_get_tensor_backend(sched, y);
			rc = 0;
		}
	}
	if (sched)
		ggml_backend_sched_free(sched);
out:
	free(tmp);
	ggml_backend_buffer_free(wbuf);
	ggml_free(ctx);
	ggml_free(wctx);
	return rc;
}

static int n_gaccel_complaints;

static void count_complaints(enum ggml_log_level level, const char *text, void *data)
{
	(void)data;
	if (level >= GGML_LOG_LEVEL_WARN && level != GGML_LOG_LEVEL_CONT &&
	    strstr(text, "gaccel"))
		n_gaccel_complaints++;
	fputs(text, stderr);
}

/* The whole MLP goes to the engine (matrix product, add, silu, scale), and
 * gives the CPU's result; nothing falls back to the CPU behind our back.
 */
TEST(scheduler_with_cpu_matches_cpu_alone)
{
	enum { N = 24, K = 40, M = 3 };
	ggml_backend_dev_t dev = gaccel_dev();
	ggml_backend_t both[2], cpu_only[1], where = NULL;
	float ref[N * M], got[N * M];
	double err = 0, norm = 0;

	ASSERT_NE(NULL, dev);
	both[0] = ggml_backend_dev_init(dev, NULL);
	both[1] = ggml_backend_cpu_init();
	cpu_only[0] = ggml_backend_cpu_init();
	ASSERT_NE(NULL, both[0]);
	ASSERT_NE(NULL, both[1]);
	ASSERT_EQ(0, run_mlp(cpu_only, 1, ref, N, K, M, &where));

	ggml_log_set(count_complaints, NULL);
	ASSERT_EQ(0, run_mlp(both, 2, got, N, K, M, &where));
	EXPECT_TRUE(where == both[0]) TH_LOG("the output was computed on %s",
					     where ? ggml_backend_name(where) : "?");
	/* twice: the second run reuses the compiled program */
	ASSERT_EQ(0, run_mlp(both, 2, got, N, K, M, &where));
	ggml_log_set(NULL, NULL);
	EXPECT_EQ(0, n_gaccel_complaints);

	for (int i = 0; i < N * M; i++) {
		err += (got[i] - ref[i]) * (double)(got[i] - ref[i]);
		norm += ref[i] * (double)ref[i];
	}
	EXPECT_LT(err / norm, 1e-10) TH_LOG("nmse %g", err / norm);
	ggml_backend_free(both[0]);
	ggml_backend_free(both[1]);
	ggml_backend_free(cpu_only[0]);
}

/*
 * Embedding lookups in quantized tables (GET_ROWS of Q8_0 and Q4_0),
 * YaRN-scaled RoPE (ext_factor, attn_factor, beta_fast/slow, freq_scale
 * != 1), normal and NeoX, and single-source GLUs (swapped too): the
 * engine's QUERY tables make supports_op take them, the whole graph runs
 * on the engine without a fallback, and the numbers are the CPU
 * backend's.
 */
enum { QN0 = 64, QROWS = 10, NIDS = 6, HD = 32, HEADS = 3, TOKS = 5 };

struct qr_graph {
	struct ggml_context *ctx;
	struct ggml_cgraph *gf;
	struct ggml_tensor *w8, *w4, *ids, *x, *pos, *out[6];
};

static void qr_build(struct qr_graph *g)
{
	struct ggml_init_params ip = { ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true };
	const float fs = 0.25f, ext = 1.0f, attn = 1.2f, bf = 32.0f, bs = 1.0f;

	g->ctx = ggml_init(ip);
	g->w8 = ggml_new_tensor_2d(g->ctx, GGML_TYPE_Q8_0, QN0, QROWS);
	g->w4 = ggml_new_tensor_2d(g->ctx, GGML_TYPE_Q4_0, QN0, QROWS);
	g->ids = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, NIDS);
	g->x = ggml_new_tensor_3d(g->ctx, GGML_TYPE_F32, HD, HEADS, TOKS);
	g->pos = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, TOKS);
	g->out[0] = ggml_get_rows(g->ctx, g->w8, g->ids);
	g->out[1] = ggml_get_rows(g->ctx, g->w4, g->ids);
	g->out[2] = ggml_rope_ext(g->ctx, g->x, g->pos, NULL, HD, 0, 4096, 10000.0f,
				  fs, ext, attn, bf, bs);
	g->out[3] = ggml_rope_ext(g->ctx, g->x, g->pos, NULL, HD - 8, GGML_ROPE_TYPE_NEOX,
				  2048, 500000.0f, fs, 0.5f, attn, bf, bs);
	/* GLUs over the halves of x's rows, plain and swapped. */
	g->out[4] = ggml_swiglu(g->ctx, g->x);
	g->out[5] = ggml_geglu_swapped(g->ctx, g->x);
	g->gf = ggml_new_graph(g->ctx);
	for (int i = 0; i < 6; i++)
		ggml_build_forward_expand(g->gf, g->out[i]);
}

/* Compute on @backend; the outputs, one after the other, into @res. */
static int qr_run(ggml_backend_t backend, float *res)
{
	float wf[QN0 * QROWS], xf[HD * HEADS * TOKS];
	int32_t ids[NIDS] = { 9, 0, 4, 4, 7, 2 }, pos[TOKS] = { 0, 1, 100, 2047, 5000 };
	uint8_t q[QN0 * QROWS * 2];
	ggml_backend_buffer_t buf;
	struct qr_graph g;
	int rc = -1;

	qr_build(&g);
	buf = ggml_backend_alloc_ctx_tensors(g.ctx, backend);
	if (!buf)
		goto out;
	fill(wf, QN0 * QROWS, 11);
	fill(xf, HD * HEADS * TOKS, 12);
	ggml_quantize_chunk(GGML_TYPE_Q8_0, wf, q, 0, QROWS, QN0, NULL);
	ggml_backend_tensor_set(g.w8, q, 0, ggml_nbytes(g.w8));
	ggml_quantize_chunk(GGML_TYPE_Q4_0, wf, q, 0, QROWS, QN0, NULL);
	ggml_backend_tensor_set(g.w4, q, 0, ggml_nbytes(g.w4));
	ggml_backend_tensor_set(g.ids, ids, 0, sizeof(ids));
	ggml_backend_tensor_set(g.x, xf, 0, sizeof(xf));
	ggml_backend_tensor_set(g.pos, pos, 0, sizeof(pos));
	if (ggml_backend_graph_compute(backend, g.gf) == GGML_STATUS_SUCCESS) {
		for (int i = 0; i < 6; i++) {
			ggml_backend_tensor_get(g.out[i], res, 0, ggml_nbytes(g.out[i]));
			res += ggml_nelements(g.out[i]);
		}
		rc = 0;
	}
	ggml_backend_buffer_free(buf);
out:
	ggml_free(g.ctx);
	return rc;
}

TEST(quantized_get_rows_yarn_rope_and_glu_run_on_the_engine)
{
	enum { N = 2 * QN0 * NIDS + 3 * HD * HEADS * TOKS };
	ggml_backend_dev_t dev = gaccel_dev();
	ggml_backend_t backend, cpu;
	static float ref[N], got[N];
	struct qr_graph g;

	ASSERT_NE(NULL, dev);
	backend = ggml_backend_dev_init(dev, NULL);
	cpu = ggml_backend_cpu_init();
	ASSERT_NE(NULL, backend);
	ASSERT_NE(NULL, cpu);
	qr_build(&g);
	for (int i = 0; i < 6; i++) {
		EXPECT_TRUE(ggml_backend_supports_op(backend, g.out[i])) {
			TH_LOG("output %d", i);
		}
	}
	ggml_free(g.ctx);

	ASSERT_EQ(0, qr_run(cpu, ref));
	n_gaccel_complaints = 0;
	ggml_log_set(count_complaints, NULL);
	ASSERT_EQ(0, qr_run(backend, got));
	ggml_log_set(NULL, NULL);
	EXPECT_EQ(0, n_gaccel_complaints);
	/* Dequantized rows are exact; rotations within float rounding. */
	for (int i = 0; i < 2 * QN0 * NIDS; i++) {
		ASSERT_EQ(ref[i], got[i]) {
			TH_LOG("get_rows element %d", i);
		}
	}
	for (int i = 2 * QN0 * NIDS; i < N; i++) {
		ASSERT_LE(fabsf(ref[i] - got[i]), 2e-5f) {
			TH_LOG("rope/glu element %d: %g vs %g", i, ref[i], got[i]);
		}
	}
	ggml_backend_free(backend);
	ggml_backend_free(cpu);
}

/* A graph given straight to the backend with an op the engine lacks is
 * still computed, on the CPU over the same mapped memory, with one warning.
 */
TEST(unsupported_op_falls_back_with_a_warning)
{
	ggml_backend_dev_t dev = gaccel_dev();
	struct ggml_init_params ip = { ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *x, *y;
	struct ggml_cgraph *gf;
	ggml_backend_buffer_t buf;
	ggml_backend_t backend;
	float in[37], out[37];

	ASSERT_NE(NULL, dev);
	backend = ggml_backend_dev_init(dev, NULL);
	ASSERT_NE(NULL, backend);
	x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 37);
	y = ggml_sqr(ctx, x);
	gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, y);
	EXPECT_FALSE(ggml_backend_supports_op(backend, y));
	buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
	ASSERT_NE(NULL, buf);
	fill(in, 37, 9);
	ggml_backend_tensor_set(x, in, 0, sizeof(in));

	n_gaccel_complaints = 0;
	ggml_log_set(count_complaints, NULL);
	EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(backend, gf));
	EXPECT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute(backend, gf));
	ggml_log_set(NULL, NULL);
	EXPECT_EQ(1, n_gaccel_complaints);
	ggml_backend_tensor_get(y, out, 0, sizeof(out));
	for (int i = 0; i < 37; i++)
		EXPECT_EQ(in[i] * in[i], out[i]);

	ggml_backend_buffer_free(buf);
	ggml_backend_free(backend);
	ggml_free(ctx);
}

static int write_param(const char *name, const char *value)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/module/gaccel/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int n_limit_waits;

static void count_limit_waits(enum ggml_log_level level, const char *text, void *data)
{
	(void)level;
	(void)data;
	if (strstr(text, "at the file's or queue's limit, waiting"))
		n_limit_waits++;
}

/*
 * With one job in flight allowed per queue and per file, SUBMIT says EAGAIN
 * for every job queued behind another: the backend waits for its jobs and
 * submits again, in order, and no compute fails.
 */
TEST(in_flight_limits_are_waited_for)
{
	const int n = 1 << 20, rounds = 24;
	ggml_backend_dev_t dev = gaccel_dev();
	struct ggml_init_params ip = { ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true };
	struct ggml_context *ctx;
	struct ggml_tensor *acc, *one, *sum;
	ggml_backend_buffer_t buf;
	struct ggml_cgraph *gf;
	ggml_backend_t be;
	float *host;
	int bad = 0;

	if (!dev)
		SKIP(return, "no gaccel device");
	if (write_param("max_queue_jobs", "1") || write_param("max_jobs", "1"))
		SKIP(return, "cannot set the in-flight limits (not root?)");
	be = ggml_backend_dev_init(dev, NULL);
	ASSERT_NE(NULL, be);
	ctx = ggml_init(ip);
	acc = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
	one = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
	sum = ggml_add_inplace(ctx, acc, one);
	gf = ggml_new_graph(ctx);
	ggml_build_forward_expand(gf, sum);
	buf = ggml_backend_alloc_ctx_tensors(ctx, be);
	ASSERT_NE(NULL, buf);
	host = malloc(sizeof(float) * (size_t)n);
	ASSERT_NE(NULL, host);
	for (int i = 0; i < n; i++)
		host[i] = 0.0f;
	ggml_backend_tensor_set(acc, host, 0, ggml_nbytes(acc));
	for (int i = 0; i < n; i++)
		host[i] = 1.0f;
	ggml_backend_tensor_set(one, host, 0, ggml_nbytes(one));

	ggml_log_set(count_limit_waits, NULL);
	for (int r = 0; r < rounds; r++)
		ASSERT_EQ(GGML_STATUS_SUCCESS, ggml_backend_graph_compute_async(be, gf));
	ggml_backend_synchronize(be);
	ggml_log_set(NULL, NULL);
	/* The limit was met (the backend waited), not spun through. */
	EXPECT_GT(n_limit_waits, 0);
	ggml_backend_tensor_get(acc, host, 0, ggml_nbytes(acc));
	for (int i = 0; i < n; i++)
		bad += host[i] != (float)rounds;
	EXPECT_EQ(0, bad);

	free(host);
	ggml_backend_buffer_free(buf);
	ggml_free(ctx);
	ggml_backend_free(be);
	EXPECT_EQ(0, write_param("max_queue_jobs", "256"));
	EXPECT_EQ(0, write_param("max_jobs", "1024"));
}

GACCEL_TEST_HARNESS_MAIN
