#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The graph validator's coverage-guided fuzzer (tests/fuzz/validator, built
# by make with clang's libFuzzer, ASan and UBSan): every regression input
# and every seed replayed once, then a few seconds of fuzzing from them. A
# sanitizer report or a broken invariant fails the check.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
bin=$GACCEL_BUILD/fuzz-validator/fuzz_validator
seeds=$GACCEL_BUILD/fuzz-validator/seeds
regress=tests/fuzz/validator/regress

echo "1..2"
inputs=$(find "$regress" "$seeds" -type f ! -name README ! -name .stamp | sort)
n=$(echo "$inputs" | wc -l)
# shellcheck disable=SC2086
if out=$("$bin" $inputs 2>&1); then
	echo "ok 1 - fuzz_validator replays $n regression and seed inputs"
else
	echo "not ok 1 - fuzz_validator replays $n regression and seed inputs"
	echo "$out" | grep -v '^Running:\|^Executed' | tail -n 40 | sed 's/^/# /'
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
if out=$("$bin" -max_total_time=5 -timeout=20 -seed=1 -artifact_prefix="$tmp/" \
	 "$tmp/corpus" "$seeds" "$regress" 2>&1); then
	echo "ok 2 - 5 s of fuzzing from them: $(echo "$out" | grep -a -o 'DONE .*' | cut -c8-40)"
else
	echo "not ok 2 - 5 s of fuzzing from them"
	echo "$out" | tail -n 40 | sed 's/^/# /'
	mkdir -p "$GACCEL_BUILD/fuzz-validator/crashes"
	for c in "$tmp"/crash-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -f "$c" ] || continue
		cp "$c" "$GACCEL_BUILD/fuzz-validator/crashes/"
		echo "# input kept: $GACCEL_BUILD/fuzz-validator/crashes/$(basename "$c")"
	done
	exit 1
fi
