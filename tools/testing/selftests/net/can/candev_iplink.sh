#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "ip -d -s link show" of an SJA1000 on QEMU's kvaser_pci card must read
# as with mainline's device layer. The same card is configured the same
# way twice in one boot: with our can-dev, sja1000 and kvaser_pci, then
# with Debian's (a comparison, the second test that loads mainline
# modules on purpose, from the copy of Debian's module tree "make check"
# prepares, as can_install.sh does). Only the interface index may differ.

source "$(dirname "$0")/lib/can_test.sh"

KVER=$(uname -r)
PREPARED=$TOP/build/install-test/lib/modules/$KVER
MODS=/lib/modules/$KVER
MOUNTED=0
DRIVER=/sys/bus/pci/drivers/kvaser_pci

# Whichever can_dev is loaded must go, with any module that still uses
# it, before the other stack's can be loaded.
unload_drivers() {
	modprobe -r -q kvaser_pci
	unload_with_users sja1000 can_dev
	return 0
}

iplink_cleanup() {
	unload_drivers
	[ "$MOUNTED" = 1 ] && umount "$MODS"
	lib_cleanup
}
trap iplink_cleanup EXIT

first_card() {
	can_ifaces_of "$DRIVER" | head -1
}

# Two configurations, one after the other on the same interface: a
# bitrate with sample point, and timing in quanta with more modes.
CONFIG_A="bitrate 250000 sample-point 0.8 restart-ms 100 berr-reporting on"
CONFIG_B="tq 125 prop-seg 6 phase-seg1 7 phase-seg2 2 sjw 2 restart-ms 0 one-shot on
	presume-ack on cc-len8-dlc on triple-sampling on berr-reporting off"

operstate_is() {
	[ "$(cat "/sys/class/net/$1/operstate")" = "$2" ]
}

# show_as STACK CONFIG NAME: what ip shows for the first card with CONFIG,
# down and up, in $CAN_TMP/STACK.NAME-down and -up.
show_as() {
	local out=$CAN_TMP/$1.$3 dev

	dev=$(first_card)
	[ -n "$dev" ] || { fail "no kvaser_pci interface ($1)"; return 1; }
	ip link set "$dev" down
	# shellcheck disable=SC2086 # CONFIG is a list of words
	ip link set "$dev" type can $2 || { fail "configure $3 ($1)"; return 1; }
	ip -d -s link show "$dev" | sed -E 's/^[0-9]+: /N: /' > "$out-down"
	ip link set "$dev" up || { fail "up ($1)"; return 1; }
	# The operational state follows the carrier through linkwatch, which
	# may take up to a second: snapshot only once it has settled.
	wait_until 3 operstate_is "$dev" up || { fail "not up ($1)"; return 1; }
	ip -d -s link show "$dev" | sed -E 's/^[0-9]+: /N: /' > "$out-up"
	# JSON names every attribute ip parsed, also those text output hides.
	ip -d -s -j link show "$dev" |
		sed -E 's/"ifindex":[0-9]+/"ifindex":N/; s/,/,\n/g' > "$out-json"
	ip link set "$dev" down
	sed "s/^/# $1 $3: /" "$out-up"
}

show_configured() {
	modprobe kvaser_pci || { fail "modprobe kvaser_pci ($1)"; return 1; }
	show_as "$1" "$CONFIG_A" a && show_as "$1" "$CONFIG_B" b
}

# The PCI bridge of a Kvaser PCIcan: AMCC 10e8:8406.
has_kvaser_card() {
	local d

	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x10e8 ] && [ "$(cat "$d/device")" = 0x8406 ] &&
			return 0
	done
	return 1
}

# Both outputs, taken before any comparison so that each case compares.
collect() {
	has_kvaser_card || { SKIP_REASON="no kvaser_pci card (QEMU -device kvaser_pci)"; return 4; }
	[ -d "$PREPARED" ] || { SKIP_REASON="no $PREPARED (make check prepares it)"; return 4; }
	unload_drivers
	show_configured ours || return 1
	unload_drivers
	mkdir -p "$CAN_TMP/modules"
	cp -a "$PREPARED/." "$CAN_TMP/modules/"
	mount --bind "$CAN_TMP/modules" "$MODS" || return 1
	MOUNTED=1
	show_configured mainline || return 1
	unload_drivers
	umount "$MODS" && MOUNTED=0
}

