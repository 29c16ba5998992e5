#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Kernel sources are clean under checkpatch.pl --strict (from Debian's
# linux-source-6.12, extracted into the build tree).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
checkpatch=$GACCEL_BUILD/linux-src/scripts/checkpatch.pl

files=$(ls driver/*.c driver/*.h driver/compat/*.c engines/*/*.c uapi/drm/*.h 2>/dev/null)
echo "1..$(echo "$files" | wc -l)"
n=0
fail=0
for f in $files; do
	n=$((n + 1))
	if out=$(perl "$checkpatch" --strict --no-tree --show-types -q -f "$f" 2>&1) &&
	   [ -z "$out" ]; then
		echo "ok $n - checkpatch --strict $f"
	else
		echo "not ok $n - checkpatch --strict $f"
		echo "$out" | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
