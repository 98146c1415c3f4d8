#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MCP2515 model (mcp2515_model.ko) on its own, through its raw SPI
# debugfs file, so that a model bug is not mistaken for a driver bug in
# mcp251x.sh and mcp251x_errors.sh: the SPI devices, reset values, mode
# changes, read-only registers, violations counted, delivery between the
# chips, filters, overflow and rollover, loopback, bus-off until
# recovery, transmit priority, DLC 15, write-protected pending buffers,
# the time a frame takes at the programmed bit timing, mode changes that
# wait for it, a chip alone on the bus (ACK errors, MERRF, error passive
# at TEC 128), ABAT, the oscillator start-up time, and the MCP2510.

source "$(dirname "$0")/lib/can_test.sh"

MOD=$CAN_TESTMODS/mcp2515_model/mcp2515_model.ko
DBG=/sys/kernel/debug/mcp2515_model
can_unload_at_exit mcp2515_model

# spi CHIP HEX-BYTES...: one chip-select cycle; prints the reply bytes.
spi() {
	local chip=$1

	shift
	echo "$*" > "$DBG/chip$chip/spi" || return 1
	cat "$DBG/chip$chip/spi"
}

# quick CHIP HEX-BYTES...: as spi, reply in $QUICK, with shell builtins
# only: the VM emulates its CPU, and a fork can outlast a frame.
quick() {
	echo "${*:2}" > "$DBG/chip$1/spi" && read -r QUICK < "$DBG/chip$1/spi"
}

# reg CHIP ADDR: one register read with READ, in hex.
reg() {
	spi "$1" 03 "$2" 00 | awk '{ print $3 }'
}

# expect_reg CHIP ADDR VALUE
expect_reg() {
	local got

	got=$(reg "$1" "$2")
	[ "$got" = "$3" ] || fail "chip$1 register 0x$2: want $3 got $got"
}

# reg_is CHIP ADDR HEX: the register reads HEX now (quiet, for wait_until).
reg_is() {
	[ "$(reg "$1" "$2")" = "$3" ]
}

violations() {
	cat "$DBG/chip$1/violations"
}

# set_mode CHIP REQOP-BYTE: write CANCTRL, CANSTAT must follow.
set_mode() {
	spi "$1" 02 0f "$2" > /dev/null && expect_reg "$1" 0e "$2"
}

# A chip in configuration mode whose RXB0 takes any frame, then normal.
ready_chip() {
	spi "$1" c0 > /dev/null || return 1
	spi "$1" 02 60 60 > /dev/null || return 1
	set_mode "$1" 00
}

test_reset_puts_chip_in_configuration_mode() {
	spi 0 02 2a 55 > /dev/null || return 1
	spi 0 c0 > /dev/null || return 1
	expect_reg 0 0f 87 || return 1
	expect_reg 0 0e 80 || return 1
	expect_reg 0 7f 87 || return 1
	expect_reg 0 3e 80 || return 1
	expect_reg 0 2a 00 || return 1
	expect_reg 0 2c 00
}

test_mode_requests_show_in_canstat() {
	local mode

	spi 0 c0 > /dev/null || return 1
	for mode in 00 20 40 60 80; do
		set_mode 0 "$mode" || return 1
	done
	spi 0 02 0e 00 > /dev/null || return 1
	expect_reg 0 0e 80 || { fail "CANSTAT is writable"; return 1; }
	spi 0 02 1c 42 > /dev/null || return 1
	expect_reg 0 1c 00 || { fail "TEC is writable"; return 1; }
}

test_cnf_write_outside_configuration_mode_is_a_violation() {
	local before

	spi 0 c0 > /dev/null || return 1
	before=$(violations 0)
	spi 0 02 2a 05 > /dev/null || return 1
	expect_reg 0 2a 05 || return 1
	[ "$(violations 0)" = "$before" ] || { fail "config mode write counted"; return 1; }
	set_mode 0 00 || return 1
	spi 0 02 2a 07 > /dev/null || return 1
	expect_reg 0 2a 05 || { fail "CNF1 changed in normal mode"; return 1; }
	[ "$(violations 0)" = $((before + 1)) ] ||
		{ fail "violations $before -> $(violations 0)"; return 1; }
	dmesg | grep -q "mcp2515_model: violation:" || { fail "not logged"; return 1; }
}

