#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPoIB's transmit batching against the simpler route a review names:
# chaining while netdev_xmit_more() is set and posting at the end of the
# train, as mlx5i and hfi1's AIP do. The series' tree plus the bench-only
# scripts/bench-patches/ipoib-xmit-more.patch (that variant for the
# batching-off path, and the KUnit suite ipoib-xmit-more-compare, which
# hands both the same trains through the fake verbs device), in a
# worktree and a build directory of their own. No InfiniBand hardware
# here: the figures are what the driver asks of the device (posts,
# signaled WRs, completions per packet), not time.
# Writes $RESULTS/ipoib-compare.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
wt=$CACHE_DIR/ipoib-compare-tree
build=$CACHE_DIR/build-ipoib-compare
rev=$(git_tree rev-parse HEAD)
[ -d "$wt" ] || git_tree worktree add -q -f --detach "$wt" "$rev" >/dev/null
git -C "$wt" checkout -q -f --detach "$rev"
git -C "$wt" clean -q -fdx
git -C "$wt" apply "$REPO/scripts/bench-patches/ipoib-xmit-more.patch" ||
	die "ipoib-xmit-more.patch does not apply to the series' tree"
mkdir -p "$build" "$RESULTS"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}

log=$RESULTS/ipoib-compare.log
start=$(date +%s)
say "KUnit suite ipoib-xmit-more-compare on the series plus ipoib-xmit-more.patch"
if ! (TREE=$wt BUILD=$build kunit_py run --jobs="$JOBS" \
	--qemu_args="-accel $(guest_accel) -smp 2" \
	--json="$RESULTS/ipoib-compare.json" \
	'ipoib-xmit-more-compare') > "$log" 2>&1; then
	tail -n 30 "$log"
	die "the comparison failed (log: $log)"
fi
cp "$build/test.log" "$RESULTS/ipoib-compare-console.log"
python3 "$REPO/scripts/ipoib_compare.py" "$RESULTS/ipoib-compare-console.log" \
	> "$RESULTS/ipoib-compare.md"
cat "$RESULTS/ipoib-compare.md"
say "ipoib-compare done in $(($(date +%s) - start)) s: $RESULTS/ipoib-compare.md"
