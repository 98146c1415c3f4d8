#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Linux 6.1 from linux-source-6.1 with our CAN code in place of
# mainline's and the kernel's bug detectors on, for "make check-debug".
#
# The tree and its objects are cached under $CAN_CACHE/debug-KEY, KEY
# being a hash of the config fragments and the source package's version:
# a rerun copies in our current files and rebuilds only what changed,
# which is our objects. Prints shell assignments for vmtest.sh:
# KIMG=... MODROOT=... KVER=...

set -eu

TOP=${CAN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
CACHE=${CAN_CACHE:-/var/cache/can-stack}
FRAG=$TOP/tools/testing/selftests/net/can/debug
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
JOBS=${JOBS:-$(nproc)}

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$(cat "$FRAG/kernel.config" "$FRAG/debug.config" <(echo "$srcver") |
	sha256sum | cut -c1-12)
dir=$CACHE/debug-$key
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

# Our tree replaces mainline's CAN code wholesale. rsync keeps our mtimes,
# so make rebuilds exactly the objects whose sources changed.
overlay() {
	local d

	for d in net/can drivers/net/can include/linux/can include/uapi/linux/can; do
		mkdir -p "$src/$d"
		rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			--exclude='*.mod*' --exclude='modules.order' \
			"$TOP/$d/" "$src/$d/"
	done
	rsync -a "$TOP/include/uapi/linux/can.h" "$src/include/uapi/linux/can.h"
}

configure() {
	mkdir -p "$obj"
	# Merging again each time picks up symbols our Kconfig files gained;
	# an unchanged result rebuilds nothing.
	[ -f "$obj/.config" ] || make -C "$src" O="$obj" allnoconfig >> "$log" 2>&1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$FRAG/kernel.config" "$FRAG/debug.config" >> "$log" 2>&1
	make -C "$src" O="$obj" olddefconfig >> "$log" 2>&1
	local missing
	missing=$(grep -hE '^CONFIG_[A-Z0-9_]+=[ym]' "$FRAG/kernel.config" "$FRAG/debug.config" |
		while read -r line; do grep -qx "$line" "$obj/.config" || echo "$line"; done)
	if [ -n "$missing" ]; then
		echo "can-debug-kernel: options the kernel did not take:" $missing >&2
	fi
}

overlay
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
echo "can-debug-kernel: built $kver in $(( $(date +%s) - start ))s" >&2
echo "KIMG=$obj/arch/x86/boot/bzImage"
echo "MODROOT=$dir/modroot"
echo "KVER=$kver"
