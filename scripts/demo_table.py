#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the demo's runs side by side and draw them: demo_table.py CSV PNG."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
cols = [('gbit', 'Gbit/s'), ('retrans', 'retrans'),
        ('avg_batch', 'avg batch'), ('doorbells_per_pkt', 'doorbells/pkt')]
# one line per (flows, TSO), in the order the guest ran them
shapes = list(dict.fromkeys((r['flows'], r['tso']) for r in rows))


def label(shape):
    flows, tso = shape
    return f'{flows} flow{"s" if flows != "1" else ""}, TSO {tso}'


def cell(shape, state, key):
    return next(r[key] for r in rows
                if (r['flows'], r['tso']) == shape and r['batching'] == state)


width = max(len(label(s)) for s in shapes)
print(f'{"":>{width}} | ' + ' | '.join(f'{h:>19}' for _, h in cols))
print(f'{"batching":>{width}} | ' +
      ' | '.join(f'{"off":>9} {"on":>9}' for _ in cols))
for shape in shapes:
    cells = [f'{cell(shape, "off", k):>9} {cell(shape, "on", k):>9}'
             for k, _ in cols]
    print(f'{label(shape):>{width}} | ' + ' | '.join(cells))

import matplotlib  # noqa: E402
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, len(cols), figsize=(15, 3.8))
for ax, (key, title) in zip(axes, cols):
    for i, state in enumerate(('off', 'on')):
        vals = [float(cell(s, state, key)) for s in shapes]
        ax.bar([x + i * 0.4 for x in range(len(shapes))], vals, 0.4,
               label=f'batching {state}')
    ax.set_xticks([x + 0.2 for x in range(len(shapes))])
    ax.set_xticklabels([label(s).replace(', ', '\n') for s in shapes])
    ax.set_title(title)
axes[0].legend()
fig.suptitle('e1000 transmit batching, two QEMU guests')
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
