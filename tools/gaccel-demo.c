// SPDX-License-Identifier: MIT
/*
 * gaccel-demo: a small llama-shaped model run through the scheduler on the
 * gaccel device beside the CPU, its weights mmapped from a file and handed
 * to the device without a copy.
 *
 * It writes a weights file (random, fixed seed) unless one exists, maps it
 * read-only, wraps the mapping with ggml_backend_dev_buffer_from_host_ptr(),
 * runs a prompt through embedding, attention and SwiGLU layers and the
 * output head, and checks the logits against the CPU backend alone.
 *
 * When the CPU device offers an extra buffer type (ggml_backend_dev_get_
 * extra_bufts: CPU_REPACK, weights interleaved for its int8 kernels) that
 * can hold a weight matrix for its product, the CPU-alone run is repeated
 * with the matrices copied there, as llama.cpp places weights; both times
 * are printed and the logits compared.
 *
 * The weights file is -w's, else one per model shape in the user's cache
 * directory ($XDG_CACHE_HOME/gaccel, or ~/.cache/gaccel), else (no home)
 * one in a private directory under $TMPDIR, removed at the end. It is
 * written under a temporary name and renamed, so a run that stops half way
 * leaves no short file behind, and never through a name another user
 * could have placed in a shared directory.
 *
 * When the file cannot be mapped (or with -r), it is read into anonymous
 * memory with io_uring (tools/weights-io.c: O_DIRECT, a registered buffer)
 * and that memory is wrapped instead: still no copy after the read.
 *
 * usage: gaccel-demo [-l layers] [-d dim] [-f ffn] [-H heads] [-t tokens]
 *                    [-q f32|f16|q8_0|q4_0] [-w weights-file] [-r]
 *        gaccel-demo --help
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include "weights-io.h"

#define N_VOCAB 512
#define MAX_LAYERS 16

struct config {
	int n_layer, n_embd, n_ff, n_head, n_tokens;
	enum ggml_type wtype;
	const char *path;
	bool read;
};

struct layer {
	struct ggml_tensor *attn_norm, *wq, *wk, *wv, *wo;
	struct ggml_tensor *ffn_norm, *gate, *up, *down;
};

struct model {
	struct ggml_context *ctx;
	struct ggml_tensor *tok_embd, *out_norm, *output;
	struct layer layers[MAX_LAYERS];
	void *map;
	size_t map_size;
	bool mapped;	/* the file's mapping, not memory it was read into */
	ggml_backend_buffer_t buf;
};

static void die(const char *msg)
{
	fprintf(stderr, "gaccel-demo: %s\n", msg);
	exit(1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static float frand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (float)((rng_state >> 40) & 0xffffff) / 16777216.0f - 0.5f;
}

/* The model's tensors, in file order, in a no_alloc context. */
static void define_tensors(struct model *m, const struct config *c)
{
	struct ggml_init_params ip = {
		.mem_size = ggml_tensor_overhead() * (3 + 9 * MAX_LAYERS),
		.no_alloc = true,
	};

	m->ctx = ggml_init(ip);
	m->tok_embd = ggml_new_tensor_2d(m->ctx, GGML_TYPE_F32, c->n_embd, N_VOCAB);
	for (int i = 0; i < c->n_layer; i++) {
		struct layer *l = &m->layers[i];

		l->attn_norm = ggml_new_tensor_1d(m->ctx, GGML_TYPE_F32, c->n_embd);
		l->wq = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_embd);
		l->wk = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_embd);
		l->wv = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_embd);
		l->wo = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_embd);
		l->ffn_norm = ggml_new_tensor_1d(m->ctx, GGML_TYPE_F32, c->n_embd);
		l->gate = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_ff);
		l->up = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, c->n_ff);
		l->down = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_ff, c->n_embd);
	}
	m->out_norm = ggml_new_tensor_1d(m->ctx, GGML_TYPE_F32, c->n_embd);
	m->output = ggml_new_tensor_2d(m->ctx, c->wtype, c->n_embd, N_VOCAB);
}

