#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of make bench and make demo: bench_report.py [--demo] CSV OUTDIR

The rows are those guest/measure.sh writes. For the bench: a markdown
table of medians (min-max) per configuration and batching state, and one
PNG per figure in OUTDIR. The rows of make bench-sweep (kinds sweep-rxN
and fixed-rxN) get one table per kind, a row per burst shape, and one PNG
of drops and retransmissions. With --demo: the demo's runs side by side,
batching off and on, as text, and OUTDIR/demo.png."""
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
           ('max_batch', 'max batch (frames per driver call, since boot)'),
           ('host_doorbells_per_pkt',
            "notifications/pkt, QEMU's count (virtio wire)"),
           ('tx_insns_per_pkt',
            'transmit-path instructions/pkt (insn-count plugin)'),
           ('kernel_insns_per_pkt', 'kernel instructions/pkt')]
STATES = ['stock', 'xmit-more', 'xmit-more-harder', 'bql-only', 'first-off',
          'off', 'on']
COLORS = {'stock': 'tab:gray', 'xmit-more': 'tab:green',
          'xmit-more-harder': 'tab:purple',
          'bql-only': 'tab:olive', 'first-off': 'tab:cyan', 'off': 'tab:blue',
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
    if s == 'xmit-more-harder':
        return 'stock, xmit_more 64-frame chains'
    if s == 'xmit-more':
        return 'stock, xmit_more doorbell'
    if s == 'bql-only':
        return 'stock, virtio-net BQL'
    if s == 'first-off':
        return 'batching off, before first on'
    return f'batching {s}'


def shape_name(s):
    if s.startswith('db'):
        return f'TDT every {s[2:]} frames'
    return SHAPE_NAMES.get(s, s)


def config_name(r):
    if r['kind'] == 'virtio-tcp':
        return f'virtio-net TCP {r["flows"]} flow(s), TSO {r["tso"]}'
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


# Figures whose cells also give their spread, (max - min) / median: the
# instruction counts, whose A/A spread is what tells a difference from noise
SPREAD_SHOWN = ('tx_insns_per_pkt', 'kernel_insns_per_pkt')


def cell(vals, show_spread=False):
    s = spread(vals)
    if s is None:
        return ''
    med, lo, hi = s
    whole = all(v is None or v == int(v) for v in vals)
    fmt = '%.0f' if med >= 100 or whole else '%.2f'
    if lo == hi:
        return fmt % med
    text = (fmt + ' (' + fmt + '-' + fmt + ')') % (med, lo, hi)
    if show_spread and med:
        text += ' %.1f%%' % (100 * (hi - lo) / med)
    return text


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def values(rows, config, state, key):
    """KEY of every run of CONFIG in STATE, None where a cell is empty."""
    return [num(r.get(key) or '') for r in rows
            if config_name(r) == config and r['batching'] == state]


def pyplot():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def bars(ax, rows, configs, states, key):
    """One group of bars per configuration, a bar per state: the median
    of KEY, with its min-max as error bars."""
    width = 0.8 / len(states)
    for i, s in enumerate(states):
        meds, lo, hi = [], [], []
        for c in configs:
            m, vmin, vmax = (spread(values(rows, c, s, key)) or
                             (0, 0, 0))
            meds.append(m)
            lo.append(m - vmin)
            hi.append(vmax - m)
        ax.bar([x + i * width for x in range(len(configs))], meds, width,
               yerr=[lo, hi], capsize=3, label=state_name(s),
               color=COLORS[s])
    ax.set_xticks([x + width * (len(states) - 1) / 2
                   for x in range(len(configs))])


def decorate(ax, labels, title):
    ax.set_xticklabels(labels, rotation=30, ha='right', fontsize=8)
    ax.set_title(title)
    ax.legend(fontsize=8)


def save(plt, fig, path, dpi=90):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def in_order(rows, key):
    """The values of KEY in the order the rows first show them."""
    return list(dict.fromkeys(key(r) for r in rows))


DEMO_FIGURES = [('gbit', 'Gbit/s'), ('retrans', 'retrans'),
                ('avg_batch', 'avg batch'),
                ('doorbells_per_pkt', 'doorbells/pkt')]


def demo_report(rows, outdir):
    configs = in_order(rows, config_name)
    states = ['off', 'on']
    w = max(len(c) for c in configs)
    print(f'{"":>{w}} | ' + ' | '.join(f'{t:>19}' for _, t in DEMO_FIGURES))
    print(f'{"batching":>{w}} | ' +
          ' | '.join(f'{"off":>9} {"on":>9}' for _ in DEMO_FIGURES))
    for c in configs:
        print(f'{c:>{w}} | ' + ' | '.join(
            ' '.join(f'{cell(values(rows, c, s, key)):>9}' for s in states)
            for key, _ in DEMO_FIGURES))

    plt = pyplot()
    fig, axes = plt.subplots(1, len(DEMO_FIGURES), figsize=(15, 3.8))
    for ax, (key, title) in zip(axes, DEMO_FIGURES):
        bars(ax, rows, configs, states, key)
        ax.set_xticklabels([c.replace(', ', '\n') for c in configs],
                           fontsize=8)
        ax.set_title(title)
    axes[0].legend(fontsize=8)
    fig.suptitle('e1000 transmit batching, two QEMU guests')
    save(plt, fig, f'{outdir}/demo.png', dpi=100)


def sweep_report(rows, outdir):
    kinds = in_order(rows, lambda r: r['kind'])
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

    plt = pyplot()
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
        decorate(ax, SHAPES, f'{title}, median of {reps}')
    save(plt, fig, f'{outdir}/bench-sweep.png')


def main():
    args = sys.argv[1:]
    demo = args[:1] == ['--demo']
    if demo:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[0]) as f:
        rows = list(csv.DictReader(f))
    outdir = args[1]
    if not rows:
        sys.exit(f'{args[0]}: no results to report')
    if demo:
        demo_report(rows, outdir)
        return
    if all(r['kind'].startswith(('sweep-', 'fixed-')) for r in rows):
        sweep_report(rows, outdir)
        return
    configs = in_order(rows, config_name)
    states = [s for s in STATES if any(r['batching'] == s for r in rows)]
    reps = len({r['rep'] for r in rows})

    print(f'Medians over {reps} interleaved rounds (min-max).\n')
    for key, title in FIGURES:
        if key == 'rtt_us':
            subset = ['TCP RR latency']
        else:
            subset = [c for c in configs if c != 'TCP RR latency']
        if not any(num(r.get(key) or '') is not None for r in rows):
            continue
        print(f'### {title}\n')
        print('| configuration | ' + ' | '.join(state_name(s)
                                                for s in states) + ' |')
        print('|---|' + '---|' * len(states))
        for c in subset:
            cells = [cell(values(rows, c, s, key), key in SPREAD_SHOWN)
                     for s in states]
            print(f'| {c} | ' + ' | '.join(cells) + ' |')
        print()

    plt = pyplot()
    for key, title in FIGURES:
        subset = (['TCP RR latency'] if key == 'rtt_us' else
                  [c for c in configs if c != 'TCP RR latency'])
        # Stock has no driver counters: no bars rather than zeroes
        shown = [s for s in states
                 if any(num(r.get(key) or '') is not None
                        for r in rows if r['batching'] == s)]
        if not shown:
            continue
        fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(subset)), 4))
        bars(ax, rows, subset, shown, key)
        decorate(ax, subset, f'{title}: median, min-max over {reps} rounds')
        save(plt, fig, f'{outdir}/bench-{key}.png')


if __name__ == '__main__':
    main()
