#!/usr/bin/env python3
"""Per-dtype A/B of kbit-bench runs in rotation (bench_rotation in lib/device_run.sh):
  arm_dtype_table.py DIR PREV_ARM NEW_ARM KERNEL[,KERNEL...]
For each kernel: the geometric mean of PREV time / NEW time per (M, k, dtype), then every row (model, shape, M, k,
dtype; by weight count) with the best of its runs in each arm and that ratio. A row not PASS stops the script.
Unlike ab_rows.py it keeps f16 and bf16 apart (ab_rows takes the best of both, which hides a dtype that lost)."""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import reports  # noqa: E402


def main():
    d, prev, new, kernels = sys.argv[1:5]
    t = collections.defaultdict(list)
    weights = {}
    for arm, rep in reports(d):
        for r in rep['rows']:
            if r['kind'] == 'baseline' or 'median' not in r.get('us', {}):
                continue
            assert r['verify'] == 'PASS', (arm, r['kernel'], r['model'], r['shape'], r['M'], r['verify'])
            key = (r['kernel'], r['model'], r['shape'], r['M'], r['bits'], r['dtype'])
            t[(arm,) + key].append(r['us']['median'])
            weights[key[1:3]] = r['N'] * r['K']
    for kernel in kernels.split(','):
        rows = sorted({k[1:] for k in t if k[0] == prev and k[1] == kernel},
                      key=lambda k: (weights[k[1:3]], k[1], k[2], k[5]))
        ratios = collections.defaultdict(list)
        lines = []
        for key in rows:
            a, b = t.get((prev,) + key), t.get((new,) + key)
            if not a or not b:
                continue
            x = min(a) / min(b)
            ratios[(key[3], key[4], key[5])].append(x)
            lines.append(f'{weights[key[1:3]] / 1e6:6.1f}M {key[1]:17s} {key[2]:27s} M={key[3]} k={key[4]} {key[5]:4s} '
                         f'{min(a):8.2f} -> {min(b):8.2f}  {x:.3f}x')
        for (m, bits, dt), xs in sorted(ratios.items()):
            g = math.exp(sum(map(math.log, xs)) / len(xs))
            print(f'{kernel} M={m} k={bits} {dt}: {prev} -> {new} geomean {g:.3f} min {min(xs):.3f} max {max(xs):.3f} '
                  f'n={len(xs)}')
        print('\n'.join(lines))


if __name__ == '__main__':
    main()
