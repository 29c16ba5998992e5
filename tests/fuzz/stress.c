// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stress: threads racing on shared gaccel files for a bounded time, run in
 * the test VM (`make stress`).
 *
 * Every file has a small table of objects, graphs, queues; threads pick
 * entries at random and submit jobs on them while other threads replace
 * entries under their feet: they close the old object, destroy the old
 * graph or queue (jobs in flight or about to be submitted), export objects
 * and import them into the other files, wait on objects, read queue states,
 * and whole extra files are opened, loaded with jobs and closed without
 * waiting; queues of every priority come and go, and child processes
 * loaded with jobs are killed with SIGKILL (their queues then skip what
 * is left). Unlike tests/driver/concurrency_test.c nothing here
 * cooperates: a handle may be gone by the time it is used.
 *
 * Pass: every ioctl returns 0 or an errno the race allows (-ENOENT for a
 * handle closed meanwhile, -EINVAL for a handle reused by an object of
 * another size), every wait ends before its deadline, and (checked by the
 * VM runner) the kernel logs no oops, WARNING, lockdep report or stall.
 * Prints TAP: 1..1.
 *
 * usage: stress [-t seconds] [-f files] [-j threads-per-file] [-s seed] [-Q]
 *   -Q  never destroy a queue threads may be submitting to (once needed to
 *       avoid repro-queue-destroy-race.c; kept to narrow a search)
 * The run stops at the first wait that times out.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gaccel_test.h"

#define N 256
#define BO_SIZE 4096
#define NBO 6
#define NGRAPH 2
#define NQUEUE 2
#define MAXFILES 8
#define WAIT_NS 30000000000ll

struct file {
	int fd;
	_Atomic uint32_t bo[NBO], graph[NGRAPH], queue[NQUEUE];
};

static struct file files[MAXFILES];
static int nfiles = 3, nthreads = 3;
static double seconds = 60;
static uint64_t seed;
static atomic_bool stop;
static atomic_ulong unexpected, submits_ok, submits_refused, churns, imports, reopens;
static atomic_ulong enoent, einval, killed;
static char node[300];	/* the device node, for forked children */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Counts a result; returns it. @allowed lists errnos (positive), 0-terminated. */
static int check(int ret, const char *what, const int *allowed)
{
	if (!ret)
		return 0;
	if (ret == -ENOENT)
		atomic_fetch_add(&enoent, 1);
	if (ret == -EINVAL)
		atomic_fetch_add(&einval, 1);
	for (; *allowed; allowed++)
		if (*allowed == -ret)
			return ret;
	atomic_fetch_add(&unexpected, 1);
	printf("# %s returned %d (%s)\n", what, ret, strerror(-ret));
	/* A job that never ends blocks all that follows: stop there. */
	if (ret == -ETIME)
		atomic_store(&stop, 1);
	return ret;
}

static const int none[] = { 0 };
static const int gone[] = { ENOENT, 0 };
/* DRM_IOCTL_GEM_CLOSE says -EINVAL for a handle it does not know. */
static const int gem_gone[] = { ENOENT, EINVAL, 0 };
static int no_queue_churn;
static const int submit_errs[] = { ENOENT, EINVAL, 0 };

static int add_graph(int fd, uint32_t *g)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node n = gaccel_node(DRM_GACCEL_OP_ADD, 2, 0, 1, GACCEL_NONE);

	return gaccel_graph_create(fd, slots, 3, t, 3, &n, 1, g);
}

static uint32_t new_bo(int fd, uint64_t *rs)
{
	uint32_t h = 0;

	/* A userptr object now and then; its range is unmapped at once. */
	if (next(rs) % 4 == 0) {
		void *p = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 0;
		memset(p, 0, BO_SIZE);
		check(gaccel_userptr(fd, p, BO_SIZE, 0, &h), "BO_CREATE_USERPTR", none);
		munmap(p, BO_SIZE);
		return h;
	}
	check(gaccel_bo_create(fd, BO_SIZE, 0, &h), "BO_CREATE", none);
	return h;
}

static void submit_some(struct file *f, uint64_t *rs, uint32_t so)
{
	struct drm_gaccel_binding b[3] = { 0 };
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };
	uint32_t g = atomic_load(&f->graph[next(rs) % NGRAPH]);
	uint32_t q = atomic_load(&f->queue[next(rs) % NQUEUE]);
	int ret, n = 1 + next(rs) % 4;

	for (int i = 0; i < 3; i++) {
		b[i].slot = i;
		b[i].handle = atomic_load(&f->bo[next(rs) % NBO]);
	}
	for (int k = 0; k < n; k++) {
		ret = check(gaccel_submit1(f->fd, q, g, b, 3, &s, 1), "SUBMIT", submit_errs);
		if (ret) {
			atomic_fetch_add(&submits_refused, 1);
			return;
		}
		atomic_fetch_add(&submits_ok, 1);
	}
	if (next(rs) % 2)
		check(gaccel_syncobj_wait(f->fd, so, 0, WAIT_NS), "SYNCOBJ_WAIT", none);
}

