#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: batching against the stock xmit_more path and TSO, on the
# release kernel (no KASAN, no lockdep) in the two guests, over their e1000
# wire and then their virtio-net wire. The matrix (guest/bench.sh) runs
# REPS times in one boot, batching off and on back to back. BASELINE
# lists unpatched kernels to bench as well, each built with the same
# config; stock always comes with them, and boots of the kernels
# alternate, one round each, so that "batching off" can be checked
# against true stock: stock; xmit-more, stock with the best xmit_more
# doorbell rule (scripts/bench-patches/xmit-more-e1000.patch);
# xmit-more-harder, that plus the qdisc handing e1000 64-frame xmit_more
# chains and holding the doorbell across them until the run ends
# (xmit-more-harder.patch on top; e1000 only); bql-only, stock with
# virtio-net counting BQL as upstream does since 6.11 (bql-virtio.patch),
# the fair baseline on the virtio wire, where batching turns BQL on. Guest
# A runs under the instruction counter (insn-count/) unless INSN_COUNT=0.
# BENCH=sweep runs the burst sweep instead (scripts/bench-patches/
# burst-knobs.patch on the series; Documentation/bench.md).
# Results: $RESULTS/bench/ (bench.csv, bench.md, PNGs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"
# The virtio wire's doorbells are counted from guest A's QEMU trace
TRACE_VIRTIO_KICKS=1

[ "$KERNEL" = release ] || die "make bench runs the release kernel (KERNEL=release)"
BENCH=${BENCH:-matrix}
# BENCH_SET=cost: the e1000 matrix cut to the cost table's configurations
# (TCP at 64 flows TSO off and on, 8 flows TSO off); full: all of it
BENCH_SET=${BENCH_SET:-full}
case $BENCH_SET in
full|cost) ;;
*) die "BENCH_SET: full or cost, not '$BENCH_SET'" ;;
esac
out=$RESULTS/bench
[ "$BENCH" = matrix ] || out=$RESULTS/bench-$BENCH
REPS=${REPS:-3}
TIME=${BENCH_TIME:-5}
BASELINE=${BASELINE:-}
# Which wires the matrix runs over (the sweep is e1000 only)
BENCH_LINKS=${BENCH_LINKS:-e1000 virtio}
e1000=no virtio=no
for l in $BENCH_LINKS; do
	case $l in
	e1000) e1000=yes ;;
	virtio) virtio=yes ;;
	*) die "BENCH_LINKS: e1000, virtio or both, not '$l'" ;;
	esac
done
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel KERNEL=release'"
# variant_patches NAME: the bench patches of baseline NAME
variant_patches() {
	case $1 in
	stock) ;;
	xmit-more) echo xmit-more-e1000.patch ;;
	xmit-more-harder) echo xmit-more-e1000.patch xmit-more-harder.patch ;;
	bql-only) echo bql-virtio.patch ;;
	*) die "BASELINE: stock, xmit-more, xmit-more-harder or bql-only (a list), not '$1'" ;;
	esac
}
# (a misspelt name must stop the bench before it removes the last results)
for b in $BASELINE; do
	variant_patches "$b" >/dev/null
done
# Guest A under the instruction counter (scripts/guests.sh): every row
# gets the transmit path's and the kernel's instructions per packet.
# INSN_COUNT=0 runs without it (the default where guests run under KVM).
if [ -z "${INSN_COUNT:-}" ]; then
	INSN_COUNT=0
	[ "$(guest_accel)" != tcg ] || INSN_COUNT=1
fi
export INSN_COUNT
[ "$INSN_COUNT" != 1 ] || [ "$(guest_accel)" = tcg ] ||
	die "INSN_COUNT=1 needs TCG guests (ACCEL=tcg): the plugin is TCG's"
[ "$INSN_COUNT" != 1 ] || "$REPO/scripts/insn-count.sh" build
rm -rf "$out"
mkdir -p "$out"

