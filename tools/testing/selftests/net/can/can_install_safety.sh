#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What make install refuses, and how it stays whole, on the same copy of
# Debian's module tree as can_install.sh: install while Debian's can.ko is
# loaded (on purpose) or next to the DKMS package; module paths and
# manifest lines that leave updates/; an install killed halfway; and the
# DKMS package's build next to make install.

source "$(dirname "$0")/lib/can_test.sh"
source "$(dirname "$0")/lib/can_test_install.sh"

# While the running kernel holds a can.ko that is not ours, our modules
# put in place would be loaded over it by the next modprobe, and our vcan
# would hand mainline's core a room laid out for ours (a crash). Debian's
# can.ko and can-raw are loaded here on purpose: install must refuse,
# change nothing and say what to unload; after that it goes through.
test_install_refused_while_debians_can_is_loaded() {
	local cmd rc=0

	modprobe can-raw && is_debians can && is_debians can_raw || return 1
	log "Debian's can.ko and can-raw.ko are loaded on purpose: install must refuse"
	if run_make install FORCE=1 DRIVERS=1; then
		fail "install went through over Debian's loaded can.ko"
		rc=1
	else
		cmd=$(sed -n 's/^ *\(modprobe -r .*\)$/\1/p' "$CAN_TMP/make.out")
		grep -q "has a can.ko loaded that is not this stack's" "$CAN_TMP/make.out" ||
			{ fail "no refusal message"; rc=1; }
		[ "$cmd" = "modprobe -r can_raw can" ] || { fail "unload command: '$cmd'"; rc=1; }
		[ -z "$(files_in_updates)" ] || { fail "written: $(files_in_updates)"; rc=1; }
		expect_file vcan kernel/drivers/net/can/vcan.ko || rc=1
	fi
	if [ $rc != 0 ]; then
		unload_can
		run_make uninstall
		return 1
	fi
	$cmd || { fail "$cmd failed"; return 1; }
	[ ! -d /sys/module/can ] || { fail "can still loaded after $cmd"; return 1; }
	run_make install FORCE=1 DRIVERS=1 || { fail "install refused once unloaded"; return 1; }
	expect_file vcan updates/drivers/net/can/vcan.ko || return 1
	run_make uninstall
}

# DKMS's copy of the stack (Debian's DKMS puts it in updates/dkms/) next to
# make install's would let depmod take can.ko from one build and can-raw.ko
# from the other: install refuses, naming it and how to remove it.
test_install_refused_next_to_dkms() {
	local rc=0

	mkdir -p "$MODS/updates/dkms" &&
		cp "$TOP/net/can/can.ko" "$MODS/updates/dkms/can.ko" || return 1
	if run_make install FORCE=1; then
		fail "install went through next to updates/dkms/can.ko"
		rc=1
	else
		grep -qF "$MODS/updates/dkms/can.ko" "$CAN_TMP/make.out" ||
			{ fail "DKMS's can.ko not named"; rc=1; }
		grep -q "apt remove can-stack-dkms" "$CAN_TMP/make.out" ||
			{ fail "how to remove it not said"; rc=1; }
		[ -z "$(files_in_updates)" ] || { fail "written: $(files_in_updates)"; rc=1; }
	fi
	rm -r "$MODS/updates/dkms"
	[ ! -f "$MANIFEST" ] || run_make uninstall
	return $rc
}

# FILE=PATH (how make install passes can-j1939, built elsewhere) puts FILE
# at updates/PATH: a PATH that leaves updates/, by "..", a leading "/" or
# a symbolic link on the way, or that names no plain .ko file, is refused.
test_hostile_module_paths_are_refused() {
	local out=$CAN_TMP/outside up=../../../../../../../.. p rc=0

	mkdir -p "$out" "$MODS/updates" && ln -s "$out" "$MODS/updates/escape" || return 1
	for p in "$out/abs.ko" "$up$out/dotdot.ko" "net/can/$up$out/inner.ko" escape/link.ko \
		net//can/empty.ko ./net/can/dot.ko net/can/.hidden.ko net/can/can.txt \
		dkms/can.ko; do
		if "$TOP/scripts/can-install.sh" --kver "$KVER" --force install \
			"net/can/can.ko=$p" > "$CAN_TMP/hostile.out" 2>&1; then
			fail "installed to '$p'"
			rc=1
		elif ! grep -qF "'$p'" "$CAN_TMP/hostile.out"; then
			fail "'$p' refused without naming it: $(cat "$CAN_TMP/hostile.out")"
			rc=1
		fi
	done
	[ -z "$(ls -A "$out")" ] || { fail "written outside updates/: $(ls -A "$out")"; rc=1; }
	rm "$MODS/updates/escape"
	[ -z "$(files_in_updates)" ] || { fail "written: $(files_in_updates)"; rc=1; }
	if [ $rc != 0 ]; then
		rm -rf "$MODS/updates"
		depmod "$KVER"
	fi
	rmdir "$MODS/updates"
	return $rc
}

# Without a make install for the kernel, the package's check passes.
test_dkms_build_check_passes_without_make_install() {
	deb_source || return 1
	"$DEB_SRC/scripts/can-install.sh" --kver "$KVER" dkms-check
}

# An install cut short must leave nothing that uninstall misses, nor a
# part of a set that the next depmod (a kernel update's) would activate.
test_interrupted_install_is_undone_by_uninstall() {
	interrupted_install 3 FORCE=1 DRIVERS=1 || return 1
	run_make uninstall || return 1
	[ -z "$(files_in_updates)" ] || { fail "left in updates/: $(files_in_updates)"; return 1; }
	depmod "$KVER" || return 1
	expect_file can kernel/net/can/can.ko && expect_file can-raw kernel/net/can/can-raw.ko &&
		expect_file can-bcm kernel/net/can/can-bcm.ko
}

