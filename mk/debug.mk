# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Every VM suite, the fuzzer and the stress test on a debug kernel (KASAN,
# UBSAN, lockdep, DEBUG_OBJECTS, kmemleak, DMA-API debug): not part of
# `make check` (a first build takes tens of minutes, a run about an hour);
# see Documentation/testing.rst.
#
#   make check-debug            build the debug kernel once (cached in
#                               $(BUILD)/debug-kernel/), gaccel.ko against
#                               it, and run everything on it
#   make check-debug SUITES="submit_test asan-ggml_gaccel_test fuzz stress"
#                               only these (names of the wrappers below)
#   make check-kcsan            the same on the KCSAN kernel
#                               (= make check-debug DEBUG_CONFIG=kcsan)
#   make debug-kernel           only build the kernel

DEBUG_CONFIG  ?= debug
DEBUG_VM_MEM  ?= 2048
DEBUG_TIMEOUT ?= 1800
DEBUG_FUZZ_SECONDS   ?= 300
DEBUG_STRESS_SECONDS ?= 300
SUITES        ?=
# More tests/vm/run-in-vm.sh options for every run, e.g. "-u 65534" (the
# suites as an unprivileged user; the root-only cases then fail or skip).
DEBUG_VM_ARGS ?=

DBG_DIR      := $(BUILD)/debug-kernel/$(DEBUG_CONFIG)
DBG_STAMP    := $(DBG_DIR)/stamp
KDIR_DEBUG   := $(abspath $(DBG_DIR)/obj)
KIMAGE_DEBUG := $(abspath $(DBG_DIR)/root)
DBG_KO       := $(BUILD)/kmod-debug/$(DEBUG_CONFIG)/gaccel.ko
DBG_CHECK    := $(BUILD)/check-debug/$(DEBUG_CONFIG)
DBG_VMLOG    := $(ABS_BUILD)/vm-debug/$(DEBUG_CONFIG)

.PHONY: debug-kernel module-debug check-debug check-kcsan FORCE
FORCE:

# The script decides whether anything needs building (package version and
# fragments); it rewrites the stamp only after a build, so gaccel.ko is
# rebuilt only then.
$(DBG_STAMP): FORCE
	@scripts/debug-kernel.sh $(BUILD) $(DEBUG_CONFIG)

debug-kernel: $(DBG_STAMP)

# With -g (the kernel has no debug info): scripts/faddr2line and gdb can
# turn a report's gaccel_*+0x.../0x... into a source line.
$(DBG_KO): $(KMOD_SRCS) $(DBG_STAMP)
	@echo "  KBUILD  gaccel.ko for the $(DEBUG_CONFIG) kernel"
	@scripts/build-module.sh $(KDIR_DEBUG) $(@D) KCFLAGS=-g

module-debug: $(DBG_KO) $(DBG_TEST_KO)

# The test-only modules of tests/kmod/, like $(TEST_KMOD) for Debian's kernel.
DBG_TEST_KO := $(BUILD)/kmod-debug/$(DEBUG_CONFIG)-test/$(notdir $(TEST_KMOD))
$(DBG_TEST_KO): $(TEST_KMOD_SRCS) $(DBG_STAMP)
	@mkdir -p $(@D)
	@echo "  KBUILD  $(notdir $@) for the $(DEBUG_CONFIG) kernel"
	@cp -rs --remove-destination $(abspath tests/kmod)/. $(@D)/
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C $(KDIR_DEBUG) M=$(abspath $(@D)) \
		modules >$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	@! grep -E -i 'warning|error' $(@D)/build.log >&2

