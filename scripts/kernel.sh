#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel, built and run by kunit.py from the repo's kunitconfig
# (KERNEL=kasan or release adds a fragment from qemu-configs/; see lib.sh).
#   kernel.sh build   - configure and build (incremental, ccache)
#   kernel.sh kunit   - build if needed, boot with kunit.enable=1, parse
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
mkdir -p "$BUILD" "$RESULTS"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}

# kunit_py CMD ARGS...: kunit.py with the kunitconfig and, for the kasan
# and release kernels, the lines of their fragment as kunit.py's own
# --kconfig_add options, which override the kunitconfig's values
# ("# CONFIG_X is not set" included; kunit.py refuses two --kunitconfig
# files that disagree).
kunit_py() {
	local cmd=$1 line
	shift
	set -- --kunitconfig="$REPO/kunitconfig" "$@"
	if [ -n "$KCONFIG_FRAGMENT" ]; then
		while read -r line; do
			set -- --kconfig_add="$line" "$@"
		done < <(grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$)' \
			"$KCONFIG_FRAGMENT")
	fi
	(cd "$TREE" && python3 tools/testing/kunit/kunit.py "$cmd" \
		--arch=x86_64 \
		--qemu_config="$REPO/qemu-configs/x86_64.py" \
		--build_dir="$BUILD" --make_options "CC=ccache gcc" "$@")
}

case "${1:-}" in
build)
	start=$(date +%s)
	kunit_py build --jobs="$JOBS"
	say "$KERNEL kernel built in $(($(date +%s) - start)) s: $BZIMAGE"
	;;
kunit)
	accel=$(guest_accel)
	say "KUnit under QEMU, accelerator: $accel, $KUNIT_CPUS vCPUs"
	kunit_py run --jobs="$JOBS" --qemu_args="-accel $accel -smp $KUNIT_CPUS" \
		--json="$RESULTS/$KUNIT_RESULTS.json" 2>&1 |
		tee "$RESULTS/$KUNIT_RESULTS.log"
	# kunit.py judges the KTAP only: a lockdep, KASAN or sleep-in-atomic
	# report during the suites fails the run as well.
	cp "$BUILD/test.log" "$RESULTS/$KUNIT_RESULTS-console.log"
	if console_splats "$RESULTS/$KUNIT_RESULTS-console.log" \
		> "$RESULTS/$KUNIT_RESULTS-splats.txt"; then
		say "the $KERNEL kernel logged problems during the KUnit run:"
		head -n 60 "$RESULTS/$KUNIT_RESULTS-splats.txt"
		exit 1
	fi
	say "KUnit on the $KERNEL kernel: no WARNING, BUG, KASAN, lockdep or kmemleak report in its log"
	;;
*)
	die "usage: $0 build|kunit"
	;;
esac
