// SPDX-License-Identifier: MIT
/*
 * bench-layer - one llama-style transformer layer (or several) on the CPU
 * backend, at decode and prefill, against this machine's read bandwidth.
 *
 * The layer: RMS norm, Q/K/V products, RoPE (NeoX) on Q and K, K and V
 * written into an F16 KV cache with SET_ROWS, flash attention over the
 * cache with a causal mask, output product and residual; RMS norm, SwiGLU
 * FFN (gate, up, down) and residual. Weights are random, of one type.
 * Defaults: 2048 embedding, 5632 FFN, 16 heads (head dimension 128), no
 * GQA, one layer.
 *
 * Cases are n:kv pairs: n new tokens after kv cached ones (n = 1: decode).
 * Each prints the median time of the graph through the CPU backend object
 * (ggml_backend_graph_compute with its own threadpool) and, for decode, the
 * bytes the step reads (the weights and the F16 K and V rows of the cached
 * tokens) over that time against the read bandwidth measured at the same
 * thread count in the same run; for prefill, the products' GFLOPS.
 *
 * --contend also runs each case with one competing CPU-bound process (a
 * busy loop at the benchmark's nice value, stopped with SIGSTOP between its turns), quiet and
 * contended repetitions alternating, and prints contended / quiet.
 *
 * -V adds the output head (final norm and a vocabulary product); --model
 * makes a ~1B-parameter llama-shaped model (16 layers, 32000 vocabulary),
 * whose tok/s are those of generation (n = 1) and prompt processing.
 *
 *   bench-layer [-T q8_0,q4_0,...] [-t 1,2] [-c 1:512,128:0,...] [-l layers]
 *               [-e embd] [-f ffn] [-H heads] [-G kv_heads] [-V vocab]
 *               [--model] [-r reps] [--contend | --cpu-time] [--no-limits]
 *
 * --cpu-time times by the process's CPU time over the thread count, as
 * bench-ops does (on a shared machine).
 *
 * -R also runs each case with the weight matrices the CPU device takes in
 * its repacking extra buffer type (found through
 * ggml_backend_dev_get_extra_bufts and supports_op, as llama.cpp does) in
 * one, plain and repacked repetitions alternating (three rounds), and
 * prints plain / repacked. With both -R and --contend the contended
 * repetitions run on the repacked weights, against the quiet repacked ones.
 *
 * BENCH_WEIGHTS=<dir> in the environment keeps the generated weights in
 * that directory and reads them back in later runs (see weight_load).
 *
 * --raw adds a tab-separated line per case (RAW, layer, type, n, kv,
 * threads, plain ms, repacked ms or -1) for tools/bench-upstream.sh, which
 * builds this same source against an upstream ggml and runs both in turn.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-limits.h"
#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

struct cfg {
	int n_embd, n_ff, n_head, n_head_kv, n_layer, n_vocab;
	enum ggml_type wtype;
};

struct layer_w {
	struct ggml_tensor *attn_norm, *wq, *wk, *wv, *wo, *ffn_norm, *gate, *up, *down;
	struct ggml_tensor *k_cache, *v_cache;
};

static void die(const char *msg)
{
	fprintf(stderr, "bench-layer: %s\n", msg);
	exit(1);
}

/*
 * BENCH_WEIGHTS=<dir> keeps the quantized weights there, a file per matrix
 * (its type, shape and seed in the name), and later runs read them back:
 * quantizing the random weights of --model takes minutes (q4_K, q6_K), and
 * tools/bench-upstream.sh runs this source against two or three libraries,
 * several rounds each. All of them then multiply the same bytes. A file of
 * the wrong size is made again; nothing is stored without the variable.
 */
static const char *weights_dir;

static void weight_path(char *path, size_t size, const struct ggml_tensor *t, unsigned seed)
{
	/* v1: the generation below (bench_fill_f32, scaled by 1/sqrt(k)) */
	snprintf(path, size, "%s/v1-%s-%lldx%lld-%u.bin", weights_dir, ggml_type_name(t->type), (long long)t->ne[0],
		 (long long)ggml_nrows(t), seed);
}

