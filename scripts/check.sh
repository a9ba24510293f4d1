#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole test run. KUnit first, then the selftests in the
# two guests, then KUnit again on the KASAN kernel (each stage runs even
# when an earlier one failed, so one run shows everything), then one
# closing line counting every test case.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# The selftests as make check runs them, inside its time budget (cold,
# under 60 min on 2 cores): TCP at 64 flows only (1 and 8 flows rarely
# form a batch; make bench measures them) and 50 batching toggles in the
# storm (the loss-counting toggle case runs in full). Every must-be-zero
# check and its control still run.
: "${BATCHING_TCP_FLOWS:=64}" "${BATCHING_STRESS_TOGGLES:=50}"
export BATCHING_TCP_FLOWS BATCHING_STRESS_TOGGLES

start=$(date +%s)
rc=0
# The closing verdict must be able to fail: unexpected skips, short plans.
"$REPO/scripts/summary.py" --self-test || rc=1
"$REPO/scripts/kernel.sh" kunit || rc=1
say "KUnit done after $(($(date +%s) - start)) s"
"$REPO/scripts/selftest.sh" || rc=1
say "selftests done after $(($(date +%s) - start)) s"
# The KASAN kernel builds after the guests, not beside them: at nice 19
# during a cold run (Dec 5) it still took about half a core for 40 min,
# slowed the guests by some 390 s (TCP at half its usual rate, 16
# spurious RTOs in one gate run, an ib_write_bw timeout) and had built
# 60% of itself when they were done: no time saved, flaky verdicts.
mkdir -p "$RESULTS"
if ! KERNEL=kasan "$REPO/scripts/kernel.sh" build \
	> "$RESULTS/kasan-build.log" 2>&1; then
	tail -n 20 "$RESULTS/kasan-build.log"
	say "the KASAN kernel did not build (log: $RESULTS/kasan-build.log)"
	rc=1
fi
say "KASAN kernel built after $(($(date +%s) - start)) s"
KERNEL=kasan "$REPO/scripts/kernel.sh" kunit || rc=1
say "KUnit on the KASAN kernel done after $(($(date +%s) - start)) s"
"$REPO/scripts/summary.py" "$RESULTS/kunit.json" \
	"$RESULTS/selftest/kselftest.tap" \
	"$RESULTS/selftest/kselftest-virtio.tap" \
	"$RESULTS/kunit-kasan.json" || rc=1
exit $rc
