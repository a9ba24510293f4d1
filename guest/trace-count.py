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
                    9p devices have one queue.

Runs in guest A (BATCHING_PEER_NIC_DROPS, the bench). The file only
grows: each call reads what was appended since the last one (state in
/tmp, one per TRACE and WHAT), so a call stays cheap when the file holds
millions of lines. Exit 1, with a message, if the count cannot be told."""
import json
import os
import re
import sys

DROP = re.compile(r'e1000_receiver_overrun.* of (\d+) bytes')
NOTIFY = re.compile(r'virtio_queue_notify vdev (\S+) n (\d+) ')


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
        data = f.read()
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
