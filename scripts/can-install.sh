#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install our CAN modules into /lib/modules/KVER/updates/, where modprobe
# prefers them to the kernel's own, and take them out again. Install
# refuses when a module of the kernel that needs one we replace would no
# longer load on ours (its modversions CRCs would not match).
#
#   can-install.sh [OPTION...] install MODULE.ko...  paths relative to the tree
#   can-install.sh [OPTION...] check MODULE.ko...    only install's checks
#   can-install.sh [OPTION...] uninstall             what install put there
#
#   --kver KVER     the kernel to install for (required)
#   --destdir DIR   install under DIR/lib/modules/KVER; depmod -b DIR runs
#                   only if DIR holds a module tree (modules.order)
#   --tree DIR      where the built modules and Module.symvers are
#                   (default: the tree this script belongs to)
#   --force         install even if modules of the kernel stop loading
#
# Each module keeps its path in the tree under updates/, e.g.
# updates/net/can/can.ko; a module built elsewhere is given as
# FILE=PATH (mainline's can-j1939 from make compat-build:
# build/compat/modules/can-j1939.ko=net/can/j1939/can-j1939.ko) and goes
# to updates/PATH. The manifest updates/can-stack.manifest lists what was
# installed (the PATHs), so that uninstall removes exactly that.

set -eu

ME=can-install
TREE=$(cd "$(dirname "$0")/.." && pwd)
KVER=
DESTDIR=
FORCE=0

die() {
	echo "$ME: $*" >&2
	exit 1
}

usage() {
	sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift 2 ;;
	--destdir) DESTDIR=$2; shift 2 ;;
	--tree) TREE=$2; shift 2 ;;
	--force) FORCE=1; shift ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] && [ -n "$KVER" ] || usage
ACTION=$1
shift

MODDIR=$DESTDIR/lib/modules/$KVER
UPDATES=$MODDIR/updates
MANIFEST=$UPDATES/can-stack.manifest

# A module argument is PATH or FILE=PATH: where it is installed under
# updates/, and the file it comes from (relative to the tree unless
# absolute).
install_path() {
	echo "${1#*=}"
}

source_file() {
	local f=${1%%=*}

	[[ $f = /* ]] || f=$TREE/$f
	echo "$f"
}

# The module name the kernel uses for a file: no directory, no .ko or
# compression suffix, dashes as underscores.
module_name() {
	local n=${1##*/}

	n=${n%.ko*}
	echo "${n//-/_}"
}

# The module tree whose users we must not break: the one under DESTDIR if
# it has indexes, else the installed kernel's.
target_tree() {
	if [ -f "$MODDIR/modules.dep" ]; then
		echo "$MODDIR"
	elif [ -f "/lib/modules/$KVER/modules.dep" ]; then
		echo "/lib/modules/$KVER"
	fi
}

# modversions CRCs a module needs, "0xCRC<TAB>symbol" per line; the file
# may be compressed, whether or not kmod was built to read it.
module_crcs() {
	local f=$1 tmp

	case $f in
	*.xz|*.zst|*.gz)
		tmp=$(mktemp)
		case $f in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -qdc "$f" ;;
		*.gz) gzip -dc "$f" ;;
		esac > "$tmp"
		modprobe --dump-modversions "$tmp"
		rm -f "$tmp"
		;;
	*)
		modprobe --dump-modversions "$f"
		;;
	esac
}

check_built() {
	local m f vermagic

	[ -f "$TREE/Module.symvers" ] || die "no $TREE/Module.symvers: build first (make)"
	for m in "$@"; do
		f=$(source_file "$m")
		[ -f "$f" ] || die "no $f: build first (make; make compat-build for can-j1939)"
		# A module built for another kernel would not load; say so now.
		vermagic=$(modinfo -F vermagic "$f" | awk '{ print $1 }')
		[ "$vermagic" = "$KVER" ] ||
			die "$f was built for $vermagic, not $KVER (make KVER=$KVER)"
	done
}

