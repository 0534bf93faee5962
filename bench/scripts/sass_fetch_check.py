#!/usr/bin/env python3
"""Checks that every tcv kernel of a cubin is SASS-identical to the measured arm its step loop names.

kernels/tcv.cu chooses each kernel's step loop (TcvFetch: wide, lean-top, lean-mid) from an A/B
(bench/results/2026-11-27-h100-leanall). This script restates that table (EXPECT below, written apart
from the C++ so the two are compared, not copied) and checks, with nvdisasm, that each dense and
grouped tcv kernel of NEW equals the same kernel of the cubin built for the arm it names:
  WIDE: -DKBIT_TCV_FETCH_ALL=0 (every kernel wide: SASS-identical to main 57082e2, before the table),
  MID: -DKBIT_TCV_FETCH_ALL=2, TOP: -DKBIT_TCV_FETCH_ALL=1.
Build each with
  nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -DKBIT_HAVE_SM90A=1 -I kernels -I lib \
       -cubin kernels/tcv.cu -o X.cubin   (plus the arm's -D)
Usage: python3 bench/scripts/sass_fetch_check.py NEW WIDE MID TOP   (exit 1 on any mismatch).
NVDISASM overrides the nvdisasm path."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_compare import instructions  # noqa: E402


def expect(kb, nt, pr, mode, grouped):
    """The arm of kernel (k, NT, PR, TcvMode); grouped: grouped_tcv_kernel (mode unused)."""
    if grouped:
        return "mid" if (pr or kb == 2) else "wide"
    E, L, U, W = mode == 3, mode == 2, mode == 1, mode == 0
    if kb == 2:
        return "mid" if nt == 1 else "wide" if W else "top" if L else "mid"
    if kb == 3:
        return "top" if nt == 2 else "wide" if (pr and (U or L)) else "mid"
    if kb == 4:
        return "wide" if pr else "mid" if (nt == 1 and E) else "top" if (nt == 2 and L) else "wide"
    return ("mid" if U else "top" if W else "wide") if nt == 1 else ("mid" if L else "wide")


def check(new_cubin, wide_cubin, mid_cubin, top_cubin):
    """(tcv kernels in NEW, [one line per kernel not identical to the arm its table entry names])."""
    new = instructions(new_cubin)
    arms = {"wide": instructions(wide_cubin), "mid": instructions(mid_cubin), "top": instructions(top_cubin)}
    pat = re.compile(r"(grouped_tcv_kernel|10tcv_kernel)ILNS0_3ActE(\d)ELi(\d)ELi(\d)ELb(\d)E(?:LNS1_7TcvModeE(\d))?")
    n, bad = 0, []
    for name, ins in sorted(new.items()):
        m = pat.search(name)
        if not m:
            continue
        grouped = m.group(1).startswith("grouped")
        kb, nt, pr = int(m.group(3)), int(m.group(4)), int(m.group(5))
        mode = int(m.group(6)) if m.group(6) else -1
        want = expect(kb, nt, pr, mode, grouped)
        same = [a for a, d in arms.items() if d.get(name) == ins]
        n += 1
        if want not in same:
            bad.append(f"{'grouped' if grouped else 'dense'} act={m.group(2)} k={kb} NT={nt} PR={pr} mode={mode}: "
                       f"expected {want}, equals {same or 'none'}")
    return n, bad


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    n, bad = check(*sys.argv[1:5])
    for b in bad:
        print("MISMATCH " + b)
    print(f"{n} tcv kernels, {n - len(bad)} identical to the arm they name, {len(bad)} not")
    sys.exit(1 if bad or n == 0 else 0)


if __name__ == "__main__":
    main()
