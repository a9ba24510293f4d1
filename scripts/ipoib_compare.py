#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The "figures:" lines of the KUnit suite ipoib-xmit-more-compare
(scripts/ipoib-compare.sh) as a Markdown table: per train, batching and
xmit_more side by side, per packet. Every figure must be a number, and
every train must have both rows, or it fails."""
import re
import sys

LINE = re.compile(r"figures: (batching|xmit_more) \| train (.+?) \| "
                  r"pkts (\S+) \| posts (\S+) \| signaled (\S+) \| "
                  r"cqes (\S+) \| max_inflight_bytes (\S+)")


def main(path):
    rows = {}
    order = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            variant, train = m.group(1), m.group(2)
            try:
                pkts, posts, sig, cqes, infl = (int(m.group(i))
                                                for i in range(3, 8))
            except ValueError:
                sys.exit(f"not a number in: {line.strip()}")
            if pkts <= 0:
                sys.exit(f"no packets in: {line.strip()}")
            if train not in order:
                order.append(train)
            rows[(train, variant)] = (pkts, posts, sig, cqes, infl)
    if not order:
        sys.exit(f"no figures in {path}")
    print("| train (packets x trains) | route | posts/pkt | signaled WRs/pkt "
          "| CQEs/pkt | most BQL bytes in flight |")
    print("|---|---|---|---|---|---|")
    for train in order:
        for variant in ("batching", "xmit_more"):
            if (train, variant) not in rows:
                sys.exit(f"train {train}: no {variant} figures")
            pkts, posts, sig, cqes, infl = rows[(train, variant)]
            print(f"| {train} | {variant} | {posts / pkts:.3f} | "
                  f"{sig / pkts:.3f} | {cqes / pkts:.3f} | {infl} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ipoib_compare.py KUNIT_LOG")
    main(sys.argv[1])
