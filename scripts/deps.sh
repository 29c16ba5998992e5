#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# make deps: install what building and testing gaccel needs on Debian 12, and
# fetch Debian's 6.12 kernels and bookworm's own 6.1 for the test VM and the module builds into the
# build tree (never into the host's /boot or /lib/modules). Idempotent.
#
# usage: scripts/deps.sh <build dir>
set -euo pipefail

build=${1:-build}
kcache=$build/kernel
mkdir -p "$kcache/debs"
kcache=$(cd "$kcache" && pwd)

# flex ... libssl-dev: building the debug kernel of `make check-debug`
# (scripts/debug-kernel.sh) from linux-source-6.12. python3-fastjsonschema:
# checking `gaccel-info --cdi` against the CDI schema (55-container.t).
# python3-sphinx, man-db, groff-base: `make docs` (HTML and manual pages)
# and 85-docs.t, which renders every manual page. e2fsprogs: mkfs.ext4 for
# the VM's disk image (60-demo's io_uring O_DIRECT case, make bench-load).
# libvulkan-dev, mesa-vulkan-drivers: the Vulkan interop test (65-vulkan.t),
# built against the loader; Mesa's libraries lavapipe needs (its newer
# build comes from bookworm-backports, unpacked below). device-tree-compiler,
# dt-schema: the device tree binding's check and the arm64 VM's tree
# (57-devicetree.t). cmake: the consumer of the installed CMake package
# (77-install.t). debhelper, dh-dkms, lintian: `make deb` (mk/deb.mk);
# mmdebstrap: the Debian root the packages are installed into (87-deb.t).
packages=(
	build-essential make gcc libc6-dev perl pkg-config
	qemu-system-x86 qemu-system-arm busybox-static cpio kmod xz-utils
	libdrm-dev liburing-dev sparse linux-source-6.12 dwarves
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
	clang libclang-rt-14-dev dkms
	flex bison bc libelf-dev libssl-dev
	python3 python3-fastjsonschema
	python3-sphinx man-db groff-base e2fsprogs
	libvulkan-dev mesa-vulkan-drivers
	device-tree-compiler dt-schema
	cmake
	debhelper dh-dkms lintian mmdebstrap
)

is_root() { [ "$(id -u)" -eq 0 ]; }

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	echo "deps: apt-get update"
	apt-get update -qq
	apt_updated=1
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages "$@")
	[ "${#missing[@]}" -eq 0 ] && return 0
	if ! is_root; then
		echo "deps: missing Debian packages: ${missing[*]}" >&2
		echo "deps: install them as root with:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	apt_update
	echo "deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

install_packages "${packages[@]}"

# --- Debian's 6.12 kernels --------------------------------------------------
#
# The newest linux-image-6.12.*+deb12-amd64 boots in the VM; the module is
# built against the oldest and the newest linux-headers of the series, whose
# drm_sched APIs differ. Versions are looked up now, never written down.

is_root && apt_update

versions() {
	apt-cache search --names-only "^$1-6\.12\.[0-9]+\+deb12-amd64\$" |
		sed -E "s/^$1-(6\.12\.[0-9]+\+deb12)-amd64 .*/\1/" | sort -V -u
}

mapfile -t header_versions < <(versions linux-headers)
mapfile -t image_versions < <(versions linux-image)
if [ "${#header_versions[@]}" -eq 0 ] || [ "${#image_versions[@]}" -eq 0 ]; then
	echo "deps: apt knows no linux-headers/linux-image-6.12.*+deb12-amd64;" >&2
	echo "deps: enable bookworm-security in /etc/apt/sources.list and run apt-get update" >&2
	exit 1
fi
old=${header_versions[0]}
new=${header_versions[-1]}
if ! printf '%s\n' "${image_versions[@]}" | grep -qx "$new"; then
	echo "deps: no linux-image-$new-amd64 to go with its headers" >&2
	exit 1
fi

