#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our drivers never run over a CAN core that is not ours. Each of vcan,
# vxcan and can-dev (and so can-vbus, whose controllers are can-dev
# devices) reserves our 16-byte struct can_ml_priv, where
# mainline's core keeps 24 KiB of receive lists: with Debian's can.ko
# loaded, one frame on our vcan once panicked the kernel. This script
# loads Debian's can.ko on purpose (from the copy of Debian's module tree
# "make check" prepares, as can_install.sh does), checks that none of our
# drivers loads over it, and that all of them load once ours is back.

source "$(dirname "$0")/lib/can_test.sh"

KVER=$(uname -r)
PREPARED=$TOP/build/install-test/lib/modules/$KVER
OUR_DRIVERS="vcan vxcan can-dev can-vbus"

is_loaded() {
	[ -d "/sys/module/$1" ]
}

# Every CAN module, users before providers; true if none is left.
unload_stack() {
	local m

	for m in can_bcm can_gw can_isotp can_j1939 can_raw vcan vxcan kvaser_pci \
		pcm3680_pci sja1000 mcp251x can_vbus can_dev can; do
		is_loaded "$m" && rmmod "$m" 2>/dev/null
	done
	! is_loaded can
}

foreign_cleanup() {
	unload_stack
	modprobe can-raw
	modprobe vcan
	lib_cleanup
}
trap foreign_cleanup EXIT

mainline_can_ko() {
	find "$PREPARED/kernel/net/can" -maxdepth 1 -name 'can.ko*' | head -1
}

test_drivers_refuse_mainline_core() {
	local ko mark m rc=0

	unload_stack || { fail "cannot unload the CAN stack: $(lsmod | grep can)"; return 1; }
	ko=$(mainline_can_ko)
	[ -n "$ko" ] || { fail "no Debian can.ko in $PREPARED (make check prepares it)"; return 1; }
	mark=$(($(dmesg | wc -l) + 1))
	log "loading Debian's can.ko on purpose: $ko"
	insmod "$ko" || { fail "insmod $ko"; return 1; }
	for m in $OUR_DRIVERS; do
		if modprobe "$m" 2>"$CAN_TMP/err"; then
			fail "our $m loaded over Debian's can.ko"
			rc=1
		fi
		is_loaded "${m//-/_}" && { fail "$m is loaded"; rc=1; }
	done
	if ip link add "fc$$" type vcan 2>/dev/null; then
		fail "ip link add type vcan worked over Debian's can.ko"
		ip link del "fc$$"
		rc=1
	fi
	if ip link add "fv$$" type can bitrate 500000 2>/dev/null; then
		fail "ip link add type can worked over Debian's can.ko"
		ip link del "fv$$"
		rc=1
	fi
	dmesg | sed -n "$mark,\$p" | grep -q 'Unknown symbol can_stack_core_v2' ||
		{ fail "the kernel did not name the missing symbol"; rc=1; }
	kernel_log_is_clean "$mark" || rc=1
	rmmod can || { fail "rmmod Debian's can"; return 1; }
	return $rc
}

# Our core back: the same drivers load, pull it in, and carry a frame.
test_drivers_load_over_our_core() {
	local m

	unload_stack || { fail "cannot unload the CAN stack"; return 1; }
	for m in $OUR_DRIVERS; do
		modprobe "$m" || { fail "modprobe $m"; return 1; }
	done
	loaded_from can net/can/can.ko || return 1
	loaded_from can_vbus drivers/net/can/vbus/can-vbus.ko || return 1
	vcan_add "fc$$" || return 1
	can_send_and_check "fc$$" "fc$$" 123#C0FFEE || return 1
	# Two can-vbus controllers on the bus of group 0: a frame crosses.
	CAN_LINKS+=("fv$$" "fw$$")
	ip link add "fv$$" type can bitrate 500000 &&
		ip link add "fw$$" type can bitrate 500000 &&
		ip link set "fv$$" up && ip link set "fw$$" up ||
		{ fail "can-vbus controllers"; return 1; }
	can_send_and_check "fv$$" "fw$$" 123#C0FFEE
}

ktap_header 2
[ -d "$PREPARED" ] || ktap_skip_script drivers_refuse_mainline_core \
	"no Debian module tree for $KVER (the debug kernel has none)"
run_test drivers_refuse_mainline_core test_drivers_refuse_mainline_core
run_test drivers_load_over_our_core test_drivers_load_over_our_core
ktap_finish
