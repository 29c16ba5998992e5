// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-file limits: module parameters, the QUERY_LIMITS reply, and the
 * charge/uncharge accounting every resource goes through.
 *
 * The defaults suit a small board shared by a few clients: generous for one
 * ggml program (a model's weights in a few hundred objects, a handful of
 * graphs and queues, a few hundred jobs in flight), small enough that one
 * client cannot take the kernel's memory, file table or threads from the
 * others. Memory a client makes the kernel allocate is also charged to its
 * memory cgroup (__GFP_ACCOUNT), and pinned user pages to RLIMIT_MEMLOCK;
 * these limits bound what neither of those sees (objects, handles, work).
 */

#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_print.h>

#include "gaccel_limits.h"

static unsigned int max_bos = 4096;
module_param(max_bos, uint, 0644);
MODULE_PARM_DESC(max_bos, "Buffer object handles per open file (default 4096)");

static unsigned int max_bo_mib;
module_param(max_bo_mib, uint, 0644);
MODULE_PARM_DESC(max_bo_mib,
		 "MiB of buffer objects per open file (default 0: half of RAM)");

static unsigned int max_graphs = 256;
module_param(max_graphs, uint, 0644);
MODULE_PARM_DESC(max_graphs, "Graphs per open file (default 256)");

static unsigned int max_graph_mib = 64;
module_param(max_graph_mib, uint, 0644);
MODULE_PARM_DESC(max_graph_mib,
		 "MiB of kernel memory for graphs per open file (default 64)");

static unsigned int max_queues = 16;
module_param(max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues, "Queues per open file (default 16)");

static unsigned int max_jobs = 1024;
module_param(max_jobs, uint, 0644);
MODULE_PARM_DESC(max_jobs,
		 "Jobs in flight per open file (default 1024)");

static unsigned int max_queue_jobs = 256;
module_param(max_queue_jobs, uint, 0644);
MODULE_PARM_DESC(max_queue_jobs, "Jobs in flight per queue (default 256)");

static unsigned int max_submit_jobs = 256;
module_param(max_submit_jobs, uint, 0644);
MODULE_PARM_DESC(max_submit_jobs, "Jobs in one SUBMIT (default 256)");

static unsigned int max_job_syncs = 256;
module_param(max_job_syncs, uint, 0644);
MODULE_PARM_DESC(max_job_syncs,
		 "Syncobj waits and signals of one job (default 256)");

static unsigned int max_scratch_mib = 64;
module_param(max_scratch_mib, uint, 0644);
MODULE_PARM_DESC(max_scratch_mib,
		 "MiB of engine scratch memory one job may need (default 64)");

static unsigned int job_timeout_ms = 10000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "Job timeout in ms, read when a queue is created (default 10000)");

/* Parameters are read without a lock: each read sees one whole value. */
static u64 mib(unsigned int *param)
{
	return (u64)READ_ONCE(*param) * SZ_1M;
}

static u64 bo_bytes(void)
{
	u64 v = mib(&max_bo_mib);

	return v ? v : ((u64)totalram_pages() << PAGE_SHIFT) / 2;
}

u64 gaccel_limit(enum gaccel_res res)
{
	switch (res) {
	case GACCEL_RES_BOS:
		return READ_ONCE(max_bos);
	case GACCEL_RES_BO_BYTES:
		return bo_bytes();
	case GACCEL_RES_GRAPHS:
		return READ_ONCE(max_graphs);
	case GACCEL_RES_GRAPH_BYTES:
		return mib(&max_graph_mib);
	case GACCEL_RES_QUEUES:
		return READ_ONCE(max_queues);
	case GACCEL_RES_JOBS:
		return READ_ONCE(max_jobs);
	default:
		return 0;
	}
}

u32 gaccel_limit_queue_jobs(void)
{
	return READ_ONCE(max_queue_jobs);
}

u32 gaccel_limit_submit_jobs(void)
{
	return READ_ONCE(max_submit_jobs);
}

u32 gaccel_limit_job_syncs(void)
{
	return READ_ONCE(max_job_syncs);
}