static size_t tensor_file_size(const struct ggml_tensor *t)
{
	return GGML_PAD(ggml_nbytes(t), 64);
}

/*
 * Random weights, quantized to the tensor's type, written back to back into
 * a new file (never one that exists: O_EXCL) that then takes @path's name.
 */
static void write_weights(struct model *m, const char *path)
{
	char tmp[PATH_MAX];
	struct ggml_tensor *t;
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof(tmp))
		die("the weights file's name is too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f)
		die("cannot create the weights file");
	for (t = ggml_get_first_tensor(m->ctx); t; t = ggml_get_next_tensor(m->ctx, t)) {
		int64_t n = ggml_nelements(t);
		float *v = malloc(sizeof(float) * (size_t)n);
		size_t size = tensor_file_size(t);
		void *q = calloc(1, size);
		/* norms near one, matrices scaled to keep activations tame */
		float scale = ggml_n_dims(t) == 1 ? 0.2f : 2.0f / sqrtf((float)t->ne[0]);

		if (!v || !q)
			die("out of memory");
		for (int64_t i = 0; i < n; i++)
			v[i] = (ggml_n_dims(t) == 1 ? 1.0f : 0.0f) + scale * frand();
		ggml_quantize_chunk(t->type, v, q, 0, t->ne[1], t->ne[0], NULL);
		if (fwrite(q, 1, size, f) != size)
			die("cannot write the weights file");
		free(v);
		free(q);
	}
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		die("cannot write the weights file");
	}
}

/* A weights file in a private directory of this run's: removed at exit. */
static char g_tmp_file[PATH_MAX], g_tmp_dir[PATH_MAX];

static void remove_tmp(void)
{
	if (g_tmp_file[0])
		unlink(g_tmp_file);
	if (g_tmp_dir[0])
		rmdir(g_tmp_dir);
}

/* Creates @dir (mode 0700) unless it exists; its parent must exist. */
static int make_dir(const char *dir)
{
	return mkdir(dir, 0700) && errno != EEXIST ? -1 : 0;
}

/*
 * The default weights file: per model shape and type in the user's cache
 * directory; without one, in a new private directory, removed at exit.
 * Returns the path in @buf.
 */
static const char *default_weights(const struct config *c, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	int n = -1;

	if (xdg && xdg[0] == '/')
		n = snprintf(dir, sizeof(dir), "%s/gaccel", xdg);
	else if (home && home[0] == '/' && strcmp(home, "/"))
		n = snprintf(dir, sizeof(dir), "%s/.cache", home) < (int)sizeof(dir) && !make_dir(dir) ?
		    snprintf(dir, sizeof(dir), "%s/.cache/gaccel", home) : -1;
	if (n < 0 || n >= (int)sizeof(dir) || make_dir(dir)) {
		if (snprintf(dir, sizeof(dir), "%s/gaccel-demo.XXXXXX",
			     tmp && tmp[0] == '/' ? tmp : "/tmp") >= (int)sizeof(dir) || !mkdtemp(dir))
			die("cannot make a directory for the weights file (use -w)");
		strcpy(g_tmp_dir, dir);
		atexit(remove_tmp);
	}
	if (snprintf(buf, len, "%s/demo-%s-l%d-d%d-f%d.weights", dir, ggml_type_name(c->wtype),
		     c->n_layer, c->n_embd, c->n_ff) >= (int)len)
		die("the weights file's name is too long (use -w)");
	if (g_tmp_dir[0])
		strcpy(g_tmp_file, buf);
	return buf;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gaccel-demo [-l layers] [-d dim] [-f ffn] [-H heads] [-t tokens]\n"
		"                   [-q f32|f16|q8_0|q4_0] [-w weights-file] [-r]\n"
		"\n"
		"Runs a small llama-shaped model with random weights through the scheduler on\n"
		"the gaccel device beside the CPU, its weights mapped from a file without a\n"
		"copy, and checks the logits against the CPU backend alone.\n"
		"\n"
		"  -l  layers (1-%d, default 2)      -d  embedding size (default 256)\n"
		"  -f  feed-forward size (default 512)  -H  attention heads (default 4)\n"
		"  -t  prompt tokens (default 8)     -q  weight type (default q8_0)\n"
		"  -w  weights file (default: one per shape in ~/.cache/gaccel; written\n"
		"      when it does not exist)\n"
		"  -r  read the weights into memory with io_uring instead of mapping the\n"
		"      file (as when the file cannot be mapped)\n"
		"  --help  this text\n", MAX_LAYERS);
}

