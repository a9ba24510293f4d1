#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: bench_report.py CSV OUTDIR

Prints a markdown table of medians (min-max) per configuration and
batching state, and draws one PNG per figure into OUTDIR."""
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
           ('rtt_us', 'RTT us')]
STATES = ['stock', 'off', 'on']
COLORS = {'stock': 'tab:gray', 'off': 'tab:blue', 'on': 'tab:orange'}


def state_name(s):
    return 'stock kernel' if s == 'stock' else f'batching {s}'


def config_name(r):
    if r['kind'] == 'tcp':
        return f'TCP {r["flows"]} flow(s), TSO {r["tso"]}'
    if r['kind'] == 'udp':
        return f'UDP 64 B, {r["flows"]} streams'
    if r['kind'] == 'pktgen':
        return 'pktgen burst 32'
    return 'TCP RR latency'


def cell(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return ''
    med = statistics.median(vals)
    fmt = '%.0f' if med >= 100 else '%.2f'
    if len(vals) == 1 or min(vals) == max(vals):
        return fmt % med
    return (fmt + ' (' + fmt + '-' + fmt + ')') % (med, min(vals), max(vals))


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    outdir = sys.argv[2]
    if not rows:
        sys.exit(f'{sys.argv[1]}: no results to report')
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
                v = [num(r[key]) for r in rows
                     if config_name(r) == c and r['batching'] == s]
                v = [x for x in v if x is not None] or [0]
                m = statistics.median(v)
                meds.append(m)
                lo.append(m - min(v))
                hi.append(max(v) - m)
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
