#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MCP251x driver on two modelled MCP2515 chips (mcp2515_model.ko: a
# software SPI controller with two chips on one model bus). Configures
# both interfaces with ip, sends every kind of classic frame both ways,
# checks echo, loopback, statistics and a burst that needs both receive
# buffers, then removes the chips and the driver under traffic. The model
# counts every access a real chip would refuse; the last test wants none.
# Then boards the model can be: chip select active high, edge-triggered
# interrupt lines, the MCP2510.

source "$(dirname "$0")/lib/can_test.sh"

DRIVER=/sys/bus/spi/drivers/mcp251x
MOD=$CAN_TESTMODS/mcp2515_model/mcp2515_model.ko
DBG=/sys/kernel/debug/mcp2515_model
A=
B=
DMESG_MARK=
# A failed check may leave the model (and traffic) behind: gone at exit.
can_unload_at_exit mcp2515_model mcp251x

# load_model [MODEL-PARAMETERS...]: a model left by a failed test goes.
load_model() {
	rmmod mcp2515_model 2>/dev/null
	insmod "$MOD" "$@" || return 1
	wait_until 10 output_cmp -eq 2 count_ifaces_of "$DRIVER" || return 1
	read -r A B < <(can_ifaces_of "$DRIVER" | sort | tr '\n' ' ')
	[ -n "$B" ]
}

setup() {
	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	modprobe mcp251x || return 1
	load_model
}

test_two_chips_are_can_devices() {
	local d

	for d in "$A" "$B"; do
		ip -d link show "$d" | grep -q "link/can" || { fail "$d not link/can"; return 1; }
		ip -d link show "$d" |
			grep -q "mcp251x: tseg1 3..16 tseg2 2..8 sjw 1..4 brp 1..64" ||
			{ fail "$d: $(ip -d link show "$d")"; return 1; }
		ip -d link show "$d" | grep -q "clock 8000000" || { fail "$d: clock"; return 1; }
	done
}

test_bitrates_are_programmed() {
	local r

	for r in 10000 125000 500000 1000000; do
		ip link set "$A" type can bitrate $r || { fail "bitrate $r"; return 1; }
		ip link set "$A" up || { fail "up at $r"; return 1; }
		ip -d link show "$A" | grep -q "bitrate $r " || { fail "$r not shown"; return 1; }
		ip link set "$A" down
	done
	ip link set "$A" type can bitrate 1000 2>/dev/null && { fail "1000 accepted"; return 1; }
	ip link set "$A" type can one-shot on 2>/dev/null && { fail "one-shot accepted"; return 1; }
	return 0
}

test_frames_cross_from_first_to_second() {
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$A" "$B"
}

test_frames_cross_from_second_to_first() {
	can_send_and_check "$B" "$A"
}

test_sender_sees_own_frame_as_tx() {
	can_dump_start "$A" 1 -x || return 1
	cansend "$A" 321#CAFE || return 1
	can_dump_finish || return 1
	grep -q "321#CAFE T" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
}

# can-utils 2020.11 knows no DLC above 8, so raw sockets send DLC 12.
test_len8_dlc_is_kept() {
	can_bring_up "$A" cc-len8-dlc on && can_bring_up "$B" cc-len8-dlc on || return 1
	python3 - "$A" "$B" <<'PY' || { fail "DLC 12 did not arrive as such"; return 1; }
import socket, struct, sys
FMT = "=IBBBB8s"
tx, rx = (socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
          for _ in range(2))
tx.bind((sys.argv[1],))
rx.bind((sys.argv[2],))
rx.settimeout(5)
tx.send(struct.pack(FMT, 0x123, 8, 0, 0, 12, bytes(range(8))))
can_id, length, _, _, dlc, data = struct.unpack(FMT, rx.recv(16))
print("# got", hex(can_id), length, dlc, data.hex())
sys.exit(0 if (can_id, length, dlc, data) == (0x123, 8, 12, bytes(range(8))) else 1)
PY
	can_bring_up "$A" && can_bring_up "$B"
}

test_loopback_mode_receives_own_frames() {
	local rx0

	can_bring_up "$A" loopback on || return 1
	rx0=$(can_stat "$B" rx_packets)
	can_dump_start "$A" 2 || return 1
	cansend "$A" 0AB#0102 || return 1
	can_dump_finish || return 1
	[ "$(awk '{ print $3 }' "$CAN_TMP/dump" | sort -u)" = "0AB#0102" ] ||
		{ fail "$(cat "$CAN_TMP/dump")"; return 1; }
	[ "$(can_stat "$B" rx_packets)" -eq "$rx0" ] || { fail "left the chip"; return 1; }
	can_bring_up "$A" loopback off
}

test_statistics_count_frames_and_bytes() {
	can_check_statistics "$A" "$B"
}

