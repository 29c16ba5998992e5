/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Per-file and per-user limits: what one open file of the node, and all the
 * files of one user together, may hold at a time.
 *
 * Every resource a client can cause the kernel to hold is counted in the
 * &struct gaccel_usage of its file and in that of each user the file is
 * charged to, and checked against module parameters when it is taken
 * (gaccel_charge()) and given back when it goes (gaccel_uncharge()). The
 * limits are reported by QUERY_LIMITS (&struct drm_gaccel_limits) and
 * documented in Documentation/gaccel.rst.
 */
#ifndef __GACCEL_LIMITS_H__
#define __GACCEL_LIMITS_H__

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/types.h>

#include <drm/gaccel_accel.h>

struct cred;
struct drm_device;
struct gaccel_file;
struct gaccel_user;

/*
 * Allocations whose size a client chooses: charged to its memory cgroup,
 * no warning when they are large, and -ENOMEM rather than the OOM killer
 * when the cgroup or the machine is out of memory. Fixed-size objects a
 * client causes use GFP_KERNEL_ACCOUNT.
 */
#define GACCEL_GFP_USER_SIZED \
	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

/**
 * enum gaccel_res - a resource counted per file and per user.
 * @GACCEL_RES_BOS: buffer object handles.
 * @GACCEL_RES_BO_BYTES: bytes of the objects behind those handles.
 * @GACCEL_RES_GRAPHS: graphs.
 * @GACCEL_RES_GRAPH_BYTES: kernel memory of the graphs.
 * @GACCEL_RES_QUEUES: queues.
 * @GACCEL_RES_JOBS: jobs submitted and not yet freed.
 * @GACCEL_RES_COUNT: number of resources.
 */
enum gaccel_res {
	GACCEL_RES_BOS,
	GACCEL_RES_BO_BYTES,
	GACCEL_RES_GRAPHS,
	GACCEL_RES_GRAPH_BYTES,
	GACCEL_RES_QUEUES,
	GACCEL_RES_JOBS,
	GACCEL_RES_COUNT,
};

/**
 * struct gaccel_usage - what a file holds, per &enum gaccel_res.
 * @ref: held by the file and by every object that may outlive it and
 *	uncharges when it goes (jobs, queues).
 * @held: current amounts.
 * @engine_ns: time the engine spent on the file's jobs (fdinfo
 *	drm-engine-compute), added as each job finishes.
 * @nr_users: entries of @users.
 * @users: the users charged with the file, each holding what all their
 *	files hold: the opener's real uid, then the owners of the user
 *	namespaces it was opened in (gaccel_limits.c). Each usage holds a
 *	reference to them, so a user's count lives while any of its files or
 *	their objects do.
 */
struct gaccel_usage {
	struct kref ref;
	atomic64_t held[GACCEL_RES_COUNT];
	atomic64_t engine_ns;
	unsigned int nr_users;
	struct gaccel_user *users[] __counted_by(nr_users);
};

struct gaccel_usage *gaccel_usage_create(const struct cred *cred);
struct gaccel_usage *gaccel_usage_get(struct gaccel_usage *usage);
void gaccel_usage_put(struct gaccel_usage *usage);

void gaccel_limits_get(struct drm_gaccel_limits *limits);
u64 gaccel_limit(enum gaccel_res res);
u64 gaccel_user_limit(enum gaccel_res res);
u32 gaccel_limit_queue_jobs(void);
u32 gaccel_limit_submit_jobs(void);
u32 gaccel_limit_job_syncs(void);
u64 gaccel_limit_scratch_bytes(void);
unsigned int gaccel_limit_job_timeout_ms(void);

int gaccel_charge(struct drm_device *drm, struct gaccel_usage *usage,
		  enum gaccel_res res, u64 amount);
void gaccel_uncharge(struct gaccel_usage *usage, enum gaccel_res res,
		     u64 amount);

static inline u64 gaccel_usage_read(struct gaccel_usage *usage,
				    enum gaccel_res res)
{
	return atomic64_read(&usage->held[res]);
}

#endif /* __GACCEL_LIMITS_H__ */
