// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Concurrency: threads on several files submitting and checking results
 * while others create, export, import and close objects, graphs and queues,
 * and threads sharing one file and one queue. Hostile clients (uid 65534):
 * one that takes every queue it may while others keep working, one that
 * floods the engine beside a latency-sensitive client, and SUBMIT racing
 * QUEUE_DESTROY and file close from many threads.
 */
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"
#include "gaccel_job_test.h"

#define N 512
#define ROUNDS 40

static atomic_int failures;

static int add_graph(int fd, uint32_t *g)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 },
					    { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, g);
}

struct worker {
	int fd;		/* shared file, or -1 for an own one */
	uint32_t queue;	/* shared queue, or 0 */
	int seed;
};

/* c = a + b with a = seed, b = round, on own objects; check every round. */
static void *submitter(void *arg)
{
	struct worker *w = arg;
	int fd = w->fd >= 0 ? w->fd : gaccel_open_device();
	uint32_t q = w->queue, g, so, h[3];
	float *p[3];

	if (fd < 0 || (!q && gaccel_queue_create(fd, &q)) || add_graph(fd, &g) ||
	    gaccel_syncobj_create(fd, &so))
		goto fail;
	for (int i = 0; i < 3; i++) {
		if (gaccel_bo_create(fd, N * 4, 0, &h[i]))
			goto fail;
		p[i] = gaccel_bo_mmap(fd, h[i], PROT_READ | PROT_WRITE);
		if (p[i] == MAP_FAILED)
			goto fail;
	}
	for (int r = 0; r < ROUNDS; r++) {
		struct drm_gaccel_binding b[3] = {
			{ .slot = 0, .handle = h[0] }, { .slot = 1, .handle = h[1] },
			{ .slot = 2, .handle = h[2] },
		};
		struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };

		for (int j = 0; j < N; j++) {
			p[0][j] = w->seed;
			p[1][j] = r + j;
		}
		if (gaccel_submit1(fd, q, g, b, 3, &s, 1) ||
		    gaccel_syncobj_wait(fd, so, 0, 30000000000ll))
			goto fail;
		for (int j = 0; j < N; j++)
			if (p[2][j] != (float)(w->seed + r + j))
				goto fail;
	}
	for (int i = 0; i < 3; i++)
		munmap(p[i], N * 4);
	if (w->fd < 0)
		close(fd);
	return NULL;
fail:
	atomic_fetch_add(&failures, 1);
	return NULL;
}

static atomic_int stop;

/* Create, export, import and close objects, graphs and queues. */
static void *churner(void *arg)
{
	int fd = gaccel_open_device(), fd2 = gaccel_open_device();

	(void)arg;
	if (fd < 0 || fd2 < 0)
		goto fail;
	while (!atomic_load(&stop)) {
		uint32_t h, h2, g, q;
		int dmabuf;

		if (gaccel_bo_create(fd, 65536, 0, &h))
			goto fail;
		dmabuf = gaccel_prime_export(fd, h);
		if (dmabuf < 0 || gaccel_prime_import(fd2, dmabuf, &h2))
			goto fail;
		close(dmabuf);
		if (gaccel_gem_close(fd, h) || gaccel_gem_close(fd2, h2))
			goto fail;
		if (add_graph(fd, &g) || gaccel_graph_destroy(fd, g))
			goto fail;
		if (gaccel_queue_create(fd2, &q) || gaccel_queue_destroy(fd2, q))
			goto fail;
	}
	close(fd);
	close(fd2);
	return NULL;
fail:
	atomic_fetch_add(&failures, 1);
	return NULL;
}

TEST(files_and_threads)
{
	enum { S = 4, C = 2 };
	pthread_t st[S], ct[C];
	struct worker w[S];

	atomic_store(&failures, 0);
	atomic_store(&stop, 0);
	for (int i = 0; i < C; i++)
		ASSERT_EQ(0, pthread_create(&ct[i], NULL, churner, NULL));
	for (int i = 0; i < S; i++) {
		w[i] = (struct worker){ .fd = -1, .seed = 1000 * (i + 1) };
		ASSERT_EQ(0, pthread_create(&st[i], NULL, submitter, &w[i]));
	}
	for (int i = 0; i < S; i++)
		pthread_join(st[i], NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < C; i++)
		pthread_join(ct[i], NULL);
	EXPECT_EQ(0, atomic_load(&failures));
}

