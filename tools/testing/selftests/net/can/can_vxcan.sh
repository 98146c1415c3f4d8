#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vxcan as containers use it: iproute2 puts one end of a pair into another
# network namespace, can-utils talk across, deleting the namespace under
# traffic takes both ends away, and the module unloads with pairs still
# present in several namespaces. A pair needs CAP_NET_ADMIN where each of
# its ends goes. Pairs within one namespace: can_vxcan.

source "$(dirname "$0")/lib/can_test.sh"

NS=cxns$$
NS2=cxnt$$
HOST=vxh$$
GUEST=vxg$$
DUMP_PID=
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

# setup_pair: the host end here, the guest end in $NS, both up.
setup_pair() {
	ip netns add "$NS" || return 1
	ip link add "$HOST" type vxcan peer name "$GUEST" netns "$NS" || return 1
	ip link set "$HOST" up && in_ns ip link set "$GUEST" up || return 1
	link_ready "$HOST" && link_ready "$GUEST" "$NS"
}

teardown_pair() {
	[ -n "$DUMP_PID" ] && kill "$DUMP_PID" 2> /dev/null
	[ -n "$TRAFFIC_PID" ] && kill "$TRAFFIC_PID" 2> /dev/null
	wait 2> /dev/null
	DUMP_PID=
	TRAFFIC_PID=
	ip link del "$HOST" 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	ip netns del "$NS2" 2> /dev/null
	return 0
}

test_ip_link_creates_a_pair_across_namespaces() {
	local d

	setup_pair || return 1
	d=$(ip -d link show "$HOST")
	echo "$d" | sed 's/^/# /'
	echo "$d" | grep -q "vxcan" || { fail "kind not shown"; return 1; }
	echo "$d" | grep -q "link-netns $NS" || { fail "peer namespace not shown"; return 1; }
	in_ns ip -d link show "$GUEST" | grep -q "vxcan" || { fail "no guest end"; return 1; }
	link_gone "$GUEST" || { fail "guest end also here"; return 1; }
	# Carrier on once both ends are up.
	[ "$(cat /sys/class/net/$HOST/carrier)" = 1 ]
}

test_cansend_on_host_reaches_candump_in_namespace() {
	timeout 20 ip netns exec "$NS" candump -L -n 2 "$GUEST" > "$CAN_TMP/dump" 2>&1 &
	DUMP_PID=$!
	wait_until 10 ns_has_rx_entry "$GUEST" || { fail "candump did not bind"; return 1; }
	cansend "$HOST" 123#DEADBEEF || return 1
	cansend "$HOST" 321##10011223344556677 || return 1
	wait "$DUMP_PID" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
	DUMP_PID=
	sed 's/^/# dump: /' "$CAN_TMP/dump"
	# candump shows the FD flags nibble, in which the stack sets FDF.
	[ "$(awk '{ print $2, $3 }' "$CAN_TMP/dump" | tr '\n' ' ')" = \
	  "$GUEST 123#DEADBEEF $GUEST 321##50011223344556677 " ]
}

test_cansend_in_namespace_reaches_candump_on_host() {
	can_dump_start "$HOST" 3 || return 1
	in_ns cangen "$GUEST" -n 3 -g 1 -I 42 -L 2 -D i || { fail "cangen"; return 1; }
	can_dump_finish || return 1
	sed 's/^/# dump: /' "$CAN_TMP/dump"
	[ "$(awk '{ print $3 }' "$CAN_TMP/dump" | cut -c1-4 | tr '\n' ' ')" = \
	  "042# 042# 042# " ]
}

test_mtu_of_each_end_changes_while_down() {
	ip link set "$HOST" down || return 1
	ip link set "$HOST" mtu 16 || return 1
	in_ns ip link set "$GUEST" down || return 1
	in_ns ip link set "$GUEST" mtu 2060 || return 1
	[ "$(cat /sys/class/net/$HOST/mtu)" = 16 ] || { fail "host mtu"; return 1; }
	[ "$(in_ns cat /sys/class/net/$GUEST/mtu)" = 2060 ] || { fail "guest mtu"; return 1; }
	ip link set "$HOST" mtu 73 2> /dev/null && { fail "mtu 73 accepted"; return 1; }
	ip link set "$HOST" mtu 72 && in_ns ip link set "$GUEST" mtu 72 || return 1
	# The carrier stays off while one end is down.
	ip link set "$HOST" up || return 1
	[ "$(cat /sys/class/net/$HOST/carrier)" = 0 ] ||
		{ fail "carrier with peer down"; return 1; }
	in_ns ip link set "$GUEST" up || return 1
	[ "$(cat /sys/class/net/$HOST/carrier)" = 1 ]
}

