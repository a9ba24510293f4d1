#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: batching at work in the two guests. Guest A
# (scripts/demo-guest.sh) shows the feature with ethtool, runs iperf3 at 1
# and 64 flows with TSO on and at 64 flows with TSO off, each with batching
# off and then on, and prints the counters after each run; the host prints a side-by-side table and writes it as CSV and
# PNG under $RESULTS/demo/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/qemu-configs/guests.sh"

out=$RESULTS/demo
TIME=${DEMO_TIME:-8}
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel' first"
rm -rf "$out"
mkdir -p "$out"

say "[1/4] installing the net/batching helpers for the guests"
make -s -C "$TREE/tools/testing/selftests" TARGETS=net/batching \
	INSTALL_PATH="$out/kselftest" install >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; die "kselftest install failed"; }

cat > "$out/job-a.sh" <<JOB
OUT=$out TIME=$TIME bash "$REPO/scripts/demo-guest.sh"
JOB

say "[2/4] booting guests A and B (TCG takes about 30 s), then the runs:"
say "      6 iperf3 runs of $TIME s; guest A's session follows"
touch "$out/demo.log"
tail -n +1 -F "$out/demo.log" 2>/dev/null &
tailpid=$!
trap 'kill $tailpid 2>/dev/null || true' EXIT
start=$(date +%s)
guests_run "$out" 900 || die "guests did not finish (consoles in $out)"
sleep 1
kill $tailpid 2>/dev/null || true
say "[3/4] guests done after $(($(date +%s) - start)) s"

[ -s "$out/demo.csv" ] && [ "$(wc -l < "$out/demo.csv")" -eq 7 ] ||
	die "the demo did not produce its six runs (see $out/guest-a.console)"
say "[4/4] results"
python3 "$REPO/scripts/demo_table.py" "$out/demo.csv" "$out/demo.png"
say "table, CSV and chart in $out/ (demo.csv, demo.png, demo.log)"
