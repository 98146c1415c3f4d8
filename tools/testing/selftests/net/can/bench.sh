#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks, run inside the VM by "make bench" under qemu -icount shift=0:
# every scenario first on mainline's CAN modules (Debian's, loaded by path
# from /opt/mainline-can) and then on ours, in the same boot. Prints one
# table: scenario, mainline, ours, ours/mainline. Not a test.
#
#   bench.sh [SCENARIO:N ... | bcm | isotp ...]
#
# With arguments, only the can_bench scenarios named and, given "bcm",
# bcm_bench, given "isotp", isotp_bench, given "vbus", vbus_bench.sh
# run: for a quick look at one figure. The virtual bus has no mainline
# counterpart: vbus_bench.sh prints its own lines after the table.

set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../.." && pwd)
BENCH=$TOP/build/selftests/can_bench
GW_BENCH=$TOP/build/selftests/gw_bench
LATENCY=$TOP/build/selftests/can_latency
ML=/opt/mainline-can
OUT=/tmp/bench
mkdir -p $OUT

# SCENARIO:N pairs for can_bench; costs are virtual ns per frame, except
# regtime (ns for all N) and memsock/memfilt (slab bytes per socket/filter).
# gw:N is gw_bench: a frame routed by can-gw past N jobs that miss it.
# lat:N is can_latency: write-to-wake-up time of 2000 probes while N
# processes flood the interface (p50, p99, max in ns; probes lost).
SCENARIOS="loop:1 loopfd:1 xl:1 report:1 lat:0 lat:1 lat:4
sff:1 sff:10 sff:100 sff:1000 sff:10000
eff:1 eff:10 eff:100 eff:1000 eff:10000
mask:1 mask:10 mask:100 mask:1000 mask:10000
all:1 all:10 all:100
invmix:3 invmix:300 invmix:3000
regtime:10000 memsock:10000 memfilt:512
gw:1 gw:100 gw:1000 gw:10000"
RUN_BCM=1
RUN_ISOTP=1
RUN_VBUS=1
if [ $# -gt 0 ]; then
	SCENARIOS=""
	RUN_BCM=0
	RUN_ISOTP=0
	RUN_VBUS=0
	for arg; do
		case $arg in
		bcm) RUN_BCM=1 ;;
		isotp) RUN_ISOTP=1 ;;
		vbus) RUN_VBUS=1 ;;
		*) SCENARIOS="$SCENARIOS $arg" ;;
		esac
	done
fi

# Let the previous scenario's deferred frees (RCU callbacks) finish, so
# that they are not charged to the next one.
settle() {
	sleep 0.5
}

# Debian's 6.1 modules are plain .ko files, 6.12's are .ko.xz; kmod's
# insmod reads either.
insmod_mainline() {
	insmod "$(ls "$ML/can/$1".ko*)"
}

load_mainline() {
	insmod_mainline dev/can-dev
	insmod_mainline vcan
	insmod_mainline can
	insmod_mainline can-raw
	insmod_mainline can-bcm
	insmod_mainline can-isotp
	insmod_mainline can-gw
}

unload_mainline() {
	rmmod can-gw can-isotp can-bcm can-raw vcan can can-dev
}

load_ours() {
	modprobe vcan
	modprobe can-raw
	modprobe can-bcm
	modprobe can-isotp
	modprobe can-gw
}

unload_ours() {
	modprobe -r can-gw can-isotp can-bcm can-raw vcan
	# Our can-dev needs our can, so it goes first.
	lsmod | grep -q '^can_dev' && modprobe -r can-dev
	modprobe -r can 2>/dev/null || true
}

# bench_mtu MTU: give vcanb the MTU of the frames a scenario sends.
bench_mtu() {
	ip link set vcanb down
	ip link set vcanb mtu "$1"
	ip link set vcanb up
}

run_all() {
	local who=$1 sc n

	for entry in $SCENARIOS; do
		sc=${entry%%:*}
		n=${entry#*:}
		ip link add dev vcanb type vcan
		ip link set vcanb up
		case $sc in
		loopfd) bench_mtu 72 ;;
		xl) bench_mtu 2060 ;;
		esac
		settle
		if [ "$sc" = gw ]; then
			ip link add dev vcanc type vcan
			ip link set vcanc up
			"$GW_BENCH" vcanb vcanc "$n" >> "$OUT/$who"
			ip link del dev vcanc
		elif [ "$sc" = lat ]; then
			"$LATENCY" vcanb 2000 "$n" >> "$OUT/$who"
		else
			"$BENCH" vcanb "$sc" "$n" >> "$OUT/$who"
		fi
		ip link del dev vcanb
	done
	if [ $RUN_BCM = 1 ]; then
		settle
		"$TOP/build/selftests/bcm_bench" >> "$OUT/$who"
	fi
	if [ $RUN_ISOTP = 1 ]; then
		ip link add dev vcanb type vcan
		ip link set vcanb mtu 72
		ip link set vcanb up
		settle
		"$TOP/build/selftests/isotp_bench" vcanb >> "$OUT/$who"
		ip link del dev vcanb
	fi
}

: > $OUT/mainline
: > $OUT/ours
load_mainline
run_all mainline
unload_mainline
load_ours
run_all ours
unload_ours

printf '%-38s %6s %12s %12s %7s\n' scenario N mainline ours ratio
# can_bench prints "scenario N value", bcm_bench "name value".
keyed() {
	awk 'NF == 2 { print $1 "/-", $2 } NF == 3 { print $1 "/" $2, $3 }' "$1" | sort
}
# Rows that count work done (both stacks should show the same) or that
# describe rather than cost (the mean BCM period; its error is the drift)
# get no ratio.
join -j1 <(keyed $OUT/mainline) <(keyed $OUT/ours) |
	awk '{ split($1, k, "/");
	       count = k[1] ~ /(\.ops|\.frames|period_us|mean_gap_us|frames_per_s)$/ ||
		       k[1] ~ /(rx_changed|lat_lost|bytes_per_s)$/;
	       r = (count || $2 <= 0) ? "-" : sprintf("%.2f", $3 / $2);
	       printf "%-38s %6s %12s %12s %7s\n", k[1], k[2], $2, $3, r }' |
	sort -k1,1 -k2,2n

if [ $RUN_VBUS = 1 ]; then
	"$HERE/vbus_bench.sh"
fi
