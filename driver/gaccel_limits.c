// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-file and per-user limits: module parameters, the QUERY_LIMITS reply,
 * and the charge/uncharge accounting every resource goes through.
 *
 * The defaults suit a small board shared by a few clients: generous for one
 * ggml program (a model's weights in a few hundred objects, a handful of
 * graphs and queues, a few hundred jobs in flight), small enough that one
 * client cannot take the kernel's memory, file table or threads from the
 * others. Memory a client makes the kernel allocate is also charged to its
 * memory cgroup (__GFP_ACCOUNT), and pinned user pages to RLIMIT_MEMLOCK;
 * these limits bound what neither of those sees (objects, handles, work).
 *
 * A user may open the node as many times as RLIMIT_NOFILE and its number
 * of processes let it, so the per-file limits alone multiply: every
 * resource is also counted per user, over all the user's files, against
 * limits of its own (max_user_*).
 */

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

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
		 "How long one job may run, in ms; applies from the next job that starts (default 10000)");

/*
 * Per user. Counts are four files' worth; bytes are not multiplied: one
 * user's objects, however many files hold them, take at most half of RAM
 * by default, like one file's.
 */
static unsigned int max_user_bos;
module_param(max_user_bos, uint, 0644);
MODULE_PARM_DESC(max_user_bos,
		 "Buffer object handles per user (default 0: a quarter of fs.file-max, at most 16384)");

static unsigned int max_user_bo_mib;
module_param(max_user_bo_mib, uint, 0644);
MODULE_PARM_DESC(max_user_bo_mib,
		 "MiB of buffer objects per user (default 0: half of RAM)");

static unsigned int max_user_graphs = 1024;
module_param(max_user_graphs, uint, 0644);
MODULE_PARM_DESC(max_user_graphs, "Graphs per user (default 1024)");

static unsigned int max_user_graph_mib = 256;
module_param(max_user_graph_mib, uint, 0644);
MODULE_PARM_DESC(max_user_graph_mib,
		 "MiB of kernel memory for graphs per user (default 256)");

static unsigned int max_user_queues = 64;
module_param(max_user_queues, uint, 0644);
MODULE_PARM_DESC(max_user_queues, "Queues per user (default 64)");

static unsigned int max_user_jobs = 4096;
module_param(max_user_jobs, uint, 0644);
MODULE_PARM_DESC(max_user_jobs, "Jobs in flight per user (default 4096)");

/* Parameters are read without a lock: each read sees one whole value. */
static u64 mib(unsigned int *param)
{
	return (u64)READ_ONCE(*param) * SZ_1M;
}

static u64 half_of_ram(void)
{
	return ((u64)totalram_pages() << PAGE_SHIFT) / 2;
}

static u64 bo_bytes(void)
{
	u64 v = mib(&max_bo_mib);

	return v ? v : half_of_ram();
}

/*
 * Each shmem object is a struct file, and unprivileged tasks get -ENFILE
 * once the system's file table is full: no user may hold a quarter of it.
 */
#define GACCEL_USER_BOS_MAX	16384

static u64 user_bos(void)
{
	u64 v = READ_ONCE(max_user_bos);

	return v ? v : min_t(u64, get_max_files() / 4, GACCEL_USER_BOS_MAX);
}

