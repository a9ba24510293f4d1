#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make selftest: run the net/batching kselftests of the tree on guest A
# against guest B (guests_job in scripts/guests.sh), and judge the TAP on
# the host with kunit.py parse. Results and both consoles go to
# $RESULTS/selftest/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

# TESTS="reorder.sh gate.sh": run only these scripts (while iterating)
TESTS=${TESTS:-}
# SELFTEST_LEAVE_OUT="tcp.sh": scripts the e1000 pass leaves out (make
# check's, scripts/check.sh)
SELFTEST_LEAVE_OUT=${SELFTEST_LEAVE_OUT:-}
# Then the scripts of VIRTIO_TESTS again over the virtio-net wire (eth2;
# guest/init.sh's TESTBED_VIRTIO): the order checks (their netem
# controls run in the one-guest pass only) and the faults under load
# whose path is virtio-net's own (toggles, unbind, tx NAPI, XDP_TX).
# tcp.sh is left to the e1000 pass: its verdicts (every flow moves data,
# batches of more than one packet on average form when on and none when
# off, no transmit timeout) are traffic_run's, which reorder.sh's runs
# pass through too (28 s saved, Dec 7; make check leaves tcp.sh out
# altogether, scripts/check.sh). None
# while iterating with TESTS, unless VIRTIO_TESTS is given too.
if [ -n "$TESTS" ]; then
	VIRTIO_TESTS=${VIRTIO_TESTS-}
else
	VIRTIO_TESTS=${VIRTIO_TESTS-reorder.sh stress.sh}
fi
# Then the scripts of NETNS_TESTS in the one-guest bed (guests.sh's
# netns_cmdline): both ends of an e1000 wire in one guest, the peer in a
# network namespace, REMOTE_TYPE=netns, as upstream's netdev CI runs
# drivers/net tests. None while iterating with TESTS, unless given.
if [ -n "$TESTS" ]; then
	NETNS_TESTS=${NETNS_TESTS-}
else
	NETNS_TESTS=${NETNS_TESTS-reorder.sh gate.sh}
fi
# The whole run under TCG took over 40 min on Dec 3 (it hit the former
# 2400 s), and about 2,740 s of the former 3,000 s on Dec 5 evening with
# the XDP_TX cases; the two-guest passes took 1,950-2,250 s on Dec 7. A
# hung guest still ends inside CI's 90 minutes on a warm cache, with the
# one-guest pass's 900 s after it.
TIMEOUT=${SELFTEST_TIMEOUT:-3300}
out=$RESULTS/selftest

[ "$KERNEL" != kasan ] ||
	die "the KASAN kernel runs KUnit only (see qemu-configs/kasan.config)"
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel' first"
rm -rf "$out"
mkdir -p "$out"

# After the tests, both guests scan for leaks (kmemleak reports into the
# kernel log, hence the console) before they power off.
only=
for t in $TESTS; do
	only+=" -t net/batching:$t"
done
vonly=
for t in $VIRTIO_TESTS; do
	vonly+=" -t net/batching:$t"
done
# The virtio pass's own stress settings (guest/init.sh's TESTBED_VIRTIO
# holds their defaults) given on the host, which init.sh does not see
voverride=
[ -z "${BATCHING_VIRTIO_STRESS_TOGGLES:-}" ] ||
	voverride+=" BATCHING_STRESS_TOGGLES=$BATCHING_VIRTIO_STRESS_TOGGLES"
# (one word for env below: stress.sh takes commas as well as spaces)
[ -z "${BATCHING_VIRTIO_STRESS_CASES:-}" ] ||
	voverride+=" BATCHING_STRESS_CASES=${BATCHING_VIRTIO_STRESS_CASES// /,}"
nonly=
# What the one-guest pass runs, the e1000 pass need not repeat, at equal
# checks over the same e1000 driver: reorder.sh whole (the two-guest bed
# keeps ring.sh's order checks on a small ring, and the fault stage's),
# and gate.sh whole, the retransmission gate with its netem controls
# (its figures in that bed: Documentation/testbed.md).
eskip=$SELFTEST_LEAVE_OUT
for t in $NETNS_TESTS; do
	nonly+=" -t net/batching:$t"
	case $t in
	reorder.sh | gate.sh) eskip+=" $t" ;;
	esac
done
[ -z "$TESTS" ] || [ -z "$SELFTEST_LEAVE_OUT" ] ||
	die "TESTS and SELFTEST_LEAVE_OUT: give one of them"
if [ -z "$TESTS" ] && [ -n "$eskip" ]; then
	progs=$(make -s --no-print-directory \
		-C "$TREE/tools/testing/selftests/net/batching" \
		-f Makefile -f <(printf 'progs:\n\t@echo $(TEST_PROGS)\n') \
		progs)
	[ -n "$progs" ] || die "no TEST_PROGS in the net/batching Makefile"
	for t in $SELFTEST_LEAVE_OUT; do
		[[ " $progs " == *" $t "* ]] ||
			die "SELFTEST_LEAVE_OUT: no script $t in TEST_PROGS"
	done
	for t in $progs; do
		[[ $t == *.sh ]] || die "TEST_PROGS: '$t' is no script"
		[[ " $eskip " == *" $t "* ]] || only+=" -t net/batching:$t"
	done
	[ -n "$only" ] || die "every script of TEST_PROGS left out"
