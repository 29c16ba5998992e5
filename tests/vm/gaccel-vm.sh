#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# run-in-vm.sh with gaccel's setup: the kernel from `make deps`, the DRM
# modules gaccel.ko needs, gaccel.ko itself. Called by make (which exports
# GACCEL_KIMAGE and GACCEL_KO) for `make run` and the VM test suites.
#
# usage: gaccel-vm.sh [run-in-vm.sh options] -- <command...>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GACCEL_KIMAGE:?run through make (GACCEL_KIMAGE unset)}"
: "${GACCEL_KO:?run through make (GACCEL_KO unset)}"

# vgem: a second DRM device and dma-buf exporter with fence ioctls, for the
# implicit-sync tests.
modules=(drm drm_shmem_helper gpu-sched vgem)
args=()
for m in "${modules[@]}"; do
	args+=(-m "$m")
done
# GACCEL_VM_KERNEL=61: Debian 12's own 6.1 kernel (make deps fetched it),
# with the module and the test-only ones built against its headers (make
# module-61): the render node path and the compat probes' older branches.
test_ko=${GACCEL_TEST_KO:-}
kimage=$GACCEL_KIMAGE ko=$GACCEL_KO
case ${GACCEL_VM_KERNEL:-} in
"") ;;
61)
	: "${GACCEL_KIMAGE_61:?run through make (GACCEL_KIMAGE_61 unset)}"
	kimage=$GACCEL_KIMAGE_61 ko=$GACCEL_KO_61 test_ko=${GACCEL_TEST_KO_61:-} ;;
*)
	echo "gaccel-vm: GACCEL_VM_KERNEL is 61 or unset, not $GACCEL_VM_KERNEL" >&2
	exit 2 ;;
esac
# Test-only modules (tests/kmod/): in the image, loaded by the suites that
# need them.
if [ -n "$test_ko" ] && [ -f "$test_ko" ] &&
   [ "${GACCEL_VM_ARCH:-x86_64}" != arm64 ]; then
	args+=(-f "$test_ko:/lib/modules/extra/${test_ko##*/}")
fi
# The test-only fault injection file (debugfs accel/<n>/fault) is there only
# when asked for; the suites use it.
# GACCEL_VM_ARCH=arm64: Debian's arm64 kernel under qemu-system-aarch64,
# with the module cross-built for it (make module-arm64).
if [ "${GACCEL_VM_ARCH:-x86_64}" = arm64 ]; then
	: "${GACCEL_KIMAGE_ARM64:?run through make (GACCEL_KIMAGE_ARM64 unset)}"
	kimage=$GACCEL_KIMAGE_ARM64 ko=$GACCEL_KO_ARM64
	args+=(-A arm64)
fi
exec "$here/run-in-vm.sh" -k "$kimage" "${args[@]}" -M "$ko" \
	-P "${GACCEL_MODULE_PARAMS-fault_injection=1}" "$@"
