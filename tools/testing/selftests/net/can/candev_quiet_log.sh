#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A bus that flaps writes a bounded number of log lines: a virtual-bus
# controller (can-vbus) is put bus-off over and over for seconds, with
# restart-ms bringing it back each time; the device layer's bus-off and
# restart messages must stay within their rate limit while the counters
# still count every one.

source "$(dirname "$0")/lib/can_test.sh"

DBG=/sys/kernel/debug
DEV=ql$$
# Forty bus-offs in about ten seconds are many times what the limit lets
# through, and cost the test a third of the time of the 120 it ran before.
ROUNDS=40

node_dir() {
	echo $DBG/can_vbus/net*-group4711/"$DEV"
}

restarted_at_least() {
	[ "$(can_xstat "$DEV" 1)" -ge "$1" ]
}

test_flapping_bus_writes_few_lines() {
	local mark=can-quiet-log-$$ lines i offs t0 most fault

	fault=$(node_dir)/fault
	echo "$mark" > /dev/kmsg
	t0=$SECONDS
	for i in $(seq $ROUNDS); do
		echo bus-off > "$fault" || return 1
		wait_until 2 restarted_at_least "$i" ||
			{ fail "no restart in round $i"; return 1; }
	done
	offs=$(can_xstat "$DEV" 6)
	[ "$offs" -ge $ROUNDS ] || { fail "bus-off counted $offs times"; return 1; }
	lines=$(dmesg | sed -n "/$mark/,\$p" | grep -c "$DEV: bus-off")
	# Three per ten-second window of the limit (a slow kernel takes
	# longer). A window starts at the first message after the last one
	# ended, so one begun by an earlier test may still be open at t0:
	# the test's time meets at most two windows more than it spans.
	most=$((3 * ((SECONDS - t0 + 1) / 10 + 2)))
	log "$ROUNDS bus-offs in $((SECONDS - t0)) s, $lines log lines (at most $most)"
	[ "$lines" -le "$most" ] && [ "$lines" -lt $ROUNDS ] ||
		{ fail "$lines bus-off lines"; return 1; }
}

ktap_header 1
mountpoint -q $DBG || mount -t debugfs none $DBG
if ! modprobe can-vbus; then
	run_test flapping_bus_writes_few_lines false
	ktap_finish
fi
ip link add dev "$DEV" group 4711 type can bitrate 500000 restart-ms 5 &&
	ip link set "$DEV" up
CAN_LINKS+=("$DEV")
run_test flapping_bus_writes_few_lines test_flapping_bus_writes_few_lines
ktap_finish
