#!/usr/bin/env python3
"""Three-arm A/B of bench/scripts/h100_ab_check.sh with EXP_ENV (new / exp / main, twice).

  python3 bench/scripts/ab3_compare.py RUN_DIR KERNEL[,KERNEL...]

Reads RUN_DIR/bench-{1,4}-kbit-bench, bench-{2,5}-exp and bench-{3,6}-kbit-bench-main .csv[.gz];
per row the faster repeat of each arm, cuBLAS fp16 the fastest of all runs. Prints one line per
row (main / new / exp us, new/main and exp/main speedups, x cuBLAS fp16 of each arm, verify of the
new arm) and the geometric mean, minimum and maximum speedup per kernel, bits and arm.
"""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import load  # noqa: E402

ARMS = {"new": [(1, "kbit-bench"), (4, "kbit-bench")], "exp": [(2, "exp"), (5, "exp")],
        "main": [(3, "kbit-bench-main"), (6, "kbit-bench-main")]}


def main():
    run_dir, kernels = sys.argv[1], sys.argv[2].split(",")
    best, cub, verify = collections.defaultdict(lambda: math.inf), {}, collections.defaultdict(set)
    for arm, files in ARMS.items():
        for i, name in files:
            path = os.path.join(run_dir, f"bench-{i}-{name}.csv")
            if not (os.path.exists(path) or os.path.exists(path + ".gz")):
                continue
            for r in load(path):
                key = (r["model"], r["shape"], int(r["M"]), r["bits"], r["kernel"])
                if r["kernel"] == "cublas_f16":
                    cub[key[:3]] = min(cub.get(key[:3], math.inf), float(r["us_median"]))
                    continue
                best[(arm,) + key] = min(best[(arm,) + key], float(r["us_median"]))
                if arm == "new":
                    verify[key].add(r["verify"])
    print("model shape M k kernel | main new exp us | new/main exp/main | x cuBLAS fp16 main new exp | verify")
    ratios = collections.defaultdict(list)
    for key in sorted({k[1:] for k in best}):
        if key[4] not in kernels:
            continue
        m, n, e = (best.get((a,) + key, math.inf) for a in ("main", "new", "exp"))
        if math.inf in (m, n, e):
            continue
        c = cub.get(key[:3])
        ratios[(key[4], key[3], "new")].append(m / n)
        ratios[(key[4], key[3], "exp")].append(m / e)
        xc = f"{c / m:.2f} {c / n:.2f} {c / e:.2f}" if c else "- - -"
        print(f"{key[0]} {key[1]} {key[2]} {key[3]} {key[4]} | {m:.2f} {n:.2f} {e:.2f} | {m / n:.3f} {m / e:.3f} | "
              f"{xc} | {'/'.join(sorted(verify[key]))}")
    for (kernel, bits, arm), v in sorted(ratios.items()):
        g = math.exp(sum(map(math.log, v)) / len(v))
        print(f"{kernel} k={bits} {arm}/main: {len(v)} rows, geomean {g:.3f}, min {min(v):.3f}, max {max(v):.3f}")


if __name__ == "__main__":
    main()
