#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Upstream ggml's own tests as the yardstick, by hand (not part of `make
# check`: upstream is not a dependency, and its tests are never copied
# here). test-opt, test-quantize-fns and test-quantize-perf are compiled
# from an upstream v0.21.0 tree against gaccel's public headers and linked
# with its shared libraries (from the build tree, or from an installed
# PREFIX), then run; with ASAN=1 test-opt and test-quantize-fns are also
# linked with the AddressSanitizer flavour (build/asan/libggml-backend.a).
# test-quantize-perf has no verdict: it must run to its end; its figures
# are printed per type beside those of upstream's own libraries when
# UPSTREAM_BUILD names a build of upstream (libggml-base.so in it).
#
#   make lib [build/asan/libggml-backend.a]
#   tests/compat/upstream-tests/run.sh /tmp/ggml-up
#   PREFIX=/usr/local tests/compat/upstream-tests/run.sh /tmp/ggml-up
#   ASAN=1 UPSTREAM_BUILD=/tmp/ggml-up/build tests/compat/upstream-tests/run.sh /tmp/ggml-up
set -eu
[ $# -ge 1 ] || { sed -n '3,20p' "$0"; exit 2; }
up_src=$1
here=$(cd "$(dirname "$0")/../../.." && pwd)
build=${GACCEL_BUILD:-$here/build}
if [ -n "${PREFIX:-}" ]; then
	inc=$PREFIX/include
	libdir=$(dirname "$(find "$PREFIX" -name 'libggml-base.so' | head -1)")
else
	inc=$here/lib/include
	libdir=$build/lib
fi
out=$(mktemp -d /tmp/upstream-tests-XXXXXX)
trap 'rm -rf "$out"' EXIT
CXX=${CXX:-g++}
libs="-L$libdir -lggml -lggml-base -lggml-cpu"

fail=0
run() { # name, command...
	name=$1
	shift
	if "$@" >"$out/$name.log" 2>&1; then
		echo "ok - $name: $(grep -E 'passed|tests failed' "$out/$name.log" | tail -1)"
	else
		echo "not ok - $name (exit $?):"
		grep -v -E ': *OK|: *ok' "$out/$name.log" | tail -30 | sed 's/^/    /'
		fail=1
	fi
}

for t in test-opt test-quantize-fns test-quantize-perf; do
	$CXX -std=c++17 -O2 -g -I"$inc" -o "$out/$t" "$up_src/tests/$t.cpp" $libs
done
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
run test-opt "$out/test-opt"
run test-quantize-fns "$out/test-quantize-fns" -v
run test-quantize-perf "$out/test-quantize-perf" -3

if [ "${ASAN:-0}" = 1 ]; then
	for t in test-opt test-quantize-fns; do
		$CXX -std=c++17 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -I"$here/lib/include" \
			-o "$out/$t-asan" "$up_src/tests/$t.cpp" "$build/asan/libggml-backend.a" -ldrm -lm -lpthread -ldl
	done
	# upstream's test_regression never frees its ctx_compute: leak checks off
	ASAN_OPTIONS=detect_leaks=0 run test-opt-asan "$out/test-opt-asan"
	run test-quantize-fns-asan "$out/test-quantize-fns-asan"
fi

# quantization figures: min cycles per 32 values, per type and function
summary() {
	awk '/^[a-zA-Z0-9_]+$/ { t = $1 } /^  [a-z_]+$/ { op = $1 }
	     /min cycles/ && !seen[t, op]++ { v[t] = v[t] sprintf(" %9.1f", $5) }
	     END { for (t in v) printf "%-8s%s\n", t, v[t] }' "$1" | sort
}
echo "# test-quantize-perf, min cycles/32 values at 4096 values:"
echo "#         q_ref      q     deq  q_dot   vec_dot"
summary "$out/test-quantize-perf.log" | sed 's/^/# gaccel   /'
if [ -n "${UPSTREAM_BUILD:-}" ]; then
	up_lib=$(dirname "$(find "$UPSTREAM_BUILD" -name 'libggml-base.so' | head -1)")
	$CXX -std=c++17 -O2 -I"$up_src/include" -o "$out/perf-upstream" "$up_src/tests/test-quantize-perf.cpp" \
		-L"$up_lib" -lggml -lggml-base -lggml-cpu
	LD_LIBRARY_PATH=$up_lib "$out/perf-upstream" >"$out/perf-upstream.log" 2>&1
	summary "$out/perf-upstream.log" | sed 's/^/# upstream /'
fi
exit $fail