test_unknown_and_short_instructions_are_violations() {
	local before

	before=$(violations 0)
	spi 0 ff > /dev/null || return 1
	spi 0 05 2c > /dev/null || return 1
	spi 0 03 7f 00 00 > /dev/null || return 1
	[ "$(violations 0)" = $((before + 3)) ] ||
		{ fail "violations $before -> $(violations 0)"; return 1; }
}

# chip0 sends 123#1122 from TXB0; chip1 finds it in RXB0.
test_frame_from_chip0_lands_in_chip1_rxb0() {
	ready_chip 0 && ready_chip 1 || return 1
	spi 0 40 24 60 00 00 02 11 22 > /dev/null || return 1
	spi 0 81 > /dev/null || return 1
	expect_reg 0 30 00 || { fail "TXREQ still set"; return 1; }
	expect_reg 0 2c 04 || { fail "no TX0IF"; return 1; }
	expect_reg 1 2c 01 || { fail "no RX0IF"; return 1; }
	[ "$(spi 1 a0 00 00)" = "00 01 01" ] || { fail "READ STATUS"; return 1; }
	[ "$(spi 1 90 00 00 00 00 00 00 00)" = "00 24 60 00 00 02 11 22" ] ||
		{ fail "RXB0 $(spi 1 03 61 00 00 00 00 00 00 00)"; return 1; }
	expect_reg 1 2c 00 || { fail "READ RX BUFFER left RX0IF"; return 1; }
}

# RXB0 takes only 123 (filter mode, RXM0 all ones); the other frame goes
# to RXB1, whose zero mask takes any standard frame, with FILHIT 2.
test_filters_steer_frames_to_rxb1() {
	spi 1 c0 > /dev/null || return 1
	spi 1 02 20 ff e0 > /dev/null || return 1
	spi 1 02 00 24 60 > /dev/null || return 1
	spi 1 02 60 00 > /dev/null || return 1
	set_mode 1 00 || return 1
	ready_chip 0 || return 1
	spi 0 40 24 80 00 00 00 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 1 2c 02 || { fail "not in RXB1 alone"; return 1; }
	expect_reg 1 70 02 || { fail "RXB1CTRL FILHIT"; return 1; }
	[ "$(spi 1 b0 00 | awk '{ print $2 }')" = 82 ] || { fail "RX STATUS"; return 1; }
}

test_full_rxb0_overflows_or_rolls_over() {
	ready_chip 0 && ready_chip 1 || return 1
	spi 0 40 24 60 00 00 00 > /dev/null || return 1
	spi 0 81 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 1 2d 40 || { fail "no RX0OVR"; return 1; }
	expect_reg 1 2c 21 || { fail "no ERRIF"; return 1; }
	spi 1 c0 > /dev/null && spi 1 02 60 64 > /dev/null || return 1
	set_mode 1 00 || return 1
	spi 0 81 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 1 2c 03 || { fail "no rollover into RXB1"; return 1; }
	expect_reg 1 2d 00
}

test_loopback_frame_stays_on_the_sender() {
	ready_chip 0 && ready_chip 1 || return 1
	set_mode 0 40 || return 1
	spi 0 40 24 60 00 00 00 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 0 2c 05 || { fail "loopback not received"; return 1; }
	expect_reg 1 2c 00 || { fail "loopback frame left the chip"; return 1; }
}