TEST(threads_sharing_a_file_and_a_queue)
{
	enum { S = 4 };
	pthread_t st[S];
	struct worker w[S];
	struct drm_gaccel_queue_get_state state;
	uint32_t q;
	int fd = gaccel_open_device();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	atomic_store(&failures, 0);
	for (int i = 0; i < S; i++) {
		w[i] = (struct worker){ .fd = fd, .queue = i % 2 ? q : 0, .seed = 7 * i };
		ASSERT_EQ(0, pthread_create(&st[i], NULL, submitter, &w[i]));
	}
	for (int i = 0; i < S; i++)
		pthread_join(st[i], NULL);
	EXPECT_EQ(0, atomic_load(&failures));
	ASSERT_EQ(0, gaccel_queue_state(fd, q, &state));
	EXPECT_EQ(2 * ROUNDS, state.completed);
	EXPECT_EQ(0, state.state);
	close(fd);
}

/* SUBMIT racing QUEUE_DESTROY: every accepted job must run and signal. */
static atomic_uint race_queue;
static atomic_int race_stop;

static void *destroyer(void *arg)
{
	int fd = *(int *)arg;

	while (!atomic_load(&race_stop)) {
		uint32_t q, old;

		if (gaccel_queue_create(fd, &q))
			break;
		old = atomic_exchange(&race_queue, q);
		gaccel_queue_destroy(fd, old);
		usleep(200);
	}
	return NULL;
}

TEST(submit_racing_queue_destroy)
{
	uint32_t q, g, so, h[3];
	int fd = gaccel_open_device(), accepted = 0, lost = 0;
	pthread_t t;
	struct timespec start, now;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, gaccel_queue_create(fd, &q));
	atomic_store(&race_queue, q);
	atomic_store(&race_stop, 0);
	ASSERT_EQ(0, add_graph(fd, &g));
	ASSERT_EQ(0, gaccel_syncobj_create(fd, &so));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, gaccel_bo_create(fd, N * 4, 0, &h[i]));
	ASSERT_EQ(0, pthread_create(&t, NULL, destroyer, &fd));
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		struct drm_gaccel_binding b[3] = {
			{ .slot = 0, .handle = h[0] }, { .slot = 1, .handle = h[1] },
			{ .slot = 2, .handle = h[2] },
		};
		struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };
		int ret = gaccel_submit1(fd, atomic_load(&race_queue), g, b, 3, &s, 1);

		if (ret == 0) {
			accepted++;
			if (gaccel_syncobj_wait(fd, so, 0, 5000000000ll))
				lost++;
		} else {
			ASSERT_EQ(-ENOENT, ret);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 3 && !lost);
	atomic_store(&race_stop, 1);
	pthread_join(t, NULL);
	EXPECT_EQ(0, lost);
	EXPECT_GT(accepted, 0);
	close(fd);
}

/* --- hostile clients --------------------------------------------------------- */

static int query_limits(int fd, struct drm_gaccel_limits *l)
{
	struct drm_gaccel_query q = {
		.type = DRM_GACCEL_QUERY_LIMITS,
		.size = sizeof(*l),
		.pointer = (uintptr_t)l,
	};

	memset(l, 0, sizeof(*l));
	return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
}

/* A job on a file of its own, checked, then a fork: 0 when all works. */
static int works_normally(void *arg)
{
	struct drm_gaccel_binding b[3] = { { .slot = 0 }, { .slot = 1 }, { .slot = 2 } };
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL };
	int fd = gaccel_open_device(), status;
	uint32_t q, g;
	float *p[3];
	pid_t pid;

	(void)arg;
	if (fd < 0 || gaccel_queue_create(fd, &q) || add_graph(fd, &g) ||
	    gaccel_syncobj_create(fd, &s.handle))
		return 10;
	for (int i = 0; i < 3; i++) {
		if (gaccel_bo_create(fd, N * 4, 0, &b[i].handle))
			return 11;
		p[i] = gaccel_bo_mmap(fd, b[i].handle, PROT_READ | PROT_WRITE);
		if (p[i] == MAP_FAILED)
			return 12;
	}
	for (int j = 0; j < N; j++) {
		p[0][j] = j;
		p[1][j] = 1;
	}
	if (gaccel_submit1(fd, q, g, b, 3, &s, 1) ||
	    gaccel_syncobj_wait(fd, s.handle, 0, 10000000000ll))
		return 13;
	for (int j = 0; j < N; j++)
		if (p[2][j] != j + 1)
			return 14;
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return 15;
	close(fd);
	return 0;
}

