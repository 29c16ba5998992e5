/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * gaccel engine interface: what gaccel's core (gaccel.ko: device node,
 * buffer objects, graph validation, queues, scheduling, syncobjs, limits)
 * needs from whatever executes jobs. An engine is a driver of its own - a
 * PCI, platform or device-tree driver in its own module, or built into
 * gaccel.ko like the reference software engine (gaccel_ref.c) - that
 * describes itself with a struct gaccel_engine_desc and calls
 * gaccel_engine_register() from its probe; it gets an accel node of its
 * own. The functions are exported in the GACCEL symbol namespace: an
 * engine module says GACCEL_ENGINE_IMPORT_NS; once.
 * See Documentation/engine-porting.rst.
 */
#ifndef __GACCEL_ENGINE_H__
#define __GACCEL_ENGINE_H__

#include <linux/dma-direction.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "gaccel_graph.h"

struct dentry;
struct device;
struct scatterlist;
struct sg_table;
struct gaccel_device;
struct gaccel_engine;
struct gaccel_graph;
struct drm_gaccel_node;

/**
 * struct gaccel_op_caps - one op an engine runs, reported by QUERY OPS and
 * enforced by graph validation.
 * @op: &enum drm_gaccel_op.
 * @max_rank: highest rank of any operand (1 + the last dimension whose ne
 *	is above 1).
 * @src0_dtypes: BIT(dtype) mask accepted for the first source.
 * @src1_dtypes: mask for the second source (0: the op has none).
 * @dst_dtypes: mask for the destination.
 */
struct gaccel_op_caps {
	u32 op;
	u32 max_rank;
	u64 src0_dtypes;
	u64 src1_dtypes;
	u64 dst_dtypes;
};

/**
 * struct gaccel_engine_caps - static capabilities, reported through QUERY.
 * @name: engine name, at most 31 characters.
 * @kind: &enum drm_gaccel_engine_kind.
 * @mem_kind: &enum drm_gaccel_mem_kind.
 * @mem_size: bytes of memory the engine can address.
 * @max_bo_size: largest buffer object, in bytes.
 * @max_rank: highest tensor rank of a graph.
 * @max_graph_nodes: most nodes of a graph.
 * @max_graph_tensors: most tensor descriptors of a graph.
 * @max_bindings: most binding slots of a graph.
 * @num_workers: execution units of the engine: the core runs at most this
 *	many jobs at once, one per unit.
 * @ops: table of the ops it runs.
 * @num_ops: entries of @ops.
 * @dtypes: BIT(dtype) mask of the dtypes it knows (see gaccel_graph.c for
 *	their sizes).
 * @node_scratch: optional: bytes of scratch memory each worker needs to
 *	run @node of @graph, 0 for none. Called by graph validation once the
 *	node's rules held; the graph's scratch size is the largest answer.
 */
struct gaccel_engine_caps {
	const char *name;
	u32 kind;
	u32 mem_kind;
	u64 mem_size;
	u64 max_bo_size;
	u32 max_rank;
	u32 max_graph_nodes;
	u32 max_graph_tensors;
	u32 max_bindings;
	u32 num_workers;
	const struct gaccel_op_caps *ops;
	u32 num_ops;
	u64 dtypes;
	u64 (*node_scratch)(const struct gaccel_graph *graph,
			    const struct drm_gaccel_node *node);
};

/**
 * struct gaccel_engine_dma - a binding slot as a DMA engine sees it.
 * @sgt: the whole object, DMA-mapped for the engine's struct device (the one
 *	given to gaccel_engine_register()); walk it with
 *	for_each_sgtable_dma_sg() or gaccel_dma_cursor_seek().
 * @offset: where the slot starts in the object, in bytes.
 * @size: bytes of the slot (at least its declared size).
 * @dir: the direction the object is mapped with: %DMA_TO_DEVICE for an
 *	object the client may only read (an engine must never write it),
 *	%DMA_BIDIRECTIONAL otherwise.
 */
struct gaccel_engine_dma {
	struct sg_table *sgt;
	u64 offset;
	u64 size;
	enum dma_data_direction dir;
};

/**
 * struct gaccel_dma_cursor - where gaccel_dma_cursor_seek() is in a slot.
 * @slot: the slot.
 * @sg: the DMA segment holding @start.
 * @start: offset in the object of @sg's first byte.
 * @left: DMA segments from @sg to the end.
 */
struct gaccel_dma_cursor {
	const struct gaccel_engine_dma *slot;
	struct scatterlist *sg;
	u64 start;
	unsigned int left;
};

