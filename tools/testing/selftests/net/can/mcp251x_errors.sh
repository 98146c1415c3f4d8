#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error handling of the MCP251x driver on modelled MCP2515 chips
# (mcp2515_model.ko): error counters set through the model's debugfs
# must reach user space as the right error frames and states, bus-off
# must hold the chip until a manual or automatic restart, a receive
# overflow must be counted and reported with the surviving frames in
# order, and the model must catch an access the real chip would refuse.

source "$(dirname "$0")/lib.sh"

DRIVER=/sys/bus/spi/drivers/mcp251x
MOD=$CAN_TESTMODS/mcp2515_model/mcp2515_model.ko
DBG=/sys/kernel/debug/mcp2515_model
DEV=
CHIP=

setup() {
	local spi

	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	modprobe mcp251x || return 1
	insmod "$MOD" chips=1 || return 1
	wait_until 10 test -n "$(can_ifaces_of "$DRIVER")" || return 1
	DEV=$(can_ifaces_of "$DRIVER")
	# spiB.C on 6.1, spi-mcp2515_model.C on 6.12 (named after the
	# model's software node): C is the model's chip number.
	spi=$(basename "$(readlink -f "/sys/class/net/$DEV/device")")
	CHIP=$DBG/chip${spi##*.}
	ip link set "$DEV" type can bitrate 500000 || return 1
	ip link set "$DEV" up
}

# expect_error_frame EXPECTED COMMAND...: COMMAND makes one error frame,
# exactly this one (candump -L form).
expect_error_frame() {
	local want=$1 pid

	shift
	timeout 10 candump -L -n 1 "$DEV,#FFFFFFFF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	"$@" || { fail "$*"; return 1; }
	wait "$pid" || { fail "no error frame: $(cat "$CAN_TMP/dump")"; return 1; }
	grep -q " $want\$" "$CAN_TMP/dump" ||
		{ fail "want $want got $(cat "$CAN_TMP/dump")"; return 1; }
}

counters() {
	echo "$1 $2" > "$CHIP/errors"
}

test_error_warning_reports_tx_side_and_counters() {
	expect_error_frame 20000204#0008000000006000 counters 96 0 || return 1
	can_state_is "$DEV" ERROR-WARNING || { fail "state"; return 1; }
	ip -d link show "$DEV" | grep -q "berr-counter tx 96 rx 0" ||
		{ fail "$(ip -d link show "$DEV")"; return 1; }
	[ "$(can_xstat "$DEV" 4)" = 1 ] || { fail "error-warn $(can_xstat "$DEV" 4)"; return 1; }
}

test_error_passive_reports_rx_side() {
	expect_error_frame 20000204#0010000000005A80 counters 90 128 || return 1
	can_state_is "$DEV" ERROR-PASSIVE || { fail "state"; return 1; }
	[ "$(can_xstat "$DEV" 5)" = 1 ] || { fail "error-pass $(can_xstat "$DEV" 5)"; return 1; }
}

test_return_to_error_active_is_reported() {
	expect_error_frame 20000204#0040000000000000 counters 0 0 || return 1
	can_state_is "$DEV" ERROR-ACTIVE || { fail "state"; return 1; }
}

test_bus_off_drops_carrier_and_holds_chip() {
	expect_error_frame 20000240#000000000000FF00 counters 256 0 || return 1
	can_state_is "$DEV" BUS-OFF || { fail "state"; return 1; }
	ip link show "$DEV" | grep -q NO-CARRIER || { fail "carrier still on"; return 1; }
	[ "$(can_xstat "$DEV" 6)" = 1 ] || { fail "bus-off $(can_xstat "$DEV" 6)"; return 1; }
	# READ CANSTAT: the driver put the chip into configuration mode.
	echo "03 0e 00" > "$CHIP/spi" || return 1
	[ "$(cat "$CHIP/spi")" = "00 00 80" ] || { fail "CANSTAT $(cat "$CHIP/spi")"; return 1; }
}

test_manual_restart_recovers_from_bus_off() {
	can_check_manual_restart "$DEV" || return 1
	ip -d link show "$DEV" | grep -q "berr-counter tx 0 rx 0" ||
		{ fail "counters not reset"; return 1; }
	cansend "$DEV" 123#01 || return 1
	wait_until 5 test "$(can_stat "$DEV" tx_packets)" -ge 1 ||
		{ fail "no transmission after restart"; return 1; }
}

test_automatic_restart_after_restart_ms() {
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 100 || return 1
	ip link set "$DEV" up || return 1
	counters 256 0 || return 1
	# The restart may come before a look at the state could see bus-off.
	wait_until 5 test "$(can_xstat "$DEV" 6)" = 2 || { fail "no bus-off"; return 1; }
	wait_until 5 can_state_is "$DEV" ERROR-ACTIVE || { fail "no automatic restart"; return 1; }
	[ "$(can_xstat "$DEV" 1)" = 2 ] || { fail "re-started $(can_xstat "$DEV" 1)"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 0
	ip link set "$DEV" up
}

# Three frames at once: RXB0, RXB1 (rollover), and one lost.
test_receive_overflow_is_counted_in_order() {
	local over0 got pid

	over0=$(cat "/sys/class/net/$DEV/statistics/rx_over_errors")
	timeout 10 candump -L -n 3 "$DEV,0:0,#FFFFFFFF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	echo 3 > "$CHIP/inject" || return 1
	wait "$pid" || { fail "frames missing: $(cat "$CAN_TMP/dump")"; return 1; }
	got=$(awk '{ print $3 }' "$CAN_TMP/dump" | tr '\n' ' ')
	[ "$got" = "100#00 101#01 20000004#0001000000000000 " ] ||
		{ fail "got $got"; return 1; }
	[ $(($(cat "/sys/class/net/$DEV/statistics/rx_over_errors") - over0)) -eq 1 ] ||
		{ fail "rx_over_errors"; return 1; }
}

test_model_catches_refused_access() {
	[ "$(cat "$CHIP/violations")" = 0 ] || { fail "driver made violations"; return 1; }
	# WRITE CNF1 while the chip runs in normal mode.
	echo "02 2a 00" > "$CHIP/spi" || return 1
	[ "$(cat "$CHIP/violations")" = 1 ] || { fail "not counted"; return 1; }
	dmesg | grep -q "mcp2515_model: violation: chip.*CNF" || { fail "not logged"; return 1; }
	echo 0 > "$CHIP/violations"
}

test_model_unloads_with_interface_up() {
	rmmod mcp2515_model || return 1
	[ -z "$(can_ifaces_of "$DRIVER")" ] || { fail "interface left"; return 1; }
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

ktap_header 10
run_test model_and_driver_load setup
run_test error_warning_reports_tx_side_and_counters test_error_warning_reports_tx_side_and_counters
run_test error_passive_reports_rx_side test_error_passive_reports_rx_side
run_test return_to_error_active_is_reported test_return_to_error_active_is_reported
run_test bus_off_drops_carrier_and_holds_chip test_bus_off_drops_carrier_and_holds_chip
run_test manual_restart_recovers_from_bus_off test_manual_restart_recovers_from_bus_off
run_test automatic_restart_after_restart_ms test_automatic_restart_after_restart_ms
run_test receive_overflow_is_counted_in_order test_receive_overflow_is_counted_in_order
run_test model_catches_refused_access test_model_catches_refused_access
run_test model_unloads_with_interface_up test_model_unloads_with_interface_up
ktap_finish
