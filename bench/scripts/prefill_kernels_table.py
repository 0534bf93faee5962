#!/usr/bin/env python3
"""Dense prefill-size table of a kbit-bench run with tcw_pdl and dequant_cublas beside automatic_pdl (e.g.
bench/scripts/h200_audit_s40.sh): one line per (model, shape, M, k) with cuBLAS fp16, the three medians (us), what
automatic_pdl dispatched, its ratio to cuBLAS, and MISS where automatic_pdl is more than 5% slower than the faster of
tcw_pdl and dequant_cublas (the last column: automatic_pdl / that). Rows lacking one of the three are left out (an
interrupted run). Usage: prefill_kernels_table.py bench.json[.gz] [--all] (default: the MISS rows only)"""
import collections, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import load  # noqa: E402

KS = ['tcw_pdl', 'dequant_cublas', 'automatic_pdl']


def main():
    d = load(sys.argv[1])
    t, cub, disp, dims = collections.defaultdict(dict), {}, {}, {}
    for r in d['rows']:
        if r['moe'] or 'median' not in r.get('us', {}):
            continue
        c = (r['model'], r['shape'], r['M'])
        if r['kind'] == 'baseline':
            if r['kernel'] == 'cublas_f16':
                cub[c] = r['us']['median']
            continue
        assert r['verify'] == 'PASS', (c, r['bits'], r['kernel'], r['verify'])
        t[c + (r['bits'],)][r['kernel']] = r['us']['median']
        dims[c[:2]] = (r['N'], r['K'])
        if r['kernel'] == 'automatic_pdl':
            disp[c + (r['bits'],)] = r.get('dispatch', '')
    misses = n = 0
    for k in sorted(t, key=lambda k: (k[0], k[1], k[3], k[2])):
        v = t[k]
        if not all(x in v for x in KS):
            continue
        n += 1
        best, ap, cb = min(v['tcw_pdl'], v['dequant_cublas']), v['automatic_pdl'], cub.get(k[:3], float('nan'))
        miss = ap > best * 1.05
        misses += miss
        if miss or '--all' in sys.argv:
            N, K = dims[k[:2]]
            print('%-16s %-28s %6dx%-6d M=%5d k=%d cuBLAS %8.2f tcw %8.2f deq %8.2f auto %8.2f %-15s %5.2fx%s %5.2f' % (
                k[0][:16], k[1], N, K, k[2], k[3], cb, v['tcw_pdl'], v['dequant_cublas'], ap, disp[k], cb / ap,
                '  MISS' if miss else '      ', ap / best))
    print('MISS rows: %d of %d' % (misses, n))


if __name__ == '__main__':
    main()
