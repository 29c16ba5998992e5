# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Tools, driver test suites, `make run` and `make check`.
#
# Programs that run inside the test VM are linked statically, so the
# initramfs needs no shared libraries. Every tests/driver/*_test.c is a
# kselftest-harness suite; `make check` boots the VM once per suite.

USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi $(LIBDRM_CFLAGS) -pthread

DRV_TEST_SRCS := $(wildcard tests/driver/*_test.c)
DRV_TESTS     := $(patsubst tests/driver/%.c,$(BUILD)/tests/driver/%,$(DRV_TEST_SRCS))
DRV_TEST_DEPS := $(wildcard tests/driver/*.h) tests/common/test-timeout.h uapi/drm/gaccel_accel.h $(KSELFTEST_H)

$(BUILD)/tests/driver/%: tests/driver/%.c $(DRV_TEST_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -isystem $(KSELFTEST_DIR) \
		-static -o $@ $< -lm

# Suites named ggml_*_test.c drive the device through libggml-backend.
$(BUILD)/tests/driver/ggml_%_test: tests/driver/ggml_%_test.c $(DRV_TEST_DEPS) $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -Ilib/include -isystem $(KSELFTEST_DIR) \
		-static -o $@ $< $(lib_STATIC) $(LIBDRM_LIBS) -lm -lpthread -ldl 2>$@.log; \
		rc=$$?; grep -v -E "statically linked applications requires at runtime" $@.log >&2; rm -f $@.log; exit $$rc

# The same suites again under AddressSanitizer and UBSan, linked with the
# ASan library: dynamic (ASan has no static runtime); the VM runner copies
# the shared libraries ldd names into the initramfs.
DRV_ASAN_TESTS := $(patsubst tests/driver/%.c,$(BUILD)/tests/driver-asan/%,$(wildcard tests/driver/ggml_*_test.c))

$(BUILD)/tests/driver-asan/ggml_%_test: tests/driver/ggml_%_test.c $(DRV_TEST_DEPS) $(asan_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm asan] $<";)$(CC) $(subst -O2,-O1,$(USER_CFLAGS)) -Itests/driver -Ilib/include \
		-isystem $(KSELFTEST_DIR) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -o $@ $< $(asan_STATIC) $(LIBDRM_LIBS) -lm -lpthread -ldl

# The Vulkan interop test (tests/check/65-vulkan.t): linked dynamically with
# the Vulkan loader, which loads the driver named by VK_ICD_FILENAMES.
VK_TEST := $(BUILD)/tests/vulkan/vulkan_interop_test
$(VK_TEST): tests/vulkan/vulkan_interop_test.c $(DRV_TEST_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -isystem $(KSELFTEST_DIR) \
		-o $@ $< -lvulkan -lm

.PHONY: vulkan-test
vulkan-test: $(VK_TEST)

# The driver suites cross-built for the arm64 VM (static, like the x86 ones;
# not the edu engine's, whose device is a PCI card of the x86 VM), and
# gaccel-info.
A64_DRV_TESTS := $(patsubst tests/driver/%.c,$(BUILD)/aarch64/tests/driver/%,$(filter-out \
		 tests/driver/ggml_% tests/driver/edu_test.c,$(DRV_TEST_SRCS)))
$(BUILD)/aarch64/tools/gaccel-info: tools/gaccel-info.c uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [arm64] $<";)$(AARCH64_CC) $(LIBDRM_ARM64_CFLAGS) $(USER_CFLAGS) -static -o $@ $< \
		$(LIBDRM_ARM64_LDFLAGS) -ldrm -lm
$(BUILD)/aarch64/tests/driver/%: tests/driver/%.c $(DRV_TEST_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm arm64] $<";)$(AARCH64_CC) $(USER_CFLAGS) -Itests/driver \
		-isystem $(KSELFTEST_DIR) -static -o $@ $< -lm

.PHONY: driver-tests-arm64
driver-tests-arm64: $(A64_DRV_TESTS) $(BUILD)/aarch64/tools/gaccel-info


TOOL_SRCS := $(wildcard tools/gaccel-*.c)
TOOLS     := $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))

# The same tools as `make install` installs them ($(BUILD)/bin): linked
# dynamically (the library ones with the shared libggml of mk/shlib.mk),
# with the user's CPPFLAGS, CFLAGS and LDFLAGS and without -Werror unless
# WERROR says so. From the build tree they run with
# LD_LIBRARY_PATH=$(BUILD)/lib.
TOOL_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra $(WERROR) -Iuapi $(LIBDRM_CFLAGS) -pthread $(CPPFLAGS) $(CFLAGS)
TOOL_GGML_LIBS := -L$(BUILD)/lib -lggml -lggml-base -lggml-cpu
INSTALL_TOOLS := $(patsubst tools/%.c,$(BUILD)/bin/%,$(TOOL_SRCS))

$(BUILD)/bin/gaccel-demo $(BUILD)/bin/gaccel-bench: $(BUILD)/bin/gaccel-%: tools/gaccel-%.c $(SHLIBS) \
		tools/weights-io.c tools/weights-io.h tests/driver/gaccel_test.h tests/common/test-timeout.h uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bin] $<";)$(CC) $(TOOL_CFLAGS) -Itests/driver -Ilib/include -o $@ $< \
		tools/weights-io.c $(LDFLAGS) $(TOOL_GGML_LIBS) -luring -lm

$(BUILD)/bin/gaccel-%: tools/gaccel-%.c uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bin] $<";)$(CC) $(TOOL_CFLAGS) -o $@ $< $(LDFLAGS) $(LIBDRM_LIBS) -lm

# The demo runs libggml-backend; static, to run in the VM as it is.
# Its io_uring reader (tools/weights-io.c) links liburing.
$(BUILD)/tools/gaccel-demo: tools/gaccel-demo.c tools/weights-io.c tools/weights-io.h $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(USER_CFLAGS) -Ilib/include -static -o $@ $< tools/weights-io.c \
		$(lib_STATIC) $(LIBDRM_LIBS) -luring -lm -lpthread -ldl 2>$@.log; \
		rc=$$?; grep -v -E "statically linked applications requires at runtime" $@.log >&2; rm -f $@.log; exit $$rc

$(BUILD)/tools/gaccel-%: tools/gaccel-%.c uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(USER_CFLAGS) -static -o $@ $< $(LIBDRM_LIBS) -lm 2>$@.log; \
		rc=$$?; grep -v -E "statically linked applications requires at runtime" $@.log >&2; rm -f $@.log; exit $$rc

# Test-only kernel modules (tests/kmod/), built like gaccel.ko against the
# VM's kernel and put into the VM image for the suites that load them.
TEST_KMOD_SRCS := $(wildcard tests/kmod/*.c tests/kmod/Kbuild)
TEST_KMOD      := $(BUILD)/kmod/$(KVER_NEW)/test/gaccel_test_exporter.ko

$(TEST_KMOD): $(TEST_KMOD_SRCS)
	@mkdir -p $(@D)
	@echo "  KBUILD  $(notdir $@) for $(KVER_NEW)"
	@cp -rs --remove-destination $(abspath tests/kmod)/. $(@D)/
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C $(KDIR_NEW) M=$(abspath $(@D)) \
		modules >$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	@! grep -E -i 'warning|error' $(@D)/build.log >&2

# The same for Debian 12's 6.1 kernel (GACCEL_VM_KERNEL=61).
TEST_KMOD_61 := $(BUILD)/kmod/$(KVER_61)/test/gaccel_test_exporter.ko
$(TEST_KMOD_61): $(TEST_KMOD_SRCS)
	@mkdir -p $(@D)
	@echo "  KBUILD  $(notdir $@) for $(KVER_61)"
	@cp -rs --remove-destination $(abspath tests/kmod)/. $(@D)/
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C $(KDIR_61) M=$(abspath $(@D)) \
		modules >$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	@! grep -E -i 'warning|error' $(@D)/build.log >&2

.PHONY: tools bin driver-tests test-driver
tools: $(TOOLS)
bin: $(INSTALL_TOOLS)
driver-tests: $(DRV_TESTS) $(DRV_ASAN_TESTS) $(TEST_KMOD)

export GACCEL_KIMAGE := $(KIMAGE_ROOT)
export GACCEL_KO     := $(abspath $(KMOD_NEW))
export GACCEL_TEST_KO := $(abspath $(TEST_KMOD))
export GACCEL_EDU_KO := $(abspath $(EDU_KMOD))
export GACCEL_KIMAGE_ARM64 := $(KIMAGE_ROOT_ARM64)
export GACCEL_KO_ARM64 := $(abspath $(KMOD_ARM64))
export GACCEL_KIMAGE_61 := $(KIMAGE_ROOT_61)
export GACCEL_KO_61 := $(abspath $(KMOD_61))
export GACCEL_TEST_KO_61 := $(abspath $(TEST_KMOD_61))
export KDIR_OLD KDIR_NEW KVER_OLD KVER_NEW UDEV_ROOT KIMAGE_ROOT_OLD CDI_SCHEMA VULKAN_ROOT \
	KDIR_ARM64 KVER_ARM64 KIMAGE_ROOT_ARM64 DEB_ROOT KDIR_61 KVER_61 KIMAGE_ROOT_61
export GACCEL_BUILD  := $(ABS_BUILD)

GACCEL_VM := tests/vm/gaccel-vm.sh

# The main job: boot the VM with gaccel.ko and show the device.
run: deps-current tools module
	@$(GACCEL_VM) -l $(BUILD)/vm/run-console.log -b $(BUILD)/tools/gaccel-info \
		-b $(BUILD)/tools/gaccel-demo -- 'gaccel-info && echo && gaccel-demo' 

# --- make check ---------------------------------------------------------------
#
# Each suite is a small .t wrapper in $(BUILD)/check, so that one prove run
# reads them all and prints the totals at the end.

CHECK_DIR := $(BUILD)/check
STATIC_CHECKS := $(sort $(wildcard tests/check/*.t))
LIB_CHECKS := $(patsubst $(BUILD)/asan/tests/%,$(CHECK_DIR)/lib-%.t,$(asan_TESTS))
TSAN_CHECKS := $(patsubst $(BUILD)/tsan/tests/%,$(CHECK_DIR)/tsan-%.t,$(TSAN_TESTS))
A64_CHECKS := $(patsubst $(BUILD)/aarch64/tests/%,$(CHECK_DIR)/aarch64-%.t,$(aarch64_TESTS))
VM_CHECKS  := $(patsubst $(BUILD)/tests/driver/%,$(CHECK_DIR)/vm-%.t,$(filter-out %/edu_test,$(DRV_TESTS))) \
	      $(patsubst $(BUILD)/tests/driver-asan/%,$(CHECK_DIR)/vm-asan-%.t,$(DRV_ASAN_TESTS))

define check_wrapper
	@mkdir -p $(@D)
	@printf '#!/bin/sh\n# generated by mk/tests.mk\n%s\n' '$(1)' >$@
	@chmod +x $@
endef

# The library's programs run two at a time beside the other suites, under
# ASan, TSan or qemu-aarch64: each case's 30 s alarm (there to stop a hang)
# is scaled by LIB_TIMEOUT_SCALE (tests/common/test-timeout.h).
LIB_TIMEOUT_SCALE ?= 4
LIB_ENV := GACCEL_TEST_TIMEOUT_SCALE=$${GACCEL_TEST_TIMEOUT_SCALE:-$(LIB_TIMEOUT_SCALE)}

$(CHECK_DIR)/lib-%.t: mk/tests.mk
	$(call check_wrapper,$(LIB_ENV) exec $(ABS_BUILD)/asan/tests/$*)

# The CPU backend's kernels are chosen at run time, so the tests above run
# only this CPU's best ones. On x86-64 the tests of the code with SIMD paths
# run twice more under ASan: with the AVX2 kernels in place of the AVX-512
# ones (GGML_CPU_DISABLE=avx512,avx_vnni: what an AVX2-only CPU such as
# AMD's before Zen 5 runs; the AVX-VNNI GEMMs have their own cases, which
# compare them with these bit for bit; skipped where the CPU has no
# AVX-512, as the plain run is that already) and with the
# portable kernels (GGML_CPU_NO_SIMD=1: what other architectures build).
ISA_TEST_NAMES := test-cpu-ops test-cpu-ops-indexing test-cpu-ops-seq test-cpu-ops-train test-cpu-kernels \
		  test-mul-mat test-mul-mat-k test-repack test-quant-types test-quants test-cpu-graph test-backward
ISA_CHECKS :=
ifeq ($(HOST_ARCH),x86_64)
ISA_CHECKS := $(patsubst %,$(CHECK_DIR)/avx2-%.t,$(ISA_TEST_NAMES)) \
	      $(patsubst %,$(CHECK_DIR)/portable-%.t,$(ISA_TEST_NAMES))
endif
$(CHECK_DIR)/avx2-%.t: mk/tests.mk
	$(call check_wrapper,grep -qw avx512f /proc/cpuinfo || { echo "1..0 # SKIP no AVX-512 here: lib-$*.t runs the AVX2 kernels"; exit 0; }; $(LIB_ENV) GGML_CPU_DISABLE=avx512$(comma)avx_vnni exec $(ABS_BUILD)/asan/tests/$*)
$(CHECK_DIR)/portable-%.t: mk/tests.mk
	$(call check_wrapper,$(LIB_ENV) GGML_CPU_NO_SIMD=1 exec $(ABS_BUILD)/asan/tests/$*)

.PHONY: test-isa
test-isa: lib-asan $(ISA_CHECKS)
	prove --exec '' --timer $(ISA_CHECKS)
$(CHECK_DIR)/tsan-%.t: mk/tests.mk
	$(call check_wrapper,$(LIB_ENV) TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" exec $(ABS_BUILD)/tsan/tests/$*)
$(CHECK_DIR)/aarch64-%.t: mk/tests.mk
	$(call check_wrapper,$(LIB_ENV) exec qemu-aarch64 $(ABS_BUILD)/aarch64/tests/$*)
$(CHECK_DIR)/vm-%.t: mk/tests.mk
	$(call check_wrapper,exec $(abspath $(GACCEL_VM)) -q -t 600 -l $(ABS_BUILD)/vm/$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)

$(CHECK_DIR)/vm-asan-%.t: mk/tests.mk
	$(call check_wrapper,exec $(abspath $(GACCEL_VM)) -q -t 600 -l $(ABS_BUILD)/vm/asan-$*.console.log -b $(ABS_BUILD)/tests/driver-asan/$* -- $*)

$(VM_CHECKS): | $(DRV_TESTS) $(DRV_ASAN_TESTS)

# A few suites with make check's environment, nothing rebuilt first:
#   make prove T="tests/check/20-checkpatch.t build/check/vm-numerics_test.t"
.PHONY: prove
prove:
	prove --exec '' $(T)

# The edu configuration (tests/vm/edu-vm.sh: QEMU's edu device behind its
# emulated IOMMU, driven by engines/edu/gaccel_edu.ko instead of the
# reference engine): the edu suite with MSI completion, with polling, and
# with bounce buffers instead of the IOMMU; and the suites of the uAPI that
# hold for any engine.
EDU_VM     := tests/vm/edu-vm.sh
EDU_SUITES := edu_test userptr_test uapi_test
EDU_CHECKS := $(patsubst %,$(CHECK_DIR)/edu-iommu-%.t,$(EDU_SUITES)) \
	      $(CHECK_DIR)/edu-poll-edu_test.t $(CHECK_DIR)/edu-swiotlb-edu_test.t

$(CHECK_DIR)/edu-iommu-%.t: mk/tests.mk
	$(call check_wrapper,exec $(abspath $(EDU_VM)) -q -t 600 -l $(ABS_BUILD)/vm/edu-iommu-$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)
$(CHECK_DIR)/edu-poll-%.t: mk/tests.mk
	$(call check_wrapper,GACCEL_EDU_PARAMS=poll=1 exec $(abspath $(EDU_VM)) -q -t 600 -l $(ABS_BUILD)/vm/edu-poll-$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)
$(CHECK_DIR)/edu-swiotlb-%.t: mk/tests.mk
	$(call check_wrapper,GACCEL_EDU_IOMMU=0 exec $(abspath $(EDU_VM)) -q -t 600 -l $(ABS_BUILD)/vm/edu-swiotlb-$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)

$(EDU_CHECKS): | $(DRV_TESTS)

.PHONY: test-edu
test-edu: driver-tests module engine-modules $(EDU_CHECKS)
	prove --exec '' $(EDU_CHECKS)

# Quick loop for driver work: every driver suite, one VM boot each.
test-driver: driver-tests module engine-modules $(VM_CHECKS) $(EDU_CHECKS)
	prove --exec '' $(VM_CHECKS) $(EDU_CHECKS)

# Suites in the arm64 VM (Debian's arm64 kernel, qemu-system-aarch64 TCG,
# gaccel.ko on its render node): make check runs A64_VM_SUITES, make
# test-arm64 every suite.
A64_VM_SUITES ?= submit_test numerics_test
A64_VM_CHECKS := $(patsubst %,$(CHECK_DIR)/arm64-vm-%.t,$(A64_VM_SUITES))
A64_VM_ALL    := $(patsubst $(BUILD)/aarch64/tests/driver/%,$(CHECK_DIR)/arm64-vm-%.t,$(A64_DRV_TESTS))
$(CHECK_DIR)/arm64-vm-%.t: mk/tests.mk
	$(call check_wrapper,GACCEL_VM_ARCH=arm64 exec $(abspath $(GACCEL_VM)) -q -t 1200 -l $(ABS_BUILD)/vm/arm64-$*.console.log -b $(ABS_BUILD)/aarch64/tests/driver/$* -- $*)

.PHONY: test-arm64
test-arm64: driver-tests-arm64 module-arm64 $(A64_VM_ALL)
	prove --exec '' $(A64_VM_ALL)

# Suites on Debian 12's own 6.1 kernel (GACCEL_VM_KERNEL=61: render node,
# the compat probes' older branches): make check runs K61_VM_SUITES, make
# test-61 every suite but edu's (the edu engine is built for 6.12 only).
K61_VM_SUITES ?= submit_test numerics_test
K61_VM_CHECKS := $(patsubst %,$(CHECK_DIR)/k61-vm-%.t,$(K61_VM_SUITES))
K61_VM_ALL    := $(patsubst $(BUILD)/tests/driver/%,$(CHECK_DIR)/k61-vm-%.t,$(filter-out %/edu_test,$(DRV_TESTS)))
$(CHECK_DIR)/k61-vm-%.t: mk/tests.mk
	$(call check_wrapper,GACCEL_VM_KERNEL=61 exec $(abspath $(GACCEL_VM)) -q -t 600 -l $(ABS_BUILD)/vm/k61-$*.console.log -b $(ABS_BUILD)/tests/driver/$* -- $*)
$(K61_VM_ALL): | $(DRV_TESTS)

.PHONY: test-61
test-61: driver-tests module-61 $(TEST_KMOD_61) $(K61_VM_ALL)
	prove --exec '' $(K61_VM_ALL)

CHECK_DEPS := deps-current lib lib-asan lib-tsan lib-aarch64 tools driver-tests vulkan-test module engine-modules \
	      driver-tests-arm64 module-arm64 module-61 $(TEST_KMOD_61) $(KSELFTEST_H) \
	      fuzz-validator-build

# prove runs the suites CHECK_JOBS at a time (the CPUs, at most 4), in two
# groups side by side (tests/check/rules.yml): the suites that rebuild
# $(BUILD)/kmod in place and then those that boot the VM with what is
# there, one at a time; everything else beside them, longest first.
# CHECK_JOBS=1 runs them one after the other, as they are listed there.
CHECK_JOBS  ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 4 ] && n=4; echo $$n)
CHECK_RULES := tests/check/rules.yml

# The project's own checks build with -Werror (WERROR, mk/lib.mk); a plain
# `make`, a package build or `make install` leave it to the user.
check: WERROR := -Werror

ALL_CHECKS := $(STATIC_CHECKS) $(LIB_CHECKS) $(ISA_CHECKS) $(TSAN_CHECKS) $(A64_CHECKS) $(VM_CHECKS) $(EDU_CHECKS) \
	      $(A64_VM_CHECKS) $(K61_VM_CHECKS)
check: $(CHECK_DEPS) $(LIB_CHECKS) $(ISA_CHECKS) $(TSAN_CHECKS) $(A64_CHECKS) $(VM_CHECKS) $(EDU_CHECKS) $(A64_VM_CHECKS) \
	$(K61_VM_CHECKS)
	@echo "== make check: $(words $(ALL_CHECKS)) test programs, $(CHECK_JOBS) at a time =="
	HARNESS_RULESFILE=$(CHECK_RULES) prove --exec '' --timer -j$(CHECK_JOBS) $(ALL_CHECKS)
