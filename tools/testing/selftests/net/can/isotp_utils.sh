#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# can-utils' ISO-TP tools, unmodified, against our can-isotp: isotpsend
# into isotprecv across two sockets on vcan, for 1, 7, 8, 4095, 4096 and
# 4999 bytes (the most these tools buffer; 66000 is isotp_transfer's),
# with padding and extended addressing, classic and CAN FD, and
# isotpdump decoding the frames of a transfer; isotpperf reporting
# transfers it watched; isotptun carrying IP between two namespaces over
# a vxcan pair; and CPython's socket module (socket.CAN_ISOTP) sending
# and receiving messages of every size class. Every tool runs under
# timeout; a receiver is started first and the message sent once its
# subscription shows in /proc/net/can.

source "$(dirname "$0")/lib/can_test.sh"

IF=it$$
IFFD=itf$$
TUN_NS=(itna$$ itnb$$)

# transfer DEV LEN [OPTIONS...]: isotp_transfer (lib/can_test.sh) on one device.
transfer() {
	local dev=$1

	shift
	isotp_transfer "$dev" "$dev" "$@"
}

# Blocks of 4 frames 1 ms apart, and isotpsend waiting until all is sent.
test_block_size_stmin_and_wait_tx_done() {
	RECV_OPTS="-b 4 -m 1" SEND_OPTS="-b" transfer "$IF" 4096
}

# sizes_on DEV [OPTIONS...]
sizes_on() {
	local dev=$1 n

	shift
	for n in 1 7 8 4095 4096 4999; do
		transfer "$dev" "$n" "$@" || return 1
	done
}

test_isotpdump_decodes_a_transfer() {
	local rc=0 pid

	timeout 20 isotpdump -s 123 -d 321 "$IF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 grep -qsE "^ +$IF " /proc/net/can/rcvlist_sff ||
		{ fail "isotpdump did not bind"; rc=1; }
	[ $rc -eq 0 ] && { transfer "$IF" 20 || rc=1; }
	wait_until 5 grep -q '\[FC\]' "$CAN_TMP/dump" || true
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	sed 's/^/# dump: /' "$CAN_TMP/dump"
	[ $rc -eq 0 ] || return 1
	grep -q '\[FF\]' "$CAN_TMP/dump" || { fail "no first frame"; return 1; }
	grep -q '\[CF\]' "$CAN_TMP/dump" || { fail "no consecutive frame"; return 1; }
	grep -q '\[FC\]' "$CAN_TMP/dump" || { fail "no flow control"; return 1; }
}

# perf_reports DEV WANT LEN [OPTIONS...]: isotpperf on DEV watches a
# transfer of LEN bytes (isotp_transfer with OPTIONS) and prints WANT,
# its line for a completed message, before the time it took.
perf_reports() {
	local dev=$1 want=$2 len=$3 pid rc=0

	shift 3
	timeout 20 isotpperf -s 123 -d 321 "$dev" > "$CAN_TMP/perf" 2>&1 &
	pid=$!
	wait_until 10 grep -qsE "^ +$dev +.* raw *$" /proc/net/can/rcvlist_sff ||
		{ fail "isotpperf did not bind"; rc=1; }
	[ $rc -eq 0 ] && { transfer "$dev" "$len" "$@" || rc=1; }
	wait_until 5 grep -q "$len byte in" "$CAN_TMP/perf" || true
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	tr '\r' '\n' < "$CAN_TMP/perf" | grep 'byte in' | sed 's/^/# perf: /'
	[ $rc -eq 0 ] || return 1
	grep -qF "$want : $len byte in" "$CAN_TMP/perf" || { fail "no \"$want\""; return 1; }
}

test_isotpperf_reports_a_classic_transfer() {
	RECV_OPTS="-b 4 -m 1" perf_reports "$IF" "CAN2.0 08  (BS: 4 # STmin:  1 msec)" 4096
}

test_isotpperf_reports_an_fd_transfer() {
	perf_reports "$IFFD" "CAN-FD 64  (BS: 0 # STmin:  0 msec)" 4096 -L 72:64:0
}

tun_ns() {
	ip netns exec "${TUN_NS[$1]}" "${@:2}"
}

