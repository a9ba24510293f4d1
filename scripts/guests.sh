# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# QEMU command lines of the test bed, in one place, and the one way to run
# a job in the guests (guests_job). Sourced after scripts/lib.sh; what
# runs inside the guests lives in guest/. Two guests, A and B, boot the
# project's bzImage with this machine's / as a read-only 9p root and are
# joined by four point-to-point links, all QEMU socket netdevs on
# 127.0.0.1 (never user-mode networking):
#   wire:  e1000 <-> e1000, the link under test (192.0.2.0/24, 2001:db8::/64)
#   vwire: virtio-net <-> virtio-net, the second link under test
#          (198.51.100.128/25, 2001:db8:1::/64)
#   vslow: virtio-net <-> virtio-net, a wire whose device on A sends only
#          once every SLOW_WIRE_PERIOD s (2001:db8:2::/64)
#   ctl:   virtio-net <-> virtio-net, the harness's control link
#          (198.51.100.0/25), so that tests may take a wire down.
# guest/init.sh names and addresses them.

GUEST_MEM=${GUEST_MEM:-1024}
# vCPUs: A, the sender, gets two so that a bypass sender, netpoll or
# pktgen really runs beside the qdisc on another CPU; B, which only
# receives and answers, one. KUnit boots with KUNIT_CPUS. TCG runs each
# vCPU on its own host thread (MTTCG).
GUEST_A_CPUS=${GUEST_A_CPUS:-2}
GUEST_B_CPUS=${GUEST_B_CPUS:-1}
KUNIT_CPUS=${KUNIT_CPUS:-2}
# The slow wire's period in seconds: A's device holds what it was given
# this long (QEMU's x-txtimer, in ns of its virtual clock, real time
# under TCG; at most 4 s). The guests learn it from testbed.slow_period.
SLOW_WIRE_PERIOD=3
# The control link's virtio-net without a control queue, and without the
# features Linux refuses without one (virtnet_validate_features())
CTL_NO_CVQ=ctrl_vq=off,ctrl_rx=off,ctrl_vlan=off,guest_announce=off,ctrl_mac_addr=off

# guest_accel: "tcg", or "kvm" when ACCEL=kvm or, on a CPU with VMX or
# SVM, a short boot probe shows that KVM guests get past the decompressor
# here. The verdict is cached per machine in $CACHE_DIR/accel.
guest_accel() {
	local cache=$CACHE_DIR/accel log
	case "${ACCEL:-auto}" in
	tcg|kvm) echo "$ACCEL"; return ;;
	auto) ;;
	*) die "ACCEL must be auto, tcg or kvm" ;;
	esac
	if [ -s "$cache" ]; then
		cat "$cache"
		return
	fi
	if [ ! -w /dev/kvm ] || [ ! -f "$BZIMAGE" ]; then
		echo tcg
		return
	fi
	# No VMX or SVM in the CPU's flags: KVM cannot run a guest, whatever
	# /dev/kvm says (the probe below would take its full 20 s to find
	# that out)
	if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
		echo tcg > "$cache"
		cat "$cache"
		return
	fi
	# A kernel without a root file system panics within seconds under a
	# working KVM; here KVM guests hang at "Decompressing Linux...".
	log=$(mktemp)
	timeout 20 qemu-system-x86_64 -accel kvm -m 256 -nodefaults -nographic \
		-no-reboot -kernel "$BZIMAGE" -append "console=ttyS0 panic=-1" \
		-serial "file:$log" -display none >/dev/null 2>&1 || true
	if grep -q "Kernel panic" "$log"; then
		echo kvm > "$cache"
	else
		echo tcg > "$cache"
	fi
	rm -f "$log"
	cat "$cache"
}

