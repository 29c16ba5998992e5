#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The module builds as a vendor's DKMS would build it (make install-dkms,
# dkms add, dkms build, in trees of our own, never the system's), and the
# module DKMS built carries the package version, loads in the test VM and
# answers QUERY; install-dkms also installs the modules-load.d entry. The
# same for Debian 12's own 6.1 kernel (render node), and DKMS refuses
# kernels older than 6.1 (dkms.conf's BUILD_EXCLUSIVE_KERNEL).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..5"
if ! command -v dkms >/dev/null; then
	echo "not ok 1 - dkms is not installed (make deps)"
	echo "not ok 2 - DKMS module loads # SKIP no dkms"
	echo "not ok 3 - module version # SKIP no dkms"
	echo "not ok 4 - DKMS on 6.1 # SKIP no dkms"
	echo "not ok 5 - DKMS refuses older kernels # SKIP no dkms"
	exit 1
fi
t=$GACCEL_BUILD/dkms
rm -rf "$t"
mkdir -p "$t/tree" "$t/src"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
log=$t/dkms.log
{
	make -s install-dkms DESTDIR= SRCDIR="$t/src" MODULESLOADDIR="$t/modules-load.d" &&
	dkms add -m gaccel -v "$version" --sourcetree "$t/src" --dkmstree "$t/tree" &&
	sign_file=/nonexistent dkms build -m gaccel -v "$version" -k "$KVER_NEW" \
		--kernelsourcedir "$KDIR_NEW" --sourcetree "$t/src" --dkmstree "$t/tree"
} >"$log" 2>&1
ko=$(find "$t/tree" -name 'gaccel.ko*' -path '*/module/*' | head -n1)
if [ -z "$ko" ]; then
	echo "not ok 1 - dkms build against $KVER_NEW"
	sed 's/^/# /' "$log"
	echo "not ok 2 - DKMS module loads # SKIP not built"
	echo "not ok 3 - module version # SKIP not built"
	echo "not ok 4 - DKMS on 6.1 # SKIP not added"
	echo "not ok 5 - DKMS refuses older kernels # SKIP not added"
	exit 1
fi
echo "ok 1 - dkms build against $KVER_NEW"
fail=0
case $ko in
*.xz) xz -dc "$ko" >"$t/gaccel.ko" ;;
*) cp "$ko" "$t/gaccel.ko" ;;
esac

if GACCEL_KO=$t/gaccel.ko tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/dkms.console.log" \
	-b "$GACCEL_BUILD/tools/gaccel-info" -- \
	'gaccel-info; echo "sysfs version: $(cat /sys/module/gaccel/version)"' >"$t/vm.log" 2>&1 &&
   grep -q 'engine  *gaccel-ref' "$t/vm.log"; then
	echo "ok 2 - the DKMS-built module loads and answers QUERY in the VM"
else
	echo "not ok 2 - the DKMS-built module loads and answers QUERY in the VM"
	sed 's/^/# /' "$t/vm.log"
	fail=1
fi
modver=$(modinfo -F version "$t/gaccel.ko")
if [ "$modver" = "$version" ] && grep -qx "sysfs version: $version" "$t/vm.log" &&
   grep -qx gaccel "$t/modules-load.d/gaccel.conf"; then
	echo "ok 3 - module version $version (modinfo, /sys/module/gaccel/version), modules-load.d entry installed"
else
	echo "not ok 3 - module version: modinfo '$modver', dkms.conf '$version'; modules-load.d:"
	sed 's/^/# /' "$t/modules-load.d/gaccel.conf" "$t/vm.log"
	fail=1
fi

# Debian 12's 6.1: built by DKMS from the same source tree, loaded in the
# 6.1 VM, where it answers QUERY on its render node.
log61=$t/dkms-61.log
sign_file=/nonexistent dkms build -m gaccel -v "$version" -k "$KVER_61" \
	--kernelsourcedir "$KDIR_61" --sourcetree "$t/src" --dkmstree "$t/tree" >"$log61" 2>&1
ko61=$(find "$t/tree" -name 'gaccel.ko*' -path "*/$KVER_61/*" -path '*/module/*' | head -n1)
if [ -n "$ko61" ] && cp "$ko61" "$t/gaccel-61.ko" &&
   GACCEL_VM_KERNEL=61 GACCEL_KO_61=$t/gaccel-61.ko tests/vm/gaccel-vm.sh -q \
	-l "$GACCEL_BUILD/vm/dkms-61.console.log" -b "$GACCEL_BUILD/tools/gaccel-info" -- \
	'gaccel-info; ls -1 /dev/dri' >"$t/vm-61.log" 2>&1 &&
   grep -q 'engine  *gaccel-ref' "$t/vm-61.log" && grep -q '^renderD' "$t/vm-61.log"; then
	echo "ok 4 - dkms build against $KVER_61; it loads and answers QUERY on a render node"
else
	echo "not ok 4 - dkms build against $KVER_61, loaded in the 6.1 VM"
	sed 's/^/# /' "$log61" "$t/vm-61.log" 2>/dev/null
	fail=1
fi

# Older than 6.1: refused by BUILD_EXCLUSIVE_KERNEL before anything is
# compiled (the headers given are 6.1's; DKMS must not get to use them).
if sign_file=/nonexistent dkms build -m gaccel -v "$version" -k 5.10.0-99-amd64 \
	--kernelsourcedir "$KDIR_61" --sourcetree "$t/src" --dkmstree "$t/tree" >"$t/dkms-510.log" 2>&1 ||
   [ -n "$(find "$t/tree" -path '*/5.10.0-99-amd64/*' -name 'gaccel.ko*')" ]; then
	echo "not ok 5 - DKMS refuses 5.10"
	sed 's/^/# /' "$t/dkms-510.log"
	fail=1
else
	echo "ok 5 - DKMS refuses 5.10 ($(grep -o -m1 'BUILD_EXCLUSIVE[A-Z_]*' "$t/dkms-510.log"))"
fi
exit $fail
