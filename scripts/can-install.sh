#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install our CAN modules into /lib/modules/KVER/updates/, where modprobe
# prefers them to the kernel's own, and take them out again. Install
# refuses when a module of the kernel that needs one we replace would no
# longer load on ours (its modversions CRCs would not match), when the
# DKMS package of this stack is installed for KVER, and while the running
# kernel KVER has a can.ko loaded that is not ours.
#
#   can-install.sh [OPTION...] install MODULE.ko...  paths relative to the tree
#   can-install.sh [OPTION...] check MODULE.ko...    only install's checks
#   can-install.sh [OPTION...] uninstall             what install put there
#   can-install.sh [OPTION...] dkms-check            refuse if install put
#                                                    modules there (DKMS)
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
# FILE=PATH (mainline's can-j1939 that make builds:
# build/j1939/modules/can-j1939.ko=net/can/j1939/can-j1939.ko) and goes
# to updates/PATH. PATH is a relative path of plain names ending in .ko.
# The manifest updates/can-stack.manifest lists what was installed (the
# PATHs), so that uninstall removes exactly that.
#
# Install is one transaction: the journal updates/can-stack.journal lists
# every PATH it may touch before anything is copied, the modules are
# copied next to their place under a name depmod ignores and renamed into
# place together, and depmod runs last. Until the journal is gone an
# install did not finish: uninstall, or the next install, removes
# everything it lists.

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
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0" >&2
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
JOURNAL=$UPDATES/can-stack.journal
# A module being copied waits next to its place under this suffix: depmod
# takes only names ending in .ko (or .ko.xz, ...), so it never sees one.
STAGED=.can-stack-new
# What an install has done so far, for the message if it stops (on_exit).
PHASE=

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

# A PATH we may write or delete: relative, plain names (nothing starting
# with a dot, so no "." or "..", and no empty part), a .ko file, and not
# under updates/dkms/, which is DKMS's.
is_module_path() {
	local name='[A-Za-z0-9_+-][A-Za-z0-9._+-]*'

	[[ $1 =~ ^($name/)*$name\.ko$ ]] && [[ $1 != dkms/* ]]
}

# A directory on the way from updates/ to PATH that is a symbolic link
# would take the write, or the delete, to wherever it points.
through_symlink() {
	local dir=$UPDATES rest=$1

	while [[ $rest = */* ]]; do
		dir=$dir/${rest%%/*}
		rest=${rest#*/}
		[ ! -L "$dir" ] || return 0
	done
	return 1
}

# check_path PATH WHERE: refuse, before anything is changed, a PATH we may
# not write or delete; WHERE says where it came from.
check_path() {
	is_module_path "$1" ||
		die "refusing '$1' ($2): not a module path under updates/ (plain names" \
			"ending in .ko: no leading /, no . or .., no empty part, not under dkms/);" \
			"nothing was changed"
	! through_symlink "$1" ||
		die "refusing '$1' ($2): a directory on its way under $UPDATES is a" \
			"symbolic link; nothing was changed"
	[ ! -d "$UPDATES/$1" ] || [ -L "$UPDATES/$1" ] ||
		die "refusing '$1' ($2): $UPDATES/$1 is a directory; nothing was changed"
}

check_args() {
	local m seen=" "

	for m in "$@"; do
		check_path "$(install_path "$m")" "module argument $m"
		[[ $seen != *" $(install_path "$m") "* ]] ||
			die "refusing '$(install_path "$m")' (module argument $m): given twice"
		seen="$seen$(install_path "$m") "
	done
}

