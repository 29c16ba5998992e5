#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Build (once) the debug kernel `make check-debug` boots: Debian's
# linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz), configured as
# allnoconfig plus scripts/debug-kernel.config (KASAN, UBSAN, lockdep,
# DEBUG_OBJECTS, kmemleak, DMA-API debug, ...) and, for a flavour other than
# "debug", scripts/debug-kernel-<flavour>.config on top of it.
#
# usage: scripts/debug-kernel.sh <build dir> [flavour]
#
# Results, under <build dir>/debug-kernel/<flavour>/:
#   obj/    the kernel's build tree (O=): out-of-tree modules build against it
#   root/   boot/vmlinuz-<release> and lib/modules/<release>/, the layout
#           tests/vm/run-in-vm.sh -k expects (like an unpacked linux-image)
#   stamp   what was built: the source package version and the fragments'
#           hash; rewritten only after a build
#   build.log
#
# Nothing is rebuilt unless the linux-source-6.12 package version or a
# config fragment changed (or RECIPE below, bumped by hand whenever what this
# script does to the tree changes). The source is unpacked once per package
# version under <build dir>/debug-kernel/src/. Builds run with `nice -n 10`
# and DEBUG_KERNEL_JOBS jobs (default 2).
set -euo pipefail

RECIPE=1

build=$1
flavour=${2:-debug}
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${DEBUG_KERNEL_JOBS:-2}

say() { echo "debug-kernel: $*" >&2; }
die() { say "$*"; exit 1; }

fragments=("$top/scripts/debug-kernel.config")
if [ "$flavour" != debug ]; then
	fragments+=("$top/scripts/debug-kernel-$flavour.config")
fi
for f in "${fragments[@]}"; do
	[ -f "$f" ] || die "no config fragment $f (flavours: debug, kcsan)"
done

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball missing: run 'make deps' (package linux-source-6.12)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed: run 'make deps'"
for tool in flex bison bc; do
	command -v "$tool" >/dev/null || die "$tool missing: run 'make deps'"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing: run 'make deps'"

mkdir -p "$build/debug-kernel"
base=$(cd "$build/debug-kernel" && pwd)
dir=$base/$flavour
obj=$dir/obj
root=$dir/root
mkdir -p "$dir"

key="recipe $RECIPE; linux-source-6.12 $srcver; $(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)"

# One build at a time per flavour (two `make check-debug` at once).
exec 9>"$dir/lock"
flock 9

if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$key" ] &&
	ls "$root"/boot/vmlinuz-* >/dev/null 2>&1; then
	exit 0
fi

start=$EPOCHREALTIME
# --- source ---------------------------------------------------------------
src=$base/src/${srcver//[^A-Za-z0-9.+-]/_}/linux-source-6.12
if [ ! -f "$src/.unpacked" ]; then
	say "unpacking $tarball ($srcver)"
	rm -rf "${src%/*}"
	mkdir -p "${src%/*}"
	tar -xf "$tarball" -C "${src%/*}"
	touch "$src/.unpacked"
fi
# Any other version's source and objects are stale now.
for old in "$base"/src/*; do
	[ "$old" = "${src%/*}" ] || rm -rf "$old"
done
if [ -f "$dir/stamp" ] && ! grep -q -F "linux-source-6.12 $srcver;" "$dir/stamp"; then
	rm -rf "$obj"
fi
rm -f "$dir/stamp"

# --- configuration -------------------------------------------------------------
mkdir -p "$obj"
cat "${fragments[@]}" >"$dir/fragment.config"
log=$dir/build.log
: >"$log"
kmake() {
	nice -n 10 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$src" O="$obj" "$@" >>"$log" 2>&1
}
say "configuring $flavour (allnoconfig + ${fragments[*]##*/})"
kmake KCONFIG_ALLCONFIG="$dir/fragment.config" allnoconfig ||
	{ tail -n 30 "$log" >&2; die "configuration failed (log: $log)"; }

# Every symbol the fragments name must have the value they give it (the
# last assignment wins, as for KCONFIG_ALLCONFIG): a symbol whose
# dependencies are off is dropped silently by kconfig.
declare -A want=()
while IFS= read -r line; do
	case $line in
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		want[${sym%% *}]=n ;;
	CONFIG_*=*)
		want[${line%%=*}]=${line#*=} ;;
	esac
done <"$dir/fragment.config"
bad=0
for sym in "${!want[@]}"; do
	got=$(grep -E "^$sym=|^# $sym is not set" "$obj/.config" | head -n1 || true)
	case $got in
	"")
		# A value (number, string) under a symbol a later fragment
		# turned off is simply not there.
		case ${want[$sym]} in y | m | n) got=n ;; *) continue ;; esac ;;
	"# "*) got=n ;;
	*) got=${got#*=} ;;
	esac
	if [ "$got" != "${want[$sym]}" ]; then
		say "$sym: fragment says ${want[$sym]}, kconfig gave $got (a dependency is off)"
		bad=1
	fi
done
[ "$bad" -eq 0 ] || die "the config fragment does not hold; fix ${fragments[*]##*/}"

# --- build -------------------------------------------------------------------
say "building $flavour kernel with $jobs jobs (tens of minutes; log: $log)"
kmake -j"$jobs" bzImage modules ||
	{ grep -E -m 20 'error|Error' "$log" >&2 || tail -n 30 "$log" >&2; die "build failed (log: $log)"; }

release=$(cat "$obj/include/config/kernel.release")
rm -rf "$root"
mkdir -p "$root/boot"
kmake INSTALL_MOD_PATH="$root" modules_install ||
	{ tail -n 30 "$log" >&2; die "modules_install failed (log: $log)"; }
cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$release"
cp "$obj/System.map" "$root/boot/System.map-$release"
cp "$obj/.config" "$root/boot/config-$release"
[ -f "$root/lib/modules/$release/modules.dep" ] || depmod -b "$root" "$release"

echo "$key" >"$dir/stamp"
say "built $release in $(awk "BEGIN { printf \"%d\", $EPOCHREALTIME - $start }") s"
