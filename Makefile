# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel: the one entry point.
#
#   make deps     install build/test dependencies, fetch Debian's 6.12 kernels
#   make          build libggml-backend, the tools and gaccel.ko
#   make run      boot the test VM, load gaccel.ko and show the device
#   make check    every test, in TAP, read by prove
#   make check-debug  every VM suite, fuzzer and stress on a debug kernel
#
# The kernel build reads Kbuild, never this file.

# One version for the library, the module and the packages: dkms.conf's.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
BUILD   ?= build
O       := $(BUILD)

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.PHONY: all deps check run clean install install-dkms help

ABS_BUILD := $(abspath $(BUILD))

# Install locations (also compiled into the library: the backend loader
# searches LIBDIR).
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
UDEVDIR    ?= /etc/udev/rules.d
SRCDIR     ?= /usr/src
MODULESLOADDIR ?= /usr/lib/modules-load.d

# Kernel versions found by `make deps` (never written in the repository).
-include $(BUILD)/kernel/versions.mk

include mk/lib.mk
include mk/kernel.mk
include mk/tests.mk
include mk/tools.mk
include mk/bench.mk
include mk/fuzz.mk
include mk/debug.mk
include mk/docs.mk

all: lib tools module

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
# Library, headers (ggml-backend-impl.h included, for out-of-tree backends),
# tools and the udev rule. The names upstream programs link with (-lggml,
# -lggml-base, -lggml-cpu) point at the one library.
install: lib tools
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(UDEVDIR)
	install -m 644 $(lib_STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(lib_SHARED) $(DESTDIR)$(LIBDIR)/libggml-backend.so.$(VERSION)
	ln -sf libggml-backend.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libggml-backend.so.0
	for l in ggml-backend ggml ggml-base ggml-cpu; do \
		ln -sf libggml-backend.so.0 $(DESTDIR)$(LIBDIR)/lib$$l.so; done
	install -m 644 lib/include/*.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 644 udev/70-gaccel.rules $(DESTDIR)$(UDEVDIR)/

# The module sources as DKMS wants them: then `dkms install gaccel/$(VERSION)`.
install-dkms:
	install -d $(DESTDIR)$(SRCDIR)/gaccel-$(VERSION)
	tar -c --exclude=generated --exclude='*.o' --exclude='.*.cmd' Kbuild dkms.conf driver uapi lib/backends/cpu/kernels | \
		tar -x -C $(DESTDIR)$(SRCDIR)/gaccel-$(VERSION)
	install -d $(DESTDIR)$(MODULESLOADDIR)
	install -m 644 packaging/modules-load.d/gaccel.conf $(DESTDIR)$(MODULESLOADDIR)/

help:
	@sed -n '3,13p' Makefile

clean:
	rm -rf $(BUILD)/lib $(BUILD)/asan $(BUILD)/tsan $(BUILD)/aarch64 $(BUILD)/kmod \
	       $(BUILD)/tools $(BUILD)/tests $(BUILD)/check $(BUILD)/vm \
	       $(BUILD)/kmod-debug $(BUILD)/check-debug $(BUILD)/vm-debug
	rm -rf driver/generated
	find . -path ./build -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
	     -o -name '*.mod.c' -o -name '.*.cmd' -o -name 'Module.symvers' \
	     -o -name 'modules.order' \) -print0 | xargs -0 rm -f
