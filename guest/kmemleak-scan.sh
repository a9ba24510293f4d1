#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmemleak-scan.sh: two kmemleak scans, then a count line and the reports,
# after the selftests on each guest (scripts/selftest.sh) and after the
# KUnit suites (guest/kunit-init.sh). The host judges them with the
# kernel log (console_splats in scripts/guests.sh, scripts/kernel.sh).
mount -t debugfs none /sys/kernel/debug 2>/dev/null
f=/sys/kernel/debug/kmemleak
# The host reads the count line; without kmemleak the scan fails, as a
# test kernel always has it (kunitconfig)
if [ ! -w $f ]; then
	echo "kmemleak: $f not available"
	exit 1
fi
# A second scan reports only what stayed unreferenced since the first
echo scan > $f
sleep 6
echo scan > $f
echo "kmemleak scan: $(grep -c "^unreferenced object" $f) reports"
cat $f