fi
rm -f "$out/kselftest-virtio.tap"
# Each script's start and end, stamped with the guest's clock as the
# runner prints them, go to script-times-*.txt: where the time goes. A
# read loop, not awk: mawk reads a pipe in blocks and would stamp lines
# when its buffer fills. (tee -p: the TAP file does not depend on it.)
stamp_fn='stamp() {
	local l
	while IFS= read -r l; do
		case $l in
		"# selftests: "* | "ok "*" selftests: "* | "not ok "*" selftests: "*)
			printf "%(%s)T %s\n" -1 "$l" ;;
		esac
	done
}'
guests_job "$out" "$TIMEOUT" <<JOB
$stamp_fn
cd "$out/kselftest" && ./run_kselftest.sh $only 2>&1 | tee -p "$out/kselftest.tap" |
	stamp > "$out/script-times-e1000.txt"
[ -z "$vonly" ] || env \$TESTBED_VIRTIO $voverride ./run_kselftest.sh $vonly 2>&1 |
	tee -p "$out/kselftest-virtio.tap" | stamp > "$out/script-times-virtio.txt"
# both guests scan at once
bash "$REPO/guest/kmemleak-scan.sh" > "$out/kmemleak-a.txt" 2>&1 &
\$REMOTE_ARGS bash "$REPO/guest/kmemleak-scan.sh" > "$out/kmemleak-b.txt" 2>&1
wait
JOB
guests="a b"
rc=0
if [ -n "$nonly" ]; then
	# 492 s from boot to power-off on Dec 7 (reorder.sh 181 s, gate.sh
	# 268 s). Guest n writes only under its own share, $out/netns. A
	# guest that does not finish fails the run, after the verdicts on
	# the two-guest passes below (a subshell: guests_job dies).
	(guests_job "$out/netns" 900 netns) <<JOB || { r=$?; [ $r -ne 130 ] || exit 130; rc=1; }
$stamp_fn
cd "$out/netns/kselftest" && ./run_kselftest.sh $nonly 2>&1 |
	tee -p "$out/netns/kselftest-netns.tap" |
	stamp > "$out/netns/script-times-netns.txt"
bash "$REPO/guest/kmemleak-scan.sh" > "$out/netns/kmemleak-n.txt" 2>&1
JOB
	for f in kselftest-netns.tap script-times-netns.txt kmemleak-n.txt; do
		[ ! -e "$out/netns/$f" ] || mv "$out/netns/$f" "$out/"
	done
	guests+=" n"
fi

[ -s "$out/kselftest.tap" ] || die "no TAP from guest a (console: $out/guest-a.console)"
taps=$out/kselftest.tap
if [ -n "$vonly" ]; then
	[ -s "$out/kselftest-virtio.tap" ] ||
		die "no TAP from the virtio-net pass (console: $out/guest-a.console)"
	taps+=" $out/kselftest-virtio.tap"
fi
if [ -n "$nonly" ]; then
	if [ -s "$out/kselftest-netns.tap" ]; then
		taps+=" $out/kselftest-netns.tap"
	else
		say "no TAP from the one-guest pass (console: $out/netns/guest-n.console)"
		rc=1
	fi
fi
for f in "$out"/script-times-*.txt; do
	[ -s "$f" ] || continue
	say "$(basename "$f" .txt): $(awk '$2 == "#" { t = $1; next }
		{ d = $1 - t; sub(/.*selftests: net\/batching: /, ""); sub(/ .*/, "")
		  printf "%s%s %d s", sep, $0, d; sep = ", " }' "$f")"
done
for tap in $taps; do
	python3 "$TREE/tools/testing/kunit/kunit.py" parse \
		--json="${tap%.tap}.json" "$tap" | tee "${tap%.tap}.parse.log" ||
		rc=1
done
# Strict: only expected, named skips; every plan matches its results.
python3 "$REPO/scripts/summary.py" $taps || rc=1

# Any kernel splat on either guest fails the run, whatever the TAP says.
for g in $guests; do
	console=$out/guest-$g.console
	[ "$g" != n ] || console=$out/netns/guest-n.console
	head -n 1 "$out/kmemleak-$g.txt" 2>/dev/null | sed "s/^/==> guest $g: /"
	if ! head -n 1 "$out/kmemleak-$g.txt" 2>/dev/null |
	   grep -q -E '^kmemleak scan: [0-9]+ reports$'; then
		say "guest $g: no kmemleak scan result"
		rc=1
	fi
	if console_splats "$console" "$out/kmemleak-$g.txt" \
		> "$out/splats-$g.txt"; then
		say "guest $g logged kernel problems:"
		head -n 60 "$out/splats-$g.txt"
		rc=1
	else
		say "guest $g: no WARNING, BUG, KASAN, lockdep or kmemleak report"
	fi
done
exit $rc
