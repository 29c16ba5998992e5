// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Reference software engine: executes jobs on kernel worker threads in host
 * memory, so the driver works and is tested without accelerator hardware.
 *
 * A job runs on one worker, node after node. Each node is cut into chunks
 * of rows; every chunk runs inside its own kernel_fpu_begin()/end() section
 * (the floating point lives in gaccel_ref_fpu.c), and between chunks the
 * worker checks for cancellation and calls cond_resched(), so no job, however
 * large, holds the CPU or the FPU for long.
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/xcr.h>
#include <asm/fpu/api.h>
#endif

#include <drm/gaccel_accel.h>

#include "gaccel_drv.h"
#ifdef GACCEL_HAVE_LINUX_FPU_H
#include <linux/fpu.h>
#endif
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_ref.h"

static bool ref_simd = true;
module_param_named(simd, ref_simd, bool, 0444);
MODULE_PARM_DESC(simd,
		 "Use the SIMD kernels (x86-64: AVX2/FMA/F16C when the CPU has them; arm64: NEON) (default true)");

static bool ref_fault_injection;
module_param_named(fault_injection, ref_fault_injection, bool, 0444);
MODULE_PARM_DESC(fault_injection,
		 "Test only: add the debugfs file 'fault' that makes jobs hang, fail or run slowly (default false)");

static bool ref_engine = true;
module_param_named(ref_engine, ref_engine, bool, 0444);
MODULE_PARM_DESC(ref_engine,
		 "Register the reference software engine's device (default true); false leaves gaccel to engines of other modules");

static unsigned int ref_workers;
module_param_named(workers, ref_workers, uint, 0444);
MODULE_PARM_DESC(workers,
		 "Worker threads of the reference engine (0 = one per online CPU)");

/**
 * struct gaccel_ref - the reference engine.
 * @engine: its registration.
 * @num_workers: worker threads, the engine's caps.num_workers.
 * @wq: the worker pool.
 * @fault_hang: jobs still to hang until cancelled.
 * @fault_fail: jobs still to fail with -EIO.
 * @fault_slow_ms: delay added to every job.
 * @jobs: jobs run.
 * @failed: jobs failed.
 * @cancelled: jobs cancelled.
 * @busy_ns: time spent in jobs.
 * @bytes: slot bytes of jobs run.
 * @resets: resets.
 * @fpu_sections: FPU sections run.
 * @fpu_max_ns: longest of them (the work between kernel_fpu_begin() and
 *	kernel_fpu_end()): about the longest time a worker kept preemption
 *	off.
 * @avx2: run the AVX2/FMA/F16C kernels.
 * @neon: run the NEON kernels (arm64).
 */
struct gaccel_ref {
	struct gaccel_engine *engine;
	unsigned int num_workers;
	bool avx2;
	bool neon;
	struct workqueue_struct *wq;
	atomic_t fault_hang;
	atomic_t fault_fail;
	unsigned int fault_slow_ms;
	atomic64_t jobs;
	atomic64_t failed;
	atomic64_t cancelled;
	atomic64_t busy_ns;
	atomic64_t bytes;
	atomic64_t resets;
	atomic64_t fpu_sections;
	atomic64_t fpu_max_ns;
};

static inline struct gaccel_ref *to_gaccel_ref(struct gaccel_engine *engine)
{
	return gaccel_engine_priv(engine);
}

/* Most other workers one node borrows. */
#define GACCEL_REF_MAX_HELPERS	7

/**
 * struct gaccel_ref_split - one node shared out in chunks among the job's
 * worker and idle workers of the pool.
 * @rn: the resolved node; each participant copies it and takes its own
 *	part of the job's scratch memory.
 * @ejob: the job.
 * @units: units of the node.
 * @per: units per chunk (one FPU section).
 * @next: first unit not yet taken.
 * @error: first error of any participant.
 */
struct gaccel_ref_split {
	struct gaccel_ref_node rn;
	struct gaccel_engine_job *ejob;
	u64 units;
	u64 per;
	atomic64_t next;
	atomic_t error;
};

/*
 * struct gaccel_ref_helper - a pool worker lent to a node.
 * @work: queued on the engine's workqueue.
 * @split: the node.
 * @part: which part of the job's scratch memory it uses.
 * @done: completed when the helper has finished with @split.
 */
