#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sanitize-fault.sh: make sanitize's negative control, in guest A of the
# sanitize-fault kernel (KASAN, plus selftests/faults/
# e1000-batch-faults.patch, never part of the series). batch_fault=6
# frees a clone of the first packet of a batch and reads it afterwards,
# once, and sets the parameter back to 0 itself. Under 64 TCP flows with batching
# on, the fault must have been done (the parameter reads 0 again); the
# host (scripts/sanitize.sh) then requires KASAN's use-after-free report
# in guest A's console, found by the same check that judges the
# sanitize run. KTAP on stdout.
source "$TESTBED_OUT/kselftest/net/batching/lib.sh"

require_traffic iperf3 ethtool jq
FAULT=/sys/module/e1000/parameters/batch_fault
[ -w "$FAULT" ] || fail_all "no $FAULT: not the fault kernel"
# The load's length: long enough for 16 batches many times over (one
# forms whenever the qdisc holds packets behind the one being sent)
TIME=20
cleanup_extra()
{
	echo 0 > "$FAULT"
}
traffic_test_init

uaf_case()
{
	local i

	batching_set on || return 1
	ethtool -K "$DEV" tso off gso off >/dev/null || return 1
	echo 6 > "$FAULT" || return 1
	load_start "$TIME" 64
	for i in $(seq "$TIME"); do
		[ "$(cat "$FAULT")" != 0 ] || break
		sleep 1
	done
	load_wait 64 || log_info "the load did not move data on every flow"
	if [ "$(cat "$FAULT")" != 0 ]; then
		log_info "FAIL: no 16th batch in $TIME s: the fault was not done"
		return 1
	fi
	log_info "the use-after-free was done after about $i s of load"
}

ktap_plan 1
run_test "use_after_free_done_under_load" uaf_case
ktap_finish
