#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mainline's CTU CAN FD driver (ctucanfd, ctucanfd_pci), built unmodified
# from linux-source-6.1 by "make compat-drivers", on our can-dev and core,
# driving QEMU's ctucan_pci cards: a CAN FD controller, where our own
# drivers only have classic ones. Needs two cards on one bus:
#   -object can-bus,id=b2 -device ctucan_pci,canbus0=b2 -device ctucan_pci,canbus0=b2
# Each card has two channels; the first of each card is on the bus.
# Configures classic and CAN FD bit timing with ip, sends classic frames
# and 64-byte FD frames with and without bit rate switching both ways,
# checks what ip -d shows, the statistics, switching FD off, and unbinds
# and unloads under traffic.

source "$(dirname "$0")/lib/can_test.sh"

COMPAT=${CAN_COMPAT:-$TOP/build/compat/modules}
DRIVER=/sys/bus/pci/drivers/ctucanfd_pci
A=
B=
DMESG_MARK=

# The first channel of each card, by PCI address: "can0 can2".
first_channels() {
	local dev pci seen=

	for dev in $(can_ifaces_of "$DRIVER" | sort -V); do
		pci=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
		[[ " $seen " == *" $pci "* ]] && continue
		seen="$seen $pci"
		echo "$dev"
	done
}

setup() {
	[ -e "$COMPAT/ctucanfd.ko" ] ||
		{ log "no $COMPAT/ctucanfd.ko (make compat-build)"; return 2; }
	modprobe can_dev && insmod "$COMPAT/ctucanfd.ko" && insmod "$COMPAT/ctucanfd_pci.ko" ||
		{ log "ctucanfd does not load"; return 2; }
	read -r A B < <(first_channels | tr '\n' ' ')
	[ -n "$A" ] && [ -n "$B" ]
}

test_channels_are_can_fd_devices() {
	local d shown

	for d in "$A" "$B"; do
		shown=$(ip -d link show "$d")
		echo "$shown" | grep -q "link/can" || { fail "$d not link/can"; return 1; }
		echo "$shown" | grep -q "ctu_can_fd: tseg1 2..190 tseg2 1..63 sjw 1..31 brp 1..8" ||
			{ fail "$d: $shown"; return 1; }
		echo "$shown" |
			grep -q "ctu_can_fd: dtseg1 2..94 dtseg2 1..31 dsjw 1..31 dbrp 1..2" ||
			{ fail "$d: no data bittiming constants"; return 1; }
		echo "$shown" | grep -q "clock 100000000" || { fail "$d: clock"; return 1; }
	done
}

# The driver is mainline's, the device layer and core are ours.
test_driver_runs_on_our_can_dev() {
	[ "$(modinfo -F intree "$COMPAT/ctucanfd.ko")" != Y ] || { fail "in-tree?"; return 1; }
	loaded_from can_dev drivers/net/can/dev/can-dev.ko || return 1
	loaded_from can net/can/can.ko || return 1
	grep -q "^can_dev .*ctucanfd" /proc/modules ||
		{ fail "$(grep can_dev /proc/modules)"; return 1; }
}

test_classic_frames_cross_both_ways() {
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$A" "$B" && can_send_and_check "$B" "$A"
}

fd_up() {
	ip link set "$1" down
	ip link set "$1" type can bitrate 500000 sample-point 0.8 \
		dbitrate 2000000 dsample-point 0.7 fd on || return 1
	ip link set "$1" up
}

test_fd_settings_are_shown() {
	local shown

	fd_up "$A" && fd_up "$B" || return 1
	shown=$(ip -d link show "$A")
	echo "$shown" | grep -q "mtu 72 " || { fail "mtu: $shown"; return 1; }
	echo "$shown" | grep -q "<FD>" || { fail "no FD mode: $shown"; return 1; }
	echo "$shown" | grep -q "bitrate 500000 sample-point 0.800" ||
		{ fail "bitrate: $shown"; return 1; }
	echo "$shown" | grep -q "dbitrate 2000000 dsample-point 0.700" ||
		{ fail "dbitrate: $shown"; return 1; }
}

