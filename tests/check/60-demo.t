#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The whole stack in the VM: gaccel-demo maps a model's weights read-only,
# wraps them zero-copy on the gaccel device and runs a llama-shaped prompt
# through the scheduler beside the CPU; its logits must match the CPU
# backend alone (the demo fails otherwise). Once more with the weights read
# into memory with io_uring (-r, as for a file that cannot be mapped), from
# a file on an ext4 disk so that O_DIRECT and the registered buffer are
# the ones used.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..4"
out=$GACCEL_BUILD/demo-vm.log
img=$GACCEL_BUILD/vm/demo-disk.img
mkdir -p "$GACCEL_BUILD/vm"
rm -f "$img"
if ! /usr/sbin/mkfs.ext4 -q -F "$img" 32M >"$out" 2>&1; then
	echo "Bail out! mkfs.ext4 failed"
	sed 's/^/# /' "$out"
	exit 1
fi
tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/demo.console.log" -d "$(realpath "$img")" \
	-b "$GACCEL_BUILD/tools/gaccel-demo" -- '
	for q in q8_0 f16 q4_0; do
		echo "== $q"
		gaccel-demo -q $q -l 2 -t 6 -w /tmp/weights-$q || echo "FAILED $q"
	done
	echo "== read"
	gaccel-demo -q q8_0 -l 2 -t 6 -w /mnt/weights -r || echo "FAILED read"' >"$out" 2>&1
rc=$?
rm -f "$img"
n=0
for q in q8_0 f16 q4_0 read; do
	n=$((n + 1))
	sect=$(sed -n "/^== $q\$/,/^== /p" "$out")
	desc="$q model on GACCEL0 + CPU matches the CPU alone, weights zero-copy"
	extra=true
	if [ $q = read ]; then
		desc="q8_0 model, weights read with io_uring (O_DIRECT, registered buffer) then wrapped zero-copy"
		extra="grep -q 'read with io_uring .*(O_DIRECT, registered buffer'"
	fi
	if [ $rc -eq 0 ] && ! echo "$sect" | grep -q "^FAILED" &&
	   echo "$sect" | grep -q 'zero-copy (base == mapping)' &&
	   echo "$sect" | grep -q 'nodes on GACCEL0' &&
	   echo "$sect" | sh -c "$extra"; then
		echo "ok $n - $desc"
		echo "$sect" | grep -E 'splits|NMSE|io_uring' | sed 's/^/# /'
	else
		echo "not ok $n - $desc"
		sed 's/^/# /' "$out"
	fi
done
exit $rc
