#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-function instructions per packet from a make bench run:
insn_functions.py BENCHDIR [CONFIG...]

BENCHDIR is make bench's output ($RESULTS/bench): one directory per boot,
each with the rows of guest/measure.sh (bench.csv) and the insn-count
plugin's lines (insn-count.txt: one "run" line per counted iperf3 run,
insn-count-fns.txt: the run's count per kernel function). A row and its
run are paired in order; a run whose transmit-path to kernel ratio is not
the row's is an iperf3 attempt that was retried, and is skipped. CONFIG
is "kind,flows,tso" (default: tcp,64,off). Prints, per configuration, a
markdown table: the transmit-path functions (insn-count/tx-functions.txt)
with the most instructions per packet, median over the rounds, one
column per state; then the transmit path's total by the list as it is now
(and as the plugin summed it during the run) and the kernel's, with
their min-max and spread; and,
per kernel, the listed functions its System.map lacks (inlined or absent:
their instructions count in their callers, listed or not)."""
import csv
import fnmatch
import os
import statistics
import sys

TOP = 20
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATE_ORDER = ['stock', 'xmit-more', 'xmit-more-harder', 'bql-only',
               'first-off', 'off', 'on']


def tx_patterns():
    with open(os.path.join(REPO, 'insn-count', 'tx-functions.txt')) as f:
        return [w.split()[0] for w in f
                if w.strip() and not w.startswith('#')]


def is_tx(name, patterns):
    """As insn-count/plugin.c: a pattern, or a GCC clone of one (NAME.*)."""
    return any(fnmatch.fnmatchcase(alias, p) or
               (not p.endswith('*') and alias.startswith(p + '.'))
               for alias in name.split(',') for p in patterns)


def spread_cell(vals):
    """median (min-max) spread%, as bench_report.py's cells"""
    med = statistics.median(vals)
    lo, hi = min(vals), max(vals)
    return '%.0f (%.0f-%.0f) %.1f%%' % (med, lo, hi,
                                         100 * (hi - lo) / med if med else 0)


def runs_of(boot):
    """run number -> (tx, kernel), and run number -> {function: count}."""
    runs, fns = {}, {}
    with open(os.path.join(boot, 'insn-count.txt')) as f:
        for line in f:
            w = line.split()
            if w and w[0] == 'run':
                fig = dict(zip(w[2::2], map(int, w[3::2])))
                runs[int(w[1])] = (fig['tx'], fig['kernel'])
    with open(os.path.join(boot, 'insn-count-fns.txt')) as f:
        for line in f:
            seq, count, name = line.rstrip('\n').split(' ', 2)
            fns.setdefault(int(seq), {})[name] = int(count)
    return runs, fns


def paired(boot):
    """(row, packets, {function: count}) for each counted row of a boot."""
    with open(os.path.join(boot, 'bench.csv')) as f:
        rows = [r for r in csv.DictReader(f)
                if r.get('tx_insns_per_pkt')]
    runs, fns = runs_of(boot)
    seqs = sorted(runs)
    out = []
    for r in rows:
        tx_ipp = float(r['tx_insns_per_pkt'])
        k_ipp = float(r['kernel_insns_per_pkt'])
        while seqs:
            tx, kernel = runs[seqs[0]]
            seq = seqs.pop(0)
            # the row's figures are the run's, per packet, to 2 decimals
            pkts = kernel / k_ipp if k_ipp else 0
            if pkts and abs(tx / pkts - tx_ipp) <= 0.01 + 1e-6 * tx_ipp:
                out.append((r, pkts, fns.get(seq, {})))
                break
        else:
            sys.exit(f'{boot}: no plugin run matches row {r}')
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bench = sys.argv[1]
    configs = [tuple(c.split(',')) for c in sys.argv[2:]] or \
        [('tcp', '64', 'off')]
    patterns = tx_patterns()
    per = {}   # (config, state) -> [{function: instructions/pkt}]
    for d in sorted(os.listdir(bench)):
        boot = os.path.join(bench, d)
        if not os.path.isfile(os.path.join(boot, 'insn-count.txt')):
            continue
        for r, pkts, fns in paired(boot):
            cfg = (r['kind'], r['flows'], r['tso'])
            ipp = {n: c / pkts for n, c in fns.items() if is_tx(n, patterns)}
            # the list as it is now, which may be longer than the one
            # the plugin summed during the run (the row's figure)
            ipp[' transmit path'] = sum(ipp.values())
            ipp[' transmit path, as run'] = float(r['tx_insns_per_pkt'])
            ipp[' kernel'] = float(r['kernel_insns_per_pkt'])
            per.setdefault((cfg, r['batching']), []).append(ipp)
    if not per:
        sys.exit(f'{bench}: no counted runs')
    missing = {}   # kernel (boot directory without its round) -> names
    for d in sorted(os.listdir(bench)):
        path = os.path.join(bench, d, 'insn-count.txt')
        if os.path.isfile(path):
            with open(path) as f:
                missing[d.rsplit('-', 1)[0] if d[-1].isdigit() else d] = \
                    sorted({line.split(': ', 1)[1].strip() for line in f
                            if line.startswith('# tx function not in')})
    for cfg in configs:
        states = [s for s in STATE_ORDER if (cfg, s) in per]
        if not states:
            continue

        def med(state, name):
            return statistics.median(run.get(name, 0.0)
                                     for run in per[(cfg, state)])
        names = {n for s in states for run in per[(cfg, s)] for n in run
                 if not n.startswith(' ')}
        top = sorted(names, key=lambda n: -max(med(s, n) for s in states))
        rounds = min(len(per[(cfg, s)]) for s in states)
        print(f'#### {cfg[0].upper()} {cfg[1]} flows, TSO {cfg[2]}: '
              f'instructions/pkt by function (median of {rounds}+ rounds)\n')
        print('| function | ' + ' | '.join(states) + ' |')
        print('|---|' + '---:|' * len(states))
        for n in top[:TOP]:
            print(f'| `{n}` | ' +
                  ' | '.join('%.1f' % med(s, n) for s in states) + ' |')
        for n in (' transmit path', ' transmit path, as run', ' kernel'):
            print(f'| **{n.strip()}** | ' +
                  ' | '.join(spread_cell([run[n] for run in per[(cfg, s)]])
                             for s in states) + ' |')
        print()
    print('Listed transmit-path functions each kernel lacks '
          '(insn-count/tx-functions.txt):\n')
    for k, names in missing.items():
        print(f'- {k}: ' + (', '.join(f'`{n}`' for n in names) or 'none'))


if __name__ == '__main__':
    main()