# We implement 6.1's device layer on every kernel. Mainline changed two
# things since, which a newer kernel's own modules show (can.txt, "The
# kernels we run on"): the default SJW became max(1, min(phase-seg1,
# phase-seg2 / 2)) where 6.1 chose 1, and a stopped device no longer
# reports its error counters. as_of_6_1 STATE FILE prints mainline's FILE
# as 6.1 would have shown it, after checking that the new value is the
# one the new rule gives; ours_comparable does the counters' part.
NEWER_THAN_6_1=0
case $KVER in 6.1.*) ;; *) NEWER_THAN_6_1=1 ;; esac

as_of_6_1() {
	# Only configuration a leaves the SJW to the kernel. Text shows
	# "phase-seg1 6 phase-seg2 4 sjw 2" on one line, JSON (one member a
	# line here) "phase_seg1":6, ... "sjw":2.
	case $1 in
	a-*) awk '
	function num(re,  m) {
		match($0, re); m = substr($0, RSTART, RLENGTH)
		match(m, /[0-9]+$/); return substr(m, RSTART) + 0
	}
	/phase[-_]seg1/ { p1 = num("phase[-_]seg1\"?[ :][0-9]+") }
	/phase[-_]seg2/ { p2 = num("phase[-_]seg2\"?[ :][0-9]+") }
	/ sjw [0-9]+ |"sjw":[0-9]+/ {
		want = int(p2 / 2); if (p1 < want) want = p1; if (want < 1) want = 1
		got = num("sjw\"?[ :][0-9]+")
		if (got != want) bad = 1
		sub(/ sjw [0-9]+ /, " sjw 1 "); sub(/"sjw":[0-9]+/, "\"sjw\":1")
	}
	{ print }
	END { exit bad }' "$2" ;;
	*) cat "$2" ;;
	esac
}

ours_comparable() {
	case $1 in
	*-down) sed -E '/state STOPPED/s/ \(berr-counter tx [0-9]+ rx [0-9]+\)//' "$2" ;;
	*) cat "$2" ;;
	esac
}

# same_as_mainline STATE: the output for STATE (a-down, ..., b-json) is
# mainline's.
same_as_mainline() {
	local theirs=$CAN_TMP/mainline.$1 ours=$CAN_TMP/ours.$1

	[ -s "$ours" ] && [ -s "$theirs" ] || { fail "nothing collected"; return 1; }
	if [ "$NEWER_THAN_6_1" = 1 ]; then
		as_of_6_1 "$1" "$theirs" > "$CAN_TMP/mainline-6.1.$1" ||
			{ fail "mainline's default SJW is not the one expected ($1)"; return 1; }
		ours_comparable "$1" "$ours" > "$CAN_TMP/ours-6.1.$1"
		theirs=$CAN_TMP/mainline-6.1.$1
		ours=$CAN_TMP/ours-6.1.$1
	fi
	diff -u "$theirs" "$ours" > "$CAN_TMP/diff" && return 0
	sed 's/^/# /' "$CAN_TMP/diff"
	fail "ip -d -s link show differs from mainline's ($1)"
}

ktap_header 7
run_test collect_both_stacks collect
# Without a card or Debian's module tree (the debug kernel has no
# mainline CAN modules) there is nothing to compare: collect said why.
[ -n "$SKIP_REASON" ] && ktap_finish
run_test stopped_device_shows_as_mainline same_as_mainline a-down
run_test running_device_shows_as_mainline same_as_mainline a-up
run_test quanta_and_modes_stopped_show_as_mainline same_as_mainline b-down
run_test quanta_and_modes_running_show_as_mainline same_as_mainline b-up
run_test json_shows_as_mainline same_as_mainline a-json
run_test quanta_and_modes_json_shows_as_mainline same_as_mainline b-json
ktap_finish