/* Map the file and place every tensor on its bytes: no copy anywhere. */
/*
 * Read the file into anonymous memory with io_uring (O_DIRECT where the
 * filesystem takes it, one registered buffer): for a file that cannot be
 * mapped, or when asked (-r). The memory is then wrapped like a mapping.
 */
static void *read_weights(const char *path, size_t size, size_t *span)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct wio_stats st;
	int64_t t0 = ggml_time_us();
	void *p;
	int ret;

	*span = (size + page - 1) / page * page;
	p = mmap(NULL, *span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("out of memory for the weights");
	ret = wio_read_uring(path, p, size, 64, 1 << 20, &st);
	if (ret) {
		fprintf(stderr, "gaccel-demo: io_uring read of %s: %s\n", path, strerror(-ret));
		exit(1);
	}
	printf("weights: read with io_uring in %.1f ms (%s, %s buffer, %u reads of %zu KiB in flight)\n",
	       (ggml_time_us() - t0) / 1e3, st.direct ? "O_DIRECT" : "page cache",
	       st.fixed ? "registered" : "unregistered", st.qd, st.chunk / 1024);
	return p;
}

static void map_weights(struct model *m, ggml_backend_dev_t dev, const char *path, bool read)
{
	struct stat st;
	size_t off = 0, max_tensor = 0;
	struct ggml_tensor *t;
	int fd;

	for (t = ggml_get_first_tensor(m->ctx); t; t = ggml_get_next_tensor(m->ctx, t)) {
		off += tensor_file_size(t);
		if (ggml_nbytes(t) > max_tensor)
			max_tensor = ggml_nbytes(t);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size != off)
		die("the weights file does not match the model (remove it to rebuild)");
	m->map_size = off;
	/* shared: the pin then holds the page cache pages themselves (a private
	 * mapping is copied when pinned)
	 */
	m->map = read ? MAP_FAILED : mmap(NULL, off, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	m->mapped = m->map != MAP_FAILED;
	if (!m->mapped) {
		if (!read)
			printf("weights: %s cannot be mapped (%s): reading it\n", path, strerror(errno));
		m->map = read_weights(path, off, &m->map_size);
	}

	m->buf = dev ? ggml_backend_dev_buffer_from_host_ptr(dev, m->map, off, max_tensor)
		     : ggml_backend_cpu_buffer_from_ptr(m->map, off);
	if (!m->buf)
		die("cannot wrap the mapped weights in a buffer");
	ggml_backend_buffer_set_usage(m->buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	off = 0;
	for (t = ggml_get_first_tensor(m->ctx); t; t = ggml_get_next_tensor(m->ctx, t)) {
		if (ggml_backend_tensor_alloc(m->buf, t, (char *)m->map + off) != GGML_STATUS_SUCCESS)
			die("cannot place a tensor in the weights buffer");
		off += tensor_file_size(t);
	}
}

/* The CPU device's first extra buffer type, or NULL. */
static ggml_backend_buffer_type_t cpu_extra_buft(void)
{
	ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
	ggml_backend_dev_get_extra_bufts_t fn;
	ggml_backend_buffer_type_t *bufts;

	if (!cpu)
		return NULL;
	fn = (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(
		ggml_backend_dev_backend_reg(cpu), "ggml_backend_dev_get_extra_bufts");
	bufts = fn ? fn(cpu) : NULL;
	return bufts ? bufts[0] : NULL;
}

/* Can the CPU compute w's product with w in buft? Asked with a stand-in
 * tensor placed in an empty buffer of that type.
 */
static bool buft_fits_matmul(ggml_backend_buffer_type_t buft, const struct ggml_tensor *w)
{
	struct ggml_init_params ip = { ggml_tensor_overhead() * 4, NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 0);
	struct ggml_tensor *t = ggml_dup_tensor(ctx, w);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w->ne[0], 8);
	bool ok = false;

	if (buf) {
		t->buffer = buf;
		t->data = ggml_backend_buffer_get_base(buf);
		ok = ggml_backend_dev_supports_op(ggml_backend_buft_get_device(buft), ggml_mul_mat(ctx, t, x));
		ggml_backend_buffer_free(buf);
	}
	ggml_free(ctx);
	return ok;
}

/* r: m with the weight matrices that fit copied into a buffer of buft
 * (returned; NULL when none fits); the other tensors stay shared
 */
static ggml_backend_buffer_t copy_matrices(const struct model *m, const struct config *c,
					   ggml_backend_buffer_type_t buft, struct model *r,
					   struct ggml_context **rctx)
{
	struct ggml_init_params ip = { ggml_tensor_overhead() * (1 + 7 * MAX_LAYERS), NULL, true };
	struct ggml_tensor **src[1 + 7 * MAX_LAYERS], **dst[1 + 7 * MAX_LAYERS];
	ggml_backend_buffer_t buf;
	int n = 0;

	*r = *m;
	src[n] = (struct ggml_tensor **)&m->output;
	dst[n++] = &r->output;
	for (int i = 0; i < c->n_layer; i++) {
		const struct layer *l = &m->layers[i];
		struct layer *o = &r->layers[i];

		src[n] = (struct ggml_tensor **)&l->wq; dst[n++] = &o->wq;
		src[n] = (struct ggml_tensor **)&l->wk; dst[n++] = &o->wk;
		src[n] = (struct ggml_tensor **)&l->wv; dst[n++] = &o->wv;
		src[n] = (struct ggml_tensor **)&l->wo; dst[n++] = &o->wo;
		src[n] = (struct ggml_tensor **)&l->gate; dst[n++] = &o->gate;
		src[n] = (struct ggml_tensor **)&l->up; dst[n++] = &o->up;
		src[n] = (struct ggml_tensor **)&l->down; dst[n++] = &o->down;
	}
	*rctx = ggml_init(ip);
	int copied = 0;
	for (int i = 0; i < n; i++)
		if (buft_fits_matmul(buft, *src[i])) {
			*dst[i] = ggml_dup_tensor(*rctx, *src[i]);
			copied++;
		}
	if (!copied) {
		ggml_free(*rctx);
		*rctx = NULL;
		return NULL;
	}
	buf = ggml_backend_alloc_ctx_tensors_from_buft(*rctx, buft);
	if (!buf)
		die("cannot allocate the repacked weights");
	ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	for (int i = 0; i < n; i++)
		if (*dst[i] != *src[i])
			ggml_backend_tensor_set(*dst[i], (*src[i])->data, 0, ggml_nbytes(*src[i]));
	return buf;
}

struct graph {
	struct ggml_context *ctx;
	struct ggml_cgraph *gf;
	struct ggml_tensor *ids, *pos, *mask, *logits;
};

static struct ggml_tensor *layer_forward(struct ggml_context *ctx, const struct layer *l,
					 const struct config *c, struct ggml_tensor *x,
					 struct graph *g)
{
	const int hd = c->n_embd / c->n_head, T = c->n_tokens;
	struct ggml_tensor *cur, *q, *k, *v, *kq, *kqv, *ffn;

	cur = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l->attn_norm);
	q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wq, cur), hd, c->n_head, T);
	k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wk, cur), hd, c->n_head, T);
	v = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wv, cur), hd, c->n_head, T);
	q = ggml_rope_ext(ctx, q, g->pos, NULL, hd, GGML_ROPE_TYPE_NEOX, 4096,
			  10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
	k = ggml_rope_ext(ctx, k, g->pos, NULL, hd, GGML_ROPE_TYPE_NEOX, 4096,
			  10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);

	/* per head: softmax(K^T Q / sqrt(hd) + causal mask), then V */
	kq = ggml_mul_mat(ctx, ggml_permute(ctx, k, 0, 2, 1, 3), ggml_permute(ctx, q, 0, 2, 1, 3));
	kq = ggml_soft_max_ext(ctx, kq, g->mask, 1.0f / sqrtf((float)hd), 0.0f);
	v = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3));
	kqv = ggml_mul_mat(ctx, v, kq);
	cur = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), c->n_embd, T);
	x = ggml_add(ctx, x, ggml_mul_mat(ctx, l->wo, cur));

	cur = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l->ffn_norm);
	ffn = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, l->gate, cur), ggml_mul_mat(ctx, l->up, cur));
	return ggml_add(ctx, x, ggml_mul_mat(ctx, l->down, ffn));
}