test_bus_off_holds_transmission_until_recovery() {
	ready_chip 0 && ready_chip 1 || return 1
	echo "256 0" > "$DBG/chip0/errors" || return 1
	expect_reg 0 2d 35 || { fail "EFLG"; return 1; }
	spi 0 40 24 60 00 00 00 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 0 30 08 || { fail "sent while bus-off"; return 1; }
	echo 1 > "$DBG/chip0/recover" || return 1
	expect_reg 0 30 00 || { fail "not sent after recovery"; return 1; }
	expect_reg 1 2c 01
}

# Loaded in configuration mode with TXREQ set by WRITE, the three
# buffers leave on the switch to normal mode by TXP, the higher buffer
# first on a tie: TXB2 (id 003), TXB1 (002); TXB0 (001) overflows.
test_pending_buffers_leave_by_priority() {
	ready_chip 1 || return 1
	spi 1 02 60 64 > /dev/null || return 1
	spi 0 c0 > /dev/null || return 1
	spi 0 40 00 20 00 00 00 > /dev/null && spi 0 02 30 08 > /dev/null || return 1
	spi 0 42 00 40 00 00 00 > /dev/null && spi 0 02 40 0b > /dev/null || return 1
	spi 0 44 00 60 00 00 00 > /dev/null && spi 0 02 50 0b > /dev/null || return 1
	expect_reg 1 2c 00 || { fail "sent in configuration mode"; return 1; }
	set_mode 0 00 || return 1
	[ "$(spi 0 a0 00)" = "00 a8" ] || { fail "READ STATUS $(spi 0 a0 00)"; return 1; }
	[ "$(spi 1 03 61 00 00)" = "00 00 00 60" ] || { fail "RXB0 not TXB2's"; return 1; }
	[ "$(spi 1 03 71 00 00)" = "00 00 00 40" ] || { fail "RXB1 not TXB1's"; return 1; }
	expect_reg 1 2d 80 || { fail "no RX1OVR for TXB0's frame"; return 1; }
}

test_dlc_15_carries_8_data_bytes() {
	ready_chip 0 && ready_chip 1 || return 1
	spi 0 40 ff e0 00 00 0f 01 02 03 04 05 06 07 08 > /dev/null || return 1
	spi 0 81 > /dev/null || return 1
	[ "$(spi 1 92 00 00 00 00 00 00 00 00)" = "00 01 02 03 04 05 06 07 08" ] ||
		{ fail "data $(spi 1 03 61 00 00 00 00 00 00 00 00 00 00 00 00 00)"; return 1; }
	[ "$(spi 1 03 65 00)" = "00 00 0f" ] || { fail "DLC"; return 1; }
}

test_pending_tx_buffer_is_write_protected() {
	local before

	spi 0 c0 > /dev/null || return 1
	set_mode 0 20 || return 1
	spi 0 40 11 00 00 00 00 > /dev/null && spi 0 81 > /dev/null || return 1
	expect_reg 0 30 08 || { fail "RTS in sleep mode lost"; return 1; }
	before=$(violations 0)
	spi 0 40 22 > /dev/null || return 1
	spi 0 02 31 33 > /dev/null || return 1
	expect_reg 0 31 11 || { fail "pending buffer changed"; return 1; }
	[ "$(violations 0)" = $((before + 2)) ] ||
		{ fail "violations $before -> $(violations 0)"; return 1; }
}

# slow_chip CHIP: reset, RXB0 takes any frame, 5 kbit/s (16 MHz, BRP 63:
# 8 us quanta, 25 per bit), normal mode.
slow_chip() {
	spi "$1" c0 > /dev/null || return 1
	spi "$1" 02 28 07 bf 3f > /dev/null || return 1
	spi "$1" 02 60 60 > /dev/null || return 1
	set_mode "$1" 00
}

# reload_model [PARAMETERS...]: the model again, with its chips reset.
reload_model() {
	rmmod mcp2515_model && insmod "$MOD" "$@" || return 1
	[ -d "$DBG/chip1" ] || { fail "no debugfs files after reload"; return 1; }
}

