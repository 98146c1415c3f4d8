#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# can-utils' cangw against our can-gw: adding jobs of every kind (-A),
# listing them with their counters (-L), frames routed through them,
# refused requests, deleting one (-D) and flushing (-F). The transcript
# must be the one mainline 6.1's can-gw gives for the same commands,
# recorded in gw_cangw.expected (Debian's can, vcan and can-gw modules in
# the same VM). The interfaces have fixed names because cangw -L prints
# them; frames are sent once candump shows in /proc/net/can. Then the
# permissions: adding and deleting jobs takes CAP_NET_ADMIN in the
# initial user namespace, which neither user nobody nor the root of a
# new user namespace has; listing takes none.

source "$(dirname "$0")/lib/can_test.sh"

EXPECTED=$HERE/gw_cangw.expected
OUT=$CAN_TMP/transcript
# The CRC8 table of polynomial 0x1D (SAE J1850), as cangw -c takes it.
CRC=$(printf '%s' \
	001D3A2774694E53E8F5D2CF9C81A6BBCDD0F7EAB9A4839E25381F02514C6B76 \
	879ABDA0F3EEC9D46F7255481B06213C4A57706D3E230419A2BF9885D6CBECF1 \
	130E2934677A5D40FBE6C1DC8F92B5A8DEC3E4F9AAB7908D362B0C11425F7865 \
	9489AEB3E0FDDAC77C61465B0815322F5944637E2D30170AB1AC8B96C5D8FFE2 \
	263B1C01524F6875CED3F4E9BAA7809DEBF6D1CC9F82A5B8031E3924776A4D50 \
	A1BC9B86D5C8EFF24954736E3D20071A6C71564B1805223F8499BEA3F0EDCAD7 \
	35280F12415C7B66DDC0E7FAA9B4938EF8E5C2DF8C91B6AB100D2A3764795E43 \
	B2AF8895C6DBFCE15A47607D2E3314097F6245580B16312C978AADB0E3FED9C4)
D64=$(printf '%02X' $(seq 1 64))

# run ARGS: cangw's output and exit status, as in the transcript.
run() {
	echo "\$ cangw $*"
	cangw "$@" 2>&1
	echo "rc=$?"
}

section() {
	echo "## $1"
}

add_jobs() {
	section add
	run -A -s gA -d gB -e
	run -A -s gA -d gB -e -f 123:7FF -m AND:IDL:7FF.F.FFFFFFFFFFFFFFFF
	run -A -s gA -d gB -m SET:ID:333.4.1122334455667788 -x 0:3:7:AB -u 42
	run -A -s gA -d gB -t -i -l 1 -m XOR:D:0.0.0102030405060708 \
		-c 0:6:7:FF:0:$CRC -p 3
	run -A -s gA -d gB -e -f 200~7FF -m OR:L:0.9.0000000000000000 \
		-m SET:D:0.0.A0A1A2A3A4A5A6A7 -x -8:-2:-1:0
	run -A -X -s gFA -d gFB -e -M OR:IFLD:100.1.40.$D64
	run -A -X -s gFA -d gFB -e -M SET:L:0.0.C.$D64 -c -12:-2:-1:0:55:$CRC -p 1:7
	run -L
}

route_frames() {
	local pid

	section frames
	timeout 20 candump -L -n 6 gB > "$CAN_TMP/dump" 2>&1 &
	pid=$!
	wait_until 10 has_rx_entry gB || { echo "candump did not bind"; return; }
	cansend gA 123#1122334455667788
	cansend gA 456#01
	cansend gA 200#01020304
	wait $pid
	sed 's/^([0-9.]*) //' "$CAN_TMP/dump" | sort
	section counters
	run -L
}

