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
# guest (the stack's receive path as well). Then, per bitrate, a writer
# that knows nothing of the wire: cangen -g 0 on one of two nodes with
# net.can.raw_tx_wait on (CAN_RAW_TX_WAIT), for TXW_SECS seconds of guest
# time: the frames per second the peer receives against the rate the
# bus's busy time allows. Not a test.

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

# A saturating writer with CAN_RAW_TX_WAIT: cangen writes as fast as it
# can into the default queue (txqueuelen 10) and would exit at the first
# ENOBUFS; with the sysctl on its writes wait instead. The peer's
# rx_packets over guest time is the rate the writer gets.
bench_tx_wait() {
	local rate=$1 bus pid t0 t1 r0 r1 f0 b0 f1 b1

	ip link add dev vbw0 group $((GROUP + 1)) type can bitrate "$rate"
	ip link add dev vbw1 group $((GROUP + 1)) type can bitrate "$rate"
	ip link set vbw0 up
	ip link set vbw1 up
	bus=$(dirname "$(ls -d $DBG/can_vbus/*group$((GROUP + 1))/vbw0)")
	sysctl -qw net.can.raw_tx_wait=1
	cangen vbw0 -g 0 -I 123 -L 8 -D 0011223344556677 &
	pid=$!
	sleep 0.5
	read -r f0 b0 _ <<< "$(bus_stats "$bus")"
	r0=$(cat /sys/class/net/vbw1/statistics/rx_packets)
	t0=$(date +%s%N)
	sleep "${TXW_SECS:-3}"
	read -r f1 b1 _ <<< "$(bus_stats "$bus")"
	r1=$(cat /sys/class/net/vbw1/statistics/rx_packets)
	t1=$(date +%s%N)
	if kill "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
	else
		echo "vbus $rate bit/s: cangen ended early (a write failed)"
	fi
	sysctl -qw net.can.raw_tx_wait=0
	awk -v r="$rate" -v n=$((r1 - r0)) -v t=$((t1 - t0)) \
	    -v f=$((f1 - f0)) -v busy=$((b1 - b0)) 'BEGIN {
		printf "vbus %7d bit/s TX_WAIT writer (cangen -g 0): ", r;
		printf "peer got %d frames in %.3f s, measured %.1f/s, ",
			n, t / 1e9, n * 1e9 / t;
		printf "arithmetic %.1f/s (%d frames, %.0f busy ns), ",
			f * 1e9 / busy, f, busy;
		printf "ratio %.4f\n", (n * 1e9 / t) / (f * 1e9 / busy) }'
	ip link del dev vbw0
	ip link del dev vbw1
}

sysctl -qw net.core.wmem_default=$((64 << 20))
for rate in ${RATES:-125000 500000 1000000}; do
	bench_rate "$rate"
done
for rate in ${RATES:-125000 500000 1000000}; do
	bench_tx_wait "$rate"
done
