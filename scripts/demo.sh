#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: batching at work in the two guests. Guest A (guest/demo.sh)
# shows the feature with ethtool, runs iperf3 at 64 flows with TSO on and
# with TSO off, each with batching off and then on, and
# prints the counters after each run; the host prints a side-by-side table
# and writes it as CSV and PNG under $RESULTS/demo/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

out=$RESULTS/demo
TIME=${DEMO_TIME:-6}
# The runs, "FLOWS TSO" each, batching off then on: one home for the
# matrix, which guest/demo.sh runs and the check below counts
RUNS="64 on,64 off"
IFS=, read -r -a runs <<< "$RUNS"
nruns=$((2 * ${#runs[@]}))
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel' first"
rm -rf "$out"
mkdir -p "$out"

say "[1/3] booting guests A and B (TCG takes about 30 s), then the runs:"
say "      $nruns iperf3 runs of $TIME s; guest A's session follows"
touch "$out/demo.log"
tail -n +1 -F "$out/demo.log" 2>/dev/null &
tailpid=$!
trap 'kill $tailpid 2>/dev/null || true' EXIT
guests_job "$out" 900 <<JOB
OUT=$out TIME=$TIME RUNS="$RUNS" bash "$REPO/guest/demo.sh"
JOB
sleep 1
kill $tailpid 2>/dev/null || true
say "[2/3] the guests have powered off"

[ -s "$out/demo.csv" ] && [ "$(wc -l < "$out/demo.csv")" -eq $((nruns + 1)) ] ||
	die "the demo did not produce its $nruns runs (see $out/guest-a.console)"
say "[3/3] results"
python3 "$REPO/scripts/bench_report.py" --demo "$out/demo.csv" "$out"
say "table, CSV and chart in $out/ (demo.csv, demo.png, demo.log)"
