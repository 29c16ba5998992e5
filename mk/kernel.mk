# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel.ko, built out of tree against Debian's 6.12 kernels fetched by
# `make deps` ($(BUILD)/kernel/versions.mk): the newest one, which the test VM
# boots, and the oldest one of the series (make check builds both).

KMOD_SRCS := Kbuild $(wildcard driver/*.c driver/*.h driver/compat/*) uapi/drm/gaccel_accel.h \
	     $(wildcard lib/backends/cpu/kernels/*.[ch])
KMOD_NEW  := $(BUILD)/kmod/$(KVER_NEW)/gaccel.ko

.PHONY: module
module: $(KMOD_NEW)

$(BUILD)/kmod/%/gaccel.ko: $(KMOD_SRCS)
	@test -n "$(KDIR_NEW)" || { echo "no kernel headers: run 'make deps' first" >&2; exit 1; }
	@echo "  KBUILD  gaccel.ko for $*"
	@scripts/build-module.sh $(if $(filter $*,$(KVER_OLD)),$(KDIR_OLD),$(if $(filter $*,$(KVER_ARM64)),$(KDIR_ARM64),$(KDIR_NEW))) $(@D)

# The module for Debian's arm64 kernel, cross-built (its headers' Makefile
# sets ARCH and CROSS_COMPILE): make module-arm64.
KMOD_ARM64 := $(BUILD)/kmod/$(KVER_ARM64)/gaccel.ko
.PHONY: module-arm64
module-arm64: $(KMOD_ARM64)
