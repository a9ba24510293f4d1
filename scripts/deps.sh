#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build, the QEMU guests and the tests need, from Debian's
# packages. Idempotent: apt-get runs only when something is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	# the kernel tree and its build
	linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev
	# checkpatch.pl and its spdxcheck.py; make lint
	codespell python3-ply python3-git shellcheck pyflakes3
	kmod cpio rsync xz-utils git ccache python3
	# the demo's chart
	python3-matplotlib
	# the guests
	qemu-system-x86
	# stress.sh's XDP program: clang's BPF target, libbpf's headers (the
	# uapi ones come with libc6-dev)
	clang libbpf-dev
	# what the guests run (from the host's / over 9p)
	iproute2 iputils-ping ethtool iperf3 procps util-linux strace tcpdump
	jq socat
	rdma-core ibverbs-utils rdmacm-utils ibverbs-providers perftest
	# make bench: request/response latency
	sockperf
)

# The Debian kernel source the series was last tested on. Debian's point
# releases move linux-source-6.1; another version only gets a warning
# (README.md, "Before the first command", says what to do when the series
# no longer applies to it). It warns about the installed package: the
# tree under CACHE_DIR is extracted once and kept.
TESTED_SOURCE=6.1.192-3

source_version() {
	local v

	v=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || return
	[ "$v" = "$TESTED_SOURCE" ] && return
	say "warning: linux-source-6.1 is $v, the series was tested on $TESTED_SOURCE"
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	say "all ${#PKGS[@]} packages present"
	source_version
	exit 0
fi
say "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
source_version
