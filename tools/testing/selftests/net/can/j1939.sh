#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SAE J1939 on our core: mainline's can-j1939, built unmodified from
# linux-source-6.1 by "make compat-build", loaded over our can.ko. It
# keeps its per-device state in the struct can_ml_priv our drivers
# reserve (can-ml.h) and takes nothing else from the core but its
# exported functions. Sockets of CPython (socket.CAN_J1939) and
# can-utils' j1939cat send single-frame messages, transport protocol
# transfers with handshake (RTS/CTS), broadcast ones (BAM) and extended
# transfers (ETP) across vcan; then a device goes away under a bound
# socket, and the protocol unloads.

source "$(dirname "$0")/lib/can_test.sh"

COMPAT=${CAN_COMPAT:-$TOP/build/compat/modules}
IF=jv$$
DMESG_MARK=

setup() {
	[ -e "$COMPAT/can-j1939.ko" ] ||
		{ log "no $COMPAT/can-j1939.ko (make compat-build)"; return 1; }
	modprobe can && insmod "$COMPAT/can-j1939.ko" ||
		{ log "can-j1939 does not load"; return 1; }
	can_unload_at_exit can_j1939
	vcan_add "$IF" 16
}

# py SCRIPT: runs SCRIPT with IF, helpers and a 20 s alarm defined.
py() {
	python3 - "$IF" <<-PY
	import os, signal, socket, sys
	IF = sys.argv[1]
	signal.alarm(20)
	NO_NAME, NO_PGN, NO_ADDR = 0, 0x40000, 0xff

	def j1939(addr, pgn=NO_PGN, name=NO_NAME, bcast=False):
	    s = socket.socket(socket.PF_CAN, socket.SOCK_DGRAM, socket.CAN_J1939)
	    if bcast:
	        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
	    s.bind((IF, name, pgn, addr))
	    return s

	def payload(n):
	    return bytes((i * 13 + n) % 251 for i in range(n))

	def transfer(n, dst=0x80, bcast=False):
	    rx = j1939(dst if not bcast else NO_ADDR, bcast=bcast)
	    tx = j1939(0x90, bcast=bcast)
	    tx.sendto(payload(n), (IF, NO_NAME, 0x12300 if not bcast else 0x1fe00, dst))
	    data, (ifname, name, pgn, sa) = rx.recvfrom(200000)
	    want_pgn = 0x12300 if not bcast else 0x1fe00
	    # A message that came in several frames carries no interface
	    # (mainline's j1939 leaves skb_iif 0 there, on its own core too).
	    want_if = IF if n <= 8 else ''
	    if (data, ifname, pgn, sa) != (payload(n), want_if, want_pgn, 0x90):
	        sys.exit(f"{n} bytes: got {len(data)} bytes, pgn {pgn:#x} from {sa:#x} on {ifname}")
	$1
	PY
}

test_protocol_runs_on_our_core() {
	loaded_from can net/can/can.ko || return 1
	grep -qE "^can .*[ ,]can_j1939," /proc/modules ||
		{ fail "can_j1939 does not use our can: $(grep ^can /proc/modules)"; return 1; }
}

test_bound_socket_subscribes_on_the_device() {
	py "
s = j1939(0x80)
ok = any(l.split()[:1] == ['$IF'] and 'j1939' in l
         for f in os.listdir('/proc/net/can') if f.startswith('rcvlist_')
         for l in open('/proc/net/can/' + f))
sys.exit(0 if ok else 'no j1939 entry for $IF in /proc/net/can/rcvlist_*')"
}

test_single_frame_message() {
	py "transfer(1); transfer(8)"
}

test_transport_protocol_with_handshake() {
	py "transfer(9); transfer(1000); transfer(1785)"
}

# BAM paces its frames 50 ms apart: 300 bytes (43 frames) take 2 s.
test_broadcast_announce_message() {
	py "transfer(9, dst=NO_ADDR, bcast=True); transfer(300, dst=NO_ADDR, bcast=True)"
}

test_extended_transport_protocol() {
	py "transfer(1786); transfer(20000)"
}