# free_port: a TCP port on 127.0.0.1 that nobody listens on right now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_listen PORT: until QEMU listens on 127.0.0.1:PORT (10 s at most).
wait_listen() {
	local i
	for i in $(seq 100); do
		ss -Hltn "src 127.0.0.1:$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# The host's / as a guest's read-only 9p root: QEMU's device, and the
# kernel's arguments for it (the selftest guests and the KUnit guest)
ROOT_9P_VIRTFS=local,path=/,mount_tag=rootfs,security_model=none,readonly=on,multidevs=remap
ROOT_9P_ARGS="root=rootfs rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose ro"

# The instruction counter (insn-count/, built by scripts/insn-count.sh):
# guest A runs under the plugin when INSN_COUNT=1 (make bench), its
# kernel booted with nokaslr so that the System.map beside its bzImage
# names the functions; guest A marks runs with a copy of $INSN_MARK in
# the results directory, its path in the job's INSN_MARK.
INSN_COUNT_DIR=$CACHE_DIR/insn-count
INSN_COUNT_PLUGIN=$INSN_COUNT_DIR/insn-count.so
INSN_MARK=$INSN_COUNT_DIR/insn-mark

# system_map BZIMAGE: the System.map of that kernel: beside a build's
# arch/x86/boot/bzImage, or $CACHE_DIR/System.map-NAME for a bench
# variant's copy $CACHE_DIR/bzImage-NAME
system_map() {
	case "$1" in
	*/arch/x86/boot/bzImage) echo "${1%/arch/x86/boot/bzImage}/System.map" ;;
	*/bzImage-*) echo "${1%/bzImage-*}/System.map-${1##*/bzImage-}" ;;
	*) die "no System.map known for $1" ;;
	esac
}

# insn_count_args MAP OUTDIR: QEMU's -plugin option counting by MAP's
# functions, results in OUTDIR/insn-count.txt and insn-count-fns.txt
insn_count_args() {
	[ -s "$1" ] || die "no System.map at $1"
	[ -f "$INSN_COUNT_PLUGIN" ] || die "no plugin at $INSN_COUNT_PLUGIN: scripts/insn-count.sh build"
	echo "-plugin $INSN_COUNT_PLUGIN,map=$1,tx=$REPO/insn-count/tx-functions.txt,out=$2/insn-count.txt,fns=$2/insn-count-fns.txt"
}

