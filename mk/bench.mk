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

BENCH_VM_MEM ?= 2048

# gaccel-bench runs the CPU backend of libggml-backend beside the device:
# linked statically like gaccel-demo.
$(BUILD)/tools/gaccel-bench: tools/gaccel-bench.c $(lib_STATIC) tests/driver/gaccel_test.h uapi/drm/gaccel_accel.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(USER_CFLAGS) -Itests/driver -Ilib/include -static -o $@ $< \
		$(lib_STATIC) -lm -lpthread -ldl 2>$@.log; \
		rc=$$?; grep -v -E "statically linked applications requires at runtime" $@.log >&2; rm -f $@.log; exit $$rc

BENCH_ARGS ?=

.PHONY: bench-driver
bench-driver: deps-current module $(BUILD)/tools/gaccel-bench
	$(GACCEL_VM) -r $(BENCH_VM_MEM) -t 1800 -l $(BUILD)/vm/bench.console.log \
		-b $(BUILD)/tools/gaccel-bench -- 'gaccel-bench $(BENCH_ARGS)'

# Fuzzers and reproducers: static, for the VM, like the driver suites.
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRCS))

$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/driver/gaccel_test.h uapi/drm/gaccel_accel.h
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
