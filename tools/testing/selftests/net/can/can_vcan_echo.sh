#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vcan's "echo" module parameter: with echo=1 the driver loops sent frames
# back itself and its links carry IFF_ECHO, so the PF_CAN core must not
# loop them a second time. The loopback and FD programs run again in
# that mode; the module is reloaded without echo at the end.

source "$(dirname "$0")/lib.sh"

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

test_no_echo_link_lacks_iff_echo() {
	vcan_add "cn$$" || return 1
	[ $(($(link_flags "cn$$") & IFF_ECHO)) -eq 0 ]
}

ktap_header 5
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
ip link del "ce$$"
reload_vcan
run_test echo_off_after_reload test_no_echo_link_lacks_iff_echo
run_test echo_parameter_off_after_reload \
	bash -c '[ "$(cat /sys/module/vcan/parameters/echo)" = N ]'
ktap_finish
