#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole test run. KUnit first, the instruction counter's
# check, then the selftests in the two guests, the fault cases on the
# broken kernel, then KUnit again on the KASAN kernel (each stage runs
# even when an earlier one failed, so one run shows everything), then
# one closing line counting every test case.
set -uo pipefail

# CI must not be weakened from outside: no subset of the tests, no other
# kernel, fewer vCPUs or selftest figures from the caller's environment.
# (Empty counts as unset: the Makefile exports what it may be given.)
for v in TESTS VIRTIO_TESTS NETNS_TESTS SELFTEST_LEAVE_OUT SELFTEST_TIMEOUT \
	 SELFTEST_TIMEOUT_SCALE \
	 KERNEL GUEST_A_CPUS TCG_THREAD KUNIT_NO_BUILD \
	 GUEST_B_CPUS KUNIT_CPUS ${!BATCHING_@}; do
	if [ -n "${!v:-}" ]; then
		echo "error: make check runs every test as pinned: unset $v" \
			"(make selftest and make kunit take it while iterating)" >&2
		exit 1
	fi
done

. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

# The selftests as make check runs them, inside its time budget (cold,
# under 60 min on 2 cores): no tcp.sh (its runs, 64 TCP flows with TSO
# off and on, batching off and on, each judged by traffic_run, are
# gate.sh's runs, which gate.sh judges further; make selftest runs it at
# 1, 8 and 64 flows, make bench measures them), 50 batching toggles in
# the storm (the loss-counting toggle case runs in full) and one round of
# rdma.sh's RDMA runs with batching off, then on (make selftest runs two,
# off, on, off, on; rxe's counters rose by the same 4 events in every
# round of the cold run of cc2dd4c on Dec 7, off and on alike, and the
# second round took 42 s).
# Every must-be-zero check and its control still run.
export SELFTEST_LEAVE_OUT=tcp.sh BATCHING_STRESS_TOGGLES=50 \
	BATCHING_RDMA_ROUNDS=1

start=$(date +%s)
rc=0
# The KASAN kernel builds beside the first stages, whose verdicts do not
# depend on time, at the lowest priority: it takes what the test
# kernel's build (its link steps leave a core idle), the KUnit runs and
# the instruction counts leave. It must be done before the selftest
# guests start: built beside them (nice 19, Dec 5) it took about half a
# core for 40 min, slowed the guests by some 390 s (TCP at half its
# usual rate, 16 spurious RTOs in one gate run, an ib_write_bw timeout)
# and had built 60% of itself when they were done. It runs as a job of
# its own (set -m: its own process group, to be stopped as a whole) in
# this script's session, so its nice counts against this script's
# within their scheduler autogroup (setsid would make a new autogroup,
# whose share nice does not lower).
mkdir -p "$RESULTS"
# KUnit's results of an earlier run would pass for this one's
rm -f "$RESULTS/kunit.json" "$RESULTS/kunit-kasan.json" \
	"$RESULTS"/kunit-kmemleak-control*
# Ctrl-C, a kill or a failure of this script stops that build with it,
# and waits until its whole process group is gone: a new run must not
# find it still writing. (A signal to this script alone takes effect
# once the stage in the foreground ends.)
kasan_build=
stop_kasan_build() {
	local i

	[ -n "$kasan_build" ] || return 0
	kill -- "-$kasan_build" 2>/dev/null
	for i in $(seq 50); do
		kill -0 -- "-$kasan_build" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL -- "-$kasan_build" 2>/dev/null
}
trap stop_kasan_build EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
set -m
nice -n 19 env KERNEL=kasan "$REPO/scripts/kernel.sh" build \
	< /dev/null > "$RESULTS/kasan-build.log" 2>&1 &
kasan_build=$!
set +m
# The closing verdict must be able to fail: unexpected skips, short plans,
# a pinned case missing, a console with a splat or none at all.
"$REPO/scripts/summary.py" --self-test || rc=1
# Lint: shellcheck and pyflakes3 on every script, the selftests' too
"$REPO/scripts/lint.sh" || rc=1
console_splats_self_test || rc=1
# The kmemleak scan after the suites must report leaked packets, on the
# kernel the KUnit run has just built. A KUnit run that failed but left
# its results had that kernel; one that left none failed to build it,
# and the control is left out (a second build would fail the same way,
# and the bzImage there may be an older one).
"$REPO/scripts/kernel.sh" kunit || rc=1
if [ -s "$RESULTS/kunit.json" ]; then
	KUNIT_NO_BUILD=1 "$REPO/scripts/kernel.sh" kmemleak-control || rc=1
else
	rc=1
	say "no KUnit results: the kmemleak control is left out"
fi
say "KUnit done after $(($(date +%s) - start)) s"
# The instruction counter make bench reads must still count, and must
# fail its function cases on a map that does not fit the kernel
"$REPO/scripts/insn-count.sh" check || rc=1
say "insn-count check done after $(($(date +%s) - start)) s"
kasan_rc=0
wait "$kasan_build" || kasan_rc=$?
kasan_build=
if [ $kasan_rc -ne 0 ]; then
	tail -n 20 "$RESULTS/kasan-build.log"
	say "the KASAN kernel did not build (log: $RESULTS/kasan-build.log);" \
		"its KUnit run is left out, which fails make check"
	rc=1
else
	say "KASAN kernel built after $(($(date +%s) - start)) s"
fi
"$REPO/scripts/selftest.sh" || rc=1
say "selftests done after $(($(date +%s) - start)) s"
# The broken kernel: each fault of e1000's batch drain must fail the
# check that targets it, and no other
"$REPO/scripts/fault-check.sh" || rc=1
say "fault check done after $(($(date +%s) - start)) s"
# KUnit on the KASAN kernel, built beside the first stages
[ $kasan_rc -ne 0 ] ||
	KERNEL=kasan KUNIT_NO_BUILD=1 "$REPO/scripts/kernel.sh" kunit || rc=1
say "KUnit on the KASAN kernel done after $(($(date +%s) - start)) s"
"$REPO/scripts/summary.py" --pin "$REPO/scripts/expected-cases.txt" \
	"$RESULTS/kunit.json" \
	"$RESULTS/insn-count.tap" \
	"$RESULTS/selftest/kselftest.tap" \
	"$RESULTS/selftest/kselftest-virtio.tap" \
	"$RESULTS/selftest/kselftest-netns.tap" \
	"$RESULTS/fault-check.tap" \
	"$RESULTS/kunit-kasan.json" || rc=1
exit $rc