struct gaccel_ref_helper {
	struct work_struct work;
	struct gaccel_ref_split *split;
	unsigned int part;
	struct completion done;
};

/*
 * One FPU section: about GACCEL_REF_CHUNK of work, timed from inside the
 * section (preemption is off there, so the time is the section's work plus
 * interrupts, not time the worker spent preempted before it); its time
 * goes to @longest, the participant's longest so far.
 */
static int gaccel_ref_section(struct gaccel_ref_node *rn,
			      struct gaccel_ref_pos *pos, s64 *longest)
{
	ktime_t start;
	s64 ns;
	int ret;

	kernel_fpu_begin();
	start = ktime_get();
	ret = gaccel_ref_fpu_run(rn, pos);
	ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	kernel_fpu_end();
	*longest = max(*longest, ns);
	return ret;
}

/*
 * A participant's sections go into the engine's figures once, when it is
 * done with the node: shared counters touched every section would bounce
 * between the CPUs of the participants.
 */
static void gaccel_ref_count(struct gaccel_ref *ref, u64 sections, s64 longest)
{
	s64 max = atomic64_read(&ref->fpu_max_ns);

	atomic64_add(sections, &ref->fpu_sections);
	while (longest > max &&
	       !atomic64_try_cmpxchg(&ref->fpu_max_ns, &max, longest))
		;
}

/*
 * Take chunks until none is left, an error happens or the job is
 * cancelled. A chunk may take several sections (a long row is cut between
 * them); between sections the worker checks for cancellation and yields.
 */
static void gaccel_ref_chunks(struct gaccel_ref_split *s, unsigned int part)
{
	struct gaccel_ref *ref = to_gaccel_ref(s->ejob->engine);
	struct gaccel_ref_node rn = s->rn;
	struct gaccel_ref_pos pos;
	u64 sections = 0;
	s64 longest = 0;
	int ret;
	u64 u;

	if (rn.scratch)
		rn.scratch = (u8 *)rn.scratch + part * s->ejob->scratch_stride;
	for (;;) {
		u = atomic64_fetch_add(s->per, &s->next);
		if (u >= s->units)
			break;
		pos = (struct gaccel_ref_pos){
			.unit = u, .end = min(u + s->per, s->units),
		};
		do {
			if (READ_ONCE(s->ejob->cancel)) {
				atomic_cmpxchg(&s->error, 0, -ECANCELED);
				goto out;
			}
			if (atomic_read(&s->error))
				goto out;
			ret = gaccel_ref_section(&rn, &pos, &longest);
			sections++;
			if (ret < 0) {
				atomic_cmpxchg(&s->error, 0, ret);
				goto out;
			}
			cond_resched();
		} while (ret);
	}
out:
	gaccel_ref_count(ref, sections, longest);
}

static void gaccel_ref_helper_work(struct work_struct *work)
{
	struct gaccel_ref_helper *h =
		container_of(work, struct gaccel_ref_helper, work);
	bool cookie = dma_fence_begin_signalling();

	gaccel_ref_chunks(h->split, h->part);
	dma_fence_end_signalling(cookie);
	/* The last touch of @h: the node's worker may return right after. */
	complete(&h->done);
}