static int weight_load(struct ggml_tensor *t, unsigned seed)
{
	char path[4096];
	if (!weights_dir)
		return 0;
	weight_path(path, sizeof(path), t, seed);
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	const size_t n = ggml_nbytes(t);
	const int ok = fread(t->data, 1, n, f) == n && fgetc(f) == EOF;
	fclose(f);
	return ok;
}

static void weight_store(const struct ggml_tensor *t, unsigned seed)
{
	char path[4096], tmp[4200];
	if (!weights_dir)
		return;
	weight_path(path, sizeof(path), t, seed);
	/* written aside and renamed: a concurrent or interrupted run never
	 * leaves a short file under the final name */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	const size_t n = ggml_nbytes(t);
	int ok = f && fwrite(t->data, 1, n, f) == n;
	ok = f && fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		/* said once; the run goes on with weights generated each time */
		fprintf(stderr, "bench-layer: cannot write %s, BENCH_WEIGHTS=%s not used\n", tmp, weights_dir);
		unlink(tmp);
		weights_dir = NULL;
	}
}

static void fill_weight(struct ggml_tensor *t, unsigned seed)
{
	if (weight_load(t, seed))
		return;
	const int64_t k = t->ne[0], rows = ggml_nrows(t), step = 64;
	float *tmp = malloc(sizeof(float) * k * step);
	if (!tmp)
		die("out of memory");
	for (int64_t r = 0; r < rows; r += step) {
		const int64_t nr = r + step < rows ? step : rows - r;
		bench_fill_f32(tmp, (size_t)(k * nr), seed + (unsigned)r);
		/* scale like a trained layer's weights, so that activations stay O(1) */
		for (int64_t i = 0; i < k * nr; i++)
			tmp[i] *= 1.0f / sqrtf((float)k);
		ggml_quantize_chunk(t->type, tmp, (char *)t->data + r * t->nb[1], 0, nr, k, NULL);
	}
	free(tmp);
	weight_store(t, seed);
}

static void fill_f16(struct ggml_tensor *t, unsigned seed)
{
	const size_t n = (size_t)ggml_nelements(t);
	float *tmp = malloc(sizeof(float) * n);
	if (!tmp)
		die("out of memory");
	bench_fill_f32(tmp, n, seed);
	ggml_fp32_to_fp16_row(tmp, t->data, (int64_t)n);
	free(tmp);
}

static size_t weight_bytes(const struct cfg *c)
{
	const int hd = c->n_embd / c->n_head, ekv = hd * c->n_head_kv;
	const size_t e = ggml_row_size(c->wtype, c->n_embd), f = ggml_row_size(c->wtype, c->n_ff);
	return (size_t)c->n_layer * (e * (size_t)(2 * c->n_embd + 2 * ekv + 2 * c->n_ff) + f * (size_t)c->n_embd) +
	       e * (size_t)c->n_vocab;
}

/* the products' multiply-adds per token */
static double matmul_params(const struct cfg *c)
{
	const int hd = c->n_embd / c->n_head, ekv = hd * c->n_head_kv;
	return (double)c->n_layer * c->n_embd * (2.0 * c->n_embd + 2.0 * ekv + 3.0 * c->n_ff) +
	       (double)c->n_embd * c->n_vocab;
}

static void make_weights(struct ggml_context *ctx, const struct cfg *c, int n_ctx, struct layer_w *lw)
{
	const int E = c->n_embd, F = c->n_ff, hd = E / c->n_head, ekv = hd * c->n_head_kv;
	for (int il = 0; il < c->n_layer; il++) {
		struct layer_w *l = &lw[il];
		const unsigned s = 1000u * (unsigned)il;
		l->attn_norm = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, E);
		l->ffn_norm = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, E);
		for (int i = 0; i < E; i++) {
			((float *)l->attn_norm->data)[i] = 1.0f + 0.01f * (float)(i % 7);
			((float *)l->ffn_norm->data)[i] = 1.0f - 0.01f * (float)(i % 5);
		}
		l->wq = ggml_new_tensor_2d(ctx, c->wtype, E, E);
		l->wk = ggml_new_tensor_2d(ctx, c->wtype, E, ekv);
		l->wv = ggml_new_tensor_2d(ctx, c->wtype, E, ekv);
		l->wo = ggml_new_tensor_2d(ctx, c->wtype, E, E);
		l->gate = ggml_new_tensor_2d(ctx, c->wtype, E, F);
		l->up = ggml_new_tensor_2d(ctx, c->wtype, E, F);
		l->down = ggml_new_tensor_2d(ctx, c->wtype, F, E);
		if (!l->down)
			die("no memory for the weights");
		fill_weight(l->wq, s + 1);
		fill_weight(l->wk, s + 2);
		fill_weight(l->wv, s + 3);
		fill_weight(l->wo, s + 4);
		fill_weight(l->gate, s + 5);
		fill_weight(l->up, s + 6);
		fill_weight(l->down, s + 7);
		l->k_cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, ekv, n_ctx);
		l->v_cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, ekv, n_ctx);
		if (!l->v_cache)
			die("no memory for the KV cache");
		fill_f16(l->k_cache, s + 8);
		fill_f16(l->v_cache, s + 9);
	}
}

