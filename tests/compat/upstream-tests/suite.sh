#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Upstream ggml v0.21.0's own tests/ against this project: by hand, not in
# `make check` (upstream is not a dependency and nothing is downloaded; the
# user gives a source tree, e.g. a checkout of ggml-org/ggml at v0.21.0).
# Each program of upstream's tests/ is compiled, unchanged, against the
# project's public headers (lib/include) and linked with the static archive
# (build/lib/libggml-backend.a, the gaccel backend built in); run through
# `make upstream-tests UPSTREAM_GGML=<dir> [UPSTREAM_TESTS=...]`, which
# builds the archive first and exports the VM's settings.
#
#   suite.sh <src> build
#       compile every tests/*.c and tests/*.cpp into $GACCEL_BUILD/upstream-tests
#       (test-opt only when the project has ggml-opt.h); BUILD-OK/BUILD-FAIL each
#   suite.sh <src> small
#       run the small programs (all but test-backend-ops, test-opt and the
#       quantization benchmarks); ok/FAIL each, exit 1 if one fails
#   suite.sh <src> ops <test|grad> <backend> [jobs] [op,op,...]
#       test-backend-ops in <mode> for <backend> (CPU: compared with the CPU
#       backend in its scalar reference mode) at nice 15. test mode without
#       ops: every case, in one process with <jobs> (default 2) of upstream's
#       workers (-j). Otherwise the ops (grad mode: all of --list-ops; its
#       case list has no fused cases) split over <jobs> processes, the
#       heaviest ops each in a chunk of their own; the logs in
#       $GACCEL_BUILD/upstream-tests/<mode>-<backend>/, then the totals
#       counted over every case line: OK, FAIL, not supported, skipped
#   suite.sh <src> count <test|grad> <dir>
#       the totals of an earlier `ops` run's logs
#   suite.sh <src> vm <test|grad> [op,op,...]
#       test-backend-ops <mode> -b GACCEL0 in the test VM (GACCEL0 compared
#       with the CPU backend), through tests/vm/gaccel-vm.sh; needs make's
#       VM settings (GACCEL_KIMAGE, GACCEL_KO); the log in
#       $GACCEL_BUILD/upstream-tests/vm-<mode>.txt
#
# Upstream's own CPU backend through the same harness, nothing excluded, in
# test mode: OK 18087, FAIL 0, not supported 3006 (the figure to match).
set -euo pipefail
usage() { sed -n '3,/^set /{/^#/p}' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
src=$(cd "$1" && pwd)
cmd=$2
shift 2
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${GACCEL_BUILD:-$top/build}
out=$build/upstream-tests
lib=$build/lib/libggml-backend.a
tbo=$out/test-backend-ops

small_tests="test-arange test-cont test-conv1d test-conv1d-dw-c1 test-conv1d-dw-c2 test-conv2d
	test-conv2d-dw test-conv-transpose test-conv-transpose-1d test-customop test-dup test-interpolate
	test-pad-reflect-1d test-pool test-rel-pos test-roll test-timestep_embedding"
# the ops whose cases take most of a run: each gets a process of its own
heavy_ops="FLASH_ATTN_EXT MUL_MAT MUL_MAT_ID"

do_build() {
	[ -f "$lib" ] || { echo "upstream-tests: $lib missing (make lib)" >&2; exit 1; }
	grep -q 'set(GGML_VERSION_MINOR 21)' "$src/CMakeLists.txt" 2>/dev/null ||
		echo "upstream-tests: $src does not look like ggml v0.21.0; going on" >&2
	mkdir -p "$out"
	local f n c fail=0
	for f in "$src"/tests/*.c "$src"/tests/*.cpp; do
		n=$(basename "${f%.*}")
		if [ "$n" = test-opt ] && [ ! -f "$top/lib/include/ggml-opt.h" ]; then
			echo "SKIP $n: the project has no ggml-opt.h"
			continue
		fi
		case $f in
		*.c) c="${CC:-cc} -std=c11" ;;
		*) c="${CXX:-g++} -std=c++17" ;;
		esac
		# -O2 for test-backend-ops (its grad mode is long), -O1 for the others
		local opt=-O1
		[ "$n" = test-backend-ops ] && opt=-O2
		if nice -n 10 $c $opt -g -Wall -I"$top/lib/include" -o "$out/$n" "$f" "$lib" \
			-ldrm -lm -lpthread -ldl >"$out/$n.build.log" 2>&1; then
			echo "BUILD-OK $n"
		else
			echo "BUILD-FAIL $n: $(grep -m3 'error' "$out/$n.build.log" | tr '\n' ' ' | cut -c1-300)"
			fail=1
		fi
	done
	return $fail
}

do_small() {
	local t fail=0
	for t in $small_tests; do
		if (cd "$out" && timeout 600 "./$t") >"$out/$t.log" 2>&1; then
			echo "ok - $t"
		else
			echo "FAIL - $t (exit $?, log $out/$t.log)"
			fail=1
		fi
	done
	return $fail
}

# count <mode> <log>...: the totals over the case lines of test-backend-ops'
# console output (colours removed), "  OP(params): ... OK|FAIL|not supported".
# test mode prints one line per case. grad mode prints, for a case it gets
# to build, a header line ending in OK, then lines with the same params: the
# result (OK; "skipping large tensors"; FAIL lines, the last "compare
# failed"; or "not supported" when the backward graph has an op the backend
# lacks); a case it refuses at once prints only "not supported".
count() {
	local mode=$1
	shift
	sed 's/\x1b\[[0-9;]*m//g' "$@" | awk -v mode="$mode" '
		function params(l) { sub(/^  [A-Z0-9_]+\(/, "", l); sub(/\): .*$/, "", l); return l }
		/^  [A-Z0-9_]+\(.*\): / {
			p = params($0)
			if (mode == "grad" && pending != "" && p != pending) {
				ns++       # a header whose result line is missing
				pending = ""
			}
			if ($0 ~ /not supported/) { ns++; pending = "" }
			else if ($0 ~ /skipping large tensors/) { skip++; pending = "" }
			else if ($0 ~ /compare failed/ || (mode == "test" && $0 ~ /FAIL/)) {
				fail++
				pending = ""
				print "FAIL: " $0 > "/dev/stderr"
			} else if ($0 ~ /FAIL/) { }
			else if ($0 ~ /OK$/) {
				if (mode == "grad" && pending == "") pending = p
				else { ok++; pending = "" }
			} else other++
		}
		END {
			if (pending != "") other++   # a case cut off in the middle
			printf "OK %d, FAIL %d, not supported %d, skipped %d, other %d\n", ok, fail, ns, skip, other
		}'
}

do_ops() {
	local mode=${1:?mode} backend=${2:?backend} jobs=${3:-2} ops=${4:-}
	[ -x "$tbo" ] || { echo "upstream-tests: build first ($tbo missing)" >&2; exit 1; }
	local dir=$out/$mode-$backend
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ -z "$ops" ] && [ "$mode" = test ]; then
		# every case, fused ones included (their names are not ops),
		# with upstream's own parallel workers
		nice -n 15 "$tbo" test -b "$backend" -j "$jobs" >"$dir/all.txt" 2>&1 || true
		echo "test-backend-ops test -b $backend -j $jobs ($dir):"
		count test "$dir/all.txt"
		return
	fi
	if [ -z "$ops" ]; then
		# grad mode leaves the fused cases out: the ops are every case
		ops=$("$tbo" --list-ops | sed -n 's/^  \([A-Z0-9_]*\)$/\1/p' | paste -sd,)
	fi
	# the heavy ops one chunk each, the others round-robin over <jobs> more
	# chunks; the heavy chunks start first
	local -a chunk=()
	local i=0 op n_heavy=0
	for op in ${ops//,/ }; do
		case " $heavy_ops " in *" $op "*) ;; *) continue ;; esac
		chunk[n_heavy]=$op
		n_heavy=$((n_heavy + 1))
	done
	for op in ${ops//,/ }; do
		case " $heavy_ops " in *" $op "*) continue ;; esac
		local k=$((n_heavy + i % jobs))
		chunk[k]=${chunk[k]:+${chunk[k]},}$op
		i=$((i + 1))
	done
	# at most <jobs> processes at once
	local pids=() c=0
	for i in "${!chunk[@]}"; do
		echo "${chunk[i]}" >"$dir/chunk-$i.ops"
		nice -n 15 "$tbo" "$mode" -b "$backend" -o "${chunk[i]}" >"$dir/chunk-$i.txt" 2>&1 &
		pids+=($!)
		c=$((c + 1))
		if [ "$c" -ge "$jobs" ]; then
			wait -n || true
			c=$((c - 1))
		fi
	done
	wait || true
	echo "test-backend-ops $mode -b $backend ($dir):"
	count "$mode" "$dir"/chunk-*.txt
}

do_vm() {
	local mode=${1:?mode} ops=${2:-}
	: "${GACCEL_KIMAGE:?run through make upstream-tests (GACCEL_KIMAGE unset)}"
	[ -x "$tbo" ] || { echo "upstream-tests: build first ($tbo missing)" >&2; exit 1; }
	local log=$out/vm-$mode.txt
	"$top/tests/vm/gaccel-vm.sh" -t "${UPSTREAM_TESTS_VM_TIMEOUT:-3600}" -r "${UPSTREAM_TESTS_VM_MEM:-4096}" \
		-l "$out/vm-$mode.console.log" -b "$tbo" \
		-- "test-backend-ops $mode -b GACCEL0 ${ops:+-o $ops}" >"$log" 2>&1 || true
	echo "test-backend-ops $mode -b GACCEL0 in the VM ($log):"
	count "$mode" "$log"
}

case $cmd in
build) do_build ;;
small) do_small ;;
ops) do_ops "$@" ;;
count) count "${1:?mode}" "${2:?dir}"/*.txt ;;
vm) do_vm "$@" ;;
*) usage ;;
esac