# An extended frame with 8 data bytes is 131 bits: 419 ms at the slowest
# bit timing of a 1 MHz oscillator (312.5 bit/s). The five register reads
# that follow TXREQ take some milliseconds, tens under the debug
# kernel: the frame must outlast them by far. Until it is over, TXREQ
# stays set and a request for sleep mode waits.
test_frame_takes_its_bus_time_and_mode_change_waits() {
	local txb0 stat intf

	reload_model clock_hz=1000000 || return 1
	slow_chip 0 && ready_chip 1 || return 1
	spi 0 40 00 08 00 00 08 01 02 03 04 05 06 07 08 > /dev/null || return 1
	quick 0 81 && quick 0 02 0f 20 || return 1
	quick 0 03 30 00 && txb0=$QUICK && quick 0 03 0e 00 && stat=$QUICK &&
		quick 1 03 2c 00 && intf=$QUICK || return 1
	[ "$txb0" = "00 00 08" ] || { fail "frame took no time: $txb0"; return 1; }
	[ "$stat" = "00 00 00" ] || { fail "mode changed with a frame pending: $stat"; return 1; }
	[ "$intf" = "00 00 00" ] || { fail "frame arrived early: $intf"; return 1; }
	wait_until 3 reg_is 0 30 00
	expect_reg 0 30 00 || { fail "frame never done"; return 1; }
	expect_reg 0 0e 20 || { fail "sleep mode not entered after the frame"; return 1; }
	expect_reg 1 2c 01 || { fail "frame did not arrive"; return 1; }
	reload_model
}

# Without ACK: TXERR and MERRF, TEC up by 8 per attempt to 128 (error
# passive, ISO 11898-1), the frame repeated; a mode change waits for
# good, until ABAT aborts it.
test_alone_on_the_bus_ends_error_passive() {
	ready_chip 0 || return 1
	# 100 kbit/s (BRP 15): at the reset timing of 1 Mbit/s, attempts
	# repeat every 40 us, more timer callbacks than the debug kernel
	# under emulation can serve while the script runs.
	set_mode 0 80 && spi 0 02 2a 0f > /dev/null && set_mode 0 00 || return 1
	echo 1 > "$DBG/chip0/alone" || return 1
	spi 0 40 24 60 00 00 00 > /dev/null && spi 0 81 > /dev/null || return 1
	wait_until 3 output_cmp = "128 0 0x15" cat "$DBG/chip0/errors"
	[ "$(cat "$DBG/chip0/errors")" = "128 0 0x15" ] ||
		{ fail "errors $(cat "$DBG/chip0/errors")"; return 1; }
	expect_reg 0 30 18 || { fail "TXB0CTRL"; return 1; }
	expect_reg 0 2c a0 || { fail "no MERRF/ERRIF"; return 1; }
	spi 0 02 0f 80 > /dev/null || return 1
	sleep 0.05
	expect_reg 0 0e 00 || { fail "mode changed with a frame pending"; return 1; }
	spi 0 02 0f 90 > /dev/null || return 1
	wait_until 5 reg_is 0 0e 80
	expect_reg 0 0e 80 || { fail "ABAT did not release the mode change"; return 1; }
	expect_reg 0 30 50 || { fail "TXB0CTRL after ABAT"; return 1; }
	echo 0 > "$DBG/chip0/alone"
}

test_spi_is_ignored_in_oscillator_start_up() {
	local old before

	old=$(cat "$DBG/startup_us")
	before=$(violations 0)
	echo 1000000 > "$DBG/startup_us" || return 1
	spi 0 02 2a 55 > /dev/null || return 1
	quick 0 c0 && quick 0 03 0e 00 || return 1
	[ "$QUICK" = "ff ff ff" ] || { fail "chip answered: $QUICK"; return 1; }
	[ "$(violations 0)" = $((before + 1)) ] || { fail "not counted"; return 1; }
	echo "$old" > "$DBG/startup_us"
	# Polling now would count more violations: the start-up time must
	# pass first.
	sleep 1.2
	expect_reg 0 0e 80 || return 1
	expect_reg 0 2a 00
}