# guest_cmdline NAME OUTDIR [KEY=VALUE...]: QEMU arguments for guest NAME
# (a or b), booting $BZIMAGE with the kernel's GUEST_KERNEL_ARGS (lib.sh).
# QEMU traces, into guest-NAME.nic-trace, each frame its e1000
# drops because the guest's RX ring is full (e1000_receiver_overrun) and,
# for guest A with TRACE_VIRTIO_KICKS=1 (the bench), each notification a
# virtio device gets (virtio_queue_notify): guest/nic-drops.sh counts
# receiver drops and guest/trace-count.py the virtio wire's transmit
# notifications where they happen. So that it can tell the wire from the
# control link, only the wire has a virtio-net control queue.
# Notifications are traced only where read: every 9p request is one, and
# in a make check run they made each guest's trace 50-60 MB, which the
# drop counts read through 9p.
# (QEMU keeps the file= of its last -trace option: both name the file.)
# A third wire, slow: A's virtio-net device there sends what the driver
# queued only every SLOW_WIRE_PERIOD s (QEMU's tx=timer mode,
# notifications off until the timer fires), so sent buffers stay on its
# ring long enough for a link down to catch them (stress.sh's
# slow_tx_napi_down). It has no control queue either: the wire must stay
# the only device with one (trace-count.py tells it by that).
# Guest b listens on the link ports, guest a connects.
# OUTDIR is shared read-write at the same path; everything else is the
# host's / read-only. Extra KEY=VALUE pairs reach the guest's init.
# TCG_THREAD=single runs each guest's vCPUs on one host thread instead
# of one each (make stock-reorder's jump-label control; make check
# refuses it).
guest_cmdline() {
	local name=$1 out=$2 accel side n cpus slow kicks= plugin= args
	shift 2
	args="$*"
	accel=$(guest_accel)
	case "$name" in
	a) n=1; side=connect; cpus=$GUEST_A_CPUS
	   slow=,tx=timer,x-txtimer=$((SLOW_WIRE_PERIOD * 1000000000)) ;;
	b) n=2; side=listen; cpus=$GUEST_B_CPUS; slow= ;;
	*) die "guest name must be a or b" ;;
	esac
	[ "$name" != a ] || [ "${TRACE_VIRTIO_KICKS:-}" != 1 ] ||
		kicks="-trace enable=virtio_queue_notify,file=$out/guest-$name.nic-trace"
	if [ "$name" = a ] && [ "${INSN_COUNT:-}" = 1 ]; then
		[ "$accel" = tcg ] || die "INSN_COUNT=1 needs TCG (ACCEL=tcg)"
		plugin=$(insn_count_args "$(system_map "$BZIMAGE")" "$out")
		args+=" nokaslr"
	fi
	[ "$accel" != tcg ] || accel+=${TCG_THREAD:+,thread=$TCG_THREAD}
	echo -accel "$accel" -smp "$cpus" -m "$GUEST_MEM" -nodefaults -nographic \
		-no-reboot -display none \
		-kernel "$BZIMAGE" \
		-append "'console=ttyS0 $ROOT_9P_ARGS init=$REPO/guest/init.sh kunit.enable=0 panic=-1 testbed.name=$name testbed.out=$out testbed.slow_period=$SLOW_WIRE_PERIOD $GUEST_KERNEL_ARGS $args'" \
		-virtfs "$ROOT_9P_VIRTFS" \
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
		-netdev "socket,id=wire,$side=127.0.0.1:$WIRE_PORT" \
		-device "e1000,netdev=wire,mac=52:54:00:00:00:0$n" \
		-netdev "socket,id=vwire,$side=127.0.0.1:$VWIRE_PORT" \
		-device "virtio-net-pci,netdev=vwire,mac=52:54:00:00:02:0$n" \
		-netdev "socket,id=vslow,$side=127.0.0.1:$VSLOW_PORT" \
		-device "virtio-net-pci,netdev=vslow,mac=52:54:00:00:03:0$n,$CTL_NO_CVQ$slow" \
		-netdev "socket,id=ctl,$side=127.0.0.1:$CTL_PORT" \
		-device "virtio-net-pci,netdev=ctl,mac=52:54:00:00:01:0$n,$CTL_NO_CVQ" \
		-trace "enable=e1000_receiver_overrun,file=$out/guest-$name.nic-trace" \
		$kicks $plugin \
		-serial "file:$out/guest-$name.console"
}

# netns_cmdline OUTDIR [KEY=VALUE...]: QEMU arguments of the one-guest
# bed, guest n, the shape upstream's netdev CI gives its drivers/net
# tests: both ends of an e1000 wire in one guest, the first NIC's socket
# netdev listening on 127.0.0.1 and the second's connected to it (QEMU
# accepts its own connection); guest/init.sh moves the second NIC into a
# network namespace, the tests' peer (REMOTE_TYPE=netns). The one trace
# file holds both NICs' receiver drops. As many vCPUs as guest A: sender
# and receiver share them.
netns_cmdline() {
	local out=$1
	shift
	echo -accel "$(guest_accel)" -smp "$GUEST_A_CPUS" -m "$GUEST_MEM" \
		-nodefaults -nographic -no-reboot -display none \
		-kernel "$BZIMAGE" \
		-append "'console=ttyS0 $ROOT_9P_ARGS init=$REPO/guest/init.sh kunit.enable=0 panic=-1 testbed.name=n testbed.out=$out $GUEST_KERNEL_ARGS $*'" \
		-virtfs "$ROOT_9P_VIRTFS" \
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
		-netdev "socket,id=wire,listen=127.0.0.1:$WIRE_PORT" \
		-device "e1000,netdev=wire,mac=52:54:00:00:00:01" \
		-netdev "socket,id=peer,connect=127.0.0.1:$WIRE_PORT" \
		-device "e1000,netdev=peer,mac=52:54:00:00:00:02" \
		-trace "enable=e1000_receiver_overrun,file=$out/guest-n.nic-trace" \
		-serial "file:$out/guest-n.console"
}

