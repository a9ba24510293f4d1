#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-count.py TRACE WHAT [SIZE]: a running count of what a guest's
QEMU did, read from that guest's trace file (scripts/guests.sh), where it
happened rather than from the guest's own counters. WHAT is one of

  nic-drops         frames its e1000 dropped for want of RX buffers
                    (e1000_receiver_overrun); with SIZE, only frames of
                    SIZE bytes as QEMU counts them (with the 4-byte FCS).
                    The guest's MPC counter is a running sum that
                    e1000_update_stats() adds up again, not a delta.
  virtio-tx-kicks   notifications of the transmit queue (virtqueue 1) of
                    its virtio-net wire (virtio_queue_notify). The wire is
                    the one virtio device with a control queue (virtqueue
                    2): guests.sh turns the control link's off, and the
                    9p devices have one queue. Counted from the first
                    call, a baseline (the bench takes differences): the
                    first call reads only up to the wire's control queue
                    and then skips to the end.

Runs in the other guest (A for B's drops, BATCHING_PEER_NIC_DROPS; B for
A's notifications, the bench): a guest reading its own QEMU's trace
through its 9p share makes that QEMU trace a notification per read, into
the very file being read, faster than the guest reads it. The file only
grows: each call reads what was appended since the last one (state in
/tmp, one per TRACE and WHAT), so a call stays cheap when the file holds
millions of lines. Exit 1, with a message, if the count cannot be told."""
import json
import os
import re
import sys

DROP = re.compile(r'e1000_receiver_overrun.* of (\d+) bytes')
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
    if len(sys.argv) not in (3, 4) or \
       sys.argv[2] not in ('nic-drops', 'virtio-tx-kicks'):
        sys.exit(__doc__)
    trace, what = sys.argv[1], sys.argv[2]
    size = sys.argv[3] if len(sys.argv) == 4 else None
    state_path = '/tmp/trace-count.%s.%s%s' % (
        os.path.basename(trace), what, '.' + size if size else '')
    state = {'off': 0, 'drops': 0, 'tx': {}, 'ctrl': None}
    if os.path.exists(state_path):
        with open(state_path) as f:
            state = json.load(f)
    try:
        f = open(trace, 'rb')
    except OSError as e:
        sys.exit(f'trace-count: {e}')
    with f:
        f.seek(state['off'])
        if what == 'virtio-tx-kicks' and state['ctrl'] is None:
            data = find_ctrl(f)
            skip_to = f.seek(0, os.SEEK_END)
        else:
            data = f.read()
            skip_to = None
    # Whole lines only: a partial last line is read again next time.
    end = data.rfind(b'\n') + 1
    for line in data[:end].decode(errors='replace').splitlines():
        m = DROP.search(line)
        if m:
            if size is None or m.group(1) == size:
                state['drops'] += 1
            continue
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
    if what == 'nic-drops':
        print(state['drops'])
    elif state['ctrl'] is None:
        sys.exit(f'trace-count: {trace}: no virtio-net wire seen yet '
                 '(no notification of a control queue)')
    else:
        print(state['tx'].get(state['ctrl'], 0))


if __name__ == '__main__':
    main()
