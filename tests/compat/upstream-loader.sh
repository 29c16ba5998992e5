#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Upstream ggml's own loader loads libggml-gaccel.so: build upstream ggml
# v0.21.0 from a source tree the user has (nothing is downloaded) as shared
# libraries with GGML_BACKEND_DL, build tests/compat/upstream-loader.c
# against upstream's headers and libraries, and run it with
# GGML_BACKEND_PATH naming gaccel's module, on this machine (no gaccel
# device: the backend registers with zero devices) and, with --vm, in the
# test VM, where it computes a graph on GACCEL0 and compares with upstream's
# CPU backend, then serves GACCEL0 with upstream's RPC backend
# (ggml_backend_rpc_start_server, upstream built with GGML_RPC=ON) to a
# client on loopback, whose result through RPC must equal its own local run
# on GACCEL0 bit for bit. Run through `make upstream-loader
# UPSTREAM_GGML=<dir> [VM=1]` (which builds libggml-gaccel.so and exports
# the VM's settings).
#
# usage: upstream-loader.sh <ggml v0.21.0 source dir> [--vm]
set -euo pipefail
: "${GACCEL_BUILD:?run through make upstream-loader}"
src=${1:?usage: upstream-loader.sh <ggml v0.21.0 source dir> [--vm]}
vm=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$GACCEL_BUILD/upstream-ggml
module=$(readlink -f "$GACCEL_BUILD/lib/libggml-gaccel.so")

grep -q 'set(GGML_VERSION_MINOR 21)' "$src/CMakeLists.txt" ||
	echo "upstream-loader: $src does not look like ggml v0.21.0; going on" >&2
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON \
	-DGGML_RPC=ON -DGGML_NATIVE=OFF -DGGML_CCACHE=OFF -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF >"$out.log" 2>&1 ||
	{ cat "$out.log" >&2; exit 1; }
cmake --build "$out" -j"$(nproc)" --target ggml ggml-cpu ggml-rpc >>"$out.log" 2>&1 || { tail -30 "$out.log" >&2; exit 1; }

# beside upstream's CPU module, where upstream's loader looks (the executable's directory)
probe=$out/bin/upstream-loader
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$src/include" -o "$probe" "$top/tests/compat/upstream-loader.c" \
	-L"$out/src" -lggml -lggml-base -lm -Wl,-rpath,"$out/src"

if [ "$vm" != --vm ]; then
	echo "== upstream ggml's loader, on this machine, GGML_BACKEND_PATH=$module"
	GGML_BACKEND_PATH=$module LD_DEBUG=files "$probe" 2>"$out/ld-debug.log"
	# gaccel's module was loaded, and none of gaccel's other libraries
	grep -q "file=$module .*dynamically loaded" "$out/ld-debug.log"
	! grep -E "file=$GACCEL_BUILD/lib/libggml(-base|-cpu)?\.so" "$out/ld-debug.log"
	echo "== only libggml-gaccel.so came from gaccel; it uses upstream's libggml and libggml-base"
	exit 0
fi

# upstream's modules beside the program, where its loader looks; gaccel's
# named by GGML_BACKEND_PATH
"$top/tests/vm/gaccel-vm.sh" -t 900 -l "$GACCEL_BUILD/vm/upstream-loader.console.log" -b "$probe" \
	-f "$(readlink -f "$out/bin/libggml-cpu.so"):/bin/libggml-cpu.so" \
	-f "$(readlink -f "$out/bin/libggml-rpc.so"):/bin/libggml-rpc.so" \
	-f "$module:/usr/lib/gaccel/libggml-gaccel.so" \
	-- 'export GGML_BACKEND_PATH=/usr/lib/gaccel/libggml-gaccel.so
	    upstream-loader || exit 1
	    echo "== upstream rpc: GACCEL0 served on 127.0.0.1:50052, client on loopback"
	    ip link set lo up
	    upstream-loader rpc-server 127.0.0.1:50052 & server=$!
	    sleep 3
	    upstream-loader rpc-client 127.0.0.1:50052; rc=$?
	    kill $server
	    exit $rc'
