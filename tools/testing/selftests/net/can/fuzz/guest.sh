#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer's run inside the debug kernel's VM (started by fuzz.sh):
# load the stack, bring up the SJA1000 cards, run can_fuzz with the
# arguments given, scan for leaks, then print the files can_fuzz wrote
# between FUZZ-FILE markers (the guest cannot write to the host's tree;
# fuzz.sh takes them from this output).
#
#   guest.sh --replay FILE [--trace]      replay instead of fuzzing

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
FUZZ=$TOP/build/fuzz/can_fuzz
OUT=/tmp/can_fuzz
KMEMLEAK=/sys/kernel/debug/kmemleak

# An oops kills the task that hit it; the fuzzer must outlive it to
# write its replay files (the command line says oops=panic for tests).
echo 0 > /proc/sys/kernel/panic_on_oops
echo 0 > /proc/sys/kernel/panic_on_warn 2>/dev/null
# Hung-task reports after 60 s, not 120, so a hang shows within a run.
echo 60 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
ulimit -c 0

for m in can can_raw can_bcm can_isotp can_gw vcan vxcan can_dev kvaser_pci pcm3680_pci \
	can_vbus; do
	modprobe "$m" 2>/dev/null
done
# Mainline's SAE J1939 on our core (ops_j1939.c) is built outside the
# kernel's modules: for the debug kernel by can-debug-kernel.sh, for
# Debian's by "make compat-build". Whichever fits the running kernel.
for ko in "$TOP/build/debug-testmods/compat/modules/can-j1939.ko" \
	"$TOP/build/compat/modules/can-j1939.ko"; do
	[ -e "$ko" ] && insmod "$ko" 2>/dev/null && export CAN_FUZZ_J1939=$ko && break
done
grep -q '^can_j1939 ' /proc/modules || echo "fuzz: no can-j1939: the j1939 ops will fail"
ip link add dev vcan0 type vcan 2>/dev/null && ip link set vcan0 up
for d in can0 can1 can2 can3; do
	ip link set "$d" type can bitrate 500000 2>/dev/null &&
		ip link set "$d" up 2>/dev/null
done

# The kernel asks modprobe for a module on a socket of an unknown
# protocol, a link of an unknown kind, an ioctl on a missing device:
# nearly always for a module that does not exist, and each modprobe
# takes a second in the VM. Module ops load ours with finit_module().
echo /nonexistent/modprobe > /proc/sys/kernel/modprobe

if [ "${1:-}" = --replay ]; then
	"$FUZZ" "$@"
	echo "fuzz: replay finished (status $?)"
	# The report, if any, is in the kernel log: vmtest.sh prints it.
	exit 0
fi

[ -w $KMEMLEAK ] && echo clear > $KMEMLEAK
rm -rf "$OUT"
mkdir -p "$OUT"
"$FUZZ" --out "$OUT" "$@"
rc=$?

# Leaks show only when nothing refers to them any more: after the
# workers are gone and RCU has freed what they released, two scans.
if [ "$rc" = 0 ] && [ -w $KMEMLEAK ]; then
	sleep 2
	echo scan > $KMEMLEAK
	sleep 6
	echo scan > $KMEMLEAK
	cat $KMEMLEAK > "$OUT/kmemleak.txt"
	if [ -s "$OUT/kmemleak.txt" ]; then
		echo "fuzz: kmemleak: $(grep -c '^unreferenced object' "$OUT/kmemleak.txt")" \
			"unreferenced objects after the run (no replay: a leak has no moment)"
		head -40 "$OUT/kmemleak.txt"
		rc=1
	else
		rm "$OUT/kmemleak.txt"
	fi
fi

# The kernel's log of a run without a report too: slow spells (a
# worker restarted as stuck) are read from it afterwards.
dmesg > "$OUT/dmesg.txt"

for f in "$OUT"/*; do
	[ -f "$f" ] || continue
	echo "FUZZ-FILE-BEGIN $(basename "$f")"
	cat "$f"
	echo "FUZZ-FILE-END"
done
echo "fuzz: guest status $rc"
exit $rc
