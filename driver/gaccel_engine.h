/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * gaccel engine interface: what the rest of the driver needs from whatever
 * executes jobs. A vendor port implements a struct gaccel_engine_ops for its
 * silicon; the reference software engine (gaccel_ref.c) is the model.
 * See Documentation/engine-porting.rst.
 */
#ifndef __GACCEL_ENGINE_H__
#define __GACCEL_ENGINE_H__

#include <linux/types.h>
#include <linux/workqueue.h>

struct dentry;
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
 * @num_workers: execution units of the engine.
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
 * struct gaccel_engine_job - what an engine sees of a job.
 * @graph: the validated program; its tensors never reach outside their
 *	slot's declared size.
 * @slots: kernel address of each binding slot, at least the slot's declared
 *	size long. An engine with its own MMU would get DMA addresses here.
 * @scratch: per-job scratch memory: one part of @scratch_stride bytes (the
 *	graph's scratch size) per engine worker.
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
 * @run: run a job; it completes through &gaccel_engine_job.done. Called
 *	from the scheduler's run_job on the fence signalling path: must not
 *	allocate memory, must not fail (report errors through done). Each
 *	engine worker has a scheduler of its own that gives it one job at a
 *	time. An engine may run a short job to completion inside run()
 *	(calling done() before returning) when that takes a bounded, short
 *	time - the timeout handler waits for run() to return; anything longer
 *	it must hand to a worker and return.
 * @is_short: optional, with @run_short: whether the job is short enough
 *	(a small, bounded amount of work) to be run in the submitter's
 *	context. SUBMIT asks for a job with nothing to wait for on a queue
 *	with nothing in flight, before committing it.
 * @run_short: run a job @is_short accepted, now, in the caller's context
 *	(SUBMIT, no lock held), calling done() before returning. The job
 *	bypasses the scheduler: its CPU time is the submitter's and it has no
 *	timeout, so it must not block.
 * @cancel: ask a running job to stop; do not wait. done() must follow
 *	within a short, bounded time. Called from the timeout handler and at
 *	device removal; the driver then waits for done().
 * @reset: bring the engine back to a known state after a cancelled job's
 *	done(). Other workers' jobs keep running.
 * @stats: copy the counters.
 * @debugfs_init: optional, add engine files to the device's debugfs.
 * @fini: release everything the engine's create function acquired; called
 *	when the device is released, once no job or queue is left.
 */
struct gaccel_engine_ops {
	void (*run)(struct gaccel_engine *engine, struct gaccel_engine_job *ejob);
	bool (*is_short)(struct gaccel_engine *engine,
			 struct gaccel_engine_job *ejob);
	void (*run_short)(struct gaccel_engine *engine,
			  struct gaccel_engine_job *ejob);
	void (*cancel)(struct gaccel_engine *engine,
		       struct gaccel_engine_job *ejob);
	void (*reset)(struct gaccel_engine *engine);
	void (*stats)(struct gaccel_engine *engine,
		      struct gaccel_engine_stats *stats);
	void (*debugfs_init)(struct gaccel_engine *engine, struct dentry *root);
	void (*fini)(struct gaccel_engine *engine);
};

/**
 * struct gaccel_engine - an engine instance, owned by one gaccel_device.
 * @ops: the engine's operations.
 * @caps: its capabilities, filled in by the create function.
 * @gdev: the device it belongs to.
 */
struct gaccel_engine {
	const struct gaccel_engine_ops *ops;
	struct gaccel_engine_caps caps;
	struct gaccel_device *gdev;
};

struct gaccel_engine *gaccel_ref_engine_create(struct gaccel_device *gdev);

#endif /* __GACCEL_ENGINE_H__ */
