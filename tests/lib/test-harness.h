/*
 * test-harness.h - kselftest_harness.h (taken from linux-source at build
 * time) for the library's test programs, with every test's timeout (the
 * harness's fixed 30 s alarm) multiplied by $GACCEL_TEST_TIMEOUT_SCALE
 * (1 to 100, default 1), as the driver suites do (tests/driver/
 * gaccel_test.h). make check sets it for the library's programs, which
 * run two at a time beside the other suites and under ASan, TSan or
 * qemu-aarch64: a case that takes 15 s alone on an idle machine must not
 * be killed when it gets half a core. The alarm is there to stop a hang,
 * not to time the code.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GACCEL_TEST_HARNESS_H
#define GACCEL_TEST_HARNESS_H

#include <stdlib.h>

#include "kselftest_harness.h"

#ifdef TEST_HARNESS_MAIN
#undef TEST_HARNESS_MAIN
static inline void test_scale_timeouts(void)
{
	const char *s = getenv("GACCEL_TEST_TIMEOUT_SCALE");
	const long scale = s ? strtol(s, NULL, 10) : 1;

	if (scale <= 1 || scale > 100)
		return;
	for (struct __fixture_metadata *f = __fixture_list; f; f = f->next)
		for (struct __test_metadata *t = f->tests; t; t = t->next)
			t->timeout *= (int)scale;
}

#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		test_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}
#endif

#endif /* GACCEL_TEST_HARNESS_H */
