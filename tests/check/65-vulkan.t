#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel and Mesa's Vulkan driver share tensors through dma-bufs, in the VM:
# tests/vulkan/vulkan_interop_test runs a gaccel job, hands its output to
# lavapipe (imported with VK_EXT_external_memory_dma_buf, after the job's
# sync_file signalled), which copies it into a second gaccel buffer object
# that the next gaccel job reads. lavapipe is the bookworm-backports build
# `make deps` unpacked (VULKAN_ROOT), with the libdrm it needs, in /vk.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
: "${VULKAN_ROOT:?run through make check (make deps unpacks lavapipe)}"
lib=$VULKAN_ROOT/usr/lib/x86_64-linux-gnu
stage=$GACCEL_BUILD/check/vk
rm -rf "$stage" && mkdir -p "$stage"
# Executable, so that run-in-vm.sh copies what it links (LLVM, ...) too.
cp "$lib/libvulkan_lvp.so" "$stage/" && chmod +x "$stage/libvulkan_lvp.so"
cat >"$stage/lvp_icd.json" <<'JSON'
{ "file_format_version": "1.0.0",
  "ICD": { "library_path": "/vk/libvulkan_lvp.so", "api_version": "1.3.0" } }
JSON

exec tests/vm/gaccel-vm.sh -q -r 2048 -t 900 -l "$GACCEL_BUILD/vm/vulkan.console.log" \
	-b "$GACCEL_BUILD/tests/vulkan/vulkan_interop_test" \
	-f "$(readlink -f "$lib/libdrm.so.2"):/vk/libdrm.so.2" \
	-f "$(readlink -f "$lib/libdrm_amdgpu.so.1"):/vk/libdrm_amdgpu.so.1" \
	-f "$stage/libvulkan_lvp.so:/vk/libvulkan_lvp.so" \
	-f "$stage/lvp_icd.json:/vk/lvp_icd.json" -- \
	'GACCEL_VK_REQUIRED=1 VK_ICD_FILENAMES=/vk/lvp_icd.json LD_LIBRARY_PATH=/vk XDG_RUNTIME_DIR=/tmp \
	 vulkan_interop_test'
