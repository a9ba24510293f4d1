#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print one closing line for the whole test run:
'total: N passed, N failed, N skipped'. Arguments are kunit.py JSON files
(KUnit cases) or kselftest TAP files, whose test cases are the nested
"# ok N name" lines each test script prints, plus one failure for each
script that failed as a whole. Exit 1 when anything failed or
nothing ran."""
import json
import re
import sys

NESTED = re.compile(r'^# (not )?ok \d+ (.*)$')
TOP = re.compile(r'^(not )?ok \d+ (.*)$')


def count_tap(path, tally):
    for line in open(path, errors='replace'):
        m = NESTED.match(line.rstrip('\n'))
        if not m:
            # A script that failed or skipped as a whole counts once more,
            # so that a crash before its own results is not lost.
            m = TOP.match(line.rstrip('\n'))
            if m and m.group(1):
                tally['failed'] += 1
            elif m and '# SKIP' in m.group(2):
                tally['skipped'] += 1
            continue
        if m.group(1):
            tally['failed'] += 1
        elif '# SKIP' in m.group(2):
            tally['skipped'] += 1
        else:
            tally['passed'] += 1


def count(node, tally):
    for case in node.get('test_cases', []):
        status = case.get('status', 'FAIL')
        key = {'PASS': 'passed', 'SKIP': 'skipped'}.get(status, 'failed')
        tally[key] += 1
    for sub in node.get('sub_groups', []):
        count(sub, tally)


def main():
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    for path in sys.argv[1:]:
        tally = {'passed': 0, 'failed': 0, 'skipped': 0}
        try:
            if path.endswith('.tap'):
                count_tap(path, tally)
            else:
                with open(path) as f:
                    count(json.load(f), tally)
        except (OSError, ValueError) as e:
            print(f'{path}: unreadable ({e})')
            tally['failed'] += 1
        print(f'{path}: {tally["passed"]} passed, {tally["failed"]} failed, '
              f'{tally["skipped"]} skipped')
        for k in total:
            total[k] += tally[k]
    print(f'total: {total["passed"]} passed, {total["failed"]} failed, '
          f'{total["skipped"]} skipped')
    return 1 if total['failed'] or not total['passed'] else 0


if __name__ == '__main__':
    sys.exit(main())