# read_list FILE: append to LISTED the PATHs a manifest or journal lists,
# each checked as install checks its arguments: a damaged or edited file
# must not make us write or delete outside updates/.
read_list() {
	local line n=0

	[ -f "$1" ] || return 0
	while IFS= read -r line; do
		n=$((n + 1))
		[[ -z $line || $line = \#* ]] && continue
		check_path "$line" "line $n of $1"
		LISTED+=("$line")
	done < "$1"
}

# write_list FILE COMMENT PATH...: FILE (manifest or journal) replaced in
# one rename, and on disk before we go on.
write_list() {
	local file=$1 comment=$2

	shift 2
	{
		echo "# $comment"
		printf '%s\n' "$@" | awk '!seen[$0]++'
	} > "$file.new"
	sync "$file.new"
	mv -fT "$file.new" "$file"
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
	local m f files=() magic stale i=0

	[ -f "$TREE/Module.symvers" ] || die "no $TREE/Module.symvers: build first (make)"
	for m in "$@"; do
		f=$(source_file "$m")
		[ -f "$f" ] || die "no $f: build first (make)"
		files+=("$f")
	done
	# A module built for another kernel would not load; say so now. One
	# modinfo for all: a process per module is what makes an install slow
	# in an emulated guest. A file without the field would shift the
	# lines: then each is asked alone, so that the message names it.
	mapfile -t magic < <(modinfo -F vermagic "${files[@]}" 2>/dev/null | awk '{ print $1 }')
	if [ ${#magic[@]} -ne ${#files[@]} ]; then
		magic=()
		for f in "${files[@]}"; do
			magic+=("$(modinfo -F vermagic "$f" 2>/dev/null | awk '{ print $1 }')")
		done
	fi
	for f in "${files[@]}"; do
		[ "${magic[i]:-}" = "$KVER" ] ||
			die "$f was built for ${magic[i]:-no kernel}, not $KVER (make KVER=$KVER)"
		i=$((i + 1))
	done
	stale=$(stale_imports "${files[@]}")
	[ -z "$stale" ] ||
		die "${stale%%: *} was built on another build of our modules (${stale#*: }): make again"
}

# "FILE: symbol, ..." for the first FILE that imports symbols of ours with
# a CRC other than our Module.symvers gives: a module built outside the
# tree (can-j1939) against an earlier build of our core would not load on
# this one. Nothing if there is none.
stale_imports() {
	local f

	for f in "$@"; do
		echo "@module $f"
		module_crcs "$f"
	done | awk '
		function crc(c) { c = tolower(c); sub(/^0x0*/, "", c); return c }
		FILENAME == ARGV[1] { ours[$2] = $1; next }
		$1 == "@module" { if (out != "") exit; mod = $2; next }
		($2 in ours) && crc(ours[$2]) != crc($1) { out = out (out == "" ? "" : ", ") $2 }
		END { if (out != "") print mod ": " out }
	' "$TREE/Module.symvers" -
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

	# One pass of awk over the CRCs of all of them, each module's after a
	# line "@module PATH": a process per module is what makes this slow
	# in an emulated guest.
	while read -r path; do
		[[ $path = /* ]] || path=$tree/$path
		echo "@module ${path#"$tree"/}"
		module_crcs "$path"
	done < "$WORK/users" | awk '
		function crc(c) { c = tolower(c); sub(/^0x0*/, "", c); return c }
		function add(s) { out = out (out == "" ? "" : ", ") s }
		function report() { if (out != "") print mod ": " out; out = "" }
		FILENAME == ARGV[1] { ours[$2] = $1; next }
		FILENAME == ARGV[2] { provided[$1] = 1; next }
		$1 == "@module" { report(); mod = $2; next }
		!($2 in provided) && !($2 in ours) { next }
		!($2 in ours) { add($2 " (ours does not export it)"); next }
		crc(ours[$2]) != crc($1) { add($2 " (needs CRC " $1 ", ours is " ours[$2] ")") }
		END { report() }
	' "$TREE/Module.symvers" "$WORK/provided" -
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
			echo "Or replace can-j1939 too, with nothing lost: make (as"
			echo "yourself; Linux 6.1 only) builds mainline's J1939 on our"
			echo "core, build/j1939/modules/can-j1939.ko, and make install"
			echo "then puts it in place of the kernel's unless given J1939=0"
			echo "(J1939=1: refuse if it was not built)."
		fi
	} >&2
	exit 1
}

# DKMS keeps its own copy of the stack for KVER (Debian's DKMS puts it in
# updates/dkms/). Next to ours, depmod could take can.ko from one build and
# can-raw.ko from the other, which do not work together.
dkms_copies() {
	local m f names=" "

	for m in "$@"; do
		names="$names$(module_name "$m") "
	done
	[ ! -d "$UPDATES/dkms" ] || find "$UPDATES/dkms" -name '*.ko*' | sort |
		while read -r f; do
			[[ $names != *" $(module_name "$f") "* ]] || echo "$f"
		done
	for f in "$DESTDIR"/var/lib/dkms/can-stack/kernel-"$KVER"-*; do
		[ ! -e "$f" ] || echo "$f -> $(readlink "$f")"
	done
}

check_dkms() {
	local found

	found=$(dkms_copies "$@")
	[ -n "$found" ] || return 0
	{
		echo "$ME: refusing to install: DKMS has this CAN stack (can-stack-dkms) installed for $KVER:"
		echo "$found" | sed 's/^/  /'
		echo "With both, depmod may take can.ko from one build and can-raw.ko from the other."
		echo "Remove the package first (apt remove can-stack-dkms; for this kernel only:"
		echo "dkms remove can-stack/VERSION -k $KVER), or keep it instead. Nothing was changed."
	} >&2
	exit 1
}

# The counterpart for DKMS's build: refuse while make install's modules
# are in updates/ for KVER (or an unfinished install's).
do_dkms_check() {
	local tree

	[ -f "$MANIFEST" ] || [ -f "$JOURNAL" ] || return 0
	tree=$(sed -s -n '1s/.* from \(.*\); make uninstall.*/\1/p' "$MANIFEST" "$JOURNAL" \
		2>/dev/null | head -1)
	{
		echo "$ME: refusing to build for $KVER: make install put this CAN stack in $UPDATES"
		echo "(can-stack.manifest); DKMS's copy next to it would let depmod take can.ko from"
		echo "one build and can-raw.ko from the other. Remove it first, as root in"
		echo "${tree:-the tree it came from}: make uninstall KVER=$KVER; then dkms install"
		echo "can-stack again. Or keep it, and remove can-stack-dkms."
	} >&2
	exit 1
}

file_build_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# Ours is loaded if it exports can_stack_core_v<N> (every core of ours
# since that symbol came; N follows the layout of struct can_ml_priv), or
# if it is one of FILE...: by GNU build ID, which the kernel shows for a
# loaded module (our modules have no srcversion).
our_core_is_loaded() {
	local note f id

	awk '$4 == "[can]" && $3 ~ /^(__ksymtab_)?can_stack_core_v[0-9]+$/ {
		found = 1; exit } END { exit !found }' /proc/kallsyms && return 0
	note=$(od -An -tx1 -v /sys/module/can/notes/.note.gnu.build-id 2>/dev/null | tr -d ' \n')
	[ -n "$note" ] || return 1
	for f in "$@"; do
		id=$(file_build_id "$f")
		[ -z "$id" ] || [ "${note: -${#id}}" != "$id" ] || return 0
	done
	return 1
}

# NAME and every loaded module that needs it, users first: what
# modprobe -r must be given to unload NAME.
with_users() {
	local h

	for h in "/sys/module/$1/holders"/*; do
		[ ! -e "$h" ] || with_users "${h##*/}"
	done
	echo "$1"
}

# While the running kernel holds a can.ko that is not ours (the kernel's
# own), our modules put in place now would be loaded over it by the next
# modprobe: our protocols would bind to its symbols, and our drivers would
# hand it a per-device room laid out for our core, far smaller than the
# receive lists it keeps there. Only the running kernel matters; a
# DESTDIR stage or another kernel takes effect at the next boot. LISTED
# holds what the manifest and journal list (read_list).
check_loaded_core() {
	local m p ours=() unload

	[ -z "$DESTDIR" ] && [ "$(uname -r)" = "$KVER" ] && [ -d /sys/module/can ] || return 0
	for m in "$@"; do
		if [ "$(module_name "$m")" = can ]; then
			ours+=("$(source_file "$m")")
		fi
	done
	for p in "${LISTED[@]}"; do
		if [ "$(module_name "$p")" = can ]; then
			ours+=("$UPDATES/$p")
		fi
	done
	! our_core_is_loaded "${ours[@]}" || return 0
	[ -e /sys/module/can/initstate ] ||
		die "refusing to install: the running kernel ($KVER) has its own CAN core built" \
			"in, which our modules cannot run on; nothing was changed"
	unload=$(with_users can | awk '!seen[$0]++' | tr '\n' ' ')
	{
		echo "$ME: refusing to install: the running kernel ($KVER) has a can.ko loaded that is not this stack's"
		echo "(the kernel's own). Our modules put in place now would be loaded over it by the next"
		echo "modprobe, and cannot run on another CAN core (our vcan would crash it). Unload it"
		echo "first, then install again:"
		echo "  modprobe -r ${unload% }"
		echo "(if a module is in use, close the programs' CAN sockets and delete CAN interfaces"
		echo "first). Nothing was changed."
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

# The directories under updates/ on the way to PATH that are empty.
remove_empty_dirs() {
	local dir

	dir=$UPDATES/$1
	dir=${dir%/*}
	while [ "$dir" != "$UPDATES" ] && rmdir "$dir" 2>/dev/null; do
		dir=${dir%/*}
	done
}

# Remove a file we installed (or its copy still waiting under STAGED), and
# the directories it leaves empty.
remove_installed() {
	local f=$UPDATES/$1

	rm -f "$f$STAGED"
	if [ -e "$f" ] || [ -L "$f" ]; then
		rm -f "$f"
		echo "$ME: removed $f"
	fi
	remove_empty_dirs "$1"
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

# Is PATH one of the rest of the arguments?
is_in() {
	local p=$1

	shift
	printf '%s\n' "$@" | grep -qxF -- "$p"
}

# Say how far an install came if it stops (set -e, or a signal), and take
# back copies that were not yet put in place.
on_exit() {
	local p

	case $PHASE in
	copy)
		for p in "${NEW[@]}"; do
			rm -f "$UPDATES/$p$STAGED"
			remove_empty_dirs "$p"
		done
		[ "$HAD_JOURNAL" = 1 ] || rm -f "$JOURNAL"
		echo "$ME: install stopped before putting any module in place;" \
			"the modules installed before are unchanged" >&2
		;;
	commit)
		echo "$ME: install stopped while putting modules in place; make uninstall" \
			"(or make install) removes all it may have left, listed in $JOURNAL" >&2
		;;
	depmod)
		echo "$ME: the modules are in place, but depmod failed: make install again," \
			"or make uninstall" >&2
		;;
	esac
	rm -rf "$WORK"
}

# One transaction: every check first; then the journal, which lists all
# that was installed or may be after this; the copies, under STAGED names;
# the renames into place, with signals held off so that the set in
# updates/ is mixed only for that moment; the manifest; depmod; and last
# the journal goes. Whenever it stops, uninstall finds every file.
do_install() {
	local m p old staged=() dirs=()

	[ $# -gt 0 ] || usage
	check_args "$@"
	check_built "$@"
	LISTED=()
	read_list "$MANIFEST"
	read_list "$JOURNAL"
	old=("${LISTED[@]}")
	check_dkms "$@"
	check_loaded_core "$@"
	check_users "$@"
	NEW=()
	for m in "$@"; do
		NEW+=("$(install_path "$m")")
	done

	HAD_JOURNAL=0
	if [ -f "$JOURNAL" ]; then
		HAD_JOURNAL=1
		echo "$ME: an earlier install into $UPDATES did not finish; this one removes what it left"
	fi
	mkdir -p "$UPDATES"
	PHASE=copy
	write_list "$JOURNAL" "CAN stack modules an unfinished install by $ME from $TREE may have left; make uninstall removes them" \
		"${old[@]}" "${NEW[@]}"
	for p in "${NEW[@]}"; do
		p=$UPDATES/$p
		dirs+=("${p%/*}")
	done
	mkdir -p "${dirs[@]}"
	for m in "$@"; do
		p=$(install_path "$m")
		install -m 644 "$(source_file "$m")" "$UPDATES/$p$STAGED"
		staged+=("$UPDATES/$p$STAGED")
	done
	sync "${staged[@]}"

	trap '' INT TERM HUP
	PHASE=commit
	for p in "${NEW[@]}"; do
		mv -fT "$UPDATES/$p$STAGED" "$UPDATES/$p"
	done
	# Modules of an earlier install that this one leaves out (DRIVERS=1
	# then without) go, so that the manifest stays the truth.
	for p in "${old[@]}"; do
		is_in "$p" "${NEW[@]}" || remove_installed "$p"
	done
	write_list "$MANIFEST" "CAN stack modules installed by $ME from $TREE; make uninstall removes them" \
		"${NEW[@]}"
	PHASE=depmod
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	for m in "$@"; do
		echo "$ME: installed $UPDATES/$(install_path "$m") (from $(source_file "$m"))"
	done
	run_depmod
	rm -f "$JOURNAL"
	PHASE=
	show_resolved "$@"
	warn_if_loaded "$@"
}

# Removes what the manifest lists, and what the journal of an unfinished
# install does.
do_uninstall() {
	local p mods

	if [ ! -f "$MANIFEST" ] && [ ! -f "$JOURNAL" ]; then
		echo "$ME: nothing to uninstall: no $MANIFEST"
		return 0
	fi
	LISTED=()
	read_list "$MANIFEST"
	read_list "$JOURNAL"
	[ ! -f "$JOURNAL" ] ||
		echo "$ME: an install into $UPDATES did not finish: removing all it may have left"
	mapfile -t mods < <(printf '%s\n' "${LISTED[@]}" | awk 'NF && !seen[$0]++')
	for p in "${mods[@]}"; do
		remove_installed "$p"
	done
	rm -f "$MANIFEST" "$JOURNAL"
	rmdir "$UPDATES" 2>/dev/null || true
	run_depmod
	show_resolved "${mods[@]}"
	warn_if_loaded "${mods[@]}"
}

WORK=$(mktemp -d)
NEW=()
HAD_JOURNAL=0
LISTED=()
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

case $ACTION in
install) do_install "$@" ;;
check)
	[ $# -gt 0 ] || usage
	check_args "$@"
	check_built "$@"
	check_users "$@"
	echo "$ME: ok"
	;;
uninstall) do_uninstall ;;
dkms-check) do_dkms_check ;;
*) usage ;;
esac
