#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Second stage of the test VM, run as PID 1 on the overlay root that
# vmtest.sh prepared: mount the usual file systems, put our CAN modules
# where modprobe finds them (and Debian's where it cannot), run the
# command and report its exit status on the output UART.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux}

# proc, sys and dev were moved here by the initramfs.
# devtmpfs lacks these; bash's process substitution needs /dev/fd.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts none /dev/pts
mount -t tmpfs none /dev/shm
mount -t tmpfs none /run
# /tmp stays the overlay's: a tree checked out under the host's /tmp
# must remain visible.
mount -t debugfs none /sys/kernel/debug 2>/dev/null

env_file=$(sed -n 's/.*canvm\.env=\([^ ]*\).*/\1/p' /proc/cmdline)
# shellcheck disable=SC1090
. "$env_file"

# PID 1 must outlive the request: if it exited first the kernel would
# panic. Wait with builtins only, since by then the root may be gone (the
# 9p transport shuts down with the devices) and no program can start.
power_off() {
	sync
	echo o > /proc/sysrq-trigger
	while :; do
		read -r -t 1 _ <> /dev/console || :
	done
}

install_modules() {
	local mods=/lib/modules/$KVER

	# Hide Debian's CAN modules and take the module indexes vmtest.sh
	# built without them: nothing can load mainline's code by accident.
	if [ "$FULL_MODDIR" = 1 ]; then
		mkdir -p "$mods"
		cp -a "$MODDIR/." "$mods/"
		return
	fi
	# Benchmarks compare with mainline: they get its modules by path
	# under /opt/mainline-can, still invisible to modprobe.
	if [ "$KEEP_MAINLINE" = 1 ]; then
		mkdir -p /opt/mainline-can
		cp -a "$mods/kernel/net/can" "$mods/kernel/drivers/net/can" /opt/mainline-can/
	fi
	rm -rf "$mods/kernel/net/can" "$mods/kernel/drivers/net/can"
	mkdir -p "$mods/updates"
	cp "$MODDIR"/updates/*.ko "$mods/updates/" 2>/dev/null
	cp "$MODDIR"/modules.* "$mods/"
}

hostname canvm
ip link set lo up
install_modules
cd "$TOP" || cd /

if [ "$INTERACTIVE" = 1 ]; then
	modprobe can-raw
	modprobe vcan
	ip link add dev vcan0 type vcan && ip link set vcan0 up
	echo "canvm: our CAN modules are loaded and vcan0 is up; exit the shell to power off"
	setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	power_off
fi

stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec >/dev/ttyS1 2>&1
"${CMD[@]}"
rc=$?
echo "CANVM-EXIT: $rc"
power_off
