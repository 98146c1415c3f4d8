#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error handling of the SJA1000 driver and the CAN device layer, on a
# fake chip (sja1000_fake.ko, a register array) whose interrupts the test
# raises with chosen status and counters: bus errors, error warning,
# error passive, bus-off with manual and automatic restart, arbitration
# lost and data overrun must reach user space as the right error frames,
# states and counters. QEMU's SJA1000 model cannot produce any of them.
# The fake also checks what the driver writes (DLC, commands, registers
# that only reset mode may change) and plays an interrupt storm, a pulled
# card, a bus-off while the interface goes down and a chip left running.
# It can also fail the driver's skb allocations (a kretprobe) and keeps
# ECC and ALC, like the chip, until they are read.

source "$(dirname "$0")/lib/can_test.sh"

MOD=$CAN_TESTMODS/sja1000_fake/sja1000_fake.ko
DBG=/sys/kernel/debug/sja1000_fake
IRQ=$DBG/irq
DEV=sjafake0

# raise IR SR ECC ALC TXERR RXERR (hex)
raise() {
	echo "$*" > "$IRQ"
}

# reg OFFSET: one register of the fake chip, as two hex digits.
reg() {
	od -An -tx1 -v -j "$1" -N 1 "$DBG/regs" | tr -d ' '
}

# The transmit buffer holds a frame the chip has not sent (SR.TBS clear).
tx_buffer_locked() {
	(( (0x$(reg 2) & 0x04) == 0 ))
}

