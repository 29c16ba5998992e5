# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmarks, fuzzing and stress of gaccel.ko, run in the test VM. None of
# them is part of `make check` (they are long); see Documentation/testing.rst.
#
#   make bench-driver   tools/gaccel-bench: job latency, userptr, MUL_MAT
#   make fuzz           tests/fuzz/graph_fuzz: seeded random GRAPH_CREATE/SUBMIT
#                       (FUZZ_SECONDS=60 FUZZ_SEED=<n> FUZZ_ARGS=...)
#   make stress         tests/fuzz/stress: racing threads on shared files
#                       (STRESS_SECONDS=60 STRESS_ARGS=...)
#   make fuzz-validator tests/fuzz/validator: libFuzzer on the graph validator,
#                       in userspace (FUZZ_SECONDS=60 FUZZ_VALIDATOR_ARGS=...)
#   make bench-sections the reference engine's FPU sections timed natively
#   make bench-engine-mm the reference engine's MUL_MAT natively against the
#                       CPU backend's, one thread each (BENCH_ARGS=-t q8_0 -n 1)

BENCH_VM_MEM ?= 2048

# gaccel-bench runs the CPU backend of libggml-backend beside the device:
# linked statically like gaccel-demo.
$(BUILD)/tools/gaccel-bench: tools/gaccel-bench.c tools/weights-io.c tools/weights-io.h $(lib_STATIC) \
		tests/driver/gaccel_test.h tests/common/test-timeout.h uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -Ilib/include -static -o $@ $< \
		tools/weights-io.c $(lib_STATIC) $(LIBDRM_LIBS) -luring -lm -lpthread -ldl 2>$@.log; \
		rc=$$?; grep -v -E "statically linked applications requires at runtime" $@.log >&2; rm -f $@.log; exit $$rc

BENCH_ARGS ?=

# The MUL_MAT cases are single jobs of up to 369 M multiply-adds: under
# emulation some take longer than the default job timeout.
#
# BENCH_ICOUNT=1: QEMU's -icount (the guest clock advances one nanosecond
# per instruction run), one vCPU's work at a time: one engine worker against
# one CPU backend thread, so the figures count instructions, the same
# whatever else runs on the host.
BENCH_ICOUNT ?=
bench-driver: BENCH_VM_ARGS := $(if $(BENCH_ICOUNT),-Q "-icount shift=0$(comma)sleep=off")
bench-driver: BENCH_PARAMS := job_timeout_ms=600000$(if $(BENCH_ICOUNT), workers=1)
bench-driver: BENCH_RUN_ARGS := $(if $(BENCH_ICOUNT),-t 1 )$(BENCH_ARGS)
.PHONY: bench-driver
bench-driver: deps-current module $(BUILD)/tools/gaccel-bench
	GACCEL_MODULE_PARAMS="$(BENCH_PARAMS)" \
	$(GACCEL_VM) -r $(BENCH_VM_MEM) -t 3600 $(BENCH_VM_ARGS) -l $(BUILD)/vm/bench.console.log \
		-b $(BUILD)/tools/gaccel-bench -- 'gaccel-bench $(BENCH_RUN_ARGS)'

# Fuzzers and reproducers: static, for the VM, like the driver suites.
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRCS))

$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/driver/gaccel_test.h tests/common/test-timeout.h uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [vm] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -static -o $@ $< -lm

FUZZ_SECONDS ?= 60
FUZZ_SEED    ?=
FUZZ_ARGS    ?=

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: deps-current module $(BUILD)/tests/fuzz/graph_fuzz
	$(GACCEL_VM) -t $$(( $(FUZZ_SECONDS) + 600 )) -l $(BUILD)/vm/fuzz.console.log \
		-b $(BUILD)/tests/fuzz/graph_fuzz -- \
		'graph_fuzz -t $(FUZZ_SECONDS) $(if $(FUZZ_SEED),-s $(FUZZ_SEED)) $(FUZZ_ARGS)'

# --- the graph validator under libFuzzer, in userspace ---------------------
#
# The driver's own gaccel_graph.c, gaccel_ref_node.c and gaccel_ref_fpu.c
# (with the CPU kernels they include), built against the kernel-API shims
# of tests/fuzz/validator/shim with clang's libFuzzer, ASan and UBSan. The
# corpus grows in $(BUILD)/fuzz-validator/corpus; crashes land in
# $(BUILD)/fuzz-validator/crashes/ and belong, once fixed, in
# tests/fuzz/validator/regress/ (replayed by tests/check/25-fuzz-validator.t).

