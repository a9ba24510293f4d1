#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: bench_report.py CSV OUTDIR

Prints a markdown table of medians (min-max) per configuration and
batching state, and draws one PNG per figure into OUTDIR. The rows of
make bench-sweep (kinds sweep-rxN and fixed-rxN) get one table per kind,
a row per burst shape, and one PNG of drops and retransmissions."""
import csv
import statistics
import sys

FIGURES = [('gbit', 'Gbit/s'), ('pps', 'packets/s'),
           ('doorbells_per_pkt', 'doorbells/pkt'),
           ('b_nic_drops', "frames B's NIC dropped (QEMU trace)"),
           ('avg_batch', 'avg batch'),
           ('cpu_s_per_gbit', 'CPU s/Gbit'),
           ('retrans', 'retrans'),
           ('rto', 'RTO expiries'),
           ('dsack_segs', 'needless retrans (D-SACKed segments)'),
           ('qdisc_requeues', 'qdisc requeues'),
           ('rtt_us', 'RTT us'),
           ('max_batch', 'max batch (frames per driver call, since boot)')]
STATES = ['stock', 'xmit-more', 'off', 'on']
COLORS = {'stock': 'tab:gray', 'xmit-more': 'tab:green', 'off': 'tab:blue',
          'on': 'tab:orange'}
SHAPES = ['off', 'series', 'db8', 'db16', 'db32', 'db64', 'unbounded']
SHAPE_NAMES = {'off': 'batching off', 'series': 'series (quarter ring)',
               'unbounded': 'unbounded (<= 256, 1 TDT)'}
SWEEP_FIGURES = [('gbit', 'Gbit/s'), ('doorbells_per_pkt', 'doorbells/pkt'),
                 ('avg_batch', 'avg batch'), ('max_batch', 'max batch'),
                 ('b_nic_drops', "B's NIC drops"), ('retrans', 'retrans'),
                 ('dsack_segs', 'D-SACKed'),
                 ('cpu_s_per_gbit', 'CPU s/Gbit')]


def state_name(s):
    if s == 'stock':
        return 'stock kernel'
    if s == 'xmit-more':
        return 'stock, xmit_more doorbell'
    return f'batching {s}'


def shape_name(s):
    if s.startswith('db'):
        return f'TDT every {s[2:]} frames'
    return SHAPE_NAMES.get(s, s)


def config_name(r):
    if r['kind'] == 'tcp':
        return f'TCP {r["flows"]} flow(s), TSO {r["tso"]}'
    if r['kind'] == 'udp':
        return f'UDP 64 B, {r["flows"]} streams'
    if r['kind'] == 'pktgen':
        return 'pktgen burst 32'
    return 'TCP RR latency'


def spread(vals):
    """(median, min, max) of the figures that are there, None if none."""
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals)


def cell(vals):
    s = spread(vals)
    if s is None:
        return ''
    med, lo, hi = s
    fmt = '%.0f' if med >= 100 else '%.2f'
    if lo == hi:
        return fmt % med
    return (fmt + ' (' + fmt + '-' + fmt + ')') % (med, lo, hi)


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def sweep_report(rows, outdir):
    kinds = []
    for r in rows:
        if r['kind'] not in kinds:
            kinds.append(r['kind'])
    reps = len({r['rep'] for r in rows})
    print(f'Medians over {reps} rounds in one boot (min-max); TCP, 64 flows,'
          ' TSO and GSO off.\n')
    for k in kinds:
        what, rx = k.split('-rx')
        load = ('offered load 4 Mbit/s per flow' if what == 'fixed'
                else 'unlimited offered load')
        print(f"### B's RX ring {rx}, {load}\n")
        print('| burst shape | ' +
              ' | '.join(t for _, t in SWEEP_FIGURES) + ' |')
        print('|---|' + '---|' * len(SWEEP_FIGURES))
        for sh in SHAPES:
            sel = [r for r in rows if r['kind'] == k and r['batching'] == sh]
            if not sel:
                continue
            print(f'| {shape_name(sh)} | ' + ' | '.join(
                cell([num(r[key]) for r in sel]) for key, _ in SWEEP_FIGURES)
                + ' |')
        print()

    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key, title in ((axes[0], 'b_nic_drops', "B's NIC drops"),
                           (axes[1], 'retrans', 'A retransmissions')):
        for k in kinds:
            shapes = [sh for sh in SHAPES
                      if any(r['kind'] == k and r['batching'] == sh
                             for r in rows)]
            meds = []
            for sh in shapes:
                st = spread([num(r[key]) for r in rows
                             if r['kind'] == k and r['batching'] == sh])
                meds.append(st[0] if st else 0)
            ax.plot([SHAPES.index(sh) for sh in shapes], meds, marker='o',
                    label=k)
        ax.set_xticks(range(len(SHAPES)))
        ax.set_xticklabels(SHAPES, rotation=30, ha='right', fontsize=8)
        ax.set_title(f'{title}, median of {reps}')
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f'{outdir}/bench-sweep.png', dpi=90)
    plt.close(fig)


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    outdir = sys.argv[2]
    if not rows:
        sys.exit(f'{sys.argv[1]}: no results to report')
    if all(r['kind'].startswith(('sweep-', 'fixed-')) for r in rows):
        sweep_report(rows, outdir)
        return
    configs = []
    for r in rows:
        if config_name(r) not in configs:
            configs.append(config_name(r))
    states = [s for s in STATES if any(r['batching'] == s for r in rows)]
    reps = len({r['rep'] for r in rows})

    print(f'Medians over {reps} interleaved rounds (min-max).\n')
    for key, title in FIGURES:
        if key == 'rtt_us':
            subset = ['TCP RR latency']
        else:
            subset = [c for c in configs if c != 'TCP RR latency']
        if not any(num(r[key]) is not None for r in rows):
            continue
        print(f'### {title}\n')
        print('| configuration | ' + ' | '.join(state_name(s)
                                                for s in states) + ' |')
        print('|---|' + '---|' * len(states))
        for c in subset:
            cells = [cell([num(r[key]) for r in rows
                           if config_name(r) == c and r['batching'] == s])
                     for s in states]
            print(f'| {c} | ' + ' | '.join(cells) + ' |')
        print()

    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    for key, title in FIGURES:
        subset = (['TCP RR latency'] if key == 'rtt_us' else
                  [c for c in configs if c != 'TCP RR latency'])
        # Stock has no driver counters: no bars rather than zeroes
        shown = [s for s in states
                 if any(num(r[key]) is not None
                        for r in rows if r['batching'] == s)]
        fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(subset)), 4))
        width = 0.8 / len(shown)
        for i, s in enumerate(shown):
            meds, lo, hi = [], [], []
            for c in subset:
                m, vmin, vmax = spread([num(r[key]) for r in rows
                                        if config_name(r) == c and
                                        r['batching'] == s]) or (0, 0, 0)
                meds.append(m)
                lo.append(m - vmin)
                hi.append(vmax - m)
            ax.bar([x + i * width for x in range(len(subset))], meds, width,
                   yerr=[lo, hi], capsize=3, label=state_name(s),
                   color=COLORS[s])
        ax.set_xticks([x + width * (len(shown) - 1) / 2
                       for x in range(len(subset))])
        ax.set_xticklabels(subset, rotation=30, ha='right', fontsize=8)
        ax.set_title(f'{title}: median, min-max over {reps} rounds')
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(f'{outdir}/bench-{key}.png', dpi=90)
        plt.close(fig)


if __name__ == '__main__':
    main()
