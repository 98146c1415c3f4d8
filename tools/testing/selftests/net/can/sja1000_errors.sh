#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error handling of the SJA1000 driver and the CAN device layer, on a
# fake chip (sja1000_fake.ko, a register array) whose interrupts the test
# raises with chosen status and counters: bus errors, error warning,
# error passive, bus-off with manual and automatic restart, arbitration
# lost and data overrun must reach user space as the right error frames,
# states and counters. QEMU's SJA1000 model cannot produce any of them.

source "$(dirname "$0")/lib.sh"

MOD=$CAN_TESTMODS/sja1000_fake/sja1000_fake.ko
IRQ=/sys/kernel/debug/sja1000_fake/irq
DEV=sjafake0

# raise IR SR ECC ALC TXERR RXERR (hex)
raise() {
	echo "$*" > "$IRQ"
}

# expect_error_frame EXPECTED IRQ-ARGS...: one error frame, exactly this.
expect_error_frame() {
	local want=$1 got pid

	shift
	timeout 10 candump -L -n 1 "$DEV,#FFFFFFFF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	raise "$@"
	wait "$pid" || { fail "no error frame: $(cat "$CAN_TMP/dump")"; return 1; }
	got=$(awk '{ print $3 }' "$CAN_TMP/dump")
	[ "$got" = "$want" ] || { fail "want $want got $got"; return 1; }
}

setup() {
	modprobe sja1000 || return 1
	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	insmod "$MOD" || return 1
	ip link set "$DEV" type can bitrate 500000 berr-reporting on || return 1
	ip link set "$DEV" up
}

test_bus_error_is_reported_with_type_and_location() {
	expect_error_frame 20000088#0000040A00000000 80 00 aa 00 00 00 || return 1
	[ "$(can_xstat "$DEV" 2)" = 1 ] || { fail "bus-errors $(can_xstat "$DEV" 2)"; return 1; }
}

test_error_warning_reports_tx_side_and_counters() {
	expect_error_frame 20000204#0008000000006000 04 40 00 00 60 00 || return 1
	can_state_is "$DEV" ERROR-WARNING || { fail "state"; return 1; }
	[ "$(can_xstat "$DEV" 4)" = 1 ] || { fail "error-warn $(can_xstat "$DEV" 4)"; return 1; }
}

test_error_passive_reports_rx_side() {
	expect_error_frame 20000204#0010000000001080 20 40 00 00 10 80 || return 1
	can_state_is "$DEV" ERROR-PASSIVE || { fail "state"; return 1; }
	[ "$(can_xstat "$DEV" 5)" = 1 ] || { fail "error-pass $(can_xstat "$DEV" 5)"; return 1; }
}

test_bus_off_drops_carrier() {
	expect_error_frame 20000240#000000000000FF00 04 c0 00 00 ff 00 || return 1
	can_state_is "$DEV" BUS-OFF || { fail "state"; return 1; }
	ip link show "$DEV" | grep -q NO-CARRIER || { fail "carrier still on"; return 1; }
	[ "$(can_xstat "$DEV" 6)" = 1 ] || { fail "bus-off $(can_xstat "$DEV" 6)"; return 1; }
}

test_manual_restart_recovers_from_bus_off() {
	can_check_manual_restart "$DEV"
}

test_arbitration_lost_reports_bit() {
	expect_error_frame 20000002#0500000000000000 40 00 00 05 00 00 || return 1
	[ "$(can_xstat "$DEV" 3)" = 1 ] || { fail "arbit-lost $(can_xstat "$DEV" 3)"; return 1; }
}

test_data_overrun_is_counted() {
	expect_error_frame 20000004#0001000000000000 08 00 00 00 00 00 || return 1
	[ "$(cat /sys/class/net/$DEV/statistics/rx_over_errors)" = 1 ] ||
		{ fail "rx_over_errors"; return 1; }
}

test_automatic_restart_after_restart_ms() {
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 100 || return 1
	ip link set "$DEV" up || return 1
	ip link set "$DEV" type can restart 2>/dev/null &&
		{ fail "manual restart with restart-ms"; return 1; }
	raise 04 c0 00 00 ff 00
	wait_until 5 can_state_is "$DEV" ERROR-ACTIVE || { fail "no automatic restart"; return 1; }
	[ "$(can_xstat "$DEV" 1)" = 2 ] || { fail "re-started $(can_xstat "$DEV" 1)"; return 1; }
}

test_echo_after_tx_interrupt() {
	local pid

	timeout 10 candump -L -x -n 1 "$DEV" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	cansend "$DEV" 7AB#0102 || return 1
	wait "$pid" || { fail "no echo"; return 1; }
	grep -q "7AB#0102 T" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
}

test_module_unloads_cleanly() {
	rmmod sja1000_fake || return 1
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

ktap_header 10
setup
rc=$?
if [ $rc -ne 0 ]; then
	log "SKIP: $MOD not built or not loadable (rc $rc)"
	echo "ok 1 sja1000_errors # SKIP no fake chip"
	KTAP_SKIP=1
	ktap_finish
fi
run_test bus_error_is_reported_with_type_and_location \
	test_bus_error_is_reported_with_type_and_location
run_test error_warning_reports_tx_side_and_counters test_error_warning_reports_tx_side_and_counters
run_test error_passive_reports_rx_side test_error_passive_reports_rx_side
run_test bus_off_drops_carrier test_bus_off_drops_carrier
run_test manual_restart_recovers_from_bus_off test_manual_restart_recovers_from_bus_off
run_test arbitration_lost_reports_bit test_arbitration_lost_reports_bit
run_test data_overrun_is_counted test_data_overrun_is_counted
run_test automatic_restart_after_restart_ms test_automatic_restart_after_restart_ms
run_test echo_after_tx_interrupt test_echo_after_tx_interrupt
run_test module_unloads_cleanly test_module_unloads_cleanly
ktap_finish
