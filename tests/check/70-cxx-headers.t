#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The installed headers work from C++ (llama.cpp and most ggml users are
# C++17): each header alone compiles as C++17 and as C11, warnings as
# errors; tests/compat/cxx-headers.cpp (every header, an out-of-tree style
# interface table, the scheduler) compiles, links with the static library
# and runs.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
CXX=${CXX:-g++}
CC=${CC:-cc}
lib=$GACCEL_BUILD/lib/libggml-backend.a
out=$GACCEL_BUILD/check/compat
mkdir -p "$out"

headers="ggml.h ggml-alloc.h ggml-backend.h ggml-backend-impl.h ggml-cpu.h gguf.h ggml-opt.h"
echo "1..$(( $(echo $headers | wc -w) * 2 + 6 ))"
n=0
fail=0
check() { # description, command...
	n=$((n + 1))
	desc=$1
	shift
	if msg=$("$@" 2>&1); then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "$msg" | sed 's/^/# /'
		fail=1
	fi
}
for h in $headers; do
	check "$h alone as C++17 (-Wall -Wextra -Wpedantic -Werror)" sh -c \
		"printf '#include \"$h\"\nint main() { return 0; }\n' | $CXX -std=c++17 -Wall -Wextra -Wpedantic -Werror -Ilib/include -x c++ -fsyntax-only -"
	check "$h alone as C11 (-Wall -Wextra -Wpedantic -Werror)" sh -c \
		"printf '#include \"$h\"\nint main(void) { return 0; }\n' | $CC -std=c11 -Wall -Wextra -Wpedantic -Werror -Ilib/include -x c -fsyntax-only -"
done
check "ggml-cpp.h alone as C++17 (-Wall -Wextra -Wpedantic -Werror)" sh -c \
	"printf '#include \"ggml-cpp.h\"\nint main() { return 0; }\n' | $CXX -std=c++17 -Wall -Wextra -Wpedantic -Werror -Ilib/include -x c++ -fsyntax-only -"
# its owners free what they hold (a leak or a double free fails under ASan)
cpp_owners='#include "ggml-cpp.h"
#include "ggml-cpu.h"
int main() {
	ggml_init_params ip = { 1024 * 1024, nullptr, false };
	ggml_context_ptr ctx(ggml_init(ip));
	ggml_backend_ptr be(ggml_backend_cpu_init());
	ggml_backend_buffer_ptr buf(ggml_backend_buft_alloc_buffer(ggml_backend_get_default_buffer_type(be.get()), 4096));
	ggml_gallocr_ptr ga(ggml_gallocr_new(ggml_backend_get_default_buffer_type(be.get())));
	gguf_context_ptr gg(gguf_init_empty());
	ggml_backend_t bes[1] = { be.get() };
	ggml_backend_sched_ptr sched(ggml_backend_sched_new(bes, nullptr, 1, 64, false, true));
	return ctx && be && buf && ga && gg && sched ? 0 : 1;
}'
check "ggml-cpp.h owners build, run and free their objects (ASan)" sh -c \
	"printf '%s\n' '$cpp_owners' | $CXX -std=c++17 -Wall -Wextra -Werror -fsanitize=address,undefined -Ilib/include -x c++ -o '$out/cpp-owners' - -x none '$GACCEL_BUILD/asan/libggml-backend.a' -ldrm -lm -lpthread -ldl && '$out/cpp-owners'"
dl='#include "ggml-cpu.h"
#include "ggml-backend-impl.h"
static int my_score(void) { return 1; }
GGML_BACKEND_DL_IMPL(ggml_backend_cpu_reg)
GGML_BACKEND_DL_SCORE_IMPL(my_score)'
check "a plug-in's GGML_BACKEND_DL_IMPL / _SCORE_IMPL as C++17" sh -c \
	"printf '%s\n' '$dl' | $CXX -std=c++17 -DGGML_BACKEND_DL -Wall -Wextra -Wpedantic -Werror -Ilib/include -x c++ -fsyntax-only -"
check "a plug-in's GGML_BACKEND_DL_IMPL / _SCORE_IMPL as C11" sh -c \
	"printf '%s\n' '$dl' | $CC -std=c11 -DGGML_BACKEND_DL -Wall -Wextra -Wpedantic -Werror -Wmissing-prototypes -Ilib/include -x c -fsyntax-only -"
check "tests/compat/cxx-headers.cpp compiles as C++17 (-Wall -Wextra -Wpedantic -Werror)" \
	$CXX -std=c++17 -Wall -Wextra -Wpedantic -Werror -Ilib/include -o "$out/cxx-headers" \
	tests/compat/cxx-headers.cpp "$lib" -ldrm -lm -lpthread -ldl
check "the C++ program runs and gets the right result" sh -c "'$out/cxx-headers' | grep -q 'C++17 ok'"
exit $fail