refused_requests() {
	section errors
	run -A -s gA -d gB -x 0:8:7:0 -m SET:I:1.0.0
	run -A -s gA -d gB -x -9:0:7:0 -m SET:I:1.0.0
	run -A -X -s gFA -d gFB -x 0:63:-64:0 -M SET:I:1.0.0.$D64
	run -A -X -s gFA -d gFB -x 0:64:0:0 -M SET:I:1.0.0.$D64
	run -A -s gA -d gB -l 2
	run -A -s gA -d gB -l 0
	run -A -s lo -d gB
	run -A -s gA -d lo
	run -A -s gA -d gB -x 0:8:7:0
	run -D -s gA -d gB
	run -D -s gA -d gB -e
	section delete-listing
	run -L
	run -F
	section flush-listing
	run -L
}

# same_section NAME: our transcript's section NAME is mainline's.
same_section() {
	diff -u <(sed -n "/^## $1\$/,/^## /p" "$EXPECTED") \
		<(sed -n "/^## $1\$/,/^## /p" "$OUT") | sed 's/^/# /' | cut -c1-200
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

EPERM_MSG="netlink error -1 (Operation not permitted)"

# refused_eperm CMD...: CMD, a cangw run, fails with EPERM.
refused_eperm() {
	local out

	out=$("$@" 2>&1) && { fail "$* succeeded"; return 1; }
	[ "$out" = "$EPERM_MSG" ] || { fail "$*: $out"; return 1; }
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# A job root added stays, whatever nobody asks; nobody still lists it.
# (cangw -L exits with the size of its request, so only its output counts.)
test_nobody_cannot_add_or_delete_jobs() {
	cangw -A -s gA -d gB -e -f 321:7FF || return 1
	refused_eperm as_nobody cangw -A -s gA -d gB -e -f 322:7FF || return 1
	refused_eperm as_nobody cangw -D -s gA -d gB -e -f 321:7FF || return 1
	refused_eperm as_nobody cangw -F || return 1
	as_nobody cangw -L > "$CAN_TMP/list" 2>&1
	sed 's/^/# /' "$CAN_TMP/list"
	[ "$(grep -c '^cangw -A ' "$CAN_TMP/list")" = 1 ] &&
		grep -q '^cangw -A -s gA -d gB -e -f 321:' "$CAN_TMP/list" ||
		{ fail "not exactly root's job listed"; return 1; }
	cangw -F
}

# The root of a new user namespace administers the network namespace it
# made (it can add vcans there) but gets EPERM from can-gw for adding,
# deleting and flushing, as mainline's netlink_capable() check gives it.
test_user_namespace_root_cannot_add_or_delete_jobs() {
	local want

	need_user_namespaces || return
	unshare -Ur -n bash -c '
		ip link add uA type vcan && ip link add uB type vcan || exit 1
		echo "vcans: $(ip -o link show type vcan | wc -l)"
		cangw -A -s uA -d uB -e || echo "add refused"
		cangw -D -s uA -d uB -e || echo "delete refused"
		cangw -F || echo "flush refused"' > "$CAN_TMP/userns" 2>&1
	sed 's/^/# /' "$CAN_TMP/userns"
	want="vcans: 2
$EPERM_MSG
add refused
$EPERM_MSG
delete refused
$EPERM_MSG
flush refused"
	[ "$(cat "$CAN_TMP/userns")" = "$want" ]
}

modprobe can-gw || { echo "Bail out! can-gw does not load"; exit 1; }
cangw -F
vcan_add gA && vcan_add gB && vcan_add gFA 72 && vcan_add gFB 72 ||
	{ echo "Bail out! no vcan"; exit 1; }

{
	add_jobs
	route_frames
	refused_requests
} > "$OUT"

ktap_header 8
run_test cangw_add_and_list_print_as_mainline same_section add
run_test routed_frames_as_mainline same_section frames
run_test counters_listed_as_mainline same_section counters
run_test refused_requests_and_delete_as_mainline same_section errors
run_test listing_after_delete_as_mainline same_section delete-listing
run_test flush_leaves_no_job same_section flush-listing
run_test nobody_cannot_add_or_delete_jobs test_nobody_cannot_add_or_delete_jobs
run_test user_namespace_root_cannot_add_or_delete_jobs \
	test_user_namespace_root_cannot_add_or_delete_jobs
cangw -F
ktap_finish
