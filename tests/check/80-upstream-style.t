#!/bin/sh
# SPDX-License-Identifier: MIT
#
# An existing upstream-style ggml program (tests/compat/upstream-style.c:
# context mode with ggml_graph_compute_with_ctx, then backend mode with the
# scheduler) builds unchanged against the public headers and the static
# library, with the link line upstream programs use, and prints the right
# product in both modes.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
CC=${CC:-cc}
lib=$GACCEL_BUILD/lib/libggml-backend.a
out=$GACCEL_BUILD/check/compat
mkdir -p "$out"
prog=$out/upstream-style

echo "1..5"
if msg=$($CC -std=c11 -Wall -Wextra -Werror -Ilib/include -o "$prog" tests/compat/upstream-style.c \
	"$lib" -ldrm -lm -lpthread -ldl 2>&1); then
	echo "ok 1 - builds with cc -Ilib/include ... libggml-backend.a -ldrm -lm -lpthread -ldl"
else
	echo "not ok 1 - builds with cc -Ilib/include ... libggml-backend.a -ldrm -lm -lpthread -ldl"
	echo "$msg" | sed 's/^/# /'
	echo "not ok 2 - runs # no program"
	echo "not ok 3 - context mode result # no program"
	echo "not ok 4 - backend mode result # no program"
	echo "not ok 5 - scalar accessors # no program"
	exit 1
fi

fail=0
if res=$("$prog" 2>&1); then
	echo "ok 2 - runs"
else
	echo "not ok 2 - runs"
	fail=1
fi
echo "$res" | sed 's/^/# /'

# A (4x2) times B^T (3x2): column j of the result is A * row j of B
want=' 1.00 3.00 5.00 7.00
 2.00 4.00 6.00 8.00
 3.00 7.00 11.00 15.00'
n=2
for mode in ctx backend; do
	n=$((n + 1))
	got=$(echo "$res" | sed -n "/^$mode mul_mat (4 x 3):\$/,+3p" | tail -n +2)
	if [ "$got" = "$want" ]; then
		echo "ok $n - $mode mode result"
	else
		echo "not ok $n - $mode mode result"
		fail=1
	fi
done
if echo "$res" | grep -qx 'scaled: 0.50 7.50'; then
	echo "ok 5 - scalar accessors (ggml_new_f32, ggml_get_f32_1d/_nd)"
else
	echo "not ok 5 - scalar accessors (ggml_new_f32, ggml_get_f32_1d/_nd)"
	fail=1
fi
exit $fail
