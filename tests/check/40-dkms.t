#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The module builds as a vendor's DKMS would build it (make install-dkms,
# dkms add, dkms build, in trees of our own, never the system's), and the
# module DKMS built carries the package version, loads in the test VM and
# answers QUERY; install-dkms also installs the modules-load.d entry.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..3"
if ! command -v dkms >/dev/null; then
	echo "not ok 1 - dkms is not installed (make deps)"
	echo "not ok 2 - DKMS module loads # SKIP no dkms"
	echo "not ok 3 - module version # SKIP no dkms"
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
exit $fail
