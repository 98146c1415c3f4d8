# SPDX-License-Identifier: GPL-2.0
#
# Shared by can_install.sh and can_install_safety.sh (after can_test.sh): a
# writable copy of Debian's CAN module tree, which can_install.sh
# --prepare made on the host, mounted over /lib/modules/KVER so that
# modprobe and the autoload on socket() use it, and unmounted at the
# end; make run as a user would; where modprobe finds a module, and which
# file a loaded module came from.

KVER=$(uname -r)
PREPARED=$TOP/build/install-test/lib/modules/$KVER
MODS=/lib/modules/$KVER
MANIFEST=$MODS/updates/can-stack.manifest
HOLD_PID=
MOUNTED=0
# Every CAN module either stack may have loaded, users before providers.
CAN_MODULES="can_bcm can_gw can_isotp can_j1939 can_raw vcan vxcan kvaser_pci pcm3680_pci
	sja1000_fake sja1000 mcp251x mcp2515_model can_vbus can_dev can"

unload_can() {
	local m

	for m in $CAN_MODULES; do
		[ -d "/sys/module/$m" ] && rmmod "$m" 2>/dev/null
	done
	return 0
}

install_cleanup() {
	[ -n "$HOLD_PID" ] && { exec 7>&-; wait "$HOLD_PID"; }
	unload_can
	[ "$MOUNTED" = 1 ] && umount "$MODS"
	lib_cleanup
}
trap install_cleanup EXIT

# The stack's own make targets, run as a user would for the running
# kernel (KVER: the default is 6.1, the guest may boot 6.12); output kept.
run_make() {
	make -s -C "$TOP" KVER="$KVER" "$@" > "$CAN_TMP/make.out" 2>&1
	local rc=$?

	sed 's/^/# make: /' "$CAN_TMP/make.out"
	return $rc
}

# module_file NAME: the file modprobe would load, relative to $MODS,
# without the compression suffix Debian's 6.12 modules carry (.ko.xz), so
# that the tests name files the same way on every kernel.
module_file() {
	local f

	f=$(modinfo -F filename "$1" 2>/dev/null) || return 1
	f=${f#"$MODS"/}
	case $f in
	*.ko.*) f=${f%.*} ;;
	esac
	echo "$f"
}

expect_file() {
	local got

	got=$(module_file "$1")
	[ "$got" = "$2" ] || { fail "$1 resolves to '$got', not $2"; return 1; }
}

# Modules carry no srcversion here (no MODULE_VERSION), but each has a
# GNU build ID, and the kernel shows a loaded module's under notes/.
loaded_build_id() {
	od -An -tx1 -v "/sys/module/$1/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n' | tail -c 40
}

# FILE may be named without its compression suffix (see module_file).
file_build_id() {
	local f=$1

	[ -e "$f" ] || [ ! -e "$f.xz" ] || {
		xz -dc "$f.xz" > "$CAN_TMP/build-id.ko" && f=$CAN_TMP/build-id.ko
	}
	readelf -n "$f" | awk '/Build ID:/ { print $3 }'
}

# is_loaded_from NAME FILE: the loaded module NAME is the one in FILE.
is_loaded_from() {
	local id

	[ -d "/sys/module/$1" ] || { fail "$1 not loaded"; return 1; }
	id=$(loaded_build_id "$1")
	[ -n "$id" ] && [ "$id" = "$(file_build_id "$2")" ] ||
		{ fail "loaded $1 ($id) is not $2"; return 1; }
}

# is_ours NAME FILE: the loaded module NAME is FILE of this tree.
is_ours() {
	is_loaded_from "$1" "$TOP/$2"
}

# is_debians NAME: the loaded module NAME is the file of Debian's tree
# that modprobe resolves it to.
is_debians() {
	local f

	f=$(module_file "$1")
	[[ $f = kernel/* ]] || { fail "$1 resolves to $f"; return 1; }
	is_loaded_from "$1" "$MODS/$f"
}

# The files under updates/ outside DKMS's updates/dkms/, relative to it,
# on one line.
files_in_updates() {
	[ -d "$MODS/updates" ] || return 0
	(cd "$MODS/updates" && find . -path ./dkms -prune -o ! -type d -print) |
		sed 's|^\./||' | sort | paste -sd ' '
}

# The files make install should leave: what the manifest lists, and it.
manifest_files() {
	{ grep -v '^#' "$MANIFEST"; echo can-stack.manifest; } | sort | paste -sd ' '
}

# interrupted_install K MAKE-ARGS...: make install, killed with SIGKILL
# (as by a power cut, or the OOM killer) when it starts to copy its
# module K+1. can-install.sh copies each module with install(1); a
# wrapper of that, first in PATH, counts the copies and kills its caller.
interrupted_install() {
	local k=$1 bin=$CAN_TMP/interrupt real copies

	shift
	real=$(type -P install)
	mkdir -p "$bin"
	echo 0 > "$CAN_TMP/copies"
	cat > "$bin/install" <<-EOF
	#!/bin/bash
	n=\$((\$(cat "$CAN_TMP/copies") + 1))
	echo \$n > "$CAN_TMP/copies"
	[ \$n -le $k ] || { kill -KILL \$PPID; exit 137; }
	exec "$real" "\$@"
	EOF
	chmod +x "$bin/install"
	PATH=$bin:$PATH run_make install "$@" && { fail "install was not interrupted"; return 1; }
	copies=$(cat "$CAN_TMP/copies")
	[ "$copies" = $((k + 1)) ] || { fail "stopped at copy $copies, not $((k + 1))"; return 1; }
	log "make install $* killed at its copy $copies"
}

# DEB_SRC: the source the .deb "make check" built holds, unpacked.
deb_source() {
	local deb

	deb=$(ls -t "$TOP"/build/can-stack-dkms_*_all.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { fail "no build/can-stack-dkms_*_all.deb (make dkms-deb)"; return 1; }
	rm -rf "$CAN_TMP/deb"
	dpkg-deb -x "$deb" "$CAN_TMP/deb" || return 1
	DEB_SRC=$(ls -d "$CAN_TMP"/deb/usr/src/can-stack-*)
	[ -f "$DEB_SRC/scripts/can-install.sh" ] || { fail "no can-install.sh in $deb"; return 1; }
}

setup_pristine_tree() {
	[ -d "$PREPARED" ] || { SKIP_REASON="no $PREPARED (make check prepares it)"; return 4; }
	[ -d "$MODS" ] || { SKIP_REASON="no $MODS"; return 4; }
	mkdir -p "$CAN_TMP/modules"
	cp -a "$PREPARED/." "$CAN_TMP/modules/"
	unload_can
	mount --bind "$CAN_TMP/modules" "$MODS" || return 1
	MOUNTED=1
}

# The tests after this one load our modules by modprobe; a module of
# Debian's left loaded would make them test mainline's code instead.
test_no_can_module_stays_loaded() {
	local m left=

	unload_can
	for m in $CAN_MODULES; do
		[ -d "/sys/module/$m" ] && left="$left $m"
	done
	[ -z "$left" ] || { fail "still loaded:$left"; return 1; }
}