/* the output head: final norm and the vocabulary product (-V) */
static struct ggml_tensor *head_norm, *head_w;

static void make_head(struct ggml_context *ctx, const struct cfg *c)
{
	head_norm = head_w = NULL;
	if (c->n_vocab <= 0)
		return;
	head_norm = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c->n_embd);
	for (int i = 0; i < c->n_embd; i++)
		((float *)head_norm->data)[i] = 1.0f;
	head_w = ggml_new_tensor_2d(ctx, c->wtype, c->n_embd, c->n_vocab);
	if (!head_w)
		die("no memory for the output head");
	fill_weight(head_w, 4242);
}

/* -R: the weight matrices (and head) of lw that the CPU device takes in its
 * repacking extra buffer type (bench_extra_buft(): CPU_REPACK) copied into
 * one, in lwr (the rest shared with lw); returns the buffer, or NULL when it
 * takes none of them */
static struct ggml_context *rp_ctx;
static struct ggml_tensor *head_w_plain, *head_w_rp;
static int rp_count, rp_total;

static ggml_backend_buffer_t make_repacked(const struct cfg *c, struct layer_w *lw, struct layer_w *lwr)
{
	ggml_backend_buffer_type_t buft = bench_extra_buft();
	rp_count = rp_total = 0;
	if (!buft)
		return NULL;
	struct ggml_init_params ip = { ggml_tensor_overhead() * (7 * (size_t)c->n_layer + 2), NULL, true };
	rp_ctx = ggml_init(ip);
	for (int il = 0; il < c->n_layer; il++) {
		lwr[il] = lw[il];
		struct ggml_tensor **dst[7] = { &lwr[il].wq, &lwr[il].wk, &lwr[il].wv, &lwr[il].wo,
						&lwr[il].gate, &lwr[il].up, &lwr[il].down };
		for (int i = 0; i < 7; i++) {
			rp_total++;
			if (bench_buft_takes(buft, *dst[i], 1)) {
				*dst[i] = ggml_dup_tensor(rp_ctx, *dst[i]);
				rp_count++;
			}
		}
	}
	head_w_plain = head_w;
	head_w_rp = head_w;
	if (head_w) {
		rp_total++;
		if (bench_buft_takes(buft, head_w, 1)) {
			head_w_rp = ggml_dup_tensor(rp_ctx, head_w);
			rp_count++;
		}
	}
	if (rp_count == 0) {
		ggml_free(rp_ctx);
		rp_ctx = NULL;
		return NULL;
	}
	ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(rp_ctx, buft);
	if (!buf)
		die("no memory for the repacked weights");
	for (int il = 0; il < c->n_layer; il++) {
		struct ggml_tensor *src[7] = { lw[il].wq, lw[il].wk, lw[il].wv, lw[il].wo, lw[il].gate, lw[il].up, lw[il].down };
		struct ggml_tensor *dst[7] = { lwr[il].wq, lwr[il].wk, lwr[il].wv, lwr[il].wo,
					       lwr[il].gate, lwr[il].up, lwr[il].down };
		for (int i = 0; i < 7; i++)
			if (dst[i] != src[i])
				ggml_backend_tensor_set(dst[i], src[i]->data, 0, ggml_nbytes(src[i]));
	}
	if (head_w_rp != head_w)
		ggml_backend_tensor_set(head_w_rp, head_w->data, 0, ggml_nbytes(head_w));
	return buf;
}

