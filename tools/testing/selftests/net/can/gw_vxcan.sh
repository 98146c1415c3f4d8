#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# can-gw and vxcan as a container gets a CAN bus: a vxcan pair with one
# end in a network namespace, and two cangw jobs (with echo, both ways)
# between a vcan of the host, standing for its bus, and the host end.
# Frames cross both ways unchanged and are counted, the echo of one job
# stops at the other through the hop limit, and deleting the namespace
# under traffic removes the pair and with it both jobs (the device
# notifier) and nothing else; the host can set it all up again. A chain
# of gateways through the pair counts against the module's max_hops,
# which a reload raises (and clamps to 1..6), and unloading can-gw with
# jobs in both namespaces and frames flowing takes every job along.

source "$(dirname "$0")/lib/can_test.sh"

NS=gwns$$
BUS=gwb$$
OTHER=gwo$$
HOST=gwh$$
GUEST=gwg$$
LOOP_A=gwla$$
LOOP_B=gwlb$$
# The container's own buses, at the end of the chain.
CHAIN=(gwn1$$ gwn2$$ gwn3$$)
DMESG_MARK=
TRAFFIC_PID=

in_ns() {
	ip netns exec "$NS" "$@"
}

ns_has_rx_entry() {
	in_ns grep -qsE "^ +$1 " /proc/net/can/rcvlist_all /proc/net/can/rcvlist_fil \
		/proc/net/can/rcvlist_sff /proc/net/can/rcvlist_eff
}

link_gone() {
	! ip link show "$1" > /dev/null 2>&1
}

# The two jobs of a container's link, and a third one the container's
# fate must not touch.
add_jobs() {
	cangw -A -s "$BUS" -d "$HOST" -e && cangw -A -s "$HOST" -d "$BUS" -e &&
		cangw -A -s "$BUS" -d "$OTHER" -e
}

