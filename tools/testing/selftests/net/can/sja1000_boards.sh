#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mainline's SJA1000 board glue on our SJA1000 core: "make compat-build"
# builds mainline 6.1's kvaser_pci.c, plx_pci.c, ems_pci.c, peak_pci.c
# and the other boards unmodified against our sja1000.h (the interface
# mainline's boards are written to: alloc_sja1000dev() and friends,
# struct sja1000_priv). This script runs the one QEMU emulates, mainline's
# kvaser_pci, on our sja1000.ko, can-dev and core, with two cards on one
# bus:
#   -object can-bus,id=b0 -device kvaser_pci,canbus=b0 -device kvaser_pci,canbus=b0
# and loads every other board module built there on our core.

source "$(dirname "$0")/lib/can_test.sh"

COMPAT=${CAN_COMPAT:-$TOP/build/compat/modules}
BOARDS=$(dirname "$COMPAT")/boards/modules
DRIVER=/sys/bus/pci/drivers/kvaser_pci
A=
B=
DMESG_MARK=

# Ours out, theirs in: the module name is the same, so insmod by path.
setup() {
	[ -e "$BOARDS/kvaser_pci.ko" ] ||
		{ log "no $BOARDS/kvaser_pci.ko (make compat-build)"; return 2; }
	rmmod kvaser_pci 2>/dev/null
	modprobe sja1000 && insmod "$BOARDS/kvaser_pci.ko" ||
		{ log "mainline's kvaser_pci does not load on our sja1000"; return 2; }
	read -r A B < <(can_ifaces_of "$DRIVER" | sort -V | tr '\n' ' ')
	[ -n "$A" ] && [ -n "$B" ]
}

test_glue_is_mainlines_core_is_ours() {
	[ "$(modinfo -F intree "$BOARDS/kvaser_pci.ko")" != Y ] || { fail "in-tree?"; return 1; }
	loaded_from sja1000 drivers/net/can/sja1000/sja1000.ko || return 1
	loaded_from can_dev drivers/net/can/dev/can-dev.ko || return 1
	grep -q "^sja1000 .*kvaser_pci" /proc/modules ||
		{ fail "$(grep sja1000 /proc/modules)"; return 1; }
}

test_channels_show_sja1000_timing() {
	local d shown

	for d in "$A" "$B"; do
		shown=$(ip -d link show "$d")
		echo "$shown" | grep -q "sja1000: tseg1 1..16 tseg2 1..8 sjw 1..4 brp 1..64" ||
			{ fail "$d: $shown"; return 1; }
		echo "$shown" | grep -q "clock 8000000" || { fail "$d: clock"; return 1; }
	done
}

# Every kind of classic frame but a remote frame with a length, which
# would leave QEMU's receive FIFO out of step for the later scripts.
FRAMES=$(echo "$CAN_FRAMES" | grep -v '#R[1-8]')

test_frames_cross_both_ways() {
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$A" "$B" "$FRAMES" && can_send_and_check "$B" "$A" "$FRAMES"
}

# As can_check_statistics, without its remote frame with a length.
test_statistics_count_frames() {
	local tx0 txb0 rx0 rxb0

	tx0=$(can_stat "$A" tx_packets)
	txb0=$(can_stat "$A" tx_bytes)
	rx0=$(can_stat "$B" rx_packets)
	rxb0=$(can_stat "$B" rx_bytes)
	can_dump_start "$B" 2 || return 1
	cansend "$A" 001#0102030405 && cansend "$A" 002#R || return 1
	can_dump_finish || return 1
	[ $(($(can_stat "$A" tx_packets) - tx0)) -eq 2 ] || { fail "tx_packets"; return 1; }
	[ $(($(can_stat "$A" tx_bytes) - txb0)) -eq 5 ] || { fail "tx_bytes"; return 1; }
	[ $(($(can_stat "$B" rx_packets) - rx0)) -eq 2 ] || { fail "rx_packets"; return 1; }
	[ $(($(can_stat "$B" rx_bytes) - rxb0)) -eq 5 ] || { fail "rx_bytes"; return 1; }
}

test_listen_only_drops_frames_to_send() {
	can_check_listen_only "$A"
}

# Every other board module loads on our core: the kernel resolves its
# SJA1000 symbols against our sja1000.ko and compares their modversions
# CRCs. No card is there for them, so each loads, binds nothing and goes
# again. (sja1000_isa refuses to load without port or mem parameters.)
test_other_boards_load_on_our_core() {
	local ko m deps n=0

	for ko in "$BOARDS"/*.ko; do
		m=$(basename "$ko" .ko)
		case $m in
		kvaser_pci|sja1000_isa) continue ;;
		esac
		deps=$(modinfo -F depends "$ko" | tr , ' ')
		modprobe -a $deps || { fail "$m: cannot load $deps"; return 1; }
		modinfo -F depends "$ko" | grep -qw sja1000 || { fail "$m: no sja1000"; return 1; }
		insmod "$ko" || { fail "$m does not load on our sja1000"; return 1; }
		rmmod "$m" || { fail "$m does not unload"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 5 ] || { fail "only $n boards"; return 1; }
	log "$n board modules loaded on our SJA1000 core"
}

test_unbind_and_rebind_under_traffic() {
	local pci

	can_bring_up "$A" && can_bring_up "$B" || return 1
	pci=$(basename "$(readlink -f "/sys/class/net/$A/device")")
	can_traffic_start "$A" "$B" || return 1
	echo "$pci" > "$DRIVER/unbind" || return 1
	[ ! -e "/sys/class/net/$A" ] || { fail "$A still there"; return 1; }
	echo "$pci" > "$DRIVER/bind" || return 1
	wait_until 10 output_cmp -eq 2 count_ifaces_of "$DRIVER" ||
		{ fail "no rebind"; return 1; }
	can_traffic_stop
}

test_modules_unload_with_sockets_open() {
	read -r A B < <(can_ifaces_of "$DRIVER" | sort -V | tr '\n' ' ')
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_traffic_start "$A" "$B" || return 1
	rmmod kvaser_pci || { fail "kvaser_pci busy"; return 1; }
	modprobe -r sja1000 || { fail "sja1000 busy"; return 1; }
	can_traffic_stop
	[ ! -e /sys/module/sja1000 ] || { fail "sja1000 still loaded"; return 1; }
}

ktap_header 9
ktap_skip_script sja1000_boards "$(compat_cannot_run "$BOARDS/kvaser_pci.ko")"
setup
case $? in
0)	;;
1)	log "SKIP: needs two QEMU kvaser_pci cards on one can-bus"
	echo "ok 1 sja1000_boards # SKIP no cards"
	KTAP_SKIP=1
	ktap_finish ;;
*)	echo "not ok 1 sja1000_boards"
	KTAP_FAIL=1
	ktap_finish ;;
esac
DMESG_MARK=$(($(dmesg | wc -l) + 1))
run_test glue_is_mainlines_core_is_ours test_glue_is_mainlines_core_is_ours
run_test channels_show_sja1000_timing test_channels_show_sja1000_timing
run_test frames_cross_both_ways test_frames_cross_both_ways
run_test statistics_count_frames test_statistics_count_frames
run_test listen_only_drops_frames_to_send test_listen_only_drops_frames_to_send
run_test other_boards_load_on_our_core test_other_boards_load_on_our_core
run_test unbind_and_rebind_under_traffic test_unbind_and_rebind_under_traffic
run_test modules_unload_with_sockets_open test_modules_unload_with_sockets_open
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK"
ktap_finish
