#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault confinement on the virtual CAN bus of can-vbus: faults injected
# through debugfs, and nodes that cannot decode each other, move the
# error counters by ISO 11898-1. For every sequence, ip -d link and
# debugfs agree on state and counters, and the error frames (candump -L
# with an error mask, berr-reporting on) show the bus errors with their
# counters and the state changes in order.

source "$(dirname "$0")/lib/can_test.sh"

# A low bitrate: a node alone with berr-reporting on sends an error
# frame per attempt, which the debug kernel must keep up with (at
# 500 kbit/s that is 7000 a second).
FAULT_RATE=20000

ERR=$CAN_TMP/err

# nodes GROUP NAME... -- [type can options]: fresh nodes at 500 kbit/s
# with bus error reporting, up, in GROUP.
nodes() {
	local group=$1 names=() n

	shift
	while [ "$1" != "--" ]; do
		names+=("$1")
		shift
	done
	shift
	for n in "${names[@]}"; do
		vbus_up "$n" group "$group" -- bitrate $FAULT_RATE berr-reporting on "$@" ||
			return 1
	done
}

# gone NAME...: delete nodes (a node left alone would retry for ever).
gone() {
	local n

	for n in "$@"; do
		ip link del "$n" 2> /dev/null
	done
	return 0
}

# want WHAT GOT EXPECTED: compare, say both.
want() {
	log "$1: $2"
	[ "$2" = "$3" ] || { fail "$1: want '$3'"; return 1; }
}

# want_re WHAT GOT REGEX: the same for an extended regular expression.
want_re() {
	log "$1: $2"
	[[ $2 =~ $3 ]] || { fail "$1: want /$3/"; return 1; }
}

# seq_of KIND FROM TO STEP [TEC|REC]: the bus error words of a counter
# that moves by STEP: "tx-ack:8/0 tx-ack:16/0 ...".
seq_of() {
	local kind=$1 i out=()

	for ((i = $2; i <= $3; i += $4)); do
		if [ "$5" = rec ]; then
			out+=("$kind:0/$i")
		else
			out+=("$kind:$i/0")
		fi
	done
	echo "${out[*]}"
}

# Alone on its bus a node gets ACK errors: TEC +8 up to 128, then it is
# error-passive and retries for ever without counting them.
test_alone_goes_error_passive() {
	local bus e0 e1 rc=0

	nodes 11 al0 -- || return 1
	bus=$(vbus_bus_dir al0)
	vbus_errdump_start al0 || return 1
	cansend al0 123#11 || return 1
	wait_until 10 vbus_expect al0 "ERROR-PASSIVE 128 0" > /dev/null || rc=1
	e0=$(awk '$1 == "errors" { print $2 }' "$bus/stats")
	sleep 0.3
	e1=$(awk '$1 == "errors" { print $2 }' "$bus/stats")
	vbus_errdump_stop
	vbus_expect al0 "ERROR-PASSIVE 128 0" || rc=1
	log "bus errors $e0, 0.3 s later $e1"
	[ "$e1" -gt "$e0" ] || { fail "no retries"; rc=1; }
	want states "$(vbus_states "$ERR" al0)" "warning passive" || rc=1
	want "first 17 bus errors" "$(vbus_bus_errors "$ERR" al0 | cut -d' ' -f1-17)" \
		"$(seq_of tx-ack 8 128 8) tx-ack:128/0" || rc=1
	want "error-warn error-pass bus-off" \
		"$(can_xstat al0 4) $(can_xstat al0 5) $(can_xstat al0 6)" "1 1 0" || rc=1
	[ "$(can_xstat al0 2)" -ge 17 ] || { fail "bus-errors $(can_xstat al0 2)"; rc=1; }
	gone al0
	return $rc
}

# bit_error N: N attempts of a frame end in a bit error (the sender's TEC
# +8, the receiver's REC +1 each), then it goes through once.
bit_error() {
	local n=$1 tec=$((8 * $1 - 1)) rc=0

	nodes 12 be0 be1 -- || return 1
	vbus_fault be0 "bit-error $n" || return 1
	vbus_errdump_start be0 be1 || return 1
	cansend be0 123#11 || return 1
	wait_until 10 output_cmp = 1 can_stat be1 rx_packets || { fail "not received"; rc=1; }
	vbus_errdump_stop
	want "be0 bus errors" "$(vbus_bus_errors "$ERR" be0)" "$(seq_of tx-bit 8 $((8 * n)) 8)" ||
		rc=1
	want "be1 bus errors" "$(vbus_bus_errors "$ERR" be1)" "$(seq_of stuff 1 "$n" 1 rec)" ||
		rc=1
	want "be0 states" "$(vbus_states "$ERR" be0)" "$2" || rc=1
	want "be1 received" "$(vbus_data_frames "$ERR" be1)" 1 || rc=1
	vbus_expect be0 "$3 $tec 0" || rc=1
	vbus_expect be1 "ERROR-ACTIVE 0 $((n - 1))" || rc=1
	grep -q "^bit-error 0" "$(vbus_node_dir be0)/fault" || { fail "fault left"; rc=1; }
	gone be0 be1
	return $rc
}

