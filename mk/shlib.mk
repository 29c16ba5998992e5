# SPDX-License-Identifier: MIT
#
# The shared libraries, split and named as upstream ggml names its own, so
# that a program built against upstream ggml runs against them, and the
# files that let other build systems find them (ggml.pc, the CMake package).
# Built from the objects of the release flavour (mk/lib.mk) into $(BUILD)/lib:
#
#   libggml-base.so.0    tensors, ops, graphs, quantization, buffers, the
#                        backend interface, the scheduler, GGUF, ggml-opt
#   libggml-cpu.so.0     the CPU backend (needs libggml-base); also a module
#   libggml.so.0         the backend registry and loader (needs both above;
#                        the CPU backend is built in, as upstream's default)
#   libggml-gaccel.so.0  the gaccel backend, a module that ggml_backend_load_all()
#                        (gaccel's or upstream's GGML_BACKEND_DL loader) loads;
#                        programs may also link it for ggml-gaccel.h
#
# Each is libNAME.so.$(GGML_VERSION) with the soname libNAME.so.$(GGML_SOVERSION)
# and the libNAME.so link. The shared CPU kernels
# (lib/backends/cpu/kernels) and the CPU feature detection are private to
# each library that uses them: libggml-base's quantization and conversions,
# and libggml-cpu. The static archive libggml-backend.a holds everything
# once, the gaccel backend built in; the tests and the VM's programs use it.

# GGML_VERSION (the Makefile) is the upstream ggml release whose API and ABI
# these libraries provide; its major number is the sonames'.
GGML_SOVERSION := $(firstword $(subst ., ,$(GGML_VERSION)))

SHLIB_OBJ := $(BUILD)/lib/obj
SHLIB_CPU_SHARED := $(SHLIB_OBJ)/lib/backends/cpu/cpu-isa.o $(SHLIB_OBJ)/lib/backends/cpu/cpu-convert.o
SHLIB_KERNELS    := $(filter $(SHLIB_OBJ)/lib/backends/cpu/kernels/%,$(lib_OBJS))
SHLIB_REG        := $(SHLIB_OBJ)/lib/ggml-backend-reg.o

SHLIB_base_OBJS   := $(filter-out $(SHLIB_OBJ)/lib/backends/% $(SHLIB_REG),$(lib_OBJS)) \
		     $(SHLIB_KERNELS) $(SHLIB_CPU_SHARED)
SHLIB_cpu_OBJS    := $(filter $(SHLIB_OBJ)/lib/backends/cpu/%,$(lib_OBJS)) $(SHLIB_OBJ)/lib/backends/cpu/cpu-dl.o
SHLIB_gaccel_OBJS := $(filter $(SHLIB_OBJ)/lib/backends/gaccel/%,$(lib_OBJS)) \
		     $(SHLIB_OBJ)/lib/backends/gaccel/gaccel-dl.o
SHLIB_ggml_OBJS   := $(SHLIB_OBJ)/dl/ggml-backend-reg.o

SHLIB_base_LIBS   := -lm -lpthread
SHLIB_cpu_LIBS    := $(BUILD)/lib/libggml-base.so -lm -lpthread
SHLIB_ggml_LIBS   := $(BUILD)/lib/libggml-cpu.so $(BUILD)/lib/libggml-base.so -ldl -lpthread
SHLIB_gaccel_LIBS := $(BUILD)/lib/libggml.so $(BUILD)/lib/libggml-base.so $(LIBDRM_LIBS) -lm -lpthread

SHLIB_NAMES := base cpu ggml gaccel
shlib_file   = $(BUILD)/lib/lib$(if $(filter ggml,$(1)),ggml,ggml-$(1)).so
SHLIBS      := $(foreach n,$(SHLIB_NAMES),$(call shlib_file,$(n)))

# The registry of the shared libggml: the CPU backend built in, every other
# backend a module; the static archive's has the gaccel backend built in.
$(SHLIB_OBJ)/dl/ggml-backend-reg.o: lib/ggml-backend-reg.c
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [lib] $< (shared)";)$(CC) $(LIB_CSTD) $(LIB_WARN) $(LIB_OPT) \
		$(filter-out -DGGML_USE_GACCEL,$(LIB_CPPFLAGS)) -DGGML_BACKEND_DL $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The entry points of the modules (ggml_backend_init, ggml_backend_score).
$(SHLIB_OBJ)/lib/backends/%-dl.o: lib/backends/%-dl.c
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [lib] $<";)$(CC) $(LIB_CSTD) $(LIB_WARN) $(LIB_OPT) $(LIB_CPPFLAGS) \
		-DGGML_BACKEND_DL $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(SHLIB_OBJ)/dl/ggml-backend-reg.d $(SHLIB_OBJ)/lib/backends/cpu/cpu-dl.d \
	$(SHLIB_OBJ)/lib/backends/gaccel/gaccel-dl.d

