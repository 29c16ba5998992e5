#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# No scalar FMA with a memory operand (vfmadd231ss (%rax),...) in gaccel.ko
# or the library. QEMU 7.2's software emulation, which runs every VM test,
# reads 16 bytes for that operand instead of 4, so the instruction faults
# on the last float of a mapping: a kernel oops in the reference engine
# when a tensor ends within 12 bytes of a buffer object's end (found by
# `make fuzz`), a SIGSEGV in userspace. Real CPUs read 4 bytes. The kernel
# compiles as GNU C, where a * b + c is contracted into an FMA, so the
# module's SIMD units are built with -ffp-contract=off (Kbuild); the
# library is ISO C11, where contraction is off already. Vector FMAs read
# their full width and are fine.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

pattern='vfn?m(add|sub)[0-9]+s[sd][[:space:]]+[^%[:space:]]*\('
echo "1..2"
n=0
fail=0
for f in "$GACCEL_BUILD/kmod/$KVER_NEW/gaccel.ko" "$GACCEL_BUILD/lib/libggml-backend.a"; do
	n=$((n + 1))
	name=${f#"$GACCEL_BUILD"/}
	if [ ! -f "$f" ]; then
		echo "not ok $n - $name: not built"
		fail=1
		continue
	fi
	hits=$(objdump -d --no-show-raw-insn "$f" | awk -v p="$pattern" '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/:$/, "", fn) }
		$0 ~ p { print fn ": " $0 }')
	if [ -z "$hits" ]; then
		echo "ok $n - $name: no scalar FMA with a memory operand"
	else
		echo "not ok $n - $name: scalar FMA with a memory operand (QEMU over-reads it)"
		echo "$hits" | head -20 | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
