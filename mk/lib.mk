# SPDX-License-Identifier: MIT
#
# libggml-backend and its unit tests, in four flavours:
#   lib      release build: the static archive and the shared libraries
#            of mk/shlib.mk                                ($(BUILD)/lib)
#   asan     AddressSanitizer + UBSan, for the unit tests  ($(BUILD)/asan)
#   tsan     ThreadSanitizer, for the tests of the threads  ($(BUILD)/tsan)
#   aarch64  cross-built, tests run under qemu-user        ($(BUILD)/aarch64)
#
# Sources are found by wildcard: a new lib/*.c, lib/backends/*/*.c or
# lib/backends/*/kernels/*.c is built without touching this file.
# Per-ISA files: *-x86.c (x86-64 only, built with AVX2/FMA/F16C enabled; call
# them only after checking the CPU), *-avx512.c (x86-64, AVX2 plus
# AVX512F/BW/VL/VNNI; same rule), *-avxvnni.c (x86-64, AVX2 plus AVX-VNNI;
# same rule) and *-neon.c (AArch64 only). Files named
# *-dl.c are the entry points of a backend built as a loadable module
# (mk/shlib.mk): they are in no static archive.
# Every tests/lib/test-*.c is a unit test program printing TAP.
#
# The release flavour honours the user's CPPFLAGS, CFLAGS and LDFLAGS (after
# the project's own, so that they win) and WERROR (empty by default; the
# project's checks set -Werror, see mk/tests.mk). The sanitizer and cross
# flavours exist only for the checks: always -Werror, no user flags.

comma := ,

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

WERROR       ?=
LIB_CSTD     := -std=c11 -D_GNU_SOURCE
LIB_WARN_NOERR := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# Recursive: WERROR may be set for one target (make check).
LIB_WARN      = $(LIB_WARN_NOERR) $(WERROR)
LIB_WARN_CHECK := $(LIB_WARN_NOERR) -Werror
# ggml_version() is the upstream ggml release whose API and ABI this library
# provides (GGML_VERSION in the Makefile); ggml_commit() names gaccel's own
# version and commit.
# libdrm: the gaccel backend's DRM core calls (lib/backends/gaccel/gaccel-dev.c).
# The aarch64 flavour, linked statically, uses arm64's libdrm.a and headers,
# unpacked by make deps (LIBDRM_ARM64, build/kernel/versions.mk).
LIBDRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
LIBDRM_LIBS   := $(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm)
LIBDRM_ARM64_CFLAGS := -I$(LIBDRM_ARM64)/usr/include -I$(LIBDRM_ARM64)/usr/include/libdrm
LIBDRM_ARM64_LDFLAGS := -L$(LIBDRM_ARM64)/usr/lib/aarch64-linux-gnu
LIB_CPPFLAGS := -Ilib/include -Ilib -Ilib/backends/cpu -Iuapi $(LIBDRM_CFLAGS) -DGGML_USE_GACCEL \
                -DGGML_VERSION='"$(GGML_VERSION)"' -DGGML_COMMIT='"gaccel-$(VERSION)-g$(GIT_COMMIT)"'
LIB_LDLIBS   := $(LIBDRM_LIBS) -lm -lpthread -ldl

