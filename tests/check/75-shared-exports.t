#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The shared library (built with -fvisibility=hidden) exports every function
# of the public API: each name whose address tests/lib/test-api-surface.c
# takes is a defined dynamic symbol of libggml.so, libggml-base.so or
# libggml-cpu.so (what -lggml -lggml-base -lggml-cpu link), so a declaration
# without GGML_API cannot hide a function from programs linked with -lggml.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
sos="$GACCEL_BUILD/lib/libggml.so $GACCEL_BUILD/lib/libggml-base.so $GACCEL_BUILD/lib/libggml-cpu.so"

echo "1..2"
names=$(grep -oE '^ *F\((ggml_[a-z0-9_]+)\)' tests/lib/test-api-surface.c | sed -E 's/.*F\(//; s/\)//' | sort -u)
count=$(echo "$names" | wc -l)
if [ "$count" -ge 400 ]; then
	echo "ok 1 - $count API functions listed in test-api-surface.c"
else
	echo "not ok 1 - only $count API functions found in test-api-surface.c"
fi
# shellcheck disable=SC2086
exported=$(nm -D --defined-only $sos | awk '$2 ~ /^[TW]$/ { print $3 }' | sort -u)
missing=$(echo "$names" | while read -r f; do echo "$exported" | grep -qx "$f" || echo "$f"; done)
if [ -z "$missing" ]; then
	echo "ok 2 - libggml, libggml-base and libggml-cpu export all of them"
else
	echo "not ok 2 - libggml, libggml-base and libggml-cpu do not export $(echo "$missing" | wc -l) of them"
	echo "$missing" | sed 's/^/# /'
	exit 1
fi
