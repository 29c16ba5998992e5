#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# udev/70-gaccel.rules gives /dev/accel/accelN to the render group, mode
# 0660, and tags it uaccess (logind then gives the seat's user an ACL):
# checked in the VM with Debian's udevd and only our rule installed.
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
: "${UDEV_ROOT:?run make deps}"

echo "1..1"
out=$GACCEL_BUILD/udev-vm.log
if tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/udev.console.log" \
	-f "$UDEV_ROOT/bin/udevadm:/bin/udevadm" \
	-f "udev/70-gaccel.rules:/etc/udev/rules.d/70-gaccel.rules" -- '
	echo "root:x:0:" >/etc/group
	echo "render:x:992:" >>/etc/group
	before=$(stat -c "%a %G" /dev/accel/accel0)
	mkdir -p /run/udev
	ln -s udevadm /bin/systemd-udevd
	systemd-udevd --daemon
	udevadm trigger --action=add --subsystem-match=accel
	udevadm settle -t 20
	echo "before: $before"
	echo "after: $(stat -c "%a %G" /dev/accel/accel0)"
	echo "tags: $(udevadm info -q property -n /dev/accel/accel0 | grep "^TAGS=")"
	' >"$out" 2>&1 && grep -q '^after: 660 render$' "$out" &&
	grep -q '^tags: TAGS=.*:uaccess:' "$out"; then
	echo "ok 1 - the udev rule makes /dev/accel/accel0 render:0660, tagged uaccess ($(grep '^before' "$out"))"
else
	echo "not ok 1 - the udev rule makes /dev/accel/accel0 render:0660, tagged uaccess"
	sed 's/^/# /' "$out"
	exit 1
fi
