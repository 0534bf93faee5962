#!/usr/bin/env python3
"""Regression guard for reads moved above griddepcontrol.wait (ctest sass.pdl_reads).

Under LinearArgs::pdl a kernel may start while the previous kernel still writes A; it must read A only
after griddepcontrol.wait (SASS ACQBULK). ptxas may schedule an __ldg (LDG...CONSTANT) above the wait,
and did so in gemv's late-trigger staged kernels (bench/results/2026-11-26-h100-stagedmends). This
compiles kernels/gemv.cu for sm_90a and checks the two gemv kernel families whose reads before the wait
can be told apart by width: the workspace-mode kernels of the register pipeline (they stage the
codebook, then wait, then load weights) and the staged early-trigger kernels (weights by cp.async,
LDGSTS). In both, every load before the wait must be a 32-bit codebook load: a wider one is a weight
or activation load that does not belong there. The cluster and early kernels of the register pipeline
load 64- and 128-bit weights before the wait on purpose, so width cannot separate A there; they are
not checked. Usage: pdl_sass_reads.py NVCC SOURCE_DIR WORK_DIR. Exit 77 (skip) without nvdisasm."""
import os
import re
import shutil
import subprocess
import sys


def main():
    nvcc, src, work = sys.argv[1:4]
    sys.path.insert(0, os.path.join(src, "bench", "scripts"))
    from sass_loop_mix import functions  # the nvdisasm parsing the SASS scripts share
    nvdisasm = os.environ.get("NVDISASM") or shutil.which("nvdisasm") or os.path.join(os.path.dirname(nvcc), "nvdisasm")
    if not os.path.exists(nvdisasm):
        print("nvdisasm not found next to %s or on PATH: skipped" % nvcc)
        return 77
    os.makedirs(work, exist_ok=True)
    cubin = os.path.join(work, "gemv_sm90a.cubin")
    if os.environ.get("KBIT_SASS_CUBIN"):  # a cubin built already (checking this script itself)
        cubin = os.environ["KBIT_SASS_CUBIN"]
    else:
        subprocess.run([nvcc, "-O3", "-std=c++20", "-gencode=arch=compute_90a,code=sm_90a", "-DKBIT_HAVE_SM90A=1",
                        "-I", os.path.join(src, "kernels"), "-I", os.path.join(src, "lib"), "-cubin",
                        os.path.join(src, "kernels", "gemv.cu"), "-o", cubin], check=True)
    sass = subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True, text=True).stdout
    checked, bad = 0, []
    for name, body in sorted(functions(sass).items()):
        m = re.search(r"11gemv_kernelI.*GemvModeE(\d)ELb(\d)ELi(\d)E", name)
        if not m:
            continue
        mode, st = int(m.group(1)), int(m.group(3))
        if not ((mode == 0 and st == 0) or (mode == 2 and st > 0)):
            continue
        wait = next((i for i, l in enumerate(body) if "ACQBULK" in l), None)
        if wait is None:
            bad.append("%s: no griddepcontrol.wait" % name)
            continue
        checked += 1
        for line in body[:wait]:
            ins = line.split(";")[0].split("*/")[-1].strip()
            op = re.sub(r"^@!?U?P\w+\s+", "", ins).split(" ")[0]  # the opcode and its modifiers
            if op.startswith("LDG") and not op.startswith("LDGSTS") and not op.startswith("LDGDEPBAR") and \
                    re.search(r"\.(64|128|U8|S8|U16|S16)(\.|$)", op):
                bad.append("%s: %s before the wait" % (name, ins))
    print("%d gemv kernels checked" % checked)
    for b in bad:
        print("FAIL " + b)
    # 2 activation types x (register workspace kernels: k = 2..5 x M = 1..4, pair tables at k = 2..4
    # for some M) + staged early kernels: far more than 40; fewer means the names changed.
    if checked < 40:
        print("FAIL only %d kernels matched: the kernel names or modes changed, update this check" % checked)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
