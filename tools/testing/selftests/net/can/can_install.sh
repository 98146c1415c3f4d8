#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install", "make uninstall" and the DKMS package, on a module tree
# that starts as Debian's: Debian's CAN modules visible, ours nowhere.
# The guest hides Debian's CAN modules, so the host makes a copy of them
# first (can_install.sh --prepare, run by "make check"); the test mounts a
# writable copy over /lib/modules/KVER, so that modprobe and the autoload
# on socket() use it, and unmounts it at the end.
#
#   can_install.sh --prepare KVER DIR   (host) DIR/lib/modules/KVER: Debian's
#                                       CAN modules, what they need, indexes

# Debian's CAN modules and the modules they need, with depmod's indexes:
# a small tree that depmod handles in a moment, even under TCG.
prepare() {
	local kver=$1 out=$2 src=/lib/modules/$1
	local dst=$out/lib/modules/$kver

	rm -rf "$out"
	mkdir -p "$dst"
	cp "$src/modules.order" "$src/modules.builtin" "$src/modules.builtin.modinfo" "$dst/"
	(cd "$src" && grep -E '^kernel/(net|drivers/net)/can/' modules.dep | tr -d : |
		tr ' ' '\n' | grep '^kernel/' | sort -u | xargs cp --parents -t "$dst")
	depmod -b "$out" "$kver"
}

if [ "${1:-}" = --prepare ]; then
	set -e
	prepare "$2" "$3"
	exit 0
fi

source "$(dirname "$0")/lib/can_test.sh"
source "$(dirname "$0")/lib/can_test_install.sh"

test_pristine_tree_resolves_to_debian() {
	expect_file can kernel/net/can/can.ko &&
		expect_file can-isotp kernel/net/can/can-isotp.ko
}

# Debian's can-isotp and can-gw are replaced by ours, not lost: only
# can-j1939 stops the install, where make did not build mainline's to
# replace it (another kernel than 6.1; here a build directory without it).
test_install_refused_while_can_j1939_would_break() {
	run_make install BUILD="$CAN_TMP/no-build" && { fail "install succeeded"; return 1; }
	grep -q "refusing" "$CAN_TMP/make.out" || { fail "no refusal message"; return 1; }
	grep -q "kernel/net/can/j1939/can-j1939.ko[.a-z]*: .*can_rx_register" "$CAN_TMP/make.out" ||
		{ fail "can-j1939 and can_rx_register not named"; return 1; }
	# Ours replace Debian's can-isotp and can-gw: installed, not lost.
	! grep -q "kernel/net/can/can-isotp.ko" "$CAN_TMP/make.out" ||
		{ fail "Debian's can-isotp counted as lost"; return 1; }
	! grep -q "kernel/net/can/can-gw.ko" "$CAN_TMP/make.out" ||
		{ fail "Debian's can-gw counted as lost"; return 1; }
	grep -q "FORCE=1" "$CAN_TMP/make.out" || { fail "override not named"; return 1; }
	grep -q "build/j1939/modules/can-j1939.ko" "$CAN_TMP/make.out" ||
		{ fail "the J1939 make builds not named"; return 1; }
	[ ! -e "$MANIFEST" ] || { fail "a manifest was written"; return 1; }
	expect_file can kernel/net/can/can.ko
}

test_force_install_puts_protocols_in_updates() {
	local m

	run_make install FORCE=1 J1939=0 || return 1
	for m in can raw/can-raw bcm/can-bcm isotp/can-isotp gw/can-gw; do
		expect_file "${m#*/}" "updates/net/can/$m.ko" || return 1
		grep -qF "updates/net/can/$m.ko (from $TOP/net/can/$m.ko)" "$CAN_TMP/make.out" ||
			{ fail "install did not say where $m came from"; return 1; }
	done
	[ "$(grep -vc '^#' "$MANIFEST")" = 5 ] || { fail "manifest: $(cat "$MANIFEST")"; return 1; }
	expect_file can-dev kernel/drivers/net/can/dev/can-dev.ko
}

test_modprobe_loads_ours() {
	modprobe can-bcm && modprobe can-isotp || return 1
	is_ours can net/can/can.ko && is_ours can_bcm net/can/bcm/can-bcm.ko &&
		is_ours can_isotp net/can/isotp/can-isotp.ko || return 1
	rmmod can_isotp can_bcm can
}

