#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel.ko builds warning-free against the oldest and the newest Debian 6.12
# kernel headers (found by `make deps`; their drm_sched APIs differ), and
# cross-built for arm64 against Debian's arm64 headers of the newest (a
# kernel without CONFIG_DRM_ACCEL: the render node path).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..3"
n=0
fail=0
for which in OLD NEW ARM64; do
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
exit $fail
