#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print one closing line for the whole test run:
'total: N passed, N failed, N skipped'. Arguments are kunit.py JSON files
(KUnit cases) or kselftest TAP files, whose test cases are the nested
"# ok N name" lines each test script prints, plus one failure for each
script that failed as a whole.

Strict: a skip counts as skipped only when it is expected and named in
EXPECTED_SKIPS; any other skip is a failure. A TAP plan ("1..N", the
runner's or a script's) that does not match the results counted is a
failure. Exit 1 when anything failed or nothing ran."""
import json
import re
import sys

# script -> the reason its skip must give (why it is expected on this bed:
# ib_ipoib does not attach to rxe or siw, so no IPoIB interface exists)
EXPECTED_SKIPS = {
    'net/batching: ipoib.sh': 'no IPoIB (ib*) interface: needs an InfiniBand HCA',
}

NESTED = re.compile(r'^# (not )?ok \d+ (.*)$')
NESTED_PLAN = re.compile(r'^# 1\.\.(\d+)(?: # SKIP (.*))?')
TOP = re.compile(r'^(not )?ok \d+ (.*)$')
TOP_PLAN = re.compile(r'^1\.\.(\d+)')
SCRIPT = re.compile(r'selftests: (\S+: \S+)')


def problem(tally, msg):
    print(f'  FAIL: {msg}')
    tally['failed'] += 1


def count_tap(path, tally):
    top_plan = None
    top_seen = 0
    plan = None
    why = ''
    results = {'passed': 0, 'failed': 0, 'skipped': 0}
    failed = []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = NESTED_PLAN.match(line)
        if m:
            plan = int(m.group(1))
            why = m.group(2) or ''
            continue
        m = NESTED.match(line)
        if m:
            key = 'failed' if m.group(1) else \
                'skipped' if '# SKIP' in m.group(2) else 'passed'
            results[key] += 1
            if m.group(1):
                failed.append(m.group(2))
            continue
        m = TOP_PLAN.match(line)
        if m:
            top_plan = int(m.group(1))
            continue
        m = TOP.match(line)
        if not m:
            continue
        # The end of one script: judge its results.
        top_seen += 1
        s = SCRIPT.search(m.group(2))
        script = s.group(1) if s else m.group(2)
        ran = sum(results.values())
        # Name each failed case: CI keeps only the end of the output
        for case in failed:
            print(f'  failed: {script}: {case}')
        if plan is None:
            problem(tally, f'{script}: no plan')
        elif plan != ran:
            problem(tally, f'{script}: planned {plan} tests, ran {ran}')
        skipped = results['skipped'] + (
            1 if not m.group(1) and '# SKIP' in m.group(2) and not ran
            else 0)
        tally['cases'][script] = ran
        if skipped and script not in EXPECTED_SKIPS:
            problem(tally, f'{script}: {skipped} unexpected skip(s)')
            skipped = 0
        elif skipped and (ran or EXPECTED_SKIPS[script] not in why):
            problem(tally, f'{script}: skipped for another reason than '
                    f'"{EXPECTED_SKIPS[script]}": "{why}"')
            skipped = 0
        elif skipped:
            print(f'  expected skip: {script}: {why}')
        tally['passed'] += results['passed']
        tally['failed'] += results['failed']
        tally['skipped'] += skipped
        # A script that failed as a whole counts once more, so that a
        # crash after its own results is not lost.
        if m.group(1):
            tally['failed'] += 1
        plan = None
        why = ''
        results = {'passed': 0, 'failed': 0, 'skipped': 0}
        failed = []
    if top_plan is None or top_plan != top_seen:
        problem(tally, f'the runner planned {top_plan} scripts, '
                f'{top_seen} reported')


def leaves(node):
    return len(node.get('test_cases', [])) + \
        sum(leaves(sub) for sub in node.get('sub_groups', []))


def count(node, tally, top=True, where=''):
    if not top:
        where += f'{node.get("name")}: '
    if top:
        for suite in node.get('sub_groups', []):
            tally['cases'][suite.get('name')] = leaves(suite)
    for case in node.get('test_cases', []):
        status = case.get('status', 'FAIL')
        if status == 'SKIP':
            problem(tally, f'KUnit {case.get("name")}: unexpected skip')
        elif status == 'PASS':
            tally['passed'] += 1
        else:
            print(f'  failed: KUnit {where}{case.get("name")}')
            tally['failed'] += 1
    for sub in node.get('sub_groups', []):
        count(sub, tally, False, where)


def new_tally():
    # cases: suite or script -> the number of test cases it ran
    return {'passed': 0, 'failed': 0, 'skipped': 0, 'cases': {}}


def role(path):
    """Which run a result file holds, as the pin file names it."""
    if path.endswith('.json'):
        return 'kunit'
    name = path.rsplit('/', 1)[-1]
    if name.startswith('insn-count'):
        return 'insn-count'
    if name.startswith('fault-check'):
        return 'fault'
    if name.startswith('sanitize-fault'):
        return 'sanitize-fault'
    if 'netns' in name:
        return 'netns'
    return 'virtio' if 'virtio' in name else 'e1000'


def read_pin(path):
    """The pin file: 'ROLE NAME CASES' lines, # comments."""
    pin = {}
    for n, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        f = line.rsplit(None, 1)
        r, _, name = f[0].partition(' ')
        if len(f) != 2 or not f[1].isdigit() or not name:
            sys.exit(f'{path}:{n}: want "ROLE NAME CASES": {line}')
        pin.setdefault(r, {})[name.strip()] = int(f[1])
    return pin