# run_matrix NAME STATES KERNEL ROUNDS FIRST: one boot of the guests on
# KERNEL running ROUNDS rounds of the matrix, numbered from FIRST, in
# $out/NAME, and its rows appended to $out/bench.csv.
run_matrix() {
	local name=$1 states=$2 BZIMAGE=$3 rounds=$4 first=$5 dir=$out/$1

	say "$name: $rounds round(s) of the matrix ($states), ${TIME} s per run"
	guests_job "$dir" 3600 <<JOB
[ "$e1000" = no ] ||
	BENCH_SET=$BENCH_SET OUT=$dir REPS=$rounds FIRST_REP=$first TIME=$TIME \\
	STATES="$states" bash "$REPO/guest/bench.sh" 2>&1 | tee -a "$dir/bench.log"
[ "$virtio" = no ] || [ "$states" = sweep ] ||
	env \$TESTBED_VIRTIO BENCH_LINK=virtio OUT=$dir REPS=$rounds \\
	FIRST_REP=$first TIME=$TIME STATES="$states" \\
	bash "$REPO/guest/bench.sh" 2>&1 | tee -a "$dir/bench.log"
JOB
	[ "$(wc -l < "$dir/bench.csv" 2>/dev/null || echo 0)" -gt 1 ] ||
		die "no results from $name (see $dir/guest-a.console)"
	# Under the counter, a row without its count is a broken bench (as
	# is a CSV the check cannot read)
	if [ "$INSN_COUNT" = 1 ]; then
		python3 - "$dir/bench.csv" <<-'PY' ||
		import csv, sys
		rows = [r for r in csv.DictReader(open(sys.argv[1]))
		        if r['kind'] != 'latency']
		sys.exit(1 if any(not r['tx_insns_per_pkt'] for r in rows) else 0)
		PY
			die "rows of $name without an instruction count (see $dir/bench.log)"
	fi
	if [ -f "$out/bench.csv" ]; then
		tail -n +2 "$dir/bench.csv" >> "$out/bench.csv"
	else
		cp "$dir/bench.csv" "$out/bench.csv"
	fi
}

# variant_kernel NAME BASE [PATCH...]: the tree at BASE ("pristine" or
# "series"), plus bench-only PATCHes from scripts/bench-patches/, built
# with the release kernel's .config; sets VARIANT_BZIMAGE, a copy kept as
# $CACHE_DIR/bzImage-NAME. One worktree and one build directory per BASE
# ($CACHE_DIR/bench-BASE-tree, build-bench-BASE): variants of one base
# differ in a few files, so after the first build each is incremental.
# On the pristine tree the config loses the batching options.
variant_kernel() {
	local name=$1 base=$2 wt=$CACHE_DIR/bench-$2-tree
	local vb=$CACHE_DIR/build-bench-$2 rev patch

	shift 2
	rev=pristine
	[ "$base" = pristine ] || rev=$(git_tree rev-parse HEAD)
	[ -d "$wt" ] || git_tree worktree add -q -f --detach "$wt" "$rev" >/dev/null
	# Only the files that differ are rewritten, so make rebuilds those
	git -C "$wt" checkout -q -f --detach "$rev"
	git -C "$wt" clean -q -fdx
	for patch in "$@"; do
		git -C "$wt" apply "$REPO/scripts/bench-patches/$patch" ||
			die "$patch does not apply to the $base tree"
	done
	mkdir -p "$vb"
	if [ "$base" = pristine ]; then
		grep -v XMIT_BATCH "$BUILD/.config" > "$vb/.config.new"
	else
		cp "$BUILD/.config" "$vb/.config.new"
	fi
	# An unchanged .config keeps its mtime, and the build stays incremental
	if cmp -s "$vb/.config.new" "$vb/.config.base"; then
		rm "$vb/.config.new"
	else
		mv "$vb/.config.new" "$vb/.config.base"
		cp "$vb/.config.base" "$vb/.config"
	fi
	say "building the $name kernel in $vb"
	make -s -C "$wt" O="$vb" ARCH=x86_64 CC="ccache gcc" olddefconfig
	CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache} \
		make -s -C "$wt" O="$vb" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" bzImage
	cp "$vb/arch/x86/boot/bzImage" "$CACHE_DIR/bzImage-$name"
	cp "$vb/System.map" "$CACHE_DIR/System.map-$name"
	VARIANT_BZIMAGE=$CACHE_DIR/bzImage-$name
}

case "$BENCH" in
sweep)
	# One boot, REPS rounds: every burst shape of the sweep in each
	variant_kernel sweep series burst-knobs.patch
	run_matrix sweep sweep "$VARIANT_BZIMAGE" "$REPS" 1
	;;
matrix)
	if [ -z "$BASELINE" ]; then
		run_matrix batching "off on" "$BZIMAGE" "$REPS" 1
	else
		# Stock cannot share a boot with the patched kernel, and
		# boots of TCG guests differ: alternate them, one round per
		# boot, so that the drift between boots hits every column
		# alike. Stock always runs; BASELINE lists the others.
		baselines=stock
		for b in $BASELINE; do
			[ "$b" = stock ] || baselines+=" $b"
		done
		for b in $baselines; do
			# shellcheck disable=SC2046
			variant_kernel "$b" pristine $(variant_patches "$b")
		done
		for rep in $(seq "$REPS"); do
			run_matrix "batching-$rep" "off on" "$BZIMAGE" 1 "$rep"
			for b in $baselines; do
				run_matrix "$b-$rep" "$b" \
					"$CACHE_DIR/bzImage-$b" 1 "$rep"
			done
		done
	fi
	;;
*)
	die "BENCH=$BENCH: matrix or sweep"
	;;
esac
python3 "$REPO/scripts/bench_report.py" "$out/bench.csv" "$out" |
	tee "$out/bench.md"
say "CSV, table and plots in $out/"
