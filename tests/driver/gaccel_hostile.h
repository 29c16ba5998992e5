/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A hostile client beside ordinary ones: a child that takes as much as it
 * may as uid 65534 and holds it, while this process checks that root and
 * another unprivileged process still get their work done.
 */
#ifndef GACCEL_HOSTILE_H
#define GACCEL_HOSTILE_H

#include <signal.h>
#include <sys/wait.h>

#include "gaccel_test.h"

/*
 * What any client expects to be able to do: open a file, open the device,
 * create objects, run a job and read its result, fork. 0, or the step
 * that failed.
 */
static inline int gaccel_ordinary_work(void)
{
	int fd, null, status, ret = 0;
	uint32_t a, b;
	pid_t pid;
	float *p;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0)
		return 1;
	close(null);
	fd = gaccel_open_device();
	if (fd < 0)
		return 2;
	if (gaccel_bo_create(fd, 1 << 20, 0, &a) || gaccel_bo_create(fd, 1 << 20, 0, &b)) {
		close(fd);
		return 3;
	}
	p = gaccel_bo_mmap(fd, a, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED) {
		close(fd);
		return 4;
	}
	for (int i = 0; i < 256; i++)
		p[i] = i;
	munmap(p, 1 << 20);
	if (gaccel_gpu_copy(fd, a, 0, b, 0, 256))
		ret = 5;
	p = gaccel_bo_mmap(fd, b, PROT_READ);
	if (!ret && (p == MAP_FAILED || p[255] != 255.0f))
		ret = 6;
	if (p != MAP_FAILED)
		munmap(p, 1 << 20);
	close(fd);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		ret = ret ? ret : 7;
	return ret;
}

/* The same in a child, as @uid (0: root, staying so). */
static inline int gaccel_ordinary_work_as(uid_t uid)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (uid && gaccel_become_user(uid))
			_exit(100);
		_exit(gaccel_ordinary_work());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The same in a child, as root or as uid 65534. */
static inline int gaccel_ordinary_work_in_child(int nobody)
{
	return gaccel_ordinary_work_as(nobody ? GACCEL_NOBODY : 0);
}

/**
 * struct gaccel_hog - a hostile client and the work done beside it.
 * @prepare: run in the child as root before it drops to uid 65534 (to
 *	join a cgroup, raise a limit), or NULL; 0 or an exit status.
 * @run: the hog, as uid 65534: takes what it can, writes a byte to @ready
 *	and reads one from @go before letting go; returns its exit status.
 * @arg: for @prepare and @run.
 * @beside_uid: the uid of the unprivileged child working beside the hog;
 *	0 for the hog's own, 65534. A hog that takes its user's whole
 *	per-user budget sets another (GACCEL_OTHER_USER).
 * @beside: 0 if root in this process, a root child and an unprivileged
 *	child all did gaccel_ordinary_work() while the hog held on (or after
 *	it died), else 100 * which + the failing step.
 * @status: the hog's exit status, or -1 if it did not exit.
 * @signal: the signal that killed it, or 0.
 */
struct gaccel_hog {
	int (*prepare)(void *arg);
	int (*run)(int ready, int go, void *arg);
	void *arg;
	uid_t beside_uid;
	int beside;
	int status;
	int signal;
};

static inline void gaccel_hog_run(struct gaccel_hog *h)
{
	int ready[2], go[2], status, ret;
	char c = 0;
	pid_t pid;

	h->beside = h->status = -1;
	h->signal = 0;
	if (pipe(ready) || pipe(go))
		return;
	/* A hog that died early is gone: telling it to go on must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (h->prepare) {
			ret = h->prepare(h->arg);
			if (ret)
				_exit(ret);
		}
		if (gaccel_become_nobody())
			_exit(100);
		_exit(h->run(ready[1], go[0], h->arg));
	}
	close(ready[1]);
	close(go[0]);
	/* Data: the hog holds its all; end of file: it died. */
	if (read(ready[0], &c, 1) < 0)
		c = 0;
	ret = gaccel_ordinary_work();
	if (!ret) {
		ret = gaccel_ordinary_work_in_child(0);
		ret = ret ? 100 + ret : 0;
	}
	if (!ret) {
		ret = gaccel_ordinary_work_as(h->beside_uid ? h->beside_uid :
					      GACCEL_NOBODY);
		ret = ret ? 200 + ret : 0;
	}
	h->beside = ret;
	if (write(go[1], &c, 1) != 1)
		c = 0;
	close(ready[0]);
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid)
		return;
	if (WIFEXITED(status))
		h->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		h->signal = WTERMSIG(status);
}

/* For a hog: say it holds its all and wait to be told to let go. */
static inline int gaccel_hog_hold(int ready, int go)
{
	char c = 0;

	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return -1;
	return 0;
}

#endif /* GACCEL_HOSTILE_H */
