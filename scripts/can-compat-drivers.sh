#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build mainline Linux 6.1's CAN drivers and its SAE J1939 protocol
# (net/can/j1939, which we do not write ourselves), unmodified, out of
# tree against our headers, our can-dev and our core, and prove that
# they use nothing else:
#
#   can-compat-drivers.sh [--in-tree | --j1939] KDIR SRC OUT
#
# KDIR is the kernel build tree (Debian's headers), SRC our tree, which
# must be built already (its Module.symvers names our exports), and OUT
# the directory to build in. The driver sources come from
# /usr/src/linux-source-6.1.tar.xz and are unpacked as they are; only
# the Kbuild files that say which modules to make are ours. The modules
# land in OUT/modules, flat, with a list of them in OUT/modules.list.
#
# After the build every module is checked:
#  - each symbol it takes from a CAN module of Debian's kernel is one of
#    ours (our Module.symvers, or the SJA1000 core built here), with our
#    CRC in its __versions, so it loads on our can-dev and nothing else;
#  - no CAN header came from the kernel's tree: include/linux/can/* and
#    include/uapi/linux/can* all resolved to ours.
# A check that fails names the module and what it found, and the script
# exits non-zero.
#
# Then mainline's SJA1000 board drivers (BOARDS), unmodified, are built
# the same way on our SJA1000 core instead of mainline's: against our
# drivers/net/can/sja1000/sja1000.h, which sits beside them as it would
# in the tree, taking the core's symbols from our Module.symvers only.
# They land in OUT/boards/modules; sja1000_boards.sh runs mainline's
# kvaser_pci glue from there on QEMU's cards.
#
# --in-tree: KDIR is a kernel built with our CAN code in its tree (the
# debug kernel, scripts/can-debug-kernel.sh): its CAN exports and headers
# are ours by construction, so only the build and its warnings are
# checked.
#
# --j1939: only net/can/j1939 (can-j1939.ko), what "make" builds so that
# "make install" can replace the kernel's can-j1939, which cannot load on
# our core. The sources are unpacked once and later runs rebuild
# incrementally, a few seconds when nothing changed.
#
# Without --in-tree the result is kept, under a hash of everything it
# depends on (this script, the source package, the compiler, KDIR's
# configuration and exports, our headers and exports): a rerun with the
# same hash in OUT does nothing, and one that finds it in $CAN_CACHE
# (/var/cache/can-stack, shared by the trees of this machine) copies it
# from there. With CAN_COMPAT_CHECK=1 the script only says whether it
# has to build: exit 0 if not.

set -eu

# What is built: the directories' objects, the directories that get a
# Kbuild of ours (kbuild_for), and the modules that must come out.
TOP_OBJS="vxcan.o ctucanfd/ slcan/ sja1000/ spi/ usb/ j1939/"
DIRS=". ctucanfd slcan sja1000 spi spi/mcp251xfd usb usb/peak_usb j1939"
MODULES="vxcan ctucanfd ctucanfd_pci slcan sja1000 kvaser_pci plx_pci mcp251x mcp251xfd gs_usb
	peak_usb can-j1939"

BOARDS="kvaser_pci ems_pci ems_pcmcia f81601 peak_pci peak_pcmcia plx_pci sja1000_isa
	sja1000_platform"

IN_TREE=0
J1939_ONLY=0
if [ "$1" = --j1939 ]; then
	J1939_ONLY=1
	shift
	TOP_OBJS="j1939/"
	DIRS=". j1939"
	MODULES="can-j1939"
elif [ "$1" = --in-tree ]; then
	IN_TREE=1
	shift
	# The debug kernel has no USB; build what its tests load
	# (ctucanfd.sh, j1939.sh; slcan.sh skips there, see the script).
	TOP_OBJS="ctucanfd/ j1939/"
	DIRS=". ctucanfd j1939"
	MODULES="ctucanfd ctucanfd_pci can-j1939"
	# Nor PCMCIA.
	BOARDS="kvaser_pci ems_pci f81601 peak_pci plx_pci sja1000_isa sja1000_platform"
