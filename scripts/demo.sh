#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: batching at work in the two guests. Guest A shows the feature
# with ethtool, runs iperf3 at 1 and 64 flows with batching off and then
# on, and prints the counters after each run; the host prints a side-by-side
# table and writes it as CSV and PNG under $RESULTS/demo/.
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
exec > >(tee "$out/demo.log") 2>&1
source "$out/kselftest/net/batching/lib.sh"
TMP=\$(mktemp -d)
show() { echo "guest-a# \$*"; "\$@"; }
counters() {
	show ethtool -S \$DEV | grep -E 'tx_doorbells|tx_batch|tx_packets:'
	show grep -H . /sys/class/net/\$DEV/queues/tx-0/xmit_batch/*
}
echo "== the feature, as ethtool shows it"
show ethtool -k \$DEV | grep -E '^tx-batch-skbs|^tcp-segmentation-offload'
iperf3_server
echo "flows,batching,gbit,retrans,avg_batch,doorbells_per_pkt,batches" > "$out/demo.csv"
for flows in 1 64; do
	for state in off on; do
		echo
		echo "== iperf3, \$flows flow(s), batching \$state, ${TIME} s"
		show ethtool -K \$DEV tx-batch-skbs \$state
		traffic_run tcp \$state \$flows $TIME
		echo "\$flows,\$state,\$R_gbit,\$R_nstat_retrans,\$R_avg_batch,\$R_db_per_pkt,\$R_txq_batches" >> "$out/demo.csv"
		counters
	done
done
batching_set off
echo "== done"
JOB

say "[2/4] booting guests A and B (TCG takes about 30 s), then the runs:"
say "      4 iperf3 runs of $TIME s; guest A's session follows"
touch "$out/demo.log"
tail -n +1 -F "$out/demo.log" 2>/dev/null &
tailpid=$!
trap 'kill $tailpid 2>/dev/null' EXIT
start=$(date +%s)
guests_run "$out" 900 || die "guests did not finish (consoles in $out)"
sleep 1
kill $tailpid 2>/dev/null || true
say "[3/4] guests done after $(($(date +%s) - start)) s"

[ -s "$out/demo.csv" ] && [ "$(wc -l < "$out/demo.csv")" -eq 5 ] ||
	die "the demo did not produce its four runs (see $out/guest-a.console)"
say "[4/4] results"
python3 "$REPO/scripts/demo_table.py" "$out/demo.csv" "$out/demo.png"
say "table, CSV and chart in $out/ (demo.csv, demo.png, demo.log)"
