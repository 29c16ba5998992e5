#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make install` into a DESTDIR with PREFIX=/usr, then a user's program
# (tests/install/consumer.c) built against that tree with CMake's
# find_package(ggml) and with pkg-config, and run from it: the upstream
# library names and sonames, the multiarch library directory, ggml.pc, the
# CMake package's targets, dynamically linked tools, and the gaccel module
# found by ggml_backend_load_all() beside libggml.so.0 in a tree that is not
# where it was configured to be.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
CC=${CC:-cc}
out=$GACCEL_BUILD/check/install
rm -rf "$out"
mkdir -p "$out"
root=$out/root
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $CC -print-multiarch)
libdir=$root/usr/lib/$multiarch
want='mul_mat 1 3 5 3 7 11'

echo "1..9"
fail=0
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; fail=1; }

if msg=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install BUILD="$GACCEL_BUILD" \
	DESTDIR="$root" PREFIX=/usr 2>&1); then
	ok "1 - make install DESTDIR=... PREFIX=/usr"
else
	nok "1 - make install DESTDIR=... PREFIX=/usr"
	echo "$msg" | sed 's/^/# /'
	exit 1
fi

# upstream's names and sonames, in /usr/lib/<multiarch>
bad=
for l in ggml-base ggml-cpu ggml ggml-gaccel; do
	soname=$(readelf -d "$libdir/lib$l.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$soname" = "lib$l.so.0" ] && [ -f "$libdir/lib$l.so.0" ] || bad="$bad lib$l"
done
if [ -z "$bad" ]; then
	ok "2 - libggml-base, -cpu, ggml, -gaccel .so.0 in /usr/lib/$multiarch"
else
	nok "2 - libggml-base, -cpu, ggml, -gaccel .so.0 in /usr/lib/$multiarch # wrong:$bad"
fi

# the installed tools are dynamically linked; the library ones use libggml
if readelf -l "$root/usr/bin/gaccel-info" | grep -q INTERP &&
	readelf -d "$root/usr/bin/gaccel-demo" | grep -q 'NEEDED.*\[libggml.so.0\]'; then
	ok "3 - gaccel-info and gaccel-demo are dynamically linked"
else
	nok "3 - gaccel-info and gaccel-demo are dynamically linked"
fi

# the consumer's output: version, the gaccel module loaded, the product,
# a ggml-opt dataset
check_run() { # <n> <what> <program> [extra line]
	n=$1 what=$2 prog=$3 extra=$4
	res=$(LD_LIBRARY_PATH=$libdir "$prog" 2>&1)
	rc=$?
	echo "$res" | sed 's/^/# /'
	if [ $rc -eq 0 ] && echo "$res" | grep -qx 'version 0.21.0' &&
		echo "$res" | grep -qx "$want" &&
		echo "$res" | grep -qE '^backend GACCEL devices [0-9]+$' &&
		echo "$res" | grep -qE '^backend CPU devices 1$' &&
		echo "$res" | grep -qx 'opt ndata 8 adamw' &&
		{ [ -z "$extra" ] || echo "$res" | grep -qx "$extra"; }; then
		ok "$n - $what"
	else
		nok "$n - $what"
	fi
}

# pkg-config
pc() { PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$libdir/pkgconfig pkg-config "$@"; }
if [ "$(pc --modversion ggml 2>&1)" = 0.21.0 ] && flags=$(pc --cflags --libs ggml); then
	ok "4 - pkg-config ggml: version 0.21.0, $flags"
else
	nok "4 - pkg-config ggml"
fi
# shellcheck disable=SC2086
if msg=$($CC -std=c11 -Wall -Wextra -Werror -o "$out/consumer-pc" tests/install/consumer.c $flags 2>&1); then
	ok "5 - the consumer builds with \$(pkg-config --cflags --libs ggml)"
	check_run 6 "it runs: version, CPU and GACCEL backends, product" "$out/consumer-pc"
else
	nok "5 - the consumer builds with \$(pkg-config --cflags --libs ggml)"
	echo "$msg" | sed 's/^/# /'
	nok "6 - it runs # not built"
fi

# CMake
if msg=$(cmake -S tests/install -B "$out/cmake" -DCMAKE_PREFIX_PATH="$root/usr" \
	-DCMAKE_C_FLAGS="-Wall -Wextra -Werror" 2>&1 && cmake --build "$out/cmake" 2>&1); then
	ok "7 - the consumer builds with find_package(ggml 0.21) and ggml::ggml, ggml::ggml-gaccel"
	check_run 8 "it runs, and ggml_backend_gaccel_reg() is the registered GACCEL" "$out/cmake/consumer" \
		'gaccel api ok'
else
	nok "7 - the consumer builds with find_package(ggml 0.21)"
	echo "$msg" | tail -20 | sed 's/^/# /'
	nok "8 - it runs # not built"
fi

# a newer version than the one provided is refused
mkdir -p "$out/newer"
printf 'cmake_minimum_required(VERSION 3.14)\nproject(n C)\nfind_package(ggml 0.22 REQUIRED)\n' \
	>"$out/newer/CMakeLists.txt"
if ! cmake -S "$out/newer" -B "$out/newer/build" -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null 2>&1; then
	ok "9 - find_package(ggml 0.22) fails: the package says 0.21.0"
else
	nok "9 - find_package(ggml 0.22) fails: the package says 0.21.0"
fi
exit $fail
