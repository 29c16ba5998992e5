# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# gaccel: the one entry point.
#
#   make deps     install build/test dependencies, fetch Debian's 6.12 kernels
#   make          build libggml-backend, the tools and gaccel.ko
#   make run      boot the test VM, load gaccel.ko and show the device
#   make check    every test, in TAP, read by prove
#
# The kernel build reads Kbuild, never this file.

VERSION := 0.1.0
BUILD   ?= build
O       := $(BUILD)

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.PHONY: all deps check run clean install help

ABS_BUILD := $(abspath $(BUILD))

# Kernel versions found by `make deps` (never written in the repository).
-include $(BUILD)/kernel/versions.mk

include mk/lib.mk
include mk/kernel.mk
include mk/tests.mk

all: lib tools module

deps:
	@scripts/deps.sh $(BUILD)

help:
	@sed -n '3,12p' Makefile

clean:
	rm -rf $(BUILD)/lib $(BUILD)/asan $(BUILD)/aarch64 $(BUILD)/kmod \
	       $(BUILD)/tools $(BUILD)/tests $(BUILD)/check $(BUILD)/vm
	rm -rf driver/generated
	find . -path ./build -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
	     -o -name '*.mod.c' -o -name '.*.cmd' -o -name 'Module.symvers' \
	     -o -name 'modules.order' \) -print0 | xargs -0 rm -f
