#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error handling of the MCP251x driver on modelled MCP2515 chips
# (mcp2515_model.ko): error counters set through the model's debugfs
# must reach user space as the right error frames and states, bus-off
# must hold the chip until a manual or automatic restart, a receive
# overflow must be counted and reported with the surviving frames in
# order, and the model must catch an access the real chip would refuse.
# Then the driver against a harsher chip: a chip alone on the bus (no
# ACK), a slow SPI bus, SPI failures, the oscillator start-up time after
# RESET, and odd bit timings, and frames sent while bus-off and automatic
# restarts follow each other. The checks look at the chip (the model's
# registers) and at what ip shows, so they hold for any mcp251x driver.

source "$(dirname "$0")/lib/can_test.sh"

DRIVER=/sys/bus/spi/drivers/mcp251x
MOD=$CAN_TESTMODS/mcp2515_model/mcp2515_model.ko
DBG=/sys/kernel/debug/mcp2515_model
DEV=
CHIP=
can_unload_at_exit mcp2515_model mcp251x

setup() {
	local spi

	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	modprobe mcp251x || return 1
	rmmod mcp2515_model 2>/dev/null
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

# chip_reg ADDR: a register of the chip (hex, as READ returns it).
chip_reg() {
	local a=$((16#$1))

	awk -v r=$((a / 16 + 1)) -v c=$((a % 16 + 1)) 'NR == r { print $c }' "$CHIP/regs"
}

# chip_mode_is HEX: CANSTAT's operating mode bits are HEX (20 = sleep).
chip_mode_is() {
	[ "$(printf '%02x' $((16#$(chip_reg 0e) & 0xe0)))" = "$1" ]
}

tec_is() {
	[ "$(cut -d' ' -f1 "$CHIP/errors")" = "$1" ]
}

# up_again [ARGS...]: reconfigure (ip ... type can ARGS) and bring up.
up_again() {
	ip link set "$DEV" down
	if [ $# -gt 0 ]; then
		ip link set "$DEV" type can "$@" || return 1
	fi
	ip link set "$DEV" up
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
	wait_until 5 output_cmp -ge 1 can_stat "$DEV" tx_packets ||
		{ fail "no transmission after restart"; return 1; }
}

test_automatic_restart_after_restart_ms() {
	ip link set "$DEV" down
	ip link set "$DEV" type can restart-ms 100 || return 1
	ip link set "$DEV" up || return 1
	counters 256 0 || return 1
	# The restart may come before a look at the state could see bus-off.
	wait_until 5 output_cmp = 2 can_xstat "$DEV" 6 || { fail "no bus-off"; return 1; }
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

# Counters that change without an error state change raise no
# interrupt: "ip" must still show the chip's own.
test_berr_counter_reads_live_counters() {
	counters 5 3 || return 1
	ip -d link show "$DEV" | grep -q "berr-counter tx 5 rx 3" ||
		{ fail "$(ip -d link show "$DEV" | grep berr)"; return 1; }
	counters 0 0
}

# tq 125 ns on the 8 MHz CAN clock: BRP 1. PRSEG holds 1 to 8 quanta, so
# prop-seg 0 + phase-seg1 7 must become PRSEG 1 + PHSEG1 6 (CNF2 0xa8),
# never PRSEG "0 - 1" (CNF2 0xff).
test_prop_seg_0_gives_valid_cnf2() {
	ip link set "$DEV" down
	if ! ip link set "$DEV" type can tq 125 prop-seg 0 phase-seg1 7 \
	     phase-seg2 8 sjw 1 2>/dev/null; then
		log "prop-seg 0 refused: nothing reaches the chip"
		up_again bitrate 500000
		return
	fi
	ip link set "$DEV" up || { fail "up"; return 1; }
	[ "$(chip_reg 29)" != ff ] || { fail "CNF2 0xff"; return 1; }
	[ "$(chip_reg 2a) $(chip_reg 29) $(chip_reg 28)" = "00 a8 07" ] ||
		{ fail "CNF1..3 $(chip_reg 2a) $(chip_reg 29) $(chip_reg 28)"; return 1; }
	up_again bitrate 500000
}

# The chip ignores SPI until its oscillator has started after RESET.
test_reset_waits_for_oscillator_start_up() {
	local old v

	old=$(cat "$DBG/startup_us")
	echo 0 > "$CHIP/violations" && echo 2000 > "$DBG/startup_us" || return 1
	ip link set "$DEV" down && ip link set "$DEV" up
	v=$(cat "$CHIP/violations")
	echo "$old" > "$DBG/startup_us"
	[ "$v" = 0 ] || { fail "$v SPI cycles in the start-up time"; return 1; }
	echo 0 > "$CHIP/violations"
}

test_open_fails_on_spi_error() {
	local tx0

	ip link set "$DEV" down
	echo 1 > "$DBG/spi_fail" || return 1
	ip link set "$DEV" up 2>/dev/null && { fail "up despite SPI error"; return 1; }
	[ "$(cat "$DBG/spi_fail")" = 0 ] || { fail "no SPI message sent"; return 1; }
	ip link set "$DEV" up || { fail "up after the error"; return 1; }
	tx0=$(can_stat "$DEV" tx_packets)
	cansend "$DEV" 123#01 || return 1
	wait_until 5 output_cmp -gt "$tx0" can_stat "$DEV" tx_packets ||
		{ fail "no transmission"; return 1; }
}

# Alone on the bus nobody acknowledges: the chip flags each attempt
# (MERRF) and goes error passive at TEC 128, where it stays. Bus errors
# are reported only with berr-reporting on.
test_alone_is_error_passive_without_bus_errors() {
	local berr0

	berr0=$(can_xstat "$DEV" 2)
	echo 1 > "$CHIP/alone" || return 1
	cansend "$DEV" 123#02 || return 1
	wait_until 5 tec_is 128 || { fail "TEC $(cat "$CHIP/errors")"; return 1; }
	wait_until 5 can_state_is "$DEV" ERROR-PASSIVE || { fail "state"; return 1; }
	ip -d link show "$DEV" | grep -q "berr-counter tx 128 rx 0" ||
		{ fail "$(ip -d link show "$DEV" | grep berr)"; return 1; }
	sleep 0.2
	[ "$(can_xstat "$DEV" 2)" = "$berr0" ] ||
		{ fail "bus-errors $berr0 -> $(can_xstat "$DEV" 2) unasked"; return 1; }
}

# A mode change waits for pending transmissions, and alone on the bus
# the frame in TXB0 is never done: stopping must abort it to let the
# chip sleep.
test_down_with_unacked_frame_puts_chip_to_sleep() {
	ip link set "$DEV" down
	wait_until 2 chip_mode_is 20 || { fail "CANSTAT $(chip_reg 0e)"; return 1; }
}

# Every attempt fails, faster than the interrupt thread can serve: the
# driver pauses the bus-error interrupt after each report, so reports
# keep coming at a bounded rate and the shell still gets the CPU.
test_alone_reports_bus_errors_with_berr_reporting() {
	local berr0 berr1 t0

	berr0=$(can_xstat "$DEV" 2)
	up_again berr-reporting on || return 1
	cansend "$DEV" 123#03 || return 1
	wait_until 5 output_cmp -gt "$berr0" can_xstat "$DEV" 2 ||
		{ fail "no bus error reported"; return 1; }
	berr1=$(can_xstat "$DEV" 2)
	wait_until 5 output_cmp -gt "$((berr1 + 2))" can_xstat "$DEV" 2 ||
		{ fail "bus errors stopped after $((berr1 - berr0))"; return 1; }
	t0=$(date +%s)
	ip link set "$DEV" down
	[ $(($(date +%s) - t0)) -le 5 ] || { fail "down took over 5 s"; return 1; }
	echo 0 > "$CHIP/alone"
	up_again berr-reporting off
}

# Bus-off with restart-ms while the interface goes down, on an SPI bus
# slow enough that the bus-off is handled during ndo_stop: the restart
# must not start the chip again once the interface is down.
test_down_during_bus_off_leaves_chip_asleep() {
	up_again restart-ms 100 || return 1
	echo 150000 > "$DBG/spi_delay_us" || return 1
	counters 256 0
	ip link set "$DEV" down
	echo 0 > "$DBG/spi_delay_us"
	sleep 1
	chip_mode_is 20 || { fail "CANSTAT $(chip_reg 0e) after down"; return 1; }
	[ "$(chip_reg 2b)" = 00 ] || { fail "CANINTE $(chip_reg 2b)"; return 1; }
	up_again restart-ms 0
}

# qdisc_sent: packets and requeues of the root qdisc ("Sent ... N pkt",
# "requeues R"), as "N R".
qdisc_sent() {
	tc -s qdisc show dev "$DEV" 2> /dev/null | awk '/ Sent / {
		for (i = 1; i < NF; i++) {
			if ($(i + 1) == "pkt") n = $i
			if ($i == "requeues") { r = $(i + 1); sub(/\)/, "", r) }
		}
		print n, r; exit }'
}

chip_tx() {
	awk '$1 == "tx" { print $2 }' "$CHIP/stats"
}

# Frames sent while bus-off and automatic restarts follow each other, so
# the restart work (which resets and reprograms the chip) and the TX work
# (which loads TXB0 and requests its transmission) keep meeting. The
# accounting starts at what the qdisc handed to the driver: carrier-off
# lets the core drop frames before that, uncounted, as for any device.
# Each frame handed over must end counted once, sent (tx_packets) or
# dropped (tx_dropped, aborted ones included); a frame the qdisc took
# back (requeues) may go with the qdisc's reset at carrier-off. The chip
# must have sent every frame counted as sent, and nothing more but
# frames counted as aborted. No access the chip would refuse, no kernel
# warning, and the queue must move afterwards.
test_sending_through_repeated_bus_off_restarts() {
	local n=800 mark tx0 drop0 abort0 chip0 off0 rs0 q0 r0 q r pid i=0
	local tx=0 drop=0 abort=0 chip=0 handed=0 counted=0

	up_again restart-ms 10 || return 1
	echo 0 > "$CHIP/violations"
	mark=$(($(dmesg | wc -l) + 1))
	tx0=$(can_stat "$DEV" tx_packets)
	drop0=$(can_stat "$DEV" tx_dropped)
	abort0=$(can_stat "$DEV" tx_aborted_errors)
	chip0=$(chip_tx)
	off0=$(can_xstat "$DEV" 6)
	rs0=$(can_xstat "$DEV" 1)
	read -r q0 r0 < <(qdisc_sent)
	# Kernels without CONFIG_NET_SCHED (the debug kernel) have qdiscs
	# but no way to dump their statistics; the bound is then looser.
	# So it is after 6.1 (6.12 here): the core counts what its noop
	# qdisc drops while the carrier is off in the device's tx_dropped
	# (noop_enqueue), frames the qdisc statistics never see, so
	# tx_dropped is no longer the driver's alone there. The exact
	# check runs on 6.1; the driver is the same on every kernel.
	case $(uname -r) in
	6.1.*) ;;
	*) q0= ;;
	esac
	[ -n "$q0" ] ||
		log "qdisc statistics do not bound tx_dropped here: bounded by the sender's $n"
	# A slower SPI bus widens the windows where the works meet.
	echo 100 > "$DBG/spi_delay_us" || return 1
	# The sender gives up after 60 s (a queue that never moves again).
	timeout 90 python3 - "$DEV" $n > "$CAN_TMP/sent" <<'PY' &
import errno, socket, struct, sys, time
s = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
s.bind((sys.argv[1],))
s.settimeout(1)
end = time.monotonic() + 60
for i in range(int(sys.argv[2])):
    while True:
        if time.monotonic() > end:
            print(i)
            sys.exit(1)
        try:
            s.send(struct.pack("=IB3x8s", 0x100 + i % 0x600, 8, i.to_bytes(8, "big")))
            break
        except socket.timeout:
            pass
        except OSError as e:
            if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise
            time.sleep(0.001)
print(sys.argv[2])
PY
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 2000 ]; do
		counters 256 0
		sleep 0.02
		i=$((i + 1))
	done
	echo 0 > "$DBG/spi_delay_us"
	wait "$pid" ||
		{ fail "sender gave up after $(cat "$CAN_TMP/sent") of $n frames"; return 1; }
	accounted() {
		read -r q r < <(qdisc_sent)
		tx=$(($(can_stat "$DEV" tx_packets) - tx0))
		drop=$(($(can_stat "$DEV" tx_dropped) - drop0))
		abort=$(($(can_stat "$DEV" tx_aborted_errors) - abort0))
		chip=$(($(chip_tx) - chip0))
		if [ -n "$q0" ]; then
			handed=$((q - q0))
		else
			# No qdisc statistics: the sender's frames, of which
			# each carrier loss may have reset up to a queue's
			# worth, uncounted, in the qdisc (not the driver).
			handed=$n
			q=0
			q0=0
			r=$(($(can_xstat "$DEV" 6) - off0))
			r=$((r * $(cat "/sys/class/net/$DEV/tx_queue_len")))
			r0=0
		fi
		counted=$((tx + drop))
		[ $counted -le $handed ] && [ $counted -ge $((handed - (r - r0))) ]
	}
	wait_until 10 can_state_is "$DEV" ERROR-ACTIVE ||
		{ fail "not back to error-active"; return 1; }
	wait_until 5 accounted
	log "handed $handed (requeued $((r - r0))), sent $tx, dropped $drop" \
		"(aborted $abort), chip sent $chip, bus-off $(($(can_xstat "$DEV" 6) - off0))," \
		"restarts $(($(can_xstat "$DEV" 1) - rs0))"
	[ $counted -le $handed ] ||
		{ fail "$counted frames counted, $handed handed over"; return 1; }
	[ $counted -ge $((handed - (r - r0))) ] || { fail "frames lost uncounted"; return 1; }
	[ "$chip" -ge "$tx" ] && [ "$chip" -le $((tx + abort)) ] ||
		{ fail "chip sent $chip, counted sent $tx aborted $abort"; return 1; }
	[ $(($(can_xstat "$DEV" 1) - rs0)) -ge 3 ] || { fail "too few restarts"; return 1; }
	[ "$(cat "$CHIP/violations")" = 0 ] ||
		{ fail "$(cat "$CHIP/violations") violations"; return 1; }
	if dmesg | sed -n "$mark,\$p" | grep -E "BUG|WARNING|Oops|violation"; then
		fail "kernel complained"
		return 1
	fi
	tx0=$(can_stat "$DEV" tx_packets)
	cansend "$DEV" 7FF#0102 || { fail "cansend after the restarts"; return 1; }
	wait_until 5 output_cmp -gt "$tx0" can_stat "$DEV" tx_packets ||
		{ fail "queue stuck after the restarts"; return 1; }
	up_again restart-ms 0
}

