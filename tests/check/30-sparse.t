#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The kernel sources are clean under sparse (make C=2 checks every file,
# built or not), against the newest kernel headers: gaccel.ko, then the
# engine modules (engines/*/), each in its build directory; and gaccel.ko
# against Debian 12's 6.1 headers, whose compat branches the others skip.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..3"
out=$GACCEL_BUILD/kmod/$KVER_NEW
log=$GACCEL_BUILD/sparse.log
if ! command -v sparse >/dev/null; then
	echo "not ok 1 - sparse is not installed (make deps)"
	exit 1
fi
scripts/build-module.sh "$KDIR_NEW" "$out" >/dev/null 2>&1
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$KDIR_NEW" M="$out" C=2 modules >"$log" 2>&1
rc=$?
# sparse prints "file:line:col: warning/error: ..." for our files
issues=$(grep -E '^[^ ]*(driver|uapi)/[^:]*:[0-9]+:[0-9]+: (warning|error)' "$log")
if [ $rc -eq 0 ] && [ -z "$issues" ]; then
	echo "ok 1 - sparse finds nothing in driver/ and uapi/"
else
	echo "not ok 1 - sparse finds nothing in driver/ and uapi/"
	sed 's/^/# /' "$log" | tail -n 60
	exit 1
fi

edu=$out/engines/edu
elog=$GACCEL_BUILD/sparse-edu.log
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C . engine-modules >"$elog" 2>&1 &&
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$KDIR_NEW" M="$edu" C=2 \
		GACCEL_SRC="$PWD" KBUILD_EXTRA_SYMBOLS="$out/Module.symvers" modules >>"$elog" 2>&1
rc=$?
issues=$(grep -E '^[^ ]*(engines|driver|uapi)/[^:]*:[0-9]+:[0-9]+: (warning|error)|gaccel_edu\.c:[0-9]+:[0-9]+: (warning|error)' "$elog")
if [ $rc -eq 0 ] && [ -z "$issues" ]; then
	echo "ok 2 - sparse finds nothing in engines/"
else
	echo "not ok 2 - sparse finds nothing in engines/"
	sed 's/^/# /' "$elog" | tail -n 60
	fail=1
fi

out61=$GACCEL_BUILD/kmod/$KVER_61
log61=$GACCEL_BUILD/sparse-61.log
scripts/build-module.sh "$KDIR_61" "$out61" >/dev/null 2>&1
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$KDIR_61" M="$out61" C=2 modules >"$log61" 2>&1
rc=$?
issues=$(grep -E '^[^ ]*(driver|uapi)/[^:]*:[0-9]+:[0-9]+: (warning|error)' "$log61")
if [ $rc -eq 0 ] && [ -z "$issues" ] && grep -q 'CHECK .*gaccel_fdinfo.c' "$log61"; then
	echo "ok 3 - sparse finds nothing in driver/ and uapi/ against $KVER_61"
else
	echo "not ok 3 - sparse finds nothing in driver/ and uapi/ against $KVER_61"
	sed 's/^/# /' "$log61" | tail -n 60
	fail=1
fi
exit ${fail:-0}
