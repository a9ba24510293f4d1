#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a test-bed guest (command line built in scripts/guests.sh).
# Mounts what a read-only 9p root needs, names and addresses the NICs by
# MAC, then
#   guest b: serves the control agent until guest a says "poweroff";
#   guest a: runs $out/job-a.sh (written by the host) with the peer's
#            addresses and the remote-command prefix in its environment;
#   guest n: the one-guest bed: both ends of the e1000 wire, the peer's
#            NIC moved into the network namespace "peer", runs
#            $out/job-a.sh with REMOTE_TYPE=netns.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
REPO=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
AGENT_PORT=7000

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# devtmpfs has no /dev/fd or /dev/std*; the kselftest runner writes to
# /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
# The tmpfs mounts below hide what the host has there; a clone of the
# repository under /tmp or /root would vanish. Keep the host's root
# reachable (devtmpfs is writable) and bind the repository back.
mkdir /dev/.hostroot
mount --bind / /dev/.hostroot
for d in /dev/shm /tmp /run /var/tmp /var/log /var/lib /root /mnt; do
	mount -t tmpfs tmpfs "$d"
done
if [ ! -d "$REPO/guest" ]; then
	mkdir -p "$REPO"
	mount --bind "/dev/.hostroot$REPO" "$REPO"
fi

arg() { sed -n "s/.*testbed\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
name=$(arg name)
out=$(arg out)
mkdir -p "$out" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$out" ||
	echo "testbed: cannot mount the results share at $out"
hostname "guest-$name"

# The one-guest bed (scripts/guests.sh's netns_cmdline): upstream's
# two-host variables with the peer in a network namespace. The peer's
# NIC keeps a name of its own, which lib.sh must find by its address.
if [ "$name" = n ]; then
	for i in /sys/class/net/*; do
		case "$(cat "$i/address")" in
		52:54:00:00:00:01) ip link set "${i##*/}" name eth0 ;;
		52:54:00:00:00:02) ip link set "${i##*/}" name peer0 ;;
		esac
	done
	ip link set lo up
	ip netns add peer
	ip link set peer0 netns peer
	ip -n peer link set lo up
	ip addr add 192.0.2.1/24 dev eth0
	ip -6 addr add 2001:db8::1/64 dev eth0 nodad
	ip -n peer addr add 192.0.2.2/24 dev peer0
	ip -n peer -6 addr add 2001:db8::2/64 dev peer0 nodad
	ip link set eth0 up
	ip -n peer link set peer0 up
	echo "testbed: guest n up: $(uname -r), eth0=$(ethtool -i eth0 | sed -n 's/^driver: //p'), peer0 in netns peer=$(ip netns exec peer ethtool -i peer0 | sed -n 's/^driver: //p')"
	export NETIF=eth0 LOCAL_V4=192.0.2.1 LOCAL_V6=2001:db8::1
	export REMOTE_V4=192.0.2.2 REMOTE_V6=2001:db8::2
	export REMOTE_TYPE=netns REMOTE_ARGS=peer
	# One QEMU, one trace: it holds the drops of both NICs. What eth0
	# receives is the peer's ACKs (at most 98 bytes with the FCS:
	# timestamps and three SACK blocks) and, a few frames a run, the
	# peer's side of iperf3's control connection, so frames of 100 bytes
	# or more are the peer's but for those few. The order runs' exact
	# size (lib.sh: $1) is unaffected.
	export BATCHING_PEER_NIC_DROPS="NIC_DROPS_MIN_SIZE=100 bash $REPO/guest/nic-drops.sh $out/guest-n.nic-trace \"\$1\""
	export TESTBED_OUT=$out
	if [ -f "$out/job-a.sh" ]; then
		bash "$out/job-a.sh"
		echo "testbed: job-a.sh exited with $?"
	else
		echo "testbed: no $out/job-a.sh to run"
	fi
	sync
	poweroff -f
fi

case "$name" in
a) n=1 peer=2 ;;
*) n=2 peer=1 ;;
esac

# Rename by MAC: 52:54:00:00:00:0N is the e1000 wire (eth0),
# 52:54:00:00:01:0N control (eth1), 52:54:00:00:02:0N the virtio wire (eth2),
# 52:54:00:00:03:0N the slow virtio wire (eth3, IPv6 only).
for i in /sys/class/net/*; do
	case "$(cat "$i/address")" in
	52:54:00:00:00:*) ip link set "${i##*/}" name wire0 ;;
	52:54:00:00:01:*) ip link set "${i##*/}" name ctl0 ;;
	52:54:00:00:02:*) ip link set "${i##*/}" name vwire0 ;;
	52:54:00:00:03:*) ip link set "${i##*/}" name vslow0 ;;
	esac
