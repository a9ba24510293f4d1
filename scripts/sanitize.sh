#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make sanitize: the batch paths under KASAN with real traffic, outside
# make check's time budget (make check keeps KASAN on the KUnit suites).
#  1. the sanitize kernel: the test kernel (kmemleak, lockdep and the
#     rest of its debugging) plus KASAN, qemu-configs/sanitize.config;
#  2. its guest pair, booted with pci=noacpi (GUEST_KERNEL_ARGS, lib.sh),
#     runs the traffic set below with scripts/selftest.sh, whose verdict
#     fails on any KASAN, lockdep, WARNING or kmemleak report in either
#     console, as well as on a failed or unexpectedly skipped case;
#  3. the negative control: the same kernel with
#     selftests/faults/e1000-batch-faults.patch (scripts/fault-kernel.sh),
#     whose batch_fault=6 reads a freed packet once under load
#     (guest/sanitize-fault.sh): the same console check must report it,
#     as KASAN's use-after-free in e1000_batch_fault.
# Results in $RESULTS/sanitize/; one closing line, as make check's.
set -euo pipefail
# (sanitize.sh control BASE_BUILD: step 3 alone, which it runs itself)
stage=${1:-all}
case "$stage $#" in
"all 0" | "all 1") export KERNEL=sanitize ;;
"control 2") export KERNEL=sanitize-fault ;;
*) echo "usage: $0 [control BASE_BUILD]" >&2; exit 1 ;;
esac
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

# The traffic set, batching on under KASAN (see the figures in
# Documentation/testbed.md): over the e1000 wire, the AF_PACKET bypass
# and pktgen beside qdisc traffic on A's two vCPUs (bypass.sh,
# pktgen.sh) and the faults under load with checksummed transfers after
# each (stress.sh: batching toggles, TSO off and on, link flaps, MTU
# changes, TX ring resizes, qdisc swaps, PCI unbind and rebind); over the
# virtio-net wire, its own faults under load (stress.sh's virtio set:
# toggles, unbind, tx NAPI switches, XDP_TX on the shared queue).
SANITIZE_TESTS="bypass.sh pktgen.sh stress.sh"
SANITIZE_VIRTIO_TESTS="stress.sh"
export BATCHING_STRESS_TOGGLES=10 BATCHING_VIRTIO_STRESS_TOGGLES=10
# Each script's time limit three times the settings file's 1,200 s: under
# KASAN stress.sh took 1,039 s over e1000 and ran past 1,200 s over
# virtio-net (Dec 8)
export SELFTEST_TIMEOUT_SCALE=3
# The virtio set of guest/init.sh but slow_tx_napi_down, whose setup
# needs ethtool to run before the slow device's send (every 3 s): under
# KASAN it never did, 3 tries and no refusal (Dec 8), which proves
# nothing about memory safety. tx_napi_switch keeps the tx NAPI switch.
BATCHING_VIRTIO_STRESS_CASES="transfer_check_catches_truncation toggle_storm"
BATCHING_VIRTIO_STRESS_CASES+=" unbind_rebind tx_napi_switch xdp_tx_share"
BATCHING_VIRTIO_STRESS_CASES+=" xdp_echo_order_control xdp_echo_loss_control"
export BATCHING_VIRTIO_STRESS_CASES
# The guests' limit (SELFTEST_TIMEOUT overrides it): on Dec 8 the e1000
# scripts took 2,170 s from boot, and the virtio pass's first two cases
# 246 s of its eight
SANITIZE_TIMEOUT=${SELFTEST_TIMEOUT:-4800}
out=$RESULTS/sanitize
fout=$out/fault
tap=$out/sanitize-fault.tap

# control BASE_BUILD: build the sanitize-fault kernel from BASE_BUILD's
# copy, run the fault under load, and write $tap: ok when the console
# check reported KASAN's use-after-free in e1000_batch_fault
control() {
	local caught=0 why=

	rm -rf "$fout" "$tap"
	mkdir -p "$fout"
	if ! "$REPO/scripts/fault-kernel.sh" "$1"; then
		why="the sanitize-fault kernel did not build"
	else
		say "the use-after-free control: KASAN must report it"
		# (a subshell: guests_job dies when the guests do not finish)
		(guests_job "$fout" 600) <<JOB || why="its guests did not finish"
bash "$REPO/guest/sanitize-fault.sh" > "$fout/sanitize-fault.tap" 2>&1
JOB
	fi
	if [ -n "$why" ]; then
		:
	elif ! [ -s "$fout/sanitize-fault.tap" ] ||
	     ! grep -q '^ok 1 ' "$fout/sanitize-fault.tap"; then
		why="the fault was not done (guest/sanitize-fault.sh)"
	elif ! console_splats "$fout/guest-a.console" \
		> "$fout/splats-a.txt"; then
		why="the console check found no problem in guest A's console"
	elif ! grep -q 'BUG: KASAN: use-after-free in e1000_batch_fault' \
		"$fout/splats-a.txt"; then
		why="no KASAN use-after-free report in e1000_batch_fault"
	else
		caught=1
	fi
	{
		echo "TAP version 13"
		echo "1..1"
		echo "# selftests: sanitize: use_after_free_control"
		sed 's/^/# /' "$fout/sanitize-fault.tap" 2>/dev/null || true
		if [ $caught = 1 ]; then
			grep -m 1 'BUG: KASAN:' "$fout/splats-a.txt" |
				sed 's/^/# the console check found: /'
			echo "ok 1 selftests: sanitize: use_after_free_control"
		else
			echo "not ok 1 selftests: sanitize: use_after_free_control # $why"
		fi
	} > "$tap"
	if [ $caught = 1 ]; then
		say "the control's use-after-free was reported:" \
			"$(grep -m 1 'BUG: KASAN:' "$fout/splats-a.txt")"
	else
		say "the control failed: $why (console: $fout/guest-a.console)"
		return 1
	fi
}

if [ "$stage" = control ]; then
	control "$2"
	exit
fi

for v in TESTS VIRTIO_TESTS NETNS_TESTS SELFTEST_LEAVE_OUT; do
	[ -z "${!v:-}" ] ||
		die "make sanitize runs its own traffic set: unset $v"
done
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
rc=0

"$REPO/scripts/kernel.sh" build
say "sanitize kernel built after $(($(date +%s) - start)) s"

# The traffic set (see SANITIZE_* above): over the e1000 wire and the
# virtio-net wire, batching on, under KASAN
RESULTS=$out TESTS=$SANITIZE_TESTS VIRTIO_TESTS=$SANITIZE_VIRTIO_TESTS \
	NETNS_TESTS= SELFTEST_TIMEOUT=$SANITIZE_TIMEOUT \
	"$REPO/scripts/selftest.sh" || rc=1
say "traffic set done after $(($(date +%s) - start)) s"

# The control: KASAN's report must reach the verdict
"$REPO/scripts/sanitize.sh" control "$BUILD" || rc=1
say "make sanitize done after $(($(date +%s) - start)) s"
taps=$out/selftest/kselftest.tap
[ -z "$SANITIZE_VIRTIO_TESTS" ] || taps+=" $out/selftest/kselftest-virtio.tap"
# shellcheck disable=SC2086 # a list of files
"$REPO/scripts/summary.py" --pin "$REPO/scripts/expected-sanitize-cases.txt" \
	$taps "$tap" || rc=1
exit $rc
