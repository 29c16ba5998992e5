#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The Debian packages, as a user meets them: `make deb` builds them and
# lintian finds no error or warning; they install with dpkg into a
# throwaway Debian 12 root (chroot; the root is the tarball make deps wrote
# with scripts/deb-root.sh, with Debian's 6.12 kernel headers installed
# from the same .debs as KDIR_NEW), where gaccel-dkms's postinst has DKMS
# build and install gaccel.ko for that kernel, a consumer builds against
# the installed library with pkg-config and with CMake's find_package(ggml)
# and runs, and the tools, manual pages, udev rule and modules-load.d entry
# are where they belong. The module DKMS built in the root then loads in
# the test VM, and purging gaccel-dkms takes it away again.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
out=$GACCEL_BUILD/check/deb
root=$out/root
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

echo "1..8"
fail=0
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; fail=1; }
skip_rest() { # <from> <reason>
	i=$1
	while [ "$i" -le 8 ]; do echo "not ok $i # SKIP $2"; i=$((i + 1)); done
	exit 1
}

cleanup() {
	if [ -d "$root/proc/self" ]; then umount "$root/proc" 2>/dev/null; fi
}
trap cleanup EXIT
cleanup
rm -rf "$out"
mkdir -p "$out"

# 1: make deb, lintian included
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deb BUILD="$GACCEL_BUILD" DEB_PARALLEL=2 \
	>"$out/make-deb.log" 2>&1; then
	ok "1 - make deb: $(ls "$GACCEL_BUILD"/deb/*.deb | grep -vc dbgsym) packages, lintian: no error, no warning"
else
	nok "1 - make deb (packages, lintian clean)"
	tail -30 "$out/make-deb.log" | sed 's/^/# /'
	skip_rest 2 "no packages"
fi
debs=
for p in gaccel-dkms libggml-gaccel0 libggml-gaccel-dev gaccel-tools; do
	d=$(ls "$GACCEL_BUILD"/deb/"${p}"_*.deb 2>/dev/null | head -n1)
	[ -n "$d" ] || { nok "1 - no $p package"; skip_rest 2 "no $p"; }
	debs="$debs $d"
done

# 2: the root, and dpkg -i there
if [ "$(id -u)" -ne 0 ]; then
	nok "2 - installing into a chroot needs root"
	skip_rest 3 "not root"
fi
if [ -z "$DEB_ROOT" ] || [ ! -f "$DEB_ROOT" ]; then
	nok "2 - no Debian root tarball '$DEB_ROOT' (make deps writes it)"
	skip_rest 3 "no root"
fi
mkdir -p "$root"
tar -x -C "$root" -f "$DEB_ROOT"
mount -t proc proc "$root/proc" 2>/dev/null
mkdir -p "$root/tmp/debs" "$root/tmp/consumer"
# shellcheck disable=SC2086
cp $debs "$root/tmp/debs/"
cp tests/install/consumer.c tests/install/CMakeLists.txt "$root/tmp/consumer/"
inroot() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		/bin/sh -c "$1"
}
if inroot 'dpkg -i /tmp/debs/*.deb' >"$out/dpkg.log" 2>&1 &&
	inroot 'dpkg-query -W -f="\${db:Status-Abbrev}\n" gaccel-dkms libggml-gaccel0 libggml-gaccel-dev gaccel-tools' |
		grep -c '^ii' | grep -qx 4; then
	ok "2 - dpkg -i installs the four packages into a Debian 12 root (chroot)"
else
	nok "2 - dpkg -i installs the four packages into a Debian 12 root (chroot)"
	sed 's/^/# /' "$out/dpkg.log"
	skip_rest 3 "not installed"
fi

# 3: DKMS built gaccel.ko for the root's 6.12 kernel, from the package
ko=$(ls "$root/lib/modules/$KVER_NEW/updates/dkms/"gaccel.ko* 2>/dev/null | head -n1)
status=$(inroot 'dkms status gaccel' 2>&1)
case $ko in
*.xz) xz -dc "$ko" >"$out/gaccel.ko" ;;
?*) cp "$ko" "$out/gaccel.ko" ;;
esac
if [ -n "$ko" ] && echo "$status" | grep -q "^gaccel/$version, $KVER_NEW, [^:]*: installed" &&
	[ "$(modinfo -F version "$out/gaccel.ko")" = "$version" ] &&
	modinfo -F vermagic "$out/gaccel.ko" | grep -q "^$KVER_NEW "; then
	ok "3 - gaccel-dkms's postinst built and installed gaccel.ko $version for $KVER_NEW ($status)"