static int gaccel_ref_node(struct gaccel_engine_job *ejob,
			   const struct drm_gaccel_node *node)
{
	struct gaccel_ref_helper helpers[GACCEL_REF_MAX_HELPERS];
	struct gaccel_ref *ref = to_gaccel_ref(ejob->engine);
	struct gaccel_ref_split split = { .ejob = ejob };
	u64 chunks;
	u32 nh, h;

	struct gaccel_ref_node rn = {
		.scratch = ejob->scratch,
		.scratch_size = ejob->scratch ? ejob->scratch_stride : 0,
		.avx2 = to_gaccel_ref(ejob->engine)->avx2,
		.neon = to_gaccel_ref(ejob->engine)->neon,
	};
	u64 units, cost, per;
	int ret;

	ret = gaccel_ref_node_prepare(&rn, ejob->graph, node, ejob->slots,
				      &units, &cost);
	if (ret)
		return ret;
	per = max_t(u64, 1, GACCEL_REF_CHUNK / max_t(u64, cost, 1));
	split.rn = rn;
	split.units = units;
	split.per = per;
	atomic64_set(&split.next, 0);
	atomic_set(&split.error, 0);

	/*
	 * Big nodes borrow other workers. The job's own worker takes chunks
	 * too and never waits for a helper to start, so busy pools cannot
	 * deadlock: helpers that did not start in time are cancelled, and
	 * it waits only for those that run, which finish within a chunk.
	 *
	 * It waits on a completion, not with cancel_work_sync(): helpers are
	 * on the fence signalling path too (annotated as such), and a work
	 * flush from a signalling section makes lockdep see a cycle through
	 * the dma_fence pseudo-lock.
	 */
	chunks = DIV_ROUND_UP(units, per);
	nh = min3(ref->num_workers - 1, (u32)GACCEL_REF_MAX_HELPERS,
		  (u32)min_t(u64, chunks - 1, U32_MAX));
	for (h = 0; h < nh; h++) {
		helpers[h].split = &split;
		helpers[h].part = h + 1;
		init_completion(&helpers[h].done);
		INIT_WORK_ONSTACK(&helpers[h].work, gaccel_ref_helper_work);
		queue_work(ref->wq, &helpers[h].work);
	}
	gaccel_ref_chunks(&split, 0);
	for (h = 0; h < nh; h++) {
		if (!cancel_work(&helpers[h].work))
			wait_for_completion(&helpers[h].done);
		destroy_work_on_stack(&helpers[h].work);
	}
	return atomic_read(&split.error);
}

/* Sleep @ms in short steps, returning early on cancellation. */
static int gaccel_ref_sleep(struct gaccel_engine_job *ejob, unsigned int ms)
{
	while (ms) {
		unsigned int step = min(ms, 5u);

		if (READ_ONCE(ejob->cancel))
			return -ECANCELED;
		usleep_range(step * 1000, step * 1000 + 500);
		ms -= step;
	}
	return 0;
}

/*
 * Run a job to the end; the job's fence signals in done(). Injected faults
 * apply to the jobs run on a worker (@faults), not to short ones run by
 * run() or SUBMIT itself, which must not block.
 */
static void gaccel_ref_exec(struct gaccel_engine_job *ejob, bool faults)
{
	struct gaccel_ref *ref = to_gaccel_ref(ejob->engine);
	const struct gaccel_graph *g = ejob->graph;
	bool cookie = dma_fence_begin_signalling();
	ktime_t start = ktime_get();
	u64 bytes;
	int ret = 0;
	u32 i;

	if (!faults) {
		ret = 0;
	} else if (atomic_add_unless(&ref->fault_hang, -1, 0)) {
		while (!READ_ONCE(ejob->cancel))
			usleep_range(5000, 5500);
		ret = -ECANCELED;
	} else if (atomic_add_unless(&ref->fault_fail, -1, 0)) {
		ret = -EIO;
	} else {
		ret = gaccel_ref_sleep(ejob, READ_ONCE(ref->fault_slow_ms));
	}

	for (i = 0; !ret && i < g->num_nodes; i++)
		ret = gaccel_ref_node(ejob, &g->nodes[i]);

	atomic64_inc(&ref->jobs);
	atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), start)), &ref->busy_ns);
	for (i = 0, bytes = 0; i < g->num_slots; i++)
		bytes += g->slot_size[i];
	atomic64_add(bytes, &ref->bytes);
	if (ret == -ECANCELED)
		atomic64_inc(&ref->cancelled);
	else if (ret)
		atomic64_inc(&ref->failed);
	ejob->done(ejob, ret);
	dma_fence_end_signalling(cookie);
}

static void gaccel_ref_work(struct work_struct *work)
{
	gaccel_ref_exec(container_of(work, struct gaccel_engine_job, work), true);
}

/* Work of a job run inside run() (about a few FPU sections at most). */
#define GACCEL_REF_INLINE_WORK	(4 * GACCEL_REF_CHUNK)
#define GACCEL_REF_INLINE_NODES	16

/*
 * Whether a job is short enough to run inside run() or SUBMIT, saving the
 * hop to a worker: the scheduler's timeout handler waits for run() to
 * return and SUBMIT has no timeout at all, so only jobs with a small,
 * bounded amount of work qualify, and none while a fault is being
 * injected (the fault tests need the scheduler's path).
 */
static bool gaccel_ref_is_short(struct gaccel_engine *engine,
				struct gaccel_engine_job *ejob)
{
	struct gaccel_ref *ref = to_gaccel_ref(engine);
	const struct gaccel_graph *g = ejob->graph;
	u64 work = 0, units, cost;
	u32 i;

