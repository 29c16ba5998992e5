// SPDX-License-Identifier: MIT
/*
 * The CPU backend's threadpool (runs, barriers, pause/resume, more threads
 * than cores), CPU feature answers against /proc/cpuinfo or the auxiliary
 * vector, and NUMA detection against sysfs.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "test-harness.h"

#include "ggml.h"
#include "ggml-cpu.h"
#include "cpu-impl.h"
#include "cpu-work.h"

struct job {
	struct ggml_threadpool *tp;
	int rounds;
	atomic_int counter;
	int per_thread[16];
	int errors;
};

/* each round: everybody adds 1, barrier, thread 0 checks the total */
static void job_fn(void *data, int ith, int nth)
{
	struct job *j = data;
	for (int r = 0; r < j->rounds; r++) {
		atomic_fetch_add(&j->counter, 1);
		j->per_thread[ith]++;
		ggml_cpu_barrier(j->tp, nth);
		if (ith == 0 && atomic_load(&j->counter) != (r + 1) * nth)
			j->errors++;
		ggml_cpu_barrier(j->tp, nth);
	}
}

TEST(threadpool_runs_and_barriers)
{
	struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
	struct ggml_threadpool *tp = ggml_threadpool_new(&p);
	ASSERT_NE(tp, NULL);
	ASSERT_EQ(ggml_threadpool_get_n_threads(tp), 4);

	for (int nth = 1; nth <= 4; nth++) {
		for (int run = 0; run < 20; run++) {
			struct job j;
			memset(&j, 0, sizeof(j));
			j.tp = tp;
			j.rounds = 50;
			ggml_cpu_run(tp, nth, job_fn, &j);
			ASSERT_EQ(j.errors, 0);
			ASSERT_EQ(atomic_load(&j.counter), 50 * nth);
			for (int t = 0; t < nth; t++)
				ASSERT_EQ(j.per_thread[t], 50);
			for (int t = nth; t < 16; t++)
				ASSERT_EQ(j.per_thread[t], 0);
		}
	}

	/* paused: the next run resumes it */
	ggml_threadpool_pause(tp);
	struct job j;
	memset(&j, 0, sizeof(j));
	j.tp = tp;
	j.rounds = 3;
	ggml_cpu_run(tp, 4, job_fn, &j);
	EXPECT_EQ(atomic_load(&j.counter), 12);
	ggml_threadpool_pause(tp);
	ggml_threadpool_resume(tp);
	ggml_threadpool_free(tp);
	ggml_threadpool_free(NULL);
}

TEST(threadpool_params)
{
	struct ggml_threadpool_params a = ggml_threadpool_params_default(3), b;
	ggml_threadpool_params_init(&b, 3);
	EXPECT_TRUE(ggml_threadpool_params_match(&a, &b));
	b.cpumask[1] = true;
	EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));

	/* poll 0 (sleep at once) and a CPU mask with strict placement still work */
	b.poll = 0;
	b.strict_cpu = true;
	b.cpumask[0] = true;
	struct ggml_threadpool *tp = ggml_threadpool_new(&b);
	ASSERT_NE(tp, NULL);
	struct job j;
	memset(&j, 0, sizeof(j));
	j.tp = tp;
	j.rounds = 10;
	ggml_cpu_run(tp, 3, job_fn, &j);
	EXPECT_EQ(atomic_load(&j.counter), 30);
	EXPECT_EQ(j.errors, 0);
	ggml_threadpool_free(tp);

	/* created paused */
	a.paused = true;
	tp = ggml_threadpool_new(&a);
	ASSERT_NE(tp, NULL);
	memset(&j, 0, sizeof(j));
	j.tp = tp;
	j.rounds = 2;
	ggml_cpu_run(tp, 3, job_fn, &j);
	EXPECT_EQ(atomic_load(&j.counter), 6);
	ggml_threadpool_free(tp);

	a.n_threads = 0;
	EXPECT_EQ(ggml_threadpool_new(&a), NULL);
}

