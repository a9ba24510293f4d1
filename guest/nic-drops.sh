#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nic-drops.sh TRACE [SIZE]: how many frames a guest's e1000 has dropped
# so far for want of RX buffers, counted from QEMU's e1000_receiver_overrun
# trace file of that guest (guests.sh); with SIZE, only frames of SIZE
# bytes as QEMU counts them (with the 4-byte FCS). Runs in guest A as
# BATCHING_PEER_NIC_DROPS. The file only grows: each call reads what was
# appended since the last one (state in /tmp, one per TRACE and SIZE), so
# a call stays cheap when the file holds millions of lines.
set -eu
trace=$1
want=e1000_receiver_overrun
[ -z "${2:-}" ] || want="e1000_receiver_overrun.* of $2 bytes"
state=/tmp/nic-drops.$(basename "$trace")${2:+.$2}
off=0 count=0
[ ! -r "$state" ] || read -r off count < "$state"
size=$(stat -c %s "$trace")
# Count whole lines only: stop at the last newline of what is there now.
new=$(tail -c +$((off + 1)) "$trace" | head -c $((size - off)) |
      awk -v want="$want" '{ n += ($0 ~ want); b += length($0) + 1 }
	   END { printf "%d %d", n, b }')
set -- $new
# A partial last line has no newline: awk counted it; take it back.
if [ "$2" -gt $((size - off)) ]; then
	tail_line=$(tail -c +$((off + 1)) "$trace" | head -c $((size - off)) |
		    tail -n 1)
	if echo "$tail_line" | grep -q "$want"; then
		set -- $(($1 - 1)) $(($2 - ${#tail_line} - 1))
	else
		set -- "$1" $(($2 - ${#tail_line} - 1))
	fi
fi
count=$((count + $1))
echo "$((off + $2)) $count" > "$state"
echo "$count"