# 64 bytes counting up from $1 (two hex digits), as cansend takes them.
payload64() {
	local i out=

	for i in $(seq 0 63); do
		out+=$(printf '%02X' $(((16#$1 + i) & 0xff)))
	done
	echo "$out"
}

# CAN FD frames of several lengths, with bit rate switching (flags 1)
# and without (0), standard and extended ids.
fd_frames() {
	echo "123##1$(payload64 00)"
	echo "1ABCDEF0##1$(payload64 80)"
	echo "7FF##0$(payload64 40)"
	echo "001##1"
	echo "002##1112233445566778899AABBCC"
	echo "00000003##0$(payload64 10 | cut -c1-96)"
}

# fd_send_and_check FROM TO: every frame of fd_frames crosses the bus
# with its flags, and candump prints it as it was sent, plus CANFD_FDF
# (4) in the flags, which the stack sets in every CAN FD frame.
fd_send_and_check() {
	can_send_and_check "$1" "$2" "$(fd_frames)" "$(fd_frames | sed 's/##0/##4/; s/##1/##5/')"
}

test_fd_frames_cross_from_first_to_second() {
	fd_send_and_check "$A" "$B"
}

test_fd_frames_cross_from_second_to_first() {
	fd_send_and_check "$B" "$A"
}

test_classic_frames_cross_in_fd_mode() {
	can_send_and_check "$A" "$B"
}

test_fd_frames_count_in_statistics() {
	local txb0 rxb0 rx0

	txb0=$(can_stat "$A" tx_bytes)
	rxb0=$(can_stat "$B" rx_bytes)
	rx0=$(can_stat "$B" rx_packets)
	can_dump_start "$B" 1 || return 1
	cansend "$A" "321##1$(payload64 33)" || return 1
	can_dump_finish || return 1
	[ $(($(can_stat "$A" tx_bytes) - txb0)) -eq 64 ] || { fail "tx_bytes"; return 1; }
	[ $(($(can_stat "$B" rx_bytes) - rxb0)) -eq 64 ] || { fail "rx_bytes"; return 1; }
	[ $(($(can_stat "$B" rx_packets) - rx0)) -eq 1 ] || { fail "rx_packets"; return 1; }
}

test_sender_sees_own_fd_frame_as_tx() {
	can_dump_start "$A" 1 -x || return 1
	cansend "$A" "456##1$(payload64 AA)" || return 1
	can_dump_finish || return 1
	grep -q "456##5$(payload64 AA) T" "$CAN_TMP/dump" ||
		{ fail "$(cat "$CAN_TMP/dump")"; return 1; }
}

# With FD off the MTU is a classic one again, and a raw socket cannot
# hand the device an FD frame.
test_fd_off_refuses_fd_frames() {
	ip link set "$A" down
	ip link set "$A" type can bitrate 500000 fd off || return 1
	ip link set "$A" up || return 1
	ip -d link show "$A" | grep -q "mtu 16 " || { fail "mtu not 16"; return 1; }
	! ip -d link show "$A" | grep -q "dbitrate" || { fail "dbitrate left"; return 1; }
	cansend "$A" "123##1$(payload64 00)" > "$CAN_TMP/err" 2>&1 &&
		{ fail "FD frame sent"; return 1; }
	grep -q "not CAN FD capable" "$CAN_TMP/err" || { fail "$(cat "$CAN_TMP/err")"; return 1; }
	fd_up "$A"
}

test_listen_only_drops_frames_to_send() {
	can_check_listen_only "$A" || return 1
	fd_up "$A"
}

test_unbind_under_traffic() {
	local pci

	pci=$(basename "$(readlink -f "/sys/class/net/$A/device")")
	can_traffic_start "$A" "$B" -f || return 1
	timeout 30 cangen -g 1 -f -b "$A" > /dev/null 2>&1 &
	CAN_TRAFFIC_PIDS+=($!)
	echo "$pci" > "$DRIVER/unbind" || return 1
	[ ! -e "/sys/class/net/$A" ] || { fail "$A still there"; return 1; }
	echo "$pci" > "$DRIVER/bind" || return 1
	wait_until 10 output_cmp -eq 4 count_ifaces_of "$DRIVER" ||
		{ fail "no rebind"; return 1; }
	can_traffic_stop
}

test_modules_unload_with_sockets_open() {
	read -r A B < <(first_channels | tr '\n' ' ')
	fd_up "$A" && fd_up "$B" || return 1
	can_traffic_start "$A" "$B" -f || return 1
	rmmod ctucanfd_pci ctucanfd || { fail "ctucanfd busy"; return 1; }
	unload_with_users can_dev || return 1
	can_traffic_stop
	[ ! -e /sys/module/can_dev ] || { fail "can_dev still loaded"; return 1; }
}

ktap_header 14
ktap_skip_script ctucanfd "$(compat_cannot_run "$COMPAT/ctucanfd.ko")"
setup
case $? in
0)	;;
1)	log "SKIP: needs two QEMU ctucan_pci cards on one can-bus"
	echo "ok 1 ctucanfd # SKIP no cards"
	KTAP_SKIP=1
	ktap_finish ;;
*)	echo "not ok 1 ctucanfd"
	KTAP_FAIL=1
	ktap_finish ;;
esac
DMESG_MARK=$(($(dmesg | wc -l) + 1))
run_test channels_are_can_fd_devices test_channels_are_can_fd_devices
run_test classic_frames_cross_both_ways test_classic_frames_cross_both_ways
run_test driver_runs_on_our_can_dev test_driver_runs_on_our_can_dev
run_test fd_settings_are_shown test_fd_settings_are_shown
run_test fd_frames_cross_from_first_to_second test_fd_frames_cross_from_first_to_second
run_test fd_frames_cross_from_second_to_first test_fd_frames_cross_from_second_to_first
run_test classic_frames_cross_in_fd_mode test_classic_frames_cross_in_fd_mode
run_test fd_frames_count_in_statistics test_fd_frames_count_in_statistics
run_test sender_sees_own_fd_frame_as_tx test_sender_sees_own_fd_frame_as_tx
run_test fd_off_refuses_fd_frames test_fd_off_refuses_fd_frames
run_test listen_only_drops_frames_to_send test_listen_only_drops_frames_to_send
run_test unbind_under_traffic test_unbind_under_traffic
run_test modules_unload_with_sockets_open test_modules_unload_with_sockets_open
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK"
ktap_finish
