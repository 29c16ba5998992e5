#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Cross-check of the GGUF format with upstream ggml, by hand (not part of
# `make check`: upstream is not a dependency). gguf-xwrite and gguf-xdump
# are built twice from the same source, against upstream's libggml-base and
# against libggml-backend. Each writer writes a file (default alignment and
# the alignments given); each file is dumped by both readers, and the dumps
# (every key, type and value, every tensor info and a checksum of its data)
# must be identical. The two writers' files are also compared byte for byte.
#
#   git clone https://github.com/ggml-org/ggml /tmp/ggml-up   (or a snapshot)
#   cmake -S /tmp/ggml-up -B /tmp/ggml-up/build -DCMAKE_BUILD_TYPE=Release
#   cmake --build /tmp/ggml-up/build --target ggml-base
#   make lib
#   tests/compat/gguf-upstream/run.sh /tmp/ggml-up /tmp/ggml-up/build [alignments...]
#
# Upstream's writer ignores a general.alignment set on the context (it pads
# to the default), so with another alignment its file contradicts its own
# key and upstream's reader refuses it too: reported as "note", not a
# failure, when upstream refuses its own file.
#
# With GGUF_CORPUS=<dir> (e.g. build/fuzz-gguf/corpus after make fuzz-gguf)
# every file there is also dumped by both readers and the outcomes counted:
# same dump, both refuse, only one refuses, upstream aborts.
set -eu
[ $# -ge 2 ] || { sed -n '3,27p' "$0"; exit 2; }
up_src=$1
up_build=$2
shift 2
here=$(cd "$(dirname "$0")/../../.." && pwd)
src=$here/tests/compat/gguf-upstream
lib=${GACCEL_BUILD:-$here/build}/lib/libggml-backend.a
out=$(mktemp -d /tmp/gguf-xcheck-XXXXXX)
trap 'rm -rf "$out"' EXIT
up_lib=$(dirname "$(find "$up_build" -name 'libggml-base.so' | head -1)")
CC=${CC:-cc}

for p in xwrite xdump; do
	$CC -std=c11 -O1 -Wall -Wextra -Werror -I"$up_src/include" -o "$out/$p-upstream" "$src/gguf-$p.c" \
		-L"$up_lib" -Wl,-rpath,"$up_lib" -lggml-base -lm
	$CC -std=c11 -O1 -Wall -Wextra -Werror -I"$here/lib/include" -o "$out/$p-gaccel" "$src/gguf-$p.c" \
		"$lib" -ldrm -lm -lpthread -ldl
done

fail=0
for align in default "$@"; do
	a=; [ "$align" = default ] || a=$align
	for w in upstream gaccel; do
		"$out/xwrite-$w" "$out/$w-$align.gguf" $a
	done
	if cmp -s "$out/upstream-$align.gguf" "$out/gaccel-$align.gguf"; then
		echo "ok - alignment $align: both writers write the same $(wc -c <"$out/gaccel-$align.gguf") bytes"
	elif ! "$out/xdump-upstream" "$out/upstream-$align.gguf" >/dev/null 2>&1; then
		echo "note - alignment $align: upstream's writer ignored general.alignment; upstream refuses its own file"
	else
		echo "DIFF - alignment $align: the writers' files differ: $(cmp "$out/upstream-$align.gguf" "$out/gaccel-$align.gguf" 2>&1 | head -1)"
		fail=1
	fi
	for w in upstream gaccel; do
		f=$out/$w-$align.gguf
		"$out/xdump-upstream" "$f" >"$out/dump-u" || true
		"$out/xdump-gaccel" "$f" >"$out/dump-g" 2>/dev/null || true
		if diff -u "$out/dump-u" "$out/dump-g" >"$out/diff"; then
			echo "ok - alignment $align: file by $w read identically by both ($(wc -l <"$out/dump-g") lines: $(head -1 "$out/dump-g"))"
		else
			echo "DIFF - alignment $align: file by $w read differently:"
			sed 's/^/    /' "$out/diff"
			fail=1
		fi
	done
done

if [ -n "${GGUF_CORPUS:-}" ]; then
	same=0 both_refuse=0 only_up=0 only_here=0 up_abort=0 differ=0
	for f in "$GGUF_CORPUS"/*; do
		rc_u=0 rc_g=0
		timeout 20 "$out/xdump-upstream" "$f" >"$out/dump-u" 2>/dev/null || rc_u=$?
		timeout 20 "$out/xdump-gaccel" "$f" >"$out/dump-g" 2>/dev/null || rc_g=$?
		if [ $rc_u -gt 1 ]; then
			up_abort=$((up_abort + 1))
			[ $rc_g -le 1 ] || { echo "FAIL - $f: both crash"; fail=1; }
		elif [ $rc_u = 1 ] && [ $rc_g = 1 ]; then
			both_refuse=$((both_refuse + 1))
		elif [ $rc_u = 1 ]; then
			only_up=$((only_up + 1))
		elif [ $rc_g = 1 ]; then
			only_here=$((only_here + 1))
			echo "note - $f: refused here, read by upstream"
		elif cmp -s "$out/dump-u" "$out/dump-g"; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "note - $f: read differently:"
			diff "$out/dump-u" "$out/dump-g" | sed 's/^/    /' | head -6
		fi
	done
	echo "corpus $GGUF_CORPUS: same $same, both refuse $both_refuse, refused by upstream only $only_up," \
	     "here only $only_here, upstream aborts $up_abort, read differently $differ"
fi
exit $fail
