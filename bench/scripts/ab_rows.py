#!/usr/bin/env python3
"""Same-call A/B of two kbit-bench arms for one kernel, per row:
  ab_rows.py DIR PREV_ARM NEW_ARM [KERNEL (default gemv)] [SUBSTRING (model + shape filter)]
Files DIR/bench-<i>-<arm>.json[.gz] (bench_rotation in lib/device_run.sh). Prints rows not PASS,
the geometric mean of prev/new per (M, k), then one line per row: best-of-repeats times, the
speedup, cuBLAS fp16 (fastest of all runs) and the new arm's ratio to it, and every repeat."""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import reports  # noqa: E402


def main():
    d, prev, new = sys.argv[1:4]
    kernel = sys.argv[4] if len(sys.argv) > 4 else 'gemv'
    only = sys.argv[5] if len(sys.argv) > 5 else ''
    times, cublas = collections.defaultdict(list), collections.defaultdict(list)
    for arm, rep in reports(d):
        for r in rep['rows']:
            if 'median' not in r.get('us', {}):
                continue
            key = (r['model'], r['shape'], r['M'], r['bits'])
            if r['kind'] == 'baseline':
                if r['kernel'] == 'cublas_f16':
                    cublas[key[:3]].append(r['us']['median'])
                continue
            if r['kernel'] != kernel:
                continue
            if r['verify'] != 'PASS':
                print('not PASS:', arm, key, r['verify'])
            times[(arm, key)].append(r['us']['median'])
    rows = []
    for key in sorted({k for (_, k) in times}):
        p, n = times.get((prev, key)), times.get((new, key))
        if p and n:
            rows.append((key, min(p), min(n), p, n))
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    by = collections.defaultdict(list)
    for key, p, n, _, _ in rows:
        by[(key[2], key[3])].append(p / n)
    for mk in sorted(by):
        v = by[mk]
        print('M=%d k=%d geomean %.3f min %.3f max %.3f n=%d' % (mk[0], mk[1], gm(v), min(v), max(v), len(v)))
    for key, p, n, ps, ns in rows:
        if only and only not in key[0] + key[1]:
            continue
        c = min(cublas.get(key[:3], [math.nan]))
        print('%-16s %-26s M=%d k=%d  %7.2f -> %7.2f  %.3fx  cuBLAS %7.2f (%.2fx)  runs %s | %s' %
              (key[0][:16], key[1][:26], key[2], key[3], p, n, p / n, c, c / n,
               ' '.join('%.1f' % x for x in ps), ' '.join('%.1f' % x for x in ns)))


if __name__ == '__main__':
    try:
        main()
    except BrokenPipeError:
        pass
