#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pcm3680_pci glue on QEMU's dual channel board: both channels come
# up as CAN devices, frames cross between them, and the driver unbinds
# and unloads with a socket open. Needs
#   -object can-bus,id=b1 -device pcm3680_pci,canbus0=b1,canbus1=b1
# and skips without it.

source "$(dirname "$0")/lib/can_test.sh"

DRIVER=/sys/bus/pci/drivers/pcm3680_pci
A=
B=

test_both_channels_are_can_devices() {
	local d

	for d in "$A" "$B"; do
		ip -d link show "$d" | grep -q "sja1000: tseg1 1..16" || { fail "$d"; return 1; }
		ip link set "$d" down
		ip link set "$d" type can bitrate 125000 || { fail "$d bitrate"; return 1; }
		ip link set "$d" up || { fail "$d up"; return 1; }
	done
}

test_frames_cross_between_channels() {
	local pid

	timeout 20 candump -L -n 3 "$B" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$B" || { fail "candump did not bind"; return 1; }
	cansend "$A" 12345678#0102 && cansend "$A" 7FF#R && cansend "$A" 001# || return 1
	wait "$pid" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
	[ "$(awk '{ print $3 }' "$CAN_TMP/dump" | tr '\n' ' ')" = "12345678#0102 7FF#R 001# " ] ||
		{ fail "$(cat "$CAN_TMP/dump")"; return 1; }
}

test_unload_with_socket_open() {
	local pid

	timeout 30 candump "$A" > /dev/null 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$A" || { fail "candump did not bind"; return 1; }
	modprobe -r pcm3680_pci || { fail "module busy"; return 1; }
	wait "$pid"
	[ -z "$(can_ifaces_of "$DRIVER")" ] || { fail "channels left"; return 1; }
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

ktap_header 3
modprobe pcm3680_pci 2>/dev/null
read -r A B < <(can_ifaces_of "$DRIVER" | sort | tr '\n' ' ')
if [ -z "$A" ] || [ -z "$B" ]; then
	log "SKIP: needs QEMU's pcm3680_pci board and pcm3680_pci.ko"
	echo "ok 1 sja1000_pcm3680 # SKIP no board"
	KTAP_SKIP=1
	ktap_finish
fi
run_test both_channels_are_can_devices test_both_channels_are_can_devices
run_test frames_cross_between_channels test_frames_cross_between_channels
run_test unload_with_socket_open test_unload_with_socket_open
ktap_finish