# The edu engine module against the debug kernel, for the edu suite there
# (no IOMMU in that kernel: bounce buffers in a 256 MiB VM, INTx).
DBG_EDU_KO := $(BUILD)/kmod-debug/$(DEBUG_CONFIG)-edu/gaccel_edu.ko
$(DBG_EDU_KO): $(wildcard engines/edu/*) $(DBG_KO) driver/gaccel_engine.h driver/gaccel_graph.h
	@mkdir -p $(@D)
	@echo "  KBUILD  $(notdir $@) for the $(DEBUG_CONFIG) kernel"
	@cp -rs --remove-destination $(abspath engines/edu)/. $(@D)/
	@rm -f $(@D)/Module.symvers $(@D)/*.mod.c $(@D)/*.ko
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C $(KDIR_DEBUG) M=$(abspath $(@D)) \
		GACCEL_SRC=$(abspath .) KBUILD_EXTRA_SYMBOLS=$(abspath $(dir $(DBG_KO)))/Module.symvers \
		KCFLAGS=-g modules >$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	@! grep -E -i 'warning|error' $(@D)/build.log >&2

# The harness's self-test: a module that commits one bug of each kind.
DBG_CANARY := $(BUILD)/kmod-debug/$(DEBUG_CONFIG)-canary/kcanary.ko
$(DBG_CANARY): tests/vm/canary/kcanary.c tests/vm/canary/Kbuild $(DBG_STAMP)
	@echo "  KBUILD  kcanary.ko for the $(DEBUG_CONFIG) kernel"
	@mkdir -p $(@D) && cp tests/vm/canary/kcanary.c tests/vm/canary/Kbuild $(@D)/
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C $(KDIR_DEBUG) M=$(abspath $(@D)) modules

# One wrapper per suite, like make check's: first the canary (the kernel
# and the harness catch each kind of bug), then each suite boots the debug
# kernel once, with -D (kmemleak cleared before, the module unloaded and kmemleak
# scanned after). The console logs stay in $(DBG_VMLOG). Rewritten on every
# run, so that DEBUG_* variables given on the command line apply.
DBG_VM := env GACCEL_KIMAGE=$(KIMAGE_DEBUG) GACCEL_KO=$(abspath $(DBG_KO)) \
	GACCEL_TEST_KO=$(abspath $(DBG_TEST_KO)) \
	$(abspath $(GACCEL_VM)) -q -D -r $(DEBUG_VM_MEM) $(DEBUG_VM_ARGS)

DBG_ALL := canary $(patsubst $(BUILD)/tests/driver/%,%,$(filter-out %/edu_test,$(DRV_TESTS))) edu \
	   $(patsubst $(BUILD)/tests/driver-asan/%,asan-%,$(DRV_ASAN_TESTS)) fuzz stress
ifneq ($(filter-out $(DBG_ALL),$(SUITES)),)
$(error SUITES: no suite $(filter-out $(DBG_ALL),$(SUITES)); there are: $(DBG_ALL))
endif
DBG_RUN := $(if $(SUITES),$(filter $(SUITES),$(DBG_ALL)),$(DBG_ALL))
DBG_CHECKS := $(patsubst %,$(DBG_CHECK)/%.t,$(DBG_RUN))

# Like check_wrapper, but the suite's TAP output is also kept beside its
# console log ($(DBG_VMLOG)/<suite>.out): the failing test's messages and
# the fuzzer's figures, which prove alone does not show.
define dbg_wrapper
	@mkdir -p $(@D) $(DBG_VMLOG)
	@printf '#!/bin/bash\n# generated by mk/debug.mk\nset -o pipefail\n%s | tee %s\n' \
		'$(1)' '$(DBG_VMLOG)/$(basename $(@F)).out' >$@
	@chmod +x $@
endef

$(DBG_CHECK)/canary.t: FORCE
	$(call dbg_wrapper,$(abspath tests/vm/canary/canary.sh) $(KIMAGE_DEBUG) $(abspath $(DBG_CANARY)) $(DBG_VMLOG)/canary.console.log -r $(DEBUG_VM_MEM) -t $(DEBUG_TIMEOUT))
$(DBG_CHECK)/asan-%.t: FORCE
	$(call dbg_wrapper,$(DBG_VM) -t $(DEBUG_TIMEOUT) -l $(DBG_VMLOG)/asan-$*.console.log -b $(ABS_BUILD)/tests/driver-asan/$* -- $*)
$(DBG_CHECK)/fuzz.t: FORCE
	$(call dbg_wrapper,$(DBG_VM) -t $$(( $(DEBUG_FUZZ_SECONDS) + $(DEBUG_TIMEOUT) )) -l $(DBG_VMLOG)/fuzz.console.log -b $(ABS_BUILD)/tests/fuzz/graph_fuzz -- "graph_fuzz -t $(DEBUG_FUZZ_SECONDS) $(if $(FUZZ_SEED),-s $(FUZZ_SEED)) $(FUZZ_ARGS)")
$(DBG_CHECK)/stress.t: FORCE
	$(call dbg_wrapper,$(DBG_VM) -t $$(( $(DEBUG_STRESS_SECONDS) + $(DEBUG_TIMEOUT) )) -l $(DBG_VMLOG)/stress.console.log -b $(ABS_BUILD)/tests/fuzz/stress -- "stress -t $(DEBUG_STRESS_SECONDS) $(STRESS_ARGS)")
$(DBG_CHECK)/edu.t: FORCE
	$(call dbg_wrapper,env GACCEL_KIMAGE=$(KIMAGE_DEBUG) GACCEL_KO=$(abspath $(DBG_KO)) GACCEL_EDU_KO=$(abspath $(DBG_EDU_KO)) GACCEL_EDU_IOMMU=0 $(abspath $(EDU_VM)) -q -D $(DEBUG_VM_ARGS) -t $(DEBUG_TIMEOUT) -l $(DBG_VMLOG)/edu.console.log -b $(ABS_BUILD)/tests/driver/edu_test -- edu_test)
$(DBG_CHECK)/%.t: FORCE
	$(call dbg_wrapper,$(DBG_VM) -t $(DEBUG_TIMEOUT) -l $(DBG_VMLOG)/$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)

check-debug: deps-current driver-tests $(BUILD)/tests/fuzz/graph_fuzz $(BUILD)/tests/fuzz/stress \
		$(DBG_KO) $(DBG_TEST_KO) $(DBG_EDU_KO) $(DBG_CANARY) $(DBG_CHECKS)
	@echo "== make check-debug ($(DEBUG_CONFIG) kernel, $(words $(DBG_CHECKS)) suites; consoles in $(DBG_VMLOG)) =="
	prove --exec '' --timer $(DBG_CHECKS)

check-kcsan:
	@$(MAKE) --no-print-directory check-debug DEBUG_CONFIG=kcsan
