#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The VM's edu configuration: gaccel.ko without its reference engine and
# gaccel_edu.ko, the engine module for QEMU's edu PCI device, on a q35
# machine with QEMU's emulated Intel IOMMU (the guest kernel runs with
# intel_iommu=on), so that every buffer object the engine's DMA reaches is
# mapped through the IOMMU. Called by make (which exports GACCEL_KIMAGE,
# GACCEL_KO and GACCEL_EDU_KO) for the edu suites.
#
# Environment: GACCEL_EDU_PARAMS, gaccel_edu.ko's parameters (poll=1:
# completion by gaccel's poller instead of the MSI); GACCEL_EDU_IOMMU=0:
# no IOMMU but bounce buffers (swiotlb=force) for every mapping, in a VM of
# 256 MiB, all of which the device's 28-bit DMA reaches (with more memory
# and no IOMMU, gaccel refuses to register the engine: some pages would be
# out of its reach: GACCEL_EDU_IOMMU=none boots that, for
# tests/check/47-edu-dma-reach.t).
#
# usage: edu-vm.sh [run-in-vm.sh options] -- <command...>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GACCEL_KIMAGE:?run through make (GACCEL_KIMAGE unset)}"
: "${GACCEL_KO:?run through make (GACCEL_KO unset)}"
: "${GACCEL_EDU_KO:?run through make (GACCEL_EDU_KO unset)}"

# vgem and the test exporter: dma-buf exporters for the PRIME suites.
args=()
for m in drm drm_shmem_helper gpu-sched vgem; do
	args+=(-m "$m")
done
if [ -n "${GACCEL_TEST_KO:-}" ] && [ -f "$GACCEL_TEST_KO" ]; then
	args+=(-f "$GACCEL_TEST_KO:/lib/modules/extra/${GACCEL_TEST_KO##*/}")
fi
case ${GACCEL_EDU_IOMMU:-1} in
1)
	# The IOMMU first: QEMU wants it before the devices behind it. DMA
	# remapping only: with interrupt remapping a loaded host made the
	# guest's early IO-APIC timer check fail now and then (a panic).
	qemu="-device intel-iommu,intremap=off -device edu"
	append="intel_iommu=on iommu.strict=1"
	;;
0)
	qemu="-device edu"
	append="intel_iommu=off swiotlb=force"
	args+=(-r 256)
	;;
none)
	qemu="-device edu"
	append="intel_iommu=off"
	;;
*)
	echo "edu-vm.sh: GACCEL_EDU_IOMMU=$GACCEL_EDU_IOMMU: 1, 0 or none" >&2
	exit 2
	;;
esac
exec "$here/run-in-vm.sh" -k "$GACCEL_KIMAGE" "${args[@]}" -Y q35 -Q "$qemu" \
	-a "$append" -M "$GACCEL_KO" -P "ref_engine=0 ${GACCEL_MODULE_PARAMS-}" \
	-E "$GACCEL_EDU_KO ${GACCEL_EDU_PARAMS-}" "$@"
