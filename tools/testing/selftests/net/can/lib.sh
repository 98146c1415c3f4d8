# SPDX-License-Identifier: GPL-2.0
#
# Shared by the CAN shell tests: KTAP output with the same "# Totals:"
# line the kselftest harness prints, waiting on conditions with a
# timeout, and vcan links that are removed when the script exits.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../../../../.." && pwd)
# Where the Makefile put the test programs and helpers.
CAN_TEST_BIN=${CAN_TEST_BIN:-$TOP/build/selftests}
# Where the test modules (fake and modelled chips) built for the running
# kernel are: next to their sources for Debian's kernel, a copy for the
# debug kernel (run_debug.sh says where).
CAN_TESTMODS=${CAN_TESTMODS:-$HERE}

KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_NUM=0
CAN_LINKS=()
CAN_TMP=$(mktemp -d)

ktap_header() {
	echo "TAP version 13"
	echo "1..$1"
}

# run_test NAME FUNCTION [ARGS...]: one result line for one behaviour.
# The function returns 0 (pass), 1 (fail) or 4 (skip, reason in $SKIP_REASON).
run_test() {
	local name=$1 rc

	shift
	KTAP_NUM=$((KTAP_NUM + 1))
	SKIP_REASON=
	echo "# RUN $name"
	"$@"
	rc=$?
	case $rc in
	0)
		KTAP_PASS=$((KTAP_PASS + 1))
		echo "ok $KTAP_NUM $name"
		;;
	4)
		KTAP_SKIP=$((KTAP_SKIP + 1))
		echo "ok $KTAP_NUM $name # SKIP $SKIP_REASON"
		;;
	*)
		KTAP_FAIL=$((KTAP_FAIL + 1))
		echo "not ok $KTAP_NUM $name"
		;;
	esac
}

# Fold the "# Totals:" line of a harness program's output into ours.
ktap_add_totals() {
	local line p f s

	line=$(grep -E '^# Totals: pass:' "$1" | tail -1)
	if [ -z "$line" ]; then
		KTAP_FAIL=$((KTAP_FAIL + 1))
		return 1
	fi
	p=$(echo "$line" | sed -E 's/^# Totals: pass:([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.* fail:([0-9]+).*/\1/')
	s=$(echo "$line" | sed -E 's/.* skip:([0-9]+).*/\1/')
	KTAP_PASS=$((KTAP_PASS + p))
	KTAP_FAIL=$((KTAP_FAIL + f))
	KTAP_SKIP=$((KTAP_SKIP + s))
	[ "$f" -eq 0 ]
}

# Print the totals and exit with the harness's convention.
ktap_finish() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
	[ "$KTAP_FAIL" -eq 0 ]
	exit $?
}

log() {
	echo "# $*"
}

# fail MESSAGE: say why, return failure (use as "cond || { fail msg; return 1; }").
fail() {
	echo "# FAIL: $*"
	return 1
}

# wait_until SECONDS COMMAND...: poll COMMAND every 50 ms until it
# succeeds; fails when SECONDS pass first.
wait_until() {
	local deadline=$(($(date +%s%N) + $1 * 1000000000))

	shift
	until "$@"; do
		[ "$(date +%s%N)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# vcan_add NAME [MTU]: create and bring up a vcan, removed at exit.
vcan_add() {
	ip link add dev "$1" type vcan || return 1
	CAN_LINKS+=("$1")
	if [ -n "$2" ]; then
		ip link set "$1" mtu "$2" || return 1
	fi
	ip link set "$1" up
}

# True once a CAN_RAW socket has a receive list entry on device $1:
# the sign that a tool such as candump has bound and set its filters.
has_rx_entry() {
	grep -qsE "^ +$1 " /proc/net/can/rcvlist_*
}

lib_cleanup() {
	local l

	for l in "${CAN_LINKS[@]}"; do
		ip link del dev "$l" 2>/dev/null
	done
	rm -rf "$CAN_TMP"
}
trap lib_cleanup EXIT
