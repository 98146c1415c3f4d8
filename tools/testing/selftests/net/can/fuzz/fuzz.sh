#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make fuzz": build can_fuzz and the debug kernel (KASAN, lockdep,
# UBSAN, kmemleak; KCOV guides the fuzzer if the kernel has it), boot it
# with the SJA1000 cards and run the fuzzer in it.
#
#   fuzz.sh [--duration S] [--seed N] [--qemu-args ARGS] [-- CAN_FUZZ_ARGS]
#   fuzz.sh --replay FILE [--qemu-args ARGS]
#   fuzz.sh --stock ...     Debian's kernel with our modules instead (no
#                           KASAN or lockdep: slub_debug poisons freed
#                           objects; a quick run while the debug kernel
#                           is not built); Debian's CAN modules are kept
#                           under /opt/mainline-can for ops_mixed.c
#
# Replay files and reports land in build/fuzz/run-SEED/. The last line
# says what happened; the status is 0 only if the kernel reported nothing.
# The caller holds the debug kernel cache's lock (see the Makefile).

set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
SELFTESTS=$TOP/tools/testing/selftests/net/can
DURATION=300
SEED=
QEMU_ARGS=
REPLAY=
STOCK=0

while [ $# -gt 0 ]; do
	case "$1" in
	--duration) DURATION=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--qemu-args) QEMU_ARGS=$2; shift 2 ;;
	--replay) REPLAY=$(realpath "$2"); shift 2 ;;
	--stock) STOCK=1; shift ;;
	--) shift; break ;;
	*) echo "fuzz: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$SEED" ] || SEED=$(date +%s)

for tool in qemu-system-x86_64 flock rsync gcc make cpio busybox ip modprobe depmod; do
	command -v "$tool" > /dev/null ||
		{ echo "fuzz: missing tool: $tool (make deps installs it)" >&2; exit 2; }
done

make -s -C "$HERE"
# The infoleak detector (leak.c) needs fresh slab objects to hold SLUB's
# free poison (0x6b ... 0xa5) until written: slub_debug=P poisons them,
# and init_on_alloc=0 keeps Debian's kernel (INIT_ON_ALLOC_DEFAULT_ON)
# from zeroing them first; init_on_free=0 keeps freed ones poisoned.
POISON="init_on_alloc=0 init_on_free=0"
if [ $STOCK = 1 ]; then
	# The Makefile's, that our modules were built for.
	KVER=${KVER:?KVER is not set}
	# Debian's CAN modules by path under /opt/mainline-can (ops_mixed.c).
	VMARGS=(--kver "$KVER" --keep-mainline)
	APPEND="slub_debug=FZPU $POISON"
else
	# Not eval "$(...)": that would hide a failed build.
	kernel=$("$TOP/scripts/can-debug-kernel.sh")
	eval "$kernel"
	VMARGS=(--kernel "$KIMG" --modroot "$MODROOT" --kver "$KVER")
	# kasan_multi_shot: KASAN reports every bad access, not only the
	# first of the boot, so a replay can show the same report again.
	APPEND="kasan_multi_shot slub_debug=P $POISON"
fi

RUN=$TOP/build/fuzz/run-$SEED
if [ "${CAN_DEBUG_CAN:-ours}" = mainline ]; then
	# On purpose: the reference for what the debug kernel does under
	# this load, with mainline's CAN code instead of ours.
	echo "fuzz: debug kernel with MAINLINE's CAN code (CAN_DEBUG_CAN=mainline)"
	RUN=$TOP/build/fuzz/run-mainline-$SEED
fi
[ -n "$REPLAY" ] && RUN=$TOP/build/fuzz/replay
rm -rf "$RUN"
mkdir -p "$RUN"

if [ -n "$REPLAY" ]; then
	set -- --replay "$REPLAY" --trace
else
	set -- --seed "$SEED" --duration "$DURATION" "$@"
fi

# The first line of a kernel report, as the console shows it. A hang
# stops the fuzzer too (its supervisor may be among the blocked tasks),
# so the guest's log may end without a word: the console tells.
HANGS='blocked for more than|detected stall|soft lockup|hard LOCKUP|to become free'
REPORTS="BUG:|KASAN|UBSAN|WARNING:|Oops|general protection|kernel BUG|Kernel panic|$HANGS"

