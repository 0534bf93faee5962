#!/usr/bin/env python3
"""tcw's partition beside ab_rows.py's k = 2 rows, planned on one and on two CTAs per SM of the
H100's 132 SMs. tcw_tile_fit.py's Python copy of tcw_partition (lib/kbit/tcw_sched.h) for reading a record; the
C++ function is the one the CPU tests check.
(It plans M's default tile, tcw_default_tile: the records it reads predate tcw_choose_tile.)
  tcw_plan_rows.py AB_ROWS_TXT
prints: model shape M N K speedup, then each plan as (kind, CTAs, steps a CTA[, slices])."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcw_tile_fit  # noqa: E402 (the Python copy of tcw_partition)

STEP_K, ROWS, SMS = 128, 128, 132


def partition(M, N, K, slots):
    mn = tcw_tile_fit.default_tile(M)
    steps = -(-K // STEP_K)
    p = tcw_tile_fit.partition(M, N, steps, -(-N // ROWS) * -(-M // mn), slots, False)
    if p['kind'] == 'sk':
        return ('stream-K', p['ctas'], p['cs'])
    return ('per tile', p['ctas'], p['cs'], p['splits'])


def main():
    rows = {}
    for line in open(sys.argv[1]):
        m = re.match(r'(\S+)\s+(\S+)\s+M=(\d+) k=2\s+([\d.]+) ->\s+([\d.]+)\s+([\d.]+)x', line)
        if m:
            rows[(m[1], m[2], int(m[3]))] = float(m[6])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cat = json.load(open(os.path.join(root, 'data', 'shapes.json')))
    for model in cat['models']:
        for g in model['gemms']:
            if g.get('experts', 1) != 1:
                continue
            for M in sorted({k[2] for k in rows}):
                r = rows.get((model['name'], g['name'], M))
                if r is None:
                    continue
                N, K = g['N'], g['K']
                print(f"{model['name']:16s} {g['name']:26s} M={M:<4d} N={N:<6d} K={K:<6d} {r:.3f}x  "
                      f"one {partition(M, N, K, SMS)}  two {partition(M, N, K, 2 * SMS)}")


if __name__ == '__main__':
    main()
