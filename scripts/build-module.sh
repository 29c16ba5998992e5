#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Build gaccel.ko against one kernel, out of the source tree: the sources are
# mirrored as symlinks into <out dir>, so that builds for several kernels
# live side by side. Fails on any compiler, modpost or objtool warning.
#
# usage: scripts/build-module.sh <kernel build dir> <out dir> [make args...]
set -euo pipefail

kdir=$1
out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -f "$kdir/Makefile" ]; then
	echo "build-module: no kernel build dir at $kdir (run 'make deps')" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -rs --remove-destination "$top/Kbuild" "$top/driver" "$top/uapi" "$out/"

log=$out/build.log
rc=0
# Run as its own make: called from make recipes and from prove, the
# inherited MAKEFLAGS may name jobserver descriptors that are not open here.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -j"$(nproc)" -C "$kdir" M="$out" "$@" modules >"$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log" >&2
	echo "build-module: build against $kdir failed" >&2
	exit 1
fi
if grep -E -i 'warning|error' "$log" >&2; then
	echo "build-module: build against $kdir is not warning-free (log: $log)" >&2
	exit 1
fi
