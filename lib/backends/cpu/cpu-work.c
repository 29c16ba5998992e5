/*
 * cpu-work.c - parts, segments and chunks of a graph walk (see cpu-work.h).
 *
 * Ordering: a unit's writes come before the release of its count in the
 * part's done counter; the count that completes the part then lowers the
 * segment's pending counter (acquire-release read-modify-writes, so the
 * chain carries every unit's writes), and a thread leaves the segment after
 * an acquire load that reads it at zero.
 *
 * SPDX-License-Identifier: MIT
 */
#include "cpu-work.h"
#include "ggml-impl.h"

#include <stdatomic.h>

void ggml_cpu_part_init(struct ggml_cpu_work * w, int part, int seg, int64_t total, _Atomic uint64_t * words) {
    struct ggml_cpu_part * p = &w->parts[part];
    atomic_init(&p->total, total);
    atomic_init(&p->done, 0);
    atomic_init(&p->claimed, 0);
    atomic_init(&p->completed, 0);
    p->seg = seg;
    p->words = words;
}

static void part_complete(struct ggml_cpu_work * w, struct ggml_cpu_part * p) {
    if (atomic_exchange_explicit(&p->completed, 1, memory_order_acq_rel) != 0) {
        return;
    }
    if (atomic_fetch_sub_explicit(&w->segs[p->seg].pending, 1, memory_order_acq_rel) == 1) {
        ggml_cpu_word_add_wake(&w->progress, 1);
    }
}

void ggml_cpu_part_done(struct ggml_cpu_work * w, struct ggml_cpu_part * p, int64_t n) {
    const int64_t d = atomic_fetch_add_explicit(&p->done, n, memory_order_acq_rel) + n;
    const int64_t t = atomic_load_explicit(&p->total, memory_order_acquire);
    if (t >= 0 && d >= t) {
        part_complete(w, p);
    }
}

