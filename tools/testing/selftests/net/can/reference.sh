#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make reference": the SJA1000 and MCP2515 driver tests run against
# Debian's mainline CAN modules, and a table of which checks mainline
# passes. This deliberately loads Debian's modules, the whole CAN stack
# (can, can-raw, can-dev, sja1000, kvaser_pci, mcp251x, ...), so that the
# table measures the drivers as Debian ships them; our own modules are
# taken out of the guest's module tree for this run. It is not a test:
# it always prints the table, and fails only if mainline's modules
# cannot be put in place. Runs inside the VM that vmtest.sh
# --keep-mainline started (mainline's modules wait in /opt/mainline-can).
#
#   reference.sh [SCRIPT...]   default: the sja1000_echo program, every
#                              sja1000_*.sh and every mcp251x*.sh
#   reference.sh --compat [SCRIPT...]
#                              "make compat-drivers": our core and can-dev
#                              under mainline 6.1's drivers built from
#                              source on them (build/compat/modules); also
#                              runs ctucanfd.sh, slcan.sh and the vxcan
#                              scripts. This one is a test: a
#                              check mainline's driver passes on Debian's
#                              stack (compat.expected lists the rest) must
#                              pass here too.
#
# The test modules load as they are: mcp2515_model.ko needs no symbol of
# ours, so mainline's mcp251x binds to its chips; sja1000_fake.ko is
# built on our sja1000 driver's interface and cannot load, so
# sja1000_errors.sh skips.

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../.." && pwd)
ML=/opt/mainline-can
COMPAT=$TOP/build/compat/modules
MODE=mainline
if [ "${1:-}" = --compat ]; then
	MODE=compat
	shift
fi
KVER=$(uname -r)
MODS=/lib/modules/$KVER
PER_TEST_TIMEOUT=${PER_TEST_TIMEOUT:-300}
OUT=$(mktemp -d)

