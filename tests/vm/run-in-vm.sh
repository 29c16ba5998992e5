#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Boot Debian's kernel under QEMU (TCG, -cpu max) with a busybox initramfs,
# load modules, run one command inside and return its exit status.
#
# usage: run-in-vm.sh -k <kernel root> [options] -- <command...>
#   -k DIR     unpacked linux-image package (boot/vmlinuz-*, lib/modules/*)
#   -m NAME    Debian module to load, with its dependencies (repeatable)
#   -M FILE    project module (.ko) to load after the -m ones (repeatable);
#              it is also kept in /lib/modules/extra/ for reload tests
#   -N         put the -M modules in the image but do not load them
#   -P PARAMS  module parameters for the -M modules' insmod
#   -E 'FILE [PARAMS]'  project module loaded after the -M ones, with its
#              own parameters (an engine module; repeatable), unloaded
#              before them
#   -b FILE    program to copy to /bin, with its shared libraries (repeatable)
#   -f SRC:DST extra file or directory (repeatable)
#   -t SECS    timeout for the whole run (default 300)
#   -c CPUS    virtual CPUs (default 2)
#   -r MIB     memory (default 1024)
#   -l FILE    where to keep the console log (default: a temporary file)
#   -a ARGS    extra kernel command line arguments
#   -d IMAGE   attach IMAGE (raw, ext4) as a virtio disk, read-write, and
#              mount it on /mnt before the command (loads virtio_blk and
#              ext4 with crc32c): a real block device, for O_DIRECT and cold
#              reads
#   -A ARCH    x86_64 (default) or arm64: the kernel root (-k) is then
#              Debian's arm64 image, which also holds busybox-static's
#              arm64 binary (bin/busybox); QEMU's virt machine, -cpu max
#   -Y MACHINE QEMU machine type (default pc; virt for arm64)
#   -Q ARGS    extra QEMU arguments, split on blanks (devices: an IOMMU,
#              a PCI device an engine drives)
#   -u UID     run the command as this uid (and gid), not root: a member of
#              group "render", which owns /dev/accel/* (mode 0660)
#   -D         debug-kernel checks: clear kmemleak and let DMA-API debug
#              show 20 errors, not 1, before the command; after
#              it, unload the -M modules, then any other module of
#              /lib/modules/extra still loaded (failing to is a report),
#              wait for kmemleak's minimum age, scan twice and print what
#              it found on the console; the command's kselftest RUN/ok
#              lines are copied to the kernel log, to place reports under
#              their test (so the run also waits for background processes
#              the command left holding its output)
#   -q         no progress lines on stderr
#
# Environment: GACCEL_TEST_TIMEOUT_SCALE (default 10 with -D, 3 with
# -A arm64, else 1) is
# passed to the command: the suites multiply every kselftest timeout by it
# (GACCEL_TEST_HARNESS_MAIN), as the debug kernel runs them many times
# slower.
#
# The command's stdout and stderr (through the VM's second serial port) are
# this script's stdout. Exit status: the command's; 124 on timeout; 125 if
# the VM died without reporting one; 126 if the console shows a kernel
# report (tests/vm/kernel-reports.sh: oops, BUG, WARNING, lockdep, KASAN,
# UBSAN, ODEBUG, kmemleak, hung task, soft lockup, RCU stall...), even when
# the command succeeded.
set -uo pipefail

kroot=
modules=()
project_modules=()
load_project=1
project_params=
binaries=()
files=()
timeout=300
cpus=2
mem=1024
console=
append_extra=
quiet=
run_uid=
debug_checks=
engine_modules=()
machine=pc
qemu_extra=

disk=
arch=x86_64
while getopts "k:m:M:NP:E:b:f:t:c:r:l:a:d:A:Y:Q:u:Dq" opt; do
	case $opt in
	k) kroot=$OPTARG ;;
	m) modules+=("$OPTARG") ;;
	M) project_modules+=("$OPTARG") ;;
	N) load_project= ;;
	P) project_params=$OPTARG ;;
	E) engine_modules+=("$OPTARG") ;;
	Y) machine=$OPTARG ;;
	Q) qemu_extra=$OPTARG ;;
	b) binaries+=("$OPTARG") ;;
	f) files+=("$OPTARG") ;;
	t) timeout=$OPTARG ;;
	c) cpus=$OPTARG ;;
	r) mem=$OPTARG ;;
	l) console=$OPTARG ;;
	a) append_extra=$OPTARG ;;
	d) disk=$OPTARG; modules+=(virtio_blk crc32c_generic ext4) ;;
	A) arch=$OPTARG ;;
	u) run_uid=$OPTARG ;;
	D) debug_checks=1 ;;
	q) quiet=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$kroot" ] || [ $# -eq 0 ]; then
	sed -n '5,57p' "$0" >&2
	exit 2
