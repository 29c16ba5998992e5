// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * kcanary: a module that makes the debug kernel report, on purpose, one bug
 * of each kind the harness must catch, so that `make check-debug` proves
 * its checkers and tests/vm/kernel-reports.sh work before it trusts a clean
 * run. Never loaded anywhere but the test VM.
 *
 * bugs=lockdep,sleep,warn,odebug,leak,ubsan,kasan,race (any subset, comma
 * separated) picks what happens at load:
 *   kasan   read one byte past a kmalloc'd object
 *   ubsan   index an array one past its end (inside a larger struct, so
 *           only UBSAN sees it)
 *   leak    lose the only pointer to a kmalloc'd object (kmemleak)
 *   warn    WARN_ON(1)
 *   lockdep take two mutexes in both orders (no deadlock happens: lockdep
 *           reports the possible one)
 *   odebug  free memory holding a pending timer (DEBUG_OBJECTS; its fixup
 *           deletes the timer first)
 *   sleep   take a mutex under a spinlock (sleeping in atomic context)
 *   race    two threads increment a plain int (KCSAN)
 */
#include <linux/completion.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static char *bugs = "";
module_param(bugs, charp, 0444);
MODULE_PARM_DESC(bugs, "bugs to commit at load: lockdep,sleep,warn,odebug,leak,ubsan,kasan,race");

/* Out-of-range index (4), not known to the compiler. */
static int index = 4;
module_param(index, int, 0444);

static void *kcanary_lost;
static DEFINE_MUTEX(kcanary_a);
static DEFINE_MUTEX(kcanary_b);
static DEFINE_MUTEX(kcanary_c);
static DEFINE_SPINLOCK(kcanary_lock);

struct kcanary_arrays {
	int a[4];
	int after;
};

static struct kcanary_arrays kcanary_arrays;

struct kcanary_timer {
	struct timer_list timer;
};

static void kcanary_timer_fn(struct timer_list *t)
{
}

static int kcanary_racy;

/* Plain increments, from two threads at once, for a while. */
static void kcanary_race_loop(void)
{
	for (int i = 0; i < 200000; i++) {
		kcanary_racy++;
		if (!(i % 1000))
			cond_resched();
	}
}

static int kcanary_race_fn(void *done)
{
	kcanary_race_loop();
	complete(done);
	return 0;
}

static bool want(const char *what)
{
	size_t n = strlen(what);
	const char *p = bugs;

	while ((p = strstr(p, what))) {
		if ((p == bugs || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

/*
 * Lockdep and the might_sleep() checks first: a KASAN report taints the
 * kernel in a way that turns lock debugging off.
 */
static int __init kcanary_init(void)
{
	if (want("lockdep")) {
		mutex_lock(&kcanary_a);
		mutex_lock(&kcanary_b);
		mutex_unlock(&kcanary_b);
		mutex_unlock(&kcanary_a);
		mutex_lock(&kcanary_b);
		mutex_lock(&kcanary_a);
		mutex_unlock(&kcanary_a);
		mutex_unlock(&kcanary_b);
	}
	if (want("sleep")) {
		spin_lock(&kcanary_lock);
		mutex_lock(&kcanary_c);
		mutex_unlock(&kcanary_c);
		spin_unlock(&kcanary_lock);
	}
	if (want("warn"))
		WARN_ON(1);
	if (want("odebug")) {
		struct kcanary_timer *t = kzalloc(sizeof(*t), GFP_KERNEL);

		if (t) {
			timer_setup(&t->timer, kcanary_timer_fn, 0);
			mod_timer(&t->timer, jiffies + 3600 * HZ);
			kfree(t);
		}
	}
	if (want("leak")) {
		kcanary_lost = kmalloc(64, GFP_KERNEL);
		WRITE_ONCE(kcanary_lost, NULL);
	}
	if (want("ubsan"))
		pr_info("kcanary: %d\n", kcanary_arrays.a[READ_ONCE(index)]);
	if (want("race")) {
		DECLARE_COMPLETION_ONSTACK(done);

		if (!IS_ERR(kthread_run(kcanary_race_fn, &done, "kcanary-race"))) {
			kcanary_race_loop();
			wait_for_completion(&done);
		}
	}
	if (want("kasan")) {
		char *p = kmalloc(16, GFP_KERNEL);

		if (p) {
			/* index is 4: p[16], one past the end. */
			pr_info("kcanary: %d\n", READ_ONCE(p[12 + index]));
			kfree(p);
		}
	}
	return 0;
}

static void __exit kcanary_exit(void)
{
}

module_init(kcanary_init);
module_exit(kcanary_exit);
MODULE_DESCRIPTION("Commits chosen bugs so that the debug kernel reports them");
MODULE_LICENSE("GPL");
