/*
 * ggml-mem.c - the host memory of contexts and CPU buffers.
 *
 * Small blocks come from the C heap. Blocks of 2 MiB and more are mapped
 * whole: 2 MiB aligned, a whole number of 2 MiB, and marked for transparent
 * huge pages, as model weights, KV caches and compute buffers are read in
 * streams far larger than what the TLB covers with 4 KiB pages. Where THP
 * is "always" the kernel would give such pages to an aligned range anyway;
 * where it is "madvise" (many distributions, and cloud guests where every
 * TLB miss is a two-level walk) only a request gets them, and decode, which
 * reads every weight once per token, runs at the speed of its page walks
 * without one. Under AddressSanitizer every block stays on the heap, whose
 * bounds it checks.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#include <sys/mman.h>
#define GGML_MEM_HUGE ((size_t) 2 << 20)
#endif

#define GGML_ALIGNED_MALLOC_ALIGN 64

void * ggml_aligned_malloc(size_t size) {
    if (size == 0) {
        GGML_LOG_WARN("%s: zero-size allocation requested\n", __func__);
        return NULL;
    }
#ifdef GGML_MEM_HUGE
    if (size >= GGML_MEM_HUGE) {
        if (size > SIZE_MAX - 2 * GGML_MEM_HUGE) {
            GGML_LOG_ERROR("%s: failed to allocate %zu bytes\n", __func__, size);
            return NULL;
        }
        const size_t len = GGML_PAD(size, GGML_MEM_HUGE);
        // one huge page more than needed, so that an aligned start fits
        char * map = mmap(NULL, len + GGML_MEM_HUGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            GGML_LOG_ERROR("%s: failed to map %.2f MiB\n", __func__, len / (1024.0 * 1024.0));
            return NULL;
        }
        char * p = (char *) GGML_PAD((uintptr_t) map, GGML_MEM_HUGE);
        if (p > map) {
            munmap(map, (size_t) (p - map));
        }
        if (map + GGML_MEM_HUGE > p) {
            munmap(p + len, (size_t) (map + GGML_MEM_HUGE - p));
        }
        // refused where THP is off or absent: 4 KiB pages then, as before
        (void) madvise(p, len, MADV_HUGEPAGE);
        return p;
    }
#endif
    void * ptr = NULL;
    int rc = posix_memalign(&ptr, GGML_ALIGNED_MALLOC_ALIGN, size);
    if (rc != 0) {
        GGML_LOG_ERROR("%s: failed to allocate %.2f MiB\n", __func__, size / (1024.0 * 1024.0));
        return NULL;
    }
    return ptr;
}

void ggml_aligned_free(void * ptr, size_t size) {
    if (ptr == NULL) {
        return;
    }
#ifdef GGML_MEM_HUGE
    if (size >= GGML_MEM_HUGE) {
        munmap(ptr, GGML_PAD(size, GGML_MEM_HUGE));
        return;
    }
#endif
    free(ptr);
}