static void build_graph(struct graph *g, const struct model *m, const struct config *c)
{
	struct ggml_init_params ip = {
		.mem_size = ggml_tensor_overhead() * 64 * (size_t)(c->n_layer + 2) +
			    ggml_graph_overhead_custom(4096, false),
		.no_alloc = true,
	};
	struct ggml_tensor *x;

	g->ctx = ggml_init(ip);
	g->ids = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, c->n_tokens);
	g->pos = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, c->n_tokens);
	g->mask = ggml_new_tensor_2d(g->ctx, GGML_TYPE_F32, c->n_tokens, c->n_tokens);
	ggml_set_input(g->ids);
	ggml_set_input(g->pos);
	ggml_set_input(g->mask);

	x = ggml_get_rows(g->ctx, m->tok_embd, g->ids);
	for (int i = 0; i < c->n_layer; i++)
		x = layer_forward(g->ctx, &m->layers[i], c, x, g);
	x = ggml_mul(g->ctx, ggml_rms_norm(g->ctx, x, 1e-5f), m->out_norm);
	g->logits = ggml_mul_mat(g->ctx, m->output, x);
	ggml_set_output(g->logits);

	g->gf = ggml_new_graph_custom(g->ctx, 4096, false);
	ggml_build_forward_expand(g->gf, g->logits);
}