// a chunked part's count of units, as each thread that starts on it finds it
static void part_set_total(struct ggml_cpu_work * w, struct ggml_cpu_part * p, int64_t n) {
    int64_t unknown = -1;
    if (!atomic_compare_exchange_strong_explicit(&p->total, &unknown, n, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        GGML_ASSERT(unknown == n && "threads disagree on a node's chunk count");
    }
    if (atomic_load_explicit(&p->done, memory_order_acquire) >= n) {
        part_complete(w, p); // nothing to do
    }
}

bool ggml_cpu_solo_take(struct ggml_cpu_thread * t) {
    if (t->solo_seg != t->seg) {
        const int s = t->work->segs[t->seg].solo;
        GGML_ASSERT(s >= 0);
        int free = 0;
        t->solo_seg = t->seg;
        t->solo_held = atomic_compare_exchange_strong_explicit(&t->work->parts[s].claimed, &free, 1,
                                                               memory_order_relaxed, memory_order_relaxed);
    }
    return t->solo_held;
}

void ggml_cpu_solo_done(struct ggml_cpu_thread * t) {
    if (t->solo_held && t->solo_seg == t->seg) {
        t->solo_held = false;
        ggml_cpu_part_done(t->work, &t->work->parts[t->work->segs[t->seg].solo], 1);
    }
}

bool ggml_cpu_seg_next(struct ggml_cpu_thread * t, bool may_stop) {
    struct ggml_cpu_work * w = t->work;
    const struct ggml_cpu_seg * g = &w->segs[t->seg];
    GGML_ASSERT(!(t->solo_held && t->solo_seg == t->seg) && "leaving a segment with its solo part undone");
    while (atomic_load_explicit(&g->pending, memory_order_acquire) != 0) {
        const int v = atomic_load_explicit(&w->progress.val, memory_order_seq_cst);
        if (atomic_load_explicit(&g->pending, memory_order_seq_cst) == 0) {
            break;
        }
        ggml_cpu_word_wait(w->tp, &w->progress, v);
    }
    struct ggml_cpu_seg * n = &w->segs[++t->seg];
    if (!may_stop) {
        return true;
    }
    int d = atomic_load_explicit(&n->decision, memory_order_acquire);
    if (d == 0) {
        const int want = atomic_load_explicit(&w->abort, memory_order_acquire) ? 2 : 1;
        if (atomic_compare_exchange_strong_explicit(&n->decision, &d, want, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            d = want;
        }
    }
    return d == 1;
}

// --- chunks ------------------------------------------------------------------

_Static_assert(GGML_CPU_CHUNK_STRIDE * sizeof(uint64_t) == GGML_CPU_CACHE_LINE, "a chunk word per cache line");

// A thread's share [lo, hi) of n chunks; its word counts the chunks taken
// from the front (low 32 bits) and from the back (high 32 bits).
static void share(int64_t n, int t, int nth, int64_t * lo, int64_t * hi) {
    *lo = n * t / nth;
    *hi = n * (t + 1) / nth;
}

void ggml_cpu_chunk_begin(const struct ggml_compute_params * params, int64_t n, struct ggml_cpu_chunk_iter * it) {
    GGML_ASSERT(n >= 0 && n < ((int64_t) 1 << 31));
    it->n = n;
    it->next = 0;
    it->victim = params->ith;
    it->held = false;
    it->done = 0;
    if (params->part) {
        part_set_total(params->thr->work, params->part, n);
    }
}

int64_t ggml_cpu_chunk_next(const struct ggml_compute_params * params, struct ggml_cpu_chunk_iter * it) {
    struct ggml_cpu_part * p = params->part;
    if (p == NULL) {
        return it->next < it->n ? it->next++ : -1;
    }
    // chunks done are counted here and published once, when this thread
    // finds none left: the part's done counter is shared by all threads,
    // and a read-modify-write of it per chunk would cost a cache line
    // transfer per chunk (chunks may be well under a microsecond)
    if (it->held) {
        it->held = false;
        it->done++;
    }
    const int nth = params->nth;
    for (int k = 0; k < nth; k++) {
        const int v = it->victim;
        _Atomic uint64_t * w = p->words + (size_t) v * GGML_CPU_CHUNK_STRIDE;
        int64_t lo, hi;
        share(it->n, v, nth, &lo, &hi);
        const bool own = v == params->ith;
        uint64_t cur = atomic_load_explicit(w, memory_order_relaxed);
        for (;;) {
            const int64_t front = (int64_t) (cur & 0xffffffffu), back = (int64_t) (cur >> 32);
            if (lo + front >= hi - back) {
                break; // this share is taken
            }
            const uint64_t next = own ? cur + 1 : cur + ((uint64_t) 1 << 32);
            if (atomic_compare_exchange_weak_explicit(w, &cur, next, memory_order_relaxed, memory_order_relaxed)) {
                it->held = true;
                return own ? lo + front : hi - 1 - back;
            }
        }
        it->victim = v + 1 < nth ? v + 1 : 0;
    }
    if (it->done > 0) {
        ggml_cpu_part_done(params->thr->work, p, it->done);
        it->done = 0;
    }
    return -1;
}

// --- MUL_MAT's conversion ------------------------------------------------------

// conversion pieces a thread: enough to even out, few enough to stay cheap
#define ACT_PIECES_PER_THREAD 4

void ggml_cpu_act_begin(const struct ggml_compute_params * params, int64_t nr, struct ggml_cpu_act_iter * it) {
    it->nr = nr;
    it->first = true;
    it->np = 0;
    if (params->thr && params->act == GGML_CPU_ACT_SPLIT) {
        const int64_t np = (int64_t) params->nth * ACT_PIECES_PER_THREAD;
        it->np = nr < np ? nr : np;
        struct ggml_compute_params q = *params;
        q.part = params->act_part;
        ggml_cpu_chunk_begin(&q, it->np, &it->ci);
    }
}

bool ggml_cpu_act_next(const struct ggml_compute_params * params, struct ggml_cpu_act_iter * it, int64_t * r0,
                       int64_t * r1) {
    const bool first = it->first;
    it->first = false;
    switch (params->act) {
        case GGML_CPU_ACT_REUSE:
            return false;
        case GGML_CPU_ACT_SOLO:
            if (!first || !(params->thr ? ggml_cpu_solo_take(params->thr) : params->ith == 0)) {
                return false;
            }
            *r0 = 0;
            *r1 = it->nr;
            return true;
        case GGML_CPU_ACT_SPLIT:
        default:
            break;
    }
    if (params->thr == NULL) {
        // this thread's share
        if (!first) {
            return false;
        }
        const int64_t per = (it->nr + params->nth - 1) / params->nth;
        *r0 = params->ith * per < it->nr ? params->ith * per : it->nr;
        *r1 = *r0 + per < it->nr ? *r0 + per : it->nr;
        return *r0 < *r1;
    }
    struct ggml_compute_params q = *params;
    q.part = params->act_part;
    const int64_t c = ggml_cpu_chunk_next(&q, &it->ci);
    if (c < 0) {
        return false;
    }
    *r0 = it->nr * c / it->np;
    *r1 = it->nr * (c + 1) / it->np;
    return true;
}

void ggml_cpu_act_sync(const struct ggml_compute_params * params) {
    if (params->thr == NULL) {
        ggml_cpu_barrier(params->tp, params->nth);
        return;
    }
    if (params->act == GGML_CPU_ACT_SOLO) {
        ggml_cpu_solo_done(params->thr);
    }
    ggml_cpu_seg_next(params->thr, false);
}
