#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module loading and reference counting: socket(PF_CAN, SOCK_RAW, CAN_RAW)
# loads can and can-raw on demand, an open socket pins can-raw, can-raw
# pins can, and the module aliases are mainline's. An ISO-TP socket and
# "ip link add type vxcan" load our can-isotp and vxcan the same way.

source "$(dirname "$0")/lib/can_test.sh"

HOLD=$CAN_TEST_BIN/can_hold_socket
HOLD_PID=

is_loaded() {
	[ -d "/sys/module/$1" ]
}

# Unload the whole stack so that the tests start from nothing: the
# protocols, then every driver that needs our core (can-dev and the
# drivers on it, can-vbus among them, as well as vcan and vxcan, see
# can_foreign_core.sh).
unload_all() {
	local m

	for m in can_bcm can_gw can_isotp can_j1939 can_raw vcan vxcan kvaser_pci \
		pcm3680_pci sja1000_fake sja1000 mcp251x mcp2515_model can_vbus can_dev \
		can; do
		is_loaded "$m" && rmmod "$m" 2>/dev/null
	done
	! is_loaded can
}

# hold_socket [raw|bcm|isotp]: start the helper holding a socket of that
# protocol (CAN_RAW by default); wait for its "ready".
hold_socket() {
	mkfifo "$CAN_TMP/in"
	"$HOLD" "${1:-raw}" < "$CAN_TMP/in" > "$CAN_TMP/hold.out" 2>&1 &
	HOLD_PID=$!
	exec 7> "$CAN_TMP/in"
	wait_until 10 grep -qE 'ready|error' "$CAN_TMP/hold.out" &&
		grep -q ready "$CAN_TMP/hold.out"
}

release_socket() {
	[ -n "$HOLD_PID" ] || return 0
	exec 7>&-
	wait "$HOLD_PID"
	HOLD_PID=
	rm -f "$CAN_TMP/in"
}

test_socket_autoloads_can_and_can_raw() {
	hold_socket || { fail "socket(): $(cat "$CAN_TMP/hold.out")"; return 1; }
	is_loaded can_raw || { fail "can_raw not loaded"; return 1; }
	is_loaded can || { fail "can not loaded"; return 1; }
}

test_rmmod_can_raw_refused_while_socket_open() {
	local out

	[ -n "$HOLD_PID" ] || { fail "no socket held"; return 1; }
	out=$(rmmod can_raw 2>&1) && { fail "rmmod can_raw succeeded"; return 1; }
	log "$out"
	echo "$out" | grep -q "in use" || { fail "not refused as in use"; return 1; }
	is_loaded can_raw
}

test_rmmod_can_refused_while_can_raw_loaded() {
	local out

	out=$(rmmod can 2>&1) && { fail "rmmod can succeeded"; return 1; }
	log "$out"
	echo "$out" | grep -q "in use" || { fail "not refused as in use"; return 1; }
	is_loaded can
}

test_can_raw_refcount_counts_open_socket() {
	local held

	held=$(cat /sys/module/can_raw/refcnt)
	release_socket
	[ "$(cat /sys/module/can_raw/refcnt)" -lt "$held" ] && return 0
	fail "refcnt $held before close, $(cat /sys/module/can_raw/refcnt) after"
	return 1
}

test_rmmod_can_raw_succeeds_after_socket_closed() {
	rmmod can_raw || return 1
	! is_loaded can_raw
}

test_rmmod_can_succeeds_once_protocols_are_gone() {
	rmmod can || return 1
	! is_loaded can
}

test_modprobe_can_raw_pulls_in_can() {
	modprobe can-raw || return 1
	is_loaded can
}

test_modules_carry_mainline_aliases() {
	local m alias

	while read -r m alias; do
		modinfo -F alias "$m" | grep -qx "$alias" || { fail "$m: no $alias"; return 1; }
	done <<-EOF
		can net-pf-29
		can-raw can-proto-1
		can-bcm can-proto-2
		can-isotp can-proto-6
		can-gw can-gw
		vcan rtnl-link-vcan
		vxcan rtnl-link-vxcan
	EOF
}

