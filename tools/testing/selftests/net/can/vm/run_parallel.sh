#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole suite of "make check" in several guests at once, on the host:
# build/selftests/tests.list is split into JOBS groups of about the same
# running time (the seconds in the file "durations"; a test it does not
# name counts DEFAULT_SECS), each group keeping the list's order, and each
# group runs in a guest of its own (vmtest.sh, run_tests.sh). Every guest
# has its own emulated CAN cards and tmpfs overlay, so tests only share the
# read-only host.
#
#   run_parallel.sh [--jobs N] [--compat CMD] [--runner FILE [--others-arg ARG]]
#                   [VMTEST_OPTION...]
#
# --runner names what each guest runs instead of run_tests.sh (the debug
# kernel's run_debug.sh), given its group's tests; --others-arg ARG goes
# before the tests of every guest but the first (run_debug.sh --no-kunit:
# the KUnit suites run once).
#
# --compat CMD builds what the tests of build/selftests/tests.compat load
# ("make compat-build"): it runs while the other groups do, and the group
# holding those tests starts once it is done. CMD with CAN_COMPAT_CHECK=1
# in its environment must exit 0 if there is nothing to build, so that the
# split counts the build's time only when it happens.
#
# Prints one KTAP document for the suite, the tests in the list's order,
# then "N passed, N failed, N skipped" last, as run_tests.sh does; exits
# non-zero if a test failed, a guest failed (vmtest.sh's status, such as a
# kernel report) or the build did.

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
LIST=$BUILD/selftests/tests.list
COMPAT_LIST=$BUILD/selftests/tests.compat
DURATIONS=$HERE/../durations
DEFAULT_SECS=30

jobs=$(nproc)
compat=
runner=$HERE/run_tests.sh
others_arg=()
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=$2; shift 2 ;;
	--compat) compat=$2; shift 2 ;;
	--runner) runner=$2; shift 2 ;;
	--others-arg) others_arg=("$2"); shift 2 ;;
	*) break ;;
	esac
done
vmtest_args=("$@")

