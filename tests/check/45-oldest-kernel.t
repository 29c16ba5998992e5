#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The module built against the oldest Debian 6.12 kernel of the series boots
# with that kernel and passes the suites that run its compat paths: queues
# (drm_sched_init's arguments), submission, timeouts and reset
# (drm_sched_start), lifetimes and unload. 10-module-build.t only compiles
# them; the VM suites boot the newest kernel.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

suites="submit_test fault_test lifetime_test ggml_gaccel_test"
echo "1..$(echo $suites | wc -w)"
if [ -z "$KIMAGE_ROOT_OLD" ] || [ "$KVER_OLD" = "$KVER_NEW" ]; then
	for s in $suites; do
		echo "ok - $s on the oldest kernel # SKIP make deps found no separate oldest linux-image"
	done
	exit 0
fi
ko=$GACCEL_BUILD/kmod/$KVER_OLD/gaccel.ko
if [ ! -f "$ko" ] &&
   ! scripts/build-module.sh "$KDIR_OLD" "$(dirname "$ko")" >"$GACCEL_BUILD/kmod-OLD.log" 2>&1; then
	sed 's/^/# /' "$GACCEL_BUILD/kmod-OLD.log"
	for s in $suites; do
		echo "not ok - $s on $KVER_OLD # module did not build"
	done
	exit 1
fi
fail=0
mkdir -p "$GACCEL_BUILD/vm"
for s in $suites; do
	log=$GACCEL_BUILD/vm/old-$s.log
	if GACCEL_KIMAGE=$KIMAGE_ROOT_OLD GACCEL_KO=$ko tests/vm/gaccel-vm.sh -q -t 600 \
		-l "$GACCEL_BUILD/vm/old-$s.console.log" -b "$GACCEL_BUILD/tests/driver/$s" -- "$s" >"$log" 2>&1; then
		echo "ok - $s on $KVER_OLD ($(grep -c '^ok ' "$log") cases)"
	else
		echo "not ok - $s on $KVER_OLD"
		sed 's/^/# /' "$log"
		fail=1
	fi
done
exit $fail