# netns_run OUTDIR TIMEOUT [KEY=VALUE...]: boot guest n and wait for it
# to power off; kills it on timeout or interrupt. Returns non-zero when it
# did not power off by itself in time.
netns_run() {
	local out=$1 limit=$2 rc=0
	shift 2
	local -a qn
	# (netns_cmdline runs in a subshell: its errors would not stop this)
	[ "${INSN_COUNT:-}" != 1 ] || die "INSN_COUNT=1 needs the two-guest bed"
	WIRE_PORT=$(free_port)
	say "one guest, peer in a netns: accelerator $(guest_accel), wire looped through 127.0.0.1:$WIRE_PORT, logs in $out"
	eval "qn=($(netns_cmdline "$out" "$@"))"
	GUEST_N=
	trap 'kill $GUEST_N 2>/dev/null
		[ -z "$GUEST_N" ] || wait $GUEST_N; exit 130' INT TERM
	timeout -k 10 "$limit" qemu-system-x86_64 "${qn[@]}" &
	GUEST_N=$!
	wait $GUEST_N || rc=$?
	trap - INT TERM
	[ $rc -eq 124 ] && echo "guest n timed out after $limit s" >&2
	return $rc
}

# guests_run OUTDIR TIMEOUT [KEY=VALUE...]: boot B, then A, wait for A to
# power off, give B 30 s to follow (A tells it to), then stop it. Kills both
# on timeout or interrupt. Returns non-zero when A did not power off by
# itself in time.
guests_run() {
	local out=$1 limit=$2 rc=0 i
	shift 2
	local -a qa qb
	WIRE_PORT=$(free_port)
	VWIRE_PORT=$(free_port)
	VSLOW_PORT=$(free_port)
	CTL_PORT=$(free_port)
	# (guest_cmdline runs in a subshell: its errors would not stop this)
	if [ "${INSN_COUNT:-}" = 1 ]; then
		[ "$(guest_accel)" = tcg ] || die "INSN_COUNT=1 needs TCG (ACCEL=tcg)"
		insn_count_args "$(system_map "$BZIMAGE")" "$out" >/dev/null
		# the guests' /tmp and /root are tmpfs: the mark program goes
		# to the shared results directory, where the job finds it
		cp "$INSN_MARK" "$out/insn-mark"
	fi
	say "guests: accelerator $(guest_accel), wire 127.0.0.1:$WIRE_PORT, virtio wire 127.0.0.1:$VWIRE_PORT, slow wire 127.0.0.1:$VSLOW_PORT, control 127.0.0.1:$CTL_PORT, logs in $out"
	eval "qb=($(guest_cmdline b "$out" "$@"))"
	eval "qa=($(guest_cmdline a "$out" "$@"))"
	GUEST_B=; GUEST_A=
	trap 'kill $GUEST_A $GUEST_B 2>/dev/null
		[ -z "$GUEST_A$GUEST_B" ] || wait $GUEST_A $GUEST_B; exit 130' INT TERM
	timeout -k 10 "$limit" qemu-system-x86_64 "${qb[@]}" &
	GUEST_B=$!
	if ! wait_listen "$WIRE_PORT" || ! wait_listen "$VWIRE_PORT" ||
	   ! wait_listen "$VSLOW_PORT" || ! wait_listen "$CTL_PORT"; then
		kill $GUEST_B
		die "guest b did not start (see $out/guest-b.console)"
	fi
	timeout -k 10 "$limit" qemu-system-x86_64 "${qa[@]}" &
	GUEST_A=$!
	wait $GUEST_A || rc=$?
	for i in $(seq 30); do
		kill -0 $GUEST_B 2>/dev/null || break
		sleep 1
	done
	kill $GUEST_B 2>/dev/null || true
	wait $GUEST_B 2>/dev/null || true
	trap - INT TERM
	[ $rc -eq 124 ] && echo "guest a timed out after $limit s" >&2
	return $rc
}