test_bit_error_12() { bit_error 12 "warning active" ERROR-ACTIVE; }
test_bit_error_16() { bit_error 16 "warning passive warning" ERROR-WARNING; }

# A receiver with form errors destroys the frame: sender TEC +8, that
# receiver REC +9, a bystander REC +1, three times; then all receive it.
test_form_error_on_receiver() {
	local rc=0

	nodes 13 fe0 fe1 fe2 -- || return 1
	vbus_fault fe1 "form-error 3" || return 1
	vbus_errdump_start fe0 fe1 fe2 || return 1
	cansend fe0 123#11 || return 1
	wait_until 10 output_cmp = 1 can_stat fe2 rx_packets || { fail "not received"; rc=1; }
	vbus_errdump_stop
	want "fe0 bus errors" "$(vbus_bus_errors "$ERR" fe0)" "$(seq_of tx-bit 8 24 8)" || rc=1
	want "fe1 bus errors" "$(vbus_bus_errors "$ERR" fe1)" "$(seq_of form 9 27 9 rec)" || rc=1
	want "fe2 bus errors" "$(vbus_bus_errors "$ERR" fe2)" "$(seq_of stuff 1 3 1 rec)" || rc=1
	want "received by fe1 fe2" "$(vbus_data_frames "$ERR" fe1) $(vbus_data_frames "$ERR" fe2)" \
		"1 1" || rc=1
	vbus_expect fe0 "ERROR-ACTIVE 23 0" || rc=1
	vbus_expect fe1 "ERROR-ACTIVE 0 26" || rc=1
	vbus_expect fe2 "ERROR-ACTIVE 0 2" || rc=1
	gone fe0 fe1 fe2
	return $rc
}

# The only other node does not acknowledge: the sender is as alone, and
# the silent node sees each of its error flags in the ACK delimiter (a
# form error, REC +1) until its REC stops at 255; once it acknowledges
# again, the frame goes through and its REC drops to 127.
test_no_ack_makes_sender_alone() {
	local rc=0

	nodes 14 na0 na1 -- || return 1
	vbus_fault na1 "no-ack 1" || return 1
	vbus_errdump_start na0 na1 || return 1
	cansend na0 123#11 || return 1
	wait_until 10 vbus_expect na0 "ERROR-PASSIVE 128 0" > /dev/null || rc=1
	vbus_expect na0 "ERROR-PASSIVE 128 0" || rc=1
	wait_until 10 vbus_expect na1 "ERROR-PASSIVE 0 255" > /dev/null || rc=1
	vbus_expect na1 "ERROR-PASSIVE 0 255" || rc=1
	[ "$(can_stat na1 rx_packets)" = 0 ] || { fail "na1 received"; rc=1; }
	vbus_fault na1 "no-ack 0" || return 1
	wait_until 10 output_cmp = 1 can_stat na1 rx_packets || { fail "not received"; rc=1; }
	vbus_errdump_stop
	want "na0 states" "$(vbus_states "$ERR" na0)" "warning passive warning" || rc=1
	want "na0 first bus errors" "$(vbus_bus_errors "$ERR" na0 | cut -d' ' -f1-16)" \
		"$(seq_of tx-ack 8 128 8)" || rc=1
	vbus_expect na0 "ERROR-WARNING 127 0" || rc=1
	vbus_expect na1 "ERROR-WARNING 0 127" || rc=1
	want "na1 received" "$(vbus_data_frames "$ERR" na1)" 1 || rc=1
	gone na0 na1
	return $rc
}

# "bus-off" with restart-ms 100: can-dev restarts the node by itself.
test_bus_off_auto_restart() {
	local rc=0

	nodes 15 bo0 bo1 -- restart-ms 100 || return 1
	vbus_errdump_start bo0 || return 1
	vbus_fault bo0 bus-off || return 1
	wait_until 10 output_cmp = 1 can_xstat bo0 1 || { fail "no restart"; rc=1; }
	vbus_errdump_stop
	want "bo0 states" "$(vbus_states "$ERR" bo0)" "bus-off restarted" || rc=1
	want "bus-off re-started" "$(can_xstat bo0 6) $(can_xstat bo0 1)" "1 1" || rc=1
	vbus_expect bo0 "ERROR-ACTIVE 0 0" || rc=1
	link_ready bo0 || rc=1
	can_send_and_check bo0 bo1 || rc=1
	gone bo0 bo1
	return $rc
}

