#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unmodified can-utils against our stack: cansend and cangen into candump,
# candump's filter syntax (id:mask, id~mask, #error-mask), its log file,
# and CAN FD frames. Every tool runs under timeout; candump is started
# first and the frames are sent once its filters show up in
# /proc/net/can, so nothing depends on how fast the guest is.

source "$(dirname "$0")/lib/can_test.sh"

IF=cu$$
IFFD=cf$$
DUMP_PID=

# start_candump COUNT ARGS...: candump -L, exits after COUNT frames;
# returns once it is listening.
start_candump() {
	local count=$1 dev=${2%%,*}

	shift
	timeout 20 candump -L -n "$count" "$@" > "$CAN_TMP/dump" 2> "$CAN_TMP/dump.err" &
	DUMP_PID=$!
	wait_until 10 has_rx_entry "$dev" || { fail "candump did not bind"; return 1; }
}

# finish_candump: wait for candump to exit by itself; 0 if it did so cleanly.
finish_candump() {
	local rc

	wait "$DUMP_PID"
	rc=$?
	DUMP_PID=
	sed 's/^/# dump: /' "$CAN_TMP/dump" "$CAN_TMP/dump.err"
	[ $rc -eq 0 ] || fail "candump exit status $rc"
}

# frames: the received frames as "dev id#data", without timestamps.
frames() {
	awk '{ print $2, $3 }' "$CAN_TMP/dump"
}

test_cansend_frame_reaches_candump() {
	start_candump 1 "$IF" || return 1
	cansend "$IF" 123#DEADBEEF || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IF 123#DEADBEEF" ]
}

test_cansend_eff_and_rtr_frames_reach_candump() {
	start_candump 2 "$IF" || return 1
	cansend "$IF" 1ABCDEF0#0102 || return 1
	cansend "$IF" 321#R || return 1
	finish_candump || return 1
	[ "$(frames | tr '\n' ' ')" = "$IF 1ABCDEF0#0102 $IF 321#R " ]
}

test_candump_filter_id_mask_passes_only_matching_id() {
	start_candump 1 "$IF,123:7FF" || return 1
	cansend "$IF" 124#11 || return 1
	cansend "$IF" 123#22 || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IF 123#22" ]
}

test_candump_inverse_filter_skips_matching_id() {
	start_candump 1 "$IF,123~7FF" || return 1
	cansend "$IF" 123#11 || return 1
	cansend "$IF" 124#22 || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IF 124#22" ]
}

test_candump_error_mask_is_accepted() {
	start_candump 1 "$IF,#FFFFFFFF" || return 1
	grep -qsE "^ +$IF +000 +1fffffff " /proc/net/can/rcvlist_err ||
		{ fail "no error filter entry"; cat /proc/net/can/rcvlist_err; }
	cansend "$IF" 042#01 || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IF 042#01" ]
}

test_candump_join_filters_need_all_matches() {
	start_candump 1 "$IF,100:700,023:0FF,J" || return 1
	cansend "$IF" 124#01 || return 1
	cansend "$IF" 223#02 || return 1
	cansend "$IF" 123#03 || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IF 123#03" ]
}

test_candump_log_file_records_frames() {
	local log_file

	mkdir -p "$CAN_TMP/log"
	(cd "$CAN_TMP/log" && timeout 20 candump -l -n 2 "$IF") &
	DUMP_PID=$!
	wait_until 10 has_rx_entry "$IF" || { fail "candump did not bind"; return 1; }
	cansend "$IF" 111#01 || return 1
	cansend "$IF" 222#0203 || return 1
	wait "$DUMP_PID" || { fail "candump -l failed"; return 1; }
	DUMP_PID=
	log_file=$(ls "$CAN_TMP"/log/candump-*.log 2> /dev/null | head -1)
	[ -n "$log_file" ] || { fail "no log file"; return 1; }
	sed 's/^/# log: /' "$log_file"
	[ "$(awk '{ print $2, $3 }' "$log_file" | tr '\n' ' ')" = \
	  "$IF 111#01 $IF 222#0203 " ]
}

test_cangen_count_frames_all_arrive() {
	start_candump 5 "$IF" || return 1
	timeout 20 cangen "$IF" -n 5 -g 1 || { fail "cangen failed"; return 1; }
	finish_candump || return 1
	[ "$(frames | wc -l)" -eq 5 ]
}

test_cangen_fd_frames_reach_candump_on_fd_device() {
	start_candump 3 "$IFFD" || return 1
	timeout 20 cangen "$IFFD" -f -n 3 -g 1 || { fail "cangen -f failed"; return 1; }
	finish_candump || return 1
	[ "$(frames | grep -c "^$IFFD [0-9A-F]*##")" -eq 3 ]
}

set_mtu() {
	ip link set "$1" down && ip link set "$1" mtu "$2" && ip link set "$1" up
}

test_cansend_fd_frame_fails_on_classic_device() {
	local rc=0

	set_mtu "$IF" 16 || return 1
	if cansend "$IF" 123##1112233 2> "$CAN_TMP/err"; then
		fail "cansend of an FD frame succeeded"
		rc=1
	fi
	sed 's/^/# /' "$CAN_TMP/err"
	set_mtu "$IF" 72
	return $rc
}

test_candump_any_reports_interface() {
	start_candump 1 any || return 1
	cansend "$IFFD" 5A5#A5 || return 1
	finish_candump || return 1
	[ "$(frames)" = "$IFFD 5A5#A5" ]
}

test_cansniffer_shows_sent_id() {
	local pid rc=0

	timeout 20 cansniffer -c "$IF" > "$CAN_TMP/sniff" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$IF" || { fail "cansniffer did not bind"; rc=1; }
	if [ $rc -eq 0 ]; then
		cansend "$IF" 7A1#0102 || rc=1
		wait_until 10 grep -aqi "7a1" "$CAN_TMP/sniff" ||
			{ fail "id not shown"; rc=1; }
	fi
	kill "$pid" 2> /dev/null
	wait "$pid"
	return $rc
}

ktap_header 12
vcan_add "$IF" || { log "cannot create $IF"; ktap_finish; }
vcan_add "$IFFD" 72 || { log "cannot create $IFFD"; ktap_finish; }
run_test cansend_frame_reaches_candump test_cansend_frame_reaches_candump
run_test cansend_eff_and_rtr_frames_reach_candump test_cansend_eff_and_rtr_frames_reach_candump
run_test candump_filter_id_mask_passes_only_matching_id \
	test_candump_filter_id_mask_passes_only_matching_id
run_test candump_inverse_filter_skips_matching_id test_candump_inverse_filter_skips_matching_id
run_test candump_error_mask_is_accepted test_candump_error_mask_is_accepted
run_test candump_join_filters_need_all_matches test_candump_join_filters_need_all_matches
run_test candump_log_file_records_frames test_candump_log_file_records_frames
run_test cangen_count_frames_all_arrive test_cangen_count_frames_all_arrive
run_test cangen_fd_frames_reach_candump_on_fd_device \
	test_cangen_fd_frames_reach_candump_on_fd_device
run_test cansend_fd_frame_fails_on_classic_device test_cansend_fd_frame_fails_on_classic_device
run_test candump_any_reports_interface test_candump_any_reports_interface
run_test cansniffer_shows_sent_id test_cansniffer_shows_sent_id
ktap_finish
