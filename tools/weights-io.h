/* SPDX-License-Identifier: MIT */
/*
 * weights-io: read a weights file into memory the program then wraps for a
 * device, when the file cannot be mapped zero-copy (a compressed or remote
 * filesystem, a pipe-backed FUSE file, a file to be checked before use).
 * Used by gaccel-demo (-r, or when mmap fails) and measured by gaccel-bench.
 */
#ifndef WEIGHTS_IO_H
#define WEIGHTS_IO_H

#include <stdbool.h>
#include <stddef.h>

struct wio_stats {
	bool direct;       /* O_DIRECT was used (the filesystem supports it) */
	bool fixed;        /* the destination was a registered buffer */
	unsigned int qd;   /* reads in flight at most */
	size_t chunk;      /* bytes per read */
};

/*
 * Read @size bytes of the file @path into @dst (page-aligned, @size rounded
 * up to whole pages must be writable) with io_uring: reads of @chunk bytes,
 * @qd in flight, O_DIRECT where the filesystem takes it (the page cache is
 * left alone: no second copy of the weights), into @dst registered as a
 * fixed buffer where RLIMIT_MEMLOCK allows (no page pinning per read).
 * Returns 0 or a negative errno; @st (may be NULL) says what was used.
 */
int wio_read_uring(const char *path, void *dst, size_t size, unsigned int qd,
		   size_t chunk, struct wio_stats *st);

/* The same with read(2) calls of @chunk bytes, through the page cache. */
int wio_read_plain(const char *path, void *dst, size_t size, size_t chunk);

#endif
