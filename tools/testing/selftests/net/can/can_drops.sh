#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where received frames get lost, counted per stage: frames the MCP2515's
# receive buffers had no room for (the model overflows them on purpose)
# in the controller count, and echo frames the CPU's backlog refused (the
# virtual CAN bus hands a receiver's copy and the sender's echo up in one
# softirq, and net.core.netdev_max_backlog 0 leaves room for one) in the
# queue count. Each count moves by exactly the frames lost, in ip -s link,
# in /proc/net/can/stats' totals and in the device's row there.

source "$(dirname "$0")/lib/can_test.sh"

DRIVER=/sys/bus/spi/drivers/mcp251x
MOD=$CAN_TESTMODS/mcp2515_model/mcp2515_model.ko
DBG=/sys/kernel/debug/mcp2515_model
BACKLOG=
can_unload_at_exit mcp2515_model mcp251x

restore_backlog() {
	[ -z "$BACKLOG" ] || sysctl -qw net.core.netdev_max_backlog="$BACKLOG"
	BACKLOG=
}
trap 'restore_backlog; lib_cleanup' EXIT

# proc_total TAG: a total line of /proc/net/can/stats.
proc_total() {
	awk -v t="($1)" 'index($0, t) { print $1; exit }' /proc/net/can/stats
}

# proc_row DEV COLUMN: a column of DEV's row in the loss table (1
# controller, 2 rx-queue, 3 no-receiver, 4 invalid, 5 socket).
proc_row() {
	awk -v d="$1" -v c="$2" 'h && $1 == d { print $(c + 1); exit }
		/\(RXLOST\)$/ { h = 1 }' /proc/net/can/stats
}

# model_lost CHIPDIR: frames the model's buffers had no room for.
model_lost() {
	awk '$1 == "rx_overflows" { print $2 }' "$1/stats"
}

# expect_delta WHAT BEFORE NOW WANT
expect_delta() {
	[ $(($3 - $2)) -eq "$4" ] ||
		{ fail "$1 moved by $(($3 - $2)), not $4"; return 1; }
}

test_controller_overrun_is_counted_per_frame() {
	local dev chip spi lost0 over0 ctl0 row0 q0 lost over

	[ -e "$MOD" ] || { log "$MOD is missing (make selftests builds it)"; return 1; }
	modprobe mcp251x || return 1
	rmmod mcp2515_model 2>/dev/null
	insmod "$MOD" chips=1 || return 1
	wait_until 10 test -n "$(can_ifaces_of "$DRIVER")" || return 1
	dev=$(can_ifaces_of "$DRIVER")
	spi=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
	chip=$DBG/chip${spi##*.}
	ip link set "$dev" type can bitrate 500000 || return 1
	ip link set "$dev" up || return 1

	lost0=$(model_lost "$chip")
	over0=$(can_stat "$dev" rx_over_errors)
	ctl0=$(proc_total RXLCTL)
	row0=$(proc_row "$dev" 1)
	q0=$(proc_row "$dev" 2)
	# Three frames at once: RXB0, RXB1 by rollover, one lost; twice.
	for i in 1 2; do
		echo 3 > "$chip/inject" || return 1
		wait_until 10 output_cmp -eq $((over0 + i)) can_stat "$dev" rx_over_errors ||
			{ fail "overrun $i not counted"; return 1; }
	done
	lost=$(model_lost "$chip")
	over=$(can_stat "$dev" rx_over_errors)
	expect_delta "frames the model lost" "$lost0" "$lost" 2 || return 1
	expect_delta rx_over_errors "$over0" "$over" 2 || return 1
	expect_delta RXLCTL "$ctl0" "$(proc_total RXLCTL)" 2 || return 1
	expect_delta "controller column of $dev" "$row0" "$(proc_row "$dev" 1)" 2 || return 1
	expect_delta "rx-queue column of $dev" "$q0" "$(proc_row "$dev" 2)" 0 || return 1

	# Five at once lose three, but the chip flags a buffer that lost
	# frames, not how many: the driver can count one.
	echo 5 > "$chip/inject" || return 1
	wait_until 10 output_cmp -eq $((over + 1)) can_stat "$dev" rx_over_errors ||
		{ fail "overrun of five not counted"; return 1; }
	expect_delta "frames the model lost" "$lost" "$(model_lost "$chip")" 3 || return 1
	sleep 0.2
	expect_delta rx_over_errors "$over" "$(can_stat "$dev" rx_over_errors)" 1 || return 1
	lost=$(($(model_lost "$chip") - lost0))
	log "model lost $lost, counted $(($(can_stat "$dev" rx_over_errors) - over0))"
	rmmod mcp2515_model
}

test_backlog_drop_is_counted_for_its_device() {
	local n=5 i tx0 q0 rq0 rd0 other0

	vbus_setup || return 1
	vbus_up dq0 group 4711 -- bitrate 500000 || return 1
	vbus_up dq1 group 4711 -- bitrate 500000 || return 1
	tx0=$(can_stat dq0 tx_packets)
	q0=$(proc_total RXLQ)
	rq0=$(proc_row dq0 2)
	other0=$(proc_row dq1 2)
	rd0=$(can_stat dq0 rx_dropped)

	BACKLOG=$(sysctl -n net.core.netdev_max_backlog)
	sysctl -qw net.core.netdev_max_backlog=0 || return 1
	# One frame at a time, so that each softirq sees an empty backlog:
	# dq1's copy fits, dq0's echo after it does not.
	for i in $(seq 1 $n); do
		cansend dq0 "123#$(printf %02x "$i")" || { restore_backlog; return 1; }
		wait_until 5 output_cmp -eq $((tx0 + i)) can_stat dq0 tx_packets ||
			{ restore_backlog; fail "frame $i not sent"; return 1; }
		sleep 0.05
	done
	restore_backlog

	expect_delta RXLQ "$q0" "$(proc_total RXLQ)" $n || return 1
	expect_delta "rx-queue column of dq0" "$rq0" "$(proc_row dq0 2)" $n || return 1
	expect_delta "rx-queue column of dq1" "$other0" "$(proc_row dq1 2)" 0 || return 1
	# The networking core counts it in rx_dropped, the driver does not.
	expect_delta "rx_dropped of dq0" "$rd0" "$(can_stat dq0 rx_dropped)" $n || return 1
}

ktap_header 2
run_test controller_overrun_is_counted_per_frame test_controller_overrun_is_counted_per_frame
run_test backlog_drop_is_counted_for_its_device test_backlog_drop_is_counted_for_its_device
ktap_finish
