#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench, the part that runs in guest A. scripts/bench.sh passes OUT,
# REPS, FIRST_REP (the number of the first round), TIME and STATES ("off
# on"; "stock" or "xmit-more" for an unpatched kernel; "sweep" for the
# burst sweep on the sweep kernel). Every configuration runs in each state
# back to back, and the whole matrix is repeated REPS times, so that drift
# and noise of the emulated link hit all sides alike. One row per run in
# $OUT/bench.csv (guest/measure.sh). With BENCH_LINK=virtio (and the
# settings of guest/init.sh's TESTBED_VIRTIO), the virtio-net wire's
# matrix instead: TCP at 1, 8 and 64 flows, TSO off (all its device
# offers here), kinds virtio-tcp, with QEMU's count of notifications, and
# on the patched kernel first each with batching off before it was ever
# on in the boot (state first-off).
set -u
source "$(dirname "$0")/measure.sh"
SOCKPERF_PORT=11111

# pktgen STATE REP: the driver-level reference, xmit_more bursts of 32
# straight from pktgen, no qdisc and so no batch list
pktgen()
{
	local state=$1 rep=$2 mac c0 c1 t0 t1 pps d pg=/proc/net/pktgen seq=

	state_set "$state"
	ping -c 1 -W 1 "$PEER" >/dev/null
	mac=$(ip -j neigh show "$PEER" dev "$DEV" | jq -r '.[0].lladdr')
	echo "rem_device_all" > $pg/kpktgend_0
	echo "add_device $DEV" > $pg/kpktgend_0
	{
		echo "count 200000"; echo "pkt_size 60"; echo "burst 32"
		echo "dst $PEER"; echo "dst_mac $mac"; echo "delay 0"
	} | while read -r l; do echo "$l" > "$pg/$DEV"; done
	counters_snapshot "$TMP/before"
	c0=$(cpu_busy)
	t0=$(date +%s.%N)
	[ -z "${INSN_MARK:-}" ] || { seq=$(insn_seq); "$INSN_MARK" begin; }
	echo start > $pg/pgctrl
	[ -z "${INSN_MARK:-}" ] || "$INSN_MARK" end
	t1=$(date +%s.%N)
	c1=$(cpu_busy)
	counters_snapshot "$TMP/after"
	counters_delta "$TMP/before" "$TMP/after" "$TMP/delta"
	R_gbit=$(grep -o '([0-9]*bps)' "$pg/$DEV" | tr -dc 0-9 |
		awk '{ printf "%.3f", $1 / 1e9 }')
	pps=$(grep -o '[0-9]*pps' "$pg/$DEV")
	d=$TMP/delta
	R_db_per_pkt=$(ratio "$(val "$d" tx_doorbells)" "$(val "$d" tx_packets)")
	R_avg_batch=$(ratio "$(val "$d" txq_packets)" "$(val "$d" txq_batches)")
	R_nstat_retrans=0 R_rto=0 R_dsack=0 R_peer_nic_drops= R_host_db=
	insn_figures "$seq"
	R_requeues=$(val "$d" qdisc_requeues)
	LAT_US=
	echo "rem_device_all" > $pg/kpktgend_0
	log_info "pktgen batching=$state: $pps, doorbells/pkt=$R_db_per_pkt"
	row pktgen 1 - "$state" "$rep" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')"
}

# latency STATE REP: TCP request/response (sockperf ping-pong, 64 bytes),
# or ping when sockperf is missing; mean round trip in microseconds
latency()
{
	local state=$1 rep=$2 out

	state_set "$state"
	counters_snapshot "$TMP/before"
	if command -v sockperf >/dev/null; then
		out=$(sockperf pp --tcp -i "$PEER" -p $SOCKPERF_PORT -m 64 \
			-t "$TIME" 2>&1)
		LAT_US=$(echo "$out" |
			sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1)
		# sockperf prints half the round trip
		LAT_US=$(awk -v l="$LAT_US" 'BEGIN { printf "%.1f", 2 * l }')
	else
		out=$(ping -q -c 500 -i 0.01 "$PEER")
		LAT_US=$(echo "$out" | awk -F/ '/^rtt/ { printf "%.1f", $5 * 1000 }')
	fi
	counters_snapshot "$TMP/after"
	counters_delta "$TMP/before" "$TMP/after" "$TMP/delta"
	R_gbit=0 R_db_per_pkt=0 R_avg_batch=0 R_nstat_retrans=0 R_requeues=0
	R_rto=0 R_dsack=0 R_peer_nic_drops= R_host_db= R_tx_ipp= R_kernel_ipp=
	log_info "latency batching=$state: round trip $LAT_US us"
	row latency 1 on "$state" "$rep" "$TIME" 0
}

