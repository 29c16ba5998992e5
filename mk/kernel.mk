# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel.ko, built out of tree against Debian's 6.12 kernels fetched by
# `make deps` ($(BUILD)/kernel/versions.mk): the newest one, which the test VM
# boots, and the oldest one of the series (make check builds both); and
# against Debian 12's own 6.1 (make module-61, make test-61).

KMOD_SRCS := Kbuild $(wildcard driver/*.c driver/*.h driver/compat/*) uapi/drm/gaccel_accel.h \
	     $(wildcard lib/backends/cpu/kernels/*.[ch])
KMOD_NEW  := $(BUILD)/kmod/$(KVER_NEW)/gaccel.ko

.PHONY: module
module: $(KMOD_NEW)

$(BUILD)/kmod/%/gaccel.ko: $(KMOD_SRCS)
	@test -n "$(KDIR_NEW)" || { echo "no kernel headers: run 'make deps' first" >&2; exit 1; }
	@echo "  KBUILD  gaccel.ko for $*"
	@scripts/build-module.sh $(if $(filter $*,$(KVER_OLD)),$(KDIR_OLD),$(if $(filter $*,$(KVER_ARM64)),$(KDIR_ARM64),$(if $(filter $*,$(KVER_61)),$(KDIR_61),$(KDIR_NEW)))) $(@D)

# The module for Debian's arm64 kernel, cross-built (its headers' Makefile
# sets ARCH and CROSS_COMPILE): make module-arm64.
KMOD_ARM64 := $(BUILD)/kmod/$(KVER_ARM64)/gaccel.ko
.PHONY: module-arm64
module-arm64: $(KMOD_ARM64)

# The module for Debian 12's own 6.1 kernel (a render node; the compat
# probes' older branches): make module-61.
KMOD_61 := $(BUILD)/kmod/$(KVER_61)/gaccel.ko
.PHONY: module-61
module-61: $(KMOD_61)

# Engine modules (engines/*/), each built apart from gaccel.ko against its
# Module.symvers, as a vendor's would be: gaccel_edu.ko for QEMU's edu
# device (the VM's edu configuration, tests/vm/edu-vm.sh).
EDU_KMOD := $(BUILD)/kmod/$(KVER_NEW)/engines/edu/gaccel_edu.ko

.PHONY: engine-modules
engine-modules: $(EDU_KMOD)

$(EDU_KMOD): $(wildcard engines/edu/*) $(KMOD_NEW) driver/gaccel_engine.h \
		driver/gaccel_graph.h uapi/drm/gaccel_accel.h
	@echo "  KBUILD  $(notdir $@) for $(KVER_NEW)"
	@mkdir -p $(@D)
	@cp -rs --remove-destination $(abspath engines/edu)/. $(@D)/
	@# kbuild does not track gaccel's Module.symvers: have modpost run again.
	@rm -f $(@D)/Module.symvers $(@D)/*.mod.c $(@D)/*.ko
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C $(KDIR_NEW) M=$(abspath $(@D)) \
		GACCEL_SRC=$(abspath .) KBUILD_EXTRA_SYMBOLS=$(abspath $(dir $(KMOD_NEW)))/Module.symvers \
		modules >$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	@! grep -E -i 'warning|error' $(@D)/build.log >&2
