#!/usr/bin/env python3
"""automatic_pdl old / new of bench/scripts/h100_widths_disp.sh (arms old and new):  widthsdisp_moved.py DIR
the rows whose dispatch moved (old -> new kernel, medians, old / new), their geomean per M, and the unmoved rows
(the control); then the same for the rules as landed, which keep rows of 1024 < N <= 2048 and K < 5120 at M > 512 on
dequant_cublas (as the old arm ran them)."""
import json
import math
import os
import sys


def load(path):
    t = {}
    for r in json.load(open(path))['rows']:
        if r['kind'] != 'baseline':
            t[(r['model'], r['shape'], r['M'], r['bits'])] = (r['us']['median'], r['dispatch'].split('->')[-1],
                                                                 r['N'], r['K'], r['verify'])
    return t


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    d = sys.argv[1]
    old, new = load(os.path.join(d, 'bench-1-old.json')), load(os.path.join(d, 'bench-2-new.json'))
    for landed in (False, True):
        moved, same, per = [], [], {}
        for k in sorted(old):
            if k not in new:
                continue
            a, b = old[k], new[k]
            kept = landed and k[2] > 512 and 1024 < a[2] <= 2048 and a[3] < 5120  # api.cu's 513..576 rule
            if a[1] == b[1]:
                same.append(a[0] / b[0])
                continue
            if kept:  # the landed rules leave it where the old arm ran it
                continue
            r = a[0] / b[0]
            moved.append((k, a, b, r))
            per.setdefault(k[2], []).append(r)
        rs = [m[3] for m in moved]
        print(('rules as landed' if landed else 'rules as run') +
              f': {len(rs)} moved rows, geomean {geomean(rs):.3f}, {min(rs):.3f}-{max(rs):.3f}; '
              f'{len(same)} unmoved rows {geomean(same):.3f}, {min(same):.3f}-{max(same):.3f}')
        for m in sorted(per):
            print(f'  M = {m}: {len(per[m])} rows, geomean {geomean(per[m]):.3f}, {min(per[m]):.3f}-{max(per[m]):.3f}')
        if not landed:
            for k, a, b, r in moved:
                print(f'  {k[0][:16]:16} {k[1]:28} M = {k[2]:4} k = {k[3]} {a[1]} -> {b[1]} '
                      f'{a[0]:7.2f} -> {b[0]:7.2f} us  {r:.3f}  {b[4]}')


if __name__ == '__main__':
    main()