# setup_container: the pair, the guest end in $NS, both up, the jobs.
# The guest end gets the interface index that the bus has here, as a
# container's first CAN interface (2, after lo) often has that of the
# host's: an index names a device of one namespace only, and the frames
# from the container must still be routed onto the bus.
setup_container() {
	local host_index

	host_index=$(($(sort -n /sys/class/net/*/ifindex | tail -1) + 1))
	ip netns add "$NS" || return 1
	ip link add "$HOST" index "$host_index" type vxcan peer name "$GUEST" netns "$NS" \
		index "$(cat "/sys/class/net/$BUS/ifindex")" || return 1
	[ "$(in_ns cat "/sys/class/net/$GUEST/ifindex")" = \
		"$(cat "/sys/class/net/$BUS/ifindex")" ] ||
		{ fail "guest end has not the index of $BUS"; return 1; }
	ip link set "$HOST" up && in_ns ip link set "$GUEST" up || return 1
	link_ready "$HOST" && link_ready "$GUEST" "$NS" || return 1
	add_jobs || { fail "cangw -A"; return 1; }
}

# job SRC DST [NS]: the counters cangw -L lists (in NS) for the job from
# SRC to DST, whatever its flags: "handled dropped deleted".
job() {
	local counters='# ([0-9]+) handled ([0-9]+) dropped ([0-9]+) deleted$'

	${3:+ip netns exec "$3"} cangw -L |
		sed -nE "s/^cangw -A -s $1 -d $2 .*$counters/\1 \2 \3/p"
}

jobs_listed() {
	cangw -L | grep -c '^cangw -A '
}

test_jobs_between_bus_and_container() {
	setup_container || return 1
	cangw -L | sed 's/^/# /'
	[ "$(jobs_listed)" = 3 ] || { fail "not three jobs"; return 1; }
	[ "$(job "$BUS" "$HOST")" = "0 0 0" ] && [ "$(job "$HOST" "$BUS")" = "0 0 0" ] ||
		{ fail "jobs not listed as added"; return 1; }
	# Jobs belong to the namespace they were added in.
	[ -z "$(in_ns cangw -L)" ] || { fail "the host's jobs listed in $NS"; return 1; }
}

test_frames_from_bus_reach_container() {
	local pid got f

	timeout 20 ip netns exec "$NS" candump -L -n 8 "$GUEST" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 ns_has_rx_entry "$GUEST" || { fail "candump did not bind"; return 1; }
	for f in $CAN_FRAMES; do
		cansend "$BUS" "$f" || { fail "cansend $f"; return 1; }
	done
	wait "$pid" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
	got=$(awk '{ print $3 }' "$CAN_TMP/dump")
	[ "$got" = "$CAN_FRAMES" ] || { fail "sent: $CAN_FRAMES got: $got"; return 1; }
}

# The routed frames arrive once on the host's bus: the job back into
# the container does not route them again (hop limit 1) but deletes them.
test_frames_from_container_reach_bus() {
	local got f

	timeout 20 candump -L -n 9 "$BUS" > "$CAN_TMP/dump" 2>&1 &
	CAN_DUMP_PID=$!
	wait_until 10 has_rx_entry "$BUS" || { fail "candump did not bind"; return 1; }
	for f in $CAN_FRAMES; do
		in_ns cansend "$GUEST" "$f" || { fail "cansend $f in $NS"; return 1; }
	done
	# A last one from the host's side: nothing may come in between.
	cansend "$BUS" 7FE#EE || return 1
	can_dump_finish || return 1
	got=$(awk '{ print $3 }' "$CAN_TMP/dump")
	[ "$got" = "$CAN_FRAMES
7FE#EE" ] || { fail "sent: $CAN_FRAMES got: $got"; return 1; }
}

# Each job handled what came from its source (8 + 1 from the bus, 8 from
# the container) and deleted what the other had routed, the echo that
# passed one gateway already; so did the third job on the bus.
test_counters_count_both_ways() {
	cangw -L | sed 's/^/# /'
	[ "$(job "$BUS" "$HOST")" = "9 0 8" ] || { fail "bus to container"; return 1; }
	[ "$(job "$HOST" "$BUS")" = "8 0 9" ] || { fail "container to bus"; return 1; }
	[ "$(job "$BUS" "$OTHER")" = "9 0 8" ] || { fail "bus to other"; return 1; }
}

# Frames are being routed into the pair while it goes: the namespace
# takes the guest end, the guest end the host end, and the device
# notifier both jobs on it.
# routed_into_container_over N
routed_into_container_over() {
	[ "$(job "$BUS" "$HOST" | cut -d' ' -f1)" -gt "$1" ]
}

# jobs_listed_are N
jobs_listed_are() {
	[ "$(jobs_listed)" = "$1" ]
}

test_deleting_namespace_removes_its_jobs() {
	timeout 30 cangen "$BUS" -g 1 -p 1 -L 8 > "$CAN_TMP/cangen" 2>&1 &
	TRAFFIC_PID=$!
	wait_until 10 routed_into_container_over 50 ||
		{ fail "no traffic routed: $(cat "$CAN_TMP/cangen")"; return 1; }
	ip netns del "$NS" || return 1
	wait_until 20 link_gone "$HOST" || { fail "host end survived"; return 1; }
	# The sender on the bus never noticed.
	kill "$TRAFFIC_PID" 2> /dev/null || { fail "cangen on $BUS ended"; return 1; }
	wait "$TRAFFIC_PID"
	TRAFFIC_PID=
	cangw -L | sed 's/^/# /'
	wait_until 5 jobs_listed_are 1 || { fail "jobs on the vanished end left"; return 1; }
	[ -n "$(job "$BUS" "$OTHER")" ] || { fail "the other job went too"; return 1; }
}

test_host_side_still_routes() {
	can_dump_start "$OTHER" 1 || return 1
	cansend "$BUS" 555#0102 || return 1
	can_dump_finish || return 1
	grep -q " 555#0102$" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
}

test_container_link_can_be_set_up_again() {
	local pid

	cangw -D -s "$BUS" -d "$OTHER" -e || return 1
	setup_container || return 1
	[ "$(job "$BUS" "$HOST")" = "0 0 0" ] || { fail "new job not fresh"; return 1; }
	timeout 20 ip netns exec "$NS" candump -L -n 1 "$GUEST" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 ns_has_rx_entry "$GUEST" || { fail "candump did not bind"; return 1; }
	cansend "$BUS" 1AB#CD || return 1
	wait "$pid" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
	grep -q " 1AB#CD$" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
	ip netns del "$NS" || return 1
	wait_until 20 link_gone "$HOST" || { fail "host end survived"; return 1; }
	wait_until 5 jobs_listed_are 1 || { fail "jobs left: $(jobs_listed)"; return 1; }
	cangw -F
}

# The hop count crosses a vxcan pair. Mainline starts it afresh there, so
# a job from one end of a pair to the other sends one frame round for
# ever in softirq (a CPU lost through one mistake of an administrator
# of the initial user namespace, the only one who may add a job). Here
# the frame is routed once, and deleted when it comes round again.
test_job_between_the_ends_of_a_pair_routes_once() {
	ip link add "$LOOP_A" type vxcan peer name "$LOOP_B" || return 1
	ip link set "$LOOP_A" up && ip link set "$LOOP_B" up || return 1
	link_ready "$LOOP_A" && link_ready "$LOOP_B" || return 1
	cangw -A -s "$LOOP_B" -d "$LOOP_A" -e || return 1
	cansend "$LOOP_A" 321#0102 || return 1
	# Deleted is the end of the frame: the counters move no more then.
	wait_until 5 output_cmp = "1 0 1" job "$LOOP_B" "$LOOP_A"
	[ "$(job "$LOOP_B" "$LOOP_A")" = "1 0 1" ] ||
		{ fail "job counters $(job "$LOOP_B" "$LOOP_A"), not 1 0 1"; return 1; }
	cangw -D -s "$LOOP_B" -d "$LOOP_A" -e
	ip link del "$LOOP_A"
}

# Two namespaces, one job in each routing what comes in on its end back
# out of it (-i): the frame goes round both; after the first gateway the
# other deletes it. Both sets of counters stand still after a second.
two_gateways_counters() {
	echo "$(job "$HOST" "$HOST") $(job "$GUEST" "$GUEST" "$NS")"
}

# How many frames the two gateways ended, deleted or dropped.
two_gateways_ended() {
	two_gateways_counters | awk '{ print $2 + $3 + $5 + $6 }'
}

test_jobs_in_two_namespaces_do_not_route_for_ever() {
	local before after

	ip netns add "$NS" || return 1
	ip link add "$HOST" type vxcan peer name "$GUEST" netns "$NS" || return 1
	ip link set "$HOST" up && in_ns ip link set "$GUEST" up || return 1
	link_ready "$HOST" && link_ready "$GUEST" "$NS" || return 1
	cangw -A -s "$HOST" -d "$HOST" -i || return 1
	in_ns cangw -A -s "$GUEST" -d "$GUEST" -i || return 1
	cansend "$HOST" 322#0304 || return 1
	# Two copies go round: the one the container's end received and
	# cansend's echo on the host's end. Each ends at a gateway.
	wait_until 5 output_cmp -ge 2 two_gateways_ended ||
		{ fail "the frame still goes round: $(two_gateways_counters)"; return 1; }
	before=$(two_gateways_counters)
	sleep 1
	after=$(two_gateways_counters)
	log "host job, container job (handled dropped deleted): $after"
	[ "$before" = "$after" ] || { fail "still routing: $before, then $after"; return 1; }
	[ "$(echo "$after" | awk '{ print $1 + $4 }')" -le 4 ] ||
		{ fail "routed $after"; return 1; }
	cangw -F
	ip netns del "$NS"
	wait_until 20 link_gone "$HOST" || { fail "host end survived"; return 1; }
}

# The chain: the host's job from the bus into the container, and the
# container's jobs from its end along its three buses, all with echo.
add_chain_jobs() {
	cangw -A -s "$BUS" -d "$HOST" -e &&
		in_ns cangw -A -s "$GUEST" -d "${CHAIN[0]}" -e &&
		in_ns cangw -A -s "${CHAIN[0]}" -d "${CHAIN[1]}" -e &&
		in_ns cangw -A -s "${CHAIN[1]}" -d "${CHAIN[2]}" -e
}

setup_chain() {
	local l

	ip netns add "$NS" || return 1
	ip link add "$HOST" type vxcan peer name "$GUEST" netns "$NS" || return 1
	ip link set "$HOST" up && in_ns ip link set "$GUEST" up || return 1
	for l in "${CHAIN[@]}"; do
		in_ns ip link add "$l" type vcan && in_ns ip link set "$l" up || return 1
	done
	link_ready "$HOST" && link_ready "$GUEST" "$NS" || return 1
	add_chain_jobs || { fail "cangw -A"; return 1; }
}

# "handled dropped deleted" of each job along the chain.
chain_counters() {
	echo "$(job "$BUS" "$HOST") / $(job "$GUEST" "${CHAIN[0]}" "$NS") /" \
		"$(job "${CHAIN[0]}" "${CHAIN[1]}" "$NS") /" \
		"$(job "${CHAIN[1]}" "${CHAIN[2]}" "$NS")"
}

# send_along_chain WANT: one frame onto the bus; the chain's counters
# become WANT (the last job to see the frame counts it last).
send_along_chain() {
	cansend "$BUS" 4A5#0102 || return 1
	wait_until 5 output_cmp = "$1" chain_counters ||
		{ fail "counters $(chain_counters), not $1"; return 1; }
}

gw_has_rx_entries() {
	grep -qsE " gw *$" /proc/net/can/rcvlist_* ||
		in_ns grep -qsE " gw *$" /proc/net/can/rcvlist_*
}

# reload_gw [PARAMETERS]: can-gw unloaded and loaded again with them.
reload_gw() {
	rmmod can_gw || { fail "rmmod can_gw"; return 1; }
	modprobe can-gw "$@" || { fail "modprobe can-gw $*"; return 1; }
}

max_hops_is() {
	[ "$(cat /sys/module/can_gw/parameters/max_hops)" = "$1" ] ||
		{ fail "max_hops $(cat /sys/module/can_gw/parameters/max_hops), not $1"; return 1; }
}

# With the default max_hops of 1 the container's first job deletes what
# the host's job routed into the pair.
test_chain_stops_after_one_gateway_by_default() {
	max_hops_is 1 || return 1
	setup_chain || return 1
	send_along_chain "1 0 0 / 0 0 1 / 0 0 0 / 0 0 0"
}

# rmmod with jobs here and in the container while frames are routed
# through them: the module goes, and with it every job and every
# subscription in both namespaces; the sender on the bus goes on.
test_rmmod_with_jobs_in_two_namespaces_removes_them() {
	timeout 30 cangen "$BUS" -g 1 -p 1 -L 8 > "$CAN_TMP/cangen" 2>&1 &
	TRAFFIC_PID=$!
	wait_until 10 routed_into_container_over 20 ||
		{ fail "no traffic routed: $(cat "$CAN_TMP/cangen")"; return 1; }
	gw_has_rx_entries || { fail "no gw entry in /proc/net/can"; return 1; }
	rmmod can_gw || { fail "rmmod can_gw with jobs"; return 1; }
	[ ! -d /sys/module/can_gw ] || { fail "can_gw still loaded"; return 1; }
	! gw_has_rx_entries || { fail "gw entries outlive the module"; return 1; }
	kill "$TRAFFIC_PID" 2> /dev/null || { fail "cangen on $BUS ended"; return 1; }
	wait "$TRAFFIC_PID"
	TRAFFIC_PID=
	modprobe can-gw max_hops=3 || return 1
	[ -z "$(cangw -L)" ] && [ -z "$(in_ns cangw -L)" ] ||
		{ fail "jobs listed after the reload"; return 1; }
}

# max_hops 3: the frame passes the host's job and two of the container's,
# and the third deletes it. Jobs may now have hop limits up to 3.
test_max_hops_3_lets_a_frame_pass_three_gateways() {
	local pid

	max_hops_is 3 || return 1
	add_chain_jobs || { fail "cangw -A"; return 1; }
	timeout 20 ip netns exec "$NS" candump -L -n 1 "${CHAIN[1]}" \
		> "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 in_ns grep -qsE "^ +${CHAIN[1]} .* raw *$" /proc/net/can/rcvlist_all ||
		{ fail "candump did not bind"; return 1; }
	send_along_chain "1 0 0 / 1 0 0 / 1 0 0 / 0 0 1" || return 1
	wait "$pid" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
	grep -q " 4A5#0102$" "$CAN_TMP/dump" || { fail "$(cat "$CAN_TMP/dump")"; return 1; }
	cangw -A -s "$BUS" -d "$OTHER" -l 3 || { fail "hop limit 3 refused"; return 1; }
	cangw -A -s "$BUS" -d "$OTHER" -l 4 2> /dev/null && { fail "hop limit 4 taken"; return 1; }
	cangw -D -s "$BUS" -d "$OTHER" -l 3
}

# Values outside 1..6 are clamped when the module loads.
test_max_hops_out_of_range_is_clamped() {
	cangw -F && in_ns cangw -F || return 1
	reload_gw max_hops=0 && max_hops_is 1 || return 1
	reload_gw max_hops=7 && max_hops_is 6 || return 1
	reload_gw && max_hops_is 1 || return 1
	ip netns del "$NS" || return 1
	wait_until 20 link_gone "$HOST" || { fail "host end survived"; return 1; }
}

stop_traffic() {
	[ -n "$TRAFFIC_PID" ] && kill "$TRAFFIC_PID" 2> /dev/null && wait "$TRAFFIC_PID"
	TRAFFIC_PID=
}

cleanup() {
	stop_traffic
	cangw -F 2> /dev/null
	ip netns exec "$NS" cangw -F 2> /dev/null
	ip link del "$LOOP_A" 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	lib_cleanup
}
trap cleanup EXIT

modprobe can-gw && modprobe vxcan || { echo "Bail out! can-gw or vxcan does not load"; exit 1; }
cangw -F
vcan_add "$BUS" && vcan_add "$OTHER" || { echo "Bail out! no vcan"; exit 1; }
DMESG_MARK=$(($(dmesg | wc -l) + 1))
ktap_header 14
run_test jobs_between_bus_and_container test_jobs_between_bus_and_container
run_test frames_from_bus_reach_container test_frames_from_bus_reach_container
run_test frames_from_container_reach_bus test_frames_from_container_reach_bus
run_test counters_count_both_ways test_counters_count_both_ways
run_test deleting_namespace_removes_its_jobs test_deleting_namespace_removes_its_jobs
stop_traffic
run_test host_side_still_routes test_host_side_still_routes
run_test container_link_can_be_set_up_again test_container_link_can_be_set_up_again
run_test job_between_the_ends_of_a_pair_routes_once \
	test_job_between_the_ends_of_a_pair_routes_once
run_test jobs_in_two_namespaces_do_not_route_for_ever \
	test_jobs_in_two_namespaces_do_not_route_for_ever
run_test chain_stops_after_one_gateway_by_default \
	test_chain_stops_after_one_gateway_by_default
run_test rmmod_with_jobs_in_two_namespaces_removes_them \
	test_rmmod_with_jobs_in_two_namespaces_removes_them
stop_traffic
run_test max_hops_3_lets_a_frame_pass_three_gateways \
	test_max_hops_3_lets_a_frame_pass_three_gateways
run_test max_hops_out_of_range_is_clamped test_max_hops_out_of_range_is_clamped
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK" unregister_netdevice
ktap_finish
