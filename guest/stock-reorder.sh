#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stock-reorder.sh: guest A's half of make stock-reorder
# (scripts/stock-reorder.sh). Does 6.1 send a TCP flow's packets out of
# order when a second sender shares the queue? The recipe: A on 2 vCPUs,
# 64 TCP flows with TSO off and GSO on (software segments, parked in
# q->gso_skb when the driver refuses the middle of a packet), a TX ring
# of RING descriptors, and pktgen on the same queue past the qdisc
# (start_xmit mode: it fills the ring and stops the queue from the other
# CPU). B captures what its stack gets (tcpdump, after GRO, which merges
# only segments in order) and counts, per flow, the packets that arrive
# behind a later one (pcap_tcp.py late): the wire's own figure. A's TCP
# reordering evidence and retransmissions are printed beside it.
# STATES: "stock" on a kernel without the series (batching untouched),
# "off" and/or "on" with it. One line per run:
#   RESULT STATE RUN frames N late N bytes N capdrops N retrans N
#          a_reorder N pktgen_sent N ring_stops N requeues N
# (requeues: the qdisc's, the path through q->gso_skb that reorders)
# STORM=N then switches the net_dev_start_xmit and net_dev_xmit
# tracepoints on and off N times under the same load: static branches in
# dev_hard_start_xmit(), patched by text_poke_bp() when the kernel has
# CONFIG_JUMP_LABEL (JUMP_LABEL=1 says the kernel has it; testbed.md: the
# int3 seen once with the series), and prints "STORM survived N" if the
# guest lives through it with the load still running.
source "$TESTBED_OUT/kselftest/net/batching/lib.sh"

RUNS=${RUNS:-3}
TIME=${TIME:-20}
RING=${RING:-80}
STATES=${STATES:-stock}
STORM=${STORM:-0}
JUMP_LABEL=${JUMP_LABEL:-0}
PG=/proc/net/pktgen
TRACE_EVENTS=/sys/kernel/tracing/events/net

require_command iperf3 python3 ethtool jq nstat ip tc
require_peer
require_peer_command iperf3 python3 tcpdump
peer_helpers_copy
[ -w "$PG/kpktgend_0" ] || fail_all "no pktgen thread (CONFIG_NET_PKTGEN)"
OLD_RING=$(tx_ring)
CAP_DIR=
cleanup_extra()
{
	echo stop > "$PG/pgctrl" 2>/dev/null
	echo rem_device_all > "$PG/kpktgend_0" 2>/dev/null
	capture_stop
	tx_ring "$OLD_RING" >/dev/null
}
TMP=$(mktemp -d)
trap traffic_test_cleanup EXIT
iperf3_servers

