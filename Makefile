# SPDX-License-Identifier: GPL-2.0
# Transmit batching for Linux 6.1: the patch series and its test bed.
#
#   make demo       batching at work in two QEMU guests: table, CSV, chart
#   make check      the whole test run: KUnit, selftests, KUnit under KASAN
#   make kunit      KUnit suites under QEMU (KERNEL=kasan: on the KASAN kernel)
#   make selftest   net/batching kselftests in two QEMU guests, then in one (peer in a netns)
#   make lint       shellcheck and pyflakes3 on every script, the selftests' too
#   make bench      batching vs stock and TSO (BASELINE=stock|xmit-more|xmit-more-harder|bql-only, REPS)
#   make bench-sweep frames per doorbell and batch bound vs B's RX ring
#   make fault-check the order, loss, duplicate, leak and batch-size checks must fail on a broken e1000
#   make sanitize   the selftest guests on a KASAN kernel under traffic, and a use-after-free KASAN must report
#   make ipoib-compare IPoIB: batching vs xmit_more chaining, under the KUnit fake
#   make stock-reorder the pristine kernel as the witness of stock reordering (RUNS, TIME, STORM, STOCK_JUMP_LABEL, STOCK_PATCHES, SERIES_BOOT)
#   make insn-count the instruction counter (insn-count/) must count known work
#   make kernel     build the test kernel (KERNEL=kasan|release|sanitize: the others)
#   make tree       extract the Debian tree (once) and apply the series
#   make series     write a mailable series (cover letter + patches)
#   make export     write the tree's commits back into patches/ kunit/ selftests/
#   make checkpatch checkpatch.pl --strict on every patch
#   make deps       install the Debian packages all of this needs
#
# Overridable: CACHE_DIR (tree, build, ccache; default ~/.cache/xmit-batching),
# TREE, BUILD, RESULTS (default ./results), ACCEL (auto|tcg|kvm), JOBS,
# KERNEL (test|kasan|release|sanitize), BASELINE (stock: bench the
# unpatched tree too; xmit-more: and stock with the best xmit_more
# doorbell; xmit-more-harder: and that with 64-frame xmit_more chains
# from the qdisc; bql-only: and stock with virtio-net's BQL),
# BENCH_LINKS (e1000 virtio), REPS, BENCH_TIME, DEMO_TIME,
# SELFTEST_TIMEOUT, GUEST_MEM, INSN_COUNT (0: make bench without the
# instruction counter).

export CACHE_DIR TREE BUILD RESULTS ACCEL JOBS KERNEL BASELINE REPS BENCH_TIME \
	DEMO_TIME SELFTEST_TIMEOUT GUEST_MEM

S := scripts

.PHONY: help demo bench bench-sweep check fault-check sanitize lint ipoib-compare stock-reorder insn-count kunit selftest kernel tree series export checkpatch deps clean

help:
	@sed -n 's/^#   //p' Makefile

# The demo measures: it runs the release kernel, without KASAN and lockdep.
demo: tree
	KERNEL=release $(S)/kernel.sh build
	KERNEL=release $(S)/demo.sh

bench: tree
	KERNEL=release $(S)/kernel.sh build
	KERNEL=release $(S)/bench.sh

bench-sweep: tree
	KERNEL=release $(S)/kernel.sh build
	BENCH=sweep KERNEL=release $(S)/bench.sh

check: tree
	$(S)/check.sh

fault-check: tree
	$(S)/fault-check.sh

sanitize: tree
	$(S)/sanitize.sh

lint: tree
	$(S)/lint.sh

ipoib-compare: tree
	$(S)/ipoib-compare.sh

stock-reorder: kernel
	$(S)/stock-reorder.sh

insn-count: kernel
	$(S)/insn-count.sh check

kunit: tree
	$(S)/kernel.sh kunit

selftest: kernel
	$(S)/selftest.sh

kernel: tree
	$(S)/kernel.sh build

tree: deps
	$(S)/tree.sh

series: tree
	$(S)/series.sh

export:
	$(S)/export.sh

checkpatch: tree
	$(S)/checkpatch.sh

deps:
	$(S)/deps.sh

clean:
	rm -rf results