static u64 user_bo_bytes(void)
{
	u64 v = mib(&max_user_bo_mib);

	return v ? v : half_of_ram();
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

u64 gaccel_user_limit(enum gaccel_res res)
{
	switch (res) {
	case GACCEL_RES_BOS:
		return user_bos();
	case GACCEL_RES_BO_BYTES:
		return user_bo_bytes();
	case GACCEL_RES_GRAPHS:
		return READ_ONCE(max_user_graphs);
	case GACCEL_RES_GRAPH_BYTES:
		return mib(&max_user_graph_mib);
	case GACCEL_RES_QUEUES:
		return READ_ONCE(max_user_queues);
	case GACCEL_RES_JOBS:
		return READ_ONCE(max_user_jobs);
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
	l->max_user_bos = gaccel_user_limit(GACCEL_RES_BOS);
	l->max_user_bo_bytes = gaccel_user_limit(GACCEL_RES_BO_BYTES);
	l->max_user_graphs = gaccel_user_limit(GACCEL_RES_GRAPHS);
	l->max_user_graph_bytes = gaccel_user_limit(GACCEL_RES_GRAPH_BYTES);
	l->max_user_queues = gaccel_user_limit(GACCEL_RES_QUEUES);
	l->max_user_jobs = gaccel_user_limit(GACCEL_RES_JOBS);
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

/*
 * Users. One count per kuid for the whole module, whatever device the files
 * are of: what the limits protect (the file table, kernel memory) is the
 * system's. Lookups and removal are under a spinlock, never held across an
 * allocation; the last put may come from any context (a job freed from a
 * fence callback), hence irqsave.
 */
struct gaccel_user {
	struct hlist_node node;
	refcount_t ref;
	kuid_t uid;
	atomic64_t held[GACCEL_RES_COUNT];
};

static DEFINE_HASHTABLE(gaccel_users, 6);
static DEFINE_SPINLOCK(gaccel_users_lock);

/* The user's entry with a new reference, or NULL; under the lock. */
static struct gaccel_user *gaccel_user_find(kuid_t uid)
{
	struct gaccel_user *user;

	lockdep_assert_held(&gaccel_users_lock);
	hash_for_each_possible(gaccel_users, user, node, __kuid_val(uid)) {
		if (uid_eq(user->uid, uid)) {
			refcount_inc(&user->ref);
			return user;
		}
	}
	return NULL;
}

static struct gaccel_user *gaccel_user_get(kuid_t uid)
{
	struct gaccel_user *user, *new;
	unsigned long flags;

	spin_lock_irqsave(&gaccel_users_lock, flags);
	user = gaccel_user_find(uid);
	spin_unlock_irqrestore(&gaccel_users_lock, flags);
	if (user)
		return user;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	refcount_set(&new->ref, 1);
	new->uid = uid;

	/* Another file of the user may have been opened meanwhile. */
	spin_lock_irqsave(&gaccel_users_lock, flags);
	user = gaccel_user_find(uid);
	if (!user) {
		hash_add(gaccel_users, &new->node, __kuid_val(uid));
		user = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&gaccel_users_lock, flags);
	kfree(new);
	return user;
}

/* Once per file: always under the lock, so a lookup never sees zero. */
static void gaccel_user_put(struct gaccel_user *user)
{
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&gaccel_users_lock, flags);
	last = refcount_dec_and_test(&user->ref);
	if (last)
		hash_del(&user->node);
	spin_unlock_irqrestore(&gaccel_users_lock, flags);
	if (last)
		kfree(user);
}

/* The opener, and the owner of each of up to 33 nested user namespaces. */
#define GACCEL_MAX_USERS	34

/*
 * Who a file is charged to, besides itself: the real uid of its opener (as
 * for RLIMIT_NPROC and the kernel's other per-user counts), and the owner
 * of each user namespace it was opened in, up to the first one the global
 * root created. An unprivileged user given a range of ids to map
 * (newuidmap and /etc/subuid: rootless containers) owns the namespace that
 * maps them, so all those ids together stay within the user's own limits;
 * ids root hands to a container it creates are users of their own, as on
 * the host. Returns the number of distinct users stored in @uids.
 */
static unsigned int gaccel_users_of(const struct cred *cred, kuid_t *uids)
{
	const struct user_namespace *ns;
	unsigned int n = 0, i;

	uids[n++] = cred->uid;
	for (ns = cred->user_ns; ns != &init_user_ns && n < GACCEL_MAX_USERS;
	     ns = ns->parent) {
		if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
			break;
		for (i = 0; i < n && !uid_eq(uids[i], ns->owner); i++)
			;
		if (i == n)
			uids[n++] = ns->owner;
	}
	return n;
}

/**
 * gaccel_usage_create - the usage of a new file.
 * @cred: the credentials the file was opened with.
 *
 * Returns the usage, holding a reference to each user the file is charged
 * to, or NULL when out of memory.
 */
struct gaccel_usage *gaccel_usage_create(const struct cred *cred)
{
	kuid_t uids[GACCEL_MAX_USERS];
	struct gaccel_usage *usage;
	unsigned int i, n;

	n = gaccel_users_of(cred, uids);
	usage = kzalloc(struct_size(usage, users, n), GFP_KERNEL_ACCOUNT);
	if (!usage)
		return NULL;
	kref_init(&usage->ref);
	usage->nr_users = n;
	for (i = 0; i < n; i++) {
		usage->users[i] = gaccel_user_get(uids[i]);
		if (!usage->users[i]) {
			gaccel_usage_put(usage);
			return NULL;
		}
	}
	return usage;
}

struct gaccel_usage *gaccel_usage_get(struct gaccel_usage *usage)
{
	kref_get(&usage->ref);
	return usage;
}

static void gaccel_usage_release(struct kref *ref)
{
	struct gaccel_usage *usage = container_of(ref, struct gaccel_usage, ref);
	unsigned int i;

	for (i = 0; i < usage->nr_users; i++)
		if (usage->users[i])
			gaccel_user_put(usage->users[i]);
	kfree(usage);
}

void gaccel_usage_put(struct gaccel_usage *usage)
{
	if (usage)
		kref_put(&usage->ref, gaccel_usage_release);
}

/* Add @amount to @held if the sum stays within @limit. */
static bool gaccel_take(atomic64_t *held, u64 amount, u64 limit)
{
	if (amount > limit)
		return false;
	if ((u64)atomic64_add_return(amount, held) <= limit)
		return true;
	atomic64_sub(amount, held);
	return false;
}

/**
 * gaccel_charge - take @amount of @res for a file, within its limits.
 * @drm: the device, for the debug message.
 * @usage: the file's usage.
 * @res: the resource.
 * @amount: how much.
 *
 * Charges the file and each of its users (&gaccel_usage.users), each
 * against its own limit. Returns 0, or the errno of &struct
 * drm_gaccel_limits when the file or one of its users would hold more than
 * its limit; then nothing is taken from any of them.
 */
int gaccel_charge(struct drm_device *drm, struct gaccel_usage *usage,
		  enum gaccel_res res, u64 amount)
{
	u64 limit = gaccel_limit(res);
	unsigned int i;

	if (!gaccel_take(&usage->held[res], amount, limit)) {
		drm_dbg(drm, "file limit: %llu more %s would pass the limit of %llu\n",
			amount, gaccel_res_names[res], limit);
		return gaccel_res_errno(res);
	}

	limit = gaccel_user_limit(res);
	for (i = 0; i < usage->nr_users; i++)
		if (!gaccel_take(&usage->users[i]->held[res], amount, limit))
			goto over;
	return 0;

over:
	drm_dbg(drm, "user limit: %llu more %s would pass the limit of %llu of uid %u\n",
		amount, gaccel_res_names[res], limit,
		from_kuid_munged(&init_user_ns, usage->users[i]->uid));
	while (i--)
		atomic64_sub(amount, &usage->users[i]->held[res]);
	atomic64_sub(amount, &usage->held[res]);
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
	unsigned int i;

	for (i = 0; i < usage->nr_users; i++)
		atomic64_sub(amount, &usage->users[i]->held[res]);
	atomic64_sub(amount, &usage->held[res]);
}
