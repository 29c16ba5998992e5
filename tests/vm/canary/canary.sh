#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The first suite of `make check-debug`: boot the debug kernel with -D, load
# kcanary.ko, which commits one bug of each kind on purpose, and check that
# the run fails and tests/vm/kernel-reports.sh names every one. A debug
# kernel or harness that misses one would pass buggy suites silently. Kinds
# the kernel is not configured for (KASAN and kmemleak on the KCSAN kernel,
# KCSAN on the other) are skipped. Prints TAP.
#
# usage: canary.sh <kernel root> <kcanary.ko> <console log> [run-in-vm options]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kroot=$1
ko=$2
console=$3
shift 3

config=$(ls "$kroot"/boot/config-* 2>/dev/null | head -n1)
has() { grep -q "^CONFIG_$1=y" "$config"; }

# kind, kernel option it needs, what the report's first line says
checks=(
	"lockdep|PROVE_LOCKING|WARNING: possible circular locking dependency detected"
	"sleep|DEBUG_ATOMIC_SLEEP|BUG: sleeping function called from invalid context"
	"warn|BUG|WARNING: CPU: .* kcanary_init"
	"odebug|DEBUG_OBJECTS_TIMERS|ODEBUG: free active .*object type: timer_list"
	"leak|DEBUG_KMEMLEAK|unreferenced object 0x"
	"ubsan|UBSAN_BOUNDS|UBSAN: array-index-out-of-bounds in .*kcanary.c"
	"kasan|KASAN|BUG: KASAN: slab-out-of-bounds in kcanary_init"
	"race|KCSAN|BUG: KCSAN: data-race in .*kcanary_race_fn"
)
bugs=
for c in "${checks[@]}"; do
	IFS='|' read -r kind opt _ <<<"$c"
	has "$opt" && bugs+=${bugs:+,}$kind
done

echo "TAP version 13"
echo "1..$((${#checks[@]} + 1))"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$here/run-in-vm.sh" -k "$kroot" -M "$ko" -N -D -q -l "$console" "$@" -- \
	"insmod /lib/modules/extra/${ko##*/} bugs=$bugs" >"$out" 2>&1
rc=$?
fail=0
if [ "$rc" -eq 126 ]; then
	echo "ok 1 - the run fails on the reports (exit 126)"
else
	echo "not ok 1 - the run fails on the reports (exit $rc, not 126)"
	fail=1
fi
n=1
for c in "${checks[@]}"; do
	IFS='|' read -r kind opt pattern <<<"$c"
	n=$((n + 1))
	if ! has "$opt"; then
		echo "ok $n - $kind # SKIP no CONFIG_$opt"
	elif grep -a -q -E "$pattern" "$out"; then
		echo "ok $n - $kind reported"
	else
		echo "not ok $n - $kind reported (no \"$pattern\" in the scanner's output)"
		fail=1
	fi
done
if [ "$fail" -ne 0 ]; then
	sed 's/^/# /' "$out"
fi
exit "$fail"