/* ggml_cpu_chunk_next: every chunk once, own share in order first, a slow
 * thread's unstarted chunks taken by the others from its end; leaving the
 * segment (ggml_cpu_seg_next) shows every chunk's writes */
#define CHUNK_N 1000

struct chunk_job {
	_Atomic uint64_t words[4 * GGML_CPU_CHUNK_STRIDE];
	struct ggml_cpu_work w;
	struct ggml_cpu_part part;
	struct ggml_cpu_seg segs[2];
	atomic_int taken[CHUNK_N];
	int64_t val[CHUNK_N]; /* written plainly by the chunk's thread */
	int taken_by[CHUNK_N];
	int n_own[4], n_stolen[4], out_of_order[4], unseen[4];
	int64_t n;
	int slow; /* this thread sleeps before its first chunk */
	atomic_int left; /* threads out of the segment */
	int waited_for_slow; /* the others left only after the slow thread's release */
};

static void chunk_job_init(struct chunk_job *j, struct ggml_threadpool *tp, int nth)
{
	j->w.nth = nth;
	j->w.tp = tp;
	j->w.parts = &j->part;
	j->w.segs = j->segs;
	atomic_init(&j->w.progress.val, 0);
	atomic_init(&j->w.progress.sleepers, 0);
	atomic_init(&j->w.abort, false);
	for (int s = 0; s < 2; s++) {
		atomic_init(&j->segs[s].pending, 0);
		atomic_init(&j->segs[s].decision, 0);
		j->segs[s].solo = -1;
	}
	ggml_cpu_part_init(&j->w, 0, 0, -1, j->words);
	atomic_init(&j->segs[0].pending, 1);
}

static void chunk_fn(void *data, int ith, int nth)
{
	struct chunk_job *j = data;
	struct ggml_cpu_thread thr = { &j->w, ith, 0, -1, false };
	struct ggml_compute_params p;
	memset(&p, 0, sizeof(p));
	p.ith = ith;
	p.nth = nth;
	p.part = &j->part;
	p.thr = &thr;
	struct ggml_cpu_chunk_iter it;
	if (ith == j->slow)
		usleep(20000);
	ggml_cpu_chunk_begin(&p, j->n, &it);
	const int64_t lo = j->n * ith / nth, hi = j->n * (ith + 1) / nth;
	int64_t prev = -1;
	for (int64_t c = ggml_cpu_chunk_next(&p, &it); c >= 0; c = ggml_cpu_chunk_next(&p, &it)) {
		atomic_fetch_add(&j->taken[c], 1);
		j->taken_by[c] = ith;
		j->val[c] = c + 1;
		if (c >= lo && c < hi) {
			j->n_own[ith]++;
			j->out_of_order[ith] += prev >= lo && c != prev + 1;
			prev = c;
		} else {
			j->n_stolen[ith]++;
		}
	}
	ggml_cpu_seg_next(&thr, true);
	for (int64_t c = 0; c < j->n; c++)
		j->unseen[ith] += j->val[c] != c + 1;
}

TEST(chunks_own_share_then_steal)
{
	struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
	struct ggml_threadpool *tp = ggml_threadpool_new(&p);
	ASSERT_NE(tp, NULL);
	static const int64_t ns[] = { 0, 1, 3, 7, 64, CHUNK_N };
	for (int nth = 1; nth <= 4; nth++) {
		for (size_t in = 0; in < sizeof(ns) / sizeof(ns[0]); in++) {
			struct chunk_job *j = calloc(1, sizeof(*j));
			j->n = ns[in];
			j->slow = ns[in] == CHUNK_N ? nth - 1 : -1;
			chunk_job_init(j, tp, nth);
			ggml_cpu_run(tp, nth, chunk_fn, j);
			for (int64_t c = 0; c < j->n; c++) {
				ASSERT_EQ(1, atomic_load(&j->taken[c])) TH_LOG("chunk %lld of %lld, %d threads",
									    (long long)c, (long long)j->n, nth);
			}
			for (int t = 0; t < nth; t++) {
				EXPECT_EQ(0, j->out_of_order[t]);
				EXPECT_EQ(0, j->unseen[t]);
			}
			EXPECT_EQ(0, atomic_load(&j->segs[0].pending));
			if (j->slow > 0) {
				/* the slow thread started after the others had taken all but
				 * the chunks it was on: most of its share went to them */
				int stolen = 0;
				for (int t = 0; t < nth; t++)
					stolen += t != j->slow ? j->n_stolen[t] : 0;
				EXPECT_GT(stolen, 0);
				EXPECT_LT(j->n_own[j->slow], j->n / nth);
				/* taken from the end of its share */
				EXPECT_NE(j->slow, j->taken_by[j->n * (j->slow + 1) / nth - 1]);
			}
			free(j);
		}
	}
	ggml_threadpool_free(tp);
}