# 300 frames queued at once (the queue holds them all, so none is
# refused): the receiver's chip may fill both buffers. What it delivers
# must keep the order, and whatever it could not store must be counted
# as an overrun.
test_burst_is_ordered_and_losses_counted() {
	local n=300 tx0 rx0 ovr0 tx rx ovr prev=-1 id pid

	ip link set "$A" txqueuelen $((2 * n)) || return 1
	tx0=$(can_stat "$A" tx_packets)
	rx0=$(can_stat "$B" rx_packets)
	ovr0=$(can_stat "$B" rx_over_errors)
	timeout 60 candump -L "$B" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$B" || { fail "candump did not bind"; return 1; }
	cangen -g 0 -I i -L 8 -D i -n $n "$A" || { fail "cangen"; return 1; }
	burst_settled() {
		tx=$(($(can_stat "$A" tx_packets) - tx0))
		rx=$(($(can_stat "$B" rx_packets) - rx0))
		ovr=$(($(can_stat "$B" rx_over_errors) - ovr0))
		[ "$tx" -eq $n ] && [ $((rx + ovr)) -ge "$tx" ]
	}
	wait_until 30 burst_settled || { fail "sent $tx, got $rx, overruns $ovr"; return 1; }
	sleep 0.5
	kill "$pid"
	wait "$pid" 2>/dev/null
	log "sent $tx, received $rx, overruns $ovr"
	[ "$(wc -l < "$CAN_TMP/dump")" -eq "$rx" ] || { fail "candump missed frames"; return 1; }
	while read -r _ _ frame; do
		id=$((16#${frame%%#*}))
		[ "$id" -gt "$prev" ] || { fail "id $id after $prev"; return 1; }
		prev=$id
	done < "$CAN_TMP/dump"
}

test_listen_only_drops_frames_to_send() {
	can_check_listen_only "$A"
}

test_down_and_up_under_traffic() {
	local i pid

	timeout 30 cangen -g 1 "$B" > /dev/null 2>&1 &
	pid=$!
	for i in 1 2 3 4 5; do
		ip link set "$A" down && ip link set "$A" up || { fail "cycle $i"; return 1; }
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	can_send_and_check "$A" "$B"
}

test_model_saw_no_violation() {
	local f v

	for f in "$DBG"/chip*/violations; do
		[ -e "$f" ] || { fail "no $f"; return 1; }
		v=$(cat "$f")
		[ "$v" = 0 ] || { fail "$f: $v"; return 1; }
	done
}

# Unbinding closes an interface that is up and sending; binding again
# gives a working interface.
test_unbind_and_bind_under_traffic() {
	local spi pids=()

	spi=$(basename "$(readlink -f "/sys/class/net/$A/device")")
	timeout 30 candump "$A" > /dev/null 2>&1 &
	pids+=($!)
	timeout 30 cangen -g 0 -i "$A" > /dev/null 2>&1 &
	pids+=($!)
	timeout 30 cangen -g 0 -i "$B" > /dev/null 2>&1 &
	pids+=($!)
	wait_until 10 has_rx_entry "$A" || { fail "candump did not bind"; return 1; }
	sleep 1
	echo "$spi" > "$DRIVER/unbind" || { fail "unbind"; return 1; }
	[ ! -e "/sys/class/net/$A" ] || { fail "$A still there"; return 1; }
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	echo "$spi" > "$DRIVER/bind" || { fail "bind"; return 1; }
	wait_until 10 output_cmp -eq 2 count_ifaces_of "$DRIVER" ||
		{ fail "no rebind"; return 1; }
	read -r A B < <(can_ifaces_of "$DRIVER" | sort | tr '\n' ' ')
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$B" "$A"
}

test_model_unloads_under_traffic() {
	local pids=()

	timeout 30 candump "$A" > /dev/null 2>&1 &
	pids+=($!)
	timeout 30 cangen -g 0 "$A" > /dev/null 2>&1 &
	pids+=($!)
	timeout 30 cangen -g 0 "$B" > /dev/null 2>&1 &
	pids+=($!)
	wait_until 10 has_rx_entry "$A" || { fail "candump did not bind"; return 1; }
	sleep 1
	rmmod mcp2515_model || { fail "model busy"; return 1; }
	[ -z "$(can_ifaces_of "$DRIVER")" ] || { fail "interfaces left"; return 1; }
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	load_model
}

test_driver_unloads_with_interfaces_up() {
	local pid

	can_bring_up "$A" && can_bring_up "$B" || return 1
	timeout 30 cangen -g 0 "$B" > /dev/null 2>&1 &
	pid=$!
	sleep 1
	modprobe -r mcp251x || { fail "mcp251x busy"; return 1; }
	[ -z "$(can_ifaces_of "$DRIVER")" ] || { fail "interfaces left"; return 1; }
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	modprobe mcp251x || return 1
	wait_until 10 output_cmp -eq 2 count_ifaces_of "$DRIVER" ||
		{ fail "no rebind"; return 1; }
	rmmod mcp2515_model
}

# ETHTOOL_GET_TS_INFO through SIOCETHTOOL (the VM has no ethtool):
# software timestamps for transmission and reception, as "ethtool -T"
# shows them for mainline's driver.
test_ethtool_reports_software_timestamping() {
	python3 - "$A" <<'PY' || { fail "no software TX timestamping"; return 1; }
import array, fcntl, socket, struct, sys
SIOCETHTOOL, ETHTOOL_GET_TS_INFO = 0x8946, 0x41
TX_SOFTWARE, RX_SOFTWARE, SOFTWARE = 1 << 1, 1 << 3, 1 << 4
buf = array.array("B", struct.pack("=11I", ETHTOOL_GET_TS_INFO, *[0] * 10))
ifr = struct.pack("16sP", sys.argv[1].encode(), buf.buffer_info()[0])
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), SIOCETHTOOL, ifr)
_, flags, phc = struct.unpack("=IIi", buf[:12].tobytes())
print("# so_timestamping 0x%x phc %d" % (flags, phc))
want = TX_SOFTWARE | RX_SOFTWARE | SOFTWARE
sys.exit(0 if flags & want == want and phc == -1 else 1)
PY
}