fi
KDIR=$1
SRC=$2
OUT=$3
TAR=/usr/src/linux-source-6.1.tar.xz
LS=linux-source-6.1/drivers/net/can

# Directory, then the Kbuild lines that pick its modules. gs_usb,
# peak_usb and mcp251xfd (which uses rx-offload) are built to prove they
# compile and link; the others also run
# in the VM (ctucanfd.sh, slcan.sh, reference.sh --compat).
kbuild_for() {
	case $1 in
	.)		echo "obj-m += $TOP_OBJS" ;;
	ctucanfd)	echo "obj-m += ctucanfd.o ctucanfd_pci.o"
			echo "ctucanfd-y := ctucanfd_base.o" ;;
	slcan)		echo "obj-m += slcan.o"
			echo "slcan-y := slcan-core.o slcan-ethtool.o" ;;
	sja1000)	echo "obj-m += sja1000.o kvaser_pci.o plx_pci.o" ;;
	spi)		echo "obj-m += mcp251x.o mcp251xfd/" ;;
	spi/mcp251xfd)	echo "obj-m += mcp251xfd.o"
			echo 'mcp251xfd-c := $(wildcard $(src)/*.c)'
			echo 'mcp251xfd-y := $(notdir $(mcp251xfd-c:.c=.o))' ;;
	usb)		echo "obj-m += gs_usb.o peak_usb/" ;;
	usb/peak_usb)	echo "obj-m += peak_usb.o"
			echo "peak_usb-y := pcan_usb_core.o pcan_usb.o pcan_usb_pro.o"
			echo "peak_usb-y += pcan_usb_fd.o" ;;
	j1939)		echo "obj-m += can-j1939.o"
			echo "can-j1939-y := address-claim.o bus.o main.o socket.o transport.o"
			# In the debug kernel make fuzz follows J1939 with
			# KCOV, as it does our code (can-debug-kernel.sh).
			[ "$IN_TREE" = 0 ] || echo "KCOV_INSTRUMENT := y" ;;
	esac
}

die() {
	echo "compat-drivers: $*" >&2
	exit 1
}

unpack() {
	local d

	[ -f "$TAR" ] || die "$TAR missing (make deps installs linux-source-6.1)"
	[ "$IN_TREE" = 1 ] || [ -f "$SRC/Module.symvers" ] ||
		die "$SRC/Module.symvers missing: build our modules first"
	rm -rf "$OUT/modules"
	mkdir -p "$OUT/modules"
	if [ "$J1939_ONLY" = 1 ]; then
		# Unpacked once: fresh files would make Kbuild rebuild it all.
		[ -f "$OUT/src/j1939/Kbuild" ] && return 0
		rm -rf "$OUT/src"
		mkdir -p "$OUT/src"
		tar -C "$OUT/src" --strip-components=3 -xJf "$TAR" linux-source-6.1/net/can/j1939
		for d in $DIRS; do
			kbuild_for "$d" > "$OUT/src/$d/Kbuild"
		done
		return 0
	fi
	rm -rf "$OUT/src"
	mkdir -p "$OUT/src"
	tar -C "$OUT/src" --strip-components=4 -xJf "$TAR" \
		"$LS/vxcan.c" "$LS/ctucanfd" "$LS/slcan" "$LS/sja1000" "$LS/spi/mcp251x.c" \
		"$LS/spi/mcp251xfd" \
		"$LS/usb/gs_usb.c" "$LS/usb/peak_usb"
	# net/can/j1939 lands in OUT/src/j1939, beside the drivers.
	tar -C "$OUT/src" --strip-components=3 -xJf "$TAR" linux-source-6.1/net/can/j1939
	# Kbuild is read before Makefile: these pick the modules, the
	# mainline Makefiles stay as they came and are not used.
	for d in $DIRS; do
		kbuild_for "$d" > "$OUT/src/$d/Kbuild"
	done
}