# A message for address 0x80 reaches the socket bound to 0x80 and not
# the one bound to 0x81, which then has nothing to read.
test_message_for_another_address_is_not_received() {
	py "
rx, other, tx = j1939(0x80), j1939(0x81), j1939(0x90)
tx.sendto(b'x', (IF, NO_NAME, 0x12300, 0x80))
if rx.recv(100) != b'x':
    sys.exit('0x80 did not get its message')
other.settimeout(0.5)
try:
    other.recv(100)
    sys.exit('a message for 0x80 reached a socket bound to 0x81')
except socket.timeout:
    pass"
}

test_j1939cat_transfers_a_file() {
	local pid

	head -c 50000 /dev/urandom > "$CAN_TMP/in"
	timeout 30 j1939cat -r "$IF:0x80" > "$CAN_TMP/out" 2> "$CAN_TMP/err" &
	pid=$!
	wait_until 10 has_rx_entry "$IF" || { fail "j1939cat -r did not bind"; return 1; }
	# Debian's j1939cat ends a complete transfer with "recvmsg error
	# notification: truncated" and status 1 when it reads its error
	# queue, on Debian's own CAN stack too (mainline's j1939 and core):
	# what arrived is what is checked.
	timeout 30 j1939cat -i "$CAN_TMP/in" "$IF:0x90" ":0x80,0x12300" 2>&1 | sed 's/^/# /'
	wait_until 20 cmp -s "$CAN_TMP/in" "$CAN_TMP/out" ||
		{ fail "got $(wc -c < "$CAN_TMP/out") of 50000 bytes: $(cat "$CAN_TMP/err")"
		  return 1; }
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	return 0
}

# The device goes while a socket is bound to it: the socket reports
# ENETDOWN (the device goes down on its way out), sending to interface
# index 0 (the bound one) fails with EBADFD as the socket is no longer
# bound, both as on Debian's own stack, and closing it afterwards
# reaches the protocol's state in the device's room, which must still be
# there. A new device of the same name works.
test_device_removed_under_a_bound_socket() {
	py "
import errno, subprocess
s = j1939(0x80)
subprocess.run(['ip', 'link', 'del', IF], check=True)
err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
if err != errno.ENETDOWN:
    sys.exit(f'SO_ERROR after removal: {err}')
try:
    s.sendto(b'x', ('', NO_NAME, 0x12300, 0x81))
    sys.exit('send on a removed device succeeded')
except OSError as e:
    if e.errno != errno.EBADFD:
        sys.exit(f'send after removal: {e}')
s.close()" || return 1
	vcan_add "$IF" 16 || return 1
	py "transfer(1000)"
}

# Other scripts' protocols may still hold can.ko: what must go is
# can-j1939, and its hold on can with it.
test_protocol_unloads() {
	ip link del "$IF" 2> /dev/null
	rmmod can_j1939 || { fail "can_j1939 busy"; return 1; }
	[ ! -d /sys/module/can_j1939 ] || { fail "can_j1939 still loaded"; return 1; }
	! grep -q "^can .*can_j1939," /proc/modules ||
		{ fail "can still held: $(grep '^can ' /proc/modules)"; return 1; }
}

ktap_header 11
ktap_skip_script j1939 "$(compat_cannot_run "$COMPAT/can-j1939.ko")"
DMESG_MARK=$(($(dmesg | wc -l) + 1))
if ! setup; then
	echo "not ok 1 j1939"
	KTAP_FAIL=1
	ktap_finish
fi
run_test protocol_runs_on_our_core test_protocol_runs_on_our_core
run_test bound_socket_subscribes_on_the_device test_bound_socket_subscribes_on_the_device
run_test single_frame_message test_single_frame_message
run_test transport_protocol_with_handshake test_transport_protocol_with_handshake
run_test broadcast_announce_message test_broadcast_announce_message
run_test extended_transport_protocol test_extended_transport_protocol
run_test message_for_another_address_is_not_received \
	test_message_for_another_address_is_not_received
run_test j1939cat_transfers_a_file test_j1939cat_transfers_a_file
run_test device_removed_under_a_bound_socket test_device_removed_under_a_bound_socket
run_test protocol_unloads test_protocol_unloads
run_test kernel_log_is_clean kernel_log_is_clean "$DMESG_MARK"
ktap_finish
