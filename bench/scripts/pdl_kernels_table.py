#!/usr/bin/env python3
"""Per-kernel table of a kbit-bench run with plain and _pdl rows (bench/scripts/h100_pdl_kernels.sh):
best median of the repeats per (model, shape, M, k) and kernel, cuBLAS fp16, what automatic_pdl
dispatched, the fastest of gemv_pdl / tcv_pdl / tcw_pdl, and MISS where automatic_pdl is more than
5% slower than it. Usage: pdl_kernels_table.py bench-1.json[.gz] [bench-2.json ...]"""
import collections, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import load  # noqa: E402  (the same JSON reading, .gz included)

KS = ['gemv', 'tcv', 'tcw', 'automatic', 'gemv_pdl', 'tcv_pdl', 'tcw_pdl', 'automatic_pdl']


def main():
    t, cub, disp = collections.defaultdict(dict), {}, {}
    for p in sys.argv[1:]:
        for r in load(p)['rows']:
            if r['moe'] or 'median' not in r.get('us', {}):
                continue
            c = (r['model'], r['shape'], r['M'])
            k = c + (r['bits'],)  # (the baselines have bits 0: one cuBLAS row serves every k)
            if r['kind'] == 'baseline':
                if r['kernel'] == 'cublas_f16':
                    cub[c] = min(cub.get(c, 1e9), r['us']['median'])
                continue
            if r['verify'] != 'PASS':
                print('not PASS:', k, r['kernel'], r['verify'])
                continue
            t[k][r['kernel']] = min(t[k].get(r['kernel'], 1e9), r['us']['median'])
            if r['kernel'] == 'automatic_pdl':
                disp[k] = r.get('dispatch', '')
    print('%-16s %-28s %3s %2s %6s ' % ('model', 'shape', 'M', 'k', 'cuBLAS') + ' '.join('%9s' % x[:9] for x in KS) +
          '  dispatch  fastest_pdl')
    misses = 0
    for k in sorted(t):
        v = t[k]
        cand = [(v[x], x) for x in ('gemv_pdl', 'tcv_pdl', 'tcw_pdl') if x in v]
        best = min(cand) if cand else (float('nan'), '-')
        ap = v.get('automatic_pdl')
        miss = ap is not None and cand and ap > best[0] * 1.05
        misses += bool(miss)
        print('%-16s %-28s %3d %2d %6.2f ' % (k[0][:16], k[1][:28], k[2], k[3], cub.get(k[:3], float('nan'))) +
              ' '.join('%9.2f' % v[x] if x in v else '%9s' % '-' for x in KS) +
              '  %-8s  %-8s %s' % (disp.get(k, '')[:8], best[1], 'MISS +%.0f%%' % (100 * (ap / best[0] - 1)) if miss else ''))
    print('automatic_pdl rows more than 5% slower than the fastest per-kernel PDL row:', misses)


if __name__ == '__main__':
    main()