struct graph {
	struct ggml_context *ctx;
	struct ggml_cgraph *gf;
	struct ggml_tensor *x, *pos, *idx, *mask, *out;
};

/* n new tokens at positions kv..kv+n-1, attending to the kv cached ones */
static void build(struct graph *g, const struct cfg *c, struct layer_w *lw, int n, int kv)
{
	const int E = c->n_embd, H = c->n_head, Hkv = c->n_head_kv, hd = E / H, ekv = hd * Hkv;
	const int nkv = kv + n;
	const size_t act = (size_t)n * (size_t)(24 * E + 6 * c->n_ff + 2 * ekv) * sizeof(float) * (size_t)c->n_layer +
			   (size_t)n * (size_t)(c->n_vocab + 2 * E) * sizeof(float);
	struct ggml_init_params ip = { act + (size_t)nkv * n * 2 + ggml_graph_overhead_custom(4096, false) +
					       ggml_tensor_overhead() * 64 * (size_t)(c->n_layer + 2) + (16 << 20),
				       NULL, false };
	g->ctx = ggml_init(ip);
	if (!g->ctx)
		die("no memory for the graph");
	struct ggml_context *ctx = g->ctx;
	g->x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, E, n);
	g->pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n);
	g->idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, n);
	g->mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, nkv, n);
	bench_fill_f32(g->x->data, (size_t)E * n, 77);
	for (int i = 0; i < n; i++) {
		((int32_t *)g->pos->data)[i] = kv + i;
		((int64_t *)g->idx->data)[i] = kv + i;
	}
	for (int q = 0; q < n; q++)
		for (int j = 0; j < nkv; j++)
			((ggml_fp16_t *)g->mask->data)[(size_t)q * nkv + j] = ggml_fp32_to_fp16(j <= kv + q ? 0.0f : -INFINITY);

	struct ggml_tensor *x = g->x;
	for (int il = 0; il < c->n_layer; il++) {
		const struct layer_w *l = &lw[il];
		struct ggml_tensor *cur = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l->attn_norm);
		struct ggml_tensor *q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wq, cur), hd, H, n);
		struct ggml_tensor *k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wk, cur), hd, Hkv, n);
		struct ggml_tensor *v = ggml_mul_mat(ctx, l->wv, cur);
		q = ggml_rope_ext(ctx, q, g->pos, NULL, hd, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f,
				  32.0f, 1.0f);
		k = ggml_rope_ext(ctx, k, g->pos, NULL, hd, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f,
				  32.0f, 1.0f);
		struct ggml_tensor *kc = ggml_set_rows(ctx, l->k_cache, ggml_reshape_2d(ctx, k, ekv, n), g->idx);
		struct ggml_tensor *vc = ggml_set_rows(ctx, l->v_cache, v, g->idx);
		/* the cache as [hd, nkv, Hkv] views, read after the writes */
		struct ggml_tensor *kv3 = ggml_permute(ctx, ggml_view_3d(ctx, kc, hd, Hkv, nkv, kc->nb[0] * hd, kc->nb[1], 0),
						       0, 2, 1, 3);
		struct ggml_tensor *vv3 = ggml_permute(ctx, ggml_view_3d(ctx, vc, hd, Hkv, nkv, vc->nb[0] * hd, vc->nb[1], 0),
						       0, 2, 1, 3);
		struct ggml_tensor *fa = ggml_flash_attn_ext(ctx, ggml_permute(ctx, q, 0, 2, 1, 3), kv3, vv3, g->mask,
							     1.0f / sqrtf((float)hd), 0.0f, 0.0f);
		cur = ggml_mul_mat(ctx, l->wo, ggml_reshape_2d(ctx, fa, E, n));
		x = ggml_add(ctx, x, cur);
		cur = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l->ffn_norm);
		cur = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, l->gate, cur), ggml_mul_mat(ctx, l->up, cur));
		x = ggml_add(ctx, x, ggml_mul_mat(ctx, l->down, cur));
	}
	if (head_w)
		x = ggml_mul_mat(ctx, head_w, ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), head_norm));
	g->out = x;
	g->gf = ggml_new_graph_custom(ctx, 4096, false);
	ggml_build_forward_expand(g->gf, g->out);
}

