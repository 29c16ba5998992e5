# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel: the one entry point.
#
#   make deps     install build/test dependencies, fetch Debian's 6.12 kernels
#                 and Debian 12's own 6.1
#   make          build the libraries, the tools and gaccel.ko
#   make install  libraries, headers, ggml.pc, CMake package, tools
#                 (PREFIX, LIBDIR, DESTDIR; CPPFLAGS/CFLAGS/LDFLAGS honoured)
#   make run      boot the test VM, load gaccel.ko and show the device
#   make check    every test, in TAP, read by prove
#   make check-debug  every VM suite, fuzzer and stress on a debug kernel
#   make test-61  every driver suite on Debian 12's 6.1 kernel
#
# The kernel build reads Kbuild, never this file.

# gaccel's version (the module, the packages, ggml_commit()): dkms.conf's.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
# The upstream ggml release whose API and ABI libggml-backend provides:
# ggml_version(), the library file names and sonames, ggml.pc, the CMake
# package (mk/shlib.mk). Documentation/userspace-api.rst says what it promises.
GGML_VERSION := 0.21.0
BUILD   ?= build
O       := $(BUILD)

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.PHONY: all deps check run clean install install-dkms help

ABS_BUILD := $(abspath $(BUILD))

# Install locations. LIBDIR is Debian's multiarch directory
# (/usr/lib/x86_64-linux-gnu) when installing into /usr, PREFIX/lib otherwise.
# Nothing of them is compiled in: the backend loader finds the modules
# beside libggml.so.0, wherever it is.
PREFIX     ?= /usr/local
MULTIARCH  ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch 2>/dev/null)
LIBDIR     ?= $(if $(and $(filter /usr,$(patsubst %/,%,$(PREFIX))),$(MULTIARCH)),$(PREFIX)/lib/$(MULTIARCH),$(PREFIX)/lib)
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
UDEVDIR    ?= /etc/udev/rules.d
SRCDIR     ?= /usr/src
MODULESLOADDIR ?= /usr/lib/modules-load.d

# Kernel versions found by `make deps` (never written in the repository).
-include $(BUILD)/kernel/versions.mk

# Before `make deps` there are no kernel headers to build gaccel.ko against:
# say so, rather than fail on a file name with an empty kernel version.
ifeq ($(KVER_NEW),)
ifneq ($(filter all module module-61 test-61 run check check-debug test-driver test-edu engine-modules,$(or $(MAKECMDGOALS),all)),)
$(error no kernel headers yet: run 'make deps' first (build dependencies and Debian's 6.12 kernels); 'make lib bin' builds the userspace alone)
endif
endif

include mk/lib.mk
include mk/shlib.mk
include mk/kernel.mk
include mk/tests.mk
include mk/tools.mk
include mk/bench.mk
include mk/fuzz.mk
include mk/debug.mk
include mk/docs.mk
include mk/deb.mk

all: lib tools bin module

# The kernels and tools make deps fetched must match what scripts/deps.sh
# fetches now.
.PHONY: deps-current
deps-current:
	@test -f $(BUILD)/kernel/versions.mk || { echo "run 'make deps' first" >&2; exit 1; }
	@test $(BUILD)/kernel/versions.mk -nt scripts/deps.sh || \
		{ echo "scripts/deps.sh changed since 'make deps' ran: run 'make deps' again" >&2; exit 1; }

deps:
	@scripts/deps.sh $(BUILD)

# --- install ---------------------------------------------------------------
# The shared libraries with their soname links and development links, the
# public headers (ggml-backend-impl.h included, for out-of-tree backends),
# ggml.pc, the CMake package, the tools (dynamically linked) and the udev
# rule. DESTDIR is honoured; nothing static is installed.
install: lib bin
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/ggml $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(UDEVDIR)
	for l in $(notdir $(SHLIBS)); do \
		install -m 644 $(BUILD)/lib/$$l.$(GGML_VERSION) $(DESTDIR)$(LIBDIR)/ && \
		ln -sf $$l.$(GGML_VERSION) $(DESTDIR)$(LIBDIR)/$$l.$(GGML_SOVERSION) && \
		ln -sf $$l.$(GGML_SOVERSION) $(DESTDIR)$(LIBDIR)/$$l || exit 1; done
	install -m 644 $(BUILD)/lib/pkgconfig/ggml.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 $(BUILD)/lib/cmake/ggml/ggml-config.cmake $(BUILD)/lib/cmake/ggml/ggml-config-version.cmake \
		$(DESTDIR)$(LIBDIR)/cmake/ggml/
	install -m 644 lib/include/*.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(INSTALL_TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 644 udev/70-gaccel.rules $(DESTDIR)$(UDEVDIR)/

# The module sources as DKMS wants them: then `dkms install gaccel/$(VERSION)`.
install-dkms:
	install -d $(DESTDIR)$(SRCDIR)/gaccel-$(VERSION)
	tar -c --exclude=generated --exclude='*.o' --exclude='.*.cmd' Kbuild dkms.conf driver uapi lib/backends/cpu/kernels | \
		tar -x -C $(DESTDIR)$(SRCDIR)/gaccel-$(VERSION)
	install -d $(DESTDIR)$(MODULESLOADDIR)
	install -m 644 packaging/modules-load.d/gaccel.conf $(DESTDIR)$(MODULESLOADDIR)/

help:
	@sed -n '3,17p' Makefile

clean:
	rm -rf $(BUILD)/lib $(BUILD)/asan $(BUILD)/tsan $(BUILD)/aarch64 $(BUILD)/kmod \
	       $(BUILD)/tools $(BUILD)/tests $(BUILD)/check $(BUILD)/vm \
	       $(BUILD)/kmod-debug $(BUILD)/check-debug $(BUILD)/vm-debug
	rm -rf driver/generated
	find . -path ./build -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
	     -o -name '*.mod.c' -o -name '.*.cmd' -o -name 'Module.symvers' \
	     -o -name 'modules.order' \) -print0 | xargs -0 rm -f