# A flood into the namespace while it goes away: the namespace dies
# when the last of its programs exits, and then both ends go; the
# sender on the host sees its device vanish. Nothing leaks: the module
# unloads below, and the debug kernel's kmemleak checks.
test_deleting_namespace_under_traffic_removes_both_ends() {
	local guest_pids rc

	timeout 30 cangen "$HOST" -g 0 -p 1 -L 8 > /dev/null 2>&1 &
	TRAFFIC_PID=$!
	# Not through in_ns: $! must be timeout itself, which passes a
	# signal on to its program.
	ip netns exec "$NS" timeout 30 candump "$GUEST" > /dev/null 2>&1 &
	guest_pids=$!
	ip netns exec "$NS" timeout 30 cangen "$GUEST" -g 0 -p 1 -f > /dev/null 2>&1 &
	guest_pids="$guest_pids $!"
	wait_until 10 ns_has_rx_entry "$GUEST" || { fail "candump did not bind"; return 1; }
	sleep 0.5
	ip netns del "$NS" || return 1
	kill $guest_pids
	wait_until 20 link_gone "$HOST" || { fail "host end survived"; return 1; }
	wait "$TRAFFIC_PID"
	rc=$?
	TRAFFIC_PID=
	[ $rc -ne 124 ] || { fail "cangen went on without its device"; return 1; }
	wait
	return 0
}

test_deleting_the_guest_end_removes_the_host_end() {
	setup_pair || return 1
	in_ns ip link del "$GUEST" || return 1
	link_gone "$HOST" || { fail "host end survived"; return 1; }
	in_ns ip link show "$GUEST" > /dev/null 2>&1 && { fail "guest end survived"; return 1; }
	teardown_pair
}

# Pairs here, across two namespaces and inside one, sockets bound to
# them: unloading deletes them all and reloading works.
test_module_unloads_with_pairs_present() {
	local i

	setup_pair || return 1
	ip netns add "$NS2" || return 1
	ip link add vxu$$ type vxcan peer name vxv$$ || return 1
	ip netns exec "$NS2" ip link add vxw$$ type vxcan peer name vxx$$ netns "$NS" || return 1
	ip link set vxu$$ up && ip link set vxv$$ up || return 1
	timeout 30 candump "$HOST" vxu$$ > /dev/null 2>&1 &
	DUMP_PID=$!
	wait_until 10 has_rx_entry vxu$$ || { fail "candump did not bind"; return 1; }
	for i in 1 2 3; do
		cansend vxv$$ 00$i#0$i || return 1
	done
	modprobe -r vxcan || { fail "vxcan did not unload"; return 1; }
	for i in "$HOST" vxu$$ vxv$$; do
		link_gone "$i" || { fail "$i survived"; return 1; }
	done
	in_ns ip -o link show type vxcan | grep -q . && { fail "links left in $NS"; return 1; }
	ip netns exec "$NS2" ip -o link show type vxcan | grep -q . &&
		{ fail "links left in $NS2"; return 1; }
	wait "$DUMP_PID"
	[ $? -ne 124 ] || { fail "candump went on without its devices"; return 1; }
	DUMP_PID=
	modprobe vxcan && ip link add vxu$$ type vxcan && ip link del vxu$$
}

# The root of a new user namespace administers only the network
# namespace it made: a pair there works, one whose peer goes to the
# initial namespace (netns 1: that of init) is refused with vxcan's EPERM
# and leaves no end on either side.
test_peer_where_caller_lacks_cap_net_admin_is_refused() {
	local want

	need_user_namespaces || return
	unshare -Ur -n bash -c "
		ip link add vxp$$ type vxcan peer name vxq$$ && echo 'own namespace: added'
		ip link add vxr$$ type vxcan peer name vxs$$ netns 1 ||
			echo 'initial namespace: refused'
		echo \"ends here: \$(ip -o link show type vxcan | wc -l)\"" \
		> "$CAN_TMP/userns" 2>&1
	sed 's/^/# /' "$CAN_TMP/userns"
	want="own namespace: added
Error: No permission in the peer's namespace.
initial namespace: refused
ends here: 2"
	[ "$(cat "$CAN_TMP/userns")" = "$want" ] || { fail "not as expected"; return 1; }
	link_gone "vxs$$" || { fail "the peer was made in the initial namespace"; return 1; }
}

ktap_header 8
modprobe vxcan || { echo "# vxcan module missing"; exit 1; }
run_test ip_link_creates_a_pair_across_namespaces test_ip_link_creates_a_pair_across_namespaces
run_test cansend_on_host_reaches_candump_in_namespace \
	test_cansend_on_host_reaches_candump_in_namespace
run_test cansend_in_namespace_reaches_candump_on_host \
	test_cansend_in_namespace_reaches_candump_on_host
run_test mtu_of_each_end_changes_while_down test_mtu_of_each_end_changes_while_down
run_test deleting_namespace_under_traffic_removes_both_ends \
	test_deleting_namespace_under_traffic_removes_both_ends
teardown_pair
run_test deleting_the_guest_end_removes_the_host_end \
	test_deleting_the_guest_end_removes_the_host_end
run_test module_unloads_with_pairs_present test_module_unloads_with_pairs_present
teardown_pair
run_test peer_where_caller_lacks_cap_net_admin_is_refused \
	test_peer_where_caller_lacks_cap_net_admin_is_refused
ktap_finish
