// SPDX-License-Identifier: MIT
/*
 * weights-io: io_uring and read(2) loaders of a file into memory
 * (weights-io.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "weights-io.h"

#define WIO_ALIGN 4096u

static int open_file(const char *path, bool *direct)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);

	*direct = fd >= 0;
	/* tmpfs and some network filesystems refuse O_DIRECT */
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int wio_read_uring(const char *path, void *dst, size_t size, unsigned int qd,
		   size_t chunk, struct wio_stats *st)
{
	struct io_uring ring;
	struct iovec iov;
	size_t span = (size + WIO_ALIGN - 1) / WIO_ALIGN * WIO_ALIGN;
	size_t next = 0, done = 0;
	unsigned int inflight = 0;
	bool direct, fixed;
	int fd, ret;

	if ((uintptr_t)dst % WIO_ALIGN || !qd || !chunk || chunk % WIO_ALIGN)
		return -EINVAL;
	fd = open_file(path, &direct);
	if (fd < 0)
		return fd;
	ret = io_uring_queue_init(qd, &ring, 0);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/* One registered buffer over the destination: pinned once, not per
	 * read. It counts against RLIMIT_MEMLOCK; without room, plain reads.
	 */
	iov.iov_base = dst;
	iov.iov_len = span;
	fixed = io_uring_register_buffers(&ring, &iov, 1) == 0;

	while (done < size) {
		struct io_uring_cqe *cqe;

		while (inflight < qd && next < size) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			/* O_DIRECT reads whole blocks: the last one past the
			 * end of the file is cut short by the kernel.
			 */
			size_t len = chunk < span - next ? chunk : span - next;

			if (!sqe)
				break;
			if (fixed)
				io_uring_prep_read_fixed(sqe, fd, (char *)dst + next, (unsigned int)len,
							 next, 0);
			else
				io_uring_prep_read(sqe, fd, (char *)dst + next, (unsigned int)len, next);
			io_uring_sqe_set_data64(sqe, next);
			next += len;
			inflight++;
		}
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0)
			break;
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			uint64_t off = io_uring_cqe_get_data64(cqe);
			size_t want = chunk < span - off ? chunk : span - off;
			int res = cqe->res;

			io_uring_cqe_seen(&ring, cqe);
			inflight--;
			if (res < 0) {
				ret = res;
				goto out;
			}
			if ((size_t)res < want && off + (size_t)res < size) {
				/* a short read before the end: the file shrank */
				ret = -EIO;
				goto out;
			}
			done += off + (size_t)res > size ? size - off : (size_t)res;
		}
		ret = 0;
	}
out:
	/* Reads still in flight write into @dst: wait for them first. */
	while (inflight) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&ring, &cqe))
			break;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
	}
	if (fixed)
		io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	close(fd);
	if (st) {
		st->direct = direct;
		st->fixed = fixed;
		st->qd = qd;
		st->chunk = chunk;
	}
	return ret;
}

int wio_read_plain(const char *path, void *dst, size_t size, size_t chunk)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < size) {
		size_t len = chunk < size - done ? chunk : size - done;
		ssize_t n = read(fd, (char *)dst + done, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}