# Two namespaces joined by a vxcan pair, an isotptun in each making a
# point-to-point IP link over ISO-TP: pings of 1028-byte IP packets come
# back, and each crossed as a first frame and 146 consecutive frames.
test_isotptun_carries_ip_between_namespaces() {
	local i rx0

	[ -c /dev/net/tun ] || modprobe tun || { SKIP_REASON="no tun device"; return 4; }
	ip netns add "${TUN_NS[0]}" && ip netns add "${TUN_NS[1]}" || return 1
	ip link add itva$$ netns "${TUN_NS[0]}" type vxcan peer name itvb$$ \
		netns "${TUN_NS[1]}" || return 1
	tun_ns 0 ip link set itva$$ up && tun_ns 1 ip link set itvb$$ up || return 1
	for i in 0 1; do
		tun_ns "$i" timeout 60 isotptun -s $((i ? 321 : 123)) -d $((i ? 123 : 321)) \
			-n ctun$i "itv$([ $i = 0 ] && echo a || echo b)$$" \
			> "$CAN_TMP/tun$i" 2>&1 &
		wait_until 10 tun_ns "$i" ip link show ctun$i > /dev/null 2>&1 ||
			{ fail "isotptun $i: $(cat "$CAN_TMP/tun$i")"; return 1; }
		# IPv6's own packets at link up would meet a ping on the way:
		# a datagram sent while the socket is busy is lost.
		tun_ns "$i" sh -c "echo 1 > /proc/sys/net/ipv6/conf/ctun$i/disable_ipv6" ||
			return 1
		tun_ns "$i" ip addr add 10.7.0.$((i + 1)) peer 10.7.0.$((2 - i)) dev ctun$i &&
			tun_ns "$i" ip link set ctun$i up || return 1
	done
	rx0=$(tun_ns 1 cat /sys/class/net/itvb$$/statistics/rx_packets)
	tun_ns 0 busybox ping -c 3 -s 1000 -W 5 10.7.0.2 > "$CAN_TMP/ping" 2>&1
	sed 's/^/# /' "$CAN_TMP/ping" "$CAN_TMP/tun0" "$CAN_TMP/tun1"
	grep -q "3 packets transmitted, 3 packets received" "$CAN_TMP/ping" || return 1
	# 3 requests of 147 frames each, and a flow control per reply.
	[ $(($(tun_ns 1 cat /sys/class/net/itvb$$/statistics/rx_packets) - rx0)) -ge 444 ] ||
		{ fail "fewer frames than ISO-TP needs"; return 1; }
}

# CPython's own socket module: CAN_ISOTP sockets bound with (interface,
# rx_id, tx_id) exchange messages of 1, 7, 8, 4095 and 4096 bytes both
# ways; a CAN_RAW socket on the bus sees every frame ISO-TP needs for
# them (2 + 2 + 6 + 587 + 587 + 587 + 587) and those of the last one.
test_cpython_socket_speaks_isotp() {
	timeout 60 python3 - "$IF" <<-'PY'
	import socket
	import sys

	dev = sys.argv[1]


	def isotp(rx_id, tx_id):
	    s = socket.socket(socket.AF_CAN, socket.SOCK_DGRAM, socket.CAN_ISOTP)
	    s.bind((dev, rx_id, tx_id))
	    s.settimeout(10)
	    return s


	a = isotp(0x321, 0x123)
	b = isotp(0x123, 0x321)
	raw = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
	# SO_RCVBUFFORCE (root): room for every frame of the run.
	raw.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)
	raw.bind((dev,))
	raw.settimeout(1)
	for n in (1, 7, 8, 4095, 4096):
	    msg = bytes((i * 7 + n) % 256 for i in range(n))
	    for tx, rx, data in ((a, b, msg), (b, a, msg[::-1])):
	        tx.send(data)
	        got = rx.recv(5000)
	        if got != data:
	            sys.exit(f"# {n} bytes: received {len(got)} different ones")
	frames = []
	while True:
	    try:
	        frames.append(raw.recv(16))
	    except socket.timeout:
	        break
	ids = [int.from_bytes(f[:4], sys.byteorder) for f in frames[-587:]]
	# 4096 bytes from b: a first frame and 585 consecutive ones on 0x321,
	# one flow control from a on 0x123.
	print(f"# {len(frames)} frames; the last message: {ids.count(0x321)} on 321,",
	      f"{ids.count(0x123)} on 123")
	sys.exit(0 if (len(frames), ids.count(0x321), ids.count(0x123)) == (2358, 586, 1) else 1)
	PY
}

cleanup() {
	local pids

	pids=$(jobs -p)
	[ -z "$pids" ] || { kill $pids 2> /dev/null; wait $pids 2> /dev/null; }
	ip netns del "${TUN_NS[0]}" 2> /dev/null
	ip netns del "${TUN_NS[1]}" 2> /dev/null
	lib_cleanup
}
trap cleanup EXIT

ktap_header 11
vcan_add "$IF" 16 || { log "cannot create $IF"; ktap_finish; }
vcan_add "$IFFD" 72 || { log "cannot create $IFFD"; ktap_finish; }
run_test isotpsend_to_isotprecv_classic sizes_on "$IF"
run_test isotpsend_to_isotprecv_padded sizes_on "$IF" -p AA:AA -P a
run_test isotpsend_to_isotprecv_extended_addressing sizes_on "$IF" -x 11:11
run_test isotpsend_to_isotprecv_fd sizes_on "$IFFD" -L 72:64:0
run_test isotpsend_to_isotprecv_fd_padded_extended sizes_on "$IFFD" \
	-L 72:64:0 -p 55:55 -x 22:22
run_test isotpsend_to_isotprecv_with_block_size_and_stmin \
	test_block_size_stmin_and_wait_tx_done
run_test isotpdump_decodes_a_transfer test_isotpdump_decodes_a_transfer
run_test isotpperf_reports_a_classic_transfer test_isotpperf_reports_a_classic_transfer
run_test isotpperf_reports_an_fd_transfer test_isotpperf_reports_an_fd_transfer
run_test isotptun_carries_ip_between_namespaces test_isotptun_carries_ip_between_namespaces
run_test cpython_socket_speaks_isotp test_cpython_socket_speaks_isotp
ktap_finish
