#!/usr/bin/env python3
"""tcw_pdl rows of the same-call A/B of tcw's 160- and 224-token tiles (bench/scripts/h100_tile_widths.sh: arms
main, w160, w224):  tilewidths_classes.py DIR
classes by the Python copy of tcw's tile choice (tcw_tile_fit.choose with main's 192 alone, then with 160 or 224 too):
the rows whose tile moved and the rest (the control), with the geomean, least and most of main / arm, and per (M, k)
over the moved rows."""
import sys, os, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare, tcw_tile_fit
d = sys.argv[1]  # bench/results/2026-11-28-h100-tilewidths (arms main, w160, w224)
times, _ = pdl_compare.kbit_times(d)
nk = pdl_compare.catalogue_dims(d)
for arm, mids in (('w160', (160, 192)), ('w224', (192, 224))):
    classes = collections.defaultdict(list); per = collections.defaultdict(list)
    for (a, kernel, model, shape, M, bits), v in times.items():
        new = times.get((arm, kernel, model, shape, M, bits))
        if a != 'main' or kernel != 'tcw_pdl' or not new: continue
        r = min(v) / min(new)
        N, K = nk[(model, shape)]
        x, y = (tcw_tile_fit.choose(M, N, K, bits, mid=m) for m in ((192,), mids))
        cls = f'moved {x} -> {y}' if x != y else 'same'
        classes[cls].append(r)
        if x != y: per[(M, bits)].append(r)
    print(arm)
    for c, rs in sorted(classes.items()):
        print(f'  {c}: {len(rs)} geomean {pdl_compare.geomean(rs):.3f} min {min(rs):.3f} max {max(rs):.3f}')
    for k, rs in sorted(per.items()):
        print(f'    M={k[0]} k={k[1]}: {len(rs)} geomean {pdl_compare.geomean(rs):.3f} min {min(rs):.3f} max {max(rs):.3f}')