done
ip link set wire0 name eth0
ip link set ctl0 name eth1
ip link set vwire0 name eth2
ip link set vslow0 name eth3
ip link set lo up
ip addr add "192.0.2.$n/24" dev eth0
ip -6 addr add "2001:db8::$n/64" dev eth0 nodad
ip addr add "198.51.100.$n/25" dev eth1
ip addr add "198.51.100.$((128 + n))/25" dev eth2
ip -6 addr add "2001:db8:1::$n/64" dev eth2 nodad
ip -6 addr add "2001:db8:2::$n/64" dev eth3 nodad
ip link set eth0 up
ip link set eth1 up
ip link set eth2 up
ip link set eth3 up

echo "testbed: guest $name up: $(uname -r), eth0=$(ethtool -i eth0 | sed -n 's/^driver: //p'), eth2=$(ethtool -i eth2 | sed -n 's/^driver: //p')"

if [ "$name" = b ]; then
	python3 "$REPO/guest/peer-agent.py" serve "198.51.100.$n" "$AGENT_PORT"
else
	# The selftests' two-host variables (lib.sh), named as upstream's
	# drivers/net selftests name them; the remote is the agent on B.
	export NETIF=eth0
	export LOCAL_V4=192.0.2.$n LOCAL_V6=2001:db8::$n
	export REMOTE_V4=192.0.2.$peer REMOTE_V6=2001:db8::$peer
	agent=198.51.100.$peer:$AGENT_PORT
	export REMOTE_TYPE=cmd
	export REMOTE_ARGS="$REPO/guest/peer-call.sh $agent"
	# B's NIC drops, counted by B's QEMU (guests.sh) in the shared out dir
	export BATCHING_PEER_NIC_DROPS="bash $REPO/guest/nic-drops.sh $out/guest-b.nic-trace \"\$1\""
	export TESTBED_OUT=$out
	# The same tests over the virtio wire: the settings that differ.
	# No NIC drops there (guest/virtio-nic-drops.sh); no TSO (a QEMU
	# socket netdev has no vnet header, so the device offers no
	# segmentation offload); no TX ring resize (6.1's
	# virtio-net resizes only with VIRTIO_F_RING_RESET).
	export TESTBED_VIRTIO="NETIF=eth2 LOCAL_V4=198.51.100.$((128 + n))"
	TESTBED_VIRTIO+=" REMOTE_V4=198.51.100.$((128 + peer))"
	TESTBED_VIRTIO+=" LOCAL_V6=2001:db8:1::$n REMOTE_V6=2001:db8:1::$peer"
	TESTBED_VIRTIO+=" BATCHING_PEER_NIC_DROPS=$REPO/guest/virtio-nic-drops.sh"
	TESTBED_VIRTIO+=" BATCHING_TSO=off"
	# reorder.sh's netem controls prove B's counts and the verdicts,
	# not the link: the one-guest pass runs them, or without it the
	# e1000 pass (scripts/selftest.sh; 105 s saved here)
	TESTBED_VIRTIO+=" BATCHING_REORDER_CONTROLS=0"
	# The slow wire (guests.sh) for stress.sh's slow_tx_napi_down
	TESTBED_VIRTIO+=" BATCHING_SLOW_NETIF=eth3"
	TESTBED_VIRTIO+=" BATCHING_SLOW_REMOTE_V6=2001:db8:2::$peer"
	TESTBED_VIRTIO+=" BATCHING_SLOW_PERIOD=$(arg slow_period)"
	# The e1000 pass has the longer storm (50 toggles in make check, 100
	# in make selftest), through the core's paths: 15 here, through
	# virtio-net's drain and its BQL switch in virtnet_set_features()
	# (30 took 49 s of toggling under load on Dec 7)
	TESTBED_VIRTIO+=" BATCHING_STRESS_TOGGLES=${BATCHING_VIRTIO_STRESS_TOGGLES:-15}"
	# The faults whose path is virtio-net's own: its batching toggle and
	# drain, its remove, tx NAPI, XDP_TX. The MTU change (6.1's
	# virtio-net has no ndo_change_mtu) and the qdisc swap take the
	# core's paths, which the e1000 pass runs; virtnet_close() and
	# virtnet_open() (patches 0005, 0013), which a link flap runs, are
	# run six times under load by tx_napi_switch, which takes the link
	# down and up around each switch (121 s saved here, Dec 7).
	TESTBED_VIRTIO+=" BATCHING_STRESS_CASES=transfer_check_catches_truncation"
	TESTBED_VIRTIO+=",toggle_storm"
	TESTBED_VIRTIO+=",unbind_rebind,tx_napi_switch,slow_tx_napi_down"
	TESTBED_VIRTIO+=",xdp_tx_share,xdp_echo_order_control"
	TESTBED_VIRTIO+=",xdp_echo_loss_control"
	# Wait for the peer's agent (its boot may lag ours).
	for i in $(seq 120); do
		$REMOTE_ARGS true 2>/dev/null && break
		sleep 1
	done
	if [ -f "$out/job-a.sh" ]; then
		bash "$out/job-a.sh"
		echo "testbed: job-a.sh exited with $?"
	else
		echo "testbed: no $out/job-a.sh to run"
	fi
	python3 "$REPO/guest/peer-agent.py" call "$agent" --poweroff \
		2>/dev/null
fi
sync
poweroff -f
