#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/compat/upstream-ops.c, written against upstream ggml v0.21.0's public
# API (the ops libllama uses on every model's path: mixture of experts,
# attention sinks, ggml_build_forward_select, op hints, a const copy source),
# builds against the public headers with -Wall -Wextra -Werror as C11 and as
# C++17 and computes the results its own loops expect.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
CC=${CC:-cc}
CXX=${CXX:-g++}
lib=$GACCEL_BUILD/lib/libggml-backend.a
out=$GACCEL_BUILD/check/compat
mkdir -p "$out"
prog=$out/upstream-ops

echo "1..3"
fail=0
if msg=$($CC -std=c11 -Wall -Wextra -Werror -Ilib/include -o "$prog" tests/compat/upstream-ops.c "$lib" \
	-ldrm -lm -lpthread -ldl 2>&1); then
	echo "ok 1 - builds as C11 with -Wall -Wextra -Werror"
else
	echo "not ok 1 - builds as C11 with -Wall -Wextra -Werror"
	echo "$msg" | sed 's/^/# /'
	fail=1
fi
if msg=$($CXX -std=c++17 -Wall -Wextra -Werror -Ilib/include -x c++ -o "$prog-cxx" tests/compat/upstream-ops.c \
	-x none "$lib" -ldrm -lm -lpthread -ldl 2>&1); then
	echo "ok 2 - builds as C++17 with -Wall -Wextra -Werror"
else
	echo "not ok 2 - builds as C++17 with -Wall -Wextra -Werror"
	echo "$msg" | sed 's/^/# /'
	fail=1
fi
if res=$("$prog" 2>&1) && echo "$res" | grep -qx 'all checks passed'; then
	echo "ok 3 - computes what upstream's semantics give"
else
	echo "not ok 3 - computes what upstream's semantics give"
	fail=1
fi
echo "$res" | sed 's/^/# /'
exit $fail
