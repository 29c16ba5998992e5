/*
 * ggml-backend-hash.h - a pointer set with stable slots, private to the
 * allocator, the backend utilities and the scheduler.
 *
 * Open addressing with linear probing; a slot index stays valid until the set
 * is reset, so callers keep per-tensor data in arrays indexed by slot.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_BACKEND_HASH_H
#define GGML_BACKEND_HASH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ggml.h"

#define GBH_FULL ((size_t)-1)

struct gbh_set {
    size_t        size;  // number of slots (a prime or odd number)
    const void ** keys;  // NULL = empty
};

static inline size_t gbh_size_for(size_t min_sz) {
    // an odd size >= 2*min_sz+1 spreads pointer keys well enough
    size_t n = 2 * min_sz + 1;
    return n | 1;
}

static inline struct gbh_set gbh_new(size_t min_sz) {
    struct gbh_set s;
    s.size = gbh_size_for(min_sz);
    s.keys = (const void **) calloc(s.size, sizeof(*s.keys));
    GGML_ASSERT(s.keys != NULL);
    return s;
}

static inline void gbh_free(struct gbh_set * s) {
    free(s->keys);
    s->keys = NULL;
    s->size = 0;
}

static inline void gbh_reset(struct gbh_set * s) {
    memset(s->keys, 0, s->size * sizeof(*s->keys));
}

static inline size_t gbh_hash(const void * p) {
    uintptr_t x = (uintptr_t) p;
    x ^= x >> 17;
    x *= (uintptr_t) 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return (size_t) x;
}

// slot of key, or GBH_FULL when absent
static inline size_t gbh_find(const struct gbh_set * s, const void * key) {
    size_t h = gbh_hash(key) % s->size;
    for (size_t i = 0; i < s->size; i++) {
        size_t j = (h + i) % s->size;
        if (s->keys[j] == key) {
            return j;
        }
        if (s->keys[j] == NULL) {
            return GBH_FULL;
        }
    }
    return GBH_FULL;
}

static inline int gbh_contains(const struct gbh_set * s, const void * key) {
    return key != NULL && gbh_find(s, key) != GBH_FULL;
}

// slot of key, inserting it when absent; aborts when the set is full
static inline size_t gbh_insert(struct gbh_set * s, const void * key) {
    size_t h = gbh_hash(key) % s->size;
    for (size_t i = 0; i < s->size; i++) {
        size_t j = (h + i) % s->size;
        if (s->keys[j] == key) {
            return j;
        }
        if (s->keys[j] == NULL) {
            s->keys[j] = key;
            return j;
        }
    }
    GGML_ABORT("pointer set full (%zu slots): graph larger than the size given at creation", s->size);
}

#endif // GGML_BACKEND_HASH_H
