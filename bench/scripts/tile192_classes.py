#!/usr/bin/env python3
"""tcw_pdl rows of a same-call A/B of the 192-token tile (bench/scripts/h100_tile192.sh: arms main and t192):
  tile192_classes.py DIR [--rows]
classes by the Python copy of tcw's tile choice (tcw_tile_fit.choose without and with the 192-token candidate):
the rows whose tile moved (old -> 192) and the rest (the control), with the geomean, least and most of main / t192
per class and per (M, k) over the moved rows; --rows lists each moved row."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare  # noqa: E402
import tcw_tile_fit  # noqa: E402


def main():
    classes, per = collections.defaultdict(list), collections.defaultdict(list)
    for r, model, shape, M, bits, _, _, a, b, o, n in tcw_tile_fit.ab_rows(sys.argv[1], 'main', 't192', False, True):
        cls = f'moved {a} -> {b}' if a != b else 'same tile (control)'
        classes[cls].append((r, model, shape, M, bits, o, n))
        if a != b:
            per[(M, bits)].append(r)
    for cls, rows in sorted(classes.items()):
        rs = [x[0] for x in rows]
        print(f'{cls}: {len(rs)} rows, geomean {pdl_compare.geomean(rs):.3f}, min {min(rs):.3f}, max {max(rs):.3f}')
    print('moved rows per (M, k):')
    for key, rs in sorted(per.items()):
        print(f'  M = {key[0]}, k = {key[1]}: {len(rs)} rows, geomean {pdl_compare.geomean(rs):.3f}, min {min(rs):.3f}, max {max(rs):.3f}')
    if '--rows' in sys.argv[2:]:
        for cls, rows in sorted(classes.items()):
            if cls.startswith('moved'):
                print(cls)
                for r, model, shape, M, bits, o, n in sorted(rows):
                    print(f'  {r:.3f} {model} {shape} M={M} k={bits}: {o:.2f} -> {n:.2f} us')


if __name__ == '__main__':
    main()