else
	nok "3 - gaccel-dkms's postinst built and installed gaccel.ko for $KVER_NEW"
	echo "$status" | sed 's/^/# dkms status: /'
	grep -i -E 'dkms|gaccel|error|build' "$out/dpkg.log" | sed 's/^/# /'
	cat "$root/var/lib/dkms/gaccel/$version/build/make.log" 2>/dev/null | tail -20 | sed 's/^/# /'
fi

# what the consumer must print (tests/install/consumer.c, as 77-install.t)
check_run() { # <n> <what> <log> [extra line]
	n=$1 what=$2 log=$3 extra=$4
	sed 's/^/# /' "$log"
	if grep -qx 'version 0.21.0' "$log" && grep -qx 'mul_mat 1 3 5 3 7 11' "$log" &&
		grep -qE '^backend GACCEL devices [0-9]+$' "$log" && grep -qx 'backend CPU devices 1' "$log" &&
		{ [ -z "$extra" ] || grep -qx "$extra" "$log"; }; then
		ok "$n - $what"
	else
		nok "$n - $what"
	fi
}

# 4: pkg-config
if inroot 'cd /tmp/consumer && test "$(pkg-config --modversion ggml)" = 0.21.0 &&
	cc -std=c11 -Wall -Wextra -Werror -o consumer-pc consumer.c $(pkg-config --cflags --libs ggml) &&
	./consumer-pc' >"$out/pc.log" 2>&1; then
	check_run 4 "in the root: cc consumer.c \$(pkg-config --cflags --libs ggml) builds, runs, loads the gaccel module" \
		"$out/pc.log"
else
	nok "4 - in the root: the consumer builds with pkg-config and runs"
	sed 's/^/# /' "$out/pc.log"
fi

# 5: CMake
if inroot 'cd /tmp/consumer && cmake -S . -B build -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null &&
	cmake --build build >/dev/null && ./build/consumer' >"$out/cmake.log" 2>&1; then
	check_run 5 "in the root: find_package(ggml 0.21) + ggml::ggml, ggml::ggml-gaccel builds and runs" \
		"$out/cmake.log" 'gaccel api ok'
else
	nok "5 - in the root: the consumer builds with find_package(ggml) and runs"
	sed 's/^/# /' "$out/cmake.log"
fi

# 6: the tools and the files around them
multiarch=$(inroot 'dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch')
missing=
for f in usr/share/man/man1/gaccel-info.1.gz usr/share/man/man1/gaccel-demo.1.gz \
	usr/share/man/man1/gaccel-bench.1.gz usr/share/man/man4/gaccel.4.gz \
	usr/share/man/man7/ggml-backend.7.gz lib/udev/rules.d/70-gaccel.rules \
	usr/lib/modules-load.d/gaccel.conf "usr/lib/$multiarch/libggml-gaccel.so.0"; do
	[ -e "$root/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && inroot 'gaccel-info --help && gaccel-demo --help && gaccel-bench --help' \
	>"$out/tools.log" 2>&1 && grep -qx gaccel "$root/usr/lib/modules-load.d/gaccel.conf"; then
	ok "6 - gaccel-info, -demo, -bench run (--help); manual pages, udev rule, modules-load.d entry installed"
else
	nok "6 - the tools run; manual pages, udev rule, modules-load.d entry # missing:$missing"
	sed 's/^/# /' "$out/tools.log"
fi

# 7: the module the package built loads in the VM and answers QUERY
if [ -s "$out/gaccel.ko" ] &&
	GACCEL_KO=$out/gaccel.ko tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/deb.console.log" \
		-b "$GACCEL_BUILD/tools/gaccel-info" -- 'gaccel-info' >"$out/vm.log" 2>&1 &&
	grep -q 'engine  *gaccel-ref' "$out/vm.log"; then
	ok "7 - the module DKMS built from gaccel-dkms loads in the VM and answers QUERY"
else
	nok "7 - the module DKMS built from gaccel-dkms loads in the VM and answers QUERY"
	sed 's/^/# /' "$out/vm.log" 2>/dev/null
fi

# 8: purging the package removes the module (dkms remove in prerm)
if inroot 'dpkg --purge gaccel-dkms' >"$out/purge.log" 2>&1 &&
	! ls "$root/lib/modules/$KVER_NEW/updates/dkms/"gaccel.ko* >/dev/null 2>&1 &&
	[ ! -e "$root/var/lib/dkms/gaccel" ] && [ ! -e "$root/usr/src/gaccel-$version" ]; then
	ok "8 - dpkg --purge gaccel-dkms removes the module, the DKMS tree and the sources"
else
	nok "8 - dpkg --purge gaccel-dkms removes the module, the DKMS tree and the sources"
	sed 's/^/# /' "$out/purge.log"
fi
cleanup
rm -rf "$root"
exit $fail
