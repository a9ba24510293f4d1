#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the KUnit guest after the suites ran (scripts/kernel.sh: the
# test kernel boots with the host's / as a read-only 9p root and this init
# instead of powering off after the suites): the kmemleak scan of
# guest/kmemleak-scan.sh over what the suites left, its count line and
# reports on the console, where the host reads them, then power off.
# kmemleak's own first scan comes 60 s after boot; the suites end well
# before it.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
bash "$(dirname "$(readlink -f "$0")")/kmemleak-scan.sh"
poweroff -f
