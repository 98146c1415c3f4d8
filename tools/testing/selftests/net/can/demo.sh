#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A first look at our CAN stack, run inside the test VM by "make demo":
# unmodified can-utils talk over a vcan interface served by our modules.

set -e

step() {
	printf '\n== %s\n' "$*"
}

show() {
	printf '$ %s\n' "$*"
	"$@"
}

step "Load our modules (socket() autoloads can and can-raw on demand)"
show modprobe vcan
show ip link add dev vcan0 type vcan
show ip link set vcan0 up

step "cansend into candump"
candump -t z -n 4 vcan0 > /tmp/candump.log 2>&1 &
dump=$!
for _ in $(seq 50); do
	grep -q vcan0 /proc/net/can/rcvlist_all 2>/dev/null && break
	sleep 0.1
done
show cansend vcan0 123#DEADBEEF
show cansend vcan0 12345678#0011223344556677
show cansend vcan0 7FF#R
show cangen vcan0 -n 1 -I 42A -L 3 -D 010203
wait $dump
cat /tmp/candump.log

step "Which modules serve PF_CAN: ours, from updates/"
show lsmod
for m in can can-raw vcan; do
	printf '%-8s %s\n         %s\n' "$m" "$(modinfo -F filename "$m")" \
		"$(modinfo -F description "$m")"
done

step "Interface statistics"
show ip -d -s link show vcan0

# make demo gives the guest two SJA1000 cards on one emulated bus; the
# guest has no udev, so load their PCI driver by hand.
modprobe kvaser_pci 2>/dev/null
cards=$(ip -o link show type can 2>/dev/null | awk -F': ' '{ print $2 }' | head -2)
if [ "$(echo "$cards" | wc -w)" = 2 ]; then
	set -- $cards
	step "Two SJA1000 cards on one bus ($1, $2): our can-dev, sja1000, kvaser_pci"
	for c in "$1" "$2"; do
		show ip link set "$c" type can bitrate 500000 sample-point 0.875
		show ip link set "$c" up
	done
	candump -t z -n 2 "$2" > /tmp/cards.log 2>&1 &
	dump=$!
	for _ in $(seq 50); do
		grep -q "$2" /proc/net/can/rcvlist_all 2>/dev/null && break
		sleep 0.1
	done
	show cansend "$1" 321#C0FFEE
	show cansend "$1" 1ABCDEF0#0102030405060708
	wait $dump
	cat /tmp/cards.log
	show ip -d -s link show "$1"
fi

if [ -d /proc/net/can ]; then
	step "/proc/net/can"
	for f in version stats rcvlist_all; do
		[ -r /proc/net/can/$f ] && show cat /proc/net/can/$f
	done
fi
step "Done"
