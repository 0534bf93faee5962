#!/usr/bin/env python3
"""tcv_pdl's A/B ratios per dense tcv kernel: rows grouped by the kernel instantiation they ran.

A dense tcv row runs tcv_kernel<ACT, KB, NT, PR, MODE>; an A/B of a change made in some of those
kernels reads best per kernel. The kernel of each row, from its shape and M:
  NT = 2 above M = 8; PR (the pair tables) and MODE from bench/scripts/tcv_plan_modes.cpp (built here
  with g++): tcv_uses_pairs's rule on kernels/launch.h's thresholds, and tcv_plan_for and
  tcv_early_launch (lib/kbit/tcv_sched.h) with the H100's slots.
Per group: rows, geomean of old/new medians (>1: the arm is faster), min and max. Usage:
  python3 bench/scripts/tcv_fetch_groups.py RESULTS_DIR BASE_ARM ARM [ARM...]
(RESULTS_DIR holds bench-<i>-<arm>.json[.gz] of bench_rotation; each row's fastest median over reps)."""
import collections
import glob
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(d, arm, kernel="tcv_pdl"):
    out = collections.defaultdict(list)
    for fn in sorted(glob.glob(f"{d}/bench-*-{arm}.json*")):
        with (gzip.open(fn, "rt") if fn.endswith(".gz") else open(fn)) as f:
            for r in json.load(f)["rows"]:
                if r["kernel"] == kernel and r["kind"] == "kbit":
                    out[(r["model"], r["shape"], r["M"], r["bits"], r["N"], r["K"])].append(r["us"]["median"])
    return {k: min(v) for k, v in out.items()}


def plans(keys):
    """[(mode, pair table)] of the dense kernel each row (model, shape, M, bits, N, K) ran."""
    exe = os.path.join(tempfile.mkdtemp(), "tcv_plan_modes")
    subprocess.run(["g++", "-std=c++20", "-O1", "-I", os.path.join(ROOT, "lib"), "-I", os.path.join(ROOT, "kernels"),
                    "-o", exe, os.path.join(HERE, "tcv_plan_modes.cpp")], check=True)
    inp = "".join(f"{k[2]} {k[4]} {k[5]} {k[3]}\n" for k in keys)
    out = subprocess.run([exe], input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    return [(l.split()[0], l.split()[4] == "1") for l in out]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    d, base_arm, arms = sys.argv[1], sys.argv[2], sys.argv[3:]
    base = load(d, base_arm)
    if not base:
        sys.exit(f"no tcv_pdl rows for arm {base_arm} in {d}")
    keys = sorted(base)
    modes = plans(keys)
    for arm in arms:
        a = load(d, arm)
        groups = collections.defaultdict(list)
        for k, (mode, pr) in zip(keys, modes):
            if k not in a:
                continue
            M, bits = k[2], k[3]
            groups[(bits, 2 if M > 8 else 1, pr, mode)].append(base[k] / a[k])
        print(f"== {arm} against {base_arm} (tcv_pdl)")
        for g in sorted(groups):
            v = groups[g]
            gm = math.exp(sum(math.log(x) for x in v) / len(v))
            print(f"k={g[0]} NT={g[1]} PR={int(g[2])} {g[3]:9s} rows {len(v):2d}  geomean {gm:.3f}  min {min(v):.3f}  max {max(v):.3f}")


if __name__ == "__main__":
    main()