dev_stat() {
	cat "/sys/class/net/$DEV/statistics/$1"
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

# Every error frame carries the error counters, not only state changes.
test_bus_error_is_reported_with_type_and_location() {
	local rx0 tx0

	rx0=$(dev_stat rx_errors)
	tx0=$(dev_stat tx_errors)
	expect_error_frame 20000288#0000040A00000810 80 00 aa 00 08 10 || return 1
	[ "$(can_xstat "$DEV" 2)" = 1 ] || { fail "bus-errors $(can_xstat "$DEV" 2)"; return 1; }
	[ "$(dev_stat rx_errors)" = $((rx0 + 1)) ] && [ "$(dev_stat tx_errors)" = "$tx0" ] ||
		{ fail "rx/tx_errors $(dev_stat rx_errors)/$(dev_stat tx_errors)"; return 1; }
}

# ECC direction bit 0: the error happened while we were transmitting.
test_bus_error_while_sending_counts_tx_error() {
	local rx0 tx0

	rx0=$(dev_stat rx_errors)
	tx0=$(dev_stat tx_errors)
	expect_error_frame 20000288#0000810A00000800 80 00 0a 00 08 00 || return 1
	[ "$(dev_stat tx_errors)" = $((tx0 + 1)) ] && [ "$(dev_stat rx_errors)" = "$rx0" ] ||
		{ fail "rx/tx_errors $(dev_stat rx_errors)/$(dev_stat tx_errors)"; return 1; }
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

# The chip drops a frame it could not get acknowledged when it goes
# bus-off: the frame counts as dropped and aborted, the queue comes back
# with the restart and the next frame goes out. Manual restart here, so
# that the bus-off state stays until the counters are read.
test_bus_off_counts_the_frame_in_flight() {
	local drop0 abort0 pkt0

	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 0 || return 1
	ip link set "$DEV" up || return 1
	drop0=$(dev_stat tx_dropped)
	abort0=$(dev_stat tx_aborted_errors)
	pkt0=$(dev_stat tx_packets)
	echo 1 > "$DBG/hold_tx"
	cansend "$DEV" 7A0#11 || { echo 0 > "$DBG/hold_tx"; return 1; }
	wait_until 5 tx_buffer_locked ||
		{ fail "no transmission request: SR $(reg 2)"; echo 0 > "$DBG/hold_tx"; return 1; }
	raise 04 c0 00 00 ff 00
	echo 0 > "$DBG/hold_tx"
	can_state_is "$DEV" BUS-OFF || { fail "state"; return 1; }
	[ "$(dev_stat tx_dropped)" = $((drop0 + 1)) ] &&
		[ "$(dev_stat tx_aborted_errors)" = $((abort0 + 1)) ] ||
		{ fail "tx_dropped $drop0 -> $(dev_stat tx_dropped)," \
			"tx_aborted_errors $abort0 -> $(dev_stat tx_aborted_errors)"; return 1; }
	ip link set "$DEV" type can restart || return 1
	can_state_is "$DEV" ERROR-ACTIVE || { fail "no restart"; return 1; }
	cansend "$DEV" 7A1#22 || { fail "queue stuck after restart"; return 1; }
	wait_until 5 output_cmp = $((pkt0 + 1)) dev_stat tx_packets ||
		{ fail "tx_packets $pkt0 -> $(dev_stat tx_packets)"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 100
	ip link set "$DEV" up
}

test_manual_restart_recovers_from_bus_off() {
	can_check_manual_restart "$DEV"
}

# BTR0/BTR1 (like OCR and CDR) only take writes in reset mode: the
# restart must not write them after the chip went back to work.
test_restart_writes_bit_timing_in_reset_mode() {
	[ "$(cat "$DBG/violations")" = 0 ] ||
		{ fail "$(cat "$DBG/violations") writes in operating mode"; return 1; }
	# 500 kbit/s at 8 MHz: brp 1, sjw 1, prop+phase1 13, phase2 2.
	[ "$(reg 6)$(reg 7)" = "001c" ] || { fail "BTR0/1 $(reg 6)$(reg 7)"; return 1; }
}

test_arbitration_lost_reports_bit() {
	expect_error_frame 20000202#0500000000000302 40 00 00 05 03 02 || return 1
	[ "$(can_xstat "$DEV" 3)" = 1 ] || { fail "arbit-lost $(can_xstat "$DEV" 3)"; return 1; }
}

test_data_overrun_is_counted() {
	expect_error_frame 20000204#0001000000000000 08 00 00 00 00 00 || return 1
	[ "$(cat /sys/class/net/$DEV/statistics/rx_over_errors)" = 1 ] ||
		{ fail "rx_over_errors"; return 1; }
}

# No memory for the error frame: the bus error and the lost arbitration
# must still be counted, and ECC and ALC read, since they capture the
# next event only then. The next error frame must carry the new codes
# (a transmit error at 0x0a, bit 7), not the held ones (a receive
# stuff error, bit 5).
test_error_without_memory_counts_and_rearms_ecc_alc() {
	local berr0 arb0 rx0 tx0

	[ -e "$DBG/fail_alloc" ] ||
		{ SKIP_REASON="no kretprobes, so no allocation can be failed"; return 4; }
	berr0=$(can_xstat "$DEV" 2)
	arb0=$(can_xstat "$DEV" 3)
	rx0=$(dev_stat rx_errors)
	tx0=$(dev_stat tx_errors)
	echo 1 > "$DBG/fail_alloc" || return 1
	raise c0 00 aa 05 08 10
	[ "$(cat "$DBG/fail_alloc")" = 0 ] ||
		{ echo 0 > "$DBG/fail_alloc"; fail "no allocation was made to fail"; return 1; }
	[ "$(cat "$DBG/held")" = 0 ] ||
		{ fail "ECC/ALC not read (held $(cat "$DBG/held"))"; return 1; }
	[ "$(can_xstat "$DEV" 2)" = $((berr0 + 1)) ] &&
		[ "$(can_xstat "$DEV" 3)" = $((arb0 + 1)) ] ||
		{ fail "bus-errors $(can_xstat "$DEV" 2)," \
			"arbit-lost $(can_xstat "$DEV" 3)"; return 1; }
	[ "$(dev_stat rx_errors)" = $((rx0 + 1)) ] && [ "$(dev_stat tx_errors)" = "$tx0" ] ||
		{ fail "rx/tx_errors $(dev_stat rx_errors)/$(dev_stat tx_errors)"; return 1; }
	expect_error_frame 2000028A#0700810A00000810 c0 00 0a 07 08 10
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

# can-utils 2020.11 knows no DLC above 8, so a raw socket sends DLC 12.
test_len8_dlc_is_sent() {
	ip link set "$DEV" down
	ip link set "$DEV" type can cc-len8-dlc on || return 1
	ip link set "$DEV" up || return 1
	python3 - "$DEV" <<'PY' || { fail "send"; return 1; }
import socket, struct, sys
s = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
s.bind((sys.argv[1],))
s.send(struct.pack("=IBBBB8s", 0x123, 8, 0, 0, 12, bytes(range(8))))
PY
	wait_until 5 output_cmp = 0c reg 16 || { fail "FI $(reg 16), want DLC 12"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can cc-len8-dlc off
	ip link set "$DEV" up
}

# Datasheet: self reception request plus abort is the single-shot self
# reception; loopback needs self test mode (no acknowledge).
test_loopback_one_shot_is_single_shot_self_reception() {
	ip link set "$DEV" down
	ip link set "$DEV" type can loopback on one-shot on || return 1
	ip link set "$DEV" up || return 1
	cansend "$DEV" 123#01 || return 1
	wait_until 5 output_cmp = 18 cat "$DBG/last_cmd" ||
		{ fail "command $(cat "$DBG/last_cmd"), want SRR|AT (18)"; return 1; }
	[ $((0x$(reg 0) & 4)) = 4 ] || { fail "MOD $(reg 0) without self test"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can loopback off one-shot off
	ip link set "$DEV" up
}

# One-shot alone: transmission request plus abort (a single attempt),
# in normal mode.
test_one_shot_is_a_single_attempt() {
	ip link set "$DEV" down
	ip link set "$DEV" type can one-shot on || return 1
	ip link set "$DEV" up || return 1
	cansend "$DEV" 124#02 || return 1
	wait_until 5 output_cmp = 3 cat "$DBG/last_cmd" ||
		{ fail "command $(cat "$DBG/last_cmd"), want TR|AT (3)"; return 1; }
	[ $((0x$(reg 0) & 4)) = 0 ] || { fail "MOD $(reg 0) in self test mode"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can one-shot off
	ip link set "$DEV" up
}

# Presume-ack: self test mode (a frame needs no acknowledgment), sent
# with a plain transmission request, not a self reception request.
test_presume_ack_uses_self_test_mode() {
	ip link set "$DEV" down
	ip link set "$DEV" type can presume-ack on || return 1
	ip link set "$DEV" up || return 1
	[ $((0x$(reg 0) & 4)) = 4 ] || { fail "MOD $(reg 0) without self test"; return 1; }
	cansend "$DEV" 125#03 || return 1
	wait_until 5 output_cmp = 1 cat "$DBG/last_cmd" ||
		{ fail "command $(cat "$DBG/last_cmd"), want TR (1)"; return 1; }
	ip link set "$DEV" down
	ip link set "$DEV" type can presume-ack off
	ip link set "$DEV" up
	[ $((0x$(reg 0) & 4)) = 0 ] || { fail "MOD $(reg 0): self test left on"; return 1; }
}

# The 33rd read of IR in one interrupt would acknowledge (and lose) the
# transmit-done cause behind 32 busy reads: the queue would stay stopped.
test_tx_done_behind_an_interrupt_storm_is_kept() {
	local pid

	timeout 10 candump -L -x -n 1 "$DEV" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	echo 32 > "$DBG/storm"
	cansend "$DEV" 7AC#03 || return 1
	wait "$pid" || { fail "no echo: transmit-done lost"; echo 0 > "$DBG/storm"; return 1; }
	echo 0 > "$DBG/storm"
	cansend "$DEV" 7AD#04 || { fail "queue stuck"; return 1; }
}

# A pulled card reads 0xff everywhere: the handler must give up at once
# rather than spin on "receive buffer full".
test_pulled_card_stops_the_handler() {
	local reads

	echo 0 > "$DBG/gone_reads"
	echo 1 > "$DBG/gone"
	raise 00 00 00 00 00 00
	echo 0 > "$DBG/gone"
	reads=$(cat "$DBG/gone_reads")
	ip link set "$DEV" down
	ip link set "$DEV" up
	[ "$reads" -lt 16 ] || { fail "$reads register reads on a pulled card"; return 1; }
}

# A bus-off just as the interface goes down must not leave a restart
# behind that starts the chip again (with its interrupt freed).
test_bus_off_while_closing_restarts_nothing() {
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 50 || return 1
	ip link set "$DEV" up || return 1
	echo 1 > "$DBG/busoff_on_stop"
	ip link set "$DEV" down
	sleep 0.5
	[ $((0x$(reg 0) & 1)) = 1 ] && [ "$(reg 4)" = 00 ] ||
		{ fail "chip running after close: MOD $(reg 0) IER $(reg 4)"; return 1; }
	ip link set "$DEV" type can restart-ms 0
}

# A chip that an earlier driver left in operating mode ignores the CDR
# write that selects PeliCAN mode: the presence check resets it first.
test_chip_left_running_is_found() {
	rmmod sja1000_fake || return 1
	insmod "$MOD" running=1 || { fail "not found"; return 1; }
	[ -e "/sys/class/net/$DEV" ] || { fail "no $DEV"; return 1; }
}

test_module_unloads_cleanly() {
	rmmod sja1000_fake || return 1
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

ktap_header 22
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
run_test bus_error_while_sending_counts_tx_error test_bus_error_while_sending_counts_tx_error
run_test error_warning_reports_tx_side_and_counters test_error_warning_reports_tx_side_and_counters
run_test error_passive_reports_rx_side test_error_passive_reports_rx_side
run_test bus_off_drops_carrier test_bus_off_drops_carrier
run_test manual_restart_recovers_from_bus_off test_manual_restart_recovers_from_bus_off
run_test restart_writes_bit_timing_in_reset_mode test_restart_writes_bit_timing_in_reset_mode
run_test arbitration_lost_reports_bit test_arbitration_lost_reports_bit
run_test data_overrun_is_counted test_data_overrun_is_counted
run_test error_without_memory_counts_and_rearms_ecc_alc \
	test_error_without_memory_counts_and_rearms_ecc_alc
run_test automatic_restart_after_restart_ms test_automatic_restart_after_restart_ms
run_test echo_after_tx_interrupt test_echo_after_tx_interrupt
run_test len8_dlc_is_sent test_len8_dlc_is_sent
run_test loopback_one_shot_is_single_shot_self_reception \
	test_loopback_one_shot_is_single_shot_self_reception
run_test one_shot_is_a_single_attempt test_one_shot_is_a_single_attempt
run_test presume_ack_uses_self_test_mode test_presume_ack_uses_self_test_mode
run_test tx_done_behind_an_interrupt_storm_is_kept test_tx_done_behind_an_interrupt_storm_is_kept
run_test bus_off_counts_the_frame_in_flight test_bus_off_counts_the_frame_in_flight
run_test pulled_card_stops_the_handler test_pulled_card_stops_the_handler
run_test bus_off_while_closing_restarts_nothing test_bus_off_while_closing_restarts_nothing
run_test chip_left_running_is_found test_chip_left_running_is_found
run_test module_unloads_cleanly test_module_unloads_cleanly
ktap_finish
