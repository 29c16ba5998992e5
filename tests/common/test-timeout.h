/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * test-timeout.h - $GACCEL_TEST_TIMEOUT_SCALE for every test program: the
 * driver suites in the test VM (tests/driver/gaccel_test.h) and the
 * library's programs (tests/lib/test-harness.h).
 *
 * The scale (1 to 100, default 1; anything else counts as 1) multiplies
 * each test's timeout, kselftest_harness.h's fixed 30 s alarm. It is set
 * where the same test runs many times slower: 10 on the VM's debug kernel
 * (tests/vm/run-in-vm.sh -D: KASAN, lockdep and kmemleak under TCG), and by
 * make check for the library's programs, which run two at a time under
 * ASan, TSan or qemu-aarch64. The alarm is there to stop a hang, not to
 * time the code: tests scale their own deadlines by it too (a job timeout
 * they set, say), never what they assert on.
 *
 * gaccel_scale_timeouts() needs kselftest_harness.h included first.
 */
#ifndef GACCEL_TEST_TIMEOUT_H
#define GACCEL_TEST_TIMEOUT_H

#include <stdlib.h>

static inline int gaccel_test_timeout_scale(void)
{
	const char *s = getenv("GACCEL_TEST_TIMEOUT_SCALE");
	long scale = s ? strtol(s, NULL, 10) : 1;

	return scale < 1 || scale > 100 ? 1 : (int)scale;
}

#ifdef TEST_HARNESS_MAIN
/* Every registered test's timeout times gaccel_test_timeout_scale(). */
static inline void gaccel_scale_timeouts(void)
{
	int scale = gaccel_test_timeout_scale();

	if (scale == 1)
		return;
	for (struct __fixture_metadata *f = __fixture_list; f; f = f->next)
		for (struct __test_metadata *t = f->tests; t; t = t->next)
			t->timeout *= scale;
}
#endif

#endif /* GACCEL_TEST_TIMEOUT_H */