fi

say() { [ -n "$quiet" ] || echo "run-in-vm: $*" >&2; }
die() { echo "run-in-vm: $*" >&2; exit 125; }

vmlinuz=$(ls "$kroot"/boot/vmlinuz-* 2>/dev/null | head -n1)
[ -n "$vmlinuz" ] || die "no boot/vmlinuz-* under $kroot (run 'make deps')"
krel=${vmlinuz##*/vmlinuz-}
moddir=$kroot/lib/modules/$krel
[ -f "$moddir/modules.dep" ] || die "no $moddir/modules.dep (run 'make deps')"
case $arch in
x86_64)
	qemu=qemu-system-x86_64
	busybox=/bin/busybox
	tty_console=ttyS0 tty_out=/dev/ttyS1 ;;
arm64)
	qemu=qemu-system-aarch64
	busybox=$kroot/bin/busybox
	[ "$machine" = pc ] && machine=virt
	# virt has one UART: the command's output goes to a virtio console
	tty_console=ttyAMA0 tty_out=/dev/hvc0 ;;
*)	die "-A takes x86_64 or arm64" ;;
esac
command -v $qemu >/dev/null || die "$qemu missing (run 'make deps')"
# busybox-static's binary; ldd fails on a static program. The applets are
# listed by the host's busybox (the same Debian version).
{ [ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 && [ -x /bin/busybox ]; } ||
	die "static busybox missing (run 'make deps')"

work=$(mktemp -d "${TMPDIR:-/tmp}/gaccel-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt,lib/modules/extra,usr/bin,usr/sbin}

# --- busybox ---------------------------------------------------------------
cp "$busybox" "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# --- Debian modules, dependencies first ---------------------------------------
# modules.dep: "path: dep1 dep2 ..." with dependencies listed so that the
# last one must be loaded first.
declare -A seen=()
load_order=()
module_path() {
	local name=${1//-/_} line p
	while IFS= read -r line; do
		p=${line%%:*}
		local base=${p##*/}
		base=${base%%.ko*}
		if [ "${base//-/_}" = "$name" ]; then
			echo "$line"
			return 0
		fi
	done <"$moddir/modules.dep"
	return 1
}
add_module() {
	local line path deps i
	line=$(module_path "$1") || die "module $1 not found in $moddir/modules.dep"
	path=${line%%:*}
	[ -n "${seen[$path]:-}" ] && return 0
	read -r -a deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		if [ -z "${seen[${deps[$i]}]:-}" ]; then
			seen[${deps[$i]}]=1
			load_order+=("${deps[$i]}")
		fi
	done
	seen[$path]=1
	load_order+=("$path")
}
for m in "${modules[@]}"; do
	add_module "$m"
done

mount_disk=
[ -n "$disk" ] && mount_disk='mount -t ext4 /dev/vda /mnt || fail=1'
insmods=
for path in "${load_order[@]}"; do
	name=${path##*/}
	name=${name%%.ko*}
	case $path in
	*.ko.xz) xz -dc "$moddir/$path" >"$root/lib/modules/$name.ko" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$root/lib/modules/$name.ko" ;;
	*.ko.gz) gzip -dc "$moddir/$path" >"$root/lib/modules/$name.ko" ;;
	*) cp "$moddir/$path" "$root/lib/modules/$name.ko" ;;
	esac
	insmods+="insmod /lib/modules/$name.ko || fail=1"$'\n'
done
rmmods=
for ko in "${project_modules[@]}"; do
	[ -f "$ko" ] || die "no module $ko"
	cp "$ko" "$root/lib/modules/extra/"
	[ -n "$load_project" ] &&
		insmods+="insmod /lib/modules/extra/${ko##*/} $project_params || fail=1"$'\n'
	name=${ko##*/}
	name=${name%.ko}
	rmmods="$name $rmmods"
done
for spec in "${engine_modules[@]}"; do
	ko=${spec%% *}
	params=
	[ "$ko" != "$spec" ] && params=${spec#* }
	[ -f "$ko" ] || die "no module $ko"
	cp "$ko" "$root/lib/modules/extra/"
	[ -n "$load_project" ] &&
		insmods+="insmod /lib/modules/extra/${ko##*/} $params || fail=1"$'\n'
	name=${ko##*/}
	name=${name%.ko}
	rmmods="$name $rmmods"
done

# --- programs and their shared libraries ------------------------------------
copy_libs() {
	local lib
	# ldd exits 1 for static programs: not an error here.
	{ ldd "$1" 2>/dev/null || true; } |
		grep -o '/[^ ]*' | while read -r lib; do
			[ -f "$lib" ] || continue
			mkdir -p "$root$(dirname "$lib")"
			[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
		done
}
for b in "${binaries[@]}"; do
	[ -f "$b" ] || die "no program $b"
	cp -L "$b" "$root/bin/"
	copy_libs "$b"
done
for spec in "${files[@]}"; do
	src=${spec%%:*}
	dst=${spec#*:}
	[ -e "$src" ] || die "no file $src"
	mkdir -p "$root$(dirname "$dst")"
	cp -a "$src" "$root$dst"
	if [ -f "$src" ] && [ -x "$src" ]; then
		copy_libs "$src"
	fi
done

# --- init ------------------------------------------------------------------
printf '%s\n' "$@" >"$root/cmd.sh"

run_cmd="sh /cmd.sh"
if [ -n "$run_uid" ]; then
	case $run_uid in *[!0-9]*) echo "run-in-vm: -u takes a number" >&2; exit 2 ;; esac
	user=u$run_uid
	[ "$run_uid" = 65534 ] && user=nobody
	printf 'root:x:0:0::/root:/bin/sh\n%s:x:%s:%s::/tmp:/bin/sh\n' "$user" "$run_uid" "$run_uid" \
		>"$root/etc/passwd"
	printf 'root:x:0:\n%s:x:%s:\nrender:x:992:%s\n' "$user" "$run_uid" "$user" >"$root/etc/group"
	run_cmd='for n in /dev/accel/* /dev/dri/renderD*; do
		[ -e "$n" ] && chgrp render "$n" && chmod 0660 "$n"
	done
	chmod 1777 /tmp
	su -s /bin/sh @USER@ -c "sh /cmd.sh"'
	run_cmd=${run_cmd//@USER@/$user}
fi

# With -D: the debug kernel's leak check covers what the command did, and
# unloading the project modules shows what they left behind (work items,
# timers, memory freed only at unload, references that keep them in use).
# kmemleak reports only objects older than 5 s: wait that long first.
before_cmd=:
after_cmd=:
# (arm64 under TCG runs the suites about three times slower than x86-64.)
timeout_scale=${GACCEL_TEST_TIMEOUT_SCALE:-$([ -n "$debug_checks" ] && echo 10 ||
	{ [ "$arch" = arm64 ] && echo 3; } || echo 1)}
case $timeout_scale in
[1-9] | [1-9][0-9] | 100) ;;
*) die "GACCEL_TEST_TIMEOUT_SCALE=$timeout_scale: not 1 to 100" ;;
esac
if [ -n "$debug_checks" ]; then
	# DMA-API debug shows only its first error per boot unless told more.
	before_cmd='[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
	[ -w /sys/kernel/debug/dma-api/num_errors ] && echo 20 >/sys/kernel/debug/dma-api/num_errors'
	after_cmd='echo "gaccel-test: #  RUN (after the command: module unload, kmemleak scan)" >/dev/kmsg
	tried=" "
	for m in @RMMODS@ $(cd /lib/modules/extra && ls *.ko 2>/dev/null | sed "s/\\.ko\$//; s/-/_/g"); do
		case $tried in *" $m "*) continue ;; esac
		tried="$tried$m "
		grep -q "^$m " /proc/modules || continue
		# Jobs of closed files run to completion and hold the module
		# until then: wait for them (bounded), a leaked reference stays.
		t=0
		until rmmod "$m" 2>/dev/null; do
			t=$((t + 1))
			[ $t -lt 180 ] && sleep 1 && continue
			rmmod "$m" >/dev/console 2>&1
			echo "run-in-vm: module $m left behind: rmmod failed for 180 s after the command" >/dev/console
			break
		done
		[ $t -gt 0 ] && [ $t -lt 180 ] && echo "run-in-vm: module $m unloaded after waiting $t s for its users" >/dev/console
	done
	if [ -w /sys/kernel/debug/kmemleak ]; then
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		echo scan >/sys/kernel/debug/kmemleak
		echo "run-in-vm: kmemleak scan after the command:" >/dev/console
		cat /sys/kernel/debug/kmemleak >/dev/console
		echo "run-in-vm: kmemleak scan done" >/dev/console
	fi'
	after_cmd=${after_cmd//@RMMODS@/$rmmods}
	# The kselftest progress lines go to the kernel log too, so that a
	# report in the console sits under the test that caused it.
	run_cmd="{ $run_cmd
	echo \$? >/tmp/.rc; } 2>&1 | while IFS= read -r line; do
		echo \"\$line\"
		case \$line in
		'#  RUN '* | 'ok '* | 'not ok '*) echo \"gaccel-test: \$line\" >/dev/kmsg ;;
		esac
	done
	(exit \$(cat /tmp/.rc))"
	append_extra="printk.devkmsg=on $append_extra"
fi
cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
echo "@@RUN_IN_VM_INIT@@" >/dev/console
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
ip link set lo up 2>/dev/null
fail=0
$insmods
$mount_disk
export GACCEL_TEST_TIMEOUT_SCALE=$timeout_scale
exec >$tty_out 2>&1
if [ \$fail -ne 0 ]; then
	echo "run-in-vm: loading modules failed"
	rc=125
else
	cd /tmp
	$before_cmd
	$run_cmd
	rc=\$?
	$after_cmd
fi
echo "@@RUN_IN_VM_EXIT=\$rc@@"
sync
poweroff -f
EOF
chmod +x "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd" ||
	die "cpio failed"

# --- boot ------------------------------------------------------------------
[ -n "$console" ] || console=$work/console.log
mkdir -p "$(dirname "$console")"
: >"$console"
out=$work/out.log
say "booting $krel (${#load_order[@]} modules, initrd $(($(stat -c %s "$work/initrd") / 1024)) KiB)"
start=$EPOCHREALTIME
# A kernel that dies before /init runs has not met any of our code yet (seen
# rarely under TCG: a fault in the timer code during early boot). Such a boot
# is retried, twice at most, and said so; anything after /init counts.
if [ "$arch" = arm64 ]; then
	out_dev=(-device virtio-serial-pci -chardev "file,id=out,path=$out" -device virtconsole,chardev=out)
else
	out_dev=(-serial "file:$out")
fi
for attempt in 1 2 3; do
	: >"$console"
	: >"$out"
	rc=0
	timeout -k 5 "$timeout" $qemu \
		-machine "$machine" -cpu max -smp "$cpus" -m "$mem" $qemu_extra \
		-nographic -no-reboot -nodefaults -monitor none \
		-kernel "$vmlinuz" -initrd "$work/initrd" \
		${disk:+-drive "file=$disk,format=raw,if=virtio,cache=none"} \
		-serial "file:$console" "${out_dev[@]}" \
		-append "console=$tty_console panic=-1 oops=panic loglevel=6 rdinit=/init $append_extra" \
		</dev/null >"$work/qemu.log" 2>&1 || rc=$?
	if grep -a -q '@@RUN_IN_VM_INIT@@' "$console" || [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		break
	fi
	echo "run-in-vm: the kernel died before /init (attempt $attempt); console tail:" >&2
	tail -n 15 "$console" >&2
	cp "$console" "$console.boot-failure-$attempt"
done
elapsed=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $start }")

tr -d '\r' <"$out" >"$work/out.txt"
tr -d '\r' <"$console" >"$console.tmp" && mv "$console.tmp" "$console"
status=$(grep -a -o '@@RUN_IN_VM_EXIT=[0-9]*@@' "$work/out.txt" | tail -n1 | tr -dc 0-9)
grep -a -v '@@RUN_IN_VM_EXIT=' "$work/out.txt"

if [ -z "$status" ]; then
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "run-in-vm: timed out after ${timeout}s; console tail:" >&2
		status=124
	else
		echo "run-in-vm: the VM stopped without an exit status (qemu rc $rc); console tail:" >&2
		cat "$work/qemu.log" >&2
		status=125
	fi
	tail -n 40 "$console" >&2
fi

# Any kernel report in the console fails the run, whatever the command
# returned.
if ! "$(dirname "$0")/kernel-reports.sh" "$console" >"$work/reports.txt" 2>&1; then
	echo "run-in-vm: the kernel console shows a problem:" >&2
	cat "$work/reports.txt" >&2
	[ "$status" -eq 0 ] && status=126
fi
say "exit $status after ${elapsed}s (console: $console)"
exit "$status"