void gaccel_dma_cursor_init(struct gaccel_dma_cursor *cur,
			    const struct gaccel_engine_dma *slot);
u64 gaccel_dma_cursor_seek(struct gaccel_dma_cursor *cur, u64 pos,
			   dma_addr_t *addr);

/**
 * struct gaccel_engine_job - what an engine sees of a job.
 * @graph: the validated program; its tensors never reach outside their
 *	slot's declared size.
 * @slots: %GACCEL_ENGINE_MEM_CPU engines: kernel address of each binding
 *	slot, at least the slot's declared size long. NULL for DMA engines.
 * @dma: %GACCEL_ENGINE_MEM_DMA engines: each binding slot as DMA segments
 *	of the engine's device, synchronised for the device before run() and
 *	for the CPU after done(). NULL for CPU engines.
 * @scratch: per-job scratch memory (CPU engines): one part of
 *	@scratch_stride bytes (the graph's scratch size) per engine worker.
 * @scratch_stride: bytes of each worker's part of @scratch.
 * @cancel: set (READ_ONCE) when the driver wants the job stopped.
 * @done: called by the engine exactly once per run(), from process context
 *	(possibly from within run()), with 0 or a negative errno. The job may
 *	be freed as soon as it returns.
 * @engine: the engine running it.
 * @work: for the engine's use.
 */
struct gaccel_engine_job {
	const struct gaccel_graph *graph;
	void **slots;
	struct gaccel_engine_dma *dma;
	void *scratch;
	u64 scratch_stride;
	bool cancel;
	void (*done)(struct gaccel_engine_job *ejob, int error);
	struct gaccel_engine *engine;
	struct work_struct work;
};

/**
 * struct gaccel_engine_stats - counters since the engine was created.
 * @jobs: jobs run.
 * @failed: jobs that ended with an error.
 * @cancelled: jobs cancelled.
 * @busy_ns: time spent running jobs, summed over workers.
 * @bytes: bytes of binding slots the jobs worked on.
 * @resets: engine resets.
 */
struct gaccel_engine_stats {
	u64 jobs;
	u64 failed;
	u64 cancelled;
	u64 busy_ns;
	u64 bytes;
	u64 resets;
};

/**
 * struct gaccel_engine_ops - operations an engine provides.
 * @node_check: optional: refuse @node of a graph being validated (after
 *	the uAPI's rules and the caps tables held) with -EINVAL when the
 *	engine cannot run it for a reason its tables cannot say (a dtype
 *	pair, a layout, a size). Called at GRAPH_CREATE, may sleep; say why
 *	with drm_dbg() or dev_dbg().
 * @run: run a job; it completes through &gaccel_engine_job.done. Called
 *	from the scheduler's run_job on the fence signalling path: must not
 *	allocate memory, must not fail (report errors through done). Each
 *	engine worker has a scheduler of its own that gives it one job at a
 *	time. An engine may run a short job to completion inside run()
 *	(calling done() before returning) when that takes a bounded, short
 *	time - the timeout handler waits for run() to return; anything longer
 *	it must hand to a worker (or the hardware) and return.
 * @is_short: optional, with @run_short: whether the job is short enough
 *	(a small, bounded amount of work) to be run in the submitter's
 *	context. SUBMIT asks for a job with nothing to wait for on a queue
 *	with nothing in flight, before committing it.
 * @run_short: run a job @is_short accepted, now, in the caller's context
 *	(SUBMIT, no lock held), calling done() before returning. The job
 *	bypasses the scheduler: its CPU time is the submitter's and it has no
 *	timeout, so it must not block.
 * @poll: optional, for %GACCEL_ENGINE_COMPLETE_POLL engines: check the
 *	hardware and call done() for what finished. Called every
 *	&gaccel_engine_desc.poll_us microseconds, from process context on
 *	the fence signalling path, while the engine has a job.
 * @cancel: ask a running job to stop; do not wait. done() must follow
 *	within a short, bounded time. Called from the timeout handler and at
 *	unregistration; the driver then waits for done(). May be called
 *	before run() has returned, or (at unregistration) for a job whose
 *	run() is about to be called: &gaccel_engine_job.cancel is set first.
 * @reset: bring the engine back to a known state after a cancelled job's
 *	done(). Other workers' jobs keep running.
 * @stats: copy the counters.
 * @debugfs_init: optional, add engine files to the device's debugfs.
 */
