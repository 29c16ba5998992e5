#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Take kselftest_harness.h, kselftest.h and checkpatch.pl from Debian's linux-source-6.12
# (never copied into the repository).
# usage: scripts/linux-src.sh <output dir>
set -eu
out=$1
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
if [ -z "$tarball" ]; then
	echo "linux-src: /usr/src/linux-source-6.12.tar.* not found; run 'make deps'" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp" --wildcards \
	'linux-source-6.12/tools/testing/selftests/kselftest_harness.h' \
	'linux-source-6.12/tools/testing/selftests/kselftest.h' \
	'linux-source-6.12/scripts/checkpatch.pl' \
	'linux-source-6.12/scripts/spelling.txt' \
	'linux-source-6.12/scripts/const_structs.checkpatch'
mkdir -p "$out/scripts"
cp "$tmp"/linux-source-6.12/tools/testing/selftests/kselftest*.h "$out/"
cp "$tmp"/linux-source-6.12/scripts/checkpatch.pl \
   "$tmp"/linux-source-6.12/scripts/spelling.txt \
   "$tmp"/linux-source-6.12/scripts/const_structs.checkpatch "$out/scripts/"
