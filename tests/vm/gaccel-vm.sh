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
# Test-only modules (tests/kmod/): in the image, loaded by the suites that
# need them.
if [ -n "${GACCEL_TEST_KO:-}" ] && [ -f "$GACCEL_TEST_KO" ] &&
   [ "${GACCEL_VM_ARCH:-x86_64}" != arm64 ]; then
	args+=(-f "$GACCEL_TEST_KO:/lib/modules/extra/${GACCEL_TEST_KO##*/}")
fi
# The test-only fault injection file (debugfs accel/<n>/fault) is there only
# when asked for; the suites use it.
# GACCEL_VM_ARCH=arm64: Debian's arm64 kernel under qemu-system-aarch64,
# with the module cross-built for it (make module-arm64).
kimage=$GACCEL_KIMAGE ko=$GACCEL_KO
if [ "${GACCEL_VM_ARCH:-x86_64}" = arm64 ]; then
	: "${GACCEL_KIMAGE_ARM64:?run through make (GACCEL_KIMAGE_ARM64 unset)}"
	kimage=$GACCEL_KIMAGE_ARM64 ko=$GACCEL_KO_ARM64
	args+=(-A arm64)
fi
exec "$here/run-in-vm.sh" -k "$kimage" "${args[@]}" -M "$ko" \
	-P "${GACCEL_MODULE_PARAMS-fault_injection=1}" "$@"
