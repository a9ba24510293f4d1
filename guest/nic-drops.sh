#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nic-drops.sh TRACE [SIZE]: the running count of frames a guest's e1000
# dropped for want of RX buffers (QEMU's e1000_receiver_overrun event, in
# that guest's trace file, scripts/guests.sh); with SIZE, only frames of
# SIZE bytes as QEMU counts them (with the 4-byte FCS); without SIZE and
# with NIC_DROPS_MIN_SIZE=N in the environment, only frames of N bytes or
# more (the one-guest bed, where one QEMU's trace holds both NICs' drops:
# guest/init.sh). Counted where the
# drop happens, not from the guest's MPC counter (a running sum that
# e1000_update_stats() adds up again).
#
# Runs in guest A for B's drops (BATCHING_PEER_NIC_DROPS, guest/init.sh),
# twice per traffic run, so it starts two programs only (each costs a few
# tenths of a second in a TCG guest, python3 a whole second). The file
# only grows: each call reads what was appended since the last one (state
# in /tmp, per TRACE and SIZE), whole lines only, as QEMU may be halfway
# through one: the "@@end" line after an added newline tells awk whether
# the last line it read was whole (an empty line before it; QEMU writes
# none) or cut off. Exit 1, with a message, if the count cannot be told.
set -o pipefail
export LC_ALL=C	# lengths in bytes
trace=$1
size=${2:-}
min=
[ -n "$size" ] || min=${NIC_DROPS_MIN_SIZE:-}
[ -n "$trace" ] && [[ $size =~ ^[0-9]*$ ]] && [[ $min =~ ^[0-9]*$ ]] ||
	{ echo "usage: [NIC_DROPS_MIN_SIZE=N] nic-drops.sh TRACE [SIZE]" >&2
	  exit 1; }
[ -r "$trace" ] || { echo "nic-drops: cannot read $trace" >&2; exit 1; }
state=/tmp/nic-drops.${trace//\//_}${size:+.$size}${min:+.min$min}
off=0
count=0
if [ -f "$state" ]; then
	read -r off count < "$state"
	[[ "$off $count" =~ ^[0-9]+\ [0-9]+$ ]] ||
		{ echo "nic-drops: bad state in $state" >&2; exit 1; }
fi
{ tail -c +$((off + 1)) "$trace" || echo "@@tail failed"; printf '\n@@end\n'; } |
	awk -v off="$off" -v count="$count" -v size="$size" -v min="$min" \
		-v state="$state" '
	function take(line) {
		off += length(line) + 1
		if (line !~ /e1000_receiver_overrun/)
			return
		if (size != "" && line !~ (" of " size " bytes"))
			return
		if (min != "" && !(match(line, / of [0-9]+ bytes/) &&
		    substr(line, RSTART + 4, RLENGTH - 10) + 0 >= min + 0))
			return
		count++
	}
	$0 == "@@tail failed" { exit 1 }
	$0 == "@@end" {
		# prev is "" when the data ended in a newline; else cut off
		print off, count > state
		print count
		done = 1
		exit
	}
	NR > 1 { take(prev) }
	{ prev = $0 }
	END { if (!done) exit 1 }'
