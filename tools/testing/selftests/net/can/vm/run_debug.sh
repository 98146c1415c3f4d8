#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel's run, inside the guest of "make check-debug": the whole
# selftest suite, then the KUnit suites of our modules, then a kmemleak
# scan. Prints KTAP and the totals line "N passed, N failed" last. Kernel
# reports (KASAN, lockdep, RCU, WARN, BUG) are caught by vmtest.sh from the
# console. Arguments name tests to run instead of the whole suite, as
# for run_tests.sh; a first argument --no-kunit leaves the KUnit suites
# out (the guests of a parallel run but one: run_parallel.sh).

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../../.." && pwd)
# The test modules built against this kernel (scripts/can-debug-kernel.sh).
export CAN_TESTMODS=$TOP/build/debug-testmods
# Mainline's drivers built against it (scripts/can-compat-drivers.sh).
export CAN_COMPAT=$CAN_TESTMODS/compat/modules
KMEMLEAK=/sys/kernel/debug/kmemleak
# KASAN, lockdep and the rest make the slowest scripts (can_vbus.sh) take
# 250-300 s here against 130 s on Debian's kernel: twice run_tests.sh's
# limit per test.
export PER_TEST_TIMEOUT=${PER_TEST_TIMEOUT:-600}
kunit=1
if [ "$1" = --no-kunit ]; then
	kunit=0
	shift
fi

# Only what our tests allocate is of interest: forget what boot left.
[ -w $KMEMLEAK ] && echo clear > $KMEMLEAK

"$HERE/run_tests.sh" "$@" | tee /tmp/suite.log
totals='s/^([0-9]*) passed, ([0-9]*) failed, ([0-9]*) skipped$/\1 \2 \3/p'
read -r pass fail skip < <(sed -E -n "$totals" /tmp/suite.log | tail -1)
pass=${pass:-0}
fail=${fail:-1}
skip=${skip:-0}

# KUnit suites report in the kernel log as KTAP when their module loads.
run_kunit() {
	local m name results

	for m in $(find "/lib/modules/$(uname -r)" -name '*kunit*.ko' | sort); do
		name=$(basename "$m" .ko)
		dmesg -C
		if ! modprobe "$name"; then
			echo "not ok - kunit: $name did not load"
			fail=$((fail + 1))
			continue
		fi
		results=$(dmesg | sed -n 's/^\[[^]]*\] //p' | grep -E '^ *(not )?ok [0-9]+ ' )
		echo "$results" | sed 's/^/# kunit: /'
		# Count the cases (indented lines); a suite line repeats them.
		pass=$((pass + $(echo "$results" | grep -cE '^ +ok [0-9]+ ')))
		fail=$((fail + $(echo "$results" | grep -cE '^ +not ok [0-9]+ ')))
		modprobe -r "$name"
	done
}

check_kmemleak() {
	local leaks

	if [ ! -w $KMEMLEAK ]; then
		echo "not ok - kmemleak is not available in this kernel"
		fail=$((fail + 1))
		return
	fi
	# An object is reported only after it stayed unreferenced through
	# two scans some seconds apart.
	echo scan > $KMEMLEAK
	sleep 6
	echo scan > $KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	if [ -n "$leaks" ]; then
		echo "not ok - kmemleak found unreferenced objects"
		echo "$leaks" | sed 's/^/# /'
		fail=$((fail + 1))
	else
		echo "ok - kmemleak found no leak"
		pass=$((pass + 1))
	fi
}

[ $kunit = 0 ] || run_kunit
check_kmemleak
echo "# debug kernel $(uname -r)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
