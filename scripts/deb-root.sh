#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The throwaway Debian 12 root the .debs of `make deb` are installed into
# (tests/check/87-deb.t): a minbase bookworm from the archive apt already
# uses, with what a user installing the packages has - build-essential,
# pkg-config, cmake, dkms, the packages' own dependencies - and the 6.12
# kernel `make deps` fetched (headers, kbuild, image), installed from the
# very .deb files in <kernel cache>/debs, so DKMS builds against the same
# headers as KDIR_NEW. Written once as a tarball (mmdebstrap) and
# unpacked by the test for each run. Called by scripts/deps.sh.
#
# usage: scripts/deb-root.sh <kernel cache dir> <kernel version, 6.12.N+deb12>
set -euo pipefail

kcache=$1
v=$2
out=$kcache/debroot-$v.tar
[ -f "$out" ] && exit 0

deb() {
	local f
	f=$(ls "$kcache/debs/$1_"*.deb 2>/dev/null | head -n1 || true)
	[ -n "$f" ] || { echo "deb-root: no $1 in $kcache/debs (make deps)" >&2; exit 1; }
	echo "$f"
}
local_debs=()
for p in "linux-headers-$v-amd64" "linux-headers-$v-common" "linux-kbuild-$v" "linux-image-$v-amd64"; do
	local_debs+=(--include="$(deb "$p")")
done

# The suites apt reads for bookworm (the host's other sources are not ours).
sources=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
	awk '$2 ~ /^bookworm(-security|-updates)?$/ && !seen[$0]++ { print "deb " $1 " " $2 " main" }')
[ -n "$sources" ] || sources="deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main"

# The root's kernel has no modules of its own (the module under test is
# built, not loaded: dpkg leaves them out), and no initramfs; documentation
# and translations are left out too. The exclusions apply while the root is
# made: the customize hook removes them, so the packages under test install
# every file, manual pages included.
echo "deps: building the Debian root for the package test (mmdebstrap, once)"
echo "$sources" | mmdebstrap --quiet --variant=minbase --format=tar \
	--aptopt='Apt::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	--include=build-essential,pkg-config,cmake,dkms,kmod,libdrm-dev,liburing2 \
	--include=initramfs-tools-core- \
	"${local_debs[@]}" \
	--customize-hook='rm -f "$1"/boot/initrd.img-* "$1"/etc/dpkg/dpkg.cfg.d/99mmdebstrap' \
	bookworm "$out.tmp" -
mv "$out.tmp" "$out"