	if (g->num_nodes > GACCEL_REF_INLINE_NODES ||
	    atomic_read(&ref->fault_hang) || atomic_read(&ref->fault_fail) ||
	    READ_ONCE(ref->fault_slow_ms))
		return false;
	for (i = 0; i < g->num_nodes; i++) {
		struct gaccel_ref_node rn = {
			.scratch_size = ejob->scratch ? ejob->scratch_stride : 0,
			.avx2 = ref->avx2,
			.neon = ref->neon,
		};

		/* A node its kernel would refuse fails on a worker. */
		if (gaccel_ref_node_prepare(&rn, g, &g->nodes[i], ejob->slots,
					    &units, &cost))
			return false;
		if (check_mul_overflow(units, max_t(u64, cost, 1), &units) ||
		    check_add_overflow(work, units, &work) ||
		    work > GACCEL_REF_INLINE_WORK)
			return false;
	}
	return true;
}

static void gaccel_ref_run_short(struct gaccel_engine *engine,
				 struct gaccel_engine_job *ejob)
{
	ejob->engine = engine;
	gaccel_ref_exec(ejob, false);
}

static void gaccel_ref_run(struct gaccel_engine *engine,
			   struct gaccel_engine_job *ejob)
{
	struct gaccel_ref *ref = to_gaccel_ref(engine);

	ejob->engine = engine;
	/* Faults only on workers: a hang inside run() would stall the timeout. */
	if (gaccel_ref_is_short(engine, ejob)) {
		gaccel_ref_exec(ejob, false);
		return;
	}
	INIT_WORK(&ejob->work, gaccel_ref_work);
	queue_work(ref->wq, &ejob->work);
}

/* The job sees the flag between two chunks and ends with -ECANCELED. */
static void gaccel_ref_cancel(struct gaccel_engine *engine,
			      struct gaccel_engine_job *ejob)
{
	WRITE_ONCE(ejob->cancel, true);
}

static void gaccel_ref_reset(struct gaccel_engine *engine)
{
	/* Jobs share no state: nothing to restore beyond the cancelled job. */
	atomic64_inc(&to_gaccel_ref(engine)->resets);
}

static void gaccel_ref_stats(struct gaccel_engine *engine,
			     struct gaccel_engine_stats *stats)
{
	struct gaccel_ref *ref = to_gaccel_ref(engine);

	stats->jobs = atomic64_read(&ref->jobs);
	stats->failed = atomic64_read(&ref->failed);
	stats->cancelled = atomic64_read(&ref->cancelled);
	stats->busy_ns = atomic64_read(&ref->busy_ns);
	stats->bytes = atomic64_read(&ref->bytes);
	stats->resets = atomic64_read(&ref->resets);
}

/* ------------------------------------------------------------------------ */
/* debugfs: fault injection                                                  */

static int gaccel_ref_fault_show(struct seq_file *m, void *unused)
{
	struct gaccel_ref *ref = m->private;

	seq_printf(m, "hang %d\nfail %d\nslow %u\n",
		   atomic_read(&ref->fault_hang), atomic_read(&ref->fault_fail),
		   READ_ONCE(ref->fault_slow_ms));
	return 0;
}

static int gaccel_ref_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, gaccel_ref_fault_show, inode->i_private);
}

/*
 * "hang [N]": the next N jobs (default 1) run until cancelled;
 * "fail [N]": the next N jobs fail with -EIO; "slow MS": every job sleeps MS
 * first; "none": clear everything.
 */
