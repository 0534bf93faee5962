#!/usr/bin/env python3
"""Geometric mean of main/new time ratios of one kernel per k, overall, on weights >= 32 M
elements and per M, from an A/B run directory of h100_ab_check.sh (bench-1/3 = new binary,
bench-2/4 = main's; the faster repeat of each binary per row; PASS rows only).

  python3 bench/scripts/ab_geomean.py RUN_DIR KERNEL BITS...   e.g. run3 tcw 2 4
"""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import load as load_rows  # noqa: E402  (the same CSV reading, .gz included)


def load(run, kernel, bits, files):
    best = {}
    for f in files:
        for r in load_rows(f"{run}/{f}"):
            if r["kernel"] != kernel or r["bits"] != bits or r["verify"] != "PASS":
                continue
            key = (r["model"], r["shape"], int(r["M"]), int(r["N"]) * int(r["K"]))
            best[key] = min(float(r["us_median"]), best.get(key, math.inf))
    return best


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def main():
    run, kernel = sys.argv[1], sys.argv[2]
    for b in sys.argv[3:]:
        new = load(run, kernel, b, ["bench-1-kbit-bench.csv", "bench-3-kbit-bench.csv"])
        old = load(run, kernel, b, ["bench-2-kbit-bench-main.csv", "bench-4-kbit-bench-main.csv"])
        by_m, big = collections.defaultdict(list), []
        for key, t in new.items():
            if key in old:
                by_m[key[2]].append(old[key] / t)
                if key[3] >= 32e6:
                    big.append(old[key] / t)
        rows = [x for v in by_m.values() for x in v]
        if not rows:
            print(f"{kernel} k={b}: no rows in both binaries")
            continue
        per_m = " ".join(f"{m}:{gm(v):.3f}" for m, v in sorted(by_m.items()))
        big_s = f"{gm(big):.3f}" if big else "-"
        print(f"{kernel} k={b} rows {len(rows)} geomean {gm(rows):.3f} min {min(rows):.3f} max {max(rows):.3f} "
              f"big(>=32M) {big_s}  per M: {per_m}")


if __name__ == "__main__":
    main()