def check_pin(pin, path, tally):
    """Every suite or script of the pin ran, with its number of cases,
    and nothing else: a script dropped from TEST_PROGS or a suite dropped
    from the kunitconfig fails the run."""
    want = pin.get(role(path), {})
    got = tally['cases']
    for name in sorted(set(want) | set(got)):
        if name not in got:
            problem(tally, f'{name}: pinned at {want[name]} cases, '
                    'did not run')
        elif name not in want:
            problem(tally, f'{name}: ran {got[name]} cases, not in the pin')
        elif got[name] != want[name]:
            problem(tally, f'{name}: ran {got[name]} cases, pinned at '
                    f'{want[name]}')


# --self-test: the strict rules must fail what they are meant to fail.
SELF_TEST = {
    'clean': ('1..2', [('ethtool.sh', '1..1', ['ok 1 a'], 'ok'),
                       ('ipoib.sh', '1..0 # SKIP no IPoIB (ib*) interface: '
                        'needs an InfiniBand HCA', [], 'ok # SKIP')], 0),
    'expected skip, other reason': ('1..1', [('ipoib.sh',
                                              '1..0 # SKIP no peer', [],
                                              'ok # SKIP')], 1),
    'pinned script missing': ('1..1', [('link.sh', '1..1', ['ok 1 a'],
                                        'ok')], 1),
    'pinned count differs': ('1..2', [('ethtool.sh', '1..2',
                                       ['ok 1 a', 'ok 2 b'], 'ok'),
                                      ('link.sh', '1..1', ['ok 1 a'], 'ok')],
                             1),
    'pinned and clean': ('1..2', [('ethtool.sh', '1..1', ['ok 1 a'], 'ok'),
                                  ('link.sh', '1..1', ['ok 1 a'], 'ok')], 0),
    'unexpected skip': ('1..1', [('link.sh', '1..2', ['ok 1 a',
                                                      'ok 2 b # SKIP x'],
                                  'ok')], 1),
    'short of its plan': ('1..1', [('tcp.sh', '1..3', ['ok 1 a', 'ok 2 b'],
                                    'ok')], 1),
    'runner cut short': ('1..2', [('tcp.sh', '1..1', ['ok 1 a'], 'ok')], 1),
    'script skipped whole': ('1..1', [('gate.sh', '1..0 # SKIP no peer', [],
                                       'ok # SKIP')], 1),
}

SELF_TEST_PIN = {'e1000': {'net/batching: ethtool.sh': 1,
                           'net/batching: link.sh': 1}}


def self_test(tmp):
    bad = 0
    for name, (plan, scripts, want_failed) in SELF_TEST.items():
        lines = ['TAP version 13', plan]
        for i, (script, splan, cases, top) in enumerate(scripts, 1):
            lines += [f'# selftests: net/batching: {script}', f'# {splan}']
            lines += [f'# {c}' for c in cases]
            ok, _, skip = top.partition(' # ')
            lines.append(f'{ok} {i} selftests: net/batching: {script}' +
                         (f' # {skip}' if skip else ''))
        path = f'{tmp}/{name.replace(" ", "_")}.tap'
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        tally = new_tally()
        count_tap(path, tally)
        if name.startswith('pinned'):
            check_pin(SELF_TEST_PIN, path, tally)
        got = 1 if tally['failed'] else 0
        print(f'summary.py self-test: {name}: '
              f'{"fails" if got else "passes"}'
              f'{"" if got == want_failed else " (WRONG)"}')
        bad += got != want_failed
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ['--self-test']:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            return self_test(tmp)
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    args = sys.argv[1:]
    pin = None
    if args[:1] == ['--pin']:
        pin = read_pin(args[1])
        args = args[2:]
    for path in args:
        tally = new_tally()
        try:
            if path.endswith('.tap'):
                count_tap(path, tally)
            else:
                with open(path) as f:
                    count(json.load(f), tally)
        except (OSError, ValueError) as e:
            print(f'{path}: unreadable ({e})')
            tally['failed'] += 1
        if pin is not None:
            check_pin(pin, path, tally)
        print(f'{path}: {tally["passed"]} passed, {tally["failed"]} failed, '
              f'{tally["skipped"]} skipped')
        for k in total:
            total[k] += tally[k]
    print(f'total: {total["passed"]} passed, {total["failed"]} failed, '
          f'{total["skipped"]} skipped')
    return 1 if total['failed'] or not total['passed'] else 0


if __name__ == '__main__':
    sys.exit(main())
