#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ISO-TP between two SJA1000 controllers: can-utils' isotpsend on one of
# QEMU's emulated Kvaser PCIcan cards, isotprecv on the other, on one
# emulated bus (-device kvaser_pci twice, as in sja1000_kvaser.sh), with
# our can-isotp, can-dev, sja1000 and kvaser_pci. Messages of 1, 7, 8,
# 4095 and 4096 bytes in both directions, classic CAN, without and with
# padding and with extended addressing, the bytes compared; the frames
# of an 8-byte message as they cross the bus; the frame counters of a
# 4095-byte message. Skips without the cards. Runs before
# sja1000_kvaser.sh, whose remote frames with a length put QEMU's
# receive FIFOs out of step for the rest of the boot.

source "$(dirname "$0")/lib/can_test.sh"

DRIVER=/sys/bus/pci/drivers/kvaser_pci
A=
B=
DMESG_MARK=

setup() {
	modprobe kvaser_pci 2>/dev/null
	modprobe can-isotp 2>/dev/null
	read -r A B < <(can_ifaces_of "$DRIVER" | sort | tr '\n' ' ')
	[ -n "$A" ] && [ -n "$B" ]
}

test_our_drivers_and_isotp_are_loaded() {
	loaded_from can_dev drivers/net/can/dev/can-dev.ko &&
		loaded_from sja1000 drivers/net/can/sja1000/sja1000.ko &&
		loaded_from kvaser_pci drivers/net/can/sja1000/kvaser_pci.ko &&
		loaded_from can_isotp net/can/isotp/can-isotp.ko
}

# Both cards up; a frame each way also takes in what an earlier test may
# have left in the chips' receive FIFOs (QEMU keeps them across reset).
test_cards_up_and_frames_cross() {
	local pair from to

	can_bring_up "$A" && can_bring_up "$B" || return 1
	for pair in "$A $B" "$B $A"; do
		read -r from to <<< "$pair"
		dump_start "$to" 1 "$to,7E0:7FF" || return 1
		cansend "$from" 7E0#A5 || return 1
		can_dump_finish || return 1
		grep -q " 7E0#A5$" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
	done
}

# dump_start DEV COUNT CANDUMP-ARG: can_dump_start with filters.
dump_start() {
	timeout 20 candump -L -n "$2" "$3" > "$CAN_TMP/dump" 2>&1 &
	CAN_DUMP_PID=$!
	wait_until 10 has_rx_entry "$1" || { fail "candump did not bind"; return 1; }
}

# sizes FROM TO [OPTIONS...]
sizes() {
	local from=$1 to=$2 n

	shift 2
	for n in 1 7 8 4095 4096; do
		isotp_transfer "$from" "$to" "$n" "$@" || return 1
	done
}

# on_the_bus WANT FROM TO [OPTIONS...]: the frames of an 8-byte message
# (first frame, flow control, consecutive frame), as candump on the
# receiving card sees them, sorted, are WANT.
on_the_bus() {
	local want=$1 from=$2 to=$3 got

	shift 3
	dump_start "$to" 3 "$to,123:7FF,321:7FF" || return 1
	isotp_transfer "$from" "$to" 8 "$@" || return 1
	can_dump_finish || return 1
	got=$(awk '{ print $3 }' "$CAN_TMP/dump" | sort | tr '\n' ' ')
	[ "$got" = "$want " ] || { fail "on the bus: $got"; return 1; }
}

# The message is 08 0F 16 1D 24 2B 32 39 (hex_bytes 8 8).
test_classic_a_to_b() {
	sizes "$A" "$B" &&
		on_the_bus "123#1008080F161D242B 123#213239 321#300000" "$A" "$B"
}

test_classic_b_to_a() {
	sizes "$B" "$A"
}

# isotprecv checks that every frame is padded (-P a), so does isotpsend
# with the flow control.
test_padded_a_to_b() {
	sizes "$A" "$B" -p AA:AA -P a &&
		on_the_bus "123#1008080F161D242B 123#213239AAAAAAAAAA 321#300000AAAAAAAAAA" \
			"$A" "$B" -p AA:AA -P a
}

test_padded_b_to_a() {
	sizes "$B" "$A" -p 55:55 -P a
}

# Two different addresses: the sender's frames carry 22, the flow
# control 11. 7 bytes then take a first and a consecutive frame.
test_extended_addressing_a_to_b() {
	SEND_OPTS="-x 22:11" RECV_OPTS="-x 11:22" sizes "$A" "$B" || return 1
	SEND_OPTS="-x 22:11" RECV_OPTS="-x 11:22" \
		on_the_bus "123#221008080F161D24 123#22212B3239 321#11300000" "$A" "$B"
}

# grew_by DEV COUNTER BEFORE N: COUNTER of DEV is BEFORE + N.
grew_by() {
	[ $(($(can_stat "$1" "$2") - $3)) -eq "$4" ]
}

# counted DEV COUNTER BEFORE N: COUNTER of DEV grows by N from BEFORE.
# The sender's last echo may come a moment after the receiver is done.
counted() {
	wait_until 5 grew_by "$@" ||
		{ fail "$1 $2: $(($(can_stat "$1" "$2") - $3)), not $4"; return 1; }
}

# 4095 bytes are a first frame with 6 and 585 consecutive frames with 7;
# isotprecv asks for all of them in one flow control (block size 0).
test_frame_counters_of_a_4095_byte_message() {
	local atx arx btx brx

	atx=$(can_stat "$A" tx_packets)
	arx=$(can_stat "$A" rx_packets)
	btx=$(can_stat "$B" tx_packets)
	brx=$(can_stat "$B" rx_packets)
	isotp_transfer "$A" "$B" 4095 || return 1
	counted "$A" tx_packets "$atx" 586 && counted "$B" rx_packets "$brx" 586 &&
		counted "$B" tx_packets "$btx" 1 && counted "$A" rx_packets "$arx" 1 || return 1
	sleep 0.2
	counted "$A" tx_packets "$atx" 586 && counted "$B" rx_packets "$brx" 586
}

if ! setup; then
	ktap_header 1
	log "SKIP: needs two QEMU kvaser_pci cards on one can-bus"
	echo "ok 1 isotp_sja1000 # SKIP no cards"
	KTAP_SKIP=1
	ktap_finish
fi
ktap_header 9
DMESG_MARK=$(($(dmesg | wc -l) + 1))
run_test our_drivers_and_isotp_are_loaded test_our_drivers_and_isotp_are_loaded
run_test cards_up_and_frames_cross test_cards_up_and_frames_cross
run_test isotp_classic_first_to_second test_classic_a_to_b
run_test isotp_classic_second_to_first test_classic_b_to_a
run_test isotp_padded_first_to_second test_padded_a_to_b
run_test isotp_padded_second_to_first test_padded_b_to_a
run_test isotp_extended_addressing_first_to_second test_extended_addressing_a_to_b
run_test frame_counters_of_a_4095_byte_message test_frame_counters_of_a_4095_byte_message
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK"
ktap_finish
