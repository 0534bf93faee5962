#!/usr/bin/env python3
"""Old / new ratios of dense kbit-bench rows, per kernel, from one results folder of bench_rotation.
Usage:
  ab_dense.py DIR OLD_ARM NEW_ARM KERNEL[,KERNEL...] [MIN_WEIGHTS [MAX_WEIGHTS]] [-v]
For each kernel: the geomean, min and max of OLD / NEW (>1: the new arm is faster; each row's best median over
the reps) over the rows of N x K in [MIN_WEIGHTS, MAX_WEIGHTS), overall and per (M, bits); with -v one line per
row, with the kernel an automatic row ran in each arm. Reads DIR/bench-<i>-<arm>.json[.gz] (pdl_compare.py's
loader: every row must be PASS)."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare as pc  # noqa: E402


def main(argv):
    verbose = '-v' in argv
    args = [a for a in argv if a != '-v']
    if len(args) < 4:
        sys.exit(__doc__)
    d, old, new, kernels = args[0], args[1], args[2], args[3].split(',')
    wmin = float(args[4]) if len(args) > 4 else 0.0
    wmax = float(args[5]) if len(args) > 5 else float('inf')
    t, disp = pc.kbit_times(d)
    nk = {}
    for _, rep in pc.reports(d):
        for r in rep['rows']:
            nk[(r['model'], r['shape'])] = (r['N'], r['K'])
    for kern in kernels:
        by_mk, lines = collections.defaultdict(list), []
        for (arm, k, model, shape, M, bits), v in sorted(t.items()):
            if arm != old or k != kern:
                continue
            n, kk = nk[(model, shape)]
            nv = t.get((new, k, model, shape, M, bits))
            if nv is None or not wmin <= n * kk < wmax:
                continue
            r = min(v) / min(nv)
            by_mk[(M, bits)].append(r)
            ran = (disp.get((old, k, model, shape, M, bits), '') + '->' + disp.get((new, k, model, shape, M, bits), ''))
            lines.append(f'  {model:18s} {shape:30s} M={M:<5d} k={bits} {min(v):8.2f} -> {min(nv):8.2f}  {r:.3f}'
                         f'  {ran if ran != "->" else ""}')
        rs = [x for v in by_mk.values() for x in v]
        if not rs:
            print(f'{kern}: no rows')
            continue
        print(f'{kern}: {len(rs)} rows, {old} / {new} geomean {pc.geomean(rs):.3f} ({min(rs):.3f}-{max(rs):.3f})')
        for key in sorted(by_mk):
            x = by_mk[key]
            print(f'  M={key[0]} k={key[1]}: {len(x)} rows {pc.geomean(x):.3f} ({min(x):.3f}-{max(x):.3f})')
        if verbose:
            print('\n'.join(lines))


if __name__ == '__main__':
    main(sys.argv[1:])
