// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel-bench: what the gaccel device costs and gives, measured in one run
 * so that the ratios compare like with like.
 *
 *   1. latency: a bare ioctl round trip (QUERY DEVICE_INFO, no reply buffer)
 *      against the round trip of a tiny job (ADD of 16 floats: SUBMIT
 *      signalling a syncobj, then SYNCOBJ_WAIT);
 *   2. zero copy: wrapping 256 MiB of anonymous memory in a userptr BO (and
 *      closing it) against malloc + memcpy of the same bytes;
 *   3. MUL_MAT throughput of the engine against the CPU backend of
 *      libggml-backend in this process, for every weight type the engine
 *      takes (F32, F16, BF16, Q8_0, Q4_0), on the same data: a transformer's
 *      feed-forward shapes (5632 x 2048 and 2048 x 5632 weights, larger
 *      than the caches in F32) at 1 column (decode) and 32 (a batch), the
 *      CPU backend with as many threads as the engine has workers.
 *
 * Every figure is the median of N repetitions (-n, default 15; 5 for the
 * 256 MiB case). Runs inside the test VM: `make bench-driver`.
 *
 * usage: gaccel-bench [-n reps] [-s MiB] [-t cpu-threads] [-T types] [-C cols] [-q] [-m] [-l] [-v]
 *   -s  size of the userptr case (default 256, lowered to fit free memory)
 *   -t  CPU backend threads (default: the engine's workers)
 *   -T  MUL_MAT weight types, comma-separated (default f32,f16,bf16,q8_0,q4_0)
 *   -C  MUL_MAT column counts, comma-separated (default 1,32)
 *   -q  quick: fewer repetitions and matrix cases
 *   -m  MUL_MAT only (no latency and userptr figures)
 *   -l  latency only
 *   -L FILE  only: loading FILE into a buffer object three ways (mapped and
 *      wrapped zero-copy; read with io_uring, O_DIRECT, into memory then
 *      wrapped; read() and copied into a BO), cold cache when root, with
 *      the memory each costs
 *        gaccel-bench --help
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gaccel_test.h"
#include "weights-io.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#define MIB (1024ull * 1024ull)
#define WAIT_NS 60000000000ll

static int reps = 15;
static int cpu_threads;
static const char *mm_types = "f32,f16,bf16,q8_0,q4_0";
static const char *mm_cols = "1,32";
static int quick;
static int mm_only;
static int lat_only;
static int verbose;
static const char *load_path;

static void die(const char *what, int err)
{
	fprintf(stderr, "gaccel-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float frand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((rng >> 40) & 0xffffff) / 16777216.0f - 0.5f;
}

/* A BO of @size bytes mapped read-write. */
static void *bo_new(int fd, size_t size, uint32_t *handle)
{
	void *p;
	int ret = gaccel_bo_create(fd, size, 0, handle);

	if (ret)
		die("BO_CREATE", ret);
	p = gaccel_bo_mmap(fd, *handle, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		die("mmap of a BO", errno);
	return p;
}

/* --- 1. latency ------------------------------------------------------------ */

static void bench_latency(int fd, uint32_t queue)
{
	int n = quick ? 200 : 2000;
	double *t_ioctl = calloc(n, sizeof(double)), *t_job = calloc(n, sizeof(double));
	double *t_sub = calloc(n, sizeof(double));
	struct drm_gaccel_slot slots[3] = { { .size = 64 }, { .size = 64 }, { .size = 64 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, 16, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);
	struct drm_gaccel_binding b[3] = { 0 };
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	uint32_t graph, bo[3];
	float *p[3];
	double mi, mj, ms;
	int ret;

	if ((ret = gaccel_graph_create(fd, slots, 3, t, 3, &node, 1, &graph)))
		die("GRAPH_CREATE (ADD)", ret);
	for (int i = 0; i < 3; i++) {
		p[i] = bo_new(fd, 4096, &bo[i]);
		b[i].slot = i;
		b[i].handle = bo[i];
	}
	for (int j = 0; j < 16; j++) {
		p[0][j] = j;
		p[1][j] = 2 * j;
	}
	if ((ret = gaccel_syncobj_create(fd, &s.handle)))
		die("SYNCOBJ_CREATE", ret);

	/* Warm up both paths. */
	for (int i = 0; i < 20; i++) {
		struct drm_gaccel_query q = { .type = DRM_GACCEL_QUERY_DEVICE_INFO };

		gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
		if ((ret = gaccel_submit1(fd, queue, graph, b, 3, &s, 1)))
			die("SUBMIT", ret);
		if ((ret = gaccel_syncobj_wait(fd, s.handle, 0, WAIT_NS)))
			die("SYNCOBJ_WAIT", ret);
	}
	for (int i = 0; i < n; i++) {
		struct drm_gaccel_query q = { .type = DRM_GACCEL_QUERY_DEVICE_INFO };
		double t0 = now_us();

		ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
		t_ioctl[i] = now_us() - t0;
		if (ret)
			die("QUERY", ret);
	}
	for (int i = 0; i < n; i++) {
		double t0 = now_us(), t1;

		ret = gaccel_submit1(fd, queue, graph, b, 3, &s, 1);
		t1 = now_us();
		if (ret)
			die("SUBMIT", ret);
		if ((ret = gaccel_syncobj_wait(fd, s.handle, 0, WAIT_NS)))
			die("SYNCOBJ_WAIT", ret);
		t_job[i] = now_us() - t0;
		t_sub[i] = t1 - t0;
	}
	for (int j = 0; j < 16; j++)
		if (p[2][j] != 3.0f * j)
			die("ADD gave a wrong result", EIO);
	mi = median(t_ioctl, n);
	mj = median(t_job, n);
	ms = median(t_sub, n);
	printf("\n[1] latency, median of %d\n", n);
	printf("  bare ioctl (QUERY DEVICE_INFO, NULL)     %10.2f us\n", mi);
	printf("  SUBMIT alone (ADD 16 f32, signal)        %10.2f us   %8.1f x ioctl\n", ms, ms / mi);
	printf("  job round trip (SUBMIT + SYNCOBJ_WAIT)   %10.2f us   %8.1f x ioctl\n", mj, mj / mi);
	printf("  RESULT latency ioctl_us=%.2f job_us=%.2f ratio=%.1f\n", mi, mj, mj / mi);

	for (int i = 0; i < 3; i++) {
		munmap(p[i], 4096);
		gaccel_gem_close(fd, bo[i]);
	}
	gaccel_graph_destroy(fd, graph);
	free(t_ioctl);
	free(t_job);
	free(t_sub);
}

/* --- 2. userptr against copy ------------------------------------------------- */

static uint64_t mem_available(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static void bench_userptr(int fd, uint64_t size, uint64_t max_bo)
{
	int n = quick ? 3 : 5;
	double t_pin[16], t_close[16], t_copy[16], mp, mc, mcp;
	uint64_t avail = mem_available();
	uint8_t *src;

	/* The source, the copy and page tables must fit with room to spare. */
	while (size > 16 * MIB && (avail && 3 * size > avail))
		size /= 2;
	if (max_bo && size > max_bo)
		size = max_bo & ~(MIB - 1);
	src = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		die("mmap", errno);
	/* Touch every page so that the pin measures pinning, not faulting. */
	for (uint64_t i = 0; i < size; i += 4096)
		src[i] = (uint8_t)(i >> 12);

	for (int i = 0; i < n + 1; i++) {
		uint32_t h;
		double t0 = now_us(), t1;
		int ret = gaccel_userptr(fd, src, size, 0, &h);

		t1 = now_us();
		if (ret)
			die("BO_CREATE_USERPTR", ret);
		if ((ret = gaccel_gem_close(fd, h)))
			die("GEM_CLOSE", ret);
		if (i) {	/* the first is a warm-up */
			t_pin[i - 1] = t1 - t0;
			t_close[i - 1] = now_us() - t1;
		}
	}
	for (int i = 0; i < n + 1; i++) {
		double t0 = now_us();
		uint8_t *dst = malloc(size);

		if (!dst)
			die("malloc", ENOMEM);
		memcpy(dst, src, size);
		if (i)
			t_copy[i - 1] = now_us() - t0;
		/* Keep the copy observable. */
		if (dst[size - 4096] != src[size - 4096])
			die("memcpy", EIO);
		free(dst);
	}
	mp = median(t_pin, n);
	mc = median(t_close, n);
	mcp = median(t_copy, n);
	printf("\n[2] %llu MiB of touched anonymous memory, median of %d\n",
	       (unsigned long long)(size / MIB), n);
	printf("  BO_CREATE_USERPTR (pin, no copy)         %10.1f us   %6.2f GiB/s\n",
	       mp, size / (mp * 1e-6) / (1024.0 * MIB));
	printf("  GEM_CLOSE of it (unpin)                  %10.1f us\n", mc);
	printf("  malloc + memcpy                          %10.1f us   %6.2f GiB/s\n",
	       mcp, size / (mcp * 1e-6) / (1024.0 * MIB));
	printf("  copy / userptr create                    %10.2f x (%.2f x with the close)\n",
	       mcp / mp, mcp / (mp + mc));
	printf("  RESULT userptr size_mib=%llu create_us=%.1f close_us=%.1f copy_us=%.1f ratio=%.2f\n",
	       (unsigned long long)(size / MIB), mp, mc, mcp, mcp / mp);
	munmap(src, size);
}

/* --- 4. loading a weights file ----------------------------------------------- */

/* kB of a "Name:" line of /proc/meminfo or /proc/self/status. */
static long long proc_kb(const char *file, const char *name)
{
	char line[256];
	long long kb = -1;
	size_t n = strlen(name);
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			kb = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return kb;
}

/*
 * The process's anonymous memory plus the page cache and shmem (a BO's
 * pages are shmem, mapped without counting in the process's RSS), kB:
 * what the weights cost the host.
 */
static long long mem_kb(void)
{
	return proc_kb("/proc/self/status", "RssAnon") + proc_kb("/proc/meminfo", "Cached");
}

/* Cold reads: drop the page cache (root only; otherwise warm, and said). */
static int drop_caches(void)
{
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
	int ok;

	sync();
	if (!f)
		return 0;
	ok = fputs("3\n", f) >= 0;
	return fclose(f) == 0 && ok;
}

enum load_way { LOAD_MMAP, LOAD_URING, LOAD_READ, LOAD_WAYS };

static const char *const load_names[LOAD_WAYS] = {
	"mmap + userptr BO (zero copy)",
	"io_uring O_DIRECT + userptr BO",
	"read() + memcpy into a BO",
};

/*
 * One load of @path (@size bytes) into a buffer object the engine can use,
 * @way; returns its time, and in @kb the memory it added (before the BO is
 * closed).
 */
static double load_once(int fd, const char *path, size_t size, enum load_way way, long long *kb)
{
	size_t span = (size + 4095) & ~(size_t)4095;
	long long kb0 = mem_kb();
	double t0 = now_us(), t;
	void *p = MAP_FAILED;
	uint32_t h;
	int ret, f;

	if (way == LOAD_MMAP) {
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			die(path, errno);
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, f, 0);
		close(f);
		if (p == MAP_FAILED)
			die("mmap of the file", errno);
		/* read-only: the pin faults the file's pages in */
		if ((ret = gaccel_userptr(fd, p, span, DRM_GACCEL_BO_READ_ONLY, &h)))
			die("BO_CREATE_USERPTR", ret);
	} else if (way == LOAD_URING) {
		struct wio_stats st;

		p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap", errno);
		if ((ret = wio_read_uring(path, p, size, 64, 1 << 20, &st)))
			die("io_uring read", ret);
		if ((ret = gaccel_userptr(fd, p, span, 0, &h)))
			die("BO_CREATE_USERPTR", ret);
	} else {
		size_t chunk = 1 << 20, done = 0;
		char *bounce = malloc(chunk);
		uint8_t *bo = bo_new(fd, span, &h);

		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0 || !bounce)
			die(path, errno);
		while (done < size) {
			ssize_t n = read(f, bounce, chunk < size - done ? chunk : size - done);

			if (n <= 0)
				die("read", n < 0 ? errno : EIO);
			memcpy(bo + done, bounce, (size_t)n);
			done += (size_t)n;
		}
		close(f);
		free(bounce);
		p = bo;
	}
	t = now_us() - t0;
	*kb = mem_kb() - kb0;
	if ((ret = gaccel_gem_close(fd, h)))
		die("GEM_CLOSE", ret);
	munmap(p, way == LOAD_MMAP ? size : span);
	return t;
}

static void bench_load(int fd, const char *path)
{
	int n = quick ? 3 : 5, cold;
	double t[LOAD_WAYS][16];
	long long kb[LOAD_WAYS][16];
	struct stat st;
	struct wio_stats ws;
	void *probe;

	if (stat(path, &st) || st.st_size <= 0)
		die(path, errno ? errno : EINVAL);
	/* what the io_uring reader can use on this filesystem */
	probe = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED ||
	    wio_read_uring(path, probe, (size_t)st.st_size < (1u << 20) ? (size_t)st.st_size : 1 << 20,
			   16, 1 << 20, &ws))
		die("io_uring read", EIO);
	munmap(probe, 1 << 20);
	cold = drop_caches();
	for (int i = 0; i < n; i++)
		for (int w = 0; w < LOAD_WAYS; w++) {
			drop_caches();
			t[w][i] = load_once(fd, path, (size_t)st.st_size, (enum load_way)w, &kb[w][i]);
		}
	printf("\n[4] loading %s (%.1f MiB) into a buffer object, %s cache, median of %d, alternating\n",
	       path, st.st_size / (double)MIB, cold ? "cold" : "WARM (not root: cannot drop the)", n);
	printf("  io_uring: %s, %s buffer, 64 reads of 1 MiB in flight\n",
	       ws.direct ? "O_DIRECT" : "page cache (no O_DIRECT here)",
	       ws.fixed ? "registered" : "unregistered");
	printf("  %-34s %10s %9s %12s\n", "", "ms", "GiB/s", "memory MiB");
	for (int w = 0; w < LOAD_WAYS; w++) {
		double kbs[16], ms = median(t[w], n) / 1e3;

		for (int i = 0; i < n; i++)
			kbs[i] = (double)kb[w][i];
		printf("  %-34s %10.1f %9.2f %12.1f\n", load_names[w], ms,
		       st.st_size / (ms * 1e-3) / (1024.0 * MIB), median(kbs, n) / 1024.0);
		printf("  RESULT load way=%d ms=%.2f mem_mib=%.1f\n", w, ms, median(kbs, n) / 1024.0);
	}
	printf("  memory: the process's anonymous pages plus the page cache and shmem it added\n");

	/* the io_uring reader's queue depth, 1 MiB reads, into one buffer */
	{
		static const unsigned int qds[] = { 1, 4, 16, 64 };
		size_t span = ((size_t)st.st_size + 4095) & ~(size_t)4095;
		void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap", errno);
		memset(p, 0, span);	/* faulted in: the reads alone are timed */
		printf("  io_uring read alone (memory faulted in first), by reads in flight:");
		for (size_t q = 0; q < sizeof(qds) / sizeof(qds[0]); q++) {
			double tq[16], t0;

			for (int i = 0; i < n; i++) {
				drop_caches();
				t0 = now_us();
				if (wio_read_uring(path, p, (size_t)st.st_size, qds[q], 1 << 20, NULL))
					die("io_uring read", EIO);
				tq[i] = now_us() - t0;
			}
			printf(" %u: %.1f ms", qds[q], median(tq, n) / 1e3);
		}
		printf("\n");
		munmap(p, span);
	}
}

/* --- 3. MUL_MAT ---------------------------------------------------------------- */

/*
 * busy_ns of the engine (debugfs engine_stats: time its workers spent
 * inside jobs), or -1 where debugfs is not there (not root, not mounted).
 */
static long long engine_busy_ns(void)
{
	char line[128];
	long long v = -1;
	glob_t g;
	FILE *f;

	if (gaccel_debugfs_glob("engine_stats", &g) || !g.gl_pathc)
		return -1;
	f = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "busy_ns %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

struct mm_case {
	int m, k, n;		/* weights m x k, activations k x n */
	enum ggml_type type;
};

/*
 * Engine (SUBMIT + SYNCOBJ_WAIT) and CPU backend (ggml_backend_graph_compute)
 * on the same data, repetitions alternating between the two so that the
 * load of a shared machine weighs on both alike: their medians in @te and
 * @tc, the median of the repetitions' cpu/engine ratios in @ratio, their
 * results in @ye and @yc.
 */
static void mul_mat_both(int fd, uint32_t queue, const struct mm_case *c,
			 const void *wq, size_t wbytes, const float *x,
			 float *ye, float *yc, int n, double *te, double *tc, double *ratio,
			 double *busy)
{
	long long busy0 = -1, busy1;
	uint32_t dtype = c->type == GGML_TYPE_Q8_0 ? DRM_GACCEL_DTYPE_Q8_0 :
			 c->type == GGML_TYPE_Q4_0 ? DRM_GACCEL_DTYPE_Q4_0 :
			 c->type == GGML_TYPE_F16 ? DRM_GACCEL_DTYPE_F16 :
			 c->type == GGML_TYPE_BF16 ? DRM_GACCEL_DTYPE_BF16 : DRM_GACCEL_DTYPE_F32;
	size_t xbytes = (size_t)c->k * c->n * 4, ybytes = (size_t)c->m * c->n * 4;
	struct drm_gaccel_slot slots[3] = { { .size = wbytes }, { .size = xbytes }, { .size = ybytes } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, dtype, 0, c->k, c->m, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, c->k, c->n, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, c->m, c->n, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(DRM_GACCEL_OP_MUL_MAT, 2, 0, 1, GACCEL_NONE);
	struct drm_gaccel_binding b[3] = { 0 };
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	size_t sizes[3] = { wbytes, xbytes, ybytes };
	struct ggml_init_params ip = {
		.mem_size = ggml_tensor_overhead() * 8 + ggml_graph_overhead(),
		.no_alloc = true,
	};
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *w = ggml_new_tensor_2d(ctx, c->type, c->k, c->m);
	struct ggml_tensor *xt = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c->k, c->n);
	struct ggml_tensor *yt = ggml_mul_mat(ctx, w, xt);
	struct ggml_cgraph *gf = ggml_new_graph(ctx);
	ggml_backend_t be = ggml_backend_cpu_init();
	ggml_backend_buffer_t buf;
	double *tte = calloc(n, sizeof(double)), *ttc = calloc(n, sizeof(double));
	double *tr = calloc(n, sizeof(double));
	uint32_t graph, bo[3];
	void *p[3];
	int ret;

	if ((ret = gaccel_graph_create(fd, slots, 3, t, 3, &node, 1, &graph)))
		die("GRAPH_CREATE (MUL_MAT)", ret);
	for (int i = 0; i < 3; i++) {
		p[i] = bo_new(fd, sizes[i], &bo[i]);
		b[i].slot = i;
		b[i].handle = bo[i];
	}
	memcpy(p[0], wq, wbytes);
	memcpy(p[1], x, xbytes);
	if ((ret = gaccel_syncobj_create(fd, &s.handle)))
		die("SYNCOBJ_CREATE", ret);

	if (!be)
		die("ggml_backend_cpu_init", ENODEV);
	if (!tte || !ttc || !tr)
		die("calloc", ENOMEM);
	ggml_backend_cpu_set_n_threads(be, cpu_threads);
	ggml_build_forward_expand(gf, yt);
	buf = ggml_backend_alloc_ctx_tensors(ctx, be);
	if (!buf)
		die("ggml_backend_alloc_ctx_tensors", ENOMEM);
	ggml_backend_tensor_set(w, wq, 0, wbytes);
	ggml_backend_tensor_set(xt, x, 0, xbytes);

	for (int i = -2; i < n; i++) {
		double t0 = now_us();

		if (!i)
			busy0 = engine_busy_ns();
		if ((ret = gaccel_submit1(fd, queue, graph, b, 3, &s, 1)))
			die("SUBMIT (MUL_MAT)", ret);
		if ((ret = gaccel_syncobj_wait(fd, s.handle, 0, WAIT_NS)))
			die("SYNCOBJ_WAIT (MUL_MAT)", ret);
		if (i >= 0)
			tte[i] = now_us() - t0;

		t0 = now_us();
		if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS)
			die("ggml_backend_graph_compute", EIO);
		if (i >= 0)
			ttc[i] = now_us() - t0;
	}
	busy1 = engine_busy_ns();
	*busy = busy0 >= 0 && busy1 >= busy0 ? (busy1 - busy0) / 1e3 / n : -1;
	memcpy(ye, p[2], ybytes);
	ggml_backend_tensor_get(yt, yc, 0, ybytes);
	if (verbose) {
		printf("  engine us, cpu us of each repetition:");
		for (int i = 0; i < n; i++)
			printf(" %.0f,%.0f", tte[i], ttc[i]);
		printf("\n");
	}
	/*
	 * The ratio: the median of each repetition's own cpu/engine ratio,
	 * which a load that drifts over the run moves less than the ratio of
	 * the two medians (taken before median() sorts the times).
	 */
	for (int i = 0; i < n; i++)
		tr[i] = ttc[i] / tte[i];
	*ratio = median(tr, n);
	*te = median(tte, n);
	*tc = median(ttc, n);
	free(tr);
	free(tte);
	free(ttc);

	ggml_backend_buffer_free(buf);
	ggml_backend_free(be);
	ggml_free(ctx);
	for (int i = 0; i < 3; i++) {
		munmap(p[i], sizes[i]);
		gaccel_gem_close(fd, bo[i]);
	}
	{
		struct drm_syncobj_destroy d = { .handle = s.handle };

		gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
	gaccel_graph_destroy(fd, graph);
}

/* Whether @name is in the comma-separated @list. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',') {
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
	}
	return 0;
}

static void bench_mul_mat(int fd, uint32_t queue, uint32_t workers)
{
	static const enum ggml_type types[] = {
		GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
	};
	/* A 1B-class model's feed-forward: up/gate (5632 x 2048), down. */
	static const struct { int m, k, n; } full[] = {
		{ 5632, 2048, 1 }, { 5632, 2048, 32 }, { 2048, 5632, 1 }, { 2048, 5632, 32 },
	}, small[] = {
		{ 5632, 2048, 1 }, { 5632, 2048, 32 },
	};
	int nshape = quick ? 2 : 4;
	int n = quick ? 3 : reps, type_n[GGML_TYPE_COUNT] = { 0 }, ncases = 0;
	double sum_log = 0, type_log[GGML_TYPE_COUNT] = { 0 }, type_min[GGML_TYPE_COUNT];

	printf("\n[3] MUL_MAT y = W x, W m x k, x k x n; engine: %u workers, CPU backend: %d threads;"
	       " median of %d, alternating\n", workers, cpu_threads, n);
	printf("  engine us: round trip (SUBMIT + SYNCOBJ_WAIT), median; busy us: time the engine\n"
	       "  spent in the job (debugfs engine_stats), mean; eng/cpu: median of the\n"
	       "  repetitions' own cpu/engine time ratios (> 1: the engine is faster)\n");
	printf("  %-5s %5s %5s %4s %12s %11s %9s %12s %9s %8s %9s\n", "type", "m", "k", "n",
	       "engine us", "busy us", "GFLOPS", "cpu us", "GFLOPS", "eng/cpu", "max|d|");
	for (unsigned int ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		if (!listed(mm_types, ggml_type_name(types[ti])))
			continue;
		for (int si = 0; si < nshape; si++) {
			char cols[16];

			snprintf(cols, sizeof(cols), "%d", quick ? small[si].n : full[si].n);
			if (!listed(mm_cols, cols))
				continue;
			struct mm_case cs = {
				quick ? small[si].m : full[si].m, quick ? small[si].k : full[si].k,
				quick ? small[si].n : full[si].n, types[ti],
			}, *c = &cs;
			size_t nw = (size_t)c->m * c->k, wbytes = ggml_row_size(c->type, c->k) * c->m;
			float *w = malloc(nw * 4), *x = malloc((size_t)c->k * c->n * 4);
			float *ye = calloc((size_t)c->m * c->n, 4), *yc = calloc((size_t)c->m * c->n, 4);
			void *wq = malloc(wbytes);
			double te, tc, busy, flop = 2.0 * c->m * c->k * c->n, maxd = 0, maxy = 0, r;

			if (!w || !x || !ye || !yc || !wq)
				die("malloc", ENOMEM);
			for (size_t i = 0; i < nw; i++)
				w[i] = frand();
			for (size_t i = 0; i < (size_t)c->k * c->n; i++)
				x[i] = frand();
			if (c->type == GGML_TYPE_F32)
				memcpy(wq, w, wbytes);
			else
				ggml_quantize_chunk(c->type, w, wq, 0, c->m, c->k, NULL);
			mul_mat_both(fd, queue, c, wq, wbytes, x, ye, yc, n, &te, &tc, &r, &busy);
			for (size_t i = 0; i < (size_t)c->m * c->n; i++) {
				maxd = fmax(maxd, fabs((double)ye[i] - yc[i]));
				maxy = fmax(maxy, fabs((double)yc[i]));
			}
			printf("  %-5s %5d %5d %4d %12.1f %11.1f %9.3f %12.1f %9.3f %8.2f %9.2e\n",
			       ggml_type_name(c->type), c->m, c->k, c->n, te, busy, flop / te / 1e3,
			       tc, flop / tc / 1e3, r, maxd);
			printf("  RESULT mul_mat type=%s m=%d k=%d n=%d engine_gflops=%.3f cpu_gflops=%.3f"
			       " engine_over_cpu=%.2f\n", ggml_type_name(c->type), c->m, c->k, c->n,
			       flop / te / 1e3, flop / tc / 1e3, r);
			/*
			 * Both sum in float in their own orders (quantized
			 * weights: with the activations quantized to Q8_0 alike).
			 */
			if (maxd > 1e-3 * (maxy + 1))
				printf("  WARNING: the engine and the CPU disagree (max |d| %.3g, max |y| %.3g)\n",
				       maxd, maxy);
			sum_log += log(r);
			type_log[c->type] += log(r);
			type_min[c->type] = type_n[c->type]++ ? fmin(type_min[c->type], r) : r;
			ncases++;
			free(w);
			free(x);
			free(ye);
			free(yc);
			free(wq);
		}
	}
	for (int t = 0; t < GGML_TYPE_COUNT; t++)
		if (type_n[t]) {
			printf("  engine/cpu, %-5s geometric mean %6.2f, lowest %6.2f\n",
			       ggml_type_name(t), exp(type_log[t] / type_n[t]), type_min[t]);
			printf("  RESULT mul_mat_type type=%s geomean=%.2f min=%.2f\n",
			       ggml_type_name(t), exp(type_log[t] / type_n[t]), type_min[t]);
		}
	if (ncases)
		printf("  geometric mean engine/cpu speed ratio    %10.2f\n", exp(sum_log / ncases));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gaccel-bench [-n reps] [-s MiB] [-t cpu-threads] [-T types] [-C cols] [-q] [-m] [-l] [-v] [-L file]\n"
		"\n"
		"Measures the gaccel device in one run: a tiny job's round trip against a bare\n"
		"ioctl, wrapping memory as a userptr buffer against copying it, and MUL_MAT on\n"
		"the engine against the CPU backend on the same data (medians).\n"
		"\n"
		"  -n  repetitions (default 15)\n"
		"  -s  MiB of the userptr case (default 256, lowered to fit free memory)\n"
		"  -t  CPU backend threads (default: the engine's workers)\n"
		"  -T  MUL_MAT weight types, comma-separated (default f32,f16,bf16,q8_0,q4_0)\n"
		"  -C  MUL_MAT column counts, comma-separated (default 1,32)\n"
		"  -q  quick: fewer repetitions and matrix cases\n"
		"  -m  MUL_MAT only    -l  latency only\n"
		"  -v  also print every MUL_MAT repetition's times\n"
		"  -L  FILE: only the loading of FILE into a buffer object: mapped and\n"
		"      wrapped, read with io_uring (O_DIRECT) and wrapped, read() and copied\n"
		"  --help  this text\n");
}

int main(int argc, char **argv)
{
	struct drm_gaccel_device_info info = { 0 };
	struct drm_gaccel_query q = { .type = DRM_GACCEL_QUERY_DEVICE_INFO };
	uint64_t size = 256 * MIB;
	uint32_t queue;
	int fd, ret, opt;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "n:s:t:T:C:qmlL:v")) != -1) {
		switch (opt) {
		case 'n': reps = atoi(optarg); break;
		case 's': size = strtoull(optarg, NULL, 0) * MIB; break;
		case 't': cpu_threads = atoi(optarg); break;
		case 'T': mm_types = optarg; break;
		case 'C': mm_cols = optarg; break;
		case 'q': quick = 1; break;
		case 'm': mm_only = 1; break;
		case 'l': lat_only = 1; break;
		case 'L': load_path = optarg; break;
		case 'v': verbose = 1; break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (reps < 1)
		reps = 1;
	if (size < MIB)
		size = MIB;

	fd = gaccel_open_device();
	if (fd < 0)
		die("no gaccel device", fd);
	q.size = sizeof(info);
	q.pointer = (uintptr_t)&info;
	if ((ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q)))
		die("QUERY", ret);
	if ((ret = gaccel_queue_create(fd, &queue)))
		die("QUEUE_CREATE", ret);
	/* Like with like: as many CPU threads as the engine has workers. */
	if (cpu_threads < 1)
		cpu_threads = info.num_workers ? (int)info.num_workers : 1;

	printf("gaccel-bench: engine \"%s\", %u workers; %ld CPUs online; %llu MiB available\n",
	       info.engine_name, info.num_workers, sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long long)(mem_available() / MIB));
	printf("Note: under QEMU TCG absolute numbers mean little (AVX2 is emulated, slower than\n"
	       "scalar code); the ratios between figures of the same run are what count.\n");

	if (load_path) {
		bench_load(fd, load_path);
		gaccel_queue_destroy(fd, queue);
		close(fd);
		return 0;
	}
	if (!mm_only)
		bench_latency(fd, queue);
	if (!mm_only && !lat_only)
		bench_userptr(fd, size, info.max_bo_size);
	if (!lat_only)
		bench_mul_mat(fd, queue, info.num_workers);

	gaccel_queue_destroy(fd, queue);
	close(fd);
	return 0;
}
