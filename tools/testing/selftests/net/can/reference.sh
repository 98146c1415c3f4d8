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
#
# The test modules load as they are: mcp2515_model.ko needs no symbol of
# ours, so mainline's mcp251x binds to its chips; sja1000_fake.ko is
# built on our sja1000 driver's interface and cannot load, so
# sja1000_errors.sh skips.

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../.." && pwd)
ML=/opt/mainline-can
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

default_scripts() {
	local s

	# sja1000_echo first, as in make check: QEMU's SJA1000 model garbles
	# its receive FIFO for good once a remote frame with data length
	# code > 0 crossed, which sja1000_kvaser.sh sends.
	for s in "$TOP/build/selftests/sja1000_echo" "$HERE"/sja1000_*.sh "$HERE"/mcp251x*.sh; do
		[ -e "$s" ] && echo "$s"
	done
}

# run_one SCRIPT: its output as "# " lines, its results into $OUT/table.
run_one() {
	local s=$1 name log rc

	name=$(basename "$s")
	log=$OUT/$name.log
	echo "# selftests: net/can: $name (mainline)"
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

echo "reference: this run loads Debian's mainline CAN modules on purpose;"
echo "reference: it shows which of our driver checks mainline passes."
use_mainline_modules || exit 1
check_mainline_modules || exit 1

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

echo "reference: Debian's mainline modules, Linux $KVER"
printf '%-22s %-58s %s\n' script check mainline
cat "$OUT/table"
printf 'reference: %d pass, %d FAIL, %d skip (mainline; see the notes for why)\n' \
	"$(grep -c ' pass$' "$OUT/table")" "$(grep -c ' FAIL$' "$OUT/table")" \
	"$(grep -c ' skip$' "$OUT/table")"
rm -rf "$OUT"
exit 0