FUZZ_CC   ?= clang
FV_DIR    := tests/fuzz/validator
FV_OUT    := $(BUILD)/fuzz-validator
FV_BIN    := $(FV_OUT)/fuzz_validator
FV_SEEDS  := $(FV_OUT)/seeds
FV_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FV_CFLAGS := -std=gnu11 -g -O1 -Werror $(FV_SAN) -fsanitize=fuzzer-no-link -fno-math-errno -fwrapv \
	     -DCONFIG_X86_64 -I$(FV_DIR)/shim -I$(FV_DIR) -Idriver -Iuapi -I/usr/include/libdrm \
	     -Ilib/backends/cpu/kernels
FV_KERNELS := lib/backends/cpu/kernels
FV_DRIVER := driver/gaccel_graph.c driver/gaccel_ref_node.c driver/gaccel_ref_fpu.c
FV_AVX2   := vec-x86 quant-x86 quant-q8x-x86 quant-gemm-x86 convert-x86
FV_OBJS   := $(FV_OUT)/fuzz_validator.o $(patsubst driver/%.c,$(FV_OUT)/%.o,$(FV_DRIVER)) \
	     $(patsubst %,$(FV_OUT)/%.o,$(FV_AVX2))
FV_DEPS   := $(wildcard $(FV_DIR)/*.h $(FV_DIR)/shim/*.h $(FV_DIR)/shim/*/*.h driver/*.h \
	     $(FV_KERNELS)/*.h $(FV_KERNELS)/vec.c $(FV_KERNELS)/quant.c) uapi/drm/gaccel_accel.h

# The harness: all warnings. The driver: the kernel's (-Wall) as kbuild
# builds it. The AVX2 kernels: as Kbuild builds them. -fwrapv: signed
# overflow wraps, as in the kernel (-fno-strict-overflow).
$(FV_OUT)/fuzz_validator.o: $(FV_DIR)/fuzz_validator.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(FUZZ_CC) $(FV_CFLAGS) -Wall -Wextra -c -o $@ $<
$(FV_OUT)/%.o: driver/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(FUZZ_CC) $(FV_CFLAGS) -Wall -c -o $@ $<
$(FV_OUT)/%.o: $(FV_KERNELS)/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(FUZZ_CC) $(FV_CFLAGS) -Wall -Wno-unused-function \
		-mavx2 -mfma -mf16c -ffp-contract=off -c -o $@ $<
$(FV_BIN): $(FV_OBJS)
	$(if $(V),,@echo "  LD [fuzz] $@";)$(FUZZ_CC) $(FV_SAN) -fsanitize=fuzzer -o $@ $(FV_OBJS) -lm

# The seed corpus: valid graphs written by mkseeds.
$(FV_OUT)/mkseeds: $(FV_DIR)/mkseeds.c $(FV_DIR)/fuzz_input.h tests/driver/gaccel_test.h tests/common/test-timeout.h uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -o $@ $<
$(FV_SEEDS)/.stamp: $(FV_OUT)/mkseeds
	@rm -rf $(FV_SEEDS) && mkdir -p $(FV_SEEDS)
	@$(FV_OUT)/mkseeds $(FV_SEEDS) >/dev/null
	@touch $@

# The same driver files, -O2 and without sanitizers, timing each FPU
# section of worst-case nodes natively: make bench-sections.
FV_BOUT   := $(FV_OUT)/bench
FV_BFLAGS := -std=gnu11 -g -O2 -Werror -fno-math-errno -fwrapv -DCONFIG_X86_64 \
	     -I$(FV_DIR)/shim -I$(FV_DIR) -Idriver -Iuapi -I/usr/include/libdrm -I$(FV_KERNELS)
FV_BOBJS  := $(FV_BOUT)/section_bench.o $(FV_BOUT)/host_stubs.o $(patsubst driver/%.c,$(FV_BOUT)/%.o,$(FV_DRIVER)) \
	     $(patsubst %,$(FV_BOUT)/%.o,$(FV_AVX2))

$(FV_BOUT)/section_bench.o $(FV_BOUT)/host_stubs.o: $(FV_BOUT)/%.o: $(FV_DIR)/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(FUZZ_CC) $(FV_BFLAGS) -Wall -Wextra -c -o $@ $<
$(FV_BOUT)/%.o: driver/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(FUZZ_CC) $(FV_BFLAGS) -Wall -c -o $@ $<
$(FV_BOUT)/%.o: $(FV_KERNELS)/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(FUZZ_CC) $(FV_BFLAGS) -Wall -Wno-unused-function \
		-mavx2 -mfma -mf16c -ffp-contract=off -c -o $@ $<
$(FV_BOUT)/section_bench: $(FV_BOBJS)
	$(if $(V),,@echo "  LD [bench] $@";)$(FUZZ_CC) -o $@ $(FV_BOBJS) -lm

.PHONY: bench-sections
bench-sections: $(FV_BOUT)/section_bench
	$(FV_BOUT)/section_bench

# The reference engine's MUL_MAT natively against the CPU backend's, one
# thread each, same data (tools/engine-mm-bench.c): the driver files and the
# AVX2 kernels built as Kbuild builds them (gcc, -O2, -ffp-contract=off),
# linked with the shared libggml-cpu and libggml-base (mk/shlib.mk), whose
# kernels are their own, hidden.
EMM_OUT   := $(BUILD)/engine-mm-bench
EMM_FLAGS := -std=gnu11 -g -O2 -Werror -fno-math-errno -fwrapv -DCONFIG_X86_64 \
	     -I$(FV_DIR)/shim -I$(FV_DIR) -Idriver -Iuapi -I/usr/include/libdrm -I$(FV_KERNELS)
EMM_OBJS  := $(EMM_OUT)/engine-mm-bench.o $(EMM_OUT)/host_stubs.o \
	     $(patsubst driver/%.c,$(EMM_OUT)/%.o,$(FV_DRIVER)) $(patsubst %,$(EMM_OUT)/%.o,$(FV_AVX2))

$(EMM_OUT)/engine-mm-bench.o: tools/engine-mm-bench.c $(FV_DEPS) lib/include/ggml.h lib/include/ggml-cpu.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(CC) $(EMM_FLAGS) -Ilib/include -Wall -Wextra -c -o $@ $<
$(EMM_OUT)/host_stubs.o: $(FV_DIR)/host_stubs.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(CC) $(EMM_FLAGS) -Wall -Wextra -c -o $@ $<
$(EMM_OUT)/%.o: driver/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(CC) $(EMM_FLAGS) -Wall -c -o $@ $<
$(EMM_OUT)/%.o: $(FV_KERNELS)/%.c $(FV_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [bench] $<";)$(CC) $(EMM_FLAGS) -Wall -Wno-unused-function \
		-mavx2 -mfma -mf16c -ffp-contract=off -c -o $@ $<
$(EMM_OUT)/engine-mm-bench: $(EMM_OBJS) $(call shlib_file,cpu) $(call shlib_file,base)
	$(if $(V),,@echo "  LD [bench] $@";)$(CC) -o $@ $(EMM_OBJS) -L$(BUILD)/lib -lggml-cpu -lggml-base \
		-Wl,-rpath,$(abspath $(BUILD)/lib) -lm

.PHONY: bench-engine-mm
bench-engine-mm: $(EMM_OUT)/engine-mm-bench
	$(EMM_OUT)/engine-mm-bench $(BENCH_ARGS)

FUZZ_VALIDATOR_ARGS ?=

.PHONY: fuzz-validator fuzz-validator-build
fuzz-validator-build: $(FV_BIN) $(FV_SEEDS)/.stamp
fuzz-validator: fuzz-validator-build
	@mkdir -p $(FV_OUT)/corpus $(FV_OUT)/crashes
	$(FV_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -dict=$(FV_DIR)/validator.dict \
		-artifact_prefix=$(FV_OUT)/crashes/ $(FUZZ_VALIDATOR_ARGS) \
		$(FV_OUT)/corpus $(FV_SEEDS) $(FV_DIR)/regress

STRESS_SECONDS ?= 60
STRESS_ARGS    ?=

.PHONY: stress
stress: deps-current module $(BUILD)/tests/fuzz/stress
	$(GACCEL_VM) -t $$(( $(STRESS_SECONDS) + 600 )) -l $(BUILD)/vm/stress.console.log \
		-b $(BUILD)/tests/fuzz/stress -- 'stress -t $(STRESS_SECONDS) $(STRESS_ARGS)'

# CPU backend benchmark (tools/bench-ops.c): measures the machine's FMA
# peak and read bandwidth, then MUL_MAT and other ops against them.
$(BUILD)/tools/bench-ops: tools/bench-ops.c tools/bench-limits.h $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(LIB_CSTD) $(LIB_WARN) -O2 -g -Ilib/include -o $@ $< $(lib_STATIC) $(LIB_LDLIBS)

.PHONY: bench-ops
bench-ops: $(BUILD)/tools/bench-ops
	$(BUILD)/tools/bench-ops $(BENCH_OPS_ARGS)

# One llama-style layer at decode and prefill (tools/bench-layer.c);
# BENCH_LAYER_ARGS=--contend adds a competing CPU-bound process.
$(BUILD)/tools/bench-layer: tools/bench-layer.c tools/bench-limits.h $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(LIB_CSTD) $(LIB_WARN) -O2 -g -Ilib/include -o $@ $< $(lib_STATIC) $(LIB_LDLIBS)

.PHONY: bench-layer
bench-layer: $(BUILD)/tools/bench-layer
	$(BUILD)/tools/bench-layer $(BENCH_LAYER_ARGS)

# Loading a weights file into a buffer object three ways (gaccel-bench -L):
# the file (LOAD_MIB of random bytes) on an ext4 disk image attached to the
# VM, so that O_DIRECT and cold page-cache reads are real.
LOAD_MIB ?= 256
LOAD_IMG := $(BUILD)/vm/load-disk.img

.PHONY: bench-load
bench-load: deps-current module $(BUILD)/tools/gaccel-bench
	@mkdir -p $(BUILD)/vm/load-disk
	@head -c $$(( $(LOAD_MIB) * 1048576 )) /dev/urandom >$(BUILD)/vm/load-disk/weights
	@rm -f $(LOAD_IMG)
	/usr/sbin/mkfs.ext4 -q -F -d $(BUILD)/vm/load-disk $(LOAD_IMG) $$(( $(LOAD_MIB) + 64 ))M
	@rm -rf $(BUILD)/vm/load-disk
	$(GACCEL_VM) -r $$(( $(LOAD_MIB) * 3 + 768 )) -t 1800 -d $(abspath $(LOAD_IMG)) \
		-l $(BUILD)/vm/bench-load.console.log \
		-b $(BUILD)/tools/gaccel-bench -- 'gaccel-bench -L /mnt/weights $(BENCH_ARGS)'
	@rm -f $(LOAD_IMG)

# The same two benchmarks side by side with an upstream ggml build, given
# at run time (never vendored, never needed by anything else):
#   make bench-upstream UPSTREAM=/path/to/ggml/build \
#        BENCH_UPSTREAM_ARGS="layer -T q8_0,q4_0,q4_K -c 1:512,128:0 -t 2"
# tools/bench-upstream.sh compiles the source against upstream's headers and
# libraries and alternates the two programs (BENCH_UPSTREAM_ROUNDS rounds);
# BENCH_UPSTREAM_BEFORE=<git revision> adds this library at that revision;
# BENCH_UPSTREAM_FINE=1 rotates the programs per type and case (-f).
BENCH_UPSTREAM_ROUNDS ?= 5
BENCH_UPSTREAM_BEFORE ?=
BENCH_UPSTREAM_FINE   ?=
BENCH_UPSTREAM_ARGS   ?= layer -T q8_0,q4_0,q4_K -c 1:512,128:0 -t 2

.PHONY: bench-upstream
bench-upstream: $(BUILD)/tools/bench-layer $(BUILD)/tools/bench-ops
	@test -n "$(UPSTREAM)" || { echo "UPSTREAM=<an upstream ggml build directory> is needed"; exit 2; }
	BUILD=$(BUILD) sh tools/bench-upstream.sh -r $(BENCH_UPSTREAM_ROUNDS) \
		$(if $(BENCH_UPSTREAM_BEFORE),-b $(BENCH_UPSTREAM_BEFORE)) $(if $(BENCH_UPSTREAM_FINE),-f) \
		$(UPSTREAM) $(BENCH_UPSTREAM_ARGS)
