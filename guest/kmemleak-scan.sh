#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmemleak-scan.sh: two kmemleak scans, then a count line and the reports,
# after the selftests on each guest (scripts/selftest.sh) and after the
# KUnit suites (guest/kunit-init.sh). The host judges them with the
# kernel log (console_splats in scripts/guests.sh).
#
# Not counted, and said so: what KUnit's executor allocated for the logs
# of built-in suites (kunit_debugfs_create_suite()), whose only pointers
# live in the suites' init-section structures, freed after boot, so 6.1's
# kmemleak reports them after every KUnit boot.
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
awk '/^unreferenced object/ { flush(); r = $0 "\n"; next }
	r != "" { r = r $0 "\n" }
	function flush() {
		if (r == "")
			return
		if (r ~ /kunit_debugfs_create_suite/) {
			kunit++
		} else {
			reports = reports r
			n++
		}
		r = ""
	}
	END {	flush()
		print "kmemleak scan: " n + 0 " reports"
		if (kunit)
			print "kmemleak: " kunit " reports of KUnit'"'"'s own suite" \
			      " logs not counted (allocated by" \
			      " kunit_debugfs_create_suite(), pointed to from" \
			      " freed init memory)"
		printf "%s", reports }' $f