struct hog {
	int files, ready[2], go[2];
};

/*
 * uid 65534: take every queue @files files may have, then wait for the parent
 * to look at the system and let go. Exits 0 if each file got exactly its
 * limit and then -EMFILE.
 */
static int queue_hog(void *arg)
{
	struct hog *h = arg;
	struct drm_gaccel_limits l;
	int fd, bad = 0;
	char c = 0;

	for (int f = 0; f < h->files; f++) {
		uint32_t q, n = 0;
		int ret = 0;

		fd = gaccel_open_device();
		if (fd < 0 || query_limits(fd, &l) || !l.max_queues)
			return 20;
		while (n <= l.max_queues && !(ret = gaccel_queue_create(fd, &q)))
			n++;
		if (n != l.max_queues || ret != -EMFILE)
			bad = 21;
	}
	if (write(h->ready[1], &c, 1) != 1 || read(h->go[0], &c, 1) != 1)
		return 22;
	return bad;
}

static int run_hog(void *arg)
{
	return queue_hog(arg);
}

/*
 * An unprivileged client creates queues until its limit: each file gets
 * max_queues and then -EMFILE, the kernel starts no thread for them, and
 * meanwhile root and another unprivileged process open the device, create
 * queues, complete jobs and fork.
 */
TEST(queue_exhaustion_by_an_unprivileged_client)
{
	/* Three files: the user's own limit (four files' worth) keeps room. */
	struct hog h = { .files = 3 };
	long threads0, threads1;
	int status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(h.ready));
	ASSERT_EQ(0, pipe(h.go));
	threads0 = gaccel_thread_count();
	ASSERT_LT(0, threads0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (gaccel_become_nobody())
			_exit(30);
		_exit(run_hog(&h));
	}
	ASSERT_EQ(1, read(h.ready[0], &c, 1));
	threads1 = gaccel_thread_count();
	TH_LOG("threads: %ld before, %ld with %d files full of queues", threads0, threads1,
	       h.files);
	/* No kernel thread per queue (one used to come with each). */
	EXPECT_GT(threads0 + 16, threads1);
	EXPECT_EQ(0, gaccel_run_child(works_normally, NULL, 0));
	EXPECT_EQ(0, gaccel_run_child(works_normally, NULL, 1));
	ASSERT_EQ(1, write(h.go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* An ADD of @n floats per job, writing an object of each queue. */
struct load {
	int fd;
	uint64_t n;
	uint32_t graph, in[2];
};

static int load_open(struct load *l, uint64_t n)
{
	struct drm_gaccel_slot slots[3] = { { .size = n * 4 }, { .size = n * 4 },
					    { .size = n * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, n, 1, 1, 1),
	};
	struct drm_gaccel_node nd = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	l->n = n;
	l->fd = gaccel_open_device();
	if (l->fd < 0 || gaccel_bo_create(l->fd, n * 4, 0, &l->in[0]) ||
	    gaccel_bo_create(l->fd, n * 4, 0, &l->in[1]))
		return -1;
	return gaccel_graph_create(l->fd, slots, 3, t, 3, &nd, 1, &l->graph);
}

/* One job writing @out; raw ioctl, so -EAGAIN comes back. */
static int load_submit(struct load *l, uint32_t q, uint32_t out, uint32_t so)
{
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = l->in[0] },
		{ .slot = 1, .handle = l->in[1] },
		{ .slot = 2, .handle = out },
	};
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };
	struct drm_gaccel_job job = {
		.graph = l->graph,
		.bindings = { sizeof(b[0]), 3, (uintptr_t)b },
		.syncs = { sizeof(s), so ? 1 : 0, (uintptr_t)&s },
	};
	struct drm_gaccel_submit sub = {
		.queue = q,
		.jobs = { sizeof(job), 1, (uintptr_t)&job },
	};

	return ioctl(l->fd, DRM_IOCTL_GACCEL_SUBMIT, &sub) ? -errno : 0;
}

