#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the demo's runs side by side and draw them: demo_table.py CSV PNG."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
cols = [('gbit', 'Gbit/s'), ('retrans', 'retrans'),
        ('avg_batch', 'avg batch'), ('doorbells_per_pkt', 'doorbells/pkt')]
print(f'{"flows":>5} | ' + ' | '.join(f'{h:>19}' for _, h in cols))
print(f'{"":>5} | ' + ' | '.join(f'{"off":>9} {"on":>9}' for _ in cols))
for flows in sorted({r['flows'] for r in rows}, key=int):
    by = {r['batching']: r for r in rows if r['flows'] == flows}
    cells = [f'{by["off"][k]:>9} {by["on"][k]:>9}' for k, _ in cols]
    print(f'{flows:>5} | ' + ' | '.join(cells))

import matplotlib  # noqa: E402
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, len(cols), figsize=(14, 3.5))
flows = sorted({r['flows'] for r in rows}, key=int)
for ax, (key, title) in zip(axes, cols):
    for i, state in enumerate(('off', 'on')):
        vals = [float(next(r[key] for r in rows
                           if r['flows'] == f and r['batching'] == state))
                for f in flows]
        ax.bar([x + i * 0.4 for x in range(len(flows))], vals, 0.4,
               label=f'batching {state}')
    ax.set_xticks([x + 0.2 for x in range(len(flows))])
    ax.set_xticklabels([f'{f} flow' + ('s' if f != '1' else '') for f in flows])
    ax.set_title(title)
axes[0].legend()
fig.suptitle('e1000 transmit batching, two QEMU guests')
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