/* ---- a competing process ------------------------------------------------ */

static pid_t rival = -1;

static void rival_start(void)
{
	rival = fork();
	if (rival < 0)
		die("fork");
	if (rival == 0) {
		/* the benchmark's own nice value (inherited): run both under
		 * `nice -n -15` and other work on the machine hardly counts */
		volatile unsigned long spin = 0;
		for (;;)
			spin++;
	}
	kill(rival, SIGSTOP);
}

/* the rival's CPU time (s) and the wall time it was let run (s) */
static double rival_cpu, rival_wall, rival_t0;

static double rival_cpu_now(void)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)rival);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* utime and stime: fields 14 and 15, after the command's ')' */
	const char *p = strrchr(buf, ')');
	unsigned long long ut = 0, st = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void rival_run(int on)
{
	if (rival <= 0)
		return;
	if (on) {
		rival_cpu -= rival_cpu_now();
		rival_t0 = bench_now();
		kill(rival, SIGCONT);
	} else {
		kill(rival, SIGSTOP);
		rival_wall += bench_now() - rival_t0;
		rival_cpu += rival_cpu_now();
	}
}

static void rival_stop(void)
{
	if (rival > 0) {
		kill(rival, SIGKILL);
		waitpid(rival, NULL, 0);
		rival = -1;
	}
}

/* ---- driver ------------------------------------------------------------- */

static void run_reps(ggml_backend_t be, struct ggml_cgraph *gf, double *t, int reps, int nth)
{
	for (int r = 0; r < reps; r++) {
		double t0 = bench_clock();
		if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS)
			die("compute failed");
		t[r] = (bench_clock() - t0) / (bench_cpu_time ? nth : 1);
	}
}