set +e
VMTEST_MEM=2048 VMTEST_SMP=${FUZZ_SMP:-2} VMTEST_APPEND="$APPEND" \
	"$SELFTESTS/vm/vmtest.sh" "${VMARGS[@]}" \
	--timeout $((DURATION + 1200)) --qemu-args "$QEMU_ARGS" \
	-- "$HERE/guest.sh" "$@" 2> "$RUN/console.log" | tee "$RUN/guest.log" |
	awk '/^FUZZ-FILE-BEGIN/ { f = 1 } !f && !/^FUZZ-/ { print; fflush() }
	     /^FUZZ-FILE-END/ { f = 0 }'
vmrc=${PIPESTATUS[0]}
set -e

# The files the guest printed.
awk -v dir="$RUN" '
	/^FUZZ-FILE-BEGIN / { f = dir "/" $2; printf "" > f; next }
	/^FUZZ-FILE-END$/ { close(f); f = ""; next }
	f != "" { print >> f }' "$RUN/guest.log"

if [ -n "$REPLAY" ]; then
	if grep -q '^ *can_fuzz: infoleak:' "$RUN/guest.log"; then
		grep -m1 '^ *can_fuzz: infoleak:' "$RUN/guest.log" | sed 's/^ */fuzz: replay: /'
		echo "fuzz: replay of $REPLAY: the kernel leaked memory to user space" \
			"(log: $RUN/guest.log)"
		exit 1
	fi
	if [ "$vmrc" = 125 ]; then
		grep -m1 -E "$REPORTS" "$RUN/console.log" | sed 's/^/fuzz: replay: /'
		echo "fuzz: replay of $REPLAY: the kernel reported a problem" \
			"(log: $RUN/console.log)"
		exit 1
	fi
	echo "fuzz: replay of $REPLAY: no kernel report"
	exit 0
fi

summary=$(grep -E '^fuzz: [0-9]+ execs in' "$RUN/guest.log" | tail -1)
if [ "$vmrc" = 0 ]; then
	echo "${summary:-fuzz: finished}"
	exit 0
fi
first=$(grep -m1 '^fuzz: kernel report after' "$RUN/guest.log" || true)
repro=$(ls "$RUN"/repro-1.replay 2>/dev/null || true)
[ -n "$first" ] && echo "$first"
if grep -q '^fuzz: kmemleak' "$RUN/guest.log"; then
	grep '^fuzz: kmemleak' "$RUN/guest.log"
fi
echo "fuzz: the kernel log is in $RUN/console.log"
if [ -n "$repro" ]; then
	echo "fuzz: KERNEL REPORT, seed $SEED; replay: $repro ($(grep -vc '^#' "$repro") ops;" \
		"make fuzz REPLAY=$repro)"
else
	# The kernel died or hung before the fuzzer could write anything:
	# the last ops of every worker, as the supervisor streamed them.
	repro=$RUN/dead-kernel.replay
	if grep -q -E "$HANGS" "$RUN/console.log"; then
		what="the kernel hung"
	else
		what="the kernel died"
	fi
	{
		echo "# can_fuzz replay: seed $SEED; $what:" \
			"the last 64 ops of each worker"
		echo "# threads $(sed -n 's/.* processes x \([0-9]*\) threads.*/\1/p' \
			"$RUN/guest.log" | head -1)"
		sed -n 's/^FUZZ-RING //p' "$RUN/guest.log" |
			awk '{ n[$2]++; line[$2, n[$2]] = $0 }
			     END { for (w in n) for (i = n[w] - 63; i <= n[w]; i++)
					if (i > 0) print line[w, i] }' | sort -n
	} > "$repro"
	grep -m1 -E "$REPORTS" "$RUN/console.log" | sed 's/^/fuzz: /' || true
	echo "fuzz: KERNEL REPORT (status $vmrc), seed $SEED; $what: last ops in" \
		"$repro ($(grep -vc '^#' "$repro") ops, not minimized)"
fi
exit 1
