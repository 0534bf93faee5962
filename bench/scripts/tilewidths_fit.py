#!/usr/bin/env python3
"""The step costs implied by bench/results/2026-11-28-h100-tilewidths (arms main, w160, w224) for the 160- and
224-token tiles, against the linear price tcw_plan_cost gives them:  tilewidths_fit.py DIR
Per moved row (by tcw_tile_fit.choose with 192 alone, then with 160 or 224 too): the old arm's time over its
modelled cost sets the row's us per model unit; the new arm's time then implies the new tile's step cost c(new),
from time_new / time_old = (c_new x makespan_new + b x MB_new) / (c_old x makespan_old + b x MB_old).
Medians per (old tile, new tile, k). Then which of the 224-token rows the 8% rule would still move with c(224) at
the implied medians, with their measured old / new."""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare  # noqa: E402
import tcw_tile_fit as T  # noqa: E402

ARMS = (('w160', (160, 192)), ('w224', (192, 224)))


def implied(d, arm, mids):
    """{(old tile, new tile, k class): [implied c(new) per moved row]}."""
    out = collections.defaultdict(list)
    for _, _, _, M, b, N, K, x, y, to, tn in T.ab_rows(d, 'main', arm, (192,), mids):
        if x == y:
            continue
        kc = 2 if b <= 3 else 4
        c, bb = T.C[kc]
        po, pn = T.plan(M, N, K, b, x), T.plan(M, N, K, b, y)
        scale = to / (c[x] * po['mk'] + bb * po['pb'] / 1e6)  # measured us per model unit, from the old arm
        out[(x, y, kc)].append((tn / scale - bb * pn['pb'] / 1e6) / pn['mk'])
    return out


def main():
    d = sys.argv[1]
    fits = {arm: implied(d, arm, mids) for arm, mids in ARMS}
    for arm, r in fits.items():
        for (x, y, kc), v in sorted(r.items(), key=str):
            line = {t: round(T.C[kc][0][t], 3) for t in (160, 192, 224)}
            label = ('w224', x, y, kc) if arm == 'w224' else (x, y, kc)
            print(label, len(v), 'median implied c(new) %.3f  (linear price: %s)' % (statistics.median(v), line))
    # the model with c(224) at the implied medians (per k class, over the rows moved from 256)
    c224 = {kc: statistics.median(v) for (x, y, kc), v in fits['w224'].items() if y == 224}
    consts = {kc: ({**c, 224: c224.get(kc, c[224])}, b) for kc, (c, b) in T.C.items()}
    print('--- refit 224: rows that keep 224 with c(224) implied (%s)' % ', '.join(
        f'k {"<= 3" if kc == 2 else ">= 4"} {v:.3f}' for kc, v in sorted(c224.items())))
    keep, drop = [], []
    for r, _, _, M, b, N, K, x, y, _, _ in T.ab_rows(d, 'main', 'w224', (192,), (192, 224)):
        if x != y:
            (keep if T.choose(M, N, K, b, mid=(192, 224), consts=consts) == 224 else drop).append(r)
    for name, rs in (('keep', keep), ('drop', drop)):
        g = round(pdl_compare.geomean(rs), 3) if rs else float('nan')
        print(name, len(rs), g, sorted(round(x, 3) for x in rs))


if __name__ == '__main__':
    main()
