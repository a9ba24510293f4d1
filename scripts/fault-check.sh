#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fault-check: test the tests against a broken kernel. The test
# kernel plus selftests/faults/e1000-swap-batch-pair.patch (e1000 sends
# the first two packets of every fourth batch swapped; never part of the
# series) is built in its own directory, the order and gate tests run on
# it, and they must fail: reorder.sh's order checks and gate.sh's TSO-off
# gate. Passes only when they did.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

export KERNEL=fault
FAULT_PATCH=$REPO/selftests/faults/e1000-swap-batch-pair.patch
out=$RESULTS/fault
mkdir -p "$out"

# The fault is in the shared tree only while its kernel builds.
git -C "$TREE" apply "$FAULT_PATCH"
trap 'git -C "$TREE" apply -R "$FAULT_PATCH"' EXIT
"$REPO/scripts/kernel.sh" build
git -C "$TREE" apply -R "$FAULT_PATCH"
trap - EXIT

say "running reorder.sh and gate.sh on the broken kernel; they must fail"
RESULTS=$out TESTS="reorder.sh gate.sh" "$REPO/scripts/selftest.sh" || true
tap=$out/selftest/kselftest.tap
[ -s "$tap" ] || die "no TAP from the broken kernel's run"
rc=0
for t in order_tso_off order_tso_on retrans_gate_tso_off_64flows; do
	if grep -qE "^# not ok [0-9]+ $t( # .*)?\$" "$tap"; then
		say "caught: $t failed on the broken kernel"
	else
		say "NOT CAUGHT: $t did not fail on the broken kernel"
		rc=1
	fi
done
exit $rc