/* A thread that holds no chunk holds nobody up: the others take its share
 * and leave the segment while it has not even started (with a barrier they
 * would wait for it, and it waits for them: the release below times out). */
static void idle_fn(void *data, int ith, int nth)
{
	struct chunk_job *j = data;
	struct ggml_cpu_thread thr = { &j->w, ith, 0, -1, false };
	struct ggml_compute_params p;
	memset(&p, 0, sizeof(p));
	p.ith = ith;
	p.nth = nth;
	p.part = &j->part;
	p.thr = &thr;
	if (ith == j->slow) {
		/* until the others are out of the segment, at most 30 s */
		for (int i = 0; i < 30000 && atomic_load(&j->left) < nth - 1; i++)
			usleep(1000);
		j->waited_for_slow = atomic_load(&j->left) < nth - 1;
	}
	struct ggml_cpu_chunk_iter it;
	ggml_cpu_chunk_begin(&p, j->n, &it);
	for (int64_t c = ggml_cpu_chunk_next(&p, &it); c >= 0; c = ggml_cpu_chunk_next(&p, &it)) {
		atomic_fetch_add(&j->taken[c], 1);
		j->taken_by[c] = ith;
		j->val[c] = c + 1;
	}
	ggml_cpu_seg_next(&thr, true);
	for (int64_t c = 0; c < j->n; c++)
		j->unseen[ith] += j->val[c] != c + 1;
	atomic_fetch_add(&j->left, 1);
}

TEST(segment_leaves_idle_thread_behind)
{
	struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
	struct ggml_threadpool *tp = ggml_threadpool_new(&p);
	ASSERT_NE(tp, NULL);
	for (int nth = 2; nth <= 4; nth++) {
		struct chunk_job *j = calloc(1, sizeof(*j));
		j->n = 64;
		j->slow = nth - 1;
		chunk_job_init(j, tp, nth);
		ggml_cpu_run(tp, nth, idle_fn, j);
		EXPECT_EQ(0, j->waited_for_slow) TH_LOG("%d threads: the others waited for the idle one", nth);
		for (int64_t c = 0; c < j->n; c++) {
			ASSERT_EQ(1, atomic_load(&j->taken[c]));
			EXPECT_NE(j->slow, j->taken_by[c]);
		}
		for (int t = 0; t < nth; t++)
			EXPECT_EQ(0, j->unseen[t]);
		free(j);
	}
	ggml_threadpool_free(tp);
}

#if defined(__x86_64__)
static int cpuinfo_has(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int found = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		found = 0;
		for (char *tok = strtok(strchr(line, ':') + 1, " \n"); tok; tok = strtok(NULL, " \n"))
			if (strcmp(tok, flag) == 0)
				found = 1;
		break;
	}
	fclose(f);
	return found;
}
#endif

/* ggml_cpu_has_* answers for the CPU, also when GGML_CPU_NO_SIMD=1 turns the
 * SIMD kernels off (second pass) */