# Swap the module tree vm-init.sh prepared (ours in updates/, mainline's
# CAN modules removed) for one with mainline's CAN modules only.
use_mainline_modules() {
	[ -d "$ML" ] || { echo "reference: no $ML (run me through make reference)"; return 1; }
	rm -f "$MODS"/updates/*.ko
	mkdir -p "$MODS/kernel/mainline-can"
	cp -a "$ML/." "$MODS/kernel/mainline-can/"
	depmod -a "$KVER"
}

# Prove it: every CAN module modprobe now finds is an in-tree one.
check_mainline_modules() {
	local m file

	for m in can can-raw can-dev sja1000 kvaser_pci mcp251x; do
		file=$(modinfo -F filename "$m" 2>/dev/null) || {
			echo "reference: Debian has no $m module"
			continue
		}
		[ "$(modinfo -F intree "$m")" = Y ] ||
			{ echo "reference: $m is not mainline's: $file"; return 1; }
		echo "reference: $m -> ${file#"$MODS/"}"
	done
}

# Swap our drivers in updates/ for mainline's built by compat-drivers:
# same module names, so modprobe now finds theirs; our can, can-raw and
# can-dev stay.
use_compat_modules() {
	[ -s "$COMPAT/../modules.list" ] ||
		{ echo "compat: no $COMPAT (run me through make compat-drivers)"; return 1; }
	cp "$COMPAT"/*.ko "$MODS/updates/"
	# Our PCM-3680 glue is built on our SJA1000 core, which is gone now.
	rm -f "$MODS/updates/pcm3680_pci.ko"
	depmod -a "$KVER"
}

# The verdict of a compat run: every check passes, but for those
# compat.expected names, which mainline's driver fails on Debian's own
# stack too (the reference table in can.txt says why). Ends with the
# suite's "N passed, N failed" line; non-zero if anything else failed.
compat_verdict() {
	local script check result pass=0 fail=0 xfail=0 skip=0

	while read -r script check result; do
		case $result in
		pass)	pass=$((pass + 1))
			grep -qxF "$script $check" "$HERE/compat.expected" &&
				echo "compat: $script $check passes now: update compat.expected" ;;
		skip)	skip=$((skip + 1)) ;;
		*)	if grep -qxF "$script $check" "$HERE/compat.expected"; then
				xfail=$((xfail + 1))
			else
				fail=$((fail + 1))
				echo "compat: $script $check FAILS (mainline's driver, our stack)"
			fi ;;
		esac
	done < "$OUT/table"
	printf '%-22s %-58s %s\n' script check result
	cat "$OUT/table"
	echo "compat: $xfail expected failures (mainline's drivers; compat.expected)"
	echo "$((pass + xfail)) passed, $fail failed, $skip skipped"
	rm -rf "$OUT"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
	exit
}

# Prove it: the drivers modprobe finds are the compat build's, the core
# and device layer ours.
check_compat_modules() {
	local m file

	for m in $(cat "$COMPAT/../modules.list") can can-raw can-dev; do
		file=$(modinfo -F filename "$m") || { echo "compat: no $m module"; return 1; }
		[[ $file == "$MODS/updates/"* ]] || { echo "compat: $m is $file"; return 1; }
		if [ -e "$COMPAT/$m.ko" ]; then
			cmp -s "$file" "$COMPAT/$m.ko" || { echo "compat: $m is ours"; return 1; }
		fi
		echo "compat: $m -> ${file#"$MODS/"}"
	done
}

default_scripts() {
	local s

	if [ "$MODE" = compat ]; then
		echo "$HERE/ctucanfd.sh"
		echo "$HERE/slcan.sh"
		echo "$HERE/can_vxcan.sh"
		echo "$TOP/build/selftests/can_vxcan"
		echo "$HERE/gw_vxcan.sh"
	fi

	# sja1000_echo first, as in make check: QEMU's SJA1000 model garbles
	# its receive FIFO for good once a remote frame with data length
	# code > 0 crossed, which sja1000_kvaser.sh sends.
	# sja1000_boards.sh is about mainline's boards on our SJA1000 core,
	# which neither mode has.
	for s in "$TOP/build/selftests/sja1000_echo" "$HERE"/sja1000_*.sh "$HERE"/mcp251x*.sh; do
		[ "$s" = "$HERE/sja1000_boards.sh" ] && continue
		[ -e "$s" ] && echo "$s"
	done
}

# run_one SCRIPT: its output as "# " lines, its results into $OUT/table.
run_one() {
	local s=$1 name log rc

	name=$(basename "$s")
	log=$OUT/$name.log
	echo "# selftests: net/can: $name ($MODE)"
	timeout --kill-after=10 "$PER_TEST_TIMEOUT" "$s" > "$log" 2>&1 < /dev/null
	rc=$?
	sed 's/^/# /' "$log"
	# Top-level result lines only (the harness indents nested ones).
	sed -nE 's/^ok [0-9]+ ([^#]*[^ #]) *# *SKIP.*/skip \1/p
		t
		s/^ok [0-9]+ ([^#]*[^ #]).*/pass \1/p
		s/^not ok [0-9]+ ([^#]*[^ #]).*/FAIL \1/p' "$log" |
		while read -r result check; do
			printf '%-22s %-58s %s\n' "$name" "$check" "$result"
		done >> "$OUT/table"
	grep -qE '^(not )?ok [0-9]+ ' "$log" ||
		printf '%-22s %-58s %s\n' "$name" "(no result: exit $rc)" FAIL >> "$OUT/table"
}

if [ "$MODE" = compat ]; then
	echo "compat: mainline 6.1's drivers, built on our headers, on our can-dev and core"
	use_compat_modules || exit 1
	check_compat_modules || exit 1
else
	echo "reference: this run loads Debian's mainline CAN modules on purpose;"
	echo "reference: it shows which of our driver checks mainline passes."
	use_mainline_modules || exit 1
	check_mainline_modules || exit 1
fi

if [ $# -gt 0 ]; then
	scripts=()
	for s in "$@"; do
		[[ $s == */* ]] || s=$HERE/$s
		[ -e "$s" ] || s=$TOP/build/selftests/$(basename "$s")
		scripts+=("$s")
	done
else
	mapfile -t scripts < <(default_scripts)
fi

: > "$OUT/table"
for s in "${scripts[@]}"; do
	run_one "$s"
done

[ "$MODE" = compat ] && compat_verdict
echo "reference: Debian's mainline modules, Linux $KVER"
printf '%-22s %-58s %s\n' script check mainline
cat "$OUT/table"
printf 'reference: %d pass, %d FAIL, %d skip (mainline; see the notes for why)\n' \
	"$(grep -c ' pass$' "$OUT/table")" "$(grep -c ' FAIL$' "$OUT/table")" \
	"$(grep -c ' skip$' "$OUT/table")"
rm -rf "$OUT"
exit 0
