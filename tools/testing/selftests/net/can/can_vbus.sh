#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The virtual CAN bus of can-vbus as a device: "ip link add type can"
# only with the module, ip's view of the controller, bit timing checks,
# groups and namespaces as separate buses, unmodified can-utils at
# several bitrates (every frame in order, bus load as canbusload sees
# it), devices and the module going away under traffic, and debugfs
# refusing garbage. Fault confinement is can_vbus_faults.sh.

source "$(dirname "$0")/lib/can_test.sh"

# The bitrate of the bus load tests (see test_canbusload_saturated).
LOAD_RATE=10000

NETNS=()

vbus_cleanup() {
	local ns

	for ns in "${NETNS[@]}"; do
		ip netns del "$ns" 2> /dev/null
	done
	lib_cleanup
}
trap vbus_cleanup EXIT

netns_add() {
	ip netns add "$1" || return 1
	NETNS+=("$1")
}

# in_ns NS CMD...: CMD in network namespace NS ("" for this one).
in_ns() {
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# hears FROMNS FROM TONS TO: a frame sent on FROM arrives on TO within
# HEAR_FOR seconds of its sending (5: a slow guest). Where a test expects
# silence it sets HEAR_FOR=1: a frame that crosses does so in well under
# that, and the listener is stopped then instead of timing out.
hears() {
	local f=123#DEADBEEF listener="candump -L -n 1 $4\$"

	in_ns "$3" timeout 30 candump -L -n 1 "$4" > "$CAN_TMP/hear" 2>&1 &
	local pid=$!
	wait_until 10 in_ns "$3" sh -c "grep -qsE '^ +$4 ' /proc/net/can/rcvlist_*" ||
		{ fail "candump did not bind"; return 1; }
	in_ns "$1" cansend "$2" "$f" || { fail "cansend on $2"; return 1; }
	wait_until "${HEAR_FOR:-5}" grep -q " $4 $f\$" "$CAN_TMP/hear"
	pkill -f "$listener"
	wait "$pid"
	grep -q " $4 $f\$" "$CAN_TMP/hear"
}

test_refused_without_module() {
	local out

	if [ -d /sys/module/can_vbus ]; then
		rmmod can_vbus || return 1
	fi
	# can-dev comes back on demand through its rtnl-link-can alias
	[ -d /sys/module/can_dev ] && [ "$(cat /sys/module/can_dev/refcnt)" = 0 ] &&
		rmmod can_dev
	out=$(ip link add dev vb0 type can bitrate 500000 2>&1) &&
		{ ip link del vb0; fail "created without can-vbus"; return 1; }
	log "$out"
	echo "$out" | grep -q "CAN devices are created by their drivers" ||
		{ fail "unexpected error: $out"; return 1; }
	[ -d /sys/module/can_dev ] || { fail "can-dev was not autoloaded"; return 1; }
}

test_modprobe_makes_it_work() {
	local path

	vbus_setup || return 1
	path=$(modinfo -n can-vbus) || return 1
	log "can-vbus: $path ($(modinfo -F author can-vbus))"
	case $path in
	*/updates/*) ;;
	*/kernel/*) [[ $(uname -r) == *-candebug ]] || { fail "from $path"; return 1; } ;;
	*) fail "from $path"; return 1 ;;
	esac
	[ "$(modinfo -F author can-vbus)" = "The CAN stack developers" ] ||
		{ fail "not ours"; return 1; }
	loaded_from can_vbus drivers/net/can/vbus/can-vbus.ko || return 1
	vbus_add vb0 bitrate 500000 || return 1
	ip link show vb0 > /dev/null
}

test_ip_shows_controller() {
	local out

	out=$(ip -d link show vb0)
	echo "$out" | grep -q "bitrate 500000 sample-point 0.875" || { fail "$out"; return 1; }
	echo "$out" | grep -q "state STOPPED" || { fail "down: $out"; return 1; }
	ip link set vb0 up || return 1
	out=$(ip -d link show vb0)
	echo "$out" | grep -q "state ERROR-ACTIVE (berr-counter tx 0 rx 0)" ||
		{ fail "up: $out"; return 1; }
	echo "$out" | grep -q "bitrate 500000 sample-point 0.875"
}

test_bitrate_change_only_while_down() {
	local out

	out=$(ip link set vb0 type can bitrate 125000 2>&1) &&
		{ fail "changed while up"; return 1; }
	log "up: $out"
	echo "$out" | grep -qE "Device or resource busy|bring the interface down first" ||
		{ fail "not EBUSY: $out"; return 1; }
	ip -d link show vb0 | grep -q "bitrate 500000" || { fail "changed anyway"; return 1; }
	ip link set vb0 down || return 1
	ip link set vb0 type can bitrate 125000 || return 1
	ip -d link show vb0 | grep -q "bitrate 125000 " || { fail "not changed"; return 1; }
}

# Each bad setting fails with a message and changes nothing: the node
# still comes up and talks at 125 kbit/s.
test_bad_settings_refused() {
	local args out

	vbus_add vb1 bitrate 125000 || return 1
	for args in "bitrate 1" "bitrate 100000000" "bitrate 500000 sample-point 1.5" \
		"bitrate 500000 fd on dbitrate 250000"; do
		# shellcheck disable=SC2086
		out=$(ip link set vb0 type can $args 2>&1) &&
			{ fail "accepted: $args"; return 1; }
		log "$args: $out"
		[ -n "$out" ] || { fail "no message for $args"; return 1; }
		ip -d link show vb0 | grep -q "bitrate 125000 " ||
			{ fail "$args changed the bitrate"; return 1; }
		ip -d link show vb0 | grep -q "dbitrate" && { fail "$args left FD on"; return 1; }
	done
	ip link set vb0 up && ip link set vb1 up || return 1
	link_ready vb0 && link_ready vb1 || return 1
	can_send_and_check vb0 vb1
}

test_ip_link_del() {
	ip link del vb1 || return 1
	! ip link show vb1 > /dev/null 2>&1 || { fail "still there"; return 1; }
	! vbus_node_dir vb1 > /dev/null || { fail "debugfs node left"; return 1; }
}

test_rmmod_removes_devices() {
	vbus_add vb1 bitrate 500000 || return 1
	vbus_add vb2 bitrate 500000 || return 1
	ip link set vb1 up || return 1
	rmmod can_vbus || return 1
	for d in vb0 vb1 vb2; do
		! ip link show "$d" > /dev/null 2>&1 || { fail "$d left"; return 1; }
	done
	[ ! -d "$VBUS_DEBUGFS" ] || { fail "debugfs left"; return 1; }
	vbus_setup
}

test_group0_nodes_hear_each_other() {
	vbus_up ga0 bitrate 500000 && vbus_up ga1 bitrate 500000 || return 1
	can_send_and_check ga0 ga1 && can_send_and_check ga1 ga0
}

test_group7_apart_from_group0() {
	vbus_up ga7 group 7 -- bitrate 500000 || return 1
	vbus_up gb7 group 7 -- bitrate 500000 || return 1
	[ "$(vbus_bus_dir ga7)" = "$(vbus_bus_dir gb7)" ] &&
		[ "$(vbus_bus_dir ga7)" != "$(vbus_bus_dir ga0)" ] ||
		{ fail "buses $(vbus_bus_dir ga7) $(vbus_bus_dir ga0)"; return 1; }
	HEAR_FOR=1 hears "" ga0 "" ga7 2> /dev/null && { fail "group 7 heard group 0"; return 1; }
	HEAR_FOR=1 hears "" ga7 "" ga0 2> /dev/null && { fail "group 0 heard group 7"; return 1; }
	hears "" ga7 "" gb7 || { fail "group 7 nodes apart"; return 1; }
	hears "" ga0 "" ga1
}

# Group 65536 is one bus for all namespaces, group 0 one per namespace.
test_shared_group_across_netns() {
	local ns

	netns_add vbA && netns_add vbB || return 1
	for ns in A B; do
		ip -n vb$ns link add dev sh$ns group 65536 type can bitrate 500000 || return 1
		ip -n vb$ns link add dev lo$ns type can bitrate 500000 || return 1
		ip -n vb$ns link set sh$ns up && ip -n vb$ns link set lo$ns up || return 1
	done
	[ -d "$VBUS_DEBUGFS/shared-group65536/shA" ] || { fail "no shared bus"; return 1; }
	hears vbA shA vbB shB && hears vbB shB vbA shA || { fail "shared group"; return 1; }
	# group 0 of each namespace has one node: alone, not heard
	HEAR_FOR=1 hears vbA loA vbB loB && { fail "group 0 crossed namespaces"; return 1; }
	return 0
}

test_moved_device_joins_netns_bus() {
	vbus_add mv0 bitrate 500000 || return 1
	ip link set mv0 netns vbA || return 1
	ip -n vbA link set mv0 up || return 1
	[ "$(vbus_bus_dir mv0)" = "$(vbus_bus_dir loA)" ] ||
		{ fail "on $(vbus_bus_dir mv0), not $(vbus_bus_dir loA)"; return 1; }
	hears vbA mv0 vbA loA && hears vbA loA vbA mv0 || return 1
	HEAR_FOR=1 hears vbA mv0 "" ga0 2> /dev/null &&
		{ fail "heard in the old namespace"; return 1; }
	ip netns del vbA && ip netns del vbB || return 1
	NETNS=()
	wait_until 10 test ! -d "$VBUS_DEBUGFS/shared-group65536" ||
		{ fail "shared bus outlived its namespaces"; return 1; }
}

# check_sequence FILE N: candump -L of cangen -I i -D i: N frames,
# identifiers and counters in order.
check_sequence() {
	awk -v n="$2" '
	{ split($3, f, "#"); id = f[1]; want = sprintf("%03X", (NR - 1) % 2048)
	  if (id != want) { printf "# frame %d: id %s, want %s\n", NR, id, want; bad = 1; exit } }
	END { if (!bad && NR != n) { printf "# %d frames, want %d\n", NR, n; bad = 1 }
	      exit bad }' "$1"
}

# utils_run N US CANGEN-OPTS: cangen sends N frames, candump gets all in
# order, no faster than the wire allows (US: least time of one frame).
utils_run() {
	local n=$1 bits=$2 fd=$3 t0 ms min

	shift 3
	t0=$(date +%s%N)
	# A big receive buffer: a slow guest must not drop frames in candump.
	timeout 30 candump -r $((8 << 20)) -L -n "$n" ut1 > "$CAN_TMP/ut" 2>&1 &
	local pid=$!
	wait_until 10 has_rx_entry ut1 || { fail "candump did not bind"; return 1; }
	# shellcheck disable=SC2086
	timeout 30 cangen -g 0 -p 10 -I i -D i -n "$n" $fd ut0 ||
		{ fail "cangen failed"; return 1; }
	wait "$pid" || { fail "candump: $(tail -1 "$CAN_TMP/ut")"; return 1; }
	ms=$((($(date +%s%N) - t0) / 1000000))
	min=$((n * bits / 1000))
	log "$n frames in $ms ms, wire time at least $min ms"
	check_sequence "$CAN_TMP/ut" "$n" || return 1
	# the last frame's timestamp minus the first's: the wire time
	awk -v n="$n" -v b="$bits" 'NR == 1 { t0 = substr($1, 2) + 0 }
	     END { t = (substr($1, 2) - t0) * 1e6; w = (n - 1) * b
		   printf "# frames span %d us, wire at least %d us\n", t, w
		   exit t < w * 0.98 }' "$CAN_TMP/ut" || { fail "faster than the wire"; return 1; }
}

# utils_at N BITRATE US [ip options] -- [cangen options]: utils_run
# between two new nodes.
utils_at() {
	local n=$1 rate=$2 us=$3 ipo=() gen=""

	shift 3
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		ipo+=("$1")
		shift
	done
	[ "$1" = "--" ] && shift
	gen="$*"
	ip link del ut0 2> /dev/null
	ip link del ut1 2> /dev/null
	vbus_up ut0 bitrate "$rate" "${ipo[@]}" && vbus_up ut1 bitrate "$rate" "${ipo[@]}" ||
		return 1
	utils_run "$n" "$us" "$gen"
}

# Least frame times: an 8-byte classic frame with a standard identifier
# has 111 bits unstuffed (SOF to end of IFS); an FD frame with 64 bytes
# and BRS has 17 + 12 nominal bits and 1 + 4 + 512 + 32 + 1 data bits.
test_cangen_candump_125k() { utils_at 1500 125000 888 -- -L 8; }
test_cangen_candump_500k() { utils_at 3000 500000 222 -- -L 8; }
test_cangen_candump_1m() { utils_at 3000 1000000 111 -- -L 8; }
test_cangen_candump_fd() {
	utils_at 2000 500000 168 fd on dbitrate 5000000 -- -f -b -L 64
}

test_cansequence() {
	local n=3000 pid rc

	timeout 30 cansequence -r --quit=1 --loop=$n ut1 > "$CAN_TMP/seq" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry ut1 || { fail "receiver did not bind"; return 1; }
	timeout 30 cansequence -p --loop=$n ut0 > /dev/null 2>&1 || { fail "sender"; return 1; }
	wait "$pid"
	rc=$?
	sed 's/^/# /' "$CAN_TMP/seq" | tail -3
	[ $rc -eq 0 ] || { fail "receiver exit status $rc"; return 1; }
	! grep -qi "sequence" "$CAN_TMP/seq" || { fail "lost sequence"; return 1; }
	[ "$(can_stat ut1 rx_packets)" -ge $n ]
}

# busload WANT_MIN WANT_MAX "SENDERS" CANGEN-ARGS...: cangen on each
# sender; canbusload -e on another node and the bus's debugfs load, 3
# one-second readings each, agree within 2 points on average, in the
# range given.
busload() {
	local lo=$1 hi=$2 senders=$3 bus gen=() cbl dbg mon d

	shift 3
	bus=$(vbus_bus_dir ut1)
	vbus_up ut2 bitrate $LOAD_RATE || return 1
	for d in $senders; do
		timeout -k 2 10 cangen -p 10 "$@" "$d" > /dev/null 2>&1 &
		gen+=($!)
	done
	sleep 1.5
	timeout 3.6 canbusload -e ut2@$LOAD_RATE > "$CAN_TMP/load" 2>&1 &
	mon=$!
	: > "$CAN_TMP/dbg"
	for _ in 1 2 3; do
		sleep 1.1
		cat "$bus/load" >> "$CAN_TMP/dbg"
	done
	wait "$mon"
	# Gone once waited for: timeout returns only after its cangen has.
	kill "${gen[@]}" 2> /dev/null
	wait "${gen[@]}" 2> /dev/null
	ip link del ut2
	cbl=$(awk '/ut2@/ { sub(/%/, "", $5); s += $5; n++ } END { if (n) printf "%.1f", s / n }' \
		"$CAN_TMP/load")
	dbg=$(awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n }' "$CAN_TMP/dbg")
	log "canbusload: $(awk '/ut2@/ { printf "%s ", $5 }' "$CAN_TMP/load")-> $cbl"
	log "debugfs load: $(tr '\n' ' ' < "$CAN_TMP/dbg")-> $dbg"
	[ -n "$cbl" ] && [ -n "$dbg" ] || { fail "no readings"; return 1; }
	awk -v a="$cbl" -v b="$dbg" -v lo="$lo" -v hi="$hi" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		exit !(d <= 2 && b >= lo && b <= hi) }' ||
		{ fail "canbusload $cbl, debugfs $dbg (want $lo..$hi, 2 apart)"; return 1; }
}

# busload_twice ARGS...: busload, once more if the readings disagree. The
# two meters read different windows of a rate that a starved guest's
# cangen cannot hold (32.3 against 40.7 at a host load of 8 on two
# cores); a meter that is wrong is wrong twice.
busload_twice() {
	busload "$@" && return 0
	log "the meters disagreed; once more"
	busload "$@"
}

# Three senders: their FIFOs hold 12 frames, more wire time than the
# timer of a slow guest is late (a single sender's 4 frames can run out
# while the bus timer catches up, the wire idles then). The bitrate is
# low enough for the debug kernel to keep the bus busy as well.
test_canbusload_saturated() {
	ip link del ut0; ip link del ut1
	vbus_up ut0 bitrate $LOAD_RATE && vbus_up ut1 bitrate $LOAD_RATE &&
		vbus_up ut3 bitrate $LOAD_RATE || return 1
	# A frame counts in the second it starts in: up to one frame (1.3%
	# at 10 kbit/s) over 100.
	busload_twice 95 102 "ut0 ut1 ut3" -g 0 -L 8
}

# A frame of 8 bytes takes about 13 ms at 10 kbit/s: one every 25 ms.
test_canbusload_half() {
	ip link del ut3
	busload_twice 20 80 ut0 -g 25 -L 8
}

# Under traffic: the sender's device goes away, cangen sees the error,
# the receiver and the bus carry on.
test_del_sender_under_traffic() {
	local gen dump rc=0

	vbus_up lt0 bitrate 500000 && vbus_up lt1 bitrate 500000 && vbus_up lt2 bitrate 500000 ||
		return 1
	timeout 30 candump lt1 > /dev/null 2> "$CAN_TMP/dump.err" &
	dump=$!
	wait_until 10 has_rx_entry lt1 || return 1
	timeout -k 2 30 cangen -g 0 -p 10 lt0 2> "$CAN_TMP/gen.err" &
	gen=$!
	wait_until 10 output_cmp -gt 200 can_stat lt1 rx_packets || { fail "no traffic"; return 1; }
	ip link del lt0 || return 1
	wait "$gen"
	rc=$?
	log "cangen exit status $rc: $(head -1 "$CAN_TMP/gen.err")"
	[ $rc -ne 124 ] && [ $rc -ne 0 ] || { fail "cangen did not notice"; return 1; }
	kill -0 "$dump" 2> /dev/null || { fail "candump on lt1 died"; return 1; }
	kill "$dump"
	wait "$dump"
	can_send_and_check lt2 lt1
}

# A namespace with nodes on a shared bus goes away while a node of this
# namespace sends to them and one of its own sends back.
test_netns_del_under_traffic() {
	local gen ns_gen

	netns_add vbC || return 1
	ip -n vbC link add dev nc0 group 65537 type can bitrate 500000 || return 1
	ip -n vbC link add dev nc1 group 65537 type can bitrate 500000 || return 1
	ip -n vbC link set nc0 up && ip -n vbC link set nc1 up || return 1
	vbus_up nt0 group 65537 -- bitrate 500000 || return 1
	vbus_up nt1 group 65537 -- bitrate 500000 || return 1
	timeout -k 2 30 cangen -g 0 -p 10 nt0 > /dev/null 2>&1 &
	gen=$!
	ip netns exec vbC timeout -k 1 2 cangen -g 0 -p 10 nc0 > /dev/null 2>&1 &
	ns_gen=$!
	wait_until 10 output_cmp -gt 200 ip netns exec vbC cat \
		/sys/class/net/nc1/statistics/rx_packets || { fail "no traffic"; return 1; }
	ip netns del vbC || return 1
	NETNS=()
	wait "$ns_gen"
	wait_until 10 test ! -d "$VBUS_DEBUGFS/shared-group65537/nc1" ||
		{ fail "nodes of the namespace stayed"; return 1; }
	kill "$gen"
	wait "$gen" 2> /dev/null
	vbus_expect nt0 "ERROR-ACTIVE 0 0" || return 1
	can_send_and_check nt1 nt0
}

test_rmmod_under_traffic() {
	local gen dump rc

	vbus_up rt0 bitrate 500000 && vbus_up rt1 bitrate 500000 || return 1
	timeout 30 candump rt1 > /dev/null 2>&1 &
	dump=$!
	wait_until 10 has_rx_entry rt1 || return 1
	timeout -k 2 30 cangen -g 0 -p 10 rt0 2> "$CAN_TMP/gen.err" &
	gen=$!
	wait_until 10 output_cmp -gt 200 can_stat rt1 rx_packets || { fail "no traffic"; return 1; }
	rmmod can_vbus || { fail "rmmod"; return 1; }
	wait "$gen"
	rc=$?
	log "cangen exit status $rc: $(head -1 "$CAN_TMP/gen.err")"
	[ $rc -ne 124 ] && [ $rc -ne 0 ] || { fail "cangen did not notice"; return 1; }
	wait "$dump"
	[ $? -ne 124 ] || { fail "candump kept running"; return 1; }
	[ ! -d /sys/module/can_vbus ] || { fail "still loaded"; return 1; }
	vbus_setup
}

# Garbage in both fault files is refused and changes nothing.
test_debugfs_garbage_refused() {
	local long f s bus node

	vbus_up dg0 bitrate 500000 && vbus_up dg1 bitrate 500000 || return 1
	bus=$(vbus_bus_dir dg0)/fault
	node=$(vbus_node_dir dg0)/fault
	long=$(head -c 4000 /dev/zero | tr '\0' x)
	for f in "$bus" "$node"; do
		for s in "" foo bit-error "bit-error -1" "bit-error 99999999999" \
			"stuck-dominant 0" "no-ack 2" "bit-error 3 4" "$long"; do
			if (echo "$s" > "$f") 2> /dev/null; then
				fail "${f#"$VBUS_DEBUGFS"/} took '${s:0:20}'"
				return 1
			fi
		done
	done
	grep -q "bit-error 0" "$bus" && grep -q "stuck-dominant 0" "$bus" &&
		grep -qx "bit-error 0" "$node" && grep -qx "no-ack 0" "$node" ||
		{ fail "faults set: $(cat "$bus" "$node")"; return 1; }
	vbus_expect dg0 "ERROR-ACTIVE 0 0" || return 1
	can_send_and_check dg0 dg1 && can_send_and_check dg1 dg0
}

ktap_header 23
dmesg_mark=$(($(dmesg | wc -l) + 1))
run_test refused_without_module test_refused_without_module
run_test modprobe_makes_it_work test_modprobe_makes_it_work
run_test ip_shows_controller test_ip_shows_controller
run_test bitrate_change_only_while_down test_bitrate_change_only_while_down
run_test bad_settings_refused test_bad_settings_refused
run_test ip_link_del test_ip_link_del
run_test rmmod_removes_devices test_rmmod_removes_devices
run_test group0_nodes_hear_each_other test_group0_nodes_hear_each_other
run_test group7_apart_from_group0 test_group7_apart_from_group0
run_test shared_group_across_netns test_shared_group_across_netns
run_test moved_device_joins_netns_bus test_moved_device_joins_netns_bus
run_test cangen_candump_125k test_cangen_candump_125k
run_test cangen_candump_500k test_cangen_candump_500k
run_test cangen_candump_1m test_cangen_candump_1m
run_test cangen_candump_fd test_cangen_candump_fd
run_test cansequence test_cansequence
run_test canbusload_saturated test_canbusload_saturated
run_test canbusload_half test_canbusload_half
run_test del_sender_under_traffic test_del_sender_under_traffic
run_test netns_del_under_traffic test_netns_del_under_traffic
run_test rmmod_under_traffic test_rmmod_under_traffic
run_test debugfs_garbage_refused test_debugfs_garbage_refused
run_test kernel_log_clean kernel_log_is_clean "$dmesg_mark"
ktap_finish