# Cut short over a finished install, the earlier set stays the one in
# use, whole; the next install leaves exactly what its manifest lists.
test_interrupted_reinstall_keeps_the_installed_set() {
	run_make install FORCE=1 || return 1
	interrupted_install 8 FORCE=1 DRIVERS=1 || return 1
	depmod "$KVER" || return 1
	expect_file can updates/net/can/can.ko &&
		expect_file can-dev kernel/drivers/net/can/dev/can-dev.ko &&
		expect_file vcan kernel/drivers/net/can/vcan.ko || return 1
	run_make install FORCE=1 || return 1
	[ "$(files_in_updates)" = "$(manifest_files)" ] ||
		{ fail "updates/ holds: $(files_in_updates)"; return 1; }
	expect_file vcan kernel/drivers/net/can/vcan.ko
}

# Our own can.ko loaded (the one installed) is no reason to refuse.
test_reinstall_while_our_can_is_loaded() {
	modprobe can && is_ours can net/can/can.ko || return 1
	run_make install FORCE=1 || { fail "refused over our own loaded can.ko"; return 1; }
	grep -q "can is loaded" "$CAN_TMP/make.out" ||
		{ fail "not told can stays loaded"; return 1; }
	rmmod can
}

# A damaged or edited manifest must not make uninstall delete outside
# updates/: each hostile line alone makes it refuse and remove nothing.
test_hostile_manifest_is_refused_by_uninstall() {
	local v=$CAN_TMP/victims up=../../../../../../../.. saved=$CAN_TMP/manifest.saved line rc=0

	mkdir -p "$v/dir" && touch "$v/a.ko" "$v/b.ko" "$v/dir/c.ko" &&
		ln -s "$v/dir" "$MODS/updates/net/link" && cp "$MANIFEST" "$saved" || return 1
	for line in "$up$v/a.ko" "net/can/$up$v/a.ko" "$v/b.ko" net/link/c.ko; do
		{ cat "$saved"; echo "$line"; } > "$MANIFEST"
		if run_make uninstall; then
			fail "uninstall went through with manifest line '$line'"
			rc=1
			break
		fi
		grep -qF "'$line'" "$CAN_TMP/make.out" || { fail "'$line' not named"; rc=1; }
		expect_file can updates/net/can/can.ko || rc=1
	done
	for line in a.ko b.ko dir/c.ko; do
		[ -f "$v/$line" ] || { fail "uninstall deleted $v/$line"; rc=1; }
	done
	rm "$MODS/updates/net/link"
	cp "$saved" "$MANIFEST"
	[ $rc = 0 ] && return 0
	# Put back what the next tests start from.
	[ -f "$MODS/updates/net/can/can.ko" ] || run_make install FORCE=1
	return 1
}

# The other way round: the DKMS package's build refuses for a kernel that
# make install put the stack in, before compiling. KDIR points nowhere so
# that a build that does not refuse fails at once instead of compiling.
test_dkms_build_refused_next_to_make_install() {
	[ -f "$MANIFEST" ] || { fail "no make install to refuse against"; return 1; }
	deb_source || return 1
	make -s -C "$DEB_SRC" KVER="$KVER" KDIR="$CAN_TMP/no-kdir" dkms-build \
		> "$CAN_TMP/dkms.out" 2>&1 && { fail "dkms-build went through"; return 1; }
	sed 's/^/# dkms-build: /' "$CAN_TMP/dkms.out"
	grep -q "refusing to build for $KVER" "$CAN_TMP/dkms.out" &&
		grep -q "make uninstall KVER=$KVER" "$CAN_TMP/dkms.out" &&
		grep -qF "$TOP" "$CAN_TMP/dkms.out" ||
		{ fail "no refusal naming the install"; return 1; }
}

# Last, uninstall takes all of ours back: Debian's modules resolve again.
test_uninstall_leaves_debians_modules() {
	run_make uninstall || return 1
	[ -z "$(files_in_updates)" ] || { fail "left in updates/: $(files_in_updates)"; return 1; }
	expect_file can kernel/net/can/can.ko && expect_file vcan kernel/drivers/net/can/vcan.ko
}

ktap_header 12
run_test setup_pristine_tree setup_pristine_tree
[ "$MOUNTED" = 1 ] || ktap_finish
run_test install_refused_while_debians_can_is_loaded \
	test_install_refused_while_debians_can_is_loaded
run_test install_refused_next_to_dkms test_install_refused_next_to_dkms
run_test hostile_module_paths_are_refused test_hostile_module_paths_are_refused
run_test dkms_build_check_passes_without_make_install \
	test_dkms_build_check_passes_without_make_install
run_test interrupted_install_is_undone_by_uninstall \
	test_interrupted_install_is_undone_by_uninstall
run_test interrupted_reinstall_keeps_the_installed_set \
	test_interrupted_reinstall_keeps_the_installed_set
run_test reinstall_while_our_can_is_loaded test_reinstall_while_our_can_is_loaded
run_test hostile_manifest_is_refused_by_uninstall test_hostile_manifest_is_refused_by_uninstall
run_test dkms_build_refused_next_to_make_install test_dkms_build_refused_next_to_make_install
run_test uninstall_leaves_debians_modules test_uninstall_leaves_debians_modules
run_test no_can_module_stays_loaded test_no_can_module_stays_loaded
ktap_finish