#define FLOOD_N (256 * 1024)
#define VICTIM_N (128 * 1024)

struct flood {
	int ready[2];
	long submitted;
};

/*
 * uid 65534: as many queues as allowed, each writing its own object, each
 * given as many jobs as the limits allow (at most 64: enough backlog for
 * the test), then wait to be killed.
 */
static int flooder(void *arg)
{
	struct flood *fl = arg;
	struct drm_gaccel_limits lim;
	struct load l;
	uint32_t q[64], out[64];
	unsigned int nq;
	long n = 0;

	if (load_open(&l, FLOOD_N) || query_limits(l.fd, &lim))
		return 40;
	nq = lim.max_queues < 64 ? lim.max_queues : 64;
	for (unsigned int i = 0; i < nq; i++)
		if (gaccel_queue_create(l.fd, &q[i]) ||
		    gaccel_bo_create(l.fd, FLOOD_N * 4, 0, &out[i]))
			return 41;
	for (int j = 0; j < 64; j++) {
		for (unsigned int i = 0; i < nq; i++) {
			int ret = load_submit(&l, q[i], out[i], 0);

			if (ret && ret != -EAGAIN)
				return 42;
			n += !ret;
		}
	}
	if (write(fl->ready[1], &n, sizeof(n)) != sizeof(n))
		return 43;
	for (;;)
		pause();
}

static long long engine_jobs(void)
{
	char line[128];
	long long v = -1;
	glob_t g;
	FILE *f;

	if (gaccel_debugfs_glob("engine_stats", &g) || g.gl_pathc != 1) {
		globfree(&g);
		return -1;
	}
	f = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "jobs ", 5))
			v = atoll(line + 5);
	fclose(f);
	return v;
}

/*
 * Latency of @n jobs of the victim, one after the other, in @ms; the most
 * engine jobs that ran while one victim job waited in @most_between, and
 * whether each finished without error.
 */
static int victim_run(struct load *l, uint32_t q, uint32_t out, uint32_t so, int n,
		      double *ms, long long *most_between)
{
	*most_between = 0;
	for (int i = 0; i < n; i++) {
		struct gaccel_sf_info info;
		long long before = engine_jobs(), between;
		double t0 = gaccel_now_ms();
		int sf;

		if (load_submit(l, q, out, so) ||
		    gaccel_syncobj_wait(l->fd, so, 0, 60000000000ll))
			return -1;
		ms[i] = gaccel_now_ms() - t0;
		between = engine_jobs() - before - 1;
		if (between > *most_between)
			*most_between = between;
		sf = gaccel_export_sync_file(l->fd, so);
		if (sf < 0 || gaccel_sync_file_info(sf, &info))
			return -1;
		close(sf);
		if (info.status != 1)
			return info.status;
	}
	return 0;
}

/*
 * An unprivileged client floods the engine (sixteen queues, a thousand
 * jobs, each several times longer than the victim's) beside a client
 * running one job at a time. Every victim job completes within the job
 * timeout (which measures its run, not its wait), and each waits behind
 * about one flood job per turn of the schedulers: turns go to clients,
 * not queues, so neither the flood's backlog nor its queue count matters.
 */
FIXTURE(flood) {
	int unused;
};

FIXTURE_SETUP(flood)
{
}

FIXTURE_TEARDOWN(flood)
{
}

