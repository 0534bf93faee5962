#!/usr/bin/env python3
"""bench/results/2026-11-27-h100-cldisp/landed-estimate.txt: automatic and automatic_pdl old / landed per (M, k),
where "landed" is the new arm's time on the rows the landed cluster rule moves (choose_kernel: tcw where its plan
runs cluster slices, from 8 M weights at M = 129..256, from 16 M at 257..512, k = 5 there only above M = 320) and the
old arm's elsewhere. The record's new arm ran the first form (8 M at 129..512), which moved a superset of these
rows. Usage: cldisp_landed.py DIR"""
import collections, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import kbit_times  # noqa: E402

SHAPES = {('qwen3-coder-next', 'attn.q_proj'): (4096, 2048), ('qwen3-coder-next', 'attn.o_proj'): (2048, 4096),
          ('llama-3-8b', 'attn.q_proj'): (4096, 4096), ('llama-3-8b', 'attn.o_proj'): (4096, 4096)}


def landed_bounds(N, K, M, bits):
    w = N * K
    return 128 < M <= 512 and w >= (8e6 if M <= 256 else 16e6) and (M <= 256 or M > 320 or bits <= 4)


def main():
    t, disp = kbit_times(sys.argv[1])
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    for kern in ('automatic', 'automatic_pdl'):
        keys = sorted({k[2:] for k in t if k[1] == kern})
        per, moved = collections.defaultdict(list), []
        for k in keys:
            old, new = min(t[('old', kern) + k]), min(t[('new', kern) + k])
            mv = disp[('old', kern) + k] != disp[('new', kern) + k] and landed_bounds(*SHAPES[k[:2]], k[2], k[3])
            per[(k[2], k[3])].append(old / (new if mv else old))
            if mv:
                moved.append(old / new)
        print('%s: %d rows moved, old / new %.3f-%.3f (geomean %.3f)' % (kern, len(moved), min(moved), max(moved),
                                                                        gm(moved)))
        for M in sorted({m for m, _ in per}):
            print('  M=%d ' % M + ' '.join('k=%d %.3f' % (b, gm(per[(M, b)])) for b in (2, 3, 4, 5)))


if __name__ == '__main__':
    main()