test_socket_autoload_loads_ours() {
	mkfifo "$CAN_TMP/in"
	"$CAN_TEST_BIN/can_hold_socket" raw < "$CAN_TMP/in" > "$CAN_TMP/hold.out" 2>&1 &
	HOLD_PID=$!
	exec 7> "$CAN_TMP/in"
	wait_until 10 grep -qE 'ready|error' "$CAN_TMP/hold.out"
	grep -q ready "$CAN_TMP/hold.out" ||
		{ fail "socket(): $(cat "$CAN_TMP/hold.out")"; return 1; }
	is_ours can_raw net/can/raw/can-raw.ko && is_ours can net/can/can.ko || return 1
	exec 7>&-
	wait "$HOLD_PID"
	HOLD_PID=
	rmmod can_raw can
}

# Debian's can-dev, sja1000 and kvaser_pci carry frames over our core:
# the one test that loads mainline modules, on purpose.
test_mixed_stack_debian_drivers_on_our_core() {
	local ifs rc

	modprobe kvaser_pci || return 1
	is_debians can_dev && is_debians sja1000 && is_debians kvaser_pci || return 1
	mapfile -t ifs < <(can_ifaces_of /sys/bus/pci/drivers/kvaser_pci)
	if [ ${#ifs[@]} -lt 2 ]; then
		SKIP_REASON="needs two kvaser_pci cards on one bus"
		return 4
	fi
	can_bring_up "${ifs[0]}" && can_bring_up "${ifs[1]}" || return 1
	mixed_send_and_check "${ifs[0]}" "${ifs[1]}" &&
		mixed_own_options "${ifs[0]}" &&
		is_ours can net/can/can.ko && is_ours can_raw net/can/raw/can-raw.ko
	rc=$?
	# Also after a failure: the next cases load Debian's can.ko.
	unload_can
	return $rc
}

# Earlier tests may leave traffic on the emulated bus (random standard
# identifiers from cangen); frames of one extended identifier, with a
# candump filter on it, cannot be confused with it.
MIXED_FRAMES="1ABCDE01#11
1ABCDE01#R
1ABCDE01#0102030405060708"

mixed_send_and_check() {
	local from=$1 to=$2 f pid got

	timeout 20 candump -L -n 3 "$to,1ABCDE01:1FFFFFFF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$to" || { fail "candump did not bind"; return 1; }
	for f in $MIXED_FRAMES; do
		cansend "$from" "$f" || { fail "cansend $f"; return 1; }
	done
	wait "$pid" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
	got=$(awk '{ print $3 }' "$CAN_TMP/dump")
	[ "$got" = "$MIXED_FRAMES" ] || { fail "sent: $MIXED_FRAMES got: $got"; return 1; }
}

# Our options on a device of Debian's can-dev: its struct can_priv is
# mainline's, so CAN_RAW_BUS_STATE must not read it (it reads as a device
# without a controller), and CAN_RAW_TX_REPORT learns of each frame from
# the echo that comes back through our core.
MIXED_OPTIONS_PY='
import socket, struct, sys, time
SOL_CAN_RAW, BUS_STATE, TX_REPORT = 101, 0x4000, 0x4003
s = socket.socket(socket.PF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
s.bind((sys.argv[1],))
st = s.getsockopt(SOL_CAN_RAW, BUS_STATE, 80)
if len(st) != 80 or any(st[:32]) or any(st[72:]):
    sys.exit("bus state of a foreign device: %s" % st.hex())
s.setsockopt(SOL_CAN_RAW, TX_REPORT, 1)
s.send(struct.pack("=IB3x8s", 0x1ABCDE02 | 0x80000000, 1, b"\x42"))
for _ in range(200):
    try:
        data, anc, flags, addr = s.recvmsg(16, 256, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
    except BlockingIOError:
        time.sleep(0.01)
        continue
    ee = struct.unpack("IBBBBII", anc[0][2][:16])
    sys.exit(0 if ee[0] == 0 and ee[6] == 0 else "report %s" % (ee,))
sys.exit("no report")
'

mixed_own_options() {
	local out

	out=$(python3 -c "$MIXED_OPTIONS_PY" "$1" 2>&1) ||
		{ fail "own options on $1: $out"; return 1; }
}

test_drivers_install_only_on_request() {
	run_make install FORCE=1 DRIVERS=1 || return 1
	expect_file can-dev updates/drivers/net/can/dev/can-dev.ko &&
		expect_file vcan updates/drivers/net/can/vcan.ko || return 1
	grep -qx drivers/net/can/spi/mcp251x.ko "$MANIFEST" ||
		{ fail "manifest lacks mcp251x"; return 1; }
	expect_file can-vbus updates/drivers/net/can/vbus/can-vbus.ko || return 1
	# Installing without DRIVERS=1 again takes the drivers back out.
	run_make install FORCE=1 J1939=0 || return 1
	expect_file can-dev kernel/drivers/net/can/dev/can-dev.ko &&
		expect_file vcan kernel/drivers/net/can/vcan.ko || return 1
	[ ! -e "$MODS/updates/drivers" ] || { fail "updates/drivers left behind"; return 1; }
	expect_file can updates/net/can/can.ko
}

# Mainline's can-j1939, which make builds on our core, replaces the
# kernel's: plain make install takes it, so nothing is left that would
# stop loading and no FORCE=1 is needed. A J1939 socket then autoloads it
# over our core, and a message crosses Debian's vcan.
test_install_with_j1939_needs_no_force() {
	local compat=$TOP/build/j1939/modules/can-j1939.ko why rc

	why=$(compat_cannot_run "$compat")
	[ -z "$why" ] || { SKIP_REASON=$why; return 4; }
	# J1939=1 without that build: refused, and the earlier install (5
	# protocol modules) stays as it was.
	run_make install J1939=1 BUILD="$CAN_TMP/no-build" &&
		{ fail "J1939=1 without the J1939 build succeeded"; return 1; }
	grep -q "no-build/j1939/modules/can-j1939.ko: build first (make)" "$CAN_TMP/make.out" ||
		{ fail "missing can-j1939.ko not named"; return 1; }
	[ "$(grep -vc '^#' "$MANIFEST")" = 5 ] || { fail "manifest: $(cat "$MANIFEST")"; return 1; }
	run_make install || return 1
	grep -qF "updates/net/can/j1939/can-j1939.ko (from $compat)" "$CAN_TMP/make.out" ||
		{ fail "install did not say where can-j1939 came from"; return 1; }
	[ "$(grep -vc '^#' "$MANIFEST")" = 6 ] || { fail "manifest: $(cat "$MANIFEST")"; return 1; }
	expect_file can-j1939 updates/net/can/j1939/can-j1939.ko || return 1
	ip link add dev cij$$ type vcan && ip link set cij$$ up || return 1
	python3 - cij$$ <<-'PY'
	import signal, socket, sys
	signal.alarm(10)
	def j1939(addr):
	    s = socket.socket(socket.PF_CAN, socket.SOCK_DGRAM, socket.CAN_J1939)
	    s.bind((sys.argv[1], 0, 0x40000, addr))
	    return s
	rx, tx = j1939(0x80), j1939(0x90)
	tx.sendto(b"j1939", (sys.argv[1], 0, 0x12300, 0x80))
	data, addr = rx.recvfrom(100)
	ok = (data, addr[2], addr[3]) == (b"j1939", 0x12300, 0x90)
	sys.exit(0 if ok else f"got {data} {addr}")
	PY
	rc=$?
	[ $rc -eq 0 ] || fail "no J1939 message crossed"
	[ $rc -eq 0 ] && is_loaded_from can_j1939 "$compat" && is_ours can net/can/can.ko &&
		is_debians vcan
	rc=$?
	ip link del cij$$
	unload_can
	return $rc
}

test_uninstall_restores_kernel_modules() {
	run_make uninstall || return 1
	[ ! -e "$MANIFEST" ] || { fail "manifest left behind"; return 1; }
	[ ! -e "$MODS/updates/net" ] || { fail "updates/net left behind"; return 1; }
	expect_file can kernel/net/can/can.ko && expect_file can-raw kernel/net/can/can-raw.ko ||
		return 1
	modprobe can-isotp || { fail "can-isotp does not load after uninstall"; return 1; }
	is_debians can && is_debians can_isotp || return 1
	unload_can
}

test_uninstall_twice_is_harmless() {
	run_make uninstall || return 1
	grep -q "nothing to uninstall" "$CAN_TMP/make.out"
}

test_destdir_stages_without_depmod() {
	local stage=$CAN_TMP/stage

	run_make install FORCE=1 DESTDIR="$stage" || return 1
	[ -f "$stage$MODS/updates/net/can/can.ko" ] || { fail "nothing staged"; return 1; }
	[ -f "$stage$MANIFEST" ] || { fail "no staged manifest"; return 1; }
	[ ! -e "$stage$MODS/modules.dep" ] || { fail "depmod ran on the stage"; return 1; }
	expect_file can kernel/net/can/can.ko
}

# The .deb "make check" built on the host: compiling in the guest would
# take too long under TCG, so this reads what the package holds.
test_dkms_deb_holds_source_and_dkms_conf() {
	local deb ver src conf m

	deb=$(ls -t "$TOP"/build/can-stack-dkms_*_all.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { fail "no build/can-stack-dkms_*_all.deb (make dkms-deb)"; return 1; }
	log "$deb"
	[ "$(dpkg-deb -f "$deb" Package)" = can-stack-dkms ] || { fail "package name"; return 1; }
	dpkg-deb -f "$deb" Depends | grep -qw dkms || { fail "does not depend on dkms"; return 1; }
	ver=$(dpkg-deb -f "$deb" Version)
	src=./usr/src/can-stack-$ver
	dpkg-deb -c "$deb" | awk '{ print $6 }' > "$CAN_TMP/deb.list"
	for m in dkms.conf Kbuild Makefile net/can/af_can.c drivers/net/can/dev/dev.c \
		include/uapi/linux/can.h scripts/can-install.sh; do
		grep -qxF "$src/$m" "$CAN_TMP/deb.list" || { fail "no $src/$m"; return 1; }
	done
	dpkg-deb -I "$deb" postinst | grep -q "dkms install" || { fail "postinst"; return 1; }
	dpkg-deb -I "$deb" prerm | grep -q "dkms remove" || { fail "prerm"; return 1; }
	conf=$CAN_TMP/dkms.conf
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "$src/dkms.conf" > "$conf"
	sed 's/^/# dkms.conf: /' "$conf"
	grep -qx 'PACKAGE_NAME="can-stack"' "$conf" &&
		grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf" &&
		grep -qx 'AUTOINSTALL="yes"' "$conf" &&
		grep -q '^MAKE\[0\]=.*dkms-build' "$conf" || { fail "dkms.conf fields"; return 1; }
	for m in can can-raw can-bcm can-isotp can-gw; do
		grep -qE "^BUILT_MODULE_NAME\[[0-9]+\]=\"$m\"" "$conf" ||
			{ fail "dkms.conf does not build $m"; return 1; }
	done
	[ "$(grep -c '^DEST_MODULE_LOCATION.*="/updates/net/can"' "$conf")" = 1 ] &&
		grep -q '^DEST_MODULE_LOCATION.*="/updates/net/can/raw"' "$conf" &&
		grep -q '^DEST_MODULE_LOCATION.*="/updates/net/can/bcm"' "$conf" &&
		grep -q '^DEST_MODULE_LOCATION.*="/updates/net/can/isotp"' "$conf" &&
		grep -q '^DEST_MODULE_LOCATION.*="/updates/net/can/gw"' "$conf" ||
		{ fail "dkms.conf destinations"; return 1; }
}

ktap_header 14
run_test setup_pristine_tree setup_pristine_tree
[ "$MOUNTED" = 1 ] || ktap_finish
run_test pristine_tree_resolves_to_debian test_pristine_tree_resolves_to_debian
run_test install_refused_while_can_j1939_would_break \
	test_install_refused_while_can_j1939_would_break
run_test force_install_puts_protocols_in_updates test_force_install_puts_protocols_in_updates
run_test modprobe_loads_ours test_modprobe_loads_ours
run_test socket_autoload_loads_ours test_socket_autoload_loads_ours
run_test mixed_stack_debian_drivers_on_our_core test_mixed_stack_debian_drivers_on_our_core
run_test drivers_install_only_on_request test_drivers_install_only_on_request
run_test install_with_j1939_needs_no_force test_install_with_j1939_needs_no_force
run_test uninstall_restores_kernel_modules test_uninstall_restores_kernel_modules
run_test uninstall_twice_is_harmless test_uninstall_twice_is_harmless
run_test destdir_stages_without_depmod test_destdir_stages_without_depmod
run_test dkms_deb_holds_source_and_dkms_conf test_dkms_deb_holds_source_and_dkms_conf
run_test no_can_module_stays_loaded test_no_can_module_stays_loaded
ktap_finish
