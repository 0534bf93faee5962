#!/usr/bin/env python3
"""Same-call A/B of two kbit-bench binaries (bench/scripts/h100_ab_check.sh: new / main / new / main).

  python3 bench/scripts/ab_compare.py RUN_DIR [--kernel tcw] [--dtype f16]

Reads RUN_DIR/bench-{1,3}-kbit-bench.csv[.gz] (new) and bench-{2,4}-kbit-bench-main.csv[.gz]
(main); per row the faster repeat of each binary, cuBLAS fp16 the fastest of the four runs.
Prints a markdown table (main us, new us, speedup, x cuBLAS before -> after, verify of the new
rows) and the geometric mean, minimum and maximum speedup.
"""
import argparse
import csv
import gzip
import math
import os


def load(path):
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return [r for r in csv.DictReader(f) if r["row_type"] == "row"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--kernel", default="tcw")
    ap.add_argument("--dtype", default="f16")
    a = ap.parse_args()
    new = [load(os.path.join(a.run_dir, f"bench-{i}-kbit-bench.csv")) for i in (1, 3)]
    old = [load(os.path.join(a.run_dir, f"bench-{i}-kbit-bench-main.csv")) for i in (2, 4)]
    key = lambda r: (r["model"], r["shape"], int(r["M"]), r["bits"], r["dtype"], r["kernel"])
    best, verify = {}, {}
    for side, runs in (("new", new), ("old", old)):
        for rows in runs:
            for r in rows:
                k = (side,) + key(r)
                best[k] = min(best.get(k, 1e30), float(r["us_median"]))
                if side == "new":
                    verify.setdefault(key(r), set()).add(r["verify"])
    cub = {}
    for rows in new + old:
        for r in rows:
            if r["kernel"] == "cublas_f16":
                k = key(r)[:3]  # baseline rows carry bits = 0; cuBLAS fp16 is the reference for every dtype
                cub[k] = min(cub.get(k, 1e30), float(r["us_median"]))
    print("| model | shape | M | k | main us | new us | speedup | x cuBLAS fp16 main -> new | verify |")
    print("|---|---|---|---|---|---|---|---|---|")
    sp = []
    for k in sorted(k[1:] for k in best if k[0] == "new"):
        if k[5] != a.kernel or k[4] != a.dtype or ("old",) + k not in best:
            continue
        n, o = best[("new",) + k], best[("old",) + k]
        c = cub.get(k[:3])
        sp.append(o / n)
        ratio = f"{c / o:.2f} -> {c / n:.2f}" if c else "-"
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {o:.1f} | {n:.1f} | {o / n:.3f} | {ratio} | {'/'.join(sorted(verify[k]))} |")
    if sp:
        g = math.exp(sum(map(math.log, sp)) / len(sp))
        print(f"\n{len(sp)} rows: speedup geometric mean {g:.3f}, min {min(sp):.3f}, max {max(sp):.3f}")


if __name__ == "__main__":
    main()
