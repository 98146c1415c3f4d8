#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the virtual bus (can-vbus) costs, run by "make bench B=vbus" under
# qemu -icount: NODES controllers in one group each send FRAMES frames
# as fast as they can (a long qdisc, so that nobody meets ENOBUFS), which
# keeps the bus saturated until all have crossed it. Prints, per bitrate, the
# frames per second the wire arithmetic allows (the bus's own busy time),
# the rate measured by the guest clock, their difference (how well the
# timer keeps pace), how late after its end on the wire a frame reaches
# the nodes (timestamps stay on the wire's time), the CPU share of the bus timer (scheduling, skbs
# for every receiver and the echo, handed to the stack) and of the whole
# guest (the stack's receive path as well). Not a test.

set -eu

NODES=${NODES:-3}
FRAMES=${FRAMES:-3000}
GROUP=4242
DBG=/sys/kernel/debug

mountpoint -q $DBG || mount -t debugfs none $DBG
modprobe can-vbus
modprobe can-raw

# Busy and total jiffies of all CPUs from /proc/stat.
cpu_ticks() {
	local cpu user nice sys idle iowait irq softirq rest

	read -r cpu user nice sys idle iowait irq softirq rest < /proc/stat
	echo $((user + nice + sys + irq + softirq)) \
		$((user + nice + sys + irq + softirq + idle + iowait))
}

# "frames busy-ns age-ns timer-ns late-ns late-max-ns" of a bus, read at
# one instant.
bus_stats() {
	local k v frames=0 busy=0 age=0 timer=0 late=0 late_max=0

	while read -r k v; do
		case $k in
		frames) frames=$v ;;
		busy-ns) busy=$v ;;
		age-ns) age=$v ;;
		timer-ns) timer=$v ;;
		late-ns) late=$v ;;
		late-max-ns) late_max=$v ;;
		esac
	done < "$1/stats"
	echo "$frames $busy $age $timer $late $late_max"
}

wait_frames() {
	local frames rest

	while read -r frames rest <<< "$(bus_stats "$1")" && [ "$frames" -lt "$2" ]; do
		sleep 0.05
	done
}

bench_rate() {
	local rate=$1 i bus total f0 b0 a0 x0 l0 f1 b1 a1 x1 l1 m1 c0 t0 c1 t1

	for i in $(seq 0 $((NODES - 1))); do
		ip link add dev vbb$i group $GROUP txqueuelen $((FRAMES + 10)) \
			type can bitrate "$rate"
		ip link set vbb$i up
	done
	bus=$(dirname "$(ls -d $DBG/can_vbus/*group$GROUP/vbb0)")
	total=$((NODES * FRAMES))
	# Every frame fits the qdisc and the socket's send buffer, so the
	# writers queue all and are gone before the bus is 10% through:
	# what is measured then is the bus alone.
	for i in $(seq 0 $((NODES - 1))); do
		cangen vbb$i -g 0 -n "$FRAMES" -I $((0x100 + i)) -L 8 \
			-D 0123456789abcdef &
	done
	wait
	wait_frames "$bus" $((total / 10))
	read -r c0 t0 <<< "$(cpu_ticks)"
	read -r f0 b0 a0 x0 l0 _ <<< "$(bus_stats "$bus")"
	wait_frames "$bus" $((total * 9 / 10))
	read -r c1 t1 <<< "$(cpu_ticks)"
	read -r f1 b1 a1 x1 l1 m1 <<< "$(bus_stats "$bus")"
	awk -v r="$rate" -v n=$((f1 - f0)) -v busy=$((b1 - b0)) \
	    -v wall=$((a1 - a0)) -v cpu="$(((c1 - c0) * 1000 / (t1 - t0)))" \
	    -v timer=$((x1 - x0)) -v late=$((l1 - l0)) -v late_max="$m1" \
	    -v nodes="$NODES" 'BEGIN {
		printf "vbus %7d bit/s %d nodes: %d frames, ", r, nodes, n;
		printf "arithmetic %.0f/s, measured %.0f/s (%+.2f%%)\n",
			n * 1e9 / busy, n * 1e9 / wall, 100 * (busy / wall - 1);
		printf "vbus %7d bit/s: bus timer %.2f%% CPU (%.2f us/frame), ",
			r, 100 * timer / wall, timer / 1000 / n;
		printf "whole guest %.1f%% CPU (%.1f us/frame)\n",
			cpu / 10, cpu / 1000 * wall / 1000 / n;
		printf "vbus %7d bit/s: frames reach the nodes %.1f us ",
			r, late / 1000 / n;
		printf "after their end on the wire (mean), %.1f us at most\n",
			late_max / 1000 }'
	for i in $(seq 0 $((NODES - 1))); do
		ip link del dev vbb$i
	done
}

sysctl -qw net.core.wmem_default=$((64 << 20))
for rate in ${RATES:-125000 500000 1000000}; do
	bench_rate "$rate"
done