u64 gaccel_limit_scratch_bytes(void)
{
	return mib(&max_scratch_mib);
}

unsigned int gaccel_limit_job_timeout_ms(void)
{
	return max(READ_ONCE(job_timeout_ms), 1u);
}

void gaccel_limits_get(struct drm_gaccel_limits *l)
{
	l->max_bos = gaccel_limit(GACCEL_RES_BOS);
	l->max_bo_bytes = gaccel_limit(GACCEL_RES_BO_BYTES);
	l->max_graphs = gaccel_limit(GACCEL_RES_GRAPHS);
	l->max_graph_bytes = gaccel_limit(GACCEL_RES_GRAPH_BYTES);
	l->max_queues = gaccel_limit(GACCEL_RES_QUEUES);
	l->max_jobs = gaccel_limit(GACCEL_RES_JOBS);
	l->max_queue_jobs = gaccel_limit_queue_jobs();
	l->max_submit_jobs = gaccel_limit_submit_jobs();
	l->max_job_syncs = gaccel_limit_job_syncs();
	l->max_scratch_bytes = gaccel_limit_scratch_bytes();
	l->job_timeout_ms = gaccel_limit_job_timeout_ms();
}

static const char *const gaccel_res_names[GACCEL_RES_COUNT] = {
	[GACCEL_RES_BOS] = "buffer objects",
	[GACCEL_RES_BO_BYTES] = "buffer object bytes",
	[GACCEL_RES_GRAPHS] = "graphs",
	[GACCEL_RES_GRAPH_BYTES] = "graph bytes",
	[GACCEL_RES_QUEUES] = "queues",
	[GACCEL_RES_JOBS] = "jobs in flight",
};

static int gaccel_res_errno(enum gaccel_res res)
{
	switch (res) {
	case GACCEL_RES_BO_BYTES:
	case GACCEL_RES_GRAPH_BYTES:
		return -ENOMEM;
	case GACCEL_RES_JOBS:
		return -EAGAIN;
	default:
		return -EMFILE;
	}
}

/**
 * gaccel_charge - take @amount of @res for a file, within its limit.
 * @drm: the device, for the debug message.
 * @usage: the file's usage.
 * @res: the resource.
 * @amount: how much.
 *
 * Returns 0, or the errno of &struct drm_gaccel_limits when the file would
 * hold more than its limit; then nothing is taken.
 */
int gaccel_charge(struct drm_device *drm, struct gaccel_usage *usage,
		  enum gaccel_res res, u64 amount)
{
	u64 limit = gaccel_limit(res);
	s64 held;

	if (amount > limit)
		goto over;
	held = atomic64_add_return(amount, &usage->held[res]);
	if ((u64)held > limit) {
		atomic64_sub(amount, &usage->held[res]);
		goto over;
	}
	return 0;

over:
	drm_dbg(drm, "file limit: %llu more %s would pass the limit of %llu\n",
		amount, gaccel_res_names[res], limit);
	return gaccel_res_errno(res);
}

/**
 * gaccel_uncharge - give back what gaccel_charge() took.
 * @usage: the file's usage.
 * @res: the resource.
 * @amount: the amount that was charged.
 */
void gaccel_uncharge(struct gaccel_usage *usage, enum gaccel_res res,
		     u64 amount)
{
	atomic64_sub(amount, &usage->held[res]);
}

struct gaccel_usage *gaccel_usage_create(void)
{
	struct gaccel_usage *usage;

	usage = kzalloc(sizeof(*usage), GFP_KERNEL_ACCOUNT);
	if (usage)
		kref_init(&usage->ref);
	return usage;
}

struct gaccel_usage *gaccel_usage_get(struct gaccel_usage *usage)
{
	kref_get(&usage->ref);
	return usage;
}

static void gaccel_usage_release(struct kref *ref)
{
	kfree(container_of(ref, struct gaccel_usage, ref));
}

void gaccel_usage_put(struct gaccel_usage *usage)
{
	if (usage)
		kref_put(&usage->ref, gaccel_usage_release);
}
