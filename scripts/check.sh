#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole test run. KUnit first, then the selftests in the
# two guests, then KUnit again on the KASAN kernel (each stage runs even
# when an earlier one failed, so one run shows everything), then one
# closing line counting every test case.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
rc=0
# The closing verdict must be able to fail: unexpected skips, short plans.
"$REPO/scripts/summary.py" --self-test || rc=1
"$REPO/scripts/kernel.sh" kunit || rc=1
say "KUnit done after $(($(date +%s) - start)) s"
"$REPO/scripts/selftest.sh" || rc=1
say "selftests done after $(($(date +%s) - start)) s"
KERNEL=kasan "$REPO/scripts/kernel.sh" kunit || rc=1
say "KUnit on the KASAN kernel done after $(($(date +%s) - start)) s"
"$REPO/scripts/summary.py" "$RESULTS/kunit.json" \
	"$RESULTS/selftest/kselftest.tap" \
	"$RESULTS/selftest/kselftest-virtio.tap" \
	"$RESULTS/kunit-kasan.json" || rc=1
exit $rc
