#!/usr/bin/env python3
"""Per-kernel table of a MoE kbit-bench run (grouped_gemv_pdl, grouped_tcv_pdl, grouped_tcw_pdl beside automatic_pdl,
e.g. bench/scripts/h200_audit_s40.sh): one line per (model, projection, M, k) with the best fp16 MoE alternative
(cuBLAS loop or grouped, the fastest baseline row), each kernel's median us, what automatic_pdl dispatched, the fastest
grouped kernel, automatic_pdl's ratio to the alternative, and MISS where automatic_pdl is more than 5% slower than the
fastest kernel. Rows not PASS stop it (AssertionError). Usage: moe_kernels_table.py bench.json[.gz]"""
import collections, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import load  # noqa: E402

KS = ['grouped_gemv_pdl', 'grouped_tcv_pdl', 'grouped_tcw_pdl', 'automatic_pdl']


def main():
    d = load(sys.argv[1])
    t, alt, disp = collections.defaultdict(dict), {}, {}
    for r in d['rows']:
        if not r['moe'] or 'median' not in r.get('us', {}):
            continue
        c = (r['model'], r['shape'].replace('mlp.experts.', ''), r['M'])
        if r['kind'] == 'baseline':
            alt[c] = min(alt.get(c, 1e9), r['us']['median'])
            continue
        assert r['verify'] == 'PASS', (c, r['bits'], r['kernel'], r['verify'])
        t[c + (r['bits'],)][r['kernel']] = r['us']['median']
        if r['kernel'] == 'automatic_pdl':
            disp[c + (r['bits'],)] = r.get('dispatch', '')
    print('%-16s %-8s %5s %2s %8s ' % ('model', 'proj', 'M', 'k', 'fp16 alt') + ' '.join('%9s' % x[8:17] for x in KS) +
          '  %-14s %-4s %6s' % ('dispatch', 'best', 'x alt'))
    nan, misses = float('nan'), 0
    for k in sorted(t, key=lambda k: (k[0], k[1], k[3], k[2])):
        v = t[k]
        cand = [(v[x], x) for x in KS[:3] if x in v]
        best = min(cand) if cand else (nan, '-')
        ap, a = v.get('automatic_pdl', nan), alt.get(k[:3], nan)
        miss = cand and ap > best[0] * 1.05
        misses += bool(miss)
        print('%-16s %-8s %5d %2d %8.2f ' % (k[0][:16], k[1], k[2], k[3], a) +
              ' '.join('%9.2f' % v.get(x, nan) for x in KS) +
              '  %-14s %-4s %5.2fx%s' % (disp.get(k, ''), best[1][8:11], a / ap, '  MISS' if miss else ''))
    print('MISS rows: %d of %d' % (misses, len(t)))


if __name__ == '__main__':
    main()