/* Long under a loaded TCG host: the default 30 s is too short. */
TEST_F_TIMEOUT(flood, beside_a_latency_sensitive_client, 240)
{
	enum { V = 10 };
	long long timeout = gaccel_param_get("job_timeout_ms"), most, most_free;
	double alone[V], flooded[V], t0, flood_job_ms;
	struct flood fl;
	uint32_t q, out, so, fq, fout;
	struct load l;
	long backlog;
	int status, ret;
	pid_t pid;

	ASSERT_LT(0, timeout);
	ASSERT_EQ(0, load_open(&l, VICTIM_N));
	ASSERT_EQ(0, gaccel_queue_create(l.fd, &q));
	ASSERT_EQ(0, gaccel_bo_create(l.fd, VICTIM_N * 4, 0, &out));
	ASSERT_EQ(0, gaccel_syncobj_create(l.fd, &so));

	/* How long one flood job runs here. */
	{
		struct load fj;

		ASSERT_EQ(0, load_open(&fj, FLOOD_N));
		ASSERT_EQ(0, gaccel_queue_create(fj.fd, &fq));
		ASSERT_EQ(0, gaccel_bo_create(fj.fd, FLOOD_N * 4, 0, &fout));
		ASSERT_EQ(0, gaccel_syncobj_create(fj.fd, &so));
		ASSERT_EQ(0, load_submit(&fj, fq, fout, so));
		ASSERT_EQ(0, gaccel_syncobj_wait(fj.fd, so, 0, 60000000000ll));
		t0 = gaccel_now_ms();
		ASSERT_EQ(0, load_submit(&fj, fq, fout, so));
		ASSERT_EQ(0, gaccel_syncobj_wait(fj.fd, so, 0, 60000000000ll));
		flood_job_ms = gaccel_now_ms() - t0;
		close(fj.fd);
		ASSERT_EQ(0, gaccel_syncobj_create(l.fd, &so));
	}
	/*
	 * Ten flood jobs' time: plenty for one job's own run even with the
	 * CPUs shared with the flood, far less than the flood's backlog.
	 */
	ASSERT_EQ(0, gaccel_param_set("job_timeout_ms",
				      (long long)(10 * flood_job_ms) > 1000 ?
				      (long long)(10 * flood_job_ms) : 1000));

	ASSERT_EQ(0, victim_run(&l, q, out, so, V, alone, &most_free));

	ASSERT_EQ(0, pipe(fl.ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (gaccel_become_nobody())
			_exit(30);
		_exit(flooder(&fl));
	}
	ASSERT_EQ(sizeof(backlog), read(fl.ready[0], &backlog, sizeof(backlog)));

	ret = victim_run(&l, q, out, so, V, flooded, &most);

	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	gaccel_param_set("job_timeout_ms", timeout);
	/* No victim job timed out (-ETIMEDOUT) or failed. */
	EXPECT_EQ(0, ret);
	TH_LOG("flood job %.1f ms, backlog %ld jobs; victim job latency p50/p99: alone %.1f/%.1f ms, beside the flood %.1f/%.1f ms; flood jobs run while one victim job waited: at most %lld",
	       flood_job_ms, backlog, gaccel_percentile(alone, V, 50), gaccel_percentile(alone, V, 99),
	       gaccel_percentile(flooded, V, 50), gaccel_percentile(flooded, V, 99), most);
	/*
	 * Behind about one flood job per turn, not one per flooding queue.
	 * The count runs from SUBMIT to the victim reading the counter
	 * after its wait, so it also counts flood jobs that ended while the
	 * victim's own thread waited for a CPU; on the debug kernels
	 * (timeouts scaled), where its SUBMIT and wakeup take many flood
	 * jobs' time, allow twice as many.
	 *
	 * A drm_sched without the FIFO policy (before 6.2: no sched_policy
	 * parameter) takes entities round robin in list order, so each of
	 * the flood's queues may get its turn before the victim's: there
	 * the bound is one flood job per flooding queue, still nothing like
	 * the backlog (gaccel.rst, "Kernel compatibility").
	 */
	if (access("/sys/module/gpu_sched/parameters/sched_policy", F_OK)) {
		struct drm_gaccel_limits lim;

		ASSERT_EQ(0, query_limits(l.fd, &lim));
		unsigned int nq = lim.max_queues < 64 ? lim.max_queues : 64;

		TH_LOG("drm_sched has no FIFO policy on this kernel: bound by the flood's %u queues",
		       nq);
		EXPECT_GT((long long)nq + 8, most);
	} else {
		EXPECT_GT(gaccel_test_timeout_scale() > 1 ? 16 : 8, most);
	}
	close(l.fd);
}

struct racer {
	_Atomic int *fd;	/* the shared file, replaced under our feet */
	_Atomic uint32_t *queue;
	atomic_int *stop;
	int dmabuf;
	long accepted, refused;
};

/* Submit jobs writing the shared object through whatever file is current. */
static void *race_submitter(void *arg)
{
	struct racer *r = arg;

	while (!atomic_load(r->stop)) {
		struct drm_gaccel_binding b[3] = { { .slot = 0, .handle = 1 },
						   { .slot = 1, .handle = 2 },
						   { .slot = 2, .handle = 3 } };
		struct drm_gaccel_job job = {
			.graph = 1,
			.bindings = { sizeof(b[0]), 3, (uintptr_t)b },
		};
		struct drm_gaccel_submit sub = {
			.queue = atomic_load(r->queue),
			.jobs = { sizeof(job), 1, (uintptr_t)&job },
		};

		if (ioctl(atomic_load(r->fd), DRM_IOCTL_GACCEL_SUBMIT, &sub))
			r->refused++;
		else
			r->accepted++;
	}
	return NULL;
}

/* A file with objects 1, 2 (its own) and 3 (the shared one), graph 1. */
static int race_file(int dmabuf, uint32_t *q)
{
	int fd = gaccel_open_device();
	uint32_t h[3], g;

	if (fd < 0 || gaccel_bo_create(fd, N * 4, 0, &h[0]) ||
	    gaccel_bo_create(fd, N * 4, 0, &h[1]) || gaccel_prime_import(fd, dmabuf, &h[2]) ||
	    add_graph(fd, &g) || gaccel_queue_create(fd, q))
		return -1;
	return fd;
}

/*
 * Many threads submit through a file while others destroy its queue and
 * replace the file itself (closing the old one with jobs in flight and
 * SUBMITs in progress). Every accepted job writes a shared object: at the
 * end its fences all signal, and once everything is closed the module's
 * reference count (held by every job fence) is back where it was.
 */
TEST(submit_racing_queue_destroy_and_file_close)
{
	enum { T = 4, SECONDS = 3 };
	_Atomic int fd;
	_Atomic uint32_t queue;
	atomic_int stop = 0;
	struct racer r[T];
	pthread_t th[T];
	long long base;
	long accepted = 0;
	int obs, dmabuf, f;
	uint32_t shared, q;
	double t0;

	base = gaccel_wait_refcnt(0, 5);
	obs = gaccel_open_device();
	ASSERT_LE(0, obs);
	ASSERT_EQ(0, gaccel_bo_create(obs, N * 4, 0, &shared));
	dmabuf = gaccel_prime_export(obs, shared);
	ASSERT_LE(0, dmabuf);
	f = race_file(dmabuf, &q);
	ASSERT_LE(0, f);
	atomic_store(&fd, f);
	atomic_store(&queue, q);
	for (int i = 0; i < T; i++) {
		r[i] = (struct racer){ .fd = &fd, .queue = &queue, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_submitter, &r[i]));
	}
	t0 = gaccel_now_ms();
	for (int round = 0; gaccel_now_ms() - t0 < SECONDS * 1000; round++) {
		usleep(2000);
		if (round % 3) {
			/* A new queue; the old one destroyed with work queued. */
			int cur = atomic_load(&fd);

			ASSERT_EQ(0, gaccel_queue_create(cur, &q));
			gaccel_queue_destroy(cur, atomic_exchange(&queue, q));
		} else {
			/* A new file; the old one closed under the submitters. */
			f = race_file(dmabuf, &q);
			ASSERT_LE(0, f);
			atomic_store(&queue, q);
			close(atomic_exchange(&fd, f));
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		accepted += r[i].accepted;
	}
	close(atomic_load(&fd));
	TH_LOG("%ld jobs accepted", accepted);
	EXPECT_LT(0, accepted);
	/* Every accepted job's fence is in the shared object: all signal. */
	EXPECT_EQ(0, gaccel_bo_wait(obs, shared, 20000000000ll));
	close(dmabuf);
	close(obs);
	/* And every fence was freed. */
	EXPECT_GE(base, gaccel_wait_refcnt(base, 10));
}

GACCEL_TEST_HARNESS_MAIN