# Print "MODULE-PATH: symbol (reason), ..." for each module of the target
# tree that needs a module we replace and would not load on ours. A symbol
# counts when the replaced module provides it today, or ours exports it.
find_broken_users() {
	local tree=$1 replaced=$2 path problems

	# Symbols the modules we replace provide today.
	awk -v replaced=" $replaced " '$1 == "alias" && index(replaced, " " $3 " ") {
		sub(/^symbol:/, "", $2); print $2 }' "$tree/modules.symbols" > "$WORK/provided"

	# Modules that need (directly or not) a module we replace, and are
	# not replaced themselves.
	awk -v replaced=" $replaced " '
		function name(p) { sub(/.*\//, "", p); sub(/\.ko.*/, "", p); gsub(/-/, "_", p); return p }
		{ sub(/:$/, "", $1) }
		index(replaced, " " name($1) " ") { next }
		{ for (i = 2; i <= NF; i++) if (index(replaced, " " name($i) " ")) { print $1; next } }
	' "$tree/modules.dep" > "$WORK/users"

	while read -r path; do
		[[ $path = /* ]] || path=$tree/$path
		problems=$(module_crcs "$path" | awk '
			function crc(c) { c = tolower(c); sub(/^0x0*/, "", c); return c }
			FILENAME == ARGV[1] { ours[$2] = $1; next }
			FILENAME == ARGV[2] { provided[$1] = 1; next }
			function add(s) { out = out (out == "" ? "" : ", ") s }
			!($2 in provided) && !($2 in ours) { next }
			!($2 in ours) { add($2 " (ours does not export it)"); next }
			crc(ours[$2]) != crc($1) { add($2 " (needs CRC " $1 ", ours is " ours[$2] ")") }
			END { if (out != "") print out }
		' "$TREE/Module.symvers" "$WORK/provided" -)
		[ -z "$problems" ] || echo "${path#"$tree"/}: $problems"
	done < "$WORK/users"
}

check_users() {
	local tree replaced="" m broken

	tree=$(target_tree)
	if [ -z "$tree" ]; then
		[ "$FORCE" = 1 ] && return 0
		die "no module tree for $KVER (modules.dep) to check what our modules" \
			"would replace; FORCE=1 installs without the check"
	fi
	for m in "$@"; do
		replaced="$replaced $(module_name "$m")"
	done
	broken=$(find_broken_users "$tree" "$replaced")
	[ -n "$broken" ] || return 0
	if [ "$FORCE" = 1 ]; then
		echo "$ME: FORCE=1: these modules of $KVER will no longer load:" >&2
		echo "$broken" | sed 's/^/  /' >&2
		return 0
	fi
	{
		echo "$ME: refusing to install: these modules of $KVER would no longer load,"
		echo "because they need symbols of a module we replace and ours differ"
		echo "(modversions CRC) or are missing:"
		echo "$broken" | sed 's/^/  /'
		echo "Install anyway, and lose those modules, with FORCE=1 (make install FORCE=1;"
		echo "for the DKMS package, CAN_STACK_FORCE=1 in dkms's environment);"
		echo "make uninstall brings them back."
		if echo "$broken" | grep -q "/can-j1939\.ko"; then
			echo "can-j1939 can be replaced instead: make compat-build, then"
			echo "make install J1939=1 (mainline's J1939 built on our core)."
		fi
	} >&2
	exit 1
}

run_depmod() {
	if [ -z "$DESTDIR" ]; then
		depmod "$KVER"
	elif [ -f "$MODDIR/modules.order" ]; then
		depmod -b "$DESTDIR" "$KVER"
	else
		echo "$ME: $MODDIR is no module tree; run depmod $KVER on the target"
	fi
}

# Remove a file we installed, and the directories under updates/ it leaves
# empty.
remove_installed() {
	local dir

	rm -f "$UPDATES/$1"
	dir=$(dirname "$UPDATES/$1")
	while [ "$dir" != "$UPDATES" ] && rmdir "$dir" 2>/dev/null; do
		dir=$(dirname "$dir")
	done
}

# Where modprobe now finds each module.
show_resolved() {
	local m

	for m in "$@"; do
		echo "$ME: modprobe $(module_name "$m") -> $(modinfo ${DESTDIR:+-b "$DESTDIR"} \
			-k "$KVER" -n "$(module_name "$m")" 2>/dev/null || echo "(none)")"
	done
}

# The running kernel keeps what it loaded until the modules are removed.
warn_if_loaded() {
	local m

	[ -z "$DESTDIR" ] && [ "$(uname -r)" = "$KVER" ] || return 0
	for m in "$@"; do
		if [ -d "/sys/module/$(module_name "$m")" ]; then
			echo "$ME: $(module_name "$m") is loaded: the change takes effect" \
				"once the CAN modules are unloaded (modprobe -r) or after a reboot"
			return 0
		fi
	done
}

do_install() {
	local m old paths

	[ $# -gt 0 ] || usage
	check_built "$@"
	check_users "$@"
	mkdir -p "$UPDATES"
	# Modules of an earlier install that this one leaves out (DRIVERS=1
	# then without) go, so that the manifest stays the truth.
	paths=$(for m in "$@"; do install_path "$m"; done)
	if [ -f "$MANIFEST" ]; then
		while read -r old; do
			[[ $old = \#* ]] && continue
			echo "$paths" | grep -qxF "$old" || remove_installed "$old"
		done < "$MANIFEST"
	fi
	{
		echo "# CAN stack modules installed by $ME from $TREE; make uninstall removes them"
		echo "$paths"
	} > "$MANIFEST.new"
	for m in "$@"; do
		install -D -m 644 "$(source_file "$m")" "$UPDATES/$(install_path "$m")"
		echo "$ME: installed $UPDATES/$(install_path "$m") (from $(source_file "$m"))"
	done
	mv "$MANIFEST.new" "$MANIFEST"
	run_depmod
	show_resolved "$@"
	warn_if_loaded "$@"
}

do_uninstall() {
	local m mods=()

	if [ ! -f "$MANIFEST" ]; then
		echo "$ME: nothing to uninstall: no $MANIFEST"
		return 0
	fi
	while read -r m; do
		[[ $m = \#* ]] || [ -z "$m" ] || mods+=("$m")
	done < "$MANIFEST"
	for m in "${mods[@]}"; do
		remove_installed "$m"
		echo "$ME: removed $UPDATES/$m"
	done
	rm -f "$MANIFEST"
	rmdir "$UPDATES" 2>/dev/null || true
	run_depmod
	show_resolved "${mods[@]}"
	warn_if_loaded "${mods[@]}"
}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

case $ACTION in
install) do_install "$@" ;;
check) [ $# -gt 0 ] || usage; check_built "$@"; check_users "$@"; echo "$ME: ok" ;;
uninstall) do_uninstall ;;
*) usage ;;
esac