# peer_rx_ring N: B's e1000 RX ring size; the NIC resets, so wait for
# the link to carry pings again
peer_rx_ring()
{
	remote "ethtool -G $PEER_DEV rx $1" || return 1
	busywait 30000 ping -c 1 -W 1 "$PEER" >/dev/null
}

# sweep: TSO off, 64 flows, the burst shapes of the sweep kernel against
# batching off, with B's RX ring at 256 (e1000's default) and at 4096
# (its maximum). Shapes: series (the series as it is), dbN (a TDT write
# every N frames inside a batch of at most 64), unbounded (batches of up
# to 256 frames, one TDT write each: the series before the bound). Then
# the same at a fixed offered load, 4 Mbit/s per flow (256 Mbit/s, below
# what every shape carries), to tell burst shape from load.
sweep()
{
	local rep=$1 rx shape

	ethtool -K "$DEV" tso off gso off >/dev/null 2>&1
	for rx in 256 4096; do
		peer_rx_ring $rx || { echo "B's RX ring $rx: no link"; return 1; }
		for shape in off series db8 db16 db32 db64 unbounded; do
			echo 0 | tee /sys/class/net/"$DEV"/queues/tx-*/xmit_batch/max_batch >/dev/null
			measure "sweep-rx$rx" 64 off "$shape" "$rep"
		done
	done
	peer_rx_ring 256
	for shape in off series unbounded; do
		echo 0 | tee /sys/class/net/"$DEV"/queues/tx-*/xmit_batch/max_batch >/dev/null
		measure "fixed-rx256" 64 off "$shape" "$rep" -b 4M
	done
}

if [ -n "${INSN_MARK:-}" ] && [ ! -x "$INSN_MARK" ]; then
	echo "bench: no mark program at $INSN_MARK"
	exit 1
fi
csv_header
iperf3_servers
if [ "${BENCH_LINK:-e1000}" = virtio ]; then
	KIND_PREFIX=virtio-
	# Read by B: A reading its own trace through its own 9p would make
	# its QEMU trace a notification per read into the file being read.
	HOST_DOORBELLS="remote python3 $(dirname "$(readlink -f "$0")")"
	HOST_DOORBELLS+="/trace-count.py $OUT/guest-a.nic-trace virtio-tx-kicks"
	# Batching off before it was first turned on in this boot: what
	# "off" after "on" must match once BQL's state is forgotten
	case " $STATES " in
	*" on "*)
		for flows in 1 8 64; do
			measure tcp "$flows" off first-off "${FIRST_REP:-1}"
		done ;;
	esac
	for rep in $(seq "${FIRST_REP:-1}" $((${FIRST_REP:-1} + REPS - 1))); do
		echo "== virtio round $rep"
		for flows in 1 8 64; do
			for state in $STATES; do
				measure tcp "$flows" off "$state" "$rep"
			done
		done
	done
	state_set "${STATES%% *}"
	echo "== virtio bench done"
	exit 0
fi
# BENCH_SET=cost: the configurations of the cost table only (TCP, 64
# flows TSO off and on, 8 flows TSO off), each state back to back
if [ "${BENCH_SET:-full}" = cost ]; then
	for rep in $(seq "${FIRST_REP:-1}" $((${FIRST_REP:-1} + REPS - 1))); do
		echo "== cost round $rep"
		for cfg in "64 off" "64 on" "8 off"; do
			for state in $STATES; do
				# shellcheck disable=SC2086
				measure tcp ${cfg% *} ${cfg#* } "$state" "$rep"
			done
		done
	done
	state_set "${STATES%% *}"
	echo "== bench done: $(($(wc -l < "$CSV") - 1)) runs"
	exit 0
fi
remote "pkill -x sockperf; setsid sockperf sr --tcp -i $PEER" \
	"-p $SOCKPERF_PORT >/dev/null 2>&1 &"
if [ "$STATES" = sweep ]; then
	for rep in $(seq "${FIRST_REP:-1}" $((${FIRST_REP:-1} + REPS - 1))); do
		echo "== sweep round $rep"
		sweep "$rep"
	done
	state_set series
	echo "== bench done: $(($(wc -l < "$CSV") - 1)) runs"
	exit 0
fi
for rep in $(seq "${FIRST_REP:-1}" $((${FIRST_REP:-1} + REPS - 1))); do
	echo "== round $rep"
	for tso in on off; do
		for flows in 1 8 64; do
			for state in $STATES; do
				measure tcp "$flows" "$tso" "$state" "$rep"
			done
		done
	done
	for state in $STATES; do
		measure udp 8 off "$state" "$rep" -b 0 -l 64
	done
	ethtool -K "$DEV" tso on gso on >/dev/null 2>&1
	for state in $STATES; do
		pktgen "$state" "$rep"
	done
	for state in $STATES; do
		latency "$state" "$rep"
	done
done
state_set "${STATES%% *}"
echo "== bench done: $(($(wc -l < "$CSV") - 1)) runs"
