#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Linux 6.1 from linux-source-6.1 with our CAN code in place of
# mainline's and the kernel's bug detectors on, for "make check-debug".
#
# The tree and its objects are cached under $CAN_CACHE/debug-KEY, KEY
# being a hash of the source package's version, the compiler and the
# debug fragment (whose options change how every object is compiled).
# A rerun copies in our current files, regenerates the configuration and
# rebuilds only what changed: our objects, and what an edit of the
# kernel.config fragment touches. Prints shell assignments for vmtest.sh:
# KIMG=... MODROOT=... KVER=...
#
# CAN_DEBUG_CAN=mainline builds the same kernel with mainline's CAN code
# left in place (its own cache directory, no test modules): the fuzzer's
# reference, to tell what the debug kernel does under a load from what
# our code does.

set -eu

# Only the assignments at the end go to standard output, which callers
# eval; everything the build tools print goes to standard error.
exec 3>&1 1>&2

TOP=${CAN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
CACHE=${CAN_CACHE:-/var/cache/can-stack}
FRAG=$TOP/tools/testing/selftests/net/can/debug
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
JOBS=${JOBS:-$(nproc)}
TESTMODS=$TOP/build/debug-testmods

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({ echo "$srcver"; gcc --version | head -1; cat "$FRAG/debug.config"; } |
	sha256sum | cut -c1-12)
CAN_CODE=${CAN_DEBUG_CAN:-ours}
case $CAN_CODE in
ours) flavour= ;;
mainline) flavour=mainline- ;;
*) echo "can-debug-kernel: CAN_DEBUG_CAN is ours or mainline, not $CAN_CODE" >&2; exit 2 ;;
esac
# Resolved, so that the paths recorded in the objects never change.
dir=$(realpath -m "$CACHE/debug-$flavour$key")
src=$dir/linux-source-6.1
obj=$dir/obj
log=$dir/build.log

mkdir -p "$dir"
if [ ! -f "$src/.can-extracted" ]; then
	echo "can-debug-kernel: unpacking linux-source-6.1 $srcver into $dir" >&2
	rm -rf "$src"
	tar -C "$dir" -xJf "$SRC_TAR"
	touch "$src/.can-extracted"
fi

# Our tree replaces mainline's CAN code wholesale. Several trees share the
# cache, so a source may be older than an object built from another
# tree's copy: rsync compares contents (-c) and gives a file it rewrites
# the current time (no -t), so make rebuilds exactly what differs from
# the last build, whichever tree that came from.
CAN_RSYNC="rsync -rlpgoD -c --delete"

# Mainline's drivers that ours do not replace stay in the tree, as in the
# patch series (scripts/series/replaced names what goes), and so does its
# net/can/j1939, which our net/can/Kconfig sources: unpacked once beside
# it, without the replaced files, and copied in with ours.
keep=$dir/mainline-drivers
mainline_drivers() {
	local p

	if cmp -s "$TOP/scripts/series/replaced" "$keep.replaced" &&
	   [ -d "$keep/net/can/j1939" ]; then
		return
	fi
	rm -rf "$keep"
	mkdir -p "$keep"
	tar -C "$keep" -xJf "$SRC_TAR" --strip-components=1 linux-source-6.1/drivers/net/can \
		linux-source-6.1/net/can/j1939
	grep -v '^#' "$TOP/scripts/series/replaced" | while read -r p; do
		rm -rf "${keep:?}/$p"
	done
	cp "$TOP/scripts/series/replaced" "$keep.replaced"
}

overlay() {
	local d also

	mainline_drivers
	for d in net/can drivers/net/can include/linux/can include/uapi/linux/can; do
		mkdir -p "$src/$d"
		also=
		if [ "$d" = drivers/net/can ] || [ "$d" = net/can ]; then
			also=$keep/$d/
		fi
		$CAN_RSYNC --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			--exclude='*.mod*' --exclude='modules.order' --exclude=Makefile \
			"$TOP/$d/" $also "$src/$d/"
		kcov_makefiles "$d" "$TOP"
		if [ -n "$also" ]; then
			kcov_makefiles "$d" "$keep"
		fi
	done
	$CAN_RSYNC "$TOP/include/uapi/linux/can.h" "$src/include/uapi/linux/can.h"
	# A cache filled by the older, mtime-keeping copy may hold objects
	# newer than their sources: rebuild our code once to be sure.
	if [ ! -f "$src/.can-overlay-by-content" ]; then
		find "$src/net/can" "$src/drivers/net/can" "$src/include/linux/can" \
			"$src/include/uapi/linux/can" "$src/include/uapi/linux/can.h" \
			-type f -exec touch {} +
		touch "$src/.can-overlay-by-content"
	fi
}