# On Debian's kernel ours sit in updates/; the debug kernel of "make
# check-debug" has them in its own tree. Either way the author is ours.
test_modules_are_ours_from_updates() {
	local m path author

	for m in can can-raw can-bcm can-isotp can-gw vcan vxcan; do
		path=$(modinfo -n "$m") || return 1
		author=$(modinfo -F author "$m")
		log "$m: $path ($author)"
		case $path in
		*/updates/*) ;;
		*/kernel/*) [[ $(uname -r) == *-candebug ]] ||
				{ fail "$m comes from $path"; return 1; } ;;
		*) fail "$m comes from $path"; return 1 ;;
		esac
		[ "$author" = "The CAN stack developers" ] ||
			{ fail "$m is by $author"; return 1; }
	done
}

test_ip_link_add_autoloads_vcan() {
	is_loaded vcan && { rmmod vcan || return 1; }
	vcan_add "cm$$" || return 1
	is_loaded vcan
}

# socket(PF_CAN, SOCK_DGRAM, CAN_ISOTP) asks for can-proto-6: the module
# that comes in must be our can-isotp (by build id), pinned by the socket.
test_isotp_socket_autoloads_our_can_isotp() {
	local rc=0

	is_loaded can_isotp && { rmmod can_isotp || return 1; }
	hold_socket isotp || { fail "socket(): $(cat "$CAN_TMP/hold.out")"; return 1; }
	if ! is_loaded can_isotp; then
		fail "can_isotp not loaded"
		rc=1
	elif ! loaded_from can_isotp net/can/isotp/can-isotp.ko; then
		rc=1
	elif rmmod can_isotp 2> /dev/null; then
		fail "rmmod can_isotp succeeded with a socket open"
		rc=1
	fi
	release_socket
	[ $rc -eq 0 ] && rmmod can_isotp
}

# "ip link add type vxcan" asks for rtnl-link-vxcan: our vxcan comes in
# and makes the pair.
test_ip_link_add_autoloads_our_vxcan() {
	is_loaded vxcan && { rmmod vxcan || return 1; }
	ip link add "vm$$" type vxcan peer name "vn$$" || return 1
	CAN_LINKS+=("vm$$")
	is_loaded vxcan || { fail "vxcan not loaded"; return 1; }
	loaded_from vxcan drivers/net/can/vxcan.ko || return 1
	ip link show "vn$$" > /dev/null || { fail "no peer vn$$"; return 1; }
	ip link del "vm$$" || return 1
	! ip link show "vn$$" > /dev/null 2>&1
}

test_rmmod_vcan_removes_its_links() {
	ip link show "cm$$" > /dev/null 2>&1 || { fail "no link to start with"; return 1; }
	rmmod vcan || return 1
	! ip link show "cm$$" > /dev/null 2>&1
}

# Unloading vcan while frames flow removes the link under cangen and
# candump: both must notice and exit, and the kernel must stay quiet
# (vmtest.sh fails the run on any oops or warning).
test_rmmod_vcan_under_traffic_stops_tools() {
	local link=ct$$ gen dump rc=0

	vcan_add "$link" || return 1
	timeout 30 cangen "$link" -g 0 -I 123 -L 8 2> "$CAN_TMP/gen.err" &
	gen=$!
	timeout 30 candump "$link" > /dev/null 2> "$CAN_TMP/dump.err" &
	dump=$!
	wait_until 10 bash -c "[ \$(cat /sys/class/net/$link/statistics/rx_packets) -gt 100 ]" ||
		{ fail "no traffic"; rc=1; }
	rmmod vcan || { fail "rmmod vcan failed"; rc=1; }
	wait "$gen"
	[ $? -eq 124 ] && { fail "cangen kept running"; rc=1; }
	wait "$dump"
	[ $? -eq 124 ] && { fail "candump kept running"; rc=1; }
	sed 's/^/# /' "$CAN_TMP/gen.err" "$CAN_TMP/dump.err"
	modprobe vcan
	return $rc
}

ktap_header 15
if ! unload_all; then
	log "cannot unload the CAN modules: $(lsmod | grep -E '^(can|vcan)')"
fi
run_test socket_autoloads_can_and_can_raw test_socket_autoloads_can_and_can_raw
run_test rmmod_can_raw_refused_while_socket_open test_rmmod_can_raw_refused_while_socket_open
run_test rmmod_can_refused_while_can_raw_loaded test_rmmod_can_refused_while_can_raw_loaded
run_test can_raw_refcount_counts_open_socket test_can_raw_refcount_counts_open_socket
run_test rmmod_can_raw_succeeds_after_socket_closed test_rmmod_can_raw_succeeds_after_socket_closed
run_test rmmod_can_succeeds_once_protocols_are_gone test_rmmod_can_succeeds_once_protocols_are_gone
run_test modprobe_can_raw_pulls_in_can test_modprobe_can_raw_pulls_in_can
run_test modules_carry_mainline_aliases test_modules_carry_mainline_aliases
run_test modules_are_ours_from_updates test_modules_are_ours_from_updates
run_test ip_link_add_autoloads_vcan test_ip_link_add_autoloads_vcan
run_test rmmod_vcan_removes_its_links test_rmmod_vcan_removes_its_links
release_socket
# leave the stack loaded for whatever runs next
modprobe can-raw
modprobe vcan
run_test stack_reloads_after_unload test_modprobe_can_raw_pulls_in_can
run_test rmmod_vcan_under_traffic_stops_tools test_rmmod_vcan_under_traffic_stops_tools
run_test isotp_socket_autoloads_our_can_isotp test_isotp_socket_autoloads_our_can_isotp
run_test ip_link_add_autoloads_our_vxcan test_ip_link_add_autoloads_our_vxcan
ktap_finish
