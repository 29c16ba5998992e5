/*
 * test-harness.h - kselftest_harness.h (taken from linux-source at build
 * time) for the library's test programs, with every test's timeout
 * multiplied by $GACCEL_TEST_TIMEOUT_SCALE (tests/common/test-timeout.h,
 * shared with the driver suites). make check sets it for the library's
 * programs: a case that takes 15 s alone on an idle machine must not be
 * killed when it gets half a core under ASan or qemu-aarch64.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GACCEL_TEST_HARNESS_H
#define GACCEL_TEST_HARNESS_H

#include "kselftest_harness.h"

#include "../common/test-timeout.h"

#ifdef TEST_HARNESS_MAIN
#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		gaccel_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}
#endif

#endif /* GACCEL_TEST_HARNESS_H */
