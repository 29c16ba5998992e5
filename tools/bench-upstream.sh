#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench-upstream.sh - the CPU benchmarks side by side with an upstream ggml.
#
#   tools/bench-upstream.sh [-r rounds] [-o dir] [-b REV] [-f] UPSTREAM layer|ops [bench args...]
#
# UPSTREAM is an upstream ggml build directory (CMake; its CMakeCache.txt
# names the source tree, whose include/ has the headers) or an install
# prefix (include/ and lib/). Nothing of it is vendored or needed otherwise:
# the same source, tools/bench-layer.c or tools/bench-ops.c, is compiled
# against its headers and shared libraries (into dir, default
# build/bench-upstream) and run beside this project's build of it
# (build/tools/bench-<layer|ops>, made by `make bench-upstream`).
#
# Each round runs both programs once with the bench args plus -R --raw
# --no-limits (the weights also in the library's own repacking extra buffer
# type, where its CPU device takes them), the order alternating between
# rounds. Per case it prints the medians over the rounds of each program's
# plain and repacked times, and upstream_ms / gaccel_ms with upstream's
# weights in plain buffers and in its repacking buffer type, against
# gaccel's better configuration: above 1, gaccel is faster.
#
# -f rotates finer: each type of -T and each case of -c (bench-layer) runs
# through all the rounds and programs on its own, so that a host whose
# memory or cores are shared drifts less between the programs' turns
# (more start-ups).
#
# The weights bench-layer generates are kept in dir/weights (BENCH_WEIGHTS;
# set it empty to generate them in every run) and read back by the later
# runs: every program multiplies the same bytes, and --model's minutes of
# quantization are paid once.
#
# -b REV adds a third program: the same source against this library as it
# was at git revision REV (exported with git archive into dir/before-REV
# and its static library built there), so that "before" and "now" are
# measured in the same run; the three programs rotate, and the table gains
# its times and before / now (best configuration of each).
#
# Example (the whole-layer decode and prefill of issue 16):
#   tools/bench-upstream.sh -r 5 /tmp/ggml-build layer -T q8_0,q4_0,q4_K -c 1:512,128:0 -t 2
set -eu

rounds=5
out=${BUILD:-build}/bench-upstream
before=
fine=
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-b) before=$2; shift 2 ;;
	-f) fine=1; shift ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "usage: $0 [-r rounds] [-o dir] [-b REV] [-f] UPSTREAM layer|ops [bench args...]" >&2
	exit 2
fi
up=$1
tool=$2
shift 2
case "$tool" in
layer | ops) ;;
*) echo "$0: layer or ops, not $tool" >&2; exit 2 ;;
esac

# headers and libraries of the upstream build
if [ -f "$up/CMakeCache.txt" ]; then
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$up/CMakeCache.txt")
	inc=$src/include
	lib=$(dirname "$(find "$up" -maxdepth 3 -name 'libggml.so' | head -n 1)")
elif [ -f "$up/include/ggml.h" ]; then
	inc=$up/include
	lib=$(dirname "$(find "$up" -maxdepth 2 -name 'libggml.so' | head -n 1)")
else
	echo "$0: $up is neither a CMake build of ggml nor an install prefix" >&2
	exit 1
fi
if [ ! -f "$inc/ggml-cpu.h" ] || [ ! -f "$lib/libggml.so" ]; then
	echo "$0: no ggml-cpu.h in $inc or no libggml.so in $lib (build upstream with BUILD_SHARED_LIBS=ON)" >&2
	exit 1
fi

ours=${BUILD:-build}/tools/bench-$tool
theirs=$out/bench-$tool-upstream
if [ ! -x "$ours" ]; then
	echo "$0: no $ours (make $ours)" >&2
	exit 1
fi
mkdir -p "$out"
# the weights quantized once and read back by every program and round
# (bench-layer; BENCH_WEIGHTS= empty turns that off)
BENCH_WEIGHTS=${BENCH_WEIGHTS-$out/weights}
export BENCH_WEIGHTS
[ -z "$BENCH_WEIGHTS" ] || mkdir -p "$BENCH_WEIGHTS"
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -I"$inc" -o "$theirs" "tools/bench-$tool.c" \
	-L"$lib" -Wl,-rpath,"$lib" -lggml -lggml-cpu -lggml-base -lm -lpthread

# this library at another revision
old=$out/bench-$tool-before
if [ -n "$before" ]; then
	bsrc=$out/before-$(git rev-parse --short "$before")
	if [ ! -f "$bsrc/build/lib/libggml-backend.a" ]; then
		rm -rf "$bsrc"
		mkdir -p "$bsrc"
		git archive "$before" | tar -x -C "$bsrc"
		make -C "$bsrc" -j2 build/lib/libggml-backend.a >"$bsrc.log" 2>&1 || {
			echo "$0: building $before failed, see $bsrc.log" >&2
			exit 1
		}
	fi
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -I"$bsrc/lib/include" -o "$old" "tools/bench-$tool.c" \
		"$bsrc/build/lib/libggml-backend.a" $(pkg-config --libs libdrm 2>/dev/null || echo -ldrm) -luring -lm \
		-lpthread -ldl