# A board with an inverter on the chip select line (SPI_CS_HIGH): the
# driver must keep that mode bit, or it never selects the chip.
test_chip_select_active_high_is_kept() {
	local f

	load_model spi_mode=4 || { fail "no interfaces"; return 1; }
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$A" "$B" || return 1
	for f in "$DBG"/chip*/violations; do
		[ "$(cat "$f")" = 0 ] || { fail "$f: $(cat "$f")"; return 1; }
	done
	rmmod mcp2515_model
}

# stream_drained DEV CHIP N: CHIP heard all N frames of its stream, and
# DEV took in every one the chip stored (the others overflowed).
stream_drained() {
	local key val stored lost rx dropped

	while read -r key val; do
		case $key in
		rx) stored=$val ;;
		rx_overflows) lost=$val ;;
		esac
	done < "$2/stats"
	read -r rx < "/sys/class/net/$1/statistics/rx_packets"
	read -r dropped < "/sys/class/net/$1/statistics/rx_dropped"
	[ $((stored + lost)) -ge "$3" ] && [ $((rx + dropped)) -eq "$stored" ]
}

# Edge-triggered lines fire only when INT goes active again, so the
# driver must not return while a flag is still set. A slow SPI bus and
# a stream of frames at 1 Mbit/s keep flags set for many passes; the
# chip must still deliver frames afterwards.
test_edge_triggered_line_is_drained() {
	local rx0 chip

	load_model edge_irq=1 || { fail "no interfaces"; return 1; }
	ip link set "$A" type can bitrate 1000000 && ip link set "$A" up || return 1
	chip=$DBG/chip$(basename "$(readlink -f "/sys/class/net/$A/device")" | sed 's/.*\.//')
	echo 200 > "$DBG/spi_delay_us" || return 1
	echo 5000 > "$chip/stream" || return 1
	sleep 1
	echo 0 > "$DBG/spi_delay_us"
	wait_until 10 stream_drained "$A" "$chip" 5000 ||
		{ fail "stream not drained: $A took $(can_stat "$A" rx_packets)," \
			"chip: $(tr '\n' ' ' < "$chip/stats")"; return 1; }
	rx0=$(can_stat "$A" rx_packets)
	echo "321#01" > "$chip/inject" || return 1
	wait_until 5 output_cmp -gt "$rx0" can_stat "$A" rx_packets ||
		{ fail "$A deaf after the stream"; return 1; }
	rmmod mcp2515_model
}

# A failed SPI transfer while the chip interrupts must not end the
# service with a flag set: on an edge-triggered line the chip would
# never interrupt again.
test_edge_triggered_line_survives_spi_error() {
	local rx0 chip

	load_model edge_irq=1 || { fail "no interfaces"; return 1; }
	ip link set "$A" type can bitrate 500000 && ip link set "$A" up || return 1
	chip=$DBG/chip$(basename "$(readlink -f "/sys/class/net/$A/device")" | sed 's/.*\.//')
	rx0=$(can_stat "$A" rx_packets)
	echo 2 > "$DBG/spi_fail" || return 1
	echo "321#01" > "$chip/inject" || return 1
	wait_until 5 output_cmp = 0 cat "$DBG/spi_fail" ||
		{ fail "SPI errors not reached: $(cat "$DBG/spi_fail") left"; return 1; }
	echo "322#02" > "$chip/inject" || return 1
	wait_until 5 output_cmp = $((rx0 + 2)) can_stat "$A" rx_packets ||
		{ fail "$A received $(($(can_stat "$A" rx_packets) - rx0)) of 2 frames" \
			"after the SPI errors"; return 1; }
	rmmod mcp2515_model
}