static ssize_t gaccel_ref_fault_write(struct file *file, const char __user *ubuf,
				      size_t len, loff_t *ppos)
{
	struct gaccel_ref *ref = file_inode(file)->i_private;
	char buf[32], word[8];
	unsigned int n = 1;
	int fields;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;

	fields = sscanf(buf, "%7s %u", word, &n);
	if (fields < 1)
		return -EINVAL;
	if (!strcmp(word, "hang")) {
		atomic_set(&ref->fault_hang, n);
	} else if (!strcmp(word, "fail")) {
		atomic_set(&ref->fault_fail, n);
	} else if (!strcmp(word, "slow") && fields == 2) {
		WRITE_ONCE(ref->fault_slow_ms, n);
	} else if (!strcmp(word, "none")) {
		atomic_set(&ref->fault_hang, 0);
		atomic_set(&ref->fault_fail, 0);
		WRITE_ONCE(ref->fault_slow_ms, 0);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations gaccel_ref_fault_fops = {
	.owner = THIS_MODULE,
	.open = gaccel_ref_fault_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = gaccel_ref_fault_write,
};

/*
 * "fpu": FPU sections run and the longest one in ns since the last reset
 * (any write resets both), to measure how long the engine keeps a CPU
 * from being preempted.
 */
static int gaccel_ref_fpu_show(struct seq_file *m, void *unused)
{
	struct gaccel_ref *ref = m->private;

	seq_printf(m, "sections %lld\nmax_ns %lld\n",
		   atomic64_read(&ref->fpu_sections),
		   atomic64_read(&ref->fpu_max_ns));
	return 0;
}

static int gaccel_ref_fpu_open(struct inode *inode, struct file *file)
{
	return single_open(file, gaccel_ref_fpu_show, inode->i_private);
}

static ssize_t gaccel_ref_fpu_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	struct gaccel_ref *ref = file_inode(file)->i_private;

	atomic64_set(&ref->fpu_sections, 0);
	atomic64_set(&ref->fpu_max_ns, 0);
	return len;
}

static const struct file_operations gaccel_ref_fpu_fops = {
	.owner = THIS_MODULE,
	.open = gaccel_ref_fpu_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = gaccel_ref_fpu_write,
};

static void gaccel_ref_debugfs_init(struct gaccel_engine *engine,
				    struct dentry *root)
{
	debugfs_create_file("fpu", 0600, root, to_gaccel_ref(engine),
			    &gaccel_ref_fpu_fops);
	/* A test knob: never there unless the module was loaded for tests. */
	if (!ref_fault_injection)
		return;
	debugfs_create_file("fault", 0600, root, to_gaccel_ref(engine),
			    &gaccel_ref_fault_fops);
}

/* ------------------------------------------------------------------------ */

static const struct gaccel_engine_ops gaccel_ref_ops = {
	.run = gaccel_ref_run,
	.is_short = gaccel_ref_is_short,
	.run_short = gaccel_ref_run_short,
	.cancel = gaccel_ref_cancel,
	.reset = gaccel_ref_reset,
	.stats = gaccel_ref_stats,
	.debugfs_init = gaccel_ref_debugfs_init,
};

/* ------------------------------------------------------------------------ */
/* The engine's device: a platform device of gaccel.ko's own                */

#define GACCEL_REF_NAME	"gaccel"

/*
 * A board may declare the reference engine in its device tree instead
 * (Documentation/devicetree/bindings/accel/gaccel,reference-engine.yaml);
 * the driver then binds to that node and creates no device of its own.
 */
#define GACCEL_REF_COMPATIBLE		"gaccel,reference-engine"
#define GACCEL_REF_DT_MAX_WORKERS	256

static const struct of_device_id gaccel_ref_of_match[] = {
	{ .compatible = GACCEL_REF_COMPATIBLE },
	{ }
};
MODULE_DEVICE_TABLE(of, gaccel_ref_of_match);

/*
 * Registers like any engine module's probe would, through the exported
 * gaccel_engine_register(): the reference engine is built in only so that
 * loading gaccel.ko alone gives a working device.
 */
static int gaccel_ref_probe(struct platform_device *pdev)
{
	unsigned int workers = ref_workers ? ref_workers : num_online_cpus();
	u32 dt_workers;
	struct gaccel_engine_desc desc = {
		.ops = &gaccel_ref_ops,
		.mem = GACCEL_ENGINE_MEM_CPU,
		.completion = GACCEL_ENGINE_COMPLETE_IRQ,
	};
	struct gaccel_ref *ref;
	int ret;

	/*
	 * The software engine reaches memory through the CPU, but dma-buf
	 * exporters map their buffers for the importing device: give it a
	 * mask that accepts any address.
	 */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	/* Nor has it a limit on the length of a segment. */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	/* A device-tree node may say how many workers (the parameter wins). */
	if (!ref_workers &&
	    !device_property_read_u32(&pdev->dev, "gaccel,workers", &dt_workers)) {
		if (!dt_workers || dt_workers > GACCEL_REF_DT_MAX_WORKERS) {
			dev_err(&pdev->dev, "gaccel,workers: %u is not in 1..%u\n",
				dt_workers, GACCEL_REF_DT_MAX_WORKERS);
			return -EINVAL;
		}
		workers = dt_workers;
	}

	ref = devm_kzalloc(&pdev->dev, sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return -ENOMEM;
	/* Jobs and their helpers are on the fence signalling path. */
	ref->wq = alloc_workqueue("gaccel-ref", WQ_UNBOUND | WQ_MEM_RECLAIM, workers);
	if (!ref->wq)
		return -ENOMEM;
#ifdef CONFIG_X86_64
	ref->avx2 = ref_simd && boot_cpu_has(X86_FEATURE_AVX2) &&
		    boot_cpu_has(X86_FEATURE_FMA) &&
		    boot_cpu_has(X86_FEATURE_F16C) &&
		    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
#endif
#ifdef CONFIG_ARM64
	ref->neon = ref_simd && system_supports_fpsimd();
#endif
	ref->num_workers = workers;

	gaccel_ref_caps(&desc.caps);
	desc.caps.mem_size = (u64)totalram_pages() << PAGE_SHIFT;
	desc.caps.max_bo_size = desc.caps.mem_size;
	desc.caps.num_workers = workers;
	desc.priv = ref;
	ref->engine = gaccel_engine_register(&pdev->dev, &desc);
	if (IS_ERR(ref->engine)) {
		destroy_workqueue(ref->wq);
		return PTR_ERR(ref->engine);
	}
	platform_set_drvdata(pdev, ref);
	return 0;
}

/*
 * Unregistering cancels the running jobs and waits for them; a worker may
 * still be returning from done(): the workqueue's destruction waits for it.
 */
static void gaccel_ref_remove(struct platform_device *pdev)
{
	struct gaccel_ref *ref = platform_get_drvdata(pdev);

	gaccel_engine_unregister(ref->engine);
	destroy_workqueue(ref->wq);
}

#ifdef GACCEL_HAVE_PLATFORM_REMOVE_VOID
#define GACCEL_REF_REMOVE	gaccel_ref_remove
#else
static int gaccel_ref_remove_int(struct platform_device *pdev)
{
	gaccel_ref_remove(pdev);
	return 0;
}

#define GACCEL_REF_REMOVE	gaccel_ref_remove_int
#endif

static struct platform_driver gaccel_ref_driver = {
	.probe = gaccel_ref_probe,
	.remove = GACCEL_REF_REMOVE,
	.driver = {
		.name = GACCEL_REF_NAME,
		.of_match_table = gaccel_ref_of_match,
	},
};

static struct platform_device *gaccel_ref_pdev;
static bool gaccel_ref_dt;

/**
 * gaccel_ref_module_init - create the reference engine's device.
 *
 * Unless the ref_engine parameter is false, or the device tree declares the
 * engine (the driver binds to that node). Returns 0, or the error that
 * kept the device from appearing (the probe's is in the log).
 */
int gaccel_ref_module_init(void)
{
	struct device_node *np;
	int ret;

	if (!ref_engine)
		return 0;
	ret = platform_driver_register(&gaccel_ref_driver);
	if (ret)
		return ret;
	/* Declared by the device tree: bound there already (or it failed). */
	np = of_find_compatible_node(NULL, NULL, GACCEL_REF_COMPATIBLE);
	if (np) {
		of_node_put(np);
		gaccel_ref_dt = true;
		return 0;
	}
	gaccel_ref_pdev = platform_device_register_simple(GACCEL_REF_NAME, -1,
							  NULL, 0);
	if (IS_ERR(gaccel_ref_pdev)) {
		ret = PTR_ERR(gaccel_ref_pdev);
		goto err_driver;
	}
	if (!platform_get_drvdata(gaccel_ref_pdev)) {
		platform_device_unregister(gaccel_ref_pdev);
		ret = -ENODEV;
		goto err_driver;
	}
	return 0;

err_driver:
	gaccel_ref_pdev = NULL;
	platform_driver_unregister(&gaccel_ref_driver);
	return ret;
}

void gaccel_ref_module_exit(void)
{
	if (gaccel_ref_dt) {
		platform_driver_unregister(&gaccel_ref_driver);
		return;
	}
	if (!gaccel_ref_pdev)
		return;
	platform_device_unregister(gaccel_ref_pdev);
	platform_driver_unregister(&gaccel_ref_driver);
}