TEST(cpu_features)
{
	ggml_cpu_init();
	ggml_cpu_init(); /* harmless twice */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			setenv("GGML_CPU_NO_SIMD", "1", 1);
			ggml_cpu_isa_disable(NULL);
			EXPECT_FALSE(ggml_cpu_isa()->avx2);
			EXPECT_FALSE(ggml_cpu_isa()->neon);
			EXPECT_FALSE(ggml_cpu_isa()->use_vnni256);
			EXPECT_FALSE(ggml_cpu_isa()->use_dotprod);
		}
#if defined(__x86_64__)
		if (cpuinfo_has("avx2") < 0)
			SKIP(return, "no /proc/cpuinfo flags");
		EXPECT_EQ(ggml_cpu_has_sse3(), cpuinfo_has("pni"));
		EXPECT_EQ(ggml_cpu_has_ssse3(), cpuinfo_has("ssse3"));
		EXPECT_EQ(ggml_cpu_has_avx(), cpuinfo_has("avx"));
		EXPECT_EQ(ggml_cpu_has_avx2(), cpuinfo_has("avx2"));
		EXPECT_EQ(ggml_cpu_has_fma(), cpuinfo_has("fma"));
		EXPECT_EQ(ggml_cpu_has_f16c(), cpuinfo_has("f16c"));
		EXPECT_EQ(ggml_cpu_has_bmi2(), cpuinfo_has("bmi2"));
		EXPECT_EQ(ggml_cpu_has_avx512(), cpuinfo_has("avx512f"));
		EXPECT_EQ(ggml_cpu_has_avx512_vbmi(), cpuinfo_has("avx512vbmi"));
		EXPECT_EQ(ggml_cpu_has_avx512_vnni(), cpuinfo_has("avx512_vnni"));
		EXPECT_EQ(ggml_cpu_has_avx512_bf16(), cpuinfo_has("avx512_bf16"));
		EXPECT_EQ(ggml_cpu_has_avx_vnni(), cpuinfo_has("avx_vnni"));
		EXPECT_EQ(ggml_cpu_has_amx_int8(), cpuinfo_has("amx_int8"));
		EXPECT_EQ(ggml_cpu_has_neon(), 0);
		EXPECT_EQ(ggml_cpu_has_sve(), 0);
#elif defined(__aarch64__)
		unsigned long hw = getauxval(AT_HWCAP);
		EXPECT_EQ(ggml_cpu_has_neon(), (hw >> 1) & 1);
		EXPECT_EQ(ggml_cpu_has_dotprod(), (hw >> 20) & 1);
		EXPECT_EQ(ggml_cpu_has_fp16_va(), (hw >> 10) & 1);
		EXPECT_EQ(ggml_cpu_has_sve(), (hw >> 22) & 1);
		if (ggml_cpu_has_sve()) {
			EXPECT_GE(ggml_cpu_get_sve_cnt(), 16);
		} else {
			EXPECT_EQ(ggml_cpu_get_sve_cnt(), 0);
		}
		EXPECT_EQ(ggml_cpu_has_avx2(), 0);
		EXPECT_EQ(ggml_cpu_has_sse3(), 0);
#endif
		EXPECT_EQ(ggml_cpu_has_riscv_v(), 0);
		EXPECT_EQ(ggml_cpu_get_rvv_vlen(), 0);
		EXPECT_EQ(ggml_cpu_has_vsx(), 0);
		EXPECT_EQ(ggml_cpu_has_vxe(), 0);
		EXPECT_EQ(ggml_cpu_has_wasm_simd(), 0);
		EXPECT_EQ(ggml_cpu_has_llamafile(), 0);
	}
	unsetenv("GGML_CPU_NO_SIMD");
	ggml_cpu_isa_disable(getenv("GGML_CPU_DISABLE"));
}

TEST(numa)
{
	int nodes = 0;
	DIR *d = opendir("/sys/devices/system/node");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9')
				nodes++;
		closedir(d);
	}
	ggml_numa_init(GGML_NUMA_STRATEGY_DISTRIBUTE);
	ggml_numa_init(GGML_NUMA_STRATEGY_DISTRIBUTE); /* second call: no-op */
	EXPECT_EQ(ggml_is_numa(), nodes > 1);
}

TEST_HARNESS_MAIN