# fetch <version> <package[=version]...>: download (once) and unpack into
# $kcache/<version>. A package whose name does not carry its version
# (linux-kbuild-6.1) is asked for by name=version.
fetch() {
	local v=$1 dir=$kcache/$1 p name pv deb
	shift
	mkdir -p "$dir"
	for p in "$@"; do
		name=${p%%=*}
		pv=
		[ "$name" != "$p" ] && pv=${p#*=}
		[ -f "$dir/.unpacked-$name" ] && continue
		deb=$(ls "$kcache/debs/${name}_${pv:-}"*.deb 2>/dev/null | head -n1 || true)
		if [ -z "$deb" ]; then
			echo "deps: downloading $p"
			(cd "$kcache/debs" && apt-get download -qq "$p" 2>&1 |
				grep -v 'unsandboxed' || true)
			deb=$(ls "$kcache/debs/${name}_${pv:-}"*.deb 2>/dev/null | head -n1 || true)
			[ -n "$deb" ] || { echo "deps: apt-get download $p failed" >&2; exit 1; }
		fi
		dpkg -x "$deb" "$dir"
		touch "$dir/.unpacked-$name"
	done
}

# Runtime dependencies of the prebuilt kbuild tools and the headers
# (libelf, libssl, pahole, gcc-12), read from the packages themselves.
kbuild_depends() {
	local deb
	for deb in "$kcache"/debs/linux-kbuild-*.deb "$kcache"/debs/linux-headers-*.deb; do
		dpkg-deb -f "$deb" Depends
	done | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' |
		grep -v -E '^(linux-|$)' | sort -u
}

setup_headers() {
	local v=$1 hdir
	fetch "$v" "linux-headers-$v-amd64" "linux-headers-$v-common" "linux-kbuild-$v"
	hdir=$kcache/$v/usr/src/linux-headers-$v-amd64
	# The amd64 tree includes the common one by its installed path: point
	# it into our unpacked copy instead.
	sed -i "s|^include .*-common/Makefile\$|include $kcache/$v/usr/src/linux-headers-$v-common/Makefile|" \
		"$hdir/Makefile"
}

setup_headers "$old"
setup_headers "$new"
setup_image() {
	fetch "$1" "linux-image-$1-amd64"
	if [ ! -f "$kcache/$1/lib/modules/$1-amd64/modules.dep" ]; then
		# The package leaves modules.dep to its postinst.
		depmod -b "$kcache/$1" "$1-amd64"
	fi
}
setup_image "$new"
# The oldest kernel boots too (tests/check/45-oldest-kernel.t), so the
# compat paths chosen for its drm_sched API run, not only compile.
old_image=
if [ "$old" != "$new" ] && printf '%s\n' "${image_versions[@]}" | grep -qx "$old"; then
	setup_image "$old"
	old_image=$kcache/$old
fi

# The Debian 12 root 87-deb.t installs the packages into: a tarball, made
# once by mmdebstrap from the archive apt uses, with the kernel just fetched.
scripts/deb-root.sh "$kcache" "$new"
# --- Debian 12's own kernel, 6.1 ---------------------------------------------
#
# bookworm's linux-image-6.1.0-<abi>-amd64 (main, or bookworm-security when
# it has a newer ABI): the newest one boots in the VM (make test-61) and its
# headers build the module through the compile probes of driver/compat/.
# Its kbuild tools come in linux-kbuild-6.1, whose name carries no ABI: the
# version that goes with the headers is asked for explicitly.
k61_abi=$(apt-cache search --names-only '^linux-headers-6\.1\.0-[0-9]+-amd64$' |
	sed -E 's/^linux-headers-6\.1\.0-([0-9]+)-amd64 .*/\1/' | sort -n | tail -n1)
if [ -z "$k61_abi" ] || ! apt-cache show "linux-image-6.1.0-$k61_abi-amd64" >/dev/null 2>&1; then
	echo "deps: apt knows no linux-headers/linux-image-6.1.0-*-amd64 (bookworm main)" >&2
	exit 1
fi
k61=6.1.0-$k61_abi
k61_pkgver=$(apt-cache show "linux-headers-$k61-amd64" | sed -n 's/^Version: //p' | sort -V | tail -n1)
fetch "$k61" "linux-headers-$k61-amd64" "linux-headers-$k61-common" \
	"linux-kbuild-6.1=$k61_pkgver" "linux-image-$k61-amd64"
sed -i "s|^include .*-common/Makefile\$|include $kcache/$k61/usr/src/linux-headers-$k61-common/Makefile|" \
	"$kcache/$k61/usr/src/linux-headers-$k61-amd64/Makefile"
[ -f "$kcache/$k61/lib/modules/$k61-amd64/modules.dep" ] ||
	depmod -b "$kcache/$k61" "$k61-amd64"

# udevadm for the udev rule test in the VM, unpacked like the kernels: the
# host's own udev is neither needed nor touched.
fetch udev udev
# The Container Device Interface's JSON schema, as Debian ships it in the Go
# package's sources (unpacked, not installed: only the two .json files are
# read).
fetch cdi golang-github-container-orchestrated-devices-container-device-interface-dev
cdi_schema=$(dirname "$(find "$kcache/cdi" -path '*container-device-interface/schema/schema.json' | head -n1)")
[ -f "$cdi_schema/defs.json" ] || { echo "deps: no CDI schema in the unpacked package" >&2; exit 1; }

# --- lavapipe for the Vulkan interop test (65-vulkan.t) -----------------------
#
# Mesa's CPU Vulkan driver imports dma-bufs (VK_EXT_external_memory_dma_buf)
# from Mesa 23 on; bookworm has 22.3. The driver, and the libdrm it needs,
# come from bookworm-backports of the archive apt already uses, read through
# apt lists of our own and unpacked for the VM: nothing is installed from
# backports and the host's apt sources stay as they are.
vk=$kcache/vulkan
if [ ! -f "$vk/.unpacked" ]; then
	bpo_repo=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
		awk '$2 == "bookworm" { print $1; exit }')
	[ -n "$bpo_repo" ] || bpo_repo=http://deb.debian.org/debian/
	rm -rf "$vk"
	mkdir -p "$vk/apt/lists/partial" "$vk/apt/cache/archives/partial" "$vk/debs" "$vk/root"
	echo "deb $bpo_repo bookworm-backports main" >"$vk/apt/sources.list"
	bpo_apt=(-o "Dir::Etc::SourceList=$vk/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		 -o "Dir::State::Lists=$vk/apt/lists" -o "Dir::Cache=$vk/apt/cache")
	echo "deps: downloading lavapipe from ${bpo_repo}dists/bookworm-backports"
	apt-get "${bpo_apt[@]}" update -qq >/dev/null ||
		{ echo "deps: cannot read bookworm-backports from $bpo_repo" >&2; exit 1; }
	(cd "$vk/debs" && apt-get "${bpo_apt[@]}" download -qq mesa-vulkan-drivers libdrm2 \
		libdrm-amdgpu1 2>&1 | grep -v unsandboxed || true)
	for deb in "$vk"/debs/*.deb; do
		dpkg -x "$deb" "$vk/root"
	done
	[ -f "$vk/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" ] ||
		{ echo "deps: no lavapipe in the backports packages" >&2; exit 1; }
	touch "$vk/.unpacked"
fi

# --- arm64: the module cross-built, and a VM of Debian's arm64 kernel -------
#
# linux-headers-*-arm64, linux-image-*-arm64 and busybox-static for arm64,
# read through apt lists of our own (the host gets no foreign architecture)
# and unpacked like the amd64 kernels. The headers' scripts are the amd64
# linux-kbuild already unpacked for $new: Debian builds its kbuild tools
# for the build machine (Multi-Arch: foreign), so cross builds use them.
a64=$kcache/arm64
a64_apt=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
	 -o "Dir::Etc::SourceList=$a64/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	 -o "Dir::State::Lists=$a64/apt/lists" -o "Dir::Cache=$a64/apt/cache")
if [ ! -f "$a64/.unpacked-$new" ]; then
	a64_sources=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
		awk '$2 ~ /^bookworm(-security|-updates)?$/ && !seen[$0]++ { print "deb " $1 " " $2 " main" }')
	[ -n "$a64_sources" ] || a64_sources="deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main"
	rm -rf "$a64"
	mkdir -p "$a64/apt/lists/partial" "$a64/apt/cache/archives/partial" "$a64/debs" "$a64/root"
	echo "$a64_sources" >"$a64/apt/sources.list"
	echo "deps: reading the arm64 package lists"
	apt-get "${a64_apt[@]}" update -qq >/dev/null ||
		{ echo "deps: cannot read the arm64 package lists" >&2; exit 1; }
	echo "deps: downloading linux-headers/linux-image-$new-arm64, busybox-static:arm64"
	(cd "$a64/debs" && apt-get "${a64_apt[@]}" download -qq "linux-headers-$new-arm64" \
		"linux-image-$new-arm64" busybox-static 2>&1 | grep -v unsandboxed || true)
	for deb in "$a64"/debs/*.deb; do
		dpkg -x "$deb" "$a64/root"
	done
	a64_hdir=$a64/root/usr/src/linux-headers-$new-arm64
	[ -f "$a64_hdir/Makefile" ] && [ -f "$a64/root/bin/busybox" ] ||
		{ echo "deps: the arm64 packages are incomplete" >&2; exit 1; }
	# The common headers are the amd64 ones' (an arch: all package).
	sed -i "s|^include .*-common/Makefile\$|include $kcache/$new/usr/src/linux-headers-$new-common/Makefile|" \
		"$a64_hdir/Makefile"
	mkdir -p "$a64/root/usr/lib"
	ln -sfn "$kcache/$new/usr/lib/linux-kbuild-$new" "$a64/root/usr/lib/"
	depmod -b "$a64/root" "$new-arm64"
	touch "$a64/.unpacked-$new"
fi

# libdrm for arm64: the library's aarch64 flavour (mk/lib.mk) is linked
# statically for its tests under qemu-user, so it needs libdrm.a and
# xf86drm.h of arm64, from libdrm-dev:arm64 through the same private apt
# lists, unpacked beside the arm64 kernel.
if [ ! -f "$a64/.unpacked-libdrm" ]; then
	echo "deps: downloading libdrm-dev:arm64"
	apt-get "${a64_apt[@]}" update -qq >/dev/null ||
		{ echo "deps: cannot read the arm64 package lists" >&2; exit 1; }
	rm -rf "$a64/libdrm" "$a64/libdrm-debs"
	mkdir -p "$a64/libdrm" "$a64/libdrm-debs"
	(cd "$a64/libdrm-debs" && apt-get "${a64_apt[@]}" download -qq libdrm-dev libdrm2 2>&1 |
		grep -v unsandboxed || true)
	for deb in "$a64"/libdrm-debs/*.deb; do
		dpkg -x "$deb" "$a64/libdrm"
	done
	[ -f "$a64/libdrm/usr/lib/aarch64-linux-gnu/libdrm.a" ] && [ -f "$a64/libdrm/usr/include/xf86drm.h" ] ||
		{ echo "deps: no libdrm.a in libdrm-dev:arm64" >&2; exit 1; }
	touch "$a64/.unpacked-libdrm"
fi

mapfile -t kdeps < <(kbuild_depends)
install_packages "${kdeps[@]}"

cat >"$kcache/versions.mk.tmp" <<EOF
# Written by scripts/deps.sh from what apt knew on $(date -u +%Y-%m-%d).
KVER_OLD := $old-amd64
KVER_NEW := $new-amd64
KDIR_OLD := $kcache/$old/usr/src/linux-headers-$old-amd64
KDIR_NEW := $kcache/$new/usr/src/linux-headers-$new-amd64
KIMAGE_ROOT := $kcache/$new
KIMAGE_ROOT_OLD := $old_image
UDEV_ROOT := $kcache/udev
CDI_SCHEMA := $cdi_schema
VULKAN_ROOT := $vk/root
KVER_ARM64 := $new-arm64
KDIR_ARM64 := $a64/root/usr/src/linux-headers-$new-arm64
KIMAGE_ROOT_ARM64 := $a64/root
DEB_ROOT := $kcache/debroot-$new.tar
LIBDRM_ARM64 := $a64/libdrm
KVER_61 := $k61-amd64
KDIR_61 := $kcache/$k61/usr/src/linux-headers-$k61-amd64
KIMAGE_ROOT_61 := $kcache/$k61
EOF
mv "$kcache/versions.mk.tmp" "$kcache/versions.mk"
echo "deps: ok (VM kernels $new-amd64 and $k61-amd64; module builds against $old-amd64, $new-amd64 and $k61-amd64)"
