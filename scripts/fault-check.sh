#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fault-check, and make check's fault stage: the selftests' verdicts
# must fail on a broken driver. The test kernel plus
# selftests/faults/e1000-batch-faults.patch (never part of the series: a
# batch_fault parameter that makes e1000's batch drain swap, drop,
# duplicate or leak packets, or send one per call) is built in its own
# directory, from a copy of the test kernel's (scripts/fault-kernel.sh).
# In its guests, guest/fault-cases.sh turns each fault on for one order
# run and requires the check that targets it to fail, and no other (a
# leak: kmemleak's scan); the patch's use-after-free is make sanitize's
# (KASAN reports it). The TAP goes to $RESULTS/fault-check.tap, in the
# kselftest layout scripts/summary.py counts (pinned in
# scripts/expected-cases.txt).
set -euo pipefail
# the test kernel's build directory, before lib.sh makes BUILD the fault's
test_build=${BUILD:-}
export KERNEL=fault
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

out=$RESULTS/fault
tap=$RESULTS/fault-check.tap
# a stale TAP file would pass for this run's
rm -rf "$out" "$tap"
mkdir -p "$out"

test_build=${test_build:-$CACHE_DIR/build}
"$REPO/scripts/fault-kernel.sh" "$test_build"

say "the fault cases on the broken kernel: each fault must fail its check"
# About 30 s per case and 60 s of boot under TCG
guests_job "$out" 900 <<JOB
bash "$REPO/guest/fault-cases.sh" > "$out/fault-cases.tap" 2>&1
echo \$? > "$out/fault-cases.rc"
JOB
[ -s "$out/fault-cases.tap" ] ||
	die "no TAP from the fault cases (console: $out/guest-a.console)"
rc=0
# Every planned case ran and passed, and the script said so itself
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out/fault-cases.tap")
ran=$(grep -c '^\(not \)\?ok ' "$out/fault-cases.tap" || true)
[ -n "$plan" ] && [ "$plan" = "$ran" ] ||
	{ say "fault-check: planned ${plan:-no} cases, ran $ran"; rc=1; }
[ "$(cat "$out/fault-cases.rc" 2>/dev/null)" = 0 ] ||
	{ say "fault-check: guest/fault-cases.sh did not exit 0"; rc=1; }
while IFS= read -r line; do
	case $line in
	"ok "*) say "fault-check: $line" ;;
	"not ok "*) say "fault-check: $line"; rc=1 ;;
	esac
done < "$out/fault-cases.tap"
# The consoles must hold no kernel problem; guest A's may hold the leak
# case's own kmemleak report line (the patterns of console_splats
# without it), guest B's nothing at all
[ -s "$KERNEL_PROBLEMS" ] || die "no $KERNEL_PROBLEMS"
grep -v 'suspected memory leak' "$KERNEL_PROBLEMS" > "$out/problems-a.txt" ||
	die "cannot read $KERNEL_PROBLEMS"
for f in "$out/guest-a.console" "$out/guest-b.console"; do
	[ -s "$f" ] || { say "fault-check: $f missing or empty"; rc=1; }
done
st=0
{
	grep -h -E -A 12 -f "$out/problems-a.txt" "$out/guest-a.console" ||
		st=$((st | $?))
	grep -h -E -A 12 -f "$KERNEL_PROBLEMS" "$out/guest-b.console" ||
		st=$((st | $?))
} > "$out/splats.txt"
if [ -s "$out/splats.txt" ]; then
	cat "$out/splats.txt"
	say "fault-check: a kernel problem in a guest's log"
	rc=1
elif [ $((st & 2)) -ne 0 ]; then
	say "fault-check: grep failed on the consoles"
	rc=1
fi
# Written last, with every verdict in: the kselftest runner's layout,
# its case count pinned by summary.py
{
	echo "TAP version 13"
	echo "1..1"
	echo "# selftests: fault-check: e1000"
	sed 's/^/# /' "$out/fault-cases.tap"
	if [ $rc -eq 0 ]; then
		echo "ok 1 selftests: fault-check: e1000"
	else
		echo "not ok 1 selftests: fault-check: e1000"
	fi
} > "$tap"
exit $rc
