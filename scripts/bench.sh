#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: batching against the stock xmit_more path and TSO, on the
# release kernel (no KASAN, no lockdep) in the two guests, over their e1000
# wire and then their virtio-net wire. The matrix (guest/bench.sh) runs
# REPS times in one boot, batching off and on back to back. BASELINE=stock also builds the unpatched tree with
# the same config and alternates boots of the two kernels, one round each,
# so that "batching off" can be checked against true stock; BASELINE=
# xmit-more adds a third kernel, stock with the best xmit_more doorbell
# rule (scripts/bench-patches/xmit-more-e1000.patch); BASELINE=bql-only
# adds stock with virtio-net counting BQL as upstream does since 6.11
# (scripts/bench-patches/bql-virtio.patch), the fair baseline on the
# virtio wire, where batching turns BQL on (use with BENCH_LINKS=virtio).
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
	OUT=$dir REPS=$rounds FIRST_REP=$first TIME=$TIME STATES="$states" \\
	bash "$REPO/guest/bench.sh" 2>&1 | tee -a "$dir/bench.log"
[ "$virtio" = no ] || [ "$states" = sweep ] ||
	env \$TESTBED_VIRTIO BENCH_LINK=virtio OUT=$dir REPS=$rounds \\
	FIRST_REP=$first TIME=$TIME STATES="$states" \\
	bash "$REPO/guest/bench.sh" 2>&1 | tee -a "$dir/bench.log"
JOB
	[ "$(wc -l < "$dir/bench.csv" 2>/dev/null || echo 0)" -gt 1 ] ||
		die "no results from $name (see $dir/guest-a.console)"
	if [ -f "$out/bench.csv" ]; then
		tail -n +2 "$dir/bench.csv" >> "$out/bench.csv"
	else
		cp "$dir/bench.csv" "$out/bench.csv"
	fi
}

# variant_kernel NAME BASE [PATCH]: the tree at BASE ("pristine" or
# "series"), plus a bench-only PATCH from scripts/bench-patches/, built
# with the release kernel's .config; sets VARIANT_BZIMAGE, a copy kept as
# $CACHE_DIR/bzImage-NAME. One worktree and one build directory per BASE
# ($CACHE_DIR/bench-BASE-tree, build-bench-BASE): variants of one base
# differ in a few files, so after the first build each is incremental.
# On the pristine tree the config loses the batching options.
variant_kernel() {
	local name=$1 base=$2 patch=${3:-} wt=$CACHE_DIR/bench-$2-tree
	local vb=$CACHE_DIR/build-bench-$2 rev

	rev=pristine
	[ "$base" = pristine ] || rev=$(git_tree rev-parse HEAD)
	[ -d "$wt" ] || git_tree worktree add -q -f --detach "$wt" "$rev" >/dev/null
	# Only the files that differ are rewritten, so make rebuilds those
	git -C "$wt" checkout -q -f --detach "$rev"
	git -C "$wt" clean -q -fdx
	[ -z "$patch" ] || git -C "$wt" apply "$REPO/scripts/bench-patches/$patch" ||
		die "$patch does not apply to the $base tree"
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
	VARIANT_BZIMAGE=$CACHE_DIR/bzImage-$name
}

case "$BENCH/$BASELINE" in
sweep/*)
	# One boot, REPS rounds: every burst shape of the sweep in each
	variant_kernel sweep series burst-knobs.patch
	run_matrix sweep sweep "$VARIANT_BZIMAGE" "$REPS" 1
	;;
matrix/stock|matrix/xmit-more|matrix/bql-only)
	# Stock cannot share a boot with the patched kernel, and boots of
	# TCG guests differ: alternate them, one round per boot, so that the
	# drift between boots hits every column alike.
	variant_kernel stock pristine
	STOCK_BZIMAGE=$VARIANT_BZIMAGE
	OTHER_BZIMAGE=
	case $BASELINE in
	xmit-more) variant_kernel xmit-more pristine xmit-more-e1000.patch ;;
	bql-only) variant_kernel bql-only pristine bql-virtio.patch ;;
	esac
	[ "$BASELINE" = stock ] || OTHER_BZIMAGE=$VARIANT_BZIMAGE
	for rep in $(seq "$REPS"); do
		run_matrix "batching-$rep" "off on" "$BZIMAGE" 1 "$rep"
		run_matrix "stock-$rep" stock "$STOCK_BZIMAGE" 1 "$rep"
		[ -z "$OTHER_BZIMAGE" ] ||
			run_matrix "$BASELINE-$rep" "$BASELINE" "$OTHER_BZIMAGE" 1 "$rep"
	done
	;;
matrix/)
	run_matrix batching "off on" "$BZIMAGE" "$REPS" 1
	;;
*)
	die "BENCH=$BENCH BASELINE=$BASELINE: BENCH is matrix or sweep," \
		"BASELINE stock, xmit-more, bql-only or empty"
	;;
esac
python3 "$REPO/scripts/bench_report.py" "$out/bench.csv" "$out" |
	tee "$out/bench.md"
say "CSV, table and plots in $out/"