mapfile -t tests < "$LIST"
[ ${#tests[@]} -gt 0 ] || { echo "run_parallel: $LIST is empty" >&2; exit 2; }
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ "$jobs" -le ${#tests[@]} ] || jobs=${#tests[@]}

dir=${CHECK_DIR:-$BUILD/check}
rm -rf "$dir"
mkdir -p "$dir"

# The build's time counts only if it has something to do.
compat_secs=0
if [ -n "$compat" ] && ! CAN_COMPAT_CHECK=1 $compat > /dev/null 2>&1; then
	compat_secs=$(awk '$1 == "compat-build" { print $2 }' "$DURATIONS")
fi

# "group index name" for each test: greedy, longest first, each to the
# group that ends first; the tests that need the compat build all go to
# the last group, which starts when the build ends.
for i in "${!tests[@]}"; do
	name=$(basename "${tests[$i]}")
	needs=0
	[ -n "$compat" ] && grep -qxF "$name" "$COMPAT_LIST" 2>/dev/null && needs=1
	echo "$i $name $needs"
done | awk -v jobs="$jobs" -v cs="${compat_secs:-0}" -v def=$DEFAULT_SECS '
	FNR == NR { secs[$1] = $2; next }
	{
		d = ($2 in secs) ? secs[$2] : def
		if ($3) { load[jobs - 1] += d; print jobs - 1, $1, $2; started = 1 }
		else { n++; idx[n] = $1; nm[n] = $2; dur[n] = d }
	}
	END {
		if (started) load[jobs - 1] += cs
		# Selection sort, longest first: some sixty tests.
		for (a = 1; a <= n; a++) {
			m = a
			for (b = a + 1; b <= n; b++) if (dur[b] > dur[m]) m = b
			t = idx[a]; idx[a] = idx[m]; idx[m] = t
			t = nm[a]; nm[a] = nm[m]; nm[m] = t
			t = dur[a]; dur[a] = dur[m]; dur[m] = t
			g = 0
			for (j = 1; j < jobs; j++) if (load[j] < load[g]) g = j
			load[g] += dur[a]
			print g, idx[a], nm[a]
		}
		for (j = 0; j < jobs; j++) printf "load %d %d\n", j, load[j] > "/dev/stderr"
	}' "$DURATIONS" - 2> "$dir/loads" | sort -n -k1,1 -k2,2 > "$dir/split"

echo "TAP version 13"
echo "1..${#tests[@]}"

if [ -n "$compat" ]; then
	echo "# make check: building the compat drivers meanwhile ($dir/compat.log)"
	( $compat > "$dir/compat.log" 2>&1; echo $? > "$dir/compat.rc" ) &
fi

for ((g = 0; g < jobs; g++)); do
	group=()
	while read -r _ i _; do
		group+=("${tests[$i]}")
	done < <(awk -v g=$g '$1 == g' "$dir/split")
	[ ${#group[@]} -gt 0 ] || continue
	wait_compat=0
	awk -v g=$g '$1 == g { print $3 }' "$dir/split" | grep -qxFf "$COMPAT_LIST" 2>/dev/null &&
		[ -n "$compat" ] && wait_compat=1
	secs=$(awk -v g=$g '$2 == g { print $3 }' "$dir/loads")
	after=
	[ $wait_compat = 1 ] && after=", after the compat build"
	echo "# make check: guest $((g + 1)): ~$secs s$after:" \
		"$(for t in "${group[@]}"; do basename "$t"; done | tr '\n' ' ')"
	(
		if [ $wait_compat = 1 ]; then
			while [ ! -e "$dir/compat.rc" ]; do sleep 1; done
		fi
		start=$SECONDS
		extra=()
		[ $g = 0 ] || extra=("${others_arg[@]}")
		"$HERE/vmtest.sh" "${vmtest_args[@]}" -- "$runner" "${extra[@]}" "${group[@]}" \
			> "$dir/out.$g" 2> "$dir/err.$g" < /dev/null
		rc=$?
		echo "$((SECONDS - start))" > "$dir/secs.$g"
		echo $rc > "$dir/rc.$g"
	) &
done

# Progress while the guests run: each result as it comes.
declare -A seen
while :; do
	running=0
	for ((g = 0; g < jobs; g++)); do
		[ -e "$dir/out.$g" ] || { grep -q "^$g " "$dir/split" && running=1; continue; }
		[ -e "$dir/rc.$g" ] || running=1
		n=$(grep -cE '^(not )?ok [0-9]+ selftests: ' "$dir/out.$g")
		if [ "$n" -gt "${seen[$g]:-0}" ]; then
			grep -E '^(not )?ok [0-9]+ selftests: ' "$dir/out.$g" |
				tail -n +$((${seen[$g]:-0} + 1)) | sed "s/^/# guest $((g + 1)): /"
			seen[$g]=$n
		fi
	done
	[ $running = 1 ] || break
	sleep 2
done
wait

# Each test's block of its guest's output, by name: from its header line
# to its result line.
mkdir -p "$dir/blocks"
pass=0
fail=0
skip=0
bad=0
for ((g = 0; g < jobs; g++)); do
	[ -e "$dir/rc.$g" ] || continue
	awk -v d="$dir/blocks" '
		/^# selftests: net\/can: / { name = $4; f = d "/" name; printf "" > f }
		name != "" { print >> f }
		/^(not )?ok [0-9]+ selftests: net\/can: / { close(f); name = ""; f = "" }
	' "$dir/out.$g"
	totals=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
		"$dir/out.$g" | tail -1)
	# A guest that ended early printed no totals: count its results
	# one each (the tests it never reached count below).
	if [ -z "$totals" ]; then
		totals="$(grep -cE '^ok [0-9]+ selftests: ' "$dir/out.$g")"
		totals="$totals $(grep -cE '^not ok [0-9]+ selftests: ' "$dir/out.$g") 0"
	fi
	read -r p f s <<< "$totals"
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	rc=$(cat "$dir/rc.$g")
	[ "$rc" = 0 ] || bad=1
	# 1 is a test's failure, reported above; more is the guest's.
	if [ "$rc" -gt 1 ] || [ -s "$dir/err.$g" ]; then
		echo "# make check: guest $((g + 1)) exited with status $rc" >&2
		cat "$dir/err.$g" >&2
	fi
done

# The merged document, numbered in the list's order.
idx=0
for t in "${tests[@]}"; do
	idx=$((idx + 1))
	name=$(basename "$t")
	b=$dir/blocks/$name
	if [ -s "$b" ] && tail -1 "$b" | grep -qE '^(not )?ok [0-9]+ selftests: '; then
		sed '$d' "$b"
		tail -1 "$b" | sed -E "s/^(not )?ok [0-9]+ /\\1ok $idx /"
	else
		[ -s "$b" ] && cat "$b"
		echo "not ok $idx selftests: net/can: $name # no result: its guest ended"
		fail=$((fail + 1))
	fi
done

# What a runner that finished printed after its last test (run_debug.sh:
# KUnit and kmemleak), its totals aside: counted in them already. A guest
# that ended early has its unfinished test's block printed above.
for ((g = 0; g < jobs; g++)); do
	[ -e "$dir/out.$g" ] || continue
	awk '/^(not )?ok [0-9]+ selftests: / { n = NR } { line[NR] = $0 }
		/^[0-9]+ passed, / { done = 1 }
		END { if (done && n) for (i = n + 1; i <= NR; i++) print line[i] }' "$dir/out.$g" |
		grep -vE '^(# Totals: |[0-9]+ passed, )'
done

if [ -n "$compat" ] && [ "$(cat "$dir/compat.rc")" != 0 ]; then
	echo "# make check: the compat build failed:" >&2
	cat "$dir/compat.log" >&2
	fail=$((fail + 1))
fi
for ((g = 0; g < jobs; g++)); do
	[ -e "$dir/secs.$g" ] && echo "# make check: guest $((g + 1)) ran $(cat "$dir/secs.$g") s"
done
# This run's times in the form of "durations", to refresh the split with
# (copy it over that file when tests got faster or slower).
{
	sed -n '/^#/p; /^compat-build /p' "$DURATIONS"
	cat "$dir"/out.* 2> /dev/null | sed -nE 's/^# ([A-Za-z0-9_.]+): ([0-9]+) s$/\1 \2/p'
} > "$dir/durations"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] && [ $bad = 0 ]
