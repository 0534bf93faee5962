#!/usr/bin/env python3
"""Same-run A/B of two kbit-bench arms, every row (dense and MoE), best of the repeats per row:
  ab_moe.py DIR PREV_ARM NEW_ARM   (files DIR/bench-<i>-<arm>.json[.gz])
Per kernel column (automatic, automatic_pdl): geomean prev/new over MoE rows and over dense rows,
then one line per MoE row with the best fp16 alternative (cuBLAS loop or grouped, fastest of all
runs) and its ratio to the new arm. Rows not PASS are listed and left out."""
import collections, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import reports  # noqa: E402


def main():
    d, prev, new = sys.argv[1:4]
    t = collections.defaultdict(list)  # (arm, kernel, key) -> medians
    alt, disp = collections.defaultdict(list), {}
    for arm, rep in reports(d):
        if arm not in (prev, new):
            continue
        for r in rep['rows']:
            if 'median' not in r.get('us', {}):
                continue
            key = (r['moe'], r['model'], r['shape'], r['M'], r['bits'])
            if r['kind'] == 'baseline':
                if r['kernel'] in ('cublas_f16', 'cublas_loop_f16', 'cublas_grouped_f16'):
                    alt[key[:4]].append(r['us']['median'])
                continue
            if r['verify'] != 'PASS':
                print('not PASS:', arm, key, r['kernel'], r['verify'])
                continue
            t[(arm, r['kernel'], key)].append(r['us']['median'])
            if arm == new and r.get('dispatch'):
                disp[(r['kernel'], key)] = r['dispatch']
    kernels = sorted({k for (_, k, _) in t})
    keys = sorted({key for (_, _, key) in t})
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    best = lambda arm, k, key: min(t[(arm, k, key)]) if t.get((arm, k, key)) else None
    print('geomean prev/new (>1: new faster), min, max, rows')
    for k in kernels:
        for moe in (True, False):
            rs = [best(prev, k, key) / best(new, k, key) for key in keys
                  if key[0] == moe and best(prev, k, key) and best(new, k, key)]
            if rs:
                print('  %-14s %-5s %.3f %.3f %.3f %d' % (k, 'moe' if moe else 'dense', gm(rs), min(rs), max(rs), len(rs)))
    print()
    print('%-16s %-22s %4s %2s %8s | ' % ('model', 'shape', 'M', 'k', 'fp16 alt') +
          ' | '.join('%-14s prev -> new   x alt' % k for k in kernels))
    for key in keys:
        if not key[0]:
            continue
        a = min(alt.get(key[:4], [float('nan')]))
        cells = []
        for k in kernels:
            p, n = best(prev, k, key), best(new, k, key)
            cells.append('%-12s %6.2f -> %6.2f %5.2fx' % (disp.get((k, key), '')[:12], p or math.nan, n or math.nan,
                                                           a / n if n else math.nan))
        print('%-16s %-22s %4d %2d %8.2f | ' % (key[1][:16], key[2][:22], key[3], key[4], a) + ' | '.join(cells))


if __name__ == '__main__':
    main()