fi

# -f: the -T types and -c cases (layer) one at a time, each rotated
# through the programs before the next, instead of whole programs in turn
types=
cases=
if [ -n "$fine" ]; then
	rest=
	while [ $# -gt 0 ]; do
		case "$1" in
		-T) types=$(echo "$2" | tr ',' ' '); shift 2 ;;
		-c) cases=$(echo "$2" | tr ',' ' '); shift 2 ;;
		*) rest="$rest $1"; shift ;;
		esac
	done
	# shellcheck disable=SC2086
	set -- $rest
fi

raw=$out/raw-$tool.txt
: >"$raw"
run_rounds() {
r=1
while [ "$r" -le "$rounds" ]; do
	if [ -n "$before" ]; then
		case $((r % 3)) in
		1) order="gaccel upstream before" ;;
		2) order="upstream before gaccel" ;;
		*) order="before gaccel upstream" ;;
		esac
	elif [ $((r % 2)) -eq 1 ]; then order="gaccel upstream"; else order="upstream gaccel"; fi
	for who in $order; do
		case $who in
		gaccel) bin=$ours ;;
		before) bin=$old ;;
		*) bin=$theirs ;;
		esac
		echo "round $r/$rounds: $who" >&2
		"$bin" "$@" -R --raw --no-limits 2>>"$out/stderr-$tool.txt" | sed -n "s/^RAW\t/$who\t/p" >>"$raw"
	done
	r=$((r + 1))
done
}

if [ -z "$fine" ]; then
	run_rounds "$@"
else
	for t in ${types:-q8_0}; do
		for c in ${cases:-none}; do
			if [ "$c" = none ]; then
				run_rounds -T "$t" "$@"
			else
				run_rounds -T "$t" -c "$c" "$@"
			fi
		done
	done
fi

# who kind type shape-or-n  n-or-kv  threads  plain  repacked
# layer: who layer type n kv th plain rp;  ops: who mm type MxK n th plain rp
awk -F'\t' '
function med(key,   n, i, j, v, t) {
	n = cnt[key]
	if (n == 0)
		return -1
	for (i = 1; i <= n; i++)
		v[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function add(key, x) {
	if (x < 0)
		return
	val[key, ++cnt[key]] = x
}
function fmt(x) {
	return x < 0 ? "        -" : sprintf("%9.3f", x)
}
{
	if ($2 == "layer")
		c = sprintf("layer %-5s n=%-4s kv=%-5s %sT", $3, $4, $5, $6)
	else
		c = sprintf("mm    %-5s %-11s n=%-4s %sT", $3, $4, $5, $6)
	if (!(c in seen)) {
		seen[c] = 1
		order[++nc] = c
	}
	add(c SUBSEP $1 SUBSEP "p", $7)
	add(c SUBSEP $1 SUBSEP "r", $8)
}
END {
	printf("%-34s %9s %9s %9s %9s   %-9s %-9s", "case (medians, ms)", "gaccel", "gaccel+rp", "upstream",
	       "upstr+rp", "up/gaccel", "up+rp/gaccel")
	if (bef)
		printf("   %9s %9s %-9s", "before", "before+rp", "bef/gaccel")
	printf("\n")
	for (i = 1; i <= nc; i++) {
		c = order[i]
		gp = med(c SUBSEP "gaccel" SUBSEP "p"); gr = med(c SUBSEP "gaccel" SUBSEP "r")
		up = med(c SUBSEP "upstream" SUBSEP "p"); ur = med(c SUBSEP "upstream" SUBSEP "r")
		g = gr > 0 && gr < gp ? gr : gp
		r1 = up > 0 && g > 0 ? sprintf("%.2f", up / g) : "-"
		r2 = ur > 0 && g > 0 ? sprintf("%.2f", ur / g) : "-"
		printf("%-34s %s %s %s %s   %9s %9s", c, fmt(gp), fmt(gr), fmt(up), fmt(ur), r1, r2)
		if (bef) {
			bp = med(c SUBSEP "before" SUBSEP "p"); br = med(c SUBSEP "before" SUBSEP "r")
			b = br > 0 && br < bp ? br : bp
			printf("   %s %s %9s", fmt(bp), fmt(br), b > 0 && g > 0 ? sprintf("%.2f", b / g) : "-")
		}
		printf("\n")
	}
}' bef="$before" "$raw"
