#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The device tree binding of the reference engine
# (Documentation/devicetree/bindings/accel/gaccel,reference-engine.yaml):
# it is a valid binding (dt-schema's meta-schemas), its example validates
# against it and a node with gaccel,workers = <0> does not; and the arm64
# VM, booted with QEMU virt's device tree plus such a node, has gaccel bound
# to that node (not to a device of its own), with the workers it says, and
# running jobs (submit_test).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"
: "${GACCEL_KIMAGE_ARM64:?run through make check}"
bindings=$PWD/Documentation/devicetree/bindings
yaml=$bindings/accel/gaccel,reference-engine.yaml
out=$GACCEL_BUILD/check/dt
rm -rf "$out" && mkdir -p "$out"

echo "1..4"
fail=0
ok() { echo "ok $1 - $2"; }
nok() {
	echo "not ok $1 - $2"
	sed 's/^/# /' "$3"
	fail=1
}

if dt-doc-validate -u "$bindings" "$yaml" >"$out/doc.log" 2>&1 && [ ! -s "$out/doc.log" ]; then
	ok 1 "the binding is valid (dt-doc-validate)"
else
	nok 1 "the binding is valid (dt-doc-validate)" "$out/doc.log"
fi

# A board's tree with one node, as dt-validate reads it.
board() { # workers
	printf '/dts-v1/;\n/ {\n\tcompatible = "linux,dummy-virt";\n\tmodel = "test";\n'
	printf '\t#address-cells = <2>;\n\t#size-cells = <2>;\n'
	printf '\taccelerator {\n\t\tcompatible = "gaccel,reference-engine";\n'
	printf '\t\tgaccel,workers = <%s>;\n\t};\n};\n' "$1"
}
dt-mk-schema -j "$bindings" >"$out/schema.json" 2>"$out/mk.log"
board 2 | dtc -q -I dts -O dtb -o "$out/good.dtb" - 2>>"$out/mk.log"
board 0 | dtc -q -I dts -O dtb -o "$out/bad.dtb" - 2>>"$out/mk.log"
dt-validate -s "$out/schema.json" "$out/good.dtb" >"$out/good.log" 2>&1
dt-validate -s "$out/schema.json" "$out/bad.dtb" >"$out/bad.log" 2>&1
if [ -s "$out/good.dtb" ] && [ ! -s "$out/good.log" ] &&
   grep -q 'gaccel,workers.*less than the minimum' "$out/bad.log"; then
	ok 2 "a node validates against it, one with gaccel,workers = <0> does not"
else
	cat "$out/mk.log" "$out/good.log" "$out/bad.log" >"$out/all.log"
	nok 2 "a node validates against it, one with gaccel,workers = <0> does not" "$out/all.log"
fi

# QEMU virt's own tree for the VM's machine (as run-in-vm.sh -A arm64 boots
# it: 2 CPUs, 1024 MiB), plus the engine's node.
qemu-system-aarch64 -machine virt,dumpdtb="$out/virt.dtb" -cpu max -smp 2 -m 1024 \
	-nographic -nodefaults >"$out/dump.log" 2>&1
dtc -q -I dtb -O dts "$out/virt.dtb" >"$out/virt.dts" 2>>"$out/dump.log"
sed '$d' "$out/virt.dts" >"$out/board.dts"
printf '\n\taccelerator {\n\t\tcompatible = "gaccel,reference-engine";\n\t\tgaccel,workers = <3>;\n\t};\n};\n' \
	>>"$out/board.dts"
dtc -q -I dts -O dtb -o "$out/board.dtb" "$out/board.dts" 2>>"$out/dump.log"
GACCEL_VM_ARCH=arm64 tests/vm/gaccel-vm.sh -q -t 1200 -l "$GACCEL_BUILD/vm/arm64-dt.console.log" \
	-Q "-dtb $out/board.dtb" \
	-b "$GACCEL_BUILD/aarch64/tools/gaccel-info" \
	-b "$GACCEL_BUILD/aarch64/tests/driver/submit_test" -- '
	echo "compatible: $(cat /sys/firmware/devicetree/base/accelerator/compatible)"
	echo "bound: $(ls /sys/bus/platform/drivers/gaccel | grep -v -E "^(bind|unbind|uevent|module)$" | tr "\n" " ")"
	echo "of_node: $(readlink /sys/bus/platform/devices/accelerator/of_node)"
	gaccel-info
	submit_test >/tmp/submit.tap 2>&1; echo "submit_test: $?"
	tail -n 3 /tmp/submit.tap' >"$out/vm.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^compatible: gaccel,reference-engine' "$out/vm.log" &&
   grep -q '^bound: accelerator $' "$out/vm.log" &&
   grep -q '^of_node: .*accelerator' "$out/vm.log" &&
   grep -E -q '^  workers +3$' "$out/vm.log"; then
	ok 3 "the arm64 VM's device tree node is the engine's device (3 workers, no device of its own)"
else
	cat "$out/dump.log" "$out/vm.log" >"$out/all3.log"
	nok 3 "the arm64 VM's device tree node is the engine's device (3 workers, no device of its own)" \
		"$out/all3.log"
fi
if [ $rc -eq 0 ] && grep -q '^submit_test: 0$' "$out/vm.log"; then
	ok 4 "jobs run on it (submit_test)"
else
	nok 4 "jobs run on it (submit_test)" "$out/vm.log"
fi
exit $fail
