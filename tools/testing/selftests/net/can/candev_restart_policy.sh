#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# can-dev's recovery policy (ours): the restart_ms module parameter gives
# new devices their restart-ms, and restart_backoff_ms doubles the wait
# before each automatic restart of a device that goes bus-off again soon
# after the last one, up to that many ms. Both 0 (the default) keep
# mainline's behaviour. Bus-off comes from a can-vbus controller.

source "$(dirname "$0")/lib/can_test.sh"

DBG=/sys/kernel/debug
PARAMS=/sys/module/can_dev/parameters
DEV=rp$$

node_file() {
	echo $DBG/can_vbus/net*-group4712/"$DEV"/"$1"
}

# Waits for the node to be error-active again, polling its counters
# without forking (read -t on a fifo is the sleep): on a slow kernel a
# fork would outlast the back-off window.
wait_active() {
	local f state i

	f=$(node_file counters)
	for i in $(seq 5000); do
		read -r _ state < "$f"
		[ "$state" = error-active ] && return 0
		read -r -t 0.002 -u 9
	done
	return 1
}

# restarts_logged: how many restarted frames (class 0x100) the dump has.
restarts_logged() {
	local ts dev frame n=0

	while read -r ts dev frame; do
		(((16#${frame%%#*}) & 0x100)) && n=$((n + 1))
	done < "$CAN_TMP/err"
	echo "$n"
}

# bus_off_rounds WANT...: for each WANT (ms, or "calm" for a pause of
# 2 s) put the node bus-off and wait for its restart, with candump
# logging the error frames; then compare, per round, the time from the
# bus-off frame (stamped by can-vbus at the bus-off) to the restarted
# frame (stamped when can-dev's restart sends it) with WANT: kernel
# times, so that a slow guest's polling does not count.
bus_off_rounds() {
	local want dump got rc=0 i=0 counters_dir rounds=0

	counters_dir=$(dirname "$(node_file counters)")

	timeout 60 candump -L "$DEV,0~0,#FFFFFFFF" > "$CAN_TMP/err" 2>&1 &
	dump=$!
	wait_until 10 has_rx_entry "$DEV" || { fail "candump did not bind"; return 1; }
	for want in "$@"; do
		if [ "$want" = calm ]; then
			sleep 2
			continue
		fi
		echo bus-off > "$counters_dir/fault" || return 1
		wait_active || { fail "no restart (want $want ms)"; rc=1; break; }
		rounds=$((rounds + 1))
	done
	# The restarted frame of the last round may still be on its way to
	# the dump; the rounds are checked below.
	wait_until 5 output_cmp -ge "$rounds" restarts_logged
	kill "$dump"
	wait "$dump" 2> /dev/null
	# "(sec.usec) dev ID#data": bus-off 0x40, restarted 0x100.
	local ts dev frame id t off= delays=()
	while read -r ts dev frame; do
		id=$((16#${frame%%#*}))
		ts=${ts//[()]/}
		t=$((10#${ts%.*} * 1000 + 10#${ts#*.} / 1000))
		if ((id & 0x40)); then
			off=$t
		elif ((id & 0x100)) && [ -n "$off" ]; then
			delays+=($((t - off)))
			off=
		fi
	done < "$CAN_TMP/err"
	log "bus-off to restart (ms): ${delays[*]}"
	for want in "$@"; do
		[ "$want" = calm ] && continue
		got=${delays[i]}
		i=$((i + 1))
		[ -n "$got" ] || { fail "only ${#delays[@]} restarts logged"; return 1; }
		if [ "$got" -lt $((want - 5)) ] || [ "$got" -gt $((want + want / 4 + 50)) ]; then
			fail "round $i: $got ms where $want ms were due"
			rc=1
		fi
	done
	return $rc
}

test_restart_ms_parameter_sets_new_devices() {
	echo 150 > $PARAMS/restart_ms || return 1
	ip link add dev "${DEV}a" type can bitrate 125000
	CAN_LINKS+=("${DEV}a")
	echo 0 > $PARAMS/restart_ms
	ip -d link show "${DEV}a" | grep -q "restart-ms 150 " ||
		{ fail "$(ip -d link show "${DEV}a" | grep restart)"; return 1; }
	ip link add dev "${DEV}b" type can bitrate 125000
	CAN_LINKS+=("${DEV}b")
	ip -d link show "${DEV}b" | grep -q "restart-ms 0 " ||
		{ fail "parameter 0: $(ip -d link show "${DEV}b" | grep restart)"; return 1; }
}

# restart-ms 25, back-off up to 1600: 25, 50, ... 1600, 1600; then,
# after a calm of more than 1600 ms, 25 again. (The cap is generous so
# that a slow guest puts the node bus-off again within it.)
test_backoff_doubles_up_to_the_cap() {
	local rc

	echo 1600 > $PARAMS/restart_backoff_ms || return 1
	bus_off_rounds 25 50 100 200 400 800 1600 1600 calm 25
	rc=$?
	echo 0 > $PARAMS/restart_backoff_ms
	return $rc
}

test_backoff_off_keeps_restart_ms() {
	bus_off_rounds 25 25 25
}

ktap_header 3
mountpoint -q $DBG || mount -t debugfs none $DBG
if ! modprobe can-vbus || [ ! -w $PARAMS/restart_backoff_ms ]; then
	log "no can-vbus or no recovery parameters"
	run_test restart_ms_parameter_sets_new_devices false
	ktap_finish
fi
ip link add dev "$DEV" group 4712 type can bitrate 500000 restart-ms 25 &&
	ip link set "$DEV" up
CAN_LINKS+=("$DEV")
mkfifo "$CAN_TMP/tick"
exec 9<> "$CAN_TMP/tick"
run_test restart_ms_parameter_sets_new_devices test_restart_ms_parameter_sets_new_devices
run_test backoff_doubles_up_to_the_cap test_backoff_doubles_up_to_the_cap
run_test backoff_off_keeps_restart_ms test_backoff_off_keeps_restart_ms
ktap_finish