static int parse_list(const char *s, int *out, int max)
{
	int n = 0;
	while (*s && n < max) {
		out[n++] = atoi(s);
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct cfg c = { 2048, 5632, 16, 16, 1, 0, GGML_TYPE_Q8_0 };
	enum ggml_type types[8] = { GGML_TYPE_Q8_0 };
	int ntypes = 1, ths[4] = { 1, 2 }, nt = 2, reps = 0, contend = 0, limits = 1, repack = 0, raw = 0;
	int cn[8] = { 1, 1, 128, 512 }, ckv[8] = { 512, 4096, 0, 0 }, nc = 4;
	double peak[BENCH_MAX_THREADS + 1] = { 0 }, bw[BENCH_MAX_THREADS + 1] = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--contend"))
			contend = 1;
		else if (!strcmp(a, "--cpu-time"))
			bench_cpu_time = 1;
		else if (!strcmp(a, "--no-limits"))
			limits = 0;
		else if (!strcmp(a, "-R"))
			repack = 1;
		else if (!strcmp(a, "--raw"))
			raw = 1;
		else if (v && !strcmp(a, "-t"))
			nt = parse_list(argv[++i], ths, 4);
		else if (v && !strcmp(a, "-l"))
			c.n_layer = atoi(argv[++i]);
		else if (v && !strcmp(a, "-e"))
			c.n_embd = atoi(argv[++i]);
		else if (v && !strcmp(a, "-f"))
			c.n_ff = atoi(argv[++i]);
		else if (v && !strcmp(a, "-H"))
			c.n_head = atoi(argv[++i]);
		else if (v && !strcmp(a, "-G"))
			c.n_head_kv = atoi(argv[++i]);
		else if (v && !strcmp(a, "-V"))
			c.n_vocab = atoi(argv[++i]);
		else if (!strcmp(a, "--model")) {
			/* a ~1B-parameter llama-shaped model */
			c.n_layer = 16;
			c.n_vocab = 32000;
		}
		else if (v && !strcmp(a, "-r"))
			reps = atoi(argv[++i]);
		else if (v && !strcmp(a, "-c")) {
			nc = 0;
			for (const char *s = argv[++i]; *s && nc < 8;) {
				cn[nc] = atoi(s);
				const char *colon = strchr(s, ':');
				ckv[nc++] = colon ? atoi(colon + 1) : 0;
				s = strchr(s, ',');
				s = s ? s + 1 : "";
			}
		} else if (v && !strcmp(a, "-T")) {
			ntypes = 0;
			char *list = strdup(argv[++i]);
			for (char *tok = strtok(list, ","); tok && ntypes < 8; tok = strtok(NULL, ","))
				for (int t = 0; t < GGML_TYPE_COUNT; t++)
					if (ggml_type_name(t) && !strcmp(ggml_type_name(t), tok))
						types[ntypes++] = t;
			free(list);
		} else {
			fprintf(stderr,
				"usage: %s [-T q8_0,...] [-t 1,2] [-c n:kv,...] [-l layers] [-e embd] [-f ffn] [-H heads]\n"
				"       [-G kv_heads] [-V vocab] [--model] [-r reps] [--contend | --cpu-time] [--no-limits] [-R] [--raw]\n",
				argv[0]);
			return 2;
		}
	}
	if (contend && bench_cpu_time)
		die("--contend measures wall time");
	if (c.n_layer < 1 || c.n_head < 1 || c.n_head_kv < 1 || c.n_embd % c.n_head || c.n_head % c.n_head_kv ||
	    ntypes == 0 || nt == 0)
		die("bad shape, type or thread list");
	int max_th = 1;
	for (int i = 0; i < nt; i++) {
		if (ths[i] < 1 || ths[i] > BENCH_MAX_THREADS)
			die("threads: 1 to 8");
		max_th = ths[i] > max_th ? ths[i] : max_th;
	}

	ggml_cpu_init();
	weights_dir = getenv("BENCH_WEIGHTS");
	if (weights_dir && !*weights_dir)
		weights_dir = NULL;
	if (weights_dir)
		mkdir(weights_dir, 0777); /* its parent must exist; EEXIST is fine */
	int prefill = 0; /* the peaks are measured only for cases that compute */
	for (int ic = 0; ic < nc; ic++)
		prefill |= cn[ic] > 8;
	if (limits)
		bench_measure_limits(max_th, 1, prefill, peak, bw);
	printf("layer: embd %d, ffn %d, heads %d/%d, %d layer%s, F16 KV cache, flash attention", c.n_embd, c.n_ff,
	       c.n_head, c.n_head_kv, c.n_layer, c.n_layer > 1 ? "s" : "");
	if (c.n_vocab > 0)
		printf(", output head of %d", c.n_vocab);
	printf("\n");
	if (contend)
		rival_start();

	ggml_backend_t be = ggml_backend_cpu_init();
	if (!be)
		die("no CPU backend");
	for (int it = 0; it < ntypes; it++) {
		c.wtype = types[it];
		int max_ctx = 1;
		for (int ic = 0; ic < nc; ic++)
			max_ctx = ckv[ic] + cn[ic] > max_ctx ? ckv[ic] + cn[ic] : max_ctx;
		const int hd = c.n_embd / c.n_head;
		const size_t wb = weight_bytes(&c);
		const size_t kvb = (size_t)c.n_layer * 2 * (size_t)hd * c.n_head_kv * max_ctx * 2;
		struct ggml_init_params ip = { wb + kvb + ggml_tensor_overhead() * 16 * (size_t)(c.n_layer + 1) + (4 << 20),
					       NULL, false };
		struct ggml_context *wctx = ggml_init(ip);
		struct layer_w *lw = calloc((size_t)c.n_layer, sizeof(*lw));
		if (!wctx || !lw)
			die("no memory for the weights");
		make_weights(wctx, &c, max_ctx, lw);
		make_head(wctx, &c);
		struct layer_w *lwr = calloc((size_t)c.n_layer, sizeof(*lwr));
		ggml_backend_buffer_t rbuf = repack ? make_repacked(&c, lw, lwr) : NULL;
		printf("%s: weights %.1f MB (%.2f G parameters)", ggml_type_name(c.wtype), wb / 1e6,
		       matmul_params(&c) * 1e-9);
		if (repack)
			printf(", %d of %d matrices in the repacking buffer type", rp_count, rp_total);
		printf("\n");
		for (int ic = 0; ic < nc; ic++) {
			const int n = cn[ic], kv = ckv[ic];
			if (n < 1 || kv < 0)
				die("bad case");
			struct graph g, gr;
			build(&g, &c, lw, n, kv);
			if (rbuf) {
				head_w = head_w_rp;
				build(&gr, &c, lwr, n, kv);
				head_w = head_w_plain;
			}
			for (int ith = 0; ith < nt; ith++) {
				const int nth = ths[ith];
				ggml_backend_cpu_set_n_threads(be, nth);
				const int nr = reps > 0 ? reps : (n <= 8 ? 30 : n <= 128 ? 6 : 3);
				/* rounds of quiet (and contended) repetitions, alternating */
				const int rounds = contend || rbuf ? 3 : 1;
				double *tq = malloc(sizeof(double) * nr * rounds), *tc = malloc(sizeof(double) * nr * rounds);
				/* contended: on the repacked weights when there are any */
				double *tx = malloc(sizeof(double) * nr * rounds);
				if (!tq || !tc || !tx)
					die("no memory");
				run_reps(be, g.gf, tq, 1, nth); /* warm-up */
				if (rbuf)
					run_reps(be, gr.gf, tc, 1, nth);
				for (int r = 0; r < rounds; r++) {
					run_reps(be, g.gf, tq + r * nr, nr, nth);
					if (rbuf)
						run_reps(be, gr.gf, tc + r * nr, nr, nth);
					if (contend) {
						rival_run(1);
						run_reps(be, rbuf ? gr.gf : g.gf, tx + r * nr, nr, nth);
						rival_run(0);
					}
				}
				const double t = bench_median(tq, nr * rounds);
				printf("%-5s n=%-4d kv=%-5d %dT %9.3f ms %8.1f tok/s", ggml_type_name(c.wtype), n, kv, nth,
				       t * 1e3, n / t);
				if (n <= 8) {
					/* bytes a decode step must read: the weights and
					 * the K and V rows of every cached token (which
					 * outweigh the weights at long contexts) */
					const double kvr = (double)c.n_layer * 2 * hd * c.n_head_kv * (kv + n) * 2;
					const double gbs = (wb + kvr) / t * 1e-9;
					printf("  weights+KV %6.1f GB/s", gbs);
					if (bw[nth] > 0)
						printf(" %5.1f%% of read BW", 100 * gbs / bw[nth]);
				} else {
					/* against the peak of the units the products run
					 * on: int8 dots for quantized weights */
					const double gf = 2.0 * matmul_params(&c) * n / t * 1e-9;
					const int q = ggml_is_quantized(c.wtype);
					const double pk = q ? bench_int8_gops[nth] : peak[nth];
					printf("  products %7.1f GFLOPS", gf);
					if (pk > 0)
						printf(" %5.1f%% of %s peak", 100 * gf / pk, q ? "int8" : "FMA");
				}
				double tr = 0;
				if (rbuf) {
					tr = bench_median(tc, nr * rounds);
					printf("  | repacked %9.3f ms  plain/rp %.2f", tr * 1e3, t / tr);
				}
				if (contend) {
					const double tcm = bench_median(tx, nr * rounds);
					printf("  | contended%s %9.3f ms  x%.2f (rival %.0f%% of a core)", rbuf ? " rp" : "",
					       tcm * 1e3, tcm / (rbuf ? tr : t),
					       rival_wall > 0 ? 100 * rival_cpu / rival_wall : 0.0);
					rival_cpu = rival_wall = 0;
				}
				printf("\n");
				if (raw)
					printf("RAW\tlayer\t%s\t%d\t%d\t%d\t%.4f\t%.4f\n", ggml_type_name(c.wtype), n, kv, nth,
					       t * 1e3, rbuf ? tr * 1e3 : -1.0);
				fflush(stdout);
				free(tq);
				free(tc);
				free(tx);
			}
			ggml_free(g.ctx);
			if (rbuf)
				ggml_free(gr.ctx);
		}
		ggml_backend_buffer_free(rbuf);
		if (rp_ctx) {
			ggml_free(rp_ctx);
			rp_ctx = NULL;
		}
		free(lwr);
		free(lw);
		ggml_free(wctx);
	}
	ggml_backend_free(be);
	rival_stop();
	return 0;
}
