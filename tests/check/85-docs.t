#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The documentation builds without a warning (Sphinx -W: HTML and manual
# pages, as `make docs`), every manual page renders without a groff
# warning, every tool that `make install` installs has a manual page and
# answers --help with its usage on stdout and exit status 0, and a bad
# option with exit status 2.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
SPHINXBUILD=${SPHINXBUILD:-/usr/bin/sphinx-build}
out=$GACCEL_BUILD/check/docs
rm -rf "$out" && mkdir -p "$out"

tools=$(ls "$GACCEL_BUILD"/tools/gaccel-* 2>/dev/null)
pages=$(sed -n "s/^ *('man\/[^']*', '\([^']*\)',.*/\1/p" Documentation/conf.py)
echo "1..$(( 2 + $(echo $pages | wc -w) + 3 * $(echo $tools | wc -w) ))"
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
for b in html man; do
	check "sphinx-build -W -b $b" "$SPHINXBUILD" -q -W --keep-going -b $b \
		-d "$out/doctrees-$b" Documentation "$out/$b"
done
for p in $pages; do
	check "man page $p renders without warnings" sh -c "
		f=\$(ls $out/man/$p.[1-8] 2>/dev/null) && [ -n \"\$f\" ] || { echo 'not built'; exit 1; }
		w=\$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l \"\$f\" 2>&1 >/dev/null)
		[ -z \"\$w\" ] || { echo \"\$w\"; exit 1; }"
done
for t in $tools; do
	name=${t##*/}
	check "$name has a manual page" sh -c "ls $out/man/$name.1 >/dev/null"
	check "$name --help: usage on stdout, status 0" sh -c "
		o=\$($t --help) || exit 1
		echo \"\$o\" | grep -q '^usage: $name'"
	check "$name --no-such-option: status 2" sh -c "
		$t --no-such-option >/dev/null 2>&1; [ \$? -eq 2 ]"
done
exit $fail