test_spi_devices_are_mcp2515s() {
	local d n=0

	# The model's devices, wherever the kernel puts SPI devices under
	# their controller (the layout differs between 6.1 and 6.12).
	for d in /sys/bus/spi/devices/*; do
		[[ $(readlink -f "$d") = /sys/devices/mcp2515_model/* ]] || continue
		[ "$(cat "$d/modalias")" = spi:mcp2515 ] || { fail "$d"; return 1; }
		n=$((n + 1))
	done
	[ "$n" = 2 ] || { fail "$n devices"; return 1; }
}

# The MCP2510: an "mcp2510" SPI device without the buffer instructions.
test_mcp2510_lacks_buffer_instructions() {
	local d before

	rmmod mcp2515_model && insmod "$MOD" variant=0x2510 || return 1
	for d in /sys/bus/spi/devices/*; do
		[[ $(readlink -f "$d") = /sys/devices/mcp2515_model/* ]] || continue
		[ "$(cat "$d/modalias")" = spi:mcp2510 ] || { fail "$d"; return 1; }
	done
	ready_chip 0 || return 1
	before=$(violations 0)
	spi 0 40 24 60 00 00 00 > /dev/null || return 1
	spi 0 90 00 00 > /dev/null || return 1
	[ "$(violations 0)" = $((before + 2)) ] ||
		{ fail "violations $before -> $(violations 0)"; return 1; }
	expect_reg 0 31 00 || { fail "LOAD TX BUFFER worked"; return 1; }
}

test_model_unloads_cleanly() {
	rmmod mcp2515_model || { fail "rmmod failed"; return 1; }
	[ ! -e "$DBG" ] || { fail "debugfs left behind"; return 1; }
	[ ! -e /sys/devices/mcp2515_model ] || { fail "devices left behind"; return 1; }
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

setup() {
	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	insmod "$MOD" || return 1
	[ -d "$DBG/chip1" ] || { log "no debugfs files"; return 1; }
}

ktap_header 18
if ! setup; then
	echo "not ok 1 mcp251x_model_setup"
	KTAP_FAIL=1
	ktap_finish
fi
run_test spi_devices_are_mcp2515s test_spi_devices_are_mcp2515s
run_test reset_puts_chip_in_configuration_mode \
	test_reset_puts_chip_in_configuration_mode
run_test mode_requests_show_in_canstat test_mode_requests_show_in_canstat
run_test cnf_write_outside_configuration_mode_is_a_violation \
	test_cnf_write_outside_configuration_mode_is_a_violation
run_test unknown_and_short_instructions_are_violations \
	test_unknown_and_short_instructions_are_violations
run_test frame_from_chip0_lands_in_chip1_rxb0 test_frame_from_chip0_lands_in_chip1_rxb0
run_test filters_steer_frames_to_rxb1 test_filters_steer_frames_to_rxb1
run_test full_rxb0_overflows_or_rolls_over test_full_rxb0_overflows_or_rolls_over
run_test loopback_frame_stays_on_the_sender test_loopback_frame_stays_on_the_sender
run_test bus_off_holds_transmission_until_recovery \
	test_bus_off_holds_transmission_until_recovery
run_test pending_buffers_leave_by_priority test_pending_buffers_leave_by_priority
run_test dlc_15_carries_8_data_bytes test_dlc_15_carries_8_data_bytes
run_test pending_tx_buffer_is_write_protected test_pending_tx_buffer_is_write_protected
run_test frame_takes_its_bus_time_and_mode_change_waits \
	test_frame_takes_its_bus_time_and_mode_change_waits
run_test alone_on_the_bus_ends_error_passive test_alone_on_the_bus_ends_error_passive
run_test spi_is_ignored_in_oscillator_start_up test_spi_is_ignored_in_oscillator_start_up
run_test mcp2510_lacks_buffer_instructions test_mcp2510_lacks_buffer_instructions
run_test model_unloads_cleanly test_model_unloads_cleanly
ktap_finish
