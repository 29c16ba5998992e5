#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel.ko builds warning-free against the oldest and the newest Debian 6.12
# kernel headers (found by `make deps`; their drm_sched APIs differ),
# cross-built for arm64 against Debian's arm64 headers of the newest (a
# kernel without CONFIG_DRM_ACCEL: the render node path), against Debian
# 12's own 6.1 (no accel nodes at all, the compat probes' older branches;
# the probes must find that kernel's API, not 6.12's), and the edu engine
# module, built apart against gaccel.ko's Module.symvers as a vendor's would
# be, against the newest.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..6"
n=0
fail=0
for which in OLD NEW ARM64 61; do
	n=$((n + 1))
	eval "kdir=\$KDIR_$which kver=\$KVER_$which"
	out=$GACCEL_BUILD/kmod/$kver
	if scripts/build-module.sh "$kdir" "$out" >"$GACCEL_BUILD/kmod-$which.log" 2>&1; then
		echo "ok $n - gaccel.ko builds warning-free against $kver"
	else
		echo "not ok $n - gaccel.ko builds warning-free against $kver"
		sed 's/^/# /' "$GACCEL_BUILD/kmod-$which.log"
		fail=1
	fi
	for h in "$out"/driver/generated/*/gaccel_compat_probed.h; do
		[ -f "$h" ] && grep GACCEL_HAVE "$h" | sed "s/^/# $kver: /"
	done
done
# On 6.1 the probes must take the older branches; a probe that compiles for
# the wrong reason (6.1's bool drm_sched_start accepts an errno's 0) would
# build a module that misbehaves only at run time.
n=$((n + 1))
h=$(ls "$GACCEL_BUILD/kmod/$KVER_61"/driver/generated/*/gaccel_compat_probed.h 2>/dev/null | head -n1)
wrong=
for m in DRM_SCHED_START_ERRNO DRM_SCHED_SUBMIT_WQ DRM_SCHED_JOB_INIT_CREDITS DRM_SHOW_FDINFO \
	 DMA_BUF_UNLOCKED VM_FLAGS_SET LINUX_FPU_H; do
	[ -n "$h" ] && grep -q "^#define GACCEL_HAVE_$m 1" "$h" && wrong="$wrong $m"
done
for m in DRM_SCHED_START_BOOL DRM_DRIVER_PRIME_FD DRM_DRIVER_GEM_PRIME_MMAP; do
	[ -n "$h" ] && grep -q "^#define GACCEL_HAVE_$m 1" "$h" || wrong="$wrong !$m"
done
if [ -n "$h" ] && [ -z "$wrong" ]; then
	echo "ok $n - the probes find 6.1's API on $KVER_61"
else
	echo "not ok $n - the probes on $KVER_61 found the wrong API:${wrong:- no header}"
	fail=1
fi
n=$((n + 1))
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s engine-modules >"$GACCEL_BUILD/kmod-edu.log" 2>&1 &&
   modinfo -F import_ns "$GACCEL_BUILD/kmod/$KVER_NEW/engines/edu/gaccel_edu.ko" | grep -qx GACCEL; then
	echo "ok $n - gaccel_edu.ko builds warning-free apart from gaccel.ko against $KVER_NEW, imports namespace GACCEL"
else
	echo "not ok $n - gaccel_edu.ko builds warning-free apart from gaccel.ko against $KVER_NEW"
	sed 's/^/# /' "$GACCEL_BUILD/kmod-edu.log"
	fail=1
fi
exit $fail
