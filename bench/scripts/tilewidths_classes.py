#!/usr/bin/env python3
"""tcw_pdl rows of the same-call A/B of tcw's 160- and 224-token tiles (bench/scripts/h100_tile_widths.sh: arms
main, w160, w224):  tilewidths_classes.py DIR
or, with OLD NEW (bench/scripts/h100_tilewidths_k35.sh: arms mid0 and main), OLD built with 192 alone against NEW with
main's tiles (MID_MAIN): tilewidths_classes.py DIR OLD NEW
classes by the Python copy of tcw's tile choice (tcw_tile_fit.choose with main's 192 alone, then with 160 or 224 too):
the rows whose tile moved and the rest (the control), with the geomean, least and most of main / arm, and per (M, k)
over the moved rows."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare  # noqa: E402
import tcw_tile_fit  # noqa: E402

ARMS = (('w160', (160, 192)), ('w224', (192, 224)))  # each arm and the tiles between 128 and 256 it has


def summary(rs):
    return f'{len(rs)} geomean {pdl_compare.geomean(rs):.3f} min {min(rs):.3f} max {max(rs):.3f}'


def main():
    arms = [('main', arm, mids) for arm, mids in ARMS]
    if len(sys.argv) == 4:
        arms = [(sys.argv[2], sys.argv[3], tcw_tile_fit.MID_MAIN)]
    for old, arm, mids in arms:
        classes, per = collections.defaultdict(list), collections.defaultdict(list)
        for r, _, _, M, bits, _, _, x, y, _, _ in tcw_tile_fit.ab_rows(sys.argv[1], old, arm, (192,), mids):
            classes[f'moved {x} -> {y}' if x != y else 'same'].append(r)
            if x != y:
                per[(M, bits)].append(r)
        print(arm if len(sys.argv) != 4 else f'{old} / {arm}')
        for c, rs in sorted(classes.items()):
            print(f'  {c}: {summary(rs)}')
        for k, rs in sorted(per.items()):
            print(f'    M={k[0]} k={k[1]}: {summary(rs)}')


if __name__ == '__main__':
    main()
