#!/usr/bin/env python3
"""Guard for tcv's per-kernel step loops (ctest sass.fetch_table).

kernels/tcv.cu chooses each tcv kernel's step loop (tcv_fetch_of, grouped_fetch_of) from H100
measurements (bench/results/2026-11-27-h100-leanall, -s24close). bench/scripts/sass_fetch_check.py
restates that table apart from the C++; this compiles kernels/tcv.cu for sm_90a as it is and with
-DKBIT_TCV_FETCH_ALL=0 / 2 / 1 (every kernel wide / lean-mid / lean-top) and checks that each of its tcv
kernels is SASS-identical to the kernel of the arm the table names. So an edit of either table alone
fails here. Negative control: the all-wide build checked as the tree must fail (the check can fail).
Usage: tcv_fetch_table.py NVCC SOURCE_DIR WORK_DIR. Exit 77 (skip) without nvdisasm."""
import os
import subprocess
import sys


def main():
    nvcc, src, work = sys.argv[1:4]
    sys.path.insert(0, os.path.join(src, "bench", "scripts"))
    from sass_loop_mix import cubin_command, find_nvdisasm
    nvdisasm = find_nvdisasm(nvcc)
    if not nvdisasm:
        print("nvdisasm not found next to %s or on PATH: skipped" % nvcc)
        return 77
    os.environ["NVDISASM"] = nvdisasm
    from sass_fetch_check import check
    os.makedirs(work, exist_ok=True)
    builds = {"tree": [], "wide": ["-DKBIT_TCV_FETCH_ALL=0"], "mid": ["-DKBIT_TCV_FETCH_ALL=2"],
              "top": ["-DKBIT_TCV_FETCH_ALL=1"]}
    cubins = {k: os.path.join(work, "tcv_%s.cubin" % k) for k in builds}
    procs = [subprocess.Popen(cubin_command(nvcc, src, "tcv.cu", cubins[k], flags)) for k, flags in builds.items()]
    if any(p.wait() != 0 for p in procs):
        print("FAIL: nvcc")
        return 1
    n, bad = check(cubins["tree"], cubins["wide"], cubins["mid"], cubins["top"])
    for b in bad:
        print("FAIL " + b)
    print("%d tcv kernels, %d not identical to the arm their table entry names" % (n, len(bad)))
    n_ctl, bad_ctl = check(cubins["wide"], cubins["wide"], cubins["mid"], cubins["top"])
    print("negative control (the all-wide build as the tree): %d of %d kernels flagged" % (len(bad_ctl), n_ctl))
    if n == 0 or bad or not bad_ctl:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