# guests_job OUT TIMEOUT [SHAPE]: run guest A's job, a bash script read
# from stdin, in the two guests (SHAPE "two", the default) or in the
# one-guest bed (SHAPE "netns": guest n runs it). Installs the
# net/batching kselftests (whose library the guest-side scripts source)
# into OUT/kselftest, passes the host's BATCHING_* settings on, and boots
# the guests with OUT shared read-write; the job finds OUT in
# $TESTBED_OUT. Dies when the guests do not finish by themselves within
# TIMEOUT seconds.
guests_job() {
	local out=$1 limit=$2 shape=${3:-two} v start run=guests_run settings t

	case "$shape" in
	two) ;;
	netns) run=netns_run ;;
	*) die "guests_job: shape $shape: two or netns" ;;
	esac
	mkdir -p "$out"
	make -s -C "$TREE/tools/testing/selftests" TARGETS=net/batching \
		INSTALL_PATH="$out/kselftest" install >"$out/install.log" 2>&1 ||
		{ cat "$out/install.log"; die "kselftest install failed"; }
	# SELFTEST_TIMEOUT_SCALE=N (make sanitize): each script's time
	# limit, the settings file's timeout, N times as long in this
	# install (6.1's kselftest runner has no override of its own)
	if [ -n "${SELFTEST_TIMEOUT_SCALE:-}" ]; then
		[[ $SELFTEST_TIMEOUT_SCALE =~ ^[1-9][0-9]*$ ]] ||
			die "SELFTEST_TIMEOUT_SCALE: '$SELFTEST_TIMEOUT_SCALE' is no positive integer"
		settings=$out/kselftest/net/batching/settings
		t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$settings")
		[ -n "$t" ] || die "no timeout in $settings"
		sed -i "s/^timeout=.*/timeout=$((t * SELFTEST_TIMEOUT_SCALE))/" \
			"$settings"
	fi
	for v in ${!BATCHING_@}; do
		printf 'export %s=%q\n' "$v" "${!v}"
	done > "$out/job-a.sh"
	# guest A runs under the instruction counter: how to mark a run
	[ "${INSN_COUNT:-}" != 1 ] ||
		printf 'export INSN_MARK=%q\n' "$out/insn-mark" >> "$out/job-a.sh"
	cat >> "$out/job-a.sh"
	start=$(date +%s)
	"$run" "$out" "$limit" ||
		die "guests did not finish (consoles in $out)"
	say "guests ran for $(($(date +%s) - start)) s"
}

# console_splats FILE...: print the kernel problem reports in guest console
# logs, KUnit logs or kmemleak reports, with some context; false when there
# are none. The patterns live in one place, the selftests' own list, which
# stress.sh also reads inside the guest.
KERNEL_PROBLEMS=$TREE/tools/testing/selftests/net/batching/kernel_problems.txt
# A missing or empty file, or a grep error, is reported as a problem too:
# a console nobody captured is not a clean one.
console_splats() {
	local f rc

	[ -s "$KERNEL_PROBLEMS" ] || die "no $KERNEL_PROBLEMS: is the series applied?"
	for f in "$@"; do
		if [ ! -s "$f" ]; then
			echo "$f: missing or empty, nothing to judge"
			return 0
		fi
	done
	grep -h -E -A 12 -f "$KERNEL_PROBLEMS" "$@"
	rc=$?
	[ $rc -le 1 ] || echo "grep failed ($rc) on $*"
	[ $rc -ne 1 ]
}

# console_splats_self_test: console_splats must report a splat, a missing
# and an empty log, and pass a clean one.
console_splats_self_test() {
	local tmp bad=0 want f

	tmp=$(mktemp -d) || return 1
	echo "Linux version 6.1" > "$tmp/clean"
	printf 'Linux version 6.1\nBUG: KASAN: use-after-free in x\n' > "$tmp/splat"
	: > "$tmp/empty"
	for f in clean:1 splat:0 empty:0 missing:0; do
		want=${f#*:}
		console_splats "$tmp/${f%:*}" >/dev/null 2>&1
		if [ $? -ne "$want" ]; then
			say "console_splats self-test: a ${f%:*} log read wrong"
			bad=1
		fi
	done
	rm -rf "$tmp"
	[ $bad -eq 0 ] && say "console_splats self-test: clean passes;" \
		"splat, empty and missing logs are reported"
}