static void set_inputs(struct graph *g, const struct config *c)
{
	int32_t *ids = malloc(sizeof(int32_t) * c->n_tokens);
	float *mask = malloc(sizeof(float) * c->n_tokens * c->n_tokens);

	if (!ids || !mask)
		die("out of memory");
	for (int i = 0; i < c->n_tokens; i++)
		ids[i] = (i * 37 + 11) % N_VOCAB;
	ggml_backend_tensor_set(g->ids, ids, 0, ggml_nbytes(g->ids));
	for (int i = 0; i < c->n_tokens; i++)
		ids[i] = i;
	ggml_backend_tensor_set(g->pos, ids, 0, ggml_nbytes(g->pos));
	for (int q = 0; q < c->n_tokens; q++)
		for (int kv = 0; kv < c->n_tokens; kv++)
			mask[q * c->n_tokens + kv] = kv <= q ? 0.0f : -INFINITY;
	ggml_backend_tensor_set(g->mask, mask, 0, ggml_nbytes(g->mask));
	free(ids);
	free(mask);
}

/* Run the prompt with these backends; returns the logits (malloc'd). */
static float *run(const struct model *m, const struct config *c, ggml_backend_t *backends,
		  int n_backends, double *ms, int *n_splits, int *n_on_first)
{
	struct graph g;
	ggml_backend_sched_t sched;
	float *logits = malloc(sizeof(float) * N_VOCAB * c->n_tokens);
	int64_t t0;

	build_graph(&g, m, c);
	sched = ggml_backend_sched_new(backends, NULL, n_backends, 4096, false, true);
	if (!sched || !logits || !ggml_backend_sched_alloc_graph(sched, g.gf))
		die("cannot allocate the graph");
	set_inputs(&g, c);
	t0 = ggml_time_us();
	if (ggml_backend_sched_graph_compute(sched, g.gf) != GGML_STATUS_SUCCESS)
		die("the graph failed to compute");
	*ms = (double)(ggml_time_us() - t0) / 1000.0;
	*n_splits = ggml_backend_sched_get_n_splits(sched);
	*n_on_first = 0;
	for (int i = 0; i < ggml_graph_n_nodes(g.gf); i++)
		*n_on_first += ggml_backend_sched_get_tensor_backend(sched, ggml_graph_node(g.gf, i)) ==
			       backends[0];
	ggml_backend_tensor_get(g.logits, logits, 0, ggml_nbytes(g.logits));
	ggml_backend_sched_free(sched);
	ggml_free(g.ctx);
	return logits;
}