# The capture, as gate.sh takes it (its comments say why each option)
capture_start()
{
	CAP_DIR=$(remote "mktemp -d")
	[[ $CAP_DIR == /* ]] || { CAP_DIR=; return 1; }
	remote "setsid sh -c 'echo \$\$ > $CAP_DIR/pid; exec tcpdump" \
		"-i $PEER_DEV -Q in -n -s 96 -B 16384 -w $CAP_DIR/cap.pcap" \
		"tcp dst port $IPERF_PORT' >/dev/null 2>$CAP_DIR/err &"
	busywait 10000 remote "grep -q 'listening on' $CAP_DIR/err" \
		>/dev/null && return 0
	log_info "tcpdump on the peer: $(remote "cat $CAP_DIR/err")"
	capture_stop
	return 1
}

capture_stop()
{
	[ -n "$CAP_DIR" ] || return 0
	remote "p=\$(cat $CAP_DIR/pid 2>/dev/null) && kill -INT \$p &&" \
		"for i in \$(seq 50); do kill -0 \$p 2>/dev/null || break;" \
		"sleep 0.2; done; kill -9 \$p 2>/dev/null;" \
		"${1:+$1;} rm -rf $CAP_DIR"
	CAP_DIR=
}

# nstat_value NAME: the kernel's running total of counter NAME
nstat_value()
{
	nstat -asz -j | jq -r ".kernel.$1 // empty"
}

evidence()
{
	echo $(($(nstat_value TcpExtTCPSACKReorder) +
		$(nstat_value TcpExtTCPTSReorder) +
		$(nstat_value TcpExtTCPRenoReorder)))
}

# pktgen_start: pktgen sends to B's discard port at 5,000 packets a
# second (pktgen.sh's rate) until stopped, start_xmit mode
pktgen_start()
{
	local mac

	mac=$(ip -j neigh show "$PEER" dev "$DEV" | jq -r '.[0].lladdr')
	echo rem_device_all > "$PG/kpktgend_0"
	echo "add_device $DEV" > "$PG/kpktgend_0" &&
	echo "count 0" > "$PG/$DEV" && echo "pkt_size 310" > "$PG/$DEV" &&
	echo "clone_skb 0" > "$PG/$DEV" && echo "delay 200000" > "$PG/$DEV" &&
	echo "xmit_mode start_xmit" > "$PG/$DEV" &&
	echo "dst $PEER" > "$PG/$DEV" && echo "dst_mac $mac" > "$PG/$DEV" &&
	echo "udp_dst_min 9" > "$PG/$DEV" && echo "udp_dst_max 9" > "$PG/$DEV" ||
		return 1
	echo start > "$PG/pgctrl" &
	PG_PID=$!
}

# pktgen_stop: stop pktgen; PG_SENT: how many packets it sent
pktgen_stop()
{
	echo stop > "$PG/pgctrl"
	wait "$PG_PID"
	PG_SENT=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' "$PG/$DEV")
}

# requeues: the packets A's qdisc took back from the driver
requeues()
{
	tc -s -j qdisc show dev "$DEV" | jq '[.[].requeues] | add'
}

# restarts: how often e1000 woke a queue it had stopped for a full ring
restarts()
{
	ethtool -S "$DEV" | awk '$1 == "tx_restart_queue:" { print $2 }'
}

# one_run STATE RUN: the recipe for TIME s, one RESULT line
one_run()
{
	local state=$1 run=$2 r0 e0 q0 rq0 cap bytes

	case $state in
	stock) ;;
	*) batching_set "$state" || return 1 ;;
	esac
	ethtool -K "$DEV" tso off gso on >/dev/null || return 1
	ping -c 1 -W 2 "$PEER" >/dev/null || return 1
	capture_start || return 1
	pktgen_start ||
		{ log_info "pktgen refused its setup"; capture_stop; return 1; }
	r0=$(nstat_value TcpRetransSegs)
	e0=$(evidence)
	q0=$(restarts)
	rq0=$(requeues)
	iperf3 -c "$PEER" -p "$IPERF_PORT" -P 64 -t "$TIME" -J > "$TMP/run.json"
	bytes=$(jq -r '.end.sum_received.bytes // empty' "$TMP/run.json")
	pktgen_stop
	cap=$(capture_stop "python3 $PEER_LIBDIR/pcap_tcp.py late \
		$CAP_DIR/cap.pcap &&
		sed -n 's/ packets* dropped by kernel//p' $CAP_DIR/err" |
		paste -sd ' ')
	CAP_DIR=
	if ! is_count "$bytes"; then
		log_info "iperf3 failed: $(jq -r '.error // empty' "$TMP/run.json")"
		return 1
	fi
	[[ $cap =~ ^frames\ ([0-9]+)\ late\ ([0-9]+)\ bytes\ ([0-9]+)\ ([0-9]+)$ ]] ||
		{ log_info "no count from B's capture: '$cap'"; return 1; }
	# the capture holds what iperf3's receiver got, or more
	[ "${BASH_REMATCH[3]}" -ge "$bytes" ] ||
		log_info "the capture holds ${BASH_REMATCH[3]} of $bytes bytes"
	echo "RESULT $state $run frames ${BASH_REMATCH[1]}" \
		"late ${BASH_REMATCH[2]} bytes ${BASH_REMATCH[3]}" \
		"capdrops ${BASH_REMATCH[4]}" \
		"retrans $(($(nstat_value TcpRetransSegs) - r0))" \
		"a_reorder $(($(evidence) - e0)) pktgen_sent ${PG_SENT:-?}" \
		"ring_stops $(($(restarts) - q0))" \
		"requeues $(($(requeues) - rq0))"
}

# storm: STORM switches of both tracepoints under the load, which must
# outlast them
storm()
{
	local i=0 ev start load

	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -w "$TRACE_EVENTS/net_dev_xmit/enable" ] ||
		{ log_info "no tracefs events"; return 1; }
	log_info "storm: $STORM switches, CONFIG_JUMP_LABEL=$JUMP_LABEL"
	ethtool -K "$DEV" tso off gso on >/dev/null
	pktgen_start || return 1
	iperf3 -c "$PEER" -p "$IPERF_PORT" -P 64 -t 3000 -J \
		> "$TMP/storm.json" 2>&1 &
	load=$!
	sleep 3
	start=$(date +%s)
	while [ $i -lt "$STORM" ] && kill -0 "$load" 2>/dev/null; do
		for ev in net_dev_start_xmit net_dev_xmit; do
			echo 1 > "$TRACE_EVENTS/$ev/enable"
			echo 0 > "$TRACE_EVENTS/$ev/enable"
		done
		i=$((i + 1))
		[ $((i % 500)) -ne 0 ] || log_info "storm: $i switches"
	done
	if ! kill -0 "$load" 2>/dev/null; then
		log_info "the load ended after $i switches:" \
			"$(jq -r '.error // empty' "$TMP/storm.json" 2>/dev/null |
				tail -n 3)"
		pktgen_stop
		return 1
	fi
	kill -INT "$load"
	wait "$load"
	pktgen_stop
	echo "STORM survived $i in $(($(date +%s) - start)) s," \
		"pktgen sent $PG_SENT"
}

tx_ring "$RING" >/dev/null || fail_all "cannot set a TX ring of $RING"
log_info "TX ring $(tx_ring), $(nproc) CPUs, kernel $(uname -r)"
for run in $(seq "$RUNS"); do
	for state in $STATES; do
		one_run "$state" "$run" || echo "RESULT $state $run failed"
	done
done
[ "$STORM" -eq 0 ] || storm