test_model_unloads_with_interface_up() {
	rmmod mcp2515_model || return 1
	[ -z "$(can_ifaces_of "$DRIVER")" ] || { fail "interface left"; return 1; }
	if dmesg | grep -E "BUG|WARNING|Oops"; then
		fail "kernel complained"
		return 1
	fi
}

ktap_header 19
run_test model_and_driver_load setup
run_test error_warning_reports_tx_side_and_counters test_error_warning_reports_tx_side_and_counters
run_test error_passive_reports_rx_side test_error_passive_reports_rx_side
run_test return_to_error_active_is_reported test_return_to_error_active_is_reported
run_test bus_off_drops_carrier_and_holds_chip test_bus_off_drops_carrier_and_holds_chip
run_test manual_restart_recovers_from_bus_off test_manual_restart_recovers_from_bus_off
run_test automatic_restart_after_restart_ms test_automatic_restart_after_restart_ms
run_test receive_overflow_is_counted_in_order test_receive_overflow_is_counted_in_order
run_test model_catches_refused_access test_model_catches_refused_access
run_test berr_counter_reads_live_counters test_berr_counter_reads_live_counters
run_test prop_seg_0_gives_valid_cnf2 test_prop_seg_0_gives_valid_cnf2
run_test reset_waits_for_oscillator_start_up test_reset_waits_for_oscillator_start_up
run_test open_fails_on_spi_error test_open_fails_on_spi_error
run_test alone_is_error_passive_without_bus_errors test_alone_is_error_passive_without_bus_errors
run_test down_with_unacked_frame_puts_chip_to_sleep test_down_with_unacked_frame_puts_chip_to_sleep
run_test alone_reports_bus_errors_with_berr_reporting \
	test_alone_reports_bus_errors_with_berr_reporting
run_test down_during_bus_off_leaves_chip_asleep test_down_during_bus_off_leaves_chip_asleep
run_test sending_through_repeated_bus_off_restarts \
	test_sending_through_repeated_bus_off_restarts
run_test model_unloads_with_interface_up test_model_unloads_with_interface_up
ktap_finish