build() {
	local extra=$SRC/Module.symvers

	[ "$IN_TREE" = 0 ] || extra=
	make -C "$KDIR" M="$OUT/src" \
		NOSTDINC_FLAGS="-nostdinc -I$SRC/include -I$SRC/include/uapi" \
		KBUILD_EXTRA_SYMBOLS="$extra" modules 2>&1 |
		tee "$OUT/build.log" | grep -E 'warning|error|WARNING|ERROR' && :
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "build failed, see $OUT/build.log"
	grep -qE 'warning:|WARNING:' "$OUT/build.log" &&
		die "the build warned, see $OUT/build.log"
	return 0
}

# Symbols exported by Debian's CAN modules, which a driver must get
# from us instead: "name".
debian_can_exports() {
	awk '$3 ~ /^(drivers\/net\/can|net\/can)\// { print $2 }' "$KDIR/Module.symvers"
}

# "crc name" of every export a driver here may use: ours and the ones
# the SJA1000 core built here offers its board glue.
allowed_exports() {
	awk '{ print $1, $2 }' "$SRC/Module.symvers" "$OUT/src/Module.symvers"
}

check_symbols() {
	local ko=$1 name crc bad=0

	while read -r crc name; do
		grep -qx "$name" "$OUT/debian-can" || continue
		if ! grep -qx "$crc $name" "$OUT/allowed"; then
			echo "compat-drivers: $(basename "$ko"): $name $crc is not ours" >&2
			bad=1
		fi
	done < <(/sbin/modprobe --dump-modversions "$ko")
	return $bad
}

# Any CAN header of the kernel's tree in the dependencies of any object.
check_headers() {
	local found

	found=$(find "${1:-$OUT/src}" -name '.*.o.cmd' -exec cat {} + |
		grep -oE '[^ ]*/include/(uapi/)?linux/can[^ ]*\.h' |
		grep -v "^$SRC/" | sort -u)
	[ -z "$found" ] || die "kernel tree CAN headers used: $found"
}

check_all() {
	local m ko

	if [ "$IN_TREE" = 0 ]; then
		debian_can_exports > "$OUT/debian-can"
		allowed_exports > "$OUT/allowed"
	fi
	: > "$OUT/modules.list"
	for m in $MODULES; do
		ko=$(find "$OUT/src" -name "$m.ko")
		[ -n "$ko" ] || die "$m.ko was not built"
		[ "$IN_TREE" = 1 ] || check_symbols "$ko" ||
			die "$m.ko takes symbols that are not ours"
		cp "$ko" "$OUT/modules/"
		echo "$m" >> "$OUT/modules.list"
	done
	[ "$IN_TREE" = 1 ] || check_headers
}

# Mainline's board glue on our SJA1000 core, built and checked as above
# with our exports as the only allowed ones.
build_boards() {
	local b ko dir=$OUT/boards

	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/modules"
	for b in $BOARDS; do
		tar -C "$dir/src" --strip-components=5 -xJf "$TAR" "$LS/sja1000/$b.c"
	done
	cp "$SRC/drivers/net/can/sja1000/sja1000.h" "$dir/src/"
	echo "obj-m += $(echo $BOARDS | sed 's/\([a-z0-9_]*\)/\1.o/g')" > "$dir/src/Kbuild"
	make -C "$KDIR" M="$dir/src" \
		NOSTDINC_FLAGS="-nostdinc -I$SRC/include -I$SRC/include/uapi" \
		KBUILD_EXTRA_SYMBOLS="${extra_symbols:-}" modules > "$dir/build.log" 2>&1 ||
		die "SJA1000 boards: build failed, see $dir/build.log"
	grep -E 'warning:|WARNING:' "$dir/build.log" &&
		die "SJA1000 boards: the build warned, see $dir/build.log"
	[ "$IN_TREE" = 1 ] || awk '{ print $1, $2 }' "$SRC/Module.symvers" > "$OUT/allowed"
	for b in $BOARDS; do
		ko=$dir/src/$b.ko
		[ -e "$ko" ] || die "SJA1000 boards: $b.ko was not built"
		[ "$IN_TREE" = 1 ] || check_symbols "$ko" ||
			die "SJA1000 boards: $b.ko takes symbols that are not ours"
		cp "$ko" "$dir/modules/"
	done
	[ "$IN_TREE" = 1 ] || check_headers "$dir/src"
	echo "compat-drivers: built mainline 6.1's SJA1000 boards on our SJA1000 core:" $BOARDS
}

