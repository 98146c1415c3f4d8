#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vcan's "echo" module parameter: with echo=1 the driver loops sent frames
# back itself and its links carry IFF_ECHO, so the PF_CAN core must not
# loop them a second time. The loopback and FD programs run again in
# that mode; the module is reloaded without echo at the end.

source "$(dirname "$0")/lib/can_test.sh"

IFF_ECHO=$((1 << 18))

reload_vcan() {
	if [ -d /sys/module/vcan ]; then
		rmmod vcan || return 1
	fi
	modprobe vcan "$@"
}

link_flags() {
	echo $(($(cat "/sys/class/net/$1/flags")))
}

test_echo_parameter_is_reported() {
	[ "$(cat /sys/module/vcan/parameters/echo)" = Y ]
}

test_echo_link_has_iff_echo() {
	vcan_add "ce$$" || return 1
	[ $(($(link_flags "ce$$") & IFF_ECHO)) -ne 0 ] ||
		{ fail "flags $(cat /sys/class/net/ce$$/flags)"; return 1; }
}

test_ip_link_reports_vcan_kind() {
	ip -d link show "ce$$" | grep -qw vcan
}

# A harness program's tests, counted into our totals.
run_program() {
	local out=$CAN_TMP/$1.out

	log "running $1 with echo=1"
	"$CAN_TEST_BIN/$1" > "$out" 2>&1
	sed 's/^/# /' "$out"
	ktap_add_totals "$out"
}

# CAN XL frames of 1, 64 and 2048 bytes on an XL vcan: the driver's echo
# reaches another socket once (the core must not loop them too) and the
# sender with MSG_CONFIRM. Python's socket module speaks CAN_RAW.
test_echo_loops_xl_frames_once() {
	ip link add dev "cx$$" type vcan && ip link set "cx$$" mtu 2060 &&
		ip link set "cx$$" up || return 1
	CAN_LINKS+=("cx$$")
	python3 - "cx$$" <<'PY'
import socket, struct, sys
SOL_CAN_RAW, CAN_RAW_RECV_OWN_MSGS, CAN_RAW_XL_FRAMES = 101, 4, 7
MSG_CONFIRM = 0x800
def sock():
    s = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
    s.setsockopt(SOL_CAN_RAW, CAN_RAW_XL_FRAMES, 1)
    s.setsockopt(SOL_CAN_RAW, CAN_RAW_RECV_OWN_MSGS, 1)
    s.bind((sys.argv[1],))
    s.settimeout(3)
    return s
tx, rx = sock(), sock()
for n in (1, 64, 2048):
    frame = struct.pack("=IBBHI", 0x123, 0x80, 0, n, 0) + bytes(range(256)) * 8
    frame = frame[:12 + n]
    tx.send(frame)
    got, _, flags, _ = tx.recvmsg(4096)
    assert got == frame and flags & MSG_CONFIRM, "own frame %d" % n
    assert rx.recv(4096) == frame, "frame %d" % n
rx.settimeout(0.1)
try:
    rx.recv(4096)
    sys.exit("a frame came twice")
except socket.timeout:
    pass
PY
}

test_no_echo_link_lacks_iff_echo() {
	vcan_add "cn$$" || return 1
	[ $(($(link_flags "cn$$") & IFF_ECHO)) -eq 0 ]
}

ktap_header 6
if ! reload_vcan echo=1; then
	log "cannot reload vcan with echo=1"
	run_test echo_parameter_is_reported false
	ktap_finish
fi
run_test echo_parameter_is_reported test_echo_parameter_is_reported
run_test echo_link_has_iff_echo test_echo_link_has_iff_echo
run_test ip_link_reports_vcan_kind test_ip_link_reports_vcan_kind
run_program can_raw_loopback
run_program can_raw_fd
run_program can_vcan
run_test echo_loops_xl_frames_once test_echo_loops_xl_frames_once
ip link del "ce$$"
reload_vcan
run_test echo_off_after_reload test_no_echo_link_lacks_iff_echo
run_test echo_parameter_off_after_reload \
	bash -c '[ "$(cat /sys/module/vcan/parameters/echo)" = N ]'
ktap_finish
