#!/bin/sh
# SPDX-License-Identifier: MIT
#
# No declaration without a definition: every function the public headers
# (ggml.h, ggml-alloc.h, ggml-backend.h, ggml-cpu.h, gguf.h, ggml-opt.h) declare with
# GGML_API is collected from the headers themselves, a C11 and a C++17
# translation unit take the address of each one (-Wall -Wextra -Werror) and
# link with the static library, and one of the shared libraries that
# pkg-config's -lggml -lggml-base -lggml-cpu name exports each one.
# A function added to a header without an implementation, or an
# implementation dropped, fails here; the list needs no upkeep.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
CC=${CC:-cc}
CXX=${CXX:-g++}
lib=$GACCEL_BUILD/lib/libggml-backend.a
sos="$GACCEL_BUILD/lib/libggml.so $GACCEL_BUILD/lib/libggml-base.so $GACCEL_BUILD/lib/libggml-cpu.so"
out=$GACCEL_BUILD/check/declared
mkdir -p "$out"

headers="ggml.h ggml-alloc.h ggml-backend.h ggml-cpu.h gguf.h ggml-opt.h"
names=$(for h in $headers; do
	perl -0777 -ne 's{//[^\n]*}{}g; s{/\*.*?\*/}{}gs;
		while (/GGML_(?:BACKEND_)?API\s+[^;(]*?\b((?:ggml|gguf)_\w+)\s*\(/g) { print "$1\n" }' "lib/include/$h"
done | sort -u)
count=$(echo "$names" | wc -l)

echo "1..5"
if [ "$count" -ge 500 ]; then
	echo "ok 1 - $count functions declared by the public headers"
else
	echo "not ok 1 - only $count functions found in the public headers (is the scan broken?)"
fi

src=$out/declared.c
{
	for h in $headers; do echo "#include \"$h\""; done
	echo '#include <stdio.h>'
	echo 'typedef void (*any_fn)(void);'
	echo 'static const any_fn fns[] = {'
	echo "$names" | sed 's/.*/    (any_fn) \&&,/'
	echo '};'
	printf '%s\n' 'int main(void) { printf("%zu\n", sizeof(fns) / sizeof(fns[0])); return fns[0] == NULL; }'
} >"$src"
cp "$src" "$out/declared.cpp"

n=1
fail=0
run() { # description, command...
	n=$((n + 1))
	desc=$1
	shift
	if msg=$("$@" 2>&1); then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "$msg" | head -40 | sed 's/^/# /'
		fail=1
	fi
}
# deprecated functions (ggml_type_sizef, as upstream marks it) are still functions
run "C11: the address of every declared function links (static library)" \
	$CC -std=c11 -Wall -Wextra -Werror -Wno-deprecated-declarations -Ilib/include -o "$out/declared-c" "$src" \
	"$lib" -ldrm -lm -lpthread -ldl
run "C++17: the same translation unit compiles and links" \
	$CXX -std=c++17 -Wall -Wextra -Werror -Wno-deprecated-declarations -Ilib/include -o "$out/declared-cxx" \
	"$out/declared.cpp" "$lib" -ldrm -lm -lpthread -ldl
run "both programs run and count $count functions" sh -c \
	"[ \"\$('$out/declared-c')\" = $count ] && [ \"\$('$out/declared-cxx')\" = $count ]"
# shellcheck disable=SC2086
exported=$(nm -D --defined-only $sos | awk '$2 ~ /^[TW]$/ { print $3 }' | sort -u)
missing=$(echo "$names" | while read -r f; do echo "$exported" | grep -qx "$f" || echo "$f"; done)
n=$((n + 1))
if [ -z "$missing" ]; then
	echo "ok $n - libggml, libggml-base and libggml-cpu export all of them"
else
	echo "not ok $n - libggml, libggml-base and libggml-cpu do not export $(echo "$missing" | wc -l) of them"
	echo "$missing" | sed 's/^/# /'
	fail=1
fi
exit $fail