# The MCP2510 has no buffer instructions; the driver must do without.
test_mcp2510_carries_frames() {
	local f

	load_model variant=0x2510 || { fail "no interfaces"; return 1; }
	can_bring_up "$A" && can_bring_up "$B" || return 1
	can_send_and_check "$A" "$B" && can_send_and_check "$B" "$A" || return 1
	for f in "$DBG"/chip*/violations; do
		[ "$(cat "$f")" = 0 ] || { fail "$f: $(cat "$f")"; return 1; }
	done
	rmmod mcp2515_model
}

# A CAN FD frame that tc redirects from an FD vcan to the chip: the
# shared check drops and counts it, the chip never sees it. Last: on a
# stack without the check the driver overruns a stack buffer.
test_redirected_fd_frame_is_dropped() {
	local fdif=mcpfd$$ drop0 pkts0 rx0

	load_model && can_bring_up "$A" && can_bring_up "$B" || return 1
	vcan_add "$fdif" 72 || return 1
	if ! tc qdisc add dev "$fdif" clsact ||
	   ! tc filter add dev "$fdif" egress matchall action mirred egress redirect dev "$A"; then
		ip link del "$fdif"
		rmmod mcp2515_model
		SKIP_REASON="tc clsact or act_mirred missing"
		return 4
	fi
	drop0=$(can_stat "$A" tx_dropped)
	pkts0=$(can_stat "$A" tx_packets)
	rx0=$(can_stat "$B" rx_packets)
	cansend "$fdif" 123##0"$(printf '%0128d' 0)" || { fail "cansend FD"; return 1; }
	cansend "$fdif" 124#11 || { fail "cansend"; return 1; }
	wait_until 10 output_cmp -gt "$rx0" can_stat "$B" rx_packets ||
		{ fail "classic frame did not cross"; return 1; }
	ip link del "$fdif"
	[ "$(can_stat "$A" tx_dropped)" -eq $((drop0 + 1)) ] ||
		{ fail "tx_dropped $drop0 -> $(can_stat "$A" tx_dropped)"; return 1; }
	[ "$(can_stat "$A" tx_packets)" -eq $((pkts0 + 1)) ] ||
		{ fail "tx_packets $pkts0 -> $(can_stat "$A" tx_packets)"; return 1; }
	[ "$(can_stat "$B" rx_packets)" -eq $((rx0 + 1)) ] ||
		{ fail "FD frame reached the bus"; return 1; }
	test_model_saw_no_violation || return 1
	rmmod mcp2515_model
}

ktap_header 23
DMESG_MARK=$(($(dmesg | wc -l) + 1))
run_test model_and_driver_load setup
run_test two_chips_are_can_devices test_two_chips_are_can_devices
run_test bitrates_are_programmed test_bitrates_are_programmed
run_test frames_cross_from_first_to_second test_frames_cross_from_first_to_second
run_test frames_cross_from_second_to_first test_frames_cross_from_second_to_first
run_test sender_sees_own_frame_as_tx test_sender_sees_own_frame_as_tx
run_test len8_dlc_is_kept test_len8_dlc_is_kept
run_test loopback_mode_receives_own_frames test_loopback_mode_receives_own_frames
run_test statistics_count_frames_and_bytes test_statistics_count_frames_and_bytes
run_test burst_is_ordered_and_losses_counted test_burst_is_ordered_and_losses_counted
run_test listen_only_drops_frames_to_send test_listen_only_drops_frames_to_send
run_test ethtool_reports_software_timestamping test_ethtool_reports_software_timestamping
run_test down_and_up_under_traffic test_down_and_up_under_traffic
run_test unbind_and_bind_under_traffic test_unbind_and_bind_under_traffic
run_test model_saw_no_violation test_model_saw_no_violation
run_test model_unloads_under_traffic test_model_unloads_under_traffic
run_test driver_unloads_with_interfaces_up test_driver_unloads_with_interfaces_up
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK" violation
run_test chip_select_active_high_is_kept test_chip_select_active_high_is_kept
run_test edge_triggered_line_is_drained test_edge_triggered_line_is_drained
run_test edge_triggered_line_survives_spi_error test_edge_triggered_line_survives_spi_error
run_test mcp2510_carries_frames test_mcp2510_carries_frames
run_test redirected_fd_frame_is_dropped test_redirected_fd_frame_is_dropped
ktap_finish
