#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The whole stack in the VM: gaccel-demo maps a model's weights read-only,
# wraps them zero-copy on the gaccel device and runs a llama-shaped prompt
# through the scheduler beside the CPU; its logits must match the CPU
# backend alone (the demo fails otherwise).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..3"
out=$GACCEL_BUILD/demo-vm.log
tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/demo.console.log" \
	-b "$GACCEL_BUILD/tools/gaccel-demo" -- '
	for q in q8_0 f16 q4_0; do
		echo "== $q"
		gaccel-demo -q $q -l 2 -t 6 -w /tmp/weights-$q || echo "FAILED $q"
	done' >"$out" 2>&1
rc=$?
n=0
for q in q8_0 f16 q4_0; do
	n=$((n + 1))
	sect=$(sed -n "/^== $q\$/,/^== /p" "$out")
	if [ $rc -eq 0 ] && ! echo "$sect" | grep -q "^FAILED" &&
	   echo "$sect" | grep -q 'zero-copy (base == mapping)' &&
	   echo "$sect" | grep -q 'nodes on GACCEL0'; then
		echo "ok $n - $q model on GACCEL0 + CPU matches the CPU alone, weights zero-copy"
		echo "$sect" | grep -E 'splits|NMSE' | sed 's/^/# /'
	else
		echo "not ok $n - $q model on GACCEL0 + CPU matches the CPU alone, weights zero-copy"
		sed 's/^/# /' "$out"
	fi
done
exit $rc
