#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# A DMA engine whose device cannot reach all memory, with neither an IOMMU
# nor bounce buffers to make up for it, is refused at registration (with a
# line in the log saying why) instead of failing - and warning - on some
# client's job later: the edu device (28-bit DMA) in a 1 GiB VM without an
# IOMMU. The edu suites (edu-*.t) cover the configurations that work.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..1"
log=$GACCEL_BUILD/vm/edu-none.log
mkdir -p "$GACCEL_BUILD/vm"
if GACCEL_EDU_IOMMU=none tests/vm/edu-vm.sh -q -l "$GACCEL_BUILD/vm/edu-none.console.log" -- \
	'ls /dev/accel 2>/dev/null | grep -c accel; dmesg | grep "gaccel:"' >"$log" 2>&1 &&
   grep -qx 0 "$log" && grep -q 'does not cover memory' "$log"; then
	echo "ok 1 - edu without an IOMMU or bounce buffers: registration refused, no node"
else
	echo "not ok 1 - edu without an IOMMU or bounce buffers: registration refused, no node"
	sed 's/^/# /' "$log"
	exit 1
fi