/*
 * A child process (forked from a threaded one: system calls only, no
 * allocation) loading the engine with jobs until it is killed.
 */
static void killed_child(uint64_t *rs)
{
	struct drm_gaccel_binding b[3] = { 0 };
	uint32_t q, g;
	pid_t pid = fork();
	int fd, status;

	if (pid < 0)
		return;
	if (pid == 0) {
		struct drm_gaccel_queue_create c = { .priority = next(rs) % 2 };

		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0 || gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c) ||
		    add_graph(fd, &g))
			_exit(1);
		q = c.handle;
		for (int i = 0; i < 3; i++) {
			b[i].slot = i;
			if (gaccel_bo_create(fd, BO_SIZE, 0, &b[i].handle))
				_exit(1);
		}
		for (;;)
			if (gaccel_submit1(fd, q, g, b, 3, NULL, 0))
				pause();
	}
	usleep(1000 + next(rs) % 20000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	atomic_fetch_add(&killed, 1);
}

static void *worker(void *arg)
{
	struct file *f = arg;
	uint64_t rs = seed ^ (uintptr_t)arg ^ (uint64_t)pthread_self();
	uint32_t so = 0;
	uint32_t old, h;

	rs |= 1;
	check(gaccel_syncobj_create(f->fd, &so), "SYNCOBJ_CREATE", none);
	while (!atomic_load(&stop)) {
		switch (next(&rs) % 16) {
		case 0: case 1: case 2: case 3: case 4: case 5:
			submit_some(f, &rs, so);
			break;
		case 6: case 7:		/* replace an object */
			h = new_bo(f->fd, &rs);
			if (!h)
				break;
			old = atomic_exchange(&f->bo[next(&rs) % NBO], h);
			check(gaccel_gem_close(f->fd, old), "GEM_CLOSE", gem_gone);
			atomic_fetch_add(&churns, 1);
			break;
		case 8:			/* replace a graph */
			if (check(add_graph(f->fd, &h), "GRAPH_CREATE", none))
				break;
			old = atomic_exchange(&f->graph[next(&rs) % NGRAPH], h);
			check(gaccel_graph_destroy(f->fd, old), "GRAPH_DESTROY", none);
			atomic_fetch_add(&churns, 1);
			break;
		case 9: {		/* replace a queue, of any priority */
			struct drm_gaccel_queue_create c = { .priority = next(&rs) % 3 };

			if (no_queue_churn)
				break;
			if (check(gaccel_ioctl(f->fd, DRM_IOCTL_GACCEL_QUEUE_CREATE, &c),
				  "QUEUE_CREATE", none))
				break;
			h = c.handle;
			old = atomic_exchange(&f->queue[next(&rs) % NQUEUE], h);
			check(gaccel_queue_destroy(f->fd, old), "QUEUE_DESTROY", none);
			atomic_fetch_add(&churns, 1);
			break;
		}
		case 10: {		/* export to another file */
			struct file *to = &files[next(&rs) % nfiles];
			int dmabuf = gaccel_prime_export(f->fd, atomic_load(&f->bo[next(&rs) % NBO]));

			if (dmabuf < 0) {
				check(dmabuf, "PRIME_HANDLE_TO_FD", gone);
				break;
			}
			if (!check(gaccel_prime_import(to->fd, dmabuf, &h), "PRIME_FD_TO_HANDLE", none)) {
				old = atomic_exchange(&to->bo[next(&rs) % NBO], h);
				/* The same object imported twice has one handle. */
				if (old != h)
					check(gaccel_gem_close(to->fd, old), "GEM_CLOSE", gem_gone);
				atomic_fetch_add(&imports, 1);
			}
			close(dmabuf);
			break;
		}
		case 11:
			check(gaccel_bo_wait(f->fd, atomic_load(&f->bo[next(&rs) % NBO]), WAIT_NS),
			      "BO_WAIT", gone);
			break;
		case 12: {
			struct drm_gaccel_queue_get_state st;

			check(gaccel_queue_state(f->fd, atomic_load(&f->queue[next(&rs) % NQUEUE]), &st),
			      "QUEUE_GET_STATE", gone);
			break;
		}
		case 13: {		/* a file of its own, closed with jobs in flight */
			int fd = gaccel_open_device();
			uint32_t q = 0, g = 0, bo[3];
			struct drm_gaccel_binding b[3] = { 0 };

			if (fd < 0) {
				check(fd, "open", none);
				break;
			}
			if (!check(gaccel_queue_create(fd, &q), "QUEUE_CREATE", none) &&
			    !check(add_graph(fd, &g), "GRAPH_CREATE", none)) {
				for (int i = 0; i < 3; i++) {
					bo[i] = new_bo(fd, &rs);
					b[i].slot = i;
					b[i].handle = bo[i];
				}
				for (int k = next(&rs) % 8; k > 0; k--)
					check(gaccel_submit1(fd, q, g, b, 3, NULL, 0), "SUBMIT", submit_errs);
				if (next(&rs) % 2)
					check(gaccel_graph_destroy(fd, g), "GRAPH_DESTROY", none);
			}
			close(fd);
			atomic_fetch_add(&reopens, 1);
			break;
		}
		case 14:
			if (next(&rs) % 8 == 0)
				killed_child(&rs);
			else
				submit_some(f, &rs, so);
			break;
		default:
			submit_some(f, &rs, so);
			break;
		}
	}
	check(gaccel_syncobj_wait(f->fd, so, 0, WAIT_NS), "SYNCOBJ_WAIT", (const int[]){ EINVAL, 0 });
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAXFILES * 16];
	int nth = 0, opt;
	const char *env;
	double t0;

	seed = (uint64_t)time(NULL);
	if ((env = getenv("GACCEL_STRESS_SECONDS")) && *env)
		seconds = atof(env);
	while ((opt = getopt(argc, argv, "t:f:j:s:Q")) != -1) {
		switch (opt) {
		case 't': seconds = atof(optarg); break;
		case 'f': nfiles = atoi(optarg); break;
		case 'j': nthreads = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'Q': no_queue_churn = 1; break;
		default:
			fprintf(stderr, "usage: stress [-t seconds] [-f files] [-j threads-per-file] [-s seed] [-Q]\n");
			return 2;
		}
	}
	if (nfiles < 1 || nfiles > MAXFILES)
		nfiles = 3;
	if (nthreads < 1 || nthreads > 16)
		nthreads = 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n# stress: %d files x %d threads, %.0f s, seed %" PRIu64 "\n",
	       nfiles, nthreads, seconds, seed);

	for (int i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		uint64_t rs = seed + i + 1;

		f->fd = gaccel_open_device();
		if (f->fd < 0) {
			printf("not ok 1 - stress: no gaccel device (%d)\n", f->fd);
			return 1;
		}
		if (!node[0])
			snprintf(node, sizeof(node), "/proc/self/fd/%d", f->fd);
		for (int k = 0; k < NBO; k++)
			f->bo[k] = new_bo(f->fd, &rs);
		for (int k = 0; k < NGRAPH; k++) {
			uint32_t g = 0;

			check(add_graph(f->fd, &g), "GRAPH_CREATE", none);
			f->graph[k] = g;
		}
		for (int k = 0; k < NQUEUE; k++) {
			uint32_t q = 0;

			check(gaccel_queue_create(f->fd, &q), "QUEUE_CREATE", none);
			f->queue[k] = q;
		}
	}
	t0 = now();
	for (int i = 0; i < nfiles; i++)
		for (int k = 0; k < nthreads; k++)
			if (!pthread_create(&th[nth], NULL, worker, &files[i]))
				nth++;
	while (now() - t0 < seconds && !atomic_load(&stop))
		usleep(100000);
	atomic_store(&stop, 1);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	/* Everything still queued finishes; then the files go. */
	for (int i = 0; i < nfiles && !atomic_load(&unexpected); i++) {
		for (int k = 0; k < NBO; k++)
			check(gaccel_bo_wait(files[i].fd, files[i].bo[k], WAIT_NS), "BO_WAIT", gone);
		close(files[i].fd);
	}

	printf("# %.1f s, %d threads: submits accepted %lu, refused %lu (ENOENT %lu, EINVAL %lu in all);"
	       " replaced %lu, imported %lu, short-lived files %lu, killed children %lu\n",
	       now() - t0, nth, atomic_load(&submits_ok), atomic_load(&submits_refused),
	       atomic_load(&enoent), atomic_load(&einval), atomic_load(&churns),
	       atomic_load(&imports), atomic_load(&reopens), atomic_load(&killed));
	printf("%s 1 - stress seed=%" PRIu64 " submits=%lu unexpected=%lu\n",
	       atomic_load(&unexpected) ? "not ok" : "ok", seed, atomic_load(&submits_ok),
	       atomic_load(&unexpected));
	return atomic_load(&unexpected) ? 1 : 0;
}
