#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# peer-call.sh ADDR:PORT CMD...: run CMD on the peer guest through its
# peer-agent.py, print its output and exit with its status. The tests'
# remote in the guests (REMOTE_TYPE=cmd, REMOTE_ARGS="peer-call.sh
# ADDR:PORT"): a bash client, because python3 takes a second or more to
# start in a TCG guest with the debugging kernel, and it starts no other
# program either (each costs a few tenths of a second there), as the
# tests call it several times per traffic run.
export LC_ALL=C	# lengths in bytes
target=$1
shift
cmd="$*"
exec 3<>"/dev/tcp/${target%:*}/${target##*:}" || exit 255
printf 'SH %d\n%s' "${#cmd}" "$cmd" >&3
# the agent runs a command for at most 900 s (peer-agent.py)
read -r -t 960 rc out err <&3 || exit 255
[[ "$rc $out $err" =~ ^-?[0-9]+\ [0-9]+\ [0-9]+$ ]] || exit 255
# (text only: bash drops NUL bytes)
if [ "$out" -gt 0 ]; then
	IFS= read -r -t 60 -N "$out" data <&3 || exit 255
	printf '%s' "$data"
fi
if [ "$err" -gt 0 ]; then
	IFS= read -r -t 60 -N "$err" data <&3 || exit 255
	printf '%s' "$data" >&2
fi
exit "$rc"
