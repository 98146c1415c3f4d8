#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a QEMU guest that boots Debian's kernel with our CAN
# modules. The guest sees the host's root read-only over virtio-9p with a
# tmpfs overlay on top, so host paths (our build tree, can-utils) work
# unchanged. Our .ko files go to /lib/modules/$KVER/updates/ and Debian's
# own CAN modules are removed from the guest's view before depmod runs, so
# modprobe and socket() autoload can only find ours.
#
#   vmtest.sh [--kver KVER] [--qemu-args ARGS] [--timeout SECS] -- CMD [ARG...]
#   vmtest.sh [--kver KVER] [--qemu-args ARGS] --interactive
#   vmtest.sh --keep-mainline ...      (benchmarks only, see bench.sh)
#   vmtest.sh --kernel BZIMAGE --modroot DIR --kver KVER -- CMD [ARG...]
#
# With --kernel the guest boots that image (the debug kernel of "make
# check-debug", which has virtio, 9p and overlayfs built in) and takes its
# modules, ours among them, from DIR/lib/modules/KVER.
#
# The command's output appears on stdout; the exit status is the command's.
# A kernel oops, BUG, WARNING, lockdep or RCU report, or panic fails the run
# (exit 125) and the kernel log is printed.

set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
KVER=
KIMG=
MODROOT=
QEMU_ARGS=${VMTEST_QEMU_ARGS:-}
TIMEOUT=900
INTERACTIVE=0
KEEP_MAINLINE=0
MEM=${VMTEST_MEM:-1024}
SMP=${VMTEST_SMP:-1}

usage() {
	sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift 2 ;;
	--kernel) KIMG=$2; shift 2 ;;
	--modroot) MODROOT=$2; shift 2 ;;
	--qemu-args) QEMU_ARGS="$QEMU_ARGS $2"; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--interactive) INTERACTIVE=1; shift ;;
	--keep-mainline) KEEP_MAINLINE=1; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) break ;;
	esac
done
[ $INTERACTIVE = 1 ] || [ $# -gt 0 ] || usage
if [ $# -gt 0 ] && [ ! -x "$1" ] && ! command -v "$1" > /dev/null; then
	echo "vmtest: $1: no such program" >&2
	exit 2
fi

if [ -z "$KVER" ]; then
	KVER=$("$TOP/scripts/can-deps.sh" kver) || exit 2
fi
if [ -z "$KIMG" ]; then
	KIMG=/boot/vmlinuz-$KVER
	[ -d "/lib/modules/$KVER/kernel" ] || { echo "vmtest: no modules for $KVER" >&2; exit 2; }
fi
[ -r "$KIMG" ] || { echo "vmtest: no kernel image $KIMG (make deps)" >&2; exit 2; }

VMDIR=$BUILD/vm
mkdir -p "$VMDIR"

# The initramfs only has to reach the shared root: busybox plus the
# modules for virtio-pci, 9p and overlayfs, in dependency order.
build_initramfs() {
	local flavour=$KVER

	[ -n "$MODROOT" ] && flavour=builtin
	local out=$VMDIR/initramfs-$flavour.cpio.gz
	# Per run, and the image renamed into place: guests that start
	# together (make check runs several) may all build it.
	local stage=$VMDIR/initramfs-$flavour.$$
	local m dep

	if [ -f "$out" ] && [ "$out" -nt "$HERE/vm-init.sh" ] && [ "$out" -nt "$0" ]; then
		echo "$out"
		return
	fi
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,dev,proc,sys,mnt,newroot,modules}
	cp /bin/busybox "$stage/bin/busybox"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		[ -n "$MODROOT" ] && break
		modprobe -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' > "$stage/modules/order.tmp"
	: > "$stage/modules/order"
	# Debian's 6.12 modules are .ko.xz, which busybox's insmod may not
	# read: the initramfs gets them uncompressed.
	while read -r dep; do
		m=$(basename "$dep" .xz)
		case $dep in
		*.xz) xz -dc "$dep" > "$stage/modules/$m" ;;
		*) cp "$dep" "$stage/modules/" ;;
		esac
		echo "$m" >> "$stage/modules/order"
	done < "$stage/modules/order.tmp"
	rm "$stage/modules/order.tmp"
	cat > "$stage/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs dev /dev
while read -r m; do
	insmod "/modules/$m" || echo "initramfs: insmod $m failed"
done < /modules/order
mkdir -p /mnt/lower /mnt/rw
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /mnt/lower ||
	{ echo "initramfs: cannot mount host root"; poweroff -f; }
mount -t tmpfs -o size=80% rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	overlay /newroot ||
	{ echo "initramfs: cannot mount overlay"; poweroff -f; }
stage2=$(sed -n 's/.*canvm\.init=\([^ ]*\).*/\1/p' /proc/cmdline)
for d in proc sys dev; do mount -o move /$d /newroot/$d; done
exec switch_root /newroot "$stage2"
EOF
	chmod +x "$stage/init"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.$$"
	mv "$out.$$" "$out"
	rm -rf "$stage"
	echo "$out"
}

INITRD=$(build_initramfs)

# The guest reads what to run from a file we write here; the file also
# carries the module list, so a stale build never leaks into a run. Each
# run has its own directory, so that guests can run side by side.
RUN=$VMDIR/run.$$
mkdir -p "$RUN"
trap 'rm -rf "$RUN"' EXIT