# With restart-ms 0 the node stays bus-off until "restart".
test_bus_off_manual_restart() {
	local rc=0

	nodes 16 bm0 bm1 -- || return 1
	vbus_errdump_start bm0 || return 1
	vbus_fault bm0 bus-off || return 1
	wait_until 5 vbus_expect bm0 "BUS-OFF * 0" > /dev/null
	vbus_expect bm0 "BUS-OFF * 0" || rc=1
	cansend bm0 123#11 2> /dev/null
	sleep 0.1
	[ "$(can_stat bm1 rx_packets)" = 0 ] || { fail "bus-off node sent"; rc=1; }
	ip link set bm0 type can restart || rc=1
	vbus_errdump_stop
	want "bm0 states" "$(vbus_states "$ERR" bm0)" "bus-off restarted" || rc=1
	vbus_expect bm0 "ERROR-ACTIVE 0 0" || rc=1
	link_ready bm0 || rc=1
	can_send_and_check bm0 bm1 || rc=1
	gone bm0 bm1
	return $rc
}

# A bus stuck dominant for 200 ms: the node with a frame waiting goes
# bus-off, the idle ones error-passive. Afterwards an idle node's REC
# drops to 127 on its first good frame, then by one a frame. The bus
# raises the counters every 250 us by 8 for each 8 bit times gone (16
# steps at 500 kbit/s), so an idle node goes from REC 0 to 128 in one
# look and reports no error-warning; sd0 is idle too until cansend has
# queued its frame.
test_stuck_dominant() {
	local bus rc=0 i

	nodes 17 sd0 sd1 sd2 -- || return 1
	bus=$(vbus_bus_dir sd0)
	vbus_errdump_start sd0 sd1 sd2 || return 1
	# Long enough for a slow guest to queue the frame while it lasts.
	vbus_fault "$bus" "stuck-dominant 2000" || return 1
	cansend sd0 123#11 || return 1
	wait_until 10 grep -q "^stuck-dominant 0" "$bus/fault" ||
		{ fail "still stuck"; rc=1; }
	vbus_expect sd0 "BUS-OFF 255 *" || rc=1
	vbus_expect sd1 "ERROR-PASSIVE 0 255" || rc=1
	vbus_expect sd2 "ERROR-PASSIVE 0 255" || rc=1
	ip link set sd0 type can restart || rc=1
	link_ready sd0 || rc=1
	cansend sd0 123#01 || rc=1
	wait_until 5 output_cmp = 1 can_stat sd1 rx_packets || rc=1
	vbus_expect sd1 "ERROR-WARNING 0 127" || rc=1
	for i in $(seq 40); do
		cansend sd0 123#02 || rc=1
	done
	wait_until 5 output_cmp = 41 can_stat sd1 rx_packets || rc=1
	vbus_errdump_stop
	vbus_expect sd1 "ERROR-ACTIVE 0 87" || rc=1
	vbus_expect sd2 "ERROR-ACTIVE 0 87" || rc=1
	want_re "sd0 states" "$(vbus_states "$ERR" sd0)" \
		"^(warning )?(passive )?bus-off restarted$" || rc=1
	want_re "sd1 states" "$(vbus_states "$ERR" sd1)" \
		"^(warning )?passive warning active$" || rc=1
	want_re "sd1 bus errors" "$(vbus_bus_errors "$ERR" sd1 | cut -d' ' -f1-3)" \
		"^stuff:0/[0-9]+ " || rc=1
	gone sd0 sd1 sd2
	return $rc
}

