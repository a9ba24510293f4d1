#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# peer-call.sh ADDR:PORT CMD...: run CMD on the peer guest through its
# peer-agent.py, print its output and exit with its status. The tests'
# remote in the guests (REMOTE_TYPE=cmd, REMOTE_ARGS="peer-call.sh
# ADDR:PORT"): a bash client, because python3 takes
# seconds to start in a TCG guest with the debugging kernel.
target=$1
shift
cmd="$*"
exec 3<>"/dev/tcp/${target%:*}/${target##*:}" || exit 255
printf 'SH %d\n%s' "$(printf %s "$cmd" | wc -c)" "$cmd" >&3
# the agent runs a command for at most 900 s (peer-agent.py)
read -r -t 960 rc out err <&3 || exit 255
head -c "$out" <&3
head -c "$err" <&3 >&2
exit "$rc"
