#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: batching against the stock xmit_more path and TSO, on the
# release kernel (no KASAN, no lockdep) in the two e1000 guests. The
# matrix (scripts/bench-guest.sh) runs REPS times in one boot, batching off
# and on back to back. BASELINE=stock also builds the unpatched tree with
# the same config and alternates boots of the two kernels, one round each,
# so that "batching off" can be checked against true stock.
# Results: $RESULTS/bench/ (bench.csv, bench.md, PNGs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO/qemu-configs/guests.sh"

[ "$KERNEL" = release ] || die "make bench runs the release kernel (KERNEL=release)"
out=$RESULTS/bench
REPS=${REPS:-3}
TIME=${BENCH_TIME:-5}
BASELINE=${BASELINE:-}
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE: run 'make kernel KERNEL=release'"
rm -rf "$out"
mkdir -p "$out"

make -s -C "$TREE/tools/testing/selftests" TARGETS=net/batching \
	INSTALL_PATH="$out/kselftest" install >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; die "kselftest install failed"; }

# run_matrix NAME STATES KERNEL ROUNDS FIRST: one boot of the guests on
# KERNEL running ROUNDS rounds of the matrix, numbered from FIRST, and its
# rows appended to $out/bench.csv. The guests see only $dir read-write
# (and the host's / read-only, which may not show $RESULTS), so the test
# library is copied into it.
run_matrix() {
	local name=$1 states=$2 BZIMAGE=$3 rounds=$4 first=$5 dir=$out/$1 start

	mkdir -p "$dir"
	cp -r "$out/kselftest" "$dir/"
	cat > "$dir/job-a.sh" <<JOB
OUT=$dir REPS=$rounds FIRST_REP=$first TIME=$TIME STATES="$states" \\
	bash "$REPO/scripts/bench-guest.sh" 2>&1 | tee "$dir/bench.log"
JOB
	say "$name: $rounds round(s) of the matrix ($states), ${TIME} s per run"
	start=$(date +%s)
	guests_run "$dir" 3600 || die "guests did not finish (consoles in $dir)"
	say "$name: guests done after $(($(date +%s) - start)) s"
	[ "$(wc -l < "$dir/bench.csv" 2>/dev/null || echo 0)" -gt 1 ] ||
		die "no results from $name (see $dir/guest-a.console)"
	if [ -f "$out/bench.csv" ]; then
		tail -n +2 "$dir/bench.csv" >> "$out/bench.csv"
	else
		cp "$dir/bench.csv" "$out/bench.csv"
	fi
}

# stock_kernel: the pristine tree, built with the release kernel's .config;
# sets STOCK_BZIMAGE
stock_kernel() {
	local wt=$CACHE_DIR/stock-tree sb=$CACHE_DIR/build-stock

	if [ ! -d "$wt" ]; then
		git_tree worktree add -q -f --detach "$wt" pristine >/dev/null
	fi
	mkdir -p "$sb"
	grep -v XMIT_BATCH "$BUILD/.config" > "$sb/.config"
	say "building the stock kernel in $sb"
	make -s -C "$wt" O="$sb" ARCH=x86_64 CC="ccache gcc" olddefconfig
	CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache} \
		make -s -C "$wt" O="$sb" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" bzImage
	STOCK_BZIMAGE=$sb/arch/x86/boot/bzImage
}

if [ "$BASELINE" = stock ]; then
	# Stock cannot share a boot with the patched kernel, and boots of
	# TCG guests differ: alternate them, one round per boot, so that the
	# drift between boots hits every column alike.
	stock_kernel
	for rep in $(seq "$REPS"); do
		run_matrix "batching-$rep" "off on" "$BZIMAGE" 1 "$rep"
		run_matrix "stock-$rep" stock "$STOCK_BZIMAGE" 1 "$rep"
	done
else
	run_matrix batching "off on" "$BZIMAGE" "$REPS" 1
fi
python3 "$REPO/scripts/bench_report.py" "$out/bench.csv" "$out" |
	tee "$out/bench.md"
say "CSV, table and plots in $out/"
