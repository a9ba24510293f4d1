#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo, the part that runs in guest A (demo.sh passes OUT and TIME):
# what a person would type to see batching at work, and one CSV row per
# iperf3 run in $OUT/demo.csv.
set -u
exec > >(tee "$OUT/demo.log") 2>&1
source "$OUT/kselftest/net/batching/lib.sh"
TMP=$(mktemp -d)

# show CMD: print CMD as typed at guest A's prompt, then run it
show()
{
	echo "guest-a# $1"
	eval "$1"
}

counters()
{
	show "ethtool -S $DEV | grep -E 'tx_(packets|doorbells):'"
	show "grep . /sys/class/net/$DEV/queues/tx-0/xmit_batch/*"
}

echo "== the feature, as ethtool shows it"
show "ethtool -k $DEV | grep -E '^(tx-batch-skbs|tcp-segmentation-offload):'"
iperf3_servers
echo "flows,tso,batching,gbit,retrans,avg_batch,doorbells_per_pkt,batches" \
	> "$OUT/demo.csv"
# With TSO on, one 64 KB packet already costs one doorbell, so batching
# changes little; with TSO off, 64 flows make the driver ring once per
# MTU-sized frame, and batching once per batch.
for run in "1 on" "64 on" "64 off"; do
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
		traffic_run tcp "$state" "$flows" "$TIME"
		echo "$flows,$tso,$state,$R_gbit,$R_nstat_retrans,$R_avg_batch," \
			"$R_db_per_pkt,$R_txq_batches" | tr -d ' ' >> "$OUT/demo.csv"
		counters
	done
done
ethtool -K "$DEV" tso on gso on >/dev/null
batching_set off
echo "== done"
