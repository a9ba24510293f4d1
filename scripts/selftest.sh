#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make selftest: install the net/batching kselftests from the tree, boot
# the two guests, run them on guest A against guest B, and judge the TAP on
# the host with kunit.py parse. Results and both consoles go to
# $RESULTS/selftest/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/qemu-configs/guests.sh"

TARGETS=${TARGETS:-net/batching}
# TESTS="reorder.sh gate.sh": run only these scripts (while iterating)
TESTS=${TESTS:-}
# The whole run under TCG took over 40 min on Dec 3 (it hit the former
# 2400 s); a hung guest still ends well inside CI's 90 minutes.
TIMEOUT=${SELFTEST_TIMEOUT:-3000}
out=$RESULTS/selftest

[ "$KERNEL" != kasan ] ||
	die "the KASAN kernel runs KUnit only (see qemu-configs/kasan.config)"
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel' first"
rm -rf "$out"
mkdir -p "$out"

say "installing kselftests $TARGETS into $out/kselftest"
make -s -C "$TREE/tools/testing/selftests" TARGETS="$TARGETS" \
	INSTALL_PATH="$out/kselftest" install >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; die "kselftest install failed"; }

# After the tests, both guests scan for leaks (kmemleak reports into the
# kernel log, hence the console) before they power off.
only=
for t in $TESTS; do
	only+=" -t $TARGETS:$t"
done
echo "RUN_ONLY='$only'" > "$out/job-a.sh"
# BATCHING_* settings of the host reach the tests (BATCHING_GATE_AA=1 ...)
for v in ${!BATCHING_@}; do
	printf 'export %s=%q\n' "$v" "${!v}"
done >> "$out/job-a.sh"
cat >> "$out/job-a.sh" <<'JOB'
cd "$TESTBED_OUT/kselftest" && ./run_kselftest.sh $RUN_ONLY 2>&1 |
	tee "$TESTBED_OUT/kselftest.tap"
scan='mount -t debugfs none /sys/kernel/debug 2>/dev/null;
	f=/sys/kernel/debug/kmemleak;
	if [ -w $f ]; then echo scan > $f; sleep 6; echo scan > $f;
		echo "kmemleak scan: $(grep -c "^unreferenced object" $f) reports";
		cat $f; else echo "kmemleak: $f not available"; fi'
bash -c "$scan" > "$TESTBED_OUT/kmemleak-a.txt" 2>&1
$REMOTE_ARGS "$scan" > "$TESTBED_OUT/kmemleak-b.txt" 2>&1
JOB

start=$(date +%s)
guests_run "$out" "$TIMEOUT" || die "guests did not finish (consoles in $out)"
say "guests ran for $(($(date +%s) - start)) s"

[ -s "$out/kselftest.tap" ] || die "no TAP from guest a (console: $out/guest-a.console)"
rc=0
python3 "$TREE/tools/testing/kunit/kunit.py" parse --json="$out/kselftest.json" "$out/kselftest.tap" |
	tee "$out/parse.log" || rc=1
# Strict: only expected, named skips; every plan matches its results.
python3 "$REPO/scripts/summary.py" "$out/kselftest.tap" || rc=1

# Any kernel splat on either guest fails the run, whatever the TAP says.
for g in a b; do
	head -n 1 "$out/kmemleak-$g.txt" 2>/dev/null | sed "s/^/==> guest $g: /"
	if console_splats "$out/guest-$g.console" "$out/kmemleak-$g.txt" \
		> "$out/splats-$g.txt"; then
		say "guest $g logged kernel problems:"
		head -n 60 "$out/splats-$g.txt"
		rc=1
	else
		say "guest $g: no WARNING, BUG, KASAN, lockdep or kmemleak report"
	fi
done
exit $rc
