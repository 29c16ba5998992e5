/*
 * threadpool.c - the CPU backend's threads.
 *
 * The calling thread is thread 0 of every run; the pool owns threads
 * 1..n-1. An idle worker polls the run counter for a short while, then sleeps
 * on a futex; a paused pool's workers sleep at once. Barriers count arrivals
 * and release the others by bumping a generation word.
 *
 * Waiting: spin (PAUSE) while spinning pays, then sleep on a futex. Each
 * thread keeps its own spin budget for barriers: a wait that ended while
 * spinning doubles it (up to the pool's poll limit), a wait that had to
 * sleep halves it (down to BARRIER_SPIN_MIN). On a quiet machine waits are
 * short and end spinning; when the cores are shared, the thread waited for
 * is often not running (preempted, or queued behind the waiter on the same
 * core), spinning only burns the time it needs, and the budget drops within
 * a few barriers. Every waitable word counts its sleepers, so that a wake-up
 * costs a system call only when somebody sleeps.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE_LINE 64

// pauses a barrier wait spins at least before sleeping (one PAUSE is about
// 10-40 ns, depending on the CPU)
#define BARRIER_SPIN_MIN 32


struct ggml_threadpool {
    // run state, written by thread 0
    struct ggml_cpu_word n_run;                    // generation: bumped to start a run
    ggml_cpu_task_fn fn;
    void *           data;
    int              n_cur;                    // threads of the current run
    atomic_bool      stop;
    atomic_bool      paused;

    struct ggml_cpu_word n_active;                 // workers still inside the current run
    _Alignas(CACHE_LINE) atomic_int barrier_count;
    struct ggml_cpu_word barrier_gen;

    void *           state[GGML_CPU_RUN_STATES]; // ggml_cpu_run_state()
    size_t           state_size[GGML_CPU_RUN_STATES];

    pthread_t *      threads;                  // [n_threads], [0] unused
    int              n_threads;
    int *            ids;
    struct ggml_threadpool_params params;
};

// --- futex helpers ---------------------------------------------------------

static void futex_wait(atomic_int * addr, int val) {
    syscall(SYS_futex, (int *) addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_all(atomic_int * addr) {
    syscall(SYS_futex, (int *) addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

// Changes w and wakes its sleepers, if any. The sequentially consistent
// store and load pair with the sleeper's increment and load in
// wait_while_equal(): either the waiter sees the new value, or this sees the
// waiter counted (and then the futex wait returns at once or is woken).
static void word_add_wake(struct ggml_cpu_word * w, int add) {
    atomic_fetch_add_explicit(&w->val, add, memory_order_seq_cst);
    if (atomic_load_explicit(&w->sleepers, memory_order_seq_cst) > 0) {
        futex_wake_all(&w->val);
    }
}

// Spins up to `spins` pauses, then sleeps until w->val != val. Returns true
// when the wait ended while spinning.
static bool wait_while_equal(struct ggml_cpu_word * w, int val, int spins) {
    for (int i = 0; i < spins; i++) {
        if (atomic_load_explicit(&w->val, memory_order_acquire) != val) {
            return true;
        }
        cpu_relax();
    }
    if (atomic_load_explicit(&w->val, memory_order_acquire) != val) {
        return true;
    }
    atomic_fetch_add_explicit(&w->sleepers, 1, memory_order_seq_cst);
    while (atomic_load_explicit(&w->val, memory_order_seq_cst) == val) {
        futex_wait(&w->val, val);
    }
    atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
    // the acquire that pairs with the release of the change
    (void) atomic_load_explicit(&w->val, memory_order_acquire);
    return false;
}

// Spins before sleeping: short, since this 2-core class of machine is often
// oversubscribed (more threads than cores) and a spinning waiter then steals
// the core of the thread it is waiting for.
static int spin_count(const struct ggml_threadpool * tp) {
    return tp->params.poll == 0 ? 0 : 64 * (int) (tp->params.poll > 100 ? 100 : tp->params.poll);
}

// this thread's barrier spin budget (0: not set yet)
static _Thread_local int tl_barrier_spins;

void ggml_cpu_word_wait(struct ggml_threadpool * tp, struct ggml_cpu_word * w, int val) {
    const int max = spin_count(tp);
    int spins = tl_barrier_spins;
    if (spins <= 0 || spins > max) {
        spins = max;
    }
    if (wait_while_equal(w, val, spins)) {
        spins = spins * 2 < max ? spins * 2 : max;
    } else {
        spins = spins / 2 > BARRIER_SPIN_MIN ? spins / 2 : BARRIER_SPIN_MIN;
    }
    tl_barrier_spins = spins < max ? spins : max;
}

void ggml_cpu_word_add_wake(struct ggml_cpu_word * w, int add) {
    word_add_wake(w, add);
}

void ggml_cpu_barrier(struct ggml_threadpool * tp, int nth) {
    if (nth <= 1 || tp == NULL) {
        return;
    }
    const int gen = atomic_load_explicit(&tp->barrier_gen.val, memory_order_acquire);
    if (atomic_fetch_add_explicit(&tp->barrier_count, 1, memory_order_acq_rel) == nth - 1) {
        atomic_store_explicit(&tp->barrier_count, 0, memory_order_relaxed);
        word_add_wake(&tp->barrier_gen, 1);
        return;
    }
    ggml_cpu_word_wait(tp, &tp->barrier_gen, gen);
}

// --- workers ---------------------------------------------------------------

struct worker_arg {
    struct ggml_threadpool * tp;
    int ith;
};

static void apply_params(const struct ggml_threadpool_params * p, int ith) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int n = 0;
    for (int i = 0; i < GGML_MAX_N_THREADS && i < CPU_SETSIZE; i++) {
        if (p->cpumask[i]) {
            CPU_SET(i, &set);
            n++;
        }
    }
    if (n > 0) {
        if (p->strict_cpu) {
            // one CPU per thread: the ith set bit (wrapping)
            int want = ith % n, k = 0;
            CPU_ZERO(&set);
            for (int i = 0; i < GGML_MAX_N_THREADS && i < CPU_SETSIZE; i++) {
                if (p->cpumask[i] && k++ == want) {
                    CPU_SET(i, &set);
                    break;
                }
            }
        }
        if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
            GGML_LOG_WARN("%s: cannot set the CPU affinity of thread %d\n", __func__, ith);
        }
    }
    if (p->prio == GGML_SCHED_PRIO_LOW) {
        // lower this thread's nice value; raising it needs privileges we do not ask for
        setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), 5);
    } else if (p->prio > GGML_SCHED_PRIO_NORMAL) {
        if (setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), -5) != 0) {
            GGML_LOG_DEBUG("%s: cannot raise the priority of thread %d\n", __func__, ith);
        }
    }
}

static void * worker_main(void * arg) {
    struct ggml_threadpool * tp = ((struct worker_arg *) arg)->tp;
    const int ith = ((struct worker_arg *) arg)->ith;
    free(arg);
    apply_params(&tp->params, ith);

    int seen = 0;
    for (;;) {
        int cur;
        while ((cur = atomic_load_explicit(&tp->n_run.val, memory_order_acquire)) == seen) {
            const int spins = atomic_load_explicit(&tp->paused, memory_order_relaxed) ? 0 : spin_count(tp);
            wait_while_equal(&tp->n_run, seen, spins);
        }
        seen = cur;
        if (atomic_load_explicit(&tp->stop, memory_order_acquire)) {
            break;
        }
        if (ith < tp->n_cur) {
            tp->fn(tp->data, ith, tp->n_cur);
        }
        word_add_wake(&tp->n_active, -1);
    }
    return NULL;
}

// Waits until the workers of the last run have all returned from its fn.
static void wait_workers(struct ggml_threadpool * tp) {
    int left;
    while ((left = atomic_load_explicit(&tp->n_active.val, memory_order_acquire)) != 0) {
        wait_while_equal(&tp->n_active, left, spin_count(tp));
    }
}

static void run_start(struct ggml_threadpool * tp, int n_threads, ggml_cpu_task_fn fn, void * data) {
    GGML_ASSERT(n_threads <= tp->n_threads);
    wait_workers(tp);
    if (atomic_load(&tp->paused)) {
        ggml_threadpool_resume(tp);
    }
    tp->fn    = fn;
    tp->data  = data;
    tp->n_cur = n_threads;
    atomic_store_explicit(&tp->barrier_count, 0, memory_order_relaxed);
    atomic_store_explicit(&tp->n_active.val, tp->n_threads - 1, memory_order_relaxed);
    word_add_wake(&tp->n_run, 1);
}

void ggml_cpu_run(struct ggml_threadpool * tp, int n_threads, ggml_cpu_task_fn fn, void * data) {
    if (n_threads <= 1 || tp == NULL) {
        GGML_ASSERT(n_threads <= 1 && "a run on several threads needs a threadpool");
        fn(data, 0, 1);
        return;
    }
    run_start(tp, n_threads, fn, data);
    fn(data, 0, n_threads);
    wait_workers(tp);
}

void ggml_cpu_run_leave(struct ggml_threadpool * tp, int n_threads, ggml_cpu_task_fn fn, void * data) {
    if (n_threads <= 1 || tp == NULL) {
        ggml_cpu_run(tp, n_threads, fn, data);
        return;
    }
    run_start(tp, n_threads, fn, data);
    fn(data, 0, n_threads);
}

void * ggml_cpu_run_state(struct ggml_threadpool * tp, int slot, size_t size) {
    GGML_ASSERT(slot >= 0 && slot < GGML_CPU_RUN_STATES);
    wait_workers(tp);
    if (size > tp->state_size[slot]) {
        free(tp->state[slot]);
        tp->state_size[slot] = 0;
        tp->state[slot] = aligned_alloc(CACHE_LINE, (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
        if (tp->state[slot] == NULL) {
            return NULL;
        }
        tp->state_size[slot] = size;
    }
    return tp->state[slot];
}

// --- public API ------------------------------------------------------------

// ggml_threadpool_params_default/init/match are in lib/ggml.c (declared in ggml.h).

struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params) {
    if (params == NULL || params->n_threads < 1 || params->n_threads > GGML_MAX_N_THREADS) {
        GGML_LOG_ERROR("%s: invalid threadpool parameters (n_threads %d)\n", __func__,
                       params ? params->n_threads : -1);
        return NULL;
    }
    struct ggml_threadpool * tp = aligned_alloc(CACHE_LINE, (sizeof(*tp) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
    if (tp == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    memset(tp, 0, sizeof(*tp));
    tp->params    = *params;
    tp->n_threads = params->n_threads;
    atomic_init(&tp->n_run.val, 0);
    atomic_init(&tp->n_run.sleepers, 0);
    atomic_init(&tp->stop, false);
    atomic_init(&tp->paused, params->paused);
    atomic_init(&tp->n_active.val, 0);
    atomic_init(&tp->n_active.sleepers, 0);
    atomic_init(&tp->barrier_count, 0);
    atomic_init(&tp->barrier_gen.val, 0);
    atomic_init(&tp->barrier_gen.sleepers, 0);
    tp->threads = calloc((size_t) tp->n_threads, sizeof(pthread_t));
    if (tp->threads == NULL) {
        free(tp);
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    for (int i = 1; i < tp->n_threads; i++) {
        struct worker_arg * a = malloc(sizeof(*a));
        int rc = ENOMEM;
        if (a) {
            a->tp  = tp;
            a->ith = i;
            rc = pthread_create(&tp->threads[i], NULL, worker_main, a);
        }
        if (rc != 0) {
            free(a);
            GGML_LOG_ERROR("%s: cannot create thread %d: %s\n", __func__, i, strerror(rc));
            // stop the ones already started
            tp->n_threads = i;
            ggml_threadpool_free(tp);
            return NULL;
        }
    }
    // the calling thread only gets the affinity when it is asked for explicitly
    return tp;
}

void ggml_threadpool_free(struct ggml_threadpool * tp) {
    if (tp == NULL) {
        return;
    }
    atomic_store(&tp->stop, true);
    atomic_store(&tp->paused, false);
    word_add_wake(&tp->n_run, 1);
    for (int i = 1; i < tp->n_threads; i++) {
        pthread_join(tp->threads[i], NULL);
    }
    free(tp->threads);
    for (int i = 0; i < GGML_CPU_RUN_STATES; i++) {
        free(tp->state[i]);
    }
    free(tp);
}

int ggml_threadpool_get_n_threads(struct ggml_threadpool * tp) {
    return tp ? tp->n_threads : 0;
}

void ggml_threadpool_pause(struct ggml_threadpool * tp) {
    if (tp) {
        atomic_store(&tp->paused, true);
    }
}

void ggml_threadpool_resume(struct ggml_threadpool * tp) {
    if (tp) {
        atomic_store(&tp->paused, false);
    }
}
