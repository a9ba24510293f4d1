# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The measurement library of guest A, sourced by guest/demo.sh and
# guest/bench.sh: the selftests' own library (traffic_run, counters, the
# peer) plus one CSV row per run in the bench's format, which
# scripts/bench_report.py turns into tables and charts. A traffic matrix
# is a loop over `measure` calls. Needs OUT (the shared results directory,
# with the kselftests installed in $OUT/kselftest) and TIME (seconds per
# run); writes $CSV, by default $OUT/bench.csv.
source "$OUT/kselftest/net/batching/lib.sh"
# the peer as the tests find it: its interface, found by its address
require_peer
BATCHING_STATE_SET=state_set
TMP=$(mktemp -d)
CSV=${CSV:-$OUT/bench.csv}
KIND_PREFIX=${KIND_PREFIX:-}

# With INSN_MARK set (make bench INSN_COUNT=1: guest A runs under the
# insn-count plugin, insn-count/), every iperf3 run traffic_run makes is
# a counted run: the marks sit right around the client, so the counts
# leave out the state switch and the counter snapshots around it.
if [ -n "${INSN_MARK:-}" ]; then
	iperf3()
	{
		local rc

		"$INSN_MARK" begin
		command iperf3 "$@"
		rc=$?
		"$INSN_MARK" end
		return $rc
	}
fi

# insn_seq: the number of the plugin's last counted run (0 before any)
insn_seq()
{
	awk '$1 == "run" { s = $2 } END { print s + 0 }' "$OUT/insn-count.txt"
}

# insn_figures SEQ: R_tx_ipp and R_kernel_ipp, the transmit path's and the
# whole kernel's instructions per packet of DEV in the plugin's last run
# after SEQ (traffic_run's retry of a failed iperf3 start makes two);
# empty, said so, when there is none (scripts/bench.sh then stops)
insn_figures()
{
	local seq=$1 pkts line

	R_tx_ipp= R_kernel_ipp=
	[ -n "${INSN_MARK:-}" ] || return 0
	pkts=$(val "$TMP/delta" tx_packets)
	line=$(awk -v s="$seq" '$1 == "run" && $2 > s' "$OUT/insn-count.txt" |
		tail -n 1)
	if [ -z "$line" ] || ! is_count "$pkts"; then
		log_info "no instruction count for this run (plugin line '$line', $pkts packets)"
		return 0
	fi
	set -- $line
	# run SEQ total N user N kernel N tx N
	R_kernel_ipp=$(ratio "$8" "$pkts")
	R_tx_ipp=$(ratio "${10}" "$pkts")
	log_info "instructions/pkt: transmit path $R_tx_ipp, kernel $R_kernel_ipp ($pkts packets)"
}

# state_set STATE: what traffic_run calls to put DEV in STATE. off and on
# switch batching; stock, xmit-more, xmit-more-harder and bql-only
# (unpatched kernels with bench patches) have nothing to
# switch; the sweep kernel's burst shapes (guest/bench.sh) are batching on
# with its bench-only knobs set.
state_set()
{
	local frames=64 every=0 p=/sys/module

	case $1 in
	stock|xmit-more|xmit-more-harder|bql-only) return 0 ;;
	off|on) batching_set "$1"; return ;;
	first-off) batching_set off; return ;;
	series) ;;
	db*) every=${1#db} ;;
	unbounded) frames=256 every=1000000 ;;
	*) echo "state_set: unknown state $1" >&2; return 1 ;;
	esac
	echo $frames > $p/sch_generic/parameters/bench_batch_frames &&
	echo $every > $p/e1000/parameters/bench_doorbell_frames &&
	ethtool -K "$DEV" "$FEATURE" on
}

# max_batch: the most frames one driver call was handed, over all queues,
# since boot (or since the sweep kernel's last reset); empty on stock
max_batch()
{
	cat /sys/class/net/"$DEV"/queues/tx-*/xmit_batch/max_batch \
		2>/dev/null | sort -n | tail -n 1
}

# cpu_busy: sys + softirq seconds of this guest so far (USER_HZ = 100)
cpu_busy()
{
	awk '$1 == "cpu" { printf "%.2f", ($4 + $8) / 100 }' /proc/stat
}

