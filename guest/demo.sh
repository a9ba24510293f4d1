#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo, the part that runs in guest A (scripts/demo.sh passes OUT,
# TIME and RUNS): what a person would type to see batching at work. Its
# runs are rows of the bench's format in $OUT/demo.csv (guest/measure.sh),
# which the host turns into the table with the bench's report code.
set -u
exec > >(tee "$OUT/demo.log") 2>&1
CSV=$OUT/demo.csv
source "$(dirname "$0")/measure.sh"

# show CMD: print CMD as typed at guest A's prompt, then run it
show()
{
	echo "guest-a# $1"
	eval "$1"
}

echo "== the feature, as ethtool shows it"
show "ethtool -k $DEV | grep -E '^(tx-batch-skbs|tcp-segmentation-offload):'"
csv_header
iperf3_servers
# With TSO on, one 64 KB packet already costs one doorbell, so batching
# changes little; with TSO off, 64 flows make the driver ring once per
# MTU-sized frame, and batching once per batch. (One flow, in make bench,
# shows nothing more: a single flow never backs the qdisc up.)
IFS=, read -r -a runs <<< "$RUNS"
for run in "${runs[@]}"; do
	set -- $run
	flows=$1 tso=$2
	echo
	echo "== TSO/GSO $tso"
	show "ethtool -K $DEV tso $tso gso $tso"
	for state in off on; do
		echo
		echo "== iperf3, $flows flow(s), TSO $tso, batching $state, $TIME s"
		show "ethtool -K $DEV tx-batch-skbs $state"
		echo "guest-a# iperf3 -c $PEER -P $flows -t $TIME"
		measure tcp "$flows" "$tso" "$state" 1
		show "ethtool -S $DEV | grep -E 'tx_(packets|doorbells):'"
		show "grep . /sys/class/net/$DEV/queues/tx-0/xmit_batch/*"
	done
done
ethtool -K "$DEV" tso on gso on >/dev/null
batching_set off
echo "== done"
