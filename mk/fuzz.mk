# SPDX-License-Identifier: MIT
#
# make fuzz-gguf: the GGUF parser under libFuzzer (clang), AddressSanitizer
# and UBSan, for FUZZ_SECONDS (default 60). The library is rebuilt with
# clang into $(BUILD)/fuzz-gguf (lib/gguf.c with coverage instrumentation,
# the rest only sanitized; the gaccel backend is left out: the parser does
# not reach it). The seed corpus is written at build time by
# tests/fuzz/gguf/gguf_seeds.c with the library's own writer; the growing corpus
# stays in $(BUILD)/fuzz-gguf/corpus between runs. Any crash, leak or
# timeout is saved in tests/fuzz/gguf/regress/, which test-gguf replays in
# `make check`: commit it with the fix.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=

GGUF_FUZZ_DIR  := $(BUILD)/fuzz-gguf
GGUF_FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
GGUF_FUZZ_CPPFLAGS := $(filter-out -DGGML_USE_GACCEL,$(LIB_CPPFLAGS))
GGUF_FUZZ_SRCS := $(filter-out lib/backends/gaccel/%,$(LIB_SRCS_x86_64))
GGUF_FUZZ_OBJS := $(patsubst %.c,$(GGUF_FUZZ_DIR)/obj/%.o,$(GGUF_FUZZ_SRCS))
GGUF_FUZZ_LIB  := $(GGUF_FUZZ_DIR)/libggml-backend-fuzz.a
GGUF_FUZZER    := $(GGUF_FUZZ_DIR)/gguf_fuzz
GGUF_SEEDER    := $(GGUF_FUZZ_DIR)/gguf_seeds
GGUF_REGRESS   := tests/fuzz/gguf/regress

# Other files only need to build and run under the sanitizers here: their
# warnings are gcc's job (-Werror in the lib flavours).
$(GGUF_FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(FUZZ_CC) $(LIB_CSTD) -O1 -g -w $(GGUF_FUZZ_SAN) $(GGUF_FUZZ_CPPFLAGS) \
		$(if $(filter %-x86.c,$<),-mavx2 -mfma -mf16c) \
		$(if $(filter %-avx512.c,$<),-mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512vnni) \
		$(if $(filter %-avxvnni.c,$<),-mavx2 -mfma -mf16c -mavxvnni) \
		-MMD -MP -c $< -o $@

$(GGUF_FUZZ_DIR)/obj/lib/gguf.o: lib/gguf.c
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(FUZZ_CC) $(LIB_CSTD) $(LIB_WARN) -O1 -g $(GGUF_FUZZ_SAN) \
		-fsanitize=fuzzer-no-link $(GGUF_FUZZ_CPPFLAGS) -MMD -MP -c $< -o $@

$(GGUF_FUZZ_LIB): $(GGUF_FUZZ_OBJS)
	@rm -f $@
	$(if $(V),,@echo "  AR [fuzz] $@";)$(AR) rcs $@ $^

$(GGUF_FUZZER): tests/fuzz/gguf/gguf_fuzz.c $(GGUF_FUZZ_LIB)
	$(if $(V),,@echo "  LD [fuzz] $@";)$(FUZZ_CC) $(LIB_CSTD) $(LIB_WARN) -O1 -g $(GGUF_FUZZ_SAN) -fsanitize=fuzzer \
		$(GGUF_FUZZ_CPPFLAGS) -o $@ $< $(GGUF_FUZZ_LIB) $(LIB_LDLIBS)

$(GGUF_SEEDER): tests/fuzz/gguf/gguf_seeds.c $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [fuzz] $<";)$(CC) $(LIB_CSTD) $(LIB_WARN) -O1 -g $(LIB_CPPFLAGS) -o $@ $< \
		$(lib_STATIC) $(LIB_LDLIBS)

-include $(GGUF_FUZZ_OBJS:.o=.d)

.PHONY: fuzz-gguf fuzz-gguf-build
fuzz-gguf-build: $(GGUF_FUZZER) $(GGUF_SEEDER)

fuzz-gguf: fuzz-gguf-build
	@rm -rf $(GGUF_FUZZ_DIR)/seeds
	@mkdir -p $(GGUF_FUZZ_DIR)/seeds $(GGUF_FUZZ_DIR)/corpus $(GGUF_REGRESS)
	@$(GGUF_SEEDER) $(GGUF_FUZZ_DIR)/seeds
	$(GGUF_FUZZER) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-dict=tests/fuzz/gguf/gguf.dict -artifact_prefix=$(GGUF_REGRESS)/ -print_final_stats=1 $(FUZZ_FLAGS) \
		$(GGUF_FUZZ_DIR)/corpus $(GGUF_FUZZ_DIR)/seeds

# make fuzz-gguf-cov: line and branch coverage of lib/gguf.c by the corpus
# so far (seeds and build/fuzz-gguf/corpus), from a source-based coverage
# build of the same target, reported by llvm-cov per function.
GGUF_COV_DIR := $(GGUF_FUZZ_DIR)/cov
GGUF_COV_BIN := $(GGUF_COV_DIR)/gguf_fuzz_cov

$(GGUF_COV_BIN): tests/fuzz/gguf/gguf_fuzz.c lib/gguf.c $(GGUF_FUZZ_LIB)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  LD [fuzz-cov] $@";)$(FUZZ_CC) $(LIB_CSTD) -O1 -g $(GGUF_FUZZ_SAN) -fsanitize=fuzzer \
		-fprofile-instr-generate -fcoverage-mapping $(GGUF_FUZZ_CPPFLAGS) -o $@ tests/fuzz/gguf/gguf_fuzz.c \
		lib/gguf.c $(filter-out %/lib/gguf.o,$(GGUF_FUZZ_OBJS)) $(LIB_LDLIBS)

.PHONY: fuzz-gguf-cov
fuzz-gguf-cov: $(GGUF_COV_BIN) $(GGUF_SEEDER)
	@rm -rf $(GGUF_FUZZ_DIR)/seeds $(GGUF_COV_DIR)/*.profraw
	@mkdir -p $(GGUF_FUZZ_DIR)/seeds $(GGUF_FUZZ_DIR)/corpus
	@$(GGUF_SEEDER) $(GGUF_FUZZ_DIR)/seeds >/dev/null
	@LLVM_PROFILE_FILE=$(GGUF_COV_DIR)/run.profraw $(GGUF_COV_BIN) -runs=0 \
		$(GGUF_FUZZ_DIR)/corpus $(GGUF_FUZZ_DIR)/seeds 2>&1 | grep -E '^#[0-9]+.*(INITED|DONE)' || true
	@llvm-profdata merge -sparse -o $(GGUF_COV_DIR)/run.profdata $(GGUF_COV_DIR)/run.profraw
	@llvm-cov report $(GGUF_COV_BIN) -instr-profile=$(GGUF_COV_DIR)/run.profdata -show-functions lib/gguf.c
