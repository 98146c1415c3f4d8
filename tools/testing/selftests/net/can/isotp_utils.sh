#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# can-utils' ISO-TP tools, unmodified, against our can-isotp: isotpsend
# into isotprecv across two sockets on vcan, for 1, 7, 8, 4095, 4096 and
# 4999 bytes (the most these tools buffer; 66000 is isotp_transfer's),
# with padding and extended addressing, classic and CAN FD, and
# isotpdump decoding the frames of a transfer. Every tool runs under
# timeout; isotprecv is started first and the message sent once its
# subscription shows in /proc/net/can.

source "$(dirname "$0")/lib.sh"

IF=it$$
IFFD=itf$$

# transfer DEV LEN [OPTIONS...]: isotp_transfer (lib.sh) on one device.
transfer() {
	local dev=$1

	shift
	isotp_transfer "$dev" "$dev" "$@"
}

# Blocks of 4 frames 1 ms apart, and isotpsend waiting until all is sent.
test_block_size_stmin_and_wait_tx_done() {
	RECV_OPTS="-b 4 -m 1" SEND_OPTS="-b" transfer "$IF" 4096
}

# sizes_on DEV [OPTIONS...]
sizes_on() {
	local dev=$1 n

	shift
	for n in 1 7 8 4095 4096 4999; do
		transfer "$dev" "$n" "$@" || return 1
	done
}

test_isotpdump_decodes_a_transfer() {
	local rc=0 pid

	timeout 20 isotpdump -s 123 -d 321 "$IF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 grep -qsE "^ +$IF " /proc/net/can/rcvlist_sff ||
		{ fail "isotpdump did not bind"; rc=1; }
	[ $rc -eq 0 ] && { transfer "$IF" 20 || rc=1; }
	wait_until 5 grep -q '\[FC\]' "$CAN_TMP/dump" || true
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	sed 's/^/# dump: /' "$CAN_TMP/dump"
	[ $rc -eq 0 ] || return 1
	grep -q '\[FF\]' "$CAN_TMP/dump" || { fail "no first frame"; return 1; }
	grep -q '\[CF\]' "$CAN_TMP/dump" || { fail "no consecutive frame"; return 1; }
	grep -q '\[FC\]' "$CAN_TMP/dump" || { fail "no flow control"; return 1; }
}

ktap_header 7
vcan_add "$IF" 16 || { log "cannot create $IF"; ktap_finish; }
vcan_add "$IFFD" 72 || { log "cannot create $IFFD"; ktap_finish; }
run_test isotpsend_to_isotprecv_classic sizes_on "$IF"
run_test isotpsend_to_isotprecv_padded sizes_on "$IF" -p AA:AA -P a
run_test isotpsend_to_isotprecv_extended_addressing sizes_on "$IF" -x 11:11
run_test isotpsend_to_isotprecv_fd sizes_on "$IFFD" -L 72:64:0
run_test isotpsend_to_isotprecv_fd_padded_extended sizes_on "$IFFD" \
	-L 72:64:0 -p 55:55 -x 22:22
run_test isotpsend_to_isotprecv_with_block_size_and_stmin \
	test_block_size_stmin_and_wait_tx_done
run_test isotpdump_decodes_a_transfer test_isotpdump_decodes_a_transfer
ktap_finish
