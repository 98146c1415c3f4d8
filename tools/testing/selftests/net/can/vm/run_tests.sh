#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every CAN selftest listed by the Makefile (build/selftests/tests.list)
# and print KTAP: one result line per program, the programs' own output as
# "# " lines, totals summed from the "# Totals:" line each program prints,
# and last the plain line "N passed, N failed". Runs inside the test VM.
#
#   run_tests.sh [TEST...]   run the named programs instead of the list
#                            (a path, or a name from the list)

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
LIST=${LIST:-$TOP/build/selftests/tests.list}
PER_TEST_TIMEOUT=${PER_TEST_TIMEOUT:-300}

mapfile -t listed < "$LIST"
tests=()
# A name without a slash is looked up in the list by its base name.
for t in "$@"; do
	if [[ $t != */* ]]; then
		for l in "${listed[@]}"; do
			[ "$(basename "$l")" = "$t" ] && t=$l
		done
	fi
	tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || tests=("${listed[@]}")

pass=0
fail=0
skip=0
idx=0
log=$(mktemp)

# Add the counts of one program's "# Totals:" line; a program that printed
# none, or that died while claiming no failure, counts as one failure.
account() {
	local rc=$1 line p f xf xp s e

	line=$(grep -E '^# Totals: pass:' "$log" | tail -1)
	if [ -z "$line" ]; then
		fail=$((fail + 1))
		return 1
	fi
	read -r p f xf xp s e < <(echo "$line" |
		sed -E 's/.*pass:([0-9]+) fail:([0-9]+) xfail:([0-9]+) xpass:([0-9]+) /\1 \2 \3 \4 /
			s/ skip:([0-9]+) error:([0-9]+).*/ \1 \2/')
	pass=$((pass + p + xf))
	fail=$((fail + f + xp + e))
	skip=$((skip + s))
	if [ "$rc" -ne 0 ] && [ $((f + xp + e)) -eq 0 ]; then
		fail=$((fail + 1))
		return 1
	fi
	[ $((f + xp + e)) -eq 0 ]
}

echo "TAP version 13"
echo "1..${#tests[@]}"
for t in "${tests[@]}"; do
	idx=$((idx + 1))
	name=$(basename "$t")
	echo "# selftests: net/can: $name"
	start=$SECONDS
	timeout --kill-after=10 "$PER_TEST_TIMEOUT" "$t" > "$log" 2>&1 < /dev/null
	rc=$?
	sed 's/^/# /' "$log"
	# make check balances its guests with these (run_parallel.sh).
	echo "# $name: $((SECONDS - start)) s"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "# $name: timed out after ${PER_TEST_TIMEOUT}s"
	fi
	if account $rc; then
		echo "ok $idx selftests: net/can: $name"
	else
		echo "not ok $idx selftests: net/can: $name # exit=$rc"
	fi
done
rm -f "$log"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] && [ $idx -gt 0 ]
