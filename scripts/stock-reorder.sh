#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stock-reorder: the pristine tree as the witness of stock 6.1's own
# reordering (patch 0002). guest/stock-reorder.sh runs the recipe (2
# vCPUs, 64 TCP flows with TSO off and GSO on, a small TX ring, pktgen on
# the same queue) and counts late packets in B's capture, in one boot of
# the pristine kernel ("stock") and one of the test kernel (batching off
# and on, RUNS rounds each). The pristine kernel is the tree's "pristine"
# commit built with the test kernel's .config less the series' options,
# in its own worktree and build directory; STOCK_JUMP_LABEL=1 builds it
# with CONFIG_JUMP_LABEL=y, as Debian's, and STORM=N then switches two
# tracepoints N times under the load in the pristine boot (testbed.md:
# the int3 seen once with the series and jump labels).
# STOCK_PATCHES="0002 ..." applies those patches of the series (by
# number) on top of pristine first: which stock fix removes stock's
# reordering. SERIES_BOOT=0 leaves out the test kernel's boot.
# Results in $RESULTS/stock-reorder/{stock[+NNNN...],series}/, RESULT lines in
# stock-reorder.txt.
set -euo pipefail
# the pristine kernel takes the test kernel's .config
export KERNEL=test
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/guests.sh"

out=$RESULTS/stock-reorder
RUNS=${RUNS:-3}
TIME=${TIME:-20}
STORM=${STORM:-0}
JL=${STOCK_JUMP_LABEL:-0}
SERIES_BOOT=${SERIES_BOOT:-1}
STOCK_PATCHES=${STOCK_PATCHES:-}
[[ $RUNS =~ ^[0-9]+$ && $TIME =~ ^[0-9]+$ && $STORM =~ ^[0-9]+$ &&
   $JL =~ ^[01]$ && $SERIES_BOOT =~ ^[01]$ ]] ||
	die "RUNS, TIME and STORM are numbers, STOCK_JUMP_LABEL and SERIES_BOOT 0 or 1"
# each of STOCK_PATCHES names one patch of the series, applied in series
# order; the pristine boot's results are named after them (stock+0002)
stock_patches=()
stock_name=stock
for n in $(printf '%s\n' $STOCK_PATCHES | sort -u); do
	[[ $n =~ ^[0-9]{4}$ ]] ||
		die "STOCK_PATCHES: '$n' is not a patch number such as 0002"
	f=$(series_files | grep "/$n-" || true)
	if [ -z "$f" ] || [ "$(wc -l <<< "$f")" -ne 1 ]; then
		die "STOCK_PATCHES: no one patch numbered $n in the series"
	fi
	stock_patches+=("$f")
	stock_name+=+$n
done
# without jump labels a static key is a counter: nothing is patched
[ "$STORM" -eq 0 ] || [ "$JL" = 1 ] ||
	die "STORM needs STOCK_JUMP_LABEL=1"
{ [ -f "$BUILD/.config" ] && [ -f "$BZIMAGE" ]; } ||
	die "no test kernel at $BZIMAGE: run 'make kernel' first"

wt=$CACHE_DIR/stock-tree
sb=$CACHE_DIR/build-stock$([ "$JL" = 0 ] || echo -jump-label)
# (a tree extracted again leaves a worktree of the old one behind)
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	git_tree worktree prune
	git_tree worktree add -q -f --detach "$wt" pristine >/dev/null
fi
# (an am an earlier run left midway would refuse the next)
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q -f --detach pristine
if [ ${#stock_patches[@]} -gt 0 ]; then
	if ! git -C "$wt" -c user.name="$PROJECT_NAME" \
		-c user.email="$PROJECT_EMAIL" am -q "${stock_patches[@]}"; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		die "STOCK_PATCHES do not apply on pristine"
	fi
	say "pristine with ${stock_name#stock+}:" \
		"$(git -C "$wt" log --format=%s pristine..HEAD | paste -sd ';')"
fi
mkdir -p "$sb"
{
	grep -v -e XMIT_BATCH -e 'CONFIG_JUMP_LABEL[= ]' "$BUILD/.config"
	if [ "$JL" = 1 ]; then
		echo CONFIG_JUMP_LABEL=y
	else
		echo "# CONFIG_JUMP_LABEL is not set"
	fi
} > "$sb/.config.new"
# An unchanged .config keeps its mtime, and the build stays incremental
if cmp -s "$sb/.config.new" "$sb/.config.base"; then
	rm "$sb/.config.new"
else
	mv "$sb/.config.new" "$sb/.config.base"
	cp "$sb/.config.base" "$sb/.config"
fi
say "building the pristine kernel in $sb"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
make -s -C "$wt" O="$sb" ARCH=x86_64 CC="ccache gcc" olddefconfig
make -s -C "$wt" O="$sb" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" bzImage
if [ "$JL" = 1 ]; then
	grep -q '^CONFIG_JUMP_LABEL=y' "$sb/.config" ||
		die "CONFIG_JUMP_LABEL did not survive olddefconfig"
fi

# A boot's results replace only those of the same name: the pristine
# kernel with and without STOCK_PATCHES, or the series, sit side by side
# in stock-reorder.txt
mkdir -p "$out"
for name in $([ "$SERIES_BOOT" = 0 ] || echo series) "$stock_name"; do
	rm -rf "${out:?}/$name"
	[ ! -f "$out/stock-reorder.txt" ] ||
		sed -i "/^$(sed 's/+/[+]/g' <<< "$name") /d" "$out/stock-reorder.txt"
done
# stock_job NAME BZIMAGE STATES STORM: one boot of both guests on
# BZIMAGE, its RESULT lines; fails on a kernel problem in a console, on
# a run without its line, and on a storm the guest did not survive
stock_job() {
	local BZIMAGE=$2 rc=0 lines limit

	# boot, then per run TIME s and about 40 s around it; a switch of
	# the storm took up to 0.5 s (one TCG thread, Dec 7)
	limit=$((300 + RUNS * $(wc -w <<< "$3") * (TIME + 40) + $4))
	guests_job "$out/$1" "$limit" <<JOB
RUNS=$RUNS TIME=$TIME STATES="$3" STORM=$4 JUMP_LABEL=$JL \\
	bash "$REPO/guest/stock-reorder.sh" > "$out/$1/job.log" 2>&1
JOB
	grep -h '^RESULT\|^STORM' "$out/$1/job.log" | sed "s/^/$1 /" |
		tee -a "$out/stock-reorder.txt" || true
	lines=$(grep -c '^RESULT .* frames ' "$out/$1/job.log" || true)
	[ "$lines" -eq $((RUNS * $(wc -w <<< "$3"))) ] ||
		{ say "$1: $lines runs of $RUNS x ($3) gave figures"; rc=1; }
	if [ "$4" -gt 0 ] && ! grep -q '^STORM survived' "$out/$1/job.log"; then
		say "$1: the guest did not live through the storm"
		rc=1
	fi
	if console_splats "$out/$1/guest-a.console" "$out/$1/guest-b.console" \
		> "$out/$1/splats.txt"; then
		head -n 40 "$out/$1/splats.txt"
		say "$1: a kernel problem in a guest's console"
		rc=1
	fi
	return $rc
}
rc=0
[ "$SERIES_BOOT" = 0 ] || stock_job series "$BZIMAGE" "off on" 0 || rc=1
# last: the storm may end its boot
stock_job "$stock_name" "$sb/arch/x86/boot/bzImage" stock "$STORM" || rc=1
say "late packets at B per run: $out/stock-reorder.txt"
exit $rc
