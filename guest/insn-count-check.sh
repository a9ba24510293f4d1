#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the insn-count check's guest (scripts/insn-count.sh check):
# known workloads between the plugin's marks, in an order the host reads
# by run number: 1-2 a user-space loop of 10^6 and 2*10^6 turns, 3-4
# 10^4 and 2*10^4 getppid() calls, 5-6 2,000 and 4,000 UDP datagrams out
# of the e1000 to 192.0.2.2 (a documentation address with a static
# neighbour: no ARP; the NIC sits on a QEMU hub port that goes nowhere),
# then power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev

arg() { sed -n "s/.*insn_count\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
mark=$(arg mark)
out=$(arg out)
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$out" ||
	echo "insn-count-check: cannot mount the results share at $out"

run() {
	echo "insn-count-check: $*"
	"$@" || { echo "insn-count-check: '$*' failed"; poweroff -f; }
}

# No IPv6 on the NIC: no router solicitation or MLD report mid-run
for dev in /sys/class/net/*; do
	dev=${dev##*/}
	[ "$dev" = lo ] || break
done
sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
ip addr add 192.0.2.1/24 dev "$dev"
ip link set "$dev" up
ip neigh replace 192.0.2.2 lladdr 52:54:00:00:00:02 dev "$dev" nud permanent
sleep 2
run "$mark" loop 1000000
run "$mark" loop 2000000
run "$mark" syscalls 10000
run "$mark" syscalls 20000
run "$mark" udp 2000 192.0.2.2
run "$mark" udp 4000 192.0.2.2
echo "insn-count-check: tx_packets $(cat "/sys/class/net/$dev/statistics/tx_packets")"
echo "insn-count-check: done"
poweroff -f