# csv_header: start $CSV, unless it exists, with the column names
# bench_report.py reads
csv_header()
{
	[ ! -s "$CSV" ] || return 0
	echo "kind,flows,tso,batching,rep,gbit,pps,doorbells_per_pkt," \
		"b_nic_drops,avg_batch,cpu_s_per_gbit,retrans,rto,dsack_segs," \
		"qdisc_requeues,rtt_us,max_batch,host_doorbells_per_pkt," \
		"tx_insns_per_pkt,kernel_insns_per_pkt" |
		tr -d ' ' > "$CSV"
}

# host_doorbells: what $HOST_DOORBELLS prints, the device notifications
# counted by this guest's QEMU (the virtio wire's, guest/trace-count.py);
# empty without it
host_doorbells()
{
	[ -z "${HOST_DOORBELLS:-}" ] || $HOST_DOORBELLS
}

# row KIND FLOWS TSO STATE REP SECS CPU: append the last run's figures;
# KIND is prefixed with $KIND_PREFIX (virtio- for the virtio wire)
row()
{
	local kind=$KIND_PREFIX$1 flows=$2 tso=$3 state=$4 rep=$5 secs=$6 cpu=$7
	local pkts drops=${R_peer_nic_drops-}

	pkts=$(val "$TMP/delta" tx_packets)
	# Stock e1000 counts no doorbells (the xmit-more bench patch does;
	# virtio-net counts its kicks), and no stock kernel has a batch
	# list: empty cells, not zeroes.
	case $state in
	stock|bql-only)
		has "$TMP/delta" tx_doorbells || R_db_per_pkt=''
		R_avg_batch='' ;;
	xmit-more|xmit-more-harder) R_avg_batch='' ;;
	esac
	[ "$drops" != n/a ] || drops=''
	echo "$kind,$flows,$tso,$state,$rep,${R_gbit:-0}," \
		"$(ratio "$pkts" "$secs"),${R_db_per_pkt-}," \
		"$drops,${R_avg_batch-}," \
		"$(awk -v c="$cpu" -v g="${R_gbit:-0}" -v s="$secs" \
		   'BEGIN { printf "%.3f", (g > 0 ? c / (g * s) : 0) }')," \
		"${R_nstat_retrans:-0},${R_rto:-0},${R_dsack:-0}," \
		"${R_requeues:-0},${LAT_US:-},$(max_batch),${R_host_db:-}," \
		"${R_tx_ipp:-},${R_kernel_ipp:-}" |
		tr -d ' ' >> "$CSV"
}

# measure KIND FLOWS TSO STATE REP [iperf3 args]: one iperf3 run (KIND tcp
# or udp) of TIME seconds with TSO/GSO and the state set as given, and its
# row. The demo and the bench measure; the selftests judge: the figures of
# a run that a selftest would fail are kept, said as such (stock kernels
# have no batch counters at all). Returns 1 only when iperf3 or the state
# change failed, with no row.
measure()
{
	local kind=$1 flows=$2 tso=$3 state=$4 rep=$5 c0 c1 db0 seq=

	shift 5
	[ -z "${INSN_MARK:-}" ] || seq=$(insn_seq)
	ethtool -K "$DEV" tso "$tso" gso "$tso" >/dev/null 2>&1
	c0=$(cpu_busy)
	db0=$(host_doorbells)
	traffic_run "$kind" "$state" "$flows" "$TIME" "$@" ||
		log_info "(a selftest would fail this run: $R_failed)"
	[ "$R_failed" != iperf3 ] && [ "$R_failed" != batching_set ] ||
		return 1
	R_host_db=
	[ -z "$db0" ] || R_host_db=$(ratio "$(($(host_doorbells) - db0))" \
		"$(val "$TMP/delta" tx_packets)")
	c1=$(cpu_busy)
	# What tells lost packets from needless retransmissions: RTO
	# expiries, and retransmitted segments B reported as duplicates
	R_rto=$R_a_rto
	R_dsack=$(val "$TMP/delta" TcpExtTCPDSACKRecvSegs)
	insn_figures "$seq"
	LAT_US=
	row "$kind" "$flows" "$tso" "$state" "$rep" "$TIME" \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')"
}