# depmod over Debian's whole module tree takes half a minute under TCG, so
# run it here on a tree of symlinks that has our modules in updates/ and
# none of Debian's CAN modules; the guest copies the resulting indexes.
stage_modules() {
	local root=$RUN/modroot
	local dir=$root/lib/modules/$KVER
	local f

	rm -rf "$root"
	mkdir -p "$dir/updates"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		cp "/lib/modules/$KVER/$f" "$dir/"
	done
	cp -rs "/lib/modules/$KVER/kernel" "$dir/kernel"
	rm -rf "$dir/kernel/net/can" "$dir/kernel/drivers/net/can"
	find "$TOP/net" "$TOP/drivers" -name '*.ko' -exec cp {} "$dir/updates/" \;
	for f in ${VMTEST_EXTRA_MODULES:-}; do
		cp "$f" "$dir/updates/"
	done
	depmod -b "$root" "$KVER"
	echo "$dir"
}

if [ -n "$MODROOT" ]; then
	MODDIR=$MODROOT/lib/modules/$KVER
	[ -d "$MODDIR" ] || { echo "vmtest: no $MODDIR" >&2; exit 2; }
else
	MODDIR=$(stage_modules)
fi

{
	echo "KVER=$KVER"
	echo "TOP=$TOP"
	echo "INTERACTIVE=$INTERACTIVE"
	echo "KEEP_MAINLINE=$KEEP_MAINLINE"
	echo "MODDIR=$MODDIR"
	echo "FULL_MODDIR=$([ -n "$MODROOT" ] && echo 1 || echo 0)"
	printf 'CMD=('
	for a in "$@"; do printf '%q ' "$a"; done
	printf ')\n'
} > "$RUN/env"

# Under TCG the guest's TSC counts at the host's rate, but the guest
# measures that rate against the emulated PIT, and a busy host preempts
# the measurement: a guest has found 236 MHz for a 2.6 GHz TSC, and its
# clock then ran eleven times too fast (every timeout of the suite fired
# early). Give it the host's rate, which it refines against the HPET;
# not under -icount (make bench), whose TSC is virtual.
host_tsc_khz() {
	local mhz

	# With -icount the TSC counts executed instructions, not host time:
	# the guest's own calibration against the emulated timers is right.
	case " $QEMU_ARGS " in *" -icount"*) return 0 ;; esac
	grep -qw constant_tsc /proc/cpuinfo || return 0
	mhz=$(dmesg 2>/dev/null | sed -n -e 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -1)
	[ -n "$mhz" ] || mhz=$(awk -F': ' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	[ -z "$mhz" ] || awk -v m="$mhz" 'BEGIN { printf " tsc_early_khz=%d", m * 1000 }'
}

APPEND="console=ttyS0 loglevel=7 printk.time=1 panic=-1 oops=panic panic_on_warn=0 mitigations=off"
APPEND="$APPEND nokaslr tsc=reliable$(host_tsc_khz) no_timer_check canvm.init=$HERE/vm-init.sh"
APPEND="$APPEND canvm.env=$RUN/env"
# QEMU's "max" CPU has LA57. With five-level paging, the debug kernel's
# KASAN calls an interrupt that arrives during identify_cpu() at boot a
# wild-memory-access, now and then, and turns lockdep off for the run.
APPEND="$APPEND no5lvl"
# CAN_VM_APPEND: more kernel parameters, for an experiment on one run.
APPEND="$APPEND${CAN_VM_APPEND:+ $CAN_VM_APPEND}"
# Extra kernel parameters (make fuzz: kasan_multi_shot).
APPEND="$APPEND ${VMTEST_APPEND:-}"

QEMU=(qemu-system-x86_64 -machine q35,accel=tcg -cpu max -m "$MEM" -smp "$SMP"
	-kernel "$KIMG" -initrd "$INITRD" -no-reboot -nodefaults -display none
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot)

if [ $INTERACTIVE = 1 ]; then
	exec "${QEMU[@]}" -serial mon:stdio -append "$APPEND" $QEMU_ARGS
fi

# Kernel console to a log file, the command's output to a second UART.
CONSOLE=$RUN/console.log
OUT=$RUN/out.log
set +e
# shellcheck disable=SC2086
timeout --foreground "$TIMEOUT" "${QEMU[@]}" -append "$APPEND" \
	-serial "file:$CONSOLE" -chardev stdio,id=out,signal=off -serial chardev:out \
	$QEMU_ARGS < /dev/null | tee "$OUT"
qrc=${PIPESTATUS[0]}
set -e

rc=$(sed -n 's/^CANVM-EXIT: \([0-9]*\).*/\1/p' "$OUT" | tail -1)
# What the kernel prints when one of its checkers fires: KASAN and
# sleep-in-atomic say BUG:, lockdep, RCU and WARN_ON say WARNING:.
REPORTS='Oops:|BUG:|WARNING:|Kernel panic|Call Trace:|general protection fault|UBSAN:'
REPORTS="$REPORTS|ODEBUG:|kmemleak: [0-9]+ new suspected|INFO: task .* blocked|detected stall"
if grep -qE "$REPORTS" "$CONSOLE"; then
	echo "vmtest: the guest kernel reported a problem; kernel log follows" >&2
	cat "$CONSOLE" >&2
	exit 125
fi
if [ -z "$rc" ]; then
	echo "vmtest: the guest ended without an exit status (qemu status $qrc);" \
		"kernel log follows" >&2
	cat "$CONSOLE" >&2
	exit 124
fi
if [ -n "${VMTEST_SHOW_CONSOLE:-}" ]; then cat "$CONSOLE" >&2; fi
exit "$rc"