static enum ggml_type parse_type(const char *s)
{
	if (!strcmp(s, "f32")) return GGML_TYPE_F32;
	if (!strcmp(s, "f16")) return GGML_TYPE_F16;
	if (!strcmp(s, "q8_0")) return GGML_TYPE_Q8_0;
	if (!strcmp(s, "q4_0")) return GGML_TYPE_Q4_0;
	die("-q takes f32, f16, q8_0 or q4_0");
	return GGML_TYPE_F32;
}

int main(int argc, char **argv)
{
	struct config c = { 2, 256, 512, 4, 8, GGML_TYPE_Q8_0, NULL, false };
	char path[PATH_MAX];
	ggml_backend_dev_t dev;
	ggml_backend_t both[2], cpu[1];
	struct model m = { 0 };
	float *ref, *got;
	double ms_both, ms_cpu, err = 0, norm = 0;
	int splits, on_dev, splits_cpu, on_cpu, opt, agree = 0;
	char name[256];

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "l:d:f:H:t:q:w:r")) != -1) {
		switch (opt) {
		case 'l': c.n_layer = atoi(optarg); break;
		case 'd': c.n_embd = atoi(optarg); break;
		case 'f': c.n_ff = atoi(optarg); break;
		case 'H': c.n_head = atoi(optarg); break;
		case 't': c.n_tokens = atoi(optarg); break;
		case 'q': c.wtype = parse_type(optarg); break;
		case 'w': c.path = optarg; break;
		case 'r': c.read = true; break;
		default: usage(stderr); return 2;
		}
	}
	if (c.n_layer < 1 || c.n_layer > MAX_LAYERS || c.n_head < 1 || c.n_embd % c.n_head ||
	    (c.n_embd / c.n_head) % 2 || c.n_embd % 32 || c.n_ff % 32 || c.n_tokens < 1)
		die("bad model shape (dims multiples of 32, even head size)");

	if (!c.path)
		c.path = default_weights(&c, path, sizeof(path));
	ggml_time_init();
	ggml_backend_load_all();
	dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
	if (!dev)
		dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
	printf("device: %s\n", dev ? ggml_backend_dev_description(dev) : "none (CPU only)");

	define_tensors(&m, &c);
	if (access(c.path, R_OK) != 0) {
		write_weights(&m, c.path);
		printf("weights: wrote %s\n", c.path);
	}
	map_weights(&m, dev, c.path, c.read);
	snprintf(name, sizeof(name), "%s", ggml_backend_buffer_name(m.buf));
	printf("weights: %.1f MiB of %s %s, wrapped by a %s buffer, %s\n",
	       m.map_size / 1048576.0, ggml_type_name(c.wtype),
	       m.mapped ? "mapped read-only" : "read into memory", name,
	       ggml_backend_buffer_get_base(m.buf) == m.map ? "zero-copy (base == mapping)" : "COPIED");
	printf("model: %d layers, dim %d, ffn %d, %d heads, vocab %d; prompt of %d tokens\n",
	       c.n_layer, c.n_embd, c.n_ff, c.n_head, N_VOCAB, c.n_tokens);

	cpu[0] = ggml_backend_cpu_init();
	ref = run(&m, &c, cpu, 1, &ms_cpu, &splits_cpu, &on_cpu);
	/* best of three (the machine may be shared) */
	for (int i = 0; i < 3; i++) {
		double ms;

		free(run(&m, &c, cpu, 1, &ms, &splits_cpu, &on_cpu));
		ms_cpu = ms < ms_cpu ? ms : ms_cpu;
	}

	ggml_backend_buffer_type_t xbuft = cpu_extra_buft();
	if (xbuft) {
		struct ggml_context *rctx;
		struct model mr;
		ggml_backend_buffer_t rbuf = copy_matrices(&m, &c, xbuft, &mr, &rctx);

		if (rbuf) {
			double ms_rp, e = 0, nr = 0;
			float *lr;

			lr = run(&mr, &c, cpu, 1, &ms_rp, &splits_cpu, &on_cpu);
			for (int i = 0; i < 3; i++) {
				double ms;

				free(run(&mr, &c, cpu, 1, &ms, &splits_cpu, &on_cpu));
				ms_rp = ms < ms_rp ? ms : ms_rp;
			}
			for (int i = 0; i < N_VOCAB * c.n_tokens; i++) {
				e += (lr[i] - ref[i]) * (double)(lr[i] - ref[i]);
				nr += ref[i] * (double)ref[i];
			}
			printf("CPU alone, weight matrices in %s: %.1f ms (plain: %.1f ms; best of 3), logits NMSE %.3g\n",
			       ggml_backend_buft_name(xbuft), ms_rp, ms_cpu, nr > 0 ? e / nr : 0.0);
			free(lr);
			ggml_backend_buffer_free(rbuf);
			ggml_free(rctx);
			if (!(nr > 0 && e / nr <= 1e-6))
				die("the repacked weights' logits differ from the plain ones");
		} else {
			printf("CPU alone: %s holds none of the %s matrices\n", ggml_backend_buft_name(xbuft),
			       ggml_type_name(c.wtype));
		}
	}
	if (dev) {
		both[0] = ggml_backend_dev_init(dev, NULL);
		both[1] = ggml_backend_cpu_init();
		if (!both[0] || !both[1])
			die("cannot start the backends");
		got = run(&m, &c, both, 2, &ms_both, &splits, &on_dev);
		run(&m, &c, both, 2, &ms_both, &splits, &on_dev); /* again: cached programs */
		for (int i = 0; i < N_VOCAB * c.n_tokens; i++) {
			err += (got[i] - ref[i]) * (double)(got[i] - ref[i]);
			norm += ref[i] * (double)ref[i];
		}
		for (int t = 0; t < c.n_tokens; t++) {
			int a = 0, b = 0;

			for (int v = 1; v < N_VOCAB; v++) {
				if (ref[t * N_VOCAB + v] > ref[t * N_VOCAB + a])
					a = v;
				if (got[t * N_VOCAB + v] > got[t * N_VOCAB + b])
					b = v;
			}
			agree += a == b;
		}
		printf("%s + CPU: %d splits, %d nodes on %s, %.1f ms (second run)\n",
		       ggml_backend_name(both[0]), splits, on_dev, ggml_backend_name(both[0]), ms_both);
		printf("CPU alone: %.1f ms\n", ms_cpu);
		printf("logits vs CPU alone: NMSE %.3g, top token agrees at %d of %d positions\n",
		       norm > 0 ? err / norm : 0.0, agree, c.n_tokens);
		free(got);
		ggml_backend_free(both[0]);
		ggml_backend_free(both[1]);
	} else {
		printf("CPU alone: %.1f ms\n", ms_cpu);
	}
	free(ref);
	ggml_backend_free(cpu[0]);
	ggml_backend_buffer_free(m.buf);
	munmap(m.map, m.map_size);
	ggml_free(m.ctx);
	/* the engine and the CPU may round differently (the CPU quantizes
	 * activations for quantized weights), never more than this
	 */
	if (dev && (norm == 0 || err / norm > 1e-3)) {
		fprintf(stderr, "gaccel-demo: the device's logits differ from the CPU's\n");
		return 1;
	}
	return 0;
}
