#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault-cases.sh: the selftests' verdicts tested against a broken driver,
# in guest A of the fault kernel (scripts/fault-check.sh). Its e1000 has
# selftests/faults/e1000-batch-faults.patch, never part of the series:
# the batch_fault parameter breaks the batch drain as a driver bug could.
# Each case turns one fault on for one order run of the selftests'
# lib.sh (order_run: batching on, 64 TCP flows backing the queue up, 8
# iperf3 UDP streams and udp_seq.py's numbered datagrams, all counted at
# B) and requires the check that targets the fault to fail, and no other:
#   swap  the first two packets of every 2nd batch: the order check
#         (iperf3's own UDP order count may see it too);
#   drop  the first packet of every 8th batch, freed: the loss check;
#   dup   the first packet of every 8th batch sent twice: the duplicate
#         check (iperf3 counts a duplicate as out of order);
#   leak  a reference taken on the first packet of every 16th batch and
#         never dropped: no check of the run, and kmemleak's scan after
#         it must report leaked skbs.
#   one   one packet per drain, the rest left on the list as if the ring
#         were full (the queue not stopped): the batch-size check, which
#         wants two packets a drain on average.
# KTAP on stdout.
source "$TESTBED_OUT/kselftest/net/batching/lib.sh"

require_traffic iperf3 nstat python3 ethtool tc jq
FAULT=/sys/module/e1000/parameters/batch_fault
[ -w "$FAULT" ] || fail_all "no $FAULT: not the fault kernel"
TIME=5
KMEMLEAK=/sys/kernel/debug/kmemleak
cleanup_extra()
{
	echo 0 > "$FAULT"
}
traffic_test_init

# fault_case FAULT WANT [ALSO]: one order run with FAULT on must fail
# each check named in WANT, and none but those and the ones in ALSO
fault_case()
{
	local fault=$1 want=$2 also=${3:-} f kept=

	ethtool -K "$DEV" tso off gso off >/dev/null || return 1
	echo "$fault" > "$FAULT" || return 1
	log_info "e1000 batch_fault=$(cat "$FAULT")"
	order_run on "$TIME"
	echo 0 > "$FAULT"
	log_info "failed checks: ${R_failed:-none}"
	for f in $R_failed; do
		[[ " $also " == *" $f "* ]] || kept+=" $f"
	done
	R_failed=${kept# }
	# shellcheck disable=SC2086 # WANT is a list of check names
	caught $want
}

# kmemleak_skb_reports: the unreferenced objects kmemleak reports after
# two scans (an object is reported once older than 5 s) whose allocation
# went through __alloc_skb (an skb or its data)
kmemleak_skb_reports()
{
	echo scan > "$KMEMLEAK"
	sleep 6
	echo scan > "$KMEMLEAK"
	awk '/^unreferenced object/ { n++ } /__alloc_skb/ { s[n] = 1 }
	     END { print length(s) }' "$KMEMLEAK"
}

# The leak: before it, kmemleak must report no skb (the earlier cases
# leaked none: a baseline that would otherwise pass for the leak's
# reports); with it, the order run must pass, then the scan must report
# skbs
leak_case()
{
	local n

	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -w "$KMEMLEAK" ] || { log_info "FAIL: no $KMEMLEAK"; return 1; }
	n=$(kmemleak_skb_reports)
	log_info "kmemleak before the leak: $n reports of objects" \
		"allocated by __alloc_skb"
	is_count "$n" || { log_info "FAIL: no kmemleak figure"; return 1; }
	[ "$n" -eq 0 ] || { log_info "FAIL: skbs leaked before"; return 1; }
	fault_case 4 "" || return 1
	n=$(kmemleak_skb_reports)
	log_info "kmemleak: $n reports of objects allocated by __alloc_skb"
	is_count "$n" || { log_info "FAIL: no kmemleak figure"; return 1; }
	[ "$n" -gt 0 ] || { log_info "FAIL: the leak was not reported"; return 1; }
}

ktap_plan 5
run_test order_check_catches_swapped_pair fault_case 1 seq_order udp_order
run_test loss_check_catches_dropped_packet fault_case 2 seq_lost
run_test dup_check_catches_packet_sent_twice fault_case 3 seq_dup udp_order
run_test kmemleak_catches_leaked_packet leak_case
run_test batch_size_check_catches_one_packet_drains fault_case 5 batch_size
ktap_finish