struct gaccel_engine_ops {
	int (*node_check)(struct gaccel_engine *engine,
			  const struct gaccel_graph *graph,
			  const struct drm_gaccel_node *node);
	void (*run)(struct gaccel_engine *engine, struct gaccel_engine_job *ejob);
	bool (*is_short)(struct gaccel_engine *engine,
			 struct gaccel_engine_job *ejob);
	void (*run_short)(struct gaccel_engine *engine,
			  struct gaccel_engine_job *ejob);
	void (*poll)(struct gaccel_engine *engine);
	void (*cancel)(struct gaccel_engine *engine,
		       struct gaccel_engine_job *ejob);
	void (*reset)(struct gaccel_engine *engine);
	void (*stats)(struct gaccel_engine *engine,
		      struct gaccel_engine_stats *stats);
	void (*debugfs_init)(struct gaccel_engine *engine, struct dentry *root);
};

/**
 * enum gaccel_engine_mem - how an engine reaches buffer objects.
 * @GACCEL_ENGINE_MEM_CPU: through kernel virtual addresses
 *	(&gaccel_engine_job.slots): software engines, and hardware that
 *	shares the CPU's page tables.
 * @GACCEL_ENGINE_MEM_DMA: by DMA (&gaccel_engine_job.dma): the core maps
 *	each bound object with the DMA API for the engine's struct device
 *	(once, when a job first binds it, kept until the object is freed), so
 *	an IOMMU or bounce buffers (swiotlb) sit between the engine and
 *	memory as the platform sets them up, and synchronises the slots for
 *	the device before run() and for the CPU after done().
 */
enum gaccel_engine_mem {
	GACCEL_ENGINE_MEM_CPU,
	GACCEL_ENGINE_MEM_DMA,
};

/**
 * enum gaccel_engine_completion - how an engine learns that work finished.
 * @GACCEL_ENGINE_COMPLETE_IRQ: by itself (an interrupt handler, a worker
 *	thread), which calls done().
 * @GACCEL_ENGINE_COMPLETE_POLL: the core calls &gaccel_engine_ops.poll
 *	every &gaccel_engine_desc.poll_us while a job runs.
 */
enum gaccel_engine_completion {
	GACCEL_ENGINE_COMPLETE_IRQ,
	GACCEL_ENGINE_COMPLETE_POLL,
};

/**
 * struct gaccel_engine_desc - what an engine registers with.
 * @caps: capabilities and limits (copied: the engine may free its copy).
 * @ops: operations; must stay valid until gaccel_engine_unregister().
 * @mem: &enum gaccel_engine_mem.
 * @completion: &enum gaccel_engine_completion.
 * @poll_us: polling period for %GACCEL_ENGINE_COMPLETE_POLL, 10 to 1000000.
 * @priv: the engine's own data, gaccel_engine_priv().
 */
struct gaccel_engine_desc {
	struct gaccel_engine_caps caps;
	const struct gaccel_engine_ops *ops;
	enum gaccel_engine_mem mem;
	enum gaccel_engine_completion completion;
	unsigned int poll_us;
	void *priv;
};

/**
 * struct gaccel_engine - a registered engine, owned by gaccel's core.
 * @ops: the engine's operations.
 * @caps: its capabilities, a copy of the descriptor's (its ops table too).
 * @mem: &enum gaccel_engine_mem.
 * @completion: &enum gaccel_engine_completion.
 * @poll_us: polling period.
 * @priv: the engine's data.
 * @dev: the engine's struct device: the accel device's parent, and the
 *	device DMA engines' objects are mapped for.
 * @gdev: the device it belongs to.
 */
struct gaccel_engine {
	const struct gaccel_engine_ops *ops;
	struct gaccel_engine_caps caps;
	enum gaccel_engine_mem mem;
	enum gaccel_engine_completion completion;
	unsigned int poll_us;
	void *priv;
	struct device *dev;
	struct gaccel_device *gdev;
};

static inline void *gaccel_engine_priv(const struct gaccel_engine *engine)
{
	return engine->priv;
}

/*
 * MODULE_IMPORT_NS(GACCEL) as every kernel spells it: 6.12 takes an
 * identifier, 6.13 on a string; both record this modinfo entry.
 */
#define GACCEL_ENGINE_IMPORT_NS	MODULE_INFO(import_ns, "GACCEL")

struct gaccel_engine *gaccel_engine_register(struct device *dev,
					     const struct gaccel_engine_desc *desc);
void gaccel_engine_unregister(struct gaccel_engine *engine);
int gaccel_engine_minor(const struct gaccel_engine *engine);

/* Inside gaccel.ko */
void gaccel_engine_sync_job(struct gaccel_engine *engine,
			    struct gaccel_engine_job *ejob, bool for_device);

#endif /* __GACCEL_ENGINE_H__ */
