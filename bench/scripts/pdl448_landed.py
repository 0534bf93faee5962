#!/usr/bin/env python3
"""bench/results/2026-11-27-h100-pdl448/landed-estimate.txt: automatic_pdl old / landed per (M, k), where "landed"
is the new arm's time on the rows the landed rule (choose_kernel, k <= 4: N >= 8192 of 16-24 M weights to M = 384, from
24 M to 320; K >= 8192 from 8 M at 321..448) gives tcw and the old arm's elsewhere. Usage: pdl448_landed.py DIR"""
import collections, json, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import kbit_times  # noqa: E402


def landed_tcw(N, K, M, bits):
    w = N * K
    if bits > 4:
        return False
    return (M <= (384 if w < 24e6 else 320) and N >= 8192 and w >= 16e6) or (320 < M <= 448 and K >= 8192 and w >= 8e6)


def main():
    d = sys.argv[1]
    shp = {(m['name'], g['name']): (g['N'], g['K']) for m in json.load(open(d + '/rules.json'))['models']
           for g in m['gemms']}
    t, _ = kbit_times(d)
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    by_mk, rows = collections.defaultdict(list), []
    for k in sorted({k[2:] for k in t}):
        o, n = min(t[('old', 'automatic_pdl') + k]), min(t[('new', 'automatic_pdl') + k])
        moved = landed_tcw(*shp[k[:2]], k[2], k[3])
        by_mk[(k[2], k[3])].append(o / (n if moved else o))
        if moved:
            rows.append((o / n, k, o, n))
    print('landed estimate, geomean old / landed per (M, k) over the 7 shapes (rows moved to tcw: new time, else old)')
    for M in sorted({m for m, _ in by_mk}):
        print('  M=%d ' % M + ' '.join('k=%d %.3f' % (b, gm(by_mk[(M, b)])) for b in (2, 3, 4, 5)))
    print('moved rows: %d, old/new min %.3f max %.3f geomean %.3f' % (len(rows), min(r[0] for r in rows),
                                                                    max(r[0] for r in rows), gm([r[0] for r in rows])))
    for r in sorted(rows)[:5]:
        print('  lowest: %.3f %s %.2f -> %.2f us' % (r[0], '/'.join(map(str, r[1])), r[2], r[3]))
    for r in sorted(rows)[-4:]:
        print('  highest: %.3f %s %.2f -> %.2f us' % (r[0], '/'.join(map(str, r[1])), r[2], r[3]))


if __name__ == '__main__':
    main()
