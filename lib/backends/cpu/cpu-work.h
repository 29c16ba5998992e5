/*
 * cpu-work.h - how the threads of a graph walk share out its work and wait
 * for each other (cpu-work.c), for the walk in cpu-graph.c.
 *
 * The walk is cut into segments at its synchronisation points (before a
 * node that must see what earlier nodes wrote, and inside a MUL_MAT after
 * its conversion). The work of a segment is a set of parts:
 *
 * - chunked: units handed out dynamically (ggml_cpu_chunk_next(): MUL_MAT's
 *   products, FLASH_ATTN_EXT's blocks, the pieces of a MUL_MAT conversion
 *   and of element-wise nodes), done when every unit is;
 * - solo: the segment's nodes for one thread (small nodes, small
 *   conversions), taken as a whole by the first thread that gets there and
 *   run in order;
 * - static: a node every thread runs its own share of (by ith), done when
 *   all nth shares are.
 *
 * A thread leaves a segment when every part of it is done, not when every
 * thread has arrived: a thread that is not running (a shared core) and
 * holds no unit holds nobody up; when it runs again it finds the units
 * taken and catches up. Only static parts need every thread.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_CPU_WORK_H
#define GGML_CPU_WORK_H

#include "cpu-impl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ggml_cpu_part {
    _Alignas(GGML_CPU_CACHE_LINE) _Atomic int64_t total; // units; -1: not known yet (chunked)
    _Atomic int64_t done;
    atomic_int claimed;      // solo: taken
    atomic_int completed;
    int seg;                 // the segment it belongs to
    _Atomic uint64_t * words; // chunked: nth words a cache line apart
};

struct ggml_cpu_seg {
    _Alignas(GGML_CPU_CACHE_LINE) atomic_int pending; // parts not done
    atomic_int decision;     // 0: open, 1: go, 2: stop (abort): taken by the first thread to leave the one before
    int solo;                // its solo part, -1: none
};

// one run of a graph
struct ggml_cpu_work {
    int nth;
    struct ggml_threadpool * tp;
    struct ggml_cpu_part * parts;
    struct ggml_cpu_seg * segs;
    struct ggml_cpu_word progress; // bumped when a segment is done
    atomic_bool abort;             // the abort callback said so
};

// a thread's place in the walk
struct ggml_cpu_thread {
    struct ggml_cpu_work * work;
    int ith;
    int seg;        // the segment it is in
    int solo_seg;   // the segment whose solo part it asked for (-1: none yet)
    bool solo_held; // and got (not yet done)
};

// Sets up a part (words: NULL or nth zeroed words a cache line apart;
// total: known count of units, or -1).
void ggml_cpu_part_init(struct ggml_cpu_work * w, int part, int seg, int64_t total, _Atomic uint64_t * words);
// n more units of part p done
void ggml_cpu_part_done(struct ggml_cpu_work * w, struct ggml_cpu_part * p, int64_t n);

// Takes the solo part of the thread's segment, unless another thread did:
// true when this thread holds it.
bool ggml_cpu_solo_take(struct ggml_cpu_thread * t);
// The holder's last solo node of the segment is done.
void ggml_cpu_solo_done(struct ggml_cpu_thread * t);

// Waits until every part of the thread's segment is done, then moves the
// thread to the next one. Returns false when the walk stops there (abort;
// decided once for every thread).
bool ggml_cpu_seg_next(struct ggml_cpu_thread * t, bool may_stop);

#endif
