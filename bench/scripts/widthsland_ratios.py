#!/usr/bin/env python3
"""dequant_cublas / tcw_pdl per row (>1: tcw faster) of a kbit-bench JSON that ran both kernels in one run
(bench/scripts/h100_widths_land.sh):  widthsland_ratios.py BENCH.json[.gz]
one table per k: the shapes by weights, the sweep's M across; medians of each row's samples."""
import gzip
import json
import sys


def main():
    f = sys.argv[1]
    d = json.load((gzip.open if f.endswith('.gz') else open)(f))
    t = {}
    for r in d['rows']:
        if r['kind'] != 'baseline':
            t[(r['model'], r['shape'], r['N'], r['K'], r['M'], r['bits'], r['kernel'])] = r['us']['median']
    ms = sorted({k[4] for k in t})
    shapes = sorted({k[:4] for k in t}, key=lambda x: x[2] * x[3])
    for b in sorted({k[5] for k in t}):
        print(f'k = {b}: dequant_cublas / tcw_pdl (>1: tcw faster)')
        print(' ' * 50 + ''.join(f'{m:>6}' for m in ms))
        for mo, sh, n, k in shapes:
            cells = []
            for m in ms:
                a, q = t.get((mo, sh, n, k, m, b, 'tcw_pdl')), t.get((mo, sh, n, k, m, b, 'dequant_cublas'))
                cells.append(f'{q / a:6.2f}' if a and q else '     -')
            print(f'{mo[:10]:10} {sh[:24]:24} {n * k / 1e6:5.1f}M K{k:<5}' + ''.join(cells))
        print()


if __name__ == '__main__':
    main()
