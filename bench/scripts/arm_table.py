#!/usr/bin/env python3
"""Best-of-runs times per row and (kernel, arm) from a call's kbit-bench JSONs, one line per (shape, M, k, dtype):
  arm_table.py DIR [KERNEL,...]
Files DIR/bench-<i>-<arm>.json[.gz] (bench_rotation in lib/device_run.sh); rows that were not timed (a failed
verification, a cut run) are left out. Columns: cuBLAS fp16 (fastest run), then KERNEL:ARM for each kernel given
(default: all) and each arm, in the order first seen."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import reports  # noqa: E402


def main():
    d = sys.argv[1]
    want = sys.argv[2].split(',') if len(sys.argv) > 2 else None
    times, cublas, cols = collections.defaultdict(list), collections.defaultdict(list), []
    for arm, rep in reports(d):
        for r in rep['rows']:
            if r.get('us', {}).get('median', 0) <= 0:  # not timed (e.g. failed verification: median 0)
                continue
            key = (r['model'] + '.' + r['shape'], r['M'])
            if r['kind'] == 'baseline':
                if r['kernel'] == 'cublas_f16':
                    cublas[key].append(r['us']['median'])
                continue
            if want and r['kernel'] not in want:
                continue
            col = f"{r['kernel']}:{arm}"
            if col not in cols:
                cols.append(col)
            times[key + (r['bits'], r['dtype'], col)].append(r['us']['median'])
    rows = sorted({k[:4] for k in times})
    print(f"{'shape':44s} {'M':>4s} {'k':>2s} {'dtype':5s} {'cuBLAS':>8s} " + " ".join(f"{c:>22s}" for c in cols))
    for s, m, b, dt in rows:
        cb = min(cublas[(s, m)]) if cublas[(s, m)] else float('nan')
        vals = [min(times[(s, m, b, dt, c)]) if times[(s, m, b, dt, c)] else float('nan') for c in cols]
        print(f"{s:44s} {m:4d} {b:2d} {dt:5s} {cb:8.2f} " + " ".join(f"{v:22.2f}" for v in vals))


if __name__ == '__main__':
    main()