# KCOV instruments only our directories (CONFIG_KCOV_INSTRUMENT_ALL is
# off, so the rest of the kernel runs at full speed): each of our
# Makefiles is copied with KCOV_INSTRUMENT set, a variable that applies
# to its own directory only. A copy is rewritten only when it differs,
# so an unchanged Makefile rebuilds nothing.
kcov_makefiles() {
	local d=$1 mk dst
	# $2: the tree whose Makefiles are taken (ours, or the pristine one)

	find "$2/$d" -name Makefile | while read -r mk; do
		dst=$src/$d/${mk#"$2/$d/"}
		{ cat "$mk"; echo; echo 'KCOV_INSTRUMENT := y'; } > "$dst.can-new"
		if cmp -s "$dst.can-new" "$dst"; then
			rm "$dst.can-new"
		else
			mv "$dst.can-new" "$dst"
		fi
	done
}

# The configuration is allnoconfig plus both fragments, made afresh each
# run into a side file and copied over .config only when it differs, so
# an unchanged configuration rebuilds nothing and a changed one rebuilds
# only what depends on the options that changed.
configure() {
	local want=$obj/.config.want missing

	mkdir -p "$obj"
	export KCONFIG_CONFIG=$want
	make -C "$src" O="$obj" allnoconfig >> "$log" 2>&1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$want" \
		"$FRAG/kernel.config" "$FRAG/debug.config" >> "$log" 2>&1
	make -C "$src" O="$obj" olddefconfig >> "$log" 2>&1
	unset KCONFIG_CONFIG
	cmp -s "$want" "$obj/.config" || cp "$want" "$obj/.config"
	missing=$(grep -hE '^CONFIG_[A-Z0-9_]+=[ym]' "$FRAG/kernel.config" "$FRAG/debug.config" |
		while read -r line; do grep -qx "$line" "$obj/.config" || echo "$line"; done)
	if [ -n "$missing" ]; then
		echo "can-debug-kernel: options the kernel did not take:" $missing >&2
	fi
}

# The selftests' own modules (fake and modelled chips: every directory
# with a Kbuild file) are built from a copy, so that the objects built
# for Debian's kernel next to their sources stay intact. The tests find
# them through CAN_TESTMODS, which run_debug.sh sets.
build_test_modules() {
	local kbuild d out

	for kbuild in "$TOP"/tools/testing/selftests/net/can/*/Kbuild; do
		d=$(dirname "$kbuild")
		out=$TESTMODS/$(basename "$d")
		mkdir -p "$out"
		$CAN_RSYNC --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
			"$d/" "$out/"
		if ! make -C "$src" O="$obj" M="$out" CAN_SRC="$TOP" W=1 modules \
			>> "$log" 2>&1; then
			grep -E 'error|warning:' "$log" | tail -20 >&2
			exit 1
		fi
	done
}

# Mainline's CAN Makefiles, with KCOV on as for ours. The pristine copy
# they come from is kept beside the tree, so a rerun finds it unchanged.
mainline_kcov() {
	local d

	for d in net/can drivers/net/can; do
		if [ ! -d "$dir/pristine/$d" ]; then
			mkdir -p "$dir/pristine/$d"
			$CAN_RSYNC "$src/$d/" "$dir/pristine/$d/"
		fi
		kcov_makefiles "$d" "$dir/pristine"
	done
}

if [ "$CAN_CODE" = ours ]; then
	overlay
else
	mainline_kcov
fi
: > "$log"
configure
echo "can-debug-kernel: building in $obj (log: $log)" >&2
start=$(date +%s)
if ! make -C "$src" O="$obj" -j"$JOBS" bzImage modules >> "$log" 2>&1; then
	grep -E 'error|Error|warning:' "$log" | tail -40 >&2
	exit 1
fi
kver=$(make -s -C "$src" O="$obj" kernelrelease)
rm -rf "$dir/modroot"
make -C "$src" O="$obj" INSTALL_MOD_PATH="$dir/modroot" modules_install >> "$log" 2>&1
if [ "$CAN_CODE" = ours ]; then
	build_test_modules
	# Mainline's drivers on our in-tree can-dev, for ctucanfd.sh.
	"$TOP/scripts/can-compat-drivers.sh" --in-tree "$obj" "$TOP" "$TESTMODS/compat" \
		>> "$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
fi
echo "can-debug-kernel: built $kver in $(( $(date +%s) - start ))s" >&2
echo "KIMG=$obj/arch/x86/boot/bzImage" >&3
echo "MODROOT=$dir/modroot" >&3
echo "KVER=$kver" >&3
