#!/usr/bin/env python3
"""Instruction mix of each kernel's largest loop, from nvdisasm output: a static count of the
loop body per iteration, to compare with the instruction budget per weight (docs/perf-notes.md).

  nvcc -O3 -arch=sm_90 -std=c++20 -I... -cubin kernels/gemv.cu -o gemv.cubin
  nvdisasm -c gemv.cubin > gemv.sass     # nvdisasm: CUDA toolkit, or the PyPI wheel nvidia-cuda-nvdisasm
  python3 bench/scripts/sass_loop_mix.py gemv.sass --match 'gemv_kernel' --weights-per-iter 128

The count is static: every instruction between the loop's label and its backward branch, cold
paths included (they inflate the count of loops with rarely taken branches: check the mix).
"""
import argparse
import os
import re
import shutil
import subprocess
from collections import Counter

INSTR = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(.*)$")


def find_nvdisasm(nvcc):
    """The nvdisasm to use: NVDISASM, else on PATH, else next to nvcc; None where none exists."""
    path = os.environ.get("NVDISASM") or shutil.which("nvdisasm") or os.path.join(os.path.dirname(nvcc), "nvdisasm")
    return path if os.path.exists(path) else None


def cubin_command(nvcc, src, source, cubin, flags=()):
    """nvcc's command line for kernels/SOURCE of the tree SRC as an sm_90a cubin (the kernels' build
    flags for SASS checks), with extra -D FLAGS."""
    return [nvcc, "-O3", "-std=c++20", "-gencode=arch=compute_90a,code=sm_90a", "-DKBIT_HAVE_SM90A=1", *flags,
            "-I", os.path.join(src, "kernels"), "-I", os.path.join(src, "lib"), "-cubin",
            os.path.join(src, "kernels", source), "-o", cubin]


def disassemble(cubin):
    """nvdisasm -c of the cubin (NVDISASM overrides the nvdisasm path), as text."""
    return subprocess.run([os.environ.get("NVDISASM", "nvdisasm"), "-c", cubin],
                          capture_output=True, text=True, check=True).stdout


def functions(text):
    funcs, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^\.text\.(\S+):", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur:
            funcs[cur].append(line)
    return funcs


def largest_loop(body):
    labels = {}
    for i, line in enumerate(body):
        m = re.match(r"^(\.L_x_\d+):", line)
        if m:
            labels[m.group(1)] = i
    best = None
    for i, line in enumerate(body):
        m = re.search(r"BRA `\((\.L_x_\d+)\)", line)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            start = labels[m.group(1)]
            if best is None or i - start > best[1] - best[0]:
                best = (start, i)
    if best is None:
        return []
    return [INSTR.match(l).group(1) for l in body[best[0]:best[1] + 1] if INSTR.match(l)]


def opcode(instr):
    instr = re.sub(r"^@!?U?P\w+\s+", "", instr.strip())
    return instr.split()[0].rstrip(";").split(".")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sass")
    ap.add_argument("--match", default="", help="regex on the mangled kernel name")
    ap.add_argument("--weights-per-iter", type=float, default=0, help="weights one thread handles per iteration")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    with open(args.sass) as f:
        funcs = functions(f.read())
    for name, body in funcs.items():
        if not re.search(args.match, name):
            continue
        loop = largest_loop(body)
        if not loop:
            continue
        mix = Counter(opcode(i) for i in loop)
        per = f" = {len(loop) / args.weights_per_iter:.2f} per weight" if args.weights_per_iter else ""
        top = ", ".join(f"{k} {v}" for k, v in mix.most_common(args.top))
        print(f"{name}: {len(loop)} instructions per iteration{per}  [{top}]")


if __name__ == "__main__":
    main()