# One node at half the others' bitrate cannot decode their
# frames: while error-active it destroys each (sender TEC +8, itself REC
# +9, the other receiver REC +1); at REC 135, error-passive after the
# 15th attempt, it lets the 16th through silently.
test_mismatched_bitrate() {
	local rc=0

	nodes 18 mb0 mb1 -- || return 1
	vbus_up mb2 group 18 -- bitrate $((FAULT_RATE / 2)) berr-reporting on || return 1
	vbus_errdump_start mb0 mb1 mb2 || return 1
	cansend mb0 123#11 || return 1
	wait_until 10 output_cmp = 1 can_stat mb1 rx_packets || { fail "not received"; rc=1; }
	vbus_errdump_sync
	want "mb0 bus errors" "$(vbus_bus_errors "$ERR" mb0)" "$(seq_of tx-bit 8 120 8)" || rc=1
	want "mb2 bus errors" "$(vbus_bus_errors "$ERR" mb2)" "$(seq_of form 9 135 9 rec)" ||
		rc=1
	want "mb0 mb2 states" "$(vbus_states "$ERR" mb0); $(vbus_states "$ERR" mb2)" \
		"warning; warning passive" || rc=1
	want "received by mb1 mb2" \
		"$(vbus_data_frames "$ERR" mb1) $(vbus_data_frames "$ERR" mb2)" "1 0" || rc=1
	vbus_expect mb0 "ERROR-WARNING 119 0" || rc=1
	vbus_expect mb1 "ERROR-ACTIVE 0 14" || rc=1
	vbus_expect mb2 "ERROR-PASSIVE 0 135" || rc=1
	# The other way round the two fast nodes destroy mb2's frame until
	# both are error-passive; then nobody acknowledges it: ACK errors
	# make mb2 error-passive too, and nothing is received.
	cansend mb2 321#22 || return 1
	wait_until 10 vbus_expect mb2 "ERROR-PASSIVE 128 135" > /dev/null || rc=1
	vbus_errdump_stop
	# Their REC rises by 1 per retry (the flag after the ACK slot) to 255.
	wait_until 10 vbus_expect mb0 "ERROR-PASSIVE 119 255" > /dev/null || rc=1
	vbus_expect mb0 "ERROR-PASSIVE 119 255" || rc=1
	wait_until 10 vbus_expect mb1 "ERROR-PASSIVE 0 255" > /dev/null || rc=1
	vbus_expect mb1 "ERROR-PASSIVE 0 255" || rc=1
	# mb2 made those retries error-passive: its ACK errors count no more.
	vbus_expect mb2 "ERROR-PASSIVE 128 135" || rc=1
	[ "$(can_stat mb0 rx_packets) $(can_stat mb1 rx_packets)" = "0 1" ] ||
		{ fail "mb2's frame was received"; rc=1; }
	gone mb0 mb1 mb2
	return $rc
}

# A classic node on a CAN FD bus destroys FD frames the same way, and
# receives classic ones.
test_fd_frame_classic_node() {
	local rc=0

	nodes 19 fd0 fd1 -- fd on dbitrate 2000000 || return 1
	nodes 19 fd2 -- || return 1
	vbus_errdump_start fd0 fd1 fd2 || return 1
	cansend fd0 123##1.11223344 || return 1
	wait_until 10 output_cmp = 1 can_stat fd1 rx_packets || { fail "not received"; rc=1; }
	vbus_errdump_sync
	want "fd0 bus errors" "$(vbus_bus_errors "$ERR" fd0)" "$(seq_of tx-bit 8 120 8)" || rc=1
	want "fd2 bus errors" "$(vbus_bus_errors "$ERR" fd2)" "$(seq_of form 9 135 9 rec)" ||
		rc=1
	vbus_expect fd0 "ERROR-WARNING 119 0" || rc=1
	vbus_expect fd1 "ERROR-ACTIVE 0 14" || rc=1
	vbus_expect fd2 "ERROR-PASSIVE 0 135" || rc=1
	cansend fd0 123#11 || return 1
	wait_until 10 output_cmp = 1 can_stat fd2 rx_packets || { fail "classic lost"; rc=1; }
	vbus_errdump_stop
	want "fd2 states" "$(vbus_states "$ERR" fd2)" "warning passive warning" || rc=1
	vbus_expect fd2 "ERROR-WARNING 0 127" || rc=1
	# flags: CANFD_BRS, and CANFD_FDF where the core sets it
	grep -qE " fd1 123##[15]11223344$" "$ERR" ||
		{ fail "FD frame not as sent: $(grep " fd1 123#" "$ERR")"; rc=1; }
	gone fd0 fd1 fd2
	return $rc
}

ktap_header 11
dmesg_mark=$(($(dmesg | wc -l) + 1))
if ! vbus_setup; then
	ktap_skip_script can_vbus_faults "cannot load can-vbus"
fi
run_test alone_goes_error_passive test_alone_goes_error_passive
run_test bit_error_12 test_bit_error_12
run_test bit_error_16 test_bit_error_16
run_test form_error_on_receiver test_form_error_on_receiver
run_test no_ack_makes_sender_alone test_no_ack_makes_sender_alone
run_test bus_off_auto_restart test_bus_off_auto_restart
run_test bus_off_manual_restart test_bus_off_manual_restart
run_test stuck_dominant test_stuck_dominant
run_test mismatched_bitrate test_mismatched_bitrate
run_test fd_frame_classic_node test_fd_frame_classic_node
run_test kernel_log_clean kernel_log_is_clean "$dmesg_mark"
ktap_finish
