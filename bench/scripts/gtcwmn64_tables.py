#!/usr/bin/env python3
"""Tables of bench/results/2026-11-28-h200-gtcwmn64 from its kbit-bench text reports (screen: each row's median over the
runs of an arm; land and cross: the least; every kbit row must read PASS).

  gtcwmn64_tables.py DIR screen   grouped_tcw per token tile: rule / mn64 / mn128 / mn256 (screen/)
  gtcwmn64_tables.py DIR land     automatic, old rule / new (land/)
  gtcwmn64_tables.py DIR cross    grouped_tcv against grouped_tcw at 3-10 mean rows (land/ cross run and final/)
  gtcwmn64_tables.py DIR k5       k = 5: grouped_tcw and automatic, main / the variant at two CTAs per SM (the forty-fifth
                                  session's first call, 2026-11-28-h200-s45first: arms main and k5, best of the runs)
"""
import collections
import glob
import gzip
import math
import re
import statistics
import sys

ROW = re.compile(r"(\S+)\s+(\d+)\s+(\d)\s+f16\s+(\S+)\s+(PASS|FAIL|\S+)\s+([\d.]+)")
REF = re.compile(r"(\S+)\s+(\d+)\s+-\s+f16\s+cublas_\w+\s+ref\s+([\d.]+)")
EXPERTS = {"qwen3-coder-next": (512, 10), "glm-4.7-flash": (64, 4)}


def rows(*patterns):
    """{(shape, M, k): {(arm, kernel): [us, ...]}} and {(shape, M): [cuBLAS us, ...]} over the files matching the
    patterns (kbit-bench text reports, gzipped or not); the arm is the file's (bench-<i>-<arm>.txt[.gz]). Also used by
    s45_tables.py."""
    out, ref = collections.defaultdict(lambda: collections.defaultdict(list)), collections.defaultdict(list)
    for path in sorted(p for pattern in patterns for p in glob.glob(pattern)):
        arm = re.search(r"bench-\d+-(\w[\w-]*)\.txt", path).group(1)
        for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
            m = ROW.match(line)
            if m and not m.group(4).startswith("cublas"):
                if m.group(5) != "PASS":
                    sys.exit(f"{path}: not PASS: {line.strip()}")
                out[(m.group(1), int(m.group(2)), int(m.group(3)))][(arm, m.group(4))].append(float(m.group(6)))
            m = REF.match(line)
            if m:
                ref[(m.group(1), int(m.group(2)))].append(float(m.group(3)))
    return out, ref


def mean_rows(shape, M):
    e, top = EXPERTS[shape.split(".mlp")[0]]
    return -(-M * top // min(e, M * top))


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    d, what = sys.argv[1], sys.argv[2]
    if what == "screen":
        r, _ = rows(f"{d}/screen/bench-*.txt.gz")
        arms = ["rule", "mn64", "mn128", "mn256"]
        print(f"{'row':40} {'M':>5} k mean {'rule':>8} {'mn64':>8} {'mn128':>8} {'mn256':>8}  best  rule/best  runs")
        for key in sorted(r):
            med = {a: statistics.median(v) for (a, _), v in r[key].items()}
            best = min(med, key=med.get)
            runs = [len(r[key].get((a, "grouped_tcw"), [])) for a in arms]
            cells = " ".join(f"{med[a]:8.2f}" if a in med else f"{'-':>8}" for a in arms)
            print(f"{key[0]:40} {key[1]:5d} {key[2]} {mean_rows(key[0], key[1]):4d} {cells}  {best:5} "
                  f"{med['rule'] / med[best]:.3f}x  {runs}")
    elif what == "land":
        r, ref = rows(f"{d}/land/bench-[0-9]-[on]*.txt.gz")
        ratios = []
        print(f"{'row':40} {'M':>5} k mean {'old':>8} {'kernel':14} {'new':>8} {'kernel':14} new/old  x fp16: old  new")
        for key in sorted(r):
            old = min((min(v), k) for (a, k), v in r[key].items() if a == "old")
            new = min((min(v), k) for (a, k), v in r[key].items() if a == "new")
            best = min(ref[key[:2]])
            ratios.append(old[0] / new[0])
            print(f"{key[0]:40} {key[1]:5d} {key[2]} {mean_rows(key[0], key[1]):4d} {old[0]:8.2f} {old[1][11:]:14} "
                  f"{new[0]:8.2f} {new[1][11:]:14} {old[0] / new[0]:.3f}x  {best / old[0]:.2f}x {best / new[0]:.2f}x")
        print(f"best of 2 per arm; old/new geomean {geomean(ratios):.3f}x, {min(ratios):.3f}-{max(ratios):.3f}x, "
              f"{len(ratios)} rows")
    elif what == "k5":
        r, ref = rows(f"{d}/bench-[0-9]-*.txt.gz")
        tcw, auto = [], []
        print(f"{'row':40} {'M':>5} mean {'gtcw main':>9} {'k5':>8} {'ratio':>6}  {'automatic main':>24} "
              f"{'k5':>24} {'ratio':>6}  x fp16: main  k5")
        for key in sorted(r):
            by = {a: {k: min(v) for (b, k), v in r[key].items() if b == a} for a in ("main", "k5")}
            am = min((t, k) for k, t in by["main"].items() if k.startswith("automatic"))
            ak = min((t, k) for k, t in by["k5"].items() if k.startswith("automatic"))
            g = by["main"]["grouped_tcw"] / by["k5"]["grouped_tcw"]
            tcw.append(g)
            auto.append(am[0] / ak[0])
            best = min(ref[key[:2]])
            print(f"{key[0]:40} {key[1]:5d} {mean_rows(key[0], key[1]):4d} {by['main']['grouped_tcw']:9.2f} "
                  f"{by['k5']['grouped_tcw']:8.2f} {g:.3f}x  {am[1][11:]:14} {am[0]:9.2f} {ak[1][11:]:14} {ak[0]:9.2f} "
                  f"{am[0] / ak[0]:.3f}x  {best / am[0]:.2f}x {best / ak[0]:.2f}x")
        print(f"best of the runs per arm; main/k5 geomean grouped_tcw {geomean(tcw):.3f}x ({min(tcw):.3f}-{max(tcw):.3f}x), "
              f"automatic {geomean(auto):.3f}x ({min(auto):.3f}-{max(auto):.3f}x), {len(tcw)} rows")
    elif what == "cross":
        r1, _ = rows(f"{d}/land/bench-1-cross.txt.gz")
        r2, _ = rows(f"{d}/final/bench-[0-9]-[qg].txt.gz")
        print(f"{'row':40} {'M':>5} k mean {'grouped_tcv':>11} {'grouped_tcw':>11} tcv/tcw  (best of the runs)")
        for r in (r1, r2):
            for key in sorted(r, key=lambda k: (k[0], k[2], k[1])):
                by = {k: min(v) for (_, k), v in r[key].items()}
                if "grouped_tcv" in by and "grouped_tcw" in by:
                    print(f"{key[0]:40} {key[1]:5d} {key[2]} {mean_rows(key[0], key[1]):4d} {by['grouped_tcv']:11.2f} "
                          f"{by['grouped_tcw']:11.2f} {by['grouped_tcv'] / by['grouped_tcw']:.3f}")
            print()


if __name__ == "__main__":
    main()
