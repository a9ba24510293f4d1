#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-count.py TRACE virtio-tx-kicks: a running count of the
notifications of the transmit queue (virtqueue 1) of a guest's virtio-net
wire (virtio_queue_notify), read from that guest's QEMU trace file
(scripts/guests.sh traces them for guest A under make bench), where they
happen rather than from the guest's own counters. The wire is the one
virtio device with a control queue (virtqueue 2): guests.sh turns the
control link's off, and the 9p devices have one queue. Counted from the
first call, a baseline (the bench takes differences): the first call
reads only up to the wire's control queue and then skips to the end.
(B's NIC drops, from the same kind of file: guest/nic-drops.sh.)

Runs in the other guest (B for A's notifications, the bench): a guest
reading its own QEMU's trace through its 9p share makes that QEMU trace a
notification per read, into the very file being read, faster than the
guest reads it. The file only grows: each call reads what was appended
since the last one (state in /tmp, one per TRACE), so a call stays cheap
when the file holds millions of lines. Exit 1, with a message, if the
count cannot be told."""
import json
import os
import re
import sys

NOTIFY = re.compile(r'virtio_queue_notify vdev (\S+) n (\d+) ')


def find_ctrl(f):
    """The lines from f's position up to and including the first that
    notifies a control queue (virtqueue 2); all of them if none does."""
    lines = []
    for line in f:
        lines.append(line)
        m = NOTIFY.search(line.decode(errors='replace'))
        if m and m.group(2) == '2':
            break
    return b''.join(lines)


def main():
    if len(sys.argv) != 3 or sys.argv[2] != 'virtio-tx-kicks':
        sys.exit(__doc__)
    trace = sys.argv[1]
    state_path = '/tmp/trace-count.%s.virtio-tx-kicks' % (
        os.path.basename(trace))
    state = {'off': 0, 'tx': {}, 'ctrl': None}
    if os.path.exists(state_path):
        with open(state_path) as f:
            state = json.load(f)
    try:
        f = open(trace, 'rb')
    except OSError as e:
        sys.exit(f'trace-count: {e}')
    with f:
        f.seek(state['off'])
        if state['ctrl'] is None:
            data = find_ctrl(f)
            skip_to = f.seek(0, os.SEEK_END)
        else:
            data = f.read()
            skip_to = None
    # Whole lines only: a partial last line is read again next time.
    end = data.rfind(b'\n') + 1
    for line in data[:end].decode(errors='replace').splitlines():
        m = NOTIFY.search(line)
        if m:
            vdev, n = m.group(1), int(m.group(2))
            if n == 1:
                state['tx'][vdev] = state['tx'].get(vdev, 0) + 1
            elif n == 2:
                if state['ctrl'] not in (None, vdev):
                    sys.exit(f'trace-count: {trace}: two virtio devices '
                             'with a control queue')
                state['ctrl'] = vdev
    state['off'] += end
    if skip_to is not None and state['ctrl'] is not None:
        state['off'] = skip_to
        state['tx'] = {}
    with open(state_path, 'w') as f:
        json.dump(state, f)
    if state['ctrl'] is None:
        sys.exit(f'trace-count: {trace}: no virtio-net wire seen yet '
                 '(no notification of a control queue)')
    print(state['tx'].get(state['ctrl'], 0))


if __name__ == '__main__':
    main()
