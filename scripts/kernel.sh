#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel, built and run by kunit.py from the repo's kunitconfig
# (KERNEL=kasan, release, sanitize or sanitize-fault adds a fragment from
# qemu-configs/; see lib.sh).
#   kernel.sh build   - configure and build (incremental, ccache)
#   kernel.sh kunit   - build if needed, boot with kunit.enable=1, parse;
#                       the test kernel then scans for leaks (with
#                       KUNIT_NO_BUILD=1 no build: make check, on the
#                       kernel it has just built)
#   kernel.sh kmemleak-control - that scan's negative control
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
mkdir -p "$BUILD" "$RESULTS"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}

case "${1:-}" in
build)
	start=$(date +%s)
	kunit_py build --jobs="$JOBS"
	say "$KERNEL kernel built in $(($(date +%s) - start)) s: $BZIMAGE"
	;;
kunit | kmemleak-control)
	accel=$(guest_accel)
	qemu="-accel $accel -smp $KUNIT_CPUS"
	name=$KUNIT_RESULTS
	cmd=$1
	set --
	# The test kernel goes on from the suites to a kmemleak scan from
	# userspace (guest/kunit-init.sh on the host's / over 9p), so that
	# the run reports what the suites leaked. The KASAN kernel reboots
	# (QEMU's -no-reboot ends it) after the suites: it has no 9p (it
	# serves no selftest guest: qemu-configs/kasan.config).
	scan=
	unset KUNIT_USERSPACE
	if [ "$KERNEL" = test ]; then
		scan=1
		export KUNIT_USERSPACE=1
		qemu+=" -virtfs $ROOT_9P_VIRTFS"
		set -- --kernel_args="$ROOT_9P_ARGS init=$REPO/guest/kunit-init.sh panic=-1"
	fi
	# kmemleak-control: the scan's negative control. One suite, with
	# the fake driver leaking the first 16 packets it takes: the scan must
	# report them (at least 8: kmemleak misses an object while a stale
	# copy of its address remains in memory it scans). It is judged on
	# those reports alone: kunit.py's filtered run frees its copies of the
	# suites, which leaves their case logs unreferenced too.
	if [ "$cmd" = kmemleak-control ]; then
		[ -n "$scan" ] || die "kmemleak-control runs on the test kernel"
		name=$KUNIT_RESULTS-kmemleak-control
		set -- "$@" --kernel_args=xmit_batch_test.kmemleak_control=16 \
			xmit-batch-order
	fi
	# KUNIT_NO_BUILD=1: BUILD holds the kernel just built (make check,
	# after the build it waited for): boot it without kunit.py's make,
	# which takes 17-20 s to find nothing to do
	run=(run --jobs="$JOBS")
	[ "${KUNIT_NO_BUILD:-}" != 1 ] || run=(exec)
	say "KUnit under QEMU, accelerator: $accel, $KUNIT_CPUS vCPUs"
	kunit_py "${run[@]}" --qemu_args="$qemu" \
		--json="$RESULTS/$name.json" "$@" 2>&1 |
		tee "$RESULTS/$name.log"
	cp "$BUILD/test.log" "$RESULTS/$name-console.log"
	leaks=
	if [ -n "$scan" ]; then
		leaks=$(sed -n 's/^kmemleak scan: \([0-9]*\) reports$/\1/p' \
			"$RESULTS/$name-console.log" | tail -n 1)
		[[ $leaks =~ ^[0-9]+$ ]] ||
			die "no kmemleak scan result in $RESULTS/$name-console.log"
	fi
	if [ "$cmd" = kmemleak-control ]; then
		caught=$(sed -n '/^kmemleak scan:/,$p' \
			"$RESULTS/$name-console.log" | grep -c '__xb_skb')
		# Two objects per packet: the skb and its data
		[ "$caught" -ge 8 ] ||
			die "kmemleak reported $caught objects of the 16 packets the control leaked (32 objects)"
		say "kmemleak control: $caught of the 32 objects of the 16 leaked packets reported"
		exit 0
	fi
	# kunit.py judges the KTAP only: a lockdep, KASAN or sleep-in-atomic
	# report during the suites, or a leak the scan found, fails the run
	# as well.
	rc=0
	if console_splats "$RESULTS/$name-console.log" \
		> "$RESULTS/$name-splats.txt"; then
		say "the $KERNEL kernel logged problems during the KUnit run:"
		head -n 60 "$RESULTS/$name-splats.txt"
		rc=1
	fi
	if [ -n "$scan" ] && [ "$leaks" -ne 0 ]; then
		say "kmemleak reported $leaks leaks after the KUnit suites"
		rc=1
	fi
	[ $rc -eq 0 ] || exit 1
	if [ -n "$scan" ]; then
		say "KUnit on the $KERNEL kernel: no WARNING, BUG, KASAN or lockdep report in its log, kmemleak scan after the suites: 0 reports"
	else
		say "KUnit on the $KERNEL kernel: no WARNING, BUG, KASAN or lockdep report in its log (no kmemleak scan on this kernel)"
	fi
	;;
*)
	die "usage: $0 build|kunit|kmemleak-control"
	;;
esac