# shlib(name): lib<name>.so.$(GGML_VERSION), its soname link and its link.
define shlib
$(call shlib_file,$(1)).$(GGML_VERSION): $$(SHLIB_$(1)_OBJS) $$(filter $(BUILD)/%,$$(SHLIB_$(1)_LIBS))
	$$(if $$(V),,@echo "  LD [lib] $$@";)$$(CC) $$(LIB_OPT) $$(CFLAGS) -shared \
		-Wl,-soname,$(notdir $(call shlib_file,$(1))).$(GGML_SOVERSION) -Wl,--no-undefined -Wl,--as-needed \
		$$(LDFLAGS) -o $$@ $$(SHLIB_$(1)_OBJS) $$(SHLIB_$(1)_LIBS)

$(call shlib_file,$(1)): $(call shlib_file,$(1)).$(GGML_VERSION)
	@ln -sf $(notdir $(call shlib_file,$(1))).$(GGML_VERSION) $$@.$(GGML_SOVERSION)
	@ln -sf $(notdir $(call shlib_file,$(1))).$(GGML_SOVERSION) $$@
endef
$(foreach n,$(SHLIB_NAMES),$(eval $(call shlib,$(n))))

.PHONY: shlib
shlib: $(SHLIBS) $(BUILD)/lib/pkgconfig/ggml.pc $(BUILD)/lib/cmake/ggml/ggml-config.cmake \
	$(BUILD)/lib/cmake/ggml/ggml-config-version.cmake

# --- ggml.pc and the CMake package -----------------------------------------
#
# Written for PREFIX/LIBDIR/INCLUDEDIR, again whenever one of them changes
# (`make PREFIX=/usr install` after `make`); `make install` installs these.
# The CMake files find the libraries relative to their own location, so an
# installed tree may move.

SHLIB_DIRS := $(BUILD)/lib/install-dirs
SHLIB_DIRS_NOW = $(PREFIX) $(LIBDIR) $(INCLUDEDIR)
.PHONY: FORCE
$(SHLIB_DIRS): FORCE
	@mkdir -p $(@D)
	@echo '$(SHLIB_DIRS_NOW)' | cmp -s - $@ || echo '$(SHLIB_DIRS_NOW)' >$@

$(BUILD)/lib/pkgconfig/ggml.pc: packaging/ggml.pc.in Makefile mk/shlib.mk $(SHLIB_DIRS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  GEN     $@";)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@GGML_VERSION@|$(GGML_VERSION)|g' \
		-e 's|@VERSION@|$(VERSION)|g' $< >$@

$(BUILD)/lib/cmake/ggml/ggml-config.cmake: packaging/ggml-config.cmake.in Makefile mk/shlib.mk $(SHLIB_DIRS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  GEN     $@";)rel=$$(realpath -m --relative-to=$(LIBDIR)/cmake/ggml $(INCLUDEDIR)); \
		librel=$$(realpath -m --relative-to=$(LIBDIR)/cmake/ggml $(LIBDIR)); \
		sed -e "s|@INCLUDE_REL@|$$rel|g" -e "s|@LIB_REL@|$$librel|g" -e 's|@GGML_VERSION@|$(GGML_VERSION)|g' \
		-e 's|@GGML_SOVERSION@|$(GGML_SOVERSION)|g' -e 's|@VERSION@|$(VERSION)|g' $< >$@

$(BUILD)/lib/cmake/ggml/ggml-config-version.cmake: packaging/ggml-config-version.cmake.in Makefile mk/shlib.mk
	@mkdir -p $(@D)
	$(if $(V),,@echo "  GEN     $@";)sed -e 's|@GGML_VERSION@|$(GGML_VERSION)|g' \
		-e 's|@GGML_SOVERSION@|$(GGML_SOVERSION)|g' $< >$@

# --- upstream ggml's loader and gaccel's module ----------------------------
#
# make upstream-loader UPSTREAM_GGML=<ggml v0.21.0 source tree> [VM=1]:
# tests/compat/upstream-loader.sh (not part of make check: it needs
# upstream's sources, which the project does not download).

.PHONY: upstream-loader
upstream-loader: $(call shlib_file,gaccel) $(if $(VM),deps-current module)
	@test -n "$(UPSTREAM_GGML)" || { echo "UPSTREAM_GGML=<ggml v0.21.0 source dir> is needed" >&2; exit 1; }
	tests/compat/upstream-loader.sh $(abspath $(UPSTREAM_GGML)) $(if $(VM),--vm)

# --- upstream ggml's tests against the project -----------------------------
#
# make upstream-tests UPSTREAM_GGML=<ggml v0.21.0 source tree>
#      [UPSTREAM_TESTS='build' | 'small' | 'ops test CPU 2' | 'vm test ADD,MUL']:
# tests/compat/upstream-tests/suite.sh (by hand, not part of make check);
# `vm` needs the module and the kernel (make deps).

.PHONY: upstream-tests
upstream-tests: $(lib_STATIC) $(if $(filter vm%,$(UPSTREAM_TESTS)),deps-current module)
	@test -n "$(UPSTREAM_GGML)" || { echo "UPSTREAM_GGML=<ggml v0.21.0 source dir> is needed" >&2; exit 1; }
	tests/compat/upstream-tests/suite.sh $(abspath $(UPSTREAM_GGML)) $(or $(UPSTREAM_TESTS),build)
