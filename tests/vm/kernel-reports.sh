#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Find kernel reports in a VM console log: oops, BUG, WARN, lockdep, KASAN,
# UBSAN, DEBUG_OBJECTS, kmemleak, DMA-API, hung tasks, soft lockups, RCU
# stalls, list or refcount corruption. The one place that knows what a
# report looks like: run-in-vm.sh calls it after every run, on the release
# kernel (make check) and on the debug kernels (make check-debug).
#
# usage: kernel-reports.sh <console log>
# Prints each report's first lines, and the test that was running if the
# log says (run-in-vm.sh -D), and exits 1 if there is any; exits 0 and
# prints nothing on a clean log.
set -uo pipefail
log=${1:?usage: kernel-reports.sh <console log>}
[ -f "$log" ] || { echo "kernel-reports: no $log" >&2; exit 2; }

# The first line of each kind of report, as printk writes it.
reports=(
	'Oops'
	'BUG:'				# BUG: KASAN:, BUG: KCSAN:, sleeping function, workqueue lockup, ...
	'kernel BUG at'
	'WARNING:'			# WARN*(), lockdep's "WARNING: possible circular ..."
	'------------\[ cut here \]'
	'Call Trace:'			# a stack dump with none of the above
	'general protection fault'
	'Kernel panic'
	'UBSAN:'
	'possible circular locking'
	'possible recursive locking'
	'inconsistent lock state'
	'possible irq lock inversion'
	'suspicious RCU usage'
	'DEBUG_LOCKS_WARN_ON'
	'ODEBUG: .*object type:'		# inside a WARN, also on its own line
	'ODEBUG: Out of memory'		# debug objects switched themselves off
	'unreferenced object 0x'	# kmemleak, once the harness has made it scan
	'kmemleak: .*new suspected memory leak'
	'DMA-API: [^ ]+ [^ ]+: '		# "DMA-API: <driver> <device>: <error>"
	'DMA-API: (exceeded|.*out of memory|.*ENOMEM)'
	'INFO: task .* blocked for more than'
	'soft lockup'
	'hard LOCKUP'
	'rcu: INFO:'
	'rcu_.*detected stalls'
	'list_add corruption'
	'list_del corruption'
	'refcount_t:'
	'Memory manager not clean'	# DRM_DEBUG_MM at drm_mm_takedown
	'run-in-vm: .* left behind'	# the debug run's own checks (module unload)
)
# Lines that match a pattern above but are no report.
benign=(
	'kmemleak: Kernel memory leak detector initialized'
	'kmemleak: Automatic memory scanning thread'
	'gaccel-test: '			# a test's own output (run-in-vm.sh -D)
)

pat=$(IFS='|'; echo "${reports[*]}")
ok=$(IFS='|'; echo "${benign[*]}")
lines=$(grep -a -n -E "$pat" "$log" | grep -a -v -E "$ok") || exit 0
[ -n "$lines" ] || exit 0

# First every report line with the test that was running (run-in-vm.sh -D
# logs the RUN lines), then the first reports with the lines after them
# (their stacks), at most 200 lines.
echo "kernel-reports: $(echo "$lines" | wc -l) report line(s) in $log:"
# (Not the "cut here" and "Call Trace:" lines of a report already listed.)
heads=$(echo "$lines" | grep -a -v -E 'cut here|Call Trace:')
[ -n "$heads" ] || heads=$lines
# Lines that differ only in numbers (times, addresses, sizes) are listed
# once, with how many there are.
echo "$heads" | awk '{
	key = $0
	sub(/^[0-9]+:/, "", key)
	sub(/^(\[[^]]*\])+ */, "", key)
	gsub(/0x[0-9a-f]+|[0-9]+/, "N", key)
	if (!(key in count)) { order[++n] = key; first[key] = $0 }
	count[key]++
} END {
	for (i = 1; i <= n; i++)
		print count[order[i]] "\t" first[order[i]]
}' | head -n 40 | while IFS=$'\t' read -r count line; do
	n=${line%%:*}
	during=$(head -n "$n" "$log" | grep -a -o 'gaccel-test: #  RUN .*' | tail -n1 |
		sed -E 's/.*RUN +//; s/ \.\.\.$//')
	more=
	[ "$count" -gt 1 ] && more=" (and $((count - 1)) more like it)"
	echo "  line $n$more: ${line#*:}${during:+   (during $during)}"
done
echo "kernel-reports: the first of them in full:"
first=
echo "$lines" | cut -d: -f1 | while read -r n; do
	if [ -n "$first" ] && [ "$n" -le "$first" ]; then
		continue
	fi
	sed -n "${n},$((n + 24))p" "$log"
	echo "--"
	first=$((n + 24))
done | head -n 200
exit 1