LIB_SRCS_ALL := $(filter-out %-dl.c,$(wildcard lib/*.c lib/backends/*/*.c lib/backends/*/kernels/*.c))
LIB_SRCS_GENERIC := $(filter-out %-x86.c %-avx512.c %-avxvnni.c %-neon.c,$(LIB_SRCS_ALL))
LIB_SRCS_x86_64  := $(LIB_SRCS_GENERIC) $(filter %-x86.c %-avx512.c %-avxvnni.c,$(LIB_SRCS_ALL))
LIB_SRCS_aarch64 := $(LIB_SRCS_GENERIC) $(filter %-neon.c,$(LIB_SRCS_ALL))

LIB_TEST_SRCS := $(wildcard tests/lib/test-*.c)
LIB_TEST_NAMES := $(notdir $(LIB_TEST_SRCS:.c=))

KSELFTEST_DIR := $(BUILD)/linux-src
KSELFTEST_H   := $(KSELFTEST_DIR)/kselftest_harness.h

$(KSELFTEST_H):
	@scripts/linux-src.sh $(KSELFTEST_DIR)

# lib_flavour(name, arch, CC, AR, CFLAGS, LDFLAGS, user CFLAGS, user LDFLAGS)
# The last two come after everything else on the command line.
define lib_flavour
$(1)_DIR     := $(BUILD)/$(1)
$(1)_OBJS    := $$(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$$(LIB_SRCS_$(2)))
$(1)_STATIC  := $(BUILD)/$(1)/libggml-backend.a
$(1)_TESTS   := $$(addprefix $(BUILD)/$(1)/tests/,$$(LIB_TEST_NAMES))

$(BUILD)/$(1)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$$(if $$(V),,@echo "  CC [$(1)] $$<";)$(3) $(5) $$(LIB_CPPFLAGS) $(7) -MMD -MP -c $$< -o $$@

$(BUILD)/$(1)/obj/%-x86.o: %-x86.c
	@mkdir -p $$(@D)
	$$(if $$(V),,@echo "  CC [$(1)] $$<";)$(3) $(5) -mavx2 -mfma -mf16c $$(LIB_CPPFLAGS) $(7) -MMD -MP -c $$< -o $$@

$(BUILD)/$(1)/obj/%-avx512.o: %-avx512.c
	@mkdir -p $$(@D)
	$$(if $$(V),,@echo "  CC [$(1)] $$<";)$(3) $(5) -mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512vnni \
		$$(LIB_CPPFLAGS) $(7) -MMD -MP -c $$< -o $$@

$(BUILD)/$(1)/obj/%-avxvnni.o: %-avxvnni.c
	@mkdir -p $$(@D)
	$$(if $$(V),,@echo "  CC [$(1)] $$<";)$(3) $(5) -mavx2 -mfma -mf16c -mavxvnni $$(LIB_CPPFLAGS) $(7) -MMD -MP -c $$< -o $$@

$$($(1)_STATIC): $$($(1)_OBJS)
	@rm -f $$@
	$$(if $$(V),,@echo "  AR [$(1)] $$@";)$(4) rcs $$@ $$^

$(BUILD)/$(1)/tests/%: tests/lib/%.c $$($(1)_STATIC) $$(KSELFTEST_H)
	@mkdir -p $$(@D) $(BUILD)/$(1)/tests-deps
	$$(if $$(V),,@echo "  CC [$(1)] $$<";)$(3) $(5) $$(LIB_CPPFLAGS) -Itests/lib -isystem $$(KSELFTEST_DIR) \
		-Wno-missing-prototypes $(7) $(6) $(8) -MMD -MP -MF $(BUILD)/$(1)/tests-deps/$$*.d -MT $$@ -o $$@ $$< \
		$$($(1)_STATIC) $$(LIB_LDLIBS)

-include $$($(1)_OBJS:.o=.d)
# the test programs' headers (tests/lib/ops-case.h, ...): an edit rebuilds them
-include $$(patsubst %,$(BUILD)/$(1)/tests-deps/%.d,$$(LIB_TEST_NAMES))
endef

HOST_ARCH := $(shell uname -m)

LIB_OPT := -O2 -g -fPIC -fvisibility=hidden
$(eval $(call lib_flavour,lib,$(HOST_ARCH),$(CC),$(AR),$(LIB_CSTD) $$(LIB_WARN) $(LIB_OPT),,$$(CPPFLAGS) $$(CFLAGS),$$(LDFLAGS)))
$(eval $(call lib_flavour,asan,$(HOST_ARCH),$(CC),$(AR),$(LIB_CSTD) $(LIB_WARN_CHECK) -O1 -g -fPIC -fvisibility=hidden \
	-fsanitize=address$(comma)undefined$(comma)float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer,-fsanitize=address$(comma)undefined))
$(eval $(call lib_flavour,tsan,$(HOST_ARCH),$(CC),$(AR),$(LIB_CSTD) $(LIB_WARN_CHECK) -O1 -g -fPIC -fvisibility=hidden \
	-fsanitize=thread -fno-omit-frame-pointer,-fsanitize=thread))
# The ThreadSanitizer flavour builds only the tests of the code that runs on
# several threads: the threadpool, the CPU backend and the scheduler.
TSAN_TEST_NAMES := test-cpu-threadpool test-cpu-graph test-cpu-ops test-cpu-ops-indexing test-cpu-ops-seq test-mul-mat \
                   test-mul-mat-k test-repack test-backend test-sched test-meta
TSAN_TESTS := $(addprefix $(BUILD)/tsan/tests/,$(TSAN_TEST_NAMES))
AARCH64_CC ?= aarch64-linux-gnu-gcc
AARCH64_AR ?= aarch64-linux-gnu-ar
$(eval $(call lib_flavour,aarch64,aarch64,$(AARCH64_CC),$(AARCH64_AR),$(LIB_CSTD) $(LIB_WARN_CHECK) $(LIB_OPT) $(LIBDRM_ARM64_CFLAGS),-static $(LIBDRM_ARM64_LDFLAGS)))


# Backend libraries that test-registry loads dynamically, next to the ASan
# test programs: $(BUILD)/asan/tests/dl/<case>/libggml-test[-<variant>].so
DLTEST_DIR  := $(BUILD)/asan/tests/dl
DLTEST_LIBS := $(DLTEST_DIR)/ok/libggml-test.so $(DLTEST_DIR)/badapi/libggml-test.so \
               $(DLTEST_DIR)/score0/libggml-test.so $(DLTEST_DIR)/multi/libggml-test-lo.so \
               $(DLTEST_DIR)/multi/libggml-test-hi.so
$(DLTEST_DIR)/badapi/libggml-test.so: DLTEST_FLAGS := -DTEST_API_VERSION=99
$(DLTEST_DIR)/score0/libggml-test.so: DLTEST_FLAGS := -DTEST_SCORE=0
$(DLTEST_DIR)/multi/libggml-test-lo.so: DLTEST_FLAGS := -DTEST_SCORE=5 -DTEST_VARIANT='"lo"'
$(DLTEST_DIR)/multi/libggml-test-hi.so: DLTEST_FLAGS := -DTEST_SCORE=10 -DTEST_VARIANT='"hi"'
$(DLTEST_LIBS): tests/lib/backend-dl-test.c lib/include/ggml-backend-impl.h lib/include/ggml-backend.h
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [dl] $@";)$(CC) $(LIB_CSTD) $(LIB_WARN_CHECK) -O1 -g -fPIC -shared -Ilib/include $(DLTEST_FLAGS) -o $@ $<
# links: the soname form (libggml-test.so.0), and a libggml-cpu.so that is
# not the CPU backend: the scan must not open it (CPU is registered).
DLTEST_LINKS := $(DLTEST_DIR)/links/libggml-test.so.0 $(DLTEST_DIR)/links/libggml-cpu.so
$(DLTEST_DIR)/links/libggml-test.so.0: $(DLTEST_DIR)/ok/libggml-test.so
	@mkdir -p $(@D) && ln -sf ../ok/libggml-test.so $@
$(DLTEST_DIR)/links/libggml-cpu.so: $(DLTEST_DIR)/score0/libggml-test.so
	@mkdir -p $(@D) && ln -sf ../score0/libggml-test.so $@
$(BUILD)/asan/tests/test-registry: | $(DLTEST_LIBS) $(DLTEST_LINKS)

.PHONY: lib lib-asan lib-tsan lib-aarch64 test-lib test-lib-tsan
lib: $(lib_STATIC) shlib
lib-asan: $(asan_STATIC) $(asan_TESTS)
lib-tsan: $(tsan_STATIC) $(TSAN_TESTS)
lib-aarch64: $(aarch64_STATIC) $(aarch64_TESTS)

# Quick loop for library work: the unit tests under ASan/UBSan only.
test-lib: $(asan_TESTS)
	prove --exec '' $(asan_TESTS)

# The same for data races: the threaded tests under ThreadSanitizer.
test-lib-tsan: $(TSAN_TESTS)
	prove --exec '' $(TSAN_TESTS)