# The hash of what the build depends on. Our Module.symvers is taken
# without its paths, which differ from tree to tree.
compat_key() {
	{
		cat "$0"
		echo "j1939-only $J1939_ONLY"
		dpkg-query -W -f='${Version}\n' linux-source-6.1
		stat -c '%s %Y' "$TAR"
		gcc --version | head -1
		echo "$KDIR"
		cat "$KDIR/Module.symvers" "$KDIR/.config"
		awk '{ print $1, $2, $4, $5 }' "$SRC/Module.symvers"
		(cd "$SRC" && find include drivers/net/can/sja1000/sja1000.h -type f |
			LC_ALL=C sort | xargs sha256sum)
	} 2>/dev/null | sha256sum | cut -c1-16
}

CACHE=${CAN_CACHE:-/var/cache/can-stack}
KEEP="modules modules.list build.log boards/modules boards/build.log"

# Done already, here or in the cache: say so, or copy it.
reuse() {
	local f

	[ -f "$OUT/.key" ] && [ "$(cat "$OUT/.key")" = "$key" ] && [ -f "$OUT/modules.list" ] &&
		{ echo "compat-drivers: $OUT is up to date ($key)"; return 0; }
	[ -f "$CACHE/compat-$key/modules.list" ] || return 1
	[ "${CAN_COMPAT_CHECK:-0}" = 1 ] && return 0
	rm -rf "$OUT"
	mkdir -p "$OUT/boards"
	for f in $KEEP; do
		cp -a "$CACHE/compat-$key/$f" "$OUT/$f"
	done
	touch "$CACHE/compat-$key"
	echo "$key" > "$OUT/.key"
	echo "compat-drivers: $(wc -l < "$OUT/modules.list") mainline 6.1 modules and the" \
		"SJA1000 boards from $CACHE/compat-$key"
}

# Into the cache, whole or not at all; the five used last stay.
store() {
	local tmp=$CACHE/compat-$key.tmp.$$ f

	mkdir -p "$tmp/boards" 2>/dev/null || return 0
	for f in $KEEP; do
		cp -a "$OUT/$f" "$tmp/$f" || { rm -rf "$tmp"; return 0; }
	done
	mv -T "$tmp" "$CACHE/compat-$key" 2>/dev/null || rm -rf "$tmp"
	ls -dt "$CACHE"/compat-????????????????/ 2>/dev/null | tail -n +6 | xargs -r rm -rf
}

if [ "$IN_TREE" = 0 ]; then
	key=$(compat_key)
	if reuse; then
		exit 0
	fi
	[ "${CAN_COMPAT_CHECK:-0}" = 1 ] && exit 1
	rm -f "$OUT/.key"
fi
unpack
build
check_all
if [ "$J1939_ONLY" = 1 ]; then
	echo "compat-drivers: built mainline 6.1's can-j1939 on our core: $OUT/modules/can-j1939.ko"
	exit 0
fi
extra_symbols=
[ "$IN_TREE" = 1 ] || extra_symbols=$SRC/Module.symvers
build_boards
echo "compat-drivers: built $(wc -l < "$OUT/modules.list") mainline 6.1 modules on our" \
	"headers and can-dev: $(tr '\n' ' ' < "$OUT/modules.list")"
if [ "$IN_TREE" = 0 ]; then
	echo "$key" > "$OUT/.key"
	store
fi
