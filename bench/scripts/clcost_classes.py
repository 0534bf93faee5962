#!/usr/bin/env python3
"""tcw_pdl and automatic_pdl rows of the cluster-cost A/B (bench/scripts/h100_clcost.sh: arms main and clcost,
KBIT_TCW_CLUSTER_COST on branch exp/tcw-clcost):
  clcost_classes.py DIR
classes by the Python copy of tcw's tile choice (tcw_tile_fit.choose, before the 192-token tile) without and with
the cluster plans (2 slices, >= 4 MB of fp32 partials) priced without partials: per kernel, the rows whose tile
moved (old -> new) and the rest, with the geomean, least and most of main / clcost, then each moved row."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare  # noqa: E402
import tcw_tile_fit as T  # noqa: E402


def choose_free(M, N, K, bits):
    """tcw_tile_fit.choose (mid = False) with the cluster plans' partials at 0."""
    top = T.default_tile(M)
    if top < 128:
        return top
    c, b = T.C[2 if bits <= 3 else 4]

    def cost(mn):
        p = T.plan(M, N, K, bits, mn)
        cm = T.C64_TWO if bits >= 4 and mn == 64 and p['cps'] == 2 else c[mn]
        pb = 0 if p['kind'] == 'pt' and p['splits'] == 2 and p['pb'] >= 4e6 else p['pb']
        return cm * p['mk'] + b * pb / 1e6
    best, c0 = top, cost(top)
    cb = c0
    for mn in (m for m in (top // 2, top // 4) if m >= 64):
        if cost(mn) <= 0.92 * c0 and cost(mn) < cb:
            best, cb = mn, cost(mn)
    return best


def main():
    d = sys.argv[1]
    times, disp = pdl_compare.kbit_times(d)
    nk = pdl_compare.catalogue_dims(d)
    for kernel in ('tcw_pdl', 'automatic_pdl'):
        classes = collections.defaultdict(list)
        for (arm, k, model, shape, M, bits), v in times.items():
            new = times.get(('clcost', k, model, shape, M, bits))
            if arm != 'main' or k != kernel or not new:
                continue
            N, K = nk[(model, shape)]
            a, b = T.choose(M, N, K, bits, mid=False), choose_free(M, N, K, bits)
            cls = f'moved {a} -> {b}' if a != b else 'same tile'
            do, dn = disp.get((arm, k, model, shape, M, bits), ''), disp.get(('clcost', k, model, shape, M, bits), '')
            if do != dn:
                cls += f', dispatch {do} -> {dn}'
            classes[cls].append((min(v) / min(new), model, shape, M, bits, min(v), min(new)))
        print(kernel)
        for cls, rows in sorted(classes.items()):
            rs = [x[0] for x in rows]
            print(f'  {cls}: {len(rs)} rows, geomean {pdl_compare.geomean(rs):.3f}, min {min(rs):.3f}, max {max(rs):.3f}')
        for cls, rows in sorted(classes.items()):
            if cls != 'same tile':
                print(f'  {cls}')
                for r, model, shape, M, bits, o, n in sorted(rows):
                    print(f'    {r:.3f} {model} {shape} M={M} k={bits}: {o:.2f} -> {n:.2f} us')


if __name__ == '__main__':
    main()
