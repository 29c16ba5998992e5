#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# What a container sees (Documentation/containers.rst): in a mount namespace
# whose /dev holds only accel0 (plus null/zero/urandom) and with no sysfs, an
# unprivileged user in the node's group runs the whole stack on GACCEL0 with
# zero-copy weights; a user outside the group gets a clear warning naming
# the group and the CPU alone. The container's accel node is made from the
# CDI spec `gaccel-info --cdi` writes (as a runtime would, reduced to device
# nodes by cdi/nodes.awk), and the spec is checked against the CDI schema.
# The node's owner and mode are the udev rule's (50-udev checks the rule).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

echo "1..3"
out=$GACCEL_BUILD/container-vm.log
tests/vm/gaccel-vm.sh -q -l "$GACCEL_BUILD/vm/container.console.log" \
	-b "$GACCEL_BUILD/tools/gaccel-demo" -b "$GACCEL_BUILD/tools/gaccel-info" \
	-f "tests/check/cdi/nodes.awk:/nodes.awk" -- '
	echo "root:x:0:0::/root:/bin/sh" >/etc/passwd
	echo "app:x:1000:1000::/tmp:/bin/sh" >>/etc/passwd
	echo "stranger:x:1001:1001::/tmp:/bin/sh" >>/etc/passwd
	printf "root:x:0:\nrender:x:992:app\n" >/etc/group
	chmod 1777 /tmp
	chgrp render /dev/accel/accel0
	gaccel-info --cdi >/tmp/gaccel.json || echo FAILED cdi
	echo "== cdi begin"; cat /tmp/gaccel.json; echo "== cdi end"
	nodes=$(awk -v want=0 -f /nodes.awk /tmp/gaccel.json)
	unshare -m sh -c "
		mount -t tmpfs -o mode=755 dev /dev
		echo \"$nodes\" | while read path type maj min gid; do
			mkdir -p \$(dirname \$path)
			mknod -m 660 \$path \$type \$maj \$min && chgrp \$gid \$path
		done
		mknod -m 666 /dev/null c 1 3
		mknod -m 666 /dev/zero c 1 5
		mknod -m 666 /dev/urandom c 1 9
		mount -t tmpfs -o mode=755 nosys /sys
		echo \"== view: \$(ls -A /dev | tr \"\\n\" \" \")/ sys: \$(ls -A /sys | wc -l) entries\"
		echo \"== app\"
		su -s /bin/sh app -c \"id; gaccel-demo -q q8_0 -l 1 -t 4 -w /tmp/w-app\" 2>&1 || echo FAILED app
		echo \"== stranger\"
		su -s /bin/sh stranger -c \"id; gaccel-demo -q q8_0 -l 1 -t 4 -w /tmp/w-stranger\" 2>&1 ||
			echo FAILED stranger
		echo \"== end\"
	"' >"$out" 2>&1
rc=$?
spec=$GACCEL_BUILD/container-cdi.json
sed -n '/^== cdi begin$/,/^== cdi end$/p' "$out" | sed '1d;$d' >"$spec"
if [ -s "$spec" ] && ! grep -q '^FAILED cdi' "$out" &&
   /usr/bin/python3 tests/check/cdi/validate.py "${CDI_SCHEMA:?run make deps}" "$spec" >"$spec.log" 2>&1 &&
   grep -q '"path": "/dev/accel/accel0"' "$spec"; then
	echo "ok 1 - gaccel-info --cdi writes a spec valid against the CDI schema"
else
	echo "not ok 1 - gaccel-info --cdi writes a spec valid against the CDI schema"
	sed 's/^/# /' "$spec.log" "$out"
	exit 1
fi
app=$(sed -n '/^== app$/,/^== stranger$/p' "$out")
stranger=$(sed -n '/^== stranger$/,/^== end$/p' "$out")
if [ $rc -eq 0 ] && echo "$app" | grep -q 'uid=1000' && ! echo "$app" | grep -q '^FAILED' &&
   echo "$app" | grep -q 'zero-copy (base == mapping)' && echo "$app" | grep -q 'nodes on GACCEL0'; then
	echo "ok 2 - unprivileged user in render, only the CDI spec's accel node and no sysfs: model on GACCEL0, zero-copy"
	grep '^== view' "$out" | sed 's/^== /# /'
else
	echo "not ok 2 - unprivileged user in render, only the CDI spec's accel node and no sysfs: model on GACCEL0, zero-copy"
	sed 's/^/# /' "$out"
	exit 1
fi
if echo "$stranger" | grep -q 'uid=1001' && ! echo "$stranger" | grep -q '^FAILED' &&
   echo "$stranger" | grep -q 'cannot use /dev/accel/accel0: Permission denied (the node is mode 660, group render: add the user to group render' &&
   echo "$stranger" | grep -q 'device: none (CPU only)'; then
	echo "ok 3 - a user outside render is told Permission denied, and which group to join, and runs on the CPU"
else
	echo "not ok 3 - a user outside render is told Permission denied, and which group to join, and runs on the CPU"
	sed 's/^/# /' "$out"
	exit 1
fi
