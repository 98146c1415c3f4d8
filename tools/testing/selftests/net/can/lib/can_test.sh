# SPDX-License-Identifier: GPL-2.0
#
# Shared by the CAN shell tests: KTAP output with the same "# Totals:"
# line the kselftest harness prints, waiting on conditions with a
# timeout, and vcan links (and modules, on request) that are removed
# when the script exits.

# The tests' directory, one up from this library.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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
CAN_UNLOAD=()
CAN_TMP=$(mktemp -d)

ktap_header() {
	echo "TAP version 13"
	echo "1..$1"
}

# run_test NAME FUNCTION [ARGS...]: one result line for one behaviour.
# The function returns 0 (pass), 1 (fail) or 4 (skip, reason in $SKIP_REASON).
# Each case says how long it took, for whoever makes make check faster.
run_test() {
	local name=$1 rc start=$EPOCHREALTIME

	shift
	KTAP_NUM=$((KTAP_NUM + 1))
	SKIP_REASON=
	echo "# RUN $name"
	"$@"
	rc=$?
	echo "# $name: $(echo "$start $EPOCHREALTIME" | awk '{ printf "%.2f", $2 - $1 }') s"
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

# output_cmp OP VALUE CMD...: the output of CMD compares to VALUE by the
# test(1) operator OP. For wait_until, which must run CMD at each try:
# "wait_until 5 test \"$(CMD)\" ..." would compare one early value.
output_cmp() {
	local op=$1 want=$2 got

	shift 2
	got=$("$@") || return 1
	test "$got" "$op" "$want"
}

# link_ready DEV [NETNS]: wait until DEV (in NETNS) is operationally up,
# then pass through RTNL once more. A carrier that comes back is handled
# by linkwatch from a work item, which re-activates the qdisc; frames
# sent before that meet the noop qdisc and vanish.
link_ready() {
	local ns=()

	[ -n "$2" ] && ns=(ip netns exec "$2")
	wait_until 5 output_cmp = up "${ns[@]}" cat "/sys/class/net/$1/operstate" ||
		{ fail "$1 not operationally up"; return 1; }
	"${ns[@]}" ip link set "$1" up
}

# count_ifaces_of DRIVER: how many CAN interfaces DRIVER has bound.
count_ifaces_of() {
	can_ifaces_of "$1" | wc -w
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

# loaded_from NAME FILE: the loaded module NAME is FILE of this tree,
# by build id. The debug kernel was built from this tree, so there the
# module is its own file of that kernel's tree.
loaded_from() {
	local id file=$TOP/$2

	[[ $(uname -r) == *-candebug ]] && file=$(modinfo -n "$1")
	id=$(od -An -tx1 -v "/sys/module/$1/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n' | tail -c 40)
	[ -n "$id" ] && [ "$id" = "$(readelf -n "$file" | awk '/Build ID:/ { print $3 }')" ] ||
		{ fail "loaded $1 (${id:-none}) is not $file"; return 1; }
}

# unload_with_users MODULE...: unloads each MODULE after every module that
# still uses it, and their users first (kvaser_pci holds sja1000, which
# holds can_dev), as a module an earlier script of the same guest may have
# left loaded would otherwise keep it; names the users it cannot unload.
unload_with_users() {
	local m u

	for m in "$@"; do
		[ -d "/sys/module/$m" ] || continue
		for u in /sys/module/"$m"/holders/*; do
			[ -e "$u" ] && unload_with_users "${u##*/}"
		done
		wait_until 5 unload_one "$m" ||
			{ fail "$m: refcnt $(cat /sys/module/"$m"/refcnt), users:" \
				$(ls /sys/module/"$m"/holders); return 1; }
	done
}

# need_user_namespaces: 0 if unshare -Ur can make a user namespace, else
# a skip (4) for run_test; the debug kernel is built without them.
need_user_namespaces() {
	unshare -Ur true 2> /dev/null && return 0
	SKIP_REASON="no user namespaces in this kernel"
	return 4
}

# Helpers for CAN controller devices (SJA1000 cards, modelled MCP2515s).

# can_ifaces_of DRIVER-DIR: the interfaces whose device that driver binds,
# e.g. /sys/bus/pci/drivers/kvaser_pci.
can_ifaces_of() {
	local d

	for d in /sys/class/net/*; do
		[ "$(readlink -f "$d/device/driver" 2>/dev/null)" = "$1" ] &&
			basename "$d"
	done
}

# can_bring_up DEV [ip can options]: configure at 500 kbit/s while down,
# then up.
can_bring_up() {
	local dev=$1

	shift
	ip link set "$dev" down
	ip link set "$dev" type can bitrate 500000 "$@" || return 1
	ip link set "$dev" up
}

# can_stat DEV COUNTER: one of the interface's statistics.
can_stat() {
	cat "/sys/class/net/$1/statistics/$2"
}

# can_xstat DEV N: the Nth CAN device statistic of "ip -d -s link"
# (re-started bus-errors arbit-lost error-warn error-pass bus-off).
can_xstat() {
	ip -d -s link show "$1" | awk '/re-started/ { getline; print; exit }' |
		awk -v n="$2" '{ print $n }'
}

# can_state_is DEV STATE: the state ip shows, e.g. ERROR-PASSIVE.
can_state_is() {
	ip -d link show "$1" | grep -q "state $2 "
}

# can_dump_start DEV COUNT [candump options]: candump -L into
# $CAN_TMP/dump until COUNT frames came; can_dump_finish waits for it.
can_dump_start() {
	local dev=$1 count=$2

	shift 2
	timeout 20 candump -L -n "$count" "$@" "$dev" > "$CAN_TMP/dump" 2>&1 &
	CAN_DUMP_PID=$!
	wait_until 10 has_rx_entry "$dev" || { fail "candump did not bind"; return 1; }
}

can_dump_finish() {
	wait "$CAN_DUMP_PID" || { fail "candump: $(cat "$CAN_TMP/dump")"; return 1; }
}

# Every kind of classic frame, as cansend takes and candump -L prints it.
CAN_FRAMES="123#
123#11
7FF#1122334455667788
000#R
12345678#AABBCCDD
1FFFFFFF#R
00000001#0102030405060708
456#R5"

# can_send_and_check FROM TO [FRAMES [WANT]]: every frame of FRAMES
# (default $CAN_FRAMES) crosses the bus, and candump -L prints WANT
# (default FRAMES), one frame a line.
can_send_and_check() {
	local from=$1 to=$2 frames=${3:-$CAN_FRAMES} want f got

	want=${4:-$frames}
	can_dump_start "$to" "$(echo "$want" | wc -l)" || return 1
	for f in $frames; do
		cansend "$from" "$f" || { fail "cansend $f"; return 1; }
	done
	can_dump_finish || return 1
	got=$(awk '{ print $3 }' "$CAN_TMP/dump")
	[ "$got" = "$want" ] || { fail "sent: $frames got: $got"; return 1; }
}

# can_traffic_start LISTEN SEND [CANGEN-ARGS...]: candump on LISTEN and
# cangen on SEND in the background for at most 30 s, once candump's
# socket is bound; their pids in CAN_TRAFFIC_PIDS.
can_traffic_start() {
	local listen=$1 send=$2

	shift 2
	CAN_TRAFFIC_PIDS=()
	timeout 30 candump "$listen" > /dev/null 2>&1 &
	CAN_TRAFFIC_PIDS+=($!)
	timeout 30 cangen -g 1 "$@" "$send" > /dev/null 2>&1 &
	CAN_TRAFFIC_PIDS+=($!)
	wait_until 10 has_rx_entry "$listen" || { fail "candump did not bind"; return 1; }
}

can_traffic_stop() {
	kill "${CAN_TRAFFIC_PIDS[@]}" 2>/dev/null
	wait "${CAN_TRAFFIC_PIDS[@]}" 2>/dev/null
	return 0
}

# Checks that every controller driver must pass; each returns 0 or fails.

# can_check_statistics FROM TO: a data and a remote frame count as two
# packets each way and five bytes sent (remote frames carry none).
can_check_statistics() {
	local from=$1 to=$2 tx0 rx0 txb0

	tx0=$(can_stat "$from" tx_packets)
	txb0=$(can_stat "$from" tx_bytes)
	rx0=$(can_stat "$to" rx_packets)
	can_dump_start "$to" 2 || return 1
	cansend "$from" 001#0102030405 && cansend "$from" 002#R8 || return 1
	can_dump_finish || return 1
	[ $(($(can_stat "$from" tx_packets) - tx0)) -eq 2 ] || { fail "tx_packets"; return 1; }
	[ $(($(can_stat "$from" tx_bytes) - txb0)) -eq 5 ] ||
		{ fail "tx_bytes (RTR counts 0)"; return 1; }
	[ $(($(can_stat "$to" rx_packets) - rx0)) -eq 2 ] || { fail "rx_packets"; return 1; }
}

# can_check_listen_only DEV: a listening device drops what it is given
# to send, counts it, and does not block its queue.
can_check_listen_only() {
	local dev=$1 drop0

	can_bring_up "$dev" listen-only on || return 1
	drop0=$(can_stat "$dev" tx_dropped)
	cansend "$dev" 123#01 || { fail "cansend"; return 1; }
	wait_until 5 output_cmp -eq $((drop0 + 1)) can_stat "$dev" tx_dropped ||
		{ fail "tx_dropped not counted"; return 1; }
	cansend "$dev" 123#02 || { fail "queue stuck"; return 1; }
	can_bring_up "$dev" listen-only off
}

# can_check_manual_restart DEV: "ip link ... restart" of a bus-off device
# reports CAN_ERR_RESTARTED, counts the restart, and is refused once the
# device is active again.
can_check_manual_restart() {
	local dev=$1 pid

	timeout 10 candump -L -n 1 "$dev,#FFFFFFFF" > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry "$dev" || { fail "candump did not bind"; return 1; }
	ip link set "$dev" type can restart || return 1
	wait "$pid" || { fail "no restart frame"; return 1; }
	grep -q " 20000100#0000000000000000" "$CAN_TMP/dump" ||
		{ fail "$(cat "$CAN_TMP/dump")"; return 1; }
	can_state_is "$dev" ERROR-ACTIVE || { fail "state"; return 1; }
	[ "$(can_xstat "$dev" 1)" = 1 ] || { fail "re-started $(can_xstat "$dev" 1)"; return 1; }
	ip link set "$dev" type can restart 2>/dev/null &&
		{ fail "restart while active"; return 1; }
	return 0
}

# can_unload_at_exit MODULE...: whatever exit the script takes, its
# background jobs (candump, cangen a failed check left running) are
# stopped and these modules unloaded, in this order, with the modules
# only they used (modprobe -r; rmmod for test modules outside the module
# tree). The next script then starts without them. A TERM or INT (a
# timeout) becomes a plain exit: bash would otherwise run the EXIT trap
# inside its signal handler, where a fork for $(...) can hang.
can_unload_at_exit() {
	CAN_UNLOAD+=("$@")
	trap 'exit 143' TERM
	trap 'exit 130' INT
}

lib_unload() {
	local m pids

	pids=$(jobs -p)
	if [ -n "$pids" ]; then
		kill $pids 2>/dev/null
		wait $pids 2>/dev/null
	fi
	for m in "${CAN_UNLOAD[@]}"; do
		wait_until 5 unload_one "$m" ||
			echo "# cleanup: cannot unload $m (refcnt $(cat "/sys/module/$m/refcnt"))"
	done
}

# unload_one MODULE: gone already, or unloaded now. A module may stay in
# use for a moment after its last user went (deferred netdev release), so
# callers retry it with wait_until.
unload_one() {
	[ -d "/sys/module/$1" ] || return 0
	modprobe -r -q "$1" 2>/dev/null || rmmod "$1" 2>/dev/null
}

# kernel_log_is_clean MARK [PATTERN]: fails, showing them, if kernel log
# lines from line MARK on report a bug, warning, oops, refcount error or
# leak, or match the extra PATTERN a script also watches for.
kernel_log_is_clean() {
	local pat="BUG|WARNING|Oops|refcount|leak${2:+|$2}"

	if dmesg | sed -n "$1,\$p" | grep -E "$pat"; then
		fail "kernel complained"
		return 1
	fi
}

# ktap_skip_script NAME WHY: when WHY is not empty, end the script with
# one result, NAME skipped for that reason (a kernel it cannot run on).
ktap_skip_script() {
	[ -n "$2" ] || return 0
	log "SKIP: $2"
	echo "ok 1 $1 # SKIP $2"
	KTAP_SKIP=1
	ktap_finish
}

# compat_cannot_run KO: why this kernel cannot run KO, a module of
# "make compat-build" (mainline 6.1's sources, which build for Linux 6.1
# only: Debian's and the debug kernel), or nothing if it can. Where
# they build, a missing module is the caller's failure, not a reason.
compat_cannot_run() {
	local want

	if [ ! -e "$1" ]; then
		[[ $(uname -r) == 6.1.* ]] || echo "mainline 6.1's sources need Linux 6.1"
		return
	fi
	want=$(modinfo -F vermagic "$1" | cut -d' ' -f1)
	[ "$want" = "$(uname -r)" ] || echo "the compat build is for $want"
}

# ISO-TP through can-utils' isotpsend and isotprecv (isotp_utils.sh on
# vcan, isotp_sja1000.sh between two cards).

# hex_bytes N SEED: N bytes as isotpsend reads them ("0A 11 ...").
hex_bytes() {
	awk -v n="$1" -v s="$2" 'BEGIN {
		for (i = 0; i < n; i++) printf "%02X ", (i * 7 + s) % 256
		print "" }'
}

# isotp_recv_start DEV ARGS...: isotprecv for one message into
# $CAN_TMP/recv, returning once its subscription shows in /proc/net/can.
isotp_recv_start() {
	local dev=$1

	shift
	timeout 20 isotprecv "$@" "$dev" > "$CAN_TMP/recv" 2> "$CAN_TMP/recv.err" &
	ISOTP_RECV_PID=$!
	wait_until 10 grep -qsE "^ +$dev +.* isotp *$" /proc/net/can/rcvlist_sff ||
		{ fail "isotprecv did not bind"; return 1; }
}

isotp_recv_finish() {
	local rc

	wait "$ISOTP_RECV_PID"
	rc=$?
	ISOTP_RECV_PID=
	sed 's/^/# recv.err: /' "$CAN_TMP/recv.err"
	[ $rc -eq 0 ] || fail "isotprecv exit status $rc"
}

# isotp_transfer FROM TO LEN [OPTIONS...]: LEN bytes from isotpsend on
# FROM (identifier 123, flow control on 321) to isotprecv on TO, both
# with OPTIONS, isotprecv also with $RECV_OPTS and isotpsend with
# $SEND_OPTS; 0 if they arrived unchanged.
isotp_transfer() {
	local from=$1 to=$2 len=$3 want got

	shift 3
	want=$(hex_bytes "$len" "$len")
	# shellcheck disable=SC2086
	isotp_recv_start "$to" -s 321 -d 123 $RECV_OPTS "$@" || return 1
	# shellcheck disable=SC2086
	echo "$want" | timeout 20 isotpsend -s 123 -d 321 $SEND_OPTS "$@" "$from" ||
		{ fail "isotpsend of $len bytes failed"; return 1; }
	isotp_recv_finish || return 1
	got=$(tr -s ' \n' ' ' < "$CAN_TMP/recv")
	[ "${got% }" = "${want% }" ] ||
		{ fail "$len bytes: got $(wc -c < "$CAN_TMP/recv") chars"; return 1; }
}

lib_cleanup() {
	local l

	for l in "${CAN_LINKS[@]}"; do
		ip link del dev "$l" 2>/dev/null
	done
	[ ${#CAN_UNLOAD[@]} -eq 0 ] || lib_unload
	rm -rf "$CAN_TMP"
}
trap lib_cleanup EXIT

# The virtual CAN bus of can-vbus (can_vbus.sh, can_vbus_faults.sh).

VBUS_DEBUGFS=/sys/kernel/debug/can_vbus

# vbus_setup: load can-vbus (unloaded at exit) and mount debugfs.
vbus_setup() {
	modprobe can-vbus || return 1
	can_unload_at_exit can_vbus
	[ -d /sys/kernel/debug/can_vbus ] ||
		mount -t debugfs none /sys/kernel/debug 2> /dev/null
	[ -d "$VBUS_DEBUGFS" ]
}

# vbus_add NAME [ip link add options, then "type can" options]: a node,
# deleted at exit; "vbus_add a0 group 7 -- bitrate 500000 ..." puts the
# options before "--" ahead of "type can".
vbus_add() {
	local name=$1 pre=()

	shift
	if [[ " $* " == *" -- "* ]]; then
		while [ "$1" != "--" ]; do
			pre+=("$1")
			shift
		done
		shift
	fi
	ip link add dev "$name" "${pre[@]}" type can "$@" || return 1
	CAN_LINKS+=("$name")
}

# vbus_up NAME [type can options]: vbus_add, then up and ready.
vbus_up() {
	vbus_add "$@" || return 1
	ip link set "$1" up && link_ready "$1"
}

# vbus_node_dir DEV: the node's debugfs directory (DEV is up).
vbus_node_dir() {
	local d

	for d in "$VBUS_DEBUGFS"/*/"$1"; do
		[ -d "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}

# vbus_bus_dir DEV: the debugfs directory of DEV's bus.
vbus_bus_dir() {
	local d

	d=$(vbus_node_dir "$1") || return 1
	dirname "$d"
}

# vbus_counters DEV: "STATE TEC REC" from debugfs, as ip would print the
# state ("ERROR-PASSIVE").
vbus_counters() {
	local d

	d=$(vbus_node_dir "$1") || return 1
	awk '$1 == "state" { s = toupper($2) } $1 == "tec" { t = $2 }
	     $1 == "rec" { r = $2 } END { print s, t, r }' "$d/counters"
}

# vbus_ip_counters DEV: "STATE TEC REC" from ip -d link.
vbus_ip_counters() {
	ip -d link show "$1" | sed -nE \
		's/.* state ([A-Z-]+) \(berr-counter tx ([0-9]+) rx ([0-9]+)\).*/\1 \2 \3/p'
}

# vbus_expect DEV "STATE TEC REC": ip and debugfs agree and show that
# (TEC and REC may be "*" for any).
vbus_expect() {
	local ipc dbg

	ipc=$(vbus_ip_counters "$1")
	dbg=$(vbus_counters "$1")
	log "$1: ip $ipc, debugfs $dbg"
	[ "$ipc" = "$dbg" ] || { fail "$1: ip says $ipc, debugfs $dbg"; return 1; }
	# shellcheck disable=SC2053
	[[ $ipc == $2 ]] || { fail "$1: want $2, have $ipc"; return 1; }
}

# vbus_fault DEV|BUSDIR COMMAND: write a fault command to the node's (DEV)
# or the bus's (a debugfs bus directory) fault file.
vbus_fault() {
	local f

	if [ -d "$1" ]; then
		f=$1/fault
	else
		f=$(vbus_node_dir "$1")/fault
	fi
	echo "$2" > "$f"
}

# vbus_err_awk FILE DEV PROGRAM: run the awk PROGRAM on DEV's error
# frames in a candump -L log, with c (the class, CAN_ERR_FLAG off) and
# d[0..7] in numbers, and bit(x, n) to test bits.
vbus_err_awk() {
	awk -v dev="$2" '
	function hex(s,  i, n) {
		n = 0
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1
		return n
	}
	function bit(x, n) { return int(x / 2 ^ n) % 2 }
	{ split($3, f, "#") }
	$2 != dev || length(f[1]) != 8 || f[1] !~ /^[23]/ { next }
	{
		c = hex(f[1]) % 536870912
		for (i = 0; i < 8; i++)
			d[i] = hex(substr(f[2], 2 * i + 1, 2))
	}
	'"$3" "$1"
}

# vbus_states FILE DEV: the state changes DEV reported in a candump -L
# log, in order: warning passive active bus-off restarted.
vbus_states() {
	vbus_err_awk "$1" "$2" '
	bit(c, 6) { s = s " bus-off" }
	bit(c, 8) { s = s " restarted" }
	bit(c, 2) && bit(d[1], 6) { s = s " active"; next }
	bit(c, 2) && (bit(d[1], 4) || bit(d[1], 5)) { s = s " passive"; next }
	bit(c, 2) && (bit(d[1], 2) || bit(d[1], 3)) { s = s " warning" }
	END { print substr(s, 2) }'
}

# vbus_bus_errors FILE DEV: DEV's bus errors in a candump -L log, one
# word each: KIND:TEC/REC with KIND ack, bit, form or stuff ("tx-" in
# front for the sender), the counters from CAN_ERR_CNT.
vbus_bus_errors() {
	vbus_err_awk "$1" "$2" '
	!bit(c, 7) { next }
	{
		k = "other"
		if (bit(c, 5))
			k = "ack"
		else if (bit(d[2], 0))
			k = "bit"
		else if (bit(d[2], 1))
			k = "form"
		else if (bit(d[2], 2))
			k = "stuff"
		if (bit(d[2], 7))
			k = "tx-" k
		s = s " " k ":" d[6] "/" d[7]
	}
	END { print substr(s, 2) }'
}

# vbus_errdump_start DEV...: candump -L of data and error frames of the
# devices into $CAN_TMP/err; vbus_errdump_stop ends it.
vbus_errdump_start() {
	local args=() d

	for d in "$@"; do
		args+=("$d,0:0,#FFFFFFFF")
	done
	timeout 60 candump -L -r 8000000 "${args[@]}" > "$CAN_TMP/err" 2>&1 &
	VBUS_DUMP_PID=$!
	VBUS_DUMP_DEVS=("$@")
	for d in "$@"; do
		wait_until 10 has_rx_entry "$d" || { fail "candump did not bind"; return 1; }
	done
}

# vbus_data_frames FILE DEV: how many data frames DEV received in a
# candump -L log.
vbus_data_frames() {
	awk -v d="$2" '{ split($3, f, "#") }
	$2 == d && !(length(f[1]) == 8 && f[1] ~ /^[23]/) { n++ }
	END { print n + 0 }' "$1"
}

# vbus_dump_matched: VBUS_DUMP_MATCHED, how many frames the subscriptions
# of candump (the only raw sockets on the dumped devices) have matched.
vbus_dump_matched() {
	local f w

	VBUS_DUMP_MATCHED=0
	for f in /proc/net/can/rcvlist_*; do
		while read -r -a w; do
			[ ${#w[@]} -ge 7 ] && [ "${w[-1]}" = raw ] &&
				[[ " ${VBUS_DUMP_DEVS[*]} " == *" ${w[0]} "* ]] &&
				VBUS_DUMP_MATCHED=$((VBUS_DUMP_MATCHED + w[-2]))
		done < "$f"
	done
}

# vbus_dump_flushed: the dump has every frame the devices took in so far:
# none waits in a CPU's backlog (softnet_stat's twelfth column), and
# candump wrote a line for each one its subscriptions matched. In shell
# builtins: a fork in the emulated guest takes longer than the wait.
vbus_dump_flushed() {
	local w lines

	while read -r -a w; do
		[ ${#w[@]} -gt 12 ] && [ "${w[11]}" != 00000000 ] && return 1
	done < /proc/net/softnet_stat
	vbus_dump_matched
	mapfile -t lines < "$CAN_TMP/err"
	[ ${#lines[@]} -ge "$VBUS_DUMP_MATCHED" ]
}

# vbus_errdump_sync: wait until candump has written out what the kernel
# gave it; the callers check the dump, this only says what is missing.
vbus_errdump_sync() {
	wait_until 5 vbus_dump_flushed && return 0
	vbus_dump_matched
	log "dump: $(wc -l < "$CAN_TMP/err") lines of $VBUS_DUMP_MATCHED frames matched"
}

vbus_errdump_stop() {
	vbus_errdump_sync
	kill "$VBUS_DUMP_PID" 2> /dev/null
	wait "$VBUS_DUMP_PID" 2> /dev/null
	return 0
}
