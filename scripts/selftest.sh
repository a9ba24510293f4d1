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
TIMEOUT=${SELFTEST_TIMEOUT:-2400}
out=$RESULTS/selftest

[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel' first"
rm -rf "$out"
mkdir -p "$out"

say "installing kselftests $TARGETS into $out/kselftest"
make -s -C "$TREE/tools/testing/selftests" TARGETS="$TARGETS" \
	INSTALL_PATH="$out/kselftest" install >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; die "kselftest install failed"; }

cat > "$out/job-a.sh" <<JOB
cd "$out/kselftest" && ./run_kselftest.sh 2>&1 | tee "$out/kselftest.tap"
JOB

start=$(date +%s)
guests_run "$out" "$TIMEOUT" || die "guests did not finish (consoles in $out)"
say "guests ran for $(($(date +%s) - start)) s"

[ -s "$out/kselftest.tap" ] || die "no TAP from guest a (console: $out/guest-a.console)"
python3 "$TREE/tools/testing/kunit/kunit.py" parse --json="$out/kselftest.json" "$out/kselftest.tap" |
	tee "$out/parse.log"
